//! Outcomes with a free value (docs/semantics.md §6, "Outcomes with a free value"). Where a
//! value comes out of thin air (Symb) or from a read nothing specifies, Z3 finds one arbitrary
//! number after another and the list is cut at `--max-outcomes`. An outcome found with a model
//! M is generalised instead: the observables holding one value c take *any* value v, when
//! pinning every constant of the formula to its value in M, except those equal to c, which
//! become v, leaves every assertion true for every v. That is checked as "the negation is
//! unsatisfiable" with v the only unknown, so a family is a proof (each v has the execution M
//! with c replaced by v), never a sample; when the check fails or cannot run, the outcome stays
//! one outcome.

use super::decode::model_u32;
use super::terms::{and, bv, eq};
use super::Encoding;
use std::collections::HashSet;
use z3::ast::{Ast, Bool, Dynamic, Int, BV};
use z3::{AstKind, SatResult, Solver, SortKind};

/// Fresh guard literals the queries create (`lit => constraint`, assumed only by the query
/// that made them): pinned false, which makes their constraints vacuous, unless assumed now.
const GUARDS: &[&str] = &["block_outcome", "query_"];

/// The encoding's own switches (`assume_no_ub`, `assume_memory_model`, `assume_values`, ...):
/// [`Encoding::writes_every_value`] pins those its query does not assume false too, since the
/// growth of the value set assumes none of them. (Outcome families keep them at their model
/// values: `assume_memory_model` implies the axioms' switches, which the enumeration does not
/// assume one by one.)
const SWITCHES: &str = "assume_";

/// At most this many distinct values of one outcome are tried as free values, and at most
/// this many kept.
const MAX_VALUES: usize = 6;
const MAX_GROUPS: usize = 3;

/// At most this many milliseconds per check: it only pins values, so it is quick or hopeless.
const CHECK_MS: u32 = 2_000;

/// The constants a generalisation pins.
pub(super) struct Constants(Vec<Dynamic>);

impl Encoding<'_> {
    /// The uninterpreted constants of the formula, or `None` when it holds something the check
    /// cannot pin (an uninterpreted function, a quantifier, an unusual sort).
    pub(super) fn constants(&self) -> Option<Constants> {
        let mut seen: HashSet<Dynamic> = HashSet::new();
        let mut stack: Vec<Dynamic> = self
            .solver
            .get_assertions()
            .into_iter()
            .map(Dynamic::from)
            .collect();
        let mut out = Vec::new();
        while let Some(a) = stack.pop() {
            if !seen.insert(a.clone()) {
                continue;
            }
            match a.kind() {
                AstKind::Numeral => continue,
                AstKind::App => {}
                _ => return None,
            }
            // A constant: an application without arguments that is not `true` or `false`
            // (`DeclKind` is not read: libz3 4.8's numbering of it is not the crate's). An
            // uninterpreted function would be walked through and left free, which can only
            // make the check fail, never pass.
            if a.num_children() == 0 {
                if a.as_bool().is_some_and(|b| b.as_bool().is_some()) {
                    continue;
                }
                if !matches!(a.sort_kind(), SortKind::Bool | SortKind::Bv | SortKind::Int) {
                    return None;
                }
                out.push(a);
                continue;
            }
            stack.extend(a.children());
        }
        Some(Constants(out))
    }

    /// Which observables of the outcome `vals` (found with `model` under `assumed`) take any
    /// values: groups of observables, each group one free value (the observables equal to one
    /// value c of `vals`), the groups independent. Each distinct value of `vals` is tried in
    /// turn and kept when the family with it is still proved. `off`: guard literals made after
    /// `consts` was read (the blocks of this enumeration).
    pub(super) fn free_values(
        &self,
        consts: &Constants,
        model: &z3::Model,
        vals: &[u32],
        assumed: &[Bool],
        off: &[Bool],
    ) -> Option<Vec<Vec<usize>>> {
        let assumed: HashSet<Dynamic> = assumed.iter().map(|b| Dynamic::from(b.clone())).collect();
        let mut tried: Vec<u32> = Vec::new();
        let mut kept: Vec<u32> = Vec::new();
        for &c in vals {
            if tried.contains(&c) {
                continue;
            }
            if tried.len() == MAX_VALUES || kept.len() == MAX_GROUPS {
                break;
            }
            tried.push(c);
            if self.budget.remaining() == Some(std::time::Duration::ZERO) {
                break;
            }
            let mut with = kept.clone();
            with.push(c);
            if self.holds_for_every_value(consts, model, vals, &with, &assumed, off) {
                kept = with;
            }
        }
        let groups: Vec<Vec<usize>> = kept
            .iter()
            .map(|&c| (0..vals.len()).filter(|&i| vals[i] == c).collect())
            .collect();
        (!groups.is_empty()).then_some(groups)
    }

    /// Is `model`, with every 32-bit constant equal to `cs[k]` replaced by a free value v_k, a
    /// model for every choice of the v_k, and are the observables then `vals` with those equal
    /// to `cs[k]` at v_k?
    fn holds_for_every_value(
        &self,
        consts: &Constants,
        model: &z3::Model,
        vals: &[u32],
        cs: &[u32],
        assumed: &HashSet<Dynamic>,
        off: &[Bool],
    ) -> bool {
        let targets: Vec<(&BV, u32)> = self.observables.iter().zip(vals.iter().copied()).collect();
        self.pinned_holds(consts, model, cs, assumed, off, &[], &targets, false)
    }

    /// Does a run write *every* value where `model` writes `c`: is `model`, with every 32-bit
    /// constant equal to `c` replaced by a free v, a model of every assertion under `assumed`
    /// with `must` true and `value` equal to v, for every v? (The value set of a symbolic
    /// model under a memory model: when its op results may be anything, so is what a run
    /// writes, and the set is every value rather than a list that never stops growing.)
    pub(super) fn writes_every_value(
        &self,
        model: &z3::Model,
        assumed: &[Bool],
        must: &[Bool],
        value: &BV,
        c: u32,
    ) -> bool {
        let Some(consts) = self.constants() else {
            return false;
        };
        let assumed: HashSet<Dynamic> = assumed.iter().map(|b| Dynamic::from(b.clone())).collect();
        self.pinned_holds(
            &consts,
            model,
            &[c],
            &assumed,
            &[],
            must,
            &[(value, c)],
            true,
        )
    }

    /// The check both questions share: with every constant pinned to its value in `model`
    /// except the 32-bit ones equal to `cs[k]`, which become a free v_k, do every assertion,
    /// `must`, and each target term equal to its value (v_k for `cs[k]`) hold for every v_k?
    /// Guard literals not assumed are pinned false (their constraints vacuous), and with
    /// `switches_off` the encoding's switches too.
    #[allow(clippy::too_many_arguments)]
    fn pinned_holds(
        &self,
        consts: &Constants,
        model: &z3::Model,
        cs: &[u32],
        assumed: &HashSet<Dynamic>,
        off: &[Bool],
        must: &[Bool],
        targets: &[(&BV, u32)],
        switches_off: bool,
    ) -> bool {
        let vs: Vec<BV> = cs
            .iter()
            .map(|_| BV::fresh_const("free_value", 32))
            .collect();
        let var = |x: u64| cs.iter().position(|&c| c as u64 == x).map(|k| &vs[k]);
        let s = Solver::new();
        for b in off {
            s.assert(b.not());
        }
        let ms = self
            .budget
            .solver_ms()
            .map_or(CHECK_MS, |m| m.min(CHECK_MS));
        for k in &consts.0 {
            match k.sort_kind() {
                SortKind::Bool => {
                    let Some(b) = k.as_bool() else { return false };
                    let name = k.decl().name();
                    let guard = (GUARDS.iter().any(|g| name.starts_with(g))
                        || (switches_off && name.starts_with(SWITCHES)))
                        && !assumed.contains(k);
                    let value = !guard
                        && model
                            .eval(&b, true)
                            .and_then(|x| x.as_bool())
                            .unwrap_or(false);
                    s.assert(&if value { b } else { b.not() });
                }
                SortKind::Bv => {
                    let Some(x) = k.as_bv() else { return false };
                    let Some(val) = model.eval(&x, true).and_then(|y| y.as_u64()) else {
                        return false;
                    };
                    let w = x.get_size();
                    match var(val).filter(|_| w == 32) {
                        Some(v) => s.assert(eq(&x, v)),
                        None => s.assert(eq(&x, &BV::from_u64(val, w))),
                    }
                }
                SortKind::Int => {
                    let Some(x) = k.as_int() else { return false };
                    let Some(val) = model.eval(&x, true).and_then(|y| y.as_i64()) else {
                        return false;
                    };
                    s.assert(x.eq(Int::from_i64(val)));
                }
                _ => return false,
            }
        }
        // Every assertion, `must`, and the targets at their values.
        let mut all: Vec<Bool> = self.solver.get_assertions();
        all.extend(must.iter().cloned());
        for &(o, x) in targets {
            all.push(match var(x as u64) {
                Some(v) => eq(o, v),
                None => eq(o, &bv(x)),
            });
        }
        let refs: Vec<&Bool> = all.iter().collect();
        s.assert(and(&refs).not());
        let unsat = super::deadline::within(Some(ms), || s.check()).0 == SatResult::Unsat;
        // The model gave these values: a family must contain the outcome it came from.
        unsat && targets.iter().all(|&(o, x)| model_u32(model, o) == x)
    }
}
