//! Scale benchmark: the explicit-state explorer against the Z3 engine, side by side, on three
//! families of tests generated for 2, 4, 8, 16 and 32 lanes.
//!
//! - `sso_ww`: the paper's `sso_ww` generalised to N lanes (a ring of stores ordered by a
//!   subgroup op in each of two divergent arms).
//! - `ks`: a Kogge-Stone inclusive scan with `subgroupShuffleUp`, log2 N levels (the pattern
//!   of a driver bug report about shuffles that did not execute in lockstep).
//! - `peel`: a `subgroupBroadcastFirst` peeling ("waterfall") loop over N/2 distinct keys.
//!
//! Each (family, N, engine, model) is one run of the release `tangle` executable with
//! `check FILE --model M --engine E --format json`, as a subprocess, timed (wall clock) and
//! measured (peak resident memory, through `/usr/bin/time -f` when it exists, else by polling
//! `/proc/PID/status`). A run that outlives the time budget is killed and reported as
//! `timeout`; the explorer's state budget (`--max-states`) shows as `limit`. After the explorer
//! hits its limit (or the time budget) at some N, larger N of the same family and model are
//! skipped (`--no-skip` runs them anyway). At the end it also times the paper suite,
//! `tangle check litmus/paper` (all seven models, Z3), as a whole.
//!
//! The result is a Markdown table on stdout; progress goes to stderr.
//!
//! ```text
//! cargo bench --bench scale                 # full: N in 2..32, all seven models
//! cargo bench --bench scale -- --quick      # smoke: N in {2,4,8}, CM SSO Lazy Symb
//! cargo bench --bench scale -- --emit DIR --sizes 4,32   # only write the .litmus files
//! ```
//!
//! Other flags: `--sizes 2,4,..`, `--families sso_ww,ks,peel`, `--models CM,SSO,..`,
//! `--budget SECS` (per run, default 60), `--max-states N` (explorer, default 2000000),
//! `--paper-runs K` (default 5), `--no-skip`, `--no-paper`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
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
    let _ = (family, n);
    None
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
    match family {
        "sso_ww" => sso_ww(n),
        "ks" => ks(n),
        "peel" => peel(n),
        other => panic!("unknown family {other}"),
    }
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
}

fn measured(verdict: &str, reason: String) -> Measured {
    Measured {
        wall: Duration::ZERO,
        peak_kib: None,
        verdict: verdict.into(),
        reason,
        states: None,
        engine_ms: None,
    }
}

impl Measured {
    fn decided(&self) -> bool {
        self.verdict == "allow" || self.verdict == "forbid"
    }
    /// Did it stop short (state limit or time budget)?
    fn gave_up(&self) -> bool {
        self.verdict == "limit" || self.verdict == "timeout"
    }
}

struct Runner {
    tangle: PathBuf,
    /// Use `/usr/bin/time -f` for peak memory; else poll /proc.
    use_time: bool,
    budget: Duration,
    scratch: PathBuf,
    counter: u32,
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

/// Kills the process group `pgid` (the child was started as its leader).
fn kill_group(child: &mut Child) {
    let pgid = child.id();
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
}

impl Runner {
    /// Runs `tangle ARGS` under the time budget; returns wall time, peak memory, exit
    /// status (None when killed), stdout and stderr.
    fn run_raw(
        &mut self,
        args: &[String],
    ) -> (Duration, Option<u64>, Option<ExitStatus>, String, String) {
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
            Err(e) => return (Duration::ZERO, None, None, String::new(), e.to_string()),
        };
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        let mut polled: Option<u64> = None;
        let mut sleep = Duration::from_millis(1);
        let status = loop {
            match child.try_wait() {
                Ok(Some(st)) => break Some(st),
                Ok(None) => {}
                Err(_) => break None,
            }
            if !self.use_time {
                if let Some(k) = vm_hwm(child.id()) {
                    polled = Some(polled.map_or(k, |p| p.max(k)));
                }
            }
            if start.elapsed() > self.budget {
                kill_group(&mut child);
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(sleep);
            sleep = (sleep * 2).min(Duration::from_millis(20));
        };
        let wall = start.elapsed();
        let stdout = out.join().unwrap_or_default();
        let stderr = err.join().unwrap_or_default();
        let peak = if self.use_time {
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
        }
        let (wall, peak_kib, status, stdout, stderr) = self.run_raw(&args);
        let mut m = match status {
            None => measured(
                "timeout",
                format!("killed after {} s", self.budget.as_secs()),
            ),
            Some(_) => parse_check(&stdout, &stderr),
        };
        m.wall = wall;
        m.peak_kib = peak_kib;
        m
    }
}

/// The verdict, states and engine time from `tangle check --format json` output.
fn parse_check(stdout: &str, stderr: &str) -> Measured {
    let v: serde_json::Value = match serde_json::from_str(stdout) {
        Ok(v) => v,
        Err(e) => {
            let msg = stderr.lines().next().unwrap_or("").to_string();
            return measured("error", format!("no JSON ({e}); stderr: {msg}"));
        }
    };
    let Some(a) = v.as_array().and_then(|a| a.first()) else {
        return measured("error", "empty JSON array".into());
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
    m.states = a["states"].as_u64();
    m.engine_ms = a["millis"].as_f64();
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
}

fn ratio_cell(r: &Row) -> String {
    if r.z3.verdict == "timeout" || r.z3.wall.is_zero() {
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
         explorer verdict | Z3 verdict | agree | explorer peak MiB | Z3 peak MiB |\n",
    );
    s.push_str("|---|---:|---|---:|---:|---:|---:|---|---|---|---:|---:|\n");
    for r in rows {
        let states = match r.ex.states {
            Some(n) if !matches!(r.ex.verdict.as_str(), "timeout" | "skipped" | "n/a") => {
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
            mib(r.z3.peak_kib),
        );
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
    skip: bool,
    paper: bool,
    emit: Option<PathBuf>,
    quick: bool,
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn parse_opts() -> Result<Opts, String> {
    let mut o = Opts {
        sizes: vec![2, 4, 8, 16, 32],
        families: FAMILIES.iter().map(|s| s.to_string()).collect(),
        models: MODELS.iter().map(|s| s.to_string()).collect(),
        budget: Duration::from_secs(60),
        max_states: 2_000_000,
        paper_runs: 5,
        skip: true,
        paper: true,
        emit: None,
        quick: false,
    };
    let (mut sizes, mut models) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--bench" => {} // passed by `cargo bench`
            "--quick" => o.quick = true,
            "--no-skip" => o.skip = false,
            "--no-paper" => o.paper = false,
            "--sizes" => {
                sizes = Some(
                    list(&val("--sizes")?)
                        .iter()
                        .map(|s| s.parse::<u32>().map_err(|e| format!("--sizes {s}: {e}")))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            }
            "--families" => o.families = list(&val("--families")?),
            "--models" => models = Some(list(&val("--models")?)),
            "--budget" => {
                let v = val("--budget")?;
                o.budget = Duration::from_secs(v.parse().map_err(|e| format!("--budget {v}: {e}"))?)
            }
            "--max-states" => {
                let v = val("--max-states")?;
                o.max_states = v.parse().map_err(|e| format!("--max-states {v}: {e}"))?
            }
            "--paper-runs" => {
                let v = val("--paper-runs")?;
                o.paper_runs = v.parse().map_err(|e| format!("--paper-runs {v}: {e}"))?
            }
            "--emit" => o.emit = Some(PathBuf::from(val("--emit")?)),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.quick {
        o.sizes = vec![2, 4, 8];
        o.models = QUICK_MODELS.iter().map(|s| s.to_string()).collect();
        o.paper_runs = o.paper_runs.min(2);
    }
    if let Some(s) = sizes {
        o.sizes = s;
    }
    if let Some(m) = models {
        o.models = m;
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
    let mut runner = Runner {
        tangle: tangle.clone(),
        use_time,
        budget: o.budget,
        scratch: scratch.clone(),
        counter: 0,
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
                } else if let Some((_, at)) = gave_up.iter().find(|(m, _)| o.skip && m == model) {
                    measured("skipped", format!("gave up at N = {at}"))
                } else {
                    let m = runner.check(&file, g.unroll, "explore", model, o.max_states);
                    if m.gave_up() {
                        gave_up.push((model.clone(), n));
                    }
                    m
                };
                let z3 = runner.check(&file, g.unroll, "smt", model, o.max_states);
                let row = Row {
                    family: fam.clone(),
                    n,
                    model: model.clone(),
                    ex,
                    z3,
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

    let mut out = String::new();
    let _ = writeln!(
        out,
        "Scale benchmark ({} mode): `tangle check FILE --model M --engine E --unroll U --format json`, \
         one subprocess per cell; explorer with `--max-states {}`; {} s budget per run; peak memory {}.\n",
        if o.quick { "quick" } else { "full" },
        o.max_states,
        o.budget.as_secs(),
        if use_time {
            "from `/usr/bin/time -f %M` (max RSS)"
        } else {
            "from polling /proc/PID/status VmHWM (approximate; /usr/bin/time not found)"
        }
    );
    out.push_str(&table(&rows));
    let _ = writeln!(out, "\nfamilies: {} in total", secs(families_time));

    let unknown: Vec<&Row> = rows
        .iter()
        .filter(|r| !r.z3.decided() || matches!(r.ex.verdict.as_str(), "unknown" | "error"))
        .collect();
    if !unknown.is_empty() {
        out.push_str("\nUndecided runs:\n\n");
        for r in unknown {
            for (eng, m) in [("explore", &r.ex), ("smt", &r.z3)] {
                if matches!(
                    m.verdict.as_str(),
                    "unknown" | "error" | "timeout" | "limit"
                ) {
                    let _ = writeln!(
                        out,
                        "- {} N={} {} {eng}: {} ({})",
                        r.family, r.n, r.model, m.verdict, m.reason
                    );
                }
            }
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
            ok &= status.is_some_and(|s| s.success()) && stdout.contains("0 mismatches");
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
                "FAILED (a run failed or an expect line was contradicted)"
            }
        );
    }
    print!("{out}");
    let _ = std::fs::remove_dir_all(&scratch);
}
