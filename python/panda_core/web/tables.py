"""The live tables and replays a server holds: ids, seat tokens, one lock per table, the bots'
background moves, and the closing of idle and finished tables.

The server keeps the game; a page only ever receives ``Table.state(seat)`` for the seat its token
belongs to (or a replay's ``frame(k)`` for the seat it asks). Everything that touches a table runs
under the table's lock, so a person's move, a bot's move and a state read never overlap (the
engine refuses a change while another call is inside the game), and every call into the engine
runs in a worker thread (:func:`in_thread`), so no game, however long, holds up the event loop
and the other tables. A state is built once per change of the table and seat (it is cached with
the table's :attr:`LiveTable.version`), and only when a page is about to be sent it.

Bots move in a background task, one move at a time ``bot_delay`` apart; every connected page of
the table is then marked to receive the new state. A seat of a connected bot (``bot:NAME``,
:mod:`panda_core.web.bot_hub`) moves in the same task: its decision is built under the lock,
the lock is released while the bot thinks (pages still read the state), and its move is played
under the lock through ``Table.play``. A bot that forfeits leaves its seat to the built-in
heuristic for the rest of the game; the pages are told, and their states list the forfeit.

A table may seat several people, each with a token of their own, and spectators (one token for
all of them, :meth:`Table.spectator_state` only). A person's seat with no page open (and no
request for ``hold`` seconds) is played by the table's stand-in bot, each such move noted in every
log (``Table.play_for``), until a page of that seat connects again (or it sends a request), which
gets the seat back from its next decision. Every state carries ``presence``, one entry per seat,
and every page is sent a ``notice`` when someone leaves, comes back or is stood in for.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from panda_core._core import GameOverError, PandaCoreError
from panda_core.protocol.messages import Ask
from panda_core.table import NotYourTurnError, Replay, Table
from panda_core.web import bot_seat
from panda_core.web.bot_hub import BotForfeit, BotGame, BotHub, BotRefused
from panda_core.web.errors import (
    Conflict,
    Forbidden,
    NotFound,
    ServerBusy,
    ServerFull,
    TooMany,
    Unprocessable,
)
from panda_core.web.limits import (
    BOT_THREADS,
    FINISHED_GRACE,
    MAX_SEAT_SOCKETS,
    MAX_SOCKETS,
    MAX_SPECTATOR_SOCKETS,
    REPLAY_BUILDS,
    REPLAY_QUEUE,
    TokenBucket,
)
from panda_core.web.live import SPECTATOR, LiveReplay, LiveTable
from panda_core.web.payloads import Move
from panda_core.web.sockets import (
    GOING_AWAY,
    POLICY_VIOLATION,
    Connection,
    error_message,
    notice_message,
)
from panda_core.web.threads import in_thread

__all__ = ["LiveReplay", "LiveTable", "Registry", "in_thread"]

log = logging.getLogger("panda_core.web")

IDLE = "the table was closed after being idle"
FINISHED = "the game is over and its table was closed"
STOPPING = "the server is shutting down"
NOT_READING = "this page stopped reading the table's messages"


def _state_json(table: Table, seat: int | None, forfeits: list[dict[str, Any]]) -> str:
    state = table.spectator_state() if seat is None else table.state(seat)
    if forfeits:
        state["bot_forfeits"] = forfeits
    return json.dumps(state)


def _start(table: Table, seat: int, game_id: str) -> str:
    return bot_seat.start(
        table.seat(seat), game_id=game_id, deal_seed=table.seed, move_time=table.bot_time
    )


def _decision(table: Table, game: BotGame) -> bot_seat.Decision:
    return bot_seat.decision(table.seat(game.seat), game_id=game.id, number=game.decisions)


def _end(
    table: Table,
    game: BotGame,
    forfeit: BotForfeit | None,
    closed: dict[str, Any] | None = None,
) -> str:
    return bot_seat.end(
        table.seat(game.seat),
        game_id=game.id,
        since=game.seen,
        forfeit=closed if forfeit is None else forfeit.as_message(game.seat),
    )


def _fallback_move(table: Table, seat: int) -> None:
    """The built-in heuristic plays seat ``seat`` (its bot forfeited), from the seat's own
    information."""
    info = table.seat(seat)
    move = info.bot_move("heuristic", len(info.history))
    table.play(seat, list(info.legal_moves()).index(move))


def _frame_json(replay: Replay, seat: int | None, k: int) -> str:
    return json.dumps(replay.for_seat(seat).frame(k))


def _engine_refusal(err: Exception) -> Exception:
    """The web error for an engine error raised by a person's move."""
    if isinstance(err, NotYourTurnError | GameOverError):
        return Conflict(str(err))
    return Unprocessable(str(err))


class Registry:
    """Every table and replay of one server (one per app; all methods run on its event loop).

    ``max_tables`` bounds the tables being played and, separately, the finished tables kept and
    the replays open; ``creation_rate`` (per second, with a burst of ``max_tables``) bounds how
    fast tables and replays are created.
    """

    def __init__(
        self,
        *,
        idle_timeout: float,
        max_tables: int,
        bot_delay: float,
        creation_rate: float = 1.0,
        finished_grace: float = FINISHED_GRACE,
        clock: Callable[[], float] = time.monotonic,
        hub: BotHub | None = None,
        seat_hold: float = 60.0,
    ) -> None:
        self.idle_timeout = idle_timeout
        self.max_tables = max_tables
        self.bot_delay = bot_delay
        self.finished_grace = finished_grace
        self.clock = clock
        self.creations = TokenBucket(creation_rate, max(1, max_tables))
        self.tables: dict[str, LiveTable] = {}
        self.replays: dict[str, LiveReplay] = {}
        self._tables_building = 0
        self._replays_building = 0
        self._replay_slots = asyncio.Semaphore(REPLAY_BUILDS)
        self._replay_waiting = 0
        self._bot_threads: ThreadPoolExecutor | None = None
        """The bots' own worker threads, from start() to stop()."""
        self._reaper: asyncio.Task[None] | None = None
        self.hub = hub
        """The connected bots, if the server takes any."""
        self.seat_hold = seat_hold
        """Seconds an absent person's seat is held when the table does not say (``hold``)."""
        self._tasks: set[asyncio.Task[None]] = set()

    # ---- tables --------------------------------------------------------------------------------

    def playing(self) -> int:
        """Tables open whose game is not over (the ones ``max_tables`` bounds)."""
        return sum(1 for t in self.tables.values() if t.finished_at is None)

    def _take_creation(self) -> None:
        if not self.creations.take():
            wait = self.creations.wait_time()
            raise TooMany(
                f"tables and replays are created at most {self.creations.rate:g} a second "
                f"(after a burst of {self.creations.burst}); try again in {wait:.1f} s",
                retry_after=wait,
            )

    async def add_table(
        self,
        build: Callable[[], Table],
        people: Sequence[int],
        remote: Mapping[int, str] | None = None,
        *,
        stand_in: str | None = None,
        hold: float | None = None,
    ) -> LiveTable:
        """Open the table ``build()`` makes (in a worker thread) with people at the seats
        ``people`` (a fresh token for each) and the connected bots ``remote`` (seat → name), and
        start its bots. ``stand_in`` plays an absent person's seat after ``hold`` seconds
        (default: the server's :attr:`seat_hold`). The slot is taken before the table is
        built."""
        remote = dict(remote or {})
        self._check_bots(remote.values())
        self.reap()
        if self.playing() + self._tables_building >= self.max_tables:
            raise ServerFull(
                f"the server has {self.playing() + self._tables_building} games being played "
                f"(at most {self.max_tables}); finish or leave one, or try again later"
            )
        self._take_creation()
        self._tables_building += 1
        try:
            table = await in_thread(build)
        finally:
            self._tables_building -= 1
        now = self.clock()
        live = LiveTable(
            id=_new_id(self.tables),
            table=table,
            tokens={s: secrets.token_urlsafe(18) for s in people},
            last_used=now,
            stand_in=stand_in,
            hold=self.seat_hold if hold is None else hold,
            seen=dict.fromkeys(people, now),
        )
        self.tables[live.id] = live
        for s in people:
            self._arm(live, s)
        try:
            await self._seat_bots(live, remote)
        except BaseException:
            self._close_table(live, "its bots could not be seated")
            raise
        if table.is_over:  # cannot happen with a person seated, but then it is finished
            self._changed(live)
        self._start_bots(live)
        return live

    def _check_bots(self, names: Iterable[str]) -> None:
        """Refuse (422) bots that are not connected now."""
        wanted = sorted(set(names))
        if not wanted:
            return
        if self.hub is None:
            raise Unprocessable(
                "this server takes no connected bots (start it with --bot-token NAME=TOKEN)"
            )
        missing = [n for n in wanted if not self.hub.is_connected(n)]
        if missing:
            raise Unprocessable(
                f"bot(s) {missing} not connected (connected: {self.hub.connected()[:20]})"
            )

    async def _seat_bots(self, live: LiveTable, remote: Mapping[int, str]) -> None:
        """Each connected bot of the table is sent its game's start."""
        if not remote:
            return
        assert self.hub is not None
        table = live.table
        for seat, name in sorted(remote.items()):
            game_id = f"table-{live.id}-{seat}"
            start = await in_thread(_start, table, seat, game_id)
            try:
                live.remote[seat] = self.hub.open_game(
                    game_id=game_id,
                    bot=name,
                    seat=seat,
                    start=start,
                    on_forfeit=functools.partial(self._bot_forfeited, live),
                )
            except BotRefused as err:
                raise Unprocessable(str(err)) from None

    def table(self, table_id: str, seat: int, token: str, *, present: bool = True) -> LiveTable:
        """The open table ``table_id`` if ``token`` is ``seat``'s (404, 403 otherwise). The seat
        counts as present (an absent person's seat is given back) unless ``present`` is false
        (a websocket: :meth:`connect` does it)."""
        live = self._open(table_id)
        expected = live.tokens.get(seat)
        if expected is None or not secrets.compare_digest(expected, token):
            raise Forbidden(f"seat {seat} with this token does not belong to table {table_id!r}")
        live.last_used = self.clock()
        if present:
            self._seen(live, seat)
        return live

    def spectate(self, table_id: str, token: str) -> LiveTable:
        """The open table ``table_id`` if ``token`` is its spectators' (404, 403 otherwise)."""
        live = self._open(table_id)
        if not secrets.compare_digest(live.spectator_token, token):
            raise Forbidden(f"this spectator token does not belong to table {table_id!r}")
        live.last_used = self.clock()
        return live

    def _open(self, table_id: str) -> LiveTable:
        live = self.tables.get(table_id)
        if live is not None:
            why = self._expired(live)
            if why is not None:
                self._close_table(live, why)
                live = None
        if live is None:
            raise NotFound(
                f"no table {table_id[:40]!r} (it may have been closed after being idle, or "
                "some time after its game ended)"
            )
        return live

    async def _state_locked(self, live: LiveTable, seat: int | None) -> str:
        """The seat's state as JSON (called under the lock; ``None``: a spectator's), with the
        seats' presence: built in a worker thread, once per version of the table."""
        key = SPECTATOR if seat is None else seat
        cached = live.states.get(key)
        if cached is not None and cached[0] == live.version:
            return live.with_presence(cached[1])
        text = await in_thread(_state_json, live.table, seat, list(live.forfeits))
        live.states[key] = (live.version, text)
        return live.with_presence(text)

    async def state_json(self, live: LiveTable, seat: int | None) -> str:
        """``Table.state(seat)`` (``None``: ``Table.spectator_state()``) as JSON text."""
        return (await self.versioned_state(live, seat))[1]

    async def versioned_state(self, live: LiveTable, seat: int | None) -> tuple[int, str]:
        """The table's version and the seat's state at it, as JSON text."""
        async with live.lock:
            if live.closed:
                raise NotFound(f"table {live.id!r} was closed")
            return live.version, await self._state_locked(live, seat)

    async def play(self, live: LiveTable, seat: int, move: Move) -> str:
        """A person's move; every page of the table gets the new state; the bots go on. The
        seat's state after the move, as JSON."""
        async with live.lock:
            if live.closed:
                raise NotFound(f"table {live.id!r} was closed")
            try:
                await in_thread(live.table.play, seat, move)
            except (PandaCoreError, TypeError) as err:
                raise _engine_refusal(err) from None
            await self._moved(live)
            self._start_bots(live)
            return await self._state_locked(live, seat)

    def connect(self, live: LiveTable, seat: int | None) -> Connection:
        """A new websocket of ``seat`` (``None``: a spectator), sent the state first. The slot
        is taken here, with no await between the count and the taking, so concurrent connects
        never pass the limits. A person's seat the stand-in played is given back."""
        if live.closed:
            raise NotFound(f"table {live.id!r} was closed")
        if len(live.connections) >= MAX_SOCKETS:
            raise Conflict(
                f"this table has {len(live.connections)} pages open (at most {MAX_SOCKETS}); "
                "close one"
            )
        mine = live.pages(seat)
        if seat is None and mine >= MAX_SPECTATOR_SOCKETS:
            raise Conflict(
                f"this table has {mine} spectators (at most {MAX_SPECTATOR_SOCKETS}); try later"
            )
        if seat is not None and mine >= MAX_SEAT_SOCKETS:
            raise Conflict(
                f"seat {seat} has {mine} pages open (at most {MAX_SEAT_SOCKETS}); close one"
            )
        connection = Connection(seat)
        live.connections.add(connection)
        connection.want_state()
        if seat is None:
            self._presence_changed(live, None)
        elif seat in live.tokens:
            self._seen(live, seat, first_page=mine == 0)
            self._start_bots(live)  # someone is at the table: a stand-in may play again
        return connection

    def disconnect(self, live: LiveTable, connection: Connection) -> None:
        if connection not in live.connections:
            return
        live.connections.discard(connection)
        seat = connection.seat
        if live.closed:
            return
        if seat is None or seat not in live.tokens:
            self._presence_changed(live, None)
            return
        live.seen[seat] = self.clock()
        if live.pages(seat) == 0:
            name = live.name(seat)
            if live.stand_in is None:
                why = f"{name} left the table; the seat waits for them"
            else:
                why = (
                    f"{name} left the table; the {live.stand_in} bot plays for {name} if they "
                    f"are not back within {live.hold:g} s"
                )
            self._presence_changed(live, why, about=seat)
            self._arm(live, seat)

    # ---- people: presence, hold and stand-in -------------------------------------------------

    def _seen(self, live: LiveTable, seat: int, *, first_page: bool = False) -> None:
        """``seat`` (a person's) has a page or sent a request now: it is present; a seat the
        stand-in played is given back (from its next decision: a move the stand-in is making
        now is played)."""
        if seat not in live.tokens:
            return
        live.seen[seat] = self.clock()
        name = live.name(seat)
        if seat in live.standing_in:
            live.standing_in.discard(seat)
            self._presence_changed(live, f"{name} is back and plays their seat again", about=seat)
        elif first_page:
            joined = seat in live.joined
            self._presence_changed(
                live,
                f"{name} is back at the table" if joined else f"{name} joined the table",
                about=seat,
            )
        live.joined.add(seat)
        if live.pages(seat) == 0:
            self._arm(live, seat)  # a request without a page: held from now

    def _presence_changed(
        self, live: LiveTable, notice: str | None, *, about: int | None = None
    ) -> None:
        """Every page is sent the state again (its presence changed), and every page but those
        of seat ``about`` the ``notice`` (if any)."""
        if live.closed:
            return
        message = None if notice is None else notice_message(notice)
        for connection in list(live.connections):
            skip = message is None or (about is not None and connection.seat == about)
            sent = skip or connection.put(message or "")
            if not (sent and connection.want_state(again=True)):
                live.connections.discard(connection)
                connection.close(POLICY_VIOLATION, NOT_READING)

    def _arm(self, live: LiveTable, seat: int) -> None:
        """Wait for the hold of ``seat`` (a person's seat with no page) to run out, then have the
        stand-in play it (nothing to wait for without a stand-in)."""
        if live.stand_in is None or live.closed or live.table.is_over:
            return
        if seat in live.standing_in or live.pages(seat) or seat in live.watchers:
            return
        live.watchers[seat] = asyncio.create_task(
            self._watch(live, seat), name=f"hold {live.id} {seat}"
        )

    async def _watch(self, live: LiveTable, seat: int) -> None:
        try:
            while not live.closed and not live.pages(seat) and seat not in live.standing_in:
                wait = live.seen[seat] + live.hold - self.clock()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                async with live.lock:
                    if live.closed or live.pages(seat) or seat in live.standing_in:
                        return
                    if self.clock() - live.seen[seat] < live.hold:
                        continue  # a request came meanwhile
                    live.standing_in.add(seat)
                    name = live.name(seat)
                    self._presence_changed(
                        live,
                        f"{name} is away: the {live.stand_in} bot plays for {name} until they "
                        "come back",
                        about=seat,
                    )
                    self._start_bots(live)
                return
        finally:
            if live.watchers.get(seat) is asyncio.current_task():
                del live.watchers[seat]

    def touch(self, live: LiveTable) -> None:
        live.last_used = self.clock()

    def _changed(self, live: LiveTable) -> None:
        """The table moved (called under its lock): a new version, every page to be sent the
        new state, and a finished game leaves the count of games being played."""
        live.version += 1
        if live.finished_at is None and live.table.is_over:
            live.finished_at = self.clock()
            self._keep_finished_bounded()
        for connection in list(live.connections):
            if not connection.want_state():
                live.connections.discard(connection)
                connection.close(POLICY_VIOLATION, NOT_READING)

    def _keep_finished_bounded(self) -> None:
        """At most ``max_tables`` finished tables are kept: the oldest go first."""
        finished = sorted(
            (t for t in self.tables.values() if t.finished_at is not None),
            key=lambda t: t.finished_at or 0.0,
        )
        for live in finished[: max(0, len(finished) - self.max_tables)]:
            self._close_table(live, FINISHED)

    def _start_bots(self, live: LiveTable) -> None:
        """Start the bot task if bots are to move and none runs (called under the lock, or
        before anyone else can hold the table)."""
        if live.bots is None and not live.closed and self._bots_to_move(live):
            live.bots = asyncio.create_task(self._move_bots(live), name=f"bots {live.id}")

    @staticmethod
    def _bots_to_move(live: LiveTable) -> bool:
        if live.table.is_over:
            return False
        waiting = live.table.waiting_for
        if waiting is None or waiting in live.remote:
            return True
        return waiting in live.standing_in and live.attended()

    async def _moved(self, live: LiveTable) -> None:
        """After a move (under the lock): the pages are told; at the end of the game, every
        connected bot still playing is sent its ``end``."""
        self._changed(live)
        if not live.table.is_over or self.hub is None:
            return
        for game in live.remote.values():
            if not game.ended:
                text = await in_thread(_end, live.table, game, None)
                self.hub.end(game, text)

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
                    seat = live.table.to_move
                    if seat is not None and seat in live.standing_in:
                        assert live.stand_in is not None
                        # An absent person: the stand-in plays (noted in every log).
                        await in_thread(
                            live.table.play_for, seat, live.stand_in, pool=self._bot_threads
                        )
                        await self._moved(live)
                        continue
                    game = None if seat is None else live.remote.get(seat)
                    if game is None or game.forfeit is not None:
                        # A bot thinks in a worker thread; the lock keeps everyone else off the
                        # table meanwhile (reads included: the engine refuses overlapping
                        # changes). A connected bot that forfeited: the heuristic plays.
                        if game is None:
                            await in_thread(live.table.step_bot, pool=self._bot_threads)
                        else:
                            await in_thread(
                                _fallback_move, live.table, game.seat, pool=self._bot_threads
                            )
                        await self._moved(live)
                        continue
                    version = live.version
                    decision = await in_thread(_decision, live.table, game)
                # The connected bot thinks with the lock released: the pages read the table
                # meanwhile, and nothing else can move (the seat to move is the bot's).
                await self._remote_move(live, game, decision, version)
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a bug in a bot or the model: keep the server up, tell the page
            log.exception("table %s: a bot move failed", live.id)
            async with live.lock:
                live.bots = None
                for connection in list(live.connections):
                    connection.put(error_message(f"a bot could not move: {err}"))

    async def _remote_move(
        self, live: LiveTable, game: BotGame, decision: bot_seat.Decision, version: int
    ) -> None:
        """Ask the connected bot of ``game`` for its move and play it (a forfeit: nothing is
        played, and the heuristic moves for the seat next)."""
        assert self.hub is not None
        table = live.table

        async def answer(ask: Ask, time_left: float) -> str:
            async with live.lock:
                if live.closed:
                    raise bot_seat.AskRefused("the table was closed")
                return await in_thread(
                    lambda: bot_seat.answer_ask(table.seat(game.seat), ask, time_left),
                    pool=self._bot_threads,
                )

        try:
            index = await self.hub.decide(game, decision, table.bot_time, answer)
        except BotForfeit:
            return
        async with live.lock:
            if live.closed or live.version != version:
                return
            await in_thread(table.play, game.seat, index)
            await self._moved(live)

    def _bot_forfeited(self, live: LiveTable, game: BotGame) -> None:
        """A connected bot forfeited its game at this table (the hub's call)."""
        forfeit = game.forfeit
        assert forfeit is not None
        live.forfeits.append(
            {"seat": game.seat, "bot": game.bot, "kind": forfeit.kind, "reason": forfeit.reason}
        )
        self._spawn(self._tell_forfeit(live, game, forfeit))

    async def _tell_forfeit(self, live: LiveTable, game: BotGame, forfeit: BotForfeit) -> None:
        """The bot is sent its ``end`` (with the forfeit), the pages the news; the heuristic
        plays the seat from now on."""
        assert self.hub is not None
        async with live.lock:
            if live.closed:
                return
            text = await in_thread(_end, live.table, game, forfeit)
            self.hub.end(game, text)
            # The states now list the forfeit: built again and sent, the table's version
            # unchanged (a move another bot is thinking about stays good).
            live.states.clear()
            note = error_message(
                f"seat {game.seat}'s bot {game.bot} forfeited ({forfeit.kind}: "
                f"{forfeit.reason}); the heuristic bot plays that seat from now on"
            )
            for connection in list(live.connections):
                connection.put(note)
                connection.want_state(again=True)
            self._start_bots(live)

    async def _end_unfinished(self, live: LiveTable, game: BotGame, why: str) -> None:
        """The table was closed before its game ended: its bot is sent an ``end`` whose
        ``forfeit`` says so (``seat`` null, kind ``closed``)."""
        assert self.hub is not None
        async with live.lock:  # a bot move still in its thread ends first
            closed = {"seat": None, "kind": "closed", "reason": why}
            text = await in_thread(_end, live.table, game, None, closed)
        self.hub.end(game, text)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- replays -------------------------------------------------------------------------------

    async def add_replay(self, record: str, names: list[str] | None = None) -> LiveReplay:
        """A replay of ``record``, checked by the table model's ``Replay`` (422: its message).
        The slot, the creation rate and a build slot are all taken before the build starts."""
        self.reap()
        if len(self.replays) + self._replays_building >= self.max_tables:
            raise ServerFull(
                f"the server has {len(self.replays)} replays open (at most {self.max_tables}); "
                "try again later"
            )
        if self._replay_slots.locked() and self._replay_waiting >= REPLAY_QUEUE:
            raise ServerBusy(
                f"the server is building {REPLAY_BUILDS} replay(s) and {self._replay_waiting} "
                "more are waiting; try again in a moment",
                retry_after=1.0,
            )
        self._take_creation()
        self._replays_building += 1
        try:
            full = await self._build_replay(record, names)
        finally:
            self._replays_building -= 1
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

    async def _build_replay(self, record: str, names: list[str] | None) -> Replay:
        """The full-information replay of ``record``, built in a worker thread, at most
        :data:`REPLAY_BUILDS` at once (the others wait their turn)."""
        self._replay_waiting += 1
        try:
            await self._replay_slots.acquire()
        finally:
            self._replay_waiting -= 1
        try:
            return await in_thread(functools.partial(Replay, record, names=names))
        except RecursionError:
            raise Unprocessable("the record is nested too deeply to be a game record") from None
        except (PandaCoreError, TypeError, ValueError) as err:
            raise Unprocessable(f"not a valid record: {err}") from None
        except Exception as err:  # outside the model's contract: still the client's record
            log.warning("Replay raised %s for an uploaded record", type(err).__name__)
            raise Unprocessable(f"not a valid record: {type(err).__name__}: {err}") from None
        finally:
            self._replay_slots.release()

    async def replay_of(self, live: LiveTable) -> LiveReplay:
        """The replay of a finished table (409 while it is being played); asked again, the same
        replay while it is open (a game is replayed once, however often the page asks)."""
        record = await self.record(live)
        built = self.replays.get(live.replay_id or "")
        if built is not None and not self._idle(built.last_used):
            built.last_used = self.clock()
            return built
        replay = await self.add_replay(record, _replay_names(live.table))
        live.replay_id = replay.id
        return replay

    async def record(self, live: LiveTable, *, names: bool = False) -> str:
        """The record of a finished table (it holds every hand, so not before the end); with
        ``names``, the record with the seats' names (``Table.named_record``)."""
        async with live.lock:
            if live.closed:
                raise NotFound(f"table {live.id!r} was closed")
            if not live.table.is_over:
                raise Conflict(
                    "the game is not over yet: its record holds every hand, so it is given at "
                    "the end"
                )
            return await in_thread(live.table.named_record if names else live.table.record)

    async def frame(self, replay_id: str, seat: int | None, k: int) -> str:
        """Frame ``k`` of a replay as ``seat`` saw it (``None``: full information), as JSON text
        (built and encoded in a worker thread: a frame holds the whole log so far)."""
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
        async with live.lock:
            return await in_thread(_frame_json, live.full, seat, k)

    # ---- closing -------------------------------------------------------------------------------

    def _idle(self, last_used: float) -> bool:
        return self.clock() - last_used > self.idle_timeout

    def _expired(self, live: LiveTable) -> str | None:
        """Why ``live`` is to be closed now, if it is."""
        if self._idle(live.last_used):
            return IDLE
        if live.finished_at is not None and self.clock() - live.finished_at > self.finished_grace:
            return FINISHED
        return None

    def _close_table(self, live: LiveTable, why: str) -> None:
        live.closed = True
        self.tables.pop(live.id, None)
        for watcher in live.watchers.values():
            watcher.cancel()
        live.watchers.clear()
        if live.bots is not None:
            live.bots.cancel()
            live.bots = None
        if self.hub is not None:
            for game in live.remote.values():
                if game.ended:
                    continue
                if self.hub.is_connected(game.bot):
                    self._spawn(self._end_unfinished(live, game, why))
                else:
                    self.hub.end(game, None)
        for connection in list(live.connections):
            connection.close(GOING_AWAY, why)
        live.connections.clear()
        live.states.clear()

    def reap(self) -> int:
        """Close the tables idle longer than ``idle_timeout`` or finished longer than
        ``finished_grace`` ago, and the idle replays; how many."""
        closing = [(t, why) for t in self.tables.values() if (why := self._expired(t))]
        for live, why in closing:
            self._close_table(live, why)
        idle_replays = [r.id for r in self.replays.values() if self._idle(r.last_used)]
        for rid in idle_replays:
            del self.replays[rid]
        return len(closing) + len(idle_replays)

    async def _reap_forever(self) -> None:
        period = max(0.01, min(self.idle_timeout / 4, self.finished_grace / 4, 30.0))
        while True:
            await asyncio.sleep(period)
            self.reap()

    def start(self) -> None:
        """Start closing idle tables (the app's startup)."""
        if self._bot_threads is None:
            self._bot_threads = ThreadPoolExecutor(BOT_THREADS, thread_name_prefix="panda-bots")
        if self._reaper is None:
            self._reaper = asyncio.create_task(self._reap_forever(), name="idle tables")

    async def close_pages(self, why: str, timeout: float) -> None:
        """Close every table, each page with the message ``why`` and the code 1001, and wait (at
        most ``timeout`` seconds) until the pages were sent it. Every connected bot is sent
        ``bye`` and closed."""
        connections = [c for t in self.tables.values() for c in t.connections]
        bots = [] if self.hub is None else self.hub.close_all(why)
        for live in list(self.tables.values()):
            self._close_table(live, why)
        events = [c.done for c in connections] + [b.served for b in bots]
        if events:
            waits = [asyncio.ensure_future(e.wait()) for e in events]
            _, pending = await asyncio.wait(waits, timeout=timeout)
            for wait in pending:
                wait.cancel()

    async def stop(self) -> None:
        """Close everything (the app's shutdown)."""
        tasks = [t.bots for t in self.tables.values() if t.bots is not None]
        tasks.extend(self._tasks)
        if self._reaper is not None:
            tasks.append(self._reaper)
            self._reaper = None
        if self.hub is not None:
            self.hub.close_all(STOPPING)
        for live in list(self.tables.values()):
            self._close_table(live, STOPPING)
        self.replays.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._bot_threads is not None:
            self._bot_threads.shutdown(wait=False, cancel_futures=True)
            self._bot_threads = None


def _replay_names(table: Table) -> list[str]:
    """The seats' names for a replay of ``table``: a person of the one-person form (named
    "you" at the table) is "person" there."""
    return ["person" if n == "you" else n for n in table.names]


def _new_id(taken: dict[str, Any]) -> str:
    while True:
        new = secrets.token_urlsafe(9)
        if new not in taken:
            return new
