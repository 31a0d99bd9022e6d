//! Time and memory budgets, checked in every phase that can grow: unrolling, encoding,
//! solving and exploring.
//!
//! A run that exhausts a budget is not an error: the phase stops and the query answers
//! `unknown` with the [`Exhausted`] reason (egg's `StopReason`). Memory is measured, not
//! estimated: the resident set of the whole process (our structures and Z3's), read from
//! `/proc/self/statm` every few hundred checks, so one number covers both engines. What
//! counts is what the analysis added since its budget was made: memory an earlier analysis
//! of the same run freed is seldom returned to the system (the allocator keeps it for
//! reuse), and counting it would make every later test of a batch `unknown`.

use std::cell::Cell;
use std::time::{Duration, Instant};

/// The default memory budget (MiB): a few GiB, well under the machines we run on.
pub const DEFAULT_MAX_MEMORY_MIB: u64 = 4096;

/// Why a phase stopped early.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Exhausted {
    #[error("the time budget ({limit_ms} ms) ran out while {phase}")]
    Time { limit_ms: u64, phase: &'static str },
    #[error("the memory budget ran out while {phase}: the analysis added {used_mib} MiB to the process, over the {limit_mib} MiB allowed for it")]
    Memory {
        limit_mib: u64,
        used_mib: u64,
        phase: &'static str,
    },
}

/// Runs `f` on a worker thread (with a 64 MiB stack: Z3 recurses over terms) and waits for
/// it until `deadline`. [`Unfinished::Late`] when it has not finished by then: it is left to
/// finish in the background and its result is dropped. For solvers that do not look at their
/// cancel flag in every phase; whatever `f` builds must be its own (Z3's context is per
/// thread). One worker serves call after call (one Z3 context, one allocator arena); a worker
/// that was waited for in vain is let go, and the next call starts another.
pub fn abandon_after<T: Send + 'static, F: FnOnce() -> T + Send + 'static>(
    deadline: Instant,
    f: F,
) -> Result<T, Unfinished> {
    use std::sync::mpsc;
    let idle = IDLE_WORKER.lock().unwrap_or_else(|p| p.into_inner()).take();
    let (tx, rx) = mpsc::channel();
    let mut job: Job = Box::new(move || {
        // A panic here is a bug (Z3's own failures are caught inside `f`): it is reported
        // as the work's failure, with the payload's text.
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        });
        let _ = tx.send(r);
    });
    // An idle worker that has gone away hands the job back; then a fresh one takes it.
    let mut worker = None;
    for w in [idle, None] {
        let Some(w) = w.or_else(start_worker) else {
            // No thread to be had: run here, unwatched.
            job();
            break;
        };
        match w.send(job) {
            Ok(()) => {
                worker = Some(w);
                break;
            }
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    let out = match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(panic)) => Err(Unfinished::Failed(panic)),
        Err(mpsc::RecvTimeoutError::Timeout) => return Err(Unfinished::Late),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(Unfinished::Failed("the worker thread stopped".into()))
        }
    };
    if let Some(w) = worker {
        let mut slot = IDLE_WORKER.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(w);
        }
    }
    out
}

/// Why [`abandon_after`] has no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unfinished {
    /// The deadline passed first.
    Late,
    /// The work panicked (the payload's text).
    Failed(String),
}

type Job = Box<dyn FnOnce() + Send>;

/// The worker no call is using, by the channel its jobs go to.
static IDLE_WORKER: std::sync::Mutex<Option<std::sync::mpsc::Sender<Job>>> =
    std::sync::Mutex::new(None);

/// A worker thread that runs jobs until its channel closes.
fn start_worker() -> Option<std::sync::mpsc::Sender<Job>> {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("tangle-solver".into())
        .stack_size(64 << 20)
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                job();
            }
        })
        .ok()
        .map(|_| tx)
}

/// A deadline and a memory ceiling for one analysis.
#[derive(Clone, Debug)]
pub struct Budget {
    start: Instant,
    time: Option<Duration>,
    max_memory_mib: Option<u64>,
    /// The resident set when the budget was made (with a memory ceiling).
    base_mib: Option<u64>,
    ticks: Cell<u32>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(None, Some(DEFAULT_MAX_MEMORY_MIB))
    }
}

/// How often (in checks) the resident set is read; reading it costs a system call.
const MEMORY_EVERY: u32 = 256;

impl Budget {
    /// A budget starting now.
    pub fn new(time: Option<Duration>, max_memory_mib: Option<u64>) -> Budget {
        Budget::since(Instant::now(), time, max_memory_mib)
    }

    /// A budget that started at `start` (an analysis whose earlier phases already ran).
    pub fn since(start: Instant, time: Option<Duration>, max_memory_mib: Option<u64>) -> Budget {
        Budget {
            start,
            time,
            max_memory_mib,
            base_mib: max_memory_mib.and_then(|_| resident_mib()),
            ticks: Cell::new(0),
        }
    }

    /// No limits at all (inner searches that keep their own).
    pub fn unlimited() -> Budget {
        Budget::new(None, None)
    }

    /// The same deadline with a share of the memory: formula building gets half, so that
    /// the solver (and Z3's tables, which grow by doubling) has the other half.
    pub fn with_memory_share(&self, num: u64, den: u64) -> Budget {
        Budget {
            max_memory_mib: self.max_memory_mib.map(|m| m * num / den),
            ..self.clone()
        }
    }

    pub fn max_memory_mib(&self) -> Option<u64> {
        self.max_memory_mib
    }

    /// Time left, if the budget has a deadline (zero once it has passed).
    pub fn remaining(&self) -> Option<Duration> {
        self.time.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    /// Milliseconds left for one solver call (at least 1, since Z3 reads 0 as "no limit").
    pub fn solver_ms(&self) -> Option<u32> {
        self.remaining()
            .map(|r| r.as_millis().clamp(1, u32::MAX as u128) as u32)
    }

    /// Stops `phase` if the deadline has passed or, every few calls, if the process holds
    /// more memory than allowed.
    pub fn check(&self, phase: &'static str) -> Result<(), Exhausted> {
        if let Some(t) = self.time {
            if self.start.elapsed() >= t {
                return Err(Exhausted::Time {
                    limit_ms: t.as_millis() as u64,
                    phase,
                });
            }
        }
        let n = self.ticks.get().wrapping_add(1);
        self.ticks.set(n);
        if n.is_multiple_of(MEMORY_EVERY) {
            self.check_memory(phase)?;
        }
        Ok(())
    }

    /// Checks the memory ceiling now.
    pub fn check_memory(&self, phase: &'static str) -> Result<(), Exhausted> {
        if let (Some(limit), Some(now)) = (self.max_memory_mib, resident_mib()) {
            let used = now.saturating_sub(self.base_mib.unwrap_or(0));
            if used > limit {
                return Err(Exhausted::Memory {
                    limit_mib: limit,
                    used_mib: used,
                    phase,
                });
            }
        }
        Ok(())
    }
}

/// Resident memory of this process, in MiB (Linux; `None` elsewhere).
pub fn resident_mib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096 / (1024 * 1024))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    #[test]
    fn work_that_overruns_its_deadline_is_abandoned() {
        let soon = Instant::now() + Duration::from_millis(50);
        // Work that ignores every deadline: the answer comes at the deadline, without it.
        let late = super::abandon_after(soon, || {
            std::thread::sleep(Duration::from_secs(5));
            1
        });
        assert_eq!(late, Err(super::Unfinished::Late));
        assert!(
            Instant::now() < soon + Duration::from_secs(4),
            "waited for the work"
        );
        let later = Instant::now() + Duration::from_secs(60);
        assert_eq!(super::abandon_after(later, || 2), Ok(2));
        // A panic is a failure, not lateness, and the worker serves the next call.
        let failed = super::abandon_after(later, || -> u32 { panic!("inside") });
        assert_eq!(failed, Err(super::Unfinished::Failed("inside".into())));
        assert_eq!(super::abandon_after(later, || 3), Ok(3));
    }
}
