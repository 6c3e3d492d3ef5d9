//! Search-based players: single-observer ISMCTS ([`ismcts`]) for Panda Head ([`head`]) and the
//! climbing games ([`climb`]).
//!
//! ## Choices made by measurement
//!
//! (See the report in `examples/ismcts_eval.rs`; numbers in its doc comment.)

pub mod climb;
pub mod head;
pub mod ismcts;

pub use ismcts::{search, search_stats, IsmctsConfig, RootStat, SearchGame};

/// The rollout policy: what plays the moves after the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// Uniform over the legal moves.
    Random,
    /// The built-in heuristic bot of the game.
    Heuristic,
}

/// Where a rollout stops and is valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Horizon {
    /// The end of the hand in progress (Panda Head) or of the round (climbing games).
    Hand,
    /// The end of the game.
    Game,
}

/// Everything a search needs besides the position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    pub config: IsmctsConfig,
    pub rollout: Rollout,
    pub horizon: Horizon,
}

impl SearchSettings {
    /// The Panda Head defaults.
    pub fn head_default() -> Self {
        Self {
            config: IsmctsConfig::default(),
            rollout: Rollout::Heuristic,
            horizon: Horizon::Hand,
        }
    }

    /// The climbing-game defaults.
    pub fn climb_default() -> Self {
        Self {
            config: IsmctsConfig::default(),
            rollout: Rollout::Heuristic,
            horizon: Horizon::Hand,
        }
    }

    /// These settings with another iteration count.
    pub fn with_iterations(mut self, iterations: u32) -> Self {
        self.config.iterations = iterations;
        self
    }
}
