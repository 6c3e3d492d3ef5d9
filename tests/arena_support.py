"""Helpers shared by the arena's test files (test_arena.py, test_arena_hostile.py)."""

from __future__ import annotations

import json
from pathlib import Path


class StopAfter:
    """A progress callback pressing Ctrl-C once ``n`` games are done."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __call__(self, done: int, total: int) -> None:
        if done >= self.n:
            raise KeyboardInterrupt


def result_lines(folder: Path) -> list[dict[str, object]]:
    """The game lines of a results folder, parsed."""
    return [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
