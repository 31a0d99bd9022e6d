//! Timestamps: a point in the execution order, as an integer or a bit-vector.

use super::terms::known;
use z3::ast::{Bool, Int, BV};

/// A point in the execution order: an integer (difference logic, the default) or a
/// bit-vector, chosen per encoding with [`SmtOptions::time_bits`] so that the two can be
/// measured against each other (docs/benchmarks.md).
#[derive(Clone)]
pub(super) enum Time {
    I(Int),
    B(BV),
}

impl Time {
    pub(super) fn konst(v: i64, bits: u32) -> Time {
        if bits == 0 {
            Time::I(Int::from_i64(v))
        } else {
            Time::B(BV::from_i64(v, bits))
        }
    }
    /// The value of a constant time.
    fn value(&self) -> Option<i64> {
        match self {
            Time::I(x) => x.as_i64(),
            Time::B(x) => x.as_i64(),
        }
    }
    fn cmp(
        &self,
        o: &Time,
        konst: fn(i64, i64) -> bool,
        i: fn(&Int, &Int) -> Bool,
        b: fn(&BV, &BV) -> Bool,
    ) -> Bool {
        if let (Some(x), Some(y)) = (self.value(), o.value()) {
            return Bool::from_bool(konst(x, y));
        }
        match (self, o) {
            (Time::I(x), Time::I(y)) => i(x, y),
            (Time::B(x), Time::B(y)) => b(x, y),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    pub(super) fn lt(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a < b, |a, b| a.lt(b), |a, b| a.bvslt(b))
    }
    pub(super) fn le(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a <= b, |a, b| a.le(b), |a, b| a.bvsle(b))
    }
    pub(super) fn gt(&self, o: &Time) -> Bool {
        o.lt(self)
    }
    pub(super) fn ge(&self, o: &Time) -> Bool {
        o.le(self)
    }
    pub(super) fn eq(&self, o: &Time) -> Bool {
        self.cmp(o, |a, b| a == b, |a, b| a.eq(b), |a, b| a.eq(b))
    }
    pub(super) fn ite(c: &Bool, a: &Time, b: &Time) -> Time {
        match known(c) {
            Some(true) => return a.clone(),
            Some(false) => return b.clone(),
            None => {}
        }
        match (a, b) {
            (Time::I(x), Time::I(y)) => Time::I(c.ite(x, y)),
            (Time::B(x), Time::B(y)) => Time::B(c.ite(x, y)),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    pub(super) fn add(&self, o: &Time) -> Time {
        match (self, o) {
            (Time::I(x), Time::I(y)) => Time::I(x + y),
            (Time::B(x), Time::B(y)) => Time::B(x.bvadd(y)),
            _ => unreachable!("one encoding uses one time sort"),
        }
    }
    /// A fresh time of the same sort as this one.
    pub(super) fn fresh(&self, prefix: &str) -> Time {
        match self {
            Time::I(_) => Time::I(Int::fresh_const(prefix)),
            Time::B(x) => Time::B(BV::fresh_const(prefix, x.get_size())),
        }
    }
    pub(super) fn eval(&self, m: &z3::Model) -> Option<i64> {
        match self {
            Time::I(x) => m.eval(x, true).and_then(|v| v.as_i64()),
            Time::B(x) => m.eval(x, true).and_then(|v| v.as_i64()),
        }
    }
}
