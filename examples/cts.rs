//! Writes CTS-shaped programs (`tangle::gen::cts`) as `.litmus` files.
//!
//! ```text
//! cargo run --release --example cts -- DIR [LANES [FIRST_SEED [COUNT [MIN_OPS [MAX_OPS]]]]]
//! ```
//!
//! Defaults: 4 lanes, first seed 0, 1 program, 30-40 ops.

use clap::Parser;
use std::path::PathBuf;

/// Writes CTS-shaped programs (`tangle::gen::cts`) as `.litmus` files, one per seed, and
/// prints each file's path, op count and the `--unroll` it needs.
#[derive(Parser, Debug)]
#[command(name = "cts")]
struct Args {
    /// Directory for the `.litmus` files (created if missing)
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// Lanes per subgroup (1..=64; one subgroup)
    #[arg(value_name = "LANES", default_value_t = 4)]
    lanes: u32,
    /// The first generator seed
    #[arg(value_name = "FIRST_SEED", default_value_t = 0)]
    first: u64,
    /// How many programs (seeds FIRST_SEED, FIRST_SEED + 1, ...)
    #[arg(value_name = "COUNT", default_value_t = 1)]
    count: u64,
    /// Fewest ops per program (counted as the CTS counts them)
    #[arg(value_name = "MIN_OPS", default_value_t = 30)]
    min_ops: usize,
    /// Most ops per program
    #[arg(value_name = "MAX_OPS", default_value_t = 40)]
    max_ops: usize,
}

fn main() {
    let args = Args::parse();
    let dir = &args.dir;
    let cfg = tangle::gen::cts::CtsConfig {
        lanes: args.lanes,
        min_ops: args.min_ops,
        max_ops: args.max_ops,
        ..Default::default()
    };
    std::fs::create_dir_all(dir).expect("create the directory");
    let first = args.first;
    for seed in first..first + args.count {
        let p = tangle::gen::cts::generate(seed, &cfg);
        let path = dir.join(format!("{}.litmus", p.name));
        std::fs::write(&path, &p.text).expect("write the file");
        println!("{} ({} ops, --unroll {})", path.display(), p.ops, p.unroll);
    }
}
