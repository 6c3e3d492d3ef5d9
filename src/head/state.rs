//! The Panda Head state machine: deal (H-2), piles (H-3, H-4), scoring (H-5), the end (H-6).
//!
//! `HeadState` is a fixed-size value with no heap data, so cloning it for search or batch
//! simulation is a `memcpy`. History and hand results live one level up, in
//! [`super::recorded::HeadGame`], so the hot loop of the batch simulator pays nothing for them.

use super::action::{mask_ids, Action, ActionId, ActionMask, NUM_ACTIONS};
use super::cards::{
    self, kind, CardKind, CardSet, BAMBOO_MASK, BIG_PANDA_MASK, DECK_SIZE, REGULAR_MASK,
};
use super::event::{Cards, HeadEvent, Notation, PlayOption};
use super::legal::legal_mask;
use super::rules::{HeadRules, LastPileScoring, MAX_SCORE};
use crate::error::{EngineError, IllegalMove, StateError};
use crate::event::{EventSink, NoEvents};
use crate::rng::{shuffle, SplitMix64};

/// Most players at one table (H-2.1).
pub const MAX_PLAYERS: usize = 5;
/// Cards per hand and piles per hand (H-2.3, H-2.4).
pub const HAND_SIZE: u8 = 7;
/// Largest `hand_number` an explicit deal may start at. Every finished hand adds one, so a deal
/// near `u32::MAX` would overflow the count a few hands later (a fuzzing finding); half the range
/// leaves room for more hands than any game plays.
pub const MAX_DEAL_HAND_NUMBER: u32 = u32::MAX / 2;

/// One play on the current pile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Play {
    pub seat: u8,
    pub action: ActionId,
    /// Effective value (H-4.2, H-4.3; the turned-up card for H-4.1 and H-4.4).
    pub value: u8,
    /// Every card the play consumed: from the hand and turned up from the draw pile.
    pub cards: CardSet,
}

/// What one hand changed, reported when its pile 7 completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HandResult {
    /// 0-based hand index.
    pub hand: u32,
    pub dealer: u8,
    pub last_pile_winner: u8,
    /// H-5 changes (after the floor at zero, before H-6).
    pub deltas: [i32; MAX_PLAYERS],
    /// Scores after H-6.
    pub scores: [u32; MAX_PLAYERS],
    /// Seats that became Drowsy / Pooped in this hand (bit per seat).
    pub new_drowsy: u8,
    pub new_pooped: u8,
}

/// An explicit position at the start of a hand (see [`HeadState::from_deal`]).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub hands: Vec<Vec<u8>>,
    /// Top card first.
    pub draw_pile: Vec<u8>,
    pub dealer: u8,
    pub scores: Vec<u32>,
    pub drowsy: Vec<bool>,
    pub pooped: Vec<bool>,
    /// The generator state used for the shuffles of later hands.
    pub rng_state: u64,
    #[serde(default)]
    pub hand_number: u32,
}

/// A position checked by the snapshot reader (`head::snapshot`), ready to become a state.
pub(super) struct Position<'a> {
    pub rules: HeadRules,
    pub players: u8,
    pub rng_state: u64,
    pub hand_number: u32,
    pub dealer: u8,
    pub scores: [u32; MAX_PLAYERS],
    pub drowsy: u8,
    pub pooped: u8,
    pub hands: [CardSet; MAX_PLAYERS],
    /// Top card first.
    pub draw_pile: &'a [u8],
    pub discard: CardSet,
    pub pile_number: u8,
    pub plays: &'a [Play],
    pub leader: u8,
    pub current: u8,
    pub winner: Option<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadState {
    rules: HeadRules,
    players: u8,
    rng: SplitMix64,
    hand_number: u32,
    dealer: u8,
    scores: [u32; MAX_PLAYERS],
    drowsy: u8,
    pooped: u8,
    hands: [CardSet; MAX_PLAYERS],
    /// This hand's shuffled deck; the draw pile is `deck[draw_pos..deck_len]`, top first.
    deck: [u8; DECK_SIZE as usize],
    deck_len: u8,
    draw_pos: u8,
    /// Cards of the completed piles of this hand (H-3.4).
    discard: CardSet,
    /// 0-based index of the pile in progress.
    pile_number: u8,
    plays: [Play; MAX_PLAYERS],
    n_plays: u8,
    leader: u8,
    current: u8,
    /// Highest effective value on the current pile (0 before the lead).
    highest: u8,
    winner: Option<u8>,
}

impl HeadState {
    /// A new game: generator at `seed`, first hand dealt by `rules.first_dealer`.
    pub fn new(players: u8, seed: u64, rules: HeadRules) -> Result<Self, EngineError> {
        rules.validate_for(players)?;
        let mut state = Self::empty(players, rules, SplitMix64::new(seed));
        state.dealer = rules.first_dealer;
        state.deal();
        Ok(state)
    }

    fn empty(players: u8, rules: HeadRules, rng: SplitMix64) -> Self {
        Self {
            rules,
            players,
            rng,
            hand_number: 0,
            dealer: 0,
            scores: [0; MAX_PLAYERS],
            drowsy: 0,
            pooped: 0,
            hands: [0; MAX_PLAYERS],
            deck: [0; DECK_SIZE as usize],
            deck_len: 0,
            draw_pos: 0,
            discard: 0,
            pile_number: 0,
            plays: [Play::default(); MAX_PLAYERS],
            n_plays: 0,
            leader: 0,
            current: 0,
            highest: 0,
            winner: None,
        }
    }

    /// A state from an explicit position at the start of a hand, checked strictly.
    pub fn from_deal(players: u8, deal: &Deal, rules: HeadRules) -> Result<Self, EngineError> {
        rules.validate_for(players)?;
        let n = players as usize;
        let bad = |msg: String| EngineError::State(StateError(msg));
        for (name, len) in [
            ("hands", deal.hands.len()),
            ("scores", deal.scores.len()),
            ("drowsy", deal.drowsy.len()),
            ("pooped", deal.pooped.len()),
        ] {
            if len != n {
                return Err(bad(format!(
                    "{name} must have one entry per player ({n}), got {len}"
                )));
            }
        }
        let deck_size = rules.deck_size();
        let mut seen: CardSet = 0;
        let mut place = |card: u8, whose: &str| -> Result<(), EngineError> {
            if card >= deck_size {
                return Err(bad(format!(
                    "card {card} in {whose} is not a card of this deck (ids 0..={})",
                    deck_size - 1
                )));
            }
            if seen & (1 << card) != 0 {
                return Err(bad(format!(
                    "card {card} appears more than once (again in {whose})"
                )));
            }
            seen |= 1 << card;
            Ok(())
        };
        let mut state = Self::empty(players, rules, SplitMix64::new(deal.rng_state));
        let mut dealt = 0usize;
        for (seat, hand) in deal.hands.iter().enumerate() {
            for &card in hand {
                place(card, &format!("hand {seat}"))?;
                state.hands[seat] |= 1 << card;
                state.deck[dealt] = card;
                dealt += 1;
            }
        }
        for &card in &deal.draw_pile {
            place(card, "the draw pile")?;
            state.deck[dealt] = card;
            dealt += 1;
        }
        if seen != (1u64 << deck_size) - 1 {
            let missing = cards::ids(((1u64 << deck_size) - 1) & !seen);
            return Err(bad(format!(
                "the hands and the draw pile must hold every card exactly once; missing {missing:?}"
            )));
        }
        for seat in 0..n {
            if deal.pooped[seat] {
                state.pooped |= 1 << seat;
            }
            if deal.drowsy[seat] {
                state.drowsy |= 1 << seat;
            }
            let size = deal.hands[seat].len();
            let want = if deal.pooped[seat] {
                0
            } else {
                HAND_SIZE as usize
            };
            if size != want {
                return Err(bad(format!(
                    "hand {seat} must hold {want} cards{}, got {size}",
                    if deal.pooped[seat] {
                        " (the player is Pooped)"
                    } else {
                        ""
                    }
                )));
            }
            if deal.pooped[seat]
                && (!deal.drowsy[seat] || deal.scores[seat] <= rules.bust_threshold)
            {
                return Err(bad(format!(
                    "seat {seat} is Pooped, so it must be Drowsy too and keep a score above                      bust_threshold {} (H-6.2)",
                    rules.bust_threshold
                )));
            }
            if deal.scores[seat] > MAX_SCORE {
                return Err(bad(format!(
                    "score {} of seat {seat} is above the largest score {MAX_SCORE}",
                    deal.scores[seat]
                )));
            }
            state.scores[seat] = deal.scores[seat];
            if !deal.pooped[seat] && deal.scores[seat] > rules.bust_threshold {
                return Err(bad(format!(
                    "score {} of seat {seat} is above bust_threshold {} although the player is \
                     still in the game (H-6)",
                    deal.scores[seat], rules.bust_threshold
                )));
            }
        }
        if state.active_count() < 2 {
            return Err(bad(
                "at least two players must still be in the game (H-6.3)".into(),
            ));
        }
        if deal.dealer >= players || state.is_pooped(deal.dealer) {
            return Err(bad(format!(
                "dealer must be a seat still in the game, got {}",
                deal.dealer
            )));
        }
        if deal.hand_number > MAX_DEAL_HAND_NUMBER {
            return Err(bad(format!(
                "hand_number must be 0..={MAX_DEAL_HAND_NUMBER}, got {}",
                deal.hand_number
            )));
        }
        state.dealer = deal.dealer;
        state.hand_number = deal.hand_number;
        state.deck_len = deck_size;
        state.draw_pos = deck_size - deal.draw_pile.len() as u8;
        state.start_piles();
        Ok(state)
    }

    /// Build a checked position. The dealt part of the deck array, which nothing reads once
    /// dealt, holds the cards not in the draw pile in id order.
    pub(super) fn assemble(p: &Position<'_>) -> Self {
        let mut state = Self::empty(p.players, p.rules, SplitMix64::new(p.rng_state));
        state.hand_number = p.hand_number;
        state.dealer = p.dealer;
        state.scores = p.scores;
        state.drowsy = p.drowsy;
        state.pooped = p.pooped;
        state.hands = p.hands;
        let size = p.rules.deck_size();
        let in_pile = p.draw_pile.iter().fold(0u64, |a, &c| a | 1 << c);
        let start = size as usize - p.draw_pile.len();
        for (k, c) in (0..size).filter(|c| in_pile >> c & 1 == 0).enumerate() {
            state.deck[k] = c;
        }
        state.deck[start..size as usize].copy_from_slice(p.draw_pile);
        state.deck_len = size;
        state.draw_pos = start as u8;
        state.discard = p.discard;
        state.pile_number = p.pile_number;
        state.plays[..p.plays.len()].copy_from_slice(p.plays);
        state.n_plays = p.plays.len() as u8;
        state.highest = p.plays.iter().map(|q| q.value).max().unwrap_or(0);
        state.leader = p.leader;
        state.current = p.current;
        state.winner = p.winner;
        state
    }

    // ---- public reading -------------------------------------------------------------------

    pub fn rules(&self) -> &HeadRules {
        &self.rules
    }
    pub fn players(&self) -> u8 {
        self.players
    }
    pub fn is_over(&self) -> bool {
        self.winner.is_some()
    }
    pub fn winner(&self) -> Option<u8> {
        self.winner
    }
    /// The seat to move, `None` once the game is over.
    pub fn current_player(&self) -> Option<u8> {
        if self.is_over() {
            None
        } else {
            Some(self.current)
        }
    }
    pub fn hand_number(&self) -> u32 {
        self.hand_number
    }
    pub fn dealer(&self) -> u8 {
        self.dealer
    }
    pub fn leader(&self) -> u8 {
        self.leader
    }
    pub fn pile_number(&self) -> u8 {
        self.pile_number
    }
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.players as usize]
    }
    /// False for a seat that is not at the table.
    pub fn is_drowsy(&self, seat: u8) -> bool {
        (self.drowsy as u32).checked_shr(seat as u32).unwrap_or(0) & 1 != 0
    }
    /// False for a seat that is not at the table.
    pub fn is_pooped(&self, seat: u8) -> bool {
        (self.pooped as u32).checked_shr(seat as u32).unwrap_or(0) & 1 != 0
    }
    /// The hand of `seat`; empty for a seat that is not at the table.
    pub fn hand(&self, seat: u8) -> CardSet {
        self.hands.get(seat as usize).copied().unwrap_or(0)
    }
    /// The draw pile, top card first.
    pub fn draw_pile(&self) -> &[u8] {
        &self.deck[self.draw_pos as usize..self.deck_len as usize]
    }
    pub fn discard(&self) -> CardSet {
        self.discard
    }
    /// The plays on the pile in progress, in order.
    pub fn pile_plays(&self) -> &[Play] {
        &self.plays[..self.n_plays as usize]
    }
    /// Highest effective value on the current pile, `None` before the lead.
    pub fn highest(&self) -> Option<u8> {
        (self.n_plays > 0).then_some(self.highest)
    }
    pub fn rng_state(&self) -> u64 {
        self.rng.state
    }
    /// Number of players not Pooped.
    pub fn active_count(&self) -> u32 {
        self.players as u32 - self.pooped.count_ones()
    }

    // ---- determinization (crate-internal) -------------------------------------------------

    /// Replace what a determinization resamples: every hand, the order and content of the draw
    /// pile (same length), and the generator of later deals. The dealt part of the deck array
    /// (`deck[..draw_pos]`, read by nothing once dealt) is rewritten to the other cards in id
    /// order so the real deal does not survive in the sample.
    pub(crate) fn replace_hidden(
        &mut self,
        hands: &[CardSet; MAX_PLAYERS],
        pile: &[u8],
        rng_state: u64,
    ) {
        debug_assert_eq!(pile.len(), self.draw_pile().len());
        self.hands = *hands;
        let start = self.draw_pos as usize;
        self.deck[start..start + pile.len()].copy_from_slice(pile);
        let in_pile = pile.iter().fold(0u64, |a, &c| a | 1 << c);
        let mut k = 0;
        for c in 0..self.deck_len {
            if in_pile & (1 << c) == 0 {
                self.deck[k] = c;
                k += 1;
            }
        }
        debug_assert_eq!(k, start);
        self.rng = SplitMix64::new(rng_state);
    }

    // ---- moves ----------------------------------------------------------------------------

    /// The legal actions of the current player (empty once the game is over).
    #[inline]
    pub fn legal_actions(&self) -> ActionMask {
        if self.is_over() {
            return 0;
        }
        legal_mask(
            self.hands[self.current as usize],
            self.highest(),
            self.rules.lowest_only_when_cannot_follow,
        )
    }

    /// Apply an action after checking it; on error the state is unchanged.
    #[inline]
    pub fn apply(&mut self, id: ActionId) -> Result<Option<HandResult>, EngineError> {
        self.apply_with(id, &mut NoEvents)
    }

    /// [`Self::apply`], reporting what the move did to `sink` (nothing is pushed on error).
    pub fn apply_with(
        &mut self,
        id: ActionId,
        sink: &mut impl EventSink<HeadEvent>,
    ) -> Result<Option<HandResult>, EngineError> {
        if self.is_over() {
            return Err(EngineError::GameOver);
        }
        let legal = self.legal_actions();
        if (id as usize) >= NUM_ACTIONS || legal & (1 << id) == 0 {
            return Err(self.illegal(id, legal).into());
        }
        self.apply_legal_with(id, sink)
    }

    fn illegal(&self, id: ActionId, legal: ActionMask) -> IllegalMove {
        let requested = match Action::from_id(id) {
            Some(a) => a.notation(),
            None => format!("action id {id}"),
        };
        let reason = match Action::from_id(id) {
            None => format!("action ids are 0..={}", NUM_ACTIONS - 1),
            Some(a) => self.why_illegal(a),
        };
        IllegalMove {
            requested,
            reason,
            legal: mask_ids(legal)
                .map(|i| Action::from_id(i).map(Action::notation).unwrap_or_default())
                .collect(),
        }
    }

    fn why_illegal(&self, a: Action) -> String {
        let hand = self.hands[self.current as usize];
        let seat = self.current;
        let missing = match a {
            Action::Panda(v) | Action::PandaWithBamboo(v) if hand & cards::value_mask(v) == 0 => {
                Some(format!("Panda of value {v}"))
            }
            Action::PandaWithBamboo(_) | Action::BambooAlone if hand & BAMBOO_MASK == 0 => {
                Some("Bamboo".to_string())
            }
            Action::BigPanda if hand & BIG_PANDA_MASK == 0 => Some("Big Panda".to_string()),
            _ => None,
        };
        if let Some(card) = missing {
            return format!("seat {seat} holds no {card}");
        }
        match (a, self.highest()) {
            (Action::BambooAlone, _) => {
                "a Bamboo may be played alone only from a hand of nothing but Bamboo (H-4.4)".into()
            }
            (_, Some(h)) if self.rules.lowest_only_when_cannot_follow => format!(
                "it neither reaches the highest value {h} on the pile (option A) nor is allowed \
                 as the lowest Panda while an option-A play exists (H-3.2, \
                 lowest_only_when_cannot_follow)"
            ),
            (_, Some(h)) => format!(
                "it neither reaches the highest value {h} on the pile (option A) nor is the \
                 player's lowest Panda (option B, H-3.2)"
            ),
            _ => "it is not a legal lead (H-3.1)".into(),
        }
    }

    /// Apply an action known to be legal (from [`Self::legal_actions`]).
    ///
    /// The only failure left is an exhausted draw pile (H-4.6), detected before anything changes.
    #[inline]
    pub fn apply_legal(&mut self, id: ActionId) -> Result<Option<HandResult>, EngineError> {
        self.apply_legal_with(id, &mut NoEvents)
    }

    /// [`Self::apply_legal`], reporting what the move did to `sink` (nothing is pushed on
    /// error). With [`NoEvents`] every report compiles away.
    pub fn apply_legal_with<S: EventSink<HeadEvent>>(
        &mut self,
        id: ActionId,
        sink: &mut S,
    ) -> Result<Option<HandResult>, EngineError> {
        debug_assert!((id as usize) < NUM_ACTIONS && self.legal_actions() & (1 << id) != 0);
        let seat = self.current;
        let hand = self.hands[seat as usize];
        let leading = self.n_plays == 0;
        let (play_cards, value, draw_pos, replacement) = match Action::from_id(id) {
            Some(Action::Panda(v)) => {
                let card = 1u64 << cards::lowest(hand & cards::value_mask(v));
                (card, v, self.draw_pos, 0)
            }
            Some(Action::PandaWithBamboo(v)) => {
                // H-4.3: the play is worth v + 2 and the player draws one replacement card.
                let card = 1u64 << cards::lowest(hand & cards::value_mask(v));
                let bamboo = 1u64 << cards::lowest(hand & BAMBOO_MASK);
                if self.draw_pos >= self.deck_len {
                    return Err(EngineError::DrawPileExhausted);
                }
                let drawn = 1u64 << self.deck[self.draw_pos as usize];
                (card | bamboo, v + 2, self.draw_pos + 1, drawn)
            }
            Some(Action::BigPanda) => {
                let card = 1u64 << cards::lowest(hand & BIG_PANDA_MASK);
                if leading {
                    // H-4.1: the top regular Panda of the draw pile becomes the play.
                    let (turned, v, pos) = self.turn_up()?;
                    (card | turned, v, pos, 0)
                } else {
                    // H-4.2: one more than the highest so far, fixed now.
                    (card, self.highest + 1, self.draw_pos, 0)
                }
            }
            Some(Action::BambooAlone) => {
                // H-4.4: discarded, and the next regular Panda of the draw pile is the play.
                let card = 1u64 << cards::lowest(hand & BAMBOO_MASK);
                let (turned, v, pos) = self.turn_up()?;
                (card | turned, v, pos, 0)
            }
            // Not an action id: refused like an illegal action, the state unchanged.
            None => return Err(self.illegal(id, self.legal_actions()).into()),
        };
        if S::ENABLED {
            self.report_play(sink, id, play_cards, value, replacement);
        }
        // Commit: nothing below can fail.
        self.hands[seat as usize] = (hand & !play_cards) | replacement;
        self.draw_pos = draw_pos;
        self.plays[self.n_plays as usize] = Play {
            seat,
            action: id,
            value,
            cards: play_cards,
        };
        self.n_plays += 1;
        self.highest = self.highest.max(value);
        if (self.n_plays as u32) < self.active_count() {
            self.current = self.next_active(seat);
            return Ok(None);
        }
        Ok(self.complete_pile(sink))
    }

    /// The events of a play about to be committed (the state is still the one before it).
    fn report_play<S: EventSink<HeadEvent>>(
        &self,
        sink: &mut S,
        id: ActionId,
        play_cards: CardSet,
        value: u8,
        replacement: CardSet,
    ) {
        let player = self.current;
        let from_hand = play_cards & self.hands[player as usize];
        let turned = play_cards & !from_hand;
        let action = Action::from_id(id);
        let option = match self.highest() {
            None => PlayOption::Lead,
            Some(h) if value >= h => PlayOption::A,
            Some(_) if action == Some(Action::BambooAlone) => PlayOption::Forced,
            Some(_) => PlayOption::B,
        };
        sink.push(HeadEvent::Move {
            player,
            notation: Notation(id),
            action: id,
            round: self.hand_number,
            pile: self.pile_number,
            cards: Cards(from_hand),
            value,
            option,
        });
        let lowest_of = |mask: CardSet| cards::lowest(from_hand & mask);
        match action {
            Some(Action::BigPanda) => sink.push(HeadEvent::BigPanda {
                player,
                card: lowest_of(BIG_PANDA_MASK),
                led: option == PlayOption::Lead,
                value,
            }),
            Some(Action::PandaWithBamboo(_)) => sink.push(HeadEvent::Bamboo {
                player,
                card: lowest_of(BAMBOO_MASK),
                alone: false,
                bonus: 2,
            }),
            Some(Action::BambooAlone) => sink.push(HeadEvent::Bamboo {
                player,
                card: lowest_of(BAMBOO_MASK),
                alone: true,
                bonus: 0,
            }),
            _ => {}
        }
        if turned != 0 {
            sink.push(HeadEvent::TurnUp {
                player,
                discarded: Cards(turned & !REGULAR_MASK),
                card: cards::lowest(turned & REGULAR_MASK),
                value,
            });
        }
        if replacement != 0 {
            sink.push(HeadEvent::Draw {
                player,
                card: Some(cards::lowest(replacement)),
            });
        }
    }

    /// The `pile_won` event of the pile just completed (its plays still in place).
    fn pile_won_event(&self, winner: u8, points: u32) -> HeadEvent {
        HeadEvent::PileWon {
            round: self.hand_number,
            pile: self.pile_number,
            winner,
            value: self.highest,
            points,
            cards: Cards(self.pile_plays().iter().fold(0, |acc, p| acc | p.cards)),
        }
    }

    /// The `deal` event of the hand in progress, every hand shown (H-2.3).
    pub fn deal_event(&self) -> HeadEvent {
        HeadEvent::Deal {
            round: self.hand_number,
            dealer: self.dealer,
            leader: self.leader,
            hands: (0..self.players)
                .map(|s| Some(Cards(self.hand(s))))
                .collect(),
            draw_pile_size: self.draw_pile().len() as u8,
        }
    }

    /// Turn up draw-pile cards until a regular Panda appears (H-4.1): the cards turned (specials
    /// included), the Panda's value and the new draw position. Reads only.
    fn turn_up(&self) -> Result<(CardSet, u8, u8), EngineError> {
        let mut turned = 0u64;
        for pos in self.draw_pos..self.deck_len {
            let card = self.deck[pos as usize];
            turned |= 1 << card;
            if let CardKind::Regular(v) = kind(card) {
                return Ok((turned, v, pos + 1));
            }
        }
        Err(EngineError::DrawPileExhausted)
    }

    /// H-3.3: the last player to play the highest value wins the pile.
    ///
    /// A full scan with a conditional move rather than a search from the end: the search's
    /// random stopping point cost a branch misprediction per pile.
    fn pile_winner(&self) -> u8 {
        let mut winner = self.plays[0].seat;
        for p in self.pile_plays() {
            let take = ((p.value == self.highest) as u8).wrapping_neg(); // 0xff or 0
            winner = (p.seat & take) | (winner & !take);
        }
        winner
    }

    fn complete_pile<S: EventSink<HeadEvent>>(&mut self, sink: &mut S) -> Option<HandResult> {
        let winner = self.pile_winner();
        if self.pile_number + 1 < HAND_SIZE {
            if S::ENABLED {
                sink.push(self.pile_won_event(winner, 0));
            }
            for p in &self.plays[..self.n_plays as usize] {
                self.discard |= p.cards;
            }
            self.pile_number += 1;
            self.n_plays = 0;
            self.highest = 0;
            self.leader = winner;
            self.current = winner;
            return None;
        }
        Some(self.end_hand(winner, sink))
    }

    /// H-5 scoring of pile 7, H-6 Drowsy / Pooped, then the next deal or the end.
    fn end_hand<S: EventSink<HeadEvent>>(&mut self, winner: u8, sink: &mut S) -> HandResult {
        let n = self.players as usize;
        let top = self.highest;
        let mut deltas = [0i32; MAX_PLAYERS];
        let gain = match self.rules.last_pile_scoring {
            LastPileScoring::PileSum => self.pile_plays().iter().map(|p| p.value as u32).sum(),
            LastPileScoring::OwnCard => top as u32,
        };
        if S::ENABLED {
            sink.push(self.pile_won_event(winner, gain));
        }
        // Saturating: scores start at most at MAX_SCORE, far below the wrap, but never wrap.
        let won = &mut self.scores[winner as usize];
        *won = won.saturating_add(gain);
        deltas[winner as usize] = gain as i32;
        if self.rules.poor_panda {
            // H-5.3: the others who tied the top value lose it, never below zero.
            for i in 0..self.n_plays as usize {
                let p = self.plays[i];
                if p.seat != winner && p.value == top {
                    let loss = self.scores[p.seat as usize].min(top as u32);
                    self.scores[p.seat as usize] -= loss;
                    deltas[p.seat as usize] = -(loss as i32);
                    sink.push(HeadEvent::PoorPanda {
                        player: p.seat,
                        points: loss,
                    });
                }
            }
        }
        for p in &self.plays[..self.n_plays as usize] {
            self.discard |= p.cards;
        }
        self.n_plays = 0;
        // H-5.4 then H-6, with the scores after every change of the hand.
        let (mut new_drowsy, mut new_pooped) = (0u8, 0u8);
        for seat in 0..n {
            if self.is_pooped(seat as u8) || self.scores[seat] <= self.rules.bust_threshold {
                continue;
            }
            if self.is_drowsy(seat as u8) {
                // H-6.2: above the threshold again: Pooped, the score is kept.
                self.pooped |= 1 << seat;
                new_pooped |= 1 << seat;
                sink.push(HeadEvent::Pooped {
                    player: seat as u8,
                    score: self.scores[seat],
                });
            } else {
                // H-6.1: Drowsy, score down to the highest other score still in the game.
                self.drowsy |= 1 << seat;
                new_drowsy |= 1 << seat;
                let score_before = self.scores[seat];
                self.scores[seat] = (0..n)
                    .filter(|&o| o != seat && !self.is_pooped(o as u8))
                    .map(|o| self.scores[o])
                    .max()
                    .unwrap_or(0);
                sink.push(HeadEvent::Drowsy {
                    player: seat as u8,
                    score_before,
                    score: self.scores[seat],
                });
            }
        }
        let result = HandResult {
            hand: self.hand_number,
            dealer: self.dealer,
            last_pile_winner: winner,
            deltas,
            scores: self.scores,
            new_drowsy,
            new_pooped,
        };
        if S::ENABLED {
            sink.push(HeadEvent::RoundEnd {
                round: result.hand,
                dealer: result.dealer,
                last_pile_winner: winner,
                deltas: deltas[..n].to_vec(),
                scores: self.scores().to_vec(),
            });
        }
        if self.active_count() == 1 {
            // H-6.3
            let champion = self.next_active(self.players - 1);
            self.winner = Some(champion);
            if S::ENABLED {
                sink.push(HeadEvent::GameEnd {
                    winner: champion,
                    scores: self.scores().to_vec(),
                });
            }
        } else {
            // H-2.2: the deal passes clockwise, counting from the old dealer's seat.
            self.dealer = self.next_active(self.dealer);
            self.hand_number = self.hand_number.saturating_add(1);
            self.deal();
            if S::ENABLED {
                sink.push(self.deal_event());
            }
        }
        result
    }

    /// The next seat clockwise from `seat` (exclusive) that is still in the game.
    #[inline]
    fn next_active(&self, seat: u8) -> u8 {
        let mut s = seat;
        loop {
            s = if s + 1 == self.players { 0 } else { s + 1 };
            if self.pooped & (1 << s) == 0 {
                return s;
            }
        }
    }

    /// H-2.3: gather, shuffle and deal 7 cards one at a time from the dealer's left.
    fn deal(&mut self) {
        let size = self.rules.deck_size();
        let deck = &mut self.deck[..size as usize];
        for (i, slot) in deck.iter_mut().enumerate() {
            *slot = i as u8;
        }
        shuffle(deck, &mut self.rng);
        // The seats still in the game, in dealing order from the dealer's left.
        let mut order = [0u8; MAX_PLAYERS];
        let active = self.active_count() as usize;
        order[0] = self.next_active(self.dealer);
        for k in 1..active {
            order[k] = self.next_active(order[k - 1]);
        }
        self.hands = [0; MAX_PLAYERS];
        let dealt = HAND_SIZE as usize * active;
        // One flat loop with a wrapping seat counter: nested loops cost a misprediction at the
        // end of every round of the deal.
        let mut k = 0;
        for &card in &self.deck[..dealt] {
            self.hands[order[k] as usize] |= 1 << card;
            k = if k + 1 == active { 0 } else { k + 1 };
        }
        self.deck_len = size;
        self.draw_pos = dealt as u8;
        self.discard = 0;
        self.start_piles();
    }

    /// H-2.4: the player left of the dealer leads pile 1.
    fn start_piles(&mut self) {
        self.pile_number = 0;
        self.n_plays = 0;
        self.highest = 0;
        self.leader = self.next_active(self.dealer);
        self.current = self.leader;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_ids_and_seats_never_panic() {
        let mut st = HeadState::new(3, 4, HeadRules::default()).unwrap();
        let before = st.clone();
        for id in [24u8, 31, 32, 63, 64, 200, 255] {
            assert!(matches!(st.apply(id), Err(EngineError::Illegal(_))));
            // apply_legal's contract is a legal id (debug builds assert it); release builds
            // refuse a non-id instead of panicking.
            if !cfg!(debug_assertions) {
                assert!(matches!(st.apply_legal(id), Err(EngineError::Illegal(_))));
            }
        }
        assert_eq!(st, before);
        for seat in [3u8, 5, 8, 31, 200, 255] {
            assert_eq!(st.hand(seat), 0);
            assert!(!st.is_drowsy(seat) && !st.is_pooped(seat));
        }
    }

    /// H-4.6: with the draw pile emptied behind the engine's back, a Big Panda lead, a Bamboo
    /// alone and a Panda + Bamboo all fail loudly, leaving the state exactly as it was.
    #[test]
    fn h4_6_exhausted_draw_pile_fails_loudly_and_changes_nothing() {
        let hands = vec![
            vec![55, 59, 0, 5, 10, 15, 20],
            vec![60, 61, 62, 1, 6, 11, 16],
        ];
        let used: Vec<u8> = hands.iter().flatten().copied().collect();
        let draw_pile: Vec<u8> = (0..63).filter(|c| !used.contains(c)).collect();
        let deal = Deal {
            hands,
            draw_pile,
            dealer: 1,
            scores: vec![0, 0],
            drowsy: vec![false, false],
            pooped: vec![false, false],
            rng_state: 0,
            hand_number: 0,
        };
        let mut state = HeadState::from_deal(2, &deal, HeadRules::default()).unwrap();
        // Empty the pile but keep its regular cards unreachable: only specials remain on top.
        state.draw_pos = state.deck_len;
        let before = state.clone();
        for action in [Action::BigPanda, Action::PandaWithBamboo(1)] {
            assert_eq!(
                state.apply(action.id()),
                Err(EngineError::DrawPileExhausted)
            );
            assert_eq!(state, before);
        }
    }

    /// Fuzzing finding (`head_record` check): a deal at hand number `u32::MAX` overflowed the
    /// count when its hand ended. Such a deal is refused; the largest allowed one plays on.
    #[test]
    fn deal_hand_number_near_the_top_is_refused_not_overflowed() {
        let deal = |hand_number| Deal {
            hands: vec![(0..7).collect(), (7..14).collect()],
            draw_pile: (14..63).collect(),
            dealer: 0,
            scores: vec![0, 0],
            drowsy: vec![false, false],
            pooped: vec![false, false],
            rng_state: 3,
            hand_number,
        };
        for too_big in [MAX_DEAL_HAND_NUMBER + 1, u32::MAX] {
            let err = HeadState::from_deal(2, &deal(too_big), HeadRules::default()).unwrap_err();
            assert!(
                err.to_string().contains("hand_number must be 0..="),
                "{err}"
            );
        }
        let mut state =
            HeadState::from_deal(2, &deal(MAX_DEAL_HAND_NUMBER), HeadRules::default()).unwrap();
        while state.hand_number() == MAX_DEAL_HAND_NUMBER && !state.is_over() {
            let id = state.legal_actions().trailing_zeros() as u8;
            state.apply(id).unwrap();
        }
        assert!(state.is_over() || state.hand_number() == MAX_DEAL_HAND_NUMBER + 1);
    }

    #[test]
    fn h4_1_turn_up_skips_specials_and_never_loops_past_the_end() {
        let mut state = HeadState::new(2, 5, HeadRules::default()).unwrap();
        // Leave only specials in the draw pile: the turn-up must report exhaustion, not spin.
        let specials: Vec<u8> = (55..63)
            .filter(|&c| state.hand(0) & (1 << c) == 0 && state.hand(1) & (1 << c) == 0)
            .collect();
        for (i, &c) in specials.iter().enumerate() {
            state.deck[state.draw_pos as usize + i] = c;
        }
        state.deck_len = state.draw_pos + specials.len() as u8;
        assert_eq!(state.turn_up(), Err(EngineError::DrawPileExhausted));
    }
}
