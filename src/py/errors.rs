//! The Python exception family and the mapping from core errors to it.
//!
//! Every class derives from `PandaCoreError`, itself a `ValueError`, so `except ValueError` keeps
//! working for users who do not care about the details. The contract (docs/errors.md): every
//! error panda-core raises is one of these, or a `TypeError` for a value of the wrong type.
//! Messages are cut to a sane length ([`cut_message`]): a core message may quote a user's input.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Longest requested move kept in an `IllegalMoveError`: the longest real notations (a five-card
/// set with flips and steals) fit; a 10 MB string does not come back whole.
const REQUESTED_CHARS: usize = 200;
use crate::error::{EngineError, IllegalMove};

/// `text` cut to `chars` characters, with the full length said when it was cut.
pub fn cut_to(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}… ({} characters)", &text[..end], text.chars().count()),
    }
}

/// Longest error message passed on whole. Longer ones (a core message quoting a huge input, or
/// listing hundreds of legal moves) keep their start and their end, where the explanation and the
/// allowed values are, and say how much was left out.
pub const MESSAGE_CHARS: usize = 1200;

/// `message` cut in the middle to about [`MESSAGE_CHARS`] characters.
pub fn cut_message(message: &str) -> String {
    let total = message.chars().count();
    if total <= MESSAGE_CHARS {
        return message.to_owned();
    }
    let head = MESSAGE_CHARS * 2 / 3;
    let tail = MESSAGE_CHARS - head;
    let start: String = message.chars().take(head).collect();
    let end: String = message.chars().skip(total - tail).collect();
    format!(
        "{start} … [{} characters left out] … {end}",
        total - head - tail
    )
}

create_exception!(
    panda_core,
    PandaCoreError,
    PyValueError,
    "Base class of every panda-core error."
);
create_exception!(
    panda_core,
    RulesError,
    PandaCoreError,
    "Invalid rules, settings or player count."
);
create_exception!(
    panda_core,
    PolicyError,
    RulesError,
    "A policy file that cannot be read (damaged, not a panda-core policy, another format \
     version), or a policy that cannot play the game asked of it (another game, another \
     observation layout). The message names the manifest entry at fault."
);
create_exception!(
    panda_core,
    ArgumentError,
    PandaCoreError,
    "An argument outside its allowed range: a seat, an index, a count, a size or a thread count."
);
create_exception!(
    panda_core,
    ConcurrentUseError,
    PandaCoreError,
    "A game was changed while another thread was still using it (a bot thinking, a \
     determinization): the change is refused and the state is unchanged. See docs/errors.md."
);
create_exception!(
    panda_core,
    InvalidStateError,
    PandaCoreError,
    "An explicit position, a game record, a move record or a move notation that is not valid."
);
create_exception!(
    panda_core,
    IllegalMoveError,
    PandaCoreError,
    "A move that is not legal now. Attributes: `move`, `reason`, `legal` (notations). The state \
     is unchanged."
);
create_exception!(
    panda_core,
    GameOverError,
    IllegalMoveError,
    "A move was applied to a game that is over."
);
create_exception!(
    panda_core,
    EngineInvariantError,
    PandaCoreError,
    "The engine detected an impossible situation: a bug in panda-core, please report it. The \
     state is unchanged."
);

/// Convert a core error into the matching Python exception.
pub fn to_py(py: Python<'_>, err: EngineError) -> PyErr {
    match err {
        EngineError::Rules(e) => RulesError::new_err(cut_message(&e.0)),
        EngineError::State(e) => InvalidStateError::new_err(cut_message(&e.0)),
        EngineError::Illegal(e) => {
            // The requested move is the user's text (a 10 MB notation must not come back whole);
            // `legal` stays complete as an attribute, the message only gets its ends.
            let e = IllegalMove {
                requested: cut_to(&e.requested, REQUESTED_CHARS),
                reason: cut_message(&e.reason),
                legal: e.legal,
            };
            let exc = IllegalMoveError::new_err(cut_message(&e.to_string()));
            let value = exc.value(py);
            // Attribute failures cannot happen on a fresh exception; ignore them rather than mask
            // the real error.
            let _ = value.setattr("move", &e.requested);
            let _ = value.setattr("reason", &e.reason);
            let _ = value.setattr("legal", &e.legal);
            exc
        }
        EngineError::Policy(e) => PolicyError::new_err(cut_message(&e.0)),
        EngineError::GameOver => GameOverError::new_err(err.to_string()),
        EngineError::DrawPileExhausted => EngineInvariantError::new_err(err.to_string()),
        EngineError::Invariant(why) => EngineInvariantError::new_err(cut_message(&why)),
    }
}

/// `Result<T, EngineError>` → `PyResult<T>`.
pub trait IntoPyResult<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, EngineError> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}

/// `ConcurrentUseError` for a change refused because another thread is using the game.
pub fn concurrent_use(what: &str) -> PyErr {
    ConcurrentUseError::new_err(format!(
        "this {what} is in use by another thread (a bot thinking or a determinization on it); \
         a game may be read from several threads at once but changed only while no other call \
         on it runs: wait for that call, or give each thread its own copy (game.clone())"
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("PandaCoreError", py.get_type::<PandaCoreError>())?;
    m.add("RulesError", py.get_type::<RulesError>())?;
    m.add("PolicyError", py.get_type::<PolicyError>())?;
    m.add("ArgumentError", py.get_type::<ArgumentError>())?;
    m.add("ConcurrentUseError", py.get_type::<ConcurrentUseError>())?;
    m.add("InvalidStateError", py.get_type::<InvalidStateError>())?;
    m.add("IllegalMoveError", py.get_type::<IllegalMoveError>())?;
    m.add("GameOverError", py.get_type::<GameOverError>())?;
    m.add(
        "EngineInvariantError",
        py.get_type::<EngineInvariantError>(),
    )?;
    Ok(())
}
