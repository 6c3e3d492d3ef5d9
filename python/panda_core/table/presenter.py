"""What a table needs to know about a game to show it: the words, not the rules.

Each game has one presenter (``panda_core.table.head_text``, ``panda_core.table.climb_text``),
chosen by the registry (``GameSpec.presenter``). A presenter turns the engine's views, moves and
events into display text and card lists; every fact it shows comes from the engine (the view,
the event, the move object, the deck's card catalogue).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from panda_core.table.cards import CardBook, CardDict
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

    def table_area(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> dict[str, Any]:
        """What lies on the table: ``{"title", "plays": [{"player", "text", "cards"}],
        "to_beat", "notes"}``."""
        ...

    def move(self, move: Any, book: CardBook, view: Mapping[str, Any]) -> dict[str, Any]:
        """A legal move as a button shows it: ``{"text", "cards"}``."""
        ...

    def rule_of(self, move: Any) -> str:
        """The rule that allows a move, with its rule ID."""
        ...

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        """The summary of a finished round."""
        ...

    def summary(self) -> str:
        """The rules in a few lines, with their rule IDs."""
        ...

    def notation_legend(self, cards: Sequence[Mapping[str, Any]]) -> str:
        """How cards and moves are written, in words, from the deck's own catalogue
        (``game.cards()``): what an LLM agent's prompt explains."""
        ...
