//! The abstract syntax of a `.litmus` test (litmus-format.md), after name resolution.
//!
//! Names are already classified: a `Reg` is a register assigned somewhere in the kernel, a
//! global access is a `Load`/`Store`/`Atomic` statement, and built-ins are `Builtin`. The
//! lowering to the IR (`crate::ir`) can therefore trust every name it sees.

use super::diag::Span;
use crate::vocab::{AtomicOp, BinOp, Builtin, LocalFn, SgOp, UnOp};

/// A parsed and resolved test file.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    /// The file path as given by the user (for diagnostics and reports).
    pub file: String,
    /// The whole source text (for reports that quote source lines).
    pub source: String,
    pub name: String,
    pub description: Option<String>,
    /// Total invocations.
    pub threads: u32,
    /// Lanes per subgroup (at most 64). Subgroups are cut from each workgroup in order; when
    /// `subgroup` does not divide `workgroup` the last one of each workgroup is partial.
    pub subgroup: u32,
    /// Invocations per workgroup (divides `threads`).
    pub workgroup: u32,
    pub globals: Vec<Global>,
    pub kernel: Vec<Stmt>,
    /// `filter (P)` (herd's and Dartagnan's): only executions whose final state satisfies P
    /// count, for the condition, the outcomes and the memory model's flags
    /// (docs/litmus-format.md, "Filters").
    pub filter: Option<Prop>,
    pub condition: Condition,
    pub expect: Vec<Expectation>,
    /// `expect-liveness PROGRESS live|violated, ...` lines (docs/progress.md).
    pub expect_liveness: Vec<LivenessExpectation>,
    /// The execution and progress models the file itself names (the SIMT-Step TLA+
    /// artifact's `tla_synchronization_id` and `#pragma scheduler`): `liveness` runs under
    /// them when the command line names none.
    pub hints: Hints,
    /// Locations observed besides those the condition names (a shader's `--observe`): they
    /// appear in every outcome.
    pub observe: Vec<Operand>,
    /// How reports show the condition when it was not written in the source (a shader's
    /// `--expect` builds one); `None`: the condition's own source text.
    pub condition_label: Option<String>,
    /// Invocations per queue family (a multiple of `workgroup`; default: every thread). Only
    /// memory models read it (`sqf`); Dartagnan's Vulkan tests place threads in two.
    pub queue_family: u32,
}

impl Test {
    /// The `expect` entry for a model (its report label, `SSO` or `SSO+vulkan`; names
    /// compared as [`expectation_key`] says): the first entry naming it, else the first entry
    /// without a model.
    pub fn expectation(&self, model: &str) -> Option<bool> {
        let key = expectation_key(model);
        let named = |e: &&Expectation| {
            e.model
                .as_deref()
                .is_some_and(|m| expectation_key(m) == key)
        };
        self.expect
            .iter()
            .find(named)
            .or_else(|| self.expect.iter().find(|e| e.model.is_none()))
            .map(|e| e.allow)
    }
}

/// A model as expectations name it (`SSO`, `SSO+vulkan`), in the form they are compared in:
/// lower case, a memory model file's `.cat` dropped, and `+sc` dropped (sequential
/// consistency is the default memory model, so `SSO` and `SSO+sc` are one run).
/// docs/litmus-format.md, "`expect` lines".
pub fn expectation_key(label: &str) -> String {
    match label_parts(label) {
        (exec, None) => exec.to_ascii_lowercase(),
        (exec, Some(mem)) => format!("{exec}+{mem}").to_ascii_lowercase(),
    }
}

/// A model label's execution model and memory model (`SSO+vulkan`), the memory model's file
/// `.cat` dropped, and `None` for sequential consistency, the default (`SSO`, `SSO+sc`,
/// `SSO+sc.cat`).
pub fn label_parts(label: &str) -> (&str, Option<&str>) {
    let Some((exec, mem)) = label.split_once('+') else {
        return (label, None);
    };
    let cut = mem.len().saturating_sub(4);
    let mem = match mem.get(cut..) {
        Some(ext) if ext.eq_ignore_ascii_case(".cat") => &mem[..cut],
        _ => mem,
    };
    (exec, (!mem.eq_ignore_ascii_case("sc")).then_some(mem))
}

/// How an `expect` line writes the model of a report's label (`--bless`): `+sc` and a memory
/// model file's `.cat` dropped (`SSO+sc.cat` is `SSO`, `SSO+my.cat` is `SSO+my`); `None` when
/// the memory model's name is not identifiers joined by `-`, which no line can name.
pub fn expectation_label(label: &str) -> Option<String> {
    let (exec, Some(mem)) = label_parts(label) else {
        return Some(label_parts(label).0.to_string());
    };
    let ident = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    mem.split('-').all(ident).then(|| format!("{exec}+{mem}"))
}

/// `global x`, `global x = 5`, `global a[4]`, `global a[4] = {1, 2, 3, 4}`.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: String,
    /// `None` for a scalar, `Some(n)` for an array of n cells.
    pub len: Option<u32>,
    /// Initial values, one per cell (filled with zeros when not given; a scalar has one).
    pub init: Vec<u32>,
    pub span: Span,
}

impl Global {
    /// Number of memory cells.
    pub fn cells(&self) -> u32 {
        self.len.unwrap_or(1)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// Memory-model tags of an access, fence or barrier (`ACQ`, `DV`, `SC0`, ...: the names a
    /// cat model reads, docs/memory-models.md); empty for plain accesses. Sequentially
    /// consistent memory ignores them.
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `r = expr;` (expr never names a global; it may contain subgroup ops).
    Assign {
        reg: String,
        value: Expr,
    },
    /// `r = x;`, `r = a[i];`, `r = atomicLoad(a[i]);`
    Load {
        reg: String,
        global: String,
        index: Option<Expr>,
    },
    /// `x = e;`, `a[i] = e;`, `atomicStore(a[i], e);`
    Store {
        global: String,
        index: Option<Expr>,
        value: Expr,
    },
    /// `r = atomicAdd(a[i], v);` (or without `r =`): `args` are the value arguments
    /// (one, or two for `atomicCompSwap`: compare then value).
    Atomic {
        reg: Option<String>,
        op: AtomicOp,
        global: String,
        index: Option<Expr>,
        args: Vec<Expr>,
    },
    /// `subgroupBarrier();` or `barrier();`
    Barrier(BarrierScope),
    /// `fence(...)`: a memory barrier (no control effect); its tags say what it orders.
    /// With `id(EXPR)` first, a meeting named by a `#name` tag meets only the fences of that
    /// name whose ids are equal at run time (Dartagnan's `bar.cta.sync I, ID` and
    /// `cbar.sem.scope I, ID`; docs/litmus-format.md).
    Fence {
        id: Option<Expr>,
    },
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `for (init; cond; step) body`: init and step are register assignments (or absent);
    /// an absent cond is `true`.
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Box<Stmt>>,
        body: Vec<Stmt>,
    },
    /// `loop { ... }`: exits only by break or return. `continuing` is the continue construct
    /// (empty in litmus files; shaders' `continuing { ... }` blocks and `break if`): it runs
    /// after each iteration and after `continue`, in the loop's continue target, and may end
    /// the loop with a `break`.
    Loop {
        body: Vec<Stmt>,
        continuing: Vec<Stmt>,
    },
    Break,
    Continue,
    Return,
    /// `unreachable;`: reaching it is undefined behaviour (SPIR-V's `OpUnreachable`).
    Unreachable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierScope {
    Subgroup,
    Workgroup,
    /// `barrier(quorum(NAME, N))`: a workgroup barrier met by name, not by position. The
    /// threads of a workgroup reaching a barrier of that name wait until `quorum` of them
    /// wait; those pass together and the barrier is then open: a thread reaching it later
    /// passes alone. If fewer than `quorum` ever reach it, they wait forever. (Dartagnan's
    /// `cbar id, n, m` and `bar.cta.sync id, n, m`; docs/litmus-format.md.)
    Quorum {
        name: u32,
        quorum: u32,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Lit(u32),
    Reg(String),
    Builtin(Builtin),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A subgroup op inside an expression (never under `&&`/`||` right operands or `?:`).
    SgOp(SgOp, Vec<Expr>),
    /// Ballot helpers: local arithmetic.
    Call(LocalFn, Vec<Expr>),
}

/// The final condition: `exists (P)`, `~exists (P)` or `forall (P)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub prop: Prop,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

impl Quantifier {
    pub fn keyword(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// A proposition over the final state.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    True,
    False,
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    /// `a OP b` with OP one of == != < <= > >=.
    Cmp(BinOp, Operand, Operand),
    /// A bare operand: true when non-zero.
    Truthy(Operand),
}

/// A value named by the condition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Operand {
    Lit(u32),
    /// `T:r`: register r of global thread T.
    Reg {
        thread: u32,
        reg: String,
    },
    /// `x` (index 0) or `a[k]`.
    Mem {
        global: String,
        index: u32,
    },
}

impl Operand {
    /// How the litmus format writes it, and how reports name it (`Program::observable_name`
    /// gives the same name to the observable it becomes): `5`, `0:r`, `x`, `a[1]` (an array
    /// cell always with its index, a scalar never).
    pub fn name(&self, globals: &[Global]) -> String {
        match self {
            Operand::Lit(v) => v.to_string(),
            Operand::Reg { thread, reg } => format!("{thread}:{reg}"),
            Operand::Mem { global, index } => {
                if globals.iter().any(|g| g.name == *global && g.len.is_some()) {
                    format!("{global}[{index}]")
                } else {
                    global.clone()
                }
            }
        }
    }
}

/// Models a test file names for itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hints {
    pub model: Option<String>,
    pub progress: Option<String>,
}

/// `expect-liveness [MODEL] PROGRESS live|violated, ...`
#[derive(Clone, Debug, PartialEq)]
pub struct LivenessExpectation {
    /// The execution model it is about; `None`: every model.
    pub model: Option<String>,
    /// The progress model as written (`fair`, `hsa-obe`, `[QF=obe,SG=hsa]`).
    pub progress: String,
    pub live: bool,
    pub span: Span,
    /// Where the progress model is written: the models layer checks the name
    /// (`query::liveness::check_progress_names`), so a front end needs no model list.
    pub progress_span: Span,
}

/// `expect M allow|forbid, ...`; `expect forbid` (no model) is about every model.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// `None`: every model not named by an entry of its own.
    pub model: Option<String>,
    pub allow: bool,
    pub span: Span,
}

/// Calls `f` on every register name assigned in `stmts`, in source order (a register of the
/// litmus language exists because it is assigned somewhere).
pub fn assigned_registers(stmts: &[Stmt], f: &mut dyn FnMut(&str)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { reg, .. } | StmtKind::Load { reg, .. } => f(reg),
            StmtKind::Atomic { reg: Some(reg), .. } => f(reg),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                assigned_registers(then_body, f);
                assigned_registers(else_body, f);
            }
            StmtKind::While { body, .. } => assigned_registers(body, f),
            StmtKind::Loop { body, continuing } => {
                assigned_registers(body, f);
                assigned_registers(continuing, f);
            }
            StmtKind::For {
                init, step, body, ..
            } => {
                for s in init.iter().chain(step.iter()) {
                    assigned_registers(std::slice::from_ref(s), f);
                }
                assigned_registers(body, f);
            }
            _ => {}
        }
    }
}
