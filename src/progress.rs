//! Progress models as data (`encodings/progress/progress.toml`, docs/progress.md): which
//! threads a scheduler guarantees to keep scheduling. The liveness question asks whether an
//! execution that is fair to those threads can run forever.
//!
//! A progress model is given per scope, as Dartagnan does: the model of scope S schedules the
//! members of each S instance (`DV`: the queue families of the device, `QF`: the workgroups of
//! a queue family, `WG`: the subgroups of a workgroup, `SG`: the invocations of a subgroup). A
//! thread is guaranteed when it is guaranteed at every scope. Inside a subgroup the execution
//! model (CM ... Lazy) decides which steps lanes take together; the `SG` model only says
//! whether the scheduler may starve an invocation that could take a step.

use serde::Deserialize;
use std::collections::BTreeMap;

const BUNDLED: &str = include_str!("../encodings/progress/progress.toml");

/// One way a progress model guarantees units of a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Guarantee {
    /// Every unit.
    All,
    /// Every unit that has started (taken a visible step).
    Started,
    /// The schedulable unit (unfinished, and not blocked for good) with the lowest id.
    LowestUnfinished,
    /// Every unit whose id is at most that of some started unit.
    UpToStarted,
}

/// A progress model for one level: the union of its guarantees.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ProgressModel {
    pub name: String,
    pub about: String,
    pub guarantee: Vec<Guarantee>,
}

#[derive(Deserialize)]
struct Entry {
    about: String,
    guarantee: Vec<Guarantee>,
}

/// The scopes whose members a progress model schedules, outermost first (Vulkan's names, as
/// Dartagnan's `--modeling.progress=[QF=OBE,SG=HSA]`).
pub const SCOPES: [&str; 4] = ["DV", "QF", "WG", "SG"];

/// A progress model per scope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// For the queue families of the device, the workgroups of a queue family, the subgroups
    /// of a workgroup, the invocations of a subgroup.
    pub levels: [ProgressModel; 4],
}

/// How a scope instance (a range of threads) at a depth splits into its members.
pub type Members<'a> = dyn Fn(std::ops::Range<u32>, usize) -> Vec<std::ops::Range<u32>> + 'a;

/// What the progress model needs to know of a thread on a loop repeated forever.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ThreadStatus {
    pub terminated: bool,
    /// It has taken a visible step.
    pub started: bool,
    /// It can take no step anywhere on the loop (waiting at a barrier or for lanes).
    pub blocked: bool,
    /// It takes steps on the loop.
    pub moves: bool,
    /// It cannot take a step somewhere on the loop (so a scheduler that never runs it is
    /// still weakly fair to it).
    pub waits: bool,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ProgressError {
    #[error("unknown progress model `{name}` (known: {known}){hint}")]
    Unknown {
        spec: String,
        name: String,
        known: String,
        hint: String,
    },
    #[error("progress model `{spec}`: unknown scope `{level}` (scopes: DV, QF, WG, SG, DEFAULT)")]
    Level { spec: String, level: String },
    #[error("progress model `{spec}`: {message}")]
    Form { spec: String, message: String },
}

/// Every bundled progress model, by name.
pub fn bundled() -> BTreeMap<String, ProgressModel> {
    let entries: BTreeMap<String, Entry> =
        toml::from_str(BUNDLED).expect("the bundled progress models parse");
    entries
        .into_iter()
        .map(|(name, e)| {
            let m = ProgressModel {
                name: name.clone(),
                about: e.about,
                guarantee: e.guarantee,
            };
            (name, m)
        })
        .collect()
}

impl Progress {
    /// Reads `--progress`: one model for every scope (`obe`), or a model per scope in
    /// Dartagnan's form (`QF=OBE,SG=HSA`, brackets optional, any case); scopes not named take
    /// `DEFAULT=` if given, else fair.
    pub fn parse(spec: &str) -> Result<Progress, ProgressError> {
        let known = bundled();
        let lookup = |name: &str| -> Result<ProgressModel, ProgressError> {
            let key = name.trim().to_ascii_lowercase().replace('_', "-");
            known.get(&key).cloned().ok_or_else(|| {
                let names: Vec<&str> = known.keys().map(String::as_str).collect();
                ProgressError::Unknown {
                    spec: spec.to_string(),
                    name: name.trim().to_string(),
                    known: names.join(", "),
                    hint: crate::diag::closest(&key, names.iter().copied())
                        .map(|c| format!("; did you mean {c}?"))
                        .unwrap_or_default(),
                }
            })
        };
        let body = spec.trim();
        let body = body
            .strip_prefix('[')
            .and_then(|b| b.strip_suffix(']'))
            .unwrap_or(body);
        if !body.contains('=') {
            let m = lookup(body)?;
            return Ok(Progress {
                levels: [m.clone(), m.clone(), m.clone(), m],
            });
        }
        let mut given: [Option<ProgressModel>; 4] = Default::default();
        let mut default = None;
        for part in body.split(',') {
            let (scope, name) = part.split_once('=').ok_or_else(|| ProgressError::Form {
                spec: spec.to_string(),
                message: format!("`{part}`: expected SCOPE=MODEL"),
            })?;
            let scope = scope.trim().to_ascii_uppercase();
            let slot = if scope == "DEFAULT" {
                &mut default
            } else {
                let i = SCOPES.iter().position(|l| *l == scope).ok_or_else(|| {
                    ProgressError::Level {
                        spec: spec.to_string(),
                        level: scope.clone(),
                    }
                })?;
                &mut given[i]
            };
            if slot.is_some() {
                return Err(ProgressError::Form {
                    spec: spec.to_string(),
                    message: format!("{scope} is given twice"),
                });
            }
            *slot = Some(lookup(name)?);
        }
        let default = match default {
            Some(d) => d,
            None => lookup("fair")?,
        };
        Ok(Progress {
            levels: given.map(|g| g.unwrap_or_else(|| default.clone())),
        })
    }

    /// How reports name it: `obe`, or `QF=obe,SG=hsa` (the scopes that are not fair) when
    /// the scopes differ.
    pub fn name(&self) -> String {
        if self.levels.iter().all(|m| m.name == self.levels[0].name) {
            return self.levels[0].name.clone();
        }
        SCOPES
            .iter()
            .zip(&self.levels)
            .filter(|(_, m)| m.name != "fair")
            .map(|(l, m)| format!("{l}={}", m.name))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Is a run that repeats forever fair under this progress model, and which threads does
    /// the scheduler then keep running? Dartagnan's rules, per scope instance, starting at the
    /// device: the members the scope's model guarantees must progress; and a progressing
    /// instance with a schedulable member always has one progressing member (something runs,
    /// even unfairly). A progressing thread must move on the loop unless it has terminated or
    /// is disabled somewhere on it (weak fairness). `None`: no such choice exists, the loop is
    /// not a run the scheduler may produce forever.
    ///
    /// `members(instance, depth)` splits a scope instance (a range of threads) at depth 0
    /// (the device), 1 (a queue family), 2 (a workgroup) or 3 (a subgroup) into its members
    /// (`ir::Layout::scope_members`).
    pub fn fair(&self, members: &Members<'_>, status: &[ThreadStatus]) -> Option<Vec<bool>> {
        let all = 0..status.len() as u32;
        let mut progressing = vec![false; status.len()];
        self.node(members, status, all, 0, &mut progressing)
            .then_some(progressing)
    }

    /// Can the instance `range` (at depth `level`; depth 4 is a thread) progress fairly?
    /// Marks the threads that then progress.
    fn node(
        &self,
        members_of: &Members<'_>,
        status: &[ThreadStatus],
        range: std::ops::Range<u32>,
        level: usize,
        progressing: &mut [bool],
    ) -> bool {
        if level == SCOPES.len() {
            let s = status[range.start as usize];
            progressing[range.start as usize] = true;
            return s.terminated || s.moves || s.waits;
        }
        let members = members_of(range, level);
        let summary: Vec<ThreadStatus> = members
            .iter()
            .map(|m| {
                let mut acc = ThreadStatus {
                    terminated: true,
                    started: false,
                    blocked: true,
                    moves: false,
                    waits: false,
                };
                for t in m.clone() {
                    let s = status[t as usize];
                    acc.terminated &= s.terminated;
                    acc.started |= s.started;
                    acc.blocked &= s.blocked || s.terminated;
                }
                acc
            })
            .collect();
        let schedulable = |i: usize| !summary[i].terminated && !summary[i].blocked;
        let model = &self.levels[level];
        let guaranteed = |i: usize| {
            model.guarantee.iter().any(|g| match g {
                Guarantee::All => true,
                Guarantee::Started => summary[i].started,
                Guarantee::LowestUnfinished => {
                    (0..summary.len()).find(|&j| schedulable(j)) == Some(i)
                }
                Guarantee::UpToStarted => (i..summary.len()).any(|j| summary[j].started),
            })
        };
        let mut some_schedulable_runs = false;
        for (i, m) in members.iter().enumerate() {
            if guaranteed(i) {
                if !self.node(members_of, status, m.clone(), level + 1, progressing) {
                    return false;
                }
                some_schedulable_runs |= schedulable(i);
            }
        }
        if some_schedulable_runs || !(0..summary.len()).any(schedulable) {
            return true;
        }
        // Minimal progress: one schedulable member runs; any that can be fair will do.
        for (i, m) in members.iter().enumerate() {
            if schedulable(i) {
                let mut trial = progressing.to_vec();
                if self.node(members_of, status, m.clone(), level + 1, &mut trial) {
                    progressing.copy_from_slice(&trial);
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One queue family of `workgroup`-thread workgroups cut into `subgroup`-lane subgroups.
    fn layout(
        subgroup: u32,
        workgroup: u32,
    ) -> impl Fn(std::ops::Range<u32>, usize) -> Vec<std::ops::Range<u32>> {
        move |r: std::ops::Range<u32>, level: usize| {
            let size = match level {
                0 => u32::MAX,
                1 => workgroup,
                2 => subgroup,
                _ => 1,
            };
            let mut out = Vec::new();
            let mut a = r.start;
            while a < r.end {
                let b = a.saturating_add(size).min(r.end);
                out.push(a..b);
                a = b;
            }
            out
        }
    }

    #[test]
    fn every_bundled_model_reads_and_levels_combine() {
        for name in ["fair", "hsa", "obe", "hsa-obe", "lobe", "unfair", "HSA_OBE"] {
            Progress::parse(name).unwrap();
        }
        let p = Progress::parse("[QF=OBE,SG=unfair]").unwrap();
        assert_eq!(p.name(), "QF=obe,SG=unfair");
        let p = Progress::parse("qf=hsa,default=obe").unwrap();
        assert_eq!(p.name(), "DV=obe,QF=hsa,WG=obe,SG=obe");
        assert!(Progress::parse("obee")
            .unwrap_err()
            .to_string()
            .contains("did you mean obe"));
        assert!(Progress::parse("WQ=obe").is_err());
        assert!(Progress::parse("WG=obe,wg=fair").is_err());
    }

    fn status(terminated: bool, started: bool, moves: bool) -> ThreadStatus {
        ThreadStatus {
            terminated,
            started,
            blocked: false,
            moves,
            waits: false,
        }
    }

    #[test]
    fn fairness_follows_the_definitions() {
        // Four single-invocation workgroups: thread 0 finished, thread 2 spins, threads 1
        // and 3 have not started (they could, but never move on the loop).
        let lay = layout(1, 1);
        let st = [
            status(true, true, false),
            status(false, false, false),
            status(false, true, true),
            status(false, false, false),
        ];
        let fair = |m: &str| Progress::parse(m).unwrap().fair(&lay, &st);
        assert_eq!(fair("fair"), None);
        assert_eq!(
            fair("hsa"),
            None,
            "HSA runs thread 1, the lowest schedulable"
        );
        assert_eq!(
            fair("lobe"),
            None,
            "LOBE runs thread 1, below the started thread 2"
        );
        assert_eq!(fair("hsa-obe"), None);
        let runs = |m: &str| fair(m).map(|p| p.iter().map(|&b| b as u8).collect::<Vec<_>>());
        assert_eq!(runs("obe"), Some(vec![1, 0, 1, 0]));
        // Unfair: something runs (minimal progress), and thread 2 is what does.
        assert_eq!(runs("unfair"), Some(vec![0, 0, 1, 0]));
        // Thread 0 spins waiting for thread 1, which has not started.
        let st = [status(false, true, true), status(false, false, false)];
        let lay = layout(1, 1);
        let fair = |m: &str| Progress::parse(m).unwrap().fair(&lay, &st).is_some();
        assert!(!fair("fair"));
        assert!(fair("hsa") && fair("obe") && fair("lobe") && fair("hsa-obe") && fair("unfair"));
        // A blocked thread is skipped by HSA: thread 1 is the lowest schedulable.
        let mut st = [
            status(false, true, false),
            status(false, false, false),
            status(false, true, true),
        ];
        st[0].blocked = true;
        st[0].waits = true;
        let lay = layout(1, 1);
        assert_eq!(Progress::parse("hsa").unwrap().fair(&lay, &st), None);
    }

    #[test]
    fn scopes_combine() {
        // One workgroup, two subgroups of two lanes. Lane 0 spins, lane 1 waits (disabled
        // somewhere on the loop), subgroup 1 has not started.
        let lay = layout(2, 4);
        let mut st = [
            status(false, true, true),
            status(false, true, false),
            status(false, false, false),
            status(false, false, false),
        ];
        st[1].waits = true;
        let fair = |m: &str| Progress::parse(m).unwrap().fair(&lay, &st).is_some();
        assert!(!fair("fair"), "subgroup 1 must run");
        assert!(fair("WG=obe"), "subgroup 1 has not started");
        assert!(
            !fair("SG=unfair"),
            "subgroup 1 must still run one of its lanes"
        );
        assert!(fair("WG=hsa"), "subgroup 0 is the lowest schedulable");
    }
}
