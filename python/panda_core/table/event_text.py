"""Event lines: one line of text per event, written per event type.

Each game's presenter has a table ``event type → writer``; a writer gets the event wrapped in an
:class:`EventLine`, which knows how to name seats for the viewer ("you play" / "seat 2
(heuristic) plays") and how to write cards. The events every game shares (``game_end``) and the
table's own (``bot_fallback``) are written here once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from panda_core.table.cards import CardBook
from panda_core.table.names import SeatNames

__all__ = ["COMMON", "EventLine", "Writer", "count", "last_finished", "scores_text", "write_event"]


def count(n: object, noun: str) -> str:
    """``"1 card"``, ``"2 cards"``: a number and its noun, singular for one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def scores_text(scores: object, names: SeatNames) -> str:
    """``"scores: you 3, seat 1 (heuristic) 0"``: every seat's score, named for the viewer
    (never a Python list)."""
    if not isinstance(scores, list | tuple):
        return "scores: none"
    return "scores: " + ", ".join(f"{names(s)} {v}" for s, v in enumerate(scores))


class EventLine:
    """An event with the words to write it for one viewer."""

    def __init__(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> None:
        self.event = event
        self.book = book
        self.names = names

    def __getitem__(self, key: str) -> Any:
        return self.event.get(key)

    @property
    def who(self) -> str:
        """The event's player, named for the viewer."""
        return self.names(self.event.get("player"))

    @property
    def whose(self) -> str:
        """``"your"`` / ``"seat 2 (heuristic)'s"``."""
        seat = self.event.get("player")
        return "your" if seat == self.names.viewer else f"{self.names(seat)}'s"

    def act(self, you: str, they: str, seat_key: str = "player") -> str:
        """``"you pass"`` / ``"seat 2 (heuristic) passes"`` for the seat under ``seat_key``."""
        return self.names.act(self.event.get(seat_key), you, they)

    def seat(self, key: str) -> str:
        return self.names(self.event.get(key))

    def cards(self, key: str = "cards") -> str:
        """The cards under ``key`` as tokens (``""`` when the viewer is not shown them)."""
        value = self.event.get(key)
        if value is None:
            return ""
        if isinstance(value, int):
            return self.book.token(value)
        return self.book.tokens(value)

    def round(self) -> int:
        """The event's round, counted from 1 as people count."""
        return int(self.event.get("round", 0)) + 1


Writer = Callable[[EventLine], str]

COMMON: dict[str, Writer] = {
    "game_end": lambda e: (
        f"game over: {e.names.act(e['winner'], 'win', 'wins')}; {scores_text(e['scores'], e.names)}"
    ),
    "bot_fallback": lambda e: (
        f"{e.whose} bot failed ({e['reason']}); the {e['played_by']} bot moved instead"
    ),
    "stand_in": lambda e: f"the {e['bot']} bot plays for {e.who} while away",
}


def write_event(
    writers: Mapping[str, Writer], event: Mapping[str, Any], book: CardBook, names: SeatNames
) -> str:
    """The line of ``event`` (a table note's own ``text``, or its type's name, if no writer
    knows it)."""
    kind = str(event["type"])
    writer = writers.get(kind) or COMMON.get(kind)
    if writer is None:
        own = event.get("text")
        return own if isinstance(own, str) and own else kind
    return writer(EventLine(event, book, names))


def ordinal(n: int) -> str:
    """``"1st"``, ``"2nd"``, ``"3rd"``, ``"4th"``."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n if n < 20 else n % 10, "th")
    return f"{n}{suffix}"


class Group:
    """Consecutive events shown under one title (a trick, a pile, a deal)."""

    def __init__(self, title: str, first: int, closed: bool = False) -> None:
        self.title = title
        self.first = first
        self.last = first
        self.closed = closed
        self.end: Mapping[str, Any] | None = None
        """The event that finished it (``trick_end``, ``pile_won``), once it has one."""

    def as_dict(self, events: Sequence[Mapping[str, Any]], current: bool) -> dict[str, Any]:
        seq = [events[self.first].get("seq", self.first), events[self.last].get("seq", self.last)]
        return {"title": self.title, "seqs": seq, "current": current}


class GroupFold:
    """Consecutive events split into groups: a deal event (``deals`` gives its title) starts a
    closed group; a move after a closed group opens one (``opens(event, n)`` gives its title,
    ``n`` counting the groups opened since the last deal); an event whose type is in ``closes``
    ends the group it is in, and the events after it join that group until the next move.

    A fold that can be fed more events later: a log only grows, so a replay's next frame feeds
    the new events only (grouping every frame's whole log again made a replay file cost time in
    the square of the moves). Its groups change as it is fed: read
    them (``as_dict``, ``last_finished``) before feeding it again."""

    def __init__(
        self,
        opens: Callable[[Mapping[str, Any], int], str | None],
        closes: frozenset[str],
        deals: Callable[[Mapping[str, Any]], str | None],
    ) -> None:
        self.opens = opens
        self.closes = closes
        self.deals = deals
        self.groups: list[Group] = []
        self.fed = 0
        """How many events it has grouped (``events[:fed]`` of the log it is fed)."""
        self._opened = 0

    def feed(self, events: Sequence[Mapping[str, Any]]) -> list[Group]:
        """Group ``events[self.fed:]`` (``events`` continues what it was fed); the groups."""
        groups = self.groups
        for i in range(self.fed, len(events)):
            event = events[i]
            dealt = self.deals(event)
            if dealt is not None:
                if not (groups and groups[-1].title == dealt and groups[-1].closed):
                    groups.append(Group(dealt, i, closed=True))
                self._opened = 0
            elif event.get("type") == "move" and (not groups or groups[-1].closed):
                self._opened += 1
                groups.append(Group(self.opens(event, self._opened) or "", i))
            elif not groups:
                groups.append(Group("", i))
            group = groups[-1]
            group.last = i
            if event.get("type") in self.closes and not group.closed:
                group.closed = True
                group.end = event
        self.fed = max(self.fed, len(events))
        return groups


def last_finished(groups: Sequence[Group]) -> Group | None:
    """The last group a closing event finished (a trick, a pile), unless the cards were dealt
    again since (its cards are back in the deck, maybe in a hand: not to be shown)."""
    done = [g for g in groups if g.end is not None]
    if not done:
        return None
    last = done[-1]
    if any(g.closed and g.end is None and g.first > last.first for g in groups):
        return None
    return last


def places_list(
    ranked: Sequence[int],
    key: Callable[[int], object],
    scores: Sequence[int],
    names: SeatNames,
) -> list[dict[str, Any]]:
    """``[{"place", "seats", "scores", "text"}]`` in place order: ``ranked`` seats, those with
    equal ``key`` tied at one place (the next place counts the seats before it, as 1, 1, 3)."""
    out: list[dict[str, Any]] = []
    for i, seat in enumerate(ranked):
        if out and key(ranked[i - 1]) == key(seat):
            out[-1]["seats"].append(seat)
            out[-1]["scores"].append(scores[seat])
            continue
        out.append({"place": i + 1, "seats": [seat], "scores": [scores[seat]]})
    for place in out:
        who = ", ".join(
            f"{names(s)} {count(v, 'point')}"
            for s, v in zip(place["seats"], place["scores"], strict=True)
        )
        place["text"] = f"{ordinal(place['place'])}: {who}"
    return out
