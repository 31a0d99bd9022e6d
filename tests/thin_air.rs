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

/// Under a cat memory model, reads return values of a set that grows with what runs write, and
/// Symb's op results may be any value: the set never stops growing, so the question is
/// unknown, with why, never "no thin air" (docs/memory-models.md). (The symbolic set is always
/// Z3's; the explorer gives the well-founded one here. About 10 s: the set grows to its limit.)
#[test]
fn under_a_memory_model_thin_air_is_unknown_with_why() {
    let engine = tangle::query::Engine::Explore;
    let mut opts = Options::default().with_engine(engine);
    opts.memory = Some(std::sync::Arc::new(
        tangle::memory::MemoryModel::resolve("vulkan")
            .unwrap()
            .unwrap(),
    ));
    let r = report_under("litmus/features/symb_value_thin_air.litmus", &opts);
    assert_eq!(r.symbolic, "Symb+vulkan");
    assert_eq!(r.condition_thin_air, None, "{engine:?}");
    let why = r.incomplete.clone().unwrap();
    assert!(why.contains("kept growing"), "{why}");
    // The text never says "none" of an incomplete list.
    let text = tangle::report::text::thin_air(&r, false);
    assert!(
        text.contains("No thin-air outcome found (the list is incomplete"),
        "{text}"
    );
    assert!(!text.contains("No thin-air outcome.\n"), "{text}");
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
