//! Runs Dartagnan's VULKAN or PTX litmus suite unchanged against its published results.
//!
//! `cargo run --release --example dartagnan -- PATH/TO/Dat3M [--suite VULKAN|VULKAN-DR|PTXv7_5] [--model SSO] [--memory-model vulkan|ptx] [--engine both|explore|smt]`
//!
//! Reads `dartagnan/src/test/resources/SUITE-expected.csv` (path,1|0: 1 when the condition
//! as written holds; for a races table, `-DR` in its name, 1 when no execution raises a
//! flag of the model: Dartagnan's `CAT_SPEC` PASS) and prints, per file and engine, tangle's answer next to Dartagnan's,
//! then per engine the totals: agreements, disagreements, unknowns, files tangle refuses (with
//! the reason), the median and total time; with `both` (the default) the two cat back ends
//! side by side, their time ratio, and any file where they disagree. Nothing from the suite is
//! bundled: point it at a checkout.

use clap::Parser;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tangle::memory::MemoryModel;
use tangle::model::Model;
use tangle::query::{self, Engine, Options};

#[derive(Parser)]
struct Args {
    /// A checkout of hernanponcedeleon/Dat3M.
    dat3m: PathBuf,
    /// The SIMT-Step execution model.
    #[arg(long, default_value = "SSO")]
    model: String,
    /// The suite: the name before `-expected.csv` in Dartagnan's test resources.
    #[arg(long, default_value = "VULKAN")]
    suite: String,
    /// The memory model (a bundled name or a .cat file); default: `ptx` for PTX suites,
    /// `vulkan` otherwise.
    #[arg(long)]
    memory_model: Option<String>,
    /// Time budget per test in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    timeout: u32,
    /// The engine: both (side by side), explore (the concrete cat back end) or smt (the
    /// symbolic one).
    #[arg(long, default_value = "both")]
    engine: String,
    /// Print only the totals and the files that do not agree.
    #[arg(long)]
    quiet: bool,
}

fn main() {
    let args = Args::parse();
    let csv = args.dat3m.join(format!(
        "dartagnan/src/test/resources/{}-expected.csv",
        args.suite
    ));
    let memory_model = args.memory_model.clone().unwrap_or_else(|| {
        if args.suite.starts_with("PTX") {
            "ptx"
        } else {
            "vulkan"
        }
        .to_string()
    });
    let table = std::fs::read_to_string(&csv).unwrap_or_else(|e| {
        eprintln!("{}: {e}", csv.display());
        std::process::exit(2)
    });
    let memory = match MemoryModel::resolve(&memory_model) {
        Ok(m) => m.map(Arc::new),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2)
        }
    };
    let model = Model::resolve(&args.model).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let engines: Vec<Engine> = match args.engine.as_str() {
        "smt" => vec![Engine::Smt],
        "explore" => vec![Engine::Explore],
        _ => vec![Engine::Explore, Engine::Smt],
    };
    let mut tests = Vec::new();
    let (mut refused, mut reasons) = (0, std::collections::BTreeMap::<String, u32>::new());
    let mut seen = std::collections::BTreeSet::new();
    let mut absent = 0;
    for line in table.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let Some((file, want)) = line.split_once(',') else {
            continue;
        };
        if !seen.insert(file.to_string()) {
            continue; // Dartagnan's table lists one file twice
        }
        if !args.dat3m.join(file).exists() {
            // Dartagnan runs only the rows whose file exists (`buildLitmusTests`).
            absent += 1;
            continue;
        }
        match tangle::load(&args.dat3m.join(file), &Default::default()) {
            Ok(t) => tests.push((file.to_string(), want.trim() == "1", t)),
            Err(d) => {
                refused += 1;
                let first = d.0.first().map(|d| d.message.clone()).unwrap_or_default();
                let key: String = first
                    .split(':')
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(70)
                    .collect();
                *reasons.entry(key).or_default() += 1;
                if !args.quiet {
                    println!("{file}: refused: {first}");
                }
            }
        }
    }
    // A races table asks whether some execution raises a flag, not the condition.
    let races = tangle::query::expected::is_races_table(&csv.to_string_lossy());
    let mut totals = Vec::new();
    let mut answers: Vec<Vec<Option<bool>>> = Vec::new();
    for &engine in &engines {
        // The verdict and herd's Ok/No only, as `tangle check` (no outcome lists).
        let mut opts = Options::default()
            .with_outcomes(false)
            .with_engine(engine)
            .with_timeout_ms(Some(args.timeout))
            // Flags are judged whole only for a races table, as `tangle check` does.
            .with_flags(races);
        opts.memory = memory.clone();
        let (mut agree, mut differ, mut unknown, mut undefined) = (0, 0, 0, 0);
        let mut times = Vec::new();
        let mut got_all = Vec::new();
        for (file, want, test) in &tests {
            let start = Instant::now();
            let a = query::analyse(test, &model, &opts);
            times.push(start.elapsed().as_secs_f64());
            let mut ub = None;
            let got = a.as_ref().ok().and_then(|a| {
                if !races {
                    return a.condition_holds;
                }
                let answer = a.flags();
                if let query::FlagAnswer::Undefined(why) = &answer {
                    ub = Some(why.clone());
                }
                answer.pass()
            });
            got_all.push(got);
            let mark = match got {
                None if ub.is_some() => {
                    undefined += 1;
                    "undefined behaviour"
                }
                Some(h) if h == *want => {
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
            };
            if !args.quiet || mark != "agree" {
                let got = got.map_or("?".to_string(), |h| h.to_string());
                // An unknown says why (a bound, a limit, the budget).
                let why = match &a {
                    Ok(a) => match &a.verdict {
                        query::Verdict::Unknown(why) if mark == "unknown" => format!(" ({why})"),
                        _ => String::new(),
                    },
                    Err(e) => format!(" ({e})"),
                };
                println!("{file} ({engine}): tangle {got}, Dartagnan {want}: {mark}{why}");
            }
        }
        times.sort_by(f64::total_cmp);
        let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
        let total: f64 = times.iter().sum();
        totals.push(total);
        answers.push(got_all);
        println!(
            "{} {} x {} ({engine}): {agree} agree, {differ} differ, {undefined} undefined behaviour, {unknown} unknown, {refused} refused; median {:.1} ms, total {:.1} s",
            csv.display(),
            args.model,
            memory_model,
            median * 1000.0,
            total
        );
    }
    if let [ex, sm] = &answers[..] {
        for (k, (a, b)) in ex.iter().zip(sm).enumerate() {
            if let (Some(a), Some(b)) = (a, b) {
                if a != b {
                    println!("ENGINES DISAGREE on {}: explorer {a}, smt {b}", tests[k].0);
                }
            }
        }
        println!(
            "explorer / smt total time: {:.2}",
            totals[0] / totals[1].max(1e-9)
        );
    }
    if absent > 0 {
        println!("  {absent} rows name files not in the checkout (Dartagnan skips them too)");
    }
    for (why, n) in reasons {
        println!("  refused {n}: {why}");
    }
}
