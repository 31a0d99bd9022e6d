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
    /// Is every behaviour of model A a behaviour of model B? (proof per rule, then bounded search)
    Include(IncludeArgs),
    /// The smallest program with an outcome model B allows and model A forbids.
    Distinguish(DistinguishArgs),
    /// Do two programs have the same outcomes under each model (or, --refines, P's among Q's)?
    Equiv(EquivArgs),
    /// Shrink a test while model B allows and model A forbids its condition (1-minimal).
    Minimize(MinimizeArgs),
    /// Print a test as tangle reads it: a shader lowered to the litmus language.
    Show(ShowArgs),
}

#[derive(Args)]
struct ShowArgs {
    /// A test file or shader.
    file: PathBuf,
    #[command(flatten)]
    shader: ShaderArgs,
}

/// `tangle show`: the test as litmus text (for a shader: what the engines analyse).
fn show(a: &ShowArgs) -> ExitCode {
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match tangle::load(&a.file, &launch) {
        Ok(t) => {
            print!("{}", syntax::print::to_litmus(&t));
            ExitCode::SUCCESS
        }
        Err(d) => {
            eprintln!("{d}");
            ExitCode::from(2)
        }
    }
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
    /// Time budget per test in milliseconds (encoding and solving).
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
    /// Time budget per test in milliseconds, all phases (encoding, solving, exploring);
    /// when it runs out the verdict is unknown, with the phase it stopped in.
    #[arg(long)]
    timeout: Option<u32>,
    /// Memory budget of the process in MiB (both engines); when it runs out the verdict is
    /// unknown.
    #[arg(long, default_value_t = tangle::budget::DEFAULT_MAX_MEMORY_MIB)]
    max_memory: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Print witness traces (allowed outcomes, undefined behaviour, bound hits).
    #[arg(long)]
    witness: bool,
    /// SMT: encode timestamps as bit-vectors of this width instead of integers (measurement).
    #[arg(long, default_value_t = 0, hide = true)]
    time_bits: u32,
    /// SMT: most outcomes to enumerate per test and model (then the list is marked incomplete).
    #[arg(long, default_value_t = 256)]
    max_outcomes: usize,
    /// Explorer state budget; beyond it the verdict is unknown (about 2.3 KiB a state).
    #[arg(long, default_value_t = 800_000)]
    max_states: usize,
    #[command(flatten)]
    shader: ShaderArgs,
}

/// How a shader (.wgsl, .spv, .comp) is launched and what is asked of it.
#[derive(Args, Clone, Default)]
struct ShaderArgs {
    /// Shaders: lanes per subgroup (required; no default).
    #[arg(long, value_name = "N")]
    subgroup_size: Option<u32>,
    /// Shaders: invocations per workgroup (default: the shader's workgroup size).
    #[arg(long, value_name = "N")]
    workgroup_size: Option<u32>,
    /// Shaders: workgroups dispatched (default 1).
    #[arg(long, value_name = "N")]
    workgroups: Option<u32>,
    /// Shaders: the compute entry point (default: the only one).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Shaders: a buffer's initial words, a flat JSON array (NAME or GROUP:BINDING;
    /// FILE.json#/json/pointer reads an array inside a larger document). Repeatable.
    #[arg(long = "buffer", value_name = "NAME=FILE.json")]
    buffers: Vec<String>,
    /// Shaders: a buffer's expected final words. The question becomes "can some execution end
    /// with an expected word different?": forbid means every execution gives them. Repeatable.
    #[arg(long = "expect", value_name = "NAME=FILE.json")]
    expect: Vec<String>,
    /// Shaders: a buffer whose final words are the outcome (default: every writable storage
    /// buffer when there is no --expect). Repeatable.
    #[arg(long = "observe", value_name = "NAME")]
    observe: Vec<String>,
}

impl ShaderArgs {
    fn launch(&self) -> Result<tangle::shader::Launch, String> {
        let pairs = |v: &[String], flag: &str| -> Result<Vec<(String, String)>, String> {
            v.iter()
                .map(|s| {
                    s.split_once('=')
                        .map(|(n, f)| (n.to_string(), f.to_string()))
                        .ok_or_else(|| format!("{flag} {s}: expected NAME=FILE.json"))
                })
                .collect()
        };
        Ok(tangle::shader::Launch {
            subgroup_size: self.subgroup_size,
            workgroup_size: self.workgroup_size,
            workgroups: self.workgroups,
            entry: self.entry.clone(),
            buffers: pairs(&self.buffers, "--buffer")?,
            expect: pairs(&self.expect, "--expect")?,
            observe: self.observe.clone(),
        })
    }
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
        Command::Include(i) => return include(i),
        Command::Distinguish(d) => return distinguish(d),
        Command::Equiv(e) => return equiv(e),
        Command::Minimize(m) => return minimize(m, cli.verbose),
        Command::Show(s) => return show(s),
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
                // Our own logs only: the z3 crate logs every term it makes at debug level.
                .unwrap_or_else(|_| {
                    // naga warns about decorations it skips: not the user's concern.
                    tracing_subscriber::EnvFilter::new(format!("error,tangle={level}"))
                }),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
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
        .with_max_memory_mib(Some(c.max_memory))
        .with_max_outcomes(c.max_outcomes)
        .with_time_bits(c.time_bits)
        .with_outcomes(kind != "check" || c.witness);
    let launch = match c.shader.launch() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (files, mut input_error) = collect_files(&c.files);
    let mut tests: Vec<Test> = Vec::new();
    for f in &files {
        match tangle::load(f, &launch) {
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

// ---- include / distinguish -----------------------------------------------------------------

#[derive(Args)]
struct GrammarArgs {
    /// Locations of the enumerated programs: x, y, own (slots[lane]), next (slots[next]).
    #[arg(long, value_delimiter = ',', default_value = "x,own,next")]
    locs: Vec<String>,
    /// Subgroup ops of the enumerated programs: add (subgroupAdd(1)), all (subgroupAll(true)),
    /// elect (subgroupElect()).
    #[arg(long, value_delimiter = ',', default_value = "add")]
    ops: Vec<String>,
    /// Constants a store may write.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    values: Vec<u32>,
    /// Stores never write an op result.
    #[arg(long)]
    no_op_stores: bool,
    /// No subgroupBarrier() statements.
    #[arg(long)]
    no_barrier: bool,
    /// Deepest nesting of `if (lane == 0)` (0: straight-line programs).
    #[arg(long, default_value_t = 1)]
    depth: usize,
    /// smt: Z3 for every program; auto: the explorer unless a model is symbolic.
    #[arg(long, value_enum, default_value_t = SearchEngineArg::Auto)]
    search_engine: SearchEngineArg,
    /// enumerate: every program, one per symmetry orbit; cegis: one template per
    /// control-flow shape, decided by counterexample-guided synthesis with Z3.
    #[arg(long, value_enum, default_value_t = MethodArg::Enumerate)]
    method: MethodArg,
    /// Give up after this many seconds (the answer is then undecided, exit code 2).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum)]
enum MethodArg {
    Enumerate,
    Cegis,
}

#[derive(Clone, Copy, ValueEnum)]
enum SearchEngineArg {
    Auto,
    Smt,
}

impl GrammarArgs {
    fn options(&self, threads: u32, size: usize) -> Result<query::include::SearchOptions, String> {
        use query::enumerate::{Grammar, Loc, Op};
        let locs = self
            .locs
            .iter()
            .map(|l| {
                Loc::from_name(l)
                    .ok_or_else(|| format!("unknown location `{l}`: expected x, y, own or next"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ops = self
            .ops
            .iter()
            .filter(|o| !o.is_empty() && o.as_str() != "none")
            .map(|o| {
                Op::from_name(o)
                    .ok_or_else(|| format!("unknown op `{o}`: expected add, all or elect"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if self.values.contains(&0) {
            return Err("stored values must be non-zero (memory starts at 0)".into());
        }
        if threads < 2 {
            return Err("at least 2 lanes are needed".into());
        }
        let time_limit = match self.time_limit {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
            Some(s) => return Err(format!("--time-limit must be a positive number, not {s}")),
        };
        Ok(query::include::SearchOptions {
            grammar: Grammar {
                threads,
                locs,
                values: self.values.clone(),
                store_op_result: !self.no_op_stores,
                ops,
                barrier: !self.no_barrier,
                max_depth: self.depth,
            },
            max_size: size,
            engine: match self.search_engine {
                SearchEngineArg::Auto => query::include::SearchEngine::Auto,
                SearchEngineArg::Smt => query::include::SearchEngine::Smt,
            },
            method: match self.method {
                MethodArg::Enumerate => query::include::SearchMethod::Enumerate,
                MethodArg::Cegis => query::include::SearchMethod::Cegis,
            },
            time_limit,
            ..Default::default()
        })
    }
}

#[derive(Args)]
struct IncludeArgs {
    /// Model A: a built-in name or a model file.
    a: String,
    /// Model B: a built-in name or a model file.
    b: String,
    /// Largest number of lanes (one subgroup) of the bounded check; 2 up to this.
    #[arg(long, default_value_t = 2)]
    threads: u32,
    /// Largest program size (instructions, an `if` counting one) of the bounded check.
    #[arg(long, default_value_t = 4)]
    size: usize,
    /// Skip the bounded check when the per-rule proof covers every rule.
    #[arg(long)]
    no_bounded: bool,
    /// Write the counterexample, if any, to this file.
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    #[command(flatten)]
    grammar: GrammarArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

#[derive(Args)]
struct DistinguishArgs {
    /// Model A (forbids the outcome): a built-in name or a model file.
    a: String,
    /// Model B (allows the outcome): a built-in name or a model file.
    b: String,
    /// Largest number of lanes (one subgroup) tried; 2 up to this.
    #[arg(long, default_value_t = 3)]
    max_threads: u32,
    /// Largest program size (instructions, an `if` counting one) tried per number of lanes.
    #[arg(long, default_value_t = 4)]
    max_size: usize,
    /// Write the test to this file (default: standard output).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    #[command(flatten)]
    grammar: GrammarArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// A model by built-in name, or from a file when the argument names an existing file.
fn model_arg(s: &str) -> Result<tangle::model::Model, String> {
    let p = Path::new(s);
    if p.is_file() {
        return tangle::model::Model::load(p).map_err(|e| e.to_string());
    }
    tangle::model::Model::by_name(s).ok_or_else(|| {
        let known: Vec<String> = tangle::model::Model::builtin()
            .into_iter()
            .map(|m| m.name)
            .collect();
        format!(
            "unknown model `{s}`: expected one of {} or a model file",
            known.join(", ")
        )
    })
}

/// Prints search progress to stderr: one updating line on a terminal, a line per layer
/// otherwise.
fn progress_printer() -> impl FnMut(&query::include::Progress) {
    use std::io::IsTerminal;
    let tty = std::io::stderr().is_terminal();
    let mut layer = (0, 0);
    move |p: &query::include::Progress| {
        let line = match p.rounds {
            Some(r) => format!(
                "searching (CEGIS): {} lanes, size {}: {} templates decided, {r} rounds, {:.1} s",
                p.threads, p.size, p.checked, p.seconds
            ),
            None => format!(
                "searching: {} lanes, size {}: {} programs checked, {} skipped, {:.1} s",
                p.threads, p.size, p.checked, p.irrelevant, p.seconds
            ),
        };
        if tty {
            eprint!("\r{line}\x1b[K");
        } else if (p.threads, p.size) != layer {
            eprintln!("{line}");
        }
        layer = (p.threads, p.size);
    }
}

fn end_progress() {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprintln!();
    }
}

fn layers_text(layers: &[query::include::Layer]) -> String {
    if layers.iter().any(|l| l.templates.is_some()) {
        let mut out = String::from("  lanes  size   templates      rounds  unknown   seconds\n");
        for l in layers {
            out.push_str(&format!(
                "  {:>5}  {:>4}  {:>10}  {:>10}  {:>7}  {:>8.2}\n",
                l.threads,
                l.size,
                l.templates.unwrap_or(0),
                l.rounds.unwrap_or(0),
                l.unknown,
                l.seconds
            ));
        }
        return out;
    }
    let mut out =
        String::from("  lanes  size         raw   canonical     checked  unknown   seconds\n");
    for l in layers {
        out.push_str(&format!(
            "  {:>5}  {:>4}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8.2}\n",
            l.threads, l.size, l.raw, l.canonical, l.checked, l.unknown, l.seconds
        ));
    }
    out
}

fn write_witness(path: &Option<PathBuf>, text: &str) -> Result<(), String> {
    if let Some(p) = path {
        std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The two models and the search options of `include` and `distinguish`.
fn search_setup(
    a: &str,
    b: &str,
    grammar: &GrammarArgs,
    threads: u32,
    size: usize,
) -> Result<
    (
        tangle::model::Model,
        tangle::model::Model,
        query::include::SearchOptions,
    ),
    String,
> {
    Ok((
        model_arg(a)?,
        model_arg(b)?,
        grammar.options(threads, size)?,
    ))
}

fn include(args: &IncludeArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let (a, b, opts) = match search_setup(&args.a, &args.b, &args.grammar, args.threads, args.size)
    {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let proof = query::include_proof::unbounded(&a, &b);
    let run_bounded = !args.no_bounded || !proof.all_proven;
    if args.format == Format::Text {
        println!("{} ⊆ {}: per-rule proof (any program size)", a.name, b.name);
        for r in &proof.rules {
            println!(
                "  {:<8} {:<12} -> {:<12} {}  {}",
                r.kind.to_string(),
                r.a_class.to_string(),
                r.b_class.to_string(),
                if r.proven { "proven" } else { "open  " },
                r.note
            );
        }
        if proof.all_proven {
            println!("  => {} ⊆ {} for programs of any size", a.name, b.name);
        } else if args.no_bounded {
            println!(
                "  => not proven for every rule; running the bounded check despite --no-bounded"
            );
        } else {
            println!("  => not proven for every rule; the bounded check decides");
        }
    }
    let bounded = if run_bounded {
        let mut progress = progress_printer();
        let r = query::include::bounded(&a, &b, &opts, &mut progress);
        end_progress();
        match r {
            Ok(r) => Some(r),
            Err(e) => return fail(e.to_string()),
        }
    } else {
        None
    };
    if args.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "unbounded": proof,
                "bounded": bounded,
            }))
            .expect("serialisable")
        );
    } else if let Some(r) = &bounded {
        println!();
        let how = if r.layers.iter().any(|l| l.templates.is_some()) {
            "one template per control-flow shape, decided by CEGIS"
        } else {
            "one program per symmetry orbit"
        };
        println!(
            "bounded check, every program up to {} lanes and {} instructions (grammar: {}; {how}):",
            r.max_threads, r.max_size, r.grammar
        );
        print!("{}", layers_text(&r.layers));
        match &r.counterexample {
            Some(w) => {
                println!(
                    "  => {} ⊄ {}: counterexample ({} lanes, {} instructions; {} allows, {} forbids):\n",
                    r.a, r.b, w.threads, w.size, r.a, r.b
                );
                print!("{}", w.litmus);
            }
            None if r.holds => println!(
                "  => {} ⊆ {} up to the bound ({:.1} s)",
                r.a, r.b, r.seconds
            ),
            None if r.timed_out => println!(
                "  => undecided: the time limit stopped the search after {:.1} s",
                r.seconds
            ),
            None => println!(
                "  => undecided: some programs could not be analysed (see the unknown column)"
            ),
        }
    }
    if let Some(w) = bounded.as_ref().and_then(|r| r.counterexample.as_ref()) {
        if let Err(e) = write_witness(&args.output, &w.litmus) {
            return fail(e);
        }
        return ExitCode::from(1);
    }
    match bounded {
        Some(r) if !r.holds => ExitCode::from(2),
        _ => ExitCode::SUCCESS,
    }
}

fn distinguish(args: &DistinguishArgs) -> ExitCode {
    let fail = |e: String| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    };
    let setup = search_setup(
        &args.a,
        &args.b,
        &args.grammar,
        args.max_threads,
        args.max_size,
    );
    let (a, b, opts) = match setup {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut progress = progress_printer();
    let r = query::distinguish::distinguish(&a, &b, &opts, &mut progress);
    end_progress();
    let r = match r {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if args.format == Format::Json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).expect("serialisable")
        );
    } else {
        eprint!("{}", layers_text(&r.layers));
        match &r.witness {
            Some(w) => {
                eprintln!(
                    "found in {:.2} s: {} lanes, {} instructions ({} allows, {} forbids)",
                    r.seconds, w.threads, w.size, r.b, r.a
                );
                if args.output.is_none() {
                    print!("{}", w.litmus);
                }
            }
            None if r.timed_out => eprintln!(
                "undecided: the time limit stopped the search after {:.1} s (the layers above were searched completely, the last one only in part)",
                r.seconds
            ),
            None => eprintln!(
                "no program of {} up to {} lanes and {} instructions has an outcome {} allows and {} forbids ({:.1} s)",
                r.grammar, r.max_threads, r.max_size, r.b, r.a, r.seconds
            ),
        }
    }
    match &r.witness {
        Some(w) => match write_witness(&args.output, &w.litmus) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        },
        None if r.timed_out => ExitCode::from(2),
        None => ExitCode::from(1),
    }
}

#[derive(Args)]
struct EquivArgs {
    /// The first program, P (with --table: a directory of NAME.before.litmus /
    /// NAME.after.litmus pairs).
    p: PathBuf,
    /// The second program, Q.
    #[arg(required_unless_present = "table")]
    q: Option<PathBuf>,
    /// A built-in model; repeatable. Default: all seven.
    #[arg(short, long = "model")]
    models: Vec<String>,
    /// A model file (see encodings/); repeatable.
    #[arg(long = "model-file")]
    model_files: Vec<PathBuf>,
    /// Ask whether every outcome of P is an outcome of Q (P refines Q) instead of equality.
    #[arg(long)]
    refines: bool,
    /// Compare every before/after pair of the directory P; print a Markdown table.
    #[arg(long, conflicts_with_all = ["q", "refines"])]
    table: bool,
    /// Loop bound: each loop may run its body this many times.
    #[arg(long, default_value_t = 8)]
    unroll: u32,
    /// Per solver call timeout in milliseconds (then the answer may be unknown).
    #[arg(long)]
    timeout: Option<u32>,
    /// Most outcomes to enumerate per program and model (then the answer may be unknown).
    #[arg(long, default_value_t = 256)]
    max_outcomes: usize,
    /// List both programs' outcomes under every model.
    #[arg(long)]
    outcomes: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    shader: ShaderArgs,
}

/// `tangle equiv`: 0 equivalent (refines) under every model, 1 not (or unknown), 2 bad input.
fn equiv(a: &EquivArgs) -> ExitCode {
    use tangle::query::equiv::{self as eq, Holds};
    let models = match query::select_models(&a.models, &a.model_files) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let opts = Options::default()
        .with_unroll(a.unroll)
        .with_timeout_ms(a.timeout)
        .with_max_outcomes(a.max_outcomes);
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let parse = |p: &Path| tangle::load(p, &launch).map_err(|d| eprintln!("{d}"));
    let mut pairs = Vec::new();
    if a.table {
        let mut befores = Vec::new();
        walk(&a.p, &mut befores);
        befores.retain(|f| f.to_string_lossy().ends_with(".before.litmus"));
        befores.sort();
        if befores.is_empty() {
            eprintln!("error: {}: no NAME.before.litmus files", a.p.display());
            return ExitCode::from(2);
        }
        for b in befores {
            let path = b.to_string_lossy().to_string();
            let stem = path.trim_end_matches(".before.litmus");
            let name = Path::new(stem)
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().to_string());
            pairs.push((
                name,
                b.clone(),
                PathBuf::from(format!("{stem}.after.litmus")),
            ));
        }
    } else if let Some(q) = &a.q {
        pairs.push((String::new(), a.p.clone(), q.clone()));
    }
    let mut reports = Vec::new();
    for (name, p, q) in &pairs {
        let (Ok(pt), Ok(qt)) = (parse(p), parse(q)) else {
            return ExitCode::from(2);
        };
        match eq::equiv(&pt, &qt, &models, &opts, a.refines) {
            Ok(r) => reports.push((name.clone(), r)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    match (a.format, a.table) {
        (Format::Json, true) => {
            let rows: Vec<serde_json::Value> = reports
                .iter()
                .map(|(n, r)| serde_json::json!({ "name": n, "report": r }))
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&rows).expect("serialisable")
            );
        }
        (Format::Json, false) => println!(
            "{}",
            serde_json::to_string_pretty(&reports[0].1).expect("serialisable")
        ),
        (Format::Text, true) => {
            print!("{}", report::equiv::render_markdown_table(&reports, &names));
            println!();
            print!("{}", report::equiv::render_markdown_details(&reports));
        }
        (Format::Text, false) => print!(
            "{}",
            report::equiv::render_text(&reports[0].1, true, a.outcomes)
        ),
    }
    if a.table || reports.iter().all(|(_, r)| r.overall() == Holds::Yes) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

#[derive(Args)]
struct MinimizeArgs {
    /// The distinguishing test.
    file: PathBuf,
    /// The model that must allow the condition's outcome (B).
    #[arg(long, value_name = "B")]
    allowed_by: String,
    /// The model that must forbid it (A).
    #[arg(long, value_name = "A")]
    forbidden_by: String,
    /// Write the minimized test here instead of standard output.
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Loop bound: each loop may run its body this many times.
    #[arg(long, default_value_t = 8)]
    unroll: u32,
    /// Per solver call timeout in milliseconds (a candidate whose answer is unknown is not kept).
    #[arg(long)]
    timeout: Option<u32>,
    /// text: the minimized test; json: an object with the sizes before and after, the
    /// reductions kept and the minimized test as `text` (with -o, the file is written too).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// `tangle minimize`: 0 minimized, 2 bad input (including a test that does not distinguish).
fn minimize(a: &MinimizeArgs, verbose: u8) -> ExitCode {
    use tangle::query::minimize;
    let find = |n: &str| query::select_models(&[n.to_string()], &[]).map(|mut m| m.remove(0));
    let (allowed, forbidden) = match (find(&a.allowed_by), find(&a.forbidden_by)) {
        (Ok(b), Ok(f)) => (b, f),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let test = match syntax::parse_file(&a.file) {
        Ok(t) => t,
        Err(d) => {
            eprintln!("{d}");
            return ExitCode::from(2);
        }
    };
    let opts = Options::default()
        .with_unroll(a.unroll)
        .with_timeout_ms(a.timeout);
    let mut report = |e: &minimize::Event| {
        if e.accepted {
            eprintln!("[tried {}, kept {}] {}", e.tried, e.kept, e.description);
        } else if verbose > 0 {
            eprintln!(
                "[tried {}, kept {}] not kept: {}",
                e.tried, e.kept, e.description
            );
        }
    };
    let m = match minimize::minimize(&test, &allowed, &forbidden, &opts, &mut report) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {}: {e}", test.file);
            return ExitCode::from(2);
        }
    };
    eprintln!(
        "minimized {}: {} -> {} threads, {} -> {} statements ({} candidates tried, {} kept)",
        test.file,
        m.threads_before,
        m.threads_after,
        m.statements_before,
        m.statements_after,
        m.tried,
        m.steps.len()
    );
    if let Some(out) = &a.output {
        if let Err(e) = std::fs::write(out, &m.text) {
            eprintln!("error: {}: cannot write: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    match a.format {
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&m).expect("serialisable")
        ),
        Format::Text if a.output.is_none() => print!("{}", m.text),
        Format::Text => {}
    }
    ExitCode::SUCCESS
}
