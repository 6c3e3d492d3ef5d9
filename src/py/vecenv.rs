//! Batched environments from Python: `HeadVectorEnv` (and `ClimbVectorEnv`), stepped with the
//! GIL released; outputs are fresh numpy arrays (rows per env), so a caller may keep them.

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use super::climb::{PyClimbGame, PyClimbMove, PyClimbSettings, CLIMB};
use super::errors::{to_py, IllegalMoveError, RulesError};
use super::head::{players_arg, seed_arg, PyHeadGame, PyHeadRules, HEAD};
use crate::climb::encoding::MOVE_FEATURES;
use crate::climb::snapshot::snapshot;
use crate::climb::ClimbGame;
use crate::head::{HeadGame, HeadState};
use crate::vecenv::climb::{ClimbConfig, ClimbEnvGame};
use crate::vecenv::head::HeadConfig;
use crate::vecenv::{ActionKind, Batch, EnvGame, StepErrorOr, VecEnv};

/// Actions as int64: a numpy int64 array is read in place, anything else converted.
pub fn actions_arg(actions: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Ok(a) = actions.extract::<PyReadonlyArray1<'_, i64>>() {
        return Ok(a
            .as_slice()
            .map(<[i64]>::to_vec)
            .unwrap_or_else(|_| a.to_vec().unwrap_or_default()));
    }
    let np = actions.py().import("numpy")?;
    let arr = np.call_method1("asarray", (actions, "int64"))?;
    let arr = arr.extract::<PyReadonlyArray1<'_, i64>>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("actions must be a 1-D sequence of ints")
    })?;
    Ok(arr.to_vec()?)
}

pub fn threads_arg(threads: Option<i64>) -> PyResult<Option<usize>> {
    match threads {
        None => Ok(None),
        Some(t) if t >= 1 => Ok(Some(t as usize)),
        Some(t) => Err(RulesError::new_err(format!(
            "threads must be at least 1, got {t}"
        ))),
    }
}

pub fn num_envs_arg(n: i64) -> PyResult<usize> {
    if n >= 1 {
        Ok(n as usize)
    } else {
        Err(RulesError::new_err(format!(
            "num_envs must be at least 1, got {n}"
        )))
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
pub fn reset_tuple<'py, G: EnvGame>(
    py: Python<'py>,
    env: &VecEnv<G>,
    b: Batch,
) -> PyResult<Bound<'py, PyTuple>> {
    let n = env.num_envs();
    (
        rows(py, b.observations, n)?,
        rows(py, b.masks, n)?,
        b.current_player.into_pyarray(py),
    )
        .into_pyobject(py)
}

/// `(obs, mask, rewards, terminated, current_player)` after a step.
pub fn step_tuple<'py, G: EnvGame>(
    py: Python<'py>,
    env: &VecEnv<G>,
    b: Batch,
) -> PyResult<Bound<'py, PyTuple>> {
    let n = env.num_envs();
    (
        rows(py, b.observations, n)?,
        rows(py, b.masks, n)?,
        rows(py, b.rewards, n)?,
        b.terminated.into_pyarray(py),
        b.current_player.into_pyarray(py),
    )
        .into_pyobject(py)
}

pub fn step_error(py: Python<'_>, e: StepErrorOr) -> PyErr {
    match e {
        StepErrorOr::Engine(e) => to_py(py, e),
        StepErrorOr::Step(e) => {
            let exc = IllegalMoveError::new_err(format!("env {}: {}", e.env, e.reason));
            let value = exc.value(py);
            let _ = value.setattr("env", e.env);
            let _ = value.setattr("move", e.action);
            let _ = value.setattr("reason", &e.reason);
            exc
        }
    }
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
            fn num_envs(&self) -> usize {
                self.env.num_envs()
            }
            #[getter]
            fn players(&self) -> u8 {
                self.env.players()
            }
            #[getter]
            fn threads(&self) -> usize {
                self.env.threads()
            }
            #[getter]
            fn observation_size(&self) -> usize {
                self.env.observation_size()
            }
            #[getter]
            fn num_actions(&self) -> usize {
                self.env.num_actions()
            }

            /// Deal a new game in every env; env `i`'s games are seeded from its own SplitMix64
            /// stream started at `nth_output(seed, i)`. Returns `(observations, masks,
            /// current_player)`.
            #[pyo3(signature = (seed = None))]
            fn reset<'py>(
                &mut self,
                py: Python<'py>,
                seed: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyTuple>> {
                let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
                let env = &mut self.env;
                let batch = py.detach(|| env.reset(seed)).map_err(|e| to_py(py, e))?;
                reset_tuple(py, &self.env, batch)
            }

            /// Apply one action per env (Panda Head: an action id; climbing: an abstract action).
            /// Returns `(observations, masks, rewards, terminated, current_player)`; finished
            /// games restart at once (same-step auto-reset). A refused action raises
            /// `IllegalMoveError` (`.env` names the env) and moves no env.
            fn step<'py>(
                &mut self,
                py: Python<'py>,
                actions: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyTuple>> {
                step_kind(py, &mut self.env, actions, ActionKind::Action)
            }

            /// The number of episodes env `i` has started since the last reset.
            fn episodes(&self, i: usize) -> PyResult<u64> {
                self.env.episodes(i).ok_or_else(|| no_env(i))
            }

            fn __repr__(&self) -> String {
                format!(
                    "<{} {} envs, {} players, {} threads>",
                    $label,
                    self.env.num_envs(),
                    self.env.players(),
                    self.env.threads()
                )
            }
        }
    };
}

fn no_env(i: usize) -> PyErr {
    pyo3::exceptions::PyIndexError::new_err(format!("no env {i}"))
}

/// Step `env` with actions of `kind`, GIL released.
fn step_kind<'py, G: EnvGame>(
    py: Python<'py>,
    env: &mut VecEnv<G>,
    actions: &Bound<'py, PyAny>,
    kind: ActionKind,
) -> PyResult<Bound<'py, PyTuple>> {
    let actions = actions_arg(actions)?;
    let batch = py
        .detach(|| env.step_as(&actions, kind))
        .map_err(|e| step_error(py, e))?;
    step_tuple(py, env, batch)
}

/// N Panda Head games stepped in one call (see `panda_core.vector`).
#[pyclass(name = "HeadVectorEnv", module = "panda_core._core")]
pub struct PyHeadVectorEnv {
    env: VecEnv<HeadState>,
}

vector_env_methods!(PyHeadVectorEnv, "HeadVectorEnv", {
    #[new]
    #[pyo3(signature = (num_envs, players = 4, rules = None, threads = None))]
    fn new(
        py: Python<'_>,
        num_envs: i64,
        players: i64,
        rules: Option<PyHeadRules>,
        threads: Option<i64>,
    ) -> PyResult<Self> {
        let config = HeadConfig {
            players: players_arg(players, HEAD)?,
            rules: rules.map(|r| r.inner).unwrap_or_default(),
        };
        config
            .rules
            .validate_for(config.players)
            .map_err(|e| to_py(py, e.into()))?;
        let env = VecEnv::new(config, num_envs_arg(num_envs)?, threads_arg(threads)?)
            .map_err(|e| to_py(py, e))?;
        Ok(Self { env })
    }

    /// A copy of env `i`'s game in progress, as a `HeadGame` (view, observation, legal moves,
    /// bots; playing the copy does not move the env). It starts at the current position, so it
    /// has no history or JSON record.
    fn game(&self, i: usize) -> PyResult<PyHeadGame> {
        let state = self.env.game(i).ok_or_else(|| no_env(i))?;
        Ok(PyHeadGame::from_core(HeadGame::from_sample(state.clone())))
    }

    #[getter]
    fn rules(&self) -> PyHeadRules {
        PyHeadRules {
            inner: self.env.config().rules,
        }
    }
});

/// N climbing games (`year` or `spin`) stepped in one call (see `panda_core.vector`).
#[pyclass(name = "ClimbVectorEnv", module = "panda_core._core")]
pub struct PyClimbVectorEnv {
    env: VecEnv<ClimbEnvGame>,
}

vector_env_methods!(PyClimbVectorEnv, "ClimbVectorEnv", {
    #[new]
    #[pyo3(signature = (num_envs, players = 4, settings = None, threads = None))]
    fn new(
        py: Python<'_>,
        num_envs: i64,
        players: i64,
        settings: Option<PyRef<'_, PyClimbSettings>>,
        threads: Option<i64>,
    ) -> PyResult<Self> {
        let config = ClimbConfig {
            players: players_arg(players, CLIMB)?,
            settings: settings.map(|s| s.inner.clone()).unwrap_or_default(),
        };
        let env = VecEnv::new(config, num_envs_arg(num_envs)?, threads_arg(threads)?)
            .map_err(|e| to_py(py, e))?;
        Ok(Self { env })
    }

    #[getter]
    fn preset(&self) -> &'static str {
        self.env.config().settings.preset.name()
    }
    #[getter]
    fn move_features(&self) -> usize {
        MOVE_FEATURES
    }

    /// Like `step`, but each action is an index into that env's legal-move list (the rows of
    /// `legal_move_features()`), so every legal move is reachable.
    fn step_moves<'py>(
        &mut self,
        py: Python<'py>,
        indices: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        step_kind(py, &mut self.env, indices, ActionKind::MoveIndex)
    }

    /// `(features, offsets)`: float32 rows of shape `(M, CLIMB_MOVE_FEATURES)` for the legal moves
    /// of every env stacked, and int64 `offsets` of shape `(num_envs + 1,)`: env `i`'s moves are
    /// rows `offsets[i]:offsets[i + 1]`, in canonical order.
    fn legal_move_features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let env = &self.env;
        let (rows, offsets) = py.detach(|| env.legal_move_features());
        let m = rows.len() / MOVE_FEATURES;
        (
            rows.into_pyarray(py).reshape([m, MOVE_FEATURES])?,
            offsets.into_pyarray(py),
        )
            .into_pyobject(py)
    }

    /// A copy of env `i`'s game in progress, as a `ClimbGame` started from its snapshot (view,
    /// observation, legal moves, bots; playing the copy does not move the env).
    fn game(&self, py: Python<'_>, i: usize) -> PyResult<PyClimbGame> {
        let game = self.env.game(i).ok_or_else(|| no_env(i))?;
        let state = game.state();
        let snap = snapshot(state, &[]);
        let copy = py
            .detach(|| ClimbGame::from_snapshot(snap, state.settings().deck.clone()))
            .map_err(|e| to_py(py, e.into()))?;
        Ok(PyClimbGame::from_core(copy))
    }

    /// The legal moves of env `i`'s player to move, in canonical order.
    fn legal_moves(&self, i: usize) -> PyResult<Vec<PyClimbMove>> {
        let game = self.env.game(i).ok_or_else(|| no_env(i))?;
        Ok(game
            .legal_moves()
            .iter()
            .map(|m| PyClimbMove { inner: m.clone() })
            .collect())
    }
});

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHeadVectorEnv>()?;
    m.add_class::<PyClimbVectorEnv>()?;
    Ok(())
}
