//! What ISMCTS needs from Panda Head: the information set of a seat (from the plays of the hand,
//! [`super::determinize`]) and the value of a rollout at its horizon.
//!
//! Value at the end of a hand (the default horizon) for player `p`: 1 if `p` has won the game,
//! 0 if `p` was Pooped (or someone else won); otherwise `0.5 - delta / 60`, clamped to `[0, 1]`,
//! where `delta` is the change of `p`'s score this hand (penalty points of pile 7 push it down,
//! Poor Panda losses push it up), and a fresh Drowsy state costs a further 0.15. Only pile 7
//! scores, so this is the quantity a hand decides. At the game horizon the value is 1 for the
//! winner and 0 for everyone else.

use super::action::ActionId;
use super::determinize::{Determinizer, HandLog};
use super::state::{HandResult, HeadState};
use crate::error::EngineError;
use crate::game::{Determinize, Horizon, Rollout, SearchValue};
use crate::rng::SplitMix64;

/// A searching seat remembers the log of the hand in progress (`None`: nothing seen yet).
impl Determinize for HeadState {
    type Memory = Option<HandLog>;
    type Sampler = Determinizer;

    fn observe(memory: &mut Option<HandLog>, before: &HeadState, action: &ActionId) {
        match memory {
            Some(log) => log.observe(before, *action),
            None => {
                let mut log = HandLog::new(before.clone());
                log.observe(before, *action);
                *memory = Some(log);
            }
        }
    }

    fn sampler(
        &self,
        memory: &mut Option<HandLog>,
        observer: u8,
    ) -> Result<Determinizer, EngineError> {
        let log = memory.get_or_insert_with(|| HandLog::new(self.clone()));
        log.sync(self);
        Determinizer::new(log, observer)
    }

    #[inline]
    fn sample(sampler: &mut Determinizer, rng: &mut SplitMix64) -> HeadState {
        sampler.sample(rng)
    }
}

impl SearchValue for HeadState {
    /// Random rollouts waste the hand on moves nobody makes (see `search`).
    const DEFAULT_ROLLOUT: Rollout = Rollout::Heuristic;
    type Root = ();

    fn search_root(&self) {}

    fn search_value(
        &self,
        _root: &(),
        hand: Option<&HandResult>,
        player: u8,
        horizon: Horizon,
    ) -> f64 {
        if let Some(w) = self.winner() {
            return (w == player) as u8 as f64;
        }
        if horizon == Horizon::Game {
            return 0.5; // not reached: the rollout plays to the end
        }
        let Some(r) = hand else {
            return 0.5;
        };
        if r.new_pooped & (1 << player) != 0 {
            return 0.0;
        }
        let drowsy = if r.new_drowsy & (1 << player) != 0 {
            0.15
        } else {
            0.0
        };
        (0.5 - r.deltas[player as usize] as f64 / 60.0 - drowsy).clamp(0.0, 1.0)
    }

    /// A random rollout draws from its own stream, seeded from the search's.
    #[inline]
    fn rollout_rng(search: &mut SplitMix64) -> Option<SplitMix64> {
        Some(SplitMix64::new(search.next()))
    }
}
