//! Tests of the state machine: random games with invariants, the setup draws, and rule
//! scenarios on hand-built positions.

use super::*;
use crate::climb::cards::ELEMENTS;
use crate::climb::movegen::MAX_LEGAL_MOVES;
use crate::climb::moves::Steal;
use crate::climb::recorded::ClimbGame;
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
        l.contains(&"element Ea!".to_string()) && l.contains(&"discard_element Ea!".to_string())
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
                let _ =
                    crate::climb::encoding::move_features(game.state(), std::slice::from_ref(&mv));
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

mod measure {
    use super::*;
    use crate::climb::recorded::ClimbGame;
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
