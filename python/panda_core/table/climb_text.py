"""The climbing games (``year``, ``spin``; docs/rules/year.md, spin.md) as a table shows them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.names import SeatNames

__all__ = ["PRESENTER", "ClimbPresenter"]

_RULES = {
    "pass": "S-6.1 pass: you are out of this trick; S-6.3 your white cards come back blue",
    "discard_element": "S-6.5 discard an element card; your turn goes on",
    "element": "S-5.3 / S-8 an element card whose condition holds for the play to beat",
    "single": "S-4.1 a single unit; S-5.1 beats a single of lower rank",
    "set": "S-4.2 units of one rank; S-5.1 beats a set of as many units, lower rank",
    "run": "S-4.3 2–5 consecutive ranks; S-5.1 beats a run of the same length, lower top",
    "formation": "S-4.4 copies of one run; S-5.1 same length and copies, lower top",
    "bomb": "S-4.5 four or more units of one rank (following only); S-5.2 beats any non-bomb",
}
_PASS_REASON = {
    "chosen": ("are out of this trick", "is out of this trick"),  # the move said "pass"
    "empty_hand": ("pass (empty hand)", "passes (empty hand)"),
    "forced": ("must pass", "must pass"),
}

SUMMARY = """\
Climbing game (year: docs/rules/year.md, spin: docs/rules/spin.md). Get rid of your cards.
S-1/S-2 Cards have a white face and a stronger blue face; element cards are played on plays.
S-4  Plays: single, set (one rank), run (2–5 ranks), formation (copies of a run), bomb (4+).
S-5  Beat the play with the same kind and shape and a higher rank; a bomb beats anything else.
S-6  Beat or pass; a pass is final for the trick. Passed white cards come back to you blue.
S-7  Symbols: bamboo scores a point, panda takes one (year) or steals (spin), fire is wild.
S-9  Emptying your hand shows you out: you score the largest hand held (at most 7).
S-10 The game ends when someone reaches 15 (spin: 20)."""


class ClimbPresenter:
    round_word = "round"

    def describe(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> str:
        kind = event["type"]
        who = names(event.get("player"))
        cards = event.get("cards")
        if kind == "move":
            if event.get("kind") == "pass":
                return names.act(event.get("player"), "pass", "passes")
            return names.act(event.get("player"), "play", "plays") + f" {event['move']}"
        if kind == "pass":
            return names.act(
                event.get("player"), *_PASS_REASON.get(event.get("reason", ""), ("pass", "passes"))
            )
        if kind == "bamboo":
            return f"{who}: bamboo +{event.get('points')} (score {event.get('score')})"
        if kind == "steal":
            return (
                names.act(event.get("player"), "take", "takes")
                + f" {event.get('points')} from {names(event.get('victim'))}"
            )
        if kind == "flip":
            return (
                names.act(event.get("player"), "turn", "turns")
                + f" {book.tokens(cards or [])} blue"
            )
        if kind == "draw":
            drawn = f": {book.tokens(cards)}" if cards else ""
            return (
                names.act(event.get("player"), "draw", "draws")
                + f" {event.get('count')} card(s){drawn}"
            )
        if kind == "trick_held":
            return names.act(event.get("player"), "hold", "holds") + " the trick"
        if kind == "return":
            return f"{book.tokens(cards or [])} go back to {who}, {event.get('face')}"
        if kind == "discard":
            return f"discarded from {who}: {book.tokens(cards or [])}"
        if kind == "trick_end":
            return f"trick to {names(event.get('winner'))}"
        if kind == "show_out":
            return (
                names.act(event.get("player"), "show", "shows")
                + f" out: +{event.get('points')} (score {event.get('score')})"
            )
        if kind == "round_end":
            return f"round {event['round'] + 1} over; scores {event.get('scores')}"
        if kind == "round_start":
            starter = names.act(event.get("starter"), "start", "starts")
            return f"round {event['round'] + 1}: {starter}; draw pile {event.get('draw_pile_size')}"
        if kind == "deal":
            dealt = f": {book.tokens(cards)}" if cards else ""
            return (
                names.act(event.get("player"), "get", "gets")
                + f" {event.get('count')} cards{dealt}"
            )
        if kind == "game_end":
            return f"game over: {names(event.get('winner'))} wins; scores {event.get('scores')}"
        if kind == "bot_fallback":
            return f"{who}'s bot failed ({event.get('reason')}); the heuristic moved instead"
        return str(kind)

    def hand(self, view: Mapping[str, Any], book: CardBook) -> list[CardDict]:
        return [book.card(c, f) for c, f in zip(view["hand"], view["hand_faces"], strict=True)]

    def table_area(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> dict[str, Any]:
        trick = view["trick"]
        blue = view["blue"]
        plays = [
            {
                "player": seat,
                "text": f"{names(seat)}:",
                "cards": book.cards(cards, blue),
            }
            for seat, cards in enumerate(trick["played"])
            if cards
        ]
        to_beat = trick.get("to_beat")
        beat_text = None
        if to_beat:
            beat_text = f"{to_beat.get('kind', '')} {book.tokens(to_beat.get('cards', []))}".strip()
            holder = trick.get("holder")
            if holder is not None:
                beat_text += f" by {names(holder)}"
        notes = [f"leader: {names(trick['leader'])}"]
        if trick["passed"]:
            notes.append(f"passed: {names.list(trick['passed'])}")
        if view.get("shown_out"):
            notes.append(f"shown out: {names.list(view['shown_out'])}")
        notes.append(f"panda mood: {view['panda_mood']}")
        return {"title": "trick", "plays": plays, "to_beat": beat_text, "notes": notes}

    def move(self, move: Any, book: CardBook, view: Mapping[str, Any]) -> dict[str, Any]:
        faces = dict(zip(view["hand"], view["hand_faces"], strict=True))
        return {
            "text": move.notation,
            "cards": [book.card(c, faces.get(c)) for c in move.cards],
        }

    def rule_of(self, move: Any) -> str:
        return _RULES.get(move.kind, "S-6")

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        out = names.list(result.get("shown_out", []))
        return f"round {result['round']}: shown out {out}; scores {result['scores']}"

    def summary(self) -> str:
        return SUMMARY


PRESENTER = ClimbPresenter()
