//! AST -> structured control-flow graph.
//!
//! Every construct becomes the blocks SPIR-V would give it: an `if` ends the current block with
//! a conditional branch to a then block (and an else block when there is an else body) and
//! continues in a merge block; a loop gets a header (the exit test, once per iteration), a body,
//! a continue target (the `for` step) and a merge block. Subgroup ops inside expressions are
//! hoisted, left to right and innermost first, into `SgOp` instructions writing hidden
//! registers, in the block where the expression stands (for a loop condition: the header).
//! Statements after `break`, `continue` or `return` are dropped: they never run.

use super::{Expr, GlobalInfo, Instr, Layout, Loc, Observable, Op, Prop, PropTerm, RegId, RegInfo};
use crate::syntax::ast::{self, ExprKind, StmtKind};
use crate::syntax::Span;
use std::collections::BTreeMap;

pub type SBlockId = usize;
pub type LoopId = usize;

/// What a static block is for (shown in traces and DOT graphs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Entry,
    Then,
    Else,
    IfMerge,
    LoopHeader,
    LoopBody,
    Continue,
    LoopMerge,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Entry => "entry",
            Role::Then => "then",
            Role::Else => "else",
            Role::IfMerge => "merge",
            Role::LoopHeader => "header",
            Role::LoopBody => "body",
            Role::Continue => "continue",
            Role::LoopMerge => "loopmerge",
        }
    }
}

/// How a static block ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum STerm {
    Jump(SBlockId),
    Branch {
        cond: Expr,
        then_to: SBlockId,
        else_to: SBlockId,
    },
    Return,
}

#[derive(Clone, Debug)]
pub struct SBlock {
    pub role: Role,
    /// Enclosing loops, outermost first (a header and continue target are inside their loop;
    /// its merge block is not).
    pub loops: Vec<LoopId>,
    pub instrs: Vec<Instr>,
    pub term: STerm,
    /// Where the block's code starts in the source (for traces).
    pub span: Span,
    /// Where the terminator comes from (the `if`/`while`/`break`... statement).
    pub term_span: Span,
}

#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub header: SBlockId,
    pub cont: SBlockId,
    pub merge: SBlockId,
}

/// The lowered, still-looping program plus everything resolved by name.
#[derive(Clone, Debug)]
pub struct Cfg {
    pub blocks: Vec<SBlock>,
    pub loops: Vec<LoopInfo>,
    pub regs: Vec<RegInfo>,
    pub globals: Vec<GlobalInfo>,
    pub layout: Layout,
    pub observables: Vec<Observable>,
    pub prop: Prop,
    /// The test's `filter`: executions whose final state fails it do not count.
    pub filter: Option<Prop>,
}

impl Cfg {
    /// Does some block hold an instruction of kind `k` (reachable or not)?
    pub fn has_kind(&self, k: crate::vocab::Kind) -> bool {
        (self.blocks.iter()).any(|b| b.instrs.iter().any(|i| i.op.kind() == k))
    }
    /// Per global: some instruction stores to it or updates it atomically. A global nobody
    /// writes keeps its initial value, which every analysis may use as a constant.
    pub fn written_globals(&self) -> Vec<bool> {
        let mut w = vec![false; self.globals.len()];
        for b in &self.blocks {
            for i in &b.instrs {
                if let Op::Store { loc, .. } | Op::Atomic { loc, .. } = &i.op {
                    w[loc.global as usize] = true;
                }
            }
        }
        w
    }
}

/// Lowers a resolved test. The front end has already checked every name, so lookups here
/// cannot fail on a test it accepted.
pub fn lower(test: &ast::Test) -> Cfg {
    lower_observing(test, &[])
}

/// As [`lower`], also observing `extra` (after the condition's own observables). A register
/// the kernel never assigns is observed as 0; a global it does not declare is refused by the
/// caller beforehand.
pub fn lower_observing(test: &ast::Test, extra: &[ast::Operand]) -> Cfg {
    let mut globals = Vec::new();
    let mut base = 0u32;
    for g in &test.globals {
        globals.push(GlobalInfo {
            name: g.name.clone(),
            base,
            len: g.cells(),
            is_array: g.len.is_some(),
            init: g.init.clone(),
        });
        base += g.cells();
    }
    let mut lw = Lowerer {
        blocks: Vec::new(),
        loops: Vec::new(),
        loop_stack: Vec::new(),
        regs: Vec::new(),
        reg_ids: BTreeMap::new(),
        globals,
        temps: 0,
        tags: Vec::new(),
    };
    ast::assigned_registers(&test.kernel, &mut |name| {
        lw.reg(name);
    });
    let first = test.kernel.first().map_or(Span::default(), |s| s.span);
    let last = test.kernel.last().map_or(first, |s| s.span);
    let entry = lw.new_block(Role::Entry, first);
    if let Some(end) = lw.stmts(&test.kernel, entry) {
        lw.end(end, STerm::Return, last);
    }
    let mut observables = Vec::new();
    let prop = lw.prop(&test.condition.prop, &mut observables);
    let filter = test.filter.as_ref().map(|f| lw.prop(f, &mut observables));
    for o in test.observe.iter().chain(extra) {
        lw.term(o, &mut observables);
    }
    Cfg {
        blocks: lw.blocks,
        loops: lw.loops,
        regs: lw.regs,
        globals: lw.globals,
        layout: Layout {
            threads: test.threads,
            subgroup: test.subgroup,
            workgroup: test.workgroup,
            queue_family: test.queue_family,
        },
        observables,
        prop,
        filter,
    }
}

struct Lowerer {
    blocks: Vec<SBlock>,
    loops: Vec<LoopInfo>,
    loop_stack: Vec<LoopId>,
    regs: Vec<RegInfo>,
    reg_ids: BTreeMap<String, RegId>,
    globals: Vec<GlobalInfo>,
    temps: u32,
    /// The memory-model tags of the statement being lowered.
    tags: Vec<String>,
}

impl Lowerer {
    fn reg(&mut self, name: &str) -> RegId {
        if let Some(&r) = self.reg_ids.get(name) {
            return r;
        }
        let id = self.regs.len() as RegId;
        let shown = match name.strip_prefix('$') {
            None => name.to_string(),
            Some(rest) => match rest.strip_prefix("returned.") {
                Some(f) => format!("({f} returned)"),
                None if rest == "discard" => "(unused result)".to_string(),
                None => "(saved value)".to_string(),
            },
        };
        self.regs.push(RegInfo {
            name: name.to_string(),
            hidden: name.starts_with('$'),
            shown,
        });
        self.reg_ids.insert(name.to_string(), id);
        id
    }

    /// A hidden register for the value of `what` (shown as `what` in witnesses).
    fn temp(&mut self, what: &ast::Expr) -> RegId {
        self.temps += 1;
        let name = format!("$t{}", self.temps);
        let r = self.reg(&name);
        self.regs[r as usize].shown = crate::syntax::print::expr_to_string(what);
        r
    }

    fn global(&self, name: &str) -> u32 {
        self.globals
            .iter()
            .position(|g| g.name == name)
            .expect("front end resolved every global") as u32
    }

    fn new_block(&mut self, role: Role, span: Span) -> SBlockId {
        self.blocks.push(SBlock {
            role,
            loops: self.loop_stack.clone(),
            instrs: Vec::new(),
            term: STerm::Return,
            span,
            term_span: span,
        });
        self.blocks.len() - 1
    }

    fn emit(&mut self, b: SBlockId, op: Op, span: Span) {
        let tags = self.tags.clone();
        self.blocks[b].instrs.push(Instr { op, span, tags });
    }

    fn end(&mut self, b: SBlockId, term: STerm, span: Span) {
        self.blocks[b].term = term;
        self.blocks[b].term_span = span;
    }

    /// Lowers a statement list starting in block `cur`; returns the block control falls out
    /// of, or `None` when every path ended in break/continue/return.
    fn stmts(&mut self, stmts: &[ast::Stmt], mut cur: SBlockId) -> Option<SBlockId> {
        for s in stmts {
            cur = self.stmt(s, cur)?;
        }
        Some(cur)
    }

    fn stmt(&mut self, s: &ast::Stmt, cur: SBlockId) -> Option<SBlockId> {
        let span = s.span;
        self.tags.clone_from(&s.tags);
        match &s.kind {
            StmtKind::Assign { reg, value } => {
                let dst = self.reg(reg);
                if let ExprKind::SgOp(op, args) = &value.kind {
                    let args = args.iter().map(|a| self.expr(a, cur)).collect();
                    self.emit(cur, Op::SgOp { dst, op: *op, args }, span);
                } else {
                    let value = self.expr(value, cur);
                    self.emit(cur, Op::Local { dst, value }, span);
                }
            }
            StmtKind::Load { reg, global, index } => {
                let loc = self.loc(global, index.as_ref(), cur);
                let dst = self.reg(reg);
                self.emit(cur, Op::Load { dst, loc }, span);
            }
            StmtKind::Store {
                global,
                index,
                value,
            } => {
                let loc = self.loc(global, index.as_ref(), cur);
                let value = self.expr(value, cur);
                self.emit(cur, Op::Store { loc, value }, span);
            }
            StmtKind::Atomic {
                reg,
                op,
                global,
                index,
                args,
            } => {
                let loc = self.loc(global, index.as_ref(), cur);
                let args = args.iter().map(|a| self.expr(a, cur)).collect();
                let dst = reg.as_ref().map(|r| self.reg(r));
                self.emit(
                    cur,
                    Op::Atomic {
                        dst,
                        op: *op,
                        loc,
                        args,
                    },
                    span,
                );
            }
            StmtKind::Barrier(ast::BarrierScope::Subgroup) => {
                self.emit(cur, Op::SubgroupBarrier, span)
            }
            StmtKind::Barrier(ast::BarrierScope::Workgroup) => {
                self.emit(cur, Op::WorkgroupBarrier, span)
            }
            StmtKind::Barrier(ast::BarrierScope::Quorum { name, quorum }) => self.emit(
                cur,
                Op::QuorumBarrier {
                    name: *name,
                    quorum: *quorum,
                },
                span,
            ),
            StmtKind::Fence { id } => {
                let id = id.as_ref().map(|e| self.expr(e, cur));
                self.emit(cur, Op::Fence { id }, span)
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let cond = self.expr(cond, cur);
                let then_b = self.new_block(Role::Then, first_span(then_body, span));
                let merge = self.new_block(Role::IfMerge, span);
                let else_b = if else_body.is_empty() {
                    merge
                } else {
                    self.new_block(Role::Else, first_span(else_body, span))
                };
                self.end(
                    cur,
                    STerm::Branch {
                        cond,
                        then_to: then_b,
                        else_to: else_b,
                    },
                    span,
                );
                if let Some(end) = self.stmts(then_body, then_b) {
                    self.end(end, STerm::Jump(merge), span);
                }
                if else_b != merge {
                    if let Some(end) = self.stmts(else_body, else_b) {
                        self.end(end, STerm::Jump(merge), span);
                    }
                }
                return Some(merge);
            }
            StmtKind::While { cond, body } => {
                return Some(self.looping(Some(cond), &[], body, cur, span));
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                let cur = match init {
                    Some(init) => self.stmt(init, cur)?,
                    None => cur,
                };
                let step: Vec<ast::Stmt> = step.iter().map(|s| (**s).clone()).collect();
                return Some(self.looping(cond.as_ref(), &step, body, cur, span));
            }
            StmtKind::Loop { body, continuing } => {
                return Some(self.looping(None, continuing, body, cur, span))
            }
            StmtKind::Break => {
                let l = *self.loop_stack.last().expect("front end checked break");
                let merge = self.loops[l].merge;
                self.end(cur, STerm::Jump(merge), span);
                return None;
            }
            StmtKind::Continue => {
                let l = *self.loop_stack.last().expect("front end checked continue");
                let cont = self.loops[l].cont;
                self.end(cur, STerm::Jump(cont), span);
                return None;
            }
            StmtKind::Return => {
                self.end(cur, STerm::Return, span);
                return None;
            }
            // Undefined behaviour where it is reached; the thread ends there.
            StmtKind::Unreachable => {
                self.emit(cur, Op::Unreachable, span);
                self.end(cur, STerm::Return, span);
                return None;
            }
        }
        Some(cur)
    }

    /// Lowers a loop entered from `cur`; returns its merge block.
    fn looping(
        &mut self,
        cond: Option<&ast::Expr>,
        step: &[ast::Stmt],
        body: &[ast::Stmt],
        cur: SBlockId,
        span: Span,
    ) -> SBlockId {
        let merge = self.new_block(Role::LoopMerge, span);
        let id = self.loops.len();
        self.loops.push(LoopInfo {
            header: 0,
            cont: 0,
            merge,
        });
        self.loop_stack.push(id);
        let header = self.new_block(Role::LoopHeader, span);
        let body_b = self.new_block(Role::LoopBody, first_span(body, span));
        let cont = self.new_block(Role::Continue, step.first().map_or(span, |s| s.span));
        self.loops[id].header = header;
        self.loops[id].cont = cont;
        self.end(cur, STerm::Jump(header), span);
        match cond {
            Some(c) => {
                let c = self.expr(c, header);
                self.end(
                    header,
                    STerm::Branch {
                        cond: c,
                        then_to: body_b,
                        else_to: merge,
                    },
                    span,
                );
            }
            None => self.end(header, STerm::Jump(body_b), span),
        }
        if let Some(end) = self.stmts(body, body_b) {
            self.end(end, STerm::Jump(cont), span);
        }
        // The continue construct (a `for` step, a shader's `continuing` block) may end in a
        // `break` (`break if`); its fall-through goes back to the header.
        if let Some(cont_end) = self.stmts(step, cont) {
            self.end(cont_end, STerm::Jump(header), span);
        }
        self.loop_stack.pop();
        merge
    }

    fn loc(&mut self, global: &str, index: Option<&ast::Expr>, cur: SBlockId) -> Loc {
        let global = self.global(global);
        let index = match index {
            Some(e) => self.expr(e, cur),
            None => Expr::Lit(0),
        };
        Loc { global, index }
    }

    /// Lowers an expression, hoisting its subgroup ops into `cur` (innermost first, left to
    /// right) and replacing each by the hidden register it writes.
    fn expr(&mut self, e: &ast::Expr, cur: SBlockId) -> Expr {
        match &e.kind {
            ExprKind::Lit(v) => Expr::Lit(*v),
            ExprKind::Reg(r) => Expr::Reg(self.reg(r)),
            ExprKind::Builtin(b) => Expr::Builtin(*b),
            ExprKind::Unary(op, a) => Expr::Unary(*op, Box::new(self.expr(a, cur))),
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(a, cur);
                let b = self.expr(b, cur);
                Expr::Binary(*op, Box::new(a), Box::new(b))
            }
            ExprKind::Ternary(c, a, b) => {
                let c = self.expr(c, cur);
                let a = self.expr(a, cur);
                let b = self.expr(b, cur);
                Expr::Ternary(Box::new(c), Box::new(a), Box::new(b))
            }
            ExprKind::Call(f, args) => {
                Expr::Call(*f, args.iter().map(|a| self.expr(a, cur)).collect())
            }
            ExprKind::SgOp(op, args) => {
                let args = args.iter().map(|a| self.expr(a, cur)).collect();
                let dst = self.temp(e);
                self.emit(cur, Op::SgOp { dst, op: *op, args }, e.span);
                Expr::Reg(dst)
            }
        }
    }

    fn prop(&mut self, p: &ast::Prop, obs: &mut Vec<Observable>) -> Prop {
        match p {
            ast::Prop::True => Prop::Const(true),
            ast::Prop::False => Prop::Const(false),
            ast::Prop::Not(a) => Prop::Not(Box::new(self.prop(a, obs))),
            ast::Prop::And(a, b) => {
                Prop::And(Box::new(self.prop(a, obs)), Box::new(self.prop(b, obs)))
            }
            ast::Prop::Or(a, b) => {
                Prop::Or(Box::new(self.prop(a, obs)), Box::new(self.prop(b, obs)))
            }
            ast::Prop::Cmp(op, a, b) => Prop::Cmp(*op, self.term(a, obs), self.term(b, obs)),
            ast::Prop::Truthy(a) => Prop::Truthy(self.term(a, obs)),
        }
    }

    fn term(&mut self, o: &ast::Operand, obs: &mut Vec<Observable>) -> PropTerm {
        let ob = match o {
            ast::Operand::Lit(v) => return PropTerm::Lit(*v),
            ast::Operand::Reg { thread, reg } => Observable::Reg {
                thread: *thread,
                reg: self.reg(reg),
            },
            ast::Operand::Mem { global, index } => {
                let g = &self.globals[self.global(global) as usize];
                Observable::Mem {
                    cell: g.base + index,
                }
            }
        };
        let i = match obs.iter().position(|x| *x == ob) {
            Some(i) => i,
            None => {
                obs.push(ob);
                obs.len() - 1
            }
        };
        PropTerm::Obs(i)
    }
}

fn first_span(body: &[ast::Stmt], fallback: Span) -> Span {
    body.first().map_or(fallback, |s| s.span)
}
