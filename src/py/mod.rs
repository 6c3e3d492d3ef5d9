//! The PyO3 binding layer: the compiled module `panda_core._core`.
//!
//! Thin wrappers only: argument conversion, the GIL released around long work, core errors mapped
//! to Python exceptions. No game rule lives here.

mod args;
mod errors;
pub mod events;
mod game_class;
mod games;
mod interrupt;
mod json;
mod policy;
mod seat_class;
mod sim;
mod vecenv;

use pyo3::prelude::*;

use crate::rng::{mix64 as core_mix64, SplitMix64};
use args::{threads_arg, Int};

/// The `k`-th output (0-based) of SplitMix64 started at `seed`, as the batch simulator
/// derives game `k`'s deal: for the Python facade's own seed streams.
#[pyfunction]
fn nth_output(seed: &Bound<'_, PyAny>, k: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(SplitMix64::nth_output(
        args::seed_arg(seed)?,
        args::seed_arg(k)?,
    ))
}

/// The SplitMix64 output function of a 64-bit value: mixes two seeds into one stream.
#[pyfunction]
fn mix64(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    Ok(core_mix64(args::seed_arg(value)?))
}

/// A `threads` argument as every batch call checks it: `None` or 1..=MAX_THREADS.
#[pyfunction]
#[pyo3(signature = (threads = None))]
fn check_threads(threads: Option<Int>) -> PyResult<Option<usize>> {
    threads_arg(threads)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<events::PyMoveEvents>()?;
    sim::register(m)?;
    games::register(m)?;
    vecenv::register(m)?;
    policy::register(m)?;
    m.add_function(wrap_pyfunction!(nth_output, m)?)?;
    m.add_function(wrap_pyfunction!(mix64, m)?)?;
    m.add_function(wrap_pyfunction!(check_threads, m)?)?;
    Ok(())
}
