//! From a Z3 model back to an execution: the witness trace, events ordered by time and
//! collective groups merged into one step.

use super::time::Time;
use super::Encoding;
use crate::engine::trace::{At, Effect, Step};
use crate::ir::BlockId;
use crate::ir::Term;
use crate::model::Model;
use crate::vocab::Kind;
use z3::ast::{Ast, Bool, BV};

impl<'p> Encoding<'p> {
    /// Turns a Z3 model into a witness trace: events ordered by time, collective groups merged.
    pub(super) fn decode(&self, model: &z3::Model, m: &Model) -> Vec<Step> {
        self.decode_before(model, m, None)
    }

    /// As [`Encoding::decode`], keeping only the events before time `until` when given.
    pub(super) fn decode_before(
        &self,
        model: &z3::Model,
        m: &Model,
        until: Option<i64>,
    ) -> Vec<Step> {
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
                    if until.is_some_and(|u| ts >= u) {
                        continue;
                    }
                    events.push((ts, t, b as BlockId, pos));
                }
            }
        }
        events.sort();
        // Dead reads were left open: their values (and registers computed from them) are the
        // ones SC gives in this schedule.
        let dead: Vec<(BV, BV)> = (0..self.mem.len())
            .filter(|&l| self.dead.get(l) == Some(&true))
            .filter_map(|l| {
                let r = self.mem[l].read.clone()?;
                Some((r, BV::from_u64(self.dead_read_value(model, l) as u64, 32)))
            })
            .collect();
        let subst: Vec<(&BV, &BV)> = dead.iter().map(|(r, v)| (r, v)).collect();
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
            let grouped = m.rule(kind).one_time();
            let sg = prog.layout.subgroup_of(t);
            let effects = self.effects(model, &subst, t, b, pos);
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

    fn effects(
        &self,
        model: &z3::Model,
        subst: &[(&BV, &BV)],
        t: u32,
        b: BlockId,
        pos: u32,
    ) -> Vec<Effect> {
        let value = |v: &BV| {
            if subst.is_empty() {
                model_u32(model, v)
            } else {
                model_u32(model, &v.substitute(subst))
            }
        };
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
                    old: value(r),
                    new: model_bool(model, &e.stores).then(|| value(w)),
                }),
                (Some(r), None) => {
                    let reg = self.written.get(&(t, b, pos)).map_or(0, |w| w.0);
                    out.push(Effect::Read {
                        thread: t,
                        reg,
                        cell,
                        value: value(r),
                        open: false,
                    })
                }
                (None, Some(w)) => out.push(Effect::Write {
                    thread: t,
                    cell,
                    value: value(w),
                }),
                (None, None) => {}
            }
            return out;
        }
        if let Some((reg, v)) = self.written.get(&(t, b, pos)) {
            out.push(Effect::Reg {
                thread: t,
                reg: *reg,
                value: value(v),
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

pub(super) fn model_u32(model: &z3::Model, v: &BV) -> u32 {
    model.eval(v, true).and_then(|x| x.as_u64()).unwrap_or(0) as u32
}

pub(super) fn model_bool(model: &z3::Model, b: &Bool) -> bool {
    model
        .eval(b, true)
        .and_then(|x| x.as_bool())
        .unwrap_or(false)
}
