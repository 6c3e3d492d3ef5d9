//! A recorded climbing game: the state, how it started, every move and every round result.
//!
//! This is what the Python API wraps. The start and the move list are the whole truth of a game:
//! the JSON document ([`super::record`]) stores exactly these and replays them on import.

use std::sync::Arc;

use super::deck::Deck;
use super::moves::Move;
use super::notation::parse_move;
use super::rules::ClimbSettings;
use super::snapshot::{self, Snapshot};
use super::state::{ClimbState, RoundResult};
use crate::error::{EngineError, IllegalMove, StateError};

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
}

impl ClimbGame {
    pub fn new(players: u8, seed: u64, settings: ClimbSettings) -> Result<Self, EngineError> {
        Ok(Self {
            state: ClimbState::new(players, seed, settings)?,
            start: Start::Seed(seed),
            history: Vec::new(),
            round_results: Vec::new(),
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

    /// Apply a move; on error nothing changes.
    pub fn apply(&mut self, mv: &Move) -> Result<(), EngineError> {
        let seat = self.state.current_player().ok_or(EngineError::GameOver)?;
        if let Some(r) = self.state.apply(mv)? {
            self.round_results.push(r);
        }
        self.history.push((seat, mv.clone()));
        Ok(())
    }

    /// Apply a move taken from [`ClimbGame::legal_moves`] of this position, without checking it
    /// again (no second move generation).
    pub fn apply_legal(&mut self, mv: &Move) {
        let Some(seat) = self.state.current_player() else {
            return;
        };
        if let Some(r) = self.state.apply_legal(mv) {
            self.round_results.push(r);
        }
        self.history.push((seat, mv.clone()));
    }

    /// Apply a move given in notation (contract §8).
    pub fn apply_notation(&mut self, text: &str) -> Result<(), EngineError> {
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
}
