//! Queries: the questions users ask ("is this outcome allowed under M?", "which outcomes
//! are?"), answered by an engine and packaged as report-ready data.
//!
//! Architecture invariant: queries return data ([`Analysis`]); they never print. The
//! `report` module turns it into text or JSON.

use crate::budget::Budget;
use crate::engine::explore::{self, ExploreOptions};
use crate::engine::lasso;
use crate::engine::smt::{self, SmtOptions};
use crate::ir::{self, Program};
use crate::model::Model;
use crate::syntax::ast::{self, Quantifier};
use serde::Serialize;
use std::time::{Duration, Instant};

pub mod carry;
pub mod crosscheck;
pub mod distinguish;
pub mod enumerate;
pub mod equiv;
pub mod expected;
pub mod include;
pub mod include_proof;
pub mod liveness;
pub mod minimize;
pub mod search;
pub mod thin_air;
mod trace;
mod verdict;

pub use trace::{render_trace, MemoryAccess, TraceStep};

pub use search::cegis;

/// Which engine answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The explicit-state explorer (every interleaving).
    Explore,
    /// The Z3 encoding (every model, Symb included; scales to full subgroups).
    Smt,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Explore => "explore",
            Engine::Smt => "smt",
        })
    }
}

/// Analysis options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Loop bound: each loop may run its body this many times.
    pub unroll: u32,
    pub engine: Engine,
    /// Explorer state budget.
    pub max_states: usize,
    /// Time budget of one test's analysis (all its models), in milliseconds: unrolling,
    /// encoding, solving and exploring all count.
    pub timeout_ms: Option<u32>,
    /// Memory budget of the analysis, in MiB: what it may add to the process's resident set
    /// (both engines).
    pub max_memory_mib: Option<u64>,
    /// SMT: enumerate every outcome (not only the verdict's).
    pub want_outcomes: bool,
    /// Under a memory model with flags (`flag ~empty race as data-race`): judge them whole,
    /// unrolling idle loops one iteration deeper so that a flag raised in an iteration that
    /// goes round is seen ([`compile_for`]). Off, a question about the condition alone is
    /// spared those states (the flags' answer then stays open where such a cut is).
    pub want_flags: bool,
    /// SMT: most outcomes to enumerate.
    pub max_outcomes: usize,
    /// SMT: list outcomes that take any value of a free v once, as a family
    /// ([`OutcomeRow::free`]), instead of one number after another (the `outcomes` command).
    /// Only families Z3 proves (docs/semantics.md §6).
    pub free_values: bool,
    /// SMT: timestamps as integers (0) or bit-vectors of this width (for measurement).
    pub time_bits: u32,
    /// A relaxed memory model (cat); `None`: sequentially consistent memory (built in).
    pub memory: Option<std::sync::Arc<crate::memory::MemoryModel>>,
    /// When the test's analysis began, so that unrolling and the engines share one deadline
    /// ([`Options::started`]); `None`: each budget starts when it is made.
    pub start: Option<Instant>,
    /// How deep idle loops are unrolled: as deep as a subgroup has lanes (the default: no
    /// outcome lies deeper), or to the loop bound.
    pub idle_depth: ir::IdleDepth,
    /// Partly idle loops (docs/progress.md, "Idle iterations") are unrolled
    /// [`ir::partly_idle_depth`] deep in this round of [`deepening`]; `None`: to the bound.
    pub partly_idle_round: Option<u32>,
}

/// The loop bound when none is given (`--unroll`).
pub const DEFAULT_UNROLL: u32 = 8;
/// Outcomes Z3 enumerates per test and model when no limit is given (`--max-outcomes`).
pub const DEFAULT_MAX_OUTCOMES: usize = 256;
/// The explorer's state budget when none is given (`--max-states`).
pub const DEFAULT_MAX_STATES: usize = crate::engine::explore::DEFAULT_MAX_STATES;

impl Default for Options {
    fn default() -> Self {
        Options {
            unroll: DEFAULT_UNROLL,
            engine: Engine::Smt,
            max_states: DEFAULT_MAX_STATES,
            timeout_ms: None,
            max_memory_mib: Some(crate::budget::DEFAULT_MAX_MEMORY_MIB),
            want_outcomes: true,
            want_flags: true,
            max_outcomes: DEFAULT_MAX_OUTCOMES,
            free_values: false,
            time_bits: 0,
            memory: None,
            start: None,
            idle_depth: ir::IdleDepth::Lanes,
            partly_idle_round: None,
        }
    }
}

impl Options {
    pub fn with_unroll(mut self, n: u32) -> Self {
        self.unroll = n;
        self
    }
    pub fn with_engine(mut self, e: Engine) -> Self {
        self.engine = e;
        self
    }
    pub fn with_max_states(mut self, n: usize) -> Self {
        self.max_states = n;
        self
    }
    pub fn with_timeout_ms(mut self, ms: Option<u32>) -> Self {
        self.timeout_ms = ms;
        self
    }
    /// Does the memory model raise flags (`vulkan.cat`'s `data-race`)? Then there is a races
    /// question to answer, and idle loops go one iteration deeper for it.
    pub fn memory_has_flags(&self) -> bool {
        self.memory.as_ref().is_some_and(|m| m.cat.has_flags())
    }

    pub fn with_idle_depth(mut self, d: ir::IdleDepth) -> Self {
        self.idle_depth = d;
        self
    }
    pub fn with_max_memory_mib(mut self, mib: Option<u64>) -> Self {
        self.max_memory_mib = mib;
        self
    }
    /// These options with the analysis's clock started now, unless it already runs: call it
    /// before compiling, so that unrolling counts in `timeout_ms`.
    pub fn started(mut self) -> Self {
        self.start.get_or_insert_with(Instant::now);
        self
    }
    /// The budget of one analysis: from [`Options::start`] if set, else from now.
    pub fn budget(&self) -> Budget {
        Budget::since(
            self.start.unwrap_or_else(Instant::now),
            self.timeout_ms.map(|ms| Duration::from_millis(ms as u64)),
            self.max_memory_mib,
        )
    }
    /// The SMT engine's options.
    pub fn smt_options(&self) -> SmtOptions {
        SmtOptions {
            timeout_ms: self.timeout_ms,
            max_memory_mib: self.max_memory_mib,
            max_outcomes: self.max_outcomes,
            time_bits: self.time_bits,
            memory: self.memory.clone(),
            liveness: false,
            symbolic_free: false,
            start: self.start,
        }
    }
    pub fn with_time_bits(mut self, bits: u32) -> Self {
        self.time_bits = bits;
        self
    }
    pub fn with_max_outcomes(mut self, n: usize) -> Self {
        self.max_outcomes = n;
        self
    }
    pub fn with_outcomes(mut self, want: bool) -> Self {
        self.want_outcomes = want;
        self
    }
    pub fn with_flags(mut self, want: bool) -> Self {
        self.want_flags = want;
        self
    }
    pub fn with_free_values(mut self, on: bool) -> Self {
        self.free_values = on;
        self
    }
}

/// Is the condition's outcome reachable?
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "verdict", content = "reason")]
pub enum Verdict {
    Allowed,
    Forbidden,
    /// The analysis could not decide; the string says why (a bound, a limit, an engine).
    Unknown(String),
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Allowed => "allowed",
            Verdict::Forbidden => "forbidden",
            Verdict::Unknown(_) => "unknown",
        }
    }
    /// The `expect` spelling: allow / forbid / unknown.
    pub fn short(&self) -> &'static str {
        match self {
            Verdict::Allowed => "allow",
            Verdict::Forbidden => "forbid",
            Verdict::Unknown(_) => "unknown",
        }
    }
}

/// One reachable outcome.
#[derive(Clone, Debug, Serialize)]
pub struct OutcomeRow {
    /// Values of the observables, in [`Analysis::observables`] order.
    pub values: Vec<u32>,
    /// Groups of observables (indices) that take any values in this row, which then stands
    /// for every such outcome: each group one common value, independent of the other groups
    /// (their entries in `values` are one choice); empty for one outcome.
    pub free: Vec<Vec<usize>>,
    /// Does it (for a family: some member of it) satisfy the condition's proposition?
    pub satisfies: bool,
    /// Does every member of it satisfy the proposition (`satisfies`, for one outcome)?
    pub satisfies_all: bool,
}

/// The name reports give the free value of group `k` of an outcome family: v, w, x, y, z,
/// then v5, v6, ...
pub fn free_value_name(k: usize) -> String {
    ["v", "w", "x", "y", "z"]
        .get(k)
        .map_or_else(|| format!("v{k}"), |n| n.to_string())
}

/// An execution that reached undefined behaviour.
#[derive(Clone, Debug, Serialize)]
pub struct UbReport {
    pub kind: crate::eval::UbKind,
    pub description: String,
    pub witness: Vec<TraceStep>,
}

/// The answer for one test under one model.
#[derive(Clone, Debug, Serialize)]
pub struct Analysis {
    pub test: String,
    pub file: String,
    pub model: String,
    pub engine: Engine,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// From the test's `expect` line, if it names this model.
    pub expected: Option<bool>,
    pub condition: String,
    pub quantifier: Quantifier,
    /// herd's Ok/No: does the whole condition hold (exists: some outcome satisfies P;
    /// ~exists: none does; forall: all do)? Read off the verdict for `exists` and `~exists`;
    /// for `forall`, off a complete outcome list. `None` when neither decides it.
    pub condition_holds: Option<bool>,
    /// Names of the observables: `0:r`, `x`, `a[1]`.
    pub observables: Vec<String>,
    /// The reachable outcomes, when they were listed (`outcomes_listed`).
    pub outcomes: Vec<OutcomeRow>,
    /// Were the outcomes enumerated at all? (`check` asks only for the verdict.)
    pub outcomes_listed: bool,
    /// False when the outcome list may be missing some (bound, limit, approximation).
    pub outcomes_complete: bool,
    /// Why the list may be incomplete, when it may.
    pub outcomes_incomplete: Option<String>,
    /// A trace reaching an outcome that satisfies P, when the verdict is allowed.
    pub witness: Option<Vec<TraceStep>>,
    /// Where the witness's final memory breaks the condition's `cell != value` comparisons
    /// (a shader's `--expect`: the words that differ), e.g. `ballots[17] = 0x3 (expected 0x1)`.
    pub witness_differs: Vec<String>,
    pub undefined_behaviour: Vec<UbReport>,
    /// Kinds of undefined behaviour (a memory model's flags included) the engine could not
    /// decide, each with why (Z3: the value set or the budget ran out); they are not in
    /// `undefined_behaviour`.
    pub undefined_behaviour_undecided: Vec<String>,
    /// Every run was judged for undefined behaviour and the memory model's flags (no run cut
    /// by the loop bound, the budget or the state limit; nothing undecided; under a model with
    /// flags, no idle loop cut either, since a removed iteration may race; no deadlocked run
    /// the explorer saw): with an empty `undefined_behaviour`, the test has none (Dartagnan's
    /// races question answered PASS).
    pub undefined_behaviour_complete: bool,
    /// The memory model has flags to raise (`vulkan.cat`'s `data-race`): without them the
    /// races question has no answer ([`Analysis::flags`]).
    pub flags_judged: bool,
    /// A trace cut by the loop bound, when one was.
    pub bound_hit: Option<Vec<TraceStep>>,
    /// The loop bound cut runs, or may have (an idle loop's cut included): not every run was
    /// followed to its end, so the safety commands ask whether some never finish.
    #[serde(skip)]
    pub runs_cut: bool,
    /// A run past the loop bound that never finishes under the test's progress model (fair
    /// unless its file names one), with its lasso ([`liveness::hang_past_the_bound`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hang: Option<Box<liveness::LivenessReport>>,
    pub notes: Vec<String>,
    /// Under a relaxed memory model (Z3 engine): the witness's reads-from and coherence, or
    /// the axioms that forbid the condition.
    pub memory: Option<crate::memory::MemoryReport>,
    pub states: usize,
    pub millis: f64,
}

/// Dartagnan's races question (`CAT_SPEC`): does some execution raise a flag of the memory
/// model (`vulkan.cat`'s `data-race`)?
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlagAnswer {
    /// Some execution raises one (its witness is in `undefined_behaviour`): Dartagnan's FAIL.
    Raised,
    /// Every run was judged, and none raises a flag or has undefined behaviour: PASS.
    Free,
    /// No flag is raised, but another undefined behaviour is (an index out of bounds): the
    /// program means nothing, so neither answer is claimed.
    Undefined(String),
    /// Not every run was judged, or the memory model has no flags to judge them by.
    Unknown,
}

impl FlagAnswer {
    /// In Dartagnan's words: PASS (`Some(true)`, no flag raised), FAIL (`Some(false)`), or
    /// neither.
    pub fn pass(&self) -> Option<bool> {
        match self {
            FlagAnswer::Free => Some(true),
            FlagAnswer::Raised => Some(false),
            _ => None,
        }
    }
}

impl Analysis {
    /// The answer to the races question ([`FlagAnswer`]).
    pub fn flags(&self) -> FlagAnswer {
        use crate::eval::UbKind;
        let raised = self
            .undefined_behaviour
            .iter()
            .any(|u| u.kind == UbKind::MemoryModelFlag);
        if raised {
            FlagAnswer::Raised
        } else if let Some(u) = self.undefined_behaviour.first() {
            FlagAnswer::Undefined(u.description.clone())
        } else if self.undefined_behaviour_complete && self.flags_judged {
            FlagAnswer::Free
        } else {
            FlagAnswer::Unknown
        }
    }

    /// Does the verdict match the `expect` line (None when there is no expectation or the
    /// verdict is unknown)?
    pub fn matches_expectation(&self) -> Option<bool> {
        let exp = self.expected?;
        match self.verdict {
            Verdict::Allowed => Some(exp),
            Verdict::Forbidden => Some(!exp),
            Verdict::Unknown(_) => None,
        }
    }
}

/// Failures that prevent an analysis (bad input, not a verdict).
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The loop nest is too large to unroll (never a budget: that is `Exhausted`).
    #[error("{0}")]
    Unroll(ir::UnrollError),
    #[error("{0}")]
    Exhausted(#[from] crate::budget::Exhausted),
}

impl From<ir::UnrollError> for QueryError {
    fn from(e: ir::UnrollError) -> QueryError {
        match e {
            ir::UnrollError::Exhausted(x) => QueryError::Exhausted(x),
            e => QueryError::Unroll(e),
        }
    }
}

impl QueryError {
    /// The error located in the test (an unrolling limit points at its loop nest).
    pub fn diagnostic(&self, test: &ast::Test) -> crate::syntax::Diagnostic {
        use crate::syntax::Diagnostic;
        match self {
            QueryError::Unroll(e @ ir::UnrollError::TooLarge { span, .. }) => {
                Diagnostic::new(&test.file, &test.source, *span, e.to_string())
                    .with_help("lower --unroll, or give the loop a trip count tangle can find")
            }
            QueryError::Unroll(e) => Diagnostic::bare(&test.file, 0, 0, e.to_string()),
            QueryError::Exhausted(e) => Diagnostic::bare(&test.file, 0, 0, e.to_string()),
        }
    }
}

/// Lowers and unrolls a test with no budget (tests, generators and programs known to be
/// small); the queries use [`compile_within`].
pub fn compile(test: &ast::Test, unroll: u32) -> Result<Program, QueryError> {
    compile_within(test, unroll, &[], &Budget::unlimited())
}

/// Lowers and unrolls a test within `budget`, observing `extra` locations too (e.g. to compare
/// two programs on the same locations). Every global named in `extra` must be declared by
/// the test.
pub fn compile_within(
    test: &ast::Test,
    unroll: u32,
    extra: &[ast::Operand],
    budget: &Budget,
) -> Result<Program, QueryError> {
    compile_at(test, unroll, ir::IdleDepth::Lanes, extra, budget)
}

fn compile_at(
    test: &ast::Test,
    unroll: u32,
    idle: ir::IdleDepth,
    extra: &[ast::Operand],
    budget: &Budget,
) -> Result<Program, QueryError> {
    compile_partly(test, unroll, idle, None, extra, budget)
}

fn compile_partly(
    test: &ast::Test,
    unroll: u32,
    idle: ir::IdleDepth,
    round: Option<u32>,
    extra: &[ast::Operand],
    budget: &Budget,
) -> Result<Program, QueryError> {
    Ok(ir::unroll_partly(
        ir::cfg::lower_observing(test, extra),
        unroll,
        idle,
        round,
        budget,
    )?)
}

/// As [`compile`], observing `extra` locations too (no budget: enumerated programs).
pub fn compile_observing(
    test: &ast::Test,
    unroll: u32,
    extra: &[ast::Operand],
) -> Result<Program, QueryError> {
    compile_within(test, unroll, extra, &Budget::unlimited())
}

/// As [`compile_within`], under the options' budget. `opts` must be [`Options::started`] for
/// the unrolling to count in the analysis's time.
/// Under a memory model with flags, idle loops get one iteration more than outcomes need, so
/// that a flag raised in an iteration that goes round is found
/// ([`Program::idle_cuts_hide_no_flag`]).
pub fn compile_for(test: &ast::Test, opts: &Options) -> Result<Program, QueryError> {
    let depth = match opts.idle_depth {
        ir::IdleDepth::Lanes if opts.want_flags && opts.memory_has_flags() => {
            ir::IdleDepth::LanesAndOne
        }
        d => d,
    };
    let round = opts
        .partly_idle_round
        .filter(|_| depth != ir::IdleDepth::Bound);
    compile_partly(test, opts.unroll, depth, round, &[], &opts.budget())
}

/// Compiles `test` and answers with `run`, first with partly idle loops shallow, then
/// deeper while a cut in one of them leaves some answer in doubt (docs/progress.md, "Idle
/// iterations"): a cut there is no doubt once enough of the loop's iterations were idle,
/// which a few iterations often show, while every iteration more multiplies the engines'
/// work (Dartagnan's `ttaslock-2.1.1` under `vulkan.cat`: Z3 0.5 s at depth 3, over 130 s at
/// 8). The depth doubles each round up to `--unroll`, within the test's budget (`opts` must
/// be [`Options::started`]).
pub fn deepening(
    test: &ast::Test,
    opts: &Options,
    mut run: impl FnMut(&Program) -> Vec<Analysis>,
) -> Result<Vec<Analysis>, QueryError> {
    let mut round = 0;
    let mut last: Option<(Vec<u32>, Vec<Analysis>)> = None;
    loop {
        let at = Options {
            partly_idle_round: Some(round),
            ..opts.clone()
        };
        let prog = match compile_for(test, &at) {
            Ok(p) => p,
            // A deeper program that cannot be built keeps the shallower answers.
            Err(_) if last.is_some() => return Ok(last.expect("a round ran").1),
            Err(e) => return Err(e),
        };
        // The same depths as the round before (trimmed by `ir::bounds`, or capped): nothing
        // new to learn.
        if let Some((depths, out)) = &last {
            if *depths == prog.depths {
                return Ok(out.clone());
            }
        }
        let mut out = run(&prog);
        // Every answer is sound at any depth: a shallower round's decided answer stands
        // where a deeper one ran out.
        if let Some((_, before)) = &last {
            for (a, b) in out.iter_mut().zip(before) {
                if matches!(a.verdict, Verdict::Unknown(_))
                    && !matches!(b.verdict, Verdict::Unknown(_))
                {
                    *a = b.clone();
                }
            }
        }
        let doubt = out.iter().any(|a| a.bound_hit.is_some());
        let capped = ir::partly_idle_depth(&prog.cfg, prog.idle_rounds(), round) >= opts.unroll;
        if !doubt
            || capped
            || !prog.partly_idle_cut_short()
            || opts.budget().check("deepening").is_err()
        {
            return Ok(out);
        }
        tracing::debug!(round, "a cut in a partly idle loop: deeper");
        last = Some((prog.depths.clone(), out));
        round += 1;
    }
}

/// Is the test's condition outcome reachable under `model`? Also lists the outcomes.
pub fn analyse(test: &ast::Test, model: &Model, opts: &Options) -> Result<Analysis, QueryError> {
    let opts = opts.clone().started();
    let mut out = deepening(test, &opts, |prog| {
        analyse_models(test, prog, std::slice::from_ref(model), &opts)
    })?;
    Ok(out.remove(0))
}

/// When the loop bound cut an execution under sequentially consistent memory, explores again
/// keeping the graph of places ([`places`]); if it closes up, its outcomes are complete and
/// the cut runs are no doubt (docs/progress.md, "The explorer's places").
fn past_the_bound(
    prog: &Program,
    m: &Model,
    ex: &explore::Exploration,
    eo: &ExploreOptions,
) -> Option<explore::Exploration> {
    if ex.cut.is_none() || ex.limit_hit || eo.memory.is_some() {
        return None;
    }
    places(prog, m, eo)
}

/// Should the places be explored because the search of the unrolled program ran into its
/// limits? Under SC, when the bound can cut a loop of the program and the states found fall
/// into clearly fewer places (iterations at one place are one state, so the places may fit
/// where the unrolled program did not), and more than a witness found is wanted: every
/// outcome, or (forall) a run breaking P, or P not reached yet.
fn places_past_the_limit(
    test: &ast::Test,
    prog: &Program,
    ex: &explore::Exploration,
    eo: &ExploreOptions,
    opts: &Options,
) -> bool {
    let want_all = opts.want_outcomes
        || test.condition.quantifier == Quantifier::Forall
        || !ex.outcomes.keys().any(|v| prog.prop.eval(v));
    // Only when the states found so far fall into clearly fewer places: where every state is a
    // place of its own (interleavings, not iterations, made them many) the places would run
    // out too, at twice the cost (the CTS-shaped batches, `peel` at 32 lanes); where the
    // places helped, they were half the states or fewer.
    let fewer = ex.places_at_limit.is_some_and(|(p, n)| p * 4 <= n * 3);
    tracing::debug!(states = ex.states, places = ?ex.places_at_limit, "out of states");
    ex.limit_hit && eo.memory.is_none() && prog.may_cut() && want_all && fewer
}

/// The graph of places, explored within `eo`'s limits, when it closes up
/// ([`lasso::bound_hides_no_outcome`]): its outcomes are then every outcome.
fn places(prog: &Program, m: &Model, eo: &ExploreOptions) -> Option<explore::Exploration> {
    let again = ExploreOptions {
        liveness: true,
        ..eo.clone()
    };
    explore::explore(prog, m, &again)
        .ok()
        .filter(lasso::bound_hides_no_outcome)
}

/// As [`analyse`], for an already compiled program and several models at once (the SMT
/// engine encodes the program once and switches models by assumptions).
pub fn analyse_models(
    test: &ast::Test,
    prog: &Program,
    models: &[Model],
    opts: &Options,
) -> Vec<Analysis> {
    match opts.engine {
        Engine::Explore => {
            // One budget for the test: its models share the time.
            let budget = opts.budget();
            models
                .iter()
                .map(|m| {
                    let start = Instant::now();
                    let mut a = blank(test, prog, m, opts);
                    let eo = ExploreOptions {
                        max_states: opts.max_states,
                        budget: budget.clone(),
                        memory: opts.memory.clone(),
                        liveness: false,
                        shortcuts: true,
                    };
                    match explore::explore(prog, m, &eo) {
                        Ok(ex) if places_past_the_limit(test, prog, &ex, &eo, opts) => {
                            // The unrolled search's own (undecided) answer, then its states
                            // dropped before the places are explored: the two never share
                            // the memory.
                            verdict::from_exploration(&mut a, test, prog, &ex, None, opts);
                            drop(ex);
                            if let Some(p) = places(prog, m, &eo) {
                                a = blank(test, prog, m, opts);
                                verdict::from_exploration(&mut a, test, prog, &p, Some(&p), opts);
                            }
                        }
                        Ok(ex) => {
                            let past = past_the_bound(prog, m, &ex, &eo);
                            verdict::from_exploration(&mut a, test, prog, &ex, past.as_ref(), opts)
                        }
                        Err(e) => a.verdict = Verdict::Unknown(e.to_string()),
                    }
                    a.millis = duration_ms(start.elapsed());
                    a
                })
                .collect()
        }
        Engine::Smt => match opts.timeout_ms {
            Some(ms) => smt_watched(test, prog, models, opts, ms),
            None => smt_models(test, prog, models, opts),
        },
    }
}

/// How long past its deadline an analysis may run before it is abandoned.
const GRACE: Duration = Duration::from_millis(500);

/// [`smt_models`] within the time budget. Z3 does not look at its cancel flag in every phase
/// (on Dartagnan's `ttaslock-2.1.1` under `vulkan.cat`, Z3's first call internalised the
/// model's terms for 58 s, ending 43 s past a 20 s budget), so the analysis runs on a worker thread; when it has not
/// answered half a second after the deadline, every model's answer is `unknown` and the
/// thread is left to finish in the background (Z3 has been asked to stop; its result is
/// dropped). docs/decisions.md, "Budgets and loop bounds".
fn smt_watched(
    test: &ast::Test,
    prog: &Program,
    models: &[Model],
    opts: &Options,
    ms: u32,
) -> Vec<Analysis> {
    let opts = opts.clone().started();
    let owned = (test.clone(), prog.clone(), models.to_vec(), opts.clone());
    let run = move || {
        let (t, p, m, o) = owned;
        smt_models(&t, &p, &m, &o)
    };
    match abandon_past_deadline(opts.start.expect("started"), ms, run) {
        Ok(analyses) => analyses,
        Err(why) => all_unknown(
            test,
            prog,
            models,
            &opts,
            &why,
            opts.start.expect("started"),
        ),
    }
}

/// Runs `run` (Z3 work) on a worker, abandoned [`GRACE`] past `ms` after `start`: Z3 does not
/// look at its cancel flag in every phase. `Err`: why it has no answer.
pub(super) fn abandon_past_deadline<T: Send + 'static>(
    start: Instant,
    ms: u32,
    run: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let deadline = start + Duration::from_millis(ms as u64) + GRACE;
    crate::budget::abandon_after(deadline, run).map_err(|unfinished| match unfinished {
        crate::budget::Unfinished::Late => crate::budget::Exhausted::Time {
            limit_ms: ms as u64,
            phase: "encoding or solving (Z3 did not stop when asked: its work is abandoned)",
        }
        .to_string(),
        crate::budget::Unfinished::Failed(panic) => {
            format!("the analysis failed internally ({panic})")
        }
    })
}

/// Every model's analysis of `test` answering `unknown` for `why`, timed from `start`.
fn all_unknown(
    test: &ast::Test,
    prog: &Program,
    models: &[Model],
    opts: &Options,
    why: &str,
    start: Instant,
) -> Vec<Analysis> {
    models
        .iter()
        .map(|m| {
            let mut a = blank(test, prog, m, opts);
            a.verdict = Verdict::Unknown(why.to_string());
            a.millis = duration_ms(start.elapsed());
            a
        })
        .collect()
}

/// The SMT engine's analyses of one test under `models`, sharing one encoding.
fn smt_models(test: &ast::Test, prog: &Program, models: &[Model], opts: &Options) -> Vec<Analysis> {
    let start = Instant::now();
    let unknown = |why: String| all_unknown(test, prog, models, opts, &why, start);
    let run = || -> Result<Vec<Analysis>, crate::budget::Exhausted> {
        let enc = smt::Encoding::new(prog, models, &opts.smt_options())?;
        let setup = start.elapsed();
        Ok(models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let start = Instant::now();
                let mut a = blank(test, prog, m, opts);
                verdict::from_smt(&mut a, test, prog, &enc, m, opts);
                // The shared encoding's cost is charged to the first model.
                let spent = start.elapsed() + if i == 0 { setup } else { Duration::ZERO };
                a.millis = duration_ms(spent);
                a
            })
            .collect())
    };
    match smt::contain(opts.max_memory_mib, run) {
        Ok(Ok(analyses)) => analyses,
        Ok(Err(why)) => unknown(why.to_string()),
        // Z3 cancelled by its timeout can hand back a null term, which the z3 crate
        // unwraps: past the deadline that is the time budget, not a failure.
        Err(why) => match opts.timeout_ms {
            Some(ms) if start.elapsed() >= Duration::from_millis(ms as u64) => unknown(
                crate::budget::Exhausted::Time {
                    limit_ms: ms as u64,
                    phase: "encoding (Z3 stopped)",
                }
                .to_string(),
            ),
            _ => unknown(why),
        },
    }
}

/// How reports name an execution model under a memory model: `SSO` under SC (so `expect`
/// lines, which describe SC, apply), `SSO+vulkan` under any other memory model.
pub fn model_label(model: &str, memory: Option<&crate::memory::MemoryModel>) -> String {
    match memory {
        None => model.to_string(),
        Some(mm) => format!("{model}+{}", mm.short_name()),
    }
}

fn blank(test: &ast::Test, prog: &Program, model: &Model, opts: &Options) -> Analysis {
    let observables = prog
        .observables
        .iter()
        .map(|o| prog.observable_name(o))
        .collect();
    blank_observing(test, observables, model, opts)
}

/// The analyses of a test that could not be compiled within its budget: `unknown`, with why.
pub fn unanswered(
    test: &ast::Test,
    models: &[Model],
    opts: &Options,
    why: &crate::budget::Exhausted,
) -> Vec<Analysis> {
    models
        .iter()
        .map(|m| Analysis {
            verdict: Verdict::Unknown(why.to_string()),
            ..blank_observing(test, Vec::new(), m, opts)
        })
        .collect()
}

fn blank_observing(
    test: &ast::Test,
    observables: Vec<String>,
    model: &Model,
    opts: &Options,
) -> Analysis {
    let label = model_label(&model.name, opts.memory.as_deref());
    Analysis {
        test: test.name.clone(),
        file: test.file.clone(),
        engine: opts.engine,
        verdict: Verdict::Unknown(String::new()),
        expected: test.expectation(&label),
        model: label,
        condition: condition_text(test),
        quantifier: test.condition.quantifier,
        condition_holds: None,
        observables,
        outcomes: Vec::new(),
        outcomes_listed: false,
        outcomes_complete: false,
        outcomes_incomplete: None,
        witness: None,
        witness_differs: Vec::new(),
        undefined_behaviour: Vec::new(),
        undefined_behaviour_undecided: Vec::new(),
        undefined_behaviour_complete: false,
        flags_judged: false,
        bound_hit: None,
        runs_cut: false,
        hang: None,
        notes: Vec::new(),
        memory: None,
        states: 0,
        millis: 0.0,
    }
}

fn duration_ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// The condition as written, from the source text.
pub(crate) fn condition_text(test: &ast::Test) -> String {
    if let Some(l) = &test.condition_label {
        return l.clone();
    }
    let sp = test.condition.span;
    test.source
        .get(sp.start as usize..sp.end as usize)
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
