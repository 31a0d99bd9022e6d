//! Choosing how deep to unroll each loop, above the unrolling mechanism: [`super::bounds`]
//! says how deep each loop can run, [`super::unroll`] builds the program at given depths, and
//! this loop goes between them until the depths settle.

use super::bounds::{self, Need};
use super::cfg::Cfg;
use super::idle;
use super::program::Program;
use super::unroll::{unroll_to, UnrollError};
use crate::budget::Budget;

/// Most rounds of deepening and trimming.
const ROUNDS: usize = 12;

/// How deep idle loops ([`super::idle`]) are unrolled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdleDepth {
    /// As deep as the widest subgroup has lanes, at most the bound: a cut there hides no
    /// outcome ([`Program::idle_cut`]), so questions about outcomes need no more, and every
    /// iteration beyond is work for the engines with nothing to find.
    Lanes,
    /// One iteration more than `Lanes`: under a memory model with flags, where an
    /// iteration that goes round may race and the rest are removed around it
    /// ([`Program::idle_cuts_hide_no_flag`]).
    LanesAndOne,
    /// To the bound, like every other loop: for questions about the runs themselves
    /// (liveness watches loops go round), and for checking the rule above.
    Bound,
}

/// Unrolls `cfg`: each loop as deep as [`super::bounds`] finds it can run, and to `unroll`
/// iterations (at least 1) where it cannot tell (idle loops: see [`IdleDepth`]). Should those
/// depths make the program too large, every loop gets `unroll`. Every round runs under
/// `budget`.
pub fn unroll(
    cfg: Cfg,
    unroll: u32,
    idle_depth: IdleDepth,
    budget: &Budget,
) -> Result<Program, UnrollError> {
    unroll_partly(cfg, unroll, idle_depth, None, budget)
}

/// As [`unroll`], with partly idle loops ([`idle::partly_idle_loops`]) at most
/// [`partly_idle_depth`]`(round)` deep when `round` is given (at most `unroll` either way).
pub fn unroll_partly(
    cfg: Cfg,
    unroll: u32,
    idle_depth: IdleDepth,
    round: Option<u32>,
    budget: &Budget,
) -> Result<Program, UnrollError> {
    // A flag may need one idle iteration kept, the one that races (as `LanesAndOne` above).
    let rounds_needed = if idle_depth == IdleDepth::LanesAndOne {
        2
    } else {
        1
    };
    let partly = round.map(|k| partly_idle_depth(&cfg, rounds_needed, k));
    let mut prog = choose_depths(cfg, unroll, idle_depth, partly, budget)?;
    prog.rounds_needed = rounds_needed;
    Ok(prog)
}

/// How deep partly idle loops are unrolled in deepening round `round` (0, 1, ...): a cut
/// there is no doubt once enough iterations were idle ([`Program::idle_rounds`]), so a
/// run needs as many iterations as lanes may leave, plus the idle ones, plus those that are
/// busy; the last is unknown, so the depth starts at one busy iteration and doubles each
/// round (`query::deepening`).
pub fn partly_idle_depth(cfg: &Cfg, rounds_needed: u32, round: u32) -> u32 {
    (cfg.layout.idle_depth() + rounds_needed + 1).saturating_mul(1 << round.min(16))
}

fn choose_depths(
    cfg: Cfg,
    unroll: u32,
    idle_depth: IdleDepth,
    partly: Option<u32>,
    budget: &Budget,
) -> Result<Program, UnrollError> {
    let unroll = unroll.max(1);
    let found = bounds::loop_depths(&cfg);
    // The most iterations each loop needs: idle ones, the subgroup's lanes.
    let live = super::live::Live::of(&cfg);
    let idle = idle::idle_loops(&cfg, &live);
    let partly_idle = idle::partly_idle_loops(&cfg, &live, &idle);
    let most: Vec<u32> = (idle.iter().zip(&partly_idle))
        .map(|(i, p)| match i {
            Some(_) if idle_depth == IdleDepth::Lanes => cfg.layout.idle_depth(),
            Some(_) if idle_depth == IdleDepth::LanesAndOne => cfg.layout.idle_depth() + 1,
            None if p.is_some() => partly.unwrap_or(bounds::MAX_DEPTH),
            _ => bounds::MAX_DEPTH,
        })
        .collect();
    let mut depths: Vec<u32> = found
        .iter()
        .zip(&most)
        .map(|(d, &m)| d.unwrap_or(unroll).min(m))
        .collect();
    let mut prog = match unroll_to(&cfg, &depths, unroll, budget) {
        Err(UnrollError::TooLarge { .. }) if depths.iter().any(|&d| d != unroll) => {
            depths = most.iter().map(|&m| unroll.min(m)).collect();
            return unroll_to(&cfg, &depths, unroll, budget);
        }
        r => r?,
    };
    // Run the subgroups together on the unrolled program: a loop certainly cut is deepened
    // (doubling, up to MAX_DEPTH) unless the threads reach its cut again with the registers
    // they had last time (a spin that never ends: deeper is only bigger), a loop never cut is
    // trimmed to the iterations entered.
    let mut last_cut: Vec<Option<u64>> = vec![None; depths.len()];
    for _ in 0..ROUNDS {
        budget.check("choosing loop depths")?;
        let Some(needs) = bounds::needs(&prog) else {
            return Ok(prog);
        };
        let mut next = depths.clone();
        for (l, need) in needs.iter().enumerate() {
            match need {
                Need::Enough(n) => next[l] = (*n).min(depths[l]),
                Need::Deeper(f) if last_cut[l] == Some(*f) => {}
                Need::Deeper(f) => {
                    last_cut[l] = Some(*f);
                    next[l] = (depths[l] * 2)
                        .min(bounds::MAX_DEPTH)
                        .min(most[l])
                        .max(depths[l]);
                }
                Need::Open => {}
            }
        }
        if next == depths {
            return Ok(prog);
        }
        match unroll_to(&cfg, &next, unroll, budget) {
            Ok(p) => {
                prog = p;
                depths = next;
            }
            Err(e @ UnrollError::Exhausted(_)) => return Err(e),
            Err(UnrollError::TooLarge { .. }) => return Ok(prog),
        }
    }
    Ok(prog)
}

#[cfg(test)]
mod tests {
    use super::IdleDepth;
    use crate::budget::Budget;

    fn depths(body: &str, subgroup: u32, idle: IdleDepth) -> Vec<u32> {
        let text = format!(
            "test t\nthreads 4\nsubgroup {subgroup}\nglobal x\nglobal y\nkernel {{ r = x; while (r != 1) {{ {body} }} }}\nexists (0:r == 1)\n"
        );
        let test = crate::syntax::parse("t.litmus", text.as_bytes()).unwrap();
        let cfg = crate::ir::cfg::lower(&test);
        super::unroll(cfg, 8, idle, &Budget::unlimited())
            .unwrap()
            .depths
    }

    #[test]
    fn idle_loops_are_unrolled_as_deep_as_a_subgroup_has_lanes() {
        let spin = "r = x;";
        assert_eq!(depths(spin, 2, IdleDepth::Lanes), [2]);
        assert_eq!(depths(spin, 1, IdleDepth::Lanes), [1]);
        // Wider than the threads: the widest subgroup is the workgroup's 4 lanes.
        assert_eq!(depths(spin, 16, IdleDepth::Lanes), [4]);
        // To the bound, like any loop: deepened, as the run is certainly cut.
        assert!(depths(spin, 2, IdleDepth::Bound)[0] >= 8);
        // A loop that writes is not idle: the bound, deepened where a run is certainly cut.
        assert!(depths("y = 1; r = x;", 2, IdleDepth::Lanes)[0] >= 8);
    }
}
