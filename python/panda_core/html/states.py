"""The states the HTML views draw: a game's (full information) and a seat's (its own only).

Both are the table model's seat states (:class:`panda_core.table.seat_state.SeatStateBuilder`),
the JSON the web page draws: a game object is its caller's own, so its view shows every hand (the
builder's full-information frame, ``seat=None``, as a replay's "every hand" frame); a seat object
(``game.seat(p)``) is built from the seat's own verbs (its view, its events, its legal moves, the
deck), so its state holds only what that seat may know.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from panda_core._registry import GameSpec, spec_of
from panda_core.table.cards import CardBook
from panda_core.table.seat_state import SeatStateBuilder

__all__ = ["game_state", "is_seat", "seat_state", "spec_for"]


def spec_for(obj: object) -> GameSpec:
    """The game ``obj`` (a game or a seat object) plays; ``TypeError`` for anything else."""
    try:
        return spec_of(obj)
    except (AttributeError, KeyError, TypeError):
        raise TypeError(
            f"an HTML view draws a game or a seat object (panda_core.make(...), game.seat(p)), "
            f"not {type(obj).__name__}"
        ) from None


def is_seat(obj: object) -> bool:
    """Whether ``obj`` is a seat object (else a game object of its game)."""
    return not isinstance(obj, spec_for(obj).game_class)


def _names(players: int, names: Sequence[str] | None) -> list[str]:
    if names is None:
        return [f"seat {p}" for p in range(players)]
    out = [str(n) for n in names]
    if len(out) != players:
        raise TypeError(f"names: one name per seat ({players}), got {len(out)}")
    return out


def _last_move_start(events: Sequence[Any], player: int | None) -> int:
    """The index of the last move event (of ``player``; ``None``: anyone's), else -1."""
    for i in range(len(events) - 1, -1, -1):
        e = events[i]
        if e.get("type") == "move" and (player is None or e.get("player") == player):
            return i
    return -1


def _after_move(events: Sequence[Any], start: int) -> int:
    """The index just after the events of the move whose move event is at ``start``."""
    for i in range(start + 1, len(events)):
        if events[i].get("type") == "move":
            return i
    return len(events)


def game_state(game: Any, names: Sequence[str] | None = None) -> dict[str, Any]:
    """A game object's state with every hand (the caller's own game: full information); the
    events of its last move are the new ones."""
    spec = spec_for(game)
    seat_names = _names(game.players, names)
    builder = SeatStateBuilder(spec, CardBook(game), seat_names)
    events = game.events(None)
    state = builder.build(
        game,
        None,
        seat_kinds=[{"kind": "player", "name": n} for n in seat_names],
        seed=None,
        notes=(),
        since=max(0, _last_move_start(events, None)),
    )
    state["frame"] = None  # drawn as a replay frame is: a picture, nobody is waited for
    return state


def seat_state(seat: Any, names: Sequence[str] | None = None) -> dict[str, Any]:
    """A seat object's state: its own hand, the events it saw, its legal moves when it is to
    move; built from the seat's own verbs only. The events since its own last move are new."""
    spec = spec_for(seat)
    me = int(seat.player)
    seat_names = _names(seat.players, names)
    builder = SeatStateBuilder(spec, CardBook(seat), seat_names)
    events = seat.events()
    mine = _last_move_start(events, me)
    since = _after_move(events, mine) if mine >= 0 else 0
    return builder.build(
        seat,
        me,
        seat_kinds=[{"kind": "player", "name": n} for n in seat_names],
        seed=None,
        notes=(),
        since=since,
    )
