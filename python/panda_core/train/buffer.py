"""Decisions waiting for the end of their game (Deep Monte-Carlo's target is the final result).

Rows are appended a step at a time into one flat array (one copy of the step's ``[N, in]``
block, no per-decision Python), each tagged with its game's id and the acting seat. When games
end, their results are recorded; :meth:`EpisodeBuffer.take` then hands over every decision of a
finished game, in the order they were played, and moves the unfinished ones to the front.

With ``rounds`` (a target that includes the round's value, ``TrainSettings.target``), each
decision is also tagged with the id of its round (a hand in Panda Head), whose per-seat values are
recorded when the round ends (:meth:`EpisodeBuffer.finish_rounds`); a round ends no later than its
game, so a finished game's decisions always have their rounds' values. The round table holds only
the ids from the oldest round a waiting decision belongs to (``round_base``) on.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core.train.samples import Samples

__all__ = ["EpisodeBuffer"]


class EpisodeBuffer:
    """Decisions of games in progress or finished, until :meth:`take`."""

    def __init__(
        self, input_size: int, players: int, capacity: int = 1024, rounds: bool = False
    ) -> None:
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
        self.rounds = rounds
        # Per decision its round's id; per round id from round_base on, its values per seat.
        self._round_ids = np.zeros(capacity if rounds else 0, dtype=np.int64)
        self._round_values = np.zeros((64 if rounds else 0, players), dtype=np.float32)
        self.round_base = 0

    def add(
        self,
        rows: npt.NDArray[np.float32],
        columns: npt.NDArray[np.integer],
        seats: npt.NDArray[np.integer],
        games: npt.NDArray[np.int64],
        rounds: npt.NDArray[np.int64] | None = None,
    ) -> None:
        """One step's decisions: ``rows[i]`` played output column ``columns[i]`` for seat
        ``seats[i]`` in game ``games[i]`` (and round ``rounds[i]``, with ``rounds``)."""
        n = rows.shape[0]
        if self._size + n > self._rows.shape[0]:
            self._grow(self._size + n)
        end = self._size + n
        self._rows[self._size : end] = rows
        self._columns[self._size : end] = columns
        self._seats[self._size : end] = seats
        self._games[self._size : end] = games
        if self.rounds:
            assert rounds is not None
            self._round_ids[self._size : end] = rounds
            if n:
                self._cover_rounds(int(rounds.max()) + 1)
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

    def finish_rounds(self, rounds: npt.NDArray[np.int64], values: npt.NDArray[np.float32]) -> None:
        """Rounds ``rounds`` ended with ``values[k]`` per seat (in [-1, 1])."""
        if not rounds.size:
            return
        self._cover_rounds(int(rounds.max()) + 1)
        self._round_values[rounds - self.round_base] = values

    def _cover_rounds(self, end: int) -> None:
        """Make room in the round table for the ids below ``end`` (every id a waiting decision
        holds has a row, so :meth:`take` never reads outside it)."""
        size = self._round_values.shape[0]
        needed = end - self.round_base
        if needed > size:
            players = self._round_values.shape[1]
            grown = np.zeros((max(needed, 2 * size), players), dtype=np.float32)
            grown[:size] = self._round_values
            self._round_values = grown

    def take(self, round_weight: float = 0.0, open_round: int | None = None) -> Samples:
        """Every decision of a finished game, in play order; the rest stay. With ``rounds``,
        a decision's target is ``round_weight`` times its round's value plus ``1 -
        round_weight`` times its game's, and ``open_round`` is the oldest id of a round in
        progress (whose decisions may all be still to come)."""
        n = self._size
        games = self._games[:n]
        done = self._finished[games]
        targets = self._rewards[games[done], self._seats[:n][done]]
        if self.rounds:
            ids = self._round_ids[:n][done] - self.round_base
            values = self._round_values[ids, self._seats[:n][done]]
            if round_weight == 1.0:
                targets = values
            elif round_weight:
                weight = np.float32(round_weight)
                targets = (weight * values + (np.float32(1) - weight) * targets).astype(np.float32)
        samples = Samples(self._rows[:n][done], self._columns[:n][done], targets)
        keep = ~done
        kept = int(keep.sum())
        arrays: list[npt.NDArray[Any]] = [self._rows, self._columns, self._seats, self._games]
        if self.rounds:
            arrays.append(self._round_ids)
        for array in arrays:
            array[:kept] = array[:n][keep]
        self._size = kept
        self.ready = 0
        if self.rounds and open_round is not None:
            # Forget the rounds no waiting or future decision belongs to (ids grow).
            base = min(open_round, int(self._round_ids[:kept].min()) if kept else open_round)
            shift = base - self.round_base
            if shift > 0:
                self._round_values = self._round_values[shift:].copy()
                self.round_base = base
        return samples

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """What a checkpoint keeps: the rows in use (not the spare capacity) and the per-game
        tables (:meth:`restore` takes them back)."""
        n = self._size
        arrays: dict[str, npt.NDArray[Any]] = {
            "rows": self._rows[:n],
            "columns": self._columns[:n],
            "seats": self._seats[:n],
            "games": self._games[:n],
            "finished": self._finished,
            "rewards": self._rewards,
        }
        if self.rounds:
            arrays["round_ids"] = self._round_ids[:n]
            arrays["round_values"] = self._round_values
        return arrays

    @classmethod
    def restore(
        cls, arrays: dict[str, npt.NDArray[Any]], ready: int, round_base: int | None = None
    ) -> EpisodeBuffer:
        """The buffer :meth:`arrays` (and ``ready``, and with rounds ``round_base``) described;
        the arrays are checked by the caller (``checkpoint.py``) and copied here, so the buffer
        owns them."""
        buffer = cls.__new__(cls)
        buffer._rows = np.array(arrays["rows"], dtype=np.float32)
        buffer._columns = np.array(arrays["columns"], dtype=np.int32)
        buffer._seats = np.array(arrays["seats"], dtype=np.int64)
        buffer._games = np.array(arrays["games"], dtype=np.int64)
        buffer._size = int(buffer._rows.shape[0])
        buffer._finished = np.array(arrays["finished"], dtype=np.bool_)
        buffer._rewards = np.array(arrays["rewards"], dtype=np.float32)
        buffer.ready = ready
        buffer.rounds = round_base is not None
        players = buffer._rewards.shape[1]
        if round_base is None:
            buffer._round_ids = np.zeros(0, dtype=np.int64)
            buffer._round_values = np.zeros((0, players), dtype=np.float32)
            buffer.round_base = 0
        else:
            buffer._round_ids = np.array(arrays["round_ids"], dtype=np.int64)
            buffer._round_values = np.array(arrays["round_values"], dtype=np.float32)
            buffer.round_base = round_base
        return buffer

    def _grow(self, needed: int) -> None:
        capacity = max(needed, 2 * self._rows.shape[0])
        names = ["_rows", "_columns", "_seats", "_games"]
        if self.rounds:
            names.append("_round_ids")
        for name in names:
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
