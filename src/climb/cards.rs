//! Card ids, suits, ranks and card sets of the climbing games (S-1, contract §1).
//!
//! Ids are normative (S-1.3): animal card `suit * 13 + white_rank` (0–64), element (wind) card
//! `65 + suit` (65–69). A set of cards is a `u128` with bit `id` set per card: the 65 animal ids
//! need 65 bits, so a `u64` is one bit short, and one word keeps every set operation a single
//! instruction pair.

use std::cmp::Ordering;

/// A set of card ids, bit `id` set per card.
pub type CardSet = u128;

/// Five suits, the elements (S-1.1).
pub const NUM_SUITS: usize = 5;
/// Thirteen ranks, 3 … A, 2 (S-1.2).
pub const NUM_RANKS: usize = 13;
/// Animal cards, ids `0..65`.
pub const NUM_ANIMALS: u8 = 65;
/// All card ids, `0..70`.
pub const NUM_CARDS: u8 = 70;
/// The id of the Fire element card; element card of suit `s` is `ELEMENT_BASE + s`.
pub const ELEMENT_BASE: u8 = 65;
/// Rank index of the "2", the highest rank, which never enters a run or formation (S-4.3).
pub const TWO: u8 = 12;
/// Rank index of the A, the highest rank a run may reach.
pub const ACE: u8 = 11;

/// Every animal card.
pub const ANIMALS: CardSet = (1u128 << NUM_ANIMALS) - 1;
/// The five element (wind) cards.
pub const ELEMENTS: CardSet = 0x1F << ELEMENT_BASE;
/// Every card id.
pub const ALL_CARDS: CardSet = (1u128 << NUM_CARDS) - 1;

/// Suit names in index order (S-1.1), as deck files spell them.
pub const SUIT_NAMES: [&str; NUM_SUITS] = ["fire", "earth", "wood", "water", "metal"];
/// Suit codes of the notation (contract §8).
pub const SUIT_CODES: [&str; NUM_SUITS] = ["Fi", "Ea", "Wo", "Wa", "Me"];
/// Rank names in index order (S-1.2).
pub const RANK_NAMES: [&str; NUM_RANKS] = [
    "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2",
];

/// The single-card set `{id}`.
#[inline(always)]
pub const fn bit(id: u8) -> CardSet {
    1u128 << id
}

/// Whether `id` is an element (wind) card.
#[inline(always)]
pub const fn is_element(id: u8) -> bool {
    id >= ELEMENT_BASE
}

/// The suit index of any card id.
#[inline]
pub const fn suit_of(id: u8) -> u8 {
    if id >= ELEMENT_BASE {
        id - ELEMENT_BASE
    } else {
        id / 13
    }
}

/// The white rank of an animal card (S-2.1).
#[inline]
pub const fn white_rank(id: u8) -> u8 {
    id % 13
}

/// The element card of suit `s`.
#[inline]
pub const fn element_id(suit: u8) -> u8 {
    ELEMENT_BASE + suit
}

/// The 13 animal cards of suit `s` plus its element card.
#[inline]
pub const fn suit_cards(suit: u8) -> CardSet {
    (0x1FFFu128 << (suit as u32 * 13)) | bit(ELEMENT_BASE + suit)
}

/// Every card of the suits in `suits` (bit `s` per suit).
pub fn cards_of_suits(suits: u8) -> CardSet {
    (0..NUM_SUITS as u8)
        .filter(|s| suits & (1 << s) != 0)
        .fold(0, |acc, s| acc | suit_cards(s))
}

/// Number of cards in a set.
#[inline(always)]
pub const fn count(set: CardSet) -> u32 {
    set.count_ones()
}

/// The ids of a set, increasing.
#[inline]
pub fn ids(set: CardSet) -> Ids {
    Ids(set)
}

/// Iterator over the ids of a [`CardSet`], increasing.
#[derive(Clone, Copy, Debug)]
pub struct Ids(CardSet);

impl Iterator for Ids {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let id = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(id)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Ids {}

/// Compare two sets as their increasing id lists compare lexicographically, a proper prefix
/// being smaller (the canonical order of contract §5.1, Python tuple order).
///
/// Below the lowest id where the sets differ both lists agree; the set holding that id `d` is the
/// smaller one, unless the other set has nothing above `d`: then the other list is a prefix of
/// this one and is smaller. O(1) instead of walking both lists.
#[inline]
pub fn cmp_lex(a: CardSet, b: CardSet) -> Ordering {
    let x = a ^ b;
    if x == 0 {
        return Ordering::Equal;
    }
    let d = x.trailing_zeros();
    // Two shifts: `d + 1` is 128 when a set holds bit 127 (no card, but a caller's value).
    let above = (u128::MAX << d) << 1;
    if (a >> d) & 1 == 1 {
        if b & above == 0 {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    } else if a & above == 0 {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// The notation token of a card (contract §8): `Fi3`, `Wa10`, `Me2`, `Wo!`. An id of 70 or
/// more (no card) is written `#<id>`, which no parser accepts.
pub fn card_token(id: u8) -> String {
    let Some(suit) = SUIT_CODES.get(suit_of(id) as usize) else {
        return format!("#{id}");
    };
    if is_element(id) {
        format!("{suit}!")
    } else {
        format!("{suit}{}", RANK_NAMES[white_rank(id) as usize])
    }
}

/// Parse a card token; `None` unless it is exactly a token [`card_token`] writes.
pub fn parse_card(token: &str) -> Option<u8> {
    let suit = SUIT_CODES.iter().position(|c| token.starts_with(c))? as u8;
    let rest = &token[2..];
    if rest == "!" {
        return Some(element_id(suit));
    }
    let rank = parse_rank(rest)?;
    Some(suit * 13 + rank)
}

/// A rank index from its name (`"3"` … `"2"`).
pub fn parse_rank(name: &str) -> Option<u8> {
    RANK_NAMES.iter().position(|r| *r == name).map(|r| r as u8)
}

/// `"earth 7"` / `"earth element"`: how deck errors name a card (`"no card 70"` past the ids).
pub fn card_label(id: u8) -> String {
    let Some(suit) = SUIT_NAMES.get(suit_of(id) as usize) else {
        return format!("no card {id}");
    };
    if is_element(id) {
        format!("{suit} element")
    } else {
        format!("{suit} {}", RANK_NAMES[white_rank(id) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(a: CardSet, b: CardSet) -> Ordering {
        ids(a).collect::<Vec<_>>().cmp(&ids(b).collect::<Vec<_>>())
    }

    #[test]
    fn s1_3_ids_and_suits() {
        assert_eq!(suit_of(0), 0);
        assert_eq!(suit_of(64), 4);
        assert_eq!(white_rank(64), TWO);
        assert_eq!(suit_of(68), 3);
        assert_eq!(count(ANIMALS), 65);
        assert_eq!(count(ELEMENTS), 5);
        assert_eq!(count(ALL_CARDS), 70);
        let all = (0..5).fold(0, |a, s| a | suit_cards(s));
        assert_eq!(all, ALL_CARDS);
        assert_eq!(count(suit_cards(2)), 14);
        assert_eq!(cards_of_suits(0b101), suit_cards(0) | suit_cards(2));
    }

    #[test]
    fn cmp_lex_is_list_order() {
        let mut g = crate::rng::SplitMix64::new(5);
        for _ in 0..20_000 {
            let a = (g.next() as u128 | ((g.next() as u128) << 64)) & ALL_CARDS;
            let mut b = a;
            // Small perturbations make shared prefixes and proper prefixes common.
            for _ in 0..(g.next() % 4) {
                b ^= bit((g.next() % 70) as u8);
            }
            if g.next() % 3 == 0 {
                b &= (1u128 << (g.next() % 70)) - 1;
            }
            assert_eq!(cmp_lex(a, b), lex(a, b), "{a:#x} {b:#x}");
            assert_eq!(cmp_lex(b, a), lex(b, a));
        }
        assert_eq!(cmp_lex(0, bit(0)), Ordering::Less);
        assert_eq!(cmp_lex(bit(1) | bit(2), bit(1)), Ordering::Greater);
        assert_eq!(cmp_lex(bit(1) | bit(2), bit(1) | bit(3)), Ordering::Less);
        // Bits past the last card (a hand-built value) compare like ids too, never overflow.
        assert_eq!(cmp_lex(bit(127), bit(1)), lex(bit(127), bit(1)));
        assert_eq!(cmp_lex(bit(3) | bit(127), bit(3)), Ordering::Greater);
        assert_eq!(cmp_lex(bit(126), bit(127)), Ordering::Less);
    }

    #[test]
    fn card_tokens_round_trip() {
        for id in 0..NUM_CARDS {
            assert_eq!(parse_card(&card_token(id)), Some(id));
        }
        assert_eq!(card_token(0), "Fi3");
        assert_eq!(card_token(46), "Wa10");
        assert_eq!(card_token(64), "Me2");
        assert_eq!(card_token(67), "Wo!");
        for bad in ["", "Fi", "Fi1", "fi3", "Fi3 ", "Xx3", "Wa!!", "Me11", "#70"] {
            assert_eq!(parse_card(bad), None, "{bad}");
        }
        // Ids past the last card have a token and a label too (error messages), never a panic.
        for id in [70u8, 100, 127, 255] {
            assert_eq!(card_token(id), format!("#{id}"));
            assert_eq!(card_label(id), format!("no card {id}"));
        }
    }
}
