//! Random `.litmus` programs: the input of engine cross-validation (explorer against Z3) and of
//! the search for the smallest programs that tell two models apart.
//!
//! [`generate`] turns a seed and a [`GenConfig`] into the *text* of a complete test. The text,
//! not an AST, is the product. It goes through the same front end as hand-written tests, so a
//! generated program that fails to parse is a generator bug, and a failing seed can be saved as
//! a file and replayed with the CLI.
//!
//! These guarantees hold for every seed, so that when the engines disagree on a generated
//! program the engines are at fault, not the program:
//! - **Bounded in every model.** Every loop is counter-bounded (at most 3 iterations). Its
//!   counter (`i0`, `i1`, ... by loop nesting) is written only by its own initialisation and
//!   step. Loop exits read only the counter and `lane`, never memory or subgroup op results,
//!   so not even Symb's thin-air values can keep a loop running. The default unroll bound (8)
//!   is never reached.
//! - **No undefined behaviour by construction.** Array indices are literals or reduced
//!   modulo 4. Division and remainder are only by non-zero literals. A workgroup `barrier()`
//!   stands only at top level and never after a `return` (so every thread reaches it in the
//!   same block instance).
//! - **It parses.** Only registers assigned earlier in the text are read (the front end
//!   rejects a register that is never assigned). Subgroup ops never sit under `&&`, `||` or
//!   `?:`, and ballots only appear when `lanes <= 32`.
//! - **It respects the size limits.** Every statement of the AST counts toward
//!   [`GenConfig::max_stmts`], and that includes loop scaffolding (a counter's `iN = 0;`, its
//!   `iN = iN + 1;`, the `if (..) { break; }` exit of a `loop`). A `for` header, including
//!   its init and step, counts as one. Nesting (the number of enclosing compound statements)
//!   stays within [`GenConfig::max_depth`]. The size a search minimises is then the real size.
//!
//! What is *not* guaranteed:
//! - A broadcast or shuffle can still read a lane that is out of range or not participating.
//!   That gives an unspecified value, which is not undefined behaviour, but the explorer
//!   enumerates it and may answer `unknown`. Lane arguments are chosen to make this rare (see
//!   `Gen::lane_arg`), but it is not excluded, because it is part of what the engines must
//!   agree on.
//! - The condition's literals are only plausible. They come from a rough, path-insensitive
//!   collection of the values each register and cell may hold (`Vals`), so the condition
//!   may be unreachable. Engines are compared on outcome sets, which do not depend on it.

pub mod cts;
pub mod spin;

use crate::vocab::{AtomicOp, LocalFn, RedOp, SgOp};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What programs to generate. Build it from `Default` and change fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Threads per subgroup (`subgroup` in the header).
    pub lanes: u32,
    /// Number of subgroups; `threads = lanes * subgroups`, one workgroup.
    pub subgroups: u32,
    /// Most statements in the kernel, counting nested ones and loop scaffolding.
    pub max_stmts: usize,
    /// Deepest nesting of compound statements (0: straight-line code).
    pub max_depth: usize,
    /// `for`, `while`, `loop`, and `break`/`continue` inside them.
    pub loops: bool,
    /// Atomic read-modify-writes (`atomicAdd` ... `atomicCompSwap`).
    pub atomics: bool,
    /// Subgroup ops (as statements and in `if` conditions), ballot helpers, `subgroupBarrier()`.
    pub sgops: bool,
    /// Workgroup `barrier()` at top level.
    pub workgroup_barriers: bool,
}

impl Default for GenConfig {
    /// Two lanes in one subgroup, 8 statements at depth 2, everything but workgroup barriers.
    /// The budget is 8 rather than 6 because loop scaffolding counts (a `loop` costs 5
    /// statements before its body), and with 6 a loop would have to be the whole program.
    fn default() -> Self {
        GenConfig {
            lanes: 2,
            subgroups: 1,
            max_stmts: 8,
            max_depth: 2,
            loops: true,
            atomics: true,
            sgops: true,
            workgroup_barriers: false,
        }
    }
}

/// A complete, valid `.litmus` text for test `gen_<seed>`, deterministic in `(seed, cfg)`.
pub fn generate(seed: u64, cfg: &GenConfig) -> String {
    let mut g = Gen::new(seed, cfg);
    let threads = cfg.lanes * cfg.subgroups;
    let target = if cfg.max_stmts == 0 {
        0
    } else {
        g.rng.range(cfg.max_stmts.div_ceil(2), cfg.max_stmts)
    };
    let top = Ctx {
        depth: 0,
        loops: 0,
        in_if: false,
        can_continue: false,
    };
    g.block(top, target);
    let condition = g.condition();

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by tangle::gen, seed {seed}: lanes {}, subgroups {}, max_stmts {}, \
         max_depth {}, loops {}, atomics {}, sgops {}, workgroup_barriers {}.",
        cfg.lanes,
        cfg.subgroups,
        cfg.max_stmts,
        cfg.max_depth,
        cfg.loops,
        cfg.atomics,
        cfg.sgops,
        cfg.workgroup_barriers
    );
    let _ = writeln!(out, "test gen_{seed}");
    let _ = writeln!(out, "threads {threads}");
    let _ = writeln!(out, "subgroup {}", cfg.lanes);
    out.push_str("global x\nglobal y\nglobal a[4]\n\nkernel {\n");
    out.push_str(&g.body);
    out.push_str("}\n\n");
    let _ = writeln!(out, "exists ({condition})");
    out
}

/// splitmix64: tiny, fast, and good enough to drive a generator; no dependency needed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`; `n` must be positive.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    /// One of the items with a positive weight (at least one must have one).
    fn weighted<T: Clone>(&mut self, items: &[(u32, T)]) -> T {
        let total: u32 = items.iter().map(|(w, _)| w).sum();
        let mut k = self.below(total as usize) as u32;
        for (w, t) in items {
            if k < *w {
                return t.clone();
            }
            k -= w;
        }
        unreachable!("weights sum to total")
    }
}

/// A small sample of values an expression, register or cell plausibly holds. It is not a
/// bound: it only helps choose condition literals that some execution might reach.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Vals(Vec<u32>);

impl Vals {
    /// Beyond this many values a sample stops growing (keeps combinations cheap).
    const CAP: usize = 6;

    fn of(vs: impl IntoIterator<Item = u32>) -> Vals {
        let mut v = Vals::default();
        v.extend(vs);
        v
    }
    fn extend(&mut self, vs: impl IntoIterator<Item = u32>) {
        for x in vs {
            if self.0.len() >= Self::CAP {
                break;
            }
            if !self.0.contains(&x) {
                self.0.push(x);
            }
        }
    }
    /// `f` applied to pairs of the two samples.
    fn combine(&self, other: &Vals, f: impl Fn(u32, u32) -> u32) -> Vals {
        Vals::of(
            self.0
                .iter()
                .flat_map(|&a| other.0.iter().map(move |&b| (a, b)))
                .map(|(a, b)| f(a, b)),
        )
    }
}

/// An expression's text with its plausible values. `simple` texts (names, literals, calls)
/// need no parentheses as operands.
struct E {
    text: String,
    vals: Vals,
    simple: bool,
}

impl E {
    fn new(text: impl Into<String>, vals: Vals, simple: bool) -> E {
        E {
            text: text.into(),
            vals,
            simple,
        }
    }
    fn lit(v: u32) -> E {
        E::new(v.to_string(), Vals::of([v]), true)
    }
    /// The text as an operand of a binary operator.
    fn operand(&self) -> String {
        if self.simple {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// Where the statement being generated stands.
#[derive(Clone, Copy, Debug)]
struct Ctx {
    /// Enclosing compound statements.
    depth: usize,
    /// Enclosing loops: their counters `i0 .. i{loops-1}` are readable.
    loops: usize,
    /// Directly in an `if` branch: the place for `break`, `continue` and `return`.
    in_if: bool,
    /// `continue` keeps the innermost loop bounded here (false before a `loop`'s exit check,
    /// which a `continue` would skip).
    can_continue: bool,
}

impl Ctx {
    fn nested(self) -> Ctx {
        Ctx {
            depth: self.depth + 1,
            ..self
        }
    }
    /// The context of a new loop's body; its counter is `i{self.loops}`.
    fn loop_body(self) -> Ctx {
        Ctx {
            depth: self.depth + 1,
            loops: self.loops + 1,
            in_if: false,
            can_continue: true,
        }
    }
}

/// Kinds of statement the generator chooses between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Assign,
    Load,
    Store,
    Atomic,
    SgOp,
    BallotHelper,
    SubgroupBarrier,
    Barrier,
    If,
    For,
    While,
    Loop,
}

/// Statements a `while` costs besides its body: counter init, header, counter step.
const WHILE_OVERHEAD: usize = 3;
/// Statements a `loop` costs besides its body: init, header, step, exit `if`, `break`.
const LOOP_OVERHEAD: usize = 5;

/// The generator's state: the kernel text so far and what it has assigned and written.
struct Gen<'a> {
    cfg: &'a GenConfig,
    rng: Rng,
    body: String,
    /// Registers `r0..r5` assigned so far in the text, with their plausible values. Only these
    /// may be read (the front end rejects a register that is never assigned).
    regs: BTreeMap<String, Vals>,
    /// Registers written by a load, an atomic or a subgroup op: the observables on which
    /// models differ, favoured by the condition.
    observed: BTreeSet<String>,
    /// Registers that were assigned a ballot, preferred as ballot helper arguments.
    ballots: Vec<String>,
    /// Cells (`x`, `y`, `a[k]`) written so far, with their plausible values.
    cells: BTreeMap<String, Vals>,
    /// A `return` has been emitted: a later workgroup barrier could be skipped by a thread,
    /// which is undefined behaviour, so none is emitted after it.
    returned: bool,
}

const REGS: [&str; 6] = ["r0", "r1", "r2", "r3", "r4", "r5"];

impl<'a> Gen<'a> {
    fn new(seed: u64, cfg: &'a GenConfig) -> Gen<'a> {
        Gen {
            cfg,
            // Mixed so that neighbouring seeds do not start from neighbouring states.
            rng: Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B),
            body: String::new(),
            regs: BTreeMap::new(),
            observed: BTreeSet::new(),
            ballots: Vec::new(),
            cells: BTreeMap::new(),
            returned: false,
        }
    }

    fn emit(&mut self, depth: usize, line: &str) {
        for _ in 0..=depth {
            self.body.push_str("  ");
        }
        self.body.push_str(line);
        self.body.push('\n');
    }

    // ---- statements -------------------------------------------------------------------

    /// Emits exactly `quota` statements (counting nested ones) at `ctx`. In an `if` branch
    /// the block may end with a jump.
    fn block(&mut self, ctx: Ctx, quota: usize) {
        let mut left = quota;
        let jump = if ctx.in_if && left >= 1 {
            self.choose_jump(ctx)
        } else {
            None
        };
        if jump.is_some() {
            left -= 1;
        }
        while left > 0 {
            left -= self.stmt(ctx, left);
        }
        if let Some(j) = jump {
            if j == "return;" {
                self.returned = true;
            }
            self.emit(ctx.depth, j);
        }
    }

    /// Maybe a jump to end an `if` branch. Jumps end their block because statements after
    /// them would never run.
    fn choose_jump(&mut self, ctx: Ctx) -> Option<&'static str> {
        if ctx.loops > 0 && self.rng.chance(45) {
            let mut options = vec![(4, "break;"), (1, "return;")];
            if ctx.can_continue {
                options.push((3, "continue;"));
            }
            Some(self.rng.weighted(&options))
        } else if ctx.loops == 0 && self.rng.chance(12) {
            Some("return;")
        } else {
            None
        }
    }

    /// Emits one statement (compound ones with their bodies) using at most `max` statements;
    /// returns how many it used (at least one).
    fn stmt(&mut self, ctx: Ctx, max: usize) -> usize {
        let cfg = self.cfg;
        let room = ctx.depth < cfg.max_depth;
        let mut options = vec![(3, Kind::Assign), (2, Kind::Load), (3, Kind::Store)];
        if cfg.atomics {
            options.push((2, Kind::Atomic));
        }
        if cfg.sgops {
            options.push((4, Kind::SgOp));
            options.push((1, Kind::SubgroupBarrier));
            if cfg.lanes <= 32 {
                options.push((1, Kind::BallotHelper));
            }
        }
        if cfg.workgroup_barriers && ctx.depth == 0 && !self.returned {
            options.push((2, Kind::Barrier));
        }
        if room && max >= 2 {
            options.push((4, Kind::If));
        }
        if cfg.loops && room {
            if max >= 2 {
                options.push((2, Kind::For));
            }
            if max > WHILE_OVERHEAD {
                options.push((2, Kind::While));
            }
            if max > LOOP_OVERHEAD && ctx.depth + 2 <= cfg.max_depth {
                options.push((3, Kind::Loop));
            }
        }
        match self.rng.weighted(&options) {
            Kind::Assign => self.assign(ctx),
            Kind::Load => self.load(ctx),
            Kind::Store => self.store(ctx),
            Kind::Atomic => self.atomic(ctx),
            Kind::SgOp => self.sgop_stmt(ctx),
            Kind::BallotHelper => self.ballot_helper(ctx),
            Kind::SubgroupBarrier => self.emit(ctx.depth, "subgroupBarrier();"),
            Kind::Barrier => self.emit(ctx.depth, "barrier();"),
            Kind::If => return self.if_stmt(ctx, max),
            Kind::For => return self.for_stmt(ctx, max),
            Kind::While => return self.while_stmt(ctx, max),
            Kind::Loop => return self.loop_stmt(ctx, max),
        }
        1
    }

    /// A register to write: often a fresh one, so that programs use several registers.
    fn dest(&mut self) -> String {
        let fresh: Vec<&str> = REGS
            .iter()
            .copied()
            .filter(|r| !self.regs.contains_key(*r))
            .collect();
        if !fresh.is_empty() && (self.regs.is_empty() || self.rng.chance(50)) {
            self.rng.pick(&fresh).to_string()
        } else {
            self.rng.pick(&REGS).to_string()
        }
    }

    /// Records a register write (after its right side was generated, which may not read it).
    fn wrote_reg(&mut self, reg: &str, vals: &Vals) {
        self.regs
            .entry(reg.to_string())
            .or_default()
            .extend(vals.0.clone());
    }

    fn wrote_cells(&mut self, cells: &[String], vals: &Vals) {
        for c in cells {
            self.cells
                .entry(c.clone())
                .or_default()
                .extend(vals.0.clone());
        }
    }

    /// What `cells` plausibly hold: what was written to them, and their initial 0.
    fn cell_vals(&self, cells: &[String]) -> Vals {
        let mut v = Vals::of([0]);
        for c in cells {
            if let Some(w) = self.cells.get(c) {
                v.extend(w.0.clone());
            }
        }
        v
    }

    fn assign(&mut self, ctx: Ctx) {
        let e = self.value(ctx, 2);
        let r = self.dest();
        self.emit(ctx.depth, &format!("{r} = {};", e.text));
        self.wrote_reg(&r, &e.vals);
    }

    fn load(&mut self, ctx: Ctx) {
        let (loc, cells) = self.location(ctx);
        let vals = self.cell_vals(&cells);
        let r = self.dest();
        self.emit(ctx.depth, &format!("{r} = {loc};"));
        self.wrote_reg(&r, &vals);
        self.observed.insert(r);
    }

    fn store(&mut self, ctx: Ctx) {
        let (loc, cells) = self.location(ctx);
        // Lane-dependent values make the threads' stores distinguishable in the outcome.
        let e = match self.rng.weighted(&[(4, 0), (3, 1), (3, 2)]) {
            0 => E::lit(self.rng.range(1, 3) as u32),
            1 => {
                let c = self.rng.range(0, 2) as u32;
                let vals = Vals::of((0..self.cfg.lanes).map(|l| l + c));
                match c {
                    0 => E::new("lane", vals, true),
                    _ => E::new(format!("lane + {c}"), vals, false),
                }
            }
            _ => self.value(ctx, 1),
        };
        self.emit(ctx.depth, &format!("{loc} = {};", e.text));
        self.wrote_cells(&cells, &e.vals);
    }

    fn atomic(&mut self, ctx: Ctx) {
        // The two compare-exchanges are one pick, then a coin: the programs of seeds that
        // draw neither stay what they were before the write-back form existed.
        let ops: Vec<AtomicOp> = (AtomicOp::ALL.into_iter())
            .filter(|&o| o != AtomicOp::CompSwapWriteBack)
            .collect();
        let mut op = self.rng.pick(&ops);
        if op == AtomicOp::CompSwap && self.rng.chance(50) {
            op = AtomicOp::CompSwapWriteBack;
        }
        let (loc, cells) = self.location(ctx);
        let old = self.cell_vals(&cells);
        let v = self.small_operand(ctx);
        let (args, new) = if op.value_args() == 2 {
            let cmp = self.rng.pick(&old.0);
            let args = format!("{cmp}, {}", v.text);
            let mut new = old.clone();
            new.extend(v.vals.0.clone());
            (args, new)
        } else {
            let new = old.combine(&v.vals, |o, x| atomic_guess(op, o, x));
            (v.text, new)
        };
        let call = format!("{}({loc}, {args})", op.name());
        if self.rng.chance(60) {
            let r = self.dest();
            self.emit(ctx.depth, &format!("{r} = {call};"));
            self.wrote_reg(&r, &old);
            self.observed.insert(r);
        } else {
            self.emit(ctx.depth, &format!("{call};"));
        }
        self.wrote_cells(&cells, &new);
    }

    /// `r = subgroupOp(..);`, sometimes inside a little arithmetic (`r = r1 + subgroupAdd(1);`)
    /// to exercise ops evaluated within expressions.
    fn sgop_stmt(&mut self, ctx: Ctx) {
        let op = self.any_sgop();
        let call = self.sgop_call(ctx, op);
        let e = if self.rng.chance(15) {
            let other = self.leaf(ctx);
            let vals = other.vals.combine(&call.vals, u32::wrapping_add);
            E::new(format!("{} + {}", other.operand(), call.text), vals, false)
        } else {
            call
        };
        let r = self.dest();
        self.emit(ctx.depth, &format!("{r} = {};", e.text));
        if op == SgOp::Ballot && e.simple {
            self.ballots.push(r.clone());
        }
        self.wrote_reg(&r, &e.vals);
        self.observed.insert(r);
    }

    /// A ballot helper on a register holding a ballot, or on a ballot computed in place.
    fn ballot_helper(&mut self, ctx: Ctx) {
        let f = self.rng.pick(&LocalFn::ALL);
        let mask = if !self.ballots.is_empty() && self.rng.chance(60) {
            self.rng.pick(&self.ballots)
        } else {
            let b = self.bool_atom(ctx);
            format!("subgroupBallot({})", b.text)
        };
        let n = self.cfg.lanes;
        let (args, vals) = match f {
            LocalFn::BallotBitExtract => {
                let bit = if self.rng.chance(60) {
                    "lane".to_string()
                } else {
                    self.rng.below(n as usize).to_string()
                };
                (format!("{mask}, {bit}"), Vals::of([0, 1]))
            }
            LocalFn::BallotFindLsb | LocalFn::BallotFindMsb => {
                (mask, Vals::of([0, 1, u32::MAX, n - 1]))
            }
            _ => (mask, Vals::of(0..=n)),
        };
        let r = self.dest();
        self.emit(ctx.depth, &format!("{r} = {}({args});", f.name()));
        self.wrote_reg(&r, &vals);
    }

    fn if_stmt(&mut self, ctx: Ctx, max: usize) -> usize {
        let cond = self.condition_expr(ctx);
        let inner = Ctx {
            in_if: true,
            ..ctx.nested()
        };
        let then_q = self.rng.range(1, (max - 1).min(3));
        let else_left = max - 1 - then_q;
        let else_q = if else_left > 0 && self.rng.chance(40) {
            self.rng.range(1, else_left.min(2))
        } else {
            0
        };
        self.emit(ctx.depth, &format!("if ({}) {{", cond.text));
        self.block(inner, then_q);
        if else_q > 0 {
            self.emit(ctx.depth, "} else {");
            self.block(inner, else_q);
        }
        self.emit(ctx.depth, "}");
        1 + then_q + else_q
    }

    /// A loop bound: a literal, or lane-dependent (1 or 2) so that lanes leave at different
    /// iterations and loop dynamic blocks lose participants.
    fn bound(&mut self, max: usize) -> (String, usize) {
        if self.rng.chance(30) {
            ("lane % 2 + 1".to_string(), 2)
        } else {
            let k = self.rng.range(1, max);
            (k.to_string(), k)
        }
    }

    /// `for (iN = 0; iN < K; iN = iN + 1) { .. }`, K <= 2. `continue` goes to the step, so
    /// it is always safe.
    fn for_stmt(&mut self, ctx: Ctx, max: usize) -> usize {
        let i = format!("i{}", ctx.loops);
        let (k, _) = self.bound(2);
        let q = self.rng.range(1, (max - 1).min(4));
        self.emit(
            ctx.depth,
            &format!("for ({i} = 0; {i} < {k}; {i} = {i} + 1) {{"),
        );
        self.block(ctx.loop_body(), q);
        self.emit(ctx.depth, "}");
        1 + q
    }

    /// `iN = 0; while (iN < K) { iN = iN + 1; .. }`, K <= 3. The step comes first so that a
    /// `continue` cannot skip it.
    fn while_stmt(&mut self, ctx: Ctx, max: usize) -> usize {
        let i = format!("i{}", ctx.loops);
        let (k, _) = self.bound(3);
        let q = self.rng.range(1, (max - WHILE_OVERHEAD).min(4));
        let body = ctx.loop_body();
        self.emit(ctx.depth, &format!("{i} = 0;"));
        self.emit(ctx.depth, &format!("while ({i} < {k}) {{"));
        self.emit(body.depth, &format!("{i} = {i} + 1;"));
        self.block(body, q);
        self.emit(ctx.depth, "}");
        WHILE_OVERHEAD + q
    }

    /// `iN = 0; loop { iN = iN + 1; A; if (iN >= K) { break; } B }`, K <= 3. A may not
    /// `continue` (that would skip the exit check); B may.
    fn loop_stmt(&mut self, ctx: Ctx, max: usize) -> usize {
        let i = format!("i{}", ctx.loops);
        let (k, _) = self.bound(3);
        let q = self.rng.range(1, (max - LOOP_OVERHEAD).min(4));
        let before = self.rng.range(0, q);
        let body = ctx.loop_body();
        self.emit(ctx.depth, &format!("{i} = 0;"));
        self.emit(ctx.depth, "loop {");
        self.emit(body.depth, &format!("{i} = {i} + 1;"));
        self.block(
            Ctx {
                can_continue: false,
                ..body
            },
            before,
        );
        self.emit(body.depth, &format!("if ({i} >= {k}) {{"));
        self.emit(body.depth + 1, "break;");
        self.emit(body.depth, "}");
        self.block(body, q - before);
        self.emit(ctx.depth, "}");
        LOOP_OVERHEAD + q
    }

    // ---- locations and expressions ----------------------------------------------------

    /// A global location and the cells it may name. Array indices are always in range.
    fn location(&mut self, ctx: Ctx) -> (String, Vec<String>) {
        match self.rng.weighted(&[(3, 'x'), (2, 'y'), (3, 'a')]) {
            'x' => ("x".into(), vec!["x".into()]),
            'y' => ("y".into(), vec!["y".into()]),
            _ => {
                let (index, cells) = self.index(ctx);
                let names = cells.iter().map(|k| format!("a[{k}]")).collect();
                (format!("a[{index}]"), names)
            }
        }
    }

    /// An index into `a[4]` and the cells it may select.
    fn index(&mut self, ctx: Ctx) -> (String, Vec<u32>) {
        let lanes = self.cfg.lanes;
        let lane_cells = |shift: u32| {
            let mut v: Vec<u32> = (0..lanes.min(4)).map(|l| (l + shift) % 4).collect();
            v.sort_unstable();
            v
        };
        let mut options = vec![(3, 0), (3, 1), (1, 2)];
        if !self.regs.is_empty() {
            options.push((2, 3));
        }
        if ctx.loops > 0 {
            options.push((1, 4));
        }
        match self.rng.weighted(&options) {
            0 => {
                let k = self.rng.below(4) as u32;
                (k.to_string(), vec![k])
            }
            1 => ("lane % 4".into(), lane_cells(0)),
            2 => ("(lane + 1) % 4".into(), lane_cells(1)),
            3 => {
                let r = self.read_reg();
                let text = self.rng.pick(&[
                    format!("{r} % 4"),
                    format!("({r} + 1) % 4"),
                    format!("{r} & 3"),
                ]);
                (text, vec![0, 1, 2, 3])
            }
            // Counters are at most 3 inside their loop's body.
            _ => {
                let i = self.rng.below(ctx.loops);
                (format!("i{i}"), vec![0, 1, 2, 3])
            }
        }
    }

    /// An assigned register (callers check that one exists).
    fn read_reg(&mut self) -> String {
        let names: Vec<String> = self.regs.keys().cloned().collect();
        self.rng.pick(&names)
    }

    /// A literal, `lane`, a register or a loop counter.
    fn leaf(&mut self, ctx: Ctx) -> E {
        if self.rng.chance(30) {
            E::lit(self.rng.weighted(&[(2, 0), (4, 1), (3, 2), (2, 3)]))
        } else {
            self.varying_leaf(ctx)
        }
    }

    /// A leaf whose value can differ between threads or runs: `lane`, a register, a loop
    /// counter, or `sgid`.
    fn varying_leaf(&mut self, ctx: Ctx) -> E {
        let mut options = vec![(2, 0)];
        if !self.regs.is_empty() {
            options.push((4, 1));
        }
        if ctx.loops > 0 {
            options.push((1, 2));
        }
        if self.cfg.subgroups > 1 {
            options.push((1, 3));
        }
        match self.rng.weighted(&options) {
            0 => E::new("lane", Vals::of(0..self.cfg.lanes), true),
            1 => {
                let r = self.read_reg();
                let mut vals = self.regs[&r].clone();
                vals.extend([0]);
                E::new(r, vals, true)
            }
            2 => {
                let i = self.rng.below(ctx.loops);
                E::new(format!("i{i}"), Vals::of(0..=3), true)
            }
            _ => E::new("sgid", Vals::of(0..self.cfg.subgroups), true),
        }
    }

    /// A literal in 1..=3, `lane + 1` or a register: the value operand of an atomic.
    fn small_operand(&mut self, ctx: Ctx) -> E {
        match self.rng.weighted(&[(6, 0), (2, 1), (2, 2)]) {
            0 => E::lit(self.rng.range(1, 3) as u32),
            1 => E::new(
                "lane + 1",
                Vals::of((0..self.cfg.lanes).map(|l| l + 1)),
                false,
            ),
            _ => self.leaf(ctx),
        }
    }

    /// Register arithmetic without subgroup ops, at most `size` operators deep. Division and
    /// remainder only by non-zero literals, shifts only by small literals.
    fn value(&mut self, ctx: Ctx, size: u32) -> E {
        if size == 0 || self.rng.chance(35) {
            return self.leaf(ctx);
        }
        let mut l = self.value(ctx, size - 1);
        let sym = self.rng.weighted(&[
            (5, "+"),
            (2, "-"),
            (2, "*"),
            (1, "&"),
            (1, "|"),
            (2, "^"),
            (1, "/"),
            (2, "%"),
            (1, "<<"),
            (1, ">>"),
            (2, "=="),
            (1, "<"),
        ]);
        let mut r = match sym {
            "/" | "%" => E::lit(self.rng.range(2, 4) as u32),
            "<<" | ">>" => E::lit(self.rng.range(1, 2) as u32),
            _ => self.value(ctx, size - 1),
        };
        // Arithmetic on literals alone, `e + 0` and the like only pad the program (and the
        // size a search minimises).
        let is_lit = |e: &E| e.text.parse::<u32>().is_ok();
        if is_lit(&l) && is_lit(&r) {
            l = self.varying_leaf(ctx);
        }
        if r.text == "0" && matches!(sym, "+" | "-" | "|" | "^") {
            r = E::lit(1);
        }
        if l.text == "0" && matches!(sym, "+" | "|" | "^") {
            l = E::lit(1);
        }
        let f: fn(u32, u32) -> u32 = match sym {
            "+" => u32::wrapping_add,
            "-" => u32::wrapping_sub,
            "*" => u32::wrapping_mul,
            "&" => |a, b| a & b,
            "|" => |a, b| a | b,
            "^" => |a, b| a ^ b,
            "/" => |a, b| a / b,
            "%" => |a, b| a % b,
            "<<" => |a, b| a << b,
            ">>" => |a, b| a >> b,
            "==" => |a, b| u32::from(a == b),
            _ => |a, b| u32::from(a < b),
        };
        let vals = l.vals.combine(&r.vals, f);
        E::new(
            format!("{} {sym} {}", l.operand(), r.operand()),
            vals,
            false,
        )
    }

    /// A comparison without subgroup ops: on `lane`, a register or a loop counter.
    fn bool_atom(&mut self, ctx: Ctx) -> E {
        let n = self.cfg.lanes;
        let mut options = vec![(4, 0), (1, 1)];
        if !self.regs.is_empty() {
            options.push((4, 2));
        }
        if ctx.loops > 0 {
            options.push((1, 3));
        }
        let text = match self.rng.weighted(&options) {
            0 => {
                let l = self.rng.below(n.max(2) as usize);
                self.rng.pick(&[
                    format!("lane == {}", l.min(n as usize - 1)),
                    format!("lane % 2 == {}", l % 2),
                    format!("lane < {}", l.max(1)),
                    format!("lane != {}", l.min(n as usize - 1)),
                ])
            }
            1 => self.rng.pick(&["true", "false"]).to_string(),
            2 => {
                let r = self.read_reg();
                let mut candidates = self.regs[&r].clone();
                candidates.extend([0, 1]);
                let v = self.rng.pick(&candidates.0);
                self.rng.pick(&[
                    format!("{r} == {v}"),
                    format!("{r} != {v}"),
                    format!("{r} < {}", v.clamp(1, 3)),
                ])
            }
            _ => {
                let i = self.rng.below(ctx.loops);
                let k = self.rng.range(0, 2);
                self.rng
                    .pick(&[format!("i{i} == {k}"), format!("i{i} + lane == {k}")])
            }
        };
        E::new(text, Vals::of([0, 1]), false)
    }

    /// An `if` condition: on lane or registers, a conjunction of those, or (with sgops) a
    /// subgroup op such as `subgroupElect()` or `subgroupAny(r0 == 1)`.
    fn condition_expr(&mut self, ctx: Ctx) -> E {
        let mut options = vec![(5, 0), (1, 1)];
        if self.cfg.sgops {
            options.push((4, 2));
        }
        match self.rng.weighted(&options) {
            0 => self.bool_atom(ctx),
            1 => {
                let a = self.bool_atom(ctx);
                let b = self.bool_atom(ctx);
                let op = self.rng.pick(&["&&", "||"]);
                E::new(
                    format!("{} {op} {}", a.text, b.text),
                    Vals::of([0, 1]),
                    false,
                )
            }
            _ => {
                let boolean = [SgOp::Elect, SgOp::Any, SgOp::All, SgOp::AllEqual];
                if self.rng.chance(60) {
                    let op = self.rng.pick(&boolean);
                    self.sgop_call(ctx, op)
                } else {
                    let op = self.any_sgop();
                    let call = self.sgop_call(ctx, op);
                    let v = self.rng.pick(&call.vals.0);
                    E::new(format!("{} == {v}", call.text), Vals::of([0, 1]), false)
                }
            }
        }
    }

    /// Any subgroup op of the vocabulary, uniformly (ballot only where masks fit 32 bits).
    fn any_sgop(&mut self) -> SgOp {
        let ops: Vec<SgOp> = SgOp::all()
            .into_iter()
            .filter(|&op| match op.ballot_word() {
                Some(0) => self.cfg.lanes <= 32,
                Some(k) => self.cfg.lanes > 32 * k,
                None => true,
            })
            .collect();
        self.rng.pick(&ops)
    }

    /// A call of `op` with arguments fitting its arity, and the values it may return.
    fn sgop_call(&mut self, ctx: Ctx, op: SgOp) -> E {
        let n = self.cfg.lanes;
        let (args, vals): (Vec<String>, Vals) = match op {
            SgOp::Elect => (vec![], Vals::of([0, 1])),
            SgOp::All | SgOp::Any => (vec![self.bool_atom(ctx).text], Vals::of([0, 1])),
            SgOp::Ballot | SgOp::BallotHigh | SgOp::BallotZ | SgOp::BallotW => {
                // The lanes of this word: 32k to 32k+31, those the subgroup has.
                let k = op.ballot_word().unwrap_or(0);
                let lanes = n.saturating_sub(32 * k).min(32);
                let full = if lanes >= 32 {
                    u32::MAX
                } else {
                    (1u32 << lanes) - 1
                };
                let vals = Vals::of([0, full, 1, full.saturating_sub(1)]);
                (vec![self.bool_atom(ctx).text], vals)
            }
            SgOp::AllEqual => (vec![self.value(ctx, 1).text], Vals::of([0, 1])),
            SgOp::Broadcast | SgOp::Shuffle => {
                let v = self.value(ctx, 1);
                let l = self.lane_arg(ctx);
                (vec![v.text, l], v.vals)
            }
            SgOp::ShuffleXor => {
                let v = self.value(ctx, 1);
                let m = self.xor_mask(ctx);
                (vec![v.text, m], v.vals)
            }
            SgOp::ShuffleUp | SgOp::ShuffleDown => {
                let v = self.value(ctx, 1);
                let d = self.delta(ctx, op == SgOp::ShuffleDown);
                (vec![v.text, d], v.vals)
            }
            SgOp::BroadcastFirst => {
                let v = self.value(ctx, 1);
                (vec![v.text], v.vals)
            }
            SgOp::Reduce(r) | SgOp::InclusiveScan(r) | SgOp::ExclusiveScan(r) => {
                let v = self.value(ctx, 1);
                let mut vals = Vals::default();
                if matches!(op, SgOp::ExclusiveScan(_)) {
                    // What the first participant gets: the identity (for Add, Or, Xor, Max 0).
                    vals.extend([match r {
                        RedOp::Mul => 1,
                        RedOp::Min | RedOp::And => u32::MAX,
                        _ => 0,
                    }]);
                }
                // Folding the argument over 1..=n participants covers the uniform case.
                for &x in &v.vals.0 {
                    let mut acc = x;
                    vals.extend([acc]);
                    for _ in 1..n {
                        acc = RedOp::apply(r, acc, x);
                        vals.extend([acc]);
                    }
                }
                (vec![v.text], vals)
            }
        };
        debug_assert_eq!(args.len(), op.arity(), "{}", op.name());
        E::new(format!("{}({})", op.name(), args.join(", ")), vals, true)
    }

    /// Is every lane of the subgroup at the statement being generated? At top level, unless
    /// a `return` came before (loops and `if`s have reconverged by then).
    fn converged(&self, ctx: Ctx) -> bool {
        ctx.depth == 0 && !self.returned
    }

    /// The lane argument of a broadcast or shuffle. A lane out of range or not participating
    /// gives an unspecified value, which the explorer enumerates (costly) and on which it
    /// answers `unknown`. So reads are kept to lanes that surely participate, and only
    /// rarely go elsewhere: where every lane is present, lanes in range; in divergent code,
    /// mostly the thread's own lane.
    fn lane_arg(&mut self, ctx: Ctx) -> String {
        let n = self.cfg.lanes;
        let rare = if self.converged(ctx) { 1 } else { 0 };
        let common = if self.converged(ctx) { 3 } else { 1 };
        let mut options = vec![
            (common, "0".to_string()),
            (common, format!("(lane + 1) % {n}")),
            (1, format!("{}", n - 1)),
        ];
        if n.is_multiple_of(2) {
            options.push((common, "lane ^ 1".to_string()));
        }
        if !self.converged(ctx) {
            options.push((12, "lane".to_string()));
        }
        if !self.regs.is_empty() {
            let r = self.read_reg();
            options.push((rare, format!("{r} % {n}")));
        }
        self.rng.weighted(&options)
    }

    /// The mask of `subgroupShuffleXor`: a mask below a power-of-two subgroup size keeps every
    /// lane in range; in divergent code mostly 0 (the thread itself), for the reason given at
    /// `Gen::lane_arg`.
    fn xor_mask(&mut self, ctx: Ctx) -> String {
        let n = self.cfg.lanes as usize;
        if n == 1 || (!self.converged(ctx) && self.rng.chance(90)) {
            return "0".into();
        }
        if n.is_power_of_two() || self.rng.chance(10) {
            self.rng.range(1, n - 1).to_string()
        } else {
            "0".into()
        }
    }

    /// The delta of `subgroupShuffleUp/Down`. A literal 1 puts an end lane out of range, so
    /// mostly a per-lane delta that stays in range: `lane < N-1` for down (1 except at the
    /// last lane), `lane > 0` for up (1 except at lane 0). In divergent code, mostly 0.
    fn delta(&mut self, ctx: Ctx, down: bool) -> String {
        let n = self.cfg.lanes;
        let in_range = if down {
            format!("lane < {}", n - 1)
        } else {
            "lane > 0".to_string()
        };
        if self.converged(ctx) {
            self.rng
                .weighted(&[(6, in_range), (2, "0".to_string()), (1, "1".to_string())])
        } else {
            self.rng
                .weighted(&[(2, in_range), (8, "0".to_string()), (1, "1".to_string())])
        }
    }

    // ---- the final condition ----------------------------------------------------------

    /// `P` of `exists (P)`: one to three observables the program writes, each compared with
    /// a value it plausibly holds. Outcomes are restricted to the observables `P` names, so
    /// the choice decides what engines are compared on. It favours what differs between
    /// models: registers that received a load, atomic or subgroup op result (rather than
    /// arithmetic), and one register in two threads (`0:r1 == 0 && 1:r1 == 1` sees the
    /// order of the threads' steps).
    fn condition(&mut self) -> String {
        let threads = (self.cfg.lanes * self.cfg.subgroups) as usize;
        // (weight, register?, name, values)
        let mut candidates: Vec<(u32, bool, String, Vals)> = Vec::new();
        for (r, v) in &self.regs {
            let weight = if self.observed.contains(r) { 4 } else { 1 };
            candidates.push((weight, true, r.clone(), v.clone()));
        }
        for (c, v) in &self.cells {
            candidates.push((2, false, c.clone(), v.clone()));
        }
        if candidates.is_empty() {
            return "x == 0".to_string();
        }
        let picks: Vec<(u32, usize)> = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| (c.0, i))
            .collect();
        let n = self.rng.range(1, 3);
        let mut observables: Vec<(String, Vals)> = Vec::new();
        for _ in 0..n * 3 {
            if observables.len() >= n {
                break;
            }
            let (_, is_reg, name, vals) = candidates[self.rng.weighted(&picks)].clone();
            let mut names = vec![name.clone()];
            if is_reg {
                let t = self.rng.below(threads);
                names = vec![format!("{t}:{name}")];
                if threads > 1 && self.rng.chance(40) {
                    let other = (t + 1 + self.rng.below(threads - 1)) % threads;
                    names.push(format!("{other}:{name}"));
                }
            }
            for obs in names {
                if !observables.iter().any(|(o, _)| *o == obs) {
                    observables.push((obs, vals.clone()));
                }
            }
        }
        let mut atoms = Vec::new();
        for (obs, mut pool) in observables {
            pool.extend([0]);
            let v = if self.rng.chance(80) {
                self.rng.pick(&pool.0)
            } else {
                self.rng.range(0, 3) as u32
            };
            let op = if self.rng.chance(85) { "==" } else { "!=" };
            atoms.push(format!("{obs} {op} {v}"));
        }
        let join = if self.rng.chance(10) { " || " } else { " && " };
        atoms.join(join)
    }
}

/// The value an atomic (other than compare-and-swap) plausibly leaves, for guessing only.
fn atomic_guess(op: AtomicOp, old: u32, v: u32) -> u32 {
    match op {
        AtomicOp::Add => old.wrapping_add(v),
        AtomicOp::Sub => old.wrapping_sub(v),
        AtomicOp::Min => old.min(v),
        AtomicOp::Max => old.max(v),
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::Exchange | AtomicOp::CompSwap | AtomicOp::CompSwapWriteBack => v,
    }
}
