//! What a move does in a given position, before it is played: the cards it takes from the hand
//! (H-1.4) and its effective value (H-4.2, H-4.3), as the legal-move objects report them.

use super::action::{mask_ids, Action, ActionId};
use super::cards::{self, CardSet, BAMBOO_MASK, BIG_PANDA_MASK};
use super::state::HeadState;

/// One move in one position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveInfo {
    pub action: ActionId,
    /// The cards that leave the hand: the lowest id of each kind played (H-1.4). Empty for a
    /// kind the hand does not hold (the move is then not legal).
    pub cards: CardSet,
    /// The value the play will have on the pile; `None` when a hidden card decides it (a Big
    /// Panda led, H-4.1, or a Bamboo alone, H-4.4).
    pub effective_value: Option<u8>,
}

/// The lowest card of `set` as a one-card set, empty for an empty set.
fn lowest_card(set: CardSet) -> CardSet {
    if set == 0 {
        0
    } else {
        1 << cards::lowest(set)
    }
}

/// Move `id` as the player to move in `state` would make it; `None` when `id` is not an action
/// id. Once the game is over, seat 0's hand is read (the move is not legal then).
pub fn move_info(state: &HeadState, id: ActionId) -> Option<MoveInfo> {
    let hand = state.hand(state.current_player().unwrap_or(0));
    let (cards, effective_value) = match Action::from_id(id)? {
        Action::Panda(v) => (lowest_card(hand & cards::value_mask(v)), Some(v)),
        // H-4.3: a Bamboo adds 2.
        Action::PandaWithBamboo(v) => (
            lowest_card(hand & cards::value_mask(v)) | lowest_card(hand & BAMBOO_MASK),
            Some(v + 2),
        ),
        // Following, a Big Panda is worth one more than the pile's highest (H-4.2); led, its
        // value is the card turned up from the hidden draw pile, unknown until played (H-4.1).
        Action::BigPanda => (
            lowest_card(hand & BIG_PANDA_MASK),
            state.highest().map(|h| h + 1),
        ),
        Action::BambooAlone => (lowest_card(hand & BAMBOO_MASK), None),
    };
    Some(MoveInfo {
        action: id,
        cards,
        effective_value,
    })
}

/// [`move_info`] of every legal move, by increasing action id.
pub fn legal_move_infos(state: &HeadState) -> Vec<MoveInfo> {
    mask_ids(state.legal_actions())
        .filter_map(|id| move_info(state, id))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::{Deal, HeadRules};

    /// Seat 1 holds two 3s, a 9, two Big Pandas and two Bamboo; seat 0 the 1s and two 2s.
    fn position(dealer: u8) -> HeadState {
        let hands = vec![(0..7).collect(), vec![11, 10, 40, 56, 55, 62, 60]];
        let used: Vec<u8> = hands.iter().flatten().copied().collect();
        let deal = Deal {
            hands,
            draw_pile: (0..63).filter(|c| !used.contains(c)).collect(),
            dealer,
            scores: vec![0, 0],
            drowsy: vec![false; 2],
            pooped: vec![false; 2],
            rng_state: 1,
            hand_number: 0,
        };
        HeadState::from_deal(2, &deal, HeadRules::default()).unwrap()
    }

    #[test]
    fn h1_4_lowest_copy_and_h4_values() {
        // Dealer 0: seat 1 leads.
        let st = position(0);
        let info = |st: &HeadState, a: Action| move_info(st, a.id()).unwrap();
        // Leading: a Big Panda's value is hidden (H-4.1).
        assert_eq!(info(&st, Action::BigPanda).effective_value, None);
        assert_eq!(info(&st, Action::BigPanda).cards, 1 << 55);
        assert_eq!(
            info(&st, Action::PandaWithBamboo(3)),
            MoveInfo {
                action: Action::PandaWithBamboo(3).id(),
                cards: (1 << 10) | (1 << 60),
                effective_value: Some(5),
            }
        );
        assert_eq!(info(&st, Action::BambooAlone).effective_value, None);
        // Dealer 1: seat 0 leads a 2; following, the Big Panda is worth 3 (H-4.2).
        let mut st = position(1);
        st.apply(Action::Panda(2).id()).unwrap();
        assert_eq!(info(&st, Action::BigPanda).effective_value, Some(3));
        assert_eq!(info(&st, Action::Panda(7)).cards, 0); // not held
        assert_eq!(move_info(&st, 24), None);
        let legal: Vec<ActionId> = legal_move_infos(&st).iter().map(|m| m.action).collect();
        assert_eq!(legal, mask_ids(st.legal_actions()).collect::<Vec<_>>());
    }
}
