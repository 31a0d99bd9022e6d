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
//! [`differ`] (one program, one ordered pair of models) is shared with
//! `distinguish`.

use super::enumerate::{self, Counts, Grammar, Stmt};
use super::{Options, Verdict};
use crate::engine::explore::{self, ExploreOptions};
use crate::engine::smt::{self, SmtOptions};
use crate::ir::Program;
use crate::model::Model;
use crate::syntax::{self, ast::Operand};
use crate::vocab::{Class, Kind};
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Instant;

pub use super::search::{
    secs, Combination, Difference, Layer, Progress, SearchEngine, SearchError, SearchMethod,
    SearchOptions, Stop, Witness,
};
use super::search::{walk, End, LayerEnd, Strategy, Walk};

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

pub(crate) struct Search {
    pub layers: Vec<Layer>,
    pub witness: Option<Witness>,
    /// Why the search ended.
    pub stop: Stop,
}

/// Looks for a program with an outcome `weak` allows and `strong` forbids, smallest first
/// ([`walk`] over the layers), deciding each layer by enumeration or by CEGIS. A program found
/// is confirmed by the engines and re-checked from its emitted text before it is returned.
pub(crate) fn search(
    strong: &Combination,
    weak: &Combination,
    opts: &SearchOptions,
    origin: &str,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Search, SearchError> {
    let (layers, end) = match opts.method {
        SearchMethod::Enumerate => walk(opts, &mut Enumerated::new(strong, weak, opts), progress)?,
        SearchMethod::Cegis if strong.memory.is_some() || weak.memory.is_some() => {
            return Err(SearchError::Option(
                "CEGIS searches under SC memory only: use --method enumerate with a memory model"
                    .into(),
            ))
        }
        SearchMethod::Cegis => walk(
            opts,
            &mut super::cegis::Cegis::new(&strong.model, &weak.model, opts),
            progress,
        )?,
    };
    let (witness, timed_out) = match end {
        End::Found {
            grammar,
            program,
            difference,
        } => {
            let threads = grammar.threads;
            let d = match difference {
                Some(d) => d,
                None => differ(&program, threads, strong, weak, opts)
                    .map_err(SearchError::Recheck)?
                    .ok_or_else(|| {
                        SearchError::Recheck(format!(
                            "a strategy found a program the engines do not confirm:\n{}",
                            enumerate::render(&program, threads).body
                        ))
                    })?,
            };
            let notes = smallest_notes(threads, opts, &grammar);
            let w = witness(&program, threads, strong, weak, &d, origin, notes)?;
            (Some(w), false)
        }
        End::TimeLimit => (None, true),
        End::Exhausted => (None, false),
    };
    let stop = Stop::of(witness.is_some(), timed_out, &layers);
    Ok(Search {
        layers,
        witness,
        stop,
    })
}

/// Enumeration: every program of the layer, one per symmetry orbit, decided by comparing
/// both models' outcome sets.
struct Enumerated<'m> {
    strong: &'m Combination,
    weak: &'m Combination,
    opts: &'m SearchOptions,
    /// The instruction kinds whose class differs: a program without one is skipped. `None`
    /// when the memory models differ: then any program may tell them apart.
    differing: Option<Vec<Kind>>,
}

impl<'m> Enumerated<'m> {
    fn new(strong: &'m Combination, weak: &'m Combination, opts: &'m SearchOptions) -> Self {
        let differing = strong.same_memory(weak).then(|| {
            Kind::MODELLED
                .into_iter()
                .filter(|k| strong.model.class(*k) != weak.model.class(*k))
                .collect()
        });
        Enumerated {
            strong,
            weak,
            opts,
            differing,
        }
    }
}

impl Strategy for Enumerated<'_> {
    fn layer(
        &mut self,
        g: &Grammar,
        size: usize,
        walk: &mut Walk,
        layer: &mut Layer,
    ) -> Result<LayerEnd, SearchError> {
        let threads = g.threads;
        let mut end = LayerEnd::Exhausted;
        let mut failure: Option<String> = None;
        let counts: Counts = enumerate::for_each(g, size, &mut |p| {
            if walk.expired() {
                end = LayerEnd::TimeLimit;
                return false;
            }
            if let Some(d) = &self.differing {
                if !d.is_empty() && !relevant(p, d) {
                    walk.irrelevant += 1;
                    return true;
                }
            }
            layer.checked += 1;
            walk.checked += 1;
            walk.report_throttled(threads, size);
            if self.differing.as_ref().is_some_and(Vec::is_empty) {
                return true;
            }
            match differ(p, threads, self.strong, self.weak, self.opts) {
                Ok(None) => true,
                Ok(Some(d)) => {
                    end = LayerEnd::Found(p.to_vec(), Some(d));
                    false
                }
                Err(why) => {
                    layer.unknown += 1;
                    if failure.is_none() {
                        failure = Some(format!(
                            "{why}; first such program:\n{}",
                            enumerate::render(p, threads).body
                        ));
                    }
                    true
                }
            }
        });
        layer.raw = counts.raw;
        layer.canonical = counts.canonical;
        if let Some(why) = failure {
            tracing::warn!(threads, size, unknown = layer.unknown, %why, "undecided programs");
        }
        Ok(end)
    }
}

/// The comments of an emitted test that say in what sense it is smallest.
fn smallest_notes(threads: u32, opts: &SearchOptions, g: &Grammar) -> Vec<String> {
    let smallest = if threads > 2 {
        format!(
            "Smallest: no program of the grammar with fewer lanes (up to {} instructions), or with {threads} lanes and fewer instructions, has such an outcome.",
            opts.max_size
        )
    } else {
        "Smallest: no program of the grammar with fewer instructions has such an outcome."
            .to_string()
    };
    let mut notes = vec![
        smallest,
        format!("Grammar (docs/inclusion.md): {}.", g.describe()),
    ];
    if opts.method == SearchMethod::Cegis {
        notes.push("Searched by CEGIS over program templates.".into());
    }
    notes
}

/// Does the program contain an instruction of a kind whose class differs? Labels and branches
/// are in every program.
fn relevant(p: &[Stmt], differing: &[Kind]) -> bool {
    fn has(p: &[Stmt], k: Kind) -> bool {
        p.iter().any(|s| match s {
            Stmt::Store(..) | Stmt::Load(_) => k == Kind::Memory,
            Stmt::SgOp(_) => k == Kind::Sgop,
            Stmt::Barrier => k == Kind::Barrier,
            Stmt::If(a, b) => has(a, k) || has(b, k),
        })
    }
    differing
        .iter()
        .any(|k| matches!(k, Kind::Label | Kind::Branch) || has(p, *k))
}

/// Compiles a program of the grammar observing every register and cell.
fn compile_program(p: &[Stmt], threads: u32) -> Result<(syntax::ast::Test, Program), String> {
    let r = enumerate::render(p, threads);
    let text = r.litmus(&[], "enumerated", "", "true", None);
    let test = syntax::parse("enumerated.litmus", text.as_bytes()).map_err(|d| {
        format!("an enumerated program does not parse (enumerator bug):\n{d}\n{text}")
    })?;
    let extra: Vec<Operand> = r.observables(threads);
    let prog = super::compile_observing(&test, 1, &extra).map_err(|e| e.to_string())?;
    Ok((test, prog))
}

/// Is there an outcome of `p` that `weak` allows and `strong` forbids? `Err` when an engine
/// could not decide.
pub fn differ(
    p: &[Stmt],
    threads: u32,
    strong: &Combination,
    weak: &Combination,
    opts: &SearchOptions,
) -> Result<Option<Difference>, String> {
    let (_, prog) = compile_program(p, threads)?;
    let names: Vec<String> = prog
        .observables
        .iter()
        .map(|o| prog.observable_name(o))
        .collect();
    let symbolic = |c: &Combination| c.model.class(Kind::Sgop) == Class::Symbolic;
    let smt_opts = |c: &Combination| SmtOptions {
        timeout_ms: None,
        max_outcomes: opts.max_outcomes,
        memory: c.memory.clone(),
        ..SmtOptions::default()
    };
    let complete = |o: smt::SmtOutcomes, c: &Combination| match o.incomplete {
        Some(why) => Err(format!("{}: outcomes {why}", c.name())),
        None => Ok(o.outcomes),
    };
    let explorable = |c: &Combination| opts.engine == SearchEngine::Auto && !symbolic(c);
    let encode = |c: &Combination| {
        smt::Encoding::new(&prog, std::slice::from_ref(&c.model), &smt_opts(c))
            .map_err(|e| e.to_string())
    };
    let (strong_set, extra) = match (explorable(strong), explorable(weak)) {
        (true, true) => {
            let s = explore_set(&prog, strong, opts)?;
            let w = explore_set(&prog, weak, opts)?;
            let extra = w.iter().find(|o| !s.contains(*o)).cloned();
            (s, extra)
        }
        (true, false) => {
            // The strong set by the explorer, then one solver call for the weak model.
            let s = explore_set(&prog, strong, opts)?;
            let enc = encode(weak)?;
            let sv: Vec<Vec<u32>> = s.iter().cloned().collect();
            let w = enc.outcomes_except(&weak.model, &sv, 1);
            if let (Some(why), true) = (&w.incomplete, w.outcomes.is_empty()) {
                return Err(format!("{}: {why}", weak.name()));
            }
            (s, w.outcomes.into_iter().next())
        }
        (false, true) => {
            // The weak set by the explorer, then one solver call per weak outcome; the
            // strong set is enumerated only when a difference is found.
            let w = explore_set(&prog, weak, opts)?;
            let enc = encode(strong)?;
            let mut extra = None;
            for o in &w {
                match enc.reaches(&strong.model, o) {
                    smt::Answer::Yes(_) => {}
                    smt::Answer::No => {
                        extra = Some(o.clone());
                        break;
                    }
                    smt::Answer::Unknown(why) => return Err(format!("{}: {why}", strong.name())),
                }
            }
            match extra {
                None => (BTreeSet::new(), None),
                Some(o) => {
                    let s = complete(enc.outcomes(&strong.model, opts.max_outcomes), strong)?;
                    (s.into_iter().collect(), Some(o))
                }
            }
        }
        (false, false) => {
            // One encoding answers both models when they share the memory model.
            let both = [strong.model.clone(), weak.model.clone()];
            let shared;
            let (es, ew) = if strong.same_memory(weak) {
                shared = smt::Encoding::new(&prog, &both, &smt_opts(strong))
                    .map_err(|e| e.to_string())?;
                (&shared, &shared)
            } else {
                (&encode(strong)?, &encode(weak)?)
            };
            let s = complete(es.outcomes(&strong.model, opts.max_outcomes), strong)?;
            let w = ew.outcomes_except(&weak.model, &s, 1);
            if let (Some(why), true) = (&w.incomplete, w.outcomes.is_empty()) {
                return Err(format!("{}: {why}", weak.name()));
            }
            (s.into_iter().collect(), w.outcomes.into_iter().next())
        }
    };
    // A difference on a program the memory model flags (a data race: undefined behaviour)
    // is no test: the program counts as undecided (docs/memory-models.md).
    if extra.is_some() {
        for c in [strong, weak].into_iter().filter(|c| c.memory.is_some()) {
            for (flag, answer) in encode(c)?.flags(&c.model) {
                match answer {
                    smt::Answer::No => {}
                    smt::Answer::Yes(_) => {
                        return Err(format!(
                            "{}: the memory model flags {flag} (undefined behaviour), so the difference is no test",
                            c.name()
                        ))
                    }
                    smt::Answer::Unknown(why) => {
                        return Err(format!("{}: flag {flag} undecided: {why}", c.name()))
                    }
                }
            }
        }
    }
    Ok(extra.map(|outcome| Difference {
        observables: names,
        outcome,
        strong: strong_set,
    }))
}

fn explore_set(
    prog: &Program,
    c: &Combination,
    opts: &SearchOptions,
) -> Result<BTreeSet<Vec<u32>>, String> {
    let ex = explore::explore(
        prog,
        &c.model,
        &ExploreOptions {
            max_states: opts.max_states,
            budget: crate::budget::Budget::default(),
            memory: c.memory.clone(),
            liveness: false,
        },
    )
    .map_err(|e| e.to_string())?;
    if ex.limit_hit {
        let why = ex
            .stopped
            .as_deref()
            .unwrap_or("the state limit was reached");
        return Err(format!("{}: {why}", c.name()));
    }
    if let Some((k, _)) = ex.ub.iter().next() {
        return Err(format!(
            "{}: undefined behaviour ({})",
            c.name(),
            k.describe()
        ));
    }
    if ex.cut.is_some() {
        return Err(format!(
            "{}: an execution was cut by the loop bound",
            c.name()
        ));
    }
    // `ex.stuck` is not an error here: a state stuck after a speculation that can no longer
    // be confirmed is a failed speculation (no outcome), and a stuck state yields no outcome
    // either way, so the outcome set is complete.
    Ok(ex.outcomes.into_keys().collect())
}

/// The fewest observations (equalities) that hold in `outcome` and in no outcome of
/// `strong`; among equally few, the earliest in observable order (registers first).
pub fn separating(outcome: &[u32], strong: &BTreeSet<Vec<u32>>) -> Vec<usize> {
    let n = outcome.len();
    let separates = |idx: &[usize]| {
        strong
            .iter()
            .all(|s| idx.iter().any(|&i| s[i] != outcome[i]))
    };
    // Combinations of k indices in lexicographic order, k increasing.
    fn first(
        n: usize,
        k: usize,
        from: usize,
        cur: &mut Vec<usize>,
        ok: &dyn Fn(&[usize]) -> bool,
    ) -> bool {
        if cur.len() == k {
            return ok(cur);
        }
        for i in from..n {
            cur.push(i);
            if first(n, k, i + 1, cur, ok) {
                return true;
            }
            cur.pop();
        }
        false
    }
    for k in 0..=n {
        let mut cur = Vec::new();
        if first(n, k, 0, &mut cur, &separates) {
            return cur;
        }
    }
    (0..n).collect()
}

/// Builds, re-parses and re-checks the `.litmus` file for a found difference.
pub(crate) fn witness(
    p: &[Stmt],
    threads: u32,
    strong: &Combination,
    weak: &Combination,
    d: &Difference,
    origin: &str,
    notes: Vec<String>,
) -> Result<Witness, SearchError> {
    let r = enumerate::render(p, threads);
    let idx = separating(&d.outcome, &d.strong);
    let condition = idx
        .iter()
        .map(|&i| format!("{} == {}", d.observables[i], d.outcome[i]))
        .collect::<Vec<_>>()
        .join(" && ");
    let condition = if condition.is_empty() {
        "true".to_string()
    } else {
        condition
    };
    let (sn, wn) = (strong.name(), weak.name());
    let name = format!("distinguish_{}_{}", ident(&sn), ident(&wn));
    let description = format!("{wn} allows, {sn} forbids");
    let size = enumerate::size(p);
    let mut comments = vec![
        format!(
            "{wn} allows and {sn} forbids this outcome ({threads} lanes, {size} instructions)."
        ),
        format!("Found by: {origin}"),
    ];
    comments.extend(notes);
    // Verdicts by re-analysing the emitted text (without the expect line first): the
    // built-in models under SC (the `expect` line), then the two sides, each under its own
    // memory model.
    let draft = r.litmus(&comments, &name, &description, &condition, None);
    let test = syntax::parse(&format!("{name}.litmus"), draft.as_bytes()).map_err(|e| {
        SearchError::Recheck(format!("the emitted test does not parse:\n{e}\n{draft}"))
    })?;
    let mut combos: Vec<Combination> = Model::builtin().into_iter().map(Combination::sc).collect();
    for c in [strong, weak] {
        if !combos.contains(c) {
            combos.push(c.clone());
        }
    }
    let prog = super::compile(&test, 1).map_err(|e| SearchError::Recheck(e.to_string()))?;
    let base = Options::default().with_unroll(1).with_outcomes(false);
    let analyses = super::search::analyse_combinations(&test, &prog, &combos, &base);
    let mut verdicts = Vec::new();
    let mut expect = Vec::new();
    let mut custom = Vec::new();
    for (c, a) in combos.iter().zip(&analyses) {
        if let Verdict::Unknown(why) = &a.verdict {
            return Err(SearchError::Recheck(format!(
                "the emitted test is undecided under {}: {why}",
                c.name()
            )));
        }
        verdicts.push((c.name(), a.verdict.short().to_string()));
        let entry = format!("{} {}", c.name(), a.verdict.short());
        if c.memory.is_none() && Model::by_name(&c.model.name).as_ref() == Some(&c.model) {
            expect.push(entry);
        } else {
            custom.push(entry);
        }
    }
    let verdict_of = |c: &Combination| {
        combos
            .iter()
            .position(|x| x == c)
            .map(|i| analyses[i].verdict.clone())
    };
    if verdict_of(weak) != Some(Verdict::Allowed) || verdict_of(strong) != Some(Verdict::Forbidden)
    {
        return Err(SearchError::Recheck(format!(
            "the emitted test does not re-check: {wn} {:?}, {sn} {:?} (expected allowed, forbidden); the engines disagree on:\n{draft}",
            verdict_of(weak),
            verdict_of(strong)
        )));
    }
    if !custom.is_empty() {
        comments.push(format!(
            "Model files and memory models: {}.",
            custom.join(", ")
        ));
    }
    let text = r.litmus(
        &comments,
        &name,
        &description,
        &condition,
        Some(&expect.join(", ")),
    );
    syntax::parse(&format!("{name}.litmus"), text.as_bytes())
        .map_err(|e| SearchError::Recheck(format!("the emitted test does not parse:\n{e}")))?;
    Ok(Witness {
        threads,
        size,
        litmus: text,
        condition,
        outcome: d
            .observables
            .iter()
            .cloned()
            .zip(d.outcome.iter().copied())
            .collect(),
        verdicts,
        program: p.to_vec(),
    })
}

/// A model name as part of a test name.
fn ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separating_picks_fewest_observations() {
        let strong: BTreeSet<Vec<u32>> = [vec![0, 0, 1], vec![1, 0, 0]].into_iter().collect();
        assert_eq!(separating(&[1, 1, 0], &strong), vec![1]);
        assert_eq!(separating(&[1, 0, 1], &strong), vec![0, 2]);
        assert_eq!(
            separating(&[0, 0, 0], &BTreeSet::new()),
            Vec::<usize>::new()
        );
    }
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
