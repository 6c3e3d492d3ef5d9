//! A simple Panda Head heuristic: shed high cards early, keep the lowest card for pile 7.
//!
//! Only pile 7 scores, and its winner is whoever plays the highest card there. So on piles 1–6 the
//! bot dumps its strongest play (Big Pandas and Bamboo combinations first), but never spends its
//! single lowest regular Panda while it has another choice: that card is its hope of not winning
//! the last pile. On the last pile the hand holds one card and the move is forced anyway.

use super::HeadBot;
use crate::head::action::{mask_ids, Action};
use crate::head::cards::{values_present, REGULAR_MASK};
use crate::head::{ActionId, ActionMask, HeadState};

#[derive(Clone, Copy, Debug, Default)]
pub struct HeuristicBot;

/// How much the bot wants to get rid of what an action plays (higher = sooner).
fn shed_priority(action: Action) -> u8 {
    match action {
        Action::BigPanda => 20, // worth "highest + 1" later: dangerous to keep
        Action::PandaWithBamboo(v) => v + 2 + 1, // sheds the Bamboo as well
        Action::Panda(v) => v,
        Action::BambooAlone => 0, // forced whenever legal
    }
}

impl HeadBot for HeuristicBot {
    fn choose(&mut self, state: &HeadState, legal: ActionMask) -> ActionId {
        let seat = state
            .current_player()
            .expect("a bot is asked only while the game runs");
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
        best(true)
            .or_else(|| best(false))
            .expect("a legal mask is never empty while the game runs")
    }
}
