"""Reading what a client sends: bounded bodies, JSON objects, and the fields of each request,
checked one by one so that anything a client can send gets a 4xx with a message, never a 500.

Type and shape mistakes are :class:`Malformed` (400); values the engine refuses (an unknown game,
a player count, a bot, a seat, rules) are :class:`Unprocessable` (422) with the engine's message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.requests import HTTPConnection, Request

from panda_core._core import PandaCoreError, check_bot, check_players
from panda_core._registry import spec
from panda_core.web.catalog import rule_defaults
from panda_core.web.errors import Malformed, TooLarge, Unprocessable, UnsupportedMediaType

__all__ = [
    "MAX_JSON",
    "MAX_WS_MESSAGE",
    "Move",
    "NewTable",
    "SeatToken",
    "client_move",
    "move_request",
    "new_table",
    "query_seat",
    "query_token",
    "read_body",
    "read_json",
    "read_record",
    "seat_token",
]

MAX_JSON = 64 * 1024
"""Largest JSON body of a control request (create a table, a move): far above any real one."""
MAX_WS_MESSAGE = 16 * 1024
"""Largest websocket message a client may send (a move is a few dozen bytes)."""
MAX_NOTATION = 200
"""Longest move notation accepted (the engine quotes at most 200 characters of a move anyway)."""

_SEAT = re.compile(r"[0-9]{1,4}")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,100}")

Move = int | str
"""A move as a client names it: a legal-move index or a notation."""


def _cut(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``limit`` bytes (the declared
    ``Content-Length`` is checked first; the stream is counted while it is read, so an
    unbounded body is never buffered)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the body is {int(declared)} bytes; the limit is {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the body is over the limit of {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_object(data: bytes | str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as err:
        raise Malformed(f"{what} is not valid JSON: {err}") from None
    if not isinstance(value, dict):
        raise Malformed(f"{what} must be a JSON object, got {type(value).__name__}")
    return value


def require_json(request: Request) -> None:
    """Refuse (415) a body that is not ``Content-Type: application/json``.

    This is half of the server's CSRF defence: a page of another site can send a form or plain
    text anywhere without asking, but a JSON body only after a CORS preflight, which this server
    never grants. (The other half is the ``Origin`` check of :mod:`panda_core.web.guard`.)
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise UnsupportedMediaType(
            f"send the body as JSON with Content-Type: application/json (got {_cut(kind or 'none')}"
            "); forms, multipart and plain text are refused"
        )


async def read_json(request: Request) -> dict[str, Any]:
    """The JSON object of a control request (``Content-Type: application/json``, at most
    :data:`MAX_JSON` bytes)."""
    require_json(request)
    return _parse_object(await read_body(request, MAX_JSON), "the body")


async def read_record(request: Request, limit: int) -> str:
    """The game record of an upload: the body itself, ``Content-Type: application/json``, at
    most ``limit`` bytes (413, refused while it is read), UTF-8 text (422 otherwise). Its
    content is checked by the table model's ``Replay``."""
    require_json(request)
    data = await read_body(request, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unprocessable("the record is not UTF-8 text (a game record is JSON)") from None


def _only(body: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise Malformed(f"unknown field(s) {unknown}; the fields are {list(allowed)}")


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(f"{name} must be an integer, got {_cut(value)}")
    return value


def _move(value: object) -> Move:
    if isinstance(value, str):
        if len(value) > MAX_NOTATION:
            raise Unprocessable(
                f"a move notation has at most {MAX_NOTATION} characters, got {len(value)}"
            )
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise Malformed(
            "move must be the index of a legal move (an integer) or its notation (a string), "
            f"got {_cut(value)}"
        )
    return value


# ---- query parameters --------------------------------------------------------------------------


def query_seat(request: HTTPConnection, *, allow_all: bool = False) -> int | None:
    """``?seat=S`` (or ``all`` where a full-information view is allowed: then ``None``)."""
    text = request.query_params.get("seat")
    if text is None:
        if allow_all:
            return None
        raise Malformed("the query needs seat=S (a seat number)")
    if allow_all and text == "all":
        return None
    if not _SEAT.fullmatch(text):
        allowed = "a seat number or all" if allow_all else "a seat number"
        raise Malformed(f"seat must be {allowed}, got {_cut(text)}")
    return int(text)


def query_token(request: HTTPConnection) -> str:
    """``?token=T``: the seat's token, handed out when the table was created."""
    return _token(request.query_params.get("token"))


def _token(value: object) -> str:
    if value is None:
        raise Malformed("the request needs the seat's token")
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        raise Malformed(f"token must be the token given with the table, got {_cut(value)}")
    return value


# ---- bodies ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatToken:
    seat: int
    token: str


def _seat_token(body: Mapping[str, Any]) -> SeatToken:
    if "seat" not in body:
        raise Malformed("the body needs seat (a seat number)")
    return SeatToken(_int(body["seat"], "seat"), _token(body.get("token")))


def seat_token(body: Mapping[str, Any]) -> SeatToken:
    """``{"seat", "token"}`` (the body of ``POST /api/tables/{id}/replay``)."""
    _only(body, ("seat", "token"))
    return _seat_token(body)


def move_request(body: Mapping[str, Any]) -> tuple[SeatToken, Move]:
    """``{"seat", "token", "move"}`` (the body of ``POST /api/tables/{id}/moves``)."""
    _only(body, ("seat", "token", "move"))
    who = _seat_token(body)
    if "move" not in body:
        raise Malformed("the body needs move (a legal-move index or a notation)")
    return who, _move(body["move"])


def client_move(text: str) -> Move | None:
    """A websocket message: ``{"type": "move", "move": ...}`` → the move, ``{"type": "state"}``
    → ``None`` (send the state again)."""
    if len(text) > MAX_WS_MESSAGE:
        raise Malformed(f"a message has at most {MAX_WS_MESSAGE} characters, got {len(text)}")
    message = _parse_object(text, "the message")
    kind = message.get("type")
    if kind == "state":
        return None
    if kind != "move":
        raise Malformed(
            f'unknown message type {_cut(kind)}; send {{"type": "move", "move": index or notation}}'
        )
    _only(message, ("type", "move"))
    if "move" not in message:
        raise Malformed("a move message needs move (a legal-move index or a notation)")
    return _move(message["move"])


@dataclass(frozen=True)
class NewTable:
    """A checked ``POST /api/tables`` body."""

    game: str
    players: int
    seat: int
    bots: tuple[str, ...]
    seed: int | None
    rules: dict[str, Any]

    def seats(self) -> list[str]:
        """The table's seat specs: the person at :attr:`seat`, the bots around in seat order."""
        others = iter(self.bots)
        return ["human" if s == self.seat else next(others) for s in range(self.players)]


_NEW_TABLE = ("game", "players", "seat", "bots", "seed", "rules")


def new_table(body: Mapping[str, Any]) -> NewTable:
    """Check every field of ``POST /api/tables``: types here (400), values with the engine (422)."""
    _only(body, _NEW_TABLE)
    for name in ("game", "players", "bots"):
        if name not in body:
            raise Malformed(f"the body needs {name}; the fields are {list(_NEW_TABLE)}")
    game = body["game"]
    if not isinstance(game, str):
        raise Malformed(f"game must be a string, got {_cut(game)}")
    players = _int(body["players"], "players")
    seat = _int(body.get("seat", 0), "seat")
    bots = body["bots"]
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        raise Malformed(f"bots must be a list of bot names, got {_cut(bots)}")
    seed = body.get("seed")
    if seed is not None:
        seed = _int(seed, "seed")
    rules = body.get("rules")
    if rules is None:
        rules = {}
    if not isinstance(rules, dict):
        raise Malformed(f"rules must be an object of rule options, got {_cut(rules)}")
    for b in bots:
        if b.startswith("neural:"):
            raise Unprocessable(
                "a page may seat 'neural' (the policy shipped with the engine), never "
                "'neural:PATH': the server opens no path a request names"
            )
    try:
        spec(game)
        check_players(players)
        names = tuple(check_bot(b) and b for b in bots)
    except PandaCoreError as err:
        raise Unprocessable(str(err)) from None
    if not 0 <= seat < players:
        raise Unprocessable(f"seat must be in 0..={players - 1}, got {seat}")
    if len(names) != players - 1:
        raise Unprocessable(
            f"{players} players need {players - 1} bots (one per other seat, in seat order), "
            f"got {len(names)}"
        )
    allowed = rule_defaults(game)
    unknown = sorted(set(rules) - set(allowed))
    if unknown:
        raise Unprocessable(
            f"unknown rule option(s) {[_cut(u) for u in unknown]} for {game}; "
            f"the options are {sorted(allowed)}"
        )
    return NewTable(game, players, seat, names, seed, dict(rules))
