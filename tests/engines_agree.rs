//! The two engines must agree: for every suite file and every model both run, the explorer's
//! and the Z3 encoding's outcome sets (and verdicts) are identical.

mod common;

use tangle::model::Model;
use tangle::query::{self, Engine, Options, Verdict};

#[test]
fn explorer_and_smt_agree_on_every_suite_file() {
    let files = common::suite_files();
    // Symb too: the explorer runs it on programs without subgroup ops (as SSO).
    let models: Vec<Model> = Model::builtin();
    let mut disagreements = Vec::new();
    let mut compared = 0;
    let mut symb = 0;
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
                symb += usize::from(a.model == "Symb");
                // The undefined behaviour each finds, by kind (both judged every run).
                let kinds = query::crosscheck::compared_undefined_behaviour;
                if kinds(a) != kinds(b) {
                    disagreements.push(format!(
                        "{} {}: undefined behaviour differs: explorer {:?} vs smt {:?}",
                        a.test,
                        a.model,
                        kinds(a),
                        kinds(b)
                    ));
                }
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
    assert!(symb >= 20, "only {symb} Symb outcome sets compared");
}

/// Random program `seed`: 2 or 3 lanes, one subgroup or (one seed in four) two.
fn random_program(seed: u64) -> (String, tangle::syntax::ast::Test) {
    use tangle::gen::{generate, GenConfig};
    let cfg = GenConfig {
        lanes: 2 + (seed % 2) as u32,
        subgroups: if seed.is_multiple_of(4) { 2 } else { 1 },
        ..GenConfig::default()
    };
    let text = generate(seed, &cfg);
    let test = tangle::syntax::parse("gen.litmus", text.as_bytes()).unwrap();
    (text, test)
}

/// A few hundred random programs (2-4 lanes, 1-2 subgroups, loops, atomics, every subgroup
/// op): both engines must find the same outcome sets. The soak example runs many more.
#[test]
fn explorer_and_smt_agree_on_random_programs() {
    use tangle::query::crosscheck::crosscheck;
    let mut compared = 0;
    let mut bad = Vec::new();
    // At most 4 threads keeps this in cargo test's budget; the soak example goes wider.
    for seed in 0..200u64 {
        let (text, test) = random_program(seed);
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

/// Barriers with a quorum (docs/semantics.md §3), on random three-thread programs: each
/// thread stores, loads and passes at most one barrier of a random quorum (1 to 4, so some
/// never open), under SC, the bundled Vulkan model and PTX. The explorer and Z3 find the
/// same outcome sets.
#[test]
fn engines_agree_on_random_programs_with_quorum_barriers() {
    use std::sync::Arc;
    use tangle::memory::MemoryModel;
    use tangle::query::crosscheck::crosscheck_memory;
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut below = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let mut compared = 0;
    let mut bad = Vec::new();
    for round in 0..14 {
        let quorum = 1 + below(4);
        let mut arms = Vec::new();
        for _ in 0..3 {
            let mut body = vec!["a = 0;".to_string(), "b = 0;".to_string()];
            let ops = 1 + below(3);
            let barrier_at = below(ops + 1);
            for k in 0..=ops {
                if k == barrier_at {
                    body.push(format!(
                        "barrier(quorum(1, {quorum}), acq_rel, device, semsc0);"
                    ));
                }
                if k < ops {
                    let g = ["x", "y"][below(2) as usize];
                    body.push(match below(3) {
                        0 => format!("atomicStore({g}, {}, av, device, sc0);", 1 + below(2)),
                        1 => format!("a = atomicLoad({g}, vis, device, sc0);"),
                        _ => format!("b = atomicLoad({g}, vis, device, sc0);"),
                    });
                }
            }
            arms.push(body.join("\n    "));
        }
        let text = format!(
            "test q{round}\nthreads 3\nsubgroup 1\nglobal x\nglobal y\nkernel {{\n  \
             if (tid == 0) {{\n    {}\n  }} else if (tid == 1) {{\n    {}\n  }} else {{\n    {}\n  }}\n}}\n\
             exists (0:a == 1 || 0:b == 1 || 1:a == 1 || 1:b == 1 || 2:a == 1 || 2:b == 1 || x == 2)\n",
            arms[0], arms[1], arms[2]
        );
        let test = tangle::syntax::parse("q.litmus", text.as_bytes())
            .unwrap_or_else(|d| panic!("{d}\n{text}"));
        for name in [None, Some("vulkan"), Some("ptx")] {
            let mm = name.map(|n| Arc::new(MemoryModel::resolve(n).unwrap().unwrap()));
            let r = crosscheck_memory(&test, 200_000, 2, mm).unwrap();
            compared += r.compared;
            if !r.disagreements.is_empty() {
                bad.push(format!("{name:?}:\n{text}\n{}", r.disagreements.join("\n")));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(compared >= 14 * 3, "only {compared} outcome sets compared");
}

/// Z3 witnesses read what sequentially consistent memory holds: replaying each witness's
/// accesses in its order, every load returns the latest value written to its cell (or the
/// initial value). This pins the values of *dead reads*, loads whose value nothing observed
/// depends on: the encoder leaves their reads-from open and the witness computes them from the
/// schedule (`engine::smt::memory`), so a wrong computation would show here and nowhere else.
#[test]
fn smt_witnesses_read_what_memory_holds() {
    use std::collections::HashMap;
    let mut replayed = 0;
    let mut dead_reads = 0;
    let mut bad = Vec::new();
    for seed in 0..110u64 {
        let (text, test) = random_program(seed);
        let prog = query::compile(&test, 4).unwrap();
        let mut init: HashMap<String, u32> = HashMap::new();
        for g in &prog.globals {
            for off in 0..g.len {
                init.insert(prog.cell_name(g.base + off), g.init[off as usize]);
            }
        }
        let opts = Options::default()
            .with_engine(Engine::Smt)
            .with_timeout_ms(Some(20_000));
        for a in query::analyse_models(&test, &prog, &Model::builtin(), &opts) {
            let Some(w) = &a.witness else { continue };
            replayed += 1;
            let mut mem = init.clone();
            for s in w {
                for acc in &s.memory {
                    if acc.reads && !acc.writes {
                        let held = mem.get(&acc.cell).copied().unwrap_or(0);
                        if acc.value != Some(held) {
                            bad.push(format!(
                                "seed {seed} {}: step {} T{} reads {} = {:?} but memory holds {held}\n{text}",
                                a.model, s.step, acc.thread, acc.cell, acc.value
                            ));
                        }
                    }
                    if let (true, Some(v)) = (acc.writes, acc.value) {
                        mem.insert(acc.cell.clone(), v);
                    }
                }
            }
        }
        // Loads whose value no thread observes or uses: dead reads in every thread.
        let deps = prog.deps();
        dead_reads += prog
            .blocks
            .iter()
            .enumerate()
            .flat_map(|(b, blk)| {
                blk.instrs
                    .iter()
                    .enumerate()
                    .map(move |(i, ins)| (b, i, ins))
            })
            .filter(|(b, i, ins)| {
                matches!(ins.op, tangle::ir::Op::Load { .. })
                    && !deps.used.contains(&(*b as u32, *i as u32))
                    && !prog.observables.iter().any(|o| match o {
                        tangle::ir::Observable::Reg { reg, .. } => deps
                            .held
                            .get(reg)
                            .is_some_and(|h| h.contains(&(*b as u32, *i as u32))),
                        _ => false,
                    })
            })
            .count();
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    assert!(replayed > 200, "only {replayed} witnesses replayed");
    assert!(
        dead_reads > 20,
        "only {dead_reads} dead reads in the programs"
    );
}
