//! `equiv` and `show`: questions about one or two programs.

use super::args::{EquivArgs, Format, ShowArgs};
use super::out::{self, Status};
use tangle::query::equiv::{self as eq, Holds};
use tangle::query::Options;
use tangle::report;

/// `equiv P Q`, or `equiv --table DIR`: 0 equivalent (refines) under every model, 1 not,
/// 3 unknown somewhere, 2 bad input.
pub fn equiv(a: &EquivArgs) -> Status {
    let models = match a.models.select() {
        Ok(m) => m,
        Err(e) => return out::model_error(&e),
    };
    if a.format == Format::Dot {
        return out::error(
            "--format dot draws witnesses of check and outcomes, not equivalence reports",
        );
    }
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => return out::error(e),
    };
    let memories = match a.memory.resolve() {
        Ok(m) => m,
        Err(e) => return out::error(e),
    };
    let opts = a.budget.apply(
        Options::default()
            .with_unroll(a.unroll.unroll)
            .with_max_outcomes(a.max_outcomes),
    );
    let pairs = if a.table {
        match tangle::input::pairs_in(&a.p) {
            Ok(p) => p,
            Err(errors) => {
                for e in errors {
                    out::diagnostics(&e.into());
                }
                return Status::Error;
            }
        }
    } else {
        let q = a.q.clone().expect("clap requires Q without --table");
        vec![(String::new(), a.p.clone(), q)]
    };
    let load = |p: &std::path::Path| {
        tangle::load_limited(p, &launch, a.input.max_file_size).map_err(|d| out::diagnostics(&d))
    };
    let bar = out::progress(pairs.len() as u64, "equiv");
    let mut reports = Vec::new();
    let mut unknown = false;
    for (name, p, q) in &pairs {
        bar.set_message(name.clone());
        let (pt, qt) = match (load(p), load(q)) {
            (Ok(pt), Ok(qt)) => (pt, qt),
            _ => return Status::Error,
        };
        // One report per pair: the results under each memory model, one after the other.
        let result = memories
            .iter()
            .try_fold(None::<eq::EquivReport>, |acc, mm| {
                let mut opts = opts.clone();
                opts.memory = mm.clone();
                let r = eq::equiv(&pt, &qt, &models, &opts, a.refines)?;
                Ok(Some(match acc {
                    None => r,
                    Some(mut all) => {
                        all.results.extend(r.results);
                        all
                    }
                }))
            })
            .map(|r| r.expect("--memory-model has a default"));
        match result {
            Ok(r) => reports.push((name.clone(), r)),
            // The budget ran out: this pair's answer is unknown; the others still count.
            Err(eq::EquivError::Exhausted(e)) => {
                out::note(&format!(
                    "{}: unknown: {e}",
                    if name.is_empty() { "equiv" } else { name }
                ));
                unknown = true;
            }
            Err(eq::EquivError::Compile { which, err }) => {
                let t = if which == pt.file { &pt } else { &qt };
                return out::diagnostics(&err.diagnostic(t).into());
            }
            Err(e) => return out::error(e),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let names: Vec<String> = memories
        .iter()
        .flat_map(|mm| {
            models
                .iter()
                .map(|m| tangle::query::model_label(&m.name, mm.as_deref()))
        })
        .collect();
    match (a.format, a.table) {
        (Format::Json, true) => {
            let rows: Vec<serde_json::Value> = reports
                .iter()
                .map(|(n, r)| serde_json::json!({ "name": n, "report": report::json::equiv(r) }))
                .collect();
            out::print(&report::json::document(
                "equiv --table",
                serde_json::json!({ "pairs": rows }),
            ));
        }
        (Format::Json, false) => {
            if let Some((_, r)) = reports.first() {
                out::print(&report::json::document("equiv", report::json::equiv(r)))
            }
        }
        (_, true) => {
            out::print(&report::equiv::render_markdown_table(&reports, &names));
            out::print("\n");
            out::print(&report::equiv::render_markdown_details(&reports));
        }
        (_, false) => {
            if let Some((_, r)) = reports.first() {
                out::print(&report::equiv::render_text(r, true, a.outcomes))
            }
        }
    }
    let answers = reports.iter().map(|(_, r)| r.overall());
    if unknown || answers.clone().any(|h| matches!(h, Holds::Unknown(_))) {
        Status::Unknown
    } else if a.table || answers.into_iter().all(|h| h == Holds::Yes) {
        Status::Ok
    } else {
        Status::Mismatch
    }
}

/// `show FILE`: the test as litmus text (for a shader: what the engines analyse).
pub fn show(a: &ShowArgs) -> Status {
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => return out::error(e),
    };
    match tangle::load_limited(&a.file, &launch, a.input.max_file_size) {
        Ok(t) => {
            out::print(&tangle::syntax::print::to_litmus(&t));
            Status::Ok
        }
        Err(d) => out::diagnostics(&d),
    }
}
