//! The climbing games for trained policies: a move-scores network reads the seat's
//! observation followed by one legal move's features and scores that move; the bot plays the
//! legal move scored highest. `year` and `spin` share the layouts but not their policies.

use super::encoding::{move_features_into, MOVE_FEATURES, MOVE_FEATURES_LAYOUT};
use super::moves::Move;
use super::observation::{OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::rules::ClimbSettings;
use super::state::ClimbState;
use crate::error::EngineError;
use crate::game::{Game, Learned, Observe, Pick};
use crate::nn::{Policy, PolicyKind, PolicyShape, Scratch};

impl Learned for ClimbState {
    fn policy_shape(settings: &ClimbSettings) -> PolicyShape {
        PolicyShape {
            game: settings.preset.name(),
            kind: PolicyKind::MoveScores,
            observation_layout: OBSERVATION_LAYOUT,
            observation_size: OBSERVATION_SIZE,
            move_features: Some((MOVE_FEATURES_LAYOUT, MOVE_FEATURES)),
            outputs: 1,
        }
    }

    fn settings_of(&self) -> &ClimbSettings {
        self.settings()
    }

    fn neural_move(
        &self,
        policy: &Policy,
        scratch: &mut Scratch,
        buf: &mut Vec<Move>,
    ) -> Result<Pick<Move>, EngineError> {
        let Some(player) = self.current_player() else {
            return Err(EngineError::GameOver);
        };
        Game::legal_moves_into(self, buf)?;
        if buf.is_empty() {
            return Err(EngineError::GameOver);
        }
        let mut obs = scratch.take_observation(OBSERVATION_SIZE);
        if buf.len() > 1 {
            self.write_observation(player, &mut obs);
        }
        let moves: &[Move] = buf;
        let best = policy.best_move(
            &obs,
            moves.len(),
            MOVE_FEATURES,
            |i, row| move_features_into(self, &moves[i], row),
            scratch,
        );
        scratch.give_observation(obs);
        Ok(Pick::Listed(best))
    }
}
