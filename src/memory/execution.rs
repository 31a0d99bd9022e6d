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
use crate::ir::{BlockId, Program};
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
    Read { cell: u32, value: u32 },
    Write { cell: u32, value: u32 },
    Rmw { cell: u32, old: u32, new: u32 },
    Fence,
    Barrier,
    SgOp,
}

/// What the model says about one run.
#[derive(Clone, Debug, Default)]
pub struct Judgement {
    /// The final memory of each consistent candidate (whole memory, initial values where
    /// nothing was written), with the first such candidate's execution (for witnesses).
    pub finals: BTreeMap<Vec<u32>, super::Execution>,
    /// Candidates that fail exactly one axiom, by final memory and that axiom's name: the
    /// first such candidate's execution (what makes an outcome forbidden, when it is).
    pub near_misses: BTreeMap<(Vec<u32>, String), super::Execution>,
    /// Flags (`flag ~empty race as data-race`) raised by some consistent candidate.
    pub flags: BTreeSet<String>,
    /// Candidates were too many to try: the run's verdict is unknown.
    pub too_many: bool,
    /// The budget ran out while trying the candidates: the run's verdict is unknown.
    pub exhausted: Option<crate::budget::Exhausted>,
}

/// Candidate executions tried per run before giving up (the verdict is then `unknown`).
pub const MAX_CANDIDATES: u64 = 1 << 20;

#[derive(Clone, Debug)]
struct Event {
    thread: Option<u32>,
    cell: Option<u32>,
    value: u32,
    read: bool,
    write: bool,
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
            kind: match what {
                Some(What::Fence) => EventKind::Fence,
                Some(What::Barrier) => EventKind::Barrier,
                Some(What::SgOp) => EventKind::SgOp,
                _ => EventKind::Access,
            },
        }
    }
}

/// Judges one finished run: `runs[t]` are thread t's accesses in program order.
pub fn judge(
    prog: &Program,
    model: &MemoryModel,
    runs: &[&[Access]],
    init: &[u32],
    budget: &crate::budget::Budget,
) -> Result<Judgement, EvalError> {
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
            write: true,
            access: 0,
            acc: None,
        });
    }
    let mut rmw = Vec::new();
    for (t, r) in runs.iter().enumerate() {
        for (k, a) in r.iter().enumerate() {
            let mut push = |cell, value, read, write| {
                ev.push(Event {
                    thread: Some(t as u32),
                    cell,
                    value,
                    read,
                    write,
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
                    push(Some(cell), value, false, true);
                }
                What::Rmw { cell, old, new } => {
                    let r = push(Some(cell), old, true, false);
                    let w = push(Some(cell), new, false, true);
                    rmw.push((r, w));
                }
                What::Fence | What::Barrier | What::SgOp => {
                    push(None, 0, false, false);
                }
            }
        }
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
    let reads: Vec<usize> = (0..n).filter(|&i| ev[i].read).collect();
    let mut sources: Vec<Vec<usize>> = Vec::new();
    for &r in &reads {
        // A read-modify-write is one indivisible step: its read never reads its own write
        // (as in the Z3 encoding; docs/memory-models.md).
        let s: Vec<usize> = (0..n)
            .filter(|&w| ev[w].write && ev[w].cell == ev[r].cell && ev[w].value == ev[r].value)
            .filter(|&w| !rmw.contains(&(r, w)))
            .collect();
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
    let mut count: u64 = 1;
    for s in &sources {
        count = count.saturating_mul(s.len() as u64);
    }
    for (_, ws) in writes.values() {
        count = count.saturating_mul((1..=ws.len() as u64).product::<u64>().max(1));
    }
    let mut out = Judgement::default();
    if count > MAX_CANDIDATES {
        out.too_many = true;
        return Ok(out);
    }
    let orders: Vec<Vec<Vec<usize>>> = writes
        .values()
        .map(|(init, ws)| {
            permutations(ws)
                .into_iter()
                .map(|p| std::iter::once(*init).chain(p).collect())
                .collect()
        })
        .collect();
    let mut rf_pick = vec![0usize; reads.len()];
    loop {
        let rf = Matrix::from_pairs(
            n,
            reads
                .iter()
                .zip(&rf_pick)
                .enumerate()
                .map(|(k, (&r, &p))| (sources[k][p], r)),
        );
        let mut co_pick = vec![0usize; orders.len()];
        loop {
            let mut co = Matrix::new(n);
            let mut finals = init.to_vec();
            for (k, o) in orders.iter().enumerate() {
                let chain = &o[co_pick[k]];
                for i in 0..chain.len() {
                    for j in i + 1..chain.len() {
                        co.insert(chain[i], chain[j]);
                    }
                }
                let last = &ev[*chain.last().expect("init write")];
                finals[last.cell.expect("a write has a cell") as usize] = last.value;
            }
            if let Err(e) = budget.check("judging candidate executions") {
                out.exhausted = Some(e);
                return Ok(out);
            }
            let mut a = alg.clone();
            a.rels.insert("rf".into(), rf.clone());
            a.rels.insert("co".into(), co);
            let results = interp::run(&model.cat, &mut a)?;
            let failed: Vec<usize> = (0..results.len())
                .filter(|&k| !results[k].flag && !results[k].holds)
                .collect();
            if failed.is_empty() {
                for c in results.iter().filter(|c| c.flag && c.holds) {
                    out.flags.insert(c.name.clone());
                }
                out.finals
                    .entry(finals)
                    .or_insert_with(|| execution(prog, &ev, &rf, &orders, &co_pick));
            } else if let [k] = failed[..] {
                let c = &results[k];
                let key = (finals, super::axiom_name(k, &c.name, c.kind));
                out.near_misses
                    .entry(key)
                    .or_insert_with(|| execution(prog, &ev, &rf, &orders, &co_pick));
            }
            if !advance(&mut co_pick, orders.iter().map(Vec::len)) {
                break;
            }
        }
        if !advance(&mut rf_pick, sources.iter().map(Vec::len)) {
            break;
        }
    }
    Ok(out)
}

/// A candidate's reads-from and coherence in words.
fn execution(
    prog: &Program,
    ev: &[Event],
    rf: &Matrix,
    orders: &[Vec<Vec<usize>>],
    co_pick: &[usize],
) -> super::Execution {
    let describe = |i: usize| {
        let e = &ev[i];
        let at = e.acc.as_ref().map(|a| (a.block, a.instr));
        let cell = e.cell.expect("an access has a cell");
        super::describe_event(prog, e.thread, at, e.read, cell, e.value)
    };
    let mut out = super::Execution::default();
    for r in (0..ev.len()).filter(|&r| ev[r].read) {
        if let Some(w) = (0..ev.len()).find(|&w| rf.contains(w, r)) {
            out.rf.push((describe(w), describe(r)));
        }
    }
    for (k, o) in orders.iter().enumerate() {
        for pair in o[co_pick[k]].windows(2) {
            out.co.push((describe(pair[0]), describe(pair[1])));
        }
    }
    out
}

/// Odometer step over digits with the given radices; false after the last.
fn advance(digits: &mut [usize], radix: impl Iterator<Item = usize>) -> bool {
    for (d, r) in digits.iter_mut().zip(radix) {
        *d += 1;
        if *d < r {
            return true;
        }
        *d = 0;
    }
    false
}

fn permutations(xs: &[usize]) -> Vec<Vec<usize>> {
    if xs.len() <= 1 {
        return vec![xs.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..xs.len() {
        let mut rest = xs.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}
