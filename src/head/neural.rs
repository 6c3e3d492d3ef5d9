//! Panda Head for trained policies: an action-values network reads the seat's observation and
//! values the 24 action ids; the bot plays the legal one valued highest (bound as the `Learned`
//! capability in `contract.rs`).

use super::action::{mask_ids, ActionId, NUM_ACTIONS};
use super::observation::{observation_into_zeroed, OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::state::HeadState;
use crate::error::EngineError;
use crate::nn::{Policy, PolicyKind, PolicyShape, Scratch};

/// What a Panda Head policy is. One policy for every variant: the rules change what is legal,
/// not the layout.
pub fn policy_shape() -> PolicyShape {
    PolicyShape {
        game: "head",
        kind: PolicyKind::ActionValues,
        observation_layout: OBSERVATION_LAYOUT,
        observation_size: OBSERVATION_SIZE,
        move_features: None,
        outputs: NUM_ACTIONS,
    }
}

/// The legal action `policy` values highest for the player to move (a forced move without
/// running the network).
pub fn neural_action(
    state: &HeadState,
    policy: &Policy,
    scratch: &mut Scratch,
) -> Result<ActionId, EngineError> {
    let Some(player) = state.current_player() else {
        return Err(EngineError::GameOver);
    };
    let legal = state.legal_actions();
    if legal.count_ones() == 1 {
        return Ok(legal.trailing_zeros() as ActionId); // forced
    }
    let mut obs = scratch.take_observation(OBSERVATION_SIZE);
    observation_into_zeroed(state, player, &mut obs);
    let best = policy.best_action(&obs, mask_ids(legal).map(usize::from), scratch);
    scratch.give_observation(obs);
    best.map(|id| id as ActionId).ok_or(EngineError::GameOver)
}

/// `policy`'s values of the `legal` action ids for `player` (one forward pass), into `out`.
pub fn action_values(
    state: &HeadState,
    player: u8,
    legal: &[ActionId],
    policy: &Policy,
    scratch: &mut Scratch,
    out: &mut Vec<f32>,
) {
    out.clear();
    let mut obs = scratch.take_observation(OBSERVATION_SIZE);
    observation_into_zeroed(state, player, &mut obs);
    let values = policy.forward(&obs, scratch);
    out.extend(legal.iter().map(|&a| values[usize::from(a)]));
    scratch.give_observation(obs);
}
