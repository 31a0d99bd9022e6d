//! The shader front end: one WGSL kernel per construct, each checked against the words it must
//! leave in `out` in every execution, by both engines; the bundled examples in WGSL, GLSL and
//! SPIR-V; the WebGPU CTS examples; and bad shaders, which must give located errors.

use std::path::{Path, PathBuf};
use tangle::model::Model;
use tangle::query::{self, Engine, Options, Verdict};
use tangle::shader::{self, Launch};
use tangle::spirv;

fn temp(name: &str, ext: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "tangle-shaders-{}-{name}.{ext}",
        std::process::id()
    ))
}

fn launch(subgroup: u32) -> Launch {
    Launch {
        subgroup_size: Some(subgroup),
        ..Launch::default()
    }
}

fn write_words(name: &str, words: &[u32]) -> String {
    let p = temp(name, "json");
    std::fs::write(&p, serde_json::to_string(words).unwrap()).unwrap();
    p.display().to_string()
}

/// Every execution of `src` ends with `out` == `expected`: checked under CM and SSO by Z3 and,
/// when `explore` is set, by the explorer too.
fn check_out(name: &str, src: &str, mut l: Launch, expected: &[u32], explore: bool) {
    l.expect.push(("out".into(), write_words(name, expected)));
    let test =
        spirv::parse_wgsl(&format!("{name}.wgsl"), src, &l).unwrap_or_else(|d| panic!("{d}"));
    let models: Vec<Model> = ["CM", "SSO"]
        .iter()
        .map(|m| Model::by_name(m).unwrap())
        .collect();
    let mut engines = vec![Engine::Smt];
    if explore {
        engines.push(Engine::Explore);
    }
    for engine in engines {
        let opts = Options::default()
            .with_engine(engine)
            .with_timeout_ms(Some(60_000));
        let prog = query::compile(&test, opts.unroll).unwrap();
        for a in query::analyse_models(&test, &prog, &models, &opts) {
            assert_eq!(
                a.verdict,
                Verdict::Forbidden,
                "{name} under {} ({:?}): {:?}",
                a.model,
                engine,
                a.witness_differs
            );
        }
    }
}

const OUT8: &str = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 8>;\n";

#[test]
fn if_else_and_loops() {
    let src = format!(
        "{OUT8}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  if lane < 2u {{ out[lane] = 10u + lane; }} else {{ out[lane] = 20u + lane; }}
  var s = 0u;
  for (var i = 0u; i < 5u; i++) {{
    if i == 1u {{ continue; }}
    if i == lane + 2u {{ break; }}
    s += i;
  }}
  out[4u + lane] = s;
}}"
    );
    // Lane k sums 0, 2, 3, 4 below k + 2 (skipping 1): 0, 2, 5, 9.
    check_out(
        "if_else_and_loops",
        &src,
        launch(4),
        &[10, 11, 22, 23, 0, 2, 5, 9],
        true,
    );
}

#[test]
fn loop_continuing_break_if_and_while() {
    let src = format!(
        "{OUT8}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  var i = 0u;
  var n = 0u;
  loop {{
    if i == 1u {{ continue; }}
    n += 1u;
    continuing {{
      i += 1u;
      break if i > lane;
    }}
  }}
  out[lane] = n;
  var j = lane;
  while j < 3u {{ j += 2u; }}
  out[4u + lane] = j;
}}"
    );
    // Iterations 0..=lane run, iteration 1 skips the count: n = 1, 1, 2, 3.
    check_out(
        "loop_continuing",
        &src,
        launch(4),
        &[1, 1, 2, 3, 4, 3, 4, 3],
        true,
    );
}

#[test]
fn switch_cases_and_default() {
    let src = format!(
        "{OUT8}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  switch lane {{
    case 0u, 1u: {{ out[lane] = 7u; }}
    case 2u: {{ out[lane] = 8u; }}
    default: {{ out[lane] = 9u; }}
  }}
}}"
    );
    check_out("switch", &src, launch(4), &[7, 7, 8, 9, 0, 0, 0, 0], true);
}

/// Invocations that select two values of one case are in one block, as in SPIR-V, so under CM
/// a ballot there sees them all: WGSL's `case 0u, 1u:` (naga writes it as an empty case
/// falling through to the next) and GLSL's `case 0: case 1:` (one target for two values).
/// Until 2026-11-27 each value was an arm of its own, and each invocation's ballot saw itself
/// alone (1 and 2, not 3). Both engines, every model but Symb.
#[test]
fn a_case_with_two_values_is_one_block() {
    let src = format!(
        "{OUT8}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  switch lane {{
    case 0u, 1u: {{ out[lane] = subgroupBallot(true).x; }}
    default: {{ out[lane] = 100u; }}
  }}
}}"
    );
    check_out(
        "switch_ballot",
        &src,
        launch(4),
        &[3, 3, 100, 100, 0, 0, 0, 0],
        true,
    );
    let glsl = temp("switch_ballot", "comp");
    std::fs::write(
        &glsl,
        "#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { uint data[4]; } result;
void main() {
  uint lane = gl_SubgroupInvocationID;
  switch (lane) {
    case 0:
    case 1:
      result.data[lane] = subgroupBallot(true).x;
      break;
    default:
      result.data[lane] = 100u;
      break;
  }
}
",
    )
    .unwrap();
    let l = Launch {
        expect: vec![(
            "result".into(),
            write_words("switch_ballot_glsl", &[3, 3, 100, 100]),
        )],
        ..launch(4)
    };
    let test = tangle::load(&glsl, &l).unwrap_or_else(|d| panic!("{d}"));
    let prog = query::compile(&test, 8).unwrap();
    for engine in [Engine::Smt, Engine::Explore] {
        let opts = Options::default().with_engine(engine);
        let models: Vec<Model> = (Model::builtin().into_iter())
            .filter(|m| m.name != "Symb")
            .collect();
        for a in query::analyse_models(&test, &prog, &models, &opts) {
            assert_eq!(
                a.verdict,
                Verdict::Forbidden,
                "{} {engine:?}: {:?}",
                a.model,
                a.witness_differs
            );
        }
    }
}

#[test]
fn functions_early_returns_and_pointers() {
    let src = format!(
        "{OUT8}
fn find(x : u32) -> u32 {{
  for (var k = 0u; k < 4u; k++) {{
    if k * k >= x {{ return k; }}
  }}
  return 99u;
}}
fn bump(p : ptr<function, u32>) {{ *p = *p + 5u; }}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  out[lane] = find(lane * 3u);
  var v = lane;
  bump(&v);
  out[4u + lane] = v;
}}"
    );
    // find(0) = 0, find(3) = 2, find(6) = 3, find(9) = 3.
    check_out(
        "functions",
        &src,
        launch(4),
        &[0, 2, 3, 3, 5, 6, 7, 8],
        true,
    );
}

#[test]
fn values_are_taken_where_they_are_evaluated() {
    let src = format!(
        "{OUT8}
var<private> counter : u32 = 3u;
fn next() -> u32 {{ counter += 1u; return counter; }}
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  var x = lane;
  let old = x;
  x = x + 10u;
  out[lane] = old * 100u + x;
  let before = counter;
  let n = next();
  out[4u + lane] = before * 10u + n;
}}"
    );
    check_out(
        "evaluation_order",
        &src,
        launch(4),
        &[10, 111, 212, 313, 34, 34, 34, 34],
        true,
    );
}

#[test]
fn integer_expressions() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 18>;
@compute @workgroup_size(1)
fn main(@builtin(subgroup_invocation_id) lane : u32) {
  let a = i32(lane) - 5;                 // -5
  let v = vec4<u32>(1u, 2u, 3u, 4u) * 2u;
  out[0] = select(0u, 1u, a < 3);        // signed: -5 < 3
  out[1] = u32(a >> 1u);                 // arithmetic shift: -3
  out[2] = 7u / lane;                    // WGSL: x / 0 == x
  out[3] = 7u % lane;                    // WGSL: x % 0 == 0
  out[4] = extractBits(0xf0u, 4u, 2u);
  out[5] = countOneBits(0xf0f0u);
  out[6] = firstTrailingBit(0x50u);
  out[7] = firstLeadingBit(0x50u);
  out[8] = clamp(9u, 2u, 5u) + min(3u, 4u) * 10u + max(3u, 4u) * 100u;
  out[9] = v.w + v.y * 100u;
  out[10] = countLeadingZeros(1u) + countTrailingZeros(8u) * 100u;
  out[11] = u32(abs(a));
  out[12] = u32(all(v.xy == vec2<u32>(2u, 4u)));
  out[13] = (1u << (lane + 33u)) + (~0u >> 28u);  // shift amounts are taken modulo 32
  out[14] = u32(!(lane == 0u) || true);
  out[15] = u32(max(a, -7));
  out[16] = u32(a / -2);                 // signed division truncates: 2
  out[17] = u32(a % 3);                  // the remainder has the dividend's sign: -2
}";
    check_out(
        "integer_expressions",
        src,
        launch(1),
        &[
            1,
            (-3i32) as u32,
            7,
            0,
            3,
            8,
            4,
            6,
            5 + 30 + 400,
            8 + 400,
            31 + 300,
            5,
            1,
            2 + 15,
            1,
            (-5i32) as u32,
            2,
            (-2i32) as u32,
        ],
        true,
    );
}

#[test]
fn atomics_and_compare_exchange() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<atomic<u32>, 4>;
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {
  atomicAdd(&out[0], lane + 1u);
  atomicMax(&out[1], lane * 3u);
  let r = atomicCompareExchangeWeak(&out[2], 0u, 1u);
  if r.exchanged { atomicAdd(&out[3], 1u); }
}";
    check_out("atomics", src, launch(4), &[10, 9, 1, 1], true);
}

#[test]
fn workgroup_memory_barriers_and_two_workgroups() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 8>;
var<workgroup> shared_ : array<u32, 4>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) lid : u32,
        @builtin(workgroup_id) wg : vec3<u32>,
        @builtin(global_invocation_id) gid : vec3<u32>,
        @builtin(num_workgroups) nwg : vec3<u32>) {
  shared_[lid] = lid + 10u * wg.x;
  workgroupBarrier();
  out[gid.x] = shared_[3u - lid] + 100u * nwg.x;
}";
    // Two subgroups of 2 per workgroup, two workgroups: each reads its own workgroup's copy.
    let l = Launch {
        workgroups: Some(2),
        ..launch(2)
    };
    check_out(
        "workgroup_memory",
        src,
        l,
        &[203, 202, 201, 200, 213, 212, 211, 210],
        false,
    );
}

#[test]
fn subgroup_operations() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 64>;
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32, @builtin(subgroup_size) n : u32) {
  let v = lane + 1u;
  out[lane] = subgroupAdd(v);
  out[4u + lane] = subgroupMul(v);
  out[8u + lane] = subgroupMin(v) + 10u * subgroupMax(v);
  out[12u + lane] = subgroupAnd(v) + 10u * subgroupOr(v) + 100u * subgroupXor(v);
  out[16u + lane] = subgroupInclusiveAdd(v);
  out[20u + lane] = subgroupExclusiveAdd(v);
  out[24u + lane] = subgroupExclusiveMul(v);
  out[28u + lane] = subgroupBroadcast(v, 2u);
  out[32u + lane] = subgroupBroadcastFirst(v * 10u);
  out[36u + lane] = subgroupShuffle(v, 3u - lane);
  out[40u + lane] = subgroupShuffleXor(v, 1u);
  out[44u + lane] = select(0u, subgroupShuffleUp(v, 1u), lane >= 1u);
  out[48u + lane] = select(0u, subgroupShuffleDown(v, 1u), lane < 3u);
  out[52u + lane] = u32(subgroupAll(v > 0u)) + 10u * u32(subgroupAny(v > 3u));
  out[56u + lane] = subgroupBallot(lane != 1u).x + n * 100u;
  if lane >= 2u { out[60u + lane] = subgroupAdd(v); }
}";
    let mut e = vec![0u32; 64];
    for lane in 0..4usize {
        let v = lane as u32 + 1;
        e[lane] = 10;
        e[4 + lane] = 24;
        e[8 + lane] = 41;
        e[12 + lane] = 7 * 10 + 4 * 100;
        e[16 + lane] = (1..=v).sum();
        e[20 + lane] = (1..v).sum();
        e[24 + lane] = (1..v).product();
        e[28 + lane] = 3;
        e[32 + lane] = 10;
        e[36 + lane] = 4 - lane as u32;
        e[40 + lane] = (lane as u32 ^ 1) + 1;
        e[44 + lane] = if lane >= 1 { v - 1 } else { 0 };
        e[48 + lane] = if lane < 3 { v + 1 } else { 0 };
        e[52 + lane] = 11;
        e[56 + lane] = 0b1101 + 400;
        if lane >= 2 {
            e[60 + lane] = 7;
        }
    }
    check_out("subgroup_operations", src, launch(4), &e, true);
}

/// A `uvec4` ballot of `lane % 2 == 1 || lane >= lanes - 16` at `lanes` lanes: every lane
/// stores `words`.
fn ballot_fills(name: &str, lanes: u32, words: [u32; 4]) {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> out : array<vec4<u32>, {lanes}>;
@compute @workgroup_size({lanes})
fn main(@builtin(subgroup_invocation_id) lane : u32) {{
  out[lane] = subgroupBallot(lane % 2u == 1u || lane >= {}u);
}}",
        lanes - 16
    );
    let e: Vec<u32> = (0..lanes).flat_map(|_| words).collect();
    check_out(name, &src, launch(lanes), &e, false);
}

#[test]
fn ballots_at_64_lanes_fill_two_words() {
    ballot_fills("ballot64", 64, [0xaaaa_aaaa, 0xffff_aaaa, 0, 0]);
}

/// The widest subgroup a Vulkan device may report: a 128-lane ballot fills all four words.
#[test]
fn ballots_at_128_lanes_fill_four_words() {
    ballot_fills(
        "ballot128",
        128,
        [0xaaaa_aaaa, 0xaaaa_aaaa, 0xaaaa_aaaa, 0xffff_aaaa],
    );
}

#[test]
fn several_subgroups_per_workgroup() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 8>;
@compute @workgroup_size(8)
fn main(@builtin(local_invocation_id) lid : vec3<u32>, @builtin(subgroup_id) sg : u32,
        @builtin(num_subgroups) nsg : u32) {
  out[lid.x] = subgroupAdd(1u) * 100u + sg * 10u + nsg;
}";
    check_out(
        "subgroups",
        src,
        launch(4),
        &[402, 402, 402, 402, 412, 412, 412, 412],
        false,
    );
}

// ---- the bundled examples ----------------------------------------------------------------

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The verdicts of `check` under all seven models, by Z3.
fn verdicts(path: &Path, l: &Launch) -> Vec<(String, Verdict, Vec<String>)> {
    let test = tangle::load(path, l).unwrap_or_else(|d| panic!("{d}"));
    let opts = Options::default().with_timeout_ms(Some(120_000));
    let prog = query::compile(&test, opts.unroll).unwrap();
    query::analyse_models(&test, &prog, &Model::builtin(), &opts)
        .into_iter()
        .map(|a| (a.model, a.verdict, a.witness_differs))
        .collect()
}

fn all_forbid(path: &Path, l: &Launch) {
    for (m, v, d) in verdicts(path, l) {
        assert_eq!(v, Verdict::Forbidden, "{} under {m}: {d:?}", path.display());
    }
}

fn examples_launch(expect: &str) -> Launch {
    Launch {
        expect: vec![("result".into(), expect.into())],
        ..launch(4)
    }
}

#[test]
fn the_elect_loop_example_in_wgsl_glsl_and_spirv() {
    let dir = root().join("shaders/examples");
    let expect = dir.join("elect_loop.expect.json").display().to_string();
    for f in ["elect_loop.wgsl", "elect_loop.comp", "elect_loop.spv"] {
        all_forbid(&dir.join(f), &examples_launch(&expect));
    }
    // One word changed: every model allows a difference, and names the word.
    let mut words = shader::read_words(&expect).unwrap();
    words[5] = 0xf;
    let bad = write_words("elect_bad", &words);
    for f in ["elect_loop.wgsl", "elect_loop.spv"] {
        for (m, v, d) in verdicts(&dir.join(f), &examples_launch(&bad)) {
            assert_eq!(v, Verdict::Allowed, "{f} under {m}");
            assert_eq!(
                d,
                vec!["result[5] = 0xe (expected 0xf)".to_string()],
                "{f} {m}"
            );
        }
    }
}

#[test]
fn glsl_witnesses_point_into_the_glsl_file() {
    let dir = root().join("shaders/examples");
    let mut words =
        shader::read_words(&dir.join("elect_loop.expect.json").display().to_string()).unwrap();
    words[15] = 0;
    let bad = write_words("elect_bad_glsl", &words);
    let path = dir.join("elect_loop.comp");
    let test = tangle::load(&path, &examples_launch(&bad)).unwrap();
    let opts = Options::default();
    let prog = query::compile(&test, opts.unroll).unwrap();
    let a = query::analyse_models(&test, &prog, &[Model::by_name("SSO").unwrap()], &opts).remove(0);
    let w = a.witness.expect("a witness");
    let store = w
        .iter()
        .find(|s| s.effects.iter().any(|e| e.contains("result[")))
        .expect("a store to result");
    assert_eq!(store.line, 17, "{store:?}");
    assert!(store.instruction.contains("result.data"), "{store:?}");
}

fn cts(name: &str, subgroup: u32, expected_ballots: Option<String>) -> Launch {
    let dir = root().join("shaders/cts");
    let sidecar = dir.join(format!("{name}.json")).display().to_string();
    let at = |p: &str| format!("{sidecar}#{p}");
    let mut l = launch(subgroup);
    for b in ["inputs", "ballots", "size", "ids"] {
        l.buffers.push((b.into(), at(&format!("/initial/{b}"))));
    }
    for b in ["size", "ids"] {
        l.expect.push((b.into(), at(&format!("/expected/{b}"))));
    }
    l.expect.push((
        "ballots".into(),
        expected_ballots.unwrap_or_else(|| at("/expected/ballots")),
    ));
    l
}

#[test]
fn the_cts_examples_give_the_cts_ballots_under_every_model() {
    let dir = root().join("shaders/cts");
    for (name, sg) in [
        ("nested_ifs", 8),
        ("forinf_elect_break", 8),
        ("wg128_sg32_ifloopcount", 32),
    ] {
        let path = dir.join(format!("{name}.wgsl"));
        all_forbid(&path, &cts(name, sg, None));
        // One expected ballot word changed: allowed, with that word named.
        let sidecar = dir.join(format!("{name}.json")).display().to_string();
        let mut ballots = shader::read_words(&format!("{sidecar}#/expected/ballots")).unwrap();
        let k = ballots.iter().position(|w| *w != 0).unwrap();
        ballots[k] ^= 1;
        let bad = write_words(&format!("{name}_bad"), &ballots);
        for (m, v, d) in verdicts(&path, &cts(name, sg, Some(bad))) {
            assert_eq!(v, Verdict::Allowed, "{name} under {m}");
            assert!(
                d[0].starts_with(&format!("ballots[{k}] = ")),
                "{name} {m}: {d:?}"
            );
        }
    }
}

/// The explorer and Z3 give the same verdict under CM on a CTS example, both ways: with the
/// CTS's ballots (no execution differs from them: forbidden) and with one ballot bit flipped
/// (every execution differs in that cell: allowed).
#[test]
fn the_engines_agree_on_a_cts_example() {
    let path = root().join("shaders/cts/nested_ifs.wgsl");
    let sidecar = root().join("shaders/cts/nested_ifs.json");
    let mut ballots =
        shader::read_words(&format!("{}#/expected/ballots", sidecar.display())).unwrap();
    let k = ballots.iter().position(|w| *w != 0).unwrap();
    ballots[k] ^= 1;
    let bad = write_words("nested_ifs_engines_bad", &ballots);
    let cm = Model::by_name("CM").unwrap();
    for (ballots, want) in [(None, Verdict::Forbidden), (Some(bad), Verdict::Allowed)] {
        let mut l = cts("nested_ifs", 8, ballots);
        l.workgroup_size = None;
        let test = tangle::load(&path, &l).unwrap();
        let verdict = |engine| {
            let opts = Options::default().with_engine(engine);
            let prog = query::compile(&test, opts.unroll).unwrap();
            query::analyse_models(&test, &prog, std::slice::from_ref(&cm), &opts)
                .remove(0)
                .verdict
        };
        let (explore, smt) = (verdict(Engine::Explore), verdict(Engine::Smt));
        assert_eq!(explore, smt, "the explorer and Z3 disagree");
        assert_eq!(explore, want);
    }
}

// ---- errors ----------------------------------------------------------------------------------

fn error_of(src: &str, l: &Launch) -> String {
    match spirv::parse_wgsl("bad.wgsl", src, l) {
        Ok(_) => panic!("accepted: {src}"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn unsupported_constructs_are_located_errors() {
    let cases = [
        (
            "@group(0) @binding(0) var<storage, read_write> out : array<u32, 4>;
@compute @workgroup_size(4)
fn main() {
  let f = 1.5;
  out[0] = u32(f);
}",
            "bad.wgsl:5:",
            "floating-point",
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> out : array<f32, 4>;
@compute @workgroup_size(4)
fn main() { out[0] = 1.0; }",
            "bad.wgsl:3:",
            "floating-point",
        ),
        (
            "@compute @workgroup_size(4)
fn main() { let x = 1u +; }",
            "bad.wgsl:2:",
            "expected",
        ),
        (
            "@group(0) @binding(0) var<storage, read_write> out : array<u32, 4>;
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) lane : u32) {
  out[0] = reverseBits(lane);
}",
            "bad.wgsl:4:",
            "BitReverse",
        ),
    ];
    for (src, at, what) in cases {
        let e = error_of(src, &launch(4));
        assert!(e.contains(at) && e.contains(what), "{e}");
    }
}

#[test]
fn launch_mistakes_are_errors() {
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32>;
@compute @workgroup_size(4)
fn main() { out[0] = 1u; }";
    let e = error_of(src, &Launch::default());
    assert!(e.contains("--subgroup-size"), "{e}");
    let e = error_of(src, &launch(4));
    assert!(
        e.contains("bad.wgsl:1:") && e.contains("--buffer out="),
        "{e}"
    );
    let mut l = launch(4);
    l.expect.push(("nope".into(), write_words("nope", &[1])));
    let e = error_of(src, &l);
    assert!(
        e.contains("no buffer named `nope`") && e.contains("out"),
        "{e}"
    );
    // A subgroup wider than the workgroup is one partial subgroup, not a mistake.
    let mut l = launch(8);
    l.buffers.push(("out".into(), write_words("one", &[0])));
    assert!(spirv::parse_wgsl("ok.wgsl", src, &l).is_ok());
    let mut l = launch(4);
    l.buffers
        .push(("out".into(), write_words("short", &[1, 2])));
    l.expect
        .push(("out".into(), write_words("long", &[1, 2, 3])));
    let e = error_of(src, &l);
    assert!(e.contains("3 words given"), "{e}");
}

#[test]
fn glsl_errors_point_into_the_glsl_file() {
    let p = temp("bad", "comp");
    std::fs::write(
        &p,
        "#version 450\nlayout(local_size_x = 4) in;\nvoid main() {\n  uint x = undefined_name;\n}\n",
    )
    .unwrap();
    let e = tangle::load(&p, &launch(4)).unwrap_err().to_string();
    assert!(e.contains(":4:") && e.contains("undefined_name"), "{e}");
}

#[test]
fn outcomes_of_an_observed_buffer() {
    // Without --expect: the reachable final contents of the observed buffer.
    let path = root().join("shaders/passes/broadcast_first_arms.comp");
    let l = Launch {
        observe: vec!["result".into()],
        ..launch(4)
    };
    let test = tangle::load(&path, &l).unwrap();
    let opts = Options::default().with_outcomes(true);
    let prog = query::compile(&test, opts.unroll).unwrap();
    let a = query::analyse_models(&test, &prog, &[Model::by_name("SSO").unwrap()], &opts).remove(0);
    assert!(a.outcomes_complete);
    let outcomes: Vec<Vec<u32>> = a.outcomes.iter().map(|o| o.values.clone()).collect();
    assert_eq!(outcomes, vec![vec![0, 0, 2, 2]]);
    assert_eq!(
        a.observables,
        ["result[0]", "result[1]", "result[2]", "result[3]"]
    );
}

#[test]
fn a_workgroup_the_subgroup_size_does_not_divide_ends_with_a_partial_subgroup() {
    // Three invocations in subgroups of 2: lanes {0, 1} and {0}; SubgroupSize stays 2.
    let src = "@group(0) @binding(0) var<storage, read_write> out : array<u32, 3>;
@compute @workgroup_size(3)
fn main(@builtin(local_invocation_index) lid : u32,
        @builtin(subgroup_invocation_id) lane : u32,
        @builtin(subgroup_size) n : u32) {
  out[lid] = subgroupBallot(true).x + 16u * lane + 256u * n;
}";
    check_out(
        "partial",
        src,
        launch(2),
        &[3 + 512, 3 + 16 + 512, 1 + 512],
        true,
    );
}

/// Ballot helpers at `lanes` lanes, in GLSL (WGSL has none): each lane stores the nine
/// helpers' results over three ballots, which the test computes on its own. Above 32 lanes
/// the SPIR-V front end writes each helper over the subgroup's ballot words.
fn ballot_helpers(lanes: u32) {
    let n = lanes;
    let src = format!(
        "#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = {n}) in;
layout(std430, binding = 0) buffer Out {{ uint data[{words}]; }} result;
void main() {{
  uint lane = gl_SubgroupInvocationID;
  uvec4 b = subgroupBallot(lane % 3u == 0u || lane >= {tail}u);
  uvec4 c = subgroupBallot(lane >= {lo}u && lane < {hi}u);
  uvec4 z = subgroupBallot(false);
  uint at = lane * 9u;
  result.data[at] = subgroupBallotBitCount(b);
  result.data[at + 1u] = subgroupBallotInclusiveBitCount(b);
  result.data[at + 2u] = subgroupBallotExclusiveBitCount(b);
  result.data[at + 3u] = subgroupBallotFindLSB(c);
  result.data[at + 4u] = subgroupBallotFindMSB(c);
  result.data[at + 5u] = subgroupBallotFindLSB(z);
  result.data[at + 6u] = subgroupBallotFindMSB(b);
  result.data[at + 7u] = subgroupBallotBitExtract(b, (lane * 37u) % {n}u) ? 1u : 0u;
  result.data[at + 8u] = subgroupInverseBallot(c) ? 1u : 0u;
}}
",
        words = 9 * n,
        tail = n - 5,
        lo = n / 2 + 3,
        hi = n - 2,
    );
    let b = |l: u32| l.is_multiple_of(3) || l >= n - 5;
    let c = |l: u32| l >= n / 2 + 3 && l < n - 2;
    let count =
        |f: &dyn Fn(u32) -> bool, upto: u32| (0..upto.min(n)).filter(|&l| f(l)).count() as u32;
    let mut expected = Vec::new();
    for l in 0..n {
        expected.extend([
            count(&b, n),
            count(&b, l + 1),
            count(&b, l),
            n / 2 + 3,
            n - 3,
            u32::MAX,
            n - 1,
            u32::from(b((l * 37) % n)),
            u32::from(c(l)),
        ]);
    }
    let path = temp(&format!("ballot_helpers{n}"), "comp");
    std::fs::write(&path, src).unwrap();
    let l = Launch {
        expect: vec![(
            "result".into(),
            write_words(&format!("ballot_helpers{n}"), &expected),
        )],
        ..launch(n)
    };
    let test = tangle::load(&path, &l).unwrap_or_else(|d| panic!("{d}"));
    let opts = Options::default().with_timeout_ms(Some(120_000));
    let prog = query::compile(&test, opts.unroll).unwrap();
    let models: Vec<Model> = ["CM", "SSO"]
        .iter()
        .map(|m| Model::by_name(m).unwrap())
        .collect();
    for a in query::analyse_models(&test, &prog, &models, &opts) {
        assert_eq!(
            a.verdict,
            Verdict::Forbidden,
            "{n} lanes, {}: {:?}",
            a.model,
            a.witness_differs
        );
    }
}

#[test]
fn ballot_helpers_read_every_word_of_the_ballot() {
    for lanes in [16, 64, 128] {
        ballot_helpers(lanes);
    }
}
