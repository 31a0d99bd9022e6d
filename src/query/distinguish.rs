//! The smallest program that tells two models apart: an outcome model B allows and model A
//! forbids, found by iterative deepening over (lanes, then instructions) through the
//! enumerated grammar (`enumerate`), so the first program found is a smallest one of
//! the grammar: no program with fewer lanes, and none with as many lanes and fewer
//! instructions, distinguishes the models.

use super::search::{
    secs, Combination, Layer, Progress, SearchError, SearchOptions, Stop, Witness,
};
use serde::Serialize;
use std::time::Instant;

/// The result of a search.
#[derive(Clone, Debug, Serialize)]
pub struct Distinction {
    /// The model that forbids the outcome.
    pub a: String,
    /// The model that allows it.
    pub b: String,
    pub grammar: String,
    pub max_threads: u32,
    pub max_size: usize,
    /// The layers searched, in order (the last one holds the witness, if any).
    pub layers: Vec<Layer>,
    /// The smallest distinguishing program, if there is one within the bounds.
    pub witness: Option<Witness>,
    /// The time limit cut the search before it found a program or searched every layer.
    pub timed_out: bool,
    /// Why the search ended (found, exhausted, undecided programs, time limit).
    #[serde(flatten)]
    pub stop: Stop,
    pub seconds: f64,
}

/// Searches for a smallest program with an outcome `b` allows and `a` forbids.
pub fn distinguish(
    a: &Combination,
    b: &Combination,
    opts: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Distinction, SearchError> {
    let start = Instant::now();
    let s = super::search::search(
        a,
        b,
        opts,
        &format!("tangle distinguish {} {}", a.name(), b.name()),
        progress,
    )?;
    Ok(Distinction {
        a: a.name(),
        b: b.name(),
        grammar: opts.grammar.describe(),
        max_threads: opts.grammar.threads,
        max_size: opts.max_size,
        layers: s.layers,
        witness: s.witness,
        timed_out: s.stop == Stop::TimeLimit,
        stop: s.stop,
        seconds: secs(start.elapsed()),
    })
}
