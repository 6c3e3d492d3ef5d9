"""Replaying a recorded game move by move, with full information or as one seat saw it.

A record (``game.to_json()``, ``Table.record()``, ``panda-core simulate --records``) holds the
deal and the moves. :class:`Replay` loads it through the engine (every move is checked again),
keeps what it needs to rebuild the position after any move in memory linear in the moves
(:mod:`panda_core.table.positions`), and shows frame ``k`` — the position after ``k`` moves — the
way :meth:`Table.state` shows a live game: for ``seat=S`` exactly what seat ``S`` knew at that
moment (its hand, the events it had seen), for ``seat=None`` every hand and every event.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from panda_core._args import cut, int_arg
from panda_core._core import PandaCoreError
from panda_core._files import read_regular_text
from panda_core._registry import AnyGame, GameSpec, spec_of_record
from panda_core._strict_json import strict_loads
from panda_core.table.cards import CardBook
from panda_core.table.errors import TableError
from panda_core.table.names import SeatNames
from panda_core.table.positions import Positions
from panda_core.table.seat_state import SeatStateBuilder
from panda_core.table.seats import check_seat

__all__ = ["MAX_NAME", "MAX_RECORD_BYTES", "MAX_RECORD_MOVES", "NAMED_RECORD", "Replay"]

NAMED_RECORD = "panda_table"
"""The key of a record that carries its seats' names: ``{"panda_table": 1, "names": [one per
seat], "record": {the engine's record}}`` (``Table.named_record()``, the web page's record
download). :class:`Replay` reads both it and the engine's bare record."""
MAX_NAME = 40
"""The longest seat name a replay takes (a person's name at a table is at most as long)."""

MAX_RECORD_MOVES = 20_000
"""The most moves a replayed record may hold, checked before any move is applied. The longest
games seen in 20,000 of each kind with the default rules (2 to 5 seats, random and heuristic bots)
had 1,214 moves (spin), 1,099 (year) and 518 (Panda Head); Panda Head with ``bust_threshold=1000``
at five heuristic seats, 9,520. Longer games (a far larger bust threshold) are not replayed."""

MAX_RECORD_BYTES = 1024 * 1024
"""The largest record a replay reads, in bytes (UTF-8) or characters: a record of
:data:`MAX_RECORD_MOVES` moves is well under it (a 1,000-move climbing record is about 10 KB)."""


class Replay:
    """The positions of a recorded game, seen by ``seat`` (``None``: full information).

    ``len(replay)`` is the number of frames (moves + 1); :meth:`frame` is a seat state with
    ``"frame"``, ``"frames"`` and, in a full-information frame, ``"hands"``. A record that is not
    a game record, or whose moves are not legal, raises the engine's error (an
    ``InvalidStateError`` / ``IllegalMoveError``, both ``PandaCoreError``) and nothing is kept.
    """

    def __init__(self, record: str, seat: int | None = None, *, names: list[str] | None = None):
        if not isinstance(record, str):
            raise TypeError(f"a record is JSON text, got {type(record).__name__}")
        if len(record) > MAX_RECORD_BYTES:
            raise TableError(
                f"a record is at most {MAX_RECORD_BYTES} characters, got {len(record)}"
            )
        parsed = _parse(record)
        carried: list[str] | None = None
        if isinstance(parsed, dict) and NAMED_RECORD in parsed:
            carried, parsed = _unwrap(parsed)
        self.spec = spec_of_record(parsed)
        _check_move_count(self.spec, parsed)  # before any move is applied
        start, moves = self.spec.replay_start(parsed)
        self._positions = Positions(start, moves)
        self.players = start.players
        n = self.players
        given = carried if names is None else _names(names, "names")
        if given is not None and len(given) != n:
            raise TableError(f"a {n}-player game needs {n} seat names, got {len(given)}")
        self.names = given or [f"seat {p}" for p in range(n)]
        self.seat = None if seat is None else self._seat(seat)
        self._book = CardBook(start)
        self._builder = SeatStateBuilder(self.spec, self._book, self.names)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], seat: int | None = None) -> Replay:
        """The replay of the record in file ``path``."""
        text = read_regular_text(path, MAX_RECORD_BYTES, TableError, "record")
        try:
            return cls(text, seat)
        except PandaCoreError as err:  # say which file the refused record is in
            raise type(err)(f"{os.fspath(path)}: {err}") from err

    def _seat(self, seat: object) -> int:
        return check_seat(seat, self.players)

    @property
    def game_name(self) -> str:
        return self.spec.name

    def __len__(self) -> int:
        return len(self._positions)

    def for_seat(self, seat: int | None) -> Replay:
        """The same replay seen by another seat (``None``: full information); shares the
        positions."""
        other = object.__new__(Replay)
        other.__dict__.update(self.__dict__)
        other.seat = None if seat is None else self._seat(seat)
        return other

    def position(self, k: object) -> AnyGame:
        """A copy of the game after ``k`` moves (every hand in it: for analysis, not a screen)."""
        return self._positions.copy_at(self._frame_index(k))

    def _frame_index(self, k: object) -> int:
        i = int_arg(k, "frame")
        if not 0 <= i < len(self._positions):
            raise TableError(f"frames are 0..{len(self._positions) - 1}, got {i}")
        return i

    def frame(self, k: object) -> dict[str, Any]:
        """Frame ``k``: the position after ``k`` moves as :attr:`seat` saw it."""
        return self._frame(self._frame_index(k), None)

    def frames(self) -> Iterator[dict[str, Any]]:
        """Every frame in order, equal to ``frame(0)``, ``frame(1)``, … and built in time linear
        in the moves: the seat's log is described once, from the last position, and each frame
        holds its first events (a log only grows). The frames share those event dicts: read
        them, or copy before changing one."""
        p = self._positions
        full = self._builder.events(p.final, self.seat, ())
        # The engine's seat filter may drop an event it hides from the seat entirely; when it
        # dropped none, frame k's log is the first history_length(k) events of the last one.
        whole = p.history_length(len(p) - 1) == len(full)
        for i in range(len(p)):
            yield self._frame(i, full[: p.history_length(i)] if whole else None)

    def _frame(self, i: int, events: list[dict[str, Any]] | None) -> dict[str, Any]:
        game = self._positions.at(i)
        state = self._builder.build(
            game,
            self.seat,
            seat_kinds=[{"kind": "replay", "name": n} for n in self.names],
            seed=None,
            notes=(),
            since=self._since(i),
            events=events,
        )
        # In a replay nobody moves: the legal moves of the seat to move are for reading only.
        state["your_turn"] = False
        state["legal"] = []
        state["frame"] = i
        state["frames"] = len(self._positions)
        state["move_index"] = i - 1 if i > 0 else None
        return state

    def _since(self, i: int) -> int:
        """History length before the last move of frame ``i`` (its events are the new ones)."""
        if i == 0:
            return 0
        return self._positions.history_length(i - 1)

    def round_starts(self) -> list[int]:
        """The first frame of each round (hand), in order: frame 0, then each frame whose last
        move ended a round (it shows the next round's deal; its ``round`` is that round)."""
        starts = [0]
        p = self._positions
        for i in range(1, len(p)):
            if p.rounds_finished(i) != p.rounds_finished(i - 1) and not p.is_over(i):
                starts.append(i)
        return starts

    def log(self) -> list[str]:
        """The whole game as text, one line per event, as :attr:`seat` saw it."""
        game = self._positions.final
        names = SeatNames(self.names, self.seat)
        events = game.events(self.seat)
        presenter = self.spec.presenter()
        return [presenter.describe(e, self._book, names) for e in events]

    def record(self) -> str:
        """The record, as the engine writes it."""
        return self._positions.final.to_json()

    def to_html(
        self, path: str | os.PathLike[str], seat: object = ..., *, autoplay: bool = False
    ) -> Path:
        """Write the game as one self-contained HTML file at ``path`` (no server, no network):
        its frames as ``seat`` saw them (left out: this replay's seat; ``None``: every hand),
        with buttons, a slider, keys and auto-play (:func:`panda_core.html.write_replay`)."""
        from panda_core.html import SAME_SEAT, write_replay

        return write_replay(self, path, SAME_SEAT if seat is ... else seat, autoplay=autoplay)


def _names(value: object, what: str) -> list[str]:
    """``value`` as a list of seat names (1 to :data:`MAX_NAME` printable characters each)."""
    if not isinstance(value, list) or not value or len(value) > 16:
        raise TableError(f"{what} is a list with one seat name per player, got {cut(repr(value))}")
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise TableError(f"a seat name in {what} is text, got {cut(repr(name))}")
        if len(name) > MAX_NAME or not name.isprintable():
            raise TableError(
                f"a seat name in {what} is 1 to {MAX_NAME} printable characters, got "
                f"{cut(repr(name))}"
            )
    return list(value)


def _unwrap(parsed: dict[str, Any]) -> tuple[list[str], Any]:
    """The names and the engine's record of a record with names (see :data:`NAMED_RECORD`)."""
    keys = sorted(parsed)
    if keys != sorted([NAMED_RECORD, "names", "record"]):
        raise TableError(
            f"a record with names has exactly the fields {NAMED_RECORD!r}, 'names' and 'record', "
            f"got {[cut(k) for k in keys][:8]}"
        )
    version = parsed[NAMED_RECORD]
    if version != 1 or isinstance(version, bool):
        raise TableError(
            f"this panda-core reads records with names of version 1, got {cut(repr(version))}"
        )
    inner = parsed["record"]
    if not isinstance(inner, dict):
        raise TableError(
            f"the 'record' of a record with names is the game record (a JSON object), got "
            f"{type(inner).__name__}"
        )
    return _names(parsed["names"], "the record's names"), inner


def _check_move_count(game_spec: GameSpec, parsed: Any) -> None:
    """Refuse a record with more than :data:`MAX_RECORD_MOVES` moves before replaying any."""
    moves = parsed.get(game_spec.record_moves)
    if isinstance(moves, list) and len(moves) > MAX_RECORD_MOVES:
        raise TableError(
            f"a record holds at most {MAX_RECORD_MOVES} moves, this one lists {len(moves)} in "
            f"{game_spec.record_moves!r}"
        )


def _parse(record: str) -> Any:
    """The parsed record; a key given twice in one object is refused, as the engine's
    ``from_json`` refuses it (``json.loads`` would keep the last silently)."""
    try:
        return strict_loads(record)
    except ValueError as err:
        if "given twice" in str(err):
            raise TableError(
                f"not a game record: {err} (a record states each field once)"
            ) from None
        raise TableError(f"a record is a JSON object; this is not JSON: {cut(str(err))}") from err
