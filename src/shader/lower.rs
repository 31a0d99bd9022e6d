//! A validated naga module -> the litmus AST's kernel and globals.
//!
//! The shader's entry point becomes the kernel, with every call inlined. Values are flattened to
//! 32-bit components (a `vec4<u32>` is four), so every engine keeps reasoning about words:
//! - function locals and `var<private>` globals become registers (one per component);
//! - storage, uniform and workgroup variables become flat word arrays (globals), laid out with
//!   naga's offsets and strides; workgroup memory gets one copy per workgroup;
//! - naga's expressions are evaluated where their `Emit` stands: memory loads become `Load`
//!   statements there, and a register-valued expression still to be used when its register is
//!   overwritten is first copied into a hidden register (`$s…`), so evaluation order is kept;
//! - subgroup operations become `SgOp` assignments, one per component.
//!
//! Anything outside the subset is an error at the construct, in the shader's own lines.

use crate::syntax::ast::{self, BarrierScope, ExprKind, Stmt, StmtKind};
use crate::syntax::Span;
use crate::vocab::{AtomicOp, BinOp, Builtin, LocalFn, RedOp, SgOp, UnOp};
use naga::{
    AddressSpace, BinaryOperator, Expression, Function, Handle, Literal, MathFunction, ScalarKind,
    Statement, TypeInner, UnaryOperator,
};
use std::collections::HashMap;

/// An error at a place in the shader.
#[derive(Debug)]
pub struct LowerError {
    pub span: naga::Span,
    pub message: String,
}

type Res<T> = Result<T, LowerError>;

fn err<T>(span: naga::Span, message: impl Into<String>) -> Res<T> {
    Err(LowerError {
        span,
        message: message.into(),
    })
}

/// How the shader is launched: what the built-ins evaluate to.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    /// `@workgroup_size(x, y, z)`.
    pub workgroup: [u32; 3],
    pub workgroups: u32,
    pub subgroup: u32,
}

impl Dims {
    fn invocations(&self) -> u32 {
        self.workgroup.iter().product()
    }
}

/// A storage, uniform or workgroup variable, as a flat word array.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// The variable's name (or its type's name, or `buffer_G_B`): the global's name.
    pub name: String,
    pub binding: Option<(u32, u32)>,
    /// Words of one copy (for a runtime-sized array: `None` until the launch gives it).
    pub words: Option<u32>,
    pub space: Space,
    pub span: naga::Span,
    /// For a runtime-sized buffer: words before the array and words per element.
    pub runtime: Option<(u32, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Storage { writable: bool },
    Uniform,
    Workgroup,
}

/// The memory variables of a module, in declaration order (before lowering, so the launch can
/// give runtime-sized buffers their length).
pub fn buffers(module: &naga::Module) -> Res<Vec<Buffer>> {
    let mut out = Vec::new();
    for (h, g) in module.global_variables.iter() {
        let span = module.global_variables.get_span(h);
        let space = match g.space {
            AddressSpace::Storage { access } => Space::Storage {
                writable: access.contains(naga::StorageAccess::STORE),
            },
            AddressSpace::Uniform => Space::Uniform,
            AddressSpace::WorkGroup => Space::Workgroup,
            AddressSpace::Private | AddressSpace::Function => continue,
            other => return err(span, format!("{other:?} variables are not supported")),
        };
        let ty = &module.types[g.ty];
        let name = match (&g.name, &ty.name, &g.binding) {
            (Some(n), _, _) if !n.is_empty() => n.clone(),
            (_, Some(n), _) if !n.is_empty() => n.clone(),
            (_, _, Some(b)) => format!("buffer_{}_{}", b.group, b.binding),
            _ => format!("buffer_{}", out.len()),
        };
        let (words, runtime) = match words_of(module, g.ty) {
            Ok(w) => (Some(w), None),
            Err(Runtime { before, element }) => (None, Some((before, element))),
        };
        if let Err(why) = memory_type(module, g.ty) {
            return err(span, format!("`{name}`: {why}"));
        }
        out.push(Buffer {
            name,
            binding: g.binding.as_ref().map(|b| (b.group, b.binding)),
            words,
            space,
            span,
            runtime,
        });
    }
    Ok(out)
}

/// A runtime-sized array at the end of a type: words before it, words per element.
struct Runtime {
    before: u32,
    element: u32,
}

/// Words a memory type occupies (naga sizes are in bytes; every scalar we accept is 4).
fn words_of(module: &naga::Module, ty: Handle<naga::Type>) -> Result<u32, Runtime> {
    match &module.types[ty].inner {
        TypeInner::Array { size, stride, .. } => match size {
            naga::ArraySize::Constant(n) => Ok(n.get() * stride / 4),
            _ => Err(Runtime {
                before: 0,
                element: stride / 4,
            }),
        },
        TypeInner::Struct { members, span } => {
            if let Some(last) = members.last() {
                if let Err(r) = words_of(module, last.ty) {
                    return Err(Runtime {
                        before: last.offset / 4 + r.before,
                        element: r.element,
                    });
                }
            }
            Ok(span / 4)
        }
        other => Ok(other.size(module.to_ctx()) / 4),
    }
}

/// Checks that every scalar in a memory type is a 32-bit integer or boolean.
fn memory_type(module: &naga::Module, ty: Handle<naga::Type>) -> Result<(), String> {
    match &module.types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) | TypeInner::Vector { scalar: s, .. } => {
            scalar_ok(*s)
        }
        TypeInner::Array { base, .. } => memory_type(module, *base),
        TypeInner::Struct { members, .. } => {
            members.iter().try_for_each(|m| memory_type(module, m.ty))
        }
        other => Err(format!("the type {other:?} is not supported")),
    }
}

fn scalar_ok(s: naga::Scalar) -> Result<(), String> {
    match (s.kind, s.width) {
        (ScalarKind::Uint | ScalarKind::Sint, 4) | (ScalarKind::Bool, _) => Ok(()),
        (ScalarKind::Float, _) => {
            Err("floating-point values are not supported (only u32, i32 and bool)".into())
        }
        _ => Err(format!(
            "{}-bit {:?} values are not supported (only u32, i32 and bool)",
            s.width * 8,
            s.kind
        )),
    }
}

/// The lowered kernel.
pub struct Kernel {
    pub stmts: Vec<Stmt>,
}

/// Lowers entry point `entry` of a validated module. `buffers` are the memory variables with
/// their lengths fixed by the launch; `span` maps a naga span to a source span.
pub fn lower(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    entry: usize,
    dims: Dims,
    buffers: &[Buffer],
    span: &dyn Fn(naga::Span) -> Span,
    elects: &[usize],
) -> Res<Kernel> {
    let ep = &module.entry_points[entry];
    let mut lw = Lowerer {
        module,
        info,
        dims,
        span,
        elects,
        slots: HashMap::new(),
        taken: HashMap::new(),
        named: HashMap::new(),
        temps: 0,
        out: vec![Vec::new()],
        frames: Vec::new(),
        breakable: Vec::new(),
        inlined: Default::default(),
    };
    // Memory variables first (their names are global names), then private variables (registers).
    let mut mem = buffers.iter();
    for (h, g) in module.global_variables.iter() {
        match g.space {
            AddressSpace::Private => {
                let base = g
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("private{}", h.index()));
                let regs = lw.register_names(&base, g.ty, h.index(), Owner::Global)?;
                lw.slots.insert(h, Slot::Regs(regs.clone()));
                if let Some(init) = g.init {
                    let vals = lw.const_expr(init, module.global_expressions.get_span(init))?;
                    let at = module.global_variables.get_span(h);
                    for (r, v) in regs.iter().zip(vals) {
                        if v != 0 {
                            let e = lw.lit(v, at);
                            lw.push(
                                StmtKind::Assign {
                                    reg: r.clone(),
                                    value: e,
                                },
                                at,
                            );
                        }
                    }
                }
            }
            AddressSpace::Function => {}
            _ => {
                let b = mem.next().expect("one buffer per memory variable");
                lw.slots.insert(h, Slot::Mem(b.clone()));
            }
        }
    }
    lw.call_function(
        &ep.function,
        None,
        Vec::new(),
        None,
        true,
        ep_span(module, entry),
    )?;
    let stmts = lw.out.pop().expect("the kernel's statement list");
    Ok(Kernel { stmts })
}

fn ep_span(module: &naga::Module, entry: usize) -> naga::Span {
    let f = &module.entry_points[entry].function;
    f.body
        .span_iter()
        .next()
        .map_or(naga::Span::default(), |(_, s)| *s)
}

/// Where a naga variable lives.
#[derive(Clone, Debug)]
enum Slot {
    Regs(Vec<String>),
    Mem(Buffer),
}

/// A lowered naga expression: component values, or a place (a pointer).
#[derive(Clone, Debug)]
enum Value {
    Vals(Vec<ast::Expr>),
    Ptr(Place),
}

#[derive(Clone, Debug)]
enum Place {
    /// Registers holding the pointee's components.
    Regs(Vec<String>, Handle<naga::Type>),
    /// Words of a buffer, starting at `offset`.
    Mem {
        global: String,
        offset: ast::Expr,
        ty: Handle<naga::Type>,
    },
}

/// Who owns a register name (for reuse across inlined calls of the same function).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Owner {
    Global,
    Local(Option<Handle<Function>>),
    Named(Option<Handle<Function>>),
    Arg(Option<Handle<Function>>),
    Ret(Option<Handle<Function>>),
}

/// One inlined call in progress.
struct Frame<'m> {
    func: &'m Function,
    handle: Option<Handle<Function>>,
    prefix: String,
    cache: HashMap<Handle<Expression>, Value>,
    /// Uses of each expression not yet lowered (a cached value still needed).
    uses: Vec<u32>,
    args: Vec<Value>,
    locals: HashMap<Handle<naga::LocalVariable>, Vec<String>>,
    ret: RetMode,
    /// Loops entered inside this function (a `return` inside one needs the flag).
    loop_depth: u32,
    /// Returns lowered inside loops since the innermost loop started (post-checks needed).
    returns_in_loops: u32,
}

/// How a `return` of the function being inlined is lowered.
#[derive(Clone, Debug)]
enum RetMode {
    /// The thread ends: the entry point, or a call nothing follows.
    Terminate,
    /// Falls off the end: the only return is the body's last statement.
    Tail { regs: Vec<String> },
    /// The body is wrapped in a one-iteration loop; `return` breaks out of it (setting
    /// `flag` first when inside an inner loop, whose merge then breaks on).
    Wrapped { regs: Vec<String>, flag: String },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Breakable {
    Loop,
    /// A switch whose cases end by falling off their end (or a final `break`).
    Switch,
    /// A switch with a `break` inside a case, lowered inside a one-iteration loop whose merge
    /// is the switch's merge.
    SwitchLoop,
}

struct Lowerer<'m, 's> {
    module: &'m naga::Module,
    info: &'m naga::valid::ModuleInfo,
    dims: Dims,
    span: &'s dyn Fn(naga::Span) -> Span,
    /// SPIR-V offsets of `OpGroupNonUniformElect`s, read by naga as `subgroupAll(true)`.
    elects: &'s [usize],
    slots: HashMap<Handle<naga::GlobalVariable>, Slot>,
    /// Register names in use.
    taken: HashMap<String, ()>,
    named: HashMap<(Owner, usize), Vec<String>>,
    temps: u32,
    /// Statement lists being built (innermost last).
    out: Vec<Vec<Stmt>>,
    frames: Vec<Frame<'m>>,
    breakable: Vec<Breakable>,
    /// Functions inlined so far (the entry point is `None`).
    inlined: std::collections::HashSet<Option<Handle<Function>>>,
}

impl<'m> Lowerer<'m, '_> {
    // ---- small builders ------------------------------------------------------------------

    fn sp(&self, s: naga::Span) -> Span {
        (self.span)(s)
    }

    fn lit(&self, v: u32, at: naga::Span) -> ast::Expr {
        ast::Expr {
            kind: ExprKind::Lit(v),
            span: self.sp(at),
        }
    }

    fn push(&mut self, kind: StmtKind, at: naga::Span) {
        let span = self.sp(at);
        self.out.last_mut().expect("a statement list").push(Stmt {
            kind,
            span,
            tags: Vec::new(),
        });
    }

    fn frame(&mut self) -> &mut Frame<'m> {
        self.frames.last_mut().expect("inside a function")
    }

    /// A fresh or reused register name: `base`, else `base#2`, ...
    fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut k = 2;
        while self.taken.contains_key(&name) {
            name = format!("{base}#{k}");
            k += 1;
        }
        self.taken.insert(name.clone(), ());
        name
    }

    fn temp(&mut self) -> String {
        self.temps += 1;
        let n = format!("$s{}", self.temps);
        self.taken.insert(n.clone(), ());
        n
    }

    /// Register names for a variable of type `ty`, one per component, reused by every
    /// inlined instance of the same owner.
    fn register_names(
        &mut self,
        base: &str,
        ty: Handle<naga::Type>,
        key: usize,
        owner: Owner,
    ) -> Res<Vec<String>> {
        if let Some(v) = self.named.get(&(owner, key)) {
            return Ok(v.clone());
        }
        let mut suffixes = Vec::new();
        self.suffixes(ty, String::new(), &mut suffixes)?;
        let root = self.fresh(base);
        let names: Vec<String> = suffixes
            .into_iter()
            .map(|s| {
                if s.is_empty() {
                    root.clone()
                } else {
                    let n = format!("{root}{s}");
                    self.taken.insert(n.clone(), ());
                    n
                }
            })
            .collect();
        self.named.insert((owner, key), names.clone());
        Ok(names)
    }

    /// Component name suffixes of a value type: "" for a scalar, ".x" ... for vectors.
    fn suffixes(&self, ty: Handle<naga::Type>, at: String, out: &mut Vec<String>) -> Res<()> {
        let m = self.module;
        match &m.types[ty].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => {
                self.scalar(*s, naga::Span::default())?;
                out.push(at);
            }
            TypeInner::Vector { size, scalar } => {
                self.scalar(*scalar, naga::Span::default())?;
                for c in ["x", "y", "z", "w"].iter().take(*size as usize) {
                    out.push(format!("{at}.{c}"));
                }
            }
            TypeInner::Array {
                base,
                size: naga::ArraySize::Constant(n),
                ..
            } => {
                for i in 0..n.get() {
                    self.suffixes(*base, format!("{at}[{i}]"), out)?;
                }
            }
            TypeInner::Struct { members, .. } => {
                for (i, mb) in members.iter().enumerate() {
                    let name = mb.name.clone().unwrap_or_else(|| i.to_string());
                    self.suffixes(mb.ty, format!("{at}.{name}"), out)?;
                }
            }
            other => {
                return err(
                    naga::Span::default(),
                    format!("values of type {} are not supported", type_word(other)),
                )
            }
        }
        Ok(())
    }

    fn scalar(&self, s: naga::Scalar, at: naga::Span) -> Res<()> {
        scalar_ok(s).or_else(|m| err(at, m))
    }

    /// Number of 32-bit components of a value type.
    fn comps(&self, ty: Handle<naga::Type>) -> Res<usize> {
        let mut v = Vec::new();
        self.suffixes(ty, String::new(), &mut v)?;
        Ok(v.len())
    }

    fn comps_inner(&self, inner: &TypeInner, at: naga::Span) -> Res<usize> {
        Ok(match inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => {
                self.scalar(*s, at)?;
                1
            }
            TypeInner::Vector { size, scalar } => {
                self.scalar(*scalar, at)?;
                *size as usize
            }
            TypeInner::Array {
                base,
                size: naga::ArraySize::Constant(n),
                ..
            } => n.get() as usize * self.comps(*base)?,
            TypeInner::Struct { members, .. } => {
                let mut n = 0;
                for mb in members {
                    n += self.comps(mb.ty)?;
                }
                n
            }
            other => {
                return err(
                    at,
                    format!("values of type {} are not supported", type_word(other)),
                )
            }
        })
    }

    // ---- constants ---------------------------------------------------------------------

    /// A constant expression of the module (`const`, initialisers), flattened.
    fn const_expr(&self, h: Handle<Expression>, at: naga::Span) -> Res<Vec<u32>> {
        let m = self.module;
        Ok(match &m.global_expressions[h] {
            Expression::Literal(l) => vec![literal(*l, at)?],
            Expression::Constant(c) => self.const_expr(m.constants[*c].init, at)?,
            Expression::ZeroValue(ty) => vec![0; self.comps(*ty)?],
            Expression::Compose { components, .. } => {
                let mut v = Vec::new();
                for c in components {
                    v.extend(self.const_expr(*c, at)?);
                }
                v
            }
            Expression::Splat { size, value } => {
                let v = self.const_expr(*value, at)?;
                v.repeat(*size as usize)
            }
            other => {
                return err(
                    at,
                    format!(
                        "the constant expression {} is not supported",
                        expr_word(other)
                    ),
                )
            }
        })
    }

    // ---- functions ----------------------------------------------------------------------

    /// Inlines `func` with argument values `args`; returns its result components.
    fn call_function(
        &mut self,
        func: &'m Function,
        handle: Option<Handle<Function>>,
        args: Vec<Value>,
        result_name: Option<String>,
        tail: bool,
        at: naga::Span,
    ) -> Res<Vec<ast::Expr>> {
        if self.frames.len() > 64 {
            return err(at, "calls nest more than 64 deep");
        }
        let fname = func
            .name
            .clone()
            .unwrap_or_else(|| "fn".into())
            .split('(')
            .next()
            .unwrap_or("fn")
            .to_string();
        let prefix = if handle.is_none() || self.frames.is_empty() {
            String::new()
        } else {
            format!("{fname}.")
        };
        let ret_regs = match &func.result {
            Some(r) if !tail => {
                let base = result_name.unwrap_or_else(|| format!("{fname}.result"));
                self.register_names(&base, r.ty, 0, Owner::Ret(handle))?
            }
            _ => Vec::new(),
        };
        let early = has_early_return(&func.body);
        let ret = if tail {
            RetMode::Terminate
        } else if early {
            let flag = self.fresh(&format!("$returned.{fname}"));
            RetMode::Wrapped {
                regs: ret_regs.clone(),
                flag,
            }
        } else {
            RetMode::Tail {
                regs: ret_regs.clone(),
            }
        };
        let uses = count_uses(func);
        let mut frame = Frame {
            func,
            handle,
            prefix: prefix.clone(),
            cache: HashMap::new(),
            uses,
            args,
            locals: HashMap::new(),
            ret: ret.clone(),
            loop_depth: 0,
            returns_in_loops: 0,
        };
        // Locals: registers, (re)initialised at every call (WGSL zero-initialises them).
        let mut inits = Vec::new();
        for (lh, l) in func.local_variables.iter() {
            let base = format!(
                "{prefix}{}",
                l.name
                    .clone()
                    .unwrap_or_else(|| format!("local{}", lh.index()))
            );
            let regs = self.register_names(&base, l.ty, lh.index(), Owner::Local(handle))?;
            let lspan = func.local_variables.get_span(lh);
            inits.push((regs.clone(), l.init, lspan));
            frame.locals.insert(lh, regs);
        }
        // Registers start at 0: the first inlined call of a function outside any loop needs no
        // zero initialisation (no earlier call can have left values in its registers).
        let in_loop = self.frames.iter().any(|f| f.loop_depth > 0);
        let first_call = !in_loop && self.inlined.insert(handle);
        self.frames.push(frame);
        for (regs, init, lspan) in inits {
            let vals: Vec<ast::Expr> = match init {
                Some(e) => match self.get(e)? {
                    Value::Vals(v) => v,
                    Value::Ptr(_) => return err(lspan, "a pointer-valued local is not supported"),
                },
                None => regs.iter().map(|_| self.lit(0, lspan)).collect(),
            };
            for (r, v) in regs.iter().zip(vals) {
                // Registers start at 0: the entry point needs no zero initialisation.
                if first_call && matches!(v.kind, ExprKind::Lit(0)) {
                    continue;
                }
                self.push(
                    StmtKind::Assign {
                        reg: r.clone(),
                        value: v,
                    },
                    lspan,
                );
            }
        }
        match &ret {
            RetMode::Wrapped { flag, .. } => {
                let zero = self.lit(0, at);
                self.push(
                    StmtKind::Assign {
                        reg: flag.clone(),
                        value: zero,
                    },
                    at,
                );
                self.out.push(Vec::new());
                self.breakable.push(Breakable::Loop);
                self.block(&func.body)?;
                self.breakable.pop();
                let mut body = self.out.pop().expect("wrapper body");
                if !ends_in_jump(&body) {
                    body.push(Stmt {
                        kind: StmtKind::Break,
                        span: self.sp(at),
                        tags: Vec::new(),
                    });
                }
                self.push(
                    StmtKind::Loop {
                        body,
                        continuing: Vec::new(),
                    },
                    at,
                );
            }
            _ => self.block(&func.body)?,
        }
        self.frames.pop();
        Ok(ret_regs.iter().map(|r| self.reg(r, at)).collect())
    }

    fn reg(&self, name: &str, at: naga::Span) -> ast::Expr {
        ast::Expr {
            kind: ExprKind::Reg(name.to_string()),
            span: self.sp(at),
        }
    }

    // ---- statements ---------------------------------------------------------------------

    fn block(&mut self, block: &'m naga::Block) -> Res<()> {
        let n = block.len();
        for (i, (st, at)) in block.span_iter().enumerate() {
            let last = i + 1 == n;
            self.statement(st, *at, last, block)?;
        }
        Ok(())
    }

    fn statement(
        &mut self,
        st: &'m Statement,
        at: naga::Span,
        last_in_block: bool,
        block: &'m naga::Block,
    ) -> Res<()> {
        match st {
            Statement::Emit(range) => {
                for h in range.clone() {
                    self.emit_expr(h)?;
                }
            }
            Statement::Block(b) => self.block(b)?,
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let cond = self.scalar_value(*condition, at)?;
                let then_body = self.sub_block(accept)?;
                let else_body = self.sub_block(reject)?;
                self.push(
                    StmtKind::If {
                        cond,
                        then_body,
                        else_body,
                    },
                    at,
                );
            }
            Statement::Switch { selector, cases } => self.switch(*selector, cases, at)?,
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                let saved = self.enter_loop_like();
                self.breakable.push(Breakable::Loop);
                let body_s = self.sub_block(body)?;
                self.out.push(Vec::new());
                self.block(continuing)?;
                if let Some(c) = break_if {
                    let cond = self.scalar_value(*c, at)?;
                    self.push_break_if(cond, at);
                }
                let cont_s = self.out.pop().expect("continuing");
                self.breakable.pop();
                self.push(
                    StmtKind::Loop {
                        body: body_s,
                        continuing: cont_s,
                    },
                    at,
                );
                self.leave_loop_like(saved, at);
            }
            Statement::Break => match self.breakable.last() {
                Some(Breakable::Loop | Breakable::SwitchLoop) => self.push(StmtKind::Break, at),
                _ => {
                    return err(
                        at,
                        "`break` out of a `switch` before the end of its case is not supported",
                    )
                }
            },
            Statement::Continue => {
                let inner = self
                    .breakable
                    .iter()
                    .rev()
                    .find(|b| **b != Breakable::Switch);
                if inner == Some(&Breakable::SwitchLoop) {
                    return err(
                        at,
                        "`continue` inside a `switch` whose cases also `break` early is not supported",
                    );
                }
                self.push(StmtKind::Continue, at)
            }
            Statement::Return { value } => self.ret(*value, at, last_in_block, block)?,
            Statement::Kill => return err(at, "`discard` is not supported in compute shaders"),
            Statement::ControlBarrier(b) => {
                if b.intersects(naga::Barrier::WORK_GROUP | naga::Barrier::STORAGE) {
                    self.push(StmtKind::Barrier(BarrierScope::Workgroup), at);
                } else if b.contains(naga::Barrier::SUB_GROUP) {
                    self.push(StmtKind::Barrier(BarrierScope::Subgroup), at);
                }
            }
            // Memory is sequentially consistent in every model: a memory barrier orders nothing
            // more.
            Statement::MemoryBarrier(_) => {}
            Statement::Store { pointer, value } => {
                let place = self.place(*pointer, at)?;
                let vals = self.values(*value, at)?;
                self.store(place, vals, at)?;
            }
            Statement::Atomic {
                pointer,
                fun,
                value,
                result,
            } => self.atomic(*pointer, fun, *value, *result, at)?,
            Statement::WorkGroupUniformLoad { pointer, result } => {
                self.push(StmtKind::Barrier(BarrierScope::Workgroup), at);
                let place = self.place(*pointer, at)?;
                let v = self.load(place, at)?;
                self.push(StmtKind::Barrier(BarrierScope::Workgroup), at);
                self.frame().cache.insert(*result, Value::Vals(v));
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => self.call(*function, arguments, *result, at, last_in_block, block)?,
            Statement::SubgroupBallot { result, predicate } => {
                let p = match predicate {
                    Some(p) => self.scalar_value(*p, at)?,
                    None => self.lit(1, at),
                };
                let regs = self.result_regs(*result, 4, at)?;
                self.sgop_assign(&regs[0], SgOp::Ballot, vec![p.clone()], at);
                if self.dims.subgroup > 32 {
                    self.sgop_assign(&regs[1], SgOp::BallotHigh, vec![p], at);
                }
                let mut vals: Vec<ast::Expr> = vec![self.reg(&regs[0], at)];
                vals.push(if self.dims.subgroup > 32 {
                    self.reg(&regs[1], at)
                } else {
                    self.lit(0, at)
                });
                vals.push(self.lit(0, at));
                vals.push(self.lit(0, at));
                self.frame().cache.insert(*result, Value::Vals(vals));
            }
            Statement::SubgroupGather {
                mode,
                argument,
                result,
            } => {
                let (op, idx) = match mode {
                    naga::GatherMode::BroadcastFirst => (SgOp::BroadcastFirst, None),
                    naga::GatherMode::Broadcast(i) => (SgOp::Broadcast, Some(*i)),
                    naga::GatherMode::Shuffle(i) => (SgOp::Shuffle, Some(*i)),
                    naga::GatherMode::ShuffleDown(i) => (SgOp::ShuffleDown, Some(*i)),
                    naga::GatherMode::ShuffleUp(i) => (SgOp::ShuffleUp, Some(*i)),
                    naga::GatherMode::ShuffleXor(i) => (SgOp::ShuffleXor, Some(*i)),
                    naga::GatherMode::QuadBroadcast(_) | naga::GatherMode::QuadSwap(_) => {
                        return err(at, "quad operations are not supported")
                    }
                };
                let args = self.values(*argument, at)?;
                let idx = match idx {
                    Some(i) => Some(self.scalar_value(i, at)?),
                    None => None,
                };
                let regs = self.result_regs(*result, args.len(), at)?;
                let mut vals = Vec::new();
                for (r, a) in regs.iter().zip(args) {
                    let mut v = vec![a];
                    v.extend(idx.clone());
                    self.sgop_assign(r, op, v, at);
                    vals.push(self.reg(r, at));
                }
                self.frame().cache.insert(*result, Value::Vals(vals));
            }
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op,
                argument,
                result,
            } => {
                use naga::{CollectiveOperation as C, SubgroupOperation as O};
                let elect = *op == O::All
                    && at.to_range().is_some_and(|r| {
                        self.elects.contains(&(r.start + super::NAGA_SPV_SPAN_BIAS))
                    });
                if elect {
                    let regs = self.result_regs(*result, 1, at)?;
                    self.sgop_assign(&regs[0], SgOp::Elect, Vec::new(), at);
                    let v = self.reg(&regs[0], at);
                    self.frame().cache.insert(*result, Value::Vals(vec![v]));
                    return Ok(());
                }
                let signed = self.is_signed(*argument);
                let red = match op {
                    O::All | O::Any => None,
                    O::Add => Some(RedOp::Add),
                    O::Mul => Some(RedOp::Mul),
                    O::Min | O::Max if signed => {
                        return err(at, "signed subgroup min/max is not supported (use u32)")
                    }
                    O::Min => Some(RedOp::Min),
                    O::Max => Some(RedOp::Max),
                    O::And => Some(RedOp::And),
                    O::Or => Some(RedOp::Or),
                    O::Xor => Some(RedOp::Xor),
                };
                let sg = match (red, collective_op) {
                    (None, _) => {
                        if *op == O::All {
                            SgOp::All
                        } else {
                            SgOp::Any
                        }
                    }
                    (Some(r), C::Reduce) => SgOp::Reduce(r),
                    (Some(r), C::InclusiveScan) => SgOp::InclusiveScan(r),
                    (Some(r), C::ExclusiveScan) => SgOp::ExclusiveScan(r),
                };
                let args = self.values(*argument, at)?;
                let regs = self.result_regs(*result, args.len(), at)?;
                let mut vals = Vec::new();
                for (r, a) in regs.iter().zip(args) {
                    self.sgop_assign(r, sg, vec![a], at);
                    vals.push(self.reg(r, at));
                }
                self.frame().cache.insert(*result, Value::Vals(vals));
            }
            other => return err(at, format!("{} is not supported", stmt_word(other))),
        }
        Ok(())
    }

    fn sub_block(&mut self, b: &'m naga::Block) -> Res<Vec<Stmt>> {
        self.out.push(Vec::new());
        self.block(b)?;
        Ok(self.out.pop().expect("sub-block"))
    }

    fn sgop_assign(&mut self, reg: &str, op: SgOp, args: Vec<ast::Expr>, at: naga::Span) {
        self.protect(&[reg.to_string()], at);
        let span = self.sp(at);
        self.push(
            StmtKind::Assign {
                reg: reg.to_string(),
                value: ast::Expr {
                    kind: ExprKind::SgOp(op, args),
                    span,
                },
            },
            at,
        );
    }

    /// Registers for a statement's result expression: named after its `let`, else hidden.
    fn result_regs(
        &mut self,
        h: Handle<Expression>,
        n: usize,
        _at: naga::Span,
    ) -> Res<Vec<String>> {
        let f = self.frames.last().expect("frame");
        // naga names the value of `_ = e` "phony": not a name worth a register.
        if let Some(name) = f.func.named_expressions.get(&h).filter(|n| *n != "phony") {
            let base = format!("{}{name}", f.prefix);
            let key = (Owner::Named(f.handle), h.index());
            if let Some(v) = self.named.get(&key) {
                return Ok(v.clone());
            }
            let root = self.fresh(&base);
            let names: Vec<String> = if n == 1 {
                vec![root]
            } else {
                (0..n)
                    .map(|i| {
                        let s = format!(
                            "{root}.{}",
                            ["x", "y", "z", "w"].get(i).copied().unwrap_or("_")
                        );
                        self.taken.insert(s.clone(), ());
                        s
                    })
                    .collect()
            };
            self.named.insert(key, names.clone());
            return Ok(names);
        }
        Ok((0..n).map(|_| self.temp()).collect())
    }

    fn switch(
        &mut self,
        selector: Handle<Expression>,
        cases: &'m [naga::SwitchCase],
        at: naga::Span,
    ) -> Res<()> {
        let sel = self.scalar_value(selector, at)?;
        let sel = self.materialize(sel, at);
        // Cases as (values, body); a fall-through case with an empty body shares the next body.
        let mut groups: Vec<(Vec<Option<u32>>, &'m naga::Block)> = Vec::new();
        let mut pending: Vec<Option<u32>> = Vec::new();
        for c in cases {
            let v = match c.value {
                naga::SwitchValue::I32(i) => Some(i as u32),
                naga::SwitchValue::U32(u) => Some(u),
                naga::SwitchValue::Default => None,
            };
            pending.push(v);
            if c.fall_through {
                if !c.body.is_empty() {
                    return err(
                        at,
                        "a `switch` case that falls through into the next is not supported",
                    );
                }
                continue;
            }
            groups.push((std::mem::take(&mut pending), &c.body));
        }
        // A `break` inside a case (not its last statement): the chain goes inside a
        // one-iteration loop, so that `break` reaches the switch's merge.
        let wrapped = groups.iter().any(|(_, b)| early_break(b));
        if !wrapped {
            let chain = self.switch_chain(&sel, &groups, at)?;
            self.out.last_mut().expect("list").extend(chain);
            return Ok(());
        }
        let saved = self.enter_loop_like();
        self.breakable.push(Breakable::SwitchLoop);
        let chain = self.switch_chain(&sel, &groups, at);
        self.breakable.pop();
        let mut chain = chain?;
        chain.push(Stmt {
            kind: StmtKind::Break,
            span: self.sp(at),
            tags: Vec::new(),
        });
        self.push(
            StmtKind::Loop {
                body: chain,
                continuing: Vec::new(),
            },
            at,
        );
        self.leave_loop_like(saved, at);
        Ok(())
    }

    /// Entering a loop (or a switch lowered to one): returns this function's count of returns
    /// inside loops so far, for [`Self::leave_loop_like`].
    fn enter_loop_like(&mut self) -> u32 {
        let f = self.frame();
        f.loop_depth += 1;
        std::mem::take(&mut f.returns_in_loops)
    }

    /// After a loop: if a `return` inside it set the function's flag, leave the enclosing loop
    /// too (the next one checks again, up to the function's wrapper loop).
    fn leave_loop_like(&mut self, saved: u32, at: naga::Span) {
        let f = self.frame();
        f.loop_depth -= 1;
        let returned = f.returns_in_loops > 0;
        f.returns_in_loops += saved;
        if returned {
            if let RetMode::Wrapped { flag, .. } = f.ret.clone() {
                let cond = self.reg(&flag, at);
                self.push_break_if(cond, at);
            }
        }
    }

    /// `if (cond) { break; }`
    fn push_break_if(&mut self, cond: ast::Expr, at: naga::Span) {
        let brk = Stmt {
            kind: StmtKind::Break,
            span: self.sp(at),
            tags: Vec::new(),
        };
        self.push(
            StmtKind::If {
                cond,
                then_body: vec![brk],
                else_body: Vec::new(),
            },
            at,
        );
    }

    /// The cases as an if / else-if chain, the default arm last.
    fn switch_chain(
        &mut self,
        sel: &ast::Expr,
        groups: &[(Vec<Option<u32>>, &'m naga::Block)],
        at: naga::Span,
    ) -> Res<Vec<Stmt>> {
        let mut chain: Vec<Stmt> = Vec::new();
        let default = groups.iter().position(|(vs, _)| vs.contains(&None));
        let mut arms = Vec::new();
        for (i, (vs, body)) in groups.iter().enumerate() {
            let body_s = self.case_body(body)?;
            arms.push((i, vs.clone(), body_s));
        }
        if let Some(d) = default {
            chain = arms[d].2.clone();
        }
        for (i, vs, body) in arms.into_iter().rev() {
            if Some(i) == default {
                continue;
            }
            let mut cond: Option<ast::Expr> = None;
            for v in vs.into_iter().flatten() {
                let e = bin(BinOp::Eq, sel.clone(), self.lit(v, at));
                cond = Some(match cond {
                    None => e,
                    Some(c) => bin(BinOp::LOr, c, e),
                });
            }
            let Some(cond) = cond else { continue };
            chain = vec![Stmt {
                kind: StmtKind::If {
                    cond,
                    then_body: body,
                    else_body: chain,
                },
                span: self.sp(at),
                tags: Vec::new(),
            }];
        }
        Ok(chain)
    }

    /// A case body without its final `break` (which leaves the switch).
    fn case_body(&mut self, body: &'m naga::Block) -> Res<Vec<Stmt>> {
        if self.breakable.last() != Some(&Breakable::SwitchLoop) {
            self.breakable.push(Breakable::Switch);
        } else {
            self.breakable.push(Breakable::SwitchLoop);
        }
        self.out.push(Vec::new());
        let n = body.len();
        let r = (|| {
            for (i, (st, at)) in body.span_iter().enumerate() {
                if i + 1 == n && matches!(st, Statement::Break) {
                    break;
                }
                self.statement(st, *at, i + 1 == n, body)?;
            }
            Ok(())
        })();
        self.breakable.pop();
        let out = self.out.pop().expect("case body");
        r.map(|_| out)
    }

    fn ret(
        &mut self,
        value: Option<Handle<Expression>>,
        at: naga::Span,
        last_in_block: bool,
        block: &naga::Block,
    ) -> Res<()> {
        let mode = self.frame().ret.clone();
        match mode {
            RetMode::Terminate => {
                if let Some(v) = value {
                    self.values(v, at)?;
                }
                self.push(StmtKind::Return, at);
            }
            RetMode::Tail { regs } => {
                if let Some(v) = value {
                    let vals = self.values(v, at)?;
                    self.assign(&regs, vals, at);
                }
                let top = std::ptr::eq(block, &self.frame().func.body);
                if !(last_in_block && top) {
                    return err(
                        at,
                        "internal: an early return in a function lowered as tail",
                    );
                }
            }
            RetMode::Wrapped { regs, flag } => {
                if let Some(v) = value {
                    let vals = self.values(v, at)?;
                    self.assign(&regs, vals, at);
                }
                if self.frame().loop_depth > 0 {
                    let one = self.lit(1, at);
                    self.assign(&[flag], vec![one], at);
                    self.frame().returns_in_loops += 1;
                }
                self.push(StmtKind::Break, at);
            }
        }
        Ok(())
    }

    fn call(
        &mut self,
        function: Handle<Function>,
        arguments: &[Handle<Expression>],
        result: Option<Handle<Expression>>,
        at: naga::Span,
        last_in_block: bool,
        block: &naga::Block,
    ) -> Res<()> {
        let func = &self.module.functions[function];
        let mut args = Vec::new();
        for (i, a) in arguments.iter().enumerate() {
            match self.get(*a)? {
                Value::Ptr(p) => args.push(Value::Ptr(p)),
                Value::Vals(v) => {
                    // Parameters are registers: the callee may overwrite what the argument
                    // read.
                    let fa = &func.arguments[i];
                    let fname = func.name.clone().unwrap_or_default();
                    let fname = fname.split('(').next().unwrap_or("fn").to_string();
                    let base = format!(
                        "{fname}.{}",
                        fa.name.clone().unwrap_or_else(|| format!("arg{i}"))
                    );
                    let regs = self.register_names(&base, fa.ty, i, Owner::Arg(Some(function)))?;
                    self.assign(&regs, v, at);
                    args.push(Value::Vals(regs.iter().map(|r| self.reg(r, at)).collect()));
                }
            }
        }
        // A call nothing follows in a function whose returns end the thread: its returns end
        // the thread too.
        let top = std::ptr::eq(block, &self.frame().func.body);
        let tail = matches!(self.frame().ret, RetMode::Terminate)
            && top
            && result.is_none()
            && (last_in_block || block_rest_is_return(block, at));
        let name = result.and_then(|r| {
            let f = self.frames.last().expect("frame");
            f.func
                .named_expressions
                .get(&r)
                .map(|n| format!("{}{n}", f.prefix))
        });
        let vals = self.call_function(func, Some(function), args, name, tail, at)?;
        if let Some(r) = result {
            self.frame().cache.insert(r, Value::Vals(vals));
        }
        Ok(())
    }

    fn atomic(
        &mut self,
        pointer: Handle<Expression>,
        fun: &naga::AtomicFunction,
        value: Handle<Expression>,
        result: Option<Handle<Expression>>,
        at: naga::Span,
    ) -> Res<()> {
        use naga::AtomicFunction as F;
        let signed = self.is_signed(value);
        let place = self.place(pointer, at)?;
        let Place::Mem { global, offset, .. } = place else {
            return err(at, "an atomic on a non-memory variable is not supported");
        };
        let v = self.scalar_value(value, at)?;
        let (op, args) = match fun {
            F::Add => (AtomicOp::Add, vec![v]),
            F::Subtract => (AtomicOp::Sub, vec![v]),
            F::And => (AtomicOp::And, vec![v]),
            F::ExclusiveOr => (AtomicOp::Xor, vec![v]),
            F::InclusiveOr => (AtomicOp::Or, vec![v]),
            F::Min | F::Max if signed => {
                return err(at, "signed atomic min/max is not supported (use u32)")
            }
            F::Min => (AtomicOp::Min, vec![v]),
            F::Max => (AtomicOp::Max, vec![v]),
            F::Exchange { compare: None } => (AtomicOp::Exchange, vec![v]),
            F::Exchange { compare: Some(c) } => {
                let c = self.scalar_value(*c, at)?;
                (AtomicOp::CompSwap, vec![c, v])
            }
        };
        let reg = match result {
            Some(r) => Some(self.result_regs(r, 1, at)?.remove(0)),
            None => None,
        };
        if let Some(r) = &reg {
            self.protect(std::slice::from_ref(r), at);
        }
        let cmp = if op == AtomicOp::CompSwap {
            Some(args[0].clone())
        } else {
            None
        };
        self.push(
            StmtKind::Atomic {
                reg: reg.clone(),
                op,
                global,
                index: Some(offset),
                args,
            },
            at,
        );
        if let (Some(r), Some(res)) = (reg, result) {
            let old = self.reg(&r, at);
            let mut vals = vec![old.clone()];
            if let Some(c) = cmp {
                // `atomicCompareExchangeWeak` returns (old_value, exchanged).
                vals.push(bin(BinOp::Eq, old, c));
            }
            self.frame().cache.insert(res, Value::Vals(vals));
        }
        Ok(())
    }

    // ---- places: loads and stores -------------------------------------------------------

    fn place(&mut self, h: Handle<Expression>, at: naga::Span) -> Res<Place> {
        match self.get(h)? {
            Value::Ptr(p) => Ok(p),
            Value::Vals(_) => err(at, "expected a pointer"),
        }
    }

    fn load(&mut self, place: Place, at: naga::Span) -> Res<Vec<ast::Expr>> {
        match place {
            Place::Regs(regs, _) => Ok(regs.iter().map(|r| self.reg(r, at)).collect()),
            Place::Mem { global, offset, ty } => {
                let n = self.mem_comps(ty, at)?;
                let mut out = Vec::new();
                for k in 0..n {
                    let t = self.temp();
                    let index = add(offset.clone(), self.lit(k as u32, at));
                    self.push(
                        StmtKind::Load {
                            reg: t.clone(),
                            global: global.clone(),
                            index: Some(index),
                        },
                        at,
                    );
                    out.push(self.reg(&t, at));
                }
                Ok(out)
            }
        }
    }

    fn store(&mut self, place: Place, vals: Vec<ast::Expr>, at: naga::Span) -> Res<()> {
        match place {
            Place::Regs(regs, _) => {
                if regs.len() != vals.len() {
                    return err(at, "internal: component count mismatch in a store");
                }
                self.assign(&regs, vals, at);
            }
            Place::Mem { global, offset, ty } => {
                let n = self.mem_comps(ty, at)?;
                if n != vals.len() {
                    return err(
                        at,
                        "storing a whole array or structure to memory is not supported",
                    );
                }
                for (k, v) in vals.into_iter().enumerate() {
                    let index = add(offset.clone(), self.lit(k as u32, at));
                    self.push(
                        StmtKind::Store {
                            global: global.clone(),
                            index: Some(index),
                            value: v,
                        },
                        at,
                    );
                }
            }
        }
        Ok(())
    }

    /// Words of a loaded or stored memory type: scalars and vectors only.
    fn mem_comps(&self, ty: Handle<naga::Type>, at: naga::Span) -> Res<usize> {
        match &self.module.types[ty].inner {
            t @ (TypeInner::Scalar(_) | TypeInner::Atomic(_) | TypeInner::Vector { .. }) => {
                self.comps_inner(t, at)
            }
            _ => err(
                at,
                "loading or storing a whole array or structure in memory is not supported",
            ),
        }
    }

    /// Assigns registers, first saving any pending value that reads them.
    fn assign(&mut self, regs: &[String], vals: Vec<ast::Expr>, at: naga::Span) {
        self.protect(regs, at);
        for (r, v) in regs.iter().zip(vals) {
            if matches!(&v.kind, ExprKind::Reg(x) if x == r) {
                continue;
            }
            self.push(
                StmtKind::Assign {
                    reg: r.clone(),
                    value: v,
                },
                at,
            );
        }
    }

    /// Before `regs` are written: every cached value still to be used that reads one of them
    /// is copied into a hidden register, so it keeps the value it had where it was evaluated.
    fn protect(&mut self, regs: &[String], at: naga::Span) {
        let mut todo: Vec<(usize, Handle<Expression>)> = Vec::new();
        for (fi, f) in self.frames.iter().enumerate() {
            for (h, v) in &f.cache {
                if f.uses[h.index()] == 0 {
                    continue;
                }
                let reads = match v {
                    Value::Vals(vs) => vs.iter().any(|e| mentions(e, regs)),
                    Value::Ptr(Place::Mem { offset, .. }) => mentions(offset, regs),
                    Value::Ptr(Place::Regs(..)) => false,
                };
                if reads {
                    todo.push((fi, *h));
                }
            }
        }
        todo.sort_by_key(|(f, h)| (*f, h.index()));
        for (fi, h) in todo {
            let v = self.frames[fi].cache[&h].clone();
            let nv = match v {
                Value::Vals(vs) => Value::Vals(
                    vs.into_iter()
                        .map(|e| {
                            if mentions(&e, regs) {
                                self.copy_to_temp(e, at)
                            } else {
                                e
                            }
                        })
                        .collect(),
                ),
                Value::Ptr(Place::Mem { global, offset, ty }) => Value::Ptr(Place::Mem {
                    global,
                    offset: self.copy_to_temp(offset, at),
                    ty,
                }),
                other => other,
            };
            self.frames[fi].cache.insert(h, nv);
        }
    }

    fn copy_to_temp(&mut self, e: ast::Expr, at: naga::Span) -> ast::Expr {
        let t = self.temp();
        self.push(
            StmtKind::Assign {
                reg: t.clone(),
                value: e,
            },
            at,
        );
        self.reg(&t, at)
    }

    /// A value worth a register (anything but a literal, register or built-in).
    fn materialize(&mut self, e: ast::Expr, at: naga::Span) -> ast::Expr {
        match e.kind {
            ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_) => e,
            _ => self.copy_to_temp(e, at),
        }
    }

    // ---- expressions --------------------------------------------------------------------

    /// The value of `h` for one use.
    fn get(&mut self, h: Handle<Expression>) -> Res<Value> {
        let f = self.frame();
        f.uses[h.index()] = f.uses[h.index()].saturating_sub(1);
        if let Some(v) = f.cache.get(&h) {
            return Ok(v.clone());
        }
        let v = self.compute(h)?;
        self.frame().cache.insert(h, v.clone());
        Ok(v)
    }

    /// Evaluates an expression where its `Emit` stands.
    fn emit_expr(&mut self, h: Handle<Expression>) -> Res<()> {
        if self.frame().cache.contains_key(&h) {
            return Ok(());
        }
        if let Some(v) = self.dead_load(h)? {
            self.frame().cache.insert(h, v);
            return Ok(());
        }
        let mut v = self.compute(h)?;
        let (named, uses) = {
            let f = self.frames.last().expect("frame");
            let named = f
                .func
                .named_expressions
                .get(&h)
                .is_some_and(|n| n != "phony");
            (named, f.uses[h.index()])
        };
        let at = self.expr_span(h);
        if let Value::Vals(vs) = &v {
            let trivial = vs.iter().all(|e| {
                matches!(
                    e.kind,
                    ExprKind::Lit(_) | ExprKind::Reg(_) | ExprKind::Builtin(_)
                )
            });
            if !trivial && (named || uses > 1) {
                let regs = self.result_regs(h, vs.len(), at)?;
                let vals = vs.clone();
                self.assign(&regs, vals, at);
                v = Value::Vals(regs.iter().map(|r| self.reg(r, at)).collect());
            }
        }
        self.frame().cache.insert(h, v);
        Ok(())
    }

    /// A memory load nothing uses, at a constant address inside its buffer (WGSL's phony
    /// `_ = buf[0];`, which only marks the binding as used): it reads nothing any execution
    /// could observe, so it is not lowered (decisions.md, "Shaders"). Its pointer is still
    /// consumed. `None` for every other expression.
    fn dead_load(&mut self, h: Handle<Expression>) -> Res<Option<Value>> {
        let f = self.frames.last().expect("frame");
        let Expression::Load { pointer } = f.func.expressions[h] else {
            return Ok(None);
        };
        // naga names the value of `_ = e` "phony".
        let phony = f
            .func
            .named_expressions
            .get(&h)
            .is_none_or(|n| n == "phony");
        if f.uses[h.index()] > 0 || !phony {
            return Ok(None);
        }
        let at = f.func.expressions.get_span(h);
        let Place::Mem { global, offset, ty } = self.place(pointer, at)? else {
            return Ok(None);
        };
        let n = self.mem_comps(ty, at)?;
        let inside = match offset.kind {
            ExprKind::Lit(o) => self
                .slots
                .values()
                .find_map(|s| match s {
                    Slot::Mem(b) if b.name == global => b.words,
                    _ => None,
                })
                .is_some_and(|w| (o as u64 + n as u64) <= w as u64),
            _ => false,
        };
        if !inside {
            // Not provably harmless (its address may be out of bounds): lowered as it is.
            return Ok(None);
        }
        Ok(Some(Value::Vals((0..n).map(|_| self.lit(0, at)).collect())))
    }

    fn expr_span(&self, h: Handle<Expression>) -> naga::Span {
        self.frames
            .last()
            .expect("frame")
            .func
            .expressions
            .get_span(h)
    }

    fn ty_of(&self, h: Handle<Expression>) -> &'m TypeInner {
        let f = self.frames.last().expect("frame");
        let finfo = match f.handle {
            Some(fh) => &self.info[fh],
            None => self
                .module
                .entry_points
                .iter()
                .position(|ep| std::ptr::eq(&ep.function, f.func))
                .map(|i| self.info.get_entry_point(i))
                .expect("the entry point"),
        };
        finfo[h].ty.inner_with(&self.module.types)
    }

    fn is_signed(&self, h: Handle<Expression>) -> bool {
        self.ty_of(h).scalar_kind() == Some(ScalarKind::Sint)
    }

    fn values(&mut self, h: Handle<Expression>, at: naga::Span) -> Res<Vec<ast::Expr>> {
        match self.get(h)? {
            Value::Vals(v) => Ok(v),
            Value::Ptr(_) => err(at, "expected a value, found a pointer"),
        }
    }

    fn scalar_value(&mut self, h: Handle<Expression>, at: naga::Span) -> Res<ast::Expr> {
        let mut v = self.values(h, at)?;
        if v.len() != 1 {
            return err(at, "expected a scalar");
        }
        Ok(v.remove(0))
    }

    fn compute(&mut self, h: Handle<Expression>) -> Res<Value> {
        let func = self.frames.last().expect("frame").func;
        let at = func.expressions.get_span(h);
        let e = &func.expressions[h];
        let m = self.module;
        Ok(match e {
            Expression::Literal(l) => Value::Vals(vec![self.lit(literal(*l, at)?, at)]),
            Expression::Constant(c) => {
                let v = self.const_expr(m.constants[*c].init, at)?;
                Value::Vals(v.into_iter().map(|x| self.lit(x, at)).collect())
            }
            Expression::ZeroValue(ty) => {
                let n = self.comps(*ty).or_else(|e| err(at, e.message))?;
                Value::Vals((0..n).map(|_| self.lit(0, at)).collect())
            }
            Expression::Compose { components, .. } => {
                let mut v = Vec::new();
                for c in components {
                    v.extend(self.values(*c, at)?);
                }
                Value::Vals(v)
            }
            Expression::Splat { size, value } => {
                let v = self.scalar_value(*value, at)?;
                Value::Vals(vec![v; *size as usize])
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let v = self.values(*vector, at)?;
                Value::Vals(
                    pattern[..*size as usize]
                        .iter()
                        .map(|c| v[*c as usize].clone())
                        .collect(),
                )
            }
            Expression::AccessIndex { base, index } => {
                let bty = self.ty_of(*base);
                match self.get(*base)? {
                    Value::Ptr(p) => Value::Ptr(self.index_place(p, Index::Const(*index), at)?),
                    Value::Vals(v) => {
                        let (start, n) = self.component_range(bty, *index, at)?;
                        Value::Vals(v[start..start + n].to_vec())
                    }
                }
            }
            Expression::Access { base, index } => {
                let bty = self.ty_of(*base);
                let b = self.get(*base)?;
                let i = self.scalar_value(*index, at)?;
                match b {
                    Value::Ptr(p) => Value::Ptr(self.index_place(p, Index::Dyn(i), at)?),
                    Value::Vals(v) => {
                        if let ExprKind::Lit(k) = i.kind {
                            let (start, n) = self.component_range(bty, k, at)?;
                            Value::Vals(v[start..start + n].to_vec())
                        } else if matches!(bty, TypeInner::Vector { .. }) {
                            // A dynamically indexed vector value: pick the component by `?:`.
                            let mut acc = v[v.len() - 1].clone();
                            for k in (0..v.len() - 1).rev() {
                                let c = bin(BinOp::Eq, i.clone(), self.lit(k as u32, at));
                                acc = tern(c, v[k].clone(), acc);
                            }
                            Value::Vals(vec![acc])
                        } else {
                            return err(at, "indexing an array value with a non-constant index is not supported");
                        }
                    }
                }
            }
            Expression::FunctionArgument(i) => {
                let f = self.frames.last().expect("frame");
                if f.handle.is_none() && self.frames.len() == 1 {
                    // Entry point arguments are built-ins.
                    let arg = &f.func.arguments[*i as usize];
                    self.builtin_arg(arg, at)?
                } else {
                    f.args[*i as usize].clone()
                }
            }
            Expression::GlobalVariable(g) => match self.slots.get(g) {
                Some(Slot::Regs(r)) => {
                    Value::Ptr(Place::Regs(r.clone(), m.global_variables[*g].ty))
                }
                Some(Slot::Mem(b)) => {
                    let offset = if b.space == Space::Workgroup && self.dims.workgroups > 1 {
                        let words = b.words.unwrap_or(0);
                        bin(
                            BinOp::Mul,
                            ast::Expr {
                                kind: ExprKind::Builtin(Builtin::Wgid),
                                span: self.sp(at),
                            },
                            self.lit(words, at),
                        )
                    } else {
                        self.lit(0, at)
                    };
                    Value::Ptr(Place::Mem {
                        global: b.name.clone(),
                        offset,
                        ty: m.global_variables[*g].ty,
                    })
                }
                None => return err(at, "this kind of global variable is not supported"),
            },
            Expression::LocalVariable(l) => {
                let f = self.frames.last().expect("frame");
                let regs = f.locals[l].clone();
                Value::Ptr(Place::Regs(regs, f.func.local_variables[*l].ty))
            }
            Expression::Load { pointer } => {
                let p = self.place(*pointer, at)?;
                Value::Vals(self.load(p, at)?)
            }
            Expression::Unary { op, expr } => {
                let is_bool = self.ty_of(*expr).scalar_kind() == Some(ScalarKind::Bool);
                let v = self.values(*expr, at)?;
                let u = match op {
                    UnaryOperator::Negate => UnOp::Neg,
                    UnaryOperator::LogicalNot => UnOp::Not,
                    UnaryOperator::BitwiseNot if is_bool => UnOp::Not,
                    UnaryOperator::BitwiseNot => UnOp::BitNot,
                };
                Value::Vals(v.into_iter().map(|a| un(u, a)).collect())
            }
            Expression::Binary { op, left, right } => {
                let signed = self.is_signed(*left);
                let l = self.values(*left, at)?;
                let r = self.values(*right, at)?;
                let n = l.len().max(r.len());
                let pick =
                    |v: &Vec<ast::Expr>, k: usize| v[if v.len() == 1 { 0 } else { k }].clone();
                let mut out = Vec::new();
                for k in 0..n {
                    out.push(self.binary(*op, pick(&l, k), pick(&r, k), signed, at)?);
                }
                Value::Vals(out)
            }
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let c = self.values(*condition, at)?;
                let a = self.values(*accept, at)?;
                let r = self.values(*reject, at)?;
                let pick =
                    |v: &Vec<ast::Expr>, k: usize| v[if v.len() == 1 { 0 } else { k }].clone();
                Value::Vals(
                    (0..a.len())
                        .map(|k| tern(pick(&c, k), a[k].clone(), r[k].clone()))
                        .collect(),
                )
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3: _,
            } => {
                let signed = self.is_signed(*arg);
                let a = self.values(*arg, at)?;
                let b = match arg1 {
                    Some(x) => Some(self.values(*x, at)?),
                    None => None,
                };
                let c = match arg2 {
                    Some(x) => Some(self.values(*x, at)?),
                    None => None,
                };
                let pick = |v: &Option<Vec<ast::Expr>>, k: usize| {
                    v.as_ref()
                        .map(|v| v[if v.len() == 1 { 0 } else { k }].clone())
                };
                let mut out = Vec::new();
                for (k, ak) in a.iter().enumerate() {
                    out.push(self.math(*fun, ak.clone(), pick(&b, k), pick(&c, k), signed, at)?);
                }
                Value::Vals(out)
            }
            Expression::As {
                expr,
                kind,
                convert,
            } => {
                let from = self.ty_of(*expr).scalar_kind();
                let v = self.values(*expr, at)?;
                match (from, kind, convert) {
                    (Some(ScalarKind::Float), _, _) | (_, ScalarKind::Float, _) => {
                        return err(at, "floating-point conversions are not supported")
                    }
                    (_, ScalarKind::Bool, Some(_)) => Value::Vals(
                        v.into_iter()
                            .map(|x| bin(BinOp::Ne, x, self.lit(0, at)))
                            .collect(),
                    ),
                    _ => Value::Vals(v),
                }
            }
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. } => {
                return err(at, "internal: a result used before its statement")
            }
            Expression::Relational { fun, argument } => {
                let v = self.values(*argument, at)?;
                let op = match fun {
                    naga::RelationalFunction::All => BinOp::LAnd,
                    naga::RelationalFunction::Any => BinOp::LOr,
                    other => return err(at, format!("`{other:?}` is not supported")),
                };
                let mut it = v.into_iter();
                let first = it.next().unwrap_or_else(|| self.lit(0, at));
                Value::Vals(vec![it.fold(first, |acc, x| bin(op, acc, x))])
            }
            Expression::ArrayLength(_) => return err(at, "`arrayLength` is not supported yet"),
            other => return err(at, format!("{} is not supported", expr_word(other))),
        })
    }

    fn builtin_arg(&self, arg: &naga::FunctionArgument, at: naga::Span) -> Res<Value> {
        match &arg.binding {
            Some(naga::Binding::BuiltIn(b)) => Ok(Value::Vals(self.builtin(*b, at)?)),
            None => {
                // A structure of built-ins.
                if let TypeInner::Struct { members, .. } = &self.module.types[arg.ty].inner {
                    let mut v = Vec::new();
                    for mb in members {
                        match &mb.binding {
                            Some(naga::Binding::BuiltIn(b)) => v.extend(self.builtin(*b, at)?),
                            _ => {
                                return err(
                                    at,
                                    "entry point inputs other than built-ins are not supported",
                                )
                            }
                        }
                    }
                    return Ok(Value::Vals(v));
                }
                err(
                    at,
                    "entry point inputs other than built-ins are not supported",
                )
            }
            Some(_) => err(
                at,
                "entry point inputs other than built-ins are not supported",
            ),
        }
    }

    fn builtin(&self, b: naga::BuiltIn, at: naga::Span) -> Res<Vec<ast::Expr>> {
        use naga::BuiltIn as B;
        let bi = |x: Builtin| ast::Expr {
            kind: ExprKind::Builtin(x),
            span: self.sp(at),
        };
        let [x, y, _z] = self.dims.workgroup;
        let lid = bi(Builtin::Lid);
        // Local id in three dimensions, from the flat index.
        let local3 = vec![
            bin(BinOp::Rem, lid.clone(), self.lit(x, at)),
            bin(
                BinOp::Rem,
                bin(BinOp::Div, lid.clone(), self.lit(x, at)),
                self.lit(y, at),
            ),
            bin(BinOp::Div, lid.clone(), self.lit(x * y, at)),
        ];
        Ok(match b {
            B::LocalInvocationIndex => vec![lid],
            B::LocalInvocationId => local3,
            B::GlobalInvocationId => {
                let mut g = local3;
                g[0] = add(
                    bin(BinOp::Mul, bi(Builtin::Wgid), self.lit(x, at)),
                    g[0].clone(),
                );
                g
            }
            B::WorkGroupId => vec![bi(Builtin::Wgid), self.lit(0, at), self.lit(0, at)],
            B::NumWorkGroups => vec![
                self.lit(self.dims.workgroups, at),
                self.lit(1, at),
                self.lit(1, at),
            ],
            B::WorkGroupSize => self
                .dims
                .workgroup
                .iter()
                .map(|v| self.lit(*v, at))
                .collect(),
            B::SubgroupInvocationId => vec![bi(Builtin::Lane)],
            B::SubgroupSize => vec![bi(Builtin::Sgsize)],
            B::SubgroupId => vec![bi(Builtin::Sgid)],
            B::NumSubgroups => vec![self.lit(self.dims.invocations() / self.dims.subgroup, at)],
            other => return err(at, format!("the built-in {other:?} is not supported")),
        })
    }

    /// Which flattened components of a value of type `ty` index `i` selects.
    fn component_range(&self, ty: &TypeInner, i: u32, at: naga::Span) -> Res<(usize, usize)> {
        Ok(match ty {
            TypeInner::Vector { .. } => (i as usize, 1),
            TypeInner::Array { base, .. } => {
                let n = self.comps(*base)?;
                (i as usize * n, n)
            }
            TypeInner::Struct { members, .. } => {
                let mut start = 0;
                for mb in &members[..i as usize] {
                    start += self.comps(mb.ty)?;
                }
                (start, self.comps(members[i as usize].ty)?)
            }
            TypeInner::Pointer { base, .. } => {
                return self.component_range(&self.module.types[*base].inner, i, at)
            }
            _ => return err(at, "indexing this value is not supported"),
        })
    }

    fn index_place(&self, p: Place, i: Index, at: naga::Span) -> Res<Place> {
        let m = self.module;
        match p {
            Place::Regs(regs, ty) => {
                let k = match i {
                    Index::Const(k) => k,
                    Index::Dyn(e) => match e.kind {
                        ExprKind::Lit(k) => k,
                        _ => {
                            return err(
                                at,
                                "indexing a function-local array or vector with a non-constant index is not supported",
                            )
                        }
                    },
                };
                let inner = &m.types[ty].inner;
                let (start, n) = self.component_range(inner, k, at)?;
                if start + n > regs.len() {
                    return err(at, "index out of bounds");
                }
                let elem = match inner {
                    TypeInner::Vector { scalar, .. } => self.scalar_type(*scalar, at)?,
                    TypeInner::Array { base, .. } => *base,
                    TypeInner::Struct { members, .. } => members[k as usize].ty,
                    _ => return err(at, "indexing this value is not supported"),
                };
                Ok(Place::Regs(regs[start..start + n].to_vec(), elem))
            }
            Place::Mem { global, offset, ty } => {
                let (step, extra, elem) = match &m.types[ty].inner {
                    TypeInner::Array { base, stride, .. } => (stride / 4, 0, *base),
                    TypeInner::Vector { scalar, .. } => (1, 0, self.scalar_type(*scalar, at)?),
                    TypeInner::Struct { members, .. } => {
                        let Index::Const(k) = i else {
                            return err(at, "internal: dynamic struct index");
                        };
                        let mb = &members[k as usize];
                        return Ok(Place::Mem {
                            global,
                            offset: add(offset, self.lit(mb.offset / 4, at)),
                            ty: mb.ty,
                        });
                    }
                    _ => return err(at, "indexing this memory is not supported"),
                };
                let idx = match i {
                    Index::Const(k) => self.lit(k * step + extra, at),
                    Index::Dyn(e) => {
                        if step == 1 {
                            e
                        } else {
                            bin(BinOp::Mul, e, self.lit(step, at))
                        }
                    }
                };
                Ok(Place::Mem {
                    global,
                    offset: add(offset, idx),
                    ty: elem,
                })
            }
        }
    }

    /// The type handle of a scalar (a vector's component), found in the module's arena.
    fn scalar_type(&self, s: naga::Scalar, at: naga::Span) -> Res<Handle<naga::Type>> {
        self.module
            .types
            .iter()
            .find(|(_, t)| t.inner == TypeInner::Scalar(s))
            .map(|(h, _)| h)
            .map_or_else(
                || err(at, "internal: no scalar type for a vector component"),
                Ok,
            )
    }

    fn binary(
        &self,
        op: BinaryOperator,
        a: ast::Expr,
        b: ast::Expr,
        signed: bool,
        at: naga::Span,
    ) -> Res<ast::Expr> {
        use BinaryOperator as O;
        let flip = |e: ast::Expr| bin(BinOp::BitXor, e, self.lit(0x8000_0000, at));
        let nonzero = |e: ast::Expr| {
            // WGSL: x / 0 == x and x % 0 == 0 for integers; dividing by 1 gives both.
            let z = bin(BinOp::Eq, e.clone(), self.lit(0, at));
            tern(z, self.lit(1, at), e)
        };
        let shift = |e: ast::Expr| bin(BinOp::BitAnd, e, self.lit(31, at));
        Ok(match op {
            O::Add => bin(BinOp::Add, a, b),
            O::Subtract => bin(BinOp::Sub, a, b),
            O::Multiply => bin(BinOp::Mul, a, b),
            O::Divide | O::Modulo if signed => {
                return err(
                    at,
                    "signed division and remainder are not supported (use u32)",
                )
            }
            O::Divide => bin(BinOp::Div, a, nonzero(b)),
            O::Modulo => bin(BinOp::Rem, a, nonzero(b)),
            O::Equal => bin(BinOp::Eq, a, b),
            O::NotEqual => bin(BinOp::Ne, a, b),
            O::Less | O::LessEqual | O::Greater | O::GreaterEqual => {
                let o = match op {
                    O::Less => BinOp::Lt,
                    O::LessEqual => BinOp::Le,
                    O::Greater => BinOp::Gt,
                    _ => BinOp::Ge,
                };
                if signed {
                    bin(o, flip(a), flip(b))
                } else {
                    bin(o, a, b)
                }
            }
            O::And => bin(BinOp::BitAnd, a, b),
            O::InclusiveOr => bin(BinOp::BitOr, a, b),
            O::ExclusiveOr => bin(BinOp::BitXor, a, b),
            O::LogicalAnd => bin(BinOp::LAnd, a, b),
            O::LogicalOr => bin(BinOp::LOr, a, b),
            O::ShiftLeft => bin(BinOp::Shl, a, shift(b)),
            O::ShiftRight if signed => {
                // Arithmetic shift: the logical shift, with the sign filled in from the top.
                let s = shift(b);
                let logical = bin(BinOp::Shr, a.clone(), s.clone());
                let sign = bin(
                    BinOp::Sub,
                    self.lit(0, at),
                    bin(BinOp::Shr, a, self.lit(31, at)),
                );
                let fill = un(UnOp::BitNot, bin(BinOp::Shr, self.lit(u32::MAX, at), s));
                bin(BinOp::BitOr, logical, bin(BinOp::BitAnd, sign, fill))
            }
            O::ShiftRight => bin(BinOp::Shr, a, shift(b)),
        })
    }

    fn math(
        &self,
        fun: MathFunction,
        a: ast::Expr,
        b: Option<ast::Expr>,
        c: Option<ast::Expr>,
        signed: bool,
        at: naga::Span,
    ) -> Res<ast::Expr> {
        use MathFunction as M;
        let call = |f: LocalFn, args: Vec<ast::Expr>| ast::Expr {
            kind: ExprKind::Call(f, args),
            span: self.sp(at),
        };
        let flip = |e: ast::Expr| bin(BinOp::BitXor, e, self.lit(0x8000_0000, at));
        let lt = |x: ast::Expr, y: ast::Expr| {
            if signed {
                bin(BinOp::Lt, flip(x), flip(y))
            } else {
                bin(BinOp::Lt, x, y)
            }
        };
        let min = |x: ast::Expr, y: ast::Expr| tern(lt(x.clone(), y.clone()), x, y);
        let max = |x: ast::Expr, y: ast::Expr| tern(lt(x.clone(), y.clone()), y, x);
        let need = |o: Option<ast::Expr>| o.ok_or(());
        let missing = || LowerError {
            span: at,
            message: "internal: a math function without its arguments".into(),
        };
        Ok(match fun {
            M::Min => min(a, need(b).map_err(|_| missing())?),
            M::Max => max(a, need(b).map_err(|_| missing())?),
            M::Clamp => {
                let lo = need(b).map_err(|_| missing())?;
                let hi = need(c).map_err(|_| missing())?;
                min(max(a, lo), hi)
            }
            M::Abs if signed => {
                let neg = bin(
                    BinOp::Ne,
                    bin(BinOp::Shr, a.clone(), self.lit(31, at)),
                    self.lit(0, at),
                );
                tern(neg, un(UnOp::Neg, a.clone()), a)
            }
            M::Abs => a,
            M::CountOneBits => call(LocalFn::BallotBitCount, vec![a]),
            M::FirstTrailingBit => call(LocalFn::BallotFindLsb, vec![a]),
            M::FirstLeadingBit if !signed => call(LocalFn::BallotFindMsb, vec![a]),
            M::CountTrailingZeros => {
                let z = bin(BinOp::Eq, a.clone(), self.lit(0, at));
                tern(z, self.lit(32, at), call(LocalFn::BallotFindLsb, vec![a]))
            }
            M::CountLeadingZeros => {
                let z = bin(BinOp::Eq, a.clone(), self.lit(0, at));
                let msb = call(LocalFn::BallotFindMsb, vec![a]);
                tern(z, self.lit(32, at), bin(BinOp::Sub, self.lit(31, at), msb))
            }
            M::ExtractBits if !signed => {
                // (e >> offset) & ((1 << count) - 1), with shifts of 32 or more giving 0:
                // exactly WGSL's clamping of offset and count.
                let off = need(b).map_err(|_| missing())?;
                let cnt = need(c).map_err(|_| missing())?;
                let mask = bin(
                    BinOp::Sub,
                    bin(BinOp::Shl, self.lit(1, at), cnt),
                    self.lit(1, at),
                );
                bin(BinOp::BitAnd, bin(BinOp::Shr, a, off), mask)
            }
            other => {
                let s = if signed { " on i32" } else { "" };
                return err(
                    at,
                    format!("the built-in function {other:?}{s} is not supported"),
                );
            }
        })
    }
}

enum Index {
    Const(u32),
    Dyn(ast::Expr),
}

fn literal(l: Literal, at: naga::Span) -> Res<u32> {
    Ok(match l {
        Literal::U32(v) => v,
        Literal::I32(v) => v as u32,
        Literal::Bool(b) => b as u32,
        Literal::AbstractInt(v) => v as u32,
        Literal::U16(v) => v as u32,
        Literal::I16(v) => v as i32 as u32,
        Literal::F64(_) | Literal::F32(_) | Literal::F16(_) | Literal::AbstractFloat(_) => {
            return err(
                at,
                "floating-point values are not supported (only u32, i32 and bool)",
            )
        }
        Literal::U64(_) | Literal::I64(_) => {
            return err(
                at,
                "64-bit integers are not supported (only u32, i32 and bool)",
            )
        }
    })
}

fn span0() -> Span {
    Span::default()
}

fn bin(op: BinOp, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    let span = if a.span == span0() { b.span } else { a.span };
    ast::Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// `a + b`, folding `+ 0`.
fn add(a: ast::Expr, b: ast::Expr) -> ast::Expr {
    match (&a.kind, &b.kind) {
        (ExprKind::Lit(0), _) => b,
        (_, ExprKind::Lit(0)) => a,
        (ExprKind::Lit(x), ExprKind::Lit(y)) => ast::Expr {
            kind: ExprKind::Lit(x.wrapping_add(*y)),
            span: a.span,
        },
        _ => bin(BinOp::Add, a, b),
    }
}

fn un(op: UnOp, a: ast::Expr) -> ast::Expr {
    let span = a.span;
    ast::Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        span,
    }
}

fn tern(c: ast::Expr, a: ast::Expr, b: ast::Expr) -> ast::Expr {
    let span = c.span;
    ast::Expr {
        kind: ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
        span,
    }
}

/// Does `e` read one of `regs`?
fn mentions(e: &ast::Expr, regs: &[String]) -> bool {
    match &e.kind {
        ExprKind::Reg(r) => regs.contains(r),
        ExprKind::Lit(_) | ExprKind::Builtin(_) => false,
        ExprKind::Unary(_, a) => mentions(a, regs),
        ExprKind::Binary(_, a, b) => mentions(a, regs) || mentions(b, regs),
        ExprKind::Ternary(a, b, c) => mentions(a, regs) || mentions(b, regs) || mentions(c, regs),
        ExprKind::SgOp(_, args) | ExprKind::Call(_, args) => args.iter().any(|a| mentions(a, regs)),
    }
}

/// A `break` of the switch before the end of a case (inside an `if`, say; not inside a loop).
fn early_break(body: &naga::Block) -> bool {
    fn any_break(b: &naga::Block) -> bool {
        b.iter().any(|s| match s {
            Statement::Break => true,
            Statement::Block(x) => any_break(x),
            Statement::If { accept, reject, .. } => any_break(accept) || any_break(reject),
            _ => false,
        })
    }
    let n = body.len();
    body.iter().enumerate().any(|(i, s)| match s {
        Statement::Break => i + 1 != n,
        Statement::Block(x) => any_break(x),
        Statement::If { accept, reject, .. } => any_break(accept) || any_break(reject),
        _ => false,
    })
}

fn ends_in_jump(body: &[Stmt]) -> bool {
    matches!(
        body.last().map(|s| &s.kind),
        Some(StmtKind::Break | StmtKind::Continue | StmtKind::Return)
    )
}

/// A `return` anywhere but as the body's last statement.
fn has_early_return(body: &naga::Block) -> bool {
    /// Does `s` contain a `return`, at any depth?
    fn returns(s: &Statement) -> bool {
        let any = |b: &naga::Block| b.iter().any(returns);
        match s {
            Statement::Return { .. } => true,
            Statement::Block(x) => any(x),
            Statement::If { accept, reject, .. } => any(accept) || any(reject),
            Statement::Switch { cases, .. } => cases.iter().any(|c| any(&c.body)),
            Statement::Loop {
                body, continuing, ..
            } => any(body) || any(continuing),
            _ => false,
        }
    }
    let n = body.len();
    body.iter().enumerate().any(|(i, s)| match s {
        Statement::Return { .. } => i + 1 != n,
        s => returns(s),
    })
}

/// Everything after the statement at `at` in `block` is a `return` (or emits).
fn block_rest_is_return(block: &naga::Block, at: naga::Span) -> bool {
    let mut after = false;
    for (s, sp) in block.span_iter() {
        if after {
            match s {
                Statement::Return { value: None } | Statement::Emit(_) => {}
                _ => return false,
            }
        }
        if *sp == at {
            after = true;
        }
    }
    after
}

/// How many times each expression is used by other expressions and by statements.
fn count_uses(f: &Function) -> Vec<u32> {
    let mut uses = vec![0u32; f.expressions.len()];
    for (_, e) in f.expressions.iter() {
        for c in children(e) {
            uses[c.index()] += 1;
        }
    }
    fn stmts(b: &naga::Block, uses: &mut Vec<u32>) {
        for s in b.iter() {
            match s {
                Statement::Block(x) => stmts(x, uses),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    uses[condition.index()] += 1;
                    stmts(accept, uses);
                    stmts(reject, uses);
                }
                Statement::Switch { selector, cases } => {
                    uses[selector.index()] += 1;
                    for c in cases {
                        stmts(&c.body, uses);
                    }
                }
                Statement::Loop {
                    body,
                    continuing,
                    break_if,
                } => {
                    if let Some(c) = break_if {
                        uses[c.index()] += 1;
                    }
                    stmts(body, uses);
                    stmts(continuing, uses);
                }
                Statement::Return { value: Some(v) } => uses[v.index()] += 1,
                Statement::Store { pointer, value } => {
                    uses[pointer.index()] += 1;
                    uses[value.index()] += 1;
                }
                Statement::Atomic {
                    pointer,
                    fun,
                    value,
                    ..
                } => {
                    uses[pointer.index()] += 1;
                    uses[value.index()] += 1;
                    if let naga::AtomicFunction::Exchange { compare: Some(c) } = fun {
                        uses[c.index()] += 1;
                    }
                }
                Statement::WorkGroupUniformLoad { pointer, .. } => uses[pointer.index()] += 1,
                Statement::Call { arguments, .. } => {
                    arguments.iter().for_each(|a| uses[a.index()] += 1)
                }
                Statement::SubgroupBallot {
                    predicate: Some(p), ..
                } => uses[p.index()] += 1,
                Statement::SubgroupGather { mode, argument, .. } => {
                    uses[argument.index()] += 1;
                    use naga::GatherMode as G;
                    if let G::Broadcast(i)
                    | G::Shuffle(i)
                    | G::ShuffleDown(i)
                    | G::ShuffleUp(i)
                    | G::ShuffleXor(i)
                    | G::QuadBroadcast(i) = mode
                    {
                        uses[i.index()] += 1;
                    }
                }
                Statement::SubgroupCollectiveOperation { argument, .. } => {
                    uses[argument.index()] += 1
                }
                _ => {}
            }
        }
    }
    stmts(&f.body, &mut uses);
    uses
}

/// The expressions an expression reads.
fn children(e: &Expression) -> Vec<Handle<Expression>> {
    match e {
        Expression::Compose { components, .. } => components.clone(),
        Expression::Access { base, index } => vec![*base, *index],
        Expression::AccessIndex { base, .. } => vec![*base],
        Expression::Splat { value, .. } => vec![*value],
        Expression::Swizzle { vector, .. } => vec![*vector],
        Expression::Load { pointer } => vec![*pointer],
        Expression::Unary { expr, .. } => vec![*expr],
        Expression::Binary { left, right, .. } => vec![*left, *right],
        Expression::Select {
            condition,
            accept,
            reject,
        } => vec![*condition, *accept, *reject],
        Expression::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => [Some(*arg), *arg1, *arg2, *arg3]
            .into_iter()
            .flatten()
            .collect(),
        Expression::As { expr, .. } => vec![*expr],
        Expression::ArrayLength(x) => vec![*x],
        Expression::Relational { argument, .. } => vec![*argument],
        _ => Vec::new(),
    }
}

fn type_word(t: &TypeInner) -> &'static str {
    match t {
        TypeInner::Matrix { .. } => "matrix",
        TypeInner::Pointer { .. } | TypeInner::ValuePointer { .. } => "pointer",
        TypeInner::Image { .. } => "texture",
        TypeInner::Sampler { .. } => "sampler",
        TypeInner::Array { .. } => "runtime-sized array",
        _ => "this kind",
    }
}

fn expr_word(e: &Expression) -> String {
    let s = format!("{e:?}");
    let head = s.split([' ', '(', '{']).next().unwrap_or("expression");
    format!("the expression `{head}`")
}

fn stmt_word(s: &Statement) -> String {
    let d = format!("{s:?}");
    let head = d.split([' ', '(', '{']).next().unwrap_or("statement");
    format!("the statement `{head}`")
}
