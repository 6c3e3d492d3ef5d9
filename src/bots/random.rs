//! The uniform random bot.

use super::HeadBot;
use crate::head::{ActionId, ActionMask, HeadState};
use crate::rng::SplitMix64;

/// Picks uniformly among the legal moves with its own SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: SplitMix64,
}

impl RandomBot {
    pub fn new(seed: u64) -> Self {
        Self {
            rng: SplitMix64::new(seed),
        }
    }

    /// A uniform element of a non-empty mask.
    #[inline]
    pub fn pick(&mut self, legal: ActionMask) -> ActionId {
        debug_assert!(legal != 0);
        let count = legal.count_ones();
        if count == 1 {
            return legal.trailing_zeros() as ActionId;
        }
        // Multiply-shift range reduction (Lemire): no division in the hot loop. The bias is
        // below 2^-27 for the at most 24 choices here; bots are not bound by R-3.
        let mut k = (((self.rng.next() >> 32) * count as u64) >> 32) as u32;
        let mut rest = legal;
        while k > 0 {
            rest &= rest - 1;
            k -= 1;
        }
        rest.trailing_zeros() as ActionId
    }
}

impl HeadBot for RandomBot {
    #[inline]
    fn choose(&mut self, _state: &HeadState, legal: ActionMask) -> ActionId {
        self.pick(legal)
    }
}
