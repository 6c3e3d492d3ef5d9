//! The generic consumers (batch simulation, bots, search) on every game: determinism, records
//! that replay the batch, interrupts, bad requests.

use panda_core::bots::decide::decision;
use panda_core::bots::{BotKind, Neural};
use panda_core::climb::{ClimbGame, ClimbSettings, ClimbState, Mood, Preset};
use panda_core::contract::{GameState, RecordedGame};
use panda_core::error::EngineError;
use panda_core::head::{HeadGame, HeadRules, HeadState};
use panda_core::interrupt::{Interrupt, NEVER};
use panda_core::rng::SplitMix64;
use panda_core::search::{ismcts_move, ismcts_move_until};
use panda_core::sim::{records_until, simulate, simulate_rounds, simulate_until, MAX_BATCH_GAMES};

#[test]
fn head_batches_are_deterministic_whatever_the_thread_count() {
    let bots = [
        BotKind::Random,
        BotKind::Heuristic,
        BotKind::Random,
        BotKind::Random,
    ];
    let rules = HeadRules::default();
    let one = simulate::<HeadState>(0, 300, 4, &rules, &bots, 9, Some(1)).unwrap();
    let two = simulate::<HeadState>(0, 300, 4, &rules, &bots, 9, Some(2)).unwrap();
    assert_eq!(one, two);
    let tail = simulate::<HeadState>(100, 200, 4, &rules, &bots, 9, None).unwrap();
    assert_eq!(&one[100..], &tail[..]);
    assert!(one.iter().all(|g| g.rounds > 0 && (g.winner as usize) < 4));
}

#[test]
fn climb_batches_are_deterministic_whatever_the_thread_count() {
    for settings in [
        ClimbSettings::preset(Preset::Year),
        ClimbSettings::preset(Preset::Year).with_mood(Mood::Flip),
        ClimbSettings::preset(Preset::Spin),
    ] {
        let bots = [BotKind::Random, BotKind::Heuristic, BotKind::Random];
        let one = simulate::<ClimbState>(0, 40, 3, &settings, &bots, 9, Some(1)).unwrap();
        let two = simulate::<ClimbState>(0, 40, 3, &settings, &bots, 9, Some(2)).unwrap();
        assert_eq!(one, two);
        let tail = simulate::<ClimbState>(10, 30, 3, &settings, &bots, 9, None).unwrap();
        assert_eq!(&one[10..], &tail[..]);
        assert!(one.iter().all(|g| g.rounds >= 1 && (g.winner as usize) < 3));
    }
}

#[test]
fn head_records_replay_the_batch_games() {
    let bots = [
        BotKind::Random,
        BotKind::Heuristic,
        BotKind::Ismcts { iterations: 5 },
    ];
    let rules = HeadRules::default();
    let outcomes = simulate::<HeadState>(4, 6, 3, &rules, &bots, 21, Some(2)).unwrap();
    let records = records_until::<HeadGame>(4, 6, 3, &rules, &bots, 21, Some(2), &NEVER)
        .unwrap()
        .unwrap();
    for (o, r) in outcomes.iter().zip(&records) {
        let game = panda_core::head::record::from_json(r).unwrap();
        assert_eq!(game.state().winner(), Some(o.winner));
        assert_eq!(game.state().scores(), &o.scores[..3]);
        assert_eq!(game.history().len(), o.decisions as usize);
        assert_eq!(game.hand_results().len(), o.rounds as usize);
    }
}

#[test]
fn climb_records_replay_the_batch_games() {
    for preset in [Preset::Year, Preset::Spin] {
        let settings = ClimbSettings::preset(preset);
        let bots = [BotKind::Random, BotKind::Heuristic, BotKind::Random];
        let outcomes = simulate::<ClimbState>(2, 5, 3, &settings, &bots, 8, Some(2)).unwrap();
        let records = records_until::<ClimbGame>(2, 5, 3, &settings, &bots, 8, Some(2), &NEVER)
            .unwrap()
            .unwrap();
        for (o, r) in outcomes.iter().zip(&records) {
            let game = panda_core::climb::record::from_json(r).unwrap();
            assert_eq!(game.state().winner(), Some(o.winner));
            assert_eq!(game.state().scores(), &o.scores[..3]);
            assert_eq!(game.history().len(), o.decisions as usize);
            assert_eq!(game.state().round(), o.rounds);
        }
    }
}

#[test]
fn a_set_interrupt_stops_a_batch_and_a_search() {
    let stop = Interrupt::new();
    stop.stop();
    let bots = [
        BotKind::Ismcts {
            iterations: 1_000_000,
        },
        BotKind::Random,
    ];
    let rules = HeadRules::default();
    let r = simulate_until::<HeadState>(0, 1000, 2, &rules, &bots, 1, Some(2), &stop);
    assert_eq!(r.unwrap(), None);
    // A search stopped at once still answers with a legal action (one iteration).
    let game = HeadGame::new(4, 3, rules).unwrap();
    let a = panda_core::bots::decide::decision_until(
        &game,
        &BotKind::Ismcts {
            iterations: 1_000_000,
        },
        0,
        &stop,
    )
    .unwrap();
    assert!(game.state().legal_actions() & (1 << a) != 0);
}

#[test]
fn bad_requests_are_refused_before_any_work() {
    let bots = [BotKind::Random, BotKind::Random];
    let rules = HeadRules::default();
    let r = simulate::<HeadState>(0, MAX_BATCH_GAMES + 1, 2, &rules, &bots, 0, None);
    assert!(matches!(r, Err(EngineError::Rules(_))));
    let r = simulate::<HeadState>(u64::MAX, 2, 2, &rules, &bots, 0, None);
    assert!(matches!(r, Err(EngineError::Rules(_))));
    let r = simulate::<HeadState>(0, 1, 2, &rules, &bots, 0, Some(100_000));
    assert!(matches!(r, Err(EngineError::Rules(_))));
    let r = simulate::<HeadState>(0, 1, 3, &rules, &[BotKind::Random], 0, Some(1));
    assert!(matches!(r, Err(EngineError::Rules(_))));
    let s = ClimbSettings::default();
    let r = simulate::<ClimbState>(0, 1, 3, &s, &[BotKind::Random], 0, Some(1));
    assert!(matches!(r, Err(EngineError::Rules(_))));
    let r = simulate::<ClimbState>(0, 1, 6, &s, &[const { BotKind::Random }; 6], 0, Some(1));
    assert!(matches!(r, Err(EngineError::Rules(_))));
}

#[test]
fn random_rounds_count_their_decisions() {
    let d = simulate_rounds::<HeadState>(50, 4, &HeadRules::default(), 3).unwrap();
    // A hand is 7 piles of one play per active seat (4 seats at the start of a game).
    assert!(d >= 50 * 7 * 2, "{d}");
    assert_eq!(
        d,
        simulate_rounds::<HeadState>(50, 4, &HeadRules::default(), 3).unwrap()
    );
    let d = simulate_rounds::<ClimbState>(20, 3, &ClimbSettings::default(), 3).unwrap();
    assert!(d >= 20 * 3, "{d}");
}

#[test]
fn decisions_are_legal_and_seeded() {
    let mut game = HeadGame::new(4, 3, HeadRules::default()).unwrap();
    for step in 0..60 {
        let kind = match step % 4 {
            0 => BotKind::Random,
            1 => BotKind::Heuristic,
            2 => BotKind::Neural(Neural::Shipped),
            _ => BotKind::Ismcts { iterations: 10 },
        };
        let a = decision(&game, &kind, step).unwrap();
        assert_eq!(a, decision(&game, &kind, step).unwrap());
        game.apply(a).unwrap();
    }
    let mut game = ClimbGame::new(3, 4, ClimbSettings::default()).unwrap();
    for step in 0..30 {
        let legal = game.legal_moves();
        let kind = match step % 4 {
            0 => BotKind::Random,
            1 => BotKind::Heuristic,
            2 => BotKind::Neural(Neural::Shipped),
            _ => BotKind::Ismcts { iterations: 8 },
        };
        let mv = decision(&game, &kind, step).unwrap();
        assert_eq!(mv, decision(&game, &kind, step).unwrap());
        assert!(legal.binary_search(&mv).is_ok(), "the bot's move is legal");
        game.apply(&mv).unwrap();
        if game.state().is_over() {
            break;
        }
    }
}

#[test]
fn a_finished_game_has_no_decision() {
    let mut game = HeadGame::new(2, 5, HeadRules::default()).unwrap();
    while !game.state().is_over() {
        let a = decision(&game, &BotKind::Random, 1).unwrap();
        game.apply(a).unwrap();
    }
    for kind in [
        BotKind::Random,
        BotKind::Heuristic,
        BotKind::Ismcts { iterations: 3 },
    ] {
        assert!(matches!(
            decision(&game, &kind, 0),
            Err(EngineError::GameOver)
        ));
    }
    assert!(RecordedGame::state(&game).is_over());
}

/// ISMCTS with few iterations clearly beats uniform random play (seat 0 of 4 would win a quarter
/// of the games by chance).
#[test]
fn ismcts_beats_random_in_panda_head() {
    let bots = [
        BotKind::Ismcts { iterations: 30 },
        BotKind::Random,
        BotKind::Random,
        BotKind::Random,
    ];
    let games = 24;
    let r = simulate::<HeadState>(0, games, 4, &HeadRules::default(), &bots, 1, Some(2)).unwrap();
    let wins = r.iter().filter(|g| g.winner == 0).count();
    assert!(wins >= 14, "ISMCTS won {wins} of {games}");
}

#[test]
fn ismcts_beats_random_in_the_climbing_games() {
    for preset in [Preset::Year, Preset::Spin] {
        let bots = [
            BotKind::Ismcts { iterations: 25 },
            BotKind::Random,
            BotKind::Random,
        ];
        let games = 10;
        let settings = ClimbSettings::preset(preset);
        let r = simulate::<ClimbState>(0, games, 3, &settings, &bots, 1, Some(2)).unwrap();
        let wins = r.iter().filter(|g| g.winner == 0).count();
        assert!(wins >= 7, "{preset:?}: ISMCTS won {wins} of {games}");
    }
}

#[test]
fn the_contract_lists_what_apply_accepts() {
    let mut st = <ClimbState as GameState>::new(4, 11, &ClimbSettings::default()).unwrap();
    let mut legal = Vec::new();
    let mut rng = panda_core::rng::SplitMix64::new(1);
    for _ in 0..200 {
        if GameState::is_over(&st) {
            break;
        }
        GameState::legal_moves_into(&st, &mut legal).unwrap();
        assert!(legal.windows(2).all(|w| w[0] < w[1]));
        let m = st
            .random_move(&mut rng, &mut legal)
            .unwrap()
            .into_move(&legal);
        let mut checked = st.clone();
        GameState::apply(&mut checked, &m).unwrap();
        GameState::apply_legal(&mut st, &m).unwrap();
        assert_eq!(GameState::scores(&st), GameState::scores(&checked));
    }
}

#[test]
fn head_entry_point_is_legal_and_deterministic() {
    let mut game = HeadGame::new(4, 3, HeadRules::default()).unwrap();
    let mut k = 0;
    while !game.state().is_over() && k < 60 {
        let decide = |k| ismcts_move_until(game.state(), &mut game.search_memory(), 20, k, &NEVER);
        let a = decide(k).unwrap();
        assert!(game.state().legal_actions() & (1 << a) != 0);
        assert_eq!(a, decide(k).unwrap());
        game.apply(a).unwrap();
        k += 1;
    }
}

#[test]
fn climb_entry_point_is_legal_and_deterministic() {
    for preset in [Preset::Year, Preset::Spin] {
        let mut st = ClimbState::new(3, 5, ClimbSettings::preset(preset)).unwrap();
        for k in 0..25 {
            if st.is_over() {
                break;
            }
            let legal = st.legal_moves();
            let m = ismcts_move(&st, 10, k).unwrap();
            assert!(legal.binary_search(&m).is_ok());
            assert_eq!(m, ismcts_move(&st, 10, k).unwrap());
            st.apply_legal(&m);
        }
    }
}

#[test]
fn a_finished_game_has_no_search_move() {
    let mut st = HeadState::new(2, 1, HeadRules::default()).unwrap();
    let mut legal = Vec::new();
    for k in 0..20 {
        let m = ismcts_move(&st, 3, k).unwrap();
        GameState::legal_moves_into(&st, &mut legal).unwrap();
        assert!(legal.contains(&m));
        HeadState::apply(&mut st, m).unwrap();
    }
    let mut rng = SplitMix64::new(2);
    while !st.is_over() {
        let m = st
            .random_move(&mut rng, &mut legal)
            .unwrap()
            .into_move(&legal);
        HeadState::apply(&mut st, m).unwrap();
    }
    assert!(matches!(ismcts_move(&st, 3, 0), Err(EngineError::GameOver)));
}
