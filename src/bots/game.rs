//! What a game needs for every built-in bot to play it.

use crate::game::Learned;
use crate::search::Searchable;

/// A game every built-in bot can play: searchable (ISMCTS, with the heuristic's rollouts) and
/// learned (the `neural` bot).
pub trait BotGame: Searchable + Learned {}
impl<G: Searchable + Learned> BotGame for G {}
