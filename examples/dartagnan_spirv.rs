//! Runs Dartagnan's Vulkan SPIR-V tests unchanged against its published results.
//!
//! `cargo run --release --example dartagnan_spirv -- PATH/TO/Dat3M [--model SSO] [--engine both|explore|smt] [--table OUT.md] [--quiet]`
//!
//! The expected results are the rows of Dartagnan's JUnit classes
//! (`dartagnan/src/test/java/com/dat3m/dartagnan/spirv/vulkan/**/Spirv*Test.java`:
//! `{"file.spvasm", bound, PASS|FAIL|UNKNOWN}`); per file the row with the largest loop bound
//! is the one compared (smaller bounds only show that Dartagnan needed more unrolling).
//! `SpirvAssertionsTest` asks whether the `@Output` condition holds, which tangle answers
//! (PASS is herd's Ok). `SpirvRacesTest` asks whether the memory model's flag (`vulkan.cat`'s
//! data race) is raised by some execution: asked under `--memory-model`, where tangle answers
//! FAIL when an execution raises a flag, PASS when none does and every run was covered (the
//! outcome list is complete: no cut, budget or undecided flag), else unknown. Under SC there
//! is no flag to ask about. `SpirvLivenessTest` (termination) is listed, not asked. Every
//! `.spvasm` file of the suite is read; a file tangle refuses is listed with the reason.
//! Nothing from the suite is bundled: point it at a checkout.

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
    /// (with the filter, result) of SpirvRacesTest: `patterns/`'s rows say whether the
    /// `@Filter` is read (`IGNORE_FILTER_SPECIFICATION` off) or not.
    races: Vec<(bool, String)>,
    liveness: Option<String>,
}

/// Answers compared with Dartagnan's, for one kind of question.
#[derive(Default)]
struct Tally {
    asked: u32,
    agree: u32,
    differ: u32,
    /// tangle finds undefined behaviour other than a flag (the races question).
    undefined: u32,
    unknown: u32,
    dart_unknown: u32,
}

/// Dartagnan's races question (`CAT_SPEC`), as [`query::FlagAnswer`] says it.
fn races(a: &query::Analysis) -> Race {
    match a.flags() {
        query::FlagAnswer::Raised => Race::Answer(false),
        query::FlagAnswer::Free => Race::Answer(true),
        query::FlagAnswer::Undefined(why) => Race::Undefined(why),
        query::FlagAnswer::Unknown => Race::Unknown,
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Race {
    /// Race-free (PASS) or not (FAIL).
    Answer(bool),
    Undefined(String),
    Unknown,
}

fn rows(java: &str) -> Vec<(String, u32, Option<bool>, String)> {
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
        let flag = parts.iter().find_map(|p| p.parse::<bool>().ok());
        if let Some(r) = result {
            out.push((name.to_string(), bound, flag, r));
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
        for (name, bound, filter, result) in rows(&text) {
            let key = format!("{dir}{name}");
            let e = expected.entry(key).or_default();
            if kind.contains("Assertions") {
                if e.assertion.as_ref().is_none_or(|(b, _)| bound >= *b) {
                    e.assertion = Some((bound, result));
                }
            } else if kind.contains("Races") {
                e.races.push((filter.unwrap_or(true), result));
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
    let (mut read, mut engines_differ) = (0, 0);
    let (mut assertions, mut race_tally) = (Tally::default(), Tally::default());
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
                    .or(exp.races.first().map(|(_, r)| format!("races {r}")))
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
        // The questions Dartagnan asks of this file that tangle can ask: (kind, bound, want,
        // whether the file's filter is read).
        let mut questions: Vec<(&str, Option<u32>, String, bool)> = Vec::new();
        if let Some((bound, want)) = exp.assertion.clone() {
            questions.push(("assertion", Some(bound), want, true));
        }
        if memory.is_some() {
            for (filter, want) in &exp.races {
                questions.push(("races", None, want.clone(), *filter));
            }
        }
        if questions.is_empty() {
            not_asked += 1;
            let what = exp
                .races
                .first()
                .map(|(_, r)| format!("races {r}"))
                .or(exp.liveness.as_ref().map(|r| format!("liveness {r}")))
                .unwrap_or_else(|| "no expected result".into());
            table.push_str(&format!("| {rel} | yes | {what} | | | not asked |\n"));
            continue;
        }
        // Per engine: the assertion's answer (PASS is `Some(true)`) and the races answer; for
        // the file with its filter ignored too, when a row asks for that.
        let mut ask = |test: &tangle::syntax::ast::Test| {
            let mut got: Vec<(Option<bool>, Race)> = Vec::new();
            for (k, &engine) in engines.iter().enumerate() {
                // Only the verdict is compared: outcomes are not listed, as `tangle check` does.
                let mut opts = Options::default()
                    .with_engine(engine)
                    .with_outcomes(false)
                    .with_timeout_ms(Some(args.timeout));
                opts.memory = memory.clone();
                let start = Instant::now();
                let a = query::analyse(test, &model, &opts);
                times[k] += start.elapsed().as_secs_f64();
                got.push(match a {
                    Ok(a) => (a.condition_holds, races(&a)),
                    Err(e) => {
                        // Not an answer: say why, even with --quiet.
                        eprintln!("{}: {engine}: {e}", test.file);
                        (None, Race::Unknown)
                    }
                });
            }
            got
        };
        let got = ask(&test);
        let unfiltered = (test.filter.is_some() && questions.iter().any(|q| !q.3)).then(|| {
            let mut t = test.clone();
            t.filter = None;
            ask(&t)
        });
        for (kind, bound, want, filter) in questions {
            let got = match &unfiltered {
                Some(u) if !filter => u,
                _ => &got,
            };
            let answers: Vec<Race> = got
                .iter()
                .map(|g| match (kind, &g.0) {
                    ("races", _) => g.1.clone(),
                    (_, Some(h)) => Race::Answer(*h),
                    (_, None) => Race::Unknown,
                })
                .collect();
            let c = if kind == "races" {
                &mut race_tally
            } else {
                &mut assertions
            };
            c.asked += 1;
            // Two decided answers that differ (PASS, FAIL, undefined behaviour) disagree.
            if let [a, b] = &answers[..] {
                if *a != Race::Unknown && *b != Race::Unknown && a != b {
                    engines_differ += 1;
                    println!("ENGINES DISAGREE on {rel} ({kind})");
                }
            }
            let decided = answers.iter().find(|r| **r != Race::Unknown);
            let mark = if want == "UNKNOWN" {
                c.dart_unknown += 1;
                "Dartagnan unknown"
            } else {
                match decided {
                    Some(Race::Answer(h)) if (*h && want == "PASS") || (!*h && want == "FAIL") => {
                        c.agree += 1;
                        "agree"
                    }
                    Some(Race::Answer(_)) => {
                        c.differ += 1;
                        "DIFFER"
                    }
                    Some(Race::Undefined(_)) => {
                        c.undefined += 1;
                        "tangle: undefined behaviour"
                    }
                    _ => {
                        c.unknown += 1;
                        "unknown"
                    }
                }
            };
            let show = |r: &Race| match r {
                Race::Answer(true) => "PASS".to_string(),
                Race::Answer(false) => "FAIL".to_string(),
                Race::Undefined(why) => format!("UB ({why})"),
                Race::Unknown => "unknown".to_string(),
            };
            let cols: Vec<String> = answers.iter().map(show).collect();
            let (ex, sm) = match engines.as_slice() {
                [Engine::Explore, Engine::Smt] => (cols[0].clone(), cols[1].clone()),
                [Engine::Smt] => (String::new(), cols[0].clone()),
                _ => (cols[0].clone(), String::new()),
            };
            let dart = match (kind, bound) {
                ("races", _) if !filter => format!("races {want} (filter ignored)"),
                ("races", _) => format!("races {want}"),
                (_, Some(b)) => format!("{want} ({b})"),
                _ => want.clone(),
            };
            table.push_str(&format!(
                "| {rel} | yes | {dart} | {ex} | {sm} | {mark} |\n"
            ));
            if !args.quiet || mark != "agree" {
                println!("{rel}: Dartagnan {dart}, tangle {ex} / {sm}: {mark}");
            }
        }
    }
    let setting = format!(
        "{}+{}",
        args.model,
        args.memory_model.as_deref().unwrap_or("sc")
    );
    let t = |c: &Tally| {
        format!(
            "{} agree, {} differ, {} undefined behaviour, {} unknown, {} Dartagnan-unknown",
            c.agree, c.differ, c.undefined, c.unknown, c.dart_unknown
        )
    };
    println!(
        "{} files: {read} read, {} refused; under {setting}: {} assertion tests asked: {}; {} race tests asked: {}; {not_asked} read but not asked ({}liveness); engines disagree on {engines_differ}",
        files.len(),
        files.len() - read,
        assertions.asked,
        t(&assertions),
        race_tally.asked,
        t(&race_tally),
        if memory.is_some() { "" } else { "races need --memory-model, " },
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
