//! What ISMCTS needs from the climbing games beside the information set of
//! [`super::determinize`] (both bound in `contract.rs`): what a searching seat remembers of the
//! winds (`spin`) and the value of a rollout.
//!
//! Value at the end of the round (the default horizon) for player `p`: 1 if `p` has won the
//! game, 0 if another player has; otherwise `0.5 + (g_p - mean of the others' g) / (2 * 10)`,
//! clamped to `[0, 1]`, where `g` is the points gained since the root (show-out points, bamboo,
//! pandas). At the game horizon the value is 1 for the winner and 0 for everyone else.

use super::determinize::WindTracker;
use super::moves::MAX_PLAYERS;
use super::state::ClimbState;

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

/// The scores of `state` as a search root.
pub fn scores_at(state: &ClimbState) -> [u32; MAX_PLAYERS] {
    let mut root = [0; MAX_PLAYERS];
    root[..state.players() as usize].copy_from_slice(state.scores());
    root
}

/// The value of `state` for `player`, from the points gained since the scores `root` (module
/// docs).
pub fn gain_value(state: &ClimbState, root: &[u32; MAX_PLAYERS], player: u8) -> f64 {
    if let Some(w) = state.winner() {
        return (w == player) as u8 as f64;
    }
    let n = state.players() as usize;
    let gain = |q: usize| state.scores()[q] as f64 - root[q] as f64;
    let p = player as usize;
    let others = (0..n).filter(|&q| q != p).map(gain).sum::<f64>() / (n - 1) as f64;
    (0.5 + (gain(p) - others) / (2.0 * POINT_SCALE)).clamp(0.0, 1.0)
}
