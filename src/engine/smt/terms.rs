//! Terms with constant folding: the encoder's partial evaluator.
//!
//! Most of what a real shader computes is known per thread before any solver runs: `lane`,
//! `tid` and `sgid` are constants of the thread, loop counters are constants of the
//! iteration, so addresses such as `out[loc * 4 + tid]`, branch conditions on lane masks and
//! trip counts of counted loops are constants too. Z3 does not fold terms when they are built,
//! so every constructor here does: an operation on numerals gives a numeral (computed by the
//! concrete rules of [`crate::eval`], the ones the explorer runs), `and`/`or`/`ite` on a known
//! condition keep one side. The encoder then skips whatever folds away: blocks a thread cannot
//! enter, constraints whose premise is false, subgroup-op results that are known.

use crate::eval::{self, Domain, UbKind};
use crate::ir::{Program, RegId};
use crate::vocab::{BinOp, Builtin, UnOp};
use z3::ast::{Bool, BV};

pub(super) fn bv(v: u32) -> BV {
    BV::from_u64(v as u64, 32)
}

pub(super) fn konst(b: bool) -> Bool {
    Bool::from_bool(b)
}

/// The value of a numeral term.
pub(super) fn num(v: &BV) -> Option<u32> {
    v.as_u64().map(|x| x as u32)
}

/// The value of a literal `true`/`false`.
pub(super) fn known(b: &Bool) -> Option<bool> {
    b.as_bool()
}

pub(super) fn is_false(b: &Bool) -> bool {
    known(b) == Some(false)
}

pub(super) fn is_true(b: &Bool) -> bool {
    known(b) == Some(true)
}

/// Conjunction, folded: `true` operands are dropped, a `false` one decides.
pub(super) fn and(v: &[&Bool]) -> Bool {
    let mut keep: Vec<&Bool> = Vec::with_capacity(v.len());
    for b in v {
        match known(b) {
            Some(true) => {}
            Some(false) => return konst(false),
            None => keep.push(b),
        }
    }
    match keep.len() {
        0 => konst(true),
        1 => keep[0].clone(),
        _ => Bool::and(&keep),
    }
}

/// Disjunction, folded.
pub(super) fn or(v: &[Bool]) -> Bool {
    let mut keep: Vec<&Bool> = Vec::with_capacity(v.len());
    for b in v {
        match known(b) {
            Some(false) => {}
            Some(true) => return konst(true),
            None => keep.push(b),
        }
    }
    match keep.len() {
        0 => konst(false),
        1 => keep[0].clone(),
        _ => Bool::or(&keep),
    }
}

pub(super) fn not(b: &Bool) -> Bool {
    match known(b) {
        Some(x) => konst(!x),
        None => b.not(),
    }
}

pub(super) fn implies(a: &Bool, b: &Bool) -> Bool {
    match (known(a), known(b)) {
        (Some(false), _) | (_, Some(true)) => konst(true),
        (Some(true), _) => b.clone(),
        (_, Some(false)) => a.not(),
        _ => a.implies(b),
    }
}

pub(super) fn ite(c: &Bool, t: &BV, e: &BV) -> BV {
    match known(c) {
        Some(true) => t.clone(),
        Some(false) => e.clone(),
        None if t == e => t.clone(),
        None => c.ite(t, e),
    }
}

pub(super) fn eq(a: &BV, b: &BV) -> Bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => konst(x == y),
        _ if a == b => konst(true),
        _ => a.eq(b),
    }
}

/// Unsigned `a < b` and `a <= b`, folded.
pub(super) fn ult(a: &BV, b: &BV) -> Bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => konst(x < y),
        _ => a.bvult(b),
    }
}

pub(super) fn ule(a: &BV, b: &BV) -> Bool {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => konst(x <= y),
        _ => a.bvule(b),
    }
}

fn flag(c: Bool) -> BV {
    ite(&c, &bv(1), &bv(0))
}

/// The Z3 value domain for one thread: registers are terms, undefined behaviour is recorded
/// under the current guard.
pub(super) struct Z3Dom<'a> {
    pub regs: &'a [BV],
    pub tid: u32,
    pub prog: &'a Program,
    pub guard: Vec<Bool>,
    pub ub: &'a mut Vec<(UbKind, Bool)>,
}

impl<'a> Z3Dom<'a> {
    /// The domain of thread `tid` in a block entered under `guard`.
    pub fn new(
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
        konst(b)
    }
    fn binop(&mut self, op: BinOp, a: &BV, b: &BV) -> BV {
        if matches!(op, BinOp::Div | BinOp::Rem) {
            let refs: Vec<&Bool> = self.guard.iter().collect();
            let g = and(&refs);
            let c = and(&[&g, &eq(b, &bv(0))]);
            if !is_false(&c) {
                self.ub.push((UbKind::DivisionByZero, c));
            }
        }
        if let (Some(x), Some(y)) = (num(a), num(b)) {
            // Division by zero is undefined behaviour (recorded above); its value is Z3's.
            if let Some(v) = eval::concrete_binop(op, x, y) {
                return bv(v);
            }
        }
        match op {
            BinOp::Add => a.bvadd(b),
            BinOp::Sub => a.bvsub(b),
            BinOp::Mul => a.bvmul(b),
            BinOp::Div => a.bvudiv(b),
            BinOp::Rem => a.bvurem(b),
            BinOp::BitAnd => a.bvand(b),
            BinOp::BitOr => a.bvor(b),
            BinOp::BitXor => a.bvxor(b),
            BinOp::Shl => a.bvshl(b),
            BinOp::Shr => a.bvlshr(b),
            BinOp::Eq => flag(eq(a, b)),
            BinOp::Ne => flag(not(&eq(a, b))),
            BinOp::Lt => flag(ult(a, b)),
            BinOp::Le => flag(ule(a, b)),
            BinOp::Gt => flag(ult(b, a)),
            BinOp::Ge => flag(ule(b, a)),
            BinOp::LAnd => flag(and(&[&self.nonzero(a), &self.nonzero(b)])),
            BinOp::LOr => flag(or(&[self.nonzero(a), self.nonzero(b)])),
        }
    }
    fn unop(&mut self, op: UnOp, a: &BV) -> BV {
        if let Some(x) = num(a) {
            return bv(eval::concrete_unop(op, x));
        }
        match op {
            UnOp::Neg => a.bvneg(),
            UnOp::BitNot => a.bvnot(),
            UnOp::Not => flag(eq(a, &bv(0))),
        }
    }
    fn nonzero(&mut self, a: &BV) -> Bool {
        not(&eq(a, &bv(0)))
    }
    fn eq(&mut self, a: &BV, b: &BV) -> Bool {
        eq(a, b)
    }
    fn ule(&mut self, a: &BV, b: &BV) -> Bool {
        ule(a, b)
    }
    fn and(&mut self, a: &Bool, b: &Bool) -> Bool {
        and(&[a, b])
    }
    fn or(&mut self, a: &Bool, b: &Bool) -> Bool {
        or(&[a.clone(), b.clone()])
    }
    fn not(&mut self, a: &Bool) -> Bool {
        not(a)
    }
    fn ite(&mut self, c: &Bool, t: &BV, e: &BV) -> BV {
        ite(c, t, e)
    }
    fn bool_to_val(&mut self, b: &Bool) -> BV {
        flag(b.clone())
    }
    fn guarded(
        &mut self,
        c: &Bool,
        t: &mut dyn FnMut(&mut Self) -> BV,
        e: &mut dyn FnMut(&mut Self) -> BV,
    ) -> BV {
        match known(c) {
            Some(true) => return t(self),
            Some(false) => return e(self),
            None => {}
        }
        self.guard.push(c.clone());
        let tv = t(self);
        self.guard.pop();
        self.guard.push(c.not());
        let ev = e(self);
        self.guard.pop();
        ite(c, &tv, &ev)
    }
    fn unspecified(&mut self) -> BV {
        BV::fresh_const("unspecified", 32)
    }
}

/// No two of `xs` hold together (pairwise).
pub(super) fn at_most_one(xs: &[Bool]) -> Bool {
    let pairs: Vec<Bool> = (xs.iter().enumerate())
        .flat_map(|(i, a)| xs[i + 1..].iter().map(move |b| not(&and(&[a, b]))))
        .collect();
    and(&pairs.iter().collect::<Vec<_>>())
}
