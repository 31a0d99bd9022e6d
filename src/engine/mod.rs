//! Engines: given an unrolled program and a model, find the executions.
use crate::ir::{Op, Program};
use crate::model::Model;
use crate::vocab::{Class, Kind, Members};
pub mod explore;
pub mod lasso;
pub mod smt;
pub mod trace;

/// The most loop iterations a spin may take to come back to the state it started from (a
/// loop over basic blocks, as Dartagnan's litmus threads become, spins through several
/// blocks). Z3 looks this many iterations of the loop back for a window that changed nothing;
/// the explorer, under a memory model, this many of the thread's last loop-header entries.
pub const MAX_SPIN_PERIOD: u32 = 8;

/// Why the spin-loop reduction (a thread that comes back to a loop header as it was can
/// repeat those iterations forever) cannot decide `m` on `prog`, if it cannot. It needs loops
/// whose steps run alone: a spinning thread then never waits, and threads waiting after its
/// loop see it undecided whatever iteration it is in. Under SSO that means no subgroup op or
/// barrier inside a loop; under CM, SM and SCF every loop step waits for the subgroup, unless
/// subgroups have one lane; Lazy and Spec subgroup ops, and Symb's inside loops, are not
/// covered ([`classes_covered`]).
pub fn loops_run_alone(prog: &Program, m: &Model) -> Result<(), String> {
    let lay = prog.layout;
    let lanes = lay.subgroup.min(lay.workgroup) > 1;
    let waits = |k: Kind| lanes && m.rule(k).members != Members::Alone;
    classes_covered(prog, m)?;
    for block in &prog.blocks {
        if prog.cfg.blocks[block.sblock].loops.is_empty() {
            continue;
        }
        let waiting = if waits(Kind::Label) || waits(Kind::Branch) {
            Some(block.span.line)
        } else {
            block
                .instrs
                .iter()
                .find(|i| {
                    // A barrier of a workgroup of several threads waits for them, whatever
                    // the lanes.
                    (matches!(i.op, Op::WorkgroupBarrier | Op::QuorumBarrier { .. })
                        && lay.workgroup > 1)
                        || waits(i.op.kind())
                })
                .map(|i| i.span.line)
        };
        if let Some(line) = waiting {
            return Err(format!(
                "the spin-loop reduction needs loops whose steps run alone, and under {} the \
                 loop step at line {line} waits for other threads",
                m.name
            ));
        }
    }
    Ok(())
}

/// Why the model's classes put `prog` out of reach of both liveness reductions (a thread that
/// comes back as it was, a state that comes back), if they do: Lazy and Spec subgroup ops
/// keep results pending or speculated, state neither reduction compares. A class no
/// instruction of the program has is no matter: without subgroup ops, Lazy, Spec and Symb
/// run the program as SSO does. Symb's ops are covered by Z3 (the explorer does not run
/// them): a symbolic op's participants are the threads that ever enter its block, which
/// `smt::liveness` judges at the horizon, inside loops too ([`symbolic_in_loop`]).
pub fn classes_covered(prog: &Program, m: &Model) -> Result<(), String> {
    for k in Kind::MODELLED {
        let c = m.class(k);
        if matches!(c, Class::Lazy | Class::Speculative) && prog.has_kind(k) {
            return Err(format!(
                "the spin-loop reduction does not cover {} {} steps (under {})",
                c.name(),
                k.name(),
                m.name
            ));
        }
    }
    Ok(())
}

/// The line of a step of a symbolic class (Symb's subgroup ops) inside a loop, if there is
/// one: then a lagging lane may enter an iteration's block after the horizon, and Z3's
/// answer needs the window rules of `smt::liveness` (docs/progress.md, "Symb's ops inside
/// loops").
pub fn symbolic_in_loop(prog: &Program, m: &Model) -> Option<u32> {
    (prog.blocks.iter())
        .filter(|b| !prog.cfg.blocks[b.sblock].loops.is_empty())
        .flat_map(|b| b.instrs.iter())
        .find(|i| symbolic(m, &i.op))
        .map(|i| i.span.line)
}

/// Is `op` a step of a symbolic class under `m` (Symb's subgroup ops)?
pub fn symbolic(m: &Model, op: &Op) -> bool {
    m.class(op.kind()) == Class::Symbolic
}

/// Does a loop of `prog` hold a barrier with a quorum? Which of its instances opened is state
/// a lasso of positions, registers and memory does not compare.
pub fn quorum_in_loop(prog: &Program) -> bool {
    (prog.blocks.iter())
        .filter(|b| !prog.cfg.blocks[b.sblock].loops.is_empty())
        .any(|b| (b.instrs.iter()).any(|i| matches!(i.op, Op::QuorumBarrier { .. })))
}
