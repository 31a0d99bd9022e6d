//! Runs Dartagnan's liveness suites unchanged against their published results.
//!
//! `cargo run --release --example dartagnan_liveness -- PATH/TO/Dat3M [--suite VULKAN-Liveness-Fair] [--progress fair] [--model SSO] [--engine explore|smt|both] [--unroll 16] [--table OUT.md] [--quiet]`
//!
//! Reads `dartagnan/src/test/resources/SUITE-expected.csv` (`path,1|0`: 1 when every
//! execution terminates, 0 when one can run forever; rows commented out with `;` are
//! skipped, as Dartagnan skips them), runs `tangle liveness` (the explorer or Z3; SC memory
//! unless `--memory-model` names another) on each
//! file and prints tangle's answer next to Dartagnan's, then the totals: agreements,
//! disagreements, unknowns, refused files, the median and total time. The progress model
//! defaults to the suite's (`-Fair`, `-HSA`, `-OBE`, `-HSA_OBE`, `-LOBE`; fair for PTX).
//! Nothing from the suite is bundled: point it at a checkout.

use clap::Parser;
use std::path::PathBuf;
use std::time::Instant;
use tangle::model::Model;
use tangle::progress::Progress;
use tangle::query::liveness::{liveness, LiveVerdict};
use tangle::query::{Engine, Options};

#[derive(Parser)]
struct Args {
    /// A checkout of hernanponcedeleon/Dat3M.
    dat3m: PathBuf,
    /// The suite: the name before `-expected.csv` in Dartagnan's test resources.
    #[arg(long, default_value = "VULKAN-Liveness-Fair")]
    suite: String,
    /// The progress model (default: the suite's).
    #[arg(long)]
    progress: Option<String>,
    /// The SIMT-Step execution model.
    #[arg(long, default_value = "SSO")]
    model: String,
    /// The engine: explore (state-graph cycles), smt (the spin-loop reduction) or both (each
    /// with the whole budget; the answer is the one either gives, and two answers that
    /// contradict each other are counted and listed).
    #[arg(long, default_value = "explore")]
    engine: String,
    /// The memory model: sc (the default), vulkan, ptx or a .cat file (both engines).
    #[arg(long, default_value = "sc")]
    memory_model: String,
    /// Loop bound (iterations of each thread's block loop).
    #[arg(long, default_value_t = 16)]
    unroll: u32,
    /// Time budget per test in milliseconds.
    #[arg(long, default_value_t = 20_000)]
    timeout: u32,
    /// Write the per-file table (Markdown) here.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Print only the totals and the files that do not agree.
    #[arg(long)]
    quiet: bool,
    /// Also run the rows the table comments out with `;` (exchange loops Dartagnan cannot
    /// verify; the table says they terminate).
    #[arg(long)]
    commented: bool,
}

fn main() {
    let args = Args::parse();
    let csv = args.dat3m.join(format!(
        "dartagnan/src/test/resources/{}-expected.csv",
        args.suite
    ));
    let table = std::fs::read_to_string(&csv).unwrap_or_else(|e| {
        eprintln!("{}: {e}", csv.display());
        std::process::exit(2)
    });
    let progress_name = args.progress.clone().unwrap_or_else(|| {
        let tail = args.suite.rsplit('-').next().unwrap_or("Fair");
        match tail {
            "HSA" | "OBE" | "LOBE" | "HSA_OBE" => tail.to_string(),
            _ => "fair".to_string(),
        }
    });
    let progress = Progress::parse(&progress_name).unwrap_or_else(|e| {
        eprintln!("--progress: {e}");
        std::process::exit(2)
    });
    let model = Model::resolve(&args.model).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let engines = match args.engine.as_str() {
        "explore" => vec![Engine::Explore],
        "smt" => vec![Engine::Smt],
        "both" => vec![Engine::Explore, Engine::Smt],
        other => {
            eprintln!("--engine: explore, smt or both, not {other}");
            std::process::exit(2)
        }
    };
    let memory = tangle::memory::MemoryModel::resolve(&args.memory_model).unwrap_or_else(|e| {
        eprintln!("--memory-model: {e}");
        std::process::exit(2)
    });
    let mut opts = Options::default()
        .with_unroll(args.unroll)
        .with_timeout_ms(Some(args.timeout));
    opts.memory = memory.map(std::sync::Arc::new);
    let (mut agree, mut differ, mut unknown, mut refused) = (0, 0, 0, 0);
    // With both engines: rows each decides, and rows where their answers contradict.
    let mut decided_by = vec![0usize; engines.len()];
    let mut engines_differ = Vec::new();
    let mut times = Vec::new();
    let mut rows = Vec::new();
    let mut refusals: std::collections::BTreeMap<String, usize> = Default::default();
    let start = Instant::now();
    for line in table.lines() {
        let mut line = line.trim();
        if let Some(rest) = line.strip_prefix(';') {
            if !args.commented {
                continue;
            }
            line = rest.trim();
        }
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let Some((path, expected)) = line.rsplit_once(',') else {
            continue;
        };
        let live_expected = expected.trim() == "1";
        let file = args.dat3m.join(path);
        let test = match tangle::load(&file, &Default::default()) {
            Ok(t) => t,
            Err(d) => {
                refused += 1;
                let why = d.0.first().map_or("unreadable".to_string(), |d| {
                    d.message.split(':').next().unwrap_or("").to_string()
                });
                *refusals.entry(why.clone()).or_default() += 1;
                rows.push(format!(
                    "| {path} | {} | refused: {why} | |",
                    expected.trim()
                ));
                continue;
            }
        };
        let t0 = Instant::now();
        let mut answers = Vec::new();
        for (k, &engine) in engines.iter().enumerate() {
            let answer = liveness(&test, &model, &progress, &opts.clone().with_engine(engine));
            answers.push(match answer {
                Ok(r) => {
                    decided_by[k] += usize::from(!matches!(r.verdict, LiveVerdict::Unknown(_)));
                    (r.verdict.word().to_string(), Some(r.verdict))
                }
                Err(e) => (format!("error: {e}"), None),
            });
        }
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        times.push(ms);
        let decided = |a: &&(String, Option<LiveVerdict>)| {
            matches!(a.1, Some(LiveVerdict::Live | LiveVerdict::Violated))
        };
        let given: Vec<&(String, Option<LiveVerdict>)> = answers.iter().filter(decided).collect();
        if given.windows(2).any(|w| w[0].1 != w[1].1) {
            engines_differ.push(path.to_string());
        }
        let (word, verdict) = given
            .first()
            .copied()
            .or(answers.first())
            .cloned()
            .expect("one engine at least");
        let mark = match verdict {
            Some(LiveVerdict::Live) if live_expected => {
                agree += 1;
                ""
            }
            Some(LiveVerdict::Violated) if !live_expected => {
                agree += 1;
                ""
            }
            Some(LiveVerdict::Live | LiveVerdict::Violated) => {
                differ += 1;
                "DIFFERS"
            }
            _ => {
                unknown += 1;
                "unknown"
            }
        };
        if !args.quiet || !mark.is_empty() {
            println!(
                "{path}: tangle {word}, Dartagnan {} {mark} ({ms:.0} ms)",
                if live_expected { "live" } else { "violated" }
            );
        }
        rows.push(format!(
            "| {path} | {} | {word} | {mark} |",
            expected.trim()
        ));
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    println!(
        "{} under {}+{} ({}, {} memory, --unroll {}): {agree} agree, {differ} differ, {unknown} unknown, {refused} refused; median {median:.0} ms, total {:.1} s",
        args.suite,
        model.name,
        progress.name(),
        args.engine,
        args.memory_model,
        args.unroll,
        start.elapsed().as_secs_f64()
    );
    if engines.len() > 1 {
        let each: Vec<String> = (engines.iter().zip(&decided_by))
            .map(|(e, n)| format!("{e} decides {n}"))
            .collect();
        println!(
            "  {}; the engines contradict each other on {} rows",
            each.join(", "),
            engines_differ.len()
        );
        for p in &engines_differ {
            println!("  engines differ: {p}");
        }
    }
    for (why, n) in &refusals {
        println!("  refused {n}: {why}");
    }
    if let Some(out) = &args.table {
        let mut text = format!(
            "| file | Dartagnan (1 live) | tangle {}+{} | |\n|---|---|---|---|\n",
            model.name,
            progress.name()
        );
        for r in &rows {
            text.push_str(r);
            text.push('\n');
        }
        std::fs::write(out, text).expect("write the table");
    }
}
