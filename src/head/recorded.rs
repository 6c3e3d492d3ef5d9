//! A recorded Panda Head game: the state plus how it started, every action, every hand result and
//! every event (what each move did, [`super::event`]).
//!
//! This is what the Python API wraps. The start and the action list are the whole truth of a
//! game: the JSON document ([`super::record`]) stores exactly these and replays them on import, so
//! an imported game is checked move by move by the same code that plays.

use super::action::{mask_ids, Action, ActionId, NUM_ACTIONS};
use super::event::HeadEvent;
use super::rules::HeadRules;
use super::snapshot::HeadSnapshot;
use super::state::{Deal, HandResult, HeadState};
use super::view::HeadView;
use crate::error::{written, EngineError, IllegalMove, StateError};
use crate::event::SeatFilter;

/// How a game began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// `HeadState::new(players, seed, rules)`.
    Seed(u64),
    /// `HeadState::from_deal(players, deal, rules)`.
    Deal(Deal),
    /// A full state sampled by determinization ([`super::determinize`]), possibly mid-hand. Such
    /// a game plays on normally but has no JSON record: nothing replays to the sample.
    Sampled(Box<HeadState>),
    /// A position rebuilt from a snapshot ([`HeadGame::from_snapshot`]), possibly mid-hand. Its
    /// record starts from the snapshot.
    Snapshot(Box<HeadSnapshot>),
}

/// One decision in the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub seat: u8,
    pub action: ActionId,
    /// Hand and pile the action was played in.
    pub hand: u32,
    pub pile: u8,
}

#[derive(Clone, Debug)]
pub struct HeadGame {
    state: HeadState,
    start: Start,
    history: Vec<Step>,
    hand_results: Vec<HandResult>,
    /// Every event: the deal of the starting hand (when the game starts at one), then the events
    /// of each move in turn.
    events: Vec<HeadEvent>,
    /// `events[move_starts[i]..]` begins with the `move` event of `history[i]`.
    move_starts: Vec<usize>,
}

/// Moves a new game's record has room for before it grows.
const RESERVED_MOVES: usize = 256;

impl HeadGame {
    pub fn new(players: u8, seed: u64, rules: HeadRules) -> Result<Self, EngineError> {
        Ok(Self::wrap(
            HeadState::new(players, seed, rules)?,
            Start::Seed(seed),
        ))
    }

    pub fn from_deal(players: u8, deal: Deal, rules: HeadRules) -> Result<Self, EngineError> {
        let state = HeadState::from_deal(players, &deal, rules)?;
        Ok(Self::wrap(state, Start::Deal(deal)))
    }

    /// A game that starts at a sampled state (see [`Start::Sampled`]).
    pub fn from_sample(state: HeadState) -> Self {
        Self::wrap(state.clone(), Start::Sampled(Box::new(state)))
    }

    /// A game from a snapshot (any position, mid-hand included), checked strictly: see
    /// [`HeadState::from_snapshot`]. The snapshot's hand results become the game's.
    pub fn from_snapshot(snap: HeadSnapshot, rules: HeadRules) -> Result<Self, StateError> {
        let (state, results) = super::snapshot::from_snapshot(&snap, rules)?;
        let mut game = Self::wrap(state, Start::Snapshot(Box::new(snap)));
        game.hand_results = results;
        Ok(game)
    }

    fn wrap(state: HeadState, start: Start) -> Self {
        let at_hand_start =
            !state.is_over() && state.pile_number() == 0 && state.highest().is_none();
        let events = if at_hand_start {
            vec![state.deal_event()]
        } else {
            Vec::new()
        };
        // Room for a typical game's record from the start (a 4-player game makes ~200 moves
        // and ~300 events): growing it move by move was a tenth of a Python loop's time.
        let mut events = events;
        events.reserve(RESERVED_MOVES * 3 / 2);
        Self {
            state,
            start,
            history: Vec::with_capacity(RESERVED_MOVES),
            hand_results: Vec::new(),
            events,
            move_starts: Vec::with_capacity(RESERVED_MOVES),
        }
    }

    /// The complete state with the hand results (hidden information included).
    pub fn snapshot(&self) -> HeadSnapshot {
        super::snapshot::snapshot(&self.state, &self.hand_results)
    }

    /// What `seat` may see (see [`super::view`]).
    pub fn view(&self, seat: u8) -> HeadView {
        super::view::view(&self.state, seat)
    }

    pub fn state(&self) -> &HeadState {
        &self.state
    }
    pub fn start(&self) -> &Start {
        &self.start
    }
    pub fn history(&self) -> &[Step] {
        &self.history
    }
    pub fn hand_results(&self) -> &[HandResult] {
        &self.hand_results
    }

    /// Every event so far, unfiltered (hidden cards included): see [`super::event`].
    pub fn events(&self) -> &[HeadEvent] {
        &self.events
    }

    /// Every event as `seat` saw it ([`SeatFilter`]): no card hidden from `seat`.
    pub fn events_seen_by(&self, seat: u8) -> Vec<HeadEvent> {
        self.events.iter().filter_map(|e| e.seen_by(seat)).collect()
    }

    /// Where each move's events start in [`Self::events`] (one entry per [`Self::history`] step).
    pub fn move_starts(&self) -> &[usize] {
        &self.move_starts
    }

    /// The events of move `index` (0-based, in [`Self::history`] order); empty when out of range.
    pub fn events_of_move(&self, index: usize) -> &[HeadEvent] {
        let Some(&start) = self.move_starts.get(index) else {
            return &[];
        };
        let end = self
            .move_starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.events.len());
        &self.events[start..end]
    }

    /// Apply an action id and return the events of the move; on error nothing changes.
    pub fn apply(&mut self, id: ActionId) -> Result<&[HeadEvent], EngineError> {
        let seat = self.state.current_player().ok_or(EngineError::GameOver)?;
        let (hand, pile) = (self.state.hand_number(), self.state.pile_number());
        let start = self.events.len();
        // `apply_with` pushes nothing when it refuses, so a refusal leaves the events as they were.
        if let Some(result) = self.state.apply_with(id, &mut self.events)? {
            self.hand_results.push(result);
        }
        self.history.push(Step {
            seat,
            action: id,
            hand,
            pile,
        });
        self.move_starts.push(start);
        Ok(&self.events[start..])
    }

    /// Apply a move given in notation (`7`, `7+B`, `BP`, `B`).
    pub fn apply_notation(&mut self, text: &str) -> Result<&[HeadEvent], EngineError> {
        match Action::parse(text) {
            Some(a) => self.apply(a.id()),
            None => {
                if self.state.is_over() {
                    return Err(EngineError::GameOver);
                }
                Err(IllegalMove {
                    requested: text.to_string(),
                    reason: "not a move notation: use a value 1..11 (`7`), a value with a \
                             Bamboo (`7+B`), `BP` (Big Panda) or `B` (Bamboo alone)"
                        .into(),
                    legal: super::action::mask_ids(self.state.legal_actions())
                        .filter_map(|i| Action::from_id(i).map(Action::notation))
                        .collect(),
                }
                .into())
            }
        }
    }

    /// The legal action `action` names; the refusal says why not (any integer).
    pub fn move_for_action(&self, action: i128) -> Result<ActionId, EngineError> {
        match u8::try_from(action) {
            Ok(id)
                if (id as usize) < NUM_ACTIONS && self.state.legal_actions() & (1 << id) != 0 =>
            {
                Ok(id)
            }
            _ => Err(self.refusal(action)),
        }
    }

    /// Apply action `action` (any integer: ids beyond a byte are as illegal as 24, reported the
    /// same way with their true value).
    pub fn apply_action(&mut self, action: i128) -> Result<(), EngineError> {
        match u8::try_from(action) {
            Ok(id) => self.apply(id).map(drop),
            Err(_) => Err(self.refusal(action)),
        }
    }

    /// Why action `action` is refused now: the state's own reason for an id it knows (found on
    /// a copy, so nothing changes), "action ids are 0..=23" for any other integer.
    fn refusal(&self, action: i128) -> EngineError {
        if let Ok(id) = u8::try_from(action) {
            let mut probe = self.clone();
            if let Err(e) = probe.apply(id) {
                return e;
            }
        }
        if self.state.is_over() {
            return EngineError::GameOver;
        }
        EngineError::Illegal(IllegalMove {
            requested: format!("action id {}", written(action)),
            reason: format!("action ids are 0..={}", NUM_ACTIONS - 1),
            legal: mask_ids(self.state.legal_actions())
                .filter_map(|i| Action::from_id(i).map(Action::notation))
                .collect(),
        })
    }
}
