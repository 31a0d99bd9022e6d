//! Runs every `.litmus` file in tangle's format under `litmus/` through the explorer under every model it can
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

/// The execution models, smallest first. Each model's executions include those of every
/// model before it, except that Spec and Lazy are incomparable: CM ⊂ SM ⊂ SCF ⊂ SSO ⊂
/// {Spec, Lazy} ⊂ Symb. Written out here, not taken from the crate.
const LATTICE: [&str; 7] = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"];

/// Does every execution of model `a` belong to model `b` too (`a ⊆ b`)?
fn included(a: &str, b: &str) -> bool {
    let rank = |m: &str| LATTICE.iter().position(|x| *x == m).unwrap();
    let (i, j) = (rank(a), rank(b));
    i == j || (i < j && (a, b) != ("Spec", "Lazy"))
}

/// Was the file's `expect` line written by tangle itself (`// Found by: tangle distinguish`,
/// from its own Z3 run) rather than by hand? Checking such a line with Z3 checks Z3 against
/// itself, so it does not count toward the floors below.
fn machine_written(test: &tangle::syntax::ast::Test) -> bool {
    test.source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .any(|l| l.contains("Found by: tangle"))
}

/// Every `expect` entry of every suite file, checked with Z3 under all seven models (Symb
/// included, which only Z3 answers); the explorer's check above covers the six it runs. The
/// floors count only hand-written `expect` lines: the `litmus/distinguish/` files' lines come
/// from tangle's own Z3 run (their entries are still checked, as a regression test, but
/// confirm nothing). The lattice test below checks every file's Symb column independently.
#[test]
fn every_expect_entry_holds_under_z3_including_symb() {
    let models = Model::builtin();
    let mut failures = Vec::new();
    let (mut checked, mut symb, mut machine) = (0, 0, 0);
    for f in common::suite_files() {
        let test = tangle::syntax::parse_file(&f).unwrap();
        if test.expect.is_empty() {
            continue;
        }
        let by_hand = !machine_written(&test);
        machine += usize::from(!by_hand);
        assert!(
            !f.to_string_lossy().contains("/litmus/distinguish/") || !by_hand,
            "{}: a distinguish file not recognised as found by tangle",
            f.display()
        );
        let prog = query::compile(&test, 8).expect("suite files unroll");
        let opts = Options::default()
            .with_engine(query::Engine::Smt)
            .with_outcomes(false);
        for a in query::analyse_models(&test, &prog, &models, &opts) {
            let Some(exp) = a.expected else { continue };
            if by_hand {
                checked += 1;
                symb += usize::from(a.model == "Symb");
            }
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
    assert!(machine >= 9, "only {machine} files found by tangle");
    assert!(
        checked >= CHECKED_FLOOR && symb >= SYMB_FLOOR,
        "only {checked} hand-written entries ({symb} Symb) checked"
    );
}

/// Hand-written `expect` entries checked with Z3 (707 when written), and of those the Symb
/// entries (101 when written).
const CHECKED_FLOOR: usize = 700;
const SYMB_FLOOR: usize = 100;

/// The model lattice, for every suite file: the outcome a smaller model allows, every larger
/// model allows. Each model's verdict comes from up to three sources: the file's `expect`
/// line, the explorer (the six models it runs) and Z3 (all seven). For every `a ⊂ b`, no
/// source may say `a` allows while any source says `b` forbids: so if Spec or Lazy allows,
/// Symb must allow, and if Symb forbids, every smaller model must forbid. This checks the
/// Symb column (Z3's verdict and the `expect` entry) against the explorer, an engine that did
/// not write it, also in the files whose `expect` line came from Z3.
#[test]
fn every_verdict_respects_the_model_lattice() {
    let models = Model::builtin();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, LATTICE, "the built-in models changed");
    let explorable: Vec<Model> = models
        .iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .cloned()
        .collect();
    let mut failures = Vec::new();
    let (mut files, mut compared, mut symb) = (0, 0, 0);
    for f in common::suite_files() {
        let test = tangle::syntax::parse_file(&f).unwrap();
        let prog = query::compile(&test, 8).expect("suite files unroll");
        // (model, source, allows), for every entry and decided verdict.
        let mut says: Vec<(String, &str, bool)> = Vec::new();
        let z3 = Options::default()
            .with_engine(query::Engine::Smt)
            .with_outcomes(false);
        for a in query::analyse_models(&test, &prog, &models, &z3) {
            if let Some(exp) = a.expected {
                says.push((a.model.clone(), "expect", exp));
            }
            if let Verdict::Allowed | Verdict::Forbidden = a.verdict {
                says.push((a.model.clone(), "Z3", a.verdict == Verdict::Allowed));
                symb += usize::from(a.model == "Symb");
            }
        }
        let explore = Options::default()
            .with_engine(query::Engine::Explore)
            .with_outcomes(false);
        for a in query::analyse_models(&test, &prog, &explorable, &explore) {
            if let Verdict::Allowed | Verdict::Forbidden = a.verdict {
                says.push((a.model.clone(), "explorer", a.verdict == Verdict::Allowed));
            }
        }
        files += 1;
        for (a, sa, _) in says.iter().filter(|s| s.2) {
            for (b, sb, _) in says.iter().filter(|s| !s.2) {
                if a != b && included(a, b) {
                    failures.push(format!(
                        "{}: {a} allows ({sa}) but the larger {b} forbids ({sb})",
                        f.display()
                    ));
                }
            }
        }
        compared += says
            .iter()
            .flat_map(|(a, _, _)| {
                says.iter()
                    .filter(move |(b, _, _)| a != b && included(a, b))
            })
            .count();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(files, common::suite_files().len());
    assert!(
        symb >= LATTICE_SYMB_FLOOR && compared > 0,
        "only {symb} Symb verdicts decided by Z3 ({compared} pairs compared)"
    );
}

/// Suite files whose Symb verdict Z3 decides (118 of 120 when written: the liveness files
/// `counter_past_bound` and `spin_in_lockstep` are cut by the loop bound).
const LATTICE_SYMB_FLOOR: usize = 115;

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
