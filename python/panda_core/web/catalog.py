"""What ``GET /api/games`` lists: the games, their player counts and rule defaults, and the bots a
page may seat. Everything is read from the engine and the registry, not restated here."""

from __future__ import annotations

import inspect
from typing import Any

from panda_core._core import BOT_NAMES, PandaCoreError, check_players
from panda_core._registry import GAMES, spec

__all__ = ["WEB_BOTS", "games_catalog", "rule_defaults"]

SERVER_ONLY_RULES = frozenset({"preset", "deck"})
"""Rule options a page may not set: the preset is the game's name, and a deck is a file path on
the server (no path from a request is ever opened)."""

WEB_BOTS: tuple[str, ...] = (
    *(name for name in BOT_NAMES if name not in ("ismcts", "ismcts+neural")),
    "ismcts:50",
    "ismcts:200",
    "ismcts+neural:50",
)
"""The bots offered to a page (any built-in name is accepted but ``neural:PATH``, and Python bots
never are: a request must not make the server open a file or import a module)."""


def _players() -> list[int]:
    counts = []
    for n in range(1, 10):
        try:
            check_players(n)
        except PandaCoreError:
            continue
        counts.append(n)
    return counts


def rule_defaults(game: str) -> dict[str, Any]:
    """The rule options of ``game`` a page may set, with their default values.

    The options are the rules class's keyword arguments that apply to this game: those the
    registry lists among the game's command-line options (a flag ``--no-X`` turns option ``X``
    off), so ``spin`` shows no panda mood (S-7.6).
    """
    game_spec = spec(game)
    defaults = game_spec.rules()
    applies = set(game_spec.cli_options)
    names = [
        name
        for name in inspect.signature(game_spec.rules_class).parameters
        if name not in SERVER_ONLY_RULES and (name in applies or f"no_{name}" in applies)
    ]
    return {name: getattr(defaults, name) for name in names}


def games_catalog() -> dict[str, Any]:
    """The body of ``GET /api/games``."""
    players = _players()
    return {
        "games": [
            {
                "name": name,
                "title": spec(name).title,
                "players": players,
                "rules": rule_defaults(name),
            }
            for name in GAMES
        ],
        "bots": list(WEB_BOTS),
    }
