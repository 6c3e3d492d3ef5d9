"""What a typed line means, and which legal moves are on the screen (pages and a filter).

A climbing hand can have 100 legal moves, far more than 24 lines hold: the moves are numbered
once (1, 2, … in the table model's order), shown a page at a time, and ``/text`` narrows them to
those whose notation or text contains ``text``. The numbers never change while paging or
filtering, so "12" always means the same move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Legal = dict[str, Any]


@dataclass(frozen=True)
class Command:
    """One line of input: ``kind`` is ``pick`` (``number``), ``notation`` (``text``), ``next``,
    ``prev``, ``filter`` (``text``), ``help``, ``explain`` (``text``: ``? 12``, ``? Ea8``),
    ``log``, ``last``, ``quit`` or ``empty``."""

    kind: str
    number: int = 0
    text: str = ""


def parse_line(line: str) -> Command:
    """A line (already checked for length and control characters) as a command.

    A number is always a move number; anything that is not a command word is passed on as a
    move's notation (the engine parses it). Panda Head's notations "7" are numbers too, so typed
    notation can be written ``=7`` (``=`` forces notation).
    """
    if line == "":
        return Command("empty")
    low = line.lower()
    if low in ("?", "h", "help"):
        return Command("help")
    if line.startswith("?"):
        return Command("explain", text=line[1:].strip())
    if low in ("l", "log"):
        return Command("log")
    if low in ("t", "last"):
        return Command("last")
    if low in ("q", "quit", "exit"):
        return Command("quit")
    if low in ("n", "next", "+"):
        return Command("next")
    if low in ("p", "prev", "-"):
        return Command("prev")
    if line.startswith("/"):
        return Command("filter", text=line[1:].strip())
    if line.startswith("="):
        return Command("notation", text=line[1:].strip())
    if line.isdigit():
        return Command("pick", number=int(line[:9]) if len(line) <= 9 else 10**9)
    return Command("notation", text=line)


@dataclass
class MovePicker:
    """The legal moves of one turn, numbered from 1, with the page and filter on screen."""

    legal: list[Legal]
    per_page: int = 10
    page: int = 0
    filter: str = ""
    _numbered: list[tuple[int, Legal]] = field(init=False)

    def __post_init__(self) -> None:
        # Numbered in the table model's group order (passes, singles, pairs…) when its moves
        # carry one, else in its list order; ``legal`` follows the numbers.
        self.legal = sorted(self.legal, key=_group_order)
        self._numbered = [(k + 1, m) for k, m in enumerate(self.legal)]

    def matching(self) -> list[tuple[int, Legal]]:
        if not self.filter:
            return self._numbered
        needle = self.filter.lower()
        return [(k, m) for k, m in self._numbered if needle in _searchable(m)]

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.matching()) // max(1, self.per_page)))

    def shown(self) -> list[tuple[int, Legal]]:
        """The numbered moves of the current page (the page is kept in range)."""
        self.page = min(max(self.page, 0), self.pages - 1)
        start = self.page * self.per_page
        return self.matching()[start : start + self.per_page]

    def turn_page(self, step: int) -> str:
        """Go ``step`` pages on; the message to show when there is no such page."""
        target = self.page + step
        if not 0 <= target < self.pages:
            return "no more moves that way" if self.pages > 1 else "all the moves are on the screen"
        self.page = target
        return ""

    def set_filter(self, text: str) -> str:
        self.filter, self.page = text, 0
        if text and not self.matching():
            self.filter = ""
            return f'no legal move contains "{text[:30]}"; showing all'
        return ""

    def index_of(self, number: int) -> int | None:
        """The table model's legal-move index for a move number, ``None`` if out of range."""
        if 1 <= number <= len(self.legal):
            return int(self.legal[number - 1]["index"])
        return None


def _group_order(move: Legal) -> tuple[int, int]:
    group = move.get("group") or {}
    order = group.get("order") if isinstance(group, dict) else None
    return (int(order) if isinstance(order, int) else 0, int(move.get("index", 0)))


def _searchable(move: Legal) -> str:
    group = move.get("group") or {}
    label = group.get("label", "") if isinstance(group, dict) else ""
    return f"{move.get('notation', '')}\n{move.get('text', '')}\n{label}".lower()
