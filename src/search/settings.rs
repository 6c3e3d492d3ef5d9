//! What a search needs besides the position: iterations, exploration, rollout policy and
//! horizon, with the measured defaults of each game.

use super::ismcts::IsmctsConfig;
use crate::contract::{Horizon, Rollout};

/// Everything a search needs besides the position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchSettings {
    pub config: IsmctsConfig,
    pub rollout: Rollout,
    pub horizon: Horizon,
}

impl SearchSettings {
    /// The defaults of game `G`: its rollout policy, the hand (round) horizon.
    pub fn default_for<G: crate::contract::SearchValue>() -> Self {
        Self {
            config: IsmctsConfig::default(),
            rollout: G::DEFAULT_ROLLOUT,
            horizon: Horizon::Hand,
        }
    }

    /// These settings with another iteration count.
    pub fn with_iterations(mut self, iterations: u32) -> Self {
        self.config.iterations = iterations;
        self
    }
}
