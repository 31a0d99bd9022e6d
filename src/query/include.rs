//! Bounded model inclusion: is every behaviour of model A a behaviour of model B, for every
//! program of the enumerated grammar ([`super::enumerate`]) up to a number of lanes and a size?
//!
//! For each program both models' complete outcome sets over every register and memory cell
//! are computed and compared; there is no condition to enumerate. A counterexample is a
//! program and one outcome A allows and B forbids, emitted as a `.litmus` file whose `exists`
//! clause is a smallest conjunction of observations that no outcome of B satisfies, with an
//! `expect` line for the built-in models. The emitted text is parsed and re-analysed before
//! it is returned, so a counterexample is never only the enumerator's word.
//!
//! The search itself (walk, strategies, confirmation, emission) is [`super::search`], which
//! `distinguish` asks too.

use serde::Serialize;
use std::time::Instant;

use super::search::search;
pub use super::search::{
    secs, Combination, Difference, Layer, Progress, SearchEngine, SearchError, SearchMethod,
    SearchOptions, Stop, Witness,
};

/// Result of a bounded inclusion check.
#[derive(Clone, Debug, Serialize)]
pub struct Bounded {
    pub a: String,
    pub b: String,
    pub grammar: String,
    pub max_threads: u32,
    pub max_size: usize,
    pub layers: Vec<Layer>,
    /// An outcome A allows and B forbids, if one was found (the search stops there).
    pub counterexample: Option<Witness>,
    /// No counterexample and no undecided program: A ⊆ B up to the bound.
    pub holds: bool,
    /// The time limit cut the search (then `holds` is false).
    pub timed_out: bool,
    /// Why the search ended (found, exhausted, undecided programs, time limit).
    #[serde(flatten)]
    pub stop: Stop,
    pub seconds: f64,
}

/// Is every outcome of `a` an outcome of `b`, for every program of the grammar with 2 to
/// `opts.grammar.threads` lanes and 1 to `opts.max_size` instructions?
pub fn bounded(
    a: &Combination,
    b: &Combination,
    opts: &SearchOptions,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Bounded, SearchError> {
    let start = Instant::now();
    let search = search(
        b,
        a,
        opts,
        &format!("tangle include {} {}", a.name(), b.name()),
        progress,
    )?;
    let holds = search.stop == Stop::Exhausted;
    Ok(Bounded {
        a: a.name(),
        b: b.name(),
        grammar: opts.grammar.describe(),
        max_threads: opts.grammar.threads,
        max_size: opts.max_size,
        layers: search.layers,
        counterexample: search.witness,
        holds,
        timed_out: search.stop == Stop::TimeLimit,
        stop: search.stop,
        seconds: secs(start.elapsed()),
    })
}

/// The per-rule proof of "A ⊆ B" ([`super::include_proof`]), when it applies: it is about
/// schedules under SC, and a memory model may read the schedule (`sstep`, `sched`), so under
/// one (`None`) only the bounded search answers.
pub fn rule_proof(
    a: &Combination,
    b: &Combination,
) -> Option<super::include_proof::UnboundedProof> {
    (a.memory.is_none() && b.memory.is_none())
        .then(|| super::include_proof::unbounded(&a.model, &b.model))
}

/// One ordered pair of models of a lattice: what is known of "A ⊆ B".
#[derive(Clone, Debug, Serialize)]
pub struct Inclusion {
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub verdict: InclusionVerdict,
}

/// What is known of "A ⊆ B".
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum InclusionVerdict {
    /// Per-rule proof, for programs of any size.
    Proven,
    /// A counterexample of this many lanes and instructions.
    Refuted { threads: u32, size: usize },
    /// Neither, with why (no counterexample within the bound, or an undecided search).
    Open { why: String, undecided: bool },
}

/// Every ordered pair of `models`: the per-rule proof, else the bounded search for a
/// counterexample. `progress` hears which pair is being decided.
pub fn lattice(
    models: &[Combination],
    opts: &SearchOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Inclusion>, SearchError> {
    let mut pairs = Vec::new();
    for a in models {
        for b in models {
            if a == b {
                continue;
            }
            progress(&format!("{} ⊆ {}?", a.name(), b.name()));
            let verdict = if rule_proof(a, b).is_some_and(|p| p.all_proven) {
                InclusionVerdict::Proven
            } else {
                let r = bounded(a, b, opts, &mut |_| {})?;
                match (&r.counterexample, &r.stop) {
                    (Some(w), _) => InclusionVerdict::Refuted {
                        threads: w.threads,
                        size: w.size,
                    },
                    (None, Stop::Exhausted) => InclusionVerdict::Open {
                        why: format!(
                            "no counterexample up to {} lanes, {} instr.",
                            r.max_threads, r.max_size
                        ),
                        undecided: false,
                    },
                    (None, stop) => InclusionVerdict::Open {
                        why: format!("undecided: {stop}"),
                        undecided: true,
                    },
                }
            };
            pairs.push(Inclusion {
                a: a.name(),
                b: b.name(),
                verdict,
            });
        }
    }
    Ok(pairs)
}
