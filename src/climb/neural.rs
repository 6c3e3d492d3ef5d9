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

/// `policy`'s score of each of `legal` for `player`, into `out`: the observation's part of the
/// first layer once, then one pass per move's features.
pub fn move_scores(
    state: &ClimbState,
    player: u8,
    legal: &[Move],
    policy: &Policy,
    scratch: &mut Scratch,
    out: &mut Vec<f32>,
) {
    out.clear();
    let mut obs = scratch.take_observation(OBSERVATION_SIZE);
    observation_into_zeroed(state, player, &mut obs);
    let mlp = policy.mlp();
    mlp.start_prefix(&obs, scratch);
    let mut row = std::mem::take(&mut scratch.features);
    row.resize(MOVE_FEATURES, 0.0);
    for mv in legal {
        row.fill(0.0);
        move_features_into(state, mv, &mut row);
        out.push(mlp.forward_suffix(&row, scratch)[0]);
    }
    scratch.features = row;
    scratch.give_observation(obs);
}
