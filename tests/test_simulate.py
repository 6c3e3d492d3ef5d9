"""Batch simulation (Rust, GIL released) and the ``panda-core simulate`` command."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from panda_core import ArgumentError, HeadRules, RulesError, simulate
from panda_core._core import simulate_head_batch
from panda_core.cli import main


def test_batch_arrays_shapes_and_invariants() -> None:
    result = simulate(500, players=3, seed=5)
    assert result.winner.dtype == np.int8 and result.winner.shape == (500,)
    assert result.hands.dtype == np.uint32 and result.scores.shape == (500, 3)
    assert set(np.unique(result.winner)) <= {0, 1, 2}
    # Every game ends, lasts at least one hand of 7 piles, and its winner is the only survivor:
    # its score is within the threshold while a loser is above it (H-6).
    assert (result.hands >= 1).all() and (result.decisions >= 7 * 2).all()
    rows = np.arange(500)
    assert (result.scores[rows, result.winner] <= 21).all()
    assert np.isclose(result.win_rates().sum(), 1.0)


def test_batch_is_deterministic_for_any_thread_count_and_chunking() -> None:
    one = simulate(700, players=4, seed=99, threads=1)
    two = simulate(700, players=4, seed=99, threads=2)
    chunked = simulate(700, players=4, seed=99, chunk=64)
    for other in (two, chunked):
        assert (one.winner == other.winner).all()
        assert (one.scores == other.scores).all()
        assert (one.hands == other.hands).all()
    different = simulate(700, players=4, seed=100)
    assert not (one.scores == different.scores).all()


def test_batch_game_k_is_the_game_dealt_from_the_kth_seed_output() -> None:
    """Game k of a batch replays as a single game from seed SplitMix64(seed).output(k)."""
    from panda_core.oracle.rng import SplitMix64

    gen = SplitMix64(42)
    seeds = [gen.next() for _ in range(3)]
    batch = simulate_head_batch(3, 4, ["random"] * 4, 42)
    singles = [simulate_head_batch(1, 4, ["random"] * 4, 42, first_game=k) for k in range(3)]
    assert [int(s["winner"][0]) for s in singles] == [int(w) for w in batch["winner"]]
    assert len(set(seeds)) == 3


def test_heuristic_beats_random() -> None:
    result = simulate(2000, players=4, bots=["heuristic", "random", "random", "random"], seed=1)
    rates = result.win_rates()
    assert rates[0] > 0.5 > max(rates[1:])
    assert result.win_rates_by_bot()["heuristic"] == pytest.approx(rates[0])


def test_rules_are_passed_through() -> None:
    low = simulate(300, players=2, seed=3, rules=HeadRules(bust_threshold=3))
    high = simulate(300, players=2, seed=3, rules=HeadRules(bust_threshold=60))
    assert low.hands.mean() < high.hands.mean()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bots": ["random", "genius"]}, "unknown bot"),
        ({"players": 4, "bots": ["random"] * 3}, "one bot per player"),
        ({"players": 6, "bots": ["random"] * 6}, "2 to 5"),
        ({"game": "chess"}, "unknown game"),
        ({"seed": -1}, "seed"),
        ({"threads": 0}, "threads"),
    ],
)
def test_bad_requests_are_refused(kwargs: dict[str, object], message: str) -> None:
    # threads out of range is an ArgumentError (issue 8), the others RulesErrors.
    with pytest.raises(ArgumentError if "threads" in kwargs else RulesError, match=message):
        simulate(10, **kwargs)  # type: ignore[arg-type]


def test_cli_simulate_prints_results_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["simulate", "--games", "300", "--players", "3", "--bots", "heuristic,random"])
    out = capsys.readouterr().out
    assert code == 0
    assert "win rate" in out and "games/s" in out and "mean hands per game" in out
    assert out.count("heuristic") >= 2 and "random" in out


def test_cli_json_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "-n", "50", "--players", "2", "--json", "--seed", "8"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 50 and len(doc["win_rate_by_seat"]) == 2
    assert main(["simulate", "-n", "5", "--players", "9"]) == 2
    assert "2 to 5 players" in capsys.readouterr().err


def test_console_script_entry_point() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "panda_core.cli", "simulate", "-n", "20", "-q"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "seat" in out


@pytest.mark.parametrize("game", ["year", "spin"])
def test_climb_batch_deterministic_and_ends(game: str) -> None:
    one = simulate(300, game=game, players=3, seed=4, threads=1)
    two = simulate(300, game=game, players=3, seed=4, threads=2, chunk=50)
    assert (one.winner == two.winner).all() and (one.scores == two.scores).all()
    assert (one.rounds >= 1).all() and (one.decisions > 0).all()
    rows = np.arange(300)
    # S-10: the winner has the highest score (year: ties broken by the rules; spin: 20+).
    assert (one.scores[rows, one.winner] == one.scores.max(axis=1)).all()
    if game == "spin":
        assert (one.scores[rows, one.winner] >= 20).all()
    else:
        assert (one.scores.max(axis=1) >= 15).all()


@pytest.mark.parametrize("game", ["year", "spin"])
def test_climb_heuristic_beats_random(game: str) -> None:
    result = simulate(600, game=game, players=4, bots=["heuristic", "random"] * 2, seed=3)
    rates = result.win_rates_by_bot()
    assert rates["heuristic"] > rates["random"]


def test_cli_simulate_climbing_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "year", "-n", "100", "--panda-mood", "flip", "-q"]) == 0
    out = capsys.readouterr().out
    assert "game=year" in out and "mean rounds per game" in out
    assert main(["simulate", "--game", "spin", "-n", "50", "--players", "5", "-q"]) == 0
    assert "game=spin" in capsys.readouterr().out
