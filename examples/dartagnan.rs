//! Runs Dartagnan's VULKAN litmus suite unchanged against its published results.
//!
//! `cargo run --release --example dartagnan -- PATH/TO/Dat3M [--model SSO] [--memory-model vulkan] [--engine explore|smt]`
//!
//! Reads `dartagnan/src/test/resources/VULKAN-expected.csv` (path,1|0: 1 when the condition
//! as written holds) and prints, per file, tangle's answer next to Dartagnan's, then totals:
//! agreements, disagreements, unknowns and files tangle refuses (with the reason), and the
//! median and total time. Nothing from the suite is bundled: point it at a checkout.

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
    /// The memory model (a bundled name or a .cat file).
    #[arg(long, default_value = "vulkan")]
    memory_model: String,
    /// Time budget per test in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    timeout: u32,
    /// The engine: explore (the concrete cat back end) or smt (the symbolic one).
    #[arg(long, default_value = "explore")]
    engine: String,
    /// Print only the totals and the files that do not agree.
    #[arg(long)]
    quiet: bool,
}

fn main() {
    let args = Args::parse();
    let csv = args
        .dat3m
        .join("dartagnan/src/test/resources/VULKAN-expected.csv");
    let table = std::fs::read_to_string(&csv).unwrap_or_else(|e| {
        eprintln!("{}: {e}", csv.display());
        std::process::exit(2)
    });
    let memory = match MemoryModel::resolve(&args.memory_model) {
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
    let mut opts = Options::default()
        .with_engine(match args.engine.as_str() {
            "smt" => Engine::Smt,
            _ => Engine::Explore,
        })
        .with_timeout_ms(Some(args.timeout));
    opts.memory = memory;
    let (mut agree, mut differ, mut unknown, mut refused) = (0, 0, 0, 0);
    let mut times = Vec::new();
    let mut reasons: std::collections::BTreeMap<String, u32> = Default::default();
    for line in table.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let Some((file, want)) = line.split_once(',') else {
            continue;
        };
        let want = want.trim() == "1";
        let start = Instant::now();
        let test = match tangle::load(&args.dat3m.join(file), &Default::default()) {
            Ok(t) => t,
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
                continue;
            }
        };
        let a = query::analyse(&test, &model, &opts);
        times.push(start.elapsed().as_secs_f64());
        let (mark, got) = match a.as_ref().ok().and_then(|a| a.condition_holds) {
            Some(h) if h == want => {
                agree += 1;
                ("agree", h.to_string())
            }
            Some(h) => {
                differ += 1;
                ("DIFFER", h.to_string())
            }
            None => {
                unknown += 1;
                ("unknown", "?".into())
            }
        };
        if !args.quiet || mark != "agree" {
            println!("{file}: tangle {got}, Dartagnan {want}: {mark}");
        }
    }
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    println!(
        "{} {} x {}: {agree} agree, {differ} differ, {unknown} unknown, {refused} refused; median {:.1} ms, total {:.1} s",
        csv.display(),
        args.model,
        args.memory_model,
        median * 1000.0,
        times.iter().sum::<f64>()
    );
    for (why, n) in reasons {
        println!("  refused {n}: {why}");
    }
}
