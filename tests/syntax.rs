//! The front end against litmus-format.md: valid files give the expected AST, malformed files
//! give a located error that says what was expected, and no input makes the parser panic.

use proptest::prelude::*;
use tangle::syntax::ast::*;
use tangle::syntax::{limits, parse, Diagnostic};
use tangle::vocab::{AtomicOp, BinOp, Builtin, LocalFn, RedOp, SgOp, UnOp};

// ---- helpers ----------------------------------------------------------------------------

fn ok(src: &str) -> Test {
    match parse("t.litmus", src.as_bytes()) {
        Ok(test) => test,
        Err(diags) => panic!("expected a valid file, got:\n{diags}\n--- source ---\n{src}"),
    }
}

fn errors(src: impl AsRef<[u8]>) -> Vec<Diagnostic> {
    match parse("t.litmus", src.as_ref()) {
        Ok(test) => panic!("expected an error, but the file parsed: {test:#?}"),
        Err(diags) => {
            assert!(!diags.0.is_empty(), "an error result without diagnostics");
            diags.0
        }
    }
}

/// Asserts that the first error is at `line:col` and its message contains `phrase`.
#[track_caller]
fn first_error(src: impl AsRef<[u8]>, line: u32, col: u32, phrase: &str) {
    let diags = errors(src);
    let d = &diags[0];
    assert!(
        (d.line, d.col) == (line, col) && d.message.contains(phrase),
        "wanted {line}:{col} containing {phrase:?}, got:\n{}",
        diags
            .iter()
            .map(|d| format!("{}:{}: {}", d.line, d.col, d.message))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(d.file, "t.litmus");
}

/// A file whose kernel body starts on line 6, column 1, with globals `x` and `a[4]`, 4
/// threads, and a register `r` assigned after the body.
fn with_body(body: &str) -> String {
    format!(
        "test t\nthreads 4\nglobal x\nglobal a[4]\nkernel {{\n{body}\nr = 0;\n}}\nexists (0:r == 0)\n"
    )
}

/// The kernel of `with_body(body)`, without the trailing `r = 0;`.
fn body_of(body: &str) -> Vec<Stmt> {
    let mut kernel = ok(&with_body(body)).kernel;
    kernel.pop();
    kernel
}

fn kinds(stmts: &[Stmt]) -> Vec<&StmtKind> {
    stmts.iter().map(|s| &s.kind).collect()
}

/// The value of the single statement `r = <expr>;`.
fn expr_of(expr: &str) -> Expr {
    let body = body_of(&format!("q = 1; r = {expr};"));
    match body.into_iter().nth(1).map(|s| s.kind) {
        Some(StmtKind::Assign { value, .. }) => value,
        other => panic!("not an assignment: {other:?}"),
    }
}

/// Renders an expression as a fully parenthesised string, to check precedence compactly.
fn show(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(v) => v.to_string(),
        ExprKind::Reg(r) => r.clone(),
        ExprKind::Builtin(b) => b.name().to_string(),
        ExprKind::Unary(op, x) => format!("{}{}", op.symbol(), show(x)),
        ExprKind::Binary(op, l, r) => format!("({} {} {})", show(l), op.symbol(), show(r)),
        ExprKind::Ternary(c, a, b) => format!("({} ? {} : {})", show(c), show(a), show(b)),
        ExprKind::SgOp(op, args) => format!(
            "{}({})",
            op.name(),
            args.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Call(f, args) => format!(
            "{}({})",
            f.name(),
            args.iter().map(show).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Runs `f` on a thread with the default 2 MiB stack, to prove deep inputs cannot overflow it.
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the parser overflowed or panicked");
}

// ---- the example of litmus-format.md ----------------------------------------------------

const EXAMPLE: &str = r#"// Paper family "sso": a subgroup op in each arm orders the arm's store after the peer's decision.
test sso_ww "stores ordered by a subgroup op in divergent arms"
threads 2
global slots[2]

kernel {
  next = (lane + 1) % 2;
  slots[lane] = 1;
  if (lane % 2 == 0) {
    s = subgroupAll(true);
    slots[next] = 2;
  } else {
    s = subgroupAll(false);
    slots[next] = 2;
  }
  subgroupBarrier();
  r = slots[lane];
}

exists (0:r != 2 || 1:r != 2)
expect CM forbid, SM forbid, SCF forbid, SSO forbid, Spec allow, Lazy allow, Symb allow
"#;

#[test]
fn the_format_example_parses() {
    let t = ok(EXAMPLE);
    assert_eq!(t.file, "t.litmus");
    assert_eq!(t.source, EXAMPLE);
    assert_eq!(t.name, "sso_ww");
    assert_eq!(
        t.description.as_deref(),
        Some("stores ordered by a subgroup op in divergent arms")
    );
    assert_eq!((t.threads, t.subgroup, t.workgroup), (2, 2, 2));
    assert_eq!(t.globals.len(), 1);
    let g = &t.globals[0];
    assert_eq!(
        (g.name.as_str(), g.len, g.init.clone()),
        ("slots", Some(2), vec![0, 0])
    );
    assert_eq!((g.span.line, g.span.col), (4, 1));

    assert_eq!(t.kernel.len(), 5);
    match &t.kernel[0].kind {
        StmtKind::Assign { reg, value } => {
            assert_eq!(reg, "next");
            assert_eq!(show(value), "((lane + 1) % 2)");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((t.kernel[0].span.line, t.kernel[0].span.col), (7, 3));
    match &t.kernel[1].kind {
        StmtKind::Store {
            global,
            index: Some(i),
            value,
        } => {
            assert_eq!(global, "slots");
            assert_eq!(i.kind, ExprKind::Builtin(Builtin::Lane));
            assert_eq!(value.kind, ExprKind::Lit(1));
        }
        other => panic!("{other:?}"),
    }
    match &t.kernel[2].kind {
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            assert_eq!(show(cond), "((lane % 2) == 0)");
            assert_eq!(then_body.len(), 2);
            assert_eq!(else_body.len(), 2);
            match &then_body[0].kind {
                StmtKind::Assign { reg, value } => {
                    assert_eq!(reg, "s");
                    assert!(matches!(value.kind, ExprKind::SgOp(SgOp::All, _)));
                    assert_eq!(show(value), "subgroupAll(1)");
                }
                other => panic!("{other:?}"),
            }
            match &else_body[0].kind {
                StmtKind::Assign { value, .. } => assert_eq!(show(value), "subgroupAll(0)"),
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(t.kernel[3].kind, StmtKind::Barrier(BarrierScope::Subgroup));
    match &t.kernel[4].kind {
        StmtKind::Load {
            reg,
            global,
            index: Some(i),
        } => {
            assert_eq!((reg.as_str(), global.as_str()), ("r", "slots"));
            assert_eq!(i.kind, ExprKind::Builtin(Builtin::Lane));
        }
        other => panic!("{other:?}"),
    }
    // The whole statement is covered by its span.
    let s = &t.kernel[4].span;
    assert_eq!(
        &EXAMPLE[s.start as usize..s.end as usize],
        "r = slots[lane];"
    );

    assert_eq!(t.condition.quantifier, Quantifier::Exists);
    let reg = |thread, reg: &str| Operand::Reg {
        thread,
        reg: reg.into(),
    };
    assert_eq!(
        t.condition.prop,
        Prop::Or(
            Box::new(Prop::Cmp(BinOp::Ne, reg(0, "r"), Operand::Lit(2))),
            Box::new(Prop::Cmp(BinOp::Ne, reg(1, "r"), Operand::Lit(2))),
        )
    );
    let expect: Vec<(&str, bool)> = t
        .expect
        .iter()
        .map(|e| (e.model.as_deref().unwrap_or("*"), e.allow))
        .collect();
    assert_eq!(
        expect,
        [
            ("CM", false),
            ("SM", false),
            ("SCF", false),
            ("SSO", false),
            ("Spec", true),
            ("Lazy", true),
            ("Symb", true)
        ]
    );
    assert_eq!((t.expect[4].span.line, t.expect[4].span.col), (21, 54));
}

// ---- every construct --------------------------------------------------------------------

#[test]
fn header_forms() {
    let t = ok(
        "/* a block\ncomment */ test sb+rel.2-x \"say \\\"hi\\\" \\\\ bye\" // trailing\n\
         global b[3] = {0x10, -1,}\nworkgroup 4\nglobal x = 7\nsubgroup 2\nthreads 8\n\
         global y\nglobal c[2] = {}\nglobal z = -2\nkernel { }\nexists true\n",
    );
    assert_eq!(t.name, "sb+rel.2-x");
    assert_eq!(t.description.as_deref(), Some("say \"hi\" \\ bye"));
    assert_eq!((t.threads, t.subgroup, t.workgroup), (8, 2, 4));
    let globals: Vec<(&str, Option<u32>, Vec<u32>)> = t
        .globals
        .iter()
        .map(|g| (g.name.as_str(), g.len, g.init.clone()))
        .collect();
    assert_eq!(
        globals,
        [
            ("b", Some(3), vec![16, u32::MAX, 0]),
            ("x", None, vec![7]),
            ("y", None, vec![0]),
            ("c", Some(2), vec![0, 0]),
            ("z", None, vec![u32::MAX - 1]),
        ]
    );
    assert!(t.kernel.is_empty());
    assert_eq!(t.condition.prop, Prop::True);
    assert!(t.expect.is_empty());
}

#[test]
fn sizes_default_to_threads() {
    let t = ok("test t\nthreads 3\nkernel { }\nforall (true)");
    assert_eq!((t.threads, t.subgroup, t.workgroup), (3, 3, 3));
    assert_eq!(t.description, None);
    let t = ok(
        "test t\nthreads 64\nsubgroup 32\nkernel { r = subgroupBallot(true); }\nexists (0:r == 1)",
    );
    assert_eq!(t.subgroup, 32);
}

/// `unreachable;` is a statement alone before `;`, and a name anywhere else.
#[test]
fn unreachable_is_a_statement_not_a_keyword() {
    let body = body_of("unreachable = 1; if (unreachable == 1) { unreachable; }");
    assert!(matches!(&body[0].kind, StmtKind::Assign { reg, .. } if reg == "unreachable"));
    let StmtKind::If { then_body, .. } = &body[1].kind else {
        panic!("{:?}", body[1]);
    };
    assert!(matches!(then_body[0].kind, StmtKind::Unreachable));
}

/// `filter (P)` before the condition (herd's): read, printed back before the condition, and
/// a name in the kernel like any other word.
#[test]
fn a_filter_precedes_the_condition() {
    let src = "test t\nthreads 2\nglobal x\nkernel {\n  filter = tid;\n}\nfilter (0:filter == 1 && x == 0)\nexists (1:filter == 0)\n";
    let t = ok(src);
    assert!(matches!(&t.kernel[0].kind, StmtKind::Assign { reg, .. } if reg == "filter"));
    assert!(t.filter.is_some());
    let shown = tangle::syntax::print::to_litmus(&t);
    assert!(
        shown.contains("filter ((0:filter == 1) && (x == 0))\nexists")
            || shown.contains("filter (0:filter == 1 && x == 0)\nexists"),
        "{shown}"
    );
    let again = ok(&shown);
    assert_eq!(again.filter, t.filter);
    // A filter is not a condition: one must follow.
    first_error(
        "test t\nthreads 1\nkernel {\n  r = 1;\n}\nfilter (0:r == 1)\n",
        7,
        1,
        "the final condition",
    );
}

#[test]
fn memory_statements() {
    let body = body_of(
        "q = x; q = a[lane + 1]; q = atomicLoad(x); q = atomicLoad(a[2]);\n\
         x = 1; a[tid] = q; atomicStore(a[0], 5); atomicStore(x, q);\n\
         q = atomicAdd(a[1], 2); atomicSub(x, 1); q = atomicCompSwap(a[3], 0, 1);\n\
         q = atomicExchange(x, 9); atomicMin(x, 1); atomicMax(x, 1); atomicAnd(x, 1);\n\
         atomicOr(x, 1); atomicXor(x, 1); q = atomicCompSwapWriteBack(a[3], 0, 1);",
    );
    let summary: Vec<String> = body
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Load { reg, global, index } => {
                format!(
                    "load {reg} {global}{}",
                    index
                        .as_ref()
                        .map_or(String::new(), |i| format!("[{}]", show(i)))
                )
            }
            StmtKind::Store {
                global,
                index,
                value,
            } => format!(
                "store {global}{} {}",
                index
                    .as_ref()
                    .map_or(String::new(), |i| format!("[{}]", show(i))),
                show(value)
            ),
            StmtKind::Atomic {
                reg,
                op,
                global,
                index,
                args,
            } => format!(
                "{} {:?} {global}{} {}",
                reg.as_deref().unwrap_or("_"),
                op,
                index
                    .as_ref()
                    .map_or(String::new(), |i| format!("[{}]", show(i))),
                args.iter().map(show).collect::<Vec<_>>().join(",")
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        summary,
        [
            "load q x",
            "load q a[(lane + 1)]",
            "load q x",
            "load q a[2]",
            "store x 1",
            "store a[tid] q",
            "store a[0] 5",
            "store x q",
            "q Add a[1] 2",
            "_ Sub x 1",
            "q CompSwap a[3] 0,1",
            "q Exchange x 9",
            "_ Min x 1",
            "_ Max x 1",
            "_ And x 1",
            "_ Or x 1",
            "_ Xor x 1",
            "q CompSwapWriteBack a[3] 0,1",
        ]
    );
    // Every atomic operation was parsed above, and each one's name is the name it parses from.
    let parsed: Vec<AtomicOp> = body
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Atomic { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    for op in AtomicOp::ALL {
        assert!(parsed.contains(&op), "{op:?} not exercised");
        assert_eq!(AtomicOp::from_name(op.name()), Some(op), "{}", op.name());
    }
    assert_eq!(AtomicOp::from_name("atomicLoad"), None);
}

#[test]
fn barriers_and_discarded_subgroup_ops() {
    let body = body_of("subgroupBarrier(); barrier(); subgroupAll(true); subgroupElect();");
    assert_eq!(body[0].kind, StmtKind::Barrier(BarrierScope::Subgroup));
    assert_eq!(body[1].kind, StmtKind::Barrier(BarrierScope::Workgroup));
    for s in &body[2..] {
        match &s.kind {
            StmtKind::Assign { reg, value } => {
                assert_eq!(reg, "$discard");
                assert!(matches!(value.kind, ExprKind::SgOp(..)));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn control_flow() {
    let body = body_of(
        "if (lane == 0) q = 1; else if (lane == 1) { q = 2; } else q = 3;\n\
         while (q < 10) { q = q + 1; if (q == 5) break; continue; }\n\
         for (i = 0; i < 4; i = i + 1) { q = q + i; }\n\
         for (;;) { break; }\n\
         for (q = x; ; atomicAdd(x, 1)) break;\n\
         loop { return; dead = 1; }\n\
         if (dead) { }",
    );
    let k = kinds(&body);
    match k[0] {
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => {
            assert_eq!(then_body.len(), 1);
            assert_eq!(else_body.len(), 1);
            match &else_body[0].kind {
                StmtKind::If { else_body, .. } => assert_eq!(else_body.len(), 1),
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    match k[1] {
        StmtKind::While { cond, body } => {
            assert_eq!(show(cond), "(q < 10)");
            assert_eq!(body.len(), 3);
            assert_eq!(body[2].kind, StmtKind::Continue);
        }
        other => panic!("{other:?}"),
    }
    match k[2] {
        StmtKind::For {
            init: Some(init),
            cond: Some(cond),
            step: Some(step),
            body,
        } => {
            assert!(matches!(&init.kind, StmtKind::Assign { reg, .. } if reg == "i"));
            assert_eq!(show(cond), "(i < 4)");
            assert!(
                matches!(&step.kind, StmtKind::Assign { value, .. } if show(value) == "(i + 1)")
            );
            assert_eq!(body.len(), 1);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        k[3],
        StmtKind::For {
            init: None,
            cond: None,
            step: None,
            ..
        }
    ));
    match k[4] {
        StmtKind::For {
            init: Some(init),
            step: Some(step),
            body,
            ..
        } => {
            assert!(matches!(init.kind, StmtKind::Load { .. }));
            assert!(matches!(step.kind, StmtKind::Atomic { reg: None, .. }));
            assert_eq!(body[0].kind, StmtKind::Break);
        }
        other => panic!("{other:?}"),
    }
    match k[5] {
        StmtKind::Loop { body, continuing } => {
            assert!(continuing.is_empty());
            assert_eq!(body[0].kind, StmtKind::Return);
            assert!(matches!(&body[1].kind, StmtKind::Assign { reg, .. } if reg == "dead"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn operator_precedence_and_associativity() {
    let cases = [
        ("1 + 2 * 3", "(1 + (2 * 3))"),
        ("1 - 2 - 3", "((1 - 2) - 3)"),
        ("8 / 2 % 3 * q", "(((8 / 2) % 3) * q)"),
        ("1 << 2 + 3", "(1 << (2 + 3))"),
        ("q >> 1 < 2", "((q >> 1) < 2)"),
        ("q == 1 < 2", "(q == (1 < 2))"),
        ("q != 0 & 1", "((q != 0) & 1)"),
        ("1 & 2 ^ 3 | 4", "(((1 & 2) ^ 3) | 4)"),
        ("1 | 2 && 3", "((1 | 2) && 3)"),
        ("q || 1 && 0", "(q || (1 && 0))"),
        ("q ? 1 : 0 ? 2 : 3", "(q ? 1 : (0 ? 2 : 3))"),
        ("q || 0 ? 1 : 2", "((q || 0) ? 1 : 2)"),
        ("q ? 1 ? 2 : 3 : 4", "(q ? (1 ? 2 : 3) : 4)"),
        ("-~!q", "-~!q"),
        ("-q * 2", "(-q * 2)"),
        ("(1 + 2) * 3", "((1 + 2) * 3)"),
        ("0x1F + 0XfF + true + false", "(((31 + 255) + 1) + 0)"),
        ("4294967295", "4294967295"),
        (
            "lane + tid + lid + sgid + wgid + sgsize",
            "(((((lane + tid) + lid) + sgid) + wgid) + sgsize)",
        ),
        ("q >= 1 <= 2 > 3", "(((q >= 1) <= 2) > 3)"),
    ];
    for (src, want) in cases {
        assert_eq!(show(&expr_of(src)), want, "{src}");
    }
    assert!(matches!(expr_of("-q").kind, ExprKind::Unary(UnOp::Neg, _)));
}

#[test]
fn subgroup_ops_and_ballot_helpers_in_expressions() {
    let cases = [
        (
            "subgroupAdd(subgroupElect())",
            "subgroupAdd(subgroupElect())",
        ),
        ("subgroupElect() && q", "(subgroupElect() && q)"),
        (
            "subgroupAny(q) == subgroupAll(q) || q",
            "((subgroupAny(q) == subgroupAll(q)) || q)",
        ),
        (
            "subgroupBroadcast(q, 0) + subgroupShuffleXor(q, 1)",
            "(subgroupBroadcast(q, 0) + subgroupShuffleXor(q, 1))",
        ),
        ("subgroupInclusiveMul(q)", "subgroupInclusiveMul(q)"),
        (
            "subgroupBallotBitCount(subgroupBallot(true))",
            "subgroupBallotBitCount(subgroupBallot(1))",
        ),
        (
            "subgroupBallotBitExtract(q, lane)",
            "subgroupBallotBitExtract(q, lane)",
        ),
        (
            "subgroupBallotFindLSB(q) + subgroupBallotFindMSB(q)",
            "(subgroupBallotFindLSB(q) + subgroupBallotFindMSB(q))",
        ),
        // A subgroup op inside a helper that is itself unconditional is fine.
        (
            "subgroupBallotBitCount(subgroupBallot(q))",
            "subgroupBallotBitCount(subgroupBallot(q))",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(show(&expr_of(src)), want, "{src}");
    }
    assert!(matches!(
        expr_of("subgroupExclusiveXor(q)").kind,
        ExprKind::SgOp(SgOp::ExclusiveScan(RedOp::Xor), _)
    ));
    assert!(matches!(
        expr_of("subgroupBallotInclusiveBitCount(q)").kind,
        ExprKind::Call(LocalFn::BallotInclusiveBitCount, _)
    ));
    // Every op of the vocabulary is accepted with its arity.
    for op in SgOp::all() {
        let args = vec!["q"; op.arity()].join(", ");
        assert_eq!(
            show(&expr_of(&format!("{}({args})", op.name()))),
            format!("{}({args})", op.name())
        );
    }
    for f in LocalFn::ALL {
        let args = vec!["q"; f.arity()].join(", ");
        ok(&with_body(&format!("q = 1; r = {}({args});", f.name())));
    }
}

#[test]
fn names_resolve_to_registers_in_any_order_and_in_dead_code() {
    // `late` is read before it is assigned, and only assigned after a `return`.
    let t = ok("test t\nthreads 2\nkernel {\n  r = late + 1;\n  return;\n  late = 2;\n}\nexists (1:late == 0)");
    assert_eq!(t.kernel.len(), 3);
    // Header and condition words are ordinary names inside the kernel.
    let t = ok("test t\nthreads 1\nkernel { threads = 1; subgroup = threads; exists = forall + expect + allow + forbid + test + workgroup; forall = 0; expect = 0; allow = 0; forbid = 0; test = 0; workgroup = 0; }\nexists (0:exists == 0)");
    assert_eq!(t.kernel.len(), 9);
}

#[test]
fn condition_forms() {
    let cond = |c: &str| {
        ok(&format!(
            "test t\nthreads 2\nglobal x\nglobal a[3]\nkernel {{ r = 1; }}\n{c}"
        ))
        .condition
    };
    let reg = |thread, reg: &str| Operand::Reg {
        thread,
        reg: reg.into(),
    };
    let mem = |g: &str, index| Operand::Mem {
        global: g.into(),
        index,
    };

    let c = cond("~exists 0:r == 1 /\\ 1:r == 0x10 \\/ !(x != -1) && a[2]");
    assert_eq!(c.quantifier, Quantifier::NotExists);
    assert_eq!(
        c.prop,
        Prop::Or(
            Box::new(Prop::And(
                Box::new(Prop::Cmp(BinOp::Eq, reg(0, "r"), Operand::Lit(1))),
                Box::new(Prop::Cmp(BinOp::Eq, reg(1, "r"), Operand::Lit(16))),
            )),
            Box::new(Prop::And(
                Box::new(Prop::Not(Box::new(Prop::Cmp(
                    BinOp::Ne,
                    mem("x", 0),
                    Operand::Lit(u32::MAX)
                )))),
                Box::new(Prop::Truthy(mem("a", 2))),
            )),
        )
    );
    let c = cond("forall (0:r < 1 || 0:r <= 1 || 0:r > 1 || 0:r >= true || false)");
    assert_eq!(c.quantifier, Quantifier::Forall);
    let c = cond("exists (((1:r)))");
    assert_eq!(c.prop, Prop::Truthy(reg(1, "r")));
    assert_eq!((c.span.line, c.span.col), (6, 1));
    let c = cond("exists (true == 1 && !false)");
    assert_eq!(
        c.prop,
        Prop::And(
            Box::new(Prop::Cmp(BinOp::Eq, Operand::Lit(1), Operand::Lit(1))),
            Box::new(Prop::Not(Box::new(Prop::False))),
        )
    );
    assert_eq!(cond("exists 5").prop, Prop::Truthy(Operand::Lit(5)));
    let t = ok("test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect A allow\nexpect B forbid, C allow\n");
    let models: Vec<_> = t
        .expect
        .iter()
        .map(|e| (e.model.as_deref().unwrap_or("*"), e.allow))
        .collect();
    assert_eq!(models, [("A", true), ("B", false), ("C", true)]);
    // An entry without a model is about every model; one naming the model wins over it,
    // wherever it stands.
    let t = ok("test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect forbid, sm allow\nexpect forbid forbid\n");
    let models: Vec<_> = t
        .expect
        .iter()
        .map(|e| (e.model.as_deref().unwrap_or("*"), e.allow))
        .collect();
    assert_eq!(models, [("*", false), ("sm", true), ("forbid", false)]);
    assert_eq!(t.expectation("SM"), Some(true));
    assert_eq!(t.expectation("CM"), Some(false));
    assert_eq!(t.expectation("Forbid"), Some(false));
    let printed = tangle::syntax::print::to_litmus(&t);
    assert!(
        printed.contains("expect forbid, sm allow, forbid forbid"),
        "{printed}"
    );
    let bad = tangle::syntax::parse("t.litmus", b"test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect allow forbid\nexpect CM\n");
    let e = format!("{:?}", bad.unwrap_err());
    assert!(
        e.contains("`allow` or `forbid` after the model `CM`"),
        "{e}"
    );
}

// ---- malformed files: located errors ----------------------------------------------------

#[test]
fn error_missing_semicolon() {
    first_error(
        with_body("q = 1\nq = 2;"),
        7,
        1,
        "expected `;` after the statement, found `q`",
    );
    first_error(
        with_body("q = 1 }"),
        6,
        7,
        "expected `;` after the statement, found `}`",
    );
    first_error(with_body("break"), 6, 1, "`break` outside of a loop");
}

#[test]
fn error_unknown_name() {
    first_error(
        with_body("q = foo + 1;"),
        6,
        5,
        "unknown name `foo`: not a register assigned in the kernel, a global, or a built-in",
    );
    first_error(
        with_body("if (lanee == 0) { }"),
        6,
        5,
        "unknown name `lanee`",
    );
}

#[test]
fn error_global_in_expression() {
    let msg = "global `x` may only be the whole right side of a load, the whole left side of a store, or the first argument of an atomic";
    first_error(with_body("q = x + 1;"), 6, 5, msg);
    first_error(with_body("q = 1 + x;"), 6, 9, msg);
    first_error(with_body("if (x) { }"), 6, 5, msg);
    first_error(with_body("a[x] = 1;"), 6, 3, msg);
    first_error(with_body("q = (x);"), 6, 6, msg);
    first_error(with_body("q = a[0] * 2;"), 6, 5, "global `a` may only be");
    first_error(with_body("x = x;"), 6, 5, msg);
}

#[test]
fn error_subgroup_op_in_conditional_position() {
    let msg =
        "may not appear on the right of `&&`/`||` or inside `?:` (it would run conditionally)";
    first_error(with_body("q = lane == 0 && subgroupAny(true);"), 6, 18, msg);
    first_error(
        with_body("q = lane == 0 && subgroupAny(true);"),
        6,
        18,
        "subgroup operation `subgroupAny`",
    );
    first_error(with_body("if (lane || !subgroupElect()) { }"), 6, 14, msg);
    first_error(with_body("q = lane ? subgroupElect() : 0;"), 6, 12, msg);
    first_error(with_body("q = subgroupElect() ? 1 : 0;"), 6, 5, msg);
    first_error(with_body("q = 1 ? 0 : subgroupAdd(1);"), 6, 13, msg);
    first_error(
        with_body("q = subgroupAdd(lane && subgroupElect());"),
        6,
        25,
        msg,
    );
    first_error(with_body("while (r && subgroupAny(r)) { }"), 6, 13, msg);
}

#[test]
fn error_break_and_continue_outside_a_loop() {
    first_error(with_body("break;"), 6, 1, "`break` outside of a loop");
    first_error(
        with_body("if (lane == 0) { continue; }"),
        6,
        18,
        "`continue` outside of a loop",
    );
    // Inside a loop they are fine, also nested in an `if`; `return` is fine anywhere.
    ok(&with_body(
        "loop { if (lane == 0) { break; } continue; } return;",
    ));
}

#[test]
fn error_thread_geometry() {
    let file = |header: &str| format!("test t\n{header}\nkernel {{ }}\nexists true\n");
    first_error(file("threads 0"), 2, 9, "must be between 1 and 1024");
    first_error(file("threads 2000"), 2, 9, "`threads 2000` is out of range");
    first_error(
        file("threads 99999999999999999999"),
        2,
        9,
        "does not fit in 32 bits",
    );
    first_error(
        file("threads 512\nsubgroup 256"),
        3,
        10,
        "a subgroup has between 1 and 128 lanes",
    );
    first_error(file("threads 8\nsubgroup 0"), 3, 10, "out of range");
    first_error(
        file("threads 8\nsubgroup 2\nworkgroup 3"),
        4,
        11,
        "the workgroup size 3 does not divide the 8 threads",
    );
    // Partial last subgroups (Vulkan allows them): 4 + 2 lanes, and 2-lane subgroups of 4.
    ok(&file("threads 6\nsubgroup 4"));
    ok(&file("threads 8\nsubgroup 4\nworkgroup 2"));
    first_error(
        file("threads 8\nworkgroup 4"),
        3,
        11,
        "add a `subgroup N` line",
    );
    first_error(
        file("threads 8\nworkgroup 0"),
        3,
        11,
        "`workgroup 0` is out of range",
    );
    first_error(file("threads 256"), 2, 9, "need a `subgroup N` line");
    first_error(
        file("threads 2\nthreads 2"),
        3,
        1,
        "duplicate `threads` line (first given at line 2)",
    );
    first_error(
        file("subgroup 2"),
        3,
        1,
        "the header has no `threads N` line",
    );
}

/// A ballot is defined at every width: lanes 0–31 in `subgroupBallot`, 32–63 in
/// `subgroupBallotHigh` (the shader front end lowers a 64-lane ballot to both, and the litmus
/// parser reads what `tangle show` prints of it).
#[test]
fn ballots_at_64_lanes_have_two_words() {
    let src = "test t\nthreads 64\nkernel {\n  lo = subgroupBallot(lane >= 16);\n  hi = subgroupBallotHigh(lane >= 16);\n}\nexists (0:lo == 4294901760 && 0:hi == 4294967295)\n";
    let test = tangle::syntax::parse("t.litmus", src.as_bytes()).unwrap();
    let m = tangle::model::Model::by_name("CM").unwrap();
    let a = tangle::query::analyse(&test, &m, &Default::default()).unwrap();
    assert_eq!(a.verdict, tangle::query::Verdict::Allowed);
}

#[test]
fn error_literals() {
    first_error(
        with_body("q = 4294967296;"),
        6,
        5,
        "the number `4294967296` does not fit in 32 bits",
    );
    first_error(
        with_body("q = 0x100000000;"),
        6,
        5,
        "does not fit in 32 bits",
    );
    first_error(with_body("q = 12ab;"), 6, 5, "invalid number `12ab`");
    first_error(with_body("q = 1u;"), 6, 5, "invalid number `1u`");
    first_error(with_body("q = 0x;"), 6, 5, "invalid number `0x`");
    first_error(
        "test t\nthreads 1\nglobal x = 4294967296\nkernel { }\nexists true",
        3,
        12,
        "does not fit",
    );
}

#[test]
fn error_lexical() {
    first_error("test t \"abc\nthreads 1", 1, 8, "unterminated string");
    first_error("test t \"a\\nb\"", 1, 10, "unknown escape `\\n`");
    first_error(
        "test t\nthreads 1 /* never\nclosed",
        2,
        11,
        "unterminated block comment",
    );
    first_error(with_body("q = 1 @ 2;"), 6, 7, "unexpected character `@`");
    first_error(with_body("q = é;"), 6, 5, "unexpected character `é`");
    // Columns count characters, not bytes.
    first_error(
        "test t \"é\"\nthreads 1\nkernel { q = 1 # }",
        3,
        16,
        "unexpected character `#`",
    );
}

#[test]
fn error_non_utf8_is_located_at_the_first_bad_byte() {
    first_error(
        b"test t\nthreads 2\n  \xff\xfe",
        3,
        3,
        "invalid UTF-8 (byte 0xFF)",
    );
    first_error(b"test t \"\xc3\xa9\xc3\"", 1, 10, "invalid UTF-8");
    // An error before the bad byte comes first, and the truncated input adds no
    // "found end of file" error.
    let diags = errors(b"test t\nthreads 2\nkernel { q = ; \xff }");
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert!(diags[0]
        .message
        .contains("expected an expression, found `;`"));
    assert!(diags[1].message.contains("invalid UTF-8"));
}

#[test]
fn error_structure_of_the_file() {
    first_error(
        "",
        1,
        1,
        "expected `test NAME` at the start of the file, found end of file",
    );
    first_error(
        "// only a comment\n",
        2,
        1,
        "expected `test NAME` at the start of the file",
    );
    first_error(
        "threads 2",
        1,
        1,
        "expected `test NAME` at the start of the file, found `threads`",
    );
    first_error(
        "test\nthreads 1\nkernel { }\nexists true",
        2,
        1,
        "expected the test name after `test`",
    );
    first_error(
        "test t\nthreads 1",
        2,
        10,
        "expected `kernel { ... }` after the header, found end of file",
    );
    first_error("test t\nthreads 1\nbogus 3\nkernel { }\nexists true", 3, 1, "expected `threads`, `subgroup`, `workgroup`, `global` or `kernel` in the header, found `bogus`");
    first_error(
        "test t\nthreads 1\nkernel r = 1;",
        3,
        8,
        "expected `{` after `kernel`, found `r`",
    );
    first_error(
        "test t\nthreads 1\nkernel { r = 1;\n",
        4,
        1,
        "expected `}` to close the block opened at line 3, column 8",
    );
    first_error(
        "test t\nthreads 1\nkernel {\n  if (lane == 0) {\n    r = 1;\n}\nexists (0:r == 1)",
        7,
        1,
        "expected `}` to close the block opened at line 3, column 8, found `exists`",
    );
    first_error(
        "test t\nthreads 1\nkernel { r = 1;\n~exists (0:r == 1)",
        4,
        1,
        "expected `}` to close the block opened at line 3, column 8, found `~`",
    );
    assert_eq!(
        errors("test t\nthreads 1\nkernel { loop { r = 1;\nforall (0:r == 1)").len(),
        1
    );
    first_error("test t\nthreads 1\nkernel { r = 1; }\n", 4, 1, "expected the final condition (`exists`, `~exists` or `forall`) after the kernel, found end of file");
    first_error(
        "test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect SC allow\nfoo",
        6,
        1,
        "expected `expect` or the end of the file after the condition, found `foo`",
    );
    first_error(
        "test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1) )",
        4,
        19,
        "expected `expect` or the end of the file after the condition, found `)`",
    );
    first_error(
        "test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect SC maybe",
        5,
        11,
        "expected `allow` or `forbid` after the model `SC`, found `maybe`",
    );
    first_error(
        "test t\nthreads 1\nkernel { r = 1; }\nexists (0:r == 1)\nexpect SC allow,",
        5,
        17,
        "expected a model name, `allow` or `forbid` after `expect`, found end of file",
    );
}

#[test]
fn error_calls() {
    first_error(
        with_body("q = subgroupBroadcast(lane);"),
        6,
        5,
        "`subgroupBroadcast` takes 2 arguments, found 1",
    );
    first_error(
        with_body("q = subgroupElect(1);"),
        6,
        5,
        "`subgroupElect` takes 0 arguments, found 1",
    );
    first_error(
        with_body("q = subgroupBallotBitCount();"),
        6,
        5,
        "`subgroupBallotBitCount` takes 1 argument, found 0",
    );
    first_error(
        with_body("atomicCompSwap(a[0], 1);"),
        6,
        1,
        "`atomicCompSwap` takes 3 arguments, found 2",
    );
    first_error(
        with_body("q = atomicAdd(x);"),
        6,
        5,
        "`atomicAdd` takes 2 arguments, found 1",
    );
    first_error(
        with_body("q = subgroupFoo(1);"),
        6,
        5,
        "unknown operation `subgroupFoo`",
    );
    first_error(
        with_body("subgroupFoo(1);"),
        6,
        1,
        "unknown operation `subgroupFoo`",
    );
    first_error(
        with_body("q = 1 + atomicAdd(x, 1);"),
        6,
        9,
        "`atomicAdd` cannot be used inside an expression",
    );
    first_error(
        with_body("q = atomicAdd(x, 1) + 1;"),
        6,
        5,
        "`atomicAdd` must be the whole right side",
    );
    first_error(
        with_body("q = atomicAdd(q, 1);"),
        6,
        15,
        "expected a global (`x` or `a[i]`) as the first argument of `atomicAdd`, found `q`",
    );
    first_error(
        with_body("atomicLoad(x);"),
        6,
        1,
        "the value of `atomicLoad` must be assigned",
    );
    first_error(
        with_body("q = atomicStore(x, 1);"),
        6,
        5,
        "`atomicStore` returns no value",
    );
    first_error(
        with_body("q = subgroupAdd(1 2);"),
        6,
        19,
        "expected `,` or `)` in the arguments of `subgroupAdd`, found `2`",
    );
    first_error(
        with_body("q = barrier();"),
        6,
        5,
        "`barrier` is a statement",
    );
    first_error(
        with_body("barrier(1);"),
        6,
        9,
        "expected a memory order, scope or tag in `barrier`",
    );
    first_error(
        with_body("subgroupBallotBitCount(q);"),
        6,
        1,
        "the value of `subgroupBallotBitCount` is unused",
    );
    first_error(
        with_body("subgroupAll(q) + 1;"),
        6,
        1,
        "only a subgroup operation can stand alone",
    );
}

#[test]
fn error_global_shapes() {
    first_error(
        with_body("q = a;"),
        6,
        5,
        "`a` is an array global: write `a[i]`",
    );
    first_error(with_body("a = 1;"), 6, 1, "`a` is an array global");
    first_error(
        with_body("q = x[0];"),
        6,
        6,
        "`x` is a scalar global: it cannot be indexed",
    );
    first_error(with_body("x[1] = 0;"), 6, 2, "`x` is a scalar global");
    first_error(
        with_body("atomicAdd(a, 1);"),
        6,
        11,
        "`a` is an array global",
    );
    first_error(with_body("q[0] = 1;"), 6, 2, "`q` is not a global array");
}

#[test]
fn error_assignments() {
    first_error(
        with_body("lane = 1;"),
        6,
        1,
        "cannot assign to the built-in `lane`",
    );
    first_error(
        with_body("true = 1;"),
        6,
        1,
        "`true` is a keyword, not a register name",
    );
    first_error(
        with_body("q + 1;"),
        6,
        3,
        "expected `=` after `q`, found `+`",
    );
    first_error(
        with_body("else q = 1;"),
        6,
        1,
        "`else` without a matching `if`",
    );
    first_error(
        with_body("{ q = 1; }"),
        6,
        1,
        "a block `{ ... }` may only follow",
    );
    first_error(
        with_body("if (lane == 0 { }"),
        6,
        15,
        "expected `)` to close the condition of `if`, found `{`",
    );
    first_error(
        with_body("if lane { }"),
        6,
        4,
        "expected `(` after `if`, found `lane`",
    );
    first_error(
        with_body("for (i = 0, i < 2; i = i + 1) { }"),
        6,
        11,
        "expected `;` after the initialisation of `for`, found `,`",
    );
    first_error(
        with_body("for (if; ;) { }"),
        6,
        6,
        "expected an assignment, a store or an atomic, found `if`",
    );
    first_error(
        with_body("q = ;"),
        6,
        5,
        "expected an expression, found `;`",
    );
    first_error(
        with_body("q = (1;"),
        6,
        7,
        "expected `)` to close `(`, found `;`",
    );
    first_error(
        with_body("q = 1 ? 2;"),
        6,
        10,
        "expected `:` in the conditional expression",
    );
    first_error(with_body(")"), 6, 1, "expected a statement, found `)`");
}

#[test]
fn error_globals() {
    let file = |globals: &str| format!("test t\nthreads 1\n{globals}\nkernel {{ }}\nexists true\n");
    first_error(
        file("global x\nglobal x = 1"),
        4,
        8,
        "duplicate global `x` (first declared at line 3)",
    );
    first_error(
        file("global lane"),
        3,
        8,
        "a global cannot be named `lane`: that is a built-in",
    );
    first_error(
        file("global while"),
        3,
        8,
        "a global cannot be named `while`: that is a keyword",
    );
    first_error(
        file("global a[2] = {1, 2, 3}"),
        3,
        22,
        "too many initial values: `a` has 2 cells",
    );
    first_error(file("global a[0]"), 3, 10, "an array needs at least 1 cell");
    // 65,536 cells was a constant; now only a guard on the reader's allocation (2^24 cells)
    // remains, and the memory budget decides below it.
    ok(&file("global a[70000]"));
    first_error(
        file("global a[16000000]\nglobal b[1000000]"),
        4,
        8,
        "more than 16777216 memory cells",
    );
    first_error(
        file("global a[4000000000] = {1}"),
        3,
        8,
        "more than 16777216 memory cells",
    );
    first_error(
        file("global a[2] = 1"),
        3,
        15,
        "expected `{` to initialise the array `a`",
    );
    first_error(
        file("global x = {1}"),
        3,
        12,
        "expected a number to initialise `x`, found `{`",
    );
    first_error(
        file("global 3"),
        3,
        8,
        "expected a global name after `global`, found `3`",
    );
    first_error(
        file("global a[n]"),
        3,
        10,
        "expected the length of the array `a`, found `n`",
    );
}

#[test]
fn error_condition() {
    let file = |cond: &str| {
        format!("test t\nthreads 2\nglobal x\nglobal a[4]\nkernel {{ r = 1; }}\n{cond}\n")
    };
    first_error(
        file("exists (2:r == 1)"),
        6,
        9,
        "thread 2 does not exist: the test has 2 threads (0 to 1)",
    );
    first_error(
        file("exists (a[4] == 0)"),
        6,
        11,
        "index 4 is out of range: `a` has 4 cells (0 to 3)",
    );
    first_error(
        file("exists (0:q == 1)"),
        6,
        11,
        "unknown register `q` in `0:q`",
    );
    first_error(
        file("exists (r == 1)"),
        6,
        9,
        "`r` is a register: in the condition, name it with its thread, as in `0:r`",
    );
    first_error(
        file("exists (foo == 1)"),
        6,
        9,
        "unknown name `foo` in the condition",
    );
    first_error(
        file("exists (lane == 1)"),
        6,
        9,
        "the built-in `lane` has no value in the final state",
    );
    first_error(file("exists (a == 1)"), 6, 9, "`a` is an array global");
    first_error(file("exists (x[0] == 1)"), 6, 10, "`x` is a scalar global");
    first_error(
        file("exists (a[0 + 1] == 1)"),
        6,
        13,
        "expected `]` to close the index of `a`, found `+`",
    );
    first_error(
        file("exists (a[r] == 1)"),
        6,
        11,
        "expected a constant index of `a`",
    );
    first_error(
        file("exists (0:r == 1"),
        7,
        1,
        "expected `)` to close `(` in the condition, found end of file",
    );
    first_error(
        file("exists (0:r == )"),
        6,
        16,
        "expected a value in the condition",
    );
    first_error(
        file("exists (0:r = 1)"),
        6,
        13,
        "expected a comparison (`==`, `!=`, `<`, ...), found `=`",
    );
    first_error(
        file("exist (0:r == 1)"),
        6,
        1,
        "expected the final condition",
    );
    first_error(
        file("exists (4294967296:r == 1)"),
        6,
        9,
        "does not fit in 32 bits",
    );
}

#[test]
fn several_errors_are_collected_in_source_order() {
    let diags = errors(with_body(
        "q = foo;\nq = 1 +;\nlane = 2;\nif (x) { q = bar; }\nbreak;",
    ));
    let at: Vec<(u32, u32)> = diags.iter().map(|d| (d.line, d.col)).collect();
    assert_eq!(
        at,
        [(6, 5), (7, 8), (8, 1), (9, 5), (9, 14), (10, 1)],
        "{diags:#?}"
    );
    // Every diagnostic carries its source line, for the caret display.
    assert_eq!(diags[1].source_line, "q = 1 +;");
    let shown = diags[1].to_string();
    assert!(shown.contains("t.litmus:7:8"), "{shown}");
}

// ---- stack safety -----------------------------------------------------------------------

/// Asserts that `src` is refused with the nesting-limit error, on a 2 MiB stack.
fn refused_as_too_deep(src: String) {
    on_small_stack(move || {
        let diags = errors(&src);
        assert!(
            diags.iter().any(|d| d.message.contains("nesting too deep")),
            "{:#?}",
            &diags[..diags.len().min(3)]
        );
    });
}

const DEEP: usize = 10_000;

#[test]
fn deep_parentheses_are_refused() {
    refused_as_too_deep(with_body(&format!(
        "q = {}1{};",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    )));
    // Unclosed, too.
    refused_as_too_deep(with_body(&format!("q = {}", "(".repeat(DEEP))));
    refused_as_too_deep(format!(
        "test t\nthreads 1\nkernel {{ r = 1; }}\nexists {}0:r == 1{}",
        "(".repeat(DEEP),
        ")".repeat(DEEP)
    ));
}

#[test]
fn deep_blocks_are_refused() {
    refused_as_too_deep(with_body(&format!(
        "{}q = 1;{}",
        "if (lane) {".repeat(DEEP),
        "}".repeat(DEEP)
    )));
    refused_as_too_deep(with_body(&format!(
        "{}q = 1;",
        "while (lane) ".repeat(DEEP)
    )));
    refused_as_too_deep(with_body(&format!(
        "if (lane) q = 1;{} q = 2;",
        " else if (lane) q = 1;".repeat(DEEP)
    )));
    refused_as_too_deep(with_body(&"loop {".repeat(DEEP)));
}

#[test]
fn deep_operators_are_refused() {
    refused_as_too_deep(with_body(&format!("q = {}1;", "!".repeat(DEEP))));
    refused_as_too_deep(with_body(&format!("q = {}1;", "-".repeat(DEEP))));
    refused_as_too_deep(with_body(&format!("q = {}1;", "~".repeat(DEEP))));
    refused_as_too_deep(with_body(&format!("q = 1{};", " + 1".repeat(DEEP))));
    refused_as_too_deep(with_body(&format!("q = {}0;", "1 ? 1 : ".repeat(DEEP))));
    refused_as_too_deep(with_body(&format!(
        "q = {}1{};",
        "subgroupAdd(".repeat(DEEP),
        ")".repeat(DEEP)
    )));
    refused_as_too_deep(format!(
        "test t\nthreads 1\nkernel {{ r = 1; }}\nexists {}0:r == 1",
        "!".repeat(DEEP)
    ));
}

/// A flat chain of `&&` (the CTS generator writes hundreds of `outB[i] == v` terms) is not
/// nesting: it is read, on a small stack, however long, and decided.
#[test]
fn flat_condition_chains_of_any_length_are_accepted() {
    on_small_stack(|| {
        for op in [" && ", " || "] {
            let src = format!(
                "test t\nthreads 1\nkernel {{ r = 1; }}\nexists 0:r == 1{}",
                format!("{op}0:r == 1").repeat(20 * DEEP)
            );
            let t = ok(&src);
            let a = tangle::query::analyse(
                &t,
                &tangle::model::Model::by_name("CM").unwrap(),
                &Default::default(),
            )
            .unwrap();
            assert_eq!(a.verdict, tangle::query::Verdict::Allowed, "{op}");
        }
    });
}

#[test]
fn nesting_within_the_limit_is_accepted_and_dropped_safely() {
    on_small_stack(|| {
        let n = limits::MAX_DEPTH as usize / 2;
        let t = ok(&with_body(&format!(
            "{}q = {}1{};{}",
            "if (lane) {".repeat(n / 2),
            "(".repeat(n / 2),
            ")".repeat(n / 2),
            "}".repeat(n / 2)
        )));
        let _ = format!("{t:?}");
        // Printed and parsed again, the nest gives the same AST (compared, then dropped, at
        // full depth on the small stack).
        let text = tangle::syntax::print::to_litmus(&t);
        let again = ok(&text);
        assert_eq!(
            tangle::syntax::print::normalized(&again),
            tangle::syntax::print::normalized(&t)
        );
    });
}

#[test]
fn huge_names_and_numbers_do_not_break_anything() {
    let long = "n".repeat(100_000);
    let diags = errors(with_body(&format!("q = {long};")));
    assert!(diags[0].message.len() < 200, "{}", diags[0].message);
    first_error(
        with_body(&format!("q = {};", "9".repeat(10_000))),
        6,
        5,
        "does not fit in 32 bits",
    );
    let t = ok(&format!(
        "test {long}\nthreads 1\nkernel {{ {long} = 1; }}\nexists (0:{long} == 1)"
    ));
    assert_eq!(t.name.len(), 100_000);
}

// ---- no input makes the parser panic ----------------------------------------------------

/// Properties every result has: errors are located, sorted and non-empty; a test satisfies
/// the invariants the AST documents.
fn check_invariants(src: &[u8]) {
    match parse("p.litmus", src) {
        Err(diags) => {
            assert!(!diags.0.is_empty());
            for d in &diags.0 {
                assert!(d.line >= 1 && d.col >= 1, "{d:?}");
                assert_eq!(d.file, "p.litmus");
                assert!(!d.message.is_empty());
                let _ = d.to_string();
            }
            assert!(diags
                .0
                .windows(2)
                .all(|w| (w[0].line, w[0].col) < (w[1].line, w[1].col)));
        }
        Ok(t) => {
            assert!(t.threads >= 1 && t.threads <= limits::MAX_THREADS);
            assert!(t.subgroup >= 1 && t.subgroup <= limits::MAX_SUBGROUP);
            assert_eq!(t.threads % t.workgroup, 0);
            assert_eq!(t.workgroup % t.subgroup, 0);
            for g in &t.globals {
                assert_eq!(g.init.len(), g.cells() as usize);
            }
        }
    }
}

/// Tokens of the grammar, for random "token soups" that get further than random bytes.
const TOKENS: &[&str] = &[
    "test",
    "t",
    "threads",
    "subgroup",
    "workgroup",
    "global",
    "kernel",
    "exists",
    "~exists",
    "forall",
    "expect",
    "allow",
    "forbid",
    "SC",
    "if",
    "else",
    "while",
    "for",
    "loop",
    "break",
    "continue",
    "return",
    "true",
    "false",
    "x",
    "a",
    "r",
    "q",
    "lane",
    "tid",
    "lid",
    "sgid",
    "wgid",
    "sgsize",
    "0",
    "1",
    "2",
    "4",
    "64",
    "0x10",
    "-1",
    "4294967296",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "<<",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "&&",
    "|",
    "||",
    "^",
    "~",
    "!",
    "?",
    ":",
    "/\\",
    "\\/",
    "0:r",
    "1:q",
    "\"s\"",
    "subgroupAll",
    "subgroupElect",
    "subgroupBallot",
    "subgroupBroadcast",
    "subgroupAdd",
    "subgroupBallotBitCount",
    "subgroupBarrier",
    "barrier",
    "atomicAdd",
    "atomicLoad",
    "atomicStore",
    "atomicCompSwap",
    "//",
    "/*",
    "*/",
    "\n",
    "@",
    "é",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check_invariants(&bytes);
    }

    #[test]
    fn random_token_soups_never_panic(body in soup()) {
        check_invariants(body.as_bytes());
    }

    #[test]
    fn random_kernels_never_panic(body in soup(), cond in soup()) {
        check_invariants(with_body(&body).as_bytes());
        let src = format!("test t\nthreads 4\nglobal x\nglobal a[4]\nkernel {{ r = 1; q = x; }}\nexists {cond}");
        check_invariants(src.as_bytes());
    }

    /// Small edits of a valid file reach error paths deep in the grammar.
    #[test]
    fn mutated_examples_never_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0..3usize, prop::sample::select(TOKENS)), 1..6)
    ) {
        let mut src = EXAMPLE.as_bytes().to_vec();
        for (at, kind, token) in edits {
            let i = at.index(src.len() + 1);
            match kind {
                0 => { src.splice(i..i, token.bytes().chain([b' '])); }
                1 => { src.drain(i..(i + token.len()).min(src.len())); }
                _ => { src.splice(i..(i + 1).min(src.len()), token.bytes()); }
            }
        }
        check_invariants(&src);
    }

    #[test]
    fn random_headers_never_panic(header in soup()) {
        check_invariants(format!("test t\n{header}\nkernel {{ }}\nexists true").as_bytes());
    }
}

#[test]
fn large_files_parse_in_linear_time() {
    let n = 20_000;
    let mut src = String::from("test big\nthreads 4\n");
    for i in 0..n {
        src.push_str(&format!("global g{i} = {i}\n"));
    }
    src.push_str("kernel {\n");
    for i in 0..n {
        src.push_str(&format!("  r{i} = g{i};\n  g{i} = r{i} + lane;\n"));
    }
    src.push_str("}\nexists (0:r0 == 0 && g1 == 1)\n");
    let started = std::time::Instant::now();
    let t = ok(&src);
    assert_eq!((t.globals.len(), t.kernel.len()), (n, 2 * n));
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    // Many errors are capped rather than reported one by one.
    let diags = errors(with_body(&"q = nope;\n".repeat(n)));
    assert_eq!(diags.len(), 100);
    assert_eq!((diags[0].line, diags[99].line), (6, 105));
}

/// `barrier(quorum(B, N), words...)`: read, printed back the same, and refused where the
/// quorum is missing, zero, or differs between barriers of one name.
#[test]
fn barriers_with_a_quorum() {
    use tangle::syntax::ast::{BarrierScope, StmtKind};
    let head = "test q\nthreads 3\nsubgroup 1\nkernel {\n";
    let t = ok(&format!(
        "{head}  barrier(quorum(7, 2), acq_rel, workgroup);\n}}\nexists (true)\n"
    ));
    assert_eq!(
        t.kernel[0].kind,
        StmtKind::Barrier(BarrierScope::Quorum { name: 7, quorum: 2 })
    );
    assert!(t.kernel[0].tags.iter().any(|x| x == "ACQ"));
    let printed = tangle::syntax::print::to_litmus(&t);
    assert!(printed.contains("barrier(quorum(7, 2), "), "{printed}");
    let again = parse("printed", printed.as_bytes()).unwrap();
    assert_eq!(again.kernel[0].kind, t.kernel[0].kind);
    let tail = "}\nexists (true)\n";
    first_error(
        format!("{head}  barrier(quorum(7));\n{tail}"),
        5,
        19,
        "expected `,` between the name and the quorum",
    );
    first_error(
        format!("{head}  barrier(quorum(7, 0));\n{tail}"),
        5,
        3,
        "a quorum of 0 threads",
    );
    first_error(
        format!("{head}  if (tid == 0) {{ barrier(quorum(7, 2)); }} else {{ barrier(quorum(7, 3)); }}\n{tail}"),
        5,
        51,
        "barrier 7 has quorum 3 here and 2 at line 5",
    );
}
