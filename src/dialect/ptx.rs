//! Dartagnan's PTX litmus dialect, read unchanged.
//!
//! ```text
//! PTX MP
//! { x=0; y=0; z @ generic aliases x; s @ surface aliases x; }
//!  P0@cta 0,gpu 0         | P1@cta 1,gpu 0         ;
//!  st.weak x, 1           | ld.acquire.gpu r0, y   ;
//!  st.release.gpu y, 1    | ld.weak r1, x          ;
//! exists (P1:r0 == 1 /\ P1:r1 == 0)
//! ```
//!
//! The table is [`super::table`]'s. A PTX test names no warps: each thread runs in a subgroup
//! of its own, inside the workgroup of its CTA and the queue family of its GPU (so the
//! execution models, which differ only inside a subgroup, agree on every PTX test). An
//! instruction's order, scope and proxy become its tags as Dartagnan gives them
//! (docs/memory-models.md): `WEAK RLX ACQ REL ACQ_REL SC`, `CTA GPU SYS`, `GEN SUR TEX CON`,
//! `ALIAS`; an `atom`'s read half takes the acquire part of its order and its write half the
//! release part (`R:ACQ`, `W:REL`, the other half relaxed).

use super::table::{self, cbar_tag, split_cell, Alias, Cell, Dialect, Ins, Place};
use crate::diag::Diagnostics;
use crate::syntax::ast::{Stmt, StmtKind, Test};
use crate::vocab::AtomicOp;

/// Reads a PTX litmus file.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Test, Diagnostics> {
    table::parse(&Ptx, file, bytes)
}

struct Ptx;

impl Dialect for Ptx {
    fn name(&self) -> &'static str {
        "PTX"
    }
    fn placement_form(&self) -> &'static str {
        "@cta N, gpu N"
    }
    fn placement(&self, s: &str) -> Option<(u32, Place)> {
        let (t, v) = table::placement(s, &["cta", "gpu"])?;
        Some((t, (None, v[0], v[1])))
    }
    fn alias(&self, item: &str) -> Option<Result<Alias, String>> {
        // `y @ generic aliases x` (another reference), `s @ surface aliases x` (a proxy of x's
        // own reference, as Dartagnan's virtual memory gives it the same generic address).
        let (lhs, target) = item.split_once(" aliases ")?;
        let bad = || {
            Err(format!(
                "expected `name @ proxy aliases name`, found `{item}`"
            ))
        };
        let Some((name, proxy)) = lhs.split_once('@') else {
            return Some(bad());
        };
        let (name, proxy, target) = (name.trim(), proxy.trim(), target.trim());
        let ok = |n: &str| {
            n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && !n.contains(char::is_whitespace)
        };
        if !ok(name) || !ok(target) {
            return Some(bad());
        }
        let same_reference = match proxy {
            "generic" => false,
            "surface" | "texture" | "constant" => true,
            _ => return Some(bad()),
        };
        Some(Ok(Alias {
            name: name.to_string(),
            target: target.to_string(),
            same_reference,
        }))
    }
    fn instruction(&self, cx: &mut Cell) -> Option<Ins> {
        instruction(cx)
    }
}

fn order(m: &str) -> Option<&'static str> {
    Some(match m {
        "weak" => "WEAK",
        "relaxed" => "RLX",
        "acquire" => "ACQ",
        "release" => "REL",
        "acq_rel" => "ACQ_REL",
        "sc" => "SC",
        _ => return None,
    })
}

fn scope(m: &str) -> Option<&'static str> {
    Some(match m {
        "cta" => "CTA",
        "gpu" => "GPU",
        "sys" => "SYS",
        _ => return None,
    })
}

fn proxy(m: &str) -> Option<&'static str> {
    Some(match m {
        "generic" => "GEN",
        "surface" => "SUR",
        "texture" => "TEX",
        "constant" => "CON",
        _ => return None,
    })
}

fn rmw_op(m: &str) -> Option<AtomicOp> {
    Some(match m {
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "min" => AtomicOp::Min,
        "max" => AtomicOp::Max,
        "exch" => AtomicOp::Exchange,
        // PTX's `atom.cas` stores `(*a == b) ? c : *a`: a failing compare writes back.
        "cas" => AtomicOp::CompSwapWriteBack,
        _ => return None,
    })
}

/// `.order[.scope]` of an access: the tags, or an error naming what is wrong. A weak access
/// takes no scope; the others need one.
fn order_scope(cx: &mut Cell, op: &str, mods: &[&str], orders: &[&str]) -> Option<Vec<String>> {
    // `ld.volatile`/`st.volatile` "has the same memory synchronization semantics as
    // ld.relaxed.sys" (PTX ISA, "ld"; seed 003, section 3.6): read as that, with no scope of
    // its own.
    if mods.first() == Some(&"volatile") && (op == "ld" || op == "st") {
        if let Some(s) = mods.get(1) {
            cx.err(format!(
                "a volatile `{op}` takes no scope (it is relaxed at .sys), found `.{s}`"
            ));
            return None;
        }
        return Some(vec!["RLX".into(), "SYS".into(), "A".into()]);
    }
    let (o, rest) = match mods.split_first() {
        Some((o, rest)) if orders.contains(o) => (order(o)?, rest),
        _ => {
            cx.err(format!(
                "`{op}` needs an order: one of {}",
                orders
                    .iter()
                    .map(|o| format!("`.{o}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            return None;
        }
    };
    let mut tags = vec![o.to_string()];
    match (o, rest) {
        ("WEAK", []) => {}
        ("WEAK", [s, ..]) => {
            cx.err(format!("a weak `{op}` takes no scope, found `.{s}`"));
            return None;
        }
        // A strong (scoped) access is atomic (`A`), as an access with an order is in the
        // litmus language.
        (_, [s]) if scope(s).is_some() => tags.extend([scope(s)?.to_string(), "A".into()]),
        (_, [s, ..]) => {
            cx.err(format!(
                "expected one scope (`.cta`, `.gpu` or `.sys`) after the order of `{op}`, found `.{s}`"
            ));
            return None;
        }
        (_, []) => {
            cx.err(format!(
                "a non-weak `{op}` needs a scope: `.cta`, `.gpu` or `.sys`"
            ));
            return None;
        }
    }
    Some(tags)
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
    let (kind, tags) = match op {
        // `ld r, v` without an order is a local move.
        "ld" if mods.is_empty() => (cx.local("mov", &args)?, Vec::new()),
        "add" | "sub" | "mul" | "and" | "or" | "xor" => (cx.local(op, &args)?, Vec::new()),
        "ld" | "tld" | "suld" | "cold" => {
            let mut tags = order_scope(cx, op, &mods, &["weak", "relaxed", "acquire"])?;
            tags.push(proxy_of(op).into());
            if !cx.want(&args, 2, op, "ld.order.scope r, x") {
                return None;
            }
            let reg = cx.reg(args[0]);
            let kind = StmtKind::Load {
                reg,
                global: cx.global(args[1])?,
                index: None,
            };
            (kind, tags)
        }
        "st" | "sust" => {
            let mut tags = order_scope(cx, op, &mods, &["weak", "relaxed", "release"])?;
            tags.push(proxy_of(op).into());
            if !cx.want(&args, 2, op, "st.order.scope x, v") {
                return None;
            }
            let kind = StmtKind::Store {
                global: cx.global(args[0])?,
                index: None,
                value: cx.value(args[1])?,
            };
            (kind, tags)
        }
        "atom" | "suatom" | "red" | "sured" => {
            let orders = ["relaxed", "acquire", "release", "acq_rel"];
            let (Some(o), Some(sc), Some(aop)) = (
                mods.first()
                    .filter(|o| orders.contains(o))
                    .and_then(|o| order(o)),
                mods.get(1).and_then(|s| scope(s)),
                mods.get(2).and_then(|m| rmw_op(m)),
            ) else {
                cx.err(format!(
                    "expected `{op}.ORDER.SCOPE.OP` (order relaxed, acquire, release or acq_rel; scope cta, gpu or sys; op add, sub, and, or, xor, min, max, exch or cas), found `{}`",
                    s.split_whitespace().next().unwrap_or(op)
                ));
                return None;
            };
            if mods.len() > 3 {
                cx.err(format!("unknown modifier `.{}` on `{op}`", mods[3]));
                return None;
            }
            let reduction = op.ends_with("red");
            if reduction && aop == AtomicOp::CompSwapWriteBack {
                cx.err("a reduction has no `.cas` form");
                return None;
            }
            let n = usize::from(!reduction)
                + if aop == AtomicOp::CompSwapWriteBack {
                    3
                } else {
                    2
                };
            let form = match (reduction, aop) {
                (true, _) => "red.order.scope.op x, v",
                (false, AtomicOp::CompSwapWriteBack) => "atom.order.scope.cas r, x, expected, new",
                _ => "atom.order.scope.op r, x, v",
            };
            if !cx.want(&args, n, op, form) {
                return None;
            }
            // Dartagnan's halves: the read acquires (acquire, acq_rel), the write releases
            // (release, acq_rel); otherwise each half is relaxed, so that both stay strong.
            let read = if matches!(o, "ACQ" | "ACQ_REL") {
                "ACQ"
            } else {
                "RLX"
            };
            let write = if matches!(o, "REL" | "ACQ_REL") {
                "REL"
            } else {
                "RLX"
            };
            // `A`: an atomic operation, as every read-modify-write of the litmus language is.
            let tags = vec![
                "A".to_string(),
                format!("R:{read}"),
                format!("W:{write}"),
                sc.to_string(),
                if op.starts_with("su") { "SUR" } else { "GEN" }.to_string(),
            ];
            let mut rest = &args[..];
            let reg = if reduction {
                None
            } else {
                let r = cx.reg(rest[0]);
                rest = &rest[1..];
                Some(r)
            };
            let global = cx.global(rest[0])?;
            let mut values = Vec::new();
            for a in &rest[1..] {
                values.push(cx.value(a)?);
            }
            let kind = StmtKind::Atomic {
                reg,
                op: aop,
                global,
                index: None,
                args: values,
            };
            (kind, tags)
        }
        "fence" => {
            let tags: Vec<String> = match mods[..] {
                ["sc" | "acq_rel", s] if scope(s).is_some() => vec![
                    order(mods[0])?.to_string(),
                    scope(s)?.to_string(),
                    "GEN".into(),
                ],
                ["proxy", "alias"] => vec!["ALIAS".into()],
                ["proxy", p] if proxy(p).is_some() => vec![proxy(p)?.to_string()],
                _ => {
                    cx.err(format!(
                        "expected `fence.sc.SCOPE`, `fence.acq_rel.SCOPE`, `fence.proxy.PROXY` or `fence.proxy.alias`, found `{s}`"
                    ));
                    return None;
                }
            };
            if !cx.want(&args, 0, op, "fence.sc.gpu") {
                return None;
            }
            (StmtKind::Fence { id: None }, tags)
        }
        "bar" => {
            // `bar.cta.arrive` counts towards the barrier without waiting: as in Dartagnan,
            // its barrier-synchronisation edges (`syncbar`) only leave it (`ARRIVE`).
            let arrive = match mods.as_slice() {
                ["cta", "sync"] => false,
                ["cta", "arrive"] => true,
                _ => {
                    cx.err(format!(
                        "expected `bar.cta.sync ID` or `bar.cta.arrive ID`, found `{s}`"
                    ));
                    return None;
                }
            };
            let mut tags: Vec<String> = vec!["CBAR".into(), "CTA".into()];
            if arrive {
                tags.push("ARRIVE".into());
            }
            if args.len() == 2 {
                let (name, id) = cx.barrier_id(&args, "bar.cta.sync instance, id")?;
                tags.push(name);
                (StmtKind::Fence { id: Some(id) }, tags)
            } else if args.len() > 2 {
                if arrive {
                    cx.err("`bar.cta.arrive` with a quorum is not supported".to_string());
                    return None;
                }
                let scope = cx.quorum_barrier(&args, "bar.cta.sync instance, id, quorum")?;
                return Some(Ins::Stmt(Stmt {
                    kind: StmtKind::Barrier(scope),
                    span: cx.sp,
                    tags: vec!["CTA".into()],
                }));
            } else {
                if !cx.want(&args, 1, op, "bar.cta.sync ID") {
                    return None;
                }
                tags.push(cbar_tag(args[0]));
                (StmtKind::Fence { id: None }, tags)
            }
        }
        _ => {
            cx.err(format!("unknown PTX instruction `{op}`"));
            return None;
        }
    };
    Some(Ins::Stmt(Stmt {
        kind,
        span: cx.sp,
        tags,
    }))
}

/// The proxy an access instruction goes through.
fn proxy_of(op: &str) -> &'static str {
    match op {
        "tld" => "TEX",
        "suld" | "sust" => "SUR",
        "cold" => "CON",
        _ => "GEN",
    }
}
