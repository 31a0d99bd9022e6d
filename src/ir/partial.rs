//! Partial evaluation: values that are known constants or unknown (`None`), with the concrete
//! rules of `eval`. The loop-depth analysis runs threads on it ([`super::bounds`]); the idle
//! analysis asks what a branch does once a compare-exchange has succeeded ([`super::idle`]).

use super::cfg::Cfg;
use super::{Expr, RegId};
use crate::eval::{self, Domain};
use crate::vocab::{BinOp, Builtin, UnOp};

/// The value of `e` when the registers in `regs` that are `Some` hold those values, if that
/// decides it; `tid: None` leaves the builtins unknown too (a fact about every thread).
pub(super) fn constant(cfg: &Cfg, regs: &[Option<u32>], tid: Option<u32>, e: &Expr) -> Option<u32> {
    let mut d = Partial { regs, tid, cfg };
    eval::eval(&mut d, e)
}

/// The blocks a structured terminator may go to for thread `tid` with registers `regs`: a
/// branch on a known condition goes one way, on an unknown one both (`bounds`, `writers`).
pub(super) fn successors(
    cfg: &Cfg,
    regs: &[Option<u32>],
    tid: u32,
    term: &super::cfg::STerm,
) -> Vec<usize> {
    use super::cfg::STerm;
    match term {
        STerm::Return => vec![],
        STerm::Jump(b) => vec![*b],
        STerm::Branch {
            cond,
            then_to,
            else_to,
        } => match constant(cfg, regs, Some(tid), cond) {
            Some(0) => vec![*else_to],
            Some(_) => vec![*then_to],
            None => vec![*then_to, *else_to],
        },
    }
}

/// Values that are known constants or unknown (`None`), with the concrete rules of `eval`.
pub(super) struct Partial<'a> {
    pub(super) regs: &'a [Option<u32>],
    /// The thread whose builtins are known; `None`: builtins are unknown too.
    pub(super) tid: Option<u32>,
    pub(super) cfg: &'a Cfg,
}

impl Domain for Partial<'_> {
    type V = Option<u32>;
    type B = Option<bool>;

    fn lit(&mut self, x: u32) -> Option<u32> {
        Some(x)
    }
    fn reg(&mut self, r: RegId) -> Option<u32> {
        self.regs[r as usize]
    }
    fn builtin(&mut self, b: Builtin) -> Option<u32> {
        self.tid.map(|t| self.cfg.layout.builtin(b, t))
    }
    fn konst(&mut self, b: bool) -> Option<bool> {
        Some(b)
    }
    fn binop(&mut self, op: BinOp, a: &Option<u32>, b: &Option<u32>) -> Option<u32> {
        match (op, a, b) {
            // Known results whatever the unknown side is.
            (BinOp::BitAnd | BinOp::Mul, Some(0), _) | (BinOp::BitAnd | BinOp::Mul, _, Some(0)) => {
                Some(0)
            }
            _ => eval::concrete_binop(op, (*a)?, (*b)?),
        }
    }
    fn unop(&mut self, op: UnOp, a: &Option<u32>) -> Option<u32> {
        a.map(|a| eval::concrete_unop(op, a))
    }
    fn nonzero(&mut self, a: &Option<u32>) -> Option<bool> {
        a.map(|a| a != 0)
    }
    fn eq(&mut self, a: &Option<u32>, b: &Option<u32>) -> Option<bool> {
        Some((*a)? == (*b)?)
    }
    fn ule(&mut self, a: &Option<u32>, b: &Option<u32>) -> Option<bool> {
        Some((*a)? <= (*b)?)
    }
    fn and(&mut self, a: &Option<bool>, b: &Option<bool>) -> Option<bool> {
        match (a, b) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        }
    }
    fn or(&mut self, a: &Option<bool>, b: &Option<bool>) -> Option<bool> {
        match (a, b) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        }
    }
    fn not(&mut self, a: &Option<bool>) -> Option<bool> {
        a.map(|a| !a)
    }
    fn ite(&mut self, c: &Option<bool>, t: &Option<u32>, e: &Option<u32>) -> Option<u32> {
        match c {
            Some(true) => *t,
            Some(false) => *e,
            None if t == e => *t,
            None => None,
        }
    }
    fn bool_to_val(&mut self, b: &Option<bool>) -> Option<u32> {
        b.map(|b| b as u32)
    }
    fn guarded(
        &mut self,
        c: &Option<bool>,
        t: &mut dyn FnMut(&mut Self) -> Option<u32>,
        e: &mut dyn FnMut(&mut Self) -> Option<u32>,
    ) -> Option<u32> {
        match c {
            Some(true) => t(self),
            Some(false) => e(self),
            None => {
                let (a, b) = (t(self), e(self));
                if a == b {
                    a
                } else {
                    None
                }
            }
        }
    }
    fn unspecified(&mut self) -> Option<u32> {
        None
    }
}
