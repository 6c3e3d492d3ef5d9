"""Panda Head: Rust engine vs the pure-Python oracle, and batch throughput.

Groups pair a Rust benchmark with its oracle twin, so ``benches/report.py`` can print ratios.
"""

from __future__ import annotations

import itertools
from typing import Any

from head_workloads import (
    oracle_game,
    oracle_hand,
    oracle_positions,
    rust_positions,
    rust_python_driven_game,
)
from panda_core import simulate
from panda_core._core import simulate_head_hands

POSITIONS = 200


def test_legal_moves_rust(benchmark: Any) -> None:
    games = rust_positions(POSITIONS)
    benchmark.group = "head legal moves x200"
    benchmark(lambda: [g.legal_actions() for g in games])


def test_legal_moves_oracle(benchmark: Any) -> None:
    games = oracle_positions(POSITIONS)
    benchmark.group = "head legal moves x200"
    benchmark(lambda: [g.legal_actions() for g in games])


HANDS_PER_ROUND = 20_000


def test_hand_rust(benchmark: Any) -> None:
    """Random 4-player hands played entirely in Rust (per-hand time = mean / 20,000)."""
    benchmark.group = "head one hand"
    benchmark.extra_info["hands_per_call"] = HANDS_PER_ROUND
    seeds = itertools.count()
    benchmark(lambda: simulate_head_hands(HANDS_PER_ROUND, 4, next(seeds)))


def test_hand_oracle(benchmark: Any) -> None:
    benchmark.group = "head one hand"
    benchmark.extra_info["hands_per_call"] = 1
    seeds = itertools.count()
    benchmark(lambda: oracle_hand(next(seeds)))


GAMES_PER_ROUND = 1_000


def test_game_rust(benchmark: Any) -> None:
    """Complete 4-player random games in Rust, one thread (per-game = mean / 1,000)."""
    benchmark.group = "head one game"
    benchmark.extra_info["games_per_call"] = GAMES_PER_ROUND
    seeds = itertools.count()
    benchmark(lambda: simulate(GAMES_PER_ROUND, players=4, seed=next(seeds), threads=1))


def test_game_rust_python_driven(benchmark: Any) -> None:
    """One complete game driven from Python: legal_actions, pick, apply, per decision."""
    benchmark.group = "head one game"
    benchmark.extra_info["games_per_call"] = 1
    seeds = itertools.count()
    benchmark(lambda: rust_python_driven_game(next(seeds)))


def test_game_oracle(benchmark: Any) -> None:
    benchmark.group = "head one game"
    benchmark.extra_info["games_per_call"] = 1
    seeds = itertools.count()
    benchmark.pedantic(lambda: oracle_game(next(seeds)), rounds=10, iterations=1)


def test_batch_throughput_one_thread(benchmark: Any) -> None:
    """Batch entry point, 4-player random hands, one thread: hands per second."""
    benchmark.group = "head batch"
    hands = 100_000
    benchmark.extra_info["hands_per_call"] = hands
    benchmark.pedantic(lambda: simulate_head_hands(hands, 4, 7), rounds=5, iterations=1)


def test_batch_games_all_threads(benchmark: Any) -> None:
    benchmark.group = "head batch"
    games = 20_000
    result = simulate(games, players=4, seed=1)
    benchmark.extra_info["games_per_call"] = games
    benchmark.extra_info["hands_per_call"] = int(result.hands.sum())
    benchmark.pedantic(lambda: simulate(games, players=4, seed=1), rounds=5, iterations=1)
