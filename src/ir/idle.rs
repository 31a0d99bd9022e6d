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
    if has_inner_loop(cfg, l) {
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
    let inv = Invariants::of(cfg, l);
    let mut assigned = Vec::new();
    let mut swaps = Vec::new();
    for (b, blk) in cfg.blocks.iter().enumerate() {
        if !going_round[b] {
            continue;
        }
        for (k, ins) in blk.instrs.iter().enumerate() {
            let safe = match &ins.op {
                // A compare-exchange that fails only reads; it is idle when an iteration that
                // goes round must have seen its compare fail.
                Op::Atomic { op, loc, args, .. } if op.may_only_read() => {
                    swaps.push((b, k));
                    inv.index_settled(loc) && args.iter().all(|a| inv.settled(a))
                }
                op => inv.quiet(op),
            };
            if !safe {
                return None;
            }
            assigned.extend(ins.op.writes());
        }
        if let STerm::Branch { cond, .. } = &blk.term {
            if !inv.settled(cond) {
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

/// Does loop `l` hold a loop inside it? Its iterations are then more than one pass over its
/// body, and neither rule here applies.
fn has_inner_loop(cfg: &Cfg, l: LoopId) -> bool {
    (cfg.blocks.iter()).any(|b| b.loops.contains(&l) && b.loops.last() != Some(&l))
}

/// What one iteration of a loop may do and still change nothing a later step sees, registers
/// aside.
struct Invariants<'c> {
    cfg: &'c Cfg,
    /// Registers the loop assigns: an expression over the others has one value throughout.
    varies: Vec<bool>,
}

impl<'c> Invariants<'c> {
    fn of(cfg: &'c Cfg, l: LoopId) -> Self {
        let mut varies = vec![false; cfg.regs.len()];
        for blk in cfg.blocks.iter().filter(|b| b.loops.contains(&l)) {
            for ins in &blk.instrs {
                if let Some(r) = ins.op.writes() {
                    varies[r as usize] = true;
                }
            }
        }
        Invariants { cfg, varies }
    }

    fn invariant(&self, e: &Expr) -> bool {
        let mut regs = Vec::new();
        e.regs(&mut regs);
        regs.iter().all(|&r| !self.varies[r as usize])
    }

    /// Undefined in one iteration and defined in another: never for a total expression, nor
    /// for one the loop does not change (each iteration evaluates it to the same value).
    fn settled(&self, e: &Expr) -> bool {
        total(e) || self.invariant(e)
    }

    fn index_settled(&self, loc: &super::Loc) -> bool {
        match loc.index {
            Expr::Lit(i) => i < self.cfg.globals[loc.global as usize].len,
            _ => self.invariant(&loc.index),
        }
    }

    /// Does running `op` write no memory, meet no barrier or subgroup op and meet undefined
    /// behaviour in every iteration or in none? (A fence orders; it changes nothing a later
    /// step reads.)
    fn quiet(&self, op: &Op) -> bool {
        match op {
            Op::Local { value, .. } => self.settled(value),
            Op::Load { loc, .. } => self.index_settled(loc),
            Op::Fence { id } => id.as_ref().is_none_or(|e| self.settled(e)),
            _ => false,
        }
    }
}

/// For each loop of `cfg` that is not idle (`idle`, from [`idle_loops`]) but whose iterations
/// may be, path by path: the blocks whose running makes an iteration from the header back to
/// it *busy* (not idle). A test-and-test-and-set lock (`while (1) { r = ld(l); if (r == 0) {
/// s = atomicExchange(l, 1); if (s == 0) { break; } } }`): the iteration that only reads the
/// lock is idle, the one that exchanges is busy. An iteration is idle when it goes round
/// running no busy block: a block with an instruction that is not quiet
/// ([`Invariants::quiet`]) or assigns a register live at the header, or a branch whose
/// condition may be undefined in one iteration and not another.
///
/// `None` for a loop that holds another loop, a barrier or a subgroup op anywhere (an
/// iteration removed for one subgroup would change which instance of them the others meet),
/// and for one where no path from the header goes round without a busy block.
pub fn partly_idle_loops(
    cfg: &Cfg,
    live: &Live,
    idle: &[Option<u32>],
) -> Vec<Option<Vec<SBlockId>>> {
    (0..cfg.loops.len())
        .map(|l| {
            if idle[l].is_some() {
                return None;
            }
            busy_blocks(cfg, l, live)
        })
        .collect()
}

fn busy_blocks(cfg: &Cfg, l: LoopId, live: &Live) -> Option<Vec<SBlockId>> {
    let info = &cfg.loops[l];
    if has_inner_loop(cfg, l) {
        return None;
    }
    let inside: Vec<SBlockId> = (0..cfg.blocks.len())
        .filter(|&b| cfg.blocks[b].loops.contains(&l))
        .collect();
    let collective = |op: &Op| {
        matches!(
            op.kind(),
            crate::vocab::Kind::Sgop | crate::vocab::Kind::Barrier
        )
    };
    if (inside.iter()).any(|&b| cfg.blocks[b].instrs.iter().any(|i| collective(&i.op))) {
        return None;
    }
    let inv = Invariants::of(cfg, l);
    let at_header = live.at_entry(info.header);
    let busy: Vec<SBlockId> = (inside.iter().copied())
        .filter(|&b| {
            let blk = &cfg.blocks[b];
            let loud = (blk.instrs.iter()).any(|ins| {
                !inv.quiet(&ins.op) || ins.op.writes().is_some_and(|r| at_header[r as usize])
            });
            let unsettled = matches!(&blk.term, STerm::Branch { cond, .. } if !inv.settled(cond));
            loud || unsettled
        })
        .collect();
    // Some iteration may be idle: a path of quiet blocks from the header to the back edge.
    let mut seen = vec![false; cfg.blocks.len()];
    let mut stack = vec![info.header];
    while let Some(b) = stack.pop() {
        if busy.contains(&b) || seen[b] {
            continue;
        }
        seen[b] = true;
        for s in successors(&cfg.blocks[b].term) {
            if s == info.header {
                return Some(busy);
            }
            if cfg.blocks[s].loops.contains(&l) {
                stack.push(s);
            }
        }
    }
    None
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

    /// Per loop, the busy blocks' count when the loop is partly idle.
    fn partly(kernel: &str) -> Vec<Option<usize>> {
        let text = format!(
            "test t\nthreads 2\nglobal x\nglobal y[2]\nkernel {{ {kernel} }}\nexists (x == 1)\n"
        );
        let test = crate::syntax::parse("t.litmus", text.as_bytes()).unwrap();
        let cfg = crate::ir::cfg::lower_observing(&test, &[]);
        let live = crate::ir::live::Live::of(&cfg);
        let idle = super::idle_loops(&cfg, &live);
        (super::partly_idle_loops(&cfg, &live, &idle).iter())
            .map(|b| b.as_ref().map(Vec::len))
            .collect()
    }

    #[test]
    fn loops_idle_on_some_paths_are_partly_idle() {
        // Test and test-and-set: the exchange's block is busy, the path that finds the lock
        // taken is not.
        let ttas =
            "while (1) { r = x; if (r == 0) { s = atomicExchange(x, 1); if (s == 0) { break; } } }";
        assert_eq!(partly(ttas), [Some(1)]);
        // A waiting writer: busy when it writes, idle when it only reads.
        let ww = "while (1) { r = x; if (r == 1) { break; } if (r == 2) { atomicAdd(y[0], 1); } }";
        assert_eq!(partly(ww), [Some(1)]);
        // Idle loops are not partly idle; nor are loops busy on every path, loops holding a
        // subgroup op or barrier, or a counter (the register read next time changes).
        for k in [
            "r = x; while (r != 1) { r = x; }",
            "r = 0; while (r == 0) { r = atomicExchange(x, 1); }",
            "while (1) { r = x; if (r == 1) { break; } s = subgroupAdd(1); }",
            "while (1) { r = x; if (r == 1) { break; } if (r == 2) { barrier(); } }",
            "r = 0; while (r < 3) { r = r + 1; s = x; if (s == 2) { y[0] = 1; } }",
        ] {
            assert_eq!(partly(k), [None], "{k}");
        }
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
