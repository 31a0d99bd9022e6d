//! Sequentially consistent memory: reads-from over timestamps, final values, and the
//! alias analysis that keeps both near-linear in race-free code.
//!
//! Before any constraint is made, each access gets its cell when the address folded to a
//! constant ([`MemEv::cell`]); two accesses *may alias* when they are to the same global and
//! their cells are equal or one is unknown (Dat3M's may-set, computed per access). Then:
//! - only *conflicting* pairs (may alias, different threads, one writes) get distinct times;
//! - a load chooses its source among the stores that may alias it and may precede it in
//!   program order (none: it reads the initial value, a constant for a known cell);
//! - a final cell is the latest of the stores that may hit that cell only.
//!
//! A load and a store at the same time cannot happen (they conflict, so their times differ);
//! two loads may share a time, which orders nothing.

use super::terms::{and, bv, eq, implies, is_false, ite, or};
use super::{Encoding, MemEv};
use crate::budget::{Budget, Exhausted};
use crate::ir::GlobalInfo;
use std::collections::HashMap;
use z3::ast::{Bool, BV};

impl MemEv {
    /// May `self` and `o` touch the same cell?
    pub(super) fn may_alias(&self, o: &MemEv) -> bool {
        self.global == o.global
            && match (self.cell, o.cell) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            }
    }

    /// Different threads, may alias, and one of them writes.
    pub(super) fn conflicts(&self, o: &MemEv) -> bool {
        self.thread != o.thread && (self.write.is_some() || o.write.is_some()) && self.may_alias(o)
    }
}

impl<'p> Encoding<'p> {
    /// Indices of the accesses that may touch cell `cell` of `global` (`None`: any cell).
    pub(super) fn accesses_to(&self, global: u32, cell: Option<u32>) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        if let Some(by_cell) = self.by_global.get(&global) {
            match cell {
                Some(c) => {
                    out.extend(by_cell.get(&Some(c)).into_iter().flatten());
                    out.extend(by_cell.get(&None).into_iter().flatten());
                }
                None => out.extend(by_cell.values().flatten()),
            }
        }
        out.sort_unstable();
        out
    }

    /// Groups the accesses by global and cell, for the alias queries.
    pub(super) fn index_accesses(&mut self) {
        let mut by: HashMap<u32, HashMap<Option<u32>, Vec<usize>>> = HashMap::new();
        let mut at: HashMap<(crate::ir::BlockId, u32), Vec<usize>> = HashMap::new();
        for (i, e) in self.mem.iter().enumerate() {
            by.entry(e.global)
                .or_default()
                .entry(e.cell)
                .or_default()
                .push(i);
            at.entry((e.block, e.pos)).or_default().push(i);
        }
        self.by_global = by;
        self.at = at;
    }

    /// Could access `a` come before access `b` in an execution? Always across threads; within
    /// a thread, only when `a` precedes `b` in program order.
    fn may_precede(&self, a: &MemEv, b: &MemEv) -> bool {
        a.thread != b.thread
            || (a.block == b.block && a.pos < b.pos)
            || (a.block != b.block && self.prog.reaches(a.block, b.block))
    }

    /// Does `a` certainly precede `b` whenever both happen (same thread, program order)?
    fn must_precede(&self, a: &MemEv, b: &MemEv) -> bool {
        a.thread == b.thread && self.may_precede(a, b)
    }

    pub(super) fn memory(&mut self, budget: &Budget) -> Result<(), Exhausted> {
        self.index_accesses();
        let n = self.mem.len();
        self.dead = (0..n).map(|l| self.is_dead_read(l)).collect();
        // Conflicting accesses happen at distinct times (a dead read's time orders nothing).
        for i in 0..n {
            budget.check("encoding memory order")?;
            let a = &self.mem[i];
            for j in self.accesses_to(a.global, a.cell) {
                let b = &self.mem[j];
                if j <= i || !a.conflicts(b) || self.dead[i] || self.dead[j] {
                    continue;
                }
                budget.check("encoding memory order")?;
                self.races += 1;
                let c = implies(&and(&[&a.guard, &b.guard]), &a.ts.eq(&b.ts).not());
                self.assert(&c);
            }
        }
        if !self.present.is_empty() {
            self.memory_functional(budget)?;
            return Ok(());
        }
        // Reads-from: a load reads the store whose time is its `source`, and every store to
        // the same cell before the load is at or before that source (conflicting times are
        // distinct, so the source is the latest such store).
        for l in 0..n {
            budget.check("encoding reads-from")?;
            let Some(val) = self.mem[l].read.clone() else {
                continue;
            };
            if self.dead[l] {
                continue;
            }
            let ld = &self.mem[l];
            let g = &self.prog.globals[ld.global as usize];
            let stores = self.sources(l);
            let init = init_value(g, &ld.index);
            if stores.is_empty() {
                let c = implies(&ld.guard, &eq(&val, &init));
                self.assert(&c);
                continue;
            }
            let same = |s: usize| and(&[&self.mem[s].guard, &eq(&self.mem[s].index, &ld.index)]);
            let source = self.time_var(format!("source_t{}_b{}_p{}", ld.thread, ld.block, ld.pos));
            let from_init = Bool::new_const(format!(
                "from_init_t{}_b{}_p{}",
                ld.thread, ld.block, ld.pos
            ));
            let mut options = vec![from_init.clone()];
            let mut init_c = vec![eq(&val, &init)];
            let mut cs = Vec::new();
            for &s in &stores {
                budget.check("encoding reads-from")?;
                let st = &self.mem[s];
                let before = and(&[&same(s), &st.ts.lt(&ld.ts)]);
                init_c.push(before.not());
                cs.push(implies(&and(&[&ld.guard, &before]), &st.ts.le(&source)));
                let rf = Bool::new_const(format!(
                    "rf_t{}_b{}_p{}_from_t{}_b{}_p{}",
                    ld.thread, ld.block, ld.pos, st.thread, st.block, st.pos
                ));
                let w = st.write.as_ref().expect("a store");
                cs.push(implies(
                    &rf,
                    &and(&[&before, &eq(&val, w), &source.eq(&st.ts)]),
                ));
                options.push(rf);
            }
            let refs: Vec<&Bool> = init_c.iter().collect();
            cs.push(implies(&from_init, &and(&refs)));
            cs.push(implies(&ld.guard, &or(&options)));
            for c in cs {
                self.assert(&c);
            }
        }
        Ok(())
    }

    /// Is access `l` a *dead read*, a plain load whose value nothing the question sees
    /// depends on ([`crate::ir::Deps::read_matters`])? Its reads-from and its distinctness
    /// from conflicting stores are then left out: under SC every schedule gives a load
    /// exactly one value, so leaving it open allows no schedule the program does not have,
    /// and with n lanes racing on one cell this removes most of the n³ reads-from and n²
    /// ordering constraints the solver would search through (docs/benchmarks.md). Witnesses
    /// give a dead read the value SC gives it in the schedule found ([`Encoding::dead_read_value`]).
    fn is_dead_read(&self, l: usize) -> bool {
        let e = &self.mem[l];
        if self.liveness || e.write.is_some() || e.read.is_none() || !self.present.is_empty() {
            return false;
        }
        !self.prog.read_matters(e.thread, (e.block, e.pos - 1))
    }

    /// The value dead read `l` returns in `model`: that of the latest store to its cell
    /// before it in the witness's order (time, then thread, block and position, as
    /// [`Encoding::decode`] sorts events; a dead read may share its time with a store), or
    /// the cell's initial value.
    pub(super) fn dead_read_value(&self, model: &z3::Model, l: usize) -> u32 {
        use super::decode::{model_bool, model_u32};
        let order = |e: &MemEv| (e.ts.eval(model).unwrap_or(0), e.thread, e.block, e.pos);
        let ld = &self.mem[l];
        let index = model_u32(model, &ld.index);
        let latest = self
            .sources(l)
            .into_iter()
            .map(|s| &self.mem[s])
            .filter(|st| {
                model_bool(model, &st.guard)
                    && model_u32(model, &st.index) == index
                    && order(st) < order(ld)
            })
            .max_by_key(|st| order(st));
        match latest {
            Some(st) => model_u32(model, st.write.as_ref().expect("a store")),
            None => {
                let g = &self.prog.globals[ld.global as usize];
                g.init.get(index as usize).copied().unwrap_or(0)
            }
        }
    }

    /// The stores (and atomics) a load (or atomic) `l` may read from.
    fn sources(&self, l: usize) -> Vec<usize> {
        let ld = &self.mem[l];
        self.accesses_to(ld.global, ld.cell)
            .into_iter()
            .filter(|&s| {
                let st = &self.mem[s];
                s != l
                    && st.write.is_some()
                    && !is_false(&st.guard)
                    && st.may_alias(ld)
                    && self.may_precede(st, ld)
            })
            .collect()
    }

    /// Template mode: every loaded value is a term, the value of the latest store to the cell
    /// before the load (or the initial value), so that it follows from times and choices.
    fn memory_functional(&mut self, budget: &Budget) -> Result<(), Exhausted> {
        for l in 0..self.mem.len() {
            budget.check("encoding reads-from")?;
            let Some(val) = self.mem[l].read.clone() else {
                continue;
            };
            let ld = &self.mem[l];
            let g = &self.prog.globals[ld.global as usize];
            let stores = self.sources(l);
            let before = |s: usize| {
                let st = &self.mem[s];
                and(&[&st.guard, &eq(&st.index, &ld.index), &st.ts.lt(&ld.ts)])
            };
            let def = self.latest(&stores, &before, init_value(g, &ld.index))?;
            self.define(&val, &def);
        }
        Ok(())
    }

    /// The value written by the latest of `stores` satisfying `hits`, else `init`. Program
    /// order decides between two stores of one thread without a constraint.
    fn latest(
        &self,
        stores: &[usize],
        hits: &dyn Fn(usize) -> Bool,
        init: BV,
    ) -> Result<BV, Exhausted> {
        let mut acc = init;
        for &s in stores {
            self.building.check("encoding final values")?;
            let mut c = vec![hits(s)];
            for &s2 in stores {
                if s2 == s {
                    continue;
                }
                let (a, b) = (&self.mem[s2], &self.mem[s]);
                if self.must_precede(a, b) {
                    continue;
                }
                if self.must_precede(b, a) {
                    c.push(hits(s2).not());
                    continue;
                }
                c.push(implies(&hits(s2), &a.ts.lt(&b.ts)));
            }
            let refs: Vec<&Bool> = c.iter().collect();
            let w = self.mem[s].write.as_ref().expect("a store");
            acc = ite(&and(&refs), w, &acc);
        }
        Ok(acc)
    }

    /// The final value of a memory cell: the latest store that may hit it, or its initial
    /// value.
    pub(super) fn final_cell(&mut self, cell: u32) -> Result<BV, Exhausted> {
        let prog = self.prog;
        let (gi, g) = prog
            .globals
            .iter()
            .enumerate()
            .find(|(_, g)| cell >= g.base && cell < g.base + g.len)
            .expect("observable cells exist");
        let off = cell - g.base;
        if self.relaxed.is_some() {
            return Ok(self.final_cell_relaxed(gi as u32, off));
        }
        let idx = bv(off);
        let stores: Vec<usize> = self
            .accesses_to(gi as u32, Some(off))
            .into_iter()
            .filter(|&s| self.mem[s].write.is_some() && !is_false(&self.mem[s].guard))
            .collect();
        let hits = |s: usize| and(&[&self.mem[s].guard, &eq(&self.mem[s].index, &idx)]);
        let init = bv(g.init[off as usize]);
        let def = self.latest(&stores, &hits, init)?;
        if self.present.is_empty() {
            return Ok(def);
        }
        let fin = BV::new_const(format!("final_{}", prog.cell_name(cell)), 32);
        self.define(&fin, &def);
        Ok(fin)
    }
}

/// The initial value of `g[index]` (folds to a constant for a constant index).
pub(super) fn init_value(g: &GlobalInfo, index: &BV) -> BV {
    if let Some(i) = super::terms::num(index) {
        return bv(g.init.get(i as usize).copied().unwrap_or(0));
    }
    let mut acc = bv(0);
    for (k, v) in g.init.iter().enumerate().rev() {
        acc = ite(&eq(index, &bv(k as u32)), &bv(*v), &acc);
    }
    acc
}
