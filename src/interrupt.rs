//! Cooperative cancellation of long work: a flag the caller sets and the work polls.
//!
//! Why a flag and not a signal handler in Rust: the core has no Python and must stay embeddable;
//! the caller (the Python binding, a Rust program with its own Ctrl-C handling) decides *when* to
//! stop and the work decides *where* it can stop cleanly. Every long loop of the core (games of a
//! batch, ISMCTS iterations, envs of a vector-env step) polls [`Interrupt::is_set`] with one
//! relaxed atomic load, which costs nothing next to a game or an iteration, so the hot paths do
//! not pay for it.
//!
//! How long work reports a stop is up to it and documented where it happens: a batch returns
//! `Ok(None)` (no partial batch that looks complete), a search returns its best move so far (still
//! a legal move), a vector-env step reports [`crate::vecenv::StepErrorOr::Interrupted`].

use std::sync::atomic::{AtomicBool, Ordering};

/// A cancellation token shared by the caller and the work it started.
#[derive(Debug, Default)]
pub struct Interrupt {
    stopped: AtomicBool,
}

/// A token nobody sets, for callers that never cancel (the plain, non-`_until` entry points).
pub static NEVER: Interrupt = Interrupt::new();

impl Interrupt {
    pub const fn new() -> Self {
        Self {
            stopped: AtomicBool::new(false),
        }
    }

    /// Ask the work to stop at its next check. Idempotent.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
    }

    /// Whether [`Interrupt::stop`] was called. A relaxed load: the work only needs to see the
    /// flag eventually (within one game or a few iterations), not in any order with other memory.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_stays_set() {
        let t = Interrupt::new();
        assert!(!t.is_set());
        t.stop();
        t.stop();
        assert!(t.is_set());
        assert!(!NEVER.is_set());
    }
}
