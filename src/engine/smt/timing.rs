//! When events may happen: the per-class timing constraints of docs/semantics.md §3, each behind
//! its (kind, class) assumption literal, plus the leaving events of §2 and workgroup
//! barriers.
//!
//! For an event of dynamic block db = (subgroup, block instance):
//! - synchronous: a start time S with every member's previous event before S, every member's
//!   event at or after S, and every non-member's *leaving event* for db before S;
//! - collective: members share one time G (memory: a contiguous slot [G, G+|T(db)|) that no
//!   conflicting access enters), previous events and leaving events before G;
//! - speculative: collective without the leaving-event condition (T(db) is the final set);
//! - lazy: members issue alone; a resolution time R after every issue and every non-member's
//!   leaving event; every read of the result register comes after R;
//! - independent, symbolic: nothing.
//!
//! Constraints whose premise folds to `false` (a thread that cannot be in the block, a
//! member that certainly is) are never built.

use super::terms::{and, implies, is_false, is_true, or};
use super::time::Time;
use super::Encoding;
use crate::budget::{Budget, Exhausted};
use crate::eval::UbKind;
use crate::ir::Term;
use crate::ir::{BlockId, Op, Target};
use crate::vocab::{Class, Kind, Members, TimingRule};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use z3::ast::{Bool, Int};

impl<'p> Encoding<'p> {
    /// The time of thread `w`'s leaving event for block `b`: the terminator after which `b`
    /// is no longer reachable (only meaningful when `w` does not enter `b`).
    pub(super) fn leave(&self, w: u32, b: BlockId, path: Option<&[usize]>) -> Time {
        let prog = self.prog;
        let wi = w as usize;
        if let Some(path) = path {
            // A known path: the blocks on it that still reach b form a prefix (an earlier
            // block reaches every later one), so the leaving event is the terminator of the
            // prefix's last block: the branch away from b, or the return.
            let k = path.partition_point(|&p| p < b as usize && prog.reaches(p as BlockId, b));
            return match k {
                0 => Time::konst(-1, self.time_bits),
                k => self.ts[wi][path[k - 1]].last().expect("terminator").clone(),
            };
        }
        let mut acc = Time::konst(-1, self.time_bits);
        for p in 0..b as usize {
            if is_false(&self.inb[wi][p]) || !prog.reaches(p as BlockId, b) {
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
            let any = or(&conds);
            if is_false(&any) {
                continue;
            }
            let term = self.ts[wi][p].last().expect("terminator").clone();
            acc = Time::ite(&any, &term, &acc);
        }
        acc
    }

    /// Per-class timing constraints, each behind its (kind, class) literal.
    pub(super) fn timing(
        &self,
        used: &BTreeSet<(Kind, Class)>,
        resolve: &HashMap<(u32, BlockId, u32), Time>,
        budget: &Budget,
    ) -> Result<(), Exhausted> {
        let prog = self.prog;
        let lay = prog.layout;
        let mut leave_cache: HashMap<(u32, BlockId), Time> = HashMap::new();
        // Each thread's path, when every guard of it is known.
        let paths: Vec<Option<Vec<usize>>> = self
            .inb
            .iter()
            .map(|g| {
                g.iter()
                    .all(|b| super::terms::known(b).is_some())
                    .then(|| (0..g.len()).filter(|&b| is_true(&g[b])).collect())
            })
            .collect();
        let mut cs: Vec<Bool> = Vec::new();
        for sg in 0..lay.subgroups() {
            let threads: Vec<u32> = lay.subgroup_threads(sg).collect();
            for (b, block) in prog.blocks.iter().enumerate() {
                budget.check("encoding the models' timing constraints")?;
                let bid = b as BlockId;
                let in_block: Vec<Bool> = threads
                    .iter()
                    .map(|&u| self.inb[u as usize][b].clone())
                    .collect();
                if in_block.iter().all(is_false) {
                    continue;
                }
                let n = block.instrs.len() as u32;
                for pos in 0..=n + 1 {
                    let members: Vec<Bool> = match self.present.get(&(bid, pos)) {
                        Some(p) => in_block.iter().map(|m| and(&[m, p])).collect(),
                        None => in_block.clone(),
                    };
                    let any = or(&members);
                    if is_false(&any) {
                        continue;
                    }
                    let (kind, op) = if pos == 0 {
                        (Kind::Label, None)
                    } else if pos == n + 1 {
                        (Kind::Branch, None)
                    } else {
                        let op = &block.instrs[pos as usize - 1].op;
                        (op.kind(), Some(op))
                    };
                    if matches!(op, Some(Op::WorkgroupBarrier | Op::QuorumBarrier { .. }))
                        || kind == Kind::Local
                    {
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
                        // Every non-member's leaving event for db is before `time`.
                        let mut leaves_before = |time: &Time, cs: &mut Vec<Bool>| {
                            for (&w, m) in threads.iter().zip(&members) {
                                if is_true(m) {
                                    continue;
                                }
                                let premise = and(&[lit, &any, &m.not()]);
                                if is_false(&premise) {
                                    continue;
                                }
                                let l = leave_cache
                                    .entry((w, bid))
                                    .or_insert_with(|| {
                                        self.leave(w, bid, paths[w as usize].as_deref())
                                    })
                                    .clone();
                                cs.push(implies(&premise, &l.lt(time)));
                            }
                        };
                        let rule = TimingRule::of(kind, class);
                        // The time the undecided must have left before, if the rule has one.
                        let witness: Option<Time> = match rule.members {
                            Members::Alone => None,
                            Members::Start => {
                                let pt = self.point(bid, pos);
                                let s = self.time_var(format!("start_sg{sg}_b{b}_{pt}"));
                                for (&u, m) in threads.iter().zip(&members) {
                                    if !is_false(m) {
                                        cs.push(implies(
                                            &and(&[lit, m]),
                                            &and(&[&s.le(&ev(u)), &prev(u).lt(&s)]),
                                        ));
                                    }
                                }
                                Some(s)
                            }
                            Members::Group | Members::Slot => {
                                let pt = self.point(bid, pos);
                                let g = self.time_var(format!("group_sg{sg}_b{b}_{pt}"));
                                let slot = rule.members == Members::Slot;
                                if slot {
                                    self.collective_slot(
                                        sg, bid, pos, &threads, &members, &g, lit, &any, &mut cs,
                                    );
                                }
                                for (&u, m) in threads.iter().zip(&members) {
                                    if is_false(m) {
                                        continue;
                                    }
                                    let at = if slot { prev(u).lt(&g) } else { ev(u).eq(&g) };
                                    cs.push(implies(&and(&[lit, m]), &at));
                                }
                                Some(g)
                            }
                            Members::Resolve => {
                                let Some(r) = resolve.get(&(sg, bid, pos)).cloned() else {
                                    continue;
                                };
                                for (&u, m) in threads.iter().zip(&members) {
                                    if !is_false(m) {
                                        cs.push(implies(&and(&[lit, m]), &ev(u).lt(&r)));
                                    }
                                }
                                Some(r)
                            }
                        };
                        if let (Some(w), true) = (&witness, rule.waits_for_undecided) {
                            leaves_before(w, &mut cs);
                        }
                    }
                    for c in cs.drain(..) {
                        self.assert(&c);
                    }
                }
            }
        }
        Ok(())
    }

    /// Collective memory: the members' accesses take times in a slot [G, E), in some order,
    /// and no conflicting access of anyone else falls inside.
    #[allow(clippy::too_many_arguments)]
    fn collective_slot(
        &self,
        sg: u32,
        b: BlockId,
        pos: u32,
        threads: &[u32],
        members: &[Bool],
        g: &Time,
        lit: &Bool,
        any: &Bool,
        cs: &mut Vec<Bool>,
    ) {
        let bits = self.time_bits;
        let known = members.iter().filter(|m| is_true(m)).count() as i64;
        let open: Vec<&Bool> = members
            .iter()
            .filter(|m| super::terms::known(m).is_none())
            .collect();
        // |T(db)|: a constant when every membership is known (difference logic), else a sum.
        let cnt = open.iter().fold(Time::konst(known, bits), |acc, m| {
            acc.add(&Time::ite(m, &Time::konst(1, bits), &Time::konst(0, bits)))
        });
        let end = g.add(&cnt);
        for (&u, m) in threads.iter().zip(members) {
            if is_false(m) {
                continue;
            }
            let t = self.ts[u as usize][b as usize][pos as usize].clone();
            cs.push(implies(&and(&[lit, m]), &and(&[&g.le(&t), &t.lt(&end)])));
        }
        let lay = self.prog.layout;
        let inside: Vec<usize> = self
            .at
            .get(&(b, pos))
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| lay.subgroup_of(self.mem[i].thread) == sg)
            .collect();
        let Some(&first) = inside.first() else {
            return;
        };
        let global = self.mem[first].global;
        // Only accesses that may alias a member's access can conflict with it.
        let mut others: Vec<usize> = inside
            .iter()
            .flat_map(|&i| self.accesses_to(global, self.mem[i].cell))
            .collect();
        others.sort_unstable();
        others.dedup();
        for e in others {
            if inside.contains(&e) {
                continue;
            }
            let ev = &self.mem[e];
            let conflicts = inside.iter().any(|&i| {
                let m = &self.mem[i];
                m.may_alias(ev) && (m.write.is_some() || ev.write.is_some())
            });
            if !conflicts || is_false(&ev.guard) {
                continue;
            }
            tracing::trace!(sg, b, pos, other = e, "slot exclusion");
            cs.push(implies(
                &and(&[lit, any, &ev.guard]),
                &or(&[ev.ts.lt(g), ev.ts.ge(&end)]),
            ));
        }
    }

    /// The time quorum barrier `name` of workgroup `wg` opens (one constant per barrier: the
    /// timing constraints and the memory model's `sinst` name the same one).
    pub(super) fn quorum_release(&self, wg: u32, name: u32) -> Time {
        self.time_var(format!("quorum_wg{wg}_n{name}"))
    }

    /// Quorum barriers (docs/semantics.md): per workgroup and name, the barrier opens at a time
    /// T when at least its quorum of threads pass at T; no thread passes before T, every
    /// thread that arrived before T passes at T, later ones pass alone. If fewer than the
    /// quorum ever arrive, nobody passes: such an execution does not finish (no outcome).
    /// For liveness the barrier may instead be *stuck* ([`Quorum`]): it never opens, so
    /// nobody passes before the horizon, and the threads standing there may be blocked.
    pub(super) fn quorum_barriers(&mut self, budget: &Budget) -> Result<(), Exhausted> {
        let prog = self.prog;
        let lay = prog.layout;
        // (workgroup, name) -> quorum and every (thread, block, position) that may pass it.
        type Site = (u32, usize, usize);
        let mut sites: BTreeMap<(u32, u32), (u32, Vec<Site>)> = BTreeMap::new();
        for (b, block) in prog.blocks.iter().enumerate() {
            for (i, ins) in block.instrs.iter().enumerate() {
                let Op::QuorumBarrier { name, quorum } = ins.op else {
                    continue;
                };
                for u in 0..lay.threads {
                    if is_false(&self.inb[u as usize][b]) {
                        continue;
                    }
                    let entry = sites
                        .entry((lay.workgroup_of(u), name))
                        .or_insert((quorum, Vec::new()));
                    entry.1.push((u, b, i + 1));
                }
            }
        }
        for ((wg, name), (quorum, at)) in sites {
            let release = self.quorum_release(wg, name);
            let sites_of: Vec<(u32, BlockId, u32)> = at
                .iter()
                .map(|&(u, b, pos)| (u, b as BlockId, pos as u32))
                .collect();
            let mut passes = Vec::new();
            let mut reached = Vec::new();
            for (u, b, pos) in at {
                budget.check("encoding quorum barriers")?;
                let on = match self.present.get(&(b as BlockId, pos as u32)) {
                    Some(p) => and(&[&self.inb[u as usize][b], p]),
                    None => self.inb[u as usize][b].clone(),
                };
                let pass = self.ts[u as usize][b][pos].clone();
                let arrive = self.ts[u as usize][b]
                    [self.prev_pos(b as BlockId, pos as u32) as usize]
                    .clone();
                self.assert(&implies(&on, &pass.ge(&release)));
                self.assert(&implies(
                    &and(&[&on, &arrive.lt(&release)]),
                    &pass.eq(&release),
                ));
                passes.push(and(&[&on, &pass.eq(&release)]));
                reached.push(on);
            }
            let one = Int::from_i64(1);
            let zero = Int::from_i64(0);
            let counts: Vec<Int> = passes.iter().map(|p| p.ite(&one, &zero)).collect();
            let refs: Vec<&Int> = counts.iter().collect();
            let enough = Int::add(&refs).ge(Int::from_i64(quorum as i64));
            if self.liveness {
                let stuck = Bool::fresh_const(&format!("quorum_stuck_wg{wg}_n{name}"));
                self.assert(&implies(&or(&reached), &or(&[enough, stuck.clone()])));
                self.quorums.push(Quorum {
                    quorum,
                    release,
                    stuck,
                    sites: sites_of,
                });
            } else {
                self.assert(&implies(&or(&reached), &enough));
            }
            // A count is no difference constraint: the difference-logic solver cannot take it.
            self.dl_ok.set(false);
        }
        Ok(())
    }

    /// Workgroup barriers: the whole workgroup passes the same instance at one time; a thread
    /// without its peers is barrier divergence (undefined behaviour).
    pub(super) fn workgroup_barriers(&mut self, budget: &Budget) -> Result<(), Exhausted> {
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
                    let ts: Vec<u32> = lay.workgroup_threads(wg).collect();
                    let ons: Vec<Bool> = ts.iter().map(|&u| on(u)).collect();
                    if ons.iter().all(is_false) {
                        continue;
                    }
                    let g = self.time_var(format!("wgbarrier_wg{wg}_b{b}_p{pos}"));
                    for (k, &u) in ts.iter().enumerate() {
                        // Quadratic in the workgroup's size: checked per member.
                        budget.check("encoding workgroup barriers")?;
                        let m = &ons[k];
                        let c = implies(m, &self.ts[u as usize][b][pos].eq(&g));
                        self.assert(&c);
                        for (k2, _) in ts.iter().enumerate() {
                            if k != k2 {
                                let c = and(&[m, &ons[k2].not()]);
                                if !is_false(&c) {
                                    self.ub.push((UbKind::BarrierDivergence, c));
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// One quorum barrier (a workgroup and a name) as the liveness question sees it: if `stuck`,
/// it never opens (its `release` is at or after the horizon), and a thread standing at one of
/// its `sites` (thread, block, position of the barrier's event) is blocked while fewer than
/// `quorum` threads stand at them.
pub(super) struct Quorum {
    pub quorum: u32,
    pub release: Time,
    pub stuck: Bool,
    pub sites: Vec<(u32, BlockId, u32)>,
}
