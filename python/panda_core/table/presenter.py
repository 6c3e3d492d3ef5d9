"""What a table needs to know about a game to show it: the words, not the rules.

Each game has one presenter (``panda_core.table.head_text``, ``panda_core.table.climb_text``),
chosen by the registry (``GameSpec.presenter``). A presenter turns the engine's views, moves and
events into display text and card lists; every fact it shows comes from the engine (the view,
the event, the move object and its classification, the deck's card catalogue, the rules object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.event_text import Group, GroupFold
from panda_core.table.names import SeatNames

__all__ = ["Presenter"]


class Presenter(Protocol):
    round_word: str
    """What a round is called ("hand", "round")."""

    def describe(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> str:
        """One line of text for an event the seat saw."""
        ...

    def hand(self, view: Mapping[str, Any], book: CardBook) -> list[CardDict]:
        """The viewing seat's hand, each card with its current face."""
        ...

    def card_help(self, info: Mapping[str, Any], face: str | None, rules: Any) -> str:
        """The help line of a card (``cards()`` entry) showing ``face``, under ``rules``."""
        ...

    def table_area(
        self,
        view: Mapping[str, Any],
        book: CardBook,
        names: SeatNames,
        events: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        """What lies on the table: ``{"title", "plays": [{"player", "text", "cards",
        "describe"}], "to_beat", "notes"}`` (``events``: the seat's log, which says what each
        play on the table was)."""
        ...

    def move(
        self,
        move: Any,
        book: CardBook,
        view: Mapping[str, Any],
        game: Any = None,
        names: SeatNames | None = None,
    ) -> dict[str, Any]:
        """A legal move as a button shows it: ``{"text", "cards", "group", "rule"}`` (``game``
        classifies it, ``names`` names the seats it takes points from)."""
        ...

    def rule_of(self, move: Any, rules: Any = None) -> str:
        """The rule that allows a move, with its rule ID (``rules``: the game's words)."""
        ...

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        """The summary of a finished round."""
        ...

    def summary(self, rules: Any = None) -> str:
        """The rules in a few lines, with their rule IDs (with ``rules``: the game's numbers)."""
        ...

    def notation_legend(self, cards: Sequence[Mapping[str, Any]]) -> str:
        """How cards and moves are written, in words, from the deck's own catalogue
        (``game.cards()``): what an LLM agent's prompt explains."""
        ...

    def log_fold(self) -> GroupFold:
        """An empty fold that groups the seat's events for display (a deal, a trick, a pile),
        fed as the log grows."""
        ...

    def last_trick(
        self,
        events: Sequence[Mapping[str, Any]],
        book: CardBook,
        names: SeatNames,
        grouped: Sequence[Group] | None = None,
    ) -> dict[str, Any] | None:
        """The last finished trick or pile: ``{"title", "plays", "winner", "text"}``
        (``grouped``: the events' groups, ``log_fold()`` fed with them, when the caller has
        them)."""
        ...

    def seat_status(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> list[list[dict[str, str]]]:
        """Per seat, its status words now: ``[{"word", "text"}]``."""
        ...

    def places(
        self,
        placements: Sequence[int],
        scores: Sequence[int],
        events: Sequence[Mapping[str, Any]],
        names: SeatNames,
    ) -> list[dict[str, Any]]:
        """Game over by place (``placements``: the registry's, 0 first)."""
        ...
