//! A SPIR-V module -> kernel statements, block for block.
//!
//! SPIR-V's structured control flow is already the shape of the AST: a header block's
//! `OpSelectionMerge` + `OpBranchConditional` is an `if` whose arms run to the merge block,
//! `OpSwitch` is an `if` chain, `OpLoopMerge` is a `loop` whose continue construct is its
//! `continuing`, a branch to the innermost loop's merge is `break` and to its continue target
//! `continue`. SSA values become registers (one per 32-bit word of the value), `OpPhi`s become
//! copies on their incoming edges, pointers are resolved while lowering (a buffer and a word
//! offset), and function calls are inlined. Where the structured form joins SPIR-V blocks
//! (a block entered by an unconditional branch from a block that is not a header continues the
//! same static block), docs/shaders.md says so.
//!
//! Every instruction this cannot lower is an error naming it, at its position.

use crate::syntax::ast::{BarrierScope, Expr, ExprKind, Stmt, StmtKind};
use crate::syntax::Span;
use crate::vocab::{AtomicOp, BinOp, Builtin, LocalFn, RedOp, SgOp, UnOp};
use rspirv::dr::{self, Instruction, Operand as O};
use spirv::{BuiltIn, Decoration, Op, StorageClass, Word};
use std::collections::{HashMap, HashSet};

/// An error at an instruction (`None`: the module as a whole).
#[derive(Debug)]
pub struct LowerError {
    pub at: Option<*const Instruction>,
    pub message: String,
}

pub type Res<T> = Result<T, LowerError>;

fn err<T>(at: &Instruction, message: impl Into<String>) -> Res<T> {
    Err(LowerError {
        at: Some(at as *const _),
        message: message.into(),
    })
}

fn err_module<T>(message: impl Into<String>) -> Res<T> {
    Err(LowerError {
        at: None,
        message: message.into(),
    })
}

/// The most registers one private array may take (a dynamic index selects among them).
const MAX_PRIVATE_WORDS: u32 = 256;
/// The most blocks the structured walk may emit (fall-through cases are emitted once per case
/// that reaches them); a malformed module cannot make the walk run away.
const MAX_EMITTED_BLOCKS: usize = 100_000;

/// A type, as far as tangle's 32-bit words go.
#[derive(Clone, Debug)]
pub enum Ty {
    Void,
    Bool,
    Int { width: u32, signed: bool },
    Float,
    Vector(Word, u32),
    Array(Word, Option<u32>),
    Struct(Vec<Word>),
    Pointer(StorageClass, Word),
    Other,
}

/// A memory variable: a buffer (storage, uniform, push constant, output, cross-workgroup) or
/// workgroup memory, as a flat word array.
#[derive(Clone, Debug)]
pub struct Buf {
    pub id: Word,
    pub name: String,
    pub class: StorageClass,
    /// The variable's pointee type.
    pub ty: Word,
    /// Words of one copy; `None` for a runtime-sized array until the launch gives a length.
    pub words: Option<u32>,
    /// For a runtime-sized buffer: words before the array and words per element.
    pub runtime: Option<(u32, u32)>,
    /// The initializer's words.
    pub init: Option<Vec<u32>>,
    pub binding: Option<(u32, u32)>,
    pub inst: *const Instruction,
    /// Another variable at the same descriptor set and binding: the same memory.
    pub alias_of: Option<usize>,
}

impl Buf {
    /// One copy per workgroup.
    pub fn per_workgroup(&self) -> bool {
        self.class == StorageClass::Workgroup
    }
}

/// The module's tables, by id.
pub struct Index<'m> {
    pub m: &'m dr::Module,
    pub names: HashMap<Word, String>,
    pub types: HashMap<Word, Ty>,
    /// Constants (and spec constants, with their defaults or overrides) as words.
    pub consts: HashMap<Word, Vec<u32>>,
    pub builtins: HashMap<Word, BuiltIn>,
    pub spec_ids: HashMap<Word, u32>,
    pub bindings: HashMap<Word, (u32, u32)>,
    pub funcs: HashMap<Word, &'m dr::Function>,
    pub ext_sets: HashMap<Word, String>,
    pub bufs: Vec<Buf>,
    /// Private-class globals (per invocation): their registers and initial words.
    pub privates: HashMap<Word, (Word, Option<Vec<u32>>)>,
    pub inputs: HashSet<Word>,
    pub undefs: HashSet<Word>,
    pub undef_types: HashMap<Word, Word>,
    /// `ArrayStride` decorations (bytes): memory is read as 32-bit words, so a stride that
    /// contradicts it is refused.
    pub strides: HashMap<Word, u32>,
    /// The type of every value with one.
    pub value_types: HashMap<Word, Word>,
    /// Declarations tangle cannot represent (float constants...), with why: an error where
    /// they are used, not where they are declared.
    pub unusable: HashMap<Word, (String, *const Instruction)>,
    /// How often instructions of functions read each id: a plain load of a value nobody
    /// reads is not an event (WGSL's `_ = buf[0];` becomes one); a value read once is
    /// substituted where it is read.
    pub uses: HashMap<Word, u32>,
}

fn lit_u32(o: &O) -> Option<u32> {
    match o {
        O::LiteralBit32(v) => Some(*v),
        O::LiteralBit64(v) => Some(*v as u32),
        _ => None,
    }
}

fn id_of(o: &O) -> Option<Word> {
    match o {
        O::IdRef(v) | O::IdScope(v) | O::IdMemorySemantics(v) => Some(*v),
        _ => None,
    }
}

fn id_at(ins: &Instruction, k: usize) -> Res<Word> {
    match ins.operands.get(k).and_then(id_of) {
        Some(v) => Ok(v),
        None => err(
            ins,
            format!("{:?}: operand {k} is not an id", ins.class.opcode),
        ),
    }
}

fn result(ins: &Instruction) -> Res<Word> {
    match ins.result_id {
        Some(r) => Ok(r),
        None => err(ins, format!("{:?} without a result id", ins.class.opcode)),
    }
}

impl<'m> Index<'m> {
    /// Reads the module's declarations; `spec` overrides spec constants by SpecId; `text_names`
    /// names the ids a `.spvasm` text named (used where the module has no `OpName`).
    pub fn new(
        m: &'m dr::Module,
        spec: &HashMap<u32, u32>,
        text_names: &HashMap<Word, String>,
    ) -> Res<Index<'m>> {
        let mut ix = Index {
            m,
            names: HashMap::new(),
            types: HashMap::new(),
            consts: HashMap::new(),
            builtins: HashMap::new(),
            spec_ids: HashMap::new(),
            bindings: HashMap::new(),
            funcs: HashMap::new(),
            ext_sets: HashMap::new(),
            bufs: Vec::new(),
            privates: HashMap::new(),
            inputs: HashSet::new(),
            undefs: HashSet::new(),
            undef_types: HashMap::new(),
            strides: HashMap::new(),
            value_types: HashMap::new(),
            unusable: HashMap::new(),
            uses: m
                .functions
                .iter()
                .flat_map(|f| f.blocks.iter())
                .flat_map(|b| b.instructions.iter())
                .flat_map(|i| i.operands.iter().filter_map(id_of))
                .fold(HashMap::new(), |mut m, id| {
                    *m.entry(id).or_insert(0) += 1;
                    m
                }),
        };
        for i in &m.debug_names {
            if i.class.opcode == Op::Name {
                if let (Some(t), Some(O::LiteralString(s))) =
                    (i.operands.first().and_then(id_of), i.operands.get(1))
                {
                    ix.names.insert(t, s.clone());
                }
            }
        }
        for (id, n) in text_names {
            // Numeric `.spvasm` names (`%12`) name nothing.
            if !n.chars().all(|c| c.is_ascii_digit()) {
                ix.names.entry(*id).or_insert_with(|| n.clone());
            }
        }
        for i in &m.ext_inst_imports {
            if let (Some(r), Some(O::LiteralString(s))) = (i.result_id, i.operands.first()) {
                ix.ext_sets.insert(r, s.clone());
            }
        }
        let mut sets: HashMap<Word, u32> = HashMap::new();
        let mut binds: HashMap<Word, u32> = HashMap::new();
        for i in &m.annotations {
            if i.class.opcode != Op::Decorate {
                continue;
            }
            let (Some(t), Some(O::Decoration(d))) =
                (i.operands.first().and_then(id_of), i.operands.get(1))
            else {
                continue;
            };
            let arg = i.operands.get(2);
            match d {
                Decoration::BuiltIn => {
                    if let Some(O::BuiltIn(b)) = arg {
                        ix.builtins.insert(t, *b);
                    }
                }
                Decoration::SpecId => {
                    if let Some(v) = arg.and_then(lit_u32) {
                        ix.spec_ids.insert(t, v);
                    }
                }
                Decoration::DescriptorSet => {
                    if let Some(v) = arg.and_then(lit_u32) {
                        sets.insert(t, v);
                    }
                }
                Decoration::Binding => {
                    if let Some(v) = arg.and_then(lit_u32) {
                        binds.insert(t, v);
                    }
                }
                Decoration::ArrayStride => {
                    if let Some(v) = arg.and_then(lit_u32) {
                        ix.strides.insert(t, v);
                    }
                }
                _ => {}
            }
        }
        for (t, b) in &binds {
            ix.bindings
                .insert(*t, (sets.get(t).copied().unwrap_or(0), *b));
        }
        for i in &m.types_global_values {
            ix.declare(i, spec)?;
        }
        for f in &m.functions {
            if let Some(r) = f.def.as_ref().and_then(|d| d.result_id) {
                ix.funcs.insert(r, f);
            }
            let insts = f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| &b.instructions));
            for i in insts {
                if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                    ix.value_types.insert(r, t);
                }
            }
        }
        for i in &m.types_global_values {
            if let (Some(r), Some(t)) = (i.result_id, i.result_type) {
                ix.value_types.insert(r, t);
            }
        }
        // Variables at one descriptor binding share their memory.
        for k in 0..ix.bufs.len() {
            if let Some(b) = ix.bufs[k].binding {
                if let Some(first) =
                    (0..k).find(|&j| ix.bufs[j].binding == Some(b) && ix.bufs[j].alias_of.is_none())
                {
                    ix.bufs[k].alias_of = Some(first);
                }
            }
        }
        Ok(ix)
    }

    fn declare(&mut self, i: &'m Instruction, spec: &HashMap<u32, u32>) -> Res<()> {
        let op = i.class.opcode;
        let Some(r) = i.result_id else {
            return Ok(());
        };
        let ty = match op {
            Op::TypeVoid => Some(Ty::Void),
            Op::TypeBool => Some(Ty::Bool),
            Op::TypeInt => {
                let w = i.operands.first().and_then(lit_u32).unwrap_or(32);
                let s = i.operands.get(1).and_then(lit_u32).unwrap_or(0) != 0;
                Some(Ty::Int {
                    width: w,
                    signed: s,
                })
            }
            Op::TypeFloat => Some(Ty::Float),
            Op::TypeVector => Some(Ty::Vector(
                id_at(i, 0)?,
                i.operands.get(1).and_then(lit_u32).unwrap_or(0),
            )),
            Op::TypeArray => {
                let len_id = id_at(i, 1)?;
                let len = match self.consts.get(&len_id) {
                    Some(w) if w.len() == 1 => w[0],
                    _ => return err(i, "an array length that is not a constant"),
                };
                Some(Ty::Array(id_at(i, 0)?, Some(len)))
            }
            Op::TypeRuntimeArray => Some(Ty::Array(id_at(i, 0)?, None)),
            Op::TypeStruct => Some(Ty::Struct(i.operands.iter().filter_map(id_of).collect())),
            Op::TypePointer => match i.operands.first() {
                Some(O::StorageClass(c)) => Some(Ty::Pointer(*c, id_at(i, 1)?)),
                _ => return err(i, "OpTypePointer without a storage class"),
            },
            _ if op.is_type() => Some(Ty::Other),
            _ => None,
        };
        if let Some(t) = ty {
            self.types.insert(r, t);
            return Ok(());
        }
        let rt = i.result_type.unwrap_or(0);
        let words = match op {
            Op::Constant | Op::SpecConstant => {
                let w = match i.operands.first() {
                    Some(O::LiteralBit32(v)) => *v,
                    Some(O::LiteralBit64(v)) => {
                        let x = *v as i64;
                        if !(i32::MIN as i64..=u32::MAX as i64).contains(&x) {
                            return self.unusable(
                                r,
                                i,
                                format!("the constant {v} does not fit 32 bits"),
                            );
                        }
                        *v as u32
                    }
                    _ => return self.unusable(r, i, "a constant that is not an integer".into()),
                };
                if matches!(self.types.get(&rt), Some(Ty::Float)) {
                    return self.unusable(
                        r,
                        i,
                        "floating-point values are not supported (only integers and booleans)"
                            .into(),
                    );
                }
                let w = match (op, self.spec_ids.get(&r).and_then(|s| spec.get(s))) {
                    (Op::SpecConstant, Some(v)) => *v,
                    _ => w,
                };
                Some(vec![w])
            }
            Op::ConstantTrue | Op::SpecConstantTrue => {
                let v = match self.spec_ids.get(&r).and_then(|s| spec.get(s)) {
                    Some(v) if op == Op::SpecConstantTrue => (*v != 0) as u32,
                    _ => 1,
                };
                Some(vec![v])
            }
            Op::ConstantFalse | Op::SpecConstantFalse => {
                let v = match self.spec_ids.get(&r).and_then(|s| spec.get(s)) {
                    Some(v) if op == Op::SpecConstantFalse => (*v != 0) as u32,
                    _ => 0,
                };
                Some(vec![v])
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let mut ws = Vec::new();
                for o in &i.operands {
                    let undef = id_of(o)
                        .filter(|c| self.undefs.contains(c))
                        .map(|c| vec![0; self.value_words(c) as usize]);
                    let c = id_of(o)
                        .and_then(|c| self.consts.get(&c))
                        .or(undef.as_ref());
                    match c {
                        Some(c) => ws.extend_from_slice(c),
                        None => {
                            return self.unusable(
                                r,
                                i,
                                "a composite of a value that is not a supported constant".into(),
                            )
                        }
                    }
                }
                Some(ws)
            }
            Op::ConstantNull => match self.words_of(rt) {
                Some(n) => Some(vec![0; n as usize]),
                None => {
                    return self.unusable(r, i, "a null constant of a type without a size".into())
                }
            },
            Op::Undef => {
                self.undefs.insert(r);
                self.undef_types.insert(r, rt);
                None
            }
            Op::Variable => {
                self.variable(i, r)?;
                None
            }
            Op::SpecConstantOp => {
                return self.unusable(r, i, "OpSpecConstantOp is not supported".into());
            }
            _ => None,
        };
        if let Some(w) = words {
            self.consts.insert(r, w);
        }
        Ok(())
    }

    /// A declaration tangle cannot represent: an error only where it is used.
    fn unusable(&mut self, r: Word, i: &'m Instruction, why: String) -> Res<()> {
        self.unusable.insert(r, (why, i as *const _));
        Ok(())
    }

    fn variable(&mut self, i: &'m Instruction, r: Word) -> Res<()> {
        let class = match i.operands.first() {
            Some(O::StorageClass(c)) => *c,
            _ => return err(i, "OpVariable without a storage class"),
        };
        let ty = match self.types.get(&i.result_type.unwrap_or(0)) {
            Some(Ty::Pointer(_, t)) => *t,
            _ => return err(i, "OpVariable whose type is not a pointer"),
        };
        let init = match i.operands.get(1).and_then(id_of) {
            Some(c) => match self.consts.get(&c) {
                Some(w) => Some(w.clone()),
                None => return err(i, "a variable initialised by a value that is not constant"),
            },
            None => None,
        };
        match class {
            StorageClass::Input => {
                self.inputs.insert(r);
            }
            StorageClass::Private | StorageClass::Function => {
                self.privates.insert(r, (ty, init));
            }
            StorageClass::StorageBuffer
            | StorageClass::Uniform
            | StorageClass::PushConstant
            | StorageClass::Output
            | StorageClass::CrossWorkgroup
            | StorageClass::Workgroup => {
                if let Some(why) = self.layout_problem(ty) {
                    return err(i, format!("this variable's memory layout is not one 32-bit word per scalar: {why}"));
                }
                let (words, runtime) = match self.words_of(ty) {
                    Some(n) => (Some(n), None),
                    None => match self.runtime_shape(ty) {
                        Some(rt) => (None, Some(rt)),
                        None => return err(i, "a variable of a type without a size"),
                    },
                };
                // glslang names a block without an instance name `""`: its block type's name
                // (`buffer Checker { ... };` gives `Checker`) is what the source calls it,
                // unless another buffer has it already.
                let named = |id: &Word| self.names.get(id).filter(|n| !n.is_empty()).cloned();
                let name = named(&r)
                    .or_else(|| {
                        // (Not a name `spirv-dis` made up for a type: `_struct_16`.)
                        named(&ty).filter(|n| {
                            !n.starts_with('_') && !self.bufs.iter().any(|b| b.name == sanitize(n))
                        })
                    })
                    .unwrap_or_else(|| format!("buf{r}"));
                self.bufs.push(Buf {
                    id: r,
                    name: sanitize(&name),
                    class,
                    ty,
                    words,
                    runtime,
                    init,
                    binding: self.bindings.get(&r).copied(),
                    inst: i as *const _,
                    alias_of: None,
                });
            }
            other => {
                return err(
                    i,
                    format!("variables in storage class {other:?} are not supported"),
                )
            }
        }
        Ok(())
    }

    /// Why memory of type `t` is not laid out as tangle reads it (one 32-bit word per
    /// scalar, packed), if it is not.
    fn layout_problem(&self, t: Word) -> Option<String> {
        match self.types.get(&t)? {
            Ty::Int { width, .. } if *width < 32 => Some(format!("{width}-bit integers")),
            Ty::Vector(e, _) => self.layout_problem(*e),
            Ty::Array(e, _) => {
                if let Some(p) = self.layout_problem(*e) {
                    return Some(p);
                }
                let want = self.words_of(*e)? * 4;
                match self.strides.get(&t) {
                    Some(s) if *s != want => Some(format!(
                        "an array stride of {s} bytes for elements of {want}"
                    )),
                    _ => None,
                }
            }
            // Members are reached by index, never by byte: padding between them (`Offset`)
            // changes nothing tangle reads.
            Ty::Struct(ms) => ms.iter().find_map(|m| self.layout_problem(*m)),
            _ => None,
        }
    }

    /// Words of an undefined value.
    pub fn value_words(&self, id: Word) -> u32 {
        self.undef_types
            .get(&id)
            .and_then(|t| self.words_of(*t))
            .unwrap_or(1)
    }

    /// Words of a value of type `t` (`None`: runtime-sized or not a value).
    pub fn words_of(&self, t: Word) -> Option<u32> {
        match self.types.get(&t)? {
            Ty::Bool | Ty::Int { .. } | Ty::Float => Some(1),
            Ty::Vector(e, n) => Some(self.words_of(*e)?.checked_mul(*n)?),
            Ty::Array(e, Some(n)) => self.words_of(*e)?.checked_mul(*n),
            Ty::Struct(ms) => ms
                .iter()
                .try_fold(0u32, |a, m| a.checked_add(self.words_of(*m)?)),
            _ => None,
        }
    }

    /// For a struct ending in a runtime array (or the array itself): words before it, words
    /// per element.
    fn runtime_shape(&self, t: Word) -> Option<(u32, u32)> {
        match self.types.get(&t)? {
            Ty::Array(e, None) => Some((0, self.words_of(*e)?)),
            Ty::Struct(ms) => {
                let (last, rest) = ms.split_last()?;
                let before = rest
                    .iter()
                    .try_fold(0u32, |a, m| a.checked_add(self.words_of(*m)?))?;
                let (b, e) = self.runtime_shape(*last)?;
                Some((before + b, e))
            }
            _ => None,
        }
    }
}

/// A register name from a debug name: letters, digits and `_`.
pub fn sanitize(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'v');
    }
    out
}

/// How the launch sets the built-ins.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub workgroup: [u32; 3],
    pub workgroups: u32,
    pub subgroup: u32,
}

/// A value while lowering: its words, or a pointer.
#[derive(Clone, Debug)]
enum Val {
    Words(Vec<Expr>),
    Ptr(Ptr),
}

#[derive(Clone, Debug)]
struct Ptr {
    base: Base,
    /// Word offset from the base.
    off: Expr,
    /// The pointee type.
    ty: Word,
}

#[derive(Clone, Debug)]
enum Base {
    /// `Index::bufs[k]`.
    Buf(usize),
    /// A private or function variable: registers `{prefix}_{k}` for k below the count.
    Regs(String, u32),
    /// An input variable (a built-in).
    Input(Word),
}

/// Where a structured region stops, and what branching to a block means inside it.
#[derive(Clone, Debug, Default)]
struct Ctx {
    /// The merge block that ends this region.
    stop: Option<Word>,
    /// The innermost loop's merge (`break`) and continue target (`continue`).
    brk: Option<Word>,
    cont: Option<Word>,
    /// Inside an inlined function with several returns (or loops): `return` breaks out of
    /// the wrapper loop, from inside a loop of the callee by way of `ret_flag`.
    ret_breaks: bool,
    in_callee_loop: bool,
    ret_flag: Option<String>,
    /// The register receiving an inlined function's returned words.
    ret_regs: Option<Vec<String>>,
}

/// Lowers the entry point `entry` (a function id) to kernel statements.
pub fn lower(
    ix: &Index,
    entry: Word,
    dims: Dims,
    span: &dyn Fn(*const Instruction) -> Span,
) -> Res<Vec<Stmt>> {
    let Some(f) = ix.funcs.get(&entry) else {
        return err_module("the entry point's function is missing");
    };
    let mut lw = Lowerer {
        ix,
        dims,
        span,
        frames: Vec::new(),
        taken: HashSet::new(),
        names: HashMap::new(),
        emitted: 0,
        return_in_loop: std::cell::Cell::new(false),
        variables: HashSet::new(),
        depth: 0,
    };
    let mut out = Vec::new();
    // Private globals start with their initializers (or zeros).
    let mut privates: Vec<_> = ix.privates.iter().collect();
    privates.sort_by_key(|(id, _)| **id);
    let mut globals = HashMap::new();
    for (id, (ty, init)) in privates {
        {
            let prefix = lw.fresh(*id, "");
            let n = lw.private_words(*ty, f.def.as_ref().expect("def"))?;
            lw.variables.extend((0..n).map(|k| format!("{prefix}_{k}")));
            for k in 0..n {
                let v = init
                    .as_ref()
                    .and_then(|w| w.get(k as usize))
                    .copied()
                    .unwrap_or(0);
                out.push(lw.stmt(
                    StmtKind::Assign {
                        reg: format!("{prefix}_{k}"),
                        value: lit(v, Span::default()),
                    },
                    Span::default(),
                ));
            }
            globals.insert(
                *id,
                Val::Ptr(Ptr {
                    base: Base::Regs(prefix, n),
                    off: lit(0, Span::default()),
                    ty: *ty,
                }),
            );
        }
    }
    lw.frames.push(globals);
    lw.frames.push(HashMap::new());
    let body = lw.function(f, &[], None)?;
    out.extend(body);
    Ok(out)
}

struct Lowerer<'a, 'm> {
    ix: &'a Index<'m>,
    dims: Dims,
    span: &'a dyn Fn(*const Instruction) -> Span,
    /// Values by id: frame 0 the private globals, then one frame per inlined call.
    frames: Vec<HashMap<Word, Val>>,
    taken: HashSet<String>,
    /// Register names given to ids (per id, reused by every inlined copy).
    names: HashMap<Word, String>,
    emitted: usize,
    /// Set by a `return` met inside a loop of an inlined function lowered without a wrapper.
    return_in_loop: std::cell::Cell<bool>,
    /// Registers that hold variables (private and function storage): assigned wherever the
    /// program stores, so an expression reading one must be evaluated where it stands.
    variables: HashSet<String>,
    depth: usize,
}

fn lit(v: u32, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(v),
        span,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span;
    if let (ExprKind::Lit(x), ExprKind::Lit(y)) = (&a.kind, &b.kind) {
        if let Some(v) = fold(op, *x, *y) {
            return lit(v, span);
        }
    }
    // Identities that address arithmetic is full of (`0 + i * 1 + 0`).
    match (op, as_lit(&a), as_lit(&b)) {
        (BinOp::Add, Some(0), _) | (BinOp::Mul, Some(1), _) => return b,
        (BinOp::Add | BinOp::Sub, _, Some(0)) | (BinOp::Mul | BinOp::Div, _, Some(1)) => return a,
        _ => {}
    }
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

fn fold(op: BinOp, x: u32, y: u32) -> Option<u32> {
    Some(match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        _ => return None,
    })
}

fn un(op: UnOp, a: Expr) -> Expr {
    let span = a.span;
    Expr {
        kind: ExprKind::Unary(op, Box::new(a)),
        span,
    }
}

fn tern(c: Expr, a: Expr, b: Expr) -> Expr {
    let span = c.span;
    Expr {
        kind: ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
        span,
    }
}

/// Whether a load or store carries the `Volatile` memory operand.
fn volatile(i: &Instruction) -> bool {
    i.operands.iter().any(|o| match o {
        O::MemoryAccess(m) => m.contains(spirv::MemoryAccess::VOLATILE),
        _ => false,
    })
}

/// A shift amount modulo 32 (no operation on a literal below 32).
fn mod32(b: Expr) -> Expr {
    match as_lit(&b) {
        Some(v) if v < 32 => b,
        _ => {
            let s = b.span;
            bin(BinOp::BitAnd, b, lit(31, s))
        }
    }
}

/// Whether `stmts` assign register `r` anywhere.
fn assigns(stmts: &[Stmt], r: &str) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Assign { reg, .. } => reg == r,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => assigns(then_body, r) || assigns(else_body, r),
        StmtKind::Loop { body, continuing } => assigns(body, r) || assigns(continuing, r),
        _ => false,
    })
}

fn reg(name: &str, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Reg(name.to_string()),
        span,
    }
}

fn as_lit(e: &Expr) -> Option<u32> {
    match e.kind {
        ExprKind::Lit(v) => Some(v),
        _ => None,
    }
}

const SIGN: u32 = 0x8000_0000;

/// Signed `a < b` over unsigned words: flip the sign bits.
fn slt(a: Expr, b: Expr) -> Expr {
    let s = a.span;
    bin(
        BinOp::Lt,
        bin(BinOp::BitXor, a, lit(SIGN, s)),
        bin(BinOp::BitXor, b, lit(SIGN, s)),
    )
}

fn is_neg(a: Expr) -> Expr {
    let s = a.span;
    bin(BinOp::Ge, a, lit(SIGN, s))
}

fn abs(a: Expr) -> Expr {
    tern(is_neg(a.clone()), un(UnOp::Neg, a.clone()), a)
}

impl<'a, 'm> Lowerer<'a, 'm> {
    fn sp(&self, i: &Instruction) -> Span {
        (self.span)(i as *const _)
    }

    fn stmt(&self, kind: StmtKind, span: Span) -> Stmt {
        Stmt {
            kind,
            span,
            tags: Vec::new(),
        }
    }

    /// A register prefix for id `id`: its debug name when free, else `v{id}`.
    fn fresh(&mut self, id: Word, suffix: &str) -> String {
        if let Some(n) = self.names.get(&id) {
            return format!("{n}{suffix}");
        }
        let base = self
            .ix
            .names
            .get(&id)
            .filter(|n| !n.is_empty())
            .map(|n| sanitize(n))
            .unwrap_or_else(|| format!("v{id}"));
        let mut name = base.clone();
        if self.taken.contains(&name) {
            name = format!("{base}_{id}");
        }
        self.taken.insert(name.clone());
        self.names.insert(id, name.clone());
        format!("{name}{suffix}")
    }

    fn lookup(&self, id: Word, at: &Instruction) -> Res<Val> {
        if let Some(c) = self.ix.consts.get(&id) {
            let s = self.sp(at);
            return Ok(Val::Words(c.iter().map(|w| lit(*w, s)).collect()));
        }
        for f in self.frames.iter().rev() {
            if let Some(v) = f.get(&id) {
                return Ok(v.clone());
            }
        }
        if let Some(k) = self.ix.bufs.iter().position(|b| b.id == id) {
            let k = self.ix.bufs[k].alias_of.unwrap_or(k);
            let ty = self
                .ix
                .bufs
                .iter()
                .find(|b| b.id == id)
                .map(|b| b.ty)
                .unwrap_or(0);
            return Ok(Val::Ptr(Ptr {
                base: Base::Buf(k),
                off: lit(0, self.sp(at)),
                ty,
            }));
        }
        if self.ix.inputs.contains(&id) {
            let ty = match self
                .ix
                .m
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(id))
            {
                Some(v) => match self.ix.types.get(&v.result_type.unwrap_or(0)) {
                    Some(Ty::Pointer(_, t)) => *t,
                    _ => 0,
                },
                None => 0,
            };
            return Ok(Val::Ptr(Ptr {
                base: Base::Input(id),
                off: lit(0, self.sp(at)),
                ty,
            }));
        }
        if let Some((why, _)) = self.ix.unusable.get(&id) {
            let name = self.ix.names.get(&id).cloned().unwrap_or(id.to_string());
            return err(at, format!("{why}: the value %{name} is used here"));
        }
        if self.ix.undefs.contains(&id) {
            // An undefined value may be any value: tangle takes 0, one of them
            // (docs/shaders.md: clspv leaves undefined values on paths that never use them).
            let n = self.ix.value_words(id);
            let s = self.sp(at);
            return Ok(Val::Words((0..n).map(|_| lit(0, s)).collect()));
        }
        err(at, format!("the id %{id} has no value here"))
    }

    fn words(&self, id: Word, at: &Instruction) -> Res<Vec<Expr>> {
        match self.lookup(id, at)? {
            Val::Words(w) => Ok(w),
            Val::Ptr(_) => err(at, format!("%{id} is a pointer where a value is expected")),
        }
    }

    fn word(&self, id: Word, at: &Instruction) -> Res<Expr> {
        let w = self.words(id, at)?;
        match w.as_slice() {
            [one] => Ok(one.clone()),
            _ => err(at, format!("%{id} is not a scalar")),
        }
    }

    fn operand_word(&self, at: &Instruction, k: usize) -> Res<Expr> {
        self.word(id_at(at, k)?, at)
    }

    fn operand_words(&self, at: &Instruction, k: usize) -> Res<Vec<Expr>> {
        self.words(id_at(at, k)?, at)
    }

    fn ptr(&self, at: &Instruction, k: usize) -> Res<Ptr> {
        let id = id_at(at, k)?;
        match self.lookup(id, at)? {
            Val::Ptr(p) => Ok(p),
            Val::Words(_) => err(at, format!("%{id} is not a pointer")),
        }
    }

    fn bind(&mut self, id: Word, v: Val) {
        self.frames.last_mut().expect("frame").insert(id, v);
    }

    /// Assigns `values` to fresh registers for `id` and binds them.
    /// Whether `e` reads no variable register and performs no subgroup op.
    fn substitutable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Builtin(_) => true,
            ExprKind::Reg(r) => !self.variables.contains(r),
            ExprKind::Unary(_, a) => self.substitutable(a),
            ExprKind::Binary(_, a, b) => self.substitutable(a) && self.substitutable(b),
            ExprKind::Ternary(c, a, b) => {
                self.substitutable(c) && self.substitutable(a) && self.substitutable(b)
            }
            ExprKind::Call(_, args) => args.iter().all(|a| self.substitutable(a)),
            ExprKind::SgOp(..) => false,
        }
    }

    fn assign(&mut self, id: Word, values: Vec<Expr>, span: Span, out: &mut Vec<Stmt>) {
        let uses = self.ix.uses.get(&id).copied().unwrap_or(0);
        let prefix = self.fresh(id, "");
        let n = values.len();
        let mut regs = Vec::new();
        for (k, v) in values.into_iter().enumerate() {
            let name = if n == 1 {
                prefix.clone()
            } else {
                format!("{prefix}_{k}")
            };
            if let Some(c) = as_lit(&v) {
                // A constant needs no register.
                regs.push(lit(c, span));
                continue;
            }
            // A pure value over SSA values (no variable, load or subgroup op) is the same
            // wherever it is evaluated (its operands' definitions dominate every use): used
            // once, or a single register, it is substituted rather than copied, as naga's
            // and glslang's expression trees were written.
            if self.substitutable(&v)
                && (uses <= 1 || matches!(v.kind, ExprKind::Reg(_) | ExprKind::Builtin(_)))
            {
                regs.push(v);
                continue;
            }
            out.push(self.stmt(
                StmtKind::Assign {
                    reg: name.clone(),
                    value: v,
                },
                span,
            ));
            regs.push(reg(&name, span));
        }
        self.bind(id, Val::Words(regs));
    }

    fn private_words(&self, ty: Word, at: &Instruction) -> Res<u32> {
        match self.ix.words_of(ty) {
            Some(n) if n <= MAX_PRIVATE_WORDS => Ok(n),
            Some(n) => err(
                at,
                format!("a private variable of {n} words (at most {MAX_PRIVATE_WORDS})"),
            ),
            None => err(at, "a private variable of a type without a size"),
        }
    }

    /// Lowers an inlined function body with `args` bound to its parameters.
    fn function(
        &mut self,
        f: &dr::Function,
        args: &[Val],
        ret: Option<Vec<String>>,
    ) -> Res<Vec<Stmt>> {
        let def = f.def.as_ref().expect("function def");
        self.depth += 1;
        if self.depth > 64 {
            return err(def, "calls nested more than 64 deep");
        }
        for (p, a) in f.parameters.iter().zip(args) {
            if let Some(r) = p.result_id {
                self.bind(r, a.clone());
            }
        }
        let Some(first) = f.blocks.first() else {
            return err(def, "a function without blocks");
        };
        let blocks: HashMap<Word, &dr::Block> = f
            .blocks
            .iter()
            .filter_map(|b| Some((b.label.as_ref()?.result_id?, b)))
            .collect();
        let returns = f
            .blocks
            .iter()
            .filter(|b| {
                b.instructions
                    .last()
                    .is_some_and(|t| matches!(t.class.opcode, Op::Return | Op::ReturnValue))
            })
            .count();
        // A return that is not the body's end leaves a loop wrapped around the call; one
        // inside a loop of the callee sets a flag and breaks, and each loop it leaves checks
        // the flag and breaks again, up to the wrapper. A single return is the body's end
        // unless it sits in a loop, which the walk reports: then the body is lowered again,
        // wrapped.
        let has_loop = f.blocks.iter().any(|b| {
            b.instructions
                .iter()
                .any(|i| i.class.opcode == Op::LoopMerge)
        });
        let ret_flag = match def.result_id {
            Some(id) if self.depth > 1 && has_loop => Some(self.fresh(id, "_returned")),
            _ => None,
        };
        let entry = first.label.as_ref().and_then(|l| l.result_id).unwrap_or(0);
        let fb = FnBlocks { blocks };
        let mut wrap = self.depth > 1 && returns > 1;
        let outer = self.return_in_loop.replace(false);
        let mut body = loop {
            let ctx = Ctx {
                ret_breaks: wrap,
                ret_regs: ret.clone(),
                ret_flag: ret_flag.clone(),
                ..Ctx::default()
            };
            let body = self.region(&fb, entry, &ctx)?;
            if !wrap && self.return_in_loop.replace(false) {
                wrap = true;
                continue;
            }
            break body;
        };
        self.return_in_loop.set(outer);
        if let Some(flag) = ret_flag.as_ref().filter(|f| assigns(&body, f)) {
            let s = self.sp(def);
            body.insert(
                0,
                self.stmt(
                    StmtKind::Assign {
                        reg: flag.clone(),
                        value: lit(0, s),
                    },
                    s,
                ),
            );
        }
        if wrap {
            if !matches!(body.last().map(|s| &s.kind), Some(StmtKind::Break)) {
                body.push(self.stmt(StmtKind::Break, self.sp(def)));
            }
            body = vec![self.stmt(
                StmtKind::Loop {
                    body,
                    continuing: Vec::new(),
                },
                self.sp(def),
            )];
        }
        self.depth -= 1;
        Ok(body)
    }

    fn block<'f>(&self, fb: &FnBlocks<'f>, id: Word, at: &Instruction) -> Res<&'f dr::Block> {
        match fb.blocks.get(&id) {
            Some(b) => Ok(b),
            None => err(
                at,
                format!("a branch to %{id}, which is not a block of this function"),
            ),
        }
    }

    /// The statements of the structured region starting at block `start`, up to `ctx.stop`.
    fn region(&mut self, fb: &FnBlocks, start: Word, ctx: &Ctx) -> Res<Vec<Stmt>> {
        let mut out = Vec::new();
        let mut b = start;
        loop {
            if Some(b) == ctx.stop {
                return Ok(out);
            }
            self.emitted += 1;
            let Some(block) = fb.blocks.get(&b) else {
                return err_module(format!("a branch to %{b}, which is not a block"));
            };
            let label = block.label.as_ref().expect("label");
            if self.emitted > MAX_EMITTED_BLOCKS {
                return err(
                    label,
                    "the structured walk emits too many blocks (is the control flow structured?)",
                );
            }
            let insts = &block.instructions;
            let Some((term, body)) = insts.split_last() else {
                return err(label, "a block without a terminator");
            };
            // A loop header: the whole loop is one statement.
            if let Some(lm) = body.iter().find(|i| i.class.opcode == Op::LoopMerge) {
                let merge = id_at(lm, 0)?;
                let cont = id_at(lm, 1)?;
                let inner = Ctx {
                    stop: None,
                    brk: Some(merge),
                    cont: Some(cont),
                    ret_breaks: ctx.ret_breaks,
                    in_callee_loop: ctx.in_callee_loop || self.depth > 1,
                    ret_regs: ctx.ret_regs.clone(),
                    ret_flag: ctx.ret_flag.clone(),
                };
                let mut lbody = Vec::new();
                self.phis(block, &mut lbody)?;
                self.straight(block, &mut lbody)?;
                self.edges_out(fb, b, term, &mut lbody)?;
                self.terminator(fb, term, &inner, &mut lbody)?;
                let continuing = if cont == b {
                    Vec::new()
                } else {
                    let cctx = Ctx {
                        stop: Some(b),
                        ..inner.clone()
                    };
                    let mut c = self.region(fb, cont, &cctx)?;
                    // The back edge is the end of the continue construct.
                    if matches!(c.last().map(|s| &s.kind), Some(StmtKind::Continue)) {
                        c.pop();
                    }
                    c
                };
                let returns = inner.ret_flag.as_ref().is_some_and(|f| assigns(&lbody, f));
                out.push(self.stmt(
                    StmtKind::Loop {
                        body: lbody,
                        continuing,
                    },
                    self.sp(lm),
                ));
                if let (true, Some(flag)) = (returns, &inner.ret_flag) {
                    let s = self.sp(lm);
                    out.push(self.stmt(
                        StmtKind::If {
                            cond: reg(flag, s),
                            then_body: vec![self.stmt(StmtKind::Break, s)],
                            else_body: Vec::new(),
                        },
                        s,
                    ));
                }
                b = merge;
                if Some(b) == ctx.stop {
                    return Ok(out);
                }
                continue;
            }
            self.phis(block, &mut out)?;
            self.straight(block, &mut out)?;
            self.edges_out(fb, b, term, &mut out)?;
            let sel = body.iter().find(|i| i.class.opcode == Op::SelectionMerge);
            match (term.class.opcode, sel) {
                (Op::Branch, _) => {
                    let t = id_at(term, 0)?;
                    match self.jump(t, ctx, term) {
                        Some(s) => {
                            out.extend(s);
                            return Ok(out);
                        }
                        None => {
                            b = t;
                            continue;
                        }
                    }
                }
                (Op::BranchConditional, Some(sm)) => {
                    let merge = id_at(sm, 0)?;
                    let c = self.operand_word(term, 0)?;
                    let (t, f) = (id_at(term, 1)?, id_at(term, 2)?);
                    let arm_ctx = Ctx {
                        stop: Some(merge),
                        ..ctx.clone()
                    };
                    let then_body = self.arm(fb, t, &arm_ctx, term)?;
                    let else_body = self.arm(fb, f, &arm_ctx, term)?;
                    out.push(self.stmt(
                        StmtKind::If {
                            cond: c,
                            then_body,
                            else_body,
                        },
                        self.sp(term),
                    ));
                    b = merge;
                }
                (Op::Switch, Some(sm)) => {
                    let merge = id_at(sm, 0)?;
                    let sel = self.operand_word(term, 0)?;
                    let default = id_at(term, 1)?;
                    let mut cases = Vec::new();
                    let mut k = 2;
                    while k + 1 < term.operands.len() {
                        let v = lit_u32(&term.operands[k]);
                        let t = id_of(&term.operands[k + 1]);
                        match (v, t) {
                            (Some(v), Some(t)) => cases.push((v, t)),
                            _ => {
                                return err(
                                    term,
                                    "an OpSwitch case that is not a literal and a label",
                                )
                            }
                        }
                        k += 2;
                    }
                    let arm_ctx = Ctx {
                        stop: Some(merge),
                        ..ctx.clone()
                    };
                    // One arm per target block, not per case value: invocations that select
                    // two values with one target are in one block (one dynamic block), as
                    // in SPIR-V. A target that only branches to another target (naga writes
                    // WGSL's `case 0u, 1u:` as an empty case falling through) is that one.
                    let targets: HashSet<Word> =
                        cases.iter().map(|c| c.1).chain([default]).collect();
                    let resolve = |mut t: Word| {
                        for _ in 0..targets.len() {
                            match fb.blocks.get(&t).and_then(|b| only_branches(b)) {
                                Some(u) if targets.contains(&u) && !has_phi(fb, u) => t = u,
                                _ => break,
                            }
                        }
                        t
                    };
                    let default = resolve(default);
                    let mut arms: Vec<(Word, Vec<u32>)> = Vec::new();
                    for (v, t) in cases {
                        let t = resolve(t);
                        if t == default {
                            continue;
                        }
                        match arms.iter_mut().find(|a| a.0 == t) {
                            Some(a) => a.1.push(v),
                            None => arms.push((t, vec![v])),
                        }
                    }
                    let mut chain = self.arm(fb, default, &arm_ctx, term)?;
                    for (t, values) in arms.into_iter().rev() {
                        let then_body = self.arm(fb, t, &arm_ctx, term)?;
                        let s = self.sp(term);
                        let cond = (values.iter())
                            .map(|&v| bin(BinOp::Eq, sel.clone(), lit(v, s)))
                            .reduce(|a, b| bin(BinOp::BitOr, a, b))
                            .expect("an arm has a value");
                        chain = vec![self.stmt(
                            StmtKind::If {
                                cond,
                                then_body,
                                else_body: chain,
                            },
                            s,
                        )];
                    }
                    out.extend(chain);
                    b = merge;
                }
                (Op::BranchConditional, None) => {
                    // No merge: each target must be a break, a continue, or the region's end;
                    // at most one may continue the region.
                    let c = self.operand_word(term, 0)?;
                    let (t, f) = (id_at(term, 1)?, id_at(term, 2)?);
                    let (jt, jf) = (self.jump(t, ctx, term), self.jump(f, ctx, term));
                    match (jt, jf) {
                        (Some(a), Some(e)) => {
                            out.push(self.stmt(
                                StmtKind::If {
                                    cond: c,
                                    then_body: a,
                                    else_body: e,
                                },
                                self.sp(term),
                            ));
                            return Ok(out);
                        }
                        (Some(a), None) => {
                            out.push(self.stmt(
                                StmtKind::If {
                                    cond: c,
                                    then_body: a,
                                    else_body: Vec::new(),
                                },
                                self.sp(term),
                            ));
                            b = f;
                        }
                        (None, Some(e)) => {
                            out.push(self.stmt(
                                StmtKind::If {
                                    cond: c,
                                    then_body: e,
                                    else_body: Vec::new(),
                                },
                                self.sp(term),
                            ));
                            let s = self.sp(term);
                            if let Some(StmtKind::If { cond, .. }) = out.last_mut().map(|s| &mut s.kind) {
                                *cond = un(UnOp::Not, cond.clone());
                                cond.span = s;
                            }
                            b = t;
                        }
                        (None, None) => {
                            return err(
                                term,
                                "a conditional branch to two blocks without OpSelectionMerge (unstructured control flow)",
                            )
                        }
                    }
                }
                (Op::Switch, None) => return err(term, "OpSwitch without OpSelectionMerge"),
                (Op::Return, _) => {
                    out.extend(self.ret_stmts(ctx, term)?);
                    return Ok(out);
                }
                (Op::ReturnValue, _) => {
                    let v = self.operand_words(term, 0)?;
                    if let Some(regs) = &ctx.ret_regs {
                        let s = self.sp(term);
                        for (r, v) in regs.iter().zip(v) {
                            out.push(self.stmt(
                                StmtKind::Assign {
                                    reg: r.clone(),
                                    value: v,
                                },
                                s,
                            ));
                        }
                    }
                    out.extend(self.ret_stmts(ctx, term)?);
                    return Ok(out);
                }
                (Op::Kill | Op::TerminateInvocation, _) => {
                    out.push(self.stmt(StmtKind::Return, self.sp(term)));
                    return Ok(out);
                }
                // Reaching it is undefined behaviour (the SPIR-V specification).
                (Op::Unreachable, _) => {
                    out.push(self.stmt(StmtKind::Unreachable, self.sp(term)));
                    return Ok(out);
                }
                (op, _) => return err(term, format!("the terminator {op:?} is not supported")),
            }
            if Some(b) == ctx.stop {
                return Ok(out);
            }
        }
    }

    /// What `return` is here: the kernel's end; in an inlined function with one return,
    /// nothing (the call ends there); with several, a `break` out of the loop wrapped around
    /// the call, after setting the function's flag when inside one of its loops.
    fn ret_stmts(&self, ctx: &Ctx, term: &Instruction) -> Res<Vec<Stmt>> {
        let s = self.sp(term);
        if self.depth <= 1 {
            Ok(vec![self.stmt(StmtKind::Return, s)])
        } else if ctx.ret_breaks {
            let mut out = Vec::new();
            if ctx.in_callee_loop {
                let Some(flag) = &ctx.ret_flag else {
                    return err(term, "internal: a return inside a loop without a flag");
                };
                out.push(self.stmt(
                    StmtKind::Assign {
                        reg: flag.clone(),
                        value: lit(1, s),
                    },
                    s,
                ));
            }
            out.push(self.stmt(StmtKind::Break, s));
            Ok(out)
        } else {
            if ctx.in_callee_loop {
                self.return_in_loop.set(true);
            }
            Ok(Vec::new())
        }
    }

    /// A branch to `t` that leaves the region: `break`, `continue`, or nothing (the region's
    /// end); `None` when `t` continues the region.
    fn jump(&self, t: Word, ctx: &Ctx, _at: &Instruction) -> Option<Vec<Stmt>> {
        let s = self.sp(_at);
        if Some(t) == ctx.stop {
            Some(Vec::new())
        } else if Some(t) == ctx.brk {
            Some(vec![self.stmt(StmtKind::Break, s)])
        } else if Some(t) == ctx.cont {
            Some(vec![self.stmt(StmtKind::Continue, s)])
        } else {
            None
        }
    }

    /// An arm of a selection: empty when it goes straight to the merge.
    fn arm(&mut self, fb: &FnBlocks, t: Word, ctx: &Ctx, at: &Instruction) -> Res<Vec<Stmt>> {
        if let Some(s) = self.jump(t, ctx, at) {
            return Ok(s);
        }
        self.block(fb, t, at)?;
        self.region(fb, t, ctx)
    }

    /// `OpPhi`s at the start of a block: each takes the copy its incoming edge made.
    fn phis(&mut self, block: &dr::Block, out: &mut Vec<Stmt>) -> Res<()> {
        for i in &block.instructions {
            if i.class.opcode != Op::Phi {
                continue;
            }
            let r = result(i)?;
            let n = self.ix.words_of(i.result_type.unwrap_or(0)).unwrap_or(0);
            if n == 0 {
                return err(i, "an OpPhi of pointers is not supported");
            }
            let into = self.fresh(r, "_in");
            let s = self.sp(i);
            let vals: Vec<Expr> = (0..n)
                .map(|k| {
                    if n == 1 {
                        reg(&into, s)
                    } else {
                        reg(&format!("{into}_{k}"), s)
                    }
                })
                .collect();
            // Bind fresh registers (not the copies: the copies change on the next edge).
            let prefix = self.fresh(r, "");
            let mut regs = Vec::new();
            for (k, v) in vals.into_iter().enumerate() {
                let name = if n == 1 {
                    prefix.clone()
                } else {
                    format!("{prefix}_{k}")
                };
                out.push(self.stmt(
                    StmtKind::Assign {
                        reg: name.clone(),
                        value: v,
                    },
                    s,
                ));
                regs.push(reg(&name, s));
            }
            self.bind(r, Val::Words(regs));
        }
        Ok(())
    }

    /// The copies for the `OpPhi`s of `from`'s successors, at the end of `from`.
    fn edges_out(
        &mut self,
        fb: &FnBlocks,
        from: Word,
        term: &Instruction,
        out: &mut Vec<Stmt>,
    ) -> Res<()> {
        let succs: Vec<Word> = term
            .operands
            .iter()
            .filter_map(|o| match o {
                O::IdRef(t) if fb.blocks.contains_key(t) => Some(*t),
                _ => None,
            })
            .collect();
        let mut seen = HashSet::new();
        for t in succs {
            if !seen.insert(t) {
                continue;
            }
            let block = fb.blocks[&t];
            for i in &block.instructions {
                if i.class.opcode != Op::Phi {
                    continue;
                }
                let r = result(i)?;
                let mut k = 0;
                while k + 1 < i.operands.len() {
                    if id_of(&i.operands[k + 1]) == Some(from) {
                        let v = self.operand_words(i, k)?;
                        let into = self.fresh(r, "_in");
                        let n = v.len();
                        let s = self.sp(i);
                        for (j, w) in v.into_iter().enumerate() {
                            let name = if n == 1 {
                                into.clone()
                            } else {
                                format!("{into}_{j}")
                            };
                            out.push(self.stmt(
                                StmtKind::Assign {
                                    reg: name,
                                    value: w,
                                },
                                s,
                            ));
                        }
                    }
                    k += 2;
                }
            }
        }
        Ok(())
    }

    /// The instructions of a block between its phis and its merge/terminator.
    fn straight(&mut self, block: &dr::Block, out: &mut Vec<Stmt>) -> Res<()> {
        let n = block.instructions.len();
        for i in &block.instructions[..n.saturating_sub(1)] {
            self.instruction(i, out)?;
        }
        Ok(())
    }

    fn terminator(
        &mut self,
        fb: &FnBlocks,
        term: &Instruction,
        ctx: &Ctx,
        out: &mut Vec<Stmt>,
    ) -> Res<()> {
        // A loop header's own branch: into the body (or out of the loop).
        match term.class.opcode {
            Op::Branch => {
                let t = id_at(term, 0)?;
                match self.jump(t, ctx, term) {
                    Some(s) => out.extend(s),
                    None => out.extend(self.region(fb, t, ctx)?),
                }
            }
            Op::BranchConditional => {
                let c = self.operand_word(term, 0)?;
                let (t, f) = (id_at(term, 1)?, id_at(term, 2)?);
                let then_body = self.arm(fb, t, ctx, term)?;
                let else_body = self.arm(fb, f, ctx, term)?;
                out.push(self.stmt(
                    StmtKind::If {
                        cond: c,
                        then_body,
                        else_body,
                    },
                    self.sp(term),
                ));
            }
            op => {
                return err(
                    term,
                    format!("a loop header ending in {op:?} is not supported"),
                )
            }
        }
        Ok(())
    }

    /// Lowers one non-terminator instruction.
    fn instruction(&mut self, i: &Instruction, out: &mut Vec<Stmt>) -> Res<()> {
        let s = self.sp(i);
        let op = i.class.opcode;
        let rt = i.result_type.unwrap_or(0);
        match op {
            Op::Line | Op::NoLine | Op::Nop | Op::SelectionMerge | Op::LoopMerge | Op::Phi => {}
            Op::Undef => {
                let n = self.ix.words_of(rt).unwrap_or(1);
                self.bind(result(i)?, Val::Words((0..n).map(|_| lit(0, s)).collect()));
            }
            Op::ExtInst => return self.ext_inst(i, out),
            Op::Variable => {
                let r = result(i)?;
                let (ty, init) = match self.ix.types.get(&rt) {
                    Some(Ty::Pointer(_, t)) => (*t, i.operands.get(1).and_then(id_of)),
                    _ => return err(i, "OpVariable whose type is not a pointer"),
                };
                let n = self.private_words(ty, i)?;
                let prefix = self.fresh(r, "");
                self.variables
                    .extend((0..n).map(|k| format!("{prefix}_{k}")));
                let init = match init {
                    Some(c) => self.words(c, i)?,
                    None => (0..n).map(|_| lit(0, s)).collect(),
                };
                for (k, v) in init.into_iter().enumerate() {
                    out.push(self.stmt(
                        StmtKind::Assign {
                            reg: format!("{prefix}_{k}"),
                            value: v,
                        },
                        s,
                    ));
                }
                self.bind(
                    r,
                    Val::Ptr(Ptr {
                        base: Base::Regs(prefix, n),
                        off: lit(0, s),
                        ty,
                    }),
                );
            }
            Op::Load if !self.ix.uses.contains_key(&result(i)?) && !volatile(i) => {
                // Unread and not volatile: no effect on any outcome (plain loads do not
                // synchronise), so no event (docs/spirv.md).
            }
            Op::Load => {
                let p = self.ptr(i, 0)?;
                let tags = self.memory_operand_tags(&i.operands[1.min(i.operands.len())..]);
                let v = self.load(&p, i, out, &tags)?;
                self.assign(result(i)?, v, s, out);
            }
            Op::Store => {
                let p = self.ptr(i, 0)?;
                let v = self.operand_words(i, 1)?;
                let tags = self.memory_operand_tags(&i.operands[2.min(i.operands.len())..]);
                self.store(&p, v, i, out, tags)?;
            }
            Op::CopyMemory => {
                let (d, src) = (self.ptr(i, 0)?, self.ptr(i, 1)?);
                let v = self.load(&src, i, out, &[])?;
                let tmp = self.fresh(result_or_ptr(i), "_copy");
                let regs: Vec<Expr> = v
                    .into_iter()
                    .enumerate()
                    .map(|(k, e)| {
                        let n = format!("{tmp}_{k}");
                        out.push(self.stmt(
                            StmtKind::Assign {
                                reg: n.clone(),
                                value: e,
                            },
                            s,
                        ));
                        reg(&n, s)
                    })
                    .collect();
                self.store(&d, regs, i, out, Vec::new())?;
            }
            Op::AccessChain
            | Op::InBoundsAccessChain
            | Op::PtrAccessChain
            | Op::InBoundsPtrAccessChain => {
                let p = self.ptr(i, 0)?;
                let mut ty = p.ty;
                let mut off = p.off.clone();
                let mut first = 1;
                if matches!(op, Op::PtrAccessChain | Op::InBoundsPtrAccessChain) {
                    // The element operand steps over whole pointees.
                    let e = self.operand_word(i, 1)?;
                    let w = self.ix.words_of(ty).unwrap_or(1);
                    off = bin(BinOp::Add, off, bin(BinOp::Mul, e, lit(w, s)));
                    first = 2;
                }
                for o in &i.operands[first..] {
                    let idx_id = id_of(o).unwrap_or(0);
                    let idx = self.word(idx_id, i)?;
                    match self.ix.types.get(&ty).cloned() {
                        Some(Ty::Struct(ms)) => {
                            let Some(k) = as_lit(&idx) else {
                                return err(
                                    i,
                                    "a struct member chosen by a value that is not constant",
                                );
                            };
                            let Some(m) = ms.get(k as usize) else {
                                return err(i, format!("struct member {k} out of range"));
                            };
                            let before: u32 = ms[..k as usize]
                                .iter()
                                .map(|m| self.ix.words_of(*m).unwrap_or(0))
                                .sum();
                            off = bin(BinOp::Add, off, lit(before, s));
                            ty = *m;
                        }
                        Some(Ty::Array(e, _)) | Some(Ty::Vector(e, _)) => {
                            let w = self.ix.words_of(e).unwrap_or(1);
                            off = bin(BinOp::Add, off, bin(BinOp::Mul, idx, lit(w, s)));
                            ty = e;
                        }
                        _ => return err(i, "an access chain into a value that is not a composite"),
                    }
                }
                self.bind(
                    result(i)?,
                    Val::Ptr(Ptr {
                        base: p.base,
                        off,
                        ty,
                    }),
                );
            }
            Op::CopyObject | Op::CopyLogical | Op::Bitcast | Op::UConvert | Op::SConvert => {
                let r = result(i)?;
                match self.lookup(id_at(i, 0)?, i)? {
                    Val::Ptr(p) => self.bind(r, Val::Ptr(p)),
                    Val::Words(w) => self.bind(r, Val::Words(w)),
                }
            }
            Op::CompositeConstruct => {
                let mut w = Vec::new();
                for k in 0..i.operands.len() {
                    w.extend(self.operand_words(i, k)?);
                }
                self.bind(result(i)?, Val::Words(w));
            }
            Op::CompositeExtract => {
                let src = id_at(i, 0)?;
                let w = self.words(src, i)?;
                let ty = self.type_of(src, i)?;
                let (start, len) = self.select(ty, &i.operands[1..], i)?;
                self.bind(result(i)?, Val::Words(w[start..start + len].to_vec()));
            }
            Op::CompositeInsert => {
                let obj = self.operand_words(i, 0)?;
                let mut w = self.operand_words(i, 1)?;
                let (start, len) = self.select(rt, &i.operands[2..], i)?;
                if len != obj.len() || start + len > w.len() {
                    return err(i, "OpCompositeInsert of a value of the wrong size");
                }
                w.splice(start..start + len, obj);
                self.bind(result(i)?, Val::Words(w));
            }
            Op::VectorShuffle => {
                let a = self.operand_words(i, 0)?;
                let b = self.operand_words(i, 1)?;
                let mut w = Vec::new();
                for o in &i.operands[2..] {
                    let k = lit_u32(o).unwrap_or(0) as usize;
                    let v = if k < a.len() {
                        a.get(k)
                    } else {
                        b.get(k - a.len())
                    };
                    w.push(v.cloned().unwrap_or_else(|| lit(0, s)));
                }
                self.bind(result(i)?, Val::Words(w));
            }
            Op::Select => {
                let c = self.operand_words(i, 0)?;
                let a = self.operand_words(i, 1)?;
                let b = self.operand_words(i, 2)?;
                let v = a
                    .into_iter()
                    .zip(b)
                    .enumerate()
                    .map(|(k, (x, y))| tern(c[k.min(c.len() - 1)].clone(), x, y))
                    .collect();
                self.assign(result(i)?, v, s, out);
            }
            Op::Any | Op::All => {
                let w = self.operand_words(i, 0)?;
                let o = if op == Op::Any {
                    BinOp::LOr
                } else {
                    BinOp::LAnd
                };
                let v = w
                    .into_iter()
                    .reduce(|a, b| bin(o, a, b))
                    .unwrap_or(lit(0, s));
                self.assign(result(i)?, vec![v], s, out);
            }
            Op::AtomicLoad
            | Op::AtomicStore
            | Op::AtomicExchange
            | Op::AtomicCompareExchange
            | Op::AtomicIIncrement
            | Op::AtomicIDecrement
            | Op::AtomicIAdd
            | Op::AtomicISub
            | Op::AtomicUMin
            | Op::AtomicUMax
            | Op::AtomicSMin
            | Op::AtomicSMax
            | Op::AtomicAnd
            | Op::AtomicOr
            | Op::AtomicXor => self.atomic(i, out)?,
            Op::ControlBarrier => {
                let exec = self.scope(i, 0)?;
                let sem = self.semantics(i, 2)?;
                let mut tags = vec!["CBAR".to_string()];
                tags.extend(scope_tags(self.scope(i, 1)?));
                tags.extend(semantics_tags(sem));
                let kind = match exec {
                    3 => StmtKind::Barrier(BarrierScope::Subgroup),
                    2 => StmtKind::Barrier(BarrierScope::Workgroup),
                    4 => {
                        // An invocation-scope barrier synchronises nothing: a fence.
                        StmtKind::Fence { id: None }
                    }
                    other => {
                        return err(
                            i,
                            format!(
                                "a control barrier at {} scope (tangle has subgroup and workgroup barriers)",
                                scope_name(other)
                            ),
                        )
                    }
                };
                out.push(Stmt {
                    kind,
                    span: s,
                    tags,
                });
            }
            Op::MemoryBarrier => {
                let mut tags = scope_tags(self.scope(i, 0)?);
                tags.extend(semantics_tags(self.semantics(i, 1)?));
                out.push(Stmt {
                    kind: StmtKind::Fence { id: None },
                    span: s,
                    tags,
                });
            }
            Op::FunctionCall => {
                let fid = id_at(i, 0)?;
                let Some(f) = self.ix.funcs.get(&fid).copied() else {
                    return err(i, format!("a call to %{fid}, which is not a function"));
                };
                let mut args = Vec::new();
                for k in 1..i.operands.len() {
                    args.push(self.lookup(id_at(i, k)?, i)?);
                }
                let r = result(i)?;
                let n = self.ix.words_of(rt).unwrap_or(0);
                let ret = if n > 0 {
                    let prefix = self.fresh(r, "");
                    Some(
                        (0..n)
                            .map(|k| {
                                if n == 1 {
                                    prefix.clone()
                                } else {
                                    format!("{prefix}_{k}")
                                }
                            })
                            .collect::<Vec<_>>(),
                    )
                } else {
                    None
                };
                self.frames.push(HashMap::new());
                let body = self.function(f, &args, ret.clone())?;
                self.frames.pop();
                out.extend(body);
                if let Some(regs) = ret {
                    self.bind(r, Val::Words(regs.iter().map(|n| reg(n, s)).collect()));
                }
            }
            _ if (op as u32) >= Op::GroupNonUniformElect as u32
                && (op as u32) <= Op::GroupNonUniformQuadSwap as u32 =>
            {
                self.group(i, out)?
            }
            _ => self.arith(i, out)?,
        }
        Ok(())
    }

    fn type_of(&self, id: Word, at: &Instruction) -> Res<Word> {
        match self.ix.value_types.get(&id) {
            Some(t) => Ok(*t),
            None => err(at, format!("the type of %{id} is unknown")),
        }
    }

    /// The words that literal indices select in a value of type `ty`: (start, len).
    fn select(&self, mut ty: Word, idx: &[O], at: &Instruction) -> Res<(usize, usize)> {
        let mut start = 0usize;
        for o in idx {
            let k = lit_u32(o).unwrap_or(0) as usize;
            match self.ix.types.get(&ty) {
                Some(Ty::Struct(ms)) => {
                    let Some(m) = ms.get(k) else {
                        return err(at, format!("member {k} out of range"));
                    };
                    start += ms[..k]
                        .iter()
                        .map(|m| self.ix.words_of(*m).unwrap_or(0) as usize)
                        .sum::<usize>();
                    ty = *m;
                }
                Some(Ty::Array(e, _)) | Some(Ty::Vector(e, _)) => {
                    start += k * self.ix.words_of(*e).unwrap_or(1) as usize;
                    ty = *e;
                }
                _ => return err(at, "an index into a value that is not a composite"),
            }
        }
        Ok((start, self.ix.words_of(ty).unwrap_or(1) as usize))
    }

    fn load(
        &mut self,
        p: &Ptr,
        at: &Instruction,
        out: &mut Vec<Stmt>,
        tags: &[String],
    ) -> Res<Vec<Expr>> {
        let s = self.sp(at);
        let n = match self.ix.words_of(p.ty) {
            Some(n) => n,
            None => return err(at, "a load of a value without a size"),
        };
        match &p.base {
            Base::Buf(k) => {
                let b = &self.ix.bufs[*k];
                let mut v = Vec::new();
                for w in 0..n {
                    let tmp = format!("{}_ld{}", self.fresh(result_or_ptr(at), ""), w);
                    let index = bin(BinOp::Add, p.off.clone(), lit(w, s));
                    out.push(Stmt {
                        kind: StmtKind::Load {
                            reg: tmp.clone(),
                            global: b.name.clone(),
                            index: Some(self.wg_index(b, index, s)),
                        },
                        span: s,
                        tags: storage_tags(b.class)
                            .into_iter()
                            .chain(tags.iter().cloned())
                            .collect(),
                    });
                    v.push(reg(&tmp, s));
                }
                Ok(v)
            }
            Base::Regs(prefix, total) => {
                let total = *total;
                Ok((0..n)
                    .map(|w| self.pick(prefix, bin(BinOp::Add, p.off.clone(), lit(w, s)), total, s))
                    .collect())
            }
            Base::Input(id) => {
                let Some(b) = self.ix.builtins.get(id).copied() else {
                    return err(at, "an input variable that is not a built-in");
                };
                let all = self.builtin(b, at)?;
                let Some(o) = as_lit(&p.off) else {
                    return err(at, "a built-in indexed by a value that is not constant");
                };
                let o = o as usize;
                if o + n as usize > all.len() {
                    return err(at, "a built-in indexed out of range");
                }
                Ok(all[o..o + n as usize].to_vec())
            }
        }
    }

    /// Workgroup memory has one copy per workgroup: the index is offset by the workgroup.
    fn wg_index(&self, b: &Buf, index: Expr, s: Span) -> Expr {
        if b.per_workgroup() {
            let w = b.words.unwrap_or(0);
            bin(
                BinOp::Add,
                bin(
                    BinOp::Mul,
                    Expr {
                        kind: ExprKind::Builtin(Builtin::Wgid),
                        span: s,
                    },
                    lit(w, s),
                ),
                index,
            )
        } else {
            index
        }
    }

    /// Register `prefix_{off}`: directly for a constant offset, else a choice among all.
    fn pick(&self, prefix: &str, off: Expr, total: u32, s: Span) -> Expr {
        match as_lit(&off) {
            Some(k) => reg(&format!("{prefix}_{k}"), s),
            None => {
                let mut e = reg(&format!("{prefix}_0"), s);
                for k in 1..total.min(MAX_PRIVATE_WORDS) {
                    e = tern(
                        bin(BinOp::Eq, off.clone(), lit(k, s)),
                        reg(&format!("{prefix}_{k}"), s),
                        e,
                    );
                }
                e
            }
        }
    }

    fn store(
        &mut self,
        p: &Ptr,
        v: Vec<Expr>,
        at: &Instruction,
        out: &mut Vec<Stmt>,
        tags: Vec<String>,
    ) -> Res<()> {
        let s = self.sp(at);
        match &p.base {
            Base::Buf(k) => {
                let b = &self.ix.bufs[*k];
                for (w, value) in v.into_iter().enumerate() {
                    let index = bin(BinOp::Add, p.off.clone(), lit(w as u32, s));
                    let mut t = storage_tags(b.class);
                    t.extend(tags.iter().cloned());
                    out.push(Stmt {
                        kind: StmtKind::Store {
                            global: b.name.clone(),
                            index: Some(self.wg_index(b, index, s)),
                            value,
                        },
                        span: s,
                        tags: t,
                    });
                }
            }
            Base::Regs(prefix, total) => {
                let (prefix, total) = (prefix.clone(), *total);
                match as_lit(&p.off) {
                    Some(o) => {
                        for (w, value) in v.into_iter().enumerate() {
                            out.push(self.stmt(
                                StmtKind::Assign {
                                    reg: format!("{prefix}_{}", o + w as u32),
                                    value,
                                },
                                s,
                            ));
                        }
                    }
                    None => {
                        for (w, value) in v.into_iter().enumerate() {
                            let target = bin(BinOp::Add, p.off.clone(), lit(w as u32, s));
                            for k in 0..total {
                                let name = format!("{prefix}_{k}");
                                out.push(self.stmt(
                                    StmtKind::Assign {
                                        reg: name.clone(),
                                        value: tern(
                                            bin(BinOp::Eq, target.clone(), lit(k, s)),
                                            value.clone(),
                                            reg(&name, s),
                                        ),
                                    },
                                    s,
                                ));
                            }
                        }
                    }
                }
            }
            Base::Input(_) => return err(at, "a store to an input variable"),
        }
        Ok(())
    }

    fn scope(&self, i: &Instruction, k: usize) -> Res<u32> {
        let id = id_at(i, k)?;
        match self.ix.consts.get(&id) {
            Some(w) if w.len() == 1 => Ok(w[0]),
            _ => err(i, "a scope that is not a constant"),
        }
    }

    fn semantics(&self, i: &Instruction, k: usize) -> Res<u32> {
        self.scope(i, k)
            .or_else(|_| err(i, "memory semantics that are not a constant"))
    }

    fn atomic(&mut self, i: &Instruction, out: &mut Vec<Stmt>) -> Res<()> {
        let s = self.sp(i);
        let op = i.class.opcode;
        let p = self.ptr(i, 0)?;
        let Base::Buf(k) = p.base else {
            return err(i, "an atomic on a variable that is not in memory");
        };
        let b = &self.ix.bufs[k];
        let global = b.name.clone();
        let index = Some(self.wg_index(b, p.off.clone(), s));
        let mut tags = vec!["ATOM".to_string(), "A".to_string(), "NONPRIV".to_string()];
        tags.extend(storage_tags(b.class));
        tags.extend(scope_tags(self.scope(i, 1)?));
        let sem = self.semantics(i, 2)?;
        tags.extend(semantics_tags(sem));
        if matches!(op, Op::AtomicSMin | Op::AtomicSMax) {
            return err(i, "signed atomic minimum and maximum are not supported");
        }
        match op {
            Op::AtomicLoad => {
                tags.push("VIS".into());
                let r = self.fresh(result(i)?, "");
                out.push(Stmt {
                    kind: StmtKind::Load {
                        reg: r.clone(),
                        global,
                        index,
                    },
                    span: s,
                    tags,
                });
                self.bind(result(i)?, Val::Words(vec![reg(&r, s)]));
            }
            Op::AtomicStore => {
                tags.push("AV".into());
                let v = self.operand_word(i, 3)?;
                out.push(Stmt {
                    kind: StmtKind::Store {
                        global,
                        index,
                        value: v,
                    },
                    span: s,
                    tags,
                });
            }
            _ => {
                let (aop, args) = match op {
                    Op::AtomicExchange => (AtomicOp::Exchange, vec![self.operand_word(i, 3)?]),
                    Op::AtomicCompareExchange => (
                        AtomicOp::CompSwap,
                        vec![self.operand_word(i, 5)?, self.operand_word(i, 4)?],
                    ),
                    Op::AtomicIIncrement => (AtomicOp::Add, vec![lit(1, s)]),
                    Op::AtomicIDecrement => (AtomicOp::Sub, vec![lit(1, s)]),
                    Op::AtomicIAdd => (AtomicOp::Add, vec![self.operand_word(i, 3)?]),
                    Op::AtomicISub => (AtomicOp::Sub, vec![self.operand_word(i, 3)?]),
                    Op::AtomicUMin => (AtomicOp::Min, vec![self.operand_word(i, 3)?]),
                    Op::AtomicUMax => (AtomicOp::Max, vec![self.operand_word(i, 3)?]),
                    Op::AtomicAnd => (AtomicOp::And, vec![self.operand_word(i, 3)?]),
                    Op::AtomicOr => (AtomicOp::Or, vec![self.operand_word(i, 3)?]),
                    _ => (AtomicOp::Xor, vec![self.operand_word(i, 3)?]),
                };
                if op == Op::AtomicCompareExchange {
                    // Unequal semantics (operand 3) apply when the compare fails; the
                    // equal ones (2) are the stronger in practice. Both are read as one.
                    tags.extend(semantics_tags(self.semantics(i, 3)?));
                }
                tags.extend(["AV".to_string(), "VIS".to_string()]);
                let tags = crate::syntax::tags::split_rmw(dedup(tags));
                let r = self.fresh(result(i)?, "");
                out.push(Stmt {
                    kind: StmtKind::Atomic {
                        reg: Some(r.clone()),
                        op: aop,
                        global,
                        index,
                        args,
                    },
                    span: s,
                    tags,
                });
                self.bind(result(i)?, Val::Words(vec![reg(&r, s)]));
            }
        }
        Ok(())
    }

    /// `OpGroupNonUniform*` at subgroup scope.
    fn group(&mut self, i: &Instruction, out: &mut Vec<Stmt>) -> Res<()> {
        let s = self.sp(i);
        let op = i.class.opcode;
        let r = result(i)?;
        if self.scope(i, 0)? != 3 {
            return err(i, "a group operation whose scope is not Subgroup");
        }
        let sg = |sop: SgOp, args: Vec<Expr>| Expr {
            kind: ExprKind::SgOp(sop, args),
            span: s,
        };
        // Reductions and scans: `Scope GroupOperation value`.
        let red = |o: RedOp| -> Option<RedOp> { Some(o) };
        let redop = match op {
            Op::GroupNonUniformIAdd => red(RedOp::Add),
            Op::GroupNonUniformIMul => red(RedOp::Mul),
            Op::GroupNonUniformUMin => red(RedOp::Min),
            Op::GroupNonUniformUMax => red(RedOp::Max),
            Op::GroupNonUniformBitwiseAnd | Op::GroupNonUniformLogicalAnd => red(RedOp::And),
            Op::GroupNonUniformBitwiseOr | Op::GroupNonUniformLogicalOr => red(RedOp::Or),
            Op::GroupNonUniformBitwiseXor | Op::GroupNonUniformLogicalXor => red(RedOp::Xor),
            _ => None,
        };
        let group_op = |k: usize| -> Res<spirv::GroupOperation> {
            match i.operands.get(k) {
                Some(O::GroupOperation(g)) => Ok(*g),
                _ => err(i, "a group operation without a GroupOperation operand"),
            }
        };
        let mk = |g: spirv::GroupOperation, o: RedOp| -> Res<SgOp> {
            Ok(match g {
                spirv::GroupOperation::Reduce => SgOp::Reduce(o),
                spirv::GroupOperation::InclusiveScan => SgOp::InclusiveScan(o),
                spirv::GroupOperation::ExclusiveScan => SgOp::ExclusiveScan(o),
                other => return err(i, format!("the group operation {other:?} is not supported")),
            })
        };
        let values: Vec<Expr> = if let Some(o) = redop {
            let sop = mk(group_op(1)?, o)?;
            let v = self.operand_words(i, 2)?;
            v.into_iter().map(|w| sg(sop, vec![w])).collect()
        } else {
            match op {
                Op::GroupNonUniformElect => vec![sg(SgOp::Elect, vec![])],
                Op::GroupNonUniformAll => vec![sg(SgOp::All, vec![self.operand_word(i, 1)?])],
                Op::GroupNonUniformAny => vec![sg(SgOp::Any, vec![self.operand_word(i, 1)?])],
                Op::GroupNonUniformAllEqual => self
                    .operand_words(i, 1)?
                    .into_iter()
                    .map(|w| sg(SgOp::AllEqual, vec![w]))
                    .reduce(|a, b| bin(BinOp::LAnd, a, b))
                    .into_iter()
                    .collect(),
                Op::GroupNonUniformBallot => {
                    let p = self.operand_word(i, 1)?;
                    // Word k holds lanes 32k to 32k+31, which exist only in subgroups wider
                    // than 32k.
                    (0..4)
                        .map(|k| match SgOp::ballot_of_word(k) {
                            Some(op) if k == 0 || self.dims.subgroup > 32 * k => {
                                sg(op, vec![p.clone()])
                            }
                            _ => lit(0, s),
                        })
                        .collect()
                }
                Op::GroupNonUniformBroadcast => {
                    let id = self.operand_word(i, 2)?;
                    self.operand_words(i, 1)?
                        .into_iter()
                        .map(|w| sg(SgOp::Broadcast, vec![w, id.clone()]))
                        .collect()
                }
                Op::GroupNonUniformBroadcastFirst => self
                    .operand_words(i, 1)?
                    .into_iter()
                    .map(|w| sg(SgOp::BroadcastFirst, vec![w]))
                    .collect(),
                Op::GroupNonUniformShuffle
                | Op::GroupNonUniformShuffleXor
                | Op::GroupNonUniformShuffleUp
                | Op::GroupNonUniformShuffleDown => {
                    let sop = match op {
                        Op::GroupNonUniformShuffle => SgOp::Shuffle,
                        Op::GroupNonUniformShuffleXor => SgOp::ShuffleXor,
                        Op::GroupNonUniformShuffleUp => SgOp::ShuffleUp,
                        _ => SgOp::ShuffleDown,
                    };
                    let id = self.operand_word(i, 2)?;
                    self.operand_words(i, 1)?
                        .into_iter()
                        .map(|w| sg(sop, vec![w, id.clone()]))
                        .collect()
                }
                Op::GroupNonUniformBallotBitCount => {
                    let b = self.operand_words(i, 2)?;
                    let f = match group_op(1)? {
                        spirv::GroupOperation::Reduce => LocalFn::BallotBitCount,
                        spirv::GroupOperation::InclusiveScan => LocalFn::BallotInclusiveBitCount,
                        spirv::GroupOperation::ExclusiveScan => LocalFn::BallotExclusiveBitCount,
                        other => {
                            return err(
                                i,
                                format!("the group operation {other:?} is not supported"),
                            )
                        }
                    };
                    vec![self.ballot_call(f, b, vec![], s, i, out)?]
                }
                Op::GroupNonUniformBallotBitExtract => {
                    let b = self.operand_words(i, 1)?;
                    let k = self.operand_word(i, 2)?;
                    vec![self.ballot_call(LocalFn::BallotBitExtract, b, vec![k], s, i, out)?]
                }
                Op::GroupNonUniformBallotFindLSB => {
                    let b = self.operand_words(i, 1)?;
                    vec![self.ballot_call(LocalFn::BallotFindLsb, b, vec![], s, i, out)?]
                }
                Op::GroupNonUniformBallotFindMSB => {
                    let b = self.operand_words(i, 1)?;
                    vec![self.ballot_call(LocalFn::BallotFindMsb, b, vec![], s, i, out)?]
                }
                Op::GroupNonUniformInverseBallot => {
                    let b = self.operand_words(i, 1)?;
                    let lane = Expr {
                        kind: ExprKind::Builtin(Builtin::Lane),
                        span: s,
                    };
                    vec![self.ballot_call(LocalFn::BallotBitExtract, b, vec![lane], s, i, out)?]
                }
                other => return err(i, format!("the group operation {other:?} is not supported")),
            }
        };
        self.assign(r, values, s, out);
        Ok(())
    }

    /// A ballot helper over a `uvec4` ballot. tangle's ballot helpers read one 32-bit word;
    /// above 32 lanes the helper is written over the words the subgroup has (one per 32
    /// lanes), each word bound once to a register first: a word may be a subgroup op or a
    /// variable's value, which must not be evaluated twice.
    #[allow(clippy::too_many_arguments)]
    fn ballot_call(
        &mut self,
        f: LocalFn,
        b: Vec<Expr>,
        extra: Vec<Expr>,
        s: Span,
        at: &Instruction,
        out: &mut Vec<Stmt>,
    ) -> Res<Expr> {
        if b.len() != 4 {
            return err(at, "a ballot that is not a uvec4");
        }
        let call = |f: LocalFn, args: Vec<Expr>| Expr {
            kind: ExprKind::Call(f, args),
            span: s,
        };
        let n = self.dims.subgroup.div_ceil(32).clamp(1, 4) as usize;
        if n == 1 {
            let mut args = vec![b[0].clone()];
            args.extend(extra);
            return Ok(call(f, args));
        }
        let r = result(at)?;
        let mut once = |k: &str, e: Expr, out: &mut Vec<Stmt>| -> Expr {
            if matches!(e.kind, ExprKind::Lit(_) | ExprKind::Builtin(_))
                || matches!(&e.kind, ExprKind::Reg(x) if !self.variables.contains(x))
            {
                return e;
            }
            let name = self.fresh(r, k);
            self.taken.insert(name.clone());
            out.push(self.stmt(
                StmtKind::Assign {
                    reg: name.clone(),
                    value: e,
                },
                s,
            ));
            reg(&name, s)
        };
        let w: Vec<Expr> = (b.into_iter().take(n).enumerate())
            .map(|(k, e)| once(&format!("_w{k}"), e, out))
            .collect();
        let extra: Vec<Expr> = extra.into_iter().map(|e| once("_i", e, out)).collect();
        let num = |v: u32| lit(v, s);
        let bin = |op: BinOp, a: Expr, b: Expr| Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span: s,
        };
        let pick = |c: Expr, a: Expr, b: Expr| Expr {
            kind: ExprKind::Ternary(Box::new(c), Box::new(a), Box::new(b)),
            span: s,
        };
        let lane = Expr {
            kind: ExprKind::Builtin(Builtin::Lane),
            span: s,
        };
        let nonzero = |e: &Expr| bin(BinOp::Ne, e.clone(), num(0));
        let sum = |parts: Vec<Expr>| {
            (parts.into_iter())
                .reduce(|a, b| bin(BinOp::Add, a, b))
                .expect("at least one word")
        };
        Ok(match f {
            LocalFn::BallotBitCount => sum(w.iter().map(|x| call(f, vec![x.clone()])).collect()),
            LocalFn::BallotInclusiveBitCount | LocalFn::BallotExclusiveBitCount => {
                // Word k counts its bits below lane - 32k (+1 inclusive), all of them when
                // that is 32 or more (a shift by 32 or more gives 0, minus 1 all ones), none
                // when the lane is below the word.
                let inc = u32::from(f == LocalFn::BallotInclusiveBitCount);
                let parts = (w.iter().enumerate())
                    .map(|(k, x)| {
                        let base = 32 * k as u32;
                        let width = bin(
                            BinOp::Add,
                            bin(BinOp::Sub, lane.clone(), num(base)),
                            num(inc),
                        );
                        let below = bin(BinOp::Sub, bin(BinOp::Shl, num(1), width), num(1));
                        let count = call(
                            LocalFn::BallotBitCount,
                            vec![bin(BinOp::BitAnd, x.clone(), below)],
                        );
                        if k == 0 {
                            count
                        } else {
                            pick(bin(BinOp::Ge, lane.clone(), num(base)), count, num(0))
                        }
                    })
                    .collect();
                sum(parts)
            }
            LocalFn::BallotBitExtract => {
                // Bit i of the word holding it; past the last word, 0.
                let i = extra[0].clone();
                let mut acc = call(
                    f,
                    vec![
                        w[n - 1].clone(),
                        bin(BinOp::Sub, i.clone(), num(32 * (n as u32 - 1))),
                    ],
                );
                for k in (0..n - 1).rev() {
                    let base = 32 * k as u32;
                    let here = call(f, vec![w[k].clone(), bin(BinOp::Sub, i.clone(), num(base))]);
                    acc = pick(bin(BinOp::Lt, i.clone(), num(base + 32)), here, acc);
                }
                acc
            }
            LocalFn::BallotFindLsb | LocalFn::BallotFindMsb => {
                // The first non-zero word from the low (LSB) or high (MSB) end; none: -1.
                let order: Vec<usize> = if f == LocalFn::BallotFindLsb {
                    (0..n).rev().collect()
                } else {
                    (0..n).collect()
                };
                let mut acc = num(u32::MAX);
                for k in order {
                    let found = bin(BinOp::Add, num(32 * k as u32), call(f, vec![w[k].clone()]));
                    acc = pick(nonzero(&w[k]), found, acc);
                }
                acc
            }
        })
    }

    fn ext_inst(&mut self, i: &Instruction, out: &mut Vec<Stmt>) -> Res<()> {
        let set = id_at(i, 0)?;
        let name = self.ix.ext_sets.get(&set).cloned().unwrap_or_default();
        if name.starts_with("NonSemantic.") {
            return Ok(());
        }
        let s = self.sp(i);
        let k = match i.operands.get(1) {
            Some(O::LiteralExtInstInteger(k)) => *k,
            _ => lit_u32(i.operands.get(1).unwrap_or(&O::LiteralBit32(0))).unwrap_or(u32::MAX),
        };
        if name == "GLSL.std.450" {
            // UMin 38, UMax 41, SMin 39, SMax 42, FindILsb 73, FindUMsb 75, SAbs 5.
            let a = self.operand_words(i, 2)?;
            let b = if i.operands.len() > 3 {
                Some(self.operand_words(i, 3)?)
            } else {
                None
            };
            let v: Vec<Expr> = match (k, b) {
                (38, Some(b)) | (41, Some(b)) | (39, Some(b)) | (42, Some(b)) => a
                    .into_iter()
                    .zip(b)
                    .map(|(x, y)| {
                        let lt = if k == 38 || k == 41 {
                            bin(BinOp::Lt, x.clone(), y.clone())
                        } else {
                            slt(x.clone(), y.clone())
                        };
                        if k == 38 || k == 39 {
                            tern(lt, x, y)
                        } else {
                            tern(lt, y, x)
                        }
                    })
                    .collect(),
                (5, None) => a.into_iter().map(abs).collect(),
                (73, None) => a
                    .into_iter()
                    .map(|x| {
                        tern(
                            bin(BinOp::Eq, x.clone(), lit(0, s)),
                            lit(u32::MAX, s),
                            Expr {
                                kind: ExprKind::Call(LocalFn::BallotFindLsb, vec![x]),
                                span: s,
                            },
                        )
                    })
                    .collect(),
                (75, None) => a
                    .into_iter()
                    .map(|x| {
                        tern(
                            bin(BinOp::Eq, x.clone(), lit(0, s)),
                            lit(u32::MAX, s),
                            Expr {
                                kind: ExprKind::Call(LocalFn::BallotFindMsb, vec![x]),
                                span: s,
                            },
                        )
                    })
                    .collect(),
                _ => {
                    return err(
                        i,
                        format!("the GLSL.std.450 instruction {k} is not supported"),
                    )
                }
            };
            self.assign(result(i)?, v, s, out);
            return Ok(());
        }
        err(
            i,
            format!("instructions of the extended set `{name}` are not supported"),
        )
    }

    /// Integer and boolean arithmetic, componentwise.
    fn arith(&mut self, i: &Instruction, out: &mut Vec<Stmt>) -> Res<()> {
        let s = self.sp(i);
        let op = i.class.opcode;
        let unary: Option<fn(Expr) -> Expr> = match op {
            Op::SNegate => Some(|a| un(UnOp::Neg, a)),
            Op::Not => Some(|a| un(UnOp::BitNot, a)),
            Op::LogicalNot => Some(|a| un(UnOp::Not, a)),
            Op::BitCount => Some(|a| {
                let s = a.span;
                Expr {
                    kind: ExprKind::Call(LocalFn::BallotBitCount, vec![a]),
                    span: s,
                }
            }),
            _ => None,
        };
        if let Some(f) = unary {
            let v = self.operand_words(i, 0)?.into_iter().map(f).collect();
            self.assign(result(i)?, v, s, out);
            return Ok(());
        }
        let binary: Option<fn(Expr, Expr) -> Expr> = match op {
            Op::IAdd => Some(|a, b| bin(BinOp::Add, a, b)),
            Op::ISub => Some(|a, b| bin(BinOp::Sub, a, b)),
            Op::IMul => Some(|a, b| bin(BinOp::Mul, a, b)),
            Op::UDiv => Some(|a, b| bin(BinOp::Div, a, b)),
            Op::UMod => Some(|a, b| bin(BinOp::Rem, a, b)),
            Op::SDiv => Some(|a, b| {
                let q = bin(BinOp::Div, abs(a.clone()), abs(b.clone()));
                let neg = bin(BinOp::Ne, is_neg(a), is_neg(b));
                tern(neg, un(UnOp::Neg, q.clone()), q)
            }),
            Op::SRem => Some(|a, b| {
                let r = bin(BinOp::Rem, abs(a.clone()), abs(b));
                tern(is_neg(a), un(UnOp::Neg, r.clone()), r)
            }),
            // A shift by 32 or more, undefined in SPIR-V, is taken modulo 32 as WGSL
            // requires and as GPUs do (naga's writer relies on it).
            Op::ShiftLeftLogical => Some(|a, b| bin(BinOp::Shl, a, mod32(b))),
            Op::ShiftRightLogical => Some(|a, b| bin(BinOp::Shr, a, mod32(b))),
            Op::ShiftRightArithmetic => Some(|a, b| {
                let b = mod32(b);
                tern(
                    is_neg(a.clone()),
                    un(
                        UnOp::BitNot,
                        bin(BinOp::Shr, un(UnOp::BitNot, a.clone()), b.clone()),
                    ),
                    bin(BinOp::Shr, a, b),
                )
            }),
            Op::BitwiseAnd => Some(|a, b| bin(BinOp::BitAnd, a, b)),
            Op::BitwiseOr => Some(|a, b| bin(BinOp::BitOr, a, b)),
            Op::BitwiseXor => Some(|a, b| bin(BinOp::BitXor, a, b)),
            Op::IEqual | Op::LogicalEqual => Some(|a, b| bin(BinOp::Eq, a, b)),
            Op::INotEqual | Op::LogicalNotEqual => Some(|a, b| bin(BinOp::Ne, a, b)),
            Op::ULessThan => Some(|a, b| bin(BinOp::Lt, a, b)),
            Op::ULessThanEqual => Some(|a, b| bin(BinOp::Le, a, b)),
            Op::UGreaterThan => Some(|a, b| bin(BinOp::Gt, a, b)),
            Op::UGreaterThanEqual => Some(|a, b| bin(BinOp::Ge, a, b)),
            Op::SLessThan => Some(slt),
            Op::SLessThanEqual => Some(|a, b| un(UnOp::Not, slt(b, a))),
            Op::SGreaterThan => Some(|a, b| slt(b, a)),
            Op::SGreaterThanEqual => Some(|a, b| un(UnOp::Not, slt(a, b))),
            Op::LogicalAnd => Some(|a, b| bin(BinOp::LAnd, a, b)),
            Op::LogicalOr => Some(|a, b| bin(BinOp::LOr, a, b)),
            _ => None,
        };
        if let Some(f) = binary {
            let a = self.operand_words(i, 0)?;
            let b = self.operand_words(i, 1)?;
            if a.len() != b.len() {
                return err(i, "operands of different sizes");
            }
            let v = a.into_iter().zip(b).map(|(x, y)| f(x, y)).collect();
            self.assign(result(i)?, v, s, out);
            return Ok(());
        }
        // Bit fields: offset and count are scalars; SPIR-V leaves offset + count > 32
        // undefined (WGSL's writers clamp them first), and shifts of 32 or more give 0 here.
        if matches!(op, Op::BitFieldUExtract | Op::BitFieldInsert) {
            let mask = |cnt: Expr| bin(BinOp::Sub, bin(BinOp::Shl, lit(1, s), cnt), lit(1, s));
            let base = self.operand_words(i, 0)?;
            let v = if op == Op::BitFieldUExtract {
                let off = self.operand_word(i, 1)?;
                let cnt = self.operand_word(i, 2)?;
                base.into_iter()
                    .map(|a| {
                        bin(
                            BinOp::BitAnd,
                            bin(BinOp::Shr, a, off.clone()),
                            mask(cnt.clone()),
                        )
                    })
                    .collect()
            } else {
                let ins = self.operand_words(i, 1)?;
                let off = self.operand_word(i, 2)?;
                let cnt = self.operand_word(i, 3)?;
                let field = bin(BinOp::Shl, mask(cnt), off.clone());
                base.into_iter()
                    .zip(ins)
                    .map(|(a, b)| {
                        bin(
                            BinOp::BitOr,
                            bin(BinOp::BitAnd, a, un(UnOp::BitNot, field.clone())),
                            bin(
                                BinOp::BitAnd,
                                bin(BinOp::Shl, b, off.clone()),
                                field.clone(),
                            ),
                        )
                    })
                    .collect()
            };
            self.assign(result(i)?, v, s, out);
            return Ok(());
        }
        if matches!(
            self.ix.types.get(&i.result_type.unwrap_or(0)),
            Some(Ty::Float)
        ) {
            return err(
                i,
                format!(
                    "{op:?}: floating-point values are not supported (only integers and booleans)"
                ),
            );
        }
        err(i, format!("the instruction {op:?} is not supported"))
    }

    /// Tags of a plain access's memory operands: `NonPrivatePointer`, and
    /// `MakePointerAvailable` / `MakePointerVisible` with the scope that follows each (after
    /// an `Aligned` literal, when there is one).
    fn memory_operand_tags(&self, ops: &[O]) -> Vec<String> {
        let mut t = Vec::new();
        let Some(O::MemoryAccess(m)) = ops.first() else {
            return t;
        };
        let mut rest = ops[1..].iter();
        if m.contains(spirv::MemoryAccess::ALIGNED) {
            rest.next();
        }
        if m.contains(spirv::MemoryAccess::NON_PRIVATE_POINTER) {
            t.push("NONPRIV".to_string());
        }
        let mut scoped = |tag: &str, t: &mut Vec<String>| {
            t.push(tag.to_string());
            let scope = rest
                .next()
                .and_then(id_of)
                .and_then(|id| self.ix.consts.get(&id))
                .and_then(|w| w.first().copied());
            if let Some(s) = scope {
                for x in scope_tags(s) {
                    if !t.contains(&x) {
                        t.push(x);
                    }
                }
            }
        };
        if m.contains(spirv::MemoryAccess::MAKE_POINTER_AVAILABLE) {
            scoped("AV", &mut t);
        }
        if m.contains(spirv::MemoryAccess::MAKE_POINTER_VISIBLE) {
            scoped("VIS", &mut t);
        }
        t
    }

    /// A built-in's words.
    fn builtin(&self, b: BuiltIn, at: &Instruction) -> Res<Vec<Expr>> {
        let s = self.sp(at);
        let bi = |x: Builtin| Expr {
            kind: ExprKind::Builtin(x),
            span: s,
        };
        let [x, y, _z] = self.dims.workgroup;
        let lid = bi(Builtin::Lid);
        let local3 = vec![
            bin(BinOp::Rem, lid.clone(), lit(x, s)),
            bin(
                BinOp::Rem,
                bin(BinOp::Div, lid.clone(), lit(x, s)),
                lit(y, s),
            ),
            bin(BinOp::Div, lid.clone(), lit(x * y, s)),
        ];
        let wg: u32 = self.dims.workgroup.iter().product();
        Ok(match b {
            BuiltIn::LocalInvocationIndex => vec![lid],
            BuiltIn::LocalInvocationId => local3,
            BuiltIn::GlobalInvocationId => {
                let mut g = local3;
                g[0] = bin(
                    BinOp::Add,
                    bin(BinOp::Mul, bi(Builtin::Wgid), lit(x, s)),
                    g[0].clone(),
                );
                g
            }
            BuiltIn::WorkgroupId => vec![bi(Builtin::Wgid), lit(0, s), lit(0, s)],
            BuiltIn::NumWorkgroups => vec![lit(self.dims.workgroups, s), lit(1, s), lit(1, s)],
            BuiltIn::WorkgroupSize => self.dims.workgroup.iter().map(|v| lit(*v, s)).collect(),
            BuiltIn::SubgroupLocalInvocationId => vec![bi(Builtin::Lane)],
            BuiltIn::SubgroupSize => vec![bi(Builtin::Sgsize)],
            BuiltIn::SubgroupId => vec![bi(Builtin::Sgid)],
            BuiltIn::NumSubgroups => vec![lit(wg.div_ceil(self.dims.subgroup.max(1)), s)],
            BuiltIn::GlobalSize => vec![lit(wg * self.dims.workgroups, s), lit(1, s), lit(1, s)],
            BuiltIn::EnqueuedWorkgroupSize => {
                self.dims.workgroup.iter().map(|v| lit(*v, s)).collect()
            }
            BuiltIn::GlobalOffset => vec![lit(0, s), lit(0, s), lit(0, s)],
            other => return err(at, format!("the built-in {other:?} is not supported")),
        })
    }
}

struct FnBlocks<'f> {
    blocks: HashMap<Word, &'f dr::Block>,
}

/// The block a block does nothing but branch to (debug line instructions aside).
fn only_branches(b: &dr::Block) -> Option<Word> {
    let mut rest =
        (b.instructions.iter()).filter(|i| !matches!(i.class.opcode, Op::Line | Op::NoLine));
    match (rest.next(), rest.next()) {
        (Some(i), None) if i.class.opcode == Op::Branch => id_of(i.operands.first()?),
        _ => None,
    }
}

/// Does block `b` start with an `OpPhi` (its incoming edges matter)?
fn has_phi(fb: &FnBlocks, b: Word) -> bool {
    (fb.blocks.get(&b))
        .is_some_and(|blk| blk.instructions.iter().any(|i| i.class.opcode == Op::Phi))
}

fn result_or_ptr(i: &Instruction) -> Word {
    i.result_id
        .or_else(|| i.operands.first().and_then(id_of))
        .unwrap_or(0)
}

fn dedup(tags: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

fn scope_name(s: u32) -> &'static str {
    match s {
        0 => "CrossDevice",
        1 => "Device",
        2 => "Workgroup",
        3 => "Subgroup",
        4 => "Invocation",
        5 => "QueueFamily",
        _ => "an unknown",
    }
}

/// The memory-model tags of a scope (docs/memory-models.md).
fn scope_tags(s: u32) -> Vec<String> {
    let t = match s {
        0 | 1 => "DV",
        2 => "WG",
        3 => "SG",
        5 => "QF",
        _ => return Vec::new(),
    };
    vec![t.to_string()]
}

/// The tags of memory semantics bits.
fn semantics_tags(sem: u32) -> Vec<String> {
    let mut t = Vec::new();
    if sem & 0x2 != 0 {
        t.push("ACQ");
    }
    if sem & 0x4 != 0 {
        t.push("REL");
    }
    if sem & 0x18 != 0 {
        t.extend(["ACQ", "REL"]);
    }
    if sem & 0x40 != 0 {
        t.push("SEMSC0");
    }
    if sem & 0x100 != 0 {
        t.push("SEMSC1");
    }
    if sem & 0x2000 != 0 {
        t.push("SEMAV");
    }
    if sem & 0x4000 != 0 {
        t.push("SEMVIS");
    }
    let mut out: Vec<String> = Vec::new();
    for x in t {
        if !out.iter().any(|o| o == x) {
            out.push(x.to_string());
        }
    }
    out
}

/// A buffer's storage class as a tag: SC0 for storage and uniform memory, SC1 for workgroup.
fn storage_tags(c: StorageClass) -> Vec<String> {
    match c {
        StorageClass::Workgroup => vec!["SC1".into()],
        _ => vec!["SC0".into()],
    }
}
