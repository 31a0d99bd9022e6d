//! The symbolic cat back end: sets and relations as Boolean terms over the unrolled program's
//! events, for [`crate::cat::interp`] (the same interpreter the concrete back end runs).
//!
//! A set is one term per event (is it in the set?); a relation is a sparse map from event
//! pairs to terms, a missing pair being `false`. Every term is the condition *given that the
//! events it names happen*: an event that does not happen is in nothing, but its guard is
//! conjoined only where an operation needs it (the middle event of a composition or of a
//! closure, the events a check reads), not into every entry. So program order, the same
//! thread's barriers and the like are the constant `true`, a closure of them folds away, and
//! a loop's path conditions are not spelled out again in every pair and every composition of
//! pairs (conjoined eagerly, they made Z3's first call on a spin lock unrolled eight times run
//! a minute past its time limit). Every operation folds constants, so what the static
//! analysis rules out (pairs of events that can never relate: other threads' program order,
//! accesses to different cells) never becomes a term. Transitive closure is Warshall's
//! elimination with a fresh name per grown entry; acyclicity of an axiom is an order clock
//! per event (each edge raises the clock), and elsewhere irreflexivity of the closure, which
//! is exact in both polarities. `TANGLE_CAT_ACYCLIC=closure` uses the closure for axioms too,
//! to measure the two (docs/memory-models.md, "Why a verdict is what it is").

use super::terms::{and, implies, is_false, is_true, konst, not, or};
use crate::budget::{Budget, Exhausted};
use crate::cat::interp::{Algebra, Val};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;
use z3::ast::{Bool, Int};

/// One term per event.
pub(super) type Set = Rc<Vec<Bool>>;
/// Event pairs that may relate, with the condition under which they do.
pub(super) type Rel = Rc<BTreeMap<(u32, u32), Bool>>;

pub(super) struct Sym {
    pub n: usize,
    /// Each event happens when its guard holds. Entries of sets and relations leave it out.
    pub guard: Vec<Bool>,
    pub sets: HashMap<String, Set>,
    pub rels: HashMap<String, Rel>,
    /// Definitions of the fresh names (closure entries, order clocks): asserted as they are.
    pub side: Vec<Bool>,
    pub budget: Budget,
    /// Set when the budget ran out: from then on every operation gives an empty result, and
    /// the caller reports the reason instead of the model's verdict.
    pub exhausted: Option<Exhausted>,
    /// Acyclicity of axioms by closure rather than order clocks.
    pub closure_only: bool,
    fresh: usize,
}

impl Sym {
    pub(super) fn new(n: usize, guard: Vec<Bool>, budget: Budget) -> Sym {
        Sym {
            n,
            guard,
            sets: HashMap::new(),
            rels: HashMap::new(),
            side: Vec::new(),
            budget,
            exhausted: None,
            closure_only: std::env::var("TANGLE_CAT_ACYCLIC").is_ok_and(|v| v == "closure"),
            fresh: 0,
        }
    }

    /// Is the budget spent? Checked once per row of the quadratic and cubic operations.
    fn spent(&mut self) -> bool {
        if self.exhausted.is_none() {
            if let Err(e) = self.budget.check("encoding the memory model") {
                self.exhausted = Some(e);
            }
        }
        self.exhausted.is_some()
    }

    /// `t`, or a fresh name defined as `t` when `t` is not a constant.
    fn name(&mut self, prefix: &str, t: Bool) -> Bool {
        if t.as_bool().is_some() {
            return t;
        }
        self.fresh += 1;
        let v = Bool::new_const(format!("cat_{prefix}{}", self.fresh));
        self.side.push(v.eq(&t));
        v
    }

    fn rel(m: BTreeMap<(u32, u32), Bool>) -> Rel {
        Rc::new(m.into_iter().filter(|(_, t)| !is_false(t)).collect())
    }

    fn rows(r: &Rel) -> HashMap<u32, Vec<(u32, Bool)>> {
        let mut rows: HashMap<u32, Vec<(u32, Bool)>> = HashMap::new();
        for (&(a, b), t) in r.iter() {
            rows.entry(a).or_default().push((b, t.clone()));
        }
        rows
    }

    /// The paths `a ; b` through each middle event, which must happen (the ends are
    /// assumed to).
    fn compose(&mut self, a: &Rel, b: &Rel) -> BTreeMap<(u32, u32), Vec<Bool>> {
        let rows = Self::rows(b);
        let mut acc: BTreeMap<(u32, u32), Vec<Bool>> = BTreeMap::new();
        let mut last = u32::MAX;
        for (&(i, k), t) in a.iter() {
            if i != last {
                last = i;
                if self.spent() {
                    return BTreeMap::new();
                }
            }
            for (j, u) in rows.get(&k).into_iter().flatten() {
                let path = if k == i || k == *j {
                    and(&[t, u])
                } else {
                    and(&[t, u, &self.guard[k as usize]])
                };
                acc.entry((i, *j)).or_default().push(path);
            }
        }
        acc
    }

    /// The relation's entries with their events' guards: where it really relates.
    fn happening(&self, r: &Rel) -> Vec<((u32, u32), Bool)> {
        let g = &self.guard;
        r.iter()
            .map(|(&(x, y), t)| {
                let t = if x == y {
                    and(&[&g[x as usize], t])
                } else {
                    and(&[&g[x as usize], &g[y as usize], t])
                };
                ((x, y), t)
            })
            .collect()
    }
}

impl Algebra for Sym {
    type Set = Set;
    type Rel = Rel;
    type Bool = Bool;

    fn base(&mut self, name: &str) -> Option<Val<Self>> {
        if let Some(s) = self.sets.get(name) {
            return Some(Val::Set(s.clone()));
        }
        if name == "id" {
            let u = self.universe();
            return Some(Val::Rel(self.id_on(&u)));
        }
        self.rels.get(name).map(|r| Val::Rel(r.clone()))
    }
    fn universe(&mut self) -> Set {
        Rc::new(vec![konst(true); self.n])
    }
    fn empty_set(&mut self) -> Set {
        Rc::new(vec![konst(false); self.n])
    }
    fn empty_rel(&mut self) -> Rel {
        Rc::new(BTreeMap::new())
    }

    fn set_union(&mut self, a: &Set, b: &Set) -> Set {
        Rc::new(
            a.iter()
                .zip(b.iter())
                .map(|(x, y)| or(&[x.clone(), y.clone()]))
                .collect(),
        )
    }
    fn set_inter(&mut self, a: &Set, b: &Set) -> Set {
        Rc::new(a.iter().zip(b.iter()).map(|(x, y)| and(&[x, y])).collect())
    }
    fn set_diff(&mut self, a: &Set, b: &Set) -> Set {
        Rc::new(
            a.iter()
                .zip(b.iter())
                .map(|(x, y)| and(&[x, &not(y)]))
                .collect(),
        )
    }

    fn union(&mut self, a: &Rel, b: &Rel) -> Rel {
        let mut m: BTreeMap<(u32, u32), Bool> = (**a).clone();
        for (k, t) in b.iter() {
            let v = match m.get(k) {
                Some(x) => or(&[x.clone(), t.clone()]),
                None => t.clone(),
            };
            m.insert(*k, v);
        }
        Self::rel(m)
    }
    fn inter(&mut self, a: &Rel, b: &Rel) -> Rel {
        let m = a
            .iter()
            .filter_map(|(k, t)| b.get(k).map(|u| (*k, and(&[t, u]))))
            .collect();
        Self::rel(m)
    }
    fn diff(&mut self, a: &Rel, b: &Rel) -> Rel {
        let m = a
            .iter()
            .map(|(k, t)| match b.get(k) {
                Some(u) => (*k, and(&[t, &not(u)])),
                None => (*k, t.clone()),
            })
            .collect();
        Self::rel(m)
    }
    fn seq(&mut self, a: &Rel, b: &Rel) -> Rel {
        let m = self
            .compose(a, b)
            .into_iter()
            .map(|(k, ts)| (k, or(&ts)))
            .collect();
        Self::rel(m)
    }
    fn inverse(&mut self, a: &Rel) -> Rel {
        Rc::new(a.iter().map(|(&(x, y), t)| ((y, x), t.clone())).collect())
    }
    /// Warshall's elimination: after event k, every path whose middle events are all at
    /// most k is in. One pass over the middle events builds each path once (squaring builds
    /// the cube of the pairs once per doubling of the path length), pairs already known to
    /// relate are skipped, and each entry gets a name at the end, so later uses stay small.
    fn plus(&mut self, a: &Rel) -> Rel {
        let mut cur: BTreeMap<(u32, u32), Bool> = (**a).clone();
        let mid: BTreeSet<u32> = a
            .keys()
            .filter(|(x, y)| x != y)
            .flat_map(|&(x, y)| [x, y])
            .collect();
        let mut grown: BTreeSet<(u32, u32)> = BTreeSet::new();
        for k in mid {
            if self.spent() {
                break;
            }
            let into: Vec<(u32, Bool)> = cur
                .iter()
                .filter(|((i, j), _)| *j == k && *i != k)
                .map(|(&(i, _), t)| (i, t.clone()))
                .collect();
            let out: Vec<(u32, Bool)> = cur
                .range((k, 0)..(k + 1, 0))
                .filter(|((_, j), _)| *j != k)
                .map(|(&(_, j), t)| (j, t.clone()))
                .collect();
            let hk = self.guard[k as usize].clone();
            for (i, t) in &into {
                for (j, u) in &out {
                    let old = cur.get(&(*i, *j));
                    if old.is_some_and(is_true) {
                        continue;
                    }
                    let path = and(&[t, &hk, u]);
                    let new = match old {
                        Some(o) => or(&[o.clone(), path]),
                        None => path,
                    };
                    cur.insert((*i, *j), new);
                    grown.insert((*i, *j));
                }
            }
        }
        for k in grown {
            let t = cur[&k].clone();
            cur.insert(k, self.name("tc", t));
        }
        Self::rel(cur)
    }
    fn id_on(&mut self, s: &Set) -> Rel {
        let m = s
            .iter()
            .enumerate()
            .map(|(i, t)| ((i as u32, i as u32), t.clone()))
            .collect();
        Self::rel(m)
    }
    fn cartesian(&mut self, a: &Set, b: &Set) -> Rel {
        let mut m = BTreeMap::new();
        for (i, x) in a.iter().enumerate() {
            if is_false(x) {
                continue;
            }
            if self.spent() {
                break;
            }
            for (j, y) in b.iter().enumerate() {
                if !is_false(y) {
                    m.insert((i as u32, j as u32), and(&[x, y]));
                }
            }
        }
        Self::rel(m)
    }
    fn domain(&mut self, r: &Rel) -> Set {
        let mut v: Vec<Vec<Bool>> = vec![Vec::new(); self.n];
        for (&(x, y), t) in r.iter() {
            let t = if x == y {
                t.clone()
            } else {
                and(&[t, &self.guard[y as usize]])
            };
            v[x as usize].push(t);
        }
        Rc::new(v.iter().map(|ts| or(ts)).collect())
    }
    fn range(&mut self, r: &Rel) -> Set {
        let inv = self.inverse(r);
        self.domain(&inv)
    }

    fn rel_eq(&mut self, a: &Rel, b: &Rel) -> Option<bool> {
        let same = a.len() == b.len()
            && a.iter()
                .zip(b.iter())
                .all(|((k, t), (l, u))| k == l && t == u);
        same.then_some(true)
    }
    fn set_eq(&mut self, a: &Set, b: &Set) -> Option<bool> {
        (a.iter().zip(b.iter()).all(|(t, u)| t == u)).then_some(true)
    }
    /// A monotone `let rec` over n events is stable after at most n² rounds.
    fn fixpoint_rounds(&self) -> usize {
        (self.n * self.n).max(1)
    }

    fn acyclic(&mut self, r: &Rel) -> Bool {
        let tc = self.plus(r);
        self.irreflexive(&tc)
    }
    /// An axiom: the relation must be acyclic, so an order clock per event that every edge
    /// raises is enough (and far smaller than a closure).
    fn acyclic_axiom(&mut self, r: &Rel) -> Bool {
        if self.closure_only {
            return self.acyclic(r);
        }
        let edges = self.happening(r);
        if edges.iter().any(|((x, y), _)| x == y) {
            // A self-loop: the clock cannot rise along it.
            let diag: Vec<Bool> = edges
                .iter()
                .filter(|((x, y), _)| x == y)
                .map(|(_, t)| t.clone())
                .collect();
            if or(&diag).as_bool() == Some(true) {
                return konst(false);
            }
        }
        self.fresh += 1;
        let k = self.fresh;
        let lit = Bool::new_const(format!("cat_acyclic{k}"));
        let mut clocks: HashMap<u32, Int> = HashMap::new();
        let mut clock = |e: u32| {
            clocks
                .entry(e)
                .or_insert_with(|| Int::new_const(format!("cat_clock{k}_e{e}")))
                .clone()
        };
        for ((x, y), t) in &edges {
            let (x, y) = (*x, *y);
            let c = if x == y {
                not(t)
            } else {
                implies(t, &clock(x).lt(clock(y)))
            };
            self.side.push(implies(&lit, &c));
        }
        lit
    }
    fn irreflexive(&mut self, r: &Rel) -> Bool {
        let diag: Vec<Bool> = self
            .happening(r)
            .into_iter()
            .filter(|((x, y), _)| x == y)
            .map(|(_, t)| t)
            .collect();
        not(&or(&diag))
    }
    fn is_empty(&mut self, r: &Rel) -> Bool {
        let all: Vec<Bool> = self.happening(r).into_iter().map(|(_, t)| t).collect();
        not(&or(&all))
    }
    fn set_is_empty(&mut self, s: &Set) -> Bool {
        let all: Vec<Bool> = s
            .iter()
            .zip(&self.guard)
            .map(|(t, g)| and(&[g, t]))
            .collect();
        not(&or(&all))
    }
    fn truth(&mut self, b: bool) -> Bool {
        konst(b)
    }
    fn not(&mut self, b: &Bool) -> Bool {
        not(b)
    }
}
