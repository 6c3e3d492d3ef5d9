//! A recorded Panda Head game: the state plus how it started, every action and every hand result.
//!
//! This is what the Python API wraps. The start and the action list are the whole truth of a
//! game: the JSON document ([`super::record`]) stores exactly these and replays them on import, so
//! an imported game is checked move by move by the same code that plays.

use super::action::{Action, ActionId};
use super::rules::HeadRules;
use super::state::{Deal, HandResult, HeadState};
use crate::error::{EngineError, IllegalMove};

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
}

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

    fn wrap(state: HeadState, start: Start) -> Self {
        Self {
            state,
            start,
            history: Vec::new(),
            hand_results: Vec::new(),
        }
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

    /// Apply an action id; on error nothing changes.
    pub fn apply(&mut self, id: ActionId) -> Result<(), EngineError> {
        let seat = self.state.current_player().ok_or(EngineError::GameOver)?;
        let (hand, pile) = (self.state.hand_number(), self.state.pile_number());
        if let Some(result) = self.state.apply(id)? {
            self.hand_results.push(result);
        }
        self.history.push(Step {
            seat,
            action: id,
            hand,
            pile,
        });
        Ok(())
    }

    /// Apply a move given in notation (`7`, `7+B`, `BP`, `B`).
    pub fn apply_notation(&mut self, text: &str) -> Result<(), EngineError> {
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
}
