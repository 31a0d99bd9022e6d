//! The AST printer: every suite file, printed and re-parsed, gives the same AST.

mod common;

use tangle::syntax::print::{normalized, to_litmus};

#[test]
fn every_suite_file_round_trips_through_the_printer() {
    let files = common::suite_files();
    assert!(files.len() >= 12, "the suites are missing");
    for f in &files {
        let test = tangle::syntax::parse_file(f).unwrap();
        let text = to_litmus(&test);
        let again = match tangle::syntax::parse("printed", text.as_bytes()) {
            Ok(t) => t,
            Err(d) => panic!(
                "{}: the printed text does not parse:\n{d}\n{text}",
                f.display()
            ),
        };
        assert_eq!(
            normalized(&test),
            normalized(&again),
            "{}: the printed text parses to a different AST:\n{text}",
            f.display()
        );
        // Printing is stable: the printed text prints to itself.
        assert_eq!(to_litmus(&again), text, "{}", f.display());
    }
}

/// Precedence, associativity, unary operators, ternaries, every statement form, scalar and
/// array globals, escapes in the description, and every condition shape.
#[test]
fn tricky_expressions_and_conditions_round_trip() {
    let src = r#"
test tricky.name-1+x "a \"quoted\" \\ description"
threads 4
subgroup 2
workgroup 4
global x = 7
global a[4] = {1, 0, 3}
global b[2]

kernel {
  r = (1 + 2) * 3 - (4 - 5) - 6 + -(7) + ~lane;
  q = 1 - (2 - 3) << (1 + 1) >> 2;
  t = r < q == (q < r) != 1 && !(r | q & 3 ^ 4) || 0;
  u = r ? (q ? 1 : 2) : q ? 3 : 4;
  v = (r ? 1 : 2) ? 5 : 6;
  w = --r + !!q - -~r;
  y = subgroupAdd(r + 1) + subgroupBallotBitCount(subgroupBallot(r == 1));
  subgroupAll(true);
  z = x;
  x = z + 1;
  a[lane] = z + 0;
  c = atomicAdd(a[lane + 1], 2);
  atomicCompSwap(b[1], 0, lane);
  atomicStore(b[0], 3);
  d = atomicLoad(b[lane % 2]);
  if (subgroupElect()) {
    e = 1;
  } else {
    if (lane == 1) e = 2;
  }
  while (e < 3) { e = e + 1; if (e == 2) { continue; } }
  for (i = 0; i < 2; i = i + 1) { subgroupBarrier(); }
  for (; ; ) { break; }
  loop { if (e > 0) { break; } return; }
  barrier();
  return;
}

forall (!(0:r == 1 /\ 1:q != 2) \/ (x == 7 && a[2] >= 3 || !b[1]) && (true || !false) && 3:w && 1 == 1)
expect CM allow, SM forbid
"#;
    let test = tangle::syntax::parse("tricky", src.as_bytes()).unwrap();
    let text = to_litmus(&test);
    let again = match tangle::syntax::parse("printed", text.as_bytes()) {
        Ok(t) => t,
        Err(d) => panic!("the printed text does not parse:\n{d}\n{text}"),
    };
    assert_eq!(normalized(&test), normalized(&again), "{text}");
}

/// Random programs from the generator (every construct it knows) round-trip as well.
#[test]
fn generated_programs_round_trip() {
    use tangle::gen::{generate, GenConfig};
    let cfg = GenConfig {
        max_stmts: 16,
        max_depth: 3,
        workgroup_barriers: true,
        ..GenConfig::default()
    };
    for seed in 0..300 {
        let src = generate(seed, &cfg);
        let test = tangle::syntax::parse("gen", src.as_bytes()).unwrap();
        let text = to_litmus(&test);
        let again = match tangle::syntax::parse("printed", text.as_bytes()) {
            Ok(t) => t,
            Err(d) => panic!("seed {seed}: the printed text does not parse:\n{d}\n{text}"),
        };
        assert_eq!(
            normalized(&test),
            normalized(&again),
            "seed {seed}:\n{text}"
        );
    }
}
