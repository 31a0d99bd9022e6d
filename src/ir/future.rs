//! What a thread may still write from where it stands in the unrolled program.
//!
//! A run cut short may read a write that another thread performs after the run's end (docs/
//! memory-models.md, "Runs cut short"). Leaving such a write unnamed lets any number of reads
//! take it: a thread that will store 0 once more, after its spin loop, then feeds an exchange
//! loop that reads 0 forever (Dartagnan's CADP exchange loops stayed `unknown` so). Named,
//! the write is an event the model judges: coherence and atomicity let one exchange read it.
//!
//! The program is a DAG, so every block instance reachable from a thread's place runs at most
//! once more: each of its writes is a write *once*, named by its instruction. Past a loop's
//! cut (`Target::Cut`) the loop's body runs any number of times: the globals it writes are
//! written *unboundedly* and stay unnamed, as are writes to a cell the instruction computes.
//! Only globals the thread may write at all ([`Program::may_write`]) count.

use super::program::{BlockId, Pos, Program, Target};
use super::Op;
use crate::vocab::{AtomicOp, Expr};
use std::collections::BTreeSet;

/// What a thread may still write after a run's end.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Future {
    /// Writes it may perform, each at most once, in program order along any path.
    pub once: Vec<FutureWrite>,
    /// Globals it may write any number of times, or at a computed cell: a read may take such
    /// a write unnamed.
    pub unbounded: BTreeSet<u32>,
}

/// One write instance a thread may still perform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FutureWrite {
    pub at: Pos,
    pub global: u32,
    pub cell: u32,
    /// The value it stores; `None` when computed (any value).
    pub value: Option<u32>,
    /// The write half of an atomic read-modify-write.
    pub rmw: bool,
}

impl Program {
    /// What `thread`, standing before instruction `from` of block instance `block` (the
    /// terminator when past the last), may still write.
    pub fn future(&self, thread: u32, block: BlockId, from: u32) -> Future {
        let mut out = Future::default();
        let mut cut = BTreeSet::new();
        let blocks =
            (block..self.blocks.len() as BlockId).filter(|&b| b == block || self.reaches(block, b));
        for b in blocks {
            let blk = &self.blocks[b as usize];
            let start = if b == block { from as usize } else { 0 };
            for (i, ins) in blk.instrs.iter().enumerate().skip(start) {
                let Some((loc, value, rmw)) = written(&ins.op) else {
                    continue;
                };
                if !self.may_write(thread, loc.global) {
                    continue;
                }
                let g = &self.globals[loc.global as usize];
                match &loc.index {
                    Expr::Lit(k) if *k < g.len => out.once.push(FutureWrite {
                        at: (b, i as u32),
                        global: loc.global,
                        cell: g.base + k,
                        value,
                        rmw,
                    }),
                    _ => {
                        out.unbounded.insert(loc.global);
                    }
                }
            }
            // Past a cut the innermost loop around the block goes on for ever (a cut outside
            // any loop: everything the thread writes).
            if blk.term.targets().contains(&Target::Cut) {
                cut.insert(self.cfg.blocks[blk.sblock].loops.last().copied());
            }
        }
        for s in &self.cfg.blocks {
            if !cut.contains(&None) && !s.loops.iter().any(|l| cut.contains(&Some(*l))) {
                continue;
            }
            for ins in &s.instrs {
                if let Some((loc, ..)) = written(&ins.op) {
                    if self.may_write(thread, loc.global) {
                        out.unbounded.insert(loc.global);
                    }
                }
            }
        }
        out.once.retain(|w| !out.unbounded.contains(&w.global));
        out
    }
}

/// The location an instruction writes, the value it stores (`None`: computed) and whether it
/// is a read-modify-write.
fn written(op: &Op) -> Option<(&super::Loc, Option<u32>, bool)> {
    let lit = |e: &Expr| match e {
        Expr::Lit(v) => Some(*v),
        _ => None,
    };
    match op {
        Op::Store { loc, value } => Some((loc, lit(value), false)),
        Op::Atomic { loc, op, args, .. } => {
            let value = match op {
                AtomicOp::Exchange => lit(&args[0]),
                AtomicOp::CompSwap => lit(&args[1]),
                _ => None,
            };
            Some((loc, value, true))
        }
        _ => None,
    }
}
