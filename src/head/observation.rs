//! A fixed-size numeric observation of a Panda Head state for one player (for RL agents).
//!
//! Only what that player may know goes in (S-11's counterpart for Part H): their own hand, the
//! cards that left play publicly (completed piles and the pile in progress, turned-up cards
//! included), the plays on the pile, scores, flags, hand sizes and the draw pile's size. Never
//! another hand, never the draw-pile order. Seats are *relative*: slot 0 is the observer, slot
//! `r` the seat `r` places to their left, so one network serves every seat. The length is the
//! same for every player count (absent seats are zeros).
//!
//! | range   | size | content |
//! |---------|------|---------|
//! | 0..13   | 13 | own hand: copies of values 1..=11 (/5), Big Pandas (/4), Bamboo (/4) |
//! | 13..26  | 13 | cards gone this hand (discard + current pile), same encoding |
//! | 26..51  | 25 | current pile, per relative seat: played, value (/20), with Bamboo, Big Panda, Bamboo alone |
//! | 51      | 1  | highest value on the pile (/20), 0 before the lead |
//! | 52..59  | 7  | pile number, one-hot |
//! | 59..64  | 5  | leader of the pile, relative one-hot |
//! | 64..69  | 5  | dealer, relative one-hot |
//! | 69..74  | 5  | scores (/bust_threshold), relative |
//! | 74..79  | 5  | Drowsy, relative |
//! | 79..84  | 5  | Pooped, relative |
//! | 84..89  | 5  | seat present (the table has that many players), relative |
//! | 89..94  | 5  | hand sizes (/7), relative |
//! | 94      | 1  | draw pile size (/63) |
//! | 95      | 1  | 1 when it is the observer's turn |

use super::action::Action;
use super::cards::{value_mask, CardSet, BAMBOO_MASK, BIG_PANDA_MASK};
use super::state::{HeadState, MAX_PLAYERS};

/// Length of [`observation`].
pub const OBSERVATION_SIZE: usize = 96;
/// The version of the layout above; trained policies name the one they read. A change to what
/// any column means makes it `/2`.
pub const OBSERVATION_LAYOUT: &str = "head-observation/1";

/// The 13 card kinds of the encoding: values 1..=11, Big Panda, Bamboo (masks and scales).
const KIND_MASKS: [CardSet; 13] = {
    let mut m = [0; 13];
    let mut v = 1;
    while v <= 11 {
        m[v as usize - 1] = value_mask(v);
        v += 1;
    }
    m[11] = BIG_PANDA_MASK;
    m[12] = BAMBOO_MASK;
    m
};
const KIND_SCALES: [f32; 13] = [
    0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.25, 0.25,
];

/// Copies per kind, scaled: one popcount per kind rather than a loop over up to 63 cards (this
/// runs for every env of every vector-env step).
fn encode_cards(out: &mut [f32], cards: CardSet) {
    for ((o, mask), scale) in out.iter_mut().zip(KIND_MASKS).zip(KIND_SCALES) {
        *o = (cards & mask).count_ones() as f32 * scale;
    }
}

/// Write the observation of `state` for `player` into `out` (length [`OBSERVATION_SIZE`]).
///
/// This runs for every env of every vector-env step, so it avoids divisions and bounds checks:
/// a fixed-size array view, seats walked in relative order, reciprocals instead of `/`.
pub fn observation_into(state: &HeadState, player: u8, out: &mut [f32]) {
    out.fill(0.0);
    observation_into_zeroed(state, player, out);
}

/// [`observation_into`] for a buffer that is already all zeros (the vector environment's fresh
/// rows): it writes only the non-zero entries. Given a buffer that is not zeroed, the result is
/// wrong (stale entries stay).
pub fn observation_into_zeroed(state: &HeadState, player: u8, out: &mut [f32]) {
    let out: &mut [f32; OBSERVATION_SIZE] = out
        .try_into()
        .expect("observation buffer of OBSERVATION_SIZE floats");
    let n = state.players() as usize;
    // rel_of[seat] = places to the observer's left.
    let mut rel_of = [0usize; MAX_PLAYERS];
    let mut seat = player as usize;
    for r in 0..n {
        rel_of[seat] = r;
        seat = if seat + 1 == n { 0 } else { seat + 1 };
    }
    encode_cards(&mut out[0..13], state.hand(player));
    let gone = state
        .pile_plays()
        .iter()
        .fold(state.discard(), |acc, p| acc | p.cards);
    encode_cards(&mut out[13..26], gone);
    for play in state.pile_plays() {
        let base = 26 + 5 * rel_of[play.seat as usize % MAX_PLAYERS];
        out[base] = 1.0;
        out[base + 1] = play.value as f32 * (1.0 / 20.0);
        match Action::from_id(play.action) {
            Some(Action::PandaWithBamboo(_)) => out[base + 2] = 1.0,
            Some(Action::BigPanda) => out[base + 3] = 1.0,
            Some(Action::BambooAlone) => out[base + 4] = 1.0,
            _ => {}
        }
    }
    out[51] = state.highest().map_or(0.0, |h| h as f32 * (1.0 / 20.0));
    out[52 + (state.pile_number() as usize).min(6)] = 1.0;
    out[59 + rel_of[state.leader() as usize % MAX_PLAYERS]] = 1.0;
    out[64 + rel_of[state.dealer() as usize % MAX_PLAYERS]] = 1.0;
    let per_point = 1.0 / state.rules().bust_threshold as f32;
    for (seat, &score) in state.scores().iter().enumerate().take(MAX_PLAYERS) {
        let r = rel_of[seat];
        out[69 + r] = score as f32 * per_point;
        out[74 + r] = state.is_drowsy(seat as u8) as u8 as f32;
        out[79 + r] = state.is_pooped(seat as u8) as u8 as f32;
        out[84 + r] = 1.0;
        out[89 + r] = state.hand(seat as u8).count_ones() as f32 * (1.0 / 7.0);
    }
    out[94] = state.draw_pile().len() as f32 * (1.0 / 63.0);
    out[95] = (state.current_player() == Some(player)) as u8 as f32;
}

/// The observation of `state` for `player`.
pub fn observation(state: &HeadState, player: u8) -> [f32; OBSERVATION_SIZE] {
    let mut out = [0.0; OBSERVATION_SIZE];
    observation_into(state, player, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::{Deal, HeadRules};

    fn deal(other: Vec<u8>, pile: Vec<u8>) -> HeadState {
        let deal = Deal {
            hands: vec![(0..7).collect(), other],
            draw_pile: pile,
            dealer: 1,
            scores: vec![3, 5],
            drowsy: vec![false, true],
            pooped: vec![false, false],
            rng_state: 0,
            hand_number: 0,
        };
        HeadState::from_deal(2, &deal, HeadRules::default()).unwrap()
    }

    #[test]
    fn hidden_information_does_not_change_the_observation() {
        let a = deal((7..14).collect(), (14..63).collect());
        let b = deal((40..47).collect(), (7..40).chain(47..63).collect());
        assert_eq!(observation(&a, 0), observation(&b, 0));
        assert_ne!(observation(&a, 1), observation(&b, 1));
    }

    #[test]
    fn layout_basics() {
        let s = deal((7..14).collect(), (14..63).collect());
        let o = observation(&s, 0);
        // Own hand: ids 0..7 are five 1s and two 2s.
        assert_eq!(o[0], 1.0);
        assert!((o[1] - 0.4).abs() < 1e-6);
        assert_eq!(o[52], 1.0); // pile 1
        assert_eq!(o[59], 1.0); // seat 0 leads (left of dealer 1)
        assert_eq!(o[65], 1.0); // dealer is one seat to the left
        assert_eq!(o[75], 1.0); // the other seat is Drowsy
        assert_eq!(o[95], 1.0); // seat 0 to play
        assert_eq!(observation(&s, 1)[95], 0.0);
    }
}
