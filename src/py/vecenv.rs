//! Batched environments from Python: `HeadVectorEnv` (and `ClimbVectorEnv`), stepped with the
//! GIL released; outputs are fresh numpy arrays (rows per env), so a caller may keep them.
//!
//! Thread safety: an env is `frozen` with its state behind a mutex, so two Python threads may
//! share one env: their calls run one after the other (each waits with the GIL released), never
//! interleaved inside a step. Large steps and resets run through [`interruptible_if`], so Ctrl-C
//! stops them.

use std::sync::{Mutex, MutexGuard};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyUntypedArray};
use numpy::{PyArrayDescrMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use super::args::{int_value, shown, threads_arg, type_name, Int};
use super::climb::{PyClimbGame, PyClimbMove, PyClimbSettings, CLIMB};
use super::errors::{to_py, ArgumentError, IllegalMoveError};
use super::game_class::bot_kind;
use super::head::{players_arg, seed_arg, PyHeadGame, PyHeadRules, HEAD};
use super::interrupt::interruptible_if;
use crate::bots::BotKind;
use crate::climb::encoding::MOVE_FEATURES;
use crate::climb::snapshot::snapshot;
use crate::climb::{ClimbGame, ClimbState};
use crate::head::{HeadGame, HeadState};
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
fn locked<'a, G: EnvGame>(py: Python<'_>, env: &'a Mutex<VecEnv<G>>) -> MutexGuard<'a, VecEnv<G>> {
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
fn long_step<G: EnvGame>(env: &VecEnv<G>) -> bool {
    env.num_envs() * env.observation_size() >= LONG_STEP_FLOATS
}

/// Reset `env`, GIL released, stoppable by Ctrl-C when large.
fn reset_env<'py, G: EnvGame>(
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
fn step_env<'py, G: EnvGame>(
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

/// The `#[pymethods]` block of a vector-env class: the methods every game shares (sizes, reset,
/// step, episodes, repr), then the class's own (`new` and extras). One block per class is all
/// PyO3 allows without its `multiple-pymethods` feature, hence a macro rather than a trait.
macro_rules! vector_env_methods {
    ($class:ident, $label:literal, { $($own:tt)* }) => {
        #[pymethods]
        impl $class {
            $($own)*

            #[getter]
            fn num_envs(&self, py: Python<'_>) -> usize {
                locked(py, &self.env).num_envs()
            }
            #[getter]
            fn players(&self, py: Python<'_>) -> u8 {
                locked(py, &self.env).players()
            }
            #[getter]
            fn threads(&self, py: Python<'_>) -> usize {
                locked(py, &self.env).threads()
            }
            #[getter]
            fn observation_size(&self, py: Python<'_>) -> usize {
                locked(py, &self.env).observation_size()
            }
            #[getter]
            fn num_actions(&self, py: Python<'_>) -> usize {
                locked(py, &self.env).num_actions()
            }

            /// Deal a new game in every env; env `i`'s games are seeded from its own SplitMix64
            /// stream started at `nth_output(seed, i)`. Returns `(observations, masks,
            /// current_player)`.
            #[pyo3(signature = (seed = None))]
            fn reset<'py>(
                &self,
                py: Python<'py>,
                seed: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyTuple>> {
                reset_env(py, &self.env, seed)
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
            ) -> PyResult<Bound<'py, PyTuple>> {
                step_env(py, &self.env, actions, ActionKind::Action)
            }

            /// Like `step`, but each action is an index into that env's legal-move list, in
            /// canonical order (climbing: the rows of `legal_move_features()`, so every legal
            /// move is reachable; Panda Head: the legal action ids in increasing order).
            fn step_moves<'py>(
                &self,
                py: Python<'py>,
                indices: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyTuple>> {
                step_env(py, &self.env, indices, ActionKind::MoveIndex)
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
            ) -> PyResult<Bound<'py, PyArray1<i64>>> {
                let kind = bot_kind(bot)?;
                let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
                let env = locked(py, &self.env);
                let long = long_step(&env) || matches!(kind, BotKind::Ismcts { .. });
                let env = &*env;
                let moves = interruptible_if(py, long, |stop| env.bot_moves_until(&kind, seed, stop))?
                    .map_err(|e| to_py(py, e))?
                    .ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))?;
                Ok(moves.into_pyarray(py))
            }

            /// The number of episodes env `i` has started since the last reset.
            fn episodes(&self, py: Python<'_>, i: Int) -> PyResult<u64> {
                let env = locked(py, &self.env);
                let i = i.index("env", env.num_envs())?;
                Ok(env.episodes(i).unwrap_or_default())
            }

            /// Pickling and `copy`: the env's whole state as JSON text (every game, its seed
            /// stream, the configuration and thread count), rebuilt and checked by
            /// `_from_state`. The copy steps exactly like the original.
            fn __reduce__<'py>(
                slf: &Bound<'py, Self>,
            ) -> PyResult<(Bound<'py, PyAny>, (String,))> {
                let py = slf.py();
                let env = locked(py, &slf.get().env);
                let env = &*env;
                let text = py.detach(|| env.save());
                Ok((slf.get_type().getattr("_from_state")?, (text,)))
            }

            /// Rebuild an env from `__reduce__`'s text (`InvalidStateError` if it is not one).
            #[classmethod]
            fn _from_state(
                _cls: &Bound<'_, pyo3::types::PyType>,
                py: Python<'_>,
                state: &str,
            ) -> PyResult<Self> {
                let env = py.detach(|| VecEnv::load(state)).map_err(|e| to_py(py, e))?;
                Ok(Self {
                    env: Mutex::new(env),
                })
            }

            fn __repr__(&self, py: Python<'_>) -> String {
                let env = locked(py, &self.env);
                format!(
                    "<{} {} envs, {} players, {} threads>",
                    $label,
                    env.num_envs(),
                    env.players(),
                    env.threads()
                )
            }
        }
    };
}

/// N Panda Head games stepped in one call (see `panda_core.vector`).
#[pyclass(name = "HeadVectorEnv", module = "panda_core._core", frozen)]
pub struct PyHeadVectorEnv {
    env: Mutex<VecEnv<HeadState>>,
}

vector_env_methods!(PyHeadVectorEnv, "HeadVectorEnv", {
    #[new]
    #[pyo3(signature = (num_envs, players = Int(4), rules = None, threads = None),
        text_signature = "(num_envs, players=4, rules=None, threads=None)")]
    fn new(
        py: Python<'_>,
        num_envs: Int,
        players: Int,
        rules: Option<PyHeadRules>,
        threads: Option<Int>,
    ) -> PyResult<Self> {
        let config = EnvConfig::<HeadState> {
            players: players_arg(players, HEAD)?,
            settings: rules.map(|r| r.inner).unwrap_or_default(),
        };
        config
            .settings
            .validate_for(config.players)
            .map_err(|e| to_py(py, e.into()))?;
        let num_envs = num_envs_arg::<HeadState>(num_envs)?;
        let threads = threads_arg(threads)?;
        let env = py
            .detach(|| VecEnv::new(config, num_envs, threads))
            .map_err(|e| to_py(py, e))?;
        Ok(Self {
            env: Mutex::new(env),
        })
    }

    /// A copy of env `i`'s game in progress, as a `HeadGame` (view, observation, legal moves,
    /// bots; playing the copy does not move the env). It starts at the current position, so it
    /// has no history or JSON record.
    fn game(&self, py: Python<'_>, i: Int) -> PyResult<PyHeadGame> {
        let env = locked(py, &self.env);
        let i = i.index("env", env.num_envs())?;
        let state = env.game(i).expect("checked index").clone();
        Ok(PyHeadGame::from_core(HeadGame::from_sample(state)))
    }

    #[getter]
    fn rules(&self, py: Python<'_>) -> PyHeadRules {
        PyHeadRules {
            inner: locked(py, &self.env).config().settings,
        }
    }
});

/// N climbing games (`year` or `spin`) stepped in one call (see `panda_core.vector`).
#[pyclass(name = "ClimbVectorEnv", module = "panda_core._core", frozen)]
pub struct PyClimbVectorEnv {
    env: Mutex<VecEnv<ClimbState>>,
}

vector_env_methods!(PyClimbVectorEnv, "ClimbVectorEnv", {
    #[new]
    #[pyo3(signature = (num_envs, players = Int(4), rules = None, threads = None),
        text_signature = "(num_envs, players=4, rules=None, threads=None)")]
    fn new(
        py: Python<'_>,
        num_envs: Int,
        players: Int,
        rules: Option<PyRef<'_, PyClimbSettings>>,
        threads: Option<Int>,
    ) -> PyResult<Self> {
        let config = EnvConfig::<ClimbState> {
            players: players_arg(players, CLIMB)?,
            settings: rules.map(|s| s.inner.clone()).unwrap_or_default(),
        };
        let num_envs = num_envs_arg::<ClimbState>(num_envs)?;
        let threads = threads_arg(threads)?;
        let env = py
            .detach(|| VecEnv::new(config, num_envs, threads))
            .map_err(|e| to_py(py, e))?;
        Ok(Self {
            env: Mutex::new(env),
        })
    }

    #[getter]
    fn preset(&self, py: Python<'_>) -> &'static str {
        locked(py, &self.env).config().settings.preset.name()
    }
    #[getter]
    fn move_features(&self) -> usize {
        MOVE_FEATURES
    }

    /// `(features, offsets)`: float32 rows of shape `(M, CLIMB_MOVE_FEATURES)` for the legal moves
    /// of every env stacked, and int64 `offsets` of shape `(num_envs + 1,)`: env `i`'s moves are
    /// rows `offsets[i]:offsets[i + 1]`, in canonical order. At most 2**27 floats in all
    /// (`ArgumentError` otherwise, before allocating); Ctrl-C stops a large call.
    fn legal_move_features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let env = locked(py, &self.env);
        let long = long_step(&env);
        let env = &*env;
        let (rows, offsets) =
            interruptible_if(py, long, |stop| env.legal_move_features_until(stop))?
                .map_err(|e| ArgumentError::new_err(e.0))?
                .ok_or_else(|| PyKeyboardInterrupt::new_err("interrupted"))?;
        let m = rows.len() / MOVE_FEATURES;
        (
            rows.into_pyarray(py).reshape([m, MOVE_FEATURES])?,
            offsets.into_pyarray(py),
        )
            .into_pyobject(py)
    }

    /// A copy of env `i`'s game in progress, as a `ClimbGame` started from its snapshot (view,
    /// observation, legal moves, bots; playing the copy does not move the env).
    fn game(&self, py: Python<'_>, i: Int) -> PyResult<PyClimbGame> {
        let env = locked(py, &self.env);
        let i = i.index("env", env.num_envs())?;
        let state = env.game(i).expect("checked index");
        let snap = snapshot(state, &[]);
        let deck = state.settings().deck.clone();
        let copy = py
            .detach(|| ClimbGame::from_snapshot(snap, deck))
            .map_err(|e| to_py(py, e.into()))?;
        Ok(PyClimbGame::from_core(copy))
    }

    /// The legal moves of env `i`'s player to move, in canonical order.
    fn legal_moves(&self, py: Python<'_>, i: Int) -> PyResult<Vec<PyClimbMove>> {
        let env = locked(py, &self.env);
        let i = i.index("env", env.num_envs())?;
        Ok(env
            .legal(i)
            .expect("checked index")
            .moves()
            .iter()
            .map(|m| PyClimbMove { inner: m.clone() })
            .collect())
    }
});

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHeadVectorEnv>()?;
    m.add_class::<PyClimbVectorEnv>()?;
    m.add("MAX_ENVS", crate::vecenv::MAX_ENVS)?;
    Ok(())
}
