"""A Python bot's answer as a plain move, read once and never trusted again.

A bot may answer an action id, a move object, a notation or (climbing games) a move dict, but the
object it returns is its own: an ``int`` subclass whose ``__index__`` raises, a ``str`` whose
``__eq__`` exits, a dict whose ``items`` loops. :func:`plain_move` turns the answer into a plain
``int`` (an action id) or ``str`` (a notation) without calling any method the bot's classes could
override, and everything after that — the check on a copy, the move at the table — uses only the
plain value. :func:`describe_failure` words a bot's exception the same careful way, and
:func:`refusal_reason` a refused move (:class:`~panda_core.bot_move.MoveRefused`).
"""

from __future__ import annotations

import json
import operator
from typing import Any, SupportsIndex, cast

from panda_core._args import cut
from panda_core._registry import move_dict_notation, plain_engine_move
from panda_core.bot_move import MoveRefused

__all__ = [
    "MAX_NOTATION",
    "NotAMoveError",
    "PlainMove",
    "describe_failure",
    "plain_move",
    "refusal_reason",
]

PlainMove = int | str
"""A move as the engine takes it and a record stores it: an action id or a notation."""

MAX_NOTATION = 200
"""The longest notation taken from a bot (the longest climbing move is well under 100)."""

_ID_RANGE = (-(2**63), 2**64)
"""Action ids outside this are no move of any game (and would not fit the engine's integers)."""


class NotAMoveError(Exception):
    """What a bot answered is no move at all (the reason is the message)."""


def _type_name(value: object) -> str:
    try:
        return cut(str(type.__dict__["__name__"].__get__(type(value))))
    except Exception:  # a metaclass can make even this fail
        return "object"


def plain_move(answer: object) -> PlainMove:
    """``answer`` as a plain action id or notation; :class:`NotAMoveError` saying why not.

    Only the type of ``answer`` is trusted: an ``int`` or ``str`` subclass is read through the
    base class's own slot (``int.__int__``, ``str.__str__``), which copies the value without
    calling the subclass; anything else with ``__index__`` (numpy integers) is read once by it.
    Any exception raised on the way (by a hostile ``__index__``) is the bot's failure, caught by
    the caller.
    """
    kind = type(answer)
    if kind is bool:  # bool cannot be subclassed; an int to Python, never a move here
        raise NotAMoveError(f"answered {answer!r}, a bool: not a move")
    engine = plain_engine_move(answer)  # an engine object (exact type): trusted
    if engine is not None:
        return engine
    if issubclass(kind, str):
        text = str.__str__(answer)
        if len(text) > MAX_NOTATION:
            raise NotAMoveError(
                f"answered a notation of {len(text)} characters; a move's notation is at most "
                f"{MAX_NOTATION}"
            )
        return text
    if kind is dict:  # a move dict: through JSON, so nothing of the bot's is kept
        plain: Any = json.loads(json.dumps(answer))
        return move_dict_notation(plain)
    if issubclass(kind, int):
        value = int.__int__(answer)  # type: ignore[arg-type]
    elif hasattr(kind, "__index__"):
        value = int.__int__(operator.index(cast(SupportsIndex, answer)))
    else:
        raise NotAMoveError(
            f"answered a {_type_name(answer)}, not a move (an action id, a move object, a "
            "notation or a climbing move dict)"
        )
    if not _ID_RANGE[0] <= value < _ID_RANGE[1]:
        raise NotAMoveError(f"answered the action id {cut(str(value))}: no game has it")
    return value


def describe_failure(err: BaseException) -> str:
    """``"raised NAME: MESSAGE"`` for a bot's exception, whatever its ``__str__`` does."""
    name = _type_name(err)
    try:
        text = str(err)
        said = cut(text if type(text) is str else "")
    except BaseException:  # a hostile __str__; the bot's failure is reported, never raised
        said = "(its message could not be read)"
    return f"raised {name}: {said}" if said else f"raised {name}"


def refusal_reason(refused: MoveRefused) -> str:
    """Why a bot's move was refused (:func:`panda_core.bot_move.ask_move`), worded with
    :func:`describe_failure`: the table says it (the same whether the bot ran in a thread of the
    table or in its contained process). A timeout is worded by the caller, who knows the bound."""
    if refused.kind == "exception" and refused.cause is not None:
        return describe_failure(refused.cause)
    if isinstance(refused.cause, NotAMoveError):
        return str(refused.cause)
    if refused.cause is not None:
        return f"answered a move that could not be read: {describe_failure(refused.cause)}"
    return "gave no answer"
