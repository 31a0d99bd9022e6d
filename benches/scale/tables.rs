//! The report: the cells and the Markdown table of the family runs.

use crate::runner::Measured;
use std::fmt::Write as _;
use std::time::Duration;

pub fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 0.1 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

pub fn mib(k: Option<u64>) -> String {
    match k {
        Some(k) => format!("{:.0}", k as f64 / 1024.0),
        None => "?".into(),
    }
}

/// One cell of the time column: the time, or what stopped the run.
pub fn time_cell(m: &Measured) -> String {
    match m.verdict.as_str() {
        "limit" => format!("limit ({})", secs(m.wall)),
        "timeout" => format!("timeout (>{})", secs(m.wall)),
        "memout" => format!("memout ({})", secs(m.wall)),
        "skipped" | "n/a" => m.verdict.clone(),
        _ => secs(m.wall),
    }
}

pub struct Row {
    pub family: String,
    pub n: u32,
    pub model: String,
    pub ex: Measured,
    pub z3: Measured,
    /// The Z3 run of the `--baseline` build, when one is given.
    pub z3_before: Option<Measured>,
}

pub fn ratio_cell(r: &Row) -> String {
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

pub fn agree_cell(r: &Row) -> &'static str {
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

pub fn table(rows: &[Row]) -> String {
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
