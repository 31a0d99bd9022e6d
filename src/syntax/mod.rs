//! Front end: `.litmus` bytes -> resolved [`ast::Test`], or located [`Diagnostics`].
//!
//! Architecture invariant: parsing never panics, on any input bytes, and reports errors with
//! file:line:col and what was expected.

pub mod ast;
/// Located diagnostics (they live at the crate's root: every front end and input reader uses them).
pub use crate::diag;
mod lexer;
mod parser;
pub mod print;
pub mod tags;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics, Span};

/// Limits that keep analysis finite and parsing stack-safe. A test beyond them is refused.
pub mod limits {
    /// Most invocations in one test.
    pub const MAX_THREADS: u32 = 1024;
    /// Most lanes in one subgroup: 128, the widest a Vulkan device may report.
    pub const MAX_SUBGROUP: u32 = 128;
    /// Most memory cells over all globals: 2^24 (64 MiB of initial values), a guard on the
    /// reader's own allocation. Below it the memory budget decides: an analysis that needs
    /// more memory than `--max-memory` ends `unknown`, in whichever phase it runs out.
    pub const MAX_CELLS: u32 = 1 << 24;
    /// Deepest nesting of statements and expressions together.
    pub const MAX_DEPTH: u32 = 200;
    /// A condition's chain of one connective folds left-deep (each operator one level of
    /// [`MAX_DEPTH`]) up to this many operands; a longer one is read as a balanced tree.
    pub const LEFT_DEEP: usize = 64;
}

/// Parses and resolves one test file. `file` is only used in diagnostics.
/// The parser locates each limit where the user wrote it; [`validate::check`] holds every
/// front end's tests to the same limits.
pub fn parse(file: &str, bytes: &[u8]) -> Result<ast::Test, Diagnostics> {
    let test = parser::parse(file, bytes)?;
    validate::check(&test)?;
    Ok(test)
}

/// Reads and parses a file from disk (or `-`, standard input) with the default size limit;
/// an unreadable file is a diagnostic too.
pub fn parse_file(path: &std::path::Path) -> Result<ast::Test, Diagnostics> {
    parse_file_limited(path, crate::input::DEFAULT_MAX_FILE_BYTES)
}

/// As [`parse_file`], refusing files above `max_bytes`.
pub fn parse_file_limited(
    path: &std::path::Path,
    max_bytes: u64,
) -> Result<ast::Test, Diagnostics> {
    let bytes = crate::input::read(path, max_bytes)?;
    parse(&crate::input::display_name(path), &bytes)
}
