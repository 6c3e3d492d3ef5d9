"""Argument checks of the Python facade, mirroring ``src/py/args.rs``: what counts as an integer,
a player count or a size, and how a refused value is shown in a message (docs/errors.md).

An integer is an ``int`` or anything with ``__index__`` (numpy integers), never a ``bool``; a
value of another type is a ``TypeError``, a value out of range a :class:`PandaCoreError` subclass.
"""

from __future__ import annotations

import operator
import reprlib

from panda_core._core import ArgumentError, check_players, check_seed

__all__ = ["SHOWN_CHARS", "count_arg", "cut", "int_arg", "players_arg", "seed_arg", "shown"]

SHOWN_CHARS = 60
"""Longest piece of a user's value quoted in a message (as in the Rust bindings)."""

_REPR = reprlib.Repr()
_REPR.maxstring = SHOWN_CHARS
_REPR.maxother = SHOWN_CHARS
_REPR.maxlong = SHOWN_CHARS


def cut(text: str) -> str:
    """``text`` cut to ``SHOWN_CHARS`` characters, with its full length said when it was cut."""
    if len(text) <= SHOWN_CHARS:
        return text
    return f"{text[:SHOWN_CHARS]}… ({len(text)} characters)"


def shown(value: object) -> str:
    """``repr(value)`` cut to a sane length for an error message."""
    try:
        text = _REPR.repr(value)
    except Exception:  # a broken __repr__ must not hide the real error
        return f"<{type(value).__name__} object>"
    if len(text) > 2 * SHOWN_CHARS:
        return f"{text[:SHOWN_CHARS]}… ({len(text)} characters)"
    return text


def int_arg(value: object, what: str) -> int:
    """``value`` as an ``int``: an int or a numpy integer, not a bool (``TypeError`` otherwise)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{what} must be an int, got {type(value).__name__} {shown(value)}")
    return operator.index(value)  # type: ignore[arg-type]  # checked just above


def count_arg(value: object, what: str) -> int:
    """A count (games, iterations): an int >= 0; ``ArgumentError`` when negative."""
    count = int_arg(value, what)
    if count < 0:
        raise ArgumentError(f"{what} must be >= 0, got {count}")
    return count


def players_arg(value: object) -> int:
    """A player count, 2 to 5 (H-2.1, S-12), checked by the engine before anything is sized by
    it; a non-integer is a ``TypeError``."""
    return check_players(int_arg(value, "players"))


def seed_arg(seed: object) -> int:
    """A seed (R-2): an int in 0 .. 2**64 - 1, checked by the engine; anything else is a
    ``RulesError``."""
    return check_seed(seed)
