//! The climbing-game state machine: setup (S-3), the turn procedure (contract §4), symbols (S-7),
//! element and wind cards (S-8), show-outs (S-9) and the end of the game (S-10).
//!
//! The state is fixed-size apart from the play to beat's named ranks (inline for every real
//! deck), so cloning it for search is cheap. The game's history and round results live one level
//! up, in [`super::recorded::ClimbGame`]: [`ClimbState::apply_legal`] reports a finished round (or the
//! end of the game) and the caller records it. The `_with` variants ([`ClimbState::new_with`],
//! [`ClimbState::apply_with`], [`ClimbState::apply_legal_with`]) also report what happened as
//! [`ClimbEvent`]s; the plain ones pass [`NoEvents`], so the hot paths build no event at all.
//!
//! Three concerns of the same type live in their own files: the legal-move list
//! ([`super::legal`]), the panda choices it expands ([`super::expand`]) and the reason a move is
//! refused ([`super::diagnose`]).

use super::cards::{
    self, bit, cards_of_suits, count, CardSet, ALL_CARDS, ANIMALS, ELEMENT_BASE, NUM_SUITS,
};
use super::combo::{classify_play, Combo};
use super::deck::Deck;
use super::event::{CardFace, ClimbEvent, ComboValue, PassReason};
use super::moves::{Kind, Move, MAX_PLAYERS};
use super::rules::{
    ClimbSettings, Preset, SPIN_SYMBOL_CAP, SPIN_WIN, YEAR_GAME_END, YEAR_SHOW_OUT_CAP,
};
use crate::error::EngineError;
use crate::event::{EventSink, NoEvents};
use crate::rng::{shuffle, SplitMix64};

/// The play to beat and the seat that made it (contract §7 `to_beat`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableCombo {
    pub player: u8,
    pub combo: Combo,
}

/// What a finished round (or the round in progress when the game ended) looked like at its end
/// (contract §7 round result).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundResult {
    pub round: u32,
    pub starter: u8,
    pub players: u8,
    /// Seats in the order they showed out; `shown_out[..n_shown]`.
    pub shown_out: [u8; MAX_PLAYERS],
    pub n_shown: u8,
    pub hand_sizes: [u32; MAX_PLAYERS],
    pub scores: [u32; MAX_PLAYERS],
}

impl RoundResult {
    pub fn shown_out(&self) -> &[u8] {
        &self.shown_out[..self.n_shown as usize]
    }
    pub fn hand_sizes(&self) -> &[u32] {
        &self.hand_sizes[..self.players as usize]
    }
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.players as usize]
    }
}

/// A game of `year` or `spin` in progress.
#[derive(Clone, Debug)]
pub struct ClimbState {
    pub(super) settings: ClimbSettings,
    pub(super) players: u8,
    pub(super) seed: u64,
    pub(super) rng: SplitMix64,
    /// Bit `s` per suit in play (S-3.1; all five in `spin`).
    pub(super) suits: u8,
    pub(super) round: u32,
    pub(super) starter: u8,
    pub(super) scores: [u32; MAX_PLAYERS],
    pub(super) hands: [CardSet; MAX_PLAYERS],
    /// Cards in hands or on the table that show the blue face.
    pub(super) blue: CardSet,
    /// The round's shuffled deck; the draw pile is `pile[pile_pos..pile_end]`, top first.
    pub(super) pile: [u8; cards::NUM_CARDS as usize],
    pub(super) pile_pos: u8,
    pub(super) pile_end: u8,
    pub(super) discard: CardSet,
    pub(super) out: CardSet,
    // ---- the trick (contract §4) ----
    pub(super) leader: Option<u8>,
    pub(super) to_beat: Option<TableCombo>,
    pub(super) holder: Option<u8>,
    /// Bit per seat that passed this trick.
    pub(super) passed: u8,
    pub(super) played: [CardSet; MAX_PLAYERS],
    pub(super) current: Option<u8>,
    // ---- round and game ----
    pub(super) shown_out: [u8; MAX_PLAYERS],
    pub(super) n_shown: u8,
    pub(super) game_over: bool,
    pub(super) winner: Option<u8>,
    /// The scores when the round in progress began: the round end reports the change since
    /// (not part of the §7 snapshot; rebuilt from the last round result).
    pub(super) round_start_scores: [u32; MAX_PLAYERS],
}

impl ClimbState {
    /// A new game (contract §2, §3): generator at `seed`, setup, round 1 dealt.
    pub fn new(players: u8, seed: u64, settings: ClimbSettings) -> Result<Self, EngineError> {
        Self::new_with(players, seed, settings, &mut NoEvents)
    }

    /// [`Self::new`], reporting the first round's start and deal ([`ClimbEvent::RoundStart`],
    /// [`ClimbEvent::Deal`]) to `events`.
    pub fn new_with(
        players: u8,
        seed: u64,
        settings: ClimbSettings,
        events: &mut impl EventSink<ClimbEvent>,
    ) -> Result<Self, EngineError> {
        settings.validate_for(players)?;
        let n = players as usize;
        let mut st = Self {
            settings,
            players,
            seed,
            rng: SplitMix64::new(seed),
            suits: 0x1F,
            round: 0,
            starter: 0,
            scores: [0; MAX_PLAYERS],
            hands: [0; MAX_PLAYERS],
            blue: 0,
            pile: [0; cards::NUM_CARDS as usize],
            pile_pos: 0,
            pile_end: 0,
            discard: 0,
            out: 0,
            leader: None,
            to_beat: None,
            holder: None,
            passed: 0,
            played: [0; MAX_PLAYERS],
            current: None,
            shown_out: [0; MAX_PLAYERS],
            n_shown: 0,
            game_over: false,
            winner: None,
            round_start_scores: [0; MAX_PLAYERS],
        };
        let first = st.settings.first_player as usize;
        let starter = match st.settings.preset {
            Preset::Year => {
                // S-3.1: the k-th element card goes to seat first_player + k; with two players a
                // third is taken for nobody. The suits taken are in play for the whole game.
                let mut els: [u8; NUM_SUITS] = std::array::from_fn(|s| ELEMENT_BASE + s as u8);
                shuffle(&mut els, &mut st.rng);
                let taken = if n == 2 { 3 } else { n };
                st.suits = els[..taken]
                    .iter()
                    .fold(0, |m, &e| m | 1 << (e - ELEMENT_BASE));
                st.out = ALL_CARDS & !cards_of_suits(st.suits);
                // S-3.2: the owner of the lowest-numbered card starts (the third card of a
                // 2-player game is nobody's, reading 31).
                let deck = &st.settings.deck;
                let k = (0..n)
                    .min_by_key(|&k| deck.element(els[k] - ELEMENT_BASE).number)
                    .expect("at least two players");
                ((first + k) % n) as u8
            }
            Preset::Spin => first as u8,
        };
        st.start_round(starter, 1, events);
        Ok(st)
    }

    // ---- accessors ----------------------------------------------------------------------------

    pub fn settings(&self) -> &ClimbSettings {
        &self.settings
    }
    pub fn deck(&self) -> &Deck {
        &self.settings.deck
    }
    pub fn players(&self) -> u8 {
        self.players
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn rng_state(&self) -> u64 {
        self.rng.state
    }
    pub fn suits_in_play(&self) -> u8 {
        self.suits
    }
    pub fn round(&self) -> u32 {
        self.round
    }
    pub fn starter(&self) -> u8 {
        self.starter
    }
    pub fn scores(&self) -> &[u32] {
        &self.scores[..self.players as usize]
    }
    /// The scores when the round in progress began (what its round end measures changes from).
    pub fn round_start_scores(&self) -> &[u32] {
        &self.round_start_scores[..self.players as usize]
    }
    /// The hand of `seat`; empty for a seat that is not at the table.
    pub fn hand(&self, seat: u8) -> CardSet {
        self.hands.get(seat as usize).copied().unwrap_or(0)
    }
    pub fn hand_size(&self, seat: u8) -> u32 {
        count(self.hand(seat))
    }
    pub fn blue(&self) -> CardSet {
        self.blue
    }
    /// The draw pile, top card first.
    pub fn draw_pile(&self) -> &[u8] {
        &self.pile[self.pile_pos as usize..self.pile_end as usize]
    }
    pub fn discard(&self) -> CardSet {
        self.discard
    }
    pub fn out(&self) -> CardSet {
        self.out
    }
    pub fn leader(&self) -> Option<u8> {
        self.leader
    }
    pub fn to_beat(&self) -> Option<&TableCombo> {
        self.to_beat.as_ref()
    }
    pub fn holder(&self) -> Option<u8> {
        self.holder
    }
    pub fn passed(&self) -> u8 {
        self.passed
    }
    /// The cards `seat` has on the table this trick; empty for a seat that is not at the table.
    pub fn played(&self, seat: u8) -> CardSet {
        self.played.get(seat as usize).copied().unwrap_or(0)
    }
    pub fn current_player(&self) -> Option<u8> {
        self.current
    }
    pub fn shown_out(&self) -> &[u8] {
        &self.shown_out[..self.n_shown as usize]
    }
    pub fn is_over(&self) -> bool {
        self.game_over
    }
    pub fn winner(&self) -> Option<u8> {
        self.winner
    }

    /// The result of the round in progress, as it stands.
    pub fn round_result(&self) -> RoundResult {
        let mut hand_sizes = [0; MAX_PLAYERS];
        for (s, h) in hand_sizes
            .iter_mut()
            .enumerate()
            .take(self.players as usize)
        {
            *h = count(self.hands[s]);
        }
        RoundResult {
            round: self.round,
            starter: self.starter,
            players: self.players,
            shown_out: self.shown_out,
            n_shown: self.n_shown,
            hand_sizes,
            scores: self.scores,
        }
    }

    // ---- setup ----------------------------------------------------------------------------------

    /// Contract §3, every round: gather, (spin) deal the winds, shuffle and deal, first trick.
    fn start_round<E: EventSink<ClimbEvent>>(&mut self, starter: u8, round: u32, events: &mut E) {
        let n = self.players as usize;
        let s = starter as usize;
        self.round = round;
        self.starter = starter;
        self.round_start_scores = self.scores;
        self.hands = [0; MAX_PLAYERS];
        self.blue = 0;
        self.discard = 0;
        self.n_shown = 0;
        self.shown_out = [0; MAX_PLAYERS];
        let deck_cards = match self.settings.preset {
            Preset::Year => cards_of_suits(self.suits),
            Preset::Spin => {
                // S-3.3: the k-th wind goes to seat starter + k; the rest are out this round.
                let mut winds: [u8; NUM_SUITS] = std::array::from_fn(|s| ELEMENT_BASE + s as u8);
                shuffle(&mut winds, &mut self.rng);
                self.out = 0;
                for (k, &w) in winds.iter().enumerate() {
                    if k < n {
                        self.hands[(s + k) % n] |= bit(w);
                    } else {
                        self.out |= bit(w);
                    }
                }
                ANIMALS
            }
        };
        let mut len = 0;
        for id in cards::ids(deck_cards) {
            self.pile[len] = id;
            len += 1;
        }
        shuffle(&mut self.pile[..len], &mut self.rng);
        let dealt = self.settings.preset.hand_size() as usize * n;
        for i in 0..dealt {
            self.hands[(s + i) % n] |= bit(self.pile[i]);
        }
        self.pile_pos = dealt as u8;
        self.pile_end = len as u8;
        if E::ENABLED {
            self.report_deal(events);
        }
        self.begin_trick(starter);
    }

    /// The round's start and each seat's cards, clockwise from the starter (S-3.3, S-3.4).
    fn report_deal(&self, events: &mut impl EventSink<ClimbEvent>) {
        // Events number rounds from 0, as every game's events do (the state counts from 1).
        events.push(ClimbEvent::RoundStart {
            round: self.round.saturating_sub(1),
            starter: self.starter,
            draw_pile_size: self.draw_pile().len() as u32,
        });
        for i in 0..self.players {
            let q = (self.starter + i) % self.players;
            let hand = self.hands[q as usize];
            events.push(ClimbEvent::Deal {
                player: q,
                count: count(hand),
                cards: Some(hand),
            });
        }
    }

    /// Begin trick (contract §4): the leader is the first seat clockwise from `first` (included)
    /// with cards; the seats skipped are not marked passed (reading 16).
    fn begin_trick(&mut self, first: u8) {
        self.to_beat = None;
        self.holder = None;
        self.passed = 0;
        self.played = [0; MAX_PLAYERS];
        let n = self.players;
        let leader = (0..n)
            .map(|i| (first + i) % n)
            .find(|&q| self.hands[q as usize] != 0);
        debug_assert!(
            leader.is_some(),
            "a trick begins only while two seats hold cards"
        );
        self.leader = leader;
        self.current = leader;
    }

    /// Bamboo and panda symbols on the faces `cards` show now.
    #[inline]
    pub(super) fn symbols(&self, set: CardSet) -> (u32, u32) {
        let deck = &*self.settings.deck;
        cards::ids(set & ANIMALS).fold((0, 0), |(b, p), id| {
            let f = deck.face_in(id, self.blue);
            // Saturating: a deck file may repeat symbols without limit.
            (b.saturating_add(f.bamboo), p.saturating_add(f.panda))
        })
    }

    // ---- applying moves -----------------------------------------------------------------------

    /// Apply a move after checking it is legal; on error the state is unchanged. Returns the
    /// round result when the move ended a round or the game.
    pub fn apply(&mut self, mv: &Move) -> Result<Option<RoundResult>, EngineError> {
        self.apply_with(mv, &mut NoEvents)
    }

    /// [`Self::apply`], reporting what the move did to `events` (nothing on error).
    pub fn apply_with(
        &mut self,
        mv: &Move,
        events: &mut impl EventSink<ClimbEvent>,
    ) -> Result<Option<RoundResult>, EngineError> {
        if self.game_over {
            return Err(EngineError::GameOver);
        }
        let legal = self.try_legal_moves()?;
        if legal.binary_search(mv).is_err() {
            return Err(self.illegal(mv, &legal).into());
        }
        Ok(self.apply_legal_with(mv, events))
    }

    /// Apply a move taken from [`Self::legal_moves`] of this state (contract §4).
    ///
    /// A move that is not legal here is a caller's bug: debug builds assert; release builds
    /// never panic (a combination that does not classify, or a finished game, changes nothing).
    pub fn apply_legal(&mut self, mv: &Move) -> Option<RoundResult> {
        self.apply_legal_with(mv, &mut NoEvents)
    }

    /// [`Self::apply_legal`], reporting what the move did to `events`: [`ClimbEvent::Move`]
    /// first, then its effects in the order they happen (see [`super::event`]).
    pub fn apply_legal_with<E: EventSink<ClimbEvent>>(
        &mut self,
        mv: &Move,
        events: &mut E,
    ) -> Option<RoundResult> {
        let Some(p) = self.current else {
            debug_assert!(false, "a legal move exists only while the game runs");
            return None;
        };
        let pi = p as usize;
        match mv.kind {
            Kind::Pass => {
                if E::ENABLED {
                    events.push(self.move_event(p, mv, None));
                }
                self.pass_seat(p, PassReason::Chosen, events);
                self.advance(p, events)
            }
            Kind::DiscardElement => {
                if E::ENABLED {
                    events.push(self.move_event(p, mv, None));
                    events.push(discard_event(p, mv.cards));
                }
                // S-6.5: a discard does not end the turn, unless it empties the hand.
                self.hands[pi] &= !mv.cards;
                self.discard |= mv.cards;
                if self.hands[pi] == 0 {
                    self.pass_seat(p, PassReason::EmptyHand, events);
                    self.advance(p, events)
                } else {
                    None
                }
            }
            Kind::Element => {
                if E::ENABLED {
                    events.push(self.move_event(p, mv, None));
                }
                self.hands[pi] &= !mv.cards;
                self.draw(p, 2, events);
                self.holder = Some(p);
                match self.settings.preset {
                    Preset::Year => {
                        // S-8.1: the element wins the trick at once.
                        self.played[pi] |= mv.cards;
                        self.end_trick(Some(p), events)
                    }
                    Preset::Spin => {
                        // S-8.2: the wind and the player's cards of this trick are discarded; the
                        // player holds the trick, the play to beat stays.
                        if E::ENABLED {
                            events.push(discard_event(p, self.played[pi] | mv.cards));
                            events.push(ClimbEvent::TrickHeld { player: p });
                        }
                        self.discard |= self.played[pi] | mv.cards;
                        self.blue &= !self.played[pi];
                        self.played[pi] = 0;
                        self.advance(p, events)
                    }
                }
            }
            _ => {
                let beaten = self.holder;
                let leading = self.to_beat.is_none();
                let Some(combo) =
                    classify_play(self.deck(), mv.cards, self.blue, &mv.named, leading)
                else {
                    debug_assert!(false, "a legal combination classifies");
                    return None;
                };
                debug_assert_eq!(combo.kind(), mv.kind);
                if E::ENABLED {
                    events.push(self.move_event(p, mv, Some(&combo)));
                }
                let (bamboo, pandas) = self.symbols(mv.cards);
                self.hands[pi] &= !mv.cards;
                self.played[pi] |= mv.cards;
                // S-7.1: bamboo first.
                let gained = match self.settings.preset {
                    Preset::Year => bamboo,
                    Preset::Spin => bamboo.min(SPIN_SYMBOL_CAP.saturating_sub(self.scores[pi])),
                };
                self.gain(p, gained);
                if E::ENABLED && bamboo > 0 {
                    events.push(ClimbEvent::Bamboo {
                        player: p,
                        symbols: bamboo,
                        points: gained,
                        score: self.scores[pi],
                    });
                }
                if self.settings.hungry() {
                    // S-7.2: each panda moves one point from the holder of the play beaten.
                    if let Some(b) = beaten {
                        let t = pandas.min(self.scores[b as usize]);
                        self.scores[b as usize] -= t;
                        self.gain(p, t);
                        if E::ENABLED && t > 0 {
                            events.push(ClimbEvent::Steal {
                                player: p,
                                victim: b,
                                points: t,
                            });
                        }
                    }
                } else if self.settings.flips() {
                    // S-7.3: the chosen white cards of the hand turn blue.
                    self.blue |= mv.flip;
                    if E::ENABLED && mv.flip != 0 {
                        events.push(ClimbEvent::Flip {
                            player: p,
                            cards: mv.flip,
                        });
                    }
                } else {
                    // S-7.4: one point from each victim.
                    for v in mv.steal.seats() {
                        self.scores[v as usize] -= 1;
                        self.gain(p, 1);
                    }
                    if E::ENABLED {
                        report_steals(p, mv, events);
                    }
                }
                self.to_beat = Some(TableCombo { player: p, combo });
                self.holder = Some(p);
                self.advance(p, events)
            }
        }
    }

    /// The [`ClimbEvent::Move`] of `mv` by `p`, before it changes anything (the faces shown).
    fn move_event(&self, p: u8, mv: &Move, combo: Option<&Combo>) -> ClimbEvent {
        ClimbEvent::Move {
            player: p,
            mv: mv.clone(),
            kind: mv.kind,
            cards: mv.cards,
            blue: mv.cards & self.blue,
            combo: combo.map(|c| ComboValue {
                rank: c.shape.rank,
                units: c.shape.units,
                length: c.shape.length,
                copies: c.shape.copies,
                named: c.named.clone(),
                has_blue: c.has_blue,
            }),
        }
    }

    /// Add points to a score. Saturating: a hand-built position may start near `u32::MAX`, and
    /// arithmetic on it must not wrap or panic.
    #[inline]
    fn gain(&mut self, seat: u8, points: u32) {
        let s = &mut self.scores[seat as usize];
        *s = s.saturating_add(points);
    }

    /// Draw up to `k` cards from the top of the pile into `p`'s hand (S-8.1, S-8.2).
    fn draw<E: EventSink<ClimbEvent>>(&mut self, p: u8, k: u8, events: &mut E) {
        let take = k.min(self.pile_end - self.pile_pos);
        let mut drawn = 0;
        for _ in 0..take {
            drawn |= bit(self.pile[self.pile_pos as usize]);
            self.pile_pos += 1;
        }
        self.hands[p as usize] |= drawn;
        if E::ENABLED && take > 0 {
            events.push(ClimbEvent::Draw {
                player: p,
                count: take as u32,
                cards: Some(drawn),
            });
        }
    }

    /// Pass(q) (S-6.3): white cards played this trick come back blue; with any blue card among
    /// them, all go to the discard pile.
    fn pass_seat<E: EventSink<ClimbEvent>>(&mut self, q: u8, reason: PassReason, events: &mut E) {
        let qi = q as usize;
        self.passed |= 1 << q;
        if E::ENABLED {
            events.push(ClimbEvent::Pass { player: q, reason });
        }
        let played = self.played[qi];
        if played != 0 {
            if played & self.blue == 0 {
                self.hands[qi] |= played;
                self.blue |= played & ANIMALS;
                if E::ENABLED {
                    events.push(ClimbEvent::Return {
                        player: q,
                        cards: played,
                        face: CardFace::Blue,
                    });
                }
            } else {
                self.discard |= played;
                self.blue &= !played;
                if E::ENABLED {
                    events.push(discard_event(q, played));
                }
            }
            self.played[qi] = 0;
        }
    }

    /// Advance(p) (contract §4): the next seat to decide, passing empty hands, or the trick end.
    fn advance<E: EventSink<ClimbEvent>>(&mut self, p: u8, events: &mut E) -> Option<RoundResult> {
        let n = self.players;
        for step in 1..=n {
            let q = (p + step) % n;
            if self.holder == Some(q) {
                return self.end_trick(Some(q), events);
            }
            if self.passed & (1 << q) != 0 {
                continue;
            }
            if self.hands[q as usize] == 0 {
                self.pass_seat(q, PassReason::EmptyHand, events);
                continue;
            }
            self.current = Some(q);
            return None;
        }
        self.end_trick(None, events)
    }

    /// End trick (contract §4, S-9.4).
    fn end_trick<E: EventSink<ClimbEvent>>(
        &mut self,
        winner: Option<u8>,
        events: &mut E,
    ) -> Option<RoundResult> {
        let n = self.players;
        if E::ENABLED {
            events.push(ClimbEvent::TrickEnd { winner });
        }
        if let Some(w) = winner {
            let wi = w as usize;
            if E::ENABLED && self.played[wi] != 0 {
                events.push(discard_event(w, self.played[wi]));
            }
            self.discard |= self.played[wi];
            self.blue &= !self.played[wi];
            self.played[wi] = 0;
            // Forced passes (S-8.1): everyone still in the trick.
            for i in 1..n {
                let q = (w + i) % n;
                if self.passed & (1 << q) == 0 {
                    self.pass_seat(q, PassReason::Forced, events);
                }
            }
        }
        // S-9.1, S-9.2: show-outs clockwise from the winner (or the trick's first leader).
        let largest = (0..n)
            .map(|s| count(self.hands[s as usize]))
            .max()
            .unwrap_or(0);
        let gain = match self.settings.preset {
            Preset::Year => largest.min(YEAR_SHOW_OUT_CAP),
            Preset::Spin => largest,
        };
        let first = winner
            .or(self.leader)
            .expect("a trick always has a first leader");
        for i in 0..n {
            let q = (first + i) % n;
            if self.hands[q as usize] == 0 && !self.shown_out().contains(&q) {
                self.shown_out[self.n_shown as usize] = q;
                self.n_shown += 1;
                self.gain(q, gain);
                if E::ENABLED {
                    events.push(ClimbEvent::ShowOut {
                        player: q,
                        points: gain,
                        score: self.scores[q as usize],
                    });
                }
                // S-10.2: the first to reach 20 by showing out wins; later seats do not show out.
                if self.settings.preset == Preset::Spin && self.scores[q as usize] >= SPIN_WIN {
                    return Some(self.finish(q, events));
                }
            }
        }
        // S-10.1: 15 points end `year` at a trick end, before the round-end check.
        if self.settings.preset == Preset::Year && self.scores().iter().any(|&s| s >= YEAR_GAME_END)
        {
            let w = self.year_winner();
            return Some(self.finish(w, events));
        }
        // S-9.3: the round ends when at most one seat holds cards.
        let holding = (0..n).filter(|&s| self.hands[s as usize] != 0).count();
        if holding <= 1 {
            let result = self.round_result();
            if E::ENABLED {
                events.push(self.round_end_event(&result));
            }
            let next = self.next_starter();
            self.start_round(next, self.round.saturating_add(1), events);
            return Some(result);
        }
        self.begin_trick(first);
        None
    }

    /// The [`ClimbEvent::RoundEnd`] of `result`, with the changes since the round began.
    fn round_end_event(&self, result: &RoundResult) -> ClimbEvent {
        let deltas = result
            .scores()
            .iter()
            .zip(&self.round_start_scores)
            .map(|(&now, &then)| now as i64 - then as i64)
            .collect();
        ClimbEvent::RoundEnd {
            round: result.round.saturating_sub(1),
            scores: result.scores().to_vec(),
            deltas,
            shown_out: result.shown_out().to_vec(),
            hand_sizes: result.hand_sizes().to_vec(),
        }
    }

    /// S-10.1: highest score; ties to the tied seat that showed out first this round, then the
    /// fewest cards in hand, then the lowest seat.
    fn year_winner(&self) -> u8 {
        let top = *self.scores().iter().max().expect("players >= 2");
        let tied: Vec<u8> = (0..self.players)
            .filter(|&s| self.scores[s as usize] == top)
            .collect();
        if let Some(&s) = self.shown_out().iter().find(|s| tied.contains(s)) {
            return s;
        }
        *tied
            .iter()
            .min_by_key(|&&s| (count(self.hands[s as usize]), s))
            .expect("someone has the top score")
    }

    /// S-3.5: the fewest points; ties to the first such seat clockwise from the previous starter.
    fn next_starter(&self) -> u8 {
        let n = self.players;
        (0..n)
            .map(|i| (self.starter + i) % n)
            .min_by_key(|&q| (self.scores[q as usize], (q + n - self.starter) % n))
            .expect("players >= 2")
    }

    /// Game over (contract §4): the result of the round in progress; nothing left on the table.
    fn finish<E: EventSink<ClimbEvent>>(&mut self, winner: u8, events: &mut E) -> RoundResult {
        let result = self.round_result();
        self.game_over = true;
        self.winner = Some(winner);
        self.current = None;
        self.leader = None;
        self.to_beat = None;
        self.holder = None;
        self.passed = 0;
        debug_assert!(self.played.iter().all(|&p| p == 0));
        self.played = [0; MAX_PLAYERS];
        if E::ENABLED {
            events.push(self.round_end_event(&result));
            events.push(ClimbEvent::GameEnd {
                winner,
                scores: self.scores().to_vec(),
            });
        }
        result
    }
}

/// The [`ClimbEvent::Discard`] of `cards` of seat `player`.
fn discard_event(player: u8, cards: CardSet) -> ClimbEvent {
    ClimbEvent::Discard { player, cards }
}

/// One [`ClimbEvent::Steal`] per victim of a `spin` panda, with the points taken (S-7.4).
fn report_steals(p: u8, mv: &Move, events: &mut impl EventSink<ClimbEvent>) {
    for (v, &times) in mv.steal.0.iter().enumerate() {
        if times > 0 {
            events.push(ClimbEvent::Steal {
                player: p,
                victim: v as u8,
                points: times as u32,
            });
        }
    }
}

#[cfg(test)]
mod tests;
