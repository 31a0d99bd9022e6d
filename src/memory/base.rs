//! The base sets and the fixed relations a cat model reads, defined once for both back ends.
//!
//! An event is described by what the program says about it ([`EventInfo`]): its thread, its
//! instruction, whether it reads or writes. Everything here follows from that alone, so the
//! concrete back end (one candidate execution, [`super::execution`]) and the symbolic one
//! (the Z3 encoding, where an event exists when its guard holds) compute the same sets and
//! relations from the same rules. What depends on the execution (`po` along the path taken,
//! `loc`, `rf`, `co`, `sstep`, `sched`) each back end adds itself, as documented in
//! docs/memory-models.md.

use crate::ir::{BlockId, Instr, Op, Program};
use std::collections::BTreeMap;

/// What kind of step an event records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A read, a write, or one half of a read-modify-write.
    Access,
    Fence,
    Barrier,
    SgOp,
}

/// One event as the program describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventInfo {
    /// `None`: an initial write (no thread performs it).
    pub thread: Option<u32>,
    /// The instruction: block instance and index in the block's instruction list.
    pub at: Option<(BlockId, u32)>,
    pub read: bool,
    pub write: bool,
    /// A half of a read-modify-write.
    pub rmw: bool,
    /// A quorum barrier passed in the step that opened it (the symbolic engine: that may;
    /// it adds the condition itself).
    pub released: bool,
    /// A fence's id at run time (`fence(id(E), ...)`); the symbolic engine leaves it `None`
    /// and adds the condition that ids be equal itself.
    pub id: Option<u32>,
    pub kind: EventKind,
}

/// Tag names that are empty sets when no event carries them (so a model may test them).
pub const KNOWN_TAGS: &[&str] = &[
    "A",
    "RLX",
    "ACQ",
    "REL",
    "SC",
    "SG",
    "WG",
    "QF",
    "DV",
    "CTA",
    "GPU",
    "SYS",
    "SC0",
    "SC1",
    "SC2",
    "SC3",
    "SEMSC0",
    "SEMSC1",
    "SEMSC2",
    "SEMSC3",
    "AV",
    "VIS",
    "SEMAV",
    "SEMVIS",
    "NONPRIV",
    "AVDEVICE",
    "VISDEVICE",
    "WEAK",
    "ACQ_REL",
    "GEN",
    "SUR",
    "TEX",
    "CON",
    "ALIAS",
];

/// The relations [`sinst`] decides: between quorum barriers they hold only from one that
/// passed in the opening step (`EventInfo::released`; the symbolic engine adds that
/// condition to the pair's, for these only), and between fences with run-time ids only
/// when the ids are equal (`EventInfo::id`). `sinst_static` is one of them: instances named
/// by a tag or a quorum meet by name there as in `sinst`.
pub const MEETINGS: &[&str] = &["sinst", "sinst_static", "scbarinst", "syncbar"];

/// The relations that follow from the events' descriptions alone.
pub const FIXED_RELATIONS: &[&str] = &[
    "int",
    "ext",
    "ssg",
    "swg",
    "sqf",
    "sinst",
    "sinst_static",
    "scbarinst",
    "syncbar",
    "ssw",
    "scta",
    "sr",
    "addr",
    "data",
    "ctrl",
];

fn instr<'p>(prog: &'p Program, e: &EventInfo) -> Option<&'p Instr> {
    e.at.map(|(b, i)| &prog.blocks[b as usize].instrs[i as usize])
}

/// Does the event carry `tag`? An instruction's tag `R:TAG` (`W:TAG`) is carried by its read
/// (write) half only: a dialect's read-modify-write whose halves differ (VULKAN's acquire on
/// the read, release on the write).
fn has(prog: &Program, e: &EventInfo, tag: &str) -> bool {
    instr(prog, e).is_some_and(|i| {
        i.tags.iter().any(|t| match t.split_once(':') {
            Some(("R", x)) => e.read && x == tag,
            Some(("W", x)) => e.write && x == tag,
            _ => t == tag,
        })
    })
}

/// The tag name without a half prefix.
fn tag_name(t: &str) -> &str {
    match t.split_once(':') {
        Some(("R" | "W", x)) => x,
        _ => t,
    }
}

/// Control barriers: the execution's barriers, and instructions tagged `CBAR` (a dialect's
/// barriers that meet by name rather than by position, e.g. VULKAN's `cbar 1`).
pub fn is_cbar(prog: &Program, e: &EventInfo) -> bool {
    e.kind == EventKind::Barrier || has(prog, e, "CBAR")
}

/// Fences: memory barriers, and control barriers with memory semantics.
pub fn is_fence(prog: &Program, e: &EventInfo) -> bool {
    e.kind == EventKind::Fence || (is_cbar(prog, e) && (has(prog, e, "ACQ") || has(prog, e, "REL")))
}

/// The tags of an instruction a model may name, in order, without half prefixes or the
/// reader's own marks (`#...`, `@...`, `ssw:...`).
pub fn shown_tags(i: &Instr) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for t in i
        .tags
        .iter()
        .filter(|t| is_model_tag(t))
        .map(|t| tag_name(t))
    {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Is `t` a tag a model names (not a reader's own mark)?
fn is_model_tag(t: &str) -> bool {
    let t = tag_name(t);
    !t.starts_with('#') && !t.starts_with('@') && !t.starts_with("ssw:")
}

/// Every base set, as a membership vector over `evs`: `R W M IW F CBAR SGOP RMW`, every tag
/// an instruction carries, the known tags (empty when absent) and `ATOM` (= `A`).
pub fn sets(prog: &Program, evs: &[EventInfo]) -> BTreeMap<String, Vec<bool>> {
    let set = |f: &dyn Fn(&EventInfo) -> bool| evs.iter().map(f).collect::<Vec<bool>>();
    let mut out = BTreeMap::new();
    out.insert("R".to_string(), set(&|e| e.read));
    out.insert("W".to_string(), set(&|e| e.write));
    out.insert("M".to_string(), set(&|e| e.read || e.write));
    out.insert("IW".to_string(), set(&|e| e.thread.is_none()));
    out.insert("F".to_string(), set(&|e| is_fence(prog, e)));
    out.insert("CBAR".to_string(), set(&|e| is_cbar(prog, e)));
    out.insert("SGOP".to_string(), set(&|e| e.kind == EventKind::SgOp));
    out.insert("RMW".to_string(), set(&|e| e.rmw));
    let mut tags: Vec<&str> = evs
        .iter()
        .filter_map(|e| instr(prog, e))
        .flat_map(|i| {
            i.tags
                .iter()
                .filter(|t| is_model_tag(t))
                .map(|t| tag_name(t))
        })
        .filter(|t| !matches!(*t, "CBAR" | "F"))
        .collect();
    tags.sort_unstable();
    tags.dedup();
    for tag in tags {
        out.insert(tag.to_string(), set(&|e| has(prog, e, tag)));
    }
    for tag in KNOWN_TAGS {
        out.entry(tag.to_string())
            .or_insert_with(|| vec![false; evs.len()]);
    }
    // Dartagnan's name for atomic accesses.
    out.insert("ATOM".to_string(), out["A"].clone());
    out
}

/// Is `(a, b)` in the fixed relation `name` (one of [`FIXED_RELATIONS`])?
pub fn fixed(prog: &Program, name: &str, a: &EventInfo, b: &EventInfo) -> bool {
    let lay = &prog.layout;
    let same_thread = a.thread.is_some() && a.thread == b.thread;
    let level = |l: Level| match (a.thread, b.thread) {
        (Some(x), Some(y)) => l.group(lay, x) == l.group(lay, y),
        _ => false,
    };
    match name {
        "int" => same_thread,
        "ext" => !same_thread,
        "ssg" => level(Level::Subgroup),
        "swg" => level(Level::Workgroup),
        "sqf" => level(Level::QueueFamily),
        "sinst" => sinst(prog, a, b),
        "sinst_static" => sinst_static(prog, a, b),
        "scbarinst" => sinst(prog, a, b) && is_cbar(prog, a) && is_cbar(prog, b),
        // Dartagnan's: as `scbarinst`, but a barrier that only arrives (PTX `bar.cta.arrive`,
        // tagged `ARRIVE`) does not wait, so nothing synchronises *into* it.
        "syncbar" => {
            sinst(prog, a, b) && is_cbar(prog, a) && is_cbar(prog, b) && !has(prog, b, "ARRIVE")
        }
        // System-synchronizes-with (a VULKAN test's `ssw S T`): every event of thread S
        // before every event of thread T.
        "ssw" => match (a.thread, b.thread) {
            (Some(s), Some(t)) if s != t => has(prog, a, &format!("ssw:{t}")),
            _ => false,
        },
        // PTX's CTA is a workgroup.
        "scta" => level(Level::Workgroup),
        // Same scope: each event's scope includes the other's thread (both scoped).
        "sr" => match (scope_size(prog, a), scope_size(prog, b)) {
            (Some(x), Some(y)) => level(x) && level(y),
            _ => false,
        },
        // Register dependencies from a read ([`crate::ir::deps`]).
        "addr" | "data" | "ctrl" => {
            let deps = prog.deps();
            let set = match name {
                "addr" => &deps.addr,
                "data" => &deps.data,
                _ => &deps.ctrl,
            };
            let kind_ok = match name {
                "addr" => b.read || b.write,
                "data" => b.write,
                _ => true,
            };
            same_thread
                && a.read
                && kind_ok
                && matches!((a.at, b.at), (Some(p), Some(q)) if set.contains(&(p, q)))
        }
        _ => unreachable!("not a fixed relation: {name}"),
    }
}

/// How many invocations the event's scope spans, from its scope tag: subgroup (`SG`),
/// workgroup (`WG`, PTX's `CTA`), queue family (`QF`, PTX's `GPU`), device (`DV`, PTX's
/// `SYS`). `None`: no scope.
fn scope_size(prog: &Program, e: &EventInfo) -> Option<Level> {
    [
        ("SG", Level::Subgroup),
        ("WG", Level::Workgroup),
        ("CTA", Level::Workgroup),
        ("QF", Level::QueueFamily),
        ("GPU", Level::QueueFamily),
        ("DV", Level::Device),
        ("SYS", Level::Device),
    ]
    .into_iter()
    .find(|(t, _)| has(prog, e, t))
    .map(|(_, l)| l)
}

/// A level of the thread hierarchy.
#[derive(Clone, Copy)]
enum Level {
    Subgroup,
    Workgroup,
    QueueFamily,
    Device,
}

impl Level {
    /// Which group of this level thread `t` belongs to (subgroups through the layout: the
    /// last one of a workgroup may be partial).
    fn group(self, lay: &crate::ir::Layout, t: u32) -> u32 {
        match self {
            Level::Subgroup => lay.subgroup_of(t),
            Level::Workgroup => lay.workgroup_of(t),
            Level::QueueFamily => t / lay.queue_family,
            Level::Device => 0,
        }
    }
}

/// Do the two events use the same reference to their memory (`vloc` is `loc` and this)? An
/// access through an alias carries the alias's name (`@z`); initial writes belong to the
/// memory itself, so they match every reference.
pub fn same_reference(prog: &Program, a: &EventInfo, b: &EventInfo) -> bool {
    let name =
        |e: &EventInfo| instr(prog, e).and_then(|i| i.tags.iter().find(|t| t.starts_with('@')));
    a.thread.is_none() || b.thread.is_none() || name(a) == name(b)
}

/// The approximation SIMT-Step's dynamic instances replace (Dartagnan's subgroup work relates
/// subgroup operations by static instruction): [`sinst`] with the block instance forgotten, so
/// that the same instruction in two lanes is related whatever loop iteration or dynamic block
/// each ran it in. Instances named by a tag or a quorum meet by name as in [`sinst`].
pub fn sinst_static(prog: &Program, a: &EventInfo, b: &EventInfo) -> bool {
    let (Some(s), Some(t), Some((p, i)), Some((q, j))) = (a.thread, b.thread, a.at, b.at) else {
        return false;
    };
    let by_name = |e: &EventInfo| {
        instr(prog, e).is_some_and(|x| {
            matches!(x.op, Op::QuorumBarrier { .. }) || x.tags.iter().any(|t| t.starts_with('#'))
        })
    };
    if by_name(a) || by_name(b) {
        return sinst(prog, a, b);
    }
    let lay = &prog.layout;
    let group = |e: &EventInfo, t: u32| match instr(prog, e).map(|x| &x.op) {
        Some(Op::WorkgroupBarrier) => lay.workgroup_of(t),
        _ => lay.subgroup_of(t),
    };
    s != t
        && prog.blocks[p as usize].sblock == prog.blocks[q as usize].sblock
        && i == j
        && group(a, s) == group(b, t)
        && (a.read, a.write) == (b.read, b.write)
}

/// SIMT-Step structure: the same dynamic instance of an instruction in another lane: same
/// instruction of the same block instance, same subgroup (a workgroup barrier: workgroup),
/// same half of a read-modify-write. A `#name` tag names an instance explicitly (VULKAN's
/// `cbar 1`): same name, same instance, inside one workgroup as control barriers meet; named
/// fences with a run-time id (`cbar 1, r0`) meet only when their ids are equal.
pub fn sinst(prog: &Program, a: &EventInfo, b: &EventInfo) -> bool {
    let lay = &prog.layout;
    let (Some(s), Some(t), Some(p), Some(q)) = (a.thread, b.thread, a.at, b.at) else {
        return false;
    };
    if s == t {
        return false;
    }
    // Quorum barriers meet by name, from a thread that passed in the step that opened the
    // barrier to every thread that passed it: among those released together both ways, and
    // from each of them to a thread passing later (the opening comes first).
    let quorum = |e: &EventInfo| match instr(prog, e).map(|i| &i.op) {
        Some(Op::QuorumBarrier { name, .. }) => Some(*name),
        _ => None,
    };
    match (quorum(a), quorum(b)) {
        (None, None) => {}
        (Some(m), Some(k)) => {
            return m == k && a.released && lay.workgroup_of(s) == lay.workgroup_of(t)
        }
        _ => return false,
    }
    let named = |e: &EventInfo| {
        instr(prog, e).and_then(|i| i.tags.iter().find(|t| t.starts_with('#')).cloned())
    };
    let group = |e: &EventInfo, t: u32| match instr(prog, e).map(|i| &i.op) {
        Some(Op::WorkgroupBarrier) => lay.workgroup_of(t),
        _ => lay.subgroup_of(t),
    };
    // Fences with a run-time id meet only those with one, and (when known) the same.
    let with_id = |e: &EventInfo| {
        matches!(
            instr(prog, e).map(|i| &i.op),
            Some(Op::Fence { id: Some(_) })
        )
    };
    match (named(a), named(b)) {
        (Some(m), Some(k)) => {
            m == k
                && s / lay.workgroup == t / lay.workgroup
                && with_id(a) == with_id(b)
                && (a.id.is_none() || b.id.is_none() || a.id == b.id)
        }
        (None, None) => {
            p == q && group(a, s) == group(b, t) && (a.read, a.write) == (b.read, b.write)
        }
        _ => false,
    }
}
