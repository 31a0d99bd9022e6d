//! Reading `.cat` files: herd7's syntax, unchanged, with located errors.
//!
//! Operator precedence is herd's, weakest first: `|`, `;`, `\`, `&`, `*` (cartesian product),
//! then `~` and the postfix operators (`^-1`, `+`, `*`, `?`, `^+`, `^*`). A postfix `*` is
//! told from a cartesian product by what follows it: an operand makes it binary.
//! `show`/`unshow` only affect herd's pictures and are read and ignored.

use super::ast::{Binding, Check, CheckKind, Expr, Model, Stmt};
use crate::diag::{Diagnostic, Span};
use std::path::{Path, PathBuf};

/// Nesting beyond this is refused (the parser recurses once per level).
const MAX_DEPTH: usize = 200;
/// Includes nested beyond this are refused (an include cycle would never end).
const MAX_INCLUDE_DEPTH: usize = 16;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Sym(&'static str),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    span: Span,
}

fn lex(file: &str, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let span = |s: usize, e: usize, line: u32, col: u32| Span {
        start: s as u32,
        end: e as u32,
        line,
        col,
    };
    macro_rules! adv {
        ($n:expr) => {
            for _ in 0..$n {
                if b[i] == b'\n' {
                    line += 1;
                    col = 1;
                } else if (b[i] & 0xC0) != 0x80 {
                    col += 1;
                }
                i += 1;
            }
        };
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            adv!(1);
            continue;
        }
        if c == b'(' && b.get(i + 1) == Some(&b'*') {
            let (sl, sc, s) = (line, col, i);
            let mut depth = 0;
            loop {
                if i >= b.len() {
                    return Err(Diagnostic::new(
                        file,
                        text,
                        span(s, s + 2, sl, sc),
                        "this comment is never closed: expected `*)`",
                    ));
                }
                if b[i] == b'(' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    adv!(2);
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b')') {
                    depth -= 1;
                    adv!(2);
                    if depth == 0 {
                        break;
                    }
                } else {
                    adv!(1);
                }
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                adv!(1);
            }
            continue;
        }
        let (s, sl, sc) = (i, line, col);
        if c == b'"' {
            adv!(1);
            let start = i;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                adv!(1);
            }
            if i >= b.len() || b[i] != b'"' {
                return Err(Diagnostic::new(
                    file,
                    text,
                    span(s, s + 1, sl, sc),
                    "this string is never closed: expected `\"`",
                ));
            }
            let v = text[start..i].to_string();
            adv!(1);
            out.push(Token {
                tok: Tok::Str(v),
                span: span(s, i, sl, sc),
            });
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric()
                    || b[i] == b'_'
                    || b[i] == b'.'
                    || (b[i] == b'-' && b.get(i + 1).is_some_and(|n| n.is_ascii_alphanumeric())))
            {
                adv!(1);
            }
            out.push(Token {
                tok: Tok::Ident(text[s..i].to_string()),
                span: span(s, i, sl, sc),
            });
            continue;
        }
        const SYMS: [&str; 19] = [
            "^-1", "^+", "^*", "++", "=", "(", ")", "[", "]", "{", "}", "|", "&", "\\", ";", "*",
            "+", "?", "~",
        ];
        let rest = &text[i..];
        let sym = SYMS
            .iter()
            .find(|s| rest.starts_with(**s))
            .copied()
            .or(if c == b',' { Some(",") } else { None });
        match sym {
            Some(sy) => {
                adv!(sy.len());
                out.push(Token {
                    tok: Tok::Sym(sy),
                    span: span(s, i, sl, sc),
                });
            }
            None => {
                let ch = rest.chars().next().unwrap_or('?');
                return Err(Diagnostic::new(
                    file,
                    text,
                    span(s, s + ch.len_utf8(), sl, sc),
                    format!("unexpected character `{ch}` in a cat model"),
                ));
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: span(b.len(), b.len(), line, col),
    });
    Ok(out)
}

/// Words that start a statement (so an expression stops before them).
const KEYWORDS: [&str; 17] = [
    "let",
    "rec",
    "and",
    "as",
    "acyclic",
    "irreflexive",
    "empty",
    "flag",
    "include",
    "show",
    "unshow",
    "procedure",
    "call",
    "with",
    "from",
    "in",
    "enum",
];

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// Where `include`s are looked for besides the including file's directory.
    search: &'a [PathBuf],
    include_depth: usize,
    checks: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn span(&self) -> Span {
        self.toks[self.pos].span
    }
    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn err(&self, span: Span, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.file, self.text, span, msg)
    }
    fn found(&self) -> String {
        match self.peek() {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Sym(s) => format!("`{s}`"),
            Tok::Eof => "the end of the file".into(),
        }
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    fn expect_sym(&mut self, s: &str, what: &str) -> Result<(), Diagnostic> {
        if self.is_sym(s) {
            self.bump();
            Ok(())
        } else {
            Err(self.err(
                self.span(),
                format!("expected `{s}` {what}, found {}", self.found()),
            ))
        }
    }
    fn ident(&mut self, what: &str) -> Result<(String, Span), Diagnostic> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                let t = self.bump();
                Ok((s, t.span))
            }
            _ => Err(self.err(
                self.span(),
                format!("expected {what}, found {}", self.found()),
            )),
        }
    }

    fn model(&mut self, path: Option<&Path>) -> Result<Model, Diagnostic> {
        let mut name = None;
        match self.peek().clone() {
            Tok::Str(s) => {
                self.bump();
                name = Some(s);
            }
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                // herd allows a bare word as the model's name on the first line.
                self.bump();
                name = Some(s);
            }
            _ => {}
        }
        let mut stmts = Vec::new();
        while *self.peek() != Tok::Eof {
            if let Some(s) = self.stmt(path)? {
                stmts.push(s);
            }
        }
        Ok(Model {
            file: self.file.to_string(),
            name,
            stmts,
        })
    }

    fn stmt(&mut self, path: Option<&Path>) -> Result<Option<Stmt>, Diagnostic> {
        let start = self.span();
        let word = match self.peek() {
            Tok::Ident(w) => w.clone(),
            // `~empty e`: a negated axiom.
            Tok::Sym("~") => "acyclic".to_string(),
            _ => {
                return Err(self.err(
                    start,
                    format!(
                        "expected a statement (`let`, `acyclic`, `irreflexive`, `empty`, `flag`, `include`), found {}",
                        self.found()
                    ),
                ))
            }
        };
        match word.as_str() {
            "let" => {
                self.bump();
                let rec = self.is_kw("rec");
                if rec {
                    self.bump();
                }
                let mut bs = vec![self.binding()?];
                while self.is_kw("and") {
                    self.bump();
                    bs.push(self.binding()?);
                }
                if self.is_kw("in") {
                    return Err(self.err(self.span(), "`let ... in` expressions are not supported: bind the name with a top-level `let`"));
                }
                Ok(Some(if rec { Stmt::LetRec(bs) } else { Stmt::Let(bs) }))
            }
            "acyclic" | "irreflexive" | "empty" | "flag" => {
                let flag = self.is_kw("flag");
                if flag {
                    self.bump();
                }
                let negated = self.is_sym("~");
                if negated {
                    self.bump();
                }
                let kind = match self.peek() {
                    Tok::Ident(w) if w == "acyclic" => CheckKind::Acyclic,
                    Tok::Ident(w) if w == "irreflexive" => CheckKind::Irreflexive,
                    Tok::Ident(w) if w == "empty" => CheckKind::Empty,
                    _ => {
                        return Err(self.err(
                            self.span(),
                            format!(
                                "expected `acyclic`, `irreflexive` or `empty`, found {}",
                                self.found()
                            ),
                        ))
                    }
                };
                self.bump();
                let expr = self.expr()?;
                self.checks += 1;
                let name = if self.is_kw("as") {
                    self.bump();
                    self.ident("a name after `as`")?.0
                } else {
                    format!("{}@{}", kind.keyword(), start.line)
                };
                Ok(Some(Stmt::Check(Check {
                    kind,
                    negated,
                    flag,
                    expr,
                    name,
                    span: start,
                })))
            }
            "include" => {
                self.bump();
                let Tok::Str(f) = self.peek().clone() else {
                    return Err(self.err(
                        self.span(),
                        format!("expected a quoted file name after `include`, found {}", self.found()),
                    ));
                };
                let sp = self.bump().span;
                if self.include_depth >= MAX_INCLUDE_DEPTH {
                    return Err(self.err(sp, "includes nested too deeply (an include cycle?)"));
                }
                let dir = path.and_then(|p| p.parent()).map(Path::to_path_buf);
                let found = dir
                    .iter()
                    .chain(self.search.iter())
                    .map(|d| d.join(&f))
                    .find(|p| p.is_file());
                let inc = match found {
                    Some(p) => {
                        let text = std::fs::read_to_string(&p)
                            .map_err(|e| self.err(sp, format!("cannot read `{f}`: {e}")))?;
                        parse_nested(&p, &text, self.search, self.include_depth + 1)?
                    }
                    None => match super::bundled(&f) {
                        Some(text) => parse_nested(
                            Path::new(&f),
                            text,
                            self.search,
                            self.include_depth + 1,
                        )?,
                        None => {
                            return Err(self.err(
                                sp,
                                format!("cannot find the included file `{f}` (looked beside the model and among the bundled models)"),
                            ))
                        }
                    },
                };
                Ok(Some(Stmt::Include(Box::new(inc))))
            }
            "show" | "unshow" => {
                // Pictures only: read the list and ignore it.
                self.bump();
                loop {
                    self.expr()?;
                    if self.is_kw("as") {
                        self.bump();
                        self.ident("a name after `as`")?;
                    }
                    if self.is_sym(",") {
                        self.bump();
                        continue;
                    }
                    break;
                }
                Ok(None)
            }
            "procedure" | "call" | "with" | "enum" | "forall" | "match" | "if" => Err(self.err(
                start,
                format!("`{word}` is not supported by tangle's cat reader (it reads `let`, `let rec`, checks, `flag` and `include`)"),
            )),
            _ => Err(self.err(
                start,
                format!(
                    "expected a statement (`let`, `acyclic`, `irreflexive`, `empty`, `flag`, `include`), found {}",
                    self.found()
                ),
            )),
        }
    }

    fn binding(&mut self) -> Result<Binding, Diagnostic> {
        let (name, span) = self.ident("a name to bind")?;
        let mut params = None;
        if self.is_sym("(") {
            self.bump();
            let mut ps = Vec::new();
            if !self.is_sym(")") {
                loop {
                    ps.push(self.ident("a parameter name")?.0.into());
                    if self.is_sym(",") {
                        self.bump();
                        continue;
                    }
                    break;
                }
            }
            self.expect_sym(")", "after the parameters")?;
            params = Some(ps);
        }
        self.expect_sym("=", &format!("after `let {name}`"))?;
        let body = self.expr()?;
        Ok(Binding {
            name: name.into(),
            params,
            body: body.into(),
            span,
        })
    }

    fn expr(&mut self) -> Result<Expr, Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(self.span(), "expression nested too deeply"));
        }
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    /// Precedence climbing over `| ; \ & *` (levels 0..=4).
    fn binary(&mut self, level: usize) -> Result<Expr, Diagnostic> {
        const OPS: [&str; 5] = ["|", ";", "\\", "&", "*"];
        if level == OPS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        // Flat chains are read iteratively (a long union is not deep nesting).
        while self.is_sym(OPS[level]) {
            if OPS[level] == "*" && !self.starts_operand(1) {
                break;
            }
            self.bump();
            let rhs = self.binary(level + 1)?;
            let (l, r) = (Box::new(lhs), Box::new(rhs));
            lhs = match level {
                0 => Expr::Union(l, r),
                1 => Expr::Seq(l, r),
                2 => Expr::Diff(l, r),
                3 => Expr::Inter(l, r),
                _ => Expr::Cartesian(l, r),
            };
        }
        Ok(lhs)
    }

    /// Does the token `ahead` places on start an operand?
    fn starts_operand(&self, ahead: usize) -> bool {
        match &self.toks[(self.pos + ahead).min(self.toks.len() - 1)].tok {
            Tok::Ident(s) => !KEYWORDS.contains(&s.as_str()),
            Tok::Sym(s) => matches!(*s, "(" | "[" | "~" | "{"),
            _ => false,
        }
    }

    fn unary(&mut self) -> Result<Expr, Diagnostic> {
        if self.is_sym("~") {
            self.bump();
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err(self.span(), "expression nested too deeply"));
            }
            let e = self.unary();
            self.depth -= 1;
            return Ok(Expr::Compl(Box::new(e?)));
        }
        let mut e = self.primary()?;
        loop {
            if self.is_sym("^-1") {
                self.bump();
                e = Expr::Inverse(Box::new(e));
            } else if self.is_sym("^+") || self.is_sym("+") {
                self.bump();
                e = Expr::Plus(Box::new(e));
            } else if self.is_sym("^*") || (self.is_sym("*") && !self.starts_operand(1)) {
                self.bump();
                e = Expr::Star(Box::new(e));
            } else if self.is_sym("?") {
                self.bump();
                e = Expr::Opt(Box::new(e));
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, Diagnostic> {
        let sp = self.span();
        match self.peek().clone() {
            Tok::Ident(s) if s == "0" => {
                self.bump();
                Ok(Expr::Empty)
            }
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.bump();
                if self.is_sym("(") && self.toks[self.pos].span.start == sp.end {
                    self.bump();
                    let mut args = Vec::new();
                    if !self.is_sym(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.is_sym(",") {
                                self.bump();
                                continue;
                            }
                            break;
                        }
                    }
                    self.expect_sym(")", &format!("after the arguments of `{s}`"))?;
                    return Ok(Expr::App(s, args, sp));
                }
                Ok(Expr::Name(s, sp))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect_sym(")", "to close the parenthesis")?;
                Ok(e)
            }
            Tok::Sym("[") => {
                self.bump();
                let e = self.expr()?;
                self.expect_sym("]", "to close `[`")?;
                Ok(Expr::Bracket(Box::new(e)))
            }
            Tok::Sym("{") => {
                self.bump();
                self.expect_sym("}", "(only the empty set `{}` is supported)")?;
                Ok(Expr::Empty)
            }
            _ => Err(self.err(
                sp,
                format!("expected a set or relation, found {}", self.found()),
            )),
        }
    }
}

fn parse_nested(
    path: &Path,
    text: &str,
    search: &[PathBuf],
    include_depth: usize,
) -> Result<Model, Diagnostic> {
    let file = path.display().to_string();
    let toks = lex(&file, text)?;
    let mut p = Parser {
        file: &file,
        text,
        toks,
        pos: 0,
        depth: 0,
        search,
        include_depth,
        checks: 0,
    };
    p.model(Some(path))
}

/// Parses a cat model. `path` names it in errors and anchors its `include`s; `search` lists
/// further directories for includes (the bundled models are always found).
pub fn parse(path: &Path, text: &str, search: &[PathBuf]) -> Result<Model, Diagnostic> {
    parse_nested(path, text, search, 0)
}
