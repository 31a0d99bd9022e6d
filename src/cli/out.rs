//! Where the command's words go, and how it ends.
//!
//! Standard output goes through [`print`], which ends the process quietly when the reader has
//! gone (`tangle outcomes DIR | head` must not panic). Diagnostics go to standard error, in
//! colour only on a terminal. The process ends with [`finish`], which flushes and exits
//! without running destructors: tearing down Z3 contexts can take a second, and the answer
//! is already out.

use std::io::{IsTerminal, Write};
use tangle::syntax::Diagnostics;

/// How a run ended, in increasing severity; the exit code is the worst seen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Everything decided, and as expected.
    Ok,
    /// Some answer is unknown (a bound, budget or limit cut it), nothing contradicts.
    Unknown,
    /// Some result contradicts an expectation.
    Mismatch,
    /// Bad input or flags.
    Error,
}

impl Status {
    /// The documented exit codes: 0 ok, 1 mismatch, 2 error, 3 unknown.
    pub fn code(self) -> i32 {
        match self {
            Status::Ok => 0,
            Status::Mismatch => 1,
            Status::Error => 2,
            Status::Unknown => 3,
        }
    }

    /// The worse of two.
    pub fn and(self, other: Status) -> Status {
        self.max(other)
    }
}

/// Writes to standard output; a closed pipe ends the process (exit 0, nothing on stderr).
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        // Any other write error (a full disk): say so once and stop.
        let _ = writeln!(std::io::stderr(), "error: cannot write the output: {e}");
        std::process::exit(Status::Error.code());
    }
}

/// A line on standard error (errors writing it are ignored: there is nowhere left to say so).
pub fn note(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// `error: ...` on standard error; returns [`Status::Error`] for the caller's status.
pub fn error(message: impl std::fmt::Display) -> Status {
    note(&format!("error: {message}"));
    Status::Error
}

/// Located diagnostics on standard error (with carets; coloured on a terminal).
pub fn diagnostics(d: &Diagnostics) -> Status {
    note(&d.render(colour()));
    Status::Error
}

/// A model that cannot be used: located (with a caret) when it is a model file's error.
pub fn model_error(e: &tangle::model::ModelError) -> Status {
    match e {
        tangle::model::ModelError::Syntax { .. } => diagnostics(&e.diagnostic().into()),
        _ => error(e),
    }
}

/// Does standard error go to a terminal (colour, progress bars)?
pub fn colour() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// A progress bar on standard error with an ETA; drawn only on a terminal.
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:30}] {pos}/{len} {wide_msg} (ETA {eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(what.to_string());
    bar
}

/// A spinner for searches of unknown length; drawn only on a terminal.
pub fn spinner() -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Flushes standard output and exits with `status`'s code, skipping destructors.
pub fn finish(status: Status) -> ! {
    print("");
    std::process::exit(status.code())
}

/// Writes a file the user asked for (`-o`), saying so on standard error.
pub fn write_file(path: &std::path::Path, text: &str) -> Result<(), Status> {
    std::fs::write(path, text)
        .map_err(|e| error(format!("{}: cannot write: {e}", path.display())))?;
    note(&format!("wrote {}", path.display()));
    Ok(())
}
