//! The facts every [`Test`] must satisfy, whichever front end built it (litmus parser, SPIR-V
//! reader, Dartagnan's dialects, shaders): thread geometry, memory size and nesting within
//! [`super::limits`]. The litmus parser states each with a caret where the user wrote it;
//! this check is the one place the other front ends meet the same limits, so that no test
//! reaches the IR that `tangle check` on its printed form would refuse.

use super::ast::{Expr, ExprKind, Prop, Stmt, StmtKind, Test};
use super::limits::{MAX_CELLS, MAX_DEPTH, MAX_SUBGROUP, MAX_THREADS};
use super::{Diagnostic, Diagnostics, Span};

/// Every limit a test breaks, located where the test says so.
pub fn check(test: &Test) -> Result<(), Diagnostics> {
    let mut out = Vec::new();
    let mut say = |span: Span, msg: String| {
        out.push(if span == Span::default() {
            Diagnostic::bare(&test.file, 1, 1, msg)
        } else {
            Diagnostic::new(&test.file, &test.source, span, msg)
        })
    };
    let whole = Span::default();
    if !(1..=MAX_THREADS).contains(&test.threads) {
        say(
            whole,
            format!(
                "{} threads: the number of threads must be between 1 and {MAX_THREADS}",
                test.threads
            ),
        );
    }
    if !(1..=MAX_SUBGROUP).contains(&test.subgroup) {
        say(
            whole,
            format!(
                "a subgroup of {} lanes: a subgroup has between 1 and {MAX_SUBGROUP} lanes",
                test.subgroup
            ),
        );
    }
    if test.workgroup == 0 || !test.threads.is_multiple_of(test.workgroup) {
        say(
            whole,
            format!(
                "the workgroup size {} does not divide the {} threads",
                test.workgroup, test.threads
            ),
        );
    }
    let cells: u64 = test.globals.iter().map(|g| g.cells() as u64).sum();
    if cells > MAX_CELLS as u64 {
        say(
            whole,
            format!("{cells} memory cells: at most {MAX_CELLS} are supported"),
        );
    }
    if let Some(span) = too_deep_stmts(&test.kernel, 0) {
        say(span, nesting_message());
    }
    if prop_depth(&test.condition.prop) > MAX_DEPTH {
        say(test.condition.span, nesting_message());
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(out))
    }
}

fn nesting_message() -> String {
    format!("nesting too deep: more than {MAX_DEPTH} levels of blocks, parentheses and operators")
}

/// The first statement nested deeper than the limit (blocks and expressions together).
fn too_deep_stmts(body: &[Stmt], depth: u32) -> Option<Span> {
    body.iter().find_map(|s| too_deep_stmt(s, depth + 1))
}

fn too_deep_stmt(s: &Stmt, depth: u32) -> Option<Span> {
    if depth > MAX_DEPTH {
        return Some(s.span);
    }
    let expr = |e: &Expr| (depth + expr_depth(e) > MAX_DEPTH).then_some(e.span);
    match &s.kind {
        StmtKind::Assign { value, .. } => expr(value),
        StmtKind::Load { index, .. } => index.as_ref().and_then(expr),
        StmtKind::Store { index, value, .. } => {
            index.as_ref().and_then(expr).or_else(|| expr(value))
        }
        StmtKind::Atomic { index, args, .. } => index
            .as_ref()
            .and_then(expr)
            .or_else(|| args.iter().find_map(expr)),
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => expr(cond)
            .or_else(|| too_deep_stmts(then_body, depth))
            .or_else(|| too_deep_stmts(else_body, depth)),
        StmtKind::While { cond, body } => expr(cond).or_else(|| too_deep_stmts(body, depth)),
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => init
            .as_deref()
            .and_then(|i| too_deep_stmt(i, depth + 1))
            .or_else(|| cond.as_ref().and_then(expr))
            .or_else(|| step.as_deref().and_then(|i| too_deep_stmt(i, depth + 1)))
            .or_else(|| too_deep_stmts(body, depth)),
        StmtKind::Loop { body, continuing } => {
            too_deep_stmts(body, depth).or_else(|| too_deep_stmts(continuing, depth))
        }
        StmtKind::Barrier(_) | StmtKind::Fence | StmtKind::Break | StmtKind::Continue => None,
        StmtKind::Return => None,
    }
}

/// An expression's height, a chain of binary operators (`a + b - c`, a flat `&&` of 400
/// terms) counting as one level as the parser reads it: a left operand adds nothing.
fn expr_depth(e: &Expr) -> u32 {
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => 1,
        ExprKind::Unary(_, a) => 1 + expr_depth(a),
        ExprKind::Binary(_, a, b) => expr_depth(a).max(1 + expr_depth(b)),
        ExprKind::Ternary(c, a, b) => 1 + expr_depth(c).max(expr_depth(a)).max(expr_depth(b)),
        ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => {
            1 + args.iter().map(expr_depth).max().unwrap_or(0)
        }
    }
}

/// A condition's height, chains of `/\` or `\/` counting as one level.
fn prop_depth(p: &Prop) -> u32 {
    match p {
        Prop::True | Prop::False | Prop::Cmp(..) | Prop::Truthy(_) => 1,
        Prop::Not(a) => 1 + prop_depth(a),
        Prop::And(a, b) => chain(p, a, b),
        Prop::Or(a, b) => chain(p, a, b),
    }
}

fn chain(p: &Prop, a: &Prop, b: &Prop) -> u32 {
    let same = |x: &Prop| std::mem::discriminant(x) == std::mem::discriminant(p);
    let side = |x: &Prop| prop_depth(x) + u32::from(!same(x));
    side(a).max(side(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ast::BarrierScope;

    fn parsed(src: &str) -> Test {
        crate::syntax::parse("t.litmus", src.as_bytes()).expect("parses")
    }

    const SMALL: &str =
        "test t\nthreads 4\nsubgroup 4\nglobal x\nkernel {\n  r = x;\n}\nexists (0:r == 0)\n";

    #[test]
    fn geometry_built_by_another_front_end_is_held_to_the_parsers_limits() {
        let mut t = parsed(SMALL);
        assert!(check(&t).is_ok());
        t.subgroup = 65;
        let e = check(&t).expect_err("65 lanes").to_string();
        assert!(e.contains("between 1 and 64 lanes"), "{e}");
        let mut t = parsed(SMALL);
        t.workgroup = 3;
        let e = check(&t).expect_err("3 does not divide 4").to_string();
        assert!(e.contains("does not divide the 4 threads"), "{e}");
        let mut t = parsed(SMALL);
        t.threads = MAX_THREADS + 1;
        t.workgroup = t.threads;
        assert!(check(&t).is_err());
    }

    #[test]
    fn deep_nesting_is_refused_and_flat_chains_are_not() {
        let mut t = parsed(SMALL);
        let leaf = t.kernel[0].clone();
        let mut body = vec![leaf.clone()];
        for _ in 0..MAX_DEPTH {
            let mut s = leaf.clone();
            s.kind = StmtKind::If {
                cond: Expr {
                    kind: ExprKind::Lit(1),
                    span: leaf.span,
                },
                then_body: body,
                else_body: vec![],
            };
            body = vec![s];
        }
        t.kernel = body;
        let e = check(&t).expect_err("201 levels").to_string();
        assert!(e.contains("nesting too deep"), "{e}");

        // What the parser accepts passes: 150 `+` in a row (the parser counts each operator
        // as a level) and a 400-term `/\` condition (one level, as the parser reads it).
        let terms: Vec<String> = (0..150).map(|i| format!("{i}")).collect();
        let conds: Vec<String> = (0..400).map(|_| "0:r == 0".to_string()).collect();
        let src = format!(
            "test t\nthreads 4\nsubgroup 4\nkernel {{\n  r = {};\n  subgroupBarrier();\n}}\nexists ({})\n",
            terms.join(" + "),
            conds.join(" /\\ ")
        );
        let t = parsed(&src);
        assert!(check(&t).is_ok());
        assert!(matches!(
            t.kernel[1].kind,
            StmtKind::Barrier(BarrierScope::Subgroup)
        ));
    }
}
