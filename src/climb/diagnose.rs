//! Why a move is illegal: the reason an [`IllegalMove`] error gives, naming the rule the move
//! breaks (S-4, S-5, S-6, S-7, S-8) so a caller can fix it.

use super::cards::{self, count, suit_of, ANIMALS, ELEMENTS};
use super::combo::{classify_play, units_of};
use super::moves::{Kind, Move};
use super::state::ClimbState;
use crate::error::IllegalMove;

impl ClimbState {
    /// The error for a move that is not in `legal`, with a reason.
    pub fn illegal(&self, mv: &Move, legal: &[Move]) -> IllegalMove {
        IllegalMove {
            requested: mv.notation(),
            reason: self.why_illegal(mv, legal),
            legal: legal.iter().map(Move::notation).collect(),
        }
    }

    fn why_illegal(&self, mv: &Move, legal: &[Move]) -> String {
        let Some(p) = self.current else {
            return "the game is over".into();
        };
        let hand = self.hands[p as usize];
        let leading = self.to_beat.is_none();
        if mv.kind == Kind::Pass {
            return if leading {
                "the leader may not pass (S-6.1)".into()
            } else {
                "a pass is a bare `pass`".into()
            };
        }
        if mv.cards == 0 {
            return "the move names no card".into();
        }
        if mv.cards & !hand != 0 {
            let missing: Vec<String> = cards::ids(mv.cards & !hand)
                .map(cards::card_token)
                .collect();
            return format!("seat {p} does not hold {}", missing.join(", "));
        }
        match mv.kind {
            Kind::DiscardElement | Kind::Element
                if count(mv.cards) != 1 || mv.cards & ANIMALS != 0 =>
            {
                "an element move names exactly one element card".into()
            }
            Kind::DiscardElement => "a discard names no rank, flip or steal".into(),
            Kind::Element if leading => {
                "an element card cannot be played on an empty table (S-8.3)".into()
            }
            Kind::Element => format!(
                "its condition ({}) does not hold for the play to beat (S-5.3)",
                self.deck()
                    .element(suit_of(mv.cards.trailing_zeros() as u8))
                    .condition
                    .name()
            ),
            _ => {
                if mv.cards & ELEMENTS != 0 {
                    return "element cards are not part of combinations".into();
                }
                let combo = classify_play(self.deck(), mv.cards, self.blue, &mv.named, leading);
                match combo {
                    None => {
                        let (_, wild, _) = units_of(self.deck(), mv.cards, self.blue);
                        if wild as usize != mv.named.len() {
                            format!(
                                "the cards show {wild} wild unit(s) and {} rank(s) are named (S-4.6)",
                                mv.named.len()
                            )
                        } else {
                            "the units of these cards form no combination (S-4)".into()
                        }
                    }
                    Some(c) if c.kind() != mv.kind => format!(
                        "these cards form a {}, not a {} (S-4)",
                        c.kind().name(),
                        mv.kind.name()
                    ),
                    Some(c) => {
                        let same_base = legal.iter().any(|m| {
                            m.kind == mv.kind && m.cards == mv.cards && m.named == mv.named
                        });
                        if same_base {
                            "the flip / steal choice is not allowed (S-7.3, S-7.4)".into()
                        } else if let Some(tb) = &self.to_beat {
                            format!(
                                "this {} does not beat the {} on the table (S-5)",
                                c.kind().name(),
                                tb.combo.kind().name()
                            )
                        } else {
                            "not a legal lead".into()
                        }
                    }
                }
            }
        }
    }
}
