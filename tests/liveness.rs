//! The liveness question (docs/progress.md): hangs found as lassos in the explorer's state
//! graph and by Z3's spin-loop reduction, under every progress model, with `expect-liveness`
//! lines checked and the two engines compared.

use assert_cmd::Command;
use std::path::Path;
use tangle::model::Model;
use tangle::progress::Progress;
use tangle::query::liveness::{liveness, HangKind, LiveVerdict};
use tangle::query::{Engine, Options};

fn test_file(name: &str) -> tangle::syntax::ast::Test {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("litmus/liveness")
        .join(name);
    tangle::syntax::parse_file(&path).unwrap()
}

fn opts() -> Options {
    Options::default().with_engine(Engine::Explore)
}

/// Every `expect-liveness` entry of the suite, under the models and progress models it names
/// (an entry without a model: every model the explorer runs).
#[test]
fn the_liveness_suite_meets_its_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let test = tangle::syntax::parse_file(&path).unwrap();
        for e in &test.expect_liveness {
            // Symb's subgroup ops are Z3's alone (the explorer does not run them).
            let engine = if e.model.as_deref() == Some("Symb") {
                smt()
            } else {
                opts()
            };
            let models: Vec<Model> = match &e.model {
                Some(m) => vec![Model::by_name(m).unwrap()],
                None => ["CM", "SM", "SCF", "SSO", "Spec", "Lazy"]
                    .iter()
                    .map(|m| Model::by_name(m).unwrap())
                    .collect(),
            };
            let progress = Progress::parse(&e.progress).unwrap();
            for m in &models {
                let r = liveness(&test, m, &progress, &engine).unwrap();
                assert_eq!(
                    r.matches_expectation(),
                    Some(true),
                    "{} under {} and {}: {:?}",
                    test.name,
                    m.name,
                    progress.name(),
                    r.verdict
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 30, "only {checked} expectations checked");
}

/// The SIMT-Step starvation example: in lockstep the spinning lane holds back the lane that
/// would release it, which waits at the merge (blocked); with independent lanes a fair
/// scheduler lets it through, and an unfair one starves it.
#[test]
fn lockstep_starves_the_releasing_lane_and_the_witness_says_who_waits() {
    let test = test_file("spin_after_branch.litmus");
    let fair = Progress::parse("fair").unwrap();
    let cm = liveness(&test, &Model::by_name("CM").unwrap(), &fair, &opts()).unwrap();
    assert_eq!(cm.verdict, LiveVerdict::Violated);
    assert_eq!(cm.hang, Some(HangKind::Spin));
    let role = |r: &tangle::query::liveness::LivenessReport, t: u32| {
        r.threads.iter().find(|x| x.thread == t).unwrap().role
    };
    assert_eq!(role(&cm, 0), "spins");
    assert_eq!(role(&cm, 1), "blocked");
    // The repeated part is lane 0's iteration: a load of the flag and the loop's branches.
    assert!(!cm.cycle.is_empty());
    assert!(cm.cycle.iter().all(|s| s.threads == [0]));
    assert!(cm.cycle.iter().any(|s| s.instruction.contains("r = flag")));
    let sso = Model::by_name("SSO").unwrap();
    assert_eq!(
        liveness(&test, &sso, &fair, &opts()).unwrap().verdict,
        LiveVerdict::Live
    );
    let unfair = Progress::parse("unfair").unwrap();
    let r = liveness(&test, &sso, &unfair, &opts()).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Violated);
    assert_eq!(role(&r, 1), "starved");
}

/// A hang's witness says what each thread waits for, in the same words from both engines: a
/// spinning lane names the cell it keeps reading and the value it reads; a lane blocked in
/// lockstep, the step it stands at and the lane it waits for; a quorum barrier, how many
/// wait against how many it needs. A starved thread waits for nothing but the scheduler.
#[test]
fn the_witness_says_what_each_thread_waits_for() {
    let fair = Progress::parse("fair").unwrap();
    let waits = |r: &tangle::query::liveness::LivenessReport, t: u32| {
        let role = r.threads.iter().find(|x| x.thread == t).unwrap();
        role.waits_for.clone().unwrap_or_default()
    };
    for engine in [Engine::Explore, Engine::Smt] {
        let o = Options::default().with_engine(engine);
        let test = test_file("spin_after_branch.litmus");
        let cm = liveness(&test, &Model::by_name("CM").unwrap(), &fair, &o).unwrap();
        assert_eq!(cm.verdict, LiveVerdict::Violated, "{engine:?}");
        assert_eq!(
            waits(&cm, 0),
            "waits for `flag` to change: every round it reads flag = 0",
            "{engine:?}"
        );
        assert!(
            waits(&cm, 1).ends_with("for the rest of its subgroup: T0 (spins)"),
            "{engine:?}: {}",
            waits(&cm, 1)
        );
        let test = test_file("quorum_never_met.litmus");
        let sso = Model::by_name("SSO").unwrap();
        let q = liveness(&test, &sso, &fair, &o).unwrap();
        assert_eq!(q.hang, Some(HangKind::Deadlock), "{engine:?}");
        for t in 0..3 {
            assert!(
                waits(&q, t).starts_with("waits at `barrier(quorum(1, 4));`"),
                "{engine:?}: {}",
                waits(&q, t)
            );
            assert!(
                waits(&q, t).ends_with("until 4 threads of its workgroup wait at barrier 1: 3 do"),
                "{engine:?}: {}",
                waits(&q, t)
            );
        }
        let test = test_file("spin_wait.litmus");
        let unfair = Progress::parse("unfair").unwrap();
        let r = liveness(&test, &sso, &unfair, &o).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Violated, "{engine:?}");
        assert_eq!(waits(&r, 1), "", "{engine:?}");
        assert!(waits(&r, 0).contains("flag = 0"), "{engine:?}");
    }
}

/// A loop that writes a new value each iteration repeats no state within the bound: unknown,
/// with why, never `live`; a bound past its trip count decides it.
#[test]
fn a_loop_past_the_bound_is_unknown_until_the_bound_covers_it() {
    let test = test_file("counter_past_bound.litmus");
    let m = Model::by_name("SSO").unwrap();
    let fair = Progress::parse("fair").unwrap();
    match liveness(&test, &m, &fair, &opts()).unwrap().verdict {
        LiveVerdict::Unknown(why) => assert!(why.contains("bound"), "{why}"),
        v => panic!("expected unknown, got {v:?}"),
    }
    let deep = opts().with_unroll(32);
    assert_eq!(
        liveness(&test, &m, &fair, &deep).unwrap().verdict,
        LiveVerdict::Live
    );
}

/// The state limit makes the answer unknown, never live.
#[test]
fn the_state_limit_gives_unknown() {
    let test = test_file("barrier_then_flag.litmus");
    let m = Model::by_name("SSO").unwrap();
    let fair = Progress::parse("fair").unwrap();
    let r = liveness(&test, &m, &fair, &opts().with_max_states(5)).unwrap();
    assert!(
        matches!(r.verdict, LiveVerdict::Unknown(_)),
        "{:?}",
        r.verdict
    );
}

/// The command line: exit 0 when every expectation holds, 1 on a contradiction, 2 on a bad
/// progress model; JSON carries the loop; Z3 answers too.
#[test]
fn cli_checks_expectations_and_refuses_what_it_cannot_answer() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
    let tangle = || Command::cargo_bin("tangle").unwrap();
    tangle()
        .args([
            "liveness",
            "-m",
            "SSO",
            "--progress",
            "fair",
            "--progress",
            "hsa",
        ])
        .arg(dir.join("spin_wait.litmus"))
        .assert()
        .code(0);
    let wrong = "test t \"x\"\nthreads 1\nglobal x\nkernel { r = x; }\nexists (x == 0)\n\
                 expect-liveness fair violated\n";
    let run = |args: &[&str]| {
        let out = tangle().args(args).write_stdin(wrong).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, text) = run(&["liveness", "-m", "SSO", "-"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("(expected: violated)"), "{text}");
    // A Dartagnan table replaces the expect-liveness lines: this one says live.
    let dir_t = tempfile::tempdir().unwrap();
    let table = dir_t.path().join("t.csv");
    std::fs::write(&table, "// a comment\n; skipped.litmus,0\n<stdin>,1\n").unwrap();
    let (code, text) = run(&[
        "liveness",
        "-m",
        "SSO",
        "-",
        "--expected",
        table.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("1 checked against expectations, 0 contradict them"),
        "{text}"
    );
    let (code, text) = run(&["liveness", "--progress", "obee", "-"]);
    assert_eq!(code, Some(2), "{text}");
    assert!(text.contains("did you mean obe"), "{text}");
    let (code, text) = run(&["liveness", "-m", "SSO", "--engine", "smt", "-"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("engine smt): live"), "{text}");
    // Without a subgroup op, Lazy runs the program as SSO does: decided.
    let (code, text) = run(&["liveness", "-m", "Lazy", "--engine", "smt", "-"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("engine smt): live"), "{text}");
    // With one, Lazy's pending results are not covered by the reduction: refused, saying why.
    let lazy = "test t\nthreads 2\nglobal x\nkernel { r = subgroupAdd(1); }\nexists (x == 0)\n";
    let out = tangle()
        .args(["liveness", "-m", "Lazy", "--engine", "smt", "-"])
        .write_stdin(lazy)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(text.contains("does not cover lazy"), "{text}");
    let out = tangle()
        .args(["liveness", "-m", "CM", "--format", "json"])
        .arg(dir.join("spin_after_branch.litmus"))
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &doc["results"][0];
    assert_eq!(r["verdict"], "violated");
    assert_eq!(r["hang"], "spin");
    assert!(!r["cycle"].as_array().unwrap().is_empty());
    let out = tangle()
        .args(["liveness", "-m", "CM", "--format", "dot"])
        .arg(dir.join("spin_after_branch.litmus"))
        .output()
        .unwrap();
    let dot = String::from_utf8(out.stdout).unwrap();
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(
        dot.contains("repeat forever") && dot.contains("T1 blocked"),
        "{dot}"
    );
    assert!(dot.trim_end().ends_with('}'));
}

/// Dartagnan's Vulkan liveness tests (a sample, `litmus/public/dartagnan-liveness`), read
/// unchanged (their loops are backward jumps), under the five progress models of its tables.
#[test]
fn dartagnan_vulkan_liveness_sample_matches_the_published_tables() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-liveness");
    let table = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    let mut lines = table.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').skip(1).collect();
    let m = Model::by_name("SSO").unwrap();
    let opts = opts().with_unroll(16);
    let mut checked = 0;
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let test = tangle::load(&dir.join("litmus").join(cells[0]), &Default::default()).unwrap();
        for (progress, want) in header.iter().zip(&cells[1..]) {
            let p = Progress::parse(progress).unwrap();
            let r = liveness(&test, &m, &p, &opts).unwrap();
            let want = if *want == "1" {
                LiveVerdict::Live
            } else {
                LiveVerdict::Violated
            };
            assert_eq!(r.verdict, want, "{} under {progress}", cells[0]);
            checked += 1;
        }
    }
    assert_eq!(checked, 14 * 5);
}

/// The SIMT-Step TLA+ artifact's shaders, read unchanged (`litmus/public/tla-artifact`): the
/// layouts give the launch, `assert(P)` the question, the pragma the progress model. Each
/// synchronization shader's assertion holds under its own model and the stronger ones and can
/// fail under the weaker ones; the spinlock needs OBE (or fairness): HSA may starve the holder.
#[test]
fn the_tla_artifact_shaders_read_unchanged() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/tla-artifact");
    let order = ["CM", "SM", "SCF", "SSO", "Lazy"];
    for (file, own) in [("cm", 0), ("sm", 1), ("scf", 2), ("sso", 3)] {
        let test = tangle::load(&dir.join(format!("{file}.comp")), &Default::default()).unwrap();
        assert_eq!(test.hints.model.as_deref(), Some(order[own]));
        assert_eq!(test.hints.progress.as_deref(), Some("obe"));
        for (k, m) in order.iter().enumerate() {
            let a = tangle::query::analyse(&test, &Model::by_name(m).unwrap(), &Options::default())
                .unwrap();
            let want = if k <= own {
                tangle::query::Verdict::Forbidden
            } else {
                tangle::query::Verdict::Allowed
            };
            assert_eq!(a.verdict, want, "{file} under {m}");
            if want == tangle::query::Verdict::Allowed {
                // A failing assertion's witness ends at the assert's line.
                let w = a
                    .witness
                    .as_ref()
                    .expect("an allowed verdict has a witness");
                let line = test
                    .source
                    .lines()
                    .position(|l| l.contains("assert("))
                    .unwrap();
                assert_eq!(
                    w.last().unwrap().line as usize,
                    line + 1,
                    "{file} under {m}"
                );
            }
        }
    }
    let test = tangle::load(&dir.join("spinlock.comp"), &Default::default()).unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let verdict = |p: &str| {
        liveness(&test, &sso, &Progress::parse(p).unwrap(), &opts())
            .unwrap()
            .verdict
    };
    assert_eq!(verdict("obe"), LiveVerdict::Live);
    assert_eq!(verdict("fair"), LiveVerdict::Live);
    assert_eq!(verdict("hsa"), LiveVerdict::Violated);
    assert_eq!(verdict("unfair"), LiveVerdict::Violated);
}

/// The artifact's round-robin shader (two subgroups of two lanes, each in a loop with
/// `subgroupAny` and a broadcast, racing on a shared `pick_thread`): glslang keeps every
/// temporary of the last iteration, and until the explorer forgot dead registers
/// (`ir::live`) their stale values made its places grow with the bound (1,449 at `--unroll`
/// 1, 134,219 at 3) until the state limit, under every model. Now the places close up: under
/// HSA the second workgroup may run for ever, overwriting `pick_thread` so that the first never
/// picks a lane, while neither ever terminates.
#[test]
fn dead_registers_do_not_multiply_a_shaders_places() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/tla-artifact");
    let test = tangle::load(&dir.join("2t_2t_3txt_rr.comp"), &Default::default()).unwrap();
    assert_eq!(test.hints.progress.as_deref(), Some("hsa"));
    let hsa = Progress::parse("hsa").unwrap();
    for m in ["CM", "SSO"] {
        let r = liveness(&test, &Model::by_name(m).unwrap(), &hsa, &opts()).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Violated, "{m}");
    }
    // Spec's speculated broadcast values still reach the state limit, and the explorer does not
    // run Symb's ops: both are violated by the narrowed model's hang (every lane spins), which
    // without --engine comes before Z3 under Symb (docs/progress.md, "Hangs of the narrowed
    // model").
    for m in ["Spec", "Symb"] {
        let m = Model::by_name(m).unwrap();
        let r = tangle::query::liveness::liveness_by_default(&test, &m, &hsa, &opts()).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Violated, "{}", m.name);
        assert_eq!(r.engine, Engine::Explore);
        assert!(
            r.notes[0].contains("(subgroup ops collective)"),
            "{:?}",
            r.notes
        );
        assert!(
            r.threads.iter().all(|t| t.role == "spins"),
            "{:?}",
            r.threads
        );
    }
}

/// The artifact's `tangle/loop_peeling.comp` calls `subgroupBroadcastFirst` without the
/// `#extension` line glslang requires (the artifact's translator needs none): tangle enables
/// it after `#version` and keeps every line's number, so the witness points at line 22,
/// where the call is written. Live under OBE, its own scheduler, in lockstep and not.
#[test]
fn tla_shaders_need_no_subgroup_extension_lines() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/tla-artifact/loop_peeling.comp");
    let src = std::fs::read_to_string(&path).unwrap();
    assert!(!src.contains("GL_KHR_shader_subgroup_ballot"));
    assert!(src
        .lines()
        .nth(21)
        .unwrap()
        .contains("subgroupBroadcastFirst"));
    let test = tangle::load(&path, &Default::default()).unwrap();
    let obe = Progress::parse("obe").unwrap();
    for m in ["CM", "SSO"] {
        let r = liveness(&test, &Model::by_name(m).unwrap(), &obe, &opts()).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Live, "{m}");
    }
    let a = tangle::query::analyse(
        &test,
        &Model::by_name("SSO").unwrap(),
        &opts().with_outcomes(false),
    )
    .unwrap();
    let w = a.witness.expect("`exists (true)` has a witness");
    assert!(w
        .iter()
        .any(|s| s.line == 22 && s.instruction.contains("subgroupBroadcastFirst")));
}

/// Runs Dartagnan's SPIR-V termination tests (`litmus/public/dartagnan-spirv/termination`, with
/// their per-scope progress models) with `opts`: every decided answer must be the published
/// one. Returns (agree, unknown).
fn spirv_termination(opts: &Options) -> (usize, usize) {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-spirv/termination");
    let table = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    let m = Model::by_name("SSO").unwrap();
    let (mut agree, mut unknown) = (0, 0);
    for line in table.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let test = tangle::load(&dir.join(cells[0]), &Default::default()).unwrap();
        let p = Progress::parse(&cells[1].replace(';', ",")).unwrap();
        let r = liveness(&test, &m, &p, opts).unwrap();
        let want = if cells[2] == "live" {
            LiveVerdict::Live
        } else {
            LiveVerdict::Violated
        };
        match r.verdict {
            LiveVerdict::Unknown(_) => unknown += 1,
            v => {
                assert_eq!(v, want, "{} under {}", cells[0], cells[1]);
                agree += 1;
            }
        }
    }
    (agree, unknown)
}

/// The explorer on Dartagnan's SPIR-V termination tests: it decides all 23 and agrees on
/// every one. Five of them (two lanes waiting in one loop at different iterations) were
/// `unknown` while places kept every iteration offset between threads; the offsets in loops
/// whose steps are all taken alone no longer count (`explore::loose_loops`). Pinned, so a
/// change shows up.
#[test]
fn dartagnan_spirv_termination_tests_agree_where_decided() {
    assert_eq!(spirv_termination(&opts()), (23, 0));
}

/// The same tests with Z3's spin-loop reduction: it decides 22 of the 23 rows, all as
/// Dartagnan does, four of them among the explorer's five unknowns (the lanes waiting in one
/// loop at different iterations do not matter to it: its loops hold no subgroup op).
#[test]
fn z3_decides_the_dartagnan_spirv_termination_tests() {
    let (agree, unknown) = spirv_termination(&smt().with_timeout_ms(Some(12_000)));
    assert!(agree >= 21, "Z3 decided only {agree} ({unknown} unknown)");
}

/// The same tests under the memory model they were published for (Dartagnan runs SPIR-V under
/// its Vulkan model): every answer either engine gives is the published one, and Z3 decides
/// 22 of the 23 (alone here, 5 s each). The explorer, a second each here, decides the
/// smaller ones (9 of 23 at 5 s): its runs of several workgroups under a memory model are
/// many.
#[test]
fn dartagnan_spirv_termination_tests_under_vulkan() {
    let (agree, unknown) = spirv_termination(&under("vulkan").with_timeout_ms(Some(1_000)));
    eprintln!("explorer under vulkan: {agree} agree, {unknown} unknown");
    let o = under("vulkan").with_engine(Engine::Smt);
    let (z_agree, z_unknown) = spirv_termination(&o.with_timeout_ms(Some(5_000)));
    eprintln!("Z3 under vulkan: {z_agree} agree, {z_unknown} unknown");
    assert!(
        z_agree >= 20,
        "Z3 decided only {z_agree} ({z_unknown} unknown)"
    );
}

/// Dartagnan's Vulkan sample under Z3 (`--unroll 8`: the reduction needs no more than the
/// iterations that change state): every answer it gives is the published one. Its loops are
/// loops over basic blocks, so a spin comes back to its state after several iterations (one
/// per block of the spin).
#[test]
fn z3_agrees_with_the_dartagnan_vulkan_sample() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-liveness");
    let m = Model::by_name("SSO").unwrap();
    let opts = smt().with_unroll(8).with_timeout_ms(Some(10_000));
    let mut decided = 0;
    for (file, fair, hsa) in [
        (
            "CADP/2_threads_2_instructions/0_simple.litmus",
            false,
            false,
        ),
        ("CADP/2_threads_2_instructions/2_simple.litmus", true, false),
        ("CADP/2_threads_2_instructions/3_simple.litmus", true, true),
        ("CADP/3_threads_3_instructions/0_simple.litmus", true, false),
        ("CADP/3_threads_3_instructions/11_simple.litmus", true, true),
        (
            "CADP/3_threads_3_instructions/16_simple.litmus",
            true,
            false,
        ),
        (
            "CADP/3_threads_4_instructions/13_simple.litmus",
            true,
            false,
        ),
    ] {
        let test = tangle::load(&dir.join("litmus").join(file), &Default::default()).unwrap();
        for (p, live) in [("fair", fair), ("hsa", hsa)] {
            let r = liveness(&test, &m, &Progress::parse(p).unwrap(), &opts).unwrap();
            let want = if live {
                LiveVerdict::Live
            } else {
                LiveVerdict::Violated
            };
            if !matches!(r.verdict, LiveVerdict::Unknown(_)) {
                assert_eq!(r.verdict, want, "{file} under {p}");
                decided += 1;
            }
        }
    }
    assert!(decided >= 12, "Z3 decided only {decided} of 14");
}

fn smt() -> Options {
    Options::default().with_engine(Engine::Smt)
}

/// Live against violated is a contradiction; unknown on either side is not.
fn contradicts(a: &LiveVerdict, b: &LiveVerdict) -> bool {
    matches!(
        (a, b),
        (LiveVerdict::Live, LiveVerdict::Violated) | (LiveVerdict::Violated, LiveVerdict::Live)
    )
}

/// Did both engines give an answer (neither `unknown`)?
fn both_decided(a: &LiveVerdict, b: &LiveVerdict) -> bool {
    !matches!(a, LiveVerdict::Unknown(_)) && !matches!(b, LiveVerdict::Unknown(_))
}

const PROGRESS: [&str; 7] = [
    "fair",
    "hsa",
    "obe",
    "hsa-obe",
    "lobe",
    "unfair",
    "QF=obe,SG=hsa",
];

/// The explorer and Z3's spin-loop reduction on the liveness suite, under every model and
/// progress model: they never contradict each other, and Z3 decides what its reduction
/// covers (loops whose steps run alone: SSO here), declining the rest with why.
#[test]
fn the_engines_agree_on_the_liveness_suite() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
    let (mut both, mut declined) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let test = tangle::syntax::parse_file(&entry.unwrap().path()).unwrap();
        for m in ["CM", "SM", "SCF", "SSO", "Spec", "Lazy"] {
            let m = Model::by_name(m).unwrap();
            for p in PROGRESS {
                let p = Progress::parse(p).unwrap();
                let e = liveness(&test, &m, &p, &opts()).unwrap().verdict;
                let z = liveness(&test, &m, &p, &smt()).unwrap().verdict;
                assert!(
                    !contradicts(&e, &z),
                    "{} under {} and {}: explorer {e:?}, Z3 {z:?}",
                    test.name,
                    m.name,
                    p.name()
                );
                match z {
                    LiveVerdict::Unknown(why) => {
                        assert!(!why.is_empty());
                        declined += 1;
                    }
                    _ if !matches!(e, LiveVerdict::Unknown(_)) => both += 1,
                    _ => {}
                }
            }
        }
    }
    // 210 of 378 since Spec and Lazy without subgroup ops are decided as SSO (every test
    // of the suite but `counter_past_bound`, under both, for Z3 too).
    assert!(both >= 200, "only {both} answers decided by both engines");
    assert!(declined > 0);
}

/// The random flag-and-spin program of `seed` (`tangle::gen::spin`), its shape (threads,
/// subgroup, workgroup) taken in turn from `shapes`, collective steps on two seeds in three.
fn spin_program(seed: u64, shapes: [(u32, u32, u32); 4]) -> (String, tangle::syntax::ast::Test) {
    spin_program_with(seed, shapes, false)
}

/// As [`spin_program`], with lock loops when `locks` ([`tangle::gen::spin::SpinConfig::locks`]).
fn spin_program_with(
    seed: u64,
    shapes: [(u32, u32, u32); 4],
    locks: bool,
) -> (String, tangle::syntax::ast::Test) {
    use tangle::gen::spin::SpinConfig;
    let (threads, subgroup, workgroup) = shapes[seed as usize % 4];
    let cfg = SpinConfig {
        threads,
        subgroup,
        workgroup,
        collective: !seed.is_multiple_of(3),
        locks,
        counted: false,
        ops_in_loops: false,
    };
    spin_from(seed, &cfg)
}

/// The random spin program of `seed` under `cfg`, as text and parsed.
fn spin_from(
    seed: u64,
    cfg: &tangle::gen::spin::SpinConfig,
) -> (String, tangle::syntax::ast::Test) {
    let text = tangle::gen::spin::generate(seed, cfg);
    let test = tangle::syntax::parse("spin.litmus", text.as_bytes())
        .unwrap_or_else(|e| panic!("seed {seed}: {e:?}\n{text}"));
    (text, test)
}

/// Thirty random flag-and-spin programs (`tangle::gen::spin`: stores, spins, exchanges, barriers, quorum barriers and
/// subgroup ops between them, 2 to 4 threads in one or two subgroups and workgroups) under SSO
/// and the progress models: the two engines never contradict each other.
#[test]
fn the_engines_agree_on_random_spin_programs() {
    let sso = Model::by_name("SSO").unwrap();
    let (mut both, mut live, mut violated) = (0, 0, 0);
    let mut bad = Vec::new();
    let mut quorum = 0;
    for seed in 0..30u64 {
        let (text, test) = spin_program(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (4, 2, 2)]);
        for p in ["fair", "hsa", "obe", "unfair"] {
            let p = Progress::parse(p).unwrap();
            let e = liveness(&test, &sso, &p, &opts()).unwrap().verdict;
            let z = liveness(&test, &sso, &p, &smt()).unwrap().verdict;
            if contradicts(&e, &z) {
                bad.push(format!(
                    "seed {seed} under {}: explorer {e:?}, Z3 {z:?}\n{text}",
                    p.name()
                ));
            }
            if both_decided(&e, &z) {
                both += 1;
                quorum += usize::from(text.contains("quorum"));
                match z {
                    LiveVerdict::Live => live += 1,
                    _ => violated += 1,
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!(
        "{both} decided by both ({quorum} with a quorum barrier): {live} live, {violated} violated"
    );
    assert!(
        both >= 100 && live >= 5 && violated >= 20 && quorum >= 8,
        "{both} decided by both ({quorum} with a quorum barrier): {live} live, {violated} violated"
    );
}

/// The same random programs with subgroups and workgroups of several threads under CM and
/// SCF, where loop steps wait for other lanes: Z3 looks only for a state that comes back, its
/// lanes shifted together (`engine::smt::liveness`, `lockstep`), so it answers `violated` or
/// `unknown` there (`live` where the loops hold no such step after all). It must never
/// contradict the explorer, and must find some hangs.
#[test]
fn lockstep_lassos_agree_with_the_explorer_on_random_spin_programs() {
    let (mut both, mut found) = (0, 0);
    let mut bad = Vec::new();
    for seed in 0..16u64 {
        let (text, test) = spin_program(seed, [(2, 2, 2), (4, 2, 2), (4, 2, 4), (3, 3, 3)]);
        for m in ["CM", "SCF"] {
            let m = Model::by_name(m).unwrap();
            let p = Progress::parse(["fair", "obe"][seed as usize % 2]).unwrap();
            let smt = smt().with_timeout_ms(Some(1_000));
            let z = liveness(&test, &m, &p, &smt).unwrap().verdict;
            if matches!(z, LiveVerdict::Violated) {
                found += 1;
            }
            let e = liveness(&test, &m, &p, &opts()).unwrap().verdict;
            if contradicts(&e, &z) {
                bad.push(format!(
                    "seed {seed} under {} and {}: explorer {e:?}, Z3 {z:?}\n{text}",
                    m.name,
                    p.name()
                ));
            }
            both += usize::from(
                !matches!(e, LiveVerdict::Unknown(_)) && matches!(z, LiveVerdict::Violated),
            );
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!("Z3 found {found} hangs; {both} decided by both");
    assert!(
        found >= 10 && both >= 10,
        "Z3 found {found} hangs; {both} decided by both"
    );
}

/// Above five threads Z3 does not tabulate the progress model: it proposes hangs one at a
/// time and the progress model rejects the unfair ones. Six threads: the second spins on a
/// flag the first sets, the other four write their own cells and end. Each progress model's answer (fair, HSA: live, thread 0 is always
/// scheduled; OBE, unfair: violated, thread 0 may never start) from both engines, and Z3 must
/// decide every one of them (the rejection loop ends).
#[test]
fn z3_proposes_hangs_one_at_a_time_above_five_threads() {
    let src = "test spin6\nthreads 6\nsubgroup 1\nglobal flag\nglobal cells[6]\n\
               kernel {\n  if (tid == 0) {\n    flag = 1;\n  } else if (tid == 1) {\n    r = flag;\n    \
               while (r == 0) {\n      r = flag;\n    }\n  } else {\n    cells[tid] = 1;\n  }\n}\n\
               exists (flag == 1)\n";
    let test = tangle::syntax::parse("spin6.litmus", src.as_bytes()).unwrap();
    let m = Model::by_name("SSO").unwrap();
    let want = [
        ("fair", LiveVerdict::Live),
        ("hsa", LiveVerdict::Live),
        ("obe", LiveVerdict::Violated),
        ("unfair", LiveVerdict::Violated),
    ];
    for (p, want) in want {
        let p = Progress::parse(p).unwrap();
        let e = liveness(&test, &m, &p, &opts()).unwrap().verdict;
        let z = liveness(&test, &m, &p, &smt()).unwrap().verdict;
        assert_eq!(e, want, "explorer under {}", p.name());
        assert_eq!(z, want, "Z3 under {}", p.name());
    }
}

/// Dartagnan's barriers with a quorum (`litmus/public/dartagnan-{vulkan,ptx}`, their rows of
/// `VULKAN-Liveness-Fair` and `PTXv7_5-Liveness`): both engines agree with every row (the
/// `hang` tests never meet their quorum: a deadlock). The PTX barriers named by an id without
/// a quorum (`barrier-logical-id-*`) do not wait: live.
#[test]
fn dartagnan_barrier_tests_match_the_published_liveness_rows() {
    let fair = Progress::parse("fair").unwrap();
    let m = Model::by_name("SSO").unwrap();
    let mut checked = 0;
    for (dir, table) in [
        (
            "litmus/public/dartagnan-vulkan",
            "VULKAN-Liveness-Fair-expected.csv",
        ),
        (
            "litmus/public/dartagnan-ptx",
            "PTXv7_5-Liveness-expected.csv",
        ),
    ] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let rows = std::fs::read_to_string(dir.join(table)).unwrap();
        for line in rows.lines().filter(|l| !l.trim().is_empty()) {
            let (file, want) = line.split_once(',').unwrap();
            // Weak loads may miss a store for ever under PTX, not under SC (checked under
            // `ptx` below).
            if file.ends_with("XF-Barrier-weak.litmus") {
                continue;
            }
            let test = tangle::load(&dir.join(file), &Default::default()).unwrap();
            let want = if want == "1" {
                LiveVerdict::Live
            } else {
                LiveVerdict::Violated
            };
            let e = liveness(&test, &m, &fair, &opts()).unwrap().verdict;
            assert_eq!(e, want, "{file}");
            let z = liveness(&test, &m, &fair, &smt()).unwrap().verdict;
            assert_eq!(z, want, "{file}, Z3");
            checked += 1;
        }
    }
    assert_eq!(checked, 24);
}

/// A complete outcome list `a` found past a cut, against Z3's `z` at a deeper bound: are the
/// lists equal, and what is wrong (an outcome of `z` missing from `a`, an outcome of `a` that
/// a complete `z` lacks, or contradicting verdicts)?
/// `test` with every loop unrolled to `unroll`, idle ones too: the reference the idle-loop
/// rule is checked against (queries unroll idle loops only as deep as a subgroup has lanes).
fn to_the_bound(test: &tangle::syntax::ast::Test, unroll: u32) -> tangle::ir::Program {
    let o = smt()
        .with_unroll(unroll)
        .with_idle_depth(tangle::ir::IdleDepth::Bound);
    tangle::query::compile_for(test, &o).unwrap()
}

fn past_the_bound_against(
    a: &tangle::query::Analysis,
    z: &tangle::query::Analysis,
) -> (bool, Option<String>) {
    use tangle::query::Verdict;
    let ea: Vec<&Vec<u32>> = a.outcomes.iter().map(|o| &o.values).collect();
    let ez: Vec<&Vec<u32>> = z.outcomes.iter().map(|o| &o.values).collect();
    let missing = ez.iter().any(|v| !ea.contains(v))
        || (z.outcomes_complete && ea.iter().any(|v| !ez.contains(v)));
    let contradicts = matches!(
        (&a.verdict, &z.verdict),
        (Verdict::Forbidden, Verdict::Allowed) | (Verdict::Allowed, Verdict::Forbidden)
    );
    let why = (missing || contradicts).then(|| {
        format!(
            "{} {ea:?} past the cut; Z3 deeper: {} {ez:?}",
            a.verdict.short(),
            z.verdict.short()
        )
    });
    (ea == ez, why)
}

/// Safety past the loop bound (docs/progress.md): at `--unroll 2` the bound cuts the runs of
/// random flag-and-spin programs (`tangle::gen::spin`). Where an engine still calls its
/// outcome list complete there (the explorer: its places close or the cut loops are idle; Z3:
/// the cut loops are idle), the list must hold every outcome Z3 finds at `--unroll 10` (all of
/// them when Z3's list is complete there too), and no verdict may contradict Z3's. The
/// reference gets 3 s a program: cut short, it still lists only outcomes that happen.
#[test]
fn outcomes_past_the_loop_bound_are_complete_where_the_engines_say_so() {
    use tangle::query::{self, Analysis, Verdict};
    use tangle::vocab::{Class, Kind};
    let models: Vec<Model> = Model::builtin();
    let explored: Vec<Model> = (models.iter())
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .cloned()
        .collect();
    let (mut closed, mut idle, mut equal, mut allowed) = (0, 0, 0, 0);
    let mut bad = Vec::new();
    for seed in 0..30u64 {
        let (text, test) = spin_program(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (3, 3, 3)]);
        let short = query::compile(&test, 2).unwrap();
        let long = to_the_bound(&test, 10);
        let z = query::analyse_models(
            &test,
            &long,
            &models,
            &smt()
                .with_outcomes(true)
                .with_unroll(10)
                .with_timeout_ms(Some(3000)),
        );
        let e = query::analyse_models(
            &test,
            &short,
            &explored,
            &opts().with_outcomes(true).with_unroll(2),
        );
        let zs = query::analyse_models(
            &test,
            &short,
            &models,
            &smt().with_outcomes(true).with_unroll(2),
        );
        let reference = |m: &str| z.iter().find(|b| b.model == m).unwrap();
        let mut compare = |a: &Analysis, engine: &str| {
            let b = reference(&a.model);
            let (same, why) = past_the_bound_against(a, b);
            if let Some(why) = why {
                bad.push(format!("seed {seed} {} ({engine}): {why}\n{text}", a.model));
            }
            equal += usize::from(same);
            allowed += usize::from(a.verdict == Verdict::Allowed && b.verdict == Verdict::Allowed);
        };
        for a in &e {
            if a.outcomes_complete && (a.bound_hit.is_some() || short.has_idle_cuts()) {
                closed += 1;
                compare(a, "explorer");
            }
        }
        for a in &zs {
            if a.outcomes_complete && short.has_idle_cuts() {
                idle += 1;
                compare(a, "Z3");
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let summary = format!(
        "explorer complete past the bound {closed}, Z3 complete past idle cuts {idle}: {equal} sets equal to Z3's at --unroll 10, {allowed} allowed by both"
    );
    eprintln!("{summary}");
    assert!(
        closed >= 100 && idle >= 50 && equal * 2 >= closed + idle && allowed >= 10,
        "{summary}"
    );
}

/// Idle iterations (docs/progress.md, "Idle iterations"): random flag-and-spin programs with
/// lock loops, whose iterations are idle on some paths and busy on others, at `--unroll 3`.
/// Where the loop bound cuts only partly idle loops and an engine still calls its outcome
/// list complete (enough iterations of the cut loop were idle), the list must hold every
/// outcome Z3 finds at `--unroll 6` (all of them when that list is complete too), and no
/// verdict may contradict Z3's there. Programs whose busy iterations can repeat forever (a
/// waiting writer) must stay in doubt.
#[test]
fn partly_idle_cuts_hide_no_outcome() {
    use tangle::query::{self, Analysis, Verdict};
    use tangle::vocab::{Class, Kind};
    let models: Vec<Model> = Model::builtin();
    let explored: Vec<Model> = (models.iter())
        .filter(|m| m.class(Kind::Sgop) != Class::Symbolic)
        .cloned()
        .collect();
    let (mut judged, mut equal, mut doubted) = (0, 0, 0);
    let mut bad = Vec::new();
    for seed in 0..20u64 {
        let (text, test) =
            spin_program_with(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (2, 1, 2)], true);
        let short = query::compile(&test, 3).unwrap();
        if !short.has_partly_idle_cuts() {
            continue;
        }
        let t0 = std::time::Instant::now();
        let long = to_the_bound(&test, 6);
        let z = query::analyse_models(
            &test,
            &long,
            &models,
            &smt()
                .with_outcomes(true)
                .with_unroll(6)
                .with_timeout_ms(Some(6_000)),
        );
        let reference = |m: &str| z.iter().find(|b| b.model == m).unwrap();
        let e = query::analyse_models(
            &test,
            &short,
            &explored,
            &opts().with_outcomes(true).with_unroll(3),
        );
        let zs = query::analyse_models(
            &test,
            &short,
            &models,
            &smt().with_outcomes(true).with_unroll(3),
        );
        let mut compare = |a: &Analysis, engine: &str| {
            let b = reference(&a.model);
            if matches!(b.verdict, Verdict::Unknown(_)) && b.outcomes.is_empty() {
                return;
            }
            if a.bound_hit.is_some() || !a.outcomes_complete {
                doubted += 1;
                return;
            }
            judged += 1;
            let (same, why) = past_the_bound_against(a, b);
            if let Some(why) = why {
                bad.push(format!("seed {seed} {} ({engine}): {why}\n{text}", a.model));
            }
            equal += usize::from(same);
            if a.verdict == Verdict::Forbidden && b.verdict == Verdict::Allowed {
                bad.push(format!(
                    "seed {seed} {} ({engine}): forbid, Z3 deeper allows",
                    a.model
                ));
            }
        };
        for a in &e {
            compare(a, "explorer");
        }
        for a in &zs {
            compare(a, "Z3");
        }
        eprintln!("seed {seed}: {:?}", t0.elapsed());
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let summary = format!(
        "judged past partly idle cuts {judged} ({equal} sets equal to Z3's at --unroll 6), in doubt {doubted}"
    );
    eprintln!("{summary}");
    assert!(judged >= 50 && doubted > 0, "{summary}");
}

/// A doubt names how deep a partly idle loop was unrolled when that is less than `--unroll`
/// (`query::deepening` stopped early, its budget spent), for raising `--unroll` would not
/// help there; unrolled to the bound, the doubt names the bound alone.
#[test]
fn a_doubt_names_the_depth_of_a_loop_left_shallow() {
    use tangle::query::{self, Verdict};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cat/waiting_writer.litmus");
    let writer = tangle::syntax::parse_file(&path).unwrap();
    let shallow = Options {
        partly_idle_round: Some(0),
        ..smt().with_unroll(8)
    };
    let prog = query::compile_for(&writer, &shallow).unwrap();
    assert!(prog.partly_idle_cut_short());
    let sso = [Model::by_name("SSO").unwrap()];
    let a = &query::analyse_models(&writer, &prog, &sso, &shallow)[0];
    let Verdict::Unknown(why) = &a.verdict else {
        panic!("{:?}", a.verdict)
    };
    assert!(
        why.contains("(--unroll 8; a loop idle on some paths was unrolled only "),
        "{why}"
    );
    let full = query::compile(&writer, 8).unwrap();
    assert!(!full.partly_idle_cut_short());
    assert_eq!(full.bound_words(), "--unroll 8");
}

/// Idle iterations, pinned on two tests (docs/progress.md, "Idle iterations"): a
/// test-and-test-and-set lock is decided past the bound by both engines (the iterations that
/// find the lock taken are idle, and at most one exchange per other lane fails), under a
/// lockstep model and an independent one, with one lane per subgroup and with two (the
/// explorer keeps the doubt under CM with two lanes, see below); a
/// waiting writer, whose busy iterations may repeat forever, stays in doubt at `--unroll 3`
/// and is allowed at 8.
#[test]
fn idle_iterations_decide_a_lock_and_not_a_waiting_writer() {
    use tangle::query::{self, Verdict};
    let data = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/cat")
            .join(name);
        tangle::syntax::parse_file(&path).unwrap()
    };
    let lock = data("ttas.litmus");
    let mut pair = lock.clone();
    pair.subgroup = 2;
    let writer = data("waiting_writer.litmus");
    for engine in [opts(), smt()] {
        for m in ["CM", "SSO"] {
            let model = Model::by_name(m).unwrap();
            for t in [&lock, &pair] {
                let a = query::analyse(t, &model, &engine).unwrap();
                let what = format!("{m}, subgroup {}", t.subgroup);
                // The explorer judges at the first cut: under CM the other lane may not have
                // finished its iteration then, and the doubt stays (Z3 follows it to its end).
                if engine.engine == tangle::query::Engine::Explore && t.subgroup == 2 && m == "CM" {
                    assert!(matches!(a.verdict, Verdict::Unknown(_)), "{what}");
                    continue;
                }
                assert_eq!(a.verdict, Verdict::Forbidden, "{what}");
                assert!(a.bound_hit.is_none(), "{what}");
            }
            let short = query::analyse(&writer, &model, &engine.clone().with_unroll(3)).unwrap();
            assert!(matches!(short.verdict, Verdict::Unknown(_)), "{m}");
            let long = query::analyse(&writer, &model, &engine.clone()).unwrap();
            assert_eq!(long.verdict, Verdict::Allowed, "{m}");
            // Deepening ends when the depths stop changing (here the partly idle loop is
            // trimmed to one iteration while another loop's cut stays in doubt for Z3; the
            // explorer's places may decide it). `y == 1` is unreachable: nobody writes `x`.
            let stops = query::analyse(&data("deepening_stops.litmus"), &model, &engine).unwrap();
            assert_ne!(stops.verdict, Verdict::Allowed, "{m}");
        }
    }
}

/// Two lanes waiting in one loop spin apart under SSO, Spec and Lazy; their distance cannot
/// matter there (no subgroup op in the loop), so the explorer's places close at any bound and
/// `check` is decided past it, as under the lockstep models: at `--unroll 2`, below the three
/// lanes, where the loop's idleness does not decide it yet (Z3 stays unknown there). From
/// `--unroll 3` on the loop is idle for both engines, and neither reports the cut.
#[test]
fn lanes_spinning_apart_are_decided_past_the_bound() {
    use tangle::query::{self, Verdict};
    let test = test_file("spin_apart.litmus");
    let models: Vec<Model> = ["CM", "SSO", "Spec", "Lazy"]
        .iter()
        .map(|m| Model::by_name(m).unwrap())
        .collect();
    let short = query::compile(&test, 2).unwrap();
    for a in query::analyse_models(&test, &short, &models, &opts().with_unroll(2)) {
        assert_eq!(a.verdict, Verdict::Forbidden, "{}", a.model);
        assert!(a.bound_hit.is_some() && a.outcomes_complete, "{}", a.model);
    }
    for a in query::analyse_models(&test, &short, &models, &smt().with_unroll(2)) {
        assert!(matches!(a.verdict, Verdict::Unknown(_)), "{}", a.model);
    }
    let deep = query::compile(&test, 3).unwrap();
    for o in [opts(), smt()] {
        for a in query::analyse_models(&test, &deep, &models, &o.with_unroll(3)) {
            assert_eq!(a.verdict, Verdict::Forbidden, "{}", a.model);
            assert!(a.bound_hit.is_none(), "{}", a.model);
        }
    }
}

/// The same question under relaxed memory (the bundled `ptx` model, SSO): at `--unroll 2`,
/// where an idle loop's cut is no doubt, both engines' outcome lists must hold every outcome
/// Z3 finds at `--unroll 6` (and equal it when that list is complete), which checks the
/// assumption the idle-loop rule makes of a memory model (removing reads never forbids an
/// execution) on the model itself, and the explorer's skipping of idle back edges; every
/// other program has an acquire fence in its spins.
#[test]
fn idle_loops_under_a_memory_model_hide_no_outcome() {
    use std::sync::Arc;
    use tangle::memory::MemoryModel;
    use tangle::query;
    let sso = vec![Model::by_name("SSO").unwrap()];
    let ptx = Arc::new(MemoryModel::resolve("ptx").unwrap().unwrap());
    let with = |o: Options| {
        // (Under ptx the explorer judges every interleaving of two exchange loops with fences
        // apart, its schedule being part of the execution: seconds where Z3 takes 0.1 s.)
        let mut o = o.with_outcomes(true).with_timeout_ms(Some(3_000));
        o.memory = Some(ptx.clone());
        o
    };
    let (mut compared, mut equal) = (0, 0);
    let mut bad = Vec::new();
    for seed in 0..12u64 {
        let (mut text, mut test) = spin_program(seed, [(2, 1, 1), (2, 1, 2), (3, 1, 3), (2, 1, 1)]);
        if seed % 2 == 1 {
            // An acquire fence in every spin: still idle, as in Dartagnan's message passing.
            text = text.replace("{\n      r", "{\n      fence(acquire);\n      r");
            assert!(text.contains("fence") || !text.contains("while"), "{text}");
            test = tangle::syntax::parse("spin.litmus", text.as_bytes()).unwrap();
        }
        let short = query::compile(&test, 2).unwrap();
        if !short.has_idle_cuts() {
            continue;
        }
        let long = to_the_bound(&test, 6);
        let deep = with(smt().with_unroll(6)).with_timeout_ms(Some(6_000));
        let z = &query::analyse_models(&test, &long, &sso, &deep)[0];
        for (engine, o) in [("explorer", opts()), ("Z3", smt())] {
            let a = &query::analyse_models(&test, &short, &sso, &with(o.with_unroll(2)))[0];
            if !a.outcomes_complete {
                continue;
            }
            compared += 1;
            let (same, why) = past_the_bound_against(a, z);
            if let Some(why) = why {
                bad.push(format!("seed {seed} ({engine}): {why}\n{text}"));
            }
            equal += usize::from(same);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!("{compared} compared under ptx, {equal} equal to Z3's at --unroll 6");
    assert!(
        compared >= 8 && equal * 2 >= compared,
        "{compared} compared, {equal} equal"
    );
}

// ---- Liveness under a memory model ----------------------------------------------------------

fn under(model: &str) -> Options {
    let mut o = opts();
    o.memory = tangle::memory::MemoryModel::resolve(model)
        .unwrap()
        .map(std::sync::Arc::new);
    o
}

/// Exchange loops under `vulkan` (the Vulkan sample's Fair column): a thread that swaps a
/// value in until it reads another writes on every iteration, so its hang is a window of
/// writes, and a run of a few iterations already has thousands of candidate executions
/// (coherence orders of its read-modify-writes times their sources). The explorer searches
/// them choice by choice, pruned by the axioms a part already breaks (docs/memory-models.md,
/// "Searching candidates"); `173_simple` was `unknown` ("too many candidate executions")
/// before. Every answer given agrees with Dartagnan's table; the live exchange loops may stay
/// `unknown` within the budget (their every stop must be refuted). Z3 finds the same hangs as
/// windows of writes (docs/progress.md, "The Z3 engine" under a memory model): `0_simple` and
/// `173_simple` at least, and never contradicts the table.
#[test]
fn under_vulkan_exchange_loops_are_judged() {
    under_vulkan_exchange_loops(Engine::Explore, &["173_simple.litmus"], 4);
    under_vulkan_exchange_loops(Engine::Smt, &["173_simple.litmus", "0_simple.litmus"], 2);
}

fn under_vulkan_exchange_loops(engine: Engine, must: &[&str], at_least: usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-liveness");
    let table = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    let (fair, m) = (
        Progress::parse("fair").unwrap(),
        Model::by_name("SSO").unwrap(),
    );
    let o = (under("vulkan").with_unroll(16))
        .with_timeout_ms(Some(2000))
        .with_engine(engine);
    let mut decided = Vec::new();
    for line in table.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let test = tangle::load(&dir.join("litmus").join(cells[0]), &Default::default()).unwrap();
        let r = liveness(&test, &m, &fair, &o).unwrap();
        let want = if cells[1] == "1" {
            LiveVerdict::Live
        } else {
            LiveVerdict::Violated
        };
        if !matches!(r.verdict, LiveVerdict::Unknown(_)) {
            assert_eq!(r.verdict, want, "{} ({engine:?})", cells[0]);
            decided.push(cells[0].rsplit('/').next().unwrap().to_string());
        }
    }
    for f in must {
        assert!(
            decided.iter().any(|d| d == f),
            "{f} is decided ({engine:?}): {decided:?}"
        );
    }
    assert!(decided.len() >= at_least, "{engine:?}: {decided:?}");
}

/// A window of writes is the thread's own last iterations: Z3 must place the thread at the
/// header it repeats from. `counter_past_bound` counts to 20 and never repeats its registers;
/// under `vulkan` Z3 answers `unknown` at `--unroll 8` (the bound is hit) and `live` at 24.
/// (A window once chosen at a header the thread never reached made it `violated`.)
#[test]
fn z3_windows_of_writes_are_the_threads_own_iterations() {
    let test = test_file("counter_past_bound.litmus");
    let (fair, m) = (
        Progress::parse("fair").unwrap(),
        Model::by_name("SSO").unwrap(),
    );
    let z3 = under("vulkan").with_engine(Engine::Smt);
    let r = liveness(&test, &m, &fair, &z3.clone().with_unroll(8)).unwrap();
    assert!(
        matches!(r.verdict, LiveVerdict::Unknown(_)),
        "{:?}",
        r.verdict
    );
    let r = liveness(&test, &m, &fair, &z3.with_unroll(24)).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Live);
}

/// Under a memory model the explorer decides liveness by the spin-loop reduction over the runs
/// it explores (docs/progress.md, "Liveness under a memory model"). The PTX sample's liveness
/// rows under the bundled `ptx` model: every published row, `XF-Barrier-weak` included. Its
/// flag is polled with weak loads, which PTX lets miss the last write for ever (coherence
/// does not order weak writes of different threads); SC cannot say that, so there the answer
/// is `live`, the documented difference. Its `-rlx` and `-relacq` variants are live both ways.
/// The witness names the thread that spins and the one blocked at the barrier after it.
/// Both engines: the explorer's runs and Z3's horizon (docs/progress.md, "Liveness under a
/// memory model").
#[test]
fn under_ptx_the_ptx_liveness_sample_matches_the_published_rows() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-ptx");
    let rows = std::fs::read_to_string(dir.join("PTXv7_5-Liveness-expected.csv")).unwrap();
    let (fair, m) = (
        Progress::parse("fair").unwrap(),
        Model::by_name("SSO").unwrap(),
    );
    let mut checked = 0;
    for (line, ptx) in rows.lines().filter(|l| !l.trim().is_empty()).flat_map(|l| {
        [
            (l, under("ptx")),
            (l, under("ptx").with_engine(Engine::Smt)),
        ]
    }) {
        let (file, want) = line.split_once(',').unwrap();
        let test = tangle::load(&dir.join(file), &Default::default()).unwrap();
        let r = liveness(&test, &m, &fair, &ptx).unwrap();
        let want = if want == "1" {
            LiveVerdict::Live
        } else {
            LiveVerdict::Violated
        };
        assert_eq!(r.verdict, want, "{file} ({:?})", ptx.engine);
        if file.ends_with("XF-Barrier-weak.litmus") {
            assert_eq!(r.hang, Some(HangKind::Spin));
            let role = |t: u32| r.threads.iter().find(|x| x.thread == t).unwrap().role;
            // P1 (thread 2) spins on f; the others end (a barrier without a quorum does not
            // wait: docs/memory-models.md, "Barriers named by an id").
            assert_eq!(
                [0, 1, 2, 3].map(role),
                ["terminated", "terminated", "spins", "terminated"],
                "{:?}",
                r.threads
            );
            assert!(!r.cycle.is_empty() && !r.prefix.is_empty());
            let sc = liveness(&test, &m, &fair, &opts().with_engine(ptx.engine)).unwrap();
            assert_eq!(sc.verdict, LiveVerdict::Live, "under SC the store is seen");
        }
        checked += 1;
    }
    assert_eq!(checked, 30);
}

/// The reduction over relaxed runs under `sc.cat` against the built-in SC's state graph: on
/// the liveness suite (every model whose loop steps run alone there) and twenty random
/// flag-and-spin programs, under the progress models, they never contradict each other, and
/// both decide most answers. Two algorithms for one question: lassos of SC states, and runs
/// that stop with every spinning read reading the coherence-last write.
#[test]
fn liveness_under_sc_cat_agrees_with_the_built_in_sc() {
    // (Runs that change state at every iteration reach the state limit slowly under a
    // memory model, and exchange loops make many candidate executions: a smaller limit and
    // half a second per answer keep the test short. Alone, 95 answers are decided by both;
    // the bound below leaves room for a loaded machine.)
    let sc_cat = under("sc.cat")
        .with_max_states(100_000)
        .with_timeout_ms(Some(500));
    let (mut both, mut violated, mut declined) = (0, 0, 0);
    let mut bad = Vec::new();
    let mut check = |name: &str, test: &tangle::syntax::ast::Test, m: &Model, p: &Progress| {
        let e = liveness(test, m, p, &opts()).unwrap().verdict;
        let r = liveness(test, m, p, &sc_cat).unwrap().verdict;
        if contradicts(&e, &r) {
            bad.push(format!(
                "{name} under {} and {}: SC {e:?}, sc.cat {r:?}",
                m.name,
                p.name()
            ));
        }
        match (&e, &r) {
            (_, LiveVerdict::Unknown(why)) => {
                assert!(!why.is_empty());
                declined += 1;
            }
            (LiveVerdict::Unknown(_), _) => {}
            (_, v) => {
                both += 1;
                violated += usize::from(*v == LiveVerdict::Violated);
            }
        }
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let test = tangle::syntax::parse_file(&entry.unwrap().path()).unwrap();
        for m in ["CM", "SSO"] {
            for p in ["fair", "hsa", "obe", "unfair"] {
                let (m, p) = (Model::by_name(m).unwrap(), Progress::parse(p).unwrap());
                check(&test.name, &test, &m, &p);
            }
        }
    }
    let sso = Model::by_name("SSO").unwrap();
    for seed in 0..20u64 {
        let (text, test) = spin_program(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (4, 2, 2)]);
        for p in ["fair", "hsa", "obe", "unfair"] {
            check(&text, &test, &sso, &Progress::parse(p).unwrap());
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!("{both} decided by both ({violated} violated), {declined} unknown under sc.cat");
    assert!(
        both >= 50 && violated >= 20,
        "{both} decided by both ({violated} violated), {declined} unknown under sc.cat"
    );
}

/// Z3's windows of writes under `sc.cat` against the built-in SC explorer's lassos of states:
/// two algorithms and two engines for one question. On the liveness suite and twelve random
/// flag-and-spin programs (exchanges among their steps), under fair and unfair scheduling,
/// they never contradict each other, and hangs whose loops write are found by both.
#[test]
fn z3_windows_of_writes_under_sc_cat_agree_with_sc_lassos() {
    let z3 = under("sc.cat")
        .with_engine(Engine::Smt)
        .with_timeout_ms(Some(2000));
    let sso = Model::by_name("SSO").unwrap();
    let (mut both, mut violated) = (0, 0);
    let mut bad = Vec::new();
    let mut check = |name: &str, test: &tangle::syntax::ast::Test, p: &str| {
        let p = Progress::parse(p).unwrap();
        let e = liveness(test, &sso, &p, &opts()).unwrap().verdict;
        let z = liveness(test, &sso, &p, &z3).unwrap().verdict;
        if contradicts(&e, &z) {
            bad.push(format!(
                "{name} under {}: SC {e:?}, Z3 under sc.cat {z:?}",
                p.name()
            ));
        }
        if both_decided(&e, &z) {
            both += 1;
            violated += usize::from(z == LiveVerdict::Violated);
        }
    };
    for name in [
        "exchange_forever.litmus",
        "two_exchanges.litmus",
        "spin_wait.litmus",
    ] {
        for p in ["fair", "unfair"] {
            check(name, &test_file(name), p);
        }
    }
    for seed in 0..12u64 {
        let (text, test) = spin_program(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (4, 2, 2)]);
        for p in ["fair", "unfair"] {
            check(&text, &test, p);
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    // Both loops of `exchange_forever` write on every iteration (thread 0's exchange writes
    // back the 0 it reads, which under a memory model is a write): whichever thread spins in
    // the hang found, it repeats a window of writes, under `sc.cat` and under `vulkan`.
    for mm in ["sc.cat", "vulkan"] {
        let o = under(mm).with_engine(Engine::Smt);
        let fair = Progress::parse("fair").unwrap();
        let r = liveness(&test_file("exchange_forever.litmus"), &sso, &fair, &o).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Violated, "{mm}");
        assert_eq!(r.hang, Some(HangKind::Spin), "{mm}");
        assert!(
            r.threads.iter().any(|x| x.role == "spins"),
            "{mm}: {:?}",
            r.threads
        );
    }
    eprintln!("{both} of 30 decided by both ({violated} violated)");
    assert!(
        both >= 15 && violated >= 8,
        "{both} decided by both ({violated} violated)"
    );
}

/// Under the bundled relaxed models the explorer's runs and Z3's horizon (two algorithms:
/// runs that stop, and an execution cut at a time) never contradict each other: the
/// liveness suite under SSO and twelve random flag-and-spin programs, under progress models
/// that schedule every thread or not. Both decide most answers, some of them hangs.
#[test]
fn the_engines_agree_under_a_memory_model() {
    let (mut both, mut violated, mut asked) = (0, 0, 0);
    let mut bad = Vec::new();
    let sso = Model::by_name("SSO").unwrap();
    for mm in ["ptx", "vulkan"] {
        // (A second per answer: the runs of exchange loops are many under a memory model,
        // and those are `unknown` on both sides whatever the time.)
        let explore = under(mm)
            .with_max_states(100_000)
            .with_timeout_ms(Some(1000));
        let z3 = explore.clone().with_engine(Engine::Smt);
        let mut check = |name: &str, test: &tangle::syntax::ast::Test, p: &str| {
            let p = Progress::parse(p).unwrap();
            let e = liveness(test, &sso, &p, &explore).unwrap().verdict;
            let z = liveness(test, &sso, &p, &z3).unwrap().verdict;
            asked += 1;
            if contradicts(&e, &z) {
                bad.push(format!(
                    "{name} under SSO+{mm} and {}: explorer {e:?}, Z3 {z:?}",
                    p.name()
                ));
            }
            if both_decided(&e, &z) {
                both += 1;
                violated += usize::from(z == LiveVerdict::Violated);
            }
        };
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
        for entry in std::fs::read_dir(&dir).unwrap() {
            let test = tangle::syntax::parse_file(&entry.unwrap().path()).unwrap();
            for p in ["fair", "unfair"] {
                check(&test.name, &test, p);
            }
        }
        for seed in 0..12u64 {
            let (text, test) = spin_program(seed, [(2, 1, 1), (2, 2, 2), (3, 1, 3), (4, 2, 2)]);
            for p in ["fair", "unfair"] {
                check(&text, &test, p);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!("{both} of {asked} decided by both ({violated} violated)");
    assert!(
        both >= 55 && violated >= 45,
        "{both} of {asked} decided by both ({violated} violated)"
    );
}

/// An expectation may name a memory model (`SSO+vulkan`): it holds for that combination only,
/// wins there over the entry for every model, and a bare `SSO` is about sequentially
/// consistent memory. `expect` and `expect-liveness` alike; `--bless` under a memory model
/// writes such entries, which read back (they did not: the `+` was a parse error).
#[test]
fn expectations_name_a_memory_model() {
    let body = "test mp_poll \"message passing through relaxed atomics, the flag polled\"\n\
                threads 2\nglobal x\nglobal y\nkernel {\n  if (lane == 0) {\n    \
                atomicStore(x, 1, relaxed, device);\n    atomicStore(y, 1, relaxed, device);\n  \
                } else {\n    a = atomicLoad(y, relaxed, device);\n    \
                while (a == 0) { a = atomicLoad(y, relaxed, device); }\n    \
                b = atomicLoad(x, relaxed, device);\n  }\n}\n\
                exists (1:a == 1 && 1:b == 0)\n";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mp_poll.litmus");
    let run = |text: &str, args: &[&str]| {
        std::fs::write(&file, text).unwrap();
        let out = Command::cargo_bin("tangle")
            .unwrap()
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let lines = format!(
        "{body}expect SSO forbid, SSO+vulkan allow\n\
         expect-liveness SSO fair live, SSO+vulkan fair violated\n"
    );
    for mm in [&[][..], &["--memory-model", "vulkan"]] {
        let args = [&["check", "-m", "SSO"][..], mm].concat();
        let (code, text) = run(&lines, &args);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("0 mismatches"), "{text}");
    }
    let (code, text) = run(&lines, &["liveness", "-m", "SSO"]);
    assert_eq!(code, Some(0), "{text}");
    // A memory model neither run nor bundled is a typo's warning, as an unknown model is.
    let typo = format!("{body}expect SSO forbid, SSO+vulcan allow, SSO+vulkan allow\n");
    let (code, text) = run(&typo, &["check", "-m", "SSO"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("names unknown model `SSO+vulcan`") && !text.contains("`SSO+vulkan`"),
        "{text}"
    );
    // Live under vulkan too (the poll reads the coherence-last write): the entry for
    // SSO+vulkan, not the one for SSO, is what it contradicts, with either engine.
    for engine in ["explore", "smt"] {
        let args = [
            "liveness",
            "-m",
            "SSO",
            "--memory-model",
            "vulkan",
            "--engine",
            engine,
        ];
        let (code, text) = run(&lines, &args);
        assert_eq!(code, Some(1), "{text}");
        // (Found at a smaller bound: "live (decided at --unroll 4) (expected: violated)".)
        assert!(
            text.contains("): live") && text.contains(" (expected: violated)"),
            "{text}"
        );
    }
    // `sc.cat` is sequential consistency: the bare entry holds for it.
    let (code, text) = run(
        &lines,
        &["liveness", "-m", "SSO", "--memory-model", "sc.cat"],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("1 checked against expectations"), "{text}");
    // Bless under vulkan: the new entry reads back, and SC keeps its own.
    let (_, text) = run(
        &format!("{body}expect forbid\n"),
        &["check", "-m", "SSO", "--memory-model", "vulkan", "--bless"],
    );
    let blessed = std::fs::read_to_string(&file).unwrap();
    assert!(
        blessed.contains("expect forbid, SSO+vulkan allow"),
        "{text}\n{blessed}"
    );
    for mm in [&[][..], &["--memory-model", "vulkan"]] {
        let args = [&["check", "-m", "SSO"][..], mm].concat();
        let (code, text) = run(&blessed, &args);
        assert_eq!(code, Some(0), "{text}");
    }
    // Under `sc.cat` the entry written is the bare `SSO` (a `.cat` name would not read back).
    let (_, text) = run(
        &format!("{body}expect allow\n"),
        &["check", "-m", "SSO", "--memory-model", "sc.cat", "--bless"],
    );
    let blessed = std::fs::read_to_string(&file).unwrap();
    assert!(
        blessed.contains("expect allow, SSO forbid"),
        "{text}\n{blessed}"
    );
    let (code, text) = run(&blessed, &["check", "-m", "SSO"]);
    assert_eq!(code, Some(0), "{text}");
}

/// The places that decide safety past the bound forget loop iterations, not a finished
/// thread's registers, which are part of the outcome. A loop with two exits: P1 leaves when
/// its first read is 1, or when its second is not 0. Both finishing runs, (1, 0) and (0, 1),
/// are outcomes; the explorer lost the second (its finished state counted as the place of the
/// first) and answered `forbid` where Z3 answered `allow`.
#[test]
fn places_keep_the_registers_of_finished_threads() {
    let sso = Model::by_name("SSO").unwrap();
    for (cond, engine) in [
        ("1:r1 == 0 && 1:r2 == 1", Engine::Explore),
        ("1:r1 == 1 && 1:r2 == 0", Engine::Explore),
        ("1:r1 == 0 && 1:r2 == 1", Engine::Smt),
    ] {
        let src = format!(
            "test two_exits\nthreads 2\nsubgroup 1\nglobal m\nkernel {{\n  if (tid == 0) {{\n    m = 1;\n  }} else {{\n    while (1) {{ r1 = m; if (r1 == 1) {{ break; }} r2 = m; if (r2 != 0) {{ break; }} }}\n  }}\n}}\nexists ({cond})\n"
        );
        let test = tangle::syntax::parse("two_exits.litmus", src.as_bytes()).unwrap();
        let a =
            tangle::query::analyse(&test, &sso, &Options::default().with_engine(engine)).unwrap();
        assert_eq!(
            a.verdict,
            tangle::query::Verdict::Allowed,
            "{cond} ({engine:?})"
        );
    }
}

/// Runs that go round a loop are pruned under a memory model when no consistent execution can
/// begin with them (docs/progress.md, "Liveness under a memory model"). A read may take its
/// value from a write another thread performs later (load buffering past the edge, or past
/// the cut), as for safety's cut runs. Before 2026-11-28 the pruning required a source
/// inside the run: on `lb_hang` the explorer said `live` (every interleaving reaches a loop
/// edge with such a read) while Z3 said `violated`; on `lb_hang_past` both said `live` at
/// every bound. Both are hangs allowed by `vulkan.cat`.
#[test]
fn load_buffering_past_a_loop_edge_keeps_a_hang() {
    let fair = Progress::parse("fair").unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let vulkan = tangle::memory::MemoryModel::resolve("vulkan")
        .unwrap()
        .map(std::sync::Arc::new);
    let file = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/cat")
            .join(name);
        tangle::syntax::parse_file(&path).unwrap()
    };
    let verdict = |test: &tangle::syntax::ast::Test, engine: Engine, unroll: u32| {
        let mut o = Options::default()
            .with_engine(engine)
            .with_unroll(unroll)
            .with_timeout_ms(Some(20_000));
        o.memory = vulkan.clone();
        liveness(test, &sso, &fair, &o).unwrap().verdict
    };
    let (hang, past) = (file("lb_hang.litmus"), file("lb_hang_past.litmus"));
    for engine in [Engine::Explore, Engine::Smt] {
        assert!(
            matches!(verdict(&hang, engine, 8), LiveVerdict::Violated),
            "lb_hang, {engine}"
        );
        assert!(
            matches!(verdict(&past, engine, 2), LiveVerdict::Unknown(_)),
            "lb_hang_past at --unroll 2, {engine}"
        );
        assert!(
            matches!(verdict(&past, engine, 8), LiveVerdict::Violated),
            "lb_hang_past at --unroll 8, {engine}"
        );
    }
}

/// A write still to come after a run cut short is an event of the candidate when its thread
/// reaches its instance at most once (`ir::future`): `exchange_later` (Dartagnan's CADP
/// `2_threads_3_instructions/70_simple`) is live under `vulkan.cat`, as Dartagnan says, because
/// coherence and atomicity let one exchange read thread 0's single store of 0. Left unnamed
/// (as before 2026-11-28, or with `MAX_NAMED_LATER` 0) the exchange loop's runs reach the
/// bound and the explorer says `unknown`. (At --unroll 4 and deeper the runs at the cut have
/// more candidates than the judgement's cap: `unknown` either way.) Z3 still leaves such
/// writes unnamed: it may say `unknown`, never `violated`.
#[test]
fn a_write_still_to_come_is_read_as_the_model_allows() {
    let fair = Progress::parse("fair").unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cat/exchange_later.litmus");
    let test = tangle::syntax::parse_file(&path).unwrap();
    let report = |engine: Engine, unroll: u32| {
        let mut o = Options::default()
            .with_engine(engine)
            .with_unroll(unroll)
            .with_timeout_ms(Some(20_000));
        o.memory = tangle::memory::MemoryModel::resolve("vulkan")
            .unwrap()
            .map(std::sync::Arc::new);
        liveness(&test, &sso, &fair, &o).unwrap()
    };
    let explorer = report(Engine::Explore, 3).verdict;
    assert!(
        matches!(explorer, LiveVerdict::Live),
        "explorer: {explorer:?}"
    );
    let z3 = report(Engine::Smt, 3).verdict;
    assert!(!matches!(z3, LiveVerdict::Violated), "Z3: {z3:?}");
    // At --unroll 4 too many candidates leave a run at the cut (`unknown`); deepening from 2
    // finds the answer at 3 (from 4, as before 2026-11-28, it was `unknown` at every bound).
    let deep = report(Engine::Explore, 16);
    assert!(
        matches!(deep.verdict, LiveVerdict::Live) && deep.bound == Some(3),
        "explorer at --unroll 16: {:?} at {:?}",
        deep.verdict,
        deep.bound
    );
}

/// Random flag-and-spin programs with reads whose value decides a write made after a counted
/// loop (`SpinConfig::counted`): load buffering across loop edges, which the pruning of runs
/// at loop edges must keep (`load_buffering_past_a_loop_edge_keeps_a_hang`). Under `vulkan`
/// the engines never contradict each other. (With the explorer's pruning requiring a source
/// inside the run, as before 2026-11-28, seed 18 fails: explorer `live`, Z3 `violated`.)
#[test]
fn the_engines_agree_on_load_buffering_across_loop_edges() {
    use tangle::gen::spin::{generate, SpinConfig};
    let sso = Model::by_name("SSO").unwrap();
    let explore = under("vulkan")
        .with_max_states(100_000)
        .with_timeout_ms(Some(1000));
    let z3 = explore.clone().with_engine(Engine::Smt);
    let (mut both, mut violated, mut asked) = (0, 0, 0);
    let mut bad = Vec::new();
    for seed in 0..24u64 {
        let cfg = SpinConfig {
            threads: 2 + (seed % 2) as u32,
            subgroup: 1,
            workgroup: 1,
            collective: false,
            locks: false,
            counted: true,
            ops_in_loops: false,
        };
        let text = generate(seed, &cfg);
        let test = tangle::syntax::parse("spin.litmus", text.as_bytes()).unwrap();
        for p in ["fair", "unfair"] {
            let p = Progress::parse(p).unwrap();
            let e = liveness(&test, &sso, &p, &explore).unwrap().verdict;
            let z = liveness(&test, &sso, &p, &z3).unwrap().verdict;
            asked += 1;
            if contradicts(&e, &z) {
                bad.push(format!(
                    "{text}\nunder {}: explorer {e:?}, Z3 {z:?}",
                    p.name()
                ));
            }
            if both_decided(&e, &z) {
                both += 1;
                violated += usize::from(z == LiveVerdict::Violated);
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    eprintln!("{both} of {asked} decided by both ({violated} violated)");
    assert!(
        both >= 20 && violated >= 10,
        "{both} of {asked} decided by both ({violated} violated)"
    );
}

/// Dartagnan's CADP `84_simple` (and `85`, `106`, `107`, `154`, `155`, the same shape) is
/// `live`, but under `vulkan.cat` every finite run that goes round its exchange loop is
/// consistent: the 0s the loop reads come from exchanges the other thread makes only after
/// reading the flag the loop's thread sets once it has left, load buffering that vulkan.cat
/// allows and SC forbids (`lb_exchange.litmus`, both engines). So no loop bound proves `live`
/// there: under SC both engines say `live`, under `vulkan` neither says `violated` (both say
/// `unknown`, docs/progress.md).
#[test]
fn load_buffering_feeds_an_exchange_loop_at_every_bound() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cat");
    let sso = Model::by_name("SSO").unwrap();
    let lb = tangle::syntax::parse_file(&data.join("lb_exchange.litmus")).unwrap();
    use tangle::query::Verdict;
    for (memory, want) in [("sc", Verdict::Forbidden), ("vulkan", Verdict::Allowed)] {
        for engine in [Engine::Explore, Engine::Smt] {
            let o = under(memory).with_engine(engine);
            let got = tangle::query::analyse(&lb, &sso, &o).unwrap().verdict;
            assert_eq!(got, want, "lb_exchange under {memory}, {engine:?}");
        }
    }
    let fed = tangle::syntax::parse_file(&data.join("exchange_fed_by_lb.litmus")).unwrap();
    let fair = Progress::parse("fair").unwrap();
    for engine in [Engine::Explore, Engine::Smt] {
        let sc = under("sc").with_engine(engine);
        let v = liveness(&fed, &sso, &fair, &sc).unwrap().verdict;
        assert!(matches!(v, LiveVerdict::Live), "SC, {engine:?}: {v:?}");
        let vk = under("vulkan")
            .with_engine(engine)
            .with_unroll(6)
            .with_timeout_ms(Some(3000));
        let v = liveness(&fed, &sso, &fair, &vk).unwrap().verdict;
        assert!(
            !matches!(v, LiveVerdict::Violated),
            "vulkan, {engine:?}: {v:?}"
        );
    }
}

/// Dartagnan's CADP `2_threads_4_instructions/144_simple` (violated in all five published
/// Vulkan tables): thread 0 goes round three exchanges joined by `goto`s, thread 1 exchanges
/// 1 in until it reads something else. Thread 0's jumps do not nest, so it is one loop over
/// its blocks (docs/decisions.md, "Dialect loops"); a jump to a block that only jumps on goes
/// straight on, so its cycle is three iterations of that loop, not six, and a lasso of two
/// periods fits the windows a hang is judged by (at most eight iterations). Before, both
/// engines said `unknown` at every bound they reached in 30 s under `vulkan`; now both find
/// the hang at --unroll 6. A block that only jumps to itself stays: it spins.
#[test]
fn dispatch_loops_pass_through_blocks_that_only_jump() {
    let src = |tail: &str| {
        format!(
            "VULKAN 144_simple\n{{\nMem0=0;\nP0:r0=0;\nP0:r1=0;\nP0:r2=0;\nP1:r3=0;\n}}\n\
             P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 0, qf 0 ;\n\
             LC00: | LC10: ;\n\
             rmw.atom.wg.sc0 r0, Mem0, 1 | rmw.atom.wg.sc0 r3, Mem0, 1 ;\n\
             bne r0, 0, LC01 | bne r3, 1, LC11 ;\n\
             goto LC02 | goto LC10 ;\n\
             LC01: | LC11: ;\n\
             rmw.atom.wg.sc0 r1, Mem0, 0 | ;\n\
             bne r1, 0, LC02 | ;\n\
             goto LC00 | ;\n\
             LC02: | ;\n\
             rmw.atom.wg.sc0 r2, Mem0, 0 | ;\n\
             bne r2, 1, LC03 | ;\n\
             goto LC01 | ;\n\
             LC03: | ;\n\
             {tail}exists 0==0\n"
        )
    };
    let test = tangle::dialect::vulkan::parse("144_simple.litmus", src("").as_bytes()).unwrap();
    let text = tangle::syntax::print::to_litmus(&test);
    // One arm per block with statements: the `goto`s and the empty exit block are gone.
    assert_eq!(text.matches("if (lc_pc ==").count(), 3, "{text}");
    both_engines_under_vulkan_fair(&test, |r| {
        matches!(r.verdict, LiveVerdict::Violated) && r.bound == Some(6)
    });
    // `LC03: goto LC03`: the exit is a block that only jumps to itself, kept as a loop.
    let spin =
        tangle::dialect::vulkan::parse("spin.litmus", src("goto LC03 | ;\n").as_bytes()).unwrap();
    let text = tangle::syntax::print::to_litmus(&spin);
    assert_eq!(text.matches("if (lc_pc ==").count(), 4, "{text}");
}

/// Dartagnan's CADP `2_threads_3_instructions/59_simple` (violated in the published tables):
/// thread 1 exchanges 1 in while it reads 0; thread 0 exchanges 0 in, twice a round, while it
/// reads 1. They hang taking turns, thread 1 twice per round of thread 0. Every iteration of
/// thread 1 makes the same access, so it repeats windows of one iteration, or two, or more;
/// only two keep pace with thread 0's round. The explorer judged the shortest alone and ran
/// out of time at every bound (`unknown`); it now tries every length, shortest first, and
/// finds the hang at --unroll 4, as Z3 does.
#[test]
fn a_hang_is_judged_with_windows_that_keep_pace() {
    let src = "VULKAN 59_simple\n{\nMem0=0;\nP0:r0=0;\nP0:r1=0;\nP1:r2=0;\n}\n\
               P0@sg 0,wg 0, qf 0 | P1@sg 0,wg 0, qf 0 ;\n\
               LC00: | LC10: ;\n\
               rmw.atom.wg.sc0 r0, Mem0, 0 | rmw.atom.wg.sc0 r2, Mem0, 1 ;\n\
               bne r0, 0, LC01 | bne r2, 0, LC11 ;\n\
               goto LC02 | goto LC10 ;\n\
               LC01: | LC11: ;\n\
               rmw.atom.wg.sc0 r1, Mem0, 0 | ;\n\
               bne r1, 1, LC02 | ;\n\
               goto LC00 | ;\n\
               LC02: | ;\n\
               exists 0==0\n";
    let test = tangle::dialect::vulkan::parse("59_simple.litmus", src.as_bytes()).unwrap();
    both_engines_under_vulkan_fair(&test, |r| matches!(r.verdict, LiveVerdict::Violated));
}

/// One thread, one cell: exchange 0 in, store 1 unless it read 1, exchange 1 in, go round
/// while that read 1 (the shape of Dartagnan's CADP `2_threads_4_instructions/122_simple`).
/// Coherence and atomicity let it go round once: live. At `--unroll 3` its run holds seven
/// writes of one cell, 5,040 coherence orders, and a run cut there was judged only when its
/// candidates were at most 2^12; so the cut stayed a doubt at every bound (`unknown`). A cut
/// run is now searched however many candidates it has (atomicity leaves one order, found in
/// a few choices), and both engines say `live`.
#[test]
fn a_cut_run_is_searched_however_many_candidates_it_has() {
    let src = "VULKAN chain\n{\nMem0=0;\nP0:r0=0;\nP0:r1=0;\n}\n\
               P0@sg 0,wg 0, qf 0 ;\n\
               LC00: ;\n\
               rmw.atom.wg.sc0 r0, Mem0, 0 ;\n\
               bne r0, 1, LC01 ;\n\
               goto LC02 ;\n\
               LC01: ;\n\
               st.atom.wg.sc0 Mem0, 1 ;\n\
               LC02: ;\n\
               rmw.atom.wg.sc0 r1, Mem0, 1 ;\n\
               bne r1, 1, LC03 ;\n\
               goto LC00 ;\n\
               LC03: ;\n\
               exists 0==0\n";
    let test = tangle::dialect::vulkan::parse("chain.litmus", src.as_bytes()).unwrap();
    both_engines_under_vulkan_fair(&test, |r| matches!(r.verdict, LiveVerdict::Live));
}

/// Dartagnan's GLSL `loop-1` … `loop-4` (`litmus/public/dartagnan-tangles`): a lane spins on a
/// flag its neighbour sets after a subgroup op. The issue that asked for `tangle liveness`
/// began with every model answering `unknown` on them. Under every SIMT-Step model but Symb
/// and every progress model the explorer finds the hang (`violated`), and Z3 agrees under
/// SSO and CM; under Symb, which the explorer does not run (it says why), Z3 finds it under
/// every progress model (the spinning lane reads 0 before anyone stores, and never stops).
#[test]
fn dartagnans_loop_tests_hang_under_every_model() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/dartagnan-tangles");
    let progress = ["fair", "hsa", "obe", "hsa-obe", "lobe", "unfair"];
    for k in 1..=4 {
        let file = dir.join(format!("loop-{k}.comp"));
        let test = tangle::load(&file, &Default::default()).unwrap();
        for m in ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"] {
            let model = Model::by_name(m).unwrap();
            for p in progress {
                let r = liveness(&test, &model, &Progress::parse(p).unwrap(), &opts()).unwrap();
                match (m, &r.verdict) {
                    ("Symb", LiveVerdict::Unknown(why)) => assert!(!why.is_empty()),
                    (_, LiveVerdict::Violated) if m != "Symb" => {}
                    (_, v) => panic!("loop-{k} under {m}, {p}: {v:?}"),
                }
                if m == "Symb" {
                    let p = Progress::parse(p).unwrap();
                    let z = liveness(&test, &model, &p, &smt()).unwrap().verdict;
                    assert_eq!(z, LiveVerdict::Violated, "loop-{k} under Symb, Z3");
                }
            }
            if m == "SSO" || m == "CM" {
                let fair = Progress::parse("fair").unwrap();
                let z = liveness(&test, &model, &fair, &smt()).unwrap().verdict;
                assert!(
                    matches!(z, LiveVerdict::Violated),
                    "loop-{k} under {m}, Z3: {z:?}"
                );
            }
        }
    }
}

/// `test`'s liveness under SSO, `vulkan` and a fair scheduler, with `engine` and 30 s.
fn under_vulkan_fair(
    test: &tangle::syntax::ast::Test,
    engine: Engine,
) -> tangle::query::liveness::LivenessReport {
    let mut o = Options::default()
        .with_engine(engine)
        .with_timeout_ms(Some(30_000));
    o.memory = tangle::memory::MemoryModel::resolve("vulkan")
        .unwrap()
        .map(std::sync::Arc::new);
    let fair = Progress::parse("fair").unwrap();
    liveness(test, &Model::by_name("SSO").unwrap(), &fair, &o).unwrap()
}

/// Checks `ok` on the answer of each engine ([`under_vulkan_fair`]).
fn both_engines_under_vulkan_fair(
    test: &tangle::syntax::ast::Test,
    ok: impl Fn(&tangle::query::liveness::LivenessReport) -> bool,
) {
    for engine in [Engine::Explore, Engine::Smt] {
        let r = under_vulkan_fair(test, engine);
        assert!(ok(&r), "{engine:?}: {:?} at {:?}", r.verdict, r.bound);
    }
}

/// `tangle ARGS FILE`'s output.
fn run_tangle(args: &[&str], file: impl AsRef<std::ffi::OsStr>) -> std::process::Output {
    Command::cargo_bin("tangle")
        .unwrap()
        .args(args)
        .arg(file)
        .output()
        .unwrap()
}

/// `tangle ARGS FILE`'s standard output, and the cells of the table row of `test` (after
/// the test's name); the command must succeed.
fn table_row(
    args: &[&str],
    file: impl AsRef<std::ffi::OsStr>,
    test: &str,
) -> (String, Vec<String>) {
    let out = run_tangle(args, file);
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {text}");
    let row = (text.lines().find(|l| l.starts_with(test)))
        .unwrap_or_else(|| panic!("no row {test}: {text}"));
    let cells = row.split_whitespace().skip(1).map(String::from).collect();
    (text, cells)
}

/// `check` reports a run past the loop bound that never finishes (issue 18, item 4): the
/// verdict is marked `~` and the hang listed under the table with each thread's role, the
/// detail shows what each thread waits for and the lasso, JSON carries the liveness answer;
/// both engines. A run that does finish under a fair scheduler (SSO: the other lane sets the
/// flag) is no hang, and a loop the question cannot decide says so in a note.
#[test]
fn check_reports_runs_past_the_bound_that_never_finish() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness");
    let file = dir.join("spin_after_branch.litmus");
    for engine in ["smt", "explore"] {
        let args = ["check", "-m", "CM", "-m", "SSO", "--engine", engine];
        let (text, cells) = table_row(&args, &file, "spin_after_branch");
        assert_eq!(cells, ["forbid~", "allow"], "{engine}: {text}");
        assert!(
            text.contains("~ spin_after_branch under CM: a run never finishes (a loop forever, progress fair): T0 spins at line 12, T1 blocked at line 10"),
            "{engine}: {text}"
        );
        assert!(
            !text.contains("under SSO: a run never finishes"),
            "{engine}: {text}"
        );

        let out = run_tangle(
            &["check", "-m", "CM", "--witness", "--engine", engine],
            &file,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Flag hang: a run never finishes (progress fair"),
            "{engine}: {text}"
        );
        assert!(
            text.contains("waits for `flag` to change: every round it reads flag = 0"),
            "{engine}: {text}"
        );
        assert!(text.contains("Repeated forever:"), "{engine}: {text}");

        let out = run_tangle(
            &[
                "check", "-m", "CM", "-m", "SSO", "--format", "json", "--engine", engine,
            ],
            &file,
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let results = doc["results"].as_array().unwrap();
        let cm = results.iter().find(|r| r["model"] == "CM").unwrap();
        assert_eq!(cm["hang"]["verdict"], "violated", "{engine}: {cm}");
        assert_eq!(cm["hang"]["progress"], "fair");
        assert!(!cm["hang"]["cycle"].as_array().unwrap().is_empty());
        let sso = results.iter().find(|r| r["model"] == "SSO").unwrap();
        assert!(sso.get("hang").is_none(), "{engine}: {sso}");
        assert!(
            sso["notes"].as_array().unwrap().iter().any(|n| n
                .as_str()
                .unwrap()
                .contains("every run a fair scheduler allows finishes")),
            "{engine}: {sso}"
        );
    }
    // A counter that outgrows the bound: neither a hang nor a proof; the note says why.
    let out = run_tangle(
        &["check", "-m", "SSO", "--witness", "--engine", "explore"],
        dir.join("counter_past_bound.litmus"),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("whether runs past the loop bound finish under a fair scheduler is unknown"),
        "{text}"
    );
    assert!(!text.contains("Flag hang"), "{text}");
    // Under Symb with a subgroup op, which the explorer does not run, Z3 answers.
    let out = run_tangle(
        &["check", "-m", "Symb", "--format", "json"],
        dir.join("symb_guesses.litmus"),
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let symb = &doc["results"][0];
    assert_eq!(symb["hang"]["verdict"], "violated", "{symb}");
    assert_eq!(symb["hang"]["engine"], "smt", "{symb}");
}

/// `check`'s hang question runs under the file's own progress model (`#pragma
/// scheduler(HSA)` in the TLA+ artifact's dialect), and so do `outcomes` and `compare`, with
/// the hang in each: the oldest workgroup spins on a flag only the younger one sets, which
/// HSA never has to run. Without the pragma (fair scheduling) the run finishes, and no
/// verdict is marked. `--format dot` draws the lasso: the steps repeated forever.
#[test]
fn the_hang_question_follows_the_files_progress_model_in_every_report() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/liveness/hsa_first_waits.comp");
    let hang = "a run never finishes (a loop forever, progress hsa): T0 spins at line 16, T1 starved at line 20";
    for engine in ["explore", "smt"] {
        let args = ["check", "-m", "SSO", "-m", "CM", "--engine", engine];
        let (text, cells) = table_row(&args, &file, "hsa_first_waits");
        assert_eq!(cells, ["forbid~", "forbid~"], "{engine}: {text}");
        for m in ["SSO", "CM"] {
            assert!(
                text.contains(&format!("~ hsa_first_waits under {m}: {hang}")),
                "{engine}: {text}"
            );
        }
        let out = run_tangle(&["outcomes", "-m", "SSO", "--engine", engine], &file);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Flag hang: a run never finishes (progress hsa"),
            "{engine}: {text}"
        );
        let out = run_tangle(
            &["compare", "-m", "SSO", "-m", "CM", "--engine", engine],
            &file,
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains(&format!("~ hsa_first_waits under CM: {hang}")),
            "{engine}: {text}"
        );
        let out = run_tangle(
            &["check", "-m", "SSO", "--format", "dot", "--engine", engine],
            &file,
        );
        let dot = String::from_utf8_lossy(&out.stdout);
        assert!(
            dot.contains("hsa_first_waits under SSO, progress hsa: steps ")
                && dot.contains(" repeat forever"),
            "{engine}: {dot}"
        );
        assert!(dot.contains("(reads 0)"), "{engine}: {dot}");
    }
    // The same kernel without the pragma: fair scheduling runs the younger workgroup.
    let dir = tempfile::tempdir().unwrap();
    let fair = dir.path().join("fair_first_waits.comp");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&fair, text.replace("#pragma scheduler(HSA)", "")).unwrap();
    let (text, cells) = table_row(
        &["check", "-m", "SSO", "-m", "CM"],
        &fair,
        "fair_first_waits",
    );
    assert_eq!(cells, ["forbid", "forbid"], "{text}");
    assert!(!text.contains("never finishes"), "{text}");
}

/// Under SC Z3 deepens the bound where its reduction applies (docs/progress.md): the
/// four-workgroup handoff of `benches/data/cadp_4wg.litmus` is decided at `--unroll 2`, and
/// the report says so, with the explorer's answers; at `--unroll 2` itself no smaller bound is
/// tried; where loop steps wait (CM, two lanes spinning together) Z3 looks for a lasso at the
/// bound only, and the report names no smaller bound.
#[test]
fn z3_deepens_the_bound_under_sc_where_its_reduction_applies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let test = tangle::load(
        &root.join("benches/data/cadp_4wg.litmus"),
        &Default::default(),
    )
    .unwrap();
    let sso = Model::by_name("SSO").unwrap();
    for (p, want) in [
        ("fair", LiveVerdict::Live),
        ("hsa", LiveVerdict::Live),
        ("obe", LiveVerdict::Violated),
    ] {
        let pm = Progress::parse(p).unwrap();
        let z = liveness(&test, &sso, &pm, &smt()).unwrap();
        assert_eq!((z.verdict.clone(), z.bound), (want.clone(), Some(2)), "{p}");
        let e = liveness(&test, &sso, &pm, &opts()).unwrap();
        assert_eq!(e.verdict, want, "{p}: explorer");
        let at2 = liveness(&test, &sso, &pm, &smt().with_unroll(2)).unwrap();
        assert_eq!((at2.verdict, at2.bound), (want, None), "{p} at --unroll 2");
    }
    let cm = Model::by_name("CM").unwrap();
    let lockstep = test_file("spin_in_lockstep.litmus");
    let r = liveness(&lockstep, &cm, &Progress::parse("fair").unwrap(), &smt()).unwrap();
    assert_eq!((r.verdict, r.bound), (LiveVerdict::Violated, None));
}

/// The list of hangs under the table stops at twenty and says how many it left out.
#[test]
fn a_long_list_of_hangs_says_how_many_it_left_out() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness/spin_after_branch.litmus"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for k in 0..22 {
        let text = src.replacen("test spin_after_branch", &format!("test spin_{k:02}"), 1);
        std::fs::write(dir.path().join(format!("spin_{k:02}.litmus")), text).unwrap();
    }
    let out = run_tangle(&["check", "-m", "CM", "--engine", "explore"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("forbid~").count(), 22, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("~ spin_")).count(),
        20,
        "{text}"
    );
    assert!(
        text.contains(
            "~ and 2 more verdicts with runs that never finish (--format json lists them)"
        ),
        "{text}"
    );
}

/// A barrier divergence stops one workgroup: its threads are blocked, while another
/// workgroup's threads, which may still move, are `free` (not "blocked at entry", as they were
/// reported until 2026-11-29: the artifact's `nested_loop.comp`); Z3's witness, the same
/// deadlock.
#[test]
fn a_divergent_barrier_holds_only_its_workgroup() {
    let test = tangle::syntax::parse("div.litmus", DIVERGENT.as_bytes()).unwrap();
    let m = Model::by_name("SSO").unwrap();
    let r = liveness(&test, &m, &Progress::parse("fair").unwrap(), &opts()).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Violated);
    assert_eq!(r.hang, Some(HangKind::Deadlock));
    let role = |t: u32| r.threads[t as usize].role;
    assert_eq!(role(0), "blocked", "{:?}", r.threads);
    assert_eq!(role(1), "terminated", "{:?}", r.threads);
    // The explorer meets the divergence before workgroup 1 has finished.
    assert_eq!([role(2), role(3)], ["free", "free"], "{:?}", r.threads);
    assert!(r.threads[2].at.is_some());
    let text = tangle::report::text::liveness(&r, false);
    assert!(
        text.contains("T2 may still move (the hang does not hold it)"),
        "{text}"
    );
    assert!(text.contains("barrier divergence"), "{text}");
    // Workgroup 1 standing together at one barrier is not stopped: it passes.
    let src = "test div3\nthreads 4\nworkgroup 2\nsubgroup 1\nglobal y\n\nkernel {\n  if (tid == 0) {\n    barrier();\n  }\n  if (tid >= 2) {\n    barrier();\n  }\n  y = 1;\n}\n\nexists (y == 1)\n";
    let test = tangle::syntax::parse("div3.litmus", src.as_bytes()).unwrap();
    let r = liveness(&test, &m, &Progress::parse("fair").unwrap(), &opts()).unwrap();
    let roles: Vec<&str> = r.threads.iter().map(|t| t.role).collect();
    assert_eq!(
        roles,
        ["blocked", "terminated", "free", "free"],
        "{:?}",
        r.threads
    );
    // Z3 has no `free` role: its horizon is a state where the other workgroup has moved on
    // as far as it could (here, terminated); the divergent thread is blocked all the same.
    let test = tangle::syntax::parse("div.litmus", DIVERGENT.as_bytes()).unwrap();
    let r = liveness(&test, &m, &Progress::parse("fair").unwrap(), &smt()).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Violated);
    assert_eq!(r.hang, Some(HangKind::Deadlock));
    let roles: Vec<&str> = r.threads.iter().map(|t| t.role).collect();
    assert_eq!(roles[0], "blocked", "{:?}", r.threads);
    assert!(
        roles[1..].iter().all(|&x| x == "terminated"),
        "{:?}",
        r.threads
    );
}

/// One workgroup diverges at a barrier; the other has none.
const DIVERGENT: &str = "test div\nthreads 4\nworkgroup 2\nsubgroup 1\nglobal x\n\nkernel {\n  if (tid == 0) {\n    barrier();\n  }\n  x = 1;\n}\n\nexists (x == 1)\n";

/// Z3's liveness under Symb (docs/progress.md, "Symb"): values judged over the lanes that
/// entered an op's block before the horizon find the hang in `symb_guesses` (the file's
/// `expect-liveness` lines, checked by the suite test); the bound check lets any other lane
/// take part with any argument, so a run justified by a lane that joins past the bound
/// (`symb_joins_late`) is never called live; an op inside a counted loop is live, and under a
/// memory model refused, saying why without sending the user to the explorer.
#[test]
fn symb_liveness_is_never_live_on_what_the_bound_hides() {
    let symb = Model::by_name("Symb").unwrap();
    let fair = Progress::parse("fair").unwrap();
    let late = test_file("symb_joins_late.litmus");
    for unroll in [8, 12] {
        let r = liveness(&late, &symb, &fair, &smt().with_unroll(unroll)).unwrap();
        assert_ne!(r.verdict, LiveVerdict::Live, "--unroll {unroll}");
    }
    let src = "test l\nthreads 2\nglobal x\nkernel {\n  i = 0;\n  while (i < 2) {\n    s = subgroupAdd(1);\n    i = i + 1;\n  }\n}\nexists (x == 0)\n";
    let test = tangle::syntax::parse("l.litmus", src.as_bytes()).unwrap();
    let r = liveness(&test, &symb, &fair, &smt()).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Live);
    // Under a memory model an op in a loop is not covered: `unknown`, saying why, without
    // sending the user to the explorer (which does not run Symb's ops).
    let r = liveness(
        &test,
        &symb,
        &fair,
        &under("vulkan").with_engine(Engine::Smt),
    )
    .unwrap();
    let LiveVerdict::Unknown(why) = &r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert!(why.contains("inside loops under SC memory only"), "{why}");
    assert!(why.contains("line 7 is in a loop"), "{why}");
    assert!(!why.contains("use --engine explore"), "{why}");
}

/// `tangle liveness` without `--engine` asks the explorer, and Z3 where the explorer cannot
/// answer: Symb on a test with subgroup ops. `--engine explore` keeps the explorer (which
/// says why it cannot).
#[test]
fn liveness_picks_z3_for_symb_when_no_engine_is_named() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/liveness/symb_guesses.litmus");
    let run = |extra: &[&str]| {
        let out = Command::cargo_bin("tangle")
            .unwrap()
            .args(["liveness", "-m", "Symb", "-m", "SSO"])
            .args(extra)
            .arg(&file)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, text) = run(&[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("(model Symb, progress fair, engine smt): violated"),
        "{text}"
    );
    assert!(
        text.contains("(model SSO, progress fair, engine explore): violated"),
        "{text}"
    );
    let (code, text) = run(&["--engine", "explore"]);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("(model Symb, progress fair, engine explore): unknown"),
        "{text}"
    );
}

/// Symb's subgroup ops inside loops (docs/progress.md, "Symb's ops inside loops"). The
/// explorer does not run Symb's ops, so Z3's answers are checked two ways on random
/// flag-and-spin programs whose spins hold an op (`SpinConfig::ops_in_loops`: an unused add,
/// a `subgroupAll` that decides the loop, a `subgroupMax` that passes the value read on):
/// - one lane per subgroup: every op's participants are its own lane, so Symb runs the
///   program as SSO does, and Z3 under Symb must not contradict the explorer under SSO;
/// - several lanes, every op's value unused: Symb's ops then neither wait nor change
///   anything, so Symb runs the program as SSO runs it with the ops deleted, and Z3 under
///   Symb must not contradict the explorer under SSO on that program.
#[test]
fn symb_ops_in_loops_agree_with_the_explorer_where_symb_is_sso() {
    use tangle::gen::spin::{generate, SpinConfig};
    let symb = Model::by_name("Symb").unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let z3 = smt().with_timeout_ms(Some(4000));
    let parse = |text: &str| tangle::syntax::parse("spin.litmus", text.as_bytes()).unwrap();
    let (mut alone, mut unused, mut decided, mut live, mut violated) = (0, 0, 0, 0, 0);
    let mut bad = Vec::new();
    let mut several = 0;
    for seed in 0..96u64 {
        let lanes = seed % 2 == 1;
        let (threads, subgroup) = if lanes {
            (2 + (seed / 2 % 2) as u32, 2)
        } else {
            (2 + (seed / 2 % 2) as u32, 1)
        };
        let cfg = SpinConfig {
            threads,
            subgroup: subgroup.min(threads),
            workgroup: threads,
            collective: seed % 3 != 0,
            locks: false,
            counted: false,
            ops_in_loops: true,
        };
        let text = generate(seed, &cfg);
        let reference = if !lanes {
            alone += 1;
            text.clone()
        } else if text.contains("subgroupAll(") || text.contains("subgroupMax(") {
            continue;
        } else {
            unused += 1;
            (text.lines())
                .filter(|l| !l.contains("subgroupAdd(1);"))
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let (test, plain) = (parse(&text), parse(&reference));
        for p in ["fair", "unfair"] {
            let p = Progress::parse(p).unwrap();
            let z = liveness(&test, &symb, &p, &z3).unwrap().verdict;
            let e = liveness(&plain, &sso, &p, &opts()).unwrap().verdict;
            if contradicts(&e, &z) {
                bad.push(format!(
                    "seed {seed} under {}: explorer (SSO) {e:?}, Z3 (Symb) {z:?}\n{text}",
                    p.name()
                ));
            }
            if both_decided(&e, &z) {
                decided += 1;
                several += usize::from(lanes);
                match z {
                    LiveVerdict::Live => live += 1,
                    _ => violated += 1,
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let summary = format!(
        "{alone} programs of one-lane subgroups, {unused} of several lanes with unused ops: \
         {decided} answers decided by both ({several} with several lanes; {live} live, \
         {violated} violated)"
    );
    eprintln!("{summary}");
    assert!(
        unused >= 8 && decided >= 80 && several >= 12 && live >= 10 && violated >= 20,
        "{summary}"
    );
}

/// Symb's ops inside loops, the artifact's shaders (`litmus/public/tla-artifact`, each under
/// its own pragma's progress model): `live` where the loops end whatever lanes take part or
/// where only spinning lanes could take part (`loop_peeling`: a lane that terminated gives no
/// broadcast; `producer_consumer_subgroup`: one lane), `violated` where the spinning lanes of
/// one subgroup keep each other's op value (`spinlock_subgroup`: the lock holder is starved;
/// `branch_sync_local_rr`: two lanes read different messages and `subgroupAllEqual` never
/// holds). Until 2026-12-02 every one was `unknown` under Symb.
#[test]
fn symb_decides_the_artifact_shaders_with_ops_in_loops() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/tla-artifact");
    let symb = Model::by_name("Symb").unwrap();
    for (file, want) in [
        ("loop_peeling", LiveVerdict::Live),
        ("nested_loop", LiveVerdict::Live),
        ("dynamic_loop", LiveVerdict::Live),
        ("simplified_loop", LiveVerdict::Live),
        ("producer_consumer_subgroup", LiveVerdict::Live),
        ("spinlock_subgroup", LiveVerdict::Violated),
        ("branch_sync_local_rr", LiveVerdict::Violated),
    ] {
        let test = tangle::load(&dir.join(format!("{file}.comp")), &Default::default()).unwrap();
        let p = Progress::parse(test.hints.progress.as_deref().unwrap()).unwrap();
        let r = liveness(&test, &symb, &p, &smt()).unwrap();
        assert_eq!(r.verdict, want, "{file} under {}", p.name());
    }
}

/// The two rules that keep Z3's hang search under Symb honest when an op is in a loop
/// (`smt::liveness`, `symbolic_windows`): each test below is `live` under fair scheduling
/// (the files say why), and a search without the rule calls it `violated`.
/// - `symb_lagging_lane`: lane 0 runs ahead counting 1 while lane 1 lags behind in the same
///   loop, but lane 1 will enter lane 0's iterations (nobody may be ahead of a spinning lane).
/// - `symb_partner_leaves`: lane 0 repeats an iteration whose add counted lanes that leave
///   (every lane that took part in a window's op spins with it).
///
/// Z3 answers `unknown` (its over-approximation finds a hang it cannot confirm); under SSO,
/// where ops wait, the explorer's answers differ as the files say. `symb_lagging_barrier`
/// adds a barrier in a loop: lockstep lassos only, and an `unknown` that does not send the
/// user to the explorer, which does not run Symb's ops.
#[test]
fn symb_hangs_need_the_lanes_of_every_iteration() {
    let symb = Model::by_name("Symb").unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let fair = Progress::parse("fair").unwrap();
    let unfair = Progress::parse("unfair").unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/liveness");
    let verdict = |file: &str, m: &Model, p: &Progress, o: &Options| {
        let test = tangle::syntax::parse_file(&dir.join(file)).unwrap();
        liveness(&test, m, p, o).unwrap().verdict
    };
    for file in ["symb_lagging_lane.litmus", "symb_partner_leaves.litmus"] {
        let v = verdict(file, &symb, &fair, &smt());
        let LiveVerdict::Unknown(why) = &v else {
            panic!("{file}: {v:?}")
        };
        assert!(why.contains("line"), "{file}: {why}");
    }
    assert_eq!(
        verdict("symb_lagging_lane.litmus", &symb, &unfair, &smt()),
        LiveVerdict::Violated
    );
    assert_eq!(
        verdict("symb_lagging_lane.litmus", &sso, &fair, &opts()),
        LiveVerdict::Live
    );
    assert_eq!(
        verdict("symb_lagging_lane.litmus", &sso, &unfair, &opts()),
        LiveVerdict::Violated
    );
    // Under SSO lane 0's second add waits for lane 2, which waits for lane 0's flag.
    assert_eq!(
        verdict("symb_partner_leaves.litmus", &sso, &fair, &opts()),
        LiveVerdict::Violated
    );
    // With a barrier in a loop, the lockstep lassos (the rules hold in each).
    let v = verdict("symb_lagging_barrier.litmus", &symb, &fair, &smt());
    let LiveVerdict::Unknown(why) = &v else {
        panic!("symb_lagging_barrier: {v:?}")
    };
    assert!(why.contains("a lasso is all Z3 looks for"), "{why}");
    assert!(!why.contains("--engine explore"), "{why}");
    assert_eq!(
        verdict("symb_lagging_barrier.litmus", &symb, &unfair, &smt()),
        LiveVerdict::Violated
    );
}

/// Hangs of the narrowed model (docs/progress.md): whenever the explorer finds a hang under
/// Spec's, Lazy's or Symb's narrowed model (subgroup ops collective) that carries over, the
/// model's own answer (the explorer's under Spec and Lazy, Z3's under Symb) is never `live`,
/// on random spin programs with subgroup ops inside and around their loops.
#[test]
fn narrowed_hangs_are_hangs_of_the_model() {
    use tangle::gen::spin::SpinConfig;
    use tangle::query::liveness::narrowed_liveness;
    let sso = Model::by_name("SSO").unwrap();
    let z3 = smt().with_timeout_ms(Some(4000));
    let (mut carried, mut checked, mut refused) = (0, 0, 0);
    let mut bad = Vec::new();
    for seed in 0..48u64 {
        let (threads, subgroup, workgroup) = [(2, 2, 2), (3, 3, 3), (4, 2, 2)][seed as usize % 3];
        let cfg = SpinConfig {
            threads,
            subgroup,
            workgroup,
            collective: true,
            locks: false,
            counted: false,
            ops_in_loops: seed / 3 % 3 != 0,
        };
        let (text, test) = spin_from(seed, &cfg);
        let ops = tangle::ir::cfg::lower(&test).has_kind(tangle::vocab::Kind::Sgop);
        for p in ["fair", "hsa"] {
            let p = Progress::parse(p).unwrap();
            let hangs_narrowed = liveness(&test, &sso, &p, &opts()).unwrap().verdict;
            for name in ["Spec", "Lazy", "Symb"] {
                let m = Model::by_name(name).unwrap();
                let Some(n) = narrowed_liveness(&test, &m, &p, &opts()).unwrap() else {
                    refused += usize::from(ops && hangs_narrowed == LiveVerdict::Violated);
                    continue;
                };
                carried += 1;
                let own = if name == "Symb" {
                    liveness(&test, &m, &p, &z3).unwrap()
                } else {
                    liveness(&test, &m, &p, &opts()).unwrap()
                };
                if own.notes.is_empty() && both_decided(&own.verdict, &n.verdict) {
                    checked += 1;
                }
                if contradicts(&own.verdict, &n.verdict) {
                    bad.push(format!(
                        "seed {seed} under {name}, {}: its own answer {:?}, its narrowed \
                         model's hang\n{}",
                        p.name(),
                        own.verdict,
                        text
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let summary = format!(
        "{carried} hangs carried over, {checked} of them against an answer of the model's own; \
         {refused} narrowed hangs held a thread blocked at a subgroup op and were not carried"
    );
    eprintln!("{summary}");
    assert!(checked >= 30 && refused >= 5, "{summary}");
}

/// A lane blocked at a collective op may move once the op is not collective: SSO's hang on
/// `narrowed_blocked_op.litmus` holds lane 1 at the add, so it is no hang of Spec, Lazy or
/// Symb (all live under fair scheduling), and the narrowed model's search does not carry it.
#[test]
fn a_thread_blocked_at_a_narrowed_step_keeps_the_hang_from_carrying_over() {
    use tangle::query::liveness::{liveness_by_default, narrowed_liveness};
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/liveness/narrowed_blocked_op.litmus");
    let test = tangle::syntax::parse_file(&path).unwrap();
    let fair = Progress::parse("fair").unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let r = liveness(&test, &sso, &fair, &opts()).unwrap();
    assert_eq!(r.verdict, LiveVerdict::Violated);
    let blocked = r.threads.iter().find(|t| t.role == "blocked").unwrap();
    assert_eq!((blocked.thread, blocked.line), (1, Some(20)));
    for name in ["Spec", "Lazy", "Symb"] {
        let m = Model::by_name(name).unwrap();
        assert!(narrowed_liveness(&test, &m, &fair, &opts())
            .unwrap()
            .is_none());
        let r = liveness_by_default(&test, &m, &fair, &Options::default()).unwrap();
        assert_eq!(r.verdict, LiveVerdict::Live, "{name}: {:?}", r.verdict);
    }
}

/// When the explorer's search of the unrolled program reaches the state limit, the graph of
/// places (iterations at one place are one state) may still close up within it: the verdict
/// is then decided (docs/progress.md, "The explorer's places"). Below 2,000 states the spin
/// lock was `unknown` until 2026-12-02. (The artifact's `2t_2t_3txt_rr.comp` under CM, also
/// out of states, is `allow` by a terminating run the unrolled search finds.)
#[test]
fn places_decide_where_the_unrolled_search_runs_out() {
    use tangle::query::Verdict;
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/liveness/lock_past_limit.litmus");
    let test = tangle::syntax::parse_file(&path).unwrap();
    let sso = Model::by_name("SSO").unwrap();
    let small = opts().with_unroll(16).with_max_states(300);
    let a = tangle::query::analyse(&test, &sso, &small).unwrap();
    assert_eq!(a.verdict, Verdict::Forbidden, "{:?}", a.verdict);
    // Decided by the places: the note says so.
    assert!(
        a.notes
            .iter()
            .any(|n| n.contains("no outcome is missing; a run that repeats forever is a hang")),
        "{:?}",
        a.notes
    );
    // Stopped before the loop's cut: the places decide, and the runs past the bound are still
    // asked about hangs (`runs_cut`), as when the cut is seen.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/liveness/spin_past_limit.litmus");
    let spin = tangle::syntax::parse_file(&path).unwrap();
    let a =
        tangle::query::analyse(&spin, &sso, &opts().with_unroll(16).with_max_states(30)).unwrap();
    assert_eq!(a.verdict, Verdict::Forbidden, "{:?}", a.verdict);
    assert!(
        a.runs_cut,
        "{:?} {:?} {:?}",
        a.notes,
        a.bound_hit.is_some(),
        a.states
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("litmus/public/tla-artifact");
    let rr = tangle::load(&dir.join("2t_2t_3txt_rr.comp"), &Default::default()).unwrap();
    let cm = Model::by_name("CM").unwrap();
    let a = tangle::query::analyse(&rr, &cm, &opts().with_outcomes(false)).unwrap();
    assert_eq!(a.verdict, Verdict::Allowed, "{:?}", a.verdict);
}
