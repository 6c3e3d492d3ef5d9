"""The no-hidden-card check shared by the table, terminal and browser tests.

Two parts, because a log is read later than it happened:

* what a message shows **now** (a hand, the table, the legal moves, a view) must hold no card in
  ``secret_cards(game, seat)``;
* an **event** in the log carries a private card only if it is the seat's own (a deal or a draw
  of another seat shows its size only), checked by :func:`private_events_leak`. (A card played
  in an earlier round may sit in another hand now; the old event that showed it was public then.)

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

PRIVATE_EVENTS = ("deal", "draw")
"""The events that carry a private card (a hand dealt, a card drawn)."""

CURRENT_KEYS = ("hand", "hands", "table", "legal", "view")
"""The parts of a seat state that show the position now (the rest is the log and counts)."""

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


def private_events_leak(events: Iterable[Any], seat: int) -> list[Any]:
    """The events of a log shown to ``seat`` that carry another seat's private cards."""
    leaks = []
    for event in events:
        if not isinstance(event, dict) or event.get("type") not in PRIVATE_EVENTS:
            continue
        if "hands" in event:
            if any(h for q, h in enumerate(event["hands"]) if q != seat):
                leaks.append(event)
        elif event.get("player") != seat and ("cards" in event or "card" in event):
            leaks.append(event)
    return leaks


def hidden_cards_shown(state: dict[str, Any], game: Any, seat: int) -> set[int]:
    """The secret cards a seat state shows in its current parts (empty when it is safe)."""
    current = {k: state.get(k) for k in CURRENT_KEYS}
    return card_ids_in(current) & secret_cards(game, seat)
