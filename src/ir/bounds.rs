//! Per-loop unroll depths: how many iterations each loop can actually run.
//!
//! One `--unroll` for every loop is wasteful twice over: a counted loop (`i < 3`) is unrolled
//! to the bound anyway, and a loop that runs longer than the bound (`i < lane / 2 + 1` on 32
//! lanes, a loop every lane leaves through `subgroupElect()` guarded by `i >= sgsize`) is cut
//! although its trip count is known. So before unrolling, each thread is run abstractly over
//! the structured CFG: registers are known constants or unknown, `lane`, `tid`, `sgsize`...
//! are constants of the thread, loads of a global that nothing writes read its initial value,
//! every other load and every subgroup-op result is unknown, and a branch on an unknown
//! condition follows both sides. The deepest iteration at which any thread can enter a loop's
//! body is that loop's depth.
//!
//! The depth is only a choice of how far to unroll, never an assumption: the edge that would
//! begin one more iteration still goes to `Target::Cut`, and both engines report an execution
//! that takes it. A loop the analysis cannot bound (an unknown exit condition that never
//! becomes known, or more than [`MAX_DEPTH`] iterations, or too much work) gets `--unroll`.

use super::cfg::{Cfg, STerm};
use super::partial::{constant, successors, Partial};
use super::program::{Program, Target, Term};
use super::{Expr, Op};
use crate::eval;
use rustc_hash::{FxHashMap, FxHashSet};

/// Deepest unrolling the analysis may choose for a loop.
pub const MAX_DEPTH: u32 = 1024;
/// Block visits (over all threads and paths) before the analysis gives up.
const MAX_WORK: usize = 400_000;

/// The depth of each loop of `cfg` (indexed by loop id): `Some(n)` when every execution of
/// every thread enters the loop's body at most `n` times per loop instance, `None` when it
/// could not tell.
pub fn loop_depths(cfg: &Cfg) -> Vec<Option<u32>> {
    let nloops = cfg.loops.len();
    if nloops == 0 {
        return Vec::new();
    }
    let written = cfg.written_globals();
    let mut a = Analysis {
        cfg,
        written,
        depth: vec![0; nloops],
        unbounded: vec![false; nloops],
        work: 0,
    };
    for t in 0..cfg.layout.threads {
        if !a.thread(t) {
            return vec![None; nloops];
        }
    }
    (0..nloops)
        .map(|l| (!a.unbounded[l]).then_some(a.depth[l].max(1)))
        .collect()
}

struct Analysis<'c> {
    cfg: &'c Cfg,
    /// Per global: some instruction writes it.
    written: Vec<bool>,
    depth: Vec<u32>,
    unbounded: Vec<bool>,
    work: usize,
}

type Regs = Vec<Option<u32>>;

impl Analysis<'_> {
    /// Runs thread `t` along every path; false when the work budget ran out.
    fn thread(&mut self, t: u32) -> bool {
        let cfg = self.cfg;
        let mut seen: FxHashSet<(usize, Vec<u32>, Regs)> = FxHashSet::default();
        let mut stack: Vec<(usize, Vec<u32>, Regs)> =
            vec![(0, Vec::new(), vec![Some(0); cfg.regs.len()])];
        while let Some((sb, iters, mut regs)) = stack.pop() {
            if !seen.insert((sb, iters.clone(), regs.clone())) {
                continue;
            }
            self.work += 1;
            if self.work > MAX_WORK {
                return false;
            }
            let block = &cfg.blocks[sb];
            // Entering a loop's body at iteration k needs k + 1 iterations of unrolling.
            if let Some(&l) = block.loops.last() {
                if cfg.loops[l].header != sb {
                    let k = *iters.last().expect("inside a loop");
                    self.depth[l] = self.depth[l].max(k + 1);
                }
            }
            for ins in &block.instrs {
                match &ins.op {
                    Op::Local { dst, value } => regs[*dst as usize] = self.eval(t, &regs, value),
                    Op::Load { dst, loc } => {
                        let g = &cfg.globals[loc.global as usize];
                        let v = match self.eval(t, &regs, &loc.index) {
                            Some(i) if !self.written[loc.global as usize] && i < g.len => {
                                Some(g.init[i as usize])
                            }
                            _ => None,
                        };
                        regs[*dst as usize] = v;
                    }
                    Op::Atomic { dst: Some(d), .. } | Op::SgOp { dst: d, .. } => {
                        regs[*d as usize] = None
                    }
                    _ => {}
                }
            }
            let next = successors(cfg, &regs, t, &block.term);
            for to in next {
                if let Some(it) = self.successor(sb, &iters, to) {
                    stack.push((to, it, regs.clone()));
                }
            }
        }
        true
    }

    /// The iteration vector after the edge `from -> to` (as `unroll` numbers instances), or
    /// `None` past [`MAX_DEPTH`] (the loop is then unbounded for the analysis).
    fn successor(&mut self, from: usize, iters: &[u32], to: usize) -> Option<Vec<u32>> {
        let cfg = self.cfg;
        let it = super::unroll::iters_after(cfg, from, iters, to);
        if let (Some(&l), Some(&k)) = (cfg.blocks[to].loops.last(), it.last()) {
            if cfg.loops[l].header == to && k > MAX_DEPTH {
                self.unbounded[l] = true;
                return None;
            }
        }
        Some(it)
    }

    fn eval(&self, t: u32, regs: &Regs, e: &Expr) -> Option<u32> {
        constant(self.cfg, regs, Some(t), e)
    }
}

/// What the subgroup-wide run of an unrolled program says about one loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// No execution takes the loop's cut; `n` iterations are entered at most.
    Enough(u32),
    /// Some thread certainly begins one more iteration than the unrolling has; with the
    /// known registers of the threads that do (a fingerprint: when deepening finds them
    /// again, the loop goes round without change and deeper unrolling cannot end it).
    Deeper(u64),
    /// Whether the cut is taken depends on values not known before the run.
    Open,
}

/// Runs every subgroup of an unrolled program together over known-or-unknown values, block
/// by block in topological order and instruction by instruction across lanes, so that
/// subgroup ops whose memberships and arguments are known give known results (an elect in a
/// loop every lane leaves in turn), and says for each loop whether its unrolling suffices.
/// `None` when the work limit ran out.
pub fn needs(prog: &Program) -> Option<Vec<Need>> {
    let cfg = &prog.cfg;
    let nloops = cfg.loops.len();
    let lay = prog.layout;
    let nt = lay.threads as usize;
    let nregs = prog.regs.len();
    if nt.saturating_mul(prog.blocks.len()) > 4 * MAX_WORK {
        return None;
    }
    let written = cfg.written_globals();
    let mut entered = vec![0u32; nloops];
    let mut cut: Vec<Option<Need>> = vec![None; nloops];
    type Inc = Vec<(Option<bool>, Regs)>;
    let mut incoming: Vec<FxHashMap<u32, Inc>> = vec![FxHashMap::default(); nt];
    for (b, block) in prog.blocks.iter().enumerate() {
        let bid = b as u32;
        // Who is in the block, with which registers.
        let mut live: Vec<Option<(Option<bool>, Regs)>> = Vec::with_capacity(nt);
        for inc in incoming.iter_mut() {
            if bid == prog.entry {
                live.push(Some((Some(true), vec![Some(0); nregs])));
                continue;
            }
            let inc: Inc = inc.remove(&bid).unwrap_or_default();
            let mut it = inc.into_iter().filter(|(c, _)| *c != Some(false));
            let Some((mut on, mut regs)) = it.next() else {
                live.push(None);
                continue;
            };
            for (c, r) in it {
                for k in 0..nregs {
                    regs[k] = match c {
                        Some(true) => r[k],
                        _ if r[k] == regs[k] => regs[k],
                        _ => None,
                    };
                }
                on = match (on, c) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    _ => None,
                };
            }
            live.push(Some((on, regs)));
        }
        if live.iter().all(Option::is_none) {
            continue;
        }
        let sb = &cfg.blocks[block.sblock];
        if let Some(&l) = sb.loops.last() {
            if cfg.loops[l].header != block.sblock {
                let k = *block.iters.last().expect("inside a loop");
                entered[l] = entered[l].max(k + 1);
            }
        }
        for ins in &block.instrs {
            if let Op::SgOp { dst, op, args } = &ins.op {
                for sg in 0..lay.subgroups() {
                    let threads: Vec<u32> = lay.subgroup_threads(sg).collect();
                    let mut members = Vec::new();
                    let mut argv = Vec::new();
                    for &t in &threads {
                        match &live[t as usize] {
                            Some((on, regs)) => {
                                let mut d = Partial {
                                    regs,
                                    tid: Some(t),
                                    cfg,
                                };
                                members.push(*on);
                                argv.push(args.iter().map(|a| eval::eval(&mut d, a)).collect());
                            }
                            None => {
                                members.push(Some(false));
                                argv.push(vec![Some(0); args.len()]);
                            }
                        }
                    }
                    for (j, &t) in threads.iter().enumerate() {
                        if members[j] == Some(false) {
                            continue;
                        }
                        let regs: Regs = Vec::new();
                        let mut d = Partial {
                            regs: &regs,
                            tid: Some(t),
                            cfg,
                        };
                        let inp = eval::SgInputs::<Partial> {
                            members: &members,
                            args: &argv,
                        };
                        let v = eval::sgop_result(&mut d, *op, &inp, j as u32);
                        if let Some((_, regs)) = live[t as usize].as_mut() {
                            regs[*dst as usize] = v;
                        }
                    }
                }
                continue;
            }
            for (t, l) in live.iter_mut().enumerate() {
                let Some((_, regs)) = l else { continue };
                let mut d = Partial {
                    regs,
                    tid: Some(t as u32),
                    cfg,
                };
                match &ins.op {
                    Op::Local { dst, value } => {
                        let v = eval::eval(&mut d, value);
                        regs[*dst as usize] = v;
                    }
                    Op::Load { dst, loc } => {
                        let g = &prog.globals[loc.global as usize];
                        let v = match eval::eval(&mut d, &loc.index) {
                            Some(i) if !written[loc.global as usize] && i < g.len => {
                                Some(g.init[i as usize])
                            }
                            _ => None,
                        };
                        regs[*dst as usize] = v;
                    }
                    Op::Atomic { dst: Some(r), .. } => regs[*r as usize] = None,
                    _ => {}
                }
            }
        }
        // The terminator: edges with their conditions, and the cuts they may take.
        let statics: Vec<usize> = match &sb.term {
            STerm::Jump(t) => vec![*t],
            STerm::Branch {
                then_to, else_to, ..
            } => vec![*then_to, *else_to],
            STerm::Return => vec![],
        };
        for (t, l) in live.into_iter().enumerate() {
            let Some((on, regs)) = l else { continue };
            let conds: Vec<Option<bool>> = match &block.term {
                Term::Return => vec![],
                Term::Jump(_) => vec![on],
                Term::Branch { cond, .. } => {
                    let mut d = Partial {
                        regs: &regs,
                        tid: Some(t as u32),
                        cfg,
                    };
                    let c = eval::eval(&mut d, cond).map(|v| v != 0);
                    let and = |a: Option<bool>, b: Option<bool>| match (a, b) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    };
                    vec![and(on, c), and(on, c.map(|x| !x))]
                }
            };
            for ((target, c), st) in block.term.targets().into_iter().zip(conds).zip(&statics) {
                if c == Some(false) {
                    continue;
                }
                match target {
                    Target::Block(to) => incoming[t].entry(to).or_default().push((c, regs.clone())),
                    Target::Cut => {
                        let l = *cfg.blocks[*st].loops.last().expect("a cut enters a loop");
                        let n = if c == Some(true) {
                            use std::hash::{Hash, Hasher};
                            let mut h = std::collections::hash_map::DefaultHasher::new();
                            (t, &regs).hash(&mut h);
                            Need::Deeper(h.finish())
                        } else {
                            Need::Open
                        };
                        cut[l] = Some(match (cut[l], n) {
                            (Some(Need::Deeper(a)), Need::Deeper(b)) => Need::Deeper(a ^ b),
                            (Some(Need::Deeper(a)), _) | (_, Need::Deeper(a)) => Need::Deeper(a),
                            _ => Need::Open,
                        });
                    }
                }
            }
        }
    }
    Some(
        (0..nloops)
            .map(|l| cut[l].unwrap_or(Need::Enough(entered[l].max(1))))
            .collect(),
    )
}
