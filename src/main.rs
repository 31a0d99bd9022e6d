//! The `tangle` command: parse the flags, run one command, exit with its status (0 ok,
//! 1 a result contradicts an expectation, 2 bad input, 3 unknown). Everything else is in
//! `cli/` (flags, commands, output) and the library.

mod cli;

use clap::Parser;

fn main() {
    let args = cli::args::Cli::parse();
    cli::init_logging(args.verbose);
    let status = cli::run(&args);
    cli::out::finish(status)
}
