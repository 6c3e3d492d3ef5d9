//! What a move of `year` or `spin` did, as events (the per-move report of the state machine).
//!
//! [`super::state::ClimbState::apply_legal_with`] pushes the events of one move into an
//! [`EventSink`](crate::event::EventSink), in the order they happen. The first is always
//! [`ClimbEvent::Move`]; then, as the rules apply them: the symbols (S-7), the element or wind
//! effect (S-8), passes and what they return or discard (S-6.3), the trick end (S-6.4, S-9.4),
//! show-outs (S-9.1, S-9.2), the round end (S-9.3), the next round's deal (S-3), and
//! [`ClimbEvent::GameEnd`] last (S-10).
//!
//! The JSON form is `{"type": "<snake_case name>", ...}`; seats are 0-based and named `player`;
//! card ids are those of S-1.3. A seat sees the events through [`SeatFilter`]: everything is
//! public (S-11.1) except the cards of a draw or a deal, which only their receiver sees (S-11.2);
//! the others see the same event with the number of cards and no `cards` key.

use serde::{Deserialize, Serialize};

use crate::event::SeatFilter;

/// The face a card showed (S-1.4); element and wind cards have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardFace {
    White,
    Blue,
    Element,
}

/// The value a combination took (S-4, S-5.1; the fields of the snapshot's `to_beat`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ComboValue {
    /// Rank index (S-1.2) of a single, set or bomb, or the top rank of a run or formation.
    pub rank: u8,
    /// Units counted (S-1.5): `length * copies`.
    pub units: u32,
    /// Distinct ranks (1 for a single, set or bomb).
    pub length: u32,
    /// Units per rank (1 for a single or run).
    pub copies: u32,
    /// The rank named for each wild unit, in card-id order (S-4.6).
    pub named: Vec<u8>,
    /// Whether some card showed its blue face (the Metal condition of S-2.3, the return of S-6.3).
    pub has_blue: bool,
}

/// Why a seat passed (S-6.3 applies to all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PassReason {
    /// The player chose to pass (S-6.1).
    Chosen,
    /// The turn reached a seat with no cards, or a discard emptied the hand (S-6.2, S-6.5).
    EmptyHand,
    /// An element card won the trick and every seat still in it passes (S-8.1).
    Forced,
}

/// One thing a move did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClimbEvent {
    /// The decision itself, first event of every move: a play, an element or wind card (S-5.3,
    /// S-8), an element discard (S-6.5) or a pass (S-6.1). `cards` are the card ids played, with
    /// the face each showed; `combo` is the value a combination took (`null` otherwise).
    Move {
        player: u8,
        /// The move's notation (contract §8).
        #[serde(rename = "move")]
        notation: String,
        /// `pass`, `discard_element`, `element`, `single`, `set`, `run`, `formation`, `bomb`.
        kind: String,
        cards: Vec<u8>,
        faces: Vec<CardFace>,
        combo: Option<ComboValue>,
    },
    /// Bamboo symbols played (S-7.1): `points` gained (in `spin` never above 19, S-10.2).
    Bamboo {
        player: u8,
        symbols: u32,
        points: u32,
        score: u32,
    },
    /// Points a panda moved from `victim` to `player`: the holder of the play beaten in `year`,
    /// mood `hungry` (S-7.2), or a chosen opponent in `spin` (S-7.4).
    Steal { player: u8, victim: u8, points: u32 },
    /// White cards of the player's hand turned blue by a panda (S-7.3, `year` mood `flip`).
    Flip { player: u8, cards: Vec<u8> },
    /// Cards drawn from the draw pile after an element or wind card (S-8.1, S-8.2). `cards` is
    /// seen by the drawer only.
    Draw {
        player: u8,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<Vec<u8>>,
    },
    /// A `spin` wind: the player holds the trick and the play to beat stays (S-8.2).
    TrickHeld { player: u8 },
    /// A seat passed and is out of the trick (S-6.1 to S-6.3, S-8.1).
    Pass { player: u8, reason: PassReason },
    /// Cards the player played this trick came back to their hand, now showing `face` (S-6.3).
    Return {
        player: u8,
        cards: Vec<u8>,
        face: CardFace,
    },
    /// Cards of the player went to the discard pile: an element discard (S-6.5), a return with
    /// a blue card (S-6.3), a trick won (S-6.4) or a wind's trick (S-8.2).
    Discard { player: u8, cards: Vec<u8> },
    /// The trick ended (S-6.4, S-8.1); `winner` is `null` when nobody could lead (S-6.6).
    TrickEnd { winner: Option<u8> },
    /// A seat with an empty hand showed out and scored the largest hand (S-9.1, S-9.2).
    ShowOut { player: u8, points: u32, score: u32 },
    /// The round ended (S-9.3), or the game ended during it (reading 29). `deltas` are the
    /// score changes of the round, `scores` the scores after it.
    RoundEnd {
        round: u32,
        scores: Vec<u32>,
        deltas: Vec<i64>,
        shown_out: Vec<u8>,
        hand_sizes: Vec<u32>,
    },
    /// A round begins (S-3.3 to S-3.5): its number, its starter and the draw pile's size after
    /// the deal. Every round starts with all cards white.
    RoundStart {
        round: u32,
        starter: u8,
        draw_pile_size: u32,
    },
    /// The cards dealt to one seat (S-3.4; in `spin` with its wind, S-3.3). `cards` is seen by
    /// that seat only.
    Deal {
        player: u8,
        count: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cards: Option<Vec<u8>>,
    },
    /// The game ended (S-10.1, S-10.2): the last event of the game.
    GameEnd { winner: u8, scores: Vec<u32> },
}

impl ClimbEvent {
    /// The JSON `type` of this event.
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::Move { .. } => "move",
            Self::Bamboo { .. } => "bamboo",
            Self::Steal { .. } => "steal",
            Self::Flip { .. } => "flip",
            Self::Draw { .. } => "draw",
            Self::TrickHeld { .. } => "trick_held",
            Self::Pass { .. } => "pass",
            Self::Return { .. } => "return",
            Self::Discard { .. } => "discard",
            Self::TrickEnd { .. } => "trick_end",
            Self::ShowOut { .. } => "show_out",
            Self::RoundEnd { .. } => "round_end",
            Self::RoundStart { .. } => "round_start",
            Self::Deal { .. } => "deal",
            Self::GameEnd { .. } => "game_end",
        }
    }
}

impl SeatFilter for ClimbEvent {
    /// Draws and deals keep their cards for their receiver only (S-11.2); every other event is
    /// public (S-11.1).
    fn seen_by(&self, seat: u8) -> Option<Self> {
        match self {
            Self::Draw {
                player,
                count,
                cards,
            } if *player != seat && cards.is_some() => Some(Self::Draw {
                player: *player,
                count: *count,
                cards: None,
            }),
            Self::Deal {
                player,
                count,
                cards,
            } if *player != seat && cards.is_some() => Some(Self::Deal {
                player: *player,
                count: *count,
                cards: None,
            }),
            _ => Some(self.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_form_is_tagged_snake_case() {
        let e = ClimbEvent::Move {
            player: 2,
            notation: "single Fi3".into(),
            kind: "single".into(),
            cards: vec![0],
            faces: vec![CardFace::White],
            combo: Some(ComboValue {
                rank: 0,
                units: 1,
                length: 1,
                copies: 1,
                named: vec![],
                has_blue: false,
            }),
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "move");
        assert_eq!(v["player"], 2);
        assert_eq!(v["move"], "single Fi3");
        assert_eq!(v["faces"], json!(["white"]));
        assert_eq!(serde_json::from_value::<ClimbEvent>(v).unwrap(), e);
        let v = serde_json::to_value(ClimbEvent::TrickEnd { winner: None }).unwrap();
        assert_eq!(v, json!({"type": "trick_end", "winner": null}));
    }

    #[test]
    fn s11_2_a_draw_is_seen_by_the_drawer_only() {
        let draw = ClimbEvent::Draw {
            player: 1,
            count: 2,
            cards: Some(vec![40, 41]),
        };
        assert_eq!(draw.seen_by(1), Some(draw.clone()));
        let other = draw.seen_by(0).unwrap();
        assert_eq!(
            serde_json::to_value(&other).unwrap(),
            json!({"type": "draw", "player": 1, "count": 2})
        );
        let deal = ClimbEvent::Deal {
            player: 0,
            count: 12,
            cards: Some((0..12).collect()),
        };
        assert_eq!(deal.seen_by(0), Some(deal.clone()));
        assert!(matches!(
            deal.seen_by(3),
            Some(ClimbEvent::Deal {
                count: 12,
                cards: None,
                ..
            })
        ));
        let pass = ClimbEvent::Pass {
            player: 0,
            reason: PassReason::Chosen,
        };
        assert_eq!(pass.seen_by(4), Some(pass.clone()));
    }

    #[test]
    fn type_name_matches_the_json_tag() {
        let events = [
            ClimbEvent::TrickHeld { player: 0 },
            ClimbEvent::RoundStart {
                round: 1,
                starter: 0,
                draw_pile_size: 6,
            },
            ClimbEvent::GameEnd {
                winner: 1,
                scores: vec![3, 15],
            },
            ClimbEvent::Return {
                player: 0,
                cards: vec![1],
                face: CardFace::Blue,
            },
        ];
        for e in events {
            assert_eq!(serde_json::to_value(&e).unwrap()["type"], e.type_name());
        }
    }
}
