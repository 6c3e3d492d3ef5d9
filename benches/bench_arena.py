"""The arena's throughput with a Python bot, on the process pool and on Ray (issue 11, item 6).

Unit: arena games (Panda Head, 4 players: two seats of a Python bot that plays the first legal
action, ``arena_bench_bots:first_legal``, and the built-in ``heuristic`` and ``random``; every
game played in Python, move by move, in the workers). Each figure is one whole ``arena(...)``
call, as a user pays it: the start of its process pool (about half a second) and the report
(statistics, ratings; in this process) included. Those fixed costs do not shrink with more
workers; 10,000 games keep them to a small part of the time.

* ``test_arena_python_bot[1|2]``: 10,000 games on 1 and on 2 local worker processes; target
  2 workers / 1 >= 1.8x;
* ``test_arena_10000_games[local|ray]``: 10,000 games on the local pool of 2 workers and as Ray
  tasks on a Ray instance of this machine with 2 CPUs (started once, outside the timing; its
  workers stay up between arenas, where each local arena spawns its pool); target: Ray at most
  15% slower.

On a shared machine two runs a minute apart can differ a lot, so the ratios are measured here as
interleaved rounds, the median of the per-round ratios reported (as in vector_speedup.py),
next to the same ratio for a task that only spins the CPU: the most two workers can give on this
machine at that moment (other processes take their share of the cores too):

    python benches/bench_arena.py [--rounds 3] [--games 10000] [--ray-games 10000]

or with pytest-benchmark (``extra_info["games_per_call"]``):
``python -m pytest benches/bench_arena.py --benchmark-only``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from panda_core.arena.run import arena

BENCHES = Path(__file__).resolve().parent
ENTRANTS = [
    "arena_bench_bots:first_legal",
    "heuristic",
    "random",
    "second=arena_bench_bots:first_legal",
]
PLAYERS = 4
GAMES = 10_000
RAY_GAMES = 10_000


def play(games: int, **where: Any) -> float:
    """Seconds for an arena of ``games`` games (rotations: 4 games a deal)."""
    started = time.perf_counter()
    report = arena(
        ENTRANTS,
        game="head",
        players=PLAYERS,
        deals=games // PLAYERS,
        seed=0,
        move_time=10.0,
        **where,
    )
    took = time.perf_counter() - started
    assert report is not None
    return took


def start_ray(cpus: int = 2) -> Any:
    """A Ray instance of this machine with ``cpus`` CPUs; the arena's Ray backend uses this
    connection. Its workers import the bench bot: this folder goes on their ``PYTHONPATH``."""
    import ray

    paths = [str(BENCHES), *filter(None, [os.environ.get("PYTHONPATH")])]
    os.environ["PYTHONPATH"] = os.pathsep.join(paths)  # the instance's processes inherit it
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
    return ray


# ---- pytest-benchmark -------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_arena_python_bot(benchmark: Any, workers: int) -> None:
    benchmark.group = "arena: Python bot, local workers"
    benchmark.extra_info["games_per_call"] = GAMES
    benchmark.pedantic(play, args=(GAMES,), kwargs={"workers": workers}, rounds=2, iterations=1)


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = start_ray()
    try:
        play(400, backend="ray")  # Ray's workers start (once per instance, not per arena)
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_arena_10000_games(benchmark: Any, backend: str, request: pytest.FixtureRequest) -> None:
    where: dict[str, Any] = {"workers": 2}
    if backend == "ray":
        request.getfixturevalue("ray_instance")
        where = {"backend": "ray"}
    benchmark.group = "arena: 10,000 games, local pool vs Ray"
    benchmark.extra_info["games_per_call"] = RAY_GAMES
    benchmark.pedantic(play, args=(RAY_GAMES,), kwargs=where, rounds=2, iterations=1)


# ---- the interleaved script ---------------------------------------------------------------------


def spin(n: int) -> int:
    """A task that only uses the CPU (no memory traffic, no I/O)."""
    total = 0
    for i in range(n):
        total += i * i % 7
    return total


def ceiling() -> float:
    """Wall time of 8 spinning tasks on 1 worker / on 2 (each pool started outside the timing)."""
    from panda_core.parallel import ProcessBackend

    took = []
    for workers in (1, 2):
        with ProcessBackend(workers) as pool:
            list(pool.run(spin, [1] * workers))
            started = time.perf_counter()
            list(pool.run(spin, [2_000_000] * 8))
            took.append(time.perf_counter() - started)
    return took[0] / took[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--ray-games", type=int, default=RAY_GAMES)
    parser.add_argument("--skip-ray", action="store_true")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; {args.rounds} rounds, interleaved; median of the ratios")

    speedups, ceilings = [], []
    play(200, workers=2)  # warm the file cache and imports
    for r in range(args.rounds):
        one = play(args.games, workers=1)
        two = play(args.games, workers=2)
        speedups.append(one / two)
        ceilings.append(ceiling())
        print(
            f"  round {r}: {args.games / one:,.0f} games/s on 1 worker, "
            f"{args.games / two:,.0f} on 2: {one / two:.2f}x "
            f"(spinning tasks: {ceilings[-1]:.2f}x; load {os.getloadavg()[0]:.1f})"
        )
    print(
        f"games/s, 2 workers / 1 (target >= 1.8x): {statistics.median(speedups):.2f}x "
        f"(the machine's ceiling, spinning tasks: {statistics.median(ceilings):.2f}x)"
    )
    if args.skip_ray:
        return

    start_ray()
    play(400, backend="ray")  # Ray's workers start once per instance
    overheads = []
    for r in range(args.rounds):
        local = play(args.ray_games, workers=2)
        on_ray = play(args.ray_games, backend="ray")
        overheads.append(on_ray / local - 1)
        print(
            f"  round {r}: {args.ray_games / local:,.0f} games/s local, "
            f"{args.ray_games / on_ray:,.0f} on Ray: {100 * (on_ray / local - 1):+.1f}%"
        )
    print(
        f"Ray time / local time - 1 at {args.ray_games:,} games (target <= 15%): "
        f"{100 * statistics.median(overheads):+.1f}%"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(BENCHES))
    main()
