//! The move record and its canonical order (contract §5.1).
//!
//! A move is plain data: a kind, the cards moved, the ranks named for wild units, the cards
//! flipped by a `flip` panda and the victims of `spin` panda steals. Cards and flips are card sets
//! (bit per id), so "sorted ids" is free and comparing two moves needs no allocation; the named
//! ranks live inline for the common case.

use std::cmp::Ordering;
use std::fmt;

use super::cards::{self, cmp_lex, CardSet};

/// Most seats at one table (S-12).
pub const MAX_PLAYERS: usize = 5;

/// The kind of a move; the discriminant is `KIND_INDEX` of contract §5.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    Pass = 0,
    DiscardElement = 1,
    Element = 2,
    Single = 3,
    Set = 4,
    Run = 5,
    Formation = 6,
    Bomb = 7,
}

impl Kind {
    pub const NAMES: [&'static str; 8] = [
        "pass",
        "discard_element",
        "element",
        "single",
        "set",
        "run",
        "formation",
        "bomb",
    ];
    const ALL: [Kind; 8] = [
        Kind::Pass,
        Kind::DiscardElement,
        Kind::Element,
        Kind::Single,
        Kind::Set,
        Kind::Run,
        Kind::Formation,
        Kind::Bomb,
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Self::NAMES
            .iter()
            .position(|n| *n == s)
            .map(|i| Self::ALL[i])
    }

    /// A combination kind (S-4): single, set, run, formation or bomb.
    #[inline]
    pub fn is_combination(self) -> bool {
        self as u8 >= Kind::Single as u8
    }
}

/// Named ranks of wild units, in card-id order (S-4.6). Inline up to [`Ranks::INLINE`] entries
/// (the shipped deck never needs more than five); longer lists, possible only with custom decks
/// full of wild faces, go to the heap.
#[derive(Clone)]
pub struct Ranks(Repr);

#[derive(Clone)]
enum Repr {
    Inline { len: u8, r: [u8; Ranks::INLINE] },
    Heap(Box<[u8]>),
}

impl Ranks {
    pub const INLINE: usize = 14;

    /// No named rank.
    #[inline]
    pub const fn new() -> Self {
        Ranks(Repr::Inline {
            len: 0,
            r: [0; Self::INLINE],
        })
    }

    #[inline]
    pub fn from_slice(s: &[u8]) -> Self {
        if s.len() <= Self::INLINE {
            let mut r = [0; Self::INLINE];
            // A plain loop: the lists are a few bytes, a `memcpy` call costs more.
            for (d, &x) in r.iter_mut().zip(s) {
                *d = x;
            }
            Ranks(Repr::Inline {
                len: s.len() as u8,
                r,
            })
        } else {
            Ranks(Repr::Heap(s.into()))
        }
    }

    /// `n` copies of rank `rank`.
    #[inline]
    pub fn repeat(rank: u8, n: usize) -> Self {
        if n <= Self::INLINE {
            let mut r = [0; Self::INLINE];
            r[..n].fill(rank);
            Ranks(Repr::Inline { len: n as u8, r })
        } else {
            Ranks(Repr::Heap(vec![rank; n].into()))
        }
    }

    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        match &self.0 {
            Repr::Inline { len, r } => &r[..*len as usize],
            Repr::Heap(b) => b,
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }
}

impl Default for Ranks {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialEq for Ranks {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for Ranks {}
impl std::hash::Hash for Ranks {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}
impl PartialOrd for Ranks {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranks {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}
impl fmt::Debug for Ranks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

/// The victims of `spin` panda steals (S-7.4): a multiset of seats, stored as a count per seat.
/// As a list it is non-decreasing (contract §5.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Steal(pub [u8; MAX_PLAYERS]);

impl Steal {
    /// The victims as a non-decreasing list of seats.
    pub fn seats(&self) -> impl Iterator<Item = u8> + '_ {
        self.0
            .iter()
            .enumerate()
            .flat_map(|(s, &n)| std::iter::repeat(s as u8).take(n as usize))
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }

    pub fn total(&self) -> u32 {
        self.0.iter().map(|&n| n as u32).sum()
    }
}

impl PartialOrd for Steal {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Steal {
    fn cmp(&self, other: &Self) -> Ordering {
        self.seats().cmp(other.seats())
    }
}

/// One move (contract §5.1). `Ord` is the canonical order
/// `(KIND_INDEX[kind], cards, named, flip, steal)`, lists compared as integer sequences.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Move {
    pub kind: Kind,
    /// The card ids moved (empty for `pass`).
    pub cards: CardSet,
    /// Ranks named for the wild units, in card-id order (S-4.6).
    pub named: Ranks,
    /// `year`/`flip`: the cards turned blue by the panda symbols (S-7.3).
    pub flip: CardSet,
    /// `spin`: the victims of the panda steals (S-7.4).
    pub steal: Steal,
}

impl Move {
    pub fn pass() -> Move {
        Move::of(Kind::Pass, 0)
    }

    /// A move with no named rank, flip or steal.
    #[inline]
    pub fn of(kind: Kind, cards: CardSet) -> Move {
        Move {
            kind,
            cards,
            named: Ranks::new(),
            flip: 0,
            steal: Steal::default(),
        }
    }

    /// The card ids, increasing.
    pub fn card_ids(&self) -> Vec<u8> {
        cards::ids(self.cards).collect()
    }

    /// The flipped ids, increasing.
    pub fn flip_ids(&self) -> Vec<u8> {
        cards::ids(self.flip).collect()
    }

    /// The steal victims, non-decreasing.
    pub fn steal_seats(&self) -> Vec<u8> {
        self.steal.seats().collect()
    }
}

impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Move {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        self.kind
            .cmp(&other.kind)
            .then_with(|| cmp_lex(self.cards, other.cards))
            .then_with(|| self.named.cmp(&other.named))
            .then_with(|| cmp_lex(self.flip, other.flip))
            .then_with(|| self.steal.cmp(&other.steal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::cards::bit;

    #[test]
    fn canonical_order_is_the_tuple_order() {
        let key = |m: &Move| {
            (
                m.kind as u8,
                m.card_ids(),
                m.named.as_slice().to_vec(),
                m.flip_ids(),
                m.steal_seats(),
            )
        };
        let mut moves = vec![
            Move::pass(),
            Move::of(Kind::Single, bit(3)),
            Move::of(Kind::Single, bit(1) | bit(9)),
            Move::of(Kind::Single, bit(1)),
            Move::of(Kind::DiscardElement, bit(66)),
            Move::of(Kind::Element, bit(65)),
            Move::of(Kind::Bomb, bit(0)),
            Move {
                named: Ranks::from_slice(&[4, 2]),
                ..Move::of(Kind::Run, bit(0))
            },
            Move {
                named: Ranks::from_slice(&[2, 4]),
                ..Move::of(Kind::Run, bit(0))
            },
            Move {
                named: Ranks::from_slice(&[2]),
                ..Move::of(Kind::Run, bit(0))
            },
            Move {
                flip: bit(5),
                ..Move::of(Kind::Single, bit(1))
            },
            Move {
                flip: bit(5) | bit(7),
                ..Move::of(Kind::Single, bit(1))
            },
            Move {
                steal: Steal([0, 2, 0, 0, 0]),
                ..Move::of(Kind::Single, bit(1))
            },
            Move {
                steal: Steal([1, 0, 1, 0, 0]),
                ..Move::of(Kind::Single, bit(1))
            },
        ];
        let mut by_key = moves.clone();
        by_key.sort_by_key(key);
        moves.sort();
        assert_eq!(moves, by_key);
    }

    #[test]
    fn long_named_lists_go_to_the_heap() {
        let long: Vec<u8> = (0..20).map(|i| i % 13).collect();
        let r = Ranks::from_slice(&long);
        assert_eq!(r.as_slice(), &long[..]);
        assert_eq!(Ranks::repeat(3, 20).len(), 20);
        assert!(Ranks::from_slice(&[1, 2]) < Ranks::from_slice(&[1, 2, 0]));
    }
}
