//! The methods every game object shares (`HeadGame`, `ClimbGame`), bound once.
//!
//! [`BoundGame`] is what a game's class provides, each piece read from its core game (in
//! `py/head.rs`, `py/climb.rs`); the generic helpers here turn those pieces into the Python
//! verbs with one argument handling, one error mapping and one locking discipline; and
//! [`bind_game!`] generates each class's shared `#[pymethods]` block from the helpers, so the
//! verbs, their signatures and their docstrings are the same on every game. Per-game extras
//! (constructors, Panda Head's `hand()`, the climbing games' `move_info()`) stay in the class's
//! own `#[pymethods]` block (PyO3's `multiple-pymethods` feature allows the two blocks).
//!
//! Numbering: seats are 0-based everywhere.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::types::{PyDict, PyList};
use pyo3::PyClass;
use serde::Serialize;

use super::args::{cut_message, seed_arg, time_limit_arg, Int};
use super::errors::{concurrent_use, to_py as to_py_err, PolicyError, RulesError};
use super::events::PyMoveEvents;
use super::interrupt::interruptible_for;
use super::json::{events_to_py, serde_to_py};
use crate::bots::BotKind;
use crate::card::CardInfo;
use crate::error::EngineError;
use crate::interrupt::{Interrupt, NEVER};

/// What a game's Python class provides to the shared methods. Every method reads the core game;
/// none holds a rule.
pub trait BoundGame: PyClass<Frozen = False> + Clone {
    /// The game's move class (`HeadMove`, `ClimbMove`).
    type Move: for<'py> IntoPyObject<'py>;
    /// The game's rules class (`HeadRules`, `ClimbSettings`).
    type Rules: for<'py> IntoPyObject<'py>;
    /// An `apply()` argument read from Python (a move, an action id or a notation).
    type Request;
    /// A recorded event (serialised as `{"type": ..., "player": ..., ...}`).
    type Event: Serialize;
    /// A bot's move as the core returns it (sent back from the worker thread of a search).
    type Decision: Send;

    /// The class name, for messages.
    const CLASS: &'static str;
    /// The size of the fixed action space (`legal_action_mask()`'s length).
    const NUM_ACTIONS: usize;

    fn players(&self) -> u8;
    fn current_player(&self) -> Option<u8>;
    fn is_over(&self) -> bool;
    fn winner(&self) -> Option<u8>;
    fn scores(&self) -> Vec<u32>;
    fn rules(&self) -> Self::Rules;

    /// The legal moves of the seat to move (empty once the game is over).
    fn legal_moves(&self) -> Result<Vec<Self::Move>, EngineError>;
    /// One flag per action id, true where the id names a legal move (all false once over).
    fn legal_action_mask(&self) -> Result<Vec<bool>, EngineError>;
    /// The legal action ids, ascending (what the mask marks; a game may read them faster).
    fn legal_actions(&self) -> Result<Vec<u32>, EngineError> {
        let mask = self.legal_action_mask()?;
        Ok((0u32..)
            .zip(mask)
            .filter(|(_, on)| *on)
            .map(|(id, _)| id)
            .collect())
    }
    /// The legal move action `action` stands for; `IllegalMoveError` when it names none.
    fn move_for_action(&self, action: Int) -> Result<Self::Move, EngineError>;
    /// The action id of a legal move (a move object or a notation).
    fn action_index(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<usize>;

    /// Read an `apply()` argument completely (it may run Python code) before the game is borrowed.
    fn request(obj: &Bound<'_, PyAny>) -> PyResult<Self::Request>;
    /// Apply a request: a refused one changes nothing.
    fn apply_request(&mut self, request: &Self::Request) -> Result<(), EngineError>;

    /// The game's event log, in order (it only ever grows).
    fn events(&self) -> &[Self::Event];
    /// The events `seat` may see (no hidden card of another seat).
    fn events_seen_by(&self, seat: u8) -> Vec<Self::Event>;

    /// One dict per finished round (a hand, in Panda Head).
    fn round_results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    /// Rounds played or under way when the game ended (`result()["rounds_played"]`).
    fn rounds_played(&self) -> usize;
    /// The game's own keys of `result()` (besides the shared ones).
    fn result_extras(&self, d: &Bound<'_, PyDict>) -> PyResult<()>;
    fn view<'py>(&self, py: Python<'py>, seat: u8) -> PyResult<Bound<'py, PyAny>>;
    fn observation(&self, seat: u8) -> Vec<f32>;
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>>;
    fn to_json(&self) -> PyResult<String>;
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self>;
    /// A built-in bot's decision for the seat to move, from the core (no Python: it runs with
    /// the GIL released, maybe on a worker thread); a search ends early once `stop` is set.
    fn decide(
        &self,
        kind: &BotKind,
        seed: u64,
        stop: &Interrupt,
    ) -> Result<Self::Decision, EngineError>;
    /// The Python move of a decision [`BoundGame::decide`] made in this position.
    fn decided_move(&self, decision: Self::Decision) -> Self::Move;
    /// The game's deck as it plays it, one card per id (the core's card rules).
    fn cards(&self) -> Vec<CardInfo>;
    /// A full game sampled from what `seat` knows.
    fn determinize(&self, py: Python<'_>, seat: u8, seed: u64) -> PyResult<Self>;
}

/// A seat of `game`'s table (`ArgumentError` otherwise).
pub fn seat_of<G: BoundGame>(game: &G, player: Int) -> PyResult<u8> {
    player.seat(game.players())
}

/// A `Result` from the core as a Python result.
pub fn engine<T>(py: Python<'_>, result: Result<T, EngineError>) -> PyResult<T> {
    result.map_err(|e| to_py_err(py, e))
}

/// `legal_action_mask()`: a numpy bool array of `NUM_ACTIONS`.
pub fn mask_array<'py, G: BoundGame>(
    game: &G,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    Ok(PyArray1::from_vec(
        py,
        engine(py, game.legal_action_mask())?,
    ))
}

/// `legal_actions()`: the legal ids, ascending.
pub fn legal_actions<G: BoundGame>(game: &G, py: Python<'_>) -> PyResult<Vec<u32>> {
    engine(py, BoundGame::legal_actions(game))
}

/// `apply()`: play a move, return its events. The argument is read before the game is borrowed
/// and the exception built after the borrow ends (both may run Python code, which may let
/// another thread in).
pub fn apply<'py, G: BoundGame>(
    slf: &Bound<'py, G>,
    obj: &Bound<'py, PyAny>,
) -> PyResult<PyMoveEvents> {
    let py = slf.py();
    let request = G::request(obj)?;
    let outcome = {
        let mut this = slf.try_borrow_mut().map_err(|_| concurrent_use(G::CLASS))?;
        let before = this.events().len();
        this.apply_request(&request)
            .map(|()| (before, this.events().len()))
    };
    let (from, to) = engine(py, outcome)?;
    Ok(PyMoveEvents::new(
        slf.clone().into_any().unbind(),
        from,
        to,
        read_events::<G>,
    ))
}

/// Events `from..to` of a game object of class `G`, as dicts (what a `MoveEvents` reads).
fn read_events<'py, G: BoundGame>(
    game: &Bound<'py, PyAny>,
    from: usize,
    to: usize,
) -> PyResult<Bound<'py, PyList>> {
    let game = game.cast::<G>()?;
    let this = game.try_borrow().map_err(|_| concurrent_use(G::CLASS))?;
    events_to_py(game.py(), this.events().get(from..to).unwrap_or_default())
}

/// `events(player=None)`: the whole log, or what `player` may see.
pub fn events<'py, G: BoundGame>(
    game: &G,
    py: Python<'py>,
    player: Option<Int>,
) -> PyResult<Bound<'py, PyList>> {
    match player {
        None => events_to_py(py, game.events()),
        Some(p) => events_to_py(py, &game.events_seen_by(seat_of(game, p)?)),
    }
}

/// `result()`: the shared keys (`is_over`, `winner`, `scores`, `rounds_played`) and the game's own.
pub fn result<'py, G: BoundGame>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("is_over", game.is_over())?;
    d.set_item("winner", game.winner())?;
    d.set_item("scores", game.scores())?;
    d.set_item("rounds_played", game.rounds_played())?;
    game.result_extras(&d)?;
    Ok(d)
}

/// A built-in bot name, checked by the engine's own parser (`RulesError` naming the bots).
/// A `neural:PATH` whose file is refused is a `PolicyError` (a `RulesError` too).
pub fn bot_kind(name: &str) -> PyResult<BotKind> {
    BotKind::parse(name).map_err(|e| {
        if name.starts_with("neural:") {
            PolicyError::new_err(cut_message(&e.0))
        } else {
            RulesError::new_err(cut_message(&e.0))
        }
    })
}

/// An optional seed, 0 when absent.
pub fn seed_or_zero(seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    Ok(seed.map(seed_arg).transpose()?.unwrap_or(0))
}

/// `bot_move(bot, seed, time_limit)`: every argument is checked before the bot runs. A search
/// can run for seconds, so it runs where Ctrl-C stops it and `time_limit` ends it with its best
/// move so far; the other bots answer at once (no thread; a time limit cannot matter to them).
pub fn bot_move<G: BoundGame + Sync>(
    game: &G,
    py: Python<'_>,
    bot: &str,
    seed: Option<&Bound<'_, PyAny>>,
    time_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<G::Move> {
    let kind = bot_kind(bot)?;
    let seed = seed_or_zero(seed)?;
    let limit = time_limit.map(time_limit_arg).transpose()?;
    let decision = match kind {
        BotKind::Ismcts { .. } => {
            interruptible_for(py, limit, |stop| game.decide(&kind, seed, stop))?
        }
        BotKind::Random | BotKind::Heuristic | BotKind::Neural(_) => {
            py.detach(|| game.decide(&kind, seed, &NEVER))
        }
    };
    Ok(game.decided_move(engine(py, decision)?))
}

/// `cards()`: one dict per card id of the game's deck (docs/game_api.md, "Cards").
pub fn cards<'py, G: BoundGame>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    serde_to_py(py, &game.cards())
}

/// `determinize(player, seed)`.
pub fn determinize<G: BoundGame>(
    game: &G,
    py: Python<'_>,
    player: Int,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<G> {
    let seat = seat_of(game, player)?;
    let seed = seed_or_zero(seed)?;
    game.determinize(py, seat, seed)
}

/// The shared `#[pymethods]` block of a game class: `bind_game!(PyHeadGame)`. Each method is a
/// one-line call of a generic helper above or of the class's [`BoundGame`] piece.
macro_rules! bind_game {
    ($class:ty) => {
        #[pyo3::pymethods]
        impl $class {
            /// Number of players (2–5).
            #[getter]
            fn players(&self) -> u8 {
                $crate::py::game_class::BoundGame::players(self)
            }
            /// The seat to move (0-based), or `None` once the game is over.
            #[getter]
            fn current_player(&self) -> Option<u8> {
                $crate::py::game_class::BoundGame::current_player(self)
            }
            #[getter]
            fn is_over(&self) -> bool {
                $crate::py::game_class::BoundGame::is_over(self)
            }
            /// The winning seat once the game is over, else `None`.
            #[getter]
            fn winner(&self) -> Option<u8> {
                $crate::py::game_class::BoundGame::winner(self)
            }
            /// Each seat's score.
            #[getter]
            fn scores(&self) -> Vec<u32> {
                $crate::py::game_class::BoundGame::scores(self)
            }
            /// The rules this game is played by (`HeadRules` or `ClimbSettings`).
            #[getter]
            fn rules(&self) -> <$class as $crate::py::game_class::BoundGame>::Rules {
                $crate::py::game_class::BoundGame::rules(self)
            }
            /// Size of the fixed action space: ids are `0 .. num_actions - 1`.
            #[getter]
            fn num_actions(&self) -> usize {
                <$class as $crate::py::game_class::BoundGame>::NUM_ACTIONS
            }

            /// The legal moves of the seat to move (empty once the game is over).
            fn legal_moves(
                &self,
                py: pyo3::Python<'_>,
            ) -> pyo3::PyResult<Vec<<$class as $crate::py::game_class::BoundGame>::Move>> {
                $crate::py::game_class::engine(py, $crate::py::game_class::BoundGame::legal_moves(self))
            }
            /// The legal action ids, ascending (the true indices of `legal_action_mask()`).
            fn legal_actions(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<Vec<u32>> {
                $crate::py::game_class::legal_actions(self, py)
            }
            /// A bool numpy array of shape `(num_actions,)`, true where the action is legal.
            fn legal_action_mask<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<bool>>> {
                $crate::py::game_class::mask_array(self, py)
            }
            /// The legal move an action id stands for; `IllegalMoveError` when it names none.
            fn move_for_action(
                &self,
                py: pyo3::Python<'_>,
                action: $crate::py::args::Int,
            ) -> pyo3::PyResult<<$class as $crate::py::game_class::BoundGame>::Move> {
                $crate::py::game_class::engine(
                    py,
                    $crate::py::game_class::BoundGame::move_for_action(self, action),
                )
            }
            /// The action id of a legal move (a move object or a notation).
            fn action_index(
                &self,
                py: pyo3::Python<'_>,
                r#move: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<usize> {
                $crate::py::game_class::BoundGame::action_index(self, py, r#move)
            }
            /// Play a move for the seat to move: a move object, an action id or a notation.
            /// Returns the move's events (dicts, the first `{"type": "move", ...}`). An illegal
            /// move raises `IllegalMoveError` (`GameOverError` once the game is over) and
            /// changes nothing.
            fn apply<'py>(
                slf: &pyo3::Bound<'py, Self>,
                r#move: &pyo3::Bound<'py, pyo3::PyAny>,
            ) -> pyo3::PyResult<$crate::py::events::PyMoveEvents> {
                $crate::py::game_class::apply(slf, r#move)
            }
            /// Every event so far, in order (what `apply()` returned, move after move).
            #[getter]
            fn history<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                $crate::py::game_class::events(self, py, None)
            }
            /// The event log: all of it (`player=None`), or what seat `player` may see.
            #[pyo3(signature = (player = None))]
            fn events<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: Option<$crate::py::args::Int>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                $crate::py::game_class::events(self, py, player)
            }
            /// One dict per finished round (a hand, in Panda Head), each with the `scores` after it.
            #[getter]
            fn round_results<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::BoundGame::round_results(self, py)
            }
            /// The outcome: `is_over`, `winner` (`None` while the game runs), `scores`,
            /// `rounds_played`, and the game's own keys.
            fn result<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::py::game_class::result(self, py)
            }
            /// What `player` may see: their own hand and public information only.
            fn view<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: $crate::py::args::Int,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                let seat = $crate::py::game_class::seat_of(self, player)?;
                $crate::py::game_class::BoundGame::view(self, py, seat)
            }
            /// A float32 numpy array: what `player` may know, in seats relative to them.
            fn observation<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: $crate::py::args::Int,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<f32>>> {
                let seat = $crate::py::game_class::seat_of(self, player)?;
                let values = $crate::py::game_class::BoundGame::observation(self, seat);
                // Copied into a NumPy-owned buffer: cheaper than wrapping the Vec in a capsule.
                Ok(numpy::PyArray1::from_slice(py, &values))
            }
            /// The complete state as plain data (hidden information included).
            fn snapshot<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::BoundGame::snapshot(self, py)
            }
            /// The game record as JSON text: rules, start and every move.
            fn to_json(&self) -> pyo3::PyResult<String> {
                $crate::py::game_class::BoundGame::to_json(self)
            }
            /// Rebuild a game from `to_json()` output, replaying and checking every move.
            #[staticmethod]
            fn from_json(
                py: pyo3::Python<'_>,
                text: $crate::py::args::Text,
            ) -> pyo3::PyResult<Self> {
                <$class as $crate::py::game_class::BoundGame>::from_json(py, &text)
            }
            /// Pickle support: the JSON record, replayed and checked on load.
            fn __reduce__<'py>(
                slf: &pyo3::Bound<'py, Self>,
            ) -> pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, (String,))> {
                use pyo3::types::PyAnyMethods;
                let from_json = slf.get_type().getattr("from_json")?;
                let game = slf.try_borrow().map_err(|_| {
                    $crate::py::errors::concurrent_use(
                        <$class as $crate::py::game_class::BoundGame>::CLASS,
                    )
                })?;
                Ok((from_json, ($crate::py::game_class::BoundGame::to_json(&*game)?,)))
            }
            /// An independent copy.
            fn clone(&self) -> Self {
                Clone::clone(self)
            }
            fn __copy__(&self) -> Self {
                Clone::clone(self)
            }
            fn __deepcopy__(&self, _memo: &pyo3::Bound<'_, pyo3::PyAny>) -> Self {
                Clone::clone(self)
            }
            /// The move a built-in bot (`BOT_NAMES`, or `"ismcts:N"`) picks for the seat to
            /// move; `seed` drives its randomness; it uses only what that seat may know.
            /// `time_limit` (seconds, more than 0 and at most 3600) bounds a search: ISMCTS
            /// returns its best move so far at the deadline; the other bots answer at once.
            /// `GameOverError` once the game is over.
            #[pyo3(signature = (bot = $crate::py::args::Text::new("heuristic"), seed = None,
                                time_limit = None),
                   text_signature = "(self, /, bot='heuristic', seed=None, time_limit=None)")]
            fn bot_move(
                &self,
                py: pyo3::Python<'_>,
                bot: $crate::py::args::Text,
                seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                time_limit: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<<$class as $crate::py::game_class::BoundGame>::Move> {
                $crate::py::game_class::bot_move(self, py, &bot, seed, time_limit)
            }
            /// The game's deck as it plays it: one dict per card id (`id`, `token`, `label`,
            /// `kind`, `suit`, `value`, `faces`, `in_play`), in id order.
            fn cards<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::cards(self, py)
            }
            /// A full game sampled from what `player` knows (docs/agents.md,
            /// "Determinization"): hidden cards dealt anew, consistently with what `player` has
            /// seen; `player`'s own hand and observation are unchanged. Seeded.
            #[pyo3(signature = (player, seed = None))]
            fn determinize(
                &self,
                py: pyo3::Python<'_>,
                player: $crate::py::args::Int,
                seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<Self> {
                $crate::py::game_class::determinize(self, py, player, seed)
            }
        }
    };
}

pub(crate) use bind_game;
