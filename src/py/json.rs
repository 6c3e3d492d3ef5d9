//! Plain data between `serde_json::Value` and Python objects (dicts, lists, ints, str, None).
//!
//! The climbing engine describes snapshots, views and results as JSON values; converting them
//! directly avoids a text round trip through `json.dumps`/`json.loads`.
//!
//! [`events_to_py`] turns any serde-serialisable events (the games' per-move event enums) into a
//! list of dicts, through [`PySerializer`] (serde straight to Python objects, no JSON value in
//! between: it runs on every `apply()`).
//!
//! [`from_py`] reads user data (move dicts, snapshots), so it bounds its depth: unbounded recursion
//! over a 20000-deep list overflows the stack (a segfault), and a list containing itself never
//! ends. [`to_py`] only ever converts values the engine built (views, snapshots, moves: a handful
//! of levels), so it needs no bound.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::IntoPyObjectExt;
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
    let items = events
        .iter()
        .map(|event| serde_to_py(py, event))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
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

// ---- serde values straight to Python objects -----------------------------------------------------

/// A serde error carrying the Python error (or serde's message) out of [`PySerializer`].
#[derive(Debug)]
pub struct SerError(PyErr);

impl std::fmt::Display for SerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SerError {}

impl serde::ser::Error for SerError {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        SerError(super::errors::EngineInvariantError::new_err(format!(
            "cannot describe a value: {msg}"
        )))
    }
}

impl From<PyErr> for SerError {
    fn from(e: PyErr) -> Self {
        SerError(e)
    }
}

/// A `serde::Serializer` that builds the Python object directly (dicts, lists, ints, str,
/// None), the same object [`to_py`] makes of `serde_json::to_value`, without the intermediate
/// JSON value: `apply()` describes every move this way, so it sits on the Python-driven loops'
/// path. Field names are interned (`type`, `player`, … are the same few strings every time).
#[derive(Clone, Copy)]
pub struct PySerializer<'py>(pub Python<'py>);

type Obj<'py> = Bound<'py, PyAny>;

fn obj<'py, T: IntoPyObject<'py>>(py: Python<'py>, v: T) -> Result<Obj<'py>, SerError> {
    v.into_bound_py_any(py).map_err(SerError)
}

/// `value` as a Python object.
pub fn serde_to_py<'py, T: serde::Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Obj<'py>> {
    value.serialize(PySerializer(py)).map_err(|e| e.0)
}

pub struct SeqSer<'py> {
    py: Python<'py>,
    items: Vec<Obj<'py>>,
    /// An externally tagged tuple variant's name: the list is wrapped as `{name: [...]}`.
    variant: Option<&'static str>,
    /// A serde tuple (a fixed-size record such as a pile play) becomes a Python tuple, as
    /// Python code writes records; a sequence becomes a list.
    tuple: bool,
}

pub struct MapSer<'py> {
    dict: Bound<'py, PyDict>,
    key: Option<Obj<'py>>,
    /// An externally tagged struct variant's name: the dict is wrapped as `{name: {...}}`.
    variant: Option<&'static str>,
}

fn wrap<'py>(
    py: Python<'py>,
    variant: Option<&'static str>,
    inner: Obj<'py>,
) -> Result<Obj<'py>, SerError> {
    match variant {
        None => Ok(inner),
        Some(name) => {
            let d = PyDict::new(py);
            d.set_item(PyString::intern(py, name), inner)?;
            Ok(d.into_any())
        }
    }
}

impl<'py> serde::Serializer for PySerializer<'py> {
    type Ok = Obj<'py>;
    type Error = SerError;
    type SerializeSeq = SeqSer<'py>;
    type SerializeTuple = SeqSer<'py>;
    type SerializeTupleStruct = SeqSer<'py>;
    type SerializeTupleVariant = SeqSer<'py>;
    type SerializeMap = MapSer<'py>;
    type SerializeStruct = MapSer<'py>;
    type SerializeStructVariant = MapSer<'py>;

    fn serialize_bool(self, v: bool) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_i8(self, v: i8) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_i16(self, v: i16) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_i32(self, v: i32) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_i64(self, v: i64) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_u8(self, v: u8) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_u16(self, v: u16) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_u32(self, v: u32) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_u64(self, v: u64) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_f32(self, v: f32) -> Result<Obj<'py>, SerError> {
        obj(self.0, f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<Obj<'py>, SerError> {
        obj(self.0, v)
    }
    fn serialize_char(self, v: char) -> Result<Obj<'py>, SerError> {
        obj(self.0, v.to_string())
    }
    fn serialize_str(self, v: &str) -> Result<Obj<'py>, SerError> {
        Ok(PyString::new(self.0, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Obj<'py>, SerError> {
        obj(self.0, v.to_vec())
    }
    fn serialize_none(self) -> Result<Obj<'py>, SerError> {
        Ok(self.0.None().into_bound(self.0))
    }
    fn serialize_some<T: serde::Serialize + ?Sized>(self, v: &T) -> Result<Obj<'py>, SerError> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Obj<'py>, SerError> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Obj<'py>, SerError> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Obj<'py>, SerError> {
        Ok(PyString::intern(self.0, variant).into_any())
    }
    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<Obj<'py>, SerError> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Obj<'py>, SerError> {
        let inner = v.serialize(self)?;
        wrap(self.0, Some(variant), inner)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'py>, SerError> {
        Ok(SeqSer {
            py: self.0,
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
            tuple: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'py>, SerError> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.tuple = true;
        Ok(seq)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<SeqSer<'py>, SerError> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<SeqSer<'py>, SerError> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<MapSer<'py>, SerError> {
        Ok(MapSer {
            dict: PyDict::new(self.0),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapSer<'py>, SerError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<MapSer<'py>, SerError> {
        let mut map = self.serialize_map(Some(len))?;
        map.variant = Some(variant);
        Ok(map)
    }
}

impl<'py> SeqSer<'py> {
    fn push<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        self.items.push(v.serialize(PySerializer(self.py))?);
        Ok(())
    }
    fn finish(self) -> Result<Obj<'py>, SerError> {
        let items = if self.tuple {
            pyo3::types::PyTuple::new(self.py, self.items)?.into_any()
        } else {
            PyList::new(self.py, self.items)?.into_any()
        };
        wrap(self.py, self.variant, items)
    }
}

macro_rules! seq_impl {
    ($trait:ident, $method:ident) => {
        impl<'py> serde::ser::$trait for SeqSer<'py> {
            type Ok = Obj<'py>;
            type Error = SerError;
            fn $method<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
                self.push(v)
            }
            fn end(self) -> Result<Obj<'py>, SerError> {
                self.finish()
            }
        }
    };
}
seq_impl!(SerializeSeq, serialize_element);
seq_impl!(SerializeTuple, serialize_element);
seq_impl!(SerializeTupleStruct, serialize_field);
seq_impl!(SerializeTupleVariant, serialize_field);

impl<'py> MapSer<'py> {
    fn field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), SerError> {
        let py = self.dict.py();
        self.dict
            .set_item(PyString::intern(py, key), v.serialize(PySerializer(py))?)?;
        Ok(())
    }
    fn finish(self) -> Result<Obj<'py>, SerError> {
        let py = self.dict.py();
        wrap(py, self.variant, self.dict.into_any())
    }
}

impl<'py> serde::ser::SerializeMap for MapSer<'py> {
    type Ok = Obj<'py>;
    type Error = SerError;
    fn serialize_key<T: serde::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerError> {
        self.key = Some(key.serialize(PySerializer(self.dict.py()))?);
        Ok(())
    }
    fn serialize_value<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> Result<(), SerError> {
        let key = self.key.take().ok_or_else(|| {
            <SerError as serde::ser::Error>::custom("a map value without its key")
        })?;
        let value = v.serialize(PySerializer(self.dict.py()))?;
        self.dict.set_item(key, value)?;
        Ok(())
    }
    fn end(self) -> Result<Obj<'py>, SerError> {
        self.finish()
    }
}

impl<'py> serde::ser::SerializeStruct for MapSer<'py> {
    type Ok = Obj<'py>;
    type Error = SerError;
    fn serialize_field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), SerError> {
        self.field(key, v)
    }
    fn end(self) -> Result<Obj<'py>, SerError> {
        self.finish()
    }
}

impl<'py> serde::ser::SerializeStructVariant for MapSer<'py> {
    type Ok = Obj<'py>;
    type Error = SerError;
    fn serialize_field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), SerError> {
        self.field(key, v)
    }
    fn end(self) -> Result<Obj<'py>, SerError> {
        self.finish()
    }
}
