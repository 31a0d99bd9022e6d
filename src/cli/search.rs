//! `include`, `distinguish` and `minimize`: the questions about models rather than tests.

use super::args::{DistinguishArgs, Format, IncludeArgs, MinimizeArgs};
use super::out::{self, Status};
use std::sync::Arc;
use tangle::memory::MemoryModel;
use tangle::model::Model;
use tangle::query::search::Combination;
use tangle::query::search::{Progress, Stop};
use tangle::query::{self, include, Options};
use tangle::report::{self, dot};

/// Search progress as a spinner on a terminal (nothing otherwise).
fn progress_spinner() -> (indicatif::ProgressBar, impl FnMut(&Progress)) {
    let bar = out::spinner();
    let shown = bar.clone();
    let update = move |p: &Progress| {
        shown.set_message(match p.rounds {
            Some(r) => format!(
                "searching (CEGIS): {} lanes, size {}: {} templates decided, {r} rounds, {:.1} s",
                p.threads, p.size, p.checked, p.seconds
            ),
            None => format!(
                "searching: {} lanes, size {}: {} programs checked, {} skipped, {:.1} s",
                p.threads, p.size, p.checked, p.irrelevant, p.seconds
            ),
        });
    };
    (bar, update)
}

/// `MODEL` (under SC) or `MODEL+MEMORY` (`SSO+vulkan`, `CM+my.cat`): a whole model name or
/// file is tried first, so a file whose name has a `+` still works.
fn resolve_combination(spec: &str) -> Result<Combination, Status> {
    match (Model::resolve(spec), spec.rsplit_once('+')) {
        (Ok(m), _) => Ok(Combination::sc(m)),
        (Err(_), Some((model, memory))) => {
            let model = Model::resolve(model).map_err(|e| out::model_error(&e))?;
            let memory = MemoryModel::resolve(memory).map_err(out::error)?;
            Ok(Combination {
                model,
                memory: memory.map(Arc::new),
            })
        }
        (Err(e), None) => Err(out::model_error(&e)),
    }
}

fn resolve_two(a: &str, b: &str) -> Result<(Combination, Combination), Status> {
    Ok((resolve_combination(a)?, resolve_combination(b)?))
}

/// `include A B`, or `include --lattice`.
pub fn include(args: &IncludeArgs) -> Status {
    let opts = match args.grammar.options(args.threads, args.size) {
        Ok(o) => o,
        Err(e) => return out::error(e),
    };
    if args.lattice {
        return lattice(args, &opts);
    }
    if args.format == Format::Dot {
        return out::error("--format dot draws the lattice: use it with include --lattice");
    }
    let (Some(a), Some(b)) = (&args.a, &args.b) else {
        return out::error("give two models, or --lattice");
    };
    if args.memory.memory_model != ["sc"] {
        return out::error(
            "--memory-model builds the product lattice (with --lattice); for two models write MODEL+MEMORY (SSO+vulkan)",
        );
    }
    let (a, b) = match resolve_two(a, b) {
        Ok(m) => m,
        Err(s) => return s,
    };
    let proof = include::rule_proof(&a, &b);
    let run_bounded = !args.no_bounded || !proof.as_ref().is_some_and(|p| p.all_proven);
    if args.format == Format::Text {
        match &proof {
            Some(p) => out::print(&report::search::proof(&a.name(), &b.name(), p, run_bounded)),
            None => out::print(&format!(
                "{} ⊆ {}: no per-rule proof under a memory model (the bounded search answers)\n",
                a.name(),
                b.name()
            )),
        }
    }
    let bounded = if run_bounded {
        let (bar, mut progress) = progress_spinner();
        let r = include::bounded(&a, &b, &opts, &mut progress);
        bar.finish_and_clear();
        match r {
            Ok(r) => Some(r),
            Err(e) => return out::error(e),
        }
    } else {
        None
    };
    // Files first: a reader that stops reading must not cost the user the file.
    if let (Some(p), Some(w)) = (
        &args.output,
        bounded.as_ref().and_then(|r| r.counterexample.as_ref()),
    ) {
        if let Err(s) = out::write_file(p, &w.litmus) {
            return s;
        }
    }
    match args.format {
        Format::Json => out::print(&report::json::document(
            "include",
            serde_json::json!({ "unbounded": proof, "bounded": bounded }),
        )),
        _ => {
            if let Some(r) = &bounded {
                out::print(&report::search::bounded(r));
            }
        }
    }
    match bounded.map(|r| r.stop) {
        Some(Stop::Found) => Status::Mismatch,
        Some(Stop::Exhausted) | None => Status::Ok,
        Some(Stop::TimeLimit | Stop::Undecided { .. }) => Status::Unknown,
    }
}

/// `include --lattice`: every ordered pair of models, proven by rule or refuted by the
/// bounded search; text, JSON or a DOT picture.
fn lattice(args: &IncludeArgs, opts: &query::search::SearchOptions) -> Status {
    let mut execution = Model::builtin();
    for m in &args.models {
        match Model::resolve(m) {
            Ok(m)
                if !execution
                    .iter()
                    .any(|x| x.name.eq_ignore_ascii_case(&m.name)) =>
            {
                execution.push(m)
            }
            Ok(m) => return out::error(format!("model `{}` is already in the lattice", m.name)),
            Err(e) => return out::model_error(&e),
        }
    }
    // The product with the memory models (SC alone by default).
    let memories = match args.memory.resolve() {
        Ok(m) => m,
        Err(e) => return out::error(e),
    };
    let models: Vec<Combination> = memories
        .iter()
        .flat_map(|mm| {
            execution.iter().map(|m| Combination {
                model: m.clone(),
                memory: mm.clone(),
            })
        })
        .collect();
    let n = models.len() as u64;
    let bar = out::progress(n * n.saturating_sub(1), "lattice");
    let shown = bar.clone();
    let pairs = match include::lattice(&models, opts, &mut |pair| {
        shown.set_message(pair.to_string());
        shown.inc(1);
    }) {
        Ok(p) => p,
        Err(e) => return out::error(e),
    };
    bar.finish_and_clear();
    let names: Vec<(String, String)> = models
        .iter()
        // The description's title ("Collective Memory: ...") labels the node.
        .map(|c| {
            let title = c.model.description.split(':').next().unwrap_or("").trim();
            (c.name(), title.to_string())
        })
        .collect();
    match args.format {
        Format::Dot => out::print(&dot::lattice(&names, &pairs)),
        Format::Json => out::print(&report::json::document(
            "include --lattice",
            serde_json::json!({ "pairs": pairs }),
        )),
        Format::Text => out::print(&report::search::lattice(&pairs)),
    }
    if pairs.iter().any(|p| {
        matches!(
            p.verdict,
            include::InclusionVerdict::Open {
                undecided: true,
                ..
            }
        )
    }) {
        Status::Unknown
    } else {
        Status::Ok
    }
}

/// `distinguish A B`.
pub fn distinguish(args: &DistinguishArgs) -> Status {
    let opts = match args.grammar.options(args.max_threads, args.max_size) {
        Ok(o) => o,
        Err(e) => return out::error(e),
    };
    if args.format == Format::Dot {
        return out::error("--format dot draws witnesses and the lattice, not searches");
    }
    let (a, b) = match resolve_two(&args.a, &args.b) {
        Ok(m) => m,
        Err(s) => return s,
    };
    let (bar, mut progress) = progress_spinner();
    let r = query::distinguish::distinguish(&a, &b, &opts, &mut progress);
    bar.finish_and_clear();
    let r = match r {
        Ok(r) => r,
        Err(e) => return out::error(e),
    };
    let status = match &r.witness {
        Some(w) => match &args.output {
            Some(p) => out::write_file(p, &w.litmus).err().unwrap_or(Status::Ok),
            None => Status::Ok,
        },
        None if r.stop == Stop::Exhausted => Status::Mismatch,
        None => Status::Unknown,
    };
    if args.format == Format::Json {
        out::print(&report::json::document("distinguish", &r));
    } else {
        out::note(report::search::distinction(&r).trim_end());
        if let (Some(w), None) = (&r.witness, &args.output) {
            out::print(&w.litmus);
        }
    }
    status
}

/// `minimize FILE --allowed-by B --forbidden-by A`.
pub fn minimize(a: &MinimizeArgs, verbose: u8) -> Status {
    use tangle::query::minimize;
    let (allowed, forbidden) = match resolve_two(&a.allowed_by, &a.forbidden_by) {
        Ok(m) => m,
        Err(s) => return s,
    };
    if a.format == Format::Dot {
        return out::error("--format dot draws witnesses and the lattice, not minimized tests");
    }
    let test = match tangle::syntax::parse_file_limited(&a.file, a.input.max_file_size) {
        Ok(t) => t,
        Err(d) => return out::diagnostics(&d),
    };
    let opts = a
        .budget
        .apply(Options::default().with_unroll(a.unroll.unroll));
    let mut report = |e: &minimize::Event| {
        if e.accepted {
            out::note(&format!(
                "[tried {}, kept {}] {}",
                e.tried, e.kept, e.description
            ));
        } else if verbose > 0 {
            out::note(&format!(
                "[tried {}, kept {}] not kept: {}",
                e.tried, e.kept, e.description
            ));
        }
    };
    let m = match minimize::minimize(&test, &allowed, &forbidden, &opts, &mut report) {
        Ok(m) => m,
        Err(e) => return out::error(format!("{}: {e}", test.file)),
    };
    out::note(&report::search::minimized(&m));
    if let Some(p) = &a.output {
        if let Err(s) = out::write_file(p, &m.text) {
            return s;
        }
    }
    match a.format {
        Format::Json => out::print(&report::json::document("minimize", &m)),
        _ if a.output.is_none() => out::print(&m.text),
        _ => {}
    }
    Status::Ok
}
