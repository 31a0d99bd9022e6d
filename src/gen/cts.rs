//! CTS-shaped programs: random reconvergence tests in the style of the WebGPU CTS.
//!
//! The WebGPU conformance suite tests reconvergence with random programs (gpuweb/cts,
//! `src/webgpu/shader/execution/reconvergence/util.ts`, class `Program`). Every invocation
//! appends records to its own slots of one output buffer, a subgroup ballot or a distinct
//! literal, and a CPU simulator (`Program.simulate`) says what the buffer must hold afterwards.
//! In the `Maximal` style the simulator executes each subgroup in lockstep with active masks, so
//! the expected contents are those of maximal reconvergence, and the CTS compares every word.
//!
//! [`generate`] builds the same kind of program as a `.litmus` test, with the expected
//! contents from a simulator of its own ([`CtsProgram::expected`]). The op vocabulary and the
//! shape of the random choices follow `Program.pickOp` and its `gen*` helpers:
//!
//! | CTS op | litmus text |
//! |---|---|
//! | `Ballot` | `out[loc * T + tid] = subgroupBallot(true); loc = loc + 1;` |
//! | `Store` | `out[loc * T + tid] = 65536 + k; loc = loc + 1;` (`k`: the op's index, so distinct) |
//! | `IfMask`, `ElseMask` | `if (((MASK >> lane) & 1) == 1) { .. } else { .. }` |
//! | `IfMask` with mask 0 (uniform) | `u = inputs[k]; if (u == k) { .. } else { .. }` |
//! | `IfId`, `ElseId` | `if (lane < K) { .. } else { .. }` |
//! | `IfLoopCount`, `ElseLoopCount` | `if (lane == iN) { .. } else { .. }` (innermost loop's counter) |
//! | `ForUniform` | `for (iN = 0; iN < C; iN = iN + 1) { .. }`, C in 1..=3 |
//! | `ForVar` | `for (iN = 0; iN < lane / D + 1; iN = iN + 1) { .. }`, D = 1, 2, 4 by loop depth |
//! | `LoopUniform` | `iN = 0; loop { ..; iN = iN + 1; if (iN >= C) { break; } }` |
//! | `ForInf` | `for (iN = 0; ; iN = iN + 1) { if (iN >= sgsize) { break; } ..; ballot }` |
//! | `LoopInf` | `iN = 0; loop { ..; iN = iN + 1; ballot; if (iN >= sgsize) { break; } }` |
//! | `Elect` | `if (subgroupElect()) { .. }` |
//! | `Break`, `Continue`, `Return` | `break;` `continue;` `return;` |
//!
//! Both infinite loops hold, as in the CTS, an `if (subgroupElect()) { ..; break; }` at the top
//! level of their body (and, in nested loops, one or three more `if (subgroupElect()) { break; }`,
//! the CTS's "reduction"), a ballot where the CTS has its continuing-block ballot
//! (`infLoopIncrement`), and the CTS's safety valve on `sgsize`.
//!
//! Differences from the CTS, all because the litmus language or the engines differ:
//! - Calls (`Call`, `Return` from a function) and `switch` do not exist in the language; the CTS
//!   pick that would make a `switch` makes an `if (subgroupElect()) { .. }` instead.
//! - A ballot is one 32-bit word (the CTS writes a `vec4u`, four words). At more than 32 lanes
//!   the language refuses `subgroupBallot`, so a ballot is two words written with reductions,
//!   `subgroupOr(lane < 32 ? 1 << lane : 0)` and `subgroupOr(lane < 32 ? 0 : 1 << (lane - 32))`,
//!   at two consecutive locations; masks test bit `lane % 32`.
//! - Trip counts are literals rather than `inputs[k]`: a global may only be read by a load
//!   statement, and a loop condition cannot hold one. The uniform `if` keeps its load.
//! - `continue` is only generated in `for` loops with a condition (`ForUniform`, `ForVar`): in the
//!   `loop` forms it would skip the counter update that the CTS's `continuing` block makes.
//! - A `break`, `continue` or `return` that would stand directly in a loop body or at top level
//!   is guarded by an `if` on `lane` (the CTS puts it there unguarded, which kills the rest of the
//!   body); a `return` is generated with probability 25% instead of 5%, and also at top level.
//! - The op budget is a hard range: the program has between `min_ops` and `max_ops` ops (a
//!   target drawn in that range), counted as the CTS counts them (`If`, `Else`, `EndIf`, loop
//!   begin and end, ... are one op each), and ops nest at most `max_depth` deep (loop
//!   scaffolding, the safety valve and a uniform `loop`'s exit test, may be one `if` deeper).
//!
//! A program the tool would refuse (more memory cells than the language allows, or more block
//! instances than the unroller allows at the program's loop bound: nested loops at 32 lanes and
//! more) is replaced by the program of a derived seed; its header comment says so.
//!
//! Every program is race free (each invocation writes only its own cells, nothing reads `out`),
//! and its branches depend only on `lane`, loop counters, a read-only input and
//! `subgroupElect()`. The test says that under every model the condition (some cell of `out`
//! differs from the simulation) is forbidden; on generated samples both engines agree.

use super::Rng;
use std::fmt::Write as _;

/// What programs to generate. Build it from `Default` and change fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtsConfig {
    /// Lanes per subgroup (1..=64).
    pub lanes: u32,
    /// Number of subgroups (at least 1); `threads = lanes * subgroups`, one workgroup.
    pub subgroups: u32,
    /// Fewest ops (counted as the CTS counts them).
    pub min_ops: usize,
    /// Most ops (0 counts as 1).
    pub max_ops: usize,
    /// Deepest nesting of `if`s and loops (0: straight-line ballots and stores).
    pub max_depth: usize,
}

impl Default for CtsConfig {
    /// One subgroup of 4 lanes, 6 to 40 ops, nesting up to 3.
    fn default() -> Self {
        CtsConfig {
            lanes: 4,
            subgroups: 1,
            min_ops: 6,
            max_ops: 40,
            max_depth: 3,
        }
    }
}

/// One generated test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CtsProgram {
    /// The test's name (`test` line), e.g. `cts_l4_s1_17`.
    pub name: String,
    /// The complete `.litmus` text.
    pub text: String,
    /// Loop bound that suffices: the most times any loop body can begin in any execution
    /// (`--unroll` counts body runs; the exit test after the last one still runs). With it no
    /// execution is cut. An infinite loop's safety valve makes its bound `lanes + 1`.
    pub unroll: u32,
    /// Ops in the program, counted as the CTS counts them.
    pub ops: usize,
    /// Expected final contents of `out` (one u32 per cell), from the lockstep simulation.
    pub expected: Vec<u32>,
}

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
        Ok(test) => crate::query::compile(&test, unroll).is_ok(),
        Err(_) => true,
    }
}

/// Store literals are `STORE_BASE + k` (the CTS's `storeBase`).
const STORE_BASE: u32 = 0x10000;
/// Masks for `IfMask`; index 0 is the uniform condition (the CTS's `numMasks`).
const NUM_MASKS: usize = 10;
/// Most loops nested in one another (the CTS's `maxLoopNesting`).
const MAX_LOOP_NESTING: usize = 3;
/// Cells of `inputs` (`inputs[k] = k`); the uniform `if` reads one of them.
const NUM_INPUTS: u32 = 4;
/// Percent chance that a `Return` pick makes a return (CTS: 5).
const RETURN_PERCENT: u64 = 25;

/// A branch condition, true for some lanes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Cond {
    /// Bit `lane % 32` of the mask.
    Mask(u32),
    /// `u == k` after `u = inputs[k]`: always true.
    Input(u32),
    /// `lane < k`.
    LaneLt(u32),
    /// `lane == iN`.
    LaneEq(usize),
    /// `subgroupElect()`: the lowest active lane.
    Elect,
    /// `iN >= c`, or `iN >= sgsize` for `None`.
    CounterGe(usize, Option<u32>),
}

/// A `for` loop's condition on its counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    /// `iN < c`.
    Const(u32),
    /// `iN < lane / d + 1`.
    LaneDiv(u32),
}

/// The program as printed; the simulator runs exactly this.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Stmt {
    Ballot,
    Store(u32),
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
    },
    /// `for (iN = 0; bound; iN = iN + 1) { body }`; no bound: an empty condition.
    For {
        var: usize,
        bound: Option<Bound>,
        body: Vec<Stmt>,
    },
    /// `iN = 0; loop { body }` (the body updates the counter itself).
    Loop {
        var: usize,
        body: Vec<Stmt>,
    },
    /// `iN = iN + 1;`
    Inc(usize),
    Break,
    Continue,
    Return,
}

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

/// The generator's result.
struct Built {
    /// The seed the program was built from (not the requested one after a replacement).
    seed: u64,
    body: Vec<Stmt>,
    ops: usize,
    unroll: u32,
    inputs: bool,
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
fn valve(var: usize) -> Stmt {
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

/// The simulation's result: final `out` and the locations used.
struct Cells {
    expected: Vec<u32>,
    /// Most records any invocation wrote.
    locations: usize,
    /// Most body runs of any loop instance (at most the static `unroll`).
    max_entries: u32,
}

/// Lockstep execution of one subgroup with active masks (maximal reconvergence).
struct Sim {
    lanes: u32,
    /// `tid` of lane 0.
    base: u32,
    /// Per invocation (`tid`, all subgroups): the records written, in location order.
    records: Vec<Vec<u32>>,
    /// Per lane of the subgroup being run: loop counters `i0 ..`.
    counters: Vec<[u32; MAX_LOOP_NESTING]>,
    /// Innermost loop last: lanes that broke and that continued.
    frames: Vec<(u64, u64)>,
    max_entries: u32,
}

fn lanes_of(mask: u64) -> impl Iterator<Item = u32> {
    (0..64).filter(move |l| (mask >> l) & 1 == 1)
}

impl Sim {
    fn write(&mut self, lane: u32, v: u32) {
        self.records[(self.base + lane) as usize].push(v);
    }

    fn cond(&self, c: &Cond, active: u64) -> u64 {
        let pick = |f: &dyn Fn(u32) -> bool| {
            lanes_of(active)
                .filter(|&l| f(l))
                .fold(0u64, |m, l| m | 1 << l)
        };
        match *c {
            Cond::Mask(m) => pick(&|l| (m >> (l % 32)) & 1 == 1),
            Cond::Input(_) => active,
            Cond::LaneLt(k) => pick(&|l| l < k),
            Cond::LaneEq(v) => pick(&|l| l == self.counters[l as usize][v]),
            Cond::Elect => active & active.wrapping_neg(),
            Cond::CounterGe(v, c) => {
                let c = c.unwrap_or(self.lanes);
                pick(&|l| self.counters[l as usize][v] >= c)
            }
        }
    }

    fn in_bound(&self, b: Bound, var: usize, active: u64) -> u64 {
        lanes_of(active)
            .filter(|&l| {
                let limit = match b {
                    Bound::Const(c) => c,
                    Bound::LaneDiv(d) => l / d + 1,
                };
                self.counters[l as usize][var] < limit
            })
            .fold(0u64, |m, l| m | 1 << l)
    }

    fn set_counter(&mut self, var: usize, active: u64, f: impl Fn(u32) -> u32) {
        for l in lanes_of(active) {
            let c = &mut self.counters[l as usize][var];
            *c = f(*c);
        }
    }

    /// Runs one loop body for `active`; returns (lanes at the end of the body or continuing,
    /// lanes that broke).
    fn body(&mut self, body: &[Stmt], active: u64) -> (u64, u64) {
        self.frames.push((0, 0));
        let fall = self.exec(body, active);
        let (brk, cont) = self.frames.pop().expect("pushed above");
        (fall | cont, brk)
    }

    /// Runs `stmts` with the lanes of `active`; returns the lanes that reach the end.
    fn exec(&mut self, stmts: &[Stmt], mut active: u64) -> u64 {
        for s in stmts {
            if active == 0 {
                return 0;
            }
            match s {
                Stmt::Ballot => {
                    if self.lanes <= 32 {
                        // The language's rule: lane j sets bit j (mod 32).
                        let b = lanes_of(active).fold(0u32, |m, j| m | 1u32.wrapping_shl(j));
                        for l in lanes_of(active) {
                            self.write(l, b);
                        }
                    } else {
                        let lo = active as u32;
                        let hi = (active >> 32) as u32;
                        for l in lanes_of(active) {
                            self.write(l, lo);
                            self.write(l, hi);
                        }
                    }
                }
                Stmt::Store(v) => {
                    for l in lanes_of(active) {
                        self.write(l, *v);
                    }
                }
                Stmt::If { cond, then, els } => {
                    let t = self.cond(cond, active);
                    let a = self.exec(then, t);
                    let b = match els {
                        Some(e) => self.exec(e, active & !t),
                        None => active & !t,
                    };
                    active = a | b;
                }
                Stmt::For { var, bound, body } => {
                    self.set_counter(*var, active, |_| 0);
                    let mut cur = active;
                    let mut exited = 0;
                    let mut entries = 0;
                    loop {
                        if let Some(b) = bound {
                            let stay = self.in_bound(*b, *var, cur);
                            exited |= cur & !stay;
                            cur = stay;
                        }
                        if cur == 0 {
                            break;
                        }
                        entries += 1;
                        assert!(entries <= 1000, "a generated loop does not end");
                        let (next, brk) = self.body(body, cur);
                        exited |= brk;
                        cur = next;
                        self.set_counter(*var, cur, |c| c + 1);
                    }
                    self.max_entries = self.max_entries.max(entries);
                    active = exited;
                }
                Stmt::Loop { var, body } => {
                    self.set_counter(*var, active, |_| 0);
                    let mut cur = active;
                    let mut exited = 0;
                    let mut entries = 0;
                    while cur != 0 {
                        entries += 1;
                        assert!(entries <= 1000, "a generated loop does not end");
                        let (next, brk) = self.body(body, cur);
                        exited |= brk;
                        cur = next;
                    }
                    self.max_entries = self.max_entries.max(entries);
                    active = exited;
                }
                Stmt::Inc(var) => self.set_counter(*var, active, |c| c + 1),
                Stmt::Break => {
                    self.frames.last_mut().expect("break inside a loop").0 |= active;
                    active = 0;
                }
                Stmt::Continue => {
                    self.frames.last_mut().expect("continue inside a loop").1 |= active;
                    active = 0;
                }
                Stmt::Return => active = 0,
            }
        }
        active
    }
}

/// Runs every subgroup in lockstep; `out` is laid out as `out[loc * threads + tid]` with one
/// spare location (the CTS's extra location, which must stay 0).
fn simulate(body: &[Stmt], lanes: u32, subgroups: u32) -> Cells {
    let threads = lanes * subgroups;
    let mut sim = Sim {
        lanes,
        base: 0,
        records: vec![Vec::new(); threads as usize],
        counters: vec![[0; MAX_LOOP_NESTING]; lanes as usize],
        frames: Vec::new(),
        max_entries: 0,
    };
    let full = if lanes == 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    for g in 0..subgroups {
        sim.base = g * lanes;
        sim.counters
            .iter_mut()
            .for_each(|c| *c = [0; MAX_LOOP_NESTING]);
        sim.exec(body, full);
        assert!(sim.frames.is_empty());
    }
    let locations = sim.records.iter().map(Vec::len).max().unwrap_or(0);
    let t = threads as usize;
    let mut expected = vec![0; (locations + 1) * t];
    for (tid, recs) in sim.records.iter().enumerate() {
        for (loc, &v) in recs.iter().enumerate() {
            expected[loc * t + tid] = v;
        }
    }
    Cells {
        expected,
        locations,
        max_entries: sim.max_entries,
    }
}

struct Printer {
    lanes: u32,
    threads: u32,
    text: String,
}

impl Printer {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..depth + 1 {
            self.text.push_str("  ");
        }
        self.text.push_str(s);
        self.text.push('\n');
    }

    fn record(&mut self, depth: usize, value: &str) {
        let t = self.threads;
        self.line(depth, &format!("out[loc * {t} + tid] = {value};"));
        self.line(depth, "loc = loc + 1;");
    }

    fn cond(&self, c: &Cond) -> String {
        let lane = if self.lanes > 32 {
            "(lane % 32)"
        } else {
            "lane"
        };
        match c {
            Cond::Mask(m) => format!("((0x{m:08x} >> {lane}) & 1) == 1"),
            Cond::Input(k) => format!("u == {k}"),
            Cond::LaneLt(k) => format!("lane < {k}"),
            Cond::LaneEq(v) => format!("lane == i{v}"),
            Cond::Elect => "subgroupElect()".into(),
            Cond::CounterGe(v, None) => format!("i{v} >= sgsize"),
            Cond::CounterGe(v, Some(c)) => format!("i{v} >= {c}"),
        }
    }

    fn block(&mut self, stmts: &[Stmt], depth: usize) {
        for s in stmts {
            match s {
                Stmt::Ballot => {
                    if self.lanes <= 32 {
                        self.record(depth, "subgroupBallot(true)");
                    } else {
                        self.record(depth, "subgroupOr(lane < 32 ? 1 << lane : 0)");
                        self.record(depth, "subgroupOr(lane < 32 ? 0 : 1 << (lane - 32))");
                    }
                }
                Stmt::Store(v) => self.record(depth, &v.to_string()),
                Stmt::If { cond, then, els } => {
                    if let Cond::Input(k) = cond {
                        self.line(depth, &format!("u = inputs[{k}];"));
                    }
                    let c = self.cond(cond);
                    self.line(depth, &format!("if ({c}) {{"));
                    self.block(then, depth + 1);
                    if let Some(e) = els {
                        self.line(depth, "} else {");
                        self.block(e, depth + 1);
                    }
                    self.line(depth, "}");
                }
                Stmt::For { var, bound, body } => {
                    let c = match bound {
                        None => String::new(),
                        Some(Bound::Const(c)) => format!("i{var} < {c}"),
                        Some(Bound::LaneDiv(1)) => format!("i{var} < lane + 1"),
                        Some(Bound::LaneDiv(d)) => format!("i{var} < lane / {d} + 1"),
                    };
                    self.line(
                        depth,
                        &format!("for (i{var} = 0; {c}; i{var} = i{var} + 1) {{"),
                    );
                    self.block(body, depth + 1);
                    self.line(depth, "}");
                }
                Stmt::Loop { var, body } => {
                    self.line(depth, &format!("i{var} = 0;"));
                    self.line(depth, "loop {");
                    self.block(body, depth + 1);
                    self.line(depth, "}");
                }
                Stmt::Inc(v) => self.line(depth, &format!("i{v} = i{v} + 1;")),
                Stmt::Break => self.line(depth, "break;"),
                Stmt::Continue => self.line(depth, "continue;"),
                Stmt::Return => self.line(depth, "return;"),
            }
        }
    }
}

/// `a || b || ...` as a tree of parenthesised groups (6 terms a line, at most 8 groups a
/// group): the parser counts each operator of a chain as one level of nesting (at most 200), so
/// one flat chain over every cell would be refused.
fn or_tree(terms: Vec<String>) -> String {
    let group = |items: &[String], sep: &str| {
        if items.len() == 1 {
            items[0].clone()
        } else {
            format!("({})", items.join(sep))
        }
    };
    let mut items: Vec<String> = terms.chunks(6).map(|c| group(c, " || ")).collect();
    while items.len() > 8 {
        items = items.chunks(8).map(|c| group(c, "\n  || ")).collect();
    }
    items.join("\n  || ")
}

fn print(name: &str, seed: u64, cfg: &CtsConfig, built: &Built, cells: &Cells) -> String {
    let threads = cfg.lanes * cfg.subgroups;
    let mut p = Printer {
        lanes: cfg.lanes,
        threads,
        text: String::new(),
    };
    let t = &mut p.text;
    let _ = writeln!(
        t,
        "// Generated by tangle::gen::cts, seed {seed}: lanes {}, subgroups {}, min_ops {}, \
         max_ops {}, max_depth {}.",
        cfg.lanes, cfg.subgroups, cfg.min_ops, cfg.max_ops, cfg.max_depth
    );
    if built.seed != seed {
        let _ = writeln!(
            t,
            "// (That seed's program is too large for the tool, in memory cells or in block \
             instances at its\n// loop bound; this one is from derived seed {}.)",
            built.seed
        );
    }
    let _ = writeln!(
        t,
        "// A WebGPU-CTS-shaped reconvergence program (style Maximal): each invocation writes \
         ballots and\n// distinct literals to its own cells out[loc * {threads} + tid]. The \
         condition: some cell differs from\n// the lockstep simulation ({} locations used, one \
         spare that stays 0).\n// Needs --unroll {} (no execution is cut); the lockstep run \
         alone needs {}.",
        cells.locations,
        built.unroll,
        cells.max_entries.max(1)
    );
    let _ = writeln!(
        t,
        "test {name} \"CTS-shaped reconvergence program, {} ops\"",
        built.ops
    );
    let _ = writeln!(t, "threads {threads}");
    if cfg.subgroups > 1 {
        let _ = writeln!(t, "subgroup {}", cfg.lanes);
    }
    let _ = writeln!(t, "global out[{}]", cells.expected.len());
    if built.inputs {
        let init: Vec<String> = (0..NUM_INPUTS).map(|k| k.to_string()).collect();
        let _ = writeln!(t, "global inputs[{NUM_INPUTS}] = {{{}}}", init.join(", "));
    }
    t.push_str("\nkernel {\n");
    p.line(0, "loc = 0;");
    p.block(&built.body, 0);
    let t = &mut p.text;
    t.push_str("}\n\nexists (");
    let terms: Vec<String> = (cells.expected.iter().enumerate())
        .map(|(k, v)| format!("out[{k}] != {v}"))
        .collect();
    t.push_str(&or_tree(terms));
    t.push_str(")\n");
    t.push_str(
        "expect CM forbid, SM forbid, SCF forbid, SSO forbid, Spec forbid, Lazy forbid, \
         Symb forbid\n",
    );
    p.text
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
            match crate::query::compile(&test, p.unroll) {
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

    /// The CTS example `forinf_elect_break` (8 lanes): the lowest remaining lane leaves each
    /// iteration; the loop's tail ballot and the body's ballot both see the remaining lanes.
    #[test]
    fn simulator_matches_cts_forinf_elect_break() {
        let body = vec![Stmt::For {
            var: 0,
            bound: None,
            body: vec![
                valve(0),
                Stmt::Ballot,
                Stmt::Store(STORE_BASE + 2),
                Stmt::If {
                    cond: Cond::Elect,
                    then: vec![Stmt::Store(STORE_BASE + 4), Stmt::Break],
                    els: None,
                },
                Stmt::Ballot,
            ],
        }];
        let cells = simulate(&body, 8, 1);
        assert_eq!(cells.locations, 24);
        let (s2, s4) = (STORE_BASE + 2, STORE_BASE + 4);
        for lane in 0..8u32 {
            let mut row = vec![0xff, s2];
            for k in 1..=lane {
                let m = (0xffu32 << k) & 0xff;
                row.extend([m, m, s2]);
            }
            row.push(s4);
            row.resize(25, 0);
            let got: Vec<u32> = (0..25)
                .map(|loc| cells.expected[loc * 8 + lane as usize])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }

    /// The CTS example `nested_ifs` (8 lanes).
    #[test]
    fn simulator_matches_cts_nested_ifs() {
        let body = vec![
            Stmt::Store(STORE_BASE),
            Stmt::If {
                cond: Cond::LaneLt(5),
                then: vec![
                    Stmt::Store(STORE_BASE + 2),
                    Stmt::If {
                        cond: Cond::LaneLt(1),
                        then: vec![Stmt::Ballot],
                        els: Some(vec![
                            Stmt::Ballot,
                            Stmt::If {
                                cond: Cond::Input(2),
                                then: vec![Stmt::Ballot],
                                els: Some(vec![Stmt::Ballot]),
                            },
                            Stmt::Ballot,
                        ]),
                    },
                ],
                els: None,
            },
        ];
        let cells = simulate(&body, 8, 1);
        let (s0, s2) = (STORE_BASE, STORE_BASE + 2);
        let rows: [&[u32]; 8] = [
            &[s0, s2, 0x1],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0],
            &[s0],
            &[s0],
        ];
        for (lane, row) in rows.iter().enumerate() {
            let mut row = row.to_vec();
            row.resize(cells.locations + 1, 0);
            let got: Vec<u32> = (0..=cells.locations)
                .map(|loc| cells.expected[loc * 8 + lane])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }

    /// The CTS example `wg128_sg32_ifloopcount`: four subgroups of 32, a uniform `loop` of 4
    /// iterations with `if (lane == i0)`.
    #[test]
    fn simulator_matches_cts_ifloopcount() {
        let body = vec![
            Stmt::Loop {
                var: 0,
                body: vec![
                    Stmt::Ballot,
                    Stmt::If {
                        cond: Cond::LaneEq(0),
                        then: vec![Stmt::Ballot, Stmt::Store(STORE_BASE + 4)],
                        els: None,
                    },
                    Stmt::Ballot,
                    Stmt::Inc(0),
                    Stmt::If {
                        cond: Cond::CounterGe(0, Some(4)),
                        then: vec![Stmt::Break],
                        els: None,
                    },
                ],
            },
            Stmt::Ballot,
            Stmt::Store(STORE_BASE + 9),
        ];
        let cells = simulate(&body, 32, 4);
        assert_eq!(cells.locations, 12);
        let all = u32::MAX;
        let (s4, s9) = (STORE_BASE + 4, STORE_BASE + 9);
        for tid in 0..128usize {
            let lane = tid % 32;
            let mut row = Vec::new();
            for i in 0..4 {
                row.push(all);
                if lane == i {
                    row.extend([1 << i, s4]);
                }
                row.push(all);
            }
            row.extend([all, s9]);
            row.resize(13, 0);
            let got: Vec<u32> = (0..13).map(|loc| cells.expected[loc * 128 + tid]).collect();
            assert_eq!(got, row, "tid {tid}");
        }
    }

    /// Beyond 32 lanes a ballot is two words; masks test bit `lane % 32`.
    #[test]
    fn simulator_wide_ballot() {
        let body = vec![Stmt::If {
            cond: Cond::LaneLt(40),
            then: vec![Stmt::If {
                cond: Cond::Mask(0b10),
                then: vec![Stmt::Ballot],
                els: Some(vec![Stmt::Ballot]),
            }],
            els: None,
        }];
        let cells = simulate(&body, 64, 1);
        assert_eq!(cells.locations, 2);
        // Lanes 1 and 33 take the then arm; lanes 0, 2..32 and 34..39 the else arm.
        let then = [0b10, 0b10];
        let els = [!0b10, 0xff & !0b10];
        for tid in 0..64 {
            let got = [cells.expected[tid], cells.expected[64 + tid]];
            let want = match tid {
                1 | 33 => then,
                40.. => [0, 0],
                _ => els,
            };
            assert_eq!(got, want, "tid {tid}");
        }
        let text = generate(0, &cfg(64, 1)).text;
        assert!(text.contains("subgroupOr(lane < 32 ? 1 << lane : 0)"));
        assert!(!text.contains("subgroupBallot"));
    }

    /// Break, continue and return masks in a `for` loop with a lane-dependent trip count.
    #[test]
    fn simulator_break_continue_return() {
        // for (i0 = 0; i0 < lane + 1; ..) { if (lane == 2) { return; } if (lane == i0) {
        // continue; } ballot; if (lane < 1) { break; } }  ballot
        let body = vec![
            Stmt::For {
                var: 0,
                bound: Some(Bound::LaneDiv(1)),
                body: vec![
                    Stmt::If {
                        cond: Cond::Mask(0b100),
                        then: vec![Stmt::Return],
                        els: None,
                    },
                    Stmt::If {
                        cond: Cond::LaneEq(0),
                        then: vec![Stmt::Continue],
                        els: None,
                    },
                    Stmt::Ballot,
                    Stmt::If {
                        cond: Cond::LaneLt(1),
                        then: vec![Stmt::Break],
                        els: None,
                    },
                ],
            },
            Stmt::Ballot,
        ];
        let cells = simulate(&body, 4, 1);
        // Iteration 0: lanes 0,1,3 (2 returned); lane 0 continues: ballot 0b1010.
        // Iteration 1: lanes 1,3; lane 1 continues: ballot 0b1000. Iteration 2: lane 3: 0b1000.
        // Iteration 3: lane 3 continues. After the loop: lanes 0, 1, 3: 0b1011.
        let rows: [&[u32]; 4] = [&[0b1011], &[0b1010, 0b1011], &[], &[0b1010, 8, 8, 0b1011]];
        for (lane, row) in rows.iter().enumerate() {
            let mut row = row.to_vec();
            row.resize(cells.locations + 1, 0);
            let got: Vec<u32> = (0..=cells.locations)
                .map(|loc| cells.expected[loc * 4 + lane])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }
}
