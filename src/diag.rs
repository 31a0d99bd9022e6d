//! Located diagnostics: every front-end error names file:line:col, shows the offending text
//! with a caret and says what was expected; hints and suggestions ride along as `help` notes.
//!
//! Rendering is codespan-reporting's (the layout rustc users know). A diagnostic keeps only
//! its own source line, not the whole file, so thousands of them stay cheap; [`OneLine`]
//! serves that line to the renderer at its real line number.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use std::fmt;
use std::ops::Range;

/// Longest source line shown whole under its error (longer ones are shown as an excerpt).
const MAX_SHOWN: usize = 400;

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
    /// 1-based; 0 when the error concerns the whole file (it cannot be read, it is too big).
    pub line: u32,
    pub col: u32,
    /// What went wrong, e.g. "expected `;` after the statement, found `}`".
    pub message: String,
    /// The source line the error is on (empty when unknown), for the caret display.
    pub source_line: String,
    /// Width of the caret underline (at least 1).
    pub width: u32,
    /// Hints: "did you mean `subgroupBallot`?", "herd's `P0:` prefix is written `0:` here".
    pub help: Vec<String>,
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
            help: Vec::new(),
        }
    }

    /// A diagnostic without a source text: `line` 0 means the whole file (it cannot be read).
    pub fn bare(file: &str, line: u32, col: u32, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line,
            col,
            message: message.into(),
            source_line: String::new(),
            width: 1,
            help: Vec::new(),
        }
    }

    /// The same diagnostic with one more help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }

    /// `file:line:col` (or just `file` for whole-file errors).
    pub fn location(&self) -> String {
        if self.line == 0 {
            self.file.clone()
        } else {
            format!("{}:{}:{}", self.file, self.line, self.col)
        }
    }

    /// The rendered diagnostic, with ANSI colours when `colour` (a terminal).
    pub fn render(&self, colour: bool) -> String {
        let mut buf = if colour {
            let mut w = termcolor::Ansi::new(Vec::new());
            let _ = self.emit(&mut w);
            w.into_inner()
        } else {
            let mut w = termcolor::NoColor::new(Vec::new());
            let _ = self.emit(&mut w);
            w.into_inner()
        };
        while buf.last() == Some(&b'\n') {
            buf.pop();
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    fn emit(&self, w: &mut dyn termcolor::WriteColor) -> Result<(), FilesError> {
        let config = term::Config::default();
        let shown: String = self
            .source_line
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut notes: Vec<String> = self.help.iter().map(|h| format!("help: {h}")).collect();
        let long = shown.chars().count() > MAX_SHOWN;
        if self.line == 0 || shown.is_empty() || long {
            // No text to point into, or a line too long to show whole: the location leads the
            // message (`FILE: ...`, `FILE:LINE:COL: ...`), and a long line is shown as an
            // excerpt around the column.
            if long {
                let col = (self.col as usize).saturating_sub(1);
                let from = col.saturating_sub(40);
                let excerpt: String = shown.chars().skip(from).take(80).collect();
                notes.insert(0, format!("…{excerpt}…\n{}^", " ".repeat(col - from + 1)));
            }
            let report = Report::error()
                .with_message(format!("{}: {}", self.location(), self.message))
                .with_notes(notes);
            let file = OneLine {
                name: &self.file,
                line: 1,
                text: "",
            };
            return term::emit(w, &config, &file, &report);
        }
        let mut report = Report::error().with_message(&self.message);
        // Column in bytes of the shown line (cols count characters).
        let start: usize = shown
            .chars()
            .take((self.col as usize).saturating_sub(1))
            .map(char::len_utf8)
            .sum();
        let start = start.min(shown.len());
        let end: usize = start
            + shown[start..]
                .chars()
                .take(self.width as usize)
                .map(char::len_utf8)
                .sum::<usize>();
        report = report
            .with_labels(vec![Label::primary((), start..end.max(start))])
            .with_notes(notes);
        let file = OneLine {
            name: &self.file,
            line: self.line as usize,
            text: &shown,
        };
        term::emit(w, &config, &file, &report)
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

/// One source line, served to codespan-reporting as if it were the whole file, at its real
/// line number (so the margin and `file:line:col` are right).
struct OneLine<'a> {
    name: &'a str,
    line: usize,
    text: &'a str,
}

impl<'a> Files<'a> for OneLine<'a> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.name)
    }
    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(self.text)
    }
    fn line_index(&'a self, (): (), _byte: usize) -> Result<usize, FilesError> {
        Ok(self.line.saturating_sub(1))
    }
    fn line_number(&'a self, (): (), index: usize) -> Result<usize, FilesError> {
        Ok(index + 1)
    }
    fn line_range(&'a self, (): (), index: usize) -> Result<Range<usize>, FilesError> {
        if index + 1 == self.line {
            Ok(0..self.text.len())
        } else {
            // Lines around the error are not kept: they render empty.
            Ok(self.text.len()..self.text.len())
        }
    }
}

/// All the errors found in one file (parsing collects as many as it can, in source order).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Every diagnostic rendered, separated by blank lines.
    pub fn render(&self, colour: bool) -> String {
        self.0
            .iter()
            .map(|d| d.render(colour))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}

/// The known name closest to `name` (Jaro-Winkler, case-insensitive), if it is close enough
/// to be the likely intent: the "did you mean" of unknown functions, models and registers.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(&lower, &k.to_ascii_lowercase()), k))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)))
        .map(|(_, k)| k)
}

/// The text of a caught panic's payload (a dependency's bug reported as an error, not a crash).
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

thread_local! {
    /// Set while [`catch_quietly`] runs on this thread.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, catching a panic (a dependency's bug, or Z3 out of resources) without printing
/// it; the payload's text is the error. The panic hook is installed once for the process and
/// is silent only on a thread inside this call: swapping the global hook per call raced when
/// calls overlap on several threads (an abandoned solver worker and the next test's).
pub fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let loud = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                loud(info);
            }
        }));
    });
    let before = QUIET.with(|q| q.replace(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(before));
    r.map_err(|p| panic_message(p.as_ref()))
}
