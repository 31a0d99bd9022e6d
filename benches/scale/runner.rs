//! Running `tangle` as a subprocess: timing, peak memory, budgets, and reading its JSON.

use serde_json::Value;
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const TIME_BIN: &str = "/usr/bin/time";

/// What one subprocess run produced.
#[derive(Clone, Debug)]
pub struct Measured {
    /// Wall time of the subprocess.
    pub wall: Duration,
    /// Peak resident set size in KiB, if it could be measured.
    pub peak_kib: Option<u64>,
    /// `allow`, `forbid`, `unknown`, `limit`, `timeout`, `error`.
    pub verdict: String,
    /// Why the verdict is unknown / the error.
    pub reason: String,
    pub states: Option<u64>,
    /// The engine's own time for the analysis (from the JSON `millis`).
    pub engine_ms: Option<f64>,
    /// The file's `expect` entry for the model (from the JSON `expected`).
    pub expected: Option<bool>,
}

pub fn measured(verdict: &str, reason: String) -> Measured {
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
    pub fn decided(&self) -> bool {
        self.verdict == "allow" || self.verdict == "forbid"
    }
    /// Did it stop short (state limit or time budget)?
    pub fn gave_up(&self) -> bool {
        matches!(self.verdict.as_str(), "limit" | "timeout" | "memout")
    }
    /// A decided verdict that contradicts the `expect` line.
    pub fn contradicts_expect(&self) -> bool {
        self.decided()
            && self
                .expected
                .is_some_and(|e| e != (self.verdict == "allow"))
    }
}

pub struct Runner {
    pub tangle: PathBuf,
    /// Use `/usr/bin/time -f` for peak memory; else poll /proc.
    pub use_time: bool,
    pub budget: Duration,
    pub scratch: PathBuf,
    pub counter: u32,
    /// `--max-outcomes` for the Z3 runs.
    pub z3_outcomes: usize,
    /// Kill a run whose resident memory exceeds this.
    pub mem_cap_mib: u64,
}

/// Why a run did not finish by itself.
#[derive(Clone, Copy, Debug)]
pub enum Killed {
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
    pub fn run_raw(
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

    pub fn check(
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
pub fn completed(st: ExitStatus, under_time: bool) -> Result<(), String> {
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

pub fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// The analysis objects of `tangle ... --format json` output: the envelope's `results`
/// (`{"schema_version": 2, "tool", "command", "models", "results": [...]}`), or the whole
/// document when it is the bare array that builds before schema 2 print (a `--baseline`).
pub fn results(v: &Value) -> Option<&Vec<Value>> {
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

/// The release `tangle` executable: the one cargo built for this bench, else
/// `$CARGO_TARGET_DIR/release/tangle` or `target/release/tangle` (built if missing).
pub fn find_tangle() -> Result<PathBuf, String> {
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
