"""A table's bot in a process of its own: a Python bot named by import path, or a protocol bot
(``exec:COMMAND``), contained.

Both speak the bot protocol (docs/bot_protocol.md) through
:class:`~panda_core.protocol.exec_bot.ExecBot`: a Python bot runs in the protocol's adapter
(``python -m panda_core.protocol.adapter package.module:attr``), which imports it, creates it and
asks it in that process only. For each decision the table's seat is sent its own view, the events
it saw and its legal moves, and nothing else: the process never holds the game, so the bot cannot
read another seat's cards whatever it does. The process answers a plain move (an action id or a
notation), within the table's time bound.

A bot that raises or answers no move gives up that decision (the process plays on); a timeout, a
crash, an ``os._exit``, a line that is not the protocol's or one too long kills the process and
starts a fresh one at once (so it is ready for the bot's next turn). Either way the table is told
why, and plays its fallback. A bot that fails to start, or whose process had to be replaced
:data:`MAX_RESTARTS` times, is played by the fallback for the rest of the game.

The process dies with its parent (:mod:`panda_core.protocol.process`) and is stopped by
:meth:`ContainedBot.close` (when the game ends: after its ``end`` message), when the object is
collected, and at interpreter exit. It is a process per seat, never shared.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from panda_core._args import cut
from panda_core._registry import AnyGame
from panda_core.bot_answer import PlainMove
from panda_core.bot_import import contained_bot
from panda_core.move_timer import MoveTimeout
from panda_core.protocol.exec_bot import START_TIME, BotResigned, ExecBot, ExecBotError
from panda_core.table.errors import TableError

__all__ = ["MAX_RESTARTS", "REASON_CHARS", "START_TIME", "ContainedBot"]

MAX_RESTARTS = 10
"""Processes replaced in one game before the seat is left to the fallback."""
REASON_CHARS = 300
"""The longest reason taken from a bot (it words the bot's failure; the table shows it)."""


def _clip(text: str) -> str:
    return text if len(text) <= REASON_CHARS else f"{text[:REASON_CHARS]}…"


def _seat_of(game: AnyGame, seat: int) -> Any:
    """What the bot's messages are built from: the seat object, where the engine has one (the
    messages take only ``seat``'s information from either)."""
    make = getattr(game, "seat", None)
    return make(seat) if callable(make) else game


class ContainedBot:
    """The bot at import path ``path`` (or, with ``command``, the protocol bot run by it) in a
    process of its own (see the module docs)."""

    def __init__(self, path: str, command: Sequence[str] | None = None) -> None:
        self.path = path
        if command is None:
            self._bot = contained_bot(path, pooled=False)
        else:
            self._bot = ExecBot(command, pooled=False, name=path)
        self._lock = threading.Lock()  # one decision at a time
        self._given_up: str | None = None
        self._last: tuple[AnyGame, int] | None = None
        self.restarts = 0
        """Processes replaced (after a failure) in this game."""

    def __repr__(self) -> str:
        return f"ContainedBot({self.path!r})"

    @property
    def pid(self) -> int | None:
        """The bot's process id (``None`` when none is running)."""
        return self._bot.pid

    def reset(self, seed: int) -> None:
        """A new game, the bot's seed ``seed`` (as ``reset_bots`` gives it): its process starts
        now, while the other seats are set up."""
        with self._lock:
            self._bot.reset(seed)
            self._given_up = None
            self.restarts = 0
            try:
                self._bot.spawn()
            except ExecBotError:
                pass  # check_started() or the first ask() tries again and says why

    def check_started(self, timeout: float = START_TIME) -> None:
        """Wait until the bot's process said hello; ``TableError`` saying why not (a missing
        module, a class that cannot be created, a program that is not a protocol bot)."""
        with self._lock:
            try:
                self._bot.start(timeout)
            except ExecBotError as err:
                self._bot.close()
                raise TableError(f"the bot {cut(self.path)!r} cannot play: {err}") from None

    def ask(self, game: AnyGame, seat: int, time_limit: float) -> tuple[PlainMove | None, str]:
        """The bot's plain move for ``seat`` and ``""``, or ``None`` and why not (its process
        is then replaced, unless the bot only gave up the decision). Not checked for legality
        here: the table does that on a copy."""
        with self._lock:
            if self._given_up is not None:
                return None, self._given_up
            self._last = (game, seat)
            self._bot.move_time = time_limit
            try:
                return self._bot(_seat_of(game, seat), seat), ""
            except MoveTimeout:
                return None, self._failed(f"no answer within {time_limit:g} s")
            except BotResigned as err:  # its own code failed: the bot says why
                return None, _clip(str(err))
            except ExecBotError as err:
                return None, self._failed(_clip(str(err)))

    def _failed(self, reason: str) -> str:
        """Start a fresh process after ``reason`` (or give up on it); the reason to report."""
        self.restarts += 1
        if self.restarts < MAX_RESTARTS:
            try:
                self._bot.spawn()
                return reason
            except ExecBotError as err:
                reason = f"{reason}; {err}"
        self._bot.close()
        self._given_up = (
            f"{reason}; after {self.restarts} failures the fallback plays this seat for the rest "
            "of the game"
        )
        return self._given_up

    def close(self) -> None:
        """Stop the bot's process (the table's game is over: the bot is sent its end first); a
        later :meth:`ask` starts a new one."""
        with self._lock:
            last, self._last = self._last, None
            if last is not None and self._bot.pid is not None:
                game, seat = last
                self._bot.game_over(_seat_of(game, seat))
            self._bot.close()
