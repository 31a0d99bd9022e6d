//! Random flag-and-spin programs, for comparing the two engines' liveness answers.
//!
//! The programs of [`super::generate`] are bounded on purpose (every loop counts), so they
//! can only deadlock. These are the opposite: threads publish flags and spin until a flag
//! holds a value, so whether they terminate depends on who writes what, in which order, on the
//! progress model, and on barriers and subgroup ops between the spins. Each thread (an arm of
//! an `if (tid == T)` chain) runs two to four statements:
//!
//! | statement | text |
//! |---|---|
//! | store | `x = 1;` |
//! | spin | `rN = x; while (rN != 1) { rN = x; }` (or `==`, so some spins end at once) |
//! | exchange | `rN = atomicExchange(x, 1);` (a write that may change nothing) |
//! | exchange loop | `rN = atomicExchange(x, 1); while (rN != 2) { rN = atomicExchange(x, 1); }` (a loop that writes: two of them can pass a value back and forth forever) |
//! | store and exchange loop | `rN = 1; while (rN == 1) { x = 1; rN = atomicExchange(x, 2); }` (a loop that writes and can run forever alone) |
//! | add | `atomicAdd(x, 1);` |
//! | branch on a flag | `rN = x; if (rN == 1) { y = 1; }` |
//! | read, count, write ([`SpinConfig::counted`]) | `rN = x; rM = 0; while (rM < 2) { rM = rM + 1; } if (rN == 1) { y = 1; }`, or `y = 1; while (rN == 1) { }` after the count (load buffering across loop edges: a spin that only it may reach) |
//! | lock ([`SpinConfig::locks`]) | `while (1) { rN = x; if (rN != 1) { rM = atomicExchange(x, 1); if (rM != 1) { break; } } }` (test and test-and-set: the iterations that find it taken are idle) |
//! | flip ([`SpinConfig::locks`]) | `x = 2; x = 1;` (what keeps a waiting writer busy) |
//! | waiting writer ([`SpinConfig::locks`]) | `while (1) { rN = x; if (rN == 1) { break; } if (rN == 2) { atomicAdd(y, 1); } }` (its busy iterations may repeat forever, and `y` counts them: the condition is then `x == 1 && y == 1`) |
//!
//! and, with [`SpinConfig::collective`], statements every thread runs between the arms: a
//! workgroup `barrier();` or a subgroup op (`rN = subgroupAdd(1);`), or one inside one arm (a
//! barrier, a quorum barrier `barrier(quorum(1, N))` met by half the workgroup, or a subgroup
//! op, that only some threads reach). Loops never hold a barrier, and a subgroup op only with
//! [`SpinConfig::ops_in_loops`] (a spin whose loop adds, decides by `subgroupAll`, or passes
//! its read through `subgroupMax`), so the Z3 engine's spin-loop reduction applies under SSO.

use super::Rng;

/// The shape of a spin program.
#[derive(Clone, Debug)]
pub struct SpinConfig {
    pub threads: u32,
    /// Threads per subgroup (divides `threads`).
    pub subgroup: u32,
    /// Threads per workgroup (a multiple of `subgroup`, divides `threads`).
    pub workgroup: u32,
    /// Barriers and subgroup ops between (and sometimes inside) the arms.
    pub collective: bool,
    /// Lock loops too, whose iterations are idle on some paths and busy on others
    /// (docs/progress.md, "Idle iterations").
    pub locks: bool,
    /// Reads whose value decides a write made after a counted loop, so that load buffering
    /// crosses loop edges (docs/progress.md, "Loops that write").
    pub counted: bool,
    /// Spins with a subgroup op inside their loop (Symb's ops in loops, docs/progress.md).
    pub ops_in_loops: bool,
}

/// A random spin program as `.litmus` text.
pub fn generate(seed: u64, cfg: &SpinConfig) -> String {
    let mut rng = Rng(seed ^ 0x5eed_5917);
    let globals = ["x", "y"];
    let mut reg = 0;
    let mut fresh = || {
        reg += 1;
        format!("r{reg}")
    };
    let mut text = format!(
        "test spin{seed} \"random flags and spins\"\nthreads {}\nsubgroup {}\nworkgroup {}\nglobal x\nglobal y\n\nkernel {{\n",
        cfg.threads, cfg.subgroup, cfg.workgroup
    );
    // One quorum for every quorum barrier (they share a name): half the workgroup, so the
    // first half to arrive pass together and the rest pass alone, or wait forever.
    let quorum = cfg.workgroup.div_ceil(2);
    let parts = if cfg.collective { rng.range(1, 2) } else { 1 };
    for part in 0..parts {
        if part > 0 {
            text.push_str(if rng.chance(50) {
                "  barrier();\n"
            } else {
                "  rs = subgroupAdd(1);\n"
            });
        }
        for t in 0..cfg.threads {
            let head = if t == 0 { "  if" } else { " else if" };
            text.push_str(&format!("{head} (tid == {t}) {{\n"));
            for _ in 0..rng.range(1, 3) {
                let g = rng.pick(&globals);
                let v = rng.range(1, 2);
                let kinds = if cfg.collective { 7 } else { 6 };
                // With locks, three statements in ten are lock statements.
                let extra = 3 * usize::from(cfg.locks) + 3 * usize::from(cfg.counted);
                let line = match rng.below(kinds + extra) {
                    k if k >= kinds + 3 * usize::from(cfg.locks) => {
                        // Read, go round a counted loop, then write the other flag if the
                        // read saw `v`; or write it anyway and spin while the read saw `v`
                        // (a hang that only load buffering may reach).
                        let (r, c) = (fresh(), fresh());
                        let h = if g == "x" { "y" } else { "x" };
                        let count = format!("    {r} = {g};\n    {c} = 0;\n    while ({c} < 2) {{\n      {c} = {c} + 1;\n    }}\n");
                        if rng.chance(50) {
                            format!("{count}    if ({r} == {v}) {{\n      {h} = {v};\n    }}\n")
                        } else {
                            format!("{count}    {h} = {v};\n    while ({r} == {v}) {{\n    }}\n")
                        }
                    }
                    k if k >= kinds => {
                        // On `x`: `y` counts the waiting writer's busy iterations.
                        let (r, w) = (fresh(), 3 - v);
                        let pick = rng.below(10);
                        if pick < 4 {
                            let s = fresh();
                            format!("    while (1) {{\n      {r} = x;\n      if ({r} != {v}) {{\n        {s} = atomicExchange(x, {v});\n        if ({s} != {v}) {{\n          break;\n        }}\n      }}\n    }}\n")
                        } else if pick < 7 {
                            format!("    while (1) {{\n      {r} = x;\n      if ({r} == {v}) {{\n        break;\n      }}\n      if ({r} == {w}) {{\n        atomicAdd(y, 1);\n      }}\n    }}\n")
                        } else {
                            format!("    x = {w};\n    x = {v};\n")
                        }
                    }
                    0 | 1 => format!("    {g} = {v};\n"),
                    2 | 3 if cfg.ops_in_loops => {
                        // A spin with a subgroup op in its loop: unused, deciding the loop,
                        // or passing the value read on.
                        let (r, s) = (fresh(), fresh());
                        match rng.below(3) {
                            0 => format!("    {r} = {g};\n    while ({r} != {v}) {{\n      {r} = {g};\n      {s} = subgroupAdd(1);\n    }}\n"),
                            1 => format!("    {r} = {g};\n    {s} = subgroupAll({r} != {v});\n    while ({s} == 1) {{\n      {r} = {g};\n      {s} = subgroupAll({r} != {v});\n    }}\n"),
                            _ => format!("    {r} = {g};\n    while ({r} != {v}) {{\n      {s} = {g};\n      {r} = subgroupMax({s});\n    }}\n"),
                        }
                    }
                    2 | 3 => {
                        let r = fresh();
                        let op = if rng.chance(80) { "!=" } else { "==" };
                        format!("    {r} = {g};\n    while ({r} {op} {v}) {{\n      {r} = {g};\n    }}\n")
                    }
                    4 => {
                        let r = fresh();
                        let w = 3 - v;
                        if rng.chance(35) {
                            format!("    {r} = atomicExchange({g}, {v});\n")
                        } else if rng.chance(50) {
                            format!("    {r} = atomicExchange({g}, {v});\n    while ({r} != {w}) {{\n      {r} = atomicExchange({g}, {v});\n    }}\n")
                        } else if rng.chance(50) {
                            format!("    {r} = {v};\n    while ({r} == {v}) {{\n      {g} = {v};\n      {r} = atomicExchange({g}, {w});\n    }}\n")
                        } else {
                            format!(
                                "    {r} = {g};\n    if ({r} == {v}) {{\n      y = 1;\n    }}\n"
                            )
                        }
                    }
                    5 => format!("    atomicAdd({g}, 1);\n"),
                    _ => {
                        if rng.chance(50) {
                            "    barrier();\n".to_string()
                        } else if rng.chance(30) {
                            format!("    barrier(quorum(1, {quorum}));\n")
                        } else {
                            format!("    {} = subgroupAdd(1);\n", fresh())
                        }
                    }
                };
                text.push_str(&line);
            }
            text.push('}');
        }
        text.push('\n');
    }
    // With locks, `y` counts a waiting writer's busy iterations: the condition observes it.
    text.push_str(if cfg.locks {
        "}\n\nexists (x == 1 && y == 1)\n"
    } else {
        "}\n\nexists (x == 1)\n"
    });
    text
}
