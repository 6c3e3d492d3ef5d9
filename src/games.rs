//! The games of the crate, and what the generic consumers tune per game.
//!
//! A game states its rules once, in its own folder, behind the contract ([`crate::contract`]).
//! The consumers' knobs are not rules: each consumer declares its own ([`BotGame::BOT_STREAM`],
//! [`SimGame::BATCH_CHUNK`], [`EnvGame::MIN_PARALLEL_ENVS`]) and this file sets them, one block
//! per game. The values seed results (a bot's stream) or only pace work (tasks, threads); a
//! game's values never change once its results are recorded.

use crate::bots::BotGame;
use crate::climb::ClimbState;
use crate::head::HeadState;
use crate::sim::SimGame;
use crate::vecenv::EnvGame;

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

impl BotGame for ClimbState {
    const BOT_STREAM: u64 = 0xC11B_C11B_C11B_C11B;
}
impl SimGame for ClimbState {
    const BATCH_CHUNK: usize = 16;
}
impl EnvGame for ClimbState {}
