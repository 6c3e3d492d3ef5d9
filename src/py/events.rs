//! `MoveEvents`: what `apply()` returns — the events of one move, turned into Python dicts only
//! when they are read.
//!
//! A Python loop that plays moves and ignores what they did (a random playout, a training
//! rollout) must not pay for building dicts: in Panda Head that costs several times the move
//! itself. So `apply()` hands back a small read-only sequence holding a copy of the move's core
//! events (plain Rust values, one to a few per move); indexing, iterating or comparing it builds
//! the dicts (the same ones `history` holds).
//!
//! It holds no reference to the game, so a game can keep the last ones it returned and fill one
//! again at its next move when nobody else holds it (reference count 1, the way CPython's `zip`
//! reuses its result tuple): a loop that drops what `apply()` returned allocates nothing per
//! move. Making and freeing a Python object at every move was a tenth of such a loop's time.

use std::any::Any;

use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};

use super::json::events_to_py;

/// A move's events in their core type, behind one object-safe interface (one implementation
/// for every game's event type: `Vec<E>`).
pub trait HeldEvents: Send + Sync {
    fn count(&self) -> usize;
    /// Events `from..to` as a list of dicts.
    fn to_py<'py>(&self, py: Python<'py>, from: usize, to: usize) -> PyResult<Bound<'py, PyList>>;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<E: serde::Serialize + Clone + Send + Sync + 'static> HeldEvents for Vec<E> {
    fn count(&self) -> usize {
        self.len()
    }
    fn to_py<'py>(&self, py: Python<'py>, from: usize, to: usize) -> PyResult<Bound<'py, PyList>> {
        events_to_py(py, self.get(from..to).unwrap_or_default())
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The events of one move (a read-only sequence of event dicts; compares equal to the list of
/// the same dicts).
#[pyclass(
    name = "MoveEvents",
    module = "panda_core._core",
    sequence,
    freelist = 64
)]
pub struct PyMoveEvents {
    held: Box<dyn HeldEvents>,
}

/// Where a game object keeps the last two `MoveEvents` it returned, to fill again (see the module
/// comment). Two, because `events = game.apply(m)` in a loop still holds the previous one while
/// the next is made. A copy of the game starts without any: two games never share one.
#[derive(Default)]
pub struct SpareEvents {
    slots: [Option<Py<PyMoveEvents>>; 2],
    /// The slot a new one replaces when both are held elsewhere (the older one).
    next: usize,
}

impl Clone for SpareEvents {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl SpareEvents {
    /// The events of a move, `events`, as a `MoveEvents`: a spare one refilled when only this
    /// game holds it, else a new one (which becomes a spare).
    pub fn hand_out<E>(&mut self, py: Python<'_>, events: &[E]) -> PyResult<Py<PyMoveEvents>>
    where
        E: serde::Serialize + Clone + Send + Sync + 'static,
    {
        for spare in self.slots.iter().flatten() {
            let bound = spare.bind(py);
            // Count 1: the reference is this slot's own, so nobody can see the object change.
            if bound.get_refcnt() != 1 {
                continue;
            }
            if let Ok(mut this) = bound.try_borrow_mut() {
                if let Some(held) = this.held.as_any_mut().downcast_mut::<Vec<E>>() {
                    held.clear();
                    held.extend_from_slice(events);
                    return Ok(spare.clone_ref(py));
                }
            }
        }
        let fresh = Py::new(
            py,
            PyMoveEvents {
                held: Box::new(events.to_vec()),
            },
        )?;
        self.slots[self.next] = Some(fresh.clone_ref(py));
        self.next = 1 - self.next;
        Ok(fresh)
    }
}

impl PyMoveEvents {
    fn len(&self) -> usize {
        self.held.count()
    }

    fn list<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.held.to_py(py, 0, self.len())
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
        let at = at as usize;
        self.held.to_py(py, at, at + 1)?.get_item(0)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.list(py)?.as_any().try_iter()?.into_any())
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mine = self.list(py)?;
        if let Ok(theirs) = other.cast::<PyMoveEvents>() {
            return mine.eq(theirs.try_borrow()?.list(py)?);
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
