//! Rule schemas: unbounded inclusion proofs, one instruction kind at a time.
//!
//! Everything the encoding asserts about a program is shared by all models except the timing
//! constraint of each (kind, class) pair, stated per dynamic block. So if, for every kind, the
//! constraint of A's class implies that of B's class for *one dynamic block with an arbitrary
//! finite set of threads*, every execution under A is an execution under B, for programs of any
//! size. This module states that implication with uninterpreted threads and real-valued times
//! (an order of events can always be stretched to make room for a resolution step, so reals
//! lose nothing) and asks Z3 whether it is valid.
//!
//! The schema's vocabulary, per thread u of the subgroup: `member(u)` (u is in T(db)), `ts(u)`
//! (its event), `prev(u)` (its previous event), `use(u)` (its first read of the event's
//! result), `leave(u)` (its leaving event, for non-members). Finiteness is stated as the
//! existence of extreme elements (a finite set has a minimum and a maximum).

use super::Answer;
use crate::vocab::{Class, Kind, Members, TimingRule};
use z3::ast::{exists_const, forall_const, Bool, Dynamic, Real};
use z3::{FuncDecl, SatResult, Solver, Sort};

struct Schema {
    member: FuncDecl,
    ts: FuncDecl,
    prev: FuncDecl,
    use_: FuncDecl,
    leave: FuncDecl,
    thread: Sort,
}

impl Schema {
    fn new() -> Schema {
        let thread = Sort::uninterpreted("Thread".into());
        let real = Sort::real();
        let f = |n: &str, r: &Sort| FuncDecl::new(n, &[&thread], r);
        Schema {
            member: f("member", &Sort::bool()),
            ts: f("ts", &real),
            prev: f("prev", &real),
            use_: f("use", &real),
            leave: f("leave", &real),
            thread,
        }
    }
    fn m(&self, u: &Dynamic) -> Bool {
        self.member.apply(&[u]).as_bool().expect("bool")
    }
    fn r(&self, f: &FuncDecl, u: &Dynamic) -> Real {
        f.apply(&[u]).as_real().expect("real")
    }

    /// The timing constraint of `class` for `kind` for thread `u`, with witness time `w` (the
    /// group time G, start time S, or resolution time R); `None` when it constrains nothing.
    fn body(&self, kind: Kind, class: Class, w: &Real, u: &Dynamic) -> Option<Bool> {
        let m = self.m(u);
        let ts = self.r(&self.ts, u);
        let prev = self.r(&self.prev, u);
        let use_ = self.r(&self.use_, u);
        let leave = self.r(&self.leave, u);
        let rule = TimingRule::of(kind, class);
        let tied = match rule.members {
            Members::Alone => None,
            // A slot's accesses fall in [G, G + |T(db)|): for one event that is "at or after
            // G, previous event before G", as for a start time.
            Members::Start | Members::Slot => Some(m.implies(Bool::and(&[w.le(&ts), prev.lt(w)]))),
            Members::Group => Some(m.implies(ts.eq(w))),
            Members::Resolve => Some(m.implies(Bool::and(&[ts.lt(w), w.lt(&use_)]))),
        }?;
        Some(if rule.waits_for_undecided {
            Bool::and(&[tied, m.not().implies(leave.lt(w))])
        } else {
            tied
        })
    }

    /// The constraint for every thread.
    fn constraint(&self, kind: Kind, class: Class, w: &Real) -> Bool {
        let u = Dynamic::new_const("u", &self.thread);
        match self.body(kind, class, w, &u) {
            Some(b) => forall_const(&[&u], &[], &b),
            None => Bool::from_bool(true),
        }
    }

    /// Candidate witness times for B: A's own, the extreme event times, and midpoints between
    /// the latest earlier events and the earliest later ones.
    fn candidates(&self, wa: &Real) -> Vec<Real> {
        let at = |f: &FuncDecl, name: &str| self.r(f, &Dynamic::new_const(name, &self.thread));
        let half = Real::from_rational_str("1", "2").expect("a rational literal");
        let mid = |a: &Real, b: &Real| (a + b) * &half;
        let (ts_min, ts_max) = (at(&self.ts, "ts_min"), at(&self.ts, "ts_max"));
        let (prev_max, use_min) = (at(&self.prev, "prev_max"), at(&self.use_, "use_min"));
        vec![
            wa.clone(),
            ts_min.clone(),
            mid(&ts_max, &use_min),
            mid(&prev_max, &ts_min),
        ]
    }

    /// Program order and finiteness.
    fn facts(&self) -> Vec<Bool> {
        let u = Dynamic::new_const("u", &self.thread);
        let m = self.m(&u);
        let ts = self.r(&self.ts, &u);
        let prev = self.r(&self.prev, &u);
        let use_ = self.r(&self.use_, &u);
        let leave = self.r(&self.leave, &u);
        let mut facts = vec![forall_const(
            &[&u],
            &[],
            &m.implies(Bool::and(&[prev.lt(&ts), ts.lt(&use_)])),
        )];
        // Some thread is in T(db) (otherwise there is no event to constrain).
        let u0 = Dynamic::new_const("some_member", &self.thread);
        facts.push(self.m(&u0));
        // Extremes over members (ts min/max, prev max, use min) and non-members (leave max).
        for (name, f, smallest) in [
            ("ts_min", &self.ts, true),
            ("ts_max", &self.ts, false),
            ("prev_max", &self.prev, false),
            ("use_min", &self.use_, true),
        ] {
            let e = Dynamic::new_const(name, &self.thread);
            let (fe, fu) = (self.r(f, &e), self.r(f, &u));
            let bound = if smallest { fe.le(&fu) } else { fu.le(&fe) };
            facts.push(self.m(&e));
            facts.push(forall_const(&[&u], &[], &m.implies(bound)));
        }
        let e = Dynamic::new_const("leave_max", &self.thread);
        let some_out = exists_const(&[&u], &[], &m.not());
        facts.push(some_out.implies(Bool::and(&[
            self.m(&e).not(),
            forall_const(
                &[&u],
                &[],
                &m.not().implies(leave.le(self.r(&self.leave, &e))),
            ),
        ])));
        facts
    }
}

/// Does class `a` imply class `b` for instructions of `kind`, for any finite set of threads?
/// `Yes` is a proof; `No` means the schema implication fails (not, by itself, a program that
/// tells the models apart); `Unknown` gives the reason.
pub fn class_implies(kind: Kind, a: Class, b: Class, timeout_ms: u32) -> Answer<()> {
    if a == b {
        return Answer::Yes(());
    }
    if TimingRule::of(kind, b).members == Members::Slot {
        return Answer::Unknown(
            "a slot also excludes other threads' accesses, which a one-block schema cannot state"
                .into(),
        );
    }
    let s = Schema::new();
    let solver = Solver::new();
    for f in s.facts() {
        solver.assert(&f);
    }
    let wa = Real::new_const("witness_a");
    solver.assert(s.constraint(kind, a, &wa));
    // B holds with some candidate witness: refute "B fails for this candidate" (B's
    // universal, negated, is one fresh thread breaking it).
    let mut reason = None;
    for c in s.candidates(&wa) {
        let Some(body) = s.body(kind, b, &c, &Dynamic::fresh_const("breaker", &s.thread)) else {
            return Answer::Yes(());
        };
        solver.push();
        solver.assert(body.not());
        let (r, late) = super::deadline::within(Some(timeout_ms), || solver.check());
        solver.pop(1);
        match r {
            SatResult::Unsat => return Answer::Yes(()),
            SatResult::Sat => {}
            SatResult::Unknown if late => reason = Some("timeout".into()),
            SatResult::Unknown => reason = solver.get_reason_unknown(),
        }
    }
    match reason {
        Some(r) => Answer::Unknown(r),
        None => Answer::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proven(k: Kind, a: Class, b: Class) -> bool {
        matches!(class_implies(k, a, b, 10_000), Answer::Yes(()))
    }

    #[test]
    fn stronger_classes_imply_weaker_ones() {
        use Class::*;
        assert!(proven(Kind::Memory, Collective, Synchronous));
        assert!(proven(Kind::Memory, Synchronous, Independent));
        assert!(proven(Kind::Label, Collective, Independent));
        assert!(proven(Kind::Sgop, Collective, Speculative));
        assert!(proven(Kind::Sgop, Speculative, Symbolic));
        assert!(proven(Kind::Sgop, Collective, Lazy));
        assert!(proven(Kind::Sgop, Lazy, Symbolic));
    }

    #[test]
    fn weaker_classes_do_not_imply_stronger_ones() {
        use Class::*;
        assert!(!proven(Kind::Memory, Independent, Synchronous));
        assert!(!proven(Kind::Sgop, Speculative, Collective));
        assert!(!proven(Kind::Sgop, Symbolic, Lazy));
        assert!(!proven(Kind::Sgop, Lazy, Speculative));
        assert!(!proven(Kind::Sgop, Speculative, Lazy));
        assert!(!proven(Kind::Memory, Independent, Collective));
    }
}
