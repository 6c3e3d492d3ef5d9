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

use super::cards::CardSet;
use super::moves::{Kind, Move, Ranks};
use crate::event::SeatFilter;

/// The face a card came back with (S-1.4, S-6.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CardFace {
    White,
    Blue,
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
    #[serde(with = "serde_ranks")]
    pub named: Ranks,
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

/// One thing a move did. Card sets are bit sets of card ids (S-1.3); in JSON they are lists of
/// ids in increasing order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClimbEvent {
    /// The decision itself, first event of every move: a play, an element or wind card (S-5.3,
    /// S-8), an element discard (S-6.5) or a pass (S-6.1). `cards` are the cards played, `blue`
    /// those of them that showed their blue face; `combo` is the value a combination took
    /// (`null` for a pass or an element card).
    Move {
        player: u8,
        /// The move; in JSON its notation (contract §8).
        #[serde(rename = "move", with = "serde_notation")]
        mv: Move,
        /// `pass`, `discard_element`, `element`, `single`, `set`, `run`, `formation`, `bomb`.
        #[serde(with = "serde_kind")]
        kind: Kind,
        #[serde(with = "serde_cards")]
        cards: CardSet,
        #[serde(with = "serde_cards")]
        blue: CardSet,
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
    Flip {
        player: u8,
        #[serde(with = "serde_cards")]
        cards: CardSet,
    },
    /// Cards drawn from the draw pile after an element or wind card (S-8.1, S-8.2). `cards` is
    /// seen by the drawer only.
    Draw {
        player: u8,
        count: u32,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "serde_opt_cards"
        )]
        cards: Option<CardSet>,
    },
    /// A `spin` wind: the player holds the trick and the play to beat stays (S-8.2).
    TrickHeld { player: u8 },
    /// A seat passed and is out of the trick (S-6.1 to S-6.3, S-8.1).
    Pass { player: u8, reason: PassReason },
    /// Cards the player played this trick came back to their hand, now showing `face` (S-6.3).
    Return {
        player: u8,
        #[serde(with = "serde_cards")]
        cards: CardSet,
        face: CardFace,
    },
    /// Cards of the player went to the discard pile: an element discard (S-6.5), a return with
    /// a blue card (S-6.3), a trick won (S-6.4) or a wind's trick (S-8.2).
    Discard {
        player: u8,
        #[serde(with = "serde_cards")]
        cards: CardSet,
    },
    /// The trick ended (S-6.4, S-8.1); `winner` is `null` when nobody could lead (S-6.6).
    TrickEnd { winner: Option<u8> },
    /// A seat with an empty hand showed out and scored the largest hand (S-9.1, S-9.2).
    ShowOut { player: u8, points: u32, score: u32 },
    /// The round ended (S-9.3), or the game ended during it (reading 29). `deltas` are the
    /// score changes of the round, `scores` the scores after it.
    RoundEnd {
        /// 0-based, as in every game's events.
        round: u32,
        scores: Vec<u32>,
        deltas: Vec<i64>,
        shown_out: Vec<u8>,
        hand_sizes: Vec<u32>,
    },
    /// A round begins (S-3.3 to S-3.5): its number, its starter and the draw pile's size after
    /// the deal. Every round starts with all cards white.
    RoundStart {
        /// 0-based, as in every game's events.
        round: u32,
        starter: u8,
        draw_pile_size: u32,
    },
    /// The cards dealt to one seat (S-3.4; in `spin` with its wind, S-3.3). `cards` is seen by
    /// that seat only.
    Deal {
        player: u8,
        count: u32,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "serde_opt_cards"
        )]
        cards: Option<CardSet>,
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

    /// The cards this event shows (none for a redacted draw or deal).
    pub fn cards(&self) -> CardSet {
        match self {
            Self::Move { cards, .. }
            | Self::Flip { cards, .. }
            | Self::Return { cards, .. }
            | Self::Discard { cards, .. } => *cards,
            Self::Draw { cards, .. } | Self::Deal { cards, .. } => cards.unwrap_or(0),
            _ => 0,
        }
    }
}

impl SeatFilter for ClimbEvent {
    /// Draws and deals keep their cards for their receiver only (S-11.2); every other event is
    /// public (S-11.1).
    fn seen_by(&self, seat: u8) -> Option<Self> {
        match *self {
            Self::Draw {
                player,
                count,
                cards: Some(_),
            } if player != seat => Some(Self::Draw {
                player,
                count,
                cards: None,
            }),
            Self::Deal {
                player,
                count,
                cards: Some(_),
            } if player != seat => Some(Self::Deal {
                player,
                count,
                cards: None,
            }),
            _ => Some(self.clone()),
        }
    }
}

/// A card set as the list of its ids; reading refuses an id that is not a card (S-1.3).
mod serde_cards {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::climb::cards::{self, bit, CardSet, NUM_CARDS};

    pub fn serialize<S: Serializer>(set: &CardSet, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(cards::ids(*set))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<CardSet, D::Error> {
        let ids = Vec::<u8>::deserialize(d)?;
        ids.iter().try_fold(0, |set, &id| {
            if id < NUM_CARDS {
                Ok(set | bit(id))
            } else {
                Err(D::Error::custom(format!(
                    "card id {id} is not a card (ids are 0 to {})",
                    NUM_CARDS - 1
                )))
            }
        })
    }
}

/// An optional card set (a draw or deal, hidden from the other seats).
mod serde_opt_cards {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::climb::cards::CardSet;

    pub fn serialize<S: Serializer>(set: &Option<CardSet>, s: S) -> Result<S::Ok, S::Error> {
        match set {
            Some(set) => super::serde_cards::serialize(set, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<CardSet>, D::Error> {
        #[derive(Deserialize)]
        struct Cards(#[serde(with = "super::serde_cards")] CardSet);
        Ok(Option::<Cards>::deserialize(d)?.map(|c| c.0))
    }
}

/// A move as its notation (contract §8).
mod serde_notation {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::climb::moves::Move;
    use crate::climb::notation::parse_move;

    pub fn serialize<S: Serializer>(mv: &Move, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&mv.notation())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Move, D::Error> {
        let text = String::deserialize(d)?;
        parse_move(&text).map_err(|why| D::Error::custom(format!("move {text:?}: {why}")))
    }
}

/// A move kind as its name.
mod serde_kind {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::climb::moves::Kind;

    pub fn serialize<S: Serializer>(kind: &Kind, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(kind.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let name = String::deserialize(d)?;
        Kind::parse(&name).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown move kind {name:?} (one of {})",
                Kind::NAMES.join(", ")
            ))
        })
    }
}

/// Named ranks as a list of rank indices.
mod serde_ranks {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::climb::moves::Ranks;

    pub fn serialize<S: Serializer>(r: &Ranks, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(r.as_slice())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Ranks, D::Error> {
        Ok(Ranks::from_slice(&Vec::<u8>::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::notation::parse_move;
    use serde_json::json;

    #[test]
    fn json_form_is_tagged_snake_case() {
        let mv = parse_move("set Fi3+Wa3").unwrap();
        let e = ClimbEvent::Move {
            player: 2,
            kind: mv.kind,
            cards: mv.cards,
            blue: 1 << 39,
            combo: Some(ComboValue {
                rank: 0,
                units: 2,
                length: 1,
                copies: 2,
                named: Ranks::new(),
                has_blue: true,
            }),
            mv,
        };
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(
            v,
            json!({
                "type": "move", "player": 2, "move": "set Fi3+Wa3", "kind": "set",
                "cards": [0, 39], "blue": [39],
                "combo": {"rank": 0, "units": 2, "length": 1, "copies": 2, "named": [],
                          "has_blue": true},
            })
        );
        assert_eq!(serde_json::from_value::<ClimbEvent>(v).unwrap(), e);
        let v = serde_json::to_value(ClimbEvent::TrickEnd { winner: None }).unwrap();
        assert_eq!(v, json!({"type": "trick_end", "winner": null}));
    }

    #[test]
    fn reading_refuses_what_is_not_an_event() {
        let bad = [
            json!({"type": "discard", "player": 0, "cards": [70]}),
            json!({"type": "move", "player": 0, "move": "jump", "kind": "pass", "cards": [],
                   "blue": [], "combo": null}),
            json!({"type": "move", "player": 0, "move": "pass", "kind": "hop", "cards": [],
                   "blue": [], "combo": null}),
            json!({"type": "teleport", "player": 0}),
        ];
        for v in bad {
            let e = serde_json::from_value::<ClimbEvent>(v.clone());
            assert!(e.is_err(), "{v}");
        }
    }

    #[test]
    fn s11_2_a_draw_is_seen_by_the_drawer_only() {
        let draw = ClimbEvent::Draw {
            player: 1,
            count: 2,
            cards: Some(1 << 40 | 1 << 41),
        };
        assert_eq!(draw.seen_by(1), Some(draw.clone()));
        assert_eq!(
            serde_json::to_value(&draw).unwrap(),
            json!({"type": "draw", "player": 1, "count": 2, "cards": [40, 41]})
        );
        let other = draw.seen_by(0).unwrap();
        assert_eq!(
            serde_json::to_value(&other).unwrap(),
            json!({"type": "draw", "player": 1, "count": 2})
        );
        assert_eq!(other.cards(), 0);
        let deal = ClimbEvent::Deal {
            player: 0,
            count: 12,
            cards: Some((1 << 12) - 1),
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
                cards: 2,
                face: CardFace::Blue,
            },
        ];
        for e in events {
            assert_eq!(serde_json::to_value(&e).unwrap()["type"], e.type_name());
        }
    }
}
