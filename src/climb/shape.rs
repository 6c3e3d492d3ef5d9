//! The shape of a combination (S-4, contract §6.1), read off its packed per-rank unit counts
//! alone: what the classifier, the beating rule and the deck loader's face check share.

use super::cards::{ACE, NUM_RANKS};
use super::lanes::lane;
use super::moves::Kind;

/// The shape of a combination as classified (contract §6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub kind: Kind,
    /// The set's rank, or the top rank of a run or formation.
    pub rank: u8,
    /// `length * copies`.
    pub units: u32,
    /// Distinct ranks (1 for single, set, bomb).
    pub length: u32,
    /// Units per rank (1 for single and run).
    pub copies: u32,
}

/// Classify packed per-rank unit counts (S-4; table of contract §6.1). `drop`: some card of the
/// play shows a drop face (such a play is never a bomb, S-4.5). `leading`: a 4+ set that leads is
/// a set, never a bomb (S-4.5).
pub fn shape_of_counts(counts: u128, leading: bool, drop: bool) -> Option<Shape> {
    let mut mask = 0u16;
    let mut units = 0u32;
    let mut top_count = 0u32;
    let mut uniform = true;
    for r in 0..NUM_RANKS as u8 {
        let c = lane(counts, r);
        if c > 0 {
            if mask != 0 && c != top_count {
                uniform = false;
            }
            mask |= 1 << r;
            units += c;
            top_count = c;
        }
    }
    if mask == 0 {
        return None;
    }
    let lo = mask.trailing_zeros() as u8;
    let hi = 15 - mask.leading_zeros() as u8;
    if lo == hi {
        let kind = if units == 1 {
            Kind::Single
        } else if units >= 4 && !leading && !drop {
            Kind::Bomb
        } else {
            Kind::Set
        };
        return Some(Shape {
            kind,
            rank: lo,
            units,
            length: 1,
            copies: units,
        });
    }
    let length = (hi - lo + 1) as u32;
    // S-4.3 / S-4.4: 2–5 consecutive ranks, the same count each, no "2", no wrapping.
    if mask >> lo != (1 << length) - 1 || length > 5 || hi > ACE || !uniform {
        return None;
    }
    let copies = top_count;
    Some(Shape {
        kind: if copies == 1 {
            Kind::Run
        } else {
            Kind::Formation
        },
        rank: hi,
        units,
        length,
        copies,
    })
}
