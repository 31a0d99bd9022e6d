//! Z3 calls stopped at a deadline by one watchdog thread, not by Z3's own `timeout`.
//!
//! Why not Z3's `timeout` parameter: libz3 4.8.12 runs each timed call's timer on a pool of
//! timer threads, and a call that overruns its timer (Z3 does not look at its cancel flag in
//! every phase) keeps hold of its timer. While such a call runs on an abandoned worker
//! (`budget::abandon_after`), the next timed call in the process, on another thread and
//! context, waited inside `Z3_solver_check_assumptions` for it: in a batch, every test after
//! Dartagnan's `ttaslock-2.1.1` (20 s budget, Z3 about 55 s past it) answered `unknown`, even
//! a two-event litmus test (docs/decisions.md, "Budgets and loop bounds"). Here no Z3 timer is
//! made: a call registers its thread's context and deadline, and the watchdog calls
//! `Z3_interrupt` on it when the deadline passes, which cancels the call as the timer would
//! (and leaves the context usable, as the timer does). The registry's lock is held while
//! interrupting and while unregistering, so a context is interrupted only inside its call.

use std::sync::{Condvar, Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

/// A context, as the watchdog holds it. Z3 allows `Z3_interrupt` from any thread.
struct Ctx(z3_sys::Z3_context);

// SAFETY: only `Z3_interrupt` is called through it, which Z3 documents as callable from a
// thread other than the one running the context, and only while the call that registered it
// is still running (the registry's lock orders the two).
unsafe impl Send for Ctx {}

/// A Z3 call running with a deadline.
struct Call {
    ticket: u64,
    at: Instant,
    ctx: Ctx,
}

#[derive(Default)]
struct Calls {
    issued: u64,
    running: Vec<Call>,
}

struct Watch {
    calls: Mutex<Calls>,
    wake: Condvar,
}

fn watch() -> &'static Watch {
    static WATCH: OnceLock<Watch> = OnceLock::new();
    static STARTED: Once = Once::new();
    let w = WATCH.get_or_init(|| Watch {
        calls: Mutex::new(Calls::default()),
        wake: Condvar::new(),
    });
    STARTED.call_once(|| {
        std::thread::Builder::new()
            .name("tangle-z3-deadline".into())
            .spawn(move || watchdog(w))
            .expect("a thread for Z3's deadlines");
    });
    w
}

fn watchdog(w: &Watch) {
    let mut calls = w.calls.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        let now = Instant::now();
        calls.running.retain(|c| {
            let due = c.at <= now;
            if due {
                // SAFETY: the call that registered `ctx` has not unregistered (we hold the
                // lock it takes to do so), so its context is alive and inside a Z3 call.
                unsafe { z3_sys::Z3_interrupt(c.ctx.0) };
            }
            !due
        });
        let next = calls.running.iter().map(|c| c.at).min();
        calls = match next {
            Some(at) => {
                let wait = at.saturating_duration_since(Instant::now());
                (w.wake.wait_timeout(calls, wait))
                    .unwrap_or_else(|p| p.into_inner())
                    .0
            }
            None => w.wake.wait(calls).unwrap_or_else(|p| p.into_inner()),
        };
    }
}

/// Runs `call` (a Z3 call on this thread's context), interrupted `ms` from now. The `bool`:
/// the deadline passed before the call returned (Z3 then says "canceled"; the caller says
/// "timeout", as Z3's own timer would). `None`: no deadline.
pub(super) fn within<T>(ms: Option<u32>, call: impl FnOnce() -> T) -> (T, bool) {
    let Some(ms) = ms else {
        return (call(), false);
    };
    let at = Instant::now() + Duration::from_millis(ms as u64);
    let ctx = Ctx(z3::Context::thread_local().get_z3_context());
    let w = watch();
    let ticket = {
        let mut calls = w.calls.lock().unwrap_or_else(|p| p.into_inner());
        calls.issued += 1;
        let ticket = calls.issued;
        calls.running.push(Call { ticket, at, ctx });
        ticket
    };
    w.wake.notify_one();
    let out = call();
    let mut calls = w.calls.lock().unwrap_or_else(|p| p.into_inner());
    let before = calls.running.len();
    calls.running.retain(|c| c.ticket != ticket);
    // Gone already: the watchdog interrupted it.
    (out, calls.running.len() == before)
}

#[cfg(test)]
mod tests {
    use z3::ast::Bool;
    use z3::{SatResult, Solver};

    /// The pigeonhole problem with `n + 1` pigeons: unsatisfiable, and slow for Z3 from 11.
    fn pigeons(n: usize) -> Solver {
        let s = Solver::new();
        let p: Vec<Vec<Bool>> = (0..=n)
            .map(|i| {
                (0..n)
                    .map(|j| Bool::new_const(format!("p{i}_{j}")))
                    .collect()
            })
            .collect();
        for row in &p {
            s.assert(Bool::or(row));
        }
        for hole in 0..n {
            let col: Vec<&Bool> = p.iter().map(|row| &row[hole]).collect();
            for (a, x) in col.iter().enumerate() {
                for y in &col[a + 1..] {
                    s.assert(Bool::or(&[x.not(), y.not()]));
                }
            }
        }
        s
    }

    #[test]
    fn a_call_past_its_deadline_is_interrupted_and_the_context_stays_usable() {
        let hard = pigeons(12);
        let (r, late) = super::within(Some(200), || hard.check());
        assert_eq!((r, late), (SatResult::Unknown, true));
        // The next calls on the same context are not cancelled.
        let (r, late) = super::within(Some(60_000), || pigeons(5).check());
        assert_eq!((r, late), (SatResult::Unsat, false));
        assert_eq!(
            super::within(None, || pigeons(4).check()).0,
            SatResult::Unsat
        );
    }

    #[test]
    fn timed_calls_on_two_threads_each_end_at_their_own_deadline() {
        let busy = std::thread::spawn(|| super::within(Some(1500), || pigeons(12).check()));
        std::thread::sleep(std::time::Duration::from_millis(100));
        let (r, late) = super::within(Some(60_000), || pigeons(6).check());
        assert_eq!((r, late), (SatResult::Unsat, false));
        assert_eq!(busy.join().unwrap(), (SatResult::Unknown, true));
    }
}
