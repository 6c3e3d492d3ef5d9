//! `MoveEvents`: what `apply()` returns — the events of one move, turned into Python dicts only
//! when they are read.
//!
//! A Python loop that plays moves and ignores what they did (a random playout, a training
//! rollout) must not pay for building dicts: in Panda Head that costs several times the move
//! itself. So `apply()` hands back the move's events as Rust values behind a small read-only
//! sequence; indexing, iterating or comparing it builds the dicts (the same ones `history`
//! holds).

use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};
use serde::Serialize;

use super::json::{events_to_py, serde_to_py};

/// Events of one game kind, readable one by one.
trait EventRows: Send + Sync {
    fn len(&self) -> usize;
    fn item<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyAny>>;
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>>;
}

impl<E: Serialize + Send + Sync> EventRows for Vec<E> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn item<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyAny>> {
        serde_to_py(py, &self[index])
    }
    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        events_to_py(py, self)
    }
}

/// The events of one move (a read-only sequence of event dicts; compares equal to the list of
/// the same dicts).
#[pyclass(name = "MoveEvents", module = "panda_core._core", frozen, sequence)]
pub struct PyMoveEvents {
    rows: Box<dyn EventRows>,
}

impl PyMoveEvents {
    pub fn new<E: Serialize + Send + Sync + 'static>(events: Vec<E>) -> Self {
        Self {
            rows: Box::new(events),
        }
    }
}

#[pymethods]
impl PyMoveEvents {
    fn __len__(&self) -> usize {
        self.rows.len()
    }

    /// An event by index (negative from the end), or a list of them for a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = index.cast::<PySlice>() {
            return self.rows.list(py)?.as_any().get_item(slice);
        }
        let i: isize = index.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "MoveEvents indices are integers or slices, not {}",
                super::args::type_name(index)
            ))
        })?;
        let n = self.rows.len() as isize;
        let at = if i < 0 { i + n } else { i };
        if !(0..n).contains(&at) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "event index {i} out of range for {n} events"
            )));
        }
        self.rows.item(py, at as usize)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.rows.list(py)?.as_any().try_iter()?.into_any())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.rows.list(py)?;
        if let Ok(theirs) = other.cast::<PyMoveEvents>() {
            return mine.eq(theirs.get().rows.list(py)?);
        }
        match other.cast::<PyList>() {
            Ok(list) => mine.eq(list),
            Err(_) => Ok(false),
        }
    }

    fn __bool__(&self) -> bool {
        self.rows.len() > 0
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("MoveEvents({})", self.rows.list(py)?.repr()?))
    }

    /// The events as a plain list of dicts.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.rows.list(py)
    }
}
