//! One decision of a built-in bot for the player to move, for callers that drive a game
//! themselves (the Python `bot_action`/`bot_move`, the Gymnasium opponents, user tournaments).

use super::bot_game::BotGame;
use super::kind::BotKind;
use crate::contract::{Determinize, GameState, HeuristicPolicy, Learned, RecordedGame};
use crate::error::EngineError;
use crate::interrupt::{Interrupt, NEVER};
use crate::nn::Scratch;
use crate::rng::SplitMix64;
use crate::search::{guided_move_until, ismcts_move_until};

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

/// [`decision_until`] without an interrupt.
pub fn decision<R>(game: &R, kind: &BotKind, seed: u64) -> Result<MoveOf<R>, EngineError>
where
    R: RecordedGame,
    R::State: BotGame,
{
    decision_until(game, kind, seed, &NEVER)
}
