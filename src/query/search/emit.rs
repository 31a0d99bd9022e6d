//! Emitting a found difference as a `.litmus` test, re-parsed and re-analysed before it is
//! returned, so that a counterexample is never only the enumerator's word.

use super::enumerate::{self, Stmt};
use super::{separating, Combination, Difference, SearchError, Witness};
use crate::model::Model;
use crate::query::{Options, Verdict};
use crate::syntax::{self};

/// Builds, re-parses and re-checks the `.litmus` file for a found difference.
pub(crate) fn witness(
    p: &[Stmt],
    grammar: &enumerate::Grammar,
    strong: &Combination,
    weak: &Combination,
    d: &Difference,
    origin: &str,
    notes: Vec<String>,
) -> Result<Witness, SearchError> {
    let threads = grammar.threads;
    let r = enumerate::render_with(p, threads, &grammar.access);
    let idx = separating(&d.outcome, &d.strong);
    let condition = idx
        .iter()
        .map(|&i| format!("{} == {}", d.observables[i], d.outcome[i]))
        .collect::<Vec<_>>()
        .join(" && ");
    let condition = if condition.is_empty() {
        "true".to_string()
    } else {
        condition
    };
    let (sn, wn) = (strong.name(), weak.name());
    let name = format!("distinguish_{}_{}", ident(&sn), ident(&wn));
    let description = format!("{wn} allows, {sn} forbids");
    let size = enumerate::size(p);
    let mut comments = vec![
        format!(
            "{wn} allows and {sn} forbids this outcome ({threads} lanes, {size} instructions)."
        ),
        format!("Found by: {origin}"),
    ];
    comments.extend(notes);
    // Verdicts by re-analysing the emitted text (without the expect line first): the
    // built-in models under SC (the `expect` line), then the two sides, each under its own
    // memory model.
    let draft = r.litmus(&comments, &name, &description, &condition, None);
    let test = syntax::parse(&format!("{name}.litmus"), draft.as_bytes()).map_err(|e| {
        SearchError::Recheck(format!("the emitted test does not parse:\n{e}\n{draft}"))
    })?;
    let mut combos: Vec<Combination> = Model::builtin().into_iter().map(Combination::sc).collect();
    for c in [strong, weak] {
        if !combos.contains(c) {
            combos.push(c.clone());
        }
    }
    let prog = crate::query::compile(&test, 1).map_err(|e| SearchError::Recheck(e.to_string()))?;
    let base = Options::default().with_unroll(1).with_outcomes(false);
    let analyses = super::analyse_combinations(&test, &prog, &combos, &base);
    let mut verdicts = Vec::new();
    let mut expect = Vec::new();
    let mut custom = Vec::new();
    for (c, a) in combos.iter().zip(&analyses) {
        if let Verdict::Unknown(why) = &a.verdict {
            return Err(SearchError::Recheck(format!(
                "the emitted test is undecided under {}: {why}",
                c.name()
            )));
        }
        verdicts.push((c.name(), a.verdict.short().to_string()));
        let entry = format!("{} {}", c.name(), a.verdict.short());
        if c.memory.is_none() && Model::by_name(&c.model.name).as_ref() == Some(&c.model) {
            expect.push(entry);
        } else {
            custom.push(entry);
        }
    }
    let verdict_of = |c: &Combination| {
        combos
            .iter()
            .position(|x| x == c)
            .map(|i| analyses[i].verdict.clone())
    };
    if verdict_of(weak) != Some(Verdict::Allowed) || verdict_of(strong) != Some(Verdict::Forbidden)
    {
        return Err(SearchError::Recheck(format!(
            "the emitted test does not re-check: {wn} {:?}, {sn} {:?} (expected allowed, forbidden); the engines disagree on:\n{draft}",
            verdict_of(weak),
            verdict_of(strong)
        )));
    }
    if !custom.is_empty() {
        comments.push(format!(
            "Model files and memory models: {}.",
            custom.join(", ")
        ));
    }
    let text = r.litmus(
        &comments,
        &name,
        &description,
        &condition,
        Some(&expect.join(", ")),
    );
    syntax::parse(&format!("{name}.litmus"), text.as_bytes())
        .map_err(|e| SearchError::Recheck(format!("the emitted test does not parse:\n{e}")))?;
    Ok(Witness {
        threads,
        size,
        litmus: text,
        condition,
        outcome: d
            .observables
            .iter()
            .cloned()
            .zip(d.outcome.iter().copied())
            .collect(),
        verdicts,
        program: p.to_vec(),
    })
}

/// A model name as part of a test name.
fn ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect()
}
