"""The errors the web server answers with: each carries its HTTP status and a message for the
page (every error response is JSON ``{"error": message}``; on a websocket the same message is
sent as ``{"type": "error", "message": ...}``)."""

from __future__ import annotations

__all__ = [
    "Conflict",
    "Forbidden",
    "Malformed",
    "NotFound",
    "ServerFull",
    "TooLarge",
    "Unprocessable",
    "WebError",
]


class WebError(Exception):
    """A request the server refuses; ``status`` is the HTTP status of the answer."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Malformed(WebError):
    """Not JSON, a missing field or a value of the wrong type."""

    status = 400


class Forbidden(WebError):
    """A seat and token that do not belong together."""

    status = 403


class NotFound(WebError):
    """No such table, replay or frame (a table closed for idleness is gone too)."""

    status = 404


class Conflict(WebError):
    """Not now: not this seat's turn, or the game is (not yet) over."""

    status = 409


class TooLarge(WebError):
    """A body over the server's limit."""

    status = 413


class Unprocessable(WebError):
    """Well-formed but refused by the engine: an illegal move, invalid rules or record."""

    status = 422


class ServerFull(WebError):
    """Too many tables or replays open at once."""

    status = 503
