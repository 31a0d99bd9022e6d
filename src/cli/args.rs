//! The command line: every subcommand and flag (clap derive). Types only; `cli::run` acts.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use tangle::query::Options;

#[derive(Parser)]
#[command(
    name = "tangle",
    version,
    about = "Which outcomes may GPU subgroups produce? Executable SIMT-Step semantics.",
    long_about = "Which outcomes may GPU subgroups produce? tangle runs .litmus tests and compute \
shaders (WGSL, SPIR-V, GLSL) under the SIMT-Step models (CM, SM, SCF, SSO, Spec, Lazy, Symb, or \
your own model file) and reports verdicts, outcomes and witness traces.\n\n\
Exit codes: 0 everything decided and as expected; 1 some result contradicts an expectation \
(an `expect` line, --expected table, a counterexample, a difference); 2 an error (bad input, \
bad flags); 3 some answer is unknown (a bound, budget or time limit cut it) and nothing \
contradicts.\n\nThe test format: docs/litmus-format.md."
)]
pub struct Cli {
    /// Log what the engines do (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Is each test's condition outcome allowed under each model? (checks `expect` lines, or a
    /// table of expected verdicts with --expected)
    Check(Common),
    /// Every reachable outcome of each test under each model (herd-style).
    Outcomes(Common),
    /// A tests x models table, and which tests tell each pair of models apart.
    Compare(Common),
    /// Outcomes only thin air justifies: allowed by Symb, forbidden by Lazy, with the cycle.
    #[command(name = "thin-air")]
    ThinAir(ThinAirArgs),
    /// Is every behaviour of model A a behaviour of model B? (proof per rule, then bounded
    /// search); with --lattice, every pair of models as a picture.
    Include(IncludeArgs),
    /// The smallest program with an outcome model B allows and model A forbids.
    Distinguish(DistinguishArgs),
    /// Do two programs have the same outcomes under each model (or, --refines, P's among Q's)?
    Equiv(EquivArgs),
    /// Shrink a test while model B allows and model A forbids its condition (1-minimal).
    Minimize(MinimizeArgs),
    /// Print a test as tangle reads it: a shader lowered to the litmus language.
    Show(ShowArgs),
    /// Can a test run forever? Deadlocks and loops a progress model lets spin forever, with
    /// the prefix and the repeated part (checks `expect-liveness` lines).
    Liveness(LivenessArgs),
}

/// Output formats. `dot` draws pictures (Graphviz): witnesses of `check`/`outcomes`, the
/// lattice of `include --lattice`.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Dot,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum EngineArg {
    Smt,
    Explore,
}

impl EngineArg {
    pub fn engine(self) -> tangle::query::Engine {
        match self {
            EngineArg::Smt => tangle::query::Engine::Smt,
            EngineArg::Explore => tangle::query::Engine::Explore,
        }
    }
}

/// Flags every command that reads files shares.
#[derive(Args, Clone)]
pub struct InputArgs {
    /// Refuse input files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = tangle::input::DEFAULT_MAX_FILE_BYTES)]
    pub max_file_size: u64,
}

/// The models a run answers for.
#[derive(Args, Clone)]
pub struct ModelArgs {
    /// A model: a built-in name (CM, SM, SCF, SSO, Spec, Lazy, Symb) or a model file;
    /// repeatable. Default: all seven.
    #[arg(short, long = "model")]
    pub models: Vec<String>,
    /// A model file (see encodings/); repeatable.
    #[arg(long = "model-file")]
    pub model_files: Vec<PathBuf>,
}

impl ModelArgs {
    /// The models, resolved (see `Model::select`).
    pub fn select(&self) -> Result<Vec<tangle::model::Model>, tangle::model::ModelError> {
        tangle::model::Model::select(&self.models, &self.model_files)
    }
}

/// The memory models a command judges under.
#[derive(Args, Clone)]
pub struct MemoryArgs {
    /// The memory model: sc (built in, the default), vulkan or ptx (bundled), a bundled file
    /// such as sc.cat, or a path to a herd .cat file; repeatable (each question is then asked
    /// under every execution model x memory model, named like SSO+vulkan).
    #[arg(long, value_name = "sc|vulkan|ptx|FILE.cat", default_value = "sc")]
    pub memory_model: Vec<String>,
}

impl MemoryArgs {
    /// The models, in the order given (`None`: the built-in SC).
    pub fn resolve(
        &self,
    ) -> Result<
        Vec<Option<std::sync::Arc<tangle::memory::MemoryModel>>>,
        tangle::memory::MemoryModelError,
    > {
        self.memory_model
            .iter()
            .map(|spec| Ok(tangle::memory::MemoryModel::resolve(spec)?.map(std::sync::Arc::new)))
            .collect()
    }
}

/// The loop bound (at least 1: a loop body that may not run once is not a bound).
#[derive(Args, Clone)]
pub struct UnrollArg {
    /// Loop bound: each loop may run its body this many times (loops with a trip count found
    /// before the run are unrolled exactly as far as they run).
    #[arg(long, default_value_t = tangle::query::DEFAULT_UNROLL, value_parser = clap::value_parser!(u32).range(1..))]
    pub unroll: u32,
}

/// The time and memory budget of each analysis (a test, a pair of programs, a candidate).
#[derive(Args, Clone)]
pub struct BudgetArgs {
    /// Time budget of each analysis in milliseconds, all phases (unrolling, encoding,
    /// solving, exploring); when it runs out the answer is unknown, with the phase it
    /// stopped in.
    #[arg(long, value_name = "MS")]
    pub timeout: Option<u32>,
    /// Memory budget of each analysis in MiB: what it may add to the process (both engines);
    /// when it runs out the answer is unknown.
    #[arg(long, value_name = "MIB", default_value_t = tangle::budget::DEFAULT_MAX_MEMORY_MIB)]
    pub max_memory: u64,
}

impl BudgetArgs {
    /// The options with this budget.
    pub fn apply(&self, o: Options) -> Options {
        o.with_timeout_ms(self.timeout)
            .with_max_memory_mib(Some(self.max_memory))
    }
}

/// The explorer's state budget.
#[derive(Args, Clone)]
pub struct StatesArg {
    /// Explorer state budget; beyond it the answer is unknown (about 2.3 KiB a state).
    #[arg(long, default_value_t = tangle::query::DEFAULT_MAX_STATES)]
    pub max_states: usize,
}

#[derive(Args)]
pub struct Common {
    /// Test files or directories (every .litmus file inside, recursively); `-` reads a test
    /// from standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub unroll: UnrollArg,
    /// The engine that answers: smt (Z3, every model) or explore (every interleaving).
    #[arg(long, value_enum, default_value_t = EngineArg::Smt)]
    pub engine: EngineArg,
    #[command(flatten)]
    pub memory: MemoryArgs,
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Output format (dot: one picture per witness).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print witness traces (allowed outcomes, undefined behaviour, bound hits). One solver
    /// call per verdict: `check --witness` does not list every outcome.
    #[arg(long)]
    pub witness: bool,
    /// A table of expected verdicts (CSV: test,model,verdict with verdict allow, forbid or
    /// unknown); results are compared against it instead of the `expect` lines.
    #[arg(long, value_name = "CSV")]
    pub expected: Option<PathBuf>,
    /// Rewrite the expectations from this run's verdicts: the --expected table, or else each
    /// test file's `expect` line. An unknown verdict never replaces a decided one (a table
    /// gets an `unknown` row only for a test and model it did not list).
    #[arg(long)]
    pub bless: bool,
    /// SMT: encode timestamps as bit-vectors of this width instead of integers (measurement).
    #[arg(long, default_value_t = 0, hide = true)]
    pub time_bits: u32,
    /// SMT: most outcomes to enumerate per test and model (then the list is marked incomplete).
    #[arg(long, default_value_t = tangle::query::DEFAULT_MAX_OUTCOMES)]
    pub max_outcomes: usize,
    #[command(flatten)]
    pub states: StatesArg,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shader: ShaderArgs,
}

/// How a shader (.wgsl, .spv, .comp) is launched and what is asked of it.
#[derive(Args, Clone, Default)]
pub struct ShaderArgs {
    /// Shaders: lanes per subgroup (required; no default).
    #[arg(long, value_name = "N")]
    pub subgroup_size: Option<u32>,
    /// Shaders: invocations per workgroup (default: the shader's workgroup size).
    #[arg(long, value_name = "N")]
    pub workgroup_size: Option<u32>,
    /// Shaders: workgroups dispatched (default 1).
    #[arg(long, value_name = "N")]
    pub workgroups: Option<u32>,
    /// Shaders: the compute entry point (default: the only one).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Shaders: a buffer's initial words, a flat JSON array (NAME or GROUP:BINDING;
    /// FILE.json#/json/pointer reads an array inside a larger document). Repeatable.
    #[arg(long = "buffer", value_name = "NAME=FILE.json")]
    pub buffers: Vec<String>,
    /// Shaders: a buffer's expected final words. The question becomes "can some execution end
    /// with an expected word different?": forbid means every execution gives them. Repeatable.
    #[arg(long = "expect", value_name = "NAME=FILE.json")]
    pub expect: Vec<String>,
    /// Shaders: a buffer whose final words are the outcome (default: every writable storage
    /// buffer when there is no --expect). Repeatable.
    #[arg(long = "observe", value_name = "NAME")]
    pub observe: Vec<String>,
    /// SPIR-V: a specialization constant's value by SpecId (default: the module's). Repeatable.
    #[arg(long = "spec-constant", value_name = "ID=VALUE")]
    pub spec_constants: Vec<String>,
    /// The question, herd-style, over the shader's memory: `exists (out[0] == 1 && out[1] ==
    /// 2)`, `~exists (...)` or `forall (...)`; it replaces an `@Output` annotation.
    #[arg(long, value_name = "COND")]
    pub condition: Option<String>,
    /// SPIR-V: `binding` (buffers at one descriptor binding share memory, as a Vulkan driver
    /// binds them) or `variable` (each buffer variable is its own memory, as Dartagnan reads
    /// a module). Default: binding, or variable for a file with Dartagnan's annotations.
    #[arg(long, value_name = "binding|variable", value_parser = ["binding", "variable"])]
    pub aliasing: Option<String>,
}

impl ShaderArgs {
    pub fn launch(&self) -> Result<tangle::shader::Launch, String> {
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
            condition: self.condition.clone(),
            aliasing: self.aliasing.as_deref().map(|a| match a {
                "variable" => tangle::shader::Aliasing::Variable,
                _ => tangle::shader::Aliasing::Binding,
            }),
            spec_constants: self
                .spec_constants
                .iter()
                .map(|s| {
                    let (i, v) = s
                        .split_once('=')
                        .ok_or_else(|| format!("--spec-constant {s}: expected ID=VALUE"))?;
                    let num = |x: &str| {
                        x.trim()
                            .parse::<u32>()
                            .map_err(|_| format!("--spec-constant {s}: `{x}` is not a number"))
                    };
                    Ok((num(i)?, num(v)?))
                })
                .collect::<Result<_, String>>()?,
        })
    }
}

#[derive(Args)]
pub struct ThinAirArgs {
    /// Test files or directories; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// The symbolic model (a built-in name or a model file).
    #[arg(long, default_value = "Symb")]
    pub symbolic: String,
    /// Its well-founded counterpart (a built-in name or a model file).
    #[arg(long, default_value = "Lazy")]
    pub well_founded: String,
    /// The speculative model to compare with (a built-in name or a model file).
    #[arg(long, default_value = "Spec")]
    pub speculative: String,
    /// Most thin-air outcomes to list per test.
    #[arg(long, default_value_t = 8)]
    pub limit: usize,
    #[command(flatten)]
    pub memory: MemoryArgs,
    #[command(flatten)]
    pub unroll: UnrollArg,
    /// The engine for the well-founded and speculative outcome sets (the symbolic one is
    /// always Z3's: the explorer has no symbolic class); explore cross-checks Z3.
    #[arg(long, value_enum, default_value_t = EngineArg::Smt)]
    pub engine: EngineArg,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub states: StatesArg,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print the witness execution of each thin-air outcome.
    #[arg(long)]
    pub witness: bool,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shader: ShaderArgs,
}

#[derive(Args)]
pub struct LivenessArgs {
    /// Test files or directories; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub models: ModelArgs,
    /// The progress model: fair, hsa, obe, hsa-obe, lobe or unfair for every scope, or one per
    /// scope as Dartagnan writes it (`QF=obe,SG=hsa`; scopes DV, QF, WG, SG, DEFAULT; the
    /// others are fair). Repeatable. Default: the file's own (`#pragma scheduler`), else fair.
    /// See docs/progress.md.
    #[arg(long)]
    pub progress: Vec<String>,
    #[command(flatten)]
    pub memory: MemoryArgs,
    #[command(flatten)]
    pub unroll: UnrollArg,
    /// The engine: explore (the state graph's cycles; under a memory model, spinning threads
    /// of the runs it explores) or smt (the spin-loop reduction, for loops whose steps run
    /// alone; under a memory model with windows of writes too; see docs/progress.md).
    /// Default: explore, or smt under Symb for a test with subgroup ops (which the explorer
    /// does not run)
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub states: StatesArg,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Print the prefix and the repeated steps of each hang.
    #[arg(long)]
    pub witness: bool,
    /// A Dartagnan liveness table (`path,1|0`: 1 when every execution terminates), such as
    /// its VULKAN-Liveness-HSA-expected.csv; answers are compared with it instead of the
    /// `expect-liveness` lines.
    #[arg(long, value_name = "CSV")]
    pub expected: Option<PathBuf>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shader: ShaderArgs,
}

#[derive(Args)]
pub struct GrammarArgs {
    /// Locations of the enumerated programs: x, y, own (slots[lane]), next (slots[next]).
    #[arg(long, value_delimiter = ',', default_value = "x,own,next")]
    pub locs: Vec<String>,
    /// Subgroup ops of the enumerated programs: add (subgroupAdd(1)), all (subgroupAll(true)),
    /// elect (subgroupElect()).
    #[arg(long, value_delimiter = ',', default_value = "add")]
    pub ops: Vec<String>,
    /// Constants a store may write.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    pub values: Vec<u32>,
    /// Stores never write an op result.
    #[arg(long)]
    pub no_op_stores: bool,
    /// No subgroupBarrier() statements.
    #[arg(long)]
    pub no_barrier: bool,
    /// Deepest nesting of `if (lane == 0)` (0: straight-line programs).
    #[arg(long, default_value_t = 1)]
    pub depth: usize,
    /// Write every load as `atomicLoad(loc, WORDS)`: an order, a scope and tags for a memory
    /// model (e.g. `relaxed,device,sc0,nonpriv`; docs/inclusion.md). Default: plain loads.
    #[arg(long, value_delimiter = ',', value_name = "WORDS")]
    pub load_words: Vec<String>,
    /// Write every store as `atomicStore(loc, val, WORDS)` (as --load-words). Default: plain
    /// stores.
    #[arg(long, value_delimiter = ',', value_name = "WORDS")]
    pub store_words: Vec<String>,
    /// smt: Z3 for every program; auto: the explorer unless a model is symbolic.
    #[arg(long, value_enum, default_value_t = SearchEngineArg::Auto)]
    pub search_engine: SearchEngineArg,
    /// enumerate: every program, one per symmetry orbit; cegis: one template per
    /// control-flow shape, decided by counterexample-guided synthesis with Z3.
    #[arg(long, value_enum, default_value_t = MethodArg::Enumerate)]
    pub method: MethodArg,
    /// Give up after this many seconds (the answer is then undecided, exit code 3).
    #[arg(long, value_name = "SECONDS")]
    pub time_limit: Option<f64>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MethodArg {
    Enumerate,
    Cegis,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SearchEngineArg {
    Auto,
    Smt,
}

impl GrammarArgs {
    /// The search options of `include` and `distinguish`.
    pub fn options(
        &self,
        threads: u32,
        size: usize,
    ) -> Result<tangle::query::search::SearchOptions, String> {
        use tangle::query::enumerate::{Grammar, Loc, Op};
        use tangle::query::search::{SearchEngine, SearchMethod, SearchOptions};
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
        let access = tangle::query::enumerate::Access {
            load: self
                .load_words
                .iter()
                .map(|w| w.trim().to_string())
                .collect(),
            store: self
                .store_words
                .iter()
                .map(|w| w.trim().to_string())
                .collect(),
        };
        access.check()?;
        if threads < 2 {
            return Err("at least 2 lanes are needed".into());
        }
        let time_limit = match self.time_limit {
            None => None,
            Some(s) if s.is_finite() && s > 0.0 => Some(
                std::time::Duration::try_from_secs_f64(s)
                    .map_err(|_| format!("--time-limit {s} is too large"))?,
            ),
            Some(s) => return Err(format!("--time-limit must be a positive number, not {s}")),
        };
        Ok(SearchOptions {
            grammar: Grammar {
                threads,
                locs,
                values: self.values.clone(),
                store_op_result: !self.no_op_stores,
                ops,
                barrier: !self.no_barrier,
                max_depth: self.depth,
                access,
            },
            max_size: size,
            engine: match self.search_engine {
                SearchEngineArg::Auto => SearchEngine::Auto,
                SearchEngineArg::Smt => SearchEngine::Smt,
            },
            method: match self.method {
                MethodArg::Enumerate => SearchMethod::Enumerate,
                MethodArg::Cegis => SearchMethod::Cegis,
            },
            time_limit,
            ..Default::default()
        })
    }
}

#[derive(Args)]
pub struct IncludeArgs {
    /// Model A: a built-in name or a model file, under SC; or MODEL+MEMORY under a memory
    /// model (SSO+vulkan, CM+ptx, SSO+my.cat).
    #[arg(required_unless_present = "lattice")]
    pub a: Option<String>,
    /// Model B, written as A is.
    #[arg(required_unless_present = "lattice")]
    pub b: Option<String>,
    /// Every ordered pair of the seven built-in models (and --model files): the per-rule
    /// proofs and the smallest-counterexample search, drawn with --format dot.
    #[arg(long, conflicts_with_all = ["a", "b", "output"])]
    pub lattice: bool,
    /// With --lattice: an extra model file to place in the lattice; repeatable.
    #[arg(long = "model", requires = "lattice")]
    pub models: Vec<String>,
    /// With --lattice: the memory models of the product lattice (execution model x memory
    /// model, nodes named like SSO+vulkan); repeatable; sc alone by default.
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Largest number of lanes (one subgroup) of the bounded check; 2 up to this.
    #[arg(long, default_value_t = 2)]
    pub threads: u32,
    /// Largest program size (instructions, an `if` counting one) of the bounded check.
    #[arg(long, default_value_t = 4)]
    pub size: usize,
    /// Skip the bounded check when the per-rule proof covers every rule.
    #[arg(long)]
    pub no_bounded: bool,
    /// Write the counterexample, if any, to this file.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub grammar: GrammarArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args)]
pub struct DistinguishArgs {
    /// Model A (forbids the outcome): a built-in name or a model file, under SC; or
    /// MODEL+MEMORY under a memory model (SSO+vulkan, CM+ptx).
    pub a: String,
    /// Model B (allows the outcome), written as A is.
    pub b: String,
    /// Largest number of lanes (one subgroup) tried; 2 up to this.
    #[arg(long, default_value_t = 3)]
    pub max_threads: u32,
    /// Largest program size (instructions, an `if` counting one) tried per number of lanes.
    #[arg(long, default_value_t = 4)]
    pub max_size: usize,
    /// Write the test to this file (default: standard output).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub grammar: GrammarArgs,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args)]
pub struct EquivArgs {
    /// The first program, P (with --table: a directory of NAME.before.litmus /
    /// NAME.after.litmus pairs).
    pub p: PathBuf,
    /// The second program, Q.
    #[arg(required_unless_present = "table")]
    pub q: Option<PathBuf>,
    #[command(flatten)]
    pub models: ModelArgs,
    #[command(flatten)]
    pub memory: MemoryArgs,
    /// Ask whether every outcome of P is an outcome of Q (P refines Q) instead of equality.
    #[arg(long)]
    pub refines: bool,
    /// Compare every before/after pair of the directory P; print a Markdown table.
    #[arg(long, conflicts_with_all = ["q", "refines"])]
    pub table: bool,
    #[command(flatten)]
    pub unroll: UnrollArg,
    /// The budget of each pair of programs (unrolling, encoding and solving both).
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Most outcomes to enumerate per program and model (then the answer may be unknown).
    #[arg(long, default_value_t = tangle::query::DEFAULT_MAX_OUTCOMES)]
    pub max_outcomes: usize,
    /// List both programs' outcomes under every model.
    #[arg(long)]
    pub outcomes: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub shader: ShaderArgs,
}

#[derive(Args)]
pub struct MinimizeArgs {
    /// The distinguishing test (`-`: standard input).
    pub file: PathBuf,
    /// The model that must allow the condition's outcome (B): a built-in name or a model file,
    /// or MODEL+MEMORY under a memory model (SSO+vulkan).
    #[arg(long, value_name = "B")]
    pub allowed_by: String,
    /// The model that must forbid it (A), written as B is.
    #[arg(long, value_name = "A")]
    pub forbidden_by: String,
    /// Write the minimized test here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub unroll: UnrollArg,
    /// The budget of each candidate's analysis (a candidate whose answer is unknown is not
    /// kept).
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// text: the minimized test; json: an object with the sizes before and after, the
    /// reductions kept and the minimized test as `litmus` (with -o, the file is written too).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub input: InputArgs,
}

#[derive(Args)]
pub struct ShowArgs {
    /// A test file or shader (`-`: a test on standard input).
    pub file: PathBuf,
    #[command(flatten)]
    pub shader: ShaderArgs,
    #[command(flatten)]
    pub input: InputArgs,
}
