//! CTS-shaped programs: random reconvergence tests in the style of the WebGPU CTS.
//!
//! The WebGPU conformance suite tests reconvergence with random programs (gpuweb/cts,
//! `src/webgpu/shader/execution/reconvergence/util.ts`, class `Program`). Every invocation
//! appends records to its own slots of one output buffer, a subgroup ballot or a distinct
//! literal, and a CPU simulator (`Program.simulate`) says what the buffer must hold afterwards.
//! In the `Maximal` style the simulator executes each subgroup in lockstep with active masks, so
//! the expected contents are those of maximal reconvergence, and the CTS compares every word.
//!
//! [`generate`](fn@generate) builds the same kind of program as a `.litmus` test, with the expected
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

mod generate;
mod print;
mod simulate;

pub use generate::generate;

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

// The program as the generator builds it, the simulator runs it and the printer writes it.

/// Store literals are `STORE_BASE + k` (the CTS's `storeBase`).
const STORE_BASE: u32 = 0x10000;
/// Most loops nested in one another (the CTS's `maxLoopNesting`).
const MAX_LOOP_NESTING: usize = 3;
/// Cells of `inputs` (`inputs[k] = k`); the uniform `if` reads one of them.
const NUM_INPUTS: u32 = 4;

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

// What each stage hands the next.

/// The generator's result.
struct Built {
    /// The seed the program was built from (not the requested one after a replacement).
    seed: u64,
    body: Vec<Stmt>,
    ops: usize,
    unroll: u32,
    inputs: bool,
}

/// The simulation's result: final `out` and the locations used.
struct Cells {
    expected: Vec<u32>,
    /// Most records any invocation wrote.
    locations: usize,
    /// Most body runs of any loop instance (at most the static `unroll`).
    max_entries: u32,
}
