//! Python classes for Panda Head: `HeadRules`, `HeadMove`, `HeadGame`.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::py::args::{rules_int, shown, state_int, text_of, Int, Text};
// The batch and vector-env bindings import the argument checks from here.
use crate::contract::RecordedGame;
use crate::head::action::{BAMBOO_ALONE, BIG_PANDA};
use crate::head::cards::{self, CardSet};
use crate::head::move_info::{move_info, MoveInfo};
use crate::head::observation::OBSERVATION_SIZE;
use crate::head::rules::MAX_SCORE;
use crate::head::snapshot::parse_snapshot;
use crate::head::{
    Action, ActionId, Deal, HeadGame, HeadRules, HeadState, LastPileScoring, NUM_ACTIONS,
};
pub use crate::py::args::{players_arg, seed_arg};
use crate::py::errors::{to_py as to_py_err, IntoPyResult, InvalidStateError, RulesError};
use crate::py::events::SpareEvents;
use crate::py::game_class::{self, GameClass, Request};
use crate::py::json::from_py;

/// How errors name Panda Head.
pub const HEAD: &str = "Panda Head is";

/// The H-7 variants and the first dealer (immutable, hashable).
#[pyclass(name = "HeadRules", module = "panda_core._core", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyHeadRules {
    pub inner: HeadRules,
}

#[pymethods]
impl PyHeadRules {
    #[new]
    #[pyo3(signature = (*, last_pile_scoring = Text::new("pile_sum"), poor_panda = true,
        lowest_only_when_cannot_follow = false, bust_threshold = Int(21), special_cards = true,
        first_dealer = Int(0)),
        text_signature = "(*, last_pile_scoring='pile_sum', poor_panda=True, \
        lowest_only_when_cannot_follow=False, bust_threshold=21, special_cards=True, \
        first_dealer=0)")]
    fn new(
        last_pile_scoring: Text,
        poor_panda: bool,
        lowest_only_when_cannot_follow: bool,
        bust_threshold: Int,
        special_cards: bool,
        first_dealer: Int,
    ) -> PyResult<Self> {
        let scoring = LastPileScoring::parse(&last_pile_scoring)
            .map_err(|e| RulesError::new_err(crate::py::args::cut_message(&e.0)))?;
        // The same range and words as `HeadRules::validate`, which every game checks again: the
        // settings object never holds rules a game would refuse.
        let bust_threshold = rules_int(
            bust_threshold,
            "bust_threshold",
            (1, MAX_SCORE.into()),
            &format!("a positive integer up to {MAX_SCORE}"),
        )?;
        let first_dealer = rules_int(first_dealer, "first_dealer", (0, 4), "a seat 0..=4")?;
        Ok(Self {
            inner: HeadRules {
                last_pile_scoring: scoring,
                poor_panda,
                lowest_only_when_cannot_follow,
                bust_threshold,
                special_cards,
                first_dealer,
            },
        })
    }

    #[getter]
    fn last_pile_scoring(&self) -> &'static str {
        self.inner.last_pile_scoring.name()
    }
    #[getter]
    fn poor_panda(&self) -> bool {
        self.inner.poor_panda
    }
    #[getter]
    fn lowest_only_when_cannot_follow(&self) -> bool {
        self.inner.lowest_only_when_cannot_follow
    }
    #[getter]
    fn bust_threshold(&self) -> u32 {
        self.inner.bust_threshold
    }
    #[getter]
    fn special_cards(&self) -> bool {
        self.inner.special_cards
    }
    #[getter]
    fn first_dealer(&self) -> u8 {
        self.inner.first_dealer
    }

    /// The rules as a plain dict (the same keys as the constructor).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        rules_dict(py, &self.inner)
    }

    /// Pickle support: rebuild through the keyword constructor.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyAny>,))> {
        let py = slf.py();
        let builder = py.import("panda_core.head")?.getattr("_rules_from_dict")?;
        Ok((builder, (rules_dict(py, &slf.get().inner)?.into_any(),)))
    }

    fn __repr__(&self) -> String {
        let r = &self.inner;
        let b = |v: bool| if v { "True" } else { "False" };
        format!(
            "HeadRules(last_pile_scoring='{}', poor_panda={}, lowest_only_when_cannot_follow={}, \
             bust_threshold={}, special_cards={}, first_dealer={})",
            r.last_pile_scoring.name(),
            b(r.poor_panda),
            b(r.lowest_only_when_cannot_follow),
            r.bust_threshold,
            b(r.special_cards),
            r.first_dealer
        )
    }
}

fn rules_dict<'py>(py: Python<'py>, r: &HeadRules) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("last_pile_scoring", r.last_pile_scoring.name())?;
    d.set_item("poor_panda", r.poor_panda)?;
    d.set_item(
        "lowest_only_when_cannot_follow",
        r.lowest_only_when_cannot_follow,
    )?;
    d.set_item("bust_threshold", r.bust_threshold)?;
    d.set_item("special_cards", r.special_cards)?;
    d.set_item("first_dealer", r.first_dealer)?;
    Ok(d)
}

/// One legal move: what is played, its action id, the cards that leave the hand and its value.
#[pyclass(name = "HeadMove", module = "panda_core._core", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyHeadMove {
    action: ActionId,
    cards: CardSet,
    effective_value: Option<u8>,
}

impl PyHeadMove {
    /// The move `id` as the current player of `state` would make it.
    /// The move `id` makes in `state`: its cards and value come from the core (H-1.4, H-4).
    fn in_state(state: &HeadState, id: ActionId) -> Self {
        let info = move_info(state, id).unwrap_or(MoveInfo {
            action: id,
            cards: 0,
            effective_value: None,
        });
        Self {
            action: info.action,
            cards: info.cards,
            effective_value: info.effective_value,
        }
    }
}

#[pymethods]
impl PyHeadMove {
    /// The stable action id (0..NUM_HEAD_ACTIONS).
    #[getter]
    fn action_id(&self) -> ActionId {
        self.action
    }
    /// `"panda"`, `"panda_bamboo"`, `"big_panda"` or `"bamboo"`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.act().kind_name()
    }
    /// The face value of the regular Panda played, `None` for a Big Panda or a Bamboo alone.
    #[getter]
    fn value(&self) -> Option<u8> {
        match self.act() {
            Action::Panda(v) | Action::PandaWithBamboo(v) => Some(v),
            _ => None,
        }
    }
    /// The value the play will have on the pile, `None` when a hidden card decides it.
    #[getter]
    fn effective_value(&self) -> Option<u8> {
        self.effective_value
    }
    /// Card ids that leave the hand (the lowest copy of each kind, H-1.4).
    #[getter]
    fn cards(&self) -> Vec<u32> {
        id_list(self.cards)
    }
    /// Short notation: `7`, `7+B`, `BP`, `B`.
    #[getter]
    fn notation(&self) -> String {
        self.act().notation()
    }
    fn __str__(&self) -> String {
        self.notation()
    }
    fn __repr__(&self) -> String {
        format!("HeadMove('{}')", self.notation())
    }

    /// Pickle and copy support: the three fields, rebuilt by `_restore`.
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, (ActionId, Vec<u32>, Option<u8>))> {
        let m = slf.get();
        let restore = slf.get_type().getattr("_restore")?;
        Ok((restore, (m.action, id_list(m.cards), m.effective_value)))
    }

    /// Rebuild a move from `__reduce__`'s fields, checked (anyone can call this): a valid action
    /// id, card ids of the deck, at most two of them.
    #[staticmethod]
    fn _restore(action_id: Int, cards: Vec<Int>, effective_value: Option<Int>) -> PyResult<Self> {
        let bad = |what: String| InvalidStateError::new_err(format!("not a HeadMove: {what}"));
        let last_action = i128::from(NUM_ACTIONS as u8) - 1;
        let action = action_id
            .in_range("action_id", 0, last_action)
            .map_err(|e| bad(e.to_string()))? as ActionId;
        if cards.len() > 2 {
            return Err(bad(format!(
                "a move plays at most 2 cards, got {}",
                cards.len()
            )));
        }
        let mut set: CardSet = 0;
        for c in cards {
            let id = c
                .in_range("card id", 0, 62)
                .map_err(|e| bad(e.to_string()))?;
            set |= 1u64 << id;
        }
        let effective_value = effective_value
            .map(|v| v.in_range("effective_value", 0, 255).map(|v| v as u8))
            .transpose()
            .map_err(|e| bad(e.to_string()))?;
        Ok(Self {
            action,
            cards: set,
            effective_value,
        })
    }
}

impl PyHeadMove {
    fn act(&self) -> Action {
        Action::from_id(self.action).expect("HeadMove always holds a valid id")
    }
}

/// A Panda Head game in progress (docs/rules/head.md).
///
/// Thread safety (docs/errors.md): reads may run from any number of threads at once; a change
/// while another thread is inside a call on this game (in practice one that releases the GIL:
/// `bot_move`, `determinize`) is refused with `ConcurrentUseError`, state unchanged. A change never
/// runs Python code while it holds the game, so no read sees it half made.
#[pyclass(name = "HeadGame", module = "panda_core._core")]
#[derive(Clone)]
pub struct PyHeadGame {
    game: HeadGame,
    /// The last `MoveEvents` `apply()` returned, filled again when nobody else holds it.
    spare: SpareEvents,
}

impl PyHeadGame {
    /// Wrap a core game (the vector env hands out copies of its games this way).
    pub fn from_core(game: HeadGame) -> Self {
        Self {
            game,
            spare: SpareEvents::default(),
        }
    }
}

#[pymethods]
impl PyHeadGame {
    /// A new game: `players` 2–5, `seed` 0..2**64-1, `rules` defaults to `HeadRules()`.
    #[new]
    #[pyo3(signature = (players, seed, rules = None))]
    fn new(
        py: Python<'_>,
        players: Int,
        seed: &Bound<'_, PyAny>,
        rules: Option<PyHeadRules>,
    ) -> PyResult<Self> {
        let players = players_arg(players, HEAD)?;
        let seed = seed_arg(seed)?;
        let rules = rules.map(|r| r.inner).unwrap_or_default();
        Ok(Self {
            game: HeadGame::new(players, seed, rules).py_err(py)?,
            spare: SpareEvents::default(),
        })
    }

    /// A position from a `snapshot()` dict, checked strictly (any point of a hand). The
    /// snapshot holds no rules: pass the game's `rules` (default rules otherwise).
    #[staticmethod]
    #[pyo3(signature = (snapshot, rules = None))]
    fn from_snapshot(snapshot: &Bound<'_, PyAny>, rules: Option<PyHeadRules>) -> PyResult<Self> {
        let snap = parse_snapshot(&from_py(snapshot)?)
            .map_err(|e| InvalidStateError::new_err(crate::py::args::cut_message(&e.0)))?;
        let rules = rules.map(|r| r.inner).unwrap_or_default();
        let game = HeadGame::from_snapshot(snap, rules)
            .map_err(|e| InvalidStateError::new_err(crate::py::args::cut_message(&e.0)))?;
        Ok(Self::from_core(game))
    }

    /// A game from an explicit deal at the start of a hand. `draw_pile` is top card first; Pooped
    /// seats hold no cards; `rng_state` seeds the shuffles of later hands.
    #[staticmethod]
    #[pyo3(signature = (hands, draw_pile, *, dealer = Int(0), scores = None, drowsy = None,
        pooped = None, rng_state = None, hand_number = Int(0), rules = None),
        text_signature = "(hands, draw_pile, *, dealer=0, scores=None, drowsy=None, \
        pooped=None, rng_state=None, hand_number=0, rules=None)")]
    #[allow(clippy::too_many_arguments)]
    fn from_deal(
        py: Python<'_>,
        hands: Vec<Vec<Int>>,
        draw_pile: Vec<Int>,
        dealer: Int,
        scores: Option<Vec<Int>>,
        drowsy: Option<Vec<bool>>,
        pooped: Option<Vec<bool>>,
        rng_state: Option<&Bound<'_, PyAny>>,
        hand_number: Int,
        rules: Option<PyHeadRules>,
    ) -> PyResult<Self> {
        // More than 5 hands is refused before anything is built from them.
        let players = players_arg(Int(hands.len() as i128), HEAD)?;
        let n = players as usize;
        let deal = Deal {
            hands: hands
                .iter()
                .map(|h| h.iter().map(|&c| card_id(c)).collect())
                .collect::<PyResult<_>>()?,
            draw_pile: draw_pile
                .iter()
                .map(|&c| card_id(c))
                .collect::<PyResult<_>>()?,
            // Seat ranges depend on the table: the core checks them, the binding only makes a byte.
            dealer: state_int(dealer, "dealer (a seat)", u8::MAX.into())?,
            scores: match scores {
                None => vec![0; n],
                Some(s) => s
                    .iter()
                    .map(|&s| state_int(s, "scores", u32::MAX.into()))
                    .collect::<PyResult<_>>()?,
            },
            drowsy: drowsy.unwrap_or_else(|| vec![false; n]),
            pooped: pooped.unwrap_or_else(|| vec![false; n]),
            rng_state: rng_state.map(seed_arg).transpose()?.unwrap_or(0),
            hand_number: state_int(hand_number, "hand_number", u32::MAX.into())?,
        };
        let rules = rules.map(|r| r.inner).unwrap_or_default();
        Ok(Self {
            game: HeadGame::from_deal(players, deal, rules).py_err(py)?,
            spare: SpareEvents::default(),
        })
    }

    #[getter]
    fn dealer(&self) -> u8 {
        self.st().dealer()
    }
    #[getter]
    fn leader(&self) -> u8 {
        self.st().leader()
    }
    /// 0-based index of the hand in progress.
    #[getter]
    fn hand_number(&self) -> u32 {
        self.st().hand_number()
    }
    /// 0-based index of the pile in progress (0..=6).
    #[getter]
    fn pile_number(&self) -> u8 {
        self.st().pile_number()
    }
    #[getter]
    fn drowsy(&self) -> Vec<bool> {
        (0..self.st().players())
            .map(|s| self.st().is_drowsy(s))
            .collect()
    }
    #[getter]
    fn pooped(&self) -> Vec<bool> {
        (0..self.st().players())
            .map(|s| self.st().is_pooped(s))
            .collect()
    }
    /// The card ids of `seat`'s hand (the full state: use `view()` for what a player may see).
    fn hand(&self, seat: Int) -> PyResult<Vec<u32>> {
        let seat = self.seat_arg(seat)?;
        Ok(id_list(self.st().hand(seat)))
    }
    /// The draw pile, top card first (hidden information).
    #[getter]
    fn draw_pile(&self) -> Vec<u32> {
        widen(self.st().draw_pile())
    }

    fn __repr__(&self) -> String {
        let st = self.st();
        match st.winner() {
            Some(w) => format!(
                "<HeadGame {} players, over, winner {w}, scores {:?}>",
                st.players(),
                st.scores()
            ),
            None => format!(
                "<HeadGame {} players, hand {} pile {}, seat {} to play, scores {:?}>",
                st.players(),
                st.hand_number(),
                st.pile_number(),
                st.current_player().unwrap_or(0),
                st.scores()
            ),
        }
    }
}

game_class::bind_game!(PyHeadGame);
crate::py::seat_class::seat_class!(PyHeadSeat, PyHeadGame, "HeadSeat");

/// Panda Head's own verbs of a seat: its hand and the public counters.
#[pymethods]
impl PyHeadSeat {
    /// The card ids of this seat's hand (`seat`, if given, must be this seat).
    #[pyo3(signature = (seat = None))]
    fn hand(&self, seat: Option<Int>) -> PyResult<Vec<u32>> {
        let me = crate::py::seat_class::own(self, seat, "hand")?;
        Ok(id_list(self.game.st().hand(me)))
    }
    #[getter]
    fn dealer(&self) -> u8 {
        self.game.dealer()
    }
    #[getter]
    fn leader(&self) -> u8 {
        self.game.leader()
    }
    #[getter]
    fn hand_number(&self) -> u32 {
        self.game.hand_number()
    }
    #[getter]
    fn pile_number(&self) -> u8 {
        self.game.pile_number()
    }
    #[getter]
    fn drowsy(&self) -> Vec<bool> {
        self.game.drowsy()
    }
    #[getter]
    fn pooped(&self) -> Vec<bool> {
        self.game.pooped()
    }
}

impl GameClass for PyHeadGame {
    type Core = HeadGame;
    type Move = PyHeadMove;
    type Rules = PyHeadRules;
    const CLASS: &'static str = "HeadGame";
    const NAMED: &'static str = HEAD;

    fn core(&self) -> &HeadGame {
        &self.game
    }
    fn core_mut(&mut self) -> &mut HeadGame {
        &mut self.game
    }
    fn core_and_spare(&mut self) -> (&HeadGame, &mut SpareEvents) {
        (&self.game, &mut self.spare)
    }
    fn with_core(&self, game: HeadGame) -> Self {
        Self::from_core(game)
    }
    fn from_core(game: HeadGame) -> Self {
        Self {
            game,
            spare: SpareEvents::default(),
        }
    }
    fn rules(&self) -> PyHeadRules {
        PyHeadRules {
            inner: *self.st().rules(),
        }
    }
    fn settings_of(rules: &PyHeadRules) -> HeadRules {
        rules.inner
    }
    fn rules_of(settings: &HeadRules) -> PyHeadRules {
        PyHeadRules { inner: *settings }
    }
    fn py_move(game: &HeadGame, id: ActionId) -> PyHeadMove {
        PyHeadMove::in_state(game.state(), id)
    }
    fn request(obj: &Bound<'_, PyAny>) -> PyResult<Request<ActionId>> {
        // An action id first: what a loop over `legal_actions()` passes, one type check (an
        // exact int is never a bool) and one conversion.
        if obj.is_exact_instance_of::<pyo3::types::PyInt>() {
            if let Ok(v) = obj.extract::<i64>() {
                return Ok(Request::Action(crate::py::args::Int(v.into())));
            }
        }
        if let Ok(m) = obj.cast::<PyHeadMove>() {
            return Ok(Request::Move(m.get().action));
        }
        if let Ok(text) = obj.cast::<pyo3::types::PyString>() {
            return Ok(Request::Notation(text_of(text)));
        }
        let is_bool = obj.is_instance_of::<pyo3::types::PyBool>();
        if !is_bool && (obj.is_instance_of::<pyo3::types::PyInt>() || obj.hasattr("__index__")?) {
            return Ok(Request::Action(crate::py::args::int_value(obj)?));
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a move is a HeadMove, an action id (int) or a notation (str), got {} {}",
            crate::py::args::type_name(obj),
            shown(obj)
        )))
    }
    fn action_index(&self, py: Python<'_>, mv: &Bound<'_, PyAny>) -> PyResult<usize> {
        let id = match Self::request(mv)? {
            Request::Move(id) => i128::from(id),
            Request::Action(id) => id.0,
            Request::Notation(text) => match Action::parse(&text) {
                Some(action) => action.id().into(),
                None => {
                    // The core's refusal of the notation, with its reason (on a copy).
                    let err = RecordedGame::unparsable(&self.game, &text, "");
                    return Err(to_py_err(py, err));
                }
            },
            Request::Unparsable { shown, why } => {
                return Err(to_py_err(
                    py,
                    RecordedGame::unparsable(&self.game, &shown, &why),
                ))
            }
        };
        game_class::engine(py, self.game.move_for_action(id)).map(usize::from)
    }
}

impl PyHeadGame {
    fn st(&self) -> &HeadState {
        self.game.state()
    }

    fn seat_arg(&self, seat: Int) -> PyResult<u8> {
        seat.seat(self.st().players())
    }
}

/// A card id of an explicit deal as a byte; which bytes are cards the core decides (and says).
fn card_id(c: Int) -> PyResult<u8> {
    u8::try_from(c.0).map_err(|_| {
        InvalidStateError::new_err(format!("{} is not a card id (0..=62)", c.written()))
    })
}

/// Card ids as a Python list of ints (a `Vec<u8>` would become `bytes`).
fn id_list(set: CardSet) -> Vec<u32> {
    widen(&cards::ids(set))
}

fn widen(ids: &[u8]) -> Vec<u32> {
    ids.iter().map(|&c| u32::from(c)).collect()
}

crate::py::vecenv::vector_env_class!(
    PyHeadVectorEnv,
    "HeadVectorEnv",
    PyHeadGame,
    "N Panda Head games stepped in one call (docs/agents.md, \"Vector environment\")."
);

/// Play `hands` independent random Panda Head hands (7 piles each) on one thread, GIL released;
/// returns the number of decisions. The unit of the per-hand benchmarks.
#[pyfunction]
#[pyo3(signature = (hands, players, seed = None, rules = None))]
fn simulate_head_hands<'py>(
    py: Python<'py>,
    hands: Int,
    players: Int,
    seed: Option<&Bound<'py, PyAny>>,
    rules: Option<PyHeadRules>,
) -> PyResult<u64> {
    crate::py::sim::random_rounds::<PyHeadGame>(py, hands, players, seed, rules)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_head_hands, m)?)?;
    m.add(
        "HEAD_OBSERVATION_LAYOUT",
        crate::head::observation::OBSERVATION_LAYOUT,
    )?;
    m.add_class::<PyHeadRules>()?;
    m.add_class::<PyHeadMove>()?;
    m.add("NUM_HEAD_ACTIONS", NUM_ACTIONS)?;
    m.add("HEAD_OBSERVATION_SIZE", OBSERVATION_SIZE)?;
    m.add("HEAD_BIG_PANDA_ACTION", BIG_PANDA)?;
    m.add("HEAD_BAMBOO_ACTION", BAMBOO_ALONE)?;
    Ok(())
}
