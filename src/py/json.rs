//! Plain data between `serde_json::Value` and Python objects (dicts, lists, ints, str, None).
//!
//! The climbing engine describes snapshots, views and results as JSON values; converting them
//! directly avoids a text round trip through `json.dumps`/`json.loads`.
//!
//! [`events_to_py`] turns any serde-serialisable events (the games' per-move event enums) into a
//! list of dicts the same way.
//!
//! [`from_py`] reads user data (move dicts, snapshots), so it bounds its depth: unbounded recursion
//! over a 20000-deep list overflows the stack (a segfault), and a list containing itself never
//! ends. [`to_py`] only ever converts values the engine built (views, snapshots, moves: a handful
//! of levels), so it needs no bound.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

use super::args::{int_value, shown, text_of, type_name};
use super::errors::InvalidStateError;

/// Deepest nesting of dicts and lists accepted from Python: serde_json's own limit for JSON text,
/// so a structure refused as text is refused as objects too. Real snapshots nest 5 levels.
pub const MAX_DEPTH: usize = 128;

/// A JSON value as the equivalent Python object.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// Events (any `Serialize` values: the games' event enums, JSON form `{"type": ..., ...}`) as a
/// Python list of dicts.
pub fn events_to_py<'py, E: serde::Serialize>(
    py: Python<'py>,
    events: &[E],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for event in events {
        let value = serde_json::to_value(event).map_err(|e| {
            super::errors::EngineInvariantError::new_err(format!("cannot describe an event: {e}"))
        })?;
        list.append(to_py(py, &value)?)?;
    }
    Ok(list)
}

/// A Python object made of dicts, lists/tuples, ints (numpy integers too), floats, bools, str and
/// None as a JSON value. Nesting deeper than [`MAX_DEPTH`] (or a cycle) is an `InvalidStateError`,
/// any other kind of object a `TypeError`.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    value_at(obj, 0)
}

fn value_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        return int_json(obj);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(serde_json::Number::from_f64(f.value())
            .map(Value::Number)
            .unwrap_or(Value::Null));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(text_of(s)));
    }
    let is_container = obj.is_instance_of::<PyDict>()
        || obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>();
    if is_container && depth >= MAX_DEPTH {
        return Err(InvalidStateError::new_err(format!(
            "data nested deeper than {MAX_DEPTH} levels of dicts and lists (or containing \
             itself); moves and snapshots nest a few levels"
        )));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "dict keys must be str, got {} {}",
                    type_name(&k),
                    shown(&k)
                ))
            })?;
            map.insert(text_of(key), value_at(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if is_container {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(value_at(&item?, depth + 1)?);
        }
        return Ok(Value::Array(items));
    }
    if obj.hasattr("__index__")? {
        // numpy integers: the same value as `int(obj)`.
        return int_json(obj);
    }
    Err(PyTypeError::new_err(format!(
        "expected plain data (dict, list, int, float, str, bool, None), got {}",
        type_name(obj)
    )))
}

/// An integer as a JSON number: JSON numbers here hold 64 bits, signed or unsigned.
fn int_json(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let v = int_value(obj)?.0;
    if let Ok(u) = u64::try_from(v) {
        return Ok(Value::from(u));
    }
    if let Ok(i) = i64::try_from(v) {
        return Ok(Value::from(i));
    }
    Err(InvalidStateError::new_err(format!(
        "integer out of range (-2**63 .. 2**64-1): {}",
        shown(obj)
    )))
}
