//! The facts every [`Test`] must satisfy, whichever front end built it (litmus parser, SPIR-V
//! reader, Dartagnan's dialects, shaders): thread geometry, memory size and nesting within
//! [`super::limits`]. The litmus parser states each with a caret where the user wrote it;
//! this check is the one place the other front ends meet the same limits, so that no test
//! reaches the IR that `tangle check` on its printed form would refuse.

use super::ast::{BarrierScope, Expr, ExprKind, Prop, Stmt, StmtKind, Test};
use super::limits::LEFT_DEEP;
use super::limits::{MAX_CELLS, MAX_DEPTH, MAX_SUBGROUP, MAX_THREADS};
use super::print::{bare_after_not, parenthesised, prop_level};
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
    quorums(
        &test.kernel,
        &mut std::collections::BTreeMap::new(),
        &mut say,
    );
    if let Some(span) = too_deep_stmts(&test.kernel, 0) {
        say(span, nesting_message());
    }
    // `exists (P)`: the parentheses are one level.
    if 1 + prop_depth(&test.condition.prop) > MAX_DEPTH {
        say(test.condition.span, nesting_message());
    }
    if test
        .filter
        .as_ref()
        .is_some_and(|f| 1 + prop_depth(f) > MAX_DEPTH)
    {
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

/// Every quorum barrier of one name gives the same quorum, of at least 1 (the first one
/// seen sets it).
fn quorums(
    body: &[Stmt],
    seen: &mut std::collections::BTreeMap<u32, (u32, Span)>,
    say: &mut impl FnMut(Span, String),
) {
    for s in body {
        match &s.kind {
            StmtKind::Barrier(BarrierScope::Quorum { name, quorum }) => {
                if *quorum == 0 {
                    say(
                        s.span,
                        "a quorum of 0 threads: a quorum is at least 1".into(),
                    );
                }
                let (first, at) = *seen.entry(*name).or_insert((*quorum, s.span));
                if first != *quorum {
                    say(
                        s.span,
                        format!(
                            "barrier {name} has quorum {quorum} here and {first} at line {}: \
                             every barrier of one name has one quorum",
                            at.line
                        ),
                    );
                }
            }
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                quorums(then_body, seen, say);
                quorums(else_body, seen, say);
            }
            StmtKind::While { body, .. } => quorums(body, seen, say),
            StmtKind::For {
                init, step, body, ..
            } => {
                let parts: Vec<Stmt> = init
                    .iter()
                    .chain(step.iter())
                    .map(|s| (**s).clone())
                    .collect();
                quorums(&parts, seen, say);
                quorums(body, seen, say);
            }
            StmtKind::Loop { body, continuing } => {
                quorums(body, seen, say);
                quorums(continuing, seen, say);
            }
            _ => {}
        }
    }
}

/// The first statement nested deeper than the limit (blocks and expressions together).
fn too_deep_stmts(body: &[Stmt], depth: u32) -> Option<Span> {
    body.iter().find_map(|s| too_deep_stmt(s, depth + 1))
}

fn too_deep_stmt(s: &Stmt, depth: u32) -> Option<Span> {
    if depth > MAX_DEPTH {
        return Some(s.span);
    }
    // An expression `extra` levels below the statement (inside a call's parentheses, an index's
    // brackets), as the printer writes the statement.
    let at =
        |extra: u32| move |e: &Expr| (depth + extra + expr_depth(e) > MAX_DEPTH).then_some(e.span);
    let expr = at(0);
    // `atomicLoad(a[i], ...)` and `atomicStore(...)` when tagged, else `a[i]`: the call's
    // parentheses are one level, the brackets another.
    let call = u32::from(!s.tags.is_empty());
    // A statement with a body opens a block (`{ ... }`, printed even when empty): a level.
    let opens_block = matches!(
        s.kind,
        StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::For { .. } | StmtKind::Loop { .. }
    );
    if opens_block && depth + 1 > MAX_DEPTH {
        return Some(s.span);
    }
    match &s.kind {
        StmtKind::Assign { value, .. } => expr(value),
        StmtKind::Load { index, .. } => index.as_ref().and_then(at(call + 1)),
        StmtKind::Store { index, value, .. } => index
            .as_ref()
            .and_then(at(call + 1))
            .or_else(|| at(call)(value)),
        StmtKind::Atomic { index, args, .. } => index
            .as_ref()
            .and_then(at(2))
            .or_else(|| args.iter().find_map(at(1))),
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
            .and_then(|i| too_deep_stmt(i, depth))
            .or_else(|| cond.as_ref().and_then(expr))
            .or_else(|| step.as_deref().and_then(|i| too_deep_stmt(i, depth)))
            .or_else(|| too_deep_stmts(body, depth)),
        StmtKind::Loop { body, continuing } => {
            too_deep_stmts(body, depth).or_else(|| too_deep_stmts(continuing, depth))
        }
        StmtKind::Fence { id } => id.as_ref().and_then(expr),
        StmtKind::Barrier(_) | StmtKind::Break | StmtKind::Continue => None,
        StmtKind::Return | StmtKind::Unreachable => None,
    }
}

/// The nesting the parser counts to read `e` as the printer writes it, so that a test
/// another front end built is refused exactly when its printed form would be: a unary
/// operator, a call's arguments, a conditional's branches and each pair of parentheses the
/// printer writes are one level; the k-th operator of a left-to-right chain (`a - b - c`,
/// precedence climbing folds them in one loop) holds k levels while its right operand is read.
fn expr_depth(e: &Expr) -> u32 {
    let inner = |child: &Expr, first: bool| {
        u32::from(parenthesised(&e.kind, child, first)) + expr_depth(child)
    };
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => 0,
        ExprKind::Unary(_, a) => 1 + inner(a, true),
        ExprKind::Binary(_, a, b) => inner(a, true).max(folds(e) + inner(b, false)),
        ExprKind::Ternary(c, a, b) => inner(c, true).max(1 + expr_depth(a)).max(1 + expr_depth(b)),
        ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => {
            1 + args.iter().map(expr_depth).max().unwrap_or(0)
        }
    }
}

/// The operators the parser folds in one loop up to and including `e`'s own: `e`'s, and
/// those of its left operand when the printer writes that without parentheses.
fn folds(e: &Expr) -> u32 {
    match &e.kind {
        ExprKind::Binary(_, a, _) if !parenthesised(&e.kind, a, true) => 1 + folds(a),
        ExprKind::Binary(..) => 1,
        _ => 0,
    }
}

/// The nesting the parser counts to read `p` as the printer writes it: `!` is one level and
/// one more when its operand is in parentheses; a chain of one connective (`a && b && c`) is
/// read in one loop whose k-th operator holds k levels (up to [`LEFT_DEEP`]) while its right
/// operand is read; each pair of parentheses the printer writes is one level.
fn prop_depth(p: &Prop) -> u32 {
    match p {
        Prop::True | Prop::False | Prop::Cmp(..) | Prop::Truthy(_) => 0,
        Prop::Not(a) if bare_after_not(a) => 1 + prop_depth(a),
        Prop::Not(a) => 2 + prop_depth(a),
        Prop::And(..) | Prop::Or(..) => {
            let mut operands = Vec::new();
            chain_operands(p, &mut operands);
            operands
                .iter()
                .enumerate()
                .map(|(i, &(x, min))| {
                    let held = i.min(LEFT_DEEP - 1) as u32;
                    held + u32::from(prop_level(x) < min) + prop_depth(x)
                })
                .max()
                .unwrap_or(0)
        }
    }
}

/// The operands of the chain `p` heads, left to right, each with the binding strength it is
/// printed at: the left operand continues the chain when it has the same connective, the
/// right one is always an operand. (Walked iteratively: a chain may be long.)
fn chain_operands<'a>(p: &'a Prop, out: &mut Vec<(&'a Prop, u8)>) {
    let level = prop_level(p);
    let mut right = Vec::new();
    let mut at = p;
    while let Prop::And(a, b) | Prop::Or(a, b) = at {
        if prop_level(at) != level {
            break;
        }
        right.push(&**b);
        at = a;
    }
    out.push((at, level));
    out.extend(right.into_iter().rev().map(|b| (b, level + 1)));
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
        t.subgroup = 129;
        let e = check(&t).expect_err("129 lanes").to_string();
        assert!(e.contains("between 1 and 128 lanes"), "{e}");
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
        // as a level) and a 400-term `/\` condition (read as a balanced tree, which prints
        // back shallow).
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

    /// A small deterministic generator (xorshift): the test needs no seed file to reproduce.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    fn node(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::default(),
        }
    }

    /// A random expression of about `size` operators, every shape the printer writes:
    /// chains of one precedence, mixed precedences, parentheses on either side, unary
    /// operators, conditionals in each position, calls.
    fn expr(rng: &mut Rng, size: u64) -> Expr {
        use crate::vocab::{BinOp, Builtin, LocalFn, UnOp};
        if size == 0 {
            return node(match rng.below(3) {
                0 => ExprKind::Lit(rng.below(10) as u32),
                1 => ExprKind::Builtin(Builtin::Lane),
                _ => ExprKind::Reg("r".to_string()),
            });
        }
        const OPS: [BinOp; 8] = [
            BinOp::Add,
            BinOp::Sub,
            BinOp::Mul,
            BinOp::Shl,
            BinOp::BitAnd,
            BinOp::Lt,
            BinOp::LAnd,
            BinOp::LOr,
        ];
        let split = rng.below(size);
        let sub = |rng: &mut Rng, n: u64| Box::new(expr(rng, n));
        match rng.below(10) {
            0 => node(ExprKind::Unary(
                [UnOp::BitNot, UnOp::Not, UnOp::Neg][rng.below(3) as usize],
                sub(rng, size - 1),
            )),
            1 => node(ExprKind::Ternary(
                sub(rng, split / 2),
                sub(rng, split - split / 2),
                sub(rng, size - 1 - split),
            )),
            2 => node(ExprKind::Call(
                LocalFn::BallotBitCount,
                vec![expr(rng, size - 1)],
            )),
            // Mostly left-deep, as chains are written.
            3..=6 => node(ExprKind::Binary(
                OPS[rng.below(OPS.len() as u64) as usize],
                sub(rng, size - 1 - split.min(2)),
                sub(rng, split.min(2)),
            )),
            _ => node(ExprKind::Binary(
                OPS[rng.below(OPS.len() as u64) as usize],
                sub(rng, split),
                sub(rng, size - 1 - split),
            )),
        }
    }

    /// A random condition of about `size` connectives.
    fn prop(rng: &mut Rng, size: u64) -> Prop {
        use crate::syntax::ast::Operand;
        use crate::vocab::BinOp;
        if size == 0 {
            return Prop::Cmp(
                BinOp::Eq,
                Operand::Lit(rng.below(3) as u32),
                Operand::Lit(1),
            );
        }
        let split = rng.below(size);
        match rng.below(6) {
            0 => Prop::Not(Box::new(prop(rng, size - 1))),
            1 | 2 => Prop::And(
                Box::new(prop(rng, size - 1 - split.min(1))),
                Box::new(prop(rng, split.min(1))),
            ),
            3 => Prop::Or(
                Box::new(prop(rng, size - 1 - split.min(1))),
                Box::new(prop(rng, split.min(1))),
            ),
            4 => Prop::And(
                Box::new(prop(rng, split)),
                Box::new(prop(rng, size - 1 - split)),
            ),
            _ => Prop::Or(
                Box::new(prop(rng, split)),
                Box::new(prop(rng, size - 1 - split)),
            ),
        }
    }

    /// The validator accepts a test exactly when the parser accepts its printed text, at the
    /// edge of the nesting limit: every statement form an expression sits in (tagged or not),
    /// every expression shape, conditions of every shape. Two counts of one fact that must agree.
    #[test]
    fn the_validator_refuses_exactly_what_the_parser_would_refuse_once_printed() {
        let base = parsed(
            "test t\nthreads 4\nsubgroup 4\nglobal a[4]\nkernel {\n  r = 0;\n}\nexists (0:r == 0)\n",
        );
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut refused) = (0, 0);
        for round in 0..1500 {
            let size = rng.below(120);
            let e = expr(&mut rng, size);
            let depth = expr_depth(&e);
            // Nest the statement holding `e` so that the total is within 3 of the limit.
            let target = MAX_DEPTH as i64 + rng.below(7) as i64 - 3;
            let nest = (target - depth as i64).clamp(1, MAX_DEPTH as i64 + 1) as u32;
            let mut t = base.clone();
            let holder = |kind: StmtKind, tags: &[&str]| Stmt {
                kind,
                span: Span::default(),
                tags: tags.iter().map(|t| t.to_string()).collect(),
            };
            let global = "a".to_string();
            let tagged: &[&str] = if rng.below(2) == 0 {
                &[]
            } else {
                &["ACQ", "DV"]
            };
            let leaf = match rng.below(6) {
                0 => holder(
                    StmtKind::Assign {
                        reg: "r".into(),
                        value: e,
                    },
                    &[],
                ),
                1 => holder(
                    StmtKind::Load {
                        reg: "r".into(),
                        global,
                        index: Some(e),
                    },
                    tagged,
                ),
                2 => holder(
                    StmtKind::Store {
                        global,
                        index: Some(e.clone()),
                        value: e,
                    },
                    tagged,
                ),
                3 => holder(
                    StmtKind::Atomic {
                        reg: Some("r".into()),
                        op: crate::vocab::AtomicOp::Add,
                        global,
                        index: Some(node(ExprKind::Lit(0))),
                        args: vec![e],
                    },
                    &[],
                ),
                4 => holder(
                    StmtKind::While {
                        cond: e,
                        body: vec![],
                    },
                    &[],
                ),
                _ => holder(
                    StmtKind::If {
                        cond: e,
                        then_body: vec![],
                        else_body: vec![],
                    },
                    &[],
                ),
            };
            let mut body = vec![leaf];
            for _ in 1..nest {
                body = vec![holder(
                    StmtKind::If {
                        cond: node(ExprKind::Lit(1)),
                        then_body: body,
                        else_body: vec![],
                    },
                    &[],
                )];
            }
            t.kernel.extend(body);
            // A condition near the limit too, in every other round.
            if round % 2 == 1 {
                let size = rng.below(150);
                let mut p = prop(&mut rng, size);
                let target = MAX_DEPTH + rng.below(5) as u32 - 2;
                while 1 + prop_depth(&p) < target {
                    p = Prop::Not(Box::new(p));
                }
                t.condition.prop = p;
            }
            let text = crate::syntax::print::to_litmus(&t);
            let parses = crate::syntax::parser::parse("t.litmus", text.as_bytes());
            let valid = check(&t);
            assert_eq!(
                valid.is_ok(),
                parses.is_ok(),
                "round {round}: the validator says {valid:?}, the parser of the printed text says {parses:?}\n{text}"
            );
            if valid.is_ok() {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
        // Both sides of the edge were reached.
        assert!(
            accepted > 300 && refused > 300,
            "{accepted} accepted, {refused} refused"
        );
    }
}
