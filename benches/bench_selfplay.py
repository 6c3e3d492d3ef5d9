"""Self-play datasets: what writing costs (issue 11, item 6).

Unit: decisions (4 players, heuristic bots at every seat, in this process: ``workers=0``, one
core). For each format (the default one, and with ``move_features=True`` for the climbing games)
and each game, the same episodes (same deals, same bots) are

* ``test_generate[format-game]``: played and collected into the numpy columns that format
  holds (observation, legal action ids, action …, and every legal move's features with move
  features: ``selfplay.episodes.play_episode``), then dropped;
* ``test_write[format-game]``: played, collected and written: ``selfplay(...)`` into a fresh
  folder (Arrow columns, Parquet row groups with zstd, shard files renamed into place, the
  manifest).

Target: writing runs at >= 50% of the decisions/s of generating (``write / generate``), for the
default format.

On a shared machine two runs a minute apart can differ a lot, so the ratios are measured as
interleaved rounds and the median of the per-round ratios is reported (as in vector_speedup.py):

    python benches/bench_selfplay.py [--rounds 5] [--episodes 200]

or with pytest-benchmark (``extra_info["decisions_per_call"]``):
``python -m pytest benches/bench_selfplay.py --benchmark-only``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from panda_core._core import nth_output
from panda_core._registry import GAMES, spec
from panda_core.selfplay import selfplay
from panda_core.selfplay.episodes import SeatBots, play_episode

PLAYERS = 4
BOTS = "heuristic"
SEED = 0
EPISODES = {"head": 200, "year": 60, "spin": 60}
"""Episodes per call: about 50,000 decisions of Panda Head, 15,000 of a climbing game."""


FORMATS = {"default": False, "move-features": True}
"""The formats measured: name -> ``move_features``."""
CASES = [(f, g) for f in FORMATS for g in GAMES if not FORMATS[f] or spec(g).move_features]
"""Every game in the default format; the games that have move features with them."""


def generate(game: str, episodes: int, move_features: bool = False) -> int:
    """Play ``episodes`` episodes as selfplay() does, keep their columns, write nothing."""
    g = spec(game)
    rules = g.rules()
    bots = SeatBots([BOTS] * PLAYERS)
    decisions = 0
    for e in range(episodes):
        ep = play_episode(g, PLAYERS, rules, bots, e, nth_output(SEED, e), move_features)
        decisions += ep.decisions
    return decisions


def write(game: str, episodes: int, folder: Path, move_features: bool = False) -> int:
    """The same episodes written by ``selfplay`` into ``folder`` (emptied first)."""
    shutil.rmtree(folder, ignore_errors=True)
    info = selfplay(
        folder, game=game, players=PLAYERS, bots=BOTS, episodes=episodes, seed=SEED, workers=0,
        move_features=move_features,
    )  # fmt: skip
    return info.decisions


@pytest.mark.parametrize(("form", "game"), CASES)
def test_generate(benchmark: Any, form: str, game: str) -> None:
    decisions = benchmark(generate, game, EPISODES[game], FORMATS[form])
    benchmark.extra_info["decisions_per_call"] = decisions


@pytest.mark.parametrize(("form", "game"), CASES)
def test_write(benchmark: Any, form: str, game: str, tmp_path: Path) -> None:
    decisions = benchmark(write, game, EPISODES[game], tmp_path / "data", FORMATS[form])
    benchmark.extra_info["decisions_per_call"] = decisions


def _timed(run: Any, *args: Any) -> tuple[float, int]:
    started = time.perf_counter()
    decisions = run(*args)
    return time.perf_counter() - started, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=None, help="per call (default: per game)")
    args = parser.parse_args()
    print(
        f"{'format':<14} {'game':<5} {'generate dec/s':>15} {'write dec/s':>12} "
        f"{'write/generate':>15} {'bytes/dec':>10}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for form, game in CASES:
            features = FORMATS[form]
            episodes = args.episodes or EPISODES[game]
            ratios, gen_rates, write_rates = [], [], []
            folder = Path(tmp) / game
            for _ in range(args.rounds):
                gen_s, n = _timed(generate, game, episodes, features)
                write_s, m = _timed(write, game, episodes, folder, features)
                assert n == m, "the same decisions"
                gen_rates.append(n / gen_s)
                write_rates.append(m / write_s)
                ratios.append(gen_s / write_s)
            size = sum(p.stat().st_size for p in folder.glob("part-*.parquet"))
            print(
                f"{form:<14} {game:<5} {statistics.median(gen_rates):>15,.0f} "
                f"{statistics.median(write_rates):>12,.0f} {statistics.median(ratios):>14.0%} "
                f"{size / n:>10.0f}"
                f"   ({n} decisions, {episodes} episodes; per-round ratios "
                f"{', '.join(f'{r:.0%}' for r in ratios)})"
            )


if __name__ == "__main__":
    main()
