//! A search bot's root statistics (`bots::decide::search_stats_until`) on the real games: the
//! same search as the bot's decision, its values on the vector env's round scale.

use panda_core::bots::decide::{decision, round_scale, search_stats_until};
use panda_core::bots::{BotGame, BotKind};
use panda_core::climb::{ClimbGame, ClimbSettings, Preset};
use panda_core::contract::{GameState, HeuristicPolicy, Horizon, RecordedGame, SearchValue};
use panda_core::head::{HeadGame, HeadRules};
use panda_core::interrupt::NEVER;
use panda_core::vecenv::RoundValue;

/// Plays `game` with the heuristic and, at every round end, checks that the vector env's
/// round value (the `--target round` target) is [`round_scale`] of the value a search
/// started at the round's first decision gives that end: the two scales differ only by it.
fn round_values_are_the_search_values_on_the_round_scale<R>(mut game: R) -> usize
where
    R: RecordedGame,
    R::State: BotGame + RoundValue,
{
    let mut round_start = game.state().clone();
    let mut ends = 0;
    let mut buf = Vec::new();
    while !game.state().is_over() {
        let before = game.state().clone();
        let mv = before.heuristic_move(&mut buf).unwrap().into_move(&buf);
        let root = before.round_root();
        let Some(end) = game.apply_legal(&mv).unwrap() else {
            continue;
        };
        let after = game.state();
        let players = usize::from(after.players());
        let mut env = vec![0f32; players];
        after.round_values(&root, &end, &mut env);
        for (seat, &target) in env.iter().enumerate() {
            let v = after.search_value(
                &round_start.search_root(),
                Some(&end),
                seat as u8,
                Horizon::Hand,
            );
            assert!((0.0..=1.0).contains(&v));
            assert!(
                (round_scale(v) as f32 - target).abs() < 1e-6,
                "seat {seat}: search {v} vs round {target}"
            );
        }
        ends += 1;
        round_start = after.clone();
    }
    ends
}

#[test]
fn the_round_scale_is_the_vector_envs_round_value_in_every_game() {
    for seed in 0..3 {
        let head = HeadGame::new(4, seed, HeadRules::default()).unwrap();
        assert!(round_values_are_the_search_values_on_the_round_scale(head) > 0);
        for preset in [Preset::Year, Preset::Spin] {
            let climb = ClimbGame::new(4, seed, ClimbSettings::preset(preset)).unwrap();
            assert!(round_values_are_the_search_values_on_the_round_scale(climb) > 0);
        }
    }
}

/// At every decision of a heuristic game: the statistics list the legal moves in order,
/// their best is the move [`decision_until`] plays for the same seed, and the counts and
/// values are those of one search.
fn stats_agree_with_the_decision<R>(mut game: R, kind: &BotKind, iterations: u32) -> usize
where
    R: RecordedGame,
    R::State: BotGame,
{
    let mut searched = 0;
    let mut buf = Vec::new();
    let mut step = 0u64;
    while !game.state().is_over() {
        let seed = 1000 + step;
        let (stats, best) = search_stats_until(&game, kind, seed, &NEVER)
            .unwrap()
            .unwrap();
        let mut legal = Vec::new();
        game.state().legal_moves_into(&mut legal).unwrap();
        assert!(stats.iter().map(|s| &s.mv).eq(legal.iter()));
        assert_eq!(stats[best].mv, decision(&game, kind, seed).unwrap());
        let again = search_stats_until(&game, kind, seed, &NEVER)
            .unwrap()
            .unwrap();
        assert_eq!(again, (stats.clone(), best));
        let total: u32 = stats.iter().map(|s| s.visits).sum();
        if legal.len() == 1 {
            assert_eq!((stats[0].visits, stats[0].value), (0, 0.0));
        } else {
            searched += 1;
            assert!(total > 0 && total <= iterations);
        }
        for s in &stats {
            assert!((-1.0..=1.0).contains(&s.value));
            assert!(s.visits > 0 || s.value == 0.0);
            assert!(s.visits <= stats[best].visits);
        }
        let mv = game
            .state()
            .heuristic_move(&mut buf)
            .unwrap()
            .into_move(&buf);
        game.apply_legal(&mv).unwrap();
        step += 1;
    }
    searched
}

#[test]
fn search_statistics_are_the_decisions_in_every_game() {
    let kind = BotKind::Ismcts { iterations: 24 };
    let head = HeadGame::new(4, 5, HeadRules::default()).unwrap();
    assert!(stats_agree_with_the_decision(head, &kind, 24) > 10);
    for preset in [Preset::Year, Preset::Spin] {
        let climb = ClimbGame::new(3, 5, ClimbSettings::preset(preset)).unwrap();
        assert!(stats_agree_with_the_decision(climb, &kind, 24) > 10);
    }
}

#[test]
fn bots_that_do_not_search_have_no_statistics() {
    let head = HeadGame::new(4, 1, HeadRules::default()).unwrap();
    for kind in [BotKind::Random, BotKind::Heuristic] {
        assert!(search_stats_until(&head, &kind, 0, &NEVER)
            .unwrap()
            .is_none());
    }
}
