//! The climbing games for trained policies: a move-scores network reads the seat's
//! observation followed by one legal move's features and scores that move; the bot plays the
//! legal move scored highest (bound as the `Learned` capability in `contract.rs`). `year` and
//! `spin` share the layouts but not their policies.

use super::encoding::{move_features_into, MOVE_FEATURES, MOVE_FEATURES_LAYOUT};
use super::moves::Move;
use super::observation::{observation_into_zeroed, OBSERVATION_LAYOUT, OBSERVATION_SIZE};
use super::rules::ClimbSettings;
use super::state::ClimbState;
use crate::nn::{Policy, PolicyKind, PolicyShape, Scratch};

/// What a policy of `settings`' preset is.
pub fn policy_shape(settings: &ClimbSettings) -> PolicyShape {
    PolicyShape {
        game: settings.preset.name(),
        kind: PolicyKind::MoveScores,
        observation_layout: OBSERVATION_LAYOUT,
        observation_size: OBSERVATION_SIZE,
        move_features: Some((MOVE_FEATURES_LAYOUT, MOVE_FEATURES)),
        outputs: 1,
    }
}

/// The index in `legal` (the position's legal moves, not empty) of the move `policy` scores
/// highest for `player`.
pub fn best_move_index(
    state: &ClimbState,
    player: u8,
    legal: &[Move],
    policy: &Policy,
    scratch: &mut Scratch,
) -> usize {
    let mut obs = scratch.take_observation(OBSERVATION_SIZE);
    if legal.len() > 1 {
        observation_into_zeroed(state, player, &mut obs);
    }
    let best = policy.best_move(
        &obs,
        legal.len(),
        MOVE_FEATURES,
        |i, row| move_features_into(state, &legal[i], row),
        scratch,
    );
    scratch.give_observation(obs);
    best
}
