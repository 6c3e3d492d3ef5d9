"""The bot protocol's messages (version 1, docs/bot_protocol.md): built from a seat by the
engine, read strictly from a bot.

Every transport (a subprocess's stdin/stdout, a websocket of ``panda-core serve``) speaks these
messages, one JSON object per line or frame. The engine's side is built here from the seat object
only (:mod:`panda_core.seat`): nothing in a message is more than the seat may know. What a bot
sends is read by :func:`read_bot_message`, which bounds the size, refuses anything that is not one
of the bot's message types with the right fields, and returns plain values only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal, TypedDict

from panda_core._args import cut
from panda_core._strict_json import strict_loads

__all__ = [
    "ASKS",
    "MAX_ANSWER_BYTES",
    "MAX_ASKS",
    "MAX_LINE_BYTES",
    "MAX_NOTATION",
    "PROTOCOL",
    "Ask",
    "BotHello",
    "BotMessage",
    "MoveAnswer",
    "ProtocolError",
    "bot_seed",
    "decision_message",
    "end_message",
    "hello_message",
    "legal_list",
    "read_bot_message",
    "start_message",
]

PROTOCOL = 1
"""The protocol version this engine speaks."""
MAX_LINE_BYTES = 1 << 20
"""The longest line the engine sends (a decision of the longest game is well under this)."""
MAX_ANSWER_BYTES = 64 << 10
"""The longest line taken from a bot."""
MAX_ASKS = 64
"""Asks a bot may send in one decision before its move."""
MAX_NOTATION = 200
"""The longest notation taken from a bot (the longest climbing move is well under 100)."""
ASKS = ("observation", "determinize", "bot_move")
"""What a bot may ask the engine during a decision (answered from its seat only)."""

_BOT_SEED_KEY = b"panda-core bot seed v1"
_ID_RANGE = (0, 1 << 32)
_SEED_RANGE = (0, 1 << 64)
_BOT_NAME_CHARS = 100
_GAME_ID_CHARS = 100
_REASON_CHARS = 1000
_RESIGN_KINDS = ("exception", "illegal")


class ProtocolError(Exception):
    """A bot's message is not one the protocol allows (the message says what was wrong)."""


def bot_seed(deal_seed: int, seat: int) -> int:
    """The seed a bot is given for its own randomness: derived one-way (keyed BLAKE2b) from the
    deal's seed and the seat, so a bot cannot work the deal out from it (a SplitMix64 output can
    be inverted). The same game gives the same bot seed in every transport."""
    data = f"{deal_seed}:{seat}".encode()
    digest = hashlib.blake2b(data, key=_BOT_SEED_KEY, digest_size=8).digest()
    return int.from_bytes(digest, "little")


def hello_message(engine: str) -> dict[str, Any]:
    """The engine's first message on a connection."""
    return {"type": "hello", "protocol": PROTOCOL, "engine": engine}


def start_message(
    *,
    game_id: str,
    game: str,
    rules: dict[str, Any],
    players: int,
    seat: int,
    seed: int,
    move_time_ms: int | None,
) -> dict[str, Any]:
    """A game starts: what the bot plays (``seed`` is :func:`bot_seed`, never the deal's)."""
    return {
        "type": "start",
        "game_id": game_id,
        "game": game,
        "rules": rules,
        "players": players,
        "seat": seat,
        "seed": seed,
        "move_time_ms": move_time_ms,
    }


def legal_list(seat: Any) -> list[dict[str, Any]]:
    """The legal moves of ``seat`` (the seat to move) as ``{"id", "notation"}``, in the
    engine's order: ``seat.legal_list()``. ``id`` is ``None`` for a move no action id reaches;
    in the climbing games several moves may share an id (an abstract action), so a bot that
    means one move answers its notation."""
    return list(seat.legal_list())


def decision_message(
    *,
    game_id: str,
    decision: int,
    seat: Any,
    events: Sequence[Any],
    time_left_ms: int | None,
) -> dict[str, Any]:
    """The seat is to move: its view, the ``events`` it saw since its last decision (all of them
    at the first), its legal moves and the time it has."""
    player = seat.player
    return {
        "type": "decision",
        "game_id": game_id,
        "decision": decision,
        "seat": player,
        "to_move": seat.current_player,
        "scores": list(seat.scores),
        "view": seat.view(player),
        "events": list(events),
        "legal": legal_list(seat),
        "time_left_ms": time_left_ms,
    }


def end_message(
    *,
    game_id: str,
    seat: Any,
    events: Sequence[Any],
    forfeit: dict[str, Any] | None,
) -> dict[str, Any]:
    """The game is over (or ended by a forfeit): the result and the events the seat had not seen
    yet."""
    return {
        "type": "end",
        "game_id": game_id,
        "winner": seat.winner,
        "scores": list(seat.scores),
        "events": list(events),
        "result": seat.result(),
        "forfeit": forfeit,
    }


class BotHello(TypedDict):
    type: Literal["hello"]
    protocol: int
    name: str


class MoveAnswer(TypedDict, total=False):
    type: Literal["move"]
    game_id: str
    id: int
    notation: str


class Ask(TypedDict, total=False):
    type: Literal["ask"]
    game_id: str
    ask: str
    seed: int
    bot: str


class Pong(TypedDict):
    type: Literal["pong"]


class Resign(TypedDict):
    """The bot gives up this game (its own code failed): the engine records a forfeit of
    ``kind`` (``exception``: the bot raised; ``illegal``: its answer was no move) with
    ``reason``."""

    type: Literal["resign"]
    game_id: str
    kind: Literal["exception", "illegal"]
    reason: str


BotMessage = BotHello | MoveAnswer | Ask | Pong | Resign


def _field(message: dict[str, Any], key: str, kind: type, what: str) -> Any:
    value = message.get(key)
    if type(value) is not kind:
        raise ProtocolError(f"a {message['type']!r} message needs {key!r}: {what}")
    return value


def _int_in(message: dict[str, Any], key: str, bounds: tuple[int, int], what: str) -> int:
    value = _field(message, key, int, what)
    if not bounds[0] <= value < bounds[1]:
        raise ProtocolError(f"{key!r} is {cut(str(value))}: {what}")
    return int(value)


def _text(message: dict[str, Any], key: str, most: int, what: str) -> str:
    value = _field(message, key, str, what)
    if len(value) > most:
        raise ProtocolError(f"{key!r} has {len(value)} characters; at most {most}")
    return str(value)


def read_bot_message(line: bytes | str) -> BotMessage:
    """One message from a bot, checked: :class:`ProtocolError` saying what is wrong with a line
    that is too long, not JSON, not an object, of an unknown type or missing a field. The result
    holds only plain ``str`` and ``int`` values (nothing the bot's JSON could smuggle in)."""
    size = len(line.encode() if isinstance(line, str) else line)
    if size > MAX_ANSWER_BYTES:
        raise ProtocolError(f"a line of {size} bytes; a bot's line is at most {MAX_ANSWER_BYTES}")
    try:
        message = strict_loads(line)
    except ValueError as err:
        raise ProtocolError(f"not JSON: {err}") from None
    if type(message) is not dict:
        raise ProtocolError(f"a message is a JSON object, got {type(message).__name__}")
    kind = message.get("type")
    if kind == "hello":
        protocol = _field(message, "protocol", int, f"the protocol version ({PROTOCOL})")
        if protocol != PROTOCOL:
            raise ProtocolError(
                f"speaks protocol {cut(str(protocol))}; this engine speaks {PROTOCOL}"
            )
        name = message.get("name", "")
        if type(name) is not str or len(name) > _BOT_NAME_CHARS:
            raise ProtocolError(f"'name' is text of at most {_BOT_NAME_CHARS} characters")
        return BotHello(type="hello", protocol=PROTOCOL, name=name)
    if kind == "pong":
        return Pong(type="pong")
    if kind == "move":
        game_id = _text(message, "game_id", _GAME_ID_CHARS, "the game's id from its start")
        if "id" in message and "notation" in message:
            raise ProtocolError("a move gives 'id' or 'notation', not both")
        if "id" in message:
            action = _int_in(message, "id", _ID_RANGE, "a legal move's id")
            return MoveAnswer(type="move", game_id=game_id, id=action)
        notation = _text(message, "notation", MAX_NOTATION, "a legal move's notation")
        return MoveAnswer(type="move", game_id=game_id, notation=notation)
    if kind == "ask":
        game_id = _text(message, "game_id", _GAME_ID_CHARS, "the game's id from its start")
        ask = message.get("ask")
        if ask not in ASKS:
            raise ProtocolError(f"'ask' is one of {', '.join(ASKS)}; got {cut(repr(ask))}")
        out = Ask(type="ask", game_id=game_id, ask=str(ask))
        if ask in ("determinize", "bot_move"):
            out["seed"] = _int_in(message, "seed", _SEED_RANGE, "an integer in 0..2**64")
        if ask == "bot_move":
            out["bot"] = _text(message, "bot", _BOT_NAME_CHARS, "a built-in bot's name")
        return out
    if kind == "resign":
        game_id = _text(message, "game_id", _GAME_ID_CHARS, "the game's id from its start")
        reason = _text(message, "reason", _REASON_CHARS, "why the bot gives up, as text")
        resign_kind = message.get("kind", "exception")
        if resign_kind not in _RESIGN_KINDS:
            raise ProtocolError(
                f"'kind' is one of {', '.join(_RESIGN_KINDS)}; got {cut(repr(resign_kind))}"
            )
        return Resign(type="resign", game_id=game_id, kind=resign_kind, reason=reason)
    raise ProtocolError(
        f"unknown message type {cut(repr(kind))}; a bot sends hello, move, ask, resign or pong"
    )
