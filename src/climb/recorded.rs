//! A recorded climbing game: the state, how it started, every move, what each move did (its
//! events) and every round result.
//!
//! This is what the Python API wraps. The start and the move list are the whole truth of a game:
//! the JSON document ([`super::record`]) stores exactly these and replays them on import (which
//! rebuilds the events).

use std::sync::Arc;

use super::deck::Deck;
use super::encoding::{self, NUM_ACTIONS};
use super::event::ClimbEvent;
use super::moves::Move;
use super::notation::parse_move;
use super::rules::ClimbSettings;
use super::snapshot::{self, Snapshot};
use super::state::{ClimbState, RoundResult};
use crate::error::{written, EngineError, IllegalMove, StateError};
use crate::event::SeatFilter;

/// How a game began.
#[derive(Clone, Debug)]
pub enum Start {
    /// `ClimbState::new(players, seed, settings)`.
    Seed(u64),
    /// A position rebuilt from a §7 snapshot.
    Snapshot(Box<Snapshot>),
}

#[derive(Clone, Debug)]
pub struct ClimbGame {
    state: ClimbState,
    start: Start,
    /// `(seat, move)` per decision.
    history: Vec<(u8, Move)>,
    round_results: Vec<RoundResult>,
    /// Every event, oldest first: round 1's deal (for a game from a seed), then each move's.
    events: Vec<ClimbEvent>,
    /// Where each move's events begin in `events`, one per `history` entry.
    move_starts: Vec<usize>,
}

impl ClimbGame {
    pub fn new(players: u8, seed: u64, settings: ClimbSettings) -> Result<Self, EngineError> {
        let mut events = Vec::new();
        Ok(Self {
            state: ClimbState::new_with(players, seed, settings, &mut events)?,
            start: Start::Seed(seed),
            history: Vec::new(),
            round_results: Vec::new(),
            events,
            move_starts: Vec::new(),
        })
    }

    /// A game from a §7 snapshot, checked strictly; `deck` is the deck it names.
    pub fn from_snapshot(snap: Snapshot, deck: Arc<Deck>) -> Result<Self, StateError> {
        let (state, round_results) = snapshot::from_snapshot(&snap, deck)?;
        Ok(Self {
            state,
            start: Start::Snapshot(Box::new(snap)),
            history: Vec::new(),
            round_results,
            events: Vec::new(),
            move_starts: Vec::new(),
        })
    }

    pub fn state(&self) -> &ClimbState {
        &self.state
    }
    pub fn start(&self) -> &Start {
        &self.start
    }
    pub fn history(&self) -> &[(u8, Move)] {
        &self.history
    }
    pub fn round_results(&self) -> &[RoundResult] {
        &self.round_results
    }

    /// Every event of the game, oldest first, unfiltered (it shows every hidden card): round
    /// 1's start and deal for a game from a seed (none for one from a snapshot), then each
    /// move's events.
    pub fn events(&self) -> &[ClimbEvent] {
        &self.events
    }

    /// The events of move `index` (of [`Self::history`]), or `None` past the last move.
    pub fn move_events(&self, index: usize) -> Option<&[ClimbEvent]> {
        let start = *self.move_starts.get(index)?;
        let end = self
            .move_starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.events.len());
        Some(&self.events[start..end])
    }

    /// The events as `seat` saw them (S-11): draws and deals of other seats without their cards.
    pub fn events_seen_by(&self, seat: u8) -> Vec<ClimbEvent> {
        self.events.iter().filter_map(|e| e.seen_by(seat)).collect()
    }

    /// The §7 snapshot.
    pub fn snapshot(&self) -> Snapshot {
        snapshot::snapshot(&self.state, &self.round_results)
    }

    /// The legal moves, or an error for a position beyond `MAX_LEGAL_MOVES` (contract §5.3).
    pub fn try_legal_moves(&self) -> Result<Vec<Move>, EngineError> {
        self.state.try_legal_moves()
    }

    pub fn legal_moves(&self) -> Vec<Move> {
        self.state.legal_moves()
    }

    /// Apply a move; on error nothing changes. Returns the move's events (unfiltered).
    pub fn apply(&mut self, mv: &Move) -> Result<&[ClimbEvent], EngineError> {
        let seat = self.state.current_player().ok_or(EngineError::GameOver)?;
        let start = self.events.len();
        let result = self.state.apply_with(mv, &mut self.events)?;
        Ok(self.record(seat, mv, result, start))
    }

    /// Apply a move taken from [`ClimbGame::legal_moves`] of this position, without checking it
    /// again (no second move generation). Returns the move's events (none once the game is
    /// over: nothing is applied).
    pub fn apply_legal(&mut self, mv: &Move) -> &[ClimbEvent] {
        let Some(seat) = self.state.current_player() else {
            return &[];
        };
        let start = self.events.len();
        let result = self.state.apply_legal_with(mv, &mut self.events);
        self.record(seat, mv, result, start)
    }

    /// Record an applied move whose events begin at `start`; its events.
    fn record(
        &mut self,
        seat: u8,
        mv: &Move,
        result: Option<RoundResult>,
        start: usize,
    ) -> &[ClimbEvent] {
        if let Some(r) = result {
            self.round_results.push(r);
        }
        self.history.push((seat, mv.clone()));
        self.move_starts.push(start);
        &self.events[start..]
    }

    /// Apply a move given in notation (contract §8). Returns the move's events.
    pub fn apply_notation(&mut self, text: &str) -> Result<&[ClimbEvent], EngineError> {
        match parse_move(text) {
            Ok(m) => self.apply(&m),
            Err(why) => Err(self.unparsable(text, &why)),
        }
    }

    /// The error for a move that could not even be read.
    pub fn unparsable(&self, text: &str, why: &str) -> EngineError {
        if self.state.is_over() {
            return EngineError::GameOver;
        }
        IllegalMove {
            requested: text.to_string(),
            reason: format!("not a move: {why}"),
            legal: self.legal_moves().iter().map(Move::notation).collect(),
        }
        .into()
    }

    /// The legal move abstract action `action` stands for (docs/climb_encodings.md §3); the
    /// tie-break among the moves of one action: fewest cards, then fewest blue faces, then
    /// canonical order.
    pub fn move_for_action(&self, action: i128) -> Result<Move, EngineError> {
        let legal = self.try_legal_moves()?;
        let i = self.resolve_action(&legal, action)?;
        Ok(legal[i].clone())
    }

    /// Apply the move of [`ClimbGame::move_for_action`]: `legal[i]` comes from the legal list
    /// itself, so there is no second generation to check it.
    pub fn apply_action(&mut self, action: i128) -> Result<(), EngineError> {
        let legal = self.try_legal_moves()?;
        let i = self.resolve_action(&legal, action)?;
        self.apply_legal(&legal[i]);
        Ok(())
    }

    /// The index in `legal` of the move abstract `action` stands for.
    fn resolve_action(&self, legal: &[Move], action: i128) -> Result<usize, EngineError> {
        let state = &self.state;
        if state.is_over() {
            return Err(EngineError::GameOver);
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
            EngineError::Illegal(IllegalMove {
                requested: written(action),
                reason: format!(
                    "abstract action {} names no legal move of seat {} (actions are 0..={})",
                    written(action),
                    state.current_player().unwrap_or(0),
                    NUM_ACTIONS - 1
                ),
                legal: allowed,
            })
        })
    }
}
