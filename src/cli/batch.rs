//! `check`, `outcomes`, `compare` and `thin-air`: read tests, run them under models, print, and
//! judge the run against its expectations (the `expect` lines or an --expected table).

use super::args::{Common, Format, LivenessArgs, ThinAirArgs};
use super::out::{self, Status};
use std::path::PathBuf;
use tangle::model::Model;
use tangle::query::expected::{self, Table};
use tangle::query::{self, Analysis, Options, Verdict};
use tangle::report;
use tangle::syntax::{ast::Test, Diagnostic};

/// Which of the three table commands runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TableCommand {
    Check,
    Outcomes,
    Compare,
}

impl TableCommand {
    fn name(self) -> &'static str {
        match self {
            TableCommand::Check => "check",
            TableCommand::Outcomes => "outcomes",
            TableCommand::Compare => "compare",
        }
    }
}

/// Reads every input (files, directories, `-`), reporting unreadable and malformed ones;
/// warns about test names used twice (`--expected` tables are keyed by name: an error then).
fn load_tests(
    paths: &[PathBuf],
    launch: &tangle::shader::Launch,
    max_bytes: u64,
    names_must_be_unique: bool,
) -> (Vec<Test>, Status) {
    let (files, errors) = tangle::input::expand(paths);
    let mut status = Status::Ok;
    for e in &errors {
        status = status.and(out::diagnostics(&e.clone().into()));
    }
    let mut tests: Vec<Test> = Vec::new();
    for f in &files {
        match tangle::load_limited(f, launch, max_bytes) {
            Ok(t) => tests.push(t),
            Err(d) => status = status.and(out::diagnostics(&d)),
        }
    }
    let mut warned = 0;
    for (i, t) in tests.iter().enumerate() {
        if let Some(first) = tests[..i].iter().find(|u| u.name == t.name) {
            let msg = format!(
                "test name `{}` is used twice: {} and {}",
                t.name, first.file, t.file
            );
            if names_must_be_unique {
                status = status.and(out::error(format!(
                    "{msg}; an --expected table is keyed by test name, so rename one"
                )));
            } else {
                // A generated suite reuses names across directories: a few lines say so.
                warned += 1;
                if warned <= 3 {
                    out::note(&format!("warning: {msg} (reports keep them apart by file)"));
                }
            }
        }
    }
    if warned > 3 {
        out::note(&format!(
            "warning: {} more test names are used twice (reports keep them apart by file)",
            warned - 3
        ));
    }
    (tests, status)
}

/// `check`, `outcomes`, `compare`.
pub fn run(kind: TableCommand, c: &Common) -> Status {
    let models = match c.models.select() {
        Ok(m) => m,
        Err(e) => return out::model_error(&e),
    };
    if c.format == Format::Dot && kind == TableCommand::Compare {
        return out::error("--format dot draws witnesses: use it with check or outcomes");
    }
    let launch = match c.shader.launch() {
        Ok(l) => l,
        Err(e) => return out::error(e),
    };
    if c.expected.as_deref().is_some_and(tangle::input::is_stdin) {
        return out::error(
            "--expected needs a file: `-` (standard input) cannot be blessed or read twice",
        );
    }
    let table = match &c.expected {
        Some(p) if c.bless && !p.exists() => Some(Table::default()),
        Some(p) => match Table::read(p, c.input.max_file_size) {
            Ok(t) => Some(t),
            Err(d) => return out::diagnostics(&d.into()),
        },
        None => None,
    };
    // A tangle table is keyed by test name; a Dartagnan table by path, and a run over its
    // suite goes on past the files tangle refuses (each reported, the exit status an error).
    let by_name = table.as_ref().is_some_and(|t| !t.by_path());
    let (tests, mut status) = load_tests(&c.files, &launch, c.input.max_file_size, by_name);
    if tests.is_empty() || (status == Status::Error && by_name) {
        return status;
    }
    let memories = match c.memory.resolve() {
        Ok(m) => m,
        Err(e) => return out::error(e),
    };
    let engine = c.engine.engine();
    let mut opts = c
        .budget
        .apply(Options::default())
        .with_unroll(c.unroll.unroll)
        .with_engine(engine)
        .with_max_states(c.states.max_states)
        .with_max_outcomes(c.max_outcomes)
        .with_time_bits(c.time_bits)
        // `check` asks one question per model (with --witness too: the verdict's own query
        // yields the witness); the others list every outcome.
        // A Dartagnan table asks whether `forall` conditions hold: every outcome is needed.
        .with_outcomes(kind != TableCommand::Check || table.as_ref().is_some_and(|t| t.by_path()))
        // Listing outcomes, a value out of thin air is one row "any v", not 256 numbers.
        .with_free_values(kind == TableCommand::Outcomes)
        // `check` asks about the condition; flags are judged whole for a races table and
        // the commands that list everything.
        .with_flags(kind != TableCommand::Check || table.as_ref().is_some_and(|t| t.races()));
    // The program is compiled once for every memory model: as deep as the one with flags
    // needs (a deeper unrolling of idle loops is sound for the others).
    let flagged = memories
        .iter()
        .find(|m| m.as_ref().is_some_and(|m| m.cat.has_flags()));
    let bar = out::progress(tests.len() as u64, kind.name());
    let mut analyses: Vec<Analysis> = Vec::new();
    for t in &tests {
        bar.set_message(t.name.clone());
        if table.is_none() {
            for w in unknown_expect_models(t, &models, &memories) {
                bar.suspend(|| out::note(&w));
            }
        }
        // The first memory model's budget includes unrolling; each later one starts afresh.
        opts.start = Some(std::time::Instant::now());
        opts.memory = flagged.cloned().flatten();
        tracing::info!(test = %t.name, "analysing");
        let memory_opts = opts.clone();
        let answered = query::deepening(t, &opts, |prog| {
            let mut opts = memory_opts.clone();
            let mut out = Vec::new();
            for (i, mm) in memories.iter().enumerate() {
                if i > 0 {
                    opts.start = Some(std::time::Instant::now());
                }
                opts.memory = mm.clone();
                let mut analyses = query::analyse_models(t, prog, &models, &opts);
                // An undecided model settled by a decided one that includes it or that it
                // includes (proven for all programs).
                query::carry::carry(&models, &mut analyses);
                out.extend(analyses);
            }
            out
        });
        match answered {
            Ok(mut out) => {
                // Runs the loop bound cut: do some never finish?
                bar.set_message(format!("{}: hangs", t.name));
                query::liveness::hangs_past_the_bound(t, &models, &memories, &mut out, &opts);
                analyses.extend(out)
            }
            Err(query::QueryError::Exhausted(e)) => {
                for mm in &memories {
                    opts.memory = mm.clone();
                    analyses.extend(query::unanswered(t, &models, &opts, &e));
                }
                bar.inc(1);
                continue;
            }
            Err(e) => {
                status = status.and(bar.suspend(|| out::diagnostics(&e.diagnostic(t).into())));
                bar.inc(1);
                continue;
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let differences = table.as_ref().map(|tb| {
        expected::apply(tb, &mut analyses);
        expected::differences(tb, &analyses)
    });
    // Judge the run. After --bless the expectations say what this run found, so only
    // errors and unknown verdicts remain.
    let mismatch = match &differences {
        Some(d) => !d.is_empty(),
        None => analyses
            .iter()
            .any(|a| a.matches_expectation() == Some(false)),
    };
    if c.bless {
        if let Err(s) = bless(c, table.as_ref(), &tests, &analyses) {
            status = status.and(s);
        }
    } else if mismatch {
        status = status.and(Status::Mismatch);
    }
    if analyses
        .iter()
        .any(|a| matches!(a.verdict, Verdict::Unknown(_)))
    {
        status = status.and(Status::Unknown);
    }
    let names: Vec<String> = models
        .iter()
        .flat_map(|m| {
            memories
                .iter()
                .map(|mm| query::model_label(&m.name, mm.as_deref()))
        })
        .collect();
    match c.format {
        Format::Json => {
            let mut doc = serde_json::json!({
                "models": names,
                "results": report::json::analyses(&analyses),
            });
            if let Some(d) = &differences {
                doc["differences"] = serde_json::json!(d);
            }
            out::print(&report::json::document(kind.name(), doc))
        }
        Format::Dot => {
            for a in &analyses {
                if let Some(d) = report::dot::analysis(a) {
                    out::print(&d);
                }
                if let Some(d) = a.hang.as_deref().and_then(report::dot::liveness) {
                    out::print(&d);
                }
            }
        }
        Format::Text => out::print(&text(kind, c.witness, &analyses, &names)),
    }
    if let (Some(d), Some(p)) = (&differences, &c.expected) {
        if c.format == Format::Text || !d.is_empty() {
            out::note(&report::text::differences(d, &p.display().to_string()));
        }
    }
    status
}

fn text(kind: TableCommand, witness: bool, analyses: &[Analysis], names: &[String]) -> String {
    let mut s = String::new();
    match kind {
        TableCommand::Outcomes => {
            for a in analyses {
                s.push_str(&report::text::outcomes(a, witness));
                s.push('\n');
            }
        }
        TableCommand::Compare => {
            s.push_str(&report::text::table(analyses, names, true));
            s.push('\n');
            s.push_str(&report::text::distinctions(analyses, names));
        }
        TableCommand::Check => {
            s.push_str(&report::text::table(analyses, names, true));
            if witness {
                for a in analyses {
                    s.push('\n');
                    s.push_str(&report::text::outcomes(a, true));
                }
            }
        }
    }
    s
}

/// `--bless`: the table, or each test file's `expect` lines, rewritten from this run.
fn bless(
    c: &Common,
    table: Option<&Table>,
    tests: &[Test],
    analyses: &[Analysis],
) -> Result<(), Status> {
    if let (Some(t), Some(p)) = (table, &c.expected) {
        if t.by_path() {
            out::note(&format!(
                "error: {}: a Dartagnan table (path,1|0) is not rewritten by --bless",
                p.display()
            ));
            return Err(Status::Error);
        }
        return out::write_file(p, &t.blessed(analyses).to_csv());
    }
    for t in tests {
        let path = std::path::Path::new(&t.file);
        if tangle::shader::Language::of(path).is_some() || tangle::input::is_stdin(path) {
            out::note(&format!(
                "warning: {}: not blessed (only .litmus files carry expect lines; use --expected TABLE.csv)",
                t.file
            ));
            continue;
        }
        let new = expected::bless_source(t, analyses);
        if new != t.source {
            out::write_file(path, &new)?;
        }
    }
    Ok(())
}

/// An `expect` entry naming no model being run and no built-in model is almost surely a typo;
/// so is one naming a memory model that is neither being run nor bundled (`SSO+vulcan`).
fn unknown_expect_models(
    t: &Test,
    models: &[Model],
    memories: &[Option<std::sync::Arc<tangle::memory::MemoryModel>>],
) -> Vec<String> {
    let known_memory = |mem: &str| {
        tangle::memory::MemoryModel::is_known_name(mem)
            || memories.iter().flatten().any(|m| {
                let short = m.short_name();
                short
                    .strip_suffix(".cat")
                    .unwrap_or(&short)
                    .eq_ignore_ascii_case(mem)
            })
    };
    let builtin = Model::builtin();
    let known: Vec<&str> = models
        .iter()
        .chain(builtin.iter())
        .map(|m| m.name.as_str())
        .collect();
    t.expect
        .iter()
        .filter_map(|e| Some((e, e.model.as_deref()?)))
        // `SSO+vulkan`: the execution model is the part before the memory model.
        .filter(|(_, m)| {
            let (exec, mem) = tangle::syntax::ast::label_parts(m);
            !known.iter().any(|k| k.eq_ignore_ascii_case(exec))
                || mem.is_some_and(|x| !known_memory(x))
        })
        .map(|(e, model)| {
            let mut d = Diagnostic::bare(
                &t.file,
                e.span.line,
                e.span.col,
                format!("`expect` names unknown model `{model}`"),
            );
            if let Some(k) = tangle::syntax::diag::closest(model, known.iter().copied()) {
                d = d.with_help(format!("did you mean `{k}`?"));
            }
            report::text::warning(&d)
        })
        .collect()
}

/// `thin-air`.
pub fn thin_air(a: &ThinAirArgs) -> Status {
    let resolve = |n: &str| Model::resolve(n).map_err(|e| out::model_error(&e));
    let (sym, wf, spec) = match (
        resolve(&a.symbolic),
        resolve(&a.well_founded),
        resolve(&a.speculative),
    ) {
        (Ok(x), Ok(y), Ok(z)) => (x, y, z),
        _ => return Status::Error,
    };
    if a.format == Format::Dot {
        return out::error(
            "--format dot draws witnesses of check and outcomes, not thin-air reports",
        );
    }
    let models = query::thin_air::ThinAirModels {
        symbolic: &sym,
        well_founded: &wf,
        speculative: &spec,
    };
    let memories = match a.memory.resolve() {
        Ok(m) => m,
        Err(e) => return out::error(e),
    };
    let opts = Options::default()
        .with_unroll(a.unroll.unroll)
        .with_engine(a.engine.engine())
        .with_max_states(a.states.max_states);
    let opts = a.budget.apply(opts);
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => return out::error(e),
    };
    let (tests, mut status) = load_tests(&a.files, &launch, a.input.max_file_size, false);
    let bar = out::progress(tests.len() as u64, "thin-air");
    let mut reports = Vec::new();
    for t in &tests {
        bar.set_message(t.name.clone());
        for mm in &memories {
            let mut opts = opts.clone();
            opts.memory = mm.clone();
            match query::thin_air::thin_air(t, &models, &opts, a.limit) {
                Ok(r) => reports.push(r),
                Err(query::QueryError::Exhausted(e)) => {
                    bar.suspend(|| out::note(&format!("{}: unknown: {e}", t.file)));
                    status = status.and(Status::Unknown);
                }
                Err(e) => {
                    status = status.and(bar.suspend(|| out::diagnostics(&e.diagnostic(t).into())));
                    break;
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    match a.format {
        Format::Json => out::print(&report::json::document(
            "thin-air",
            serde_json::json!({
                "results": reports.iter().map(report::json::thin_air).collect::<Vec<_>>()
            }),
        )),
        _ => {
            for r in &reports {
                out::print(&report::text::thin_air(r, a.witness));
            }
        }
    }
    // A list cut at --limit is not an unknown answer; an undecided condition is.
    if reports.iter().any(|r| r.condition_thin_air.is_none()) {
        status = status.and(Status::Unknown);
    }
    status
}

/// `liveness`: each test under each model and progress model.
pub fn liveness(a: &LivenessArgs) -> Status {
    let models = match a.models.select() {
        Ok(m) => m,
        Err(e) => return out::model_error(&e),
    };
    let named_models = !a.models.models.is_empty() || !a.models.model_files.is_empty();
    let progresses: Vec<tangle::progress::Progress> = match a
        .progress
        .iter()
        .map(|p| tangle::progress::Progress::parse(p))
        .collect()
    {
        Ok(p) => p,
        Err(e) => return out::error(format!("--progress: {e}")),
    };
    let launch = match a.shader.launch() {
        Ok(l) => l,
        Err(e) => return out::error(e),
    };
    let opts = Options::default()
        .with_unroll(a.unroll.unroll)
        .with_max_states(a.states.max_states);
    let opts = a.budget.apply(opts);
    let table = match &a.expected {
        Some(p) => match Table::read(p, a.input.max_file_size) {
            Ok(t) if t.by_path() => Some(t),
            Ok(_) => {
                return out::error(format!(
                    "{}: a liveness table has Dartagnan's rows `path,1|0` (1: every execution terminates)",
                    p.display()
                ))
            }
            Err(d) => return out::diagnostics(&d.into()),
        },
        None => None,
    };
    let memories = match a.memory.resolve() {
        Ok(m) => m,
        Err(e) => return out::error(e),
    };
    let (tests, mut status) = load_tests(&a.files, &launch, a.input.max_file_size, false);
    let bar = out::progress(tests.len() as u64, "liveness");
    let mut reports = Vec::new();
    'tests: for t in &tests {
        bar.set_message(t.name.clone());
        // A file that names its models (the TLA+ artifact's layouts and pragma) runs under
        // them unless the command line names others.
        let hinted_model = t.hints.model.as_deref().filter(|_| !named_models);
        let models: Vec<Model> = match hinted_model.map(Model::resolve) {
            Some(Ok(m)) => vec![m],
            _ => models.clone(),
        };
        let progresses: Vec<tangle::progress::Progress> = if progresses.is_empty() {
            match query::liveness::default_progress(t) {
                Ok(p) => vec![p],
                Err(e) => {
                    status = status.and(out::error(format!("{}: #pragma scheduler: {e}", t.file)));
                    continue;
                }
            }
        } else {
            progresses.clone()
        };
        for (m, mm) in models
            .iter()
            .flat_map(|m| memories.iter().map(move |mm| (m, mm)))
        {
            let mut opts = opts.clone();
            opts.memory = mm.clone();
            if let Some(e) = a.engine {
                opts.engine = e.engine();
            }
            for p in &progresses {
                let answer = match a.engine {
                    Some(_) => query::liveness::liveness(t, m, p, &opts),
                    None => query::liveness::liveness_by_default(t, m, p, &opts),
                };
                match answer {
                    Ok(mut r) => {
                        if let Some(table) = &table {
                            r.expected = table.holds_for(&r.file);
                        }
                        reports.push(r)
                    }
                    Err(e) => {
                        status =
                            status.and(bar.suspend(|| out::diagnostics(&e.diagnostic(t).into())));
                        continue 'tests;
                    }
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    match a.format {
        Format::Json => out::print(&report::json::document(
            "liveness",
            serde_json::json!({ "results": reports }),
        )),
        Format::Dot => {
            for r in &reports {
                if let Some(d) = report::dot::liveness(r) {
                    out::print(&d);
                }
            }
        }
        _ => {
            for r in &reports {
                out::print(&report::text::liveness(r, a.witness));
            }
            out::print(&report::text::liveness_summary(&reports));
        }
    }
    for r in &reports {
        status = status.and(match (&r.verdict, r.matches_expectation()) {
            (_, Some(false)) => Status::Mismatch,
            (query::liveness::LiveVerdict::Unknown(_), _) => Status::Unknown,
            _ => Status::Ok,
        });
    }
    status
}
