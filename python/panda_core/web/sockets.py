"""One open websocket of a table (:class:`Connection`): what is waiting to be sent to it, and the
rate its messages are taken at.

What a page is sent waits in a short outbox, in order: error messages as text, and at most one
:data:`STATE` marker, "send the current state here". The state itself is built only when the
sender reaches the marker (off the event loop, see ``Registry.state_message``), so a table that
changes a hundred times while a page is slow costs one state, and a page asking for the state a
thousand times while one is pending costs nothing more. A page that lets :data:`MAX_QUEUED`
messages pile up is closed, and so is one that sends faster than its token bucket allows.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from dataclasses import dataclass, field

from panda_core.web.limits import FRAMES_BURST, FRAMES_PER_SECOND, MAX_QUEUED, TokenBucket

__all__ = [
    "GOING_AWAY",
    "INTERNAL_ERROR",
    "POLICY_VIOLATION",
    "STATE",
    "Closing",
    "Connection",
    "close_reason",
    "error_message",
    "notice_message",
    "state_message",
]

GOING_AWAY = 1001
"""Close code when the table is closed (idle, finished, or the server stops)."""
POLICY_VIOLATION = 1008
"""Close code for a connection refused (unknown table, bad token, too many pages) or dropped for
breaking the limits (too many messages, not reading)."""
INTERNAL_ERROR = 1011
"""Close code when the server itself failed (a bug: logged with its traceback)."""
MAX_REASON = 123
"""Bytes a websocket close reason may have (the protocol's limit)."""

STATE = object()
"""In an outbox: send the seat's current state here (built when it is sent)."""


def error_message(message: str) -> str:
    return json.dumps({"type": "error", "message": message})


def notice_message(message: str) -> str:
    """News for every page of a table (someone left, came back, is stood in for)."""
    return json.dumps({"type": "notice", "message": message})


def state_message(state_json: str) -> str:
    """The websocket message carrying a state (already JSON text)."""
    return '{"type": "state", "state": ' + state_json + "}"


def close_reason(why: str) -> str:
    """``why`` cut to what a close frame can carry (123 bytes of UTF-8)."""
    data = why.encode("utf-8")
    if len(data) <= MAX_REASON:
        return why
    return data[: MAX_REASON - 3].decode("utf-8", "ignore") + "..."


@dataclass(frozen=True)
class Closing:
    """The close a connection ends with: its code and reason (the reason is also sent first as an
    error message, which a page shows)."""

    code: int
    why: str


@dataclass(eq=False)
class Connection:
    """One open websocket of ``seat`` (``None``: a spectator's)."""

    seat: int | None
    outbox: deque[str | object] = field(default_factory=deque)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the outbox has something (or the connection is closing)."""
    done: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the socket is served no more (closed, or its page left)."""
    closing: Closing | None = None
    frames: TokenBucket = field(
        default_factory=lambda: TokenBucket(FRAMES_PER_SECOND, FRAMES_BURST)
    )
    sent_version: int = -1
    """The table's version of the last state sent (a state is not sent twice unless asked)."""
    _state_pending: bool = False
    _forced: bool = False

    def want_state(self, *, again: bool = False) -> bool:
        """Have the current state sent (once, however often this is asked before it is sent; a
        state already sent is sent again only if the page asked, ``again``); ``False`` if the
        outbox is full (the page stopped reading)."""
        if self.closing is not None:
            return True
        self._forced = self._forced or again
        if self._state_pending:
            return True
        if len(self.outbox) >= MAX_QUEUED:
            return False
        self.outbox.append(STATE)
        self._state_pending = True
        self.ready.set()
        return True

    def put(self, text: str) -> bool:
        """Queue a message; ``False`` if the outbox is full (the page stopped reading)."""
        if self.closing is not None:
            return True
        if len(self.outbox) >= MAX_QUEUED:
            return False
        self.outbox.append(text)
        self.ready.set()
        return True

    def take_again(self) -> bool:
        """Whether the page asked for the state even if it has it (and forget the asking)."""
        again, self._forced = self._forced, False
        return again

    def next(self) -> str | object | None:
        """The next thing to send (``None``: nothing now); taking :data:`STATE` lets the next
        change ask for a state again, so no change is ever missed."""
        if not self.outbox:
            return None
        item = self.outbox.popleft()
        if item is STATE:
            self._state_pending = False
        return item

    def close(self, code: int, why: str) -> None:
        """Drop what is waiting, send ``why`` as an error message, then close with ``code``."""
        if self.closing is not None:
            return
        self.outbox.clear()
        self._state_pending = False
        self.outbox.append(error_message(why))
        self.closing = Closing(code, why)
        self.ready.set()
