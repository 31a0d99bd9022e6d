//! What every command-line test shares: the executable through assert_cmd, a run's code and
//! outputs, temporary directories, and readers of the reports.

#![allow(dead_code)]

pub use assert_cmd::Command;
pub use serde_json::Value;
pub use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

pub const PAPER_TESTS: [&str; 12] = [
    "cm_rw", "cm_wr", "cm_ww", "scf_rw", "scf_wr", "scf_ww", "sm_rw", "sm_wr", "sm_ww", "sso_rw",
    "sso_wr", "sso_ww",
];

pub const BUILTIN_MODELS: [&str; 7] = ["CM", "SM", "SCF", "SSO", "Spec", "Lazy", "Symb"];

/// The explorer's verdict words in JSON, and the short forms of the text table.
pub const VERDICTS: [&str; 3] = ["allowed", "forbidden", "unknown"];

/// What one run of the executable did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub what: String,
}

impl Run {
    /// Everything about the run, for assertion messages.
    pub fn show(&self) -> String {
        format!(
            "command: tangle {}\nexit code: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.what, self.code, self.stdout, self.stderr
        )
    }

    pub fn json(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{}", self.show()));
        assert_eq!(v["schema_version"], 2, "schema version\n{}", self.show());
        match &v["results"] {
            Value::Array(items) => items.clone(),
            other => panic!("expected a `results` array, got {other}\n{}", self.show()),
        }
    }
}

/// The executable, run in the crate directory (so `litmus/paper` and `encodings/` resolve),
/// with no colour, no log filter and no backtraces from the environment.
pub fn cmd() -> Command {
    let mut c = Command::cargo_bin("tangle").expect("the tangle executable is built");
    c.current_dir(MANIFEST_DIR)
        .env_remove("RUST_LOG")
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1");
    c
}

/// Runs `tangle ARGS`.
pub fn tangle<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Run {
    let out = cmd()
        .args(args)
        .output()
        .expect("the tangle executable runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        what: args
            .iter()
            .map(|a| a.as_ref().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Runs `tangle ARGS`: (exit code, stdout, stderr).
pub fn run(args: &[&str]) -> (i32, String, String) {
    let r = tangle(args);
    (r.code, r.stdout, r.stderr)
}

/// A fresh directory under the system temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!(
            "tangle-cli-test-{}-{n}-{label}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `name` (a relative path; parent directories are created).
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let p = self.0.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&p, contents).expect("write a temporary file");
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn paper(name: &str) -> String {
    format!("litmus/paper/{name}.litmus")
}

/// The first `NAME:LINE:COL` in `text` where NAME ends with `file_name`.
pub fn location(text: &str, file_name: &str) -> Option<(u32, u32)> {
    let mut rest = text;
    while let Some(i) = rest.find(file_name) {
        rest = &rest[i + file_name.len()..];
        let mut parts = rest.splitn(3, ':');
        let (Some(""), Some(line), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let col: String = tail.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let (Ok(l), Ok(c)) = (line.parse::<u32>(), col.parse::<u32>()) {
            return Some((l, c));
        }
    }
    None
}

/// Exit code 2, an `error` on stderr, and no panic.
#[track_caller]
pub fn assert_input_error(r: &Run) {
    assert_eq!(r.code, 2, "expected exit code 2 (bad input)\n{}", r.show());
    assert!(
        !r.stderr.contains("panicked") && !r.stderr.contains("RUST_BACKTRACE"),
        "the executable panicked\n{}",
        r.show()
    );
    assert!(
        r.stderr.contains("error"),
        "stderr should say what the error is\n{}",
        r.show()
    );
}

/// Exit code 2, no panic, and an error located at `file_name:LINE:COL`; returns the location.
#[track_caller]
pub fn assert_located_error(r: &Run, file_name: &str) -> (u32, u32) {
    assert_input_error(r);
    location(&r.stderr, file_name).unwrap_or_else(|| {
        panic!(
            "stderr should locate the error as `{file_name}:LINE:COL`\n{}",
            r.show()
        )
    })
}

/// The cells of the text table: `(test, model) -> short verdict`, plus the header's models.
pub fn parse_table(stdout: &str) -> (Vec<String>, Vec<(String, String, String)>) {
    let mut lines = stdout.lines();
    let header = lines
        .by_ref()
        .find(|l| l.split_whitespace().next() == Some("Test"))
        .unwrap_or_else(|| panic!("no table header row in\n{stdout}"));
    let models: Vec<String> = header
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    let mut cells = Vec::new();
    for line in lines {
        if line.trim().is_empty() {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            words.len(),
            models.len() + 1,
            "a table row has one cell per model: {line:?}\n{stdout}"
        );
        for (m, cell) in models.iter().zip(&words[1..]) {
            cells.push((words[0].to_string(), m.clone(), cell.to_string()));
        }
    }
    (models, cells)
}

/// `(test, model) -> verdict` from a JSON report.
pub fn verdict_of<'a>(items: &'a [Value], test: &str, model: &str) -> &'a str {
    let matching: Vec<&Value> = items
        .iter()
        .filter(|a| a["test"] == test && a["model"] == model)
        .collect();
    assert_eq!(
        matching.len(),
        1,
        "expected one analysis of {test} under {model}, found {}",
        matching.len()
    );
    matching[0]["verdict"]
        .as_str()
        .unwrap_or_else(|| panic!("verdict of {test} under {model} is not a string"))
}

/// The short form the text table uses for a JSON verdict.
pub fn short(verdict: &str) -> &'static str {
    match verdict {
        "allowed" => "allow",
        "forbidden" => "forbid",
        "unknown" => "unknown",
        other => panic!("not a verdict: {other}"),
    }
}

/// Timings vary from run to run: masked before snapshots.
pub fn mask_times(s: &str) -> String {
    s.lines()
        .map(|l| {
            if l.starts_with("Time ") {
                let mut w: Vec<&str> = l.split(' ').take(2).collect();
                w.push("<time>");
                w.join(" ")
            } else if let Some(i) = l.find("\"millis\":") {
                format!("{}\"millis\": <ms>", &l[..i])
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub const SSO_WW: &str = "litmus/paper/sso_ww.litmus";

pub fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

pub const TWO_LANES: &str = "test two\nthreads 2\nglobal x\nkernel { x = lane; r = x; }\nexists (0:r != 1:r)\nexpect CM forbid\n";
