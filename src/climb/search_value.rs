//! What ISMCTS needs from the climbing games: a seat's information set
//! ([`super::determinize`], with who still holds a wind in `spin`) and the value of a rollout.
//!
//! Value at the end of the round (the default horizon) for player `p`: 1 if `p` has won the
//! game, 0 if another player has; otherwise `0.5 + (g_p - mean of the others' g) / (2 * 10)`,
//! clamped to `[0, 1]`, where `g` is the points gained since the root (show-out points, bamboo,
//! pandas). At the game horizon the value is 1 for the winner and 0 for everyone else.

use super::determinize::{ClimbDeterminizer, WindTracker};
use super::moves::{Move, MAX_PLAYERS};
use super::state::{ClimbState, RoundResult};
use crate::error::EngineError;
use crate::game::{Determinize, Horizon, Rollout, SearchValue};
use crate::rng::SplitMix64;

/// Points of the round that make the value move from 0.5 to 0 or 1 (relative to the others).
const POINT_SCALE: f64 = 10.0;

/// What a searching seat knows about the winds of the round (`spin`).
#[derive(Clone, Copy, Debug)]
pub enum WindMemory {
    /// Tracked from the moves the seat watched.
    Tracked(WindTracker),
    /// Known from a game's history for one decision (`None`: sampled).
    Known(Option<u8>),
}

impl Default for WindMemory {
    fn default() -> Self {
        Self::Tracked(WindTracker::default())
    }
}

impl WindMemory {
    /// The seats still holding their wind in `state`'s round, if known.
    pub fn holders(&self, state: &ClimbState) -> Option<u8> {
        match self {
            Self::Tracked(t) => t.holders(state),
            Self::Known(h) => *h,
        }
    }
}

impl Determinize for ClimbState {
    type Memory = WindMemory;
    type Sampler = ClimbDeterminizer;

    #[inline]
    fn observe(memory: &mut WindMemory, before: &ClimbState, mv: &Move) {
        if let WindMemory::Tracked(t) = memory {
            t.observe(before, mv.kind);
        }
    }

    fn sampler(
        &self,
        memory: &mut WindMemory,
        observer: u8,
    ) -> Result<ClimbDeterminizer, EngineError> {
        Ok(ClimbDeterminizer::new(self, observer, memory.holders(self)))
    }

    #[inline]
    fn sample(sampler: &mut ClimbDeterminizer, rng: &mut SplitMix64) -> ClimbState {
        sampler.sample(rng)
    }
}

impl SearchValue for ClimbState {
    /// Random and heuristic rollouts are even at equal time; random is cheaper (see `search`).
    const DEFAULT_ROLLOUT: Rollout = Rollout::Random;
    /// The scores at the root.
    type Root = [u32; MAX_PLAYERS];

    fn search_root(&self) -> [u32; MAX_PLAYERS] {
        let mut root = [0; MAX_PLAYERS];
        root[..self.players() as usize].copy_from_slice(self.scores());
        root
    }

    fn search_value(
        &self,
        root: &[u32; MAX_PLAYERS],
        _round: Option<&RoundResult>,
        player: u8,
        _horizon: Horizon,
    ) -> f64 {
        if let Some(w) = self.winner() {
            return (w == player) as u8 as f64;
        }
        let n = self.players() as usize;
        let gain = |q: usize| self.scores()[q] as f64 - root[q] as f64;
        let p = player as usize;
        let others = (0..n).filter(|&q| q != p).map(gain).sum::<f64>() / (n - 1) as f64;
        (0.5 + (gain(p) - others) / (2.0 * POINT_SCALE)).clamp(0.0, 1.0)
    }
}
