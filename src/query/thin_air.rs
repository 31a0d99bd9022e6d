//! Thin air (docs/semantics.md §7): outcomes a symbolic model allows and its well-founded
//! counterpart forbids, each with the cycle of dependencies that justifies it.
//!
//! The thin-air outcomes are the symbolic model's outcomes minus the well-founded model's: the
//! well-founded outcomes are enumerated first and then blocked while the symbolic ones are
//! enumerated. For each, a witness execution under the symbolic model is searched for a
//! dependency cycle through a subgroup op: register def-use, reads-from (the witness is in SC
//! order, so a load reads the last store to its cell), the arguments of every participant, and
//! the branches that decide who participates.

use super::{compile_for, render_trace, Options, QueryError, TraceStep};
use crate::engine::smt::{Answer, Encoding};
use crate::engine::trace::{At, Effect, Step};
use crate::ir::Term;
use crate::ir::{Program, Target};
use crate::model::Model;
use crate::syntax::ast;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// One thin-air outcome.
#[derive(Clone, Debug, Serialize)]
pub struct ThinAirOutcome {
    pub values: Vec<u32>,
    /// Does it satisfy the condition's proposition?
    pub satisfies: bool,
    /// Does the speculative model also allow it (self-justifying speculation rather than value
    /// thin air)? `None` when the solver could not tell.
    pub speculative_allows: Option<bool>,
    /// The justification cycle, one entry per step, in words.
    pub cycle: Vec<String>,
    pub witness: Vec<TraceStep>,
}

/// The thin-air report of one test.
#[derive(Clone, Debug, Serialize)]
pub struct ThinAirReport {
    pub test: String,
    pub file: String,
    pub symbolic: String,
    pub well_founded: String,
    pub speculative: String,
    /// The engine of the well-founded and speculative outcome sets (`smt` or `explore`; the
    /// symbolic set is always Z3's).
    pub engine: super::Engine,
    pub observables: Vec<String>,
    pub condition: String,
    /// Is the condition's P outcome reachable only through thin air?
    pub condition_thin_air: Option<bool>,
    pub thin_air: Vec<ThinAirOutcome>,
    /// Why the list may be incomplete (enumeration limits, solver, bounds), if it may be.
    pub incomplete: Option<String>,
}

/// The three models the question is about: a symbolic one, its well-founded counterpart, and a
/// speculative one to compare with (by default Symb, Lazy and Spec).
pub struct ThinAirModels<'a> {
    pub symbolic: &'a Model,
    pub well_founded: &'a Model,
    pub speculative: &'a Model,
}

/// The thin-air outcomes of `test`, at most `max` of them.
pub fn thin_air(
    test: &ast::Test,
    models: &ThinAirModels,
    opts: &Options,
    max: usize,
) -> Result<ThinAirReport, QueryError> {
    let opts = &opts.clone().started();
    let prog = compile_for(test, opts)?;
    // Names as reports give them: `Symb+vulkan` under a memory model.
    let label = |m: &Model| super::model_label(&m.name, opts.memory.as_deref());
    let all = [
        models.symbolic.clone(),
        models.well_founded.clone(),
        models.speculative.clone(),
    ];
    let enc = Encoding::new(&prog, &all, &opts.smt_options())?;
    let mut incomplete = Vec::new();
    if !matches!(enc.cut(models.symbolic), Answer::No) {
        incomplete.push(format!(
            "an execution may be cut by the loop bound ({})",
            prog.bound_words()
        ));
    }
    // The well-founded and speculative outcome sets come from the engine asked for; the
    // symbolic one is always Z3's (the explorer has no symbolic class).
    let explored = |m: &Model| -> Result<Explored, String> {
        let eo = crate::engine::explore::ExploreOptions {
            max_states: opts.max_states,
            budget: opts.budget(),
            memory: opts.memory.clone(),
            liveness: false,
            shortcuts: true,
        };
        let ex = crate::engine::explore::explore(&prog, m, &eo).map_err(|e| e.to_string())?;
        let complete = ex.cut.is_none() && !ex.limit_hit && ex.unspecified_read.is_none();
        Ok(Explored {
            outcomes: ex.outcomes.keys().cloned().collect(),
            complete,
        })
    };
    let (wf, spec_set) = match opts.engine {
        super::Engine::Smt => (enc.outcomes(models.well_founded, opts.max_outcomes), None),
        super::Engine::Explore => {
            let wf = match explored(models.well_founded) {
                Ok(x) => crate::engine::smt::SmtOutcomes {
                    incomplete: (!x.complete)
                        .then(|| "the explorer's list is incomplete (bound, state limit or unspecified value)".to_string()),
                    outcomes: x.outcomes,
                    families: Vec::new(),
                },
                Err(why) => crate::engine::smt::SmtOutcomes {
                    outcomes: Vec::new(),
                    families: Vec::new(),
                    incomplete: Some(format!("the explorer stopped: {why}")),
                },
            };
            (wf, Some(explored(models.speculative)))
        }
    };
    if let Some(why) = &wf.incomplete {
        incomplete.push(format!("{} outcomes: {why}", label(models.well_founded)));
    }
    // Outcomes satisfying the condition first: they are what the user asked about.
    let mut known = wf.outcomes.clone();
    let wf_complete = wf.incomplete.is_none();
    let mut candidates = Vec::new();
    for (only_p, what) in [(true, "satisfying the condition"), (false, "in all")] {
        let beyond = beyond_well_founded(
            &enc,
            models,
            &mut known,
            wf_complete,
            max.saturating_sub(candidates.len()),
            only_p,
        );
        if let Some(why) = beyond.incomplete {
            incomplete.push(format!(
                "{} outcomes beyond {} ({what}): {why}",
                label(models.symbolic),
                label(models.well_founded)
            ));
        }
        known.extend(beyond.outcomes.iter().cloned());
        candidates.extend(beyond.outcomes);
    }
    let mut thin = Vec::new();
    for values in candidates {
        let witness = match enc.reaches(models.symbolic, &values) {
            Answer::Yes(w) => w,
            _ => Vec::new(),
        };
        let speculative_allows = match &spec_set {
            None => match enc.reaches(models.speculative, &values) {
                Answer::Yes(_) => Some(true),
                Answer::No => Some(false),
                Answer::Unknown(_) => None,
            },
            Some(Ok(x)) if x.outcomes.contains(&values) => Some(true),
            Some(Ok(x)) if x.complete => Some(false),
            Some(_) => None,
        };
        let cycle = justification_cycle(test, &prog, &witness);
        thin.push(ThinAirOutcome {
            satisfies: prog.prop.eval(&values),
            values,
            speculative_allows,
            cycle,
            witness: render_trace(test, &prog, &witness),
        });
    }
    let condition_thin_air = {
        let sym_p = matches!(enc.allowed(models.symbolic), Answer::Yes(_));
        match enc.allowed(models.well_founded) {
            Answer::Yes(_) => Some(false),
            Answer::No if incomplete.is_empty() || sym_p => Some(sym_p),
            _ => None,
        }
    };
    Ok(ThinAirReport {
        test: test.name.clone(),
        file: test.file.clone(),
        symbolic: label(models.symbolic),
        well_founded: label(models.well_founded),
        speculative: label(models.speculative),
        engine: opts.engine,
        observables: prog
            .observables
            .iter()
            .map(|o| prog.observable_name(o))
            .collect(),
        condition: super::condition_text(test),
        condition_thin_air,
        thin_air: thin,
        incomplete: (!incomplete.is_empty()).then(|| incomplete.join("; ")),
    })
}

/// Outcomes the symbolic model allows beyond `known` (the well-founded ones found), at most
/// `max`. When the well-founded list is incomplete, an outcome beyond it may still be
/// well-founded: each is asked of the well-founded model, and those it allows join `known`
/// and are enumerated past, a few rounds at most, so an outcome is never called thin air
/// because a list was cut.
fn beyond_well_founded(
    enc: &Encoding,
    models: &ThinAirModels,
    known: &mut Vec<Vec<u32>>,
    wf_complete: bool,
    max: usize,
    only_p: bool,
) -> crate::engine::smt::SmtOutcomes {
    const ROUNDS: usize = 8;
    let mut thin = Vec::new();
    let mut doubt = None;
    // Why the list may be short: the rounds ran out, unless a round says otherwise.
    let mut cut = Some(format!(
        "after {ROUNDS} rounds of outcomes the well-founded model also allows"
    ));
    for _ in 0..ROUNDS {
        if thin.len() >= max {
            // The limit was reached before (the caller's note says so).
            cut = doubt.take();
            break;
        }
        let batch = enc.outcomes_where(models.symbolic, known, max - thin.len(), only_p);
        let found = batch.outcomes.len();
        for values in batch.outcomes {
            if wf_complete {
                thin.push(values);
                continue;
            }
            match enc.reaches(models.well_founded, &values) {
                Answer::No => thin.push(values),
                Answer::Yes(_) => known.push(values),
                Answer::Unknown(why) => {
                    doubt.get_or_insert(format!(
                        "could not tell whether {} allows an outcome: {why}",
                        models.well_founded.name
                    ));
                    known.push(values);
                }
            }
        }
        if batch.incomplete.is_none() || found == 0 || thin.len() >= max || wf_complete {
            cut = doubt.take().or(batch.incomplete);
            break;
        }
    }
    crate::engine::smt::SmtOutcomes {
        outcomes: thin,
        families: Vec::new(),
        incomplete: cut,
    }
}

/// An outcome set computed by the explorer.
struct Explored {
    outcomes: Vec<Vec<u32>>,
    /// No bound, limit or unspecified value cut it.
    complete: bool,
}

/// Why an edge of the dependency graph exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dep {
    /// A register written by one step and read by a later one of the same thread.
    Data,
    /// A load reading the value of a store.
    ReadsFrom,
    /// A participant's argument feeding a subgroup op's result.
    Argument,
    /// A branch deciding whether a thread participates in a subgroup op.
    Participation,
}

impl Dep {
    fn words(self) -> &'static str {
        match self {
            Dep::Data => "whose value feeds",
            Dep::ReadsFrom => "which is read by",
            Dep::Argument => "which is an argument of",
            Dep::Participation => "which decides who participates in",
        }
    }
}

/// Subgroup-op steps per instance (subgroup, block, instruction): each step with the steps that
/// defined its argument registers.
type SgSteps = HashMap<(u32, u32, u32), Vec<(usize, Vec<usize>)>>;

/// A cycle of dependencies through a subgroup op in the witness, in words.
fn justification_cycle(test: &ast::Test, prog: &Program, steps: &[Step]) -> Vec<String> {
    let n = steps.len();
    let mut edges: Vec<Vec<(usize, Dep)>> = vec![Vec::new(); n];
    let mut last_def: HashMap<(u32, u32), usize> = HashMap::new();
    // Every write of the witness, per cell: (step, value).
    let mut writes: HashMap<u32, Vec<(usize, u32)>> = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        for e in &s.effects {
            match *e {
                Effect::Write { cell, value, .. }
                | Effect::Rmw {
                    cell,
                    new: Some(value),
                    ..
                } => writes.entry(cell).or_default().push((i, value)),
                _ => {}
            }
        }
    }
    // The write a read at step `i` of `value` read from. Under SC it is the last write
    // before it, which wrote that value. Under a memory model the witness is in the order
    // of its steps, not of what reads see: the last write of the value before the read,
    // else, for a value other than the initial one, the first after it.
    let init = prog.initial_memory();
    let source = |i: usize, cell: u32, value: u32| -> Option<usize> {
        let ws = writes.get(&cell)?;
        let before = ws.iter().rev().find(|&&(w, v)| w < i && v == value);
        let fresh = init.get(cell as usize) != Some(&value);
        let after = || ws.iter().find(|&&(w, v)| fresh && w > i && v == value);
        before.or_else(after).map(|&(w, _)| w)
    };
    // Per subgroup-op instance (subgroup, block, instr): (step, defs of its argument registers).
    let mut sg_steps: SgSteps = HashMap::new();
    for (i, s) in steps.iter().enumerate() {
        let block = &prog.blocks[s.block as usize];
        for &t in &s.threads {
            let reads = match s.at {
                At::Instr(k) => block.instrs[k as usize].op.reads(),
                At::Term => match &block.term {
                    Term::Branch { cond, .. } => {
                        let mut v = Vec::new();
                        cond.regs(&mut v);
                        v
                    }
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            };
            let defs: Vec<usize> = reads
                .iter()
                .filter_map(|r| last_def.get(&(t, *r)).copied())
                .collect();
            for &d in &defs {
                edges[d].push((i, Dep::Data));
            }
            for e in &s.effects {
                match *e {
                    Effect::Read {
                        thread,
                        cell,
                        value,
                        ..
                    }
                    | Effect::Rmw {
                        thread,
                        cell,
                        old: value,
                        ..
                    } if thread == t => {
                        if let Some(w) = source(i, cell, value) {
                            edges[w].push((i, Dep::ReadsFrom));
                        }
                    }
                    _ => {}
                }
            }
            if let At::Instr(k) = s.at {
                let op = &block.instrs[k as usize].op;
                if let Some(w) = op.writes() {
                    last_def.insert((t, w), i);
                }
                if matches!(op, crate::ir::Op::SgOp { .. }) {
                    let sg = prog.layout.subgroup_of(t);
                    sg_steps
                        .entry((sg, s.block, k))
                        .or_default()
                        .push((i, defs.clone()));
                }
            }
        }
    }
    // Arguments of every participant, and the branches deciding participation.
    for (&(sg, b, _), calls) in &sg_steps {
        for &(i, _) in calls {
            for (_, defs) in calls {
                for &d in defs {
                    if d != i {
                        edges[d].push((i, Dep::Argument));
                    }
                }
            }
            for u in prog.layout.subgroup_threads(sg) {
                if let Some(d) = deciding_branch(prog, steps, u, b) {
                    edges[d].push((i, Dep::Participation));
                }
            }
        }
    }
    // The shortest cycle through a subgroup-op step.
    let mut best: Option<Vec<(usize, Dep)>> = None;
    for calls in sg_steps.values() {
        for &(start, _) in calls {
            if let Some(c) = shortest_cycle(&edges, start) {
                if best.as_ref().is_none_or(|b| c.len() < b.len()) {
                    best = Some(c);
                }
            }
        }
    }
    let describe = |i: usize| {
        let s = &steps[i];
        let b = &prog.blocks[s.block as usize];
        let line = match s.at {
            At::Instr(k) | At::Resolve(k) => b.instrs[k as usize].span.line,
            At::Label => b.span.line,
            At::Term => b.term_span.line,
        };
        let text = test
            .source
            .lines()
            .nth(line.saturating_sub(1) as usize)
            .unwrap_or("")
            .trim();
        let who: Vec<String> = s.threads.iter().map(|t| format!("T{t}")).collect();
        format!("{} `{}` (line {})", who.join(","), text, line)
    };
    let Some(cycle) = best else {
        return early_use(&sg_steps, &edges, steps, &describe);
    };
    let mut out: Vec<String> = cycle
        .iter()
        .map(|&(i, dep)| format!("{}, {}", describe(i), dep.words()))
        .collect();
    out.push(format!("{} (the cycle closes)", describe(cycle[0].0)));
    out
}

/// Without a cycle, the witness must use a result early: a thread reads an op's result before
/// another participant has executed the op (only the symbolic class allows that).
fn early_use(
    sg_steps: &SgSteps,
    edges: &[Vec<(usize, Dep)>],
    steps: &[Step],
    describe: &dyn Fn(usize) -> String,
) -> Vec<String> {
    let mut keys: Vec<_> = sg_steps.keys().collect();
    keys.sort();
    for k in keys {
        let calls = &sg_steps[k];
        let last = calls.iter().map(|c| c.0).max().unwrap_or(0);
        for &(i, _) in calls {
            let t = steps[i].threads[0];
            let early = edges[i]
                .iter()
                .find(|(j, d)| *d == Dep::Data && *j < last && steps[*j].threads.contains(&t));
            if let Some(&(j, _)) = early {
                return vec![
                    "no dependency cycle: the result is used before every participant has executed the op".into(),
                    format!("{}, whose value feeds", describe(i)),
                    format!("{}, before", describe(j)),
                    format!("{} executes the op", describe(last)),
                ];
            }
        }
    }
    vec![
        "no dependency cycle through a subgroup op and no early use were found in the witness"
            .into(),
    ]
}

/// The step at which thread `u` decided whether it enters block `b`: the conditional branch
/// that took it into `b` or made `b` unreachable.
fn deciding_branch(prog: &Program, steps: &[Step], u: u32, b: u32) -> Option<usize> {
    steps.iter().position(|s| {
        s.at == At::Term
            && matches!(prog.blocks[s.block as usize].term, Term::Branch { .. })
            && s.effects.iter().any(|e| match e {
                Effect::Goto {
                    thread,
                    target: Target::Block(t),
                } if *thread == u => *t == b || (prog.reaches(s.block, b) && !prog.reaches(*t, b)),
                _ => false,
            })
    })
}

/// The shortest cycle from `start` back to itself, as (step, edge kind into the next step).
fn shortest_cycle(edges: &[Vec<(usize, Dep)>], start: usize) -> Option<Vec<(usize, Dep)>> {
    let mut prev: HashMap<usize, (usize, Dep)> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(x) = queue.pop_front() {
        for &(y, dep) in &edges[x] {
            if y == start {
                // Nodes start -> ... -> x; each entry carries the edge leaving it.
                let mut nodes = vec![x];
                let mut cur = x;
                while cur != start {
                    cur = prev[&cur].0;
                    nodes.push(cur);
                }
                nodes.reverse();
                let out = (0..nodes.len())
                    .map(|k| {
                        let leaving = match nodes.get(k + 1) {
                            Some(next) => prev[next].1,
                            None => dep,
                        };
                        (nodes[k], leaving)
                    })
                    .collect();
                return Some(out);
            }
            if let std::collections::hash_map::Entry::Vacant(e) = prev.entry(y) {
                if y != start {
                    e.insert((x, dep));
                    queue.push_back(y);
                }
            }
        }
    }
    None
}
