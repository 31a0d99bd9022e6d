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

use super::bounds::Need;
use super::cfg::{Cfg, Role, SBlockId, STerm};
use super::{Expr, GlobalInfo, Instr, Layout, Observable, Prop, RegInfo};
use crate::syntax::Span;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::HashMap;

/// Index of a block instance in [`Program::blocks`]; blocks are numbered in topological order.
pub type BlockId = u32;

/// Most block instances an unrolled program may have.
pub const MAX_BLOCKS: usize = 20_000;

/// Where a branch goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Block(BlockId),
    /// Beginning one more loop iteration than the bound allows.
    Cut,
}

/// How a block instance ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Jump(Target),
    Branch {
        cond: Expr,
        then_to: Target,
        else_to: Target,
    },
    Return,
}

impl Term {
    pub fn targets(&self) -> Vec<Target> {
        match self {
            Term::Jump(t) => vec![*t],
            Term::Branch {
                then_to, else_to, ..
            } => vec![*then_to, *else_to],
            Term::Return => vec![],
        }
    }
}

/// One block instance: the unit of convergence.
#[derive(Clone, Debug)]
pub struct Block {
    pub sblock: SBlockId,
    pub role: Role,
    /// Iteration count of each enclosing loop, outermost first.
    pub iters: Vec<u32>,
    pub instrs: Vec<Instr>,
    pub term: Term,
    pub span: Span,
    pub term_span: Span,
}

impl Block {
    /// A readable name: role, static block, iteration vector, e.g. `body#3[1]`.
    pub fn name(&self) -> String {
        let mut s = format!("{}#{}", self.role.name(), self.sblock);
        if !self.iters.is_empty() {
            let its: Vec<String> = self.iters.iter().map(|i| i.to_string()).collect();
            s.push_str(&format!("[{}]", its.join(",")));
        }
        s
    }
}

/// The unrolled program every engine runs.
#[derive(Clone, Debug)]
pub struct Program {
    pub blocks: Vec<Block>,
    pub entry: BlockId,
    pub regs: Vec<RegInfo>,
    pub globals: Vec<GlobalInfo>,
    pub layout: Layout,
    pub observables: Vec<Observable>,
    pub prop: Prop,
    pub unroll: u32,
    /// How far each loop (by loop id) was unrolled: its depth found by `ir::bounds`, else
    /// `unroll`.
    pub depths: Vec<u32>,
    /// `reach[b]`: the blocks reachable from b by one or more edges, as a bit set.
    reach: Vec<Vec<u64>>,
    /// Static structure, kept for DOT output.
    pub cfg: Cfg,
    /// Register dependencies, computed when a memory model first asks.
    deps: std::sync::OnceLock<super::deps::Deps>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum UnrollError {
    /// Unrolling the loop nest at `span` made more than [`MAX_BLOCKS`] block instances.
    #[error("unrolling this loop nest makes more than {MAX_BLOCKS} block instances (at --unroll {unroll})")]
    TooLarge {
        unroll: u32,
        span: crate::syntax::Span,
    },
}

impl Program {
    /// Is block `to` reachable from block `from` by at least one edge? This is what makes a
    /// thread *undecided* for a dynamic block (docs/semantics.md §2).
    /// The `addr`, `data` and `ctrl` dependencies ([`super::deps`]), computed once.
    pub fn deps(&self) -> &super::deps::Deps {
        self.deps.get_or_init(|| super::deps::analyse(self))
    }

    pub fn reaches(&self, from: BlockId, to: BlockId) -> bool {
        let w = &self.reach[from as usize];
        let i = to as usize;
        w[i / 64] >> (i % 64) & 1 == 1
    }

    /// Does the terminator of block `b` touch a loop's iteration structure: `b` is a loop
    /// header, or it branches to one (a back edge or a loop's entry), or to the cut? Liveness
    /// makes these steps visible so that a spinning thread rests at the same static place in
    /// every iteration (see `engine::lasso`).
    pub fn loop_edge(&self, b: BlockId) -> bool {
        let block = &self.blocks[b as usize];
        block.role == Role::LoopHeader
            || block.term.targets().iter().any(|t| match t {
                Target::Cut => true,
                Target::Block(t) => self.blocks[*t as usize].role == Role::LoopHeader,
            })
    }

    /// The iteration differences of two block instances over the loops enclosing both
    /// (outermost first). With the static blocks, this is all the semantics can tell about two
    /// positions: equality (same dynamic block) and reachability follow from it, whatever the
    /// absolute iteration counts.
    pub fn iteration_offsets(&self, a: BlockId, b: BlockId, out: &mut Vec<u32>) {
        let (ba, bb) = (&self.blocks[a as usize], &self.blocks[b as usize]);
        let (la, lb) = (
            &self.cfg.blocks[ba.sblock].loops,
            &self.cfg.blocks[bb.sblock].loops,
        );
        let common = la.iter().zip(lb).take_while(|(x, y)| x == y).count();
        for k in 0..common.min(ba.iters.len()).min(bb.iters.len()) {
            out.push(ba.iters[k].wrapping_sub(bb.iters[k]));
        }
    }

    /// Total memory cells.
    pub fn cells(&self) -> u32 {
        self.globals.iter().map(|g| g.len).sum()
    }

    /// Initial memory.
    pub fn initial_memory(&self) -> Vec<u32> {
        self.globals
            .iter()
            .flat_map(|g| g.init.iter().copied())
            .collect()
    }

    /// The display name of a memory cell: `x` or `a[2]`.
    pub fn cell_name(&self, cell: u32) -> String {
        for g in &self.globals {
            if cell >= g.base && cell < g.base + g.len {
                return if g.is_array {
                    format!("{}[{}]", g.name, cell - g.base)
                } else {
                    g.name.clone()
                };
            }
        }
        format!("?{cell}")
    }

    /// The display name of an observable: `0:r` or `a[1]`.
    pub fn observable_name(&self, o: &Observable) -> String {
        match o {
            Observable::Reg { thread, reg } => {
                format!("{}:{}", thread, self.regs[*reg as usize].name)
            }
            Observable::Mem { cell } => self.cell_name(*cell),
        }
    }

    /// The whole program as a petgraph graph of block instances (for DOT and analyses).
    pub fn graph(&self) -> DiGraph<String, &'static str> {
        let mut g = DiGraph::new();
        let nodes: Vec<NodeIndex> = self.blocks.iter().map(|b| g.add_node(b.name())).collect();
        let cut = g.add_node("cut".to_string());
        for (i, b) in self.blocks.iter().enumerate() {
            for t in b.term.targets() {
                let to = match t {
                    Target::Block(t) => nodes[t as usize],
                    Target::Cut => cut,
                };
                g.add_edge(nodes[i], to, "");
            }
        }
        g
    }
}

/// Unrolls `cfg`: each loop as deep as [`super::bounds`] finds it can run, and to `unroll`
/// iterations (at least 1) where it cannot tell. Should those depths make the program too
/// large, every loop gets `unroll`.
pub fn unroll(cfg: Cfg, unroll: u32) -> Result<Program, UnrollError> {
    let unroll = unroll.max(1);
    let found = super::bounds::loop_depths(&cfg);
    let mut depths: Vec<u32> = found.iter().map(|d| d.unwrap_or(unroll)).collect();
    let mut prog = match unroll_to(&cfg, &depths, unroll) {
        Err(UnrollError::TooLarge { .. }) if depths.iter().any(|&d| d != unroll) => {
            depths = vec![unroll; depths.len()];
            return unroll_to(&cfg, &depths, unroll);
        }
        r => r?,
    };
    // Run the subgroups together on the unrolled program: a loop certainly cut is deepened
    // (doubling, up to MAX_DEPTH) unless the threads reach its cut again with the registers
    // they had last time (a spin that never ends: deeper is only bigger), a loop never cut is
    // trimmed to the iterations entered.
    let mut last_cut: Vec<Option<u64>> = vec![None; depths.len()];
    for _ in 0..12 {
        let Some(needs) = super::bounds::needs(&prog) else {
            return Ok(prog);
        };
        let mut next = depths.clone();
        for (l, need) in needs.iter().enumerate() {
            match need {
                Need::Enough(n) => next[l] = (*n).min(depths[l]),
                Need::Deeper(f) if last_cut[l] == Some(*f) => {}
                Need::Deeper(f) => {
                    last_cut[l] = Some(*f);
                    next[l] = (depths[l] * 2).min(super::bounds::MAX_DEPTH);
                }
                Need::Open => {}
            }
        }
        if next == depths {
            return Ok(prog);
        }
        match unroll_to(&cfg, &next, unroll) {
            Ok(p) => {
                prog = p;
                depths = next;
            }
            Err(_) => return Ok(prog),
        }
    }
    Ok(prog)
}

/// Unrolls loop `l` to `depths[l]` iterations.
fn unroll_to(cfg: &Cfg, depths: &[u32], unroll: u32) -> Result<Program, UnrollError> {
    // Discover reachable instances depth-first, remembering edges.
    let mut ids: HashMap<(SBlockId, Vec<u32>), usize> = HashMap::new();
    let mut insts: Vec<(SBlockId, Vec<u32>)> = Vec::new();
    let mut edges: Vec<Vec<Target>> = Vec::new();
    let mut stack = vec![0usize];
    ids.insert((0, vec![]), 0);
    insts.push((0, vec![]));
    edges.push(vec![]);
    while let Some(i) = stack.pop() {
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
    Ok(Program {
        entry: new_id[0],
        blocks,
        regs: cfg.regs.clone(),
        globals: cfg.globals.clone(),
        layout: cfg.layout,
        observables: cfg.observables.clone(),
        prop: cfg.prop.clone(),
        unroll,
        depths: depths.to_vec(),
        reach,
        cfg: cfg.clone(),
        deps: std::sync::OnceLock::new(),
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

/// Transitive successors of every block, computed backwards over the topological order.
fn reachability(blocks: &[Block]) -> Vec<Vec<u64>> {
    let words = blocks.len().div_ceil(64);
    let mut reach = vec![vec![0u64; words]; blocks.len()];
    for b in (0..blocks.len()).rev() {
        let mut acc = vec![0u64; words];
        for t in blocks[b].term.targets() {
            if let Target::Block(t) = t {
                let t = t as usize;
                acc[t / 64] |= 1 << (t % 64);
                for (a, r) in acc.iter_mut().zip(&reach[t]) {
                    *a |= r;
                }
            }
        }
        reach[b] = acc;
    }
    reach
}
