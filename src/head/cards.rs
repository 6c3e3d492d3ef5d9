//! Panda Head cards (H-1): ids, values and the 64-bit hand bitboards.
//!
//! Card ids are normative (H-1.3): `0..=54` regular Pandas with value `id / 5 + 1`, `55..=58` Big
//! Pandas, `59..=62` Bamboo. A hand is a `u64` with bit `id` set for each card it holds.

use crate::card::{CardInfo, CardValue};

/// A set of Panda Head cards, bit `id` set per card.
pub type CardSet = u64;

/// Number of regular Panda cards (H-1.2): values 1..=11, five copies each.
pub const REGULAR_COUNT: u8 = 55;
/// Highest regular value.
pub const MAX_VALUE: u8 = 11;
/// Copies of each regular value.
pub const COPIES: u8 = 5;
/// First Big Panda id.
pub const BIG_PANDA_FIRST: u8 = 55;
/// First Bamboo id.
pub const BAMBOO_FIRST: u8 = 59;
/// Cards in the full deck (H-1.1).
pub const DECK_SIZE: u8 = 63;

/// All regular Pandas.
pub const REGULAR_MASK: CardSet = (1 << REGULAR_COUNT) - 1;
/// The four Big Pandas.
pub const BIG_PANDA_MASK: CardSet = 0b1111 << BIG_PANDA_FIRST;
/// The four Bamboo cards.
pub const BAMBOO_MASK: CardSet = 0b1111 << BAMBOO_FIRST;
/// Every card of the full deck.
pub const FULL_DECK_MASK: CardSet = (1 << DECK_SIZE) - 1;

/// What a card is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardKind {
    /// A regular Panda of the given value (1..=11).
    Regular(u8),
    BigPanda,
    Bamboo,
}

/// The kind of card `id` (which must be `< 63`).
#[inline]
pub const fn kind(id: u8) -> CardKind {
    if id < BIG_PANDA_FIRST {
        CardKind::Regular(id / COPIES + 1)
    } else if id < BAMBOO_FIRST {
        CardKind::BigPanda
    } else {
        CardKind::Bamboo
    }
}

/// The five copies of regular value `v` (1..=11).
#[inline]
pub const fn value_mask(v: u8) -> CardSet {
    0b11111 << ((v - 1) * COPIES)
}

/// Bit `v - 1` set for each regular value `v` present in `cards`.
///
/// Branch-free, about twenty instructions: fold each 5-bit group of copies onto its lowest bit,
/// then pack those 11 bits (at positions 0, 5, …, 50) by halving the gaps in four shift-or-mask
/// steps. This runs once per legal-move generation, the hottest call of a simulation.
#[inline]
pub fn values_present(cards: CardSet) -> u16 {
    const GROUP_LOW_BITS: u64 = 0x0004_2108_4210_8421; // bits 5k, k = 0..=10
    let r = cards & REGULAR_MASK;
    let pairs = r | (r >> 1);
    let folded = (pairs | (pairs >> 2) | (r >> 4)) & GROUP_LOW_BITS;
    // bits 5k -> pairs at 10m, 10m+1 -> quads at 20q.. -> octets at 40o.. -> bits 0..=10
    let x = (folded | (folded >> 4)) & 0x000C_0300_C030_0C03; // {10m, 10m+1}
    let x = (x | (x >> 8)) & 0x0000_0F00_00F0_000F; // {20q .. 20q+3}
    let x = (x | (x >> 16)) & 0x0000_FF00_0000_00FF; // {40o .. 40o+7}
    ((x | (x >> 32)) & 0x7FF) as u16
}

/// The lowest card id in a non-empty set.
#[inline]
pub fn lowest(cards: CardSet) -> u8 {
    debug_assert!(cards != 0);
    cards.trailing_zeros() as u8
}

/// The ids of a set in increasing order.
pub fn ids(cards: CardSet) -> Vec<u8> {
    let mut out = Vec::with_capacity(cards.count_ones() as usize);
    let mut rest = cards;
    while rest != 0 {
        out.push(rest.trailing_zeros() as u8);
        rest &= rest - 1;
    }
    out
}

/// A short readable name for a card: `7`, `7'` … (copies are primed by index), `BP`, `B`.
pub fn card_name(id: u8) -> String {
    match kind(id) {
        CardKind::Regular(v) => format!("{v}#{}", id % COPIES),
        CardKind::BigPanda => format!("BP#{}", id - BIG_PANDA_FIRST),
        CardKind::Bamboo => format!("B#{}", id - BAMBOO_FIRST),
    }
}

/// How a person sees card `id` (which must be `< 63`): the move notation's token (`7`, `BP`,
/// `B`, H-1.3 kinds), a label, the value of a regular Panda. Every Panda Head card is one-faced
/// and suitless; the rules of a game decide which ids are dealt ([`deck_info`]).
pub fn card_info(id: u8) -> CardInfo {
    let (token, label, kind, value) = match kind(id) {
        CardKind::Regular(v) => (
            v.to_string(),
            format!("Panda {v}"),
            "panda",
            Some(CardValue::Number(v.into())),
        ),
        CardKind::BigPanda => ("BP".into(), "Big Panda".into(), "big_panda", None),
        CardKind::Bamboo => ("B".into(), "Bamboo".into(), "bamboo", None),
    };
    CardInfo {
        id,
        token,
        label,
        kind,
        suit: None,
        value,
        faces: None,
        in_play: true,
        rank: None,
        symbols: None,
        condition: None,
    }
}

/// The cards of a deck of `deck_size` cards (ids `0..deck_size`: 63, or 55 without the special
/// cards, H-2.3), in id order.
pub fn deck_info(deck_size: u8) -> Vec<CardInfo> {
    (0..deck_size.min(DECK_SIZE)).map(card_info).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn h1_3_card_ids() {
        assert_eq!(kind(0), CardKind::Regular(1));
        assert_eq!(kind(4), CardKind::Regular(1));
        assert_eq!(kind(5), CardKind::Regular(2));
        assert_eq!(kind(54), CardKind::Regular(11));
        assert_eq!(kind(55), CardKind::BigPanda);
        assert_eq!(kind(58), CardKind::BigPanda);
        assert_eq!(kind(59), CardKind::Bamboo);
        assert_eq!(kind(62), CardKind::Bamboo);
        assert_eq!(FULL_DECK_MASK.count_ones(), 63);
        assert_eq!(
            (REGULAR_MASK | BIG_PANDA_MASK | BAMBOO_MASK),
            FULL_DECK_MASK
        );
    }

    #[test]
    fn h1_3_card_info_follows_the_ids() {
        let seven = card_info(30);
        assert_eq!(kind(30), CardKind::Regular(7));
        assert_eq!(
            (seven.token.as_str(), seven.label.as_str(), seven.kind),
            ("7", "Panda 7", "panda")
        );
        assert_eq!(seven.value, Some(CardValue::Number(7)));
        assert_eq!(card_info(0).value, Some(CardValue::Number(1)));
        assert_eq!(card_info(54).value, Some(CardValue::Number(11)));
        let big = card_info(BIG_PANDA_FIRST);
        assert_eq!(
            (big.token.as_str(), big.label.as_str()),
            ("BP", "Big Panda")
        );
        assert_eq!((big.kind, big.value.clone()), ("big_panda", None));
        let bamboo = card_info(62);
        assert_eq!((bamboo.token.as_str(), bamboo.kind), ("B", "bamboo"));
        for card in deck_info(DECK_SIZE) {
            assert_eq!(
                (card.suit, card.faces.clone(), card.in_play),
                (None, None, true)
            );
            // The token is what the move notation writes for a play of that card alone.
            let action = crate::head::action::Action::parse(&card.token).expect("a notation");
            assert_eq!(action.notation(), card.token);
        }
    }

    #[test]
    fn h2_3_a_deck_without_special_cards_stops_at_54() {
        let full = deck_info(DECK_SIZE);
        assert_eq!(full.len(), 63);
        assert!(full.iter().enumerate().all(|(i, c)| usize::from(c.id) == i));
        let plain = deck_info(REGULAR_COUNT);
        assert_eq!(plain.len(), 55);
        assert!(plain.iter().all(|c| c.kind == "panda"));
    }

    #[test]
    fn h1_2_five_copies_of_each_value() {
        for v in 1..=MAX_VALUE {
            assert_eq!(value_mask(v).count_ones(), 5);
            for id in ids(value_mask(v)) {
                assert_eq!(kind(id), CardKind::Regular(v));
            }
        }
    }

    #[test]
    fn values_present_matches_a_plain_loop() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for _ in 0..20_000 {
            let cards = rng.next() & rng.next() & FULL_DECK_MASK;
            let plain = (1..=MAX_VALUE)
                .filter(|&v| cards & value_mask(v) != 0)
                .fold(0u16, |acc, v| acc | 1 << (v - 1));
            assert_eq!(values_present(cards), plain, "{cards:#x}");
        }
        for v in 1..=MAX_VALUE {
            for copy in 0..COPIES {
                assert_eq!(values_present(1 << ((v - 1) * COPIES + copy)), 1 << (v - 1));
            }
        }
    }

    #[test]
    fn values_present_finds_each_value_once() {
        let cards = (value_mask(3) & (1 << 10)) | value_mask(11) | BAMBOO_MASK;
        assert_eq!(values_present(cards), (1 << 2) | (1 << 10));
        assert_eq!(values_present(REGULAR_MASK), 0x7ff);
    }
}
