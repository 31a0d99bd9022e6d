//! Parser and name resolution: tokens -> [`ast::Test`], or every error it can find.
//!
//! A hand-written recursive-descent parser over the token vector of [`super::lexer`]. This file
//! holds the cursor, error reporting and recovery, and the header; the kernel and the final
//! condition are in the `kernel` and `condition` submodules.
//!
//! Error policy. Each error is recorded in `diags` where it is found; a function that cannot
//! go on returns `Err(Stop)`. Statements and header items recover by skipping to a point where
//! parsing can resume (`;`, `}` or the next header keyword), so one run reports several errors.
//! At the end the errors are sorted by position and only the first one at each position is
//! kept: later errors at the same place are consequences of the first.
//!
//! Stack safety. Every construct that nests (blocks, parentheses, call arguments, unary
//! operators, each operator of a chain) goes through [`Parser::nested`], which refuses to go
//! deeper than [`limits::MAX_DEPTH`]. That bounds both the parser's recursion and the height
//! of the AST, so the recursive `Drop`, `Debug`, `PartialEq` and later passes are safe too.
//!
//! Name resolution. Every register assignment in the grammar has the shape `name =`, so the
//! set of registers is read off the kernel's tokens before the kernel is parsed
//! ([`Parser::scan_registers`]). Reads can then be resolved as they are parsed, and a
//! statement skipped by error recovery still declares its register (no false "unknown name").

mod condition;
mod kernel;

use std::collections::{HashMap, HashSet};

use super::ast;
use super::diag::{Diagnostic, Diagnostics, Span};
use super::lexer::{self, Punct, Tok, Token};
use super::limits;
use crate::vocab::Builtin;

/// Parses and resolves one file; see the module documentation.
pub fn parse(file: &str, bytes: &[u8]) -> Result<ast::Test, Diagnostics> {
    let lexed = lexer::lex(bytes);
    let mut p = Parser::new(file, lexed.text, lexed.tokens);
    if let Some((span, message)) = lexed.error {
        p.report(span, message);
    }
    let test = p.test();
    let mut diags = p.diags;
    if diags.is_empty() {
        return test.ok_or_else(|| {
            Diagnostics(vec![Diagnostic::bare(
                file,
                1,
                1,
                "internal error: the parser stopped without reporting why",
            )])
        });
    }
    diags.sort_by_key(|d| (d.line, d.col));
    diags.dedup_by_key(|d| (d.line, d.col));
    Err(Diagnostics(diags))
}

/// Marks an error that has already been recorded; the caller unwinds to a recovery point.
#[derive(Debug)]
struct Stop;

type PResult<T> = Result<T, Stop>;

/// Past this many errors the parser gives up (binary garbage would otherwise report one error
/// per token).
const MAX_ERRORS: usize = 100;

/// Words that cannot be register or global names anywhere in the kernel.
const KERNEL_KEYWORDS: [&str; 12] = [
    "if", "else", "while", "for", "loop", "break", "continue", "return", "true", "false", "kernel",
    "global",
];

fn is_kernel_keyword(name: &str) -> bool {
    KERNEL_KEYWORDS.contains(&name)
}

/// Words that start a header item; error recovery in the header resumes at one of them.
const HEADER_KEYWORDS: [&str; 5] = ["threads", "subgroup", "workgroup", "global", "kernel"];

/// `n argument(s)`.
fn arguments(n: usize) -> String {
    if n == 1 {
        "1 argument".into()
    } else {
        format!("{n} arguments")
    }
}

/// The error for `x[i]` when `x` is a scalar global.
fn scalar_indexed(name: &str) -> String {
    format!("`{name}` is a scalar global: it cannot be indexed")
}

/// The error for `a` alone when `a` is an array global.
fn array_unindexed(name: &str) -> String {
    format!("`{name}` is an array global: write `{name}[i]` to access one cell")
}

/// One of `threads N`, `subgroup N`, `workgroup N`: its value and where the number is.
#[derive(Clone, Copy)]
struct SizeItem {
    value: u32,
    keyword: Span,
    number: Span,
}

/// The header's size lines as written.
#[derive(Default)]
struct Sizes {
    threads: Option<SizeItem>,
    subgroup: Option<SizeItem>,
    workgroup: Option<SizeItem>,
}

/// The validated thread geometry.
#[derive(Clone, Copy)]
struct Geometry {
    threads: u32,
    subgroup: u32,
    workgroup: u32,
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    /// Ends with `Eof`.
    tokens: Vec<Token>,
    pos: usize,
    /// Returned by `peek` should `pos` ever pass the end, so that no access can panic.
    eof: Token,
    /// End offset of the last consumed token, to close spans.
    prev_end: u32,
    diags: Vec<Diagnostic>,
    /// Set when the parser must stop altogether (too deep, too many errors).
    fatal: bool,
    /// Current nesting, checked against `limits::MAX_DEPTH`.
    depth: u32,
    /// Loops enclosing the current statement, for `break`/`continue`.
    loops: u32,
    /// Memory-model tags read for the statement being parsed (`atomicLoad(x, acquire)`).
    tags: Vec<String>,
    globals: Vec<ast::Global>,
    /// Position of each global in `globals` (a file may declare thousands).
    global_index: HashMap<String, usize>,
    /// Memory cells of `globals` together.
    cells_used: u32,
    /// Register names of the kernel (see the module documentation).
    registers: HashSet<String>,
    /// Thread geometry, once the header is known to be valid.
    geometry: Option<Geometry>,
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, text: &'a str, tokens: Vec<Token>) -> Self {
        let eof = tokens.last().cloned().unwrap_or(Token {
            tok: Tok::Eof { truncated: false },
            span: Span::default(),
        });
        Parser {
            file,
            text,
            tokens,
            pos: 0,
            eof,
            prev_end: 0,
            diags: Vec::new(),
            fatal: false,
            depth: 0,
            loops: 0,
            tags: Vec::new(),
            globals: Vec::new(),
            global_index: HashMap::new(),
            cells_used: 0,
            registers: HashSet::new(),
            geometry: None,
        }
    }

    // ---- cursor -------------------------------------------------------------------------

    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> &Token {
        self.tokens
            .get(self.pos.saturating_add(ahead))
            .unwrap_or(&self.eof)
    }

    fn at(&self, p: Punct) -> bool {
        self.peek().tok == Tok::Punct(p)
    }

    /// Whether the next token is the identifier `word`.
    fn at_word(&self, word: &str) -> bool {
        self.peek().tok.is_word(word)
    }

    /// The next token's identifier text, if it is one.
    fn peek_ident(&self) -> Option<String> {
        self.peek().tok.word().map(str::to_string)
    }

    /// Consumes and returns the next token (`Eof` stays put).
    fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if !matches!(token.tok, Tok::Eof { .. }) {
            self.pos += 1;
            self.prev_end = token.span.end;
        }
        token
    }

    /// Consumes the next token if it is `p`.
    fn eat(&mut self, p: Punct) -> bool {
        let found = self.at(p);
        if found {
            self.bump();
        }
        found
    }

    /// Consumes `p` or reports "expected `p` {context}, found ...".
    fn expect(&mut self, p: Punct, context: &str) -> PResult<Span> {
        if self.at(p) {
            Ok(self.bump().span)
        } else {
            Err(self.expected(&format!("`{}` {context}", p.text())))
        }
    }

    /// `start` extended to the end of the last consumed token.
    fn span_from(&self, start: Span) -> Span {
        Span {
            end: self.prev_end.max(start.start),
            ..start
        }
    }

    /// How a token is shown in "found ..." messages.
    fn describe(&self, token: &Token) -> String {
        match &token.tok {
            Tok::Eof { .. } => "end of file".into(),
            Tok::Str(_) => "a string".into(),
            _ => {
                let text = self
                    .text
                    .get(token.span.start as usize..token.span.end as usize)
                    .unwrap_or_default();
                format!("`{}`", lexer::shorten(text))
            }
        }
    }

    // ---- errors -------------------------------------------------------------------------

    /// Records an error and lets the caller go on.
    fn report(&mut self, span: Span, message: impl Into<String>) {
        if self.diags.len() >= MAX_ERRORS {
            self.fatal = true;
            return;
        }
        self.diags
            .push(Diagnostic::new(self.file, self.text, span, message));
    }

    /// Adds a help line to the error just recorded.
    fn hint(&mut self, help: impl Into<String>) {
        if let Some(d) = self.diags.last_mut() {
            d.help.push(help.into());
        }
    }

    /// "did you mean `x`?" for an unknown `name`, among `known`.
    fn suggest<'k>(&mut self, name: &str, known: impl IntoIterator<Item = &'k str>) {
        if let Some(k) = super::diag::closest(name, known) {
            if k != name {
                self.hint(format!("did you mean `{k}`?"));
            }
        }
    }

    /// The names an expression may read: registers, globals, built-ins.
    fn value_names(&self) -> Vec<String> {
        self.registers
            .iter()
            .cloned()
            .chain(self.globals.iter().map(|g| g.name.clone()))
            .chain(
                crate::vocab::Builtin::ALL
                    .iter()
                    .map(|b| b.name().to_string()),
            )
            .collect()
    }

    /// Records an error for a caller that cannot go on.
    fn fail(&mut self, span: Span, message: impl Into<String>) -> Stop {
        self.report(span, message);
        Stop
    }

    /// "expected {what}, found {next token}", at the next token. Nothing is recorded at an
    /// end of input caused by a lexical error: that error was reported and explains it.
    fn expected(&mut self, what: &str) -> Stop {
        let token = self.peek().clone();
        if token.tok != (Tok::Eof { truncated: true }) {
            let found = self.describe(&token);
            self.report(token.span, format!("expected {what}, found {found}"));
        }
        Stop
    }

    /// Runs `f` one nesting level deeper, refusing to go past `limits::MAX_DEPTH`.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.enter()?;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// Parses `first (op operand)*` left-associatively: `op` recognises an operator at the
    /// next token, `operand` parses what follows it, `join` builds the node. Each operator
    /// folded makes the tree one level deeper, so it counts as one level of nesting: a chain
    /// of 10,000 `+` is refused like 10,000 parentheses.
    fn left_assoc<T, O: Copy>(
        &mut self,
        first: T,
        op: impl Fn(&Self) -> Option<O>,
        operand: impl Fn(&mut Self, O) -> PResult<T>,
        join: impl Fn(&Self, O, T, T) -> T,
    ) -> PResult<T> {
        let mut lhs = first;
        let mut folds = 0;
        let result = loop {
            let Some(o) = op(self) else {
                break Ok(lhs);
            };
            if let Err(stop) = self.enter() {
                break Err(stop);
            }
            folds += 1;
            self.bump();
            match operand(self, o) {
                Ok(rhs) => lhs = join(self, o, lhs, rhs),
                Err(stop) => break Err(stop),
            }
        };
        self.depth -= folds;
        result
    }

    /// Goes one level deeper; the caller must decrease `depth` again on every path.
    fn enter(&mut self) -> PResult<()> {
        if self.depth >= limits::MAX_DEPTH {
            let span = self.peek().span;
            self.fatal = true;
            return Err(self.fail(
                span,
                format!(
                    "nesting too deep: more than {} levels of blocks, parentheses and operators",
                    limits::MAX_DEPTH
                ),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    /// The value of an integer literal token; one that does not fit in 32 bits is reported
    /// (and read as 0 so parsing can go on).
    fn int_value(&mut self, token: &Token) -> u32 {
        match token.tok {
            Tok::Int(Some(v)) => v,
            _ => {
                let text = self.describe(token);
                self.report(
                    token.span,
                    format!(
                        "the number {text} does not fit in 32 bits (the largest is 4294967295 = 0xFFFFFFFF)"
                    ),
                );
                0
            }
        }
    }

    /// A literal in the header or the condition: a number, `-` number (wrapping), `true` or
    /// `false`. `what` says what the literal is for, in the error message.
    fn literal(&mut self, what: &str) -> PResult<u32> {
        let negative = self.eat(Punct::Minus);
        let token = self.peek().clone();
        let value = match &token.tok {
            Tok::Int(_) => self.int_value(&token),
            Tok::Ident(w) if w == "true" && !negative => 1,
            Tok::Ident(w) if w == "false" && !negative => 0,
            _ => return Err(self.expected(what)),
        };
        self.bump();
        Ok(if negative {
            value.wrapping_neg()
        } else {
            value
        })
    }

    // ---- names --------------------------------------------------------------------------

    fn global(&self, name: &str) -> Option<&ast::Global> {
        self.global_index
            .get(name)
            .and_then(|&i| self.globals.get(i))
    }

    /// Collects the register names of the kernel from the tokens ahead: every `name =` where
    /// `name` is not a global, a built-in or a keyword (those are errors reported when parsed).
    fn scan_registers(&mut self) {
        let ahead = self.tokens.get(self.pos..).unwrap_or_default();
        let mut registers = HashSet::new();
        for pair in ahead.windows(2) {
            if let [Token {
                tok: Tok::Ident(name),
                ..
            }, Token {
                tok: Tok::Punct(Punct::Assign),
                ..
            }] = pair
            {
                if !is_kernel_keyword(name)
                    && Builtin::from_name(name).is_none()
                    && self.global(name).is_none()
                {
                    registers.insert(name.clone());
                }
            }
        }
        self.registers = registers;
    }

    // ---- the file -----------------------------------------------------------------------

    /// The whole file. Returns `None` when too little was understood to build a test (the
    /// errors say why).
    fn test(&mut self) -> Option<ast::Test> {
        let (name, description) = self.test_line();
        let sizes = self.header_items()?;
        self.geometry = self.check_geometry(&sizes);
        self.bump(); // `kernel`, checked by `header_items`
        self.scan_registers();
        let kernel = match self.block("after `kernel`") {
            Ok(body) => body,
            Err(Stop) if self.fatal => return None,
            Err(Stop) => Vec::new(),
        };
        let start = self.peek().span;
        let filter = self.filter()?;
        let mut condition = self.condition()?;
        if filter.is_some() {
            // Reports quote the condition with its filter.
            condition.span = self.span_from(start);
        }
        let expect = self.expectations();
        if self.fatal {
            return None;
        }
        if expect.is_some() && !matches!(self.peek().tok, Tok::Eof { .. }) {
            self.expected("`expect` or the end of the file after the condition");
        }
        let geometry = self.geometry.unwrap_or(Geometry {
            threads: 1,
            subgroup: 1,
            workgroup: 1,
        });
        Some(ast::Test {
            file: self.file.to_string(),
            source: self.text.to_string(),
            name,
            description,
            threads: geometry.threads,
            subgroup: geometry.subgroup,
            workgroup: geometry.workgroup,
            globals: std::mem::take(&mut self.globals),
            kernel,
            filter,
            condition,
            expect: expect.clone().unwrap_or_default().0,
            expect_liveness: expect.unwrap_or_default().1,
            hints: Default::default(),
            observe: Vec::new(),
            condition_label: None,
            queue_family: geometry.threads,
        })
    }

    /// `test NAME ["description"]`. A missing part is reported and parsing goes on.
    fn test_line(&mut self) -> (String, Option<String>) {
        if !self.at_word("test") {
            self.expected("`test NAME` at the start of the file");
            return (String::new(), None);
        }
        self.bump();
        let name = match &self.peek().tok {
            Tok::Name(name) => {
                let name = name.clone();
                self.bump();
                name
            }
            _ => {
                self.expected("the test name after `test`, on the same line");
                String::new()
            }
        };
        let description = match &self.peek().tok {
            Tok::Str(s) => {
                let s = s.clone();
                self.bump();
                Some(s)
            }
            _ => None,
        };
        (name, description)
    }

    /// Header items in any order, up to (not including) `kernel`. `None` when there is no
    /// `kernel` or parsing must stop.
    fn header_items(&mut self) -> Option<Sizes> {
        let mut sizes = Sizes::default();
        loop {
            let word = self.peek_ident();
            let result = match word.as_deref() {
                Some("kernel") => break,
                Some("threads") => self.size_item(&mut sizes.threads),
                Some("subgroup") => self.size_item(&mut sizes.subgroup),
                Some("workgroup") => self.size_item(&mut sizes.workgroup),
                Some("global") => self.global_decl(),
                _ if matches!(self.peek().tok, Tok::Eof { .. }) => {
                    self.expected("`kernel { ... }` after the header");
                    return None;
                }
                _ => Err(self.expected(
                    "`threads`, `subgroup`, `workgroup`, `global` or `kernel` in the header",
                )),
            };
            if result.is_err() {
                if self.fatal {
                    return None;
                }
                self.skip_to_header_item();
            }
        }
        Some(sizes)
    }

    /// Error recovery in the header: skips at least one token, then up to the next word that
    /// starts a header item.
    fn skip_to_header_item(&mut self) {
        self.bump();
        while !matches!(self.peek().tok, Tok::Eof { .. })
            && !HEADER_KEYWORDS.iter().any(|w| self.at_word(w))
        {
            self.bump();
        }
    }

    /// `threads N`, `subgroup N` or `workgroup N`.
    fn size_item(&mut self, slot: &mut Option<SizeItem>) -> PResult<()> {
        let keyword = self.bump();
        let word = self.describe(&keyword);
        let token = self.peek().clone();
        if !matches!(token.tok, Tok::Int(_)) {
            return Err(self.expected(&format!("a number after {word}")));
        }
        self.bump();
        let value = self.int_value(&token);
        match slot {
            Some(first) => self.report(
                keyword.span,
                format!(
                    "duplicate {word} line (first given at line {})",
                    first.keyword.line
                ),
            ),
            None => {
                *slot = Some(SizeItem {
                    value,
                    keyword: keyword.span,
                    number: token.span,
                })
            }
        }
        Ok(())
    }

    /// Checks the sizes against each other and the limits; `None` if any check fails.
    fn check_geometry(&mut self, sizes: &Sizes) -> Option<Geometry> {
        let Some(threads) = sizes.threads else {
            let span = self.peek().span;
            self.report(
                span,
                "the header has no `threads N` line before `kernel` (it is required)",
            );
            return None;
        };
        let before = self.diags.len();
        let (t, max_t) = (threads.value, limits::MAX_THREADS);
        if !(1..=max_t).contains(&t) {
            self.report(
                threads.number,
                format!("`threads {t}` is out of range: the number of threads must be between 1 and {max_t}"),
            );
        }
        let max_sg = limits::MAX_SUBGROUP;
        if let Some(sg) = sizes.subgroup {
            if !(1..=max_sg).contains(&sg.value) {
                self.report(
                    sg.number,
                    format!(
                        "`subgroup {}` is out of range: a subgroup has between 1 and {max_sg} lanes",
                        sg.value
                    ),
                );
            }
        }
        if let Some(wg) = sizes.workgroup {
            if wg.value == 0 {
                self.report(
                    wg.number,
                    "`workgroup 0` is out of range: a workgroup has at least 1 thread",
                );
            }
        }
        if self.diags.len() > before {
            return None;
        }
        // All values are now at least 1, so the divisions below are safe.
        let subgroup = sizes.subgroup.map_or(t, |s| s.value);
        let workgroup = sizes.workgroup.map_or(t, |w| w.value);
        if subgroup > max_sg {
            // Only reachable through the default `subgroup = threads`.
            self.report(
                threads.number,
                format!("{t} threads need a `subgroup N` line: the default subgroup is all threads, but a subgroup has at most {max_sg} lanes"),
            );
        }
        // A subgroup size that does not divide the workgroup leaves a partial last subgroup
        // in each workgroup (Vulkan allows it): not an error when it is written; the default
        // (all threads) is surely not meant then.
        if let Some(wg) = sizes.workgroup {
            if !t.is_multiple_of(workgroup) {
                self.report(
                    wg.number,
                    format!("the workgroup size {workgroup} does not divide the {t} threads"),
                );
            } else if sizes.subgroup.is_none() && !workgroup.is_multiple_of(subgroup) {
                self.report(
                    wg.number,
                    format!("the subgroup size {subgroup} (the default: all threads; add a `subgroup N` line) does not divide the workgroup size {workgroup}"),
                );
            }
        }
        (self.diags.len() == before).then_some(Geometry {
            threads: t,
            subgroup,
            workgroup,
        })
    }

    /// `global x`, `global x = 5`, `global a[4]`, `global a[4] = {1, 2, 3, 4}`.
    fn global_decl(&mut self) -> PResult<()> {
        let start = self.bump().span;
        let name_token = self.peek().clone();
        let Tok::Ident(name) = &name_token.tok else {
            return Err(self.expected("a global name after `global`"));
        };
        let name = name.clone();
        self.bump();
        let mut valid = true;
        if Builtin::from_name(&name).is_some() {
            self.report(
                name_token.span,
                format!("a global cannot be named `{name}`: that is a built-in"),
            );
            valid = false;
        } else if is_kernel_keyword(&name) {
            self.report(
                name_token.span,
                format!("a global cannot be named `{name}`: that is a keyword"),
            );
            valid = false;
        } else if let Some(first) = self.global(&name) {
            let line = first.span.line;
            self.report(
                name_token.span,
                format!("duplicate global `{name}` (first declared at line {line})"),
            );
            valid = false;
        }

        let len = if self.eat(Punct::LBracket) {
            let token = self.peek().clone();
            if !matches!(token.tok, Tok::Int(_)) {
                return Err(self.expected(&format!("the length of the array `{name}`")));
            }
            self.bump();
            let len = self.int_value(&token);
            if len == 0 {
                self.report(
                    token.span,
                    format!("the array `{name}` has length 0: an array needs at least 1 cell"),
                );
                valid = false;
            }
            self.expect(Punct::RBracket, "after the array length")?;
            Some(len)
        } else {
            None
        };
        let cells = len.unwrap_or(1);
        if self.cells_used.saturating_add(cells) > limits::MAX_CELLS {
            self.report(
                name_token.span,
                format!(
                    "the globals need more than {} memory cells in total (the limit)",
                    limits::MAX_CELLS
                ),
            );
            valid = false;
        }

        let values = if self.eat(Punct::Assign) {
            self.initialiser(&name, len)?
        } else {
            Vec::new()
        };
        if valid {
            let mut init = values;
            // `cells` is within MAX_CELLS here, so this allocation is bounded.
            init.resize(cells as usize, 0);
            self.cells_used += cells;
            self.global_index.insert(name.clone(), self.globals.len());
            self.globals.push(ast::Global {
                name,
                len,
                init,
                span: self.span_from(start),
            });
        }
        Ok(())
    }

    /// After `=`: a literal for a scalar, `{ literals }` for an array (fewer values than cells
    /// leave the rest 0, as in C; a trailing comma is allowed).
    fn initialiser(&mut self, name: &str, len: Option<u32>) -> PResult<Vec<u32>> {
        let Some(len) = len else {
            return Ok(vec![
                self.literal(&format!("a number to initialise `{name}`"))?
            ]);
        };
        self.expect(
            Punct::LBrace,
            &format!("to initialise the array `{name}` (as in `{{1, 2}}`)"),
        )?;
        let mut values = Vec::new();
        let mut count: u32 = 0;
        while !self.eat(Punct::RBrace) {
            let at = self.peek().span;
            let value = self.literal("a number or `}` in the initialiser")?;
            if count < len {
                values.push(value);
            } else if count == len {
                self.report(
                    at,
                    format!("too many initial values: `{name}` has {len} cells"),
                );
            }
            count = count.saturating_add(1);
            if !self.eat(Punct::Comma) && !self.at(Punct::RBrace) {
                return Err(self.expected("`,` or `}` in the initialiser"));
            }
        }
        Ok(values)
    }
}
