//! Test minimization (docs/semantics.md §8 "minimize"): shrink a test while it stays
//! distinguishing (model B allows the condition's outcome, model A forbids it) until no single
//! reduction keeps it distinguishing (1-minimal).
//!
//! Reductions work on the AST (docs/decisions.md, "Test minimization"): drop a lane of every
//! subgroup, a subgroup of every workgroup or a workgroup; remove one statement anywhere;
//! replace an `if` by one of its arms or drop one arm; replace a loop by its body; keep one
//! side of a `&&`/`||` of the condition; remove a global; replace a literal of the kernel or
//! an initial value by 0 or 1. A candidate is printed and re-parsed, so only tests the front
//! end accepts are tried (a removed assignment whose register is still read is refused
//! there). It is kept when the Z3 engine says B allows and A forbids (unknown is not
//! distinguishing) and it reaches no undefined behaviour the original did not. The search is
//! greedy: the first reduction that is kept restarts the list, and the search ends when a
//! whole list is tried without keeping one: then the test is 1-minimal by construction.

use super::search::{analyse_combinations, Combination};
use super::{compile_for, Engine, Options, Verdict};
use crate::syntax::ast::{Condition, Expectation, Expr, ExprKind, Prop, Stmt, StmtKind, Test};
use crate::syntax::print::{condition, expr_to_string, stmt_to_string, to_litmus};
use crate::syntax::Span;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// One candidate: a test one reduction away from the current one.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// What was reduced, e.g. "remove `r = x;`".
    pub description: String,
    pub test: Test,
}

/// What the search reports as it goes.
#[derive(Clone, Debug)]
pub struct Event<'a> {
    /// Candidates checked with the solver so far (repeats are answered from a cache).
    pub tried: usize,
    /// Reductions kept so far.
    pub kept: usize,
    pub description: &'a str,
    /// Was this candidate kept?
    pub accepted: bool,
}

/// The result of a minimization (also the JSON form of `tangle minimize --format json`).
#[derive(Clone, Debug, Serialize)]
pub struct Minimized {
    /// The input test's file, as given.
    pub file: String,
    /// The model that allows the condition (B).
    pub allowed_by: String,
    /// The model that forbids it (A).
    pub forbidden_by: String,
    pub threads_before: u32,
    pub threads_after: u32,
    pub statements_before: usize,
    pub statements_after: usize,
    /// Candidates checked with the solver.
    pub tried: usize,
    /// The reductions kept, in order.
    pub steps: Vec<String>,
    /// Wall-clock time of the whole minimization, the first check included.
    pub seconds: f64,
    /// The 1-minimal test: named `NAME_min`, with an `expect` line for the two models.
    #[serde(skip)]
    pub test: Test,
    /// Its `.litmus` text (with a comment saying where it came from). Last, so the JSON form
    /// reads as a summary followed by the test; named `litmus` there, as in `distinguish`.
    #[serde(rename = "litmus")]
    pub text: String,
}

/// Why minimization could not start.
#[derive(Debug, thiserror::Error)]
pub enum MinimizeError {
    #[error("the test does not distinguish the models: {0}")]
    NotDistinguishing(String),
    #[error("{0}")]
    Query(#[from] super::QueryError),
}

/// Shrinks `test` while `allowed_by` allows its condition and `forbidden_by` forbids it, to a
/// 1-minimal test. `progress` hears about every candidate checked with the solver.
pub fn minimize(
    test: &Test,
    allowed_by: &Combination,
    forbidden_by: &Combination,
    opts: &Options,
    progress: &mut dyn FnMut(&Event),
) -> Result<Minimized, MinimizeError> {
    let start = Instant::now();
    let opts = opts.clone().with_engine(Engine::Smt).with_outcomes(false);
    let models = [forbidden_by.clone(), allowed_by.clone()];
    let prog = compile_for(test, &opts.clone().started())?;
    let first = analyse_combinations(test, &prog, &models, &opts);
    let (a, b) = (&first[0], &first[1]);
    if a.verdict != Verdict::Forbidden || b.verdict != Verdict::Allowed {
        let say = |x: &super::Analysis| match &x.verdict {
            Verdict::Unknown(why) => format!("{} says unknown ({why})", x.model),
            v => format!("{} says {}", x.model, v.word()),
        };
        return Err(MinimizeError::NotDistinguishing(format!(
            "it needs {} to allow and {} to forbid the condition, but {} and {}",
            b.model,
            a.model,
            say(b),
            say(a)
        )));
    }
    let ub_allowed = !a.undefined_behaviour.is_empty() || !b.undefined_behaviour.is_empty();
    let mut current = test.clone();
    current.expect.clear();
    let mut cache: HashMap<String, bool> = HashMap::new();
    let mut tried = 0;
    let mut steps: Vec<String> = Vec::new();
    'search: loop {
        for r in reductions(&current) {
            let text = to_litmus(&r.test);
            let ok = match cache.get(&text) {
                Some(&ok) => ok,
                None => {
                    let ok = match crate::syntax::parse("candidate.litmus", text.as_bytes()) {
                        Ok(t) => {
                            tried += 1;
                            let ok = check(&t, &models, &opts, ub_allowed);
                            progress(&Event {
                                tried,
                                kept: steps.len() + usize::from(ok),
                                description: &r.description,
                                accepted: ok,
                            });
                            ok
                        }
                        Err(_) => false,
                    };
                    cache.insert(text.clone(), ok);
                    ok
                }
            };
            if ok {
                if let Ok(t) = crate::syntax::parse("candidate.litmus", text.as_bytes()) {
                    current = t;
                    steps.push(r.description);
                    continue 'search;
                }
            }
        }
        break;
    }
    let mut out = current;
    out.name = format!("{}_min", test.name);
    let (an, fname) = (allowed_by.name(), forbidden_by.name());
    out.description = Some(format!(
        "{an} allows the condition, {fname} forbids it (1-minimal)"
    ));
    // `expect` names execution models under SC; a side with a memory model is said in the
    // header comment only.
    out.expect = [(forbidden_by, false), (allowed_by, true)]
        .into_iter()
        .filter(|(c, _)| c.memory.is_none())
        .map(|(c, allow)| Expectation {
            model: Some(c.model.name.clone()),
            allow,
            span: Span::default(),
        })
        .collect();
    let text = format!(
        "// Minimized from {} (test {}) by `tangle minimize --allowed-by {} --forbidden-by {}`:\n\
         // no single reduction (a thread, a statement, a branch, a condition conjunct, a constant)\n\
         // keeps {} allowing and {} forbidding the condition.\n{}",
        test.file,
        test.name,
        an,
        fname,
        an,
        fname,
        to_litmus(&out)
    );
    Ok(Minimized {
        file: test.file.clone(),
        allowed_by: an,
        forbidden_by: fname,
        threads_before: test.threads,
        threads_after: out.threads,
        statements_before: statements(&test.kernel),
        statements_after: statements(&out.kernel),
        test: out,
        text,
        tried,
        steps,
        seconds: (start.elapsed().as_secs_f64() * 1e3).round() / 1e3,
    })
}

/// Does `forbidden_by` (models[0]) forbid and `allowed_by` (models[1]) allow the condition,
/// without undefined behaviour unless `ub_allowed`?
fn check(t: &Test, models: &[Combination; 2], opts: &Options, ub_allowed: bool) -> bool {
    let opts = &opts.clone().started();
    let Ok(prog) = compile_for(t, opts) else {
        return false;
    };
    let an = analyse_combinations(t, &prog, models, opts);
    an[0].verdict == Verdict::Forbidden
        && an[1].verdict == Verdict::Allowed
        && (ub_allowed
            || an.iter().all(|a| {
                a.undefined_behaviour.is_empty() && a.undefined_behaviour_undecided.is_empty()
            }))
}

/// Is `test` distinguishing: does `allowed_by` allow its condition and `forbidden_by` forbid
/// it (Z3 engine; unknown is not distinguishing)?
pub fn distinguishes(
    test: &Test,
    allowed_by: &Combination,
    forbidden_by: &Combination,
    opts: &Options,
) -> bool {
    let opts = opts.clone().with_engine(Engine::Smt).with_outcomes(false);
    check(
        test,
        &[forbidden_by.clone(), allowed_by.clone()],
        &opts,
        true,
    )
}

/// Statements in a body, nested ones included.
pub fn statements(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| {
            1 + match &s.kind {
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => statements(then_body) + statements(else_body),
                StmtKind::While { body, .. }
                | StmtKind::Loop { body, .. }
                | StmtKind::For { body, .. } => statements(body),
                _ => 0,
            }
        })
        .sum()
}

/// Every test one reduction away from `t`, largest reductions first: threads, statements,
/// branches and loops, the condition, globals, constants. Candidates may not parse (the
/// caller re-parses their text).
pub fn reductions(t: &Test) -> Vec<Reduction> {
    let mut out = Vec::new();
    geometry(t, &mut out);
    for phase in [Phase::Remove, Phase::Restructure] {
        let mut v = Vec::new();
        body_variants(&t.kernel, phase, &mut v);
        out.extend(v.into_iter().map(|(description, kernel)| Reduction {
            description,
            test: Test {
                kernel,
                ..t.clone()
            },
        }));
    }
    if t.filter.is_some() {
        out.push(Reduction {
            description: "drop the filter".to_string(),
            test: Test {
                filter: None,
                ..t.clone()
            },
        });
    }
    for p in prop_variants(&t.condition.prop) {
        let c = Condition {
            prop: p,
            ..t.condition.clone()
        };
        out.push(Reduction {
            description: format!("condition becomes `{}`", condition(&c, &t.globals)),
            test: Test {
                condition: c,
                ..t.clone()
            },
        });
    }
    for (i, g) in t.globals.iter().enumerate() {
        let mut globals = t.globals.clone();
        globals.remove(i);
        out.push(Reduction {
            description: format!("remove the global `{}`", g.name),
            test: Test {
                globals,
                ..t.clone()
            },
        });
    }
    for (i, g) in t.globals.iter().enumerate() {
        if let Some(n) = g.len.filter(|&n| n > 1) {
            let mut globals = t.globals.clone();
            globals[i].len = Some(n - 1);
            globals[i].init.truncate(n as usize - 1);
            // The condition may name the dropped cell: then the candidate does not parse.
            out.push(Reduction {
                description: format!("shrink `{}` to {} cells", g.name, n - 1),
                test: Test {
                    globals,
                    ..t.clone()
                },
            });
        }
    }
    for (i, g) in t.globals.iter().enumerate() {
        for (k, &v) in g.init.iter().enumerate() {
            for new in simpler(v) {
                let mut globals = t.globals.clone();
                globals[i].init[k] = new;
                out.push(Reduction {
                    description: format!("initial value of `{}` cell {k}: {v} -> {new}", g.name),
                    test: Test {
                        globals,
                        ..t.clone()
                    },
                });
            }
        }
    }
    let mut v = Vec::new();
    body_variants(&t.kernel, Phase::Constants, &mut v);
    out.extend(v.into_iter().map(|(description, kernel)| Reduction {
        description,
        test: Test {
            kernel,
            ..t.clone()
        },
    }));
    out
}

/// Simpler literals than `v`: 0, and 1 when v > 1.
fn simpler(v: u32) -> Vec<u32> {
    match v {
        0 => vec![],
        1 => vec![0],
        _ => vec![0, 1],
    }
}

/// Where a thread goes when the geometry shrinks (`None`: it is dropped).
type ThreadMap = Box<dyn Fn(u32) -> Option<u32>>;

/// Fewer threads, keeping the shape: one lane less in every subgroup (workgroups keep their
/// number of subgroups), one subgroup less in every workgroup, or one workgroup less. Threads
/// are renumbered; a condition naming a dropped thread rules the candidate out.
fn geometry(t: &Test, out: &mut Vec<Reduction>) {
    let (n, s, w) = (t.threads, t.subgroup, t.workgroup);
    let mut shapes: Vec<(String, u32, u32, u32, ThreadMap)> = Vec::new();
    if w % s != 0 && w > 1 {
        // A partial last subgroup: shrink it (or each workgroup) by its last thread.
        let w2 = w - 1;
        shapes.push((
            format!(
                "drop the last thread of every workgroup ({n} -> {} threads)",
                n / w * w2
            ),
            n / w * w2,
            s,
            w2,
            Box::new(move |x| (x % w < w2).then_some(x / w * w2 + x % w)),
        ));
    }
    if s > 1 && w % s == 0 {
        let s2 = s - 1;
        shapes.push((
            format!(
                "drop the last lane of every subgroup ({n} -> {} threads)",
                n / s * s2
            ),
            n / s * s2,
            s2,
            w / s * s2,
            Box::new(move |x| (x % s < s2).then_some(x / s * s2 + x % s)),
        ));
    }
    if w > s && w % s == 0 {
        let w2 = w - s;
        shapes.push((
            format!(
                "drop the last subgroup of every workgroup ({n} -> {} threads)",
                n / w * w2
            ),
            n / w * w2,
            s,
            w2,
            Box::new(move |x| (x % w < w2).then_some(x / w * w2 + x % w)),
        ));
    }
    if n > w {
        let n2 = n - w;
        shapes.push((
            format!("drop the last workgroup ({n} -> {n2} threads)"),
            n2,
            s,
            w,
            Box::new(move |x| (x < n2).then_some(x)),
        ));
    }
    for (description, threads, subgroup, workgroup, map) in shapes {
        let Some(prop) = remap(&t.condition.prop, &*map) else {
            continue;
        };
        // The filter names threads too: renumbered the same way, or the shape is not tried.
        let filter = match &t.filter {
            Some(f) => match remap(f, &*map) {
                Some(f) => Some(f),
                None => continue,
            },
            None => None,
        };
        out.push(Reduction {
            description,
            test: Test {
                threads,
                subgroup,
                workgroup,
                filter,
                condition: Condition {
                    prop,
                    ..t.condition.clone()
                },
                ..t.clone()
            },
        });
    }
}

/// The proposition with every `T:r` renumbered, or `None` if it names a dropped thread.
fn remap(p: &Prop, map: &dyn Fn(u32) -> Option<u32>) -> Option<Prop> {
    use crate::syntax::ast::Operand;
    let op = |o: &Operand| -> Option<Operand> {
        match o {
            Operand::Reg { thread, reg } => Some(Operand::Reg {
                thread: map(*thread)?,
                reg: reg.clone(),
            }),
            other => Some(other.clone()),
        }
    };
    Some(match p {
        Prop::True | Prop::False => p.clone(),
        Prop::Not(a) => Prop::Not(Box::new(remap(a, map)?)),
        Prop::And(a, b) => Prop::And(Box::new(remap(a, map)?), Box::new(remap(b, map)?)),
        Prop::Or(a, b) => Prop::Or(Box::new(remap(a, map)?), Box::new(remap(b, map)?)),
        Prop::Cmp(o, a, b) => Prop::Cmp(*o, op(a)?, op(b)?),
        Prop::Truthy(a) => Prop::Truthy(op(a)?),
    })
}

/// Keep one side of a `&&` or `||`, anywhere in the proposition.
fn prop_variants(p: &Prop) -> Vec<Prop> {
    let mut out = Vec::new();
    match p {
        Prop::And(a, b) | Prop::Or(a, b) => {
            out.push((**a).clone());
            out.push((**b).clone());
            let rebuild = |x: Prop, y: Prop| match p {
                Prop::And(..) => Prop::And(Box::new(x), Box::new(y)),
                _ => Prop::Or(Box::new(x), Box::new(y)),
            };
            for a2 in prop_variants(a) {
                out.push(rebuild(a2, (**b).clone()));
            }
            for b2 in prop_variants(b) {
                out.push(rebuild((**a).clone(), b2));
            }
        }
        Prop::Not(a) => out.extend(prop_variants(a).into_iter().map(|x| Prop::Not(Box::new(x)))),
        _ => {}
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Remove one statement.
    Remove,
    /// Replace an `if` by an arm, drop an arm, replace a loop by its body.
    Restructure,
    /// Replace a literal by 0 or 1.
    Constants,
}

/// `if (...) {…}`: the first line of a statement, for descriptions.
fn short(s: &Stmt) -> String {
    let text = stmt_to_string(s);
    match text.split_once('\n') {
        Some((first, _)) => format!("`{} …}}`", first.trim_end_matches(['{', ' '])),
        None => format!("`{text}`"),
    }
}

/// Every variant of `stmts` with one reduction of `phase`, anywhere inside.
fn body_variants(stmts: &[Stmt], phase: Phase, out: &mut Vec<(String, Vec<Stmt>)>) {
    for (i, s) in stmts.iter().enumerate() {
        let splice = |with: Vec<Stmt>| -> Vec<Stmt> {
            let mut v = stmts[..i].to_vec();
            v.extend(with);
            v.extend_from_slice(&stmts[i + 1..]);
            v
        };
        match phase {
            Phase::Remove => out.push((format!("remove {}", short(s)), splice(Vec::new()))),
            Phase::Restructure => match &s.kind {
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    out.push((
                        format!("replace {} by its then-arm", short(s)),
                        splice(then_body.clone()),
                    ));
                    if !else_body.is_empty() {
                        out.push((
                            format!("replace {} by its else-arm", short(s)),
                            splice(else_body.clone()),
                        ));
                        out.push((
                            format!("drop the else-arm of {}", short(s)),
                            splice(vec![Stmt {
                                kind: StmtKind::If {
                                    cond: cond.clone(),
                                    then_body: then_body.clone(),
                                    else_body: Vec::new(),
                                },
                                span: s.span,
                                tags: Vec::new(),
                            }]),
                        ));
                        if !then_body.is_empty() {
                            out.push((
                                format!("empty the then-arm of {}", short(s)),
                                splice(vec![Stmt {
                                    kind: StmtKind::If {
                                        cond: cond.clone(),
                                        then_body: Vec::new(),
                                        else_body: else_body.clone(),
                                    },
                                    span: s.span,
                                    tags: Vec::new(),
                                }]),
                            ));
                        }
                    }
                }
                StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => out.push((
                    format!("replace {} by one run of its body", short(s)),
                    splice(straight(body)),
                )),
                StmtKind::For { init, body, .. } => {
                    let mut v: Vec<Stmt> = init.iter().map(|b| (**b).clone()).collect();
                    v.extend(straight(body));
                    out.push((
                        format!(
                            "replace {} by its initialisation and one run of its body",
                            short(s)
                        ),
                        splice(v),
                    ));
                }
                _ => {}
            },
            Phase::Constants => {
                let n = own_exprs_mut(&mut s.clone()).len();
                for k in 0..n {
                    let mut probe = s.clone();
                    let variants = expr_variants(own_exprs_mut(&mut probe)[k]);
                    for (d, e) in variants {
                        let mut c = s.clone();
                        *own_exprs_mut(&mut c)[k] = e;
                        out.push((format!("in {}, {d}", short(s)), splice(vec![c])));
                    }
                }
            }
        }
        // Reductions inside the statement's bodies.
        let arms: Vec<&Vec<Stmt>> = match &s.kind {
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            StmtKind::While { body, .. }
            | StmtKind::Loop { body, .. }
            | StmtKind::For { body, .. } => {
                vec![body]
            }
            _ => vec![],
        };
        for (arm, body) in arms.into_iter().enumerate() {
            let mut inner = Vec::new();
            body_variants(body, phase, &mut inner);
            for (d, nb) in inner {
                let mut c = s.clone();
                match &mut c.kind {
                    StmtKind::If {
                        then_body,
                        else_body,
                        ..
                    } => {
                        if arm == 0 {
                            *then_body = nb;
                        } else {
                            *else_body = nb;
                        }
                    }
                    StmtKind::While { body, .. }
                    | StmtKind::Loop { body, .. }
                    | StmtKind::For { body, .. } => *body = nb,
                    _ => {}
                }
                out.push((d, splice(vec![c])));
            }
        }
    }
}

/// A loop body run once: up to its first top-level `break` or `continue` (which would be
/// outside any loop once the loop is gone).
fn straight(body: &[Stmt]) -> Vec<Stmt> {
    body.iter()
        .take_while(|s| !matches!(s.kind, StmtKind::Break | StmtKind::Continue))
        .cloned()
        .collect()
}

/// A statement's own expressions (not those of its nested bodies), in source order.
fn own_exprs_mut(s: &mut Stmt) -> Vec<&mut Expr> {
    let mut out: Vec<&mut Expr> = Vec::new();
    match &mut s.kind {
        StmtKind::Assign { value, .. } => out.push(value),
        StmtKind::Load { index, .. } => out.extend(index.as_mut()),
        StmtKind::Store { index, value, .. } => {
            out.extend(index.as_mut());
            out.push(value);
        }
        StmtKind::Atomic { index, args, .. } => {
            out.extend(index.as_mut());
            out.extend(args.iter_mut());
        }
        StmtKind::If { cond, .. } | StmtKind::While { cond, .. } => out.push(cond),
        StmtKind::For {
            init, cond, step, ..
        } => {
            if let Some(i) = init {
                out.extend(own_exprs_mut(i));
            }
            out.extend(cond.as_mut());
            if let Some(st) = step {
                out.extend(own_exprs_mut(st));
            }
        }
        StmtKind::Fence { id } => out.extend(id.as_mut()),
        StmtKind::Loop { .. }
        | StmtKind::Barrier(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return
        | StmtKind::Unreachable => {}
    }
    out
}

/// Every expression one simplification away from `e`: an operator, a subgroup op or a helper
/// replaced by one of its operands (outermost first), a computed value replaced by 0, or a
/// literal replaced by 0 or 1.
fn expr_variants(e: &Expr) -> Vec<(String, Expr)> {
    let mut out = Vec::new();
    let mk = |kind: ExprKind| Expr { kind, span: e.span };
    let whole = expr_to_string(e);
    let operands: Vec<&Expr> = match &e.kind {
        ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => vec![],
        ExprKind::Unary(_, a) => vec![a],
        ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Ternary(a, b, c) => vec![a, b, c],
        ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => args.iter().collect(),
    };
    for o in &operands {
        out.push((
            format!("`{whole}` -> `{}`", expr_to_string(o)),
            (*o).clone(),
        ));
    }
    match e.kind {
        ExprKind::Lit(v) => {
            for new in simpler(v) {
                out.push((format!("literal {v} -> {new}"), mk(ExprKind::Lit(new))));
            }
        }
        // A computed value replaced by the constant 0 (e.g. `lane % 1`).
        _ => out.push((format!("`{whole}` -> `0`"), mk(ExprKind::Lit(0)))),
    }
    // One step inside an operand, the rest unchanged.
    for (i, o) in operands.iter().enumerate() {
        for (d, o2) in expr_variants(o) {
            let mut c = e.clone();
            let slot: &mut Expr = match &mut c.kind {
                ExprKind::Unary(_, a) => a,
                ExprKind::Binary(_, a, b) => [a, b].into_iter().nth(i).expect("operand"),
                ExprKind::Ternary(a, b, t) => [a, b, t].into_iter().nth(i).expect("operand"),
                ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => &mut args[i],
                _ => continue,
            };
            *slot = o2;
            out.push((d, c));
        }
    }
    out
}
