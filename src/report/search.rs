//! Text reports of the program searches: `include` (per-rule proof, bounded check) and
//! `distinguish` (the layers walked and what was found).

use crate::query::include::Bounded;
use crate::query::include_proof::UnboundedProof;
use crate::query::search::{Layer, Stop};
use std::fmt::Write;

/// The layers of a search as a table (lanes, size, programs, unknown, seconds).
pub fn layers(layers: &[Layer]) -> String {
    let mut out = String::new();
    if layers.iter().any(|l| l.templates.is_some()) {
        out.push_str("  lanes  size   templates      rounds  unknown   seconds\n");
        for l in layers {
            let _ = writeln!(
                out,
                "  {:>5}  {:>4}  {:>10}  {:>10}  {:>7}  {:>8.2}",
                l.threads,
                l.size,
                l.templates.unwrap_or(0),
                l.rounds.unwrap_or(0),
                l.unknown,
                l.seconds
            );
        }
        return out;
    }
    out.push_str("  lanes  size         raw   canonical     checked  unknown   seconds\n");
    for l in layers {
        let _ = writeln!(
            out,
            "  {:>5}  {:>4}  {:>10}  {:>10}  {:>10}  {:>7}  {:>8.2}",
            l.threads, l.size, l.raw, l.canonical, l.checked, l.unknown, l.seconds
        );
    }
    out
}

/// The per-rule proof part of `include`.
pub fn proof(a: &str, b: &str, proof: &UnboundedProof, bounded_follows: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{a} ⊆ {b}: per-rule proof (any program size)");
    for r in &proof.rules {
        let _ = writeln!(
            s,
            "  {:<8} {:<12} -> {:<12} {}  {}",
            r.kind.to_string(),
            r.a_class.to_string(),
            r.b_class.to_string(),
            if r.proven { "proven" } else { "open  " },
            r.note
        );
    }
    if proof.all_proven {
        let _ = writeln!(s, "  => {a} ⊆ {b} for programs of any size");
    } else if bounded_follows {
        let _ = writeln!(
            s,
            "  => not proven for every rule; the bounded check decides"
        );
    }
    s
}

/// The bounded part of `include`.
pub fn bounded(r: &Bounded) -> String {
    let mut s = String::new();
    let how = if r.layers.iter().any(|l| l.templates.is_some()) {
        "one template per control-flow shape, decided by CEGIS"
    } else {
        "one program per symmetry orbit"
    };
    let _ = writeln!(
        s,
        "\nbounded check, every program up to {} lanes and {} instructions (grammar: {}; {how}):",
        r.max_threads, r.max_size, r.grammar
    );
    s.push_str(&layers(&r.layers));
    match &r.counterexample {
        Some(w) => {
            let _ = writeln!(
                s,
                "  => {} ⊄ {}: counterexample ({} lanes, {} instructions; {} allows, {} forbids):\n",
                r.a, r.b, w.threads, w.size, r.a, r.b
            );
            s.push_str(&w.litmus);
        }
        None if r.stop == Stop::Exhausted => {
            let _ = writeln!(
                s,
                "  => {} ⊆ {} up to the bound ({:.1} s)",
                r.a, r.b, r.seconds
            );
        }
        None if r.stop == Stop::TimeLimit => {
            let _ = writeln!(
                s,
                "  => undecided: the time limit stopped the search after {:.1} s",
                r.seconds
            );
        }
        None => {
            let _ = writeln!(
                s,
                "  => undecided: some programs could not be analysed (see the unknown column)"
            );
        }
    }
    s
}

/// `include --lattice` as text: one line per ordered pair.
pub fn lattice(pairs: &[crate::query::include::Inclusion]) -> String {
    use crate::query::include::InclusionVerdict;
    let mut s = String::new();
    for p in pairs {
        let v = match &p.verdict {
            InclusionVerdict::Proven => "proven (any size)".to_string(),
            InclusionVerdict::Refuted { threads, size } => {
                format!("refuted ({threads} lanes, {size} instr.)")
            }
            InclusionVerdict::Open { why, .. } => format!("open: {why}"),
        };
        let _ = writeln!(s, "{} ⊆ {}  {v}", p.a, p.b);
    }
    s
}

/// `distinguish`'s account on standard error: the layers searched and what was found.
pub fn distinction(r: &crate::query::distinguish::Distinction) -> String {
    let mut s = layers(&r.layers);
    match &r.witness {
        Some(w) => {
            let _ = writeln!(
                s,
                "found in {:.2} s: {} lanes, {} instructions ({} allows, {} forbids)",
                r.seconds, w.threads, w.size, r.b, r.a
            );
        }
        None if r.stop == Stop::TimeLimit => {
            let _ = writeln!(
                s,
                "undecided: the time limit stopped the search after {:.1} s (the layers above were searched completely, the last one only in part)",
                r.seconds
            );
        }
        None if r.stop != Stop::Exhausted => {
            let _ = writeln!(
                s,
                "undecided: some programs could not be analysed (see the unknown column), and no other program up to {} lanes and {} instructions has an outcome {} allows and {} forbids",
                r.max_threads, r.max_size, r.b, r.a
            );
        }
        None => {
            let _ = writeln!(
                s,
                "no program of {} up to {} lanes and {} instructions has an outcome {} allows and {} forbids ({:.1} s)",
                r.grammar, r.max_threads, r.max_size, r.b, r.a, r.seconds
            );
        }
    }
    s
}

/// `minimize`'s summary line.
pub fn minimized(m: &crate::query::minimize::Minimized) -> String {
    format!(
        "minimized {}: {} -> {} threads, {} -> {} statements ({} candidates tried, {} kept)",
        m.file,
        m.threads_before,
        m.threads_after,
        m.statements_before,
        m.statements_after,
        m.tried,
        m.steps.len()
    )
}
