//! Confirming a difference: one program, one ordered pair of models, both outcome sets
//! computed by the engines, and the fewest observations that tell the outcome apart.

use super::enumerate::{self, Stmt};
use super::{Combination, Difference, SearchEngine, SearchOptions};
use crate::engine::explore::{self, ExploreOptions};
use crate::engine::smt::{self, SmtOptions};
use crate::ir::Program;
use crate::syntax::{self, ast::Operand};
use crate::vocab::{Class, Kind};
use std::collections::BTreeSet;

/// Compiles a program of the grammar observing every register and cell.
fn compile_program(
    p: &[Stmt],
    threads: u32,
    access: &enumerate::Access,
) -> Result<(syntax::ast::Test, Program), String> {
    let r = enumerate::render_with(p, threads, access);
    let text = r.litmus(&[], "enumerated", "", "true", None);
    let test = syntax::parse("enumerated.litmus", text.as_bytes()).map_err(|d| {
        format!("an enumerated program does not parse (enumerator bug):\n{d}\n{text}")
    })?;
    let extra: Vec<Operand> = r.observables(threads);
    let prog = crate::query::compile_observing(&test, 1, &extra).map_err(|e| e.to_string())?;
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
    let (_, prog) = compile_program(p, threads, &opts.grammar.access)?;
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
            shortcuts: true,
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

#[cfg(test)]
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
