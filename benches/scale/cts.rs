//! The CTS-shaped batches: programs from `tangle::gen::cts`, one `tangle check DIR` per
//! engine and build, and their table.

use crate::options::Opts;
use crate::runner::{completed, first_line, results, Killed, Runner};
use crate::tables::{mib, secs};
use serde_json::Value;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

/// One `tangle check DIR` run over a batch of CTS-shaped programs (all seven models).
pub struct CtsRow {
    lanes: u32,
    programs: u64,
    ops: (usize, usize),
    engine: &'static str,
    /// The build that ran: "after" (this one) or "before" (`--baseline`).
    build: &'static str,
    wall: Duration,
    peak_kib: Option<u64>,
    forbid: usize,
    unknown: usize,
    other: usize,
    /// The slowest (test, model) analysis by the engine's own clock (the first model of a
    /// test also pays for its encoding), in ms.
    slowest_ms: f64,
    failure: Option<String>,
}

/// Generates `--cts-programs` programs per lane count and checks each batch in one process
/// per engine (and with the baseline build, for Z3).
pub fn cts_batches(runner: &mut Runner, o: &Opts, scratch: &Path) -> Vec<CtsRow> {
    let mut rows = Vec::new();
    for &n in &o.cts_sizes {
        let dir = scratch.join(format!("cts_{n}"));
        std::fs::create_dir_all(&dir).expect("create a batch directory");
        let cfg = tangle::gen::cts::CtsConfig {
            lanes: n,
            min_ops: 30,
            max_ops: 40,
            ..Default::default()
        };
        let mut ops = (usize::MAX, 0);
        // Large subgroups: fewer programs, and neither the explorer nor the baseline (both
        // run out of their budget well below 16 lanes on these shapes).
        let large = n >= 16;
        let count = if large {
            o.cts_programs_large
        } else {
            o.cts_programs
        };
        for seed in 0..count {
            let p = tangle::gen::cts::generate(seed, &cfg);
            ops = (ops.0.min(p.ops), ops.1.max(p.ops));
            std::fs::write(dir.join(format!("{}.litmus", p.name)), &p.text)
                .expect("write a test file");
        }
        let mut runs: Vec<(&'static str, &'static str)> = vec![("smt", "after")];
        if o.baseline.is_some() && !large {
            runs.push(("smt", "before"));
        }
        if o.engines.iter().any(|e| e == "explore") && !large {
            runs.push(("explore", "after"));
        }
        for (engine, build) in runs {
            let mut args = vec![
                "check".to_string(),
                dir.display().to_string(),
                "--engine".into(),
                engine.into(),
                "--format".into(),
                "json".into(),
            ];
            if engine == "explore" {
                args.extend(["--max-states".into(), o.max_states.to_string()]);
            }
            let saved = runner.tangle.clone();
            if build == "before" {
                runner.tangle = o.baseline.clone().expect("a baseline");
            }
            let (wall, peak_kib, status, stdout, stderr) = runner.run_raw(&args);
            runner.tangle = saved;
            let mut row = CtsRow {
                lanes: n,
                programs: count,
                ops,
                engine,
                build,
                wall,
                peak_kib,
                forbid: 0,
                unknown: 0,
                other: 0,
                slowest_ms: 0.0,
                failure: None,
            };
            match status {
                Err(Killed::Time) => {
                    row.failure = Some(format!("killed after {} s", runner.budget.as_secs()))
                }
                Err(Killed::Memory) => {
                    row.failure = Some(format!("killed above {} MiB", runner.mem_cap_mib))
                }
                Err(Killed::Failed) => row.failure = Some(format!("could not run: {stderr}")),
                Ok(st) => match completed(st, runner.use_time) {
                    Err(why) => {
                        row.failure = Some(format!("{why}; stderr: {}", first_line(&stderr)))
                    }
                    Ok(()) => match serde_json::from_str::<Value>(&stdout).as_ref().map(results) {
                        Ok(Some(items)) => {
                            for a in items {
                                match a["verdict"].as_str() {
                                    Some("forbidden") => row.forbid += 1,
                                    Some("unknown") => {
                                        // The explorer cannot run Symb: not a failure of the batch.
                                        if !(engine == "explore" && a["model"] == "Symb") {
                                            row.unknown += 1
                                        }
                                    }
                                    _ => row.other += 1,
                                }
                                row.slowest_ms =
                                    row.slowest_ms.max(a["millis"].as_f64().unwrap_or(0.0));
                            }
                        }
                        _ => {
                            row.failure = Some(format!("no JSON; stderr: {}", first_line(&stderr)))
                        }
                    },
                },
            }
            eprintln!(
                "  cts N={n:<2} {engine:<7} {build:<6} {} forbid {} unknown {} other {} slowest {:.0} ms{}",
                secs(row.wall),
                row.forbid,
                row.unknown,
                row.other,
                row.slowest_ms,
                row.failure.as_deref().map(|f| format!(" ({f})")).unwrap_or_default()
            );
            rows.push(row);
        }
    }
    rows
}

pub fn cts_table(rows: &[CtsRow], o: &Opts) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nCTS-shaped batches (`tangle::gen::cts`, 30-40 ops, nesting up to 3, one subgroup): \
         `tangle check DIR --engine E --format json`, all seven models, one process per batch; \
         every program is deterministic, so every verdict should be `forbid`.\n"
    );
    let _ = writeln!(
        out,
        "| lanes | programs | ops | engine | build | wall | peak MiB | forbid | unknown | other | slowest test x model | before/after |"
    );
    let _ = writeln!(
        out,
        "|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let ratio = if r.build == "after" && r.engine == "smt" {
            rows.iter()
                .find(|b| b.lanes == r.lanes && b.build == "before" && b.engine == "smt")
                .map(|b| {
                    let x = b.wall.as_secs_f64() / r.wall.as_secs_f64().max(1e-9);
                    if b.failure.is_some() {
                        format!("> {x:.0}")
                    } else {
                        format!("{x:.1}")
                    }
                })
                .unwrap_or_default()
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {}-{} | {} | {} | {} | {} | {} | {} | {} | {:.0} ms | {} |",
            r.lanes,
            r.programs,
            r.ops.0,
            r.ops.1,
            if r.engine == "smt" { "Z3" } else { "explorer" },
            r.build,
            match &r.failure {
                Some(f) => format!("{} ({f})", secs(r.wall)),
                None => secs(r.wall),
            },
            mib(r.peak_kib),
            r.forbid,
            r.unknown,
            r.other,
            r.slowest_ms,
            ratio
        );
    }
    let _ = o;
    out
}
