//! Idle loops: loops whose iterations that go round again change nothing a later step can see.
//!
//! An iteration of loop `l` that goes round (from a point of the loop back to that point,
//! never leaving) is *idle* when it writes no memory (a compare-exchange that must have
//! failed only reads), meets no barrier or subgroup op (a fence is allowed: it orders, and
//! changes nothing), cannot meet undefined behaviour unless every iteration would, and
//! assigns only registers that are dead at that point (every path from it assigns them
//! again before reading them, the final condition included). A loop is idle when every such iteration is, for the header or the body's
//! entry as the point (a spin loop: `while (flag == 0) {}`, `r = x; while (r != 1) { r = x;
//! }`, `do { r = ld x } while (r != 1)`).
//!
//! Why it matters (docs/progress.md, "Safety past the loop bound"): removing idle iterations
//! from a run that finishes leaves a run that finishes with the same outcome. Iterations in
//! which every lane of the dynamic block goes round can be removed together, whatever the
//! execution model; what is left has at most one iteration per lane of the subgroup that
//! leaves the loop in it. So when a loop is idle and its depth is at least the subgroup's
//! lanes, a run that the loop bound cuts there either never finishes (a hang, for `tangle
//! liveness`) or finishes as a run within the bound: the cut hides no outcome. Under a
//! memory model this assumes that the model never forbids an execution because some reads
//! and fences were removed from it, as Dartagnan's spin-loop reduction does (only a store is
//! a side effect there).

use super::cfg::{Cfg, LoopId, SBlockId, STerm};
use super::live::{successors, Live};
use super::{Expr, Op};

/// For each loop of `cfg`: `None` when it is not idle; `Some(k)` when it is, where `k` is how
/// many times a lane alone needs to go back to the header once idle iterations are removed
/// (0 when iterations are idle from the header, 1 when from the body's entry: the body's
/// first run may be the one that leaves).
pub fn idle_loops(cfg: &Cfg, live: &Live) -> Vec<Option<u32>> {
    (0..cfg.loops.len())
        .map(|l| is_idle(cfg, l, live))
        .collect()
}

fn is_idle(cfg: &Cfg, l: LoopId, live: &Live) -> Option<u32> {
    let info = &cfg.loops[l];
    let inside = |b: SBlockId| cfg.blocks[b].loops.contains(&l);
    // A loop inside this one makes its iterations more than one pass over the body.
    if cfg
        .blocks
        .iter()
        .any(|b| b.loops.contains(&l) && b.loops.last() != Some(&l))
    {
        return None;
    }
    // The blocks of an iteration that goes round: those that reach the continue target
    // inside the loop (the back edge to the header not taken).
    let mut going_round = vec![false; cfg.blocks.len()];
    going_round[info.cont] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for (b, blk) in cfg.blocks.iter().enumerate() {
            if going_round[b] || !inside(b) {
                continue;
            }
            if successors(&blk.term)
                .iter()
                .any(|&s| s != info.header && going_round[s])
            {
                going_round[b] = true;
                changed = true;
            }
        }
    }
    // Registers the loop assigns: an expression over the others has one value throughout.
    let mut varies = vec![false; cfg.regs.len()];
    for blk in cfg.blocks.iter().filter(|b| b.loops.contains(&l)) {
        for ins in &blk.instrs {
            if let Some(r) = ins.op.writes() {
                varies[r as usize] = true;
            }
        }
    }
    let invariant = |e: &Expr| {
        let mut regs = Vec::new();
        e.regs(&mut regs);
        regs.iter().all(|&r| !varies[r as usize])
    };
    // Undefined in one iteration and defined in another: never for a total expression, nor
    // for one the loop does not change (each iteration evaluates it to the same value).
    let settled = |e: &Expr| total(e) || invariant(e);
    let index_settled = |loc: &super::Loc| match loc.index {
        Expr::Lit(i) => i < cfg.globals[loc.global as usize].len,
        _ => invariant(&loc.index),
    };
    let mut assigned = Vec::new();
    let mut swaps = Vec::new();
    for (b, blk) in cfg.blocks.iter().enumerate() {
        if !going_round[b] {
            continue;
        }
        for (k, ins) in blk.instrs.iter().enumerate() {
            let safe = match &ins.op {
                Op::Local { value, .. } => settled(value),
                Op::Load { loc, .. } => index_settled(loc),
                // A compare-exchange that fails only reads; it is idle when an iteration that
                // goes round must have seen its compare fail.
                Op::Atomic { op, loc, args, .. } if op.may_only_read() => {
                    swaps.push((b, k));
                    index_settled(loc) && args.iter().all(settled)
                }
                // A fence orders; it changes nothing a later step reads.
                Op::Fence { id } => id.as_ref().is_none_or(settled),
                _ => false,
            };
            if !safe {
                return None;
            }
            assigned.extend(ins.op.writes());
        }
        if let STerm::Branch { cond, .. } = &blk.term {
            if !settled(cond) {
                return None;
            }
        }
    }
    // Where an iteration starts is a matter of where it is cut: `r = x; while (r != 1) { r =
    // x; }` changes `r` from header to header, but not from the body's entry to the body's
    // entry, where `r` is dead (the body assigns it first). Every iteration going round passes
    // the header and the header's one successor inside the loop, so either may be the start.
    let mut starts = vec![info.header];
    if let [first] = successors(&cfg.blocks[info.header].term)
        .into_iter()
        .filter(|&b| inside(b) && b != info.header)
        .collect::<Vec<_>>()[..]
    {
        starts.push(first);
    }
    (starts.iter())
        .position(|&p| {
            assigned.iter().all(|&r| !live.at_entry(p)[r as usize])
                && swaps
                    .iter()
                    .all(|&(b, k)| fails_going_round(cfg, l, b, k, p))
        })
        .map(|k| k as u32)
}

/// Does the compare-exchange at instruction `k` of block `b` fail in every iteration of loop
/// `l` that goes round from `start`? It does when its compare is a constant `c` and, with its
/// result `r == c` (the compare succeeded), the branches that follow leave the loop before
/// `start` comes again (`do { r = atomicCompSwap(lock, 0, 1); } while (r != 0);`, clspv's
/// spin lock; `while (r != 0) { r = atomicCompSwap(lock, 0, 1); }` from the body's entry).
fn fails_going_round(cfg: &Cfg, l: LoopId, b: SBlockId, k: usize, start: SBlockId) -> bool {
    let Op::Atomic {
        dst: Some(r), args, ..
    } = &cfg.blocks[b].instrs[k].op
    else {
        return false;
    };
    let mut regs = vec![None; cfg.regs.len()];
    let Some(c) = super::partial::constant(cfg, &regs, None, &args[0]) else {
        return false;
    };
    regs[*r as usize] = Some(c);
    let (mut at, mut from) = (b, k + 1);
    for _ in 0..=cfg.blocks.len() {
        let blk = &cfg.blocks[at];
        for ins in &blk.instrs[from..] {
            let Some(w) = ins.op.writes() else { continue };
            regs[w as usize] = match &ins.op {
                Op::Local { value, .. } => super::partial::constant(cfg, &regs, None, value),
                _ => None,
            };
        }
        at = match &blk.term {
            STerm::Branch {
                cond,
                then_to,
                else_to,
            } => match super::partial::constant(cfg, &regs, None, cond) {
                Some(v) if v != 0 => *then_to,
                Some(_) => *else_to,
                None => return false,
            },
            STerm::Jump(to) => *to,
            STerm::Return => return true,
        };
        if !cfg.blocks[at].loops.contains(&l) {
            return true;
        }
        if at == start {
            return false;
        }
        from = 0;
    }
    false
}

/// Can evaluating `e` never be undefined in one iteration and defined in another? A
/// division by a register could ([`super::deps::divides`]); one by a literal is the same
/// every time.
fn total(e: &Expr) -> bool {
    !super::deps::divides(e)
}

#[cfg(test)]
mod tests {
    fn idle(kernel: &str, cond: &str) -> Vec<Option<u32>> {
        let text = format!(
            "test t\nthreads 2\nglobal x\nglobal y[2]\nkernel {{ {kernel} }}\nexists ({cond})\n"
        );
        let test = crate::syntax::parse("t.litmus", text.as_bytes()).unwrap();
        let cfg = crate::ir::cfg::lower_observing(&test, &[]);
        super::idle_loops(&cfg, &crate::ir::live::Live::of(&cfg))
    }

    #[test]
    fn spin_loops_are_idle_from_the_header_or_the_body() {
        // Leaving by `break`, the register observed at the end: assigned again before every
        // read, so dead at the header.
        let brk = "while (1) { r = x; if (r == 1) { break; } }";
        assert_eq!(idle(brk, "0:r == 1"), [Some(0)]);
        // Read before the loop and in the body: `r` changes from header to header, not from
        // the body's entry to the body's entry.
        let rot = "r = x; while (r != 1) { r = x; }";
        assert_eq!(idle(rot, "0:r == 1"), [Some(1)]);
        // The body's last value of an observed register is what counts, whichever iterations
        // went before.
        let kept = "r = 0; s = x; while (s == 0) { r = y[0]; s = x; }";
        assert_eq!(idle(kept, "0:r == 1"), [Some(1)]);
        // A fence in the loop (message passing's acquire) orders and changes nothing.
        let fenced = "r = x; while (r == 0) { fence(acquire); r = x; }";
        assert_eq!(idle(fenced, "0:r == 1"), [Some(1)]);
        // Reading an element at a constant index is as good.
        let elem = "r = y[1]; while (r != 1) { r = y[1]; }";
        assert_eq!(idle(elem, "x == 1"), [Some(1)]);
        // Or at an index the loop does not change (one value in every iteration).
        let inv = "k = x; r = y[k]; while (r != 1) { r = y[k]; }";
        assert_eq!(idle(inv, "x == 1"), [Some(1)]);
        let inv_obs = "r = 0; s = y[r]; while (s == 0) { s = y[r]; }";
        assert_eq!(idle(inv_obs, "0:r == 0 || x == 1"), [Some(1)]);
        // A compare-exchange spin lock: going round means the compare failed, and a failing
        // compare-exchange only reads.
        let cas = "r = atomicCompSwap(x, 0, 1); while (r != 0) { r = atomicCompSwap(x, 0, 1); }";
        assert_eq!(idle(cas, "x == 1"), [Some(1)]);
        let cas_brk = "while (1) { r = atomicCompSwap(x, 0, 1); t = r == 0; if (t) { break; } }";
        assert_eq!(idle(cas_brk, "x == 1"), [Some(0)]);
    }

    #[test]
    fn loops_with_effects_or_live_changes_are_not_idle() {
        let not = [
            // A store, an atomic, a fence, a barrier or a subgroup op going round.
            "r = x; while (r == 0) { y[0] = 1; r = x; }",
            "r = 0; while (r == 0) { r = atomicExchange(x, 1); }",
            "r = x; while (r == 0) { subgroupBarrier(); r = x; }",
            "r = x; while (r == 0) { s = subgroupAdd(1); r = x; }",
            // A counter: the register read next time changes.
            "r = 0; while (r < 3) { r = r + 1; }",
            // A value kept after the loop: the observed register may change in the body and
            // not again later.
            "r = 0; s = x; while (s == 0) { t = y[1]; if (t == 1) { r = y[0]; } s = x; }",
            // Undefined behaviour may wait past the bound: a division, an index read.
            "r = x; while (r == 0) { r = x; s = 4 / r; }",
            // An index the loop changes.
            "r = 0; k = 0; s = y[k]; while (s == 0) { k = x; s = y[k]; }",
            // A compare-exchange that may succeed and still go round; one that writes back
            // when it fails (PTX's `atom.cas`).
            "while (1) { r = atomicCompSwap(x, 0, 1); if (r == 1) { break; } }",
            "r = 1; while (r != 0) { r = atomicCompSwapWriteBack(x, 0, 1); }",
            // The result overwritten before the branch: a success may go round.
            "while (1) { r = atomicCompSwap(x, 0, 1); r = y[0]; if (r == 0) { break; } }",
        ];
        for k in not {
            assert_eq!(idle(k, "0:r == 0 || x == 1"), [None], "{k}");
        }
        // A loop inside: its iterations are more than one pass.
        let nested = "r = x; while (r == 0) { s = y[0]; while (s == 0) { s = y[0]; } r = x; }";
        assert_eq!(idle(nested, "x == 1"), [None, Some(1)]);
    }
}
