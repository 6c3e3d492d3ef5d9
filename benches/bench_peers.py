"""Peers measured in the same run: OpenSpiel's hearts (skipped when open-spiel is absent).

* whole games in C++ through ``pyspiel.evaluate_bots`` with uniform random bots, against our
  batch entry point (Rust, one thread);
* a Python-driven loop (legal actions, pick, apply, one call at a time) on both sides.

Decisions per second are the comparable unit: ``extra_info["decisions_per_call"]`` records how
many player decisions one benchmarked call makes (chance nodes are not decisions).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from head_workloads import rust_python_driven_game
from openspiel_peers import mean_decisions, python_driven_game
from panda_core import simulate

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")

HEARTS_GAMES = 50


def hearts_python_driven(seed: int) -> int:
    return python_driven_game(pyspiel, "hearts", seed)


def hearts_decisions_per_game() -> float:
    return mean_decisions(pyspiel, "hearts")


def test_hearts_evaluate_bots_cpp(benchmark: Any) -> None:
    game = pyspiel.load_game("hearts")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(4)]
    benchmark.group = "peer: whole games in native code"
    benchmark.extra_info["decisions_per_call"] = HEARTS_GAMES * hearts_decisions_per_game()
    seeds = itertools.count()

    def run() -> None:
        for _ in range(HEARTS_GAMES):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, next(seeds))

    benchmark(run)


def test_head_batch_rust_one_thread(benchmark: Any) -> None:
    games = 2_000
    result = simulate(games, players=4, seed=5, threads=1)
    benchmark.group = "peer: whole games in native code"
    benchmark.extra_info["decisions_per_call"] = int(result.decisions.sum())
    benchmark(lambda: simulate(games, players=4, seed=5, threads=1))


def test_hearts_python_driven(benchmark: Any) -> None:
    benchmark.group = "peer: Python-driven loop"
    benchmark.extra_info["decisions_per_call"] = hearts_decisions_per_game()
    seeds = itertools.count()
    benchmark(lambda: hearts_python_driven(next(seeds) % 20))


def test_head_python_driven(benchmark: Any) -> None:
    benchmark.group = "peer: Python-driven loop"
    decisions = sum(rust_python_driven_game(s) for s in range(20)) / 20
    benchmark.extra_info["decisions_per_call"] = decisions
    seeds = itertools.count()
    benchmark(lambda: rust_python_driven_game(next(seeds) % 20))
