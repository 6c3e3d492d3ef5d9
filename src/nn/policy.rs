//! A checked policy: its network, what it plays, and whether it fits a game.

use std::collections::BTreeMap;

use super::mlp::{Mlp, Scratch};
pub use crate::error::PolicyError;

/// How a policy's network turns a position into a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyKind {
    /// Input: the observation; outputs: one value per action id. The bot plays the legal
    /// action with the largest value (ties: the lowest id).
    ActionValues,
    /// Input: the observation followed by one legal move's features; output: that move's
    /// score. The bot plays the legal move with the largest score (ties: the first listed).
    MoveScores,
}

impl PolicyKind {
    /// The kind's name in policy files.
    pub fn name(self) -> &'static str {
        match self {
            Self::ActionValues => "action-values",
            Self::MoveScores => "move-scores",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "action-values" => Some(Self::ActionValues),
            "move-scores" => Some(Self::MoveScores),
            _ => None,
        }
    }
}

/// What a policy must be to play a game: the game supplies it ([`crate::contract::Learned`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyShape {
    /// The game's name in policy files ("head", "year", "spin").
    pub game: &'static str,
    pub kind: PolicyKind,
    /// The observation's layout version and length.
    pub observation_layout: &'static str,
    pub observation_size: usize,
    /// The move features' layout version and length ([`PolicyKind::MoveScores`]).
    pub move_features: Option<(&'static str, usize)>,
    /// Outputs of the network: action ids ([`PolicyKind::ActionValues`]) or 1.
    pub outputs: usize,
}

impl PolicyShape {
    /// The network's input width.
    pub fn inputs(&self) -> usize {
        self.observation_size + self.move_features.map_or(0, |(_, n)| n)
    }
}

/// A policy read from a file and checked: it plays [`Policy::game`].
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    pub(super) game: String,
    pub(super) kind: PolicyKind,
    pub(super) observation_layout: String,
    pub(super) move_features_layout: Option<String>,
    pub(super) mlp: Mlp,
    pub(super) metadata: BTreeMap<String, String>,
    pub(super) sha256: String,
}

impl Policy {
    pub fn game(&self) -> &str {
        &self.game
    }

    pub fn kind(&self) -> PolicyKind {
        self.kind
    }

    pub fn mlp(&self) -> &Mlp {
        &self.mlp
    }

    /// Layer widths, the input first.
    pub fn layer_sizes(&self) -> Vec<usize> {
        std::iter::once(self.mlp.inputs())
            .chain(self.mlp.layers().iter().map(|l| l.outputs()))
            .collect()
    }

    /// The file's whole manifest (every metadata entry).
    pub fn metadata(&self) -> &BTreeMap<String, String> {
        &self.metadata
    }

    /// The manifest's hash of the weights (checked when read).
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// The network's outputs for one input row.
    pub fn forward<'s>(&self, x: &[f32], scratch: &'s mut Scratch) -> &'s [f32] {
        self.mlp.forward(x, scratch)
    }

    /// The action this action-values policy plays: the largest value among the `legal`
    /// action ids (ties: the first given), or `None` when none is legal.
    pub fn best_action(
        &self,
        observation: &[f32],
        legal: impl Iterator<Item = usize>,
        scratch: &mut Scratch,
    ) -> Option<usize> {
        let values = self.mlp.forward(observation, scratch);
        let mut best: Option<(usize, f32)> = None;
        for id in legal {
            let v = values[id];
            if best.map_or(true, |(_, b)| v > b) {
                best = Some((id, v));
            }
        }
        best.map(|(id, _)| id)
    }

    /// The move this move-scores policy plays among `moves` legal moves: the index of the
    /// largest score (ties: the first), `write(i, row)` writing move `i`'s features into a
    /// zeroed row. The observation's part of the first layer is computed once.
    pub fn best_move(
        &self,
        observation: &[f32],
        moves: usize,
        features: usize,
        mut write: impl FnMut(usize, &mut [f32]),
        scratch: &mut Scratch,
    ) -> usize {
        if moves <= 1 {
            return 0; // a forced move needs no network
        }
        self.mlp.start_prefix(observation, scratch);
        let mut row = std::mem::take(&mut scratch.features);
        row.resize(features, 0.0);
        let mut best = (0, f32::NEG_INFINITY);
        for i in 0..moves {
            row.fill(0.0);
            write(i, &mut row);
            let score = self.mlp.forward_suffix(&row, scratch)[0];
            if i == 0 || score > best.1 {
                best = (i, score);
            }
        }
        scratch.features = row;
        best.0
    }

    /// Whether this policy can play a game of `shape`; the error says what differs.
    pub fn check_fits(&self, shape: &PolicyShape) -> Result<(), PolicyError> {
        let refuse = |what: String| Err(PolicyError(what));
        if self.game != shape.game {
            return refuse(format!(
                "the policy plays {:?}, not {:?} (its manifest's \"game\")",
                self.game, shape.game
            ));
        }
        if self.kind != shape.kind {
            return refuse(format!(
                "a {} policy cannot play {:?}, which needs {:?} (the manifest's \"kind\")",
                self.kind.name(),
                shape.game,
                shape.kind.name()
            ));
        }
        if self.observation_layout != shape.observation_layout {
            return refuse(format!(
                "the policy reads observation layout {:?}; this engine writes {:?} (retrain \
                 it with this version)",
                self.observation_layout, shape.observation_layout
            ));
        }
        let features = shape.move_features.map(|(layout, _)| layout);
        if self.move_features_layout.as_deref() != features {
            return refuse(format!(
                "the policy reads move-feature layout {:?}; this engine writes {:?}",
                self.move_features_layout, features
            ));
        }
        if self.mlp.inputs() != shape.inputs() || self.mlp.outputs() != shape.outputs {
            return refuse(format!(
                "the network takes {} inputs and gives {} outputs; {:?} needs {} and {}",
                self.mlp.inputs(),
                self.mlp.outputs(),
                shape.game,
                shape.inputs(),
                shape.outputs
            ));
        }
        Ok(())
    }
}
