//! Runs Dartagnan's Vulkan SPIR-V tests unchanged against its published results.
//!
//! `cargo run --release --example dartagnan_spirv -- PATH/TO/Dat3M [--model SSO] [--engine both|explore|smt] [--table OUT.md] [--quiet]`
//!
//! The expected results are the rows of Dartagnan's JUnit classes
//! (`dartagnan/src/test/java/com/dat3m/dartagnan/spirv/vulkan/**/Spirv*Test.java`:
//! `{"file.spvasm", bound, PASS|FAIL|UNKNOWN}`); per file the row with the largest loop bound
//! is the one compared (smaller bounds only show that Dartagnan needed more unrolling).
//! `SpirvAssertionsTest` asks whether the `@Output` condition holds, which tangle answers
//! (PASS is herd's Ok). `SpirvRacesTest` asks about data races and `SpirvLivenessTest` about
//! termination: those questions are listed, not asked. Every `.spvasm` file of the suite is
//! read; a file tangle refuses is listed with the reason. Nothing from the suite is bundled:
//! point it at a checkout.

use clap::Parser;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use tangle::model::Model;
use tangle::query::{self, Engine, Options};

#[derive(Parser)]
struct Args {
    /// A checkout of hernanponcedeleon/Dat3M.
    dat3m: PathBuf,
    /// The SIMT-Step execution model.
    #[arg(long, default_value = "SSO")]
    model: String,
    /// both (side by side), explore or smt.
    #[arg(long, default_value = "both")]
    engine: String,
    /// Time budget per test and engine in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    timeout: u32,
    /// The memory model (a bundled name such as `vulkan`, or a .cat file); default: tangle's
    /// sequentially consistent memory.
    #[arg(long)]
    memory_model: Option<String>,
    /// Write the per-file table (Markdown) here.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Print only totals and the rows that do not agree.
    #[arg(long)]
    quiet: bool,
}

/// What Dartagnan's test classes say of one file.
#[derive(Default, Clone)]
struct Expected {
    /// (bound, result) of SpirvAssertionsTest.
    assertion: Option<(u32, String)>,
    races: Option<String>,
    liveness: Option<String>,
}

fn rows(java: &str) -> Vec<(String, u32, String)> {
    // {"name.spvasm", 1, PASS}
    let mut out = Vec::new();
    for line in java.lines() {
        // A row may end with a comment: `{"chain-2.spvasm", 1, FAIL}, // Should be PASS ...`.
        let l = line.split("//").next().unwrap_or("").trim();
        let Some(rest) = l.strip_prefix("{\"") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once('"') else {
            continue;
        };
        let parts: Vec<&str> = rest
            .trim_start_matches(',')
            .trim_end_matches([',', '}'])
            .split(',')
            .map(str::trim)
            .collect();
        let result = parts.last().map(|s| s.trim_end_matches('}').to_string());
        let bound = parts
            .iter()
            .find_map(|p| p.parse::<u32>().ok())
            .unwrap_or(1);
        if let Some(r) = result {
            out.push((name.to_string(), bound, r));
        }
    }
    out
}

fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut v: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            walk(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

fn main() {
    let args = Args::parse();
    let res = args.dat3m.join("dartagnan/src/test/resources");
    let java_root = args
        .dat3m
        .join("dartagnan/src/test/java/com/dat3m/dartagnan/spirv/vulkan");
    let mut javas = Vec::new();
    walk(&java_root, ".java", &mut javas);
    let mut expected: BTreeMap<String, Expected> = BTreeMap::new();
    for j in &javas {
        let text = std::fs::read_to_string(j).unwrap_or_default();
        // getTestResourcePath("spirv/vulkan/basic/" + file)
        let Some(dir) = text
            .split("getTestResourcePath(\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
        else {
            continue;
        };
        let kind = j.file_name().unwrap().to_string_lossy().to_string();
        for (name, bound, result) in rows(&text) {
            let key = format!("{dir}{name}");
            let e = expected.entry(key).or_default();
            if kind.contains("Assertions") {
                if e.assertion.as_ref().is_none_or(|(b, _)| bound >= *b) {
                    e.assertion = Some((bound, result));
                }
            } else if kind.contains("Races") {
                e.races = Some(result);
            } else if kind.contains("Liveness") {
                e.liveness = Some(result);
            }
        }
    }
    let mut files = Vec::new();
    walk(&res.join("spirv/vulkan"), ".spvasm", &mut files);
    let model = Model::resolve(&args.model).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let memory =
        args.memory_model
            .as_ref()
            .and_then(|m| match tangle::memory::MemoryModel::resolve(m) {
                Ok(m) => m.map(std::sync::Arc::new),
                Err(e) => {
                    eprintln!("{e}");
                    std::process::exit(2)
                }
            });
    let engines: Vec<Engine> = match args.engine.as_str() {
        "smt" => vec![Engine::Smt],
        "explore" => vec![Engine::Explore],
        _ => vec![Engine::Explore, Engine::Smt],
    };
    let mut table = String::from(
        "| file | read | Dartagnan (bound) | tangle explorer | tangle Z3 | agreement |\n|---|---|---|---|---|---|\n",
    );
    let mut refused: BTreeMap<String, u32> = BTreeMap::new();
    let (mut read, mut asked, mut agree, mut differ, mut unknown, mut engines_differ) =
        (0, 0, 0, 0, 0, 0);
    let mut dart_unknown = 0;
    let mut not_asked = 0;
    let mut times = vec![0.0f64; engines.len()];
    for f in &files {
        let rel = f
            .strip_prefix(&res)
            .unwrap_or(f)
            .to_string_lossy()
            .to_string();
        let exp = expected.get(&rel).cloned().unwrap_or_default();
        let test = tangle::load(f, &Default::default());
        let test = match test {
            Ok(t) => {
                read += 1;
                t
            }
            Err(d) => {
                let first = d.0.first().map(|d| d.message.clone()).unwrap_or_default();
                let loc = d.0.first().map(|d| d.location()).unwrap_or_default();
                let key: String = first.chars().take(90).collect();
                *refused.entry(key).or_default() += 1;
                let dart = exp
                    .assertion
                    .as_ref()
                    .map(|(b, r)| format!("{r} ({b})"))
                    .or(exp.races.as_ref().map(|r| format!("races {r}")))
                    .or(exp.liveness.as_ref().map(|r| format!("liveness {r}")))
                    .unwrap_or_else(|| "none".into());
                table.push_str(&format!(
                    "| {rel} | no: `{}` | {dart} | | | refused |\n",
                    first.replace('|', "\\|")
                ));
                if !args.quiet {
                    println!("{rel}: refused at {loc}: {first}");
                }
                continue;
            }
        };
        let Some((bound, want)) = exp.assertion.clone() else {
            not_asked += 1;
            let what = exp
                .races
                .as_ref()
                .map(|r| format!("races {r}"))
                .or(exp.liveness.as_ref().map(|r| format!("liveness {r}")))
                .unwrap_or_else(|| "no expected result".into());
            table.push_str(&format!("| {rel} | yes | {what} | | | not asked |\n"));
            continue;
        };
        asked += 1;
        let mut got = Vec::new();
        for (k, &engine) in engines.iter().enumerate() {
            // Only the verdict is compared: outcomes are not listed, as `tangle check` does.
            let mut opts = Options::default()
                .with_engine(engine)
                .with_outcomes(false)
                .with_timeout_ms(Some(args.timeout));
            opts.memory = memory.clone();
            let start = Instant::now();
            let a = query::analyse(&test, &model, &opts);
            times[k] += start.elapsed().as_secs_f64();
            got.push(a.ok().and_then(|a| a.condition_holds));
        }
        let show = |g: &Option<bool>| match g {
            Some(true) => "PASS".to_string(),
            Some(false) => "FAIL".to_string(),
            None => "unknown".to_string(),
        };
        if got.len() == 2 {
            if let (Some(a), Some(b)) = (got[0], got[1]) {
                if a != b {
                    engines_differ += 1;
                    println!("ENGINES DISAGREE on {rel}");
                }
            }
        }
        let decided = got.iter().find_map(|g| *g);
        let mark = if want == "UNKNOWN" {
            dart_unknown += 1;
            "Dartagnan unknown"
        } else {
            match decided {
                Some(h) if (h && want == "PASS") || (!h && want == "FAIL") => {
                    agree += 1;
                    "agree"
                }
                Some(_) => {
                    differ += 1;
                    "DIFFER"
                }
                None => {
                    unknown += 1;
                    "unknown"
                }
            }
        };
        let cols: Vec<String> = got.iter().map(show).collect();
        let (ex, sm) = match engines.as_slice() {
            [Engine::Explore, Engine::Smt] => (cols[0].clone(), cols[1].clone()),
            [Engine::Smt] => (String::new(), cols[0].clone()),
            _ => (cols[0].clone(), String::new()),
        };
        table.push_str(&format!(
            "| {rel} | yes | {want} ({bound}) | {ex} | {sm} | {mark} |\n"
        ));
        if !args.quiet || mark != "agree" {
            println!("{rel}: Dartagnan {want} ({bound}), tangle {ex} / {sm}: {mark}");
        }
    }
    let setting = format!(
        "{}+{}",
        args.model,
        args.memory_model.as_deref().unwrap_or("sc")
    );
    println!(
        "{} files: {read} read, {} refused; {asked} assertion tests asked under {setting}: {agree} agree, {differ} differ, {unknown} unknown, {dart_unknown} Dartagnan-unknown; {not_asked} read but not asked (races, liveness); engines disagree on {engines_differ}",
        files.len(),
        files.len() - read,
    );
    for (k, e) in engines.iter().enumerate() {
        println!("  {e}: total {:.1} s", times[k]);
    }
    for (why, n) in &refused {
        println!("  refused {n}: {why}");
    }
    if let Some(p) = &args.table {
        std::fs::write(p, table).unwrap_or_else(|e| eprintln!("{}: {e}", p.display()));
    }
}
