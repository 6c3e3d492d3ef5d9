"""The server's limits in one place, and the token bucket that enforces its rates.

Every limit is checked before the work it bounds starts: a websocket's slot is taken before the
socket is served, a body is counted while it is read, a replay build waits for one of
:data:`REPLAY_BUILDS` slots, and a table or replay is created only when the creation bucket has a
token left.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

__all__ = [
    "BOT_FRAMES_BURST",
    "BOT_FRAMES_PER_SECOND",
    "BOT_HELLO_TIMEOUT",
    "BOT_PING_INTERVAL",
    "BOT_PONG_TIMEOUT",
    "BOT_RECONNECT_GRACE",
    "BOT_THREADS",
    "CLOSE_TIMEOUT",
    "FINISHED_GRACE",
    "FRAMES_BURST",
    "FRAMES_PER_SECOND",
    "MAX_BOTS",
    "MAX_BOT_GAMES",
    "MAX_BOT_QUEUED",
    "MAX_CHALLENGES",
    "MAX_CHALLENGE_GAMES",
    "MAX_HOLD",
    "MAX_QUEUED",
    "MAX_SEAT_SOCKETS",
    "MAX_SOCKETS",
    "MAX_SPECTATOR_SOCKETS",
    "REPLAY_BUILDS",
    "REPLAY_QUEUE",
    "SEAT_HOLD",
    "TokenBucket",
]

MAX_SOCKETS = 16
"""Websockets open on one table at once, every seat's and the spectators' together (five people
with a tab or two each, and a few spectators)."""
MAX_SEAT_SOCKETS = 4
"""Websockets open for one seat at once (a reload, a second tab, a phone)."""
MAX_SPECTATOR_SOCKETS = 8
"""Spectators' websockets open on one table at once."""
MAX_QUEUED = 64
"""Messages waiting for one websocket besides its state (errors, the closing message): a page
that stops reading while the server has this many messages for it is closed."""
FRAMES_PER_SECOND = 20.0
"""Messages a websocket may send per second, sustained (a person clicks a few a second)."""
FRAMES_BURST = 60
"""Messages a websocket may send at once before :data:`FRAMES_PER_SECOND` applies."""
BOT_THREADS = min(8, max(2, os.cpu_count() or 2))
"""Worker threads for bot moves, apart from the ones that build states, records and frames, so
that bots thinking at many tables never make a page wait for its state."""
REPLAY_BUILDS = 1
"""Replays built at once (a build replays every move of a record in a worker thread)."""
REPLAY_QUEUE = 4
"""Replay requests that may wait for a build slot; more are refused at once (503)."""
FINISHED_GRACE = 300.0
"""Seconds a finished table stays open (the page shows the end, the record and the replay can be
fetched); a finished table does not count against the server's table limit meanwhile."""
SEAT_HOLD = 60.0
"""Seconds a person's seat with no page open is held before the table's stand-in bot plays it
(``serve --seat-hold``; a table may ask for its own ``hold``)."""
MAX_HOLD = 3600.0
"""The longest ``hold`` a table may ask for (and ``--seat-hold``)."""
CLOSE_TIMEOUT = 2.0
"""Seconds the server waits for a closing message to reach a page before it drops the socket."""


# ---- connected bots (/bots/ws, docs/bot_server.md) ----------------------------------------------

MAX_BOTS = 64
"""Bots connected at once (one connection per bot name)."""
MAX_BOT_GAMES = 64
"""Games one connected bot plays at once (tables and challenge games)."""
MAX_BOT_QUEUED = 256
"""Messages waiting for one bot's socket: a bot that stops reading while this many wait is
closed (its games go as for a lost connection)."""
BOT_FRAMES_PER_SECOND = 50.0
"""Messages a bot may send per second, sustained (a move, a pong, a few asks per decision)."""
BOT_FRAMES_BURST = 200
"""Messages a bot may send at once before :data:`BOT_FRAMES_PER_SECOND` applies (room for the
64 asks a decision allows, its move and a pong, several games at once)."""
BOT_HELLO_TIMEOUT = 30.0
"""Seconds a new bot connection has to send its hello (the protocol's start time)."""
BOT_PING_INTERVAL = 10.0
"""Seconds between two ``{"type": "ping"}`` to a connected bot."""
BOT_PONG_TIMEOUT = 30.0
"""Seconds a ping may wait for a ``pong``: a bot silent for longer is gone (closed, and its
games wait :data:`BOT_RECONNECT_GRACE` for it)."""
BOT_RECONNECT_GRACE = 30.0
"""Seconds a bot's games wait for it after its connection was lost; past it they are
forfeited."""
MAX_CHALLENGES = 4
"""Challenges (server-scheduled games between bots) played at once."""
MAX_CHALLENGE_GAMES = 1000
"""Games one challenge may schedule."""


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up: :meth:`take` spends one if there is
    one. Pure bookkeeping on the event loop (no lock: it is never awaited across)."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not rate > 0 or not math.isfinite(rate) or burst < 1:
            raise ValueError(f"a token bucket needs rate > 0 and burst >= 1, got {rate}, {burst}")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self._tokens = float(burst)
        self._at = clock()

    def _refill(self) -> None:
        now = self.clock()
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now

    def take(self) -> bool:
        """Spend a token; ``False`` (nothing spent) if none is left."""
        self._refill()
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True

    def wait_time(self) -> float:
        """Seconds until the next token (0 if one is there)."""
        self._refill()
        return max(0.0, (1.0 - self._tokens) / self.rate)
