//! The seat object: the only thing a Python bot is handed (`game.seat(player)`).
//!
//! A seat class (`HeadSeat`, `ClimbSeat`) holds a private copy of its game that Python cannot
//! reach (no attribute, no pickle, no `snapshot()`), and answers only what its seat may know:
//! the verbs are the game's, each restricted to the seat (another seat's view is refused; the
//! legal moves exist only while the seat is to move, since another seat's would show its hand).
//! A search samples complete games from the seat's information with `determinize(seed)`; the
//! built-in bots decide for it with `bot_move(...)`. `to_json()` is what it knows as JSON text
//! ([`crate::seat::seat_info`]), the form the bot protocol sends.
//!
//! [`seat_class!`] generates a game's seat class from its game class and adds `seat(player)` to
//! the game; per-game extras (Panda Head's `hand()`, the climbing games' `move_info()`) are in
//! the game's binding file.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use super::args::Int;
use super::errors::ArgumentError;
use super::game_class::{engine, seat_of, GameClass};
use crate::contract::{GameState, RecordedGame};
use crate::seat::{is_to_move, legal_entries, seat_info, LegalEntry};

/// What a seat class holds: its game (private) and its seat.
pub trait SeatClass {
    type Game: GameClass;
    const CLASS: &'static str;
    fn game(&self) -> &Self::Game;
    fn player(&self) -> u8;
}

/// `player` if it names this seat (`None`: this seat); `ArgumentError` for another seat.
pub fn own<S: SeatClass>(seat: &S, player: Option<Int>, what: &str) -> PyResult<u8> {
    let me = seat.player();
    let Some(player) = player else {
        return Ok(me);
    };
    let asked = seat_of(seat.game(), player)?;
    if asked == me {
        return Ok(me);
    }
    Err(ArgumentError::new_err(format!(
        "seat {me} cannot see seat {asked}'s {what}: a {} shows only its own seat's \
         ({what}() or {what}({me}))",
        S::CLASS
    )))
}

/// Whether this seat is the one to move.
pub fn mine<S: SeatClass>(seat: &S) -> bool {
    is_to_move(seat.game().core(), seat.player())
}

/// Refused unless this seat is to move (the legal moves of another seat show its hand).
pub fn to_move<S: SeatClass>(seat: &S, what: &str) -> PyResult<()> {
    if mine(seat) {
        return Ok(());
    }
    let why = match seat.game().core().state().current_player() {
        Some(other) => format!("seat {other} is to move"),
        None => "the game is over".to_string(),
    };
    Err(ArgumentError::new_err(format!(
        "{what} is for the seat to move: {why}, not seat {}",
        seat.player()
    )))
}

/// `legal_list()`: `{"id", "notation"}` per legal move of this seat (empty unless it is to move).
pub fn legal_list<'py, S: SeatClass>(seat: &S, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    let entries: Vec<LegalEntry> = engine(py, legal_entries(seat.game().core(), seat.player()))?;
    super::json::serde_to_py(py, &entries)
}

/// `to_json()`: what this seat knows, as JSON text.
pub fn info_json<S: SeatClass>(seat: &S, py: Python<'_>) -> PyResult<String> {
    let info = engine(py, seat_info(seat.game().core(), seat.player()))?;
    serde_json::to_string(&info).map_err(|e| ArgumentError::new_err(e.to_string()))
}

/// The refusal of pickling a seat.
pub fn not_pickled(class: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "a {class} is not pickled: it is one seat's window on a live game; send its \
         to_json() (what the seat knows) instead"
    ))
}

/// The seat class `$seat` (Python name `$name`) of the game class `$game`, and `$game.seat()`.
macro_rules! seat_class {
    ($seat:ident, $game:ty, $name:literal) => {
        #[doc = concat!("One seat of a game: what that seat may know (`game.seat(player)`).")]
        #[pyo3::pyclass(name = $name, module = "panda_core._core", frozen)]
        #[derive(Clone)]
        pub struct $seat {
            game: $game,
            player: u8,
        }

        impl $crate::py::seat_class::SeatClass for $seat {
            type Game = $game;
            const CLASS: &'static str = $name;
            fn game(&self) -> &$game {
                &self.game
            }
            fn player(&self) -> u8 {
                self.player
            }
        }

        #[pyo3::pymethods]
        impl $game {
            /// The seat object of `player`: what that seat may know, and nothing else. This is
            /// what a bot is handed (docs/game_api.md, "Seats").
            fn seat(&self, player: $crate::py::args::Int) -> pyo3::PyResult<$seat> {
                let player = $crate::py::game_class::seat_of(self, player)?;
                Ok($seat {
                    game: Clone::clone(self),
                    player,
                })
            }
        }

        #[pyo3::pymethods]
        impl $seat {
            /// This seat (0-based).
            #[getter]
            fn player(&self) -> u8 {
                self.player
            }
            /// Number of players (2–5).
            #[getter]
            fn players(&self) -> u8 {
                $crate::contract::GameState::players($crate::py::game_class::state_of(&self.game))
            }
            /// The seat to move (0-based), or `None` once the game is over.
            #[getter]
            fn current_player(&self) -> Option<u8> {
                $crate::contract::GameState::current_player(
                    $crate::py::game_class::state_of(&self.game),
                )
            }
            #[getter]
            fn is_over(&self) -> bool {
                $crate::contract::GameState::is_over($crate::py::game_class::state_of(&self.game))
            }
            /// The winning seat once the game is over, else `None`.
            #[getter]
            fn winner(&self) -> Option<u8> {
                $crate::contract::GameState::winner($crate::py::game_class::state_of(&self.game))
            }
            /// Each seat's score.
            #[getter]
            fn scores(&self) -> Vec<u32> {
                $crate::contract::GameState::scores($crate::py::game_class::state_of(&self.game))
                    .to_vec()
            }
            /// The rules the game is played by.
            #[getter]
            fn rules(&self) -> <$game as $crate::py::game_class::GameClass>::Rules {
                $crate::py::game_class::GameClass::rules(&self.game)
            }
            /// Size of the fixed action space.
            #[getter]
            fn num_actions(&self) -> usize {
                $crate::py::game_class::num_actions::<$game>()
            }
            /// This seat's legal moves while it is to move; empty otherwise.
            fn legal_moves(
                &self,
                py: pyo3::Python<'_>,
            ) -> pyo3::PyResult<Vec<<$game as $crate::py::game_class::GameClass>::Move>> {
                if !$crate::py::seat_class::mine(self) {
                    return Ok(Vec::new());
                }
                $crate::py::game_class::legal_moves(&self.game, py)
            }
            /// This seat's legal action ids while it is to move (ascending); empty otherwise.
            fn legal_actions<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                if !$crate::py::seat_class::mine(self) {
                    return Ok(pyo3::types::PyList::empty(py));
                }
                $crate::py::game_class::legal_actions(&self.game, py)
            }
            /// A bool numpy array of shape `(num_actions,)`: this seat's legal actions while it
            /// is to move; all false otherwise.
            fn legal_action_mask<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<bool>>> {
                if !$crate::py::seat_class::mine(self) {
                    let none = vec![false; $crate::py::game_class::num_actions::<$game>()];
                    return Ok(numpy::PyArray1::from_vec(py, none));
                }
                $crate::py::game_class::mask_array(&self.game, py)
            }
            /// `{"id", "notation"}` per legal move of this seat, in `legal_moves()` order
            /// (empty unless it is to move). `id` is `None` for a move no action id reaches; in
            /// the climbing games several moves may share an id (an abstract action).
            fn legal_list<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::seat_class::legal_list(self, py)
            }
            /// The legal move an action id stands for (this seat to move).
            fn move_for_action(
                &self,
                py: pyo3::Python<'_>,
                action: $crate::py::args::Int,
            ) -> pyo3::PyResult<<$game as $crate::py::game_class::GameClass>::Move> {
                $crate::py::seat_class::to_move(self, "move_for_action")?;
                $crate::py::game_class::move_for_action(&self.game, py, action)
            }
            /// The action id of a legal move of this seat (a move object or a notation).
            fn action_index(
                &self,
                py: pyo3::Python<'_>,
                r#move: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<usize> {
                $crate::py::seat_class::to_move(self, "action_index")?;
                $crate::py::game_class::GameClass::action_index(&self.game, py, r#move)
            }
            /// The events this seat has seen, in order (the public history and its own cards).
            #[getter]
            fn history<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                let me = $crate::py::args::Int(i128::from(self.player));
                $crate::py::game_class::events(&self.game, py, Some(me))
            }
            /// The events this seat has seen (`player`, if given, must be this seat).
            #[pyo3(signature = (player = None))]
            fn events<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: Option<$crate::py::args::Int>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                let me = $crate::py::seat_class::own(self, player, "events")?;
                $crate::py::game_class::events(&self.game, py, Some($crate::py::args::Int(i128::from(me))))
            }
            /// One dict per finished round (public).
            #[getter]
            fn round_results<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::round_results(&self.game, py)
            }
            /// The outcome so far (public): as `game.result()`.
            fn result<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
                $crate::py::game_class::result(&self.game, py)
            }
            /// This seat's view (`player`, if given, must be this seat).
            #[pyo3(signature = (player = None))]
            fn view<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: Option<$crate::py::args::Int>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                let me = $crate::py::seat_class::own(self, player, "view")?;
                $crate::py::game_class::view(&self.game, py, $crate::py::args::Int(i128::from(me)))
            }
            /// This seat's observation (`player`, if given, must be this seat).
            #[pyo3(signature = (player = None))]
            fn observation<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: Option<$crate::py::args::Int>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<f32>>> {
                let me = $crate::py::seat_class::own(self, player, "observation")?;
                $crate::py::game_class::observation(&self.game, py, $crate::py::args::Int(i128::from(me)))
            }
            /// What this seat knows as JSON text: `seat`, `players`, `to_move`, `over`,
            /// `winner`, `scores`, `view`, `events`, `round_results`, `legal`.
            fn to_json(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<String> {
                $crate::py::seat_class::info_json(self, py)
            }
            /// The move a built-in bot picks for this seat (this seat to move), from this
            /// seat's information only; as `game.bot_move`.
            #[pyo3(signature = (bot = $crate::py::args::Text::new("heuristic"), seed = None,
                                time_limit = None),
                   text_signature = "(self, /, bot='heuristic', seed=None, time_limit=None)")]
            fn bot_move(
                &self,
                py: pyo3::Python<'_>,
                bot: $crate::py::args::Text,
                seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                time_limit: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<<$game as $crate::py::game_class::GameClass>::Move> {
                $crate::py::game_class::bot_kind(&bot)?;
                $crate::py::seat_class::to_move(self, "bot_move")?;
                $crate::py::game_class::bot_move(&self.game, py, &bot, seed, time_limit)
            }
            /// The game's deck (public): as `game.cards()`.
            fn cards<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::cards(&self.game, py)
            }
            /// A complete game sampled from this seat's information (hidden cards dealt anew,
            /// consistently with what it has seen), for a search to play on. `determinize(seed)`;
            /// `determinize(player, seed)` as on a game is accepted with `player` this seat.
            #[pyo3(signature = (*args, seed = None))]
            fn determinize(
                &self,
                py: pyo3::Python<'_>,
                args: &pyo3::Bound<'_, pyo3::types::PyTuple>,
                seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<$game> {
                use pyo3::types::{PyAnyMethods, PyTupleMethods};
                let (player, seed) = match (args.len(), seed) {
                    (0, seed) => (None, seed.cloned()),
                    (1, None) => (None, Some(args.get_item(0)?)),
                    (1, Some(seed)) => (Some(args.get_item(0)?), Some(seed.clone())),
                    (2, None) => (Some(args.get_item(0)?), Some(args.get_item(1)?)),
                    _ => {
                        return Err(pyo3::exceptions::PyTypeError::new_err(
                            "determinize takes (seed) or (player, seed)",
                        ))
                    }
                };
                let player = match player {
                    Some(p) => Some(p.extract::<$crate::py::args::Int>()?),
                    None => None,
                };
                let me = $crate::py::seat_class::own(self, player, "determinize")?;
                $crate::py::game_class::determinize(&self.game, py, $crate::py::args::Int(i128::from(me)), seed.as_ref())
            }
            fn __repr__(&self) -> String {
                let turn = match $crate::contract::GameState::current_player(
                    $crate::py::game_class::state_of(&self.game),
                ) {
                    Some(p) => format!("seat {p} to move"),
                    None => "game over".to_string(),
                };
                format!("{}(player={}, {turn})", $name, self.player)
            }
            /// The notebook view (Jupyter): this seat's state only (its own hand, the events it
            /// saw), drawn as the web page draws it, with a plain-text fallback.
            fn _repr_html_(slf: &pyo3::Bound<'_, Self>) -> pyo3::PyResult<String> {
                $crate::py::game_class::repr_html(slf.as_any())
            }
            /// Pickling is refused: see `to_json()`.
            fn __reduce__(&self) -> pyo3::PyResult<()> {
                Err($crate::py::seat_class::not_pickled($name))
            }
            fn __copy__(&self) -> Self {
                Clone::clone(self)
            }
            fn __deepcopy__(&self, _memo: &pyo3::Bound<'_, pyo3::PyAny>) -> Self {
                Clone::clone(self)
            }
        }
    };
}

pub(crate) use seat_class;
