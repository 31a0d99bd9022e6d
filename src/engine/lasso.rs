//! Hangs in the explorer's state graph: deadlocks, and lassos the progress model lets run
//! forever (docs/progress.md).
//!
//! The explorer runs the unrolled program, so it never sees an infinite run; it sees states
//! that repeat up to the loops' absolute iteration counts (a [`StateGraph`]'s *places*). A
//! cycle of places is an infinite run: from any state of a place the program can do what any
//! other state of that place did. The run is a hang when it is *fair* to the threads the
//! progress model guarantees: each such thread that has not terminated either moves on the
//! cycle or is disabled somewhere on it (weak fairness). Within a strongly connected set of
//! places one cycle visits everything, so a set is fair exactly when every guaranteed thread
//! moves in it or is disabled in one of its places.
//!
//! The answer is complete only when the places close up: every place that met the loop bound
//! also has a state that did not, so the bound hides no behaviour the places do not show.

use super::explore::{Exploration, StateGraph, StateRef};
use crate::budget::Budget;
use crate::ir::{Layout, Op, Program};
use crate::progress::{Progress, ThreadStatus};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{HashMap, VecDeque};

/// What the state graph says about termination.
#[derive(Clone, Debug)]
pub enum Finding {
    /// Every execution the progress model allows terminates.
    Live,
    /// Some allowed execution never terminates.
    Hang(Hang),
    /// Undecided, with why.
    Unknown(String),
}

/// A non-terminating execution: a prefix, then (for a spin) a loop repeated forever.
#[derive(Clone, Debug)]
pub struct Hang {
    /// The last state of the prefix (where the loop starts, or the deadlocked state).
    pub prefix_to: StateRef,
    /// The loop: the edges of the graph it takes, in order, from the place of `prefix_to`
    /// back to it (consecutive edges meet in a place). Empty for a deadlock.
    pub cycle: Vec<(StateRef, StateRef)>,
    /// Threads that move on the loop.
    pub spinning: Vec<u32>,
    /// Threads that never move because they cannot (waiting at a barrier, a collective step,
    /// a dynamic block; or every thread, in a deadlock).
    pub blocked: Vec<u32>,
    /// Threads that could move but are never scheduled: the progress model does not guarantee
    /// them.
    pub starved: Vec<u32>,
    /// Threads that may still move but that the hang does not hold: in a workgroup other than
    /// the one a barrier divergence stopped.
    pub free: Vec<u32>,
}

/// Decides termination from an exploration made with `ExploreOptions::liveness`.
pub fn analyse(ex: &Exploration, prog: &Program, progress: &Progress) -> Finding {
    let layout = &prog.layout;
    let Some(g) = &ex.graph else {
        return Finding::Unknown("the exploration kept no state graph".into());
    };
    // A workgroup barrier some threads wait at while the rest have terminated or wait at
    // another is undefined behaviour (barrier divergence); the waiting threads never pass
    // it, so it is also a deadlock (as Dartagnan counts a barrier never completed).
    let divergent = (0..g.ub.len()).find(|&s| g.ub[s]).map(|s| s as StateRef);
    if let Some(s) = ex.stuck.or(divergent) {
        let t = &g.threads[s as usize];
        let running: Vec<u32> = (0..t.len() as u32).filter(|&u| !t[u as usize].0).collect();
        // A divergence stops one workgroup: every thread of it has terminated or waits at a
        // workgroup barrier. Another workgroup's threads may still move; the hang does not
        // hold them.
        let at_barrier = |u: u32| {
            ex.position(s, u).is_some_and(|(b, pc)| {
                (pc as usize).checked_sub(1).is_some_and(|k| {
                    matches!(
                        prog.blocks[b as usize].instrs.get(k).map(|i| &i.op),
                        Some(Op::WorkgroupBarrier)
                    )
                })
            })
        };
        // Diverged, as the explorer's `barrier_divergence` says: every thread terminated or
        // at a workgroup barrier, and not all at one (a workgroup all at one barrier passes).
        let stopped = |u: u32| {
            let wg = layout.workgroup_threads(layout.workgroup_of(u));
            let waiting: Vec<_> = wg.clone().filter(|&v| !t[v as usize].0).collect();
            wg.clone().all(|v| t[v as usize].0 || at_barrier(v))
                && (waiting.len() < wg.len()
                    || waiting
                        .iter()
                        .any(|&v| ex.position(s, v) != ex.position(s, waiting[0])))
        };
        let (blocked, free) = if ex.stuck == Some(s) {
            (running, Vec::new())
        } else {
            running.into_iter().partition(|&u| stopped(u))
        };
        return Finding::Hang(Hang {
            prefix_to: s,
            cycle: Vec::new(),
            spinning: Vec::new(),
            blocked,
            starved: Vec::new(),
            free,
        });
    }
    let places = PlaceGraph::new(g);
    for scc in petgraph::algo::tarjan_scc(&places.graph) {
        if let Some(h) = places.fair_cycle(g, &scc, layout, progress) {
            return Finding::Hang(h);
        }
    }
    if let Some(f) = stopped_early(ex) {
        return f;
    }
    if places.open_place(g).is_some() {
        return Finding::Unknown(
            "a loop reached the bound without its state repeating: raise --unroll, or the loop \
             may run long but finish"
                .into(),
        );
    }
    Finding::Live
}

/// Decides termination under a memory model, from an exploration made with
/// `ExploreOptions::liveness` and that model (docs/progress.md, "Liveness under a memory
/// model"). Its states never repeat (they keep their events); instead a thread that comes back
/// to a loop header as it was, having written nothing, spins and stops there. A state where
/// the run may stop for good ([`Exploration::stops`]) is a hang when
/// - some thread spins and the progress model accepts the statuses, or every thread left is
///   blocked (a deadlock), and
/// - its events make a consistent execution in which the spinning iterations read
///   coherence-maximal writes ([`Exploration::stop_consistent`]): what they read can no longer
///   change, so they can repeat forever.
///
/// With no hang, the answer is `live` only when no run consistent so far reached the loop
/// bound: such a run went round a loop changing its state each time, and might do so forever.
pub fn analyse_relaxed(
    ex: &Exploration,
    prog: &Program,
    progress: &Progress,
    budget: &Budget,
) -> Finding {
    let layout = &prog.layout;
    let mut doubt: Option<String> = None;
    let mut asked = std::collections::HashSet::new();
    // Shorter runs first: their candidate executions are fewer, and a hang found in one ends
    // the search.
    let mut stops: Vec<&(StateRef, Vec<ThreadStatus>)> = ex.stops.iter().collect();
    stops.sort_by_key(|(s, _)| ex.events_at(*s));
    for (s, status) in stops {
        let live = |t: &ThreadStatus| !t.terminated;
        if !status.iter().any(live) {
            continue;
        }
        let spins = status.iter().any(|t| t.moves);
        let deadlock = !spins && status.iter().filter(|t| live(t)).all(|t| t.blocked);
        if !deadlock
            && (!spins
                || progress
                    .fair(&|r, d| layout.scope_members(r, d), status)
                    .is_none())
        {
            continue;
        }
        // Interleavings that end in the same events ask the same question once.
        if !asked.insert(ex.stop_key(*s)) {
            continue;
        }
        match ex.stop_consistent(prog, *s, budget) {
            Ok(Some(true)) => {
                let threads = 0..status.len() as u32;
                let of = |f: fn(&ThreadStatus) -> bool| {
                    threads
                        .clone()
                        .filter(|&t| f(&status[t as usize]))
                        .collect::<Vec<u32>>()
                };
                return Finding::Hang(Hang {
                    prefix_to: *s,
                    cycle: Vec::new(),
                    spinning: of(|t| t.moves),
                    blocked: of(|t| !t.terminated && t.blocked),
                    starved: of(|t| !t.terminated && !t.moves && !t.blocked),
                    free: Vec::new(),
                });
            }
            Ok(Some(false)) => {}
            Ok(None) => {
                doubt.get_or_insert_with(|| {
                    "a run that may hang has too many candidate executions to judge".into()
                });
            }
            Err(e) => {
                doubt.get_or_insert(e);
            }
        }
    }
    if let Some(f) = stopped_early(ex) {
        return f;
    }
    if let Some(why) = doubt {
        return Finding::Unknown(why);
    }
    if ex.cut.is_some() {
        return Finding::Unknown(format!(
            "a loop reached the bound (--unroll {}) in a run whose iterations changed its \
             thread's state each time: a larger --unroll may decide, or the loop may change \
             state forever",
            prog.unroll
        ));
    }
    Finding::Live
}

/// `unknown` when the search stopped before the end (a limit, the budget).
fn stopped_early(ex: &Exploration) -> Option<Finding> {
    ex.limit_hit.then(|| {
        Finding::Unknown(
            ex.stopped
                .clone()
                .unwrap_or_else(|| "the search stopped early".into()),
        )
    })
}

/// Whether the loop bound hid no outcome from an exploration made with
/// `ExploreOptions::liveness`: the search ran to the end and every place the bound cut was also
/// reached by a state the bound did not cut. A run from a cut state then does what a run from
/// that state did (up to loop iteration counts), so every terminating run past the bound ends
/// in an outcome already found; the runs the bound cut either end so or never end.
pub fn bound_hides_no_outcome(ex: &Exploration) -> bool {
    match &ex.graph {
        Some(g) => !ex.limit_hit && PlaceGraph::new(g).open_place(g).is_none(),
        None => false,
    }
}

/// The graph of places: one node per place, one edge per state-graph edge.
struct PlaceGraph {
    graph: DiGraph<u32, (StateRef, StateRef)>,
    node: HashMap<u32, NodeIndex>,
    /// Per place: its states, in the order found (the first is nearest the start).
    members: HashMap<u32, Vec<StateRef>>,
}

impl PlaceGraph {
    fn new(g: &StateGraph) -> PlaceGraph {
        let mut graph = DiGraph::new();
        let mut node = HashMap::new();
        let mut members: HashMap<u32, Vec<StateRef>> = HashMap::new();
        for (s, &p) in g.place.iter().enumerate() {
            node.entry(p).or_insert_with(|| graph.add_node(p));
            members.entry(p).or_default().push(s as StateRef);
        }
        for (s, edges) in g.edges.iter().enumerate() {
            for e in edges {
                let (a, b) = (node[&g.place[s]], node[&g.place[e.to as usize]]);
                graph.add_edge(a, b, (s as StateRef, e.to));
            }
        }
        PlaceGraph {
            graph,
            node,
            members,
        }
    }

    /// A place every one of whose expanded states met the loop bound: what lies beyond it was
    /// never seen.
    fn open_place(&self, g: &StateGraph) -> Option<u32> {
        self.members.iter().find_map(|(&p, states)| {
            let cut = states.iter().any(|&s| g.cut[s as usize]);
            let closed = states
                .iter()
                .any(|&s| g.expanded[s as usize] && !g.cut[s as usize]);
            (cut && !closed).then_some(p)
        })
    }

    /// A fair cycle inside one strongly connected set of places, if the set has one.
    fn fair_cycle(
        &self,
        g: &StateGraph,
        scc: &[NodeIndex],
        layout: &Layout,
        progress: &Progress,
    ) -> Option<Hang> {
        let inside = |n: NodeIndex| scc.contains(&n);
        let internal: Vec<(StateRef, StateRef)> = scc
            .iter()
            .flat_map(|&n| self.graph.edges(n))
            .filter(|e| inside(petgraph::visit::EdgeRef::target(e)))
            .map(|e| *e.weight())
            .collect();
        if internal.is_empty() {
            return None;
        }
        let moved_on = |(s, t): (StateRef, StateRef)| -> &[u32] {
            g.edges[s as usize]
                .iter()
                .find(|e| e.to == t)
                .map_or(&[], |e| e.moved.as_slice())
        };
        let threads = layout.threads as usize;
        let mut moves = vec![false; threads];
        for &e in &internal {
            for &u in moved_on(e) {
                moves[u as usize] = true;
            }
        }
        // A place's enabled threads: those some state of it could move (its states differ
        // only in iteration counts, so they agree away from the bound).
        let enabled_at = |n: NodeIndex| -> Vec<bool> {
            let mut en = vec![false; threads];
            for &s in &self.members[&self.graph[n]] {
                for &u in &g.enabled[s as usize] {
                    en[u as usize] = true;
                }
            }
            en
        };
        let first = self.members[&self.graph[scc[0]]][0] as usize;
        let status = &g.threads[first];
        let mut disabled_at: Vec<Option<NodeIndex>> = vec![None; threads];
        let mut ever_enabled = vec![false; threads];
        for &n in scc {
            let en = enabled_at(n);
            for u in 0..threads {
                ever_enabled[u] |= en[u];
                if !en[u] && disabled_at[u].is_none() {
                    disabled_at[u] = Some(n);
                }
            }
        }
        let statuses: Vec<ThreadStatus> = (0..threads)
            .map(|u| ThreadStatus {
                terminated: status[u].0,
                started: status[u].1,
                blocked: !ever_enabled[u],
                moves: moves[u],
                waits: disabled_at[u].is_some(),
            })
            .collect();
        let progressing = progress.fair(&|r, d| layout.scope_members(r, d), &statuses)?;
        // The witness: from the place nearest the start, a walk through the set that makes
        // every guaranteed thread move (or passes where it is disabled), back to the start.
        let start = *scc
            .iter()
            .min_by_key(|&&n| self.members[&self.graph[n]][0])
            .expect("non-empty");
        let mut goals: Vec<Goal> = Vec::new();
        for u in 0..threads {
            if status[u].0 {
                continue;
            }
            if moves[u] {
                goals.push(Goal::Moves(u as u32));
            } else if progressing[u] {
                if let Some(n) = disabled_at[u] {
                    goals.push(Goal::At(n));
                }
            }
        }
        let mut walk: Vec<(StateRef, StateRef)> = Vec::new();
        let mut at = start;
        let place_of = |s: StateRef| self.node[&g.place[s as usize]];
        for goal in &goals {
            let met = match goal {
                Goal::Moves(u) => walk.iter().any(|&e| moved_on(e).contains(u)),
                Goal::At(n) => *n == start || walk.iter().any(|&(_, t)| place_of(t) == *n),
            };
            if met {
                continue;
            }
            let path = self.path(at, scc, |n, e| match goal {
                Goal::Moves(u) => moved_on(e).contains(u),
                Goal::At(target) => n == *target,
            })?;
            at = place_of(path.last().expect("one edge at least").1);
            walk.extend(path);
        }
        if walk.is_empty() || at != start {
            let back = self.path(at, scc, |n, _| n == start)?;
            walk.extend(back);
        }
        // Follow the walk from the earliest state of the start place, keeping to one concrete
        // path where the graph has it (any state of a place does what the others do).
        let first = self.members[&self.graph[start]][0];
        let mut cur = first;
        let mut cycle = Vec::new();
        for &(s, t) in &walk {
            let want = g.place[t as usize];
            let edge = g.edges[cur as usize]
                .iter()
                .find(|e| g.place[e.to as usize] == want && e.moved == moved_on((s, t)))
                .map_or((s, t), |e| (cur, e.to));
            cycle.push(edge);
            cur = edge.1;
        }
        let spinning: Vec<u32> = (0..threads as u32).filter(|&u| moves[u as usize]).collect();
        let live = |u: u32| !status[u as usize].0 && !moves[u as usize];
        Some(Hang {
            prefix_to: first,
            cycle,
            spinning,
            blocked: (0..threads as u32)
                .filter(|&u| live(u) && disabled_at[u as usize].is_some())
                .collect(),
            starved: (0..threads as u32)
                .filter(|&u| live(u) && disabled_at[u as usize].is_none())
                .collect(),
            free: Vec::new(),
        })
    }

    /// A shortest path of at least one edge inside `scc` from `from` to the first place (and
    /// last edge) where `goal` holds, as state-graph edges.
    fn path(
        &self,
        from: NodeIndex,
        scc: &[NodeIndex],
        goal: impl Fn(NodeIndex, (StateRef, StateRef)) -> bool,
    ) -> Option<Vec<(StateRef, StateRef)>> {
        use petgraph::visit::EdgeRef;
        let mut prev: HashMap<NodeIndex, (NodeIndex, (StateRef, StateRef))> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = vec![from];
        while let Some(n) = queue.pop_front() {
            for e in self.graph.edges(n) {
                let t = e.target();
                if !scc.contains(&t) {
                    continue;
                }
                if goal(t, *e.weight()) {
                    let mut path = vec![*e.weight()];
                    let mut cur = n;
                    while cur != from {
                        let (p, edge) = prev[&cur];
                        path.push(edge);
                        cur = p;
                    }
                    path.reverse();
                    return Some(path);
                }
                if !seen.contains(&t) {
                    seen.push(t);
                    prev.insert(t, (n, *e.weight()));
                    queue.push_back(t);
                }
            }
        }
        None
    }
}

/// What the witness loop must contain.
enum Goal {
    Moves(u32),
    At(NodeIndex),
}
