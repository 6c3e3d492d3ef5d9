//! Combinations (S-4, contract §6.1), beating (S-5, §6.2) and element conditions (S-2.3).
//!
//! A play is classified from its units only: the packed per-rank counts of the faces shown plus
//! the named ranks of the wild units, and whether some card shows a drop face. The shape of a
//! combination is `(kind, units, length, copies)`; beating compares shapes for equality and then
//! one integer key (the rank, or `units * 16 + rank` between bombs).

use super::cards::{CardSet, ANIMALS, NUM_RANKS};
use super::deck::{Condition, Deck};
use super::lanes::lane_one;
use super::moves::{Kind, Ranks};
// A shape is read off the unit counts alone (the deck loader needs it too); these paths stay.
pub use super::shape::{shape_of_counts, Shape};

/// A classified play: its shape plus the cards, the named ranks and whether a card showed its
/// blue face (the contract's `Combo`, and the snapshot's `to_beat` without the player).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Combo {
    pub shape: Shape,
    pub cards: CardSet,
    pub named: Ranks,
    pub has_blue: bool,
}

impl Combo {
    #[inline]
    pub fn kind(&self) -> Kind {
        self.shape.kind
    }
}

/// Why [`classify`] refuses its input (contract §6.1: malformed input is an error, not `None`).
pub type ClassifyError = String;

/// Classify a play given explicitly: animal card ids (any order, no repeats), the face each shows
/// (`true` = blue), and one named rank per wild unit in card-id order.
pub fn classify(
    deck: &Deck,
    cards: &[u8],
    blue: &[bool],
    named: &[u8],
    leading: bool,
) -> Result<Option<Combo>, ClassifyError> {
    if cards.len() != blue.len() {
        return Err(format!(
            "{} cards but {} faces: give one face per card",
            cards.len(),
            blue.len()
        ));
    }
    let mut set: CardSet = 0;
    let mut blue_set: CardSet = 0;
    for (&id, &b) in cards.iter().zip(blue) {
        if id >= super::cards::NUM_CARDS {
            return Err(format!("{id} is not a card id (0..69)"));
        }
        if super::cards::is_element(id) {
            return Err(format!(
                "{id} is an element card: only animal cards (0..64) form combinations"
            ));
        }
        if set >> id & 1 == 1 {
            return Err(format!("card {id} is given twice"));
        }
        set |= 1 << id;
        if b {
            blue_set |= 1 << id;
        }
    }
    if set == 0 {
        return Err("a play has at least one card".into());
    }
    let (counts, wild, drop) = units_of(deck, set, blue_set);
    if named.len() != wild as usize {
        return Err(format!(
            "the cards show {wild} wild unit(s) but {} rank(s) were named",
            named.len()
        ));
    }
    let mut total = counts;
    for &r in named {
        if r as usize >= NUM_RANKS {
            return Err(format!("{r} is not a rank index (0..12)"));
        }
        total += lane_one(r);
    }
    Ok(shape_of_counts(total, leading, drop).map(|shape| Combo {
        shape,
        cards: set,
        named: Ranks::from_slice(named),
        has_blue: set & blue_set != 0,
    }))
}

/// Fixed units (packed), wild units and the drop flag of the faces `cards` show. Ids that are
/// not animal cards (element cards, bits 70 and up) have no face and are ignored.
#[inline]
pub fn units_of(deck: &Deck, cards: CardSet, blue: CardSet) -> (u128, u32, bool) {
    let mut counts = 0u128;
    let mut wild = 0u32;
    let mut drop = false;
    for id in super::cards::ids(cards & ANIMALS) {
        let f = deck.face_in(id, blue);
        counts += f.counts;
        wild += f.wild as u32;
        drop |= f.drop;
    }
    (counts, wild, drop)
}

/// Classify a play of cards from a hand with named ranks (used when a move is applied; the move
/// generator only produces classifiable plays). Any set of ids is accepted: one that is empty or
/// holds anything but animal cards (an element card, an id of 70 or more) is no combination.
pub fn classify_play(
    deck: &Deck,
    cards: CardSet,
    blue: CardSet,
    named: &Ranks,
    leading: bool,
) -> Option<Combo> {
    if cards == 0 || cards & !ANIMALS != 0 {
        return None;
    }
    let (mut counts, wild, drop) = units_of(deck, cards, blue);
    if named.len() != wild as usize {
        return None;
    }
    for &r in named.as_slice() {
        if r as usize >= NUM_RANKS {
            return None;
        }
        counts += lane_one(r);
    }
    shape_of_counts(counts, leading, drop).map(|shape| Combo {
        shape,
        cards,
        named: named.clone(),
        has_blue: cards & blue != 0,
    })
}

/// May a play of shape `a` be played on a play of shape `b` (S-5, contract §6.2)?
#[inline]
pub fn beats(a: &Shape, b: &Shape) -> bool {
    match (a.kind == Kind::Bomb, b.kind == Kind::Bomb) {
        // S-5.2: more units, or as many and a higher rank.
        (true, true) => bomb_key(a) > bomb_key(b),
        // S-5.2: a bomb beats any play that is not a bomb.
        (true, false) => true,
        (false, true) => false,
        // S-5.1: same kind and shape, strictly higher (top) rank.
        (false, false) => {
            a.kind == b.kind
                && a.units == b.units
                && a.length == b.length
                && a.copies == b.copies
                && a.rank > b.rank
        }
    }
}

/// The order of bombs (S-5.2) as one integer: units first, then rank.
#[inline]
pub fn bomb_key(s: &Shape) -> u64 {
    ((s.units as u64) << 4) | s.rank as u64
}

/// Whether an element condition holds for the play to beat (S-2.3, S-5.3; contract §6.2 and
/// reading 11). No condition ever holds for a bomb.
#[inline]
pub fn condition_holds(cond: Condition, combo: &Combo) -> bool {
    let s = &combo.shape;
    if s.kind == Kind::Bomb {
        return false;
    }
    match cond {
        Condition::RunOrFormation3Ranks => {
            matches!(s.kind, Kind::Run | Kind::Formation) && s.length >= 3
        }
        Condition::Single => s.kind == Kind::Single,
        Condition::Set => s.kind == Kind::Set,
        // Water counts cards, not units.
        Condition::ThreeOrMoreCards => combo.cards.count_ones() >= 3,
        Condition::ContainsBlue => combo.has_blue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn deck() -> Arc<Deck> {
        Deck::reconstructed()
    }

    /// Classify animal cards, all white unless listed in `blue`.
    fn cl(cards: &[u8], blue: &[u8], named: &[u8], leading: bool) -> Option<Combo> {
        let faces: Vec<bool> = cards.iter().map(|c| blue.contains(c)).collect();
        classify(&deck(), cards, &faces, named, leading).unwrap()
    }

    fn kind(cards: &[u8], blue: &[u8], named: &[u8], leading: bool) -> Option<Kind> {
        cl(cards, blue, named, leading).map(|c| c.kind())
    }

    // Ids: Fire 3 = 0 (rank r = id), Earth r = 13 + r, Wood r = 26 + r, Water r = 39 + r,
    // Metal r = 52 + r. Rank indices: 3→0 … 10→7, J→8, Q→9, K→10, A→11, 2→12.

    #[test]
    fn s4_1_single_and_s1_5_two_unit_cards() {
        assert_eq!(kind(&[5], &[], &[], true), Some(Kind::Single));
        // Reading 9: blue Fire 3 = 10 + wild is two units: a pair or a 2-run, never a single.
        assert_eq!(kind(&[0], &[0], &[7], true), Some(Kind::Set));
        assert_eq!(kind(&[0], &[0], &[8], true), Some(Kind::Run));
        assert_eq!(kind(&[0], &[0], &[6], true), Some(Kind::Run));
        assert_eq!(kind(&[0], &[0], &[9], true), None);
        // Blue Water 4 = Q Q: a set of two.
        let c = cl(&[40], &[40], &[], true).unwrap();
        assert_eq!((c.kind(), c.shape.rank, c.shape.units), (Kind::Set, 9, 2));
    }

    #[test]
    fn s4_2_sets_and_s4_5_bombs() {
        // Four white 7s (Fire, Earth, Wood, Water): leading a set, following a bomb.
        let sevens = [4, 17, 30, 43];
        assert_eq!(kind(&sevens, &[], &[], true), Some(Kind::Set));
        assert_eq!(kind(&sevens, &[], &[], false), Some(Kind::Bomb));
        // Three 7s: a set either way.
        assert_eq!(kind(&sevens[..3], &[], &[], false), Some(Kind::Set));
        // Q Q (blue Water 4) + white Earth Q + white Wood Q: 4 units with a drop: a set (S-4.5).
        let c = cl(&[22, 35, 40], &[40], &[], false).unwrap();
        assert_eq!((c.kind(), c.shape.units), (Kind::Set, 4));
        // A wild unit is not a drop: blue Fire 3 (10 + wild) + three white 10s is a bomb.
        let c = cl(&[0, 20, 33, 46], &[0], &[7], false).unwrap();
        assert_eq!((c.kind(), c.shape.units, c.shape.rank), (Kind::Bomb, 5, 7));
    }

    #[test]
    fn s4_3_runs_and_the_two() {
        assert_eq!(kind(&[0, 14, 28], &[], &[], true), Some(Kind::Run)); // 3 4 5
        let c = cl(&[0, 14, 28, 42, 56], &[], &[], true).unwrap(); // 3 4 5 6 7
        assert_eq!((c.kind(), c.shape.rank, c.shape.length), (Kind::Run, 4, 5));
        // Six ranks: nothing.
        assert_eq!(kind(&[0, 14, 28, 42, 56, 5], &[], &[], true), None);
        // K A 2: the 2 may not be in a run; A 2 3 does not wrap.
        assert_eq!(kind(&[10, 24, 38], &[], &[], true), None);
        assert_eq!(kind(&[11, 25, 39], &[], &[], true), None);
        assert_eq!(kind(&[9, 23, 37], &[], &[], true), Some(Kind::Run)); // Q K A
                                                                         // A gap: nothing.
        assert_eq!(kind(&[0, 28], &[], &[], true), None);
        // A drop face can never be in a run (reading 6): blue Water 3 = J J with white Q.
        assert_eq!(kind(&[39, 9], &[39], &[], true), None);
    }

    #[test]
    fn s4_4_formations() {
        // Q Q K K
        let c = cl(&[9, 22, 10, 23], &[], &[], true).unwrap();
        assert_eq!(
            (c.kind(), c.shape.rank, c.shape.length, c.shape.copies),
            (Kind::Formation, 10, 2, 2)
        );
        // 3 3 3 4 4 4 5 5 5
        let c = cl(&[0, 13, 26, 1, 14, 27, 2, 15, 28], &[], &[], false).unwrap();
        assert_eq!(
            (c.kind(), c.shape.units, c.shape.copies),
            (Kind::Formation, 9, 3)
        );
        // Uneven counts: nothing.
        assert_eq!(kind(&[9, 22, 10], &[], &[], true), None);
        // A drop face fits a formation: blue Water 3 (J J) + Q Q.
        assert_eq!(kind(&[39, 9, 22], &[39], &[], true), Some(Kind::Formation));
        // K K 2 2 is no formation (the 2).
        assert_eq!(kind(&[10, 23, 12, 25], &[], &[], true), None);
    }

    #[test]
    fn s4_6_wilds_take_the_named_rank() {
        // Blue Fire 3 (10 + wild) with white Earth J and Wood Q: named 9 → 9 10 J Q? No: units
        // 10, wild, J, Q; naming 9 gives the run 9 10 J Q; naming K gives 10 J Q K.
        assert_eq!(kind(&[0, 21, 35], &[0], &[6], true), Some(Kind::Run));
        assert_eq!(kind(&[0, 21, 35], &[0], &[10], true), Some(Kind::Run));
        assert_eq!(kind(&[0, 21, 35], &[0], &[7], true), None);
        let e = classify(&deck(), &[0], &[true], &[], true).unwrap_err();
        assert!(e.contains("wild"), "{e}");
        assert!(classify(&deck(), &[65], &[false], &[], true).is_err());
        assert!(classify(&deck(), &[1, 1], &[false, false], &[], true).is_err());
        assert!(classify(&deck(), &[0], &[true], &[13], true).is_err());
    }

    #[test]
    fn classify_play_refuses_what_is_not_a_set_of_animal_cards() {
        // Issue 8 item 3: `move_info("single Me!")` reached the face table with an element id.
        let d = deck();
        let none = Ranks::new();
        let bit = crate::climb::cards::bit;
        for cards in [
            bit(69),
            bit(65) | bit(3),
            bit(70),
            bit(127),
            1u128 << 100 | bit(5),
            0,
        ] {
            assert_eq!(classify_play(&d, cards, u128::MAX, &none, true), None);
            assert_eq!(classify_play(&d, cards, 0, &none, false), None);
        }
        // Named ranks out of range, too many or too few: no combination, no panic.
        for named in [&[13u8][..], &[255], &[7, 7], &[]] {
            let r = Ranks::from_slice(named);
            assert_eq!(classify_play(&d, bit(0), bit(0), &r, true), None);
        }
        assert_eq!(units_of(&d, bit(66) | bit(120), 0), (0, 0, false));
    }

    #[test]
    fn s5_beating() {
        let single = |id: u8| cl(&[id], &[], &[], false).unwrap().shape;
        assert!(beats(&single(5), &single(4)));
        assert!(!beats(&single(4), &single(4)));
        assert!(!beats(&single(3), &single(4)));
        // S-5.1: shape counts units: blue Water 3 (J J) beats a pair of 10.
        let jj = cl(&[39], &[39], &[], false).unwrap().shape;
        let tens = cl(&[7, 20], &[], &[], false).unwrap().shape;
        assert!(beats(&jj, &tens));
        assert!(!beats(&tens, &jj));
        // Runs must match length; a set never beats a single.
        let run3 = cl(&[0, 14, 28], &[], &[], false).unwrap().shape; // 3 4 5
        let run3b = cl(&[1, 15, 29], &[], &[], false).unwrap().shape; // 4 5 6
        let run4 = cl(&[1, 15, 29, 43], &[], &[], false).unwrap().shape;
        assert!(beats(&run3b, &run3));
        assert!(!beats(&run4, &run3));
        assert!(!beats(&tens, &single(3)));
        // S-5.2: bombs.
        let bomb4 = cl(&[0, 13, 26, 39], &[], &[], false).unwrap().shape; // four 3s
        let bomb4hi = cl(&[1, 14, 27, 40], &[], &[], false).unwrap().shape; // four 4s
        let bomb5 = cl(&[0, 13, 26, 39, 52], &[], &[], false).unwrap().shape; // five 3s
        assert!(beats(&bomb4, &run4));
        assert!(beats(&bomb4, &single(12)));
        assert!(!beats(&single(12), &bomb4));
        assert!(beats(&bomb4hi, &bomb4));
        assert!(beats(&bomb5, &bomb4hi));
        assert!(!beats(&bomb4hi, &bomb5));
        assert!(!beats(&bomb4, &bomb4));
    }

    #[test]
    fn s2_3_conditions() {
        let d = deck();
        let run3 = cl(&[0, 14, 28], &[], &[], false).unwrap();
        let run2 = cl(&[0, 14], &[], &[], false).unwrap();
        let single = cl(&[5], &[], &[], false).unwrap();
        let pair_blue = cl(&[39], &[39], &[], false).unwrap(); // J J, one card, blue
        let bomb = cl(&[0, 13, 26, 39], &[], &[], false).unwrap();
        let c = |s: u8| d.element(s).condition;
        assert!(condition_holds(c(0), &run3));
        assert!(!condition_holds(c(0), &run2));
        assert!(condition_holds(c(1), &single));
        assert!(condition_holds(c(2), &pair_blue));
        assert!(!condition_holds(c(3), &pair_blue)); // Water counts cards: one card
        assert!(condition_holds(c(3), &run3));
        assert!(condition_holds(c(4), &pair_blue));
        assert!(!condition_holds(c(4), &run3));
        for s in 0..5 {
            assert!(
                !condition_holds(c(s), &bomb),
                "no condition holds for a bomb"
            );
        }
    }
}
