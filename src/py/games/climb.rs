//! Python classes for the climbing games: `ClimbSettings`, `ClimbMove`, `ClimbGame`, plus
//! classification helpers and batch simulation.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};

use crate::py::args::{
    cut, cut_message, int_value, path_arg, shown, text_of, type_name, Int, Text,
};
use crate::py::args::{players_arg, seed_arg};
use crate::py::errors::{ArgumentError, IntoPyResult, InvalidStateError, RulesError};
use crate::py::json::{from_py, to_py};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods};

use crate::climb::encoding::{self, move_features, MOVE_FEATURES, NUM_ACTIONS};
use crate::climb::notation::{move_from_json, move_json, parse_move};
use crate::climb::observation::OBSERVATION_SIZE;
use crate::climb::snapshot::{parse_snapshot, to_beat_snap};
use crate::climb::{ClimbGame, ClimbSettings};
use crate::climb::{Deck, Mood, Move, Preset};
use crate::error::EngineError;
use crate::py::errors::to_py as to_py_err;
use crate::py::events::SpareEvents;
use crate::py::game_class::{self, GameClass, Request};
use crate::py::interrupt::interruptible_if;
use crate::py::vecenv::{locked, long_step};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::types::PyTuple;

/// Game settings (contract §2): preset `year` or `spin`, panda mood, first player, deck file.
#[pyclass(name = "ClimbSettings", module = "panda_core._core", frozen)]
#[derive(Clone)]
pub struct PyClimbSettings {
    pub inner: ClimbSettings,
    deck_path: Option<String>,
}

/// A deck file (`str` or `os.PathLike`), loaded and validated; `None` is the shipped table.
fn deck_arg(deck: Option<&Bound<'_, PyAny>>) -> PyResult<(Option<String>, Arc<Deck>)> {
    let Some(deck) = deck else {
        return Ok((None, Deck::reconstructed()));
    };
    let path = path_arg(deck)?;
    let loaded =
        Deck::from_path(&path).map_err(|e| InvalidStateError::new_err(cut_message(&e.0)))?;
    Ok((Some(path), Arc::new(loaded)))
}

/// The preset, mood and first player of a settings object, checked (`RulesError`).
fn settings_of(
    preset: &str,
    panda_mood: &str,
    first_player: Int,
    deck: Arc<Deck>,
) -> PyResult<ClimbSettings> {
    let rules_err = |e: crate::error::RulesError| RulesError::new_err(cut_message(&e.0));
    Ok(ClimbSettings {
        preset: Preset::parse(preset).map_err(rules_err)?,
        mood: Mood::parse(panda_mood).map_err(rules_err)?,
        first_player: first_player.in_range("first_player", 0, 4).map_err(|_| {
            RulesError::new_err(format!(
                "first_player must be a seat 0..=4, got {}",
                first_player.written()
            ))
        })? as u8,
        deck,
    })
}

#[pymethods]
impl PyClimbSettings {
    /// `deck` is a deck file's path (`str` or `pathlib.Path`), `None` for the shipped table.
    #[new]
    #[pyo3(signature = (*, preset = Text::new("year"), panda_mood = Text::new("hungry"),
        first_player = Int(0), deck = None),
        text_signature = "(*, preset='year', panda_mood='hungry', first_player=0, deck=None)")]
    fn new(
        preset: Text,
        panda_mood: Text,
        first_player: Int,
        deck: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let (deck_path, deck) = deck_arg(deck)?;
        Ok(Self {
            inner: settings_of(&preset, &panda_mood, first_player, deck)?,
            deck_path,
        })
    }

    /// Pickle and copy support. The deck travels as its document (the JSON a game record embeds),
    /// not as the path: the unpickled settings play with exactly this deck even where the file
    /// is missing or has changed since.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        (
            &'static str,
            &'static str,
            u8,
            Option<String>,
            Option<String>,
        ),
    )> {
        let s = slf.get();
        let restore = slf.get_type().getattr("_restore")?;
        let custom = *s.inner.deck != *Deck::reconstructed();
        let doc = custom.then(|| s.inner.deck.doc().to_string());
        Ok((
            restore,
            (
                s.inner.preset.name(),
                s.inner.mood.name(),
                s.inner.first_player,
                s.deck_path.clone(),
                doc,
            ),
        ))
    }

    /// Rebuild settings from `__reduce__`'s fields, every one checked as the constructor does.
    #[staticmethod]
    fn _restore(
        preset: Text,
        panda_mood: Text,
        first_player: Int,
        deck_path: Option<Text>,
        deck_doc: Option<Text>,
    ) -> PyResult<Self> {
        let deck_path = deck_path.map(|p| p.0);
        let deck = match deck_doc {
            None => Deck::reconstructed(),
            Some(text) => {
                let name = deck_path.as_deref().unwrap_or("(pickled deck)");
                Arc::new(
                    Deck::from_json(&text, name)
                        .map_err(|e| InvalidStateError::new_err(cut_message(&e.0)))?,
                )
            }
        };
        Ok(Self {
            inner: settings_of(&preset, &panda_mood, first_player, deck)?,
            deck_path,
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
    /// The most a show-out scores (S-9.2): 7 in `year`, `None` (no cap) in `spin`.
    #[getter]
    fn show_out_cap(&self) -> Option<u32> {
        self.inner.preset.show_out_cap()
    }
    /// The score that ends the game: 15 in `year` (S-10.1), 20 in `spin` (S-10.2).
    #[getter]
    fn game_end_score(&self) -> u32 {
        self.inner.preset.game_end_score()
    }
    /// The most points symbols may raise a score to: `None` in `year`, 19 in `spin` (S-10.2).
    #[getter]
    fn symbol_cap(&self) -> Option<u32> {
        self.inner.preset.symbol_cap()
    }
    /// What the panda symbol does: `"hungry"` (S-7.2) or `"flip"` (S-7.3) in `year`, `"steal"`
    /// in `spin` (S-7.4, the mood ignored).
    #[getter]
    fn panda_effect(&self) -> &'static str {
        self.inner.panda_effect()
    }
    /// What cards 65–69 are called: `"element"` (`year`) or `"wind"` (`spin`) cards (S-12).
    #[getter]
    fn special_cards(&self) -> &'static str {
        self.inner.preset.special_cards()
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
    /// Parse a move's notation (contract §8), e.g. `"set Fi3+Ea10 as 10"`; `InvalidStateError`
    /// when it does not parse.
    #[staticmethod]
    fn parse(text: Text) -> PyResult<Self> {
        parse_move(&text)
            .map(|inner| Self { inner })
            .map_err(|why| {
                InvalidStateError::new_err(format!(
                    "not a move notation: {:?}: {}",
                    cut(&text),
                    cut_message(&why)
                ))
            })
    }
    /// A move from its JSON record (the five keys kind, cards, named, flip, steal);
    /// `InvalidStateError` when it is not one.
    #[staticmethod]
    fn from_json(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        move_from_json(&from_py(data)?)
            .map(|inner| Self { inner })
            .map_err(|why| {
                InvalidStateError::new_err(format!("not a move record: {}", cut_message(&why)))
            })
    }
    /// Pickle and copy support: rebuilt from the JSON record.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (to_py(slf.py(), &move_json(&slf.get().inner))?,)))
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

/// A game of `year` or `spin` (docs/rules/year.md, docs/rules/spin.md).
///
/// Thread safety (docs/errors.md): reads may run from any number of threads at once; a change
/// while another thread is inside a call on this game (in practice one that releases the GIL:
/// `bot_move`, `determinize`) is refused with `ConcurrentUseError`, state unchanged. A change never
/// runs Python code while it holds the game, so no read sees it half made.
#[pyclass(name = "ClimbGame", module = "panda_core._core")]
#[derive(Clone)]
pub struct PyClimbGame {
    game: ClimbGame,
    /// The last `MoveEvents` `apply()` returned, filled again when nobody else holds it.
    spare: SpareEvents,
    /// The deck file the settings named (`rules.deck`); `None` for the shipped deck and for a
    /// game rebuilt from a record (which embeds the deck itself).
    deck_path: Option<String>,
}

impl PyClimbGame {
    /// Wrap a core game (the vector env hands out copies of its games this way).
    pub fn from_core(game: ClimbGame) -> Self {
        Self {
            game,
            spare: SpareEvents::default(),
            deck_path: None,
        }
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
        players: Int,
        seed: &Bound<'_, PyAny>,
        settings: Option<PyClimbSettings>,
    ) -> PyResult<Self> {
        let players = players_arg(players, CLIMB)?;
        let seed = seed_arg(seed)?;
        let (settings, deck_path) =
            settings.map_or_else(Default::default, |s| (s.inner, s.deck_path));
        Ok(Self {
            game: ClimbGame::new(players, seed, settings).py_err(py)?,
            spare: SpareEvents::default(),
            deck_path,
        })
    }

    /// A position from a §7 snapshot dict (docs/climb_interface.md), checked strictly.
    #[staticmethod]
    #[pyo3(signature = (snapshot, deck = None))]
    fn from_snapshot(
        snapshot: &Bound<'_, PyAny>,
        deck: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let snap = parse_snapshot(&from_py(snapshot)?)
            .map_err(|e| InvalidStateError::new_err(cut_message(&e.0)))?;
        let (deck_path, deck) = deck_arg(deck)?;
        Ok(Self {
            game: ClimbGame::from_snapshot(snap, deck)
                .map_err(|e| InvalidStateError::new_err(cut_message(&e.0)))?,
            spare: SpareEvents::default(),
            deck_path,
        })
    }

    /// The round in progress, from 1.
    #[getter]
    fn round(&self) -> u32 {
        self.game.state().round()
    }

    /// A float32 array of shape `(len(legal_moves()), CLIMB_MOVE_FEATURES)`: one feature row per
    /// legal move, in the order of `legal_moves()` (layout in docs/climb_encodings.md §2).
    fn legal_move_features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let legal = self.game.try_legal_moves().py_err(py)?;
        move_features(self.game.state(), &legal)
            .into_pyarray(py)
            .reshape([legal.len(), MOVE_FEATURES])
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
        // The core decides what classifies: element cards ("single Me!") and ids past the last
        // card form no combination there.
        let combo = if mv.kind.is_combination() {
            let leading = st.to_beat().is_none();
            crate::climb::combo::classify_play(st.deck(), mv.cards, blue, &mv.named, leading)
        } else {
            None
        };
        let combo = combo.map(combo_value).transpose()?;
        to_py(py, &serde_json::json!({"faces": faces, "combo": combo}))
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

game_class::bind_game!(PyClimbGame);
crate::py::seat_class::seat_class!(PyClimbSeat, PyClimbGame, "ClimbSeat");

/// The climbing games' own verbs of a seat: the round and the public classifiers.
#[pymethods]
impl PyClimbSeat {
    /// The round in progress, from 1.
    #[getter]
    fn round(&self) -> u32 {
        self.game.round()
    }
    /// What a move plays (public: the classification of cards): as `game.move_info`.
    fn move_info<'py>(
        &self,
        py: Python<'py>,
        r#move: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.game.move_info(py, r#move)
    }
    /// One feature row per legal move of this seat while it is to move (shape `(0, F)`
    /// otherwise): as `game.legal_move_features()`.
    fn legal_move_features<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f32>>> {
        if !crate::py::seat_class::mine(self) {
            return Vec::<f32>::new()
                .into_pyarray(py)
                .reshape([0, MOVE_FEATURES]);
        }
        self.game.legal_move_features(py)
    }
}

impl GameClass for PyClimbGame {
    type Core = ClimbGame;
    type Move = PyClimbMove;
    type Rules = PyClimbSettings;
    const CLASS: &'static str = "ClimbGame";
    const NAMED: &'static str = CLIMB;

    fn core(&self) -> &ClimbGame {
        &self.game
    }
    fn core_mut(&mut self) -> &mut ClimbGame {
        &mut self.game
    }
    fn core_and_spare(&mut self) -> (&ClimbGame, &mut SpareEvents) {
        (&self.game, &mut self.spare)
    }
    /// The copy keeps the deck file the settings named.
    fn with_core(&self, game: ClimbGame) -> Self {
        Self {
            game,
            spare: SpareEvents::default(),
            deck_path: self.deck_path.clone(),
        }
    }
    fn from_core(game: ClimbGame) -> Self {
        Self::from_core(game)
    }
    fn rules(&self) -> PyClimbSettings {
        PyClimbSettings {
            inner: self.game.state().settings().clone(),
            deck_path: self.deck_path.clone(),
        }
    }
    fn settings_of(rules: &PyClimbSettings) -> ClimbSettings {
        rules.inner.clone()
    }
    /// Settings without the deck file's path (a vector env's: it keeps the deck itself).
    fn rules_of(settings: &ClimbSettings) -> PyClimbSettings {
        PyClimbSettings {
            inner: settings.clone(),
            deck_path: None,
        }
    }
    fn py_move(_game: &ClimbGame, inner: Move) -> PyClimbMove {
        PyClimbMove { inner }
    }
    fn request(obj: &Bound<'_, PyAny>) -> PyResult<Request<Move>> {
        if let Ok(m) = obj.cast::<PyClimbMove>() {
            return Ok(Request::Move(m.get().inner.clone()));
        }
        if let Ok(text) = obj.cast::<PyString>() {
            return Ok(Request::Notation(text_of(text)));
        }
        if !obj.is_instance_of::<PyBool>()
            && (obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?)
        {
            return Ok(Request::Action(int_value(obj)?));
        }
        if obj.cast::<PyDict>().is_ok() {
            return Ok(match move_from_json(&from_py(obj)?) {
                Ok(mv) => Request::Move(mv),
                Err(why) => Request::Unparsable {
                    shown: shown(obj),
                    why,
                },
            });
        }
        Err(PyTypeError::new_err(format!(
            "a move is a ClimbMove, an action id (int), a notation (str) or a move dict, got {} {}",
            type_name(obj),
            shown(obj)
        )))
    }
    /// Several moves can share one action.
    fn action_index(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mv = self.legal_move_arg(py, mv)?;
        encoding::action_index(self.game.state(), &mv).ok_or_else(|| {
            ArgumentError::new_err(format!(
                "move {} has no abstract action (a play of more than {} units)",
                mv.notation(),
                encoding::MAX_UNITS
            ))
        })
    }
}

impl PyClimbGame {
    /// A legal move of the current player from a `ClimbMove` or a notation.
    fn legal_move_arg(&self, py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Move> {
        let mv = if let Ok(m) = obj.cast::<PyClimbMove>() {
            m.get().inner.clone()
        } else if let Ok(text) = obj.cast::<PyString>() {
            let text = text_of(text);
            parse_move(&text).map_err(|why| to_py_err(py, self.game.unparsable(&text, &why)))?
        } else {
            return Err(PyTypeError::new_err(format!(
                "a move is a ClimbMove or a notation (str), got {} {}",
                type_name(obj),
                shown(obj)
            )));
        };
        let state = self.game.state();
        if state.is_over() {
            return Err(to_py_err(py, EngineError::GameOver));
        }
        let legal = self.game.try_legal_moves().py_err(py)?;
        if legal.contains(&mv) {
            Ok(mv)
        } else {
            Err(to_py_err(
                py,
                EngineError::Illegal(state.illegal(&mv, &legal)),
            ))
        }
    }
}

fn internal(e: serde_json::Error) -> PyErr {
    crate::py::errors::EngineInvariantError::new_err(format!("cannot describe the state: {e}"))
}

/// A classified combination as the dict `move_info()["combo"]` and `climb_classify` return: the
/// snapshot's `to_beat` form (docs/climb_interface.md §6.1) without the seat that played it.
fn combo_value(combo: crate::climb::Combo) -> PyResult<serde_json::Value> {
    let table = crate::climb::TableCombo { player: 0, combo };
    let mut v = serde_json::to_value(to_beat_snap(&table)).map_err(internal)?;
    if let Some(obj) = v.as_object_mut() {
        obj.remove("player");
    }
    Ok(v)
}

/// Classify a play (contract §6.1): card ids, their faces (`"white"`/`"blue"`), one named rank
/// per wild unit in card-id order. A dict (kind, rank, units, length, copies, cards, named,
/// has_blue), or `None` when the units form no combination; `ArgumentError` for malformed input
/// (a card id out of range or of an element card, an unknown face, a rank index out of range).
#[pyfunction]
#[pyo3(signature = (cards, faces, named, leading = false, deck = None))]
fn climb_classify<'py>(
    py: Python<'py>,
    cards: Vec<Int>,
    faces: Vec<Text>,
    named: Vec<Int>,
    leading: bool,
    deck: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    // Ranges only make the values bytes; the core says what else is wrong (an element card…).
    let last_card = i128::from(crate::climb::cards::NUM_CARDS) - 1;
    let last_rank = crate::climb::cards::NUM_RANKS as i128 - 1;
    let ids = cards
        .iter()
        .map(|c| Ok(c.in_range("a card id", 0, last_card)? as u8))
        .collect::<PyResult<Vec<u8>>>()?;
    let blue = faces
        .iter()
        .map(|f| match &**f {
            "white" => Ok(false),
            "blue" => Ok(true),
            other => Err(ArgumentError::new_err(format!(
                "a face is 'white' or 'blue', got {:?}",
                cut(other)
            ))),
        })
        .collect::<PyResult<Vec<bool>>>()?;
    let named = named
        .iter()
        .map(|r| Ok(r.in_range("a rank index", 0, last_rank)? as u8))
        .collect::<PyResult<Vec<u8>>>()?;
    let (_, deck) = deck_arg(deck)?;
    let combo = crate::climb::classify(&deck, &ids, &blue, &named, leading)
        .map_err(|why| ArgumentError::new_err(cut_message(&why)))?;
    combo.map(|c| to_py(py, &combo_value(c)?)).transpose()
}

crate::py::vecenv::vector_env_class!(
    PyClimbVectorEnv,
    "ClimbVectorEnv",
    PyClimbGame,
    "N climbing games (`year` or `spin`) stepped in one call (docs/agents.md, \"Vector environment\")."
);

/// The climbing games' own: the preset and the legal moves with their features.
#[pymethods]
impl PyClimbVectorEnv {
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
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyClimbSettings>()?;
    m.add(
        "CLIMB_OBSERVATION_LAYOUT",
        crate::climb::observation::OBSERVATION_LAYOUT,
    )?;
    m.add(
        "CLIMB_MOVE_FEATURES_LAYOUT",
        crate::climb::encoding::MOVE_FEATURES_LAYOUT,
    )?;
    m.add_class::<PyClimbMove>()?;
    m.add_function(wrap_pyfunction!(climb_classify, m)?)?;
    m.add("CLIMB_OBSERVATION_SIZE", OBSERVATION_SIZE)?;
    m.add("CLIMB_MOVE_FEATURES", MOVE_FEATURES)?;
    m.add("NUM_CLIMB_ACTIONS", NUM_ACTIONS)?;
    Ok(())
}
