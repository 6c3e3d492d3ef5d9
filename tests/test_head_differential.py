"""Differential test: the Rust engine against the pure-Python oracle, move by move (Part H, R).

Thousands of seeded full games over every H-7 variant combination and every player count, with
random legal moves; at every decision both implementations must agree on the current player, the
set of legal actions and the complete resulting state (hands, draw pile, piles, scores, hand
results, generator state). Size: ``HEAD_DIFFERENTIAL_GAMES`` from ``conftest.py`` (2,000 in CI,
20,000 with ``PANDA_PROFILE=slow``).
"""

from __future__ import annotations

import random

import pytest

from conftest import HEAD_DIFFERENTIAL_GAMES
from head_support import all_rule_combinations, both_rules, check_invariants, normalized
from panda_core import HeadGame
from panda_core.oracle.head import OracleHeadGame

COMBOS = all_rule_combinations()
SHARDS = 20


def play_and_compare(rust: HeadGame, orc: OracleHeadGame, chooser: random.Random) -> int:
    """Play both to the end with the same random choices; return the number of decisions."""
    assert normalized(rust.snapshot()) == orc.snapshot()
    decisions = 0
    while not rust.is_over:
        assert rust.current_player == orc.current_player
        legal = rust.legal_actions()
        assert legal == orc.legal_actions(), f"legal moves differ at decision {decisions}"
        assert list(rust.legal_action_mask().nonzero()[0]) == legal
        action = chooser.choice(legal)
        rust.apply(action)
        orc.apply(action)
        decisions += 1
        snap = rust.snapshot()
        check_invariants(rust, snap)
        assert normalized(snap) == orc.snapshot(), f"states differ after {decisions}"
        assert decisions < 200_000, "game did not end"
    assert orc.is_over and rust.winner == orc.winner
    return decisions


# The first shard runs in the inner loop (pytest -m "not slow"), all of them in CI.
@pytest.mark.parametrize(
    "shard", [0, *(pytest.param(k, marks=pytest.mark.slow) for k in range(1, SHARDS))]
)
@pytest.mark.slow
def test_r2_h_all_rules_rust_matches_oracle_on_seeded_games(shard: int) -> None:
    """R-2/R-3/R-4 dealing and every H rule, compared over seeded games of every variant."""
    games = 0
    for k in range(shard, HEAD_DIFFERENTIAL_GAMES, SHARDS):
        players = 2 + k % 4
        rules = COMBOS[(k // 4) % len(COMBOS)]
        rust_rules, oracle_rules = both_rules(players, {**rules, "first_dealer": k // 7})
        seed = (k * 0x9E3779B97F4A7C15 + 12345) % 2**64
        rust = HeadGame(players, seed, rust_rules)
        orc = OracleHeadGame.new(players, seed, oracle_rules)
        play_and_compare(rust, orc, random.Random(seed))
        games += 1
    assert games == len(range(shard, HEAD_DIFFERENTIAL_GAMES, SHARDS))
