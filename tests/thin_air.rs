//! The thin-air query (docs/semantics.md §7) on the suite's thin-air tests.

use std::path::Path;
use tangle::model::Model;
use tangle::query::thin_air::{thin_air, ThinAirModels, ThinAirReport};
use tangle::query::Options;

fn report(file: &str) -> ThinAirReport {
    report_under(file, &Options::default())
}

fn report_under(file: &str, opts: &Options) -> ThinAirReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let test = tangle::syntax::parse_file(&path).unwrap();
    let (s, l, p) = (
        Model::by_name("Symb").unwrap(),
        Model::by_name("Lazy").unwrap(),
        Model::by_name("Spec").unwrap(),
    );
    let models = ThinAirModels {
        symbolic: &s,
        well_founded: &l,
        speculative: &p,
    };
    thin_air(&test, &models, opts, 4).unwrap()
}

fn under(memory: &str, engine: tangle::query::Engine) -> Options {
    let mut opts = Options::default().with_engine(engine);
    opts.memory = Some(std::sync::Arc::new(
        tangle::memory::MemoryModel::resolve(memory)
            .unwrap()
            .unwrap(),
    ));
    opts
}

/// Under a cat memory model, reads return values of a set G that grows with what runs write,
/// and a Symb op result may be any value, so G is every value (docs/memory-models.md): the
/// thin-air outcome is found with its cycle, the reads-from link taken from the relaxed
/// witness. The well-founded set comes from either engine (the symbolic one is always Z3's).
#[test]
fn under_a_memory_model_thin_air_is_found_with_its_cycle() {
    use tangle::query::Engine;
    for (memory, engine) in [
        ("vulkan", Engine::Smt),
        ("vulkan", Engine::Explore),
        ("ptx", Engine::Smt),
    ] {
        let r = report_under(
            "litmus/features/symb_value_thin_air.litmus",
            &under(memory, engine),
        );
        assert_eq!(r.symbolic, format!("Symb+{memory}"));
        assert_eq!(r.condition_thin_air, Some(true), "{memory} {engine:?}");
        let first = &r.thin_air[0];
        assert_eq!(first.values, vec![42]);
        assert_eq!(first.speculative_allows, Some(false));
        let cycle = first.cycle.join("\n");
        assert!(cycle.contains("subgroupMax"), "{cycle}");
        assert!(cycle.contains("which is read by"), "{cycle}");
        assert!(cycle.contains("the cycle closes"), "{cycle}");
    }
    let r = report_under(
        "litmus/features/symb_participant_thin_air.litmus",
        &under("vulkan", Engine::Smt),
    );
    assert_eq!(r.condition_thin_air, Some(true));
    assert!(r.incomplete.is_none(), "{:?}", r.incomplete);
}

/// A stale read that SC forbids is no thin air under a relaxed model: Lazy+vulkan reaches
/// `symb_early_value`'s outcome by reading x's initial value, with no op result used early.
#[test]
fn a_relaxed_model_can_make_thin_air_well_founded() {
    let file = "litmus/features/symb_early_value.litmus";
    assert_eq!(report(file).condition_thin_air, Some(true));
    let r = report_under(file, &under("vulkan", tangle::query::Engine::Smt));
    assert_eq!(r.condition_thin_air, Some(false));
    assert!(r.thin_air.iter().all(|o| !o.satisfies), "{:?}", r.thin_air);
}

/// When the well-founded list is cut (here at 256 outcomes: a shuffle of a lane that does not
/// take part reads any value), an outcome beyond it is asked of the well-founded model before
/// it is called thin air. Before, eight of Lazy's own outcomes were listed as thin air.
#[test]
fn a_cut_well_founded_list_never_makes_an_outcome_thin_air() {
    let r = report("litmus/features/sg_unspecified_values.litmus");
    assert!(r.incomplete.is_some());
    assert!(r.thin_air.is_empty(), "{:?}", r.thin_air);
}

#[test]
fn value_thin_air_is_reported_with_its_cycle_and_spec_forbids_it() {
    let r = report("litmus/features/symb_value_thin_air.litmus");
    assert_eq!(r.condition_thin_air, Some(true));
    let first = &r.thin_air[0];
    assert!(
        first.satisfies,
        "the condition's outcome (m == 42) comes first"
    );
    assert_eq!(first.values, vec![42]);
    assert_eq!(first.speculative_allows, Some(false));
    let cycle = first.cycle.join("\n");
    assert!(cycle.contains("subgroupMax"), "{cycle}");
    assert!(cycle.contains("which is read by"), "{cycle}");
    assert!(cycle.contains("which is an argument of"), "{cycle}");
    assert!(cycle.contains("the cycle closes"), "{cycle}");
    assert!(!first.witness.is_empty());
}

#[test]
fn self_justifying_speculation_is_thin_air_that_spec_also_allows() {
    let r = report("litmus/features/spec_self_justify.litmus");
    assert_eq!(r.condition_thin_air, Some(true));
    let o = r.thin_air.iter().find(|o| o.satisfies).unwrap();
    assert_eq!(o.speculative_allows, Some(true));
    assert!(
        o.cycle.join("\n").contains("decides who participates in"),
        "{:?}",
        o.cycle
    );
}

#[test]
fn participant_thin_air_names_the_deciding_branch() {
    let r = report("litmus/features/symb_participant_thin_air.litmus");
    assert_eq!(r.condition_thin_air, Some(true));
    assert!(r.thin_air[0]
        .cycle
        .join("\n")
        .contains("decides who participates in"));
}

#[test]
fn an_early_use_without_a_cycle_is_explained() {
    let r = report("litmus/features/symb_early_value.litmus");
    assert_eq!(r.condition_thin_air, Some(true));
    assert!(r.thin_air[0].cycle[0].contains("used before every participant"));
}

#[test]
fn paper_tests_have_no_thin_air() {
    for f in ["litmus/paper/sso_ww.litmus", "litmus/paper/cm_wr.litmus"] {
        let r = report(f);
        assert_eq!(r.condition_thin_air, Some(false), "{f}");
        assert!(r.thin_air.is_empty(), "{f}: {:?}", r.thin_air[0].values);
    }
}

/// `outcomes` lists a value out of thin air (Symb) or an unspecified read (any model) once, as
/// a family with free values, instead of 256 arbitrary numbers; and each family is checked
/// here apart from the proof that made it: members picked at random are each reachable by
/// Z3's own query for that exact outcome.
#[test]
fn a_free_value_is_one_family_and_its_members_are_reachable() {
    use tangle::engine::smt::{Answer, Encoding};
    use tangle::query::{self, Verdict};
    let cases = [
        ("litmus/features/symb_value_thin_air.litmus", "Symb", 1usize),
        ("litmus/features/sg_unspecified_values.litmus", "SSO", 3),
    ];
    let mut seed = 0x2545_f491_u32;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for (file, model, groups) in cases {
        let test = tangle::syntax::parse_file(Path::new(file)).unwrap();
        let m = Model::by_name(model).unwrap();
        let opts = Options::default().with_free_values(true);
        let a = query::analyse(&test, &m, &opts).unwrap();
        assert_eq!(a.verdict, Verdict::Allowed, "{file}");
        assert!(a.outcomes_complete, "{file}: {:?}", a.outcomes_incomplete);
        assert_eq!(a.outcomes.len(), 1, "{file}: {:?}", a.outcomes);
        let fam = &a.outcomes[0];
        assert_eq!(fam.free.len(), groups, "{file}: {fam:?}");
        assert!(fam.satisfies && !fam.satisfies_all, "{file}");
        // Without the option, the same test lists numbers up to the limit.
        let plain = query::analyse(&test, &m, &Options::default()).unwrap();
        assert!(
            !plain.outcomes_complete && plain.outcomes.len() == 256,
            "{file}"
        );
        let prog = query::compile(&test, opts.unroll).unwrap();
        let enc = Encoding::new(&prog, std::slice::from_ref(&m), &opts.smt_options()).unwrap();
        for _ in 0..6 {
            let mut vals = fam.values.clone();
            for g in &fam.free {
                let v = next();
                for &i in g {
                    vals[i] = v;
                }
            }
            assert!(
                matches!(enc.reaches(&m, &vals), Answer::Yes(_)),
                "{file}: {vals:?} is in the family but not reachable"
            );
        }
    }
}
