//! Front-end cost: CTS-style WGSL shaders of 300 and 1,000 lines (about 2,300 and 7,800 SPIR-V
//! instructions: the target is a 2,000-instruction module under 50 ms) written as SPIR-V by
//! naga and read by the SPIR-V front end, and the three CTS examples. Plain timing with
//! std::time: `cargo bench --bench frontend`.

use std::time::{Duration, Instant};
use tangle::shader::{self, Launch};
use tangle::spirv;

/// A CTS-reconvergence-style shader of about `lines` lines: nested `if`s on the invocation id,
/// loops with ballots and stores, as `Program.genCode()` writes them.
fn shader(lines: usize) -> String {
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read> inputs : array<u32, 129>;
@group(0) @binding(1) var<storage, read_write> ballots : array<vec4u, 4096>;
var<private> subgroup_id : u32;
var<private> local_id : u32;
var<private> output_loc : u32 = 0;
const stride = 8;

@compute @workgroup_size(stride, 1, 1)
fn main(@builtin(local_invocation_index) lid : u32, @builtin(subgroup_invocation_id) sid : u32) {
  subgroup_id = sid;
  local_id = lid;
  f0();
}

fn f0() {
  var i0 = 0u;
",
    );
    let mut depth = 1;
    let mut k = 0;
    while s.lines().count() < lines - depth - 2 {
        let pad = "  ".repeat(depth);
        match k % 4 {
            0 => s.push_str(&format!(
                "{pad}ballots[stride * output_loc + local_id] = subgroupBallot(true);\n{pad}output_loc++;\n"
            )),
            1 if depth < 6 => {
                s.push_str(&format!("{pad}if subgroup_id < inputs[{}] {{\n", k % 8));
                depth += 1;
            }
            2 => s.push_str(&format!(
                "{pad}ballots[stride * output_loc + local_id] = vec4u({});\n{pad}output_loc++;\n",
                0x10000 + k
            )),
            3 if depth > 1 => {
                depth -= 1;
                s.push_str(&format!("{}}}\n", "  ".repeat(depth)));
            }
            _ => {}
        }
        k += 1;
    }
    while depth > 1 {
        depth -= 1;
        s.push_str(&format!("{}}}\n", "  ".repeat(depth)));
    }
    s.push_str("}\n");
    s
}

fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    v.sort();
    (v[v.len() / 2], v[v.len() - 1])
}

/// Instructions of a SPIR-V module (after the 5-word header).
fn instructions(words: &[u32]) -> usize {
    let (mut k, mut n) = (5, 0);
    while k < words.len() {
        k += (words[k] >> 16).max(1) as usize;
        n += 1;
    }
    n
}

fn main() {
    let launch = Launch {
        subgroup_size: Some(8),
        ..Launch::default()
    };
    println!("| shader | lines | SPIR-V instructions | WGSL -> SPIR-V (naga) | whole front end (median of 20) | worst |");
    println!("|---|---|---|---|---|---|");
    for target in [300, 1000] {
        let src = shader(target);
        let lines = src.lines().count();
        let (words, _) =
            shader::wgsl_to_spirv("bench.wgsl", src.as_bytes()).expect("the bench shader");
        let (naga, _) = time(20, || {
            shader::wgsl_to_spirv("bench.wgsl", src.as_bytes()).expect("the bench shader");
        });
        let (median, worst) = time(20, || {
            let t = spirv::parse_wgsl("bench.wgsl", &src, &launch).expect("the bench shader");
            assert!(!t.kernel.is_empty());
        });
        println!(
            "| generated CTS-style | {lines} | {} | {:.2} ms | {:.2} ms | {:.2} ms |",
            instructions(&words),
            naga.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            worst.as_secs_f64() * 1e3
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/cts");
    for (name, sg) in [
        ("nested_ifs", 8),
        ("forinf_elect_break", 8),
        ("wg128_sg32_ifloopcount", 32),
    ] {
        let side = dir.join(format!("{name}.json")).display().to_string();
        let mut l = Launch {
            subgroup_size: Some(sg),
            ..Launch::default()
        };
        for b in ["inputs", "ballots", "size", "ids"] {
            l.buffers.push((b.into(), format!("{side}#/initial/{b}")));
        }
        let path = dir.join(format!("{name}.wgsl"));
        let n = std::fs::read_to_string(&path).unwrap().lines().count();
        let (median, worst) = time(20, || {
            tangle::load(&path, &l).expect("a CTS example");
        });
        println!(
            "| {name} | {n} | | | {:.2} ms | {:.2} ms |",
            median.as_secs_f64() * 1e3,
            worst.as_secs_f64() * 1e3
        );
    }
}
