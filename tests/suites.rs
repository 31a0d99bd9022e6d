//! Runs every `.litmus` file under `litmus/` through the explorer under every model it can
//! run, and checks the verdicts against the file's `expect` line.

mod common;

use std::path::Path;
use tangle::model::Model;
use tangle::query::{self, Options, Verdict};
use tangle::vocab::{Class, Kind};

#[test]
fn every_suite_file_parses_and_meets_its_expect_line_under_the_explorer() {
    let files = common::suite_files();
    assert!(files.len() >= 12, "the suites are missing");
    let models = Model::builtin();
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let test = match tangle::syntax::parse_file(f) {
            Ok(t) => t,
            Err(d) => {
                failures.push(format!("{}: does not parse:\n{d}", f.display()));
                continue;
            }
        };
        let prog = query::compile(&test, 8).expect("suite files unroll");
        for m in &models {
            if m.class(Kind::Sgop) == Class::Symbolic {
                continue; // answered by the SMT engine
            }
            let a = query::analyse_models(
                &test,
                &prog,
                std::slice::from_ref(m),
                &Options::default().with_engine(query::Engine::Explore),
            )
            .remove(0);
            match (a.expected, &a.verdict) {
                (None, _) => {}
                (Some(_), Verdict::Unknown(why)) => {
                    failures.push(format!("{} under {}: unknown ({why})", f.display(), m.name))
                }
                (Some(exp), v) => {
                    checked += 1;
                    if (*v == Verdict::Allowed) != exp {
                        failures.push(format!(
                            "{} under {}: {} but expect says {}",
                            f.display(),
                            m.name,
                            v.short(),
                            if exp { "allow" } else { "forbid" }
                        ));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} verdicts wrong:\n{}",
        failures.len(),
        checked + failures.len(),
        failures.join("\n")
    );
    assert!(checked > 72);
}

#[test]
fn paper_suite_reproduces_the_published_table() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/litmus/paper"));
    let expect = |name: &str, model: &str| -> bool {
        let rank = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"]
            .iter()
            .position(|m| *m == model)
            .unwrap();
        let first_allowing = if name.starts_with("cm_") || name.starts_with("sm_") {
            2
        } else if name.starts_with("scf_") {
            3
        } else {
            4
        };
        rank >= first_allowing
    };
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let test = tangle::syntax::parse_file(&e.path()).unwrap();
        for m in Model::builtin() {
            if m.class(Kind::Sgop) == Class::Symbolic {
                continue;
            }
            let a = query::analyse(
                &test,
                &m,
                &Options::default().with_engine(query::Engine::Explore),
            )
            .unwrap();
            let want = if expect(&test.name, &m.name) {
                Verdict::Allowed
            } else {
                Verdict::Forbidden
            };
            assert_eq!(a.verdict, want, "{} under {}", test.name, m.name);
            n += 1;
        }
    }
    assert_eq!(n, 72);
}

/// Every `expect` entry of every suite file, checked with Z3 under all seven models (Symb
/// included, which only Z3 answers); the explorer's check above covers the six it runs.
#[test]
fn every_expect_entry_holds_under_z3_including_symb() {
    let models = Model::builtin();
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut symb = 0;
    for f in common::suite_files() {
        let test = tangle::syntax::parse_file(&f).unwrap();
        if test.expect.is_empty() {
            continue;
        }
        let prog = query::compile(&test, 8).expect("suite files unroll");
        let opts = Options::default()
            .with_engine(query::Engine::Smt)
            .with_outcomes(false);
        for a in query::analyse_models(&test, &prog, &models, &opts) {
            let Some(exp) = a.expected else { continue };
            checked += 1;
            symb += usize::from(a.model == "Symb");
            match &a.verdict {
                Verdict::Unknown(why) => failures.push(format!(
                    "{} under {}: unknown ({why})",
                    f.display(),
                    a.model
                )),
                v if (*v == Verdict::Allowed) != exp => failures.push(format!(
                    "{} under {}: {} but expect says {}",
                    f.display(),
                    a.model,
                    v.short(),
                    if exp { "allow" } else { "forbid" }
                )),
                _ => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        checked > 84 && symb > 12,
        "only {checked} entries ({symb} Symb) checked"
    );
}

/// An observable has one name: what the litmus format writes for a condition's operand
/// (`Operand::name`) is what reports call the observable the program gives it
/// (`Program::observable_name`), for every operand of every condition in `litmus/features`.
#[test]
fn condition_operands_and_observables_have_one_name() {
    use tangle::syntax::ast::{Operand, Prop};
    fn operands(p: &Prop, out: &mut Vec<Operand>) {
        match p {
            Prop::Not(a) => operands(a, out),
            Prop::And(a, b) | Prop::Or(a, b) => {
                operands(a, out);
                operands(b, out);
            }
            Prop::Cmp(_, a, b) => out.extend([a.clone(), b.clone()]),
            Prop::Truthy(a) => out.push(a.clone()),
            _ => {}
        }
    }
    let mut named = 0;
    for entry in std::fs::read_dir("litmus/features").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "litmus") {
            continue;
        }
        let test = tangle::load(&path, &Default::default()).unwrap();
        let prog = query::compile(&test, 2).unwrap();
        let observed: Vec<String> = prog
            .observables
            .iter()
            .map(|o| prog.observable_name(o))
            .collect();
        let mut ops = Vec::new();
        operands(&test.condition.prop, &mut ops);
        for o in ops.iter().filter(|o| !matches!(o, Operand::Lit(_))) {
            let name = o.name(&test.globals);
            assert!(
                observed.contains(&name),
                "{}: `{name}` is not among {observed:?}",
                path.display()
            );
            named += 1;
        }
    }
    assert!(named > 50, "only {named} operands named");
}
