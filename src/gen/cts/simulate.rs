//! The simulator: runs a program's subgroups in lockstep with active masks (maximal
//! reconvergence), as the CTS's `Program.simulate` does, for the expected contents of `out`.

use super::{Bound, Cells, Cond, Stmt, MAX_LOOP_NESTING};

/// Lockstep execution of one subgroup with active masks (maximal reconvergence).
struct Sim {
    lanes: u32,
    /// `tid` of lane 0.
    base: u32,
    /// Per invocation (`tid`, all subgroups): the records written, in location order.
    records: Vec<Vec<u32>>,
    /// Per lane of the subgroup being run: loop counters `i0 ..`.
    counters: Vec<[u32; MAX_LOOP_NESTING]>,
    /// Innermost loop last: lanes that broke and that continued.
    frames: Vec<(u64, u64)>,
    max_entries: u32,
}

fn lanes_of(mask: u64) -> impl Iterator<Item = u32> {
    (0..64).filter(move |l| (mask >> l) & 1 == 1)
}

impl Sim {
    fn write(&mut self, lane: u32, v: u32) {
        self.records[(self.base + lane) as usize].push(v);
    }

    fn cond(&self, c: &Cond, active: u64) -> u64 {
        let pick = |f: &dyn Fn(u32) -> bool| {
            lanes_of(active)
                .filter(|&l| f(l))
                .fold(0u64, |m, l| m | 1 << l)
        };
        match *c {
            Cond::Mask(m) => pick(&|l| (m >> (l % 32)) & 1 == 1),
            Cond::Input(_) => active,
            Cond::LaneLt(k) => pick(&|l| l < k),
            Cond::LaneEq(v) => pick(&|l| l == self.counters[l as usize][v]),
            Cond::Elect => active & active.wrapping_neg(),
            Cond::CounterGe(v, c) => {
                let c = c.unwrap_or(self.lanes);
                pick(&|l| self.counters[l as usize][v] >= c)
            }
        }
    }

    fn in_bound(&self, b: Bound, var: usize, active: u64) -> u64 {
        lanes_of(active)
            .filter(|&l| {
                let limit = match b {
                    Bound::Const(c) => c,
                    Bound::LaneDiv(d) => l / d + 1,
                };
                self.counters[l as usize][var] < limit
            })
            .fold(0u64, |m, l| m | 1 << l)
    }

    fn set_counter(&mut self, var: usize, active: u64, f: impl Fn(u32) -> u32) {
        for l in lanes_of(active) {
            let c = &mut self.counters[l as usize][var];
            *c = f(*c);
        }
    }

    /// Runs one loop body for `active`; returns (lanes at the end of the body or continuing,
    /// lanes that broke).
    fn body(&mut self, body: &[Stmt], active: u64) -> (u64, u64) {
        self.frames.push((0, 0));
        let fall = self.exec(body, active);
        let (brk, cont) = self.frames.pop().expect("pushed above");
        (fall | cont, brk)
    }

    /// Runs `stmts` with the lanes of `active`; returns the lanes that reach the end.
    fn exec(&mut self, stmts: &[Stmt], mut active: u64) -> u64 {
        for s in stmts {
            if active == 0 {
                return 0;
            }
            match s {
                Stmt::Ballot => {
                    if self.lanes <= 32 {
                        // The language's rule: lane j sets bit j (mod 32).
                        let b = lanes_of(active).fold(0u32, |m, j| m | 1u32.wrapping_shl(j));
                        for l in lanes_of(active) {
                            self.write(l, b);
                        }
                    } else {
                        let lo = active as u32;
                        let hi = (active >> 32) as u32;
                        for l in lanes_of(active) {
                            self.write(l, lo);
                            self.write(l, hi);
                        }
                    }
                }
                Stmt::Store(v) => {
                    for l in lanes_of(active) {
                        self.write(l, *v);
                    }
                }
                Stmt::If { cond, then, els } => {
                    let t = self.cond(cond, active);
                    let a = self.exec(then, t);
                    let b = match els {
                        Some(e) => self.exec(e, active & !t),
                        None => active & !t,
                    };
                    active = a | b;
                }
                Stmt::For { var, bound, body } => {
                    self.set_counter(*var, active, |_| 0);
                    let mut cur = active;
                    let mut exited = 0;
                    let mut entries = 0;
                    loop {
                        if let Some(b) = bound {
                            let stay = self.in_bound(*b, *var, cur);
                            exited |= cur & !stay;
                            cur = stay;
                        }
                        if cur == 0 {
                            break;
                        }
                        entries += 1;
                        assert!(entries <= 1000, "a generated loop does not end");
                        let (next, brk) = self.body(body, cur);
                        exited |= brk;
                        cur = next;
                        self.set_counter(*var, cur, |c| c + 1);
                    }
                    self.max_entries = self.max_entries.max(entries);
                    active = exited;
                }
                Stmt::Loop { var, body } => {
                    self.set_counter(*var, active, |_| 0);
                    let mut cur = active;
                    let mut exited = 0;
                    let mut entries = 0;
                    while cur != 0 {
                        entries += 1;
                        assert!(entries <= 1000, "a generated loop does not end");
                        let (next, brk) = self.body(body, cur);
                        exited |= brk;
                        cur = next;
                    }
                    self.max_entries = self.max_entries.max(entries);
                    active = exited;
                }
                Stmt::Inc(var) => self.set_counter(*var, active, |c| c + 1),
                Stmt::Break => {
                    self.frames.last_mut().expect("break inside a loop").0 |= active;
                    active = 0;
                }
                Stmt::Continue => {
                    self.frames.last_mut().expect("continue inside a loop").1 |= active;
                    active = 0;
                }
                Stmt::Return => active = 0,
            }
        }
        active
    }
}

/// Runs every subgroup in lockstep; `out` is laid out as `out[loc * threads + tid]` with one
/// spare location (the CTS's extra location, which must stay 0).
pub(super) fn simulate(body: &[Stmt], lanes: u32, subgroups: u32) -> Cells {
    let threads = lanes * subgroups;
    let mut sim = Sim {
        lanes,
        base: 0,
        records: vec![Vec::new(); threads as usize],
        counters: vec![[0; MAX_LOOP_NESTING]; lanes as usize],
        frames: Vec::new(),
        max_entries: 0,
    };
    let full = if lanes == 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    };
    for g in 0..subgroups {
        sim.base = g * lanes;
        sim.counters
            .iter_mut()
            .for_each(|c| *c = [0; MAX_LOOP_NESTING]);
        sim.exec(body, full);
        assert!(sim.frames.is_empty());
    }
    let locations = sim.records.iter().map(Vec::len).max().unwrap_or(0);
    let t = threads as usize;
    let mut expected = vec![0; (locations + 1) * t];
    for (tid, recs) in sim.records.iter().enumerate() {
        for (loc, &v) in recs.iter().enumerate() {
            expected[loc * t + tid] = v;
        }
    }
    Cells {
        expected,
        locations,
        max_entries: sim.max_entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::cts::generate::valve;
    use crate::gen::cts::{generate, CtsConfig, STORE_BASE};

    /// The CTS example `forinf_elect_break` (8 lanes): the lowest remaining lane leaves each
    /// iteration; the loop's tail ballot and the body's ballot both see the remaining lanes.
    #[test]
    fn simulator_matches_cts_forinf_elect_break() {
        let body = vec![Stmt::For {
            var: 0,
            bound: None,
            body: vec![
                valve(0),
                Stmt::Ballot,
                Stmt::Store(STORE_BASE + 2),
                Stmt::If {
                    cond: Cond::Elect,
                    then: vec![Stmt::Store(STORE_BASE + 4), Stmt::Break],
                    els: None,
                },
                Stmt::Ballot,
            ],
        }];
        let cells = simulate(&body, 8, 1);
        assert_eq!(cells.locations, 24);
        let (s2, s4) = (STORE_BASE + 2, STORE_BASE + 4);
        for lane in 0..8u32 {
            let mut row = vec![0xff, s2];
            for k in 1..=lane {
                let m = (0xffu32 << k) & 0xff;
                row.extend([m, m, s2]);
            }
            row.push(s4);
            row.resize(25, 0);
            let got: Vec<u32> = (0..25)
                .map(|loc| cells.expected[loc * 8 + lane as usize])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }

    /// The CTS example `nested_ifs` (8 lanes).
    #[test]
    fn simulator_matches_cts_nested_ifs() {
        let body = vec![
            Stmt::Store(STORE_BASE),
            Stmt::If {
                cond: Cond::LaneLt(5),
                then: vec![
                    Stmt::Store(STORE_BASE + 2),
                    Stmt::If {
                        cond: Cond::LaneLt(1),
                        then: vec![Stmt::Ballot],
                        els: Some(vec![
                            Stmt::Ballot,
                            Stmt::If {
                                cond: Cond::Input(2),
                                then: vec![Stmt::Ballot],
                                els: Some(vec![Stmt::Ballot]),
                            },
                            Stmt::Ballot,
                        ]),
                    },
                ],
                els: None,
            },
        ];
        let cells = simulate(&body, 8, 1);
        let (s0, s2) = (STORE_BASE, STORE_BASE + 2);
        let rows: [&[u32]; 8] = [
            &[s0, s2, 0x1],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0, s2, 0x1e, 0x1e, 0x1e],
            &[s0],
            &[s0],
            &[s0],
        ];
        for (lane, row) in rows.iter().enumerate() {
            let mut row = row.to_vec();
            row.resize(cells.locations + 1, 0);
            let got: Vec<u32> = (0..=cells.locations)
                .map(|loc| cells.expected[loc * 8 + lane])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }

    /// The CTS example `wg128_sg32_ifloopcount`: four subgroups of 32, a uniform `loop` of 4
    /// iterations with `if (lane == i0)`.
    #[test]
    fn simulator_matches_cts_ifloopcount() {
        let body = vec![
            Stmt::Loop {
                var: 0,
                body: vec![
                    Stmt::Ballot,
                    Stmt::If {
                        cond: Cond::LaneEq(0),
                        then: vec![Stmt::Ballot, Stmt::Store(STORE_BASE + 4)],
                        els: None,
                    },
                    Stmt::Ballot,
                    Stmt::Inc(0),
                    Stmt::If {
                        cond: Cond::CounterGe(0, Some(4)),
                        then: vec![Stmt::Break],
                        els: None,
                    },
                ],
            },
            Stmt::Ballot,
            Stmt::Store(STORE_BASE + 9),
        ];
        let cells = simulate(&body, 32, 4);
        assert_eq!(cells.locations, 12);
        let all = u32::MAX;
        let (s4, s9) = (STORE_BASE + 4, STORE_BASE + 9);
        for tid in 0..128usize {
            let lane = tid % 32;
            let mut row = Vec::new();
            for i in 0..4 {
                row.push(all);
                if lane == i {
                    row.extend([1 << i, s4]);
                }
                row.push(all);
            }
            row.extend([all, s9]);
            row.resize(13, 0);
            let got: Vec<u32> = (0..13).map(|loc| cells.expected[loc * 128 + tid]).collect();
            assert_eq!(got, row, "tid {tid}");
        }
    }

    /// Beyond 32 lanes a ballot is two words; masks test bit `lane % 32`.
    #[test]
    fn simulator_wide_ballot() {
        let body = vec![Stmt::If {
            cond: Cond::LaneLt(40),
            then: vec![Stmt::If {
                cond: Cond::Mask(0b10),
                then: vec![Stmt::Ballot],
                els: Some(vec![Stmt::Ballot]),
            }],
            els: None,
        }];
        let cells = simulate(&body, 64, 1);
        assert_eq!(cells.locations, 2);
        // Lanes 1 and 33 take the then arm; lanes 0, 2..32 and 34..39 the else arm.
        let then = [0b10, 0b10];
        let els = [!0b10, 0xff & !0b10];
        for tid in 0..64 {
            let got = [cells.expected[tid], cells.expected[64 + tid]];
            let want = match tid {
                1 | 33 => then,
                40.. => [0, 0],
                _ => els,
            };
            assert_eq!(got, want, "tid {tid}");
        }
        let cfg = CtsConfig {
            lanes: 64,
            ..CtsConfig::default()
        };
        let text = generate(0, &cfg).text;
        assert!(text.contains("subgroupOr(lane < 32 ? 1 << lane : 0)"));
        assert!(!text.contains("subgroupBallot"));
    }

    /// Break, continue and return masks in a `for` loop with a lane-dependent trip count.
    #[test]
    fn simulator_break_continue_return() {
        // for (i0 = 0; i0 < lane + 1; ..) { if (lane == 2) { return; } if (lane == i0) {
        // continue; } ballot; if (lane < 1) { break; } }  ballot
        let body = vec![
            Stmt::For {
                var: 0,
                bound: Some(Bound::LaneDiv(1)),
                body: vec![
                    Stmt::If {
                        cond: Cond::Mask(0b100),
                        then: vec![Stmt::Return],
                        els: None,
                    },
                    Stmt::If {
                        cond: Cond::LaneEq(0),
                        then: vec![Stmt::Continue],
                        els: None,
                    },
                    Stmt::Ballot,
                    Stmt::If {
                        cond: Cond::LaneLt(1),
                        then: vec![Stmt::Break],
                        els: None,
                    },
                ],
            },
            Stmt::Ballot,
        ];
        let cells = simulate(&body, 4, 1);
        // Iteration 0: lanes 0,1,3 (2 returned); lane 0 continues: ballot 0b1010.
        // Iteration 1: lanes 1,3; lane 1 continues: ballot 0b1000. Iteration 2: lane 3: 0b1000.
        // Iteration 3: lane 3 continues. After the loop: lanes 0, 1, 3: 0b1011.
        let rows: [&[u32]; 4] = [&[0b1011], &[0b1010, 0b1011], &[], &[0b1010, 8, 8, 0b1011]];
        for (lane, row) in rows.iter().enumerate() {
            let mut row = row.to_vec();
            row.resize(cells.locations + 1, 0);
            let got: Vec<u32> = (0..=cells.locations)
                .map(|loc| cells.expected[loc * 4 + lane])
                .collect();
            assert_eq!(got, row, "lane {lane}");
        }
    }
}
