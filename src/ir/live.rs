//! Register liveness: which registers a later step may still read.
//!
//! A register is *live* at a point when some path from there reads it before assigning it; a
//! thread that returns reads every register the final condition observes. Two uses: idle
//! loops ([`super::idle`]: an iteration may assign only dead registers), and the explorer,
//! which forgets dead registers so that states differing only in values nobody will read are
//! one state (shaders compiled by glslang keep every temporary of the last iteration, and
//! their stale values multiplied the states of a loop: docs/progress.md, "Places").
//!
//! The analysis runs over the structured CFG. A block instance of the unrolled program runs
//! its static block's instructions, and its paths are paths of the CFG (or are cut short), so
//! what is dead in the CFG is dead in every instance.

use super::cfg::{Cfg, SBlockId, STerm};
use super::{Expr, Observable};

/// Live registers before each instruction of each static block, and at a thread's end.
#[derive(Clone, Debug)]
pub struct Live {
    /// `before[b][i][r]`: is `r` live before instruction `i` of block `b` (`i` = the number of
    /// instructions: at the terminator)?
    before: Vec<Vec<Vec<bool>>>,
    /// The registers the final condition observes: live when a thread has returned.
    observed: Vec<bool>,
}

impl Live {
    pub fn of(cfg: &Cfg) -> Live {
        let nregs = cfg.regs.len();
        let mut observed = vec![false; nregs];
        for o in &cfg.observables {
            if let Observable::Reg { reg, .. } = o {
                observed[*reg as usize] = true;
            }
        }
        let mut before: Vec<Vec<Vec<bool>>> = (cfg.blocks.iter())
            .map(|b| vec![vec![false; nregs]; b.instrs.len() + 1])
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for (b, blk) in cfg.blocks.iter().enumerate().rev() {
                let mut out = vec![false; nregs];
                match &blk.term {
                    STerm::Return => out.clone_from(&observed),
                    STerm::Branch { cond, .. } => {
                        let mut reads = Vec::new();
                        cond.regs(&mut reads);
                        for r in reads {
                            out[r as usize] = true;
                        }
                    }
                    STerm::Jump(_) => {}
                }
                for s in successors(&blk.term) {
                    for (o, l) in out.iter_mut().zip(&before[s][0]) {
                        *o |= *l;
                    }
                }
                let n = blk.instrs.len();
                if before[b][n] != out {
                    before[b][n].clone_from(&out);
                    changed = true;
                }
                for (i, ins) in blk.instrs.iter().enumerate().rev() {
                    if let Some(w) = ins.op.writes() {
                        out[w as usize] = false;
                    }
                    for r in ins.op.reads() {
                        out[r as usize] = true;
                    }
                    if before[b][i] != out {
                        before[b][i].clone_from(&out);
                        changed = true;
                    }
                }
            }
        }
        Live { before, observed }
    }

    /// Registers live at the entry of block `b`.
    pub fn at_entry(&self, b: SBlockId) -> &[bool] {
        &self.before[b][0]
    }

    /// Registers live before instruction `i` of block `b` (`i` = its number of instructions:
    /// at the terminator).
    pub fn before(&self, b: SBlockId, i: usize) -> &[bool] {
        &self.before[b][i]
    }

    /// Registers live once a thread has returned: those the final condition observes.
    pub fn at_return(&self) -> &[bool] {
        &self.observed
    }

    /// Is `r` live before instruction `i` of block `b`?
    #[cfg(test)]
    pub fn is_live(&self, b: SBlockId, i: usize, r: super::RegId) -> bool {
        self.before[b][i][r as usize]
    }
}

/// Zeroes the registers of `regs` that `keep` (one of [`Live`]'s sets) says are dead: their
/// values can no longer matter, so states that differ only there are one state.
pub fn forget(keep: &[bool], regs: &mut [u32]) {
    for (v, &k) in regs.iter_mut().zip(keep) {
        if !k {
            *v = 0;
        }
    }
}

/// The edges a block can take (a branch on a literal takes one side only).
pub(super) fn successors(t: &STerm) -> Vec<SBlockId> {
    match t {
        STerm::Jump(b) => vec![*b],
        STerm::Branch {
            cond: Expr::Lit(v),
            then_to,
            else_to,
        } => vec![if *v != 0 { *then_to } else { *else_to }],
        STerm::Branch {
            then_to, else_to, ..
        } => vec![*then_to, *else_to],
        STerm::Return => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::Live;

    fn live(kernel: &str, cond: &str) -> (crate::ir::cfg::Cfg, Live) {
        let text = format!("test t\nthreads 1\nglobal x\nkernel {{ {kernel} }}\nexists ({cond})\n");
        let test = crate::syntax::parse("t.litmus", text.as_bytes()).unwrap();
        let cfg = crate::ir::cfg::lower_observing(&test, &[]);
        let live = Live::of(&cfg);
        (cfg, live)
    }

    fn reg(cfg: &crate::ir::cfg::Cfg, name: &str) -> u32 {
        cfg.regs.iter().position(|r| r.name == name).unwrap() as u32
    }

    #[test]
    fn a_register_is_dead_once_nothing_reads_it_before_it_is_assigned() {
        // `s` is read by the store, then assigned again, and nothing reads it after.
        let (cfg, live) = live("s = x; x = s + 1; s = 0; r = x;", "0:r == 1");
        let (s, r) = (reg(&cfg, "s"), reg(&cfg, "r"));
        let b = 0;
        assert_eq!(
            cfg.blocks[b].instrs.len(),
            4,
            "one block of four instructions"
        );
        assert!(!live.is_live(b, 0, s), "assigned first");
        assert!(live.is_live(b, 1, s), "the store reads it");
        assert!(!live.is_live(b, 2, s), "assigned again before any read");
        assert!(!live.is_live(b, 3, s) && !live.at_return()[s as usize]);
        // The observed register is live from its load to the end, not before.
        assert!(!live.is_live(b, 3, r));
        assert!(live.is_live(b, 4, r) && live.at_return()[r as usize]);
    }

    #[test]
    fn a_loop_keeps_alive_what_its_next_iteration_reads() {
        // `k` counts the iterations: read by the branch at the header, live all round the
        // loop; `t` is assigned before each read inside the body, so dead at the header.
        let (cfg, live) = live(
            "k = 0; while (k < 3) { t = x; x = t; k = k + 1; }",
            "x == 1",
        );
        let (k, t) = (reg(&cfg, "k"), reg(&cfg, "t"));
        let header = cfg.loops[0].header;
        assert!(live.at_entry(header)[k as usize]);
        assert!(!live.at_entry(header)[t as usize]);
    }
}
