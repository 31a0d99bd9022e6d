//! Front end for SPIR-V read as the module itself (issue 16): `.spv` binaries and `.spvasm`
//! text (assembled by `spirv-as`) -> the same resolved [`ast::Test`] a `.litmus` file gives.
//!
//! A sibling of [`crate::syntax`] and [`crate::shader`]. SIMT-Step's dynamic blocks are SPIR-V's
//! own blocks, so this reads the module with `rspirv` (the gfx-rs crate for SPIR-V modules)
//! and lowers its structured control flow directly ([`lower`]), instead of going through
//! naga's IR, which restructures blocks and refuses much of the SPIR-V found in test suites.
//! Dartagnan's test annotations (`; @Input`, `; @Output`, `; @Config`: [`header`]) give the
//! launch and the question, so `tangle check FILE.spvasm` needs no flags.
//!
//! Architecture invariant: never panics on any input (a panic inside `rspirv` is caught and
//! reported); every error names the file, the line of the instruction (in the `.spvasm` text,
//! the disassembly, or the source `OpLine`s point to) and what is not supported.

pub mod header;
pub mod lower;

use crate::shader::source::{self, Text};
use crate::shader::{Aliasing, Launch};
use crate::syntax::ast::{Condition, Expectation, Global, Operand, Prop, Quantifier, Test};
use crate::syntax::{limits, Diagnostic, Diagnostics, Span};
use header::{Cond, Header, Term};
use lower::{Buf, Dims, Index};
use rspirv::dr::{self, Instruction};
use spirv::{Op, Word};
use std::collections::HashMap;
use std::path::Path;

/// `.spvasm` (text) or `.spv` (binary) by extension.
pub fn is_spirv(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("spvasm") | Some("spv")
    )
}

/// Per global instruction index: its line and column, when known.
type LineTable = Vec<Option<(u32, u32)>>;

/// A module read, with how to place its instructions in the text reports show.
struct Read {
    module: dr::Module,
    /// The text shown in diagnostics (the `.spvasm`, a disassembly, or the GLSL source).
    text: Text,
    /// Global instruction index -> line (and column).
    lines: Vec<Option<(u32, u32)>>,
    /// Each loaded instruction's global index, by address.
    index: HashMap<*const Instruction, usize>,
    /// The names annotations use -> ids: a `.spvasm` text's own `%names` (`spirv-as` numbers
    /// them in order of first appearance), or for a binary the names `spirv-dis` would print
    /// ([`friendly_names`]).
    names: HashMap<String, Word>,
    /// Whether a numeric `%12` is the id 12 (a binary), rather than a text's name.
    numbers_are_ids: bool,
    /// clspv's reflection: (instruction number, literal operands).
    reflection: Vec<(u32, Vec<Word>)>,
}

/// Reads a SPIR-V module and its launch into a test.
pub fn load(path: &Path, launch: &Launch, max_bytes: u64) -> Result<Test, Diagnostics> {
    let file = path.display().to_string();
    let bytes = crate::input::read(path, max_bytes)?;
    let asm = path.extension().is_some_and(|e| e == "spvasm");
    let (read, hdr) = if asm {
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| bare(&file, 1, format!("the file is not UTF-8 text: {e}")))?
            .to_string();
        let hdr = header::read(&text, ";").map_err(|e| {
            let t = Text::new(text.clone());
            Diagnostics(vec![Diagnostic::new(
                &file,
                &text,
                t.line_span(e.pos.0, e.pos.1),
                e.message,
            )])
        })?;
        let words = assemble(&file, &text)?;
        (read_words(&file, &words, Lines::Asm(text))?, hdr)
    } else {
        if !bytes.len().is_multiple_of(4) {
            return Err(bare(
                &file,
                0,
                "not a SPIR-V binary (its length is not a multiple of 4)".into(),
            ));
        }
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        (
            read_words(&file, &words, Lines::Binary(Some(path)))?,
            Header::default(),
        )
    };
    build(&file, read, &hdr, launch)
}

/// GLSL, compiled by `glslangValidator -g`: witnesses and errors point into the GLSL.
pub fn load_glsl(path: &Path, launch: &Launch, max_bytes: u64) -> Result<Test, Diagnostics> {
    let file = path.display().to_string();
    let bytes = crate::input::read(path, max_bytes)?;
    let source = String::from_utf8_lossy(&bytes).into_owned();
    // The SIMT-Step TLA+ artifact's extensions: blanked before glslang, read into the launch.
    let tla = crate::shader::tla::read(&source).map_err(|(line, m)| {
        let t = Text::new(source.clone());
        Diagnostics(vec![Diagnostic::new(
            &file,
            &source,
            t.line_span(line, 1),
            m,
        )])
    })?;
    let Some(tla) = tla else {
        let spv = crate::shader::glslang(&file, path)?;
        return load_compiled(&file, &to_words(&spv), source, launch);
    };
    let ext = path
        .extension()
        .map_or("comp".into(), |e| e.to_string_lossy().to_string());
    let tmp = std::env::temp_dir().join(format!(
        "tangle-tla-{}-{}.{ext}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    std::fs::write(&tmp, &tla.text)
        .map_err(|e| bare(&file, 1, format!("cannot write a temporary file: {e}")))?;
    let spv = crate::shader::glslang_for(&file, &tmp, "vulkan1.2");
    let _ = std::fs::remove_file(&tmp);
    // The artifact's translator defaults: one lane per subgroup, two workgroups.
    let mut launch = launch.clone();
    launch.subgroup_size = launch.subgroup_size.or(tla.subgroup_size).or(Some(1));
    launch.workgroups = launch.workgroups.or(tla.workgroups).or(Some(2));
    if tla.asserts && launch.condition.is_none() {
        launch.condition = Some(format!(
            "exists ({}[0] == 1)",
            crate::shader::tla::ASSERT_BUFFER
        ));
    }
    let mut test = load_compiled(&file, &to_words(&spv?), source, &launch)?;
    test.hints.model = tla.model.map(str::to_string);
    test.hints.progress = tla.scheduler;
    Ok(test)
}

fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// WGSL, written as SPIR-V by naga with its lines: tangle analyses the blocks a Vulkan
/// driver would receive from wgpu, and reports lines of the WGSL.
pub fn load_wgsl(path: &Path, launch: &Launch, max_bytes: u64) -> Result<Test, Diagnostics> {
    let file = path.display().to_string();
    let bytes = crate::input::read(path, max_bytes)?;
    let (words, source) = crate::shader::wgsl_to_spirv(&file, &bytes)?;
    load_compiled(&file, &words, source, launch)
}

/// As [`load_wgsl`], from text in memory; `file` names it in diagnostics.
pub fn parse_wgsl(file: &str, text: &str, launch: &Launch) -> Result<Test, Diagnostics> {
    let (words, source) = crate::shader::wgsl_to_spirv(file, text.as_bytes())?;
    load_compiled(file, &words, source, launch)
}

/// A module compiled from `source`: lines are the source's (its `OpLine`s), and Dartagnan's
/// annotations are read from its `//; @...` comments.
fn load_compiled(
    file: &str,
    words: &[u32],
    source: String,
    launch: &Launch,
) -> Result<Test, Diagnostics> {
    let hdr = header::read(&source, "//;").map_err(|e| {
        let t = Text::new(source.clone());
        Diagnostics(vec![Diagnostic::new(
            file,
            &source,
            t.line_span(e.pos.0, e.pos.1),
            e.message,
        )])
    })?;
    build(
        file,
        read_words(file, words, Lines::Source(source))?,
        &hdr,
        launch,
    )
}

fn bare(file: &str, line: u32, m: String) -> Diagnostics {
    Diagnostics(vec![Diagnostic::bare(file, line, 1, m)])
}

/// `.spvasm` -> words through `spirv-as` (SPIRV-Tools). Source languages newer than the
/// installed assembler knows (`OpSource Slang`) are blanked to `Unknown` first: they are
/// debug information.
fn assemble(file: &str, text: &str) -> Result<Vec<u32>, Diagnostics> {
    let patched = text.replace("OpSource Slang", "OpSource Unknown");
    let dir = std::env::temp_dir();
    let stem = format!(
        "tangle-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let src = dir.join(format!("{stem}.spvasm"));
    let out = dir.join(format!("{stem}.spv"));
    std::fs::write(&src, &patched)
        .map_err(|e| bare(file, 1, format!("cannot write a temporary file: {e}")))?;
    let run = std::process::Command::new("spirv-as")
        .arg("--target-env")
        .arg("spv1.6")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output();
    let _ = std::fs::remove_file(&src);
    let run = run.map_err(|e| {
        bare(
            file,
            1,
            format!("cannot run spirv-as ({e}): .spvasm files need it; install it with `apt-get install spirv-tools`"),
        )
    })?;
    if !run.status.success() {
        let msg = String::from_utf8_lossy(&run.stderr).to_string();
        // "error: LINE: COL: message"
        let first = msg.lines().next().unwrap_or("").trim();
        let mut parts = first.trim_start_matches("error:").splitn(3, ':');
        let (l, c, m) = (parts.next(), parts.next(), parts.next());
        let t = Text::new(text.to_string());
        return Err(Diagnostics(vec![match (
            l.and_then(|x| x.trim().parse::<u32>().ok()),
            c.and_then(|x| x.trim().parse::<u32>().ok()),
            m,
        ) {
            (Some(l), Some(c), Some(m)) => Diagnostic::new(
                file,
                text,
                t.line_span(l, c),
                format!("spirv-as: {}", m.trim()),
            ),
            _ => Diagnostic::bare(file, 1, 1, format!("spirv-as failed: {}", msg.trim())),
        }]));
    }
    let bytes =
        std::fs::read(&out).map_err(|e| bare(file, 1, format!("spirv-as's output: {e}")))?;
    let _ = std::fs::remove_file(&out);
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// The line of each instruction of a `.spvasm` text (one per line that is not blank once
/// comments are cut), and its `%names` in order of first appearance.
fn asm_lines(text: &str) -> (LineTable, HashMap<String, Word>) {
    let mut lines = Vec::new();
    let mut names: HashMap<String, Word> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let mut code = String::new();
        let mut in_str = false;
        for c in line.chars() {
            if c == '"' {
                in_str = !in_str;
            }
            if c == ';' && !in_str {
                break;
            }
            code.push(c);
        }
        if code.trim().is_empty() {
            continue;
        }
        let col = code.len() - code.trim_start().len() + 1;
        lines.push(Some((n as u32 + 1, col as u32)));
        // Names outside strings.
        let mut in_str = false;
        let b = code.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => in_str = !in_str,
                b'%' if !in_str => {
                    let j = b[i + 1..]
                        .iter()
                        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.'))
                        .map_or(b.len(), |p| i + 1 + p);
                    let name = &code[i + 1..j];
                    let next = names.len() as Word + 1;
                    names.entry(name.to_string()).or_insert(next);
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    (lines, names)
}

/// The names `spirv-dis` prints for a binary's named ids, which is what annotations written
/// against a disassembly use (Dartagnan's GLSL tests name glslang's nameless buffer blocks
/// `%_`, `%__0`, ...). As SPIRV-Tools' `FriendlyNameMapper`: in module order, each
/// `OpExtInstImport` and `OpName` proposes its string with every character outside
/// `[A-Za-z0-9_]` made `_` (the empty string is `_`); a name already taken gets `_0`, `_1`, ...
/// appended; an id keeps its first name. Names `spirv-dis` makes up for types and constants
/// come after these and are not kept.
fn friendly_names(m: &dr::Module) -> HashMap<String, Word> {
    let mut by_name: HashMap<String, Word> = HashMap::new();
    let mut named: std::collections::HashSet<Word> = std::collections::HashSet::new();
    let proposals = m
        .ext_inst_imports
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(dr::Operand::LiteralString(s)) => Some((i.result_id?, s)),
            _ => None,
        })
        .chain(
            m.debug_names
                .iter()
                .filter(|i| i.class.opcode == Op::Name)
                .filter_map(|i| match (i.operands.first(), i.operands.get(1)) {
                    (Some(dr::Operand::IdRef(t)), Some(dr::Operand::LiteralString(s))) => {
                        Some((*t, s))
                    }
                    _ => None,
                }),
        );
    for (id, s) in proposals {
        if !named.insert(id) {
            continue;
        }
        let base: String = if s.is_empty() {
            "_".into()
        } else {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let mut name = base.clone();
        let mut k = 0;
        while by_name.contains_key(&name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        by_name.insert(name, id);
    }
    by_name
}

/// Wraps rspirv's loader: counts instructions (for positions) and keeps the instructions the
/// loader refuses at module scope (clspv's reflection `OpExtInst`s) out of its way.
struct Counting {
    inner: dr::Loader,
    count: usize,
    /// Global index of each instruction given to the loader, in order.
    order: Vec<usize>,
    in_function: bool,
    /// Module-scope `OpExtInst`s (clspv's reflection), which the loader does not take.
    reflection: Vec<Instruction>,
}

impl rspirv::binary::Consumer for Counting {
    fn initialize(&mut self) -> rspirv::binary::ParseAction {
        self.inner.initialize()
    }
    fn finalize(&mut self) -> rspirv::binary::ParseAction {
        self.inner.finalize()
    }
    fn consume_header(&mut self, h: dr::ModuleHeader) -> rspirv::binary::ParseAction {
        self.inner.consume_header(h)
    }
    fn consume_instruction(&mut self, mut inst: Instruction) -> rspirv::binary::ParseAction {
        let k = self.count;
        self.count += 1;
        match inst.class.opcode {
            // SPIR-V 1.2's id form (`LocalSizeId`), which the loader does not place: its operands
            // are laid out as `OpExecutionMode`'s, so it joins the execution modes as one.
            Op::ExecutionModeId => {
                inst.class = rspirv::grammar::INSTRUCTION_TABLE.get(Op::ExecutionMode);
            }
            Op::Function => self.in_function = true,
            Op::FunctionEnd => self.in_function = false,
            // Module-scope extended instructions (non-semantic reflection, debug info): read
            // by nothing tangle answers.
            Op::ExtInst if !self.in_function => {
                self.reflection.push(inst);
                return rspirv::binary::ParseAction::Continue;
            }
            _ => {}
        }
        self.order.push(k);
        self.inner.consume_instruction(inst)
    }
}

/// Every instruction of a loaded module in binary order (the logical layout's sections).
fn in_order(m: &dr::Module) -> Vec<&Instruction> {
    let mut v: Vec<&Instruction> = Vec::new();
    v.extend(&m.capabilities);
    v.extend(&m.extensions);
    v.extend(&m.ext_inst_imports);
    v.extend(&m.memory_model);
    v.extend(&m.entry_points);
    v.extend(&m.execution_modes);
    v.extend(&m.debug_string_source);
    v.extend(&m.debug_names);
    v.extend(&m.debug_module_processed);
    v.extend(&m.annotations);
    v.extend(&m.types_global_values);
    for f in &m.functions {
        v.extend(&f.def);
        v.extend(&f.parameters);
        for b in &f.blocks {
            v.extend(&b.label);
            v.extend(&b.instructions);
        }
        v.extend(&f.end);
    }
    v
}

/// Where an instruction's line is read: a `.spvasm` text (one instruction per line), the
/// source the module was compiled from (its `OpLine`s: GLSL through glslang), or else the
/// embedded source or a disassembly of the binary at `path`.
enum Lines<'a> {
    Asm(String),
    Source(String),
    Binary(Option<&'a Path>),
}

fn read_words(file: &str, words: &[u32], from: Lines) -> Result<Read, Diagnostics> {
    let insts = source::instructions(words).map_err(|m| bare(file, 0, m))?;
    let mut c = Counting {
        inner: dr::Loader::new(),
        count: 0,
        order: Vec::new(),
        in_function: false,
        reflection: Vec::new(),
    };
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rspirv::binary::parse_words(words, &mut c).map_err(|e| e.to_string())
    }));
    match parsed {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(bare(file, 0, format!("not valid SPIR-V: {e}"))),
        Err(_) => return Err(bare(
            file,
            0,
            "rspirv panicked reading this module (a bug in the SPIR-V reader): not valid SPIR-V?"
                .into(),
        )),
    }
    let Counting {
        inner,
        order,
        reflection,
        ..
    } = c;
    let module = inner.module();
    let index: HashMap<*const Instruction, usize> = in_order(&module)
        .into_iter()
        .zip(order)
        .map(|(i, k)| (i as *const _, k))
        .collect();
    let debug = source::DebugLines::read(&insts);
    let numbers_are_ids = !matches!(from, Lines::Asm(_));
    let (text, lines, names) = match from {
        Lines::Asm(t) => {
            let (lines, names) = asm_lines(&t);
            (t, lines, names)
        }
        Lines::Source(t) if debug.has_lines() => (t, debug.filled(&insts), HashMap::new()),
        Lines::Source(_) => (String::new(), vec![None; insts.len()], HashMap::new()),
        Lines::Binary(path) => {
            let dis = path.and_then(source::disassemble);
            match (debug.embedded.clone(), dis) {
                (Some(e), _) if debug.has_lines() => (e, debug.filled(&insts), HashMap::new()),
                (_, Some((dis, map))) => {
                    let lines = insts
                        .iter()
                        .map(|i| {
                            let k = map.partition_point(|(x, _)| *x <= i.offset);
                            map.get(k.checked_sub(1)?).map(|(_, l)| (*l, 1))
                        })
                        .collect();
                    (dis, lines, HashMap::new())
                }
                _ => (String::new(), vec![None; insts.len()], HashMap::new()),
            }
        }
    };
    // Reflection operands are ids of integer constants: keep their values.
    let consts: HashMap<Word, u32> = module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Constant)
        .filter_map(|i| match i.operands.first() {
            Some(dr::Operand::LiteralBit32(v)) => Some((i.result_id?, *v)),
            _ => None,
        })
        .collect();
    let reflection = reflection
        .iter()
        .filter_map(|i| {
            let k = match i.operands.get(1) {
                Some(dr::Operand::LiteralExtInstInteger(k)) => *k,
                _ => return None,
            };
            let vals = i.operands[2..]
                .iter()
                .map(|o| match o {
                    dr::Operand::IdRef(id) => consts.get(id).copied().unwrap_or(u32::MAX),
                    _ => u32::MAX,
                })
                .collect();
            Some((k, vals))
        })
        .collect();
    let names = if numbers_are_ids {
        friendly_names(&module)
    } else {
        names
    };
    Ok(Read {
        module,
        text: Text::new(text),
        lines,
        index,
        names,
        numbers_are_ids,
        reflection,
    })
}

/// The module as a test, held to the limits every front end meets
/// ([`crate::syntax::validate`]).
fn build(file: &str, read: Read, hdr: &Header, launch: &Launch) -> Result<Test, Diagnostics> {
    let test = build_test(file, read, hdr, launch)?;
    crate::syntax::validate::check(&test)?;
    Ok(test)
}

fn build_test(file: &str, read: Read, hdr: &Header, launch: &Launch) -> Result<Test, Diagnostics> {
    let Read {
        module,
        text,
        lines,
        index,
        names,
        numbers_are_ids,
        reflection,
    } = read;
    let asm_names: HashMap<Word, String> = names.iter().map(|(n, k)| (*k, n.clone())).collect();
    let span_of = |i: *const Instruction| -> Span {
        match index.get(&i).and_then(|k| lines.get(*k).copied().flatten()) {
            Some((l, c)) => text.line_span(l, c),
            None => Span::default(),
        }
    };
    let at = |i: Option<*const Instruction>, m: String| -> Diagnostics {
        match i {
            Some(i) => Diagnostics(vec![Diagnostic::new(file, &text.text, span_of(i), m)]),
            None => bare(file, 1, m),
        }
    };
    let at_pos = |p: header::Pos, m: String| -> Diagnostics {
        Diagnostics(vec![Diagnostic::new(
            file,
            &text.text,
            text.line_span(p.0, p.1),
            m,
        )])
    };
    let mut spec: HashMap<u32, u32> = launch.spec_constants.iter().copied().collect();
    let mut ix = Index::new(&module, &spec, &asm_names).map_err(|e| at(e.at, e.message))?;
    // Dartagnan's `@Input` may give a spec constant its value (`; @Input: %11 = 9`), as
    // --spec-constant does (which wins).
    // Per `@Input`, the SpecId of the spec constant it names, if it names one.
    let spec_of: Vec<Option<u32>> = hdr
        .inputs
        .iter()
        .map(|i| {
            names
                .get(&i.name)
                .and_then(|id| ix.spec_ids.get(id))
                .copied()
        })
        .collect();
    let from_inputs: Vec<(u32, u32)> = hdr
        .inputs
        .iter()
        .zip(&spec_of)
        .filter_map(|(i, sid)| Some(((*sid)?, *i.words.first()?)))
        .filter(|(sid, _)| !launch.spec_constants.iter().any(|(s, _)| s == sid))
        .collect();
    if !from_inputs.is_empty() {
        spec.extend(from_inputs);
        ix = Index::new(&module, &spec, &asm_names).map_err(|e| at(e.at, e.message))?;
    }
    // The entry point.
    let mut entries = Vec::new();
    for e in &module.entry_points {
        let model = match e.operands.first() {
            Some(dr::Operand::ExecutionModel(m)) => *m,
            _ => continue,
        };
        if !matches!(
            model,
            spirv::ExecutionModel::GLCompute | spirv::ExecutionModel::Kernel
        ) {
            continue;
        }
        let (Some(dr::Operand::IdRef(f)), Some(dr::Operand::LiteralString(n))) =
            (e.operands.get(1), e.operands.get(2))
        else {
            continue;
        };
        entries.push((*f, n.clone()));
    }
    let (entry, _) = match &launch.entry {
        Some(n) => entries
            .iter()
            .find(|(_, e)| e == n)
            .cloned()
            .ok_or_else(|| bare(file, 1, format!("no compute entry point named `{n}`")))?,
        None => match entries.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(bare(
                    file,
                    1,
                    "the module has no compute entry point".into(),
                ))
            }
            _ => {
                let ns: Vec<&str> = entries.iter().map(|(_, n)| n.as_str()).collect();
                return Err(bare(
                    file,
                    1,
                    format!(
                        "the module has several compute entry points ({}): choose one with --entry",
                        ns.join(", ")
                    ),
                ));
            }
        },
    };
    // The workgroup: the flag, else @Config, else the WorkgroupSize built-in, else LocalSize.
    let mut wg3 = [1u32, 1, 1];
    for m in &module.execution_modes {
        let ops = &m.operands;
        if ops.first() != Some(&dr::Operand::IdRef(entry)) {
            continue;
        }
        match ops.get(1) {
            Some(dr::Operand::ExecutionMode(spirv::ExecutionMode::LocalSize)) => {
                for (k, w) in wg3.iter_mut().enumerate() {
                    if let Some(dr::Operand::LiteralBit32(v)) = ops.get(2 + k) {
                        *w = *v;
                    }
                }
            }
            Some(dr::Operand::ExecutionMode(spirv::ExecutionMode::LocalSizeId)) => {
                for (k, w) in wg3.iter_mut().enumerate() {
                    if let Some(dr::Operand::IdRef(v)) = ops.get(2 + k) {
                        if let Some(c) = ix.consts.get(v) {
                            *w = c[0];
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for (id, b) in &ix.builtins {
        if *b == spirv::BuiltIn::WorkgroupSize {
            if let Some(w) = ix.consts.get(id).filter(|w| w.len() == 3) {
                wg3 = [w[0], w[1], w[2]];
            }
        }
    }
    // A file with any of Dartagnan's annotations is one of its tests; without @Config it runs
    // one invocation (Dartagnan's default grid).
    let dartagnan = !hdr.inputs.is_empty() || !hdr.outputs.is_empty() || hdr.config.is_some();
    let config = hdr
        .config
        .map(|(c, _)| c)
        .or(dartagnan.then_some([1, 1, 1]));
    if let Some([x, y, _]) = config {
        wg3 = [x * y, 1, 1];
    }
    if let Some(n) = launch.workgroup_size {
        wg3 = [n, 1, 1];
    }
    let workgroup: u32 = wg3.iter().product();
    let subgroup = launch
        .subgroup_size
        .or(config.map(|c| c[0]))
        .ok_or_else(|| {
            bare(
                file,
                1,
                "a shader needs --subgroup-size N (lanes per subgroup), or a `; @Config: X, Y, Z` annotation".into(),
            )
        })?;
    let workgroups = launch.workgroups.or(config.map(|c| c[2])).unwrap_or(1);
    // clspv gives the workgroup size as spec constants (reflection `SpecConstantWorkgroupSize`,
    // instruction 12): the launch sets them, unless --spec-constant did.
    let mut respec = false;
    for (k, ids) in &reflection {
        if *k == CLSPV_SPEC_WORKGROUP_SIZE && ids.len() == 3 {
            for (d, id) in ids.iter().enumerate() {
                if !launch.spec_constants.iter().any(|(s, _)| s == id) {
                    spec.insert(*id, wg3[d]);
                    respec = true;
                }
            }
        }
    }
    let mut ix = if respec {
        Index::new(&module, &spec, &asm_names).map_err(|e| at(e.at, e.message))?
    } else {
        ix
    };
    // A Dartagnan test's variables are each their own memory (docs/spirv.md, "Memory").
    let aliasing = launch.aliasing.unwrap_or(if dartagnan {
        Aliasing::Variable
    } else {
        Aliasing::Binding
    });
    if aliasing == Aliasing::Variable {
        for b in &mut ix.bufs {
            b.alias_of = None;
        }
    }
    if subgroup == 0 || subgroup > limits::MAX_SUBGROUP {
        return Err(bare(
            file,
            1,
            format!(
                "a subgroup of {subgroup} lanes: expected 1 to {}",
                limits::MAX_SUBGROUP
            ),
        ));
    }
    if workgroup == 0 {
        return Err(bare(file, 1, "a workgroup of 0 invocations".into()));
    }
    let threads = workgroup as u64 * workgroups as u64;
    if workgroups == 0 || threads > limits::MAX_THREADS as u64 {
        return Err(bare(
            file,
            1,
            format!(
                "{threads} invocations ({workgroups} workgroups of {workgroup}): expected 1 to {}",
                limits::MAX_THREADS
            ),
        ));
    }
    // Buffers: lengths and contents from the initializers, @Input and --buffer.
    let mut bufs: Vec<Buf> = ix.bufs.clone();
    let debug_names: HashMap<String, Word> =
        ix.names.iter().map(|(k, v)| (v.clone(), *k)).collect();
    let id_of_name = |n: &str| -> Option<Word> {
        names
            .get(n)
            .copied()
            .or_else(|| n.parse::<Word>().ok().filter(|_| numbers_are_ids))
            .or_else(|| debug_names.get(n).copied())
    };
    let buf_named = |n: &str, bufs: &[Buf]| -> Option<usize> {
        let id = id_of_name(n);
        bufs.iter().position(|b| {
            Some(b.id) == id
                || b.name == n
                || b.binding.is_some_and(|(g, k)| format!("{g}:{k}") == n)
        })
    };
    let mut init: Vec<Option<Vec<u32>>> = bufs.iter().map(|b| b.init.clone()).collect();
    for (inp, _) in hdr.inputs.iter().zip(&spec_of).filter(|(_, s)| s.is_none()) {
        let Some(k) = buf_named(&inp.name, &bufs) else {
            return Err(at_pos(
                inp.pos,
                format!(
                    "@Input names `%{}`, which is not a memory variable of the module",
                    inp.name
                ),
            ));
        };
        init[k] = Some(inp.words.clone());
    }
    for (name, spec) in &launch.buffers {
        let Some(k) = buf_named(name, &bufs) else {
            let known: Vec<&str> = bufs.iter().map(|b| b.name.as_str()).collect();
            return Err(bare(
                file,
                1,
                format!(
                    "no buffer named `{name}` in the module (its buffers: {})",
                    known.join(", ")
                ),
            ));
        };
        init[k] = Some(crate::shader::read_words(spec).map_err(|m| bare(file, 1, m))?);
    }
    let no_such = |name: &str, bufs: &[Buf]| {
        let known: Vec<&str> = bufs.iter().map(|b| b.name.as_str()).collect();
        bare(
            file,
            1,
            format!(
                "no buffer named `{name}` in the module (its buffers: {})",
                known.join(", ")
            ),
        )
    };
    // Expected contents also give a runtime-sized buffer its length.
    let mut expected: Vec<(usize, String, Vec<u32>)> = Vec::new();
    for (name, spec) in &launch.expect {
        let Some(k) = buf_named(name, &bufs) else {
            return Err(no_such(name, &bufs));
        };
        let words = crate::shader::read_words(spec).map_err(|m| bare(file, 1, m))?;
        expected.push((bufs[k].alias_of.unwrap_or(k), name.clone(), words));
    }
    for name in &launch.observe {
        if buf_named(name, &bufs).is_none() {
            return Err(no_such(name, &bufs));
        }
    }
    // The push constants clspv's runtime fills win over given contents, as on a device.
    clspv_push_constants(&module, &ix, &reflection, &bufs, &mut init, wg3, workgroups);
    for (k, b) in bufs.iter_mut().enumerate() {
        let given = init[k].as_ref().map(|w| w.len() as u32);
        match (b.words, given) {
            (None, Some(n)) => {
                let (before, elem) = b.runtime.unwrap_or((0, 1));
                if n < before || (elem > 0 && (n - before) % elem != 0) {
                    return Err(at(
                        Some(b.inst),
                        format!("`{}`: {n} words do not fit its type ({before} words then elements of {elem})", b.name),
                    ));
                }
                b.words = Some(n);
            }
            (None, None) if expected.iter().any(|(e, _, _)| *e == k) => {
                let n = expected.iter().find(|(e, _, _)| *e == k).map(|e| e.2.len());
                b.words = n.map(|n| n as u32);
            }
            (None, None) => {
                return Err(at(
                    Some(b.inst),
                    format!("the length of the runtime-sized buffer `{}` is unknown: give its contents (@Input or --buffer {}=FILE.json)", b.name, b.name),
                ))
            }
            (Some(w), Some(n)) if n != w => {
                return Err(at(
                    Some(b.inst),
                    format!("`{}` holds {w} words, but {n} were given", b.name),
                ))
            }
            _ => {}
        }
    }
    // Aliases take the largest size of their group.
    for k in 0..bufs.len() {
        if let Some(a) = bufs[k].alias_of {
            let w = bufs[k].words.max(bufs[a].words);
            bufs[a].words = w;
            if init[a].is_none() {
                init[a] = init[k].clone();
            }
        }
    }
    let total: u64 = bufs
        .iter()
        .filter(|b| b.alias_of.is_none())
        .map(|b| {
            b.words.unwrap_or(0) as u64
                * if b.per_workgroup() {
                    workgroups as u64
                } else {
                    1
                }
        })
        .sum();
    if total > limits::MAX_CELLS as u64 {
        let largest = bufs.iter().max_by_key(|b| b.words.unwrap_or(0));
        return Err(at(
            largest.map(|b| b.inst),
            format!(
                "the buffers hold {total} words; at most {} are read (this one is the largest)",
                limits::MAX_CELLS
            ),
        ));
    }
    let ix = Index {
        bufs: bufs.clone(),
        ..ix
    };
    let dims = Dims {
        workgroup: wg3,
        workgroups,
        subgroup,
    };
    let kernel = lower::lower(&ix, entry, dims, &span_of).map_err(|e| at(e.at, e.message))?;
    let globals: Vec<Global> = bufs
        .iter()
        .enumerate()
        .filter(|(_, b)| b.alias_of.is_none())
        .map(|(k, b)| {
            let copies = if b.per_workgroup() { workgroups } else { 1 };
            let one = b.words.unwrap_or(0);
            let mut words = Vec::new();
            for _ in 0..copies {
                let mut w = init[k].clone().unwrap_or_default();
                w.resize(one as usize, 0);
                words.extend(w);
            }
            Global {
                name: b.name.clone(),
                len: Some(one * copies),
                init: words,
                span: span_of(b.inst),
            }
        })
        .collect();
    // The question: --expect, else @Output, else the observed buffers in every execution.
    let mut wanted = Vec::new();
    for (k, name, words) in expected {
        let w = bufs[k].words.unwrap_or(0);
        if words.len() as u32 != w {
            return Err(bare(
                file,
                1,
                format!(
                    "--expect {name}: {} words given, the buffer holds {w}",
                    words.len()
                ),
            ));
        }
        wanted.push((bufs[k].name.clone(), words));
    }
    let mut observed: Vec<usize> = Vec::new();
    for name in &launch.observe {
        match buf_named(name, &bufs) {
            Some(k) => observed.push(bufs[k].alias_of.unwrap_or(k)),
            None => {
                return Err(bare(
                    file,
                    1,
                    format!("--observe {name}: no such buffer in the module"),
                ))
            }
        }
    }
    let question = crate::shader::expected_question(&wanted);
    let mut expect: Vec<Expectation> = Vec::new();
    // `--condition` replaces the annotations' question; its errors point into the flag.
    let flag: Option<(Vec<header::Output>, Text)> = match &launch.condition {
        Some(c) => {
            let t = Text::new(c.clone());
            let o = header::condition(c).map_err(|e| {
                Diagnostics(vec![Diagnostic::new(
                    "--condition",
                    c,
                    t.line_span(e.pos.0, e.pos.1),
                    e.message,
                )])
            })?;
            Some((vec![o], t))
        }
        None => None,
    };
    let at_pos = |p: header::Pos, m: String| -> Diagnostics {
        match &flag {
            Some((_, t)) => Diagnostics(vec![Diagnostic::new(
                "--condition",
                &t.text,
                t.line_span(p.0, p.1),
                m,
            )]),
            None => at_pos(p, m),
        }
    };
    let outputs = flag
        .as_ref()
        .map_or(hdr.outputs.as_slice(), |(o, _)| o.as_slice());
    // `%name[i][j]...` in an annotation: a word of a memory variable.
    let location = |n: &str, path: &[u32], pos: header::Pos| {
        let Some(k) = buf_named(n, &bufs) else {
            return Err(at_pos(
                pos,
                format!("the condition names `%{n}`, which is not a memory variable of the module"),
            ));
        };
        let b = &bufs[bufs[k].alias_of.unwrap_or(k)];
        let off = offset(&ix, bufs[k].ty, path).ok_or_else(|| {
            at_pos(
                pos,
                format!(
                    "`%{n}{}` is not a word of `%{n}`'s type",
                    path.iter().map(|i| format!("[{i}]")).collect::<String>()
                ),
            )
        })?;
        if off >= b.words.unwrap_or(0) {
            return Err(at_pos(
                pos,
                format!(
                    "`%{n}` has {} words; the index is out of range",
                    b.words.unwrap_or(0)
                ),
            ));
        }
        Ok(Operand::Mem {
            global: b.name.clone(),
            index: off,
        })
    };
    // `@Filter`: the executions that count (docs/litmus-format.md, "Filters").
    let mut filters = Vec::new();
    for (cond, _) in &hdr.filters {
        filters.push(prop(cond, &location)?);
    }
    let filter = (!filters.is_empty()).then(|| balanced(filters, Prop::And));
    let (condition, label, observe) = match (question, outputs) {
        (Some((prop, label, ex)), _) => {
            expect = ex;
            (
                Condition {
                    quantifier: Quantifier::Exists,
                    prop,
                    span: Span::default(),
                },
                Some(label),
                Vec::new(),
            )
        }
        (None, []) => {
            let mut observe = Vec::new();
            for (k, b) in bufs
                .iter()
                .enumerate()
                .filter(|(_, b)| b.alias_of.is_none())
            {
                let default = observed.is_empty()
                    && matches!(
                        b.class,
                        spirv::StorageClass::StorageBuffer
                            | spirv::StorageClass::Output
                            | spirv::StorageClass::CrossWorkgroup
                    );
                if default || observed.contains(&k) {
                    for k in 0..b.words.unwrap_or(0) {
                        observe.push(Operand::Mem {
                            global: b.name.clone(),
                            index: k,
                        });
                    }
                }
            }
            (
                Condition {
                    quantifier: Quantifier::Exists,
                    prop: Prop::True,
                    span: Span::default(),
                },
                Some("exists (true): every execution".to_string()),
                observe,
            )
        }
        (None, outs) => {
            let q = outs[0].quantifier;
            if outs.iter().any(|o| o.quantifier != q) || (outs.len() > 1 && q != Quantifier::Forall)
            {
                return Err(at_pos(
                    outs[1].pos,
                    "several @Output annotations: only several `forall`s (read as one conjunction) are supported".into(),
                ));
            }
            let mut props = Vec::new();
            for o in outs {
                props.push(prop(&o.cond, &location)?);
            }
            let p = balanced(props, Prop::And);
            let text = outs
                .iter()
                .map(|o| o.text.clone())
                .collect::<Vec<_>>()
                .join("; ");
            let (quantifier, prop) = match q {
                // `forall P` holds when `not P` is unreachable: asked that way, the verdict is
                // herd's Ok/No for the annotation.
                Quantifier::Forall => (Quantifier::NotExists, Prop::Not(Box::new(p))),
                q => (q, p),
            };
            (
                Condition {
                    quantifier,
                    prop,
                    span: Span::default(),
                },
                Some(text),
                Vec::new(),
            )
        }
    };
    let name = Path::new(file)
        .file_stem()
        .map_or("shader".into(), |s| s.to_string_lossy().to_string());
    let label = match &hdr.filters[..] {
        [] => label,
        fs => {
            let texts: Vec<&str> = fs.iter().map(|(_, t)| t.as_str()).collect();
            Some(format!(
                "{} (filter: {})",
                label.unwrap_or_default(),
                texts.join("; ")
            ))
        }
    };
    Ok(Test {
        file: file.to_string(),
        source: text.text.clone(),
        name,
        description: None,
        threads: threads as u32,
        subgroup,
        workgroup,
        globals,
        kernel,
        filter,
        condition,
        expect,
        expect_liveness: Vec::new(),
        hints: Default::default(),
        observe,
        condition_label: label,
        queue_family: threads as u32,
    })
}

/// clspv's reflection instruction numbers (NonSemantic.ClspvReflection).
const CLSPV_SPEC_WORKGROUP_SIZE: u32 = 12;

/// Fills the push constants clspv's reflection describes (global offset 15, enqueued local
/// size 16, global size 17, region offset 18, number of workgroups 19, region group offset
/// 20: `offset, size` in bytes) with the launch's values, as the clspv runtime would.
fn clspv_push_constants(
    module: &dr::Module,
    ix: &Index,
    reflection: &[(u32, Vec<Word>)],
    bufs: &[Buf],
    init: &mut [Option<Vec<u32>>],
    wg3: [u32; 3],
    workgroups: u32,
) {
    let Some(k) = bufs
        .iter()
        .position(|b| b.class == spirv::StorageClass::PushConstant)
    else {
        return;
    };
    let Some(lower::Ty::Struct(members)) = ix.types.get(&bufs[k].ty).cloned() else {
        return;
    };
    // Member byte offsets (OpMemberDecorate ... Offset).
    let mut byte_off: HashMap<u32, u32> = HashMap::new();
    for a in &module.annotations {
        if a.class.opcode != Op::MemberDecorate {
            continue;
        }
        if let [dr::Operand::IdRef(t), dr::Operand::LiteralBit32(m), dr::Operand::Decoration(spirv::Decoration::Offset), dr::Operand::LiteralBit32(o)] =
            a.operands.as_slice()
        {
            if *t == bufs[k].ty {
                byte_off.insert(*o, *m);
            }
        }
    }
    let words = bufs[k].words.unwrap_or(0) as usize;
    for (op, args) in reflection {
        let value: [u32; 3] = match op {
            15 | 18 | 20 => [0, 0, 0],
            16 => wg3,
            17 => [wg3[0] * workgroups, wg3[1], wg3[2]],
            19 => [workgroups, 1, 1],
            _ => continue,
        };
        let (Some(off), Some(size)) = (args.first(), args.get(1)) else {
            continue;
        };
        let Some(&m) = byte_off.get(off) else {
            continue;
        };
        let start: u32 = members[..(m as usize).min(members.len())]
            .iter()
            .map(|t| ix.words_of(*t).unwrap_or(0))
            .sum();
        let w = init[k].get_or_insert_with(|| vec![0; words]);
        w.resize(words, 0);
        for d in 0..(*size / 4).min(3) {
            if let Some(slot) = w.get_mut((start + d) as usize) {
                *slot = value[d as usize];
            }
        }
    }
}

type Resolve<'a> = dyn Fn(&str, &[u32], header::Pos) -> Result<Operand, Diagnostics> + 'a;

/// An annotation condition as a proposition; chains of one connective become balanced trees.
fn prop(c: &Cond, loc: &Resolve) -> Result<Prop, Diagnostics> {
    Ok(match c {
        Cond::And(..) | Cond::Or(..) => {
            let is_and = matches!(c, Cond::And(..));
            let mut parts = Vec::new();
            let mut stack = vec![c];
            while let Some(x) = stack.pop() {
                match (x, is_and) {
                    (Cond::And(a, b), true) | (Cond::Or(a, b), false) => {
                        stack.push(b);
                        stack.push(a);
                    }
                    _ => parts.push(prop(x, loc)?),
                }
            }
            balanced(parts, if is_and { Prop::And } else { Prop::Or })
        }
        Cond::Not(a) => Prop::Not(Box::new(prop(a, loc)?)),
        Cond::Cmp(op, a, b, _) => {
            let t = |t: &Term| -> Result<Operand, Diagnostics> {
                match t {
                    Term::Lit(v) => Ok(Operand::Lit(*v)),
                    Term::Loc(n, path, pos) => loc(n, path, *pos),
                }
            };
            Prop::Cmp(*op, t(a)?, t(b)?)
        }
    })
}

fn balanced(mut parts: Vec<Prop>, f: fn(Box<Prop>, Box<Prop>) -> Prop) -> Prop {
    match parts.len() {
        0 => Prop::True,
        1 => parts.remove(0),
        n => {
            let right = parts.split_off(n / 2);
            f(Box::new(balanced(parts, f)), Box::new(balanced(right, f)))
        }
    }
}

/// The word offset of `path` in a value of type `ty`.
fn offset(ix: &Index, mut ty: Word, path: &[u32]) -> Option<u32> {
    let mut off = 0;
    for &k in path {
        match ix.types.get(&ty)? {
            lower::Ty::Struct(ms) => {
                let m = *ms.get(k as usize)?;
                off += ms[..k as usize]
                    .iter()
                    .map(|m| ix.words_of(*m).unwrap_or(0))
                    .sum::<u32>();
                ty = m;
            }
            lower::Ty::Array(e, n) => {
                if n.is_some_and(|n| k >= n) {
                    return None;
                }
                off += k * ix.words_of(*e)?;
                ty = *e;
            }
            lower::Ty::Vector(e, n) => {
                if k >= *n {
                    return None;
                }
                off += k * ix.words_of(*e)?;
                ty = *e;
            }
            _ => return None,
        }
    }
    Some(off)
}
