//! One decision of a built-in bot for the player to move, for callers that drive a game
//! themselves (the Python `bot_action`/`bot_move`, the Gymnasium opponents, user tournaments).

use super::climb_heuristic::ClimbHeuristicBot;
use super::climb_random::ClimbRandomBot;
use super::head_heuristic::HeuristicBot;
use super::random::RandomBot;
use super::{BotKind, ClimbBot, HeadBot};
use crate::climb::determinize::wind_holders;
use crate::climb::{ClimbGame, Move};
use crate::error::EngineError;
use crate::head::{ActionId, HeadGame};
use crate::interrupt::{Interrupt, NEVER};
use crate::search::climb::ClimbSearch;
use crate::search::head::ismcts_action_until;
use crate::search::ismcts::IsmctsConfig;
use crate::search::SearchSettings;

/// The action `kind` picks in `game` for the player to move; `seed` drives its randomness.
pub fn head_decision(game: &HeadGame, kind: BotKind, seed: u64) -> Result<ActionId, EngineError> {
    head_decision_until(game, kind, seed, &NEVER)
}

/// [`head_decision`] whose search (ISMCTS) ends early once `stop` is set: the caller is being
/// cancelled, so the action returned is legal but not a full-strength decision.
pub fn head_decision_until(
    game: &HeadGame,
    kind: BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<ActionId, EngineError> {
    let state = game.state();
    if state.is_over() {
        return Err(EngineError::GameOver);
    }
    let legal = state.legal_actions();
    Ok(match kind {
        BotKind::Random => RandomBot::new(seed).pick(legal),
        BotKind::Heuristic => HeuristicBot.choose(state, legal),
        BotKind::Ismcts { iterations } => ismcts_action_until(game, iterations, seed, stop),
    })
}

/// The index in `legal` (the legal moves of the game's state, canonical order) that `kind` picks.
/// The game's history tells ISMCTS which `spin` players still hold their wind card.
pub fn climb_decision(
    game: &ClimbGame,
    legal: &[Move],
    kind: BotKind,
    seed: u64,
) -> Result<usize, EngineError> {
    climb_decision_until(game, legal, kind, seed, &NEVER)
}

/// [`climb_decision`] whose search ends early once `stop` is set (as [`head_decision_until`]).
pub fn climb_decision_until(
    game: &ClimbGame,
    legal: &[Move],
    kind: BotKind,
    seed: u64,
    stop: &Interrupt,
) -> Result<usize, EngineError> {
    let state = game.state();
    if state.is_over() || legal.is_empty() {
        return Err(EngineError::GameOver);
    }
    Ok(match kind {
        BotKind::Random => ClimbRandomBot::new(seed).choose(state, legal),
        BotKind::Heuristic => ClimbHeuristicBot.choose(state, legal),
        BotKind::Ismcts { iterations } => {
            let settings = SearchSettings::climb_default().with_iterations(iterations);
            let settings = SearchSettings {
                config: IsmctsConfig {
                    seed,
                    ..settings.config
                },
                ..settings
            };
            ClimbSearch::new(state, wind_holders(game), settings).best_index_until(legal, stop)
        }
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
            let kind = match step % 3 {
                0 => BotKind::Random,
                1 => BotKind::Heuristic,
                _ => BotKind::Ismcts { iterations: 10 },
            };
            let a = head_decision(&game, kind, step).unwrap();
            assert_eq!(a, head_decision(&game, kind, step).unwrap());
            game.apply(a).unwrap();
        }
        let mut game = ClimbGame::new(3, 4, ClimbSettings::default()).unwrap();
        for step in 0..30 {
            let legal = game.legal_moves();
            let kind = match step % 3 {
                0 => BotKind::Random,
                1 => BotKind::Heuristic,
                _ => BotKind::Ismcts { iterations: 8 },
            };
            let i = climb_decision(&game, &legal, kind, step).unwrap();
            assert_eq!(i, climb_decision(&game, &legal, kind, step).unwrap());
            game.apply(&legal[i]).unwrap();
            if game.state().is_over() {
                break;
            }
        }
    }
}
