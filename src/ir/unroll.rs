//! Unrolling: the structured CFG becomes a DAG of block instances.
//!
//! An instance is a static block with the iteration count of every enclosing loop. Paired with
//! a subgroup, an instance is a dynamic block (docs/semantics.md §2), so the dynamic-block rules
//! (threads reconverge at shared merges, different iterations are different blocks, no block
//! runs twice, the graph is acyclic) hold by construction.
//!
//! Each loop runs its body at most `unroll` times; the header's exit test after the last
//! iteration still runs, and the edge that would begin one more iteration goes to
//! [`Target::Cut`]: an execution that takes it is cut by the bound.

use super::cfg::{Cfg, SBlockId, STerm};
use super::program::{reachability, Block, BlockId, Program, Target, Term};
use crate::budget::{Budget, Exhausted};
use petgraph::graph::{DiGraph, NodeIndex};
use rustc_hash::FxHashMap;

/// Most block instances an unrolled program may have.
pub const MAX_BLOCKS: usize = 20_000;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnrollError {
    /// Unrolling the loop nest at `span` made more than [`MAX_BLOCKS`] block instances.
    #[error("unrolling this loop nest makes more than {MAX_BLOCKS} block instances (at --unroll {unroll})")]
    TooLarge {
        unroll: u32,
        span: crate::syntax::Span,
    },
    /// The time or memory budget ran out while unrolling.
    #[error(transparent)]
    Exhausted(#[from] Exhausted),
}

/// Unrolls every loop `l` to `depths[l]` iterations (`unroll` is recorded as the bound the
/// user gave).
pub fn unroll_to(
    cfg: &Cfg,
    depths: &[u32],
    unroll: u32,
    budget: &Budget,
) -> Result<Program, UnrollError> {
    // Discover reachable instances depth-first, remembering edges.
    let mut ids: FxHashMap<(SBlockId, Vec<u32>), usize> = FxHashMap::default();
    let mut insts: Vec<(SBlockId, Vec<u32>)> = Vec::new();
    let mut edges: Vec<Vec<Target>> = Vec::new();
    let mut stack = vec![0usize];
    ids.insert((0, vec![]), 0);
    insts.push((0, vec![]));
    edges.push(vec![]);
    while let Some(i) = stack.pop() {
        budget.check("unrolling")?;
        let (sb, iters) = insts[i].clone();
        let mut out = Vec::new();
        for t in succs(&cfg.blocks[sb].term) {
            match successor(cfg, sb, &iters, t, depths) {
                None => out.push(Target::Cut),
                Some(key) => {
                    let id = match ids.get(&key) {
                        Some(&id) => id,
                        None => {
                            if insts.len() >= MAX_BLOCKS {
                                // Point at the outermost loop around the block being copied.
                                let block = &cfg.blocks[key.0];
                                let span = block
                                    .loops
                                    .first()
                                    .map_or(block.span, |l| cfg.blocks[cfg.loops[*l].header].span);
                                return Err(UnrollError::TooLarge { unroll, span });
                            }
                            let id = insts.len();
                            ids.insert(key.clone(), id);
                            insts.push(key);
                            edges.push(vec![]);
                            stack.push(id);
                            id
                        }
                    };
                    out.push(Target::Block(id as BlockId));
                }
            }
        }
        edges[i] = out;
    }
    // Renumber in topological order so that "later" always means a larger id.
    let mut g: DiGraph<(), ()> = DiGraph::new();
    let nodes: Vec<NodeIndex> = (0..insts.len()).map(|_| g.add_node(())).collect();
    for (i, outs) in edges.iter().enumerate() {
        for t in outs {
            if let Target::Block(t) = t {
                g.add_edge(nodes[i], nodes[*t as usize], ());
            }
        }
    }
    let order = petgraph::algo::toposort(&g, None).expect("unrolled graph is acyclic");
    let mut new_id = vec![0 as BlockId; insts.len()];
    for (pos, n) in order.iter().enumerate() {
        new_id[n.index()] = pos as BlockId;
    }
    let remap = |t: &Target| match t {
        Target::Block(b) => Target::Block(new_id[*b as usize]),
        Target::Cut => Target::Cut,
    };
    let mut blocks: Vec<Option<Block>> = vec![None; insts.len()];
    for (i, (sb, iters)) in insts.iter().enumerate() {
        let s = &cfg.blocks[*sb];
        let outs = &edges[i];
        let term = match &s.term {
            STerm::Jump(_) => Term::Jump(remap(&outs[0])),
            STerm::Branch { cond, .. } => Term::Branch {
                cond: cond.clone(),
                then_to: remap(&outs[0]),
                else_to: remap(&outs[1]),
            },
            STerm::Return => Term::Return,
        };
        blocks[new_id[i] as usize] = Some(Block {
            sblock: *sb,
            role: s.role,
            iters: iters.clone(),
            instrs: s.instrs.clone(),
            term,
            span: s.span,
            term_span: s.term_span,
        });
    }
    let blocks: Vec<Block> = blocks
        .into_iter()
        .map(|b| b.expect("every id filled"))
        .collect();
    let reach = reachability(&blocks);
    let live = super::live::Live::of(cfg);
    let idle = super::idle::idle_loops(cfg, &live);
    Ok(Program {
        entry: new_id[0],
        blocks,
        regs: cfg.regs.clone(),
        globals: cfg.globals.clone(),
        layout: cfg.layout,
        observables: cfg.observables.clone(),
        prop: cfg.prop.clone(),
        filter: cfg.filter.clone(),
        unroll,
        depths: depths.to_vec(),
        reach,
        partly_idle: super::idle::partly_idle_loops(cfg, &live, &idle),
        idle,
        rounds_needed: 1,
        live,
        cfg: cfg.clone(),
        deps: std::sync::OnceLock::new(),
        writers: std::sync::OnceLock::new(),
    })
}

fn succs(t: &STerm) -> Vec<SBlockId> {
    match t {
        STerm::Jump(b) => vec![*b],
        STerm::Branch {
            then_to, else_to, ..
        } => vec![*then_to, *else_to],
        STerm::Return => vec![],
    }
}

/// The iteration vector after the static edge `from -> to` taken at iteration vector
/// `iters`: a back edge to a loop's header counts one more iteration of that loop; any other
/// edge keeps the counts of the loops both ends share and starts entered loops at 0.
pub(super) fn iters_after(cfg: &Cfg, from: SBlockId, iters: &[u32], to: SBlockId) -> Vec<u32> {
    let lf = &cfg.blocks[from].loops;
    let lt = &cfg.blocks[to].loops;
    if let Some(pos) = lf
        .iter()
        .enumerate()
        .position(|(pos, &l)| cfg.loops[l].header == to && lt.len() == pos + 1)
    {
        let mut it = iters[..=pos].to_vec();
        it[pos] += 1;
        return it;
    }
    let common = lf.iter().zip(lt.iter()).take_while(|(a, b)| a == b).count();
    let mut it = iters[..common].to_vec();
    it.resize(lt.len(), 0);
    it
}

/// The instance reached from instance (`from`, `iters`) by the static edge to `to`, or `None`
/// when the edge would begin an iteration beyond the loop's depth (the cut).
fn successor(
    cfg: &Cfg,
    from: SBlockId,
    iters: &[u32],
    to: SBlockId,
    depths: &[u32],
) -> Option<(SBlockId, Vec<u32>)> {
    let it = iters_after(cfg, from, iters, to);
    // Entering the body of an iteration at the depth is the cut.
    if let (Some(&l), Some(&last)) = (cfg.blocks[to].loops.last(), it.last()) {
        if last >= depths[l] && cfg.loops[l].header != to {
            return None;
        }
    }
    Some((to, it))
}
