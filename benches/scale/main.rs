//! Scale benchmark: the explicit-state explorer against the Z3 engine, side by side, on five
//! families of tests generated for 2, 4, 8, 16 and 32 lanes (64 on request).
//!
//! - `sso_ww`: the paper's `sso_ww` generalised to N lanes (a ring of stores ordered by a
//!   subgroup op in each of two divergent arms).
//! - `ks`: a Kogge-Stone inclusive scan with `subgroupShuffleUp`, log2 N levels (the pattern
//!   of a driver bug report about shuffles that did not execute in lockstep).
//! - `peel`: a `subgroupBroadcastFirst` peeling ("waterfall") loop over N/2 distinct keys.
//! - `racy`, `racy_sg`: N lanes store to one cell and read it back, in one subgroup or in
//!   four (the dense race: N² conflicting pairs).
//!
//! Each (family, N, engine, model) is one run of the release `tangle` executable (a private
//! copy, so a rebuild during the run changes nothing) with
//! `check FILE --model M --engine E --unroll U --format json`, as a subprocess, timed (wall
//! clock) and measured (peak resident memory, through `/usr/bin/time -f %M` when it exists,
//! else by sampling `/proc/PID/status` VmHWM). A run that outlives the time budget is killed
//! and reported as `timeout`, one above the memory cap as `memout`; the explorer's state
//! budget (`--max-states`) shows as `limit`. After the explorer gives up (limit, timeout,
//! memout) at some N, larger N of the same family and model are skipped (`--no-skip` runs
//! them anyway). The explorer cannot run Symb (`n/a`). Z3 runs get `--max-outcomes 1`: JSON
//! output makes `check` enumerate outcomes in builds before JSON schema 2, and the table is
//! about the verdict (use `--z3-outcomes 256` for the CLI's default enumeration). Both JSON
//! forms are read (schema 2's envelope and the older bare array), and exit codes 0, 1 and 3
//! count as a completed run; 2, another code or a signal as an `error`. At the end it also
//! times the paper suite, `tangle check litmus/paper` (12 tests, all seven models, Z3), as a
//! whole.
//!
//! The result is a Markdown table on stdout; progress goes to stderr.
//!
//! ```text
//! cargo bench --bench scale                 # full: N in 2..32, all seven models
//! cargo bench --bench scale -- --quick      # smoke: N in {2,4,8}, CM SSO Lazy Symb,
//!                                           #   --max-states 200000, 20 s budget
//! cargo bench --bench scale -- --emit DIR --sizes 4,32   # only write the .litmus files
//! ```
//!
//! Other flags (`cargo bench --bench scale -- --help` lists them): `--sizes 2,4,..`,
//! `--families sso_ww,ks,peel,racy,racy_sg`, `--models CM,SSO,..`,
//! `--budget SECS` (per run, default 60), `--max-states N` (explorer, default 2000000),
//! `--mem-cap MIB` (default 8192), `--z3-outcomes K` (default 1), `--engines explore,smt`,
//! `--paper-runs K` (default 5), `--no-skip`, `--no-paper`, `--cts-sizes 4,8,..` (CTS-shaped
//! batches from `tangle::gen::cts`, default 4,8,16,32,64), `--cts-programs K` (per batch up to
//! 8 lanes, default 50), `--cts-programs-large K` (16 lanes and more, default 5),
//! `--baseline PATH` (an older `tangle` run on the same Z3 cells and batches, for
//! before/after ratios).

mod cts;
mod families;
mod options;
mod runner;
mod tables;

use cts::{cts_batches, cts_table};
use families::generate;
use options::{parse_opts, Opts};
use runner::{find_tangle, measured, Runner, TIME_BIN};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use tables::{agree_cell, mib, ratio_cell, secs, table, time_cell, Row};

const MODELS: [&str; 7] = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"];

fn scratch_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("tangle-scale-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("create a temporary directory");
    d
}

fn emit(dir: &Path, o: &Opts) {
    std::fs::create_dir_all(dir).expect("create the output directory");
    for f in &o.families {
        for &n in &o.sizes {
            let g = generate(f, n);
            let p = dir.join(format!("{}.litmus", g.name));
            std::fs::write(&p, &g.text).expect("write a test file");
            println!("{} (--unroll {})", p.display(), g.unroll);
        }
    }
}

fn main() {
    let o = match parse_opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("scale: {e}");
            std::process::exit(2);
        }
    };
    if let Some(dir) = &o.emit {
        emit(dir, &o);
        return;
    }
    let tangle = match find_tangle() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("scale: {e}");
            std::process::exit(2);
        }
    };
    let use_time = Path::new(TIME_BIN).exists();
    let scratch = scratch_dir();
    // Run a private copy, so that a rebuild of target/release during the run changes nothing.
    let tangle = {
        let copy = scratch.join("tangle");
        match std::fs::copy(&tangle, &copy) {
            Ok(_) => copy,
            Err(_) => tangle,
        }
    };
    let version = Command::new(&tangle)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut runner = Runner {
        tangle: tangle.clone(),
        use_time,
        budget: o.budget,
        scratch: scratch.clone(),
        counter: 0,
        z3_outcomes: o.z3_outcomes,
        mem_cap_mib: o.mem_cap_mib,
    };
    eprintln!(
        "scale: {} ({}), budget {} s per run, explorer --max-states {}, memory by {}",
        tangle.display(),
        if o.quick { "quick" } else { "full" },
        o.budget.as_secs(),
        o.max_states,
        if use_time {
            "/usr/bin/time -f %M"
        } else {
            "polling /proc/PID/status VmHWM (approximate)"
        }
    );

    let total = Instant::now();
    let mut rows = Vec::new();
    for fam in &o.families {
        // Models whose explorer run gave up at a smaller N (skip larger N).
        let mut gave_up: Vec<(String, u32)> = Vec::new();
        for &n in &o.sizes {
            let g = generate(fam, n);
            let file = scratch.join(format!("{}.litmus", g.name));
            std::fs::write(&file, &g.text).expect("write a test file");
            for model in &o.models {
                let ex = if model == "Symb" {
                    measured("n/a", "the explorer cannot run Symb".into())
                } else if !o.engines.iter().any(|e| e == "explore") {
                    measured("skipped", "--engines without explore".into())
                } else if let Some((_, at)) = gave_up.iter().find(|(m, _)| o.skip && m == model) {
                    measured("skipped", format!("gave up at N = {at}"))
                } else {
                    let m = runner.check(&file, g.unroll, "explore", model, o.max_states);
                    if m.gave_up() {
                        gave_up.push((model.clone(), n));
                    }
                    m
                };
                let z3 = if o.engines.iter().any(|e| e == "smt") {
                    runner.check(&file, g.unroll, "smt", model, o.max_states)
                } else {
                    measured("skipped", "--engines without smt".into())
                };
                let z3_before = match (&o.baseline, o.engines.iter().any(|e| e == "smt")) {
                    (Some(b), true) => {
                        let saved = std::mem::replace(&mut runner.tangle, b.clone());
                        let m = runner.check(&file, g.unroll, "smt", model, o.max_states);
                        runner.tangle = saved;
                        Some(m)
                    }
                    _ => None,
                };
                let row = Row {
                    family: fam.clone(),
                    n,
                    model: model.clone(),
                    ex,
                    z3,
                    z3_before,
                };
                eprintln!(
                    "  {:<7} N={:<2} {:<5} explorer {:<10} {:>18}  z3 {:<8} {:>18}  ratio {}",
                    row.family,
                    n,
                    row.model,
                    row.ex.verdict,
                    time_cell(&row.ex),
                    row.z3.verdict,
                    time_cell(&row.z3),
                    ratio_cell(&row)
                );
                for (eng, m) in [("explorer", &row.ex), ("z3", &row.z3)] {
                    if matches!(m.verdict.as_str(), "unknown" | "error") {
                        eprintln!("      {eng}: {}: {}", m.verdict, m.reason);
                    }
                }
                rows.push(row);
            }
        }
    }
    let families_time = total.elapsed();
    let cts_rows = cts_batches(&mut runner, &o, &scratch);

    let mut out = String::new();
    let _ = writeln!(
        out,
        "Scale benchmark ({} mode), {version}: `tangle check FILE --model M --engine E --unroll U \
         --format json`, one subprocess per cell; explorer `--max-states {}`, Z3 `--max-outcomes {}`; \
         {} s budget per run; peak memory {}.\n",
        if o.quick { "quick" } else { "full" },
        o.max_states,
        o.z3_outcomes,
        o.budget.as_secs(),
        if use_time {
            "from `/usr/bin/time -f %M` (max RSS)"
        } else {
            "from polling /proc/PID/status VmHWM (approximate; /usr/bin/time not found)"
        }
    );
    out.push_str(&table(&rows));
    let _ = writeln!(out, "\nfamilies: {} in total", secs(families_time));
    if !cts_rows.is_empty() {
        out.push_str(&cts_table(&cts_rows, &o));
    }

    let mut notes = Vec::new();
    for r in &rows {
        for (eng, m) in [("explore", &r.ex), ("smt", &r.z3)] {
            let what = format!("{} N={} {} --engine {eng}", r.family, r.n, r.model);
            if matches!(
                m.verdict.as_str(),
                "unknown" | "error" | "timeout" | "memout" | "limit"
            ) {
                notes.push(format!("- {what}: {} ({})", m.verdict, m.reason));
            }
            if m.contradicts_expect() {
                notes.push(format!(
                    "- {what}: **{} contradicts the expect line**",
                    m.verdict
                ));
            }
        }
        if agree_cell(r) == "**NO**" {
            notes.push(format!(
                "- {} N={} {}: **the engines disagree** (explorer {}, Z3 {})",
                r.family, r.n, r.model, r.ex.verdict, r.z3.verdict
            ));
        }
    }
    if notes.is_empty() {
        out.push_str("\nEvery decided verdict matches the expect line; no run was undecided.\n");
    } else {
        out.push_str("\nUndecided runs, disagreements and expect-line mismatches:\n\n");
        for n in notes {
            let _ = writeln!(out, "{n}");
        }
    }

    if o.paper {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        let paper = manifest.join("litmus").join("paper");
        let args = vec!["check".to_string(), paper.display().to_string()];
        let mut walls = Vec::new();
        let mut peak = 0;
        let mut ok = true;
        for _ in 0..o.paper_runs.max(1) {
            let (wall, p, status, stdout, _) = runner.run_raw(&args);
            walls.push(wall);
            peak = peak.max(p.unwrap_or(0));
            // Only exit code 0 backs "all verdicts match": 1 is a mismatch, 3 an unknown
            // verdict (and 2 an error), though all of them print the table.
            ok &= status.is_ok_and(|s| s.success()) && stdout.contains("0 mismatches");
        }
        walls.sort();
        let _ = writeln!(
            out,
            "\nPaper suite, `tangle check litmus/paper` (12 tests x 7 models, Z3), {} runs: \
             min {}, median {}, max {}; peak {} MiB; {}",
            walls.len(),
            secs(walls[0]),
            secs(walls[walls.len() / 2]),
            secs(walls[walls.len() - 1]),
            mib(Some(peak)),
            if ok {
                "all 84 verdicts match the expect lines"
            } else {
                "FAILED (a run failed, an expect line was contradicted or a verdict was unknown)"
            }
        );
    }
    print!("{out}");
    let _ = std::fs::remove_dir_all(&scratch);
}
