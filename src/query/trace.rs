//! Witness traces in the reports' words: each engine step as its dynamic block, source line
//! and effects (`0:r = 1`, `slots[1] := 2`, `1 -> then#2`), the one form every query's
//! witnesses, bound hits and hangs are shown in.

use crate::diag::Span;
use crate::engine::trace::{At, Effect, Step};
use crate::ir::{self, Program, Target};
use crate::syntax::ast;
use serde::Serialize;

/// One rendered step of a witness trace.
#[derive(Clone, Debug, Serialize)]
pub struct TraceStep {
    pub step: usize,
    pub threads: Vec<u32>,
    pub subgroup: u32,
    /// The dynamic block: static block and iteration vector (with the subgroup).
    pub block: String,
    pub line: u32,
    /// What ran: the source text of the line (of its own cell, in a VULKAN or PTX table
    /// row), or `label` / `branch` / `resolve`.
    pub instruction: String,
    /// What it did, e.g. `0:r = 1`, `slots[1] := 2`, `1 -> then#2`.
    pub effects: Vec<String>,
    /// Its memory accesses, for pictures (reads-from is recovered from the trace order: every
    /// model's memory is sequentially consistent).
    #[serde(skip)]
    pub memory: Vec<MemoryAccess>,
    /// The instruction it ran (its block of the unrolled program and index there), for
    /// pictures that draw a relaxed execution's edges ([`crate::memory::Place`]).
    #[serde(skip)]
    pub place: Option<(crate::ir::BlockId, u32)>,
}

/// One memory access of a witness step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryAccess {
    pub thread: u32,
    /// The cell, as `x` or `a[2]`.
    pub cell: String,
    /// A load reads, a store writes, an atomic does both.
    pub reads: bool,
    pub writes: bool,
    /// The value read (loads) or written (stores, atomics); `None` for an open read the
    /// trace does not know the value of (docs/memory-models.md, "Open reads").
    pub value: Option<u32>,
}

/// How a trace shows the statement at `span`: its source line, or, in a row of a VULKAN or
/// PTX table (cells joined by `|`, one per thread), the statement's own cell, so that each
/// thread's step shows its own. Elsewhere a span may cover part of a line (an operation
/// inside an expression, a WGSL column): the whole line is shown.
pub(crate) fn statement_text(source: &str, span: Span) -> String {
    let line = source
        .lines()
        .nth(span.line.saturating_sub(1) as usize)
        .unwrap_or("");
    let (start, end) = (span.start as usize, span.end as usize);
    let own = source
        .get(start..end)
        .filter(|t| !t.trim().is_empty() && !t.contains('\n'));
    let Some(own) = own else {
        return line.trim().to_string();
    };
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = source[end..].find('\n').map_or(source.len(), |i| end + i);
    let (before, after) = (
        source[line_start..start].trim(),
        source[end..line_end].trim(),
    );
    if before.ends_with('|') || after.starts_with('|') {
        own.trim().to_string()
    } else {
        line.trim().to_string()
    }
}

/// Turns engine steps into report rows: dynamic block, source line, effects in words.
pub fn render_trace(test: &ast::Test, prog: &Program, steps: &[Step]) -> Vec<TraceStep> {
    let line_text = |span: Span| statement_text(&test.source, span);
    let reg = |r: u32| prog.regs[r as usize].shown.clone();
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let b = &prog.blocks[s.block as usize];
            let sg = prog.layout.subgroup_of(s.threads[0]);
            let (line, instruction) = match s.at {
                At::Label => (b.span.line, format!("label {}", b.name())),
                At::Term => (
                    b.term_span.line,
                    match &b.term {
                        ir::Term::Return => "return".to_string(),
                        ir::Term::Jump(_) => "branch".to_string(),
                        ir::Term::Branch { .. } => {
                            format!("branch: {}", line_text(b.term_span))
                        }
                    },
                ),
                At::Instr(k) => {
                    let sp = b.instrs[k as usize].span;
                    (sp.line, line_text(sp))
                }
                At::Resolve(k) => {
                    let sp = b.instrs[k as usize].span;
                    (sp.line, format!("resolve: {}", line_text(sp)))
                }
            };
            let effects = s
                .effects
                .iter()
                .map(|e| match e {
                    Effect::Reg {
                        thread,
                        reg: r,
                        value,
                    } => format!("{thread}:{} = {value}", reg(*r)),
                    Effect::Read {
                        thread,
                        reg: r,
                        cell,
                        open: true,
                        ..
                    } => format!(
                        "{thread}:{} = {} (reads what it reads from: nothing in the run depends on it)",
                        reg(*r),
                        prog.cell_name(*cell)
                    ),
                    Effect::Read {
                        thread,
                        reg: r,
                        cell,
                        value,
                        ..
                    } => format!(
                        "{thread}:{} = {} (reads {value})",
                        reg(*r),
                        prog.cell_name(*cell)
                    ),
                    Effect::Write {
                        thread,
                        cell,
                        value,
                    } => {
                        format!("{} := {value} (by {thread})", prog.cell_name(*cell))
                    }
                    Effect::Rmw {
                        thread,
                        cell,
                        old,
                        new: Some(new),
                    } => format!("{} : {old} -> {new} (by {thread})", prog.cell_name(*cell)),
                    Effect::Rmw {
                        thread,
                        cell,
                        old,
                        new: None,
                    } => format!(
                        "{} : {old}, compare fails (by {thread})",
                        prog.cell_name(*cell)
                    ),
                    Effect::Goto { thread, target } => match target {
                        Target::Block(t) => {
                            format!("{thread} -> {}", prog.blocks[*t as usize].name())
                        }
                        Target::Cut => format!("{thread} -> cut (loop bound)"),
                    },
                    Effect::Done { thread } => format!("{thread} terminates"),
                    Effect::Pending { thread, reg: r } => format!("{thread}:{} pending", reg(*r)),
                    Effect::Speculated => "fired speculatively (a thread was undecided)".into(),
                    Effect::Ub(k) => format!("undefined behaviour: {}", k.describe()),
                })
                .collect();
            let memory = s
                .effects
                .iter()
                .filter_map(|e| {
                    let access = |thread: &u32, cell: &u32, reads, writes, value: &u32| {
                        Some(MemoryAccess {
                            thread: *thread,
                            cell: prog.cell_name(*cell),
                            reads,
                            writes,
                            value: Some(*value),
                        })
                    };
                    match e {
                        Effect::Read {
                            thread,
                            cell,
                            value,
                            open,
                            ..
                        } => access(thread, cell, true, false, value).map(|a| MemoryAccess {
                            value: a.value.filter(|_| !open),
                            ..a
                        }),
                        Effect::Write {
                            thread,
                            cell,
                            value,
                        } => access(thread, cell, false, true, value),
                        Effect::Rmw {
                            thread,
                            cell,
                            new: Some(new),
                            ..
                        } => access(thread, cell, true, true, new),
                        Effect::Rmw {
                            thread,
                            cell,
                            old,
                            new: None,
                        } => access(thread, cell, true, false, old),
                        _ => None,
                    }
                })
                .collect();
            let place = match s.at {
                At::Instr(k) => Some((s.block, k)),
                _ => None,
            };
            TraceStep {
                memory,
                place,
                step: i + 1,
                threads: s.threads.clone(),
                subgroup: sg,
                block: format!("sg{sg}/{}", b.name()),
                line,
                instruction,
                effects,
            }
        })
        .collect()
}
