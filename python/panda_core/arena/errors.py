"""The arena's errors."""

from __future__ import annotations

from panda_core._core import ArgumentError

__all__ = ["ArenaError", "ArenaWarning"]


class ArenaError(ArgumentError):
    """An arena that cannot be run as asked: its entrants, its schedule, or a results folder that
    holds another arena. The message says what is wrong and what is allowed."""


class ArenaWarning(UserWarning):
    """Something the arena repaired and goes on with, said once: a results folder whose last
    line was torn by a crash (dropped, its game played again)."""
