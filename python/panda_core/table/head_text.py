"""Panda Head as a table shows it (docs/rules/head.md): words for its events, pile and moves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panda_core.table.cards import CardBook, CardDict
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
        kind = event["type"]
        who = names(event.get("player"))
        if kind == "move":
            you, they = _OPTION.get(event.get("option", ""), ("play", "plays"))
            return names.act(event.get("player"), you, they) + (
                f" {event['move']} (value {event.get('value')})"
            )
        if kind == "big_panda":
            return f"{who}: Big Panda, worth {event.get('value')}"
        if kind == "bamboo":
            return f"{who}: Bamboo alone" if event.get("alone") else f"{who}: Bamboo, +2"
        if kind == "turn_up":
            skipped = book.tokens(event.get("discarded", []))
            turned = book.token(event["card"]) if "card" in event else "?"
            extra = f" (set aside: {skipped})" if skipped else ""
            return f"turned up {turned} for {who}, value {event.get('value')}{extra}"
        if kind == "draw":
            card = f" {book.token(event['card'])}" if "card" in event else " a card"
            return names.act(event.get("player"), "draw", "draws") + card
        if kind == "pile_won":
            return (
                f"pile {event['pile'] + 1} to {names(event.get('winner'))} "
                f"(value {event.get('value')}, {event.get('points')} points)"
            )
        if kind == "poor_panda":
            return f"Poor Panda: {who} loses {event.get('points')}"
        if kind == "drowsy":
            return (
                names.act(event.get("player"), "are", "is")
                + f" Drowsy: {event.get('score_before')} → {event.get('score')}"
            )
        if kind == "pooped":
            return names.act(
                event.get("player"), "are Pooped and leave", "is Pooped and leaves"
            ) + (f" the game ({event.get('score')})")
        if kind == "round_end":
            return f"hand {event['round'] + 1} over; scores {event.get('scores')}"
        if kind == "deal":
            hands = event.get("hands") or []
            own = (
                hands[names.viewer]
                if names.viewer is not None and names.viewer < len(hands)
                else None
            )
            mine = f"; your cards: {book.tokens(own)}" if own else ""
            dealer = names.act(event.get("dealer"), "deal", "deals")
            leader = names.act(event.get("leader"), "lead", "leads")
            return f"hand {event['round'] + 1}: {dealer}, {leader}{mine}"
        if kind == "game_end":
            return f"game over: {names(event.get('winner'))} wins; scores {event.get('scores')}"
        if kind == "bot_fallback":
            return f"{who}'s bot failed ({event.get('reason')}); the heuristic moved instead"
        return str(kind)

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
                *(f"{names(s)} is Drowsy" for s, d in enumerate(view["drowsy"]) if d),
                *(f"{names(s)} is Pooped" for s, p in enumerate(view["pooped"]) if p),
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

    def summary(self) -> str:
        return SUMMARY


PRESENTER = HeadPresenter()
