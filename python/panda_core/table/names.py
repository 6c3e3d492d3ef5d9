"""How a table names its seats in the texts it shows."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SeatNames"]


class SeatNames:
    """``names(2)`` → ``"seat 2 (heuristic)"``; the viewing seat is ``"you"``."""

    def __init__(self, names: Sequence[str], viewer: int | None = None) -> None:
        self._names = list(names)
        self.viewer = viewer

    def __call__(self, seat: object) -> str:
        if not isinstance(seat, int) or not 0 <= seat < len(self._names):
            return "nobody"
        if seat == self.viewer:
            return "you"
        name = self._names[seat]
        return f"seat {seat}" if name == f"seat {seat}" else f"seat {seat} ({name})"

    def act(self, seat: object, you: str, they: str) -> str:
        """``"you pass"`` for the viewer, ``"seat 2 (heuristic) passes"`` for another seat."""
        return f"{self(seat)} {you if seat == self.viewer else they}"

    def list(self, seats: Sequence[int]) -> str:
        return ", ".join(self(s) for s in seats) or "nobody"
