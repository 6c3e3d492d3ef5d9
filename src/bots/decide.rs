//! One decision of a built-in bot for the player to move, for callers that drive a game
//! themselves (the Python `bot_action`/`bot_move`, the Gymnasium opponents, user tournaments).

use super::climb_heuristic::ClimbHeuristicBot;
use super::climb_random::ClimbRandomBot;
use super::head_heuristic::HeuristicBot;
use super::random::RandomBot;
use super::{BotKind, ClimbBot, HeadBot};
use crate::climb::{ClimbState, Move};
use crate::error::EngineError;
use crate::head::{ActionId, HeadGame};

/// The action `kind` picks in `game` for the player to move; `seed` drives its randomness.
pub fn head_decision(game: &HeadGame, kind: BotKind, seed: u64) -> Result<ActionId, EngineError> {
    let state = game.state();
    if state.is_over() {
        return Err(EngineError::GameOver);
    }
    let legal = state.legal_actions();
    Ok(match kind {
        BotKind::Random => RandomBot::new(seed).pick(legal),
        BotKind::Heuristic => HeuristicBot.choose(state, legal),
    })
}

/// The index in `legal` (the legal moves of `state`, canonical order) that `kind` picks.
pub fn climb_decision(
    state: &ClimbState,
    legal: &[Move],
    kind: BotKind,
    seed: u64,
) -> Result<usize, EngineError> {
    if state.is_over() || legal.is_empty() {
        return Err(EngineError::GameOver);
    }
    Ok(match kind {
        BotKind::Random => ClimbRandomBot::new(seed).choose(state, legal),
        BotKind::Heuristic => ClimbHeuristicBot.choose(state, legal),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::climb::ClimbSettings;
    use crate::head::HeadRules;

    #[test]
    fn decisions_are_legal_and_seeded() {
        let mut game = HeadGame::new(4, 3, HeadRules::default()).unwrap();
        for step in 0..60 {
            let kind = if step % 2 == 0 { BotKind::Random } else { BotKind::Heuristic };
            let a = head_decision(&game, kind, step).unwrap();
            assert_eq!(a, head_decision(&game, kind, step).unwrap());
            game.apply(a).unwrap();
        }
        let mut state = ClimbState::new(3, 4, ClimbSettings::default()).unwrap();
        for step in 0..60 {
            let legal = state.legal_moves();
            let i = climb_decision(&state, &legal, BotKind::Random, step).unwrap();
            state.apply(&legal[i]).unwrap();
            if state.is_over() {
                break;
            }
        }
    }
}
