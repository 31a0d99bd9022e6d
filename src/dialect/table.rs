//! The herd-style litmus table that Dartagnan's dialects share, read once for all of them.
//!
//! ```text
//! VULKAN mp                                   (header: the dialect's name, the test's name)
//! "a description"                              (any quoted lines)
//! { x=0; y=0; P1:r0=0; }                       (initial values, aliases)
//!  P0@sg 0, wg 0, qf 0 | P1@sg 0, wg 1, qf 0 ; (threads and where they run)
//!  st.atom.rel.dv.sc0 x, 1 | ld.atom.acq.dv.sc0 r0, x ;
//! exists (P1:r0 == 1 /\ x == 1)
//! ```
//!
//! Each thread becomes one arm of `if (tid == T) ...` in an SPMD kernel, placed so that its
//! subgroup, workgroup and queue family are the ones written (idle lanes fill the rest). What
//! differs between dialects (how a thread is placed, what an instruction means) is a
//! [`Dialect`]. Forward branches to a later label become `if`s; a thread with a backward
//! branch (a loop), or jumps that do not nest, becomes a [`dispatch`] loop over its blocks.

use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::syntax::ast::{
    BarrierScope, Condition, Expr, ExprKind, Global, Operand, Prop, Quantifier, Stmt, StmtKind,
    Test,
};
use crate::vocab::{BinOp, Builtin};
use std::collections::{BTreeMap, BTreeSet};

/// What one dialect of the table says that the others do not.
pub(crate) trait Dialect {
    /// The header word (`VULKAN`, `PTX`), for messages.
    fn name(&self) -> &'static str;
    /// How a thread heading is written, for messages (`P0@sg N, wg N, qf N`).
    fn placement_form(&self) -> &'static str;
    /// `P0@...` -> (thread, (subgroup, workgroup, queue family)); a subgroup of `None` gives
    /// the thread a subgroup of its own.
    fn placement(&self, s: &str) -> Option<(u32, Place)>;
    /// An `aliases` item of the initial values: `Some(Ok(alias))`, `Some(Err(why))`, or `None`
    /// when the item is not an alias.
    fn alias(&self, item: &str) -> Option<Result<Alias, String>>;
    /// One cell of the table.
    fn instruction(&self, cx: &mut Cell) -> Option<Ins>;
}

/// Where a thread runs: subgroup (`None`: one of its own), workgroup, queue family.
pub(crate) type Place = (Option<u32>, u32, u32);

/// `name aliases target`: `name` reaches `target`'s memory. With `same_reference` the access
/// goes through the target's own reference (same `vloc`, as PTX's proxy aliases do);
/// otherwise through another one (same `loc`, other `vloc`).
pub(crate) struct Alias {
    pub name: String,
    pub target: String,
    pub same_reference: bool,
}

/// One cell being read, with what an instruction parser needs.
pub(crate) struct Cell<'r, 'a> {
    pub r: &'r mut Reader<'a>,
    pub s: &'a str,
    pub sp: Span,
    pub globals: &'r BTreeMap<String, u32>,
    pub registers: &'r mut Vec<String>,
}

impl Cell<'_, '_> {
    pub fn err(&mut self, msg: impl Into<String>) {
        let sp = self.sp;
        self.r.err(sp, msg);
    }
    /// A barrier with a quorum, `INSTANCE, ID, QUORUM` (all numbers): Dartagnan's named
    /// barrier, met by the threads of a workgroup whose instance and id agree. Its name is
    /// `INSTANCE * 65536 + ID` (both below 65536). `form` is the instruction's form, for errors.
    pub fn quorum_barrier(&mut self, args: &[&str], form: &str) -> Option<BarrierScope> {
        if !self.want(args, 3, form.split(' ').next().unwrap_or(form), form) {
            return None;
        }
        let mut n = [0u32; 3];
        for (k, a) in args.iter().enumerate() {
            match parse_int(a) {
                Ok(v) => n[k] = v,
                Err(_) => {
                    self.err(format!("`{form}`: `{a}` must be a number (a barrier named by a register is not supported)"));
                    return None;
                }
            }
        }
        let [instance, id, quorum] = n;
        if instance >= 1 << 16 || id >= 1 << 16 || quorum == 0 {
            self.err(format!(
                "`{form}`: the instance and id must be below 65536 and the quorum at least 1"
            ));
            return None;
        }
        Some(BarrierScope::Quorum {
            name: instance << 16 | id,
            quorum,
        })
    }

    /// A barrier named by an id, `INSTANCE, ID` (the id a number or a register): Dartagnan's
    /// named barrier without a quorum, read as a meeting like `INSTANCE` alone (a fence
    /// tagged `CBAR` and `#cbarINSTANCE`) that meets only the barriers whose ids are equal at
    /// run time (docs/memory-models.md). Returns the name tag and the id.
    pub fn barrier_id(&mut self, args: &[&str], form: &str) -> Option<(String, Expr)> {
        if parse_int(args[0]).is_err() {
            self.err(format!(
                "`{form}`: the instance `{}` must be a number",
                args[0]
            ));
            return None;
        }
        Some((cbar_tag(args[0]), self.value(args[1])?))
    }

    /// A number or a register.
    pub fn value(&mut self, a: &str) -> Option<Expr> {
        if let Ok(v) = parse_int(a) {
            return Some(lit(v, self.sp));
        }
        if a.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && !self.globals.contains_key(a)
        {
            self.reg(a);
            return Some(Expr {
                kind: ExprKind::Reg(a.to_string()),
                span: self.sp,
            });
        }
        self.err(format!("expected a number or a register, found `{a}`"));
        None
    }
    /// A register written by the instruction.
    pub fn reg(&mut self, a: &str) -> String {
        if !self.registers.iter().any(|x| x == a) {
            self.registers.push(a.to_string());
        }
        a.to_string()
    }
    /// A location.
    pub fn global(&mut self, a: &str) -> Option<String> {
        if a.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            Some(a.to_string())
        } else {
            self.err(format!("expected a location name, found `{a}`"));
            None
        }
    }
    /// Exactly `n` operands, or an error showing `form`.
    pub fn want(&mut self, args: &[&str], n: usize, op: &str, form: &str) -> bool {
        if args.len() != n {
            self.err(format!("`{op}` takes {n} operand(s): `{form}`"));
            false
        } else {
            true
        }
    }
    /// A jump: `goto L` or `bcc a, b, L`.
    pub fn jump(&mut self, op: &str, args: &[&str]) -> Option<Option<Ins>> {
        let sp = self.sp;
        match op {
            "goto" => {
                if !self.want(args, 1, op, "goto L") {
                    return Some(None);
                }
                Some(Some(Ins::Jump(None, args[0].to_string(), sp)))
            }
            "beq" | "bne" | "blt" | "ble" | "bgt" | "bge" => {
                if !self.want(args, 3, op, "beq a, b, L") {
                    return Some(None);
                }
                let cmp = match op {
                    "beq" => BinOp::Eq,
                    "bne" => BinOp::Ne,
                    "blt" => BinOp::Lt,
                    "ble" => BinOp::Le,
                    "bgt" => BinOp::Gt,
                    _ => BinOp::Ge,
                };
                let (Some(a), Some(b)) = (self.value(args[0]), self.value(args[1])) else {
                    return Some(None);
                };
                Some(Some(Ins::Jump(Some((cmp, a, b)), args[2].to_string(), sp)))
            }
            _ => None,
        }
    }
}

impl Cell<'_, '_> {
    /// Local arithmetic: `mov r, a` or `OP r, a, b` (OP: add sub mul and or xor).
    pub fn local(&mut self, op: &str, args: &[&str]) -> Option<StmtKind> {
        let n = if op == "mov" { 2 } else { 3 };
        if !self.want(args, n, op, "op r, a[, b]") {
            return None;
        }
        let reg = self.reg(args[0]);
        let a = self.value(args[1])?;
        let value = if op == "mov" {
            a
        } else {
            let b = self.value(args[2])?;
            let bop = match op {
                "add" => BinOp::Add,
                "sub" => BinOp::Sub,
                "mul" => BinOp::Mul,
                "and" => BinOp::BitAnd,
                "or" => BinOp::BitOr,
                "xor" => BinOp::BitXor,
                _ => {
                    self.err(format!("unknown operation `{op}`"));
                    return None;
                }
            };
            Expr {
                kind: ExprKind::Binary(bop, Box::new(a), Box::new(b)),
                span: self.sp,
            }
        };
        Some(StmtKind::Assign { reg, value })
    }
}

/// Splits `op.m1.m2 a, b` into the opcode, its modifiers and its operands.
pub(crate) fn split_cell(s: &str) -> (&str, Vec<&str>, Vec<&str>) {
    let (head, args) = s.split_once(char::is_whitespace).unwrap_or((s, ""));
    let args: Vec<&str> = args
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .collect();
    let mut mods = head.split('.');
    let op = mods.next().unwrap_or("");
    (op, mods.collect(), args)
}
pub(crate) struct Reader<'a> {
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
    pub fn err(&mut self, span: Span, msg: impl Into<String>) {
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
pub(crate) enum Ins {
    Stmt(Stmt),
    Label(String),
    /// `bcc a, b, L` (op, operands) or `goto L` (None).
    Jump(Option<Compare>, String, Span),
}

/// A conditional jump's test: `bne a, b` is `(Ne, a, b)`.
pub(crate) type Compare = (BinOp, Expr, Expr);

/// Reads a litmus file of dialect `d`.
pub(crate) fn parse(d: &dyn Dialect, file: &str, bytes: &[u8]) -> Result<Test, Diagnostics> {
    let test = parse_table(d, file, bytes)?;
    crate::syntax::validate::check(&test)?;
    Ok(test)
}

fn parse_table(d: &dyn Dialect, file: &str, bytes: &[u8]) -> Result<Test, Diagnostics> {
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
    match read(d, &mut r) {
        Some(t) if r.diags.is_empty() => Ok(t),
        _ => {
            if r.diags.is_empty() {
                r.err(
                    span_at(text, 0, 1),
                    format!("not a {} litmus test", d.name()),
                );
            }
            Err(Diagnostics(r.diags))
        }
    }
}

fn read(d: &dyn Dialect, r: &mut Reader) -> Option<Test> {
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
    // Aliases: a name -> (the location it reaches, the reference it goes through).
    let mut aliases: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut off = open + 1;
    for item in text[open + 1..close].split(';') {
        let start = off + (item.len() - item.trim_start().len());
        off += item.len() + 1;
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let sp = span_at(text, start, item.len());
        match d.alias(item) {
            Some(Ok(a)) => {
                let (loc, reference) = aliases
                    .get(&a.target)
                    .cloned()
                    .unwrap_or((a.target.clone(), a.target.clone()));
                let reference = if a.same_reference {
                    reference
                } else {
                    a.name.clone()
                };
                aliases.insert(a.name, (loc, reference));
                continue;
            }
            Some(Err(why)) => {
                r.err(sp, why);
                continue;
            }
            None => {}
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
            format!(
                "expected the thread table (`P0{} | ...;`)",
                d.placement_form()
            ),
        );
        return None;
    }
    // Thread placements.
    let heads = rows.remove(0);
    let mut places = Vec::new();
    for (k, h) in heads.iter().enumerate() {
        match d.placement(h.s) {
            Some((t, p)) if t as usize == k => places.push(p),
            _ => {
                r.err(
                    h.span,
                    format!("expected `P{k}{}`, found `{}`", d.placement_form(), h.s),
                );
                return None;
            }
        }
    }
    // A thread without a subgroup gets one of its own within its workgroup.
    let mut next_sg: BTreeMap<(u32, u32), u32> = BTreeMap::new();
    let places: Vec<(u32, u32, u32)> = places
        .into_iter()
        .map(|(sg, wg, qf)| {
            let next = next_sg.entry((wg, qf)).or_insert(0);
            let sg = sg.unwrap_or(*next);
            *next = (*next).max(sg + 1);
            (sg, wg, qf)
        })
        .collect();
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
            let mut cx = Cell {
                r,
                s: cell.s,
                sp: cell.span,
                globals: &globals,
                registers: &mut registers[t],
            };
            if let Some(ins) = d.instruction(&mut cx) {
                code[t].push(ins);
            }
        }
    }
    // Accesses through an alias go to the aliased location, tagged with the reference they
    // go through when it is not the location's own (`@z`: memory::base makes `vloc` tell
    // references apart).
    for ins in code.iter_mut() {
        for i in ins.iter_mut() {
            if let Ins::Stmt(st) = i {
                if let StmtKind::Load { global, .. }
                | StmtKind::Store { global, .. }
                | StmtKind::Atomic { global, .. } = &mut st.kind
                {
                    if let Some((loc, reference)) = aliases.get(global.as_str()) {
                        if reference != loc {
                            st.tags.push(format!("@{reference}"));
                        }
                        *global = loc.clone();
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
    let (quantifier, prop, filter) = condition(r, cond_at, &globals, &places)?;
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
    // are assignments at the top of their thread's arm, and so is `r = 0` for a register
    // that is only read (registers start at 0; the litmus language declares a register by
    // assigning it, so what `tangle show` prints reads back).
    let mut arms = Vec::with_capacity(n);
    for c in &code {
        arms.push(structure(r, c)?);
    }
    let mut assigned: BTreeSet<String> = reg_init.iter().map(|i| i.1.clone()).collect();
    for arm in &arms {
        crate::syntax::ast::assigned_registers(arm, &mut |name| {
            assigned.insert(name.to_string());
        });
    }
    let mut chain: Vec<Stmt> = Vec::new();
    for (t, arm) in arms.into_iter().enumerate().rev() {
        let sp = heads[t].span;
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
        for reg in registers[t].iter().filter(|g| !assigned.contains(*g)) {
            body.push(stmt(
                StmtKind::Assign {
                    reg: reg.clone(),
                    value: lit(0, sp),
                },
                sp,
            ));
        }
        body.extend(arm);
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
    // The filter names threads as the condition does.
    let filter = filter.map(|f| rename_threads(f, &tid_of));
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
        filter,
        condition: Condition {
            quantifier,
            prop,
            // The whole condition (a filter included), as reports quote it.
            span: span_at(
                text,
                cond_at,
                text.trim_end().len().saturating_sub(cond_at).max(1),
            ),
        },
        expect: Vec::new(),
        expect_liveness: Vec::new(),
        hints: Default::default(),
        observe: Vec::new(),
        condition_label: None,
        queue_family,
    })
}

/// The tag that names a dialect's control barrier instance `I` (`cbar I`, `bar.cta.sync I`):
/// barriers meet by it (`memory::base::sinst`).
pub(crate) fn cbar_tag(instance: &str) -> String {
    format!("#cbar{instance}")
}

pub(crate) fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt {
        kind,
        span,
        tags: Vec::new(),
    }
}

pub(crate) fn lit(v: u32, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(v),
        span,
    }
}

pub(crate) fn parse_int(s: &str) -> Result<u32, ()> {
    if let Some(n) = s.strip_prefix('-') {
        return n.parse::<u32>().map(|v| v.wrapping_neg()).map_err(|_| ());
    }
    s.parse::<u32>().map_err(|_| ())
}

pub(crate) fn thread_index(p: &str) -> Option<u32> {
    p.trim().strip_prefix('P')?.parse().ok()
}

/// `P0@k1 v1, k2 v2` with exactly the keys `keys`, each once, in any order: the thread and
/// the values in `keys` order (`None` for any other form).
pub(crate) fn placement(s: &str, keys: &[&str]) -> Option<(u32, Vec<u32>)> {
    let (p, rest) = s.split_once('@')?;
    let t = thread_index(p)?;
    let mut values = vec![None; keys.len()];
    for part in rest.split(',') {
        let mut it = part.split_whitespace();
        let (k, v) = (it.next()?, it.next()?.parse::<u32>().ok()?);
        let i = keys.iter().position(|key| *key == k)?;
        values[i] = Some(v);
    }
    Some((t, values.into_iter().collect::<Option<Vec<u32>>>()?))
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

/// The register that holds a looping thread's next block (see [`dispatch`]).
pub(crate) const PC: &str = "lc_pc";

/// Turns a thread's instructions into structured statements: a jump to a later label skips
/// the instructions up to it (`if (!cond) { ... }`), and a label that later jumps go back to
/// heads a loop (`while (1) { ... }`, its jumps back `continue` or end it, its jumps just past
/// it `break`), so that a spin loop is a loop of the IR whose iterations are the test's own
/// (its dynamic blocks, its loop bound). Jumps that do not nest this way make the thread a
/// [`dispatch`] loop.
fn structure(r: &mut Reader, code: &[Ins]) -> Option<Vec<Stmt>> {
    match region(&invert_over_gotos(code), &[], &[]) {
        Some(stmts) => Some(stmts),
        None => dispatch(r, code),
    }
}

/// `bcc a, b, L1; goto L2; L1:` is `b!cc a, b, L2; L1:` (the CADP generator's if-then: its
/// jump out of the skipped part would not nest). The same jumps, taken under the same
/// conditions, so the same program; only [`region`] can then read it as an `if`.
fn invert_over_gotos(code: &[Ins]) -> Vec<Ins> {
    let mut out = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        if let (
            Ins::Jump(Some((op, a, b)), l1, sp),
            Some(Ins::Jump(None, l2, _)),
            Some(Ins::Label(l)),
        ) = (&code[i], code.get(i + 1), code.get(i + 2))
        {
            if l == l1 {
                if let Some(inv) = inverse(*op) {
                    out.push(Ins::Jump(
                        Some((inv, a.clone(), b.clone())),
                        l2.clone(),
                        *sp,
                    ));
                    i += 2;
                    continue;
                }
            }
        }
        out.push(code[i].clone());
        i += 1;
    }
    out
}

/// The comparison that holds exactly when `op` does not.
fn inverse(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Eq => BinOp::Ne,
        BinOp::Ne => BinOp::Eq,
        BinOp::Lt => BinOp::Ge,
        BinOp::Ge => BinOp::Lt,
        BinOp::Le => BinOp::Gt,
        BinOp::Gt => BinOp::Le,
        _ => return None,
    })
}

/// A loop being structured: the label at its head, and the labels that directly follow its
/// last jump back (a jump to one of them leaves the loop).
struct LoopCtx<'a> {
    head: &'a str,
    after: Vec<&'a str>,
}

/// The statements of `code`, a region inside the loops `loops` (innermost last), or `None`
/// when its jumps do not nest as `if`s and loops. `follow`: the labels where running off the
/// region's end lands (a jump to one skips the rest of the region).
fn region(code: &[Ins], loops: &[&LoopCtx], follow: &[&str]) -> Option<Vec<Stmt>> {
    // The labels from `at` on, up to the first instruction, and `follow` when none comes.
    let labels_from = |at: usize| -> Vec<&str> {
        let mut out: Vec<&str> = code[at..]
            .iter()
            .map_while(|c| match c {
                Ins::Label(l) => Some(l.as_str()),
                _ => None,
            })
            .collect();
        if code[at..].iter().all(|c| matches!(c, Ins::Label(_))) {
            out.extend(follow);
        }
        out
    };
    let label_at = |label: &str, from: usize| {
        code[from..]
            .iter()
            .position(|c| matches!(c, Ins::Label(l) if l == label))
            .map(|k| k + from)
    };
    let test = |cond: &Option<Compare>, sp: Span| match cond {
        None => lit(1, sp),
        Some((op, a, b)) => Expr {
            kind: ExprKind::Binary(*op, Box::new(a.clone()), Box::new(b.clone())),
            span: sp,
        },
    };
    let not = |e: Expr, sp: Span| Expr {
        kind: ExprKind::Unary(crate::vocab::UnOp::Not, Box::new(e)),
        span: sp,
    };
    // `if (cond) { kind; }`, or `kind;` for an unconditional jump.
    let guarded = |cond: &Option<Compare>, kind: StmtKind, sp: Span| match cond {
        None => stmt(kind, sp),
        Some(_) => stmt(
            StmtKind::If {
                cond: test(cond, sp),
                then_body: vec![stmt(kind, sp)],
                else_body: Vec::new(),
            },
            sp,
        ),
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        match &code[i] {
            Ins::Stmt(s) => out.push(s.clone()),
            Ins::Label(head) => {
                let back = (i + 1..code.len())
                    .rev()
                    .find(|&j| matches!(&code[j], Ins::Jump(_, l, _) if l == head));
                if let Some(e) = back {
                    let Ins::Jump(cond, _, sp) = &code[e] else {
                        unreachable!("found as a jump")
                    };
                    let after = labels_from(e + 1);
                    let ctx = LoopCtx { head, after };
                    let mut all = loops.to_vec();
                    all.push(&ctx);
                    let mut body = region(&code[i + 1..e], &all, &[])?;
                    if cond.is_some() {
                        body.push(stmt(
                            StmtKind::If {
                                cond: not(test(cond, *sp), *sp),
                                then_body: vec![stmt(StmtKind::Break, *sp)],
                                else_body: Vec::new(),
                            },
                            *sp,
                        ));
                    }
                    out.push(stmt(
                        StmtKind::While {
                            cond: lit(1, *sp),
                            body,
                        },
                        *sp,
                    ));
                    i = e + 1;
                    continue;
                }
            }
            Ins::Jump(cond, label, sp) => {
                if let Some(end) = label_at(label, i + 1) {
                    let inner = region(&code[i + 1..end], loops, &labels_from(end))?;
                    out.push(stmt(
                        StmtKind::If {
                            cond: not(test(cond, *sp), *sp),
                            then_body: inner,
                            else_body: Vec::new(),
                        },
                        *sp,
                    ));
                    i = end;
                    continue;
                }
                if follow.contains(&label.as_str()) {
                    // Out past the region's end: the rest of it runs only when not taken.
                    let inner = region(&code[i + 1..], loops, follow)?;
                    out.push(stmt(
                        StmtKind::If {
                            cond: not(test(cond, *sp), *sp),
                            then_body: inner,
                            else_body: Vec::new(),
                        },
                        *sp,
                    ));
                    break;
                }
                let innermost = loops.last()?;
                if label == innermost.head {
                    out.push(guarded(cond, StmtKind::Continue, *sp));
                } else if innermost.after.contains(&label.as_str()) {
                    out.push(guarded(cond, StmtKind::Break, *sp));
                } else {
                    return None;
                }
            }
        }
        i += 1;
    }
    Some(out)
}

/// A thread with loops as one loop over its basic blocks: `lc_pc` names the next block, and
/// each iteration runs one block and sets `lc_pc` to where its jump (or fall-through) goes.
/// Any jumps at all, loops nested, overlapping or entered in the middle, have this form; a
/// loop iteration of the original is one or more iterations of the dispatch loop (one per
/// block with statements it runs), which is what `--unroll` then bounds.
fn dispatch(r: &mut Reader, code: &[Ins]) -> Option<Vec<Stmt>> {
    // Basic blocks: a label starts one, a jump ends one.
    struct Block {
        stmts: Vec<Stmt>,
        jump: Option<(Option<Compare>, String, Span)>,
    }
    let mut blocks = vec![Block {
        stmts: Vec::new(),
        jump: None,
    }];
    let mut label_at: BTreeMap<String, usize> = BTreeMap::new();
    for ins in code {
        let last = blocks.len() - 1;
        match ins {
            Ins::Label(l) => {
                let cur = &blocks[last];
                let at = if cur.stmts.is_empty() && cur.jump.is_none() {
                    last
                } else {
                    blocks.push(Block {
                        stmts: Vec::new(),
                        jump: None,
                    });
                    last + 1
                };
                label_at.insert(l.clone(), at);
            }
            Ins::Stmt(st) => {
                if blocks[last].jump.is_some() {
                    blocks.push(Block {
                        stmts: Vec::new(),
                        jump: None,
                    });
                }
                let last = blocks.len() - 1;
                blocks[last].stmts.push(st.clone());
            }
            Ins::Jump(cond, label, sp) => {
                if blocks[last].jump.is_some() {
                    blocks.push(Block {
                        stmts: Vec::new(),
                        jump: None,
                    });
                }
                let last = blocks.len() - 1;
                blocks[last].jump = Some((cond.clone(), label.clone(), *sp));
            }
        }
    }
    let exit = blocks.len() as u32;
    let reg = |sp: Span| Expr {
        kind: ExprKind::Reg(PC.to_string()),
        span: sp,
    };
    let set = |v: u32, sp: Span| {
        stmt(
            StmtKind::Assign {
                reg: PC.to_string(),
                value: lit(v, sp),
            },
            sp,
        )
    };
    // A block with no statements and no condition only passes control on (`goto L`, or a
    // label before the next): a jump to it goes straight to where it leads, so an iteration of
    // the dispatch loop runs a block that does something, and a loop of the original takes no
    // more iterations than its blocks with statements. Empty blocks that only lead to each
    // other in a cycle (`L: goto L`) are left as written: they spin.
    let through = |start: usize| {
        let mut t = start;
        for _ in 0..=blocks.len() {
            let Some(b) = blocks.get(t).filter(|b| b.stmts.is_empty()) else {
                return t;
            };
            t = match &b.jump {
                None => t + 1,
                Some((None, label, _)) => match label_at.get(label) {
                    Some(&l) => l,
                    None => return t,
                },
                Some((Some(_), ..)) => return t,
            };
        }
        start
    };
    let mut arms: Vec<(u32, Vec<Stmt>, Span)> = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let sp = b
            .stmts
            .first()
            .map(|s| s.span)
            .or(b.jump.as_ref().map(|j| j.2))
            .unwrap_or_default();
        let mut body = b.stmts.clone();
        let next = through(i + 1) as u32;
        match &b.jump {
            None => body.push(set(next, sp)),
            Some((cond, label, jsp)) => {
                let Some(&target) = label_at.get(label) else {
                    r.err(
                        *jsp,
                        format!("a jump to `{label}`, a label this thread does not have"),
                    );
                    return None;
                };
                let target = through(target);
                match cond {
                    None => body.push(set(target as u32, *jsp)),
                    Some((op, a, bb)) => {
                        body.push(set(next, *jsp));
                        body.push(stmt(
                            StmtKind::If {
                                cond: Expr {
                                    kind: ExprKind::Binary(
                                        *op,
                                        Box::new(a.clone()),
                                        Box::new(bb.clone()),
                                    ),
                                    span: *jsp,
                                },
                                then_body: vec![set(target as u32, *jsp)],
                                else_body: Vec::new(),
                            },
                            *jsp,
                        ));
                    }
                }
            }
        }
        // No jump leads to a block passed through.
        if through(i) == i {
            arms.push((i as u32, body, sp));
        }
    }
    let mut chain: Vec<Stmt> = Vec::new();
    for (i, body, sp) in arms.into_iter().rev() {
        chain = vec![stmt(
            StmtKind::If {
                cond: Expr {
                    kind: ExprKind::Binary(BinOp::Eq, Box::new(reg(sp)), Box::new(lit(i, sp))),
                    span: sp,
                },
                then_body: body,
                else_body: chain,
            },
            sp,
        )];
    }
    let sp = chain.first().map(|s| s.span).unwrap_or_default();
    Some(vec![
        set(through(0) as u32, sp),
        stmt(
            StmtKind::While {
                cond: Expr {
                    kind: ExprKind::Binary(BinOp::Ne, Box::new(reg(sp)), Box::new(lit(exit, sp))),
                    span: sp,
                },
                body: chain,
            },
            sp,
        ),
    ])
}

/// The final condition: `exists (P)`, `~exists (P)`, `forall (P)` with `/\`, `\/`, `~`,
/// after an optional `filter (P)`. A filter alone (Dartagnan's races tests) asks
/// `exists (true)`: is there an execution that passes it.
fn condition(
    r: &mut Reader,
    at: usize,
    globals: &BTreeMap<String, u32>,
    places: &[(u32, u32, u32)],
) -> Option<(Quantifier, Prop, Option<Prop>)> {
    let text = r.text;
    let rest = &text[at..];
    let mut toks: Vec<(String, usize)> = Vec::new();
    let b = rest.as_bytes();
    let mut i = 0;
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
    let parsed = p.parts();
    for (sp, m) in std::mem::take(&mut p.errs) {
        r.err(sp, m);
    }
    parsed
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
    /// `[filter P] (exists | ~exists | forall) P`, or a filter alone (`exists (true)`); the
    /// errors are left in `errs`.
    fn parts(&mut self) -> Option<(Quantifier, Prop, Option<Prop>)> {
        let mut filter = None;
        if self.peek() == Some("filter") {
            self.pos += 1;
            filter = Some(self.or()?);
        }
        let q = match (
            self.peek(),
            self.toks.get(self.pos + 1).map(|t| t.0.as_str()),
        ) {
            (Some("exists"), _) => Some(Quantifier::Exists),
            (Some("forall"), _) => Some(Quantifier::Forall),
            (Some("~"), Some("exists")) => {
                self.pos += 1;
                Some(Quantifier::NotExists)
            }
            (None, _) if filter.is_some() => None,
            _ => {
                self.fail("the final condition (`exists`, `~exists` or `forall`)");
                return None;
            }
        };
        let (q, prop) = match q {
            Some(q) => {
                self.pos += 1;
                (q, self.or())
            }
            None => (Quantifier::Exists, Some(Prop::True)),
        };
        if self.pos < self.toks.len() {
            let (t, o) = self.toks[self.pos].clone();
            self.errs.push((
                span_at(self.file_text, o, t.len()),
                format!("unexpected `{t}` after the condition"),
            ));
        }
        Some((q, prop?, filter))
    }

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
        let colon = self.toks.get(self.pos + 1).map(|x| x.0.as_str()) == Some(":");
        if let Ok(v) = parse_int(&t) {
            if !colon {
                self.pos += 1;
                return Some(Operand::Lit(v));
            }
        }
        // `P1:r0`, or herd's `1:r0`.
        if let Some(th) = thread_index(&t).or_else(|| t.parse().ok()) {
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
