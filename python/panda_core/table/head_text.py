"""Panda Head as a table shows it (docs/rules/head.md): words for its events, pile and moves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.event_text import (
    EventLine,
    Group,
    GroupFold,
    Writer,
    count,
    last_finished,
    places_list,
    scores_text,
    write_event,
)
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
    what = describe_play(e["cards"] or [], e["value"], e.book)
    if what.startswith("Big") or what.startswith("Bamboo"):
        what = f"a {what}"
    return f"{e.act(you, they)} {what}"


def _threshold(rules: Any) -> str:
    value = getattr(rules, "bust_threshold", None)
    return "the threshold" if value is None else str(value)


def _drowsy(e: EventLine) -> str:
    over = _threshold(e.book.rules)
    return (
        f"{e.act('are', 'is')} Drowsy: over {over} for the first time, score "
        f"{e['score_before']} back to {e['score']} (H-6.1)"
    )


def _pooped(e: EventLine) -> str:
    over = _threshold(e.book.rules)
    return (
        f"{e.act('are', 'is')} Pooped: over {over} again, out of the game "
        f"(score {e['score']}, H-6.2)"
    )


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
    "draw": lambda e: (
        f"{e.act('draw', 'draws')} "
        + (e.book.label(e["card"]) if isinstance(e["card"], int) else "a card")
    ),
    "pile_won": lambda e: (
        f"pile {e['pile'] + 1} to {e.seat('winner')} "
        f"(value {e['value']}, {count(e['points'], 'point')})"
    ),
    "poor_panda": lambda e: (
        f"Poor Panda: {e.act('lose', 'loses')} {count(e['points'], 'point')} (H-5.3)"
    ),
    "drowsy": _drowsy,
    "pooped": _pooped,
    "round_end": lambda e: f"hand {e.round()} over; {scores_text(e['scores'], e.names)}",
    "deal": _deal,
}
"""The line of each Panda Head event (docs/game_api.md, "Events")."""


def _summary(rules: Any) -> str:
    over = _threshold(rules)
    return "\n".join(
        [
            "Panda Head — points are bad (docs/rules/head.md).",
            "H-2  Each hand, everyone gets 7 cards; 7 piles are played, one card each per pile.",
            "H-3.1 The leader plays any Panda (alone or with a Bamboo) or a Big Panda.",
            "H-3.2 Each other player plays once: (A) a value ≥ the highest on the pile, or (B) "
            "their lowest.",
            "H-3.3 The highest value wins the pile (ties: the last one played); the winner leads "
            "next.",
            "H-4  Big Panda: led, cards are turned up; following, worth highest + 1. Bamboo: +2, "
            "draw a card.",
            "H-5  Only the last (7th) pile scores: its winner takes the points (Poor Panda: ties "
            "lose them).",
            f"H-6  Above {over} once: Drowsy (score lowered); twice: "
            "Pooped, out. Last one in wins.",
        ]
    )


SUMMARY = _summary(None)
"""The rules in brief without a game's rules object."""

_GROUPS = {
    "panda": (0, "Pandas"),
    "panda_bamboo": (1, "with a Bamboo"),
    "big_panda": (2, "Big Panda"),
    "bamboo": (3, "Bamboo alone"),
}


def describe_play(cards: Sequence[int], value: object, book: CardBook) -> str:
    """What a play on a pile is, from its cards' kinds (the catalogue) and its value:
    "Panda 7", "Panda 7 with a Bamboo (= 9)", "Big Panda (= 10)", "Bamboo alone (= 6)"."""
    kinds = [book.info(c).get("kind") for c in cards]
    pandas = [book.info(c).get("value") for c in cards if book.info(c).get("kind") == "panda"]
    if "big_panda" in kinds:
        return f"Big Panda (= {value})"
    if "bamboo" in kinds:
        return (
            f"Panda {pandas[0]} with a Bamboo (= {value})"
            if pandas
            else f"Bamboo alone (= {value})"
        )
    return f"Panda {value}"


def card_help(info: Mapping[str, Any], face: str | None, rules: Any) -> str:
    """The help line of a Panda Head card (H-1.3, H-4)."""
    kind = info.get("kind")
    if kind == "big_panda":
        return (
            "Big Panda: led, cards are turned up until a Panda, whose value it takes (H-4.1); "
            "following, worth the highest value on the pile + 1 (H-4.2)."
        )
    if kind == "bamboo":
        return (
            "Bamboo: played with a Panda it adds 2 and you draw a card (H-4.3); a hand of only "
            "Bamboo plays one alone, and a card is turned up as the play (H-4.4)."
        )
    value = info.get("value")
    return (
        f"{info.get('label', 'Panda')}: worth {value}; with a Bamboo worth "
        f"{value if not isinstance(value, int) else value + 2} and you draw a card (H-3, H-4.3)."
    )


def _deal_title(event: Mapping[str, Any]) -> str | None:
    if event.get("type") == "deal":
        return f"hand {int(event.get('round', 0)) + 1}"
    return None


def _pile_title(event: Mapping[str, Any], n: int) -> str:
    return f"pile {int(event.get('pile', n - 1)) + 1} of 7"


_CLOSES = frozenset({"pile_won"})


def groups(events: Sequence[Mapping[str, Any]]) -> list[Group]:
    """The events by pile: a hand's deal, then ``pile 1 of 7`` … (a pile ends with its
    ``pile_won``, H-3.3; the hand's scoring stays with the last pile)."""
    return GroupFold(_pile_title, _CLOSES, _deal_title).feed(events)


class HeadPresenter:
    round_word = "hand"

    def log_fold(self) -> GroupFold:
        return GroupFold(_pile_title, _CLOSES, _deal_title)

    def last_trick(
        self,
        events: Sequence[Mapping[str, Any]],
        book: CardBook,
        names: SeatNames,
        grouped: Sequence[Group] | None = None,
    ) -> dict[str, Any] | None:
        """The last finished pile: its plays and its winner (H-3.3)."""
        listed = events if isinstance(events, list) else list(events)
        last = last_finished(groups(listed) if grouped is None else grouped)
        if last is None:
            return None
        end = last.end or {}
        plays = [
            {
                "player": e.get("player"),
                "text": f"{names(e.get('player'))} → {e.get('value')}:",
                "value": e.get("value"),
                "cards": book.cards(e.get("cards") or []),
                "describe": describe_play(e.get("cards") or [], e.get("value"), book),
            }
            for e in listed[last.first : last.last + 1]
            if e.get("type") == "move"
        ]
        winner = end.get("winner")
        text = (
            f"{last.title} to {names(winner)} "
            f"(value {end.get('value')}, {count(end.get('points'), 'point')})"
        )
        return {"title": last.title, "plays": plays, "winner": winner, "text": text}

    def seat_status(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> list[list[dict[str, str]]]:
        """Per seat: Pooped (H-6.2, out of the game) or Drowsy (H-6.1), never both."""
        over = _threshold(book.rules)
        out: list[list[dict[str, str]]] = []
        for drowsy, pooped in zip(view["drowsy"], view["pooped"], strict=True):
            if pooped:
                out.append(
                    [
                        {
                            "word": "Pooped",
                            "text": f"Pooped: over {over} twice, out of the game (H-6.2)",
                        }
                    ]
                )
            elif drowsy:
                text = f"Drowsy: was over {over} once, score lowered; over again is out (H-6.1)"
                out.append([{"word": "Drowsy", "text": text}])
            else:
                out.append([])
        return out

    def places(
        self,
        placements: Sequence[int],
        scores: Sequence[int],
        events: Sequence[Mapping[str, Any]],
        names: SeatNames,
    ) -> list[dict[str, Any]]:
        """Game over by place (H-6.3): the last one in first, then the Pooped seats, the later
        out the better; seats Pooped at the same hand's end tie (the registry's placements)."""
        ranked = sorted(range(len(scores)), key=lambda s: (placements[s], s))
        return places_list(ranked, lambda s: placements[s], scores, names)

    def describe(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> str:
        return write_event(EVENTS, event, book, names)

    def hand(self, view: Mapping[str, Any], book: CardBook) -> list[CardDict]:
        return book.cards(view["hand"])

    def table_area(
        self,
        view: Mapping[str, Any],
        book: CardBook,
        names: SeatNames,
        events: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        plays = [
            {
                "player": seat,
                "text": f"{names(seat)} → {value}:",
                "value": value,
                "cards": book.cards(cards),
                "describe": describe_play(cards, value, book),
            }
            for seat, _action, value, cards in view["pile_plays"]
        ]
        highest = max((p["value"] for p in plays), default=None)
        to_beat = None
        if highest is not None:  # ties go to the last one played (H-3.3)
            top = [p for p in plays if p["value"] == highest][-1]
            to_beat = f"highest value {highest}: {top['describe']} by {names(top['player'])}"
        return {
            "title": f"pile {view['pile_number'] + 1} of 7",
            "plays": plays,
            "to_beat": to_beat,
            "notes": [
                f"leader: {names(view['leader'])}",
                f"dealer: {names(view['dealer'])}",
                *(
                    names.act(s, "are Drowsy", "is Drowsy")
                    for s, d in enumerate(view["drowsy"])
                    if d and not view["pooped"][s]
                ),
                *(
                    names.act(s, "are Pooped", "is Pooped")
                    for s, p in enumerate(view["pooped"])
                    if p
                ),
            ],
        }

    def move(
        self,
        move: Any,
        book: CardBook,
        view: Mapping[str, Any],
        game: Any = None,
        names: SeatNames | None = None,
    ) -> dict[str, Any]:
        kind = move.kind
        if kind == "panda_bamboo":
            text = f"Panda {move.value} with a Bamboo (= {move.effective_value}), draw a card"
        elif kind == "big_panda":
            worth = move.effective_value
            text = "Big Panda" + (
                f" (= {worth})" if worth is not None else " (cards are turned up)"
            )
        elif kind == "bamboo":
            text = "Bamboo alone (turn up a card)"
        else:
            text = f"Panda {move.value}"
        order, label = _GROUPS.get(kind, (9, str(kind)))
        return {
            "text": text,
            "cards": book.cards(move.cards),
            "group": {"order": order, "label": label},
            "rule": self.rule_of(move),
        }

    def card_help(self, info: Mapping[str, Any], face: str | None, rules: Any) -> str:
        return card_help(info, face, rules)

    def rule_of(self, move: Any, rules: Any = None) -> str:
        return _RULES.get(move.kind, "H-3")

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        deltas = result.get("deltas", [])
        gained = ", ".join(f"{names(s)} {d:+d}" for s, d in enumerate(deltas) if d) or "no points"
        scores = list(result.get("scores", []))
        status = [
            names.act(s, "are Drowsy", "is Drowsy") + f": score back to {scores[s]}"
            for s in result.get("new_drowsy", [])
            if s < len(scores)
        ] + [
            names.act(s, "are Pooped", "is Pooped") + ": out of the game"
            for s in result.get("new_pooped", [])
        ]
        said = "".join(f"; {x}" for x in status)
        return (
            f"hand {result['hand'] + 1}: last pile to {names(result.get('last_pile_winner'))}; "
            f"{gained}{said}; {scores_text(scores, names)}"
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

    def summary(self, rules: Any = None) -> str:
        """The rules in brief with their IDs; with the game's ``rules``, its own threshold."""
        return _summary(rules)


PRESENTER = HeadPresenter()
