"""Decisions waiting for the end of their game (Deep Monte-Carlo's target is the final result).

Rows are appended a step at a time into one flat array (one copy of the step's ``[N, in]``
block, no per-decision Python), each tagged with its game's id and the acting seat. When games
end, their results are recorded; :meth:`EpisodeBuffer.take` then hands over every decision of a
finished game, in the order they were played, and moves the unfinished ones to the front.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core.train.samples import Samples

__all__ = ["EpisodeBuffer"]


class EpisodeBuffer:
    """Decisions of games in progress or finished, until :meth:`take`."""

    def __init__(self, input_size: int, players: int, capacity: int = 1024) -> None:
        self._rows = np.zeros((capacity, input_size), dtype=np.float32)
        self._columns = np.zeros(capacity, dtype=np.int32)
        self._seats = np.zeros(capacity, dtype=np.int64)
        self._games = np.zeros(capacity, dtype=np.int64)
        self._size = 0
        # Per game id: finished yet, and its rewards per seat.
        self._finished = np.zeros(64, dtype=np.bool_)
        self._rewards = np.zeros((64, players), dtype=np.float32)
        self.ready = 0
        """Decisions of finished games held (what :meth:`take` would hand over)."""

    def add(
        self,
        rows: npt.NDArray[np.float32],
        columns: npt.NDArray[np.integer],
        seats: npt.NDArray[np.integer],
        games: npt.NDArray[np.int64],
    ) -> None:
        """One step's decisions: ``rows[i]`` played output column ``columns[i]`` for seat
        ``seats[i]`` in game ``games[i]``."""
        n = rows.shape[0]
        if self._size + n > self._rows.shape[0]:
            self._grow(self._size + n)
        end = self._size + n
        self._rows[self._size : end] = rows
        self._columns[self._size : end] = columns
        self._seats[self._size : end] = seats
        self._games[self._size : end] = games
        self._size = end
        if n:
            self._known(int(games.max()) + 1)

    def finish(
        self, games: npt.NDArray[np.int64], rewards: npt.NDArray[np.float32], lengths: int
    ) -> None:
        """Games ``games`` ended with ``rewards[k]`` per seat; ``lengths``: their decisions."""
        self._finished[games] = True
        self._rewards[games] = rewards
        self.ready += lengths

    def take(self) -> Samples:
        """Every decision of a finished game, in play order; the rest stay."""
        n = self._size
        games = self._games[:n]
        done = self._finished[games]
        samples = Samples(
            self._rows[:n][done],
            self._columns[:n][done],
            self._rewards[games[done], self._seats[:n][done]],
        )
        keep = ~done
        kept = int(keep.sum())
        for array in (self._rows, self._columns, self._seats, self._games):
            array[:kept] = array[:n][keep]
        self._size = kept
        self.ready = 0
        return samples

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """What a checkpoint keeps: the rows in use (not the spare capacity) and the per-game
        tables (:meth:`restore` takes them back)."""
        n = self._size
        return {
            "rows": self._rows[:n],
            "columns": self._columns[:n],
            "seats": self._seats[:n],
            "games": self._games[:n],
            "finished": self._finished,
            "rewards": self._rewards,
        }

    @classmethod
    def restore(cls, arrays: dict[str, npt.NDArray[Any]], ready: int) -> EpisodeBuffer:
        """The buffer :meth:`arrays` (and ``ready``) described; the arrays are checked by the
        caller (``checkpoint.py``) and copied here, so the buffer owns them."""
        buffer = cls.__new__(cls)
        buffer._rows = np.array(arrays["rows"], dtype=np.float32)
        buffer._columns = np.array(arrays["columns"], dtype=np.int32)
        buffer._seats = np.array(arrays["seats"], dtype=np.int64)
        buffer._games = np.array(arrays["games"], dtype=np.int64)
        buffer._size = int(buffer._rows.shape[0])
        buffer._finished = np.array(arrays["finished"], dtype=np.bool_)
        buffer._rewards = np.array(arrays["rewards"], dtype=np.float32)
        buffer.ready = ready
        return buffer

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * self._rows.shape[0])
        for name in ("_rows", "_columns", "_seats", "_games"):
            old = getattr(self, name)
            new = np.zeros((capacity, *old.shape[1:]), dtype=old.dtype)
            new[: self._size] = old[: self._size]
            setattr(self, name, new)

    def _known(self, games: int) -> None:
        """Make room in the per-game tables for game ids below ``games``."""
        old = self._finished.shape[0]
        if games <= old:
            return
        size = max(games, 2 * old)
        finished = np.zeros(size, dtype=np.bool_)
        finished[:old] = self._finished
        rewards = np.zeros((size, self._rewards.shape[1]), dtype=np.float32)
        rewards[:old] = self._rewards
        self._finished, self._rewards = finished, rewards
