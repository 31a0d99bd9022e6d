//! Which threads may write which globals: each thread run abstractly over the structured CFG.
//!
//! A run cut short may read a write that another thread performs after the run's end (docs/
//! memory-models.md, "Runs cut short"). Only a thread with a store or an atomic to the read's
//! global on some path can do that; in a litmus test each thread is an arm of an
//! `if (tid == k)` chain, and a spinning reader whose arm writes nothing must not be taken for
//! a writer (Dartagnan's CADP exchange loops were `unknown` that way). The run is constant
//! propagation per thread (registers start at 0, `tid` and the other builtins are the
//! thread's; a load or an atomic's result is unknown), joined at each block, so it ends; a
//! branch on an unknown condition goes both ways. Over-approximating is safe: a thread taken
//! for a writer only keeps more runs.

use super::cfg::Cfg;
use super::partial::{constant, successors};
use super::Op;
use std::collections::BTreeSet;

/// Block visits (over all threads) before the analysis gives up and says every thread may
/// write everything.
const MAX_WORK: usize = 200_000;

/// Per thread, the globals it may write; `None` when the work limit ran out.
pub fn thread_writes(cfg: &Cfg) -> Option<Vec<BTreeSet<u32>>> {
    let mut work = 0;
    (0..cfg.layout.threads)
        .map(|t| writes_of(cfg, t, &mut work))
        .collect()
}

fn writes_of(cfg: &Cfg, t: u32, work: &mut usize) -> Option<BTreeSet<u32>> {
    type Regs = Vec<Option<u32>>;
    let mut at: Vec<Option<Regs>> = vec![None; cfg.blocks.len()];
    let mut stack: Vec<(usize, Regs)> = vec![(0, vec![Some(0); cfg.regs.len()])];
    let mut writes = BTreeSet::new();
    while let Some((sb, regs)) = stack.pop() {
        // Join with what reached the block before; go on only when that changed something.
        let joined = match &at[sb] {
            None => regs,
            Some(old) => {
                let j: Regs = (old.iter().zip(&regs))
                    .map(|(a, b)| if a == b { *a } else { None })
                    .collect();
                if &j == old {
                    continue;
                }
                j
            }
        };
        at[sb] = Some(joined.clone());
        *work += 1;
        if *work > MAX_WORK {
            return None;
        }
        let mut regs = joined;
        let block = &cfg.blocks[sb];
        for ins in &block.instrs {
            match &ins.op {
                Op::Local { dst, value } => {
                    regs[*dst as usize] = constant(cfg, &regs, Some(t), value);
                }
                Op::Load { dst, .. } | Op::SgOp { dst, .. } => regs[*dst as usize] = None,
                Op::Store { loc, .. } => {
                    writes.insert(loc.global);
                }
                Op::Atomic { dst, loc, .. } => {
                    writes.insert(loc.global);
                    if let Some(d) = dst {
                        regs[*d as usize] = None;
                    }
                }
                _ => {}
            }
        }
        let next = successors(cfg, &regs, t, &block.term);
        stack.extend(next.into_iter().map(|to| (to, regs.clone())));
    }
    Some(writes)
}
