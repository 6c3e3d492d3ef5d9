"""Differential test for the climbing games: Rust engine against the pure-Python oracle.

Seeded full games of `year` (moods hungry and flip) and `spin`, 2–5 players, random legal moves;
at every decision both must agree on the current player, the legal-move list (canonical order,
docs/climb_interface.md §5) and the complete state (§7). Invariants are checked at every step.
Size: ``CLIMB_DIFFERENTIAL_GAMES`` per edition from ``conftest.py`` (300 in CI, 3,400 per edition
with ``PANDA_PROFILE=slow``: 10,200 games).
"""

from __future__ import annotations

import random

import pytest

from climb_support import EDITIONS, both_games, play_and_compare
from conftest import CLIMB_DIFFERENTIAL_GAMES

SHARDS = 6


@pytest.mark.parametrize(("preset", "mood"), EDITIONS)
# The first shard runs in the inner loop (pytest -m "not slow"), all of them in CI.
@pytest.mark.parametrize(
    "shard", [0, *(pytest.param(k, marks=pytest.mark.slow) for k in range(1, SHARDS))]
)
@pytest.mark.slow
def test_s_all_rules_rust_matches_oracle_on_seeded_games(
    preset: str, mood: str, shard: int
) -> None:
    """S-3 … S-12 and R-2/R-3/R-4, compared move by move over seeded games."""
    played = 0
    for k in range(shard, CLIMB_DIFFERENTIAL_GAMES, SHARDS):
        players = 2 + k % 4
        seed = (k * 0x9E3779B97F4A7C15 + 777) % 2**64
        rust, orc = both_games(preset, mood, players, seed, first_player=(k // 4) % players)
        play_and_compare(rust, orc, random.Random(seed))
        played += 1
    assert played == len(range(shard, CLIMB_DIFFERENTIAL_GAMES, SHARDS))
