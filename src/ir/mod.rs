//! The intermediate representation shared by every engine.
//!
//! Two stages: [`cfg`] lowers the AST into a structured control-flow graph (SPIR-V style:
//! selection merges, loop headers, continue targets, loop merges) with subgroup ops hoisted out
//! of expressions; [`unroll`] turns it into a DAG of *block instances* (static block + loop
//! iteration vector), which, paired with a subgroup, are exactly the dynamic blocks of
//! docs/semantics.md §2.
//!
//! Architecture invariant: the IR knows nothing about models, interleavings or Z3.

pub mod bounds;
pub mod cfg;
pub mod deps;
pub mod depth;
pub mod future;
pub mod idle;
pub mod live;
mod partial;
pub mod program;
pub mod unroll;
pub mod writers;

use crate::syntax::Span;
use crate::vocab::{AtomicOp, BinOp, Builtin, Kind, SgOp};

pub use depth::{partly_idle_depth, unroll, unroll_partly, IdleDepth};
pub use future::{Future, FutureWrite};
pub use program::{Block, BlockId, Program, Target, Term};
pub use unroll::UnrollError;

pub use crate::vocab::{Expr, RegId};

/// Index of a global variable.
pub type GlobalId = u32;

/// A memory location: a global and an index expression (`Lit(0)` for a scalar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Loc {
    pub global: GlobalId,
    pub index: Expr,
}

/// One instruction inside a block (labels and terminators are implicit in [`program::Block`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `dst = value` (kind local).
    Local { dst: RegId, value: Expr },
    /// `dst = loc` (kind memory).
    Load { dst: RegId, loc: Loc },
    /// `loc = value` (kind memory).
    Store { loc: Loc, value: Expr },
    /// `dst = atomicOp(loc, args...)`, returning the old value (kind memory).
    Atomic {
        dst: Option<RegId>,
        op: AtomicOp,
        loc: Loc,
        args: Vec<Expr>,
    },
    /// `dst = subgroupOp(args...)` (kind sgop).
    SgOp {
        dst: RegId,
        op: SgOp,
        args: Vec<Expr>,
    },
    /// `subgroupBarrier()` (kind barrier, over the dynamic block).
    SubgroupBarrier,
    /// `barrier()` (kind barrier, over the whole workgroup).
    WorkgroupBarrier,
    /// `barrier(quorum(name, quorum))` (kind barrier): met by name across the workgroup; the
    /// first `quorum` threads to wait pass together, later ones alone (docs/semantics.md).
    QuorumBarrier { name: u32, quorum: u32 },
    /// A memory barrier (kind memory): no access, only ordering for a memory model. With
    /// an `id`, fences that meet by a `#name` tag meet only when their ids are equal.
    Fence { id: Option<Expr> },
    /// Reaching it is undefined behaviour (kind local); the thread ends there.
    Unreachable,
}

impl Op {
    pub fn kind(&self) -> Kind {
        match self {
            Op::Local { .. } | Op::Unreachable => Kind::Local,
            Op::Load { .. } | Op::Store { .. } | Op::Atomic { .. } | Op::Fence { .. } => {
                Kind::Memory
            }
            Op::SgOp { .. } => Kind::Sgop,
            Op::SubgroupBarrier | Op::WorkgroupBarrier | Op::QuorumBarrier { .. } => Kind::Barrier,
        }
    }

    /// Registers read by the instruction (values, addresses).
    pub fn reads(&self) -> Vec<RegId> {
        let mut out = Vec::new();
        match self {
            Op::Local { value, .. } => value.regs(&mut out),
            Op::Load { loc, .. } => loc.index.regs(&mut out),
            Op::Store { loc, value } => {
                loc.index.regs(&mut out);
                value.regs(&mut out);
            }
            Op::Atomic { loc, args, .. } => {
                loc.index.regs(&mut out);
                args.iter().for_each(|a| a.regs(&mut out));
            }
            Op::SgOp { args, .. } => args.iter().for_each(|a| a.regs(&mut out)),
            Op::Fence { id } => id.iter().for_each(|e| e.regs(&mut out)),
            Op::SubgroupBarrier
            | Op::WorkgroupBarrier
            | Op::QuorumBarrier { .. }
            | Op::Unreachable => {}
        }
        out
    }

    /// The register the instruction writes, if any.
    pub fn writes(&self) -> Option<RegId> {
        match self {
            Op::Local { dst, .. } | Op::Load { dst, .. } | Op::SgOp { dst, .. } => Some(*dst),
            Op::Atomic { dst, .. } => *dst,
            _ => None,
        }
    }
}

/// An instruction with the source position it came from (for witnesses).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub op: Op,
    pub span: Span,
    /// Memory-model tags from the source (`ast::Stmt::tags`).
    pub tags: Vec<String>,
}

/// A register's name; hidden temporaries (sgop results inside expressions) start with `$`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegInfo {
    pub name: String,
    pub hidden: bool,
    /// How reports name it: the name itself, or for a hidden temporary what it holds
    /// (`subgroupAdd(lane)`), since `$t1` means nothing to the reader of a witness.
    pub shown: String,
}

/// A global variable laid out in flat memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalInfo {
    pub name: String,
    /// First cell in flat memory.
    pub base: u32,
    /// Number of cells.
    pub len: u32,
    pub is_array: bool,
    pub init: Vec<u32>,
}

/// Thread layout of a test: which subgroup and workgroup each invocation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub threads: u32,
    pub subgroup: u32,
    pub workgroup: u32,
    /// Invocations per queue family (memory models only).
    pub queue_family: u32,
}

/// Subgroups are cut from each workgroup in order, `subgroup` lanes at a time: when the
/// workgroup is not a multiple of the subgroup size its last subgroup is partial (fewer
/// lanes, as Vulkan allows), and so is a subgroup larger than the workgroup.
impl Layout {
    /// Subgroups per workgroup, the partial one included.
    fn per_workgroup(&self) -> u32 {
        self.workgroup.div_ceil(self.subgroup)
    }
    pub fn lane(&self, tid: u32) -> u32 {
        (tid % self.workgroup) % self.subgroup
    }
    /// Global subgroup index: dynamic blocks are keyed by it.
    pub fn subgroup_of(&self, tid: u32) -> u32 {
        (tid / self.workgroup) * self.per_workgroup() + (tid % self.workgroup) / self.subgroup
    }
    pub fn workgroup_of(&self, tid: u32) -> u32 {
        tid / self.workgroup
    }
    pub fn subgroups(&self) -> u32 {
        (self.threads / self.workgroup) * self.per_workgroup()
    }
    /// Threads of global subgroup `sg`, in lane order (fewer than `subgroup` in a partial one).
    pub fn subgroup_threads(&self, sg: u32) -> std::ops::Range<u32> {
        let k = sg % self.per_workgroup();
        let start = (sg / self.per_workgroup()) * self.workgroup + k * self.subgroup;
        let lanes = self.subgroup.min(self.workgroup - k * self.subgroup);
        start..start + lanes
    }
    /// Lanes of the widest subgroup (a subgroup larger than the workgroup is partial).
    pub fn widest_subgroup(&self) -> u32 {
        self.subgroup.min(self.workgroup)
    }
    /// Iterations an idle loop needs so that a cut in it hides no outcome: one per lane of
    /// the widest subgroup ([`idle`]).
    pub fn idle_depth(&self) -> u32 {
        self.widest_subgroup().max(1)
    }
    /// Whether some subgroup has fewer lanes than the subgroup size.
    pub fn has_partial_subgroups(&self) -> bool {
        !self.workgroup.is_multiple_of(self.subgroup)
    }
    /// The members of a scope instance (a range of threads) at a depth of the scope tree:
    /// 0 the device (its queue families), 1 a queue family (its workgroups), 2 a workgroup
    /// (its subgroups), 3 a subgroup (its invocations). Progress models schedule these.
    pub fn scope_members(
        &self,
        range: std::ops::Range<u32>,
        depth: usize,
    ) -> Vec<std::ops::Range<u32>> {
        let chunk = |size: u32| -> Vec<std::ops::Range<u32>> {
            let size = size.max(1);
            let mut out = Vec::new();
            let mut a = range.start;
            while a < range.end {
                let b = (a - a % size + size).min(range.end);
                out.push(a..b);
                a = b;
            }
            out
        };
        match depth {
            0 => chunk(self.queue_family),
            1 => chunk(self.workgroup),
            2 if range.is_empty() => Vec::new(),
            2 => (self.subgroup_of(range.start)..=self.subgroup_of(range.end - 1))
                .map(|sg| self.subgroup_threads(sg))
                .collect(),
            _ => range.map(|t| t..t + 1).collect(),
        }
    }

    pub fn workgroup_threads(&self, wg: u32) -> std::ops::Range<u32> {
        wg * self.workgroup..(wg + 1) * self.workgroup
    }
    /// The value of a built-in for thread `tid`.
    pub fn builtin(&self, b: Builtin, tid: u32) -> u32 {
        match b {
            Builtin::Lane => self.lane(tid),
            Builtin::Tid => tid,
            Builtin::Lid => tid % self.workgroup,
            Builtin::Sgid => (tid % self.workgroup) / self.subgroup,
            Builtin::Wgid => tid / self.workgroup,
            // Vulkan's SubgroupSize: the subgroup size, in a partial subgroup too.
            Builtin::Sgsize => self.subgroup,
        }
    }
}

/// A value named by the final condition, resolved.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Observable {
    Reg { thread: u32, reg: RegId },
    Mem { cell: u32 },
}

/// The final condition's proposition over observables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    Const(bool),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    /// Comparison (an operator of `BinOp::{Eq, Ne, Lt, Le, Gt, Ge}`).
    Cmp(BinOp, PropTerm, PropTerm),
    Truthy(PropTerm),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PropTerm {
    Lit(u32),
    Obs(usize),
}

impl Prop {
    /// The literals the proposition compares with.
    pub fn literals(&self) -> Vec<u32> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(p) = stack.pop() {
            match p {
                Prop::Const(_) => {}
                Prop::Not(a) => stack.push(a),
                Prop::And(a, b) | Prop::Or(a, b) => {
                    stack.push(a);
                    stack.push(b);
                }
                Prop::Cmp(_, a, b) => {
                    for t in [a, b] {
                        if let PropTerm::Lit(v) = t {
                            out.push(*v);
                        }
                    }
                }
                Prop::Truthy(PropTerm::Lit(v)) => out.push(*v),
                Prop::Truthy(_) => {}
            }
        }
        out
    }

    /// Evaluates the proposition given the values of the observables.
    pub fn eval(&self, values: &[u32]) -> bool {
        let term = |t: &PropTerm| match t {
            PropTerm::Lit(v) => *v,
            PropTerm::Obs(i) => values[*i],
        };
        match self {
            Prop::Const(b) => *b,
            Prop::Not(p) => !p.eval(values),
            Prop::And(a, b) => a.eval(values) && b.eval(values),
            Prop::Or(a, b) => a.eval(values) || b.eval(values),
            Prop::Cmp(op, a, b) => crate::eval::concrete_binop(*op, term(a), term(b))
                .map(|v| v != 0)
                .unwrap_or(false),
            Prop::Truthy(a) => term(a) != 0,
        }
    }
}
