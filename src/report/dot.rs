//! Pictures in Graphviz DOT, built as petgraph graphs and written by `petgraph::dot`.
//!
//! A witness picture shows what the semantics talks about: each dynamic block a thread
//! entered (a box listing its members), each step of the trace in order (collective steps
//! once, with every thread), program order per thread, and reads-from between memory
//! accesses. The lattice picture shows which inclusions between models are proven and which
//! are refuted by a counterexample.

use super::text::clip;
use crate::query::include::{Inclusion, InclusionVerdict};
use crate::query::{Analysis, TraceStep};
use petgraph::dot::{Config, Dot};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;
use std::fmt::Write;

/// What a node of a picture is, with its label.
#[derive(Debug)]
enum Node {
    Block { name: String, members: Vec<u32> },
    Step(String),
    Init(String),
    Model(String),
}

/// What an edge means.
#[derive(Debug)]
enum Edge {
    /// The step ran in this dynamic block.
    In,
    /// Program order of one thread.
    Po(u32),
    /// A read took its value from this write (or the initial value).
    Rf(String),
    /// Coherence: this write comes before that one to the same location (relaxed memory).
    Co(String),
    /// Model lattice: inclusion proven for programs of any size (label: how the converse
    /// fails).
    Proven(String),
    /// Model lattice: neither inclusion proven (label: the counterexamples).
    Refuted(String),
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn render(g: &DiGraph<Node, Edge>, name: &str, title: &str, extra: &str) -> String {
    let node_attr = |_: &DiGraph<Node, Edge>, (_, n): (NodeIndex, &Node)| match n {
        Node::Block { name, members } => format!(
            "label = \"{}\\nmembers {}\" shape = box style = rounded",
            quote(name),
            members
                .iter()
                .map(|t| format!("T{t}"))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Node::Step(l) => format!("label = \"{}\" shape = plaintext", quote(l)),
        Node::Init(l) => format!("label = \"{}\" shape = note", quote(l)),
        Node::Model(l) => format!("label = \"{}\" shape = box style = rounded", quote(l)),
    };
    let edge_attr = |_: &DiGraph<Node, Edge>, e: petgraph::graph::EdgeReference<'_, Edge>| {
        match petgraph::visit::EdgeRef::weight(&e) {
            Edge::In => "style = dotted arrowhead = none color = gray".to_string(),
            Edge::Po(t) => format!("label = \"po T{t}\" fontsize = 9"),
            Edge::Rf(c) => format!(
                "label = \"rf {}\" color = red fontcolor = red constraint = false",
                quote(c)
            ),
            Edge::Co(c) => format!(
                "label = \"co {}\" color = blue fontcolor = blue style = dashed constraint = false",
                quote(c)
            ),
            Edge::Proven(l) => format!("label = \" {}\"", quote(l)),
            Edge::Refuted(l) => format!(
                "label = \" {}\" style = dashed dir = none constraint = false color = red fontcolor = red",
                quote(l)
            ),
        }
    };
    let body = format!(
        "{:?}",
        Dot::with_attr_getters(
            g,
            &[
                Config::EdgeNoLabel,
                Config::NodeNoLabel,
                Config::GraphContentOnly
            ],
            &edge_attr,
            &node_attr
        )
    );
    let mut s = String::new();
    let _ = writeln!(s, "digraph \"{}\" {{", quote(name));
    let _ = writeln!(s, "    label = \"{}\"; labelloc = t;", quote(title));
    let _ = writeln!(s, "    node [fontname = \"Helvetica\" fontsize = 10];");
    let _ = writeln!(s, "    edge [fontname = \"Helvetica\" fontsize = 9];");
    s.push_str(extra);
    s.push_str(&body);
    s.push_str("}\n");
    s
}

/// A witness trace as a picture; `title` says what it witnesses. Reads-from is drawn from the
/// trace's order (sequentially consistent memory); under a relaxed memory model (`memory`)
/// reads need not read the latest write, so the execution's reads-from and coherence, as the
/// engine gives them, are drawn between the steps that made the events (a pair whose events
/// are not steps of the trace is listed in a note).
pub fn witness(
    name: &str,
    title: &str,
    steps: &[TraceStep],
    memory: Option<&crate::memory::MemoryReport>,
) -> String {
    let execution = memory.and_then(|m| m.execution.as_ref());
    let mut g: DiGraph<Node, Edge> = DiGraph::new();
    let mut blocks: BTreeMap<String, NodeIndex> = BTreeMap::new();
    let mut last_of_thread: BTreeMap<u32, NodeIndex> = BTreeMap::new();
    let mut last_write: BTreeMap<String, NodeIndex> = BTreeMap::new();
    let mut inits: BTreeMap<String, NodeIndex> = BTreeMap::new();
    let mut at_step: BTreeMap<(u32, crate::ir::BlockId, u32), NodeIndex> = BTreeMap::new();
    for st in steps {
        let threads: Vec<String> = st.threads.iter().map(|t| format!("T{t}")).collect();
        let mut label = format!(
            "{}. {} l.{}: {}",
            st.step,
            threads.join(","),
            st.line,
            clip(&st.instruction, 40)
        );
        if !st.effects.is_empty() {
            label.push('\n');
            label.push_str(&clip(&st.effects.join("; "), 60));
        }
        let n = g.add_node(Node::Step(label));
        let b = *blocks.entry(st.block.clone()).or_insert_with(|| {
            g.add_node(Node::Block {
                name: st.block.clone(),
                members: Vec::new(),
            })
        });
        if let Node::Block { members, .. } = &mut g[b] {
            for t in &st.threads {
                if !members.contains(t) {
                    members.push(*t);
                }
            }
        }
        g.add_edge(b, n, Edge::In);
        if let Some((block, instr)) = st.place {
            for &t in &st.threads {
                at_step.entry((t, block, instr)).or_insert(n);
            }
        }
        for t in &st.threads {
            if let Some(prev) = last_of_thread.insert(*t, n) {
                if prev != n {
                    g.add_edge(prev, n, Edge::Po(*t));
                }
            }
        }
        for m in st.memory.iter().filter(|_| memory.is_none()) {
            if m.reads {
                let from = match last_write.get(&m.cell) {
                    Some(w) => *w,
                    None => *inits
                        .entry(m.cell.clone())
                        .or_insert_with(|| g.add_node(Node::Init(format!("initial {}", m.cell)))),
                };
                g.add_edge(from, n, Edge::Rf(m.cell.clone()));
            }
        }
        for m in &st.memory {
            if m.writes {
                last_write.insert(m.cell.clone(), n);
            }
        }
    }
    if let Some(e) = execution {
        let missed = relaxed_edges(&mut g, e, &mut inits, &|p| {
            p.at.and_then(|k| at_step.get(&k).copied())
        });
        if !missed.is_empty() {
            g.add_node(Node::Init(format!(
                "relaxed memory, not among the steps drawn:\n{}",
                missed.join("\n")
            )));
        }
    }
    render(&g, name, title, "")
}

/// Draws a relaxed execution's reads-from and coherence: an edge between the nodes `node`
/// gives for the events' places, an initial write as a note of its own. Returns the pairs
/// it could not draw, in words.
fn relaxed_edges(
    g: &mut DiGraph<Node, Edge>,
    e: &crate::memory::Execution,
    inits: &mut BTreeMap<String, NodeIndex>,
    node: &dyn Fn(&crate::memory::Place) -> Option<NodeIndex>,
) -> Vec<String> {
    let mut missed = Vec::new();
    for (is_rf, (a, pa), (b, pb)) in e.pairs() {
        let mut end = |text: &str, p: &crate::memory::Place| match p.at {
            None => Some(
                *inits
                    .entry(p.cell.clone())
                    .or_insert_with(|| g.add_node(Node::Init(text.to_string()))),
            ),
            Some(_) => node(p),
        };
        match (end(a, pa), end(b, pb)) {
            (Some(x), Some(y)) if is_rf => {
                g.add_edge(x, y, Edge::Rf(pb.cell.clone()));
            }
            (Some(x), Some(y)) => {
                g.add_edge(x, y, Edge::Co(pb.cell.clone()));
            }
            _ => missed.push(format!("{} {a} -> {b}", if is_rf { "rf" } else { "co" })),
        }
    }
    missed
}

/// A forbidden condition under a relaxed memory model, as a picture: the execution that
/// only the first axiom the report names rules out (it reaches the condition and satisfies
/// every other axiom), its events (fences, barriers and subgroup operations too) with
/// program order, reads-from and coherence.
fn near_miss(a: &Analysis) -> Option<String> {
    let report = a.memory.as_ref()?;
    let (axiom, e) = report.forbidden_by.first()?;
    let mut g: DiGraph<Node, Edge> = DiGraph::new();
    let mut inits = BTreeMap::new();
    let mut events: BTreeMap<(u32, crate::ir::BlockId, u32), NodeIndex> = BTreeMap::new();
    let others = e
        .others
        .iter()
        .zip(&e.others_at)
        .map(|(t, p)| (t.as_str(), p));
    let ends = e.pairs().flat_map(|(_, a, b)| [a, b]);
    for (text, p) in ends.chain(others) {
        if let Some(k) = p.at {
            events
                .entry(k)
                .or_insert_with(|| g.add_node(Node::Step(text.to_string())));
        }
    }
    // Program order: a thread's events in the order of the unrolled program's blocks and
    // instructions, which unrolling numbers in program order.
    let mut last: BTreeMap<u32, NodeIndex> = BTreeMap::new();
    for (&(t, _, _), &n) in &events {
        if let Some(prev) = last.insert(t, n) {
            g.add_edge(prev, n, Edge::Po(t));
        }
    }
    relaxed_edges(&mut g, e, &mut inits, &|p| {
        p.at.and_then(|k| events.get(&k).copied())
    });
    let others = report.forbidden_by.len() - 1;
    let also = match others {
        0 => String::new(),
        n => format!(" ({n} other axioms alone rule it out too)"),
    };
    Some(render(
        &g,
        &format!("{} under {}", a.test, a.model),
        &format!(
            "{} under {} ({} engine): {} is forbidden by axiom `{axiom}`{also}: this execution reaches it and satisfies every other axiom",
            a.test, a.model, a.engine, a.condition
        ),
        "",
    ))
}

/// The witness of one analysis, or, for a condition a relaxed memory model forbids, the
/// execution only one axiom rules out (`None` when it has neither).
pub fn analysis(a: &Analysis) -> Option<String> {
    let Some(steps) = a.witness.as_ref() else {
        return near_miss(a);
    };
    Some(witness(
        &format!("{} under {}", a.test, a.model),
        &format!(
            "{} under {} ({} engine): an execution where {}",
            a.test, a.model, a.engine, a.condition
        ),
        steps,
        a.memory.as_ref(),
    ))
}

/// The model lattice: proven inclusions as a Hasse diagram (edges implied by two others are
/// left out), each labelled with the smallest program showing it strict when one was found;
/// pairs where neither inclusion is proven are drawn dashed with their counterexamples.
pub fn lattice(models: &[(String, String)], pairs: &[Inclusion]) -> String {
    let mut g: DiGraph<Node, Edge> = DiGraph::new();
    let idx: BTreeMap<&str, NodeIndex> = models
        .iter()
        .map(|(m, d)| {
            let label = if d.is_empty() {
                m.clone()
            } else {
                format!("{m}\n{d}")
            };
            (m.as_str(), g.add_node(Node::Model(label)))
        })
        .collect();
    let get = |a: &str, b: &str| pairs.iter().find(|p| p.a == a && p.b == b);
    let proven = |a: &str, b: &str| {
        matches!(
            get(a, b),
            Some(Inclusion {
                verdict: InclusionVerdict::Proven,
                ..
            })
        )
    };
    // How "a ⊆ b" fails, in words.
    let failure = |a: &str, b: &str| match get(a, b).map(|p| &p.verdict) {
        Some(InclusionVerdict::Refuted { threads, size }) => {
            format!("{a} ⊄ {b} ({threads} lanes, {size} instr.)")
        }
        Some(InclusionVerdict::Open { why, .. }) => format!("{a} ⊆ {b}? {why}"),
        _ => format!("{a} ⊆ {b}? not checked"),
    };
    let names: Vec<&str> = models.iter().map(|(m, _)| m.as_str()).collect();
    for (i, &a) in names.iter().enumerate() {
        for &b in &names {
            if a == b {
                continue;
            }
            let (ab, ba) = (proven(a, b), proven(b, a));
            if ab && !ba {
                // Hasse: skip a ⊆ b when a ⊊ c ⊊ b for some c.
                let implied = names.iter().any(|&c| {
                    c != a
                        && c != b
                        && proven(a, c)
                        && proven(c, b)
                        && !proven(c, a)
                        && !proven(b, c)
                });
                if !implied {
                    g.add_edge(idx[a], idx[b], Edge::Proven(failure(b, a)));
                }
            } else if ab && ba && names[..i].contains(&b) {
                g.add_edge(idx[a], idx[b], Edge::Proven("equivalent".into()));
            } else if !ab && !ba && names[..i].contains(&b) {
                g.add_edge(
                    idx[b],
                    idx[a],
                    Edge::Refuted(format!(
                        "incomparable:\n{}\n{}",
                        failure(b, a),
                        failure(a, b)
                    )),
                );
            }
        }
    }
    render(
        &g,
        "lattice",
        "SIMT-Step models: an arrow A -> B is A ⊆ B proven for programs of any size, labelled with the smallest program B allows and A forbids",
        "    rankdir = BT;\n",
    )
}

/// A hang as a picture: the prefix and the loop as one witness (reads-from from the trace
/// order), titled with where the loop starts and ends, and a note saying which threads spin,
/// wait or are starved. `None` when the answer is not a hang.
pub fn liveness(r: &crate::query::liveness::LivenessReport) -> Option<String> {
    use crate::query::liveness::HangKind;
    let kind = r.hang?;
    let mut steps = r.prefix.clone();
    steps.extend(r.cycle.iter().cloned());
    let what = match (kind, r.cycle.first(), r.cycle.last()) {
        (HangKind::Spin, Some(a), Some(b)) => {
            format!("steps {} to {} repeat forever", a.step, b.step)
        }
        _ => "a deadlock: nobody can move".to_string(),
    };
    let mut g = witness(
        &format!("{} under {}+{}", r.test, r.model, r.progress),
        &format!(
            "{} under {}, progress {}: {what}",
            r.test, r.model, r.progress
        ),
        &steps,
        None,
    );
    let roles: Vec<String> = r
        .threads
        .iter()
        .map(|t| {
            let at = t.line.map_or(String::new(), |l| format!(" (line {l})"));
            let why = t
                .waits_for
                .as_ref()
                .map_or(String::new(), |w| format!(": {w}"));
            format!("T{} {}{at}{why}", t.thread, t.role)
        })
        .collect();
    let note = format!(
        "    roles [label = \"{}\" shape = note];\n}}\n",
        quote(&roles.join("\n"))
    );
    g.truncate(g.trim_end().len() - 1);
    g.push_str(&note);
    Some(g)
}
