//! The axioms a run cut short must already satisfy: a model's checks, weakened so that they
//! hold on every prefix of a consistent execution.
//!
//! A run that the loop bound cuts, or that meets undefined behaviour, never finishes, so the
//! model cannot judge it as an execution. Reporting it unjudged (as the engines did) makes a
//! run that no consistent execution begins with a reason for `unknown`: a lane that writes 1
//! and then reads the initial 0 back spins forever in `do { r = x; x = r + 1; } while (r !=
//! 1)` unless coherence is asked. Asking the model's own axioms of the prefix is wrong the
//! other way: cat's difference is not monotone, so a relation of the prefix can hold a pair
//! that the whole execution loses (`asmo \ (asmo ; asmo+)`, the next write in coherence order,
//! relates two writes of the prefix that a later write may come between).
//!
//! So each axiom `acyclic e`, `irreflexive e`, `empty e` is kept with `e` replaced by a lower
//! bound `lower(e)`: on the events of any prefix, `lower(e)` relates only pairs that `e`
//! relates on the whole execution. Then a consistent execution has consistent prefixes. The
//! rule, per operator:
//! - base names are the prefix's own (program order, locations, scopes, tags, the prefix's
//!   reads-from and the restriction of coherence order): each is the restriction of the
//!   whole execution's, so they stay;
//! - union, intersection, composition, closures, inverse, products, `[S]`, `domain`, `range`
//!   and function application are monotone: they apply to the lower bounds;
//! - `a \ b` is `lower(a) \ b` when `b` is *stable* (its value on a prefix is exactly the
//!   restriction of its value on the execution: built from base names by union,
//!   intersection, difference, complement, inverse, products and `[S]`, never through an
//!   event in between, as `;`, closures and `domain` may); otherwise it is `0`, and so is
//!   `~a` for an `a` that is not stable;
//! - flags and negated checks (`~empty`) are dropped: only axioms bind a prefix.
//!
//! The part may also hold writes still to come that the prefix's reads take (the explorer
//! names them: `memory::execution`); the rule holds for any part of an execution, not only
//! its prefixes. `docs/memory-models.md`, "Runs cut short", says what this decides.
//!
//! [`growing`] applies the same rule to a different kind of part: a candidate execution whose
//! reads-from and coherence are only partly chosen. There every event is present and only
//! `rf` and `co` grow, so *stable* means "mentions neither" (through `let`s). The explorer
//! prunes its search of candidates with it: a choice that already breaks a weakened axiom
//! breaks the axiom in every completion.

use super::ast::{Binding, Check, Expr, Model, Stmt};
use std::collections::HashMap;

/// The model whose checks hold on every prefix of an execution consistent with `model`.
pub fn closed(model: &Model) -> Model {
    // The part may also hold writes still to come after the prefix (`memory::execution`,
    // named later writes): the schedule and the collective steps do not order or group
    // those among themselves, so these two lose pairs there.
    let mut stable: HashMap<String, bool> =
        [("sched".to_string(), false), ("sstep".to_string(), false)].into();
    closed_in(model, &mut stable, Part::Prefix)
}

/// The model whose checks hold on every part of a candidate execution consistent with
/// `model` that has all its events but only some of the pairs of the base relations named in
/// `growing` (the explorer's `rf` and `co` while it chooses them).
pub fn growing(model: &Model, growing: &[&str]) -> Model {
    let mut stable = HashMap::new();
    closed_in(model, &mut stable, Part::Pairs(growing))
}

/// Per `let` binding of `model`, in the order an evaluation meets them (an included file's
/// where it is included), whether its value stays the same whatever pairs the base relations
/// in `growing` hold: the stability this module weakens models by, which the interpreter uses
/// to keep those values from one candidate to the next (`interp::Memo`).
pub fn fixed_lets(model: &Model, growing: &[&str]) -> Vec<bool> {
    fn walk(m: &Model, stable: &mut HashMap<String, bool>, part: Part, out: &mut Vec<bool>) {
        for st in &m.stmts {
            match st {
                Stmt::Include(i) => walk(i, stable, part, out),
                Stmt::Let(bs) => out.extend(mark_let(bs, stable, part)),
                Stmt::LetRec(bs) => mark_let_rec(bs, stable),
                Stmt::Check(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(model, &mut HashMap::new(), Part::Pairs(growing), &mut out);
    out
}

/// Records whether each binding of a `let` is stable, and says so: `let a = e and b = f`,
/// each body sees the names bound before the `let`; a function is never stable (its body
/// depends on its arguments).
fn mark_let(bs: &[Binding], stable: &mut HashMap<String, bool>, part: Part) -> Vec<bool> {
    let flags: Vec<bool> = (bs.iter())
        .map(|b| b.params.is_none() && is_stable(&b.body, stable, part))
        .collect();
    for (b, s) in bs.iter().zip(&flags) {
        stable.insert(b.name.to_string(), *s);
    }
    flags
}

/// A fixpoint is reached through itself: never stable.
fn mark_let_rec(bs: &[Binding], stable: &mut HashMap<String, bool>) {
    for b in bs {
        stable.insert(b.name.to_string(), false);
    }
}

/// What is missing from the part of an execution the weakened model judges.
#[derive(Clone, Copy)]
enum Part<'a> {
    /// Events after some point (all but some writes still to come), and every pair
    /// touching them; `sched` and `sstep` also lack pairs between those writes.
    Prefix,
    /// Some pairs of these base relations.
    Pairs(&'a [&'a str]),
}

/// `stable`: each `let` name seen so far, and whether its value is stable.
fn closed_in(model: &Model, stable: &mut HashMap<String, bool>, part: Part) -> Model {
    let mut stmts = Vec::new();
    for st in &model.stmts {
        match st {
            Stmt::Include(m) => stmts.push(Stmt::Include(Box::new(closed_in(m, stable, part)))),
            Stmt::Let(bs) => {
                let out = bs.iter().map(|b| lower_binding(b, stable, part)).collect();
                mark_let(bs, stable, part);
                stmts.push(Stmt::Let(out));
            }
            Stmt::LetRec(bs) => {
                mark_let_rec(bs, stable);
                stmts.push(Stmt::LetRec(
                    bs.iter().map(|b| lower_binding(b, stable, part)).collect(),
                ));
            }
            Stmt::Check(c) if !c.flag && !c.negated => stmts.push(Stmt::Check(Check {
                expr: lower(&c.expr, stable, part),
                ..c.clone()
            })),
            Stmt::Check(_) => {}
        }
    }
    Model {
        file: model.file.clone(),
        name: model.name.clone(),
        stmts,
    }
}

fn lower_binding(b: &Binding, stable: &HashMap<String, bool>, part: Part) -> Binding {
    // A function's parameters may be bound to anything: not stable inside its body.
    let mut inner;
    let scope = match &b.params {
        Some(ps) => {
            inner = stable.clone();
            for p in ps {
                inner.insert(p.to_string(), false);
            }
            &inner
        }
        None => stable,
    };
    Binding {
        body: lower(&b.body, scope, part).into(),
        ..b.clone()
    }
}

/// Is `e`'s value on the part exactly its value on the whole execution (for a prefix: the
/// restriction of it)?
fn is_stable(e: &Expr, stable: &HashMap<String, bool>, part: Part) -> bool {
    let st = |a: &Expr| is_stable(a, stable, part);
    match (e, part) {
        (Expr::Empty, _) => true,
        // An unbound name is a base name (or `id`, `_`).
        (Expr::Name(n, _), Part::Prefix) => stable.get(n).copied().unwrap_or(true),
        (Expr::Name(n, _), Part::Pairs(growing)) => stable
            .get(n)
            .copied()
            .unwrap_or(!growing.contains(&n.as_str())),
        (Expr::Bracket(a) | Expr::Compl(a) | Expr::Inverse(a) | Expr::Opt(a), _) => st(a),
        (Expr::Union(a, b) | Expr::Inter(a, b) | Expr::Diff(a, b) | Expr::Cartesian(a, b), _) => {
            st(a) && st(b)
        }
        (Expr::Seq(..) | Expr::Plus(_) | Expr::Star(_) | Expr::App(..), Part::Prefix) => false,
        // With every event present, only a growing name changes a value (a function's
        // arguments are stable; its body is checked as the `let` defining it was not).
        (Expr::Seq(a, b), Part::Pairs(_)) => st(a) && st(b),
        (Expr::Plus(a) | Expr::Star(a), Part::Pairs(_)) => st(a),
        (Expr::App(..), Part::Pairs(_)) => false,
    }
}

/// A lower bound of `e` on every part (the module's rule).
fn lower(e: &Expr, stable: &HashMap<String, bool>, part: Part) -> Expr {
    let l = |a: &Expr| Box::new(lower(a, stable, part));
    match e {
        Expr::Empty | Expr::Name(..) => e.clone(),
        Expr::Diff(a, b) if is_stable(b, stable, part) => Expr::Diff(l(a), b.clone()),
        Expr::Diff(..) => Expr::Empty,
        Expr::Compl(a) if is_stable(a, stable, part) => e.clone(),
        Expr::Compl(_) => Expr::Empty,
        Expr::Bracket(a) => Expr::Bracket(l(a)),
        Expr::Inverse(a) => Expr::Inverse(l(a)),
        Expr::Plus(a) => Expr::Plus(l(a)),
        Expr::Star(a) => Expr::Star(l(a)),
        Expr::Opt(a) => Expr::Opt(l(a)),
        Expr::Union(a, b) => Expr::Union(l(a), l(b)),
        Expr::Inter(a, b) => Expr::Inter(l(a), l(b)),
        Expr::Seq(a, b) => Expr::Seq(l(a), l(b)),
        Expr::Cartesian(a, b) => Expr::Cartesian(l(a), l(b)),
        Expr::App(f, args, s) => Expr::App(
            f.clone(),
            args.iter().map(|a| lower(a, stable, part)).collect(),
            *s,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::super::ast::Stmt;
    use std::path::Path;

    fn closed(text: &str) -> Vec<String> {
        let m = super::super::parse(Path::new("t.cat"), text, &[]).unwrap();
        let c = super::closed(&m);
        let mut out = Vec::new();
        for st in &c.stmts {
            match st {
                Stmt::Check(c) => out.push(format!("{} {:?}", c.name, c.expr)),
                Stmt::Let(bs) | Stmt::LetRec(bs) => {
                    out.extend(bs.iter().map(|b| format!("let {} {:?}", b.name, b.body)))
                }
                Stmt::Include(_) => {}
            }
        }
        out
    }

    #[test]
    fn differences_keep_only_stable_right_sides_and_flags_go() {
        let out = closed(
            "\"t\"\nlet next = co \\ (co ; co+)\nlet ext2 = loc \\ int\n\
             acyclic po | rf | next as a\nacyclic (po ; rf) \\ ext2 as b\n\
             empty rf \\ ~(rf ; po) as c\nflag ~empty rf as d\n",
        );
        // `co ; co+` reaches through events a prefix may lack: the difference is dropped.
        assert!(out[0].starts_with("let next Empty"), "{out:?}");
        // `loc \ int` is a restriction of base names: kept, and usable on the right.
        assert!(out[1].starts_with("let ext2 Diff"), "{out:?}");
        assert!(out[3].starts_with("b Diff(Seq"), "{out:?}");
        // `~(rf ; po)` is not stable: the whole difference is dropped; the flag is gone.
        assert_eq!(out[4], "c Empty");
        assert_eq!(out.len(), 5, "{out:?}");
        // In `let x = loc and y = x`, `y` is the `x` bound before, which is not stable.
        let out = closed("let x = co ; co\nlet x = loc and y = x\nempty co \\ y as a\n");
        assert_eq!(out.last().map(String::as_str), Some("a Empty"), "{out:?}");
    }

    /// The weakening for partly chosen candidates: only `rf` and `co` grow, so a difference
    /// keeps any right side that mentions neither, even through `;` and closures.
    #[test]
    fn growing_pairs_keep_differences_by_what_grows() {
        let m = super::super::parse(
            Path::new("t.cat"),
            "let next = co \\ (co ; co+)\nlet far = (po ; po) \\ (loc ; loc)+\n\
             acyclic po | rf | next as a\nempty rf \\ far as b\nirreflexive (rf ; po) \\ ~far as c\n\
             empty rf \\ ~(rf ; po) as d\nflag ~empty rf as e\n",
            &[],
        )
        .unwrap();
        let c = super::growing(&m, &["rf", "co"]);
        let out: Vec<String> = (c.stmts.iter())
            .filter_map(|st| match st {
                Stmt::Check(c) => Some(format!("{} {:?}", c.name, c.expr)),
                Stmt::Let(bs) => Some(format!("let {} {:?}", bs[0].name, bs[0].body)),
                _ => None,
            })
            .collect();
        // `co ; co+` grows with `co`: the difference is dropped.
        assert!(out[0].starts_with("let next Empty"), "{out:?}");
        // `(loc ; loc)+` does not grow: kept (a prefix would drop it).
        assert!(out[1].starts_with("let far Diff"), "{out:?}");
        assert!(out[3].starts_with("b Diff"), "{out:?}");
        assert!(out[4].starts_with("c Diff"), "{out:?}");
        assert_eq!(out[5], "d Empty");
        assert_eq!(out.len(), 6, "the flag is gone: {out:?}");
    }

    #[test]
    fn the_bundled_models_keep_their_coherence_axioms() {
        for file in ["vulkan.cat", "ptx.cat", "sc.cat"] {
            let text = super::super::bundled(file).unwrap();
            let m = super::super::parse(Path::new(file), text, &[]).unwrap();
            let c = super::closed(&m);
            let names = |m: &super::Model| {
                m.stmts
                    .iter()
                    .filter_map(|s| match s {
                        Stmt::Check(c) if !c.flag && !c.negated => Some(c.name.clone()),
                        _ => None,
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(names(&m), names(&c), "{file}: every axiom stays, weakened");
            let nonempty = c
                .stmts
                .iter()
                .filter(|s| matches!(s, Stmt::Check(c) if c.expr != super::Expr::Empty))
                .count();
            assert!(nonempty >= 1, "{file}: some axiom still binds a prefix");
            if file == "vulkan.cat" {
                let coherence = c.stmts.iter().find_map(|s| match s {
                    Stmt::Check(c) if c.name == "location-coherence" => Some(&c.expr),
                    _ => None,
                });
                assert!(
                    coherence.is_some_and(|e| *e != super::Expr::Empty),
                    "vulkan.cat's location-coherence still binds a prefix"
                );
            }
        }
    }
}
