"""What containment costs in the arena (issue 21): games/s of an arena of a trivial Python bot
against the built-in ``heuristic``, its bot run in-process (``contained=False``) and contained
(the default: a process of its own, speaking the bot protocol through the Python adapter).

Unit: arena games of Panda Head, 2 players (one seat of ``arena_bench_bots:first_legal``, the
lowest legal action, whose own cost is next to nothing, and one of ``heuristic``), every game
played move by move. So the figure is the most containment can cost: each of the bot's
decisions is a round trip of JSON lines between two processes (its view, events and legal moves
one way, the move the other), where in-process it is a function call. A bot that thinks for a
millisecond a move pays the same few hundred microseconds on top of its thinking.

Each round plays both, interleaved (contained first, then in-process, then the next round), in
this process (``workers=0``: one core, no pool start) and on a pool of 2 worker processes; the
figure of each mode is the median of its rounds, and the ratio the median of the per-round
ratios (the machines are shared and noisy). The contained runs include starting the bot's
process (once per worker; about a third of a second: it imports panda-core). Run:

    python benches/bench_contained.py [--rounds 5] [--games 2000] [--workers 0 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

BENCHES = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHES))

from panda_core.arena.run import arena  # noqa: E402
from panda_core.protocol.exec_bot import close_pool  # noqa: E402

ENTRANTS = ["arena_bench_bots:first_legal", "heuristic"]


def games_per_second(games: int, workers: int, contained: bool) -> tuple[float, int]:
    """Games/s of one arena of ``games`` games, and the bot's decisions in it."""
    close_pool()  # every contained run starts its bot processes, as a user's first run does
    started = time.perf_counter()
    report = arena(
        ENTRANTS,
        game="head",
        players=2,
        deals=games // 2,
        seed=1,
        workers=workers,
        contained=contained,
    )
    took = time.perf_counter() - started
    assert not report.forfeits, report.forfeits[:1]
    decisions = sum(
        r.decisions for r in report.results
    )  # both seats: the bot makes about half of them
    return len(report.results) / took, decisions


def _rounds(rates: list[float]) -> str:
    return ", ".join(f"{x:.0f}" for x in rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", type=int, nargs="+", default=[0, 2])
    args = parser.parse_args()
    for workers in args.workers:
        contained: list[float] = []
        in_process: list[float] = []
        decisions = 0
        for _ in range(args.rounds):
            rate, decisions = games_per_second(args.games, workers, contained=True)
            contained.append(rate)
            in_process.append(games_per_second(args.games, workers, contained=False)[0])
        ratios = [a / b for a, b in zip(in_process, contained, strict=True)]
        per_game = decisions / args.games
        c, i = statistics.median(contained), statistics.median(in_process)
        cost_us = (1 / c - 1 / i) / (per_game / 2) * 1e6
        print(
            f"workers={workers}: {args.games} games x {args.rounds} rounds, "
            f"{per_game:.1f} decisions a game (half the bot's)\n"
            f"  in-process {i:8.0f} games/s   (rounds: {_rounds(in_process)})\n"
            f"  contained  {c:8.0f} games/s   (rounds: {_rounds(contained)})\n"
            f"  in-process / contained: median {statistics.median(ratios):.1f}x; "
            f"containment adds about {cost_us:.0f} us per bot decision"
        )


if __name__ == "__main__":
    main()
