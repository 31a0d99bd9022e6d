//! Writes CTS-shaped programs (`tangle::gen::cts`) as `.litmus` files.
//!
//! ```text
//! cargo run --release --example cts -- DIR LANES FIRST_SEED COUNT [MIN_OPS MAX_OPS]
//! ```

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| -> u64 {
        args.get(i)
            .map(|s| {
                s.parse()
                    .unwrap_or_else(|_| panic!("argument {s} is not a number"))
            })
            .unwrap_or(d)
    };
    let Some(dir) = args.first() else {
        eprintln!("usage: cts DIR LANES FIRST_SEED COUNT [MIN_OPS MAX_OPS]");
        std::process::exit(2);
    };
    let cfg = tangle::gen::cts::CtsConfig {
        lanes: num(1, 4) as u32,
        min_ops: num(4, 30) as usize,
        max_ops: num(5, 40) as usize,
        ..Default::default()
    };
    std::fs::create_dir_all(dir).expect("create the directory");
    let first = num(2, 0);
    for seed in first..first + num(3, 1) {
        let p = tangle::gen::cts::generate(seed, &cfg);
        let path = std::path::Path::new(dir).join(format!("{}.litmus", p.name));
        std::fs::write(&path, &p.text).expect("write the file");
        println!("{} ({} ops, --unroll {})", path.display(), p.ops, p.unroll);
    }
}
