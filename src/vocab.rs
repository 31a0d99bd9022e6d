//! The vocabulary of docs/semantics.md, shared by the front end, the IR and every engine.
//!
//! Operators, built-ins, subgroup operations, instruction kinds and execution classes are
//! named once here so that a rule in one engine and the same rule in another engine talk
//! about the same thing.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Binary operators of the kernel language (C precedence, 32-bit wrapping, unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// Unsigned division; division by zero is undefined behaviour.
    Div,
    /// Unsigned remainder; by zero is undefined behaviour.
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    /// Shift left; a shift amount of 32 or more gives 0 (SMT-LIB `bvshl`).
    Shl,
    /// Logical shift right; a shift amount of 32 or more gives 0 (SMT-LIB `bvlshr`).
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Short-circuit logical and (result 0 or 1).
    LAnd,
    /// Short-circuit logical or (result 0 or 1).
    LOr,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Shl => "<<",
            Shr => ">>",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            LAnd => "&&",
            LOr => "||",
        }
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    /// Two's complement negation (wrapping).
    Neg,
    /// Bitwise not.
    BitNot,
    /// Logical not: 1 if the operand is 0, else 0.
    Not,
}

impl UnOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Neg => "-",
            UnOp::BitNot => "~",
            UnOp::Not => "!",
        }
    }
}

/// Built-in per-thread values (docs/semantics.md §1, litmus-format.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Builtin {
    /// Subgroup invocation id.
    Lane,
    /// Global invocation index.
    Tid,
    /// Index in the workgroup.
    Lid,
    /// Subgroup index in the workgroup.
    Sgid,
    /// Workgroup index.
    Wgid,
    /// Lanes per subgroup.
    Sgsize,
}

impl Builtin {
    pub const ALL: [Builtin; 6] = [
        Builtin::Lane,
        Builtin::Tid,
        Builtin::Lid,
        Builtin::Sgid,
        Builtin::Wgid,
        Builtin::Sgsize,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Lane => "lane",
            Builtin::Tid => "tid",
            Builtin::Lid => "lid",
            Builtin::Sgid => "sgid",
            Builtin::Wgid => "wgid",
            Builtin::Sgsize => "sgsize",
        }
    }
    pub fn from_name(s: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.name() == s)
    }
}

/// Reduction operators used by subgroup reductions, scans and (some) atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum RedOp {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl RedOp {
    pub const ALL: [RedOp; 7] = [
        RedOp::Add,
        RedOp::Mul,
        RedOp::Min,
        RedOp::Max,
        RedOp::And,
        RedOp::Or,
        RedOp::Xor,
    ];
    /// The suffix used in GLSL names: `subgroupAdd`, `subgroupInclusiveMin`, ...
    pub fn suffix(self) -> &'static str {
        match self {
            RedOp::Add => "Add",
            RedOp::Mul => "Mul",
            RedOp::Min => "Min",
            RedOp::Max => "Max",
            RedOp::And => "And",
            RedOp::Or => "Or",
            RedOp::Xor => "Xor",
        }
    }
    /// The identity element: what an exclusive scan gives the first participant.
    pub fn identity(self) -> u32 {
        match self {
            RedOp::Add | RedOp::Or | RedOp::Xor | RedOp::Max => 0,
            RedOp::Mul => 1,
            RedOp::Min | RedOp::And => u32::MAX,
        }
    }
    /// Concrete application, 32-bit wrapping, unsigned.
    pub fn apply(self, a: u32, b: u32) -> u32 {
        match self {
            RedOp::Add => a.wrapping_add(b),
            RedOp::Mul => a.wrapping_mul(b),
            RedOp::Min => a.min(b),
            RedOp::Max => a.max(b),
            RedOp::And => a & b,
            RedOp::Or => a | b,
            RedOp::Xor => a ^ b,
        }
    }
}

/// Subgroup operations (litmus-format.md, docs/semantics.md §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SgOp {
    All,
    Any,
    AllEqual,
    /// The mask of lanes 0..31 whose argument is true (the x word of a `vec4<u32>` ballot).
    Ballot,
    /// The mask of lanes 32..63 (the y word): shaders' ballots above 32 lanes.
    BallotHigh,
    /// The mask of lanes 64..95 (the z word): shaders' ballots above 64 lanes.
    BallotZ,
    /// The mask of lanes 96..127 (the w word): shaders' ballots above 96 lanes.
    BallotW,
    Elect,
    Broadcast,
    BroadcastFirst,
    Shuffle,
    ShuffleXor,
    ShuffleUp,
    ShuffleDown,
    Reduce(RedOp),
    InclusiveScan(RedOp),
    ExclusiveScan(RedOp),
}

impl SgOp {
    /// Number of arguments the op takes.
    pub fn arity(self) -> usize {
        match self {
            SgOp::Elect => 0,
            SgOp::Broadcast
            | SgOp::Shuffle
            | SgOp::ShuffleXor
            | SgOp::ShuffleUp
            | SgOp::ShuffleDown => 2,
            _ => 1,
        }
    }
    /// The GLSL name, e.g. `subgroupInclusiveAdd`.
    pub fn name(self) -> String {
        let s = match self {
            SgOp::All => "All",
            SgOp::Any => "Any",
            SgOp::AllEqual => "AllEqual",
            SgOp::Ballot => "Ballot",
            SgOp::BallotHigh => "BallotHigh",
            SgOp::BallotZ => "BallotZ",
            SgOp::BallotW => "BallotW",
            SgOp::Elect => "Elect",
            SgOp::Broadcast => "Broadcast",
            SgOp::BroadcastFirst => "BroadcastFirst",
            SgOp::Shuffle => "Shuffle",
            SgOp::ShuffleXor => "ShuffleXor",
            SgOp::ShuffleUp => "ShuffleUp",
            SgOp::ShuffleDown => "ShuffleDown",
            SgOp::Reduce(r) => return format!("subgroup{}", r.suffix()),
            SgOp::InclusiveScan(r) => return format!("subgroupInclusive{}", r.suffix()),
            SgOp::ExclusiveScan(r) => return format!("subgroupExclusive{}", r.suffix()),
        };
        format!("subgroup{s}")
    }
    /// Every subgroup op, for parsers and generators.
    pub fn all() -> Vec<SgOp> {
        let mut v = vec![
            SgOp::All,
            SgOp::Any,
            SgOp::AllEqual,
            SgOp::Ballot,
            SgOp::BallotHigh,
            SgOp::BallotZ,
            SgOp::BallotW,
            SgOp::Elect,
            SgOp::Broadcast,
            SgOp::BroadcastFirst,
            SgOp::Shuffle,
            SgOp::ShuffleXor,
            SgOp::ShuffleUp,
            SgOp::ShuffleDown,
        ];
        for r in RedOp::ALL {
            v.push(SgOp::Reduce(r));
            v.push(SgOp::InclusiveScan(r));
            v.push(SgOp::ExclusiveScan(r));
        }
        v
    }
    /// For a ballot, which 32-bit word of GLSL's `uvec4` ballot it is: lanes `32k..32k+31`.
    pub fn ballot_word(self) -> Option<u32> {
        match self {
            SgOp::Ballot => Some(0),
            SgOp::BallotHigh => Some(1),
            SgOp::BallotZ => Some(2),
            SgOp::BallotW => Some(3),
            _ => None,
        }
    }
    /// The ballot op giving word `k` (0 to 3) of a `uvec4` ballot.
    pub fn ballot_of_word(k: u32) -> Option<SgOp> {
        [SgOp::Ballot, SgOp::BallotHigh, SgOp::BallotZ, SgOp::BallotW]
            .get(k as usize)
            .copied()
    }
    pub fn from_name(s: &str) -> Option<SgOp> {
        SgOp::all().into_iter().find(|op| op.name() == s)
    }
}

/// Ballot helpers: local arithmetic on a ballot mask (docs/semantics.md §5), not subgroup ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LocalFn {
    /// `subgroupBallotBitCount(mask)`: number of set bits.
    BallotBitCount,
    /// `subgroupBallotInclusiveBitCount(mask)`: set bits at lanes <= this lane.
    BallotInclusiveBitCount,
    /// `subgroupBallotExclusiveBitCount(mask)`: set bits at lanes < this lane.
    BallotExclusiveBitCount,
    /// `subgroupBallotBitExtract(mask, i)`: bit i (0 when i >= 32).
    BallotBitExtract,
    /// `subgroupBallotFindLSB(mask)`: lowest set bit, or 0xFFFFFFFF (GLSL findLSB) when none.
    BallotFindLsb,
    /// `subgroupBallotFindMSB(mask)`: highest set bit, or 0xFFFFFFFF when none.
    BallotFindMsb,
}

impl LocalFn {
    pub const ALL: [LocalFn; 6] = [
        LocalFn::BallotBitCount,
        LocalFn::BallotInclusiveBitCount,
        LocalFn::BallotExclusiveBitCount,
        LocalFn::BallotBitExtract,
        LocalFn::BallotFindLsb,
        LocalFn::BallotFindMsb,
    ];
    pub fn name(self) -> &'static str {
        match self {
            LocalFn::BallotBitCount => "subgroupBallotBitCount",
            LocalFn::BallotInclusiveBitCount => "subgroupBallotInclusiveBitCount",
            LocalFn::BallotExclusiveBitCount => "subgroupBallotExclusiveBitCount",
            LocalFn::BallotBitExtract => "subgroupBallotBitExtract",
            LocalFn::BallotFindLsb => "subgroupBallotFindLSB",
            LocalFn::BallotFindMsb => "subgroupBallotFindMSB",
        }
    }
    pub fn arity(self) -> usize {
        match self {
            LocalFn::BallotBitExtract => 2,
            _ => 1,
        }
    }
    pub fn from_name(s: &str) -> Option<LocalFn> {
        LocalFn::ALL.into_iter().find(|f| f.name() == s)
    }
}

/// Atomic read-modify-write operations. `atomicLoad`/`atomicStore` are plain loads/stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AtomicOp {
    Add,
    Sub,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exchange,
    /// `atomicCompSwap(a[i], compare, v)`: writes v if the old value equals compare; a
    /// failing compare only reads (SPIR-V's `OpAtomicCompareExchange`, GLSL, WGSL).
    CompSwap,
    /// `atomicCompSwapWriteBack(a[i], compare, v)`: as `CompSwap`, but a failing compare
    /// writes the old value back (PTX's `atom.cas`, `*a = (*a == b) ? c : *a`, as Dartagnan
    /// reads it).
    CompSwapWriteBack,
}

impl AtomicOp {
    pub const ALL: [AtomicOp; 10] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Min,
        AtomicOp::Max,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Exchange,
        AtomicOp::CompSwap,
        AtomicOp::CompSwapWriteBack,
    ];
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "atomicAdd",
            AtomicOp::Sub => "atomicSub",
            AtomicOp::Min => "atomicMin",
            AtomicOp::Max => "atomicMax",
            AtomicOp::And => "atomicAnd",
            AtomicOp::Or => "atomicOr",
            AtomicOp::Xor => "atomicXor",
            AtomicOp::Exchange => "atomicExchange",
            AtomicOp::CompSwap => "atomicCompSwap",
            AtomicOp::CompSwapWriteBack => "atomicCompSwapWriteBack",
        }
    }
    pub fn from_name(s: &str) -> Option<AtomicOp> {
        AtomicOp::ALL.into_iter().find(|a| a.name() == s)
    }
    /// Value arguments after the memory location.
    pub fn value_args(self) -> usize {
        match self {
            AtomicOp::CompSwap | AtomicOp::CompSwapWriteBack => 2,
            _ => 1,
        }
    }
    /// Does a failing compare leave the access a read alone? Then the write happens only
    /// when [`crate::eval::atomic_stores`] holds.
    pub fn may_only_read(self) -> bool {
        self == AtomicOp::CompSwap
    }
}

/// Instruction kinds (docs/semantics.md §3). A model gives each kind a [`Class`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Block entry.
    Label,
    /// Block exit: conditional or not, including break, continue and return.
    Branch,
    /// Load, store, atomic read-modify-write.
    Memory,
    /// Subgroup operations.
    Sgop,
    /// Subgroup and workgroup barriers: collective in every model.
    Barrier,
    /// Register arithmetic: always independent, no observable step.
    Local,
}

impl Kind {
    /// The kinds whose class a model chooses; `barrier` and `local` are fixed by docs/semantics.md §3.
    pub const MODELLED: [Kind; 4] = [Kind::Label, Kind::Branch, Kind::Memory, Kind::Sgop];
    /// The kinds whose events a timing rule constrains: the modelled ones and barriers
    /// (local arithmetic is an eager step of its thread, never an event another thread sees).
    pub const TIMED: [Kind; 5] = [
        Kind::Label,
        Kind::Branch,
        Kind::Memory,
        Kind::Sgop,
        Kind::Barrier,
    ];

    /// The class docs/semantics.md §3 fixes for a kind no model chooses: barriers are collective
    /// and local arithmetic independent in every model.
    pub fn fixed_class(self) -> Option<Class> {
        match self {
            Kind::Barrier => Some(Class::Collective),
            Kind::Local => Some(Class::Independent),
            _ => None,
        }
    }

    /// Steps of this kind touch nothing another thread can read: block entries and exits
    /// change only where the thread is, arithmetic only its registers.
    pub fn private(self) -> bool {
        matches!(self, Kind::Label | Kind::Branch | Kind::Local)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Label => "label",
            Kind::Branch => "branch",
            Kind::Memory => "memory",
            Kind::Sgop => "sgop",
            Kind::Barrier => "barrier",
            Kind::Local => "local",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Execution classes (docs/semantics.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// The thread steps alone, interleaved freely.
    Independent,
    /// Starts only when all of T(db) arrived and nobody is undecided; then one step per thread.
    Synchronous,
    /// Same arrival condition; all of T(db) execute it as one atomic step.
    Collective,
    /// (sgop only) Collective, but may fire while threads are still undecided.
    Speculative,
    /// (sgop only) Each thread alone; the result stays pending until T(db) is known.
    Lazy,
    /// (sgop only) Each thread alone, any time; the value is only constrained at the end.
    Symbolic,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Independent,
        Class::Synchronous,
        Class::Collective,
        Class::Speculative,
        Class::Lazy,
        Class::Symbolic,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Class::Independent => "independent",
            Class::Synchronous => "synchronous",
            Class::Collective => "collective",
            Class::Speculative => "speculative",
            Class::Lazy => "lazy",
            Class::Symbolic => "symbolic",
        }
    }
    /// Classes that only make sense for subgroup operations.
    pub fn sgop_only(self) -> bool {
        matches!(self, Class::Speculative | Class::Lazy | Class::Symbolic)
    }

    /// The class each of whose steps is also a step of this one (docs/semantics.md §3): a
    /// speculative op that fires with nobody undecided, a lazy op that T(db) issue together
    /// and resolve at once, a symbolic op that T(db) execute together with the members'
    /// value, are each a collective step. The other classes are their own. A run of the
    /// narrowed classes is so a run of these, which is how a hang found under the narrowed
    /// model is one of this model (docs/progress.md, "Hangs of the narrowed model").
    pub fn narrowed(self) -> Class {
        if self.sgop_only() {
            Class::Collective
        } else {
            self
        }
    }
}

/// When the event of a dynamic block db may happen: how the events of T(db) are tied
/// together, and whether threads undecided for db hold it back (docs/semantics.md §3).
///
/// This is the one table the explorer's enabling conditions, the encoder's constraints, the
/// decoder's grouping of steps, the liveness reduction and the inclusion proofs' schemas all
/// read; none of them looks at a class or kind to decide timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingRule {
    pub members: Members,
    /// Every thread of the subgroup that does not enter db has decided (taken its leaving
    /// event) before the members' start, group, slot or resolution time.
    pub waits_for_undecided: bool,
    /// The step is invisible to every other thread and waits for nobody, so an engine may
    /// take it as soon as the thread reaches it (local arithmetic, independent labels and
    /// branches, a lazy op's issue).
    pub eager: bool,
}

impl TimingRule {
    /// The rule for an event of `kind` under `class`.
    pub fn of(kind: Kind, class: Class) -> TimingRule {
        let (members, waits) = match class {
            Class::Independent | Class::Symbolic => (Members::Alone, false),
            Class::Synchronous => (Members::Start, true),
            Class::Collective => (Members::Group, true),
            Class::Speculative => (Members::Group, false),
            Class::Lazy => (Members::Resolve, true),
        };
        // Memory accesses of one group step still take one time each (docs/semantics.md §3).
        let members = match members {
            Members::Group if kind == Kind::Memory => Members::Slot,
            m => m,
        };
        TimingRule {
            members,
            waits_for_undecided: waits,
            eager: (kind.private() && members == Members::Alone) || members == Members::Resolve,
        }
    }

    /// Do the members take the event as one step of the group (a group or a slot)?
    pub fn one_step(self) -> bool {
        matches!(self.members, Members::Group | Members::Slot)
    }

    /// Do the members' events share one time (so that a trace shows them as one step)?
    pub fn one_time(self) -> bool {
        self.members == Members::Group
    }
}

/// How the members' events of one instance are tied together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Members {
    /// Each thread steps alone, any time (independent, symbolic: a symbolic op's value is
    /// constrained by the final T(db) only).
    Alone,
    /// A start time S after every member's previous event; then each member steps alone, at
    /// or after S (synchronous).
    Start,
    /// One atomic step of all members at one time G after every member's previous event
    /// (collective, speculative).
    Group,
    /// A group step of memory accesses: the members' accesses take consecutive times
    /// [G, G + |T(db)|) in some order, each after its thread's previous event, and no
    /// conflicting access of another thread falls inside.
    Slot,
    /// Each member issues alone; the result is resolved at a time R after every issue, and
    /// every read of it comes after R (lazy).
    Resolve,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// ---- expressions -----------------------------------------------------------------------
//
// The expression language lives here, below both the IR and `eval`, so that the IR can use
// the value rules of `eval` without `eval` depending on the IR.

/// Index of a register (per thread). Registers named by the user and hidden temporaries share
/// one numbering.
pub type RegId = u32;

/// A side-effect-free expression over registers, literals and built-ins. Subgroup ops were
/// hoisted into the IR's `Op::SgOp` instructions, so evaluating an `Expr` is always a local step.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Lit(u32),
    Reg(RegId),
    Builtin(Builtin),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    Call(LocalFn, Vec<Expr>),
}

impl Expr {
    /// Registers this expression reads (a Lazy thread blocks on a pending one).
    pub fn regs(&self, out: &mut Vec<RegId>) {
        match self {
            Expr::Lit(_) | Expr::Builtin(_) => {}
            Expr::Reg(r) => out.push(*r),
            Expr::Unary(_, a) => a.regs(out),
            Expr::Binary(_, a, b) => {
                a.regs(out);
                b.regs(out);
            }
            Expr::Ternary(a, b, c) => {
                a.regs(out);
                b.regs(out);
                c.regs(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.regs(out)),
        }
    }
}

/// Memory-model tag words of the litmus language (`atomicLoad(x, acquire, device)`), each
/// with the cat tags it stands for (docs/memory-models.md). A word not listed here is refused.
pub const MEMORY_TAG_WORDS: &[(&str, &[&str])] = &[
    ("relaxed", &["RLX"]),
    ("rlx", &["RLX"]),
    ("acquire", &["ACQ"]),
    ("acq", &["ACQ"]),
    ("release", &["REL"]),
    ("rel", &["REL"]),
    ("acq_rel", &["ACQ", "REL"]),
    ("acqrel", &["ACQ", "REL"]),
    ("seq_cst", &["SC", "ACQ", "REL"]),
    ("subgroup", &["SG"]),
    ("sg", &["SG"]),
    ("workgroup", &["WG"]),
    ("wg", &["WG"]),
    ("queuefamily", &["QF"]),
    ("qf", &["QF"]),
    ("device", &["DV"]),
    ("dv", &["DV"]),
    ("cta", &["CTA"]),
    ("gpu", &["GPU"]),
    ("sys", &["SYS"]),
    ("sc0", &["SC0"]),
    ("sc1", &["SC1"]),
    ("semsc0", &["SEMSC0"]),
    ("semsc1", &["SEMSC1"]),
    ("av", &["AV"]),
    ("vis", &["VIS"]),
    ("semav", &["SEMAV"]),
    ("semvis", &["SEMVIS"]),
    ("nonpriv", &["NONPRIV"]),
    ("atomic", &["A"]),
];

/// The cat tags a litmus tag word stands for.
pub fn memory_tags(word: &str) -> Option<&'static [&'static str]> {
    MEMORY_TAG_WORDS
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word))
        .map(|(_, t)| *t)
}

/// The canonical litmus word of a cat tag (for printing a test back).
pub fn memory_tag_word(tag: &str) -> String {
    MEMORY_TAG_WORDS
        .iter()
        .find(|(_, t)| t.len() == 1 && t[0] == tag)
        .map(|(w, _)| (*w).to_string())
        .unwrap_or_else(|| format!("\"{tag}\""))
}

#[cfg(test)]
mod timing_table {
    use super::*;

    /// The table of docs/semantics.md §3, spelled out once more by hand: a change to
    /// `TimingRule::of` must be a change to this list too.
    #[test]
    fn eager_steps_and_slots_are_where_semantics_puts_them() {
        for kind in [
            Kind::Label,
            Kind::Branch,
            Kind::Memory,
            Kind::Sgop,
            Kind::Barrier,
            Kind::Local,
        ] {
            for class in Class::ALL {
                let fixed = kind.fixed_class().is_some_and(|c| c != class);
                if fixed || (class.sgop_only() && kind != Kind::Sgop) {
                    continue;
                }
                let r = TimingRule::of(kind, class);
                let eager = matches!(
                    (kind, class),
                    (Kind::Local, _)
                        | (Kind::Label | Kind::Branch, Class::Independent)
                        | (Kind::Sgop, Class::Lazy)
                );
                assert_eq!(r.eager, eager, "{kind} {class}");
                let slot =
                    kind == Kind::Memory && matches!(class, Class::Collective | Class::Speculative);
                assert_eq!(r.members == Members::Slot, slot, "{kind} {class}");
                assert_eq!(
                    r.one_time(),
                    !slot && matches!(class, Class::Collective | Class::Speculative),
                    "{kind} {class}"
                );
            }
        }
    }
}
