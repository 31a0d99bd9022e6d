//! Front end for shaders: a WGSL, SPIR-V or GLSL compute shader plus a launch (subgroup size,
//! workgroups, buffer contents) -> the same resolved [`ast::Test`] a `.litmus` file gives.
//!
//! A sibling of [`crate::syntax`]: nothing below the AST knows that shaders exist. WGSL and
//! SPIR-V are read by naga (the wgpu project's shader crate); GLSL is compiled to SPIR-V by
//! `glslangValidator` first. [`lower`] turns naga's module into kernel statements; this module
//! handles files, the launch and the question asked (`--expect`, `--observe`).
//!
//! Architecture invariant: like the litmus parser, this never panics on any input and reports
//! every error with file:line:col in the shader's own lines.

pub mod lower;
pub mod source;

use crate::syntax::ast::{Condition, Expectation, Global, Operand, Prop, Quantifier, Test};
use crate::syntax::{limits, Diagnostic, Diagnostics, Span};
use crate::vocab::BinOp;
use lower::{Buffer, Dims, Space};
use source::Text;
use std::path::Path;

/// How a shader is launched, and what is asked of it.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// Lanes per subgroup (required: it has no default).
    pub subgroup_size: Option<u32>,
    /// Invocations per workgroup (default: the shader's `@workgroup_size`, flattened).
    pub workgroup_size: Option<u32>,
    /// Workgroups dispatched (along x); default 1.
    pub workgroups: Option<u32>,
    /// The entry point (default: the only compute entry point).
    pub entry: Option<String>,
    /// `NAME=FILE.json`: a buffer's initial words.
    pub buffers: Vec<(String, String)>,
    /// `NAME=FILE.json`: a buffer's expected final words.
    pub expect: Vec<(String, String)>,
    /// Buffers whose final contents are the outcome (`outcomes --observe`).
    pub observe: Vec<String>,
    /// `ID=VALUE`: spec constants overridden by SpecId (SPIR-V front end).
    pub spec_constants: Vec<(u32, u32)>,
}

/// The shader languages tangle reads, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Wgsl,
    Spirv,
    Glsl,
}

impl Language {
    /// `.wgsl`, `.spv`, `.comp` / `.glsl`; `None` for anything else (a litmus file).
    pub fn of(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "wgsl" => Some(Language::Wgsl),
            "spv" => Some(Language::Spirv),
            "comp" | "glsl" => Some(Language::Glsl),
            _ => None,
        }
    }
}

/// Reads a shader and its launch into a test. Errors are located in the shader (or in the
/// buffer file they concern).
pub fn load(path: &Path, launch: &Launch, max_bytes: u64) -> Result<Test, Diagnostics> {
    let file = path.display().to_string();
    let bare = |m: String| Diagnostics(vec![Diagnostic::bare(&file, 1, 1, m)]);
    let lang =
        Language::of(path).ok_or_else(|| bare("not a shader file (.wgsl, .spv, .comp)".into()))?;
    let bytes = crate::input::read(path, max_bytes)?;
    let read = match lang {
        Language::Wgsl => read_wgsl(&file, &bytes)?,
        Language::Spirv => read_spirv(&file, path, &bytes, None)?,
        Language::Glsl => {
            let spv = glslang(&file, path)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            read_spirv(&file, path, &spv, Some(text))?
        }
    };
    build(&file, read, launch)
}

/// Reads WGSL text (no file needed); `file` names it in diagnostics.
pub fn parse_wgsl(file: &str, text: &str, launch: &Launch) -> Result<Test, Diagnostics> {
    build(file, read_wgsl(file, text.as_bytes())?, launch)
}

/// A parsed module with the means to locate its spans.
struct Read {
    module: naga::Module,
    text: Text,
    /// naga span -> source span.
    locate: Box<dyn Fn(naga::Span) -> Span>,
    /// For SPIR-V: instruction offsets (in the binary naga read) of rewritten
    /// `OpGroupNonUniformElect`s.
    elects: Vec<usize>,
}

/// The subgroup extension's directives: the CTS still writes the older
/// `enable chromium_experimental_subgroups;`, and naga 30 implements the subgroup built-ins but
/// refuses `enable subgroups;`. Both are blanked with spaces (same byte length, so every
/// position stays where it was).
fn modernise(text: &str) -> String {
    let mut t = text.to_string();
    for d in [
        "enable chromium_experimental_subgroups;",
        "enable subgroups;",
    ] {
        t = t.replace(d, &" ".repeat(d.len()));
    }
    t
}

fn read_wgsl(file: &str, bytes: &[u8]) -> Result<Read, Diagnostics> {
    let raw = std::str::from_utf8(bytes).map_err(|e| {
        Diagnostics(vec![Diagnostic::bare(
            file,
            1,
            1,
            format!("the shader is not UTF-8 text: {e}"),
        )])
    })?;
    let text = modernise(raw);
    let module = naga::front::wgsl::parse_str(&text).map_err(|e| {
        let t = Text::new(text.clone());
        let span = e
            .location(&text)
            .map(|l| t.span(l.offset as usize, (l.offset + l.length) as usize))
            .unwrap_or_else(|| t.line_span(1, 1));
        let mut msg = e.message().to_string();
        let labels: Vec<String> = e
            .labels()
            .map(|(_, l)| l.to_string())
            .filter(|l| !l.is_empty())
            .collect();
        if !labels.is_empty() {
            msg = format!("{msg} ({})", labels.join("; "));
        }
        Diagnostics(vec![Diagnostic::new(file, &text, span, msg)])
    })?;
    let t = Text::new(text.clone());
    let t2 = Text::new(text);
    Ok(Read {
        module,
        text: t,
        locate: Box::new(move |s: naga::Span| match s.to_range() {
            Some(r) => t2.span(r.start, r.end),
            None => Span::default(),
        }),
        elects: Vec::new(),
    })
}

const OP_TYPE_BOOL: u16 = 20;
const OP_CONSTANT_TRUE: u16 = 41;
const OP_GROUP_NON_UNIFORM_ELECT: u16 = 333;
const OP_GROUP_NON_UNIFORM_ALL: u16 = 334;

/// Prepares a binary for naga, which reads neither `OpGroupNonUniformElect` nor debug lines
/// among the types: each elect is rewritten to `OpGroupNonUniformAll` of a new `true`
/// constant, and its offset remembered so that the lowering reads it as an elect; `OpLine` and
/// `OpNoLine` are dropped (their lines were read before). Returns the new binary, new ->
/// original instruction offsets, and the elects' new offsets.
fn prepare(words: &[u32], insts: &[source::Inst]) -> (Vec<u32>, Vec<(usize, usize)>, Vec<usize>) {
    let mut out: Vec<u32> = words[..5].to_vec();
    let true_id = out[3];
    let need_true = insts.iter().any(|i| i.opcode == OP_GROUP_NON_UNIFORM_ELECT);
    if need_true {
        out[3] += 1;
    }
    let mut map = Vec::new();
    let mut elects = Vec::new();
    let push = |out: &mut Vec<u32>, op: u16, ops: &[u32]| {
        out.push((((ops.len() + 1) as u32) << 16) | op as u32);
        out.extend_from_slice(ops);
    };
    for ins in insts {
        if matches!(ins.opcode, source::OP_LINE | source::OP_NO_LINE) {
            continue;
        }
        let here = out.len() * 4;
        map.push((here, ins.offset));
        if ins.opcode == OP_GROUP_NON_UNIFORM_ELECT && ins.operands.len() == 3 {
            elects.push(here);
            let ops = [ins.operands[0], ins.operands[1], ins.operands[2], true_id];
            push(&mut out, OP_GROUP_NON_UNIFORM_ALL, &ops);
        } else {
            push(&mut out, ins.opcode, &ins.operands);
        }
        if ins.opcode == OP_TYPE_BOOL && need_true {
            let here = out.len() * 4;
            map.push((here, ins.offset));
            push(&mut out, OP_CONSTANT_TRUE, &[ins.operands[0], true_id]);
        }
    }
    (out, map, elects)
}

/// naga's SPIR-V spans start this many bytes before the instruction's offset in the binary
/// (they count from after the header, past the opcode word). Pinned by the tests of
/// `shaders/examples/elect_loop.spv`, whose elect is only recognised through it.
pub(crate) const NAGA_SPV_SPAN_BIAS: usize = 16;

/// Instruction offset -> (line, col) in the text reports show.
type LineOf = Box<dyn Fn(usize) -> Option<(u32, u32)>>;

fn read_spirv(
    file: &str,
    path: &Path,
    bytes: &[u8],
    glsl: Option<String>,
) -> Result<Read, Diagnostics> {
    // A binary has no lines: these errors name the file (and the byte, when known).
    let bare = |m: String| Diagnostics(vec![Diagnostic::bare(file, 0, 0, m)]);
    if !bytes.len().is_multiple_of(4) {
        return Err(bare(
            "not a SPIR-V binary (its length is not a multiple of 4)".into(),
        ));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let insts = source::instructions(&words).map_err(bare)?;
    let debug = source::DebugLines::read(&insts);
    let (new_words, offsets, elects) = prepare(&words, &insts);
    // Where lines come from: the GLSL file (glslang -g), the embedded source, a disassembly,
    // or nothing but instruction offsets.
    let (text, lines): (String, LineOf) = match glsl {
        Some(g) if debug.has_lines() => (g, Box::new(move |o| debug.line_of(o))),
        _ if debug.has_lines() && debug.embedded.is_some() => {
            let e = debug.embedded.clone().unwrap_or_default();
            (e, Box::new(move |o| debug.line_of(o)))
        }
        _ => match source::disassemble(path) {
            Some((dis, map)) => (
                dis,
                Box::new(move |o| {
                    let i = map.partition_point(|(x, _)| *x <= o);
                    map.get(i.checked_sub(1)?).map(|(_, l)| (*l, 1))
                }),
            ),
            None => (String::new(), Box::new(|_| None)),
        },
    };
    let new_bytes: Vec<u8> = new_words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let opts = naga::front::spv::Options {
        adjust_coordinate_space: false,
        strict_capabilities: false,
        block_ctx_dump_prefix: None,
    };
    let module = naga::front::spv::parse_u8_slice(&new_bytes, &opts)
        .map_err(|e| bare(format!("naga cannot read this SPIR-V: {e}")))?;
    let t = Text::new(text.clone());
    let t2 = Text::new(text);
    let locate = move |s: naga::Span| -> Span {
        let Some(r) = s.to_range() else {
            return Span::default();
        };
        let start = r.start + NAGA_SPV_SPAN_BIAS;
        let i = offsets.partition_point(|(n, _)| *n <= start);
        let orig = i.checked_sub(1).map_or(start, |k| offsets[k].1);
        match lines(orig) {
            Some((l, c)) => t2.line_span(l, c.max(1)),
            // No line information: the byte offset, as line 0.
            None => Span {
                start: 0,
                end: 0,
                line: 0,
                col: orig as u32,
            },
        }
    };
    Ok(Read {
        module,
        text: t,
        locate: Box::new(locate),
        elects,
    })
}

/// GLSL -> SPIR-V with debug lines, through `glslangValidator` (Debian's `glslang-tools`).
fn glslang(file: &str, path: &Path) -> Result<Vec<u8>, Diagnostics> {
    let bare = |l: u32, m: String| Diagnostics(vec![Diagnostic::bare(file, l, 1, m)]);
    let out_path = std::env::temp_dir().join(format!(
        "tangle-{}-{}.spv",
        std::process::id(),
        path.file_stem()
            .map_or("shader".into(), |s| s.to_string_lossy().to_string())
    ));
    let mut cmd = std::process::Command::new("glslangValidator");
    cmd.args(["-V", "--target-env", "vulkan1.1", "-g"]);
    if path.extension().is_some_and(|e| e == "glsl") {
        cmd.args(["-S", "comp"]);
    }
    cmd.arg("-o").arg(&out_path).arg(path);
    let out = cmd.output().map_err(|e| {
        bare(
            1,
            format!(
                "cannot run glslangValidator ({e}): GLSL shaders need it; install it with `apt-get install glslang-tools`"
            ),
        )
    })?;
    if !out.status.success() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        // "ERROR: FILE:LINE: 'what' : message"
        let src = std::fs::read_to_string(path).unwrap_or_default();
        let mut diags = Vec::new();
        for l in text.lines().filter(|l| l.starts_with("ERROR: ")) {
            let rest = &l[7..];
            let mut parts = rest.splitn(3, ':');
            let (_f, line, msg) = (parts.next(), parts.next(), parts.next());
            match (line.and_then(|x| x.trim().parse::<u32>().ok()), msg) {
                (Some(n), Some(m)) => {
                    let t = Text::new(src.clone());
                    diags.push(Diagnostic::new(
                        file,
                        &src,
                        t.line_span(n, 1),
                        m.trim().to_string(),
                    ));
                }
                _ => diags.push(Diagnostic::bare(file, 1, 1, rest.trim().to_string())),
            }
        }
        if diags.is_empty() {
            diags.push(Diagnostic::bare(
                file,
                1,
                1,
                format!("glslangValidator failed: {}", text.trim()),
            ));
        }
        return Err(Diagnostics(diags));
    }
    let spv =
        std::fs::read(&out_path).map_err(|e| bare(1, format!("glslangValidator's output: {e}")))?;
    let _ = std::fs::remove_file(&out_path);
    Ok(spv)
}

/// Reads a flat JSON array of u32 words: `FILE.json`, or `FILE.json#/json/pointer` into a
/// larger document (such as the CTS examples' sidecars).
pub fn read_words(spec: &str) -> Result<Vec<u32>, String> {
    let (path, pointer) = match spec.split_once('#') {
        Some((p, ptr)) => (p, Some(ptr)),
        None => (spec, None),
    };
    let bytes = crate::input::read(
        std::path::Path::new(path),
        crate::input::DEFAULT_MAX_FILE_BYTES,
    )
    .map_err(|d| format!("{path}: {}", d.message))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let doc: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{path}:{}:{}: {e}", e.line(), e.column()))?;
    let v = match pointer {
        Some(p) => doc
            .pointer(p)
            .ok_or_else(|| format!("{path}: nothing at the JSON pointer `{p}`"))?,
        None => &doc,
    };
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{spec}: expected a JSON array of u32 words"))?;
    arr.iter()
        .enumerate()
        .map(|(i, w)| {
            w.as_u64()
                .filter(|x| *x <= u32::MAX as u64)
                .map(|x| x as u32)
                .ok_or_else(|| format!("{spec}: word {i} is not a u32 ({w})"))
        })
        .collect()
}

fn build(file: &str, read: Read, launch: &Launch) -> Result<Test, Diagnostics> {
    let Read {
        module,
        text,
        locate,
        elects,
    } = read;
    let at = |s: naga::Span, m: String| {
        Diagnostics(vec![Diagnostic::new(file, &text.text, locate(s), m)])
    };
    let bare = |m: String| Diagnostics(vec![Diagnostic::bare(file, 1, 1, m)]);
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .subgroup_stages(naga::valid::ShaderStages::all())
    .subgroup_operations(naga::valid::SubgroupOperationSet::all())
    .validate(&module)
    .map_err(|e| {
        let span = e.spans().next().map(|(s, _)| *s).unwrap_or_default();
        let mut msg = e.as_inner().to_string();
        let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e.as_inner());
        while let Some(s) = src {
            msg.push_str(&format!(": {s}"));
            src = s.source();
        }
        at(span, format!("invalid shader: {msg}"))
    })?;
    // The entry point.
    let computes: Vec<usize> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, e)| e.stage == naga::ShaderStage::Compute)
        .map(|(i, _)| i)
        .collect();
    let entry = match &launch.entry {
        Some(n) => *computes
            .iter()
            .find(|&&i| &module.entry_points[i].name == n)
            .ok_or_else(|| bare(format!("no compute entry point named `{n}`")))?,
        None => match computes.as_slice() {
            [one] => *one,
            [] => return Err(bare("the shader has no compute entry point".into())),
            _ => {
                let names: Vec<&str> = computes
                    .iter()
                    .map(|&i| module.entry_points[i].name.as_str())
                    .collect();
                return Err(bare(format!(
                    "the shader has several compute entry points ({}): choose one with --entry",
                    names.join(", ")
                )));
            }
        },
    };
    let ep = &module.entry_points[entry];
    let mut wg3 = ep.workgroup_size;
    if let Some(n) = launch.workgroup_size {
        wg3 = [n, 1, 1];
    }
    let workgroup: u32 = wg3.iter().product();
    let subgroup = launch.subgroup_size.ok_or_else(|| {
        bare("a shader needs --subgroup-size N (lanes per subgroup): it has no default".into())
    })?;
    let workgroups = launch.workgroups.unwrap_or(1);
    if subgroup == 0 || subgroup > limits::MAX_SUBGROUP || !subgroup.is_power_of_two() {
        return Err(bare(format!(
            "--subgroup-size {subgroup}: expected a power of two from 1 to {}",
            limits::MAX_SUBGROUP
        )));
    }
    if workgroup == 0 || !workgroup.is_multiple_of(subgroup) {
        return Err(bare(format!(
            "the workgroup size {workgroup} is not a multiple of the subgroup size {subgroup}"
        )));
    }
    let threads = workgroup as u64 * workgroups as u64;
    if workgroups == 0 || threads > limits::MAX_THREADS as u64 {
        return Err(bare(format!(
            "{threads} invocations ({workgroups} workgroups of {workgroup}): expected 1 to {}",
            limits::MAX_THREADS
        )));
    }
    let dims = Dims {
        workgroup: wg3,
        workgroups,
        subgroup,
    };
    // Buffers, with the launch's contents.
    let mut buffers = lower::buffers(&module).map_err(|e| at(e.span, e.message))?;
    let find = |name: &str, buffers: &[Buffer]| -> Result<usize, Diagnostics> {
        buffers
            .iter()
            .position(|b| {
                b.name == name || b.binding.is_some_and(|(g, n)| format!("{g}:{n}") == name)
            })
            .ok_or_else(|| {
                let known: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
                bare(format!(
                    "no buffer named `{name}` in the shader (its buffers: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ))
            })
    };
    let mut init: Vec<Option<Vec<u32>>> = vec![None; buffers.len()];
    let mut expected: Vec<Option<Vec<u32>>> = vec![None; buffers.len()];
    for (list, into) in [
        (&launch.buffers, &mut init),
        (&launch.expect, &mut expected),
    ] {
        for (name, spec) in list {
            let i = find(name, &buffers)?;
            let words = read_words(spec).map_err(bare)?;
            into[i] = Some(words);
        }
    }
    for (i, b) in buffers.iter_mut().enumerate() {
        let given = init[i]
            .as_ref()
            .or(expected[i].as_ref())
            .map(|w| w.len() as u32);
        match (b.words, given) {
            (None, Some(n)) => {
                let (before, elem) = b.runtime.unwrap_or((0, 1));
                if n < before || (elem > 0 && (n - before) % elem != 0) {
                    return Err(bare(format!(
                        "buffer `{}`: {n} words do not fit its type ({before} words then elements of {elem})",
                        b.name
                    )));
                }
                b.words = Some(n);
            }
            (None, None) => {
                return Err(at(
                    b.span,
                    format!(
                        "the length of the runtime-sized buffer `{}` is unknown: give its contents with --buffer {}=FILE.json",
                        b.name, b.name
                    ),
                ))
            }
            (Some(w), Some(n)) if n > w => {
                return Err(bare(format!(
                    "buffer `{}` holds {w} words, but {n} were given",
                    b.name
                )))
            }
            _ => {}
        }
        if b.space == Space::Workgroup && init[i].is_some() {
            return Err(bare(format!(
                "`{}` is workgroup memory: it starts zeroed and cannot be given contents",
                b.name
            )));
        }
    }
    for (i, b) in buffers.iter().enumerate() {
        if let (Some(e), Some(w)) = (&expected[i], b.words) {
            if e.len() as u32 != w {
                return Err(bare(format!(
                    "--expect {}: {} words given, the buffer holds {w}",
                    b.name,
                    e.len()
                )));
            }
        }
    }
    let total: u64 = buffers
        .iter()
        .map(|b| {
            b.words.unwrap_or(0) as u64
                * if b.space == Space::Workgroup {
                    workgroups as u64
                } else {
                    1
                }
        })
        .sum();
    if total > limits::MAX_CELLS as u64 {
        return Err(bare(format!(
            "the buffers hold {total} words; at most {} are supported",
            limits::MAX_CELLS
        )));
    }
    let is_elect = elects;
    let span_of = |s: naga::Span| locate(s);
    let kernel = lower::lower(&module, &info, entry, dims, &buffers, &span_of, &is_elect)
        .map_err(|e| at(e.span, e.message))?;
    // Globals.
    let globals: Vec<Global> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let copies = if b.space == Space::Workgroup {
                workgroups
            } else {
                1
            };
            let len = b.words.unwrap_or(0) * copies;
            let mut words = init[i].clone().unwrap_or_default();
            words.resize(len as usize, 0);
            Global {
                name: b.name.clone(),
                len: Some(len),
                init: words,
                span: locate(b.span),
            }
        })
        .collect();
    // The question: does some execution end with an expected word different?
    let wanted: Vec<(String, Vec<u32>)> = buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((b.name.clone(), expected[i].clone()?)))
        .collect();
    let question = expected_question(&wanted);
    let mut observe = Vec::new();
    let observed: Vec<usize> = if !launch.observe.is_empty() {
        launch
            .observe
            .iter()
            .map(|n| find(n, &buffers))
            .collect::<Result<_, _>>()?
    } else if question.is_none() {
        // Default outcome: every writable storage buffer.
        buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.space == Space::Storage { writable: true })
            .map(|(i, _)| i)
            .collect()
    } else {
        Vec::new()
    };
    for i in observed {
        let b = &buffers[i];
        for k in 0..b.words.unwrap_or(0) {
            observe.push(Operand::Mem {
                global: b.name.clone(),
                index: k,
            });
        }
    }
    let (prop, label, expect) = question.unwrap_or_else(|| {
        (
            Prop::True,
            "exists (true): every execution".to_string(),
            Vec::new(),
        )
    });
    let name = Path::new(file)
        .file_stem()
        .map_or("shader".into(), |s| s.to_string_lossy().to_string());
    Ok(Test {
        file: file.to_string(),
        source: text.text.clone(),
        name,
        description: None,
        threads: threads as u32,
        subgroup,
        workgroup,
        globals,
        kernel: kernel.stmts,
        condition: Condition {
            quantifier: Quantifier::Exists,
            prop,
            span: Span::default(),
        },
        expect,
        observe,
        condition_label: Some(label),
        queue_family: threads as u32,
    })
}

/// The question `--expect` asks: can some execution end with a word of these buffers
/// different from the expected one? Every model is expected to forbid it. `None` when no
/// buffer has expected words.
pub(crate) fn expected_question(
    wanted: &[(String, Vec<u32>)],
) -> Option<(Prop, String, Vec<Expectation>)> {
    let mut atoms = Vec::new();
    for (name, words) in wanted {
        for (k, &w) in words.iter().enumerate() {
            atoms.push(Prop::Cmp(
                BinOp::Ne,
                Operand::Mem {
                    global: name.clone(),
                    index: k as u32,
                },
                Operand::Lit(w),
            ));
        }
    }
    if atoms.is_empty() {
        return None;
    }
    let expect = crate::model::Model::builtin()
        .iter()
        .map(|m| Expectation {
            model: m.name.clone(),
            allow: false,
            span: Span::default(),
        })
        .collect();
    let named: Vec<&str> = wanted.iter().map(|(n, _)| n.as_str()).collect();
    Some((
        balanced_or(atoms),
        format!(
            "exists (some word of {} differs from --expect)",
            named.join(", ")
        ),
        expect,
    ))
}

/// A disjunction as a balanced tree (thousands of words must not nest thousands deep).
fn balanced_or(mut atoms: Vec<Prop>) -> Prop {
    match atoms.len() {
        0 => Prop::False,
        1 => atoms.remove(0),
        n => {
            let right = atoms.split_off(n / 2);
            Prop::Or(Box::new(balanced_or(atoms)), Box::new(balanced_or(right)))
        }
    }
}
