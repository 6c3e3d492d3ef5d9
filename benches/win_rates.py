"""Win rates of the built-in bots against each other (issue 4: ISMCTS vs heuristic vs random).

    python benches/win_rates.py --games 1000 [--iterations 200] [--threads 2]

For each game (head, year, spin) and each line-up of four seats, the games are split evenly over
the four rotations of the line-up (every bot sits in every seat equally often, so the seat's
advantage cancels), all in the Rust batch simulator. Prints a markdown table: the win rate of
each bot of the line-up with a 95% interval, and the games' wall time. A seat wins 25% by chance.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from panda_core import simulate


def line_ups(ismcts: str) -> list[list[str]]:
    return [
        [ismcts, "heuristic", "heuristic", "heuristic"],
        [ismcts, "random", "random", "random"],
        [ismcts, "heuristic", "random", "random"],
        ["heuristic", "random", "random", "random"],
    ]


def rotate(bots: list[str], r: int) -> list[str]:
    return bots[-r:] + bots[:-r] if r else list(bots)


def measure(game: str, bots: list[str], games: int, threads: int, seed: int) -> dict[str, float]:
    """Win rate per distinct bot name of `bots` (per seat it holds), over `games` games."""
    per_rotation = games // 4
    wins = {b: 0 for b in bots}
    seats = {b: 0 for b in bots}
    for r in range(4):
        seated = rotate(bots, r)
        result = simulate(
            per_rotation, game=game, players=4, bots=seated, seed=seed + r, threads=threads
        )
        winners = np.asarray(result.winner)
        for seat, bot in enumerate(seated):
            wins[bot] += int((winners == seat).sum())
            seats[bot] += per_rotation
    return {b: wins[b] / seats[b] for b in wins}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--game", action="append", choices=["head", "year", "spin"])
    args = parser.parse_args()
    ismcts = f"ismcts:{args.iterations}"
    print("| game | line-up (seats rotate) | win rate per seat, 95% interval | time |")
    print("|---|---|---|---|")
    for game in args.game or ["head", "year", "spin"]:
        for bots in line_ups(ismcts):
            start = time.perf_counter()
            rates = measure(game, bots, args.games, args.threads, args.seed)
            secs = time.perf_counter() - start
            counts = {b: bots.count(b) for b in rates}
            cells = []
            for bot, p in rates.items():
                n = args.games * counts[bot]
                half = 1.96 * math.sqrt(p * (1 - p) / n)
                cells.append(f"{bot} {p:.3f} ± {half:.3f}")
            print(f"| {game} | {', '.join(bots)} | {'; '.join(cells)} | {secs:.0f} s |", flush=True)


if __name__ == "__main__":
    main()
