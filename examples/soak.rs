//! Soak test: both engines on many random programs; every disagreement is written out as a
//! `.litmus` file to turn into a regression test.
//!
//! cargo run --release --example soak -- [FIRST_SEED] [COUNT] [OUT_DIR]
//! (defaults: 0, 20000, target/soak). Lanes and subgroups vary with the seed.

use clap::Parser;
use std::path::PathBuf;
use std::time::Instant;
use tangle::gen::{generate, GenConfig};
use tangle::query::crosscheck::crosscheck;

/// Soak test: the explorer and Z3 on many random programs (2-4 lanes, 1-2 subgroups, varied by
/// seed); every disagreement is written out as a `.litmus` file. Exits 1 if any program
/// disagreed or was invalid.
#[derive(Parser, Debug)]
#[command(
    name = "soak",
    after_help = "Environment: SOAK_TRACE=DIR writes every program to DIR before running it \
                  (to find the one that hangs or crashes)."
)]
struct Args {
    /// The first generator seed
    #[arg(value_name = "FIRST_SEED", default_value_t = 0)]
    first: u64,
    /// How many programs (seeds FIRST_SEED, FIRST_SEED + 1, ...)
    #[arg(value_name = "COUNT", default_value_t = 20_000)]
    count: u64,
    /// Where the disagreeing programs go (created if missing)
    #[arg(value_name = "OUT_DIR", default_value = "target/soak")]
    out: PathBuf,
}

fn main() {
    let Args { first, count, out } = Args::parse();
    std::fs::create_dir_all(&out).expect("output directory");
    let start = Instant::now();
    let (mut compared, mut skipped, mut bad) = (0, 0, 0);
    for seed in first..first + count {
        let cfg = config_for(seed);
        let text = generate(seed, &cfg);
        let test = match tangle::syntax::parse(&format!("gen_{seed}.litmus"), text.as_bytes()) {
            Ok(t) => t,
            Err(d) => {
                eprintln!("seed {seed}: the generator produced an invalid program:\n{d}");
                bad += 1;
                continue;
            }
        };
        if let Some(dir) = std::env::var_os("SOAK_TRACE") {
            eprintln!("seed {seed}: start");
            let _ = std::fs::write(
                std::path::Path::new(&dir).join(format!("gen_{seed}.litmus")),
                &text,
            );
        }
        let t0 = Instant::now();
        // Generated loops run at most 3 iterations: a bound of 4 suffices (a cut would be seen).
        let result = crosscheck(&test, 200_000, 4);
        if t0.elapsed().as_secs_f64() > 3.0 {
            eprintln!("seed {seed}: slow, {:.1} s", t0.elapsed().as_secs_f64());
        }
        match result {
            Ok(r) => {
                compared += r.compared;
                skipped += r.skipped.len();
                if !r.disagreements.is_empty() {
                    bad += 1;
                    let path = out.join(format!("gen_{seed}.litmus"));
                    std::fs::write(&path, &text).expect("write the program");
                    eprintln!("seed {seed}: DISAGREEMENT (written to {})", path.display());
                    for d in r.disagreements {
                        eprintln!("  {d}");
                    }
                }
            }
            Err(e) => eprintln!("seed {seed}: {e}"),
        }
        if (seed - first + 1).is_multiple_of(500) {
            eprintln!(
                "{} programs, {compared} outcome sets compared, {skipped} skipped, {bad} disagreements, {:.0} s",
                seed - first + 1,
                start.elapsed().as_secs_f64()
            );
        }
    }
    println!(
        "{count} programs, {compared} outcome sets compared, {skipped} skipped (an engine incomplete), {bad} disagreements, {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if bad > 0 {
        std::process::exit(1);
    }
}

/// 2-4 lanes, 1-2 subgroups, varied by seed.
pub fn config_for(seed: u64) -> GenConfig {
    GenConfig {
        lanes: 2 + (seed % 3) as u32,
        subgroups: 1 + ((seed / 3) % 2) as u32,
        ..GenConfig::default()
    }
}
