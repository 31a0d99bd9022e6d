//! The two engines must agree: for every suite file and every model both run, the explorer's
//! and the Z3 encoding's outcome sets (and verdicts) are identical.

mod common;

use tangle::model::Model;
use tangle::query::{self, Engine, Options, Verdict};
use tangle::vocab::{Class, Kind};

#[test]
fn explorer_and_smt_agree_on_every_suite_file() {
    let files = common::suite_files();
    let models: Vec<Model> = Model::builtin()
        .into_iter()
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .collect();
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for f in &files {
        let test = tangle::syntax::parse_file(f).unwrap();
        let prog = query::compile(&test, 8).unwrap();
        let ex = query::analyse_models(
            &test,
            &prog,
            &models,
            &Options::default().with_engine(Engine::Explore),
        );
        let sm = query::analyse_models(
            &test,
            &prog,
            &models,
            &Options::default().with_engine(Engine::Smt),
        );
        for (a, b) in ex.iter().zip(&sm) {
            let both_complete = a.outcomes_complete && b.outcomes_complete;
            let verdicts_known = !matches!(a.verdict, Verdict::Unknown(_))
                && !matches!(b.verdict, Verdict::Unknown(_));
            if verdicts_known && a.verdict != b.verdict {
                disagreements.push(format!(
                    "{} {}: explorer {} vs smt {}",
                    a.test,
                    a.model,
                    a.verdict.short(),
                    b.verdict.short()
                ));
            }
            if both_complete {
                compared += 1;
                let ea: Vec<&Vec<u32>> = a.outcomes.iter().map(|o| &o.values).collect();
                let eb: Vec<&Vec<u32>> = b.outcomes.iter().map(|o| &o.values).collect();
                if ea != eb {
                    disagreements.push(format!(
                        "{} {}: outcomes differ\n  explorer {:?}\n  smt      {:?}",
                        a.test, a.model, ea, eb
                    ));
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert!(
        compared > 300,
        "only {compared} complete outcome sets compared"
    );
}

/// A few hundred random programs (2-4 lanes, 1-2 subgroups, loops, atomics, every subgroup
/// op): both engines must find the same outcome sets. The soak example runs many more.
#[test]
fn explorer_and_smt_agree_on_random_programs() {
    use tangle::gen::{generate, GenConfig};
    use tangle::query::crosscheck::crosscheck;
    let mut compared = 0;
    let mut bad = Vec::new();
    // At most 4 threads keeps this in cargo test's budget; the soak example goes wider.
    for seed in 0..200u64 {
        let cfg = GenConfig {
            lanes: 2 + (seed % 2) as u32,
            subgroups: if seed % 4 == 0 { 2 } else { 1 },
            ..GenConfig::default()
        };
        let text = generate(seed, &cfg);
        let test = tangle::syntax::parse("gen.litmus", text.as_bytes()).unwrap();
        let r = crosscheck(&test, 50_000, 4).unwrap();
        compared += r.compared;
        if !r.disagreements.is_empty() {
            bad.push(format!(
                "seed {seed}:\n{text}\n{}",
                r.disagreements.join("\n")
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(compared > 800, "only {compared} outcome sets compared");
}

/// Random programs under relaxed memory: the concrete cat back end (explorer) and the
/// symbolic one (Z3) must find the same outcomes and raise the same flags, for SC written in
/// cat (which reads the schedule), the bundled Vulkan model, and the bundled PTX model (which
/// reads dependencies and, through `sync_fence`, the schedule).
#[test]
fn cat_back_ends_agree_on_random_programs() {
    use std::sync::Arc;
    use tangle::gen::{generate, GenConfig};
    use tangle::memory::MemoryModel;
    use tangle::query::crosscheck::crosscheck_memory;
    let seeds: u64 = std::env::var("TANGLE_CAT_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let mut compared = 0;
    let mut bad = Vec::new();
    for name in ["sc.cat", "vulkan", "ptx"] {
        let mm = Arc::new(MemoryModel::resolve(name).unwrap().unwrap());
        for seed in 0..seeds {
            // Two threads: one subgroup of two lanes, or (every fourth seed) two subgroups
            // of one lane; more threads make the explorer's candidate executions explode.
            let cfg = GenConfig {
                lanes: if seed % 4 == 0 { 1 } else { 2 },
                subgroups: if seed % 4 == 0 { 2 } else { 1 },
                max_stmts: 5,
                ..GenConfig::default()
            };
            let text = generate(seed, &cfg);
            let test = tangle::syntax::parse("gen.litmus", text.as_bytes()).unwrap();
            if let Some(dir) = std::env::var_os("TANGLE_CAT_TRACE") {
                let path = std::path::Path::new(&dir).join(format!("{name}_{seed}.litmus"));
                std::fs::write(&path, &text).unwrap();
                eprintln!("{}", path.display());
            }
            let r = crosscheck_memory(&test, 50_000, 2, Some(mm.clone())).unwrap();
            compared += r.compared;
            if !r.disagreements.is_empty() {
                bad.push(format!(
                    "{name} seed {seed}:\n{text}\n{}",
                    r.disagreements.join("\n")
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(
        compared > seeds as usize * 4,
        "only {compared} outcome sets compared"
    );
}
