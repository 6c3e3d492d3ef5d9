"""Helpers shared by the climbing-game tests: settings grids, invariants, Rust/oracle comparison."""

from __future__ import annotations

import itertools
import random
from typing import Any

from panda_core import ClimbGame, ClimbSettings
from panda_core.oracle.climb import ClimbSettings as OracleSettings
from panda_core.oracle.climb import Move, OracleClimbGame

#: (preset, panda_mood) pairs: `year` in both moods, `spin` (which ignores the mood).
EDITIONS = [("year", "hungry"), ("year", "flip"), ("spin", "hungry")]


def editions_by_players() -> list[tuple[str, str, int]]:
    return [(p, m, n) for (p, m), n in itertools.product(EDITIONS, range(2, 6))]


def both_games(
    preset: str, mood: str, players: int, seed: int, first_player: int = 0
) -> tuple[ClimbGame, OracleClimbGame]:
    rust = ClimbGame(
        players, seed, ClimbSettings(preset=preset, panda_mood=mood, first_player=first_player)
    )
    orc = OracleClimbGame.new(
        players, seed, OracleSettings(preset=preset, panda_mood=mood, first_player=first_player)
    )
    return rust, orc


def check_invariants(snap: dict[str, Any], previous: dict[str, Any] | None) -> None:
    """Every card in exactly one place; faces only white→blue within a round; scores ≥ 0."""
    places: list[int] = [c for hand in snap["hands"] for c in hand]
    places += snap["draw_pile"] + snap["discard"] + snap["out"]
    places += [c for cards in snap["trick"]["played"] for c in cards]
    assert sorted(places) == list(range(70)), "a card is missing or in two places"
    assert all(s >= 0 for s in snap["scores"])
    if previous is not None and previous["round"] == snap["round"] and not snap["game_over"]:
        on_table_or_hand = set(places) - set(snap["draw_pile"]) - set(snap["discard"])
        lost_blue = (set(previous["blue"]) & on_table_or_hand) - set(snap["blue"])
        assert not lost_blue, f"cards turned back to white within a round: {sorted(lost_blue)}"


def play_and_compare(
    rust: ClimbGame, orc: OracleClimbGame, chooser: random.Random, max_moves: int = 20_000
) -> int:
    """Play both to the end with the same random choices, comparing at every decision."""
    snap = rust.snapshot()
    assert snap == orc.snapshot()
    previous = None
    moves = 0
    while not rust.is_over:
        assert rust.current_player == orc.current_player
        legal = [m.to_json() for m in rust.legal_moves()]
        assert legal == [m.to_json() for m in orc.legal_moves()], f"legal moves differ at {moves}"
        choice = chooser.randrange(len(legal))
        rust.apply(rust.legal_moves()[choice])
        orc.apply(Move.from_json(legal[choice]))
        moves += 1
        previous, snap = snap, rust.snapshot()
        check_invariants(snap, previous)
        assert snap == orc.snapshot(), f"states differ after move {moves}: {legal[choice]}"
        assert moves < max_moves, "game did not end"
    assert orc.is_over and rust.winner == orc.winner
    return moves
