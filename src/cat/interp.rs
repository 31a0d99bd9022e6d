//! The meaning of a cat model, written once over an [`Algebra`] of sets and relations.
//!
//! Both back ends run this interpreter: the concrete one ([`super::concrete`]) with bit
//! matrices over one candidate execution's events, the symbolic one with Boolean terms over
//! the unrolled program's events. Only the algebra differs; `let`, `let rec`, functions,
//! includes and checks mean the same thing in both.

use super::ast::{Binding, CheckKind, Expr, Model, Stmt};
use crate::diag::Span;
use std::rc::Rc;
use std::sync::Arc;

/// Sets, relations and truth values of one back end.
pub trait Algebra {
    type Set: Clone;
    type Rel: Clone;
    type Bool: Clone;

    /// A base set or relation the execution provides (`R`, `po`, `rf`, `ssg`, ...).
    fn base(&mut self, name: &str) -> Option<Val<Self>>;
    fn universe(&mut self) -> Self::Set;
    fn empty_set(&mut self) -> Self::Set;
    fn empty_rel(&mut self) -> Self::Rel;

    fn set_union(&mut self, a: &Self::Set, b: &Self::Set) -> Self::Set;
    fn set_inter(&mut self, a: &Self::Set, b: &Self::Set) -> Self::Set;
    fn set_diff(&mut self, a: &Self::Set, b: &Self::Set) -> Self::Set;

    fn union(&mut self, a: &Self::Rel, b: &Self::Rel) -> Self::Rel;
    fn inter(&mut self, a: &Self::Rel, b: &Self::Rel) -> Self::Rel;
    fn diff(&mut self, a: &Self::Rel, b: &Self::Rel) -> Self::Rel;
    fn seq(&mut self, a: &Self::Rel, b: &Self::Rel) -> Self::Rel;
    fn inverse(&mut self, a: &Self::Rel) -> Self::Rel;
    /// Transitive closure.
    fn plus(&mut self, a: &Self::Rel) -> Self::Rel;
    /// `[S]`
    fn id_on(&mut self, s: &Self::Set) -> Self::Rel;
    /// `S * T`
    fn cartesian(&mut self, a: &Self::Set, b: &Self::Set) -> Self::Rel;
    fn domain(&mut self, r: &Self::Rel) -> Self::Set;
    fn range(&mut self, r: &Self::Rel) -> Self::Set;

    /// Is the set certainly empty? The interpreter then skips what cannot change the answer
    /// (the right side of `&`, `\` and `;`): a model names dozens of relations through tags a
    /// test may not use (release, acquire, availability), and evaluating them for every
    /// candidate was most of the concrete back end's time. `false` when the back end cannot
    /// tell, and when every subexpression must be evaluated (type-checking a model).
    fn set_known_empty(&mut self, _s: &Self::Set) -> bool {
        false
    }
    /// Is the relation certainly empty? As [`Algebra::set_known_empty`].
    fn rel_known_empty(&mut self, _r: &Self::Rel) -> bool {
        false
    }

    /// `Some(equal)` when the back end can tell (the concrete one); `None` otherwise.
    fn rel_eq(&mut self, a: &Self::Rel, b: &Self::Rel) -> Option<bool>;
    fn set_eq(&mut self, a: &Self::Set, b: &Self::Set) -> Option<bool>;
    /// Rounds of Kleene iteration for a `let rec` when equality cannot be tested.
    fn fixpoint_rounds(&self) -> usize;

    fn acyclic(&mut self, r: &Self::Rel) -> Self::Bool;
    /// Acyclicity where only its truth matters (an axiom, not negated, not a flag): a back end
    /// may answer with a condition that implies acyclicity rather than one equivalent to it
    /// (order clocks instead of a closure).
    fn acyclic_axiom(&mut self, r: &Self::Rel) -> Self::Bool {
        self.acyclic(r)
    }
    fn irreflexive(&mut self, r: &Self::Rel) -> Self::Bool;
    fn is_empty(&mut self, r: &Self::Rel) -> Self::Bool;
    fn set_is_empty(&mut self, s: &Self::Set) -> Self::Bool;
    fn truth(&mut self, b: bool) -> Self::Bool;
    fn not(&mut self, b: &Self::Bool) -> Self::Bool;
}

/// A value of the cat language.
pub enum Val<A: Algebra + ?Sized> {
    /// `0` and `{}`: empty, of whichever type its use asks for.
    Zero,
    Set(A::Set),
    Rel(A::Rel),
    Fun(Rc<Closure<A>>),
}

impl<A: Algebra + ?Sized> Clone for Val<A> {
    fn clone(&self) -> Self {
        match self {
            Val::Zero => Val::Zero,
            Val::Set(s) => Val::Set(s.clone()),
            Val::Rel(r) => Val::Rel(r.clone()),
            Val::Fun(f) => Val::Fun(f.clone()),
        }
    }
}

/// A user function with the names it saw where it was defined.
pub struct Closure<A: Algebra + ?Sized> {
    params: Vec<Arc<str>>,
    body: Arc<Expr>,
    env: Env<A>,
}

/// The names in scope, innermost last. Values are shared: a function closes over the whole
/// environment, and copying every relation in it per definition and per call was most of a
/// concrete evaluation's time.
type Env<A> = Vec<(Arc<str>, Rc<Val<A>>)>;

/// The result of one check.
#[derive(Clone, Debug)]
pub struct CheckResult<B> {
    pub name: String,
    pub kind: CheckKind,
    pub flag: bool,
    /// True when the check passes (for a flag: when the flagged situation is present).
    pub holds: B,
}

/// A cat evaluation error: a type error or an unknown name, located in the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EvalError {
    pub file: String,
    pub span: Span,
    pub message: String,
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.span.line, self.span.col, self.message
        )
    }
}

/// Runs `model` over the algebra: every check, axioms and flags, in the file's order.
pub fn run<A: Algebra>(model: &Model, alg: &mut A) -> Result<Vec<CheckResult<A::Bool>>, EvalError> {
    let mut env: Env<A> = Vec::new();
    let mut out = Vec::new();
    run_in(model, alg, &mut env, &mut out, &mut None)?;
    Ok(out)
}

/// Definitions whose values do not depend on the base names a search varies, kept from one
/// run to the next. The explorer judges thousands of choices of `rf` and `co` over one run's
/// events; the sets, scopes and orders a model derives from the rest were evaluated again for
/// each. Which definitions stay is `cat::prefix`'s rule of stability ([`super::prefix::fixed_lets`]).
/// A memo belongs to one model and one algebra whose other base names stay as they are.
pub struct Memo<A: Algebra + ?Sized> {
    /// One per `let` binding, in the order a run meets them: whether its value stays.
    fixed: Vec<bool>,
    /// The values of those that stay, once evaluated.
    slots: Vec<Option<Rc<Val<A>>>>,
}

impl<A: Algebra> Memo<A> {
    /// A memo for `model`, whose base names in `varying` change from run to run.
    pub fn new(model: &Model, varying: &[&str]) -> Memo<A> {
        let fixed = super::prefix::fixed_lets(model, varying);
        Memo {
            slots: vec![None; fixed.len()],
            fixed,
        }
    }

    /// How many definitions are kept.
    pub fn kept(&self) -> usize {
        self.slots.iter().filter(|s| s.is_some()).count()
    }
}

/// Runs `model` as [`run`] does, taking from `memo` the definitions that do not vary.
pub fn run_with<A: Algebra>(
    model: &Model,
    alg: &mut A,
    memo: &mut Memo<A>,
) -> Result<Vec<CheckResult<A::Bool>>, EvalError> {
    let mut env: Env<A> = Vec::with_capacity(memo.slots.len() + 8);
    let mut out = Vec::new();
    run_in(model, alg, &mut env, &mut out, &mut Some((memo, 0)))?;
    Ok(out)
}

/// A run's memo, and the slot of the next `let` binding it meets.
type Keeping<'m, A> = Option<(&'m mut Memo<A>, usize)>;

/// The value of one binding of a `let`: kept, or evaluated (and kept when it stays).
fn bound<A: Algebra>(
    b: &Binding,
    alg: &mut A,
    env: &Env<A>,
    file: &str,
    keep: &mut Keeping<A>,
) -> Result<Rc<Val<A>>, EvalError> {
    let Some((memo, next)) = keep else {
        return Ok(Rc::new(define(b, alg, env, file)?));
    };
    let slot = *next;
    *next += 1;
    if let Some(v) = &memo.slots[slot] {
        return Ok(v.clone());
    }
    let v = Rc::new(define(b, alg, env, file)?);
    if memo.fixed[slot] {
        memo.slots[slot] = Some(v.clone());
    }
    Ok(v)
}

fn run_in<A: Algebra>(
    model: &Model,
    alg: &mut A,
    env: &mut Env<A>,
    out: &mut Vec<CheckResult<A::Bool>>,
    keep: &mut Keeping<A>,
) -> Result<(), EvalError> {
    let file = model.file.as_str();
    for st in &model.stmts {
        match st {
            Stmt::Include(m) => run_in(m, alg, env, out, keep)?,
            Stmt::Let(bs) => {
                // `let a = e and b = f`: each body sees the names bound before the `let`.
                let mut vals = Vec::new();
                for b in bs {
                    vals.push((b.name.clone(), bound(b, alg, env, file, keep)?));
                }
                env.extend(vals);
            }
            Stmt::LetRec(bs) => letrec(bs, alg, env, file)?,
            Stmt::Check(c) => {
                let v = eval(&c.expr, alg, env, file)?;
                let holds = match (c.kind, v) {
                    (_, Val::Zero) => alg.truth(true),
                    (CheckKind::Empty, Val::Set(s)) => alg.set_is_empty(&s),
                    (CheckKind::Empty, Val::Rel(r)) => alg.is_empty(&r),
                    (CheckKind::Acyclic, Val::Rel(r)) if !c.flag && !c.negated => {
                        alg.acyclic_axiom(&r)
                    }
                    (CheckKind::Acyclic, Val::Rel(r)) => alg.acyclic(&r),
                    (CheckKind::Irreflexive, Val::Rel(r)) => alg.irreflexive(&r),
                    (k, _) => {
                        return Err(EvalError {
                            file: file.into(),
                            span: c.span,
                            message: format!("`{}` needs a relation here", k.keyword()),
                        })
                    }
                };
                let holds = if c.negated { alg.not(&holds) } else { holds };
                out.push(CheckResult {
                    name: c.name.clone(),
                    kind: c.kind,
                    flag: c.flag,
                    holds,
                });
            }
        }
    }
    Ok(())
}

fn define<A: Algebra>(
    b: &Binding,
    alg: &mut A,
    env: &Env<A>,
    file: &str,
) -> Result<Val<A>, EvalError> {
    match &b.params {
        Some(ps) => Ok(Val::Fun(Rc::new(Closure {
            params: ps.clone(),
            body: b.body.clone(),
            env: env.clone(),
        }))),
        None => eval(&b.body, alg, env, file),
    }
}

/// `let rec`: Kleene iteration from empty relations, until nothing changes (or, when the
/// back end cannot compare, for its number of rounds).
fn letrec<A: Algebra>(
    bs: &[Binding],
    alg: &mut A,
    env: &mut Env<A>,
    file: &str,
) -> Result<(), EvalError> {
    let base = env.len();
    for b in bs {
        env.push((b.name.clone(), Rc::new(Val::Zero)));
    }
    let rounds = alg.fixpoint_rounds();
    for round in 0.. {
        let mut next = Vec::new();
        for b in bs {
            next.push(define(b, alg, env, file)?);
        }
        let mut stable = true;
        let mut known = true;
        for (i, v) in next.into_iter().enumerate() {
            let old = std::mem::replace(&mut env[base + i].1, Rc::new(v));
            match same(alg, &old, &env[base + i].1) {
                Some(true) => {}
                Some(false) => stable = false,
                None => known = false,
            }
        }
        if (known && stable) || (!known && round + 1 >= rounds) {
            break;
        }
        if known && round > rounds.max(4) * 4 {
            // Monotone definitions converge within n² rounds; a non-monotone one may not.
            return Err(EvalError {
                file: file.into(),
                span: bs[0].span,
                message: format!(
                    "`let rec {}` does not converge (is it monotone?)",
                    bs[0].name
                ),
            });
        }
    }
    Ok(())
}

fn same<A: Algebra>(alg: &mut A, a: &Val<A>, b: &Val<A>) -> Option<bool> {
    match (a, b) {
        (Val::Zero, Val::Zero) => Some(true),
        (Val::Rel(x), Val::Rel(y)) => alg.rel_eq(x, y),
        (Val::Set(x), Val::Set(y)) => alg.set_eq(x, y),
        (Val::Zero, Val::Rel(x)) | (Val::Rel(x), Val::Zero) => {
            let e = alg.empty_rel();
            alg.rel_eq(x, &e)
        }
        (Val::Zero, Val::Set(x)) | (Val::Set(x), Val::Zero) => {
            let e = alg.empty_set();
            alg.set_eq(x, &e)
        }
        _ => Some(false),
    }
}

fn lookup<A: Algebra>(env: &Env<A>, name: &str) -> Option<Val<A>> {
    // Length and last byte first: most names in scope differ there, and a call to compare
    // bytes per name was a tenth of a concrete evaluation.
    let last = name.as_bytes().last();
    env.iter()
        .rev()
        .find(|(n, _)| n.len() == name.len() && n.as_bytes().last() == last && **n == *name)
        .map(|(_, v)| (**v).clone())
}

/// Is the value certainly empty (per the back end)? `Zero` is not: it carries no type, and its
/// uses are evaluated as they always were.
fn known_empty<A: Algebra>(alg: &mut A, v: &Val<A>) -> bool {
    match v {
        Val::Set(s) => alg.set_known_empty(s),
        Val::Rel(r) => alg.rel_known_empty(r),
        _ => false,
    }
}

fn span_of(e: &Expr) -> Span {
    match e {
        Expr::Name(_, s) | Expr::App(_, _, s) => *s,
        _ => e.operands().first().map_or(Span::default(), |a| span_of(a)),
    }
}

/// Evaluates an expression.
pub fn eval<A: Algebra>(
    e: &Expr,
    alg: &mut A,
    env: &Env<A>,
    file: &str,
) -> Result<Val<A>, EvalError> {
    let err = |e: &Expr, m: String| EvalError {
        file: file.into(),
        span: span_of(e),
        message: m,
    };
    Ok(match e {
        Expr::Empty => Val::Zero,
        Expr::Name(n, _) => match lookup(env, n) {
            Some(v) => v,
            None => match n.as_str() {
                "_" => Val::Set(alg.universe()),
                "id" => {
                    let u = alg.universe();
                    Val::Rel(alg.id_on(&u))
                }
                _ => alg.base(n).ok_or_else(|| {
                    err(e, format!("unknown set or relation `{n}` (not defined by a `let` and not a base name tangle provides: see docs/memory-models.md)"))
                })?,
            },
        },
        Expr::Bracket(a) => match eval(a, alg, env, file)? {
            Val::Zero => Val::Zero,
            Val::Set(s) if alg.set_known_empty(&s) => Val::Rel(alg.empty_rel()),
            Val::Set(s) => Val::Rel(alg.id_on(&s)),
            _ => return Err(err(a, "`[...]` needs a set of events".into())),
        },
        Expr::Union(a, b) | Expr::Inter(a, b) | Expr::Diff(a, b) => {
            let op = match e {
                Expr::Union(..) => 0,
                Expr::Inter(..) => 1,
                _ => 2,
            };
            let x = eval(a, alg, env, file)?;
            if op != 0 && known_empty(alg, &x) {
                return Ok(x);
            }
            let y = eval(b, alg, env, file)?;
            match (x, y) {
                (Val::Set(s), Val::Set(t)) if op != 1 && alg.set_known_empty(&t) => Val::Set(s),
                (Val::Rel(s), Val::Rel(t)) if op != 1 && alg.rel_known_empty(&t) => Val::Rel(s),
                (Val::Set(s), Val::Set(t)) if op == 0 && alg.set_known_empty(&s) => Val::Set(t),
                (Val::Rel(s), Val::Rel(t)) if op == 0 && alg.rel_known_empty(&s) => Val::Rel(t),
                (Val::Zero, v) => match op {
                    0 => v,
                    _ => Val::Zero,
                },
                (v, Val::Zero) => match op {
                    1 => Val::Zero,
                    _ => v,
                },
                (Val::Set(s), Val::Set(t)) => Val::Set(match op {
                    0 => alg.set_union(&s, &t),
                    1 => alg.set_inter(&s, &t),
                    _ => alg.set_diff(&s, &t),
                }),
                (Val::Rel(s), Val::Rel(t)) => Val::Rel(match op {
                    0 => alg.union(&s, &t),
                    1 => alg.inter(&s, &t),
                    _ => alg.diff(&s, &t),
                }),
                _ => {
                    return Err(err(
                        a,
                        "both sides must be sets or both relations".into(),
                    ))
                }
            }
        }
        Expr::Seq(a, b) => match eval(a, alg, env, file)? {
            x @ Val::Rel(_) if known_empty(alg, &x) => x,
            x => match (x, eval(b, alg, env, file)?) {
                (Val::Zero, _) | (_, Val::Zero) => Val::Zero,
                (Val::Rel(_), y @ Val::Rel(_)) if known_empty(alg, &y) => y,
                (Val::Rel(x), Val::Rel(y)) => Val::Rel(alg.seq(&x, &y)),
                _ => return Err(err(a, "`;` composes relations (write `[S]` for a set)".into())),
            },
        },
        Expr::Cartesian(a, b) => match eval(a, alg, env, file)? {
            Val::Set(x) if alg.set_known_empty(&x) => Val::Rel(alg.empty_rel()),
            x => match (x, eval(b, alg, env, file)?) {
                (Val::Zero, _) | (_, Val::Zero) => Val::Zero,
                (Val::Set(x), Val::Set(y)) => Val::Rel(alg.cartesian(&x, &y)),
                _ => return Err(err(a, "`*` (cartesian product) needs two sets".into())),
            },
        },
        Expr::Compl(a) => match eval(a, alg, env, file)? {
            Val::Zero => Val::Set(alg.universe()),
            Val::Set(s) => {
                let u = alg.universe();
                Val::Set(alg.set_diff(&u, &s))
            }
            Val::Rel(r) => {
                let u = alg.universe();
                let all = alg.cartesian(&u, &u);
                Val::Rel(alg.diff(&all, &r))
            }
            Val::Fun(_) => return Err(err(a, "cannot complement a function".into())),
        },
        Expr::Inverse(a) | Expr::Plus(a) | Expr::Star(a) | Expr::Opt(a) => {
            let r = match eval(a, alg, env, file)? {
                Val::Zero => alg.empty_rel(),
                Val::Rel(r) => r,
                _ => return Err(err(a, "this postfix operator needs a relation".into())),
            };
            if matches!(e, Expr::Inverse(_) | Expr::Plus(_)) && alg.rel_known_empty(&r) {
                return Ok(Val::Rel(r));
            }
            Val::Rel(match e {
                Expr::Inverse(_) => alg.inverse(&r),
                Expr::Plus(_) => alg.plus(&r),
                _ => {
                    let r = if matches!(e, Expr::Star(_)) {
                        alg.plus(&r)
                    } else {
                        r
                    };
                    let u = alg.universe();
                    let id = alg.id_on(&u);
                    alg.union(&r, &id)
                }
            })
        }
        Expr::App(f, args, _) => {
            let mut vals = Vec::new();
            for a in args {
                vals.push(eval(a, alg, env, file)?);
            }
            match (f.as_str(), lookup(env, f)) {
                (_, Some(Val::Fun(c))) => {
                    if c.params.len() != vals.len() {
                        return Err(err(
                            e,
                            format!(
                                "`{f}` takes {} argument(s), given {}",
                                c.params.len(),
                                vals.len()
                            ),
                        ));
                    }
                    let mut inner = c.env.clone();
                    inner.extend(c.params.iter().cloned().zip(vals.into_iter().map(Rc::new)));
                    eval(&c.body, alg, &inner, file)?
                }
                ("domain" | "range", None) if vals.len() == 1 => {
                    match vals.pop().expect("one") {
                        Val::Zero => Val::Zero,
                        Val::Rel(r) => Val::Set(if f == "domain" {
                            alg.domain(&r)
                        } else {
                            alg.range(&r)
                        }),
                        _ => return Err(err(e, format!("`{f}` needs a relation"))),
                    }
                }
                _ => return Err(err(e, format!("unknown function `{f}`"))),
            }
        }
    })
}
