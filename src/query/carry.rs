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
use crate::vocab::{Class, Kind};

/// Settles each `unknown` in `analyses` (one per model of `models`, in order, all under SC
/// memory and one question) from a decided one, as the module says, with a note naming the
/// model and the inclusion. Left alone: `forall` conditions (whether they hold needs a
/// counterexample's absence, which a verdict does not carry) and analyses under a memory
/// model (the inclusions are proven for the execution models' timing rules, under SC).
pub fn carry(models: &[Model], analyses: &mut [Analysis]) {
    if analyses.len() != models.len() || analyses.iter().any(|a| a.memory.is_some()) {
        return;
    }
    for i in 0..analyses.len() {
        let a = &analyses[i];
        if !matches!(a.verdict, Verdict::Unknown(_)) || a.quantifier == Quantifier::Forall {
            continue;
        }
        let from = (0..analyses.len()).find(|&j| {
            let (inner, outer) = match analyses[j].verdict {
                Verdict::Allowed => (&models[j], &models[i]),
                Verdict::Forbidden => (&models[i], &models[j]),
                Verdict::Unknown(_) => return false,
            };
            included(inner, outer)
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
            // The included model's outcomes are outcomes of this one (the list stays as
            // complete as this model's own analysis made it).
            if a.outcomes_listed && a.observables == d.observables {
                for o in &d.outcomes {
                    if !a
                        .outcomes
                        .iter()
                        .any(|x| x.values == o.values && x.free == o.free)
                    {
                        a.outcomes.push(o.clone());
                    }
                }
                a.outcomes.sort_by(|x, y| x.values.cmp(&y.values));
            }
        }
    }
}

/// Is N ⊆ M proven for every program? The rule-by-rule proof, asked once per pair of class
/// vectors in a process (each rule is a Z3 call of its own).
fn included(n: &Model, m: &Model) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Key = (Vec<Class>, Vec<Class>);
    static PROVEN: OnceLock<Mutex<HashMap<Key, bool>>> = OnceLock::new();
    let classes = |x: &Model| Kind::TIMED.iter().map(|&k| x.class(k)).collect::<Vec<_>>();
    let key = (classes(n), classes(m));
    let cache = PROVEN.get_or_init(Default::default);
    if let Some(&p) = cache.lock().expect("not poisoned").get(&key) {
        return p;
    }
    let p = include_proof::unbounded(n, m).all_proven;
    cache.lock().expect("not poisoned").insert(key, p);
    p
}
