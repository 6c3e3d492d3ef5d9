//! Determinization for Panda Head: a full state sampled from what one player knows.
//!
//! Search over a game of hidden information (ISMCTS, [`crate::search`]) needs complete states
//! that agree with everything the searching player has seen. For Panda Head the observer knows
//! their own hand, every play of the hand so far (the cards of completed piles and of the pile in
//! progress, turned-up cards included), scores, hand sizes and the draw pile's size. Hidden from
//! them: the other players' current hands, the order of the undrawn pile, and which cards the
//! others drew as replacements (H-4.3).
//!
//! A sample must also be *consistent*: every play an opponent made this hand must have been legal
//! for the hand they held then. A play below the highest value was an option-B play, so they held
//! no lower regular Panda; a Bamboo alone means a hand of nothing but Bamboo; under
//! `lowest_only_when_cannot_follow` a B play means no option-A play existed. Cards drawn after a
//! play are exempt from what that play implies.
//!
//! ## Method
//!
//! *Exact* ([`Determinizer::sample`], first): shuffle the unknown cards uniformly into the
//! opponents' current hands (sizes known) and the draw pile, then accept iff every opponent has a
//! consistent backward history: walk their plays of this hand backwards from the sampled hand,
//! undoing each play by adding its cards back and each replacement draw by removing *some* card
//! of the hand (a small depth-first search over which one), and check with
//! [`legal_mask`] that each play was legal for the hand reconstructed at that moment. Rejection
//! keeps the accepted samples uniform over the consistent states.
//!
//! *Fallback*: when strong inferences make acceptance rare (more than
//! [`REJECTION_ATTEMPTS`] failures in a row), the sampler switches for good to a Markov chain
//! over the same states: swap the cards of two hidden slots and keep the swap only if the result
//! is still consistent. The chain starts from the true state (consistent by definition), burns in
//! for [`BURN_IN_SWEEPS`] sweeps and runs [`CHAIN_SWEEPS`] more sweeps between two samples. The
//! swap proposal is symmetric, so the chain's stationary law is uniform over the consistent states
//! it can reach; after finitely many steps it is only *approximately* uniform (and leans towards
//! the true state when the chain mixes slowly). Every sample it returns is consistent.
//!
//! Copies of one value are interchangeable (H-1.4) and legality depends on kinds only, so the
//! check works on kinds: the search over replacement cards tries one card per kind. The identity
//! of the copy played (always the lowest id held) is not treated as information.
//!
//! The generator of later deals is reseeded from `rng`, so a search never plays the real future
//! deals.

use super::action::{ActionId, WITH_BAMBOO_FIRST};
use super::cards::{value_mask, CardSet, BAMBOO_MASK, BIG_PANDA_FIRST, BIG_PANDA_MASK, COPIES};
use super::legal::legal_mask;
use super::recorded::{HeadGame, Start};
use super::state::{HeadState, MAX_PLAYERS};
use crate::error::{EngineError, StateError};
use crate::rng::{index_below, SplitMix64};

/// Rejected samples in a row before the sampler falls back to the Markov chain.
pub const REJECTION_ATTEMPTS: u32 = 400;
/// Sweeps (one swap proposal per hidden card) of the chain before its first sample.
pub const BURN_IN_SWEEPS: usize = 30;
/// Sweeps of the chain between two samples.
pub const CHAIN_SWEEPS: usize = 4;

/// The state at the start of the hand in progress and every action of that hand so far.
///
/// This is all a determinization needs, without a [`HeadGame`]: the batch simulator and search
/// keep one up to date with [`HandLog::observe`].
#[derive(Clone, Debug)]
pub struct HandLog {
    start: HeadState,
    actions: Vec<(u8, ActionId)>,
}

impl HandLog {
    /// A log whose hand starts at `start` (a state before the first play of a hand).
    pub fn new(start: HeadState) -> Self {
        Self {
            start,
            actions: Vec::with_capacity(40),
        }
    }

    pub fn start(&self) -> &HeadState {
        &self.start
    }
    pub fn actions(&self) -> &[(u8, ActionId)] {
        &self.actions
    }

    /// Record `action` about to be applied to `before` by the player to move. A new hand (or a
    /// log of another hand) restarts the log at `before`.
    pub fn observe(&mut self, before: &HeadState, action: ActionId) {
        let Some(seat) = before.current_player() else {
            return;
        };
        if !self.is_hand_of(before) {
            self.reset(before);
        }
        self.actions.push((seat, action));
    }

    /// Make sure the log is about the hand of `state`, restarting it at `state` when it is not
    /// (which is right only when `state` is at the start of a hand).
    pub fn sync(&mut self, state: &HeadState) {
        if !self.is_hand_of(state) {
            self.reset(state);
        }
    }

    fn is_hand_of(&self, state: &HeadState) -> bool {
        self.start.hand_number() == state.hand_number()
            && self.start.players() == state.players()
            && !(state.pile_number() == 0
                && state.pile_plays().is_empty()
                && !self.actions.is_empty())
    }

    fn reset(&mut self, state: &HeadState) {
        self.start = state.clone();
        self.actions.clear();
    }

    /// The log of the hand in progress of `game` (replays the game's history when needed).
    pub fn from_game(game: &HeadGame) -> Self {
        let now = game.state();
        if now.is_over() || (now.pile_number() == 0 && now.pile_plays().is_empty()) {
            return Self::new(now.clone());
        }
        let rules = *now.rules();
        // A sampled game's log starts at the sample: what happened before it is not known.
        let mut state = match game.start() {
            Start::Seed(seed) => HeadState::new(now.players(), *seed, rules),
            Start::Deal(deal) => HeadState::from_deal(now.players(), deal, rules),
            Start::Sampled(state) => Ok((**state).clone()),
            Start::Snapshot(snap) => HeadState::from_snapshot(snap, rules).map_err(Into::into),
        }
        .expect("a game's start was valid when the game was made");
        let hand = now.hand_number();
        let first = game.history().partition_point(|s| s.hand < hand);
        let first = if state.hand_number() == hand {
            0
        } else {
            first
        };
        for step in &game.history()[..first] {
            state
                .apply_legal(step.action)
                .expect("a game's history replays");
        }
        let mut log = Self::new(state);
        log.actions
            .extend(game.history()[first..].iter().map(|s| (s.seat, s.action)));
        log
    }
}

/// One play of an opponent, as the observer saw it.
#[derive(Clone, Copy, Debug)]
struct Event {
    action: ActionId,
    /// The cards that left the player's hand (turned-up cards excluded).
    from_hand: CardSet,
    /// Highest value on the pile before the play (`None`: a lead).
    highest: Option<u8>,
    /// A replacement card was drawn right after the play (H-4.3).
    drew: bool,
}

/// An opponent's hidden hand: its slots in the sampler's card array and its plays this hand.
#[derive(Clone, Debug)]
struct Opponent {
    seat: u8,
    slots: std::ops::Range<usize>,
    events: Vec<Event>,
}

/// Samples determinizations of one position for one observer, many times (search calls
/// [`Self::sample`] once per iteration, so the inferences are computed once, here).
#[derive(Clone, Debug)]
pub struct Determinizer {
    real: HeadState,
    lowest_only: bool,
    /// The hidden cards: each opponent's slots, then the draw pile's (in the true arrangement).
    truth: Vec<u8>,
    /// The hidden cards in card order: what the rejection sampler shuffles, so that its sample
    /// is a function of the observer's information and the random stream alone (two positions
    /// that look the same to the observer give the same sample for the same seed).
    canonical: Vec<u8>,
    opponents: Vec<Opponent>,
    pile_start: usize,
    attempts: u32,
    /// The chain's current arrangement once the sampler has fallen back to it.
    chain: Option<Vec<u8>>,
    scratch: Vec<u8>,
}

impl Determinizer {
    /// Prepare sampling for `observer` from the log of the hand in progress.
    pub fn new(log: &HandLog, observer: u8) -> Result<Self, EngineError> {
        let mut state = log.start.clone();
        let players = state.players();
        if observer >= players {
            return Err(StateError(format!(
                "observer {observer} is not a seat of this {players}-player game"
            ))
            .into());
        }
        let mut events: [Vec<Event>; MAX_PLAYERS] = Default::default();
        for &(seat, action) in &log.actions {
            if state.current_player() != Some(seat) {
                return Err(StateError(format!(
                    "the hand log has seat {seat} play when seat {:?} is to move",
                    state.current_player()
                ))
                .into());
            }
            let before = state.hand(seat);
            let highest = state.highest();
            if state.apply(action)?.is_some() {
                // A new hand was dealt: nothing of the old one says anything about it.
                events.iter_mut().for_each(Vec::clear);
                continue;
            }
            if seat != observer {
                events[seat as usize].push(Event {
                    action,
                    from_hand: before & !state.hand(seat),
                    highest,
                    drew: (WITH_BAMBOO_FIRST..WITH_BAMBOO_FIRST + 11).contains(&action),
                });
            }
        }
        let mut truth = Vec::with_capacity(64);
        let mut opponents = Vec::new();
        for seat in (0..players).filter(|&s| s != observer) {
            let hand = state.hand(seat);
            if hand == 0 {
                continue;
            }
            let first = truth.len();
            truth.extend(ids(hand));
            opponents.push(Opponent {
                seat,
                slots: first..truth.len(),
                events: std::mem::take(&mut events[seat as usize]),
            });
        }
        let pile_start = truth.len();
        truth.extend_from_slice(state.draw_pile());
        let mut canonical = truth.clone();
        canonical.sort_unstable();
        Ok(Self {
            lowest_only: state.rules().lowest_only_when_cannot_follow,
            real: state,
            truth,
            canonical,
            opponents,
            pile_start,
            attempts: REJECTION_ATTEMPTS,
            chain: None,
            scratch: Vec::with_capacity(64),
        })
    }

    /// The real current state (the end of the log).
    pub fn real(&self) -> &HeadState {
        &self.real
    }

    /// Whether the sampler has fallen back to the (approximately uniform) Markov chain.
    pub fn uses_chain(&self) -> bool {
        self.chain.is_some()
    }

    /// Set the number of rejected samples tolerated before the fallback (tests).
    #[cfg(test)]
    pub(crate) fn set_attempts(&mut self, attempts: u32) {
        self.attempts = attempts;
    }

    /// A consistent state of the observer's information set (see the module docs).
    pub fn sample(&mut self, rng: &mut SplitMix64) -> HeadState {
        let mut buf = std::mem::take(&mut self.scratch);
        if self.chain.is_none() {
            for _ in 0..self.attempts {
                buf.clear();
                buf.extend_from_slice(&self.canonical);
                shuffle_any(&mut buf, rng);
                if self.opponents.iter().all(|o| self.consistent(o, &buf)) {
                    let s = self.build(&buf, rng);
                    self.scratch = buf;
                    return s;
                }
            }
            let mut chain = self.truth.clone();
            let steps = BURN_IN_SWEEPS * chain.len();
            self.walk(&mut chain, steps, rng);
            self.chain = Some(chain);
        }
        let mut chain = self.chain.take().expect("set above");
        let steps = CHAIN_SWEEPS * chain.len();
        self.walk(&mut chain, steps, rng);
        buf.clear();
        buf.extend_from_slice(&chain);
        self.chain = Some(chain);
        // The pile's order is unconstrained: draw it afresh, exactly uniform.
        let pile_start = self.pile_start;
        shuffle_any(&mut buf[pile_start..], rng);
        let s = self.build(&buf, rng);
        self.scratch = buf;
        s
    }

    /// `steps` swap proposals of the chain, each kept only when the arrangement stays consistent.
    fn walk(&self, cards: &mut [u8], steps: usize, rng: &mut SplitMix64) {
        let len = cards.len();
        if self.pile_start == 0 || len < 2 {
            return;
        }
        for _ in 0..steps {
            let i = index_below(rng, len);
            let j = index_below(rng, len);
            let (oi, oj) = (self.owner(i), self.owner(j));
            if oi == oj {
                continue; // same hand or both in the pile: nothing a check could see changes
            }
            cards.swap(i, j);
            let ok = [oi, oj]
                .into_iter()
                .flatten()
                .all(|k| self.consistent(&self.opponents[k], cards));
            if !ok {
                cards.swap(i, j);
            }
        }
    }

    /// The opponent index owning slot `i`, `None` for the draw pile.
    fn owner(&self, i: usize) -> Option<usize> {
        self.opponents.iter().position(|o| o.slots.contains(&i))
    }

    fn consistent(&self, o: &Opponent, cards: &[u8]) -> bool {
        if o.events.is_empty() {
            return true;
        }
        let hand = cards[o.slots.clone()].iter().fold(0u64, |a, &c| a | 1 << c);
        history_exists(hand, &o.events, self.lowest_only)
    }

    fn build(&self, cards: &[u8], rng: &mut SplitMix64) -> HeadState {
        let mut hands = [0; MAX_PLAYERS];
        for (seat, h) in hands
            .iter_mut()
            .enumerate()
            .take(self.real.players() as usize)
        {
            *h = self.real.hand(seat as u8);
        }
        for o in &self.opponents {
            hands[o.seat as usize] = cards[o.slots.clone()].iter().fold(0u64, |a, &c| a | 1 << c);
        }
        let mut state = self.real.clone();
        state.replace_hidden(&hands, &cards[self.pile_start..], rng.next());
        state
    }
}

/// Whether some history of the hand leads to `hand` with every play in `events` legal: undo the
/// plays from the last, adding their cards back, and for a play followed by a replacement draw
/// try each kind of card in the hand as the card drawn.
fn history_exists(hand: CardSet, events: &[Event], lowest_only: bool) -> bool {
    let Some((last, earlier)) = events.split_last() else {
        return true;
    };
    let legal_before = |before: CardSet| {
        legal_mask(before, last.highest, lowest_only) & (1 << last.action) != 0
            && history_exists(before, earlier, lowest_only)
    };
    if !last.drew {
        return legal_before(hand | last.from_hand);
    }
    let mut kinds = hand;
    while kinds != 0 {
        let card = kinds.trailing_zeros() as u8;
        kinds &= !kind_mask(card);
        if legal_before((hand & !(1 << card)) | last.from_hand) {
            return true;
        }
    }
    false
}

/// Every card of the kind of `card` (the copies of its value, the Big Pandas or the Bamboo).
#[inline]
fn kind_mask(card: u8) -> CardSet {
    if card < BIG_PANDA_FIRST {
        value_mask(card / COPIES + 1)
    } else if card < BIG_PANDA_FIRST + 4 {
        BIG_PANDA_MASK
    } else {
        BAMBOO_MASK
    }
}

fn ids(set: CardSet) -> impl Iterator<Item = u8> {
    let mut rest = set;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let id = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            id
        })
    })
}

/// A uniform shuffle (Fisher–Yates with [`index_below`]).
fn shuffle_any<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        items.swap(i, index_below(rng, i + 1));
    }
}

/// A state consistent with everything `observer` has seen in `game` (module docs).
///
/// The observation of the result for `observer` ([`super::observation::observation`]) equals
/// that of the real state.
pub fn determinize(game: &HeadGame, observer: u8, rng: &mut SplitMix64) -> HeadState {
    let log = HandLog::from_game(game);
    Determinizer::new(&log, observer)
        .expect("a game's own history is a valid hand log")
        .sample(rng)
}

/// [`determinize`] from a hand log instead of a game.
pub fn determinize_hand(
    log: &HandLog,
    observer: u8,
    rng: &mut SplitMix64,
) -> Result<HeadState, EngineError> {
    Ok(Determinizer::new(log, observer)?.sample(rng))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::head::action::Action;
    use crate::head::cards::{kind, CardKind};
    use crate::head::observation::observation;
    use crate::head::random::pick;
    use crate::head::{Deal, HeadRules};

    /// Random games stopped at a random point of a hand (after pile 2 or later).
    fn positions(rules: HeadRules, count: usize, seed: u64) -> Vec<HeadGame> {
        let mut out = Vec::new();
        let mut rng = SplitMix64::new(seed);
        let mut k = 0;
        while out.len() < count {
            k += 1;
            let players = 2 + (k % 4) as u8;
            let mut game = HeadGame::new(players, seed * 1000 + k, rules).unwrap();
            let mut bot = SplitMix64::new(k);
            let stop = 30 + rng.below(300) as usize;
            for _ in 0..stop {
                if game.state().is_over() {
                    break;
                }
                let a = pick(&mut bot, game.state().legal_actions());
                game.apply(a).unwrap();
            }
            if !game.state().is_over() && game.state().pile_number() >= 1 {
                out.push(game);
            }
        }
        out
    }

    /// An independent check that `sample` is reachable: rebuild a hand-start deal in which each
    /// opponent's start hand is its sampled hand plus the cards it played minus the replacements
    /// it drew (every choice of replacement cards is tried), then replay every action of the hand
    /// with the checked `apply` and compare the result with `sample`.
    fn reachable(log: &HandLog, observer: u8, sample: &HeadState) -> bool {
        let start = log.start();
        let n = start.players();
        // Replay the real hand to learn every draw from the pile, in order.
        let mut real = start.clone();
        // (seat, the real replacement card if this is one, the cards drawn)
        let mut draws: Vec<(u8, Option<u8>, CardSet)> = Vec::new();
        let mut played: [CardSet; MAX_PLAYERS] = [0; MAX_PLAYERS];
        let mut drew_after: Vec<(u8, usize)> = Vec::new(); // (seat, draw index)
        for &(seat, a) in log.actions() {
            let before = real.hand(seat);
            let pos = real.draw_pile().len();
            let top: Vec<u8> = real.draw_pile().to_vec();
            assert!(real.apply(a).unwrap().is_none());
            let after = real.hand(seat);
            played[seat as usize] |= before & !after;
            let taken = pos - real.draw_pile().len();
            if matches!(Action::from_id(a), Some(Action::PandaWithBamboo(_))) {
                drew_after.push((seat, draws.len()));
                draws.push((seat, Some(top[0]), after & !before));
            } else {
                for &c in &top[..taken] {
                    draws.push((seat, None, 1 << c));
                }
            }
        }
        // Candidate replacement cards of each opponent draw: the sampled hand or later plays.
        let mut choices: Vec<Vec<u8>> = Vec::new();
        for &(seat, di) in &drew_after {
            if seat == observer {
                choices.push(vec![draws[di].2.trailing_zeros() as u8]);
            } else {
                let pool = sample.hand(seat) | played[seat as usize];
                choices.push(ids(pool).collect());
            }
        }
        let mut pick = vec![0usize; choices.len()];
        loop {
            let chosen: Vec<u8> = pick.iter().zip(&choices).map(|(&i, c)| c[i]).collect();
            let distinct =
                chosen.iter().fold(0u64, |a, &c| a | 1 << c).count_ones() as usize == chosen.len();
            if distinct && try_replay(log, sample, &draws, &drew_after, &chosen, &played, n) {
                return true;
            }
            // Next combination.
            let mut k = 0;
            loop {
                if k == pick.len() {
                    return false;
                }
                pick[k] += 1;
                if pick[k] < choices[k].len() {
                    break;
                }
                pick[k] = 0;
                k += 1;
            }
        }
    }

    fn try_replay(
        log: &HandLog,
        sample: &HeadState,
        draws: &[(u8, Option<u8>, CardSet)],
        drew_after: &[(u8, usize)],
        chosen: &[u8],
        played: &[CardSet; MAX_PLAYERS],
        n: u8,
    ) -> bool {
        let start = log.start();
        let mut drawn: [CardSet; MAX_PLAYERS] = [0; MAX_PLAYERS];
        let mut sequence: Vec<u8> = Vec::new();
        let mut replacement = draws.iter().map(|d| d.1).collect::<Vec<_>>();
        for (&(seat, di), &c) in drew_after.iter().zip(chosen) {
            drawn[seat as usize] |= 1 << c;
            replacement[di] = Some(c);
        }
        for (d, r) in draws.iter().zip(&replacement) {
            match d.1 {
                Some(_) => sequence.push(r.unwrap()),
                None => sequence.push(d.2.trailing_zeros() as u8),
            }
        }
        let hands: Vec<Vec<u8>> = (0..n)
            .map(|s| {
                let h = (sample.hand(s) | played[s as usize]) & !drawn[s as usize];
                ids(h).collect()
            })
            .collect();
        if drawn
            .iter()
            .zip(played)
            .zip(0..n)
            .any(|((&d, &p), s)| d & !(p | sample.hand(s)) != 0)
        {
            return false;
        }
        if hands
            .iter()
            .zip(0..n)
            .any(|(h, s)| h.len() != start.hand(s).count_ones() as usize)
        {
            return false;
        }
        let mut pile = sequence;
        pile.extend_from_slice(sample.draw_pile());
        let deal = Deal {
            hands,
            draw_pile: pile,
            dealer: start.dealer(),
            scores: start.scores().to_vec(),
            drowsy: (0..n).map(|s| start.is_drowsy(s)).collect(),
            pooped: (0..n).map(|s| start.is_pooped(s)).collect(),
            rng_state: 0,
            hand_number: start.hand_number(),
        };
        let Ok(mut st) = HeadState::from_deal(n, &deal, *start.rules()) else {
            return false;
        };
        for &(_, a) in log.actions() {
            if st.apply(a).is_err() {
                return false;
            }
        }
        // Kinds, not ids: the replay plays the lowest copy held (H-1.4), which may be another copy
        // of the same value than the one really played.
        (0..n).all(|s| kinds(st.hand(s)) == kinds(sample.hand(s)))
            && st.draw_pile() == sample.draw_pile()
    }

    /// Cards per kind: the 11 values, Big Pandas, Bamboo.
    fn kinds(hand: CardSet) -> [u32; 13] {
        let mut k = [0; 13];
        for c in ids(hand) {
            k[match kind(c) {
                CardKind::Regular(v) => v as usize - 1,
                CardKind::BigPanda => 11,
                CardKind::Bamboo => 12,
            }] += 1;
        }
        k
    }

    fn check_sample(log: &HandLog, observer: u8, real: &HeadState, s: &HeadState) {
        assert_eq!(observation(s, observer), observation(real, observer));
        assert_eq!(s.hand(observer), real.hand(observer));
        assert_eq!(s.discard(), real.discard());
        assert_eq!(s.pile_plays(), real.pile_plays());
        assert_eq!(s.scores(), real.scores());
        assert_eq!(s.draw_pile().len(), real.draw_pile().len());
        for seat in 0..real.players() {
            assert_eq!(s.hand(seat).count_ones(), real.hand(seat).count_ones());
        }
        // Every card exactly once.
        let mut all = s.discard() | s.draw_pile().iter().fold(0u64, |a, &c| a | 1 << c);
        for p in s.pile_plays() {
            all |= p.cards;
        }
        for seat in 0..s.players() {
            assert_eq!(all & s.hand(seat), 0);
            all |= s.hand(seat);
        }
        assert_eq!(all, (1u64 << real.rules().deck_size()) - 1);
        assert!(reachable(log, observer, s), "an unreachable sample");
    }

    #[test]
    fn samples_keep_the_observation_and_are_reachable() {
        for lowest_only in [false, true] {
            let rules = HeadRules {
                lowest_only_when_cannot_follow: lowest_only,
                ..HeadRules::default()
            };
            let mut rng = SplitMix64::new(5);
            for game in positions(rules, 40, 1 + lowest_only as u64) {
                let log = HandLog::from_game(&game);
                let real = game.state();
                for observer in 0..real.players() {
                    let mut d = Determinizer::new(&log, observer).unwrap();
                    assert_eq!(d.real(), real);
                    for _ in 0..5 {
                        check_sample(&log, observer, real, &d.sample(&mut rng));
                    }
                    // The chain fallback must be consistent as well.
                    let mut d = Determinizer::new(&log, observer).unwrap();
                    d.set_attempts(0);
                    for _ in 0..3 {
                        check_sample(&log, observer, real, &d.sample(&mut rng));
                    }
                    assert!(d.uses_chain());
                }
            }
        }
    }

    #[test]
    fn same_seed_same_sample_other_seed_other_sample() {
        let game = &positions(HeadRules::default(), 1, 9)[0];
        let a = determinize(game, 0, &mut SplitMix64::new(1));
        let b = determinize(game, 0, &mut SplitMix64::new(1));
        let c = determinize(game, 0, &mut SplitMix64::new(2));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    /// A 3-player hand start: seat 0 holds 0..7 (five 1s, two 2s), seat 1 and 2 the given cards.
    fn start(hands: [Vec<u8>; 3], rules: HeadRules) -> HeadState {
        let used: CardSet = hands.iter().flatten().fold(0, |a, &c| a | 1 << c);
        let deal = Deal {
            draw_pile: (0..63).filter(|c| used & (1 << c) == 0).collect(),
            hands: hands.to_vec(),
            dealer: 2,
            scores: vec![0; 3],
            drowsy: vec![false; 3],
            pooped: vec![false; 3],
            rng_state: 0,
            hand_number: 0,
        };
        HeadState::from_deal(3, &deal, rules).unwrap()
    }

    #[test]
    fn uniform_without_inference() {
        // Nothing played: every hidden card is equally likely in each of the 7 + 7 + 42 slots.
        let s = start(
            [(0..7).collect(), (7..14).collect(), (14..21).collect()],
            HeadRules::default(),
        );
        let mut d = Determinizer::new(&HandLog::new(s), 0).unwrap();
        let mut rng = SplitMix64::new(17);
        let trials = 20_000;
        let card = 30u8;
        let (mut in1, mut in2, mut pile) = (0f64, 0f64, 0f64);
        for _ in 0..trials {
            let x = d.sample(&mut rng);
            if x.hand(1) >> card & 1 == 1 {
                in1 += 1.0;
            } else if x.hand(2) >> card & 1 == 1 {
                in2 += 1.0;
            } else {
                pile += 1.0;
            }
        }
        let t = trials as f64;
        let expect = [t * 7.0 / 56.0, t * 7.0 / 56.0, t * 42.0 / 56.0];
        let chi2: f64 = [in1, in2, pile]
            .iter()
            .zip(expect)
            .map(|(o, e)| (o - e) * (o - e) / e)
            .sum();
        // 2 degrees of freedom: P(chi2 > 13.8) = 0.001.
        assert!(chi2 < 13.8, "chi2 {chi2}: {in1} {in2} {pile}");
        // Pile position of the card is uniform too: top vs anywhere.
        assert!(!d.uses_chain());
    }

    /// H-3.2 option B: a play below the highest value means no lower regular Panda was held.
    #[test]
    fn option_b_play_excludes_lower_values() {
        for lowest_only in [false, true] {
            let rules = HeadRules {
                lowest_only_when_cannot_follow: lowest_only,
                ..HeadRules::default()
            };
            // Seat 0 leads (dealer 2). Seat 1 holds 3s and 4s and a 9; seat 2 holds a 10.
            let s = start(
                [
                    (0..7).collect(),
                    vec![10, 11, 12, 15, 16, 17, 40],
                    vec![45, 46, 47, 48, 49, 50, 51],
                ],
                rules,
            );
            let mut log = HandLog::new(s.clone());
            let mut st = s;
            // Seat 0 leads a 2; seat 1 plays 9 (option A); seat 2 plays 10 (A). Seat 2 wins and
            // leads 10; seat 0 plays 1 (B); seat 1 plays 3 (B, below 10).
            for a in [
                Action::Panda(2),
                Action::Panda(9),
                Action::Panda(10),
                Action::Panda(10),
                Action::Panda(1),
                Action::Panda(3),
            ] {
                log.observe(&st, a.id());
                st.apply(a.id()).unwrap();
            }
            let mut d = Determinizer::new(&log, 0).unwrap();
            let mut rng = SplitMix64::new(3);
            for _ in 0..2000 {
                let x = d.sample(&mut rng);
                let h1 = x.hand(1);
                // Held no 1 or 2 when playing the 3 (1s and 2s of seat 0 are known anyway, but
                // the remaining 2s (ids 7..10) are hidden).
                assert_eq!(h1 & (value_mask(1) | value_mask(2)), 0, "{h1:#x}");
                if lowest_only {
                    // No option A on 10: no 10, 11, 8+B.., Big Panda.
                    assert_eq!(h1 & (value_mask(10) | value_mask(11) | BIG_PANDA_MASK), 0);
                    let has_bamboo = h1 & BAMBOO_MASK != 0;
                    assert!(!has_bamboo || h1 & (value_mask(8) | value_mask(9)) == 0);
                }
                check_sample(&log, 0, &st, &x);
            }
        }
    }

    /// H-4.4: a Bamboo alone means the hand held nothing but Bamboo; cards drawn after a
    /// Panda + Bamboo play are exempt from what earlier plays implied.
    #[test]
    fn bamboo_alone_and_replacements() {
        // 2 players. Seat 1 (leader, dealer 0) holds a 5, and Bamboo; seat 0 holds 1s and 2s.
        let deal = Deal {
            hands: vec![(0..7).collect(), vec![20, 59, 60, 61, 62, 21, 22]],
            draw_pile: (7..20).chain(23..59).collect(),
            dealer: 0,
            scores: vec![0, 0],
            drowsy: vec![false, false],
            pooped: vec![false, false],
            rng_state: 0,
            hand_number: 0,
        };
        let s = HeadState::from_deal(2, &deal, HeadRules::default()).unwrap();
        let mut log = HandLog::new(s.clone());
        let mut st = s;
        let mut rng = SplitMix64::new(8);
        let mut bot = SplitMix64::new(4);
        while st.pile_number() < 5 {
            let a = pick(&mut bot, st.legal_actions());
            log.observe(&st, a);
            st.apply(a).unwrap();
        }
        let mut d = Determinizer::new(&log, 0).unwrap();
        for _ in 0..300 {
            let x = d.sample(&mut rng);
            check_sample(&log, 0, &st, &x);
        }
    }
}
