//! Dartagnan's VULKAN litmus dialect, read unchanged.
//!
//! ```text
//! VULKAN mp
//! { x=0; y=0; P1:r0=0; }
//!  P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ;
//!  st.atom.rel.dv.sc0 x, 1 | ld.atom.acq.dv.sc0 r0, x ;
//! exists (P1:r0 == 1 /\ x == 1)
//! ```
//!
//! The table itself is [`super::table`]'s. An instruction's modifiers become its memory tags
//! (`atom` -> `ATOM`, `acq` -> `ACQ`, `sc0` -> `SC0`, `dv` -> `DV`, ...:
//! docs/memory-models.md).

use super::table::{self, cbar_tag, split_cell, Alias, Cell, Dialect, Ins, Place};
use crate::diag::Diagnostics;
use crate::syntax::ast::{Stmt, StmtKind, Test};
use crate::vocab::AtomicOp;

/// Reads a VULKAN litmus file.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Test, Diagnostics> {
    table::parse(&Vulkan, file, bytes)
}

struct Vulkan;

impl Dialect for Vulkan {
    fn name(&self) -> &'static str {
        "VULKAN"
    }
    fn placement_form(&self) -> &'static str {
        "@sg N, wg N, qf N"
    }
    fn placement(&self, s: &str) -> Option<(u32, Place)> {
        let (t, v) = table::placement(s, &["sg", "wg", "qf"])?;
        Some((t, (Some(v[0]), v[1], v[2])))
    }
    fn alias(&self, item: &str) -> Option<Result<Alias, String>> {
        let (z, x) = item.split_once(" aliases ")?;
        let (z, x) = (z.trim(), x.trim());
        let name_ok = |n: &str| n.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if !name_ok(z) || !name_ok(x) || x.contains(char::is_whitespace) {
            return Some(Err(format!("expected `name aliases name`, found `{item}`")));
        }
        Some(Ok(Alias {
            name: z.to_string(),
            target: x.to_string(),
            same_reference: false,
        }))
    }
    fn instruction(&self, cx: &mut Cell) -> Option<Ins> {
        instruction(cx)
    }
}

/// The tags of an instruction's modifiers (`atom.acq.dv.sc0`); `None` for an unknown one.
fn modifier_tags(m: &str) -> Option<&'static [&'static str]> {
    Some(match m {
        "atom" => &["ATOM", "A"],
        "acq" => &["ACQ"],
        "rel" => &["REL"],
        "acq_rel" => &["ACQ", "REL"],
        "sg" => &["SG"],
        "wg" => &["WG"],
        "qf" => &["QF"],
        "dv" => &["DV"],
        "sc0" => &["SC0"],
        "sc1" => &["SC1"],
        "sc2" => &["SC2"],
        "sc3" => &["SC3"],
        "semsc0" => &["SEMSC0"],
        "semsc1" => &["SEMSC1"],
        "semsc2" => &["SEMSC2"],
        "semsc3" => &["SEMSC3"],
        "av" => &["AV"],
        "vis" => &["VIS"],
        "semav" => &["SEMAV"],
        "semvis" => &["SEMVIS"],
        "nonpriv" => &["NONPRIV"],
        _ => return None,
    })
}

fn rmw_op(m: &str) -> Option<AtomicOp> {
    Some(match m {
        "plus" | "add" => AtomicOp::Add,
        "sub" | "minus" => AtomicOp::Sub,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "max" => AtomicOp::Max,
        "min" => AtomicOp::Min,
        "exchange" | "xchg" => AtomicOp::Exchange,
        _ => return None,
    })
}

fn instruction(cx: &mut Cell) -> Option<Ins> {
    let s = cx.s;
    if let Some(label) = s.strip_suffix(':') {
        return Some(Ins::Label(label.trim().to_string()));
    }
    let (op, mods, args) = split_cell(s);
    if let Some(jump) = cx.jump(op, &args) {
        return jump;
    }
    let mut tags: Vec<String> = Vec::new();
    let mut extra: Vec<&str> = Vec::new();
    for m in &mods {
        match modifier_tags(m) {
            Some(ts) => {
                for t in ts {
                    if !tags.iter().any(|x| x == t) {
                        tags.push(t.to_string());
                    }
                }
            }
            None => extra.push(m),
        }
    }
    let implied_nonpriv = |tags: &mut Vec<String>| {
        // Atomics and availability/visibility operations are non-private (Vulkan spec).
        if tags
            .iter()
            .any(|t| matches!(t.as_str(), "ATOM" | "AV" | "VIS"))
            && !tags.iter().any(|t| t == "NONPRIV")
        {
            tags.push("NONPRIV".into());
        }
    };
    let bad_mods = |cx: &mut Cell, extra: &[&str]| {
        if let Some(m) = extra.first() {
            cx.err(format!("unknown modifier `.{m}` on `{op}`"));
            return true;
        }
        false
    };
    let kind = match op {
        "ld" => {
            if bad_mods(cx, &extra) || !cx.want(&args, 2, op, "ld r, x") {
                return None;
            }
            // An atomic load is a visibility operation (as Dartagnan reads it).
            if tags.iter().any(|t| t == "ATOM") && !tags.iter().any(|t| t == "VIS") {
                tags.push("VIS".into());
            }
            implied_nonpriv(&mut tags);
            let reg = cx.reg(args[0]);
            StmtKind::Load {
                reg,
                global: cx.global(args[1])?,
                index: None,
            }
        }
        "st" => {
            if bad_mods(cx, &extra) || !cx.want(&args, 2, op, "st x, v") {
                return None;
            }
            // An atomic store is an availability operation (as Dartagnan reads it).
            if tags.iter().any(|t| t == "ATOM") && !tags.iter().any(|t| t == "AV") {
                tags.push("AV".into());
            }
            implied_nonpriv(&mut tags);
            StmtKind::Store {
                global: cx.global(args[0])?,
                index: None,
                value: cx.value(args[1])?,
            }
        }
        "rmw" => {
            // The operation is the last modifier; without one the RMW exchanges.
            let (aop, rest) = match extra.split_last() {
                None => (AtomicOp::Exchange, &extra[..]),
                Some((&last, rest)) => match rmw_op(last) {
                    Some(op) => (op, rest),
                    None => {
                        cx.err(format!("unknown read-modify-write operation `.{last}`"));
                        return None;
                    }
                },
            };
            if bad_mods(cx, rest) || !cx.want(&args, 3, op, "rmw.op r, x, v") {
                return None;
            }
            if !tags.iter().any(|t| t == "ATOM") {
                tags.extend(["ATOM".to_string(), "A".to_string()]);
            }
            for t in ["AV", "VIS"] {
                if !tags.iter().any(|x| x == t) {
                    tags.push(t.into());
                }
            }
            implied_nonpriv(&mut tags);
            tags = crate::syntax::tags::split_rmw(tags);
            let reg = cx.reg(args[0]);
            StmtKind::Atomic {
                reg: Some(reg),
                op: aop,
                global: cx.global(args[1])?,
                index: None,
                args: vec![cx.value(args[2])?],
            }
        }
        "membar" => {
            if bad_mods(cx, &extra) || !cx.want(&args, 0, op, "membar.sem.scope") {
                return None;
            }
            StmtKind::Fence { id: None }
        }
        "cbar" => {
            if args.len() == 2 {
                if bad_mods(cx, &extra) {
                    return None;
                }
                let (name, id) = cx.barrier_id(&args, "cbar.sem.scope instance, id")?;
                tags.push("CBAR".into());
                tags.push(name);
                StmtKind::Fence { id: Some(id) }
            } else if args.len() > 2 {
                if bad_mods(cx, &extra) {
                    return None;
                }
                let scope = cx.quorum_barrier(&args, "cbar.sem.scope instance, id, quorum")?;
                StmtKind::Barrier(scope)
            } else {
                if bad_mods(cx, &extra) || !cx.want(&args, 1, op, "cbar.sem.scope id") {
                    return None;
                }
                tags.push("CBAR".into());
                tags.push(cbar_tag(args[0]));
                StmtKind::Fence { id: None }
            }
        }
        "avdevice" | "visdevice" => {
            if !cx.want(&args, 0, op, op) {
                return None;
            }
            tags.push(op.to_ascii_uppercase());
            StmtKind::Fence { id: None }
        }
        "mov" | "add" | "sub" | "and" | "or" | "xor" => cx.local(op, &args)?,
        _ => {
            cx.err(format!("unknown VULKAN instruction `{op}`"));
            return None;
        }
    };
    Some(Ins::Stmt(Stmt {
        kind,
        span: cx.sp,
        tags,
    }))
}
