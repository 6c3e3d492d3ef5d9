//! Stand-in for the core's per-move event logs: one `move` event per decision, read from the
//! games' existing histories, so `apply()`, `history` and `events()` have their final shape
//! before the games record their own events (then each game's `event_log`/`events_seen_by` in
//! `py/head.rs` and `py/climb.rs` reads the core log instead, and this file goes).

use serde::Serialize;

use crate::climb::ClimbGame;
use crate::head::{Action, HeadGame};

/// A recorded decision: `{"type": "move", "player": p, "move": "<notation>"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MoveOnly {
    Move { player: u8, r#move: String },
}

/// Panda Head decisions `from..` as events (a decision is public: every seat sees it).
pub fn head_events(game: &HeadGame, from: usize) -> Vec<MoveOnly> {
    game.history()
        .get(from..)
        .unwrap_or_default()
        .iter()
        .map(|step| MoveOnly::Move {
            player: step.seat,
            r#move: Action::from_id(step.action).map_or_else(String::new, Action::notation),
        })
        .collect()
}

/// Climbing decisions `from..` as events (a climbing move is public).
pub fn climb_events(game: &ClimbGame, from: usize) -> Vec<MoveOnly> {
    game.history()
        .get(from..)
        .unwrap_or_default()
        .iter()
        .map(|(seat, mv)| MoveOnly::Move {
            player: *seat,
            r#move: mv.notation(),
        })
        .collect()
}
