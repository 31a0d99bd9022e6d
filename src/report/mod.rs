//! Reports: analyses in, text or JSON out. Engines and queries never print.
pub mod equiv;
pub mod json;
pub mod text;
