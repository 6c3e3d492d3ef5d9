//! Python classes for the climbing games: `ClimbSettings`, `ClimbMove`, `ClimbGame`, plus
//! classification helpers and batch simulation.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use super::errors::{IntoPyResult, InvalidStateError, RulesError};
use super::head::{players_arg, seat_of, seed_arg};
use super::json::{from_py, to_py};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods};

use super::errors::to_py as to_py_err;
use super::errors::EngineInvariantError;
use crate::bots::decide::climb_decision;
use crate::bots::BotKind;
use crate::climb::determinize::{wind_holders, ClimbDeterminizer};
use crate::climb::encoding::{self, move_features, MOVE_FEATURES, NUM_ACTIONS};
use crate::climb::notation::{move_from_json, move_json, parse_move};
use crate::climb::observation::{observation, OBSERVATION_SIZE};
use crate::climb::snapshot;
use crate::climb::snapshot::{parse_snapshot, round_snap, to_beat_snap};
use crate::climb::{record, view, Deck, Mood, Move, Preset};
use crate::climb::{ClimbGame, ClimbSettings};
use crate::error::{EngineError, IllegalMove};
use crate::rng::SplitMix64;

/// Game settings (contract §2): preset `year` or `spin`, panda mood, first player, deck file.
#[pyclass(name = "ClimbSettings", module = "panda_core._core", frozen)]
#[derive(Clone)]
pub struct PyClimbSettings {
    pub inner: ClimbSettings,
    deck_path: Option<String>,
}

#[pymethods]
impl PyClimbSettings {
    #[new]
    #[pyo3(signature = (*, preset = "year", panda_mood = "hungry", first_player = 0, deck = None))]
    fn new(
        preset: &str,
        panda_mood: &str,
        first_player: i64,
        deck: Option<String>,
    ) -> PyResult<Self> {
        let preset = Preset::parse(preset).map_err(|e| RulesError::new_err(e.0))?;
        let mood = Mood::parse(panda_mood).map_err(|e| RulesError::new_err(e.0))?;
        let first_player = u8::try_from(first_player)
            .ok()
            .filter(|&p| p < 5)
            .ok_or_else(|| {
                RulesError::new_err(format!(
                    "first_player must be a seat 0..=4, got {first_player}"
                ))
            })?;
        let deck_data = match &deck {
            None => Deck::reconstructed(),
            Some(path) => {
                Arc::new(Deck::from_path(path).map_err(|e| InvalidStateError::new_err(e.0))?)
            }
        };
        Ok(Self {
            inner: ClimbSettings {
                preset,
                mood,
                first_player,
                deck: deck_data,
            },
            deck_path: deck,
        })
    }

    #[getter]
    fn preset(&self) -> &'static str {
        self.inner.preset.name()
    }
    #[getter]
    fn panda_mood(&self) -> &'static str {
        self.inner.mood.name()
    }
    #[getter]
    fn first_player(&self) -> u8 {
        self.inner.first_player
    }
    /// The deck file's path, `None` for the shipped reconstructed table.
    #[getter]
    fn deck(&self) -> Option<String> {
        self.deck_path.clone()
    }
    /// The deck's `name` field.
    #[getter]
    fn deck_name(&self) -> String {
        self.inner.deck.name().to_string()
    }
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyClimbSettings>()
            .map(|o| o.get().inner == self.inner)
            .unwrap_or(false)
    }
    fn __repr__(&self) -> String {
        format!(
            "ClimbSettings(preset='{}', panda_mood='{}', first_player={}, deck={})",
            self.preset(),
            self.panda_mood(),
            self.first_player(),
            self.deck_path
                .as_ref()
                .map_or("None".into(), |p| format!("{p:?}"))
        )
    }
}

/// One move (contract §5.1): kind, cards, named wild ranks, flip choice, steal victims.
#[pyclass(name = "ClimbMove", module = "panda_core._core", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyClimbMove {
    pub inner: Move,
}

fn widen(ids: Vec<u8>) -> Vec<u32> {
    ids.into_iter().map(u32::from).collect()
}

#[pymethods]
impl PyClimbMove {
    /// Parse a move's notation (contract §8), e.g. `"set Fi3+Ea10 as 10"`.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        parse_move(text)
            .map(|inner| Self { inner })
            .map_err(|why| pyo3::exceptions::PyValueError::new_err(format!("{text:?}: {why}")))
    }
    /// A move from its JSON record (the five keys kind, cards, named, flip, steal).
    #[staticmethod]
    fn from_json(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        move_from_json(&from_py(data)?)
            .map(|inner| Self { inner })
            .map_err(pyo3::exceptions::PyValueError::new_err)
    }
    /// `pass`, `discard_element`, `element`, `single`, `set`, `run`, `formation` or `bomb`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.name()
    }
    #[getter]
    fn cards(&self) -> Vec<u32> {
        widen(self.inner.card_ids())
    }
    /// Ranks named for the wild units, in card-id order (rank indices 0..12).
    #[getter]
    fn named(&self) -> Vec<u32> {
        self.inner
            .named
            .as_slice()
            .iter()
            .map(|&r| u32::from(r))
            .collect()
    }
    #[getter]
    fn flip(&self) -> Vec<u32> {
        widen(self.inner.flip_ids())
    }
    #[getter]
    fn steal(&self) -> Vec<u32> {
        widen(self.inner.steal_seats())
    }
    #[getter]
    fn notation(&self) -> String {
        self.inner.notation()
    }
    /// The JSON record: `{"kind", "cards", "named", "flip", "steal"}`.
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &move_json(&self.inner))
    }
    fn __str__(&self) -> String {
        self.notation()
    }
    fn __repr__(&self) -> String {
        format!("ClimbMove('{}')", self.notation())
    }
}

/// A game of `year` or `spin` (RULES.md Part S).
#[pyclass(name = "ClimbGame", module = "panda_core._core")]
#[derive(Clone)]
pub struct PyClimbGame {
    game: ClimbGame,
}

impl PyClimbGame {
    /// Wrap a core game (the vector env hands out copies of its games this way).
    pub fn from_core(game: ClimbGame) -> Self {
        Self { game }
    }
}

/// How errors name the climbing games.
pub const CLIMB: &str = "the climbing games are";

#[pymethods]
impl PyClimbGame {
    /// A new game: `players` 2–5, `seed` 0..2**64-1, `settings` default `ClimbSettings()`.
    #[new]
    #[pyo3(signature = (players, seed, settings = None))]
    fn new(
        py: Python<'_>,
        players: i64,
        seed: &Bound<'_, PyAny>,
        settings: Option<PyClimbSettings>,
    ) -> PyResult<Self> {
        let players = players_arg(players, CLIMB)?;
        let seed = seed_arg(seed)?;
        let settings = settings.map(|s| s.inner).unwrap_or_default();
        Ok(Self {
            game: ClimbGame::new(players, seed, settings).py_err(py)?,
        })
    }

    /// A position from a §7 snapshot dict (docs/climb_interface.md), checked strictly.
    #[staticmethod]
    #[pyo3(signature = (snapshot, deck = None))]
    fn from_snapshot(snapshot: &Bound<'_, PyAny>, deck: Option<String>) -> PyResult<Self> {
        let snap =
            parse_snapshot(&from_py(snapshot)?).map_err(|e| InvalidStateError::new_err(e.0))?;
        let deck = match deck {
            None => Deck::reconstructed(),
            Some(path) => {
                Arc::new(Deck::from_path(&path).map_err(|e| InvalidStateError::new_err(e.0))?)
            }
        };
        Ok(Self {
            game: ClimbGame::from_snapshot(snap, deck)
                .map_err(|e| InvalidStateError::new_err(e.0))?,
        })
    }

    /// Rebuild a game from `to_json()` output, replaying and checking every move.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        Ok(Self {
            game: record::from_json(text).py_err(py)?,
        })
    }
    /// The game record as JSON: settings, start and every move.
    fn to_json(&self) -> String {
        record::to_json(&self.game)
    }
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (record::to_json(&slf.borrow().game),)))
    }
    fn clone(&self) -> Self {
        Clone::clone(self)
    }
    fn __copy__(&self) -> Self {
        Clone::clone(self)
    }
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        Clone::clone(self)
    }

    #[getter]
    fn players(&self) -> u8 {
        self.game.state().players()
    }
    #[getter]
    fn current_player(&self) -> Option<u8> {
        self.game.state().current_player()
    }
    #[getter]
    fn is_over(&self) -> bool {
        self.game.state().is_over()
    }
    #[getter]
    fn winner(&self) -> Option<u8> {
        self.game.state().winner()
    }
    #[getter]
    fn scores(&self) -> Vec<u32> {
        self.game.state().scores().to_vec()
    }
    /// The round in progress, from 1.
    #[getter]
    fn round(&self) -> u32 {
        self.game.state().round()
    }

    /// The legal moves of the current player, in canonical order (contract §5.1).
    fn legal_moves(&self) -> Vec<PyClimbMove> {
        self.game
            .legal_moves()
            .into_iter()
            .map(|inner| PyClimbMove { inner })
            .collect()
    }

    /// A full game sampled from what `player` knows (docs/agents.md, "Determinization"): the
    /// white cards of other hands, the draw pile and (in `spin`) the unseen winds are dealt anew
    /// into the same places; `player`'s observation is unchanged. Seeded. The sample starts from
    /// its snapshot, so it has a record.
    #[pyo3(signature = (player, seed = None))]
    fn determinize(
        &self,
        py: Python<'_>,
        player: i64,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let seat = self.seat_arg(player)?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let game = &self.game;
        let sampled = py.detach(|| {
            let mut rng = SplitMix64::new(seed);
            let state =
                ClimbDeterminizer::new(game.state(), seat, wind_holders(game)).sample(&mut rng);
            let snap = snapshot::snapshot(&state, game.round_results());
            ClimbGame::from_snapshot(snap, game.state().settings().deck.clone())
        });
        Ok(Self {
            game: sampled.map_err(|e| {
                EngineInvariantError::new_err(format!(
                    "a determinization is not a valid state: {}",
                    e.0
                ))
            })?,
        })
    }

    /// The move a built-in bot (`"random"`, `"heuristic"`, …, see `BOT_NAMES`) picks for the
    /// player to move; `seed` drives its randomness. The bot uses only what that player may know.
    /// Raises `GameOverError` once the game is over.
    #[pyo3(signature = (bot = "heuristic", seed = None))]
    fn bot_move(
        &self,
        py: Python<'_>,
        bot: &str,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyClimbMove> {
        let kind = BotKind::parse(bot).map_err(|e| RulesError::new_err(e.0))?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let game = &self.game;
        let mut legal = self.game.legal_moves();
        let i = py
            .detach(|| climb_decision(game, &legal, kind, seed))
            .py_err(py)?;
        Ok(PyClimbMove {
            inner: legal.swap_remove(i),
        })
    }

    /// A float32 numpy array of shape `(CLIMB_OBSERVATION_SIZE,)`: what `player` may know (S-11),
    /// in seats relative to them (layout in docs/climb_encodings.md §1).
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: i64,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = self.seat_arg(player)?;
        Ok(observation(self.game.state(), seat).into_pyarray(py))
    }

    /// A float32 array of shape `(len(legal_moves()), CLIMB_MOVE_FEATURES)`: one feature row per
    /// legal move, in the order of `legal_moves()` (layout in docs/climb_encodings.md §2).
    fn legal_move_features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let legal = self.game.legal_moves();
        move_features(self.game.state(), &legal)
            .into_pyarray(py)
            .reshape([legal.len(), MOVE_FEATURES])
    }

    /// A bool array of shape `(NUM_CLIMB_ACTIONS,)`: the abstract actions that name a legal move
    /// now (docs/climb_encodings.md §3).
    fn action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut mask = vec![false; NUM_ACTIONS];
        if !self.game.state().is_over() {
            encoding::action_mask(self.game.state(), &self.game.legal_moves(), &mut mask);
        }
        mask.into_pyarray(py)
    }

    /// The abstract action of a legal move (`ClimbMove` or notation); several moves can share
    /// one. Raises `IllegalMoveError` for a move that is not legal now.
    fn action_index(&self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mv = self.legal_move_arg(py, r#move)?;
        encoding::action_index(self.game.state(), &mv).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "move {} has no abstract action (a play of more than {} units)",
                mv.notation(),
                encoding::MAX_UNITS
            ))
        })
    }

    /// The one legal move an abstract action stands for (tie-break: fewest cards, then fewest
    /// blue faces, then canonical order). Raises `IllegalMoveError` when the action is masked out.
    fn move_for_action(&self, py: Python<'_>, action: i64) -> PyResult<PyClimbMove> {
        let legal = self.game.legal_moves();
        let i = self.resolve_arg(py, &legal, action)?;
        Ok(PyClimbMove {
            inner: legal[i].clone(),
        })
    }

    /// Apply the move an abstract action stands for (see `move_for_action`).
    fn apply_action(&mut self, py: Python<'_>, action: i64) -> PyResult<()> {
        let legal = self.game.legal_moves();
        let i = self.resolve_arg(py, &legal, action)?;
        // `legal[i]` comes from the legal list itself: no second generation to check it.
        self.game.apply_legal(&legal[i]);
        Ok(())
    }

    /// Apply a move: a `ClimbMove`, its notation or its JSON dict. An illegal move raises
    /// `IllegalMoveError` (with `.legal`) and changes nothing.
    fn apply(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(m) = r#move.cast::<PyClimbMove>() {
            let mv = m.get().inner.clone();
            return self.game.apply(&mv).py_err(py);
        }
        if let Ok(text) = r#move.cast::<PyString>() {
            return self.game.apply_notation(text.to_str()?).py_err(py);
        }
        if r#move.cast::<PyDict>().is_ok() {
            let result = match move_from_json(&from_py(r#move)?) {
                Ok(mv) => self.game.apply(&mv),
                Err(why) => Err(self.game.unparsable(&r#move.to_string(), &why)),
            };
            return result.py_err(py);
        }
        Err(PyTypeError::new_err(format!(
            "a move is a ClimbMove, a notation (str) or a move dict, got {}",
            r#move.get_type().name()?
        )))
    }

    /// What a move of the current player plays: the face each of its cards shows (`"white"`,
    /// `"blue"`, or `"element"`) and, for a combination, its classification and comparison key
    /// (kind, rank, units, length, copies, has_blue; contract §6.1). `combo` is `None` for a
    /// pass or an element card, and for cards that form no combination.
    fn move_info<'py>(
        &self,
        py: Python<'py>,
        r#move: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mv = match r#move.cast::<PyClimbMove>() {
            Ok(m) => m.get().inner.clone(),
            Err(_) => PyClimbMove::from_json(r#move)?.inner,
        };
        let st = self.game.state();
        let blue = st.blue();
        let faces: Vec<&str> = mv
            .card_ids()
            .into_iter()
            .map(|id| {
                if crate::climb::cards::is_element(id) {
                    "element"
                } else if blue >> id & 1 == 1 {
                    "blue"
                } else {
                    "white"
                }
            })
            .collect();
        let combo = if mv.kind.is_combination() {
            let leading = st.to_beat().is_none();
            crate::climb::combo::classify_play(st.deck(), mv.cards, blue, &mv.named, leading)
        } else {
            None
        };
        let combo = combo
            .map(|c| {
                let table = crate::climb::TableCombo {
                    player: 0,
                    combo: c,
                };
                let mut v = serde_json::to_value(to_beat_snap(&table)).map_err(internal)?;
                if let Some(obj) = v.as_object_mut() {
                    obj.remove("player");
                }
                Ok::<_, PyErr>(v)
            })
            .transpose()?;
        to_py(py, &serde_json::json!({"faces": faces, "combo": combo}))
    }

    /// Every decision so far: `(seat, notation)` pairs.
    #[getter]
    fn history(&self) -> Vec<(u8, String)> {
        self.game
            .history()
            .iter()
            .map(|(s, m)| (*s, m.notation()))
            .collect()
    }

    /// One dict per finished round (and the round in progress when the game ended).
    #[getter]
    fn round_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rounds: Vec<_> = self.game.round_results().iter().map(round_snap).collect();
        to_py(py, &serde_json::to_value(rounds).map_err(internal)?)
    }

    /// What `player` may see (S-11): own hand with faces, public information only.
    fn view<'py>(&self, py: Python<'py>, player: i64) -> PyResult<Bound<'py, PyAny>> {
        let seat = self.seat_arg(player)?;
        to_py(py, &view::view(&self.game, seat))
    }

    /// The complete state (hidden information included) as the §7 dict.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.game.snapshot()).map_err(internal)?,
        )
    }

    fn __repr__(&self) -> String {
        let st = self.game.state();
        format!(
            "<ClimbGame {} {} players, round {}, scores {:?}{}>",
            st.settings().preset.name(),
            st.players(),
            st.round(),
            st.scores(),
            match st.winner() {
                Some(w) => format!(", over, winner {w}"),
                None => format!(", seat {} to play", st.current_player().unwrap_or(0)),
            }
        )
    }
}

impl PyClimbGame {
    fn seat_arg(&self, seat: i64) -> PyResult<u8> {
        seat_of(seat, self.game.state().players())
    }

    /// A legal move of the current player from a `ClimbMove` or a notation.
    fn legal_move_arg(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Move> {
        let mv = if let Ok(m) = obj.cast::<PyClimbMove>() {
            m.get().inner.clone()
        } else if let Ok(text) = obj.cast::<PyString>() {
            let text = text.to_str()?;
            parse_move(text).map_err(|why| to_py_err(py, self.game.unparsable(text, &why)))?
        } else {
            return Err(PyTypeError::new_err(format!(
                "a move is a ClimbMove or a notation (str), got {}",
                obj.get_type().name()?
            )));
        };
        let state = self.game.state();
        if state.is_over() {
            return Err(to_py_err(py, EngineError::GameOver));
        }
        let legal = self.game.legal_moves();
        if legal.contains(&mv) {
            Ok(mv)
        } else {
            Err(to_py_err(
                py,
                EngineError::Illegal(state.illegal(&mv, &legal)),
            ))
        }
    }

    /// The index in `legal` of the move abstract `action` stands for.
    fn resolve_arg(&self, py: Python<'_>, legal: &[Move], action: i64) -> PyResult<usize> {
        let state = self.game.state();
        if state.is_over() {
            return Err(to_py_err(py, EngineError::GameOver));
        }
        let found = usize::try_from(action)
            .ok()
            .filter(|&a| a < NUM_ACTIONS)
            .and_then(|a| encoding::resolve(state, legal, a));
        found.ok_or_else(|| {
            let mut mask = vec![false; NUM_ACTIONS];
            encoding::action_mask(state, legal, &mut mask);
            let allowed: Vec<String> = (0..NUM_ACTIONS)
                .filter(|&a| mask[a])
                .map(|a| a.to_string())
                .collect();
            to_py_err(
                py,
                EngineError::Illegal(IllegalMove {
                    requested: action.to_string(),
                    reason: format!(
                        "abstract action {action} names no legal move of seat {}",
                        state.current_player().unwrap_or(0)
                    ),
                    legal: allowed,
                }),
            )
        })
    }
}

fn internal(e: serde_json::Error) -> PyErr {
    super::errors::EngineInvariantError::new_err(format!("cannot describe the state: {e}"))
}

/// Classify a play (contract §6.1): card ids, their faces (`"white"`/`"blue"`), one named rank
/// per wild unit in card-id order. A dict (kind, rank, units, length, copies, cards, named,
/// has_blue), or `None` when the units form no combination; `ValueError` for malformed input.
#[pyfunction]
#[pyo3(signature = (cards, faces, named, leading = false, deck = None))]
fn climb_classify<'py>(
    py: Python<'py>,
    cards: Vec<i64>,
    faces: Vec<String>,
    named: Vec<i64>,
    leading: bool,
    deck: Option<String>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let bad = pyo3::exceptions::PyValueError::new_err;
    let ids = cards
        .iter()
        .map(|&c| u8::try_from(c).map_err(|_| bad(format!("{c} is not a card id (0..69)"))))
        .collect::<PyResult<Vec<u8>>>()?;
    let blue = faces
        .iter()
        .map(|f| match f.as_str() {
            "white" => Ok(false),
            "blue" => Ok(true),
            other => Err(bad(format!("a face is 'white' or 'blue', got {other:?}"))),
        })
        .collect::<PyResult<Vec<bool>>>()?;
    let named = named
        .iter()
        .map(|&r| u8::try_from(r).map_err(|_| bad(format!("{r} is not a rank index (0..12)"))))
        .collect::<PyResult<Vec<u8>>>()?;
    let deck = match deck {
        None => Deck::reconstructed(),
        Some(path) => {
            Arc::new(Deck::from_path(&path).map_err(|e| InvalidStateError::new_err(e.0))?)
        }
    };
    let combo = crate::climb::classify(&deck, &ids, &blue, &named, leading).map_err(bad)?;
    combo
        .map(|c| {
            let table = crate::climb::TableCombo {
                player: 0,
                combo: c,
            };
            let mut v = serde_json::to_value(to_beat_snap(&table)).map_err(internal)?;
            if let Some(obj) = v.as_object_mut() {
                obj.remove("player");
            }
            to_py(py, &v)
        })
        .transpose()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClimbSettings>()?;
    m.add_class::<PyClimbMove>()?;
    m.add_class::<PyClimbGame>()?;
    m.add_function(wrap_pyfunction!(climb_classify, m)?)?;
    m.add("CLIMB_OBSERVATION_SIZE", OBSERVATION_SIZE)?;
    m.add("CLIMB_MOVE_FEATURES", MOVE_FEATURES)?;
    m.add("NUM_CLIMB_ACTIONS", NUM_ACTIONS)?;
    Ok(())
}
