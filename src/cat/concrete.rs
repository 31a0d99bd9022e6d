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
        self.words.iter().enumerate().flat_map(|(k, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| k * 64 + b)
        })
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
    fn or_assign(&mut self, o: &Bits) -> bool {
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            let n = *a | b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }
}

/// A relation over events `0..n`: row `i` holds the successors of `i`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    pub rows: Vec<Bits>,
}

impl Matrix {
    pub fn new(n: usize) -> Matrix {
        Matrix {
            rows: vec![Bits::new(n); n],
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
        self.rows.len()
    }
    pub fn insert(&mut self, a: usize, b: usize) {
        self.rows[a].insert(b);
    }
    pub fn contains(&self, a: usize, b: usize) -> bool {
        self.rows[a].contains(b)
    }
    pub fn pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(a, r)| r.iter().map(move |b| (a, b)))
    }
    fn zip(&self, o: &Matrix, f: impl Fn(u64, u64) -> u64 + Copy) -> Matrix {
        Matrix {
            rows: self
                .rows
                .iter()
                .zip(&o.rows)
                .map(|(a, b)| a.zip(b, f))
                .collect(),
        }
    }
    pub fn seq(&self, o: &Matrix) -> Matrix {
        let n = self.n();
        let mut out = Matrix::new(n);
        for (a, row) in self.rows.iter().enumerate() {
            for m in row.iter() {
                out.rows[a].or_assign(&o.rows[m]);
            }
        }
        out
    }
    /// Transitive closure (Warshall over bit rows).
    pub fn plus(&self) -> Matrix {
        let mut m = self.clone();
        let n = m.n();
        for k in 0..n {
            let rk = m.rows[k].clone();
            for i in 0..n {
                if m.rows[i].contains(k) {
                    m.rows[i].or_assign(&rk);
                }
            }
        }
        m
    }
    pub fn inverse(&self) -> Matrix {
        Matrix::from_pairs(self.n(), self.pairs().map(|(a, b)| (b, a)))
    }
    pub fn irreflexive(&self) -> bool {
        (0..self.n()).all(|i| !self.contains(i, i))
    }
    /// A cycle of the relation, as a list of events, if there is one.
    pub fn cycle(&self) -> Option<Vec<usize>> {
        let n = self.n();
        // Iterative DFS with colours.
        let mut colour = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        for s in 0..n {
            if colour[s] != 0 {
                continue;
            }
            let mut stack = vec![(s, self.rows[s].iter().collect::<Vec<_>>(), 0usize)];
            colour[s] = 1;
            while let Some((v, succ, k)) = stack.last_mut() {
                if *k < succ.len() {
                    let w = succ[*k];
                    *k += 1;
                    let v = *v;
                    match colour[w] {
                        0 => {
                            colour[w] = 1;
                            parent[w] = v;
                            let ws = self.rows[w].iter().collect();
                            stack.push((w, ws, 0));
                        }
                        1 => {
                            let mut cyc = vec![v];
                            let mut x = v;
                            while x != w {
                                x = parent[x];
                                cyc.push(x);
                            }
                            cyc.reverse();
                            return Some(cyc);
                        }
                        _ => {}
                    }
                } else {
                    colour[*v] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

/// One candidate execution's base sets and relations, by cat name.
#[derive(Clone, Debug, Default)]
pub struct Concrete {
    pub n: usize,
    pub sets: HashMap<String, Bits>,
    pub rels: HashMap<String, Matrix>,
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
        for i in a.iter() {
            m.rows[i] = b.clone();
        }
        m
    }
    fn domain(&mut self, r: &Matrix) -> Bits {
        let mut s = Bits::new(self.n);
        for (i, row) in r.rows.iter().enumerate() {
            if !row.is_empty() {
                s.insert(i);
            }
        }
        s
    }
    fn range(&mut self, r: &Matrix) -> Bits {
        let mut s = Bits::new(self.n);
        for row in &r.rows {
            s.or_assign(row);
        }
        s
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
        r.cycle().is_none()
    }
    fn irreflexive(&mut self, r: &Matrix) -> bool {
        r.irreflexive()
    }
    fn is_empty(&mut self, r: &Matrix) -> bool {
        r.rows.iter().all(Bits::is_empty)
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
