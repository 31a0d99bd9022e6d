//! The vocabulary of program searches (`include`, `distinguish`, CEGIS): what is searched,
//! how far, what a layer of the walk found, and why a search stopped. The walks themselves
//! live with their strategies (`include` enumerates, `cegis` synthesises); both report in
//! these types, so neither depends on the other for them.

use crate::memory::MemoryModel;
use crate::model::Model;
use crate::query::enumerate::{Grammar, Stmt};
use serde::Serialize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One side of a search: an execution model with the memory model it is judged under
/// (`None`: the built-in SC). Reports name it `MODEL+MEMORY` (`SSO+vulkan`), or `MODEL` under SC.
#[derive(Clone, Debug)]
pub struct Combination {
    pub model: Model,
    pub memory: Option<Arc<MemoryModel>>,
}

impl Combination {
    /// The execution model under sequentially consistent memory.
    pub fn sc(model: Model) -> Self {
        Combination {
            model,
            memory: None,
        }
    }

    pub fn name(&self) -> String {
        crate::query::model_label(&self.model.name, self.memory.as_deref())
    }

    /// Are both judged under the same memory model (then only the execution models differ)?
    pub fn same_memory(&self, other: &Combination) -> bool {
        match (&self.memory, &other.memory) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a.name == b.name,
            _ => false,
        }
    }

    /// Analysis options carrying this side's memory model.
    pub fn options(&self, opts: &super::Options) -> super::Options {
        let mut o = opts.clone();
        o.memory = self.memory.clone();
        o
    }
}

/// Each side analysed under its own memory model, in order; sides that share a memory model
/// share one [`super::analyse_models`] call (one Z3 encoding for all of them).
pub fn analyse_combinations(
    test: &crate::syntax::ast::Test,
    prog: &crate::ir::Program,
    sides: &[Combination],
    opts: &super::Options,
) -> Vec<crate::query::Analysis> {
    let mut out = Vec::with_capacity(sides.len());
    for group in sides.chunk_by(|a, b| a.same_memory(b)) {
        let models: Vec<Model> = group.iter().map(|c| c.model.clone()).collect();
        out.extend(crate::query::analyse_models(
            test,
            prog,
            &models,
            &group[0].options(opts),
        ));
    }
    out
}

impl PartialEq for Combination {
    fn eq(&self, other: &Self) -> bool {
        self.model == other.model && self.same_memory(other)
    }
}

/// Which engine computes the outcome sets during a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchEngine {
    /// The explorer when neither model is symbolic, Z3 otherwise.
    Auto,
    /// Z3 for everything (one encoding answers both models).
    Smt,
}

/// How a search looks for a distinguishing program in each layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMethod {
    /// Every program, one per symmetry orbit, each decided on its own.
    Enumerate,
    /// Per control-flow shape, one template decided by CEGIS.
    Cegis,
}

/// Options for bounded inclusion and for the search of distinguishing programs.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// The program space; its `threads` is the largest number of lanes tried (from 2 up).
    pub grammar: Grammar,
    /// Largest program size (instructions) tried.
    pub max_size: usize,
    pub engine: SearchEngine,
    /// Most outcomes enumerated per model and program (beyond it the program is unknown).
    pub max_outcomes: usize,
    /// Explorer state budget per program.
    pub max_states: usize,
    pub method: SearchMethod,
    /// Give up (an undecided result, never "none") after this long.
    pub time_limit: Option<Duration>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            grammar: Grammar::default(),
            max_size: 4,
            engine: SearchEngine::Auto,
            max_outcomes: 4096,
            max_states: 1_000_000,
            method: SearchMethod::Enumerate,
            time_limit: None,
        }
    }
}

/// Where a search stands, for progress displays.
#[derive(Clone, Debug, Serialize)]
pub struct Progress {
    pub threads: u32,
    pub size: usize,
    /// Programs whose outcome sets were compared, over the whole search.
    pub checked: u64,
    /// Canonical programs skipped because they contain no instruction whose class differs
    /// between the two models.
    pub irrelevant: u64,
    pub seconds: f64,
    /// CEGIS only: synthesis rounds so far (`checked` then counts templates).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u64>,
}

/// The programs of one (lanes, size) layer.
#[derive(Clone, Debug, Serialize)]
pub struct Layer {
    pub threads: u32,
    pub size: usize,
    /// Programs in the grammar.
    pub raw: u64,
    /// Kept by the symmetry reduction.
    pub canonical: u64,
    /// Compared with an engine (canonical minus those both models treat alike).
    pub checked: u64,
    /// Programs (CEGIS: templates) the engines could not decide.
    pub unknown: u64,
    pub seconds: f64,
    /// CEGIS only: templates (control-flow shapes) of this size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub templates: Option<u64>,
    /// CEGIS only: synthesis rounds (candidate programs proposed) over the layer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u64>,
}

impl Layer {
    pub(crate) fn new(threads: u32, size: usize) -> Layer {
        Layer {
            threads,
            size,
            raw: 0,
            canonical: 0,
            checked: 0,
            unknown: 0,
            seconds: 0.0,
            templates: None,
            rounds: None,
        }
    }
}

/// A program with an outcome one model allows and the other forbids.
#[derive(Clone, Debug, Serialize)]
pub struct Witness {
    pub threads: u32,
    pub size: usize,
    /// The complete `.litmus` file.
    pub litmus: String,
    /// The `exists` proposition.
    pub condition: String,
    /// The distinguishing outcome over every observable.
    pub outcome: Vec<(String, u32)>,
    /// Verdicts of the emitted test under the built-in models (and the two compared), by
    /// re-analysis of the emitted text.
    pub verdicts: Vec<(String, String)>,
    #[serde(skip)]
    pub program: Vec<Stmt>,
}

/// The error that stops a search (a found witness failed its re-check, or a bad option).
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{0}")]
    Option(String),
    #[error("internal inconsistency: {0}")]
    Recheck(String),
}

/// An outcome the weak model allows and the strong model forbids, with the strong model's
/// complete outcome set (to choose a condition that excludes all of it).
#[derive(Clone, Debug)]
pub struct Difference {
    pub observables: Vec<String>,
    pub outcome: Vec<u32>,
    pub strong: std::collections::BTreeSet<Vec<u32>>,
}

/// Why a search ended without an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "stop")]
pub enum Stop {
    /// A distinguishing program was found.
    Found,
    /// Every program up to the bound was decided and none distinguishes.
    Exhausted,
    /// Every program was tried, but some could not be decided (their count).
    Undecided { unknown: u64 },
    /// The time limit cut the search.
    TimeLimit,
}

impl Stop {
    /// The typed stop reason of a finished walk.
    pub fn of(found: bool, timed_out: bool, layers: &[Layer]) -> Stop {
        let unknown: u64 = layers.iter().map(|l| l.unknown).sum();
        if found {
            Stop::Found
        } else if timed_out {
            Stop::TimeLimit
        } else if unknown > 0 {
            Stop::Undecided { unknown }
        } else {
            Stop::Exhausted
        }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Found => f.write_str("a distinguishing program was found"),
            Stop::Exhausted => f.write_str("every program up to the bound was decided"),
            Stop::Undecided { unknown } => {
                write!(f, "{unknown} programs could not be decided")
            }
            Stop::TimeLimit => f.write_str("the time limit cut the search"),
        }
    }
}

/// Seconds, rounded to the millisecond (reports).
pub fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

/// How one layer of a walk ended.
pub(crate) enum LayerEnd {
    /// Every program of the layer decided (some perhaps unknown), none distinguishing.
    Exhausted,
    /// The time limit cut the layer.
    TimeLimit,
    /// A distinguishing program, with what the strategy already knows of its difference.
    Found(Vec<Stmt>, Option<Difference>),
}

/// The clock, deadline and running totals of a walk, shared by its strategies, and the one
/// place that reports progress.
pub(crate) struct Walk<'p> {
    start: Instant,
    pub deadline: Option<Instant>,
    /// Programs (CEGIS: templates) decided so far.
    pub checked: u64,
    /// Programs skipped as irrelevant to the two models.
    pub irrelevant: u64,
    /// CEGIS rounds so far (`None` for enumeration).
    pub rounds: Option<u64>,
    last_report: Instant,
    progress: &'p mut dyn FnMut(&Progress),
}

impl Walk<'_> {
    /// Has the time limit passed?
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    /// What is left of the time limit, as a solver timeout.
    pub fn millis_left(&self) -> Option<u32> {
        self.deadline.map(|d| {
            let left = d.saturating_duration_since(Instant::now()).as_millis();
            left.clamp(1, u32::MAX as u128) as u32
        })
    }

    /// Reports where the walk stands.
    pub fn report(&mut self, threads: u32, size: usize) {
        self.last_report = Instant::now();
        (self.progress)(&Progress {
            threads,
            size,
            checked: self.checked,
            irrelevant: self.irrelevant,
            seconds: secs(self.start.elapsed()),
            rounds: self.rounds,
        });
    }

    /// Reports at most four times a second.
    pub fn report_throttled(&mut self, threads: u32, size: usize) {
        if self.last_report.elapsed() > Duration::from_millis(250) {
            self.report(threads, size);
        }
    }
}

/// A way of deciding the programs of one layer: enumeration, or CEGIS over templates.
pub(crate) trait Strategy {
    /// Decides the programs of one layer; a found program comes with its difference when
    /// the strategy computed it (the enumerator does, CEGIS does not).
    fn layer(
        &mut self,
        g: &Grammar,
        size: usize,
        walk: &mut Walk,
        layer: &mut Layer,
    ) -> Result<LayerEnd, SearchError>;
}

/// Where a walk ended.
pub(crate) enum End {
    Found {
        grammar: Box<Grammar>,
        program: Vec<Stmt>,
        difference: Option<Difference>,
    },
    TimeLimit,
    Exhausted,
}

/// Walks the layers in (lanes, size) order, 2 lanes up to `opts.grammar.threads` and 1 to
/// `opts.max_size` instructions, until the strategy finds a program or time runs out. This
/// order is what makes the first program found a smallest one.
pub(crate) fn walk(
    opts: &SearchOptions,
    strategy: &mut dyn Strategy,
    progress: &mut dyn FnMut(&Progress),
) -> Result<(Vec<Layer>, End), SearchError> {
    if opts.grammar.threads < 2 {
        return Err(SearchError::Option(
            "the search needs at least 2 lanes".into(),
        ));
    }
    let start = Instant::now();
    let mut walk = Walk {
        start,
        deadline: opts.time_limit.and_then(|d| start.checked_add(d)),
        checked: 0,
        irrelevant: 0,
        rounds: (opts.method == SearchMethod::Cegis).then_some(0),
        last_report: start,
        progress,
    };
    let mut layers = Vec::new();
    for threads in 2..=opts.grammar.threads {
        let g = opts.grammar.clone().with_threads(threads);
        for size in 1..=opts.max_size {
            let layer_start = Instant::now();
            let mut layer = Layer::new(threads, size);
            walk.report(threads, size);
            let end = strategy.layer(&g, size, &mut walk, &mut layer)?;
            layer.seconds = secs(layer_start.elapsed());
            layers.push(layer);
            match end {
                LayerEnd::Exhausted => {}
                LayerEnd::TimeLimit => return Ok((layers, End::TimeLimit)),
                LayerEnd::Found(program, difference) => {
                    return Ok((
                        layers,
                        End::Found {
                            grammar: Box::new(g),
                            program,
                            difference,
                        },
                    ))
                }
            }
        }
    }
    walk.report(opts.grammar.threads, opts.max_size);
    Ok((layers, End::Exhausted))
}
