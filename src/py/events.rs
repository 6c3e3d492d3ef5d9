//! `MoveEvents`: what `apply()` returns — the events of one move, turned into Python dicts only
//! when they are read.
//!
//! A Python loop that plays moves and ignores what they did (a random playout, a training
//! rollout) must not pay for building dicts: in Panda Head that costs several times the move
//! itself. So `apply()` hands back a small read-only sequence that points into the game's event
//! log; indexing, iterating or comparing it builds the dicts (the same ones `history` holds).

use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};

/// Reads events `from..to` of a game object as a list of dicts (one instance per game class:
/// `py::game_class::read_events`).
pub type ReadEvents = for<'py> fn(&Bound<'py, PyAny>, usize, usize) -> PyResult<Bound<'py, PyList>>;

/// The events of one move (a read-only sequence of event dicts; compares equal to the list of
/// the same dicts). It holds the game and the move's place in the game's event log, which only
/// ever grows: nothing is copied until it is read.
#[pyclass(
    name = "MoveEvents",
    module = "panda_core._core",
    frozen,
    sequence,
    freelist = 64
)]
pub struct PyMoveEvents {
    game: Py<PyAny>,
    from: usize,
    to: usize,
    read: ReadEvents,
}

impl PyMoveEvents {
    /// Events `from..to` of `game`'s log, read by `read`.
    pub fn new(game: Py<PyAny>, from: usize, to: usize, read: ReadEvents) -> Self {
        Self {
            game,
            from,
            to,
            read,
        }
    }

    fn len(&self) -> usize {
        self.to - self.from
    }

    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        (self.read)(self.game.bind(py), self.from, self.to)
    }
}

#[pymethods]
impl PyMoveEvents {
    fn __len__(&self) -> usize {
        self.len()
    }

    /// An event by index (negative from the end), or a list of them for a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = index.cast::<PySlice>() {
            return self.list(py)?.as_any().get_item(slice);
        }
        let i: isize = index.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "MoveEvents indices are integers or slices, not {}",
                super::args::type_name(index)
            ))
        })?;
        let n = self.len() as isize;
        let at = if i < 0 { i + n } else { i };
        if !(0..n).contains(&at) {
            return Err(pyo3::exceptions::PyIndexError::new_err(format!(
                "event index {i} out of range for {n} events"
            )));
        }
        let at = self.from + at as usize;
        (self.read)(self.game.bind(py), at, at + 1)?.get_item(0)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.list(py)?.as_any().try_iter()?.into_any())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.list(py)?;
        if let Ok(theirs) = other.cast::<PyMoveEvents>() {
            return mine.eq(theirs.get().list(py)?);
        }
        match other.cast::<PyList>() {
            Ok(list) => mine.eq(list),
            Err(_) => Ok(false),
        }
    }

    fn __bool__(&self) -> bool {
        self.len() > 0
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("MoveEvents({})", self.list(py)?.repr()?))
    }

    /// The events as a plain list of dicts.
    fn to_list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.list(py)
    }
}
