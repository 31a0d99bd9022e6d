//! The command line's contract, through the real binary (assert_cmd), with its outputs pinned
//! by snapshots (insta): exit codes (0 ok, 1 mismatch, 2 error, 3 unknown), a closed pipe,
//! standard input, files that are not regular or too big, located errors with suggestions,
//! witness pictures, the lattice, --expected tables and --bless, and JSON that never
//! contradicts its own verdict.

use super::harness::*;
use std::io::{BufRead, BufReader};

// ---- exit codes ----------------------------------------------------------------------------

#[test]
fn exit_codes_are_0_ok_1_mismatch_2_error_3_unknown() {
    cmd().args(["check", "litmus/paper"]).assert().code(0);
    let dir = tempfile::tempdir().unwrap();
    let wrong = write(
        dir.path(),
        "wrong.litmus",
        &TWO_LANES.replace("CM forbid", "CM allow"),
    );
    cmd().args(["check", &wrong, "-m", "CM"]).assert().code(1);
    cmd().args(["compare", &wrong, "-m", "CM"]).assert().code(1);
    cmd()
        .args(["check", "no/such/file.litmus"])
        .assert()
        .code(2);
    let looping = write(
        dir.path(),
        "loop.litmus",
        // The loop writes, so it is not idle: the cut is a doubt (docs/progress.md).
        "test loop\nthreads 2\nglobal x\nkernel { r = x; while (r == 0) { x = 0; r = x; } }\nexists (0:r == 1)\n",
    );
    let (code, out, _) = run(&["check", &looping, "-m", "CM", "--unroll", "1"]);
    assert_eq!(code, 3, "{out}");
    // A mismatch outranks an unknown, an error outranks both.
    let (code, ..) = run(&["check", &wrong, &looping, "-m", "CM", "--unroll", "1"]);
    assert_eq!(code, 1);
    let (code, ..) = run(&["check", &wrong, "nope.litmus", "-m", "CM"]);
    assert_eq!(code, 2);
}

#[test]
fn unroll_zero_is_a_usage_error() {
    let (code, _, err) = run(&["check", SSO_WW, "--unroll", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--unroll"), "{err}");
}

// ---- pipes, stdin, odd files ---------------------------------------------------------------

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tangle"))
        .args(["outcomes", "litmus/paper", "litmus/features"])
        .current_dir(MANIFEST_DIR)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("Test "), "{first}");
    // The reader is gone: the next write fails with EPIPE.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

#[test]
fn dash_reads_the_test_from_standard_input() {
    let out = cmd()
        .args(["check", "-", "-m", "CM", "--format", "json"])
        .write_stdin(TWO_LANES)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"][0]["file"], "<stdin>");
    assert_eq!(v["results"][0]["verdict"], "forbidden");
}

#[test]
fn fifos_devices_and_big_files_are_refused_not_read() {
    let (code, _, err) = run(&["check", "/dev/zero"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!("dev_zero", err);

    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.litmus");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        // Nobody writes to it: reading would block forever. It must be refused at once.
        let (code, _, err) = run(&["check", fifo.to_str().unwrap()]);
        assert_eq!(code, 2);
        assert!(err.contains("not a regular file"), "{err}");
    }

    let big = write(dir.path(), "big.litmus", TWO_LANES);
    let (code, _, err) = run(&["check", &big, "--max-file-size", "10"]);
    assert_eq!(code, 2);
    assert!(err.contains("above the limit of 10 bytes"), "{err}");
    assert!(err.contains("--max-file-size"), "{err}");
    cmd()
        .args(["check", &big, "-m", "CM", "--max-file-size", "100000"])
        .assert()
        .code(0);
}

#[test]
fn unreadable_entries_in_a_directory_are_errors_not_skipped() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "good.litmus", TWO_LANES);
    std::os::unix::fs::symlink(
        dir.path().join("missing"),
        dir.path().join("dangling.litmus"),
    )
    .unwrap();
    let (code, out, err) = run(&["check", dir.path().to_str().unwrap(), "-m", "CM"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("dangling.litmus") && err.contains("cannot read"),
        "{err}"
    );
    // The readable test still ran.
    assert!(out.contains("two"), "{out}");
}

// ---- located errors, suggestions, hints ----------------------------------------------------

#[test]
fn errors_are_located_with_a_caret_and_suggestions() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "typo.litmus",
        "test typo\nthreads 2\nglobal x\nkernel { r = subgroupBalot(lane); x = rr; }\nexists (P0:r == 1)\n",
    );
    let (code, _, err) = run(&["check", &f]);
    assert_eq!(code, 2);
    insta::assert_snapshot!("typo", err.replace(&f, "typo.litmus"));

    let g = write(
        dir.path(),
        "herd.litmus",
        "test herd\nthreads 2\nglobal x\nkernel { r = lane; }\nexists (0:r = 1)\n",
    );
    let (_, _, err) = run(&["check", &g]);
    insta::assert_snapshot!("herd_equals", err.replace(&g, "herd.litmus"));

    let (code, _, err) = run(&["check", SSO_WW, "-m", "Spek"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `Spec`?"), "{err}");
}

/// A progress model is checked by the models layer, not the parser, but reading the file
/// still refuses an unknown one where it is written, for every command.
#[test]
fn an_unknown_progress_model_in_an_expect_liveness_line_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "live.litmus",
        &format!("{TWO_LANES}expect-liveness CM fair live, SSO obee violated\n"),
    );
    for command in ["check", "liveness", "show"] {
        let r = tangle(&[command, f.as_str()]);
        assert_eq!(assert_located_error(&r, &f), (7, 35), "{}", r.show());
        assert!(
            r.stderr.contains("unknown progress model `obee`"),
            "{}",
            r.show()
        );
        assert!(r.stderr.contains("did you mean"), "{}", r.show());
    }
}

/// `expect forbid` is about every model; a model's own entry wins over it.
#[test]
fn an_expect_entry_without_a_model_is_about_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let every = TWO_LANES.replace("expect CM forbid", "expect forbid, SSO allow");
    let f = write(dir.path(), "every.litmus", &every);
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SM", "-m", "SSO"])
        .assert()
        .code(0);
    let wrong = write(
        dir.path(),
        "wrong.litmus",
        &TWO_LANES.replace("expect CM forbid", "expect allow, SSO forbid"),
    );
    let r = tangle(&["check", &wrong, "-m", "CM", "-m", "SSO", "-m", "SM"]);
    assert_eq!(r.code, 1, "{}", r.show());
    assert!(
        r.stdout
            .contains("two under CM: forbid but the expectation says allow"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout
            .contains("two under SSO: allow but the expectation says forbid"),
        "{}",
        r.show()
    );
    assert!(
        r.stdout
            .contains("3 checked against expectations, 3 mismatches"),
        "{}",
        r.show()
    );
}

#[test]
fn too_many_block_instances_point_at_the_loop_nest() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "nest.litmus",
        "test nest\nthreads 2\nglobal x\nkernel {\n  i = 0;\n  while (i < 100) {\n    j = 0;\n    while (j < 100) {\n      k = 0;\n      while (k < 100) { k = k + 1; }\n      j = j + 1;\n    }\n    i = i + 1;\n  }\n  x = i;\n}\nexists (x == 1)\n",
    );
    let (code, _, err) = run(&["check", &f, "-m", "CM", "--unroll", "64"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{f}:6:")), "{err}");
    assert!(
        err.contains("block instances") && err.contains("^"),
        "{err}"
    );
}

#[test]
fn duplicate_test_names_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.litmus", TWO_LANES);
    let b = write(dir.path(), "b.litmus", TWO_LANES);
    let (code, _, err) = run(&["check", &a, &b, "-m", "CM"]);
    assert_eq!(code, 0);
    assert!(err.contains("test name `two` is used twice"), "{err}");
    let table = write(dir.path(), "t.csv", "test,model,verdict\ntwo,CM,forbid\n");
    let (code, _, err) = run(&["check", &a, &b, "-m", "CM", "--expected", &table]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_name_longer_than_65535_characters_does_not_break_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let long = "n".repeat(70_000);
    let f = write(
        dir.path(),
        "long.litmus",
        &TWO_LANES.replace("test two", &format!("test {long}")),
    );
    let (code, out, err) = run(&["check", &f, "-m", "CM"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&long));
}

// ---- output that is true -------------------------------------------------------------------

#[test]
fn check_json_has_no_outcomes_and_condition_holds_follows_the_verdict() {
    let (code, out, _) = run(&["check", "litmus/paper", "--format", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["schema_version"], 2);
    assert_eq!(v["command"], "check");
    for a in v["results"].as_array().unwrap() {
        assert!(a.get("outcomes").is_none(), "check lists no outcomes: {a}");
        let allowed = a["verdict"] == "allowed";
        assert_eq!(
            a["condition_holds"], allowed,
            "exists P holds iff allowed: {a}"
        );
    }
}

#[test]
fn a_cut_outcome_list_is_marked_and_has_no_observation_line() {
    let (code, out, _) = run(&["outcomes", SSO_WW, "-m", "SCF", "--max-outcomes", "1"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("States 1 or more (the list is incomplete"),
        "{out}"
    );
    assert!(!out.contains("Observation"), "{out}");
    let (_, out, _) = run(&[
        "outcomes",
        SSO_WW,
        "-m",
        "SCF",
        "--max-outcomes",
        "1",
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"][0]["outcomes_complete"], false);
    assert!(v["results"][0]["outcomes_incomplete_because"].is_string());
}

#[test]
fn witnesses_name_what_hidden_registers_hold() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "t.litmus",
        "test t\nthreads 2\nglobal x\nkernel { r = subgroupAdd(lane) + 1; x = r; }\nexists (0:r == 2)\n",
    );
    let (_, out, _) = run(&["check", &f, "-m", "CM", "--witness"]);
    assert!(out.contains("0:subgroupAdd(lane) = 1"), "{out}");
    assert!(!out.contains('$'), "{out}");
}

#[test]
fn snapshots_of_text_json_and_dot() {
    let (_, out, _) = run(&["check", "litmus/paper"]);
    insta::assert_snapshot!("check_paper", out);
    let (_, out, _) = run(&[
        "outcomes",
        SSO_WW,
        "-m",
        "Spec",
        "--engine",
        "explore",
        "--witness",
    ]);
    insta::assert_snapshot!("outcomes_sso_ww_spec", mask_times(&out));
    let (_, out, _) = run(&[
        "outcomes", SSO_WW, "-m", "SCF", "--engine", "explore", "--format", "json",
    ]);
    insta::assert_snapshot!("outcomes_sso_ww_scf_json", mask_times(&out));
    let (code, out, _) = run(&[
        "check", SSO_WW, "-m", "Spec", "--engine", "explore", "--format", "dot",
    ]);
    assert_eq!(code, 0);
    assert!(out.starts_with("digraph"), "{out}");
    assert!(out.contains("rf slots[0]"), "reads-from edges: {out}");
    assert!(
        out.contains("members T0,T1"),
        "dynamic blocks with members: {out}"
    );
    insta::assert_snapshot!("witness_dot", out);
}

// ---- batch runs ----------------------------------------------------------------------------

#[test]
fn expected_tables_report_differences_and_bless_rewrites_them() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("results.csv");
    let t = table.to_str().unwrap();
    // No table yet: --bless writes it.
    cmd()
        .args([
            "check",
            "litmus/paper",
            "-m",
            "CM",
            "-m",
            "Spec",
            "--expected",
            t,
            "--bless",
        ])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&table).unwrap();
    assert!(text.starts_with("test,model,verdict\n"), "{text}");
    assert!(
        text.contains("sso_ww,Spec,allow\n") && text.contains("sso_ww,CM,forbid\n"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1 + 12 * 2);
    cmd()
        .args([
            "check",
            "litmus/paper",
            "-m",
            "CM",
            "-m",
            "Spec",
            "--expected",
            t,
        ])
        .assert()
        .code(0);
    // Change one row: a difference, exit 1, named on stderr.
    std::fs::write(
        &table,
        text.replace("sso_ww,Spec,allow", "sso_ww,Spec,forbid"),
    )
    .unwrap();
    let (code, out, err) = run(&[
        "check",
        "litmus/paper",
        "-m",
        "CM",
        "-m",
        "Spec",
        "--expected",
        t,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.contains("sso_ww under Spec: allow (the table says forbid)"),
        "{err}"
    );
    assert!(out.contains("allow!"), "{out}");
    // A malformed row is a located error.
    std::fs::write(&table, "test,model,verdict\nsso_ww,Spec,maybe\n").unwrap();
    let (code, _, err) = run(&["check", SSO_WW, "--expected", t]);
    assert_eq!(code, 2);
    assert!(
        err.contains(":2:") && err.contains("expected allow, forbid or unknown"),
        "{err}"
    );
}

#[test]
fn bless_rewrites_expect_lines_from_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "w.litmus",
        &TWO_LANES.replace("CM forbid", "CM allow"),
    );
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SCF"])
        .assert()
        .code(1);
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SCF", "--bless"])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(text.ends_with("expect CM forbid, SCF allow\n"), "{text}");
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SCF"])
        .assert()
        .code(0);
}

// ---- other commands ------------------------------------------------------------------------

#[test]
fn thin_air_takes_model_files_and_an_engine() {
    let f = "litmus/features/symb_value_thin_air.litmus";
    for engine in ["smt", "explore"] {
        let (code, out, err) = run(&[
            "thin-air",
            f,
            "--symbolic",
            "encodings/symb.toml",
            "--engine",
            engine,
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["results"][0]["engine"], engine);
        assert!(!v["results"][0]["thin_air"].as_array().unwrap().is_empty());
    }
}

// ---- pictures and searches -----------------------------------------------------------------

#[test]
fn the_committed_lattice_picture_is_what_include_lattice_draws() {
    let (code, out, err) = run(&[
        "include",
        "--lattice",
        "--threads",
        "3",
        "--size",
        "4",
        "--format",
        "dot",
    ]);
    assert_eq!(code, 0, "{err}");
    let committed =
        std::fs::read_to_string(Path::new(MANIFEST_DIR).join("docs/lattice.dot")).unwrap();
    assert_eq!(
        out, committed,
        "regenerate docs/lattice.dot (README, docs/inclusion.md)"
    );
    assert!(out.contains("SM ⊄ CM (3 lanes, 3 instr.)"), "{out}");
    // The drawing's edges, read back, are the paper's order written out here by hand (not
    // taken from the tool): CM ⊂ SM ⊂ SCF ⊂ SSO ⊂ {Spec, Lazy} ⊂ Symb, Spec and Lazy
    // incomparable.
    let names: std::collections::HashMap<String, String> = out
        .lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" [ label = \"")?;
            let name = rest.split("\\n").next()?;
            Some((id.to_string(), name.to_string()))
        })
        .collect();
    let mut solid = Vec::new();
    let mut dashed = Vec::new();
    for l in out.lines() {
        let Some((a, rest)) = l.trim().split_once(" -> ") else {
            continue;
        };
        if !names.contains_key(a) {
            continue; // the graph's own label mentions `A -> B`
        }
        let b = rest.split_whitespace().next().unwrap_or("");
        let pair = (names[a].clone(), names[b].clone());
        if l.contains("dashed") {
            dashed.push(pair);
        } else {
            solid.push(pair);
        }
    }
    solid.sort();
    let mut paper: Vec<(String, String)> = [
        ("CM", "SM"),
        ("SM", "SCF"),
        ("SCF", "SSO"),
        ("SSO", "Spec"),
        ("SSO", "Lazy"),
        ("Spec", "Symb"),
        ("Lazy", "Symb"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    paper.sort();
    assert_eq!(solid, paper, "{out}");
    assert_eq!(
        dashed,
        vec![("Spec".to_string(), "Lazy".to_string())],
        "{out}"
    );
}

#[test]
fn lattice_json_lists_every_ordered_pair() {
    let (code, out, err) = run(&[
        "include",
        "--lattice",
        "--threads",
        "2",
        "--size",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let pairs = v["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 42);
    let get = |a: &str, b: &str| {
        pairs
            .iter()
            .find(|p| p["a"] == a && p["b"] == b)
            .unwrap()
            .clone()
    };
    assert_eq!(get("CM", "Symb")["verdict"], "proven");
    assert_eq!(get("SCF", "SM")["verdict"], "refuted");
    assert_eq!(get("SCF", "SM")["threads"], 2);
    // 3 lanes are needed to refute SM ⊆ CM: at 2 lanes it stays open, not refuted.
    assert_eq!(get("SM", "CM")["verdict"], "open");
}

#[test]
fn huge_limits_are_refused_or_honoured_without_panicking() {
    let (code, _, err) = run(&["distinguish", "CM", "SM", "--time-limit", "1e30"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("too large"), "{err}");
    let (code, _, err) = run(&[
        "check",
        SSO_WW,
        "-m",
        "CM",
        "--max-file-size",
        "18446744073709551615",
    ]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn an_equiv_time_budget_that_runs_out_is_unknown_exit_3() {
    let p = "litmus/transforms/";
    let dir = Path::new(MANIFEST_DIR).join(p);
    let before = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|f| f.to_string_lossy().ends_with(".before.litmus"))
        .unwrap();
    let after = before.to_string_lossy().replace(".before.", ".after.");
    let (code, out, err) = run(&["equiv", before.to_str().unwrap(), &after, "--timeout", "1"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(!err.contains("error"), "{err}");
}

#[test]
fn bless_keeps_a_condition_and_comments_sharing_the_expect_lines() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "m.litmus",
        "test m\r\nthreads 2\r\nglobal x\r\nkernel { x = lane; r = x; }\r\nexists (0:r != 1:r) expect CM allow,\r\n  SCF forbid // keep me\r\n",
    );
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SCF", "--bless"])
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&f).unwrap();
    assert!(
        text.contains("exists (0:r != 1:r) expect CM forbid, SCF allow // keep me\r\n"),
        "{text:?}"
    );
    cmd()
        .args(["check", &f, "-m", "CM", "-m", "SCF"])
        .assert()
        .code(0);
}

#[test]
fn a_broken_spirv_binary_names_the_file_not_a_made_up_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "g.spv", "garbage!");
    let (code, _, err) = run(&["check", &f, "--subgroup-size", "4"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("error: {f}: not a SPIR-V binary")),
        "{err}"
    );
}
