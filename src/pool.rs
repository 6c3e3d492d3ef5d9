//! Worker pools, shared and bounded.
//!
//! A `threads = n` request runs in a rayon pool of exactly `n` threads. Building a pool starts
//! `n` OS threads (about 10–50 µs each), so pools are cached by size and shared by every caller
//! (batch simulations, every vector env): a loop of `simulate(threads=8)` chunks or many
//! `HeadVectorEnv(…, threads=8)` start 8 threads once. The cache keeps at most [`CACHED_POOLS`]
//! sizes (least recently used evicted; an evicted pool lives on while a vector env still holds
//! it), and one pool has at most [`MAX_THREADS`] threads, so no argument can make the process
//! start threads without bound.

use std::sync::{Arc, Mutex, PoisonError};

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::error::RulesError;

/// Most worker threads one call may ask for. Far above any machine this runs on; below the point
/// where starting the threads alone takes seconds or exhausts the process's thread limit.
pub const MAX_THREADS: usize = 256;

/// Most pool sizes kept alive at once (so at most `CACHED_POOLS * MAX_THREADS` idle threads).
pub const CACHED_POOLS: usize = 4;

/// Cached pools, most recently used last.
static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// The shared pool of `threads` threads (`1..=MAX_THREADS`), built on first use.
pub fn pool(threads: usize) -> Result<Arc<ThreadPool>, RulesError> {
    check_threads(threads)?;
    // A panic while holding the lock cannot leave the list inconsistent (push/remove only).
    let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = pools.iter().position(|(n, _)| *n == threads) {
        let entry = pools.remove(at);
        let pool = Arc::clone(&entry.1);
        pools.push(entry);
        return Ok(pool);
    }
    let pool = Arc::new(
        ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(move |i| format!("panda-core-{threads}-{i}"))
            .build()
            .map_err(|e| RulesError(format!("cannot start {threads} worker threads: {e}")))?,
    );
    if pools.len() >= CACHED_POOLS {
        pools.remove(0);
    }
    pools.push((threads, Arc::clone(&pool)));
    Ok(pool)
}

/// Refuse a thread count outside `1..=MAX_THREADS`.
pub fn check_threads(threads: usize) -> Result<(), RulesError> {
    if (1..=MAX_THREADS).contains(&threads) {
        Ok(())
    } else {
        Err(RulesError(format!(
            "threads must be in 1..={MAX_THREADS}, got {threads}"
        )))
    }
}

/// Run `work` over `threads` threads: rayon's global pool (every core) for `None`, else the
/// shared pool of that size.
pub fn install<R: Send>(
    threads: Option<usize>,
    work: impl FnOnce() -> R + Send,
) -> Result<R, RulesError> {
    match threads {
        None => Ok(work()),
        Some(n) => Ok(pool(n)?.install(work)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_reused_and_bounded() {
        let a = pool(3).unwrap();
        let b = pool(3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.current_num_threads(), 3);
        for n in 1..=CACHED_POOLS + 2 {
            pool(n).unwrap();
        }
        assert!(POOLS.lock().unwrap().len() <= CACHED_POOLS);
        assert!(pool(0).is_err());
        assert!(pool(MAX_THREADS + 1).is_err());
        assert_eq!(install(Some(2), rayon::current_num_threads).unwrap(), 2);
    }
}
