//! Memory models as data: herd7's cat language, one AST, two back ends.
//!
//! [`parse`] reads a `.cat` file unchanged; [`interp::run`] gives it meaning over any
//! [`interp::Algebra`]. The concrete algebra ([`concrete::Concrete`]) evaluates the model on
//! one candidate execution, as herd does; the symbolic one lives with the Z3 encoder. The
//! bundled models (`encodings/memory/*.cat`) are compiled in, so the binary runs anywhere.
//! What the base names mean (events, tags, `po`, `rf`, scopes, the SIMT-Step relations):
//! docs/memory-models.md.

pub mod ast;
pub mod concrete;
pub mod interp;
pub mod parse;
pub mod prefix;

pub use ast::Model;
pub use parse::parse;

/// The bundled cat files, by file name (also the targets of `include "..."`).
const BUNDLED: &[(&str, &str)] = &[
    ("sc.cat", include_str!("../../encodings/memory/sc.cat")),
    (
        "vulkan.cat",
        include_str!("../../encodings/memory/vulkan.cat"),
    ),
    ("ptx.cat", include_str!("../../encodings/memory/ptx.cat")),
    (
        "stdlib.cat",
        include_str!("../../encodings/memory/stdlib.cat"),
    ),
];

/// The text of a bundled cat file.
pub fn bundled(file: &str) -> Option<&'static str> {
    BUNDLED.iter().find(|(f, _)| *f == file).map(|(_, t)| *t)
}
