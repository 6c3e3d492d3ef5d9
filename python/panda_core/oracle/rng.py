"""SplitMix64 generator (R-1, docs/rules/README.md) and the deterministic shuffle (R-3).

Pure standard-library Python; part of the independent oracle.
"""

from __future__ import annotations

from typing import TypeVar

MASK64 = (1 << 64) - 1
"""All SplitMix64 arithmetic is modulo 2^64 (R-1)."""

_GOLDEN_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB

T = TypeVar("T")


def _is_u64(x: object) -> bool:
    """True for an int (not a bool) in 0 .. 2^64 - 1."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MASK64


class SplitMix64:
    """SplitMix64 on a 64-bit state, exactly as R-1 writes it.

    ``state`` is the public 64-bit state; ``next()`` advances it and returns one output.
    """

    def __init__(self, state: int) -> None:
        # a seed is an integer in 0 .. 2^64 - 1; anything else is refused.
        if not _is_u64(state):
            raise ValueError(f"SplitMix64 state must be an int in 0..2**64-1, got {state!r}")
        self.state: int = state

    def next(self) -> int:
        """Advance the state and return the next 64-bit output (R-1)."""
        # state += 0x9E3779B97F4A7C15; z = state
        self.state = (self.state + _GOLDEN_GAMMA) & MASK64
        z = self.state
        # z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        # z = (z ^ (z >> 27)) * 0x94D049BB133111EB
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        # output z ^ (z >> 31)
        return z ^ (z >> 31)


def shuffle(items: list[T], rng: SplitMix64) -> None:
    """Shuffle ``items`` in place with ``rng`` (R-3).

    For ``i`` from ``len - 1`` down to ``1``: ``j = next() % (i + 1)``; swap items ``i`` and ``j``.
    """
    for i in range(len(items) - 1, 0, -1):
        j = rng.next() % (i + 1)
        items[i], items[j] = items[j], items[i]
