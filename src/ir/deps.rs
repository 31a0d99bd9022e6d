//! Register dependencies of the unrolled program: which reads an instruction's address, value
//! or control depends on, the `addr`, `data` and `ctrl` relations of herd's cat models.
//!
//! A read's value flows through the registers it defines (its own destination, then local
//! assignments and subgroup operations that use it). An access depends on a read by *address*
//! when the read flows into its index, a write by *data* when the read flows into its value
//! (a read-modify-write's write half depends on its own read half unless it exchanges), and
//! any instruction by *control* when it runs after a branch whose condition the read flows
//! into (herd's and Dartagnan's `ctrl`: every instruction after the branch, not only up to
//! the merge). The analysis is per lane and path-insensitive: where paths meet a register
//! carries what either path gave it; the relations only ever relate events that both happen,
//! so a dependency is never claimed between events of different paths.

use super::program::{BlockId, Program, Term};
pub use super::program::{Deps, Pos};
use super::Op;
use crate::vocab::{AtomicOp, RegId};
use std::collections::{BTreeMap, BTreeSet};

impl Program {
    /// The `addr`, `data` and `ctrl` dependencies, computed when a memory model first asks.
    pub fn deps(&self) -> &Deps {
        self.deps.get_or_init(|| analyse(self))
    }
}

/// Which reads each register may hold a value from.
type Origins = BTreeMap<RegId, BTreeSet<Pos>>;

fn flow(origins: &Origins, regs: &[RegId]) -> BTreeSet<Pos> {
    regs.iter()
        .filter_map(|r| origins.get(r))
        .flatten()
        .copied()
        .collect()
}

/// Computes the dependencies of `prog` (block ids are in topological order).
pub fn analyse(prog: &Program) -> Deps {
    let n = prog.blocks.len();
    let mut at_entry: Vec<Origins> = vec![Origins::new(); n];
    let mut deps = Deps::default();
    // Branch conditions met on the way to each block: the reads they depend on.
    let mut ctrl_in: Vec<BTreeSet<Pos>> = vec![BTreeSet::new(); n];
    for b in 0..n {
        let block = &prog.blocks[b];
        let mut o = std::mem::take(&mut at_entry[b]);
        let ctrl = std::mem::take(&mut ctrl_in[b]);
        for (i, ins) in block.instrs.iter().enumerate() {
            let here = (b as BlockId, i as u32);
            for &c in &ctrl {
                deps.ctrl.insert((c, here));
            }
            let mut regs = Vec::new();
            match &ins.op {
                Op::Load { dst, loc } => {
                    loc.index.regs(&mut regs);
                    for a in flow(&o, &regs) {
                        deps.addr.insert((a, here));
                    }
                    o.insert(*dst, BTreeSet::from([here]));
                }
                Op::Store { loc, value } => {
                    loc.index.regs(&mut regs);
                    for a in flow(&o, &regs) {
                        deps.addr.insert((a, here));
                    }
                    let mut vregs = Vec::new();
                    value.regs(&mut vregs);
                    for a in flow(&o, &vregs) {
                        deps.data.insert((a, here));
                    }
                }
                Op::Atomic {
                    dst, op, loc, args, ..
                } => {
                    loc.index.regs(&mut regs);
                    for a in flow(&o, &regs) {
                        deps.addr.insert((a, here));
                    }
                    let mut vregs = Vec::new();
                    args.iter().for_each(|a| a.regs(&mut vregs));
                    for a in flow(&o, &vregs) {
                        deps.data.insert((a, here));
                    }
                    if *op != AtomicOp::Exchange {
                        deps.data.insert((here, here));
                    }
                    if let Some(d) = dst {
                        o.insert(*d, BTreeSet::from([here]));
                    }
                }
                Op::Local { dst, .. } | Op::SgOp { dst, .. } => {
                    let from = flow(&o, &ins.op.reads());
                    o.insert(*dst, from);
                }
                Op::SubgroupBarrier
                | Op::WorkgroupBarrier
                | Op::QuorumBarrier { .. }
                | Op::Fence => {}
            }
        }
        let mut ctrl_out = ctrl;
        if let Term::Branch { cond, .. } = &block.term {
            let mut regs = Vec::new();
            cond.regs(&mut regs);
            ctrl_out.extend(flow(&o, &regs));
        }
        for t in block.term.targets() {
            if let super::program::Target::Block(t) = t {
                let t = t as usize;
                for (r, from) in &o {
                    at_entry[t].entry(*r).or_default().extend(from);
                }
                ctrl_in[t].extend(&ctrl_out);
            }
        }
    }
    deps
}
