//! What a game needs for every built-in bot to play it.

use crate::contract::Learned;
use crate::search::Searchable;

/// A game every built-in bot can play: searchable (ISMCTS, with the heuristic's rollouts) and
/// learned (the `neural` bot). Each game's value is set in [`crate::games`].
pub trait BotGame: Searchable + Learned {
    /// Separates bots' random streams from the deal's: the bot at seat `p` of a game dealt from
    /// `seed` draws from `nth_output(seed ^ BOT_STREAM, p)` (results are seeded by it: a game's
    /// value never changes).
    const BOT_STREAM: u64;
}
