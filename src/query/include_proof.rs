//! Unbounded model inclusion: A ⊆ B for programs of any size, proven rule by rule.
//!
//! A and B share every constraint of the encoding except the timing rule of each instruction
//! kind's class, so A ⊆ B holds for all programs when, for every kind, A's rule implies B's for
//! one dynamic block with any finite set of threads (`engine::smt::schema`). When a kind's rule
//! is not implied, the proof says so and the bounded check must decide.

use crate::engine::smt::schema::class_implies;
use crate::engine::smt::Answer;
use crate::model::Model;
use crate::vocab::{Class, Kind};
use serde::Serialize;

/// The proof obligation for one instruction kind.
#[derive(Clone, Debug, Serialize)]
pub struct RuleProof {
    pub kind: Kind,
    pub a_class: Class,
    pub b_class: Class,
    pub proven: bool,
    pub note: String,
}

/// The per-kind proofs of A ⊆ B.
#[derive(Clone, Debug, Serialize)]
pub struct UnboundedProof {
    pub a: String,
    pub b: String,
    pub rules: Vec<RuleProof>,
    /// Every rule proven: A ⊆ B for every program.
    pub all_proven: bool,
}

/// Tries to prove A ⊆ B for all programs.
pub fn unbounded(a: &Model, b: &Model) -> UnboundedProof {
    let mut rules = Vec::new();
    for kind in Kind::TIMED {
        let (ca, cb) = (a.class(kind), b.class(kind));
        let (proven, note) = match class_implies(kind, ca, cb, 10_000) {
            Answer::Yes(()) if ca == cb => (true, "same class".to_string()),
            Answer::Yes(()) => (
                true,
                format!("every {ca} schedule of a dynamic block is also {cb} (Z3: valid)"),
            ),
            Answer::No => (
                false,
                format!("{ca} does not imply {cb} in the schema: decide with the bounded check"),
            ),
            Answer::Unknown(why) => (false, format!("not proven: {why}")),
        };
        rules.push(RuleProof {
            kind,
            a_class: ca,
            b_class: cb,
            proven,
            note,
        });
    }
    let all_proven = rules.iter().all(|r| r.proven);
    UnboundedProof {
        a: a.name.clone(),
        b: b.name.clone(),
        rules,
        all_proven,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(a: &str, b: &str) -> UnboundedProof {
        unbounded(&Model::by_name(a).unwrap(), &Model::by_name(b).unwrap())
    }

    #[test]
    fn the_intended_lattice_is_proven_for_all_programs() {
        for (a, b) in [
            ("CM", "SM"),
            ("SM", "SCF"),
            ("SCF", "SSO"),
            ("SSO", "Spec"),
            ("Spec", "Symb"),
            ("SSO", "Lazy"),
            ("Lazy", "Symb"),
        ] {
            let p = proof(a, b);
            assert!(p.all_proven, "{a} ⊆ {b}: {:?}", p.rules);
        }
    }

    #[test]
    fn reverse_directions_and_spec_vs_lazy_are_not_proven() {
        for (a, b) in [
            ("SM", "CM"),
            ("SCF", "SM"),
            ("SSO", "SCF"),
            ("Spec", "SSO"),
            ("Symb", "Spec"),
            ("Lazy", "SSO"),
            ("Symb", "Lazy"),
            ("Spec", "Lazy"),
            ("Lazy", "Spec"),
        ] {
            assert!(!proof(a, b).all_proven, "{a} ⊆ {b} should not be provable");
        }
    }
}
