//! Cross-validation: the explorer and the Z3 encoding must find the same outcomes.
//!
//! Used by `cargo test` (suite files and a few hundred random programs) and by the soak
//! example (`cargo run --release --example soak`) for tens of thousands.

use super::{analyse_models, compile, Engine, Options, QueryError, Verdict};
use crate::model::Model;
use crate::syntax::ast;
use crate::vocab::{Class, Kind};

/// How one test fared.
#[derive(Debug, Default)]
pub struct CrossCheck {
    /// Models where both engines gave complete outcome sets that were compared.
    pub compared: usize,
    /// Models skipped because one engine's outcome set was incomplete (state limit, bound,
    /// unspecified values), with the reason.
    pub skipped: Vec<String>,
    /// Disagreements, in words.
    pub disagreements: Vec<String>,
}

/// The undefined behaviour an analysis found, the model's flags included, by kind and sorted:
/// what both engines must agree on wherever both judged every run. Barrier divergence aside,
/// which the engines may report differently (docs/decisions.md, "Engines").
pub fn compared_undefined_behaviour(a: &super::Analysis) -> Vec<String> {
    let mut v: Vec<String> = (a.undefined_behaviour.iter())
        .filter(|u| u.kind != crate::eval::UbKind::BarrierDivergence)
        .map(|u| u.description.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Runs both engines on `test` under every built-in model the explorer runs and compares, with
/// loop bound `unroll` (an execution cut by it makes both sets incomplete: skipped, not hidden).
pub fn crosscheck(
    test: &ast::Test,
    max_states: usize,
    unroll: u32,
) -> Result<CrossCheck, QueryError> {
    crosscheck_memory(test, max_states, unroll, None)
}

/// As [`crosscheck`] under a relaxed memory model (the two cat back ends against each other).
/// Both compare the undefined behaviour each engine finds, the model's flags included.
pub fn crosscheck_memory(
    test: &ast::Test,
    max_states: usize,
    unroll: u32,
    memory: Option<std::sync::Arc<crate::memory::MemoryModel>>,
) -> Result<CrossCheck, QueryError> {
    let models: Vec<Model> = Model::builtin()
        .into_iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .collect();
    let prog = compile(test, unroll)?;
    let mut base = Options::default()
        .with_max_states(max_states)
        .with_unroll(unroll);
    if memory.is_some() {
        // Judging candidate executions is the explorer's cost under a relaxed model, and the
        // state limit does not bound it: a time budget does (the comparison is then skipped).
        base = base.with_timeout_ms(Some(10_000));
    }
    base.memory = memory;
    let ex = analyse_models(
        test,
        &prog,
        &models,
        &base.clone().with_engine(Engine::Explore),
    );
    // Z3 only where the explorer's set is complete, enumerating at most one outcome more than
    // the explorer found: enough to see any disagreement, and bounded.
    let mut r = CrossCheck::default();
    let mut pairs = Vec::new();
    for (m, a) in models.iter().zip(ex) {
        if !a.outcomes_complete {
            r.skipped.push(format!(
                "{} under {} (explorer incomplete)",
                a.test, a.model
            ));
            continue;
        }
        let opts = base
            .clone()
            .with_engine(Engine::Smt)
            .with_max_outcomes(a.outcomes.len() + 1)
            .with_timeout_ms(Some(20_000));
        let b = analyse_models(test, &prog, std::slice::from_ref(m), &opts).remove(0);
        pairs.push((a, b));
    }
    for (a, b) in &pairs {
        let known = |v: &Verdict| !matches!(v, Verdict::Unknown(_));
        if known(&a.verdict) && known(&b.verdict) && a.verdict != b.verdict {
            r.disagreements.push(format!(
                "{} under {}: explorer {}, smt {}",
                a.test,
                a.model,
                a.verdict.short(),
                b.verdict.short()
            ));
        }
        if !(a.outcomes_complete && b.outcomes_complete) {
            r.skipped.push(format!("{} under {}", a.test, a.model));
            continue;
        }
        r.compared += 1;
        let reasons = |x: &super::Analysis| -> Vec<String> {
            let mut v: Vec<String> = x
                .memory
                .iter()
                .flat_map(|m| m.forbidden_by.iter().map(|(n, _)| n.clone()))
                .collect();
            v.sort();
            v
        };
        let partial = |x: &super::Analysis| x.memory.iter().any(|m| m.forbidden_by_partial);
        if reasons(a) != reasons(b) && !partial(a) && !partial(b) {
            r.disagreements.push(format!(
                "{} under {}: the axioms that alone forbid the condition differ: explorer {:?}, smt {:?}",
                a.test,
                a.model,
                reasons(a),
                reasons(b)
            ));
        }
        let flags = compared_undefined_behaviour;
        if flags(a) != flags(b) {
            r.disagreements.push(format!(
                "{} under {}: undefined behaviour differs: explorer {:?}, smt {:?}",
                a.test,
                a.model,
                flags(a),
                flags(b)
            ));
        }
        let oa: Vec<&Vec<u32>> = a.outcomes.iter().map(|o| &o.values).collect();
        let ob: Vec<&Vec<u32>> = b.outcomes.iter().map(|o| &o.values).collect();
        if oa != ob {
            let only = |x: &[&Vec<u32>], y: &[&Vec<u32>]| -> Vec<Vec<u32>> {
                x.iter()
                    .filter(|v| !y.contains(v))
                    .map(|v| (*v).clone())
                    .collect()
            };
            r.disagreements.push(format!(
                "{} under {}: outcomes over {:?} differ: only the explorer finds {:?}; only smt finds {:?}",
                a.test,
                a.model,
                a.observables,
                only(&oa, &ob),
                only(&ob, &oa)
            ));
        }
    }
    Ok(r)
}
