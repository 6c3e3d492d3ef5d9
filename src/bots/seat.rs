//! One seat's bot in a game loop, without dynamic dispatch.

use std::sync::Arc;

use super::bot_game::BotGame;
use super::kind::BotKind;
use crate::contract::Pick;
use crate::error::EngineError;
use crate::interrupt::Interrupt;
use crate::nn::{Policy, Scratch};
use crate::rng::SplitMix64;
use crate::search::{GuidedBot, IsmctsBot, SearchSettings};

/// A built-in bot playing one seat of game `G`.
#[derive(Clone, Debug)]
pub enum Seat<G: BotGame> {
    /// Uniform over the legal moves, drawing from its own stream.
    Random(SplitMix64),
    /// The game's heuristic (deterministic).
    Heuristic,
    /// ISMCTS with the game's default settings.
    Ismcts(Box<IsmctsBot<G>>),
    /// A trained policy (deterministic), with the buffers of its forward passes.
    Neural(Arc<Policy>, Box<Scratch>),
    /// ISMCTS guided by a trained policy.
    Guided(Box<GuidedBot<G>>),
}

impl<G: BotGame> Seat<G> {
    /// The bot `kind` for a game of `settings`, its random stream started at `seed`; a
    /// `neural` bot whose policy does not fit the game is refused here.
    pub fn new(kind: &BotKind, seed: u64, settings: &G::Settings) -> Result<Self, EngineError> {
        Ok(match kind {
            BotKind::Random => Self::Random(SplitMix64::new(seed)),
            BotKind::Heuristic => Self::Heuristic,
            BotKind::Ismcts { iterations } => Self::Ismcts(Box::new(IsmctsBot::new(
                SearchSettings::default_for::<G>().with_iterations(*iterations),
                seed,
            ))),
            BotKind::Neural(neural) => {
                Self::Neural(neural.policy_for::<G>(settings)?, Box::default())
            }
            BotKind::Guided { iterations, .. } => {
                let policy = kind
                    .policy_for::<G>(settings)?
                    .expect("a guided bot's policy");
                Self::Guided(Box::new(GuidedBot::new(*iterations, policy, seed)))
            }
        })
    }

    /// Whether the bot watches every move ([`Seat::observe`]) and polls an interrupt.
    #[inline]
    pub fn is_search(&self) -> bool {
        matches!(self, Self::Ismcts(_) | Self::Guided(_))
    }

    /// The bot's move for the player to move in `state`; `buf` receives the legal list when
    /// the bot uses one (the pick may index it). A search ends early once `stop` is set.
    #[inline]
    pub fn choose_until(
        &mut self,
        state: &G,
        buf: &mut Vec<G::Move>,
        stop: &Interrupt,
    ) -> Result<Pick<G::Move>, EngineError> {
        match self {
            Self::Random(rng) => state.random_move(rng, buf),
            Self::Heuristic => state.heuristic_move(buf),
            Self::Ismcts(bot) => bot.choose_until(state, buf, stop),
            Self::Neural(policy, scratch) => state.neural_move(policy, scratch, buf),
            Self::Guided(bot) => bot.choose_until(state, buf, stop),
        }
    }

    /// See `mv` about to be applied to `before` (by any seat).
    #[inline]
    pub fn observe(&mut self, before: &G, mv: &G::Move) {
        match self {
            Self::Ismcts(bot) => bot.observe(before, mv),
            Self::Guided(bot) => bot.observe(before, mv),
            Self::Random(_) | Self::Heuristic | Self::Neural(..) => {}
        }
    }
}
