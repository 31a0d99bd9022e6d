//! Can a test run forever? The Z3 engine's answer: the spin-loop reduction
//! (docs/progress.md, "The Z3 engine").
//!
//! The encoding describes finite executions of the unrolled program, so an infinite one is
//! found through a finite state it can repeat. A *horizon* H cuts an execution: the events
//! before H happened, those after are only a consistent completion, never observed. At H
//! every thread is
//! - *terminated*: it returned before H;
//! - *spinning*: it stands at the label of a loop header whose previous iteration wrote
//!   nothing (or only what the cell held), entered the header with the registers it had
//!   entered the previous one with, and read only values no one overwrote before H; it can
//!   run that iteration again forever;
//! - *blocked*: its next step waits (a collective or synchronous step, a subgroup op, a
//!   barrier) for a lane or a thread that has not arrived and does not move;
//! - *starved*: none of these; it could move but the loop does not run it.
//!
//! A hang is a horizon where some thread has not terminated and the progress model accepts
//! the statuses ([`Progress::fair`], the explorer's rule, asked once per candidate vector of
//! statuses). No hang is *live* only when the bound hid nothing: no execution reaches a loop's
//! cut after an iteration that changed the thread's state. An execution that repeats
//! state-preserving iterations can drop them, so an infinite execution either leaves a
//! spinning state within the bound or takes ever more state-changing iterations and reaches
//! the cut after one.
//!
//! Threads whose loops write hang too: under SC through a state that comes back (a lasso
//! from `h1` to H, memory included); under a memory model, which keeps no state, through
//! *windows of writes*, an infix and a suffix of iterations that make the same accesses and
//! that memory repeats (the explorer's rule, [`Encoding::repeated`]).
//!
//! The argument needs loops whose steps run alone (under SSO: no subgroup op or barrier in a
//! loop): a spinning thread then never waits, and threads waiting after its loop see it
//! undecided whatever iteration it is in. Where that does not hold the answer is `unknown`,
//! with why; the explorer decides those.

use super::decode::model_bool;
use super::relaxed::{Judge, Windows};
use super::terms::{and, at_most_one, bv, eq, implies, is_false, is_true, known, not, or};
use super::time::Time;
use super::{Answer, Encoding, SmtOptions};
use crate::budget::Exhausted;
use crate::engine::trace::Step;
use crate::eval::UbKind;
use crate::ir::cfg::{LoopId, Role};
use crate::ir::Term;
use crate::ir::{BlockId, Op, Program, Target};
use crate::model::Model;
use crate::progress::{Progress, ThreadStatus};
use crate::vocab::{Class, Kind, Members};
use std::collections::HashMap;
use z3::ast::{Bool, Int, BV};

/// The most iterations a spin may take to come back to the same state. A longer period is
/// not missed: it leaves the bound check unanswered (`unknown`).
const MAX_PERIOD: u32 = crate::engine::MAX_SPIN_PERIOD;

/// Most milliseconds the hang search gets once the bound is known to hide something (then
/// it can only turn `unknown` into `violated`), or a quarter of a larger `--timeout`
/// ([`hang_share`]).
const HANG_SHARE_MS: u32 = 5000;

/// The hang search's share once the bound hides something: [`HANG_SHARE_MS`], or a quarter
/// of the budget when that is more (a 30 s budget gives 7.5 s: on Dartagnan's `144_simple`
/// under `vulkan` Z3's whole answer, bounds 2 to 6, takes 9 s alone, and on a loaded machine
/// the search at --unroll 6 ran past 5 s, leaving the test `unknown`).
fn hang_share(timeout_ms: Option<u32>) -> u32 {
    HANG_SHARE_MS.max(timeout_ms.unwrap_or(0) / 4)
}

/// Up to this many threads, every vector of statuses is put to the progress model up front
/// (8^n of them); beyond, candidate hangs are asked for one at a time.
const MAX_ENUMERATED_THREADS: usize = 5;

/// Most candidate hangs the progress model may reject before the answer is `unknown`.
const MAX_CANDIDATES: usize = 256;

/// A thread's part in a hang found by the Z3 engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SmtRole {
    Terminated,
    Spins,
    Blocked,
    Starved,
}

/// A hang: the execution up to the horizon, the iterations repeated from there, and each
/// thread's role with where it stands (block, position) at the horizon.
#[derive(Clone, Debug)]
pub struct SmtHang {
    pub prefix: Vec<Step>,
    pub cycle: Vec<Step>,
    pub roles: Vec<(SmtRole, Option<(BlockId, u32)>)>,
}

/// The Z3 engine's liveness answer.
#[derive(Clone, Debug)]
pub enum SmtLiveness {
    Live,
    Hang(SmtHang),
    Unknown(String),
}

/// Does the step of kind `k` wait for other lanes under `m`?
fn waits(m: &Model, k: Kind) -> bool {
    m.rule(k).members != Members::Alone
}

/// A spin option whose window holds a symbolic subgroup op: the thread, the loop header it
/// stands at, the period, the option's condition and the window's blocks.
struct SymbWindow {
    thread: usize,
    header: BlockId,
    period: u32,
    cond: Bool,
    blocks: Vec<BlockId>,
}

/// The statuses at the horizon, one Boolean per thread each.
struct Statuses {
    horizon: Time,
    /// The lasso's start (the loop is the execution from there to the horizon), if a lasso.
    start: Option<Time>,
    term: Vec<Bool>,
    spin: Vec<Bool>,
    blocked: Vec<Bool>,
    started: Vec<Bool>,
    /// Per thread: each window of iterations it may spin on (its blocks), with the condition.
    spins_at: Vec<Vec<(Bool, Vec<BlockId>)>>,
    /// Some thread has not terminated.
    hang: Bool,
    /// Some thread reaches a cut in an execution where no window of iterations (of any
    /// thread) left its thread as it found it.
    bound_hit: Bool,
}

/// Does every execution of `prog` under `m` terminate when scheduled as `progress` allows?
///
/// Two questions, each on an encoding of its own (a solver that gave up is not asked again):
/// first whether the bound may hide a hang (an execution reaches a cut with no window of
/// iterations that changed nothing), then whether there is a fair hang. When the bound is
/// hit the answer is `violated` or `unknown`, so the hang search then gets a share of the
/// time only: proving that no hang exists would not make the answer `live`.
pub fn decide(prog: &Program, m: &Model, progress: &Progress, opts: &SmtOptions) -> SmtLiveness {
    if let Err(why) = crate::engine::loops_run_alone(prog, m) {
        let lasso = opts.memory.is_none()
            && crate::engine::classes_covered(prog, m).is_ok()
            && !crate::engine::quorum_in_loop(prog);
        if lasso {
            return lockstep(prog, m, progress, opts, &why);
        }
        // The explorer decides what waits, but not Symb's ops (it does not run them).
        if symbolic_ops(prog, m) {
            return SmtLiveness::Unknown(why);
        }
        return SmtLiveness::Unknown(format!("{why}; use --engine explore"));
    }
    // Symb's ops inside loops: the exact search finds hangs that are hangs, not every one;
    // `live` is the over-approximation's (below).
    let symb_loop = crate::engine::symbolic_in_loop(prog, m);
    if let (Some(line), Some(_)) = (symb_loop, &opts.memory) {
        return SmtLiveness::Unknown(format!(
            "the spin-loop reduction covers symbolic subgroup ops inside loops under SC memory \
             only, and the one at line {line} is in a loop (under {}; the explorer does not run \
             them)",
            m.name
        ));
    }
    // Budgets count from the analysis' start (`Budget::since`), so each phase's timeout is
    // the time spent so far plus its share of what is left.
    let start = opts.start.unwrap_or_else(std::time::Instant::now);
    let opts = SmtOptions {
        liveness: true,
        start: Some(start),
        ..opts.clone()
    };
    let models = std::slice::from_ref(m);
    // Under Symb the bound check takes any value for symbolic ops: a run whose values are
    // justified by lanes that join past the bound must still count (docs/progress.md, "Symb").
    let free = SmtOptions {
        symbolic_free: true,
        ..opts.clone()
    };
    let hidden = match Encoding::new(prog, models, &free) {
        Err(e) => return SmtLiveness::Unknown(e.to_string()),
        Ok(enc) => enc.bound_hidden(m),
    };
    // With a symbolic op in a loop, no hang even when other lanes may take part in any op
    // (`symbolic_windows`) is what `live` needs; one found there may not be a hang, so the
    // exact search below is still asked.
    let over = (symb_loop.is_some() && matches!(hidden, Answer::No)).then(|| {
        match Encoding::new(prog, models, &free) {
            Err(e) => SmtLiveness::Unknown(e.to_string()),
            Ok(enc) => enc.hang(m, progress, false, false),
        }
    });
    if let Some(SmtLiveness::Live) = over {
        return SmtLiveness::Live;
    }
    // What is left of the budget, and a phase's timeout (`until`).
    let elapsed = || start.elapsed().as_millis().min(u32::MAX as u128) as u32;
    let left = || {
        opts.timeout_ms
            .map(|ms| ms.saturating_sub(elapsed()).max(1))
    };
    let until = |share: u32| until(start, opts.timeout_ms, share);
    // Under a memory model, once the bound is hit, one search looks for both kinds of window
    // (those that change nothing, and windows of writes): a window of writes can exist only
    // when the bound is hit (it writes on every round), and one query costs less than two.
    let relaxed = opts.memory.is_some();
    let both = relaxed && !matches!(hidden, Answer::No);
    let share = hang_share(opts.timeout_ms);
    let spin_timeout = match (&hidden, left()) {
        (Answer::No, _) => opts.timeout_ms,
        (_, Some(ms)) if both => until(ms.min(share)),
        (_, Some(ms)) => until((ms / 2).clamp(1, share)),
        (_, None) => until(share),
    };
    let opts = SmtOptions {
        timeout_ms: spin_timeout,
        ..opts.clone()
    };
    let hang = match Encoding::new(prog, models, &opts) {
        Err(e) => return SmtLiveness::Unknown(e.to_string()),
        Ok(enc) => enc.hang(m, progress, both, false),
    };
    // The bound hides something and no spin was found: a state that comes back through
    // writes (two threads exchanging a value back and forth) is the other way to hang; under
    // a memory model, which keeps no state, windows of writes that repeat.
    let hang = match (&hang, &hidden) {
        (SmtLiveness::Hang(_), _) | (_, Answer::No) => hang,
        _ if both => hang,
        _ => {
            let opts = SmtOptions {
                timeout_ms: until(left().map_or(share, |ms| ms.min(share))),
                ..opts.clone()
            };
            match Encoding::new(prog, models, &opts) {
                Err(e) => SmtLiveness::Unknown(e.to_string()),
                Ok(enc) => match enc.hang(m, progress, true, false) {
                    SmtLiveness::Hang(h) => SmtLiveness::Hang(h),
                    _ => hang,
                },
            }
        }
    };
    match (hang, hidden) {
        (SmtLiveness::Hang(h), _) => SmtLiveness::Hang(h),
        (_, Answer::No) if symb_loop.is_some() => SmtLiveness::Unknown(match over {
            Some(SmtLiveness::Unknown(why)) => why,
            _ => format!(
                "a symbolic subgroup op is in a loop (line {}), and a hang is found only where \
                 other lanes take part in its instances as no run shows (under {})",
                symb_loop.unwrap_or(0),
                m.name
            ),
        }),
        (SmtLiveness::Unknown(why), Answer::No) => SmtLiveness::Unknown(why),
        (_, Answer::Unknown(why)) => SmtLiveness::Unknown(why),
        (_, Answer::Yes(why)) => SmtLiveness::Unknown(why),
        (SmtLiveness::Live, Answer::No) => SmtLiveness::Live,
    }
}

/// Loops whose steps wait for other threads (CM, SM and SCF with subgroups of several lanes, a
/// workgroup barrier in a loop), under SC memory: only a state that comes back is looked for
/// (the lasso), with the threads of a workgroup that go round one loop shifted by one number of
/// iterations, so that which of them share a dynamic block or a barrier instance comes back
/// too. A lasso is a hang whatever the model; `live` would need the spin-loop reduction's
/// argument, which needs steps that run alone, so without a lasso the answer is `unknown`.
fn lockstep(
    prog: &Program,
    m: &Model,
    progress: &Progress,
    opts: &SmtOptions,
    why: &str,
) -> SmtLiveness {
    // The search can only find a hang: like the hang searches above, at most
    // `HANG_SHARE_MS` of the budget (a program with no lasso would otherwise keep Z3 busy
    // for the whole of it, or for ever without one, to answer `unknown`).
    let start = opts.start.unwrap_or_else(std::time::Instant::now);
    let opts = SmtOptions {
        liveness: true,
        start: Some(start),
        timeout_ms: until(start, opts.timeout_ms, HANG_SHARE_MS),
        ..opts.clone()
    };
    let none = match Encoding::new(prog, std::slice::from_ref(m), &opts) {
        Err(e) => return SmtLiveness::Unknown(e.to_string()),
        Ok(enc) => match enc.hang(m, progress, true, true) {
            SmtLiveness::Hang(h) => return SmtLiveness::Hang(h),
            SmtLiveness::Unknown(w) => {
                format!("the search for a lasso stopped ({w}; it gets at most {HANG_SHARE_MS} ms)")
            }
            SmtLiveness::Live => format!("no state comes back within {MAX_PERIOD} iterations"),
        },
    };
    // The explorer decides what waits, but not Symb's ops (it does not run them).
    let explore = if symbolic_ops(prog, m) {
        ""
    } else {
        "; use --engine explore"
    };
    SmtLiveness::Unknown(format!(
        "{why}, and {none} (a lasso is all Z3 looks for there){explore}"
    ))
}

/// Does `prog` have subgroup ops that `m` makes symbolic (which the explorer does not run)?
fn symbolic_ops(prog: &Program, m: &Model) -> bool {
    m.class(Kind::Sgop) == Class::Symbolic && prog.has_kind(Kind::Sgop)
}

/// The timeout, counted from `start`, that gives a phase `share` milliseconds more than it
/// has spent, never past the whole budget `total`.
fn until(start: std::time::Instant, total: Option<u32>, share: u32) -> Option<u32> {
    let spent = start.elapsed().as_millis().min(u32::MAX as u128) as u32;
    let end = spent.saturating_add(share);
    Some(total.map_or(end, |t| end.min(t)))
}

impl<'p> Encoding<'p> {
    /// Is there a hang the progress model accepts? (`Live` here means: none.)
    /// `lasso`: look for a state that comes back (threads may write on the way, as long as
    /// memory comes back too), or under a memory model for windows of writes that repeat,
    /// besides windows that change nothing.
    /// `lockstep`: the threads of a workgroup that go round one loop in a lasso go round it
    /// by the same number of iterations ([`lockstep`]).
    fn hang(&self, m: &Model, progress: &Progress, lasso: bool, lockstep: bool) -> SmtLiveness {
        debug_assert!(self.liveness, "built with SmtOptions::liveness");
        let st = match self.statuses(m, lasso, lockstep) {
            Ok(s) => s,
            Err(e) => return SmtLiveness::Unknown(e.to_string()),
        };
        let lay = self.prog.layout;
        let threads = lay.threads as usize;
        let l_hang = Bool::fresh_const("query_hang");
        self.assert(&implies(&l_hang, &st.hang));
        let mut rejected: Vec<Bool> = Vec::new();
        // Few threads: the progress model's verdict on every vector of statuses, asked once
        // each, becomes a constraint, and one solver call answers.
        if threads <= MAX_ENUMERATED_THREADS {
            let fair = self.fair_vectors(&st, progress);
            let l = Bool::fresh_const("query_fair");
            self.assert(&implies(&l, &fair));
            rejected.push(l);
        }
        let fixed: Vec<[Option<bool>; 4]> = (0..threads)
            .map(|t| [&st.term[t], &st.started[t], &st.blocked[t], &st.spin[t]].map(known))
            .collect();
        let impossible = |v: &[ThreadStatus]| {
            v.iter().zip(&fixed).any(|(s, f)| {
                [s.terminated, s.started, s.blocked, s.moves]
                    .iter()
                    .zip(f)
                    .any(|(b, k)| k.is_some_and(|k| k != *b))
            })
        };
        for _ in 0..MAX_CANDIDATES {
            let mut a = self.model_lits(m);
            a.push(l_hang.clone());
            a.extend(rejected.iter().cloned());
            // The run up to the horizon is a whole execution of its own: every axiom.
            let model = match self.decide(m, Judge::Whole, a) {
                Answer::No => return SmtLiveness::Live,
                Answer::Unknown(why) => return SmtLiveness::Unknown(why),
                Answer::Yes(model) => model,
            };
            let get = |v: &[Bool], t: usize| model_bool(&model, &v[t]);
            let status: Vec<ThreadStatus> = (0..threads)
                .map(|t| ThreadStatus {
                    terminated: get(&st.term, t),
                    started: get(&st.started, t),
                    blocked: get(&st.blocked, t),
                    moves: get(&st.spin, t),
                    waits: get(&st.blocked, t),
                })
                .collect();
            if progress
                .fair(&|r, d| lay.scope_members(r, d), &status)
                .is_some()
            {
                return SmtLiveness::Hang(self.hang_witness(&model, m, &st, &status));
            }
            // Not fair: rule out this vector, and every vector that differs from it only in
            // threads the rejection does not depend on (checked exhaustively, so the clause
            // never rules out a fair hang). A vector no execution can have (a status folded to
            // a constant, e.g. a thread with no loop never spins) counts as rejected: without
            // that, such a thread's impossible spinning kept it in every core, and six
            // threads could take more candidates than allowed, depending on the solver's luck.
            let kept = rejection_core(&status, &|v| {
                impossible(v)
                    || v.iter().all(|s| s.terminated)
                    || progress.fair(&|r, d| lay.scope_members(r, d), v).is_none()
            });
            let same: Vec<Bool> = kept
                .iter()
                .flat_map(|&t| {
                    let s = status[t];
                    [
                        (&st.term[t], s.terminated),
                        (&st.started[t], s.started),
                        (&st.blocked[t], s.blocked),
                        (&st.spin[t], s.moves),
                    ]
                    .map(|(v, b)| if b { v.clone() } else { not(v) })
                })
                .collect();
            let refs: Vec<&Bool> = same.iter().collect();
            let r = Bool::fresh_const("reject_statuses");
            self.assert(&implies(&r, &not(&and(&refs))));
            rejected.push(r);
        }
        SmtLiveness::Unknown(format!(
            "the progress model rejected {MAX_CANDIDATES} candidate hangs and more remain"
        ))
    }

    /// The statuses `progress` accepts, as a formula over the status variables: every
    /// combination (per thread: terminated, spinning, blocked or starved, started or not) is
    /// put to [`Progress::fair`].
    fn fair_vectors(&self, st: &Statuses, progress: &Progress) -> Bool {
        let lay = self.prog.layout;
        let n = lay.threads as usize;
        // Per thread and combination: (role 0..4, started) and its literal.
        let combos: Vec<Vec<(ThreadStatus, Bool)>> = (0..n)
            .map(|t| {
                let mut v = Vec::new();
                for role in 0..4 {
                    for started in [false, true] {
                        let status = ThreadStatus {
                            terminated: role == 0,
                            moves: role == 1,
                            blocked: role == 2,
                            waits: role == 2,
                            started,
                        };
                        let lit = |x: &Bool, on: bool| if on { x.clone() } else { not(x) };
                        let conj = [
                            lit(&st.term[t], role == 0),
                            lit(&st.spin[t], role == 1),
                            lit(&st.blocked[t], role == 2),
                            lit(&st.started[t], started),
                        ];
                        let refs: Vec<&Bool> = conj.iter().collect();
                        v.push((status, and(&refs)));
                    }
                }
                v
            })
            .collect();
        let mut accepted = Vec::new();
        let mut pick = vec![0usize; n];
        loop {
            let status: Vec<ThreadStatus> = (0..n).map(|t| combos[t][pick[t]].0).collect();
            if !status.iter().all(|s| s.terminated)
                && progress
                    .fair(&|r, d| lay.scope_members(r, d), &status)
                    .is_some()
            {
                let refs: Vec<&Bool> = (0..n).map(|t| &combos[t][pick[t]].1).collect();
                accepted.push(and(&refs));
            }
            // The next combination, odometer style.
            let mut t = 0;
            while t < n {
                pick[t] += 1;
                if pick[t] < combos[t].len() {
                    break;
                }
                pick[t] = 0;
                t += 1;
            }
            if t == n {
                break;
            }
        }
        or(&accepted)
    }

    /// Can the bound hide a hang? `Yes(why)` when an execution reaches a loop's cut though no
    /// window of iterations of any thread left it as it found it.
    fn bound_hidden(&self, m: &Model) -> Answer<String> {
        let st = match self.statuses(m, false, false) {
            Ok(s) => s,
            Err(e) => return Answer::Unknown(e.to_string()),
        };
        if is_false(&st.bound_hit) {
            return Answer::No;
        }
        let l = Bool::fresh_const("query_bound");
        self.assert(&implies(&l, &st.bound_hit));
        let mut a = self.model_lits(m);
        a.push(l);
        // A run reaching the bound is the beginning of an execution: prefix-closed axioms,
        // a read may read a write another thread performs after its cut (as for safety).
        match self.decide(m, Judge::Cut, a) {
            Answer::No => Answer::No,
            Answer::Unknown(why) => Answer::Unknown(why),
            Answer::Yes(model) => {
                let prog = self.prog;
                let at = (0..prog.layout.threads as usize)
                    .flat_map(|t| (0..prog.blocks.len()).map(move |b| (t, b)))
                    .find(|&(t, b)| {
                        self.edges[t][b]
                            .iter()
                            .any(|(to, c)| *to == Target::Cut && model_bool(&model, c))
                    });
                let place = at.map_or(String::new(), |(t, b)| {
                    let block = &prog.blocks[b];
                    format!(" (T{t} at {}, line {})", block.name(), block.span.line)
                });
                Answer::Yes(format!(
                    "a loop reaches its bound (--unroll {}) in an execution where no \
                     iteration comes back to the state it started from{place}: a larger \
                     --unroll may decide, or the loop changes state forever",
                    prog.unroll
                ))
            }
        }
    }

    /// The time before which event `pos` of thread `t` in block `b` is ready: its previous
    /// event (for a label, the branch into the block).
    fn prev_event(&self, t: usize, b: BlockId, pos: u32) -> Time {
        if pos == 0 {
            self.prev_label[t][b as usize].clone()
        } else {
            self.ts[t][b as usize][self.prev_pos(b, pos) as usize].clone()
        }
    }

    /// Thread `t` has the same registers on entering loop-header instances `a` and `b`, one
    /// equality per register live at the header (`None`: an instance it cannot enter).
    fn same_registers(&self, t: usize, a: BlockId, b: BlockId) -> Option<Vec<Bool>> {
        let (x, y) = (
            self.header_regs.get(&(t as u32, a))?,
            self.header_regs.get(&(t as u32, b))?,
        );
        // Only what a later step may read counts: the registers live at the header.
        let live = (self.prog.live).at_entry(self.prog.blocks[a as usize].sblock);
        Some(
            (x.iter().zip(y).zip(live))
                .filter(|(_, &l)| l)
                .map(|((p, q), _)| eq(p, q))
                .collect(),
        )
    }

    /// Thread `t` stands before event `pos` of `b` at `h`: it took the previous one, not this.
    fn at_event(&self, t: usize, b: BlockId, pos: u32, h: &Time) -> Bool {
        and(&[
            &self.inb[t][b as usize],
            &self.prev_event(t, b, pos).lt(h),
            &self.ts[t][b as usize][pos as usize].ge(h),
        ])
    }

    /// Builds the horizon, the statuses and the bound condition.
    fn statuses(&self, m: &Model, lasso: bool, lockstep: bool) -> Result<Statuses, Exhausted> {
        let prog = self.prog;
        let lay = prog.layout;
        let budget = &self.building;
        let nt = lay.threads as usize;
        let relaxed = self.relaxed.is_some();
        // Under SC a lasso is a state that comes back (`h1` below); under a memory model,
        // which keeps no state, it is a window of writes repeated (the infix and the suffix).
        let writes = lasso && relaxed;
        let lasso = lasso && !relaxed;
        let h = (self.horizon.clone()).unwrap_or_else(|| self.time_var("horizon".into()));
        // The lasso: the state at `h1` comes back at `h`; threads are judged at `h1`.
        let h1 = lasso.then(|| self.time_var("lasso_start".into()));
        let at = h1.clone().unwrap_or_else(|| h.clone());
        let mut loop_conds: Vec<Bool> = Vec::new();
        if let Some(h1) = &h1 {
            loop_conds.push(h1.lt(&h));
        }
        // A quorum barrier that never opens opens after the horizon (nobody passes it before).
        // A thread standing at one that has not opened is blocked while fewer than its quorum
        // stand there: who else arrives is what the other threads' statuses say.
        let mut quorum_at: HashMap<(u32, BlockId, u32), Bool> = HashMap::new();
        for q in &self.quorums {
            self.assert(&implies(&q.stuck, &q.release.ge(&h)));
            let one = Int::from_i64(1);
            let zero = Int::from_i64(0);
            let standing: Vec<Int> = (q.sites.iter())
                .map(|&(w, b, p)| self.at_event(w as usize, b, p, &at).ite(&one, &zero))
                .collect();
            let refs: Vec<&Int> = standing.iter().collect();
            let short = Int::add(&refs).lt(Int::from_i64(q.quorum as i64));
            let held = and(&[&q.release.ge(&at), &short]);
            for &site in &q.sites {
                quorum_at.insert(site, held.clone());
            }
        }

        // Before the horizon, the execution is one of the program itself: no thread is cut
        // (the cut's leaving event is never), passes a workgroup barrier without its whole
        // workgroup, or meets undefined behaviour.
        for t in 0..nt {
            for (b, block) in prog.blocks.iter().enumerate() {
                budget.check("encoding the liveness horizon")?;
                if is_false(&self.inb[t][b]) {
                    continue;
                }
                let term = &self.ts[t][b][block.instrs.len() + 1];
                for (to, c) in &self.edges[t][b] {
                    if *to == Target::Cut {
                        self.assert(&implies(c, &term.ge(&h)));
                    }
                }
                for (i, ins) in block.instrs.iter().enumerate() {
                    if matches!(ins.op, Op::WorkgroupBarrier) {
                        let all: Vec<&Bool> = lay
                            .workgroup_threads(lay.workgroup_of(t as u32))
                            .map(|w| &self.inb[w as usize][b])
                            .collect();
                        let passed = and(&[&self.inb[t][b], &self.ts[t][b][i + 1].lt(&h)]);
                        self.assert(&implies(&passed, &and(&all)));
                    }
                }
            }
        }
        for (i, (kind, c)) in self.ub.iter().enumerate() {
            if *kind == UbKind::BarrierDivergence {
                continue;
            }
            if let Some(&(t, b, pos)) = self.ub_at.get(&i) {
                let when = &self.ts[t as usize][b as usize][pos as usize];
                self.assert(&not(&and(&[c, &when.lt(&h)])));
            }
        }

        // The iterations: blocks grouped by (loop, iteration vector up to that loop).
        // And every block by its place (static block, iteration vector): a header's instance
        // some iterations back, an access's twin one period later.
        let mut iterations: HashMap<(LoopId, Vec<u32>), Vec<BlockId>> = HashMap::new();
        let mut places: HashMap<(usize, Vec<u32>), BlockId> = HashMap::new();
        for (b, block) in prog.blocks.iter().enumerate() {
            let loops = &prog.cfg.blocks[block.sblock].loops;
            for (d, &l) in loops.iter().enumerate() {
                if d < block.iters.len() {
                    iterations
                        .entry((l, block.iters[..=d].to_vec()))
                        .or_default()
                        .push(b as BlockId);
                }
            }
            places.insert((block.sblock, block.iters.clone()), b as BlockId);
        }
        let mut by_thread_block: HashMap<(u32, BlockId), Vec<usize>> = HashMap::new();
        for (i, e) in self.mem.iter().enumerate() {
            by_thread_block
                .entry((e.thread, e.block))
                .or_default()
                .push(i);
        }
        // The header entered `k` iterations before `hb`, and the blocks of those iterations.
        let earlier = |hb: BlockId, k: u32| -> Option<(BlockId, Vec<BlockId>)> {
            let block = &prog.blocks[hb as usize];
            let l = *prog.cfg.blocks[block.sblock].loops.last()?;
            let mut iters = block.iters.clone();
            let now = *iters.last()?;
            let first = now.checked_sub(k)?;
            let mut blocks = Vec::new();
            for i in first..now {
                *iters.last_mut()? = i;
                blocks.extend(iterations.get(&(l, iters.clone()))?);
            }
            *iters.last_mut()? = first;
            Some((*places.get(&(block.sblock, iters))?, blocks))
        };
        // The iterations from header `hp` to header `hb` left thread `t` as they found it.
        let noop = |t: usize, hp: BlockId, hb: BlockId, blocks: &[BlockId]| -> Bool {
            let Some(same) = self.same_registers(t, hb, hp) else {
                return Bool::from_bool(false);
            };
            let mut cs: Vec<Bool> = vec![self.inb[t][hb as usize].clone()];
            cs.extend(same);
            for b in blocks {
                for &i in by_thread_block.get(&(t as u32, *b)).into_iter().flatten() {
                    let e = &self.mem[i];
                    match (&e.read, &e.write) {
                        (_, None) => {}
                        // Under a memory model an atomic that writes back what it read is
                        // still a write: it adds a coherence successor.
                        (_, Some(_)) if relaxed => cs.push(not(&and(&[&e.guard, &e.stores]))),
                        (Some(old), Some(new)) => cs.push(implies(&e.guard, &eq(old, new))),
                        (None, Some(_)) => cs.push(not(&e.guard)),
                    }
                }
            }
            let refs: Vec<&Bool> = cs.iter().collect();
            and(&refs)
        };

        let mut term = Vec::with_capacity(nt);
        let mut spin = Vec::with_capacity(nt);
        let mut blocked = Vec::with_capacity(nt);
        let mut started = Vec::with_capacity(nt);
        let mut spins_at = Vec::with_capacity(nt);
        let mut cuts: Vec<Bool> = Vec::new();
        let mut noops: Vec<Bool> = Vec::new();
        let mut leave_cache: HashMap<(u32, BlockId), Time> = HashMap::new();
        let mut windows = Windows::default();
        // Spin windows holding a symbolic subgroup op (Symb).
        let mut windows_symb: Vec<SymbWindow> = Vec::new();
        // Lockstep lassos: (thread, header, iterations, selector), and who stands still.
        let mut shifts: Vec<(usize, usize, u32, Bool)> = Vec::new();
        let mut stills: Vec<Bool> = Vec::new();
        for t in 0..nt {
            let mut ends = Vec::new();
            let mut spin_opts: Vec<(Bool, Vec<BlockId>)> = Vec::new();
            // Per option: its header and period (for Symb's ops in loops, below).
            let mut opt_at: Vec<(BlockId, u32)> = Vec::new();
            let mut disabled = Vec::new();
            let mut visible = Vec::new();
            let mut moved = Vec::new();
            let sg = lay.subgroup_threads(lay.subgroup_of(t as u32));
            let wg = lay.workgroup_threads(lay.workgroup_of(t as u32));
            for (b, block) in prog.blocks.iter().enumerate() {
                budget.check("encoding the liveness statuses")?;
                let bid = b as BlockId;
                let inb = &self.inb[t][b];
                if is_false(inb) {
                    continue;
                }
                let n = block.instrs.len() as u32;
                let ts = &self.ts[t][b];
                if block.term == Term::Return {
                    ends.push(and(&[inb, &ts[n as usize + 1].lt(&at)]));
                }
                if lasso {
                    // Still: no event of the thread in [h1, h).
                    for x in ts.iter() {
                        moved.push(and(&[inb, &at.le(x), &x.lt(&h)]));
                    }
                }
                // Its events: visible ones start a thread, waiting ones may block it.
                for pos in 0..=n + 1 {
                    let (kind, wg_barrier) = match pos {
                        0 => (Kind::Label, false),
                        p if p == n + 1 => (Kind::Branch, false),
                        p => {
                            let op = &block.instrs[p as usize - 1].op;
                            (op.kind(), matches!(op, Op::WorkgroupBarrier))
                        }
                    };
                    // As the explorer's liveness mode: a thread rests before every loop edge.
                    let eager =
                        m.rule(kind).eager && !(kind == Kind::Branch && prog.loop_edge(bid));
                    if !eager {
                        visible.push(and(&[inb, &ts[pos as usize].lt(&h)]));
                    }
                    if let Some(held) = quorum_at.get(&(t as u32, bid, pos)) {
                        disabled.push(and(&[&self.at_event(t, bid, pos, &at), held]));
                        continue;
                    }
                    if !(wg_barrier || waits(m, kind)) {
                        continue;
                    }
                    let others: Vec<Bool> = if wg_barrier {
                        wg.clone()
                            .filter(|&w| w as usize != t)
                            .map(|w| not(&self.at_event(w as usize, bid, pos, &at)))
                            .collect()
                    } else {
                        sg.clone()
                            .filter(|&u| u as usize != t)
                            .map(|u| {
                                let ui = u as usize;
                                let leave = leave_cache
                                    .entry((u, bid))
                                    .or_insert_with(|| self.leave(u, bid, None))
                                    .clone();
                                or(&[
                                    and(&[
                                        &self.inb[ui][b],
                                        &self.prev_event(ui, bid, pos).ge(&at),
                                    ]),
                                    and(&[&not(&self.inb[ui][b]), &leave.ge(&at)]),
                                ])
                            })
                            .collect()
                    };
                    let waiting = or(&others);
                    if !is_false(&waiting) {
                        disabled.push(and(&[&self.at_event(t, bid, pos, &at), &waiting]));
                    }
                }
                // A loop header: spinning here, or the bound hit after a changing iteration.
                if block.role != Role::LoopHeader {
                    continue;
                }
                let cut = self.edges[t][b]
                    .iter()
                    .filter(|(to, _)| *to == Target::Cut)
                    .map(|(_, c)| c.clone())
                    .collect::<Vec<_>>();
                let cut = or(&cut);
                if !is_false(&cut) {
                    // Reached before the horizon: the execution up to there is the program's.
                    cuts.push(and(&[&cut, &ts[0].lt(&h)]));
                }
                let mut writing: Vec<Bool> = Vec::new();
                for k in 1..=MAX_PERIOD {
                    let Some((hp, blocks)) = earlier(bid, k) else {
                        break;
                    };
                    // Windows of writes (under a memory model): the `k` iterations before
                    // `hp` (the infix) and the `k` after (the suffix) made the same accesses
                    // from the same registers.
                    if let (true, Some((first, infix))) =
                        (writes && 2 * k <= MAX_PERIOD, earlier(hp, k))
                    {
                        let depth = prog.blocks[b].iters.len() - 1;
                        let twin = |ib: BlockId| {
                            let block = &prog.blocks[ib as usize];
                            let mut iters = block.iters.clone();
                            iters[depth] += k;
                            places.get(&(block.sblock, iters)).copied()
                        };
                        // (The accesses are compared from the infix's side only, by position:
                        // equal registers at the entries and equal values read fix the path,
                        // so the suffix makes no access, fence or barrier the infix did not.)
                        let mut cs = vec![self.at_event(t, bid, 0, &h)];
                        let mut pairs = Vec::new();
                        match (
                            self.same_registers(t, bid, hp),
                            self.same_registers(t, bid, first),
                        ) {
                            (Some(a), Some(c)) => cs.extend(a.into_iter().chain(c)),
                            _ => cs.push(Bool::from_bool(false)),
                        }
                        for &ib in &infix {
                            let Some(tb) = twin(ib) else {
                                cs.push(Bool::from_bool(false));
                                break;
                            };
                            let theirs = by_thread_block.get(&(t as u32, tb));
                            for &i in by_thread_block.get(&(t as u32, ib)).into_iter().flatten() {
                                let pos = self.mem[i].pos;
                                match theirs
                                    .into_iter()
                                    .flatten()
                                    .find(|&&j| self.mem[j].pos == pos)
                                {
                                    Some(&j) => {
                                        cs.push(self.same_access(i, j));
                                        pairs.push((i, j));
                                    }
                                    None => cs.push(Bool::from_bool(false)),
                                }
                            }
                        }
                        let refs: Vec<&Bool> = cs.iter().collect();
                        let c = and(&refs);
                        if !is_false(&c) {
                            let sel = Bool::fresh_const(&format!("writes_window_t{t}"));
                            self.assert(&implies(&sel, &c));
                            let suffix = blocks.iter().flat_map(|blk| {
                                by_thread_block
                                    .get(&(t as u32, *blk))
                                    .into_iter()
                                    .flatten()
                                    .copied()
                            });
                            windows.add(&sel, &pairs, suffix);
                            spin_opts.push((sel.clone(), blocks.clone()));
                            opt_at.push((bid, k));
                            writing.push(sel);
                        }
                    }
                    if let Some(h1) = &h1 {
                        // The lasso: at `hp` at h1, at `hb` at h, with the same registers (what
                        // it wrote is judged by memory as a whole).
                        let Some(same) = self.same_registers(t, bid, hp) else {
                            continue;
                        };
                        let mut cs =
                            vec![self.at_event(t, hp, 0, h1), self.at_event(t, bid, 0, &h)];
                        cs.extend(same);
                        let refs: Vec<&Bool> = cs.iter().collect();
                        let c = and(&refs);
                        if is_false(&c) {
                            continue;
                        }
                        if lockstep {
                            let sel = Bool::fresh_const(&format!("lasso_t{t}"));
                            self.assert(&implies(&sel, &c));
                            shifts.push((t, block.sblock, k, sel.clone()));
                            spin_opts.push((sel, blocks));
                        } else {
                            spin_opts.push((c, blocks));
                        }
                        opt_at.push((bid, k));
                        continue;
                    }
                    let same = noop(t, hp, bid, &blocks);
                    if is_false(&same) {
                        continue;
                    }
                    let mut cs = vec![same.clone(), self.prev_label[t][b].lt(&h), ts[0].ge(&h)];
                    for blk in &blocks {
                        for &i in by_thread_block.get(&(t as u32, *blk)).into_iter().flatten() {
                            let e = &self.mem[i];
                            if e.read.is_none() {
                                continue;
                            }
                            if relaxed {
                                // Memory fairness: a read repeated forever reads a
                                // coherence-last write, else a later one is seen at last.
                                cs.push(self.reads_coherence_last(i));
                                continue;
                            }
                            for j in self.accesses_to(e.global, e.cell) {
                                let w = &self.mem[j];
                                if j == i || w.write.is_none() || is_false(&w.guard) {
                                    continue;
                                }
                                // An atomic that writes back what it read changes nothing
                                // (the window's own writes are all such).
                                let changes = match (&w.read, &w.write) {
                                    (Some(old), Some(new)) => not(&eq(old, new)),
                                    _ => Bool::from_bool(true),
                                };
                                let overwritten = and(&[
                                    &w.guard,
                                    &eq(&w.index, &e.index),
                                    &e.ts.lt(&w.ts),
                                    &w.ts.lt(&h),
                                    &changes,
                                ]);
                                cs.push(implies(&e.guard, &not(&overwritten)));
                            }
                        }
                    }
                    // Only windows completed before the horizon count: after it the execution
                    // is a completion, where a thread the prefix left standing still may spin.
                    noops.push(and(&[&same, &ts[0].lt(&h)]));
                    let refs: Vec<&Bool> = cs.iter().collect();
                    let s = and(&refs);
                    if !is_false(&s) {
                        spin_opts.push((s, blocks));
                        opt_at.push((bid, k));
                    }
                }
                // One window of writes per header at a time: windows of different periods
                // would mix their infixes and suffixes in `Windows`. (At two headers at once
                // a thread cannot stand.)
                self.assert(&at_most_one(&writing));
            }
            let name = |what: &str| Bool::fresh_const(&format!("{what}_t{t}"));
            let define = |what: &str, f: Bool| {
                if is_true(&f) || is_false(&f) {
                    return f;
                }
                let v = name(what);
                self.assert(&eq_bool(&v, &f));
                v
            };
            let te = define("terminated", or(&ends));
            let sp = define(
                "spins",
                and(&[
                    &not(&te),
                    &or(&spin_opts.iter().map(|(c, _)| c.clone()).collect::<Vec<_>>()),
                ]),
            );
            let bl = define("blocked", and(&[&not(&te), &not(&sp), &or(&disabled)]));
            if lasso {
                // Every thread terminated, comes round its loop, or stands still.
                let still = not(&or(&moved));
                loop_conds.push(or(&[te.clone(), sp.clone(), still.clone()]));
                stills.push(still);
            }
            term.push(te);
            spin.push(sp);
            blocked.push(bl);
            started.push(define("started", or(&visible)));
            for ((c, blocks), &(header, k)) in spin_opts.iter().zip(&opt_at) {
                if blocks.iter().any(|&b| self.symbolic_block(m, b)) {
                    windows_symb.push(SymbWindow {
                        thread: t,
                        header,
                        period: k,
                        cond: c.clone(),
                        blocks: blocks.clone(),
                    });
                }
            }
            spins_at.push(spin_opts);
        }
        self.symbolic_windows(m, &windows_symb, &spin, &h)?;
        if let (true, Some(h1)) = (lockstep, &h1) {
            // Where steps wait for other threads, which threads share a dynamic block or a
            // barrier instance is state too: every other thread of the workgroup goes round
            // the same loop by as many iterations, or a loop apart from it (no loop holds
            // both: another arm of a branch, or a loop after this one, which the thread going
            // round this one never reaches while it does), has terminated, or stands still
            // outside that loop.
            let nest = |h: usize| &prog.cfg.blocks[h].loops;
            let apart = |a: usize, b: usize| !nest(a).iter().any(|l| nest(b).contains(l));
            let mut outside: HashMap<(usize, usize), Bool> = HashMap::new();
            for (t, header, k, sel) in &shifts {
                let wg = lay.workgroup_threads(lay.workgroup_of(*t as u32));
                for u in wg.map(|u| u as usize).filter(|u| u != t) {
                    budget.check("encoding the liveness lasso")?;
                    let along: Vec<Bool> = (shifts.iter())
                        .filter(|(v, hv, kv, _)| {
                            *v == u && ((hv == header && kv == k) || apart(*hv, *header))
                        })
                        .map(|s| s.3.clone())
                        .collect();
                    let away = outside
                        .entry((u, *header))
                        .or_insert_with(|| not(&self.inside_loop(u, *header, h1)))
                        .clone();
                    let ok = or(&[term[u].clone(), or(&along), and(&[&stills[u], &away])]);
                    self.assert(&implies(sel, &ok));
                }
            }
        }
        if writes {
            // Memory repeats the windows too.
            loop_conds.extend(self.repeated(&windows, budget)?);
        }
        if let Some(h1) = &h1 {
            // Memory comes back too.
            for g in 0..prog.globals.len() as u32 {
                for cell in 0..prog.globals[g as usize].len {
                    budget.check("encoding the liveness lasso")?;
                    let a = self.value_at(g, cell, h1);
                    let b = self.value_at(g, cell, &h);
                    loop_conds.push(eq(&a, &b));
                }
            }
        }
        let refs: Vec<&Bool> = loop_conds.iter().collect();
        let lasso_cond = and(&refs);
        let not_all_done = or(&term.iter().map(not).collect::<Vec<_>>());
        let hang = and(&[&not_all_done, &lasso_cond]);
        Ok(Statuses {
            horizon: h,
            start: h1,
            term,
            spin,
            blocked,
            started,
            spins_at,
            hang,
            bound_hit: {
                let none: Vec<Bool> = noops.iter().map(not).collect();
                let mut all: Vec<&Bool> = none.iter().collect();
                let any_cut = or(&cuts);
                all.push(&any_cut);
                and(&all)
            },
        })
    }

    /// Does block `b` hold a step of a symbolic class under `m` (Symb's subgroup ops)?
    fn symbolic_block(&self, m: &Model, b: BlockId) -> bool {
        (self.prog.blocks[b as usize].instrs.iter()).any(|i| crate::engine::symbolic(m, &i.op))
    }

    /// Symb's subgroup ops inside spin windows (docs/progress.md, "Symb's ops inside loops"). A
    /// window repeated for ever makes new instances of its ops, whose participants are the
    /// lanes that ever enter them.
    ///
    /// - Exact encoding (`limit_members`: an op counts the lanes that entered its block before
    ///   the horizon), searching for a hang that is one: no other lane of the subgroup has
    ///   entered an op block of the loop at this iteration or a later one (nobody is ahead, so
    ///   no instance the thread will make has a member it does not count), and every lane that
    ///   took part in an op of the window spins at the same header with the same period (it
    ///   takes part in every repetition, with the same arguments: the window's values recur).
    /// - Over-approximation (`free_symbolic`: any other lanes with any arguments), searching
    ///   for every hang so that none means `live`: only a lane that spins too takes part in
    ///   an instance the window makes for ever (one that terminated, blocks or is starved
    ///   moves finitely often, and of the window's infinitely many instances all but finitely
    ///   many come after it stopped; the reduction maps the lanes an infinite run moves
    ///   infinitely often to spinning ones). That keeps `while (!done) { rep =
    ///   subgroupBroadcastFirst(v); ... }` from spinning on a value only an absent lane gives.
    fn symbolic_windows(
        &self,
        m: &Model,
        ws: &[SymbWindow],
        spin: &[Bool],
        h: &Time,
    ) -> Result<(), Exhausted> {
        let prog = self.prog;
        let lay = prog.layout;
        let budget = &self.building;
        let entered = |u: usize, b: usize| and(&[&self.inb[u][b], &self.ts[u][b][0].lt(h)]);
        for w in ws {
            let t = w.thread;
            let others: Vec<usize> = (lay.subgroup_threads(lay.subgroup_of(t as u32)))
                .map(|u| u as usize)
                .filter(|&u| u != t)
                .collect();
            if self.free_symbolic {
                for &b in &w.blocks {
                    for pos in 1..=prog.blocks[b as usize].instrs.len() as u32 {
                        for (u, joins) in self.joins.get(&(t as u32, b, pos)).into_iter().flatten()
                        {
                            budget.check("encoding Symb's windows")?;
                            self.assert(&implies(&w.cond, &implies(joins, &spin[*u as usize])));
                        }
                    }
                }
                continue;
            }
            if !self.limit_members {
                continue;
            }
            let hb = &prog.blocks[w.header as usize];
            let loops = &prog.cfg.blocks[hb.sblock].loops;
            let (Some(&l), Some(&now)) = (loops.last(), hb.iters.last()) else {
                continue;
            };
            let d = hb.iters.len() - 1;
            for (b, block) in prog.blocks.iter().enumerate() {
                let ahead = prog.cfg.blocks[block.sblock].loops.get(d) == Some(&l)
                    && block.iters.len() > d
                    && block.iters[..d] == hb.iters[..d]
                    && block.iters[d] >= now;
                if !ahead || !self.symbolic_block(m, b as BlockId) {
                    continue;
                }
                for &u in &others {
                    budget.check("encoding Symb's windows")?;
                    if !is_false(&self.inb[u][b]) {
                        self.assert(&implies(&w.cond, &not(&entered(u, b))));
                    }
                }
            }
            for &u in &others {
                let along: Vec<Bool> = (ws.iter())
                    .filter(|v| v.thread == u && v.header == w.header && v.period == w.period)
                    .map(|v| v.cond.clone())
                    .collect();
                let along = or(&along);
                for &b in w.blocks.iter().filter(|&&b| self.symbolic_block(m, b)) {
                    budget.check("encoding Symb's windows")?;
                    if !is_false(&self.inb[u][b as usize]) {
                        let took_part = and(&[&w.cond, &entered(u, b as usize)]);
                        self.assert(&implies(&took_part, &along));
                    }
                }
            }
        }
        Ok(())
    }

    /// Thread `t` stands, at `x`, in a block of the loop headed by static block `header`: it
    /// entered the block (took the event before its label) and has not left it.
    fn inside_loop(&self, t: usize, header: usize, x: &Time) -> Bool {
        let prog = self.prog;
        let Some(&l) = prog.cfg.blocks[header].loops.last() else {
            return Bool::from_bool(false);
        };
        let mut cs = Vec::new();
        for (b, block) in prog.blocks.iter().enumerate() {
            if is_false(&self.inb[t][b]) || !prog.cfg.blocks[block.sblock].loops.contains(&l) {
                continue;
            }
            let last = &self.ts[t][b][block.instrs.len() + 1];
            cs.push(and(&[
                &self.inb[t][b],
                &self.prev_event(t, b as BlockId, 0).lt(x),
                &last.ge(x),
            ]));
        }
        or(&cs)
    }

    /// The value of cell `cell` of global `g` just before time `x`: the latest write before
    /// `x`, else the initial value.
    fn value_at(&self, g: u32, cell: u32, x: &Time) -> BV {
        let writes: Vec<&super::MemEv> = self
            .accesses_to(g, Some(cell))
            .into_iter()
            .map(|i| &self.mem[i])
            .filter(|w| w.write.is_some() && !is_false(&w.guard))
            .collect();
        let global = &self.prog.globals[g as usize];
        let init = super::memory::init_value(global, &bv(cell));
        if writes.is_empty() {
            return init;
        }
        let hits: Vec<Bool> = writes
            .iter()
            .map(|w| and(&[&w.guard, &eq(&w.index, &bv(cell)), &w.ts.lt(x)]))
            .collect();
        let v = BV::fresh_const("value_at", 32);
        let mut cs = Vec::new();
        for (i, w) in writes.iter().enumerate() {
            let later: Vec<Bool> = writes
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(j, o)| not(&and(&[&hits[j], &w.ts.lt(&o.ts)])))
                .collect();
            let mut all: Vec<&Bool> = later.iter().collect();
            all.push(&hits[i]);
            cs.push(implies(
                &and(&all),
                &eq(&v, w.write.as_ref().expect("a write")),
            ));
        }
        cs.push(implies(&not(&or(&hits)), &eq(&v, &init)));
        for c in cs {
            self.assert(&c);
        }
        v
    }

    /// The witness of a hang: the events before the horizon, the spinning threads' repeated
    /// iterations, and where each thread stands.
    fn hang_witness(
        &self,
        model: &z3::Model,
        m: &Model,
        st: &Statuses,
        status: &[ThreadStatus],
    ) -> SmtHang {
        let h = st.horizon.eval(model).unwrap_or(i64::MAX);
        if let Some(h1) = st.start.as_ref().and_then(|x| x.eval(model)) {
            // A lasso: the loop is everything from its start to the horizon.
            let prefix = self.decode_before(model, m, Some(h1));
            let cycle = self.decode_before(model, m, Some(h))[prefix.len()..].to_vec();
            let roles = self.roles(model, status, h1);
            return SmtHang {
                prefix,
                cycle,
                roles,
            };
        }
        let prefix = self.decode_before(model, m, Some(h));
        let mut cycle_blocks: Vec<(u32, Vec<BlockId>)> = Vec::new();
        for (t, opts) in st.spins_at.iter().enumerate() {
            if !status[t].moves {
                continue;
            }
            if let Some((_, bs)) = opts.iter().find(|(c, _)| model_bool(model, c)) {
                cycle_blocks.push((t as u32, bs.clone()));
            }
        }
        let cycle: Vec<Step> = prefix
            .iter()
            .filter(|s| {
                cycle_blocks
                    .iter()
                    .any(|(t, bs)| s.threads.contains(t) && bs.contains(&s.block))
            })
            .cloned()
            .collect();
        let roles = self.roles(model, status, h);
        SmtHang {
            prefix,
            cycle,
            roles,
        }
    }

    /// Each thread's role, and where it stands at time `h`.
    fn roles(
        &self,
        model: &z3::Model,
        status: &[ThreadStatus],
        h: i64,
    ) -> Vec<(SmtRole, Option<(BlockId, u32)>)> {
        status
            .iter()
            .enumerate()
            .map(|(t, s)| {
                let role = if s.terminated {
                    SmtRole::Terminated
                } else if s.moves {
                    SmtRole::Spins
                } else if s.blocked {
                    SmtRole::Blocked
                } else {
                    SmtRole::Starved
                };
                let at = (!s.terminated)
                    .then(|| self.next_event(model, t, h))
                    .flatten();
                (role, at)
            })
            .collect()
    }

    /// The first event of thread `t` at or after time `h` in `model`.
    fn next_event(&self, model: &z3::Model, t: usize, h: i64) -> Option<(BlockId, u32)> {
        let mut best: Option<(i64, BlockId, u32)> = None;
        for (b, times) in self.ts[t].iter().enumerate() {
            if !model_bool(model, &self.inb[t][b]) {
                continue;
            }
            for (pos, ts) in times.iter().enumerate() {
                let v = ts.eval(model).unwrap_or(i64::MIN);
                if v >= h && best.is_none_or(|(bv, _, _)| v < bv) {
                    best = Some((v, b as BlockId, pos as u32));
                }
            }
        }
        best.map(|(_, b, p)| (b, p))
    }
}

/// `a <=> b`.
fn eq_bool(a: &Bool, b: &Bool) -> Bool {
    a.eq(b)
}

/// Most vectors of statuses [`rejection_core`] puts to the progress model for one candidate.
const MAX_GENERALISATION: usize = 1 << 16;

/// One of the 16 values of a thread's status variables as the candidate loop reads them
/// (`waits` is `blocked`), by its bits.
fn status_of(k: usize) -> ThreadStatus {
    ThreadStatus {
        terminated: k & 1 != 0,
        started: k & 2 != 0,
        blocked: k & 4 != 0,
        waits: k & 4 != 0,
        moves: k & 8 != 0,
    }
}

/// The threads a rejected vector of statuses must keep for every vector agreeing with it on
/// them to be rejected too: a thread is let go when `rejected` holds for each of the 16
/// values of its four status variables, together with every value of the threads already
/// let go (all combinations tried, up to [`MAX_GENERALISATION`] of them). Waiting threads are
/// tried first, then terminated ones, the highest ids first.
fn rejection_core(
    status: &[ThreadStatus],
    rejected: &dyn Fn(&[ThreadStatus]) -> bool,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..status.len()).collect();
    order.sort_by_key(|&t| {
        (
            !status[t].blocked,
            !status[t].terminated,
            std::cmp::Reverse(t),
        )
    });
    let mut free: Vec<usize> = Vec::new();
    for t in order {
        let trial: Vec<usize> = free.iter().copied().chain([t]).collect();
        let Some(count) = 16usize.checked_pow(trial.len() as u32) else {
            break;
        };
        if count > MAX_GENERALISATION {
            break;
        }
        let mut v = status.to_vec();
        let all_rejected = (0..count).all(|code| {
            for (i, &u) in trial.iter().enumerate() {
                v[u] = status_of((code >> (4 * i)) & 15);
            }
            rejected(&v)
        });
        if all_rejected {
            free.push(t);
        }
    }
    (0..status.len()).filter(|t| !free.contains(t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Layout;

    /// Sound: every vector that agrees with a rejected one on its core is rejected too,
    /// checked over all vectors of three threads, for every bundled progress model and three
    /// placements. And useful: a core is often smaller than the whole vector.
    #[test]
    fn a_rejection_core_never_rules_out_a_fair_vector() {
        let value = status_of;
        let mut shrunk = 0;
        for (subgroup, workgroup) in [(1, 3), (3, 3), (1, 1)] {
            let lay = Layout {
                threads: 3,
                subgroup,
                workgroup,
                queue_family: 3,
            };
            for name in crate::progress::bundled().keys() {
                let p = Progress::parse(name).unwrap();
                let rejected = |v: &[ThreadStatus]| {
                    v.iter().all(|s| s.terminated)
                        || p.fair(&|r, d| lay.scope_members(r, d), v).is_none()
                };
                for code in (0..16 * 16 * 16).step_by(7) {
                    let v: Vec<ThreadStatus> =
                        (0..3).map(|t| value((code >> (4 * t)) & 15)).collect();
                    if !rejected(&v) {
                        continue;
                    }
                    let core = rejection_core(&v, &rejected);
                    shrunk += usize::from(core.len() < 3);
                    for other in 0..16 * 16 * 16 {
                        let w: Vec<ThreadStatus> = (0..3)
                            .map(|t| {
                                if core.contains(&t) {
                                    v[t]
                                } else {
                                    value((other >> (4 * t)) & 15)
                                }
                            })
                            .collect();
                        assert!(rejected(&w), "{name}: core {core:?} of {v:?} admits {w:?}");
                    }
                }
            }
        }
        assert!(shrunk > 100, "only {shrunk} cores smaller than the vector");
    }
}
