//! Built-in players. Each sees the state but uses only what its seat may know (its own hand and
//! the public piles); [`BotKind`] names them for the simulator and the CLI.

pub mod climb_heuristic;
pub mod climb_random;
pub mod decide;
pub mod head_heuristic;
pub mod random;

use crate::climb::{ClimbState, Move};
use crate::error::RulesError;
use crate::head::{ActionId, ActionMask, HeadState};

/// A Panda Head player: picks one of the legal actions.
pub trait HeadBot {
    fn choose(&mut self, state: &HeadState, legal: ActionMask) -> ActionId;
}

/// A climbing-game player (`year` or `spin`): picks the index of one of the legal moves (given in
/// canonical order, never empty).
pub trait ClimbBot {
    fn choose(&mut self, state: &ClimbState, legal: &[Move]) -> usize;
}

/// The built-in bots, by name (the same names for every game).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BotKind {
    /// Uniform over the legal moves.
    Random,
    /// A simple rule-of-thumb player (see [`head_heuristic`]).
    Heuristic,
}

impl BotKind {
    pub const NAMES: [&'static str; 2] = ["random", "heuristic"];

    pub fn name(self) -> &'static str {
        match self {
            Self::Random => "random",
            Self::Heuristic => "heuristic",
        }
    }

    pub fn parse(s: &str) -> Result<Self, RulesError> {
        match s {
            "random" => Ok(Self::Random),
            "heuristic" => Ok(Self::Heuristic),
            other => Err(RulesError(format!(
                "unknown bot {other:?}; built-in bots are {:?}",
                Self::NAMES
            ))),
        }
    }
}
