"""The arena: rate bots against each other on duplicate deals (docs/rate_your_bot.md)."""

from panda_core.arena.model import (
    ArenaSettings,
    Entrant,
    Forfeit,
    ForfeitKind,
    Match,
    MatchResult,
    Permutations,
)

__all__ = [
    "ArenaSettings",
    "Entrant",
    "Forfeit",
    "ForfeitKind",
    "Match",
    "MatchResult",
    "Permutations",
]
