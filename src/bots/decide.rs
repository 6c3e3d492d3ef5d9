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
