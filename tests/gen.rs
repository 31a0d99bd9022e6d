//! The random program generator (`tangle::gen`) against its promises: every program parses
//! and respects the configuration, generation is deterministic, the whole vocabulary shows up,
//! and the explorer runs every program to completion without hitting the loop bound.

use std::collections::BTreeSet;
use tangle::gen::{generate, GenConfig};
use tangle::model::Model;
use tangle::query::{analyse, Engine, Options, Verdict};
use tangle::syntax::ast::{BarrierScope, Expr, ExprKind, Quantifier, Stmt, StmtKind, Test};
use tangle::vocab::{AtomicOp, SgOp};

fn parse(seed: u64, cfg: &GenConfig) -> Test {
    let text = generate(seed, cfg);
    match tangle::syntax::parse("gen.litmus", text.as_bytes()) {
        Ok(test) => test,
        Err(diags) => {
            panic!("seed {seed}, {cfg:?} does not parse:\n{diags}\n--- source ---\n{text}")
        }
    }
}

/// What a walk over a kernel found: sizes and every construct used.
#[derive(Default)]
struct Census {
    stmts: usize,
    depth: usize,
    /// Statement kinds by name: `if`, `while`, `for`, `loop`, `break`, ..., `barrier`.
    kinds: BTreeSet<&'static str>,
    sgops: BTreeSet<String>,
    atomics: BTreeSet<&'static str>,
    /// A workgroup barrier below top level (undefined behaviour waiting to happen).
    nested_barrier: bool,
    /// Registers named `i*` (loop counters) written other than by an init or a `+ 1` step.
    counter_abuse: bool,
}

impl Census {
    fn of(test: &Test) -> Census {
        let mut c = Census::default();
        c.block(&test.kernel, 0);
        c
    }

    fn block(&mut self, stmts: &[Stmt], depth: usize) {
        for s in stmts {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) {
        self.stmts += 1;
        self.depth = self.depth.max(depth);
        let kind = match &s.kind {
            StmtKind::Assign { reg, value } => {
                if reg.starts_with('i') && !is_counter_step(reg, value) {
                    self.counter_abuse = true;
                }
                self.expr(value);
                "assign"
            }
            StmtKind::Load { reg, index, .. } => {
                self.counter_abuse |= reg.starts_with('i');
                index.iter().for_each(|e| self.expr(e));
                "load"
            }
            StmtKind::Store { index, value, .. } => {
                index.iter().for_each(|e| self.expr(e));
                self.expr(value);
                "store"
            }
            StmtKind::Atomic {
                reg,
                op,
                index,
                args,
                ..
            } => {
                self.counter_abuse |= reg.as_ref().is_some_and(|r| r.starts_with('i'));
                self.atomics.insert(op.name());
                index.iter().chain(args).for_each(|e| self.expr(e));
                "atomic"
            }
            StmtKind::Barrier(BarrierScope::Subgroup) => "subgroupBarrier",
            // The generator writes none (the list of kinds it writes is checked below).
            StmtKind::Barrier(BarrierScope::Quorum { .. }) => "quorumBarrier",
            StmtKind::Fence { id } => {
                id.iter().for_each(|e| self.expr(e));
                "fence"
            }
            StmtKind::Barrier(BarrierScope::Workgroup) => {
                self.nested_barrier |= depth > 0;
                "barrier"
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                self.expr(cond);
                self.block(then_body, depth + 1);
                self.block(else_body, depth + 1);
                "if"
            }
            StmtKind::While { cond, body } => {
                self.expr(cond);
                self.block(body, depth + 1);
                "while"
            }
            StmtKind::For { cond, body, .. } => {
                cond.iter().for_each(|e| self.expr(e));
                self.block(body, depth + 1);
                "for"
            }
            StmtKind::Loop { body, .. } => {
                self.block(body, depth + 1);
                "loop"
            }
            StmtKind::Break => "break",
            StmtKind::Continue => "continue",
            StmtKind::Return => "return",
            // The generator writes none: every run that reached it would mean nothing.
            StmtKind::Unreachable => "unreachable",
        };
        self.kinds.insert(kind);
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => {}
            ExprKind::Unary(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Ternary(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::SgOp(op, args) => {
                self.sgops.insert(op.name());
                args.iter().for_each(|a| self.expr(a));
            }
            ExprKind::Call(_, args) => args.iter().for_each(|a| self.expr(a)),
        }
    }
}

/// `iN = 0` or `iN = iN + 1`: the only writes a loop counter may get.
fn is_counter_step(reg: &str, value: &Expr) -> bool {
    use tangle::vocab::BinOp;
    match &value.kind {
        ExprKind::Lit(0) => true,
        ExprKind::Binary(BinOp::Add, a, b) => {
            matches!(&a.kind, ExprKind::Reg(r) if r == reg) && matches!(b.kind, ExprKind::Lit(1))
        }
        _ => false,
    }
}

/// The configurations the parse test sweeps: 2-4 lanes, 1-2 subgroups, each feature off once.
fn configs() -> Vec<GenConfig> {
    let d = GenConfig::default();
    vec![
        d.clone(),
        GenConfig {
            lanes: 3,
            max_stmts: 10,
            max_depth: 3,
            ..d.clone()
        },
        GenConfig {
            lanes: 4,
            loops: false,
            ..d.clone()
        },
        GenConfig {
            subgroups: 2,
            workgroup_barriers: true,
            atomics: false,
            ..d.clone()
        },
        GenConfig {
            lanes: 4,
            subgroups: 2,
            workgroup_barriers: true,
            sgops: false,
            max_stmts: 12,
            ..d.clone()
        },
        GenConfig {
            max_stmts: 3,
            max_depth: 1,
            ..d
        },
    ]
}

#[test]
fn every_program_parses_and_respects_its_config() {
    let configs = configs();
    let per_config = 2000_u64.div_ceil(configs.len() as u64);
    for (ci, cfg) in configs.iter().enumerate() {
        for i in 0..per_config {
            let seed = ci as u64 * 1_000_000 + i;
            let test = parse(seed, cfg);
            let c = Census::of(&test);
            let at = format!("seed {seed}, {cfg:?}");
            assert_eq!(test.name, format!("gen_{seed}"), "{at}");
            assert_eq!(test.threads, cfg.lanes * cfg.subgroups, "{at}");
            assert_eq!(test.subgroup, cfg.lanes, "{at}");
            assert_eq!(test.condition.quantifier, Quantifier::Exists, "{at}");
            assert!(test.expect.is_empty(), "{at}");
            assert!(c.stmts <= cfg.max_stmts, "{at}: {} statements", c.stmts);
            assert!(c.depth <= cfg.max_depth, "{at}: depth {}", c.depth);
            assert!(!c.nested_barrier, "{at}: barrier() below top level");
            assert!(!c.counter_abuse, "{at}: a loop counter written by the body");
            let loops = ["for", "while", "loop", "break", "continue"];
            assert!(
                cfg.loops || loops.iter().all(|k| !c.kinds.contains(k)),
                "{at}"
            );
            assert!(cfg.atomics || c.atomics.is_empty(), "{at}");
            assert!(cfg.sgops || c.sgops.is_empty(), "{at}");
            assert!(
                cfg.sgops || !c.kinds.contains("subgroupBarrier"),
                "{at}: subgroupBarrier without sgops"
            );
            assert!(
                cfg.workgroup_barriers || !c.kinds.contains("barrier"),
                "{at}"
            );
        }
    }
}

#[test]
fn generation_is_deterministic_in_the_seed() {
    let cfg = GenConfig::default();
    let mut distinct = BTreeSet::new();
    for seed in [0, 1, 7, 42, 1 << 40, u64::MAX] {
        let text = generate(seed, &cfg);
        assert_eq!(text, generate(seed, &cfg), "seed {seed}");
        // Beyond the header line (which names the seed), different seeds give different programs.
        distinct.insert(
            text.split_once('\n')
                .unwrap()
                .1
                .replace(&seed.to_string(), "S"),
        );
    }
    assert!(distinct.len() >= 5, "seeds barely change the program");
}

#[test]
fn the_whole_vocabulary_appears_within_500_seeds() {
    let cfg = GenConfig::default();
    let mut all = Census::default();
    for seed in 0..500 {
        let c = Census::of(&parse(seed, &cfg));
        all.kinds.extend(c.kinds);
        all.sgops.extend(c.sgops);
        all.atomics.extend(c.atomics);
    }
    let missing_ops: Vec<String> = SgOp::all()
        .into_iter()
        // The other ballot words exist only above 32 lanes (litmus/features/sg_ballot_high,
        // sg_ballot_128).
        .filter(|op| !matches!(op.ballot_word(), Some(1..)))
        .map(|op| op.name())
        .filter(|n| !all.sgops.contains(n))
        .collect();
    assert!(missing_ops.is_empty(), "never generated: {missing_ops:?}");
    let missing_atomics: Vec<&str> = AtomicOp::ALL
        .iter()
        .map(|op| op.name())
        .filter(|n| !all.atomics.contains(n))
        .collect();
    assert!(
        missing_atomics.is_empty(),
        "never generated: {missing_atomics:?}"
    );
    let kinds = [
        "assign",
        "load",
        "store",
        "atomic",
        "subgroupBarrier",
        "if",
        "while",
        "for",
        "loop",
        "break",
        "continue",
        "return",
    ];
    let missing: Vec<&str> = kinds
        .into_iter()
        .filter(|k| !all.kinds.contains(k))
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
}

/// Generated programs are for cross-validating engines, so every one must be analysable to
/// the end: no panic, no refusal, never a loop bound hit (loops run at most 3 times), no
/// undefined behaviour (indices in range, barriers never skipped), and a decided verdict with
/// a complete outcome list (no state limit reached: seed 94 in two subgroups needs more than
/// 200,000 states, hence the larger budget). One exception, counted and capped: where a
/// subgroup op reads an unspecified value (a shuffle from a lane that has left the loop) the
/// explorer tries a few values and answers unknown; Z3 treats the value symbolically. Small
/// programs: two lanes, in one subgroup, and in two subgroups with workgroup barriers.
///
/// The explorer is asked for explicitly: it is the oracle the Z3 engine is checked against,
/// and `Options::default()` may name another engine.
#[test]
fn the_explorer_runs_every_small_program_within_the_loop_bound() {
    let models: Vec<Model> = Model::builtin()
        .into_iter()
        .filter(|m| m.name != "Symb")
        .collect();
    assert!(!models.is_empty());
    let opts = Options::default()
        .with_engine(Engine::Explore)
        .with_max_states(1_000_000);
    let one = GenConfig::default();
    let two = GenConfig {
        subgroups: 2,
        workgroup_barriers: true,
        ..GenConfig::default()
    };
    let (mut runs, mut undecided, mut unspecified) = (0, Vec::new(), Vec::new());
    for cfg in [&one, &two] {
        for seed in 0..100 {
            let test = parse(seed, cfg);
            for model in &models {
                let at = || format!("seed {seed}, {}, {cfg:?}", model.name);
                let analysis = match analyse(&test, model, &opts) {
                    Ok(a) => a,
                    Err(e) => panic!("{}: refused: {e}", at()),
                };
                assert!(
                    analysis.bound_hit.is_none(),
                    "{}: the loop bound was hit:\n{}",
                    at(),
                    generate(seed, cfg)
                );
                assert!(
                    analysis.undefined_behaviour.is_empty(),
                    "{}: undefined behaviour {:?}:\n{}",
                    at(),
                    analysis.undefined_behaviour[0].description,
                    generate(seed, cfg)
                );
                runs += 1;
                if !matches!(analysis.verdict, Verdict::Unknown(_)) && analysis.outcomes_complete {
                    continue;
                }
                let why = analysis.outcomes_incomplete.unwrap_or_default();
                let report = format!("{}: {:?}, outcomes: {why}", at(), analysis.verdict);
                if why.contains("unspecified value") {
                    unspecified.push(report);
                } else {
                    undecided.push(report);
                }
            }
        }
    }
    assert_eq!(runs, 2 * 100 * models.len());
    assert!(
        undecided.is_empty(),
        "{} of {runs} analyses undecided or with an incomplete outcome list:\n{}",
        undecided.len(),
        undecided.join("\n")
    );
    assert!(
        unspecified.len() <= MAX_UNSPECIFIED,
        "{} of {runs} analyses undecided for an unspecified value:\n{}",
        unspecified.len(),
        unspecified.join("\n")
    );
}

/// Analyses the explorer may leave undecided because a subgroup op reads an unspecified value
/// (6 of 1,200 when written: seed 42 in two subgroups, under all six models).
const MAX_UNSPECIFIED: usize = 6;
