"""Panda Head as a table shows it (docs/rules/head.md): words for its events, pile and moves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.event_text import EventLine, Writer, write_event
from panda_core.table.names import SeatNames

__all__ = ["PRESENTER", "HeadPresenter"]

_OPTION = {
    "lead": ("lead", "leads"),
    "a": ("play", "plays"),
    "b": ("play your lowest,", "plays their lowest,"),
    "forced": ("must play", "must play"),
}
_RULES = {
    "panda": "H-3.1 lead any Panda; H-3.2 follow with a value ≥ the highest (A) or your lowest (B)",
    "panda_bamboo": "H-4.3 a Panda with one Bamboo is worth its value + 2; you draw a card",
    "big_panda": "H-4.1 led: cards are turned up until a Panda; H-4.2 following: highest + 1",
    "bamboo": "H-4.4 a hand of only Bamboo plays one alone: a card is turned up as the play",
}


def _move(e: EventLine) -> str:
    you, they = _OPTION.get(e["option"] or "", ("play", "plays"))
    return f"{e.act(you, they)} {e['move']} (value {e['value']})"


def _turn_up(e: EventLine) -> str:
    skipped = e.cards("discarded")
    extra = f" (set aside: {skipped})" if skipped else ""
    return f"turned up {e.cards('card') or '?'} for {e.who}, value {e['value']}{extra}"


def _deal(e: EventLine) -> str:
    hands = e["hands"] or []
    viewer = e.names.viewer
    own = hands[viewer] if viewer is not None and viewer < len(hands) else None
    mine = f"; your cards: {e.book.tokens(own)}" if own else ""
    dealer = e.act("deal", "deals", "dealer")
    leader = e.act("lead", "leads", "leader")
    return f"hand {e.round()}: {dealer}, {leader}{mine}"


EVENTS: dict[str, Writer] = {
    "move": _move,
    "big_panda": lambda e: f"{e.who}: Big Panda, worth {e['value']}",
    "bamboo": lambda e: f"{e.who}: Bamboo alone" if e["alone"] else f"{e.who}: Bamboo, +2",
    "turn_up": _turn_up,
    "draw": lambda e: f"{e.act('draw', 'draws')} {e.cards('card') or 'a card'}",
    "pile_won": lambda e: (
        f"pile {e['pile'] + 1} to {e.seat('winner')} (value {e['value']}, {e['points']} points)"
    ),
    "poor_panda": lambda e: f"Poor Panda: {e.who} loses {e['points']}",
    "drowsy": lambda e: f"{e.act('are', 'is')} Drowsy: {e['score_before']} → {e['score']}",
    "pooped": lambda e: (
        f"{e.act('are Pooped and leave', 'is Pooped and leaves')} the game ({e['score']})"
    ),
    "round_end": lambda e: f"hand {e.round()} over; scores {e['scores']}",
    "deal": _deal,
}
"""The line of each Panda Head event (docs/game_api.md, "Events")."""

SUMMARY = """\
Panda Head — points are bad (docs/rules/head.md).
H-2  Each hand, everyone gets 7 cards; 7 piles are played, one card each per pile.
H-3.1 The leader plays any Panda (alone or with a Bamboo) or a Big Panda.
H-3.2 Each other player plays once: (A) a value ≥ the highest on the pile, or (B) their lowest.
H-3.3 The highest value wins the pile (ties: the last one played); the winner leads next.
H-4  Big Panda: led, cards are turned up; following, worth highest + 1. Bamboo: +2, draw a card.
H-5  Only the last (7th) pile scores: its winner takes the points (Poor Panda: ties lose them).
H-6  Above the threshold once: Drowsy (score lowered); twice: Pooped, out. Last one in wins."""


class HeadPresenter:
    round_word = "hand"

    def describe(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> str:
        return write_event(EVENTS, event, book, names)

    def hand(self, view: Mapping[str, Any], book: CardBook) -> list[CardDict]:
        return book.cards(view["hand"])

    def table_area(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> dict[str, Any]:
        plays = [
            {
                "player": seat,
                "text": f"{names(seat)} → {value}:",
                "value": value,
                "cards": book.cards(cards),
            }
            for seat, _action, value, cards in view["pile_plays"]
        ]
        highest = max((p["value"] for p in plays), default=None)
        return {
            "title": f"pile {view['pile_number'] + 1} of 7",
            "plays": plays,
            "to_beat": None if highest is None else f"highest value {highest}",
            "notes": [
                f"leader: {names(view['leader'])}",
                f"dealer: {names(view['dealer'])}",
                *(
                    names.act(s, "are Drowsy", "is Drowsy")
                    for s, d in enumerate(view["drowsy"])
                    if d
                ),
                *(
                    names.act(s, "are Pooped", "is Pooped")
                    for s, p in enumerate(view["pooped"])
                    if p
                ),
            ],
        }

    def move(self, move: Any, book: CardBook, view: Mapping[str, Any]) -> dict[str, Any]:
        kind = move.kind
        if kind == "panda_bamboo":
            text = f"{move.value} with a Bamboo (= {move.effective_value}), draw a card"
        elif kind == "big_panda":
            text = "Big Panda"
        elif kind == "bamboo":
            text = "Bamboo alone (turn up a card)"
        else:
            text = f"Panda {move.value}"
        return {"text": text, "cards": book.cards(move.cards)}

    def rule_of(self, move: Any) -> str:
        return _RULES.get(move.kind, "H-3")

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        deltas = result.get("deltas", [])
        gained = ", ".join(f"{names(s)} {d:+d}" for s, d in enumerate(deltas) if d) or "no points"
        return (
            f"hand {result['hand'] + 1}: last pile to {names(result.get('last_pile_winner'))}; "
            f"{gained}; scores {result['scores']}"
        )

    def notation_legend(self, cards: Sequence[Mapping[str, Any]]) -> str:
        """Panda Head's cards and moves in words: what an LLM agent's prompt explains."""
        kinds: dict[str, str] = {}
        for c in cards:
            if c["kind"] != "panda":
                kinds.setdefault(str(c["token"]), str(c["label"]))
        special = ", ".join(f"[{t}] {label}" for t, label in sorted(kinds.items()))
        extra = f"; {special}" if special else ""
        return (
            "Cards are written in brackets: [7] is a Panda of value 7" + extra + ". "
            "A move's notation is the Panda's value (7); 7+B plays a Bamboo with it, worth the "
            "value + 2 (9), and you draw a card; BP plays the Big Panda; B plays a Bamboo alone "
            "(a card is turned up as the play)."
        )

    def summary(self) -> str:
        return SUMMARY


PRESENTER = HeadPresenter()
