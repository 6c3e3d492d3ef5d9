//! A simple climbing-game heuristic, a baseline for stronger bots.
//!
//! - Element cards whose condition rarely comes (a run or formation of 3+ ranks), or any element
//!   card once the hand is nearly empty, are discarded at once (S-6.5).
//! - Leading: the lowest single or run (a run first on ties: it sheds more cards); without one,
//!   the lowest other play. Never more wild units than needed.
//! - Following: the cheapest play that beats the table, bombs excluded. Without one: an element
//!   card if its condition holds; a bomb only when an opponent is about to show out or the bomb
//!   empties the hand ("keep bombs for replies"); otherwise pass.
//! - Among plays that differ only in the panda choice: flip as many cards as allowed (blue faces
//!   are stronger), steal from the highest scores.

use super::cards::{self, ANIMALS, ELEMENTS};
use super::combo::classify_play;
use super::{ClimbState, Condition, Kind, Move};

/// How a play ranks for the bot (lower is better): preference class, rank, more cards first,
/// fewer wild units, the panda choice.
type PlayKey = (i64, i64, i64, i64, i64);

/// The panda-choice preference among variants of one play (lower is better).
fn choice_key(state: &ClimbState, m: &Move) -> i64 {
    let flipped = m.flip.count_ones() as i64;
    let stolen: i64 = m
        .steal
        .seats()
        .map(|v| state.scores()[v as usize] as i64)
        .sum();
    -(flipped + stolen)
}

/// The index in `legal` (the legal moves of `state`, canonical order, not empty) of the
/// heuristic's move.
pub fn heuristic_index(state: &ClimbState, legal: &[Move]) -> usize {
    let p = state.current_player().unwrap_or(0);
    let hand = state.hand(p);
    let animals = (hand & ANIMALS).count_ones();
    let deck = state.deck();
    let leading = state.to_beat().is_none();
    let find = |pred: &dyn Fn(&Move) -> bool| legal.iter().position(pred);

    // Element cards not worth keeping.
    if let Some(i) = find(&|m: &Move| {
        m.kind == Kind::DiscardElement && {
            let suit = cards::suit_of(m.cards.trailing_zeros() as u8);
            deck.element(suit).condition == Condition::RunOrFormation3Ranks
                || animals <= 2
                || (leading && animals == 0)
        }
    }) {
        return i;
    }

    let blue = state.blue();
    let shape = |m: &Move| classify_play(deck, m.cards, blue, &m.named, leading);
    let mut best: Option<(usize, PlayKey)> = None;
    for (i, m) in legal.iter().enumerate() {
        if !m.kind.is_combination() || m.kind == Kind::Bomb {
            continue;
        }
        let Some(c) = shape(m) else { continue };
        let s = c.shape;
        let low = s.rank as i64 + 1 - s.length as i64;
        let preference = if leading {
            match s.kind {
                Kind::Single | Kind::Run => 0,
                _ => 1,
            }
        } else {
            0
        };
        let key = (
            preference,
            if leading { low } else { s.rank as i64 },
            -(m.cards.count_ones() as i64),
            m.named.len() as i64,
            choice_key(state, m),
        );
        if best.as_ref().map_or(true, |(_, k)| key < *k) {
            best = Some((i, key));
        }
    }
    if let Some((i, _)) = best {
        return i;
    }
    if let Some(i) = find(&|m: &Move| m.kind == Kind::Element) {
        return i;
    }
    let n = state.players();
    let threat = (0..n).any(|q| q != p && (1..=3).contains(&state.hand_size(q)));
    let mut bomb: Option<(usize, (u32, i64))> = None;
    for (i, m) in legal.iter().enumerate() {
        if m.kind != Kind::Bomb {
            continue;
        }
        let empties = hand & !ELEMENTS & !m.cards == 0;
        if threat || empties {
            let key = (m.cards.count_ones(), choice_key(state, m));
            if bomb.as_ref().map_or(true, |(_, k)| key < *k) {
                bomb = Some((i, key));
            }
        }
    }
    if let Some((i, _)) = bomb {
        return i;
    }
    // Pass when following; a leader always has a play or a discard (legal is never empty).
    find(&|m: &Move| m.kind == Kind::Pass).unwrap_or(0)
}
