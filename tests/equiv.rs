//! Program equivalence (`tangle equiv`) on the before/after pairs of `litmus/transforms/`.

use std::path::Path;
use tangle::model::Model;
use tangle::query::equiv::{equiv, EquivError, EquivReport, Holds, Relation, Side};
use tangle::query::{analyse, Engine, Options, Verdict};
use tangle::syntax::ast::{Operand, Prop, Test};
use tangle::vocab::BinOp;

const PAIRS: [&str; 8] = [
    "hoist_sgop",
    "hoist_sgop_value",
    "if_convert",
    "merge_arms",
    "peel_loop",
    "sink_sgop",
    "store_forward",
    "store_forward_sgop",
];

fn load(file: &str) -> Test {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    tangle::syntax::parse_file(&path).unwrap()
}

fn pair(name: &str) -> (Test, Test) {
    (
        load(&format!("litmus/transforms/{name}.before.litmus")),
        load(&format!("litmus/transforms/{name}.after.litmus")),
    )
}

fn run(p: &Test, q: &Test, refines: bool) -> EquivReport {
    equiv(p, q, &Model::builtin(), &Options::default(), refines).unwrap()
}

/// The relation of after to before per model, as in docs/transforms.md: `=`, `<` (after has
/// fewer outcomes), `>` (after has more), `#` (incomparable).
fn row(r: &EquivReport) -> String {
    r.results
        .iter()
        .map(|x| match x.relation {
            Relation::Equivalent => "=",
            Relation::QInP => "<",
            Relation::PInQ => ">",
            Relation::Incomparable => "#",
            Relation::Unknown => "?",
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The table of docs/transforms.md: the relation of after to before per model.
const TABLE: [(&str, &str); 8] = [
    //                      CM SM SCF SSO Spec Lazy Symb
    ("hoist_sgop", "= = = = < = ="),
    ("hoist_sgop_value", "= = < < < < <"),
    ("if_convert", "= = > = = = ="),
    ("merge_arms", "< < = = = = ="),
    ("peel_loop", "= = = = = = ="),
    ("sink_sgop", "= = > > > > >"),
    ("store_forward", "# # < < < < <"),
    ("store_forward_sgop", "# # # # # < <"),
];

#[test]
fn the_transformation_table_is_what_equiv_answers() {
    let mut wrong = Vec::new();
    for (name, want) in TABLE {
        let (b, a) = pair(name);
        let got = row(&run(&b, &a, false));
        if got != want {
            wrong.push(format!("{name}: got {got}, expected {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The table's cells are not `equiv`'s word alone: each is recomputed from the two
/// programs' outcome sets, enumerated one program at a time over the same observables by
/// the explorer (Symb, which the explorer does not run, by Z3's per-test enumeration), and
/// compared as sets here.
#[test]
fn each_cell_of_the_table_is_the_comparison_of_two_outcome_sets_found_apart() {
    let models = Model::builtin();
    let mut wrong = Vec::new();
    for (name, want) in TABLE {
        let (b, a) = pair(name);
        let names = run(&b, &a, false).observables;
        for (m, want) in models.iter().zip(want.split(' ')) {
            let engine = if m.name == "Symb" {
                Engine::Smt
            } else {
                Engine::Explore
            };
            let before = outcome_set(&b, m, engine, &names);
            let after = outcome_set(&a, m, engine, &names);
            let got = if after == before {
                "="
            } else if after.is_subset(&before) {
                "<"
            } else if after.is_superset(&before) {
                ">"
            } else {
                "#"
            };
            if got != want {
                wrong.push(format!(
                    "{name} under {}: the sets compare as {got}, the table says {want}",
                    m.name
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every outcome of `t` under `model` over the observables `names`, by one engine, complete.
fn outcome_set(
    t: &Test,
    model: &Model,
    engine: Engine,
    names: &[String],
) -> std::collections::BTreeSet<Vec<u32>> {
    let mut t = t.clone();
    t.condition.prop = Prop::True;
    t.observe = names.iter().map(|n| operand_named(n)).collect();
    t.expect.clear();
    let opts = Options::default().with_engine(engine).with_outcomes(true);
    let a = analyse(&t, model, &opts).unwrap();
    assert_eq!(a.observables, names, "{}", t.file);
    assert!(
        a.outcomes_complete,
        "{} under {}: {:?}",
        t.file, model.name, a.outcomes_incomplete
    );
    a.outcomes.into_iter().map(|o| o.values).collect()
}

#[test]
fn every_program_is_equivalent_to_itself_under_every_model() {
    for name in PAIRS {
        let (b, a) = pair(name);
        for t in [&b, &a] {
            let r = run(t, t, false);
            assert_eq!(r.overall(), Holds::Yes, "{name}: {}", t.file);
            assert!(r.results.iter().all(|x| x.relation == Relation::Equivalent
                && x.distinction.is_none()
                && x.p_outcomes == x.q_outcomes
                && !x.p_outcomes.is_empty()));
            assert_eq!(r.results.len(), 7);
        }
    }
}

/// A two-lane test with `globals` and `kernel`, whose condition names `regs` of both lanes
/// (so that they are compared); the values in the condition do not matter to `equiv`.
fn two_lanes(name: &str, globals: &str, kernel: &str, regs: &[&str]) -> Test {
    let cond: Vec<String> = (0..2)
        .flat_map(|t| regs.iter().map(move |r| format!("{t}:{r} == 1")))
        .collect();
    let src = format!(
        "test {name}\nthreads 2\n{globals}\nkernel {{\n{kernel}\n}}\nexists ({})\n",
        cond.join(" && ")
    );
    tangle::syntax::parse(&format!("{name}.litmus"), src.as_bytes())
        .unwrap_or_else(|d| panic!("{d}\n{src}"))
}

/// Programs that differ in text but not in behaviour, by hand: `equiv` must find them
/// equivalent under every model, with the same non-trivial outcome sets (several outcomes
/// under some model, so the comparison is not of two single forced outcomes).
///   * Two independent local assignments swapped (`a = ..; b = ..;` / `b = ..; a = ..;`):
///     locals are private and take one step each, so no lane can tell.
///   * `r = slots[lane]; s = r;` / `r = slots[lane]; s = slots[lane];`: nobody else writes
///     `slots[lane]` (each lane writes only its own cell, before), so the second load reads
///     what the first did.
#[test]
fn textually_different_but_equal_programs_are_equivalent() {
    let swap = (
        two_lanes(
            "locals_ab",
            "global x",
            "  a = lane + 1;\n  b = lane + 5;\n  x = a;\n  r = x;",
            &["a", "b", "r"],
        ),
        two_lanes(
            "locals_ba",
            "global x",
            "  b = lane + 5;\n  a = lane + 1;\n  x = a;\n  r = x;",
            &["a", "b", "r"],
        ),
        ["x", "0:a", "0:b", "0:r", "1:a", "1:b", "1:r"].as_slice(),
        // a = lane + 1, b = lane + 5.
        [(1, 1), (2, 5), (4, 2), (5, 6)].as_slice(),
    );
    let reload = |name: &str, second: &str| {
        two_lanes(
            name,
            "global slots[2]\nglobal y",
            &format!(
                "  slots[lane] = lane + 1;\n  y = lane + 1;\n  r = slots[lane];\n  s = {second};\n  t = y;"
            ),
            &["r", "s", "t"],
        )
    };
    let copy = (
        reload("copy_register", "r"),
        reload("load_again", "slots[lane]"),
        [
            "slots[0]", "slots[1]", "y", "0:r", "0:s", "0:t", "1:r", "1:s", "1:t",
        ]
        .as_slice(),
        // Each lane's cell, r and s hold lane + 1.
        [(0, 1), (1, 2), (3, 1), (4, 1), (6, 2), (7, 2)].as_slice(),
    );
    for (p, q, observables, fixed) in [swap, copy] {
        assert_ne!(p.kernel, q.kernel, "{}: the texts must differ", p.name);
        let r = run(&p, &q, false);
        assert_eq!(r.observables, observables, "{}", p.name);
        assert_eq!(r.results.len(), 7);
        for x in &r.results {
            assert_eq!(
                (&x.holds, x.relation),
                (&Holds::Yes, Relation::Equivalent),
                "{} / {} under {}: only in P {:?}, only in Q {:?}",
                p.name,
                q.name,
                x.model,
                x.only_in_p,
                x.only_in_q
            );
            assert!(x.p_complete && x.q_complete && x.distinction.is_none());
            assert_eq!(x.p_outcomes, x.q_outcomes);
        }
        assert!(
            r.results.iter().any(|x| x.p_outcomes.len() > 1),
            "{}: a single outcome under every model compares nothing",
            p.name
        );
        // The values fixed by hand hold in every outcome (the observables mean what they say).
        for x in &r.results {
            for o in &x.p_outcomes {
                for &(i, v) in fixed {
                    assert_eq!(o[i], v, "{}: {} in {o:?}", p.name, observables[i]);
                }
            }
        }
    }
}

/// A load moved above a store to the same location is a different program under every
/// model (all sequentially consistent here): in `x = 1; r = x;` each lane reads 1 (its own
/// store or the other's, both 1), while in `r = x; x = 1;` some lane reads 0 (the first load
/// precedes both stores) and both reading 1 would need a cycle (each load before its own
/// store, after the other lane's). So each has an outcome the other lacks.
#[test]
fn a_load_moved_across_a_store_to_its_location_is_not_equivalent() {
    let p = two_lanes("store_load", "global x", "  x = 1;\n  r = x;", &["r"]);
    let q = two_lanes("load_store", "global x", "  r = x;\n  x = 1;", &["r"]);
    let r = run(&p, &q, false);
    assert_eq!(r.observables, ["x", "0:r", "1:r"]);
    assert_eq!(r.overall(), Holds::No);
    assert_eq!(r.results.len(), 7);
    for x in &r.results {
        assert_eq!(x.holds, Holds::No, "{} under {}", p.name, x.model);
        assert_eq!(x.relation, Relation::Incomparable, "under {}", x.model);
        assert_eq!(x.p_outcomes, [[1, 1, 1]], "under {}", x.model);
        assert!(x.q_outcomes.contains(&vec![1, 0, 0]), "under {}", x.model);
        assert!(!x.q_outcomes.contains(&vec![1, 1, 1]), "under {}", x.model);
        assert!(x.distinction.is_some(), "under {}", x.model);
    }
}

#[test]
fn the_answer_does_not_depend_on_the_order_of_p_and_q() {
    for name in PAIRS {
        let (b, a) = pair(name);
        let (ba, ab) = (run(&b, &a, false), run(&a, &b, false));
        for (x, y) in ba.results.iter().zip(&ab.results) {
            assert_eq!(x.holds, y.holds, "{name} under {}", x.model);
            assert_eq!(x.p_in_q, y.q_in_p, "{name} under {}", x.model);
            assert_eq!(x.p_outcomes.len(), y.q_outcomes.len(), "{name}");
        }
    }
}

/// The outcome `values` of the compared locations `names`, as a proposition.
/// An observable by its report name: `0:r`, `x`, `a[2]`.
fn operand_named(n: &str) -> Operand {
    match n.split_once(':') {
        Some((t, r)) => Operand::Reg {
            thread: t.parse().unwrap(),
            reg: r.to_string(),
        },
        None => match n.split_once('[') {
            Some((g, i)) => Operand::Mem {
                global: g.to_string(),
                index: i.trim_end_matches(']').parse().unwrap(),
            },
            None => Operand::Mem {
                global: n.to_string(),
                index: 0,
            },
        },
    }
}

fn exact(names: &[String], values: &[u32]) -> Prop {
    names
        .iter()
        .zip(values)
        .map(|(n, v)| Prop::Cmp(BinOp::Eq, operand_named(n), Operand::Lit(*v)))
        .reduce(|a, b| Prop::And(Box::new(a), Box::new(b)))
        .unwrap_or(Prop::True)
}

/// Is exactly this outcome reachable in `t` under `model`? Asked of the explorer, the
/// engine that did not produce the answer.
fn explorer_allows(t: &Test, model: &str, names: &[String], values: &[u32]) -> bool {
    let mut t = t.clone();
    t.condition.prop = exact(names, values);
    t.expect.clear();
    let m = Model::by_name(model).unwrap();
    let a = analyse(&t, &m, &Options::default().with_engine(Engine::Explore)).unwrap();
    match a.verdict {
        Verdict::Allowed => true,
        Verdict::Forbidden => false,
        Verdict::Unknown(why) => panic!("explorer: unknown ({why})"),
    }
}

#[test]
fn every_distinguishing_outcome_rechecks_with_the_explorer_and_has_a_witness() {
    let mut checked = 0;
    for name in PAIRS {
        let (b, a) = pair(name);
        let r = run(&b, &a, false);
        for x in &r.results {
            if x.model == "Symb" {
                continue; // the explorer does not run Symb
            }
            let Some(d) = &x.distinction else {
                continue;
            };
            let (has, lacks) = match d.program {
                Side::P => (&b, &a),
                Side::Q => (&a, &b),
            };
            assert!(
                explorer_allows(has, &x.model, &r.observables, &d.values),
                "{name} under {}: {} should have {}",
                x.model,
                has.file,
                d.outcome
            );
            assert!(
                !explorer_allows(lacks, &x.model, &r.observables, &d.values),
                "{name} under {}: {} should not have {}",
                x.model,
                lacks.file,
                d.outcome
            );
            let w = d.witness.as_ref().expect("a witness");
            assert!(!w.is_empty());
            let text: String = w.iter().flat_map(|s| s.effects.clone()).collect();
            assert!(text.contains("terminates"), "{name}: {text}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} distinctions checked");
}

#[test]
fn refinement_is_the_subset_question() {
    // merge_arms: the merged program has fewer outcomes under CM and SM, the same elsewhere.
    let (b, a) = pair("merge_arms");
    let after_refines = run(&a, &b, true);
    assert_eq!(after_refines.overall(), Holds::Yes);
    let before_refines = run(&b, &a, true);
    let no: Vec<&str> = before_refines
        .results
        .iter()
        .filter(|x| x.holds == Holds::No)
        .map(|x| x.model.as_str())
        .collect();
    assert_eq!(no, ["CM", "SM"]);
    for x in before_refines
        .results
        .iter()
        .filter(|x| x.holds == Holds::No)
    {
        let d = x.distinction.as_ref().unwrap();
        assert_eq!(d.program, Side::P, "refinement fails on an outcome of P");
        assert!(x.only_in_p.contains(&d.values));
    }
    // store_forward: forwarding adds an outcome under CM and SM only.
    let (b, a) = pair("store_forward");
    let r = run(&a, &b, true);
    let no: Vec<&str> = r
        .results
        .iter()
        .filter(|x| x.holds == Holds::No)
        .map(|x| x.model.as_str())
        .collect();
    assert_eq!(no, ["CM", "SM"]);
}

#[test]
fn outcomes_are_matched_by_name_not_by_position() {
    // Q's condition names the registers in the other order: the comparison must not care.
    let (b, _) = pair("store_forward");
    let swapped = b.source.replace(
        "exists (0:r == 1 && 1:r == 2)",
        "exists (1:r == 2 && 0:r == 1)",
    );
    let q = tangle::syntax::parse("swapped.litmus", swapped.as_bytes()).unwrap();
    let r = run(&b, &q, false);
    assert_eq!(r.overall(), Holds::Yes);
    assert_eq!(r.observables, ["x", "0:r", "1:r"]);
}

#[test]
fn a_register_a_program_never_assigns_reads_as_zero() {
    let p = tangle::syntax::parse(
        "p.litmus",
        b"test p\nthreads 2\nglobal x\nkernel {\n  x = 1;\n  r = 0;\n}\nexists (0:r == 0)\n",
    )
    .unwrap();
    let q = tangle::syntax::parse(
        "q.litmus",
        b"test q\nthreads 2\nglobal x\nkernel {\n  x = 1;\n  s = 0;\n}\nexists (0:s == 0)\n",
    )
    .unwrap();
    let r = run(&p, &q, false);
    assert_eq!(r.overall(), Holds::Yes, "{r:?}");
    assert_eq!(r.observables, ["x", "0:r", "0:s"]);
    assert_eq!(r.results[0].p_outcomes, vec![vec![1, 0, 0]]);
}

#[test]
fn programs_with_different_globals_or_threads_are_refused() {
    let t = |src: &str| tangle::syntax::parse("t.litmus", src.as_bytes()).unwrap();
    let base = t("test a\nthreads 2\nglobal x\nkernel {\n  x = 1;\n}\nexists (x == 1)\n");
    let other = [
        (
            "test b\nthreads 2\nglobal y\nkernel {\n  y = 1;\n}\nexists (y == 1)\n",
            "global `x`",
        ),
        (
            "test b\nthreads 2\nglobal x[2]\nkernel {\n  x[0] = 1;\n}\nexists (x[0] == 1)\n",
            "an array of 2 cells",
        ),
        (
            "test b\nthreads 3\nglobal x\nkernel {\n  x = 1;\n}\nexists (x == 1)\n",
            "threads",
        ),
    ];
    for (src, says) in other {
        match equiv(
            &base,
            &t(src),
            &Model::builtin(),
            &Options::default(),
            false,
        ) {
            Err(e @ EquivError::Incompatible(_)) => {
                assert!(e.to_string().contains(says), "{e}")
            }
            other => panic!("expected an error, got {other:?}"),
        }
    }
    // Different initial values are a difference between the programs, not an error.
    let init = t("test b\nthreads 2\nglobal x = 3\nkernel {\n  r = x;\n}\nexists (x == 3)\n");
    assert!(equiv(&base, &init, &Model::builtin(), &Options::default(), false).is_ok());
}

#[test]
fn an_incomplete_outcome_set_makes_the_answer_unknown() {
    // The trip count (lane + 1) is read back from memory, so no loop depth is known before
    // the run: at --unroll 1 lane 1's second iteration is cut, and neither list is complete.
    let src = |name: &str| {
        format!("test {name}\nthreads 2\nglobal lim[2]\nkernel {{\n  lim[lane] = lane + 1;\n  n = lim[lane];\n  i = 0;\n  while (i < n) {{\n    i = i + 1;\n  }}\n}}\nexists (0:i == 1)\n")
    };
    let parse = |name: &str| tangle::syntax::parse("t.litmus", src(name).as_bytes()).unwrap();
    let (b, a) = (parse("before"), parse("after"));
    let r = equiv(
        &b,
        &a,
        &[Model::by_name("SSO").unwrap()],
        &Options::default().with_unroll(1),
        false,
    )
    .unwrap();
    match &r.results[0].holds {
        Holds::Unknown(why) => assert!(why.contains("loop bound"), "{why}"),
        other => panic!("expected unknown, got {other:?}"),
    }
    assert_eq!(r.results[0].relation, Relation::Unknown);
}

fn tangle(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tangle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn cli_exit_codes_and_output() {
    let b = "litmus/transforms/if_convert.before.litmus";
    let a = "litmus/transforms/if_convert.after.litmus";
    let (code, out, _) = tangle(&["equiv", b, a]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("SCF    no"), "{out}");
    assert!(out.contains("witness in Q"), "{out}");
    let (code, out, _) = tangle(&["equiv", b, a, "--model", "SSO", "--model", "CM"]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = tangle(&["equiv", "--refines", b, a, "-m", "SCF", "--format", "json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["answer"], "yes");
    assert_eq!(v["results"][0]["relation"], "p_in_q");
    // Bad input: a file that does not exist, a file that does not parse, unlike globals.
    let (code, _, err) = tangle(&["equiv", b, "litmus/transforms/nope.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("nope.litmus"), "{err}");
    let (code, _, err) = tangle(&["equiv", b, "Cargo.toml"]);
    assert_eq!(code, 2);
    assert!(err.contains("Cargo.toml:1:"), "located error: {err}");
    let (code, _, err) = tangle(&["equiv", b, "litmus/transforms/store_forward.before.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot be compared"), "{err}");
    // The table over the whole directory.
    let (code, out, _) = tangle(&["equiv", "--table", "litmus/transforms"]);
    assert_eq!(code, 0);
    assert!(out.contains("| `if_convert` |"), "{out}");
}

#[test]
fn docs_transforms_md_shows_the_current_table() {
    let models = Model::builtin();
    let names: Vec<String> = models.iter().map(|m| m.name.clone()).collect();
    let reports: Vec<(String, EquivReport)> = PAIRS
        .iter()
        .map(|n| {
            let (b, a) = pair(n);
            (n.to_string(), run(&b, &a, false))
        })
        .collect();
    let table = tangle::report::equiv::render_markdown_table(&reports, &names);
    let details = tangle::report::equiv::render_markdown_details(&reports);
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/transforms.md"))
            .unwrap();
    assert!(
        doc.contains(&table) && doc.contains(&details),
        "docs/transforms.md is out of date: rerun `tangle equiv --table litmus/transforms` \
         and paste its output:\n{table}\n{details}"
    );
}

/// Under a relaxed memory model a transformation SC forbids can be valid: swapping two
/// relaxed atomic stores to different locations adds an outcome under SC (`>` under every
/// execution model) and none under `vulkan` (`=`), where a reader may already see them in
/// either order. Each verdict `equiv` relies on is checked by both engines.
#[test]
fn swapping_relaxed_stores_is_valid_under_vulkan_only() {
    let load_pair = |side: &str| {
        load(&format!(
            "litmus/transforms-relaxed/swap_relaxed_stores.{side}.litmus"
        ))
    };
    let (b, a) = (load_pair("before"), load_pair("after"));
    let vulkan = std::sync::Arc::new(
        tangle::memory::MemoryModel::resolve("vulkan")
            .unwrap()
            .unwrap(),
    );
    let mut opts = Options::default();
    assert_eq!(
        row(&equiv(&b, &a, &Model::builtin(), &opts, false).unwrap()),
        "> > > > > > >"
    );
    opts.memory = Some(vulkan.clone());
    let r = equiv(&b, &a, &Model::builtin(), &opts, false).unwrap();
    assert_eq!(row(&r), "= = = = = = =");
    assert_eq!(r.results[0].model, "CM+vulkan");
    for model in ["CM", "SSO"] {
        let m = Model::by_name(model).unwrap();
        for engine in [Engine::Explore, Engine::Smt] {
            for (test, memory, allowed) in [
                (&b, None, false),
                (&a, None, true),
                (&b, Some(vulkan.clone()), true),
                (&a, Some(vulkan.clone()), true),
            ] {
                let mut o = Options::default().with_engine(engine);
                o.memory = memory;
                let v = analyse(test, &m, &o).unwrap().verdict;
                let want = if allowed {
                    Verdict::Allowed
                } else {
                    Verdict::Forbidden
                };
                assert_eq!(
                    v,
                    want,
                    "{} {model} {engine:?} {:?}",
                    test.name,
                    o.memory.map(|m| m.name.clone())
                );
            }
        }
    }
}
