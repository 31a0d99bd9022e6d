//! Front end: `.litmus` bytes -> resolved [`ast::Test`], or located [`Diagnostics`].
//!
//! Architecture invariant: parsing never panics, on any input bytes, and reports errors with
//! file:line:col and what was expected.

pub mod ast;
pub mod diag;
mod lexer;
mod parser;
pub mod print;

pub use diag::{Diagnostic, Diagnostics, Span};

/// Limits that keep analysis finite and parsing stack-safe. A test beyond them is refused.
pub mod limits {
    /// Most invocations in one test.
    pub const MAX_THREADS: u32 = 1024;
    /// Most lanes in one subgroup (semantics: up to 64).
    pub const MAX_SUBGROUP: u32 = 64;
    /// Most lanes in a subgroup whose test uses `subgroupBallot` (32-bit masks).
    pub const MAX_BALLOT_SUBGROUP: u32 = 32;
    /// Most memory cells over all globals.
    pub const MAX_CELLS: u32 = 65536;
    /// Deepest nesting of statements and expressions together.
    pub const MAX_DEPTH: u32 = 200;
}

/// Parses and resolves one test file. `file` is only used in diagnostics.
pub fn parse(file: &str, bytes: &[u8]) -> Result<ast::Test, Diagnostics> {
    parser::parse(file, bytes)
}

/// Reads and parses a file from disk; an unreadable file is a diagnostic too.
pub fn parse_file(path: &std::path::Path) -> Result<ast::Test, Diagnostics> {
    let name = path.display().to_string();
    match std::fs::read(path) {
        Ok(bytes) => parse(&name, &bytes),
        Err(e) => Err(Diagnostics(vec![Diagnostic::bare(
            &name,
            0,
            0,
            format!("cannot read the file: {e}"),
        )])),
    }
}
