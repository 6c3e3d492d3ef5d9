//! A built-in bot's move in every env at once: opponents for an agent trained on the vector env,
//! baselines, or imitation targets, without a Python call per env.

use rayon::prelude::*;

use super::{EnvGame, VecEnv};
use crate::bots::{BotGame, BotKind, Seat};
use crate::error::{EngineError, StateError};
use crate::interrupt::Interrupt;
use crate::rng::SplitMix64;

impl<G: EnvGame + BotGame> VecEnv<G> {
    /// The move `kind` picks for the player to move in every env, as its index in that env's
    /// legal-move list (what a step by [`super::ActionKind::MoveIndex`] takes).
    /// Env `i`'s bot draws from `nth_output(seed, i)`. A search sees the position, not the
    /// moves before it (an env keeps no history). `Ok(None)` once `stop` is set.
    pub fn bot_moves_until(
        &self,
        kind: &BotKind,
        seed: u64,
        stop: &Interrupt,
    ) -> Result<Option<Vec<i64>>, EngineError> {
        if self.torn {
            return Err(StateError(
                "the last step or reset was interrupted part-way: call reset() first".into(),
            )
            .into());
        }
        // Each env's seat checks that a policy fits the game (env 0's refuses at once).
        let settings = &self.config.settings;
        let chunk = self.chunk();
        let moves = |first: usize, slots: &[super::Slot<G>]| {
            let mut out = Vec::with_capacity(slots.len());
            let mut buf = Vec::new();
            for (j, slot) in slots.iter().enumerate() {
                if stop.is_set() {
                    return Ok(None);
                }
                let i = (first + j) as u64;
                let mut bot = Seat::<G>::new(kind, SplitMix64::nth_output(seed, i), settings)?;
                let pick = bot.choose_until(&slot.game, &mut buf, stop)?;
                let index = slot
                    .game
                    .move_index(&slot.legal, pick.get(&buf))
                    .ok_or_else(|| StateError(format!("env {i}: the bot's move is not legal")))?;
                out.push(index as i64);
            }
            Ok(Some(out))
        };
        let run = || -> Result<Vec<Option<Vec<i64>>>, EngineError> {
            if chunk >= self.slots.len() {
                return moves(0, &self.slots).map(|m| vec![m]);
            }
            self.slots
                .par_chunks(chunk)
                .enumerate()
                .map(|(k, slots)| moves(k * chunk, slots))
                .collect()
        };
        let parts = match &self.pool {
            Some(pool) => pool.install(run)?,
            None => run()?,
        };
        Ok(parts
            .into_iter()
            .collect::<Option<Vec<_>>>()
            .map(|p| p.concat()))
    }
}
