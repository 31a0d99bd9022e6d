//! The memory-model axis: which values reads may return, as a cat model says.
//!
//! Sequentially consistent memory (`sc`, the default) is built into both engines and is not
//! routed through here. Any other model is a cat file ([`crate::cat`]): an engine runs the
//! SIMT-Step rules of the execution model with reads returning guessed values and records,
//! per thread, the memory events it performed ([`Access`]); [`judge`] turns a finished run
//! into candidate executions (every reads-from and coherence order that matches the guessed
//! values), evaluates the cat model on each, and returns the final memories of the
//! consistent ones. The base sets and relations a model may name: docs/memory-models.md.

pub mod base;
pub mod execution;

pub use execution::{
    hang_consistent, judge, prefix_consistent, prefix_consistent_within, Access, Final, Judgement,
    What, Window,
};

use crate::cat;
use std::path::{Path, PathBuf};

/// A relaxed execution as reports show it: each read with the write it read from, and each
/// location's coherence order as consecutive pairs (events in words: `T1 line 7: R x = 1`,
/// `initial x = 0`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Execution {
    pub rf: Vec<(String, String)>,
    pub co: Vec<(String, String)>,
    /// The events of `rf`'s pairs, pair for pair, as places: pictures draw the edges between
    /// a witness's steps.
    #[serde(skip)]
    pub rf_at: Vec<(Place, Place)>,
    /// The same for `co`.
    #[serde(skip)]
    pub co_at: Vec<(Place, Place)>,
    /// The events that neither read nor write (fences, control barriers, subgroup
    /// operations), in words (`T0 line 5: fence ACQ_REL WG`): a forbidden condition's
    /// picture needs them, since an axiom may turn on a fence between two accesses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<String>,
    /// Their places, event for event.
    #[serde(skip)]
    pub others_at: Vec<Place>,
}

/// Where an event happened, for pictures: its location, and its thread, block of the
/// unrolled program and instruction there (`None` for an initial write).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub cell: String,
    pub at: Option<(u32, crate::ir::BlockId, u32)>,
}

/// The place of an event of `thread` at `at` (an instruction) on `cell`.
pub fn place(
    prog: &crate::ir::Program,
    thread: Option<u32>,
    at: Option<(crate::ir::BlockId, u32)>,
    cell: u32,
) -> Place {
    Place {
        cell: prog.cell_name(cell),
        at: (|| Some((thread?, at?.0, at?.1)))(),
    }
}

impl Execution {
    /// Adds an event that neither reads nor writes (both engines list them the same way).
    pub fn push_other(&mut self, prog: &crate::ir::Program, e: &base::EventInfo) {
        self.others.push(describe_other(prog, e));
        self.others_at.push(Place {
            cell: String::new(),
            at: (|| Some((e.thread?, e.at?.0, e.at?.1)))(),
        });
    }

    /// Every pair with its events' places: `true` for reads-from, `false` for coherence.
    pub fn pairs(&self) -> impl Iterator<Item = (bool, (&str, &Place), (&str, &Place))> {
        let rf = self.rf.iter().zip(&self.rf_at).map(|p| (true, p));
        let co = self.co.iter().zip(&self.co_at).map(|p| (false, p));
        rf.chain(co)
            .map(|(is_rf, ((a, b), (pa, pb)))| (is_rf, (a.as_str(), pa), (b.as_str(), pb)))
    }
}

/// How reports name an axiom: its `as` name, or its check and position in the model.
pub fn axiom_name(index: usize, name: &str, kind: cat::ast::CheckKind) -> String {
    if name.is_empty() {
        format!("{} (check {})", kind.keyword(), index + 1)
    } else {
        name.to_string()
    }
}

/// An event in words, as [`Execution`] lists them: `T1 line 7: R x = 1`, `initial x = 0`.
pub fn describe_event(
    prog: &crate::ir::Program,
    thread: Option<u32>,
    at: Option<(crate::ir::BlockId, u32)>,
    read: bool,
    cell: u32,
    value: u32,
) -> String {
    let name = prog.cell_name(cell);
    match (thread, at) {
        (Some(t), Some((b, i))) => {
            let line = prog.blocks[b as usize].instrs[i as usize].span.line;
            let rw = if read { "R" } else { "W" };
            format!("T{t} line {line}: {rw} {name} = {value}")
        }
        _ => format!("initial {name} = {value}"),
    }
}

/// An event that neither reads nor writes, in words: `T0 line 5: fence ACQ_REL WG`, with
/// the tags its instruction carries (those a model may name).
pub fn describe_other(prog: &crate::ir::Program, e: &base::EventInfo) -> String {
    let what = match e.kind {
        _ if base::is_cbar(prog, e) => "barrier",
        base::EventKind::Fence => "fence",
        base::EventKind::Barrier => "barrier",
        base::EventKind::SgOp => "subgroup op",
        base::EventKind::Access => "access",
    };
    match (e.thread, e.at) {
        (Some(t), Some((b, i))) => {
            let instr = &prog.blocks[b as usize].instrs[i as usize];
            let tags = base::shown_tags(instr);
            let sep = if tags.is_empty() { "" } else { " " };
            format!(
                "T{t} line {}: {what}{sep}{}",
                instr.span.line,
                tags.join(" ")
            )
        }
        _ => what.to_string(),
    }
}

/// What a report says about memory under a relaxed model.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MemoryReport {
    /// The witness's reads-from and coherence (an allowed condition).
    pub execution: Option<Execution>,
    /// A forbidden condition: each axiom that alone rules it out, named as the cat file names
    /// it, with an execution reaching the condition that satisfies every other axiom.
    pub forbidden_by: Vec<(String, Execution)>,
    /// A forbidden condition no single axiom rules out: the axioms that together do.
    pub forbidden_jointly: Vec<String>,
    /// The search for `forbidden_by` stopped before the end (the explorer's search of near
    /// misses in runs with open reads, at its cap): another axiom may also rule it out alone.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub forbidden_by_partial: bool,
}

/// A memory model other than the built-in SC: a parsed cat file.
#[derive(Clone, Debug)]
pub struct MemoryModel {
    /// As the user named it (`vulkan`, `models/my.cat`).
    pub name: String,
    pub cat: cat::Model,
    /// The axioms a run cut short (by the loop bound, or by undefined behaviour) must already
    /// satisfy ([`cat::prefix`]): the engines report such a run only when some candidate
    /// execution of it satisfies these.
    pub prefix: cat::Model,
    /// `cat` and `prefix` weakened to the axioms a candidate whose `rf` and `co` are only
    /// partly chosen already breaks ([`cat::prefix::growing`]): the explorer's search of
    /// candidates stops a branch as soon as one does.
    pub growing: cat::Model,
    pub prefix_growing: cat::Model,
    /// Does the model read `sched` (the SIMT-Step schedule)? Only then do executions that
    /// differ only in the order of independent steps have to be told apart.
    pub uses_sched: bool,
    /// The model reads `sched` only through the stdlib's `sync_fence`, between fences: the
    /// explorer then records the schedule positions of fences and barriers only (Z3 encodes
    /// the whole schedule either way).
    pub sched_fences_only: bool,
    /// Whether every location's writes are totally ordered by `co`.
    pub coherence: Coherence,
}

/// What the base `co` is: a total order of each location's writes (herd's and Dartagnan's
/// default), or only a strict partial order (PTX, where only morally strong writes must be
/// ordered and the model says which; Dartagnan's `Arch.coIsTotal`). Either way the initial
/// write comes first. Under a partial order a location's final value is that of some
/// coherence-maximal write, as in Dartagnan. A model asks for it with a comment line
/// `// tangle: coherence partial` (herd and Dartagnan read past it); the bundled `ptx` has it
/// from the table of built-in names, so its file stays Dartagnan's, unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Coherence {
    Total,
    Partial,
}

impl Coherence {
    /// The pragma in a model's text, if any (`// tangle: coherence partial` or `total`, also
    /// inside `(* *)`).
    fn declared(text: &str) -> Option<Coherence> {
        text.lines().find_map(|l| {
            let l = l.trim_start();
            if !(l.starts_with("//") || l.starts_with("(*")) {
                return None;
            }
            let rest = l.split_once("tangle:")?.1.trim_start();
            let word = rest.strip_prefix("coherence")?.trim_start();
            if word.starts_with("partial") {
                Some(Coherence::Partial)
            } else if word.starts_with("total") {
                Some(Coherence::Total)
            } else {
                None
            }
        })
    }
}

/// Why a memory model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum MemoryModelError {
    #[error("{0}")]
    Cat(String),
    #[error(
        "unknown memory model `{0}`: expected sc, vulkan, ptx, sc.cat or a path to a .cat file"
    )]
    Unknown(String),
}

const STDLIB: &str = include_str!("../../encodings/memory/stdlib.cat");

/// Built-in names, the bundled file each stands for (`sc` is the native SC: `None`) and its
/// coherence.
const NAMES: &[(&str, Option<&str>, Coherence)] = &[
    ("sc", None, Coherence::Total),
    ("vulkan", Some("vulkan.cat"), Coherence::Total),
    ("ptx", Some("ptx.cat"), Coherence::Partial),
];

impl MemoryModel {
    /// Is `name` a memory model `--memory-model` knows without a path (`sc`, `vulkan`, a
    /// bundled file's stem such as `sc` of `sc.cat`)? Expectations name memory models so.
    pub fn is_known_name(name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        NAMES.iter().any(|(n, ..)| *n == name) || cat::bundled(&format!("{name}.cat")).is_some()
    }

    /// Resolves `--memory-model`: `sc` (native, `Ok(None)`), a bundled name or file
    /// (`vulkan`, `sc.cat`), or a path to a cat file.
    pub fn resolve(spec: &str) -> Result<Option<MemoryModel>, MemoryModelError> {
        if let Some((_, file, co)) = NAMES.iter().find(|(n, ..)| n.eq_ignore_ascii_case(spec)) {
            return match file {
                None => Ok(None),
                Some(f) => Self::bundled(spec, f).map(|m| {
                    Some(MemoryModel {
                        coherence: *co,
                        ..m
                    })
                }),
            };
        }
        let path = Path::new(spec);
        if path.is_file() {
            let text = std::fs::read_to_string(path)
                .map_err(|e| MemoryModelError::Cat(format!("{spec}: cannot read: {e}")))?;
            return Self::from_text(spec, path, &text).map(Some);
        }
        if cat::bundled(spec).is_some() {
            return Self::bundled(spec, spec).map(Some);
        }
        Err(MemoryModelError::Unknown(spec.to_string()))
    }

    /// The name reports use: the name as given (`vulkan`, `sc.cat`), a path by its file name
    /// (`models/my.cat` gives `my.cat`).
    pub fn short_name(&self) -> String {
        match Path::new(&self.name).file_name() {
            Some(f) => f.to_string_lossy().into_owned(),
            None => self.name.clone(),
        }
    }

    fn bundled(name: &str, file: &str) -> Result<MemoryModel, MemoryModelError> {
        let text = cat::bundled(file).ok_or_else(|| MemoryModelError::Unknown(name.into()))?;
        Self::from_text(name, Path::new(file), text)
    }

    /// Parses a model from its text; `path` anchors its includes.
    pub fn from_text(name: &str, path: &Path, text: &str) -> Result<MemoryModel, MemoryModelError> {
        let search: Vec<PathBuf> = Vec::new();
        let mut model =
            cat::parse(path, text, &search).map_err(|d| MemoryModelError::Cat(d.render(false)))?;
        // herd's predefined names (fr, po-loc, rfe, ...) come first, as in herd.
        let stdlib = cat::parse(Path::new("stdlib.cat"), STDLIB, &search)
            .map_err(|d| MemoryModelError::Cat(d.render(false)))?;
        // The schedule is encoded only for a model that reads it, itself or through a name
        // the stdlib defines from it (`sync_fence`).
        let direct = mentions(&model, "sched");
        let uses_sched = direct
            || stdlib.stmts.iter().any(|s| match s {
                cat::ast::Stmt::Let(bs) | cat::ast::Stmt::LetRec(bs) => bs
                    .iter()
                    .any(|b| mentions_expr(&b.body, "sched") && mentions(&model, &b.name)),
                _ => false,
            });
        model
            .stmts
            .insert(0, cat::ast::Stmt::Include(Box::new(stdlib)));
        validate(&model).map_err(|e| MemoryModelError::Cat(e.to_string()))?;
        let prefix = cat::prefix::closed(&model);
        Ok(MemoryModel {
            name: name.to_string(),
            growing: cat::prefix::growing(&model, GROWING),
            prefix_growing: cat::prefix::growing(&prefix, GROWING),
            prefix,
            cat: model,
            uses_sched,
            sched_fences_only: uses_sched && !direct,
            coherence: Coherence::declared(text).unwrap_or(Coherence::Total),
        })
    }
}

/// The base relations the explorer chooses pair by pair when it searches candidates.
pub(crate) const GROWING: &[&str] = &["rf", "co"];

/// Every relation an execution gives a model (the fixed ones of [`base`] and these).
pub const EXECUTION_RELATIONS: &[&str] =
    &["po", "loc", "vloc", "rmw", "rf", "co", "sstep", "sched"];

/// Runs the model once on the empty execution with every base name defined, so that an unknown
/// name, a wrong arity or a type error is a located error when the model is loaded, not an
/// `unknown` verdict later (cat's types do not depend on the execution).
fn validate(model: &cat::Model) -> Result<(), cat::interp::EvalError> {
    use cat::concrete::{Bits, Concrete, Matrix};
    let mut alg = Concrete {
        strict: true,
        ..Default::default()
    };
    let sets = ["R", "W", "M", "IW", "F", "CBAR", "SGOP", "RMW", "ATOM"];
    for name in sets.iter().chain(base::KNOWN_TAGS) {
        alg.sets.insert(name.to_string(), Bits::new(0));
    }
    for name in base::FIXED_RELATIONS.iter().chain(EXECUTION_RELATIONS) {
        alg.rels.insert(name.to_string(), Matrix::new(0));
    }
    cat::interp::run(model, &mut alg).map(|_| ())
}

/// Does the model (or anything it includes) name `base`?
fn mentions(m: &cat::Model, base: &str) -> bool {
    use cat::ast::Stmt;
    m.stmts.iter().any(|s| match s {
        Stmt::Let(bs) | Stmt::LetRec(bs) => bs.iter().any(|b| mentions_expr(&b.body, base)),
        Stmt::Check(c) => mentions_expr(&c.expr, base),
        Stmt::Include(i) => mentions(i, base),
    })
}

/// Does the expression name `base`?
fn mentions_expr(e: &cat::ast::Expr, base: &str) -> bool {
    use cat::ast::Expr;
    let named = match e {
        Expr::Name(n, _) | Expr::App(n, _, _) => n == base,
        _ => false,
    };
    named || e.operands().into_iter().any(|a| mentions_expr(a, base))
}
