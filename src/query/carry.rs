//! Verdicts carried along proven model inclusions (docs/decisions.md, "Verdicts carried
//! between models").
//!
//! When N ⊆ M is proven for every program ([`include_proof::unbounded`]: every execution under
//! N is one under M), a run N allows is a run M allows, and what M forbids N forbids too. So
//! where one model's engine ran out (a state limit, a budget) and another model of the same
//! question decided, the decided answer may settle the undecided one: an `allow` from a model
//! included in it, a `forbid` from a model that includes it.

use super::include_proof;
use super::{Analysis, Verdict};
use crate::model::Model;
use crate::syntax::ast::Quantifier;

/// Settles each `unknown` in `analyses` (one per model of `models`, in order, all under SC
/// memory and one question) from a decided one, as the module says, with a note naming the
/// model and the inclusion. Left alone: `forall` conditions (whether they hold needs a
/// counterexample's absence, which a verdict does not carry) and analyses under a memory
/// model (the inclusions are proven for the execution models' timing rules, under SC).
pub fn carry(models: &[Model], analyses: &mut [Analysis]) {
    if analyses.len() != models.len() {
        return;
    }
    let open = |a: &Analysis| {
        matches!(a.verdict, Verdict::Unknown(_))
            && a.memory.is_none()
            && a.quantifier != Quantifier::Forall
    };
    for i in 0..analyses.len() {
        if !open(&analyses[i]) {
            continue;
        }
        let from = (0..analyses.len()).find(|&j| {
            let d = &analyses[j];
            let (inner, outer) = match d.verdict {
                _ if d.memory.is_some() => return false,
                Verdict::Allowed => (&models[j], &models[i]),
                Verdict::Forbidden => (&models[i], &models[j]),
                Verdict::Unknown(_) => return false,
            };
            include_proof::unbounded(inner, outer).all_proven
        });
        let Some(j) = from else { continue };
        let (d, m, n) = (analyses[j].clone(), &models[i].name, &models[j].name);
        let a = &mut analyses[i];
        let why = match &a.verdict {
            Verdict::Unknown(w) => w.clone(),
            _ => String::new(),
        };
        a.verdict = d.verdict.clone();
        a.condition_holds = d.condition_holds;
        a.notes.push(match d.verdict {
            Verdict::Allowed => format!(
                "allowed because {n} allows it: every execution under {n} is one under {m} \
                 (proven for all programs, `tangle include`); the witness is {n}'s. {m}'s own \
                 analysis: {why}"
            ),
            _ => format!(
                "forbidden because {n} forbids it: every execution under {m} is one under {n} \
                 (proven for all programs, `tangle include`). {m}'s own analysis: {why}"
            ),
        });
        if d.verdict == Verdict::Allowed {
            a.witness = d.witness.clone();
            a.witness_differs = d.witness_differs.clone();
        }
    }
}
