//! The kernel: statements and expressions (litmus-format.md, "Kernel statements").
//!
//! Where a global may stand is decided here, by the statement form: the whole right side of a
//! load, the whole left side of a store, the first argument of an atomic. Everywhere else the
//! expression parser refuses it, so an `Expr` never names a global.

use super::{arguments, is_kernel_keyword, PResult, Parser, Stop};
use crate::syntax::ast::{BarrierScope, Expr, ExprKind, Stmt, StmtKind};
use crate::syntax::diag::Span;
use crate::syntax::lexer::{Punct, Tok};
use crate::vocab::{AtomicOp, BinOp, Builtin, LocalFn, SgOp, UnOp};

/// The hidden register that receives the value of a subgroup op written as a statement
/// (`subgroupAll(true);`). `$` cannot start an identifier, so no user register clashes.
pub const DISCARD: &str = "$discard";

/// The error for a global anywhere but where the format allows one.
fn misplaced_global(name: &str) -> String {
    format!(
        "global `{name}` may only be the whole right side of a load, the whole left side of a \
         store, or the first argument of an atomic"
    )
}

/// What an `atomic*` call stands for.
#[derive(Clone, Copy)]
enum AtomicKind {
    /// `atomicLoad(a[i])`: a plain load.
    Load,
    /// `atomicStore(a[i], v)`: a plain store.
    Store,
    /// A read-modify-write.
    Rmw(AtomicOp),
}

impl AtomicKind {
    fn from_name(name: &str) -> Option<AtomicKind> {
        match name {
            "atomicLoad" => Some(AtomicKind::Load),
            "atomicStore" => Some(AtomicKind::Store),
            _ => AtomicOp::from_name(name).map(AtomicKind::Rmw),
        }
    }

    /// Arguments after the global.
    fn value_args(self) -> usize {
        match self {
            AtomicKind::Load => 0,
            AtomicKind::Store => 1,
            AtomicKind::Rmw(op) => op.value_args(),
        }
    }
}

/// `x` or `a[i]`, as the target of a load, store or atomic.
struct Access {
    global: String,
    index: Option<Expr>,
    span: Span,
}

/// `atomicXxx(a[i], args...)`.
struct AtomicCall {
    kind: AtomicKind,
    name: String,
    name_span: Span,
    access: Access,
    args: Vec<Expr>,
}

/// Binary operators with their C precedence (higher binds tighter).
fn binary_op(tok: &Tok) -> Option<(BinOp, u8)> {
    use Punct::*;
    let Tok::Punct(p) = tok else {
        return None;
    };
    Some(match p {
        OrOr => (BinOp::LOr, 1),
        AndAnd => (BinOp::LAnd, 2),
        Pipe => (BinOp::BitOr, 3),
        Caret => (BinOp::BitXor, 4),
        Amp => (BinOp::BitAnd, 5),
        Eq => (BinOp::Eq, 6),
        Ne => (BinOp::Ne, 6),
        Lt => (BinOp::Lt, 7),
        Le => (BinOp::Le, 7),
        Gt => (BinOp::Gt, 7),
        Ge => (BinOp::Ge, 7),
        Shl => (BinOp::Shl, 8),
        Shr => (BinOp::Shr, 8),
        Plus => (BinOp::Add, 9),
        Minus => (BinOp::Sub, 9),
        Star => (BinOp::Mul, 10),
        Slash => (BinOp::Div, 10),
        Percent => (BinOp::Rem, 10),
        _ => return None,
    })
}

fn unary_op(tok: &Tok) -> Option<UnOp> {
    match tok {
        Tok::Punct(Punct::Minus) => Some(UnOp::Neg),
        Tok::Punct(Punct::Tilde) => Some(UnOp::BitNot),
        Tok::Punct(Punct::Not) => Some(UnOp::Not),
        _ => None,
    }
}

impl Parser<'_> {
    // ---- statements ---------------------------------------------------------------------

    /// `{ statements }`; `context` completes "expected `{` ..." when the brace is missing.
    pub(super) fn block(&mut self, context: &str) -> PResult<Vec<Stmt>> {
        let open = self.expect(Punct::LBrace, context)?;
        self.nested(|p| p.statements(open))
    }

    /// Statements up to the `}` that closes the block opened at `open`, recovering from an
    /// error in one statement by skipping to the end of it.
    ///
    /// Reaching the final condition means a `}` is missing: that is reported once, here
    /// (the enclosing blocks report the same position, which is deduplicated), and the block
    /// is treated as closed so that the condition still parses.
    fn statements(&mut self, open: Span) -> PResult<Vec<Stmt>> {
        let mut body = Vec::new();
        let unclosed = format!(
            "`}}` to close the block opened at line {}, column {}",
            open.line, open.col
        );
        loop {
            match self.peek().tok {
                Tok::Punct(Punct::RBrace) => {
                    self.bump();
                    return Ok(body);
                }
                Tok::Eof { .. } => return Err(self.expected(&unclosed)),
                _ if self.at_condition() => {
                    self.expected(&unclosed);
                    return Ok(body);
                }
                _ => match self.statement() {
                    Ok(stmt) => body.push(stmt),
                    Err(Stop) if self.fatal => return Err(Stop),
                    Err(Stop) => self.synchronize(),
                },
            }
        }
    }

    /// Whether the next tokens start the final condition rather than a statement
    /// (`exists = 1;` is an assignment to a register named `exists`).
    fn at_condition(&self) -> bool {
        let next = &self.peek_at(1).tok;
        ((self.at_word("exists") || self.at_word("forall")) && *next != Tok::Punct(Punct::Assign))
            || (self.at(Punct::Tilde) && next.is_word("exists"))
    }

    /// Error recovery: skips to just after the next `;`, or past a `{ ... }` group (and any
    /// `else` group following it), or up to a `}` that closes the enclosing block.
    fn synchronize(&mut self) {
        let mut braces = 0u32;
        loop {
            match self.peek().tok {
                Tok::Eof { .. } => return,
                Tok::Punct(Punct::Semi) if braces == 0 => {
                    self.bump();
                    return;
                }
                Tok::Punct(Punct::LBrace) => braces += 1,
                Tok::Punct(Punct::RBrace) => {
                    if braces == 0 {
                        return;
                    }
                    braces -= 1;
                    if braces == 0 && !self.peek_at(1).tok.is_word("else") {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// The body of `if`, `else`, `while`, `for` or `loop`: a block or a single statement.
    fn body(&mut self) -> PResult<Vec<Stmt>> {
        if self.at(Punct::LBrace) {
            self.block("")
        } else {
            self.nested(|p| Ok(vec![p.statement()?]))
        }
    }

    /// A body inside which `break` and `continue` are allowed.
    fn loop_body(&mut self) -> PResult<Vec<Stmt>> {
        self.loops += 1;
        let body = self.body();
        self.loops -= 1;
        body
    }

    fn statement(&mut self) -> PResult<Stmt> {
        let start = self.peek().span;
        let kind = self.statement_kind(start)?;
        Ok(Stmt {
            kind,
            span: self.span_from(start),
            tags: std::mem::take(&mut self.tags),
        })
    }

    /// Chooses the statement form from its first tokens and parses it. Each form has its own
    /// function and every arm is a plain call: nested statements recurse through here, and in
    /// a debug build each temporary of each arm would otherwise cost stack at every level.
    fn statement_kind(&mut self, start: Span) -> PResult<StmtKind> {
        let call = self.peek_at(1).tok == Tok::Punct(Punct::LParen);
        match self.peek_ident().as_deref() {
            Some("if") => self.if_stmt(),
            Some("while") => self.while_stmt(),
            Some("for") => self.for_stmt(),
            Some("loop") => self.loop_stmt(),
            Some(word @ ("break" | "continue" | "return")) => self.jump_stmt(word),
            // Not a keyword: `unreachable` is a name anywhere but alone before `;`.
            Some("unreachable") if self.peek_at(1).tok == Tok::Punct(Punct::Semi) => {
                self.bump();
                self.bump();
                Ok(StmtKind::Unreachable)
            }
            Some("else") => Err(self.fail(start, "`else` without a matching `if`")),
            Some(name @ ("subgroupBarrier" | "barrier")) if call => self.barrier_stmt(name),
            Some("fence") if call => self.fence_stmt(),
            Some(name) if call && AtomicKind::from_name(name).is_none() => self.call_stmt(),
            Some(_) => self.simple_stmt_and_semicolon(),
            None if self.at(Punct::LBrace) => Err(self.fail(
                start,
                "a block `{ ... }` may only follow `if`, `else`, `while`, `for` or `loop`",
            )),
            None => Err(self.expected("a statement")),
        }
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_condition("while")?;
        let body = self.loop_body()?;
        Ok(StmtKind::While { cond, body })
    }

    fn loop_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let body = self.loop_body()?;
        Ok(StmtKind::Loop {
            body,
            continuing: Vec::new(),
        })
    }

    /// `break;`, `continue;` or `return;`.
    fn jump_stmt(&mut self, word: &str) -> PResult<StmtKind> {
        let keyword = self.bump().span;
        let kind = match word {
            "break" => StmtKind::Break,
            "continue" => StmtKind::Continue,
            _ => StmtKind::Return,
        };
        if self.loops == 0 && word != "return" {
            self.report(keyword, format!("`{word}` outside of a loop"));
        }
        self.expect(Punct::Semi, &format!("after `{word}`"))?;
        Ok(kind)
    }

    /// `subgroupBarrier();` or `barrier();`
    fn barrier_stmt(&mut self, name: &str) -> PResult<StmtKind> {
        let scope = if name == "barrier" {
            BarrierScope::Workgroup
        } else {
            BarrierScope::Subgroup
        };
        self.bump();
        self.bump(); // `(`
        let mut scope = scope;
        let mut comma_first = false;
        if name == "barrier"
            && self.at_word("quorum")
            && self.peek_at(1).tok == Tok::Punct(Punct::LParen)
        {
            scope = self.quorum()?;
            comma_first = true;
        }
        if !self.eat(Punct::RParen) {
            self.tag_words(name, comma_first)?;
        }
        self.expect(Punct::Semi, "after the statement")?;
        Ok(StmtKind::Barrier(scope))
    }

    /// `quorum(NAME, N)` inside `barrier(...)`: N of at least 1.
    fn quorum(&mut self) -> PResult<BarrierScope> {
        self.bump();
        self.bump(); // `(`
        let number = |p: &mut Self, what: &str| -> PResult<(u32, Span)> {
            let token = p.peek().clone();
            if !matches!(token.tok, Tok::Int(_)) {
                return Err(p.expected(what));
            }
            p.bump();
            Ok((p.int_value(&token), token.span))
        };
        let (name, _) = number(self, "the barrier's name (a number) in `quorum(NAME, N)`")?;
        self.expect(
            Punct::Comma,
            "between the name and the quorum in `quorum(NAME, N)`",
        )?;
        // (A quorum of 0 is refused by `validate`, for every front end.)
        let (quorum, _) = number(self, "the number of threads in `quorum(NAME, N)`")?;
        self.expect(Punct::RParen, "to close `quorum(NAME, N)`")?;
        Ok(BarrierScope::Quorum { name, quorum })
    }

    /// `fence(acq_rel, workgroup);`: a memory barrier, its tags naming what it orders;
    /// `fence(id(EXPR), ...)` gives it a run-time id.
    fn fence_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.bump(); // `(`
        let mut id = None;
        if self.at_word("id") && self.peek_at(1).tok == Tok::Punct(Punct::LParen) {
            self.bump();
            self.bump(); // `(`
            id = Some(self.expression()?);
            self.expect(Punct::RParen, "to close `id(EXPR)`")?;
            if !self.eat(Punct::RParen) {
                self.tag_words("fence", true)?;
            }
        } else {
            self.tag_words("fence", false)?;
        }
        self.expect(Punct::Semi, "after the statement")?;
        Ok(StmtKind::Fence { id })
    }

    /// Memory tag words up to the closing `)` (after a `,` when `comma_first`), collected
    /// into `self.tags` for the statement being read.
    fn tag_words(&mut self, what: &str, mut comma_first: bool) -> PResult<()> {
        loop {
            if comma_first && !self.eat(Punct::Comma) {
                return Err(self.expected(&format!("`,` or `)` in the arguments of `{what}`")));
            }
            comma_first = true;
            let token = self.peek().clone();
            // A quoted tag is taken as written: any name a memory model reads (`"R:ACQ"`,
            // `"GEN"`), as `tangle show` prints the tags a dialect gives that have no word.
            if let Tok::Str(raw) = &token.tok {
                if raw.is_empty() || raw.chars().any(|c| c.is_whitespace() || c == '"') {
                    return Err(self.fail(token.span, "a quoted tag is one name without spaces"));
                }
                self.bump();
                if !self.tags.iter().any(|x| x == raw) {
                    self.tags.push(raw.clone());
                }
                if self.eat(Punct::RParen) {
                    return Ok(());
                }
                continue;
            }
            let word = token.tok.word().map(str::to_string).unwrap_or_else(|| {
                self.text
                    .get(token.span.start as usize..token.span.end as usize)
                    .unwrap_or("?")
                    .to_string()
            });
            match crate::vocab::memory_tags(&word) {
                Some(tags) => {
                    self.bump();
                    for t in tags {
                        if !self.tags.iter().any(|x| x == t) {
                            self.tags.push(t.to_string());
                        }
                    }
                }
                None => {
                    let known: Vec<&str> =
                        crate::vocab::MEMORY_TAG_WORDS.iter().map(|w| w.0).collect();
                    return Err(self.fail(
                        token.span,
                        format!(
                            "expected a memory order, scope or tag in `{what}` ({}), found `{}`",
                            known.join(", "),
                            if word.is_empty() { "the end" } else { &word }
                        ),
                    ));
                }
            }
            if self.eat(Punct::RParen) {
                return Ok(());
            }
        }
    }

    fn simple_stmt_and_semicolon(&mut self) -> PResult<StmtKind> {
        let kind = self.simple_stmt()?;
        self.expect(Punct::Semi, "after the statement")?;
        Ok(kind)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_condition("if")?;
        let then_body = self.body()?;
        let else_body = if self.at_word("else") {
            self.bump();
            self.body()?
        } else {
            Vec::new()
        };
        Ok(StmtKind::If {
            cond,
            then_body,
            else_body,
        })
    }

    /// `( expr )` after `if` or `while`.
    fn paren_condition(&mut self, keyword: &str) -> PResult<Expr> {
        self.expect(Punct::LParen, &format!("after `{keyword}`"))?;
        let cond = self.expression()?;
        self.expect(
            Punct::RParen,
            &format!("to close the condition of `{keyword}`"),
        )?;
        Ok(cond)
    }

    /// `for (init; cond; step) body`, each of the three parts optional.
    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect(Punct::LParen, "after `for`")?;
        let init = if self.at(Punct::Semi) {
            None
        } else {
            Some(Box::new(self.spanned_simple_stmt()?))
        };
        self.expect(Punct::Semi, "after the initialisation of `for`")?;
        let cond = if self.at(Punct::Semi) {
            None
        } else {
            Some(self.expression()?)
        };
        self.expect(Punct::Semi, "after the condition of `for`")?;
        let step = if self.at(Punct::RParen) {
            None
        } else {
            Some(Box::new(self.spanned_simple_stmt()?))
        };
        self.expect(Punct::RParen, "to close `for (...)`")?;
        let body = self.loop_body()?;
        Ok(StmtKind::For {
            init,
            cond,
            step,
            body,
        })
    }

    /// A call standing alone: only a subgroup op makes sense there (its value is discarded,
    /// but it still synchronises the subgroup).
    fn call_stmt(&mut self) -> PResult<StmtKind> {
        let start = self.peek().span;
        let value = self.expression()?;
        match &value.kind {
            ExprKind::SgOp(..) => {}
            ExprKind::Call(f, _) => self.report(
                start,
                format!(
                    "the value of `{}` is unused: assign it to a register (`r = ...;`)",
                    f.name()
                ),
            ),
            _ => self.report(
                start,
                "only a subgroup operation can stand alone as a statement: assign the value to a register (`r = ...;`)",
            ),
        }
        self.expect(Punct::Semi, "after the statement")?;
        Ok(StmtKind::Assign {
            reg: DISCARD.into(),
            value,
        })
    }

    fn spanned_simple_stmt(&mut self) -> PResult<Stmt> {
        let start = self.peek().span;
        let kind = self.simple_stmt()?;
        Ok(Stmt {
            kind,
            span: self.span_from(start),
            tags: Vec::new(),
        })
    }

    /// An assignment, load, store or atomic, without its terminator (so that it also serves
    /// as the initialisation and step of `for`).
    fn simple_stmt(&mut self) -> PResult<StmtKind> {
        const WHAT: &str = "an assignment, a store or an atomic";
        let token = self.peek().clone();
        let Tok::Ident(name) = &token.tok else {
            return Err(self.expected(WHAT));
        };
        let call = self.peek_at(1).tok == Tok::Punct(Punct::LParen);
        if call && AtomicKind::from_name(name).is_some() {
            let call = self.atomic_call()?;
            let Access { global, index, .. } = call.access;
            let mut args = call.args;
            return match call.kind {
                AtomicKind::Load => Err(self.fail(
                    call.name_span,
                    "the value of `atomicLoad` must be assigned to a register: `r = atomicLoad(...);`",
                )),
                AtomicKind::Store => Ok(StmtKind::Store {
                    global,
                    index,
                    value: args.pop().ok_or(Stop)?,
                }),
                AtomicKind::Rmw(op) => Ok(StmtKind::Atomic {
                    reg: None,
                    op,
                    global,
                    index,
                    args,
                }),
            };
        }
        if self.global(name).is_some() {
            let access = self.access()?;
            self.expect(
                Punct::Assign,
                &format!(
                    "after `{}` (a store is `{} = value;`)",
                    access.global, access.global
                ),
            )?;
            let value = self.expression()?;
            return Ok(StmtKind::Store {
                global: access.global,
                index: access.index,
                value,
            });
        }
        if Builtin::from_name(name).is_some() {
            return Err(self.fail(
                token.span,
                format!("cannot assign to the built-in `{name}`"),
            ));
        }
        if is_kernel_keyword(name) {
            if self.peek_at(1).tok == Tok::Punct(Punct::Assign) {
                return Err(self.fail(
                    token.span,
                    format!("`{name}` is a keyword, not a register name"),
                ));
            }
            return Err(self.expected(WHAT));
        }
        let reg = name.clone();
        self.bump();
        if self.at(Punct::LBracket) {
            let span = self.peek().span;
            return Err(self.fail(
                span,
                format!("`{reg}` is not a global array, so it cannot be indexed"),
            ));
        }
        self.expect(Punct::Assign, &format!("after `{reg}`"))?;
        self.assignment_value(reg)
    }

    /// The right side of `reg = ...`: a load, an atomic, or an expression.
    fn assignment_value(&mut self, reg: String) -> PResult<StmtKind> {
        let token = self.peek().clone();
        let Tok::Ident(name) = &token.tok else {
            let value = self.expression()?;
            return Ok(StmtKind::Assign { reg, value });
        };
        let call = self.peek_at(1).tok == Tok::Punct(Punct::LParen);
        if call && AtomicKind::from_name(name).is_some() {
            let call = self.atomic_call()?;
            if self.continues_expression() {
                return Err(self.fail(
                    call.name_span,
                    format!(
                        "`{}` must be the whole right side of the assignment",
                        call.name
                    ),
                ));
            }
            let Access { global, index, .. } = call.access;
            return match call.kind {
                AtomicKind::Load => Ok(StmtKind::Load { reg, global, index }),
                AtomicKind::Store => Err(self.fail(
                    call.name_span,
                    "`atomicStore` returns no value: write `atomicStore(a[i], v);` on its own",
                )),
                AtomicKind::Rmw(op) => Ok(StmtKind::Atomic {
                    reg: Some(reg),
                    op,
                    global,
                    index,
                    args: call.args,
                }),
            };
        }
        if !call && self.global(name).is_some() {
            let access = self.access()?;
            if self.continues_expression() {
                return Err(self.fail(access.span, misplaced_global(&access.global)));
            }
            return Ok(StmtKind::Load {
                reg,
                global: access.global,
                index: access.index,
            });
        }
        let value = self.expression()?;
        Ok(StmtKind::Assign { reg, value })
    }

    /// Whether the next token would extend an expression (so what came before was not the
    /// whole right side).
    fn continues_expression(&self) -> bool {
        binary_op(&self.peek().tok).is_some() || self.at(Punct::Question)
    }

    /// `atomicXxx(x, ...)` or `atomicXxx(a[i], ...)`, with its arity checked.
    fn atomic_call(&mut self) -> PResult<AtomicCall> {
        let name_token = self.bump();
        let Some((name, kind)) = name_token
            .tok
            .word()
            .and_then(|n| Some((n.to_string(), AtomicKind::from_name(n)?)))
        else {
            return Err(Stop);
        };
        let (access, args) = self.nested(|p| {
            p.bump(); // `(`, checked by the caller
            let access = match p.peek_ident() {
                Some(g) if p.global(&g).is_some() => p.access()?,
                _ => {
                    return Err(p.expected(&format!(
                        "a global (`x` or `a[i]`) as the first argument of `{name}`"
                    )))
                }
            };
            let mut args = Vec::new();
            while !p.eat(Punct::RParen) {
                if args.len() == kind.value_args() {
                    // Past the values: memory order, scope and tags.
                    p.tag_words(&name, true)?;
                    let atomic = !matches!(kind, AtomicKind::Load | AtomicKind::Store)
                        || p.tags
                            .iter()
                            .any(|t| ["RLX", "ACQ", "REL", "SC"].contains(&t.as_str()));
                    if atomic && !p.tags.iter().any(|t| t == "A") {
                        p.tags.push("A".into());
                    }
                    break;
                }
                if !p.eat(Punct::Comma) {
                    return Err(p.expected(&format!("`,` or `)` in the arguments of `{name}`")));
                }
                args.push(p.expression()?);
            }
            Ok((access, args))
        })?;
        let expected = kind.value_args() + 1;
        if args.len() + 1 != expected {
            self.wrong_arity(&name, name_token.span, expected, args.len() + 1);
            return Err(Stop);
        }
        Ok(AtomicCall {
            kind,
            name,
            name_span: name_token.span,
            access,
            args,
        })
    }

    /// `x` or `a[i]` where the next token names a global; a scalar may not be indexed and an
    /// array must be.
    fn access(&mut self) -> PResult<Access> {
        let token = self.bump();
        let name = token.tok.word().unwrap_or_default().to_string();
        let is_array = self.global(&name).is_some_and(|g| g.len.is_some());
        let index = if self.at(Punct::LBracket) {
            if !is_array {
                let span = self.peek().span;
                return Err(self.fail(span, super::scalar_indexed(&name)));
            }
            self.bump();
            let index = self.nested(|p| p.expression())?;
            self.expect(Punct::RBracket, &format!("to close the index of `{name}`"))?;
            Some(index)
        } else {
            if is_array {
                return Err(self.fail(token.span, super::array_unindexed(&name)));
            }
            None
        };
        Ok(Access {
            global: name,
            index,
            span: self.span_from(token.span),
        })
    }

    // ---- expressions --------------------------------------------------------------------

    /// A complete expression (not part of a larger one): parsed, then checked for subgroup
    /// ops in conditionally evaluated positions.
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        let expr = self.ternary()?;
        self.check_conditional_sgops(&expr, false);
        Ok(expr)
    }

    /// `c ? a : b` (right-associative, lowest precedence) or a binary expression.
    fn ternary(&mut self) -> PResult<Expr> {
        let cond = self.binary(0)?;
        if self.eat(Punct::Question) {
            self.ternary_branches(cond)
        } else {
            Ok(cond)
        }
    }

    /// `a : b` after `cond ?`.
    fn ternary_branches(&mut self, cond: Expr) -> PResult<Expr> {
        let then = self.nested(|p| p.ternary())?;
        self.expect(Punct::Colon, "in the conditional expression `c ? a : b`")?;
        let otherwise = self.nested(|p| p.ternary())?;
        let span = self.span_from(cond.span);
        Ok(Expr {
            kind: ExprKind::Ternary(Box::new(cond), Box::new(then), Box::new(otherwise)),
            span,
        })
    }

    /// Precedence climbing over the operators binding at least as tight as `min_prec`.
    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let first = self.unary()?;
        self.left_assoc(
            first,
            |p| binary_op(&p.peek().tok).filter(|&(_, prec)| prec >= min_prec),
            |p, (_, prec)| p.binary(prec + 1),
            |p, (op, _), lhs, rhs| Expr {
                span: p.span_from(lhs.span),
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
            },
        )
    }

    fn unary(&mut self) -> PResult<Expr> {
        let Some(op) = unary_op(&self.peek().tok) else {
            return self.primary();
        };
        let start = self.bump().span;
        let operand = self.nested(|p| p.unary())?;
        Ok(Expr {
            kind: ExprKind::Unary(op, Box::new(operand)),
            span: self.span_from(start),
        })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let token = self.peek().clone();
        match &token.tok {
            Tok::Int(_) => {
                self.bump();
                let value = self.int_value(&token);
                Ok(Expr {
                    kind: ExprKind::Lit(value),
                    span: token.span,
                })
            }
            Tok::Punct(Punct::LParen) => self.parenthesised(),
            Tok::Ident(name) if self.peek_at(1).tok == Tok::Punct(Punct::LParen) => {
                self.call(name.clone(), token.span)
            }
            Tok::Ident(name) => self.name(name.clone(), token.span),
            _ => Err(self.expected("an expression")),
        }
    }

    /// `( expr )`
    fn parenthesised(&mut self) -> PResult<Expr> {
        self.bump();
        let inner = self.nested(|p| p.ternary())?;
        self.expect(Punct::RParen, "to close `(`")?;
        Ok(inner)
    }

    /// A name read in an expression: a literal keyword, built-in or register. A global is
    /// reported (and its index skipped) but parsing goes on.
    fn name(&mut self, name: String, span: Span) -> PResult<Expr> {
        let kind = match name.as_str() {
            "true" => ExprKind::Lit(1),
            "false" => ExprKind::Lit(0),
            _ if is_kernel_keyword(&name) => return Err(self.expected("an expression")),
            _ => {
                if let Some(builtin) = Builtin::from_name(&name) {
                    ExprKind::Builtin(builtin)
                } else if self.global(&name).is_some() {
                    self.bump();
                    self.report(span, misplaced_global(&name));
                    if self.eat(Punct::LBracket) {
                        self.nested(|p| p.ternary())?;
                        self.expect(Punct::RBracket, &format!("to close the index of `{name}`"))?;
                    }
                    return Ok(Expr {
                        kind: ExprKind::Lit(0),
                        span,
                    });
                } else {
                    if !self.registers.contains(&name) {
                        self.report(
                            span,
                            format!(
                                "unknown name `{}`: not a register assigned in the kernel, a global, or a built-in",
                                crate::syntax::lexer::shorten(&name)
                            ),
                        );
                        let known = self.value_names();
                        self.suggest(&name, known.iter().map(String::as_str));
                    }
                    ExprKind::Reg(name)
                }
            }
        };
        self.bump();
        Ok(Expr { kind, span })
    }

    /// `name(args)`: a subgroup op or a ballot helper, with its arity checked.
    fn call(&mut self, name: String, span: Span) -> PResult<Expr> {
        let (arity, sg_op, local_fn) = if let Some(op) = SgOp::from_name(&name) {
            (op.arity(), Some(op), None)
        } else if let Some(f) = LocalFn::from_name(&name) {
            (f.arity(), None, Some(f))
        } else {
            return Err(self.not_a_function(&name, span));
        };
        self.bump();
        let args = self.nested(|p| p.call_args(&name))?;
        if args.len() != arity {
            self.wrong_arity(&name, span, arity, args.len());
        }
        let kind = match (sg_op, local_fn) {
            (Some(op), _) => ExprKind::SgOp(op, args),
            (None, Some(f)) => ExprKind::Call(f, args),
            (None, None) => return Err(Stop),
        };
        Ok(Expr {
            kind,
            span: self.span_from(span),
        })
    }

    /// The error for calling something that is not a subgroup op or a ballot helper.
    fn not_a_function(&mut self, name: &str, span: Span) -> Stop {
        let why = if AtomicKind::from_name(name).is_some() {
            format!(
                "`{name}` cannot be used inside an expression: an atomic is a statement of \
                 its own, as in `r = {name}(...);`"
            )
        } else if name == "barrier" || name == "subgroupBarrier" {
            format!("`{name}` is a statement, not a value: write `{name}();` on its own")
        } else {
            format!(
                "unknown operation `{}`",
                crate::syntax::lexer::shorten(name)
            )
        };
        let stop = self.fail(span, why);
        let known: Vec<String> = SgOp::all()
            .into_iter()
            .map(SgOp::name)
            .chain(LocalFn::ALL.iter().map(|f| f.name().to_string()))
            .chain(
                crate::vocab::AtomicOp::ALL
                    .iter()
                    .map(|a| a.name().to_string()),
            )
            .chain(["atomicLoad", "atomicStore", "barrier", "subgroupBarrier"].map(String::from))
            .collect();
        self.suggest(name, known.iter().map(String::as_str));
        stop
    }

    fn wrong_arity(&mut self, name: &str, span: Span, expected: usize, found: usize) {
        self.report(
            span,
            format!("`{name}` takes {}, found {found}", arguments(expected)),
        );
    }

    /// `( expr, ... )` after a call's name.
    fn call_args(&mut self, name: &str) -> PResult<Vec<Expr>> {
        self.expect(Punct::LParen, &format!("after `{name}`"))?;
        let mut args = Vec::new();
        if self.eat(Punct::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.ternary()?);
            if self.eat(Punct::RParen) {
                return Ok(args);
            }
            if !self.eat(Punct::Comma) {
                return Err(self.expected(&format!("`,` or `)` in the arguments of `{name}`")));
            }
        }
    }

    /// Reports subgroup ops that would only run on some paths: on the right of `&&`/`||` or
    /// anywhere in `?:`. `conditional` says whether `expr` itself is in such a position.
    /// (Recursion is bounded by the nesting limit.)
    fn check_conditional_sgops(&mut self, expr: &Expr, conditional: bool) {
        match &expr.kind {
            ExprKind::SgOp(op, args) => {
                if conditional {
                    self.report(
                        expr.span,
                        format!(
                            "subgroup operation `{}` may not appear on the right of `&&`/`||` \
                             or inside `?:` (it would run conditionally)",
                            op.name()
                        ),
                    );
                } else {
                    for arg in args {
                        self.check_conditional_sgops(arg, false);
                    }
                }
            }
            ExprKind::Binary(BinOp::LAnd | BinOp::LOr, lhs, rhs) => {
                self.check_conditional_sgops(lhs, conditional);
                self.check_conditional_sgops(rhs, true);
            }
            ExprKind::Binary(_, lhs, rhs) => {
                self.check_conditional_sgops(lhs, conditional);
                self.check_conditional_sgops(rhs, conditional);
            }
            ExprKind::Ternary(cond, then, otherwise) => {
                for part in [cond, then, otherwise] {
                    self.check_conditional_sgops(part, true);
                }
            }
            ExprKind::Unary(_, operand) => self.check_conditional_sgops(operand, conditional),
            ExprKind::Call(_, args) => {
                for arg in args {
                    self.check_conditional_sgops(arg, conditional);
                }
            }
            ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => {}
        }
    }
}
