//! Can a test run forever? The liveness question under a progress model (docs/progress.md).
//!
//! Two engines answer it. The explorer keeps its whole state graph
//! ([`ExploreOptions::liveness`]) and [`crate::engine::lasso`] looks in it for a deadlock or a
//! loop the progress model lets run forever. The Z3 engine uses the spin-loop reduction
//! ([`crate::engine::smt::liveness::decide`]): a state of the unrolled program where every thread has
//! terminated, waits for good, or can repeat a loop iteration that changes nothing.

use super::{compile_for, render_trace, Engine, Options, QueryError, TraceStep};
use crate::engine::explore::{self, Exploration, ExploreOptions};
use crate::engine::lasso::{self, Finding, Hang};
use crate::engine::smt::contain;
use crate::engine::smt::liveness::{SmtHang, SmtLiveness, SmtRole};
use crate::model::Model;
use crate::progress::Progress;
use crate::syntax::ast;
use serde::Serialize;
use std::time::Instant;

/// The answer to "does every execution terminate?".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "verdict", content = "reason")]
pub enum LiveVerdict {
    /// Every execution the progress model allows terminates.
    Live,
    /// Some allowed execution deadlocks or runs forever.
    Violated,
    /// Undecided, with why.
    Unknown(String),
}

impl LiveVerdict {
    pub fn word(&self) -> &'static str {
        match self {
            LiveVerdict::Live => "live",
            LiveVerdict::Violated => "violated",
            LiveVerdict::Unknown(_) => "unknown",
        }
    }
}

/// How a violating execution fails to terminate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HangKind {
    /// A state where no thread can move though some have not terminated.
    Deadlock,
    /// A loop of steps that repeats forever.
    Spin,
}

/// One thread's part in a hang.
#[derive(Clone, Debug, Serialize)]
pub struct ThreadRole {
    pub thread: u32,
    /// `spins`, `blocked`, `starved`, `free` (it may still move, but the hang does not hold
    /// it: another workgroup than the one a barrier divergence stopped) or `terminated`.
    pub role: &'static str,
    /// Where it stands when the loop starts (the block and the source line), when it has not
    /// terminated.
    pub at: Option<String>,
    pub line: Option<u32>,
    /// What it waits for, in words: for a spinning thread, the cells its loop reads and the
    /// values it keeps reading; for a blocked one, the step it stands at and the threads of
    /// its group that are elsewhere. `None` for the others.
    pub waits_for: Option<String>,
}

/// The answer for one test, model and progress model.
#[derive(Clone, Debug, Serialize)]
pub struct LivenessReport {
    pub test: String,
    pub file: String,
    pub model: String,
    pub progress: String,
    pub engine: Engine,
    #[serde(flatten)]
    pub verdict: LiveVerdict,
    /// From the test's `expect-liveness` line, if it names this progress model.
    pub expected: Option<bool>,
    pub hang: Option<HangKind>,
    /// The steps before the loop (or up to the deadlock).
    pub prefix: Vec<TraceStep>,
    /// The steps repeated forever (empty for a deadlock).
    pub cycle: Vec<TraceStep>,
    pub threads: Vec<ThreadRole>,
    /// States explored (the explorer; under a memory model, summed over the bounds tried).
    pub states: usize,
    /// The loop bound below `--unroll` at which the answer was found (under a memory model
    /// both engines deepen the bound, under SC the Z3 engine: docs/progress.md); `None` at
    /// `--unroll` itself.
    pub bound: Option<u32>,
    /// How the answer was reached, where that is not the engine's usual way (a hang of the
    /// narrowed model: docs/progress.md, "Hangs of the narrowed model").
    pub notes: Vec<String>,
    pub millis: f64,
}

impl LivenessReport {
    /// Does the verdict match the expectation (None without one, or when unknown)?
    pub fn matches_expectation(&self) -> Option<bool> {
        let live = self.expected?;
        match self.verdict {
            LiveVerdict::Live => Some(live),
            LiveVerdict::Violated => Some(!live),
            LiveVerdict::Unknown(_) => None,
        }
    }
}

/// The `expect-liveness` entry for a model (its label: `SSO`, `SSO+vulkan`) and a progress
/// model (by its report name: `obe`, `QF=obe,SG=hsa`): `Some(true)` when the test expects
/// every execution to terminate. An entry naming the model wins over one for every model.
pub fn expected(test: &ast::Test, model: &str, progress: &str) -> Option<bool> {
    let key = ast::expectation_key(model);
    let find = |named: bool| {
        test.expect_liveness.iter().find_map(|e| {
            let name = Progress::parse(&e.progress).ok()?.name();
            let model_ok = match &e.model {
                Some(m) => named && ast::expectation_key(m) == key,
                None => !named,
            };
            (model_ok && name == progress).then_some(e.live)
        })
    };
    find(true).or_else(|| find(false))
}

/// Every progress model an `expect-liveness` line names must be one `--progress` reads: an
/// unknown one is a located error (the front ends know no model list; `tangle::load` asks
/// here).
pub fn check_progress_names(test: &ast::Test) -> Result<(), crate::diag::Diagnostics> {
    let wrong: Vec<crate::diag::Diagnostic> = test
        .expect_liveness
        .iter()
        .filter_map(|e| {
            let err = Progress::parse(&e.progress).err()?;
            Some(crate::diag::Diagnostic::new(
                &test.file,
                &test.source,
                e.progress_span,
                err.to_string(),
            ))
        })
        .collect();
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(crate::diag::Diagnostics(wrong))
    }
}

/// The progress model a test runs under when none is asked for: the one its file names (the
/// TLA+ artifact's `#pragma scheduler`), else `fair`.
pub fn default_progress(test: &ast::Test) -> Result<Progress, crate::progress::ProgressError> {
    Progress::parse(test.hints.progress.as_deref().unwrap_or("fair"))
}

/// The engine that answers liveness when none is asked for: the explorer, unless the model
/// gives the test's subgroup ops the symbolic class, which the explorer does not run (then
/// Z3).
pub fn engine_for(test: &ast::Test, model: &Model) -> Engine {
    use crate::vocab::{Class, Kind};
    let symbolic = model.class(Kind::Sgop) == Class::Symbolic
        && crate::ir::cfg::lower(test).has_kind(Kind::Sgop);
    if symbolic {
        Engine::Smt
    } else {
        Engine::Explore
    }
}

/// [`hang_past_the_bound`] for each of `analyses`, made under `models` x `memories` (an
/// analysis is matched to its model and memory model by its label).
pub fn hangs_past_the_bound(
    test: &ast::Test,
    models: &[Model],
    memories: &[Option<std::sync::Arc<crate::memory::MemoryModel>>],
    analyses: &mut [super::Analysis],
    opts: &Options,
) {
    for a in analyses {
        let pair = (memories.iter())
            .flat_map(|mm| models.iter().map(move |m| (m, mm)))
            .find(|(m, mm)| super::model_label(&m.name, mm.as_deref()) == a.model);
        if let Some((m, mm)) = pair {
            let mut opts = opts.clone();
            opts.memory = mm.clone();
            hang_past_the_bound(test, m, a, &opts);
        }
    }
}

/// For the safety questions (`check`, `outcomes`, `compare`): when the loop bound cut some of
/// `a`'s runs, do some never finish? Asks [`liveness`] under the test's progress model (fair
/// unless its file names one) with the same memory model and a budget of its own (the same
/// `--timeout` and state limit), and keeps a hang in [`super::Analysis::hang`]; an undecided
/// or live answer becomes a note. A run cut by the bound that never finishes is then shown as
/// what it is, a hang with its lasso, rather than only as a cut (docs/progress.md, "Hangs in
/// `check`"). The explorer answers, whichever engine gave the verdict: its lassos take
/// milliseconds where Z3's reduction takes seconds, the engines agree on liveness wherever
/// both answer (`tests/liveness.rs`), and so the table is the same for both engines. Under
/// Symb with subgroup ops, which the explorer does not run, Z3 answers.
pub fn hang_past_the_bound(
    test: &ast::Test,
    model: &Model,
    a: &mut super::Analysis,
    opts: &Options,
) {
    if !a.runs_cut || a.hang.is_some() {
        return;
    }
    let progress = match default_progress(test) {
        Ok(p) => p,
        Err(e) => {
            a.notes.push(format!(
                "runs cut by the loop bound were not asked about hangs: {e}"
            ));
            return;
        }
    };
    let mut opts = opts.clone();
    opts.start = None;
    let answer = liveness_by_default(test, model, &progress, &opts);
    if let Ok(r) = &answer {
        tracing::info!(test = %test.name, model = %r.model, millis = r.millis, verdict = r.verdict.word(), "runs past the loop bound: the hang question");
    }
    match answer {
        Ok(r) => match &r.verdict {
            // A deadlock at a divergent barrier is the undefined behaviour already reported.
            LiveVerdict::Violated
                if r.hang == Some(HangKind::Deadlock)
                    && (a.undefined_behaviour.iter())
                        .any(|u| u.kind == crate::eval::UbKind::BarrierDivergence) => {}
            LiveVerdict::Violated => a.hang = Some(Box::new(r)),
            LiveVerdict::Live => a.notes.push(format!(
                "past the loop bound, every run a {} scheduler allows finishes (`tangle liveness`)",
                r.progress
            )),
            LiveVerdict::Unknown(why) => a.notes.push(format!(
                "whether runs past the loop bound finish under a {} scheduler is unknown: {why}",
                r.progress
            )),
        },
        Err(e) => a.notes.push(format!(
            "whether runs past the loop bound finish is unknown: {e}"
        )),
    }
}

/// Does every execution of `test` under `model` terminate, when scheduled as `progress`
/// allows?
pub fn liveness(
    test: &ast::Test,
    model: &Model,
    progress: &Progress,
    opts: &Options,
) -> Result<LivenessReport, QueryError> {
    let start = Instant::now();
    let opts = &opts.clone().started();
    let mut report = blank_report(test, model, progress, opts);
    // Liveness watches loops go round: idle loops too are unrolled to the bound.
    let full = opts.clone().with_idle_depth(crate::ir::IdleDepth::Bound);
    let prog = match compile_for(test, &full) {
        Ok(p) => p,
        Err(QueryError::Exhausted(e)) => {
            report.verdict = LiveVerdict::Unknown(e.to_string());
            report.millis = start.elapsed().as_secs_f64() * 1e3;
            return Ok(report);
        }
        Err(e) => return Err(e),
    };
    report.verdict = if let Some(mm) = &opts.memory {
        relaxed(&mut report, test, &prog, model, progress, mm, opts)
    } else if opts.engine == Engine::Smt {
        // Only the reduction deepens: where loop steps wait, Z3 looks for a lasso (which can
        // never say `live`) or refuses, and neither changes with the bound.
        match crate::engine::loops_run_alone(&prog, model) {
            Ok(()) => deepening(&mut report, test, &prog, opts, |r, p| {
                smt(r, test, p, model, progress, opts)
            }),
            Err(_) => smt(&mut report, test, &prog, model, progress, opts),
        }
    } else {
        let eo = explore_options(opts, None);
        let own = match explore::explore(&prog, model, &eo) {
            Err(e) => LiveVerdict::Unknown(e.to_string()),
            Ok(ex) => {
                report.states = ex.states;
                match lasso::analyse(&ex, &prog, progress) {
                    Finding::Live => LiveVerdict::Live,
                    Finding::Unknown(why) => LiveVerdict::Unknown(why),
                    Finding::Hang(h) => {
                        describe(&mut report, test, &prog, &ex, &h);
                        LiveVerdict::Violated
                    }
                }
            }
        };
        match own {
            LiveVerdict::Unknown(why) => {
                narrowed_hang(&mut report, test, &prog, model, progress, &eo)
                    .unwrap_or(LiveVerdict::Unknown(why))
            }
            v => v,
        }
    };
    report.millis = start.elapsed().as_secs_f64() * 1000.0;
    Ok(report)
}

/// The explorer's options for a liveness question: its whole state graph, within the test's
/// limits.
fn explore_options(
    opts: &Options,
    memory: Option<std::sync::Arc<crate::memory::MemoryModel>>,
) -> ExploreOptions {
    ExploreOptions {
        max_states: opts.max_states,
        budget: opts.budget(),
        memory,
        liveness: true,
        shortcuts: true,
    }
}

/// A report with no answer yet (`unknown`), with the test's expectation.
fn blank_report(
    test: &ast::Test,
    model: &Model,
    progress: &Progress,
    opts: &Options,
) -> LivenessReport {
    let mut report = LivenessReport {
        test: test.name.clone(),
        file: test.file.clone(),
        model: super::model_label(&model.name, opts.memory.as_deref()),
        progress: progress.name(),
        engine: opts.engine,
        verdict: LiveVerdict::Unknown(String::new()),
        expected: None,
        hang: None,
        prefix: Vec::new(),
        cycle: Vec::new(),
        threads: Vec::new(),
        states: 0,
        bound: None,
        notes: Vec::new(),
        millis: 0.0,
    };
    report.expected = expected(test, &report.model, &report.progress);
    report
}

/// [`liveness`] with the engine chosen for the test ([`engine_for`]), as the command line
/// asks when it names none. Under a model the explorer does not run (Symb's subgroup ops),
/// the explorer first looks for a hang of the narrowed model, which takes it milliseconds
/// where Z3 may take minutes (the artifact's `2t_2t_3txt_rr.comp`), then Z3 answers. They
/// share one budget, of which the explorer's search gets at most half.
pub fn liveness_by_default(
    test: &ast::Test,
    model: &Model,
    progress: &Progress,
    opts: &Options,
) -> Result<LivenessReport, QueryError> {
    let opts = opts.clone().started();
    let engine = engine_for(test, model);
    if engine == Engine::Smt && opts.memory.is_none() && model.narrowed().is_some() {
        let half = opts.timeout_ms.map(|ms| (ms / 2).max(1));
        let explore = (opts.clone())
            .with_engine(Engine::Explore)
            .with_timeout_ms(half);
        let first = liveness(test, model, progress, &explore)?;
        if first.verdict == LiveVerdict::Violated {
            return Ok(first);
        }
        let mut r = liveness(test, model, progress, &opts.with_engine(engine))?;
        r.millis += first.millis;
        return Ok(r);
    }
    liveness(test, model, progress, &opts.with_engine(engine))
}

/// The narrowed model's part of the explorer's answer alone ([`narrowed_hang`]), under SC
/// memory: `Some` with the hang when it finds one that is a hang of `model`, whatever
/// `model`'s own exploration would say (the tests check the two never contradict).
pub fn narrowed_liveness(
    test: &ast::Test,
    model: &Model,
    progress: &Progress,
    opts: &Options,
) -> Result<Option<LivenessReport>, QueryError> {
    if opts.memory.is_some() {
        return Ok(None);
    }
    let start = Instant::now();
    let opts = opts.clone().started().with_engine(Engine::Explore);
    let mut report = blank_report(test, model, progress, &opts);
    let full = opts.clone().with_idle_depth(crate::ir::IdleDepth::Bound);
    let prog = compile_for(test, &full)?;
    let eo = explore_options(&opts, None);
    Ok(
        narrowed_hang(&mut report, test, &prog, model, progress, &eo).map(|v| {
            report.verdict = v;
            report.millis = start.elapsed().as_secs_f64() * 1e3;
            report
        }),
    )
}

/// When the explorer cannot decide `model` (out of states, or a class it does not run): a
/// hang of the narrowed model ([`Model::narrowed`]), each of whose steps is a step of
/// `model`, in which no thread is blocked at a step whose class narrowed. Such a thread
/// might move under `model` (a speculative op fires with a lane undecided, a symbolic op runs
/// alone), and the progress model could then ask that it be scheduled; every other thread's
/// part (spins, starved, terminated, blocked at a step both models share) is the same in
/// both. `None`: no such hang (docs/progress.md, "Hangs of the narrowed model").
fn narrowed_hang(
    report: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    model: &Model,
    progress: &Progress,
    eo: &ExploreOptions,
) -> Option<LiveVerdict> {
    let narrow = model.narrowed()?;
    let differs = |k: crate::vocab::Kind| model.class(k) != narrow.class(k);
    // Without a step of a class that narrows, the narrowed model's runs are the model's.
    if !(crate::vocab::Kind::MODELLED.iter()).any(|&k| differs(k) && prog.has_kind(k)) {
        return None;
    }
    let ex = explore::explore(prog, &narrow, eo).ok()?;
    report.states += ex.states;
    let Finding::Hang(h) = lasso::analyse(&ex, prog, progress) else {
        return None;
    };
    let may_move = (h.blocked.iter())
        .filter_map(|&t| ex.position(h.prefix_to, t))
        .any(|(b, pc)| differs(prog.kind_at(b, pc)));
    if may_move {
        return None;
    }
    describe(report, test, prog, &ex, &h);
    report.engine = Engine::Explore;
    report.notes.push(format!(
        "found among the runs of {}: every step of those runs is a step of {}, and no thread \
         of the hang is blocked at a step whose class differs (docs/progress.md, \
         \"Hangs of the narrowed model\")",
        narrow.name, model.name
    ));
    Some(LiveVerdict::Violated)
}

/// The answer under a memory model: the Z3 engine's reduction, or the explorer's over the
/// runs it explores ([`lasso::analyse_relaxed`]).
fn relaxed(
    report: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    model: &Model,
    progress: &Progress,
    mm: &std::sync::Arc<crate::memory::MemoryModel>,
    opts: &Options,
) -> LiveVerdict {
    if let Err(why) = crate::engine::loops_run_alone(prog, model) {
        return LiveVerdict::Unknown(format!("under a memory model, {why}"));
    }
    // With no loop every run is finite, and with no barrier nothing waits for good.
    let loops = prog
        .blocks
        .iter()
        .any(|b| b.role == crate::ir::cfg::Role::LoopHeader);
    let waits = (prog.blocks.iter().flat_map(|b| &b.instrs))
        .any(|i| i.op.kind() == crate::vocab::Kind::Barrier);
    if !loops && !waits {
        return LiveVerdict::Live;
    }
    let eo = explore_options(opts, Some(mm.clone()));
    deepening(report, test, prog, opts, |report, p| {
        if opts.engine == Engine::Smt {
            return smt(report, test, p, model, progress, opts);
        }
        match explore::explore(p, model, &eo) {
            Err(e) => LiveVerdict::Unknown(e.to_string()),
            Ok(ex) => {
                // The work of every bound tried.
                report.states += ex.states;
                match lasso::analyse_relaxed(&ex, p, progress, &eo.budget) {
                    Finding::Hang(h) => {
                        describe_relaxed(report, test, p, &ex, &h);
                        LiveVerdict::Violated
                    }
                    Finding::Live => LiveVerdict::Live,
                    Finding::Unknown(why) => LiveVerdict::Unknown(why),
                }
            }
        }
    })
}

/// Asks `at` at loop bounds from [`DEEPENING_FROM`] up to `--unroll` (`prog` is the program
/// at `--unroll`), and gives the first answer that is not `unknown`.
///
/// Runs of exchange loops (read-modify-writes in a loop) multiply with the loop bound, and
/// Z3's unrolled events grow faster than it, so smaller bounds are tried first. Either answer
/// at a smaller bound is the answer at every larger one: a hang's stop is a real run,
/// whatever cuts the others; and `live` there means no consistent run even reached the bound
/// (the explorer under a memory model), or every run reaching it had a window that changed
/// nothing (Z3), which the argument for `live` needs at any bound. Out of time, a larger
/// bound would only say so again, later.
fn deepening(
    report: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    opts: &Options,
    mut at: impl FnMut(&mut LivenessReport, &crate::ir::Program) -> LiveVerdict,
) -> LiveVerdict {
    let budget = opts.budget();
    let spent = || budget.remaining().is_some_and(|d| d.is_zero());
    let mut bound = opts.unroll.min(DEEPENING_FROM);
    loop {
        let smaller;
        let p = if bound == opts.unroll {
            prog
        } else {
            let at = (opts.clone())
                .with_unroll(bound)
                .with_idle_depth(crate::ir::IdleDepth::Bound);
            match compile_for(test, &at) {
                Ok(p) => {
                    smaller = p;
                    &smaller
                }
                Err(_) => {
                    // (Out of budget: the full bound, already compiled, says so.)
                    bound = opts.unroll;
                    continue;
                }
            }
        };
        report.bound = (bound < opts.unroll).then_some(bound);
        match at(report, p) {
            LiveVerdict::Unknown(_) if bound < opts.unroll && !spent() => {
                bound = deeper(bound, opts.unroll);
            }
            LiveVerdict::Unknown(why) => {
                report.bound = None;
                return LiveVerdict::Unknown(cut_short(bound, opts.unroll, why));
            }
            v => return v,
        }
    }
}

/// Why the answer is `unknown`, when the time ran out while deepening, before `--unroll`.
fn cut_short(bound: u32, unroll: u32, why: String) -> String {
    if bound >= unroll {
        return why;
    }
    format!("the time ran out at --unroll {bound} of {unroll} (bounds deepen from {DEEPENING_FROM}): {why}")
}

/// The first loop bound [`deepening`] tries. Small bounds cost little, and a run that
/// ends within them is judged whole, where at a larger bound the same test may have too many
/// candidates for the cut's judgement: Dartagnan's CADP `70_simple` is `live` at 3 and
/// `unknown` at 4 and 5 (docs/progress.md).
const DEEPENING_FROM: u32 = 2;

/// The next loop bound tried: half as deep again (2, 3, 4, 6, 9, 13, ...), at most `last`. (Z3's
/// encoding grows faster than the bound: an exchange loop whose hang needs 6 iterations took
/// 3.5 s at `--unroll 6` and ran out of 20 s at 8.)
fn deeper(bound: u32, last: u32) -> u32 {
    (bound + (bound / 2).max(1)).min(last)
}

/// The Z3 engine's answer (its spin-loop reduction; under a memory model too, with the memory
/// model in `opts`).
fn smt(
    report: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    model: &Model,
    progress: &Progress,
    opts: &Options,
) -> LiveVerdict {
    let so = opts.smt_options();
    let (p, m, pm) = (prog.clone(), model.clone(), progress.clone());
    let run = move || {
        contain(so.max_memory_mib, || {
            crate::engine::smt::liveness::decide(&p, &m, &pm, &so)
        })
    };
    // Past the deadline the work is abandoned, as the safety queries' is.
    let answer = match (opts.start, opts.timeout_ms) {
        (Some(start), Some(ms)) => super::abandon_past_deadline(start, ms, run).and_then(|a| a),
        _ => run(),
    };
    match answer {
        Err(why) | Ok(SmtLiveness::Unknown(why)) => LiveVerdict::Unknown(why),
        Ok(SmtLiveness::Live) => LiveVerdict::Live,
        Ok(SmtLiveness::Hang(h)) => {
            describe_smt(report, test, prog, &h);
            LiveVerdict::Violated
        }
    }
}

/// Fills the witness of a hang found under a memory model: the run up to where it stops,
/// then the iterations each spinning thread repeats (taken from that run's end).
fn describe_relaxed(
    r: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    ex: &Exploration,
    h: &Hang,
) {
    use crate::engine::trace::Effect;
    r.hang = Some(if h.spinning.is_empty() {
        HangKind::Deadlock
    } else {
        HangKind::Spin
    });
    let trace = ex.trace_to(h.prefix_to);
    // A spinning thread's iterations are its steps after the last one that took it into the
    // header they start from (that step itself ends the iteration before).
    let mut repeated = vec![false; trace.len()];
    for &t in &h.spinning {
        let Some((_, header)) = ex.spin_at(h.prefix_to, t) else {
            continue;
        };
        let entered = trace.iter().rposition(|s| {
            s.effects.iter().any(|e| {
                matches!(e, Effect::Goto { thread, target: crate::ir::Target::Block(b) }
                    if *thread == t && *b == header)
            })
        });
        for (k, s) in trace.iter().enumerate().skip(entered.map_or(0, |k| k + 1)) {
            if s.threads == [t] {
                repeated[k] = true;
            }
        }
    }
    let (cycle, prefix): (Vec<_>, Vec<_>) =
        trace.into_iter().zip(&repeated).partition(|(_, &rep)| rep);
    let prefix: Vec<_> = prefix.into_iter().map(|(s, _)| s).collect();
    let cycle: Vec<_> = cycle.into_iter().map(|(s, _)| s).collect();
    set_trace(r, test, prog, &prefix, &cycle);
    r.threads = roles(test, prog, ex, h, &r.cycle);
}

/// The witness of a hang: the steps before the loop, then those repeated, numbered on.
fn set_trace(
    r: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    prefix: &[crate::engine::trace::Step],
    cycle: &[crate::engine::trace::Step],
) {
    r.prefix = render_trace(test, prog, prefix);
    r.cycle = render_trace(test, prog, cycle);
    let offset = r.prefix.len();
    for s in &mut r.cycle {
        s.step += offset;
    }
}

/// Each thread's part in an explorer's hang, and where it stands when the loop starts.
fn roles(
    test: &ast::Test,
    prog: &crate::ir::Program,
    ex: &Exploration,
    h: &Hang,
    cycle: &[TraceStep],
) -> Vec<ThreadRole> {
    let parts: Vec<_> = (0..prog.layout.threads)
        .map(|t| {
            let role = if h.spinning.contains(&t) {
                "spins"
            } else if h.blocked.contains(&t) {
                "blocked"
            } else if h.starved.contains(&t) {
                "starved"
            } else if h.free.contains(&t) {
                "free"
            } else {
                "terminated"
            };
            (role, ex.position(h.prefix_to, t))
        })
        .collect();
    explain(test, prog, &parts, cycle)
}

/// The threads' parts in a hang, from each one's role and position (`None`: terminated),
/// with what each waits for. Both engines' hangs are told this way.
fn explain(
    test: &ast::Test,
    prog: &crate::ir::Program,
    parts: &[Part],
    cycle: &[TraceStep],
) -> Vec<ThreadRole> {
    parts
        .iter()
        .enumerate()
        .map(|(t, &(role, pos))| {
            let t = t as u32;
            let (at, line) = position(prog, pos);
            let waits_for = match (role, pos) {
                ("spins", _) => Some(spin_reads(t, cycle)),
                ("blocked", Some(p)) => Some(blocked_at(test, prog, parts, t, p)),
                _ => None,
            };
            ThreadRole {
                thread: t,
                role,
                at,
                line,
                waits_for,
            }
        })
        .collect()
}

/// A thread's role in a hang and its position (block, step in it; `None`: terminated).
type Part = (&'static str, Option<(crate::ir::BlockId, u32)>);

/// The instruction a thread at position `(b, pc)` runs next (pc 0 is the label, the last
/// one the terminator: no instruction).
fn next_instr(
    prog: &crate::ir::Program,
    (b, pc): (crate::ir::BlockId, u32),
) -> Option<&crate::ir::Instr> {
    let k = (pc as usize).checked_sub(1)?;
    prog.blocks[b as usize].instrs.get(k)
}

/// What blocked thread `t` at `pos` waits for: the step it stands at, and the threads of
/// its group (its workgroup at a workgroup barrier, else its subgroup) that are elsewhere;
/// at a quorum barrier, how many of its workgroup wait at that name against the quorum.
fn blocked_at(
    test: &ast::Test,
    prog: &crate::ir::Program,
    parts: &[Part],
    t: u32,
    pos: (crate::ir::BlockId, u32),
) -> String {
    use crate::ir::Op;
    let block = &prog.blocks[pos.0 as usize];
    let next = next_instr(prog, pos);
    let step = match next {
        Some(i) => format!(
            "`{}` (line {})",
            super::trace::statement_text(&test.source, i.span),
            i.span.line
        ),
        None if pos.1 == 0 => format!("the start of {} (line {})", block.name(), block.span.line),
        None => format!(
            "the branch ending {} (line {})",
            block.name(),
            block.term_span.line
        ),
    };
    let wide =
        next.is_some_and(|i| matches!(i.op, Op::WorkgroupBarrier | Op::QuorumBarrier { .. }));
    let (group, members) = if wide {
        (
            "workgroup",
            prog.layout.workgroup_threads(prog.layout.workgroup_of(t)),
        )
    } else {
        (
            "subgroup",
            prog.layout.subgroup_threads(prog.layout.subgroup_of(t)),
        )
    };
    if let Some(Op::QuorumBarrier { name, quorum }) = next.map(|i| &i.op) {
        // A quorum barrier meets by name wherever its waiters stand.
        let there = members
            .filter(|&u| match parts[u as usize] {
                ("blocked", Some(p)) => next_instr(prog, p).is_some_and(
                    |i| matches!(i.op, Op::QuorumBarrier { name: n, .. } if n == *name),
                ),
                _ => false,
            })
            .count();
        return format!(
            "waits at {step} until {quorum} threads of its workgroup wait at barrier {name}: {there} do"
        );
    }
    let away: Vec<String> = members
        .filter(|&u| u != t && parts[u as usize].1 != Some(pos))
        .map(|u| match parts[u as usize] {
            (role @ ("blocked" | "starved"), p) => match position(prog, p).1 {
                Some(l) => format!("T{u} ({role} at line {l})"),
                None => format!("T{u} ({role})"),
            },
            (role, _) => format!("T{u} ({role})"),
        })
        .collect();
    if away.is_empty() {
        format!("waits at {step} with every thread of its {group}, which cannot pass")
    } else {
        format!(
            "waits at {step} for the rest of its {group}: {}",
            away.join(", ")
        )
    }
}

/// What a spinning thread waits for: the cells its repeated steps read and the values it
/// reads there, round after round (a read-modify-write's trace value is what it wrote, so
/// such a cell is named without one).
fn spin_reads(t: u32, cycle: &[TraceStep]) -> String {
    // Per cell: the values plain reads saw ("?" for an open read), and whether an RMW read it.
    let mut seen: indexmap::IndexMap<&str, (Vec<String>, bool)> = indexmap::IndexMap::new();
    for a in cycle.iter().flat_map(|s| &s.memory) {
        if a.thread != t || !a.reads {
            continue;
        }
        let (values, rmw) = seen.entry(a.cell.as_str()).or_default();
        if a.writes {
            *rmw = true;
            continue;
        }
        let v = a.value.map_or("?".to_string(), |v| v.to_string());
        if !values.contains(&v) {
            values.push(v);
        }
    }
    if seen.is_empty() {
        return "no cell of memory: only registers and subgroup operations decide whether its loop ends".to_string();
    }
    let cells: Vec<String> = seen.keys().map(|c| format!("`{c}`")).collect();
    let reads: Vec<String> = seen
        .iter()
        .map(|(c, (values, rmw))| match (values.is_empty(), rmw) {
            (true, _) => format!("{c} by read-modify-write"),
            (false, false) => format!("{c} = {}", values.join(" or ")),
            (false, true) => format!("{c} = {}, and by read-modify-write", values.join(" or ")),
        })
        .collect();
    format!(
        "waits for {} to change: every round it reads {}",
        cells.join(", "),
        reads.join(", ")
    )
}

/// Fills the witness of a hang the Z3 engine found.
fn describe_smt(r: &mut LivenessReport, test: &ast::Test, prog: &crate::ir::Program, h: &SmtHang) {
    let spins = h.roles.iter().any(|(role, _)| *role == SmtRole::Spins);
    r.hang = Some(if spins {
        HangKind::Spin
    } else {
        HangKind::Deadlock
    });
    set_trace(r, test, prog, &h.prefix, &h.cycle);
    let parts: Vec<_> = h
        .roles
        .iter()
        .map(|(role, at)| {
            let role = match role {
                SmtRole::Spins => "spins",
                SmtRole::Blocked => "blocked",
                SmtRole::Starved => "starved",
                SmtRole::Terminated => "terminated",
            };
            (role, *at)
        })
        .collect();
    r.threads = explain(test, prog, &parts, &r.cycle);
}

/// A position's block name and source line.
fn position(
    prog: &crate::ir::Program,
    pos: Option<(crate::ir::BlockId, u32)>,
) -> (Option<String>, Option<u32>) {
    match pos {
        Some((b, pc)) => {
            let block = &prog.blocks[b as usize];
            let line = match pc {
                0 => block.span.line,
                p if (p as usize) <= block.instrs.len() => block.instrs[p as usize - 1].span.line,
                _ => block.term_span.line,
            };
            (Some(block.name()), Some(line))
        }
        None => (None, None),
    }
}

/// Fills the witness of a hang: the prefix, the loop, and what each thread does.
fn describe(
    r: &mut LivenessReport,
    test: &ast::Test,
    prog: &crate::ir::Program,
    ex: &Exploration,
    h: &Hang,
) {
    let g = ex
        .graph
        .as_ref()
        .expect("a liveness exploration keeps its graph");
    r.hang = Some(if h.cycle.is_empty() {
        HangKind::Deadlock
    } else {
        HangKind::Spin
    });
    let prefix = ex.trace_to(h.prefix_to);
    let mut steps = Vec::new();
    for &(a, b) in &h.cycle {
        if let Some(e) = g.edges[a as usize].iter().find(|e| e.to == b) {
            steps.extend(e.steps.iter().cloned());
        }
    }
    set_trace(r, test, prog, &prefix, &steps);
    r.threads = roles(test, prog, ex, h, &r.cycle);
}
