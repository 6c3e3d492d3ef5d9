"""The live tables and replays a server holds: ids, seat tokens, one lock per table, the bots'
background moves, and the closing of idle tables.

The server keeps the game; a page only ever receives ``Table.state(seat)`` for the seat its token
belongs to (or a replay's ``frame(k)`` for the seat it asks). Everything that touches a table runs
under the table's lock, so a person's move, a bot's move and a state read never overlap (the
engine refuses a change while another call is inside the game). Bots move in a background task,
one move at a time ``bot_delay`` apart; each bot move runs in a worker thread, so a thinking bot
never blocks the event loop, and every connected page of the table is sent the new state.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from panda_core._core import GameOverError, PandaCoreError
from panda_core.table import NotYourTurnError, Replay, Table
from panda_core.web.errors import Conflict, Forbidden, NotFound, ServerFull, Unprocessable
from panda_core.web.payloads import Move

__all__ = ["CLOSE", "Connection", "LiveReplay", "LiveTable", "Registry"]

log = logging.getLogger("panda_core.web")

CLOSE = object()
"""Put in a connection's queue: close the websocket (its table was closed)."""
MAX_SOCKETS = 16
"""Websockets open on one table at once (a person with a few tabs open needs a handful)."""
MAX_QUEUED = 2000
"""Messages waiting for one websocket: a page that stops reading is dropped past this."""


def state_message(state: Any) -> str:
    return json.dumps({"type": "state", "state": state})


def error_message(message: str) -> str:
    return json.dumps({"type": "error", "message": message})


@dataclass(eq=False)
class Connection:
    """One open websocket of a seat: what to send it waits in ``queue`` (in order)."""

    seat: int
    queue: asyncio.Queue[object] = field(default_factory=lambda: asyncio.Queue(MAX_QUEUED))

    def put(self, message: object) -> bool:
        """Queue a message; ``False`` when the page has stopped reading."""
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            return False
        return True

    def close(self, why: str) -> None:
        """Drop what is still waiting, send ``why`` as an error, then close the websocket."""
        while not self.queue.empty():
            self.queue.get_nowait()
        self.put(error_message(why))
        self.put(CLOSE)


@dataclass(eq=False)
class LiveTable:
    id: str
    table: Table
    tokens: dict[int, str]
    last_used: float
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: asyncio.Task[None] | None = None
    """The task moving the bots, while one is running (set and cleared under :attr:`lock`)."""
    closed: bool = False


@dataclass(eq=False)
class LiveReplay:
    id: str
    full: Replay
    """The replay with full information; a seat's view shares its positions."""
    game: str
    players: int
    frames: int
    last_used: float

    def summary(self) -> dict[str, Any]:
        return {
            "replay": self.id,
            "frames": self.frames,
            "players": self.players,
            "game": self.game,
        }


def _engine_refusal(err: Exception) -> Exception:
    """The web error for an engine error raised by a person's move."""
    if isinstance(err, NotYourTurnError | GameOverError):
        return Conflict(str(err))
    return Unprocessable(str(err))


class Registry:
    """Every table and replay of one server (one per app; all methods run on its event loop)."""

    def __init__(
        self,
        *,
        idle_timeout: float,
        max_tables: int,
        bot_delay: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.idle_timeout = idle_timeout
        self.max_tables = max_tables
        self.bot_delay = bot_delay
        self.clock = clock
        self.tables: dict[str, LiveTable] = {}
        self.replays: dict[str, LiveReplay] = {}
        self._reaper: asyncio.Task[None] | None = None

    # ---- tables --------------------------------------------------------------------------------

    def add_table(self, table: Table, seat: int) -> LiveTable:
        """Open ``table`` with a person at ``seat`` (a fresh token for it) and start its bots."""
        self.reap()
        if len(self.tables) >= self.max_tables:
            raise ServerFull(
                f"the server has {len(self.tables)} tables open (at most {self.max_tables}); "
                "finish or leave one, or try again later"
            )
        live = LiveTable(
            id=_new_id(self.tables),
            table=table,
            tokens={seat: secrets.token_urlsafe(18)},
            last_used=self.clock(),
        )
        self.tables[live.id] = live
        self._start_bots(live)
        return live

    def table(self, table_id: str, seat: int, token: str) -> LiveTable:
        """The open table ``table_id`` if ``token`` is ``seat``'s (404, 403 otherwise)."""
        live = self.tables.get(table_id)
        if live is not None and self._idle(live.last_used):
            self._close_table(live, "the table was closed after being idle")
            live = None
        if live is None:
            raise NotFound(f"no table {table_id[:40]!r} (it may have been closed after being idle)")
        expected = live.tokens.get(seat)
        if expected is None or not secrets.compare_digest(expected, token):
            raise Forbidden(f"seat {seat} with this token does not belong to table {table_id!r}")
        live.last_used = self.clock()
        return live

    async def state(self, live: LiveTable, seat: int) -> Any:
        async with live.lock:
            if live.closed:
                raise NotFound(f"table {live.id!r} was closed")
            return live.table.state(seat)

    async def play(self, live: LiveTable, seat: int, move: Move) -> Any:
        """A person's move; every page of the table gets the new state; the bots go on."""
        async with live.lock:
            if live.closed:
                raise NotFound(f"table {live.id!r} was closed")
            try:
                live.table.play(seat, move)
            except (PandaCoreError, TypeError) as err:
                raise _engine_refusal(err) from None
            self._broadcast(live)
            self._start_bots(live)
            return live.table.state(seat)

    async def connect(self, live: LiveTable, seat: int) -> Connection:
        """A new websocket of ``seat``: it is sent the state first."""
        if len(live.connections) >= MAX_SOCKETS:
            raise Conflict(
                f"this table has {len(live.connections)} pages open (at most {MAX_SOCKETS}); "
                "close one"
            )
        connection = Connection(seat)
        async with live.lock:
            connection.put(state_message(live.table.state(seat)))
            live.connections.add(connection)
        return connection

    def disconnect(self, live: LiveTable, connection: Connection) -> None:
        live.connections.discard(connection)

    def touch(self, live: LiveTable) -> None:
        live.last_used = self.clock()

    def _broadcast(self, live: LiveTable) -> None:
        """Queue the current state for every page of the table (called under its lock)."""
        messages: dict[int, str] = {}
        for connection in list(live.connections):
            if connection.seat not in messages:
                messages[connection.seat] = state_message(live.table.state(connection.seat))
            if not connection.put(messages[connection.seat]):
                live.connections.discard(connection)
                connection.close("this page stopped reading the table's messages")

    def _start_bots(self, live: LiveTable) -> None:
        """Start the bot task if bots are to move and none runs (called under the lock, or
        before anyone else can hold the table)."""
        if live.bots is None and not live.closed and self._bots_to_move(live):
            live.bots = asyncio.create_task(self._move_bots(live), name=f"bots {live.id}")

    @staticmethod
    def _bots_to_move(live: LiveTable) -> bool:
        return not live.table.is_over and live.table.waiting_for is None

    async def _move_bots(self, live: LiveTable) -> None:
        """Bots move one at a time, ``bot_delay`` apart, until a person must move or the game
        ends. The task clears ``live.bots`` under the lock when it stops, so a person's move
        always finds either a running task that will see it or none (and starts one)."""
        try:
            while True:
                await asyncio.sleep(self.bot_delay)
                async with live.lock:
                    if live.closed or not self._bots_to_move(live):
                        live.bots = None
                        return
                    # A bot thinks in a worker thread; the lock keeps everyone else off the
                    # table meanwhile (reads included: the engine refuses overlapping changes).
                    await asyncio.to_thread(live.table.step_bot)
                    self._broadcast(live)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a bug in a bot or the model: keep the server up, tell the page
            log.exception("table %s: a bot move failed", live.id)
            async with live.lock:
                live.bots = None
                for connection in list(live.connections):
                    connection.put(error_message(f"a bot could not move: {err}"))

    # ---- replays -------------------------------------------------------------------------------

    async def add_replay(self, record: str) -> LiveReplay:
        """A replay of ``record``, checked by the table model's ``Replay`` (422: its message)."""
        self.reap()
        if len(self.replays) >= self.max_tables:
            raise ServerFull(
                f"the server has {len(self.replays)} replays open (at most {self.max_tables}); "
                "try again later"
            )
        full = await _build_replay(record)
        live = LiveReplay(
            id=_new_id(self.replays),
            full=full,
            game=full.game_name,
            players=full.players,
            frames=len(full),
            last_used=self.clock(),
        )
        self.replays[live.id] = live
        return live

    async def replay_of(self, live: LiveTable, seat: int) -> LiveReplay:
        """The replay of a finished table (409 while it is being played)."""
        async with live.lock:
            if not live.table.is_over:
                raise Conflict("the game is not over yet: its record and replay come at the end")
            record = live.table.record()
        return await self.add_replay(record)

    async def record(self, live: LiveTable) -> str:
        """The record of a finished table (it holds every hand, so not before the end)."""
        async with live.lock:
            if not live.table.is_over:
                raise Conflict(
                    "the game is not over yet: its record holds every hand, so it is given at "
                    "the end"
                )
            return live.table.record()

    async def frame(self, replay_id: str, seat: int | None, k: int) -> Any:
        """Frame ``k`` of a replay as ``seat`` saw it (``None``: full information)."""
        live = self.replays.get(replay_id)
        if live is not None and self._idle(live.last_used):
            del self.replays[replay_id]
            live = None
        if live is None:
            raise NotFound(
                f"no replay {replay_id[:40]!r} (it may have been closed after being idle)"
            )
        live.last_used = self.clock()
        if seat is not None and not 0 <= seat < live.players:
            raise Unprocessable(f"seat must be in 0..={live.players - 1} or all, got {seat}")
        if not 0 <= k < live.frames:
            raise NotFound(f"no frame {k}: this replay has frames 0..={live.frames - 1}")
        return await asyncio.to_thread(live.full.for_seat(seat).frame, k)

    # ---- closing -------------------------------------------------------------------------------

    def _idle(self, last_used: float) -> bool:
        return self.clock() - last_used > self.idle_timeout

    def _close_table(self, live: LiveTable, why: str) -> None:
        live.closed = True
        self.tables.pop(live.id, None)
        if live.bots is not None:
            live.bots.cancel()
            live.bots = None
        for connection in list(live.connections):
            connection.close(why)
        live.connections.clear()

    def reap(self) -> int:
        """Close the tables and replays idle longer than ``idle_timeout``; how many."""
        idle_tables = [t for t in self.tables.values() if self._idle(t.last_used)]
        for live in idle_tables:
            self._close_table(live, "the table was closed after being idle")
        idle_replays = [r.id for r in self.replays.values() if self._idle(r.last_used)]
        for rid in idle_replays:
            del self.replays[rid]
        return len(idle_tables) + len(idle_replays)

    async def _reap_forever(self) -> None:
        period = max(0.01, min(self.idle_timeout / 4, 30.0))
        while True:
            await asyncio.sleep(period)
            self.reap()

    def start(self) -> None:
        """Start closing idle tables (the app's startup)."""
        if self._reaper is None:
            self._reaper = asyncio.create_task(self._reap_forever(), name="idle tables")

    async def stop(self) -> None:
        """Close everything (the app's shutdown)."""
        tasks = [t.bots for t in self.tables.values() if t.bots is not None]
        if self._reaper is not None:
            tasks.append(self._reaper)
            self._reaper = None
        for live in list(self.tables.values()):
            self._close_table(live, "the server is shutting down")
        self.replays.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _build_replay(record: str) -> Replay:
    """The full-information replay of ``record`` (the engine replays every move: in a thread)."""
    try:
        return await asyncio.to_thread(Replay, record)
    except RecursionError:
        raise Unprocessable("the record is nested too deeply to be a game record") from None
    except (PandaCoreError, TypeError, ValueError) as err:
        raise Unprocessable(f"not a valid record: {err}") from None
    except Exception as err:  # outside the model's contract: still the client's record at fault
        log.warning("Replay raised %s for an uploaded record", type(err).__name__)
        raise Unprocessable(f"not a valid record: {type(err).__name__}: {err}") from None


def _new_id(taken: dict[str, Any]) -> str:
    while True:
        new = secrets.token_urlsafe(9)
        if new not in taken:
            return new
