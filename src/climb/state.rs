//! The climbing-game state machine: setup (S-3), the turn procedure (contract §4), symbols (S-7),
//! element and wind cards (S-8), show-outs (S-9) and the end of the game (S-10).
//!
//! The state is fixed-size apart from the play to beat's named ranks (inline for every real
//! deck), so cloning it for search is cheap. The game's history and round results live one level
//! up, in [`super::game::ClimbGame`]: [`ClimbState::apply_legal`] reports a finished round (or the
//! end of the game) and the caller records it.

use super::cards::{
    self, bit, cards_of_suits, count, suit_of, CardSet, ALL_CARDS, ANIMALS, ELEMENTS, ELEMENT_BASE,
    NUM_SUITS,
};
use super::combo::{classify_play, condition_holds, Combo};
use super::deck::Deck;
use super::movegen::{self, TooMany, MAX_LEGAL_MOVES};
use super::moves::{Kind, Move, Steal, MAX_PLAYERS};
use super::rules::{
    ClimbSettings, Preset, SPIN_SYMBOL_CAP, SPIN_WIN, YEAR_GAME_END, YEAR_SHOW_OUT_CAP,
};
use crate::error::{EngineError, IllegalMove, StateError};
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
}

impl ClimbState {
    /// A new game (contract §2, §3): generator at `seed`, setup, round 1 dealt.
    pub fn new(players: u8, seed: u64, settings: ClimbSettings) -> Result<Self, EngineError> {
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
        st.start_round(starter, 1);
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
    fn start_round(&mut self, starter: u8, round: u32) {
        let n = self.players as usize;
        let s = starter as usize;
        self.round = round;
        self.starter = starter;
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
        self.begin_trick(starter);
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

    // ---- legal moves ------------------------------------------------------------------------

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

    /// Replace each combination with panda symbols by its flip (S-7.3) or steal (S-7.4) choices.
    /// The base moves are sorted and distinct, and the choices of one base are generated in
    /// canonical order, so the result stays sorted.
    fn expand_pandas(&self, p: u8, start: usize, out: &mut Vec<Move>) -> Result<(), TooMany> {
        let deck = &*self.settings.deck;
        let has_panda = out[start..]
            .iter()
            .any(|m| cards::ids(m.cards).any(|id| deck.face_in(id, self.blue).panda > 0));
        if !has_panda {
            return Ok(());
        }
        let base: Vec<Move> = out.split_off(start);
        let hand = self.hands[p as usize];
        for m in base {
            let (bamboo, pandas) = self.symbols(m.cards);
            if pandas == 0 {
                out.push(m);
                continue;
            }
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

    /// Bamboo and panda symbols on the faces `cards` show now.
    #[inline]
    fn symbols(&self, set: CardSet) -> (u32, u32) {
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
        if self.game_over {
            return Err(EngineError::GameOver);
        }
        let legal = self.try_legal_moves()?;
        if legal.binary_search(mv).is_err() {
            return Err(self.illegal(mv, &legal).into());
        }
        Ok(self.apply_legal(mv))
    }

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
                        let (_, wild, _) = super::combo::units_of(self.deck(), mv.cards, self.blue);
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

    /// Apply a move taken from [`Self::legal_moves`] of this state (contract §4).
    ///
    /// A move that is not legal here is a caller's bug: debug builds assert; release builds
    /// never panic (a combination that does not classify, or a finished game, changes nothing).
    pub fn apply_legal(&mut self, mv: &Move) -> Option<RoundResult> {
        let Some(p) = self.current else {
            debug_assert!(false, "a legal move exists only while the game runs");
            return None;
        };
        let pi = p as usize;
        match mv.kind {
            Kind::Pass => {
                self.pass_seat(p);
                self.advance(p)
            }
            Kind::DiscardElement => {
                // S-6.5: a discard does not end the turn, unless it empties the hand.
                self.hands[pi] &= !mv.cards;
                self.discard |= mv.cards;
                if self.hands[pi] == 0 {
                    self.pass_seat(p);
                    self.advance(p)
                } else {
                    None
                }
            }
            Kind::Element => {
                self.hands[pi] &= !mv.cards;
                self.draw(p, 2);
                self.holder = Some(p);
                match self.settings.preset {
                    Preset::Year => {
                        // S-8.1: the element wins the trick at once.
                        self.played[pi] |= mv.cards;
                        self.end_trick(Some(p))
                    }
                    Preset::Spin => {
                        // S-8.2: the wind and the player's cards of this trick are discarded; the
                        // player holds the trick, the play to beat stays.
                        self.discard |= self.played[pi] | mv.cards;
                        self.blue &= !self.played[pi];
                        self.played[pi] = 0;
                        self.advance(p)
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
                let (bamboo, pandas) = self.symbols(mv.cards);
                self.hands[pi] &= !mv.cards;
                self.played[pi] |= mv.cards;
                // S-7.1: bamboo first.
                match self.settings.preset {
                    Preset::Year => self.gain(p, bamboo),
                    Preset::Spin => {
                        let s = self.scores[pi];
                        self.gain(p, bamboo.min(SPIN_SYMBOL_CAP.saturating_sub(s)));
                    }
                }
                if self.settings.hungry() {
                    // S-7.2: each panda moves one point from the holder of the play beaten.
                    if let Some(b) = beaten {
                        let t = pandas.min(self.scores[b as usize]);
                        self.scores[b as usize] -= t;
                        self.gain(p, t);
                    }
                } else if self.settings.flips() {
                    // S-7.3: the chosen white cards of the hand turn blue.
                    self.blue |= mv.flip;
                } else {
                    // S-7.4: one point from each victim.
                    for v in mv.steal.seats() {
                        self.scores[v as usize] -= 1;
                        self.gain(p, 1);
                    }
                }
                self.to_beat = Some(TableCombo { player: p, combo });
                self.holder = Some(p);
                self.advance(p)
            }
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
    fn draw(&mut self, p: u8, k: u8) {
        let take = k.min(self.pile_end - self.pile_pos);
        for _ in 0..take {
            self.hands[p as usize] |= bit(self.pile[self.pile_pos as usize]);
            self.pile_pos += 1;
        }
    }

    /// Pass(q) (S-6.3): white cards played this trick come back blue; with any blue card among
    /// them, all go to the discard pile.
    fn pass_seat(&mut self, q: u8) {
        let qi = q as usize;
        self.passed |= 1 << q;
        let played = self.played[qi];
        if played != 0 {
            if played & self.blue == 0 {
                self.hands[qi] |= played;
                self.blue |= played & ANIMALS;
            } else {
                self.discard |= played;
                self.blue &= !played;
            }
            self.played[qi] = 0;
        }
    }

    /// Advance(p) (contract §4): the next seat to decide, passing empty hands, or the trick end.
    fn advance(&mut self, p: u8) -> Option<RoundResult> {
        let n = self.players;
        for step in 1..=n {
            let q = (p + step) % n;
            if self.holder == Some(q) {
                return self.end_trick(Some(q));
            }
            if self.passed & (1 << q) != 0 {
                continue;
            }
            if self.hands[q as usize] == 0 {
                self.pass_seat(q);
                continue;
            }
            self.current = Some(q);
            return None;
        }
        self.end_trick(None)
    }

    /// End trick (contract §4, S-9.4).
    fn end_trick(&mut self, winner: Option<u8>) -> Option<RoundResult> {
        let n = self.players;
        if let Some(w) = winner {
            let wi = w as usize;
            self.discard |= self.played[wi];
            self.blue &= !self.played[wi];
            self.played[wi] = 0;
            // Forced passes (S-8.1): everyone still in the trick.
            for i in 1..n {
                let q = (w + i) % n;
                if self.passed & (1 << q) == 0 {
                    self.pass_seat(q);
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
                // S-10.2: the first to reach 20 by showing out wins; later seats do not show out.
                if self.settings.preset == Preset::Spin && self.scores[q as usize] >= SPIN_WIN {
                    return Some(self.finish(q));
                }
            }
        }
        // S-10.1: 15 points end `year` at a trick end, before the round-end check.
        if self.settings.preset == Preset::Year && self.scores().iter().any(|&s| s >= YEAR_GAME_END)
        {
            let w = self.year_winner();
            return Some(self.finish(w));
        }
        // S-9.3: the round ends when at most one seat holds cards.
        let holding = (0..n).filter(|&s| self.hands[s as usize] != 0).count();
        if holding <= 1 {
            let result = self.round_result();
            let next = self.next_starter();
            self.start_round(next, self.round.saturating_add(1));
            return Some(result);
        }
        self.begin_trick(first);
        None
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
    fn finish(&mut self, winner: u8) -> RoundResult {
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
        result
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::game::ClimbGame;
    use crate::climb::rules::Mood;
    use crate::climb::snapshot::{from_snapshot, snapshot};

    fn all_settings() -> Vec<ClimbSettings> {
        vec![
            ClimbSettings::preset(Preset::Year),
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
            ClimbSettings::preset(Preset::Spin).with_mood(Mood::Flip),
        ]
    }

    /// Every card id in exactly one place (contract §7).
    fn check_places(st: &ClimbState) {
        let n = st.players as usize;
        let mut seen: CardSet = 0;
        let pile = st.draw_pile().iter().fold(0, |a, &c| a | bit(c));
        assert_eq!(pile.count_ones() as usize, st.draw_pile().len());
        let places =
            st.hands[..n]
                .iter()
                .chain(st.played[..n].iter())
                .chain([&pile, &st.discard, &st.out]);
        for &set in places {
            assert_eq!(seen & set, 0, "a card in two places");
            seen |= set;
        }
        assert_eq!(seen, ALL_CARDS, "a card in no place");
        let on = st.hands[..n]
            .iter()
            .chain(st.played[..n].iter())
            .fold(0, |a, &h| a | h);
        assert_eq!(
            st.blue & !(on & ANIMALS),
            0,
            "blue only in hands and on the table"
        );
    }

    /// Play random games to the end, checking invariants after every move; returns the number
    /// of decisions.
    fn random_game(players: u8, seed: u64, settings: &ClimbSettings, check_snapshots: bool) -> u32 {
        let mut game = ClimbGame::new(players, seed, settings.clone()).unwrap();
        let mut rng = SplitMix64::new(seed ^ 0x55);
        let mut decisions = 0;
        let mut prev_blue = game.state().blue;
        let mut prev_round = game.state().round;
        while let Some(p) = game.state().current_player() {
            let st = game.state();
            check_places(st);
            assert!(st.hands[p as usize] != 0, "the current player holds cards");
            let legal = st.legal_moves();
            assert!(!legal.is_empty());
            assert!(
                legal.windows(2).all(|w| w[0] < w[1]),
                "canonical order, no duplicate"
            );
            if check_snapshots {
                let snap = game.snapshot();
                let (rebuilt, results) = from_snapshot(&snap, st.settings.deck.clone()).unwrap();
                assert_eq!(snapshot(&rebuilt, &results), snap);
                assert_eq!(rebuilt.legal_moves(), legal);
            }
            let mv = legal[(rng.next() % legal.len() as u64) as usize].clone();
            game.apply(&mv).unwrap();
            decisions += 1;
            let st = game.state();
            // Faces only go white -> blue within a round: a blue card stays blue while it is in
            // a hand or on the table.
            if st.round == prev_round {
                let n = st.players as usize;
                let on = st.hands[..n]
                    .iter()
                    .chain(st.played[..n].iter())
                    .fold(0, |a, &h| a | h);
                assert_eq!(prev_blue & on & !st.blue, 0, "a card turned back to white");
            }
            prev_blue = st.blue;
            prev_round = st.round;
            assert!(decisions < 1_000_000, "the game does not end");
        }
        let st = game.state();
        check_places(st);
        let w = st.winner.unwrap();
        match settings.preset {
            Preset::Year => {
                let top = *st.scores().iter().max().unwrap();
                assert!(top >= YEAR_GAME_END);
                assert_eq!(st.scores[w as usize], top);
            }
            Preset::Spin => assert!(st.scores[w as usize] >= SPIN_WIN),
        }
        assert_eq!(game.round_results().len() as u32, st.round);
        assert_eq!(game.round_results().last().unwrap().scores(), st.scores());
        // The record replays to the same position.
        let text = crate::climb::record::to_json(&game);
        let again = crate::climb::record::from_json(&text).unwrap();
        assert_eq!(again.snapshot(), game.snapshot());
        decisions
    }

    #[test]
    fn random_games_end_with_invariants() {
        for settings in all_settings() {
            for players in 2..=5u8 {
                let seeds = if cfg!(debug_assertions) { 2 } else { 6 };
                for seed in 0..seeds {
                    random_game(players, seed * 7919 + players as u64, &settings, seed == 0);
                }
            }
        }
    }

    #[test]
    fn r2_r3_setup_draws_in_contract_order() {
        // year: elements shuffled first (4 draws), then the round deck (len - 1 draws).
        let st = ClimbState::new(4, 42, ClimbSettings::preset(Preset::Year)).unwrap();
        let mut g = SplitMix64::new(42);
        let mut els = [65u8, 66, 67, 68, 69];
        shuffle(&mut els, &mut g);
        let suits = els[..4].iter().fold(0u8, |m, &e| m | 1 << (e - 65));
        assert_eq!(st.suits, suits);
        let mut deck: Vec<u8> = cards::ids(cards_of_suits(suits)).collect();
        shuffle(&mut deck, &mut g);
        assert_eq!(st.rng.state, g.state);
        // S-3.2: the owner of the lowest number (Fire 1 … Metal 5 in the shipped deck).
        let k = (0..4).min_by_key(|&k| els[k]).unwrap();
        assert_eq!(st.starter, k as u8);
        assert_eq!(st.current, Some(k as u8));
        for (i, &c) in deck[..48].iter().enumerate() {
            assert!(st.hands[(k + i) % 4] >> c & 1 == 1);
        }
        assert_eq!(st.draw_pile(), &deck[48..]);
        // spin: winds then the 65 animal cards, both from the starter.
        let st = ClimbState::new(
            3,
            7,
            ClimbSettings {
                first_player: 2,
                ..ClimbSettings::preset(Preset::Spin)
            },
        )
        .unwrap();
        let mut g = SplitMix64::new(7);
        let mut winds = [65u8, 66, 67, 68, 69];
        shuffle(&mut winds, &mut g);
        let mut deck: Vec<u8> = (0..65).collect();
        shuffle(&mut deck, &mut g);
        assert_eq!(st.rng.state, g.state);
        assert!(st.hands[2] >> winds[0] & 1 == 1);
        assert!(st.hands[0] >> winds[1] & 1 == 1);
        assert_eq!(st.out, bit(winds[3]) | bit(winds[4]));
        assert!(st.hands[2] >> deck[0] & 1 == 1);
        assert_eq!(st.hand_size(0), 12);
        assert_eq!(st.draw_pile().len(), 65 - 33);
        // 2-player year: three suits, 42 cards, 18 in the pile.
        let st = ClimbState::new(2, 1, ClimbSettings::preset(Preset::Year)).unwrap();
        assert_eq!(st.suits.count_ones(), 3);
        assert_eq!(st.draw_pile().len(), 18);
        assert_eq!(st.out.count_ones(), 28);
    }

    #[test]
    fn settings_are_checked() {
        assert!(ClimbState::new(1, 0, ClimbSettings::default()).is_err());
        assert!(ClimbState::new(6, 0, ClimbSettings::default()).is_err());
        let s = ClimbSettings {
            first_player: 3,
            ..ClimbSettings::default()
        };
        assert!(ClimbState::new(3, 0, s).is_err());
    }

    // ---- rule scenarios on hand-built positions ---------------------------------------------
    // Ids: Fire r = r, Earth 13 + r, Wood 26 + r, Water 39 + r, Metal 52 + r, elements 65 + suit.
    // Rank indices: 3→0 … 10→7, J→8, Q→9, K→10, A→11, 2→12.

    fn set_of(ids: &[u8]) -> CardSet {
        ids.iter().fold(0, |a, &c| a | bit(c))
    }

    /// A position with all suits in play: the given hands, faces, pile and scores; every other
    /// card discarded; `first` leads the first trick of round 1.
    fn position(
        settings: ClimbSettings,
        hands: &[&[u8]],
        blue: &[u8],
        pile: &[u8],
        scores: &[u32],
        first: u8,
    ) -> ClimbState {
        let n = hands.len() as u8;
        let mut st = ClimbState::new(n, 1, settings).unwrap();
        st.suits = 0x1F;
        st.out = 0;
        st.hands = [0; MAX_PLAYERS];
        for (s, h) in hands.iter().enumerate() {
            st.hands[s] = set_of(h);
        }
        st.blue = set_of(blue);
        st.pile[..pile.len()].copy_from_slice(pile);
        st.pile_pos = 0;
        st.pile_end = pile.len() as u8;
        let held = st.hands.iter().fold(set_of(pile), |a, &h| a | h);
        st.discard = ALL_CARDS & !held;
        st.scores = [0; MAX_PLAYERS];
        st.scores[..scores.len()].copy_from_slice(scores);
        st.n_shown = 0;
        st.round = 1;
        st.starter = first;
        st.begin_trick(first);
        check_places(&st);
        st
    }

    fn year() -> ClimbSettings {
        ClimbSettings::preset(Preset::Year)
    }

    /// Apply a move given in notation, checking it is legal.
    fn play(st: &mut ClimbState, text: &str) -> Option<RoundResult> {
        let m = crate::climb::notation::parse_move(text).unwrap();
        let r = st.apply(&m).unwrap_or_else(|e| panic!("{text}: {e}"));
        check_places(st);
        r
    }

    fn legal(st: &ClimbState) -> Vec<String> {
        st.legal_moves().iter().map(Move::notation).collect()
    }

    #[test]
    fn s6_3_white_cards_come_back_blue_and_s6_4_the_holder_wins() {
        let mut st = position(
            year(),
            &[&[0, 2], &[14, 19], &[29, 33]],
            &[],
            &[],
            &[0; 3],
            0,
        );
        assert!(
            !legal(&st).contains(&"pass".to_string()),
            "the leader may not pass (S-6.1)"
        );
        play(&mut st, "single Fi3");
        play(&mut st, "single Ea4");
        play(&mut st, "pass");
        assert_eq!(st.current, Some(0));
        play(&mut st, "pass");
        // Seat 0 passed with a white card on the table: it comes back blue (S-6.3). Seat 1 won:
        // its card is discarded and it leads (S-6.4).
        assert_eq!(st.hands[0], set_of(&[0, 2]));
        assert_eq!(st.blue, bit(0));
        assert!(st.discard >> 14 & 1 == 1);
        assert_eq!(
            (st.leader, st.current, st.to_beat.is_none()),
            (Some(1), Some(1), true)
        );
        // Reading 19: seat 1 plays its last card; when the turn reaches it with an empty hand it
        // passes automatically and the white card comes back blue, so it does not show out.
        play(&mut st, "single Ea9");
        play(&mut st, "single Wo10");
        // Seat 0's blue Fire 3 is 10 + wild: two units, never a single (S-1.5).
        assert_eq!(legal(&st), ["pass"]);
        play(&mut st, "pass");
        assert_eq!(st.hands[1], bit(19));
        assert!(st.blue >> 19 & 1 == 1);
        assert_eq!((st.leader, st.current), (Some(2), Some(2)));
        assert!(st.shown_out().is_empty());
    }

    #[test]
    fn s7_2_hungry_panda_takes_from_the_holder() {
        // Blue Earth 9 is K + panda.
        let mut st = position(
            year(),
            &[&[0, 5], &[19, 20], &[29]],
            &[19],
            &[],
            &[2, 0, 5],
            0,
        );
        play(&mut st, "single Fi3");
        play(&mut st, "single Ea9");
        assert_eq!(st.scores(), &[1, 1, 5]);
        // Leading with a panda takes nothing.
        let mut st = position(year(), &[&[19, 20], &[0], &[29]], &[19], &[], &[0, 3, 3], 0);
        play(&mut st, "single Ea9");
        assert_eq!(st.scores(), &[0, 3, 3]);
    }

    #[test]
    fn s7_3_flip_panda_choices_are_moves() {
        let settings = year().with_mood(Mood::Flip);
        // Blue Earth 3 is 7 + panda; the white Fire 4 and Wood 4 may be flipped.
        let mut st = position(
            settings,
            &[&[13, 1, 27], &[2], &[3]],
            &[13],
            &[],
            &[0; 3],
            0,
        );
        let l = legal(&st);
        let singles: Vec<&String> = l.iter().filter(|m| m.starts_with("single Ea3")).collect();
        assert_eq!(
            singles,
            ["single Ea3", "single Ea3 flip Fi4", "single Ea3 flip Wo4"]
        );
        play(&mut st, "single Ea3 flip Wo4");
        assert_eq!(st.blue & set_of(&[1, 27]), bit(27));
    }

    #[test]
    fn s7_4_spin_steals_and_the_19_point_cap() {
        let spin = ClimbSettings::preset(Preset::Spin);
        // Room for one point under 19; seat 2 has nothing to steal.
        let st = position(
            spin.clone(),
            &[&[13, 35], &[1], &[2]],
            &[13, 35],
            &[],
            &[18, 2, 0],
            0,
        );
        let l = legal(&st);
        assert!(l.contains(&"single Ea3 steal 1".to_string()));
        assert!(
            !l.contains(&"single Ea3".to_string()),
            "steals are compulsory"
        );
        // Blue Earth 3 (7 + panda) and blue Wood Q (7 + bamboo): the bamboo fills the room first,
        // so no steal is left (S-7.1, S-10.2).
        assert!(l.contains(&"set Ea3+WoQ".to_string()));
        let mut st2 = st.clone();
        play(&mut st2, "set Ea3+WoQ");
        assert_eq!(st2.scores(), &[19, 2, 0]);
        // Two pandas (blue Earth 3 and 4 make the run 7 8): two victims, a multiset of seats,
        // each at most as often as its points.
        let st = position(
            spin,
            &[&[13, 14], &[1], &[2]],
            &[13, 14],
            &[],
            &[0, 1, 2],
            0,
        );
        let runs: Vec<String> = legal(&st)
            .into_iter()
            .filter(|m| m.starts_with("run Ea3+Ea4"))
            .collect();
        assert_eq!(runs, ["run Ea3+Ea4 steal 1+2", "run Ea3+Ea4 steal 2+2"]);
    }

    #[test]
    fn s8_1_year_element_wins_the_trick() {
        // Earth element: condition `single`.
        let mut st = position(
            year(),
            &[&[0, 5], &[66, 20], &[30, 31]],
            &[],
            &[40, 41, 42],
            &[0; 3],
            0,
        );
        play(&mut st, "single Fi3");
        let l = legal(&st);
        assert!(
            l.contains(&"element Ea!".to_string())
                && l.contains(&"discard_element Ea!".to_string())
        );
        play(&mut st, "element Ea!");
        // Drew two, won at once; the forced pass returned seat 0's white card blue.
        assert_eq!(st.hands[1], set_of(&[20, 40, 41]));
        assert_eq!(st.draw_pile(), &[42]);
        assert!(st.discard >> 66 & 1 == 1);
        assert_eq!(st.hands[0], set_of(&[0, 5]));
        assert!(st.blue & 1 == 1);
        assert_eq!((st.leader, st.current), (Some(1), Some(1)));
        assert_eq!(st.passed, 0);
    }

    #[test]
    fn s8_2_spin_wind_holds_the_trick_and_the_play_stays() {
        let spin = ClimbSettings::preset(Preset::Spin);
        let mut st = position(
            spin,
            &[&[0, 5], &[66, 20], &[30, 31]],
            &[],
            &[40, 41],
            &[0; 3],
            0,
        );
        play(&mut st, "single Fi3");
        play(&mut st, "element Ea!");
        assert_eq!(st.holder, Some(1));
        assert_eq!(st.to_beat.as_ref().unwrap().player, 0);
        assert_eq!(st.hands[1], set_of(&[20, 40, 41]));
        assert_eq!(st.current, Some(2));
        play(&mut st, "pass");
        // The maker of the play is a follower like any other.
        assert_eq!(st.current, Some(0));
        assert!(legal(&st).contains(&"single Fi8".to_string()));
        play(&mut st, "pass");
        // Back to the holder: the trick ends, the wind player leads.
        assert_eq!((st.leader, st.current), (Some(1), Some(1)));
        assert!(st.blue & 1 == 1, "seat 0's white Fire 3 came back blue");
    }

    #[test]
    fn s9_show_out_and_s3_5_next_round() {
        // Seat 0 wins its last card: it shows out at the trick end and scores the largest hand.
        let mut st = position(year(), &[&[5], &[26, 27]], &[], &[], &[0, 0], 0);
        play(&mut st, "single Fi8");
        let result = play(&mut st, "pass").expect("the round ends: one seat holds cards");
        assert_eq!(result.shown_out(), &[0]);
        assert_eq!(result.scores(), &[2, 0]);
        assert_eq!(result.hand_sizes(), &[0, 2]);
        // Round 2 is dealt; the fewest points start it.
        assert_eq!((st.round, st.starter, st.current), (2, 1, Some(1)));
        assert_eq!(st.hand_size(0), 12);
    }

    #[test]
    fn s10_1_year_ends_at_15_with_the_show_out_tie_break() {
        let mut st = position(year(), &[&[5], &[26, 27], &[28]], &[], &[], &[14, 15, 0], 0);
        play(&mut st, "single Fi8");
        play(&mut st, "pass");
        let result = play(&mut st, "pass").expect("the game ends");
        assert!(st.is_over());
        // Seat 0 reached 15 (largest hand 2? no: min(2, 7) = 2 → 16): the highest score wins.
        assert_eq!(st.scores(), &[16, 15, 0]);
        assert_eq!(st.winner, Some(0));
        assert_eq!(result.round, 1);
        assert_eq!((st.current, st.leader), (None, None));
        assert!(st.legal_moves().is_empty());
        // A tie at the top goes to the seat that showed out first.
        let mut st = position(year(), &[&[5], &[26, 27]], &[], &[], &[13, 15], 0);
        play(&mut st, "single Fi8");
        play(&mut st, "pass");
        assert_eq!((st.scores(), st.winner), (&[15, 15][..], Some(0)));
    }

    #[test]
    fn s6_6_a_leader_with_only_element_cards_discards_them() {
        let mut st = position(year(), &[&[65], &[1], &[2, 3]], &[], &[], &[0; 3], 0);
        assert_eq!(legal(&st), ["discard_element Fi!"]);
        play(&mut st, "discard_element Fi!");
        // The next seat with cards leads the same trick; the first leader is kept.
        assert_eq!((st.current, st.leader, st.passed), (Some(1), Some(0), 1));
        play(&mut st, "single Fi4");
        let result = play(&mut st, "pass").expect("one seat holds cards");
        // Show-outs clockwise from the winner: seat 1 (played out), then seat 0.
        assert_eq!(result.shown_out(), &[1, 0]);
        assert_eq!(result.scores(), &[2, 2, 0]);
    }

    #[test]
    fn contract_5_3_a_position_beyond_the_move_limit_is_refused() {
        // Hand-built: every animal card, white, in one hand. Its formations alone (ten pairs per
        // rank, 10^5 per five-rank window) exceed the limit.
        let all: Vec<u8> = (0..65).collect();
        let mut st = position(year(), &[&all, &[]], &[], &[], &[0, 0], 0);
        let e = st.try_legal_moves().unwrap_err();
        assert!(
            matches!(&e, EngineError::State(m) if m.0.contains(&MAX_LEGAL_MOVES.to_string())),
            "{e}"
        );
        let mut buf = vec![Move::pass()];
        assert!(st.try_legal_moves_into(&mut buf).is_err());
        assert!(buf.is_empty());
        // The infallible list is a bounded, canonical list of legal moves (here the search-node
        // budget stops the general search a little before the move limit).
        let some = st.legal_moves();
        assert!(some.len() > MAX_LEGAL_MOVES / 2 && some.len() <= MAX_LEGAL_MOVES);
        assert!(some.windows(2).all(|w| w[0] < w[1]));
        for m in some.iter().step_by(9973) {
            let c = classify_play(st.deck(), m.cards, st.blue, &m.named, true).unwrap();
            assert_eq!(c.kind(), m.kind);
        }
        // A checked apply refuses, and changes nothing.
        let before = st.clone();
        assert!(matches!(st.apply(&some[0]), Err(EngineError::State(_))));
        assert_eq!(snapshot(&st, &[]), snapshot(&before, &[]));
        // The snapshot of such a position is refused where it enters.
        let e = from_snapshot(&snapshot(&st, &[]), st.settings.deck.clone()).unwrap_err();
        assert!(e.0.contains("legal moves"), "{e}");
    }

    #[test]
    fn arbitrary_moves_are_refused_without_panic_and_change_nothing() {
        // Issue 8 item 3: any Move value (ids past 69, element cards in combinations, named
        // ranks past 12, steals from any seat) is either legal or refused with the state
        // unchanged.
        let mut g = SplitMix64::new(21);
        for settings in all_settings() {
            let mut game = ClimbGame::new(4, 3, settings).unwrap();
            for _ in 0..if cfg!(debug_assertions) { 60 } else { 400 } {
                if game.state().is_over() {
                    break;
                }
                for _ in 0..20 {
                    let kind = Kind::parse(Kind::NAMES[(g.next() % 8) as usize]).unwrap();
                    let wide = g.next() as u128 | (g.next() as u128) << 64;
                    let hand = game.state().hand(game.state().current_player().unwrap());
                    let cards = match g.next() % 4 {
                        0 => wide,
                        1 => wide & ALL_CARDS,
                        2 => wide & hand,
                        _ => bit((g.next() % 128) as u8) | (hand & wide & ELEMENTS),
                    };
                    let named: Vec<u8> = (0..g.next() % 4).map(|_| g.next() as u8).collect();
                    let mv = Move {
                        kind,
                        cards,
                        named: crate::climb::moves::Ranks::from_slice(&named),
                        flip: if g.next() % 2 == 0 {
                            0
                        } else {
                            wide.rotate_left(7)
                        },
                        steal: Steal(std::array::from_fn(|_| (g.next() % 3) as u8 * 100)),
                    };
                    let before = game.snapshot();
                    if game.state().clone().apply(&mv).is_err() {
                        let mut copy = game.state().clone();
                        let _ = copy.apply(&mv);
                        assert_eq!(snapshot(&copy, game.round_results()), before);
                    }
                    let _ = crate::climb::combo::classify_play(
                        game.state().deck(),
                        cards,
                        wide,
                        &mv.named,
                        g.next() % 2 == 0,
                    );
                    let _ = mv.notation();
                    let _ = crate::climb::encoding::move_features(
                        game.state(),
                        std::slice::from_ref(&mv),
                    );
                    let _ = crate::climb::encoding::action_index(game.state(), &mv);
                }
                let legal = game.legal_moves();
                let mv = legal[(g.next() % legal.len() as u64) as usize].clone();
                game.apply(&mv).unwrap();
            }
        }
    }

    #[test]
    fn contract_5_3_panda_flips_stop_at_the_limit() {
        // A deck that passes validation but whose blue Fire 3 carries 24 pandas: in year/flip it
        // alone could flip any subset of the 23 white cards beside it (2^23 moves).
        let mut doc = Deck::reconstructed().doc().clone();
        let entry = doc["cards"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|c| c["id"] == 0)
            .unwrap();
        entry["blue"] = serde_json::json!({"units": ["10"], "symbols": vec!["panda"; 24]});
        let deck = std::sync::Arc::new(Deck::from_json_value(&doc, "pandas.json").unwrap());
        let settings = ClimbSettings {
            deck,
            ..year().with_mood(Mood::Flip)
        };
        let hand: Vec<u8> = (0..24).collect();
        let st = position(settings, &[&hand, &[30]], &[0], &[], &[0, 0], 0);
        assert!(matches!(st.try_legal_moves(), Err(EngineError::State(_))));
        assert_eq!(st.legal_moves().len(), MAX_LEGAL_MOVES);
    }

    #[test]
    fn s6_5_discarding_does_not_end_the_turn() {
        let mut st = position(year(), &[&[65, 67, 4], &[1], &[2]], &[], &[], &[0; 3], 0);
        play(&mut st, "discard_element Fi!");
        assert_eq!(st.current, Some(0));
        assert_eq!(legal(&st), ["discard_element Wo!", "single Fi7"]);
    }
}

#[cfg(test)]
mod measure {
    use super::*;
    use crate::climb::game::ClimbGame;
    use crate::climb::rules::Mood;

    /// The largest legal-move count in random games (run with --release --ignored).
    #[test]
    #[ignore]
    fn measure_largest_legal_move_counts() {
        let settings = [
            ClimbSettings::preset(Preset::Year),
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
        ];
        for s in settings {
            for players in 2..=5u8 {
                let mut max = 0usize;
                let mut max_hand = 0u32;
                let mut positions = 0u64;
                for seed in 0..3000u64 {
                    let mut game = ClimbGame::new(players, seed, s.clone()).unwrap();
                    let mut rng = SplitMix64::new(seed ^ 0xABCD);
                    let mut legal = Vec::new();
                    while let Some(p) = game.state().current_player() {
                        game.state().legal_moves_into(&mut legal);
                        positions += 1;
                        max = max.max(legal.len());
                        max_hand = max_hand.max(count(game.state().hand(p) & ANIMALS));
                        let mv = legal[(rng.next() % legal.len() as u64) as usize].clone();
                        game.apply(&mv).unwrap();
                    }
                }
                eprintln!(
                    "{:?} {:?} players {players}: {positions} positions, max legal {max}, max animal hand {max_hand}",
                    s.preset, s.mood
                );
            }
        }
    }
}
