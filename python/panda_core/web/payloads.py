"""What a client may send, as pydantic models and FastAPI parameters: the JSON bodies of the
control requests, the seat and token of a query, a replay frame's number and the websocket's
messages. The models check shape and types only (strict: ``true`` is no integer, ``"2"`` no
number; an unknown field is refused); what a game accepts (the game, players, bots, seat, rules,
a move) is checked by the engine and the registry, after them (:meth:`NewTable.check`, the
table model). How a body is read before it is validated: :mod:`panda_core.web.bodies`; how a
refusal is worded: :mod:`panda_core.web.refusals`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictInt, Tag, ValidationError

from panda_core._core import PandaCoreError, check_bot, check_players
from panda_core._registry import spec
from panda_core.table.seats import SeatSpec
from panda_core.web.bot_tokens import BotTokenError, check_bot_name
from panda_core.web.catalog import rule_defaults
from panda_core.web.errors import Malformed, Unprocessable
from panda_core.web.refusals import cut, refusal

__all__ = [
    "BOT_SEAT",
    "MAX_WS_MESSAGE",
    "ClientMessage",
    "FrameNumber",
    "FrameSeat",
    "Move",
    "MoveRequest",
    "NewChallenge",
    "NewTable",
    "Seat",
    "SeatToken",
    "Token",
    "client_move",
]

BOT_SEAT = "bot:"
"""A table seat ``bot:NAME``: the connected bot ``NAME`` plays it (docs/bot_server.md)."""
MAX_WS_MESSAGE = 16 * 1024
"""Largest websocket message a client may send (a move is a few dozen bytes)."""
MAX_NOTATION = 200
"""Longest move notation accepted (the engine quotes at most 200 characters of a move anyway)."""

SEAT_TEXT = r"^[0-9]{1,4}$"
"""A seat number as a query writes it: digits only (no sign, no space)."""
TOKEN_TEXT = r"^[A-Za-z0-9_-]{1,100}$"
"""A seat token: the URL-safe text the server hands out (``secrets.token_urlsafe``)."""

Move = int | str
"""A move as a client names it: a legal-move index or a notation."""


def _move_kind(value: object) -> str | None:
    # Tells the two kinds of move apart before either is validated, so that a value of neither
    # kind is one error saying both are allowed, not one error per kind.
    if isinstance(value, str):
        return "notation"
    if isinstance(value, int) and not isinstance(value, bool):
        return "index"
    return None


MoveInput = Annotated[
    Annotated[StrictInt, Tag("index")]
    | Annotated[str, Field(max_length=MAX_NOTATION), Tag("notation")],
    Discriminator(
        _move_kind,
        custom_error_type="move_type",
        custom_error_message="a move is the index of a legal move (an integer) or its notation "
        "(a string)",
    ),
]
"""A move in a request (a notation of at most :data:`MAX_NOTATION` characters)."""
TokenInput = Annotated[str, Field(pattern=TOKEN_TEXT)]


class _Request(BaseModel):
    """A request body or message: strict types, no unknown field, read-only."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


# ---- bodies ------------------------------------------------------------------------------------


class SeatToken(_Request):
    """``{"seat", "token"}`` (the body of ``POST /api/tables/{id}/replay``)."""

    seat: int
    token: TokenInput


class MoveRequest(SeatToken):
    """``{"seat", "token", "move"}`` (the body of ``POST /api/tables/{id}/moves``)."""

    move: MoveInput


class NewTable(_Request):
    """The body of ``POST /api/tables``."""

    game: str
    players: int
    seat: int = 0
    bots: list[str]
    """One bot per other seat, in seat order: a built-in bot, or ``bot:NAME`` for the connected
    bot ``NAME``."""
    seed: int | None = None
    rules: dict[str, Any] | None = None
    """Rule options of the game (``GET /api/games`` lists them); ``None``: the defaults."""

    def check(self) -> None:
        """The engine's and the registry's checks of the values (422 with their message)."""
        remote = [bot for bot in self.bots if bot.startswith(BOT_SEAT)]
        for bot in remote:
            try:
                check_bot_name(bot[len(BOT_SEAT) :])
            except BotTokenError as err:
                raise Unprocessable(f"a seat {BOT_SEAT}NAME names a connected bot: {err}") from None
        if len(set(remote)) != len(remote):
            raise Unprocessable(
                "a connected bot takes one seat of a table (in two it would see both hands)"
            )
        for bot in self.bots:
            if bot.startswith("neural:"):
                raise Unprocessable(
                    "a page may seat 'neural' (the policy shipped with the engine), never "
                    "'neural:PATH': the server opens no path a request names"
                )
        try:
            spec(self.game)
            check_players(self.players)
            for bot in self.bots:
                if not bot.startswith(BOT_SEAT):
                    check_bot(bot)
        except PandaCoreError as err:
            raise Unprocessable(str(err)) from None
        if not 0 <= self.seat < self.players:
            raise Unprocessable(f"seat must be in 0..={self.players - 1}, got {self.seat}")
        if len(self.bots) != self.players - 1:
            raise Unprocessable(
                f"{self.players} players need {self.players - 1} bots (one per other seat, in "
                f"seat order), got {len(self.bots)}"
            )
        allowed = rule_defaults(self.game)
        unknown = sorted(set(self.rules or {}) - set(allowed))
        if unknown:
            raise Unprocessable(
                f"unknown rule option(s) {[cut(u) for u in unknown]} for {self.game}; "
                f"the options are {sorted(allowed)}"
            )

    def seats(self) -> list[object]:
        """The table's seat specs: the person at :attr:`seat`, the bots around in seat order. A
        connected bot's seat (``bot:NAME``) is answered by the server through
        ``Table.play``, so the table holds it as a seat that moves from outside, named
        ``bot:NAME``."""
        others = iter(self.bots)
        out: list[object] = []
        for s in range(self.players):
            spec = "human" if s == self.seat else next(others)
            out.append(SeatSpec("human", spec) if spec.startswith(BOT_SEAT) else spec)
        return out

    def remote(self) -> dict[int, str]:
        """The seats of connected bots: seat → bot name."""
        others = iter(self.bots)
        out: dict[int, str] = {}
        for s in range(self.players):
            if s != self.seat:
                bot = next(others)
                if bot.startswith(BOT_SEAT):
                    out[s] = bot[len(BOT_SEAT) :]
        return out


class NewChallenge(_Request):
    """The body of ``POST /bots/challenge``: games the server schedules between connected bots
    (``bot:NAME``) and built-in bots, as an arena does (duplicate deals, every entrant in every
    seat of a deal's line-up)."""

    game: str
    players: int
    entrants: list[str]
    deals: int = 1
    seed: int = 0
    permutations: Literal["rotations", "all"] = "rotations"
    rules: dict[str, Any] | None = None


# ---- query and path parameters -----------------------------------------------------------------


def _seat(seat: Annotated[str, Query(pattern=SEAT_TEXT)]) -> int:
    return int(seat)


def _frame_seat(
    seat: Annotated[str | None, Query(pattern=f"{SEAT_TEXT}|^all$")] = None,
) -> int | None:
    return None if seat in (None, "all") else int(seat)


def _frame(frame: Annotated[str, Path(pattern=r"^[0-9]{1,9}$")]) -> int:
    return int(frame)


Seat = Annotated[int, Depends(_seat)]
"""``?seat=S``: a seat number."""
Token = Annotated[str, Query(pattern=TOKEN_TEXT)]
"""``?token=T``: the seat's token, handed out when the table was created."""
FrameSeat = Annotated[int | None, Depends(_frame_seat)]
"""``?seat=S`` or ``?seat=all`` or none (``None``: full information) for a replay frame."""
FrameNumber = Annotated[int, Depends(_frame)]
"""A replay frame's number in the path."""


# ---- websocket messages ------------------------------------------------------------------------


class ClientMessage(_Request):
    """A websocket message: ``{"type": "move", "move": ...}`` or ``{"type": "state"}``."""

    type: Literal["move", "state"]
    move: MoveInput | None = None


def client_move(text: str) -> Move | None:
    """A websocket message: ``{"type": "move", "move": ...}`` → the move, ``{"type": "state"}``
    → ``None`` (send the state again). Refused with :class:`Malformed` (or
    :class:`Unprocessable`: a notation too long) saying what is allowed."""
    if len(text) > MAX_WS_MESSAGE:
        raise Malformed(f"a message has at most {MAX_WS_MESSAGE} characters, got {len(text)}")
    try:
        message = ClientMessage.model_validate_json(text)
    except ValidationError as err:
        raise refusal(
            err.errors(), "the message", fields=list(ClientMessage.model_fields)
        ) from None
    if message.type == "state":
        return None
    if message.move is None:
        raise Malformed("a move message needs move (a legal-move index or a notation)")
    return message.move
