//! Expression evaluation and subgroup-operation results, written once for every engine.
//!
//! The rules of docs/semantics.md §5 (what each subgroup op returns given its participants and
//! their arguments) and of the expression language (short-circuit `&&`/`||`, `?:`, ballot
//! helpers) are expressed over a [`Domain`]: the explorer instantiates it with concrete `u32`
//! values, the SMT engine with Z3 bit-vectors. A rule change is therefore one edit here.

use crate::vocab::{AtomicOp, BinOp, Builtin, Expr, LocalFn, RedOp, RegId, SgOp, UnOp};

/// Why an evaluation hit undefined behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UbKind {
    DivisionByZero,
    OutOfBounds,
    BarrierDivergence,
    /// A consistent execution raises a `flag` of the memory model (`data-race`, ...).
    MemoryModelFlag,
    /// A thread reached `unreachable;` (SPIR-V's `OpUnreachable`).
    Unreachable,
}

impl UbKind {
    /// What a program itself may meet (a memory model's flags aside).
    pub const OF_PROGRAMS: [UbKind; 4] = [
        UbKind::DivisionByZero,
        UbKind::OutOfBounds,
        UbKind::BarrierDivergence,
        UbKind::Unreachable,
    ];
    pub fn describe(self) -> &'static str {
        match self {
            UbKind::DivisionByZero => "division by zero",
            UbKind::OutOfBounds => "out-of-bounds index",
            UbKind::BarrierDivergence => {
                "workgroup barrier not reached by every thread in the same block instance"
            }
            UbKind::MemoryModelFlag => "flagged by the memory model",
            UbKind::Unreachable => "reached `unreachable`",
        }
    }
}

/// A value domain: 32-bit values `V` and booleans `B`.
pub trait Domain {
    type V: Clone;
    type B: Clone;

    fn lit(&mut self, x: u32) -> Self::V;
    fn reg(&mut self, r: RegId) -> Self::V;
    fn builtin(&mut self, b: Builtin) -> Self::V;
    fn konst(&mut self, b: bool) -> Self::B;
    /// Arithmetic, bitwise and comparison operators (comparisons give 0/1), but not `&&`/`||`.
    /// Division by zero must be recorded by the domain as undefined behaviour (under the
    /// current guard) and may return anything.
    fn binop(&mut self, op: BinOp, a: &Self::V, b: &Self::V) -> Self::V;
    fn unop(&mut self, op: UnOp, a: &Self::V) -> Self::V;
    fn nonzero(&mut self, a: &Self::V) -> Self::B;
    fn eq(&mut self, a: &Self::V, b: &Self::V) -> Self::B;
    /// Unsigned `a <= b`.
    fn ule(&mut self, a: &Self::V, b: &Self::V) -> Self::B;
    fn and(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn or(&mut self, a: &Self::B, b: &Self::B) -> Self::B;
    fn not(&mut self, a: &Self::B) -> Self::B;
    fn ite(&mut self, c: &Self::B, t: &Self::V, e: &Self::V) -> Self::V;
    fn bool_to_val(&mut self, b: &Self::B) -> Self::V;
    /// Evaluates `t` only where `c` holds and `e` only where it does not, so that undefined
    /// behaviour (or an unspecified choice) in the untaken side does not count.
    fn guarded(
        &mut self,
        c: &Self::B,
        t: &mut dyn FnMut(&mut Self) -> Self::V,
        e: &mut dyn FnMut(&mut Self) -> Self::V,
    ) -> Self::V;
    /// An unspecified value (a shuffle from a lane that does not participate).
    fn unspecified(&mut self) -> Self::V;
}

/// Evaluates an expression in domain `d`.
pub fn eval<D: Domain>(d: &mut D, e: &Expr) -> D::V {
    match e {
        Expr::Lit(v) => d.lit(*v),
        Expr::Reg(r) => d.reg(*r),
        Expr::Builtin(b) => d.builtin(*b),
        Expr::Unary(op, a) => {
            let a = eval(d, a);
            d.unop(*op, &a)
        }
        Expr::Binary(op @ (BinOp::LAnd | BinOp::LOr), a, b) => {
            let a = eval(d, a);
            let c = d.nonzero(&a);
            let mut rhs = |d: &mut D| {
                let b = eval(d, b);
                let nz = d.nonzero(&b);
                d.bool_to_val(&nz)
            };
            let is_and = *op == BinOp::LAnd;
            let mut short = |d: &mut D| d.lit(if is_and { 0 } else { 1 });
            if is_and {
                d.guarded(&c, &mut rhs, &mut short)
            } else {
                d.guarded(&c, &mut short, &mut rhs)
            }
        }
        Expr::Binary(op, a, b) => {
            let a = eval(d, a);
            let b = eval(d, b);
            d.binop(*op, &a, &b)
        }
        Expr::Ternary(c, a, b) => {
            let c = eval(d, c);
            let c = d.nonzero(&c);
            d.guarded(&c, &mut |d| eval(d, a), &mut |d| eval(d, b))
        }
        Expr::Call(f, args) => {
            let args: Vec<D::V> = args.iter().map(|a| eval(d, a)).collect();
            local_fn(d, *f, &args)
        }
    }
}

/// Ballot helpers: local arithmetic on a 32-bit ballot mask of the calling lane's subgroup.
pub fn local_fn<D: Domain>(d: &mut D, f: LocalFn, args: &[D::V]) -> D::V {
    let mask = &args[0];
    let one = d.lit(1);
    match f {
        LocalFn::BallotBitCount => popcount(d, mask),
        LocalFn::BallotInclusiveBitCount | LocalFn::BallotExclusiveBitCount => {
            // Lanes <= this lane: (1 << (lane + 1)) - 1 (a shift of 32 gives 0, so lane 31
            // yields all ones); lanes < this lane: (1 << lane) - 1.
            let lane = d.builtin(Builtin::Lane);
            let width = if f == LocalFn::BallotInclusiveBitCount {
                d.binop(BinOp::Add, &lane, &one)
            } else {
                lane
            };
            let bit = d.binop(BinOp::Shl, &one, &width);
            let below = d.binop(BinOp::Sub, &bit, &one);
            let m = d.binop(BinOp::BitAnd, mask, &below);
            popcount(d, &m)
        }
        LocalFn::BallotBitExtract => {
            let s = d.binop(BinOp::Shr, mask, &args[1]);
            d.binop(BinOp::BitAnd, &s, &one)
        }
        LocalFn::BallotFindLsb | LocalFn::BallotFindMsb => {
            // GLSL findLSB/findMSB: -1 when no bit is set.
            let mut acc = d.lit(u32::MAX);
            let order: Vec<u32> = if f == LocalFn::BallotFindLsb {
                (0..32).rev().collect()
            } else {
                (0..32).collect()
            };
            for k in order {
                let b = bit(d, mask, k);
                let kv = d.lit(k);
                acc = d.ite(&b, &kv, &acc);
            }
            acc
        }
    }
}

fn bit<D: Domain>(d: &mut D, v: &D::V, k: u32) -> D::B {
    let sh = d.lit(k);
    let s = d.binop(BinOp::Shr, v, &sh);
    let one = d.lit(1);
    let b = d.binop(BinOp::BitAnd, &s, &one);
    d.nonzero(&b)
}

fn popcount<D: Domain>(d: &mut D, v: &D::V) -> D::V {
    let mut acc = d.lit(0);
    let one = d.lit(1);
    for k in 0..32 {
        let sh = d.lit(k);
        let s = d.binop(BinOp::Shr, v, &sh);
        let b = d.binop(BinOp::BitAnd, &s, &one);
        acc = d.binop(BinOp::Add, &acc, &b);
    }
    acc
}

/// The inputs of one subgroup-op instance: for every lane of the subgroup, whether it
/// participates (is in T(db)) and its arguments (ignored for non-participants).
pub struct SgInputs<'a, D: Domain> {
    pub members: &'a [D::B],
    pub args: &'a [Vec<D::V>],
}

/// The result of `op` for lane `lane` (docs/semantics.md §5). Only meaningful for participants.
pub fn sgop_result<D: Domain>(d: &mut D, op: SgOp, inp: &SgInputs<D>, lane: u32) -> D::V {
    let n = inp.members.len() as u32;
    let arg = |j: u32, k: usize| inp.args[j as usize][k].clone();
    match op {
        SgOp::All | SgOp::Any => {
            let all = op == SgOp::All;
            let mut acc = d.konst(all);
            for j in 0..n {
                let nz = d.nonzero(&arg(j, 0));
                let m = &inp.members[j as usize];
                if all {
                    let nm = d.not(m);
                    let ok = d.or(&nm, &nz);
                    acc = d.and(&acc, &ok);
                } else {
                    let hit = d.and(m, &nz);
                    acc = d.or(&acc, &hit);
                }
            }
            d.bool_to_val(&acc)
        }
        SgOp::AllEqual => {
            let first = first_member_arg(d, inp, 0);
            let mut acc = d.konst(true);
            for j in 0..n {
                let same = d.eq(&arg(j, 0), &first);
                let nm = d.not(&inp.members[j as usize]);
                let ok = d.or(&nm, &same);
                acc = d.and(&acc, &ok);
            }
            d.bool_to_val(&acc)
        }
        SgOp::Ballot | SgOp::BallotHigh | SgOp::BallotZ | SgOp::BallotW => {
            let mut acc = d.lit(0);
            let zero = d.lit(0);
            let k = op.ballot_word().unwrap_or(0);
            let lanes = (32 * k).min(n)..(32 * k + 32).min(n);
            for j in lanes {
                let nz = d.nonzero(&arg(j, 0));
                let set = d.and(&inp.members[j as usize], &nz);
                let bitv = d.lit(1u32 << (j % 32));
                let v = d.ite(&set, &bitv, &zero);
                acc = d.binop(BinOp::BitOr, &acc, &v);
            }
            acc
        }
        SgOp::Elect => {
            // True for the lowest participating lane: nobody below this lane participates.
            let mut none_below = d.konst(true);
            for j in 0..lane.min(n) {
                let nm = d.not(&inp.members[j as usize]);
                none_below = d.and(&none_below, &nm);
            }
            d.bool_to_val(&none_below)
        }
        SgOp::BroadcastFirst => first_member_arg(d, inp, 0),
        SgOp::Broadcast | SgOp::Shuffle => {
            let src = arg(lane, 1);
            read_lane(d, inp, &src, None)
        }
        SgOp::ShuffleXor => {
            let l = d.lit(lane);
            let src = d.binop(BinOp::BitXor, &l, &arg(lane, 1));
            read_lane(d, inp, &src, None)
        }
        SgOp::ShuffleUp => {
            // Source lane - delta; out of range when delta > lane.
            let l = d.lit(lane);
            let delta = arg(lane, 1);
            let in_range = d.ule(&delta, &l);
            let src = d.binop(BinOp::Sub, &l, &delta);
            read_lane(d, inp, &src, Some(in_range))
        }
        SgOp::ShuffleDown => {
            // Source lane + delta; out of range when delta > n - 1 - lane (no wrap-around).
            let room = d.lit(n - 1 - lane.min(n - 1));
            let delta = arg(lane, 1);
            let in_range = d.ule(&delta, &room);
            let l = d.lit(lane);
            let src = d.binop(BinOp::Add, &l, &delta);
            read_lane(d, inp, &src, Some(in_range))
        }
        SgOp::Reduce(r) => fold(d, inp, r, n),
        SgOp::InclusiveScan(r) => fold(d, inp, r, (lane + 1).min(n)),
        SgOp::ExclusiveScan(r) => fold(d, inp, r, lane.min(n)),
    }
}

/// Argument `k` of the lowest participant (any value if nobody participates, which cannot
/// happen for a participant's own result).
fn first_member_arg<D: Domain>(d: &mut D, inp: &SgInputs<D>, k: usize) -> D::V {
    let n = inp.members.len();
    let mut acc = inp.args[n - 1][k].clone();
    for j in (0..n).rev() {
        acc = d.ite(&inp.members[j], &inp.args[j][k], &acc);
    }
    acc
}

/// Argument 0 of lane `src` if that lane participates (and `in_range` holds), else an
/// unspecified value.
fn read_lane<D: Domain>(d: &mut D, inp: &SgInputs<D>, src: &D::V, in_range: Option<D::B>) -> D::V {
    let n = inp.members.len();
    let mut hit = d.konst(false);
    let mut val = d.lit(0);
    for j in (0..n).rev() {
        let jv = d.lit(j as u32);
        let is = d.eq(src, &jv);
        let here = d.and(&is, &inp.members[j]);
        val = d.ite(&here, &inp.args[j][0], &val);
        hit = d.or(&hit, &here);
    }
    if let Some(r) = in_range {
        hit = d.and(&hit, &r);
    }
    d.guarded(&hit, &mut |_| val.clone(), &mut |d| d.unspecified())
}

/// The reduction `r` over the participants among lanes `0..upto`, in lane order.
fn fold<D: Domain>(d: &mut D, inp: &SgInputs<D>, r: RedOp, upto: u32) -> D::V {
    let mut acc = d.lit(r.identity());
    for j in 0..upto as usize {
        let next = red(d, r, &acc, &inp.args[j][0]);
        acc = d.ite(&inp.members[j], &next, &acc);
    }
    acc
}

/// The value an atomic read-modify-write leaves in memory, given the old value and the
/// value arguments (`atomicCompSwap`: compare, then value). The atomic returns `old`.
pub fn atomic_new<D: Domain>(d: &mut D, op: AtomicOp, old: &D::V, args: &[D::V]) -> D::V {
    let r = |r: RedOp, d: &mut D| red(d, r, old, &args[0]);
    match op {
        AtomicOp::Add => r(RedOp::Add, d),
        AtomicOp::Sub => d.binop(BinOp::Sub, old, &args[0]),
        AtomicOp::Min => r(RedOp::Min, d),
        AtomicOp::Max => r(RedOp::Max, d),
        AtomicOp::And => r(RedOp::And, d),
        AtomicOp::Or => r(RedOp::Or, d),
        AtomicOp::Xor => r(RedOp::Xor, d),
        AtomicOp::Exchange => args[0].clone(),
        AtomicOp::CompSwap | AtomicOp::CompSwapWriteBack => {
            let hit = d.eq(old, &args[0]);
            d.ite(&hit, &args[1], old)
        }
    }
}

/// Does the atomic write? Always, except a `CompSwap` whose compare fails: that one is a read
/// alone, with no write event for a memory model to order (docs/memory-models.md, "Events").
pub fn atomic_stores<D: Domain>(d: &mut D, op: AtomicOp, old: &D::V, args: &[D::V]) -> D::B {
    if op.may_only_read() {
        d.eq(old, &args[0])
    } else {
        d.konst(true)
    }
}

/// One application of a reduction operator.
pub fn red<D: Domain>(d: &mut D, r: RedOp, a: &D::V, b: &D::V) -> D::V {
    match r {
        RedOp::Add => d.binop(BinOp::Add, a, b),
        RedOp::Mul => d.binop(BinOp::Mul, a, b),
        RedOp::And => d.binop(BinOp::BitAnd, a, b),
        RedOp::Or => d.binop(BinOp::BitOr, a, b),
        RedOp::Xor => d.binop(BinOp::BitXor, a, b),
        RedOp::Min | RedOp::Max => {
            let a_le_b = d.ule(a, b);
            if r == RedOp::Min {
                d.ite(&a_le_b, a, b)
            } else {
                d.ite(&a_le_b, b, a)
            }
        }
    }
}

/// Concrete semantics of a binary operator (not `&&`/`||`); `None` on division by zero.
pub fn concrete_binop(op: BinOp, a: u32, b: u32) -> Option<u32> {
    use BinOp::*;
    Some(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div => a.checked_div(b)?,
        Rem => a.checked_rem(b)?,
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        Shl => a.checked_shl(b).unwrap_or(0),
        Shr => a.checked_shr(b).unwrap_or(0),
        Eq => (a == b) as u32,
        Ne => (a != b) as u32,
        Lt => (a < b) as u32,
        Le => (a <= b) as u32,
        Gt => (a > b) as u32,
        Ge => (a >= b) as u32,
        LAnd => (a != 0 && b != 0) as u32,
        LOr => (a != 0 || b != 0) as u32,
    })
}

/// Concrete semantics of a unary operator.
pub fn concrete_unop(op: UnOp, a: u32) -> u32 {
    match op {
        UnOp::Neg => a.wrapping_neg(),
        UnOp::BitNot => !a,
        UnOp::Not => (a == 0) as u32,
    }
}

/// A concrete value that may stand for an *unspecified* one (docs/semantics.md §5: a shuffle or
/// broadcast from a lane that does not participate or is out of range). The explorer carries
/// the mark instead of trying every value: a marked value that never reaches a branch, an
/// address, a divisor or the condition changes nothing, whatever it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Mv {
    pub v: u32,
    pub unspec: bool,
}

impl Mv {
    pub fn known(v: u32) -> Mv {
        Mv { v, unspec: false }
    }
}

/// How the concrete domain treats an unspecified value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unspecified {
    /// One marked representative (0): exact as long as no marked value *matters*.
    Mark,
    /// Values sampled from [`Choices::domain`] (a finite sample: a `forbidden` may be wrong).
    Sample,
}

/// The concrete domain: one thread's registers (with their marks), plus a source of
/// unspecified values.
pub struct Concrete<'a> {
    pub regs: &'a [u32],
    /// Registers holding an unspecified value (sorted).
    pub unspec: &'a [RegId],
    pub builtins: &'a dyn Fn(Builtin) -> u32,
    /// Set on the first undefined behaviour met.
    pub ub: Option<UbKind>,
    pub choices: &'a mut Choices,
    pub mode: Unspecified,
    /// A marked value decided something (a `?:`/`&&`/`||` condition or a divisor): marking
    /// is then not exact, and the caller must sample instead.
    pub mattered: bool,
    /// An unspecified value was sampled ([`Unspecified::Sample`]).
    pub sampled: bool,
}

impl<'a> Concrete<'a> {
    /// A domain with no registers (subgroup-op results, atomics).
    pub fn bare(
        builtins: &'a dyn Fn(Builtin) -> u32,
        choices: &'a mut Choices,
        mode: Unspecified,
    ) -> Concrete<'a> {
        Concrete {
            regs: &[],
            unspec: &[],
            builtins,
            ub: None,
            choices,
            mode,
            mattered: false,
            sampled: false,
        }
    }
}

/// Nondeterministic choices, enumerated like an odometer: the explorer re-runs a step once per
/// vector of choices. A choice is either an unspecified value (from a small finite domain) or
/// an index (e.g. which access of a collective memory step goes next).
#[derive(Debug, Default)]
pub struct Choices {
    pub domain: Vec<u32>,
    /// Current choices as (digit, radix); extended with 0 as a run asks for more.
    digits: Vec<(usize, usize)>,
    /// How many choices the current run consumed.
    pub used: usize,
}

impl Choices {
    pub fn new(domain: Vec<u32>) -> Choices {
        Choices {
            domain,
            digits: Vec::new(),
            used: 0,
        }
    }
    /// Starts a run with the current digits.
    pub fn start(&mut self) {
        self.used = 0;
    }
    /// A choice among `n` alternatives.
    pub fn pick(&mut self, n: usize) -> usize {
        if self.used == self.digits.len() {
            self.digits.push((0, n.max(1)));
        }
        let d = self.digits[self.used].0;
        self.used += 1;
        d
    }
    fn next(&mut self) -> u32 {
        let k = self.pick(self.domain.len());
        self.domain[k]
    }
    /// Moves to the next vector of choices after a run; false when all were tried.
    pub fn advance(&mut self) -> bool {
        self.digits.truncate(self.used);
        while let Some(last) = self.digits.last_mut() {
            last.0 += 1;
            if last.0 < last.1 {
                return true;
            }
            self.digits.pop();
        }
        false
    }
}

impl Domain for Concrete<'_> {
    type V = Mv;
    type B = Mv;

    fn lit(&mut self, x: u32) -> Mv {
        Mv::known(x)
    }
    fn reg(&mut self, r: RegId) -> Mv {
        Mv {
            v: self.regs[r as usize],
            unspec: self.unspec.binary_search(&r).is_ok(),
        }
    }
    fn builtin(&mut self, b: Builtin) -> Mv {
        Mv::known((self.builtins)(b))
    }
    fn konst(&mut self, b: bool) -> Mv {
        Mv::known(b as u32)
    }
    fn binop(&mut self, op: BinOp, a: &Mv, b: &Mv) -> Mv {
        if matches!(op, BinOp::Div | BinOp::Rem) && b.unspec {
            // Whether this is undefined behaviour depends on the value.
            self.mattered = true;
        }
        let v = concrete_binop(op, a.v, b.v).unwrap_or_else(|| {
            self.ub.get_or_insert(UbKind::DivisionByZero);
            0
        });
        Mv {
            v,
            unspec: a.unspec || b.unspec,
        }
    }
    fn unop(&mut self, op: UnOp, a: &Mv) -> Mv {
        Mv {
            v: concrete_unop(op, a.v),
            unspec: a.unspec,
        }
    }
    fn nonzero(&mut self, a: &Mv) -> Mv {
        Mv {
            v: (a.v != 0) as u32,
            unspec: a.unspec,
        }
    }
    fn eq(&mut self, a: &Mv, b: &Mv) -> Mv {
        Mv {
            v: (a.v == b.v) as u32,
            unspec: a.unspec || b.unspec,
        }
    }
    fn ule(&mut self, a: &Mv, b: &Mv) -> Mv {
        Mv {
            v: (a.v <= b.v) as u32,
            unspec: a.unspec || b.unspec,
        }
    }
    fn and(&mut self, a: &Mv, b: &Mv) -> Mv {
        // A known false decides, whatever the other side is.
        let known_false = |x: &Mv| !x.unspec && x.v == 0;
        if known_false(a) || known_false(b) {
            return Mv::known(0);
        }
        Mv {
            v: (a.v != 0 && b.v != 0) as u32,
            unspec: a.unspec || b.unspec,
        }
    }
    fn or(&mut self, a: &Mv, b: &Mv) -> Mv {
        let known_true = |x: &Mv| !x.unspec && x.v != 0;
        if known_true(a) || known_true(b) {
            return Mv::known(1);
        }
        Mv {
            v: (a.v != 0 || b.v != 0) as u32,
            unspec: a.unspec || b.unspec,
        }
    }
    fn not(&mut self, a: &Mv) -> Mv {
        Mv {
            v: (a.v == 0) as u32,
            unspec: a.unspec,
        }
    }
    fn ite(&mut self, c: &Mv, t: &Mv, e: &Mv) -> Mv {
        let pick = if c.v != 0 { *t } else { *e };
        if c.unspec && t != e {
            return Mv {
                v: pick.v,
                unspec: true,
            };
        }
        pick
    }
    fn bool_to_val(&mut self, b: &Mv) -> Mv {
        *b
    }
    fn guarded(
        &mut self,
        c: &Mv,
        t: &mut dyn FnMut(&mut Self) -> Mv,
        e: &mut dyn FnMut(&mut Self) -> Mv,
    ) -> Mv {
        if c.unspec {
            // Which side runs (and so which undefined behaviour or unspecified read
            // happens) depends on the value.
            self.mattered = true;
        }
        if c.v != 0 {
            t(self)
        } else {
            e(self)
        }
    }
    fn unspecified(&mut self) -> Mv {
        match self.mode {
            Unspecified::Mark => Mv { v: 0, unspec: true },
            Unspecified::Sample => {
                self.sampled = true;
                Mv::known(self.choices.next())
            }
        }
    }
}
