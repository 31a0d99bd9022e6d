//! Relaxed memory in the Z3 encoding: a cat model judged symbolically over the unrolled
//! program's events.
//!
//! Under a memory model other than SC, times no longer decide what a read returns. Instead,
//! as in herd and Dartagnan:
//! - every read chooses its source among the writes that may alias it (`rf`, one Boolean per
//!   pair, exactly one when the read happens) and returns its value;
//! - every location's writes get a coherence order (`co`: an integer clock per write, the
//!   initial write first), and a location's final value is its coherence-last write;
//! - the base sets and relations of docs/memory-models.md are terms over the events' guards
//!   ([`crate::memory::base`] gives the rules, shared with the concrete back end), and the
//!   cat model, run by the same interpreter over [`Sym`], gives one term per check; the
//!   axioms are asserted behind the literal `a_cat`.
//!
//! Values never come out of thin air, as in the explorer: reads return values from a set G
//! that starts with the initial values and 0 and grows with every value a write performs in a
//! run whose earlier reads returned values of G, until nothing new appears. G grows per
//! execution model by asking the solver for such a write of a value outside G (reads-from left
//! out: only the schedule and the values matter), but only as far as a query needs: each
//! query is first asked without G (an over-approximation) and with the part of G grown so far
//! (an under-approximation), and G grows only while the two disagree ([`Encoding::decide`]).

use super::cat::Sym;
use super::terms::{and, at_most_one, bv, eq, implies, is_false, known, konst, not, or};
use super::time::Time;
use super::{Answer, Encoding};
use crate::budget::{Budget, Exhausted};
use crate::cat::interp;
use crate::ir::{BlockId, Op};
use crate::memory::base::{self, EventInfo, EventKind};
use crate::memory::MemoryModel;
use crate::model::Model;
use crate::vocab::{Kind, TimingRule};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use std::sync::Arc;
use z3::ast::{Bool, Int, BV};

/// Rounds of growing the value set before the answer is `unknown` (the explorer's bound).
const MAX_ROUNDS: usize = 16;
/// Values in the set before the answer is `unknown`.
const MAX_VALUES: usize = 1024;

/// One event of the cat model.
struct CatEv {
    info: EventInfo,
    guard: Bool,
    /// An access: its global, cell index (a term) and the value read or written.
    global: Option<u32>,
    index: Option<BV>,
    cell: Option<u32>,
    value: Option<BV>,
    /// The access it is a half of (`Encoding::mem`).
    mem: Option<usize>,
    ts: Option<Time>,
    kind: Kind,
    /// A quorum barrier: when it passed in the step that opened it (`base::sinst` meets
    /// only those).
    released: Option<Bool>,
    /// A fence with a run-time id: the id (`base::sinst` meets only equal ones).
    id: Option<BV>,
}

pub(super) struct Relaxed {
    evs: Vec<CatEv>,
    /// Coherence clock of each write event (initial writes: 0).
    clock: HashMap<usize, Int>,
    /// The coherence order: one term per pair of writes that may share a cell.
    co: BTreeMap<(u32, u32), Bool>,
    /// Coherence is only a partial order (several writes may be coherence-last).
    partial: bool,
    /// Assumed: the execution satisfies every axiom of the model (implies `a_rf` and each
    /// axiom's literal).
    pub a_cat: Bool,
    /// Each axiom (by its cat name, or its check and position) behind its own literal.
    axioms: Vec<(String, Bool)>,
    /// The reads-from choices: (write event, read event, variable).
    rf_vars: Vec<(usize, usize, Bool)>,
    /// Per (write, read) event pair that may be in reads-from: the condition (same cell, same
    /// value).
    rf_cond: HashMap<(usize, usize), Bool>,
    /// Assumed: every read that happens reads from a write of its value.
    a_rf: Bool,
    /// Assumed, for a run cut short by the loop bound: every read that happens reads from a
    /// write of its value, or from a write another thread performs after its own cut
    /// (load buffering past the bound: no `rf` pair).
    a_rf_later: Bool,
    /// Per read that may read a write after another thread's cut: the variable saying it
    /// does (false unless `a_rf_later`).
    later: HashMap<usize, Bool>,
    /// The model's flags: the condition under which each is raised.
    pub flags: Vec<(String, Bool)>,
    /// Why the model could not be encoded (a type error in it), if it could not.
    error: Option<String>,
    /// Per execution model: its value set G, as far as it has grown.
    guesses: RefCell<HashMap<String, Guesses>>,
    /// Per thread read (in event order): whether it returns its cell's initial value, and
    /// a source time (`Encoding::source_time`), made once for every round of growing G.
    sources: RefCell<Option<Vec<(Bool, Bool, Time)>>>,
    /// The axioms a run cut short must satisfy ([`crate::cat::prefix`]), encoded on the
    /// first query that needs them.
    prefix: RefCell<Prefix>,
}

/// Liveness: the windows of writes a hang may repeat, each behind its selector (one per
/// thread, header and period, [`Encoding::repeated`]).
#[derive(Default)]
pub(super) struct Windows {
    /// Per access (`Encoding::mem`): the windows whose infix holds it, with its twin in
    /// their suffix (the same access one period later).
    pub infix: HashMap<usize, Vec<(Bool, usize)>>,
    /// Per access: the windows whose suffix holds it.
    pub suffix: HashMap<usize, Vec<Bool>>,
}

impl Windows {
    /// A window selected by `sel`: its (infix access, suffix twin) pairs and every access of
    /// its suffix.
    pub fn add(
        &mut self,
        sel: &Bool,
        pairs: &[(usize, usize)],
        suffix: impl Iterator<Item = usize>,
    ) {
        for &(i, j) in pairs {
            self.infix.entry(i).or_default().push((sel.clone(), j));
        }
        for j in suffix {
            self.suffix.entry(j).or_default().push(sel.clone());
        }
    }
}

/// What a query asks of the memory model besides reads-from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Judge {
    /// Nothing more (the query names the axioms it wants itself).
    Reads,
    /// A run cut short (by undefined behaviour, or by the loop bound when a hang is asked
    /// about): the model's prefix-closed axioms, which every beginning of a consistent
    /// execution satisfies, every read reading a write of the run.
    Prefix,
    /// A run cut short by the loop bound: the prefix-closed axioms, a read of one thread
    /// also reading a write another thread performs after its cut (`a_rf_later`).
    Cut,
    /// Reads-from alone, as [`Judge::Cut`] has it.
    ReadsOrLater,
    /// A complete execution: every axiom.
    Whole,
}

/// The prefix-closed axioms: not encoded yet (the symbolic base relations and the model
/// kept for it), or their literal.
enum Prefix {
    Pending(Box<Sym>, Arc<MemoryModel>),
    Encoded(Result<Bool, String>),
}

impl Relaxed {
    /// The thread events (not initial writes) that write, or that read, in event order.
    fn thread_events(&self, write: bool) -> Vec<usize> {
        (0..self.evs.len())
            .filter(|&i| {
                let e = &self.evs[i].info;
                (if write { e.write } else { e.read }) && e.thread.is_some()
            })
            .collect()
    }
}

/// The value set G of one execution model, as far as it has grown (always part of the
/// explorer's G: reads returning values of it are never out of thin air).
#[derive(Clone)]
struct Guesses {
    values: BTreeSet<u32>,
    /// Assumed: every read returns a value of `values`, or of a justified write earlier in
    /// its run ([`Encoding::justify`]).
    lit: Bool,
    /// Per thread write: its run up to it has reads returning values of `values` only
    /// (what the growth query asks for: chains are easy to find, hard to refute).
    plain: Vec<Bool>,
    /// Rounds grown so far.
    rounds: usize,
    /// `Some(Ok)`: `values` is all of G, or G is every value (`lit` is then `true`);
    /// `Some(Err)`: why it stopped growing.
    done: Option<Result<(), String>>,
}

impl<'p> Encoding<'p> {
    /// Encodes the events, reads-from, coherence and the cat model's axioms.
    pub(super) fn relaxed(
        &mut self,
        mm: Arc<MemoryModel>,
        budget: &Budget,
    ) -> Result<(), Exhausted> {
        self.index_accesses();
        let prog = self.prog;
        let mut evs: Vec<CatEv> = Vec::new();
        // Initial writes: one per cell an access may touch, there when some access does.
        let mut globals: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, e) in self.mem.iter().enumerate() {
            globals.entry(e.global).or_default().push(i);
        }
        for (&g, accs) in &globals {
            let info = &prog.globals[g as usize];
            let cells: BTreeSet<u32> = if accs.iter().any(|&a| self.mem[a].cell.is_none()) {
                (0..info.len).collect()
            } else {
                accs.iter().filter_map(|&a| self.mem[a].cell).collect()
            };
            for c in cells {
                budget.check("encoding initial writes")?;
                let touch: Vec<Bool> = accs
                    .iter()
                    .map(|&a| {
                        let e = &self.mem[a];
                        match e.cell {
                            Some(k) if k == c => e.guard.clone(),
                            Some(_) => konst(false),
                            None => and(&[&e.guard, &eq(&e.index, &bv(c))]),
                        }
                    })
                    .collect();
                evs.push(CatEv {
                    info: EventInfo {
                        thread: None,
                        at: None,
                        read: false,
                        write: true,
                        rmw: false,
                        released: false,
                        id: None,
                        kind: EventKind::Access,
                    },
                    guard: or(&touch),
                    global: Some(g),
                    index: Some(bv(c)),
                    cell: Some(c),
                    value: Some(bv(info.init[c as usize])),
                    mem: None,
                    ts: None,
                    kind: Kind::Memory,
                    released: None,
                    id: None,
                });
            }
        }
        // Each thread's events in program order (blocks are numbered in a topological order).
        for t in 0..prog.layout.threads {
            for (b, block) in prog.blocks.iter().enumerate() {
                let inb = self.inb[t as usize][b].clone();
                if is_false(&inb) {
                    continue;
                }
                for (i, ins) in block.instrs.iter().enumerate() {
                    budget.check("encoding memory events")?;
                    let pos = i as u32 + 1;
                    let at = Some((b as BlockId, i as u32));
                    let ts = Some(self.ts[t as usize][b][pos as usize].clone());
                    // Liveness: only what happened before the horizon is the execution.
                    let inb = match &self.horizon {
                        Some(h) => and(&[&inb, &self.ts[t as usize][b][pos as usize].lt(h)]),
                        None => inb.clone(),
                    };
                    let plain = |kind: EventKind, guard: Bool| CatEv {
                        info: EventInfo {
                            thread: Some(t),
                            at,
                            read: false,
                            write: false,
                            rmw: false,
                            released: true,
                            id: None,
                            kind,
                        },
                        guard,
                        global: None,
                        index: None,
                        cell: None,
                        value: None,
                        mem: None,
                        ts: ts.clone(),
                        kind: ins.op.kind(),
                        released: None,
                        id: None,
                    };
                    match &ins.op {
                        Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } => {
                            let found = self
                                .at
                                .get(&(b as BlockId, pos))
                                .and_then(|v| v.iter().copied().find(|&k| self.mem[k].thread == t));
                            let Some(k) = found else { continue };
                            let e = &self.mem[k];
                            let rmw = e.read.is_some() && e.write.is_some();
                            // An access out of bounds is no event (as in the explorer), so it
                            // needs no write to read from.
                            let in_bounds = &e.in_bounds;
                            for (read, value) in [(true, &e.read), (false, &e.write)] {
                                let Some(value) = value else { continue };
                                let guard = if read {
                                    and(&[&e.guard, &inb, in_bounds])
                                } else {
                                    and(&[&e.guard, &inb, in_bounds, &e.stores])
                                };
                                evs.push(CatEv {
                                    info: EventInfo {
                                        thread: Some(t),
                                        at,
                                        read,
                                        write: !read,
                                        rmw,
                                        released: false,
                                        id: None,
                                        kind: EventKind::Access,
                                    },
                                    guard,
                                    global: Some(e.global),
                                    index: Some(e.index.clone()),
                                    cell: e.cell,
                                    value: Some(value.clone()),
                                    mem: Some(k),
                                    ts: ts.clone(),
                                    kind: Kind::Memory,
                                    released: None,
                                    id: None,
                                });
                            }
                        }
                        Op::Fence { .. } => {
                            let mut e = plain(EventKind::Fence, inb.clone());
                            e.id = self.fence_ids.get(&(t, b as BlockId, pos)).cloned();
                            evs.push(e);
                        }
                        Op::SubgroupBarrier | Op::WorkgroupBarrier => {
                            evs.push(plain(EventKind::Barrier, inb.clone()))
                        }
                        Op::QuorumBarrier { name, .. } => {
                            let release = self.quorum_release(prog.layout.workgroup_of(t), *name);
                            let own = &self.ts[t as usize][b][pos as usize];
                            let mut e = plain(EventKind::Barrier, inb.clone());
                            e.released = Some(and(&[&inb, &own.eq(&release)]));
                            evs.push(e);
                        }
                        // A subgroup op is an event when it is one step of its lanes
                        // (collective, speculative), as the explorer records it.
                        Op::SgOp { .. } => {
                            let g =
                                and(&[&inb, &self.classes_where(Kind::Sgop, TimingRule::one_step)]);
                            evs.push(plain(EventKind::SgOp, g))
                        }
                        Op::Local { .. } | Op::Unreachable => {}
                    }
                }
            }
        }
        // Each event's guard gets a name, so that the cat model's terms, which conjoin guards
        // at every composition, hold a literal rather than the path condition.
        for (i, e) in evs.iter_mut().enumerate() {
            if known(&e.guard).is_none() {
                let v = Bool::new_const(format!("ev_happens_{i}"));
                self.assert(&v.eq(&e.guard));
                e.guard = v;
            }
        }
        let n = evs.len();
        let guards: Vec<Bool> = evs.iter().map(|e| e.guard.clone()).collect();
        let mut sym = Sym::new(n, guards, budget.clone());
        let infos: Vec<EventInfo> = evs.iter().map(|e| e.info.clone()).collect();
        for (name, members) in base::sets(prog, &infos) {
            let s = members.iter().map(|m| konst(*m)).collect();
            sym.sets.insert(name, Rc::new(s));
        }
        // The base relations' terms leave out the events' guards ([`Sym`] conjoins them where
        // they matter); `loc` and `co` are kept guarded too, for reads-from and the witness.
        let both = |a: usize, b: usize| and(&[&evs[a].guard, &evs[b].guard]);
        let mut fixed: HashMap<&str, BTreeMap<(u32, u32), Bool>> = HashMap::new();
        let mut po = BTreeMap::new();
        let mut loc = BTreeMap::new();
        let mut rmw = BTreeMap::new();
        for a in 0..n {
            budget.check("encoding the memory model's base relations")?;
            for b in 0..n {
                let (x, y) = (&evs[a], &evs[b]);
                for name in base::FIXED_RELATIONS {
                    if base::fixed(prog, name, &x.info, &y.info) {
                        // Quorum barriers meet from one released when it opened
                        // (`base::sinst`).
                        let mut c = konst(true);
                        if let (Some(r), true) = (&x.released, base::MEETINGS.contains(name)) {
                            c = and(&[&c, r]);
                        }
                        // Fences with run-time ids meet when the ids are equal.
                        if let (Some(i), Some(j), true) =
                            (&x.id, &y.id, base::MEETINGS.contains(name))
                        {
                            c = and(&[&c, &eq(i, j)]);
                        }
                        fixed
                            .entry(name)
                            .or_default()
                            .insert((a as u32, b as u32), c);
                    }
                }
                if let (Some(s), Some(t), Some((ba, _)), Some((bb, _))) =
                    (x.info.thread, y.info.thread, x.info.at, y.info.at)
                {
                    let before = if ba == bb {
                        a < b
                    } else {
                        prog.reaches(ba, bb)
                    };
                    if s == t && before {
                        po.insert((a as u32, b as u32), konst(true));
                    }
                }
                if x.global.is_some() && x.global == y.global {
                    let same = self.same_cell(x, y);
                    loc.insert((a as u32, b as u32), (both(a, b), same));
                }
                if x.mem.is_some() && x.mem == y.mem && x.info.read && y.info.write {
                    rmw.insert((a as u32, b as u32), konst(true));
                }
            }
        }
        let rel = |m: BTreeMap<(u32, u32), Bool>| -> super::cat::Rel {
            Rc::new(m.into_iter().filter(|(_, t)| !is_false(t)).collect())
        };
        for name in base::FIXED_RELATIONS {
            sym.rels.insert(
                name.to_string(),
                rel(fixed.remove(name).unwrap_or_default()),
            );
        }
        sym.rels.insert("po".into(), rel(po));
        let vloc = loc
            .iter()
            .filter(|((a, b), _)| {
                base::same_reference(prog, &infos[*a as usize], &infos[*b as usize])
            })
            .map(|(k, (_, same))| (*k, same.clone()))
            .collect();
        sym.rels.insert("vloc".into(), rel(vloc));
        let same_cell = loc
            .iter()
            .map(|(k, (_, same))| (*k, same.clone()))
            .collect();
        sym.rels.insert("loc".into(), rel(same_cell));
        let loc: BTreeMap<(u32, u32), Bool> = loc
            .into_iter()
            .map(|(k, (g, same))| (k, and(&[&g, &same])))
            .collect();
        sym.rels.insert("rmw".into(), rel(rmw));
        // The same instance taken as one collective step.
        let coll: Vec<Bool> = evs
            .iter()
            .map(|e| self.classes_where(e.kind, TimingRule::one_step))
            .collect();
        let sinst = sym.rels["sinst"].clone();
        let sstep: BTreeMap<(u32, u32), Bool> = sinst
            .iter()
            .map(|(&(a, b), t)| ((a, b), and(&[t, &coll[a as usize], &coll[b as usize]])))
            .collect();
        let sstep = rel(sstep);
        sym.rels.insert("sstep".into(), sstep.clone());
        if mm.uses_sched {
            let lay = &prog.layout;
            // Steps at one time are ordered by (subgroup, instruction), then by lane; the lanes
            // of one collective step (both halves of its RMWs included) stay unordered, as the
            // explorer's one step.
            let tie_key = |a: usize| {
                let i = &evs[a].info;
                (i.thread.map(|t| lay.subgroup_of(t)), i.at)
            };
            let mut sched = BTreeMap::new();
            for a in 0..n {
                budget.check("encoding the schedule relation")?;
                for b in 0..n {
                    let (x, y) = (&evs[a], &evs[b]);
                    let t = match (&x.ts, &y.ts) {
                        (None, Some(_)) => konst(true),
                        (Some(s), Some(t)) => {
                            let apart = sstep
                                .get(&(a as u32, b as u32))
                                .map(not)
                                .unwrap_or(konst(true));
                            // Steps at one time are independent: any order of them is a
                            // schedule, so ties are broken by a fixed key, as the explorer's
                            // steps are always in some order (`sync_fence` needs a total one).
                            let (ka, kb) = (tie_key(a), tie_key(b));
                            let (ta, tb) = (x.info.thread, y.info.thread);
                            let first = if ka < kb {
                                s.eq(t)
                            } else if ka == kb && ta < tb {
                                and(&[&s.eq(t), &not(&and(&[&coll[a], &coll[b]]))])
                            } else {
                                konst(false)
                            };
                            and(&[&or(&[s.lt(t), first]), &apart])
                        }
                        _ => continue,
                    };
                    sched.insert((a as u32, b as u32), t);
                }
            }
            sym.rels.insert("sched".into(), rel(sched));
        } else {
            // Only names the model never reads mention it (the stdlib's `sync_fence`).
            sym.rels.insert("sched".into(), rel(BTreeMap::new()));
        }
        // Reads-from: exactly one source per read that happens, with the read's cell and value
        // (behind `a_rf`, which every query but the growth of the value set and the loop
        // bound's cut assumes; the cut assumes `a_rf_later`, where a read may also read a
        // write after another thread's cut: docs/memory-models.md, "Runs cut short").
        let a_rf = Bool::new_const("assume_reads_from");
        let a_rf_later = Bool::new_const("assume_reads_from_or_later");
        let either = or(&[a_rf.clone(), a_rf_later.clone()]);
        let written = self.prog.globals_written();
        let mut values_written = HashMap::new();
        let mut later = HashMap::new();
        let mut rf = BTreeMap::new();
        let mut rf_vars = Vec::new();
        let mut rf_cond = HashMap::new();
        for r in 0..n {
            if !evs[r].info.read {
                continue;
            }
            budget.check("encoding reads-from")?;
            let mut options = Vec::new();
            for w in 0..n {
                let (x, y) = (&evs[w], &evs[r]);
                if !x.info.write || !may_alias(x, y) || (x.mem.is_some() && x.mem == y.mem) {
                    continue;
                }
                let cond = and(&[
                    &loc[&(w as u32, r as u32)],
                    &eq(
                        x.value.as_ref().expect("a write has a value"),
                        y.value.as_ref().expect("a read has a value"),
                    ),
                ]);
                if is_false(&cond) {
                    continue;
                }
                let v = Bool::new_const(format!("rf_e{w}_e{r}"));
                rf_vars.push((w, r, v.clone()));
                rf_cond.insert((w, r), cond.clone());
                self.assert(&implies(&either, &implies(&v, &cond)));
                rf.insert((w as u32, r as u32), v.clone());
                options.push(v);
            }
            self.assert(&implies(&a_rf, &implies(&evs[r].guard, &or(&options))));
            self.assert(&implies(&a_rf, &at_most_one(&options)));
            // Or a write another thread performs after its cut, when some instruction writes
            // the read's global (past the bound, any cell of it: the write need not be an
            // event of the unrolled program).
            // (By a thread that may write the read's global: `Program::may_write`.)
            let t = evs[r].info.thread;
            let cut: Vec<Bool> = (0..self.prog.layout.threads)
                .filter(|&u| Some(u) != t)
                .filter(|&u| evs[r].global.is_some_and(|g| self.prog.may_write(u, g)))
                .map(|u| self.cut_thread[u as usize].clone())
                .collect();
            let cut = or(&cut);
            if !is_false(&cut) && evs[r].global.is_some_and(|g| written.contains(&g)) {
                let l = Bool::new_const(format!("rf_later_e{r}"));
                self.assert(&implies(&l, &cut));
                // It reads a value some write of the global may store.
                let global = evs[r].global.expect("checked above");
                if let Some(values) = values_written
                    .entry(global)
                    .or_insert_with(|| self.prog.values_written(global))
                {
                    let value = evs[r].value.as_ref().expect("a read has a value");
                    let one_of: Vec<Bool> = values.iter().map(|&v| eq(value, &bv(v))).collect();
                    self.assert(&implies(&l, &or(&one_of)));
                }
                // (Only a cut's reads-from reads later; its value is then free of G.)
                self.assert(&implies(&a_rf, &not(&l)));
                later.insert(r, l.clone());
                options.push(l);
            }
            self.assert(&implies(
                &a_rf_later,
                &implies(&evs[r].guard, &or(&options)),
            ));
            self.assert(&implies(&a_rf_later, &at_most_one(&options)));
        }
        sym.rels.insert("rf".into(), rel(rf));
        // Coherence: a clock per write; writes that may share a cell never share a clock.
        let mut clock: HashMap<usize, Int> = HashMap::new();
        for (w, e) in evs.iter().enumerate() {
            if e.info.write {
                let c = match e.info.thread {
                    None => Int::from_i64(0),
                    Some(_) => {
                        let c = Int::new_const(format!("co_clock_e{w}"));
                        self.assert(&c.ge(Int::from_i64(1)));
                        c
                    }
                };
                clock.insert(w, c);
            }
        }
        // Under partial coherence (docs/memory-models.md) two writes of a cell are ordered
        // only when their `co_rel` variable says so; the clocks still order those that are, and
        // transitivity is asserted.
        let partial = mm.coherence == crate::memory::Coherence::Partial;
        let mut co = BTreeMap::new();
        for a in 0..n {
            for b in 0..n {
                let (x, y) = (&evs[a], &evs[b]);
                if a == b
                    || !x.info.write
                    || !y.info.write
                    || !may_alias(x, y)
                    || y.info.thread.is_none()
                {
                    continue;
                }
                budget.check("encoding coherence")?;
                let l = &loc[&(a as u32, b as u32)];
                if is_false(l) {
                    continue;
                }
                if x.info.thread.is_some() && a < b {
                    self.assert(&implies(l, &clock[&a].eq(&clock[&b]).not()));
                }
                let related = if partial && x.info.thread.is_some() {
                    let (i, j) = (a.min(b), a.max(b));
                    Bool::new_const(format!("co_rel_e{i}_e{j}"))
                } else {
                    konst(true)
                };
                co.insert(
                    (a as u32, b as u32),
                    and(&[l, &related, &clock[&a].lt(&clock[&b])]),
                );
            }
        }
        if partial {
            for (&(a, b), ab) in &co {
                for (&(b2, c), bc) in co.range((b, 0)..(b + 1, 0)) {
                    debug_assert_eq!(b, b2);
                    if c == a {
                        continue;
                    }
                    budget.check("encoding coherence")?;
                    let both = and(&[ab, bc]);
                    match co.get(&(a, c)) {
                        Some(ac) => self.assert(&implies(&both, ac)),
                        None => self.assert(&not(&both)),
                    }
                }
            }
        }
        sym.rels.insert("co".into(), rel(co.clone()));

        let results = interp::run(&mm.cat, &mut sym);
        tracing::debug!(events = n, side = sym.side.len(), "cat encoded");
        if let Some(e) = sym.exhausted.take() {
            return Err(e);
        }
        // Z3 simplifies each assertion as it is added, and one that first reaches a large
        // shared relation can take seconds (3 s for one of the 6,510 of Dartagnan's
        // `ttaslock-2.1.1` eight deep, out of 4 s for all): the budget is checked between them.
        for c in std::mem::take(&mut sym.side) {
            budget.check("encoding the memory model")?;
            self.assert(&c);
        }
        let a_cat = Bool::new_const("assume_memory_model");
        self.assert(&implies(&a_cat, &a_rf));
        let mut flags = Vec::new();
        let mut axioms = Vec::new();
        let mut error = None;
        match results {
            Ok(results) => {
                for (k, c) in results.iter().enumerate().filter(|(_, c)| !c.flag) {
                    let name = crate::memory::axiom_name(k, &c.name, c.kind);
                    let lit = Bool::new_const(format!("assume_axiom_{k}"));
                    self.assert(&implies(&lit, &c.holds));
                    self.assert(&implies(&a_cat, &lit));
                    axioms.push((name, lit));
                }
                flags = results
                    .into_iter()
                    .filter(|c| c.flag)
                    .map(|c| (c.name, c.holds))
                    .collect();
            }
            Err(e) => error = Some(format!("the memory model: {e}")),
        }
        self.relaxed = Some(Relaxed {
            a_rf,
            a_rf_later,
            later,
            axioms,
            rf_vars,
            rf_cond,
            evs,
            clock,
            co,
            partial,
            a_cat,
            flags,
            error,
            guesses: RefCell::new(HashMap::new()),
            sources: RefCell::new(None),
            // The same symbolic algebra: its base relations, and fresh names that go on from
            // where the model's own stopped.
            prefix: RefCell::new(Prefix::Pending(Box::new(sym), mm)),
        });
        Ok(())
    }

    /// The literal that assumes the prefix-closed axioms, encoding them on first use.
    fn prefix_lit(&self) -> Result<Bool, String> {
        let r = self.relaxed.as_ref().expect("relaxed");
        let mut p = r.prefix.borrow_mut();
        if let Prefix::Pending(sym, mm) = &mut *p {
            let results = interp::run(&mm.prefix, &mut **sym);
            let encoded = match (sym.exhausted.take(), results) {
                (Some(e), _) => Err(e.to_string()),
                (None, Err(e)) => Err(format!("the memory model: {e}")),
                (None, Ok(results)) => (|| {
                    // Checked between assertions, as in `relaxed`: Z3 rewrites each one.
                    for c in std::mem::take(&mut sym.side) {
                        sym.budget.check("encoding the memory model")?;
                        self.assert(&c);
                    }
                    let lit = Bool::new_const("assume_prefix_axioms");
                    for c in results.iter().filter(|c| !c.flag) {
                        self.assert(&implies(&lit, &c.holds));
                    }
                    tracing::debug!(checks = results.len(), "prefix axioms encoded");
                    Ok(lit)
                })()
                .map_err(|e: Exhausted| e.to_string()),
            };
            *p = Prefix::Encoded(encoded);
        }
        match &*p {
            Prefix::Encoded(e) => e.clone(),
            Prefix::Pending(..) => unreachable!("encoded above"),
        }
    }

    /// Do the two accesses touch the same cell (both of one global)?
    fn same_cell(&self, x: &CatEv, y: &CatEv) -> Bool {
        match (x.cell, y.cell) {
            (Some(a), Some(b)) => konst(a == b),
            _ => eq(
                x.index.as_ref().expect("an access"),
                y.index.as_ref().expect("an access"),
            ),
        }
    }

    /// Access `access` (`Encoding::mem`), if it reads, reads a coherence-maximal write of
    /// its cell: no write that happens is coherence-after its source (liveness: memory
    /// fairness).
    pub(super) fn reads_coherence_last(&self, access: usize) -> Bool {
        let r = self.relaxed.as_ref().expect("relaxed");
        let mut cs = Vec::new();
        for (w, e, v) in &r.rf_vars {
            if r.evs[*e].mem != Some(access) || !r.evs[*e].info.read {
                continue;
            }
            let later: Vec<&Bool> = (r.co.range((*w as u32, 0)..(*w as u32 + 1, 0)))
                .map(|(_, c)| c)
                .collect();
            cs.push(implies(
                v,
                &not(&or(&later.into_iter().cloned().collect::<Vec<_>>())),
            ));
        }
        let refs: Vec<&Bool> = cs.iter().collect();
        and(&refs)
    }

    /// Accesses `i` and `j` (`Encoding::mem`) are the same access: both happen or neither,
    /// and then at one cell, reading and writing the same values.
    pub(super) fn same_access(&self, i: usize, j: usize) -> Bool {
        let (a, b) = (&self.mem[i], &self.mem[j]);
        let mut cs = vec![eq(&a.index, &b.index), a.stores.eq(&b.stores)];
        for (x, y) in [(&a.read, &b.read), (&a.write, &b.write)] {
            if let (Some(x), Some(y)) = (x, y) {
                cs.push(eq(x, y));
            }
        }
        let refs: Vec<&Bool> = cs.iter().collect();
        and(&[&a.guard.eq(&b.guard), &implies(&a.guard, &and(&refs))])
    }

    /// What memory must do for the chosen windows of writes to repeat for ever
    /// (docs/progress.md, "Liveness under a memory model"; the explorer's rule is
    /// `memory::hang_consistent`): the suffix's writes come coherence-after every other write
    /// of their cells; a suffix read reads a window (infix or suffix) or a coherence-maximal
    /// write; nothing but a suffix reads a suffix; and reads-from between two infix accesses
    /// is repeated between their twins. Then appending the suffix again repeats it.
    pub(super) fn repeated(&self, w: &Windows, budget: &Budget) -> Result<Vec<Bool>, Exhausted> {
        let r = self.relaxed.as_ref().expect("relaxed");
        let n = r.evs.len();
        let any = |v: Option<&Vec<Bool>>| or(v.map_or(&[][..], |v| &v[..]));
        let suffix: Vec<Bool> = (r.evs.iter())
            .map(|e| e.mem.map_or(konst(false), |m| any(w.suffix.get(&m))))
            .collect();
        let infix: Vec<&[(Bool, usize)]> = (r.evs.iter())
            .map(|e| {
                e.mem
                    .and_then(|m| w.infix.get(&m))
                    .map_or(&[][..], |v| &v[..])
            })
            .collect();
        let window: Vec<Bool> = (0..n)
            .map(|e| {
                let mut all: Vec<Bool> = infix[e].iter().map(|(s, _)| s.clone()).collect();
                all.push(suffix[e].clone());
                or(&all)
            })
            .collect();
        // Each access's halves, and each reads-from variable, by events.
        let half: HashMap<(usize, bool), usize> = (0..n)
            .filter_map(|e| Some(((r.evs[e].mem?, r.evs[e].info.read), e)))
            .collect();
        let rf: HashMap<(usize, usize), &Bool> =
            r.rf_vars.iter().map(|(w, e, v)| ((*w, *e), v)).collect();
        let mut cs = Vec::new();
        for (src, read, v) in &r.rf_vars {
            budget.check("encoding the windows of writes")?;
            let (src, read) = (*src, *read);
            if !is_false(&suffix[read]) {
                let later: Vec<Bool> = (r.co.range((src as u32, 0)..(src as u32 + 1, 0)))
                    .map(|(_, c)| c.clone())
                    .collect();
                let last = not(&or(&later));
                cs.push(implies(
                    &and(&[&suffix[read], v]),
                    &or(&[window[src].clone(), last]),
                ));
            }
            if !is_false(&suffix[src]) {
                cs.push(implies(&and(&[v, &suffix[src]]), &suffix[read]));
            }
            for (sr, tr) in infix[read] {
                for (sw, tw) in infix[src] {
                    let twins = (half.get(&(*tw, false)).zip(half.get(&(*tr, true))))
                        .and_then(|(a, b)| rf.get(&(*a, *b)).map(|v| (*v).clone()))
                        .unwrap_or_else(|| konst(false));
                    cs.push(implies(&and(&[sr, sw, v]), &twins));
                }
            }
        }
        for (&(a, b), co) in &r.co {
            budget.check("encoding the windows of writes")?;
            let (a, b) = (a as usize, b as usize);
            if is_false(&suffix[b]) {
                continue;
            }
            let (x, y) = (&r.evs[a], &r.evs[b]);
            let shared = and(&[&x.guard, &y.guard, &self.same_cell(x, y)]);
            cs.push(implies(&and(&[&suffix[b], &not(&suffix[a]), &shared]), co));
        }
        Ok(cs)
    }

    /// The final value of `cell` under a relaxed model: its coherence-last write.
    pub(super) fn final_cell_relaxed(&self, global: u32, off: u32) -> BV {
        let r = self.relaxed.as_ref().expect("relaxed");
        let writes: Vec<usize> = (0..r.evs.len())
            .filter(|&w| {
                let e = &r.evs[w];
                e.info.write
                    && e.info.thread.is_some()
                    && e.global == Some(global)
                    && e.cell.is_none_or(|c| c == off)
                    && !is_false(&e.guard)
            })
            .collect();
        let hits = |w: usize| {
            let e = &r.evs[w];
            and(&[
                &e.guard,
                &eq(e.index.as_ref().expect("an access"), &bv(off)),
            ])
        };
        let g = &self.prog.globals[global as usize];
        let mut acc = bv(g.init[off as usize]);
        // The value of a coherence-maximal write; under partial coherence any one of them, as
        // a free choice (`final_pick`), else the unique one.
        let mut found = konst(false);
        for &w in &writes {
            let mut c = vec![hits(w)];
            for &w2 in &writes {
                if let Some(co) = r.co.get(&(w as u32, w2 as u32)) {
                    c.push(not(&and(&[&hits(w2), co])));
                }
            }
            let refs: Vec<&Bool> = c.iter().collect();
            let last = and(&refs);
            let take = if r.partial {
                let pick = Bool::new_const(format!("final_pick_e{w}"));
                and(&[&last, &or(&[pick, not(&found)])])
            } else {
                last.clone()
            };
            acc = super::terms::ite(&take, r.evs[w].value.as_ref().expect("a write"), &acc);
            found = or(&[found, last]);
        }
        acc
    }

    /// Answers a query (`a`: its literals and the execution model's) under the memory model:
    /// reads-from and, for a `consistent` query, the model's axioms, with reads inside the
    /// execution model's value set G. Under SC, just the query.
    ///
    /// G need not be complete to answer. Without it (values out of thin air allowed) the
    /// query is an over-approximation: `No` there is `No`, and a `Yes` whose reads all return
    /// values already in G is a genuine execution. With the part of G grown so far it is an
    /// under-approximation: `Yes` there is `Yes`. Only when neither decides does G grow, a
    /// round at a time, until the under-approximation decides or G is complete (then it is
    /// exact). So a test whose verdict does not turn on values deep in G (most `forall`
    /// tests) is decided without growing G at all.
    pub(super) fn decide(&self, m: &Model, judge: Judge, mut a: Vec<Bool>) -> Answer<z3::Model> {
        let Some(r) = &self.relaxed else {
            return self.check(&a);
        };
        if let Some(e) = &r.error {
            return Answer::Unknown(e.clone());
        }
        let lits = match judge {
            Judge::Whole => vec![r.a_cat.clone()],
            Judge::Reads => vec![r.a_rf.clone()],
            Judge::ReadsOrLater => vec![r.a_rf_later.clone()],
            Judge::Prefix | Judge::Cut => {
                // Most runs cut short are refuted by reads-from alone; the prefix-closed
                // axioms are encoded only when they are not.
                let (rf, reads) = match judge {
                    Judge::Cut => (r.a_rf_later.clone(), Judge::ReadsOrLater),
                    _ => (r.a_rf.clone(), Judge::Reads),
                };
                if let Answer::No = self.decide(m, reads, a.clone()) {
                    return Answer::No;
                }
                match self.prefix_lit() {
                    Ok(l) => vec![rf, l],
                    Err(why) => return Answer::Unknown(why),
                }
            }
        };
        a.extend(lits);
        let g = self.guesses(m);
        if !matches!(g.done, Some(Ok(()))) {
            match self.check(&a) {
                Answer::Yes(model) if self.reads_within(&model, &g.values) => {
                    return Answer::Yes(model)
                }
                Answer::Yes(_) => {}
                other => return other,
            }
        }
        // The literal last refuted: when growing G adds nothing, G is complete and the
        // exact query is the one just answered.
        let mut refuted: Option<Bool> = None;
        loop {
            let g = self.guesses(m);
            let mut under = a.clone();
            under.push(g.lit.clone());
            match g.done {
                Some(Ok(())) if refuted.as_ref() == Some(&g.lit) => return Answer::No,
                Some(Ok(())) => return self.check(&under),
                Some(Err(why)) => return Answer::Unknown(why),
                None => {}
            }
            match self.check(&under) {
                Answer::No => {
                    refuted = Some(g.lit);
                    self.grow(m)
                }
                other => return other,
            }
        }
    }

    /// The literals that keep reads inside the complete value set G of `m`, with reads-from
    /// and (for `consistent`) the axioms: for queries that need G whole (enumerating outcomes,
    /// naming the axioms that forbid one). Empty under SC.
    pub(super) fn memory_lits(&self, m: &Model, consistent: bool) -> Result<Vec<Bool>, String> {
        let Some(r) = &self.relaxed else {
            return Ok(Vec::new());
        };
        if let Some(e) = &r.error {
            return Err(e.clone());
        }
        let lit = loop {
            let g = self.guesses(m);
            match g.done {
                Some(Ok(())) => break g.lit,
                Some(Err(why)) => return Err(why),
                None => self.grow(m),
            }
        };
        let mut out = vec![lit];
        if consistent {
            out.push(r.a_cat.clone());
        } else {
            out.push(r.a_rf.clone());
        }
        Ok(out)
    }

    /// Does every read that happens in `model` return a value of `values`?
    fn reads_within(&self, model: &z3::Model, values: &BTreeSet<u32>) -> bool {
        let r = self.relaxed.as_ref().expect("relaxed");
        let yes = |b: &Bool| model.eval(b, true).and_then(|b| b.as_bool()) == Some(true);
        let later = |i: usize| r.later.get(&i).is_some_and(&yes);
        (r.evs.iter().enumerate())
            .filter(|&(i, e)| e.info.read && e.info.thread.is_some() && yes(&e.guard) && !later(i))
            .all(|(_, e)| {
                let v = super::decode::model_u32(model, e.value.as_ref().expect("an access"));
                values.contains(&v)
            })
    }

    /// G for `m` as far as it has grown (at first the initial values and 0).
    fn guesses(&self, m: &Model) -> Guesses {
        let r = self.relaxed.as_ref().expect("relaxed");
        if let Some(g) = r.guesses.borrow().get(&m.name) {
            return g.clone();
        }
        let mut values: BTreeSet<u32> = self.prog.initial_memory().into_iter().collect();
        values.insert(0);
        let g = self.justify(values, 0);
        r.guesses.borrow_mut().insert(m.name.clone(), g.clone());
        g
    }

    /// One round of growing G for `m`, as in the explorer: every value a write performs in a
    /// run whose reads so far return values of G joins it. Records when G is complete, or why
    /// it stopped growing.
    fn grow(&self, m: &Model) {
        let r = self.relaxed.as_ref().expect("relaxed");
        let mut g = self.guesses(m);
        match self.grow_round(m, &g) {
            Err(why) => g.done = Some(Err(why)),
            // Reads may return anything: no constraint is left to assume.
            Ok(Growth::Every) => {
                g.lit = konst(true);
                g.done = Some(Ok(()));
            }
            Ok(Growth::Values(grown)) if grown.len() == g.values.len() => g.done = Some(Ok(())),
            Ok(_) if g.rounds >= MAX_ROUNDS => {
                g.done = Some(Err(format!(
                    "the values written kept growing ({MAX_ROUNDS} rounds of read guesses)"
                )))
            }
            Ok(Growth::Values(grown)) => g = self.justify(grown, g.rounds + 1),
        }
        r.guesses.borrow_mut().insert(m.name.clone(), g);
    }

    /// The terms that say which runs stay inside `values` (see [`Guesses`]).
    ///
    /// A write is justified when its run, up to it, could happen with reads returning values
    /// of the set: every read before it in time (its thread's earlier reads among them) has a
    /// write of its value before the write (or the initial value), as the explorer checks,
    /// and returns a value of the set or, chaotically, the value of a justified write earlier
    /// in the same run (to the same cell). Times strictly decrease along such a chain, so no
    /// value justifies itself, and each value so found is in the explorer's least fixpoint
    /// (by induction on time). So a run that computes its values in order (a loop's
    /// counter) is an execution of the under-approximation without growing G. Growing G
    /// asks only for runs whose reads are inside the set (`plain`), one step per round as the
    /// explorer does: a chain that leaves the set is easy to find but hard to refute (Z3 did
    /// not refute twenty increments in minutes), and the chains' definitions, behind `lit`,
    /// stay out of those queries (with them, each growth query took seconds).
    fn justify(&self, values: BTreeSet<u32>, rounds: usize) -> Guesses {
        let r = self.relaxed.as_ref().expect("relaxed");
        let (write_ids, read_ids) = (r.thread_events(true), r.thread_events(false));
        let writes: Vec<&CatEv> = write_ids.iter().map(|&i| &r.evs[i]).collect();
        let reads: Vec<&CatEv> = read_ids.iter().map(|&i| &r.evs[i]).collect();
        // "Has a write of its value before time t", per read: a source time the solver picks
        // (no earlier than some write of the value), compared with t. Spelled out as the
        // disjunction over the writes, it was a cube of terms (writes x reads x writes).
        let sources: Vec<(Bool, Bool, Time)> = r
            .sources
            .borrow_mut()
            .get_or_insert_with(|| reads.iter().map(|e| self.source_time(e, &writes)).collect())
            .clone();
        let sourced_before = |i: usize, t: &Time| {
            let (init, has, s) = &sources[i];
            or(&[init.clone(), and(&[has, &s.lt(t)])])
        };
        let justified: Vec<Bool> = writes
            .iter()
            .map(|_| Bool::fresh_const("justified"))
            .collect();
        // A justified source is one reads-from could pick (same cell, same value): its
        // condition is the term reads-from already has, so no new value comparison is made.
        let value_ok: Vec<Bool> = read_ids
            .iter()
            .map(|&ri| {
                let rd = &r.evs[ri];
                let rt = rd.ts.as_ref().expect("a thread's read has a time");
                let mut by: Vec<Bool> = write_ids
                    .iter()
                    .zip(&justified)
                    .filter_map(|(&wi, j)| {
                        let cond = r.rf_cond.get(&(wi, ri))?;
                        let wt = r.evs[wi].ts.as_ref().expect("a thread's write has a time");
                        Some(and(&[cond, j, &wt.lt(rt)]))
                    })
                    .collect();
                by.push(within(rd, &values));
                // A read of a write past a cut returns what that write writes, which no run
                // within the bound shows.
                by.extend(r.later.get(&ri).cloned());
                or(&by)
            })
            .collect();
        let (mut prefix, mut plain) = (Vec::new(), Vec::new());
        for (w, j) in writes.iter().zip(&justified) {
            if let Err(e) = self.building.check(GROWING) {
                return Guesses {
                    values,
                    lit: konst(false),
                    plain,
                    rounds,
                    done: Some(Err(e.to_string())),
                };
            }
            let wt = w.ts.as_ref().expect("a thread's write has a time");
            let (mut chained, mut inside) = (Vec::new(), Vec::new());
            for (i, r) in reads.iter().enumerate() {
                let rt = r.ts.as_ref().expect("a thread's read has a time");
                let before = if r.info.thread == w.info.thread && r.mem == w.mem {
                    // An RMW's own read comes first.
                    konst(true)
                } else {
                    rt.lt(wt)
                };
                let happens = and(&[&r.guard, &before]);
                let sourced = sourced_before(i, wt);
                // (Under `lit` every read that happens already returns a value of the set or
                // of a chain: a justified write adds only that its earlier reads are sourced.)
                chained.push(implies(&happens, &sourced));
                inside.push(implies(&happens, &and(&[&within(r, &values), &sourced])));
            }
            let p = and(&chained.iter().collect::<Vec<_>>());
            prefix.push(implies(j, &p));
            plain.push(and(&inside.iter().collect::<Vec<_>>()));
        }
        let lit = Bool::fresh_const("assume_values");
        // The chains' definitions hold only where `lit` is assumed, so queries that do not
        // assume it (growing G, other rounds) carry no trace of them.
        let defs: Vec<&Bool> = prefix.iter().collect();
        self.assert(&implies(&lit, &and(&defs)));
        let inside: Vec<Bool> = reads
            .iter()
            .zip(&value_ok)
            .map(|(e, ok)| implies(&e.guard, ok))
            .collect();
        let refs: Vec<&Bool> = inside.iter().collect();
        self.assert(&implies(&lit, &and(&refs)));
        Guesses {
            values,
            lit,
            plain,
            rounds,
            done: None,
        }
    }

    /// G's values with every value a justified write performs (one round of growth).
    ///
    /// When a write's value is free (a symbolic subgroup op's result, which only has to
    /// justify itself), Z3 would find one value after another for ever: the first few values
    /// found are checked for being any value at all ([`Encoding::writes_every_value`], a proof
    /// as for outcome families), and then G is every value.
    fn grow_round(&self, m: &Model, g: &Guesses) -> Result<Growth, String> {
        let r = self.relaxed.as_ref().expect("relaxed");
        let writes: Vec<&CatEv> = r.thread_events(true).iter().map(|&i| &r.evs[i]).collect();
        let mut grown = g.values.clone();
        let mut tries = 0;
        loop {
            self.building.check(GROWING).map_err(|e| e.to_string())?;
            let q = Bool::fresh_const("query_new_value");
            let outside: Vec<Bool> = writes
                .iter()
                .zip(&g.plain)
                .map(|(e, p)| and(&[&e.guard, &not(&within(e, &grown)), p]))
                .collect();
            self.assert(&implies(&q, &or(&outside)));
            let lits = self.model_lits(m);
            let mut a = lits.clone();
            a.push(q);
            match self.check(&a) {
                Answer::No => return Ok(Growth::Values(grown)),
                Answer::Unknown(why) => return Err(format!("{GROWING}: {why}")),
                Answer::Yes(model) => {
                    let yes =
                        |b: &Bool| model.eval(b, true).and_then(|b| b.as_bool()) == Some(true);
                    for (e, p) in writes.iter().zip(&g.plain) {
                        if !(yes(&e.guard) && yes(p)) {
                            continue;
                        }
                        let value = e.value.as_ref().expect("a write");
                        let c = super::decode::model_u32(&model, value);
                        if grown.contains(&c) {
                            continue;
                        }
                        if tries < EVERY_VALUE_TRIES {
                            tries += 1;
                            let must = [e.guard.clone(), p.clone()];
                            tracing::debug!(value = c, "is every value written?");
                            // Without `q`: whether the value is new is not the question.
                            if self.writes_every_value(&model, &lits, &must, value, c) {
                                tracing::debug!(value = c, "a run writes every value");
                                return Ok(Growth::Every);
                            }
                        }
                        grown.insert(c);
                    }
                    tracing::debug!(values = grown.len(), "value set grown");
                    if grown.len() > MAX_VALUES {
                        return Err(format!(
                            "the values written kept growing (more than {MAX_VALUES})"
                        ));
                    }
                }
            }
        }
    }
}

const GROWING: &str = "growing the values reads may return";

/// Values found per round that are checked for standing for every value (each check pins the
/// whole formula, at most 2 s).
const EVERY_VALUE_TRIES: usize = 3;

/// What one round of growing G found.
enum Growth {
    /// G with the values written in runs inside it.
    Values(BTreeSet<u32>),
    /// Some run writes every value: G is all of them.
    Every,
}

/// The term "the access's value is one of `values`".
fn within(e: &CatEv, values: &BTreeSet<u32>) -> Bool {
    let v = e.value.as_ref().expect("an access");
    or(&values.iter().map(|&x| eq(v, &bv(x))).collect::<Vec<_>>())
}

impl<'p> Encoding<'p> {
    /// For read `r`: whether it returns its cell's initial value, and a literal that, when
    /// true, puts some write of its value at or before the returned time.
    fn source_time(&self, r: &CatEv, writes: &[&CatEv]) -> (Bool, Bool, Time) {
        let g = &self.prog.globals[r.global.expect("an access") as usize];
        let index = r.index.as_ref().expect("an access");
        let value = r.value.as_ref().expect("an access");
        let init = eq(value, &super::memory::init_value(g, index));
        let at =
            r.ts.as_ref()
                .expect("a thread's read has a time")
                .fresh("source_time");
        let has = Bool::fresh_const("has_source");
        let mut options = Vec::new();
        for w in writes.iter().filter(|w| may_alias(w, r)) {
            let wt = w.ts.as_ref().expect("a thread's write has a time");
            options.push(and(&[
                &w.guard,
                &wt.le(&at),
                &self.same_cell(w, r),
                &eq(w.value.as_ref().expect("a write"), value),
            ]));
        }
        self.assert(&implies(&has, &or(&options)));
        (init, has, at)
    }
}

/// May the two accesses touch the same cell (same global, cells equal or unknown)?
fn may_alias(x: &CatEv, y: &CatEv) -> bool {
    x.global.is_some()
        && x.global == y.global
        && match (x.cell, y.cell) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
}

impl<'p> Encoding<'p> {
    /// The execution a solver model describes: reads-from and coherence, in words.
    pub(super) fn execution(&self, model: &z3::Model) -> Option<crate::memory::Execution> {
        let r = self.relaxed.as_ref()?;
        let value = |b: &BV| super::decode::model_u32(model, b);
        let yes = |b: &Bool| model.eval(b, true).and_then(|b| b.as_bool()) == Some(true);
        let cell = |e: &CatEv| {
            let g = &self.prog.globals[e.global.expect("an access") as usize];
            g.base + value(e.index.as_ref().expect("an access"))
        };
        let describe = |e: &CatEv| {
            let v = value(e.value.as_ref().expect("an access"));
            crate::memory::describe_event(
                self.prog,
                e.info.thread,
                e.info.at,
                e.info.read,
                cell(e),
                v,
            )
        };
        let place = |e: &CatEv| crate::memory::place(self.prog, e.info.thread, e.info.at, cell(e));
        let mut out = crate::memory::Execution::default();
        for (w, rd, v) in &r.rf_vars {
            if yes(v) && yes(&r.evs[*rd].guard) {
                out.rf.push((describe(&r.evs[*w]), describe(&r.evs[*rd])));
                out.rf_at.push((place(&r.evs[*w]), place(&r.evs[*rd])));
            }
        }
        let mut by_cell: BTreeMap<u32, Vec<(i64, usize)>> = BTreeMap::new();
        for (w, e) in r.evs.iter().enumerate() {
            if e.info.write && yes(&e.guard) {
                let clock = model
                    .eval(&r.clock[&w], true)
                    .and_then(|c| c.as_i64())
                    .unwrap_or(0);
                by_cell.entry(cell(e)).or_default().push((clock, w));
            }
        }
        // The covering pairs of coherence (consecutive writes under a total order).
        let co = |a: usize, b: usize| r.co.get(&(a as u32, b as u32)).is_some_and(&yes);
        for ws in by_cell.values_mut() {
            ws.sort();
            for (i, &(_, a)) in ws.iter().enumerate() {
                for &(_, b) in &ws[i + 1..] {
                    let covers = co(a, b) && !ws.iter().any(|&(_, m)| co(a, m) && co(m, b));
                    if covers {
                        out.co.push((describe(&r.evs[a]), describe(&r.evs[b])));
                        out.co_at.push((place(&r.evs[a]), place(&r.evs[b])));
                    }
                }
            }
        }
        for e in r
            .evs
            .iter()
            .filter(|e| e.global.is_none() && e.info.thread.is_some())
        {
            if yes(&e.guard) {
                out.push_other(self.prog, &e.info);
            }
        }
        Some(out)
    }

    /// Why the condition is unreachable under `m` with the memory model: each axiom that alone
    /// rules it out (with an execution reaching it that satisfies every other axiom), or, when
    /// none does alone, the axioms that do together (an unsatisfiable core).
    pub fn forbidding_axioms(&self, m: &Model) -> crate::memory::MemoryReport {
        let mut out = crate::memory::MemoryReport::default();
        let Some(r) = &self.relaxed else {
            return out;
        };
        if r.error.is_some() {
            return out;
        }
        let mut base = self.model_lits(m);
        let p = Bool::fresh_const("query_prop");
        self.assert(&p.implies(self.prop(&self.prog.prop)));
        base.extend([self.a_noub.clone(), self.a_nocut.clone(), p]);
        for (k, (name, _)) in r.axioms.iter().enumerate() {
            let mut a = base.clone();
            a.extend(
                r.axioms
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(_, (_, l))| l.clone()),
            );
            if let Answer::Yes(model) = self.decide(m, Judge::Reads, a) {
                if let Some(e) = self.execution(&model) {
                    out.forbidden_by.push((name.clone(), e));
                }
            }
        }
        if out.forbidden_by.is_empty() {
            // The core is read off the main solver's last call, so it is asked here directly
            // (not through `check`, which may answer from the difference-logic solver),
            // without the value set when that alone is unsatisfiable.
            let mut a = base;
            a.push(r.a_rf.clone());
            a.extend(r.axioms.iter().map(|(_, l)| l.clone()));
            if self.settle().is_err() {
                return out;
            }
            let mut answer = self.check_on(&self.solver, &a, None);
            if matches!(answer, Answer::Yes(_)) {
                let g = self.guesses(m);
                if g.done == Some(Ok(())) {
                    a.push(g.lit);
                    answer = self.check_on(&self.solver, &a, None);
                }
            }
            if matches!(answer, Answer::No) {
                let core = self.solver.get_unsat_core();
                out.forbidden_jointly = r
                    .axioms
                    .iter()
                    .filter(|(_, l)| core.iter().any(|c| c == l))
                    .map(|(n, _)| n.clone())
                    .collect();
            }
        }
        out
    }
}
