//! The Z3 engine: the unrolled program as constraints, every model at once.
//!
//! An execution is encoded as: which blocks each thread runs (`in[t][b]`, its path through the
//! DAG), its register values along that path (SSA with phis at merges), an integer timestamp
//! for every event (label, instruction, terminator), sequentially consistent memory as
//! reads-from over timestamps, and subgroup-op results as functions of membership and
//! arguments (`eval::sgop_result`, the same rule the explorer uses). None of that depends on
//! the model. What a model changes is only *when* events may happen: each (kind, class) pair
//! contributes timing constraints behind an assumption literal, so the program is asserted
//! once and a whole tests x models table is answered by one solver.
//!
//! The encoder is in parts, one per concern, in the order they run:
//! - [`terms`]: constant-folding term constructors (the partial evaluator) and the Z3 value
//!   domain of `eval`;
//! - [`paths`]: guards, paths and registers, all threads together block by block, with
//!   subgroup-op values (folded to constants when memberships and arguments are known);
//! - [`memory`]: alias analysis, conflict order, reads-from and final values;
//! - [`timing`]: the per-class timing rules (docs/semantics.md §3), leaving events, workgroup
//!   barriers;
//! - [`decode`]: a Z3 model back to a witness trace;
//! - this file: the encoding's state, its budget, and the questions it answers.
//!
//! Every phase checks the [`Budget`] (time and memory) as it goes, so building a formula
//! that would not fit stops with [`Exhausted`] instead of growing without end; solver calls
//! get what is left of the time budget.
//!
//! Architecture invariant: this is the only module that talks to Z3.

mod cat;
mod deadline;
mod decode;
mod families;
pub mod liveness;
mod memory;
mod paths;
mod relaxed;
pub mod schema;
pub mod synth;
mod terms;
mod time;
mod timing;

use self::terms::{bv, eq, implies, is_true, not, or};
use self::time::Time;
use super::trace::Step;
use crate::budget::{Budget, Exhausted};
use crate::eval::UbKind;
use crate::ir::{BlockId, Observable, Program, Prop, PropTerm, RegId, Target};
use crate::model::Model;
use crate::vocab::{BinOp, Class, Kind, Members, TimingRule};
use decode::model_u32;
use relaxed::Judge;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use z3::ast::{Bool, Int, BV};
use z3::{Params, SatResult, Solver};

/// Options for SMT queries.
#[derive(Clone, Debug)]
pub struct SmtOptions {
    /// The time budget of the whole encoding, in milliseconds: building the formula and
    /// every solver call on it.
    pub timeout_ms: Option<u32>,
    /// The memory budget of the process while encoding and solving, in MiB.
    pub max_memory_mib: Option<u64>,
    /// Stop enumerating outcomes after this many (the list is then incomplete).
    pub max_outcomes: usize,
    /// Timestamps as integers (0, the default: difference logic) or bit-vectors of this width.
    pub time_bits: u32,
    /// A relaxed memory model (cat), judged symbolically; `None`: sequentially consistent.
    pub memory: Option<std::sync::Arc<crate::memory::MemoryModel>>,
    /// Keep what the liveness question needs ([`liveness`]): the registers at every loop
    /// header and the event of each undefined behaviour.
    pub liveness: bool,
    /// Liveness under Symb: symbolic subgroup ops count the lane's own argument and any
    /// other lanes with any arguments (the bound check, which must not miss a run whose op
    /// values only participants past the bound justify, and the over-approximate hang search
    /// behind `live` when an op sits in a loop).
    pub symbolic_free: bool,
    /// When the analysis began (unrolling included); `None`: when the encoding starts.
    pub start: Option<std::time::Instant>,
}

impl Default for SmtOptions {
    fn default() -> Self {
        SmtOptions {
            timeout_ms: None,
            max_memory_mib: Some(crate::budget::DEFAULT_MAX_MEMORY_MIB),
            max_outcomes: 256,
            time_bits: 0,
            memory: None,
            liveness: false,
            symbolic_free: false,
            start: None,
        }
    }
}

/// A run the solver found: its trace and, under a relaxed memory model, its execution.
pub type Run = (Vec<Step>, Option<crate::memory::Execution>);

/// What the solver said about one question.
#[derive(Clone, Debug)]
pub enum Answer<T> {
    Yes(T),
    No,
    /// Timeout or solver incompleteness, with the solver's reason.
    Unknown(String),
}

/// The outcomes of one model.
#[derive(Clone, Debug)]
pub struct SmtOutcomes {
    pub outcomes: Vec<Vec<u32>>,
    /// Outcomes with a free value (asked with [`Encoding::outcomes_with_families`]): the
    /// observables `free` take any one common value (their entry in `values` is one of them),
    /// the others the values given. `outcomes` then holds no member of a family.
    pub families: Vec<Family>,
    /// Why the list may be incomplete (limit or solver unknown), if it may be.
    pub incomplete: Option<String>,
}

/// A set of outcomes proved reachable for every value of its free values (`families.rs`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub values: Vec<u32>,
    /// Groups of observables (indices): each group takes any one common value, independently
    /// of the other groups; an observable in no group has its entry of `values`.
    pub free: Vec<Vec<usize>>,
}

impl Family {
    /// Is every outcome of `other` one of this family's? Each of `other`'s observables is a
    /// fixed value or a free value (its group); every group here must see one term only, and
    /// every observable outside the groups here the same fixed value.
    pub fn includes(&self, other: &Family) -> bool {
        let term = |i: usize| match other.free.iter().position(|g| g.contains(&i)) {
            Some(k) => Err(k),
            None => Ok(other.values[i]),
        };
        let grouped = |i: usize| self.free.iter().any(|g| g.contains(&i));
        self.free
            .iter()
            .all(|g| g.windows(2).all(|w| term(w[0]) == term(w[1])))
            && (0..self.values.len()).all(|i| grouped(i) || term(i) == Ok(self.values[i]))
    }

    /// Is the outcome `vals` one of the family's?
    pub fn contains(&self, vals: &[u32]) -> bool {
        self.includes(&Family {
            values: vals.to_vec(),
            free: Vec::new(),
        })
    }
}

/// Generalising starts once this many outcomes are listed: a free value shows as many
/// outcomes, and trying it on every short list would cost more than it saves.
const FAMILY_AFTER: usize = 8;
/// Generalising stops after this many outcomes that would not generalise.
const FAMILY_FAILURES: usize = 4;

/// A memory access event.
struct MemEv {
    thread: u32,
    block: BlockId,
    pos: u32,
    global: u32,
    index: BV,
    /// The cell (offset in the global) when the index folded to an in-bounds constant.
    cell: Option<u32>,
    guard: Bool,
    ts: Time,
    read: Option<BV>,
    write: Option<BV>,
    /// When the write happens, given the guard: false only for a compare-exchange whose
    /// compare fails ([`crate::eval::atomic_stores`]). The memory model's events follow it;
    /// SC reads-from keeps such a write (of the value the cell holds, in the same atomic
    /// step), which no read can tell from its absence.
    stores: Bool,
    /// The index is within the global: otherwise the access is undefined behaviour, where
    /// the run ends, and no event for a memory model.
    in_bounds: Bool,
}

/// The encoded program.
pub struct Encoding<'p> {
    prog: &'p Program,
    solver: Solver,
    inb: Vec<Vec<Bool>>,
    ts: Vec<Vec<Vec<Time>>>,
    /// Per thread and block: the edges with the condition of taking each.
    edges: Vec<Vec<Vec<(Target, Bool)>>>,
    /// Per thread and block: the time of the event before the label (the branch into it).
    prev_label: Vec<Vec<Time>>,
    time_bits: u32,
    /// Register written at (thread, block, pos), with its value, for witnesses.
    written: HashMap<(u32, BlockId, u32), (RegId, BV)>,
    /// The id of each fence that has one, by (thread, block, position) (`Op::Fence`).
    fence_ids: HashMap<(u32, BlockId, u32), BV>,
    mem: Vec<MemEv>,
    observables: Vec<BV>,
    ub: Vec<(UbKind, Bool)>,
    cut_any: Bool,
    /// Per thread: its run ends at a cut (any), so it may write after the run's end.
    cut_thread: Vec<Bool>,
    /// The cuts that may hide an outcome: `cut_any` without those of idle loops
    /// ([`crate::ir::Program::idle_cut`]).
    cut_doubt: Bool,
    /// Cuts in partly idle loops, (thread, block, condition): a doubt only where too few of
    /// the loop instance's iterations were idle ([`paths::Encoding::partly_idle_doubts`]).
    round_cuts: Vec<(u32, BlockId, Bool)>,
    lits: BTreeMap<(Kind, Class), Bool>,
    a_noub: Bool,
    a_nocut: Bool,
    a_cut: Bool,
    ub_lits: BTreeMap<UbKind, Bool>,
    /// Optional instructions (program templates, see [`synth`]): the instruction at (block,
    /// position) exists only when its literal holds. Empty for ordinary programs.
    present: HashMap<(BlockId, u32), Bool>,
    /// The slot of each optional instruction: consecutive instructions of one slot are one
    /// program point (one time per thread, one group time per subgroup).
    slot: HashMap<(BlockId, u32), usize>,
    /// Template mode: value constants (loaded values, final cells, op results) defined as
    /// terms over times and choices, so that a concrete schedule determines the execution of
    /// every program of the template. (constant, definition)
    defs: Vec<(z3::ast::Dynamic, z3::ast::Dynamic)>,
    /// Accesses by global and known cell (`None`: unknown cell), for alias queries.
    by_global: HashMap<u32, HashMap<Option<u32>, Vec<usize>>>,
    /// Accesses by program point (block, position).
    at: HashMap<(BlockId, u32), Vec<usize>>,
    /// Per global: no instruction writes it, so every load reads the initial value.
    read_only: Vec<bool>,
    /// The analysis' budget: solver calls get what is left of its time.
    budget: Budget,
    /// The budget of formula building: the same deadline, half the memory.
    building: Budget,
    /// When every guard folded (only the schedule is open) and races are sparse, a second
    /// solver with Z3's difference-logic arithmetic (`smt.arith.solver=1`), which finds
    /// schedules far faster ([`Encoding::settle`]); it holds the same assertions. Dropped for good if it reports the formula outside
    /// difference logic.
    dl: std::cell::OnceCell<Solver>,
    dl_ok: std::cell::Cell<bool>,
    /// Why the default solver gave up, once it has: Z3 4.8.12 can hit an internal assertion
    /// (and abort the process) when a solver that answered `unknown` is asked again, so later
    /// questions on this encoding are answered `unknown` with that reason instead.
    gave_up: std::cell::RefCell<Option<String>>,
    /// The timing constraints, built before the first solver call rather than up front:
    /// when the condition, the cut and undefined behaviour all fold to constants, no solver
    /// call is needed and the schedule never has to be encoded.
    #[allow(clippy::type_complexity)]
    deferred:
        std::cell::RefCell<Option<(BTreeSet<(Kind, Class)>, HashMap<(u32, BlockId, u32), Time>)>>,
    /// A relaxed memory model's events, relations and axioms ([`relaxed`]); `None`: SC.
    relaxed: Option<relaxed::Relaxed>,
    /// Liveness ([`SmtOptions::liveness`]): each thread's registers on entering each loop
    /// header instance, and the event (thread, block, position) of each entry of `ub`.
    liveness: bool,
    header_regs: HashMap<(u32, BlockId), Vec<BV>>,
    /// Liveness under a relaxed memory model: the horizon, made before the memory model's
    /// events, which happen only before it (a hang's execution is the run up to where it
    /// stops; what follows is never observed). Under Symb, made before the paths: a subgroup
    /// op's participants are the threads that entered its block before it.
    horizon: Option<Time>,
    /// Liveness under Symb ([`Class::Symbolic`] subgroup ops): a symbolic op's value is the op
    /// over the threads that ever enter its block, which in a run that stays forever at the
    /// horizon are those that entered before it (docs/progress.md, "Symb").
    limit_members: bool,
    /// Liveness's over-approximation under Symb ([`SmtOptions::symbolic_free`]): a symbolic
    /// op's value counts the lane's own argument and any others.
    free_symbolic: bool,
    /// Under [`Encoding::free_symbolic`], per symbolic op event (thread, block, position): the
    /// other lanes that may take part, each with the Boolean that says it does.
    joins: HashMap<(u32, BlockId, u32), Vec<(u32, Bool)>>,
    ub_at: HashMap<usize, (u32, BlockId, u32)>,
    /// Liveness: the quorum barriers, each of which may never open ([`timing::Quorum`]).
    quorums: Vec<timing::Quorum>,
    /// Per access: a dead read ([`memory`]: its reads-from is left open).
    dead: Vec<bool>,
    /// Pairs of conflicting accesses given distinct times: many per access (a dense race)
    /// is the shape on which difference logic loses (`settle`).
    races: usize,
}

/// Most milliseconds the difference-logic solver gets per call before the default solver
/// takes over (issue 16: at 32 racy lanes it spent 7 to 22 s to give up where the default
/// solver answers in 0.9 s; on the CTS shapes it answers in under 2 s, where the default
/// solver can take 30 s, so the cap leaves it room).
const DL_SHARE_MS: u32 = 5000;

/// Runs `f`, turning a failure inside Z3 into an error instead of a crash. Z3 reports
/// resource exhaustion during term construction as a null term, which the `z3` crate
/// unwraps; the budgets are meant to stop us first, and this is the backstop that keeps such
/// a failure an `unknown` verdict.
pub fn contain<T>(max_memory_mib: Option<u64>, f: impl FnOnce() -> T) -> Result<T, String> {
    crate::diag::catch_quietly(f).map_err(|msg| match max_memory_mib {
        Some(mib) => format!(
            "Z3 stopped: the memory budget ({mib} MiB) ran out, or Z3 failed internally ({msg})"
        ),
        None => format!("Z3 failed internally ({msg})"),
    })
}

/// Classes each timed kind takes in at least one of `models`.
fn classes_used(models: &[Model]) -> BTreeSet<(Kind, Class)> {
    models
        .iter()
        .flat_map(|m| Kind::TIMED.map(|k| (k, m.class(k))))
        .collect()
}

impl<'p> Encoding<'p> {
    /// Asserts the program once, with timing constraints for every class the given models use.
    pub fn new(
        prog: &'p Program,
        models: &[Model],
        opts: &SmtOptions,
    ) -> Result<Encoding<'p>, Exhausted> {
        Self::build(prog, models, opts, HashMap::new(), false)
    }

    /// As [`Encoding::new`] for a program template: the instruction at (block, position) of
    /// each entry of `optional` exists only when its literal holds, and belongs to the given
    /// slot (consecutive instructions of a slot share the slot's times). An absent instruction
    /// is no event (no access, no membership, no register write), so when exactly one
    /// alternative of each slot is present the encoding is that of the program with the
    /// absent instructions deleted (`query::cegis` tests this).
    pub fn with_optional(
        prog: &'p Program,
        models: &[Model],
        opts: &SmtOptions,
        optional: HashMap<(BlockId, u32), (Bool, usize)>,
    ) -> Result<Encoding<'p>, Exhausted> {
        Self::build(prog, models, opts, optional, true)
    }

    /// `template`: for [`synth`], which reads and extends `solver` itself, so everything is
    /// built at once and only that solver is used.
    fn build(
        prog: &'p Program,
        models: &[Model],
        opts: &SmtOptions,
        optional: HashMap<(BlockId, u32), (Bool, usize)>,
        template: bool,
    ) -> Result<Encoding<'p>, Exhausted> {
        let budget = Budget::since(
            opts.start.unwrap_or_else(std::time::Instant::now),
            opts.timeout_ms
                .map(|ms| std::time::Duration::from_millis(ms as u64)),
            opts.max_memory_mib,
        );
        if let Some(mib) = opts.max_memory_mib {
            // Z3's own ceiling is the budget: building stops at half of it (our checks see the
            // whole process), and a solver call that reaches it says `unknown`.
            z3::set_global_param("memory_max_size", &mib.to_string());
        }
        // For measuring solver settings (docs/benchmarks.md): TANGLE_Z3_PARAMS="k=v,k=v".
        if let Ok(ps) = std::env::var("TANGLE_Z3_PARAMS") {
            for kv in ps.split(',') {
                if let Some((k, v)) = kv.split_once('=') {
                    z3::set_global_param(k.trim(), v.trim());
                }
            }
        }
        let slot = optional.iter().map(|(&k, (_, j))| (k, *j)).collect();
        let present = optional.into_iter().map(|(k, (p, _))| (k, p)).collect();
        let solver = Solver::new();
        let used = classes_used(models);
        let lits = used
            .iter()
            .map(|&(k, c)| {
                (
                    (k, c),
                    Bool::new_const(format!("class_{}_{}", k.name(), c.name())),
                )
            })
            .collect();
        let read_only = prog.cfg.written_globals().iter().map(|w| !w).collect();
        // Liveness under Symb: how symbolic ops' values are judged (the horizon's participants,
        // or any value in the bound check).
        let symbolic = models
            .iter()
            .all(|m| m.class(Kind::Sgop) == Class::Symbolic)
            && prog.has_kind(Kind::Sgop);
        let mut enc = Encoding {
            prog,
            solver,
            inb: Vec::new(),
            ts: Vec::new(),
            edges: Vec::new(),
            prev_label: Vec::new(),
            written: HashMap::new(),
            fence_ids: HashMap::new(),
            mem: Vec::new(),
            observables: Vec::new(),
            ub: Vec::new(),
            cut_any: Bool::from_bool(false),
            cut_thread: vec![Bool::from_bool(false); prog.layout.threads as usize],
            cut_doubt: Bool::from_bool(false),
            round_cuts: Vec::new(),
            lits,
            a_noub: Bool::new_const("assume_no_ub"),
            a_nocut: Bool::new_const("assume_no_cut"),
            a_cut: Bool::new_const("assume_cut"),
            ub_lits: BTreeMap::new(),
            time_bits: opts.time_bits,
            present,
            slot,
            defs: Vec::new(),
            by_global: HashMap::new(),
            at: HashMap::new(),
            read_only,
            building: budget.with_memory_share(1, 2),
            budget,
            dl: std::cell::OnceCell::new(),
            dl_ok: std::cell::Cell::new(true),
            gave_up: std::cell::RefCell::new(None),
            deferred: std::cell::RefCell::new(None),
            relaxed: None,
            liveness: opts.liveness,
            header_regs: HashMap::new(),
            horizon: None,
            limit_members: opts.liveness && !opts.symbolic_free && symbolic,
            free_symbolic: opts.liveness && opts.symbolic_free && symbolic,
            joins: HashMap::new(),
            ub_at: HashMap::new(),
            quorums: Vec::new(),
            dead: Vec::new(),
            races: 0,
        };
        let budget = enc.building.clone();
        let lazy = used
            .iter()
            .any(|&(k, c)| TimingRule::of(k, c).members == Members::Resolve);
        let built = (|| {
            if enc.limit_members {
                enc.horizon = Some(enc.time_var("horizon".into()));
            }
            let (finals, resolve) = enc.paths(lazy, &budget)?;
            match &opts.memory {
                Some(mm) if !template => {
                    if enc.liveness && enc.horizon.is_none() {
                        enc.horizon = Some(enc.time_var("horizon".into()));
                    }
                    enc.relaxed(mm.clone(), &budget)?
                }
                _ => enc.memory(&budget)?,
            }
            *enc.deferred.borrow_mut() = Some((used.clone(), resolve));
            enc.workgroup_barriers(&budget)?;
            enc.quorum_barriers(&budget)?;
            enc.observe(&finals)?;
            budget.check_memory("encoding the program")
        })();
        built?;
        if template {
            // `synth` reads the solver's assertions directly.
            enc.dl_ok.set(false);
            enc.settle()?;
        }
        if tracing::enabled!(tracing::Level::DEBUG) {
            let open_guards = enc
                .inb
                .iter()
                .flatten()
                .filter(|b| terms::known(b).is_none())
                .count();
            let entered = enc
                .inb
                .iter()
                .flatten()
                .filter(|b| !terms::is_false(b))
                .count();
            let unknown_cells = enc.mem.iter().filter(|e| e.cell.is_none()).count();
            let open_values = enc
                .written
                .values()
                .filter(|(_, v)| terms::num(v).is_none())
                .count();
            tracing::debug!(
                entered,
                open_guards,
                accesses = enc.mem.len(),
                unknown_cells,
                open_values,
                cut = ?terms::known(&enc.cut_any),
                depths = ?enc.prog.depths,
                assertions = enc.solver.get_assertions().len(),
                races = enc.races,
                "encoded"
            );
        }
        let ub_any = or(&enc.ub.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>());
        enc.assert(&implies(&enc.a_noub, &not(&ub_any)));
        // Every query about complete executions assumes `a_noub`: those are the ones a
        // filter applies to (a run cut short has no final state to judge).
        if let Some(f) = &enc.prog.filter {
            enc.assert(&implies(&enc.a_noub, &enc.prop(f)));
        }
        enc.assert(&implies(&enc.a_nocut, &not(&enc.cut_any)));
        enc.assert(&implies(&enc.a_cut, &enc.cut_doubt));
        for k in UbKind::OF_PROGRAMS {
            let conds: Vec<Bool> = enc
                .ub
                .iter()
                .filter(|(kk, _)| *kk == k)
                .map(|(_, c)| c.clone())
                .collect();
            if !conds.is_empty() {
                let l = Bool::new_const(format!("assume_ub_{k:?}"));
                enc.assert(&implies(&l, &or(&conds)));
                enc.ub_lits.insert(k, l);
            }
        }
        Ok(enc)
    }

    /// Builds what was deferred (the timing constraints), and the difference-logic solver
    /// when every guard folded and races are sparse. Called before every solver call; does
    /// nothing after the first.
    ///
    /// Sparse: at most one pair of conflicting accesses per access. Difference logic wins
    /// where the schedule is the question (the CTS shapes: no race at all, 1.4 s where the
    /// default solver takes 40 s) and loses where each distinct-time pair is a case split of
    /// its graph (n lanes racing on one cell: n² pairs, 5 s where the default solver takes
    /// 0.1 s). docs/benchmarks.md has both.
    fn settle(&self) -> Result<(), Exhausted> {
        let Some((used, resolve)) = self.deferred.borrow_mut().take() else {
            return Ok(());
        };
        self.timing(&used, &resolve, &self.building)?;
        self.building
            .check_memory("encoding the models' timing constraints")?;
        let open_guards = self.inb.iter().flatten().any(|b| terms::known(b).is_none());
        let wanted = std::env::var_os("TANGLE_NO_DL").is_none();
        let sparse = self.races <= self.mem.len();
        if wanted && !open_guards && sparse && self.dl_ok.get() && self.time_bits == 0 {
            let dl = Solver::new();
            let mut p = Params::new();
            p.set_u32("arith.solver", 1);
            dl.set_params(&p);
            for a in self.solver.get_assertions() {
                dl.assert(&a);
            }
            let _ = self.dl.set(dl);
        }
        Ok(())
    }

    /// Asserts `c` unless it folded to `true`.
    fn assert(&self, c: &Bool) {
        if !is_true(c) {
            self.solver.assert(c);
            if let Some(dl) = self.dl.get() {
                dl.assert(c);
            }
        }
    }

    /// A fresh time. Bit-vector times are kept in [0, 2^(bits-2)) so that no comparison or
    /// slot end (`G + |T(db)|`) can wrap around.
    fn time_var(&self, name: String) -> Time {
        if self.time_bits == 0 {
            return Time::I(Int::new_const(name));
        }
        let v = BV::new_const(name, self.time_bits);
        let hi = BV::from_i64(1i64 << (self.time_bits - 2), self.time_bits);
        self.solver.assert(v.bvsge(BV::from_i64(0, self.time_bits)));
        self.solver.assert(v.bvslt(&hi));
        Time::B(v)
    }

    /// Are positions `p` and `q` of block `b` alternatives of one slot?
    fn same_slot(&self, b: BlockId, p: u32, q: u32) -> bool {
        match (self.slot.get(&(b, p)), self.slot.get(&(b, q))) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        }
    }

    /// The position of the event before the one at `pos` in program order: the previous
    /// instruction, or for an alternative of a slot the last event before the slot.
    fn prev_pos(&self, b: BlockId, pos: u32) -> u32 {
        let mut q = pos.saturating_sub(1);
        while q > 0 && self.same_slot(b, q, pos) {
            q -= 1;
        }
        q
    }

    /// The name part of a per-program-point time: the position, or the slot in a template.
    fn point(&self, b: BlockId, pos: u32) -> String {
        match self.slot.get(&(b, pos)) {
            Some(j) => format!("slot{j}"),
            None => format!("p{pos}"),
        }
    }

    /// `c` is defined as `def`; in template mode the definition is also recorded for
    /// [`synth`].
    fn define(&mut self, c: &BV, def: &BV) {
        self.assert(&eq(c, def));
        if self.present.is_empty() {
            return;
        }
        self.defs.push((
            z3::ast::Dynamic::from_ast(c),
            z3::ast::Dynamic::from_ast(def),
        ));
    }

    /// Lazy: an event reading registers `regs` comes after each one's result is resolved.
    fn after_ready(&self, in_b: &Bool, ts: &Time, regs: &[RegId], ready: &[Time]) {
        for &r in regs {
            self.assert(&implies(in_b, &ts.gt(&ready[r as usize])));
        }
    }

    /// The condition's observables as terms over the final state.
    fn observe(&mut self, finals: &[Vec<BV>]) -> Result<(), Exhausted> {
        let prog = self.prog;
        for o in &prog.observables {
            let term = match o {
                Observable::Reg { thread, reg } => finals[*thread as usize][*reg as usize].clone(),
                Observable::Mem { cell } => self.final_cell(*cell)?,
            };
            self.observables.push(term);
        }
        Ok(())
    }

    fn prop(&self, p: &Prop) -> Bool {
        let term = |t: &PropTerm| match t {
            PropTerm::Lit(v) => bv(*v),
            PropTerm::Obs(i) => self.observables[*i].clone(),
        };
        match p {
            Prop::Const(b) => Bool::from_bool(*b),
            Prop::Not(a) => not(&self.prop(a)),
            Prop::And(a, b) => terms::and(&[&self.prop(a), &self.prop(b)]),
            Prop::Or(a, b) => or(&[self.prop(a), self.prop(b)]),
            Prop::Truthy(a) => not(&eq(&term(a), &bv(0))),
            Prop::Cmp(op, a, b) => {
                let (a, b) = (term(a), term(b));
                match op {
                    BinOp::Eq => eq(&a, &b),
                    BinOp::Ne => not(&eq(&a, &b)),
                    BinOp::Lt => terms::ult(&a, &b),
                    BinOp::Le => terms::ule(&a, &b),
                    BinOp::Gt => terms::ult(&b, &a),
                    BinOp::Ge => terms::ule(&b, &a),
                    _ => unreachable!("conditions compare"),
                }
            }
        }
    }

    fn model_lits(&self, m: &Model) -> Vec<Bool> {
        Kind::TIMED
            .iter()
            .map(|&k| self.lits[&(k, m.class(k))].clone())
            .collect()
    }

    /// True when the class `kind` takes in the model being asked about has a timing rule
    /// satisfying `pred`: a disjunction of class literals.
    fn classes_where(&self, kind: Kind, pred: impl Fn(TimingRule) -> bool) -> Bool {
        let lits: Vec<Bool> = self
            .lits
            .iter()
            .filter(|((k, c), _)| *k == kind && pred(TimingRule::of(kind, *c)))
            .map(|(_, l)| l.clone())
            .collect();
        or(&lits)
    }

    fn check(&self, assumptions: &[Bool]) -> Answer<z3::Model> {
        if let Err(e) = self.settle() {
            return Answer::Unknown(e.to_string());
        }
        if let Some(dl) = self.dl.get().filter(|_| self.dl_ok.get()) {
            // The difference-logic attempt gets a share of the time (a quarter of what is
            // left, at most DL_SHARE_MS): when it cannot answer in that, the default solver
            // takes over with the rest, and later calls go to it directly.
            let share = self
                .budget
                .solver_ms()
                .map_or(DL_SHARE_MS, |ms| (ms / 4).clamp(1, DL_SHARE_MS));
            match self.check_on(dl, assumptions, Some(share)) {
                Answer::Unknown(_) => self.dl_ok.set(false),
                answer => return answer,
            }
        }
        if let Some(why) = self.gave_up.borrow().as_ref() {
            return Answer::Unknown(format!(
                "the solver gave up earlier on this program ({why})"
            ));
        }
        let answer = self.check_on(&self.solver, assumptions, None);
        if let Answer::Unknown(why) = &answer {
            *self.gave_up.borrow_mut() = Some(why.clone());
        }
        answer
    }

    /// One solver call with what is left of the time budget, or `cap` ms if that is less.
    fn check_on(
        &self,
        solver: &Solver,
        assumptions: &[Bool],
        cap: Option<u32>,
    ) -> Answer<z3::Model> {
        if self.budget.remaining() == Some(std::time::Duration::ZERO) {
            return Answer::Unknown("the time budget ran out".into());
        }
        let ms = match (self.budget.solver_ms(), cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let start = std::time::Instant::now();
        let (result, late) = deadline::within(ms, || solver.check_assumptions(assumptions));
        tracing::debug!(?result, elapsed = ?start.elapsed(), assumptions = assumptions.len(), dl = !std::ptr::eq(solver, &self.solver), "solver call");
        match result {
            SatResult::Sat => Answer::Yes(solver.get_model().expect("sat has a model")),
            SatResult::Unsat => Answer::No,
            SatResult::Unknown if late => Answer::Unknown("timeout".into()),
            SatResult::Unknown => Answer::Unknown(
                solver
                    .get_reason_unknown()
                    .unwrap_or_else(|| "the solver gave up".into()),
            ),
        }
    }

    /// Is an outcome satisfying the condition reachable under `m` (complete, no undefined
    /// behaviour, not cut)? With a witness trace.
    pub fn allowed(&self, m: &Model) -> Answer<Vec<Step>> {
        match self.allowed_execution(m) {
            Answer::Yes((steps, _)) => Answer::Yes(steps),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// As [`Encoding::allowed`], with the witness's reads-from and coherence under a relaxed
    /// memory model.
    pub fn allowed_execution(&self, m: &Model) -> Answer<Run> {
        self.reaching(m, self.prop(&self.prog.prop))
    }

    /// A complete execution allowed under `m` whose outcome breaks the condition's
    /// proposition: for `forall P`, a run that shows P does not hold everywhere.
    pub fn counterexample(&self, m: &Model) -> Answer<Run> {
        self.reaching(m, terms::not(&self.prop(&self.prog.prop)))
    }

    fn reaching(&self, m: &Model, prop: Bool) -> Answer<Run> {
        if terms::is_false(&prop) {
            // The condition is false in every execution, whatever the schedule: no need to
            // ask whether a schedule exists.
            return Answer::No;
        }
        let p = Bool::fresh_const("query_prop");
        self.assert(&p.implies(prop));
        let mut a = self.model_lits(m);
        a.extend([self.a_noub.clone(), self.a_nocut.clone(), p]);
        match self.decide(m, Judge::Whole, a) {
            Answer::Yes(model) => Answer::Yes((self.decode(&model, m), self.execution(&model))),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// Every outcome under `m`, by enumeration with blocking clauses.
    pub fn outcomes(&self, m: &Model, max: usize) -> SmtOutcomes {
        self.outcomes_except(m, &[], max)
    }

    /// The outcomes under `m` other than those in `except`.
    pub fn outcomes_except(&self, m: &Model, except: &[Vec<u32>], max: usize) -> SmtOutcomes {
        self.outcomes_where(m, except, max, false)
    }

    /// As [`Encoding::outcomes`], with outcomes that take any value of a free v listed once
    /// as a [`Family`] (thin air under Symb, unspecified reads).
    pub fn outcomes_with_families(&self, m: &Model, max: usize) -> SmtOutcomes {
        self.enumerate(m, &[], max, false, true)
    }

    /// The outcomes under `m` other than those in `except`; with `only_p`, only those that
    /// satisfy the condition's proposition.
    pub fn outcomes_where(
        &self,
        m: &Model,
        except: &[Vec<u32>],
        max: usize,
        only_p: bool,
    ) -> SmtOutcomes {
        self.enumerate(m, except, max, only_p, false)
    }

    fn enumerate(
        &self,
        m: &Model,
        except: &[Vec<u32>],
        max: usize,
        only_p: bool,
        families: bool,
    ) -> SmtOutcomes {
        let mut a = self.model_lits(m);
        match self.memory_lits(m, true) {
            Ok(l) => a.extend(l),
            Err(why) => {
                return SmtOutcomes {
                    outcomes: Vec::new(),
                    families: Vec::new(),
                    incomplete: Some(why),
                }
            }
        }
        a.extend([self.a_noub.clone(), self.a_nocut.clone()]);
        if only_p {
            let p = Bool::fresh_const("query_prop");
            self.assert(&p.implies(self.prop(&self.prog.prop)));
            a.push(p);
        }
        let mut outcomes = Vec::new();
        let mut fams: Vec<Family> = Vec::new();
        let mut failures = 0;
        let mut consts = None;
        let mut blocks: Vec<Bool> = except.iter().map(|v| self.block_outcome(v)).collect();
        let incomplete = loop {
            if outcomes.len() + fams.len() >= max {
                break Some(format!("stopped after {max} outcomes"));
            }
            let mut assume = a.clone();
            assume.extend(blocks.iter().cloned());
            match self.check(&assume) {
                Answer::No => break None,
                Answer::Unknown(r) => break Some(format!("solver: {r}")),
                Answer::Yes(model) => {
                    let vals: Vec<u32> = self
                        .observables
                        .iter()
                        .map(|o| model_u32(&model, o))
                        .collect();
                    let mut free = None;
                    if families && failures < FAMILY_FAILURES && outcomes.len() >= FAMILY_AFTER {
                        let c = consts.get_or_insert_with(|| self.constants());
                        free = c
                            .as_ref()
                            .and_then(|c| self.free_values(c, &model, &vals, &a, &blocks));
                        failures += usize::from(free.is_none());
                    }
                    match free {
                        Some(free) => {
                            blocks.push(self.block_family(&vals, &free));
                            fams.push(Family { values: vals, free });
                        }
                        None => {
                            blocks.push(self.block_outcome(&vals));
                            outcomes.push(vals);
                        }
                    }
                    if self.observables.is_empty() {
                        break None;
                    }
                }
            }
        };
        outcomes.retain(|o| !fams.iter().any(|f| f.contains(o)));
        // A family found before a wider one that includes it adds nothing.
        // (Of two that include each other, the first is kept.)
        let all = fams.clone();
        let mut k = 0;
        fams.retain(|f| {
            let i = k;
            k += 1;
            !all.iter()
                .enumerate()
                .any(|(j, g)| j != i && g.includes(f) && (j < i || !f.includes(g)))
        });
        outcomes.sort();
        fams.sort_by(|x, y| (&x.free, &x.values).cmp(&(&y.free, &y.values)));
        SmtOutcomes {
            outcomes,
            families: fams,
            incomplete,
        }
    }

    /// A literal that, assumed, excludes every outcome of the family (`vals` with each group
    /// of `free` at any one common value).
    fn block_family(&self, vals: &[u32], free: &[Vec<usize>]) -> Bool {
        let mut same: Vec<Bool> = Vec::new();
        for (i, (o, v)) in self.observables.iter().zip(vals).enumerate() {
            if !free.iter().any(|g| g.contains(&i)) {
                same.push(eq(o, &bv(*v)));
            }
        }
        for w in free.iter().flat_map(|g| g.windows(2)) {
            same.push(eq(&self.observables[w[0]], &self.observables[w[1]]));
        }
        let refs: Vec<&Bool> = same.iter().collect();
        let blk = Bool::fresh_const("block_outcome");
        self.assert(&blk.implies(terms::and(&refs).not()));
        blk
    }

    /// The observables equal `vals`.
    fn is_outcome(&self, vals: &[u32]) -> Bool {
        let same: Vec<Bool> = self
            .observables
            .iter()
            .zip(vals)
            .map(|(o, v)| eq(o, &bv(*v)))
            .collect();
        let refs: Vec<&Bool> = same.iter().collect();
        terms::and(&refs)
    }

    /// A literal that, assumed, excludes the outcome `vals`.
    fn block_outcome(&self, vals: &[u32]) -> Bool {
        let blk = Bool::fresh_const("block_outcome");
        self.assert(&blk.implies(self.is_outcome(vals).not()));
        blk
    }

    /// Is exactly the outcome `vals` reachable under `m`? With a witness.
    pub fn reaches(&self, m: &Model, vals: &[u32]) -> Answer<Vec<Step>> {
        let is = self.is_outcome(vals);
        if terms::is_false(&is) {
            return Answer::No;
        }
        let l = Bool::fresh_const("query_outcome");
        self.assert(&l.implies(is));
        let mut a = self.model_lits(m);
        a.extend([self.a_noub.clone(), self.a_nocut.clone(), l]);
        match self.decide(m, Judge::Whole, a) {
            Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// Can an execution under `m` be cut by the loop bound where the cut may hide an outcome
    /// (not in an idle loop)? (Undefined behaviour allowed: an over-approximation, so a cut is
    /// never missed.)
    pub fn cut(&self, m: &Model) -> Answer<Vec<Step>> {
        if terms::is_false(&self.cut_doubt) {
            // No path of any thread takes a cut edge outside an idle loop.
            return Answer::No;
        }
        let mut a = self.model_lits(m);
        a.push(self.a_cut.clone());
        match self.decide(m, Judge::Cut, a) {
            Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// The memory model's flags a consistent complete execution under `m` raises, with
    /// witnesses (none under SC).
    pub fn flags(&self, m: &Model) -> Vec<(String, Answer<Vec<Step>>)> {
        let Some(r) = &self.relaxed else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, holds) in &r.flags {
            let mut a = self.model_lits(m);
            let l = Bool::fresh_const("query_flag");
            self.assert(&l.implies(holds));
            a.extend([self.a_noub.clone(), self.a_nocut.clone(), l]);
            let answer = match self.decide(m, Judge::Whole, a) {
                Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
                Answer::No => Answer::No,
                Answer::Unknown(why) => Answer::Unknown(why),
            };
            out.push((name.clone(), answer));
        }
        out
    }

    /// Which kinds of undefined behaviour complete executions under `m` reach, with witnesses.
    /// Kinds it could not decide come with the reason.
    pub fn undefined_behaviour(&self, m: &Model) -> Vec<(UbKind, Answer<Vec<Step>>)> {
        let mut out = Vec::new();
        for (k, l) in &self.ub_lits {
            let mut a = self.model_lits(m);
            a.extend([self.a_nocut.clone(), l.clone()]);
            match self.decide(m, Judge::Prefix, a) {
                Answer::Yes(model) => out.push((*k, Answer::Yes(self.decode(&model, m)))),
                Answer::No => {}
                Answer::Unknown(why) => out.push((*k, Answer::Unknown(why))),
            }
        }
        out
    }
}
