//! The abstract syntax of a cat model (herd7's language for memory models).

use crate::diag::Span;
use std::sync::Arc;

/// A whole `.cat` file: an optional model name and its statements, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The file the model came from (for diagnostics).
    pub file: String,
    /// The name on the model's first line (a quoted string or a bare word), if any.
    pub name: Option<String>,
    pub stmts: Vec<Stmt>,
}

impl Model {
    /// Does the model (an included file's checks too) raise flags?
    pub fn has_flags(&self) -> bool {
        self.stmts.iter().any(|s| match s {
            Stmt::Check(c) => c.flag,
            Stmt::Include(m) => m.has_flags(),
            Stmt::Let(_) | Stmt::LetRec(_) => false,
        })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `let a = e and b = e` (non-recursive: each body sees the names bound before).
    Let(Vec<Binding>),
    /// `let rec a = e and b = e`: the least fixpoint of the equations.
    LetRec(Vec<Binding>),
    /// `acyclic e as name`, `flag ~empty e as name`, ...
    Check(Check),
    /// `include "file.cat"`, already resolved and parsed.
    Include(Box<Model>),
}

/// `let name = body` or `let name(p, q) = body` (a function).
#[derive(Clone, Debug, PartialEq)]
pub struct Binding {
    /// Shared, as are the parameters and the body: the interpreter binds them afresh for every
    /// candidate execution, and copying them each time was a large part of its cost.
    pub name: Arc<str>,
    /// `Some` for a function definition.
    pub params: Option<Vec<Arc<str>>>,
    pub body: Arc<Expr>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

impl CheckKind {
    pub fn keyword(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

/// An axiom (`flag: false`: an execution violating it is not consistent) or a flag (`flag:
/// true`: an execution where the check *holds* is reported, e.g. a data race, but stays).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub kind: CheckKind,
    /// `~acyclic`, `~empty`: the check is that the property fails.
    pub negated: bool,
    pub flag: bool,
    pub expr: Expr,
    /// The name after `as` (or a generated one, e.g. `acyclic@12`, when none is given).
    pub name: String,
    pub span: Span,
}

/// A cat expression: a set of events or a relation over events (typed when evaluated).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// `0`: the empty relation (or set).
    Empty,
    Name(String, Span),
    /// `[S]`: the identity relation over the set S.
    Bracket(Box<Expr>),
    Union(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    /// `S * T`: the cartesian product of two sets.
    Cartesian(Box<Expr>, Box<Expr>),
    /// `~e`: the complement (of a set, over all events; of a relation, over all pairs).
    Compl(Box<Expr>),
    /// `e^-1`
    Inverse(Box<Expr>),
    /// `e+` or `e^+`
    Plus(Box<Expr>),
    /// `e*` or `e^*`
    Star(Box<Expr>),
    /// `e?`: `e | id`
    Opt(Box<Expr>),
    /// `f(e, ...)`: a built-in (`domain`, `range`) or a user function.
    App(String, Vec<Expr>, Span),
}

impl Expr {
    /// The expressions this one is built from, left to right (a function's arguments).
    pub fn operands(&self) -> Vec<&Expr> {
        match self {
            Expr::Empty | Expr::Name(..) => Vec::new(),
            Expr::App(_, args, _) => args.iter().collect(),
            Expr::Bracket(a)
            | Expr::Compl(a)
            | Expr::Inverse(a)
            | Expr::Plus(a)
            | Expr::Star(a)
            | Expr::Opt(a) => vec![a],
            Expr::Union(a, b)
            | Expr::Inter(a, b)
            | Expr::Diff(a, b)
            | Expr::Seq(a, b)
            | Expr::Cartesian(a, b) => vec![a, b],
        }
    }
}
