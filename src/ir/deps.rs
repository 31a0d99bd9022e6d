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
use crate::vocab::{AtomicOp, BinOp, Expr, RegId};
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

/// Does `e` divide (or take a remainder) by something that is not a literal? Its registers
/// then decide whether the expression is undefined behaviour.
pub(super) fn divides(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Reg(_) | Expr::Builtin(_) => false,
        Expr::Unary(_, a) => divides(a),
        Expr::Binary(op, a, b) => {
            (matches!(op, BinOp::Div | BinOp::Rem) && !matches!(**b, Expr::Lit(_)))
                || divides(a)
                || divides(b)
        }
        Expr::Ternary(a, b, c) => divides(a) || divides(b) || divides(c),
        Expr::Call(_, args) => args.iter().any(divides),
    }
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
            // Every use but a plain local copy lets the value matter (`Deps::used`).
            let sink = match &ins.op {
                Op::Local { value, .. } => divides(value),
                _ => true,
            };
            if sink {
                deps.used.extend(flow(&o, &ins.op.reads()));
            } else {
                deps.copied.extend(flow(&o, &ins.op.reads()));
            }
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
                | Op::Fence { .. }
                | Op::Unreachable => {}
            }
        }
        let mut ctrl_out = ctrl;
        if let Term::Branch { cond, .. } = &block.term {
            let mut regs = Vec::new();
            cond.regs(&mut regs);
            let from = flow(&o, &regs);
            deps.used.extend(&from);
            ctrl_out.extend(from);
        }
        let targets = block.term.targets();
        if targets.is_empty() || targets.contains(&super::program::Target::Cut) {
            // A run may end here (a return, or the loop bound): what the registers hold.
            for (r, from) in &o {
                deps.held.entry(*r).or_default().extend(from);
            }
        }
        for t in targets {
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

#[cfg(test)]
mod tests {
    use crate::ir::{Op, Program};

    fn program(kernel: &str, cond: &str) -> Program {
        let text = format!(
            "test t\nthreads 2\nglobal x\nglobal y[2]\nkernel {{ {kernel} }}\nexists ({cond})\n"
        );
        let test = crate::syntax::parse("t.litmus", text.as_bytes()).unwrap();
        let budget = crate::budget::Budget::unlimited();
        crate::ir::unroll(
            crate::ir::cfg::lower_observing(&test, &[]),
            2,
            crate::ir::IdleDepth::Lanes,
            &budget,
        )
        .unwrap()
    }

    /// Whether each load of the program matters to thread `t`, in program order.
    fn loads_matter(p: &Program, t: u32) -> Vec<bool> {
        let mut out = Vec::new();
        for (b, blk) in p.blocks.iter().enumerate() {
            for (i, ins) in blk.instrs.iter().enumerate() {
                if matches!(ins.op, Op::Load { .. }) {
                    out.push(p.read_matters(t, (b as u32, i as u32)));
                }
            }
        }
        out
    }

    #[test]
    fn a_read_matters_where_its_value_goes_somewhere_the_question_sees() {
        // Observed directly, through a copy, or not at all.
        let p = program("a = x; b = y[1]; c = b + 1; d = x;", "0:a == 1 && 1:c == 2");
        assert_eq!(loads_matter(&p, 0), [true, false, false]);
        assert_eq!(loads_matter(&p, 1), [false, true, false]);
        // Stored, used as an address, a branch condition, a subgroup op's argument, a divisor.
        for kernel in [
            "a = x; y[0] = a;",
            "a = x; y[a % 2] = 1;",
            "a = x; if (a == 1) { y[0] = 1; }",
            "a = x; b = subgroupAdd(a);",
            "a = x; b = 7 / a;",
        ] {
            let p = program(kernel, "x == 0");
            assert_eq!(loads_matter(&p, 0), [true], "{kernel}");
        }
        // Overwritten before anything reads it, or divided by a literal: nothing sees it.
        let p = program("a = x; b = a / 2; a = 3;", "0:a == 3");
        assert_eq!(loads_matter(&p, 0), [false]);
    }

    /// Whether each load of the program is open, in program order.
    fn loads_open(p: &Program) -> Vec<bool> {
        let mut out = Vec::new();
        for (b, blk) in p.blocks.iter().enumerate() {
            for (i, ins) in blk.instrs.iter().enumerate() {
                if matches!(ins.op, Op::Load { .. }) {
                    out.push(p.deps().read_open((b as u32, i as u32)));
                }
            }
        }
        out
    }

    #[test]
    fn a_read_is_open_when_its_register_only_reaches_the_end() {
        // Observed as loaded, or never read: open. Copied, or used: not.
        let p = program("a = x; b = y[1]; c = b + 1; d = x;", "0:a == 1 && 1:c == 2");
        assert_eq!(loads_open(&p), [true, false, true]);
        for kernel in [
            "a = x; y[0] = a;",
            "a = x; if (a == 1) { y[0] = 1; }",
            "a = x; b = subgroupAdd(a);",
            "a = x; b = a;",
        ] {
            let p = program(kernel, "x == 0");
            assert_eq!(loads_open(&p), [false], "{kernel}");
        }
    }
}
