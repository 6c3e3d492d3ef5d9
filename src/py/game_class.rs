//! The methods every game object shares (`HeadGame`, `ClimbGame`), bound once from the core
//! contract.
//!
//! Every shared verb reads the recorded game of the core ([`RecordedGame`]) and its position
//! ([`GameState`] and the capabilities beside it): the generic helpers here turn those into the
//! Python verbs with one argument handling, one error mapping and one locking discipline, and
//! [`bind_game!`] generates each class's shared `#[pymethods]` block from the helpers, so the
//! verbs, their signatures and their docstrings are the same on every game. A game's class
//! provides only conversions ([`GameClass`]: its core game, its move and rules classes, reading
//! an `apply()` argument); per-game extras (constructors, Panda Head's `hand()`, the climbing
//! games' `move_info()`) stay in the class's own `#[pymethods]` block (PyO3's
//! `multiple-pymethods` feature allows the two blocks).
//!
//! Numbering: seats are 0-based everywhere.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::False;
use pyo3::types::{PyDict, PyList};
use pyo3::PyClass;

use super::args::{cut_message, seed_arg, time_limit_arg, Int};
use super::errors::{concurrent_use, to_py as to_py_err, ArgumentError, PolicyError, RulesError};
use super::events::{PyMoveEvents, SpareEvents};
use super::interrupt::interruptible_for;
use super::json::{events_to_py, serde_to_py};
use crate::bots::decide::{decision_until, search_stats_until};
use crate::bots::{BotGame, BotKind};
use crate::contract::{ActionSpace, GameState, MoveOf, Observe, RecordedGame};
use crate::error::EngineError;
use crate::interrupt::NEVER;

/// What a position must offer for every shared verb of its game object.
pub trait BoundState: BotGame + ActionSpace + Observe {}
impl<S: BotGame + ActionSpace + Observe> BoundState for S {}

/// The position of a class's core game.
pub type StateOf<G> = <<G as GameClass>::Core as RecordedGame>::State;
/// The core settings of a class's game.
pub type SettingsOf<G> = <StateOf<G> as GameState>::Settings;

/// A game's Python class: conversions between its core game and Python, nothing else (every
/// verb is computed by the core).
pub trait GameClass: PyClass<Frozen = False> + Clone + Sync {
    /// The recorded game of the core (`HeadGame`, `ClimbGame`).
    type Core: RecordedGame<State: BoundState>;
    /// The game's move class (`HeadMove`, `ClimbMove`).
    type Move: for<'py> IntoPyObject<'py>;
    /// The game's rules class (`HeadRules`, `ClimbSettings`).
    type Rules: for<'py> IntoPyObject<'py> + for<'a, 'py> FromPyObject<'a, 'py> + Clone;

    /// The class name, for messages.
    const CLASS: &'static str;
    /// How errors name the game ("Panda Head is", "the climbing games are").
    const NAMED: &'static str;

    fn core(&self) -> &Self::Core;
    fn core_mut(&mut self) -> &mut Self::Core;
    /// The core game and the `MoveEvents` the object keeps for `apply()` to fill again.
    fn core_and_spare(&mut self) -> (&Self::Core, &mut SpareEvents);
    /// A core game as an object of this class, carrying what `self` carries beside its game
    /// (the deck file a climbing game's rules named): a determinization of `self`.
    fn with_core(&self, core: Self::Core) -> Self;
    /// A core game as an object of this class (a game read from its record).
    fn from_core(core: Self::Core) -> Self;
    fn rules(&self) -> Self::Rules;
    /// The core settings of a rules object.
    fn settings_of(rules: &Self::Rules) -> SettingsOf<Self>;
    /// A rules object of core settings.
    fn rules_of(settings: &SettingsOf<Self>) -> Self::Rules;
    /// A legal move of `core`'s position as a Python move.
    fn py_move(core: &Self::Core, mv: MoveOf<Self::Core>) -> Self::Move;
    /// Read an `apply()` argument completely (it may run Python code) before the game is
    /// borrowed.
    fn request(obj: &Bound<'_, PyAny>) -> PyResult<Request<MoveOf<Self::Core>>>;
    /// The action id of a legal move (a move object or a notation).
    fn action_index(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<usize>;
}

/// What `apply()` was asked to play, read from its Python argument.
pub enum Request<M> {
    Move(M),
    /// An action id (any integer: the core says which are legal).
    Action(Int),
    Notation(String),
    /// Data that is no move (a dict that is not a move record): refused as an illegal move
    /// naming it.
    Unparsable {
        shown: String,
        why: String,
    },
}

/// Apply a request to a core game: a refused one changes nothing.
fn apply_request<R: RecordedGame>(
    game: &mut R,
    request: &Request<MoveOf<R>>,
) -> Result<(), EngineError> {
    match request {
        Request::Move(mv) => game.apply_checked(mv),
        Request::Action(action) => game.apply_action(action.0),
        Request::Notation(text) => game.apply_notation_text(text),
        Request::Unparsable { shown, why } => Err(game.unparsable(shown, why)),
    }
}

/// The position of a game object.
pub fn state_of<G: GameClass>(game: &G) -> &StateOf<G> {
    game.core().state()
}

/// A seat of `game`'s table (`ArgumentError` otherwise).
pub fn seat_of<G: GameClass>(game: &G, player: Int) -> PyResult<u8> {
    player.seat(game.core().state().players())
}

/// A `Result` from the core as a Python result.
pub fn engine<T>(py: Python<'_>, result: Result<T, EngineError>) -> PyResult<T> {
    result.map_err(|e| to_py_err(py, e))
}

/// The size of the game's fixed action space.
pub fn num_actions<G: GameClass>() -> usize {
    <StateOf<G> as ActionSpace>::NUM_ACTIONS
}

/// The legal moves of the seat to move, in increasing order (empty once the game is over).
pub fn legal_moves<G: GameClass>(game: &G, py: Python<'_>) -> PyResult<Vec<G::Move>> {
    let core = game.core();
    let mut moves = Vec::new();
    engine(py, core.state().legal_moves_into(&mut moves))?;
    Ok(moves.into_iter().map(|m| G::py_move(core, m)).collect())
}

/// The legal-action cache of the position (empty once the game is over).
fn legal_of<G: GameClass>(
    game: &G,
    py: Python<'_>,
) -> PyResult<<StateOf<G> as ActionSpace>::Legal> {
    let mut legal = Default::default();
    engine(py, game.core().state().cache_legal(&mut legal))?;
    Ok(legal)
}

/// `legal_action_mask()`: a numpy bool array of `num_actions`, true where the id names a legal
/// move.
pub fn mask_array<'py, G: GameClass>(
    game: &G,
    py: Python<'py>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let legal = legal_of(game, py)?;
    let mut mask = vec![false; num_actions::<G>()];
    game.core().state().write_mask(&legal, &mut mask);
    Ok(PyArray1::from_vec(py, mask))
}

thread_local! {
    /// The ids `legal_actions()` lists, reused: a Python loop asks at every decision, and two
    /// allocations per call were a tenth of such a loop's time.
    static LEGAL_IDS: std::cell::RefCell<Vec<i64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `legal_actions()`: the legal ids, ascending, as a new list.
pub fn legal_actions<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let legal = legal_of(game, py)?;
    LEGAL_IDS.with_borrow_mut(|ids| {
        game.core().state().legal_action_ids_into(&legal, ids);
        PyList::new(py, ids.iter())
    })
}

/// `move_for_action(action)`: the legal move an action id stands for.
pub fn move_for_action<G: GameClass>(game: &G, py: Python<'_>, action: Int) -> PyResult<G::Move> {
    let core = game.core();
    let mv = engine(py, core.move_for_action(action.0))?;
    Ok(G::py_move(core, mv))
}

/// `apply()`: play a move, return its events. The argument is read before the game is borrowed
/// and the exception built after the borrow ends (both may run Python code, which may let
/// another thread in). The events come in the game's spare `MoveEvents` when nobody else holds
/// it ([`SpareEvents`]), else in a new one.
pub fn apply<'py, G: GameClass>(
    slf: &Bound<'py, G>,
    obj: &Bound<'py, PyAny>,
) -> PyResult<Py<PyMoveEvents>> {
    let py = slf.py();
    let request = G::request(obj)?;
    let refused = {
        let mut this = slf.try_borrow_mut().map_err(|_| concurrent_use(G::CLASS))?;
        let before = this.core().events().len();
        match apply_request(this.core_mut(), &request) {
            // Filling the spare runs no Python code; a new one is a plain allocation (its type
            // is no GC type, so no collection and no finalizer can run inside it).
            Ok(()) => {
                let this = &mut *this;
                let (core, spare) = this.core_and_spare();
                let events = core.events().get(before..).unwrap_or_default();
                return spare.hand_out(py, events);
            }
            Err(err) => err,
        }
    };
    Err(to_py_err(py, refused))
}

/// `events(player=None)`: the whole log, or what `player` may see.
pub fn events<'py, G: GameClass>(
    game: &G,
    py: Python<'py>,
    player: Option<Int>,
) -> PyResult<Bound<'py, PyList>> {
    match player {
        None => events_to_py(py, game.core().events()),
        Some(p) => events_to_py(py, &game.core().events_seen_by(seat_of(game, p)?)),
    }
}

/// `public_events()`: what a spectator may see.
pub fn public_events<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    events_to_py(py, &game.core().public_events())
}

/// `round_results`: one dict per finished round.
pub fn round_results<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    serde_to_py(py, &game.core().round_results())
}

/// `result()`: the shared keys (`is_over`, `winner`, `scores`, `rounds_played`) and the game's own.
pub fn result<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let core = game.core();
    let state = core.state();
    let d = PyDict::new(py);
    d.set_item("is_over", state.is_over())?;
    d.set_item("winner", state.winner())?;
    d.set_item("scores", state.scores())?;
    d.set_item("rounds_played", core.rounds_played())?;
    for (key, value) in core.result_extras() {
        d.set_item(key, serde_to_py(py, &value)?)?;
    }
    Ok(d)
}

/// `view(player)`: what `player` may see.
pub fn view<'py, G: GameClass>(
    game: &G,
    py: Python<'py>,
    player: Int,
) -> PyResult<Bound<'py, PyAny>> {
    let seat = seat_of(game, player)?;
    serde_to_py(py, &game.core().view(seat))
}

/// `observation(player)`: a float32 array of what `player` may know.
pub fn observation<'py, G: GameClass>(
    game: &G,
    py: Python<'py>,
    player: Int,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let seat = seat_of(game, player)?;
    let mut values = vec![0.0; <StateOf<G> as Observe>::OBSERVATION_SIZE];
    game.core().state().write_observation(seat, &mut values);
    // Copied into a NumPy-owned buffer: cheaper than wrapping the Vec in a capsule.
    Ok(PyArray1::from_slice(py, &values))
}

/// `snapshot()`: the complete state as plain data.
pub fn snapshot<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    serde_to_py(py, &game.core().snapshot())
}

/// `to_json()`: the record.
pub fn to_json<G: GameClass>(game: &G, py: Python<'_>) -> PyResult<String> {
    engine(py, game.core().to_json())
}

/// `from_json(text)`: a game from its record, replayed and checked.
pub fn from_json<G: GameClass>(py: Python<'_>, text: &str) -> PyResult<G> {
    engine(py, G::Core::from_json(text)).map(G::from_core)
}

/// A built-in bot name, checked by the engine's own parser (`RulesError` naming the bots).
/// A `neural:PATH` whose file is refused is a `PolicyError` (a `RulesError` too).
pub fn bot_kind(name: &str) -> PyResult<BotKind> {
    BotKind::parse(name).map_err(|e| {
        if name.starts_with("neural:") || guided_file_refused(name, &e.0) {
            PolicyError::new_err(cut_message(&e.0))
        } else {
            RulesError::new_err(cut_message(&e.0))
        }
    })
}

/// Whether `ismcts+neural:N:PATH`'s refusal is its policy file's (a well-formed count).
fn guided_file_refused(name: &str, why: &str) -> bool {
    name.strip_prefix("ismcts+neural:")
        .is_some_and(|rest| rest.contains(':') && !why.contains("iteration count"))
}

/// An optional seed, 0 when absent.
pub fn seed_or_zero(seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    Ok(seed.map(seed_arg).transpose()?.unwrap_or(0))
}

/// `bot_move(bot, seed, time_limit)`: every argument is checked before the bot runs. A search
/// can run for seconds, so it runs where Ctrl-C stops it and `time_limit` ends it with its best
/// move so far; the other bots answer at once (no thread; a time limit cannot matter to them).
pub fn bot_move<G: GameClass>(
    game: &G,
    py: Python<'_>,
    bot: &str,
    seed: Option<&Bound<'_, PyAny>>,
    time_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<G::Move> {
    let kind = bot_kind(bot)?;
    let seed = seed_or_zero(seed)?;
    let limit = time_limit.map(time_limit_arg).transpose()?;
    let core = game.core();
    let decision = match kind {
        BotKind::Ismcts { .. } | BotKind::Guided { .. } => {
            interruptible_for(py, limit, |stop| decision_until(core, &kind, seed, stop))?
        }
        BotKind::Random | BotKind::Heuristic | BotKind::Neural(_) => {
            py.detach(|| decision_until(core, &kind, seed, &NEVER))
        }
    };
    Ok(G::py_move(core, engine(py, decision)?))
}

/// `search_stats(bot, seed, time_limit)`: the root statistics of the decision a search bot
/// (`ismcts`, `ismcts+neural`) makes, one `(move, visits, value)` per legal move in
/// `legal_moves()` order, the value on the round scale in `[-1, 1]` (0 unvisited); the search
/// `bot_move(bot, seed)` runs, so its move is the best of these (most visits, ties to the higher
/// value, then the earlier move). Arguments are checked as `bot_move` checks them; a bot that
/// does not search is an `ArgumentError` naming the ones that do.
pub fn search_stats<G: GameClass>(
    game: &G,
    py: Python<'_>,
    bot: &str,
    seed: Option<&Bound<'_, PyAny>>,
    time_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<(G::Move, u32, f64)>> {
    let kind = bot_kind(bot)?;
    if !matches!(kind, BotKind::Ismcts { .. } | BotKind::Guided { .. }) {
        return Err(ArgumentError::new_err(format!(
            "search_stats needs a search bot: `ismcts`, `ismcts:N`, `ismcts+neural`, \
             `ismcts+neural:N` or `ismcts+neural:N:PATH`, got {:?}",
            cut_message(bot)
        )));
    }
    let seed = seed_or_zero(seed)?;
    let limit = time_limit.map(time_limit_arg).transpose()?;
    let core = game.core();
    let stats = interruptible_for(py, limit, |stop| {
        search_stats_until(core, &kind, seed, stop)
    })?;
    let (stats, _best) = engine(py, stats)?.expect("a search bot's statistics");
    Ok(stats
        .into_iter()
        .map(|s| (G::py_move(core, s.mv), s.visits, s.value))
        .collect())
}

/// `cards()`: one dict per card id of the game's deck (docs/game_api.md, "Cards").
pub fn cards<'py, G: GameClass>(game: &G, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
    serde_to_py(py, &game.core().cards())
}

/// `determinize(player, seed)`: sampled with the GIL released.
pub fn determinize<G: GameClass>(
    game: &G,
    py: Python<'_>,
    player: Int,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<G> {
    let seat = seat_of(game, player)?;
    let seed = seed_or_zero(seed)?;
    let core = game.core();
    let sample = py.detach(|| core.determinize(seat, seed));
    Ok(game.with_core(engine(py, sample)?))
}

/// `_repr_html_()` of a game or a seat object: the notebook view, drawn by the Python package
/// (`panda_core.html.repr_html(obj)`); the binding renders nothing itself.
pub fn repr_html(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let html = obj.py().import("panda_core.html")?.getattr("repr_html")?;
    html.call1((obj,))?.extract()
}

/// The shared `#[pymethods]` block of a game class: `bind_game!(PyHeadGame)`. Each method is a
/// one-line call of a generic helper above or of the class's [`GameClass`] conversions.
macro_rules! bind_game {
    ($class:ty) => {
        #[pyo3::pymethods]
        impl $class {
            /// Number of players (2–5).
            #[getter]
            fn players(&self) -> u8 {
                $crate::contract::GameState::players($crate::py::game_class::state_of(self))
            }
            /// The seat to move (0-based), or `None` once the game is over.
            #[getter]
            fn current_player(&self) -> Option<u8> {
                $crate::contract::GameState::current_player($crate::py::game_class::state_of(self))
            }
            #[getter]
            fn is_over(&self) -> bool {
                $crate::contract::GameState::is_over($crate::py::game_class::state_of(self))
            }
            /// The winning seat once the game is over, else `None`.
            #[getter]
            fn winner(&self) -> Option<u8> {
                $crate::contract::GameState::winner($crate::py::game_class::state_of(self))
            }
            /// Each seat's score.
            #[getter]
            fn scores(&self) -> Vec<u32> {
                $crate::contract::GameState::scores($crate::py::game_class::state_of(self)).to_vec()
            }
            /// The rules this game is played by (`HeadRules` or `ClimbSettings`).
            #[getter]
            fn rules(&self) -> <$class as $crate::py::game_class::GameClass>::Rules {
                $crate::py::game_class::GameClass::rules(self)
            }
            /// Size of the fixed action space: ids are `0 .. num_actions - 1`.
            #[getter]
            fn num_actions(&self) -> usize {
                $crate::py::game_class::num_actions::<$class>()
            }

            /// The legal moves of the seat to move (empty once the game is over).
            fn legal_moves(
                &self,
                py: pyo3::Python<'_>,
            ) -> pyo3::PyResult<Vec<<$class as $crate::py::game_class::GameClass>::Move>> {
                $crate::py::game_class::legal_moves(self, py)
            }
            /// The legal action ids, ascending (the true indices of `legal_action_mask()`).
            fn legal_actions<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
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
            ) -> pyo3::PyResult<<$class as $crate::py::game_class::GameClass>::Move> {
                $crate::py::game_class::move_for_action(self, py, action)
            }
            /// The action id of a legal move (a move object or a notation).
            fn action_index(
                &self,
                py: pyo3::Python<'_>,
                r#move: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<usize> {
                $crate::py::game_class::GameClass::action_index(self, py, r#move)
            }
            /// Play a move for the seat to move: a move object, an action id or a notation.
            /// Returns the move's events (dicts, the first `{"type": "move", ...}`). An illegal
            /// move raises `IllegalMoveError` (`GameOverError` once the game is over) and
            /// changes nothing.
            fn apply<'py>(
                slf: &pyo3::Bound<'py, Self>,
                r#move: &pyo3::Bound<'py, pyo3::PyAny>,
            ) -> pyo3::PyResult<pyo3::Py<$crate::py::events::PyMoveEvents>> {
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
            /// The events a spectator may see: every seat's private cards hidden (a draw shows
            /// who drew, not the card; a deal shows no hand).
            fn public_events<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyList>> {
                $crate::py::game_class::public_events(self, py)
            }
            /// One dict per finished round (a hand, in Panda Head), each with the `scores` after it.
            #[getter]
            fn round_results<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::round_results(self, py)
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
                $crate::py::game_class::view(self, py, player)
            }
            /// A float32 numpy array: what `player` may know, in seats relative to them.
            fn observation<'py>(
                &self,
                py: pyo3::Python<'py>,
                player: $crate::py::args::Int,
            ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<f32>>> {
                $crate::py::game_class::observation(self, py, player)
            }
            /// The complete state as plain data (hidden information included).
            fn snapshot<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::PyAny>> {
                $crate::py::game_class::snapshot(self, py)
            }
            /// The game record as JSON text: rules, start and every move.
            fn to_json(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<String> {
                $crate::py::game_class::to_json(self, py)
            }
            /// Rebuild a game from `to_json()` output, replaying and checking every move.
            #[staticmethod]
            fn from_json(
                py: pyo3::Python<'_>,
                text: $crate::py::args::Text,
            ) -> pyo3::PyResult<Self> {
                $crate::py::game_class::from_json::<$class>(py, &text)
            }
            /// Pickle support: the JSON record, replayed and checked on load.
            fn __reduce__<'py>(
                slf: &pyo3::Bound<'py, Self>,
            ) -> pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, (String,))> {
                use pyo3::types::PyAnyMethods;
                let from_json = slf.get_type().getattr("from_json")?;
                let game = slf.try_borrow().map_err(|_| {
                    $crate::py::errors::concurrent_use(
                        <$class as $crate::py::game_class::GameClass>::CLASS,
                    )
                })?;
                Ok((from_json, ($crate::py::game_class::to_json(&*game, slf.py())?,)))
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
            ) -> pyo3::PyResult<<$class as $crate::py::game_class::GameClass>::Move> {
                $crate::py::game_class::bot_move(self, py, &bot, seed, time_limit)
            }
            /// The root statistics of the search bot `bot`'s decision (`"ismcts:N"`,
            /// `"ismcts+neural:N"`, ...): one `(move, visits, value)` per legal move, in
            /// `legal_moves()` order; `value` is the move's mean for the seat to move on the
            /// round scale `[-1, 1]` (`2 v - 1` of the search's `[0, 1]` value; 0 when
            /// unvisited). The same search as `bot_move(bot, seed)`: its move is the one with
            /// the most visits (ties: the higher value, then the earlier move). A forced move
            /// is not searched (0 visits). `seed` and `time_limit` as in `bot_move`; a bot that
            /// does not search is an `ArgumentError`; `GameOverError` once the game is over.
            #[pyo3(signature = (bot = $crate::py::args::Text::new("ismcts:200"), seed = None,
                                time_limit = None),
                   text_signature = "(self, /, bot='ismcts:200', seed=None, time_limit=None)")]
            fn search_stats(
                &self,
                py: pyo3::Python<'_>,
                bot: $crate::py::args::Text,
                seed: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
                time_limit: Option<&pyo3::Bound<'_, pyo3::PyAny>>,
            ) -> pyo3::PyResult<Vec<(<$class as $crate::py::game_class::GameClass>::Move, u32, f64)>> {
                $crate::py::game_class::search_stats(self, py, &bot, seed, time_limit)
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
            /// The notebook view (Jupyter): the board with every hand (this is your own game
            /// object), drawn as the web page draws it, with a plain-text fallback.
            fn _repr_html_(slf: &pyo3::Bound<'_, Self>) -> pyo3::PyResult<String> {
                $crate::py::game_class::repr_html(slf.as_any())
            }
        }
    };
}

pub(crate) use bind_game;
