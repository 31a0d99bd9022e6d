//! One verdict builder for both engines. Each engine states what it found about a test under
//! a model as [`Findings`], in the semantics' terms (is the condition reachable, with which
//! trace; what keeps a "no" from being a proof; which executions are cut, undefined or
//! flagged); [`conclude`] turns findings into an [`Analysis`] by one set of rules.

use super::{render_trace, Analysis, Options, OutcomeRow, UbReport, Verdict};
use crate::engine::explore::{Exploration, Witness};
use crate::engine::smt::{Answer, Encoding};
use crate::engine::trace::{Effect, Step};
use crate::eval::UbKind;
use crate::ir::{self, Program};
use crate::memory::{Execution, MemoryReport};
use crate::model::Model;
use crate::syntax::ast::{self, Quantifier};

/// Is the condition's outcome reachable?
pub(super) enum Reach {
    /// Yes: a trace reaching it (and, under a memory model, its execution).
    Witness(Vec<Step>, Option<Execution>),
    /// Not by any execution the engine saw; a proof only without [`Findings::doubts`].
    Unreachable,
    /// The engine could not tell.
    Unknown(String),
}

/// What an engine found about one test under one model.
pub(super) struct Findings {
    pub reach: Reach,
    /// For `forall P`: is an outcome breaking P reachable? (herd's Ok/No for the condition,
    /// without listing every outcome.) `None` for the other quantifiers.
    pub counter: Option<Reach>,
    /// Why "unreachable" is no proof: the loop bound cut an execution (or may have), a limit
    /// stopped the search, values were sampled.
    pub doubts: Vec<String>,
    /// Why the outcome list may miss outcomes although the verdict stands.
    pub partial: Vec<String>,
    /// A trace cut by the loop bound.
    pub cut: Option<Vec<Step>>,
    /// The reachable outcomes, when the engine listed them.
    pub outcomes: Option<Vec<Vec<u32>>>,
    /// Outcomes with a free value (Z3, when asked).
    pub families: Vec<crate::engine::smt::Family>,
    pub ub: Vec<(UbKind, Vec<Step>)>,
    /// A memory model's flags raised, with a trace each.
    pub flags: Vec<(String, Vec<Step>)>,
    pub notes: Vec<String>,
    pub states: usize,
}

/// Fills `a` from `f`: the verdict, its witness, the outcome list and what is incomplete.
pub(super) fn conclude(
    a: &mut Analysis,
    test: &ast::Test,
    prog: &Program,
    f: Findings,
    opts: &Options,
) {
    let render = |steps: &[Step]| render_trace(test, prog, steps);
    a.states = f.states;
    a.notes.extend(f.notes);
    if prog.has_idle_cuts() {
        a.notes.push(format!(
            "the loop bound (--unroll {}) may cut spin loops whose iterations write nothing and change no live register: a run cut there finishes, if ever, as one within the bound, so no outcome is missing (docs/progress.md)",
            prog.unroll
        ));
    }
    if prog.has_partly_idle_cuts() {
        a.notes.push(format!(
            "the loop bound (--unroll {}; loops idle on some paths go deeper only while needed) may cut loops some of whose iterations write nothing and change no live register: a run cut there after such an iteration finishes, if ever, with the outcome of a shorter run, so only runs cut with no idle iteration (fewer than two when flags are asked) are a doubt (docs/progress.md, \"Idle iterations\")",
            prog.unroll
        ));
    }
    a.bound_hit = f.cut.as_deref().map(render);
    a.runs_cut = a.bound_hit.is_some() || prog.has_idle_cuts() || prog.has_partly_idle_cuts();
    for (kind, steps) in &f.ub {
        a.undefined_behaviour.push(UbReport {
            kind: *kind,
            description: kind.describe().to_string(),
            witness: render(steps),
        });
    }
    for (name, steps) in &f.flags {
        a.undefined_behaviour.push(UbReport {
            kind: UbKind::MemoryModelFlag,
            description: format!("{}: {name}", UbKind::MemoryModelFlag.describe()),
            witness: render(steps),
        });
    }
    let proof = f.doubts.is_empty();
    // Every run was judged for undefined behaviour (and flags): the doubts are what hides
    // runs (a cut, a budget or state limit, an unspecified value tried on a few values); what
    // Z3 left undecided is listed apart.
    // A run cut in an idle loop is dropped with no doubt (its outcome and any undefined
    // behaviour that ends it are found within the bound), but a flag raised in an iteration
    // that went round is found only when the loop was unrolled one iteration deeper.
    a.flags_judged = opts.memory_has_flags();
    // So it is for a partly idle loop's cut: two idle iterations are needed there.
    let flags_in_idle_loops = a.flags_judged
        && ((prog.has_idle_cuts() && !prog.idle_cuts_hide_no_flag())
            || (prog.has_partly_idle_cuts() && prog.idle_rounds() < 2));
    a.undefined_behaviour_complete =
        proof && a.undefined_behaviour_undecided.is_empty() && !flags_in_idle_loops;
    let reasons: Vec<String> = f.doubts.into_iter().chain(f.partial).collect();
    a.outcomes_listed = f.outcomes.is_some();
    a.outcomes = f
        .families
        .into_iter()
        .map(|fam| {
            let (some, all) = family_satisfies(prog, &fam);
            OutcomeRow {
                satisfies: some,
                satisfies_all: all,
                values: fam.values,
                free: fam.free,
            }
        })
        .chain(f.outcomes.unwrap_or_default().into_iter().map(|v| {
            let sat = prog.prop.eval(&v);
            OutcomeRow {
                satisfies: sat,
                satisfies_all: sat,
                values: v,
                free: Vec::new(),
            }
        }))
        .collect();
    a.outcomes_complete = a.outcomes_listed && reasons.is_empty();
    if a.outcomes_listed && !reasons.is_empty() {
        a.outcomes_incomplete = Some(reasons.join("; "));
    }
    if opts.memory.is_some() {
        a.memory = Some(MemoryReport::default());
    }
    a.verdict = match f.reach {
        Reach::Witness(steps, execution) => {
            a.witness = Some(render(&steps));
            a.witness_differs = witness_differs(prog, &steps);
            if let Some(m) = &mut a.memory {
                m.execution = execution;
            }
            Verdict::Allowed
        }
        Reach::Unreachable if proof => Verdict::Forbidden,
        Reach::Unreachable => Verdict::Unknown(reasons.join("; ")),
        Reach::Unknown(why) => Verdict::Unknown(why),
    };
    a.condition_holds = condition_holds(a, f.counter.as_ref(), proof);
    // A caller that asked only for the verdict (`check`) gets only the verdict, whichever
    // engine listed outcomes on its way.
    if !opts.want_outcomes {
        a.outcomes.clear();
        a.outcomes_listed = false;
        a.outcomes_complete = false;
        a.outcomes_incomplete = None;
    }
}

/// What the Z3 encoding says about `m`.
pub(super) fn from_smt(
    a: &mut Analysis,
    test: &ast::Test,
    prog: &Program,
    enc: &Encoding,
    m: &Model,
    opts: &Options,
) {
    // The verdict's own questions first (is P reachable, can the bound cut a run), then
    // what only describes the answer (flags, undefined behaviour, outcomes): a budget that
    // runs out in a description costs the description, not the verdict.
    let reached = |answer: Answer<crate::engine::smt::Run>| match answer {
        Answer::Yes((steps, execution)) => Reach::Witness(steps, execution),
        Answer::No => Reach::Unreachable,
        Answer::Unknown(r) => Reach::Unknown(format!("the solver could not decide: {r}")),
    };
    let reach = reached(enc.allowed_execution(m));
    let counter =
        (test.condition.quantifier == Quantifier::Forall).then(|| reached(enc.counterexample(m)));
    let mut doubts = Vec::new();
    let mut partial = Vec::new();
    let cut = match enc.cut(m) {
        Answer::Yes(steps) => {
            doubts.push(format!(
                "an execution can be cut by the loop bound ({})",
                prog.bound_words()
            ));
            Some(steps)
        }
        Answer::Unknown(r) => {
            doubts.push(format!(
                "could not decide whether the loop bound cuts an execution ({r})"
            ));
            None
        }
        Answer::No => None,
    };
    let mut flags = Vec::new();
    for (name, answer) in enc.flags(m) {
        match answer {
            Answer::Yes(steps) => flags.push((name, steps)),
            Answer::No => {}
            // A flag is undefined behaviour the model names (`data-race`): undecided, it is
            // said so as undecided undefined behaviour is.
            Answer::Unknown(r) => {
                let why = format!("could not decide the memory model's flag `{name}` ({r})");
                a.undefined_behaviour_undecided.push(why.clone());
                a.notes.push(why.clone());
                partial.push(why);
            }
        }
    }
    let mut ub = Vec::new();
    for (kind, answer) in enc.undefined_behaviour(m) {
        match answer {
            Answer::Yes(steps) => ub.push((kind, steps)),
            Answer::No => {}
            Answer::Unknown(r) => {
                let why = format!(
                    "could not decide whether {} is reachable ({r})",
                    kind.describe()
                );
                a.undefined_behaviour_undecided.push(why.clone());
                a.notes.push(why.clone());
                partial.push(why);
            }
        }
    }
    let mut families = Vec::new();
    let outcomes = opts.want_outcomes.then(|| {
        let o = if opts.free_values {
            enc.outcomes_with_families(m, opts.max_outcomes)
        } else {
            enc.outcomes(m, opts.max_outcomes)
        };
        if let Some(why) = o.incomplete {
            partial.push(format!("outcome enumeration {why}"));
        }
        families = o.families;
        o.outcomes
    });
    let findings = Findings {
        reach,
        counter,
        doubts,
        partial,
        cut,
        outcomes,
        families,
        ub,
        flags,
        notes: Vec::new(),
        states: 0,
    };
    conclude(a, test, prog, findings, opts);
    if a.verdict == Verdict::Forbidden && opts.memory.is_some() {
        a.memory = Some(enc.forbidding_axioms(m));
    }
}

/// What the explorer's state space says. `past`: when the loop bound cut `ex`'s runs, an
/// exploration of the graph of places that shows what lies past the bound (its outcomes are
/// complete), which then gives the answer.
pub(super) fn from_exploration(
    a: &mut Analysis,
    test: &ast::Test,
    prog: &Program,
    ex: &Exploration,
    past: Option<&Exploration>,
    opts: &Options,
) {
    let mut doubts = Vec::new();
    let mut notes = Vec::new();
    let cut = (ex.cut.as_ref().map(|c| ex.trace_of(c)))
        .or_else(|| past.and_then(|p| p.cut.as_ref().map(|c| p.trace_of(c))));
    // The search of the unrolled program stopped at its limit before any cut (the places
    // then decide): whether a run goes round a loop for ever is still the hang question's.
    let unseen_cut = past.is_some() && cut.is_none();
    if unseen_cut {
        notes.push(
            "the search of the unrolled program reached its state limit, but the graph of places (states up to loop iterations) closed up within it: no outcome is missing; a run that repeats forever is a hang (`tangle liveness`)".to_string(),
        );
    } else if past.is_some() {
        notes.push(format!(
            "the loop bound (--unroll {}) cut runs, but past it they only repeat states already explored (up to loop iterations): no outcome is missing; a run that repeats forever is a hang (`tangle liveness`)",
            prog.unroll
        ));
    } else if cut.is_some() {
        doubts.push(format!(
            "an execution was cut by the loop bound ({})",
            prog.bound_words()
        ));
    }
    let ex = past.unwrap_or(ex);
    if ex.limit_hit {
        doubts.push(
            ex.stopped
                .clone()
                .unwrap_or_else(|| format!("the state limit ({} states) was reached", ex.states)),
        );
    }
    if ex.unspecified_read.is_some() {
        doubts.push(format!(
            "a subgroup op read an unspecified value (a lane that does not participate or is out of range); the explorer tried only the values {:?}",
            ex.unspecified_domain
        ));
        notes.push(
            "unspecified value read: a shuffle/broadcast named a lane that does not participate or is out of range (any value may result)".into(),
        );
    }
    if let Some(st) = ex.stuck {
        notes.push(format!(
            "a reachable state cannot progress though some thread has not terminated (deadlock); trace: {} steps",
            ex.trace_to(st).len()
        ));
    }
    // An outcome where P evaluates to `holds`, with its trace.
    let reached = |holds: bool| match ex.outcomes.iter().find(|(v, _)| prog.prop.eval(v) == holds) {
        Some((values, _)) => Reach::Witness(
            ex.witness(&Witness::Outcome(values.clone()))
                .expect("an outcome's witness"),
            ex.executions.get(values).cloned(),
        ),
        None => Reach::Unreachable,
    };
    let reach = reached(true);
    let counter = (test.condition.quantifier == Quantifier::Forall).then(|| reached(false));
    let findings = Findings {
        reach,
        counter,
        doubts,
        partial: Vec::new(),
        cut,
        outcomes: Some(ex.outcomes.keys().cloned().collect()),
        families: Vec::new(),
        ub: ex.ub.iter().map(|(k, d)| (*k, ex.trace_of(d))).collect(),
        flags: ex
            .flags
            .keys()
            .map(|name| {
                let w = Witness::Flag(name.clone());
                (name.clone(), ex.witness(&w).expect("a flag's witness"))
            })
            .collect(),
        notes,
        states: ex.states,
    };
    conclude(a, test, prog, findings, opts);
    a.runs_cut |= unseen_cut;
    // A deadlocked run never finishes, so the memory model never judged its flags.
    if ex.stuck.is_some() && opts.memory.is_some() {
        a.undefined_behaviour_complete = false;
    }
    if let (Verdict::Forbidden, Some(m)) = (&a.verdict, &mut a.memory) {
        let (reasons, cut) = ex.forbidden_reasons(prog, &opts.budget());
        m.forbidden_by = reasons.into_iter().collect();
        m.forbidden_by_partial = cut;
    }
}

/// Do some, and do all, members of the family satisfy the proposition? Each comparison's
/// truth, as a function of a free value, changes only next to a literal of the proposition or
/// another observable's value c, so each free value at every c - 1, c, c + 1, 0 and the
/// largest value (every combination, for several) decides both.
fn family_satisfies(prog: &Program, fam: &crate::engine::smt::Family) -> (bool, bool) {
    let mut cands: Vec<u32> = vec![0, u32::MAX];
    for c in prog
        .prop
        .literals()
        .into_iter()
        .chain(fam.values.iter().copied())
    {
        cands.extend([c.wrapping_sub(1), c, c.wrapping_add(1)]);
    }
    cands.sort_unstable();
    cands.dedup();
    let (mut some, mut all) = (false, true);
    // Every combination: an odometer over the groups' candidate values.
    let mut pick = vec![0usize; fam.free.len()];
    loop {
        let mut vals = fam.values.clone();
        for (g, &k) in fam.free.iter().zip(&pick) {
            for &i in g {
                vals[i] = cands[k];
            }
        }
        let sat = prog.prop.eval(&vals);
        some |= sat;
        all &= sat;
        let Some(d) = pick.iter().position(|&k| k + 1 < cands.len()) else {
            break;
        };
        pick[d] += 1;
        for k in &mut pick[..d] {
            *k = 0;
        }
    }
    (some, all)
}

/// The memory comparisons `cell != value` of the condition (read through its disjunctions)
/// that the witness's final memory makes true, in words; at most 32, then a count.
fn witness_differs(prog: &Program, steps: &[Step]) -> Vec<String> {
    use crate::ir::{Observable, PropTerm};
    let mut mem: Vec<u32> = prog
        .globals
        .iter()
        .flat_map(|g| g.init.iter().copied())
        .collect();
    for st in steps {
        for e in &st.effects {
            match e {
                Effect::Write { cell, value, .. } => mem[*cell as usize] = *value,
                Effect::Rmw {
                    cell,
                    new: Some(new),
                    ..
                } => mem[*cell as usize] = *new,
                _ => {}
            }
        }
    }
    let word = |v: u32| {
        if v < 10 {
            v.to_string()
        } else {
            format!("{v:#x}")
        }
    };
    let mut out = Vec::new();
    let mut more = 0;
    let mut stack = vec![&prog.prop];
    while let Some(p) = stack.pop() {
        match p {
            ir::Prop::Or(a, b) => {
                stack.push(b);
                stack.push(a);
            }
            ir::Prop::Cmp(crate::vocab::BinOp::Ne, x, y) => {
                let ((PropTerm::Obs(i), PropTerm::Lit(e)) | (PropTerm::Lit(e), PropTerm::Obs(i))) =
                    (x, y)
                else {
                    continue;
                };
                let o = &prog.observables[*i];
                let Observable::Mem { cell } = o else {
                    continue;
                };
                let v = mem[*cell as usize];
                if v != *e {
                    if out.len() < 32 {
                        out.push(format!(
                            "{} = {} (expected {})",
                            prog.observable_name(o),
                            word(v),
                            word(*e)
                        ));
                    } else {
                        more += 1;
                    }
                }
            }
            _ => {}
        }
    }
    if more > 0 {
        out.push(format!("... and {more} more"));
    }
    out
}

/// herd's Ok/No for the condition, from the verdict's own query: `exists P` holds when P is
/// reachable, `~exists P` when it is not. `forall P` asks whether every outcome satisfies P,
/// which the verdict (is P reachable?) does not answer: it holds when no outcome breaking P
/// is reachable (`counter`, a proof only without doubts), or, from a complete outcome list,
/// when every outcome satisfies P.
fn condition_holds(a: &Analysis, counter: Option<&Reach>, proof: bool) -> Option<bool> {
    if a.quantifier == Quantifier::Forall {
        if a.outcomes_listed && a.outcomes_complete {
            return Some(a.outcomes.iter().all(|o| o.satisfies_all));
        }
        return match counter? {
            Reach::Witness(..) => Some(false),
            Reach::Unreachable if proof => Some(true),
            Reach::Unreachable | Reach::Unknown(_) => None,
        };
    }
    let reachable = match a.verdict {
        Verdict::Allowed => true,
        Verdict::Forbidden => false,
        Verdict::Unknown(_) => return None,
    };
    Some(match a.quantifier {
        Quantifier::NotExists => !reachable,
        _ => reachable,
    })
}
