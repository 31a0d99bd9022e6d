//! The explicit-state explorer: every interleaving of docs/semantics.md §2-§6, like TLC.
//!
//! States are hashed, so each is expanded once; the visited set keeps a parent pointer and the
//! steps taken, which is all a witness trace needs. Steps that no other thread can observe
//! (local arithmetic, independent labels and branches, a lazy op's issue, a lazy result's
//! resolution) are taken eagerly: they commute with everything and only ever enable other
//! steps, so exploring their interleavings adds states but no outcomes.
//!
//! The explorer runs every class except `symbolic`, which has no step-by-step meaning; it says
//! so with [`ExploreError::Symbolic`].

use super::trace::{At, Effect, Step};
use crate::budget::Budget;
use crate::eval::{self, Choices, Concrete, Mv, SgInputs, UbKind, Unspecified};
use crate::ir::cfg::Role;
use crate::ir::Term;
use crate::ir::{BlockId, Expr, Op, Program, RegId, Target};
use crate::memory::{self, Access, Judgement, MemoryModel, What, Window};
use crate::model::Model;
use crate::progress::ThreadStatus;
use crate::vocab::{Class, Kind, Members};
use indexmap::IndexMap;
use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::BuildHasherDefault;
use std::sync::Arc;

/// Bytes the visited set may use, whatever `max_states` says (the 2 GiB target, with room for
/// the rest of the process).
const MEMORY_BUDGET: usize = 1536 << 20;

/// The budget of states created when none is given (the states kept are also capped by what
/// `MEMORY_BUDGET` holds, at about 2.3 KiB a state).
pub const DEFAULT_MAX_STATES: usize = 800_000;

/// Options for one exploration.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Stop (verdict `unknown`) after creating this many states. Every state created counts,
    /// including successors never kept (duplicates) and each order of a collective atomic.
    pub max_states: usize,
    /// Time and memory: checked before each expansion.
    pub budget: Budget,
    /// A relaxed memory model (cat); `None`: sequentially consistent memory.
    pub memory: Option<Arc<MemoryModel>>,
    /// Keep the whole state graph for the liveness question ([`Exploration::graph`]): every
    /// edge, which threads could move, and each state's place modulo loop iterations.
    pub liveness: bool,
    /// Under a relaxed memory model: open reads and workgroups one at a time
    /// (docs/memory-models.md), which change no answer; `false` explores every interleaving
    /// with every guess (to check that they do not).
    pub shortcuts: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            max_states: DEFAULT_MAX_STATES,
            budget: Budget::default(),
            memory: None,
            liveness: false,
            shortcuts: true,
        }
    }
}

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ExploreError {
    #[error("model {0} gives subgroup ops the symbolic class, which the explorer cannot enumerate (values may justify themselves); use the SMT engine (--engine smt)")]
    Symbolic(String),
}

/// A reference to a visited state (its index in the visited set).
pub type StateRef = u32;

/// An execution that ended without an outcome: undefined behaviour, a cut, or a deadlock.
#[derive(Clone, Debug)]
pub struct DeadEnd {
    /// The last state before the failing step.
    pub state: StateRef,
    /// The failing step (threads, block, what was attempted).
    pub step: Step,
}

/// Everything one exploration found.
#[derive(Debug)]
pub struct Exploration {
    /// Each reachable outcome (values of the condition's observables, in order) with the
    /// final state of one execution reaching it.
    pub outcomes: BTreeMap<Vec<u32>, StateRef>,
    /// Each kind of undefined behaviour reached, with a witness.
    pub ub: BTreeMap<UbKind, DeadEnd>,
    /// An execution cut by the loop bound, if any.
    pub cut: Option<DeadEnd>,
    /// A reachable state where nothing can move though some thread has not terminated (the
    /// semantics should make this impossible outside barrier divergence; reported, not hidden).
    pub stuck: Option<StateRef>,
    /// A complete execution (its final state) in which a subgroup op read an unspecified value
    /// (a shuffle from a non-participating or out-of-range lane); the explorer then tried only
    /// a finite set of values, so a `forbidden` could be wrong.
    pub unspecified_read: Option<StateRef>,
    /// The finite set of values tried for unspecified reads.
    pub unspecified_domain: Vec<u32>,
    /// Distinct states visited.
    pub states: usize,
    /// True when `max_states` or the budget stopped the search early.
    pub limit_hit: bool,
    /// A search of the unrolled program that stopped early (not liveness, SC memory): how
    /// many places ([`StateGraph`]'s: states up to loop iterations) the first states it found
    /// fall into, and how many states those were. Far fewer places than states say that a
    /// search of the places may fit where this one did not (`query`'s safety past the state
    /// limit).
    pub places_at_limit: Option<(usize, usize)>,
    /// Why the search stopped early, in words.
    pub stopped: Option<String>,
    /// Flags the memory model raised on some consistent execution (`data-race`), with a
    /// final state that raised each.
    pub flags: BTreeMap<String, StateRef>,
    /// Hashed with FxHash: every state is hashed once or twice per step, and SipHash was the
    /// explorer's largest cost (docs/benchmarks.md, "SC memory against the commit before
    /// memory models"); nothing here is adversarial input needing a keyed hash.
    visited: IndexMap<State, (StateRef, Vec<Step>), BuildHasherDefault<rustc_hash::FxHasher>>,
    /// Relaxed memory: for each outcome, the execution (reads-from, coherence) of the
    /// candidate its witness run was judged with.
    pub executions: BTreeMap<Vec<u32>, memory::Execution>,
    /// Relaxed memory: for each axiom that alone rules out a candidate reaching the
    /// condition, such a candidate's execution (the reason a forbidden condition is), among
    /// the runs without open reads ([`Exploration::forbidden_reasons`] adds the others).
    forbidden_by: BTreeMap<String, memory::Execution>,
    /// Relaxed memory: finished runs with open reads, whose near misses were not searched.
    unexplained: Vec<StateRef>,
    /// Values written by any run (relaxed memory: the next round's guesses).
    written: BTreeSet<u32>,
    /// Workgroups one at a time ([`Shortcuts::workgroups`]): values of writes that read unsourced
    /// values in the order explored, and what else made the order matter.
    unsourced: BTreeSet<u32>,
    order_doubt: Option<String>,
    /// A run with open reads had too many candidates: guessing may do better.
    open_too_many: bool,
    /// Relaxed memory: the values the open reads of a witness's run returned in the
    /// candidate it was judged with ([`Exploration::witness`]).
    open: BTreeMap<Witness, Vec<u32>>,
    /// With [`ExploreOptions::liveness`]: the state graph.
    pub graph: Option<StateGraph>,
    /// Liveness under a memory model: the states where the run may stop for good (a thread
    /// spins, or nothing can move), with each thread's status there. `engine::lasso` asks the
    /// progress model and the memory model which of them are hangs.
    pub stops: Vec<(StateRef, Vec<ThreadStatus>)>,
    /// The memory model the exploration ran under, if not SC.
    memory: Option<Arc<MemoryModel>>,
}

/// Most choices of window lengths a stop is judged with ([`Exploration::stop_consistent`]).
const MAX_WINDOW_CHOICES: usize = 64;

/// A stop's events per thread and the windows each may repeat, shortest first (opaque
/// outside the explorer).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StopKey(Vec<Vec<Access>>, Vec<Vec<Window>>);

/// The explored state graph, kept for the liveness question (`engine::lasso`).
///
/// States are also grouped into *places*: two states share a place when they differ only in
/// the absolute iteration counts of the loops their threads are in (same static blocks and
/// positions, registers, memory, and the same iteration offsets between threads). Places are
/// what lets a finite unrolling show an infinite run: a path from a state to another of its
/// place can be repeated forever.
#[derive(Debug, Default)]
pub struct StateGraph {
    /// Per state: its place.
    pub place: Vec<u32>,
    /// Per state: each successor, with the threads that moved on the way (the visible step
    /// and the invisible steps taken after it) and the steps.
    pub edges: Vec<Vec<GraphEdge>>,
    /// Per state: the threads that had a step (including one the loop bound cut).
    pub enabled: Vec<Vec<u32>>,
    /// Per state: some step from it was cut by the loop bound.
    pub cut: Vec<bool>,
    /// Per state: its successors were computed.
    pub expanded: Vec<bool>,
    /// Per state: undefined behaviour is what ends it (no outcome, not a hang).
    pub ub: Vec<bool>,
    /// Per state: per thread, (terminated, has taken a visible step).
    pub threads: Vec<Vec<(bool, bool)>>,
}

/// One edge of the [`StateGraph`].
#[derive(Clone, Debug)]
pub struct GraphEdge {
    pub to: StateRef,
    /// Threads that moved, sorted.
    pub moved: Vec<u32>,
    pub steps: Vec<Step>,
}

/// Which witness of an [`Exploration`] a trace is asked for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Witness {
    /// The run reaching this outcome ([`Exploration::outcomes`]).
    Outcome(Vec<u32>),
    /// The run raising this flag ([`Exploration::flags`]).
    Flag(String),
}

impl Exploration {
    /// The trace of a witness run: the steps to its final state, with each open read showing
    /// the value it returned in the candidate the run was judged with.
    pub fn witness(&self, w: &Witness) -> Option<Vec<Step>> {
        let s = match w {
            Witness::Outcome(values) => *self.outcomes.get(values)?,
            Witness::Flag(name) => *self.flags.get(name)?,
        };
        let mut trace = self.trace_to(s);
        let Some(open) = self.open.get(w) else {
            return Some(trace);
        };
        let (state, _) = self.visited.get_index(s as usize)?;
        // Each thread's open reads, in program order, as the trace meets them.
        let mut per_thread: Vec<_> = (open_values(state, open).into_iter())
            .map(|got| got.into_values())
            .collect();
        for e in trace.iter_mut().flat_map(|st| st.effects.iter_mut()) {
            if let Effect::Read {
                thread,
                value,
                open: open @ true,
                ..
            } = e
            {
                if let Some(v) = per_thread[*thread as usize].next() {
                    *value = v;
                    *open = false;
                }
            }
        }
        Some(trace)
    }

    /// Relaxed memory: each axiom that alone rules out a candidate reaching the condition,
    /// with such a candidate's execution; the near misses of runs with open reads are
    /// searched now. `true` with them when that search stopped somewhere (at its cap, or the
    /// budget's end): the list may then lack an axiom.
    pub fn forbidden_reasons(
        &self,
        prog: &Program,
        budget: &Budget,
    ) -> (BTreeMap<String, memory::Execution>, bool) {
        let mut out = self.forbidden_by.clone();
        let mut cut = false;
        let Some(mm) = &self.memory else {
            return (out, cut);
        };
        let init = prog.initial_memory();
        for &s in &self.unexplained {
            let (state, _) = self.visited.get_index(s as usize).expect("valid ref");
            let values = |fin: &memory::Final| observed(prog, &finish(state, fin)).0;
            let keep =
                |fin: &memory::Final| prog.filter.is_none() || prog.passes_filter(&values(fin));
            match memory::execution::near_misses(prog, mm, &state.runs(), &init, budget, &keep) {
                Ok(j) => {
                    cut |= j.near_misses_cut || j.too_many || j.exhausted.is_some();
                    for ((fin, axiom), e) in j.near_misses {
                        if prog.prop.eval(&values(&fin)) {
                            out.entry(axiom).or_insert(e);
                        }
                    }
                }
                Err(_) => cut = true,
            }
        }
        (out, cut)
    }

    /// The steps from the initial state to `s`.
    pub fn trace_to(&self, s: StateRef) -> Vec<Step> {
        let mut chunks = Vec::new();
        let mut cur = s;
        loop {
            let (_, (parent, steps)) = self.visited.get_index(cur as usize).expect("valid ref");
            chunks.push(steps.clone());
            if cur == 0 {
                break;
            }
            cur = *parent;
        }
        chunks.into_iter().rev().flatten().collect()
    }

    /// Where thread `t` stands in state `s`: its block and next step (`None` once it has
    /// terminated).
    pub fn position(&self, s: StateRef, t: u32) -> Option<(BlockId, u32)> {
        let (state, _) = self.visited.get_index(s as usize)?;
        let th = state.threads.get(t as usize)?;
        (!th.done).then_some((th.block, th.pc))
    }

    /// Liveness under a memory model: can the run that stops in state `s` stop there for
    /// good? Its events must make a consistent execution in which the reads of each spinning
    /// thread's repeated iterations read coherence-maximal writes
    /// ([`memory::hang_consistent`]). `Ok(None)`: too many candidates, or the budget ran out.
    pub fn stop_consistent(
        &self,
        prog: &Program,
        s: StateRef,
        budget: &Budget,
    ) -> Result<Option<bool>, String> {
        let Some(mm) = &self.memory else {
            return Err("the exploration ran under SC memory".into());
        };
        let StopKey(runs, choices) = self.stop_key(s);
        let runs: Vec<&[Access]> = runs.iter().map(Vec::as_slice).collect();
        let init = prog.initial_memory();
        // A thread whose iterations all make the same accesses repeats windows of one, two,
        // ... iterations; a lasso needs the lengths that keep pace with the other threads'
        // (one exchange of a thread for each of another's). Every choice is tried, the
        // shortest first.
        let mut all: Vec<Vec<Window>> = vec![Vec::new()];
        for options in &choices {
            all = (all.into_iter())
                .flat_map(|w| {
                    options.iter().map(move |o| {
                        let mut w = w.clone();
                        w.push(*o);
                        w
                    })
                })
                .collect();
        }
        let span = |w: &Window| match w {
            Window::Writes { from, mid } => mid - from,
            _ => 0,
        };
        all.sort_by_key(|ws| ws.iter().map(span).sum::<usize>());
        // Each choice is a judgement of its own: beyond a few dozen, the rest is a doubt.
        let mut doubt = all.len() > MAX_WINDOW_CHOICES;
        all.truncate(MAX_WINDOW_CHOICES);
        for windows in all {
            tracing::debug!(?windows, events = self.events_at(s), "judging a stop");
            match memory::hang_consistent(prog, mm, &runs, &init, budget, &windows)
                .map_err(|e| format!("memory model: {e}"))?
            {
                Some(true) => return Ok(Some(true)),
                Some(false) => {}
                None => doubt = true,
            }
        }
        Ok((!doubt).then_some(false))
    }

    /// What [`Exploration::stop_consistent`] judges of state `s`: two stops with equal keys
    /// (the same events per thread, reached by different interleavings) get one answer.
    pub fn stop_key(&self, s: StateRef) -> StopKey {
        let (state, _) = self.visited.get_index(s as usize).expect("valid ref");
        let windows: Vec<Vec<Window>> = (state.threads.iter())
            .map(|t| match (t.spin_from, t.repeating()) {
                (Some((from, _)), _) => vec![Window::Reads(from as usize)],
                (None, Some(_)) => (t.repeat.iter().flat_map(|r| &r.windows))
                    .map(|&(from, mid)| Window::Writes {
                        from: from as usize,
                        mid: mid as usize,
                    })
                    .collect(),
                _ => vec![Window::None],
            })
            .collect();
        StopKey(
            state.runs().into_iter().map(<[Access]>::to_vec).collect(),
            windows,
        )
    }

    /// Under a memory model: how many events the run to state `s` recorded.
    pub fn events_at(&self, s: StateRef) -> usize {
        self.visited.get_index(s as usize).map_or(0, |(state, _)| {
            state.threads.iter().map(|t| t.events.len()).sum()
        })
    }

    /// Liveness under a memory model: where thread `t` spins in state `s`, if it does: the
    /// index of its first event in the iterations it repeats, and the loop header they
    /// start from.
    pub fn spin_at(&self, s: StateRef, t: u32) -> Option<(u32, BlockId)> {
        let (state, _) = self.visited.get_index(s as usize)?;
        let th = state.threads.get(t as usize)?;
        th.spin_from
            .or_else(|| th.repeating().map(|(_, mid, header)| (mid, header)))
    }

    /// The full trace of a dead end: the steps to its state, then the failing step.
    pub fn trace_of(&self, d: &DeadEnd) -> Vec<Step> {
        let mut t = self.trace_to(d.state);
        t.push(d.step.clone());
        t
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Thread {
    block: BlockId,
    /// 0: at the label; 1..=n: before instruction pc-1; n+1: at the terminator.
    pc: u32,
    done: bool,
    regs: Vec<u32>,
    /// Registers holding an unspecified value (sorted; see [`Mv`]).
    unspec: Vec<RegId>,
    /// Registers waiting for a lazy result: (register, lazy instance).
    pending: Vec<(RegId, LazyKey)>,
    /// Under a relaxed memory model: registers holding an open read's value, which the
    /// candidate execution gives (register, index of the read in `events`).
    open: Vec<(RegId, u32)>,
    /// Under a relaxed memory model: the events this thread performed, in program order.
    events: Vec<Access>,
    /// Liveness only: the thread has taken a visible step (progress models that guarantee
    /// only started threads read this).
    started: bool,
    /// Liveness under a memory model: its last loop-header entries (header, registers, events
    /// so far), at most [`super::MAX_SPIN_PERIOD`] of them.
    entries: Vec<(BlockId, Vec<u32>, u32)>,
    /// Liveness under a memory model: it came back to a header as it entered it some
    /// iterations before, writing nothing on the way, so it may repeat those iterations
    /// forever; it takes no more steps. The index of the first event of those iterations,
    /// and the header they start from.
    spin_from: Option<(u32, BlockId)>,
    /// Liveness under a memory model: it came back to a header as it entered it twice before,
    /// the same accesses (which write) between each of the three entries: where the windows
    /// (the earlier, the infix; the later, the suffix) begin, for every such pair (they end
    /// where it stands while it records no other event). It goes on (the windows may not
    /// repeat).
    repeat: Option<Repeat>,
    /// Safety only: the instances of partly idle loops it entered, and how each went
    /// (docs/progress.md, "Idle iterations").
    rounds: Vec<Round>,
}

/// A thread in one instance of a partly idle loop ([`Program::partly_idle_loop`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Round {
    /// The header of the instance's first iteration.
    first: BlockId,
    /// Iterations it began.
    began: u32,
    /// Bit k: iteration k was busy (it ran a busy block or left the loop). Iterations past
    /// the 64th count as busy.
    busy: u64,
    /// It has not left the loop.
    inside: bool,
}

impl Round {
    fn mark_busy(&mut self) {
        if let Some(bit) = 1u64.checked_shl(self.began - 1) {
            self.busy |= bit;
        }
    }

    /// Did it run iteration `k` as an idle one, going round? `None` while that is not
    /// known: it has not finished that iteration, or not begun it and may still.
    fn idle(&self, k: u32) -> Option<bool> {
        if k >= 64 {
            return None;
        }
        if self.began <= k {
            // Not begun: it never will once it has left.
            return (!self.inside).then_some(true);
        }
        if self.busy >> k & 1 == 1 {
            return Some(false);
        }
        (k + 1 < self.began).then_some(true)
    }
}

impl Thread {
    /// Liveness under a memory model: the windows of writes it may repeat, standing where
    /// they end (infix start, suffix start, the header the suffix starts from).
    fn repeating(&self) -> Option<(u32, u32, BlockId)> {
        let r = self.repeat.as_ref()?;
        let &(from, mid) = r.windows.first()?;
        (self.events.len() as u32 == r.now).then_some((from, mid, r.header))
    }
}

/// Where a thread may repeat windows of writes (`Thread::repeat`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Repeat {
    /// Every pair of windows (first event of the infix, of the suffix), shortest first.
    windows: Vec<(u32, u32)>,
    /// The header the shortest suffix starts from.
    header: BlockId,
    /// The thread's events then.
    now: u32,
}

/// A lazy op instance: (subgroup, block, instruction index).
type LazyKey = (u32, BlockId, u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct LazyInst {
    key: LazyKey,
    /// Lanes that executed the op, with their arguments.
    issued: Vec<(u32, Vec<Mv>)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    threads: Vec<Thread>,
    mem: Vec<u32>,
    /// Cells holding an unspecified value (sorted).
    mem_unspec: Vec<u32>,
    /// Dynamic blocks (subgroup, block) where a speculative op fired while some thread was
    /// undecided: nobody may join them any more.
    sealed: Vec<(u32, BlockId)>,
    lazy: Vec<LazyInst>,
    /// Some subgroup op read an unspecified value (sampled from a finite set) on the way here.
    unspecified: bool,
    /// Steps that recorded events so far, when the memory model reads `sched`.
    step: u32,
    /// Quorum barriers (workgroup, name) that have opened (sorted).
    opened: Vec<(u32, u32)>,
}

impl State {
    /// Under a relaxed memory model: each thread's events so far, as the model judges them.
    fn runs(&self) -> Vec<&[Access]> {
        self.threads.iter().map(|t| t.events.as_slice()).collect()
    }
}

/// What a transition attempt produced.
enum Outcome {
    Next(State, Vec<Step>),
    /// A run that cannot go on; under a relaxed memory model, when eager steps led to it from
    /// the state it is a successor of, the events its threads performed by then.
    Dead(DeadKind, Step, Option<Vec<Vec<Access>>>),
    /// Failed speculation, or going round an idle loop that no run needs
    /// ([`Program::idle_back_edge`]): not an execution to record.
    Pruned,
}

enum DeadKind {
    Ub(UbKind),
    /// The loop bound's cut; `idle` when it hides no outcome ([`Program::idle_cut`]): the
    /// run is then dropped as unfinished, not recorded as a doubt.
    Cut {
        idle: bool,
    },
}

/// What the next step of a thread is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pos {
    Label,
    Instr(u32),
    Term,
}

impl Pos {
    /// The trace's name for this position.
    fn at(self) -> At {
        match self {
            Pos::Label => At::Label,
            Pos::Instr(i) => At::Instr(i),
            Pos::Term => At::Term,
        }
    }
}

struct Explorer<'p> {
    prog: &'p Program,
    model: &'p Model,
    domain: Vec<u32>,
    unspecified_read: Option<u32>,
    /// States created so far (kept or not), against `max_states`.
    created: usize,
    max_states: usize,
    mode: Unspecified,
    /// In [`Unspecified::Mark`] mode: a marked value reached a branch, an address, a divisor
    /// or the condition, so the exploration must be redone by sampling.
    mattered: Cell<bool>,
    /// Under a relaxed memory model: the model and the values a read may return.
    relaxed: Option<(&'p MemoryModel, Vec<u32>)>,
    /// Under a relaxed memory model: every value a write performed, in any run, complete or
    /// not (the next round's guesses).
    written: std::cell::RefCell<BTreeSet<u32>>,
    /// Liveness: loop edges are visible steps and threads record that they started.
    liveness: bool,
    /// Under a relaxed memory model: the shortcuts taken ([`Shortcuts`]).
    short: Shortcuts,
    /// Under [`Shortcuts::workgroups`], something the order of workgroups could change was met
    /// (a dead end the memory model ruled out in this order, or a write whose value this
    /// order left unsourced): the round is redone with every interleaving.
    doubt: std::cell::RefCell<Option<String>>,
    /// Under [`Shortcuts::workgroups`]: values of writes not added to `written` because some read
    /// before them had no source yet in the order explored.
    unsourced: std::cell::RefCell<BTreeSet<u32>>,
    /// Liveness under a memory model: a thread that comes back to a loop header as it was,
    /// having written nothing, spins there and stops ([`Thread::spin_from`]).
    spin_reduction: bool,
    /// The analysis's budget (`ExploreOptions::budget`), for judgements made inside a step.
    budget: Budget,
    /// Idle-loop back edges taken beyond what outcomes need
    /// ([`Program::idle_back_edge`]): 1 under a memory model with flags.
    flag_rounds: u32,
    /// Per static loop: may two threads be at any distance in it without it mattering
    /// ([`loose_loops`]); for two threads of one subgroup, and of different subgroups.
    loose: Vec<[bool; 2]>,
}

/// Per static loop, whether the iteration offset between two threads inside it can matter,
/// for two threads of one subgroup (`[0]`) and of different subgroups (`[1]`); `true`: it
/// cannot, and places ([`StateGraph`]) forget it.
///
/// Within a subgroup, which iteration a thread is in decides which dynamic block it is in,
/// and that matters only to steps that are not taken alone: subgroup ops and barriers in the
/// loop, or labels, branches and memory steps of a class that groups or synchronises. When
/// the loop holds none, a thread's steps in it never wait for and never join another's, and
/// the threads after the loop see it undecided at any iteration alike. Across subgroups only
/// a workgroup barrier in the loop relates iterations (quorum barriers meet by name).
fn loose_loops(prog: &Program, model: &Model) -> Vec<[bool; 2]> {
    let alone = [Kind::Label, Kind::Branch, Kind::Memory]
        .iter()
        .all(|&k| model.rule(k).members == Members::Alone);
    let mut loose = vec![[alone, true]; prog.cfg.loops.len()];
    for b in &prog.cfg.blocks {
        for ins in &b.instrs {
            let (in_sg, across) = match ins.op {
                Op::WorkgroupBarrier => (true, true),
                Op::SgOp { .. } | Op::SubgroupBarrier | Op::QuorumBarrier { .. } => (true, false),
                _ => (false, false),
            };
            for &l in &b.loops {
                loose[l][0] &= !in_sg;
                loose[l][1] &= !across;
            }
        }
    }
    loose
}

/// Most states whose places [`Exploration::places_at_limit`] counts.
const PLACES_SAMPLE: usize = 1024;

/// Explores every execution of `prog` under `model`.
///
/// Unspecified values (docs/semantics.md §5) are first carried as marked representatives: exact
/// when no marked value decides anything, which is the common case (a Kogge-Stone scan's
/// out-of-range shuffles are discarded by the lanes that read them). If one does decide
/// something, the exploration is redone with values sampled from a finite set, and a complete
/// execution that sampled makes the verdict `unknown` (the sample may miss a value).
pub fn explore(
    prog: &Program,
    model: &Model,
    opts: &ExploreOptions,
) -> Result<Exploration, ExploreError> {
    // Symbolic values may justify themselves, which no enumeration finds; a program without
    // subgroup ops never meets the class, and runs under Symb as under SSO.
    if model.class(Kind::Sgop) == Class::Symbolic && prog.has_kind(Kind::Sgop) {
        return Err(ExploreError::Symbolic(model.name.clone()));
    }
    if let Some(mm) = &opts.memory {
        let mut r = explore_relaxed(prog, model, opts, mm);
        r.memory = Some(mm.clone());
        return Ok(r);
    }
    let (marked, mattered) = explore_with(
        prog,
        model,
        opts,
        Unspecified::Mark,
        None,
        Shortcuts::default(),
    );
    if !mattered {
        return Ok(marked);
    }
    Ok(explore_with(
        prog,
        model,
        opts,
        Unspecified::Sample,
        None,
        Shortcuts::default(),
    )
    .0)
}

/// Under a relaxed memory model reads return guessed values: first the initial values and 0,
/// then, until nothing new appears, every value a write performed in some run (complete or
/// not) whose reads returned guessed values. Values that only a value cycle could produce
/// (thin air) are never guessed, as in herd.
fn explore_relaxed(
    prog: &Program,
    model: &Model,
    opts: &ExploreOptions,
    mm: &MemoryModel,
) -> Exploration {
    let mut values: BTreeSet<u32> = prog.initial_memory().into_iter().collect();
    values.insert(0);
    // Not for a hang (a lasso needs every interleaving, and its witness every read's value);
    // workgroups one at a time only when the model does not read the schedule. Each is given
    // up for good once it may cost an answer, and the round explored again.
    let mut short = Shortcuts {
        workgroups: opts.shortcuts
            && !opts.liveness
            && !mm.uses_sched
            && prog.layout.threads > prog.layout.workgroup,
        open_reads: opts.shortcuts && !opts.liveness,
    };
    for round in 0.. {
        let explore = |short| {
            let guesses = values.iter().copied().collect();
            explore_with(
                prog,
                model,
                opts,
                Unspecified::Sample,
                Some((mm, guesses)),
                short,
            )
            .0
        };
        let mut r = explore(short);
        loop {
            if short.open_reads && r.open_too_many {
                tracing::debug!(round, "open reads: too many candidates; guessing");
                short.open_reads = false;
            } else if short.workgroups && !r.limit_hit {
                // A write left unsourced in this order may be sourced in another: its value
                // must be guessed anyway, or come from elsewhere.
                let missed =
                    (r.unsourced.iter()).any(|v| !values.contains(v) && !r.written.contains(v));
                if !missed && r.order_doubt.is_none() {
                    break;
                }
                tracing::debug!(round, doubt = ?r.order_doubt, missed, "every interleaving");
                short.workgroups = false;
            } else {
                break;
            }
            r = explore(short);
        }
        let written = r.written.clone();
        let before = values.len();
        values.extend(written);
        if values.len() == before || r.limit_hit {
            return r;
        }
        if round >= 16 {
            r.limit_hit = true;
            r.stopped = Some("the values written kept growing (16 rounds of read guesses)".into());
            return r;
        }
    }
    unreachable!("the loop returns")
}

/// Under a relaxed memory model, the two ways the explorer avoids runs that differ in nothing
/// the model or the question sees; each is given up when it may cost an answer.
#[derive(Clone, Copy, Default)]
struct Shortcuts {
    /// Under a relaxed memory model that does not read the schedule, outside liveness: only
    /// one workgroup's steps are taken from each state (docs/memory-models.md, "Workgroups
    /// one at a time"). Threads of different workgroups then share nothing: memory holds no
    /// state (reads guess), and collective steps and barriers stay inside a workgroup. So
    /// their steps commute and neither enables nor disables the other's, and the steps of
    /// one workgroup form a persistent set: every finished run (and every run stuck for
    /// good) is reached, in the order "lowest workgroup first".
    workgroups: bool,
    /// Under a relaxed memory model, outside liveness: open reads
    /// ([`crate::ir::Deps::read_open`]) guess nothing; each candidate gives their values.
    open_reads: bool,
}

/// One exploration, with the `shortcuts` given (under SC: none).
fn explore_with<'p>(
    prog: &'p Program,
    model: &'p Model,
    opts: &ExploreOptions,
    mode: Unspecified,
    relaxed: Option<(&'p MemoryModel, Vec<u32>)>,
    shortcuts: Shortcuts,
) -> (Exploration, bool) {
    let flag_rounds = relaxed.as_ref().is_some_and(|(m, _)| m.cat.has_flags()) as u32;
    let spin_reduction = opts.liveness && relaxed.is_some();
    let mut ex = Explorer {
        relaxed,
        prog,
        model,
        domain: unspecified_domain(prog),
        unspecified_read: None,
        created: 0,
        max_states: opts.max_states,
        mode,
        mattered: Cell::new(false),
        written: Default::default(),
        short: shortcuts,
        doubt: Default::default(),
        unsourced: Default::default(),
        liveness: opts.liveness,
        spin_reduction,
        budget: opts.budget.clone(),
        loose: loose_loops(prog, model),
        flag_rounds,
    };
    let init = State {
        threads: (0..prog.layout.threads)
            .map(|_| Thread {
                block: prog.entry,
                pc: 0,
                done: false,
                regs: vec![0; prog.regs.len()],
                unspec: Vec::new(),
                pending: Vec::new(),
                open: Vec::new(),
                events: Vec::new(),
                started: false,
                entries: Vec::new(),
                spin_from: None,
                repeat: None,
                rounds: Vec::new(),
            })
            .collect(),
        mem: prog.initial_memory(),
        mem_unspec: Vec::new(),
        sealed: Vec::new(),
        opened: Vec::new(),
        lazy: Vec::new(),
        unspecified: false,
        step: 0,
    };
    let mut result = Exploration {
        outcomes: BTreeMap::new(),
        ub: BTreeMap::new(),
        cut: None,
        stuck: None,
        unspecified_read: None,
        unspecified_domain: ex.domain.clone(),
        states: 0,
        limit_hit: false,
        places_at_limit: None,
        stopped: None,
        visited: IndexMap::default(),
        flags: BTreeMap::new(),
        written: BTreeSet::new(),
        unsourced: BTreeSet::new(),
        order_doubt: None,
        open_too_many: false,
        open: BTreeMap::new(),
        forbidden_by: BTreeMap::new(),
        unexplained: Vec::new(),
        executions: BTreeMap::new(),
        graph: None,
        stops: Vec::new(),
        memory: None,
    };
    // Under a memory model states keep their events, so they never repeat: hangs are found
    // through spinning threads instead (`Thread::spin_from`), and no graph is kept.
    let mut graph = (opts.liveness && !spin_reduction).then(StateGraph::default);
    let mut places: HashMap<Vec<u32>, u32> = HashMap::new();
    // State 0 is the raw initial state; its successors are its normalisations (the eager
    // steps taken before any real choice), which may already fork on unspecified values.
    result.visited.insert(init.clone(), (0, Vec::new()));
    // Cap the count so that the visited set stays near `MEMORY_BUDGET`: a state costs its
    // threads' registers, memory, the map entry and the steps that reached it (measured: about
    // 2.3 KiB a state with 2 lanes, 3.8 KiB with 32).
    let per_state =
        400 + prog.layout.threads as usize * (96 + 8 * prog.regs.len()) + 4 * prog.cells() as usize;
    // Three quarters of the process's memory budget, when that is the smaller: a state may
    // hold megabytes of memory cells, which the budget's periodic check would see too late.
    let bytes = opts.budget.max_memory_mib().map_or(MEMORY_BUDGET, |m| {
        MEMORY_BUDGET.min(((m as usize) << 20) / 4 * 3)
    });
    // Two limits: states kept (what the memory holds) and states created, duplicates and
    // each order of a collective atomic included (the work, `--max-states`). A model that
    // makes many successors per state, most of them seen before (Spec's speculated values),
    // runs into the second long before the first.
    let max_states = opts.max_states;
    let max_kept = opts.max_states.min(bytes / per_state.max(1));
    let created_limit = format!("the state limit ({max_states} states created) was reached");
    let kept_limit = if max_kept < max_states {
        format!(
            "the state limit ({max_kept} states kept: what {} MiB hold at about {} bytes a \
             state, below --max-states {max_states}) was reached",
            bytes >> 20,
            per_state,
        )
    } else {
        created_limit.clone()
    };
    if let Err(e) = opts.budget.check_memory("exploring") {
        result.limit_hit = true;
        result.stopped = Some(e.to_string());
    }
    let mut i = if result.limit_hit { usize::MAX } else { 0 };
    while i < result.visited.len() {
        if result.visited.len() >= max_kept || ex.created >= max_states {
            result.limit_hit = true;
            result.stopped = Some(if ex.created >= max_states {
                created_limit.clone()
            } else {
                kept_limit.clone()
            });
            break;
        }
        if ex.mattered.get() {
            break;
        }
        if let Err(e) = opts.budget.check("exploring") {
            result.limit_hit = true;
            result.stopped = Some(e.to_string());
            break;
        }
        let state = result.visited.get_index(i).expect("in range").0.clone();
        let here = i as StateRef;
        if let Some(g) = graph.as_mut() {
            let key = ex.place_key(&state);
            let next = places.len() as u32;
            let place = *places.entry(key).or_insert(next);
            g.place.push(place);
            g.threads
                .push(state.threads.iter().map(|t| (t.done, t.started)).collect());
            g.edges.push(Vec::new());
            g.enabled.push(Vec::new());
            g.cut.push(false);
            g.ub.push(false);
            // A place already expanded: this state does what its first state did (later
            // iterations of the same loops), so the graph of places needs nothing more.
            let seen = place != next;
            g.expanded.push(!seen);
            if seen {
                i += 1;
                continue;
            }
        }
        if i == 0 {
            let mut roots = Vec::new();
            ex.normalize(init.clone(), Vec::new(), &mut roots);
            let already_normal = matches!(roots.as_slice(), [Outcome::Next(s, steps)] if steps.is_empty() && *s == init);
            if !already_normal {
                if let Some(g) = graph.as_mut() {
                    note_enabled(g, here, &roots);
                }
                let edges = absorb(&ex, &mut result, &state, here, roots, &opts.budget);
                if let Some(g) = graph.as_mut() {
                    g.edges[i] = edges;
                }
                i += 1;
                continue;
            }
        }
        if state.threads.iter().all(|t| t.done) {
            if state.unspecified && ex.unspecified_read.is_none() {
                ex.unspecified_read = Some(here);
            }
            // (Liveness asks nothing of a run that ended.)
            if ex.spin_reduction {
                i += 1;
                continue;
            }
            if let Some((mm, _)) = &ex.relaxed {
                let runs = state.runs();
                let keep = |fin: &memory::Final| {
                    prog.filter.is_none() || prog.passes_filter(&ex.observe(&finish(&state, fin)))
                };
                let init = prog.initial_memory();
                match memory::judge(prog, mm, &runs, &init, &opts.budget, &keep) {
                    Ok(Judgement {
                        exhausted: Some(e), ..
                    }) => {
                        result.limit_hit = true;
                        result.stopped = Some(e.to_string());
                        break;
                    }
                    Ok(j) if j.too_many => {
                        result.open_too_many = j.open_reads;
                        result.limit_hit = true;
                        result.stopped = Some(format!(
                            "a run has more than {} candidate executions (reads-from and coherence choices)",
                            memory::execution::MAX_CANDIDATES
                        ));
                        break;
                    }
                    Ok(j) => {
                        if j.open_reads {
                            result.unexplained.push(here);
                        }
                        for (f, fin) in j.flags {
                            if !result.flags.contains_key(&f) {
                                result.open.insert(Witness::Flag(f.clone()), fin.open);
                                result.flags.insert(f, here);
                            }
                        }
                        for (fin, e) in j.finals {
                            let values = ex.observe(&finish(&state, &fin));
                            if !result.outcomes.contains_key(&values) {
                                result
                                    .open
                                    .insert(Witness::Outcome(values.clone()), fin.open);
                                result.outcomes.insert(values.clone(), here);
                            }
                            result.executions.entry(values).or_insert(e);
                        }
                        for ((fin, axiom), e) in j.near_misses {
                            if prog.prop.eval(&ex.observe(&finish(&state, &fin))) {
                                result.forbidden_by.entry(axiom).or_insert(e);
                            }
                        }
                    }
                    Err(e) => {
                        result.limit_hit = true;
                        result.stopped = Some(format!("memory model: {e}"));
                        break;
                    }
                }
                i += 1;
                continue;
            }
            let values = ex.observe(&state);
            if prog.passes_filter(&values) {
                result.outcomes.entry(values).or_insert(here);
            }
            i += 1;
            continue;
        }
        if let Some(step) = ex.barrier_divergence(&state) {
            if let Some(g) = graph.as_mut() {
                g.ub[i] = true;
            }
            // The threads at the barrier never pass it: a deadlock, if the run is an execution.
            if ex.spin_reduction && ex.speculation_confirmed(&state) {
                result.stops.push((here, ex.statuses(&state, &[])));
            }
            // A divergence ends every workgroup's run where it shows, so one workgroup at a
            // time could miss what the others reach first in another order.
            ex.doubt_order("a barrier divergence");
            let kind = DeadKind::Ub(UbKind::BarrierDivergence);
            if ex.speculation_confirmed(&state) {
                if ex.may_begin_execution(&state, None, &kind, &result, &opts.budget) {
                    record_dead(&mut result, kind, DeadEnd { state: here, step });
                } else {
                    ex.doubt_order("a barrier divergence the memory model ruled out");
                }
            }
            i += 1;
            continue;
        }
        let succs = ex.successors(&state);
        if ex.created >= max_states {
            // The expansion was cut short: its successors are incomplete.
            result.limit_hit = true;
            result.stopped = Some(created_limit.clone());
            break;
        }
        // A state stuck only because a speculation failed is no execution at all.
        if ex.spin_reduction {
            let spins =
                (state.threads.iter()).any(|t| t.spin_from.is_some() || t.repeating().is_some());
            if (spins || succs.is_empty()) && ex.speculation_confirmed(&state) {
                result.stops.push((here, ex.statuses(&state, &succs)));
            }
        } else if succs.is_empty() && result.stuck.is_none() && ex.speculation_confirmed(&state) {
            result.stuck = Some(here);
        }
        if let Some(g) = graph.as_mut() {
            note_enabled(g, here, &succs);
        }
        let edges = absorb(&ex, &mut result, &state, here, succs, &opts.budget);
        if let Some(g) = graph.as_mut() {
            g.edges[i] = edges;
        }
        i += 1;
    }
    if let Some(g) = graph.as_mut() {
        // States never expanded (the search stopped first) have no entries yet.
        let n = result.visited.len();
        g.expanded.resize(n, false);
        for v in [&mut g.cut, &mut g.ub] {
            v.resize(n, false);
        }
        g.edges.resize(n, Vec::new());
        g.enabled.resize(n, Vec::new());
        g.threads.resize(n, Vec::new());
        let fresh = places.len() as u32;
        let from = g.place.len();
        g.place.extend((from..n).map(|k| fresh + (k - from) as u32));
    }
    result.graph = graph;
    result.states = result.visited.len();
    if result.limit_hit && !opts.liveness && opts.memory.is_none() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hasher = BuildHasherDefault::<rustc_hash::FxHasher>::default();
        // The first states found (breadth first), at most PLACES_SAMPLE of them: a place key
        // costs about 15 µs at 32 lanes, and states that repeat by iteration do so early.
        let sample = result.visited.len().min(PLACES_SAMPLE);
        let distinct: std::collections::HashSet<u64> = (result.visited.keys())
            .take(sample)
            .map(|st| hasher.hash_one(ex.place_key(st)))
            .collect();
        result.places_at_limit = Some((distinct.len(), sample));
    }
    result.unspecified_read = ex.unspecified_read;
    result.written = ex.written.take();
    result.unsourced = ex.unsourced.take();
    result.order_doubt = ex.doubt.take();
    let mattered = ex.mattered.get();
    (result, mattered)
}

/// Records, for the liveness graph, which threads had a step at `here` and whether the loop
/// bound cut one.
fn note_enabled(g: &mut StateGraph, here: StateRef, succs: &[Outcome]) {
    let h = here as usize;
    g.cut[h] |= succs
        .iter()
        .any(|o| matches!(o, Outcome::Dead(DeadKind::Cut { .. }, ..)));
    g.enabled[h] = enabled(succs);
}

/// The threads that have a step among `succs` (including one the loop bound cut).
fn enabled(succs: &[Outcome]) -> Vec<u32> {
    let mut en = Vec::new();
    for o in succs {
        let first = match o {
            Outcome::Next(_, steps) => steps.first(),
            Outcome::Dead(_, step, _) => Some(step),
            Outcome::Pruned => None,
        };
        for &t in first.map_or(&[][..], |st| &st.threads) {
            if !en.contains(&t) {
                en.push(t);
            }
        }
    }
    en
}

/// Adds the successors of state `here` to the search; returns each successor with the threads
/// that moved to reach it.
fn absorb(
    ex: &Explorer,
    r: &mut Exploration,
    state: &State,
    here: StateRef,
    succs: Vec<Outcome>,
    budget: &Budget,
) -> Vec<GraphEdge> {
    let mut edges = Vec::new();
    for o in succs {
        match o {
            Outcome::Next(mut s, steps) => {
                ex.forget_dead(&mut s);
                if ex.liveness {
                    let mut moved: Vec<u32> = steps
                        .iter()
                        .flat_map(|st| st.threads.iter().copied())
                        .collect();
                    moved.sort_unstable();
                    moved.dedup();
                    let to = match r.visited.get_index_of(&s) {
                        Some(k) => k,
                        None => r.visited.insert_full(s, (here, steps.clone())).0,
                    };
                    edges.push(GraphEdge {
                        to: to as StateRef,
                        moved,
                        steps,
                    });
                } else if !r.visited.contains_key(&s) {
                    r.visited.insert(s, (here, steps));
                }
            }
            // Undefined behaviour or a cut under a speculation that may still fail is not
            // reported: failed speculation is invisible (docs/semantics.md §3).
            Outcome::Dead(kind, step, events) => {
                if ex.speculation_confirmed(state) {
                    if ex.may_begin_execution(state, events.as_deref(), &kind, r, budget) {
                        record_dead(r, kind, DeadEnd { state: here, step });
                    } else {
                        ex.doubt_order("a dead end the memory model ruled out");
                    }
                }
            }
            Outcome::Pruned => {}
        }
    }
    edges
}

fn record_dead(r: &mut Exploration, kind: DeadKind, d: DeadEnd) {
    match kind {
        DeadKind::Ub(k) => {
            r.ub.entry(k).or_insert(d);
        }
        DeadKind::Cut { idle: false } => {
            r.cut.get_or_insert(d);
        }
        DeadKind::Cut { idle: true } => {}
    }
}

/// Values tried for an unspecified read: 0, 1 and every literal of the program and condition.
fn unspecified_domain(prog: &Program) -> Vec<u32> {
    fn lits(e: &Expr, out: &mut Vec<u32>) {
        match e {
            Expr::Lit(v) => out.push(*v),
            Expr::Reg(_) | Expr::Builtin(_) => {}
            Expr::Unary(_, a) => lits(a, out),
            Expr::Binary(_, a, b) => {
                lits(a, out);
                lits(b, out);
            }
            Expr::Ternary(a, b, c) => {
                lits(a, out);
                lits(b, out);
                lits(c, out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| lits(a, out)),
        }
    }
    let mut out = vec![0, 1];
    out.extend(prog.prop.literals());
    if let Some(f) = &prog.filter {
        out.extend(f.literals());
    }
    for b in &prog.blocks {
        if let Term::Branch { cond, .. } = &b.term {
            lits(cond, &mut out);
        }
        for i in &b.instrs {
            match &i.op {
                Op::Local { value, .. } => lits(value, &mut out),
                Op::Store { value, .. } => lits(value, &mut out),
                Op::SgOp { args, .. } | Op::Atomic { args, .. } => {
                    args.iter().for_each(|a| lits(a, &mut out))
                }
                _ => {}
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out.truncate(12);
    out
}

impl<'p> Explorer<'p> {
    fn pos(&self, t: &Thread) -> Pos {
        let n = self.prog.blocks[t.block as usize].instrs.len() as u32;
        match t.pc {
            0 => Pos::Label,
            p if p <= n => Pos::Instr(p - 1),
            _ => Pos::Term,
        }
    }

    fn kind_at(&self, t: &Thread) -> Kind {
        self.prog.kind_at(t.block, t.pc)
    }

    fn sg(&self, tid: usize) -> u32 {
        self.prog.layout.subgroup_of(tid as u32)
    }

    /// Is some thread of subgroup `sg` undecided for block `b` (docs/semantics.md §2)?
    fn undecided(&self, s: &State, sg: u32, b: BlockId) -> bool {
        self.prog.layout.subgroup_threads(sg).any(|u| {
            let t = &s.threads[u as usize];
            !t.done && t.block != b && self.prog.reaches(t.block, b)
        })
    }

    /// Threads of subgroup `sg` currently in block `b` (those of T(db) that have not left).
    fn members(&self, s: &State, sg: u32, b: BlockId) -> Vec<usize> {
        self.prog
            .layout
            .subgroup_threads(sg)
            .map(|u| u as usize)
            .filter(|&u| !s.threads[u].done && s.threads[u].block == b)
            .collect()
    }

    /// Registers the next step of `t` reads.
    fn reads(&self, t: &Thread) -> Vec<RegId> {
        let b = &self.prog.blocks[t.block as usize];
        match self.pos(t) {
            Pos::Label => vec![],
            Pos::Instr(i) => b.instrs[i as usize].op.reads(),
            Pos::Term => {
                let mut v = Vec::new();
                if let Term::Branch { cond, .. } = &b.term {
                    cond.regs(&mut v);
                }
                v
            }
        }
    }

    /// A Lazy thread blocks when its next step reads a pending register.
    fn blocked(&self, t: &Thread) -> bool {
        !t.pending.is_empty()
            && self
                .reads(t)
                .iter()
                .any(|r| t.pending.iter().any(|p| p.0 == *r))
    }

    fn observe(&self, s: &State) -> Vec<u32> {
        let (values, unspec) = observed(self.prog, s);
        if unspec {
            // The outcome is any value: marking cannot list it.
            self.mattered.set(true);
        }
        values
    }

    /// Under a relaxed memory model, may a run that dies (cut by the loop bound, or meeting
    /// undefined behaviour) begin a consistent execution: do its events (`events`, or else
    /// those of `s`, the state it died from) satisfy the model's prefix-closed axioms
    /// ([`crate::cat::prefix`])? Such a run is reported only then. Judged only for a dead end
    /// of a kind not yet recorded; when its candidates are too many or the budget runs out,
    /// it may.
    fn may_begin_execution(
        &self,
        s: &State,
        events: Option<&[Vec<Access>]>,
        kind: &DeadKind,
        r: &Exploration,
        budget: &Budget,
    ) -> bool {
        let Some((mm, _)) = &self.relaxed else {
            return true;
        };
        let recorded = match kind {
            DeadKind::Cut { idle: false } => r.cut.is_some(),
            DeadKind::Cut { idle: true } => true,
            DeadKind::Ub(k) => r.ub.contains_key(k),
        };
        if recorded {
            return true;
        }
        let runs: Vec<&[Access]> = match events {
            Some(ev) => ev.iter().map(Vec::as_slice).collect(),
            None => s.runs(),
        };
        let init = self.prog.initial_memory();
        // At the loop bound's cut, threads that have not terminated may write after the run's
        // end, and others may have read that (docs/memory-models.md, "Runs cut short").
        let cut = matches!(kind, DeadKind::Cut { .. });
        let later = self.futures(s, cut);
        !matches!(
            memory::prefix_consistent(self.prog, mm, &runs, &init, budget, &later),
            Ok(Some(false))
        )
    }

    /// Under [`Shortcuts::workgroups`]: what was judged may depend on the order of workgroups.
    fn doubt_order(&self, why: &str) {
        if self.short.workgroups {
            self.doubt
                .borrow_mut()
                .get_or_insert_with(|| why.to_string());
        }
    }

    /// Every speculation that fired is confirmed: nobody is still undecided for a sealed block.
    fn speculation_confirmed(&self, s: &State) -> bool {
        s.sealed.iter().all(|&(sg, b)| !self.undecided(s, sg, b))
    }

    /// Workgroup barrier divergence: every thread of a workgroup has terminated or waits at a
    /// workgroup barrier, some wait, and they do not all wait at the same barrier instance.
    fn barrier_divergence(&self, s: &State) -> Option<Step> {
        let lay = &self.prog.layout;
        for wg in 0..lay.threads / lay.workgroup {
            let mut waiting = Vec::new();
            let mut all_stopped = true;
            let mut any_done = false;
            for u in lay.workgroup_threads(wg) {
                let t = &s.threads[u as usize];
                if t.done {
                    any_done = true;
                } else if self.at_wg_barrier(t) {
                    waiting.push(u);
                } else {
                    all_stopped = false;
                }
            }
            if !all_stopped || waiting.is_empty() {
                continue;
            }
            let first = &s.threads[waiting[0] as usize];
            let same = waiting.iter().all(|&u| {
                let t = &s.threads[u as usize];
                t.block == first.block && t.pc == first.pc
            });
            if any_done || !same {
                return Some(Step {
                    threads: waiting.clone(),
                    block: first.block,
                    at: At::Instr(first.pc - 1),
                    effects: vec![Effect::Ub(UbKind::BarrierDivergence)],
                });
            }
        }
        None
    }

    /// The name and quorum of the quorum barrier `t` stands at, if it does.
    fn at_quorum_barrier(&self, t: &Thread) -> Option<(u32, u32)> {
        let Pos::Instr(i) = self.pos(t) else {
            return None;
        };
        match self.prog.blocks[t.block as usize].instrs[i as usize].op {
            Op::QuorumBarrier { name, quorum } => Some((name, quorum)),
            _ => None,
        }
    }

    fn at_wg_barrier(&self, t: &Thread) -> bool {
        matches!(self.pos(t), Pos::Instr(i)
            if matches!(self.prog.blocks[t.block as usize].instrs[i as usize].op, Op::WorkgroupBarrier))
    }

    /// Is the next step of thread `u` one to take eagerly (invisible to every other thread)?
    fn eager(&self, s: &State, u: usize) -> bool {
        let t = &s.threads[u];
        if t.done || t.spin_from.is_some() || self.blocked(t) {
            return false;
        }
        let kind = self.kind_at(t);
        // Liveness: a thread rests before every loop edge, so that each iteration passes
        // through the same place (see `StateGraph`).
        if self.liveness && kind == Kind::Branch && self.prog.loop_edge(t.block) {
            return false;
        }
        self.model.rule(kind).eager
    }

    /// Takes eager steps until none is left; pushes the resulting outcomes.
    fn normalize(&mut self, mut s: State, mut steps: Vec<Step>, out: &mut Vec<Outcome>) {
        loop {
            if let Some(key) = self.resolvable(&s) {
                let results = self.with_choices(|ex, ch| ex.resolve(s.clone(), key, ch));
                if results.len() == 1 {
                    if let Outcome::Next(ns, st) = results.into_iter().next().expect("one") {
                        s = ns;
                        steps.extend(st);
                        continue;
                    }
                    unreachable!("resolution only yields states");
                }
                for r in results {
                    if let Outcome::Next(ns, st) = r {
                        let mut all = steps.clone();
                        all.extend(st);
                        self.normalize(ns, all, out);
                    }
                }
                return;
            }
            let Some(u) = (0..s.threads.len()).find(|&u| self.eager(&s, u)) else {
                out.push(Outcome::Next(s, steps));
                return;
            };
            // An eager step performs no memory event: the events so far are those of a run
            // that dies in it.
            let events = (self.relaxed.is_some() && !steps.is_empty())
                .then(|| s.threads.iter().map(|t| t.events.clone()).collect());
            match self.single(s, u) {
                Outcome::Next(ns, st) => {
                    s = ns;
                    steps.extend(st);
                }
                Outcome::Dead(k, step, _) => {
                    out.push(Outcome::Dead(k, step, events));
                    return;
                }
                Outcome::Pruned => return,
            }
        }
    }

    /// Runs `f` once per vector of choices for unspecified values.
    fn with_choices(
        &mut self,
        mut f: impl FnMut(&mut Self, &mut Choices) -> Outcome,
    ) -> Vec<Outcome> {
        let mut ch = Choices::new(self.domain.clone());
        let mut out = Vec::new();
        loop {
            // Each choice (an unspecified value, an order of a collective atomic) is a state:
            // stop making them once the budget is spent (the search then stops too).
            if self.created >= self.max_states {
                break;
            }
            self.created += 1;
            ch.start();
            out.push(f(self, &mut ch));
            if !ch.advance() {
                break;
            }
        }
        out
    }

    /// Every successor of a normalised state.
    fn successors(&mut self, s: &State) -> Vec<Outcome> {
        let raw = match self.short.workgroups {
            true => self.reduced_steps(s),
            false => self.steps_of(s, 0..s.threads.len()),
        };
        let mut out = Vec::new();
        for o in raw {
            match o {
                Outcome::Next(mut ns, steps) => {
                    if self.liveness {
                        for st in &steps {
                            for &m in &st.threads {
                                ns.threads[m as usize].started = true;
                            }
                        }
                    }
                    self.normalize(ns, steps, &mut out)
                }
                other => out.push(other),
            }
        }
        out
    }

    /// The steps of one workgroup ([`Shortcuts::workgroups`]): the first that has a step
    /// recording something (a step on, or a dead end reported). Steps that record nothing (a
    /// failed speculation, an idle loop's cut) end no one else's run and are left out. A
    /// reported dead end ends every thread's run, so where the chosen workgroup has one every
    /// workgroup's steps are taken.
    fn reduced_steps(&mut self, s: &State) -> Vec<Outcome> {
        let lay = self.prog.layout;
        let void = |o: &Outcome| {
            matches!(
                o,
                Outcome::Pruned | Outcome::Dead(DeadKind::Cut { idle: true }, ..)
            )
        };
        let mut voids = Vec::new();
        for wg in 0..lay.threads / lay.workgroup {
            let r = lay.workgroup_threads(wg);
            let raw = self.steps_of(s, r.start as usize..r.end as usize);
            if raw
                .iter()
                .any(|o| matches!(o, Outcome::Dead(..)) && !void(o))
            {
                return self.steps_of(s, 0..s.threads.len());
            }
            if raw.iter().any(|o| !void(o)) {
                return raw;
            }
            voids.extend(raw);
        }
        voids
    }

    /// Every step the threads `us` can take from `s` (alone, or in a group they lead).
    fn steps_of(&mut self, s: &State, us: std::ops::Range<usize>) -> Vec<Outcome> {
        let mut raw = Vec::new();
        let mut groups_done: Vec<(u32, BlockId, u32)> = Vec::new();
        for u in us {
            let t = &s.threads[u];
            if t.done || t.spin_from.is_some() || self.blocked(t) {
                continue;
            }
            let kind = self.kind_at(t);
            let sg = self.sg(u);
            if self.at_wg_barrier(t) {
                if let Some(o) = self.wg_barrier(s, u) {
                    raw.push(o);
                }
                continue;
            }
            if let Some((name, quorum)) = self.at_quorum_barrier(t) {
                if let Some(o) = self.quorum_barrier(s, u, name, quorum) {
                    raw.push(o);
                }
                continue;
            }
            // The enabling condition is the class's timing rule (vocab::TimingRule).
            let rule = self.model.rule(kind);
            let waits = rule.waits_for_undecided && self.undecided(s, sg, t.block);
            match rule.members {
                // A lazy op's issue is a step alone; its resolution waits (`resolvable`).
                Members::Alone | Members::Resolve => raw.extend(self.single_step(s, u)),
                Members::Start => {
                    let arrived = self
                        .members(s, sg, t.block)
                        .iter()
                        .all(|&m| s.threads[m].pc >= t.pc);
                    if arrived && !waits {
                        raw.extend(self.single_step(s, u));
                    }
                }
                Members::Group | Members::Slot => {
                    let key = (sg, t.block, t.pc);
                    if groups_done.contains(&key) {
                        continue;
                    }
                    groups_done.push(key);
                    let members = self.members(s, sg, t.block);
                    let aligned = members
                        .iter()
                        .all(|&m| s.threads[m].pc == t.pc && !self.blocked(&s.threads[m]));
                    if aligned && !waits {
                        // Firing while someone is still undecided seals the block.
                        let seal = self.undecided(s, sg, t.block);
                        raw.extend(
                            self.with_choices(|ex, ch| ex.group(s.clone(), sg, &members, seal, ch)),
                        );
                    }
                }
            }
        }
        raw
    }

    fn builtins(&self, tid: usize) -> impl Fn(crate::vocab::Builtin) -> u32 + '_ {
        let lay = self.prog.layout;
        move |b| lay.builtin(b, tid as u32)
    }

    /// Evaluates an expression for thread `u`; `Err` on undefined behaviour.
    /// A fence's run-time id (`Op::Fence`), evaluated in thread `u`.
    fn fence_id(
        &self,
        s: &State,
        u: usize,
        id: &Option<Expr>,
        ch: &mut Choices,
    ) -> Result<Option<u32>, UbKind> {
        id.as_ref()
            .map(|e| self.eval(s, u, e, ch).map(|m| m.v))
            .transpose()
    }

    fn eval(&self, s: &State, u: usize, e: &Expr, ch: &mut Choices) -> Result<Mv, UbKind> {
        let b = self.builtins(u);
        let mut d = Concrete {
            regs: &s.threads[u].regs,
            unspec: &s.threads[u].unspec,
            ..Concrete::bare(&b, ch, self.mode)
        };
        let v = eval::eval(&mut d, e);
        if d.mattered {
            self.mattered.set(true);
        }
        match d.ub {
            Some(k) => Err(k),
            None => Ok(v),
        }
    }

    /// A value that decides something (a branch, an address): marking is then not exact.
    fn decides(&self, v: Mv) -> u32 {
        if v.unspec {
            self.mattered.set(true);
        }
        v.v
    }

    fn write_reg(t: &mut Thread, r: RegId, v: Mv) {
        t.regs[r as usize] = v.v;
        set_mark(&mut t.unspec, r, v.unspec);
        t.pending.retain(|p| p.0 != r);
        t.open.retain(|p| p.0 != r);
    }

    /// A non-eager step of thread `u` alone: under a relaxed memory model a read forks on
    /// the value it guesses.
    fn single_step(&mut self, s: &State, u: usize) -> Vec<Outcome> {
        if self.relaxed.is_some() && self.kind_at(&s.threads[u]) == Kind::Memory {
            return self.with_choices(|ex, ch| ex.single_with(s.clone(), u, ch));
        }
        vec![self.single(s.clone(), u)]
    }

    /// One thread's step alone (independent, synchronous, lazy issue, or an eager step).
    fn single(&mut self, s: State, u: usize) -> Outcome {
        let mut ch = Choices::new(self.domain.clone());
        self.single_with(s, u, &mut ch)
    }

    fn single_with(&mut self, mut s: State, u: usize, ch: &mut Choices) -> Outcome {
        self.created += 1;
        let t = &s.threads[u];
        let block = t.block;
        let pos = self.pos(t);
        let b = &self.prog.blocks[block as usize];
        let ch = &mut *ch;
        let mut step = Step {
            threads: vec![u as u32],
            block,
            at: pos.at(),
            effects: Vec::new(),
        };
        match pos {
            Pos::Label => s.threads[u].pc += 1,
            Pos::Term => return self.branch(s, &[u], step, ch),
            Pos::Instr(i) => {
                let op = &b.instrs[i as usize].op;
                match op {
                    Op::Unreachable => return ub(step, UbKind::Unreachable),
                    Op::Local { dst, value } => match self.eval(&s, u, value, ch) {
                        Ok(v) => {
                            Self::write_reg(&mut s.threads[u], *dst, v);
                            step.effects.push(Effect::Reg {
                                thread: u as u32,
                                reg: *dst,
                                value: v.v,
                            });
                        }
                        Err(k) => return ub(step, k),
                    },
                    Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                        let acc = match self.access(&s, u, op, ch) {
                            Ok(a) => a,
                            Err(k) => return ub(step, k),
                        };
                        self.perform(&mut s, u, op, &acc, &mut step, ch, (block, i, false));
                    }
                    Op::SgOp { dst, args, .. } => {
                        // Lazy issue: record the arguments, leave the result pending.
                        let mut vals = Vec::new();
                        for a in args {
                            match self.eval(&s, u, a, ch) {
                                Ok(v) => vals.push(v),
                                Err(k) => return ub(step, k),
                            }
                        }
                        let key = (self.sg(u), block, i);
                        let lane = self.prog.layout.lane(u as u32);
                        match s.lazy.iter_mut().find(|l| l.key == key) {
                            Some(l) => l.issued.push((lane, vals)),
                            None => {
                                s.lazy.push(LazyInst {
                                    key,
                                    issued: vec![(lane, vals)],
                                });
                                s.lazy.sort_by_key(|l| l.key);
                            }
                        }
                        let t = &mut s.threads[u];
                        t.pending.retain(|p| p.0 != *dst);
                        t.open.retain(|p| p.0 != *dst);
                        t.pending.push((*dst, key));
                        step.effects.push(Effect::Pending {
                            thread: u as u32,
                            reg: *dst,
                        });
                    }
                    Op::Fence { id } => match self.fence_id(&s, u, id, ch) {
                        Ok(id) => self.record(&mut s, u, (block, i, false), What::Fence { id }),
                        Err(k) => return ub(step, k),
                    },
                    Op::SubgroupBarrier | Op::WorkgroupBarrier => {}
                    Op::QuorumBarrier { .. } => unreachable!("stepped by quorum_barrier"),
                }
                s.threads[u].pc += 1;
            }
        }
        self.end_step(&mut s);
        Outcome::Next(s, vec![step])
    }

    /// Under a relaxed memory model, appends an event to thread `u`'s record; `at` is the
    /// instruction and whether the step is collective.
    fn record(&self, s: &mut State, u: usize, at: (BlockId, u32, bool), what: What) {
        if self.relaxed.is_some() {
            // Only fences keep their place in the schedule when only theirs is read.
            let step = if self.sched_fences() && !in_fence_schedule(&what) {
                0
            } else {
                s.step
            };
            s.threads[u].events.push(Access {
                block: at.0,
                instr: at.1,
                what,
                step,
                collective: at.2,
            });
        }
    }

    /// Forgets the registers no later step of their thread reads ([`crate::ir::live`]): zero,
    /// and not unspecified. States that differ only there behave alike and become one state;
    /// without this, temporaries a shader's last iteration left behind multiplied the states
    /// of every loop.
    fn forget_dead(&self, s: &mut State) {
        let live = &self.prog.live;
        for t in &mut s.threads {
            let keep = if t.done {
                live.at_return()
            } else {
                let sb = self.prog.blocks[t.block as usize].sblock;
                live.before(sb, t.pc.saturating_sub(1) as usize)
            };
            crate::ir::live::forget(keep, &mut t.regs);
            t.unspec.retain(|&r| keep[r as usize]);
            t.open.retain(|&(r, _)| keep[r as usize]);
        }
    }

    /// Liveness under a memory model: thread `t` enters loop header `hb`. If it entered the
    /// same header (in the same iterations of the loops around) some iterations before, with
    /// the live registers it has now (`ir::live`), and wrote nothing since, those iterations
    /// can repeat forever unchanged: it spins, and stops (a run that went round them again and
    /// then left is the run that left at once, which is explored too, as Dartagnan's
    /// spin-loop reduction argues).
    fn enter_header(&self, t: &mut Thread, hb: BlockId) {
        let blocks = &self.prog.blocks;
        let here = &blocks[hb as usize];
        let outer = here.iters.len().saturating_sub(1);
        let same_loop = |b: BlockId| {
            let then = &blocks[b as usize];
            then.sblock == here.sblock
                && then.iters.len() == here.iters.len()
                && then.iters[..outer] == here.iters[..outer]
        };
        let writes =
            |a: &Access| matches!(a.what, What::Write { .. } | What::Rmw { new: Some(_), .. });
        // Only what a later step may read counts: the registers live at the header.
        let mut regs = t.regs.clone();
        crate::ir::live::forget(self.prog.live.at_entry(here.sblock), &mut regs);
        let spins = t.entries.iter().rev().find(|(b, r, from)| {
            same_loop(*b) && *r == regs && !t.events[*from as usize..].iter().any(writes)
        });
        if let Some(&(b, _, from)) = spins {
            t.spin_from = Some((from, b));
            return;
        }
        // Two windows of writes, back to back, the same accesses: a lasso candidate.
        let now = t.events.len() as u32;
        let same = |a: &Access, b: &Access| {
            blocks[a.block as usize].sblock == blocks[b.block as usize].sblock
                && a.instr == b.instr
                && a.what == b.what
        };
        let equal: Vec<&(BlockId, Vec<u32>, u32)> = (t.entries.iter().rev())
            .filter(|(b, r, _)| same_loop(*b) && *r == regs)
            .collect();
        let windows: Vec<(u32, u32, BlockId)> = (equal.iter().enumerate())
            .filter_map(|(k, &&(mb, _, mid))| {
                let suffix = &t.events[mid as usize..now as usize];
                equal[k + 1..].iter().find_map(|&&(_, _, from)| {
                    let infix = &t.events[from as usize..mid as usize];
                    (infix.len() == suffix.len()
                        && infix.iter().zip(suffix).all(|(a, b)| same(a, b)))
                    .then_some((from, mid, mb))
                })
            })
            .collect();
        t.repeat = windows.first().map(|&(_, _, header)| Repeat {
            windows: windows.iter().map(|&(from, mid, _)| (from, mid)).collect(),
            header,
            now,
        });
        t.entries.push((hb, regs, t.events.len() as u32));
        if t.entries.len() > super::MAX_SPIN_PERIOD as usize {
            t.entries.remove(0);
        }
    }

    /// Follows thread `t` from block `from` into `to` through the instances of partly idle
    /// loops: a first iteration begun, another begun by going round, a busy block run, the
    /// loop left.
    fn go_round(&self, t: &mut Thread, from: BlockId, to: BlockId) {
        let prog = self.prog;
        let (here, there) = (prog.partly_idle_loop(from), prog.partly_idle_loop(to));
        let first = prog.first_round(to);
        if here.is_some() && (here != there || first) {
            if let Some(r) = t.rounds.last_mut().filter(|r| r.inside) {
                r.mark_busy();
                r.inside = false;
            }
        }
        if first {
            t.rounds.push(Round {
                first: to,
                began: 0,
                busy: 0,
                inside: true,
            });
        }
        if there.is_none() {
            return;
        }
        if let Some(r) = t.rounds.last_mut().filter(|r| r.inside) {
            if prog.blocks[to as usize].role == Role::LoopHeader {
                r.began += 1;
            }
            if prog.busy(to) {
                r.mark_busy();
            }
        }
    }

    /// At the cut of thread `u` in a partly idle loop (at the header past the bound, which
    /// begins no iteration): were enough of that loop instance's iterations idle for `u`'s
    /// subgroup ([`Program::idle_rounds`]) that the cut hides no outcome? An iteration counts
    /// when some lane began it and every lane that began it went round idle; one a lane may
    /// still begin, or has not finished, does not (the run ends here, so the explorer may
    /// count fewer than Z3, which follows every lane to its end).
    fn idle_rounds(&self, s: &State, u: usize) -> bool {
        let Some(mine) = s.threads[u].rounds.last().filter(|r| r.inside) else {
            return false;
        };
        let lanes = self.prog.layout.subgroup_threads(self.sg(u));
        let idle = (0..mine.began - 1)
            .filter(|&k| {
                lanes.clone().all(|w| {
                    let t = &s.threads[w as usize];
                    match t.rounds.iter().find(|r| r.first == mine.first) {
                        Some(r) => r.idle(k) == Some(true),
                        None => t.done || !self.prog.reaches(t.block, mine.first),
                    }
                })
            })
            .count();
        idle as u32 >= self.prog.idle_rounds()
    }

    /// Liveness under a memory model: each thread's status in `s`, whose successors are
    /// `succs` (a thread with no step there is blocked).
    fn statuses(&self, s: &State, succs: &[Outcome]) -> Vec<ThreadStatus> {
        let en = enabled(succs);
        (s.threads.iter().enumerate())
            .map(|(u, t)| {
                let moves = t.spin_from.is_some() || t.repeating().is_some();
                let stuck = !t.done && !moves && !en.contains(&(u as u32));
                ThreadStatus {
                    terminated: t.done,
                    started: t.started,
                    blocked: stuck,
                    moves,
                    waits: stuck,
                }
            })
            .collect()
    }

    /// Closes a step: the schedule position advances when the memory model reads it (when it
    /// reads it between fences only, after a step that recorded a fence: a fence recorded at
    /// the current position can only be this step's).
    fn end_step(&self, s: &mut State) {
        if !self.relaxed.as_ref().is_some_and(|(m, _)| m.uses_sched) {
            return;
        }
        let fenced = || {
            s.threads.iter().any(|t| {
                t.events
                    .last()
                    .is_some_and(|a| a.step == s.step && in_fence_schedule(&a.what))
            })
        };
        if !self.sched_fences() || fenced() {
            s.step += 1;
        }
    }

    /// The memory model reads the schedule between fences only
    /// ([`MemoryModel::sched_fences_only`]).
    fn sched_fences(&self) -> bool {
        self.relaxed
            .as_ref()
            .is_some_and(|(m, _)| m.sched_fences_only)
    }

    /// Branch steps for `threads` (one thread, or a collective group), each to its own target.
    fn branch(
        &mut self,
        mut s: State,
        threads: &[usize],
        mut step: Step,
        ch: &mut Choices,
    ) -> Outcome {
        let block = s.threads[threads[0]].block;
        let term = &self.prog.blocks[block as usize].term;
        for &u in threads {
            let target = match term {
                Term::Return => {
                    s.threads[u].done = true;
                    step.effects.push(Effect::Done { thread: u as u32 });
                    continue;
                }
                Term::Jump(t) => *t,
                Term::Branch {
                    cond,
                    then_to,
                    else_to,
                } => match self.eval(&s, u, cond, ch) {
                    Ok(v) if self.decides(v) != 0 => *then_to,
                    Ok(_) => *else_to,
                    Err(k) => return ub(step, k),
                },
            };
            step.effects.push(Effect::Goto {
                thread: u as u32,
                target,
            });
            match target {
                Target::Cut => {
                    // (Liveness under a memory model counts every cut: a loop idle for the
                    // outcomes may still change a dead register, so it never spins.)
                    let idle = (self.prog.idle_cut(block) || self.idle_rounds(&s, u))
                        && !self.spin_reduction;
                    return Outcome::Dead(DeadKind::Cut { idle }, step, None);
                }
                Target::Block(nb) => {
                    if s.sealed.contains(&(self.sg(u), nb)) {
                        return Outcome::Pruned;
                    }
                    // Going round an idle loop changes no outcome (safety only: liveness
                    // needs the runs that spin).
                    if !self.liveness && self.prog.idle_back_edge(block, nb, self.flag_rounds) {
                        return Outcome::Pruned;
                    }
                    let t = &mut s.threads[u];
                    t.block = nb;
                    t.pc = 0;
                    if !self.liveness {
                        self.go_round(t, block, nb);
                    }
                    if self.spin_reduction && self.prog.blocks[nb as usize].role == Role::LoopHeader
                    {
                        self.enter_header(t, nb);
                    }
                }
            }
        }
        // Liveness under a memory model: a run that goes round a loop is dropped once no
        // consistent execution can begin with it. Reads guess, so without this a loop whose
        // reads the model rules out (an exchange reading a value already exchanged) would
        // run to the bound on guesses alone, and the bound would hide a `live`.
        if self.spin_reduction && self.prog.loop_edge(block) && !self.may_go_on(&s) {
            return Outcome::Pruned;
        }
        Outcome::Next(s, vec![step])
    }

    /// What each thread of `s` may still write after the run's end ([`Program::future`]):
    /// nothing once it terminated, or when the run ends for good (`go_on` false).
    fn futures(&self, s: &State, go_on: bool) -> Vec<crate::ir::Future> {
        (s.threads.iter().enumerate())
            .map(|(u, t)| match go_on && !t.done {
                true => self.prog.future(u as u32, t.block, t.pc.saturating_sub(1)),
                false => crate::ir::Future::default(),
            })
            .collect()
    }

    /// Under a memory model, may the run that reached `s` begin a consistent execution, as far
    /// as the prefix-closed axioms tell (yes when they cannot tell)?
    fn may_go_on(&self, s: &State) -> bool {
        let Some((mm, _)) = &self.relaxed else {
            return true;
        };
        // A thread that has not terminated may still write what another's read took (load
        // buffering past the edge): without that, a hang reached only so was pruned, and the
        // answer was a wrong `live` (tests/data/cat/lb_hang.litmus). Such a write is named
        // when its instance is one its thread reaches at most once, so the model's coherence
        // and atomicity limit the reads that take it (tests/data/cat/exchange_later.litmus).
        // Asked at every loop edge: a cheap check, unjudged beyond 256 candidates. (The cut's
        // cap, 2^12, decides more exchange loops at deeper bounds, `exchange_later` at
        // --unroll 8 among them, but at every edge it cost 9 decided rows of 436 in
        // Dartagnan's HSA table at 2 s, and from a loop's third iteration on 3 of the 84
        // answers of `the_engines_agree_under_a_memory_model` at 1 s, to time.)
        let init = self.prog.initial_memory();
        let later = self.futures(s, true);
        let runs = s.runs();
        let judged = memory::prefix_consistent_within(
            self.prog,
            mm,
            &runs,
            &init,
            &self.budget,
            256,
            &later,
        );
        !matches!(judged, Ok(Some(false)))
    }

    /// A collective (or speculative) step of `members`, all at the same position.
    fn group(
        &mut self,
        mut s: State,
        sg: u32,
        members: &[usize],
        seal: bool,
        ch: &mut Choices,
    ) -> Outcome {
        let t0 = &s.threads[members[0]];
        let block = t0.block;
        let pos = self.pos(t0);
        let mut step = Step {
            threads: members.iter().map(|&m| m as u32).collect(),
            block,
            at: pos.at(),
            effects: Vec::new(),
        };
        match pos {
            Pos::Label => members.iter().for_each(|&m| s.threads[m].pc += 1),
            Pos::Term => return self.branch(s, members, step, ch),
            Pos::Instr(i) => {
                let op = &self.prog.blocks[block as usize].instrs[i as usize].op;
                match op {
                    Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                        // Collective memory: one atomic step, accesses in an unspecified order
                        // (the order is chosen like an unspecified value).
                        let mut accs = Vec::new();
                        for &m in members {
                            match self.access(&s, m, op, ch) {
                                Ok(a) => accs.push((m, a)),
                                Err(k) => return ub(step, k),
                            }
                        }
                        let order = self.collective_order(op, accs, ch);
                        for (m, a) in order {
                            self.perform(&mut s, m, op, &a, &mut step, ch, (block, i, true));
                        }
                    }
                    Op::SgOp {
                        dst,
                        op: sgop,
                        args,
                    } => {
                        let n = self.prog.layout.subgroup as usize;
                        let mut present = vec![Mv::known(0); n];
                        let mut argv = vec![vec![Mv::known(0); args.len()]; n];
                        let base = self.prog.layout.subgroup_threads(sg).start as usize;
                        for &m in members {
                            let lane = m - base;
                            present[lane] = Mv::known(1);
                            for (k, a) in args.iter().enumerate() {
                                match self.eval(&s, m, a, ch) {
                                    Ok(v) => argv[lane][k] = v,
                                    Err(k) => return ub(step, k),
                                }
                            }
                        }
                        let (results, unspecified) =
                            self.sg_results(*sgop, &present, &argv, members, base, ch, i);
                        s.unspecified |= unspecified;
                        for (&m, v) in members.iter().zip(results) {
                            Self::write_reg(&mut s.threads[m], *dst, v);
                            step.effects.push(Effect::Reg {
                                thread: m as u32,
                                reg: *dst,
                                value: v.v,
                            });
                            self.record(&mut s, m, (block, i, true), What::SgOp);
                        }
                        if seal {
                            s.sealed.push((sg, block));
                            s.sealed.sort_unstable();
                            step.effects.push(Effect::Speculated);
                        }
                    }
                    Op::Fence { id } => {
                        for &m in members {
                            let id = match self.fence_id(&s, m, id, ch) {
                                Ok(id) => id,
                                Err(k) => return ub(step, k),
                            };
                            self.record(&mut s, m, (block, i, true), What::Fence { id });
                        }
                    }
                    Op::QuorumBarrier { .. } => unreachable!("stepped by quorum_barrier"),
                    Op::SubgroupBarrier | Op::WorkgroupBarrier => {
                        for &m in members {
                            self.record(&mut s, m, (block, i, true), What::Barrier);
                        }
                    }
                    Op::Local { .. } => {}
                    Op::Unreachable => return ub(step, UbKind::Unreachable),
                }
                members.iter().for_each(|&m| s.threads[m].pc += 1);
            }
        }
        self.end_step(&mut s);
        Outcome::Next(s, vec![step])
    }

    /// The results of a subgroup op for `members` (the rule itself lives in `eval`).
    #[allow(clippy::too_many_arguments)]
    fn sg_results(
        &mut self,
        op: crate::vocab::SgOp,
        present: &[Mv],
        argv: &[Vec<Mv>],
        members: &[usize],
        base: usize,
        ch: &mut Choices,
        instr: u32,
    ) -> (Vec<Mv>, bool) {
        let mut sampled = false;
        let mut out = Vec::new();
        for &m in members {
            let b = self.builtins(m);
            let mut d = Concrete::bare(&b, ch, self.mode);
            let inp = SgInputs::<Concrete> {
                members: present,
                args: argv,
            };
            out.push(eval::sgop_result(&mut d, op, &inp, (m - base) as u32));
            sampled |= d.sampled;
            if d.mattered {
                self.mattered.set(true);
            }
        }
        let _ = instr;
        (out, sampled)
    }

    /// Lazy resolution: every thread of T(db) issued the op and nobody is undecided.
    fn resolvable(&self, s: &State) -> Option<LazyKey> {
        let waits = self.model.rule(Kind::Sgop).waits_for_undecided;
        s.lazy.iter().map(|l| l.key).find(|&(sg, b, i)| {
            !(waits && self.undecided(s, sg, b))
                && self
                    .members(s, sg, b)
                    .iter()
                    .all(|&m| s.threads[m].pc > i + 1)
        })
    }

    fn resolve(&mut self, mut s: State, key: LazyKey, ch: &mut Choices) -> Outcome {
        let (sg, block, i) = key;
        let idx = s.lazy.iter().position(|l| l.key == key).expect("present");
        let inst = s.lazy.remove(idx);
        let Op::SgOp { op, args, .. } = &self.prog.blocks[block as usize].instrs[i as usize].op
        else {
            unreachable!("lazy instances are subgroup ops")
        };
        let n = self.prog.layout.subgroup as usize;
        let mut present = vec![Mv::known(0); n];
        let mut argv = vec![vec![Mv::known(0); args.len()]; n];
        for (lane, vals) in &inst.issued {
            present[*lane as usize] = Mv::known(1);
            argv[*lane as usize] = vals.clone();
        }
        let base = self.prog.layout.subgroup_threads(sg).start as usize;
        let members: Vec<usize> = inst
            .issued
            .iter()
            .map(|(l, _)| base + *l as usize)
            .collect();
        let (results, unspecified) = self.sg_results(*op, &present, &argv, &members, base, ch, i);
        s.unspecified |= unspecified;
        let mut step = Step {
            threads: members.iter().map(|&m| m as u32).collect(),
            block,
            at: At::Resolve(i),
            effects: Vec::new(),
        };
        for (&m, v) in members.iter().zip(results) {
            let t = &mut s.threads[m];
            if let Some(p) = t.pending.iter().position(|p| p.1 == key) {
                let reg = t.pending.remove(p).0;
                t.regs[reg as usize] = v.v;
                set_mark(&mut t.unspec, reg, v.unspec);
                step.effects.push(Effect::Reg {
                    thread: m as u32,
                    reg,
                    value: v.v,
                });
            }
        }
        Outcome::Next(s, vec![step])
    }

    /// The memory cell and values of a thread's access, or the undefined behaviour it hits.
    fn access(&self, s: &State, u: usize, op: &Op, ch: &mut Choices) -> Result<Cell_, UbKind> {
        let (loc, vals): (_, Vec<&Expr>) = match op {
            Op::Load { loc, .. } => (loc, vec![]),
            Op::Store { loc, value } => (loc, vec![value]),
            Op::Atomic { loc, args, .. } => (loc, args.iter().collect()),
            _ => unreachable!("memory ops only"),
        };
        let idx = self.eval(s, u, &loc.index, ch)?;
        let idx = self.decides(idx);
        let mut values = Vec::new();
        for v in vals {
            values.push(self.eval(s, u, v, ch)?);
        }
        let g = &self.prog.globals[loc.global as usize];
        if idx >= g.len {
            return Err(UbKind::OutOfBounds);
        }
        Ok(Cell_ {
            cell: g.base + idx,
            values,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn perform(
        &self,
        s: &mut State,
        u: usize,
        op: &Op,
        a: &Cell_,
        step: &mut Step,
        ch: &mut Choices,
        at: (BlockId, u32, bool),
    ) {
        let cell = a.cell as usize;
        let at_pos = (at.0, at.1);
        // Under a relaxed model memory holds no state (reads guess): restore the cell after.
        let kept = s.mem[cell];
        if let Some((_, values)) = &self.relaxed {
            // The read returns a guessed value; the memory model judges it when the run ends.
            let guess = |ch: &mut Choices| values[ch.pick(values.len())];
            s.mem_unspec.retain(|&c| c != a.cell);
            match op {
                Op::Load { dst, .. }
                    if self.short.open_reads && self.prog.deps().read_open(at_pos) =>
                {
                    // Nothing in the run depends on the value: the candidate gives it.
                    self.record(
                        s,
                        u,
                        at,
                        What::Read {
                            cell: a.cell,
                            value: None,
                        },
                    );
                    let t = &mut s.threads[u];
                    Self::write_reg(t, *dst, Mv::known(0));
                    t.open.push((*dst, t.events.len() as u32 - 1));
                    step.effects.push(Effect::Read {
                        thread: u as u32,
                        reg: *dst,
                        cell: a.cell,
                        value: 0,
                        open: true,
                    });
                    s.mem[cell] = kept;
                    return;
                }
                Op::Load { .. } => {
                    s.mem[cell] = guess(ch);
                    let value = s.mem[cell];
                    self.record(
                        s,
                        u,
                        at,
                        What::Read {
                            cell: a.cell,
                            value: Some(value),
                        },
                    );
                }
                Op::Atomic { .. } => {
                    s.mem[cell] = guess(ch);
                }
                _ => {}
            }
        }
        // The value this access writes grows the guesses when the run so far could happen:
        // every read it made (an RMW's own read included) has a write of its value before it.
        let sourced = self.relaxed.is_some()
            && !matches!(op, Op::Load { .. })
            && self.reads_sourced(
                s,
                matches!(op, Op::Atomic { .. }).then_some((a.cell, s.mem[cell])),
            );
        match op {
            Op::Load { dst, .. } => {
                let v = Mv {
                    v: s.mem[cell],
                    unspec: s.mem_unspec.binary_search(&a.cell).is_ok(),
                };
                Self::write_reg(&mut s.threads[u], *dst, v);
                step.effects.push(Effect::Read {
                    thread: u as u32,
                    reg: *dst,
                    cell: a.cell,
                    value: v.v,
                    open: false,
                });
            }
            Op::Store { .. } => {
                s.mem[cell] = a.values[0].v;
                set_mark(&mut s.mem_unspec, a.cell, a.values[0].unspec);
                let value = a.values[0].v;
                self.record(
                    s,
                    u,
                    at,
                    What::Write {
                        cell: a.cell,
                        value,
                    },
                );
                step.effects.push(Effect::Write {
                    thread: u as u32,
                    cell: a.cell,
                    value: a.values[0].v,
                });
            }
            Op::Atomic { dst, op, .. } => {
                let old = Mv {
                    v: s.mem[cell],
                    unspec: s.mem_unspec.binary_search(&a.cell).is_ok(),
                };
                let mut ch = Choices::new(Vec::new());
                let no_builtins = |_| 0;
                let mut d = Concrete::bare(&no_builtins, &mut ch, self.mode);
                let new = eval::atomic_new(&mut d, *op, &old, &a.values);
                let stores = eval::atomic_stores(&mut d, *op, &old, &a.values);
                if d.mattered {
                    self.mattered.set(true);
                }
                // A compare-exchange that fails only reads (and leaves the cell as it was).
                let new = (stores.v != 0).then_some(new);
                if let Some(new) = new {
                    s.mem[cell] = new.v;
                    set_mark(&mut s.mem_unspec, a.cell, new.unspec);
                }
                let what = What::Rmw {
                    cell: a.cell,
                    old: old.v,
                    new: new.map(|n| n.v),
                };
                self.record(s, u, at, what);
                if let Some(d) = dst {
                    Self::write_reg(&mut s.threads[u], *d, old);
                }
                step.effects.push(Effect::Rmw {
                    thread: u as u32,
                    cell: a.cell,
                    old: old.v,
                    new: new.map(|n| n.v),
                });
            }
            _ => unreachable!("memory ops only"),
        }
        if self.relaxed.is_some() {
            if sourced {
                self.written.borrow_mut().insert(s.mem[cell]);
            } else if self.short.workgroups && !matches!(op, Op::Load { .. }) {
                self.unsourced.borrow_mut().insert(s.mem[cell]);
            }
            s.mem[cell] = kept;
        }
    }

    /// Does every read the run has made so far (and `extra`, a read of (cell, value) about to
    /// be made) have a write of its value to its cell before it, or the cell's initial value?
    fn reads_sourced(&self, s: &State, extra: Option<(u32, u32)>) -> bool {
        let memory = self.prog.initial_memory();
        let init = |c: u32| memory[c as usize];
        let mut written: Vec<(u32, u32)> = Vec::new();
        let mut reads: Vec<(u32, u32)> = extra.into_iter().collect();
        for t in &s.threads {
            for e in &t.events {
                match e.what {
                    What::Read { cell, value } => reads.extend(value.map(|v| (cell, v))),
                    What::Write { cell, value } => written.push((cell, value)),
                    What::Rmw { cell, old, new } => {
                        reads.push((cell, old));
                        written.extend(new.map(|n| (cell, n)));
                    }
                    _ => {}
                }
            }
        }
        // Events of a run are recorded per thread; a read's source may come later in the
        // schedule only if it is written by the run so far, which is what is checked here.
        reads
            .iter()
            .all(|&(c, v)| init(c) == v || written.contains(&(c, v)))
    }

    /// The order of a collective memory step's accesses, chosen through `ch`. Only accesses
    /// to the same cell need an order (others commute): loads need none (they read one
    /// state); each cell's stores need only a last writer; each cell's atomics every order.
    fn collective_order(
        &self,
        op: &Op,
        accs: Vec<(usize, Cell_)>,
        ch: &mut Choices,
    ) -> Vec<(usize, Cell_)> {
        if matches!(op, Op::Load { .. }) || accs.len() < 2 {
            return accs;
        }
        let mut cells: Vec<u32> = accs.iter().map(|a| a.1.cell).collect();
        cells.sort_unstable();
        cells.dedup();
        let mut out = Vec::new();
        for c in cells {
            let mut rest: Vec<(usize, Cell_)> = accs
                .iter()
                .filter(|a| a.1.cell == c)
                .map(|(m, a)| {
                    (
                        *m,
                        Cell_ {
                            cell: a.cell,
                            values: a.values.clone(),
                        },
                    )
                })
                .collect();
            if matches!(op, Op::Store { .. }) {
                // Only the last store to a cell is visible: choose it.
                let k = ch.pick(rest.len());
                let last = rest.remove(k);
                out.extend(rest);
                out.push(last);
                continue;
            }
            while rest.len() > 1 {
                let k = ch.pick(rest.len());
                out.push(rest.remove(k));
            }
            out.extend(rest);
        }
        out
    }

    /// A workgroup barrier: when every thread of the workgroup waits at this same instance,
    /// they pass it together.
    fn wg_barrier(&self, s: &State, u: usize) -> Option<Outcome> {
        let lay = &self.prog.layout;
        let all: Vec<usize> = lay
            .workgroup_threads(lay.workgroup_of(u as u32))
            .map(|x| x as usize)
            .collect();
        let t = &s.threads[u];
        // Generated once, from the workgroup's first thread, when everyone waits here.
        if u != all[0]
            || !all
                .iter()
                .all(|&m| !s.threads[m].done && self.same_pos(&s.threads[m], t))
        {
            return None;
        }
        let Pos::Instr(i) = self.pos(t) else {
            unreachable!("at a barrier")
        };
        let mut ns = s.clone();
        for &m in &all {
            self.record(&mut ns, m, (t.block, i, true), What::Barrier);
            ns.threads[m].pc += 1;
        }
        self.end_step(&mut ns);
        Some(Outcome::Next(
            ns,
            vec![Step {
                threads: all.iter().map(|&m| m as u32).collect(),
                block: t.block,
                at: At::Instr(i),
                effects: Vec::new(),
            }],
        ))
    }

    /// A quorum barrier (docs/semantics.md): once open, thread `u` passes alone; before, when
    /// `quorum` threads of the workgroup wait at barriers of this name, they all pass as one
    /// step (generated once, from the first of them) and it opens. Fewer wait: no step.
    fn quorum_barrier(&self, s: &State, u: usize, name: u32, quorum: u32) -> Option<Outcome> {
        let lay = &self.prog.layout;
        let wg = lay.workgroup_of(u as u32);
        let t = &s.threads[u];
        let open = s.opened.binary_search(&(wg, name)).is_ok();
        let passing: Vec<usize> = if open {
            vec![u]
        } else {
            let waiting: Vec<usize> = lay
                .workgroup_threads(wg)
                .map(|m| m as usize)
                .filter(|&m| {
                    let w = &s.threads[m];
                    !w.done && self.at_quorum_barrier(w).is_some_and(|(n, _)| n == name)
                })
                .collect();
            if waiting.first() != Some(&u) || waiting.len() < quorum as usize {
                return None;
            }
            waiting
        };
        let mut ns = s.clone();
        for &m in &passing {
            let w = &ns.threads[m];
            let (block, Pos::Instr(i)) = (w.block, self.pos(w)) else {
                unreachable!("at a barrier")
            };
            let what = What::QuorumBarrier { released: !open };
            self.record(&mut ns, m, (block, i, !open), what);
            ns.threads[m].pc += 1;
        }
        if !open {
            let at = ns.opened.binary_search(&(wg, name)).unwrap_err();
            ns.opened.insert(at, (wg, name));
        }
        self.end_step(&mut ns);
        let Pos::Instr(i) = self.pos(t) else {
            unreachable!("at a barrier")
        };
        Some(Outcome::Next(
            ns,
            vec![Step {
                threads: passing.iter().map(|&m| m as u32).collect(),
                block: t.block,
                at: At::Instr(i),
                effects: Vec::new(),
            }],
        ))
    }

    /// A state's place (see [`StateGraph`]): the state with every block instance replaced by
    /// its static block and the iteration offsets to the other threads' blocks of the same
    /// workgroup, as far out as they can matter ([`loose_loops`]) (and, for lazy instances
    /// and sealed blocks, all of them, to their subgroup's threads).
    fn place_key(&self, s: &State) -> Vec<u32> {
        let prog = self.prog;
        let lay = &prog.layout;
        let mut k = Vec::new();
        // Where block `b` stands relative to the live threads of `range`; with `of`, the
        // thread at `b`, only the offsets that can matter between it and each of them.
        let relative =
            |k: &mut Vec<u32>, b: BlockId, range: std::ops::Range<u32>, of: Option<u32>| {
                k.push(prog.blocks[b as usize].sblock as u32);
                for u in range {
                    let t = &s.threads[u as usize];
                    if t.done {
                        continue;
                    }
                    let at = k.len();
                    k.push(0);
                    prog.iteration_offsets(b, t.block, k);
                    if let Some(me) = of {
                        let apart = (lay.subgroup_of(me) != lay.subgroup_of(u)) as usize;
                        let loops = &prog.cfg.blocks[prog.blocks[b as usize].sblock].loops;
                        let keep = (loops.iter().take(k.len() - at - 1))
                            .take_while(|&&l| !self.loose[l][apart])
                            .count();
                        k.truncate(at + 1 + keep);
                    }
                    k[at] = (k.len() - at) as u32;
                }
            };
        for (u, t) in s.threads.iter().enumerate() {
            k.extend([t.done as u32, t.started as u32]);
            if t.done {
                // Its registers are part of the outcome: two states that differ in them are
                // not one place (they were: a finished run's outcome was lost when another
                // with other final registers had been found first).
                k.extend(&t.regs);
                k.push(t.unspec.len() as u32);
                k.extend(&t.unspec);
                continue;
            }
            k.extend([prog.blocks[t.block as usize].sblock as u32, t.pc]);
            k.extend(&t.regs);
            k.push(t.unspec.len() as u32);
            k.extend(&t.unspec);
            k.push(t.pending.len() as u32);
            for &(r, (sg, b, i)) in &t.pending {
                k.extend([r, sg, i]);
                relative(&mut k, b, lay.subgroup_threads(sg), None);
            }
            let wg = lay.workgroup_of(u as u32);
            relative(&mut k, t.block, lay.workgroup_threads(wg), Some(u as u32));
        }
        k.push(u32::MAX);
        k.extend(&s.mem);
        k.push(s.mem_unspec.len() as u32);
        k.extend(&s.mem_unspec);
        k.push(s.sealed.len() as u32);
        for &(sg, b) in &s.sealed {
            k.push(sg);
            relative(&mut k, b, lay.subgroup_threads(sg), None);
        }
        k.push(s.lazy.len() as u32);
        for l in &s.lazy {
            let (sg, b, i) = l.key;
            k.extend([sg, i]);
            relative(&mut k, b, lay.subgroup_threads(sg), None);
            k.push(l.issued.len() as u32);
            for (lane, vals) in &l.issued {
                k.push(*lane);
                for v in vals {
                    k.extend([v.v, v.unspec as u32]);
                }
            }
        }
        k.push(s.unspecified as u32);
        k.push(s.opened.len() as u32);
        for &(wg, name) in &s.opened {
            k.extend([wg, name]);
        }
        k
    }

    fn same_pos(&self, a: &Thread, b: &Thread) -> bool {
        a.block == b.block && a.pc == b.pc
    }
}

struct Cell_ {
    cell: u32,
    values: Vec<Mv>,
}

/// Marks (or unmarks) `x` in a sorted list of marked registers or cells.
fn set_mark(list: &mut Vec<u32>, x: u32, marked: bool) {
    match (list.binary_search(&x), marked) {
        (Ok(i), false) => {
            list.remove(i);
        }
        (Err(i), true) => list.insert(i, x),
        _ => {}
    }
}

/// Events that may be fences for the memory model (`F`: memory barriers, and control barriers
/// with memory semantics, `memory::base::is_fence`): those whose schedule position a model that
/// reads `sched` only through `sync_fence` needs.
fn in_fence_schedule(what: &What) -> bool {
    matches!(
        what,
        What::Fence { .. } | What::Barrier | What::QuorumBarrier { .. }
    )
}

/// Under a relaxed memory model: the finished state `s` as a candidate leaves it (its final
/// memory, and each open read's register holding what the read returned).
fn finish(s: &State, fin: &memory::Final) -> State {
    let mut st = s.clone();
    st.mem = fin.memory.clone();
    for (t, got) in st.threads.iter_mut().zip(open_values(s, &fin.open)) {
        for &(r, k) in &t.open {
            t.regs[r as usize] = got[&k];
        }
    }
    st
}

/// Per thread of `s`, the value each of its open reads returned (by index in its events),
/// from a candidate's values in the order of [`memory::Final::open`]: thread by thread, in
/// program order.
fn open_values(s: &State, open: &[u32]) -> Vec<BTreeMap<u32, u32>> {
    let mut values = open.iter().copied();
    (s.threads.iter())
        .map(|t| {
            (t.events.iter().enumerate())
                .filter(|(_, e)| matches!(e.what, What::Read { value: None, .. }))
                .map(|(k, _)| (k as u32, values.next().expect("a value per open read")))
                .collect()
        })
        .collect()
}

/// The values of the condition's observables in `s`, and whether one is unspecified.
fn observed(prog: &Program, s: &State) -> (Vec<u32>, bool) {
    let mut unspecified = false;
    let values = (prog.observables.iter())
        .map(|o| {
            let (v, unspec) = match o {
                crate::ir::Observable::Reg { thread, reg } => {
                    let t = &s.threads[*thread as usize];
                    (t.regs[*reg as usize], t.unspec.binary_search(reg).is_ok())
                }
                crate::ir::Observable::Mem { cell } => (
                    s.mem[*cell as usize],
                    s.mem_unspec.binary_search(cell).is_ok(),
                ),
            };
            unspecified |= unspec;
            v
        })
        .collect();
    (values, unspecified)
}

fn ub(mut step: Step, k: UbKind) -> Outcome {
    step.effects.push(Effect::Ub(k));
    Outcome::Dead(DeadKind::Ub(k), step, None)
}
