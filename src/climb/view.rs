//! What one player may see (S-11): their own hand and the public information.
//!
//! Public (S-11.1): every play and pass (the table), which cards went back to whose hand and
//! their new face, discards, scores, hand sizes, the draw-pile size, the elements in play and the
//! mood. Blue cards are public wherever they are: a card only turns blue by going back to a hand
//! (S-6.3) or by a flip (S-7.3), both public events. Private (S-11.2): the cards of a hand and of
//! the draw pile; in `spin` the winds out of the round are face down, so `out` is shown only in
//! `year`, where it is the suits not in play.
//!
//! The seat's event log ([`seen_events`], [`view_with_events`]) is built from the same rule: the
//! game's events filtered for the seat, so another seat's draw or deal shows its size only.

use serde_json::{json, Value};

use super::cards::{self, CardSet};
use super::event::ClimbEvent;
use super::moves::Move;
use super::recorded::ClimbGame;
use super::rules::Preset;
use super::snapshot::{round_snap, to_beat_snap};

fn ids(set: CardSet) -> Vec<u8> {
    cards::ids(set).collect()
}

/// The view of `seat` (which must be a seat of the game).
pub fn view(game: &ClimbGame, seat: u8) -> Value {
    let st = game.state();
    let n = st.players();
    let hand = st.hand(seat);
    let faces: Vec<&str> = cards::ids(hand)
        .map(|id| {
            if cards::is_element(id) {
                "element"
            } else if st.blue() >> id & 1 == 1 {
                "blue"
            } else {
                "white"
            }
        })
        .collect();
    let legal: Vec<String> = if st.current_player() == Some(seat) {
        st.legal_moves().iter().map(Move::notation).collect()
    } else {
        Vec::new()
    };
    let s = st.settings();
    json!({
        "player": seat,
        "preset": s.preset.name(),
        "panda_mood": s.mood.name(),
        "players": n,
        "deck": st.deck().name(),
        "suits_in_play": (0..5u8).filter(|x| st.suits_in_play() >> x & 1 == 1).collect::<Vec<_>>(),
        "round": st.round(),
        "starter": st.starter(),
        "scores": st.scores(),
        "hand": ids(hand),
        "hand_faces": faces,
        "hand_sizes": (0..n).map(|q| st.hand_size(q)).collect::<Vec<_>>(),
        "blue": ids(st.blue()),
        "draw_pile_size": st.draw_pile().len(),
        "discard": ids(st.discard()),
        "out": if s.preset == Preset::Year { ids(st.out()) } else { Vec::new() },
        "trick": {
            "leader": st.leader(),
            "to_beat": st.to_beat().map(to_beat_snap),
            "holder": st.holder(),
            "passed": (0..n).filter(|q| st.passed() >> q & 1 == 1).collect::<Vec<_>>(),
            "played": (0..n).map(|q| ids(st.played(q))).collect::<Vec<_>>(),
        },
        "current_player": st.current_player(),
        "shown_out": st.shown_out(),
        "game_over": st.is_over(),
        "winner": st.winner(),
        "round_results": game.round_results().iter().map(round_snap).collect::<Vec<_>>(),
        "legal_moves": legal,
    })
}

/// The events of the game as `seat` saw them, oldest first, as a JSON list (the JSON form of
/// [`ClimbEvent`]).
pub fn seen_events(game: &ClimbGame, seat: u8) -> Value {
    Value::Array(game.events_seen_by(seat).iter().map(event_json).collect())
}

/// [`view`] with one more key, `"events"`: [`seen_events`].
pub fn view_with_events(game: &ClimbGame, seat: u8) -> Value {
    let mut v = view(game, seat);
    v["events"] = seen_events(game, seat);
    v
}

/// The JSON form of one event.
pub fn event_json(event: &ClimbEvent) -> Value {
    // An event holds only numbers, strings, lists and options: serializing it cannot fail.
    serde_json::to_value(event).unwrap_or(Value::Null)
}
