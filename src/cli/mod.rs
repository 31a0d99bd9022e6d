//! The `tangle` executable's modules (not part of the library): flags, one function per
//! command that calls the library and a printer, and the exit status. Each command returns a
//! [`out::Status`]; `main` turns the worst one into the exit code.

pub mod args;
mod batch;
pub mod out;
mod programs;
mod search;

use args::Command;
use out::Status;

/// Runs one command line.
pub fn run(cli: &args::Cli) -> Status {
    match &cli.command {
        Command::Check(c) => batch::run(batch::TableCommand::Check, c),
        Command::Outcomes(c) => batch::run(batch::TableCommand::Outcomes, c),
        Command::Compare(c) => batch::run(batch::TableCommand::Compare, c),
        Command::ThinAir(t) => batch::thin_air(t),
        Command::Include(i) => search::include(i),
        Command::Distinguish(d) => search::distinguish(d),
        Command::Equiv(e) => programs::equiv(e),
        Command::Minimize(m) => search::minimize(m, cli.verbose),
        Command::Show(s) => programs::show(s),
        Command::Liveness(l) => batch::liveness(l),
    }
}

/// Logs on standard error: our own at the level `-v` asks for, others' errors only (the z3
/// crate logs every term at debug level; naga warns about decorations it skips).
pub fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new(format!("error,tangle={level}"))
            }),
        )
        .with_writer(std::io::stderr)
        .with_ansi(out::colour())
        .try_init();
}
