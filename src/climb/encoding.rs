//! Agent encodings of the climbing games' moves (docs/rl_interface.md §1, user guide
//! docs/climb_encodings.md): a fixed-length feature row per legal move, and a fixed abstract
//! action index.
//!
//! The legal moves of a position are an open-ended list (every subset of cards that forms a
//! combination, every naming of its wild units, every flip or steal choice), so two interfaces are
//! offered:
//!
//! - **Move features** ([`move_features_into`]): one row of [`MOVE_FEATURES`] floats per legal
//!   move, for agents that score (observation, move) pairs (DouZero style). Every legal move has
//!   its own row, so every legal move is reachable.
//! - **The abstract action index** ([`action_index`], [`action_mask`], [`resolve`]): a fixed set
//!   of [`NUM_ACTIONS`] classes, (kind, shape, rank), for agents with a fixed-size policy head.
//!   It is *sound*: every class the mask lets through resolves to exactly one legal move, chosen
//!   by a documented tie-break. It is *coarse*: moves that share a class (other cards of the same
//!   ranks, other named ranks, other flip or steal choices) are reachable only through the one
//!   the tie-break picks.
//!
//! # Move feature row
//!
//! Relative seats are counted from the player to move (slot `r`: seat `(mover + r) % n`).
//!
//! | range     | size | content |
//! |-----------|------|---------|
//! | 0..70     | 70 | cards moved, per card id |
//! | 70..135   | 65 | cards moved that show the blue face now, per animal card id |
//! | 135..148  | 13 | units per rank (fixed units plus named wild units), / 4 |
//! | 148..156  | 8  | kind one-hot, in `Kind` order: pass, discard_element, element, single, set, run, formation, bomb |
//! | 156       | 1  | combination: units / 16 |
//! | 157       | 1  | combination: length (distinct ranks) / 5 |
//! | 158       | 1  | combination: copies / 16 |
//! | 159       | 1  | combination: rank / 12 (set's rank, top rank of a run or formation) |
//! | 160..173  | 13 | combination: rank one-hot |
//! | 173..186  | 13 | ranks named for wild units: count per rank, / 2 |
//! | 186..251  | 65 | rank named for the wild unit of each card, `(rank + 1) / 13`, per animal card id (0: no wild unit) |
//! | 251..316  | 65 | `flip` choice (S-7.3): cards turned blue, per animal card id |
//! | 316..320  | 4  | `spin` steals (S-7.4): victims per relative seat 1..=4, / 4 |
//! | 320       | 1  | number of cards moved / 12 |
//! | 321       | 1  | number of moved cards that show the blue face / 12 |
//! | 322       | 1  | bamboo symbols on the faces played / 4 |
//! | 323       | 1  | panda symbols on the faces played / 4 |
//! | 324       | 1  | points the mover gains at once (bamboo, hungry transfer, steals; caps applied) / 4 |
//! | 325       | 1  | cards left in the mover's hand right after the move / 12 (before any card comes back) |
//!
//! The `pass` row is all zeros except the kind slot 148 (= 1) and slot 325 (the hand size / 12).
//! Two plays of the same cards whose wild units are named the same ranks in another order are
//! different moves (S-4.6) with the same effect; the per-card block 186..251 tells them apart.
//! Only a face with two wild units (possible in custom decks, not in the shipped one) can give two
//! distinct moves the same row: the block holds the first rank named for each card.
//! Combination-only blocks are zeros for pass and element moves.
//!
//! # Abstract action index
//!
//! `MAX_UNITS` = 32, ranks `r` are rank indices 0–12 (3 … 2), suits `s` are 0–4. Runs and
//! formations never contain the rank 2, so their top rank takes 12 slots (`r` 0–11; slots with
//! `r < L - 1` exist but never occur).
//!
//! | offset | size | class | index |
//! |--------|------|-------|-------|
//! | 0      | 1    | pass | 0 |
//! | 1      | 5    | discard the element card of suit `s` | 1 + s |
//! | 6      | 5    | play the element card of suit `s` | 6 + s |
//! | 11     | 13   | single of rank `r` | 11 + r |
//! | 24     | 403  | set of `u` units (2..=32) of rank `r` | 24 + 13 (u − 2) + r |
//! | 427    | 48   | run of length `L` (2..=5) with top rank `r` | 427 + 12 (L − 2) + r |
//! | 475    | 432  | formation of length `L` (2..=5), `c` copies (c ≥ 2, c L ≤ 32), top rank `r` | 475 + 12 P(L, c) + r |
//! | 907    | 377  | bomb of `u` units (4..=32) of rank `r` | 907 + 13 (u − 4) + r |
//!
//! `NUM_ACTIONS` = 1284. `P(L, c)` numbers the 36 (length, copies) pairs in order of `L`, then
//! `c`: `P(L, c) = F(L) + c − 2` with `F(2) = 0`, `F(3) = 15`, `F(4) = 24`, `F(5) = 31` (for each
//! `L`, `c` runs over `2..=32 / L`).
//!
//! **Tie-break.** Several legal moves can share a class. [`resolve`] picks, among the legal moves
//! of the class: the fewest cards, then the fewest cards showing the blue face, then the first in
//! the canonical legal order (contract §5.1, the order of `legal_moves()`). Why: a class fixes
//! the units played, so the cheapest realisation spends the fewest cards and keeps the rest for
//! later tricks; among as many cards, blue faces are the stronger ones (and a white card that
//! goes back to the hand on a pass comes back blue, S-6.3), so white cards are spent first; the
//! canonical order makes the choice deterministic (among equals: the lowest card ids, then the
//! lowest named ranks, then no flip at all, then the lowest-numbered victims). So through this
//! index a `flip` panda never flips and `spin` steals always take from the lowest seats that have
//! points: agents that want those choices use the move features.
//!
//! **Bound.** [`MAX_UNITS`] bounds the units of every play possible with the shipped deck under
//! Part S: see [`max_play_units`] for the proof, and [`supports_deck`] for custom decks. A play
//! with more units (a custom deck, or a hand-built position with an oversized hand) has no class:
//! [`action_index`] returns `None` for it and [`action_mask`] leaves it out; it is still reachable
//! through move features. Nothing aliases.

use super::cards::{
    self, count, suit_of, ACE, ALL_CARDS, ANIMALS, ELEMENTS, NUM_ANIMALS, NUM_RANKS,
};
use super::combo::{shape_of_counts, units_of, Shape};
use super::deck::Deck;
use super::lanes::{lane, lane_one};
use super::moves::{Kind, Move, MAX_PLAYERS};
use super::rules::{Preset, SPIN_SYMBOL_CAP};
use super::state::ClimbState;

// ---- move features --------------------------------------------------------------------------

/// Length of one move feature row.
pub const MOVE_FEATURES: usize = 326;
/// The version of the move-feature layout; trained policies name the one they read.
pub const MOVE_FEATURES_LAYOUT: &str = "climb-move-features/1";

const ALL_IDS: usize = cards::NUM_CARDS as usize;
const ANIMAL_IDS: usize = NUM_ANIMALS as usize;
const RANKS: usize = NUM_RANKS;

pub(crate) const MF_CARDS: usize = 0;
pub(crate) const MF_BLUE: usize = MF_CARDS + ALL_IDS;
pub(crate) const MF_UNITS: usize = MF_BLUE + ANIMAL_IDS;
pub(crate) const MF_KIND: usize = MF_UNITS + RANKS;
pub(crate) const MF_SHAPE: usize = MF_KIND + 8;
pub(crate) const MF_RANK: usize = MF_SHAPE + 4;
pub(crate) const MF_NAMED: usize = MF_RANK + RANKS;
pub(crate) const MF_NAMED_BY_CARD: usize = MF_NAMED + RANKS;
pub(crate) const MF_FLIP: usize = MF_NAMED_BY_CARD + ANIMAL_IDS;
pub(crate) const MF_STEAL: usize = MF_FLIP + ANIMAL_IDS;
pub(crate) const MF_DERIVED: usize = MF_STEAL + MAX_PLAYERS - 1;
const MF_END: usize = MF_DERIVED + 6;

const _: () = assert!(MF_END == MOVE_FEATURES);

const HAND_NORM: f32 = 12.0;
const UNITS_NORM: f32 = 16.0;

/// The shape of a combination move as it would be classified now (faces as they show in
/// `state`), with its packed per-rank unit counts; `None` for a malformed move. Allocation-free.
#[inline]
fn combo_shape(state: &ClimbState, mv: &Move) -> Option<(Shape, u128)> {
    if mv.cards == 0 || mv.cards & !ANIMALS != 0 {
        return None;
    }
    let (mut counts, wild, drop) = units_of(state.deck(), mv.cards, state.blue());
    let named = mv.named.as_slice();
    if named.len() != wild as usize {
        return None;
    }
    for &r in named {
        if r as usize >= RANKS {
            return None;
        }
        counts += lane_one(r);
    }
    let shape = shape_of_counts(counts, state.to_beat().is_none(), drop)?;
    (shape.kind == mv.kind).then_some((shape, counts))
}

/// Points the mover gains at once from the symbols of a combination (S-7, contract §4 step 3–4).
fn points_gained(state: &ClimbState, mover: u8, mv: &Move, bamboo: u32, pandas: u32) -> u32 {
    let score = state.scores()[mover as usize];
    match state.settings().preset {
        Preset::Spin => bamboo.min(SPIN_SYMBOL_CAP.saturating_sub(score)) + mv.steal.total(),
        Preset::Year => {
            let taken = match state.holder() {
                Some(h) if state.settings().hungry() => pandas.min(state.scores()[h as usize]),
                _ => 0,
            };
            bamboo.saturating_add(taken)
        }
    }
}

/// Write the feature row of `mv`, a move of the player to move in `state`, into `out` (length
/// [`MOVE_FEATURES`]). The row is meaningful for the moves of `state.legal_moves()`; any other
/// move gets a row too (combination blocks stay zero when its cards form no combination).
///
/// # Panics
/// If `out` has another length.
pub fn move_features_into(state: &ClimbState, mv: &Move, out: &mut [f32]) {
    assert_eq!(out.len(), MOVE_FEATURES, "move feature buffer length");
    out.fill(0.0);
    let n = state.players();
    let mover = state.current_player().unwrap_or(0);
    let deck = state.deck();
    let blue = state.blue();

    out[MF_KIND + mv.kind as usize] = 1.0;
    let mut bamboo = 0;
    let mut pandas = 0;
    // Bits past the last card (a hand-built Move) have no feature: masked, never indexed.
    for id in cards::ids(mv.cards & ALL_CARDS) {
        out[MF_CARDS + id as usize] = 1.0;
        if id < NUM_ANIMALS {
            let face = deck.face_in(id, blue);
            out[MF_BLUE + id as usize] = (blue >> id & 1) as f32;
            bamboo = face.bamboo.saturating_add(bamboo);
            pandas = face.panda.saturating_add(pandas);
        }
    }
    if let Some((shape, counts)) = combo_shape(state, mv) {
        for r in 0..RANKS as u8 {
            out[MF_UNITS + r as usize] = lane(counts, r) as f32 / 4.0;
        }
        out[MF_SHAPE] = shape.units as f32 / UNITS_NORM;
        out[MF_SHAPE + 1] = shape.length as f32 / 5.0;
        out[MF_SHAPE + 2] = shape.copies as f32 / UNITS_NORM;
        out[MF_SHAPE + 3] = shape.rank as f32 / 12.0;
        out[MF_RANK + shape.rank as usize] = 1.0;
        out[MF_DERIVED + 4] = points_gained(state, mover, mv, bamboo, pandas) as f32 / 4.0;
    }
    let named = mv.named.as_slice();
    for &r in named {
        if (r as usize) < RANKS {
            out[MF_NAMED + r as usize] += 0.5;
        }
    }
    // Named ranks are listed in card-id order, a card's wild units consecutively (S-4.6).
    let mut next = 0;
    for id in cards::ids(mv.cards & ANIMALS) {
        let wild = deck.face_in(id, blue).wild as usize;
        if wild > 0 {
            if let Some(&r) = named.get(next) {
                out[MF_NAMED_BY_CARD + id as usize] = (r as f32 + 1.0) / 13.0;
            }
            next += wild;
        }
    }
    for id in cards::ids(mv.flip & ANIMALS) {
        out[MF_FLIP + id as usize] = 1.0;
    }
    for (v, &k) in mv.steal.0.iter().enumerate().take(n as usize) {
        let r = (v as u8 + n - mover) % n;
        if r > 0 && k > 0 {
            out[MF_STEAL + r as usize - 1] = k as f32 / 4.0;
        }
    }
    out[MF_DERIVED] = count(mv.cards) as f32 / HAND_NORM;
    out[MF_DERIVED + 1] = count(mv.cards & blue & ANIMALS) as f32 / HAND_NORM;
    out[MF_DERIVED + 2] = bamboo as f32 / 4.0;
    out[MF_DERIVED + 3] = pandas as f32 / 4.0;
    let hand = state.hand(mover);
    out[MF_DERIVED + 5] = count(hand & !mv.cards) as f32 / HAND_NORM;
}

/// The feature rows of `moves`, row-major (`moves.len() * MOVE_FEATURES` floats).
pub fn move_features(state: &ClimbState, moves: &[Move]) -> Vec<f32> {
    let mut out = vec![0.0; moves.len() * MOVE_FEATURES];
    for (m, row) in moves.iter().zip(out.chunks_exact_mut(MOVE_FEATURES)) {
        move_features_into(state, m, row);
    }
    out
}

// ---- the abstract action index --------------------------------------------------------------

/// The most units a play may have to get a class of the abstract index.
pub const MAX_UNITS: u32 = 32;

/// The most animal cards one hand can hold under Part S (see [`max_play_units`]).
pub const MAX_HAND_ANIMALS: u32 = 17;

/// Top-rank slots of runs and formations: rank indices 0..=11 (the 2 never enters one, S-4.3).
const RUN_TOPS: usize = ACE as usize + 1;
/// Longest run (S-4.3).
const MAX_RUN: u32 = 5;

const DISCARD_AT: usize = 1;
const ELEMENT_AT: usize = DISCARD_AT + 5;
const SINGLE_AT: usize = ELEMENT_AT + 5;
const SET_AT: usize = SINGLE_AT + RANKS;
const RUN_AT: usize = SET_AT + (MAX_UNITS as usize - 1) * RANKS;
const FORMATION_AT: usize = RUN_AT + (MAX_RUN as usize - 1) * RUN_TOPS;

/// `F(L)`: the first (length, copies) pair number of length `L` (module doc).
const fn formation_first(length: u32) -> usize {
    let mut sum = 0;
    let mut l = 2;
    while l < length {
        sum += (MAX_UNITS / l - 1) as usize;
        l += 1;
    }
    sum
}

/// The number of (length, copies) pairs of formations.
const FORMATION_PAIRS: usize = formation_first(MAX_RUN + 1);
const BOMB_AT: usize = FORMATION_AT + FORMATION_PAIRS * RUN_TOPS;

/// The number of abstract actions.
pub const NUM_ACTIONS: usize = BOMB_AT + (MAX_UNITS as usize - 3) * RANKS;

const _: () = assert!(NUM_ACTIONS == 1284 && FORMATION_PAIRS == 36);

/// One class of the abstract action index (the module doc's table), decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionClass {
    Pass,
    DiscardElement { suit: u8 },
    Element { suit: u8 },
    Single { rank: u8 },
    Set { units: u32, rank: u8 },
    Run { length: u32, top: u8 },
    Formation { length: u32, copies: u32, top: u8 },
    Bomb { units: u32, rank: u8 },
}

impl ActionClass {
    /// The index of this class, or `None` when it has none (more than [`MAX_UNITS`] units, or a
    /// shape no play can have).
    pub fn index(self) -> Option<usize> {
        use ActionClass::*;
        let rank_ok = |r: u8| (r as usize) < RANKS;
        let run_ok =
            |l: u32, top: u8| (2..=MAX_RUN).contains(&l) && top <= ACE && top as u32 + 1 >= l;
        let i = match self {
            Pass => 0,
            DiscardElement { suit } if suit < 5 => DISCARD_AT + suit as usize,
            Element { suit } if suit < 5 => ELEMENT_AT + suit as usize,
            Single { rank } if rank_ok(rank) => SINGLE_AT + rank as usize,
            Set { units, rank } if rank_ok(rank) && (2..=MAX_UNITS).contains(&units) => {
                SET_AT + (units as usize - 2) * RANKS + rank as usize
            }
            Run { length, top } if run_ok(length, top) => {
                RUN_AT + (length as usize - 2) * RUN_TOPS + top as usize
            }
            Formation {
                length,
                copies,
                top,
            } if run_ok(length, top) && copies >= 2 && copies * length <= MAX_UNITS => {
                let pair = formation_first(length) + copies as usize - 2;
                FORMATION_AT + pair * RUN_TOPS + top as usize
            }
            Bomb { units, rank } if rank_ok(rank) && (4..=MAX_UNITS).contains(&units) => {
                BOMB_AT + (units as usize - 4) * RANKS + rank as usize
            }
            _ => return None,
        };
        Some(i)
    }

    /// The class of index `action`; `None` beyond [`NUM_ACTIONS`] and for the run and formation
    /// slots no play can have (top rank below `length - 1`).
    pub fn from_index(action: usize) -> Option<ActionClass> {
        use ActionClass::*;
        let class = match action {
            0 => Pass,
            a if a < ELEMENT_AT => DiscardElement {
                suit: (a - DISCARD_AT) as u8,
            },
            a if a < SINGLE_AT => Element {
                suit: (a - ELEMENT_AT) as u8,
            },
            a if a < SET_AT => Single {
                rank: (a - SINGLE_AT) as u8,
            },
            a if a < RUN_AT => Set {
                units: ((a - SET_AT) / RANKS) as u32 + 2,
                rank: ((a - SET_AT) % RANKS) as u8,
            },
            a if a < FORMATION_AT => Run {
                length: ((a - RUN_AT) / RUN_TOPS) as u32 + 2,
                top: ((a - RUN_AT) % RUN_TOPS) as u8,
            },
            a if a < BOMB_AT => {
                let pair = (a - FORMATION_AT) / RUN_TOPS;
                let top = ((a - FORMATION_AT) % RUN_TOPS) as u8;
                let mut length = 2;
                while formation_first(length + 1) <= pair {
                    length += 1;
                }
                Formation {
                    length,
                    copies: (pair - formation_first(length)) as u32 + 2,
                    top,
                }
            }
            a if a < NUM_ACTIONS => Bomb {
                units: ((a - BOMB_AT) / RANKS) as u32 + 4,
                rank: ((a - BOMB_AT) % RANKS) as u8,
            },
            _ => return None,
        };
        // Drop the slots that exist only to keep the layout regular.
        class.index().map(|_| class)
    }

    /// The class of a combination shape.
    pub fn of_shape(s: &Shape) -> ActionClass {
        match s.kind {
            Kind::Single => ActionClass::Single { rank: s.rank },
            Kind::Set => ActionClass::Set {
                units: s.units,
                rank: s.rank,
            },
            Kind::Run => ActionClass::Run {
                length: s.length,
                top: s.rank,
            },
            Kind::Formation => ActionClass::Formation {
                length: s.length,
                copies: s.copies,
                top: s.rank,
            },
            Kind::Bomb => ActionClass::Bomb {
                units: s.units,
                rank: s.rank,
            },
            // Shapes are combinations only (contract §6.1).
            Kind::Pass | Kind::DiscardElement | Kind::Element => {
                unreachable!("a shape is a combination")
            }
        }
    }
}

/// The class of a move in `state`, or `None` when it has none: a malformed move (an element
/// move that is not one element card, a combination whose cards and named ranks do not form a
/// combination of its kind as the faces show now), or a play of more than [`MAX_UNITS`] units
/// (impossible with a deck for which [`supports_deck`] holds, outside hand-built positions).
pub fn action_class(state: &ClimbState, mv: &Move) -> Option<ActionClass> {
    match mv.kind {
        Kind::Pass => (mv.cards == 0).then_some(ActionClass::Pass),
        Kind::DiscardElement | Kind::Element => {
            if count(mv.cards) != 1 || mv.cards & ELEMENTS == 0 {
                return None;
            }
            let suit = suit_of(mv.cards.trailing_zeros() as u8);
            Some(if mv.kind == Kind::Element {
                ActionClass::Element { suit }
            } else {
                ActionClass::DiscardElement { suit }
            })
        }
        _ => combo_shape(state, mv).map(|(s, _)| ActionClass::of_shape(&s)),
    }
}

/// The abstract action index of `mv`, a move of the player to move in `state` (module doc
/// table); `None` when the move has no class (see [`action_class`]), so that no two different
/// classes ever share an index.
#[inline]
pub fn action_index(state: &ClimbState, mv: &Move) -> Option<usize> {
    action_class(state, mv)?.index()
}

/// Set `mask[a]` for the class `a` of every move of `legal` (the legal moves of `state`), and
/// clear the rest. Moves without a class are left out. No allocation.
///
/// # Panics
/// If `mask` is not [`NUM_ACTIONS`] long.
pub fn action_mask(state: &ClimbState, legal: &[Move], mask: &mut [bool]) {
    assert_eq!(mask.len(), NUM_ACTIONS, "action mask length");
    mask.fill(false);
    for m in legal {
        if let Some(a) = action_index(state, m) {
            mask[a] = true;
        }
    }
}

/// The position in `legal` (the legal moves of `state`, in canonical order) of the one move that
/// realises abstract action `action`, or `None` when no legal move has that class (a masked-out
/// action, or an index beyond [`NUM_ACTIONS`]). Tie-break (module doc): fewest cards, then fewest
/// blue-face cards, then the first in `legal`. No allocation.
pub fn resolve(state: &ClimbState, legal: &[Move], action: usize) -> Option<usize> {
    resolve_by(state, legal, action, |_, m| action_index(state, m))
}

/// The abstract action of every move of `legal` (the legal moves of `state`), in order, into
/// `out`: for callers that both mask and resolve one position, so that each move is classified
/// once (the vector environment).
pub fn action_indices_into(state: &ClimbState, legal: &[Move], out: &mut Vec<Option<usize>>) {
    out.clear();
    out.extend(legal.iter().map(|m| action_index(state, m)));
}

/// [`resolve`] when the classes of `legal` are known (`classes[i]` is `legal[i]`'s, from
/// [`action_indices_into`]).
pub fn resolve_known(
    state: &ClimbState,
    legal: &[Move],
    classes: &[Option<usize>],
    action: usize,
) -> Option<usize> {
    resolve_by(state, legal, action, |i, _| classes[i])
}

/// The tie-break of [`resolve`], with the class of move `i` given by `class`.
fn resolve_by(
    state: &ClimbState,
    legal: &[Move],
    action: usize,
    class: impl Fn(usize, &Move) -> Option<usize>,
) -> Option<usize> {
    if action >= NUM_ACTIONS {
        return None;
    }
    let blue = state.blue();
    let mut best: Option<(usize, (u32, u32))> = None;
    for (i, m) in legal.iter().enumerate() {
        let key = (count(m.cards), count(m.cards & blue));
        // A strictly better key only: the first of equals (canonical order) stays.
        if best.is_some_and(|(_, k)| key >= k) {
            continue;
        }
        if class(i, m) == Some(action) {
            best = Some((i, key));
        }
    }
    best.map(|(i, _)| i)
}

/// An upper bound on the units of any play possible with `deck` under Part S.
///
/// **Proof.** (1) *A hand holds at most [`MAX_HAND_ANIMALS`] = 17 animal cards.* Within a round,
/// cards enter a hand by the deal (12 cards in `year`; 11 plus the wind in `spin`), by draws (2
/// per element or wind played, S-8) and by returns (S-6.3), which only bring back cards that
/// left that same hand. Each draw of up to 2 cards costs an element card that was in the hand,
/// so with `D` cards drawn the hand holds at most `12 + D - ⌈D/2⌉ = 12 + ⌊D/2⌋` animal cards.
/// `year`: `D` is at most the draw pile (14 cards per suit in play minus 12 per player: 18, 6, 8,
/// 10 for 2, 3, 4, 5 players) and at most 2 per element card in play (3 with 2 players), so
/// `D ≤ 10` and the hand ≤ 17. `spin`: winds are never drawn, each hand gets one, so `D ≤ 2` and
/// the hand ≤ 13. (2) *All units of a play sit on one window of ranks*: one rank for a single,
/// set or bomb, 2 to 5 consecutive ranks below the 2 for a run or formation (S-4), and a card
/// can only be in a play whose window holds all the fixed units of the face it shows (all units
/// count, S-1.5). So the units of a play are at most, over all windows `W`, the sum of the 17
/// largest values over the cards of `max(units of a face whose fixed units lie in W)`. This is
/// what the function computes. For the shipped deck it is 27 (Fire blue faces, rank + wild, and
/// Water blue faces, two units, give 2 per card; a 5-rank window has 10 such cards), below
/// [`MAX_UNITS`] = 32; sets alone reach at most 14 units (the 2s: Metal Q, K, A and 2 all turn
/// into 2s).
pub fn max_play_units(deck: &Deck) -> u32 {
    let mut best = 0;
    let mut window = |mask: u16| {
        // Per card, the most units of a face that fits the window (0 if none fits).
        let mut per_card = [0u8; ANIMAL_IDS];
        for (id, slot) in per_card.iter_mut().enumerate() {
            for blue in [false, true] {
                let f = deck.face(id as u8, blue);
                if f.mask & !mask == 0 {
                    *slot = (*slot).max(f.units);
                }
            }
        }
        per_card.sort_unstable_by(|a, b| b.cmp(a));
        let sum: u32 = per_card[..MAX_HAND_ANIMALS as usize]
            .iter()
            .map(|&u| u as u32)
            .sum();
        best = best.max(sum);
    };
    for r in 0..RANKS {
        window(1 << r);
    }
    for len in 2..=MAX_RUN {
        for lo in 0..=(ACE as u32 + 1 - len) {
            window((((1u32 << len) - 1) << lo) as u16);
        }
    }
    best
}

/// Whether every play possible with `deck` has a class of the abstract index
/// (`max_play_units(deck) <= MAX_UNITS`). True for the shipped deck. With a deck for which it is
/// false, the oversized plays are left out of the mask (never aliased): agents reach them only
/// through move features.
pub fn supports_deck(deck: &Deck) -> bool {
    max_play_units(deck) <= MAX_UNITS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::snapshot::{from_snapshot, snapshot};
    use crate::climb::ClimbSettings;
    use crate::rng::SplitMix64;
    use std::collections::{HashMap, HashSet};
    use std::sync::Arc;

    use crate::climb::rules::test_settings as settings_all;

    #[test]
    fn the_index_layout_is_a_bijection_on_its_classes() {
        let mut seen = 0;
        for a in 0..NUM_ACTIONS + 3 {
            match ActionClass::from_index(a) {
                Some(c) => {
                    assert_eq!(c.index(), Some(a), "{c:?}");
                    seen += 1;
                }
                None => assert!(a >= NUM_ACTIONS || (RUN_AT..BOMB_AT).contains(&a), "{a}"),
            }
        }
        // The documented offsets.
        assert_eq!(
            (
                DISCARD_AT,
                ELEMENT_AT,
                SINGLE_AT,
                SET_AT,
                RUN_AT,
                FORMATION_AT,
                BOMB_AT
            ),
            (1, 6, 11, 24, 427, 475, 907)
        );
        assert_eq!(
            [2, 3, 4, 5].map(formation_first),
            [0, 15, 24, 31],
            "F(L) of the module doc"
        );
        // Only run / formation slots with a top rank below length - 1 are unused:
        // runs 1 + 2 + 3 + 4, formations 1 * 15 + 2 * 9 + 3 * 7 + 4 * 5.
        assert_eq!(NUM_ACTIONS - seen, 10 + 74);
        assert_eq!(
            ActionClass::Formation {
                length: 3,
                copies: 10,
                top: 4
            }
            .index(),
            Some(475 + 12 * (15 + 8) + 4)
        );
        assert_eq!(ActionClass::Set { units: 33, rank: 0 }.index(), None);
        assert_eq!(
            ActionClass::Formation {
                length: 5,
                copies: 7,
                top: 11
            }
            .index(),
            None
        );
    }

    #[test]
    fn feature_offsets_match_the_documented_table() {
        assert_eq!(
            [
                MF_BLUE,
                MF_UNITS,
                MF_KIND,
                MF_SHAPE,
                MF_RANK,
                MF_NAMED,
                MF_NAMED_BY_CARD,
                MF_FLIP,
                MF_STEAL,
                MF_DERIVED
            ],
            [70, 135, 148, 156, 160, 173, 186, 251, 316, 320]
        );
    }

    #[test]
    fn max_units_bounds_the_shipped_deck() {
        let deck = Deck::reconstructed();
        assert_eq!(max_play_units(&deck), 27);
        assert!(supports_deck(&deck));
        // Sets alone: the most units of one rank in 17 cards.
        let most_of_a_rank = (0..RANKS)
            .map(|r| {
                (0..NUM_ANIMALS)
                    .map(|id| {
                        [false, true]
                            .iter()
                            .map(|&b| deck.face(id, b))
                            .filter(|f| f.mask & !(1 << r) == 0)
                            .map(|f| f.units as u32)
                            .max()
                            .unwrap_or(0)
                    })
                    .sum::<u32>()
            })
            .max()
            .unwrap();
        assert_eq!(most_of_a_rank, 14);
    }

    /// Random positions of real games: every `stride`-th decision of a few games per setting.
    fn positions(mut visit: impl FnMut(&ClimbState, &[Move])) {
        for settings in settings_all() {
            for players in 2..=5u8 {
                let games = if cfg!(debug_assertions) { 2 } else { 6 };
                for seed in 0..games {
                    let mut st =
                        ClimbState::new(players, seed * 31 + players as u64, settings.clone())
                            .unwrap();
                    let mut g = SplitMix64::new(seed + 1000 * players as u64);
                    let mut legal = Vec::new();
                    let mut steps = 0;
                    while !st.is_over() && steps < 300 {
                        st.legal_moves_into(&mut legal);
                        if steps % 3 == 0 {
                            visit(&st, &legal);
                        }
                        let m = legal[(g.next() % legal.len() as u64) as usize].clone();
                        st.apply_legal(&m);
                        steps += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn mask_and_resolve_agree_with_the_legal_moves() {
        let mut mask = vec![false; NUM_ACTIONS];
        let mut hand_max = 0;
        let mut visited = 0;
        positions(|st, legal| {
            visited += 1;
            let p = st.current_player().unwrap();
            hand_max = hand_max.max(count(st.hand(p) & ANIMALS));
            action_mask(st, legal, &mut mask);
            let mut classes: HashMap<usize, Vec<usize>> = HashMap::new();
            for (i, m) in legal.iter().enumerate() {
                let a =
                    action_index(st, m).expect("every legal move of the shipped deck has a class");
                assert!(a < NUM_ACTIONS);
                assert_eq!(ActionClass::from_index(a), action_class(st, m));
                classes.entry(a).or_default().push(i);
            }
            let marked: HashSet<usize> = (0..NUM_ACTIONS).filter(|&a| mask[a]).collect();
            assert_eq!(marked, classes.keys().copied().collect::<HashSet<_>>());
            for (&a, members) in &classes {
                let j = resolve(st, legal, a).expect("a marked class resolves");
                assert_eq!(action_index(st, &legal[j]), Some(a));
                // The documented tie-break, checked by brute force.
                let key = |i: usize| {
                    let m = &legal[i];
                    (count(m.cards), count(m.cards & st.blue()), i)
                };
                let want = members.iter().copied().min_by_key(|&i| key(i)).unwrap();
                assert_eq!(j, want);
            }
            for a in (0..NUM_ACTIONS).filter(|a| !mask[*a]).step_by(61) {
                assert_eq!(resolve(st, legal, a), None);
            }
            assert_eq!(resolve(st, legal, NUM_ACTIONS), None);
        });
        assert!(visited > 500, "{visited}");
        assert!(hand_max <= MAX_HAND_ANIMALS);
    }

    #[test]
    fn feature_rows_describe_the_moves() {
        let mut row = vec![0.0; MOVE_FEATURES];
        positions(|st, legal| {
            let p = st.current_player().unwrap();
            let mut rows: HashMap<Vec<u32>, u128> = HashMap::new();
            for m in legal {
                move_features_into(st, m, &mut row);
                assert!(row.iter().all(|x| x.is_finite() && *x >= 0.0));
                let cards_in_row: u128 = (0..ALL_IDS)
                    .filter(|&i| row[MF_CARDS + i] == 1.0)
                    .fold(0, |a, i| a | 1 << i);
                assert_eq!(cards_in_row, m.cards);
                assert_eq!(row[MF_KIND + m.kind as usize], 1.0);
                if m.kind == Kind::Pass {
                    let mut want = vec![0.0; MOVE_FEATURES];
                    want[MF_KIND] = 1.0;
                    want[MF_DERIVED + 5] = st.hand_size(p) as f32 / 12.0;
                    assert_eq!(row, want, "the pass row");
                }
                if m.kind.is_combination() {
                    let units: f32 = row[MF_UNITS..MF_UNITS + RANKS].iter().sum::<f32>() * 4.0;
                    assert!((units - row[MF_SHAPE] * 16.0).abs() < 1e-4);
                }
                // Rows are distinct for distinct moves (cards, named, flip and steal all show).
                let key: Vec<u32> = row.iter().map(|x| x.to_bits()).collect();
                if let Some(prev) = rows.insert(key, m.cards) {
                    panic!(
                        "two moves share a row: {} and cards {prev:#x}",
                        m.notation()
                    );
                }
            }
            let all = move_features(st, legal);
            assert_eq!(all.len(), legal.len() * MOVE_FEATURES);
        });
    }

    #[test]
    fn spin_steals_and_points_in_the_row() {
        // Seat 0 leads with blue Earth 3 (7 + panda): one steal, from seat 1 or seat 2.
        let st = ClimbState::new(3, 1, ClimbSettings::preset(Preset::Spin)).unwrap();
        let mut snap = snapshot(&st, &[]);
        // Animal cards only in hands and pile; the dealt winds go to the discard pile.
        let rest: Vec<u64> = (0..65).filter(|c| ![1, 13].contains(c)).collect();
        snap.hands = vec![vec![1, 13], rest[..3].to_vec(), rest[3..6].to_vec()];
        snap.draw_pile = rest[6..].to_vec();
        snap.discard = (65..70).filter(|c| !snap.out.contains(c)).collect();
        snap.blue = vec![13];
        snap.scores = vec![0, 2, 1];
        snap.current_player = Some(0);
        snap.trick.leader = Some(0);
        let (st, _) = from_snapshot(&snap, st.settings().deck.clone()).unwrap();
        let legal = st.legal_moves();
        let steal_2 = legal
            .iter()
            .find(|m| m.cards == 1 << 13 && m.steal.0[2] == 1)
            .unwrap();
        let mut row = vec![0.0; MOVE_FEATURES];
        move_features_into(&st, steal_2, &mut row);
        assert_eq!(row[MF_STEAL + 1], 0.25); // seat 2 = relative seat 2
        assert_eq!(row[MF_STEAL], 0.0);
        assert_eq!(row[MF_DERIVED + 3], 0.25); // one panda
        assert_eq!(row[MF_DERIVED + 4], 0.25); // one point stolen
        assert_eq!(row[MF_BLUE + 13], 1.0);
        assert_eq!(row[MF_RANK + 4], 1.0); // blue Earth 3 is a 7
                                           // Both steal choices share the class; the tie-break keeps the first (steal from 1).
        let a = action_index(&st, steal_2).unwrap();
        let j = resolve(&st, &legal, a).unwrap();
        assert_eq!(legal[j].steal.0[1], 1);
    }

    /// The shipped deck with the blue faces of `ids` made a drop pair of 7s (two units).
    fn drop_sevens(ids: impl IntoIterator<Item = u8>) -> Arc<Deck> {
        let mut doc = Deck::reconstructed().doc().clone();
        for id in ids {
            let entry = doc["cards"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .find(|c| c["id"] == id)
                .unwrap();
            entry["blue"] = serde_json::json!({"units": ["7", "7"], "symbols": ["drop"]});
        }
        doc["name"] = serde_json::json!("sevens");
        Arc::new(Deck::from_json_value(&doc, "sevens.json").unwrap())
    }

    #[test]
    fn oversized_plays_of_a_custom_deck_have_no_class() {
        // 20 cards whose blue face is 7 7: a hand of 17 could play 34 units of 7.
        let deck = drop_sevens(0..20);
        assert_eq!(max_play_units(&deck), 34);
        assert!(!supports_deck(&deck));
        let settings = ClimbSettings {
            deck: deck.clone(),
            ..ClimbSettings::preset(Preset::Year)
        };
        let st = ClimbState::new(2, 4, settings).unwrap();
        let mut snap = snapshot(&st, &[]);
        // Seat 0 holds 17 blue drop cards of the full table (all suits in play).
        let held: Vec<u64> = (0..17).collect();
        let others: Vec<u64> = (17..70).filter(|&c| c != 19).collect();
        snap.suits_in_play = vec![0, 1, 2, 3, 4];
        snap.out = vec![];
        snap.hands = vec![held.clone(), vec![19]];
        snap.draw_pile = vec![];
        snap.discard = others;
        snap.blue = held.clone();
        snap.current_player = Some(0);
        snap.starter = 0;
        snap.trick.leader = Some(0);
        let (st, _) = from_snapshot(&snap, deck).unwrap();
        let big = Move::of(Kind::Set, (1 << 17) - 1);
        let ok = Move::of(Kind::Set, (1 << 16) - 1);
        assert_eq!(
            action_class(&st, &big),
            Some(ActionClass::Set { units: 34, rank: 4 })
        );
        assert_eq!(action_index(&st, &big), None);
        assert_eq!(
            action_index(&st, &ok),
            ActionClass::Set { units: 32, rank: 4 }.index()
        );
        let legal = vec![ok.clone(), big.clone()];
        let mut mask = vec![false; NUM_ACTIONS];
        action_mask(&st, &legal, &mut mask);
        assert_eq!(mask.iter().filter(|&&b| b).count(), 1);
        // The oversized play still has its feature row.
        let mut row = vec![0.0; MOVE_FEATURES];
        move_features_into(&st, &big, &mut row);
        assert_eq!(row[MF_UNITS + 4], 34.0 / 4.0);
    }

    #[test]
    fn malformed_moves_have_no_class() {
        let st = ClimbState::new(3, 2, ClimbSettings::preset(Preset::Year)).unwrap();
        let p = st.current_player().unwrap();
        let card = st.hand(p).trailing_zeros() as u8;
        assert_eq!(action_index(&st, &Move::of(Kind::Element, 1 << card)), None);
        assert_eq!(action_index(&st, &Move::of(Kind::Pass, 1)), None);
        assert_eq!(action_index(&st, &Move::of(Kind::Run, 1 << card)), None);
        assert_eq!(
            action_index(&st, &Move::of(Kind::DiscardElement, 1 << 66)),
            Some(2)
        );
    }
}
