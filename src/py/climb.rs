//! Python classes for the climbing games (`year`, `spin`): `ClimbSettings`, `ClimbMove`,
//! `ClimbGame`, and the module functions `climb_classify` and `climb_beats`.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyString};
use serde_json::Value;

use super::errors::{IntoPyResult, InvalidStateError, RulesError};
use super::head::seed_arg;
use super::json::{from_py, to_py};
use crate::climb::combo::{beats, classify, Shape};
use crate::climb::notation::{move_from_json, move_json, parse_move};
use crate::climb::snapshot::parse_snapshot;
use crate::climb::{
    record, view, ClimbGame, ClimbSettings, Deck, Kind, Mood, Move, Preset, RoundResult,
};

/// A deck from an optional path: `None` is the shipped reconstructed table.
fn deck_arg(path: Option<&str>) -> PyResult<Arc<Deck>> {
    match path {
        None => Ok(Deck::reconstructed()),
        Some(p) => Deck::from_path(p)
            .map(Arc::new)
            .map_err(|e| InvalidStateError::new_err(e.0)),
    }
}

/// An int that is not a bool, in `lo..=hi`.
fn small_int(obj: &Bound<'_, PyAny>, what: &str, lo: i64, hi: i64) -> PyResult<u8> {
    let shown = || obj.repr().map(|r| r.to_string()).unwrap_or_default();
    if obj.is_instance_of::<PyBool>() {
        return Err(RulesError::new_err(format!(
            "{what} must be an integer {lo}..{hi}, got a bool"
        )));
    }
    obj.extract::<i64>()
        .ok()
        .filter(|v| (lo..=hi).contains(v))
        .map(|v| v as u8)
        .ok_or_else(|| {
            RulesError::new_err(format!(
                "{what} must be an integer {lo}..{hi}, got {}",
                shown()
            ))
        })
}

/// Settings of a climbing game (contract §2), immutable and hashable.
#[pyclass(name = "ClimbSettings", module = "panda_core._core", frozen, eq, hash)]
#[derive(Clone)]
pub struct PyClimbSettings {
    pub inner: ClimbSettings,
    /// The deck file given, `None` for the shipped table.
    pub deck_path: Option<String>,
}

impl PartialEq for PyClimbSettings {
    fn eq(&self, other: &Self) -> bool {
        self.inner == other.inner && self.deck_path == other.deck_path
    }
}

impl Hash for PyClimbSettings {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.inner.preset.hash(state);
        self.inner.mood.hash(state);
        self.inner.first_player.hash(state);
        self.deck_path.hash(state);
    }
}

#[pymethods]
impl PyClimbSettings {
    /// `preset` `"year"` or `"spin"`; `panda_mood` `"hungry"` or `"flip"` (validated in spin too,
    /// then ignored, S-7.6); `first_player` the seat of element card 0 (`year`) or the first
    /// starter (`spin`); `deck` the path of a deck file (None: the shipped reconstructed table).
    #[new]
    #[pyo3(signature = (preset = "year", panda_mood = "hungry", first_player = None, deck = None))]
    fn new(
        preset: &str,
        panda_mood: &str,
        first_player: Option<&Bound<'_, PyAny>>,
        deck: Option<&str>,
    ) -> PyResult<Self> {
        let preset = Preset::parse(preset).map_err(|e| RulesError::new_err(e.0))?;
        let mood = Mood::parse(panda_mood).map_err(|e| RulesError::new_err(e.0))?;
        let first_player = match first_player {
            None => 0,
            Some(f) => small_int(f, "first_player", 0, 4)?,
        };
        Ok(Self {
            inner: ClimbSettings {
                preset,
                mood,
                first_player,
                deck: deck_arg(deck)?,
            },
            deck_path: deck.map(str::to_owned),
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
    /// The deck file given, `None` for the shipped table.
    #[getter]
    fn deck(&self) -> Option<String> {
        self.deck_path.clone()
    }
    /// The deck's `name` (as in snapshots).
    #[getter]
    fn deck_name(&self) -> String {
        self.inner.deck.name().to_owned()
    }

    /// The settings as a plain dict (the constructor's keywords).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("preset", self.preset())?;
        d.set_item("panda_mood", self.panda_mood())?;
        d.set_item("first_player", self.first_player())?;
        d.set_item("deck", self.deck())?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "ClimbSettings(preset='{}', panda_mood='{}', first_player={}, deck={})",
            self.preset(),
            self.panda_mood(),
            self.first_player(),
            match &self.deck_path {
                Some(p) => format!("{p:?}"),
                None => "None".into(),
            }
        )
    }
}

/// One move (contract §5.1): immutable, hashable; equal exactly when all five fields are equal.
#[pyclass(name = "ClimbMove", module = "panda_core._core", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyClimbMove {
    pub inner: Move,
}

fn ints(v: impl IntoIterator<Item = u8>) -> Vec<u32> {
    v.into_iter().map(u32::from).collect()
}

#[pymethods]
impl PyClimbMove {
    /// A move from its fields (the JSON record's keys); malformed fields raise `ValueError`.
    #[new]
    #[pyo3(signature = (kind, cards = None, named = None, flip = None, steal = None))]
    fn new(
        kind: &str,
        cards: Option<&Bound<'_, PyAny>>,
        named: Option<&Bound<'_, PyAny>>,
        flip: Option<&Bound<'_, PyAny>>,
        steal: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut obj = serde_json::Map::new();
        obj.insert("kind".into(), Value::String(kind.into()));
        for (key, v) in [
            ("cards", cards),
            ("named", named),
            ("flip", flip),
            ("steal", steal),
        ] {
            if let Some(v) = v {
                obj.insert(key.into(), from_py(v)?);
            }
        }
        move_from_json(&Value::Object(obj))
            .map(|inner| Self { inner })
            .map_err(PyValueError::new_err)
    }

    /// Parse canonical notation (contract §8); anything else raises `ValueError`.
    #[staticmethod]
    fn parse(text: &str) -> PyResult<Self> {
        parse_move(text)
            .map(|inner| Self { inner })
            .map_err(|e| PyValueError::new_err(format!("{text:?}: {e}")))
    }

    /// A move from its JSON record (a dict with the keys kind, cards, named, flip, steal).
    #[staticmethod]
    fn from_json(record: &Bound<'_, PyAny>) -> PyResult<Self> {
        move_from_json(&from_py(record)?)
            .map(|inner| Self { inner })
            .map_err(PyValueError::new_err)
    }

    #[getter]
    fn kind(&self) -> &'static str {
        self.inner.kind.name()
    }
    /// Card ids, increasing.
    #[getter]
    fn cards(&self) -> Vec<u32> {
        ints(self.inner.card_ids())
    }
    /// Rank indices named for the wild units, in card-id order.
    #[getter]
    fn named(&self) -> Vec<u32> {
        ints(self.inner.named.as_slice().iter().copied())
    }
    /// `year`/`flip`: the ids turned blue, increasing.
    #[getter]
    fn flip(&self) -> Vec<u32> {
        ints(self.inner.flip_ids())
    }
    /// `spin`: the steal victims, non-decreasing seats.
    #[getter]
    fn steal(&self) -> Vec<u32> {
        ints(self.inner.steal_seats())
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

/// A climbing game in progress (RULES.md Part S).
#[pyclass(name = "ClimbGame", module = "panda_core._core")]
#[derive(Clone)]
pub struct PyClimbGame {
    game: ClimbGame,
    deck_path: Option<String>,
}

/// 2 to 5 players (S-12); a bool is refused.
pub fn players_arg(players: &Bound<'_, PyAny>) -> PyResult<u8> {
    let bad = || {
        RulesError::new_err(format!(
            "the climbing games are played by 2 to 5 players, got {}",
            players.repr().map(|r| r.to_string()).unwrap_or_default()
        ))
    };
    if players.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    match players.extract::<i64>() {
        Ok(v) if (2..=5).contains(&v) => Ok(v as u8),
        _ => Err(bad()),
    }
}

fn round_result_value(r: &RoundResult) -> Value {
    serde_json::to_value(crate::climb::snapshot::round_snap(r)).expect("plain data")
}

#[pymethods]
impl PyClimbGame {
    /// A new game: `players` 2–5, `seed` 0..2**64-1, `settings` defaults to
    /// `ClimbSettings()`.
    #[new]
    #[pyo3(signature = (players, seed, settings = None))]
    fn new(
        py: Python<'_>,
        players: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        settings: Option<PyClimbSettings>,
    ) -> PyResult<Self> {
        let players = players_arg(players)?;
        let seed = seed_arg(seed)?;
        let (settings, deck_path) = match settings {
            Some(s) => (s.inner, s.deck_path),
            None => (ClimbSettings::default(), None),
        };
        Ok(Self {
            game: ClimbGame::new(players, seed, settings).py_err(py)?,
            deck_path,
        })
    }

    /// A game from a snapshot dict (contract §7), checked strictly; `deck` is the path of the deck
    /// the snapshot names (None: the shipped table).
    #[staticmethod]
    #[pyo3(signature = (snapshot, deck = None))]
    fn from_snapshot(snapshot: &Bound<'_, PyAny>, deck: Option<&str>) -> PyResult<Self> {
        let value = from_py(snapshot).map_err(|e| InvalidStateError::new_err(e.to_string()))?;
        let snap = parse_snapshot(&value).map_err(|e| InvalidStateError::new_err(e.0))?;
        let game = ClimbGame::from_snapshot(snap, deck_arg(deck)?)
            .map_err(|e| InvalidStateError::new_err(e.0))?;
        Ok(Self {
            game,
            deck_path: deck.map(str::to_owned),
        })
    }

    /// Rebuild a game from `to_json()` output, replaying and checking every move.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        Ok(Self {
            game: record::from_json(text).py_err(py)?,
            deck_path: None,
        })
    }

    /// The game record as JSON text: settings, start (seed or snapshot) and every move in
    /// notation.
    fn to_json(&self) -> String {
        record::to_json(&self.game)
    }

    /// An independent copy.
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
    fn seed(&self) -> u64 {
        self.game.state().seed()
    }
    #[getter]
    fn settings(&self) -> PyClimbSettings {
        PyClimbSettings {
            inner: self.game.state().settings().clone(),
            deck_path: self.deck_path.clone(),
        }
    }
    /// The seat to move, `None` once the game is over.
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
    /// The round in progress (from 1).
    #[getter]
    fn round(&self) -> u32 {
        self.game.state().round()
    }

    /// The legal moves of the current player in canonical order (empty once the game is over).
    fn legal_moves(&self) -> Vec<PyClimbMove> {
        self.game
            .legal_moves()
            .into_iter()
            .map(|inner| PyClimbMove { inner })
            .collect()
    }

    /// Apply a move: a `ClimbMove`, a notation string or a move record dict. An illegal move
    /// raises `IllegalMoveError` (with `.move`, `.reason`, `.legal`) and changes nothing.
    fn apply(&mut self, py: Python<'_>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Ok(m) = r#move.cast::<PyClimbMove>() {
            return self.game.apply(&m.get().inner).py_err(py);
        }
        if let Ok(s) = r#move.cast::<PyString>() {
            return self.game.apply_notation(s.to_str()?).py_err(py);
        }
        if r#move.is_instance_of::<PyDict>() {
            let parsed = from_py(r#move)
                .map_err(|e| e.to_string())
                .and_then(|v| move_from_json(&v));
            return match parsed {
                Ok(m) => self.game.apply(&m).py_err(py),
                Err(why) => {
                    let shown = r#move.repr().map(|r| r.to_string()).unwrap_or_default();
                    Err(self.game.unparsable(&shown, &why)).py_err(py)
                }
            };
        }
        let shown = r#move.repr().map(|r| r.to_string()).unwrap_or_default();
        Err(PyTypeError::new_err(format!(
            "a move is a ClimbMove, a notation (str) or a move record (dict), got {shown}"
        )))
    }

    /// Every decision so far: a list of `(seat, notation)`.
    #[getter]
    fn history(&self) -> Vec<(u8, String)> {
        self.game
            .history()
            .iter()
            .map(|(s, m)| (*s, m.notation()))
            .collect()
    }

    /// One dict per finished round, plus one for the round in progress when the game ended.
    #[getter]
    fn round_results<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        self.game
            .round_results()
            .iter()
            .map(|r| to_py(py, &round_result_value(r)))
            .collect()
    }

    /// What `player` may see (S-11): their own hand with faces and the public information; never
    /// another hand or the draw-pile order.
    fn view<'py>(&self, py: Python<'py>, player: i64) -> PyResult<Bound<'py, PyAny>> {
        let n = self.players() as i64;
        if !(0..n).contains(&player) {
            return Err(PyValueError::new_err(format!(
                "player must be a seat 0..={}, got {player}",
                n - 1
            )));
        }
        to_py(py, &view::view(&self.game, player as u8))
    }

    /// The complete state as plain data (contract §7): what the differential test compares.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(self.game.snapshot()).expect("a snapshot serializes");
        to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        let st = self.game.state();
        let s = st.settings();
        match st.winner() {
            Some(w) => format!(
                "<ClimbGame {} {} players, over, winner {w}, scores {:?}>",
                s.preset.name(),
                st.players(),
                st.scores()
            ),
            None => format!(
                "<ClimbGame {} {} players, round {}, seat {} to play, scores {:?}>",
                s.preset.name(),
                st.players(),
                st.round(),
                st.current_player().unwrap_or(0),
                st.scores()
            ),
        }
    }
}

/// The contract's `Combo` as a dict.
fn combo_value(c: &crate::climb::Combo) -> Value {
    let s = &c.shape;
    serde_json::json!({
        "kind": s.kind.name(),
        "rank": s.rank,
        "units": s.units,
        "length": s.length,
        "copies": s.copies,
        "cards": crate::climb::cards::ids(c.cards).collect::<Vec<_>>(),
        "named": c.named.as_slice(),
        "has_blue": c.has_blue,
    })
}

/// Classify a play (contract §6.1): `cards` animal ids, `faces` `"white"`/`"blue"` per card,
/// `named` one rank index per wild unit in card-id order. A dict (kind, rank, units, length,
/// copies, cards, named, has_blue) or None; malformed input raises `ValueError`.
#[pyfunction]
#[pyo3(signature = (cards, faces, named, leading = false, deck = None))]
fn climb_classify<'py>(
    py: Python<'py>,
    cards: Vec<i64>,
    faces: Vec<String>,
    named: Vec<i64>,
    leading: bool,
    deck: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let deck = deck_arg(deck)?;
    let ids = cards
        .iter()
        .map(|&c| {
            u8::try_from(c)
                .map_err(|_| PyValueError::new_err(format!("{c} is not a card id (0..69)")))
        })
        .collect::<PyResult<Vec<u8>>>()?;
    let blue = faces
        .iter()
        .map(|f| match f.as_str() {
            "white" => Ok(false),
            "blue" => Ok(true),
            other => Err(PyValueError::new_err(format!(
                "a face is 'white' or 'blue', got {other:?}"
            ))),
        })
        .collect::<PyResult<Vec<bool>>>()?;
    let ranks = named
        .iter()
        .map(|&r| {
            u8::try_from(r)
                .map_err(|_| PyValueError::new_err(format!("{r} is not a rank index (0..12)")))
        })
        .collect::<PyResult<Vec<u8>>>()?;
    match classify(&deck, &ids, &blue, &ranks, leading).map_err(PyValueError::new_err)? {
        Some(c) => to_py(py, &combo_value(&c)),
        None => Ok(py.None().into_bound(py)),
    }
}

fn shape_arg(d: &Bound<'_, PyAny>) -> PyResult<Shape> {
    let v = from_py(d)?;
    let get = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .and_then(|x| u32::try_from(x).ok())
            .ok_or_else(|| PyValueError::new_err(format!("a combo dict needs an integer {k:?}")))
    };
    let kind = v
        .get("kind")
        .and_then(Value::as_str)
        .and_then(Kind::parse)
        .filter(|k| k.is_combination())
        .ok_or_else(|| PyValueError::new_err("a combo dict needs a combination 'kind'"))?;
    let rank = get("rank")?;
    if rank > 12 {
        return Err(PyValueError::new_err(format!(
            "rank {rank} is not a rank index"
        )));
    }
    Ok(Shape {
        kind,
        rank: rank as u8,
        units: get("units")?,
        length: get("length")?,
        copies: get("copies")?,
    })
}

/// May combo `a` be played on combo `b` (contract §6.2)? Both are `climb_classify` dicts.
#[pyfunction]
fn climb_beats(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(beats(&shape_arg(a)?, &shape_arg(b)?))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClimbSettings>()?;
    m.add_class::<PyClimbMove>()?;
    m.add_class::<PyClimbGame>()?;
    m.add_function(wrap_pyfunction!(climb_classify, m)?)?;
    m.add_function(wrap_pyfunction!(climb_beats, m)?)?;
    Ok(())
}
