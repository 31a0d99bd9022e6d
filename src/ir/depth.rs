//! Choosing how deep to unroll each loop, above the unrolling mechanism: [`super::bounds`]
//! says how deep each loop can run, [`super::unroll`] builds the program at given depths, and
//! this loop goes between them until the depths settle.

use super::bounds::{self, Need};
use super::cfg::Cfg;
use super::program::Program;
use super::unroll::{unroll_to, UnrollError};
use crate::budget::Budget;

/// Most rounds of deepening and trimming.
const ROUNDS: usize = 12;

/// Unrolls `cfg`: each loop as deep as [`super::bounds`] finds it can run, and to `unroll`
/// iterations (at least 1) where it cannot tell. Should those depths make the program too
/// large, every loop gets `unroll`. Every round runs under `budget`.
pub fn unroll(cfg: Cfg, unroll: u32, budget: &Budget) -> Result<Program, UnrollError> {
    let unroll = unroll.max(1);
    let found = bounds::loop_depths(&cfg);
    let mut depths: Vec<u32> = found.iter().map(|d| d.unwrap_or(unroll)).collect();
    let mut prog = match unroll_to(&cfg, &depths, unroll, budget) {
        Err(UnrollError::TooLarge { .. }) if depths.iter().any(|&d| d != unroll) => {
            depths = vec![unroll; depths.len()];
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
                    next[l] = (depths[l] * 2).min(bounds::MAX_DEPTH);
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
