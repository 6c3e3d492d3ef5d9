//! A fixed-size numeric observation of a climbing-game state (`year` or `spin`) for one player,
//! for learning agents (docs/rl_interface.md §1, user guide docs/climb_encodings.md).
//!
//! **What goes in is what S-11 lets the observer see, and nothing else.** Public (S-11.1): the
//! table, the passes, the discards, scores, hand sizes, the draw-pile size, the suits in play,
//! the preset and the mood, and the cards that went back into a hand with their new face. Private
//! (S-11.2): the observer's own hand. Never: another player's white cards, the draw pile's
//! content or order, the generator state or the seed, and in `spin` where a wind card not yet
//! seen is (it may be in a hand or out of the round, the observer cannot tell, so `out` is not
//! encoded at all; in `year` `out` is exactly the suits not in play, which are encoded).
//!
//! **Which cards of another hand are known.** A card in another player's hand is public exactly
//! when it shows its blue face. Every round starts all white (contract §3) and the draw pile is
//! white, so a card in a hand turns blue only through a public event: it came back from the table
//! (S-6.3, including the forced passes of S-8.1) or a `flip` panda turned it (S-7.3, the choice is
//! part of the public move). Conversely a white card in another hand was dealt or drawn, both
//! private: a card that came back from the table is blue, never white. So the known cards of seat
//! `q` are `hand(q) & blue`, and its white cards are only a count (its hand size minus those).
//!
//! Seats are *relative*: slot 0 is the observer, slot `r` the seat `(player + r) % n`, so one
//! network serves every seat; slots of absent seats (fewer than 5 players) are zeros. The length
//! is the same for both presets, both moods and every player count.
//!
//! Card blocks have one entry per card id (animal `suit * 13 + white_rank`, 0–64; element/wind
//! `65 + suit`, 65–69); "65 ids" blocks cover the animal cards only (element cards have no face).
//! Every card entry is 0 or 1. "rel" means 5 relative seat slots.
//!
//! | range     | size | content |
//! |-----------|------|---------|
//! | 0..70     | 70 | own hand, white face (element cards count here: they have one side) |
//! | 70..135   | 65 | own hand, blue face |
//! | 135..395  | 260 | known cards of other hands: relative seats 1..=4, 65 ids each (the blue cards in that hand) |
//! | 395..465  | 70 | discard pile |
//! | 465..790  | 325 | cards on the table this trick, per relative seat 0..=4, 65 ids each |
//! | 790..855  | 65 | cards on the table that show the blue face (faces as played) |
//! | 855       | 1  | no play to beat (the next play leads) |
//! | 856..861  | 5  | play to beat: kind one-hot (single, set, run, formation, bomb) |
//! | 861..874  | 13 | play to beat: rank one-hot (set's rank, top rank of a run or formation) |
//! | 874       | 1  | play to beat: rank / 12 |
//! | 875       | 1  | play to beat: units / 16 |
//! | 876       | 1  | play to beat: length / 5 |
//! | 877       | 1  | play to beat: copies / 16 |
//! | 878       | 1  | play to beat: number of cards / 16 (the Water condition counts cards) |
//! | 879       | 1  | play to beat: some card showed the blue face when played (Metal condition) |
//! | 880..885  | 5  | play to beat: the seat that made it, rel one-hot |
//! | 885..890  | 5  | holder of the trick, rel one-hot (in `spin` a wind player can hold a play it did not make) |
//! | 890..895  | 5  | passed this trick, rel |
//! | 895..900  | 5  | shown out this round, rel |
//! | 900..905  | 5  | show-out order, rel: `(k + 1) / 5` for the k-th seat to show out, 0 if not shown out |
//! | 905..910  | 5  | scores, rel, / the game-end score (15 in `year`, 20 in `spin`) |
//! | 910..915  | 5  | hand sizes (all cards, element cards included), rel, / 12 |
//! | 915..920  | 5  | seat present (the table has that many players), rel |
//! | 920..925  | 5  | the trick's first leader, rel one-hot (zeros when the game is over) |
//! | 925..930  | 5  | the player to move, rel one-hot (slot 0: the observer's turn; zeros when over) |
//! | 930..935  | 5  | the round's starter, rel one-hot |
//! | 935       | 1  | draw-pile size / 65 |
//! | 936..941  | 5  | suits in play (absolute suit index: Fire, Earth, Wood, Water, Metal) |
//! | 941..943  | 2  | preset one-hot (`year`, `spin`) |
//! | 943..945  | 2  | panda mood one-hot (`hungry`, `flip`); zeros in `spin`, which ignores it (S-7.6) |
//! | 945..949  | 4  | player count one-hot (2, 3, 4, 5) |
//! | 949       | 1  | round number, min(round, 10) / 10 |
//! | 950       | 1  | the game is over |
//! | 951       | 1  | 1 when it is the observer's turn (same as slot 925, kept as an explicit flag) |
//!
//! Suits are absolute (not relative): the element conditions (S-2.3) and the blue faces (S-2.2)
//! depend on the suit, so relabelling them would hide the card table from the network.

use super::cards::{self, CardSet, ANIMALS, NUM_CARDS, NUM_RANKS, NUM_SUITS};
use super::moves::{Kind, MAX_PLAYERS};
use super::rules::{Mood, Preset, SPIN_WIN, YEAR_GAME_END};
use super::state::ClimbState;

/// Length of [`observation`].
pub const OBSERVATION_SIZE: usize = 952;
/// The version of the layout above (year and spin share it); trained policies name the one
/// they read. A change to what any column means makes it `/2`.
pub const OBSERVATION_LAYOUT: &str = "climb-observation/1";

/// Animal card ids per block of faces.
const ANIMAL_IDS: usize = cards::NUM_ANIMALS as usize;
const ALL_IDS: usize = NUM_CARDS as usize;

// Offsets of the blocks (see the table in the module doc).
pub(crate) const HAND_WHITE: usize = 0;
pub(crate) const HAND_BLUE: usize = HAND_WHITE + ALL_IDS;
pub(crate) const KNOWN: usize = HAND_BLUE + ANIMAL_IDS;
pub(crate) const DISCARD: usize = KNOWN + (MAX_PLAYERS - 1) * ANIMAL_IDS;
pub(crate) const TABLE: usize = DISCARD + ALL_IDS;
pub(crate) const TABLE_BLUE: usize = TABLE + MAX_PLAYERS * ANIMAL_IDS;
pub(crate) const NO_TO_BEAT: usize = TABLE_BLUE + ANIMAL_IDS;
pub(crate) const TB_KIND: usize = NO_TO_BEAT + 1;
pub(crate) const TB_RANK: usize = TB_KIND + 5;
pub(crate) const TB_SCALARS: usize = TB_RANK + NUM_RANKS;
pub(crate) const TB_MAKER: usize = TB_SCALARS + 6;
pub(crate) const HOLDER: usize = TB_MAKER + MAX_PLAYERS;
pub(crate) const PASSED: usize = HOLDER + MAX_PLAYERS;
pub(crate) const SHOWN: usize = PASSED + MAX_PLAYERS;
pub(crate) const SHOWN_ORDER: usize = SHOWN + MAX_PLAYERS;
pub(crate) const SCORES: usize = SHOWN_ORDER + MAX_PLAYERS;
pub(crate) const HAND_SIZES: usize = SCORES + MAX_PLAYERS;
pub(crate) const PRESENT: usize = HAND_SIZES + MAX_PLAYERS;
pub(crate) const LEADER: usize = PRESENT + MAX_PLAYERS;
pub(crate) const CURRENT: usize = LEADER + MAX_PLAYERS;
pub(crate) const STARTER: usize = CURRENT + MAX_PLAYERS;
pub(crate) const DRAW_PILE: usize = STARTER + MAX_PLAYERS;
pub(crate) const SUITS: usize = DRAW_PILE + 1;
pub(crate) const PRESET: usize = SUITS + NUM_SUITS;
pub(crate) const MOOD: usize = PRESET + 2;
pub(crate) const PLAYERS: usize = MOOD + 2;
pub(crate) const ROUND: usize = PLAYERS + 4;
pub(crate) const GAME_OVER: usize = ROUND + 1;
pub(crate) const OWN_TURN: usize = GAME_OVER + 1;
const END: usize = OWN_TURN + 1;

const _: () = assert!(END == OBSERVATION_SIZE);

/// Normalisers (documented in the table above).
const HAND_NORM: f32 = 12.0;
const UNITS_NORM: f32 = 16.0;
const PILE_NORM: f32 = 65.0;

/// Set `out[base + id] = 1` for every id of `set`.
#[inline]
fn put_cards(out: &mut [f32], base: usize, set: CardSet) {
    for id in cards::ids(set) {
        out[base + id as usize] = 1.0;
    }
}

/// Write the observation of `state` for `player` into `out` (length [`OBSERVATION_SIZE`]).
///
/// # Panics
/// If `out` has another length or `player` is not a seat of the game.
pub fn observation_into(state: &ClimbState, player: u8, out: &mut [f32]) {
    out.fill(0.0);
    observation_into_zeroed(state, player, out);
}

/// [`observation_into`] for a buffer that is already all zeros (the vector environment's fresh
/// rows): it writes only the non-zero entries, which saves zeroing 3.8 KB twice per env-step.
/// Given a buffer that is not zeroed, the result is wrong (stale entries stay).
pub fn observation_into_zeroed(state: &ClimbState, player: u8, out: &mut [f32]) {
    assert_eq!(out.len(), OBSERVATION_SIZE, "observation buffer length");
    let n = state.players();
    assert!(player < n, "seat {player} is not at a {n}-player table");
    let rel = |seat: u8| ((seat + n - player) % n) as usize;
    let blue = state.blue();

    // Own hand, by face.
    let hand = state.hand(player);
    put_cards(out, HAND_WHITE, hand & !blue);
    put_cards(out, HAND_BLUE, hand & blue & ANIMALS);
    // Other hands: only the blue cards are known (module doc).
    for r in 1..n {
        let seat = (player + r) % n;
        let known = state.hand(seat) & blue & ANIMALS;
        put_cards(out, KNOWN + (r as usize - 1) * ANIMAL_IDS, known);
    }
    put_cards(out, DISCARD, state.discard());
    // The table: who played what, and the faces the cards showed when played.
    let mut on_table: CardSet = 0;
    for seat in 0..n {
        let played = state.played(seat);
        on_table |= played;
        put_cards(out, TABLE + rel(seat) * ANIMAL_IDS, played & ANIMALS);
    }
    put_cards(out, TABLE_BLUE, on_table & blue & ANIMALS);

    match state.to_beat() {
        None => out[NO_TO_BEAT] = 1.0,
        Some(tb) => {
            let s = &tb.combo.shape;
            // Kinds of a combination are single..bomb (3..=7 of `Kind`).
            out[TB_KIND + (s.kind as usize - Kind::Single as usize)] = 1.0;
            out[TB_RANK + s.rank as usize] = 1.0;
            out[TB_SCALARS] = s.rank as f32 / 12.0;
            out[TB_SCALARS + 1] = s.units as f32 / UNITS_NORM;
            out[TB_SCALARS + 2] = s.length as f32 / 5.0;
            out[TB_SCALARS + 3] = s.copies as f32 / UNITS_NORM;
            out[TB_SCALARS + 4] = cards::count(tb.combo.cards) as f32 / UNITS_NORM;
            out[TB_SCALARS + 5] = tb.combo.has_blue as u8 as f32;
            out[TB_MAKER + rel(tb.player)] = 1.0;
        }
    }
    if let Some(h) = state.holder() {
        out[HOLDER + rel(h)] = 1.0;
    }
    for (k, &seat) in state.shown_out().iter().enumerate() {
        out[SHOWN + rel(seat)] = 1.0;
        out[SHOWN_ORDER + rel(seat)] = (k + 1) as f32 / MAX_PLAYERS as f32;
    }
    let settings = state.settings();
    let target = match settings.preset {
        Preset::Year => YEAR_GAME_END,
        Preset::Spin => SPIN_WIN,
    } as f32;
    for seat in 0..n {
        let r = rel(seat);
        out[PASSED + r] = (state.passed() >> seat & 1) as f32;
        out[SCORES + r] = state.scores()[seat as usize] as f32 / target;
        out[HAND_SIZES + r] = state.hand_size(seat) as f32 / HAND_NORM;
        out[PRESENT + r] = 1.0;
    }
    if let Some(l) = state.leader() {
        out[LEADER + rel(l)] = 1.0;
    }
    if let Some(c) = state.current_player() {
        out[CURRENT + rel(c)] = 1.0;
    }
    out[STARTER + rel(state.starter())] = 1.0;
    out[DRAW_PILE] = state.draw_pile().len() as f32 / PILE_NORM;
    for s in 0..NUM_SUITS {
        out[SUITS + s] = (state.suits_in_play() >> s & 1) as f32;
    }
    match settings.preset {
        Preset::Year => {
            out[PRESET] = 1.0;
            out[MOOD + (settings.mood == Mood::Flip) as usize] = 1.0;
        }
        Preset::Spin => out[PRESET + 1] = 1.0,
    }
    out[PLAYERS + (n as usize - 2)] = 1.0;
    out[ROUND] = state.round().min(10) as f32 / 10.0;
    out[GAME_OVER] = state.is_over() as u8 as f32;
    out[OWN_TURN] = (state.current_player() == Some(player)) as u8 as f32;
}

/// The observation of `state` for `player`.
pub fn observation(state: &ClimbState, player: u8) -> Vec<f32> {
    let mut out = vec![0.0; OBSERVATION_SIZE];
    observation_into(state, player, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::snapshot::{from_snapshot, snapshot, Snapshot};
    use crate::climb::{ClimbSettings, Move};
    use crate::rng::SplitMix64;

    use crate::climb::rules::test_settings as settings_all;

    /// Rebuild a state from an edited snapshot (the strict rebuild checks the edit is a valid
    /// position).
    fn rebuild(st: &ClimbState, edit: impl FnOnce(&mut Snapshot)) -> ClimbState {
        let mut snap = snapshot(st, &[]);
        edit(&mut snap);
        from_snapshot(&snap, st.settings().deck.clone())
            .expect("an edited snapshot is a valid position")
            .0
    }

    /// Play `moves` random legal moves from a new game.
    fn random_position(
        players: u8,
        seed: u64,
        settings: &ClimbSettings,
        moves: usize,
    ) -> ClimbState {
        let mut st = ClimbState::new(players, seed, settings.clone()).unwrap();
        let mut g = SplitMix64::new(seed ^ 0xABCD);
        let mut legal: Vec<Move> = Vec::new();
        for _ in 0..moves {
            st.legal_moves_into(&mut legal);
            if legal.is_empty() {
                break;
            }
            let m = legal[(g.next() % legal.len() as u64) as usize].clone();
            st.apply_legal(&m);
        }
        st
    }

    fn white_cards_of(st: &ClimbState, seat: u8) -> Vec<u64> {
        cards::ids(st.hand(seat) & !st.blue())
            .map(u64::from)
            .collect()
    }

    fn replace(list: &mut [u64], from: u64, to: u64) {
        let i = list.iter().position(|&c| c == from).unwrap();
        list[i] = to;
        list.sort_unstable();
    }

    #[test]
    fn length_is_fixed_over_presets_and_player_counts() {
        for settings in settings_all() {
            for players in 2..=5u8 {
                let st = random_position(players, players as u64, &settings, 30);
                for p in 0..players {
                    let o = observation(&st, p);
                    assert_eq!(o.len(), OBSERVATION_SIZE);
                    assert!(o.iter().all(|x| x.is_finite() && *x >= 0.0));
                    // Absent seats are zeros.
                    for r in players as usize..MAX_PLAYERS {
                        for base in [PRESENT, HAND_SIZES, SCORES, PASSED, CURRENT, LEADER] {
                            assert_eq!(o[base + r], 0.0);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn hidden_white_cards_between_two_opponents_do_not_show() {
        let mut checked = 0;
        for settings in settings_all() {
            for seed in 0..6u64 {
                let st = random_position(4, seed, &settings, 12 + seed as usize);
                if st.is_over() {
                    continue;
                }
                let (a, b) = (1u8, 2u8);
                let (wa, wb) = (white_cards_of(&st, a), white_cards_of(&st, b));
                let (Some(&ca), Some(&cb)) = (wa.first(), wb.first()) else {
                    continue;
                };
                let swapped = rebuild(&st, |s| {
                    replace(&mut s.hands[a as usize], ca, cb);
                    replace(&mut s.hands[b as usize], cb, ca);
                });
                assert_eq!(observation(&st, 0), observation(&swapped, 0));
                assert_eq!(observation(&st, 3), observation(&swapped, 3));
                assert_ne!(observation(&st, a), observation(&swapped, a));
                assert_ne!(observation(&st, b), observation(&swapped, b));
                checked += 1;
            }
        }
        assert!(checked >= 10, "only {checked} positions checked");
    }

    #[test]
    fn hidden_white_card_between_a_hand_and_the_draw_pile_does_not_show() {
        let mut checked = 0;
        for settings in settings_all() {
            for players in 2..=5u8 {
                let st = random_position(players, 40 + players as u64, &settings, 9);
                if st.is_over() || st.draw_pile().len() < 2 {
                    continue;
                }
                let seat = 1u8;
                let Some(&c) = white_cards_of(&st, seat).first() else {
                    continue;
                };
                let top = st.draw_pile()[0] as u64;
                let moved = rebuild(&st, |s| {
                    replace(&mut s.hands[seat as usize], c, top);
                    s.draw_pile[0] = c;
                });
                // Reorder the pile too.
                let reordered = rebuild(&st, |s| s.draw_pile.reverse());
                for p in (0..players).filter(|&p| p != seat) {
                    assert_eq!(observation(&st, p), observation(&moved, p));
                    assert_eq!(observation(&st, p), observation(&reordered, p));
                }
                assert_ne!(observation(&st, seat), observation(&moved, seat));
                assert_eq!(observation(&st, seat), observation(&reordered, seat));
                checked += 1;
            }
        }
        assert!(checked >= 8, "only {checked} positions checked");
    }

    #[test]
    fn spin_winds_out_of_the_round_do_not_show() {
        // Seat 2's wind and an out-of-the-round wind swap places: nobody but seat 2 can tell.
        let st = ClimbState::new(3, 5, ClimbSettings::preset(Preset::Spin)).unwrap();
        let wind = cards::ids(st.hand(2) & cards::ELEMENTS).next().unwrap() as u64;
        let out = cards::ids(st.out()).next().unwrap() as u64;
        let swapped = rebuild(&st, |s| {
            replace(&mut s.hands[2], wind, out);
            replace(&mut s.out, out, wind);
        });
        assert_eq!(observation(&st, 0), observation(&swapped, 0));
        assert_eq!(observation(&st, 1), observation(&swapped, 1));
        assert_ne!(observation(&st, 2), observation(&swapped, 2));
    }

    #[test]
    fn blue_cards_in_other_hands_are_known() {
        // Seat 1 holds a blue card (it came back from the table): seat 0 sees it; turning it
        // white (a different, private, position) changes what seat 0 sees.
        let st = ClimbState::new(3, 9, ClimbSettings::preset(Preset::Year)).unwrap();
        let c = cards::ids(st.hand(1)).next().unwrap();
        let with_blue = rebuild(&st, |s| {
            s.blue = vec![c as u64];
        });
        let o = observation(&with_blue, 0);
        assert_eq!(o[KNOWN + c as usize], 1.0); // relative seat 1
        assert_eq!(observation(&st, 0)[KNOWN + c as usize], 0.0);
        // Seat 2 sees seat 1 = (2 + 2) % 3 as relative slot 2, the second block.
        let o2 = observation(&with_blue, 2);
        assert_eq!(o2[KNOWN + c as usize], 0.0);
        assert_eq!(o2[KNOWN + ANIMAL_IDS + c as usize], 1.0);
        // Seat 1 sees its own card on the blue channel, not the white one.
        let o1 = observation(&with_blue, 1);
        assert_eq!(o1[HAND_BLUE + c as usize], 1.0);
        assert_eq!(o1[HAND_WHITE + c as usize], 0.0);
    }

    #[test]
    fn offsets_match_the_documented_table() {
        let got = [
            HAND_BLUE,
            KNOWN,
            DISCARD,
            TABLE,
            TABLE_BLUE,
            NO_TO_BEAT,
            TB_KIND,
            TB_RANK,
            TB_SCALARS,
            TB_MAKER,
            HOLDER,
            PASSED,
            SHOWN,
            SHOWN_ORDER,
            SCORES,
            HAND_SIZES,
            PRESENT,
            LEADER,
            CURRENT,
            STARTER,
            DRAW_PILE,
            SUITS,
            PRESET,
            MOOD,
            PLAYERS,
            ROUND,
            GAME_OVER,
            OWN_TURN,
        ];
        let doc = [
            70, 135, 395, 465, 790, 855, 856, 861, 874, 880, 885, 890, 895, 900, 905, 910, 915,
            920, 925, 930, 935, 936, 941, 943, 945, 949, 950, 951,
        ];
        assert_eq!(got, doc);
    }

    #[test]
    fn layout_spot_checks() {
        let st = ClimbState::new(4, 3, ClimbSettings::preset(Preset::Year)).unwrap();
        let lead = st.current_player().unwrap();
        let o = observation(&st, lead);
        for id in cards::ids(st.hand(lead)) {
            assert_eq!(o[HAND_WHITE + id as usize], 1.0);
        }
        assert_eq!(
            o[HAND_WHITE..HAND_WHITE + ALL_IDS].iter().sum::<f32>(),
            12.0
        );
        assert_eq!(o[NO_TO_BEAT], 1.0);
        assert_eq!(o[CURRENT], 1.0);
        assert_eq!(o[OWN_TURN], 1.0);
        assert_eq!(o[LEADER], 1.0);
        assert_eq!(o[STARTER], 1.0);
        assert_eq!(o[PRESET], 1.0);
        assert_eq!(o[MOOD], 1.0);
        assert_eq!(o[PLAYERS + 2], 1.0);
        assert_eq!(o[ROUND], 0.1);
        assert!((o[HAND_SIZES + 3] - 1.0).abs() < 1e-6);
        assert!((o[DRAW_PILE] - 8.0 / 65.0).abs() < 1e-6);
        assert_eq!(o[SUITS..SUITS + 5].iter().sum::<f32>(), 4.0);
        // The next seat sees the leader one place to its right: relative slot 3.
        let next = (lead + 1) % 4;
        let o = observation(&st, next);
        assert_eq!(o[CURRENT + 3], 1.0);
        assert_eq!(o[OWN_TURN], 0.0);

        // After a lead: the table, the play to beat, its maker and holder.
        let mut st = st;
        let m = st
            .legal_moves()
            .into_iter()
            .find(|m| m.kind == Kind::Single)
            .unwrap();
        st.apply_legal(&m);
        let id = m.cards.trailing_zeros() as usize;
        let o = observation(&st, next);
        assert_eq!(o[TABLE + 3 * ANIMAL_IDS + id], 1.0);
        assert_eq!(o[NO_TO_BEAT], 0.0);
        assert_eq!(o[TB_KIND], 1.0);
        assert_eq!(o[TB_RANK + cards::white_rank(id as u8) as usize], 1.0);
        assert_eq!(o[TB_SCALARS + 1], 1.0 / 16.0);
        assert_eq!(o[TB_MAKER + 3], 1.0);
        assert_eq!(o[HOLDER + 3], 1.0);
        assert_eq!(o[CURRENT], 1.0);
        assert!((o[HAND_SIZES + 3] - 11.0 / 12.0).abs() < 1e-6);
        // The card left the leader's own hand channel.
        assert_eq!(observation(&st, lead)[HAND_WHITE + id], 0.0);
        assert_eq!(observation(&st, lead)[TABLE + id], 1.0);

        // spin: preset slot, no mood.
        let st = ClimbState::new(2, 3, ClimbSettings::preset(Preset::Spin)).unwrap();
        let o = observation(&st, 0);
        assert_eq!(o[PRESET + 1], 1.0);
        assert_eq!(o[MOOD] + o[MOOD + 1], 0.0);
        assert_eq!(o[PLAYERS], 1.0);
        assert_eq!(o[SUITS..SUITS + 5].iter().sum::<f32>(), 5.0);
    }

    #[test]
    fn observations_over_random_games_stay_consistent() {
        // Passed, shown-out and score blocks follow the state through whole games.
        for settings in settings_all() {
            for players in 2..=5u8 {
                let mut st =
                    ClimbState::new(players, 77 + players as u64, settings.clone()).unwrap();
                let mut g = SplitMix64::new(players as u64);
                let mut legal = Vec::new();
                let mut steps = 0;
                while !st.is_over() && steps < 400 {
                    for p in 0..players {
                        let o = observation(&st, p);
                        for q in 0..players {
                            let r = ((q + players - p) % players) as usize;
                            assert_eq!(o[PASSED + r], (st.passed() >> q & 1) as f32);
                            assert_eq!(o[SHOWN + r] == 1.0, st.shown_out().contains(&q));
                            // Known cards of others are exactly their blue cards.
                            if r > 0 {
                                let known: f32 =
                                    o[KNOWN + (r - 1) * ANIMAL_IDS..][..ANIMAL_IDS].iter().sum();
                                assert_eq!(known as u32, cards::count(st.hand(q) & st.blue()));
                            }
                        }
                    }
                    st.legal_moves_into(&mut legal);
                    let m = legal[(g.next() % legal.len() as u64) as usize].clone();
                    st.apply_legal(&m);
                    steps += 1;
                }
            }
        }
    }
}
