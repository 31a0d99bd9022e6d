//! Candidate executions of one finished run, and the cat model's verdict on each.
//!
//! A run of the SIMT-Step rules fixes each thread's events and the values its reads
//! returned (guessed by the engine). Every reads-from choice that matches those values and
//! every coherence order (initial writes first) is a candidate execution; the model keeps
//! the consistent ones. The base names given to the model are listed in
//! docs/memory-models.md; this file is where each is computed.

use super::base::{self, EventInfo, EventKind};
use super::MemoryModel;
use crate::cat::concrete::{Bits, Concrete, Matrix};
use crate::cat::interp::{self, EvalError};
use crate::ir::{BlockId, Future, FutureWrite, Program};
use itertools::Itertools;
use std::collections::{BTreeMap, BTreeSet};

/// One recorded step of a thread that a memory model can see.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The instruction (block instance and index in the block) that performed it.
    pub block: BlockId,
    pub instr: u32,
    pub what: What,
    /// Position in the SIMT-Step schedule (counted only when the model reads `sched`).
    pub step: u32,
    /// Taken as one collective step with the other lanes of its dynamic block.
    pub collective: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum What {
    /// `value` is `None` for an *open* read ([`crate::ir::Deps::read_open`]): the run does
    /// not depend on it, and each candidate gives it the value of the write it reads from.
    Read {
        cell: u32,
        value: Option<u32>,
    },
    Write {
        cell: u32,
        value: u32,
    },
    /// `new` is `None` when a compare-exchange failed: a read alone, though still in `RMW`
    /// (as Dartagnan tags it), with no `rmw` pair.
    Rmw {
        cell: u32,
        old: u32,
        new: Option<u32>,
    },
    /// A fence, with its id when it has one (`Op::Fence`).
    Fence {
        id: Option<u32>,
    },
    Barrier,
    /// A quorum barrier passed in the step that opened it (`released`), or alone after.
    QuorumBarrier {
        released: bool,
    },
    SgOp,
}

/// What a candidate leaves for the question to observe: the final memory (whole memory,
/// initial values where nothing was written) and the value each open read returned, in the
/// order of the run's open reads (thread by thread, in program order).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Final {
    pub memory: Vec<u32>,
    pub open: Vec<u32>,
}

/// What the model says about one run.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// What each consistent candidate leaves, with the first such candidate's execution (for
    /// witnesses).
    pub finals: BTreeMap<Final, super::Execution>,
    /// Candidates that fail exactly one axiom, by what they leave and that axiom's name: the
    /// first such candidate's execution (what makes an outcome forbidden, when it is).
    pub near_misses: BTreeMap<(Final, String), super::Execution>,
    /// Flags (`flag ~empty race as data-race`) raised by some consistent candidate, with
    /// what the first such candidate leaves.
    pub flags: BTreeMap<String, Final>,
    /// Candidates were too many to try: the run's verdict is unknown.
    pub too_many: bool,
    /// The search for near misses stopped at its cap: `near_misses` may lack some.
    pub near_misses_cut: bool,
    /// The run has open reads: under [`judge`] its near misses are left for [`near_misses`],
    /// and when `too_many` the engine may guess their values instead.
    pub open_reads: bool,
    /// The budget ran out while trying the candidates: the run's verdict is unknown.
    pub exhausted: Option<crate::budget::Exhausted>,
}

/// The source of a prefix's read that reads a write performed after the prefix (no event).
const LATER: usize = usize::MAX;

/// Choices the search of a run's candidates makes (each judged part or whole candidate
/// counts one) before giving up: the verdict is then `unknown`.
pub const MAX_CANDIDATES: u64 = 1 << 20;

/// For a run cut short: judged only when it has at most this many candidates, and searched
/// with at most this many choices, else reported unjudged: such runs are many (every
/// interleaving that reaches the cut), and a doubt costs less than the time.
pub const MAX_PREFIX_CANDIDATES: u64 = 1 << 12;

#[derive(Clone, Debug)]
struct Event {
    thread: Option<u32>,
    cell: Option<u32>,
    /// (0 for an open read, [`What::Read`]: its value is its source's, looked up there.)
    value: u32,
    read: bool,
    open: bool,
    write: bool,
    /// A named write still to come, after a run cut short (its value, when `open`, is any).
    later: bool,
    /// Index in the thread's access list (RMW halves share it).
    access: usize,
    acc: Option<Access>,
}

impl Event {
    fn info(&self) -> EventInfo {
        let what = self.acc.as_ref().map(|a| a.what);
        EventInfo {
            thread: self.thread,
            at: self.acc.as_ref().map(|a| (a.block, a.instr)),
            read: self.read,
            write: self.write,
            rmw: matches!(what, Some(What::Rmw { .. })),
            released: matches!(what, Some(What::QuorumBarrier { released: true })),
            id: match what {
                Some(What::Fence { id }) => id,
                _ => None,
            },
            kind: match what {
                Some(What::Fence { .. }) => EventKind::Fence,
                Some(What::Barrier | What::QuorumBarrier { .. }) => EventKind::Barrier,
                Some(What::SgOp) => EventKind::SgOp,
                _ => EventKind::Access,
            },
        }
    }
}

/// Judges one finished run: `runs[t]` are thread t's accesses in program order. `keep`: does
/// what a candidate leaves pass the test's filter? A candidate counts (its finals, its flags)
/// only through the finals that do.
pub fn judge(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    keep: &dyn Fn(&Final) -> bool,
) -> Result<Judgement, EvalError> {
    judge_by(prog, model, runs, init, budget, Goal::All, keep)
}

/// The near misses of a finished run whose [`judge`] skipped them (a run with open reads),
/// searched within a cap of their own ([`Judgement::near_misses_cut`] says when it stopped).
pub fn near_misses(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    keep: &dyn Fn(&Final) -> bool,
) -> Result<Judgement, EvalError> {
    judge_by(prog, model, runs, init, budget, Goal::NearMisses, keep)
}

/// May a run cut short (by the loop bound, or by undefined behaviour) begin a consistent
/// execution, as far as [`MemoryModel::prefix`] can tell? `later[t]`: what thread `t` may
/// still write after the run's end ([`Program::future`]; nothing once it terminated), which a
/// read of another thread may have taken (load buffering past the cut). `None` when the
/// search stopped after [`MAX_PREFIX_CANDIDATES`] choices or the budget ran out (then it may).
///
/// A run's candidates are searched however many there are: a chain of read-modify-writes
/// on one cell has `k!` coherence orders, of which atomicity and coherence leave one, found
/// in a few choices. (Giving up at once beyond 2^12 candidates left a single thread's loop of
/// two exchanges and a store, seven writes at `--unroll 3`, as a doubt at every bound.)
pub fn prefix_consistent(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    later: &[Future],
) -> Result<Option<bool>, EvalError> {
    prefix_search(
        prog,
        model,
        runs,
        init,
        budget,
        (MAX_PREFIX_CANDIDATES, u64::MAX),
        later,
    )
}

/// What a judgement that looks for one candidate found: `None` when it stopped first. (A
/// run cut short has no final state for a filter to judge.)
fn one_found(j: Judgement) -> Result<Option<bool>, EvalError> {
    Ok((!j.too_many && j.exhausted.is_none()).then_some(!j.finals.is_empty()))
}

/// Most writes still to come that a prefix's judgement names: it tries every set of them
/// (the events of an execution the run begins are the run's and those later writes some read
/// of the run takes), so beyond these a thread's writes stay unnamed.
const MAX_NAMED_LATER: usize = 4;

/// Writes still to come, as a prefix's judgement sees them: `named` are events of the
/// candidate (each a [`FutureWrite`] of a thread), `unbounded[t]` the globals thread `t` may
/// write unnamed (a read then takes [`LATER`]).
struct Later<'a> {
    named: Vec<(u32, FutureWrite)>,
    unbounded: &'a [BTreeSet<u32>],
}

/// [`prefix_consistent`] as a quick check (the liveness question's pruning of runs at loop
/// edges: docs/memory-models.md, "Runs cut short"): `None` at once when the run has more
/// than `cap` candidates (before pruning), and beyond `cap` choices searched.
///
/// The run and a set of named later writes must make a candidate satisfying the
/// prefix-closed axioms: the model's axioms hold on any part of a
/// consistent execution (`cat::prefix`), the run plus the later writes its reads take is such
/// a part, and a later write is an instance of an instruction its thread can still reach, so
/// its tags, program order after its thread's run and dependencies are the instance's own.
/// The empty set is tried first (most runs pass it).
pub fn prefix_consistent_within(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    cap: u64,
    later: &[Future],
) -> Result<Option<bool>, EvalError> {
    prefix_search(prog, model, runs, init, budget, (cap, cap), later)
}

/// [`prefix_consistent`] searching at most `caps.0` choices, and giving up at once on a run
/// with more than `caps.1` candidates.
fn prefix_search(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    caps: (u64, u64),
    later: &[Future],
) -> Result<Option<bool>, EvalError> {
    // A later write is worth naming when a read of another thread may have taken it.
    let taken = |u: usize, w: &FutureWrite| {
        (runs.iter().enumerate().filter(|&(t, _)| t != u))
            .flat_map(|(_, r)| r.iter())
            .any(|a| match a.what {
                What::Read { cell, value } => {
                    cell == w.cell && (value.is_none() || w.value.is_none() || value == w.value)
                }
                What::Rmw { cell, old, .. } => cell == w.cell && w.value.is_none_or(|v| v == old),
                _ => false,
            })
    };
    let mut unbounded: Vec<BTreeSet<u32>> = later.iter().map(|f| f.unbounded.clone()).collect();
    let mut named: Vec<(u32, FutureWrite)> = Vec::new();
    for (u, f) in later.iter().enumerate() {
        let mine: Vec<(u32, FutureWrite)> = (f.once.iter())
            .filter(|w| taken(u, w))
            .map(|w| (u as u32, *w))
            .collect();
        if named.len() + mine.len() <= MAX_NAMED_LATER {
            named.extend(mine);
        } else {
            unbounded[u].extend(mine.iter().map(|(_, w)| w.global));
        }
    }
    for k in 0..=named.len() {
        for set in named.iter().copied().combinations(k) {
            let l = Later {
                named: set,
                unbounded: &unbounded,
            };
            let goal = Goal::Prefix(caps, &l);
            match one_found(judge_by(prog, model, runs, init, budget, goal, &|_| true)?)? {
                Some(true) => return Ok(Some(true)),
                Some(false) => {}
                None => return Ok(None),
            }
        }
    }
    Ok(Some(false))
}

/// What a thread of a run that may stop for good repeats for ever.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Window {
    /// Nothing: it terminated, waits, or is never run again.
    None,
    /// Its accesses from this index on, which write nothing.
    Reads(usize),
    /// Its accesses in `from..mid` (the *infix*) and then `mid..` (the *suffix*): the same
    /// accesses twice, which write.
    Writes { from: usize, mid: usize },
}

/// Can a run stopped where it stands go on forever (docs/progress.md, "Liveness under a memory
/// model")? Its events must make a consistent execution (every axiom) in which each thread
/// can repeat its `windows` entry for ever:
/// - a window of reads reads coherence-maximal writes of its cells: a later write would
///   eventually be seen, so a read of an older one cannot repeat forever;
/// - a window of writes is Dartagnan's infix and suffix: the suffix's writes come
///   coherence-after every earlier write of their cells, its reads read the infix or the
///   suffix (or, of a cell no window writes, a coherence-maximal write), nothing before the
///   suffix reads it, and every reads-from between two infix events is repeated between their
///   twins in the suffix. Appending the suffix again then repeats it.
///
/// `None` when the candidates were too many or the budget ran out.
pub fn hang_consistent(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    windows: &[Window],
) -> Result<Option<bool>, EvalError> {
    let goal = Goal::Hang(windows);
    one_found(judge_by(prog, model, runs, init, budget, goal, &|_| true)?)
}

/// What a judgement looks for.
#[derive(Clone, Copy)]
enum Goal<'a> {
    /// Every consistent candidate, its finals, flags and near misses (for a run with open
    /// reads, near misses are left for `NearMisses`).
    All,
    /// The near misses of a run with open reads.
    NearMisses,
    /// One candidate satisfying the prefix-closed axioms ([`MemoryModel::prefix`]), searching
    /// at most the first number of choices, when the run has at most the second number of
    /// candidates. (A prefix is asked at every step of a loop: searching many candidates
    /// there cost more than the runs it dropped saved.) The writes still to come that reads
    /// may take.
    Prefix((u64, u64), &'a Later<'a>),
    /// One consistent candidate in which every thread can repeat its window for ever.
    Hang(&'a [Window]),
}

/// Judges a run as `goal` asks.
fn judge_by(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
    goal: Goal,
    keep: &dyn Fn(&Final) -> bool,
) -> Result<Judgement, EvalError> {
    let (cat, first) = match goal {
        Goal::All | Goal::NearMisses => (&model.cat, false),
        Goal::Prefix(..) => (&model.prefix, true),
        Goal::Hang(_) => (&model.cat, true),
    };
    let mut ev: Vec<Event> = Vec::new();
    // Initial writes: one per cell some thread touches.
    let mut cells = BTreeSet::new();
    for r in runs {
        for a in r.iter() {
            match a.what {
                What::Read { cell, .. } | What::Write { cell, .. } | What::Rmw { cell, .. } => {
                    cells.insert(cell);
                }
                _ => {}
            }
        }
    }
    for &c in &cells {
        ev.push(Event {
            thread: None,
            cell: Some(c),
            value: init[c as usize],
            read: false,
            open: false,
            write: true,
            later: false,
            access: 0,
            acc: None,
        });
    }
    let mut rmw = Vec::new();
    for (t, r) in runs.iter().enumerate() {
        for (k, a) in r.iter().enumerate() {
            let mut push = |cell, value: Option<u32>, read, write| {
                ev.push(Event {
                    thread: Some(t as u32),
                    cell,
                    value: value.unwrap_or(0),
                    read,
                    open: value.is_none(),
                    write,
                    later: false,
                    access: k,
                    acc: Some(a.clone()),
                });
                ev.len() - 1
            };
            match a.what {
                What::Read { cell, value } => {
                    push(Some(cell), value, true, false);
                }
                What::Write { cell, value } => {
                    push(Some(cell), Some(value), false, true);
                }
                What::Rmw { cell, old, new } => {
                    let r = push(Some(cell), Some(old), true, false);
                    if let Some(new) = new {
                        let w = push(Some(cell), Some(new), false, true);
                        rmw.push((r, w));
                    }
                }
                What::Fence { .. } | What::Barrier | What::QuorumBarrier { .. } | What::SgOp => {
                    push(None, Some(0), false, false);
                }
            }
        }
    }
    // Named writes still to come: after their thread's run in program order, in the order
    // of their instructions (a path visits block instances in increasing order), and after
    // every step of the run in the schedule.
    let named: &[(u32, FutureWrite)] = match goal {
        Goal::Prefix(_, l) => &l.named,
        _ => &[],
    };
    let mut named = named.to_vec();
    named.sort_by_key(|(t, w)| (*t, w.at));
    for (k, &(t, w)) in named.iter().enumerate() {
        let what = match w.rmw {
            true => What::Rmw {
                cell: w.cell,
                old: 0,
                new: w.value,
            },
            false => What::Write {
                cell: w.cell,
                value: w.value.unwrap_or(0),
            },
        };
        ev.push(Event {
            thread: Some(t),
            cell: Some(w.cell),
            value: w.value.unwrap_or(0),
            read: false,
            open: w.value.is_none(),
            write: true,
            later: true,
            access: runs[t as usize].len() + k,
            acc: Some(Access {
                block: w.at.0,
                instr: w.at.1,
                what,
                step: u32::MAX,
                collective: false,
            }),
        });
    }
    let n = ev.len();
    let infos: Vec<EventInfo> = ev.iter().map(|e| e.info()).collect();
    let mut alg = Concrete {
        n,
        ..Default::default()
    };
    for (name, members) in base::sets(prog, &infos) {
        let mut b = Bits::new(n);
        members
            .iter()
            .enumerate()
            .filter(|(_, m)| **m)
            .for_each(|(i, _)| b.insert(i));
        alg.sets.insert(name, b);
    }
    let rel = |f: &dyn Fn(usize, usize) -> bool| {
        let mut m = Matrix::new(n);
        for a in 0..n {
            for b in 0..n {
                if f(a, b) {
                    m.insert(a, b);
                }
            }
        }
        m
    };
    for name in base::FIXED_RELATIONS {
        let m = rel(&|a, b| base::fixed(prog, name, &infos[a], &infos[b]));
        alg.rels.insert(name.to_string(), m);
    }
    // Relations fixed by the run: program order along it, locations, RMW pairs.
    let same_thread = |a: usize, b: usize| ev[a].thread.is_some() && ev[a].thread == ev[b].thread;
    let po = rel(&|a, b| same_thread(a, b) && (ev[a].access, a) < (ev[b].access, b));
    alg.rels.insert("po".into(), po);
    let loc = rel(&|a, b| ev[a].cell.is_some() && ev[a].cell == ev[b].cell);
    let vloc = rel(&|a, b| loc.contains(a, b) && base::same_reference(prog, &infos[a], &infos[b]));
    alg.rels.insert("vloc".into(), vloc);
    alg.rels.insert("loc".into(), loc);
    alg.rels
        .insert("rmw".into(), Matrix::from_pairs(n, rmw.iter().copied()));
    // The same instance taken as one collective step.
    let collective = |e: &Event| e.acc.as_ref().is_some_and(|p| p.collective);
    let sinst = &alg.rels["sinst"];
    let sstep = rel(&|a, b| sinst.contains(a, b) && collective(&ev[a]) && collective(&ev[b]));
    alg.rels.insert("sstep".into(), sstep);
    if model.uses_sched {
        let step = |e: &Event| e.acc.as_ref().map(|a| a.step);
        alg.rels.insert(
            "sched".into(),
            rel(&|a, b| match (step(&ev[a]), step(&ev[b])) {
                (Some(x), Some(y)) => x < y,
                (None, Some(_)) => true,
                _ => false,
            }),
        );
    } else {
        // Only names the model never reads mention it (the stdlib's `sync_fence`).
        alg.rels.insert("sched".into(), rel(&|_, _| false));
    }

    // The choices: a source for every read, an order of every cell's writes.
    // Under `Goal::Hang`: each event's part (0: before the windows, 1: an infix, 2: a suffix
    // or a window of reads), the cells windows of writes write, and per read the index of its
    // cell's orders when it must read a coherence-maximal write.
    let windows: &[Window] = match goal {
        Goal::Hang(w) => w,
        _ => &[],
    };
    let part: Vec<u8> = (ev.iter())
        .map(|e| match e.thread.and_then(|t| windows.get(t as usize)) {
            Some(Window::Reads(from)) if e.access >= *from => 2,
            Some(Window::Writes { mid, .. }) if e.access >= *mid => 2,
            Some(Window::Writes { from, .. }) if e.access >= *from => 1,
            _ => 0,
        })
        .collect();
    let lasso = |e: usize| {
        matches!(
            ev[e].thread.and_then(|t| windows.get(t as usize)),
            Some(Window::Writes { .. })
        )
    };
    let suffix: Vec<bool> = (0..n).map(|e| part[e] == 2 && lasso(e)).collect();
    let rewritten: BTreeSet<u32> = (0..n)
        .filter(|&e| ev[e].write && part[e] > 0 && lasso(e))
        .filter_map(|e| ev[e].cell)
        .collect();
    let reads: Vec<usize> = (0..n).filter(|&i| ev[i].read).collect();
    // A prefix's read may read a write performed after the run's end by another thread still
    // running: a named one (an event), or one left unnamed, of a global the thread may write
    // unboundedly; its source is then [`LATER`], outside the prefix (no `rf` pair), as the
    // restriction of the whole execution to the prefix has it.
    let unbounded: &[BTreeSet<u32>] = match goal {
        Goal::Prefix(_, l) => l.unbounded,
        _ => &[],
    };
    // Each cell some thread writes unboundedly: its global, and the values a write of it may
    // store (`None`: any value).
    let written_later: BTreeMap<u32, (u32, Option<BTreeSet<u32>>)> = (unbounded.iter())
        .flatten()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .flat_map(|&g| {
            let values = prog.values_written(g);
            let info = &prog.globals[g as usize];
            (info.base..info.base + info.len).map(move |c| (c, (g, values.clone())))
        })
        .collect();
    let mut sources: Vec<Vec<usize>> = Vec::new();
    for &r in &reads {
        // A read-modify-write is one indivisible step: its read never reads its own write
        // (as in the Z3 encoding; docs/memory-models.md).
        let mut s: Vec<usize> = (0..n)
            .filter(|&w| ev[w].write && ev[w].cell == ev[r].cell)
            .filter(|&w| ev[r].open || ev[w].open || ev[w].value == ev[r].value)
            .filter(|&w| !rmw.contains(&(r, w)))
            .filter(|&w| !(ev[w].later && ev[w].thread == ev[r].thread))
            .collect();
        // ... unnamed, by a thread other than the reader's that may write the global
        // unboundedly, a value that a write of it may store.
        let t = ev[r].thread.expect("a read has a thread") as usize;
        let cell = ev[r].cell.expect("a read has a cell");
        if let Some((g, values)) = written_later.get(&cell) {
            let writer = (unbounded.iter().enumerate()).any(|(u, gs)| u != t && gs.contains(g));
            let value = ev[r].open || values.as_ref().is_none_or(|vs| vs.contains(&ev[r].value));
            if writer && value {
                s.push(LATER);
            }
        }
        if s.is_empty() {
            return Ok(Judgement::default());
        }
        // A read that a window's repetition fixes reads only what it may: a suffix read of a
        // cell the windows write reads a window, nothing else reads a suffix.
        let s: Vec<usize> = if windows.is_empty() {
            s
        } else {
            let rewrites = rewritten.contains(&ev[r].cell.expect("a read has a cell"));
            s.into_iter()
                .filter(|&w| {
                    if suffix[r] && rewrites {
                        part[w] > 0 && lasso(w)
                    } else {
                        !suffix[w]
                    }
                })
                .collect()
        };
        if s.is_empty() {
            return Ok(Judgement::default());
        }
        sources.push(s);
    }
    let mut writes: BTreeMap<u32, (usize, Vec<usize>)> = BTreeMap::new();
    for (i, e) in ev.iter().enumerate() {
        if let (true, Some(c)) = (e.write, e.cell) {
            let entry = writes.entry(c).or_insert((usize::MAX, Vec::new()));
            if e.thread.is_none() {
                entry.0 = i;
            } else {
                entry.1.push(i);
            }
        }
    }
    let partial = model.coherence == super::Coherence::Partial;
    let mut out = Judgement::default();
    // A run with more candidates than the search's cap is given up at once, except when a
    // hang is asked about: there the pruning (atomicity, coherence) is what decides exchange
    // loops, whose candidates are many. Under `Goal::All` near misses keep most branches open,
    // and searching a million of them ran a test's whole budget for the same `unknown`.
    let open_reads = reads.iter().any(|&r| ev[r].open);
    out.open_reads = open_reads;
    let (cap, listed) = match goal {
        Goal::Prefix(caps, _) => caps,
        Goal::All if open_reads => (OPEN_CAP, MAX_CANDIDATES),
        Goal::All | Goal::NearMisses => (MAX_CANDIDATES, MAX_CANDIDATES),
        Goal::Hang(_) => (MAX_CANDIDATES, u64::MAX),
    };
    // Partial orders are listed whole, per cell (total ones are built write by write).
    // (Open reads are left out: their sources are many, but the model rules most out at
    // once, and the search's own cap still holds.)
    let mut count: u64 = 1;
    for (s, &r) in sources.iter().zip(&reads) {
        if !ev[r].open {
            count = count.saturating_mul(s.len() as u64);
        }
    }
    for (_, ws) in writes.values() {
        count = count.saturating_mul(orders_count(ws.len(), partial));
    }
    let too_long = |ws: &Vec<usize>| partial && orders_count(ws.len(), true) > cap;
    if count > listed || writes.values().any(|(_, ws)| too_long(ws)) {
        out.too_many = true;
        return Ok(out);
    }
    let order_of: BTreeMap<u32, usize> = writes.keys().enumerate().map(|(k, &c)| (c, k)).collect();
    let must_be_last: Vec<Option<usize>> = reads
        .iter()
        .map(|&r| {
            let cell = ev[r].cell.expect("a read has a cell");
            (part[r] == 2 && !rewritten.contains(&cell)).then(|| order_of[&cell])
        })
        .collect();
    // An infix event's twin in the suffix: the same access of its thread one window later.
    let index: BTreeMap<(u32, usize, bool), usize> = (0..n)
        .filter_map(|e| Some(((ev[e].thread?, ev[e].access, ev[e].write), e)))
        .collect();
    let twin = |e: usize| -> Option<usize> {
        let t = ev[e].thread?;
        let Some(Window::Writes { from, mid }) = windows.get(t as usize) else {
            return None;
        };
        index
            .get(&(t, ev[e].access + (mid - from), ev[e].write))
            .copied()
    };
    let read_no: BTreeMap<usize, usize> = reads.iter().enumerate().map(|(k, &r)| (r, k)).collect();
    let mut orders: Vec<Vec<CoOrder>> = Vec::new();
    if partial {
        for (init, ws) in writes.values() {
            match coherence_orders(*init, ws, partial, budget) {
                Ok(o) => orders.push(o),
                Err(e) => {
                    out.exhausted = Some(e);
                    return Ok(out);
                }
            }
        }
    }
    let pruning = match goal {
        Goal::Prefix(..) => &model.prefix_growing,
        _ => &model.growing,
    };
    // Under `Goal::All` a candidate that fails one axiom is still a near miss, so branches
    // failing one weakened axiom are searched on. With open reads that multiplies: every wrong
    // source of one fails the same axiom. Only the consistent candidates of such a run are
    // searched (prune at one failed axiom); its near misses are searched when a forbidden
    // verdict needs them (`Goal::NearMisses`), within a cap of their own.
    let (prune_at, near_misses_only) = match goal {
        Goal::All if open_reads => (1, false),
        Goal::All => (2, false),
        Goal::NearMisses => (2, true),
        _ => (1, false),
    };
    let mut memo = interp::Memo::new(cat, super::GROWING);
    let mut leaf = |a: &mut Concrete, rf_pick: &[usize], chosen: &[CoOrder]| {
        let chosen: Vec<&CoOrder> = chosen.iter().collect();
        let rf = Matrix::from_pairs(
            n,
            (reads.iter().zip(rf_pick).enumerate())
                .map(|(k, (&r, &p))| (sources[k][p], r))
                .filter(|&(w, _)| w != LATER),
        );
        // Under `Goal::Hang` (reads-from already restricted where it alone decides, windows
        // of reads reading coherence-maximal writes as the search chose them): suffix writes
        // come after every earlier write of their cells, and reads-from inside an infix is
        // repeated between the twins in the suffix.
        let src = |r: usize| {
            let k = *read_no.get(&r)?;
            Some(sources[k][rf_pick[k]]).filter(|&w| w != LATER)
        };
        let co = Matrix::from_pairs(n, chosen.iter().flat_map(|o| o.pairs.iter().copied()));
        let repeats = || {
            (0..n).all(|e| {
                let ordered = !(suffix[e] && ev[e].write)
                    || (0..n).all(|w| {
                        !(ev[w].write && ev[w].cell == ev[e].cell) || suffix[w] || co.contains(w, e)
                    });
                let twinned = !(ev[e].read && part[e] == 1) || src(e).is_none_or(|w| {
                    part[w] != 1
                        || matches!((twin(e), twin(w)), (Some(te), Some(tw)) if src(te) == Some(tw))
                });
                ordered && twinned
            })
        };
        if !windows.is_empty() && !repeats() {
            return Ok(false);
        }
        a.rels.insert("rf".into(), rf.clone());
        a.rels.insert("co".into(), co);
        let results = interp::run_with(cat, a, &mut memo)?;
        let failed: Vec<usize> = (0..results.len())
            .filter(|&k| !results[k].flag && !results[k].holds)
            .collect();
        // Each choice of a coherence-maximal write per cell is a final memory (one choice
        // under a total order).
        let ev = &ev;
        let open: Vec<u32> = (reads.iter().zip(rf_pick).enumerate())
            .filter(|(_, (&r, _))| ev[r].open)
            .map(|(k, (_, &p))| ev.get(sources[k][p]).map_or(0, |w| w.value))
            .collect();
        let finals_of = || {
            let mut all = vec![init.to_vec()];
            for o in &chosen {
                all = all
                    .into_iter()
                    .flat_map(|f: Vec<u32>| {
                        o.last.iter().map(move |&w| {
                            let mut f = f.clone();
                            let e = &ev[w];
                            f[e.cell.expect("a write has a cell") as usize] = e.value;
                            f
                        })
                    })
                    .collect();
            }
            let mut all: Vec<Final> = (all.into_iter())
                .map(|memory| Final {
                    memory,
                    open: open.clone(),
                })
                .collect();
            all.retain(|f| keep(f));
            all
        };
        if failed.is_empty() {
            let finals = finals_of();
            if let Some(f) = finals.first() {
                for c in results.iter().filter(|c| c.flag && c.holds) {
                    out.flags.entry(c.name.clone()).or_insert_with(|| f.clone());
                }
            }
            for finals in finals {
                out.finals
                    .entry(finals)
                    .or_insert_with(|| execution(prog, ev, &rf, &chosen));
            }
            return Ok(first && !out.finals.is_empty());
        } else if let [k] = failed[..] {
            let c = &results[k];
            let name = super::axiom_name(k, &c.name, c.kind);
            for finals in finals_of() {
                out.near_misses
                    .entry((finals, name.clone()))
                    .or_insert_with(|| execution(prog, ev, &rf, &chosen));
            }
        }
        Ok(false)
    };
    let mut search = Search::new(alg, pruning, partial, &writes, orders, &reads, &sources);
    search.prune_at = prune_at;
    search.must_be_last = &must_be_last;
    let cap = if near_misses_only { NEAR_MISS_CAP } else { cap };
    let end = search.run(cap, budget, &mut leaf)?;
    tracing::debug!(
        events = n,
        nodes = search.nodes,
        prune_at,
        stop = ?end.as_ref().map(|e| match e {
            Stop::TooMany => "too many",
            Stop::Exhausted(_) => "budget",
            Stop::Found => "found",
        }),
        "searched candidates"
    );
    match end {
        Some(Stop::TooMany) if near_misses_only => out.near_misses_cut = true,
        Some(Stop::TooMany) => out.too_many = true,
        Some(Stop::Exhausted(e)) => out.exhausted = Some(e),
        Some(Stop::Found) | None => {}
    }
    Ok(out)
}

/// Choices the search of a run with open reads makes before it gives up (`too_many`): its
/// open reads leave the model free to choose among many sources, and guessing their values
/// (one run per guess) is then the cheaper way ([`crate::engine::explore`] explores again so).
const OPEN_CAP: u64 = 1 << 13;

/// Choices the search for the near misses of a run with open reads makes before it stops
/// (the near misses found so far are then reported as some, not all).
const NEAR_MISS_CAP: u64 = 1 << 14;

/// What a search does with a whole candidate (the algebra with its base names, the index of
/// each read's source, each cell's order): true when the goal is met.
type Leaf<'l> = dyn FnMut(&mut Concrete, &[usize], &[CoOrder]) -> Result<bool, EvalError> + 'l;

/// Why a search of candidates stopped before the end.
enum Stop {
    /// More than the cap of choices were tried.
    TooMany,
    Exhausted(crate::budget::Exhausted),
    /// The goal was met.
    Found,
}

/// One choice of the search: where a write goes in its cell's total coherence order, a whole
/// partial order of a cell, or the source of a read.
#[derive(Clone, Copy)]
enum Step {
    Insert { cell: usize, write: usize },
    Order { cell: usize },
    Source { read: usize },
}

/// The search of a run's candidate executions: coherence first (each cell's writes inserted
/// one by one into a total order, or a whole partial order per cell), then a source per
/// read. After each choice the model weakened to the part chosen so far
/// ([`MemoryModel::growing`]) judges it, and a branch that already breaks `prune_at` axioms
/// is left: every candidate below breaks them too. Herd lists candidates whole; with
/// read-modify-writes in a loop their number grows as the factorial of the writes, while
/// atomicity and coherence leave few.
struct Search<'a> {
    alg: Concrete,
    pruning: &'a crate::cat::Model,
    /// What the pruning model derives from the run's events alone.
    memo: interp::Memo<Concrete>,
    /// Whether the weakened model has an axiom left at all.
    prunes: bool,
    prune_at: usize,
    partial: bool,
    steps: Vec<Step>,
    inits: Vec<usize>,
    cell_writes: Vec<Vec<usize>>,
    orders: Vec<Vec<CoOrder>>,
    reads: &'a [usize],
    sources: &'a [Vec<usize>],
    /// Per read, the cell whose coherence-maximal write it must read (`Goal::Hang`).
    must_be_last: &'a [Option<usize>],
    /// The choices so far: each cell's order (total: the writes inserted; partial: the
    /// index of its order, if chosen), each read's source (if chosen).
    seqs: Vec<Vec<usize>>,
    order_pick: Vec<Option<usize>>,
    rf_pick: Vec<Option<usize>>,
    nodes: u64,
}

impl<'a> Search<'a> {
    fn new(
        alg: Concrete,
        pruning: &'a crate::cat::Model,
        partial: bool,
        writes: &BTreeMap<u32, (usize, Vec<usize>)>,
        orders: Vec<Vec<CoOrder>>,
        reads: &'a [usize],
        sources: &'a [Vec<usize>],
    ) -> Search<'a> {
        // Total orders: in event order, a read's source just before the writes after it, so
        // that a read-modify-write's write is placed right after choosing what it read
        // (atomicity then leaves one place). Partial orders: each cell's whole order first.
        let mut steps: Vec<(usize, Step)> = Vec::new();
        for (cell, (_, ws)) in writes.values().enumerate() {
            if partial {
                steps.push((0, Step::Order { cell }));
            } else {
                steps.extend(
                    ws.iter()
                        .map(|&write| (write, Step::Insert { cell, write })),
                );
            }
        }
        steps.extend((reads.iter().enumerate()).map(|(read, &r)| (r, Step::Source { read })));
        steps.sort_by_key(|(at, _)| *at);
        let steps = steps.into_iter().map(|(_, s)| s).collect();
        let prunes = has_axiom(pruning);
        Search {
            alg,
            pruning,
            memo: interp::Memo::new(pruning, super::GROWING),
            prunes,
            prune_at: 1,
            partial,
            steps,
            inits: writes.values().map(|(i, _)| *i).collect(),
            cell_writes: writes.values().map(|(_, ws)| ws.clone()).collect(),
            orders,
            reads,
            sources,
            must_be_last: &[],
            seqs: vec![Vec::new(); writes.len()],
            order_pick: vec![None; writes.len()],
            rf_pick: vec![None; reads.len()],
            nodes: 0,
        }
    }

    /// Runs `leaf` on every candidate no weakened axiom rules out, until it returns true.
    fn run(
        &mut self,
        cap: u64,
        budget: &crate::budget::Budget,
        leaf: &mut Leaf,
    ) -> Result<Option<Stop>, EvalError> {
        self.go(0, false, cap, budget, leaf)
    }

    /// Steps `k..` of the search; `forced`: step `k - 1` had one choice only (such steps are
    /// neither counted against the cap nor judged: the next choice will be).
    fn go(
        &mut self,
        k: usize,
        forced: bool,
        cap: u64,
        budget: &crate::budget::Budget,
        leaf: &mut Leaf,
    ) -> Result<Option<Stop>, EvalError> {
        let whole = k == self.steps.len();
        if whole || !forced {
            self.nodes += 1;
            if self.nodes > cap {
                return Ok(Some(Stop::TooMany));
            }
        }
        if let Err(e) = budget.check("judging candidate executions") {
            return Ok(Some(Stop::Exhausted(e)));
        }
        let Some(&step) = self.steps.get(k) else {
            let chosen: Vec<CoOrder> = (0..self.inits.len()).map(|c| self.order(c)).collect();
            let rf: Vec<usize> = self.rf_pick.iter().map(|p| p.expect("chosen")).collect();
            // A read that must read a coherence-maximal write (`Goal::Hang`) does.
            let stale = (self.must_be_last.iter().enumerate())
                .any(|(k, c)| c.is_some_and(|c| !chosen[c].last.contains(&self.sources[k][rf[k]])));
            if stale {
                return Ok(None);
            }
            return Ok(leaf(&mut self.alg, &rf, &chosen)?.then_some(Stop::Found));
        };
        if k > 0 && !forced && self.prunes && self.breaks()? {
            return Ok(None);
        }
        match step {
            Step::Insert { cell, write } => {
                let places = self.seqs[cell].len() + 1;
                for p in 0..places {
                    self.seqs[cell].insert(p, write);
                    let r = self.go(k + 1, places == 1, cap, budget, leaf)?;
                    self.seqs[cell].remove(p);
                    if r.is_some() {
                        return Ok(r);
                    }
                }
            }
            Step::Order { cell } => {
                for o in 0..self.orders[cell].len() {
                    self.order_pick[cell] = Some(o);
                    let one = self.orders[cell].len() == 1;
                    let r = self.go(k + 1, one, cap, budget, leaf)?;
                    self.order_pick[cell] = None;
                    if r.is_some() {
                        return Ok(r);
                    }
                }
            }
            Step::Source { read } => {
                for s in 0..self.sources[read].len() {
                    self.rf_pick[read] = Some(s);
                    let one = self.sources[read].len() == 1;
                    let r = self.go(k + 1, one, cap, budget, leaf)?;
                    self.rf_pick[read] = None;
                    if r.is_some() {
                        return Ok(r);
                    }
                }
            }
        }
        Ok(None)
    }

    /// Cell `c`'s coherence order as chosen (whole: only asked once it is).
    fn order(&self, c: usize) -> CoOrder {
        if self.partial {
            return self.orders[c][self.order_pick[c].expect("chosen")].clone();
        }
        let (init, seq) = (self.inits[c], &self.seqs[c]);
        let pairs = seq
            .iter()
            .map(|&w| (init, w))
            .chain(chain_pairs(seq))
            .collect();
        let chain: Vec<usize> = std::iter::once(init).chain(seq.iter().copied()).collect();
        CoOrder {
            pairs,
            cover: chain.windows(2).map(|p| (p[0], p[1])).collect(),
            last: vec![*chain.last().expect("the initial write")],
        }
    }

    /// Does the part chosen so far already break `prune_at` of the weakened axioms?
    fn breaks(&mut self) -> Result<bool, EvalError> {
        let n = self.alg.n;
        let mut co = Matrix::new(n);
        for (c, ws) in self.cell_writes.iter().enumerate() {
            // The initial write comes first in every order.
            ws.iter().for_each(|&w| co.insert(self.inits[c], w));
            if self.partial {
                if let Some(o) = self.order_pick[c] {
                    self.orders[c][o]
                        .pairs
                        .iter()
                        .for_each(|&(a, b)| co.insert(a, b));
                }
            } else {
                chain_pairs(&self.seqs[c]).for_each(|(a, b)| co.insert(a, b));
            }
        }
        let rf = Matrix::from_pairs(
            n,
            (self.rf_pick.iter().enumerate())
                .filter_map(|(k, p)| p.map(|p| (self.sources[k][p], self.reads[k])))
                .filter(|&(w, _)| w != LATER),
        );
        self.alg.rels.insert("rf".into(), rf);
        self.alg.rels.insert("co".into(), co);
        let results = interp::run_with(self.pruning, &mut self.alg, &mut self.memo)?;
        let failed = results.iter().filter(|c| !c.flag && !c.holds).count();
        Ok(failed >= self.prune_at)
    }
}

/// Every ordered pair of a total order given as a sequence.
fn chain_pairs(seq: &[usize]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (seq.iter().enumerate()).flat_map(move |(i, &a)| seq[i + 1..].iter().map(move |&b| (a, b)))
}

/// Whether a model has an axiom whose relation is not known empty.
fn has_axiom(m: &crate::cat::Model) -> bool {
    m.stmts.iter().any(|s| match s {
        crate::cat::ast::Stmt::Include(m) => has_axiom(m),
        crate::cat::ast::Stmt::Check(c) => {
            !c.flag && !c.negated && c.expr != crate::cat::ast::Expr::Empty
        }
        _ => false,
    })
}

/// One candidate coherence order of a cell's writes.
#[derive(Clone)]
struct CoOrder {
    /// Every ordered pair (transitively closed; the initial write before every other).
    pairs: Vec<(usize, usize)>,
    /// The covering pairs, as reports list them.
    cover: Vec<(usize, usize)>,
    /// The coherence-maximal writes: where the cell's final value may come from.
    last: Vec<usize>,
}

/// How many orders [`coherence_orders`] gives for `k` writes: `k!` total orders, or the
/// number of labelled posets (OEIS A001035) when coherence is partial.
fn orders_count(k: usize, partial: bool) -> u64 {
    const POSETS: [u64; 8] = [1, 1, 3, 19, 219, 4231, 130_023, 6_129_859];
    if partial {
        POSETS.get(k).copied().unwrap_or(u64::MAX)
    } else {
        (1..=k as u64).product::<u64>().max(1)
    }
}

/// The coherence orders of one cell: the initial write `init` first, then every total order
/// of `ws`, or every strict partial order of them when `partial`.
///
/// Building them takes 2^k tries per order of k writes: nine writes of one cell (362,880
/// orders, under the cap on candidates) took minutes and gigabytes, so the budget is checked
/// per order.
fn coherence_orders(
    init: usize,
    ws: &[usize],
    partial: bool,
    budget: &crate::budget::Budget,
) -> Result<Vec<CoOrder>, crate::budget::Exhausted> {
    // Each order as its "before" sets over indices into `ws`.
    let mut posets: Vec<Vec<Vec<bool>>> = vec![Vec::new()];
    for k in 0..ws.len() {
        let mut next = Vec::new();
        for p in &posets {
            budget.check("building coherence orders")?;
            // Place element k: each earlier element goes below it, above it, or (partial
            // only) beside it; kept when the result is still transitive.
            let choices: u32 = if partial { 3 } else { 2 };
            for code in 0..choices.pow(k as u32) {
                let side: Vec<u32> = (0..k)
                    .map(|i| code / choices.pow(i as u32) % choices)
                    .collect();
                // side 0: i < k, 1: k < i, 2: unrelated.
                let below = |i: usize| side[i] == 0;
                let above = |i: usize| side[i] == 1;
                let ok = (0..k).all(|i| {
                    (0..k).all(|j| {
                        // Transitivity through the new element: i < j < k needs i < k,
                        // k < i < j needs k < j, and i < k < j needs i < j.
                        let up = p[i][j] && below(j) && !below(i);
                        let down = p[i][j] && above(i) && !above(j);
                        let across = below(i) && above(j) && !p[i][j];
                        !(up || down || across)
                    })
                });
                if !ok {
                    continue;
                }
                let mut q: Vec<Vec<bool>> = p
                    .iter()
                    .map(|row| {
                        let mut row = row.clone();
                        row.push(false);
                        row
                    })
                    .collect();
                q.push(vec![false; k + 1]);
                for i in 0..k {
                    q[i][k] = side[i] == 0;
                    q[k][i] = side[i] == 1;
                }
                next.push(q);
            }
        }
        posets = next;
    }
    Ok(posets
        .into_iter()
        .map(|p| {
            let k = ws.len();
            let mut pairs: Vec<(usize, usize)> = ws.iter().map(|&w| (init, w)).collect();
            let mut cover = Vec::new();
            for i in 0..k {
                for j in 0..k {
                    if p[i][j] {
                        pairs.push((ws[i], ws[j]));
                        if !(0..k).any(|m| p[i][m] && p[m][j]) {
                            cover.push((ws[i], ws[j]));
                        }
                    }
                }
            }
            for j in 0..k {
                if !(0..k).any(|i| p[i][j]) {
                    cover.push((init, ws[j]));
                }
            }
            let mut last: Vec<usize> = (0..k)
                .filter(|&i| !(0..k).any(|j| p[i][j]))
                .map(|i| ws[i])
                .collect();
            if last.is_empty() {
                last.push(init);
            }
            CoOrder { pairs, cover, last }
        })
        .collect())
}

/// A candidate's reads-from and coherence in words.
fn execution(prog: &Program, ev: &[Event], rf: &Matrix, chosen: &[&CoOrder]) -> super::Execution {
    let describe = |i: usize| {
        let e = &ev[i];
        let at = e.acc.as_ref().map(|a| (a.block, a.instr));
        let cell = e.cell.expect("an access has a cell");
        // An open read shows the value of the write it reads from.
        let source = || (0..ev.len()).find(|&w| rf.contains(w, i));
        let value = match e.open {
            true => source().map_or(e.value, |w| ev[w].value),
            false => e.value,
        };
        super::describe_event(prog, e.thread, at, e.read, cell, value)
    };
    let place = |i: usize| {
        let e = &ev[i];
        let at = e.acc.as_ref().map(|a| (a.block, a.instr));
        super::place(prog, e.thread, at, e.cell.expect("an access has a cell"))
    };
    let mut out = super::Execution::default();
    for r in (0..ev.len()).filter(|&r| ev[r].read) {
        if let Some(w) = (0..ev.len()).find(|&w| rf.contains(w, r)) {
            out.rf.push((describe(w), describe(r)));
            out.rf_at.push((place(w), place(r)));
        }
    }
    for o in chosen {
        for &(a, b) in &o.cover {
            out.co.push((describe(a), describe(b)));
            out.co_at.push((place(a), place(b)));
        }
    }
    for e in ev.iter().filter(|e| e.cell.is_none() && e.thread.is_some()) {
        out.push_other(prog, &e.info());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every total order, or every strict partial order (the labelled posets), once each,
    /// transitively closed, with the initial write first.
    #[test]
    fn coherence_orders_are_the_orders() {
        for partial in [false, true] {
            for k in 0..=4 {
                let ws: Vec<usize> = (1..=k).collect();
                let orders =
                    coherence_orders(0, &ws, partial, &crate::budget::Budget::unlimited()).unwrap();
                assert_eq!(
                    orders.len() as u64,
                    orders_count(k, partial),
                    "{k} {partial}"
                );
                let mut seen = BTreeSet::new();
                for o in &orders {
                    let set: BTreeSet<(usize, usize)> = o.pairs.iter().copied().collect();
                    assert!(ws.iter().all(|&w| set.contains(&(0, w))));
                    for &(a, b) in &set {
                        assert!(!set.contains(&(b, a)), "antisymmetric");
                        for &(b2, c) in &set {
                            assert!(b2 != b || set.contains(&(a, c)), "transitive");
                        }
                    }
                    let total = ws.iter().all(|&a| {
                        ws.iter()
                            .all(|&b| a == b || set.contains(&(a, b)) || set.contains(&(b, a)))
                    });
                    assert!(partial || total);
                    // The last writes: those with no successor (the initial write if none).
                    let last: Vec<usize> = ws
                        .iter()
                        .copied()
                        .filter(|&a| !set.iter().any(|&(x, _)| x == a))
                        .collect();
                    assert_eq!(o.last, if k == 0 { vec![0] } else { last });
                    assert!(!total || o.last.len() == 1);
                    assert!(seen.insert(set), "each order once");
                }
            }
        }
    }
}
