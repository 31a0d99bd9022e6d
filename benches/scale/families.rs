//! The families of generated tests (`sso_ww`, `ks`, `peel`, `racy`, `racy_sg`) for N lanes.

use crate::MODELS;
use std::fmt::Write as _;

pub const FAMILIES: [&str; 5] = ["sso_ww", "ks", "peel", "racy", "racy_sg"];

/// A generated test: its text and the loop bound to run it with.
pub struct Generated {
    pub name: String,
    pub text: String,
    pub unroll: u32,
}

fn log2(n: u32) -> u32 {
    assert!(
        n.is_power_of_two() && n >= 2,
        "lane counts are powers of two >= 2"
    );
    n.trailing_zeros()
}

/// Verdicts (allow = true) for CM, SM, SCF, SSO, Spec, Lazy, Symb, where they were derived
/// (by running both engines and by the reasoning in docs/benchmarks.md). Only these sizes
/// get an `expect` line.
fn expectation(family: &str, n: u32) -> Option<[bool; 7]> {
    let _ = n; // the same for every N (see docs/benchmarks.md)
    match family {
        // As the paper's sso_ww: a subgroup op in each arm orders the arm's store after the
        // neighbour's, except where ops may fire early (Spec, Lazy) or symbolically (Symb).
        "sso_ww" => Some([false, false, false, false, true, true, true]),
        // Control flow is uniform (every lane runs every level), so every model gives each
        // shuffle all N lanes: the scan is deterministic.
        "ks" => Some([false; 7]),
        // Whether a lane stays in the loop depends only on broadcastFirst results among the
        // lanes still in it: each model peels keys in lane order.
        "peel" => Some([false; 7]),
        // Lane 0 reading lane N-1's value and lane N-1 reading lane 0's would order each
        // lane's store before the other's: no interleaving does that, under any model.
        "racy" | "racy_sg" => Some([false; 7]),
        _ => None,
    }
}

fn expect_line(family: &str, n: u32) -> String {
    match expectation(family, n) {
        Some(v) => {
            let parts: Vec<String> = MODELS
                .iter()
                .zip(v)
                .map(|(m, a)| format!("{m} {}", if a { "allow" } else { "forbid" }))
                .collect();
            format!("expect {}\n", parts.join(", "))
        }
        None => String::new(),
    }
}

fn header(name: &str, what: &str, n: u32) -> String {
    format!("test {name} \"{what}\"\nthreads {n}\n")
}

/// The paper's `sso_ww` on N lanes: lane i stores 1 to its own slot, then, in an arm chosen
/// by its parity, runs a subgroup op and stores 2 to slot i+1 (mod N); after a subgroup
/// barrier it reads its own slot. The condition: some lane does not read 2.
fn sso_ww(n: u32) -> Generated {
    let name = format!("sso_ww_{n}");
    let mut t = String::new();
    t.push_str(
        "// Scale family \"sso_ww\": the paper's sso_ww on N lanes. Each lane's store of 2 to its\n\
         // neighbour's slot follows a subgroup op in a divergent arm; the neighbour (other parity,\n\
         // other arm) stored 1 there first. Can some lane read back anything but 2?\n",
    );
    t.push_str(&header(
        &name,
        &format!("stores ordered by subgroup ops in divergent arms, {n} lanes"),
        n,
    ));
    let _ = writeln!(t, "global slots[{n}]\n");
    let _ = writeln!(
        t,
        "kernel {{\n  next = (lane + 1) % {n};\n  slots[lane] = 1;\n  if (lane % 2 == 0) {{\n    \
         s = subgroupAll(true);\n    slots[next] = 2;\n  }} else {{\n    s = subgroupAll(false);\n    \
         slots[next] = 2;\n  }}\n  subgroupBarrier();\n  r = slots[lane];\n}}\n"
    );
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:r != 2")).collect();
    let _ = writeln!(t, "exists ({})", cond.join(" || "));
    t.push_str(&expect_line("sso_ww", n));
    Generated {
        name,
        text: t,
        unroll: 1,
    }
}

/// Kogge-Stone inclusive scan of `lane + 1` with `subgroupShuffleUp`, log2 N levels. The
/// delta is `d` where the lane uses the value and 0 elsewhere (see the comment in the file).
/// The condition: the last lane's sum is not N(N+1)/2.
fn ks(n: u32) -> Generated {
    let name = format!("ks_{n}");
    let levels = log2(n);
    let total = n * (n + 1) / 2;
    let mut t = String::new();
    t.push_str(
        "// Scale family \"ks\": a Kogge-Stone inclusive scan of lane + 1 with subgroupShuffleUp,\n\
         // log2 N levels, the pattern of a driver bug where the shuffles did not run in lockstep.\n\
         // Lanes below d shuffle with delta 0 (their own value, then discarded) instead of d: a\n\
         // shuffle from an out-of-range lane is an unspecified value, on which the explorer can\n\
         // only answer unknown. Can the last lane end with anything but N(N+1)/2?\n",
    );
    t.push_str(&header(
        &name,
        &format!("Kogge-Stone scan with subgroupShuffleUp, {n} lanes"),
        n,
    ));
    let _ = writeln!(
        t,
        "\nkernel {{\n  v = lane + 1;\n  for (i = 0; i < {levels}; i = i + 1) {{\n    d = 1 << i;\n    \
         rhs = subgroupShuffleUp(v, lane >= d ? d : 0);\n    v = v + (lane >= d ? rhs : 0);\n  }}\n}}\n"
    );
    let _ = writeln!(t, "exists ({}:v != {total})", n - 1);
    t.push_str(&expect_line("ks", n));
    Generated {
        name,
        text: t,
        unroll: levels,
    }
}

/// A `subgroupBroadcastFirst` peeling loop over K = N/2 keys (1 for N = 2): each iteration
/// the lanes whose key equals the first active lane's key leave. In lockstep lane l leaves
/// after exactly l % K iterations. The condition: some lane leaves after another count.
fn peel(n: u32) -> Generated {
    let name = format!("peel_{n}");
    let keys = (n / 2).max(1);
    let mut t = String::new();
    t.push_str(
        "// Scale family \"peel\": a subgroupBroadcastFirst peeling (waterfall) loop over N/2 keys.\n\
         // In lockstep the first active lane's key is peeled each iteration, so lane l leaves\n\
         // after exactly l % (N/2) iterations. Can some lane leave after another count?\n",
    );
    t.push_str(&header(
        &name,
        &format!("broadcastFirst peeling loop, {n} lanes, {keys} keys"),
        n,
    ));
    let _ = writeln!(
        t,
        "\nkernel {{\n  key = lane % {keys};\n  it = 0;\n  loop {{\n    k = subgroupBroadcastFirst(key);\n    \
         if (k == key) {{\n      break;\n    }}\n    it = it + 1;\n  }}\n}}\n"
    );
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:it != {}", t % keys)).collect();
    let _ = writeln!(t, "exists ({})", cond.join(" || "));
    t.push_str(&expect_line("peel", n));
    Generated {
        name,
        text: t,
        unroll: keys + 1,
    }
}

/// One racy location at full width: every lane stores its id to one cell and reads it back,
/// in one subgroup (`racy`) or in four (`racy_sg`, subgroups of N/4 lanes; two of one lane
/// for N = 2). The condition: lanes 0 and N-1 each read the other's value.
fn racy(n: u32, subgroups: u32) -> Generated {
    let family = if subgroups == 1 { "racy" } else { "racy_sg" };
    let name = format!("{family}_{n}");
    let last = n - 1;
    let mut t = String::new();
    t.push_str(
        "// Scale family \"racy\": N lanes race on one cell (each stores its id, then reads the\n\
         // cell). Can lanes 0 and N-1 each read the other's id? Only a cycle would allow it.\n",
    );
    t.push_str(&header(
        &name,
        &format!("{n} lanes racing on one cell, {subgroups} subgroup(s)"),
        n,
    ));
    if subgroups > 1 {
        let _ = writeln!(t, "subgroup {}", (n / subgroups).max(1));
    }
    let _ = writeln!(t, "global x\n\nkernel {{\n  x = lane;\n  r = x;\n}}\n");
    let _ = writeln!(t, "exists (0:r == {last} && {last}:r == 0)");
    t.push_str(&expect_line(family, n));
    Generated {
        name,
        text: t,
        unroll: 1,
    }
}

pub fn generate(family: &str, n: u32) -> Generated {
    let mut g = match family {
        "sso_ww" => sso_ww(n),
        "ks" => ks(n),
        "peel" => peel(n),
        "racy" => racy(n, 1),
        "racy_sg" => racy(n, 4.min(n)),
        other => panic!("unknown family {other}"),
    };
    let at = g.text.find("\ntest ").map_or(0, |i| i + 1);
    let note = if g.unroll == 1 {
        format!("// Generated by benches/scale.rs (N = {n}); no loops.\n")
    } else {
        format!(
            "// Generated by benches/scale.rs (N = {n}); the loop needs --unroll {} or more.\n",
            g.unroll
        )
    };
    g.text.insert_str(at, &note);
    g
}
