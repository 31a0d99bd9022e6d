//! Text and Markdown reports of `tangle equiv`: the per-model answer table with the deciding
//! outcome and its witness, and the before/after table of docs/transforms.md.

use crate::query::equiv::{EquivReport, Holds, Question, Relation, Side};
use crate::syntax::print::outcome as outcome_text;
use std::fmt::Write;

/// The text report of `tangle equiv`.
pub fn render_text(r: &EquivReport, witness: bool, outcomes: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "P: {} (test {})", r.p_file, r.p_test);
    let _ = writeln!(s, "Q: {} (test {})", r.q_file, r.q_test);
    let _ = writeln!(
        s,
        "Compared: {} (every global cell and the registers the conditions name)",
        if r.observables.is_empty() {
            "nothing".to_string()
        } else {
            r.observables.join(" ")
        }
    );
    let asked = match r.question {
        Question::Equivalent => "are P and Q equivalent (same outcomes)?",
        Question::Refines => "does P refine Q (every outcome of P is one of Q)?",
    };
    let _ = writeln!(s, "Question: {asked}\n");
    let mw = r
        .results
        .iter()
        .map(|x| x.model.chars().count())
        .max()
        .unwrap_or(5)
        .max(5)
        + 2;
    let _ = writeln!(
        s,
        "{}{:<9}{:<14}{:>4} {:>4}",
        super::text::pad("Model", mw),
        "Answer",
        "Relation",
        "#P",
        "#Q"
    );
    for x in &r.results {
        let count = |n: usize, complete: bool| format!("{n}{}", if complete { "" } else { "+" });
        let _ = writeln!(
            s,
            "{}{:<9}{:<14}{:>4} {:>4}",
            super::text::pad(&x.model, mw),
            x.holds.word(),
            x.relation.symbol(),
            count(x.p_outcomes.len(), x.p_complete),
            count(x.q_outcomes.len(), x.q_complete)
        );
    }
    for x in &r.results {
        let detail = !matches!(x.holds, Holds::Yes) || outcomes;
        if !detail && x.notes.is_empty() {
            continue;
        }
        let _ = writeln!(s, "\n{}:", x.model);
        if let Holds::Unknown(why) = &x.holds {
            let _ = writeln!(s, "  unknown because {why}");
        }
        if let Some(d) = &x.distinction {
            let other = if d.program == Side::P { "Q" } else { "P" };
            let _ = writeln!(
                s,
                "  {} has the outcome {} and {other} does not",
                d.program, d.outcome
            );
            if witness {
                if let Some(w) = &d.witness {
                    let _ = writeln!(s, "  witness in {} ({}):", d.program, d.file);
                    s.push_str(&super::text::trace(w));
                }
            }
        }
        if outcomes {
            for (name, list, complete) in [
                ("P", &x.p_outcomes, x.p_complete),
                ("Q", &x.q_outcomes, x.q_complete),
            ] {
                let _ = writeln!(
                    s,
                    "  {name}: {} outcomes{}",
                    list.len(),
                    if complete {
                        ""
                    } else {
                        " (possibly incomplete)"
                    }
                );
                for v in list {
                    let mark = if name == "P" && x.only_in_p.contains(v)
                        || name == "Q" && x.only_in_q.contains(v)
                    {
                        "   only here"
                    } else {
                        ""
                    };
                    let _ = writeln!(s, "    {}{mark}", outcome_text(&r.observables, v));
                }
            }
        }
        for n in &x.notes {
            let _ = writeln!(s, "  note: {n}");
        }
    }
    s
}

/// One row per before/after pair: the relation of the *after* program's outcomes to the
/// *before* program's, per model, as a Markdown table. `pairs` holds (name, report with P =
/// before, Q = after).
pub fn render_markdown_table(pairs: &[(String, EquivReport)], models: &[String]) -> String {
    let mut s = String::new();
    let _ = write!(s, "| transformation |");
    for m in models {
        let _ = write!(s, " {m} |");
    }
    s.push_str("\n|---|");
    for _ in models {
        s.push_str(":---:|");
    }
    s.push('\n');
    for (name, r) in pairs {
        let _ = write!(s, "| `{name}` |");
        for m in models {
            let cell = match r.results.iter().find(|x| &x.model == m) {
                None => "-".to_string(),
                Some(x) => {
                    let sym = match x.relation {
                        Relation::Equivalent => "=",
                        // P = before, Q = after: after has more outcomes.
                        Relation::PInQ => "⊃",
                        Relation::QInP => "⊂",
                        Relation::Incomparable => "≠",
                        Relation::Unknown => "?",
                    };
                    format!(
                        "{sym} ({}{}/{}{})",
                        x.p_outcomes.len(),
                        if x.p_complete { "" } else { "+" },
                        x.q_outcomes.len(),
                        if x.q_complete { "" } else { "+" }
                    )
                }
            };
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    s
}

/// For each non-equivalent entry of the table, the outcome that tells before and after apart.
pub fn render_markdown_details(pairs: &[(String, EquivReport)]) -> String {
    let mut s = String::new();
    for (name, r) in pairs {
        let lines: Vec<String> = r
            .results
            .iter()
            .filter(|x| x.relation != Relation::Equivalent)
            .map(|x| {
                let mut parts = Vec::new();
                if let Some(v) = x.only_in_q.first() {
                    parts.push(format!("after only: `{}`", outcome_text(&r.observables, v)));
                }
                if let Some(v) = x.only_in_p.first() {
                    parts.push(format!(
                        "before only: `{}`",
                        outcome_text(&r.observables, v)
                    ));
                }
                if let Holds::Unknown(why) = &x.holds {
                    parts.push(format!("unknown: {why}"));
                }
                format!("  - {}: {}", x.model, parts.join("; "))
            })
            .collect();
        if !lines.is_empty() {
            let _ = writeln!(s, "- `{name}` (compared: {})", r.observables.join(" "));
            for l in lines {
                let _ = writeln!(s, "{l}");
            }
        }
    }
    s
}
