//! The search for distinguishing programs by CEGIS over program templates, the alternative
//! to enumeration (`search::search`) that the two are measured against
//! (docs/inclusion.md, "Enumeration or CEGIS").
//!
//! A *shape* is the control structure of a program of the grammar with its simple statements
//! left open (`slot; if (lane == 0) { slot } slot` ...). For each (lanes, size) layer, in the
//! same order as enumeration, every shape of that size becomes one template: each slot lists
//! every simple statement of the grammar as an alternative (stores, loads into the slot's own
//! register `rJ`, ops into `sJ`, a barrier; a store of an op result names one earlier op slot
//! in scope, and may be chosen only when that slot holds an op and no later slot in scope
//! does, which is "the latest op result in scope"). [`crate::engine::smt::synth`] then decides
//! the template. Templates range over exactly the programs of the grammar (without symmetry
//! reduction), so the first program found is as small as enumeration's, and "none" for every
//! template of every layer is the same bounded result.
//!
//! A found program is rebuilt as a grammar program and re-checked by `search::differ`
//! (the explorer, for non-symbolic models) before it is emitted: the synthesiser's word is
//! never the only evidence.

use super::walk::{Layer, LayerEnd, SearchError, SearchOptions, Strategy, Walk};
use crate::engine::smt::synth::{self, Cond, Synthesis, Template};
use crate::engine::smt::SmtOptions;
use crate::ir::Program;
use crate::model::Model;
use crate::query::enumerate::{self, Grammar, Loc, Rendered, Stmt, Val};
use crate::syntax;
use std::collections::HashMap;

/// The control structure of a program, simple statements left open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    Slot,
    /// `if (lane == 0) { then } else { else }`
    If(Vec<Shape>, Vec<Shape>),
}

/// Every shape of exactly `size` instructions whose `if`s nest at most `max_depth` deep (an
/// `if` counts one plus its arms, as in [`enumerate::size`]).
pub fn shapes(size: usize, max_depth: usize) -> Vec<Vec<Shape>> {
    fn lists(size: usize, depth: usize, max: usize) -> Vec<Vec<Shape>> {
        if size == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for rest in lists(size - 1, depth, max) {
            let mut l = vec![Shape::Slot];
            l.extend(rest);
            out.push(l);
        }
        if depth < max {
            for a in 0..size {
                for b in 0..size - a {
                    for t in lists(a, depth + 1, max) {
                        for e in lists(b, depth + 1, max) {
                            for rest in lists(size - 1 - a - b, depth, max) {
                                let mut l = vec![Shape::If(t.clone(), e.clone())];
                                l.extend(rest);
                                out.push(l);
                            }
                        }
                    }
                }
            }
        }
        out
    }
    lists(size, 0, max_depth)
}

/// One alternative of a slot: the grammar statement and its line in the template.
struct Alt {
    stmt: Stmt,
    line: usize,
}

/// A shape made into a template program.
struct Built {
    /// The template's text and what it declares.
    rendered: Rendered,
    /// Per slot, its alternatives.
    slots: Vec<Vec<Alt>>,
    requires: Vec<((usize, u32), Vec<Cond>)>,
    /// Line of `kernel {` in the kernel-line numbering (to turn kernel lines into file lines).
    kernel_lines: usize,
}

struct Builder<'g> {
    g: &'g Grammar,
    lines: Vec<String>,
    slots: Vec<Vec<Alt>>,
    requires: Vec<((usize, u32), Vec<Cond>)>,
    regs: Vec<String>,
}

impl Builder<'_> {
    fn line(&mut self, depth: usize, s: String) -> usize {
        self.lines.push(format!("{}{s}", "  ".repeat(depth + 1)));
        self.lines.len() - 1
    }

    /// The alternatives of slot `j` that are ops.
    fn op_alts(&self, j: usize) -> Vec<u32> {
        self.slots[j]
            .iter()
            .enumerate()
            .filter(|(_, a)| matches!(a.stmt, Stmt::SgOp(_)))
            .map(|(i, _)| i as u32)
            .collect()
    }

    fn walk(&mut self, shape: &[Shape], depth: usize, mut scope: Vec<usize>) {
        for s in shape {
            match s {
                Shape::Slot => {
                    let j = self.slots.len();
                    self.slots.push(Vec::new());
                    let mut alts: Vec<(Stmt, String)> = Vec::new();
                    for &l in &self.g.locs {
                        for &v in &self.g.values {
                            alts.push((
                                Stmt::Store(l, Val::Lit(v)),
                                format!("{} = {v};", l.text()),
                            ));
                        }
                    }
                    let mut op_stores = Vec::new();
                    if self.g.store_op_result && !self.g.ops.is_empty() {
                        for (k, &i) in scope.iter().enumerate() {
                            for &l in &self.g.locs {
                                op_stores.push((alts.len() as u32, k, i));
                                alts.push((
                                    Stmt::Store(l, Val::OpResult),
                                    format!("{} = s{i};", l.text()),
                                ));
                            }
                        }
                    }
                    if !self.g.locs.is_empty() {
                        self.regs.push(format!("r{j}"));
                    }
                    for &l in &self.g.locs {
                        alts.push((Stmt::Load(l), format!("r{j} = {};", l.text())));
                    }
                    if !self.g.ops.is_empty() {
                        self.regs.push(format!("s{j}"));
                    }
                    for &o in &self.g.ops {
                        alts.push((Stmt::SgOp(o), format!("s{j} = {};", o.text())));
                    }
                    if self.g.barrier {
                        alts.push((Stmt::Barrier, "subgroupBarrier();".to_string()));
                    }
                    for (stmt, t) in alts {
                        let line = self.line(depth, t);
                        self.slots[j].push(Alt { stmt, line });
                    }
                    // A store of `sI` is "the latest op result in scope": slot I holds an op
                    // and no later slot in scope does.
                    for (a, k, i) in op_stores {
                        let mut conds = vec![Cond {
                            slot: i,
                            alts: self.op_alts(i),
                            negated: false,
                        }];
                        for &later in &scope[k + 1..] {
                            conds.push(Cond {
                                slot: later,
                                alts: self.op_alts(later),
                                negated: true,
                            });
                        }
                        self.requires.push(((j, a), conds));
                    }
                    if !self.g.ops.is_empty() {
                        scope.push(j);
                    }
                }
                Shape::If(t, e) => {
                    self.line(depth, "if (lane == 0) {".into());
                    self.walk(t, depth + 1, scope.clone());
                    if e.is_empty() {
                        self.line(depth, "}".into());
                    } else {
                        self.line(depth, "} else {".into());
                        self.walk(e, depth + 1, scope.clone());
                        self.line(depth, "}".into());
                    }
                }
            }
        }
    }
}

fn build(g: &Grammar, shape: &[Shape]) -> Built {
    let threads = g.threads;
    let mut b = Builder {
        g,
        lines: Vec::new(),
        slots: Vec::new(),
        requires: Vec::new(),
        regs: Vec::new(),
    };
    b.walk(shape, 0, Vec::new());
    let mut uses = [false; 3];
    for l in &g.locs {
        uses[l.global()] = true;
    }
    let stmts: String = b.lines.iter().map(|l| format!("{l}\n")).collect();
    let (body, globals, before) =
        enumerate::frame(threads, uses, g.locs.contains(&Loc::Next), &stmts);
    Built {
        rendered: Rendered {
            body,
            regs: b.regs,
            globals,
        },
        slots: b.slots,
        requires: b.requires,
        kernel_lines: before,
    }
}

/// The template program and its slots: parsed, compiled observing every register and cell,
/// the optional instructions located by their source lines.
fn compile_template(built: &Built, threads: u32) -> Result<(Program, Template), String> {
    let text = built.rendered.litmus(&[], "template", "", "true", None);
    let test = syntax::parse("template.litmus", text.as_bytes())
        .map_err(|d| format!("a template does not parse (template bug):\n{d}\n{text}"))?;
    let extra = built.rendered.observables(threads);
    let prog = crate::query::compile_observing(&test, 1, &extra).map_err(|e| e.to_string())?;
    // File lines are 1-based and the file starts with the `test` line.
    let first = 1 + built.kernel_lines + 1;
    let mut by_line: HashMap<u32, (usize, u32)> = HashMap::new();
    for (j, alts) in built.slots.iter().enumerate() {
        for (a, alt) in alts.iter().enumerate() {
            by_line.insert((first + alt.line) as u32, (j, a as u32));
        }
    }
    let mut at = HashMap::new();
    for (b, block) in prog.blocks.iter().enumerate() {
        for (i, ins) in block.instrs.iter().enumerate() {
            if let Some(&ja) = by_line.get(&ins.span.line) {
                at.insert((b as u32, i as u32 + 1), ja);
            }
        }
    }
    let mut covered: Vec<_> = at.values().copied().collect();
    covered.sort_unstable();
    covered.dedup();
    if covered.len() != by_line.len() {
        return Err(format!(
            "template bug: {} of {} alternatives have instructions\n{text}",
            covered.len(),
            by_line.len()
        ));
    }
    let tmpl = Template {
        arity: built.slots.iter().map(|s| s.len() as u32).collect(),
        at,
        requires: built.requires.clone(),
    };
    Ok((prog, tmpl))
}

/// The grammar program a choice of the template's alternatives stands for.
fn instantiate(shape: &[Shape], built: &Built, choice: &[u32]) -> Vec<Stmt> {
    fn go(shape: &[Shape], built: &Built, choice: &[u32], next: &mut usize) -> Vec<Stmt> {
        shape
            .iter()
            .map(|s| match s {
                Shape::Slot => {
                    let j = *next;
                    *next += 1;
                    built.slots[j][choice[j] as usize].stmt.clone()
                }
                Shape::If(t, e) => {
                    let t = go(t, built, choice, next);
                    let e = go(e, built, choice, next);
                    Stmt::If(t, e)
                }
            })
            .collect()
    }
    go(shape, built, choice, &mut 0)
}

/// CEGIS: every template (control-flow shape) of the layer decided by synthesis.
pub(crate) struct Cegis<'m> {
    strong: &'m Model,
    weak: &'m Model,
    smt: SmtOptions,
}

impl<'m> Cegis<'m> {
    pub(crate) fn new(strong: &'m Model, weak: &'m Model, opts: &SearchOptions) -> Self {
        Cegis {
            strong,
            weak,
            smt: SmtOptions {
                timeout_ms: None,
                max_outcomes: opts.max_outcomes,
                time_bits: 0,
                ..SmtOptions::default()
            },
        }
    }
}

impl Strategy for Cegis<'_> {
    fn layer(
        &mut self,
        g: &Grammar,
        size: usize,
        walk: &mut Walk,
        layer: &mut Layer,
    ) -> Result<LayerEnd, SearchError> {
        let threads = g.threads;
        let all = shapes(size, g.max_depth);
        layer.templates = Some(all.len() as u64);
        let mut rounds = 0u64;
        let mut end = LayerEnd::Exhausted;
        for shape in &all {
            walk.report(threads, size);
            let built = build(g, shape);
            let (prog, tmpl) = compile_template(&built, threads).map_err(SearchError::Recheck)?;
            // No solver call may outlast the time limit.
            let smt = SmtOptions {
                timeout_ms: walk.millis_left(),
                ..self.smt.clone()
            };
            let r = synth::synthesize(&prog, &tmpl, self.strong, self.weak, &smt, walk.deadline);
            walk.checked += 1;
            let n = match &r {
                Synthesis::None { rounds }
                | Synthesis::Unknown { rounds, .. }
                | Synthesis::Found { rounds, .. } => *rounds,
            };
            rounds += n;
            walk.rounds = walk.rounds.map(|r| r + n);
            match r {
                Synthesis::None { .. } => {}
                Synthesis::Unknown { why, .. } => {
                    layer.unknown += 1;
                    if walk.expired() {
                        end = LayerEnd::TimeLimit;
                        break;
                    }
                    tracing::warn!(threads, size, %why, "undecided template");
                }
                Synthesis::Found { choice, .. } => {
                    end = LayerEnd::Found(instantiate(shape, &built, &choice), None);
                    break;
                }
            }
        }
        layer.rounds = Some(rounds);
        Ok(end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_count_like_the_enumeration() {
        // Size 1: a slot or an empty if; size 2: slot slot, slot if{}, if{} slot, if{} if{},
        // if{slot}, if{}else{slot}.
        assert_eq!(shapes(1, 1).len(), 2);
        assert_eq!(shapes(2, 1).len(), 6);
        assert_eq!(shapes(2, 0), vec![vec![Shape::Slot, Shape::Slot]]);
        // Every instantiation of a template is a program of the grammar of the same size.
        let g = Grammar::default();
        for s in shapes(3, 1) {
            let built = build(&g, &s);
            let choice = vec![0; built.slots.len()];
            assert_eq!(enumerate::size(&instantiate(&s, &built, &choice)), 3);
        }
    }

    #[test]
    fn templates_compile_with_every_alternative_located() {
        let g = Grammar::default();
        for s in shapes(3, 1) {
            let built = build(&g, &s);
            let (_, t) = compile_template(&built, 2).expect("template compiles");
            let n: u32 = t.arity.iter().sum();
            assert!(t.at.len() as u32 >= n);
        }
    }
}

#[cfg(test)]
mod agreement {
    use super::*;
    use crate::engine::smt;

    /// Observables of the concrete program, as indices into the template's observables.
    fn projection(built: &Built, p: &[Stmt], threads: u32, choice: &[u32]) -> Vec<usize> {
        let conc = enumerate::render(p, threads);
        let t_obs: Vec<String> = built
            .rendered
            .observables(threads)
            .iter()
            .map(|o| format!("{o:?}"))
            .collect();
        // Template register of each concrete register: the k-th load is slot j's `rJ`.
        let mut names = HashMap::new();
        let (mut loads, mut ops) = (0, 0);
        for (j, alts) in built.slots.iter().enumerate() {
            match alts[choice[j] as usize].stmt {
                Stmt::Load(_) => {
                    names.insert(format!("r{loads}"), format!("r{j}"));
                    loads += 1;
                }
                Stmt::SgOp(_) => {
                    names.insert(format!("s{ops}"), format!("s{j}"));
                    ops += 1;
                }
                _ => {}
            }
        }
        conc.observables(threads)
            .into_iter()
            .map(|o| {
                let o = match o {
                    syntax::ast::Operand::Reg { thread, reg } => syntax::ast::Operand::Reg {
                        thread,
                        reg: names[&reg].clone(),
                    },
                    o => o,
                };
                let key = format!("{o:?}");
                t_obs.iter().position(|k| *k == key).expect("observable")
            })
            .collect()
    }

    #[test]
    fn a_choice_of_the_template_behaves_as_its_program() {
        let g = Grammar::default();
        let opts = SmtOptions::default();
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % n as u64) as u32
        };
        for size in 1..=3 {
            for shape in shapes(size, 1) {
                let built = build(&g, &shape);
                let (prog, tmpl) = compile_template(&built, 2).expect("template");
                for _ in 0..3 {
                    // A random valid choice (retry until the side conditions hold).
                    let choice: Vec<u32> = loop {
                        let c: Vec<u32> = tmpl.arity.iter().map(|&n| next(n)).collect();
                        let ok = tmpl.requires.iter().all(|((j, a), conds)| {
                            c[*j] != *a
                                || conds
                                    .iter()
                                    .all(|k| k.alts.contains(&c[k.slot]) != k.negated)
                        });
                        if ok {
                            break c;
                        }
                    };
                    let p = instantiate(&shape, &built, &choice);
                    let proj = projection(&built, &p, 2, &choice);
                    let (_, cprog) = include_compile(&p);
                    for m in Model::builtin() {
                        let t = synth::outcomes_of_choice(&prog, &tmpl, &m, &choice, &opts);
                        let want = smt::Encoding::new(&cprog, std::slice::from_ref(&m), &opts)
                            .expect("no budget is set")
                            .outcomes(&m, 4096);
                        let mut got: Vec<Vec<u32>> = t
                            .outcomes
                            .iter()
                            .map(|o| proj.iter().map(|&i| o[i]).collect())
                            .collect();
                        got.sort();
                        got.dedup();
                        assert_eq!(
                            got,
                            want.outcomes,
                            "{} on\n{}",
                            m.name,
                            enumerate::render(&p, 2).body
                        );
                    }
                }
            }
        }
    }

    fn include_compile(p: &[Stmt]) -> (syntax::ast::Test, Program) {
        let r = enumerate::render(p, 2);
        let text = r.litmus(&[], "t", "", "true", None);
        let test = syntax::parse("t.litmus", text.as_bytes()).expect("parses");
        let prog = crate::query::compile_observing(&test, 1, &r.observables(2)).expect("compiles");
        (test, prog)
    }
}
