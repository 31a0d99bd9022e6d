//! Reports: query results in, text, JSON or DOT out. Engines and queries never print; the
//! command line only chooses a printer.
pub mod dot;
pub mod equiv;
pub mod json;
pub mod search;
pub mod text;
