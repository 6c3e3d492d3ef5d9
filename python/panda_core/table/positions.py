"""The positions of a recorded game, in memory and time linear in its moves.

A game object carries its whole history, so keeping a copy after every move (what a replay did
first) costs memory in the square of the moves: an 18 KB record of a long Panda Head game grew to
~4 GB. :class:`Positions` keeps instead the moves, a few small facts per frame (the history length,
the rounds finished, whether the game is over), at most :data:`CHECKPOINTS` copies of the game
spaced evenly through it, and the last :data:`RECENT` positions asked for. A position is the
nearest earlier copy with the moves since re-applied, so stepping forward one frame costs one
move, and stepping back at most one stride of moves for every :data:`WALK_BACK` frames.
"""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from panda_core._core import InvalidStateError, PandaCoreError
from panda_core._registry import AnyGame

__all__ = ["CHECKPOINTS", "RECENT", "WALK_BACK", "Positions"]

CHECKPOINTS = 16
"""Copies of the game kept through a record (plus the start and the end)."""
RECENT = 16
"""Positions kept of those asked for last (a screen steps back and forth around one frame)."""
WALK_BACK = 8
"""Positions just before the one asked for that are kept too when it is re-played from a
checkpoint, so that stepping back costs one re-play per this many frames."""

_ROUND_EVENTS = frozenset({"round_end", "game_end"})


class Positions:
    """The positions after 0, 1, … ``len(moves)`` moves of ``start`` (the game before any move).

    Every move is applied once here, by the engine (a move that is not legal raises its error,
    naming the move); afterwards :meth:`at` gives any position. The games it returns are shared:
    read them, never apply a move to them (:meth:`copy_at` gives one to keep).
    """

    def __init__(self, start: AnyGame, moves: Sequence[Any]) -> None:
        self._moves = list(moves)
        frames = len(self._moves) + 1
        self._stride = max(1, -(-len(self._moves) // CHECKPOINTS))  # ceil: at most CHECKPOINTS
        self._lock = threading.Lock()  # the web server builds frames in worker threads
        # Per frame: the length of the history, the rounds finished, whether the game is over.
        # The history length is counted from the events each move returns: game.history builds
        # the whole list, so asking it after every move would cost time in the square again.
        self._history = array("Q", [len(start.history)])
        self._rounds = array("I", [len(start.round_results)])
        self._over = bytearray([start.is_over])
        self._checkpoints: dict[int, AnyGame] = {0: start.clone()}
        game = start.clone()
        for i, move in enumerate(self._moves):
            try:
                events = game.apply(move)
            except PandaCoreError as err:
                raise type(err)(f"move {i} of the record: {err}") from err
            except TypeError as err:  # a JSON value that is no move at all: the record is bad
                raise InvalidStateError(f"move {i} of the record: {err}") from err
            rounds = self._rounds[-1]
            if any(e["type"] in _ROUND_EVENTS for e in events):
                rounds = len(game.round_results)  # once a round: cheap, and the engine's count
            self._history.append(self._history[-1] + len(events))
            self._rounds.append(rounds)
            self._over.append(game.is_over)
            if (i + 1) % self._stride == 0 and i + 1 < len(self._moves):
                self._checkpoints[i + 1] = game.clone()
        self._checkpoints[frames - 1] = game  # the end: record() and log() read it
        self._recent: OrderedDict[int, AnyGame] = OrderedDict()

    def __len__(self) -> int:
        return len(self._history)

    @property
    def final(self) -> AnyGame:
        """The game after the last move (shared: read only)."""
        return self._checkpoints[len(self) - 1]

    def history_length(self, k: int) -> int:
        """``len(position k .history)``, without building it."""
        return self._history[k]

    def rounds_finished(self, k: int) -> int:
        """``len(position k .round_results)``."""
        return self._rounds[k]

    def is_over(self, k: int) -> bool:
        return bool(self._over[k])

    def at(self, k: int) -> AnyGame:
        """The game after ``k`` moves (``0 <= k < len(self)``), shared: read it only."""
        with self._lock:
            known = self._checkpoints.get(k)
            if known is None:
                known = self._recent.get(k)
            if known is not None:
                if k in self._recent:
                    self._recent.move_to_end(k)
                return known
            return self._replay_to(k)

    def copy_at(self, k: int) -> AnyGame:
        """A copy of the game after ``k`` moves, to keep or to play on."""
        return self.at(k).clone()

    def _replay_to(self, k: int) -> AnyGame:
        """Position ``k`` from the nearest earlier kept position (the lock is held)."""
        base = max([c for c in self._checkpoints if c < k] + [r for r in self._recent if r < k])
        source = self._checkpoints.get(base)
        game = (source if source is not None else self._recent[base]).clone()
        for i in range(base, k):
            if k - WALK_BACK <= i and i not in self._recent and i not in self._checkpoints:
                self._keep(i, game.clone())  # the frames just before k: a step back is free
            game.apply(self._moves[i])
        self._keep(k, game)
        return game

    def _keep(self, k: int, game: AnyGame) -> None:
        self._recent[k] = game
        self._recent.move_to_end(k)
        while len(self._recent) > RECENT:
            self._recent.popitem(last=False)
