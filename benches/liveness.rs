//! Liveness cost, explorer against Z3 side by side (issue 18's targets: a two-thread spin test
//! under 100 ms, a four-workgroup CADP-style test under 1 s).
//!
//! `cargo bench --bench liveness [-- --runs 5 --memory-model sc|vulkan]` runs `tangle
//! liveness` (the library's `query::liveness::liveness`, default options: `--unroll 8`, no
//! timeout but 20 s) on tangle's own spin tests (`litmus/liveness/`, SSO), on the CADP sample
//! of Dartagnan's liveness suites (`litmus/public/dartagnan-liveness/`, 2 and 3 threads, one
//! workgroup), and on `benches/data/cadp_4wg.litmus` (four workgroups handing a value on),
//! under fair, HSA and OBE scheduling. Each figure is the median of `--runs` runs of the
//! whole query (parsing excluded). Plain timing with std::time; the verdicts are printed
//! beside the times, and a row where the engines contradict each other is marked.

use std::path::{Path, PathBuf};
use std::time::Instant;
use tangle::model::Model;
use tangle::progress::Progress;
use tangle::query::liveness::{liveness, LiveVerdict};
use tangle::query::{Engine, Options};

struct Row {
    group: &'static str,
    file: String,
    threads: u32,
    progress: String,
    /// Median milliseconds and verdict word, explorer then Z3.
    times: [f64; 2],
    words: [String; 2],
}

fn files(dir: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walk(Path::new(dir));
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "litmus") {
            out.push(p);
        }
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let runs: usize = flag("--runs").and_then(|r| r.parse().ok()).unwrap_or(5);
    let memory_name = flag("--memory-model").unwrap_or_else(|| "sc".to_string());
    let memory = tangle::memory::MemoryModel::resolve(&memory_name)
        .unwrap_or_else(|e| panic!("--memory-model: {e}"))
        .map(std::sync::Arc::new);
    let sso = Model::by_name("SSO").expect("SSO");
    let groups: [(&str, Vec<PathBuf>); 3] = [
        ("spin (litmus/liveness)", files("litmus/liveness")),
        (
            "CADP sample",
            files("litmus/public/dartagnan-liveness/litmus"),
        ),
        (
            "CADP, 4 workgroups",
            vec![PathBuf::from("benches/data/cadp_4wg.litmus")],
        ),
    ];
    let mut rows = Vec::new();
    for (group, paths) in groups {
        for path in paths {
            let test = match tangle::load(&path, &Default::default()) {
                Ok(t) => t,
                Err(d) => panic!("{}", d.render(false)),
            };
            for progress in ["fair", "hsa", "obe"] {
                let pm = Progress::parse(progress).expect("a progress model");
                let mut times = [0.0; 2];
                let mut words = [String::new(), String::new()];
                for (k, engine) in [Engine::Explore, Engine::Smt].into_iter().enumerate() {
                    let mut opts = Options::default()
                        .with_engine(engine)
                        .with_timeout_ms(Some(20_000));
                    opts.memory = memory.clone();
                    let mut ms = Vec::new();
                    for _ in 0..runs {
                        let t0 = Instant::now();
                        let r = liveness(&test, &sso, &pm, &opts);
                        ms.push(t0.elapsed().as_secs_f64() * 1e3);
                        words[k] = match r {
                            Ok(r) => match r.verdict {
                                LiveVerdict::Unknown(_) => "unknown".to_string(),
                                v => v.word().to_string(),
                            },
                            Err(e) => format!("error: {e}"),
                        };
                    }
                    times[k] = median(ms);
                }
                rows.push(Row {
                    group,
                    file: path.display().to_string(),
                    threads: test.threads,
                    progress: progress.to_string(),
                    times,
                    words,
                });
            }
        }
    }
    println!("memory model {memory_name}, SSO, --unroll 8, median of {runs} runs\n");
    println!("| file | threads | progress | explorer ms | Z3 ms | Z3/explorer | explorer | Z3 |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut contradictions = 0;
    for r in &rows {
        let decided = |w: &str| w == "live" || w == "violated";
        let clash = decided(&r.words[0]) && decided(&r.words[1]) && r.words[0] != r.words[1];
        contradictions += usize::from(clash);
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.2} | {} | {}{} |",
            r.file,
            r.threads,
            r.progress,
            r.times[0],
            r.times[1],
            r.times[1] / r.times[0].max(1e-3),
            r.words[0],
            r.words[1],
            if clash { " CONTRADICTS" } else { "" }
        );
    }
    println!("\n| group | answers | explorer median / max ms | Z3 median / max ms | explorer total s | Z3 total s |");
    println!("|---|---|---|---|---|---|");
    let mut names: Vec<&str> = rows.iter().map(|r| r.group).collect();
    names.dedup();
    for g in names {
        let of: Vec<&Row> = rows.iter().filter(|r| r.group == g).collect();
        let col = |k: usize| of.iter().map(|r| r.times[k]).collect::<Vec<f64>>();
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        let (e, z) = (col(0), col(1));
        println!(
            "| {g} | {} | {:.1} / {:.1} | {:.1} / {:.1} | {:.2} | {:.2} |",
            of.len(),
            median(e.clone()),
            max(&e),
            median(z.clone()),
            max(&z),
            e.iter().sum::<f64>() / 1e3,
            z.iter().sum::<f64>() / 1e3,
        );
    }
    println!("\nengines contradict each other on {contradictions} answers");
}
