//! Witness traces: the steps of one execution, in the vocabulary of docs/semantics.md, shared by
//! every engine (a Z3 witness is decoded into the same steps).

use crate::eval::UbKind;
use crate::ir::{BlockId, RegId, Target};

/// Which part of a block a step executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum At {
    /// The block's label (entry).
    Label,
    /// Instruction `i` of the block.
    Instr(u32),
    /// The block's terminator (branch, jump or return).
    Term,
    /// Lazy: the pending results of the subgroup op at instruction `i` became known.
    Resolve(u32),
}

/// What a step did, for the report.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "effect")]
pub enum Effect {
    Reg {
        thread: u32,
        reg: RegId,
        value: u32,
    },
    /// `open`: an open read (docs/memory-models.md, "Open reads") whose value the trace does
    /// not know yet; `value` means nothing then.
    Read {
        thread: u32,
        reg: RegId,
        cell: u32,
        value: u32,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        open: bool,
    },
    Write {
        thread: u32,
        cell: u32,
        value: u32,
    },
    /// `new` is `None` when a compare-exchange failed: it only read.
    Rmw {
        thread: u32,
        cell: u32,
        old: u32,
        new: Option<u32>,
    },
    Goto {
        thread: u32,
        target: Target,
    },
    Done {
        thread: u32,
    },
    /// A lazy op was issued; its result register is pending.
    Pending {
        thread: u32,
        reg: RegId,
    },
    /// A speculative op fired while some thread was still undecided for its block.
    Speculated,
    Ub(UbKind),
}

/// One step: one thread, or a group stepping as one (collective), in one dynamic block.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Step {
    pub threads: Vec<u32>,
    pub block: BlockId,
    pub at: At,
    pub effects: Vec<Effect>,
}
