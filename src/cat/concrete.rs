//! The concrete back end: sets and relations over one candidate execution's events, as bit
//! vectors and bit matrices (herd's way: evaluate the model on each candidate).

use super::interp::{Algebra, Val};
use std::collections::HashMap;

/// A set of events `0..n` as bits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bits {
    words: Vec<u64>,
}

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
        }
    }
    pub fn full(n: usize) -> Bits {
        let mut b = Bits::new(n);
        (0..n).for_each(|i| b.insert(i));
        b
    }
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }
    pub fn contains(&self, i: usize) -> bool {
        self.words[i / 64] >> (i % 64) & 1 == 1
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        ones(&self.words)
    }
    fn zip(&self, o: &Bits, f: impl Fn(u64, u64) -> u64) -> Bits {
        Bits {
            words: self
                .words
                .iter()
                .zip(&o.words)
                .map(|(a, b)| f(*a, *b))
                .collect(),
        }
    }
}

/// A relation over events `0..n`: row `i` holds the successors of `i`, as `w` words of bits.
/// The rows share one allocation: a candidate's model is evaluated thousands of times, and a
/// vector per row made the allocator the largest cost.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    n: usize,
    w: usize,
    bits: Vec<u64>,
}

impl Matrix {
    pub fn new(n: usize) -> Matrix {
        let w = n.div_ceil(64);
        Matrix {
            n,
            w,
            bits: vec![0; n * w],
        }
    }
    pub fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (usize, usize)>) -> Matrix {
        let mut m = Matrix::new(n);
        for (a, b) in pairs {
            m.insert(a, b);
        }
        m
    }
    pub fn n(&self) -> usize {
        self.n
    }
    fn row(&self, a: usize) -> &[u64] {
        &self.bits[a * self.w..(a + 1) * self.w]
    }
    pub fn insert(&mut self, a: usize, b: usize) {
        self.bits[a * self.w + b / 64] |= 1 << (b % 64);
    }
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.bits[a * self.w + b / 64] >> (b % 64) & 1 == 1
    }
    /// The successors of `a`.
    fn successors(&self, a: usize) -> impl Iterator<Item = usize> + '_ {
        ones(self.row(a))
    }
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n).flat_map(move |a| self.successors(a).map(move |b| (a, b)))
    }
    fn zip(&self, o: &Matrix, f: impl Fn(u64, u64) -> u64) -> Matrix {
        Matrix {
            bits: self
                .bits
                .iter()
                .zip(&o.bits)
                .map(|(a, b)| f(*a, *b))
                .collect(),
            ..*self
        }
    }
    /// Row `a` |= row `b` of `from`.
    fn or_row(&mut self, a: usize, from: &Matrix, b: usize) {
        let w = self.w;
        for k in 0..w {
            self.bits[a * w + k] |= from.bits[b * w + k];
        }
    }
    pub fn seq(&self, o: &Matrix) -> Matrix {
        let mut out = Matrix::new(self.n);
        for a in 0..self.n {
            for m in self.successors(a) {
                out.or_row(a, o, m);
            }
        }
        out
    }
    /// Transitive closure (Warshall over bit rows).
    pub fn plus(&self) -> Matrix {
        let mut m = self.clone();
        for k in 0..m.n {
            let rk = m.clone_row(k);
            for i in 0..m.n {
                if m.contains(i, k) {
                    let w = m.w;
                    for (x, y) in m.bits[i * w..(i + 1) * w].iter_mut().zip(&rk) {
                        *x |= y;
                    }
                }
            }
        }
        m
    }
    fn clone_row(&self, a: usize) -> Vec<u64> {
        self.row(a).to_vec()
    }
    pub fn inverse(&self) -> Matrix {
        Matrix::from_pairs(self.n, self.pairs().map(|(a, b)| (b, a)))
    }
    pub fn irreflexive(&self) -> bool {
        (0..self.n).all(|i| !self.contains(i, i))
    }
    pub fn is_empty(&self) -> bool {
        self.bits.iter().all(|w| *w == 0)
    }
    /// Whether the relation has no cycle: sinks are taken away until none is left (acyclic) or
    /// none can be (a cycle), with no allocation per event (checks ask it of every candidate).
    pub fn is_acyclic(&self) -> bool {
        let mut alive = Bits::full(self.n);
        let mut left = self.n;
        loop {
            let before = left;
            for a in 0..self.n {
                if alive.contains(a)
                    && self
                        .row(a)
                        .iter()
                        .zip(&alive.words)
                        .all(|(r, l)| r & l == 0)
                {
                    alive.words[a / 64] &= !(1 << (a % 64));
                    left -= 1;
                }
            }
            if left == 0 {
                return true;
            }
            if left == before {
                return false;
            }
        }
    }
}

/// The positions of the set bits of `words`.
fn ones(words: &[u64]) -> impl Iterator<Item = usize> + '_ {
    words.iter().enumerate().flat_map(|(k, &w)| {
        let mut rest = w;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                k * 64 + b
            })
        })
    })
}

/// One candidate execution's base sets and relations, by cat name.
#[derive(Clone, Debug, Default)]
pub struct Concrete {
    pub n: usize,
    pub sets: HashMap<String, Bits>,
    pub rels: HashMap<String, Matrix>,
    /// Evaluate every subexpression, empty or not: loading a model checks its types so.
    pub strict: bool,
}

impl Algebra for Concrete {
    type Set = Bits;
    type Rel = Matrix;
    type Bool = bool;

    fn base(&mut self, name: &str) -> Option<Val<Self>> {
        if let Some(s) = self.sets.get(name) {
            return Some(Val::Set(s.clone()));
        }
        self.rels.get(name).map(|r| Val::Rel(r.clone()))
    }
    fn universe(&mut self) -> Bits {
        Bits::full(self.n)
    }
    fn empty_set(&mut self) -> Bits {
        Bits::new(self.n)
    }
    fn empty_rel(&mut self) -> Matrix {
        Matrix::new(self.n)
    }
    fn set_union(&mut self, a: &Bits, b: &Bits) -> Bits {
        a.zip(b, |x, y| x | y)
    }
    fn set_inter(&mut self, a: &Bits, b: &Bits) -> Bits {
        a.zip(b, |x, y| x & y)
    }
    fn set_diff(&mut self, a: &Bits, b: &Bits) -> Bits {
        a.zip(b, |x, y| x & !y)
    }
    fn union(&mut self, a: &Matrix, b: &Matrix) -> Matrix {
        a.zip(b, |x, y| x | y)
    }
    fn inter(&mut self, a: &Matrix, b: &Matrix) -> Matrix {
        a.zip(b, |x, y| x & y)
    }
    fn diff(&mut self, a: &Matrix, b: &Matrix) -> Matrix {
        a.zip(b, |x, y| x & !y)
    }
    fn seq(&mut self, a: &Matrix, b: &Matrix) -> Matrix {
        a.seq(b)
    }
    fn inverse(&mut self, a: &Matrix) -> Matrix {
        a.inverse()
    }
    fn plus(&mut self, a: &Matrix) -> Matrix {
        a.plus()
    }
    fn id_on(&mut self, s: &Bits) -> Matrix {
        Matrix::from_pairs(self.n, s.iter().map(|i| (i, i)))
    }
    fn cartesian(&mut self, a: &Bits, b: &Bits) -> Matrix {
        let mut m = Matrix::new(self.n);
        let w = m.w;
        for i in a.iter() {
            m.bits[i * w..(i + 1) * w].copy_from_slice(&b.words);
        }
        m
    }
    fn domain(&mut self, r: &Matrix) -> Bits {
        let mut s = Bits::new(self.n);
        for i in 0..r.n {
            if r.row(i).iter().any(|w| *w != 0) {
                s.insert(i);
            }
        }
        s
    }
    fn range(&mut self, r: &Matrix) -> Bits {
        let mut s = Bits::new(self.n);
        for i in 0..r.n {
            for (x, y) in s.words.iter_mut().zip(r.row(i)) {
                *x |= y;
            }
        }
        s
    }
    fn set_known_empty(&mut self, s: &Bits) -> bool {
        !self.strict && s.is_empty()
    }
    fn rel_known_empty(&mut self, r: &Matrix) -> bool {
        !self.strict && r.is_empty()
    }
    fn rel_eq(&mut self, a: &Matrix, b: &Matrix) -> Option<bool> {
        Some(a == b)
    }
    fn set_eq(&mut self, a: &Bits, b: &Bits) -> Option<bool> {
        Some(a == b)
    }
    fn fixpoint_rounds(&self) -> usize {
        self.n * self.n + 2
    }
    fn acyclic(&mut self, r: &Matrix) -> bool {
        r.is_acyclic()
    }
    fn irreflexive(&mut self, r: &Matrix) -> bool {
        r.irreflexive()
    }
    fn is_empty(&mut self, r: &Matrix) -> bool {
        r.is_empty()
    }
    fn set_is_empty(&mut self, s: &Bits) -> bool {
        s.is_empty()
    }
    fn truth(&mut self, b: bool) -> bool {
        b
    }
    fn not(&mut self, b: &bool) -> bool {
        !b
    }
}
