//! The games of the crate, and what the generic consumers tune per game.
//!
//! A game states its rules once, in its own folder, behind the contract ([`crate::contract`]).
//! The consumers' knobs are not rules: each consumer declares its own ([`BotGame::BOT_STREAM`],
//! [`SimGame::BATCH_CHUNK`], [`EnvGame::MIN_PARALLEL_ENVS`], the vector env's [`RoundValue`])
//! and this file sets them, one block per game. The values seed results (a bot's stream) or only
//! pace work (tasks, threads); a game's values never change once its results are recorded.

use crate::bots::BotGame;
use crate::climb::search_value::gain_value;
use crate::climb::{ClimbState, RoundResult};
use crate::contract::{Horizon, MAX_PLAYERS};
use crate::head::search_value::hand_value;
use crate::head::{HandResult, HeadState};
use crate::sim::SimGame;
use crate::vecenv::{EnvGame, RoundValue};

impl BotGame for HeadState {
    const BOT_STREAM: u64 = 0xB075_B075_B075_B075;
}
impl SimGame for HeadState {
    /// A game is a few microseconds: many per task.
    const BATCH_CHUNK: usize = 64;
}
impl EnvGame for HeadState {
    /// A step costs about 0.15 µs: below a few hundred envs one thread is faster.
    const MIN_PARALLEL_ENVS: usize = 512;
}
/// A hand is worth what ISMCTS values its end at, rescaled to `[-1, 1]` (`vecenv/round.rs`).
impl RoundValue for HeadState {
    type RoundRoot = ();
    #[inline]
    fn round_root(&self) {}
    fn round_values(&self, _root: &(), end: &HandResult, out: &mut [f32]) {
        for (seat, v) in out.iter_mut().enumerate() {
            *v = (2.0 * hand_value(self, Some(end), seat as u8, Horizon::Hand) - 1.0) as f32;
        }
    }
}

impl BotGame for ClimbState {
    const BOT_STREAM: u64 = 0xC11B_C11B_C11B_C11B;
}
impl SimGame for ClimbState {
    const BATCH_CHUNK: usize = 16;
}
impl EnvGame for ClimbState {}
/// A round is worth what ISMCTS values its end at, from the scores at the round's start,
/// rescaled to `[-1, 1]` (`vecenv/round.rs`).
impl RoundValue for ClimbState {
    type RoundRoot = [u32; MAX_PLAYERS];
    #[inline]
    fn round_root(&self) -> [u32; MAX_PLAYERS] {
        let mut root = [0; MAX_PLAYERS];
        let start = self.round_start_scores();
        root[..start.len()].copy_from_slice(start);
        root
    }
    fn round_values(&self, root: &[u32; MAX_PLAYERS], _end: &RoundResult, out: &mut [f32]) {
        for (seat, v) in out.iter_mut().enumerate() {
            *v = (2.0 * gain_value(self, root, seat as u8) - 1.0) as f32;
        }
    }
}
