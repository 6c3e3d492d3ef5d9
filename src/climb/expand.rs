//! Panda choices (S-7.3, S-7.4): a combination with panda symbols stands for several moves, one
//! per flip set (`year`, mood `flip`) or per multiset of steal victims (`spin`). Move generation
//! expands each such combination into those moves, in canonical order.

use super::cards::{bit, CardSet, ANIMALS};
use super::movegen::{TooMany, MAX_LEGAL_MOVES};
use super::moves::{Move, Steal, MAX_PLAYERS};
use super::rules::{Preset, SPIN_SYMBOL_CAP};
use super::state::ClimbState;

impl ClimbState {
    /// Replace each combination with panda symbols by its flip (S-7.3) or steal (S-7.4) choices.
    /// The base moves are sorted and distinct, and the choices of one base are generated in
    /// canonical order, so the result stays sorted.
    pub(super) fn expand_pandas(
        &self,
        p: u8,
        start: usize,
        out: &mut Vec<Move>,
    ) -> Result<(), TooMany> {
        let deck = &*self.settings.deck;
        let hand = self.hands[p as usize];
        // Most hands hold no panda card: then no move expands.
        let panda_cards = deck.panda_cards(hand, self.blue);
        if panda_cards == 0 || !out[start..].iter().any(|m| m.cards & panda_cards != 0) {
            return Ok(());
        }
        let base: Vec<Move> = out.split_off(start);
        for m in base {
            if m.cards & panda_cards == 0 {
                out.push(m);
                continue;
            }
            // At least one panda symbol: `m` holds a panda card.
            let (bamboo, pandas) = self.symbols(m.cards);
            if self.settings.preset == Preset::Spin {
                let c = self.steal_count(p, bamboo, pandas);
                if c == 0 {
                    out.push(m);
                    continue;
                }
                let mut counts = [0u8; MAX_PLAYERS];
                self.steals(p, 0, c, &mut counts, &m, out)?;
            } else {
                // Flip: subsets of at most `pandas` white animal cards left in the hand.
                let cands = hand & ANIMALS & !m.cards & !self.blue;
                flips(cands, 0, pandas, &m, out)?;
            }
        }
        Ok(())
    }

    /// S-7.4 / contract §5.2: the number of steals, `min(pandas, room under 19 after the
    /// play's bamboo, the opponents' points)`.
    fn steal_count(&self, p: u8, bamboo: u32, pandas: u32) -> u32 {
        let s = self.scores[p as usize];
        let after = s + bamboo.min(SPIN_SYMBOL_CAP.saturating_sub(s));
        let room = SPIN_SYMBOL_CAP.saturating_sub(after);
        let opp: u64 = (0..self.players)
            .filter(|&v| v != p)
            .map(|v| self.scores[v as usize] as u64)
            .sum();
        pandas.min(room).min(opp.min(u32::MAX as u64) as u32)
    }

    /// Every multiset of `left` more victims from seats `from..`, in canonical order.
    fn steals(
        &self,
        p: u8,
        from: u8,
        left: u32,
        counts: &mut [u8; MAX_PLAYERS],
        m: &Move,
        out: &mut Vec<Move>,
    ) -> Result<(), TooMany> {
        if left == 0 {
            if out.len() >= MAX_LEGAL_MOVES {
                return Err(TooMany);
            }
            out.push(Move {
                steal: Steal(*counts),
                ..m.clone()
            });
            return Ok(());
        }
        for v in from..self.players {
            if v != p && (counts[v as usize] as u32) < self.scores[v as usize] {
                counts[v as usize] += 1;
                self.steals(p, v, left - 1, counts, m, out)?;
                counts[v as usize] -= 1;
            }
        }
        Ok(())
    }
}

/// Every subset of `cands` above `min_id`-ordering with at most `left` more cards, added to the
/// flip of `m`, in canonical (lexicographic) order: the set itself first, then each extension by
/// a larger id.
fn flips(
    cands: CardSet,
    chosen: CardSet,
    left: u32,
    m: &Move,
    out: &mut Vec<Move>,
) -> Result<(), TooMany> {
    if out.len() >= MAX_LEGAL_MOVES {
        return Err(TooMany);
    }
    out.push(Move {
        flip: chosen,
        ..m.clone()
    });
    if left == 0 {
        return Ok(());
    }
    let mut rest = cands;
    while rest != 0 {
        let id = rest.trailing_zeros() as u8;
        rest &= rest - 1;
        flips(rest, chosen | bit(id), left - 1, m, out)?;
    }
    Ok(())
}
