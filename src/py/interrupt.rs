//! Ctrl-C for long Rust calls: the one way the bindings run work that can take more than a few
//! milliseconds.
//!
//! Python handles a SIGINT by setting a flag that only the main thread acts on, between bytecodes
//! or in `PyErr_CheckSignals`. A Rust call that runs for a minute with the GIL released never gets
//! there, so `KeyboardInterrupt` used to arrive only when the call returned (and, when that first
//! return built a numpy array, as a `PanicException` from the numpy capsule import, see
//! [`prepare_numpy`]). [`interruptible`] instead runs the work on a scoped thread and keeps the
//! calling thread waiting in short slices with the GIL released, checking signals between slices.
//! On a signal it sets the work's [`Interrupt`] (the core polls it between games, envs and search
//! iterations), waits for the work to wind down and returns the `KeyboardInterrupt`.
//! [`interruptible_for`] adds a deadline on the same loop: at the deadline the caller sets the
//! token and returns the work's own result (a time-limited search's best move so far).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use numpy::PyArray1;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::interrupt::{Interrupt, NEVER};

/// How long the caller waits between two signal checks. A SIGINT is seen within one slice; the
/// core then stops within one game, env or search iteration per thread.
const SLICE: Duration = Duration::from_millis(20);

/// Run `work` with the GIL released so that Ctrl-C stops it.
///
/// `work` gets the [`Interrupt`] to poll (pass it to the core's `…_until` functions). Returns
/// `work`'s value, or the `KeyboardInterrupt` (any exception a signal handler raised) once
/// `work` has returned after the token was set: nothing keeps running after the call. A panic in
/// `work` is resumed on the calling thread (PyO3 turns it into a `PanicException`, as before).
///
/// Costs one thread start (about 20–50 µs): wrap calls that can be long, or use
/// [`interruptible_if`] with a size test so short calls stay on the calling thread.
pub fn interruptible<R, F>(py: Python<'_>, work: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce(&Interrupt) -> R + Send,
{
    interruptible_for(py, None, work)
}

/// [`interruptible`] that also sets the work's [`Interrupt`] once `limit` has passed (counted
/// from this call), and then returns what the work returns (a search's best move so far), not an
/// error.
///
/// Why here and not in the work: the calling thread waits anyway, so it is the timer. The work
/// polls the same flag it polls for Ctrl-C, and no hot loop reads the clock. The deadline is
/// met within a few milliseconds (the wait is cut to the time left) plus one unit of the work
/// (one search iteration).
pub fn interruptible_for<R, F>(py: Python<'_>, limit: Option<Duration>, work: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce(&Interrupt) -> R + Send,
{
    let deadline = limit.and_then(|l| Instant::now().checked_add(l));
    let stop = Interrupt::new();
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let stop = &stop;
        let done = &done;
        let caller = std::thread::current();
        let worker = std::thread::Builder::new()
            .name("panda-core-call".into())
            .spawn_scoped(scope, move || {
                // Wakes the caller at once when the work ends (a panic ends the thread too, and
                // the caller sees it finished at its next slice).
                let _wake = WakeOnDrop { caller, done };
                work(stop)
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
        loop {
            // Until the deadline, wake no later than it; after it (the work told to stop), the
            // loop only waits for the work to end and keeps watching for Ctrl-C.
            let wait = match deadline {
                Some(d) if !stop.is_set() => SLICE.min(d.saturating_duration_since(Instant::now())),
                _ => SLICE,
            };
            // Spurious wake-ups are harmless: the loop re-checks.
            py.detach(|| std::thread::park_timeout(wait));
            if done.load(Ordering::Acquire) {
                break;
            }
            if let Err(signal) = py.check_signals() {
                stop.stop();
                // The work stops within one game/env/iteration; its partial result is dropped.
                let _ = py.detach(|| worker.join());
                return Err(signal);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                stop.stop();
            }
        }
        match py.detach(|| worker.join()) {
            Ok(result) => Ok(result),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// The worker's "done" signal, sent when dropped, so even if the work panics.
struct WakeOnDrop<'a> {
    caller: std::thread::Thread,
    done: &'a AtomicBool,
}

impl Drop for WakeOnDrop<'_> {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        self.caller.unpark();
    }
}

/// [`interruptible`] when `long` holds, else `work` on the calling thread with the GIL released
/// (and an [`Interrupt`] nobody sets): for calls whose size says whether they can take long
/// (a small vector-env step must not pay for a thread start).
pub fn interruptible_if<R, F>(py: Python<'_>, long: bool, work: F) -> PyResult<R>
where
    R: Send,
    F: FnOnce(&Interrupt) -> R + Send,
{
    if long {
        interruptible(py, work)
    } else {
        Ok(py.detach(|| work(&NEVER)))
    }
}

/// Load numpy's C API now, while the module is imported.
///
/// rust-numpy loads it lazily, at the first array a call returns, by importing numpy's
/// `_ARRAY_API` capsule, and panics ("Failed to access NumPy array API capsule") if that import
/// fails. A pending Ctrl-C makes it fail: the import runs Python code, which raises the pending
/// `KeyboardInterrupt`. So the first interrupted batch of a process reported a `PanicException`
/// instead of `KeyboardInterrupt`. Loaded at import, the API is cached before any call can race
/// a signal.
pub fn prepare_numpy(py: Python<'_>) -> PyResult<()> {
    PyArray1::<u8>::zeros(py, 0, false);
    Ok(())
}
