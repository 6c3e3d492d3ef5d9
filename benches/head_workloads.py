"""Workloads shared by the Panda Head benchmarks: the same games for Rust and the oracle."""

from __future__ import annotations

import random

from panda_core import HeadGame
from panda_core.oracle.head import HeadRules as OracleRules
from panda_core.oracle.head import OracleHeadGame


def rust_positions(count: int, players: int = 4) -> list[HeadGame]:
    """Mid-hand positions (a few random moves in), leading and following mixed."""
    out = []
    rng = random.Random(1)
    for seed in range(count):
        game = HeadGame(players, seed)
        for _ in range(rng.randrange(0, 20)):
            game.apply(rng.choice(game.legal_actions()))
        out.append(game)
    return out


def oracle_positions(count: int, players: int = 4) -> list[OracleHeadGame]:
    out = []
    rng = random.Random(1)
    for seed in range(count):
        game = OracleHeadGame.new(players, seed, OracleRules())
        for _ in range(rng.randrange(0, 20)):
            game.apply(rng.choice(game.legal_actions()))
        out.append(game)
    return out


def oracle_hand(seed: int, players: int = 4) -> int:
    """One random hand (7 piles) in the oracle; the number of decisions."""
    game = OracleHeadGame.new(players, seed, OracleRules())
    rng = random.Random(seed)
    decisions = 0
    hand = game.snapshot()["hand_number"]
    while True:
        game.apply(rng.choice(game.legal_actions()))
        decisions += 1
        if game.is_over or game.snapshot()["hand_number"] != hand:
            return decisions


def oracle_game(seed: int, players: int = 4) -> int:
    game = OracleHeadGame.new(players, seed, OracleRules())
    rng = random.Random(seed)
    decisions = 0
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        decisions += 1
    return decisions


def rust_python_driven_game(seed: int, players: int = 4) -> int:
    """A full game driven from Python one call at a time: legal moves, pick, apply."""
    game = HeadGame(players, seed)
    rng = random.Random(seed)
    decisions = 0
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
        decisions += 1
    return decisions
