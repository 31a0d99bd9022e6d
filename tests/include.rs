//! Bounded model inclusion and the search for distinguishing programs (`query::include`,
//! `query::distinguish`, `query::enumerate`), and the `include` / `distinguish` commands.

use std::collections::BTreeSet;
use std::process::Command;
use tangle::model::Model;
use tangle::query::distinguish::distinguish;
use tangle::query::enumerate::{self, Grammar, Loc, Op};
use tangle::query::include::{bounded, Combination, SearchOptions, Witness};
use tangle::query::{self, Engine, Options, Verdict};
use tangle::vocab::{Class, Kind};

fn model(n: &str) -> Combination {
    Combination::sc(Model::by_name(n).unwrap())
}

fn opts(max_threads: u32, max_size: usize) -> SearchOptions {
    SearchOptions {
        grammar: Grammar::default().with_threads(max_threads),
        max_size,
        ..Default::default()
    }
}

/// The execution models, smallest first: CM ⊂ SM ⊂ SCF ⊂ SSO ⊂ {Spec, Lazy} ⊂ Symb, with
/// Spec and Lazy incomparable. Written out here, not taken from the crate.
const LATTICE: [&str; 7] = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"];

/// Does every execution of model `a` belong to model `b` too (`a ⊆ b`)?
fn included(a: &str, b: &str) -> bool {
    let rank = |m: &str| LATTICE.iter().position(|x| *x == m).unwrap();
    let (i, j) = (rank(a), rank(b));
    i == j || (i < j && (a, b) != ("Spec", "Lazy"))
}

/// Parses the emitted file and re-analyses it. The `expect` line was written from the
/// search's own Z3 analysis, so only the explorer, an independent engine, checks it entry by
/// entry (for the models it runs). Z3 checks what the search claims and what follows from
/// the model lattice, not its own `expect` line: `allows` allows the condition, `forbids`
/// forbids it, and whatever model allows it, every larger model allows it too.
fn recheck(w: &Witness, allows: &str, forbids: &str) {
    let test = tangle::syntax::parse("witness.litmus", w.litmus.as_bytes())
        .unwrap_or_else(|d| panic!("the emitted test does not parse:\n{d}\n{}", w.litmus));
    assert_eq!(test.expect.len(), 7, "expect names every built-in model");
    let prog = query::compile(&test, 8).unwrap();
    let models = Model::builtin();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, LATTICE, "the built-in models changed");
    // The explorer: every entry of the expect line it can answer, and the named models.
    for m in models
        .iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
    {
        let a = query::analyse_models(
            &test,
            &prog,
            std::slice::from_ref(m),
            &Options::default()
                .with_engine(Engine::Explore)
                .with_outcomes(false),
        )
        .remove(0);
        assert_eq!(
            a.matches_expectation(),
            Some(true),
            "{} under {} (explorer): {:?}\n{}",
            test.name,
            m.name,
            a.verdict,
            w.litmus
        );
        if m.name == allows {
            assert_eq!(a.verdict, Verdict::Allowed, "{}", w.litmus);
        }
        if m.name == forbids {
            assert_eq!(a.verdict, Verdict::Forbidden, "{}", w.litmus);
        }
    }
    // Z3, every model at once: the two named ones and the lattice.
    let z3 = query::analyse_models(
        &test,
        &prog,
        &models,
        &Options::default()
            .with_engine(Engine::Smt)
            .with_outcomes(false),
    );
    let verdict = |name: &str| &z3[names.iter().position(|n| *n == name).unwrap()].verdict;
    assert_eq!(
        verdict(allows),
        &Verdict::Allowed,
        "{allows} (Z3)\n{}",
        w.litmus
    );
    assert_eq!(
        verdict(forbids),
        &Verdict::Forbidden,
        "{forbids} (Z3)\n{}",
        w.litmus
    );
    for a in &z3 {
        assert!(
            !matches!(a.verdict, Verdict::Unknown(_)),
            "{} (Z3): {:?}\n{}",
            a.model,
            a.verdict,
            w.litmus
        );
        for b in z3.iter().filter(|b| included(&a.model, &b.model)) {
            assert!(
                a.verdict != Verdict::Allowed || b.verdict == Verdict::Allowed,
                "{} allows but the larger {} forbids (Z3)\n{}",
                a.model,
                b.model,
                w.litmus
            );
        }
    }
}

#[test]
fn sso_is_included_in_spec_up_to_a_small_bound() {
    let r = bounded(&model("SSO"), &model("Spec"), &opts(2, 3), &mut |_| {}).unwrap();
    assert!(r.holds, "{r:?}");
    assert!(r.counterexample.is_none());
    assert_eq!(r.layers.len(), 3);
    let last = &r.layers[2];
    assert!(last.canonical < last.raw && last.checked > 0);
}

#[test]
fn spec_is_not_included_in_sso_and_the_counterexample_rechecks() {
    let r = bounded(&model("Spec"), &model("SSO"), &opts(2, 4), &mut |_| {}).unwrap();
    assert!(!r.holds);
    let w = r.counterexample.expect("Spec allows more than SSO");
    assert!(w.size <= 4 && w.threads == 2);
    assert!(w.litmus.contains("exists ("));
    recheck(&w, "Spec", "SSO");
}

#[test]
fn distinguish_cm_sm_needs_three_lanes_and_finds_a_small_test() {
    let mut seen = Vec::new();
    let d = distinguish(&model("CM"), &model("SM"), &opts(3, 3), &mut |p| {
        seen.push((p.threads, p.size))
    })
    .unwrap();
    let w = d.witness.expect("SM allows an outcome CM forbids");
    assert_eq!(
        w.threads, 3,
        "two lanes of one subgroup cannot tell CM from SM"
    );
    assert!(w.size <= 6);
    // Iterative deepening: every two-lane layer was searched first.
    assert!(d
        .layers
        .iter()
        .any(|l| l.threads == 2 && l.size == 3 && l.checked > 0));
    assert!(seen.contains(&(2, 1)) && seen.contains(&(3, 1)));
    recheck(&w, "SM", "CM");
}

#[test]
fn distinguish_finds_nothing_when_b_is_included_in_a() {
    let d = distinguish(&model("Spec"), &model("SSO"), &opts(2, 3), &mut |_| {}).unwrap();
    assert!(d.witness.is_none());
}

#[test]
fn symbolic_pairs_use_z3_and_recheck() {
    let d = distinguish(&model("Lazy"), &model("Symb"), &opts(2, 3), &mut |_| {}).unwrap();
    let w = d.witness.expect("Symb uses op results early");
    assert!(w.size <= 3);
    recheck(&w, "Symb", "Lazy");
}

/// The explorer and Z3 give the same outcome sets on every enumerated program of size 2
/// (all registers and cells observed), under every non-symbolic model.
#[test]
fn engines_agree_on_enumerated_programs() {
    engines_agree_up_to(
        &Grammar {
            locs: vec![Loc::X, Loc::Own, Loc::Next],
            ops: vec![Op::Add, Op::Elect],
            ..Grammar::default()
        },
        2,
    );
}

/// The same over a larger space (minutes): `cargo test --release --test include -- --ignored`.
#[test]
#[ignore]
fn engines_agree_on_enumerated_programs_of_size_3() {
    engines_agree_up_to(
        &Grammar {
            locs: Loc::ALL.to_vec(),
            ops: Op::ALL.to_vec(),
            ..Grammar::default()
        },
        3,
    );
}

fn engines_agree_up_to(g: &Grammar, max_size: usize) {
    let g = g.clone();
    let models: Vec<Model> = Model::builtin()
        .into_iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .collect();
    let mut checked = 0;
    for size in 1..=max_size {
        enumerate::for_each(&g, size, &mut |p| {
            let r = enumerate::render(p, 2);
            let text = r.litmus(&[], "e", "", "true", None);
            let test = tangle::syntax::parse("e.litmus", text.as_bytes()).unwrap();
            let prog = query::compile_observing(&test, 1, &r.observables(2)).unwrap();
            let sets = |engine| -> Vec<BTreeSet<Vec<u32>>> {
                query::analyse_models(
                    &test,
                    &prog,
                    &models,
                    &Options::default().with_engine(engine),
                )
                .into_iter()
                .map(|a| {
                    assert!(a.outcomes_complete, "{text}");
                    a.outcomes.into_iter().map(|o| o.values).collect()
                })
                .collect()
            };
            assert_eq!(sets(Engine::Smt), sets(Engine::Explore), "{text}");
            checked += 1;
            true
        });
    }
    assert!(checked > 50);
}

#[test]
fn cli_distinguish_writes_a_test_that_checks() {
    let dir = std::env::temp_dir().join(format!("tangle-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("scf_sso.litmus");
    let bin = env!("CARGO_BIN_EXE_tangle");
    let r = Command::new(bin)
        .args(["distinguish", "SCF", "SSO", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    // Off a terminal there is no progress display, only the layers searched and the result.
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!err.contains("searching:"), "{err}");
    assert!(
        err.contains("lanes  size") && err.contains("found in"),
        "{err}"
    );
    let check = Command::new(bin).arg("check").arg(&out).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    // A model given as a file.
    let file = dir.join("weak.toml");
    std::fs::write(
        &file,
        "name = \"Weak\"\n[classes]\nlabel = \"independent\"\nbranch = \"independent\"\nmemory = \"independent\"\nsgop = \"lazy\"\n",
    )
    .unwrap();
    let inc = Command::new(bin)
        .args(["include", "SSO"])
        .arg(&file)
        .args(["--size", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&inc.stdout);
    assert!(inc.status.success(), "{stdout}");
    assert!(stdout.contains("SSO ⊆ Weak"), "{stdout}");
    let not = Command::new(bin)
        .args(["include", "Spec", "SSO", "--size", "4"])
        .output()
        .unwrap();
    assert_eq!(not.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&not.stdout).contains("Spec ⊄ SSO"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// CEGIS over templates and enumeration search the same space in the same order, so they
/// find tests of the same size (and CEGIS's test is re-checked like enumeration's). A CEGIS
/// that learnt too much would skip a layer and find a larger test, or none.
#[test]
fn cegis_finds_tests_as_small_as_enumeration() {
    use tangle::query::include::SearchMethod;
    for (a, b) in [
        ("SM", "SCF"),
        ("SCF", "SSO"),
        ("SSO", "Lazy"),
        ("Lazy", "Symb"),
    ] {
        let e = distinguish(&model(a), &model(b), &opts(2, 3), &mut |_| {}).unwrap();
        let c_opts = SearchOptions {
            method: SearchMethod::Cegis,
            ..opts(2, 3)
        };
        let c = distinguish(&model(a), &model(b), &c_opts, &mut |_| {}).unwrap();
        let (e, c) = (e.witness.expect(a), c.witness.expect(a));
        assert_eq!(
            (c.threads, c.size),
            (e.threads, e.size),
            "{a} {b}\n{}",
            c.litmus
        );
        assert!(c.litmus.contains("Searched by CEGIS"));
        recheck(&c, b, a);
    }
    // Nothing to find: every template of every layer is decided "none".
    let c_opts = SearchOptions {
        method: SearchMethod::Cegis,
        ..opts(2, 2)
    };
    let d = distinguish(&model("Spec"), &model("SSO"), &c_opts, &mut |_| {}).unwrap();
    assert!(d.witness.is_none() && !d.timed_out);
    assert!(d
        .layers
        .iter()
        .all(|l| l.unknown == 0 && l.templates.is_some()));
}

/// A time limit ends the search as undecided, never as "none".
#[test]
fn a_time_limit_gives_an_undecided_search() {
    use tangle::query::include::SearchMethod;
    for method in [SearchMethod::Enumerate, SearchMethod::Cegis] {
        let o = SearchOptions {
            method,
            time_limit: Some(std::time::Duration::from_millis(1)),
            ..opts(3, 4)
        };
        let d = distinguish(&model("CM"), &model("SM"), &o, &mut |_| {}).unwrap();
        assert!(d.witness.is_none() && d.timed_out, "{method:?}");
        let r = bounded(&model("SM"), &model("CM"), &o, &mut |_| {}).unwrap();
        assert!(!r.holds && r.timed_out, "{method:?}");
    }
}

fn under(model: &str, memory: &str) -> Combination {
    let path = format!("{}/{memory}", env!("CARGO_MANIFEST_DIR"));
    let spec = if std::path::Path::new(&path).is_file() {
        path.as_str()
    } else {
        memory
    };
    Combination {
        model: Model::by_name(model).unwrap(),
        memory: tangle::memory::MemoryModel::resolve(spec)
            .unwrap()
            .map(std::sync::Arc::new),
    }
}

/// Each side of a search is an execution model with a memory model (`SSO+sc.cat`). herd's SC
/// as a cat file and the built-in SC give the same outcomes on every program up to the bound,
/// both ways; a weaker memory model (SC per location) is told apart from sc.cat by a store
/// buffering program, which the search finds and re-checks from its text, and which both
/// engines confirm. CEGIS is refused under a memory model (its templates are SC only).
#[test]
fn searches_pair_memory_models_with_execution_models() {
    let (sso, sccat) = (model("SSO"), under("SSO", "sc.cat"));
    for (a, b) in [(&sso, &sccat), (&sccat, &sso)] {
        // Size 3 (1,341 programs each way) holds too: 23 s a direction.
        let r = bounded(a, b, &opts(2, 2), &mut |_| {}).unwrap();
        assert!(
            r.holds && r.counterexample.is_none(),
            "{} ⊆ {}: {:?}",
            r.a,
            r.b,
            r.stop
        );
        assert!(r.layers.iter().map(|l| l.checked).sum::<u64>() > 100);
    }
    let weak = under("SSO", "tests/data/cat/coherence.cat");
    let d = distinguish(&sccat, &weak, &opts(2, 3), &mut |_| {}).unwrap();
    assert_eq!(
        (d.a.as_str(), d.b.as_str()),
        ("SSO+sc.cat", "SSO+coherence.cat")
    );
    let w = d.witness.expect("store buffering");
    assert_eq!((w.threads, w.size), (2, 2), "{}", w.litmus);
    assert!(w.litmus.contains("SSO+coherence.cat allow"), "{}", w.litmus);
    both_engines_give(
        &w.litmus,
        &[(&sccat, Verdict::Forbidden), (&weak, Verdict::Allowed)],
    );
    let cegis = SearchOptions {
        method: tangle::query::search::SearchMethod::Cegis,
        ..opts(2, 2)
    };
    let e = distinguish(&sccat, &weak, &cegis, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("CEGIS"), "{e}");
}

/// Search options whose loads and stores are relaxed device-scope atomics (Vulkan's storage
/// class and non-private flags), so that `vulkan.cat` sees race-free programs.
fn relaxed(max_threads: u32, max_size: usize) -> SearchOptions {
    let words = |w: &str| w.split(',').map(String::from).collect::<Vec<_>>();
    let mut o = opts(max_threads, max_size);
    o.grammar.access = enumerate::Access {
        load: words("relaxed,device,sc0,nonpriv"),
        store: words("relaxed,device,sc0,nonpriv"),
    };
    o
}

/// Parses an emitted test and checks each side's verdict on it with both engines, each side
/// under its own memory model.
fn both_engines_give(litmus: &str, sides: &[(&Combination, Verdict)]) {
    let test = tangle::syntax::parse("emitted.litmus", litmus.as_bytes()).unwrap();
    for engine in [Engine::Explore, Engine::Smt] {
        for (c, want) in sides {
            let mut o = Options::default().with_engine(engine);
            o.memory = c.memory.clone();
            let a = query::analyse(&test, &c.model, &o).unwrap();
            assert_eq!(a.verdict, *want, "{} {engine:?}\n{litmus}", c.name());
        }
    }
}

/// The grammar's loads and stores may be atomics with words (`--load-words`, `--store-words`),
/// so that a relaxed model sees race-free programs. Under the bundled `vulkan.cat`, which
/// reads the schedule nowhere, CM and SSO then agree on every program searched (with no
/// program left undecided): lockstep is an order of execution, not of memory. A model that
/// makes lockstep lanes coherent along the schedule (`tests/data/cat/vulkan-lockstep.cat`)
/// tells them apart with two relaxed stores, and the emitted test carries the words and
/// reads back with both engines' verdicts. CEGIS, which writes plain accesses, refuses words.
#[test]
fn searches_with_atomic_access_words() {
    let d = distinguish(
        &under("CM", "vulkan"),
        &under("SSO", "vulkan"),
        &relaxed(2, 2),
        &mut |_| {},
    )
    .unwrap();
    assert!(d.witness.is_none(), "{:?}", d.witness.map(|w| w.litmus));
    assert!(d.layers.iter().all(|l| l.unknown == 0) && d.layers.len() == 2);
    assert!(d.layers.iter().map(|l| l.checked).sum::<u64>() > 100);
    let (cm, sso) = (
        under("CM", "tests/data/cat/vulkan-lockstep.cat"),
        under("SSO", "tests/data/cat/vulkan-lockstep.cat"),
    );
    let d = distinguish(&cm, &sso, &relaxed(2, 3), &mut |_| {}).unwrap();
    let w = d.witness.expect("two relaxed stores a lane");
    assert_eq!((w.threads, w.size), (2, 2), "{}", w.litmus);
    assert!(
        w.litmus
            .contains("atomicStore(slots[lane], 1, relaxed, device, sc0, nonpriv);"),
        "{}",
        w.litmus
    );
    assert!(
        w.litmus
            .replace("\n// ", " ")
            .contains("loads atomic with relaxed, device, sc0, nonpriv"),
        "{}",
        w.litmus
    );
    both_engines_give(
        &w.litmus,
        &[(&cm, Verdict::Forbidden), (&sso, Verdict::Allowed)],
    );
    let cegis = SearchOptions {
        method: tangle::query::search::SearchMethod::Cegis,
        ..relaxed(2, 2)
    };
    let e = distinguish(&model("CM"), &model("SSO"), &cegis, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("plain loads and stores"), "{e}");
    // Words the litmus language does not know are refused before any search.
    let out = Command::new(env!("CARGO_BIN_EXE_tangle"))
        .args(["distinguish", "CM", "SSO", "--load-words", "relaxed,galaxy"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("access words") && err.contains("galaxy"),
        "{err}"
    );
}

/// The product lattice (execution model x memory model, `include --lattice --memory-model sc
/// --memory-model vulkan`) over race-free programs (relaxed atomics), CM and SSO only: every
/// model under Vulkan has 2+2W, which no model under SC has (refuted at 2 lanes, 2
/// instructions); nothing under SC escapes its Vulkan counterpart, and CM and SSO agree under
/// Vulkan (no counterexample, nothing undecided); CM ⊆ SSO under SC by the per-rule proof.
/// The DOT picture names all four.
#[test]
fn the_product_lattice_orders_memory_models_over_race_free_programs() {
    use tangle::query::include::{lattice, InclusionVerdict};
    let o = relaxed(2, 2);
    let sides = [
        model("CM"),
        model("SSO"),
        under("CM", "vulkan"),
        under("SSO", "vulkan"),
    ];
    let pairs = lattice(&sides, &o, &mut |_| {}).unwrap();
    assert_eq!(pairs.len(), 12);
    let get = |a: &str, b: &str| {
        &pairs
            .iter()
            .find(|p| p.a == a && p.b == b)
            .unwrap_or_else(|| panic!("{a} ⊆ {b} missing"))
            .verdict
    };
    let refuted = |v: &InclusionVerdict| {
        matches!(
            v,
            InclusionVerdict::Refuted {
                threads: 2,
                size: 2
            }
        )
    };
    let holds_to_bound = |v: &InclusionVerdict| {
        matches!(
            v,
            InclusionVerdict::Open {
                undecided: false,
                ..
            }
        )
    };
    assert!(matches!(get("CM", "SSO"), InclusionVerdict::Proven));
    for a in ["CM+vulkan", "SSO+vulkan"] {
        for b in ["CM", "SSO"] {
            assert!(refuted(get(a, b)), "{a} ⊆ {b}: {:?}", get(a, b));
        }
    }
    for (a, b) in [
        ("CM", "CM+vulkan"),
        ("SSO", "SSO+vulkan"),
        ("CM", "SSO+vulkan"),
        ("CM+vulkan", "SSO+vulkan"),
        ("SSO+vulkan", "CM+vulkan"),
    ] {
        assert!(holds_to_bound(get(a, b)), "{a} ⊆ {b}: {:?}", get(a, b));
    }
    let names: Vec<(String, String)> = sides.iter().map(|c| (c.name(), String::new())).collect();
    let dot = tangle::report::dot::lattice(&names, &pairs);
    for n in ["CM", "SSO", "CM+vulkan", "SSO+vulkan"] {
        assert!(dot.contains(&format!("label = \"{n}\"")), "{n}\n{dot}");
    }
}

/// On the command line a side is `MODEL+MEMORY`; an unknown memory model is an error with
/// exit 2, and `--memory-model` outside `--lattice` says how to write two sides.
#[test]
fn cli_sides_name_their_memory_model() {
    let bin = env!("CARGO_BIN_EXE_tangle");
    let run = |args: &[&str]| Command::new(bin).args(args).output().unwrap();
    let r = run(&[
        "distinguish",
        "SSO+sc.cat",
        "SSO+tests/data/cat/coherence.cat",
        "--max-threads",
        "2",
        "--max-size",
        "2",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(
        text.contains("SSO+coherence.cat allows, SSO+sc.cat forbids"),
        "{text}"
    );
    // `minimize` takes sides the same way.
    let file = std::env::temp_dir().join(format!("tangle-sb-{}.litmus", std::process::id()));
    std::fs::write(&file, text.as_bytes()).unwrap();
    let r = run(&[
        "minimize",
        &file.to_string_lossy(),
        "--allowed-by",
        "SSO+tests/data/cat/coherence.cat",
        "--forbidden-by",
        "SSO+sc.cat",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let min = String::from_utf8_lossy(&r.stdout);
    assert!(
        min.contains("SSO+coherence.cat allows the condition, SSO+sc.cat forbids it"),
        "{min}"
    );
    let r = run(&["include", "SSO", "SSO+nope"]);
    assert_eq!(r.status.code(), Some(2));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("unknown memory model `nope`"), "{err}");
    let r = run(&["include", "SSO", "CM", "--memory-model", "vulkan"]);
    assert_eq!(r.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&r.stderr).contains("MODEL+MEMORY"));
}

/// Verdicts carried along proven inclusions (docs/decisions.md, "Verdicts carried between
/// models"): on the artifact's `sso.comp` (its assertion can fail under Spec, Lazy and Symb
/// only), Symb, which the explorer does not run, is settled `allow` by Spec or Lazy; a model
/// made undecided is settled by the decided models it lies within (`forbid`) or above
/// (`allow`), never by one on the wrong side.
#[test]
fn verdicts_carry_along_proven_inclusions() {
    use tangle::query::carry::carry;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("litmus/public/tla-artifact/sso.comp");
    let test = tangle::load(&path, &Default::default()).unwrap();
    let models: Vec<Model> = LATTICE.iter().map(|m| Model::by_name(m).unwrap()).collect();
    let explore = Options::default()
        .with_engine(Engine::Explore)
        .with_outcomes(false);
    let own: Vec<_> = (models.iter())
        .map(|m| query::analyse(&test, m, &explore).unwrap())
        .collect();
    let words = |a: &[query::Analysis]| a.iter().map(|a| a.verdict.short()).collect::<Vec<_>>();
    assert_eq!(
        words(&own),
        ["forbid", "forbid", "forbid", "forbid", "allow", "allow", "unknown"]
    );
    let mut carried = own.clone();
    carry(&models, &mut carried);
    assert_eq!(carried[6].verdict, Verdict::Allowed);
    assert!(carried[6]
        .notes
        .iter()
        .any(|n| n.contains("every execution under Spec")));
    assert!(carried[6].witness.is_some());
    // CM made undecided: SM forbids, and CM ⊆ SM.
    let mut a = own.clone();
    a[0].verdict = Verdict::Unknown("made undecided".into());
    carry(&models, &mut a);
    assert_eq!(a[0].verdict, Verdict::Forbidden);
    // SSO made undecided, and Spec, Lazy, Symb too: SSO's forbid comes from no model below it
    // (CM, SM, SCF forbid, which says nothing of SSO), its allow from none above.
    let mut a = own.clone();
    for x in &mut a[3..] {
        x.verdict = Verdict::Unknown("made undecided".into());
    }
    carry(&models, &mut a);
    assert_eq!(words(&a)[3..], ["unknown"; 4]);
    // Spec made undecided, Symb allows: Spec ⊆ Symb says nothing of Spec's allow.
    let mut a = own.clone();
    a[4].verdict = Verdict::Unknown("made undecided".into());
    a[6].verdict = Verdict::Allowed;
    carry(&models, &mut a);
    assert!(matches!(a[4].verdict, Verdict::Unknown(_)));
}
