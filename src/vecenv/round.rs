//! The value of a finished round (a hand in Panda Head) for every seat, reported per step by the
//! vector env ([`super::VecEnv::round_results`]) for training targets shaped by the round rather
//! than the whole game.
//!
//! Each value is `2 v − 1` in `[-1, 1]`, where `v` in `[0, 1]` is the value ISMCTS gives the end
//! of a round at its default horizon (the same function, so a learned value and the search's agree
//! on what a round is worth). Each game's [`RoundValue`] is set in [`crate::games`] (the
//! registry), from its own search value:
//!
//! * Panda Head (`head/search_value.rs`): 1 for the game's winner, 0 for a Pooped seat or
//!   when someone else won; otherwise `0.5 − delta / 60`, clamped, where `delta` is the seat's
//!   change of score in the hand (H-5: the last-pile winner's penalty points push it down, Poor
//!   Panda losses push it up), and a fresh Drowsy state costs a further 0.15. Lower points are
//!   better.
//! * climbing (`climb/search_value.rs`): 1 for the game's winner, 0 when another seat won;
//!   otherwise `0.5 + (g − mean of the others' g) / 20`, clamped, where `g` is a seat's points
//!   gained in the round (show-out points: showing out first, while others hold many cards, scores
//!   most).
//!
//! At the step that ends the game the round's value is thus the game's result (+1 for the winner,
//! −1 for every other seat), the same as the step's rewards.

use crate::contract::GameState;

/// A game whose rounds the vector env values.
pub trait RoundValue: GameState {
    /// What the value needs to remember from the position before a move (the round's start).
    /// Saved with the env ([`super::VecEnv::save`]): a game's save form may not keep it.
    type RoundRoot: Copy + Send + Sync + serde::Serialize + serde::de::DeserializeOwned;
    /// Read before each move.
    fn round_root(&self) -> Self::RoundRoot;
    /// Every seat's value in `[-1, 1]` of the round `end` (module docs); `self` is the position
    /// the move that ended it reached, `root` what [`RoundValue::round_root`] read before it.
    fn round_values(&self, root: &Self::RoundRoot, end: &Self::RoundEnd, out: &mut [f32]);
}
