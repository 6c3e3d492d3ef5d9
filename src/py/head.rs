//! Python classes for Panda Head: `HeadRules`, `HeadMove`, `HeadGame`.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use super::args::{shown, text_of, Int, Text};
use super::errors::{
    to_py as to_py_err, ConcurrentUseError, IntoPyResult, InvalidStateError, RulesError,
};
use crate::bots::decide::head_decision_until;
use crate::bots::BotKind;
use crate::error::{EngineError, IllegalMove};
use crate::head::action::{mask_ids, BAMBOO_ALONE, BIG_PANDA};
use crate::head::cards::{self, CardSet, BAMBOO_MASK, BIG_PANDA_MASK};
use crate::head::determinize::{Determinizer, HandLog};
use crate::head::observation::{observation, OBSERVATION_SIZE};
use crate::head::{
    record, Action, ActionId, Deal, HandResult, HeadGame, HeadRules, HeadState, LastPileScoring,
    NUM_ACTIONS,
};
use crate::rng::SplitMix64;

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
            .map_err(|e| RulesError::new_err(super::args::cut_message(&e.0)))?;
        let bust_threshold = rules_int(
            bust_threshold,
            "bust_threshold",
            (1, u32::MAX.into()),
            "a positive integer below 2**32",
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

/// A rules setting in `lo..=hi`, else a `RulesError` naming it and the range (not an
/// `ArgumentError`: these are the rules of the game, checked as the other rules are).
fn rules_int<T: TryFrom<i128>>(
    v: Int,
    what: &str,
    (lo, hi): (i128, i128),
    allowed: &str,
) -> PyResult<T> {
    v.in_range(what, lo, hi)
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| {
            RulesError::new_err(format!("{what} must be {allowed}, got {}", v.written()))
        })
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
    fn in_state(state: &HeadState, id: ActionId) -> Self {
        let seat = state.current_player().unwrap_or(0);
        let hand = state.hand(seat);
        let action = Action::from_id(id).expect("ids come from a legal mask");
        let lowest = |set: CardSet| {
            if set == 0 {
                0
            } else {
                1u64 << cards::lowest(set)
            }
        };
        let (cards, effective_value) = match action {
            Action::Panda(v) => (lowest(hand & cards::value_mask(v)), Some(v)),
            Action::PandaWithBamboo(v) => (
                lowest(hand & cards::value_mask(v)) | lowest(hand & BAMBOO_MASK),
                Some(v + 2),
            ),
            // Following, a Big Panda is worth one more than the pile's highest (H-4.2); led, its
            // value is the card turned up from the hidden draw pile, unknown until played.
            Action::BigPanda => (
                lowest(hand & BIG_PANDA_MASK),
                state.highest().map(|h| h + 1),
            ),
            Action::BambooAlone => (lowest(hand & BAMBOO_MASK), None),
        };
        Self {
            action: id,
            cards,
            effective_value,
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

/// A Panda Head game in progress (RULES.md Part H).
///
/// Thread safety (docs/errors.md): reads may run from any number of threads at once; a change
/// while another thread is inside a call on this game (in practice one that releases the GIL:
/// `bot_action`, `determinize`) is refused with `ConcurrentUseError`, state unchanged. A change never
/// runs Python code while it holds the game, so no read sees it half made.
#[pyclass(name = "HeadGame", module = "panda_core._core")]
#[derive(Clone)]
pub struct PyHeadGame {
    game: HeadGame,
}

impl PyHeadGame {
    /// Wrap a core game (the vector env hands out copies of its games this way).
    pub fn from_core(game: HeadGame) -> Self {
        Self { game }
    }
}

/// 2 to 5 players (H-2.1, S-12), refused with a `RulesError` naming the game otherwise.
pub fn players_arg(players: impl Into<Int>, game: &str) -> PyResult<u8> {
    let players = players.into();
    players
        .in_range("players", 2, 5)
        .map(|p| p as u8)
        .map_err(|_| {
            RulesError::new_err(format!(
                "{game} played by 2 to 5 players, got {}",
                players.written()
            ))
        })
}

/// a seed is an integer in 0 … 2**64 − 1 (numpy integers too); anything else, bools
/// included, is a `RulesError`.
pub fn seed_arg(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let refused = || {
        RulesError::new_err(format!(
            "seed must be an integer in 0..2**64-1, got {}",
            shown(seed)
        ))
    };
    let value = super::args::int_value(seed).map_err(|_| refused())?;
    u64::try_from(value.0).map_err(|_| refused())
}

/// `ConcurrentUseError` for a change refused because another thread is using the game.
pub fn concurrent_use(what: &str) -> PyErr {
    ConcurrentUseError::new_err(format!(
        "this {what} is in use by another thread (a bot thinking or a determinization on it); \
         a game may be read from several threads at once but changed only while no other call \
         on it runs: wait for that call, or give each thread its own copy (game.clone())"
    ))
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
        })
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
        })
    }

    /// Rebuild a game from `to_json()` output, replaying and checking every action.
    #[staticmethod]
    fn from_json(py: Python<'_>, text: Text) -> PyResult<Self> {
        Ok(Self {
            game: record::from_json(&text).py_err(py)?,
        })
    }

    /// The game record as JSON: rules, start (seed or deal) and every action id.
    /// A game returned by `determinize` has no record and raises `InvalidStateError`.
    fn to_json(&self) -> PyResult<String> {
        record::to_json(&self.game).map_err(|e| InvalidStateError::new_err(e.0))
    }

    /// Pickle support (multiprocessing, saving a position): the JSON record, replayed on load.
    /// A game from `determinize` (or a vector env's `game(i)`) has no record: `InvalidStateError`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        let game = slf.try_borrow().map_err(|_| concurrent_use("HeadGame"))?;
        let text = record::to_json(&game.game).map_err(|e| InvalidStateError::new_err(e.0))?;
        Ok((from_json, (text,)))
    }

    /// An independent copy (cheap: the state is a fixed-size value plus the history).
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
        self.st().players()
    }
    #[getter]
    fn rules(&self) -> PyHeadRules {
        PyHeadRules {
            inner: *self.st().rules(),
        }
    }
    /// The seat to move, or `None` once the game is over.
    #[getter]
    fn current_player(&self) -> Option<u8> {
        self.st().current_player()
    }
    #[getter]
    fn is_over(&self) -> bool {
        self.st().is_over()
    }
    #[getter]
    fn winner(&self) -> Option<u8> {
        self.st().winner()
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
    fn scores(&self) -> Vec<u32> {
        self.st().scores().to_vec()
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

    /// The legal moves of the current player (empty once the game is over).
    fn legal_moves(&self) -> Vec<PyHeadMove> {
        let st = self.st();
        mask_ids(st.legal_actions())
            .map(|id| PyHeadMove::in_state(st, id))
            .collect()
    }
    /// The legal action ids, ascending.
    fn legal_action_ids(&self) -> Vec<u32> {
        mask_ids(self.st().legal_actions()).map(u32::from).collect()
    }
    /// A boolean numpy array of shape `(NUM_HEAD_ACTIONS,)`, True where the action is legal.
    fn legal_action_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mask = self.st().legal_actions();
        let values: Vec<bool> = (0..NUM_ACTIONS).map(|i| mask & (1 << i) != 0).collect();
        PyArray1::from_vec(py, values)
    }

    /// Apply a move: a `HeadMove`, an action id (an int or a numpy integer, not a bool) or a
    /// notation string (`7`, `7+B`, `BP`, `B`). An illegal move raises `IllegalMoveError` (with
    /// `.legal`) and changes nothing.
    fn apply(slf: &Bound<'_, Self>, r#move: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        // Read the argument completely before borrowing the game: reading may run Python code
        // (`__index__`), which may let another thread in.
        let requested = HeadRequest::from_py(r#move)?;
        let result = {
            let mut this = slf
                .try_borrow_mut()
                .map_err(|_| concurrent_use("HeadGame"))?;
            match &requested {
                HeadRequest::Id(id) => match u8::try_from(id.0) {
                    Ok(id) => this.game.apply(id).map(|_| ()),
                    // Ids beyond u8 are as illegal as 24: reported the same way, true value shown.
                    Err(_) => this.out_of_range(*id),
                },
                HeadRequest::Notation(text) => this.game.apply_notation(text).map(|_| ()),
            }
        };
        // The exception is built once the borrow is released (building it runs Python code).
        result.map_err(|e| to_py_err(py, e))
    }

    /// Every decision so far: a list of `(seat, action_id, hand, pile)` tuples.
    #[getter]
    fn history(&self) -> Vec<(u8, u8, u32, u8)> {
        self.game
            .history()
            .iter()
            .map(|s| (s.seat, s.action, s.hand, s.pile))
            .collect()
    }

    /// One dict per completed hand (see `HandResult` in the stubs).
    #[getter]
    fn hand_results<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let n = self.st().players() as usize;
        self.game
            .hand_results()
            .iter()
            .map(|r| hand_result_dict(py, r, n))
            .collect()
    }

    /// Final results: winner (None while the game runs), scores, drowsy, pooped, hands played.
    fn result<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("is_over", self.st().is_over())?;
        d.set_item("winner", self.st().winner())?;
        d.set_item("scores", self.scores())?;
        d.set_item("drowsy", self.drowsy())?;
        d.set_item("pooped", self.pooped())?;
        d.set_item("hands_played", self.game.hand_results().len())?;
        Ok(d)
    }

    /// What `player` may see: their own hand and public information only (never another hand or
    /// the draw-pile order).
    fn view<'py>(&self, py: Python<'py>, player: Int) -> PyResult<Bound<'py, PyDict>> {
        let seat = self.seat_arg(player)?;
        let st = self.st();
        let d = self.public_dict(py)?;
        d.set_item("player", seat)?;
        d.set_item("hand", id_list(st.hand(seat)))?;
        d.set_item(
            "hand_sizes",
            (0..st.players())
                .map(|s| st.hand(s).count_ones())
                .collect::<Vec<_>>(),
        )?;
        d.set_item("draw_pile_size", st.draw_pile().len())?;
        d.set_item(
            "legal_action_ids",
            if st.current_player() == Some(seat) {
                self.legal_action_ids()
            } else {
                Vec::new()
            },
        )?;
        Ok(d)
    }

    /// A full game sampled from what `player` knows (docs/agents.md, "Determinization"): other
    /// hands and the draw pile are dealt anew, consistently with every play `player` has seen;
    /// `player`'s observation is unchanged. Seeded. The sample plays on like any game (search
    /// clones and plays it) but has no JSON record.
    #[pyo3(signature = (player, seed = None))]
    fn determinize(
        &self,
        py: Python<'_>,
        player: Int,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let seat = self.seat_arg(player)?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let game = &self.game;
        let state = py.detach(|| {
            let log = HandLog::from_game(game);
            Determinizer::new(&log, seat).map(|mut d| d.sample(&mut SplitMix64::new(seed)))
        });
        Ok(Self {
            game: HeadGame::from_sample(state.py_err(py)?),
        })
    }

    /// The action id a built-in bot (`"random"`, `"heuristic"`, …, see `BOT_NAMES`) picks for
    /// the player to move; `seed` drives its randomness. The bot uses only what that player may
    /// know. Raises `GameOverError` once the game is over.
    #[pyo3(signature = (bot = Text::new("heuristic"), seed = None),
        text_signature = "(self, /, bot='heuristic', seed=None)")]
    fn bot_action(
        &self,
        py: Python<'_>,
        bot: Text,
        seed: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ActionId> {
        let kind = BotKind::parse(&bot)
            .map_err(|e| RulesError::new_err(super::args::cut_message(&e.0)))?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let game = &self.game;
        // A search bot can run for seconds: Ctrl-C must stop it (issue 8); the others answer at once.
        let long = matches!(kind, BotKind::Ismcts { .. });
        super::interrupt::interruptible_if(py, long, |stop| {
            head_decision_until(game, kind, seed, stop)
        })?
        .py_err(py)
    }

    /// A float32 numpy array of shape `(HEAD_OBSERVATION_SIZE,)`: what `player` may know, in
    /// seats relative to them (layout in `panda_core.head` and `src/head/observation.rs`).
    fn observation<'py>(
        &self,
        py: Python<'py>,
        player: Int,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = self.seat_arg(player)?;
        Ok(PyArray1::from_slice(py, &observation(self.st(), seat)))
    }

    /// The complete state as plain data (hidden information included), in the canonical format
    /// the differential tests compare with the oracle.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.st();
        let n = st.players() as usize;
        let d = self.public_dict(py)?;
        d.set_item("players", n)?;
        d.set_item(
            "hands",
            (0..st.players())
                .map(|s| id_list(st.hand(s)))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("draw_pile", widen(st.draw_pile()))?;
        d.set_item("rng_state", st.rng_state())?;
        let results = PyList::empty(py);
        for r in self.game.hand_results() {
            results.append(hand_result_dict(py, r, n)?)?;
        }
        d.set_item("hand_results", results)?;
        Ok(d)
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

impl PyHeadGame {
    fn st(&self) -> &HeadState {
        self.game.state()
    }

    fn seat_arg(&self, seat: Int) -> PyResult<u8> {
        seat.seat(self.st().players())
    }

    fn out_of_range(&self, id: Int) -> Result<(), EngineError> {
        if self.st().is_over() {
            return Err(EngineError::GameOver);
        }
        Err(EngineError::Illegal(IllegalMove {
            requested: format!("action id {}", id.written()),
            reason: format!("action ids are 0..={}", NUM_ACTIONS - 1),
            legal: mask_ids(self.st().legal_actions())
                .filter_map(|i| Action::from_id(i).map(Action::notation))
                .collect(),
        }))
    }

    /// The public part shared by `view()` and `snapshot()`.
    fn public_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.st();
        let d = PyDict::new(py);
        d.set_item("hand_number", st.hand_number())?;
        d.set_item("dealer", st.dealer())?;
        d.set_item("scores", self.scores())?;
        d.set_item("drowsy", self.drowsy())?;
        d.set_item("pooped", self.pooped())?;
        d.set_item("discard", id_list(st.discard()))?;
        d.set_item("pile_number", st.pile_number())?;
        let plays = PyList::empty(py);
        for p in st.pile_plays() {
            plays.append((p.seat, p.action, p.value, id_list(p.cards)))?;
        }
        d.set_item("pile_plays", plays)?;
        d.set_item("leader", st.leader())?;
        d.set_item("current_player", st.current_player())?;
        d.set_item("is_over", st.is_over())?;
        d.set_item("winner", st.winner())?;
        Ok(d)
    }
}

/// What `HeadGame.apply` was asked to play, read from its Python argument.
enum HeadRequest {
    Id(Int),
    Notation(String),
}

impl HeadRequest {
    fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(m) = obj.cast::<PyHeadMove>() {
            return Ok(Self::Id(Int(m.get().action.into())));
        }
        if let Ok(text) = obj.cast::<pyo3::types::PyString>() {
            return Ok(Self::Notation(text_of(text)));
        }
        let is_bool = obj.is_instance_of::<pyo3::types::PyBool>();
        if !is_bool && (obj.is_instance_of::<pyo3::types::PyInt>() || obj.hasattr("__index__")?) {
            return Ok(Self::Id(super::args::int_value(obj)?));
        }
        Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "a move is a HeadMove, an action id (int) or a notation (str), got {} {}",
            super::args::type_name(obj),
            shown(obj)
        )))
    }
}

/// A card id of an explicit deal as a byte; which bytes are cards the core decides (and says).
fn card_id(c: Int) -> PyResult<u8> {
    u8::try_from(c.0).map_err(|_| {
        InvalidStateError::new_err(format!("{} is not a card id (0..=62)", c.written()))
    })
}

/// A value of an explicit position in `0..=max`, else an `InvalidStateError` naming it.
fn state_int<T: TryFrom<i128>>(v: Int, what: &str, max: i128) -> PyResult<T> {
    v.in_range(what, 0, max)
        .ok()
        .and_then(|v| T::try_from(v).ok())
        .ok_or_else(|| {
            InvalidStateError::new_err(format!("{what} must be in 0..={max}, got {}", v.written()))
        })
}

/// Card ids as a Python list of ints (a `Vec<u8>` would become `bytes`).
fn id_list(set: CardSet) -> Vec<u32> {
    widen(&cards::ids(set))
}

fn widen(ids: &[u8]) -> Vec<u32> {
    ids.iter().map(|&c| u32::from(c)).collect()
}

fn seats(mask: u8, n: usize) -> Vec<usize> {
    (0..n).filter(|s| mask & (1 << s) != 0).collect()
}

fn hand_result_dict<'py>(
    py: Python<'py>,
    r: &HandResult,
    n: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("hand", r.hand)?;
    d.set_item("dealer", r.dealer)?;
    d.set_item("last_pile_winner", r.last_pile_winner)?;
    d.set_item("deltas", r.deltas[..n].to_vec())?;
    d.set_item("scores", r.scores[..n].to_vec())?;
    d.set_item("new_drowsy", seats(r.new_drowsy, n))?;
    d.set_item("new_pooped", seats(r.new_pooped, n))?;
    Ok(d)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyHeadRules>()?;
    m.add_class::<PyHeadMove>()?;
    m.add_class::<PyHeadGame>()?;
    m.add("NUM_HEAD_ACTIONS", NUM_ACTIONS)?;
    m.add("HEAD_OBSERVATION_SIZE", OBSERVATION_SIZE)?;
    m.add("HEAD_BIG_PANDA_ACTION", BIG_PANDA)?;
    m.add("HEAD_BAMBOO_ACTION", BAMBOO_ALONE)?;
    Ok(())
}
