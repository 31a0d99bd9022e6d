//! The final condition and the `expect` lines (litmus-format.md, "Condition and expectations").
//!
//! The condition reads the final state, so its names differ from the kernel's: registers are
//! written `T:r` (thread T), memory cells are `x` or `a[k]` with a constant k, and built-ins
//! have no meaning.

use super::{PResult, Parser};
use crate::syntax::ast::{Condition, Expectation, LivenessExpectation, Operand, Prop, Quantifier};
use crate::syntax::lexer::{shorten, Punct, Tok};
use crate::vocab::{BinOp, Builtin};

fn comparison(tok: &Tok) -> Option<BinOp> {
    match tok {
        Tok::Punct(Punct::Eq) => Some(BinOp::Eq),
        Tok::Punct(Punct::Ne) => Some(BinOp::Ne),
        Tok::Punct(Punct::Lt) => Some(BinOp::Lt),
        Tok::Punct(Punct::Le) => Some(BinOp::Le),
        Tok::Punct(Punct::Gt) => Some(BinOp::Gt),
        Tok::Punct(Punct::Ge) => Some(BinOp::Ge),
        _ => None,
    }
}

impl Parser<'_> {
    /// `exists P`, `~exists P` or `forall P` (P is usually parenthesised, which the
    /// proposition grammar covers).
    pub(super) fn condition(&mut self) -> Option<Condition> {
        let start = self.peek().span;
        let quantifier = if self.at_word("exists") {
            Quantifier::Exists
        } else if self.at_word("forall") {
            Quantifier::Forall
        } else if self.at(Punct::Tilde) && self.peek_at(1).tok.is_word("exists") {
            self.bump();
            Quantifier::NotExists
        } else {
            self.expected("the final condition (`exists`, `~exists` or `forall`) after the kernel");
            return None;
        };
        self.bump();
        let prop = self.prop_or().ok()?;
        Some(Condition {
            quantifier,
            prop,
            span: self.span_from(start),
        })
    }

    /// `filter P`, when the condition is preceded by one (`filter` is a word only there):
    /// `Some(None)` when there is none, `None` when it has an error (reported where it is).
    pub(super) fn filter(&mut self) -> Option<Option<Prop>> {
        if !self.at_word("filter") {
            return Some(None);
        }
        self.bump();
        self.prop_or().ok().map(Some)
    }

    /// `P || P`, also written `P \/ P`.
    fn prop_or(&mut self) -> PResult<Prop> {
        self.prop_chain(
            |p| p.at(Punct::OrOr) || p.at(Punct::Vee),
            |p| p.prop_and(),
            Prop::Or,
        )
    }

    /// `P && P`, also written `P /\ P`.
    fn prop_and(&mut self) -> PResult<Prop> {
        self.prop_chain(
            |p| p.at(Punct::AndAnd) || p.at(Punct::Wedge),
            |p| p.prop_not(),
            Prop::And,
        )
    }

    /// A flat chain `P op P op ... P` of one connective, read iteratively. Up to
    /// [`LEFT_DEEP`] operands it folds left-deep as an ordinary left-associative operator (each
    /// fold one level of `limits::MAX_DEPTH`); a longer chain (the CTS generator's conditions
    /// are conjunctions of hundreds of terms) is built as a balanced tree, whose height is the
    /// logarithm of its length: a flat chain is not nesting. The printer writes both shapes back
    /// so that they read the same.
    fn prop_chain(
        &mut self,
        at_op: impl Fn(&Self) -> bool,
        operand: impl Fn(&mut Self) -> PResult<Prop>,
        join: fn(Box<Prop>, Box<Prop>) -> Prop,
    ) -> PResult<Prop> {
        let mut parts = vec![operand(self)?];
        let mut entered = 0;
        let result = loop {
            if !at_op(self) {
                break Ok(());
            }
            if entered + 1 < LEFT_DEEP {
                if let Err(stop) = self.enter() {
                    break Err(stop);
                }
                entered += 1;
            }
            self.bump();
            match operand(self) {
                Ok(p) => parts.push(p),
                Err(stop) => break Err(stop),
            }
        };
        self.depth -= entered as u32;
        result?;
        Ok(if parts.len() <= LEFT_DEEP {
            let mut it = parts.into_iter();
            let first = it.next().expect("one operand");
            it.fold(first, |l, r| join(Box::new(l), Box::new(r)))
        } else {
            balanced(parts, join)
        })
    }

    /// `!P`, `( P )` or an atom. (Parentheses are dispatched here rather than in
    /// `prop_atom` to keep that function's large frame off the recursive path.)
    fn prop_not(&mut self) -> PResult<Prop> {
        if self.at(Punct::LParen) {
            return self.prop_parenthesised();
        }
        if !self.eat(Punct::Not) {
            return self.prop_atom();
        }
        let inner = self.nested(|p| p.prop_not())?;
        Ok(Prop::Not(Box::new(inner)))
    }

    /// `a OP b`, a bare `true`/`false`, or a bare operand (true when non-zero).
    fn prop_atom(&mut self) -> PResult<Prop> {
        let next_is_comparison = comparison(&self.peek_at(1).tok).is_some();
        for (word, prop) in [("true", Prop::True), ("false", Prop::False)] {
            if self.at_word(word) && !next_is_comparison {
                self.bump();
                return Ok(prop);
            }
        }
        let lhs = self.operand()?;
        let Some(op) = comparison(&self.peek().tok) else {
            if self.at(Punct::Assign) {
                let stop = self.expected("a comparison (`==`, `!=`, `<`, ...)");
                self.hint(
                    "herd writes `0:r=1`; here a condition compares with `==`, as in `0:r == 1`",
                );
                return Err(stop);
            }
            return Ok(Prop::Truthy(lhs));
        };
        self.bump();
        let rhs = self.operand()?;
        Ok(Prop::Cmp(op, lhs, rhs))
    }

    /// `( P )`
    fn prop_parenthesised(&mut self) -> PResult<Prop> {
        self.bump();
        let inner = self.nested(|p| p.prop_or())?;
        self.expect(Punct::RParen, "to close `(` in the condition")?;
        Ok(inner)
    }

    /// `T:r`, `x`, `a[k]` or a literal.
    fn operand(&mut self) -> PResult<Operand> {
        let token = self.peek().clone();
        match &token.tok {
            Tok::Int(_) if self.peek_at(1).tok == Tok::Punct(Punct::Colon) => {
                self.thread_register()
            }
            Tok::Int(_) | Tok::Punct(Punct::Minus) => {
                Ok(Operand::Lit(self.literal("a number after `-`")?))
            }
            Tok::Ident(w) if w == "true" || w == "false" => {
                Ok(Operand::Lit(self.literal("a value")?))
            }
            Tok::Ident(name) => self.memory_cell(name.clone()),
            _ => Err(self.expected("a value in the condition (`T:r`, a global, or a number)")),
        }
    }

    /// `T:r`: register r of global thread T.
    fn thread_register(&mut self) -> PResult<Operand> {
        let thread_token = self.bump();
        let thread = self.int_value(&thread_token);
        self.bump(); // `:`
        let reg_token = self.peek().clone();
        let Some(reg) = reg_token.tok.word().map(str::to_string) else {
            return Err(self.expected(&format!("a register name after `{thread}:`")));
        };
        self.bump();
        if let Some(g) = self.geometry {
            if thread >= g.threads {
                self.report(
                    thread_token.span,
                    format!(
                        "thread {thread} does not exist: the test has {} threads (0 to {})",
                        g.threads,
                        g.threads - 1
                    ),
                );
            }
        }
        if !self.registers.contains(&reg) {
            let short = shorten(&reg);
            self.report(
                reg_token.span,
                format!(
                    "unknown register `{short}` in `{thread}:{short}`: no register of that name is \
                     assigned in the kernel"
                ),
            );
            let known: Vec<String> = self.registers.iter().cloned().collect();
            self.suggest(&reg, known.iter().map(String::as_str));
        }
        Ok(Operand::Reg { thread, reg })
    }

    /// `x` or `a[k]`: a cell of final memory, k a constant within the array.
    fn memory_cell(&mut self, name: String) -> PResult<Operand> {
        let herd_thread = name.len() > 1
            && (name.starts_with('P') || name.starts_with('T'))
            && name[1..].bytes().all(|b| b.is_ascii_digit())
            && self.peek_at(1).tok == Tok::Punct(Punct::Colon);
        let name_span = self.bump().span;
        if herd_thread {
            let stop = self.fail(
                name_span,
                format!(
                    "`{name}:` is not a thread here: threads are numbered, as in `{}:r`",
                    &name[1..]
                ),
            );
            self.hint(format!(
                "herd's `{name}:r` is written `{}:r` (the global thread index)",
                &name[1..]
            ));
            return Err(stop);
        }
        let Some(len) = self.global(&name).map(|g| g.len) else {
            let why = if self.registers.contains(&name) {
                format!("`{name}` is a register: in the condition, name it with its thread, as in `0:{name}`")
            } else if Builtin::from_name(&name).is_some() {
                format!("the built-in `{name}` has no value in the final state: use `T:r` registers or globals")
            } else {
                format!(
                    "unknown name `{}` in the condition: not a global (registers are written `T:r`)",
                    shorten(&name)
                )
            };
            let stop = self.fail(name_span, why);
            let known: Vec<String> = self.globals.iter().map(|g| g.name.clone()).collect();
            self.suggest(&name, known.iter().map(String::as_str));
            return Err(stop);
        };
        let Some(len) = len else {
            if self.at(Punct::LBracket) {
                let span = self.peek().span;
                return Err(self.fail(span, super::scalar_indexed(&name)));
            }
            return Ok(Operand::Mem {
                global: name,
                index: 0,
            });
        };
        if !self.eat(Punct::LBracket) {
            return Err(self.fail(name_span, super::array_unindexed(&name)));
        }
        let index_token = self.peek().clone();
        if !matches!(index_token.tok, Tok::Int(_)) {
            return Err(self.expected(&format!(
                "a constant index of `{name}` (the condition reads fixed cells of final memory)"
            )));
        }
        self.bump();
        let index = self.int_value(&index_token);
        self.expect(Punct::RBracket, &format!("to close the index of `{name}`"))?;
        if index >= len {
            self.report(
                index_token.span,
                format!(
                    "index {index} is out of range: `{name}` has {len} cells (0 to {})",
                    len - 1
                ),
            );
        }
        Ok(Operand::Mem {
            global: name,
            index,
        })
    }

    /// Any number of `expect M allow|forbid, M allow|forbid, ...` and `expect-liveness
    /// PROGRESS live|violated, ...` lines, accumulated. `None` after an error.
    pub(super) fn expectations(&mut self) -> Option<(Vec<Expectation>, Vec<LivenessExpectation>)> {
        let mut expectations = Vec::new();
        let mut liveness = Vec::new();
        while self.at_word("expect") {
            self.bump();
            if self.at(Punct::Minus) && self.peek_at(1).tok.is_word("liveness") {
                self.bump();
                self.bump();
                liveness.extend(self.liveness_expectations()?);
                continue;
            }
            loop {
                let start = self.peek().span;
                let Some(word) = self.peek_ident() else {
                    self.expected("a model name, `allow` or `forbid` after `expect`");
                    return None;
                };
                let verdict = |w: Option<&str>| matches!(w, Some("allow" | "forbid"));
                // `expect forbid`: an entry for every model (a model named `forbid` still
                // reads as `expect forbid forbid`).
                let model = if verdict(Some(&word)) && !verdict(self.peek_at(1).tok.word()) {
                    None
                } else {
                    self.bump();
                    self.memory_suffix();
                    Some(
                        self.text[start.start as usize..self.span_from(start).end as usize]
                            .to_string(),
                    )
                };
                let allow = match self.peek_ident().as_deref() {
                    Some("allow") => true,
                    Some("forbid") => false,
                    _ => {
                        self.expected(&format!(
                            "`allow` or `forbid` after the model `{}`",
                            shorten(model.as_deref().unwrap_or_default())
                        ));
                        return None;
                    }
                };
                self.bump();
                expectations.push(Expectation {
                    model,
                    allow,
                    span: self.span_from(start),
                });
                if !self.eat(Punct::Comma) {
                    break;
                }
            }
        }
        Some((expectations, liveness))
    }

    /// After an execution model in an expectation, `+MEMORY` (`SSO+vulkan`, `CM+ptx-v7`): the
    /// memory model the entry is about.
    fn memory_suffix(&mut self) {
        if self.at(Punct::Plus) && self.peek_at(1).tok.word().is_some() {
            self.bump();
            self.bump();
            while self.at(Punct::Minus) && self.peek_at(1).tok.word().is_some() {
                self.bump();
                self.bump();
            }
        }
    }

    /// The entries of one `expect-liveness` line, comma-separated: an optional execution
    /// model, a progress model (`fair`, `hsa-obe`, or `[QF=obe,SG=hsa]`), then `live` or
    /// `violated`.
    fn liveness_expectations(&mut self) -> Option<Vec<LivenessExpectation>> {
        let mut out = Vec::new();
        loop {
            let start = self.peek().span;
            let mut words: Vec<(String, crate::diag::Span)> = Vec::new();
            while !matches!(self.peek_ident().as_deref(), Some("live" | "violated")) {
                let from = self.peek().span;
                if self.eat(Punct::LBracket) {
                    while !self.at(Punct::RBracket) {
                        if matches!(self.peek().tok, Tok::Eof { .. }) {
                            self.expected("`]` to close the progress model");
                            return None;
                        }
                        self.bump();
                    }
                    self.bump();
                } else if self.peek_ident().is_some() && words.len() < 2 {
                    self.bump();
                    while self.at(Punct::Minus) && self.peek_at(1).tok.word().is_some() {
                        self.bump();
                        self.bump();
                    }
                    if words.is_empty() {
                        self.memory_suffix();
                    }
                } else if words.is_empty() {
                    self.expected("a progress model after `expect-liveness` (fair, hsa, obe, hsa-obe, lobe, unfair, or [QF=obe,SG=hsa]), optionally after a model");
                    return None;
                } else {
                    self.expected("`live` or `violated`");
                    return None;
                }
                let span = self.span_from(from);
                words.push((
                    self.text[span.start as usize..span.end as usize].to_string(),
                    span,
                ));
            }
            if words.is_empty() {
                self.expected("a progress model before `live` or `violated`");
                return None;
            }
            let (progress, span) = words.pop().expect("one word");
            let model = words.pop().map(|(m, _)| m);
            let live = match self.peek_ident().as_deref() {
                Some("live") => true,
                Some("violated") => false,
                _ => {
                    self.expected(&format!(
                        "`live` or `violated` after the progress model `{}`",
                        shorten(&progress)
                    ));
                    return None;
                }
            };
            self.bump();
            out.push(LivenessExpectation {
                model,
                progress,
                live,
                span: self.span_from(start),
                progress_span: span,
            });
            if !self.eat(Punct::Comma) {
                break;
            }
        }
        Some(out)
    }
}

use crate::syntax::limits::LEFT_DEEP;

/// `parts` joined by `join` as a balanced tree (left to right order kept).
fn balanced(mut parts: Vec<Prop>, join: fn(Box<Prop>, Box<Prop>) -> Prop) -> Prop {
    match parts.len() {
        0 => Prop::True,
        1 => parts.remove(0),
        n => {
            let right = parts.split_off(n / 2);
            join(
                Box::new(balanced(parts, join)),
                Box::new(balanced(right, join)),
            )
        }
    }
}
