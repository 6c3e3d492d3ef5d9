//! The uniform random climbing-game bot.

use super::ClimbBot;
use crate::climb::{ClimbState, Move};
use crate::rng::SplitMix64;

/// Picks uniformly among the legal moves with its own SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct ClimbRandomBot {
    rng: SplitMix64,
}

impl ClimbRandomBot {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: SplitMix64::new(seed),
        }
    }

    /// A uniform index below `len` (> 0).
    #[inline]
    pub fn pick(&mut self, len: usize) -> usize {
        debug_assert!(len > 0);
        // Multiply-shift range reduction (Lemire); bots are not bound by R-3.
        (((self.rng.next() >> 32) * len as u64) >> 32) as usize
    }
}

impl ClimbBot for ClimbRandomBot {
    #[inline]
    fn choose(&mut self, _state: &ClimbState, legal: &[Move]) -> usize {
        self.pick(legal.len())
    }
}
