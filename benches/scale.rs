//! Scale benchmark: the explicit-state explorer against the Z3 engine, side by side, on three
//! families of tests generated for 2, 4, 8, 16 and 32 lanes.
//!
//! - `sso_ww`: the paper's `sso_ww` generalised to N lanes (a ring of stores ordered by a
//!   subgroup op in each of two divergent arms).
//! - `ks`: a Kogge-Stone inclusive scan with `subgroupShuffleUp`, log2 N levels (the pattern
//!   of a driver bug report about shuffles that did not execute in lockstep).
//! - `peel`: a `subgroupBroadcastFirst` peeling ("waterfall") loop over N/2 distinct keys.
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
//! `--families sso_ww,ks,peel`, `--models CM,SSO,..`,
//! `--budget SECS` (per run, default 60), `--max-states N` (explorer, default 2000000),
//! `--mem-cap MIB` (default 8192), `--z3-outcomes K` (default 1), `--engines explore,smt`,
//! `--paper-runs K` (default 5), `--no-skip`, `--no-paper`, `--cts-sizes 4,8,..` (CTS-shaped
//! batches from `tangle::gen::cts`, default 4,8,16,32,64), `--cts-programs K` (per batch up to
//! 8 lanes, default 50), `--cts-programs-large K` (16 lanes and more, default 5),
//! `--baseline PATH` (an older `tangle` run on the same Z3 cells and batches, for
//! before/after ratios).

use clap::{ArgAction, Parser};
use serde_json::Value;
use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MODELS: [&str; 7] = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"];
const QUICK_MODELS: [&str; 4] = ["CM", "SSO", "Lazy", "Symb"];
const FAMILIES: [&str; 3] = ["sso_ww", "ks", "peel"];
const TIME_BIN: &str = "/usr/bin/time";

// ---- the families -----------------------------------------------------------------------

/// A generated test: its text and the loop bound to run it with.
struct Generated {
    name: String,
    text: String,
    unroll: u32,
}

fn log2(n: u32) -> u32 {
    assert!(
        n.is_power_of_two() && n >= 2,
        "lane counts are powers of two >= 2"
    );
    n.trailing_zeros()
}

/// Verdicts (allow = true) for CM, SM, SCF, SSO, Spec, Lazy, Symb, where they were derived
/// (by running both engines and by the reasoning in docs/benchmarks.md). Only these sizes
/// get an `expect` line.
fn expectation(family: &str, n: u32) -> Option<[bool; 7]> {
    let _ = n; // the same for every N (see docs/benchmarks.md)
    match family {
        // As the paper's sso_ww: a subgroup op in each arm orders the arm's store after the
        // neighbour's, except where ops may fire early (Spec, Lazy) or symbolically (Symb).
        "sso_ww" => Some([false, false, false, false, true, true, true]),
        // Control flow is uniform (every lane runs every level), so every model gives each
        // shuffle all N lanes: the scan is deterministic.
        "ks" => Some([false; 7]),
        // Whether a lane stays in the loop depends only on broadcastFirst results among the
        // lanes still in it: each model peels keys in lane order.
        "peel" => Some([false; 7]),
        _ => None,
    }
}

fn expect_line(family: &str, n: u32) -> String {
    match expectation(family, n) {
        Some(v) => {
            let parts: Vec<String> = MODELS
                .iter()
                .zip(v)
                .map(|(m, a)| format!("{m} {}", if a { "allow" } else { "forbid" }))
                .collect();
            format!("expect {}\n", parts.join(", "))
        }
        None => String::new(),
    }
}

fn header(name: &str, what: &str, n: u32) -> String {
    format!("test {name} \"{what}\"\nthreads {n}\n")
}

/// The paper's `sso_ww` on N lanes: lane i stores 1 to its own slot, then, in an arm chosen
/// by its parity, runs a subgroup op and stores 2 to slot i+1 (mod N); after a subgroup
/// barrier it reads its own slot. The condition: some lane does not read 2.
fn sso_ww(n: u32) -> Generated {
    let name = format!("sso_ww_{n}");
    let mut t = String::new();
    t.push_str(
        "// Scale family \"sso_ww\": the paper's sso_ww on N lanes. Each lane's store of 2 to its\n\
         // neighbour's slot follows a subgroup op in a divergent arm; the neighbour (other parity,\n\
         // other arm) stored 1 there first. Can some lane read back anything but 2?\n",
    );
    t.push_str(&header(
        &name,
        &format!("stores ordered by subgroup ops in divergent arms, {n} lanes"),
        n,
    ));
    let _ = writeln!(t, "global slots[{n}]\n");
    let _ = writeln!(
        t,
        "kernel {{\n  next = (lane + 1) % {n};\n  slots[lane] = 1;\n  if (lane % 2 == 0) {{\n    \
         s = subgroupAll(true);\n    slots[next] = 2;\n  }} else {{\n    s = subgroupAll(false);\n    \
         slots[next] = 2;\n  }}\n  subgroupBarrier();\n  r = slots[lane];\n}}\n"
    );
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:r != 2")).collect();
    let _ = writeln!(t, "exists ({})", cond.join(" || "));
    t.push_str(&expect_line("sso_ww", n));
    Generated {
        name,
        text: t,
        unroll: 1,
    }
}

/// Kogge-Stone inclusive scan of `lane + 1` with `subgroupShuffleUp`, log2 N levels. The
/// delta is `d` where the lane uses the value and 0 elsewhere (see the comment in the file).
/// The condition: the last lane's sum is not N(N+1)/2.
fn ks(n: u32) -> Generated {
    let name = format!("ks_{n}");
    let levels = log2(n);
    let total = n * (n + 1) / 2;
    let mut t = String::new();
    t.push_str(
        "// Scale family \"ks\": a Kogge-Stone inclusive scan of lane + 1 with subgroupShuffleUp,\n\
         // log2 N levels, the pattern of a driver bug where the shuffles did not run in lockstep.\n\
         // Lanes below d shuffle with delta 0 (their own value, then discarded) instead of d: a\n\
         // shuffle from an out-of-range lane is an unspecified value, on which the explorer can\n\
         // only answer unknown. Can the last lane end with anything but N(N+1)/2?\n",
    );
    t.push_str(&header(
        &name,
        &format!("Kogge-Stone scan with subgroupShuffleUp, {n} lanes"),
        n,
    ));
    let _ = writeln!(
        t,
        "\nkernel {{\n  v = lane + 1;\n  for (i = 0; i < {levels}; i = i + 1) {{\n    d = 1 << i;\n    \
         rhs = subgroupShuffleUp(v, lane >= d ? d : 0);\n    v = v + (lane >= d ? rhs : 0);\n  }}\n}}\n"
    );
    let _ = writeln!(t, "exists ({}:v != {total})", n - 1);
    t.push_str(&expect_line("ks", n));
    Generated {
        name,
        text: t,
        unroll: levels,
    }
}

/// A `subgroupBroadcastFirst` peeling loop over K = N/2 keys (1 for N = 2): each iteration
/// the lanes whose key equals the first active lane's key leave. In lockstep lane l leaves
/// after exactly l % K iterations. The condition: some lane leaves after another count.
fn peel(n: u32) -> Generated {
    let name = format!("peel_{n}");
    let keys = (n / 2).max(1);
    let mut t = String::new();
    t.push_str(
        "// Scale family \"peel\": a subgroupBroadcastFirst peeling (waterfall) loop over N/2 keys.\n\
         // In lockstep the first active lane's key is peeled each iteration, so lane l leaves\n\
         // after exactly l % (N/2) iterations. Can some lane leave after another count?\n",
    );
    t.push_str(&header(
        &name,
        &format!("broadcastFirst peeling loop, {n} lanes, {keys} keys"),
        n,
    ));
    let _ = writeln!(
        t,
        "\nkernel {{\n  key = lane % {keys};\n  it = 0;\n  loop {{\n    k = subgroupBroadcastFirst(key);\n    \
         if (k == key) {{\n      break;\n    }}\n    it = it + 1;\n  }}\n}}\n"
    );
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:it != {}", t % keys)).collect();
    let _ = writeln!(t, "exists ({})", cond.join(" || "));
    t.push_str(&expect_line("peel", n));
    Generated {
        name,
        text: t,
        unroll: keys + 1,
    }
}

fn generate(family: &str, n: u32) -> Generated {
    let mut g = match family {
        "sso_ww" => sso_ww(n),
        "ks" => ks(n),
        "peel" => peel(n),
        other => panic!("unknown family {other}"),
    };
    let at = g.text.find("\ntest ").map_or(0, |i| i + 1);
    let note = if family == "sso_ww" {
        format!("// Generated by benches/scale.rs (N = {n}); no loops.\n")
    } else {
        format!(
            "// Generated by benches/scale.rs (N = {n}); the loop needs --unroll {} or more.\n",
            g.unroll
        )
    };
    g.text.insert_str(at, &note);
    g
}

// ---- running tangle ---------------------------------------------------------------------

/// What one subprocess run produced.
#[derive(Clone, Debug)]
struct Measured {
    /// Wall time of the subprocess.
    wall: Duration,
    /// Peak resident set size in KiB, if it could be measured.
    peak_kib: Option<u64>,
    /// `allow`, `forbid`, `unknown`, `limit`, `timeout`, `error`.
    verdict: String,
    /// Why the verdict is unknown / the error.
    reason: String,
    states: Option<u64>,
    /// The engine's own time for the analysis (from the JSON `millis`).
    engine_ms: Option<f64>,
    /// The file's `expect` entry for the model (from the JSON `expected`).
    expected: Option<bool>,
}

fn measured(verdict: &str, reason: String) -> Measured {
    Measured {
        wall: Duration::ZERO,
        peak_kib: None,
        verdict: verdict.into(),
        reason,
        states: None,
        engine_ms: None,
        expected: None,
    }
}

impl Measured {
    fn decided(&self) -> bool {
        self.verdict == "allow" || self.verdict == "forbid"
    }
    /// Did it stop short (state limit or time budget)?
    fn gave_up(&self) -> bool {
        matches!(self.verdict.as_str(), "limit" | "timeout" | "memout")
    }
    /// A decided verdict that contradicts the `expect` line.
    fn contradicts_expect(&self) -> bool {
        self.decided()
            && self
                .expected
                .is_some_and(|e| e != (self.verdict == "allow"))
    }
}

struct Runner {
    tangle: PathBuf,
    /// Use `/usr/bin/time -f` for peak memory; else poll /proc.
    use_time: bool,
    budget: Duration,
    scratch: PathBuf,
    counter: u32,
    /// `--max-outcomes` for the Z3 runs.
    z3_outcomes: usize,
    /// Kill a run whose resident memory exceeds this.
    mem_cap_mib: u64,
}

/// Why a run did not finish by itself.
#[derive(Clone, Copy, Debug)]
enum Killed {
    Time,
    Memory,
    /// It could not be started or waited for.
    Failed,
}

/// Peak RSS of a live process so far (VmHWM, KiB).
fn vm_hwm(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// The `tangle` process: `pid` itself, or its child when `pid` is `/usr/bin/time`.
fn measured_pid(pid: u32, under_time: bool) -> u32 {
    if !under_time {
        return pid;
    }
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(pid)
}

/// Reads a pipe to the end on a thread (so a large output cannot block the child).
fn drain<R: std::io::Read + Send + 'static>(r: Option<R>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    })
}

/// Kills the process group `pgid` (the child was started as its leader, so this reaches
/// `tangle` under `/usr/bin/time` too).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

impl Runner {
    /// Runs `tangle ARGS` under the time budget; returns wall time, peak memory, exit
    /// status (None when killed), stdout and stderr.
    fn run_raw(
        &mut self,
        args: &[String],
    ) -> (
        Duration,
        Option<u64>,
        Result<ExitStatus, Killed>,
        String,
        String,
    ) {
        use std::os::unix::process::CommandExt as _;
        self.counter += 1;
        let time_out = self.scratch.join(format!("time-{}.txt", self.counter));
        let mut cmd = if self.use_time {
            let mut c = Command::new(TIME_BIN);
            c.arg("-f").arg("%e %M").arg("-o").arg(&time_out);
            c.arg(&self.tangle);
            c
        } else {
            Command::new(&self.tangle)
        };
        cmd.args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let start = Instant::now();
        let mut child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let e = e.to_string();
                return (Duration::ZERO, None, Err(Killed::Failed), String::new(), e);
            }
        };
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        // A watchdog kills the process group past the budget (and, without /usr/bin/time,
        // samples the peak memory); this thread waits, so the wall time is exact.
        let done = Arc::new(AtomicBool::new(false));
        let watchdog = {
            let (done, pid, budget, poll) = (done.clone(), child.id(), self.budget, !self.use_time);
            let mem_cap_kib = self.mem_cap_mib * 1024;
            std::thread::spawn(move || {
                let mut polled: Option<u64> = None;
                while !done.load(Ordering::Acquire) {
                    if let Some(k) = vm_hwm(measured_pid(pid, !poll)) {
                        polled = Some(polled.map_or(k, |p| p.max(k)));
                    }
                    if start.elapsed() > budget {
                        kill_group(pid);
                        return (Some(Killed::Time), polled);
                    }
                    if polled.is_some_and(|k| k > mem_cap_kib) {
                        kill_group(pid);
                        return (Some(Killed::Memory), polled);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
                (None, polled)
            })
        };
        let waited = child.wait();
        let wall = start.elapsed();
        done.store(true, Ordering::Release);
        let (killed, polled) = watchdog.join().unwrap_or((None, None));
        let status = match killed {
            Some(k) => Err(k),
            None => waited.map_err(|_| Killed::Failed),
        };
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let peak = if self.use_time && killed.is_none() {
            std::fs::read_to_string(&time_out).ok().and_then(|s| {
                s.lines()
                    .last()?
                    .split_whitespace()
                    .nth(1)?
                    .parse::<u64>()
                    .ok()
            })
        } else {
            polled
        };
        let _ = std::fs::remove_file(&time_out);
        (wall, peak, status, stdout, stderr)
    }

    fn check(
        &mut self,
        file: &Path,
        unroll: u32,
        engine: &str,
        model: &str,
        max_states: u64,
    ) -> Measured {
        let mut args: Vec<String> = vec![
            "check".into(),
            file.display().to_string(),
            "--model".into(),
            model.into(),
            "--engine".into(),
            engine.into(),
            "--unroll".into(),
            unroll.to_string(),
            "--format".into(),
            "json".into(),
        ];
        if engine == "explore" {
            args.push("--max-states".into());
            args.push(max_states.to_string());
        } else {
            args.push("--max-outcomes".into());
            args.push(self.z3_outcomes.to_string());
        }
        let (wall, peak_kib, status, stdout, stderr) = self.run_raw(&args);
        let mut m = match status {
            Err(Killed::Time) => measured(
                "timeout",
                format!("killed after {} s", self.budget.as_secs()),
            ),
            Err(Killed::Memory) => measured(
                "memout",
                format!("killed above {} MiB resident", self.mem_cap_mib),
            ),
            Err(Killed::Failed) => measured("error", format!("could not run: {stderr}")),
            Ok(st) => match completed(st, self.use_time) {
                Ok(()) => parse_check(&stdout, &stderr),
                Err(why) => measured("error", format!("{why}; stderr: {}", first_line(&stderr))),
            },
        };
        m.wall = wall;
        m.peak_kib = peak_kib;
        m
    }
}

/// Did a run that exited by itself complete, so that its JSON is to be read? `tangle` exits
/// with 0 (fine), 1 (a verdict contradicts an `expect` line) or, since JSON schema 2, 3 (some
/// verdict unknown): all three print the analyses. 2 is an error (bad input or flags, in older
/// builds too); any other code (a panic's 101, or 128 + N from `/usr/bin/time` when the
/// child died of signal N) or a signal is a crash. Before the exit codes 0/1/2/3 an unknown
/// verdict exited 0, so the `--baseline` build reads the same way.
fn completed(st: ExitStatus, under_time: bool) -> Result<(), String> {
    match st.code() {
        Some(0 | 1 | 3) => Ok(()),
        Some(2) => Err("exit code 2 (error)".into()),
        Some(c) if under_time && c > 128 => Err(format!(
            "exit code {c} (signal {} under {TIME_BIN})",
            c - 128
        )),
        Some(c) => Err(format!("exit code {c}")),
        None => Err(match st.signal() {
            Some(sig) => format!("killed by signal {sig}"),
            None => "no exit code".into(),
        }),
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The analysis objects of `tangle ... --format json` output: the envelope's `results`
/// (`{"schema_version": 2, "tool", "command", "models", "results": [...]}`), or the whole
/// document when it is the bare array that builds before schema 2 print (a `--baseline`).
fn results(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Array(items) => Some(items),
        Value::Object(doc) => doc.get("results")?.as_array(),
        _ => None,
    }
}

/// An analysis's `expected`: `"allow"`/`"forbid"` (schema 2) or `true`/`false` (before).
fn expected(a: &Value) -> Option<bool> {
    match &a["expected"] {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "allow" => Some(true),
        Value::String(s) if s == "forbid" => Some(false),
        _ => None,
    }
}

/// The verdict, states and engine time from `tangle check --format json` output.
fn parse_check(stdout: &str, stderr: &str) -> Measured {
    let v: Value = match serde_json::from_str(stdout) {
        Ok(v) => v,
        Err(e) => {
            let msg = first_line(stderr);
            return measured("error", format!("no JSON ({e}); stderr: {msg}"));
        }
    };
    let Some(items) = results(&v) else {
        return measured(
            "error",
            "JSON neither an array of analyses nor an object with \"results\"".into(),
        );
    };
    let Some(a) = items.first() else {
        return measured("error", "no analysis in the JSON".into());
    };
    let reason = a["reason"].as_str().unwrap_or("").to_string();
    let verdict = match a["verdict"].as_str().unwrap_or("") {
        "allowed" => "allow",
        "forbidden" => "forbid",
        "unknown" if reason.contains("state limit") => "limit",
        "unknown" => "unknown",
        _ => "error",
    };
    let mut m = measured(verdict, reason);
    // Absent for Z3 runs since schema 2 (the explorer's count only).
    m.states = a["states"].as_u64();
    m.engine_ms = a["millis"].as_f64();
    m.expected = expected(a);
    m
}

// ---- the report -------------------------------------------------------------------------

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 0.1 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn mib(k: Option<u64>) -> String {
    match k {
        Some(k) => format!("{:.0}", k as f64 / 1024.0),
        None => "?".into(),
    }
}

/// One cell of the time column: the time, or what stopped the run.
fn time_cell(m: &Measured) -> String {
    match m.verdict.as_str() {
        "limit" => format!("limit ({})", secs(m.wall)),
        "timeout" => format!("timeout (>{})", secs(m.wall)),
        "memout" => format!("memout ({})", secs(m.wall)),
        "skipped" | "n/a" => m.verdict.clone(),
        _ => secs(m.wall),
    }
}

struct Row {
    family: String,
    n: u32,
    model: String,
    ex: Measured,
    z3: Measured,
    /// The Z3 run of the `--baseline` build, when one is given.
    z3_before: Option<Measured>,
}

fn ratio_cell(r: &Row) -> String {
    if r.z3.gave_up() || r.z3.wall.is_zero() {
        return "—".into();
    }
    if matches!(r.ex.verdict.as_str(), "skipped" | "n/a" | "error") {
        return "—".into();
    }
    let q = r.ex.wall.as_secs_f64() / r.z3.wall.as_secs_f64();
    let q = if q >= 10.0 {
        format!("{q:.0}")
    } else if q >= 0.1 {
        format!("{q:.2}")
    } else {
        format!("{q:.3}")
    };
    if r.ex.gave_up() {
        format!("> {q}")
    } else {
        q
    }
}

fn agree_cell(r: &Row) -> &'static str {
    if r.ex.decided() && r.z3.decided() {
        if r.ex.verdict == r.z3.verdict {
            "yes"
        } else {
            "**NO**"
        }
    } else {
        "—"
    }
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str(
        "| family | N | model | explorer time | explorer states | Z3 time | explorer/Z3 | \
         explorer verdict | Z3 verdict | agree | explorer peak MiB | Z3 peak MiB |",
    );
    let before = rows.iter().any(|r| r.z3_before.is_some());
    if before {
        s.push_str(" Z3 before | before/after | Z3 before peak MiB |");
    }
    s.push('\n');
    s.push_str("|---|---:|---|---:|---:|---:|---:|---|---|---|---:|---:|");
    if before {
        s.push_str("---:|---:|---:|");
    }
    s.push('\n');
    for r in rows {
        let states = match r.ex.states {
            Some(n)
                if !matches!(
                    r.ex.verdict.as_str(),
                    "timeout" | "memout" | "skipped" | "n/a"
                ) =>
            {
                n.to_string()
            }
            _ => "—".into(),
        };
        let ex_mem = if matches!(r.ex.verdict.as_str(), "skipped" | "n/a") {
            "—".into()
        } else {
            mib(r.ex.peak_kib)
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.family,
            r.n,
            r.model,
            time_cell(&r.ex),
            states,
            time_cell(&r.z3),
            ratio_cell(r),
            r.ex.verdict,
            r.z3.verdict,
            agree_cell(r),
            ex_mem,
            if r.z3.verdict == "skipped" {
                "—".into()
            } else {
                mib(r.z3.peak_kib)
            },
        );
        if let Some(b) = &r.z3_before {
            s.pop();
            let ratio = if r.z3.gave_up() || r.z3.wall.is_zero() {
                "—".to_string()
            } else {
                let x = b.wall.as_secs_f64() / r.z3.wall.as_secs_f64();
                if b.gave_up() {
                    format!("> {x:.0}")
                } else {
                    format!("{x:.1}")
                }
            };
            let _ = writeln!(s, " {} | {} | {} |", time_cell(b), ratio, mib(b.peak_kib));
        }
    }
    s
}

// ---- options and main ---------------------------------------------------------------------

struct Opts {
    sizes: Vec<u32>,
    families: Vec<String>,
    models: Vec<String>,
    budget: Duration,
    max_states: u64,
    paper_runs: usize,
    z3_outcomes: usize,
    mem_cap_mib: u64,
    engines: Vec<String>,
    skip: bool,
    paper: bool,
    emit: Option<PathBuf>,
    quick: bool,
    /// Lane counts of the CTS-shaped batches (empty: none).
    cts_sizes: Vec<u32>,
    /// Programs per CTS batch up to 8 lanes, and from 16 lanes on.
    cts_programs: u64,
    cts_programs_large: u64,
    /// A second `tangle` executable (an older build) run on the same CTS batches and Z3 cells,
    /// for before/after ratios.
    baseline: Option<PathBuf>,
}

/// The command line (`cargo bench --bench scale -- FLAGS`), before the `--quick` defaults and
/// the checks of [`parse_opts`]. Lists are comma-separated, empty items are ignored
/// (`--cts-sizes ''` runs no CTS batch); a flag given twice: the last one counts.
#[derive(Parser, Debug)]
#[command(
    name = "scale",
    about = "Scale benchmark: the explorer against Z3 on generated families of 2 to 32 lanes, \
             CTS-shaped batches and the paper suite: a Markdown table on stdout",
    args_override_self = true
)]
struct Cli {
    /// Smoke run: sizes 2,4,8, models CM,SSO,Lazy,Symb, --max-states 200000, a 20 s budget,
    /// CTS sizes 4,8 with at most 10 programs, at most 2 paper runs (--sizes, --models,
    /// --budget and --max-states given explicitly still count)
    #[arg(long)]
    quick: bool,
    /// Run larger N of a family and model even after the explorer gave up (limit, timeout,
    /// memout) at a smaller N
    #[arg(long)]
    no_skip: bool,
    /// Do not time the paper suite (`tangle check litmus/paper`)
    #[arg(long)]
    no_paper: bool,
    /// Lane counts of the families, powers of two in 2..=64 [default: 2,4,8,16,32; with
    /// --quick: 2,4,8]
    #[arg(long, value_name = "N,..", value_delimiter = ',', action = ArgAction::Set,
          value_parser = item::<u32>)]
    sizes: Option<Vec<Option<u32>>>,
    /// Families of generated tests: sso_ww, ks, peel
    #[arg(long, value_name = "FAMILY,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "sso_ww,ks,peel")]
    families: Vec<String>,
    /// Models: CM, SM, SCF, SSO, Spec, Lazy, Symb [default: all seven; with --quick:
    /// CM,SSO,Lazy,Symb]
    #[arg(long, value_name = "MODEL,..", value_delimiter = ',', action = ArgAction::Set)]
    models: Option<Vec<String>>,
    /// Engines of the family cells: explore, smt (the CTS batches always run smt)
    #[arg(long, value_name = "ENGINE,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "explore,smt")]
    engines: Vec<String>,
    /// Time budget per run in seconds; a run past it is killed (`timeout`) [default: 60;
    /// with --quick: 20]
    #[arg(long, value_name = "SECS")]
    budget: Option<u64>,
    /// The explorer's state budget, its `--max-states` (`limit` when reached) [default:
    /// 2000000; with --quick: 200000]
    #[arg(long, value_name = "N")]
    max_states: Option<u64>,
    /// Runs of the paper suite (min, median and max are reported; at most 2 with --quick)
    #[arg(long, value_name = "K", default_value_t = 5)]
    paper_runs: usize,
    /// `--max-outcomes` of the Z3 runs (256 is the CLI's default enumeration)
    #[arg(long, value_name = "K", default_value_t = 1)]
    z3_outcomes: usize,
    /// Kill a run whose resident memory exceeds this many MiB (`memout`)
    #[arg(long, value_name = "MIB", default_value_t = 8192)]
    mem_cap: u64,
    /// Only write the .litmus files of --families x --sizes into DIR; run nothing
    #[arg(long, value_name = "DIR")]
    emit: Option<PathBuf>,
    /// Lane counts of the CTS-shaped batches (`tangle::gen::cts`); empty: none [with --quick:
    /// 4,8]
    #[arg(long, value_name = "N,..", value_delimiter = ',', action = ArgAction::Set,
          default_value = "4,8,16,32,64", value_parser = item::<u32>)]
    cts_sizes: Vec<Option<u32>>,
    /// Programs per CTS batch of up to 8 lanes (at most 10 with --quick)
    #[arg(long, value_name = "K", default_value_t = 50)]
    cts_programs: u64,
    /// Programs per CTS batch of 16 lanes and more
    #[arg(long, value_name = "K", default_value_t = 5)]
    cts_programs_large: u64,
    /// An older `tangle` executable, run on the same Z3 cells and CTS batches (up to 8 lanes)
    /// for before/after ratios
    #[arg(long, value_name = "PATH")]
    baseline: Option<PathBuf>,
    /// Passed by `cargo bench` to a harness = false bench; ignored.
    #[arg(long, hide = true)]
    #[allow(dead_code)]
    bench: bool,
}

/// One item of a comma-separated list: `None` for an empty one (dropped, as `4,,8` or `''`).
fn item<T: std::str::FromStr>(s: &str) -> Result<Option<T>, T::Err> {
    if s.is_empty() {
        Ok(None)
    } else {
        s.parse().map(Some)
    }
}

/// The non-empty items of a list.
fn present(v: Vec<String>) -> Vec<String> {
    v.into_iter().filter(|s| !s.is_empty()).collect()
}

fn parse_opts() -> Result<Opts, String> {
    let cli = Cli::parse();
    let mut o = Opts {
        sizes: vec![2, 4, 8, 16, 32],
        families: present(cli.families),
        models: MODELS.iter().map(|s| s.to_string()).collect(),
        budget: Duration::from_secs(60),
        max_states: 2_000_000,
        paper_runs: cli.paper_runs,
        z3_outcomes: cli.z3_outcomes,
        mem_cap_mib: cli.mem_cap,
        engines: present(cli.engines),
        skip: !cli.no_skip,
        paper: !cli.no_paper,
        emit: cli.emit,
        quick: cli.quick,
        cts_sizes: cli.cts_sizes.into_iter().flatten().collect(),
        cts_programs: cli.cts_programs,
        cts_programs_large: cli.cts_programs_large,
        baseline: cli.baseline,
    };
    let sizes: Option<Vec<u32>> = cli.sizes.map(|s| s.into_iter().flatten().collect());
    let models = cli.models.map(present);
    let budget = cli.budget.map(Duration::from_secs);
    let max_states = cli.max_states;
    if o.quick {
        o.cts_sizes = vec![4, 8];
        o.cts_programs = o.cts_programs.min(10);
        o.sizes = vec![2, 4, 8];
        o.models = QUICK_MODELS.iter().map(|s| s.to_string()).collect();
        o.paper_runs = o.paper_runs.min(2);
        o.max_states = 200_000;
        o.budget = Duration::from_secs(20);
    }
    if let Some(s) = sizes {
        o.sizes = s;
    }
    if let Some(m) = models {
        o.models = m;
    }
    if let Some(b) = budget {
        o.budget = b;
    }
    if let Some(m) = max_states {
        o.max_states = m;
    }
    for n in &o.sizes {
        if !n.is_power_of_two() || *n < 2 || *n > 64 {
            return Err(format!("size {n}: lane counts are powers of two in 2..=64"));
        }
    }
    for f in &o.families {
        if !FAMILIES.contains(&f.as_str()) {
            return Err(format!(
                "unknown family `{f}` (expected one of {FAMILIES:?})"
            ));
        }
    }
    for e in &o.engines {
        if e != "explore" && e != "smt" {
            return Err(format!("unknown engine `{e}` (expected explore or smt)"));
        }
    }
    for m in &o.models {
        if !MODELS.contains(&m.as_str()) {
            return Err(format!("unknown model `{m}` (expected one of {MODELS:?})"));
        }
    }
    Ok(o)
}

/// The release `tangle` executable: the one cargo built for this bench, else
/// `$CARGO_TARGET_DIR/release/tangle` or `target/release/tangle` (built if missing).
fn find_tangle() -> Result<PathBuf, String> {
    let built = PathBuf::from(env!("CARGO_BIN_EXE_tangle"));
    if built.exists() {
        return Ok(built);
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("target"));
    let bin = target.join("release").join("tangle");
    if !bin.exists() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let st = Command::new(cargo)
            .args(["build", "--release", "--bin", "tangle"])
            .current_dir(manifest)
            .status()
            .map_err(|e| format!("cannot run cargo build: {e}"))?;
        if !st.success() {
            return Err("cargo build --release failed".into());
        }
    }
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!("{} not found", bin.display()))
    }
}

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

// ---- CTS-shaped batches -----------------------------------------------------------------

/// One `tangle check DIR` run over a batch of CTS-shaped programs (all seven models).
struct CtsRow {
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
fn cts_batches(runner: &mut Runner, o: &Opts, scratch: &Path) -> Vec<CtsRow> {
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

fn cts_table(rows: &[CtsRow], o: &Opts) -> String {
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
