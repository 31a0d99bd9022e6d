//! Exhaustive enumeration of small SPMD programs over a fixed grammar: the program space that
//! bounded model inclusion (`include`) and the search for distinguishing tests
//! (`distinguish`) range over.
//!
//! The grammar (docs/inclusion.md states it for users):
//!
//! ```text
//! kernel  := stmt*                               one subgroup of `threads` lanes
//! stmt    := loc = val                           store          (1 instruction)
//!          | rN = loc                            load, fresh register per load
//!          | sN = op                             subgroup op, fresh register per op
//!          | subgroupBarrier();
//!          | if (lane == 0) { stmt* } else { stmt* }   1 instruction + its arms
//!                                                (with access words: `atomicStore(loc, val, W)`
//!                                                 and `rN = atomicLoad(loc, W)`)
//! loc     := x | y | slots[lane] | slots[next]   next = (lane + 1) % threads
//! val     := 1 | 2 | s                           s: the latest op result in scope
//! op      := subgroupAdd(1) | subgroupAll(true) | subgroupElect()
//! ```
//!
//! The size of a program is its number of statements, an `if` counting one besides the
//! statements of its arms; the `next = ...` line is not counted (it is the definition of a
//! name, local arithmetic with no observable step). Which locations, values and ops are in
//! play, and how deep `if`s nest, is a [`Grammar`].
//!
//! Every program is free of loops (so no loop bound can cut an execution) and of undefined
//! behaviour (indices are `lane` and `next`, in range; no division), so its outcome set under a
//! model is exact. Every register and every memory cell is observed.
//!
//! **Symmetry reduction.** Programs related by one of these maps have the same outcome sets up
//! to a renaming of the observables, so only the least program of each orbit (in a fixed total
//! order) is kept:
//! - swapping `x` and `y` (when both are in the grammar);
//! - swapping the stored constants 1 and 2 in every store to one global (when the grammar's
//!   values are exactly {1, 2} and no store to that global stores an op result: loaded values
//!   never flow anywhere, so only that global's cells and the registers loaded from it change);
//! - swapping the two lanes, i.e. the arms of every `if` (two threads only, and no
//!   `subgroupElect`, the one op that tells lanes apart; `next` and `slots` follow the lanes).
//!
//! Registers are numbered in textual order, which is already canonical.

use crate::syntax::ast::Operand;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A memory location as written in a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Loc {
    X,
    Y,
    /// `slots[lane]`
    Own,
    /// `slots[next]`, `next = (lane + 1) % threads`
    Next,
}

impl Loc {
    pub const ALL: [Loc; 4] = [Loc::X, Loc::Y, Loc::Own, Loc::Next];

    pub(crate) fn text(self) -> &'static str {
        match self {
            Loc::X => "x",
            Loc::Y => "y",
            Loc::Own => "slots[lane]",
            Loc::Next => "slots[next]",
        }
    }
    /// The global it belongs to: 0 x, 1 y, 2 slots.
    pub(crate) fn global(self) -> usize {
        match self {
            Loc::X => 0,
            Loc::Y => 1,
            Loc::Own | Loc::Next => 2,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Loc::X => "x",
            Loc::Y => "y",
            Loc::Own => "own",
            Loc::Next => "next",
        }
    }
    pub fn from_name(s: &str) -> Option<Loc> {
        Loc::ALL.into_iter().find(|l| l.name() == s)
    }
}

/// A stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Val {
    Lit(u32),
    /// The result of the latest subgroup op in scope (textually before, in the same or an
    /// enclosing statement list).
    OpResult,
}

/// A subgroup operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Op {
    /// `subgroupAdd(1)`: the number of participants.
    Add,
    /// `subgroupAll(true)`: always 1, a pure synchronisation point.
    All,
    /// `subgroupElect()`: 1 in the lowest participating lane.
    Elect,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Add, Op::All, Op::Elect];

    pub(crate) fn text(self) -> &'static str {
        match self {
            Op::Add => "subgroupAdd(1)",
            Op::All => "subgroupAll(true)",
            Op::Elect => "subgroupElect()",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::All => "all",
            Op::Elect => "elect",
        }
    }
    pub fn from_name(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == s)
    }
}

/// A statement of the grammar.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stmt {
    Store(Loc, Val),
    Load(Loc),
    SgOp(Op),
    Barrier,
    /// `if (lane == 0) { then } else { else }`
    If(Vec<Stmt>, Vec<Stmt>),
}

/// Instructions in a statement list (an `if` counts one plus its arms).
pub fn size(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::If(a, b) => 1 + size(a) + size(b),
            _ => 1,
        })
        .sum()
}

/// The program space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grammar {
    /// Lanes of the one subgroup (at least 2).
    pub threads: u32,
    pub locs: Vec<Loc>,
    /// Constants a store may write (non-zero: memory starts at 0).
    pub values: Vec<u32>,
    /// Stores may also write the latest op result in scope.
    pub store_op_result: bool,
    pub ops: Vec<Op>,
    pub barrier: bool,
    /// Deepest nesting of `if` (0: straight-line code).
    pub max_depth: usize,
    /// How loads and stores are written ([`Access`]): plain, or atomics with words.
    pub access: Access,
}

/// The words of the grammar's atomic loads and stores (an order, a scope, Vulkan tags:
/// docs/litmus-format.md), which a memory model reads; empty: plain `x = v;` and `r = x;`.
/// Every load (every store) of a program carries the same words, so the program space is
/// as large as with plain accesses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    pub load: Vec<String>,
    pub store: Vec<String>,
}

impl Access {
    fn store(&self, loc: &str, val: &str) -> String {
        match self.store.is_empty() {
            true => format!("{loc} = {val};"),
            false => format!("atomicStore({loc}, {val}, {});", self.store.join(", ")),
        }
    }
    fn load(&self, reg: &str, loc: &str) -> String {
        match self.load.is_empty() {
            true => format!("{reg} = {loc};"),
            false => format!("{reg} = atomicLoad({loc}, {});", self.load.join(", ")),
        }
    }
    pub fn is_plain(&self) -> bool {
        self.load.is_empty() && self.store.is_empty()
    }

    /// Are the words ones the litmus language knows? The parser is the judge: a store and a
    /// load written with them must read back.
    pub fn check(&self) -> Result<(), String> {
        let p = [Stmt::Store(Loc::X, Val::Lit(1)), Stmt::Load(Loc::X)];
        let text = render_with(&p, 2, self).litmus(&[], "words", "", "true", None);
        crate::syntax::parse("words.litmus", text.as_bytes())
            .map(|_| ())
            .map_err(|d| {
                let first = d.0.first().map_or(String::new(), |e| e.message.clone());
                format!(
                    "the access words do not make a load and a store the litmus language reads ({first}): {} / {}",
                    self.load("r0", "x"),
                    self.store("x", "1")
                )
            })
    }
}

impl Default for Grammar {
    /// Two lanes; `x`, `slots[lane]`, `slots[next]`; values 1, 2 and op results;
    /// `subgroupAdd(1)`; barriers; `if` not nested.
    fn default() -> Self {
        Grammar {
            threads: 2,
            locs: vec![Loc::X, Loc::Own, Loc::Next],
            values: vec![1, 2],
            store_op_result: true,
            ops: vec![Op::Add],
            barrier: true,
            max_depth: 1,
            access: Access::default(),
        }
    }
}

impl Grammar {
    pub fn with_threads(mut self, n: u32) -> Self {
        self.threads = n;
        self
    }

    /// One line describing the grammar, for reports and generated files.
    pub fn describe(&self) -> String {
        let locs: Vec<&str> = self.locs.iter().map(|l| l.text()).collect();
        let mut vals: Vec<String> = self.values.iter().map(|v| v.to_string()).collect();
        if self.store_op_result && !self.ops.is_empty() {
            vals.push("op result".into());
        }
        let ops: Vec<&str> = self.ops.iter().map(|o| o.text()).collect();
        let words = |w: &[String]| match w.is_empty() {
            true => "plain".to_string(),
            false => format!("atomic with {}", w.join(", ")),
        };
        let access = match self.access.is_plain() {
            true => String::new(),
            false => format!(
                "; loads {}; stores {}",
                words(&self.access.load),
                words(&self.access.store)
            ),
        };
        format!(
            "one subgroup; locations {}; stored values {}; ops {}; barrier {}; if (lane == 0) nested to depth {}{access}",
            locs.join(", "),
            vals.join(", "),
            if ops.is_empty() { "none".to_string() } else { ops.join(", ") },
            if self.barrier { "yes" } else { "no" },
            self.max_depth
        )
    }

    /// The simple (non-`if`) statements allowed where `op_in_scope` says whether an op
    /// result can be stored.
    fn simple(&self, op_in_scope: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        for &l in &self.locs {
            for &v in &self.values {
                out.push(Stmt::Store(l, Val::Lit(v)));
            }
            if self.store_op_result && op_in_scope {
                out.push(Stmt::Store(l, Val::OpResult));
            }
        }
        for &l in &self.locs {
            out.push(Stmt::Load(l));
        }
        for &o in &self.ops {
            out.push(Stmt::SgOp(o));
        }
        if self.barrier {
            out.push(Stmt::Barrier);
        }
        out
    }

    fn lane_symmetric(&self) -> bool {
        self.threads == 2
    }
    fn xy_symmetric(&self) -> bool {
        self.locs.contains(&Loc::X) && self.locs.contains(&Loc::Y)
    }
    fn value_symmetric(&self) -> bool {
        let mut v = self.values.clone();
        v.sort_unstable();
        v == [1, 2]
    }
}

/// Counts for one size of one enumeration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Programs of the grammar of this size.
    pub raw: u64,
    /// Those kept by the symmetry reduction (one per orbit).
    pub canonical: u64,
}

/// Enumerates the programs of `g` of exactly `size` instructions, calling `visit` on the
/// canonical ones (one per symmetry orbit) until it returns `false`. Returns the counts (up
/// to the stop).
pub fn for_each(g: &Grammar, size: usize, visit: &mut dyn FnMut(&[Stmt]) -> bool) -> Counts {
    let mut e = Enumerator {
        g,
        arms: HashMap::new(),
        counts: Counts::default(),
        stopped: false,
    };
    let mut cur = Vec::new();
    e.top(size, false, &mut cur, visit);
    e.counts
}

struct Enumerator<'g> {
    g: &'g Grammar,
    /// Memo: every statement list of (size, depth, op in scope).
    arms: HashMap<(usize, usize, bool), Vec<Vec<Stmt>>>,
    counts: Counts,
    stopped: bool,
}

impl Enumerator<'_> {
    /// Top-level lists, streamed (there are many).
    fn top(
        &mut self,
        left: usize,
        op_scope: bool,
        cur: &mut Vec<Stmt>,
        visit: &mut dyn FnMut(&[Stmt]) -> bool,
    ) {
        if self.stopped {
            return;
        }
        if left == 0 {
            self.counts.raw += 1;
            if is_canonical(self.g, cur) {
                self.counts.canonical += 1;
                if !visit(cur) {
                    self.stopped = true;
                }
            }
            return;
        }
        for s in self.g.simple(op_scope) {
            let op = matches!(s, Stmt::SgOp(_));
            cur.push(s);
            self.top(left - 1, op_scope || op, cur, visit);
            cur.pop();
        }
        if self.g.max_depth > 0 {
            for a in 0..left {
                for b in 0..left - a {
                    let then_arms = self.lists(a, 1, op_scope);
                    let else_arms = self.lists(b, 1, op_scope);
                    for t in &then_arms {
                        for e in &else_arms {
                            cur.push(Stmt::If(t.clone(), e.clone()));
                            self.top(left - 1 - a - b, op_scope, cur, visit);
                            cur.pop();
                            if self.stopped {
                                return;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every statement list of exactly `size` instructions at nesting `depth`.
    fn lists(&mut self, size: usize, depth: usize, op_scope: bool) -> Vec<Vec<Stmt>> {
        if let Some(v) = self.arms.get(&(size, depth, op_scope)) {
            return v.clone();
        }
        let mut out = Vec::new();
        if size == 0 {
            out.push(Vec::new());
        } else {
            for s in self.g.simple(op_scope) {
                let op = matches!(s, Stmt::SgOp(_));
                for rest in self.lists(size - 1, depth, op_scope || op) {
                    let mut l = vec![s.clone()];
                    l.extend(rest);
                    out.push(l);
                }
            }
            if depth < self.g.max_depth {
                for a in 0..size {
                    for b in 0..size - a {
                        let ts = self.lists(a, depth + 1, op_scope);
                        let es = self.lists(b, depth + 1, op_scope);
                        let rests = self.lists(size - 1 - a - b, depth, op_scope);
                        for t in &ts {
                            for e in &es {
                                for rest in &rests {
                                    let mut l = vec![Stmt::If(t.clone(), e.clone())];
                                    l.extend(rest.iter().cloned());
                                    out.push(l);
                                }
                            }
                        }
                    }
                }
            }
        }
        self.arms.insert((size, depth, op_scope), out.clone());
        out
    }
}

// ---- symmetry ------------------------------------------------------------------------------

fn map_stmts(p: &[Stmt], f: &dyn Fn(&Stmt) -> Stmt) -> Vec<Stmt> {
    p.iter().map(f).collect()
}

fn swap_xy(p: &[Stmt]) -> Vec<Stmt> {
    fn loc(l: Loc) -> Loc {
        match l {
            Loc::X => Loc::Y,
            Loc::Y => Loc::X,
            o => o,
        }
    }
    map_stmts(p, &|s| match s {
        Stmt::Store(l, v) => Stmt::Store(loc(*l), *v),
        Stmt::Load(l) => Stmt::Load(loc(*l)),
        Stmt::If(a, b) => Stmt::If(swap_xy(a), swap_xy(b)),
        o => o.clone(),
    })
}

fn swap_lanes(p: &[Stmt]) -> Vec<Stmt> {
    map_stmts(p, &|s| match s {
        Stmt::If(a, b) => Stmt::If(swap_lanes(b), swap_lanes(a)),
        o => o.clone(),
    })
}

fn stores_op_result(p: &[Stmt], global: usize) -> bool {
    p.iter().any(|s| match s {
        Stmt::Store(l, Val::OpResult) => l.global() == global,
        Stmt::If(a, b) => stores_op_result(a, global) || stores_op_result(b, global),
        _ => false,
    })
}

fn uses_elect(p: &[Stmt]) -> bool {
    p.iter().any(|s| match s {
        Stmt::SgOp(Op::Elect) => true,
        Stmt::If(a, b) => uses_elect(a) || uses_elect(b),
        _ => false,
    })
}

/// Swaps the constants 1 and 2 in the stores to `global` (identity when one of them stores
/// an op result: then the swap is no symmetry).
fn swap_values(p: &[Stmt], global: usize) -> Vec<Stmt> {
    if stores_op_result(p, global) {
        return p.to_vec();
    }
    fn go(p: &[Stmt], global: usize) -> Vec<Stmt> {
        map_stmts(p, &|s| match s {
            Stmt::Store(l, Val::Lit(v)) if l.global() == global => {
                Stmt::Store(*l, Val::Lit(3 - *v))
            }
            Stmt::If(a, b) => Stmt::If(go(a, global), go(b, global)),
            o => o.clone(),
        })
    }
    go(p, global)
}

/// The total order in which an orbit's least program is its representative: programs
/// compared with their `if` arms swapped, so that representatives put lane 0's work in the
/// `then` arm and leave the `else` arm empty where they can (easier to read).
fn order_key(p: &[Stmt]) -> Vec<Stmt> {
    swap_lanes(p)
}

/// The images of `p` under every symmetry of the grammar that applies to it (its orbit,
/// with repetitions; `p` itself first).
pub fn orbit(g: &Grammar, p: &[Stmt]) -> Vec<Vec<Stmt>> {
    let xy = if g.xy_symmetric() { 2 } else { 1 };
    let lanes = if g.lane_symmetric() && !uses_elect(p) {
        2
    } else {
        1
    };
    let vals = if g.value_symmetric() { 8 } else { 1 };
    let mut out = Vec::with_capacity(xy * lanes * vals);
    for a in 0..xy {
        for e in 0..lanes {
            for bits in 0..vals {
                let mut q = p.to_vec();
                if a == 1 {
                    q = swap_xy(&q);
                }
                if e == 1 {
                    q = swap_lanes(&q);
                }
                for gl in 0..3 {
                    if bits & (1 << gl) != 0 {
                        q = swap_values(&q, gl);
                    }
                }
                out.push(q);
            }
        }
    }
    out
}

/// Is `p` the least program of its orbit under the grammar's symmetries (in the order of
/// [`order_key`])?
pub fn is_canonical(g: &Grammar, p: &[Stmt]) -> bool {
    let key = order_key(p);
    orbit(g, p).iter().skip(1).all(|q| order_key(q) >= key)
}

// ---- printing ------------------------------------------------------------------------------

/// A program rendered as kernel text, with what it declares and observes.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The header (threads, globals) and the kernel block, without test name or condition.
    pub body: String,
    /// Register names in textual order.
    pub regs: Vec<String>,
    /// Declared globals: (name, cells).
    pub globals: Vec<(String, u32)>,
}

impl Rendered {
    /// Every register of every thread, then every memory cell.
    pub fn observables(&self, threads: u32) -> Vec<Operand> {
        let mut out = Vec::new();
        for t in 0..threads {
            for r in &self.regs {
                out.push(Operand::Reg {
                    thread: t,
                    reg: r.clone(),
                });
            }
        }
        for (g, n) in &self.globals {
            for i in 0..*n {
                out.push(Operand::Mem {
                    global: g.clone(),
                    index: i,
                });
            }
        }
        out
    }

    /// A complete `.litmus` text.
    pub fn litmus(
        &self,
        comments: &[String],
        name: &str,
        description: &str,
        condition: &str,
        expect: Option<&str>,
    ) -> String {
        let mut out = String::new();
        for c in comments {
            // Wrapped at 100 columns.
            let mut line = String::from("//");
            for w in c.split_whitespace() {
                if line.len() + 1 + w.len() > 100 && line.len() > 2 {
                    let _ = writeln!(out, "{line}");
                    line = String::from("//");
                }
                line.push(' ');
                line.push_str(w);
            }
            let _ = writeln!(out, "{line}");
        }
        let _ = writeln!(out, "test {name} \"{description}\"");
        out.push_str(&self.body);
        let _ = writeln!(out, "\nexists ({condition})");
        if let Some(e) = expect {
            let _ = writeln!(out, "expect {e}");
        }
        out
    }
}

struct Printer<'a> {
    access: &'a Access,
    out: String,
    loads: usize,
    ops: usize,
    regs: Vec<String>,
    uses: [bool; 3],
    next: bool,
}

impl Printer<'_> {
    fn line(&mut self, depth: usize, s: &str) {
        for _ in 0..=depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn stmts(&mut self, p: &[Stmt], depth: usize, mut last_op: Option<String>) {
        for s in p {
            match s {
                Stmt::Store(l, v) => {
                    self.loc(*l);
                    let val = match v {
                        Val::Lit(c) => c.to_string(),
                        Val::OpResult => last_op
                            .clone()
                            .expect("an op result is stored only with an op in scope"),
                    };
                    let line = self.access.store(l.text(), &val);
                    self.line(depth, &line);
                }
                Stmt::Load(l) => {
                    self.loc(*l);
                    let r = format!("r{}", self.loads);
                    self.loads += 1;
                    let line = self.access.load(&r, l.text());
                    self.line(depth, &line);
                    self.regs.push(r);
                }
                Stmt::SgOp(o) => {
                    let r = format!("s{}", self.ops);
                    self.ops += 1;
                    self.line(depth, &format!("{r} = {};", o.text()));
                    self.regs.push(r.clone());
                    last_op = Some(r);
                }
                Stmt::Barrier => self.line(depth, "subgroupBarrier();"),
                Stmt::If(a, b) => {
                    self.line(depth, "if (lane == 0) {");
                    self.stmts(a, depth + 1, last_op.clone());
                    if b.is_empty() {
                        self.line(depth, "}");
                    } else {
                        self.line(depth, "} else {");
                        self.stmts(b, depth + 1, last_op.clone());
                        self.line(depth, "}");
                    }
                }
            }
        }
    }

    fn loc(&mut self, l: Loc) {
        self.uses[l.global()] = true;
        if l == Loc::Next {
            self.next = true;
        }
    }
}

/// The text around a kernel's statements: `threads`, the globals in use (`uses`: x, y,
/// slots), the kernel block with the definition of `next` when it is used, then `stmts`
/// (indented lines, each ending in a newline). Returns the body, the declared globals and the
/// number of body lines before the first line of `stmts`.
pub(crate) fn frame(
    threads: u32,
    uses: [bool; 3],
    next: bool,
    stmts: &str,
) -> (String, Vec<(String, u32)>, usize) {
    let mut body = String::new();
    let _ = writeln!(body, "threads {threads}");
    let mut globals = Vec::new();
    for (i, name) in ["x", "y", "slots"].into_iter().enumerate() {
        if uses[i] {
            if i == 2 {
                let _ = writeln!(body, "global slots[{threads}]");
                globals.push((name.to_string(), threads));
            } else {
                let _ = writeln!(body, "global {name}");
                globals.push((name.to_string(), 1));
            }
        }
    }
    body.push_str("\nkernel {\n");
    if next {
        let _ = writeln!(body, "  next = (lane + 1) % {threads};");
    }
    let before = body.lines().count();
    body.push_str(stmts);
    body.push_str("}\n");
    (body, globals, before)
}

/// Renders a program for `threads` lanes in one subgroup, with plain accesses.
pub fn render(p: &[Stmt], threads: u32) -> Rendered {
    render_with(p, threads, &Access::default())
}

/// Renders a program for `threads` lanes in one subgroup, its loads and stores written as
/// `access` says.
pub fn render_with(p: &[Stmt], threads: u32, access: &Access) -> Rendered {
    let mut pr = Printer {
        access,
        out: String::new(),
        loads: 0,
        ops: 0,
        regs: Vec::new(),
        uses: [false; 3],
        next: false,
    };
    pr.stmts(p, 0, None);
    let (body, globals, _) = frame(threads, pr.uses, pr.next, &pr.out);
    Rendered {
        body,
        regs: pr.regs,
        globals,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(g: &Grammar, size: usize) -> Counts {
        for_each(g, size, &mut |_| true)
    }

    #[test]
    fn sizes_count_if_as_one() {
        let p = vec![
            Stmt::Load(Loc::X),
            Stmt::If(vec![Stmt::SgOp(Op::Add)], vec![]),
        ];
        assert_eq!(size(&p), 3);
    }

    #[test]
    fn enumeration_is_exact_and_symmetry_keeps_one_per_orbit() {
        let g = Grammar {
            locs: vec![Loc::X, Loc::Y],
            values: vec![1, 2],
            store_op_result: false,
            ops: vec![],
            barrier: false,
            max_depth: 0,
            threads: 2,
            access: Access::default(),
        };
        // Size 1: x=1 x=2 y=1 y=2 r=x r=y; orbits {x=1,x=2,y=1,y=2} {r=x,r=y}.
        assert_eq!(
            count(&g, 1),
            Counts {
                raw: 6,
                canonical: 2
            }
        );
        // With ifs: size 1 adds the empty if (its own orbit).
        let g2 = Grammar {
            max_depth: 1,
            ..g.clone()
        };
        assert_eq!(count(&g2, 1).canonical, 3);
        // Every raw program of size 2 has exactly one canonical program in its orbit, and
        // that is one the enumeration visits: check by brute force over the raw programs.
        let mut seen = Vec::new();
        let counts = for_each(&g2, 2, &mut |p| {
            seen.push(p.to_vec());
            true
        });
        assert!(!seen.is_empty());
        assert_eq!(seen.len() as u64, counts.canonical);
        assert_eq!(counts, count(&g2, 2));
        let distinct: std::collections::HashSet<&Vec<Stmt>> = seen.iter().collect();
        assert_eq!(
            distinct.len(),
            seen.len(),
            "a canonical program visited twice"
        );
        let raw = raw_programs(&g2, 2);
        assert_eq!(raw.len() as u64, counts.raw);
        assert!(
            counts.canonical < counts.raw,
            "the symmetries reduce nothing"
        );
        let mut reached = std::collections::HashSet::new();
        for p in &raw {
            assert_eq!(size(p), 2);
            let mut canonical: Vec<Vec<Stmt>> = orbit(&g2, p)
                .into_iter()
                .filter(|q| is_canonical(&g2, q))
                .collect();
            canonical.sort();
            canonical.dedup();
            assert_eq!(canonical.len(), 1, "{p:?}: canonical members {canonical:?}");
            assert!(
                distinct.contains(&canonical[0]),
                "{p:?}: {canonical:?} not visited"
            );
            // A program is visited exactly when it is canonical.
            assert_eq!(is_canonical(&g2, p), distinct.contains(p), "{p:?}");
            reached.insert(canonical[0].clone());
        }
        // And every visited program is the representative of some raw program's orbit.
        assert_eq!(reached.len(), seen.len());
    }

    /// Every program of `g` of exactly `size` instructions, canonical or not (the statement
    /// lists the enumerator builds from, at top level).
    fn raw_programs(g: &Grammar, size: usize) -> Vec<Vec<Stmt>> {
        let mut e = Enumerator {
            g,
            arms: HashMap::new(),
            counts: Counts::default(),
            stopped: false,
        };
        e.lists(size, 0, false)
    }

    #[test]
    fn orbits_of_canonical_programs_partition_the_grammar() {
        let g = Grammar {
            locs: vec![Loc::X, Loc::Y, Loc::Own, Loc::Next],
            ops: vec![Op::Add],
            ..Grammar::default()
        };
        for n in 1..=3 {
            let mut covered = std::collections::HashSet::new();
            let counts = for_each(&g, n, &mut |p| {
                for q in orbit(&g, p) {
                    assert_eq!(size(&q), n);
                    covered.insert(q);
                }
                true
            });
            // Every program is in the orbit of exactly one canonical program (orbits are
            // disjoint or equal, and each has one least element), so the orbits cover the
            // grammar exactly.
            assert_eq!(covered.len() as u64, counts.raw, "size {n}");
            assert!(counts.canonical < counts.raw);
        }
    }

    #[test]
    fn rendering_numbers_registers_and_declares_used_globals() {
        let p = vec![
            Stmt::Load(Loc::Next),
            Stmt::If(
                vec![Stmt::SgOp(Op::Add), Stmt::Store(Loc::X, Val::OpResult)],
                vec![],
            ),
        ];
        let r = render(&p, 2);
        assert_eq!(r.regs, ["r0", "s0"]);
        assert!(r.body.contains("global x\nglobal slots[2]"));
        assert!(r.body.contains("next = (lane + 1) % 2;"));
        assert!(r.body.contains("    x = s0;"));
        let text = r.litmus(&[], "t", "d", "true", None);
        assert!(crate::syntax::parse("t.litmus", text.as_bytes()).is_ok());
    }
}
