"""The bots connected to a server (``/bots/ws``, docs/bot_server.md): who is connected, the games
each plays, and asking one for a move under a deadline.

A game a bot plays (at a table or in a challenge) is a :class:`BotGame`; its driver (the table's
bot task, the challenge's loop) builds the messages from the seat object in a worker thread and
hands them here. :meth:`BotHub.decide` sends a decision and waits for the bot's move: the clock
runs while the bot is connected and stops while it is away; a bot that comes back within the
reconnect grace is sent every game's ``start`` again, then the pending ``decision`` (with every
event of the game and the time it had left). Everything a bot does wrong ends in
:meth:`BotHub.forfeit` of the game it concerns, with its kind and reason; the driver is told
(``BotGame.on_forfeit``) and sends the bot its ``end``.

All of it runs on the event loop; nothing here calls the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from panda_core.protocol.messages import MAX_ASKS, Ask, BotMessage, ProtocolError
from panda_core.web.bot_seat import AskRefused, Decision
from panda_core.web.bot_tokens import BotTokens
from panda_core.web.limits import (
    BOT_FRAMES_BURST,
    BOT_FRAMES_PER_SECOND,
    BOT_HELLO_TIMEOUT,
    BOT_PING_INTERVAL,
    BOT_PONG_TIMEOUT,
    BOT_RECONNECT_GRACE,
    MAX_BOT_GAMES,
    MAX_BOT_QUEUED,
    MAX_BOTS,
    TokenBucket,
)
from panda_core.web.sockets import GOING_AWAY, POLICY_VIOLATION, Closing, error_message

__all__ = [
    "PING",
    "BotForfeit",
    "BotGame",
    "BotHub",
    "BotLink",
    "BotRefused",
    "BotSettings",
    "ForfeitKind",
]

log = logging.getLogger("panda_core.web")

ForfeitKind = Literal["exception", "illegal", "timeout"]
"""As the arena's: the bot died, left or broke the protocol; answered a move that is not legal
(or out of turn); or did not answer in time."""

PING = '{"type":"ping"}'
BYE = '{"type":"bye"}'
NOT_READING = f"this bot stopped reading: {MAX_BOT_QUEUED} messages waited for it"
_RECENT_ENDED = 64
"""Ended games remembered per bot, so that a late move for one is told apart from nonsense."""


@dataclass(frozen=True)
class BotSettings:
    """How a server takes bots: the ``tokens`` it lets in, and the protocol's times (seconds)."""

    tokens: BotTokens
    ping_interval: float = BOT_PING_INTERVAL
    pong_timeout: float = BOT_PONG_TIMEOUT
    reconnect_grace: float = BOT_RECONNECT_GRACE
    hello_timeout: float = BOT_HELLO_TIMEOUT


class BotRefused(Exception):
    """A bot connection or a seat for a bot refused (the message says why)."""


class BotForfeit(Exception):
    """A bot's game ended by its fault: ``kind`` and ``reason``."""

    def __init__(self, kind: ForfeitKind, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind: ForfeitKind = kind
        self.reason = reason

    def as_message(self, seat: int) -> dict[str, Any]:
        """The ``forfeit`` of an ``end`` message."""
        return {"seat": seat, "kind": self.kind, "reason": self.reason}


@dataclass(eq=False)
class BotLink:
    """One open websocket of bot ``name``: its outbox, its rate, its heartbeat."""

    name: str
    outbox: deque[str] = field(default_factory=deque)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the outbox has something (or the link is closing)."""
    gone: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the link no longer counts as the bot's connection."""
    served: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when its socket is served no more (its last message went out, or it left)."""
    closing: Closing | None = None
    frames: TokenBucket = field(
        default_factory=lambda: TokenBucket(BOT_FRAMES_PER_SECOND, BOT_FRAMES_BURST)
    )
    unanswered_since: float | None = None
    """When the oldest ping not answered by a pong was sent."""

    def put(self, text: str) -> bool:
        """Queue a message; ``False`` if the outbox is full (the bot stopped reading)."""
        if self.closing is not None:
            return True
        if len(self.outbox) >= MAX_BOT_QUEUED:
            return False
        self.outbox.append(text)
        self.ready.set()
        return True

    def close(self, code: int, why: str, *, farewell: str | None = None) -> None:
        """Drop what waits, send ``farewell`` (default: ``why`` as an error message), close."""
        if self.closing is not None:
            return
        self.outbox.clear()
        self.outbox.append(error_message(why) if farewell is None else farewell)
        self.closing = Closing(code, why)
        self.ready.set()


@dataclass(eq=False)
class _Pending:
    """A decision sent (or to be sent) to a bot, waiting for its move."""

    decision: Decision
    future: asyncio.Future[int | None]
    """The legal move's index; ``None``: the game was forfeited meanwhile."""
    remaining: float
    """Seconds left when the clock last stopped."""
    answer: Callable[[Ask, float], Awaitable[str]]
    """The driver's answer to an ask (the ask, the seconds left)."""
    running_since: float | None = None
    """When the clock last started (``None``: stopped, the bot is away)."""
    sent_on: BotLink | None = None
    asks: int = 0
    ask_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def time_left(self, now: float) -> float:
        if self.running_since is None:
            return self.remaining
        return self.remaining - (now - self.running_since)


@dataclass(eq=False)
class BotGame:
    """A game bot ``bot`` plays at seat ``seat``, under ``id`` (unique among its games)."""

    id: str
    bot: str
    seat: int
    start: str
    """The ``start`` message, sent again when the bot reconnects."""
    on_forfeit: Callable[[BotGame], None] | None = None
    """Called once, when the game is forfeited (the driver then sends the ``end``)."""
    seen: int = 0
    """Events of the seat sent since the last ``start``."""
    decisions: int = 0
    """Decisions asked so far."""
    forfeit: BotForfeit | None = None
    ended: bool = False
    pending: _Pending | None = None


class BotHub:
    """The connected bots of one server and the games they play."""

    def __init__(self, settings: BotSettings, clock: Callable[[], float] = time.monotonic) -> None:
        self.settings = settings
        self.clock = clock
        self.links: dict[str, BotLink] = {}
        self.games: dict[str, dict[str, BotGame]] = {}
        self._ended: dict[str, deque[str]] = {}
        self._arrivals: dict[str, asyncio.Event] = {}
        self._grace: dict[str, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def tokens(self) -> BotTokens:
        return self.settings.tokens

    def send(self, link: BotLink, text: str) -> None:
        """Queue ``text`` for ``link``; a bot that stopped reading is closed (its connection is
        lost: its games wait for it to come back)."""
        if not link.put(text):
            link.close(POLICY_VIOLATION, NOT_READING)
            self.detach(link, NOT_READING, lost=True)

    def connected(self) -> list[str]:
        """The names of the bots connected now."""
        return sorted(self.links)

    def is_connected(self, name: str) -> bool:
        return name in self.links

    # ---- connections ---------------------------------------------------------------------------

    def attach(self, link: BotLink) -> None:
        """``link`` becomes bot ``link.name``'s connection (:class:`BotRefused` if the bot is
        connected already, or too many are). A bot that comes back is sent the ``start`` of
        every game it plays; its pending decisions follow (:meth:`decide`)."""
        name = link.name
        if name in self.links:
            raise BotRefused(
                f"bot {name!r} is connected already: one connection per bot (a connection "
                f"that was lost counts as gone after {self.settings.pong_timeout:g} s without "
                "a pong, or as soon as it closed)"
            )
        if len(self.links) >= MAX_BOTS:
            raise BotRefused(f"{len(self.links)} bots are connected (at most {MAX_BOTS})")
        self.links[name] = link
        grace = self._grace.pop(name, None)
        if grace is not None:
            grace.cancel()
        games = list(self.games.get(name, {}).values())
        for game in games:
            game.seen = 0
            self.send(link, game.start)
        if games:
            log.info("bot %s connected again: %d game(s) go on", name, len(games))
        arrival = self._arrivals.pop(name, None)
        if arrival is not None:
            arrival.set()

    def detach(self, link: BotLink, why: str, *, lost: bool) -> None:
        """``link`` is served no more. ``lost`` (the connection dropped, or went silent): the
        bot's games wait :attr:`BotSettings.reconnect_grace` seconds for it; otherwise (it broke
        the protocol or the limits) they are forfeited now."""
        if link.gone.is_set():
            return
        link.gone.set()
        if self.links.get(link.name) is not link:
            return
        del self.links[link.name]
        if lost:
            self._start_grace(link.name, why)
        else:
            for game in list(self.games.get(link.name, {}).values()):
                self.forfeit(game, "exception", why)

    def _start_grace(self, name: str, why: str) -> None:
        if name in self._grace or not self.games.get(name):
            return
        task = asyncio.create_task(self._grace_ends(name, why), name=f"bot {name} grace")
        self._grace[name] = task

    async def _grace_ends(self, name: str, why: str) -> None:
        grace = self.settings.reconnect_grace
        await asyncio.sleep(grace)
        self._grace.pop(name, None)
        if name in self.links:
            return
        for game in list(self.games.get(name, {}).values()):
            self.forfeit(game, "exception", f"{why}; it did not come back within {grace:g} s")

    def close_all(self, why: str) -> list[BotLink]:
        """The server stops: every bot is sent ``bye`` and closed with 1001 (the links closed
        are returned, to wait for)."""
        links = list(self.links.values())
        for link in links:
            link.close(GOING_AWAY, why, farewell=BYE)
            self.links.pop(link.name, None)
            link.gone.set()
        for task in [*self._grace.values(), *self._tasks]:
            task.cancel()
        self._grace.clear()
        return links

    # ---- games ---------------------------------------------------------------------------------

    def open_game(
        self,
        *,
        game_id: str,
        bot: str,
        seat: int,
        start: str,
        on_forfeit: Callable[[BotGame], None] | None = None,
    ) -> BotGame:
        """Bot ``bot`` plays a new game at ``seat``: it is sent ``start`` now (or when it comes
        back, if it is away: then the reconnect grace runs for it)."""
        games = self.games.setdefault(bot, {})
        if game_id in games:
            raise BotRefused(f"bot {bot!r} plays game {game_id!r} already")
        if len(games) >= MAX_BOT_GAMES:
            raise BotRefused(f"bot {bot!r} plays {len(games)} games (at most {MAX_BOT_GAMES})")
        game = BotGame(id=game_id, bot=bot, seat=seat, start=start, on_forfeit=on_forfeit)
        games[game_id] = game
        link = self.links.get(bot)
        if link is not None:
            self.send(link, start)
        else:
            self._start_grace(bot, "it was not connected when its game started")
        return game

    def end(self, game: BotGame, message: str | None) -> None:
        """The game is over for its bot: ``message`` (its ``end``) is sent if the bot is here,
        and the game is forgotten (a late move for it is answered with an error message)."""
        if game.ended:
            return
        game.ended = True
        games = self.games.get(game.bot, {})
        if games.get(game.id) is game:
            del games[game.id]
        if not games:
            self.games.pop(game.bot, None)
        self._ended.setdefault(game.bot, deque(maxlen=_RECENT_ENDED)).append(game.id)
        link = self.links.get(game.bot)
        if link is not None and message is not None:
            self.send(link, message)
        if game.pending is not None and not game.pending.future.done():
            game.pending.future.set_result(None)

    def forfeit(self, game: BotGame, kind: ForfeitKind, reason: str) -> None:
        """``game`` is forfeited by its bot (once; a later fault changes nothing)."""
        if game.forfeit is not None or game.ended:
            return
        game.forfeit = BotForfeit(kind, reason)
        log.info("bot %s forfeits game %s (%s): %s", game.bot, game.id, kind, reason)
        if game.pending is not None and not game.pending.future.done():
            game.pending.future.set_result(None)
        if game.on_forfeit is not None:
            game.on_forfeit(game)

    async def decide(
        self,
        game: BotGame,
        decision: Decision,
        time_limit: float,
        answer: Callable[[Ask, float], Awaitable[str]],
    ) -> int:
        """The index of the legal move the bot plays for ``decision`` (built for ``game``'s
        seat), within ``time_limit`` seconds of connected time; :class:`BotForfeit` if the game
        was forfeited (now or before). ``answer`` answers the bot's asks meanwhile."""
        if game.forfeit is not None:
            raise game.forfeit
        if game.ended:
            raise BotForfeit("exception", "the game ended")
        pending = _Pending(
            decision=decision,
            future=asyncio.get_running_loop().create_future(),
            remaining=time_limit,
            answer=answer,
        )
        game.pending = pending
        try:
            while not pending.future.done():
                link = self.links.get(game.bot)
                if link is None:
                    await _first(pending.future, self._arrival(game.bot).wait())
                    continue
                if pending.sent_on is not link:
                    pending.sent_on = link
                    self.send(link, decision.message(game.seen, pending.remaining))
                    game.seen = decision.events
                pending.running_since = self.clock()
                await _first(pending.future, link.gone.wait(), timeout=max(0.0, pending.remaining))
                pending.remaining = pending.time_left(self.clock())
                pending.running_since = None
                if pending.future.done() or link.gone.is_set():
                    continue
                if pending.remaining <= 0:
                    self.forfeit(game, "timeout", f"no move within {time_limit:g} s")
        finally:
            game.pending = None
            game.decisions += 1
        index = pending.future.result()
        if index is None:
            raise game.forfeit or BotForfeit("exception", "the game ended")
        return index

    def _arrival(self, name: str) -> asyncio.Event:
        return self._arrivals.setdefault(name, asyncio.Event())

    # ---- what a bot sends ----------------------------------------------------------------------

    def receive(self, link: BotLink, message: BotMessage) -> None:
        """A checked message of ``link``'s bot (:class:`ProtocolError` if the protocol does not
        allow it here: the connection is then closed)."""
        if link.gone.is_set() or self.links.get(link.name) is not link:
            return  # a connection that no longer counts: what it still sends is dropped
        kind = message["type"]
        if kind == "pong":
            link.unanswered_since = None
            return
        if kind == "hello":
            raise ProtocolError("a bot sends its hello once, first")
        assert kind in ("move", "ask")
        game_id: str = message["game_id"]  # type: ignore[typeddict-item]
        game = self.games.get(link.name, {}).get(game_id)
        if game is None:
            if game_id in self._ended.get(link.name, ()):
                why = f"game {game_id!r} is over: this {kind} comes too late"
            else:
                why = f"this bot plays no game {game_id[:40]!r}"
            self.send(link, error_message(why))
            return
        pending = game.pending
        if pending is None or pending.sent_on is None or pending.future.done():
            what = "a move" if kind == "move" else "an ask"
            self.forfeit(game, "illegal", f"sent {what} while no decision was asked of it")
            return
        if kind == "move":
            index = pending.decision.index_of(message)
            if isinstance(index, str):
                self.forfeit(game, "illegal", index)
            else:
                pending.future.set_result(index)
            return
        pending.asks += 1
        if pending.asks > MAX_ASKS:
            self.forfeit(game, "exception", f"sent more than {MAX_ASKS} asks in one decision")
            return
        ask: Ask = message  # type: ignore[assignment]
        task = asyncio.create_task(self._answer(game, pending, link, ask))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, game: BotGame, pending: _Pending, link: BotLink, ask: Ask) -> None:
        """Answer one ask (in order, one at a time per decision), unless the decision is over."""
        async with pending.ask_lock:
            if pending.future.done():
                return
            try:
                text = await pending.answer(ask, pending.time_left(self.clock()))
            except AskRefused as err:
                self.forfeit(game, "exception", str(err))
                return
            except Exception:  # a bug of the server's: the game ends, the server stays up
                log.exception("bot %s: answering an ask of game %s failed", game.bot, game.id)
                self.forfeit(game, "exception", "the server could not answer this ask")
                return
            if not pending.future.done():
                self.send(link, text)


async def _first(
    future: asyncio.Future[Any], other: Awaitable[Any], timeout: float | None = None
) -> None:
    """Wait until ``future`` is done, ``other`` ends, or ``timeout`` seconds pass."""
    waiter = asyncio.ensure_future(other)
    try:
        await asyncio.wait({future, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiter
