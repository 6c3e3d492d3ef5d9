//! One decision of a built-in bot for the player to move, for callers that drive a game
//! themselves (the Python `bot_action`/`bot_move`, the Gymnasium opponents, user tournaments).

use super::BotKind;
use crate::error::{EngineError, StateError};
use crate::game::{Determinize, Game, HeuristicPolicy, Recorded};
use crate::interrupt::{Interrupt, NEVER};
use crate::rng::SplitMix64;
use crate::search::{ismcts_move_until, Searchable};

/// The move of a game's state.
pub type MoveOf<R> = <<R as Recorded>::State as Game>::Move;

/// The move `kind` picks in `game` for the player to move; `seed` drives its randomness. A
/// search (ISMCTS) uses what the game's history reveals and ends early once `stop` is set (the
/// caller is being cancelled: the move is legal but not a full-strength decision).
pub fn decision_until<R>(
    game: &R,
    kind: BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<MoveOf<R>, EngineError>
where
    R: Recorded,
    R::State: Searchable,
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
            ismcts_move_until(state, &mut memory, iterations, seed, stop)
        }
    }
}

/// [`decision_until`] without an interrupt.
pub fn decision<R>(game: &R, kind: BotKind, seed: u64) -> Result<MoveOf<R>, EngineError>
where
    R: Recorded,
    R::State: Searchable,
{
    decision_until(game, kind, seed, &NEVER)
}

/// [`decision`] for a Panda Head game: an action id.
pub fn head_decision<R>(game: &R, kind: BotKind, seed: u64) -> Result<MoveOf<R>, EngineError>
where
    R: Recorded,
    R::State: Searchable,
{
    decision_until(game, kind, seed, &NEVER)
}

/// [`decision_until`] for a Panda Head game: an action id.
pub fn head_decision_until<R>(
    game: &R,
    kind: BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<MoveOf<R>, EngineError>
where
    R: Recorded,
    R::State: Searchable,
{
    decision_until(game, kind, seed, stop)
}

/// The index in `legal` (the legal moves of the game's state, canonical order) of the move
/// `kind` picks.
pub fn climb_decision<R>(
    game: &R,
    legal: &[MoveOf<R>],
    kind: BotKind,
    seed: u64,
) -> Result<usize, EngineError>
where
    R: Recorded,
    R::State: Searchable,
{
    climb_decision_until(game, legal, kind, seed, &NEVER)
}

/// [`climb_decision`] whose search ends early once `stop` is set (as [`decision_until`]).
pub fn climb_decision_until<R>(
    game: &R,
    legal: &[MoveOf<R>],
    kind: BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<usize, EngineError>
where
    R: Recorded,
    R::State: Searchable,
{
    if legal.is_empty() {
        return Err(EngineError::GameOver);
    }
    let mv = decision_until(game, kind, seed, stop)?;
    legal.binary_search(&mv).map_err(|_| {
        StateError(format!(
            "the bot's move {mv:?} is not in the {} legal moves given",
            legal.len()
        ))
        .into()
    })
}
