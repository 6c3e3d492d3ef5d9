//! Determinization for the climbing games: a full state sampled from what one player knows.
//!
//! What is hidden (S-11, and this engine's state): a card in another player's hand is public
//! exactly when it shows its blue face. A card turns blue only by going back to its owner's hand
//! at a pass (S-6.3) or by a `flip` panda (S-7.3), both public events, and it stays blue until it
//! leaves the hand; every card is white in the draw pile and when drawn. So the hidden cards are:
//! the white cards (and, in `year`, the element cards) in the other players' hands, the order of
//! the draw pile, and in `spin` the wind cards not seen yet. Hand sizes, the table, the discard
//! pile, scores and the blue cards everywhere are public and kept as they are.
//!
//! In `spin` every player is dealt exactly one wind card (S-3.3) and the pile holds no wind, so a
//! player holds at most one wind, and one who has not played or discarded a wind this round
//! still holds exactly one; the unseen winds that nobody holds are out of the round. Who played or
//! discarded a wind is public (S-11.1) but is not part of a [`ClimbState`]: a caller that knows
//! it passes the holders to [`determinize_with_winds`] (the search bot tracks them move by move);
//! without it, [`determinize`] samples the holders from the right count, weighting each set of
//! holders by the number of full states it allows, so the sample is still uniform over the states
//! that agree with the [`ClimbState`]'s public part.
//!
//! No play in these games implies anything about the rest of a hand (passing is always allowed,
//! and every other move shows the cards it uses), so the hidden cards are exchangeable and a
//! uniform shuffle into the same slots is exact. The generator of later deals is reseeded from
//! `rng`, so a search never plays the real future deals.

use super::cards::{bit, count, CardSet, ANIMALS, ELEMENTS};
use super::moves::{Kind, MAX_PLAYERS};
use super::recorded::{ClimbGame, Start};
use super::rules::Preset;
use super::state::ClimbState;
use crate::rng::{index_below, SplitMix64};

/// Samples determinizations of one position for one observer, many times.
#[derive(Clone, Debug)]
pub struct ClimbDeterminizer {
    real: ClimbState,
    observer: u8,
    /// The hidden cards other than unseen winds (white animals, `year` elements, the pile).
    pool: Vec<u8>,
    /// Unseen wind cards (`spin`).
    winds: Vec<u8>,
    /// Per seat: the public (blue) cards of the hand and the number of hidden slots (a wind
    /// holder fills one of them with its wind).
    public: [CardSet; MAX_PLAYERS],
    slots: [usize; MAX_PLAYERS],
    /// `spin`: the sets of opponents that may hold the unseen winds, with cumulative weights.
    holder_sets: Vec<(u8, u64)>,
    scratch: Vec<u8>,
}

impl ClimbDeterminizer {
    /// Prepare sampling for `observer`. `wind_holders` (`spin` only): the seats that have not
    /// played or discarded a wind this round, if known (bit per seat; the observer's bit is
    /// ignored).
    pub fn new(state: &ClimbState, observer: u8, wind_holders: Option<u8>) -> Self {
        let n = state.players();
        let spin = state.settings.preset == Preset::Spin;
        let mut pool = Vec::with_capacity(80);
        let mut winds = Vec::new();
        let mut public = [0; MAX_PLAYERS];
        let mut slots = [0; MAX_PLAYERS];
        let mut wind_count = 0;
        let mut can_hold = 0u8;
        for seat in (0..n).filter(|&s| s != observer) {
            let hand = state.hands[seat as usize];
            public[seat as usize] = hand & state.blue;
            let mut hidden = hand & !state.blue;
            // All hidden slots of the seat, its wind (`spin`) included.
            slots[seat as usize] = count(hidden) as usize;
            if spin {
                winds.extend(super::cards::ids(hidden & ELEMENTS));
                wind_count += count(hidden & ELEMENTS);
                hidden &= ANIMALS;
                if slots[seat as usize] > 0 {
                    can_hold |= 1 << seat;
                }
            }
            pool.extend(super::cards::ids(hidden));
        }
        pool.extend_from_slice(state.draw_pile());
        if spin {
            winds.extend(super::cards::ids(state.out & ELEMENTS));
        }
        // In card order, not where the cards really are: a sample is then a function of the
        // observer's information and the random stream alone (two positions that look the same
        // to the observer give the same sample for the same seed).
        pool.sort_unstable();
        winds.sort_unstable();
        // The opponents' wind slots: either the given holders or every set of `wind_count`
        // opponents that could hold one. A set S leaves `slots - 1` animal slots to each holder,
        // so it allows (animals)! / prod(slots_o - [o in S])! arrangements: weight prod_S slots.
        let mut holder_sets = Vec::new();
        if spin {
            // checked_shl: an observer seat past 7 (a caller's value) is no seat bit at all.
            let me = 1u8.checked_shl(observer as u32).unwrap_or(0);
            let given = wind_holders.map(|h| h & !me & ((1 << n) - 1));
            match given {
                Some(h) if h.count_ones() == wind_count && h & !can_hold == 0 => {
                    holder_sets.push((h, 1));
                }
                _ => {
                    let mut total = 0u64;
                    for set in 0..(1u8 << n) {
                        if set & !can_hold != 0 || set.count_ones() != wind_count {
                            continue;
                        }
                        let w: u64 = (0..n)
                            .filter(|&s| set & (1 << s) != 0)
                            .map(|s| slots[s as usize] as u64)
                            .product();
                        total += w;
                        holder_sets.push((set, total));
                    }
                }
            }
        }
        Self {
            real: state.clone(),
            observer,
            pool,
            winds,
            public,
            slots,
            holder_sets,
            scratch: Vec::with_capacity(80),
        }
    }

    /// The real state.
    pub fn real(&self) -> &ClimbState {
        &self.real
    }

    /// A state of the observer's information set, uniform (module docs).
    pub fn sample(&mut self, rng: &mut SplitMix64) -> ClimbState {
        let mut st = self.real.clone();
        let n = st.players;
        let holders = match self.holder_sets.last() {
            None => 0,
            Some(&(_, total)) => {
                let x = rng.next() % total;
                self.holder_sets
                    .iter()
                    .find(|&&(_, cum)| x < cum)
                    .expect("x < total")
                    .0
            }
        };
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        buf.extend_from_slice(&self.pool);
        shuffle_any(&mut buf, rng);
        let mut winds = self.winds.clone();
        shuffle_any(&mut winds, rng);
        let mut next = 0;
        let mut next_wind = 0;
        for seat in (0..n).filter(|&s| s != self.observer) {
            let si = seat as usize;
            let mut hand = self.public[si];
            let mut k = self.slots[si];
            if holders & (1 << seat) != 0 {
                hand |= bit(winds[next_wind]);
                next_wind += 1;
                k -= 1;
            }
            for &c in &buf[next..next + k] {
                hand |= bit(c);
            }
            next += k;
            st.hands[si] = hand;
        }
        let pile = &buf[next..];
        debug_assert_eq!(pile.len(), st.draw_pile().len());
        let start = st.pile_pos as usize;
        st.pile[start..start + pile.len()].copy_from_slice(pile);
        if st.settings.preset == Preset::Spin {
            st.out = winds[next_wind..].iter().fold(0, |a, &w| a | bit(w));
        }
        // The dealt part of the pile array is never read again; do not leave the real deal there.
        st.pile[..start].fill(0);
        st.rng = SplitMix64::new(rng.next());
        self.scratch = buf;
        st
    }
}

fn shuffle_any<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        items.swap(i, index_below(rng, i + 1));
    }
}

/// A state consistent with everything `observer` sees in `state`; in `spin`, who holds the
/// unseen winds is sampled (module docs).
pub fn determinize(state: &ClimbState, observer: u8, rng: &mut SplitMix64) -> ClimbState {
    ClimbDeterminizer::new(state, observer, None).sample(rng)
}

/// [`determinize`] when the seats still holding their wind this round are known (`spin`; bit
/// per seat). A mask that does not fit the state is ignored (the holders are then sampled).
pub fn determinize_with_winds(
    state: &ClimbState,
    observer: u8,
    wind_holders: u8,
    rng: &mut SplitMix64,
) -> ClimbState {
    ClimbDeterminizer::new(state, observer, Some(wind_holders)).sample(rng)
}

/// Tracks, move by move, which seats have played or discarded their wind this round (`spin`).
#[derive(Clone, Copy, Debug, Default)]
pub struct WindTracker {
    round: u32,
    gone: u8,
}

impl WindTracker {
    /// Record `mv`'s kind, made by the player to move in `before`.
    pub fn observe(&mut self, before: &ClimbState, kind: Kind) {
        if before.round() != self.round {
            self.round = before.round();
            self.gone = 0;
        }
        if let (Some(p), Kind::Element | Kind::DiscardElement) = (before.current_player(), kind) {
            self.gone |= 1 << p;
        }
    }

    /// The seats still holding their wind in `state`'s round, if this tracker saw the round.
    pub fn holders(&self, state: &ClimbState) -> Option<u8> {
        (state.settings.preset == Preset::Spin && state.round() == self.round)
            .then(|| ((1u16 << state.players()) - 1) as u8 & !self.gone)
    }
}

/// The seats still holding their wind in the round in progress of a `spin` game, from its
/// history (`None` for `year`, or when the round began before a snapshot start).
pub fn wind_holders(game: &ClimbGame) -> Option<u8> {
    let now = game.state();
    if now.settings.preset != Preset::Spin {
        return None;
    }
    let Start::Seed(seed) = game.start() else {
        return None;
    };
    let mut st = ClimbState::new(now.players(), *seed, now.settings.clone()).ok()?;
    let mut tracker = WindTracker::default();
    for (_, mv) in game.history() {
        tracker.observe(&st, mv.kind);
        st.apply_legal(mv);
    }
    tracker.holders(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::rules::{ClimbSettings, Mood};

    /// Everything `observer` may see, as one comparable value.
    fn public(st: &ClimbState, o: u8) -> String {
        let n = st.players();
        let opp_blue: Vec<CardSet> = (0..n).map(|s| st.hand(s) & st.blue()).collect();
        format!(
            "{:?}",
            (
                (st.hand(o), st.blue(), st.discard(), opp_blue),
                (0..n).map(|s| st.hand_size(s)).collect::<Vec<_>>(),
                (0..n).map(|s| st.played(s)).collect::<Vec<_>>(),
                (st.draw_pile().len(), st.scores(), st.to_beat(), st.holder()),
                (
                    st.passed(),
                    st.leader(),
                    st.current_player(),
                    st.shown_out()
                ),
                (st.round(), st.starter(), st.suits_in_play()),
                if st.settings.preset == Preset::Year {
                    st.out()
                } else {
                    0
                },
                if st.current_player() == Some(o) {
                    st.legal_moves()
                } else {
                    Vec::new()
                },
            )
        )
    }

    fn settings() -> Vec<ClimbSettings> {
        vec![
            ClimbSettings::preset(Preset::Year),
            ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
            ClimbSettings::preset(Preset::Spin),
        ]
    }

    /// Random games stopped at random points; the game and the true wind holders.
    fn positions(settings: &ClimbSettings, count: usize) -> Vec<(ClimbGame, Option<u8>)> {
        let mut out = Vec::new();
        let mut rng = SplitMix64::new(3);
        for k in 0..count as u64 {
            let players = 2 + (k % 4) as u8;
            let mut game = ClimbGame::new(players, k * 31 + 7, settings.clone()).unwrap();
            let mut bot = SplitMix64::new(k);
            let mut tracker = WindTracker::default();
            let stop = 5 + rng.below(120);
            for _ in 0..stop {
                if game.state().is_over() {
                    break;
                }
                let legal = game.legal_moves();
                let i = index_below(&mut bot, legal.len());
                tracker.observe(game.state(), legal[i].kind);
                game.apply(&legal[i]).unwrap();
            }
            if !game.state().is_over() {
                let holders = tracker.holders(game.state());
                assert_eq!(holders, wind_holders(&game));
                out.push((game, holders));
            }
        }
        out
    }

    /// Every card in exactly one place, blue only where it was.
    fn check_places(st: &ClimbState) {
        let n = st.players as usize;
        let pile = st.draw_pile().iter().fold(0, |a, &c| a | bit(c));
        assert_eq!(count(pile) as usize, st.draw_pile().len());
        let mut seen: CardSet = 0;
        for &set in
            st.hands[..n]
                .iter()
                .chain(st.played[..n].iter())
                .chain([&pile, &st.discard, &st.out])
        {
            assert_eq!(seen & set, 0);
            seen |= set;
        }
        assert_eq!(seen, super::super::cards::ALL_CARDS);
    }

    #[test]
    fn samples_keep_the_public_view_and_the_wind_rule() {
        let mut rng = SplitMix64::new(11);
        for s in settings() {
            for (game, holders) in positions(&s, 30) {
                let real = game.state();
                for o in 0..real.players() {
                    for known in [None, holders] {
                        let mut d = ClimbDeterminizer::new(real, o, known);
                        for _ in 0..4 {
                            let x = d.sample(&mut rng);
                            check_places(&x);
                            assert_eq!(public(&x, o), public(real, o));
                            if s.preset == Preset::Spin {
                                let mut total = count(x.out & ELEMENTS);
                                for q in 0..x.players() {
                                    let w = count(x.hand(q) & ELEMENTS);
                                    assert!(w <= 1, "at most one wind per hand");
                                    total += w;
                                    if let (Some(h), true) = (known, q != o) {
                                        assert_eq!(w == 1, h >> q & 1 == 1);
                                    }
                                }
                                assert_eq!(
                                    total + count(x.discard & ELEMENTS),
                                    5,
                                    "every wind somewhere"
                                );
                            }
                            // The game goes on from the sample.
                            let mut y = x.clone();
                            if let Some(_p) = y.current_player() {
                                let m = y.legal_moves()[0].clone();
                                y.apply(&m).unwrap();
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn uniform_over_hidden_slots() {
        // Year, 3 players at the deal: a card of seat 1 is in each hidden slot equally often.
        let st = ClimbState::new(3, 5, ClimbSettings::preset(Preset::Year)).unwrap();
        let card = super::super::cards::ids(st.hand(1)).next().unwrap();
        let mut d = ClimbDeterminizer::new(&st, 0, None);
        let mut rng = SplitMix64::new(2);
        let (mut c1, mut c2, mut cp) = (0f64, 0f64, 0f64);
        let trials = 20_000;
        for _ in 0..trials {
            let x = d.sample(&mut rng);
            if x.hand(1) & bit(card) != 0 {
                c1 += 1.0;
            } else if x.hand(2) & bit(card) != 0 {
                c2 += 1.0;
            } else {
                cp += 1.0;
            }
        }
        let (h, p) = (st.hand_size(1) as f64, st.draw_pile().len() as f64);
        let all = 2.0 * h + p;
        let t = trials as f64;
        let chi2: f64 = [(c1, h), (c2, h), (cp, p)]
            .iter()
            .map(|&(o, k)| {
                let e = t * k / all;
                (o - e) * (o - e) / e
            })
            .sum();
        assert!(chi2 < 13.8, "chi2 {chi2}: {c1} {c2} {cp}");
    }

    #[test]
    fn spin_wind_holders_are_weighted_by_slots() {
        // Spin, 3 players at the deal, observer 0: both opponents hold a wind; the two unseen
        // winds not held are out. Each unseen wind is in seat 1's hand with probability 1/4.
        let st = ClimbState::new(3, 9, ClimbSettings::preset(Preset::Spin)).unwrap();
        let mut d = ClimbDeterminizer::new(&st, 0, None);
        let mut rng = SplitMix64::new(4);
        let w = super::super::cards::ids((st.hand(1) | st.hand(2) | st.out) & ELEMENTS)
            .next()
            .unwrap();
        let mut in1 = 0;
        for _ in 0..8000 {
            let x = d.sample(&mut rng);
            assert_eq!(count(x.hand(1) & ELEMENTS), 1);
            assert_eq!(count(x.hand(2) & ELEMENTS), 1);
            in1 += (x.hand(1) & bit(w) != 0) as u32;
        }
        assert!((1800..2200).contains(&in1), "{in1}");
    }

    #[test]
    fn same_seed_same_sample() {
        let st = ClimbState::new(4, 1, ClimbSettings::preset(Preset::Spin)).unwrap();
        let a = determinize(&st, 2, &mut SplitMix64::new(5));
        let b = determinize(&st, 2, &mut SplitMix64::new(5));
        let c = determinize(&st, 2, &mut SplitMix64::new(6));
        assert_eq!(a.hands, b.hands);
        assert_eq!(a.draw_pile(), b.draw_pile());
        assert_ne!(a.hands, c.hands);
    }
}
