"""The Python bot of the arena benchmarks (bench_arena.py), in a module of its own: worker
processes and Ray workers import it by path (``arena_bench_bots:first_legal``), and a small
module keeps their start cheap."""

from __future__ import annotations

from typing import Any


def first_legal(game: Any, player: int) -> int:
    """The lowest legal action id: a Python bot whose own cost is next to nothing, so the
    benchmark measures the arena and its backend, not the bot."""
    return int(game.legal_actions()[0])
