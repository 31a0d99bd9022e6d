//! The vocabulary of program searches (`include`, `distinguish`, CEGIS): what is searched,
//! how far, what a layer of the walk found, and why a search stopped. The walks themselves
//! live with their strategies (`include` enumerates, `cegis` synthesises); both report in
//! these types, so neither depends on the other for them.

use super::enumerate::{Grammar, Stmt};
use serde::Serialize;
use std::time::Duration;

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
    /// Per control-flow shape, one template decided by CEGIS ([`super::cegis`]).
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

    pub(crate) fn cegis(threads: u32, size: usize, templates: u64) -> Layer {
        Layer {
            templates: Some(templates),
            rounds: Some(0),
            ..Layer::new(threads, size)
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

/// Seconds, rounded to the millisecond (reports).
pub fn secs(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}
