//! Argument conversion shared by every binding: one place decides what counts as an integer, a
//! seat, a count or a thread count, and how a refused value is shown in the message.
//!
//! Why not plain `i64`/`u8` parameters: PyO3 then accepts `True` as 1 (`apply_action(False)` would
//! play a pass), raises `OverflowError` for `2**64` (not a panda-core error) and cannot say which
//! range is allowed. [`Int`] accepts exactly what Python itself treats as an index (`int` and
//! anything with `__index__`, such as numpy integers), refuses `bool`, floats and strings with a
//! `TypeError`, and keeps any size of integer so the range check can report the real value.

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

// The message cutters live with the error mapping that uses them; re-exported for the bindings.
pub use super::errors::{cut_message, cut_to};
use super::errors::{ArgumentError, InvalidStateError, RulesError};

/// Longest piece of a user's value quoted in an error message (a 10 MB notation string must not
/// become a 20 MB message).
pub const SHOWN_CHARS: usize = 60;

/// `text` cut to [`SHOWN_CHARS`] characters, with the full length said when it was cut.
pub fn cut(text: &str) -> String {
    cut_to(text, SHOWN_CHARS)
}

/// The `repr()` of a user's value, cut to a sane length for a message.
pub fn shown(obj: &Bound<'_, PyAny>) -> String {
    match obj.repr() {
        Ok(r) => cut(&r.to_string_lossy()),
        Err(_) => format!("<{} object>", type_name(obj)),
    }
}

/// The Python type name of `obj`, for "expected …, got <type>" messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".into())
}

/// An integer argument as Python sees one: an `int` or an object with `__index__` (numpy
/// integers), never a `bool`. The value saturates at the ends of `i128`, far outside every range
/// the bindings accept, so the range check still refuses it with its true sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Int(pub i128);

impl<'a, 'py> FromPyObject<'a, 'py> for Int {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        int_value(&obj)
    }
}

/// The integer value of `obj`, or a `TypeError` naming what was passed instead.
pub fn int_value(obj: &Bound<'_, PyAny>) -> PyResult<Int> {
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "expected an int, got a bool ({})",
            shown(obj)
        )));
    }
    let index = if obj.is_instance_of::<PyInt>() {
        obj.clone()
    } else if obj.hasattr("__index__")? {
        // numpy integers and other index-like objects: exactly `operator.index(obj)`.
        obj.call_method0("__index__")?
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected an int, got {} {}",
            type_name(obj),
            shown(obj)
        )));
    };
    // Fast path: every value a binding accepts fits an i64 (on abi3, i128 extraction goes through
    // Python-level calls, microseconds per argument).
    if let Ok(v) = index.extract::<i64>() {
        return Ok(Int(v.into()));
    }
    match index.extract::<i128>() {
        Ok(v) => Ok(Int(v)),
        Err(e) if e.is_instance_of::<PyOverflowError>(obj.py()) => {
            let negative = index.lt(0)?;
            Ok(Int(if negative { i128::MIN } else { i128::MAX }))
        }
        Err(e) => Err(e),
    }
}

/// How an out-of-range value is written: the saturated ends are "huge" rather than a misleading
/// number (`2**200` is not `170141183460469231731687303715884105727`).
pub use crate::error::written;

impl From<i64> for Int {
    fn from(v: i64) -> Self {
        Int(i128::from(v))
    }
}

impl Int {
    /// The value as an error message writes it (see [`written`]).
    pub fn written(self) -> String {
        written(self.0)
    }

    /// The value if it lies in `lo..=hi`, else an [`ArgumentError`] naming `what` and the range.
    pub fn in_range(self, what: &str, lo: i128, hi: i128) -> PyResult<i128> {
        if (lo..=hi).contains(&self.0) {
            Ok(self.0)
        } else {
            Err(ArgumentError::new_err(format!(
                "{what} must be in {lo}..={hi}, got {}",
                written(self.0)
            )))
        }
    }

    /// A seat of a `players`-player table.
    pub fn seat(self, players: u8) -> PyResult<u8> {
        let last = i128::from(players) - 1;
        Ok(self.in_range("seat", 0, last)? as u8)
    }

    /// A count (games, environments, iterations) in `0..=max`.
    pub fn count(self, what: &str, max: usize) -> PyResult<usize> {
        Ok(self.in_range(what, 0, max as i128)? as usize)
    }

    /// An index into a collection of `len` items (`env.game(i)`).
    pub fn index(self, what: &str, len: usize) -> PyResult<usize> {
        if len == 0 {
            return Err(ArgumentError::new_err(format!(
                "{what}: the collection is empty, got {}",
                written(self.0)
            )));
        }
        Ok(self.in_range(what, 0, len as i128 - 1)? as usize)
    }
}

/// An optional `threads` argument: `None` (the default: every core) or `1..=MAX_THREADS` (the
/// core's bound on one pool, see `crate::pool`).
pub fn threads_arg(threads: Option<Int>) -> PyResult<Option<usize>> {
    use crate::pool::MAX_THREADS;
    threads
        .map(|t| Ok(t.in_range("threads", 1, MAX_THREADS as i128)? as usize))
        .transpose()
}

/// A `str` argument as Rust text. A Python `str` may hold lone surrogates (`"\\ud800"`), which
/// UTF-8 cannot: PyO3's `&str` raises `UnicodeEncodeError` for them, outside the error contract.
/// They become U+FFFD instead; no name, notation or record holds that character, so the value is
/// then refused by the very check it was meant for, with that check's error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text(pub String);

impl Text {
    /// A default value in a `#[pyo3(signature)]`.
    pub fn new(text: &str) -> Self {
        Text(text.to_owned())
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Text {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.cast::<PyString>() {
            Ok(s) => Ok(Text(text_of(&s))),
            Err(_) => Err(PyTypeError::new_err(format!(
                "expected a str, got {} {}",
                type_name(&obj),
                shown(&obj)
            ))),
        }
    }
}

/// The text of a Python `str`, lone surrogates as U+FFFD (see [`Text`]).
pub fn text_of(s: &Bound<'_, PyString>) -> String {
    s.to_string_lossy().into_owned()
}

/// A file path argument: a `str` or an `os.PathLike` whose `os.fspath()` is a `str` (such as
/// `pathlib.Path`). Bytes paths are refused: the path is kept as text (the `deck` getter, pickle).
pub fn path_arg(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = if obj.is_instance_of::<PyString>() {
        obj.clone()
    } else if obj.hasattr("__fspath__")? {
        obj.py().import("os")?.call_method1("fspath", (obj,))?
    } else {
        return Err(PyTypeError::new_err(format!(
            "a path is a str or an os.PathLike (pathlib.Path), got {} {}",
            type_name(obj),
            shown(obj)
        )));
    };
    match text.cast::<PyString>() {
        // A path is opened as given: a lossy copy would name another file.
        Ok(s) => s.to_str().map(str::to_owned).map_err(|_| {
            InvalidStateError::new_err(format!(
                "a path must be valid Unicode text (no lone surrogates), got {}",
                shown(&text)
            ))
        }),
        Err(_) => Err(PyTypeError::new_err(format!(
            "a path must be text, got {} {}",
            type_name(&text),
            shown(&text)
        ))),
    }
}

/// 2 to 5 players (H-2.1, S-12), refused with a `RulesError` naming the game otherwise.
pub fn players_arg(players: impl Into<Int>, game: &str) -> PyResult<u8> {
    let players = players.into();
    players
        .in_range("players", 2, 5)
        .map(|p| p as u8)
        .map_err(|_| {
            RulesError::new_err(format!(
                "{game} played by 2 to 5 players, got {}",
                players.written()
            ))
        })
}

/// a seed is an integer in 0 … 2**64 − 1 (numpy integers too); anything else, bools
/// included, is a `RulesError`.
pub fn seed_arg(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let refused = || {
        RulesError::new_err(format!(
            "seed must be an integer in 0..2**64-1, got {}",
            shown(seed)
        ))
    };
    let value = int_value(seed).map_err(|_| refused())?;
    u64::try_from(value.0).map_err(|_| refused())
}

/// A rules setting in `lo..=hi`, else a `RulesError` naming it and the range (not an
/// `ArgumentError`: these are the rules of the game, checked as the other rules are).
pub fn rules_int<T: TryFrom<i128>>(
    v: Int,
    what: &str,
    (lo, hi): (i128, i128),
    allowed: &str,
) -> PyResult<T> {
    v.in_range(what, lo, hi)
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| {
            RulesError::new_err(format!("{what} must be {allowed}, got {}", v.written()))
        })
}

/// A value of an explicit position in `0..=max`, else an `InvalidStateError` naming it.
pub fn state_int<T: TryFrom<i128>>(v: Int, what: &str, max: i128) -> PyResult<T> {
    v.in_range(what, 0, max)
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| {
            InvalidStateError::new_err(format!("{what} must be in 0..={max}, got {}", v.written()))
        })
}

/// Longest `time_limit` a bot decision may be given, in seconds (an hour: beyond that a caller
/// meant no limit, which is `None`).
pub const MAX_TIME_LIMIT: f64 = 3600.0;

/// A `time_limit` argument: a number of seconds (an `int`, a `float`, anything with `__index__`
/// or `__float__` such as numpy numbers, never a `bool`; `TypeError` otherwise) in
/// `(0, MAX_TIME_LIMIT]` (`ArgumentError` otherwise, NaN and infinities included).
pub fn time_limit_arg(obj: &Bound<'_, PyAny>) -> PyResult<std::time::Duration> {
    let integer = !obj.is_instance_of::<PyFloat>()
        && (obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?);
    let seconds = if obj.is_instance_of::<PyBool>() {
        None
    } else if integer {
        // Saturated far outside the range, so a huge int is refused by the range check.
        Some(int_value(obj)?.0 as f64)
    } else if obj.is_instance_of::<PyFloat>() || obj.hasattr("__float__")? {
        Some(obj.extract::<f64>()?)
    } else {
        None
    };
    let Some(seconds) = seconds else {
        return Err(PyTypeError::new_err(format!(
            "time_limit is a number of seconds (int or float) or None, got {} {}",
            type_name(obj),
            shown(obj)
        )));
    };
    if seconds > 0.0 && seconds <= MAX_TIME_LIMIT {
        Ok(std::time::Duration::from_secs_f64(seconds))
    } else {
        Err(ArgumentError::new_err(format!(
            "time_limit must be more than 0 and at most {MAX_TIME_LIMIT} seconds, got {}",
            shown(obj)
        )))
    }
}
