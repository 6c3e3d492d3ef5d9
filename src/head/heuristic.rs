//! A simple Panda Head heuristic: shed high cards early, keep the lowest card for pile 7.
//!
//! Only pile 7 scores, and its winner is whoever plays the highest card there. So on piles 1–6 the
//! bot dumps its strongest play (Big Pandas and Bamboo combinations first), but never spends its
//! single lowest regular Panda while it has another choice: that card is its hope of not winning
//! the last pile. On the last pile the hand holds one card and the move is forced anyway.

#[cfg(test)]
use super::action::mask_ids;
use super::action::{
    Action, ActionId, ActionMask, BAMBOO_ALONE, BIG_PANDA, NUM_ACTIONS, WITH_BAMBOO_FIRST,
};
use super::cards::{values_present, REGULAR_MASK};
use super::state::HeadState;

/// How much the bot wants to get rid of what an action plays (higher = sooner); ties go to the
/// higher id. This is the bot's definition; [`preferred`] computes the same choice from bit scans.
#[cfg(test)]
fn shed_priority(action: Action) -> u8 {
    match action {
        Action::BigPanda => 20, // worth "highest + 1" later: dangerous to keep
        Action::PandaWithBamboo(v) => v + 2 + 1, // sheds the Bamboo as well
        Action::Panda(v) => v,
        Action::BambooAlone => 0, // forced whenever legal
    }
}

/// The ids of every action the game has.
const ALL_ACTIONS: ActionMask = (1 << NUM_ACTIONS) - 1;
/// The regular Pandas (ids 0..=10: value `id + 1`, priority `id + 1`).
const PANDAS: ActionMask = (1 << WITH_BAMBOO_FIRST) - 1;
/// The Pandas with a Bamboo (ids 11..=21: value `id - 10`, priority `id - 7`).
const WITH_BAMBOO: ActionMask = PANDAS << WITH_BAMBOO_FIRST;

/// The highest id in `mask`, if any.
#[inline]
fn top(mask: ActionMask) -> Option<ActionId> {
    (mask != 0).then(|| (31 - mask.leading_zeros()) as ActionId)
}

/// The id of highest (shed priority, id) among `candidates`: a Big Panda, else the higher of the
/// best Panda and the best Panda with Bamboo (the Bamboo one on a tie of priority: its id is
/// higher), else a Bamboo alone. Every (priority, id) key is distinct, so this is the maximum of
/// [`shed_priority`] exactly; the heuristic runs at every decision of every batch game, and a
/// scan over the mask's ids cost a fifth of a heuristic game's instructions.
#[inline]
fn preferred(candidates: ActionMask) -> Option<ActionId> {
    if candidates & (1 << BIG_PANDA) != 0 {
        return Some(BIG_PANDA);
    }
    match (top(candidates & PANDAS), top(candidates & WITH_BAMBOO)) {
        (Some(panda), Some(bamboo)) => {
            // Priorities: a Panda's is its id + 1, a Panda with Bamboo's its id - 7.
            let (panda_priority, bamboo_priority) = (panda + 1, bamboo - 7);
            Some(if bamboo_priority >= panda_priority {
                bamboo
            } else {
                panda
            })
        }
        (panda, bamboo) => panda
            .or(bamboo)
            .or_else(|| (candidates & (1 << BAMBOO_ALONE) != 0).then_some(BAMBOO_ALONE)),
    }
}

/// The heuristic's choice among `legal` when `lowest` is the value of the player's lowest regular
/// Panda: the preferred action that keeps that card, else the preferred action.
#[inline]
fn choice(legal: ActionMask, lowest: Option<u8>) -> ActionId {
    let legal = legal & ALL_ACTIONS;
    let spends_lowest = lowest.map_or(0, |v| {
        1 << Action::Panda(v).id() | 1 << Action::PandaWithBamboo(v).id()
    });
    // A legal mask is never empty while the game runs; an empty one gets action 0, which
    // the caller's check refuses.
    preferred(legal & !spends_lowest)
        .or_else(|| preferred(legal))
        .unwrap_or(0)
}

/// The heuristic's action among `legal` (the non-empty mask of `state`'s player to move).
pub fn heuristic_action(state: &HeadState, legal: ActionMask) -> ActionId {
    let seat = state.current_player().unwrap_or(0);
    let values = values_present(state.hand(seat) & REGULAR_MASK);
    let lowest = (values != 0).then(|| values.trailing_zeros() as u8 + 1);
    choice(legal, lowest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::cards::MAX_VALUE;

    /// The bot's definition, as a scan: the maximum (priority, id) among the legal actions that
    /// keep the lowest Panda, else among all legal actions.
    fn by_definition(legal: ActionMask, lowest: Option<u8>) -> ActionId {
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
        best(true).or_else(|| best(false)).unwrap_or(0)
    }

    #[test]
    fn the_bit_scan_choice_is_the_definitions() {
        // Without a lowest Panda and with each lowest value: every mask of up to three ids
        // (where priorities meet), and a spread of other masks (a multiplicative stride visits
        // them in a scrambled order) with a bit past the action space, which neither picks.
        let n = NUM_ACTIONS as u32;
        let small: Vec<ActionMask> = (0..=n)
            .flat_map(|a| (a..=n).flat_map(move |b| (b..=n).map(move |c| (a, b, c))))
            .map(|(a, b, c)| [a, b, c].iter().fold(0, |m, &i| m | (1u32 << i) >> 1))
            .collect();
        let lowests = std::iter::once(None).chain((1..=MAX_VALUE).map(Some));
        for lowest in lowests {
            let mut state: u32 = 1;
            let spread = (0..60_000).map(|_| {
                state = state.wrapping_mul(2_654_435_761).wrapping_add(12_345);
                state & (ALL_ACTIONS | 1 << 30)
            });
            for legal in small.iter().copied().chain(spread) {
                assert_eq!(
                    choice(legal, lowest),
                    by_definition(legal, lowest),
                    "{legal:#x}, lowest {lowest:?}"
                );
            }
        }
    }

    #[test]
    fn ties_of_priority_go_to_the_bamboo_combination() {
        // 4+B (priority 7) against a 7 (priority 7): the Bamboo is shed too.
        let legal = 1 << Action::PandaWithBamboo(4).id() | 1 << Action::Panda(7).id();
        assert_eq!(choice(legal, None), Action::PandaWithBamboo(4).id());
        // 4+B against an 8: the 8 is higher.
        let legal = 1 << Action::PandaWithBamboo(4).id() | 1 << Action::Panda(8).id();
        assert_eq!(choice(legal, None), Action::Panda(8).id());
    }
}
