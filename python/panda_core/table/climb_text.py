"""The climbing games (``year``, ``spin``; docs/rules/year.md, spin.md) as a table shows them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.event_text import EventLine, Writer, write_event
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


def _move(e: EventLine) -> str:
    if e["kind"] == "pass":
        return e.act("pass", "passes")
    return f"{e.act('play', 'plays')} {e['move']}"


def _drawn(e: EventLine) -> str:
    drawn = f": {e.cards()}" if e["cards"] else ""
    return f"{e.act('draw', 'draws')} {e['count']} card(s){drawn}"


def _dealt(e: EventLine) -> str:
    dealt = f": {e.cards()}" if e["cards"] else ""
    return f"{e.act('get', 'gets')} {e['count']} cards{dealt}"


EVENTS: dict[str, Writer] = {
    "move": _move,
    "pass": lambda e: e.act(*_PASS_REASON.get(e["reason"] or "", ("pass", "passes"))),
    "bamboo": lambda e: f"{e.who}: bamboo +{e['points']} (score {e['score']})",
    "steal": lambda e: f"{e.act('take', 'takes')} {e['points']} from {e.seat('victim')}",
    "flip": lambda e: f"{e.act('turn', 'turns')} {e.cards()} blue",
    "draw": _drawn,
    "trick_held": lambda e: f"{e.act('hold', 'holds')} the trick",
    "return": lambda e: f"{e.cards()} go back to {e.who}, {e['face']}",
    "discard": lambda e: f"discarded from {e.who}: {e.cards()}",
    "trick_end": lambda e: f"trick to {e.seat('winner')}",
    "show_out": lambda e: f"{e.act('show', 'shows')} out: +{e['points']} (score {e['score']})",
    "round_end": lambda e: f"round {e.round()} over; scores {e['scores']}",
    "round_start": lambda e: (
        f"round {e.round()}: {e.act('start', 'starts', 'starter')}; draw pile {e['draw_pile_size']}"
    ),
    "deal": _dealt,
}
"""The line of each climbing-game event (docs/game_api.md, "Events")."""

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
        return write_event(EVENTS, event, book, names)

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

    def notation_legend(self, cards: Sequence[Mapping[str, Any]]) -> str:
        """The climbing games' cards and moves in words: what an LLM agent's prompt explains."""
        suits: dict[str, str] = {}
        for c in cards:
            if c.get("suit") and c["kind"] != "element":
                suits.setdefault(str(c["token"])[:2], str(c["suit"]))
        names = ", ".join(f"{k} {v}" for k, v in suits.items())
        return (
            "Cards are written in brackets as suit and rank, then the face the card shows after a "
            "colon: [Ea8:8] is earth 8 showing its white face, [Ea8:Q + panda, blue] the same "
            "card showing its blue face (rank Q, a panda symbol). "
            f"Suits: {names}. [Ea!:2 centre] is an element card. "
            "A move's notation is its kind and its cards joined by +, such as 'single Ea6', "
            "'set Ea6+Wo6', 'run Wo9+Wo10', or 'pass'."
        )

    def summary(self) -> str:
        return SUMMARY


PRESENTER = ClimbPresenter()
