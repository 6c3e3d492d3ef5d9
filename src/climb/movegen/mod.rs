//! Legal combinations of a hand (contract §5.2 step 4, classified as in §6).
//!
//! Generation works by rank windows, not by enumerating all subsets of the hand. Every
//! combination covers a window of consecutive ranks `lo ..= hi` with the same number `k` of units
//! on each rank (a single or set: one rank; a run: `k = 1`; a formation: `k >= 2`), and its units
//! are the fixed units of its cards plus the wild units, which fill the missing ones. So for each
//! window (and each `k` that the hand's units per rank can reach, checked in O(window) before any
//! search), only the cards whose fixed units all lie inside the window can take part, and a small
//! depth-first search over those cards (pruned on units per rank and total units) finds exactly
//! the subsets that fill the window; the ranks the wild units must be named are then the missing
//! units, in every distinct order. A subset and its named ranks determine the window and `k`, so
//! no play is found twice and the output needs no deduplication, only the canonical sort.
//!
//! When following, only the windows of the play to beat's shape above its rank are searched, plus
//! the bombs (S-5.2).
//!
//! Two implementations of that idea: [`rank_groups`], the fast path for hands whose faces each
//! have their fixed units on one rank (the whole shipped deck), and the general search below,
//! card by card within each window, for any face a deck file allows (several ranks on one face,
//! faces of wild units only).

mod rank_groups;

mod limits;
mod permutation;

pub use limits::{TooMany, MAX_LEGAL_MOVES, MAX_SEARCH_NODES};
use permutation::next_permutation;

use super::cards::{self, CardSet, ACE, NUM_RANKS};
use super::combo::{bomb_key, Shape};
use super::deck::{lane, Deck};
use super::moves::{Kind, Move, Ranks};

/// What the hand's cards offer, per rank, for the window searches.
struct HandUnits {
    /// `below[i]`: cards with a fixed unit of some rank `< i`.
    below: [CardSet; NUM_RANKS + 1],
    /// `above[i]`: cards with a fixed unit of some rank `>= i`.
    above: [CardSet; NUM_RANKS + 1],
    /// Fixed units per rank over the whole hand (packed lanes).
    avail: u128,
    /// Wild units over the whole hand.
    wild: u32,
    /// Cards showing a drop face (never in a bomb, S-4.5).
    drop: CardSet,
}

impl HandUnits {
    #[inline]
    fn new(deck: &Deck, hand: CardSet, blue: CardSet) -> Self {
        let mut touch = [0 as CardSet; NUM_RANKS];
        let mut avail = 0u128;
        let mut wild = 0u32;
        let mut drop = 0;
        for id in cards::ids(hand) {
            let f = deck.face_in(id, blue);
            avail += f.counts;
            wild += f.wild as u32;
            if f.drop {
                drop |= cards::bit(id);
            }
            let mut m = f.mask;
            while m != 0 {
                touch[m.trailing_zeros() as usize] |= cards::bit(id);
                m &= m - 1;
            }
        }
        let mut below = [0; NUM_RANKS + 1];
        let mut above = [0; NUM_RANKS + 1];
        for r in 0..NUM_RANKS {
            below[r + 1] = below[r] | touch[r];
            above[NUM_RANKS - 1 - r] = above[NUM_RANKS - r] | touch[NUM_RANKS - 1 - r];
        }
        Self {
            below,
            above,
            avail,
            wild,
            drop,
        }
    }

    /// The cards of `hand` whose fixed units all lie in `lo ..= hi` (wild-only faces included).
    #[inline]
    fn compat(&self, hand: CardSet, lo: u8, hi: u8) -> CardSet {
        hand & !self.below[lo as usize] & !self.above[hi as usize + 1]
    }

    /// Whether the hand could fill `lo .. lo + len` with `k` units per rank: the units missing
    /// from its fixed units must not exceed its wild units (a necessary condition only).
    #[inline]
    fn can_fill(&self, lo: u8, len: u8, k: u32) -> bool {
        let mut missing = 0;
        for r in lo..lo + len {
            missing += k.saturating_sub(lane(self.avail, r));
        }
        missing <= self.wild
    }
}

/// A subset under construction.
#[derive(Clone, Copy)]
struct Pick {
    cards: CardSet,
    counts: u128,
    units: u32,
    wild: u32,
    drop: bool,
}

const EMPTY: Pick = Pick {
    cards: 0,
    counts: 0,
    units: 0,
    wild: 0,
    drop: false,
};

/// Bounds of a search: total units in `min ..= max`, at most `cap` units on any rank.
#[derive(Clone, Copy)]
struct Limits {
    min: u32,
    max: u32,
    cap: u32,
}

/// Units of all cards of a set.
#[inline]
fn units_in(deck: &Deck, set: CardSet, blue: CardSet) -> u32 {
    cards::ids(set)
        .map(|id| deck.face_in(id, blue).units as u32)
        .sum()
}

/// Every subset of `rem` (added to `pick`) within `lim`, passed to `emit`. Returns false (and
/// stops) when `emit` does or when the node budget `nodes` runs out.
#[inline]
#[allow(clippy::too_many_arguments)]
fn search<F: FnMut(&Pick) -> bool>(
    deck: &Deck,
    blue: CardSet,
    rem: CardSet,
    rem_units: u32,
    pick: Pick,
    lim: Limits,
    nodes: &mut usize,
    emit: &mut F,
) -> bool {
    if *nodes == 0 {
        return false;
    }
    *nodes -= 1;
    if pick.units + rem_units < lim.min {
        return true;
    }
    if rem == 0 {
        if pick.cards != 0 {
            return emit(&pick);
        }
        return true;
    }
    let id = rem.trailing_zeros() as u8;
    let rest = rem & (rem - 1);
    let f = deck.face_in(id, blue);
    let units = pick.units + f.units as u32;
    let rest_units = rem_units - f.units as u32;
    if units <= lim.max {
        let counts = pick.counts + f.counts;
        let mut fits = true;
        if lim.cap != u32::MAX {
            let mut m = f.mask;
            while m != 0 {
                if lane(counts, m.trailing_zeros() as u8) > lim.cap {
                    fits = false;
                    break;
                }
                m &= m - 1;
            }
        }
        if fits {
            let next = Pick {
                cards: pick.cards | cards::bit(id),
                counts,
                units,
                wild: pick.wild + f.wild as u32,
                drop: pick.drop | f.drop,
            };
            if !search(deck, blue, rest, rest_units, next, lim, nodes, emit) {
                return false;
            }
        }
    }
    search(deck, blue, rest, rest_units, pick, lim, nodes, emit)
}

struct Gen<'a> {
    deck: &'a Deck,
    hand: CardSet,
    blue: CardSet,
    units: HandUnits,
    out: &'a mut Vec<Move>,
    /// Scratch for the named ranks of multi-wild window plays.
    scratch: Vec<u8>,
    /// `out` may not grow beyond this length.
    limit: usize,
    /// Search nodes left.
    nodes: usize,
    /// Set once the limit or the node budget stopped the generation.
    full: bool,
}

impl Gen<'_> {
    /// Plays on the one-rank window `x` with total units in `lim` (singles, sets, bombs).
    fn one_rank<F: Fn(&Pick) -> Option<Kind>>(
        &mut self,
        x: u8,
        cands: CardSet,
        lim: Limits,
        kind: F,
    ) {
        if cands == 0 || self.full {
            return;
        }
        let (deck, blue, limit) = (self.deck, self.blue, self.limit);
        let rem_units = units_in(deck, cands, blue);
        let out = &mut *self.out;
        let done = search(
            deck,
            blue,
            cands,
            rem_units,
            EMPTY,
            lim,
            &mut self.nodes,
            &mut |p: &Pick| {
                if let Some(k) = kind(p) {
                    if out.len() >= limit {
                        return false;
                    }
                    out.push(Move {
                        named: Ranks::repeat(x, p.wild as usize),
                        ..Move::of(k, p.cards)
                    });
                }
                true
            },
        );
        self.full |= !done;
    }

    /// Plays on the window `lo .. lo + len` (len >= 2) with `k` units per rank: runs (k = 1) and
    /// formations (k >= 2).
    fn window(&mut self, lo: u8, len: u8, k: u32) {
        let cands = self.units.compat(self.hand, lo, lo + len - 1);
        if cands == 0 || self.full {
            return;
        }
        let (deck, blue, limit) = (self.deck, self.blue, self.limit);
        let rem_units = units_in(deck, cands, blue);
        let total = k * len as u32;
        let lim = Limits {
            min: total,
            max: total,
            cap: k,
        };
        let kind = if k == 1 { Kind::Run } else { Kind::Formation };
        let out = &mut *self.out;
        let scratch = &mut self.scratch;
        let done = search(
            deck,
            blue,
            cands,
            rem_units,
            EMPTY,
            lim,
            &mut self.nodes,
            &mut |p: &Pick| {
                if p.wild == 0 {
                    if out.len() >= limit {
                        return false;
                    }
                    out.push(Move::of(kind, p.cards));
                    return true;
                }
                // The wild units take the missing units, in every distinct order (S-4.6).
                scratch.clear();
                for r in lo..lo + len {
                    for _ in lane(p.counts, r)..k {
                        scratch.push(r);
                    }
                }
                debug_assert_eq!(scratch.len(), p.wild as usize);
                loop {
                    if out.len() >= limit {
                        return false;
                    }
                    out.push(Move {
                        named: Ranks::from_slice(scratch),
                        ..Move::of(kind, p.cards)
                    });
                    if !next_permutation(scratch) {
                        return true;
                    }
                }
            },
        );
        self.full |= !done;
    }

    /// Leading: every combination (a 4+ set is a set, S-4.5).
    fn leading(&mut self) {
        for x in 0..NUM_RANKS as u8 {
            let cands = self.units.compat(self.hand, x, x);
            let lim = Limits {
                min: 1,
                max: u32::MAX,
                cap: u32::MAX,
            };
            self.one_rank(x, cands, lim, |p| {
                Some(if p.units == 1 {
                    Kind::Single
                } else {
                    Kind::Set
                })
            });
        }
        for len in 2..=5u8 {
            for lo in 0..=(ACE + 1 - len) {
                let mut k = 1;
                while self.units.can_fill(lo, len, k) {
                    self.window(lo, len, k);
                    k += 1;
                }
            }
        }
    }

    /// Following `b`: the same shape above it, and bombs (S-5).
    fn following(&mut self, b: &Shape) {
        match b.kind {
            Kind::Single | Kind::Set => {
                let u = b.units;
                for x in b.rank + 1..NUM_RANKS as u8 {
                    let cands = self.units.compat(self.hand, x, x);
                    let lim = Limits {
                        min: u,
                        max: u,
                        cap: u32::MAX,
                    };
                    // A 4+ play without a drop face is a bomb when following (S-4.5); the bomb
                    // pass below finds it.
                    self.one_rank(x, cands, lim, |p| {
                        if p.units >= 4 && !p.drop {
                            None
                        } else {
                            Some(b.kind)
                        }
                    });
                }
            }
            Kind::Run | Kind::Formation => {
                let len = b.length as u8;
                let k = b.copies;
                let first_lo = (b.rank + 2).saturating_sub(len);
                for lo in first_lo..=(ACE + 1 - len) {
                    if self.units.can_fill(lo, len, k) {
                        self.window(lo, len, k);
                    }
                }
            }
            _ => {}
        }
        // Bombs: four or more units of one rank, no drop face (S-4.5, S-5.2).
        let bomb = (b.kind == Kind::Bomb).then_some(*b);
        let min = match bomb {
            Some(s) => s.units.max(4),
            None => 4,
        };
        for x in 0..NUM_RANKS as u8 {
            let cands = self.units.compat(self.hand, x, x) & !self.units.drop;
            if lane(self.units.avail, x) + self.units.wild < min {
                continue;
            }
            let lim = Limits {
                min,
                max: u32::MAX,
                cap: u32::MAX,
            };
            self.one_rank(x, cands, lim, |p| {
                let beats = match bomb {
                    None => true,
                    Some(s) => {
                        let mine = Shape {
                            kind: Kind::Bomb,
                            rank: x,
                            units: p.units,
                            length: 1,
                            copies: p.units,
                        };
                        bomb_key(&mine) > bomb_key(&s)
                    }
                };
                beats.then_some(Kind::Bomb)
            });
        }
    }
}

/// Append every legal combination of the animal cards in `hand` (faces from `blue`) to `out`:
/// any combination when `to_beat` is `None` (leading), else those beating it. The appended part
/// is in canonical order (contract §5.1), without duplicates; `flip` and `steal` are empty.
///
/// At most [`MAX_LEGAL_MOVES`] are appended in all: past that, generation stops early and the
/// appended part holds some of them only; [`try_combinations`] reports that case.
pub fn combinations(
    deck: &Deck,
    hand: CardSet,
    blue: CardSet,
    to_beat: Option<&Shape>,
    out: &mut Vec<Move>,
) {
    let start = out.len();
    if try_combinations(deck, hand, blue, to_beat, out, start + MAX_LEGAL_MOVES).is_err() {
        out[start..].sort_unstable();
    }
}

/// [`combinations`] with `out` never growing beyond `limit` entries: when the combinations do
/// not fit (or the search needs more than [`MAX_SEARCH_NODES`] nodes), generation stops early
/// and returns [`TooMany`]; `out` then holds some of them, in no particular order.
pub fn try_combinations(
    deck: &Deck,
    hand: CardSet,
    blue: CardSet,
    to_beat: Option<&Shape>,
    out: &mut Vec<Move>,
    limit: usize,
) -> Result<(), TooMany> {
    let hand = hand & cards::ANIMALS;
    if hand == 0 {
        return Ok(());
    }
    match rank_groups::combinations(deck, hand, blue, to_beat, out, limit) {
        Some(done) => done,
        None => general(deck, hand, blue, to_beat, out, limit),
    }
}

/// The general search (any deck); the appended part is sorted canonically.
fn general(
    deck: &Deck,
    hand: CardSet,
    blue: CardSet,
    to_beat: Option<&Shape>,
    out: &mut Vec<Move>,
    limit: usize,
) -> Result<(), TooMany> {
    let start = out.len();
    let mut g = Gen {
        deck,
        hand,
        blue,
        units: HandUnits::new(deck, hand, blue),
        out,
        scratch: Vec::new(),
        limit,
        nodes: MAX_SEARCH_NODES,
        full: false,
    };
    match to_beat {
        None => g.leading(),
        Some(b) => g.following(b),
    }
    if g.full {
        return Err(TooMany);
    }
    out[start..].sort_unstable();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::cards::{ids, ALL_CARDS, ANIMALS};
    use crate::climb::combo::{beats, classify_play};
    use crate::climb::moves::Ranks;
    use crate::rng::SplitMix64;
    use std::sync::Arc;

    /// The reference: every subset of the hand with every naming, classified and filtered.
    fn brute(deck: &Deck, hand: CardSet, blue: CardSet, to_beat: Option<&Shape>) -> Vec<Move> {
        let cards: Vec<u8> = ids(hand & ANIMALS).collect();
        let mut out = Vec::new();
        for mask in 1u32..(1 << cards.len()) {
            let set: CardSet = cards
                .iter()
                .enumerate()
                .filter(|(i, _)| mask >> i & 1 == 1)
                .fold(0, |a, (_, &c)| a | cards::bit(c));
            let wild: usize = ids(set)
                .map(|id| deck.face_in(id, blue).wild as usize)
                .sum();
            // Namings as multisets (non-decreasing), then every distinct order of each: the
            // classification depends only on the multiset.
            let mut names = vec![0u8; wild];
            loop {
                let named = Ranks::from_slice(&names);
                if let Some(c) = classify_play(deck, set, blue, &named, to_beat.is_none()) {
                    if to_beat.map_or(true, |b| beats(&c.shape, b)) {
                        let mut perm = names.clone();
                        loop {
                            out.push(Move {
                                named: Ranks::from_slice(&perm),
                                ..Move::of(c.shape.kind, set)
                            });
                            if !next_permutation(&mut perm) {
                                break;
                            }
                        }
                    }
                }
                // Next non-decreasing sequence.
                let mut i = wild;
                while i > 0 && names[i - 1] == 12 {
                    i -= 1;
                }
                if i == 0 {
                    break;
                }
                names[i - 1] += 1;
                let v = names[i - 1];
                for n in &mut names[i..] {
                    *n = v;
                }
            }
        }
        out.sort();
        out
    }

    fn gen(deck: &Deck, hand: CardSet, blue: CardSet, to_beat: Option<&Shape>) -> Vec<Move> {
        let mut out = Vec::new();
        try_combinations(deck, hand, blue, to_beat, &mut out, MAX_LEGAL_MOVES).unwrap();
        // Both implementations agree.
        let mut slow = Vec::new();
        general(
            deck,
            hand & ANIMALS,
            blue,
            to_beat,
            &mut slow,
            MAX_LEGAL_MOVES,
        )
        .unwrap();
        assert_eq!(out, slow, "fast and general paths differ");
        out
    }

    fn random_hand(g: &mut SplitMix64, size: u32) -> CardSet {
        let mut hand: CardSet = 0;
        while hand.count_ones() < size {
            hand |= cards::bit((g.next() % 65) as u8);
        }
        hand
    }

    fn check_against_brute(deck: &Arc<Deck>, seed: u64, rounds: usize, size: u32) {
        let mut g = SplitMix64::new(seed);
        for _ in 0..rounds {
            let hand = random_hand(&mut g, size);
            let blue = (g.next() as u128 | (g.next() as u128) << 64) & hand & ALL_CARDS;
            let lead = gen(deck, hand, blue, None);
            assert_eq!(
                lead,
                brute(deck, hand, blue, None),
                "leading {hand:#x} {blue:#x}"
            );
            // Follow a play taken from another random hand's leads, and a random bomb.
            let other = random_hand(&mut g, 9);
            let other_blue = (g.next() as u128) & other;
            let options = gen(deck, other, other_blue, None);
            if options.is_empty() {
                continue;
            }
            let m = &options[(g.next() % options.len() as u64) as usize];
            let mut shape = classify_play(deck, m.cards, other_blue, &m.named, false)
                .unwrap()
                .shape;
            if g.next() % 5 == 0 && shape.kind == Kind::Set && shape.units >= 2 {
                shape.kind = Kind::Bomb;
                shape.units = 4 + (g.next() % 2) as u32;
                shape.copies = shape.units;
            }
            let follow = gen(deck, hand, blue, Some(&shape));
            assert_eq!(
                follow,
                brute(deck, hand, blue, Some(&shape)),
                "following {shape:?} with {hand:#x} {blue:#x}"
            );
        }
    }

    /// Fewer cases in debug builds: the brute force is exponential.
    fn scaled(n: usize) -> usize {
        if cfg!(debug_assertions) {
            n.div_ceil(25)
        } else {
            n
        }
    }

    #[test]
    fn s4_s5_matches_brute_force_on_the_shipped_deck() {
        check_against_brute(&Deck::reconstructed(), 1, scaled(400), 10);
        check_against_brute(&Deck::reconstructed(), 2, scaled(60), 13);
    }

    #[test]
    fn s4_6_matches_brute_force_with_two_wild_faces() {
        // A custom deck with two-wild and wild-only faces and multi-rank faces.
        let mut doc = Deck::reconstructed().doc().clone();
        let faces = [
            (
                13u8,
                serde_json::json!({"units": ["wild", "wild"], "symbols": ["fire", "fire"]}),
            ),
            (
                14,
                serde_json::json!({"units": ["4"], "symbols": ["panda", "panda"]}),
            ),
            (
                15,
                serde_json::json!({"units": ["5", "6", "wild"], "symbols": ["fire"]}),
            ),
            // Schema rule 6 allows 8 wild units per window: the wild-only face, the five blue
            // Fire cards of a window and card 15 reach it.
            (
                16,
                serde_json::json!({"units": ["9"], "symbols": ["bamboo"]}),
            ),
            (
                17,
                serde_json::json!({"units": ["J", "Q"], "symbols": ["bamboo"]}),
            ),
        ];
        let deck = with_blue_faces(&mut doc, faces);
        let mut g = SplitMix64::new(11);
        for _ in 0..scaled(150) {
            let mut hand = random_hand(&mut g, 5);
            hand |= 0b11111 << 13;
            let blue = hand & ((g.next() as u128) | (0b11111 << 13));
            assert_eq!(gen(&deck, hand, blue, None), brute(&deck, hand, blue, None));
        }
        check_against_brute(&deck, 3, scaled(100), 8);
    }

    /// The shipped deck with the blue faces of some cards replaced.
    fn with_blue_faces(
        doc: &mut serde_json::Value,
        faces: impl IntoIterator<Item = (u8, serde_json::Value)>,
    ) -> Arc<Deck> {
        for (id, face) in faces {
            let entry = doc["cards"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["id"] == id)
                .unwrap();
            entry["blue"] = face;
        }
        Arc::new(Deck::from_json_value(doc, "custom.json").unwrap())
    }

    #[test]
    fn fast_path_with_two_wild_units_on_one_face() {
        // Single-rank faces with two wild units take the rank-group path.
        let mut doc = Deck::reconstructed().doc().clone();
        let faces = [
            (
                13u8,
                serde_json::json!({"units": ["7", "wild", "wild"], "symbols": ["fire", "fire"]}),
            ),
            (
                14,
                serde_json::json!({"units": ["8", "wild"], "symbols": ["fire", "bamboo"]}),
            ),
            (
                15,
                serde_json::json!({"units": ["9", "9"], "symbols": ["drop", "panda"]}),
            ),
        ];
        let deck = with_blue_faces(&mut doc, faces);
        let mut g = SplitMix64::new(12);
        for _ in 0..scaled(300) {
            let hand = random_hand(&mut g, 5) | (0b111 << 13) | cards::bit(0);
            let blue = hand & ((g.next() as u128) | (0b111 << 13));
            assert_eq!(gen(&deck, hand, blue, None), brute(&deck, hand, blue, None));
        }
        check_against_brute(&deck, 4, scaled(100), 9);
    }

    #[test]
    fn leading_white_run_hand() {
        let deck = Deck::reconstructed();
        // White 3 4 5 (Fire 3, Earth 4, Wood 5): 3 singles, 2+1 runs.
        let hand = cards::bit(0) | cards::bit(14) | cards::bit(28);
        let moves = gen(&deck, hand, 0, None);
        let kinds: Vec<_> = moves.iter().map(|m| m.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::Single,
                Kind::Single,
                Kind::Single,
                Kind::Run,
                Kind::Run,
                Kind::Run
            ]
        );
        assert_eq!(moves[3].card_ids(), [0, 14]);
        assert_eq!(moves[4].card_ids(), [0, 14, 28]);
        assert_eq!(moves[5].card_ids(), [14, 28]);
    }

    #[test]
    fn two_wilds_in_a_run_give_both_orders() {
        let deck = Deck::reconstructed();
        // Blue Fire 3 (10 + wild) and blue Fire 4 (J + wild): 8 9 10 J? no, 10 J + two wilds
        // make 4-runs 8 9 10 J (named 8/9 in both orders), 9 10 J Q, 10 J Q K.
        let hand = cards::bit(0) | cards::bit(1);
        let runs: Vec<Vec<u8>> = gen(&deck, hand, hand, None)
            .into_iter()
            .filter(|m| m.kind == Kind::Run && m.named.len() == 2 && m.cards == hand)
            .map(|m| m.named.as_slice().to_vec())
            .collect();
        assert!(runs.contains(&vec![5, 6]) && runs.contains(&vec![6, 5]));
        assert!(runs.contains(&vec![9, 10]) && runs.contains(&vec![10, 9]));
    }
}
