"""Hypothesis: random climbing-game positions give identical legal-move lists in Rust and in the
oracle, and identical play from there to the end of the game.

A position is reached by random play, then pushed into corners play reaches rarely: many hand
cards turned to their blue faces (wild fire units, Water pairs, panda and bamboo symbols in every
hand: S-1.5, S-4.5, S-4.6, S-7) and scores moved close to the end of the game (S-7.4's room under
19, S-10). Both engines rebuild the position from the same snapshot (contract §9).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from climb_support import EDITIONS, play_and_compare
from panda_core import ClimbGame, ClimbSettings
from panda_core.oracle.climb import Move, OracleClimbGame


@st.composite
def positions(draw: st.DrawFn) -> tuple[dict[str, Any], int]:
    preset, mood = draw(st.sampled_from(EDITIONS))
    players = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**64 - 1))
    rust = ClimbGame(players, seed, ClimbSettings(preset=preset, panda_mood=mood))  # type: ignore[arg-type]
    rng = random.Random(seed)
    for _ in range(draw(st.integers(0, 60))):
        if rust.is_over:
            break
        legal = rust.legal_moves()
        move = legal[rng.randrange(len(legal))]
        rust.apply(move)
    snap = rust.snapshot()
    if snap["game_over"]:
        return snap, seed
    white_in_hands = sorted(
        c for hand in snap["hands"] for c in hand if c < 65 and c not in snap["blue"]
    )
    turn = draw(st.sets(st.sampled_from(white_in_hands))) if white_in_hands else set()
    snap["blue"] = sorted(set(snap["blue"]) | turn)
    limit = 14 if preset == "year" else 19
    snap["scores"] = [draw(st.integers(0, limit)) for _ in range(players)]
    return snap, seed


@pytest.mark.slow  # a long differential run: random positions against the oracle
@given(positions())
def test_s4_s5_s7_random_positions_agree(position: tuple[dict[str, Any], int]) -> None:
    snap, seed = position
    if snap["game_over"]:
        return
    rust = ClimbGame.from_snapshot(snap)
    orc = OracleClimbGame.from_snapshot(snap)
    assert rust.snapshot() == orc.snapshot() == snap
    rust_moves = [m.to_json() for m in rust.legal_moves()]
    assert rust_moves == [m.to_json() for m in orc.legal_moves()]
    for m in rust.legal_moves()[:20]:
        info = rust.move_info(m)
        assert len(info["faces"]) == len(m.cards)
        if m.kind in ("single", "set", "run", "formation", "bomb"):
            assert info["combo"] is not None and info["combo"]["kind"] == m.kind
    play_and_compare(rust, orc, random.Random(seed))
    assert Move.from_json(rust_moves[0]).to_json() == rust_moves[0]
