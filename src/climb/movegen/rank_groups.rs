//! The fast path of move generation: hands whose faces each have their fixed units on a single
//! rank (every face of the shipped deck: one unit, a drop pair, or one unit plus wild units).
//!
//! The hand's cards are grouped by that rank (a bit mask of hand positions per rank). Then:
//! - singles, sets and bombs are subsets of one group (S-4.1, S-4.2, S-4.5). They are generated
//!   directly in canonical order: a one-rank play is determined by its lowest card, so for each
//!   card in id order, the plays starting with it are the subsets of the higher cards of its group,
//!   visited "each set before its extensions, extensions in id order", which is lexicographic.
//! - runs and formations are found rank by rank from each low rank `lo`: at each rank take one
//!   subset of its group (or none) with at most `k` units; the missing units are the wild units'
//!   named ranks, so a window closes whenever missing units equal the wild units chosen. One search
//!   per `(lo, k)` covers every length 2–5, pruned as soon as the missing units cannot be balanced.
//!   These come out of order and are sorted on a `u64` key (see [`lex_key`]) carrying the cards'
//!   lexicographic order over hand positions and the entry index, far cheaper than comparing moves.
//!
//! Every step works on small arrays indexed by hand position; the target has no POPCNT, so the
//! code avoids counting bits in loops.

use std::cell::RefCell;

use super::limits::{TooMany, MAX_SEARCH_NODES};
use super::permutation::next_permutation;
use crate::climb::cards::{self, CardSet, ACE, NUM_RANKS};
use crate::climb::combo::{bomb_key, Shape};
use crate::climb::deck::{Deck, NO_RANK};
use crate::climb::moves::{Kind, Move, Ranks};

/// Hands up to this size take the fast path (a sort key holds 2 bits per hand position).
pub(super) const MAX_HAND: usize = 24;
/// Groups of more cards than this (only possible with custom decks) take the general path.
const MAX_GROUP: usize = 12;

/// The hand by hand position (`pos` = index among the hand's ids, increasing) and by rank.
struct Hand {
    len: usize,
    id: [u8; MAX_HAND],
    rank: [u8; MAX_HAND],
    /// Fixed units of the face (1, or 2 for a drop face).
    units: [u8; MAX_HAND],
    wild: [u8; MAX_HAND],
    /// Bit `pos` per card showing a drop face.
    drops: u32,
    /// Bit `pos` per card of each rank.
    group: [u32; NUM_RANKS],
    /// Fixed units per rank.
    fixed: [u32; NUM_RANKS],
    /// `wild_below[r]`: wild units of the cards of ranks `< r` (all zero without wild units:
    /// only the window search with wild units reads it).
    wild_below: [u32; NUM_RANKS + 1],
    /// Wild units of the whole hand.
    wild_total: u32,
}

impl Hand {
    /// Group the hand into `self` (all zero before), or false when it needs the general path.
    ///
    /// An out-parameter, not a returned `Option<Hand>`: generation runs for every decision and
    /// moving the ~300-byte table out of a constructor cost a `memcpy` each time.
    #[inline]
    fn fill(&mut self, deck: &Deck, hand: CardSet, blue: CardSet) -> bool {
        let h = self;
        let mut wild_at = [0u32; NUM_RANKS];
        for id in cards::ids(hand) {
            let pos = h.len;
            let f = deck.face_in(id, blue);
            if f.rank == NO_RANK || pos == MAX_HAND {
                return false;
            }
            let r = f.rank as usize;
            let units = f.units - f.wild;
            h.id[pos] = id;
            h.rank[pos] = f.rank;
            h.units[pos] = units;
            h.wild[pos] = f.wild;
            h.drops |= (f.drop as u32) << pos;
            h.group[r] |= 1 << pos;
            h.fixed[r] += units as u32;
            wild_at[r] += f.wild as u32;
            h.wild_total += f.wild as u32;
            h.len += 1;
        }
        if h.wild_total > 0 {
            for (r, &w) in wild_at.iter().enumerate() {
                h.wild_below[r + 1] = h.wild_below[r] + w;
            }
        }
        // Formations list every subset of a group: keep that table small (a hand of at most
        // MAX_GROUP cards cannot exceed it).
        h.len <= MAX_GROUP || h.group.iter().all(|g| g.count_ones() as usize <= MAX_GROUP)
    }

    const EMPTY: Hand = Hand {
        len: 0,
        id: [0; MAX_HAND],
        rank: [0; MAX_HAND],
        units: [0; MAX_HAND],
        wild: [0; MAX_HAND],
        drops: 0,
        group: [0; NUM_RANKS],
        fixed: [0; NUM_RANKS],
        wild_below: [0; NUM_RANKS + 1],
        wild_total: 0,
    };

    /// The hand's fixed units leave at most its wild units missing from `lo .. lo + len` with
    /// `k` units per rank (a necessary condition).
    #[inline]
    fn can_fill(&self, lo: u8, len: u8, k: u32) -> bool {
        let mut missing = 0;
        for r in lo..lo + len {
            missing += k.saturating_sub(self.fixed[r as usize]);
        }
        missing <= self.wild_total
    }
}

/// A subset of cards, summed.
#[derive(Clone, Copy, Default)]
struct Sum {
    cards: CardSet,
    pos: u32,
    units: u32,
    wild: u32,
    drop: bool,
    /// `Σ KEY_PART[p]` over the positions `p` in the set (see [`lex_key`]).
    key: u64,
}

impl Sum {
    #[inline(always)]
    fn with(&self, h: &Hand, p: usize) -> Sum {
        Sum {
            cards: self.cards | cards::bit(h.id[p]),
            pos: self.pos | 1 << p,
            units: self.units + h.units[p] as u32,
            wild: self.wild + h.wild[p] as u32,
            drop: self.drop || (h.drops >> p) & 1 == 1,
            key: self.key.wrapping_add(KEY_PART[p]),
        }
    }

    #[inline(always)]
    fn total(&self) -> u32 {
        self.units + self.wild
    }
}

/// A run or formation before it becomes a [`Move`]: its hand positions and named ranks.
#[derive(Clone, Copy)]
struct Entry {
    cards: CardSet,
    named_at: u32,
    named_len: u32,
}

/// A subset of a rank group as the window search sees it.
#[derive(Clone, Copy, Default)]
struct Part {
    cards: CardSet,
    pos: u32,
    units: u32,
    wild: u32,
    /// `Σ KEY_PART[p]`.
    key: u64,
}

#[derive(Default)]
struct Scratch {
    entries: Vec<Entry>,
    keys: Vec<u64>,
    named: Vec<u8>,
    perm: Vec<u8>,
    tie: Vec<usize>,
    /// Subsets of each rank group (empty subset first), for formations.
    subs: Vec<Part>,
    subs_start: [u32; NUM_RANKS + 1],
    /// Per-rank options of an exact window search ([`exact_options`]), for `opts_k` units.
    opts: Vec<Part>,
    opts_start: [u32; NUM_RANKS + 1],
    /// The `k` of `opts` (0: not built for this hand).
    opts_k: u32,
    /// Whether `subs` holds this hand's subsets.
    subs_built: bool,
}

impl Scratch {
    /// Drop the window plays found so far (after a generation stopped early).
    fn clear_entries(&mut self) {
        self.entries.clear();
        self.keys.clear();
        self.named.clear();
    }

    /// Forget the tables of the previous hand.
    fn reset(&mut self) {
        self.opts_k = 0;
        self.subs_built = false;
    }

    fn ensure_subs(&mut self, h: &Hand) {
        if !self.subs_built {
            build_subs(h, &mut self.subs, &mut self.subs_start);
            self.subs_built = true;
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// A move with no flip or steal.
#[inline(always)]
fn play(kind: Kind, cards: CardSet, named: Ranks) -> Move {
    Move {
        named,
        ..Move::of(kind, cards)
    }
}

/// The two key bits of hand position `p` (position 0 most significant): `01` present, `10`
/// absent while the set goes on above it, `00` once it has ended. See [`lex_key`].
const fn present_bit(p: usize) -> u64 {
    1 << (2 * (MAX_HAND - 1 - p))
}

/// `KEY_PART[p] = present - absent` bits of position `p` (wrapping).
const KEY_PART: [u64; MAX_HAND] = {
    let mut t = [0u64; MAX_HAND];
    let mut p = 0;
    while p < MAX_HAND {
        t[p] = present_bit(p).wrapping_sub(2 * present_bit(p));
        p += 1;
    }
    t
};

/// `ABSENT_BELOW[n]`: the absent bits of positions `0..n`.
const ABSENT_BELOW: [u64; MAX_HAND + 1] = {
    let mut t = [0u64; MAX_HAND + 1];
    let mut p = 0;
    while p < MAX_HAND {
        t[p + 1] = t[p] + 2 * present_bit(p);
        p += 1;
    }
    t
};

/// A 48-bit key whose integer order is the lexicographic order of the increasing position lists
/// (a proper prefix first), for sets of hand positions `0..24`, from `parts = Σ KEY_PART[p]`.
///
/// Each position, lowest first and most significant, gets two bits: `01` if present, `10` if
/// absent while the set goes on above it, `00` once the set has ended. At the first position
/// where two sets differ, the one present there is smaller (`01 < 10`) unless the other has
/// ended, in which case the ended one, a prefix, is smaller (`00`). With `last` the highest
/// position, the key is `Σ_{p in set} present(p) + Σ_{p < last, p not in set} absent(p)`
/// `= Σ_{p in set} (present(p) - absent(p)) + ABSENT_BELOW[last + 1]`, so the DFS keeps the sum
/// of parts and the key costs one addition.
#[inline(always)]
pub(super) fn lex_key(pos: u32, parts: u64) -> u64 {
    debug_assert!(pos != 0 && pos < 1 << MAX_HAND);
    let last = 31 - pos.leading_zeros() as usize;
    parts.wrapping_add(ABSENT_BELOW[last + 1])
}

/// Positions above `p` in `mask`.
#[inline(always)]
fn above(mask: u32, p: usize) -> u32 {
    mask & !((2u32 << p) - 1)
}

/// One-rank plays (singles, sets, bombs) in canonical order.
struct OneRank<'a, F: Fn(&Sum, u8) -> Option<Kind>> {
    h: &'a Hand,
    out: &'a mut Vec<Move>,
    /// The kind of a subset of rank `x`, or `None` to skip it.
    kind: F,
    /// Extending past this many units never helps (sums only grow).
    max_total: u32,
    /// Cards that may not take part (drop faces for bombs).
    excluded: u32,
    /// `out` may not grow beyond this length; `full` is set when it would have.
    limit: usize,
    full: bool,
}

impl<F: Fn(&Sum, u8) -> Option<Kind>> OneRank<'_, F> {
    /// Every play whose lowest card is at `p`, for `p` over `starts` in id order.
    #[inline]
    fn run(&mut self, starts: u32) {
        let mut rest = starts & !self.excluded;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let r = self.h.rank[p];
            let later = above(self.h.group[r as usize], p) & !self.excluded;
            self.extend(Sum::default().with(self.h, p), later, r);
        }
    }

    /// Emit `acc`, then each extension by a later card of the group, in id order.
    fn extend(&mut self, acc: Sum, later: u32, r: u8) {
        if self.full {
            return;
        }
        if let Some(kind) = (self.kind)(&acc, r) {
            if self.out.len() >= self.limit {
                self.full = true;
                return;
            }
            self.out
                .push(play(kind, acc.cards, Ranks::repeat(r, acc.wild as usize)));
        }
        if acc.total() >= self.max_total {
            return;
        }
        let mut rest = later;
        while rest != 0 {
            let p = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.extend(acc.with(self.h, p), rest, r);
        }
    }
}

/// The rank-by-rank window search from `lo` with `k` units per rank.
struct Windows<'a> {
    h: &'a Hand,
    subs: &'a [Part],
    subs_start: &'a [u32; NUM_RANKS + 1],
    entries: &'a mut Vec<Entry>,
    keys: &'a mut Vec<u64>,
    named: &'a mut Vec<u8>,
    perm: &'a mut Vec<u8>,
    lo: u8,
    k: u32,
    min_len: u8,
    max_len: u8,
    /// Entries allowed in total, and search nodes left (a copy of the generation's budget,
    /// written back when the search ends: a field, not a reference, so the per-node count stays
    /// in a register). Running out of either sets `nodes` to 0 (the one check each node makes)
    /// and `full`.
    limit: usize,
    nodes: usize,
    full: bool,
}

/// What the ranks `lo .. lo + depth` chosen so far give.
#[derive(Clone, Copy)]
struct Acc {
    cards: CardSet,
    pos: u32,
    wild: u32,
    key: u64,
    missing: u32,
    /// Fixed units per rank from `lo`, 8 bits each (only read when wild units are named).
    lanes: u64,
}

impl Windows<'_> {
    /// Choose what rank `lo + depth` gives.
    fn search(&mut self, depth: u8, acc: Acc) {
        if self.nodes == 0 {
            self.full = true;
            return;
        }
        self.nodes -= 1;
        let r = (self.lo + depth) as usize;
        // Without wild units in the hand every rank must get exactly `k` fixed units.
        let exact = self.h.wild_total == 0;
        if self.k == 1 {
            // A run: one single-unit card of this rank, or none (a wild unit fills it).
            if !exact {
                self.step(depth, acc, Part::default());
            }
            let mut rest = self.h.group[r];
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if self.h.units[p] == 1 {
                    let part = Part {
                        cards: cards::bit(self.h.id[p]),
                        pos: 1 << p,
                        units: 1,
                        wild: self.h.wild[p] as u32,
                        key: KEY_PART[p],
                    };
                    self.step(depth, acc, part);
                }
            }
        } else {
            let (a, b) = (self.subs_start[r] as usize, self.subs_start[r + 1] as usize);
            for i in a..b {
                let s = self.subs[i];
                if s.units == self.k || (!exact && s.units < self.k) {
                    self.step(depth, acc, s);
                }
            }
        }
    }

    #[inline(always)]
    fn step(&mut self, depth: u8, acc: Acc, s: Part) {
        let next = Acc {
            cards: acc.cards | s.cards,
            pos: acc.pos | s.pos,
            wild: acc.wild + s.wild,
            key: acc.key.wrapping_add(s.key),
            missing: acc.missing + self.k - s.units,
            lanes: acc.lanes | (s.units as u64) << (8 * depth),
        };
        let len = depth + 1;
        if len >= self.min_len && next.missing == next.wild && next.pos != 0 {
            self.emit(&next, len);
        }
        if len < self.max_len {
            let r = (self.lo + depth) as usize;
            let left = (self.max_len - len) as u32;
            let hi = (self.lo + self.max_len) as usize;
            let future_wild = self.h.wild_below[hi] - self.h.wild_below[r + 1];
            if next.missing <= next.wild + future_wild && next.wild <= next.missing + self.k * left
            {
                self.search(depth + 1, next);
            }
        }
    }

    /// The entries ran out: no node searches on.
    #[cold]
    fn stop(&mut self) {
        self.full = true;
        self.nodes = 0;
    }

    /// A window `lo .. lo + len` closed: one play per distinct order of the missing ranks.
    fn emit(&mut self, s: &Acc, len: u8) {
        let key = lex_key(s.pos, s.key) << 16;
        if self.entries.len() >= self.limit {
            self.stop();
            return;
        }
        if s.wild == 0 {
            self.keys.push(key | self.entries.len() as u64);
            self.entries.push(Entry {
                cards: s.cards,
                named_at: 0,
                named_len: 0,
            });
            return;
        }
        self.perm.clear();
        for j in 0..len {
            let have = ((s.lanes >> (8 * j)) & 0xFF) as u32;
            for _ in have..self.k {
                self.perm.push(self.lo + j);
            }
        }
        loop {
            if self.entries.len() >= self.limit {
                self.stop();
                return;
            }
            self.keys.push(key | self.entries.len() as u64);
            self.entries.push(Entry {
                cards: s.cards,
                named_at: self.named.len() as u32,
                named_len: self.perm.len() as u32,
            });
            self.named.extend_from_slice(self.perm);
            if !next_permutation(self.perm) {
                break;
            }
        }
    }
}

/// Every subset of each rank group (the empty one first), for the formation search.
fn build_subs(h: &Hand, subs: &mut Vec<Part>, start: &mut [u32; NUM_RANKS + 1]) {
    subs.clear();
    for (r, first) in start[..NUM_RANKS].iter_mut().enumerate() {
        *first = subs.len() as u32;
        let base = subs.len();
        subs.push(Part::default());
        let mut m = h.group[r];
        let mut list = [0usize; MAX_HAND];
        let mut n = 0;
        while m != 0 {
            list[n] = m.trailing_zeros() as usize;
            n += 1;
            m &= m - 1;
        }
        // Each subset is a smaller one (its lowest member removed) plus that member.
        for set in 1usize..(1 << n) {
            let p = list[set.trailing_zeros() as usize];
            let prev = subs[base + (set & (set - 1))];
            subs.push(Part {
                cards: prev.cards | cards::bit(h.id[p]),
                pos: prev.pos | 1 << p,
                units: prev.units + h.units[p] as u32,
                wild: prev.wild + h.wild[p] as u32,
                key: prev.key.wrapping_add(KEY_PART[p]),
            });
        }
    }
    start[NUM_RANKS] = subs.len() as u32;
}

/// Without wild units in the hand every rank of a window takes exactly `k` fixed units: the
/// plays are the products of each rank's options (`opts[start[r]..start[r + 1]]`), enumerated
/// iteratively with shared prefixes, every length in `lens` at once. False (stopped) when
/// `entries` would grow beyond `limit`.
#[allow(clippy::too_many_arguments)]
fn exact_windows(
    opts: &[Part],
    start: &[u32; NUM_RANKS + 1],
    lo: u8,
    lens: (u8, u8),
    entries: &mut Vec<Entry>,
    keys: &mut Vec<u64>,
    limit: usize,
) -> bool {
    let lo = lo as usize;
    let (min_len, max_len) = (lens.0 as usize, lens.1 as usize);
    let mut idx = [0usize; 6];
    let mut acc = [(0 as CardSet, 0u32, 0u64); 6];
    let mut d = 0;
    idx[0] = start[lo] as usize;
    loop {
        let r = lo + d;
        if idx[d] == start[r + 1] as usize {
            if d == 0 {
                return true;
            }
            d -= 1;
            idx[d] += 1;
            continue;
        }
        let o = &opts[idx[d]];
        let (c, p, k) = acc[d];
        let next = (c | o.cards, p | o.pos, k.wrapping_add(o.key));
        acc[d + 1] = next;
        let len = d + 1;
        if len >= min_len {
            if entries.len() >= limit {
                return false;
            }
            keys.push(lex_key(next.1, next.2) << 16 | entries.len() as u64);
            entries.push(Entry {
                cards: next.0,
                named_at: 0,
                named_len: 0,
            });
        }
        if len < max_len && start[r + 1] < start[r + 2] {
            d += 1;
            idx[d] = start[lo + d] as usize;
        } else {
            idx[d] += 1;
        }
    }
}

/// The options of each rank for an exact window search with `k` units per rank: its group's
/// subsets of exactly `k` fixed units (for `k = 1`, its single-unit cards).
fn exact_options(
    h: &Hand,
    subs: &[Part],
    subs_start: &[u32; NUM_RANKS + 1],
    k: u32,
    opts: &mut Vec<Part>,
    start: &mut [u32; NUM_RANKS + 1],
) {
    opts.clear();
    for (r, first) in start[..NUM_RANKS].iter_mut().enumerate() {
        *first = opts.len() as u32;
        if k == 1 {
            let mut rest = h.group[r];
            while rest != 0 {
                let p = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                if h.units[p] == 1 {
                    opts.push(Part {
                        cards: cards::bit(h.id[p]),
                        pos: 1 << p,
                        units: 1,
                        wild: 0,
                        key: KEY_PART[p],
                    });
                }
            }
        } else {
            let range = subs_start[r] as usize..subs_start[r + 1] as usize;
            opts.extend(subs[range].iter().filter(|s| s.units == k));
        }
    }
    start[NUM_RANKS] = opts.len() as u32;
}

/// Runs (`k = 1`) or formations over the windows `lo` with lengths `lens`, into the scratch.
/// False when the scratch reached `limit` entries or the node budget ran out.
fn windows(
    h: &Hand,
    sc: &mut Scratch,
    lo: u8,
    k: u32,
    lens: (u8, u8),
    limit: usize,
    nodes: &mut usize,
) -> bool {
    if k >= 2 {
        sc.ensure_subs(h);
    }
    if h.wild_total == 0 {
        if sc.opts_k != k {
            exact_options(
                h,
                &sc.subs,
                &sc.subs_start,
                k,
                &mut sc.opts,
                &mut sc.opts_start,
            );
            sc.opts_k = k;
        }
        return exact_windows(
            &sc.opts,
            &sc.opts_start,
            lo,
            lens,
            &mut sc.entries,
            &mut sc.keys,
            limit,
        );
    }
    let mut w = Windows {
        h,
        subs: &sc.subs,
        subs_start: &sc.subs_start,
        entries: &mut sc.entries,
        keys: &mut sc.keys,
        named: &mut sc.named,
        perm: &mut sc.perm,
        lo,
        k,
        min_len: lens.0,
        max_len: lens.1,
        limit,
        nodes: *nodes,
        full: false,
    };
    w.search(
        0,
        Acc {
            cards: 0,
            pos: 0,
            wild: 0,
            key: 0,
            missing: 0,
            lanes: 0,
        },
    );
    *nodes = w.nodes;
    !w.full
}

/// Sort the scratch entries into canonical order and append them to `out` as `kind` moves.
fn flush(sc: &mut Scratch, kind: Kind, out: &mut Vec<Move>) {
    let Scratch {
        entries,
        keys,
        named,
        tie,
        ..
    } = sc;
    if entries.is_empty() {
        return;
    }
    let names = |e: &Entry| &named[e.named_at as usize..(e.named_at + e.named_len) as usize];
    let to_move = |e: &Entry| {
        if e.named_len == 0 {
            Move::of(kind, e.cards)
        } else {
            play(kind, e.cards, Ranks::from_slice(names(e)))
        }
    };
    if entries.len() > 1 << 16 {
        // Too many for the packed index: sort the moves themselves.
        let start = out.len();
        out.extend(entries.iter().map(to_move));
        out[start..].sort_unstable();
    } else {
        keys.sort_unstable();
        let mut i = 0;
        while i < keys.len() {
            let cards_key = keys[i] >> 16;
            let mut j = i + 1;
            while j < keys.len() && keys[j] >> 16 == cards_key {
                j += 1;
            }
            if j == i + 1 {
                out.push(to_move(&entries[(keys[i] & 0xFFFF) as usize]));
            } else {
                // The same cards with different named ranks: order by the named list.
                tie.clear();
                tie.extend(keys[i..j].iter().map(|k| (k & 0xFFFF) as usize));
                tie.sort_unstable_by(|&x, &y| names(&entries[x]).cmp(names(&entries[y])));
                out.extend(tie.iter().map(|&x| to_move(&entries[x])));
            }
            i = j;
        }
    }
    entries.clear();
    keys.clear();
    named.clear();
}

/// Generate into `out` (canonical order) if the hand suits the fast path; `None` otherwise.
/// `out` never grows beyond `limit` entries: `Some(Err(TooMany))` when the plays do not fit.
pub(super) fn combinations(
    deck: &Deck,
    hand: CardSet,
    blue: CardSet,
    to_beat: Option<&Shape>,
    out: &mut Vec<Move>,
    limit: usize,
) -> Option<Result<(), TooMany>> {
    let mut h = Hand::EMPTY;
    if !h.fill(deck, hand, blue) {
        return None;
    }
    Some(generate(&h, to_beat, out, limit))
}

/// The plays of a grouped hand (see [`combinations`]).
fn generate(
    h: &Hand,
    to_beat: Option<&Shape>,
    out: &mut Vec<Move>,
    limit: usize,
) -> Result<(), TooMany> {
    let all = (1u32 << h.len) - 1;
    // Positions of the cards of ranks above `q`.
    let ranks_above = |q: u8| -> u32 { (q as usize + 1..NUM_RANKS).fold(0, |m, r| m | h.group[r]) };
    // At most MAX_HAND singles: checked once they are in.
    let singles_fit = |out: &Vec<Move>| {
        if out.len() > limit {
            Err(TooMany)
        } else {
            Ok(())
        }
    };
    let mut nodes = MAX_SEARCH_NODES;
    match to_beat {
        None => {
            // Singles, then sets (S-4.1, S-4.2; a led 4+ set is a set, S-4.5).
            for p in 0..h.len {
                if h.units[p] + h.wild[p] == 1 {
                    out.push(Move::of(Kind::Single, cards::bit(h.id[p])));
                }
            }
            singles_fit(out)?;
            let mut sets = OneRank {
                h,
                out,
                kind: |s: &Sum, _| (s.total() >= 2).then_some(Kind::Set),
                max_total: u32::MAX,
                excluded: 0,
                limit,
                full: false,
            };
            sets.run(all);
            if sets.full {
                return Err(TooMany);
            }
            // Runs, then formations (S-4.3, S-4.4): windows up to the A.
            SCRATCH.with(|cell| {
                let sc = &mut *cell.borrow_mut();
                sc.reset();
                let room = limit - out.len();
                let mut fits = true;
                for lo in 0..ACE {
                    if fits && h.can_fill(lo, 2, 1) {
                        fits = windows(h, sc, lo, 1, (2, (ACE + 1 - lo).min(5)), room, &mut nodes);
                    }
                }
                if !fits {
                    sc.clear_entries();
                    return Err(TooMany);
                }
                flush(sc, Kind::Run, out);
                let room = limit - out.len();
                for lo in 0..ACE {
                    let mut k = 2;
                    while fits && h.can_fill(lo, 2, k) {
                        fits = windows(h, sc, lo, k, (2, (ACE + 1 - lo).min(5)), room, &mut nodes);
                        k += 1;
                    }
                }
                if !fits {
                    sc.clear_entries();
                    return Err(TooMany);
                }
                flush(sc, Kind::Formation, out);
                Ok(())
            })?;
        }
        Some(b) => {
            match b.kind {
                Kind::Single => {
                    let starts = ranks_above(b.rank);
                    for p in 0..h.len {
                        if starts >> p & 1 == 1 && h.units[p] + h.wild[p] == 1 {
                            out.push(Move::of(Kind::Single, cards::bit(h.id[p])));
                        }
                    }
                    singles_fit(out)?;
                }
                Kind::Set => {
                    let u = b.units;
                    // A 4+ play without a drop face is a bomb when following (S-4.5): the bomb
                    // pass finds it.
                    let mut sets = OneRank {
                        h,
                        out,
                        kind: |s: &Sum, _| {
                            (s.total() == u && (u < 4 || s.drop)).then_some(Kind::Set)
                        },
                        max_total: u,
                        excluded: 0,
                        limit,
                        full: false,
                    };
                    sets.run(ranks_above(b.rank));
                    if sets.full {
                        return Err(TooMany);
                    }
                }
                Kind::Run | Kind::Formation => {
                    let len = b.length as u8;
                    let k = b.copies;
                    SCRATCH.with(|cell| {
                        let sc = &mut *cell.borrow_mut();
                        sc.reset();
                        let room = limit - out.len();
                        let mut fits = true;
                        for lo in (b.rank + 2).saturating_sub(len)..=(ACE + 1).saturating_sub(len) {
                            if fits && h.can_fill(lo, len, k) {
                                fits = windows(h, sc, lo, k, (len, len), room, &mut nodes);
                            }
                        }
                        if !fits {
                            sc.clear_entries();
                            return Err(TooMany);
                        }
                        flush(sc, b.kind, out);
                        Ok(())
                    })?;
                }
                _ => {}
            }
            // Bombs (S-4.5, S-5.2): four or more units of one rank without a drop face; they
            // beat any other play, and between bombs more units or a higher rank.
            let drops = h.drops;
            let mut starts = 0;
            for r in 0..NUM_RANKS {
                if h.fixed[r] + h.wild_total >= 4 {
                    starts |= h.group[r];
                }
            }
            if starts & !drops != 0 {
                let against = (b.kind == Kind::Bomb).then(|| bomb_key(b));
                let mut bombs = OneRank {
                    h,
                    out,
                    kind: |s: &Sum, x: u8| {
                        let t = s.total();
                        let beats = t >= 4
                            && against.map_or(true, |a| {
                                bomb_key(&Shape {
                                    kind: Kind::Bomb,
                                    rank: x,
                                    units: t,
                                    length: 1,
                                    copies: t,
                                }) > a
                            });
                        beats.then_some(Kind::Bomb)
                    },
                    max_total: u32::MAX,
                    excluded: drops,
                    limit,
                    full: false,
                };
                bombs.run(starts);
                if bombs.full {
                    return Err(TooMany);
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lex_key_orders_like_lists() {
        let mut g = crate::rng::SplitMix64::new(8);
        let list = |p: u32| (0..24).filter(|i| p >> i & 1 == 1).collect::<Vec<u32>>();
        for _ in 0..if cfg!(debug_assertions) {
            10_000
        } else {
            100_000
        } {
            let a = (g.next() as u32 & 0xFF_FFFF) >> (g.next() % 24);
            let b = (g.next() as u32 & 0xFF_FFFF) >> (g.next() % 24);
            let b = if g.next() % 2 == 0 { a & b } else { b };
            if a == 0 || b == 0 {
                continue;
            }
            let key = |p: u32| {
                let parts = (0..24)
                    .filter(|i| p >> i & 1 == 1)
                    .fold(0u64, |k, i| k.wrapping_add(KEY_PART[i]));
                lex_key(p, parts)
            };
            assert_eq!(key(a).cmp(&key(b)), list(a).cmp(&list(b)), "{a:b} {b:b}");
        }
    }
}
