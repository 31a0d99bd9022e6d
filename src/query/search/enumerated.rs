//! Enumeration: every program of a layer, one per symmetry orbit, decided by comparing both
//! models' complete outcome sets (the strategy CEGIS is measured against).

use super::enumerate::{self, Counts, Grammar, Stmt};
use super::{differ, Combination, Layer, LayerEnd, SearchError, SearchOptions, Strategy, Walk};
use crate::vocab::Kind;

/// Enumeration: every program of the layer, one per symmetry orbit, decided by comparing
/// both models' outcome sets.
pub(super) struct Enumerated<'m> {
    strong: &'m Combination,
    weak: &'m Combination,
    opts: &'m SearchOptions,
    /// The instruction kinds whose class differs: a program without one is skipped. `None`
    /// when the memory models differ: then any program may tell them apart.
    differing: Option<Vec<Kind>>,
}

impl<'m> Enumerated<'m> {
    pub(super) fn new(
        strong: &'m Combination,
        weak: &'m Combination,
        opts: &'m SearchOptions,
    ) -> Self {
        let differing = strong.same_memory(weak).then(|| {
            Kind::MODELLED
                .into_iter()
                .filter(|k| strong.model.class(*k) != weak.model.class(*k))
                .collect()
        });
        Enumerated {
            strong,
            weak,
            opts,
            differing,
        }
    }
}

impl Strategy for Enumerated<'_> {
    fn layer(
        &mut self,
        g: &Grammar,
        size: usize,
        walk: &mut Walk,
        layer: &mut Layer,
    ) -> Result<LayerEnd, SearchError> {
        let threads = g.threads;
        let mut end = LayerEnd::Exhausted;
        let mut failure: Option<String> = None;
        let counts: Counts = enumerate::for_each(g, size, &mut |p| {
            if walk.expired() {
                end = LayerEnd::TimeLimit;
                return false;
            }
            if let Some(d) = &self.differing {
                if !d.is_empty() && !relevant(p, d) {
                    walk.irrelevant += 1;
                    return true;
                }
            }
            layer.checked += 1;
            walk.checked += 1;
            walk.report_throttled(threads, size);
            if self.differing.as_ref().is_some_and(Vec::is_empty) {
                return true;
            }
            match differ(p, threads, self.strong, self.weak, self.opts) {
                Ok(None) => true,
                Ok(Some(d)) => {
                    end = LayerEnd::Found(p.to_vec(), Some(d));
                    false
                }
                Err(why) => {
                    layer.unknown += 1;
                    if failure.is_none() {
                        failure = Some(format!(
                            "{why}; first such program:\n{}",
                            enumerate::render_with(p, threads, &self.opts.grammar.access).body
                        ));
                    }
                    true
                }
            }
        });
        layer.raw = counts.raw;
        layer.canonical = counts.canonical;
        if let Some(why) = failure {
            tracing::warn!(threads, size, unknown = layer.unknown, %why, "undecided programs");
        }
        Ok(end)
    }
}

/// Does the program contain an instruction of a kind whose class differs? Labels and branches
/// are in every program.
fn relevant(p: &[Stmt], differing: &[Kind]) -> bool {
    fn has(p: &[Stmt], k: Kind) -> bool {
        p.iter().any(|s| match s {
            Stmt::Store(..) | Stmt::Load(_) => k == Kind::Memory,
            Stmt::SgOp(_) => k == Kind::Sgop,
            Stmt::Barrier => k == Kind::Barrier,
            Stmt::If(a, b) => has(a, k) || has(b, k),
        })
    }
    differing
        .iter()
        .any(|k| matches!(k, Kind::Label | Kind::Branch) || has(p, *k))
}
