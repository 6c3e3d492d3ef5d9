"""Climbing games (`year`, `spin`): Rust engine vs the pure-Python oracle, batch throughput, and
OpenSpiel's dou_dizhu as a peer in the same run (skipped when open-spiel is absent).

Ratios: ``python benches/report.py bench.json``.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from openspiel_peers import mean_decisions, python_driven_game
from panda_core import ClimbGame, ClimbSettings
from panda_core._core import climb_classify, simulate_climb_batch
from panda_core.oracle.climb import ClimbSettings as OracleSettings
from panda_core.oracle.climb import OracleClimbGame


def positions(count: int, *, leading: bool) -> tuple[list[ClimbGame], list[OracleClimbGame]]:
    """4-player `year` positions with 12-card hands: at the first lead of round 1, or at the
    first following decision (one random lead played)."""
    rust, orc = [], []
    for seed in range(count):
        r = ClimbGame(4, seed, ClimbSettings(preset="year"))
        o = OracleClimbGame.new(4, seed, OracleSettings(preset="year"))
        if not leading:
            rng = random.Random(seed)
            plays = [m for m in r.legal_moves() if m.kind != "discard_element"]
            move = plays[rng.randrange(len(plays))]
            r.apply(move)
            o.apply(next(m for m in o.legal_moves() if m.to_json() == move.to_json()))
        rust.append(r)
        orc.append(o)
    return rust, orc


@pytest.mark.parametrize("leading", [True, False], ids=["lead", "follow"])
def test_climb_movegen_rust(benchmark: Any, leading: bool) -> None:
    rust, _ = positions(100, leading=leading)
    benchmark.group = f"climb legal moves x100 ({'lead' if leading else 'follow'})"
    benchmark(lambda: [g.legal_moves() for g in rust])


@pytest.mark.parametrize("leading", [True, False], ids=["lead", "follow"])
def test_climb_movegen_oracle(benchmark: Any, leading: bool) -> None:
    _, orc = positions(100, leading=leading)
    benchmark.group = f"climb legal moves x100 ({'lead' if leading else 'follow'})"

    def run() -> None:
        for g in orc:
            g._legal_cache = None  # the oracle caches per position; measure the generation
            g.legal_moves()

    benchmark(run)


def random_round_oracle(seed: int) -> int:
    game = OracleClimbGame.new(4, seed, OracleSettings(preset="year"))
    rng = random.Random(seed)
    moves = 0
    while not game.is_over and game.snapshot()["round"] == 1:
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
        moves += 1
    return moves


def random_round_rust(seed: int) -> int:
    game = ClimbGame(4, seed, ClimbSettings(preset="year"))
    rng = random.Random(seed)
    moves = 0
    while not game.is_over and game.round == 1:
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
        moves += 1
    return moves


def test_climb_round_rust_python_driven(benchmark: Any) -> None:
    benchmark.group = "climb one 4-player round"
    seeds = itertools.count()
    benchmark(lambda: random_round_rust(next(seeds)))


def test_climb_round_oracle(benchmark: Any) -> None:
    benchmark.group = "climb one 4-player round"
    seeds = itertools.count()
    benchmark.pedantic(lambda: random_round_oracle(next(seeds)), rounds=10, iterations=1)


@pytest.mark.parametrize("preset", ["year", "spin"])
def test_climb_batch_one_thread(benchmark: Any, preset: str) -> None:
    games = 500
    settings = ClimbSettings(preset=preset)
    result = simulate_climb_batch(games, 4, ["random"] * 4, 3, settings, 1)
    benchmark.group = "peer: whole games in native code"
    benchmark.extra_info["decisions_per_call"] = int(result["decisions"].sum())
    benchmark.extra_info["rounds_per_call"] = int(result["rounds"].sum())
    benchmark(lambda: simulate_climb_batch(games, 4, ["random"] * 4, 3, settings, 1))


def dou_dizhu_python_driven(seed: int) -> int:
    pyspiel = pytest.importorskip("pyspiel")
    return python_driven_game(pyspiel, "dou_dizhu", seed)


def test_dou_dizhu_evaluate_bots_cpp(benchmark: Any) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")
    game = pyspiel.load_game("dou_dizhu")
    bots = [pyspiel.make_uniform_random_bot(p, 99 + p) for p in range(3)]
    games = 200
    benchmark.group = "peer: whole games in native code"
    per_game = mean_decisions(pyspiel, "dou_dizhu")
    benchmark.extra_info["decisions_per_call"] = games * per_game
    seeds = itertools.count()

    def run() -> None:
        for _ in range(games):
            pyspiel.evaluate_bots(game.new_initial_state(), bots, next(seeds))

    benchmark(run)


def test_dou_dizhu_python_driven(benchmark: Any) -> None:
    pytest.importorskip("pyspiel", reason="open-spiel is not installed")
    benchmark.group = "peer: Python-driven loop"
    benchmark.extra_info["decisions_per_call"] = (
        sum(dou_dizhu_python_driven(s) for s in range(10)) / 10
    )
    seeds = itertools.count()
    benchmark(lambda: dou_dizhu_python_driven(next(seeds) % 10))


def rust_year_python_driven(seed: int) -> int:
    game = ClimbGame(4, seed, ClimbSettings(preset="year"))
    rng = random.Random(seed)
    decisions = 0
    while not game.is_over:
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])
        decisions += 1
    return decisions


def test_year_python_driven(benchmark: Any) -> None:
    benchmark.group = "peer: Python-driven loop"
    benchmark.extra_info["decisions_per_call"] = (
        sum(rust_year_python_driven(s) for s in range(10)) / 10
    )
    seeds = itertools.count()
    benchmark(lambda: rust_year_python_driven(next(seeds) % 10))


def random_plays(count: int) -> list[tuple[list[int], list[str], list[int]]]:
    """Random card sets (1–6 cards) with random faces and named wild ranks."""
    from panda_core.oracle.climb_deck import default_deck

    deck = default_deck()
    rng = random.Random(5)
    out = []
    for _ in range(count):
        cards = sorted(rng.sample(range(65), rng.randint(1, 6)))
        faces = [rng.choice(["white", "blue"]) for _ in cards]
        named = [
            rng.randrange(13)
            for c, f in zip(cards, faces, strict=True)
            if f == "blue"
            for _ in range(deck.animals[c].blue.wilds)
        ]
        out.append((cards, faces, named))
    return out


def test_climb_classify_rust(benchmark: Any) -> None:
    plays = random_plays(500)
    benchmark.group = "climb classification x500"
    benchmark(lambda: [climb_classify(c, f, n) for c, f, n in plays])  # type: ignore[arg-type]


def test_climb_classify_oracle(benchmark: Any) -> None:
    from panda_core.oracle.climb import classify
    from panda_core.oracle.climb_deck import default_deck

    deck = default_deck()
    plays = random_plays(500)
    benchmark.group = "climb classification x500"
    benchmark(lambda: [classify(c, f, n, deck) for c, f, n in plays])
