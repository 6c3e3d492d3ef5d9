//! What a Panda Head move did, as typed events (one enum, a documented JSON form).
//!
//! [`super::state::HeadState::apply_with`] pushes, in this order, for one move:
//!
//! 1. `move`: always first — the player, the notation and action id, the cards that left the
//!    hand and the play's effective value (H-4.1 … H-4.4).
//! 2. `big_panda`, `bamboo`: the special card's effect (H-4.1, H-4.2, H-4.3, H-4.4).
//! 3. `turn_up`: cards turned up from the draw pile (H-4.1, H-4.4), public.
//! 4. `draw`: the replacement card of H-4.3 — seen only by the drawer (others see no card).
//! 5. `pile_won`: when the move completes a pile (H-3.3, H-3.4, H-5.1).
//! 6. At the end of a hand (a hand is a *round*): `poor_panda` (H-5.3), `drowsy` (H-6.1),
//!    `pooped` (H-6.2), `round_end` (H-5.4), then `deal` for the next hand (H-2.3; each seat sees
//!    only its own hand) or `game_end` (H-6.3), the last event of a game.
//!
//! JSON: `{"type": "move", "player": 2, "move": "7+B", ...}`; seats, rounds and piles are
//! 0-based; card lists are card ids (H-1.3) in increasing order.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::action::{Action, ActionId};
use super::cards::{self, CardSet, DECK_SIZE};
use crate::event::SeatFilter;

/// A set of cards, written as the list of its ids (ascending).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cards(pub CardSet);

impl Serialize for Cards {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(cards::ids(self.0))
    }
}

impl<'de> Deserialize<'de> for Cards {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ids = Vec::<u8>::deserialize(d)?;
        let mut set: CardSet = 0;
        for id in ids {
            if id >= DECK_SIZE {
                return Err(D::Error::custom(format!(
                    "{id} is not a card id (0..={})",
                    DECK_SIZE - 1
                )));
            }
            set |= 1 << id;
        }
        Ok(Self(set))
    }
}

/// An action written in its notation (`7`, `7+B`, `BP`, `B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Notation(pub ActionId);

impl Serialize for Notation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match Action::from_id(self.0) {
            Some(a) => s.serialize_str(&a.notation()),
            None => Err(serde::ser::Error::custom("not an action id")),
        }
    }
}

impl<'de> Deserialize<'de> for Notation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Action::parse(&text)
            .map(|a| Self(a.id()))
            .ok_or_else(|| D::Error::custom(format!("{text:?} is not a Panda Head move")))
    }
}

/// How a play stands against the pile (H-3.1, H-3.2, H-4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayOption {
    /// The first play of the pile (H-3.1).
    Lead,
    /// Option A: at least the highest value so far (H-3.2); a following Big Panda (H-4.2).
    A,
    /// Option B: the player's lowest Panda, below the highest value (H-3.2).
    B,
    /// A following Bamboo alone that turned up less than the highest value: legal because it is
    /// forced (H-4.4).
    Forced,
}

/// One thing a move did. See the module documentation for the order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum HeadEvent {
    /// The move itself: always the first event of an apply.
    Move {
        player: u8,
        /// The notation (H-1.4: what is played, never which copy).
        #[serde(rename = "move")]
        notation: Notation,
        action: ActionId,
        round: u32,
        pile: u8,
        /// The cards that left the hand (the lowest copy of each kind, H-1.4). Turned-up cards
        /// are in the `turn_up` event.
        cards: Cards,
        /// The effective value on the pile (H-4.2, H-4.3; the turned-up Panda for H-4.1, H-4.4).
        value: u8,
        option: PlayOption,
    },
    /// A Big Panda's effect: led, it is discarded and the draw pile decides (H-4.1); following,
    /// it is worth one more than the highest value so far (H-4.2).
    BigPanda {
        player: u8,
        card: u8,
        led: bool,
        value: u8,
    },
    /// A Bamboo's effect: with a Panda, +2 and a replacement draw (H-4.3); alone, discarded and
    /// the draw pile decides (H-4.4).
    Bamboo {
        player: u8,
        card: u8,
        alone: bool,
        /// Points added to the play's value: 2 with a Panda, 0 alone.
        bonus: u8,
    },
    /// Cards turned up from the draw pile until a regular Panda appeared (H-4.1, H-4.4). Public.
    TurnUp {
        player: u8,
        /// The special cards turned up and discarded on the way.
        discarded: Cards,
        /// The regular Panda that became the play.
        card: u8,
        value: u8,
    },
    /// The replacement card of H-4.3, from the top of the draw pile into the hand. Only the
    /// drawer sees `card`; for the other seats it is absent.
    Draw {
        player: u8,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        card: Option<u8>,
    },
    /// A completed pile (H-3.3): its winner leads the next one; its cards are set aside (H-3.4).
    PileWon {
        round: u32,
        pile: u8,
        winner: u8,
        /// The winning (highest) effective value.
        value: u8,
        /// Penalty points the pile carried to its winner: 0 for piles 0 to 5, H-5.2 for the
        /// last one (H-5.1).
        points: u32,
        /// Every card of the pile, now discarded.
        cards: Cards,
    },
    /// H-5.3: a player who tied the top value of the last pile but was not its winner loses
    /// that many points (`points`, after the floor at zero).
    PoorPanda { player: u8, points: u32 },
    /// H-6.1: the first time above `bust_threshold`; the score drops to `score`.
    Drowsy {
        player: u8,
        score_before: u32,
        score: u32,
    },
    /// H-6.2: a Drowsy player above `bust_threshold` again leaves the game, keeping `score`.
    Pooped { player: u8, score: u32 },
    /// The end of a hand (a round): H-5 changes (`deltas`, before H-6) and the scores after H-6.
    RoundEnd {
        round: u32,
        dealer: u8,
        last_pile_winner: u8,
        deltas: Vec<i32>,
        scores: Vec<u32>,
    },
    /// A new hand dealt (H-2.3, H-2.4). `hands[s]` is seat `s`'s hand: a seat sees only its own,
    /// the others are `null` (Pooped seats hold `[]`).
    Deal {
        round: u32,
        dealer: u8,
        leader: u8,
        hands: Vec<Option<Cards>>,
        draw_pile_size: u8,
    },
    /// The game is over (H-6.3): the last event of a game.
    GameEnd { winner: u8, scores: Vec<u32> },
}

impl HeadEvent {
    /// The seat this event is about, when it is about one seat.
    pub fn player(&self) -> Option<u8> {
        match self {
            Self::Move { player, .. }
            | Self::BigPanda { player, .. }
            | Self::Bamboo { player, .. }
            | Self::TurnUp { player, .. }
            | Self::Draw { player, .. }
            | Self::PoorPanda { player, .. }
            | Self::Drowsy { player, .. }
            | Self::Pooped { player, .. } => Some(*player),
            _ => None,
        }
    }

    /// Every card id this event names (for the hidden-information checks).
    pub fn cards(&self) -> CardSet {
        let one = |c: &u8| 1u64 << (*c as u32 % 64);
        match self {
            Self::Move { cards, .. } | Self::PileWon { cards, .. } => cards.0,
            Self::BigPanda { card, .. } | Self::Bamboo { card, .. } => one(card),
            Self::TurnUp {
                discarded, card, ..
            } => discarded.0 | one(card),
            Self::Draw { card, .. } => card.as_ref().map_or(0, one),
            Self::Deal { hands, .. } => hands.iter().flatten().fold(0, |acc, h| acc | h.0),
            _ => 0,
        }
    }
}

impl SeatFilter for HeadEvent {
    /// Hidden from `seat`: another player's replacement card (H-4.3) and the other hands of a
    /// deal. Everything else is played face up or is public score-keeping.
    fn seen_by(&self, seat: u8) -> Option<Self> {
        Some(match self {
            Self::Draw { player, card } => Self::Draw {
                player: *player,
                card: if *player == seat { *card } else { None },
            },
            Self::Deal {
                round,
                dealer,
                leader,
                hands,
                draw_pile_size,
            } => Self::Deal {
                round: *round,
                dealer: *dealer,
                leader: *leader,
                hands: hands
                    .iter()
                    .enumerate()
                    .map(|(s, h)| if s == seat as usize { *h } else { None })
                    .collect(),
                draw_pile_size: *draw_pile_size,
            },
            other => other.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_is_tagged_and_round_trips() {
        let ev = HeadEvent::Move {
            player: 2,
            notation: Notation(Action::PandaWithBamboo(7).id()),
            action: Action::PandaWithBamboo(7).id(),
            round: 0,
            pile: 3,
            cards: Cards((1 << 30) | (1 << 59)),
            value: 9,
            option: PlayOption::B,
        };
        let text = serde_json::to_string(&ev).unwrap();
        assert_eq!(
            text,
            r#"{"type":"move","player":2,"move":"7+B","action":17,"round":0,"pile":3,"cards":[30,59],"value":9,"option":"b"}"#
        );
        assert_eq!(serde_json::from_str::<HeadEvent>(&text).unwrap(), ev);
        let draw = HeadEvent::Draw {
            player: 1,
            card: Some(40),
        };
        assert_eq!(
            serde_json::to_string(&draw.seen_by(0).unwrap()).unwrap(),
            r#"{"type":"draw","player":1}"#
        );
        assert_eq!(draw.seen_by(1), Some(draw.clone()));
        for bad in [
            r#"{"type":"draw","player":1,"card":3,"extra":1}"#,
            r#"{"type":"move","player":2,"move":"12","action":17,"round":0,"pile":3,"cards":[30],"value":9,"option":"b"}"#,
            r#"{"type":"pile_won","round":0,"pile":0,"winner":0,"value":3,"points":0,"cards":[63]}"#,
        ] {
            assert!(serde_json::from_str::<HeadEvent>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_deal_shows_each_seat_only_its_own_hand() {
        let deal = HeadEvent::Deal {
            round: 1,
            dealer: 0,
            leader: 1,
            hands: vec![Some(Cards(0b1)), Some(Cards(0b10)), Some(Cards(0))],
            draw_pile_size: 40,
        };
        let seen = deal.seen_by(1).unwrap();
        assert_eq!(seen.cards(), 0b10);
        let text = serde_json::to_string(&seen).unwrap();
        assert!(text.contains(r#""hands":[null,[1],null]"#), "{text}");
        assert_eq!(deal.seen_by(7).unwrap().cards(), 0);
    }
}
