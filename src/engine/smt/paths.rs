//! Paths and registers: which blocks each thread runs and what its registers hold.
//!
//! The threads are executed symbolically together, block by block in topological order and,
//! inside a block, instruction by instruction across threads. So when a subgroup op is
//! reached, every lane's membership and arguments are known terms, and with the folding of
//! [`super::terms`] the op's result is often a constant (a ballot over lanes whose paths are
//! fixed, an elect in a loop every lane leaves in turn). A block a thread cannot enter (its
//! guard folds to `false`) gets no variables and no constraints for that thread: this is the
//! pruning of unreachable block instances, and for loops with per-thread trip counts it is
//! the exact per-loop bound (iterations past the count fold away, and so does the cut).

use super::memory::init_value;
use super::terms::{and, bv, eq, implies, is_false, ite, not, num, or, Z3Dom};
use super::time::Time;
use super::{Encoding, MemEv};
use crate::budget::Budget;
use crate::budget::Exhausted;
use crate::eval::{self, SgInputs, UbKind};
use crate::ir::Term;
use crate::ir::{BlockId, Op, Target};
use crate::vocab::{Kind, Members};
use std::collections::HashMap;
use z3::ast::{Bool, BV};

/// What flows along an edge into a block: the condition of taking it, the registers, the
/// readiness times of the registers (Lazy) and the time of the branch.
type Incoming = (Bool, Vec<BV>, Vec<Time>, Time);

/// One thread's state inside the block being executed.
struct Live {
    on: Bool,
    regs: Vec<BV>,
    ready: Vec<Time>,
}

impl<'p> Encoding<'p> {
    /// Executes every thread; returns the final registers of each and the lazy resolution
    /// times of each (subgroup, block, position).
    #[allow(clippy::type_complexity)]
    pub(super) fn paths(
        &mut self,
        lazy: bool,
        budget: &Budget,
    ) -> Result<(Vec<Vec<BV>>, HashMap<(u32, BlockId, u32), Time>), Exhausted> {
        let prog = self.prog;
        let nb = prog.blocks.len();
        let nt = prog.layout.threads as usize;
        let nregs = prog.regs.len();
        let never = Time::konst(-1, self.time_bits);
        let mut incoming: Vec<HashMap<usize, Vec<Incoming>>> = vec![HashMap::new(); nt];
        let mut finals: Vec<Vec<BV>> = vec![vec![bv(0); nregs]; nt];
        let mut resolve: HashMap<(u32, BlockId, u32), Time> = HashMap::new();
        self.inb = vec![Vec::with_capacity(nb); nt];
        self.ts = vec![Vec::with_capacity(nb); nt];
        self.edges = vec![Vec::with_capacity(nb); nt];
        self.prev_label = vec![Vec::with_capacity(nb); nt];
        for b in 0..nb {
            budget.check("encoding the program's paths")?;
            let block = &prog.blocks[b];
            let bid = b as BlockId;
            let n = block.instrs.len() as u32;
            // Entry: merge what flows in (phis), or nothing when no edge can be taken.
            let mut live: Vec<Option<Live>> = Vec::with_capacity(nt);
            for (t, inc_t) in incoming.iter_mut().enumerate() {
                let entered = if bid == prog.entry {
                    Some((
                        Bool::from_bool(true),
                        vec![bv(0); nregs],
                        vec![never.clone(); nregs],
                        never.clone(),
                    ))
                } else {
                    let inc: Vec<Incoming> = inc_t
                        .remove(&b)
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|i| !is_false(&i.0))
                        .collect();
                    merge(inc, lazy)
                };
                let Some((in_b, regs, ready, prev)) = entered else {
                    self.inb[t].push(Bool::from_bool(false));
                    self.ts[t].push(vec![never.clone(); n as usize + 2]);
                    self.edges[t].push(Vec::new());
                    self.prev_label[t].push(never.clone());
                    live.push(None);
                    continue;
                };
                let ts: Vec<Time> = (0..=n + 1)
                    .map(|k| self.time_var(format!("ts_t{t}_b{b}_p{k}")))
                    .collect();
                self.assert(&implies(&in_b, &prev.lt(&ts[0])));
                for k in 0..=n as usize {
                    if self.same_slot(bid, k as u32, k as u32 + 1) {
                        self.assert(&ts[k].eq(&ts[k + 1]));
                    } else {
                        self.assert(&ts[k].lt(&ts[k + 1]));
                    }
                }
                if self.liveness && block.role == crate::ir::cfg::Role::LoopHeader {
                    self.header_regs.insert((t as u32, bid), regs.clone());
                }
                self.inb[t].push(in_b.clone());
                self.ts[t].push(ts);
                self.prev_label[t].push(prev);
                live.push(Some(Live {
                    on: in_b,
                    regs,
                    ready,
                }));
            }
            for (i, ins) in block.instrs.iter().enumerate() {
                let pos = i as u32 + 1;
                let opt = self.present.get(&(bid, pos)).cloned();
                if let Op::SgOp { .. } = &ins.op {
                    self.sgop(bid, pos, &opt, &mut live, lazy, &mut resolve);
                    continue;
                }
                for (t, l) in live.iter_mut().enumerate() {
                    let Some(l) = l else { continue };
                    let before = self.ub.len();
                    self.instr(t as u32, bid, pos, &opt, l, lazy);
                    self.ub_at_event(before, t as u32, bid, pos);
                }
            }
            // The terminator.
            for (t, l) in live.into_iter().enumerate() {
                let Some(l) = l else { continue };
                let term_ts = self.ts[t][b][n as usize + 1].clone();
                let mut out = Vec::new();
                match &block.term {
                    Term::Return => {
                        for (k, f) in finals[t].iter_mut().enumerate() {
                            *f = ite(&l.on, &l.regs[k], f);
                        }
                    }
                    Term::Jump(target) => out.push((*target, l.on.clone())),
                    Term::Branch {
                        cond,
                        then_to,
                        else_to,
                    } => {
                        if lazy {
                            let mut rs = Vec::new();
                            cond.regs(&mut rs);
                            self.after_ready(&l.on, &term_ts, &rs, &l.ready);
                        }
                        let before = self.ub.len();
                        let mut d = Z3Dom::new(&l.regs, t as u32, prog, &l.on, &mut self.ub);
                        let v = eval::eval(&mut d, cond);
                        self.ub_at_event(before, t as u32, bid, n + 1);
                        let c = not(&eq(&v, &bv(0)));
                        out.push((*then_to, and(&[&l.on, &c])));
                        out.push((*else_to, and(&[&l.on, &not(&c)])));
                    }
                }
                out.retain(|(_, c)| !is_false(c));
                for (target, c) in &out {
                    match target {
                        Target::Block(to) => incoming[t].entry(*to as usize).or_default().push((
                            c.clone(),
                            l.regs.clone(),
                            l.ready.clone(),
                            term_ts.clone(),
                        )),
                        Target::Cut => {
                            self.cut_any = or(&[self.cut_any.clone(), c.clone()]);
                            self.cut_thread[t] = or(&[self.cut_thread[t].clone(), c.clone()]);
                            if prog.partly_idle_loop(bid).is_some() {
                                self.round_cuts.push((t as u32, bid, c.clone()));
                            } else if !prog.idle_cut(bid) {
                                self.cut_doubt = or(&[self.cut_doubt.clone(), c.clone()]);
                            }
                        }
                    }
                }
                self.edges[t].push(out);
            }
        }
        self.partly_idle_doubts();
        Ok((finals, resolve))
    }

    /// The cuts in partly idle loops that may hide an outcome (docs/progress.md, "Idle
    /// iterations"): those of runs in which fewer than [`crate::ir::Program::idle_rounds`]
    /// iterations of the cut loop instance were idle for the cut thread's subgroup. An
    /// iteration is idle when some lane of the subgroup began it and every lane that began
    /// it went round, running no busy block.
    fn partly_idle_doubts(&mut self) {
        let prog = self.prog;
        for (t, bid, c) in std::mem::take(&mut self.round_cuts) {
            let rounds = prog.rounds_of(bid);
            let lanes = prog.layout.subgroup_threads(prog.layout.subgroup_of(t));
            // The last instance is the header past the bound, where the cut is: not an
            // iteration.
            let full = &rounds[..rounds.len() - 1];
            let idle: Vec<Bool> = (full.iter().enumerate())
                .map(|(k, blocks)| {
                    let began = |u: u32| self.inb[u as usize][blocks[0] as usize].clone();
                    let round = |u: u32| self.inb[u as usize][rounds[k + 1][0] as usize].clone();
                    let busy = |u: u32| -> Bool {
                        let on: Vec<Bool> = (blocks.iter())
                            .filter(|&&b| prog.busy(b))
                            .map(|&b| self.inb[u as usize][b as usize].clone())
                            .collect();
                        or(&on)
                    };
                    let someone: Vec<Bool> = lanes.clone().map(began).collect();
                    let each: Vec<Bool> = (lanes.clone())
                        .map(|u| implies(&began(u), &and(&[&round(u), &not(&busy(u))])))
                        .collect();
                    and(&[&or(&someone), &and(&each.iter().collect::<Vec<_>>())])
                })
                .collect();
            let enough = at_least(&idle, prog.idle_rounds());
            let doubt = and(&[&c, &not(&enough)]);
            self.cut_doubt = or(&[self.cut_doubt.clone(), doubt]);
        }
    }

    /// Liveness: the undefined behaviour recorded since `before` happens at this event (a hang
    /// must reach its loop without any).
    fn ub_at_event(&mut self, before: usize, t: u32, b: BlockId, pos: u32) {
        if self.liveness {
            for i in before..self.ub.len() {
                self.ub_at.insert(i, (t, b, pos));
            }
        }
    }

    /// One thread's non-collective instruction: local arithmetic or a memory access.
    fn instr(
        &mut self,
        t: u32,
        b: BlockId,
        pos: u32,
        opt: &Option<Bool>,
        l: &mut Live,
        lazy: bool,
    ) {
        let prog = self.prog;
        let ins = &prog.blocks[b as usize].instrs[pos as usize - 1];
        let on = match opt {
            Some(p) => and(&[&l.on, p]),
            None => l.on.clone(),
        };
        if is_false(&on) {
            return;
        }
        let ev_ts = self.ts[t as usize][b as usize][pos as usize].clone();
        let never = Time::konst(-1, self.time_bits);
        if lazy {
            self.after_ready(&on, &ev_ts, &ins.op.reads(), &l.ready);
        }
        let key = (t, b, pos);
        let mut d = Z3Dom::new(&l.regs, t, prog, &on, &mut self.ub);
        match &ins.op {
            Op::Local { dst, value } => {
                let v = eval::eval(&mut d, value);
                self.written.insert(key, (*dst, v.clone()));
                write(l, opt, *dst, v, never);
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
                // Out of bounds is undefined behaviour: the access itself never happens.
                let in_bounds = super::terms::ult(&index, &bv(g.len));
                let oob = and(&[&on, &not(&in_bounds)]);
                if !is_false(&oob) {
                    self.ub.push((UbKind::OutOfBounds, oob));
                }
                let name = format!("mem_t{t}_b{b}_p{pos}");
                let always = Bool::from_bool(true);
                let (read, write_v, dst, stores) = match &ins.op {
                    // A global nobody writes reads its initial value (often a constant).
                    Op::Load { dst, .. } if self.read_only[loc.global as usize] => {
                        (Some(init_value(g, &index)), None, Some(*dst), always)
                    }
                    Op::Load { dst, .. } => {
                        (Some(BV::new_const(name, 32)), None, Some(*dst), always)
                    }
                    Op::Store { .. } => (None, Some(vals[0].clone()), None, always),
                    Op::Atomic { dst, op, .. } => {
                        let old = BV::new_const(name, 32);
                        let mut d = Z3Dom::new(&l.regs, t, prog, &on, &mut self.ub);
                        let new = eval::atomic_new(&mut d, *op, &old, &vals);
                        let stores = eval::atomic_stores(&mut d, *op, &old, &vals);
                        (Some(old), Some(new), *dst, stores)
                    }
                    _ => unreachable!(),
                };
                let cell = num(&index).filter(|&i| i < g.len);
                self.mem.push(MemEv {
                    thread: t,
                    block: b,
                    pos,
                    global: loc.global,
                    index,
                    cell,
                    guard: on,
                    ts: ev_ts,
                    read: read.clone(),
                    write: write_v,
                    stores,
                    in_bounds,
                });
                if let (Some(dst), Some(r)) = (dst, read) {
                    self.written.insert(key, (dst, r.clone()));
                    write(l, opt, dst, r, never);
                }
            }
            Op::SgOp { .. } => unreachable!("subgroup ops are executed across threads"),
            Op::Fence { id: Some(e) } => {
                let v = eval::eval(&mut d, e);
                self.fence_ids.insert(key, v);
            }
            Op::Unreachable => self.ub.push((UbKind::Unreachable, on)),
            Op::SubgroupBarrier
            | Op::WorkgroupBarrier
            | Op::QuorumBarrier { .. }
            | Op::Fence { id: None } => {}
        }
    }

    /// A subgroup op, for every subgroup at once: each participant's value is the op over
    /// T(db) and the participants' arguments (docs/semantics.md §5, `eval::sgop_result`). When
    /// memberships and arguments are constants, so is the result, and no variable is made.
    fn sgop(
        &mut self,
        b: BlockId,
        pos: u32,
        opt: &Option<Bool>,
        live: &mut [Option<Live>],
        lazy: bool,
        resolve: &mut HashMap<(u32, BlockId, u32), Time>,
    ) {
        let prog = self.prog;
        let lay = prog.layout;
        let Op::SgOp { dst, op, args } = &prog.blocks[b as usize].instrs[pos as usize - 1].op
        else {
            unreachable!("called at a subgroup op")
        };
        let never = Time::konst(-1, self.time_bits);
        for sg in 0..lay.subgroups() {
            let threads: Vec<u32> = lay.subgroup_threads(sg).collect();
            let mut members = Vec::with_capacity(threads.len());
            let mut argv = Vec::with_capacity(threads.len());
            for &t in &threads {
                match &live[t as usize] {
                    Some(l) => {
                        let mut on = match opt {
                            Some(p) => and(&[&l.on, p]),
                            None => l.on.clone(),
                        };
                        // Liveness under Symb: a participant entered the block before the
                        // horizon (after it, nobody enters: `engine::classes_covered`).
                        if let (true, Some(h)) = (self.limit_members, &self.horizon) {
                            let label = &self.ts[t as usize][b as usize][0];
                            on = and(&[&on, &label.lt(h)]);
                        }
                        if lazy && !is_false(&on) {
                            let ev = &self.ts[t as usize][b as usize][pos as usize];
                            let reads = prog.blocks[b as usize].instrs[pos as usize - 1].op.reads();
                            self.after_ready(&on, ev, &reads, &l.ready);
                        }
                        let before = self.ub.len();
                        let mut d = Z3Dom::new(&l.regs, t, prog, &on, &mut self.ub);
                        argv.push(args.iter().map(|e| eval::eval(&mut d, e)).collect());
                        self.ub_at_event(before, t, b, pos);
                        members.push(on);
                    }
                    None => {
                        argv.push(vec![bv(0); args.len()]);
                        members.push(Bool::from_bool(false));
                    }
                }
            }
            if members.iter().all(is_false) {
                continue;
            }
            let inst = (sg, b, pos);
            let ready_now = if lazy {
                let pt = self.point(b, pos);
                let r = self.time_var(format!("resolve_sg{sg}_b{b}_{pt}"));
                resolve.insert(inst, r.clone());
                let resolving = self.classes_where(Kind::Sgop, |r| r.members == Members::Resolve);
                Time::ite(&resolving, &r, &never)
            } else {
                never.clone()
            };
            let base = lay.subgroup_threads(sg).start;
            for (j, &t) in threads.iter().enumerate() {
                if is_false(&members[j]) {
                    continue;
                }
                let before = self.ub.len();
                let mut d = Z3Dom {
                    regs: &[],
                    tid: t,
                    prog,
                    guard: vec![],
                    ub: &mut self.ub,
                };
                let inp = SgInputs::<Z3Dom> {
                    members: &members,
                    args: &argv,
                };
                let v = eval::sgop_result(&mut d, *op, &inp, t - base);
                self.ub_at_event(before, t, b, pos);
                let res = if self.free_symbolic {
                    // Liveness's over-approximation under Symb: the lane's own argument
                    // counts, every other lane may or may not take part, with any argument
                    // (it may join only past the bound, or in an iteration a shorter run
                    // leaves out). Exact when the subgroup has one lane.
                    let res = BV::new_const(format!("sg_t{t}_b{b}_p{pos}"), 32);
                    let mut others = Vec::new();
                    let mut mem = Vec::with_capacity(threads.len());
                    let mut arg = Vec::with_capacity(threads.len());
                    for (i, &u) in threads.iter().enumerate() {
                        // (Even a lane that cannot reach this block: dropping iterations
                        // renumbers instances, and reachability may differ per iteration.)
                        if i == j {
                            mem.push(members[j].clone());
                            arg.push(argv[j].clone());
                        } else {
                            let bit = Bool::fresh_const(&format!("sg_join_t{t}_b{b}_p{pos}_u{u}"));
                            others.push((u, bit.clone()));
                            mem.push(bit);
                            arg.push(
                                (0..args.len())
                                    .map(|k| BV::fresh_const(&format!("sg_arg_u{u}_{k}"), 32))
                                    .collect(),
                            );
                        }
                    }
                    let inp = SgInputs::<Z3Dom> {
                        members: &mem,
                        args: &arg,
                    };
                    // (Subgroup ops meet no undefined behaviour: an absent lane's value is
                    // unspecified, which the free arguments already are.)
                    let mut none = Vec::new();
                    let mut d = Z3Dom {
                        regs: &[],
                        tid: t,
                        prog,
                        guard: vec![],
                        ub: &mut none,
                    };
                    let free = eval::sgop_result(&mut d, *op, &inp, t - base);
                    self.assert(&implies(&members[j], &res.eq(&free)));
                    self.joins.insert((t, b, pos), others);
                    res
                } else if !self.present.is_empty() {
                    // Template mode: defined everywhere, so it is a function of the choices.
                    let res = BV::new_const(format!("sg_t{t}_b{b}_p{pos}"), 32);
                    self.define(&res, &v);
                    res
                } else if num(&v).is_some() {
                    v
                } else {
                    let res = BV::new_const(format!("sg_t{t}_b{b}_p{pos}"), 32);
                    self.assert(&implies(&members[j], &res.eq(&v)));
                    res
                };
                self.written.insert((t, b, pos), (*dst, res.clone()));
                let l = live[t as usize].as_mut().expect("a member is live");
                write(l, opt, *dst, res, ready_now.clone());
            }
        }
    }
}

/// Merges the edges into a block: the block is entered when one is taken, and registers are
/// those of the edge taken. `None` when no edge can be taken.
fn merge(inc: Vec<Incoming>, lazy: bool) -> Option<(Bool, Vec<BV>, Vec<Time>, Time)> {
    let (_, mut regs, mut ready, mut prev) = inc.last()?.clone();
    for (c, r, rd, p) in inc.iter().rev().skip(1) {
        for k in 0..regs.len() {
            regs[k] = ite(c, &r[k], &regs[k]);
            if lazy {
                ready[k] = Time::ite(c, &rd[k], &ready[k]);
            }
        }
        prev = Time::ite(c, p, &prev);
    }
    let conds: Vec<Bool> = inc.into_iter().map(|i| i.0).collect();
    Some((or(&conds), regs, ready, prev))
}

/// A register write; an optional (template) instruction keeps the old value when absent.
fn write(l: &mut Live, opt: &Option<Bool>, dst: u32, v: BV, ready: Time) {
    let k = dst as usize;
    match opt {
        Some(p) => {
            l.regs[k] = ite(p, &v, &l.regs[k]);
            l.ready[k] = Time::ite(p, &ready, &l.ready[k]);
        }
        None => {
            l.regs[k] = v;
            l.ready[k] = ready;
        }
    }
}

/// At least `k` of `lits` hold (a sequential counter; `k` is 1 or 2 here).
fn at_least(lits: &[Bool], k: u32) -> Bool {
    // reach[j]: at least j of the literals seen so far hold.
    let mut reach: Vec<Bool> = vec![Bool::from_bool(true)];
    reach.extend((0..k).map(|_| Bool::from_bool(false)));
    for l in lits {
        for j in (1..=k as usize).rev() {
            reach[j] = or(&[reach[j].clone(), and(&[&reach[j - 1], l])]);
        }
    }
    reach[k as usize].clone()
}
