//! The unrolled program every engine runs: a DAG of block instances, numbered in topological
//! order, with the static structure it came from. [`super::unroll`] builds it; the engines,
//! the static analyses ([`super::bounds`], [`super::deps`]) and the reports read it.

use super::cfg::{Cfg, Role, SBlockId};
use super::{Expr, GlobalInfo, Instr, Layout, Observable, Prop, RegInfo};
use crate::syntax::Span;
use petgraph::graph::{DiGraph, NodeIndex};

/// Index of a block instance in [`Program::blocks`]; blocks are numbered in topological order.
pub type BlockId = u32;

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
    /// The test's `filter` over the observables: an execution whose final state fails it
    /// does not count (no outcome, no flag). `None`: every execution counts.
    pub filter: Option<Prop>,
    pub unroll: u32,
    /// How far each loop (by loop id) was unrolled: its depth found by `ir::bounds`, else
    /// `unroll`.
    pub depths: Vec<u32>,
    /// `reach[b]`: the blocks reachable from b by one or more edges, as a bit set.
    pub(super) reach: Vec<Vec<u64>>,
    /// Static structure, kept for DOT output.
    pub cfg: Cfg,
    /// Register dependencies, computed by [`super::deps`] when a memory model first asks.
    pub(super) deps: std::sync::OnceLock<Deps>,
    /// Per thread, the globals it may write ([`super::writers`]), computed when first asked.
    pub(super) writers: std::sync::OnceLock<Option<Vec<std::collections::BTreeSet<u32>>>>,
    /// Per loop, is it idle, and how many back edges a lane alone still needs
    /// ([`super::idle::idle_loops`])?
    pub(super) idle: Vec<Option<u32>>,
    /// Per loop that is partly idle, the blocks that make an iteration busy
    /// ([`super::idle::partly_idle_loops`]).
    pub(super) partly_idle: Vec<Option<Vec<super::cfg::SBlockId>>>,
    /// How many idle iterations of one loop instance make a cut there no doubt
    /// ([`Program::idle_rounds`]): 1 for outcomes, 2 when a memory model's flags are asked
    /// (one idle iteration may be the one that races).
    pub(super) rounds_needed: u32,
    /// Which registers a later step may read, at each instruction ([`super::live`]).
    pub live: super::live::Live,
}

/// An instruction: block instance and index in the block.
pub type Pos = (BlockId, u32);

/// The three dependency relations of [`super::deps`], from a read's instruction to a later
/// instruction, and where each read's value can go.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Deps {
    pub addr: std::collections::BTreeSet<(Pos, Pos)>,
    pub data: std::collections::BTreeSet<(Pos, Pos)>,
    pub ctrl: std::collections::BTreeSet<(Pos, Pos)>,
    /// Reads whose value can reach a branch, an address, a stored value, an atomic's or a
    /// subgroup op's argument, or a divisor: in any thread, the execution may depend on it.
    pub used: std::collections::BTreeSet<Pos>,
    /// Per register, the reads whose value it may hold when a run ends (returns, or is cut
    /// by the loop bound): observing the register at the end depends on at most these.
    pub held: std::collections::BTreeMap<crate::vocab::RegId, std::collections::BTreeSet<Pos>>,
    /// Reads whose value can reach a local assignment (a copy, or arithmetic).
    pub copied: std::collections::BTreeSet<Pos>,
}

impl Deps {
    /// Is the read at `at` *open*: does its value reach nothing but its own register, as the
    /// run ends (no use, no copy)? Nothing in a run then depends on the value, so the
    /// explorer leaves it to the candidate execution: the value of whatever write the read
    /// reads from (docs/memory-models.md, "Open reads").
    pub fn read_open(&self, at: Pos) -> bool {
        !self.used.contains(&at) && !self.copied.contains(&at)
    }

    /// Can the value of the read at `at` matter, in a thread whose final registers `observed`
    /// are looked at? A read that cannot is a *dead read*: the value it returns changes
    /// nothing the question sees (the SMT encoder leaves its reads-from open).
    pub fn read_matters(&self, at: Pos, observed: &[crate::vocab::RegId]) -> bool {
        self.used.contains(&at)
            || observed
                .iter()
                .any(|r| self.held.get(r).is_some_and(|h| h.contains(&at)))
    }
}

impl Program {
    /// The globals some instruction writes (a store or an atomic). A write past the loop
    /// bound is one of these, whatever its cell: both engines let a run cut short read such a
    /// write (docs/memory-models.md, "Runs cut short").
    pub fn globals_written(&self) -> std::collections::BTreeSet<u32> {
        (self.blocks.iter())
            .flat_map(|b| &b.instrs)
            .filter_map(|ins| match &ins.op {
                super::Op::Store { loc, .. } | super::Op::Atomic { loc, .. } => Some(loc.global),
                _ => None,
            })
            .collect()
    }

    /// May thread `thread` write `global` on some path ([`super::writers`])? A read of a run
    /// cut short takes a write performed after the run's end only from such a thread.
    pub fn may_write(&self, thread: u32, global: u32) -> bool {
        let writers = self
            .writers
            .get_or_init(|| super::writers::thread_writes(&self.cfg));
        (writers.as_ref()).is_none_or(|w| w[thread as usize].contains(&global))
    }

    /// The values a write of `global` may store, when every store and atomic to it writes a
    /// literal (an exchange or a compare-exchange its operand; a compare-exchange that writes
    /// the old value back, any value the global held: its initial values and the others);
    /// `None` when some write computes its value. A read of a write performed after the run's
    /// end takes one of these (docs/memory-models.md, "Runs cut short").
    pub fn values_written(&self, global: u32) -> Option<std::collections::BTreeSet<u32>> {
        use crate::vocab::{AtomicOp, Expr};
        let mut values = std::collections::BTreeSet::new();
        let mut old_values = false;
        for ins in self.blocks.iter().flat_map(|b| &b.instrs) {
            let value = match &ins.op {
                super::Op::Store { loc, value } if loc.global == global => value,
                super::Op::Atomic { loc, op, args, .. } if loc.global == global => match op {
                    AtomicOp::Exchange => &args[0],
                    AtomicOp::CompSwap => &args[1],
                    AtomicOp::CompSwapWriteBack => {
                        old_values = true;
                        &args[1]
                    }
                    _ => return None,
                },
                _ => continue,
            };
            match value {
                Expr::Lit(v) => values.insert(*v),
                _ => return None,
            };
        }
        if old_values {
            let g = &self.globals[global as usize];
            values.extend(g.init.iter().copied());
        }
        Some(values)
    }

    /// Can the value of the read at `at`, in thread `thread`, matter to the question
    /// ([`Deps::read_matters`], with the registers of that thread the condition observes)?
    pub fn read_matters(&self, thread: u32, at: Pos) -> bool {
        let observed: Vec<_> = (self.observables.iter())
            .filter_map(|o| match o {
                super::Observable::Reg { thread: t, reg } if *t == thread => Some(*reg),
                _ => None,
            })
            .collect();
        self.deps().read_matters(at, &observed)
    }

    /// Does the loop bound's cut out of block `b` hide no outcome? It does not when the loop
    /// it cuts is idle and was unrolled at least as deep as a subgroup has lanes
    /// ([`super::idle`]): a run cut there either never finishes or finishes as a run within
    /// the bound. The engines then drop such runs as unfinished, not as a doubt.
    pub fn idle_cut(&self, b: BlockId) -> bool {
        let sblock = &self.cfg.blocks[self.blocks[b as usize].sblock];
        let needed = self.layout.idle_depth();
        sblock
            .loops
            .last()
            .is_some_and(|&l| self.idle[l].is_some() && self.depths[l] >= needed)
    }

    /// Is `from -> to` a back edge of an idle loop that no run needs, in a program whose
    /// subgroups have one lane? Then every run that takes it has a twin that does not (idle
    /// iterations removed, [`super::idle`]) with the same outcome, and a search for outcomes
    /// may skip it.
    /// `extra`: back edges kept beyond what outcomes need (1 under a memory model with flags,
    /// for the iteration that goes round and races).
    pub fn idle_back_edge(&self, from: BlockId, to: BlockId, extra: u32) -> bool {
        let header = &self.blocks[to as usize];
        let Some(&k) = header.iters.last() else {
            return false;
        };
        header.role == Role::LoopHeader
            && self.layout.widest_subgroup() == 1
            && self.cfg.blocks[header.sblock]
                .loops
                .last()
                .is_some_and(|&l| {
                    self.idle[l].is_some_and(|needed| k > needed + extra)
                        && self.cfg.blocks[self.blocks[from as usize].sblock]
                            .loops
                            .contains(&l)
                })
    }

    /// Does no cut in an idle loop hide a memory model's flag either? A flag raised by an
    /// event of an iteration that goes round is raised, the other iterations that go round
    /// removed, in a run that has that iteration and at most one per lane that leaves
    /// (docs/progress.md, "Idle loops"): so every idle loop that can be cut must be unrolled
    /// one iteration deeper than its subgroup has lanes.
    pub fn idle_cuts_hide_no_flag(&self) -> bool {
        let needed = self.layout.idle_depth() + 1;
        (self.cut_blocks()).filter(|&b| self.idle_cut(b)).all(|b| {
            self.cfg.blocks[self.blocks[b as usize].sblock]
                .loops
                .last()
                .is_some_and(|&l| self.depths[l] >= needed)
        })
    }

    /// The partly idle loop ([`super::idle::partly_idle_loops`]) whose iterations block `b`
    /// belongs to, if any.
    pub fn partly_idle_loop(&self, b: BlockId) -> Option<super::cfg::LoopId> {
        let &l = self.cfg.blocks[self.blocks[b as usize].sblock]
            .loops
            .last()?;
        self.partly_idle[l].is_some().then_some(l)
    }

    /// Does running block `b` make its iteration of a partly idle loop busy?
    pub fn busy(&self, b: BlockId) -> bool {
        let sb = self.blocks[b as usize].sblock;
        (self.partly_idle_loop(b)).is_some_and(|l| {
            self.partly_idle[l]
                .as_ref()
                .is_some_and(|v| v.contains(&sb))
        })
    }

    /// Is `b` the header of the first iteration of a partly idle loop's instance?
    pub fn first_round(&self, b: BlockId) -> bool {
        let block = &self.blocks[b as usize];
        block.role == Role::LoopHeader
            && block.iters.last() == Some(&0)
            && self.partly_idle_loop(b).is_some()
    }

    /// The iterations of the partly idle loop instance block `b` belongs to, in order: the
    /// blocks of each, its header first.
    pub fn rounds_of(&self, b: BlockId) -> Vec<Vec<BlockId>> {
        let Some(l) = self.partly_idle_loop(b) else {
            return Vec::new();
        };
        let here = &self.blocks[b as usize];
        let outer = here.iters.len() - 1;
        let mut rounds: Vec<Vec<BlockId>> = Vec::new();
        for (id, blk) in self.blocks.iter().enumerate() {
            let ls = &self.cfg.blocks[blk.sblock].loops;
            if ls.last() != Some(&l) || blk.iters[..outer] != here.iters[..outer] {
                continue;
            }
            let k = blk.iters[outer] as usize;
            if rounds.len() <= k {
                rounds.resize(k + 1, Vec::new());
            }
            if blk.role == Role::LoopHeader && blk.sblock == self.cfg.loops[l].header {
                rounds[k].insert(0, id as BlockId);
            } else {
                rounds[k].push(id as BlockId);
            }
        }
        rounds
    }

    /// How many idle iterations of one instance of a partly idle loop, each run by every
    /// lane of the subgroup that began it and gone round by all of them, make a cut in that
    /// instance no doubt (docs/progress.md, "Idle iterations"): removing such an iteration
    /// from a run leaves a run with the same outcome, so a run that finishes past the bound
    /// has a twin with none (or one, for a flag) that the bound cuts as well.
    pub fn idle_rounds(&self) -> u32 {
        self.rounds_needed
    }

    /// Can the loop bound cut a run at all (some block has an edge to the cut)? Loops whose
    /// trip count is known are unrolled as far as they run, and have none.
    pub fn may_cut(&self) -> bool {
        self.cut_blocks().next().is_some()
    }

    /// The blocks with an edge to the loop bound's cut.
    fn cut_blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.blocks.len() as BlockId).filter(|&b| {
            self.blocks[b as usize]
                .term
                .targets()
                .contains(&Target::Cut)
        })
    }

    /// Does some block instance hold an instruction of kind `k`? A model's class for a kind
    /// the program lacks never applies (Symb without subgroup ops runs as SSO).
    pub fn has_kind(&self, k: crate::vocab::Kind) -> bool {
        (self.blocks.iter()).any(|b| b.instrs.iter().any(|i| i.op.kind() == k))
    }

    /// The kind of the step a thread at position `pc` of block `b` takes next: pc 0 is the
    /// label, 1..=n the block's instructions, past them the branch that ends it.
    pub fn kind_at(&self, b: BlockId, pc: u32) -> crate::vocab::Kind {
        let block = &self.blocks[b as usize];
        match (pc as usize).checked_sub(1) {
            None => crate::vocab::Kind::Label,
            Some(i) => block
                .instrs
                .get(i)
                .map_or(crate::vocab::Kind::Branch, |ins| ins.op.kind()),
        }
    }

    /// Can some run be cut by the loop bound in an idle loop ([`Program::idle_cut`])?
    pub fn has_idle_cuts(&self) -> bool {
        self.cut_blocks().any(|b| self.idle_cut(b))
    }

    /// Was some partly idle loop that can be cut unrolled less deep than the bound
    /// ([`super::unroll_partly`])? Deeper, its cut may be no doubt.
    pub fn partly_idle_cut_short(&self) -> bool {
        self.partly_idle_short_depth().is_some()
    }

    /// How deep the deepest partly idle loop that can be cut and was unrolled short of the
    /// bound went (`None`: none was).
    fn partly_idle_short_depth(&self) -> Option<u32> {
        (self.cut_blocks())
            .filter_map(|b| self.partly_idle_loop(b))
            .map(|l| self.depths[l])
            .filter(|&d| d < self.unroll)
            .max()
    }

    /// The loop bound as a doubt names it: `--unroll N`, and how deep a partly idle loop that
    /// can be cut was unrolled when that is less (`query::deepening` stopped before the
    /// bound, its budget spent), so that the user knows raising `--unroll` is not the cure.
    pub fn bound_words(&self) -> String {
        match self.partly_idle_short_depth() {
            None => format!("--unroll {}", self.unroll),
            Some(d) => format!(
                "--unroll {}; a loop idle on some paths was unrolled only {d} deep",
                self.unroll
            ),
        }
    }

    /// Can some run be cut by the loop bound in a partly idle loop
    /// ([`Program::partly_idle_loop`])?
    pub fn has_partly_idle_cuts(&self) -> bool {
        self.cut_blocks()
            .any(|b| self.partly_idle_loop(b).is_some())
    }

    /// Is block `to` reachable from block `from` by at least one edge? This is what makes a
    /// thread *undecided* for a dynamic block (docs/semantics.md §2).
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

    /// Does an execution ending with these observable values count (its final state passes
    /// the filter)?
    pub fn passes_filter(&self, values: &[u32]) -> bool {
        self.filter.as_ref().is_none_or(|f| f.eval(values))
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

/// Transitive successors of every block, computed backwards over the topological order.
pub(super) fn reachability(blocks: &[Block]) -> Vec<Vec<u64>> {
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
