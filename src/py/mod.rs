//! The PyO3 binding layer: the compiled module `panda_core._core`.
//!
//! Thin wrappers only: argument conversion, the GIL released around long work, core errors mapped
//! to Python exceptions. No game rule lives here.

mod args;
mod climb;
mod errors;
mod events_shim;
mod game;
mod head;
mod interrupt;
mod json;
mod sim;
mod vecenv;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    head::register(m)?;
    sim::register(m)?;
    climb::register(m)?;
    vecenv::register(m)?;
    Ok(())
}
