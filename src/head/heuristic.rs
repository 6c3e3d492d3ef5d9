//! A simple Panda Head heuristic: shed high cards early, keep the lowest card for pile 7.
//!
//! Only pile 7 scores, and its winner is whoever plays the highest card there. So on piles 1–6 the
//! bot dumps its strongest play (Big Pandas and Bamboo combinations first), but never spends its
//! single lowest regular Panda while it has another choice: that card is its hope of not winning
//! the last pile. On the last pile the hand holds one card and the move is forced anyway.

use super::action::{mask_ids, Action, ActionId, ActionMask};
use super::cards::{values_present, REGULAR_MASK};
use super::state::HeadState;

/// How much the bot wants to get rid of what an action plays (higher = sooner).
fn shed_priority(action: Action) -> u8 {
    match action {
        Action::BigPanda => 20, // worth "highest + 1" later: dangerous to keep
        Action::PandaWithBamboo(v) => v + 2 + 1, // sheds the Bamboo as well
        Action::Panda(v) => v,
        Action::BambooAlone => 0, // forced whenever legal
    }
}

/// The heuristic's action among `legal` (the non-empty mask of `state`'s player to move).
pub fn heuristic_action(state: &HeadState, legal: ActionMask) -> ActionId {
    let seat = state.current_player().unwrap_or(0);
    let values = values_present(state.hand(seat) & REGULAR_MASK);
    let lowest = (values != 0).then(|| values.trailing_zeros() as u8 + 1);
    let keeps_lowest = |a: Action| match a {
        Action::Panda(v) | Action::PandaWithBamboo(v) => Some(v) != lowest,
        _ => true,
    };
    let best = |only_keeping: bool| {
        mask_ids(legal)
            .filter_map(|id| Action::from_id(id).map(|a| (id, a)))
            .filter(|&(_, a)| !only_keeping || keeps_lowest(a))
            .max_by_key(|&(id, a)| (shed_priority(a), id))
            .map(|(id, _)| id)
    };
    // A legal mask is never empty while the game runs; an empty one gets action 0, which
    // the caller's check refuses.
    best(true).or_else(|| best(false)).unwrap_or(0)
}
