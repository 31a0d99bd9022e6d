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
//! Timing constraints per class, for an event of dynamic block db = (subgroup, block):
//! - synchronous: a start time S with every member's previous event before S, every member's
//!   event at or after S, and every non-member's *leaving event* for db before S;
//! - collective: members share one time G (memory: a contiguous slot [G, G+|T(db)|) that no
//!   other access to the same global enters), previous events and leaving events before G;
//! - speculative: collective without the leaving-event condition (T(db) is the final set);
//! - lazy: members issue alone; a resolution time R after every issue and every non-member's
//!   leaving event; every read of the result register comes after R;
//! - symbolic: nothing but the value constraint.
//!
//! Architecture invariant: this is the only module that talks to Z3.

pub mod schema;
pub mod synth;

use super::trace::{At, Effect, Step};
use crate::eval::{self, Domain, SgInputs, UbKind};
use crate::ir::unroll::Term;
use crate::ir::{BlockId, Observable, Op, Program, Prop, PropTerm, RegId, Target};
use crate::model::Model;
use crate::vocab::{BinOp, Builtin, Class, Kind, UnOp};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use z3::ast::{Bool, Int, BV};
use z3::{Params, SatResult, Solver};

/// A point in the execution order: an integer (difference logic, the default) or a
/// bit-vector, chosen per encoding with [`SmtOptions::time_bits`] so that the two can be
/// measured against each other (docs/benchmarks.md).
#[derive(Clone)]
enum Time {
    I(Int),
    B(BV),
}

impl Time {
    fn konst(v: i64, bits: u32) -> Time {
        if bits == 0 {
            Time::I(Int::from_i64(v))
        } else {
            Time::B(BV::from_i64(v, bits))
        }
    }
    fn cmp(&self, o: &Time, i: fn(&Int, &Int) -> Bool, b: fn(&BV, &BV) -> Bool) -> Bool {
        match (self, o) {
            (Time::I(x), Time::I(y)) => i(x, y),
            (Time::B(x), Time::B(y)) => b(x, y),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    fn lt(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a.lt(b), |a, b| a.bvslt(b))
    }
    fn le(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a.le(b), |a, b| a.bvsle(b))
    }
    fn gt(&self, o: &Time) -> Bool {
        o.lt(self)
    }
    fn ge(&self, o: &Time) -> Bool {
        o.le(self)
    }
    fn eq(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a.eq(b), |a, b| a.eq(b))
    }
    fn ite(c: &Bool, a: &Time, b: &Time) -> Time {
        match (a, b) {
            (Time::I(x), Time::I(y)) => Time::I(c.ite(x, y)),
            (Time::B(x), Time::B(y)) => Time::B(c.ite(x, y)),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    fn add(&self, o: &Time) -> Time {
        match (self, o) {
            (Time::I(x), Time::I(y)) => Time::I(x + y),
            (Time::B(x), Time::B(y)) => Time::B(x.bvadd(y)),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    fn eval(&self, m: &z3::Model) -> Option<i64> {
        match self {
            Time::I(x) => m.eval(x, true).and_then(|v| v.as_i64()),
            Time::B(x) => m.eval(x, true).and_then(|v| v.as_i64()),
        }
    }
}

/// Options for SMT queries.
#[derive(Clone, Debug)]
pub struct SmtOptions {
    /// Per solver call, in milliseconds.
    pub timeout_ms: Option<u32>,
    /// Stop enumerating outcomes after this many (the list is then incomplete).
    pub max_outcomes: usize,
    /// Timestamps as integers (0, the default: difference logic) or bit-vectors of this width.
    pub time_bits: u32,
}

impl Default for SmtOptions {
    fn default() -> Self {
        SmtOptions {
            timeout_ms: None,
            max_outcomes: 256,
            time_bits: 0,
        }
    }
}

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
    /// Why the list may be incomplete (limit or solver unknown), if it may be.
    pub incomplete: Option<String>,
}

/// A memory access event.
struct MemEv {
    thread: u32,
    block: BlockId,
    pos: u32,
    global: u32,
    index: BV,
    guard: Bool,
    ts: Time,
    read: Option<BV>,
    write: Option<BV>,
}

/// A subgroup-op call by one thread.
struct SgCall {
    thread: u32,
    /// The thread executes the call (in the block, and the instruction is present).
    member: Bool,
    args: Vec<BV>,
    res: BV,
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
    mem: Vec<MemEv>,
    observables: Vec<BV>,
    ub: Vec<(UbKind, Bool)>,
    cut_any: Bool,
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
}

/// The Z3 value domain for one thread: registers are terms, undefined behaviour is recorded
/// under the current guard.
struct Z3Dom<'a> {
    regs: &'a [BV],
    tid: u32,
    prog: &'a Program,
    guard: Vec<Bool>,
    ub: &'a mut Vec<(UbKind, Bool)>,
}

fn bv(v: u32) -> BV {
    BV::from_u64(v as u64, 32)
}

fn and(v: &[&Bool]) -> Bool {
    match v.len() {
        0 => Bool::from_bool(true),
        1 => v[0].clone(),
        _ => Bool::and(v),
    }
}

fn or(v: &[Bool]) -> Bool {
    match v.len() {
        0 => Bool::from_bool(false),
        1 => v[0].clone(),
        _ => Bool::or(v),
    }
}

impl<'a> Z3Dom<'a> {
    /// The domain of thread `tid` in a block entered under `guard`.
    fn new(
        regs: &'a [BV],
        tid: u32,
        prog: &'a Program,
        guard: &Bool,
        ub: &'a mut Vec<(UbKind, Bool)>,
    ) -> Self {
        Z3Dom {
            regs,
            tid,
            prog,
            guard: vec![guard.clone()],
            ub,
        }
    }
}

impl Domain for Z3Dom<'_> {
    type V = BV;
    type B = Bool;

    fn lit(&mut self, x: u32) -> BV {
        bv(x)
    }
    fn reg(&mut self, r: RegId) -> BV {
        self.regs[r as usize].clone()
    }
    fn builtin(&mut self, b: Builtin) -> BV {
        bv(self.prog.layout.builtin(b, self.tid))
    }
    fn konst(&mut self, b: bool) -> Bool {
        Bool::from_bool(b)
    }
    fn binop(&mut self, op: BinOp, a: &BV, b: &BV) -> BV {
        let one = bv(1);
        let zero = bv(0);
        let flag = |c: Bool| c.ite(&one, &zero);
        match op {
            BinOp::Add => a.bvadd(b),
            BinOp::Sub => a.bvsub(b),
            BinOp::Mul => a.bvmul(b),
            BinOp::Div | BinOp::Rem => {
                let refs: Vec<&Bool> = self.guard.iter().collect();
                let g = and(&refs);
                self.ub
                    .push((UbKind::DivisionByZero, and(&[&g, &b.eq(&zero)])));
                if op == BinOp::Div {
                    a.bvudiv(b)
                } else {
                    a.bvurem(b)
                }
            }
            BinOp::BitAnd => a.bvand(b),
            BinOp::BitOr => a.bvor(b),
            BinOp::BitXor => a.bvxor(b),
            BinOp::Shl => a.bvshl(b),
            BinOp::Shr => a.bvlshr(b),
            BinOp::Eq => flag(a.eq(b)),
            BinOp::Ne => flag(a.eq(b).not()),
            BinOp::Lt => flag(a.bvult(b)),
            BinOp::Le => flag(a.bvule(b)),
            BinOp::Gt => flag(a.bvugt(b)),
            BinOp::Ge => flag(a.bvuge(b)),
            BinOp::LAnd => flag(and(&[&a.eq(&zero).not(), &b.eq(&zero).not()])),
            BinOp::LOr => flag(or(&[a.eq(&zero).not(), b.eq(&zero).not()])),
        }
    }
    fn unop(&mut self, op: UnOp, a: &BV) -> BV {
        match op {
            UnOp::Neg => a.bvneg(),
            UnOp::BitNot => a.bvnot(),
            UnOp::Not => a.eq(bv(0)).ite(&bv(1), &bv(0)),
        }
    }
    fn nonzero(&mut self, a: &BV) -> Bool {
        a.eq(bv(0)).not()
    }
    fn eq(&mut self, a: &BV, b: &BV) -> Bool {
        a.eq(b)
    }
    fn ule(&mut self, a: &BV, b: &BV) -> Bool {
        a.bvule(b)
    }
    fn and(&mut self, a: &Bool, b: &Bool) -> Bool {
        and(&[a, b])
    }
    fn or(&mut self, a: &Bool, b: &Bool) -> Bool {
        or(&[a.clone(), b.clone()])
    }
    fn not(&mut self, a: &Bool) -> Bool {
        a.not()
    }
    fn ite(&mut self, c: &Bool, t: &BV, e: &BV) -> BV {
        c.ite(t, e)
    }
    fn bool_to_val(&mut self, b: &Bool) -> BV {
        b.ite(&bv(1), &bv(0))
    }
    fn guarded(
        &mut self,
        c: &Bool,
        t: &mut dyn FnMut(&mut Self) -> BV,
        e: &mut dyn FnMut(&mut Self) -> BV,
    ) -> BV {
        self.guard.push(c.clone());
        let tv = t(self);
        self.guard.pop();
        self.guard.push(c.not());
        let ev = e(self);
        self.guard.pop();
        c.ite(&tv, &ev)
    }
    fn unspecified(&mut self) -> BV {
        BV::fresh_const("unspecified", 32)
    }
}

/// Classes each kind takes in at least one of `models` (barriers: always collective).
fn classes_used(models: &[Model]) -> BTreeSet<(Kind, Class)> {
    let mut s = BTreeSet::new();
    for m in models {
        for k in Kind::MODELLED {
            s.insert((k, m.class(k)));
        }
    }
    s.insert((Kind::Barrier, Class::Collective));
    s
}

impl<'p> Encoding<'p> {
    /// Asserts the program once, with timing constraints for every class the given models use.
    pub fn new(prog: &'p Program, models: &[Model], opts: &SmtOptions) -> Encoding<'p> {
        Self::with_optional(prog, models, opts, HashMap::new())
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
    ) -> Encoding<'p> {
        let slot = optional.iter().map(|(&k, (_, j))| (k, *j)).collect();
        let present = optional.into_iter().map(|(k, (p, _))| (k, p)).collect();
        let solver = Solver::new();
        if let Some(ms) = opts.timeout_ms {
            let mut p = Params::new();
            p.set_u32("timeout", ms);
            solver.set_params(&p);
        }
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
        let mut enc = Encoding {
            prog,
            solver,
            inb: Vec::new(),
            ts: Vec::new(),
            edges: Vec::new(),
            prev_label: Vec::new(),
            written: HashMap::new(),
            mem: Vec::new(),
            observables: Vec::new(),
            ub: Vec::new(),
            cut_any: Bool::from_bool(false),
            lits,
            a_noub: Bool::new_const("assume_no_ub"),
            a_nocut: Bool::new_const("assume_no_cut"),
            a_cut: Bool::new_const("assume_cut"),
            ub_lits: BTreeMap::new(),
            time_bits: opts.time_bits,
            present,
            slot,
            defs: Vec::new(),
        };
        let lazy = used.contains(&(Kind::Sgop, Class::Lazy));
        let mut calls: BTreeMap<(u32, BlockId, u32), Vec<SgCall>> = BTreeMap::new();
        let mut resolve: HashMap<(u32, BlockId, u32), Time> = HashMap::new();
        let mut finals: Vec<Vec<BV>> = Vec::new();
        for t in 0..prog.layout.threads {
            finals.push(enc.thread(t, lazy, &mut calls, &mut resolve));
        }
        enc.sgop_values(&calls);
        enc.memory();
        enc.timing(&used, &resolve);
        enc.workgroup_barriers();
        enc.observe(&finals);
        let ub_any = or(&enc.ub.iter().map(|(_, c)| c.clone()).collect::<Vec<_>>());
        enc.solver.assert(enc.a_noub.implies(ub_any.not()));
        enc.solver.assert(enc.a_nocut.implies(enc.cut_any.not()));
        enc.solver.assert(enc.a_cut.implies(&enc.cut_any));
        for k in [
            UbKind::DivisionByZero,
            UbKind::OutOfBounds,
            UbKind::BarrierDivergence,
        ] {
            let conds: Vec<Bool> = enc
                .ub
                .iter()
                .filter(|(kk, _)| *kk == k)
                .map(|(_, c)| c.clone())
                .collect();
            if !conds.is_empty() {
                let l = Bool::new_const(format!("assume_ub_{k:?}"));
                enc.solver.assert(l.implies(or(&conds)));
                enc.ub_lits.insert(k, l);
            }
        }
        enc
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
        self.solver.assert(c.eq(def));
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
            self.solver.assert(in_b.implies(ts.gt(&ready[r as usize])));
        }
    }

    /// Symbolically executes thread `t` over the block DAG; returns its final registers.
    fn thread(
        &mut self,
        t: u32,
        lazy: bool,
        calls: &mut BTreeMap<(u32, BlockId, u32), Vec<SgCall>>,
        resolve: &mut HashMap<(u32, BlockId, u32), Time>,
    ) -> Vec<BV> {
        let prog = self.prog;
        let nb = prog.blocks.len();
        let nregs = prog.regs.len();
        let sg = prog.layout.subgroup_of(t);
        type Incoming = (Bool, Vec<BV>, Vec<Time>, Time);
        let mut incoming: Vec<Vec<Incoming>> = vec![Vec::new(); nb];
        let mut inb = Vec::with_capacity(nb);
        let mut ts_t = Vec::with_capacity(nb);
        let mut edges_t = Vec::with_capacity(nb);
        let mut prev_t = Vec::with_capacity(nb);
        let mut final_regs: Vec<BV> = vec![bv(0); nregs];
        let never = Time::konst(-1, self.time_bits);
        for b in 0..nb {
            let block = &prog.blocks[b];
            let (in_b, mut regs, mut ready, prev) = if b as BlockId == prog.entry {
                (
                    Bool::from_bool(true),
                    vec![bv(0); nregs],
                    vec![never.clone(); nregs],
                    never.clone(),
                )
            } else {
                let inc = std::mem::take(&mut incoming[b]);
                if inc.is_empty() {
                    (
                        Bool::from_bool(false),
                        vec![bv(0); nregs],
                        vec![never.clone(); nregs],
                        never.clone(),
                    )
                } else {
                    let conds: Vec<Bool> = inc.iter().map(|i| i.0.clone()).collect();
                    let (_, mut regs, mut ready, mut prev) = inc[inc.len() - 1].clone();
                    for (c, r, rd, p) in inc.iter().rev().skip(1) {
                        for k in 0..nregs {
                            regs[k] = c.ite(&r[k], &regs[k]);
                            if lazy {
                                ready[k] = Time::ite(c, &rd[k], &ready[k]);
                            }
                        }
                        prev = Time::ite(c, p, &prev);
                    }
                    (or(&conds), regs, ready, prev)
                }
            };
            let n = block.instrs.len() as u32;
            let ts: Vec<Time> = (0..=n + 1)
                .map(|k| self.time_var(format!("ts_t{t}_b{b}_p{k}")))
                .collect();
            self.solver.assert(in_b.implies(prev.lt(&ts[0])));
            for k in 0..=n as usize {
                if self.same_slot(b as BlockId, k as u32, k as u32 + 1) {
                    self.solver.assert(ts[k].eq(&ts[k + 1]));
                } else {
                    self.solver.assert(ts[k].lt(&ts[k + 1]));
                }
            }
            for (i, ins) in block.instrs.iter().enumerate() {
                let pos = i as u32 + 1;
                let ev_ts = &ts[pos as usize];
                let opt = self.present.get(&(b as BlockId, pos)).cloned();
                let on = match &opt {
                    Some(p) => and(&[&in_b, p]),
                    None => in_b.clone(),
                };
                // A register write of an optional instruction keeps the old value when absent.
                let set = |old: &BV, new: BV| match &opt {
                    Some(p) => p.ite(&new, old),
                    None => new,
                };
                let write_t = |old: &Time, new: Time| match &opt {
                    Some(p) => Time::ite(p, &new, old),
                    None => new,
                };
                if lazy {
                    self.after_ready(&on, ev_ts, &ins.op.reads(), &ready);
                }
                let mut d = Z3Dom::new(&regs, t, prog, &on, &mut self.ub);
                let key = (t, b as BlockId, pos);
                match &ins.op {
                    Op::Local { dst, value } => {
                        let v = eval::eval(&mut d, value);
                        self.written.insert(key, (*dst, v.clone()));
                        let r = *dst as usize;
                        regs[r] = set(&regs[r], v);
                        ready[r] = write_t(&ready[r], never.clone());
                    }
                    Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                        let (loc, vals): (_, Vec<&crate::ir::Expr>) = match &ins.op {
                            Op::Load { loc, .. } => (loc, vec![]),
                            Op::Store { loc, value } => (loc, vec![value]),
                            Op::Atomic { loc, args, .. } => (loc, args.iter().collect()),
                            _ => unreachable!(),
                        };
                        let index = eval::eval(&mut d, &loc.index);
                        let vals: Vec<BV> = vals.iter().map(|e| eval::eval(&mut d, e)).collect();
                        let g = &prog.globals[loc.global as usize];
                        self.ub
                            .push((UbKind::OutOfBounds, and(&[&on, &index.bvuge(bv(g.len))])));
                        let name = format!("mem_t{t}_b{b}_p{pos}");
                        let (read, write, dst) = match &ins.op {
                            Op::Load { dst, .. } => {
                                (Some(BV::new_const(name, 32)), None, Some(*dst))
                            }
                            Op::Store { .. } => (None, Some(vals[0].clone()), None),
                            Op::Atomic { dst, op, .. } => {
                                let old = BV::new_const(name, 32);
                                let mut d = Z3Dom::new(&regs, t, prog, &on, &mut self.ub);
                                let new = eval::atomic_new(&mut d, *op, &old, &vals);
                                (Some(old), Some(new), *dst)
                            }
                            _ => unreachable!(),
                        };
                        if let (Some(dst), Some(r)) = (dst, &read) {
                            self.written.insert(key, (dst, r.clone()));
                            let k = dst as usize;
                            regs[k] = set(&regs[k], r.clone());
                            ready[k] = write_t(&ready[k], never.clone());
                        }
                        self.mem.push(MemEv {
                            thread: t,
                            block: b as BlockId,
                            pos,
                            global: loc.global,
                            index,
                            guard: on.clone(),
                            ts: ev_ts.clone(),
                            read,
                            write,
                        });
                    }
                    Op::SgOp { dst, args, .. } => {
                        let args: Vec<BV> = args.iter().map(|e| eval::eval(&mut d, e)).collect();
                        let res = BV::new_const(format!("sg_t{t}_b{b}_p{pos}"), 32);
                        self.written.insert(key, (*dst, res.clone()));
                        let k = *dst as usize;
                        regs[k] = set(&regs[k], res.clone());
                        let inst = (sg, b as BlockId, pos);
                        calls.entry(inst).or_default().push(SgCall {
                            thread: t,
                            member: on.clone(),
                            args,
                            res,
                        });
                        let ready_now = if lazy {
                            let r = match resolve.get(&inst) {
                                Some(r) => r.clone(),
                                None => {
                                    let pt = self.point(b as BlockId, pos);
                                    let r = self.time_var(format!("resolve_sg{sg}_b{b}_{pt}"));
                                    resolve.insert(inst, r.clone());
                                    r
                                }
                            };
                            Time::ite(&self.lits[&(Kind::Sgop, Class::Lazy)], &r, &never)
                        } else {
                            never.clone()
                        };
                        ready[k] = write_t(&ready[k], ready_now);
                    }
                    Op::SubgroupBarrier | Op::WorkgroupBarrier => {}
                }
            }
            // The terminator.
            let term_ts = ts[n as usize + 1].clone();
            let mut out = Vec::new();
            match &block.term {
                Term::Return => {
                    for k in 0..nregs {
                        final_regs[k] = in_b.ite(&regs[k], &final_regs[k]);
                    }
                }
                Term::Jump(target) => out.push((*target, in_b.clone())),
                Term::Branch {
                    cond,
                    then_to,
                    else_to,
                } => {
                    if lazy {
                        let mut rs = Vec::new();
                        cond.regs(&mut rs);
                        self.after_ready(&in_b, &term_ts, &rs, &ready);
                    }
                    let mut d = Z3Dom::new(&regs, t, prog, &in_b, &mut self.ub);
                    let c = eval::eval(&mut d, cond).eq(bv(0)).not();
                    out.push((*then_to, and(&[&in_b, &c])));
                    out.push((*else_to, and(&[&in_b, &c.not()])));
                }
            }
            for (target, c) in &out {
                match target {
                    Target::Block(nb) => incoming[*nb as usize].push((
                        c.clone(),
                        regs.clone(),
                        ready.clone(),
                        term_ts.clone(),
                    )),
                    Target::Cut => self.cut_any = or(&[self.cut_any.clone(), c.clone()]),
                }
            }
            inb.push(in_b);
            ts_t.push(ts);
            edges_t.push(out);
            prev_t.push(prev);
        }
        self.inb.push(inb);
        self.ts.push(ts_t);
        self.edges.push(edges_t);
        self.prev_label.push(prev_t);
        final_regs
    }

    /// Subgroup-op results: each participant's value is the op over T(db) (semantics.md §5).
    fn sgop_values(&mut self, calls: &BTreeMap<(u32, BlockId, u32), Vec<SgCall>>) {
        let prog = self.prog;
        for (&(sg, b, pos), cs) in calls {
            let Op::SgOp { op, .. } = &prog.blocks[b as usize].instrs[pos as usize - 1].op else {
                unreachable!("sgop calls are at sgops")
            };
            let base = sg * prog.layout.subgroup;
            let members: Vec<Bool> = cs.iter().map(|c| c.member.clone()).collect();
            let args: Vec<Vec<BV>> = cs.iter().map(|c| c.args.clone()).collect();
            for c in cs {
                let mut d = Z3Dom {
                    regs: &[],
                    tid: c.thread,
                    prog,
                    guard: vec![],
                    ub: &mut self.ub,
                };
                let inp = SgInputs::<Z3Dom> {
                    members: &members,
                    args: &args,
                };
                let v = eval::sgop_result(&mut d, *op, &inp, c.thread - base);
                if self.present.is_empty() {
                    self.solver.assert(c.member.implies(c.res.eq(&v)));
                } else {
                    // Outside the participants the result is never read: defining it
                    // everywhere keeps it a function of the choices.
                    self.define(&c.res, &v);
                }
            }
        }
    }

    /// Sequentially consistent memory: reads-from by timestamps, accesses to one global at
    /// distinct times.
    fn memory(&mut self) {
        let prog = self.prog;
        let n = self.mem.len();
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (&self.mem[i], &self.mem[j]);
                if a.global == b.global && a.thread != b.thread {
                    self.solver
                        .assert(and(&[&a.guard, &b.guard]).implies(a.ts.eq(&b.ts).not()));
                }
            }
        }
        if !self.present.is_empty() {
            self.memory_functional();
            return;
        }
        // Reads-from, quadratically: a load reads the store whose time is its `source`, and
        // every store to the same cell before the load is at or before that source (times of
        // one global's accesses are distinct, so the source is the latest such store).
        for l in 0..n {
            let Some(val) = self.mem[l].read.clone() else {
                continue;
            };
            let ld = &self.mem[l];
            let g = &prog.globals[ld.global as usize];
            let stores = self.stores_to(ld.global, Some(l));
            let same = |s: usize| and(&[&self.mem[s].guard, &self.mem[s].index.eq(&ld.index)]);
            let source = self.time_var(format!("source_t{}_b{}_p{}", ld.thread, ld.block, ld.pos));
            let from_init = Bool::new_const(format!(
                "from_init_t{}_b{}_p{}",
                ld.thread, ld.block, ld.pos
            ));
            let mut options = vec![from_init.clone()];
            let mut init_c = vec![val.eq(init_value(g, &ld.index))];
            for &s in &stores {
                let st = &self.mem[s];
                let before = and(&[&same(s), &st.ts.lt(&ld.ts)]);
                // No store to the cell before the load when reading the initial value.
                init_c.push(before.not());
                // Every earlier store is at or before the source.
                self.solver
                    .assert(and(&[&ld.guard, &before]).implies(st.ts.le(&source)));
                let rf = Bool::new_const(format!(
                    "rf_t{}_b{}_p{}_from_t{}_b{}_p{}",
                    ld.thread, ld.block, ld.pos, st.thread, st.block, st.pos
                ));
                let w = st.write.as_ref().expect("a store");
                self.solver
                    .assert(rf.implies(and(&[&before, &val.eq(w), &source.eq(&st.ts)])));
                options.push(rf);
            }
            let refs: Vec<&Bool> = init_c.iter().collect();
            self.solver.assert(from_init.implies(and(&refs)));
            self.solver.assert(ld.guard.implies(or(&options)));
        }
    }

    /// Template mode: every loaded value is a term, the value of the latest store to the cell
    /// before the load (or the initial value), so that it follows from times and choices.
    fn memory_functional(&mut self) {
        let prog = self.prog;
        let n = self.mem.len();
        for l in 0..n {
            let Some(val) = self.mem[l].read.clone() else {
                continue;
            };
            let ld = &self.mem[l];
            let g = &prog.globals[ld.global as usize];
            let stores = self.stores_to(ld.global, Some(l));
            let before = |s: usize| {
                let st = &self.mem[s];
                and(&[&st.guard, &st.index.eq(&ld.index), &st.ts.lt(&ld.ts)])
            };
            let def = self.latest(&stores, &before, init_value(g, &ld.index));
            self.define(&val, &def);
        }
    }

    /// The stores (and atomics) to `global`, other than the access `except`.
    fn stores_to(&self, global: u32, except: Option<usize>) -> Vec<usize> {
        (0..self.mem.len())
            .filter(|&s| {
                Some(s) != except && self.mem[s].global == global && self.mem[s].write.is_some()
            })
            .collect()
    }

    /// The value written by the latest of `stores` satisfying `hits`, else `init`.
    fn latest(&self, stores: &[usize], hits: &dyn Fn(usize) -> Bool, init: BV) -> BV {
        let mut acc = init;
        for &s in stores {
            let mut c = vec![hits(s)];
            for &s2 in stores {
                if s2 != s {
                    c.push(hits(s2).implies(self.mem[s2].ts.lt(&self.mem[s].ts)));
                }
            }
            let refs: Vec<&Bool> = c.iter().collect();
            let w = self.mem[s].write.as_ref().expect("a store");
            acc = and(&refs).ite(w, &acc);
        }
        acc
    }

    /// The time of thread `w`'s leaving event for block `b`: the terminator after which `b`
    /// is no longer reachable (only meaningful when `w` does not enter `b`).
    fn leave(&self, w: u32, b: BlockId) -> Time {
        let prog = self.prog;
        let wi = w as usize;
        let mut acc = Time::konst(-1, self.time_bits);
        for p in 0..b as usize {
            if !prog.reaches(p as BlockId, b) {
                continue;
            }
            let conds: Vec<Bool> = match &prog.blocks[p].term {
                Term::Return => vec![self.inb[wi][p].clone()],
                _ => self.edges[wi][p]
                    .iter()
                    .filter(|(t, _)| match t {
                        Target::Cut => true,
                        Target::Block(t) => *t != b && !prog.reaches(*t, b),
                    })
                    .map(|(_, c)| c.clone())
                    .collect(),
            };
            if conds.is_empty() {
                continue;
            }
            let term = self.ts[wi][p].last().expect("terminator").clone();
            acc = Time::ite(&or(&conds), &term, &acc);
        }
        acc
    }

    /// Per-class timing constraints, each behind its (kind, class) literal.
    fn timing(
        &mut self,
        used: &BTreeSet<(Kind, Class)>,
        resolve: &HashMap<(u32, BlockId, u32), Time>,
    ) {
        let prog = self.prog;
        let lay = prog.layout;
        let mut leave_cache: HashMap<(u32, BlockId), Time> = HashMap::new();
        for sg in 0..lay.subgroups() {
            let threads: Vec<u32> = lay.subgroup_threads(sg).collect();
            for (b, block) in prog.blocks.iter().enumerate() {
                let bid = b as BlockId;
                let n = block.instrs.len() as u32;
                let in_block: Vec<Bool> = threads
                    .iter()
                    .map(|&u| self.inb[u as usize][b].clone())
                    .collect();
                for pos in 0..=n + 1 {
                    let members: Vec<Bool> = match self.present.get(&(bid, pos)) {
                        Some(p) => in_block.iter().map(|m| and(&[m, p])).collect(),
                        None => in_block.clone(),
                    };
                    let any = or(&members);
                    let (kind, op) = if pos == 0 {
                        (Kind::Label, None)
                    } else if pos == n + 1 {
                        (Kind::Branch, None)
                    } else {
                        let op = &block.instrs[pos as usize - 1].op;
                        (op.kind(), Some(op))
                    };
                    if matches!(op, Some(Op::WorkgroupBarrier)) || kind == Kind::Local {
                        continue;
                    }
                    let ev = |u: u32| self.ts[u as usize][b][pos as usize].clone();
                    let before = self.prev_pos(bid, pos) as usize;
                    let prev = |u: u32| {
                        if pos == 0 {
                            self.prev_label[u as usize][b].clone()
                        } else {
                            self.ts[u as usize][b][before].clone()
                        }
                    };
                    for (&(k, class), lit) in &self.lits {
                        if k != kind || !used.contains(&(k, class)) {
                            continue;
                        }
                        let leaves_before =
                            |time: &Time, cache: &mut HashMap<(u32, BlockId), Time>| -> Vec<Bool> {
                                threads
                                    .iter()
                                    .zip(&members)
                                    .map(|(&w, m)| {
                                        let l = cache
                                            .entry((w, bid))
                                            .or_insert_with(|| self.leave(w, bid))
                                            .clone();
                                        and(&[lit, &any, &m.not()]).implies(l.lt(time))
                                    })
                                    .collect()
                            };
                        let mut cs: Vec<Bool> = Vec::new();
                        match class {
                            Class::Independent | Class::Symbolic => {}
                            Class::Synchronous => {
                                let pt = self.point(bid, pos);
                                let s = self.time_var(format!("start_sg{sg}_b{b}_{pt}"));
                                for (&u, m) in threads.iter().zip(&members) {
                                    cs.push(
                                        and(&[lit, m])
                                            .implies(and(&[&s.le(&ev(u)), &prev(u).lt(&s)])),
                                    );
                                }
                                cs.extend(leaves_before(&s, &mut leave_cache));
                            }
                            Class::Collective | Class::Speculative => {
                                let pt = self.point(bid, pos);
                                let g = self.time_var(format!("group_sg{sg}_b{b}_{pt}"));
                                if kind == Kind::Memory {
                                    let cnt = members
                                        .iter()
                                        .map(|m| {
                                            Time::ite(
                                                m,
                                                &Time::konst(1, self.time_bits),
                                                &Time::konst(0, self.time_bits),
                                            )
                                        })
                                        .reduce(|a, b| a.add(&b))
                                        .expect("a subgroup has lanes");
                                    let end = g.add(&cnt);
                                    for (&u, m) in threads.iter().zip(&members) {
                                        let t = ev(u);
                                        cs.push(and(&[lit, m]).implies(and(&[
                                            &g.le(&t),
                                            &t.lt(&end),
                                            &prev(u).lt(&g),
                                        ])));
                                    }
                                    // No other access to the same global inside the slot.
                                    let global = self
                                        .mem
                                        .iter()
                                        .find(|e| e.block == bid && e.pos == pos)
                                        .map(|e| e.global);
                                    for e in &self.mem {
                                        let inside = e.block == bid
                                            && e.pos == pos
                                            && lay.subgroup_of(e.thread) == sg;
                                        if Some(e.global) == global && !inside {
                                            cs.push(
                                                and(&[lit, &any, &e.guard])
                                                    .implies(or(&[e.ts.lt(&g), e.ts.ge(&end)])),
                                            );
                                        }
                                    }
                                } else {
                                    for (&u, m) in threads.iter().zip(&members) {
                                        cs.push(and(&[lit, m]).implies(ev(u).eq(&g)));
                                    }
                                }
                                if class == Class::Collective {
                                    cs.extend(leaves_before(&g, &mut leave_cache));
                                }
                            }
                            Class::Lazy => {
                                let r = resolve[&(sg, bid, pos)].clone();
                                for (&u, m) in threads.iter().zip(&members) {
                                    cs.push(and(&[lit, m]).implies(ev(u).lt(&r)));
                                }
                                cs.extend(leaves_before(&r, &mut leave_cache));
                            }
                        }
                        for c in cs {
                            self.solver.assert(c);
                        }
                    }
                }
            }
        }
    }

    /// Workgroup barriers: the whole workgroup passes the same instance at one time; a thread
    /// without its peers is barrier divergence (undefined behaviour).
    fn workgroup_barriers(&mut self) {
        let prog = self.prog;
        let lay = prog.layout;
        for (b, block) in prog.blocks.iter().enumerate() {
            for (i, ins) in block.instrs.iter().enumerate() {
                if !matches!(ins.op, Op::WorkgroupBarrier) {
                    continue;
                }
                let pos = i + 1;
                let on = |u: u32| match self.present.get(&(b as BlockId, pos as u32)) {
                    Some(p) => and(&[&self.inb[u as usize][b], p]),
                    None => self.inb[u as usize][b].clone(),
                };
                for wg in 0..lay.threads / lay.workgroup {
                    let g = self.time_var(format!("wgbarrier_wg{wg}_b{b}_p{pos}"));
                    let ts: Vec<u32> = lay.workgroup_threads(wg).collect();
                    for &u in &ts {
                        let m = &on(u);
                        self.solver
                            .assert(m.implies(self.ts[u as usize][b][pos].eq(&g)));
                        for &v in &ts {
                            if u != v {
                                let c = and(&[m, &on(v).not()]);
                                self.ub.push((UbKind::BarrierDivergence, c));
                            }
                        }
                    }
                }
            }
        }
    }

    /// The condition's observables as terms over the final state.
    fn observe(&mut self, finals: &[Vec<BV>]) {
        let prog = self.prog;
        for o in &prog.observables {
            let term = match o {
                Observable::Reg { thread, reg } => finals[*thread as usize][*reg as usize].clone(),
                Observable::Mem { cell } => self.final_cell(*cell),
            };
            self.observables.push(term);
        }
    }

    fn final_cell(&mut self, cell: u32) -> BV {
        let prog = self.prog;
        let (gi, g) = prog
            .globals
            .iter()
            .enumerate()
            .find(|(_, g)| cell >= g.base && cell < g.base + g.len)
            .expect("observable cells exist");
        let idx = bv(cell - g.base);
        let fin = BV::new_const(format!("final_{}", prog.cell_name(cell)), 32);
        let stores = self.stores_to(gi as u32, None);
        let hits = |s: usize| and(&[&self.mem[s].guard, &self.mem[s].index.eq(&idx)]);
        let init = bv(g.init[(cell - g.base) as usize]);
        let def = self.latest(&stores, &hits, init);
        self.define(&fin, &def);
        fin
    }

    fn prop(&self, p: &Prop) -> Bool {
        let term = |t: &PropTerm| match t {
            PropTerm::Lit(v) => bv(*v),
            PropTerm::Obs(i) => self.observables[*i].clone(),
        };
        match p {
            Prop::Const(b) => Bool::from_bool(*b),
            Prop::Not(a) => self.prop(a).not(),
            Prop::And(a, b) => and(&[&self.prop(a), &self.prop(b)]),
            Prop::Or(a, b) => or(&[self.prop(a), self.prop(b)]),
            Prop::Truthy(a) => term(a).eq(bv(0)).not(),
            Prop::Cmp(op, a, b) => {
                let (a, b) = (term(a), term(b));
                match op {
                    BinOp::Eq => a.eq(&b),
                    BinOp::Ne => a.eq(&b).not(),
                    BinOp::Lt => a.bvult(&b),
                    BinOp::Le => a.bvule(&b),
                    BinOp::Gt => a.bvugt(&b),
                    BinOp::Ge => a.bvuge(&b),
                    _ => unreachable!("conditions compare"),
                }
            }
        }
    }

    fn model_lits(&self, m: &Model) -> Vec<Bool> {
        let mut v: Vec<Bool> = Kind::MODELLED
            .iter()
            .map(|&k| self.lits[&(k, m.class(k))].clone())
            .collect();
        v.push(self.lits[&(Kind::Barrier, Class::Collective)].clone());
        v
    }

    fn check(&self, assumptions: &[Bool]) -> Answer<z3::Model> {
        match self.solver.check_assumptions(assumptions) {
            SatResult::Sat => Answer::Yes(self.solver.get_model().expect("sat has a model")),
            SatResult::Unsat => Answer::No,
            SatResult::Unknown => Answer::Unknown(
                self.solver
                    .get_reason_unknown()
                    .unwrap_or_else(|| "the solver gave up".into()),
            ),
        }
    }

    /// Is an outcome satisfying the condition reachable under `m` (complete, no undefined
    /// behaviour, not cut)? With a witness trace.
    pub fn allowed(&self, m: &Model) -> Answer<Vec<Step>> {
        let p = Bool::fresh_const("query_prop");
        self.solver.assert(p.implies(self.prop(&self.prog.prop)));
        let mut a = self.model_lits(m);
        a.extend([self.a_noub.clone(), self.a_nocut.clone(), p]);
        match self.check(&a) {
            Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
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

    /// The outcomes under `m` other than those in `except`; with `only_p`, only those that
    /// satisfy the condition's proposition.
    pub fn outcomes_where(
        &self,
        m: &Model,
        except: &[Vec<u32>],
        max: usize,
        only_p: bool,
    ) -> SmtOutcomes {
        let mut a = self.model_lits(m);
        a.extend([self.a_noub.clone(), self.a_nocut.clone()]);
        if only_p {
            let p = Bool::fresh_const("query_prop");
            self.solver.assert(p.implies(self.prop(&self.prog.prop)));
            a.push(p);
        }
        let mut outcomes = Vec::new();
        let mut blocks: Vec<Bool> = except.iter().map(|v| self.block_outcome(v)).collect();
        let incomplete = loop {
            if outcomes.len() >= max {
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
                    blocks.push(self.block_outcome(&vals));
                    outcomes.push(vals);
                    if self.observables.is_empty() {
                        break None;
                    }
                }
            }
        };
        outcomes.sort();
        SmtOutcomes {
            outcomes,
            incomplete,
        }
    }

    /// The observables equal `vals`.
    fn is_outcome(&self, vals: &[u32]) -> Bool {
        let same: Vec<Bool> = self
            .observables
            .iter()
            .zip(vals)
            .map(|(o, v)| o.eq(bv(*v)))
            .collect();
        let refs: Vec<&Bool> = same.iter().collect();
        and(&refs)
    }

    /// A literal that, assumed, excludes the outcome `vals`.
    fn block_outcome(&self, vals: &[u32]) -> Bool {
        let blk = Bool::fresh_const("block_outcome");
        self.solver.assert(blk.implies(self.is_outcome(vals).not()));
        blk
    }

    /// Is exactly the outcome `vals` reachable under `m`? With a witness.
    pub fn reaches(&self, m: &Model, vals: &[u32]) -> Answer<Vec<Step>> {
        let l = Bool::fresh_const("query_outcome");
        self.solver.assert(l.implies(self.is_outcome(vals)));
        let mut a = self.model_lits(m);
        a.extend([self.a_noub.clone(), self.a_nocut.clone(), l]);
        match self.check(&a) {
            Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// Can an execution under `m` be cut by the loop bound? (Undefined behaviour allowed: an
    /// over-approximation, so a cut is never missed.)
    pub fn cut(&self, m: &Model) -> Answer<Vec<Step>> {
        let mut a = self.model_lits(m);
        a.push(self.a_cut.clone());
        match self.check(&a) {
            Answer::Yes(model) => Answer::Yes(self.decode(&model, m)),
            Answer::No => Answer::No,
            Answer::Unknown(r) => Answer::Unknown(r),
        }
    }

    /// Which kinds of undefined behaviour complete executions under `m` reach, with witnesses.
    pub fn undefined_behaviour(&self, m: &Model) -> Vec<(UbKind, Vec<Step>)> {
        let mut out = Vec::new();
        for (k, l) in &self.ub_lits {
            let mut a = self.model_lits(m);
            a.extend([self.a_nocut.clone(), l.clone()]);
            if let Answer::Yes(model) = self.check(&a) {
                out.push((*k, self.decode(&model, m)));
            }
        }
        out
    }

    /// Turns a Z3 model into a witness trace: events ordered by time, collective groups merged.
    fn decode(&self, model: &z3::Model, m: &Model) -> Vec<Step> {
        let prog = self.prog;
        let mut events: Vec<(i64, u32, BlockId, u32)> = Vec::new();
        for t in 0..prog.layout.threads {
            for (b, block) in prog.blocks.iter().enumerate() {
                if !model_bool(model, &self.inb[t as usize][b]) {
                    continue;
                }
                for pos in 0..=block.instrs.len() as u32 + 1 {
                    if let Some(p) = self.present.get(&(b as BlockId, pos)) {
                        if !model_bool(model, p) {
                            continue;
                        }
                    }
                    let ts = self.ts[t as usize][b][pos as usize]
                        .eval(model)
                        .unwrap_or(0);
                    events.push((ts, t, b as BlockId, pos));
                }
            }
        }
        events.sort();
        let mut steps: Vec<Step> = Vec::new();
        for (ts, t, b, pos) in events {
            let block = &prog.blocks[b as usize];
            let n = block.instrs.len() as u32;
            let (kind, at) = if pos == 0 {
                (Kind::Label, At::Label)
            } else if pos == n + 1 {
                (Kind::Branch, At::Term)
            } else {
                (block.instrs[pos as usize - 1].op.kind(), At::Instr(pos - 1))
            };
            let grouped = matches!(m.class(kind), Class::Collective | Class::Speculative)
                && kind != Kind::Memory;
            let sg = prog.layout.subgroup_of(t);
            let effects = self.effects(model, t, b, pos);
            if let Some(last) = steps.last_mut() {
                let same_group = grouped
                    && last.block == b
                    && last.at == at
                    && prog.layout.subgroup_of(last.threads[0]) == sg
                    && last_ts_eq(&self.ts, model, last, ts);
                if same_group {
                    last.threads.push(t);
                    last.effects.extend(effects);
                    continue;
                }
            }
            steps.push(Step {
                threads: vec![t],
                block: b,
                at,
                effects,
            });
        }
        steps
    }

    fn effects(&self, model: &z3::Model, t: u32, b: BlockId, pos: u32) -> Vec<Effect> {
        let prog = self.prog;
        let block = &prog.blocks[b as usize];
        let n = block.instrs.len() as u32;
        let mut out = Vec::new();
        if pos == n + 1 {
            match &block.term {
                Term::Return => out.push(Effect::Done { thread: t }),
                _ => {
                    for (target, c) in &self.edges[t as usize][b as usize] {
                        if model_bool(model, c) {
                            out.push(Effect::Goto {
                                thread: t,
                                target: *target,
                            });
                        }
                    }
                }
            }
            return out;
        }
        if let Some(e) = self
            .mem
            .iter()
            .find(|e| e.thread == t && e.block == b && e.pos == pos)
        {
            let g = &prog.globals[e.global as usize];
            let cell = g.base + model_u32(model, &e.index).min(g.len.saturating_sub(1));
            match (&e.read, &e.write) {
                (Some(r), Some(w)) => out.push(Effect::Rmw {
                    thread: t,
                    cell,
                    old: model_u32(model, r),
                    new: model_u32(model, w),
                }),
                (Some(r), None) => {
                    let reg = self.written.get(&(t, b, pos)).map_or(0, |w| w.0);
                    out.push(Effect::Read {
                        thread: t,
                        reg,
                        cell,
                        value: model_u32(model, r),
                    })
                }
                (None, Some(w)) => out.push(Effect::Write {
                    thread: t,
                    cell,
                    value: model_u32(model, w),
                }),
                (None, None) => {}
            }
            return out;
        }
        if let Some((reg, v)) = self.written.get(&(t, b, pos)) {
            out.push(Effect::Reg {
                thread: t,
                reg: *reg,
                value: model_u32(model, v),
            });
        }
        out
    }
}

fn last_ts_eq(ts: &[Vec<Vec<Time>>], model: &z3::Model, last: &Step, t: i64) -> bool {
    let pos = match last.at {
        At::Label => 0,
        At::Instr(i) => i as usize + 1,
        At::Term | At::Resolve(_) => ts[last.threads[0] as usize][last.block as usize].len() - 1,
    };
    ts[last.threads[0] as usize][last.block as usize][pos].eval(model) == Some(t)
}

fn init_value(g: &crate::ir::GlobalInfo, index: &BV) -> BV {
    let mut acc = bv(0);
    for (k, v) in g.init.iter().enumerate().rev() {
        acc = index.eq(bv(k as u32)).ite(&bv(*v), &acc);
    }
    acc
}

fn model_u32(model: &z3::Model, v: &BV) -> u32 {
    model.eval(v, true).and_then(|x| x.as_u64()).unwrap_or(0) as u32
}

fn model_bool(model: &z3::Model, b: &Bool) -> bool {
    model
        .eval(b, true)
        .and_then(|x| x.as_bool())
        .unwrap_or(false)
}
