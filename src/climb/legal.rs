//! The legal moves of a position in canonical order (contract §5.2), and the limit on how many
//! a position may have (contract §5.3).
//!
//! Order: pass, element discards (S-6.5), element plays whose condition holds (S-5.3), then the
//! combinations of the hand that may lead or beat the play to beat ([`super::movegen`]), each
//! with its panda choices ([`super::expand`]).

use super::cards::{self, bit, count, suit_of, ANIMALS, ELEMENTS};
use super::combo::condition_holds;
use super::movegen::{self, TooMany, MAX_LEGAL_MOVES};
use super::moves::{Kind, Move};
use super::rules::Preset;
use super::state::ClimbState;
use crate::error::{EngineError, StateError};

impl ClimbState {
    /// The legal moves of the current player in canonical order (contract §5.2).
    ///
    /// A position with more than [`MAX_LEGAL_MOVES`] legal moves (contract §5.3: only a
    /// hand-built position or an unusual deck file can have one) yields the first
    /// [`MAX_LEGAL_MOVES`] found, each legal, in canonical order: callers that must not work on a
    /// partial list use [`Self::try_legal_moves`], which refuses such a position.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        self.legal_moves_into(&mut out);
        out
    }

    /// [`Self::legal_moves`] into a reused buffer (cleared first).
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        if self.generate(out).is_err() {
            out.truncate(MAX_LEGAL_MOVES);
            out.sort_unstable();
            out.dedup();
        }
    }

    /// The legal moves, or a [`StateError`] when the position has more than
    /// [`MAX_LEGAL_MOVES`] (contract §5.3). Generation stops at the limit: the full list is
    /// never built.
    pub fn try_legal_moves(&self) -> Result<Vec<Move>, EngineError> {
        let mut out = Vec::new();
        self.try_legal_moves_into(&mut out)?;
        Ok(out)
    }

    /// [`Self::try_legal_moves`] into a reused buffer (cleared first; empty after an error).
    pub fn try_legal_moves_into(&self, out: &mut Vec<Move>) -> Result<(), EngineError> {
        if self.generate(out).is_err() {
            out.clear();
            return Err(self.too_many_moves().into());
        }
        Ok(())
    }

    /// The error for a position over the limit: which seat, which hand, which deck.
    fn too_many_moves(&self) -> StateError {
        let p = self.current.unwrap_or(0);
        let hand = self.hand(p);
        StateError(format!(
            "the position has more than {MAX_LEGAL_MOVES} legal moves (seat {p}, {} animal \
             cards in hand, {} of them blue, deck {:?}, {} {}): panda-core refuses positions \
             that large (contract §5.3)",
            count(hand & ANIMALS),
            count(hand & self.blue & ANIMALS),
            self.deck().name(),
            self.settings.preset.name(),
            self.settings.mood.name(),
        ))
    }

    /// Fill `out` (cleared first) with the legal moves in canonical order, stopping with
    /// [`TooMany`] (and a partial, unsorted `out`) beyond [`MAX_LEGAL_MOVES`].
    fn generate(&self, out: &mut Vec<Move>) -> Result<(), TooMany> {
        out.clear();
        let Some(p) = self.current else {
            return Ok(());
        };
        let deck = &*self.settings.deck;
        let hand = self.hands[p as usize];
        let elements = hand & ELEMENTS;
        let to_beat = self.to_beat.as_ref().map(|t| &t.combo);
        // Canonical order: pass (0), discard_element (1), element (2), then combinations.
        if to_beat.is_some() {
            out.push(Move::pass());
        }
        for e in cards::ids(elements) {
            out.push(Move::of(Kind::DiscardElement, bit(e)));
        }
        if let Some(tb) = to_beat {
            for e in cards::ids(elements) {
                if condition_holds(deck.element(suit_of(e)).condition, tb) {
                    out.push(Move::of(Kind::Element, bit(e)));
                }
            }
        }
        let start = out.len();
        let shape = to_beat.map(|c| &c.shape);
        movegen::try_combinations(deck, hand, self.blue, shape, out, MAX_LEGAL_MOVES)?;
        if self.settings.flips() || self.settings.preset == Preset::Spin {
            self.expand_pandas(p, start, out)?;
        }
        Ok(())
    }
}
