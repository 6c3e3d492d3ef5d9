"""The errors the web server answers with: each carries its HTTP status and a message for the
page (every error response is JSON ``{"error": message}``; on a websocket the same message is
sent as ``{"type": "error", "message": ...}``)."""

from __future__ import annotations

import math

__all__ = [
    "Conflict",
    "Forbidden",
    "Malformed",
    "Misdirected",
    "NotFound",
    "ServerBusy",
    "ServerFull",
    "TooLarge",
    "TooMany",
    "Unprocessable",
    "UnsupportedMediaType",
    "WebError",
]


class WebError(Exception):
    """A request the server refuses; ``status`` is the HTTP status of the answer;
    ``retry_after`` (seconds), when set, is sent as the ``Retry-After`` header."""

    status = 400

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after

    def headers(self) -> dict[str, str]:
        """The headers of the answer (``Retry-After`` in whole seconds, at least 1)."""
        if self.retry_after is None:
            return {}
        return {"Retry-After": str(max(1, math.ceil(self.retry_after)))}


class Malformed(WebError):
    """Not JSON, a missing field or a value of the wrong type."""

    status = 400


class Forbidden(WebError):
    """A seat and token that do not belong together, or a request from another site's page
    (its ``Origin`` is not the server's own)."""

    status = 403


class NotFound(WebError):
    """No such table, replay or frame (a table closed for idleness is gone too)."""

    status = 404


class Misdirected(WebError):
    """A ``Host`` header that is not a name this server answers to (DNS rebinding)."""

    status = 421


class Conflict(WebError):
    """Not now: not this seat's turn, or the game is (not yet) over."""

    status = 409


class TooLarge(WebError):
    """A body over the server's limit."""

    status = 413


class UnsupportedMediaType(WebError):
    """A body that is not ``application/json`` (a form or plain text, which any web page can
    send without asking the server first)."""

    status = 415


class TooMany(WebError):
    """More requests (tables, replays, websocket messages) than the rate allows."""

    status = 429


class Unprocessable(WebError):
    """Well-formed but refused by the engine: an illegal move, invalid rules or record."""

    status = 422


class ServerFull(WebError):
    """Too many tables or replays open at once."""

    status = 503


class ServerBusy(WebError):
    """Every replay build slot is taken (and the wait for one is full or timed out)."""

    status = 503
