"""What a client may send, as pydantic models and FastAPI parameters: the JSON bodies of the
control requests, the seat and token of a query, a replay frame's number and the websocket's
messages. The models check shape and types only (strict: ``true`` is no integer, ``"2"`` no
number; an unknown field is refused); what a game accepts (the game, players, bots, seat, rules,
a move) is checked by the engine and the registry, after them (:meth:`NewTable.check`, the
table model). How a body is read before it is validated: :mod:`panda_core.web.bodies`; how a
refusal is worded: :mod:`panda_core.web.refusals`.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from fastapi import Depends, Path, Query
from pydantic import BaseModel, ConfigDict, Discriminator, Field, StrictInt, Tag, ValidationError

from panda_core._builtin_bot import names_builtin, names_policy_file
from panda_core._core import PandaCoreError, check_bot, check_players
from panda_core._registry import spec
from panda_core.table.seats import SeatSpec
from panda_core.web.bot_tokens import BotTokenError, check_bot_name
from panda_core.web.catalog import rule_defaults
from panda_core.web.errors import Malformed, Unprocessable
from panda_core.web.limits import MAX_HOLD
from panda_core.web.refusals import cut, refusal

__all__ = [
    "BOT_SEAT",
    "MAX_HOLD",
    "MAX_NAME",
    "MAX_WS_MESSAGE",
    "BotChoice",
    "ClientMessage",
    "FrameNumber",
    "FrameSeat",
    "MaybeSeat",
    "Move",
    "MoveRequest",
    "NewChallenge",
    "NewTable",
    "OptionalToken",
    "PersonChoice",
    "Seat",
    "SeatToken",
    "Spectator",
    "Token",
    "Viewer",
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

MAX_NAME = 40
"""Longest name of a person at a table (printable characters)."""
DEFAULT_STAND_IN = "heuristic"
"""The stand-in of a table made with the per-seat form when none is named."""

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


class Viewer(_Request):
    """``{"seat", "token"}`` or ``{"spectator"}`` (the body of ``POST
    /api/tables/{id}/replay``)."""

    seat: int | None = None
    token: TokenInput | None = None
    spectator: TokenInput | None = None


class MoveRequest(SeatToken):
    """``{"seat", "token", "move"}`` (the body of ``POST /api/tables/{id}/moves``)."""

    move: MoveInput


class PersonChoice(_Request):
    """A seat for a person: ``{"kind": "person", "name": "Ada"}`` (name optional)."""

    kind: Literal["person"]
    name: str | None = Field(default=None, max_length=200)


class BotChoice(_Request):
    """A seat for a bot: ``{"kind": "bot", "bot": "heuristic"}`` (or ``bot:NAME``)."""

    kind: Literal["bot"]
    bot: str = Field(max_length=200)


SeatChoice = Annotated[PersonChoice | BotChoice, Field(discriminator="kind")]


def check_name(name: str | None, seat: int) -> str:
    """A person's name as a table shows it (``player S`` when none is given); 422 for a name
    that is blank, too long, not printable or looks like a bot's."""
    if name is None:
        return f"player {seat}"
    clean = name.strip()
    if not clean or len(clean) > MAX_NAME or not clean.isprintable():
        raise Unprocessable(
            f"seat {seat}: a person's name is 1 to {MAX_NAME} printable characters, got "
            f"{cut(repr(name))}"
        )
    if clean.lower().startswith(BOT_SEAT) or clean.lower() == "you":
        raise Unprocessable(
            f"seat {seat}: a person may not be named {cut(repr(clean))} (it reads as a bot or as "
            "the viewer)"
        )
    return clean


def _check_bots(bots: list[str]) -> None:
    remote = [bot for bot in bots if bot.startswith(BOT_SEAT)]
    for bot in remote:
        try:
            check_bot_name(bot[len(BOT_SEAT) :])
        except BotTokenError as err:
            raise Unprocessable(f"a seat {BOT_SEAT}NAME names a connected bot: {err}") from None
    if len(set(remote)) != len(remote):
        raise Unprocessable(
            "a connected bot takes one seat of a table (in two it would see both hands)"
        )
    for bot in bots:
        if names_policy_file(bot):
            raise Unprocessable(
                "a page may seat 'neural' (the policy shipped with the engine), never "
                "'neural:PATH' or 'ismcts+neural:N:PATH': the server opens no path a request "
                "names"
            )
    try:
        for bot in bots:
            if not bot.startswith(BOT_SEAT):
                check_bot(bot)
    except PandaCoreError as err:
        raise Unprocessable(str(err)) from None


class NewTable(_Request):
    """The body of ``POST /api/tables``: the per-seat form (``seats``: one choice per seat,
    ``stand_in``, ``hold``) or the one-person form (``seat``, ``bots``)."""

    game: str
    players: int | None = None
    """The number of seats (the per-seat form: optional, ``len(seats)``)."""
    seat: int = 0
    bots: list[str] | None = None
    """One bot per other seat, in seat order: a built-in bot, or ``bot:NAME`` for the connected
    bot ``NAME`` (the one-person form)."""
    seats: list[SeatChoice] | None = Field(default=None, max_length=16)
    """One choice per seat, in seat order (the per-seat form)."""
    stand_in: str | None = Field(default=None, max_length=200)
    """The built-in bot that plays an absent person's seat after ``hold`` seconds (``None``: the
    seat waits for its person). Default: ``heuristic`` in the per-seat form, none in the
    one-person form."""
    hold: float | None = None
    """Seconds an absent person's seat is held before its stand-in plays (default: the
    server's ``--seat-hold``), 0 to :data:`MAX_HOLD`."""
    seed: int | None = None
    rules: dict[str, Any] | None = None
    """Rule options of the game (``GET /api/games`` lists them); ``None``: the defaults."""

    @property
    def per_seat(self) -> bool:
        return self.seats is not None

    def check(self) -> None:
        """The engine's and the registry's checks of the values (422 with their message)."""
        if self.per_seat:
            if self.bots is not None or "seat" in self.model_fields_set:
                raise Malformed(
                    "give either seats (one choice per seat) or seat and bots, not both"
                )
        elif self.bots is None or self.players is None:
            raise Malformed(
                "give players (an integer), seat and bots (one bot per other seat), or seats "
                "(one {'kind': 'person', 'name'} or {'kind': 'bot', 'bot'} per seat)"
            )
        try:
            spec(self.game)
        except PandaCoreError as err:
            raise Unprocessable(str(err)) from None
        players = self.player_count()
        try:
            check_players(players)
        except PandaCoreError as err:
            raise Unprocessable(str(err)) from None
        if self.per_seat:
            assert self.seats is not None
            if self.players is not None and self.players != len(self.seats):
                raise Unprocessable(
                    f"players is {self.players} but seats lists {len(self.seats)} seats"
                )
            if not self.people():
                raise Unprocessable("a table needs at least one person's seat")
            names = self.names()
            people = [names[s] for s in self.people()]
            twice = sorted({n for n in people if people.count(n) > 1})
            if twice:
                raise Unprocessable(
                    f"two people share the name {cut(twice[0])!r}: give each their own name"
                )
        else:
            if not 0 <= self.seat < players:
                raise Unprocessable(f"seat must be in 0..={players - 1}, got {self.seat}")
            assert self.bots is not None
            if len(self.bots) != players - 1:
                raise Unprocessable(
                    f"{players} players need {players - 1} bots (one per other seat, in "
                    f"seat order), got {len(self.bots)}"
                )
        _check_bots(self.bot_list())
        stand_in = self.stand_in_bot()
        if stand_in is not None:
            if (
                stand_in.startswith(BOT_SEAT)
                or names_policy_file(stand_in)
                or not names_builtin(stand_in)
            ):
                raise Unprocessable(
                    f"stand_in is a built-in bot (as 'heuristic'; never a path, a connected bot "
                    f"or a program), got {cut(repr(stand_in))}"
                )
            _check_bots([stand_in])
        if self.hold is not None and not (math.isfinite(self.hold) and 0 <= self.hold <= MAX_HOLD):
            raise Unprocessable(f"hold is 0 to {MAX_HOLD:g} seconds, got {self.hold}")
        allowed = rule_defaults(self.game)
        unknown = sorted(set(self.rules or {}) - set(allowed))
        if unknown:
            raise Unprocessable(
                f"unknown rule option(s) {[cut(u) for u in unknown]} for {self.game}; "
                f"the options are {sorted(allowed)}"
            )

    def player_count(self) -> int:
        if self.seats is not None:
            return len(self.seats)
        if self.players is None:
            raise Malformed("players (an integer) is needed with seat and bots")
        return self.players

    def stand_in_bot(self) -> str | None:
        """The stand-in bot (see :attr:`stand_in`)."""
        if "stand_in" in self.model_fields_set:
            return self.stand_in
        return DEFAULT_STAND_IN if self.per_seat else None

    def _choices(self) -> list[str | None]:
        """Each seat's bot, ``None`` for a person."""
        if self.seats is not None:
            return [c.bot if isinstance(c, BotChoice) else None for c in self.seats]
        assert self.bots is not None
        others = iter(self.bots)
        return [None if s == self.seat else next(others) for s in range(self.player_count())]

    def bot_list(self) -> list[str]:
        return [b for b in self._choices() if b is not None]

    def people(self) -> list[int]:
        """The persons' seats, in order."""
        return [s for s, b in enumerate(self._choices()) if b is None]

    def names(self) -> list[str]:
        """Each seat's name (a person's name; a bot's own)."""
        out: list[str] = []
        for s, bot in enumerate(self._choices()):
            if bot is not None:
                out.append(bot)
            elif self.seats is not None:
                choice = self.seats[s]
                assert isinstance(choice, PersonChoice)
                out.append(check_name(choice.name, s))
            else:
                out.append("you")
        return out

    def seats_specs(self) -> list[object]:
        """The table's seat specs: the people (``SeatSpec("human", name)``) and the bots in seat
        order. A connected bot's seat (``bot:NAME``) is answered by the server through
        ``Table.play``, so the table holds it as a seat that moves from outside, named
        ``bot:NAME``."""
        out: list[object] = []
        names = self.names()
        for s, bot in enumerate(self._choices()):
            if bot is None:
                out.append(SeatSpec("human", names[s]) if self.per_seat else "human")
            elif bot.startswith(BOT_SEAT):
                out.append(SeatSpec("human", bot))
            else:
                out.append(bot)
        return out

    def remote(self) -> dict[int, str]:
        """The seats of connected bots: seat → bot name."""
        return {
            s: bot[len(BOT_SEAT) :]
            for s, bot in enumerate(self._choices())
            if bot is not None and bot.startswith(BOT_SEAT)
        }


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


def _maybe_seat(seat: Annotated[str | None, Query(pattern=SEAT_TEXT)] = None) -> int | None:
    return None if seat is None else int(seat)


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
OptionalToken = Annotated[str | None, Query(pattern=TOKEN_TEXT)]
Spectator = Annotated[str | None, Query(pattern=TOKEN_TEXT)]
"""``?spectator=TOKEN``: the table's spectator token (instead of a seat and its token)."""
MaybeSeat = Annotated[int | None, Depends(_maybe_seat)]
"""``?seat=S`` when the query may be a spectator's instead (``None``: not given)."""
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
