"""The table's own errors; both are engine errors (``PandaCoreError``), so ``except
PandaCoreError`` catches everything a table refuses."""

from __future__ import annotations

from panda_core._core import ArgumentError, IllegalMoveError

__all__ = ["NotYourTurnError", "TableError"]


class TableError(ArgumentError):
    """A table or a replay was asked for something it cannot do: an unknown seat kind, a bot
    that cannot be imported, a seat out of range, a record that is not a game record."""


class NotYourTurnError(IllegalMoveError):
    """A seat tried to move while another seat is to move (or the game is over). The game is
    unchanged."""
