//! What one player may see of a Panda Head state: their own hand and the public information
//! (never another hand or the draw-pile order; docs "What a player may know").
//!
//! The JSON form is the one `HeadGame.view(player)` has always returned:
//! the public part (also the start of [`super::snapshot::HeadSnapshot`]), then `player`, `hand`,
//! `hand_sizes`, `draw_pile_size` and `legal_action_ids` (empty unless it is `player`'s turn).

use serde::{Deserialize, Serialize};

use super::action::{mask_ids, ActionId};
use super::cards::{self, CardSet};
use super::state::{HeadState, Play};

/// One play of the pile in progress: `[seat, action id, effective value, cards]`, the cards
/// including any turned up (H-4.1, H-4.4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PilePlay(pub u8, pub ActionId, pub u8, pub Vec<u8>);

impl PilePlay {
    pub fn of(p: &Play) -> Self {
        Self(p.seat, p.action, p.value, cards::ids(p.cards))
    }
}

/// What `player` may see, in the key order of its JSON form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeadView {
    pub hand_number: u32,
    pub dealer: u8,
    pub scores: Vec<u32>,
    pub drowsy: Vec<bool>,
    pub pooped: Vec<bool>,
    pub discard: Vec<u8>,
    pub pile_number: u8,
    pub pile_plays: Vec<PilePlay>,
    pub leader: u8,
    pub current_player: Option<u8>,
    pub is_over: bool,
    pub winner: Option<u8>,
    pub player: u8,
    pub hand: Vec<u8>,
    pub hand_sizes: Vec<u32>,
    pub draw_pile_size: usize,
    pub legal_action_ids: Vec<ActionId>,
}

/// Per-seat flags as a list of `players` booleans.
pub(super) fn seat_flags(state: &HeadState, flag: fn(&HeadState, u8) -> bool) -> Vec<bool> {
    (0..state.players()).map(|s| flag(state, s)).collect()
}

pub(super) fn card_list(set: CardSet) -> Vec<u8> {
    cards::ids(set)
}

/// The view of `state` for `player`. A seat that is not at the table sees an empty hand.
pub fn view(state: &HeadState, player: u8) -> HeadView {
    HeadView {
        hand_number: state.hand_number(),
        dealer: state.dealer(),
        scores: state.scores().to_vec(),
        drowsy: seat_flags(state, HeadState::is_drowsy),
        pooped: seat_flags(state, HeadState::is_pooped),
        discard: card_list(state.discard()),
        pile_number: state.pile_number(),
        pile_plays: state.pile_plays().iter().map(PilePlay::of).collect(),
        leader: state.leader(),
        current_player: state.current_player(),
        is_over: state.is_over(),
        winner: state.winner(),
        player,
        hand: card_list(state.hand(player)),
        hand_sizes: (0..state.players())
            .map(|s| state.hand(s).count_ones())
            .collect(),
        draw_pile_size: state.draw_pile().len(),
        legal_action_ids: if state.current_player() == Some(player) {
            mask_ids(state.legal_actions()).collect()
        } else {
            Vec::new()
        },
    }
}
