//! Searching for a program that tells two models apart, smallest first: the driver
//! [`search`] walks the layers ([`walk`]) with a strategy (enumeration, or CEGIS in
//! [`cegis`]), confirms what it finds with the engines ([`confirm`]) and emits it as a
//! test ([`emit`]). `include` and `distinguish` both ask it; neither depends on the other.

pub mod cegis;
mod confirm;
mod emit;
mod enumerated;
mod walk;

pub use confirm::{differ, separating};
pub(crate) use emit::witness;
use enumerated::Enumerated;
pub use walk::{
    analyse_combinations, secs, Combination, Difference, Layer, Progress, SearchEngine,
    SearchError, SearchMethod, SearchOptions, Stop, Witness,
};
pub(crate) use walk::{walk, End, LayerEnd, Strategy, Walk};

/// What a search found, layer by layer.
pub(crate) struct Search {
    pub layers: Vec<Layer>,
    pub witness: Option<Witness>,
    /// Why the search ended.
    pub stop: Stop,
}

use super::enumerate::{self, Grammar};
use crate::query::Options;

/// Looks for a program with an outcome `weak` allows and `strong` forbids, smallest first
/// ([`walk`] over the layers), deciding each layer by enumeration or by CEGIS. A program found
/// is confirmed by the engines and re-checked from its emitted text before it is returned.
pub(crate) fn search(
    strong: &Combination,
    weak: &Combination,
    opts: &SearchOptions,
    origin: &str,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Search, SearchError> {
    let (layers, end) = match opts.method {
        SearchMethod::Enumerate => walk(opts, &mut Enumerated::new(strong, weak, opts), progress)?,
        SearchMethod::Cegis if strong.memory.is_some() || weak.memory.is_some() => {
            return Err(SearchError::Option(
                "CEGIS searches under SC memory only: use --method enumerate with a memory model"
                    .into(),
            ))
        }
        SearchMethod::Cegis if !opts.grammar.access.is_plain() => {
            return Err(SearchError::Option(
                "CEGIS writes plain loads and stores: use --method enumerate with --load-words or --store-words"
                    .into(),
            ))
        }
        SearchMethod::Cegis => walk(
            opts,
            &mut cegis::Cegis::new(&strong.model, &weak.model, opts),
            progress,
        )?,
    };
    let (witness, timed_out) = match end {
        End::Found {
            grammar,
            program,
            difference,
        } => {
            let threads = grammar.threads;
            let d = match difference {
                Some(d) => d,
                None => differ(&program, threads, strong, weak, opts)
                    .map_err(SearchError::Recheck)?
                    .ok_or_else(|| {
                        SearchError::Recheck(format!(
                            "a strategy found a program the engines do not confirm:\n{}",
                            enumerate::render_with(&program, threads, &grammar.access).body
                        ))
                    })?,
            };
            let notes = smallest_notes(threads, opts, &grammar);
            let w = witness(&program, &grammar, strong, weak, &d, origin, notes)?;
            (Some(w), false)
        }
        End::TimeLimit => (None, true),
        End::Exhausted => (None, false),
    };
    let stop = Stop::of(witness.is_some(), timed_out, &layers);
    Ok(Search {
        layers,
        witness,
        stop,
    })
}

/// The comments of an emitted test that say in what sense it is smallest.
fn smallest_notes(threads: u32, opts: &SearchOptions, g: &Grammar) -> Vec<String> {
    let smallest = if threads > 2 {
        format!(
            "Smallest: no program of the grammar with fewer lanes (up to {} instructions), or with {threads} lanes and fewer instructions, has such an outcome.",
            opts.max_size
        )
    } else {
        "Smallest: no program of the grammar with fewer instructions has such an outcome."
            .to_string()
    };
    let mut notes = vec![
        smallest,
        format!("Grammar (docs/inclusion.md): {}.", g.describe()),
    ];
    if opts.method == SearchMethod::Cegis {
        notes.push("Searched by CEGIS over program templates.".into());
    }
    notes
}
