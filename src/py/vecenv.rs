//! Batched environments from Python: `HeadVectorEnv` (and `ClimbVectorEnv`), stepped with the
//! GIL released; outputs are fresh numpy arrays (rows per env), so a caller may keep them.
//!
//! Thread safety: an env is `frozen` with its state behind a mutex, so two Python threads may
//! share one env: their calls run one after the other (each waits with the GIL released), never
//! interleaved inside a step. Large steps and resets run through [`interruptible_if`], so Ctrl-C
//! stops them.

use std::sync::{Mutex, MutexGuard};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyUntypedArray};
use numpy::{PyArrayDescrMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::args::{int_value, shown, threads_arg, type_name, Int};
use super::args::{players_arg, seed_arg};
use super::errors::{to_py, ArgumentError, IllegalMoveError};
use super::game_class::bot_kind;
use super::game_class::{GameClass, StateOf};
use super::interrupt::interruptible_if;
use crate::bots::{BotGame, BotKind};
use crate::contract::{GameState, RecordedGame};
use crate::vecenv::{max_envs, ActionKind, Batch, EnvConfig, EnvGame, StepErrorOr, VecEnv};

/// A step's work is worth a thread (and so Ctrl-C) when its output is this many floats or more
/// (4 MB: about 11,000 Panda Head or 1,100 climbing envs, several milliseconds of work). Smaller
/// steps stay on the calling thread: a thread start (30–100 µs on a busy machine) would cost a
/// few percent of their time, and Python sees a Ctrl-C right after such a short call anyway.
const LONG_STEP_FLOATS: usize = 1 << 20;

/// Actions as int64, one per env: a 1-D numpy array of any integer dtype (strided or not), or a
/// sequence of ints (numpy integers included). Bools, floats (NaN too) and strings are refused
/// with a `TypeError`, never truncated or reinterpreted. Values beyond int64 saturate (and are
/// then refused as out of range by the step, with every env unchanged).
pub fn actions_arg(actions: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    // The common case first: int64, read in place (a strided view element by element).
    if let Ok(a) = actions.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(match a.as_slice() {
            Ok(s) => s.to_vec(),
            Err(_) => a.as_array().iter().copied().collect(),
        });
    }
    if let Ok(array) = actions.cast::<PyUntypedArray>() {
        return numpy_actions(array);
    }
    if actions.is_instance_of::<PyString>() || actions.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(not_actions(actions));
    }
    let items = actions.try_iter().map_err(|_| not_actions(actions))?;
    items.map(|item| int_value(&item?).map(saturated)).collect()
}

/// An integer clamped to int64 (out-of-range values stay out of range for every game).
fn saturated(v: Int) -> i64 {
    v.0.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

fn not_actions(actions: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "actions must be a 1-D array or sequence of ints (one per env), got {} {}",
        type_name(actions),
        shown(actions)
    ))
}

/// A numpy array that is not int64: other integer widths are widened (uint64 above int64
/// saturates), anything else is a `TypeError` naming the dtype.
fn numpy_actions(array: &Bound<'_, PyUntypedArray>) -> PyResult<Vec<i64>> {
    if array.ndim() != 1 {
        return Err(ArgumentError::new_err(format!(
            "actions must be a 1-D array (one action per env), got shape {:?}",
            array.shape()
        )));
    }
    let dtype = array.dtype();
    let (kind, size) = (dtype.kind(), dtype.itemsize());
    let as_int64 = match (kind, size) {
        (b'i', _) | (b'u', 1..=4) => array.call_method1("astype", ("int64",))?,
        (b'u', _) => {
            let np = array.py().import("numpy")?;
            np.call_method1("minimum", (array, i64::MAX as u64))?
                .call_method1("astype", ("int64",))?
        }
        _ => {
            let what = if kind == b'b' {
                "bools are not actions".to_owned()
            } else {
                format!("got a {} array", dtype.str()?)
            };
            return Err(PyTypeError::new_err(format!(
                "actions must be integers (one action id per env); {what}"
            )));
        }
    };
    let a = as_int64.extract::<PyReadonlyArray1<'_, i64>>()?;
    Ok(a.as_array().iter().copied().collect())
}

/// An env count: `1..=max_envs` for the game (checked before anything is allocated).
fn num_envs_arg<G: EnvGame>(n: Int) -> PyResult<usize> {
    Ok(n.in_range("num_envs", 1, max_envs::<G>() as i128)? as usize)
}

/// The env's lock. Waiting happens with the GIL released (the holder may need the GIL to
/// finish). A lock poisoned by a panic inside a step marks the env torn: it then refuses steps
/// until a reset.
pub fn locked<'a, G: EnvGame>(
    py: Python<'_>,
    env: &'a Mutex<VecEnv<G>>,
) -> MutexGuard<'a, VecEnv<G>> {
    loop {
        match env.try_lock() {
            Ok(guard) => return guard,
            Err(std::sync::TryLockError::Poisoned(poisoned)) => {
                env.clear_poison();
                let mut guard = poisoned.into_inner();
                guard.mark_torn();
                return guard;
            }
            Err(std::sync::TryLockError::WouldBlock) => py.detach(|| drop(env.lock())),
        }
    }
}

/// A row-major buffer as an `(n, len / n)` numpy array, without a copy (one array object, not
/// an array and a reshaped view of it: this is most of a small batch's step time).
fn rows<T: numpy::Element>(
    py: Python<'_>,
    v: Vec<T>,
    n: usize,
) -> PyResult<Bound<'_, PyArray2<T>>> {
    let cols = v.len() / n.max(1);
    let a = Array2::from_shape_vec((n, cols), v)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py))
}

/// `(obs, mask, current_player)` after a reset.
pub fn reset_tuple(py: Python<'_>, b: Batch) -> PyResult<Bound<'_, PyTuple>> {
    let n = b.current_player.len();
    (
        rows(py, b.observations, n)?,
        rows(py, b.masks, n)?,
        b.current_player.into_pyarray(py),
    )
        .into_pyobject(py)
}

/// `(obs, mask, rewards, terminated, current_player)` after a step.
pub fn step_tuple(py: Python<'_>, b: Batch) -> PyResult<Bound<'_, PyTuple>> {
    let n = b.current_player.len();
    (
        rows(py, b.observations, n)?,
        rows(py, b.masks, n)?,
        rows(py, b.rewards, n)?,
        b.terminated.into_pyarray(py),
        b.current_player.into_pyarray(py),
    )
        .into_pyobject(py)
}

/// A refused step as `IllegalMoveError` with `.env`, `.move` (the refused action), `.reason`
/// and `.legal` (the actions that env accepts, as the step takes them).
pub fn step_error(py: Python<'_>, e: StepErrorOr) -> PyErr {
    match e {
        StepErrorOr::Engine(e) => to_py(py, e),
        StepErrorOr::Step(e) => {
            let exc = IllegalMoveError::new_err(format!("env {}: {}", e.env, e.reason));
            let value = exc.value(py);
            // Attribute failures cannot happen on a fresh exception; ignore them rather than mask
            // the real error.
            let _ = value.setattr("env", e.env);
            let _ = value.setattr("move", e.action);
            let _ = value.setattr("reason", &e.reason);
            let _ = value.setattr("legal", &e.legal);
            exc
        }
        // Only seen when the signal's own exception was already returned; kept as an error.
        StepErrorOr::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
    }
}

/// Whether a step of `env` is big enough to run interruptibly on a worker thread.
pub fn long_step<G: EnvGame>(env: &VecEnv<G>) -> bool {
    env.num_envs() * env.observation_size() >= LONG_STEP_FLOATS
}

/// Reset `env`, GIL released, stoppable by Ctrl-C when large.
pub fn reset_env<'py, G: EnvGame>(
    py: Python<'py>,
    env: &Mutex<VecEnv<G>>,
    seed: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
    let mut env = locked(py, env);
    let long = long_step(&env);
    let env = &mut *env;
    let batch = interruptible_if(py, long, |stop| env.reset_until(seed, stop))?
        .map_err(|e| step_error(py, e))?;
    reset_tuple(py, batch)
}

/// Step `env` with actions of `kind`, GIL released, stoppable by Ctrl-C when large.
pub fn step_env<'py, G: EnvGame>(
    py: Python<'py>,
    env: &Mutex<VecEnv<G>>,
    actions: &Bound<'py, PyAny>,
    kind: ActionKind,
) -> PyResult<Bound<'py, PyTuple>> {
    let actions = actions_arg(actions)?;
    let mut env = locked(py, env);
    let long = long_step(&env);
    let env = &mut *env;
    let batch = interruptible_if(py, long, |stop| env.step_as_until(&actions, kind, stop))?
        .map_err(|e| step_error(py, e))?;
    step_tuple(py, batch)
}

/// A game's vector-env class, `vector_env_class!(PyHeadVectorEnv, "HeadVectorEnv", PyHeadGame,
/// "docstring")`, in the game's binding file: the struct and every method, generic over the
/// game's class (a game's extras, such as the climbing games' `legal_move_features`, go in a
/// `#[pymethods]` block of its own). Each method is a one-line call of a helper here; the
/// calling module has `pyo3::prelude::*` in scope.
macro_rules! vector_env_class {
    ($class:ident, $label:literal, $game:ty, $doc:literal) => {
        #[doc = $doc]
        #[pyo3::pyclass(name = $label, module = "panda_core._core", frozen)]
        pub struct $class {
            pub env:
                std::sync::Mutex<$crate::vecenv::VecEnv<$crate::py::game_class::StateOf<$game>>>,
        }

        #[pyo3::pymethods]
        impl $class {
            /// `num_envs` games of `players` seats under `rules` (the game's rules class, its
            /// defaults when `None`), stepped over `threads` threads (all cores when `None`).
            #[new]
            #[pyo3(signature = (num_envs, players = $crate::py::args::Int(4), rules = None,
                                                threads = None),
                                text_signature = "(num_envs, players=4, rules=None, threads=None)")]
            fn new(
                py: Python<'_>,
                num_envs: $crate::py::args::Int,
                players: $crate::py::args::Int,
                rules: Option<<$game as $crate::py::game_class::GameClass>::Rules>,
                threads: Option<$crate::py::args::Int>,
            ) -> PyResult<Self> {
                let env =
                    $crate::py::vecenv::new_env::<$game>(py, num_envs, players, rules, threads)?;
                Ok(Self {
                    env: std::sync::Mutex::new(env),
                })
            }

            /// A copy of env `i`'s game in progress, as the game's class (view, observation,
            /// legal moves, bots; playing the copy does not move the env). It starts at the
            /// current position: it has no history before it.
            fn game(&self, py: Python<'_>, i: $crate::py::args::Int) -> PyResult<$game> {
                $crate::py::vecenv::env_game::<$game>(py, &self.env, i)
            }

            /// The rules every env plays by.
            #[getter]
            fn rules(&self, py: Python<'_>) -> <$game as $crate::py::game_class::GameClass>::Rules {
                let env = $crate::py::vecenv::locked(py, &self.env);
                <$game as $crate::py::game_class::GameClass>::rules_of(&env.config().settings)
            }
            #[getter]
            fn num_envs(&self, py: Python<'_>) -> usize {
                $crate::py::vecenv::locked(py, &self.env).num_envs()
            }
            #[getter]
            fn players(&self, py: Python<'_>) -> u8 {
                $crate::py::vecenv::locked(py, &self.env).players()
            }
            #[getter]
            fn threads(&self, py: Python<'_>) -> usize {
                $crate::py::vecenv::locked(py, &self.env).threads()
            }
            #[getter]
            fn observation_size(&self, py: Python<'_>) -> usize {
                $crate::py::vecenv::locked(py, &self.env).observation_size()
            }
            #[getter]
            fn num_actions(&self, py: Python<'_>) -> usize {
                $crate::py::vecenv::locked(py, &self.env).num_actions()
            }

            /// Deal a new game in every env; env `i`'s games are seeded from its own SplitMix64
            /// stream started at `nth_output(seed, i)`. Returns `(observations, masks,
            /// current_player)`.
            #[pyo3(signature = (seed = None))]
            fn reset<'py>(
                &self,
                py: Python<'py>,
                seed: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::py::vecenv::reset_env(py, &self.env, seed)
            }

            /// Apply one action per env (Panda Head: an action id; climbing: an abstract action).
            /// Returns `(observations, masks, rewards, terminated, current_player)`; finished
            /// games restart at once (same-step auto-reset). A refused action raises
            /// `IllegalMoveError` (`.env` names the env, `.legal` its legal actions) and moves no
            /// env.
            fn step<'py>(
                &self,
                py: Python<'py>,
                actions: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::py::vecenv::step_env(
                    py,
                    &self.env,
                    actions,
                    $crate::vecenv::ActionKind::Action,
                )
            }

            /// Like `step`, but each action is an index into that env's legal-move list, in
            /// canonical order (climbing: the rows of `legal_move_features()`, so every legal
            /// move is reachable; Panda Head: the legal action ids in increasing order).
            fn step_moves<'py>(
                &self,
                py: Python<'py>,
                indices: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::py::vecenv::step_env(
                    py,
                    &self.env,
                    indices,
                    $crate::vecenv::ActionKind::MoveIndex,
                )
            }

            /// The move the built-in bot `bot` picks for the player to move in every env, as
            /// `step_moves` takes it (int64, one per env); env `i`'s bot draws from
            /// `nth_output(seed, i)`. Ctrl-C stops a search.
            #[pyo3(signature = (bot, seed = None))]
            fn bot_moves<'py>(
                &self,
                py: Python<'py>,
                bot: &str,
                seed: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
                $crate::py::vecenv::bot_moves(py, &self.env, bot, seed)
            }

            /// `(ended, values)` of the last step: `ended[i]` is true when env `i`'s step ended
            /// a round (a hand in Panda Head; the step that ends a game ends its last round
            /// too), and `values[i, seat]` (float32, `num_envs × players`, absolute seats) is
            /// that round's value for each seat in `[-1, 1]`: twice the value ISMCTS gives a
            /// round's end, minus one (1 for the game's winner; Panda Head: the hand's points,
            /// fewer is better; climbing: the points gained, relative to the others). Zero
            /// where no round ended; a reset ends none.
            fn round_results<'py>(
                &self,
                py: Python<'py>,
            ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
                $crate::py::vecenv::round_results(py, &self.env)
            }

            /// The number of episodes env `i` has started since the last reset.
            fn episodes(&self, py: Python<'_>, i: $crate::py::args::Int) -> PyResult<u64> {
                let env = $crate::py::vecenv::locked(py, &self.env);
                let i = i.index("env", env.num_envs())?;
                Ok(env.episodes(i).unwrap_or_default())
            }

            /// Pickling and `copy`: the env's whole state as JSON text (every game, its seed
            /// stream, the configuration and thread count), rebuilt and checked by
            /// `_from_state`. The copy steps exactly like the original.
            fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
                let text = $crate::py::vecenv::save_env(slf.py(), &slf.get().env);
                Ok((slf.get_type().getattr("_from_state")?, (text,)))
            }

            /// Rebuild an env from `__reduce__`'s text (`InvalidStateError` if it is not one).
            #[classmethod]
            fn _from_state(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                state: &str,
            ) -> PyResult<Self> {
                let env = $crate::py::vecenv::load_env(py, state)?;
                Ok(Self {
                    env: std::sync::Mutex::new(env),
                })
            }

            fn __repr__(&self, py: Python<'_>) -> String {
                $crate::py::vecenv::repr($label, &$crate::py::vecenv::locked(py, &self.env))
            }
        }
    };
}

pub(crate) use vector_env_class;

/// `bot_moves(bot, seed)`: a built-in bot's move in every env (see the class method).
pub fn bot_moves<'py, G: EnvGame + BotGame>(
    py: Python<'py>,
    env: &Mutex<VecEnv<G>>,
    bot: &str,
    seed: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let kind = bot_kind(bot)?;
    let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
    let env = locked(py, env);
    let long = long_step(&env) || matches!(kind, BotKind::Ismcts { .. } | BotKind::Guided { .. });
    let env = &*env;
    let moves = interruptible_if(py, long, |stop| env.bot_moves_until(&kind, seed, stop))?
        .map_err(|e| to_py(py, e))?
        .ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))?;
    Ok(moves.into_pyarray(py))
}

/// `round_results()`: the last step's round ends and values (see the class method).
pub fn round_results<'py, G: EnvGame>(
    py: Python<'py>,
    env: &Mutex<VecEnv<G>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let mut env = locked(py, env);
    let (ended, values) = env.round_results();
    let n = ended.len();
    (
        ended.to_vec().into_pyarray(py),
        rows(py, values.to_vec(), n)?,
    )
        .into_pyobject(py)
}

/// The save form of an env (pickling), written with the GIL released.
pub fn save_env<G: EnvGame>(py: Python<'_>, env: &Mutex<VecEnv<G>>) -> String {
    let env = locked(py, env);
    let env = &*env;
    py.detach(|| env.save())
}

/// An env rebuilt from its save form, checked.
pub fn load_env<G: EnvGame>(py: Python<'_>, state: &str) -> PyResult<VecEnv<G>> {
    py.detach(|| VecEnv::load(state)).map_err(|e| to_py(py, e))
}

/// `repr()` of an env.
pub fn repr<G: EnvGame>(label: &str, env: &VecEnv<G>) -> String {
    format!(
        "<{label} {} envs, {} players, {} threads>",
        env.num_envs(),
        env.players(),
        env.threads()
    )
}

/// A new env of game `G`'s class: every argument checked before anything is allocated.
pub fn new_env<G: GameClass>(
    py: Python<'_>,
    num_envs: Int,
    players: Int,
    rules: Option<G::Rules>,
    threads: Option<Int>,
) -> PyResult<VecEnv<StateOf<G>>>
where
    StateOf<G>: EnvGame,
{
    let config = EnvConfig::<StateOf<G>> {
        players: players_arg(players, G::NAMED)?,
        settings: rules.map(|r| G::settings_of(&r)).unwrap_or_default(),
    };
    StateOf::<G>::validate(config.players, &config.settings).map_err(|e| to_py(py, e))?;
    let num_envs = num_envs_arg::<StateOf<G>>(num_envs)?;
    let threads = threads_arg(threads)?;
    py.detach(|| VecEnv::new(config, num_envs, threads))
        .map_err(|e| to_py(py, e))
}

/// A copy of env `i`'s game as an object of `G`'s class.
pub fn env_game<G: GameClass>(
    py: Python<'_>,
    env: &Mutex<VecEnv<StateOf<G>>>,
    i: Int,
) -> PyResult<G>
where
    StateOf<G>: EnvGame,
{
    let env = locked(py, env);
    let i = i.index("env", env.num_envs())?;
    let state = env.game(i).expect("checked index");
    let copy = py.detach(|| G::Core::from_position(state));
    Ok(G::from_core(copy.map_err(|e| to_py(py, e))?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_ENVS", crate::vecenv::MAX_ENVS)
}
