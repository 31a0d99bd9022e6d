//! Shader languages into SPIR-V, and what every shader front end shares: the launch (subgroup
//! size, workgroups, buffer contents), the question asked (`--expect`, `--observe`), buffer
//! files, and source positions.
//!
//! One path for every language: WGSL is written as SPIR-V by naga (the wgpu project's shader
//! crate) with its lines, GLSL is compiled by `glslangValidator -g`, and [`crate::spirv`] reads
//! the module block for block. tangle analyses what a Vulkan driver receives.
//!
//! Architecture invariant: like the litmus parser, this never panics on any input and reports
//! every error with file:line:col in the shader's own lines.

pub mod source;
pub mod tla;

use crate::syntax::ast::{Expectation, Operand, Prop};
use crate::syntax::{Diagnostic, Diagnostics, Span};
use crate::vocab::BinOp;
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
    /// A herd-style condition over the module's memory (`exists (out[0] == 1)`), asked
    /// instead of an `@Output` annotation (SPIR-V front end).
    pub condition: Option<String>,
    /// Whether buffers declared at one descriptor binding share their memory (SPIR-V front
    /// end); default [`Aliasing::Binding`], or [`Aliasing::Variable`] for a Dartagnan test.
    pub aliasing: Option<Aliasing>,
}

/// What one memory is, among a module's buffer variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aliasing {
    /// Variables at one descriptor set and binding are one memory, as a Vulkan driver binds
    /// them (one buffer per binding).
    Binding,
    /// Each variable is its own memory, as Dartagnan reads a module: its tests declare
    /// several buffers at one binding and give each its own `@Input` and `@Output`.
    Variable,
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

/// A parsed module with the means to locate its spans.
struct Read {
    module: naga::Module,
    text: Text,
    /// naga span -> source span.
    locate: Box<dyn Fn(naga::Span) -> Span>,
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
    })
}

/// naga's validation (with every subgroup capability), its errors located by `at`.
fn validate(
    module: &naga::Module,
    at: &dyn Fn(naga::Span, String) -> Diagnostics,
) -> Result<naga::valid::ModuleInfo, Diagnostics> {
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .subgroup_stages(naga::valid::ShaderStages::all())
    .subgroup_operations(naga::valid::SubgroupOperationSet::all())
    .validate(module)
    .map_err(|e| {
        let span = e.spans().next().map(|(s, _)| *s).unwrap_or_default();
        let mut msg = e.as_inner().to_string();
        let mut src: Option<&dyn std::error::Error> = std::error::Error::source(e.as_inner());
        while let Some(s) = src {
            msg.push_str(&format!(": {s}"));
            src = s.source();
        }
        at(span, format!("invalid shader: {msg}"))
    })
}

/// WGSL -> SPIR-V through naga's writer, with the source embedded and `OpLine`s for its
/// statements, and nothing added that the WGSL does not say: no loop bounding, no bounds
/// checks, no workgroup-memory zeroing code (tangle's memory starts at zero). Integer division
/// keeps WGSL's meaning (`x / 0 == x`) through naga's wrapper functions. Returns the words
/// and the (modernised, same-length) text the lines refer to.
///
/// A panic inside naga (a bug there: naga has panicked on real inputs) is caught and reported
/// as an error on the file, never a crash.
pub fn wgsl_to_spirv(file: &str, bytes: &[u8]) -> Result<(Vec<u32>, String), Diagnostics> {
    crate::diag::catch_quietly(|| naga_to_spirv(file, bytes)).unwrap_or_else(|msg| {
        Err(Diagnostics(vec![Diagnostic::bare(
            file,
            1,
            1,
            format!("naga panicked reading or writing this shader (a bug in naga): {msg}"),
        )]))
    })
}

fn naga_to_spirv(file: &str, bytes: &[u8]) -> Result<(Vec<u32>, String), Diagnostics> {
    let Read {
        module,
        text,
        locate,
    } = read_wgsl(file, bytes)?;
    let at = |s: naga::Span, m: String| {
        Diagnostics(vec![Diagnostic::new(file, &text.text, locate(s), m)])
    };
    let info = validate(&module, &at)?;
    let mut options = naga::back::spv::Options {
        lang_version: (1, 3),
        flags: naga::back::spv::WriterFlags::DEBUG,
        fake_missing_bindings: true,
        zero_initialize_workgroup_memory: naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        debug_info: Some(naga::back::spv::DebugInfo {
            source_code: &text.text,
            file_name: file,
            language: naga::back::spv::SourceLanguage::WGSL,
        }),
        ..Default::default()
    };
    options.bounds_check_policies = naga::proc::BoundsCheckPolicies {
        index: naga::proc::BoundsCheckPolicy::Unchecked,
        buffer: naga::proc::BoundsCheckPolicy::Unchecked,
        image_load: naga::proc::BoundsCheckPolicy::Unchecked,
        binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
    };
    let words = naga::back::spv::write_vec(&module, &info, &options, None).map_err(|e| {
        Diagnostics(vec![Diagnostic::bare(
            file,
            1,
            1,
            format!("naga cannot write this shader as SPIR-V: {e}"),
        )])
    })?;
    Ok((words, text.text.clone()))
}

/// GLSL -> SPIR-V with debug lines, through `glslangValidator` (Debian's `glslang-tools`).
pub(crate) fn glslang(file: &str, path: &Path) -> Result<Vec<u8>, Diagnostics> {
    glslang_for(file, path, "vulkan1.1")
}

/// As [`glslang`], for a target environment (`vulkan1.2` is SPIR-V 1.5, where a broadcast's
/// lane may be dynamic, as the TLA+ artifact compiles).
pub(crate) fn glslang_for(file: &str, path: &Path, env: &str) -> Result<Vec<u8>, Diagnostics> {
    let bare = |l: u32, m: String| Diagnostics(vec![Diagnostic::bare(file, l, 1, m)]);
    let out_path = std::env::temp_dir().join(format!(
        "tangle-{}-{}.spv",
        std::process::id(),
        path.file_stem()
            .map_or("shader".into(), |s| s.to_string_lossy().to_string())
    ));
    let mut cmd = std::process::Command::new("glslangValidator");
    cmd.args(["-V", "--target-env", env, "-g"]);
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
    let expect = vec![Expectation {
        model: None,
        allow: false,
        span: Span::default(),
    }];
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
