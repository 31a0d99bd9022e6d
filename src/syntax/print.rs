//! AST -> `.litmus` text: the inverse of [`super::parse`].
//!
//! [`to_litmus`] writes a test so that parsing the text gives back the same AST, up to source
//! positions and the recorded file name and text ([`normalized`] clears those, so two tests
//! can be compared as ASTs). Comments are not part of the AST and are lost. Expressions get
//! parentheses only where C precedence needs them, so the nesting depth of the text stays
//! that of the AST (the parser's depth limit counts parentheses).

use super::ast::{
    BarrierScope, Condition, Expr, ExprKind, Global, Operand, Prop, Stmt, StmtKind, Test,
};
use super::diag::Span;
use crate::vocab::BinOp;
use std::fmt::Write;

/// The register the parser gives a subgroup op written as a statement (`subgroupAll(true);`).
const DISCARD: &str = "$discard";

/// The test as `.litmus` text that re-parses to an equal AST (up to spans, file and source).
pub fn to_litmus(test: &Test) -> String {
    let mut s = String::new();
    let _ = write!(s, "test {}", test.name);
    if let Some(d) = &test.description {
        let _ = write!(s, " \"{}\"", escape(d));
    }
    s.push('\n');
    let _ = writeln!(s, "threads {}", test.threads);
    if test.subgroup != test.threads {
        let _ = writeln!(s, "subgroup {}", test.subgroup);
    }
    if test.workgroup != test.threads {
        let _ = writeln!(s, "workgroup {}", test.workgroup);
    }
    for g in &test.globals {
        let _ = writeln!(s, "{}", global(g));
    }
    s.push_str("\nkernel {\n");
    for st in &test.kernel {
        stmt(&mut s, st, 1);
    }
    s.push_str("}\n\n");
    if let Some(f) = &test.filter {
        s.push_str("filter (");
        prop(&mut s, f, 0, &test.globals);
        s.push_str(")\n");
    }
    s.push_str(&condition(&test.condition, &test.globals));
    s.push('\n');
    if !test.expect.is_empty() {
        let items: Vec<String> = test
            .expect
            .iter()
            .map(|e| {
                let verdict = if e.allow { "allow" } else { "forbid" };
                match &e.model {
                    Some(m) => format!("{m} {verdict}"),
                    None => verdict.to_string(),
                }
            })
            .collect();
        let _ = writeln!(s, "expect {}", items.join(", "));
    }
    if !test.expect_liveness.is_empty() {
        let items: Vec<String> = test
            .expect_liveness
            .iter()
            .map(|e| {
                let verdict = if e.live { "live" } else { "violated" };
                match &e.model {
                    Some(m) => format!("{m} {} {verdict}", e.progress),
                    None => format!("{} {verdict}", e.progress),
                }
            })
            .collect();
        let _ = writeln!(s, "expect-liveness {}", items.join(", "));
    }
    s
}

/// The test with every span zeroed and `file`/`source` emptied: two tests that differ only in
/// layout, comments or file name normalize to equal values.
pub fn normalized(test: &Test) -> Test {
    let mut t = test.clone();
    t.file.clear();
    t.source.clear();
    for g in &mut t.globals {
        g.span = Span::default();
    }
    for s in &mut t.kernel {
        clear_stmt(s);
    }
    t.condition.span = Span::default();
    for e in &mut t.expect {
        e.span = Span::default();
    }
    for e in &mut t.expect_liveness {
        e.span = Span::default();
        e.progress_span = Span::default();
    }
    t
}

/// A statement as text (one line for simple statements; blocks span several lines), without
/// indentation or a final newline: for messages that quote a statement.
pub fn stmt_to_string(st: &Stmt) -> String {
    let mut s = String::new();
    stmt(&mut s, st, 0);
    s.trim_end().to_string()
}

/// An expression as text.
pub fn expr_to_string(e: &Expr) -> String {
    let mut s = String::new();
    expr(&mut s, e);
    s
}

/// The condition line: `exists (P)`, `~exists (P)` or `forall (P)`; `globals` tell scalars
/// (`x`) from arrays (`a[0]`).
pub fn condition(c: &Condition, globals: &[Global]) -> String {
    let mut s = String::new();
    let _ = write!(s, "{} (", c.quantifier.keyword());
    prop(&mut s, &c.prop, 0, globals);
    s.push(')');
    s
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn global(g: &Global) -> String {
    let mut s = format!("global {}", g.name);
    match g.len {
        None => {
            let v = g.init.first().copied().unwrap_or(0);
            if v != 0 {
                let _ = write!(s, " = {v}");
            }
        }
        Some(n) => {
            let _ = write!(s, "[{n}]");
            let last = g.init.iter().rposition(|&v| v != 0);
            if let Some(last) = last {
                let vals: Vec<String> = g.init[..=last].iter().map(|v| v.to_string()).collect();
                let _ = write!(s, " = {{{}}}", vals.join(", "));
            }
        }
    }
    s
}

fn clear_stmt(s: &mut Stmt) {
    s.span = Span::default();
    match &mut s.kind {
        StmtKind::Assign { value, .. } => clear_expr(value),
        StmtKind::Load { index, .. } => index.iter_mut().for_each(clear_expr),
        StmtKind::Store { index, value, .. } => {
            index.iter_mut().for_each(clear_expr);
            clear_expr(value);
        }
        StmtKind::Atomic { index, args, .. } => {
            index.iter_mut().for_each(clear_expr);
            args.iter_mut().for_each(clear_expr);
        }
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            clear_expr(cond);
            then_body.iter_mut().for_each(clear_stmt);
            else_body.iter_mut().for_each(clear_stmt);
        }
        StmtKind::While { cond, body } => {
            clear_expr(cond);
            body.iter_mut().for_each(clear_stmt);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            init.iter_mut().for_each(|s| clear_stmt(s));
            cond.iter_mut().for_each(clear_expr);
            step.iter_mut().for_each(|s| clear_stmt(s));
            body.iter_mut().for_each(clear_stmt);
        }
        StmtKind::Loop { body, continuing } => {
            body.iter_mut().for_each(clear_stmt);
            continuing.iter_mut().for_each(clear_stmt);
        }
        StmtKind::Fence { id } => id.iter_mut().for_each(clear_expr),
        StmtKind::Barrier(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return
        | StmtKind::Unreachable => {}
    }
}

fn clear_expr(e: &mut Expr) {
    e.span = Span::default();
    match &mut e.kind {
        ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => {}
        ExprKind::Unary(_, a) => clear_expr(a),
        ExprKind::Binary(_, a, b) => {
            clear_expr(a);
            clear_expr(b);
        }
        ExprKind::Ternary(a, b, c) => {
            clear_expr(a);
            clear_expr(b);
            clear_expr(c);
        }
        ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => args.iter_mut().for_each(clear_expr),
    }
}

fn indent(s: &mut String, depth: usize) {
    for _ in 0..depth {
        s.push_str("  ");
    }
}

fn stmt(s: &mut String, st: &Stmt, depth: usize) {
    indent(s, depth);
    match &st.kind {
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            s.push_str("if (");
            expr(s, cond);
            s.push_str(") ");
            block(s, then_body, depth);
            if !else_body.is_empty() {
                s.push_str(" else ");
                block(s, else_body, depth);
            }
            s.push('\n');
        }
        StmtKind::While { cond, body } => {
            s.push_str("while (");
            expr(s, cond);
            s.push_str(") ");
            block(s, body, depth);
            s.push('\n');
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            s.push_str("for (");
            if let Some(i) = init {
                simple(s, i);
            }
            s.push_str("; ");
            if let Some(c) = cond {
                expr(s, c);
            }
            s.push_str("; ");
            if let Some(st) = step {
                simple(s, st);
            }
            s.push_str(") ");
            block(s, body, depth);
            s.push('\n');
        }
        StmtKind::Loop { body, continuing } => {
            s.push_str("loop ");
            if continuing.is_empty() {
                block(s, body, depth);
            } else {
                // WGSL's spelling; litmus files have no continue construct (only shaders
                // lower to one), so this text is for reading, not for re-parsing.
                s.push_str("{\n");
                for b in body {
                    stmt(s, b, depth + 1);
                }
                indent(s, depth + 1);
                s.push_str("continuing ");
                block(s, continuing, depth + 1);
                s.push('\n');
                indent(s, depth);
                s.push('}');
            }
            s.push('\n');
        }
        StmtKind::Break => s.push_str("break;\n"),
        StmtKind::Continue => s.push_str("continue;\n"),
        StmtKind::Return => s.push_str("return;\n"),
        StmtKind::Unreachable => s.push_str("unreachable;\n"),
        StmtKind::Barrier(scope) => {
            let mut words = tag_words(&st.tags);
            s.push_str(match scope {
                BarrierScope::Subgroup => "subgroupBarrier(",
                BarrierScope::Workgroup => "barrier(",
                BarrierScope::Quorum { name, quorum } => {
                    words.insert(0, format!("quorum({name}, {quorum})"));
                    "barrier("
                }
            });
            s.push_str(&words.join(", "));
            s.push_str(");\n");
        }
        StmtKind::Fence { id } => {
            let mut words = tag_words(&st.tags);
            if let Some(id) = id {
                words.insert(0, format!("id({})", expr_to_string(id)));
            }
            let _ = writeln!(s, "fence({});", words.join(", "));
        }
        _ => {
            simple(s, st);
            s.push_str(";\n");
        }
    }
}

/// `{ ... }` with the closing brace at `depth`, no newline after it.
fn block(s: &mut String, body: &[Stmt], depth: usize) {
    s.push_str("{\n");
    for st in body {
        stmt(s, st, depth + 1);
    }
    indent(s, depth);
    s.push('}');
}

/// An assignment, load, store or atomic without its `;` (also the parts of `for`).
fn simple(s: &mut String, st: &Stmt) {
    match &st.kind {
        StmtKind::Assign { reg, value } => {
            if reg != DISCARD {
                let _ = write!(s, "{} = ", reg_name(reg));
            }
            expr(s, value);
        }
        StmtKind::Load { reg, global, index } if !st.tags.is_empty() => {
            let _ = write!(s, "{} = atomicLoad(", reg_name(reg));
            access(s, global, index.as_ref());
            tagged_end(s, &st.tags);
        }
        StmtKind::Load { reg, global, index } => {
            let _ = write!(s, "{} = ", reg_name(reg));
            access(s, global, index.as_ref());
        }
        StmtKind::Store {
            global,
            index,
            value,
        } if !st.tags.is_empty() => {
            s.push_str("atomicStore(");
            access(s, global, index.as_ref());
            s.push_str(", ");
            expr(s, value);
            tagged_end(s, &st.tags);
        }
        StmtKind::Store {
            global,
            index,
            value,
        } => {
            access(s, global, index.as_ref());
            s.push_str(" = ");
            expr(s, value);
        }
        StmtKind::Atomic {
            reg,
            op,
            global,
            index,
            args,
        } => {
            if let Some(r) = reg {
                let _ = write!(s, "{} = ", reg_name(r));
            }
            let _ = write!(s, "{}(", op.name());
            access(s, global, index.as_ref());
            for a in args {
                s.push_str(", ");
                expr(s, a);
            }
            tagged_end(s, &st.tags);
        }
        // Not simple statements: only reachable through a malformed `for` built by hand.
        _ => {
            let mut inner = String::new();
            stmt(&mut inner, st, 0);
            s.push_str(inner.trim_end().trim_end_matches(';'));
        }
    }
}

fn access(s: &mut String, global: &str, index: Option<&Expr>) {
    s.push_str(global);
    if let Some(i) = index {
        s.push('[');
        expr(s, i);
        s.push(']');
    }
}

/// C precedence of a binary operator, as in the parser (higher binds tighter).
/// A register as litmus text. The shader front end's hidden registers (`$s1`,
/// `$returned.f`) are not identifiers; they print as `tmp_s1`, `tmp_returned_f`, so that
/// `tangle show` gives a file tangle can read back.
fn reg_name(r: &str) -> std::borrow::Cow<'_, str> {
    match r.strip_prefix('$') {
        Some(rest) => format!("tmp_{}", rest.replace('.', "_")).into(),
        None => r.into(),
    }
}

fn prec(op: BinOp) -> u8 {
    use BinOp::*;
    match op {
        LOr => 1,
        LAnd => 2,
        BitOr => 3,
        BitXor => 4,
        BitAnd => 5,
        Eq | Ne => 6,
        Lt | Le | Gt | Ge => 7,
        Shl | Shr => 8,
        Add | Sub => 9,
        Mul | Div | Rem => 10,
    }
}

fn expr(s: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Lit(v) => {
            let _ = write!(s, "{v}");
        }
        ExprKind::Reg(r) => s.push_str(&reg_name(r)),
        ExprKind::Builtin(b) => s.push_str(b.name()),
        ExprKind::Unary(op, a) => {
            s.push_str(op.symbol());
            operand(s, a, parenthesised(&e.kind, a, true));
        }
        ExprKind::Binary(op, a, b) => {
            operand(s, a, parenthesised(&e.kind, a, true));
            let _ = write!(s, " {} ", op.symbol());
            operand(s, b, parenthesised(&e.kind, b, false));
        }
        ExprKind::Ternary(c, a, b) => {
            operand(s, c, parenthesised(&e.kind, c, true));
            s.push_str(" ? ");
            expr(s, a);
            s.push_str(" : ");
            expr(s, b);
        }
        ExprKind::SgOp(op, args) => {
            s.push_str(&op.name());
            call_args(s, args);
        }
        ExprKind::Call(f, args) => {
            s.push_str(f.name());
            call_args(s, args);
        }
    }
}

/// Whether the printer writes `child`, an operand of `parent` (its first operand when `first`:
/// a unary operator's, a binary operator's left, a conditional's condition), in parentheses:
/// only where precedence needs them. `validate` counts these parentheses as the parser will.
pub(crate) fn parenthesised(parent: &ExprKind, child: &Expr, first: bool) -> bool {
    match (parent, &child.kind) {
        (ExprKind::Unary(..), ExprKind::Binary(..) | ExprKind::Ternary(..)) => true,
        (ExprKind::Binary(..), ExprKind::Ternary(..)) => true,
        (ExprKind::Binary(op, ..), ExprKind::Binary(o, ..)) => {
            if first {
                prec(*o) < prec(*op)
            } else {
                prec(*o) <= prec(*op)
            }
        }
        (ExprKind::Ternary(..), ExprKind::Ternary(..)) => first,
        _ => false,
    }
}

fn operand(s: &mut String, e: &Expr, parens: bool) {
    if parens {
        s.push('(');
        expr(s, e);
        s.push(')');
    } else {
        expr(s, e);
    }
}

fn call_args(s: &mut String, args: &[Expr]) {
    s.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        expr(s, a);
    }
    s.push(')');
}

/// Precedence levels of propositions: `||` 1, `&&` 2, atoms and `!` 3.
pub(crate) fn prop_level(p: &Prop) -> u8 {
    match p {
        Prop::Or(..) => 1,
        Prop::And(..) => 2,
        _ => 3,
    }
}

/// Whether `!` is followed by its operand bare (an atom or another `!`), not in parentheses.
pub(crate) fn bare_after_not(a: &Prop) -> bool {
    matches!(
        a,
        Prop::True | Prop::False | Prop::Truthy(_) | Prop::Cmp(..) | Prop::Not(_)
    )
}

/// Writes `p`, in parentheses when it binds looser than `min` ([`prop_level`]).
fn prop(s: &mut String, p: &Prop, min: u8, g: &[Global]) {
    let parens = prop_level(p) < min;
    if parens {
        s.push('(');
    }
    match p {
        Prop::True => s.push_str("true"),
        Prop::False => s.push_str("false"),
        Prop::Not(a) => {
            s.push('!');
            // `!` applies to a parenthesised proposition or an atom.
            if bare_after_not(a) {
                prop(s, a, 3, g);
            } else {
                s.push('(');
                prop(s, a, 0, g);
                s.push(')');
            }
        }
        // Left-associative: the right operand of the same operator needs parentheses.
        Prop::Or(a, b) => {
            prop(s, a, 1, g);
            s.push_str(" || ");
            prop(s, b, 2, g);
        }
        Prop::And(a, b) => {
            prop(s, a, 2, g);
            s.push_str(" && ");
            prop(s, b, 3, g);
        }
        Prop::Cmp(op, a, b) => {
            cond_operand(s, a, g);
            let _ = write!(s, " {} ", op.symbol());
            cond_operand(s, b, g);
        }
        Prop::Truthy(a) => cond_operand(s, a, g),
    }
    if parens {
        s.push(')');
    }
}

fn cond_operand(s: &mut String, o: &Operand, globals: &[Global]) {
    s.push_str(&o.name(globals));
}

/// The litmus words of a statement's memory tags (`A` is implied by an order, so omitted
/// then; without one it is printed, `atomic`).
fn tag_words(tags: &[String]) -> Vec<String> {
    let ordered = tags
        .iter()
        .any(|t| matches!(t.as_str(), "RLX" | "ACQ" | "REL" | "SC"));
    let mut tags: Vec<&str> = tags
        .iter()
        .map(String::as_str)
        .filter(|t| *t != "A" || !ordered)
        .collect();
    // `acq_rel` reads back as the two tags it stands for; `seq_cst` as its three (a lone
    // `SC`, as PTX's `fence.sc` has, is printed quoted).
    if ["SC", "ACQ", "REL"].iter().all(|t| tags.contains(t)) {
        tags.retain(|t| !matches!(*t, "ACQ" | "REL"));
        tags.iter_mut().for_each(|t| {
            if *t == "SC" {
                *t = "seq_cst";
            }
        });
    }
    tags.iter()
        .map(|t| {
            if *t == "seq_cst" {
                t.to_string()
            } else {
                crate::vocab::memory_tag_word(t)
            }
        })
        .collect()
}

/// `, tags...)` closing an atomic call.
fn tagged_end(s: &mut String, tags: &[String]) {
    for w in tag_words(tags) {
        s.push_str(", ");
        s.push_str(&w);
    }
    s.push(')');
}

/// An outcome in herd's final-state notation, `x=1; 0:r=2;`: how every report (and the JSON
/// `outcome` field of `equiv`) writes the values of named observables.
pub fn outcome(names: &[String], values: &[u32]) -> String {
    let cells: Vec<String> = names
        .iter()
        .zip(values)
        .map(|(n, v)| format!("{n}={v};"))
        .collect();
    cells.join(" ")
}
