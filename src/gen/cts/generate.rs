//! The generator: random CTS-shaped programs as a `Stmt` tree, following the CTS's
//! `Program.pickOp`, and the replacement of programs too large for the tool.

use super::print::print;
use super::simulate::simulate;
use super::{
    Bound, Built, Cells, Cond, CtsConfig, CtsProgram, Stmt, MAX_LOOP_NESTING, NUM_INPUTS,
    STORE_BASE,
};
use crate::gen::Rng;

/// A complete test for `seed`, deterministic in `(seed, cfg)`.
///
/// # Panics
/// If `cfg.lanes` is not in `1..=64`, `cfg.subgroups` is 0, or there are more threads than
/// the language allows (1024).
pub fn generate(seed: u64, cfg: &CtsConfig) -> CtsProgram {
    assert!(
        (1..=64).contains(&cfg.lanes),
        "CtsConfig::lanes must be in 1..=64"
    );
    assert!(cfg.subgroups >= 1, "CtsConfig::subgroups must be positive");
    assert!(
        cfg.lanes * cfg.subgroups <= crate::syntax::limits::MAX_THREADS,
        "CtsConfig: too many threads"
    );
    let name = format!("cts_l{}_s{}_{seed}", cfg.lanes, cfg.subgroups);
    let (built, cells, text) = make(seed, cfg, &name);
    CtsProgram {
        name,
        text,
        unroll: built.unroll,
        ops: built.ops,
        expected: cells.expected,
    }
}

/// Generated programs keep their expected cells within the litmus format's former 65,536-cell
/// limit: the explorer cross-checks them, and the suites stay as they were generated.
const MAX_EXPECTED_CELLS: usize = 65536;

/// The program for `seed`, its simulation and its text. A program too big to cross-check is
/// replaced by the one for a derived seed: one whose `out` exceeds `MAX_EXPECTED_CELLS`
/// (nested lane-dependent loops at 64 lanes can write thousands of records per
/// invocation), or whose unrolled form at `unroll` exceeds the unroller's limit on block
/// instances (loops nested in loops at 32 lanes and more). After `MAX_TRIES` replacements
/// the last program is returned as it is, and the tool will say why it refuses it.
fn make(seed: u64, cfg: &CtsConfig, name: &str) -> (Built, Cells, String) {
    const MAX_TRIES: usize = 1000;
    let mut s = seed;
    for tries in 1.. {
        let built = build(s, cfg);
        let cells = simulate(&built.body, cfg.lanes, cfg.subgroups);
        let text = print(name, seed, cfg, &built, &cells);
        if tries >= MAX_TRIES {
            return (built, cells, text);
        }
        if cells.expected.len() <= MAX_EXPECTED_CELLS {
            let small =
                block_bound(&built.body, 1, built.unroll) <= crate::ir::unroll::MAX_BLOCKS as u64;
            if small || unrolls(name, &text, built.unroll) {
                return (built, cells, text);
            }
        }
        s = Rng(s).next();
    }
    unreachable!("the loop returns by MAX_TRIES")
}

/// At least the block instances of the unrolled program: each statement a block of its own, an
/// `if` three more (then, else, merge), a loop a merge and, per iteration, a header, a body and
/// a continue block, `unroll + 1` iterations per enclosing loop. When this is within the
/// unroller's limit, compiling to find out is not needed.
fn block_bound(stmts: &[Stmt], mult: u64, unroll: u32) -> u64 {
    let inner = mult.saturating_mul(unroll as u64 + 1);
    stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then, els, .. } => mult
                .saturating_mul(3)
                .saturating_add(block_bound(then, mult, unroll))
                .saturating_add(els.as_deref().map_or(0, |e| block_bound(e, mult, unroll))),
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => mult
                .saturating_add(inner.saturating_mul(3))
                .saturating_add(block_bound(body, inner, unroll)),
            _ => mult,
        })
        .fold(0, u64::saturating_add)
}

/// Does the tool accept the program at loop bound `unroll`? A program that does not parse is
/// a generator bug; it is let through so that the caller (and the tests) see it.
fn unrolls(name: &str, text: &str, unroll: u32) -> bool {
    match crate::syntax::parse(name, text.as_bytes()) {
        Ok(test) => unrolled(&test, unroll).is_ok(),
        Err(_) => true,
    }
}

/// The program the tool would analyse at loop bound `unroll` (with no budget: a generated
/// program is small, and one that is not is what `unrolls` looks for).
fn unrolled(
    test: &crate::syntax::ast::Test,
    unroll: u32,
) -> Result<crate::ir::Program, crate::ir::UnrollError> {
    crate::ir::unroll(
        crate::ir::cfg::lower(test),
        unroll,
        crate::ir::IdleDepth::Lanes,
        &crate::budget::Budget::unlimited(),
    )
}

/// Masks for `IfMask`; index 0 is the uniform condition (the CTS's `numMasks`).
const NUM_MASKS: usize = 10;
/// Percent chance that a `Return` pick makes a return (CTS: 5).
const RETURN_PERCENT: u64 = 25;

/// The kinds of flat op that matter for the CTS's "no ballot after a ballot" rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flat {
    Ballot,
    Store,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopKind {
    ForUniform,
    ForVar,
    ForInf,
    LoopUniform,
    LoopInf,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IfKind {
    Lid,
    Mask,
    Uniform,
    LoopCount,
    Elect,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Exit {
    Break,
    Continue,
    Return,
}

struct Gen<'a> {
    rng: Rng,
    cfg: &'a CtsConfig,
    masks: [u32; NUM_MASKS],
    /// Ops so far.
    ops: usize,
    /// Ops promised to constructs already open (their `EndIf`, loop end, elect-break).
    reserved: usize,
    nesting: usize,
    /// Enclosing loops, outermost first; loop `k` has counter `ik`.
    loops: Vec<LoopKind>,
    /// Directly inside an `if` arm (a `break` here is guarded already).
    in_if: bool,
    /// The last two flat ops, newest first.
    last: [Flat; 2],
    unroll: u32,
    inputs: bool,
}

fn build(seed: u64, cfg: &CtsConfig) -> Built {
    let mut rng = Rng(seed);
    let mut masks = [u32::MAX; NUM_MASKS];
    for m in masks.iter_mut().skip(1) {
        *m = rng.next() as u32;
    }
    let mut g = Gen {
        rng,
        cfg,
        masks,
        ops: 0,
        reserved: 0,
        nesting: 0,
        loops: Vec::new(),
        in_if: false,
        last: [Flat::Other; 2],
        unroll: 1,
        inputs: false,
    };
    let max = cfg.max_ops.max(1);
    let min = cfg.min_ops.min(max);
    let target = min + g.rng.below(max - min + 1);
    let mut body = Vec::new();
    let mut idle = 0;
    while g.ops < target {
        let before = g.ops;
        g.pick_op(1, &mut body);
        if g.ops == before {
            idle += 1;
            // Ballots and stores alternate at most twice in a row (the CTS's rule); with no
            // room for anything else, end the deadlock with a store.
            if idle >= 64 {
                g.store(&mut body);
                idle = 0;
            }
        }
    }
    Built {
        seed,
        body,
        ops: g.ops,
        unroll: g.unroll,
        inputs: g.inputs,
    }
}

impl Gen<'_> {
    fn fits(&self, n: usize) -> bool {
        self.ops + self.reserved + n <= self.cfg.max_ops.max(1)
    }

    fn count(&mut self, f: Flat) {
        self.ops += 1;
        self.last = [f, self.last[0]];
    }

    fn store(&mut self, out: &mut Vec<Stmt>) {
        out.push(Stmt::Store(STORE_BASE + self.ops as u32));
        self.count(Flat::Store);
    }

    /// `Program.pickOp`.
    fn pick_op(&mut self, count: usize, out: &mut Vec<Stmt>) {
        for _ in 0..count {
            self.gen_ballot(out);
            if self.nesting < self.cfg.max_depth {
                match self.rng.below(12) {
                    0 if !self.loops.is_empty() => self.gen_if(IfKind::LoopCount, out),
                    0 | 1 => self.gen_if(IfKind::Lid, out),
                    2 => self.gen_if(IfKind::Mask, out),
                    3 => self.gen_if(IfKind::Uniform, out),
                    4 if self.loops.len() < MAX_LOOP_NESTING => {
                        let kind = match self.rng.below(3) {
                            0 => LoopKind::ForUniform,
                            1 => LoopKind::ForInf,
                            _ => LoopKind::ForVar,
                        };
                        self.gen_loop(kind, out)
                    }
                    5 => self.gen_exit(Exit::Break, out),
                    6 => self.gen_exit(Exit::Continue, out),
                    7 => self.gen_exit(Exit::Return, out),
                    8 if self.loops.len() < MAX_LOOP_NESTING => {
                        let kind = if self.rng.chance(50) {
                            LoopKind::LoopUniform
                        } else {
                            LoopKind::LoopInf
                        };
                        self.gen_loop(kind, out)
                    }
                    9 => self.gen_if(IfKind::Elect, out),
                    _ => {}
                }
            }
            self.gen_ballot(out);
        }
    }

    /// `Program.genBallot`: sometimes a ballot, then sometimes a store; neither right after
    /// an op of its kind, nor a ballot after ballot-store or a store after store-ballot.
    fn gen_ballot(&mut self, out: &mut Vec<Stmt>) {
        if self.rng.chance(20)
            && self.fits(1)
            && !(self.last[0] == Flat::Ballot
                || (self.last[0] == Flat::Store && self.last[1] == Flat::Ballot))
        {
            out.push(Stmt::Ballot);
            self.count(Flat::Ballot);
        }
        if self.rng.chance(10)
            && self.fits(1)
            && !(self.last[0] == Flat::Store
                || (self.last[0] == Flat::Ballot && self.last[1] == Flat::Store))
        {
            self.store(out);
        }
    }

    fn mask_cond(&mut self) -> Cond {
        let idx = self.rng.below(NUM_MASKS);
        if idx == 0 {
            self.input_cond()
        } else {
            Cond::Mask(self.masks[idx])
        }
    }

    fn input_cond(&mut self) -> Cond {
        self.inputs = true;
        Cond::Input(self.rng.below(NUM_INPUTS as usize) as u32)
    }

    fn lane_cond(&mut self) -> Cond {
        Cond::LaneLt(self.rng.below(self.cfg.lanes as usize + 1) as u32)
    }

    /// `Program.genIf` (and an `if (subgroupElect())` without `else`).
    fn gen_if(&mut self, kind: IfKind, out: &mut Vec<Stmt>) {
        if !self.fits(2) {
            return;
        }
        let cond = match kind {
            IfKind::Lid => self.lane_cond(),
            IfKind::Mask => self.mask_cond(),
            IfKind::Uniform => self.input_cond(),
            IfKind::LoopCount => Cond::LaneEq(self.loops.len() - 1),
            IfKind::Elect => Cond::Elect,
        };
        self.count(Flat::Other);
        self.reserved += 1;
        self.nesting += 1;
        let in_if = std::mem::replace(&mut self.in_if, true);

        let before = self.ops;
        let mut then = Vec::new();
        self.pick_op(2, &mut then);
        let size = self.ops - before;

        let r = self.rng.below(100);
        let els = if kind != IfKind::Elect && r < 50 && self.fits(1) {
            self.count(Flat::Other);
            let mut els = Vec::new();
            if r < 10 && size > 0 && self.fits(size) {
                // Sometimes the else is a copy of the then, with fresh store literals.
                els = then.clone();
                let mut next = STORE_BASE + self.ops as u32;
                renumber_stores(&mut els, &mut next);
                self.ops += size;
                self.last = [Flat::Other; 2];
            } else {
                self.pick_op(2, &mut els);
            }
            Some(els)
        } else {
            None
        };
        self.reserved -= 1;
        self.count(Flat::Other);
        self.nesting -= 1;
        self.in_if = in_if;
        out.push(Stmt::If { cond, then, els });
    }

    /// `Program.genForUniform`, `genForInf`, `genForVar`, `genLoopUniform`, `genLoopInf`.
    fn gen_loop(&mut self, kind: LoopKind, out: &mut Vec<Stmt>) {
        let var = self.loops.len();
        let inf = matches!(kind, LoopKind::ForInf | LoopKind::LoopInf);
        // The CTS's extra elect-breaks in nested infinite loops.
        let reduction = match var + 1 {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        // An infinite loop holds an elect `if`: two levels.
        if inf && self.nesting + 2 > self.cfg.max_depth {
            return;
        }
        let elect_ops = if inf { 3 + 3 * (reduction - 1) } else { 0 };
        if !self.fits(2 + elect_ops) {
            return;
        }
        let n = self.cfg.lanes;
        let (bound, entries) = match kind {
            LoopKind::ForUniform | LoopKind::LoopUniform => {
                let c = 1 + self.rng.below(3) as u32;
                (Some(Bound::Const(c)), c)
            }
            LoopKind::ForVar => {
                let d = match var {
                    0 => 1,
                    1 => 2,
                    _ => 4,
                };
                (Some(Bound::LaneDiv(d)), (n - 1) / d + 1)
            }
            // The valve breaks at the top of body run n + 1.
            LoopKind::ForInf => (None, n + 1),
            // The valve breaks at the end of body run n.
            LoopKind::LoopInf => (None, n),
        };
        self.unroll = self.unroll.max(entries);

        self.count(Flat::Other);
        self.reserved += 1 + elect_ops;
        self.nesting += 1;
        self.loops.push(kind);
        let in_if = std::mem::replace(&mut self.in_if, false);

        let mut body = Vec::new();
        if kind == LoopKind::ForInf {
            body.push(valve(var));
        }
        self.pick_op(2, &mut body);
        if inf {
            self.reserved -= elect_ops;
            self.gen_elect_break(reduction, &mut body);
            self.pick_op(2, &mut body);
        }
        self.reserved -= 1;
        self.count(Flat::Other);
        self.nesting -= 1;
        self.loops.pop();
        self.in_if = in_if;

        let stmt = match kind {
            LoopKind::ForUniform | LoopKind::ForVar => Stmt::For { var, bound, body },
            LoopKind::ForInf => {
                body.push(Stmt::Ballot);
                Stmt::For {
                    var,
                    bound: None,
                    body,
                }
            }
            LoopKind::LoopUniform => {
                let Some(Bound::Const(c)) = bound else {
                    unreachable!("a uniform loop has a constant bound")
                };
                body.push(Stmt::Inc(var));
                body.push(Stmt::If {
                    cond: Cond::CounterGe(var, Some(c)),
                    then: vec![Stmt::Break],
                    els: None,
                });
                Stmt::Loop { var, body }
            }
            LoopKind::LoopInf => {
                body.push(Stmt::Inc(var));
                body.push(Stmt::Ballot);
                body.push(valve(var));
                Stmt::Loop { var, body }
            }
        };
        out.push(stmt);
    }

    /// `Program.genElect(true, reduction)`: the elect-break that ends an infinite loop.
    fn gen_elect_break(&mut self, reduction: usize, out: &mut Vec<Stmt>) {
        let closers = 2 + 3 * (reduction - 1);
        self.count(Flat::Other);
        self.reserved += closers;
        self.nesting += 1;
        let in_if = std::mem::replace(&mut self.in_if, true);
        let mut then = Vec::new();
        self.gen_ballot(&mut then);
        self.gen_ballot(&mut then);
        if self.rng.chance(10) {
            self.pick_op(1, &mut then);
        }
        self.reserved -= closers;
        then.push(Stmt::Break);
        self.count(Flat::Other);
        self.count(Flat::Other);
        self.nesting -= 1;
        self.in_if = in_if;
        out.push(Stmt::If {
            cond: Cond::Elect,
            then,
            els: None,
        });
        for _ in 1..reduction {
            for _ in 0..3 {
                self.count(Flat::Other);
            }
            out.push(Stmt::If {
                cond: Cond::Elect,
                then: vec![Stmt::Break],
                els: None,
            });
        }
    }

    /// `Program.genBreak`, `genContinue`, `genReturn`.
    fn gen_exit(&mut self, exit: Exit, out: &mut Vec<Stmt>) {
        let alt = match exit {
            Exit::Break => {
                if self.loops.is_empty() {
                    return;
                }
                Stmt::Break
            }
            Exit::Continue => match self.loops.last() {
                Some(LoopKind::ForUniform | LoopKind::ForVar) => Stmt::Break,
                _ => return,
            },
            Exit::Return => {
                if !self.rng.chance(RETURN_PERCENT) {
                    return;
                }
                self.gen_ballot(out);
                Stmt::Return
            }
        };
        let stmt = match exit {
            Exit::Break => Stmt::Break,
            Exit::Continue => Stmt::Continue,
            Exit::Return => Stmt::Return,
        };
        // Only called below max_depth, so one more level fits.
        if self.rng.chance(10) && self.fits(5) {
            // The CTS's divergent pair: `if (c) { exit } else { alt }`. For a return the
            // condition is the uniform one.
            let cond = if exit == Exit::Return {
                self.input_cond()
            } else {
                let idx = 1 + self.rng.below(NUM_MASKS - 1);
                Cond::Mask(self.masks[idx])
            };
            for _ in 0..5 {
                self.count(Flat::Other);
            }
            out.push(Stmt::If {
                cond,
                then: vec![stmt],
                els: Some(vec![alt]),
            });
        } else if self.in_if {
            if self.fits(1) {
                self.count(Flat::Other);
                out.push(stmt);
            }
        } else if self.fits(3) {
            let cond = if self.rng.chance(50) {
                self.lane_cond()
            } else {
                self.mask_cond()
            };
            for _ in 0..3 {
                self.count(Flat::Other);
            }
            out.push(Stmt::If {
                cond,
                then: vec![stmt],
                els: None,
            });
        }
    }
}

/// `if (iN >= sgsize) { break; }`
pub(super) fn valve(var: usize) -> Stmt {
    Stmt::If {
        cond: Cond::CounterGe(var, None),
        then: vec![Stmt::Break],
        els: None,
    }
}

fn renumber_stores(stmts: &mut [Stmt], next: &mut u32) {
    for s in stmts {
        match s {
            Stmt::Store(v) => {
                *v = *next;
                *next += 1;
            }
            Stmt::If { then, els, .. } => {
                renumber_stores(then, next);
                if let Some(e) = els {
                    renumber_stores(e, next);
                }
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => renumber_stores(body, next),
            _ => {}
        }
    }
}

/// Deepest nesting of `if`s and loops (test support). Loop scaffolding (the valve, a uniform
/// `loop`'s exit test) may stand one level below `max_depth`.
#[cfg(test)]
fn max_nesting(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::If { then, els, .. } => {
                1 + max_nesting(then).max(els.as_deref().map_or(0, max_nesting))
            }
            Stmt::For { body, .. } | Stmt::Loop { body, .. } => 1 + max_nesting(body),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(lanes: u32, subgroups: u32) -> CtsConfig {
        CtsConfig {
            lanes,
            subgroups,
            ..CtsConfig::default()
        }
    }

    /// The derived seed a replaced program names in its header.
    fn built_seed(text: &str) -> Option<u64> {
        let at = text.find("derived seed ")? + "derived seed ".len();
        text[at..]
            .split(|ch: char| !ch.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    }

    fn check(seed: u64, c: &CtsConfig) -> CtsProgram {
        let p = generate(seed, c);
        let test = match crate::syntax::parse(&p.name, p.text.as_bytes()) {
            Ok(t) => t,
            Err(e) => panic!("seed {seed} {c:?} does not parse: {e:?}\n{}", p.text),
        };
        let built = build(built_seed(&p.text).unwrap_or(seed), c);
        let bound = block_bound(&built.body, 1, p.unroll);
        // Compiling is slow in debug builds: check the bound on a sample, and the tool's
        // acceptance wherever the bound does not show it already.
        if (c.lanes <= 4 && seed < 50) || bound > crate::ir::unroll::MAX_BLOCKS as u64 {
            match unrolled(&test, p.unroll) {
                Ok(prog) => assert!(prog.blocks.len() as u64 <= bound, "seed {seed}: bound"),
                Err(e) => panic!("seed {seed} {c:?}: {e}"),
            }
        }
        assert!(
            (c.min_ops..=c.max_ops).contains(&p.ops),
            "seed {seed}: {} ops",
            p.ops
        );
        let cells = simulate(&built.body, c.lanes, c.subgroups);
        assert_eq!(built.ops, p.ops);
        assert!(max_nesting(&built.body) <= c.max_depth + 1, "seed {seed}");
        assert!(cells.max_entries <= p.unroll, "seed {seed}");
        assert_eq!(
            p.expected.len(),
            (cells.locations + 1) * (c.lanes * c.subgroups) as usize
        );
        let (_, _, text) = make(seed, c, &p.name);
        assert_eq!(text, p.text, "deterministic");
        p
    }

    #[test]
    fn every_program_parses_within_bounds() {
        for lanes in [4, 8] {
            for seed in 0..200 {
                check(seed, &cfg(lanes, 1));
            }
        }
        for seed in 0..20 {
            check(seed, &cfg(4, 3));
        }
        for seed in 0..8 {
            check(seed, &cfg(32, 1));
            check(seed, &cfg(64, 1));
        }
        for seed in 0..20 {
            let tiny = CtsConfig {
                lanes: 1,
                min_ops: 1,
                max_ops: 3,
                max_depth: 0,
                ..cfg(1, 1)
            };
            check(seed, &tiny);
            check(
                seed,
                &CtsConfig {
                    max_depth: 1,
                    ..cfg(2, 1)
                },
            );
        }
        for seed in 0..50 {
            let c = CtsConfig {
                min_ops: 30,
                max_ops: 30,
                max_depth: 2,
                ..cfg(8, 2)
            };
            assert_eq!(check(seed, &c).ops, 30);
        }
    }

    #[test]
    fn op_kinds_all_appear() {
        let mut all = String::new();
        for seed in 0..200 {
            all.push_str(&generate(seed, &cfg(4, 1)).text);
        }
        for needle in [
            "subgroupBallot(true)",
            "= 65",
            ") & 1) == 1",
            "u = inputs[",
            "if (lane < ",
            "if (lane == i",
            "; i0 < 3;",
            "< lane + 1;",
            "for (i0 = 0; ; i0 = i0 + 1)",
            "loop {",
            ">= sgsize",
            "if (subgroupElect())",
            "break;",
            "continue;",
            "return;",
            "} else {",
            "for (i1 = 0",
        ] {
            assert!(all.contains(needle), "no program has `{needle}`");
        }
    }
}
