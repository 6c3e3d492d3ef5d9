//! Panda Head for trained policies: an action-values network reads the seat's observation and
//! values the 24 action ids; the bot plays the legal one valued highest.

use super::action::{mask_ids, ActionId, NUM_ACTIONS};
use super::observation::{OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::rules::HeadRules;
use super::state::HeadState;
use crate::error::EngineError;
use crate::game::{Learned, Observe, Pick};
use crate::nn::{Policy, PolicyKind, PolicyShape, Scratch};

impl Learned for HeadState {
    fn policy_shape(_rules: &HeadRules) -> PolicyShape {
        // One policy for every variant: the rules change what is legal, not the layout.
        PolicyShape {
            game: "head",
            kind: PolicyKind::ActionValues,
            observation_layout: OBSERVATION_LAYOUT,
            observation_size: OBSERVATION_SIZE,
            move_features: None,
            outputs: NUM_ACTIONS,
        }
    }

    fn settings_of(&self) -> &HeadRules {
        self.rules()
    }

    fn neural_move(
        &self,
        policy: &Policy,
        scratch: &mut Scratch,
        _buf: &mut Vec<ActionId>,
    ) -> Result<Pick<ActionId>, EngineError> {
        let Some(player) = self.current_player() else {
            return Err(EngineError::GameOver);
        };
        let legal = self.legal_actions();
        if legal.count_ones() == 1 {
            return Ok(Pick::Own(legal.trailing_zeros() as ActionId)); // forced
        }
        let mut obs = scratch.take_observation(OBSERVATION_SIZE);
        self.write_observation(player, &mut obs);
        let best = policy.best_action(&obs, mask_ids(legal).map(usize::from), scratch);
        scratch.give_observation(obs);
        best.map(|id| Pick::Own(id as ActionId))
            .ok_or(EngineError::GameOver)
    }
}
