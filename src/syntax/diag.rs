//! Located diagnostics: every front-end error names file:line:col, shows the offending text and
//! says what was expected.

use std::fmt;

/// A byte range in a source file, with the 1-based line and column of its start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Span {
    pub start: u32,
    pub end: u32,
    pub line: u32,
    pub col: u32,
}

/// One error in an input file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub col: u32,
    /// What went wrong, e.g. "expected `;` after the statement, found `}`".
    pub message: String,
    /// The source line the error is on (empty when unknown), for the caret display.
    pub source_line: String,
    /// Width of the caret underline (at least 1).
    pub width: u32,
}

impl Diagnostic {
    /// Builds a diagnostic for `span` in `text` (the whole file).
    pub fn new(file: &str, text: &str, span: Span, message: impl Into<String>) -> Diagnostic {
        let source_line = text
            .lines()
            .nth(span.line.saturating_sub(1) as usize)
            .unwrap_or("")
            .to_string();
        Diagnostic {
            file: file.to_string(),
            line: span.line.max(1),
            col: span.col.max(1),
            message: message.into(),
            source_line,
            width: span.end.saturating_sub(span.start).clamp(1, 80),
        }
    }

    /// A diagnostic without a source text (e.g. a file that could not be read).
    pub fn bare(file: &str, line: u32, col: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line,
            col,
            message: message.into(),
            source_line: String::new(),
            width: 1,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", self.message)?;
        write!(f, "  --> {}:{}:{}", self.file, self.line, self.col)?;
        if !self.source_line.is_empty() {
            let shown: String = self
                .source_line
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .take(160)
                .collect();
            let num = self.line.to_string();
            let pad = " ".repeat(num.len());
            let caret_col = (self.col as usize)
                .saturating_sub(1)
                .min(shown.chars().count());
            writeln!(f)?;
            writeln!(f, "{pad} |")?;
            writeln!(f, "{num} | {shown}")?;
            write!(
                f,
                "{pad} | {}{}",
                " ".repeat(caret_col),
                "^".repeat(self.width as usize)
            )?;
        }
        Ok(())
    }
}

/// All the errors found in one file (parsing collects as many as it can, in source order).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}
