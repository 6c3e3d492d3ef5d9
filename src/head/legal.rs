//! Legal-move generation for Panda Head (H-3.1, H-3.2, H-4), on bitboards.
//!
//! Everything reduces to an 11-bit "values present" word and shifts: option A is the values at or
//! above a threshold, option B the lowest set bit, the Bamboo block the same bits shifted by 11.

use super::action::{ActionMask, BAMBOO_ALONE, BIG_PANDA, WITH_BAMBOO_FIRST};
use super::cards::{values_present, CardSet, BAMBOO_MASK, BIG_PANDA_MASK, REGULAR_MASK};

/// All 11 value bits.
const ALL_VALUES: u16 = 0x7ff;

/// Value bits `v - 1` for every `v >= min_value`.
#[inline]
const fn values_at_least(min_value: i32) -> u16 {
    if min_value <= 1 {
        ALL_VALUES
    } else if min_value > 11 {
        0
    } else {
        (ALL_VALUES << (min_value - 1)) & ALL_VALUES
    }
}

/// The legal actions for a player holding `hand`.
///
/// `highest` is the highest effective value played so far on the pile, or `None` when the player
/// leads. `lowest_only` is the `lowest_only_when_cannot_follow` variant.
#[inline]
pub fn legal_mask(hand: CardSet, highest: Option<u8>, lowest_only: bool) -> ActionMask {
    let regular = hand & REGULAR_MASK;
    let has_big = hand & BIG_PANDA_MASK != 0;
    let has_bamboo = hand & BAMBOO_MASK != 0;
    if regular == 0 && !has_big {
        // H-4.4: nothing but Bamboo; the Bamboo alone is the only (forced) play.
        return if has_bamboo { 1 << BAMBOO_ALONE } else { 0 };
    }
    let values = values_present(regular);
    let big = if has_big { 1 << BIG_PANDA } else { 0 };
    let with_bamboo = |v: u16| -> ActionMask {
        if has_bamboo {
            (v as ActionMask) << WITH_BAMBOO_FIRST
        } else {
            0
        }
    };
    match highest {
        // H-3.1: any regular Panda (alone or with a Bamboo, H-4.3) or any Big Panda.
        None => values as ActionMask | with_bamboo(values) | big,
        Some(h) => {
            let h = h as i32;
            // H-3.2 option A: value >= highest; with a Bamboo value + 2 >= highest; a Big Panda.
            let option_a = (values & values_at_least(h)) as ActionMask
                | with_bamboo(values & values_at_least(h - 2))
                | big;
            // H-3.2 option B: the lowest regular value, alone or with a Bamboo (H-4.3); none
            // without a regular Panda (H-4.5).
            let lowest = values & values.wrapping_neg();
            let option_b = lowest as ActionMask | with_bamboo(lowest);
            if lowest_only && option_a != 0 {
                option_a
            } else {
                option_a | option_b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::action::Action;
    use super::super::cards::value_mask;
    use super::*;

    fn ids(m: ActionMask) -> Vec<Action> {
        super::super::action::mask_ids(m)
            .map(|i| Action::from_id(i).unwrap())
            .collect()
    }

    #[test]
    fn lead_any_regular_or_big() {
        let hand =
            (value_mask(3) & (1 << 10)) | (1 << 55) | (1 << 59) | (value_mask(9) & (1 << 40));
        assert_eq!(
            ids(legal_mask(hand, None, false)),
            vec![
                Action::Panda(3),
                Action::Panda(9),
                Action::PandaWithBamboo(3),
                Action::PandaWithBamboo(9),
                Action::BigPanda
            ]
        );
    }

    #[test]
    fn follow_a_or_b() {
        // values 2, 5, 8; highest 6: A = 8, 5+B? no bamboo; B = 2.
        let hand = (1 << 5) | (1 << 20) | (1 << 35);
        assert_eq!(
            ids(legal_mask(hand, Some(6), false)),
            vec![Action::Panda(2), Action::Panda(8)]
        );
        assert_eq!(ids(legal_mask(hand, Some(6), true)), vec![Action::Panda(8)]);
        assert_eq!(ids(legal_mask(hand, Some(9), true)), vec![Action::Panda(2)]);
    }

    #[test]
    fn only_bamboo_forces_bamboo_alone() {
        assert_eq!(
            ids(legal_mask(BAMBOO_MASK, None, false)),
            vec![Action::BambooAlone]
        );
        assert_eq!(
            ids(legal_mask(1 << 60, Some(4), true)),
            vec![Action::BambooAlone]
        );
    }
}
