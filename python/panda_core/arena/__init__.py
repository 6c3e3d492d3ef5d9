"""The arena: rate bots against each other on duplicate deals (docs/rate_your_bot.md).

>>> from panda_core.arena import arena
>>> report = arena(["heuristic", "random"], game="spin", players=2, deals=4, workers=0)
>>> report.scheduled, len(report.results)
(8, 8)
>>> [s.label for s in report.standings]
['heuristic', 'random']

:func:`arena` plays the games (:mod:`~panda_core.arena.schedule`: which entrants sit where on
which deal; :mod:`~panda_core.arena.runner`: one game, forfeits included;
:mod:`~panda_core.arena.store`: the resumable results folder) and returns an
:class:`~panda_core.arena.report.ArenaReport` (:mod:`~panda_core.arena.stats`: win rates with
deal-clustered intervals, head-to-head; :mod:`~panda_core.arena.ratings`: Plackett–Luce ratings).
The statistics are explained in docs/arena_statistics.md.
"""

from panda_core.arena.errors import ArenaError, ArenaWarning
from panda_core.arena.model import (
    ArenaSettings,
    Entrant,
    Forfeit,
    ForfeitKind,
    Match,
    MatchResult,
    Permutations,
)
from panda_core.arena.run import ArenaInterrupted, arena, arena_settings, play_arena

__all__ = [
    "ArenaError",
    "ArenaInterrupted",
    "ArenaSettings",
    "ArenaWarning",
    "Entrant",
    "Forfeit",
    "ForfeitKind",
    "Match",
    "MatchResult",
    "Permutations",
    "arena",
    "arena_settings",
    "play_arena",
]
