//! The value of a Panda Head search rollout at its horizon (ISMCTS; the information set it
//! samples is [`super::determinize`], both bound in `contract.rs`).
//!
//! Value at the end of a hand (the default horizon) for player `p`: 1 if `p` has won the game,
//! 0 if `p` was Pooped (or someone else won); otherwise `0.5 - delta / 60`, clamped to `[0, 1]`,
//! where `delta` is the change of `p`'s score this hand (penalty points of pile 7 push it down,
//! Poor Panda losses push it up), and a fresh Drowsy state costs a further 0.15. Only pile 7
//! scores, so this is the quantity a hand decides. At the game horizon the value is 1 for the
//! winner and 0 for everyone else.

use super::state::{HandResult, HeadState};
use crate::contract::Horizon;

/// The value of `state` for `player` (module docs); `hand`: the first hand the rollout ended.
pub fn hand_value(
    state: &HeadState,
    hand: Option<&HandResult>,
    player: u8,
    horizon: Horizon,
) -> f64 {
    if let Some(w) = state.winner() {
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
