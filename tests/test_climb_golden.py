"""Golden playthroughs of the climbing games (OpenSpiel style), like test_head_golden.py: complete
seeded games of `year` (both moods) and `spin` written as text under tests/golden/. Any change in
dealing, faces, legal moves, symbols, scoring or notation shows up as a diff.

Both the Rust engine and the oracle must reproduce every file. After an intended change of the
rules or the format, regenerate and review the diff:
``PANDA_REGEN_GOLDEN=1 python -m pytest tests/test_climb_golden.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from panda_core import ClimbGame, ClimbSettings
from panda_core.oracle.climb import ClimbSettings as OracleSettings
from panda_core.oracle.climb import OracleClimbGame

GOLDEN = Path(__file__).with_name("golden")
CASES: dict[str, tuple[int, int, str, str]] = {
    "climb_year_3p_hungry_seed7": (3, 7, "year", "hungry"),
    "climb_year_4p_flip_seed2026": (4, 2026, "year", "flip"),
    "climb_spin_5p_seed99": (5, 99, "spin", "hungry"),
}
SUITS = ("Fi", "Ea", "Wo", "Wa", "Me")
RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")


def token(card: int, blue: set[int]) -> str:
    if card >= 65:
        return f"{SUITS[card - 65]}!"
    face = "*" if card in blue else ""
    return f"{SUITS[card // 13]}{RANKS[card % 13]}{face}"


def cards(ids: list[int], blue: set[int]) -> str:
    return " ".join(token(c, blue) for c in ids) or "-"


def playthrough(game: Any, notations: Callable[[Any], list[tuple[Any, str]]], header: str) -> str:
    """The text of a game where step k plays legal[(7k) mod len(legal)] (blue faces marked *)."""
    lines = [header]
    step, round_ = 0, -1
    while True:
        snap = game.snapshot()
        if snap["game_over"]:
            break
        blue = set(snap["blue"])
        if snap["round"] != round_:
            round_ = snap["round"]
            lines.append(f"== round {round_} starter {snap['starter']} scores {snap['scores']}")
            for seat, held in enumerate(snap["hands"]):
                lines.append(f"   seat {seat}: {cards(held, blue)}")
            lines.append(f"   draw pile: {cards(snap['draw_pile'], blue)}")
        legal = notations(game)
        move, text = legal[(7 * step) % len(legal)]
        lines.append(
            f"{step:4d} seat {snap['current_player']} ({len(legal)} legal) -> {text}"
            f"   | scores {snap['scores']}"
        )
        game.apply(move)
        step += 1
    snap = game.snapshot()
    lines.append(
        f"== over after {step} decisions: winner {snap['winner']}, scores {snap['scores']}"
    )
    return "\n".join(lines) + "\n"


def rust_text(players: int, seed: int, preset: str, mood: str) -> str:
    game = ClimbGame(players, seed, ClimbSettings(preset=preset, panda_mood=mood))  # type: ignore[arg-type]
    header = f"# {preset} ({mood}), {players} players, seed {seed}"
    return playthrough(game, lambda g: [(m, m.notation) for m in g.legal_moves()], header)


def oracle_text(players: int, seed: int, preset: str, mood: str) -> str:
    game = OracleClimbGame.new(players, seed, OracleSettings(preset=preset, panda_mood=mood))
    header = f"# {preset} ({mood}), {players} players, seed {seed}"
    return playthrough(game, lambda g: [(m, g.notation(m)) for m in g.legal_moves()], header)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rust_reproduces_golden(name: str) -> None:
    text = rust_text(*CASES[name])
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("PANDA_REGEN_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(CASES))
def test_oracle_reproduces_golden(name: str) -> None:
    assert oracle_text(*CASES[name]) == (GOLDEN / f"{name}.txt").read_text()
