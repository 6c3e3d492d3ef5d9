//! One decision of a built-in bot for the player to move, for callers that drive a game
//! themselves (the Python `bot_action`/`bot_move`, the Gymnasium opponents, user tournaments).

use super::bot_game::BotGame;
use super::kind::BotKind;
use crate::contract::{Determinize, GameState, HeuristicPolicy, Learned, RecordedGame};
use crate::error::EngineError;
use crate::interrupt::{Interrupt, NEVER};
use crate::nn::Scratch;
use crate::rng::SplitMix64;
use crate::search::{
    guided_move_until, guided_root_stats_until, ismcts_move_until, ismcts_stats_until, RootStat,
};

pub use crate::contract::MoveOf;

/// The move `kind` picks in `game` for the player to move; `seed` drives its randomness. A
/// search (`ismcts`, `ismcts+neural`) uses what the game's history reveals and ends early once
/// `stop` is set (the caller is being cancelled: the move is legal but not a full-strength
/// decision).
pub fn decision_until<R>(
    game: &R,
    kind: &BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<MoveOf<R>, EngineError>
where
    R: RecordedGame,
    R::State: BotGame,
{
    let state = game.state();
    if state.is_over() {
        return Err(EngineError::GameOver);
    }
    let mut buf = Vec::new();
    match kind {
        BotKind::Random => Ok(state
            .random_move(&mut SplitMix64::new(seed), &mut buf)?
            .into_move(&buf)),
        BotKind::Heuristic => Ok(state.heuristic_move(&mut buf)?.into_move(&buf)),
        BotKind::Ismcts { iterations } => {
            let mut memory: <R::State as Determinize>::Memory = game.search_memory();
            ismcts_move_until(state, &mut memory, *iterations, seed, stop)
        }
        BotKind::Neural(neural) => {
            let policy = neural.policy_for::<R::State>(state.settings_of())?;
            Ok(state
                .neural_move(&policy, &mut Scratch::default(), &mut buf)?
                .into_move(&buf))
        }
        BotKind::Guided { iterations, .. } => {
            let policy = kind
                .policy_for::<R::State>(state.settings_of())?
                .expect("a guided bot's policy");
            let mut memory: <R::State as Determinize>::Memory = game.search_memory();
            guided_move_until(state, &mut memory, &policy, *iterations, seed, stop)
        }
    }
}

/// A legal move of a search decision with its root statistics ([`search_stats_until`]).
#[derive(Clone, Debug, PartialEq)]
pub struct MoveStat<M> {
    pub mv: M,
    /// Iterations through the move at the root (0 for a move the search never tried, and for
    /// the one move of a forced decision, which is not searched).
    pub visits: u32,
    /// The move's mean value for the player to move on the round scale in `[-1, 1]` (0 when
    /// unvisited): [`round_scale`] of the search's `[0, 1]` mean.
    pub value: f64,
}

/// A search's root mean in `[0, 1]` (the value the game's `SearchValue` gives the end of the
/// round, or a won/lost game) on the scale of the vector env's round values, `2 v - 1` in
/// `[-1, 1]` (`vecenv/round.rs` computes those from the same function): what a learned value
/// trained with `--target round` predicts.
#[inline]
pub fn round_scale(mean: f64) -> f64 {
    (2.0 * mean - 1.0).clamp(-1.0, 1.0)
}

/// The root statistics of the decision `kind` (a search: `ismcts`, `ismcts+neural`) makes for
/// the player to move in `game`, one per legal move in the order of the legal list, and the
/// index of the move the search plays (the one [`decision_until`] returns for the same `seed`:
/// the same search, run once). `None` for a bot that does not search.
#[allow(clippy::type_complexity)]
pub fn search_stats_until<R>(
    game: &R,
    kind: &BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<Option<(Vec<MoveStat<MoveOf<R>>>, usize)>, EngineError>
where
    R: RecordedGame,
    R::State: BotGame,
{
    let state = game.state();
    if state.is_over() {
        return Err(EngineError::GameOver);
    }
    let best_first = match kind {
        BotKind::Ismcts { iterations } => {
            let mut memory: <R::State as Determinize>::Memory = game.search_memory();
            ismcts_stats_until(state, &mut memory, *iterations, seed, stop)?
        }
        BotKind::Guided { iterations, .. } => {
            let policy = kind
                .policy_for::<R::State>(state.settings_of())?
                .expect("a guided bot's policy");
            let mut memory: <R::State as Determinize>::Memory = game.search_memory();
            guided_root_stats_until(state, &mut memory, &policy, *iterations, seed, stop)?
        }
        BotKind::Random | BotKind::Heuristic | BotKind::Neural(_) => return Ok(None),
    };
    let mut legal = Vec::new();
    state.legal_moves_into(&mut legal)?;
    Ok(Some(in_legal_order(best_first, legal)?))
}

/// Statistics listed best first, as one per move of `legal` (in its order) and the index of the
/// best; a legal move without statistics (never tried) is unvisited.
fn in_legal_order<M: Ord + Clone>(
    best_first: Vec<RootStat<M>>,
    legal: Vec<M>,
) -> Result<(Vec<MoveStat<M>>, usize), EngineError> {
    let best = best_first
        .first()
        .ok_or_else(|| EngineError::Invariant("a search returned no root move".into()))?
        .action
        .clone();
    let mut by_move = best_first;
    by_move.sort_by(|a, b| a.action.cmp(&b.action));
    let stats: Vec<MoveStat<M>> = legal
        .into_iter()
        .map(|mv| match by_move.binary_search_by(|s| s.action.cmp(&mv)) {
            Ok(i) if by_move[i].visits > 0 => MoveStat {
                mv,
                visits: by_move[i].visits,
                value: round_scale(by_move[i].mean),
            },
            _ => MoveStat {
                mv,
                visits: 0,
                value: 0.0,
            },
        })
        .collect();
    let index = stats.iter().position(|s| s.mv == best).ok_or_else(|| {
        EngineError::Invariant("a search's best move is not among the legal moves".into())
    })?;
    Ok((stats, index))
}

/// [`decision_until`] without an interrupt.
pub fn decision<R>(game: &R, kind: &BotKind, seed: u64) -> Result<MoveOf<R>, EngineError>
where
    R: RecordedGame,
    R::State: BotGame,
{
    decision_until(game, kind, seed, &NEVER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::{ClimbGame, ClimbSettings, Preset};
    use crate::contract::{GameState, Horizon, SearchValue};
    use crate::head::{HeadGame, HeadRules};
    use crate::vecenv::RoundValue;

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
            let again = search_stats_until(&game, kind, seed, &NEVER).unwrap().unwrap();
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
            let mv = game.state().heuristic_move(&mut buf).unwrap().into_move(&buf);
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
            assert!(search_stats_until(&head, &kind, 0, &NEVER).unwrap().is_none());
        }
    }

    #[test]
    fn the_round_scale_maps_the_search_values_ends_to_the_round_values_ends() {
        assert_eq!(round_scale(0.0), -1.0);
        assert_eq!(round_scale(0.5), 0.0);
        assert_eq!(round_scale(1.0), 1.0);
        assert_eq!(round_scale(0.75), 0.5);
    }

    #[test]
    fn statistics_follow_the_legal_order_and_keep_the_best() {
        let stat = |action: u8, visits: u32, mean: f64| RootStat {
            action,
            visits,
            mean,
        };
        // Best first, as a search lists them; 4 was never tried, 2 has no visit.
        let best_first = vec![stat(7, 10, 0.75), stat(1, 3, 0.25), stat(2, 0, 0.9)];
        let (stats, best) = in_legal_order(best_first, vec![1, 2, 4, 7]).unwrap();
        let got: Vec<(u8, u32, f64)> = stats.iter().map(|s| (s.mv, s.visits, s.value)).collect();
        assert_eq!(got, [(1, 3, -0.5), (2, 0, 0.0), (4, 0, 0.0), (7, 10, 0.5)]);
        assert_eq!(best, 3);
        assert!(in_legal_order(Vec::<RootStat<u8>>::new(), vec![1]).is_err());
        assert!(in_legal_order(vec![stat(9, 1, 0.5)], vec![1]).is_err());
    }
}
