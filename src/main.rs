//! The `tangle` command: parses flags, runs queries from the library, prints a report, and
//! maps the result to an exit code (0 fine, 1 a verdict contradicts an `expect` line, 2 bad
//! input). Everything else lives in the library.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tangle::query::{self, Analysis, Engine, Options};
use tangle::report;
use tangle::syntax::{self, ast::Test};

#[derive(Parser)]
#[command(
    name = "tangle",
    version,
    about = "Which outcomes may GPU subgroups produce? Executable SIMT-Step semantics.",
    long_about = "Which outcomes may GPU subgroups produce? tangle runs .litmus tests under the \
SIMT-Step models (CM, SM, SCF, SSO, Spec, Lazy, Symb, or your own model file) and reports \
verdicts, outcomes and witness traces."
)]
struct Cli {
    /// Log what the engines do (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Is each test's condition outcome allowed under each model? (checks `expect` lines)
    Check(Common),
    /// Every reachable outcome of each test under each model (herd-style).
    Outcomes(Common),
    /// A tests x models table, and which tests tell each pair of models apart.
    Compare(Common),
    /// Outcomes only thin air justifies: allowed by Symb, forbidden by Lazy, with the cycle.
    #[command(name = "thin-air")]
    ThinAir(ThinAirArgs),
}

#[derive(Args)]
struct ThinAirArgs {
    /// Test files or directories.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The symbolic model.
    #[arg(long, default_value = "Symb")]
    symbolic: String,
    /// Its well-founded counterpart.
    #[arg(long, default_value = "Lazy")]
    well_founded: String,
    /// The speculative model to compare with.
    #[arg(long, default_value = "Spec")]
    speculative: String,
    /// Most thin-air outcomes to list per test.
    #[arg(long, default_value_t = 8)]
    limit: usize,
    #[arg(long, default_value_t = 8)]
    unroll: u32,
    /// Per solver call timeout in milliseconds.
    #[arg(long)]
    timeout: Option<u32>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print the witness execution of each thin-air outcome.
    #[arg(long)]
    witness: bool,
}

#[derive(Args)]
struct Common {
    /// Test files, or directories (every .litmus file inside, recursively).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// A built-in model (CM, SM, SCF, SSO, Spec, Lazy, Symb); repeatable. Default: all seven.
    #[arg(short, long = "model")]
    models: Vec<String>,
    /// A model file (see encodings/); repeatable.
    #[arg(long = "model-file")]
    model_files: Vec<PathBuf>,
    /// Loop bound: each loop may run its body this many times.
    #[arg(long, default_value_t = 8)]
    unroll: u32,
    /// The engine that answers: smt (Z3, every model) or explore (every interleaving).
    #[arg(long, value_enum, default_value_t = EngineArg::Smt)]
    engine: EngineArg,
    /// SMT: per solver call timeout in milliseconds (then the verdict is unknown).
    #[arg(long)]
    timeout: Option<u32>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print witness traces (allowed outcomes, undefined behaviour, bound hits).
    #[arg(long)]
    witness: bool,
    /// SMT: most outcomes to enumerate per test and model (then the list is marked incomplete).
    #[arg(long, default_value_t = 256)]
    max_outcomes: usize,
    /// Explorer state budget; beyond it the verdict is unknown.
    #[arg(long, default_value_t = 2_000_000)]
    max_states: usize,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Smt,
    Explore,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    let (kind, common) = match &cli.command {
        Command::Check(c) => ("check", c),
        Command::Outcomes(c) => ("outcomes", c),
        Command::Compare(c) => ("compare", c),
        Command::ThinAir(t) => return thin_air(t),
    };
    run(kind, common)
}

fn thin_air(a: &ThinAirArgs) -> ExitCode {
    let find =
        |n: &str| tangle::model::Model::by_name(n).ok_or_else(|| format!("unknown model `{n}`"));
    let (sym, wf, spec) = match (
        find(&a.symbolic),
        find(&a.well_founded),
        find(&a.speculative),
    ) {
        (Ok(x), Ok(y), Ok(z)) => (x, y, z),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let models = query::thin_air::ThinAirModels {
        symbolic: &sym,
        well_founded: &wf,
        speculative: &spec,
    };
    let opts = Options::default()
        .with_unroll(a.unroll)
        .with_timeout_ms(a.timeout);
    let (files, mut input_error) = collect_files(&a.files);
    let mut reports = Vec::new();
    for f in &files {
        let test = match syntax::parse_file(f) {
            Ok(t) => t,
            Err(d) => {
                eprintln!("{d}");
                input_error = true;
                continue;
            }
        };
        match query::thin_air::thin_air(&test, &models, &opts, a.limit) {
            Ok(r) => reports.push(r),
            Err(e) => {
                eprintln!("error: {}: {e}", test.file);
                input_error = true;
            }
        }
    }
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&reports).expect("serialisable")
        ),
        Format::Text => {
            for r in &reports {
                print!("{}", report::text::thin_air(r, a.witness));
            }
        }
    }
    if input_error {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

fn init_logging(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level)),
        )
        .with_writer(std::io::stderr)
        .try_init();
}

fn run(kind: &str, c: &Common) -> ExitCode {
    let models = match query::select_models(&c.models, &c.model_files) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options::default()
        .with_unroll(c.unroll)
        .with_engine(match c.engine {
            EngineArg::Explore => Engine::Explore,
            EngineArg::Smt => Engine::Smt,
        })
        .with_max_states(c.max_states)
        .with_timeout_ms(c.timeout)
        .with_max_outcomes(c.max_outcomes)
        .with_outcomes(kind != "check" || c.format == Format::Json || c.witness);
    let (files, mut input_error) = collect_files(&c.files);
    let mut tests: Vec<Test> = Vec::new();
    for f in &files {
        match syntax::parse_file(f) {
            Ok(t) => tests.push(t),
            Err(d) => {
                eprintln!("{d}");
                input_error = true;
            }
        }
    }
    let mut analyses: Vec<Analysis> = Vec::new();
    for t in &tests {
        if let Some(msg) = unknown_expect_models(t, &models) {
            eprintln!("{msg}");
        }
        let prog = match query::compile(t, opts.unroll) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {}: {e}", t.file);
                input_error = true;
                continue;
            }
        };
        tracing::info!(test = %t.name, "analysing");
        analyses.extend(query::analyse_models(t, &prog, &models, &opts));
    }
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    match (c.format, kind) {
        (Format::Json, _) => println!("{}", report::json::analyses(&analyses)),
        (Format::Text, "outcomes") => {
            for a in &analyses {
                println!("{}", report::text::outcomes(a, c.witness));
            }
        }
        (Format::Text, "compare") => {
            print!("{}", report::text::table(&analyses, &names, false));
            println!();
            print!("{}", report::text::distinctions(&analyses, &names));
        }
        (Format::Text, _) => {
            print!("{}", report::text::table(&analyses, &names, true));
            if c.witness {
                for a in &analyses {
                    println!();
                    print!("{}", report::text::outcomes(a, true));
                }
            }
        }
    }
    if input_error {
        ExitCode::from(2)
    } else if kind == "check"
        && analyses
            .iter()
            .any(|a| a.matches_expectation() == Some(false))
    {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// An `expect` entry naming no model being run and no built-in model is almost surely a typo.
fn unknown_expect_models(t: &Test, models: &[tangle::model::Model]) -> Option<String> {
    let builtin = tangle::model::Model::builtin();
    let bad: Vec<String> = t
        .expect
        .iter()
        .filter(|e| {
            !models
                .iter()
                .chain(builtin.iter())
                .any(|m| m.name.eq_ignore_ascii_case(&e.model))
        })
        .map(|e| {
            format!(
                "{}:{}:{}: warning: `expect` names unknown model `{}`",
                t.file, e.span.line, e.span.col, e.model
            )
        })
        .collect();
    (!bad.is_empty()).then(|| bad.join("\n"))
}

/// Expands directories into their `.litmus` files (sorted); reports missing paths.
fn collect_files(paths: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut error = false;
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found);
            found.sort();
            if found.is_empty() {
                eprintln!("error: {}: no .litmus files in this directory", p.display());
                error = true;
            }
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            eprintln!("error: {}: no such file or directory", p.display());
            error = true;
        }
    }
    (out, error)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
}
