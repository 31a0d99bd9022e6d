//! Program equivalence and refinement (docs/semantics.md §8): do two programs P and Q have the same
//! outcomes under a model M (or are P's among Q's)? When not, an outcome only one of them has,
//! with a witness execution of the program that has it.
//!
//! What is compared (docs/decisions.md, "Program equivalence"): every global cell (P and Q
//! must declare the same globals with the same sizes; initial values may differ) and every
//! register that either test's condition names (a register a program never assigns reads as
//! 0). Both programs are compiled observing that same list, and outcomes are matched by the
//! observables' names, never by position. Outcome sets come from the Z3 engine; an outcome it
//! finds is definite, and a set is complete unless an execution can be cut by the loop bound,
//! the enumeration limit was reached or the solver gave up. A question whose answer depends
//! on a missing part of a set is answered `unknown`, with the reason.

use super::{render_trace, Options, QueryError, TraceStep};
use crate::engine::smt::{Answer, Encoding, SmtOptions};
use crate::ir::Program;
use crate::model::Model;
use crate::syntax::ast::{self, Operand, Prop};
use serde::Serialize;
use std::collections::BTreeSet;

/// What is asked of P and Q.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Question {
    /// Same outcome sets.
    Equivalent,
    /// Every outcome of P is an outcome of Q (P refines Q).
    Refines,
}

/// A three-valued answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "answer", content = "reason")]
pub enum Holds {
    Yes,
    No,
    /// Undecided: the string says why (a loop bound, an enumeration limit, the solver).
    Unknown(String),
}

impl Holds {
    pub fn word(&self) -> &'static str {
        match self {
            Holds::Yes => "yes",
            Holds::No => "no",
            Holds::Unknown(_) => "unknown",
        }
    }
}

/// How the two outcome sets relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Same outcomes.
    Equivalent,
    /// P's outcomes are a strict subset of Q's.
    PInQ,
    /// Q's outcomes are a strict subset of P's.
    QInP,
    /// Each has an outcome the other lacks.
    Incomparable,
    /// Not fully decided (see `p_in_q` and `q_in_p`).
    Unknown,
}

impl Relation {
    /// `=`, `P ⊂ Q`, `P ⊃ Q`, `≠` (incomparable) or `?`.
    pub fn symbol(self) -> &'static str {
        match self {
            Relation::Equivalent => "=",
            Relation::PInQ => "P ⊂ Q",
            Relation::QInP => "P ⊃ Q",
            Relation::Incomparable => "≠",
            Relation::Unknown => "?",
        }
    }
}

/// Which of the two programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Side {
    P,
    Q,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::P => "P",
            Side::Q => "Q",
        })
    }
}

/// An outcome one program has and the other does not.
#[derive(Clone, Debug, Serialize)]
pub struct Counterexample {
    /// The program that has the outcome.
    pub program: Side,
    /// Its file.
    pub file: String,
    /// Values of [`EquivReport::observables`], in that order.
    pub values: Vec<u32>,
    /// The outcome as text: `x=1; 0:r=2;`.
    pub outcome: String,
    /// An execution of `program` ending in the outcome (`None` if the solver could not
    /// produce one; `notes` then says why).
    pub witness: Option<Vec<TraceStep>>,
}

/// The answer under one model.
#[derive(Clone, Debug, Serialize)]
pub struct EquivResult {
    pub model: String,
    pub question: Question,
    /// The answer to `question`.
    #[serde(flatten)]
    pub holds: Holds,
    pub relation: Relation,
    /// Is every outcome of P an outcome of Q? `None` when undecided.
    pub p_in_q: Option<bool>,
    /// Is every outcome of Q an outcome of P? `None` when undecided.
    pub q_in_p: Option<bool>,
    /// The outcomes found, values in [`EquivReport::observables`] order, sorted.
    pub p_outcomes: Vec<Vec<u32>>,
    pub q_outcomes: Vec<Vec<u32>>,
    /// Whether each list is known to be complete.
    pub p_complete: bool,
    pub q_complete: bool,
    /// Found outcomes the other program lacks (definitely lacks only if its list is complete).
    pub only_in_p: Vec<Vec<u32>>,
    pub only_in_q: Vec<Vec<u32>>,
    /// The outcome that decides a negative answer, with its witness.
    pub distinction: Option<Counterexample>,
    /// Undefined behaviour, solver trouble.
    pub notes: Vec<String>,
}

/// Equivalence (or refinement) of P and Q under each model.
#[derive(Clone, Debug, Serialize)]
pub struct EquivReport {
    pub p_file: String,
    pub p_test: String,
    pub q_file: String,
    pub q_test: String,
    pub question: Question,
    pub unroll: u32,
    /// The compared locations: every global cell, then the registers the conditions name.
    pub observables: Vec<String>,
    pub results: Vec<EquivResult>,
}

impl EquivReport {
    /// Does the answer hold under every model? (Unknown if some is unknown and none is no.)
    pub fn overall(&self) -> Holds {
        if self.results.iter().any(|r| r.holds == Holds::No) {
            return Holds::No;
        }
        let unknown: Vec<String> = self
            .results
            .iter()
            .filter_map(|r| match &r.holds {
                Holds::Unknown(why) => Some(format!("{}: {why}", r.model)),
                _ => None,
            })
            .collect();
        if unknown.is_empty() {
            Holds::Yes
        } else {
            Holds::Unknown(unknown.join("; "))
        }
    }
}

/// Why two programs cannot be compared, or cannot be compiled.
#[derive(Debug, thiserror::Error)]
pub enum EquivError {
    #[error("P and Q cannot be compared: {0}")]
    Incompatible(String),
    #[error("{which}: {err}")]
    Compile { which: String, err: QueryError },
    #[error("undecided: {0}")]
    Exhausted(#[from] crate::budget::Exhausted),
}

/// Are P and Q equivalent (or, with `refines`, is every outcome of P an outcome of Q) under
/// each of `models`? Always answered by the Z3 engine; `opts` gives the loop bound, the time
/// budget of the pair (encoding and solving both programs) and the enumeration limit.
pub fn equiv(
    p: &ast::Test,
    q: &ast::Test,
    models: &[Model],
    opts: &Options,
    refines: bool,
) -> Result<EquivReport, EquivError> {
    let extra = compared_locations(p, q)?;
    // One budget for the pair: unrolling and encoding both programs, and solving.
    let opts = &opts.clone().started();
    let budget = opts.budget();
    let compile = |t: &ast::Test| {
        super::compile_within(t, opts.unroll, &extra, &budget).map_err(|err| match err {
            QueryError::Exhausted(x) => EquivError::Exhausted(x),
            err => EquivError::Compile {
                which: t.file.clone(),
                err,
            },
        })
    };
    let (pp, qp) = (compile(p)?, compile(q)?);
    let names: Vec<String> = extra.iter().map(|o| o.name(&p.globals)).collect();
    let p_pos = positions(&pp, &names)?;
    let q_pos = positions(&qp, &names)?;
    let so = SmtOptions {
        timeout_ms: opts.timeout_ms,
        max_outcomes: opts.max_outcomes,
        memory: opts.memory.clone(),
        start: opts.start,
        ..SmtOptions::default()
    };
    let pe = Encoding::new(&pp, models, &so)?;
    let qe = Encoding::new(&qp, models, &so)?;
    let question = if refines {
        Question::Refines
    } else {
        Question::Equivalent
    };
    let side = |s: Side| match s {
        Side::P => (p, &pp, &pe, &p_pos),
        Side::Q => (q, &qp, &qe, &q_pos),
    };
    let mut results = Vec::new();
    for m in models {
        let mut notes = Vec::new();
        let mut sets = Vec::new();
        for s in [Side::P, Side::Q] {
            let (t, prog, enc, pos) = side(s);
            let set = outcome_set(enc, prog, m, opts.max_outcomes, pos, s, &mut notes);
            let ub = enc.undefined_behaviour(m);
            for (kind, answer) in &ub {
                if let crate::engine::smt::Answer::Unknown(why) = answer {
                    notes.push(format!(
                        "{s} ({}): could not decide whether {} is reachable under {} ({why})",
                        t.file,
                        kind.describe(),
                        m.name
                    ));
                }
            }
            if ub
                .iter()
                .any(|(_, a)| matches!(a, crate::engine::smt::Answer::Yes(_)))
            {
                notes.push(format!(
                    "{s} ({}) can reach undefined behaviour under {}: executions that do give no outcome and are not compared",
                    t.file, m.name
                ));
            }
            sets.push(set);
        }
        let (ps, qs) = (&sets[0], &sets[1]);
        let only_in_p: Vec<Vec<u32>> = ps.outcomes.difference(&qs.outcomes).cloned().collect();
        let only_in_q: Vec<Vec<u32>> = qs.outcomes.difference(&ps.outcomes).cloned().collect();
        let subset = |a: &Set, b: &Set, only_a: &[Vec<u32>]| {
            if a.why.is_none() && only_a.is_empty() {
                Some(true)
            } else if b.why.is_none() && !only_a.is_empty() {
                Some(false)
            } else {
                None
            }
        };
        let p_in_q = subset(ps, qs, &only_in_p);
        let q_in_p = subset(qs, ps, &only_in_q);
        let relation = match (p_in_q, q_in_p) {
            (Some(true), Some(true)) => Relation::Equivalent,
            (Some(true), Some(false)) => Relation::PInQ,
            (Some(false), Some(true)) => Relation::QInP,
            (Some(false), Some(false)) => Relation::Incomparable,
            _ => Relation::Unknown,
        };
        let unknown_why = || {
            let mut why = Vec::new();
            for (s, set) in [(Side::P, ps), (Side::Q, qs)] {
                if let Some(w) = &set.why {
                    why.push(format!("{s}'s outcomes may be incomplete: {w}"));
                }
            }
            why.join("; ")
        };
        let (holds, decisive) = match question {
            Question::Refines => match p_in_q {
                Some(true) => (Holds::Yes, None),
                Some(false) => (Holds::No, Some(Side::P)),
                None => (Holds::Unknown(unknown_why()), None),
            },
            Question::Equivalent => match (p_in_q, q_in_p) {
                (Some(false), _) => (Holds::No, Some(Side::P)),
                (_, Some(false)) => (Holds::No, Some(Side::Q)),
                (Some(true), Some(true)) => (Holds::Yes, None),
                _ => (Holds::Unknown(unknown_why()), None),
            },
        };
        let distinction = decisive.map(|s| {
            let only = if s == Side::P { &only_in_p } else { &only_in_q };
            let values = only[0].clone();
            let (t, prog, enc, pos) = side(s);
            // The program's own observable order.
            let mut own = vec![0; values.len()];
            for (k, &i) in pos.iter().enumerate() {
                own[i] = values[k];
            }
            let witness = match enc.reaches(m, &own) {
                Answer::Yes(steps) => Some(render_trace(t, prog, &steps)),
                Answer::No => {
                    notes.push(format!(
                        "internal: the solver found the outcome in {s} but no witness for it"
                    ));
                    None
                }
                Answer::Unknown(r) => {
                    notes.push(format!("no witness: the solver could not decide ({r})"));
                    None
                }
            };
            Counterexample {
                program: s,
                file: t.file.clone(),
                outcome: crate::syntax::print::outcome(&names, &values),
                values,
                witness,
            }
        });
        results.push(EquivResult {
            model: super::model_label(&m.name, opts.memory.as_deref()),
            question,
            holds,
            relation,
            p_in_q,
            q_in_p,
            p_outcomes: ps.outcomes.iter().cloned().collect(),
            q_outcomes: qs.outcomes.iter().cloned().collect(),
            p_complete: ps.why.is_none(),
            q_complete: qs.why.is_none(),
            only_in_p,
            only_in_q,
            distinction,
            notes,
        });
    }
    Ok(EquivReport {
        p_file: p.file.clone(),
        p_test: p.name.clone(),
        q_file: q.file.clone(),
        q_test: q.name.clone(),
        question,
        unroll: opts.unroll,
        observables: names,
        results,
    })
}

/// The outcomes of one program under one model, in the common order, and why the set may be
/// incomplete.
struct Set {
    outcomes: BTreeSet<Vec<u32>>,
    why: Option<String>,
}

fn outcome_set(
    enc: &Encoding,
    prog: &Program,
    m: &Model,
    max: usize,
    pos: &[usize],
    s: Side,
    notes: &mut Vec<String>,
) -> Set {
    let mut why = Vec::new();
    match enc.cut(m) {
        Answer::Yes(_) => why.push(format!(
            "an execution can be cut by the loop bound ({})",
            prog.bound_words()
        )),
        Answer::Unknown(r) => why.push(format!(
            "could not decide whether the loop bound cuts an execution ({r})"
        )),
        Answer::No => {}
    }
    let o = enc.outcomes(m, max);
    if let Some(w) = o.incomplete {
        why.push(format!("outcome enumeration {w}"));
    }
    if !why.is_empty() {
        notes.push(format!("{s}: {}", why.join("; ")));
    }
    Set {
        outcomes: o
            .outcomes
            .iter()
            .map(|v| pos.iter().map(|&i| v[i]).collect())
            .collect(),
        why: (!why.is_empty()).then(|| why.join("; ")),
    }
}

/// Every global cell (P's declaration order), then every register either condition names.
/// P and Q must have the same threads and the same globals (names and sizes).
fn compared_locations(p: &ast::Test, q: &ast::Test) -> Result<Vec<Operand>, EquivError> {
    if p.threads != q.threads {
        return Err(EquivError::Incompatible(format!(
            "P has {} threads and Q has {}: equivalence compares programs run by the same threads",
            p.threads, q.threads
        )));
    }
    let shape = |g: &ast::Global| match g.len {
        None => "a scalar".to_string(),
        Some(n) => format!("an array of {n} cells"),
    };
    for g in &p.globals {
        match q.globals.iter().find(|h| h.name == g.name) {
            None => {
                return Err(EquivError::Incompatible(format!(
                    "P declares the global `{}` (line {}) and Q does not: both must declare the same globals",
                    g.name, g.span.line
                )))
            }
            Some(h) if h.len != g.len => {
                return Err(EquivError::Incompatible(format!(
                    "the global `{}` is {} in P (line {}) but {} in Q (line {}): both must declare it with the same size",
                    g.name,
                    shape(g),
                    g.span.line,
                    shape(h),
                    h.span.line
                )))
            }
            Some(_) => {}
        }
    }
    if let Some(h) = q
        .globals
        .iter()
        .find(|h| !p.globals.iter().any(|g| g.name == h.name))
    {
        return Err(EquivError::Incompatible(format!(
            "Q declares the global `{}` (line {}) and P does not: both must declare the same globals",
            h.name, h.span.line
        )));
    }
    let mut out: Vec<Operand> = Vec::new();
    for g in &p.globals {
        for index in 0..g.cells() {
            out.push(Operand::Mem {
                global: g.name.clone(),
                index,
            });
        }
    }
    for t in [p, q] {
        let mut regs = Vec::new();
        prop_regs(&t.condition.prop, &mut regs);
        for r in regs {
            if !out.contains(&r) {
                out.push(r);
            }
        }
    }
    Ok(out)
}

/// The `T:r` operands of a proposition, left to right.
fn prop_regs(p: &Prop, out: &mut Vec<Operand>) {
    match p {
        Prop::True | Prop::False => {}
        Prop::Not(a) => prop_regs(a, out),
        Prop::And(a, b) | Prop::Or(a, b) => {
            prop_regs(a, out);
            prop_regs(b, out);
        }
        Prop::Cmp(_, a, b) => {
            for o in [a, b] {
                if matches!(o, Operand::Reg { .. }) {
                    out.push(o.clone());
                }
            }
        }
        Prop::Truthy(o) => {
            if matches!(o, Operand::Reg { .. }) {
                out.push(o.clone());
            }
        }
    }
}

/// For each compared name, the position of that observable in the program.
fn positions(prog: &Program, names: &[String]) -> Result<Vec<usize>, EquivError> {
    let own: Vec<String> = prog
        .observables
        .iter()
        .map(|o| prog.observable_name(o))
        .collect();
    let mut pos = Vec::new();
    for n in names {
        match own.iter().position(|x| x == n) {
            Some(i) => pos.push(i),
            None => {
                return Err(EquivError::Incompatible(format!(
                    "internal: `{n}` is not observed by the compiled program"
                )))
            }
        }
    }
    if own.len() != names.len() {
        return Err(EquivError::Incompatible(format!(
            "internal: the compiled program observes {own:?}, expected {names:?}"
        )));
    }
    Ok(pos)
}
