//! The cat reader and its concrete back end: herd's syntax and meaning, located errors, and
//! relaxed memory models composed with the SIMT-Step execution models through the explorer.

use std::path::Path;
use std::sync::Arc;
use tangle::cat::ast::{Expr, Stmt};
use tangle::cat::concrete::{Bits, Concrete, Matrix};
use tangle::cat::interp;
use tangle::memory::MemoryModel;
use tangle::model::Model;
use tangle::query::{self, Engine, Options, Verdict};

fn parse(text: &str) -> tangle::cat::Model {
    tangle::cat::parse(Path::new("t.cat"), text, &[])
        .unwrap_or_else(|d| panic!("{}", d.render(false)))
}

fn body(text: &str) -> Expr {
    match &parse(text).stmts[0] {
        Stmt::Let(bs) => bs[0].body.clone(),
        s => panic!("not a let: {s:?}"),
    }
}

fn name(n: &str) -> Box<Expr> {
    Box::new(Expr::Name(n.into(), Default::default()))
}

fn strip(e: Expr) -> Expr {
    // Spans differ; compare shapes.
    use Expr::*;
    let b = |x: Box<Expr>| Box::new(strip(*x));
    match e {
        Name(n, _) => Name(n, Default::default()),
        App(f, a, _) => App(f, a.into_iter().map(strip).collect(), Default::default()),
        Bracket(a) => Bracket(b(a)),
        Compl(a) => Compl(b(a)),
        Inverse(a) => Inverse(b(a)),
        Plus(a) => Plus(b(a)),
        Star(a) => Star(b(a)),
        Opt(a) => Opt(b(a)),
        Union(x, y) => Union(b(x), b(y)),
        Inter(x, y) => Inter(b(x), b(y)),
        Diff(x, y) => Diff(b(x), b(y)),
        Seq(x, y) => Seq(b(x), b(y)),
        Cartesian(x, y) => Cartesian(b(x), b(y)),
        Empty => Empty,
    }
}

#[test]
fn precedence_is_herds() {
    // `|` < `;` < `\` < `&` < `*`, postfix binds tightest.
    let e = strip(body("let x = a | b ; c \\ d & e"));
    let want = Expr::Union(
        name("a"),
        Box::new(Expr::Seq(
            name("b"),
            Box::new(Expr::Diff(
                name("c"),
                Box::new(Expr::Inter(name("d"), name("e"))),
            )),
        )),
    );
    assert_eq!(e, want);
    let e = strip(body("let x = rf^-1 ; co+"));
    assert_eq!(
        e,
        Expr::Seq(
            Box::new(Expr::Inverse(name("rf"))),
            Box::new(Expr::Plus(name("co")))
        )
    );
}

#[test]
fn star_is_postfix_unless_an_operand_follows() {
    assert_eq!(
        strip(body("let x = W * R")),
        Expr::Cartesian(name("W"), name("R"))
    );
    assert_eq!(
        strip(body("let x = po*\nlet y = 0")),
        Expr::Star(name("po"))
    );
    assert_eq!(
        strip(body("let x = (po* ; rf)")),
        Expr::Seq(Box::new(Expr::Star(name("po"))), name("rf"))
    );
}

#[test]
fn names_with_dashes_comments_and_a_model_name() {
    let m = parse("\"My model\" (* a (* nested *) comment *)\nlet po-loc2 = po & loc // line\nacyclic po-loc2 | rf as uniproc\n");
    assert_eq!(m.name.as_deref(), Some("My model"));
    assert_eq!(m.stmts.len(), 2);
    match &m.stmts[1] {
        Stmt::Check(c) => assert_eq!(c.name, "uniproc"),
        s => panic!("{s:?}"),
    }
}

#[test]
fn errors_are_located() {
    let d = tangle::cat::parse(Path::new("m.cat"), "let x = po |\n", &[]).unwrap_err();
    assert_eq!((d.line, d.col), (2, 1));
    assert!(
        d.message.contains("expected a set or relation"),
        "{}",
        d.message
    );
    let d = tangle::cat::parse(
        Path::new("m.cat"),
        "let a = po\nprocedure p() = acyclic po end\n",
        &[],
    )
    .unwrap_err();
    assert_eq!(d.line, 2);
    assert!(d.message.contains("not supported"), "{}", d.message);
    let d = tangle::cat::parse(Path::new("m.cat"), "include \"nowhere.cat\"", &[]).unwrap_err();
    assert!(d.message.contains("cannot find"), "{}", d.message);
    let d = tangle::cat::parse(Path::new("m.cat"), "(* open", &[]).unwrap_err();
    assert!(d.message.contains("never closed"), "{}", d.message);
}

/// Three events in a po chain, and a relation given by pairs.
fn chain() -> Concrete {
    let mut c = Concrete {
        n: 3,
        ..Default::default()
    };
    c.rels
        .insert("r".into(), Matrix::from_pairs(3, [(0, 1), (1, 2)]));
    c.rels
        .insert("back".into(), Matrix::from_pairs(3, [(2, 0)]));
    let mut s = Bits::new(3);
    s.insert(0);
    c.sets.insert("S".into(), s);
    c
}

fn checks(text: &str, mut alg: Concrete) -> Vec<(String, bool)> {
    interp::run(&parse(text), &mut alg)
        .unwrap()
        .into_iter()
        .map(|c| (c.name, c.holds))
        .collect()
}

#[test]
fn let_rec_is_the_least_fixpoint() {
    // A transitive closure written as a recursion agrees with `+`.
    let got = checks(
        "let rec t = r | (t ; r)\nempty t \\ r+ as sub\nempty r+ \\ t as sup\nacyclic t as acy\nacyclic t | back as cyc",
        chain(),
    );
    assert_eq!(
        got,
        vec![
            ("sub".into(), true),
            ("sup".into(), true),
            ("acy".into(), true),
            ("cyc".into(), false)
        ]
    );
}

#[test]
fn sets_functions_domain_range_and_negated_checks() {
    let got = checks(
        "let f(x) = [S] ; x\nlet d = domain(f(r))\nempty d \\ S as dom\n~empty range(r) as rng\nirreflexive (S * S) as refl\nflag ~empty f(r) as flagged",
        chain(),
    );
    assert_eq!(
        got,
        vec![
            ("dom".into(), true),
            ("rng".into(), true),
            ("refl".into(), false),
            ("flagged".into(), true)
        ]
    );
}

#[test]
fn unknown_names_are_located_errors() {
    let e = interp::run(&parse("let a = r\nacyclic nosuch as x"), &mut chain()).unwrap_err();
    assert_eq!(e.span.line, 2);
    assert!(e.message.contains("nosuch"), "{e}");
}

// ---- relaxed memory through the explorer --------------------------------------------------

const SB: &str = "test sb\nthreads 2\nsubgroup 1\nglobal x\nglobal y\nkernel {\n  if (tid == 0) { x = 1; r = y; } else { y = 1; r = x; }\n}\nexists (0:r == 0 && 1:r == 0)\n";

fn verdict(src: &str, model: &str, memory: Option<MemoryModel>) -> Verdict {
    let test = tangle::syntax::parse("t.litmus", src.as_bytes()).unwrap();
    let m = Model::by_name(model).unwrap();
    let mut opts = Options::default().with_engine(Engine::Explore);
    opts.memory = memory.map(Arc::new);
    query::analyse(&test, &m, &opts).unwrap().verdict
}

fn cat_model(text: &str) -> MemoryModel {
    MemoryModel::from_text("t.cat", Path::new("t.cat"), text).unwrap()
}

#[test]
fn store_buffering_needs_a_relaxed_model() {
    let sc = MemoryModel::resolve("sc.cat").unwrap();
    assert_eq!(verdict(SB, "SSO", None), Verdict::Forbidden);
    assert_eq!(verdict(SB, "SSO", sc), Verdict::Forbidden);
    // Coherence alone (per-location SC) lets both reads miss the other thread's store.
    let coh = cat_model("acyclic po-loc | rf | co | fr as coherence");
    assert_eq!(verdict(SB, "SSO", Some(coh.clone())), Verdict::Allowed);
    // ... but not a read of a value that nobody wrote.
    let thin = SB.replace("0:r == 0 && 1:r == 0", "0:r == 2");
    assert_eq!(verdict(&thin, "SSO", Some(coh)), Verdict::Forbidden);
}

#[test]
fn sched_ties_sc_to_the_execution_model() {
    // The paper's sso_ww: the subgroup op orders the arms' stores under SSO, not under Spec;
    // sc.cat sees it through `sched`, as the built-in SC does.
    let src = std::fs::read_to_string("litmus/paper/sso_ww.litmus").unwrap();
    for (model, want) in [("SSO", Verdict::Forbidden), ("Spec", Verdict::Allowed)] {
        assert_eq!(verdict(&src, model, None), want);
        assert_eq!(
            verdict(&src, model, MemoryModel::resolve("sc.cat").unwrap()),
            want,
            "{model}"
        );
    }
    // A model without `sched` ignores the schedule: coherence alone allows it under SSO.
    let coh = cat_model("acyclic po-loc | rf | co | fr as coherence");
    assert_eq!(verdict(&src, "SSO", Some(coh)), Verdict::Allowed);
}
