//! A fuzz run of the front end: thousands of mutated suite files (bytes flipped, dropped,
//! duplicated, tokens swapped, lines cut) give either a test or located errors, never a
//! panic; the tests that parse go through unrolling and an analysis, which give a verdict or
//! a located error.

mod common;

use tangle::model::Model;
use tangle::query::{self, Options};

/// xorshift64*: a fixed sequence, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: [&str; 24] = [
    "{",
    "}",
    "(",
    ")",
    ";",
    "=",
    "==",
    "!=",
    "if",
    "else",
    "while",
    "for",
    "break",
    "lane",
    "subgroupAdd(",
    "subgroupBallot(",
    "0:",
    "P0:",
    "exists",
    "forall",
    "expect",
    "99999999999",
    "\u{00e9}",
    "\0",
];

fn mutate(src: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = src.to_vec();
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() {
            b.push(b'x');
        }
        let i = rng.below(b.len());
        match rng.below(6) {
            0 => b[i] = (rng.next() & 0xff) as u8,
            1 => {
                let n = (1 + rng.below(8)).min(b.len() - i);
                b.drain(i..i + n);
            }
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())].as_bytes();
                b.splice(i..i, t.iter().copied());
            }
            3 => {
                let j = rng.below(b.len());
                let (lo, hi) = (i.min(j), i.max(j));
                let piece: Vec<u8> = b[lo..hi.min(lo + 40)].to_vec();
                b.splice(hi..hi, piece);
            }
            4 => b.truncate(i),
            _ => {
                let j = rng.below(b.len());
                b.swap(i, j);
            }
        }
    }
    b
}

#[test]
fn mutated_suite_files_give_tests_or_located_errors() {
    let files = common::suite_files();
    let sources: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let cm = Model::by_name("CM").unwrap();
    let opts = Options::default()
        .with_unroll(2)
        .with_timeout_ms(Some(2_000))
        .with_outcomes(false);
    let mut rng = Rng(0x7a6e_676c_6521);
    let (mut parsed, mut refused, mut analysed) = (0, 0, 0);
    for n in 0..8000 {
        let src = &sources[rng.below(sources.len())];
        let m = mutate(src, &mut rng);
        let name = format!("mutant{n}.litmus");
        match tangle::syntax::parse(&name, &m) {
            Err(d) => {
                refused += 1;
                assert!(!d.0.is_empty(), "an error without a diagnostic");
                let lines = String::from_utf8_lossy(&m).lines().count() as u32 + 1;
                for e in &d.0 {
                    assert!(
                        e.line >= 1 && e.col >= 1 && e.line <= lines.max(1),
                        "unlocated: {e:?}\n{}",
                        String::from_utf8_lossy(&m)
                    );
                    assert!(!e.message.is_empty());
                    let shown = e.render(false);
                    assert!(
                        shown.contains(&format!("{name}:{}:{}", e.line, e.col)),
                        "{e:?}\n{shown}"
                    );
                }
            }
            Ok(test) => {
                parsed += 1;
                match query::compile(&test, 2) {
                    Err(e) => {
                        let d = e.diagnostic(&test);
                        assert!(d.line >= 1, "an unrolling error without a line: {d:?}");
                    }
                    // Analyse a sample: every answer is a verdict (unknown included).
                    Ok(prog) if analysed < 150 && test.threads <= 8 => {
                        analysed += 1;
                        let a =
                            query::analyse_models(&test, &prog, std::slice::from_ref(&cm), &opts);
                        assert_eq!(a.len(), 1);
                    }
                    Ok(_) => {}
                }
            }
        }
    }
    assert!(
        refused > 1000 && parsed > 100,
        "parsed {parsed}, refused {refused}"
    );
    assert!(analysed >= 100, "analysed {analysed}");
}
