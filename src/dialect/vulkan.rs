//! Dartagnan's VULKAN litmus dialect, read unchanged.
//!
//! ```text
//! VULKAN mp                                   (header: `Vulkan` or `VULKAN`, a name)
//! "a description"                              (any quoted lines)
//! { x=0; y=0; P1:r0=0; }                       (initial values)
//!  P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ; (threads and where they run)
//!  st.atom.rel.dv.sc0 x, 1 | ld.atom.acq.dv.sc0 r0, x ;
//! exists (P1:r0 == 1 /\ x == 1)
//! ```
//!
//! Each thread becomes one arm of `if (tid == T) ...` in an SPMD kernel, placed so that its
//! subgroup, workgroup and queue family are the ones written (idle lanes fill the rest). An
//! instruction's modifiers become its memory tags (`atom` -> `ATOM`, `acq` -> `ACQ`,
//! `sc0` -> `SC0`, `dv` -> `DV`, ...: docs/memory-models.md). Forward branches to a later
//! label become `if`s; a backward branch (a loop) is refused with its location.

use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::syntax::ast::{
    Condition, Expr, ExprKind, Global, Operand, Prop, Quantifier, Stmt, StmtKind, Test,
};
use crate::vocab::{AtomicOp, BinOp, Builtin};
use std::collections::BTreeMap;

struct Reader<'a> {
    file: &'a str,
    text: &'a str,
    diags: Vec<Diagnostic>,
}

/// A word of the file with its position.
#[derive(Clone, Debug)]
struct Word<'a> {
    s: &'a str,
    span: Span,
}

impl<'a> Reader<'a> {
    fn err(&mut self, span: Span, msg: impl Into<String>) {
        self.diags
            .push(Diagnostic::new(self.file, self.text, span, msg));
    }
}

fn span_at(text: &str, start: usize, len: usize) -> Span {
    let before = &text[..start];
    let line = before.matches('\n').count() as u32 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    Span {
        start: start as u32,
        end: (start + len) as u32,
        line,
        col,
    }
}

/// One parsed instruction of a thread.
#[derive(Clone, Debug)]
enum Ins {
    Stmt(Stmt),
    Label(String),
    /// `bcc a, b, L` (op, operands) or `goto L` (None).
    Jump(Option<(BinOp, Expr, Expr)>, String, Span),
}

/// Reads a VULKAN litmus file.
pub fn parse(file: &str, bytes: &[u8]) -> Result<Test, Diagnostics> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return Err(Diagnostics(vec![Diagnostic::bare(
                file,
                0,
                0,
                format!("not UTF-8 text: {e}"),
            )]))
        }
    };
    let mut r = Reader {
        file,
        text,
        diags: Vec::new(),
    };
    match read(&mut r) {
        Some(t) if r.diags.is_empty() => Ok(t),
        _ => {
            if r.diags.is_empty() {
                r.err(span_at(text, 0, 1), "not a VULKAN litmus test");
            }
            Err(Diagnostics(r.diags))
        }
    }
}

fn read(r: &mut Reader) -> Option<Test> {
    let text = r.text;
    // Header.
    let mut pos = 0;
    let header_end = text.find('\n').unwrap_or(text.len());
    let header = &text[..header_end];
    let name = header
        .split_whitespace()
        .nth(1)
        .unwrap_or("test")
        .to_string();
    pos = pos.max(header_end);
    // Descriptions, up to `{`.
    let Some(open) = text[pos..].find('{').map(|i| i + pos) else {
        r.err(
            span_at(text, pos, 1),
            "expected `{` opening the initial values",
        );
        return None;
    };
    let description = text[pos..open]
        .lines()
        .map(|l| l.trim().trim_matches('"'))
        .find(|l| !l.is_empty())
        .map(str::to_string);
    let Some(close) = text[open..].find('}').map(|i| i + open) else {
        r.err(span_at(text, open, 1), "this `{` is never closed");
        return None;
    };
    // Initial values: `x=0;`, `P1:r0=0;`.
    let mut globals: BTreeMap<String, u32> = BTreeMap::new();
    let mut reg_init: Vec<(u32, String, u32, Span)> = Vec::new();
    // `z aliases x`: z names x's memory by another reference (same `loc`, not same `vloc`).
    let mut aliases: BTreeMap<String, String> = BTreeMap::new();
    let mut off = open + 1;
    for item in text[open + 1..close].split(';') {
        let start = off + (item.len() - item.trim_start().len());
        off += item.len() + 1;
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let sp = span_at(text, start, item.len());
        if let Some((z, x)) = item.split_once(" aliases ") {
            let (z, x) = (z.trim(), x.trim());
            let name_ok = |n: &str| n.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
            if !name_ok(z) || !name_ok(x) || x.contains(char::is_whitespace) {
                r.err(sp, format!("expected `name aliases name`, found `{item}`"));
            } else {
                aliases.insert(z.to_string(), x.to_string());
            }
            continue;
        }
        let Some((lhs, rhs)) = item.split_once('=') else {
            r.err(
                sp,
                format!("expected `name=value` in the initial values, found `{item}`"),
            );
            continue;
        };
        let Ok(v) = parse_int(rhs.trim()) else {
            r.err(
                sp,
                format!("expected a number after `=`, found `{}`", rhs.trim()),
            );
            continue;
        };
        let lhs = lhs.trim();
        match lhs.split_once(':') {
            Some((p, reg)) => match thread_index(p) {
                Some(t) => reg_init.push((t, reg.trim().to_string(), v, sp)),
                None => r.err(sp, format!("expected `P<n>:register`, found `{lhs}`")),
            },
            None => {
                globals.insert(lhs.to_string(), v);
            }
        }
    }
    // The thread table: rows of cells split by `|`, each row ending with `;`, up to the
    // condition's keyword.
    let mut body_start = close + 1;
    // A second block: system-synchronizes-with pairs of threads, `ssw 0 1;`.
    let mut ssw: Vec<(u32, u32)> = Vec::new();
    if text[body_start..].trim_start().starts_with('{') {
        let open = body_start + (text[body_start..].len() - text[body_start..].trim_start().len());
        let Some(close) = text[open..].find('}').map(|i| i + open) else {
            r.err(span_at(text, open, 1), "this `{` is never closed");
            return None;
        };
        let mut off = open + 1;
        for item in text[open + 1..close].split(';') {
            let start = off + (item.len() - item.trim_start().len());
            off += item.len() + 1;
            let words: Vec<&str> = item.split_whitespace().collect();
            match words[..] {
                [] => {}
                ["ssw", a, b] => match (a.parse::<u32>(), b.parse::<u32>()) {
                    (Ok(a), Ok(b)) => ssw.push((a, b)),
                    _ => r.err(
                        span_at(text, start, item.trim().len()),
                        format!("expected `ssw THREAD THREAD`, found `{}`", item.trim()),
                    ),
                },
                _ => r.err(
                    span_at(text, start, item.trim().len().max(1)),
                    format!("expected `ssw THREAD THREAD`, found `{}`", item.trim()),
                ),
            }
        }
        body_start = close + 1;
    }
    let cond_at = ["exists", "~exists", "forall", "filter"]
        .iter()
        .filter_map(|k| find_word(&text[body_start..], k).map(|i| i + body_start))
        .min();
    let Some(cond_at) = cond_at else {
        r.err(
            span_at(text, body_start.min(text.len().saturating_sub(1)), 1),
            "expected a final condition (`exists`, `~exists` or `forall`)",
        );
        return None;
    };
    let mut rows: Vec<Vec<Word>> = Vec::new();
    let mut off = body_start;
    for row in text[body_start..cond_at].split(';') {
        let row_start = off;
        off += row.len() + 1;
        if row.trim().is_empty() {
            continue;
        }
        let mut cells = Vec::new();
        let mut c_off = row_start;
        for cell in row.split('|') {
            let lead = cell.len() - cell.trim_start().len();
            cells.push(Word {
                s: cell.trim(),
                span: span_at(text, c_off + lead, cell.trim().len().max(1)),
            });
            c_off += cell.len() + 1;
        }
        rows.push(cells);
    }
    if rows.is_empty() {
        r.err(
            span_at(text, body_start, 1),
            "expected the thread table (`P0@sg 0, wg 0, qf 0 | ...;`)",
        );
        return None;
    }
    // Thread placements.
    let heads = rows.remove(0);
    let mut places = Vec::new();
    for (k, h) in heads.iter().enumerate() {
        match placement(h.s) {
            Some((t, p)) if t as usize == k => places.push(p),
            _ => {
                r.err(
                    h.span,
                    format!("expected `P{k}@sg N, wg N, qf N`, found `{}`", h.s),
                );
                return None;
            }
        }
    }
    let n = places.len();
    // Instructions per thread.
    let mut code: Vec<Vec<Ins>> = vec![Vec::new(); n];
    let mut registers: Vec<Vec<String>> = vec![Vec::new(); n];
    for row in &rows {
        if row.len() > n {
            r.err(
                row[n].span,
                format!("this row has more than the {n} columns of the thread table"),
            );
            continue;
        }
        for (t, cell) in row.iter().enumerate() {
            if cell.s.is_empty() {
                continue;
            }
            if let Some(ins) = instruction(r, cell, &globals, &mut registers[t]) {
                code[t].push(ins);
            }
        }
    }
    // Accesses through an alias go to the aliased location, tagged with the name they used
    // (`@z`: memory::base makes `vloc` tell references apart).
    for ins in code.iter_mut() {
        for i in ins.iter_mut() {
            if let Ins::Stmt(st) = i {
                if let StmtKind::Load { global, .. }
                | StmtKind::Store { global, .. }
                | StmtKind::Atomic { global, .. } = &mut st.kind
                {
                    if let Some(x) = aliases.get(global.as_str()) {
                        st.tags.push(format!("@{global}"));
                        *global = x.clone();
                    }
                }
            }
        }
    }
    if let Some(&(a, b)) = ssw
        .iter()
        .find(|(a, b)| *a as usize >= n || *b as usize >= n)
    {
        r.err(
            span_at(text, close, 1),
            format!("`ssw {a} {b}` names a thread the table does not have ({n} threads)"),
        );
    }
    // Locations used without an initial value start at 0.
    for t in &code {
        for ins in t {
            if let Ins::Stmt(st) = ins {
                if let StmtKind::Load { global, .. }
                | StmtKind::Store { global, .. }
                | StmtKind::Atomic { global, .. } = &st.kind
                {
                    globals.entry(global.clone()).or_insert(0);
                }
            }
        }
    }
    // The condition.
    let (quantifier, prop) = condition(r, cond_at, &globals, &places)?;
    // Layout: subgroups as wide as the most threads sharing one, and so on up.
    let key = |p: &(u32, u32, u32)| *p;
    let mut per_sg: BTreeMap<(u32, u32, u32), u32> = BTreeMap::new();
    let mut lane_of = Vec::new();
    for p in &places {
        let c = per_sg.entry(key(&(p.2, p.1, p.0))).or_insert(0);
        lane_of.push(*c);
        *c += 1;
    }
    let sg_size = per_sg.values().copied().max().unwrap_or(1);
    let sg_per_wg = places.iter().map(|p| p.0 + 1).max().unwrap_or(1);
    let wg_per_qf = places.iter().map(|p| p.1 + 1).max().unwrap_or(1);
    let qfs = places.iter().map(|p| p.2 + 1).max().unwrap_or(1);
    let workgroup = sg_size * sg_per_wg;
    let queue_family = workgroup * wg_per_qf;
    let threads = queue_family * qfs;
    if threads > crate::syntax::limits::MAX_THREADS || sg_size > crate::syntax::limits::MAX_SUBGROUP
    {
        r.err(
            heads[0].span,
            "the placement needs more invocations than tangle runs",
        );
        return None;
    }
    let tid_of: Vec<u32> = places
        .iter()
        .zip(&lane_of)
        .map(|(p, l)| ((p.2 * wg_per_qf + p.1) * sg_per_wg + p.0) * sg_size + l)
        .collect();
    // `ssw S T` tags every instruction of thread S with T's invocation id (`ssw:ID`).
    for &(a, b) in ssw
        .iter()
        .filter(|(a, b)| a != b && (*a as usize) < n && (*b as usize) < n)
    {
        for i in code[a as usize].iter_mut() {
            if let Ins::Stmt(st) = i {
                st.tags.push(format!("ssw:{}", tid_of[b as usize]));
            }
        }
    }
    // The kernel: `if (tid == T0) {...} else if (tid == T1) {...}`; register initial values
    // are assignments at the top of their thread's arm.
    let mut chain: Vec<Stmt> = Vec::new();
    for t in (0..n).rev() {
        let mut body = Vec::new();
        for (rt, reg, v, sp) in &reg_init {
            if *rt as usize == t {
                body.push(stmt(
                    StmtKind::Assign {
                        reg: reg.clone(),
                        value: lit(*v, *sp),
                    },
                    *sp,
                ));
            }
        }
        body.extend(structure(r, &code[t])?);
        let sp = heads[t].span;
        let cond = Expr {
            kind: ExprKind::Binary(
                BinOp::Eq,
                Box::new(Expr {
                    kind: ExprKind::Builtin(Builtin::Tid),
                    span: sp,
                }),
                Box::new(lit(tid_of[t], sp)),
            ),
            span: sp,
        };
        chain = vec![stmt(
            StmtKind::If {
                cond,
                then_body: body,
                else_body: chain,
            },
            sp,
        )];
    }
    // Registers named in the condition must exist: assign 0 where a thread never does.
    let prop = rename_threads(prop, &tid_of);
    let globals = globals
        .into_iter()
        .map(|(name, v)| Global {
            name,
            len: None,
            init: vec![v],
            span: Span::default(),
        })
        .collect();
    Some(Test {
        file: r.file.to_string(),
        source: text.to_string(),
        name,
        description,
        threads,
        subgroup: sg_size,
        workgroup,
        globals,
        kernel: chain,
        condition: Condition {
            quantifier,
            prop,
            span: span_at(text, cond_at, 1),
        },
        expect: Vec::new(),
        observe: Vec::new(),
        condition_label: None,
        queue_family,
    })
}

fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt {
        kind,
        span,
        tags: Vec::new(),
    }
}

fn lit(v: u32, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(v),
        span,
    }
}

fn parse_int(s: &str) -> Result<u32, ()> {
    if let Some(n) = s.strip_prefix('-') {
        return n.parse::<u32>().map(|v| v.wrapping_neg()).map_err(|_| ());
    }
    s.parse::<u32>().map_err(|_| ())
}

fn thread_index(p: &str) -> Option<u32> {
    p.trim().strip_prefix('P')?.parse().ok()
}

fn find_word(hay: &str, w: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].find(w) {
        let at = from + i;
        let before_ok =
            at == 0 || !hay[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '~');
        let after = hay[at + w.len()..].chars().next();
        if before_ok && !after.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(at);
        }
        from = at + w.len();
    }
    None
}

/// `P0@sg 0, wg 0, qf 0` -> (0, (sg, wg, qf)).
fn placement(s: &str) -> Option<(u32, (u32, u32, u32))> {
    let (p, rest) = s.split_once('@')?;
    let t = thread_index(p)?;
    let (mut sg, mut wg, mut qf) = (None, None, None);
    for part in rest.split(',') {
        let mut it = part.split_whitespace();
        let (k, v) = (it.next()?, it.next()?.parse::<u32>().ok()?);
        match k {
            "sg" => sg = Some(v),
            "wg" => wg = Some(v),
            "qf" => qf = Some(v),
            _ => return None,
        }
    }
    Some((t, (sg?, wg?, qf?)))
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

fn instruction(
    r: &mut Reader,
    cell: &Word,
    globals: &BTreeMap<String, u32>,
    registers: &mut Vec<String>,
) -> Option<Ins> {
    let s = cell.s;
    let sp = cell.span;
    if let Some(label) = s.strip_suffix(':') {
        return Some(Ins::Label(label.trim().to_string()));
    }
    let (head, args) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
    let args: Vec<&str> = args
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    let mut mods = head.split('.');
    let op = mods.next().unwrap_or("");
    let mods: Vec<&str> = mods.collect();
    let value = |r: &mut Reader, a: &str, registers: &mut Vec<String>| -> Option<Expr> {
        if let Ok(v) = parse_int(a) {
            return Some(lit(v, sp));
        }
        if a.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) && !globals.contains_key(a) {
            if !registers.iter().any(|x| x == a) {
                registers.push(a.to_string());
            }
            return Some(Expr {
                kind: ExprKind::Reg(a.to_string()),
                span: sp,
            });
        }
        r.err(sp, format!("expected a number or a register, found `{a}`"));
        None
    };
    let global = |r: &mut Reader, a: &str| -> Option<String> {
        if a.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            Some(a.to_string())
        } else {
            r.err(sp, format!("expected a location name, found `{a}`"));
            None
        }
    };
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
    let want = |r: &mut Reader, n: usize, form: &str| {
        if args.len() != n {
            r.err(sp, format!("`{op}` takes {n} operand(s): `{form}`"));
            false
        } else {
            true
        }
    };
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
    let bad_mods = |r: &mut Reader, extra: &[&str]| {
        if let Some(m) = extra.first() {
            r.err(sp, format!("unknown modifier `.{m}` on `{op}`"));
            return true;
        }
        false
    };
    let kind = match op {
        "ld" => {
            if bad_mods(r, &extra) || !want(r, 2, "ld r, x") {
                return None;
            }
            // An atomic load is a visibility operation (as Dartagnan reads it).
            if tags.iter().any(|t| t == "ATOM") && !tags.iter().any(|t| t == "VIS") {
                tags.push("VIS".into());
            }
            implied_nonpriv(&mut tags);
            let reg = args[0].to_string();
            if !registers.contains(&reg) {
                registers.push(reg.clone());
            }
            StmtKind::Load {
                reg,
                global: global(r, args[1])?,
                index: None,
            }
        }
        "st" => {
            if bad_mods(r, &extra) || !want(r, 2, "st x, v") {
                return None;
            }
            // An atomic store is an availability operation (as Dartagnan reads it).
            if tags.iter().any(|t| t == "ATOM") && !tags.iter().any(|t| t == "AV") {
                tags.push("AV".into());
            }
            implied_nonpriv(&mut tags);
            StmtKind::Store {
                global: global(r, args[0])?,
                index: None,
                value: value(r, args[1], registers)?,
            }
        }
        "rmw" => {
            // The operation is the last modifier; without one the RMW exchanges.
            let (aop, rest) = match extra.split_last() {
                None => (AtomicOp::Exchange, &extra[..]),
                Some((&last, rest)) => match rmw_op(last) {
                    Some(op) => (op, rest),
                    None => {
                        r.err(sp, format!("unknown read-modify-write operation `.{last}`"));
                        return None;
                    }
                },
            };
            if bad_mods(r, rest) || !want(r, 3, "rmw.op r, x, v") {
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
            tags = split_rmw_tags(tags);
            let reg = args[0].to_string();
            if !registers.contains(&reg) {
                registers.push(reg.clone());
            }
            StmtKind::Atomic {
                reg: Some(reg),
                op: aop,
                global: global(r, args[1])?,
                index: None,
                args: vec![value(r, args[2], registers)?],
            }
        }
        "membar" => {
            if bad_mods(r, &extra) || !want(r, 0, "membar.sem.scope") {
                return None;
            }
            StmtKind::Fence
        }
        "cbar" => {
            if args.len() > 1 {
                r.err(
                    sp,
                    "barriers with a quorum (`cbar id, n, m`) are not supported yet",
                );
                return None;
            }
            if bad_mods(r, &extra) || !want(r, 1, "cbar.sem.scope id") {
                return None;
            }
            tags.push("CBAR".into());
            tags.push(format!("#cbar{}", args[0]));
            StmtKind::Fence
        }
        "avdevice" | "visdevice" => {
            if !want(r, 0, op) {
                return None;
            }
            tags.push(op.to_ascii_uppercase());
            StmtKind::Fence
        }
        "goto" => {
            if !want(r, 1, "goto L") {
                return None;
            }
            return Some(Ins::Jump(None, args[0].to_string(), sp));
        }
        "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => {
            if !want(r, 3, "beq a, b, L") {
                return None;
            }
            let cmp = match op {
                "beq" => BinOp::Eq,
                "bne" => BinOp::Ne,
                "blt" => BinOp::Lt,
                "ble" => BinOp::Le,
                "bgt" => BinOp::Gt,
                _ => BinOp::Ge,
            };
            let a = value(r, args[0], registers)?;
            let b = value(r, args[1], registers)?;
            return Some(Ins::Jump(Some((cmp, a, b)), args[2].to_string(), sp));
        }
        "mov" | "add" | "sub" | "and" | "or" | "xor" => {
            let n = if op == "mov" { 2 } else { 3 };
            if !want(r, n, "op r, a[, b]") {
                return None;
            }
            let reg = args[0].to_string();
            if !registers.contains(&reg) {
                registers.push(reg.clone());
            }
            let a = value(r, args[1], registers)?;
            let v = if op == "mov" {
                a
            } else {
                let b = value(r, args[2], registers)?;
                let bop = match op {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "and" => BinOp::BitAnd,
                    "or" => BinOp::BitOr,
                    _ => BinOp::BitXor,
                };
                Expr {
                    kind: ExprKind::Binary(bop, Box::new(a), Box::new(b)),
                    span: sp,
                }
            };
            StmtKind::Assign { reg, value: v }
        }
        _ => {
            r.err(sp, format!("unknown VULKAN instruction `{op}`"));
            return None;
        }
    };
    Some(Ins::Stmt(Stmt {
        kind,
        span: sp,
        tags,
    }))
}

/// Turns a thread's instructions with forward jumps into structured statements: a jump to a
/// later label skips the instructions up to it (`if (!cond) { ... }`). Jumps must nest.
fn structure(r: &mut Reader, code: &[Ins]) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        match &code[i] {
            Ins::Stmt(s) => out.push(s.clone()),
            Ins::Label(_) => {}
            Ins::Jump(cond, label, sp) => {
                let Some(end) = code[i + 1..]
                    .iter()
                    .position(|c| matches!(c, Ins::Label(l) if l == label))
                    .map(|k| k + i + 1)
                else {
                    r.err(
                        *sp,
                        format!("a jump to `{label}` that is not forward to a later label of the same region (a loop, or jumps that do not nest) is not supported in VULKAN tests yet"),
                    );
                    return None;
                };
                let inner = structure(r, &code[i + 1..end])?;
                let skip = match cond {
                    None => lit(1, *sp),
                    Some((op, a, b)) => Expr {
                        kind: ExprKind::Binary(*op, Box::new(a.clone()), Box::new(b.clone())),
                        span: *sp,
                    },
                };
                let run = Expr {
                    kind: ExprKind::Unary(crate::vocab::UnOp::Not, Box::new(skip)),
                    span: *sp,
                };
                out.push(stmt(
                    StmtKind::If {
                        cond: run,
                        then_body: inner,
                        else_body: Vec::new(),
                    },
                    *sp,
                ));
                i = end;
                continue;
            }
        }
        i += 1;
    }
    Some(out)
}

/// The final condition: `exists (P)`, `~exists (P)`, `forall (P)` with `/\`, `\/`, `~`.
fn condition(
    r: &mut Reader,
    at: usize,
    globals: &BTreeMap<String, u32>,
    places: &[(u32, u32, u32)],
) -> Option<(Quantifier, Prop)> {
    let text = r.text;
    let rest = &text[at..];
    let (q, skip) = if rest.starts_with("~exists") {
        (Quantifier::NotExists, 7)
    } else if rest.starts_with("exists") {
        (Quantifier::Exists, 6)
    } else if rest.starts_with("forall") {
        (Quantifier::Forall, 6)
    } else {
        r.err(
            span_at(text, at, 6),
            "`filter` conditions are not supported yet",
        );
        return None;
    };
    let mut toks: Vec<(String, usize)> = Vec::new();
    let b = rest.as_bytes();
    let mut i = skip;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        // herd writes equality `=`, Dartagnan's tests mostly `==`: both are read.
        for op in ["/\\", "\\/", "==", "!=", "=", "(", ")", "~", ":", "[", "]"] {
            if rest[i..].starts_with(op) {
                toks.push((op.to_string(), at + i));
                i += op.len();
                break;
            }
        }
        if toks.last().is_some_and(|t| t.1 == at + i - t.0.len()) && !c.is_alphanumeric() {
            continue;
        }
        let start = i;
        while i < b.len() && ((b[i] as char).is_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
            i += 1;
        }
        if i == start {
            r.err(
                span_at(text, at + i, 1),
                format!("unexpected `{c}` in the condition"),
            );
            return None;
        }
        toks.push((rest[start..i].to_string(), at + start));
    }
    let mut p = CondParser {
        toks,
        pos: 0,
        globals,
        n: places.len() as u32,
        file_text: text,
        errs: Vec::new(),
    };
    let prop = p.or();
    if p.pos < p.toks.len() {
        let (t, o) = p.toks[p.pos].clone();
        p.errs.push((
            span_at(text, o, t.len()),
            format!("unexpected `{t}` after the condition"),
        ));
    }
    for (sp, m) in std::mem::take(&mut p.errs) {
        r.err(sp, m);
    }
    Some((q, prop?))
}

struct CondParser<'a> {
    toks: Vec<(String, usize)>,
    pos: usize,
    globals: &'a BTreeMap<String, u32>,
    n: u32,
    file_text: &'a str,
    errs: Vec<(Span, String)>,
}

impl CondParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(|t| t.0.as_str())
    }
    fn fail(&mut self, what: &str) -> Option<Prop> {
        let (t, o) = self
            .toks
            .get(self.pos)
            .cloned()
            .unwrap_or(("end".into(), self.file_text.len().saturating_sub(1)));
        self.errs.push((
            span_at(self.file_text, o, t.len().max(1)),
            format!("expected {what}, found `{t}`"),
        ));
        None
    }
    fn or(&mut self) -> Option<Prop> {
        let mut l = self.and()?;
        while self.peek() == Some("\\/") {
            self.pos += 1;
            l = Prop::Or(Box::new(l), Box::new(self.and()?));
        }
        Some(l)
    }
    fn and(&mut self) -> Option<Prop> {
        let mut l = self.not()?;
        while self.peek() == Some("/\\") {
            self.pos += 1;
            l = Prop::And(Box::new(l), Box::new(self.not()?));
        }
        Some(l)
    }
    fn not(&mut self) -> Option<Prop> {
        match self.peek() {
            Some("~") => {
                self.pos += 1;
                Some(Prop::Not(Box::new(self.not()?)))
            }
            Some("(") => {
                self.pos += 1;
                let p = self.or()?;
                if self.peek() != Some(")") {
                    return self.fail("`)`");
                }
                self.pos += 1;
                Some(p)
            }
            Some("true") => {
                self.pos += 1;
                Some(Prop::True)
            }
            Some("false") => {
                self.pos += 1;
                Some(Prop::False)
            }
            _ => {
                let a = self.operand()?;
                let op = match self.peek() {
                    Some("==" | "=") => BinOp::Eq,
                    Some("!=") => BinOp::Ne,
                    _ => return self.fail("`==` or `!=`").and(None),
                };
                self.pos += 1;
                let b = self.operand()?;
                Some(Prop::Cmp(op, a, b))
            }
        }
    }
    fn operand(&mut self) -> Option<Operand> {
        let t = self.peek()?.to_string();
        if let Ok(v) = parse_int(&t) {
            self.pos += 1;
            return Some(Operand::Lit(v));
        }
        if let Some(th) = thread_index(&t) {
            if self.toks.get(self.pos + 1).map(|x| x.0.as_str()) == Some(":") && th < self.n {
                let reg = self.toks.get(self.pos + 2).map(|x| x.0.clone());
                self.pos += 3;
                return reg.map(|reg| Operand::Reg { thread: th, reg });
            }
        }
        if self.globals.contains_key(&t) {
            self.pos += 1;
            return Some(Operand::Mem {
                global: t,
                index: 0,
            });
        }
        self.fail("`P<n>:register`, a location or a number")
            .and(None)
    }
}

/// The condition names threads by their column (`P1`); the kernel by their invocation id.
fn rename_threads(p: Prop, tid_of: &[u32]) -> Prop {
    let op = |o: Operand| match o {
        Operand::Reg { thread, reg } => Operand::Reg {
            thread: tid_of[thread as usize],
            reg,
        },
        o => o,
    };
    match p {
        Prop::Not(a) => Prop::Not(Box::new(rename_threads(*a, tid_of))),
        Prop::And(a, b) => Prop::And(
            Box::new(rename_threads(*a, tid_of)),
            Box::new(rename_threads(*b, tid_of)),
        ),
        Prop::Or(a, b) => Prop::Or(
            Box::new(rename_threads(*a, tid_of)),
            Box::new(rename_threads(*b, tid_of)),
        ),
        Prop::Cmp(o, a, b) => Prop::Cmp(o, op(a), op(b)),
        Prop::Truthy(a) => Prop::Truthy(op(a)),
        p => p,
    }
}

/// An RMW's tags per half, as Dartagnan compiles it: acquire and visibility (and the
/// storage-class semantics, when acquiring) belong to its read, release and availability (and
/// the semantics, when releasing) to its write; the rest to both. A half's tag is written
/// `R:TAG` or `W:TAG` (memory::base reads them).
fn split_rmw_tags(tags: Vec<String>) -> Vec<String> {
    let acq = tags.iter().any(|t| t == "ACQ");
    let rel = tags.iter().any(|t| t == "REL");
    let mut out = Vec::new();
    for t in tags {
        let semsc = t.starts_with("SEMSC");
        match t.as_str() {
            "ACQ" | "VIS" | "SEMVIS" => out.push(format!("R:{t}")),
            "REL" | "AV" | "SEMAV" => out.push(format!("W:{t}")),
            _ if semsc => {
                if acq {
                    out.push(format!("R:{t}"));
                }
                if rel {
                    out.push(format!("W:{t}"));
                }
            }
            _ => out.push(t),
        }
    }
    out
}
