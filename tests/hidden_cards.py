"""The no-hidden-card check shared by the table, terminal and browser tests.

``secret_cards(game, seat)`` is what ``seat`` may not know at this moment, computed from the full
game (its snapshot and its whole log), independently of the per-seat filters under test: every
card in another seat's hand or in the draw pile, except cards that are public — played in the
current hand/round (they lie on the table or were seen going by), or showing their blue face
(climbing games, S-11.1). ``card_ids_in(message)`` collects every card id a message carries,
under the keys that hold cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

CARD_KEYS = frozenset(
    {"id", "card", "cards", "hand", "hands", "discarded", "blue", "played", "discard", "out"}
)
"""Keys whose values are card ids (or lists / dicts of them) in every message a seat is sent."""

_ROUND_START = ("deal", "round_start")


def _ints(value: Any) -> Iterable[int]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _ints(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _ints(item)


def card_ids_in(message: Any) -> set[int]:
    """Every card id under a card key anywhere in ``message`` (parsed JSON)."""
    found: set[int] = set()
    if isinstance(message, dict):
        for key, value in message.items():
            if key in CARD_KEYS:
                found.update(_ints(value))
            else:
                found |= card_ids_in(value)
    elif isinstance(message, list | tuple):
        for item in message:
            found |= card_ids_in(item)
    return found


def public_cards(game: Any) -> set[int]:
    """Cards played since the current hand/round began (every seat saw them)."""
    seen: set[int] = set()
    for event in game.history:
        if event["type"] in _ROUND_START:
            if event["type"] == "round_start" or "hands" in event:
                seen = set()
            continue
        if event["type"] in ("move", "turn_up", "pile_won", "discard", "return"):
            seen.update(_ints(event.get("cards", [])))
            if "card" in event and event["type"] != "draw":
                seen.update(_ints(event["card"]))
            seen.update(_ints(event.get("discarded", [])))
    return seen


def secret_cards(game: Any, seat: int) -> set[int]:
    """The cards ``seat`` may not know now (see the module docs)."""
    snap = game.snapshot()
    hidden: set[int] = set(snap.get("draw_pile", []))
    for other, hand in enumerate(snap["hands"]):
        if other != seat:
            hidden.update(hand)
    return hidden - set(snap.get("blue", [])) - public_cards(game)
