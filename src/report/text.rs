//! Text output, familiar to herd7 users: states, Ok/No, witnesses, observations; plus the
//! tests x models table of `check` and `compare`.

use crate::query::{Analysis, TraceStep, Verdict};
use crate::syntax::print::outcome as outcome_text;
use std::fmt::Write;

/// herd-style block for one test under one model. Without a listed outcome set (`check`)
/// only the verdict and its witness are shown; a list that may be incomplete says so and
/// gets no Observation line (herd's Always/Sometimes/Never claim a complete list).
/// One outcome as herd writes it (`0:r=1; x=2;`); a family writes its free values `v`, `w`,
/// ... and ends with `(any v, w)`.
fn outcome_row(names: &[String], o: &crate::query::OutcomeRow) -> String {
    if o.free.is_empty() {
        return outcome_text(names, &o.values);
    }
    let group = |i: usize| o.free.iter().position(|g| g.contains(&i));
    let cells: Vec<String> = names
        .iter()
        .zip(&o.values)
        .enumerate()
        .map(|(i, (n, v))| match group(i) {
            Some(k) => format!("{n}={};", crate::query::free_value_name(k)),
            None => format!("{n}={v};"),
        })
        .collect();
    let vars: Vec<String> = (0..o.free.len())
        .map(crate::query::free_value_name)
        .collect();
    format!("{}  (any {})", cells.join(" "), vars.join(", "))
}

pub fn outcomes(a: &Analysis, witness: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Test {} (model {}, engine {})",
        a.test, a.model, a.engine
    );
    if a.outcomes_listed {
        let _ = writeln!(
            s,
            "States {}{}",
            a.outcomes.len(),
            if a.outcomes_complete {
                String::new()
            } else {
                format!(
                    " or more (the list is incomplete: {})",
                    a.outcomes_incomplete
                        .as_deref()
                        .unwrap_or("a limit was reached")
                )
            }
        );
        for o in &a.outcomes {
            let _ = writeln!(
                s,
                "{}{}",
                outcome_row(&a.observables, o),
                if o.satisfies { "  *" } else { "" }
            );
        }
    }
    let _ = writeln!(
        s,
        "{}",
        match a.condition_holds {
            Some(true) => "Ok",
            Some(false) => "No",
            None => "Undecided",
        }
    );
    // A family whose members differ counts on both sides.
    let pos = a.outcomes.iter().filter(|o| o.satisfies).count();
    let neg = a.outcomes.iter().filter(|o| !o.satisfies_all).count();
    if a.outcomes_listed {
        let _ = writeln!(s, "Witnesses\nPositive: {pos} Negative: {neg}");
    }
    let _ = writeln!(s, "Condition {}", a.condition);
    if a.outcomes_listed && a.outcomes_complete {
        let obs = if pos == 0 {
            "Never"
        } else if neg == 0 {
            "Always"
        } else {
            "Sometimes"
        };
        let _ = writeln!(s, "Observation {} {obs} {pos} {neg}", a.test);
    }
    let _ = writeln!(s, "Verdict {}{}", a.verdict.word(), expectation_note(a));
    if !a.witness_differs.is_empty() {
        let _ = writeln!(s, "Differs {}", a.witness_differs.join(", "));
    }
    if let Verdict::Unknown(why) = &a.verdict {
        let _ = writeln!(s, "  because {why}");
    }
    for u in &a.undefined_behaviour {
        let _ = writeln!(s, "Flag undefined-behaviour: {}", u.description);
        if witness {
            s.push_str(&trace(&u.witness));
        }
    }
    if let Some(cut) = &a.bound_hit {
        let _ = writeln!(
            s,
            "Flag bound-hit: an execution would run a loop past --unroll"
        );
        if witness {
            s.push_str(&trace(cut));
        }
    }
    if let Some(h) = &a.hang {
        let _ = writeln!(
            s,
            "Flag hang: a run never finishes (progress {}, engine {})",
            h.progress, h.engine
        );
        for n in &h.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        s.push_str(&hang(h, witness));
    }
    for n in &a.notes {
        let _ = writeln!(s, "Note {n}");
    }
    if witness {
        if let Some(w) = &a.witness {
            let _ = writeln!(
                s,
                "Witness (an execution satisfying the condition's proposition):"
            );
            s.push_str(&trace(w));
        }
    }
    s.push_str(&memory(a, witness));
    match a.engine {
        crate::query::Engine::Explore => {
            let _ = writeln!(s, "Time {} {:.3} ms, {} states", a.test, a.millis, a.states);
        }
        crate::query::Engine::Smt => {
            let _ = writeln!(s, "Time {} {:.3} ms", a.test, a.millis);
        }
    }
    s
}

/// A warning on one line: `file:line:col: warning: message (help)`.
pub fn warning(d: &crate::diag::Diagnostic) -> String {
    let help: String = d.help.iter().map(|h| format!(" ({h})")).collect();
    format!("{}: warning: {}{help}", d.location(), d.message)
}

/// The differences of a run from an --expected table.
pub fn differences(d: &[crate::query::expected::Mismatch], table: &str) -> String {
    use crate::query::expected::Word;
    let mut s = String::new();
    if d.is_empty() {
        let _ = write!(s, "no differences from {table}");
        return s;
    }
    let _ = writeln!(s, "{} differences from {table}:", d.len());
    let by_path = d.iter().any(|x| {
        matches!(x.got, Word::Holds | Word::Fails)
            || matches!(x.expected, Some(Word::Holds | Word::Fails))
    });
    for x in d {
        // Dartagnan's tables are by path and say whether the condition holds (1/0).
        let (who, said) = if x.races {
            (x.file.as_str(), "no execution raises a flag: ")
        } else if by_path {
            (x.file.as_str(), "the condition holds: ")
        } else {
            (x.test.as_str(), "")
        };
        let _ = writeln!(
            s,
            "  {who} under {}: {said}{} (the table says {})",
            x.model,
            x.got.as_str(),
            x.expected.map_or("nothing: no row", |w| w.as_str())
        );
    }
    if !by_path {
        s.push_str("accept this run with --bless");
    }
    s.trim_end().to_string()
}

/// `text` padded with spaces to `width` characters. (`format!`'s `{:<w$}` panics above 65535.)
pub(crate) fn pad(text: &str, width: usize) -> String {
    let n = text.chars().count();
    let mut s = text.to_string();
    s.extend(std::iter::repeat_n(' ', width.saturating_sub(n)));
    s
}

fn expectation_note(a: &Analysis) -> String {
    match (a.expected, a.matches_expectation()) {
        (Some(e), Some(true)) => format!(" (expected {}, ok)", allow_word(e)),
        (Some(e), Some(false)) => format!(" (expected {}: MISMATCH)", allow_word(e)),
        (Some(e), None) => format!(" (expected {})", allow_word(e)),
        (None, _) => String::new(),
    }
}

fn allow_word(b: bool) -> &'static str {
    if b {
        "allow"
    } else {
        "forbid"
    }
}

/// Under a relaxed memory model: why the condition is forbidden (the axioms, named as the cat
/// file names them), and with `witness` the executions' reads-from and coherence, and their
/// fences, barriers and subgroup ops.
fn memory(a: &Analysis, witness: bool) -> String {
    let mut s = String::new();
    let Some(m) = &a.memory else {
        return s;
    };
    let execution = |s: &mut String, e: &crate::memory::Execution| {
        for (w, r) in &e.rf {
            let _ = writeln!(s, "  rf {w} -> {r}");
        }
        for (x, y) in &e.co {
            let _ = writeln!(s, "  co {x} -> {y}");
        }
        for x in &e.others {
            let _ = writeln!(s, "  {x}");
        }
    };
    if let (true, Some(e)) = (witness, &m.execution) {
        let _ = writeln!(
            s,
            "Witness execution (reads-from, coherence, other events):"
        );
        execution(&mut s, e);
    }
    for (axiom, e) in &m.forbidden_by {
        let _ = writeln!(
            s,
            "Forbidden by axiom `{axiom}`: an execution reaching the condition satisfies every other axiom"
        );
        if witness {
            execution(&mut s, e);
        }
    }
    if m.forbidden_by_partial {
        let _ = writeln!(
            s,
            "(The search for axioms that alone forbid it stopped before the end: others may too.)"
        );
    }
    if !m.forbidden_jointly.is_empty() {
        let _ = writeln!(
            s,
            "Forbidden by the axioms {} together (no one of them alone)",
            m.forbidden_jointly
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    s
}

/// A numbered witness trace: thread(s), dynamic block, source line, instruction, effects.
pub fn trace(steps: &[TraceStep]) -> String {
    let mut s = String::new();
    for st in steps {
        let threads: Vec<String> = st.threads.iter().map(|t| format!("T{t}")).collect();
        let _ = writeln!(
            s,
            "  {:>3}. {:<10} {:<22} l.{:<4} {:<34} {}",
            st.step,
            threads.join(","),
            st.block,
            st.line,
            clip(&st.instruction, 34),
            st.effects.join("; ")
        );
    }
    s
}

/// `s` cut to `n` characters, with `…` when cut.
pub(crate) fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut c: String = s.chars().take(n - 1).collect();
        c.push('…');
        c
    }
}

/// The tests x models table. `with_expect` marks verdicts that contradict the `expect` line.
pub fn table(analyses: &[Analysis], models: &[String], with_expect: bool) -> String {
    let mut tests: Vec<(&str, &str)> = Vec::new();
    for a in analyses {
        if !tests.iter().any(|(t, f)| *t == a.test && *f == a.file) {
            tests.push((&a.test, &a.file));
        }
    }
    let w = tests
        .iter()
        .map(|(t, _)| t.chars().count())
        .max()
        .unwrap_or(4)
        .max(4)
        + 2;
    let mut mismatches = Vec::new();
    let mut unknown = Vec::new();
    let mut undefined = Vec::new();
    let mut hangs = Vec::new();
    let rows: Vec<Vec<String>> = tests
        .iter()
        .map(|(t, f)| {
            models
                .iter()
                .map(|m| {
                    let cell = analyses
                        .iter()
                        .find(|a| a.test == *t && a.file == *f && &a.model == m);
                    let Some(a) = cell else {
                        return "-".to_string();
                    };
                    let mut c = a.verdict.short().to_string();
                    if with_expect && a.matches_expectation() == Some(false) {
                        c.push('!');
                        mismatches.push(a);
                    }
                    if let Verdict::Unknown(_) = a.verdict {
                        unknown.push(a);
                    }
                    if !a.undefined_behaviour.is_empty() {
                        c.push('*');
                        undefined.push(a);
                    }
                    if a.hang.is_some() {
                        c.push('~');
                        hangs.push(a);
                    }
                    c
                })
                .collect()
        })
        .collect();
    // Each column fits its model's name, the usual verdicts ("unknown", "forbid!*") and its
    // widest cell, and a space.
    let widths: Vec<usize> = (models.iter().enumerate())
        .map(|(k, m)| {
            let widest = rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0);
            m.chars().count().max(8).max(widest) + 1
        })
        .collect();
    let mut s = String::new();
    s.push_str(&pad("Test", w));
    for (m, &cw) in models.iter().zip(&widths) {
        s.push_str(&pad(m, cw));
    }
    s.push('\n');
    for ((t, _), row) in tests.iter().zip(&rows) {
        s.push_str(&pad(t, w));
        for (text, &cw) in row.iter().zip(&widths) {
            s.push_str(&pad(text, cw));
        }
        s.push('\n');
    }
    let total = analyses.len();
    let _ = write!(
        s,
        "\n{} tests x {} models: {total} verdicts",
        tests.len(),
        models.len()
    );
    if with_expect {
        let checked = analyses
            .iter()
            .filter(|a| a.matches_expectation().is_some())
            .count();
        let _ = write!(
            s,
            ", {} checked against expectations, {} mismatches",
            checked,
            mismatches.len()
        );
    }
    let _ = writeln!(s, ", {} unknown", unknown.len());
    for a in &mismatches {
        let _ = writeln!(
            s,
            "! {} under {}: {} but the expectation says {}",
            a.test,
            a.model,
            a.verdict.short(),
            allow_word(a.expected.unwrap_or(false))
        );
        if !a.witness_differs.is_empty() {
            let _ = writeln!(
                s,
                "  the witness ends with {}",
                a.witness_differs.join(", ")
            );
        }
        for line in memory(a, false).lines() {
            let _ = writeln!(s, "  {line}");
        }
    }
    let mut reasons: Vec<String> = Vec::new();
    for a in &unknown {
        if let Verdict::Unknown(why) = &a.verdict {
            let line = format!("? unknown under {}: {why}", a.model);
            if !reasons.contains(&line) {
                reasons.push(line);
            }
        }
    }
    for r in reasons {
        let _ = writeln!(s, "{r}");
    }
    // A verdict about a program with undefined behaviour (a data race the memory model flags)
    // is about a program that means nothing on that path: the table marks it.
    for a in undefined.iter().take(MAX_UB_LINES) {
        let kinds: Vec<&str> = a
            .undefined_behaviour
            .iter()
            .map(|u| u.description.as_str())
            .collect();
        let _ = writeln!(
            s,
            "* {} under {}: undefined behaviour: {} (--witness shows an execution)",
            a.test,
            a.model,
            kinds.join("; ")
        );
    }
    more(
        &mut s,
        '*',
        undefined.len(),
        "verdicts with undefined behaviour",
    );
    // A run the loop bound cut that never finishes: the verdict is about the runs that do.
    for a in hangs.iter().take(MAX_UB_LINES) {
        let Some(h) = &a.hang else { continue };
        let who: Vec<String> = h
            .threads
            .iter()
            .filter(|t| t.role != "terminated" && t.role != "free")
            .map(|t| {
                let at = t.line.map_or(String::new(), |l| format!(" at line {l}"));
                format!("T{} {}{at}", t.thread, t.role)
            })
            .collect();
        let _ = writeln!(
            s,
            "~ {} under {}: a run never finishes ({}, progress {}): {} (--witness shows it)",
            a.test,
            a.model,
            if h.hang == Some(crate::query::liveness::HangKind::Deadlock) {
                "a deadlock"
            } else {
                "a loop forever"
            },
            h.progress,
            who.join(", ")
        );
    }
    more(
        &mut s,
        '~',
        hangs.len(),
        "verdicts with runs that never finish",
    );
    s
}

/// Verdicts with undefined behaviour (or with hangs) listed under the table, at most.
const MAX_UB_LINES: usize = 20;

/// The line counting what a list under the table left out, when it left something out.
fn more(s: &mut String, mark: char, listed: usize, what: &str) {
    if listed > MAX_UB_LINES {
        let _ = writeln!(
            s,
            "{mark} and {} more {what} (--format json lists them)",
            listed - MAX_UB_LINES
        );
    }
}

/// For `compare`: which tests tell each pair of models apart.
pub fn distinctions(analyses: &[Analysis], models: &[String]) -> String {
    let mut s = String::new();
    for (i, a) in models.iter().enumerate() {
        for b in &models[i + 1..] {
            let mut diff = Vec::new();
            for x in analyses.iter().filter(|x| &x.model == a) {
                if let Some(y) = analyses
                    .iter()
                    .find(|y| &y.model == b && y.test == x.test && y.file == x.file)
                {
                    let known = !matches!(x.verdict, Verdict::Unknown(_))
                        && !matches!(y.verdict, Verdict::Unknown(_));
                    if known && x.verdict != y.verdict {
                        diff.push(format!(
                            "{} ({} {}, {} {})",
                            x.test,
                            a,
                            x.verdict.short(),
                            b,
                            y.verdict.short()
                        ));
                    }
                }
            }
            if !diff.is_empty() {
                let _ = writeln!(s, "{a} vs {b}: {}", diff.join(", "));
            }
        }
    }
    if s.is_empty() {
        s.push_str("No test tells any two of these models apart.\n");
    }
    s
}

/// The thin-air report of one test.
pub fn thin_air(r: &crate::query::thin_air::ThinAirReport, witness: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Test {}: outcomes {} allows and {} forbids",
        r.test, r.symbolic, r.well_founded
    );
    let _ = writeln!(
        s,
        "Condition {}: {}",
        r.condition,
        match r.condition_thin_air {
            Some(true) => "thin air (allowed by the symbolic model only through an op result that is not yet justified)",
            Some(false) => "not thin air",
            None => "unknown",
        }
    );
    if r.thin_air.is_empty() {
        // Only a complete list says there is none.
        let none = match r.incomplete {
            None => "No thin-air outcome.",
            Some(_) => "No thin-air outcome found (the list is incomplete: see the note).",
        };
        let _ = writeln!(s, "{none}");
    }
    let mut shown_cycle: Option<Vec<String>> = None;
    for o in &r.thin_air {
        let spec = match o.speculative_allows {
            Some(true) => format!(
                "{} also allows it (self-justifying speculation)",
                r.speculative
            ),
            Some(false) => format!("{} forbids it", r.speculative),
            None => format!("{}: unknown", r.speculative),
        };
        let _ = writeln!(
            s,
            "Thin air: {}{}  [{spec}]",
            outcome_text(&r.observables, &o.values),
            if o.satisfies { "  *" } else { "" }
        );
        if shown_cycle.as_ref() == Some(&o.cycle) && !witness {
            let _ = writeln!(s, "  justification cycle: as above");
            continue;
        }
        let _ = writeln!(s, "  justification cycle:");
        for c in &o.cycle {
            let _ = writeln!(s, "    {c}");
        }
        shown_cycle = Some(o.cycle.clone());
        if witness {
            s.push_str(&trace(&o.witness));
        }
    }
    if let Some(why) = &r.incomplete {
        let _ = writeln!(s, "Note: the list may be incomplete: {why}");
    }
    s.push('\n');
    s
}

/// One liveness answer: the verdict, who spins, who is blocked or starved, and (with
/// `witness`) the prefix and the loop repeated forever.
pub fn liveness(r: &crate::query::liveness::LivenessReport, witness: bool) -> String {
    use crate::query::liveness::LiveVerdict;
    let mut s = String::new();
    let verdict = match (&r.verdict, r.bound) {
        (LiveVerdict::Unknown(why), _) => format!("unknown ({why})"),
        (v, Some(n)) => format!("{} (decided at --unroll {n})", v.word()),
        (v, None) => v.word().to_string(),
    };
    let mismatch = match r.matches_expectation() {
        Some(false) => format!(
            " (expected: {})",
            if r.expected == Some(true) {
                "live"
            } else {
                "violated"
            }
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        s,
        "Test {} (model {}, progress {}, engine {}): {verdict}{mismatch}",
        r.test, r.model, r.progress, r.engine
    );
    for n in &r.notes {
        let _ = writeln!(s, "  note: {n}");
    }
    s.push_str(&hang(r, witness));
    s
}

/// A hang's lines: what kind it is, each thread's role and what it waits for, and (with
/// `witness`) the prefix and the loop repeated forever. Empty when `r` is no hang.
fn hang(r: &crate::query::liveness::LivenessReport, witness: bool) -> String {
    use crate::query::liveness::HangKind;
    let mut s = String::new();
    if let Some(kind) = r.hang {
        let partial = r.threads.iter().any(|t| t.role == "free");
        let _ = writeln!(
            s,
            "  {}",
            match kind {
                HangKind::Deadlock if partial => "deadlock: a workgroup's threads wait at barriers they never pass (barrier divergence), whatever the others do",
                HangKind::Deadlock => "deadlock: no thread can move, and some have not terminated",
                HangKind::Spin => "a loop that repeats forever, fair to every thread the progress model guarantees",
            }
        );
        for t in &r.threads {
            let why = match t.role {
                "spins" => "spins",
                "blocked" => "is blocked (it cannot move)",
                "starved" => "is never scheduled (the progress model does not guarantee it)",
                "free" => "may still move (the hang does not hold it)",
                _ => "has terminated",
            };
            let at = match (&t.at, t.line) {
                (Some(b), Some(l)) => format!(" at {b}, line {l}"),
                _ => String::new(),
            };
            let _ = writeln!(s, "    T{} {why}{at}", t.thread);
            if let Some(w) = &t.waits_for {
                let _ = writeln!(s, "      {w}");
            }
        }
        if witness {
            let _ = writeln!(s, "  Prefix:");
            s.push_str(&trace(&r.prefix));
            if kind == HangKind::Spin {
                let _ = writeln!(s, "  Repeated forever:");
                s.push_str(&trace(&r.cycle));
            }
        }
    }
    s
}

/// The last line of a liveness run: answers, how many an expectation checked, contradictions
/// and unknowns.
pub fn liveness_summary(reports: &[crate::query::liveness::LivenessReport]) -> String {
    use crate::query::liveness::LiveVerdict;
    let checked = reports
        .iter()
        .filter(|r| r.matches_expectation().is_some())
        .count();
    let wrong = reports
        .iter()
        .filter(|r| r.matches_expectation() == Some(false))
        .count();
    let unknown = reports
        .iter()
        .filter(|r| matches!(r.verdict, LiveVerdict::Unknown(_)))
        .count();
    let violated = reports
        .iter()
        .filter(|r| r.verdict == LiveVerdict::Violated)
        .count();
    format!(
        "\n{} answers: {} live, {violated} violated, {unknown} unknown; {checked} checked against expectations, {wrong} contradict them\n",
        reports.len(),
        reports.len() - violated - unknown
    )
}
