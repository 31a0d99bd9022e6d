//! Counterexample-guided inductive synthesis (CEGIS) of a distinguishing program.
//!
//! The question "is there a program with an outcome model B allows and model A forbids?" is
//! a 2QBF: *exists* a program and an outcome such that *for all* A-executions of the program,
//! the outcome differs. Over a program *template* (slots, each choosing one of a few
//! statements; [`Template`]) it is solved by alternating two solvers over the same encoding
//! ([`Encoding::with_optional`], each slot's alternatives as optional instructions):
//!
//! - *synthesis*: a choice of statements and a B-execution of it, whose outcome is not that
//!   of any A-execution collected so far;
//! - *verification*: is that outcome reachable under A for that program? If not, the program
//!   distinguishes the models. If it is, the A-execution found is the counterexample.
//!
//! A counterexample is learnt as a constraint over the choice: the verification solver's
//! assertions with every execution variable replaced by its value in the A-execution (the
//! class literals set to A's) is a formula over the selectors only, true exactly for the
//! programs in which that same concrete execution is a valid A-execution; for those programs
//! the synthesis must pick a different outcome. Each round rules out at least the candidate
//! pair, so the loop terminates on a finite template. This module answers for one template;
//! the iterative deepening over templates is `query::cegis`.

use super::terms::and;
use super::{Answer, Encoding, SmtOptions};
use crate::ir::{BlockId, Program};
use crate::model::Model;
use std::collections::{HashMap, HashSet};
use std::time::Instant;
use z3::ast::{Ast, Bool, Dynamic, Int};
use z3::AstKind;

/// A program template: a program whose optional instructions are grouped into slots, each
/// slot holding exactly one of its alternatives.
#[derive(Clone, Debug, Default)]
pub struct Template {
    /// The number of alternatives of each slot.
    pub arity: Vec<u32>,
    /// The optional instructions: (block, position) -> (slot, alternative).
    pub at: HashMap<(BlockId, u32), (usize, u32)>,
    /// Side conditions: choosing (slot, alternative) requires every listed condition.
    pub requires: Vec<((usize, u32), Vec<Cond>)>,
}

/// Presence literal and slot of each optional instruction, as [`Encoding::with_optional`]
/// takes them.
type Optional = HashMap<(BlockId, u32), (Bool, usize)>;

impl Template {
    /// One selector per slot (`sel_J`: the index of the alternative chosen), and the
    /// optional instructions behind them.
    fn selectors(&self) -> (Vec<Int>, Optional) {
        let sel: Vec<Int> = (0..self.arity.len())
            .map(|j| Int::new_const(format!("sel_{j}")))
            .collect();
        let present = self
            .at
            .iter()
            .map(|(&k, &(j, a))| (k, (chosen(&sel, j, a), j)))
            .collect();
        (sel, present)
    }
}

/// Slot `slot` holds alternative `alt`.
fn chosen(sel: &[Int], slot: usize, alt: u32) -> Bool {
    sel[slot].eq(Int::from_u64(alt as u64))
}

/// A condition on one slot's choice: its alternative is in `alts` (or, with `negated`, is not).
#[derive(Clone, Debug)]
pub struct Cond {
    pub slot: usize,
    pub alts: Vec<u32>,
    pub negated: bool,
}

/// The result for one template.
#[derive(Clone, Debug)]
pub enum Synthesis {
    /// A choice per slot, and the outcome (over the program's observables) B allows, A forbids.
    Found {
        choice: Vec<u32>,
        outcome: Vec<u32>,
        rounds: u64,
    },
    /// No choice of the template has such an outcome.
    None { rounds: u64 },
    /// A solver gave up or the deadline passed.
    Unknown { why: String, rounds: u64 },
}

/// Searches the template for a program with an outcome `weak` allows and `strong` forbids.
pub fn synthesize(
    prog: &Program,
    t: &Template,
    strong: &Model,
    weak: &Model,
    opts: &SmtOptions,
    deadline: Option<Instant>,
) -> Synthesis {
    let (sel, present) = t.selectors();
    let is = |slot: usize, alt: u32| chosen(&sel, slot, alt);
    let models = [strong.clone(), weak.clone()];
    let encode = |present| Encoding::with_optional(prog, &models, opts, present);
    let (syn, ver) = match (encode(present.clone()), encode(present)) {
        (Ok(s), Ok(v)) => (s, v),
        (Err(e), _) | (_, Err(e)) => {
            return Synthesis::Unknown {
                why: e.to_string(),
                rounds: 0,
            }
        }
    };
    // The choice: one alternative per slot, side conditions respected.
    let mut side = Vec::new();
    for (j, &n) in t.arity.iter().enumerate() {
        side.push(sel[j].ge(Int::from_u64(0)));
        side.push(sel[j].lt(Int::from_u64(n as u64)));
    }
    for ((j, a), conds) in &t.requires {
        let cs: Vec<Bool> = conds
            .iter()
            .map(|c| {
                let any =
                    super::terms::or(&c.alts.iter().map(|&a| is(c.slot, a)).collect::<Vec<_>>());
                if c.negated {
                    any.not()
                } else {
                    any
                }
            })
            .collect();
        let refs: Vec<&Bool> = cs.iter().collect();
        side.push(is(*j, *a).implies(and(&refs)));
    }
    for c in &side {
        syn.solver.assert(c);
        ver.solver.assert(c);
    }

    // What a counterexample is instantiated in: every assertion of the verification encoding,
    // with its class and assumption literals fixed to "an execution of A, complete, no UB".
    let base = Bool::and(&ver.solver.get_assertions());
    let sel_set: HashSet<Dynamic> = sel.iter().map(|s| Dynamic::from_ast(s)).collect();
    let mut fixed: HashMap<Dynamic, Bool> = HashMap::new();
    let strong_lits: HashSet<Dynamic> = ver
        .model_lits(strong)
        .iter()
        .map(|l| Dynamic::from_ast(l))
        .collect();
    for l in ver.lits.values() {
        let d = Dynamic::from_ast(l);
        let v = strong_lits.contains(&d);
        fixed.insert(d, Bool::from_bool(v));
    }
    fixed.insert(Dynamic::from_ast(&ver.a_noub), Bool::from_bool(true));
    fixed.insert(Dynamic::from_ast(&ver.a_nocut), Bool::from_bool(true));
    fixed.insert(Dynamic::from_ast(&ver.a_cut), Bool::from_bool(false));
    for l in ver.ub_lits.values() {
        fixed.insert(Dynamic::from_ast(l), Bool::from_bool(false));
    }
    // The defined constants (loaded values, final cells, op results) are replaced by their
    // definitions, not by the execution's values: that is what makes a counterexample speak
    // about other programs of the template.
    let defined: HashSet<Dynamic> = ver.defs.iter().map(|(c, _)| c.clone()).collect();
    let vars: Vec<Dynamic> = constants(&base)
        .into_iter()
        .filter(|c| !sel_set.contains(c) && !defined.contains(c))
        .collect();

    let mut a_syn = syn.model_lits(weak);
    a_syn.extend([syn.a_noub.clone(), syn.a_nocut.clone()]);
    let mut a_ver = ver.model_lits(strong);
    a_ver.extend([ver.a_noub.clone(), ver.a_nocut.clone()]);
    let mut rounds = 0u64;
    loop {
        if deadline.is_some_and(|d| Instant::now() > d) {
            return Synthesis::Unknown {
                why: "the time budget ran out".into(),
                rounds,
            };
        }
        rounds += 1;
        let m = match syn.check(&a_syn) {
            Answer::No => return Synthesis::None { rounds },
            Answer::Unknown(why) => return Synthesis::Unknown { why, rounds },
            Answer::Yes(m) => m,
        };
        let choice: Vec<u32> = sel
            .iter()
            .map(|s| m.eval(s, true).and_then(|v| v.as_u64()).unwrap_or(0) as u32)
            .collect();
        let outcome: Vec<u32> = syn
            .observables
            .iter()
            .map(|o| super::model_u32(&m, o))
            .collect();
        let picked: Vec<Bool> = choice.iter().enumerate().map(|(j, &a)| is(j, a)).collect();
        let mut cand: Vec<&Bool> = picked.iter().collect();
        let reached = ver.is_outcome(&outcome);
        cand.push(&reached);
        let q = Bool::fresh_const("cegis_candidate");
        ver.solver.assert(q.implies(and(&cand)));
        let mut assume = a_ver.clone();
        assume.push(q);
        let mv = match ver.check(&assume) {
            Answer::No => {
                return Synthesis::Found {
                    choice,
                    outcome,
                    rounds,
                }
            }
            Answer::Unknown(why) => return Synthesis::Unknown { why, rounds },
            Answer::Yes(mv) => mv,
        };
        // Learn the A-execution: for every program where it is valid, its outcome is A's.
        let subst: Vec<(Dynamic, Dynamic)> = vars
            .iter()
            .map(|c| {
                let v = match fixed.get(c) {
                    Some(b) => Dynamic::from_ast(b),
                    None => mv.eval(c, true).unwrap_or_else(|| c.clone()),
                };
                (c.clone(), v)
            })
            .collect();
        let refs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
        let defs: Vec<(Dynamic, Dynamic)> = ver
            .defs
            .iter()
            .map(|(c, d)| (c.clone(), d.substitute(&refs).simplify()))
            .collect();
        let def_refs: Vec<(&Dynamic, &Dynamic)> = defs.iter().map(|(a, b)| (a, b)).collect();
        // Definitions refer to earlier values only (once times are fixed), so substituting
        // them repeatedly reaches a fixpoint free of defined constants.
        let close = |f: Dynamic| -> Dynamic {
            let mut f = f.substitute(&refs).simplify();
            for _ in 0..=defs.len() {
                let g = f.substitute(&def_refs).simplify();
                if g.ast_eq(&f) {
                    break;
                }
                f = g;
            }
            f
        };
        let valid = close(Dynamic::from_ast(&base))
            .as_bool()
            .expect("a formula");
        let same: Vec<Bool> = ver
            .observables
            .iter()
            .zip(&syn.observables)
            .map(|(o, s)| close(Dynamic::from_ast(o)).as_bv().expect("a value").eq(s))
            .collect();
        let mut all: Vec<&Bool> = vec![&valid];
        all.extend(same.iter());
        syn.solver.assert(and(&all).not());
        // And the candidate itself (implied by the above when the model is total; stated so
        // that every round makes progress whatever the solver's model completion did).
        let mut blocked: Vec<&Bool> = picked.iter().collect();
        let out = syn.is_outcome(&outcome);
        blocked.push(&out);
        syn.solver.assert(and(&blocked).not());
    }
}

/// The uninterpreted constants of a formula.
fn constants(f: &Bool) -> Vec<Dynamic> {
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut out = Vec::new();
    let t = Dynamic::from_ast(&Bool::from_bool(true));
    let f_ = Dynamic::from_ast(&Bool::from_bool(false));
    let mut stack = vec![Dynamic::from_ast(f)];
    while let Some(a) = stack.pop() {
        if !seen.insert(a.clone()) {
            continue;
        }
        if a.kind() != AstKind::App {
            continue;
        }
        if a.num_children() == 0 {
            // The only interpreted constants of the encoding are `true` and `false` (numerals
            // are not apps). Declaration kinds are not compared: their numbering differs
            // between the Z3 the bindings were generated from and the one linked.
            if !(a.ast_eq(&t) || a.ast_eq(&f_)) {
                out.push(a);
            }
            continue;
        }
        stack.extend(a.children());
    }
    out
}

/// The outcomes under `m` of one choice of the template (for checking the template encoding
/// against the program the choice stands for).
pub fn outcomes_of_choice(
    prog: &Program,
    t: &Template,
    m: &Model,
    choice: &[u32],
    opts: &SmtOptions,
) -> super::SmtOutcomes {
    let (sel, present) = t.selectors();
    let enc = match Encoding::with_optional(prog, std::slice::from_ref(m), opts, present) {
        Ok(e) => e,
        Err(e) => {
            return super::SmtOutcomes {
                outcomes: Vec::new(),
                families: Vec::new(),
                incomplete: Some(e.to_string()),
            }
        }
    };
    for (j, &a) in choice.iter().enumerate() {
        enc.solver.assert(chosen(&sel, j, a));
    }
    enc.outcomes(m, opts.max_outcomes)
}
