//! Compiler-pass validation: runs `spirv-opt` pass by pass over a directory of shaders and
//! asks tangle, for every shader and pass, whether the optimised shader still has the same
//! outcomes (final buffer contents) under every model.
//!
//! ```text
//! cargo run --release --example passes -- [DIR] [--subgroup-size N] [--passes "P1;P2;..."]
//! ```
//! DIR defaults to `shaders/passes`; shaders are `.comp` (compiled by `glslangValidator`),
//! or `.spv`. A pass is a `spirv-opt` argument list (`--ssa-rewrite --if-conversion`); the
//! default list is [`PASSES`]. Each row says `same` (the same outcomes under every model),
//! `refines` (the optimised shader's outcomes are among the original's under every model, and
//! fewer under some) or `changes behaviour` (under some model the optimised shader reaches an
//! outcome the original cannot), with a witness trace of that outcome that the explorer
//! replays independently (its outcome set must contain it), or why the row is undecided.
//! A shader with a twin in `DIR/miscompiled/` (the known bug's transformation, applied by
//! hand) gets one more row comparing it with that twin.
//! Needs `glslangValidator` and `spirv-opt` (Debian: glslang-tools, spirv-tools).

use clap::{ArgAction, Parser};
use std::path::PathBuf;
use std::process::Command;
use tangle::model::Model;
use tangle::query::equiv::{self, Holds, Side};
use tangle::query::{self, Engine, Options};
use tangle::shader::Launch;
use tangle::vocab::{Class, Kind};

/// The passes tried by default: those that move or merge code across control flow, alone
/// (on glslang's output) and after SSA construction, and the whole -O pipeline.
const PASSES: &[&str] = &[
    "--merge-return",
    "--inline-entry-points-exhaustive",
    "--eliminate-dead-branches",
    "--merge-blocks",
    "--ssa-rewrite",
    "--ssa-rewrite --if-conversion",
    "--ssa-rewrite --redundancy-elimination",
    "--ssa-rewrite --local-redundancy-elimination",
    "--ssa-rewrite --loop-invariant-code-motion",
    "--ssa-rewrite --loop-unswitch",
    "--ssa-rewrite --loop-peeling",
    "--ssa-rewrite --loop-unroll",
    "--ssa-rewrite --simplify-instructions --ccp",
    "-O",
    "-Os",
];

struct Row {
    shader: String,
    pass: String,
    verdict: String,
    detail: String,
    witness: Vec<String>,
}

/// Runs `spirv-opt` pass by pass over a directory of shaders and asks tangle, for every
/// shader and pass, whether the optimised shader keeps the original's outcomes under every
/// model. Needs `glslangValidator` and `spirv-opt`.
#[derive(Parser, Debug)]
#[command(name = "passes", args_override_self = true)]
struct Args {
    /// Directory of `.comp` (GLSL, compiled by glslangValidator) and `.spv` shaders; a twin
    /// in DIR/miscompiled/ gets one more row
    #[arg(value_name = "DIR", default_value = "shaders/passes")]
    dir: PathBuf,
    /// Subgroup size of the launch
    #[arg(long, value_name = "N", default_value_t = 4)]
    subgroup_size: u32,
    /// The passes, `;`-separated; each is a spirv-opt argument list, e.g.
    /// "--ssa-rewrite --if-conversion;-O" [default: a built-in list of passes that move or
    /// merge code across control flow, and -O, -Os]
    #[arg(long, value_name = "P1;P2;..", value_delimiter = ';', allow_hyphen_values = true,
          action = ArgAction::Set)]
    passes: Option<Vec<String>>,
}

fn main() {
    let args = Args::parse();
    let dir = args.dir;
    let subgroup = args.subgroup_size;
    let passes: Vec<String> = match args.passes {
        Some(list) => list
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        None => PASSES.iter().map(|s| s.to_string()).collect(),
    };
    let work = std::env::temp_dir().join(format!("tangle-passes-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("a scratch directory");
    let mut shaders: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "comp" || x == "spv"))
        .collect();
    shaders.sort();
    let launch = Launch {
        subgroup_size: Some(subgroup),
        ..Launch::default()
    };
    let models = Model::builtin();
    let opts = Options::default().with_timeout_ms(Some(60_000));
    let mut rows = Vec::new();
    for shader in &shaders {
        let name = shader.file_stem().unwrap().to_string_lossy().to_string();
        let before = work.join(format!("{name}.spv"));
        if shader.extension().is_some_and(|x| x == "comp") {
            run(Command::new("glslangValidator")
                .args(["-V", "--target-env", "vulkan1.1", "-g", "-o"])
                .arg(&before)
                .arg(shader))
            .unwrap_or_else(|e| panic!("{e}"));
        } else {
            std::fs::copy(shader, &before).expect("copy");
        }
        let p = tangle::load(&before, &launch).unwrap_or_else(|d| panic!("{d}"));
        for pass in &passes {
            let tag = pass.replace("--", "").replace(' ', "+");
            let after = work.join(format!("{name}.{tag}.spv"));
            let mut row = Row {
                shader: name.clone(),
                pass: pass.clone(),
                verdict: String::new(),
                detail: String::new(),
                witness: Vec::new(),
            };
            let mut cmd = Command::new("spirv-opt");
            cmd.args(pass.split_whitespace())
                .arg(&before)
                .arg("-o")
                .arg(&after);
            if let Err(e) = run(&mut cmd) {
                row.verdict = "spirv-opt failed".into();
                row.detail = e;
                rows.push(row);
                continue;
            }
            let q = match tangle::load(&after, &launch) {
                Ok(q) => q,
                Err(d) => {
                    row.verdict = "unreadable".into();
                    row.detail = d.to_string().lines().next().unwrap_or("").to_string();
                    rows.push(row);
                    continue;
                }
            };
            classify(&p, &q, &models, &opts, &mut row);
            rows.push(row);
        }
        // The known bug's transformation applied by hand (DIR/miscompiled/NAME.comp): the row
        // that shows what a miscompilation looks like.
        let bad = dir.join("miscompiled").join(shader.file_name().unwrap());
        if bad.exists() {
            let mut row = Row {
                shader: name.clone(),
                pass: format!("miscompiled/{}", bad.file_name().unwrap().to_string_lossy()),
                verdict: String::new(),
                detail: String::new(),
                witness: Vec::new(),
            };
            match tangle::load(&bad, &launch) {
                Ok(q) => classify(&p, &q, &models, &opts, &mut row),
                Err(d) => {
                    row.verdict = "unreadable".into();
                    row.detail = d.to_string();
                }
            }
            rows.push(row);
        }
    }
    println!("| shader | spirv-opt | verdict | detail |");
    println!("|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | `{}` | {} | {} |",
            r.shader,
            r.pass,
            r.verdict,
            r.detail.replace('|', "\\|")
        );
    }
    for r in rows.iter().filter(|r| !r.witness.is_empty()) {
        println!("\n{} after `{}`: {}", r.shader, r.pass, r.detail);
        for l in &r.witness {
            println!("    {l}");
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// Fills the row's verdict from two refinement questions under every model: does the
/// optimised shader Q reach only outcomes of the original P, and P only outcomes of Q?
fn classify(
    p: &tangle::syntax::ast::Test,
    q: &tangle::syntax::ast::Test,
    models: &[Model],
    opts: &Options,
    row: &mut Row,
) {
    let ask = |x, y| equiv::equiv(x, y, models, opts, true);
    let q_in_p = match ask(q, p) {
        Ok(r) => r,
        Err(e) => {
            row.verdict = "unknown".into();
            row.detail = e.to_string();
            return;
        }
    };
    let changed: Vec<&equiv::EquivResult> = q_in_p
        .results
        .iter()
        .filter(|r| r.holds == Holds::No)
        .collect();
    if let Some(first) = changed.first() {
        let names: Vec<&str> = changed.iter().map(|r| r.model.as_str()).collect();
        row.verdict = "changes behaviour".into();
        let d = first.distinction.as_ref().filter(|d| d.program == Side::P);
        let outcome = d.map_or_else(String::new, |d| d.outcome.clone());
        row.detail = format!("under {}: new outcome {outcome}", names.join(", "));
        if let Some(d) = d {
            if let Some(w) = &d.witness {
                row.witness = w
                    .iter()
                    .map(|s| {
                        format!(
                            "{:>4}. T{:?} l.{} {}  {}",
                            s.step,
                            s.threads,
                            s.line,
                            s.instruction,
                            s.effects.join(", ")
                        )
                    })
                    .collect();
            }
            row.detail
                .push_str(&replay(q, &q_in_p.observables, &d.values, &changed));
        }
        return;
    }
    if let Holds::Unknown(why) = q_in_p.overall() {
        row.verdict = "unknown".into();
        row.detail = why;
        return;
    }
    match ask(p, q).map(|r| (r.overall(), r)) {
        Ok((Holds::Yes, _)) => row.verdict = "same".into(),
        Ok((Holds::No, r)) => {
            let fewer: Vec<&str> = r
                .results
                .iter()
                .filter(|x| x.holds == Holds::No)
                .map(|x| x.model.as_str())
                .collect();
            row.verdict = "refines".into();
            row.detail = format!("fewer outcomes under {}", fewer.join(", "));
        }
        Ok((Holds::Unknown(why), _)) => {
            row.verdict = "refines or same (undecided)".into();
            row.detail = why;
        }
        Err(e) => {
            row.verdict = "unknown".into();
            row.detail = e.to_string();
        }
    }
}

/// Replays the distinguishing outcome with the explorer: under the first model it can run,
/// the optimised shader's outcome set must contain it.
fn replay(
    q: &tangle::syntax::ast::Test,
    names: &[String],
    values: &[u32],
    changed: &[&equiv::EquivResult],
) -> String {
    let Some(model) = changed
        .iter()
        .filter_map(|r| Model::by_name(&r.model))
        .find(|m| m.class(Kind::Sgop) != Class::Symbolic)
    else {
        return " (no model the explorer runs)".into();
    };
    let opts = Options::default().with_engine(Engine::Explore);
    let prog = match query::compile(q, opts.unroll) {
        Ok(p) => p,
        Err(e) => return format!(" (explorer: {e})"),
    };
    let a = query::analyse_models(q, &prog, std::slice::from_ref(&model), &opts).remove(0);
    let want: Vec<(String, u32)> = names.iter().cloned().zip(values.iter().copied()).collect();
    let found = a.outcomes.iter().any(|o| {
        want.iter().all(|(n, v)| {
            a.observables
                .iter()
                .position(|x| x == n)
                .is_some_and(|i| o.values[i] == *v)
        })
    });
    match (found, a.outcomes_complete) {
        (true, _) => format!("; the explorer reaches it under {}", model.name),
        (false, true) => format!("; THE EXPLORER DOES NOT REACH IT under {}", model.name),
        (false, false) => format!("; the explorer could not decide under {}", model.name),
    }
}
