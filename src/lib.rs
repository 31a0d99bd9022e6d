//! tangle: executable SIMT-Step semantics for GPU subgroups.
//!
//! The pipeline, one module per stage (see ARCHITECTURE.md):
//! [`syntax`] (`.litmus` -> AST) -> [`ir`] (structured CFG, unrolling, dynamic blocks) ->
//! [`model`] (classes from `encodings/`) -> [`engine`] (explorer) -> [`query`] (verdicts,
//! outcomes, witnesses) -> [`report`] (text, JSON).
//!
//! ```
//! let src = b"test t\nthreads 2\nglobal x\nkernel { x = lane; r = x; }\nexists (0:r != 1:r)\n";
//! let test = tangle::syntax::parse("t.litmus", src).unwrap();
//! let cm = tangle::model::Model::by_name("CM").unwrap();
//! let a = tangle::query::analyse(&test, &cm, &Default::default()).unwrap();
//! assert_eq!(a.verdict, tangle::query::Verdict::Forbidden);
//! ```

pub mod budget;
pub mod cat;
pub mod diag;
pub mod dialect;
pub mod engine;
pub mod eval;
pub mod gen;
pub mod input;
pub mod ir;
pub mod memory;
pub mod model;
pub mod progress;
pub mod query;
pub mod report;
pub mod shader;
pub mod spirv;
pub mod syntax;
pub mod vocab;

/// Reads a test: a `.litmus` file (or `-`, standard input), or a shader (`.wgsl`, `.spv`,
/// `.comp`) launched as `launch` says (the launch is ignored for litmus files). Files above
/// [`input::DEFAULT_MAX_FILE_BYTES`] are refused; [`load_limited`] sets another ceiling.
pub fn load(
    path: &std::path::Path,
    launch: &shader::Launch,
) -> Result<syntax::ast::Test, syntax::Diagnostics> {
    load_limited(path, launch, input::DEFAULT_MAX_FILE_BYTES)
}

/// As [`load`], refusing input files above `max_bytes`.
pub fn load_limited(
    path: &std::path::Path,
    launch: &shader::Launch,
    max_bytes: u64,
) -> Result<syntax::ast::Test, syntax::Diagnostics> {
    if spirv::is_spirv(path) {
        return spirv::load(path, launch, max_bytes);
    }
    match shader::Language::of(path) {
        Some(shader::Language::Glsl) => spirv::load_glsl(path, launch, max_bytes),
        Some(shader::Language::Wgsl) => spirv::load_wgsl(path, launch, max_bytes),
        Some(shader::Language::Spirv) => spirv::load(path, launch, max_bytes),
        None => {
            let bytes = input::read(path, max_bytes)?;
            let name = input::display_name(path);
            match dialect::sniff(&bytes) {
                Some("vulkan") => dialect::vulkan::parse(&name, &bytes),
                Some("ptx") => dialect::ptx::parse(&name, &bytes),
                _ => {
                    let test = syntax::parse(&name, &bytes)?;
                    query::liveness::check_progress_names(&test)?;
                    Ok(test)
                }
            }
        }
    }
}
