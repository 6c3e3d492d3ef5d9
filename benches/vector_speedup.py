"""The issue-4 target: batched steps (1024 envs) against single games driven one call at a time.

    python benches/vector_speedup.py [--rounds 7]

On a shared, noisy machine two benchmarks taken a minute apart can differ by 2x, so this
measures the pair *interleaved*: each round times the single-game loop, then the 1024-env batch
on 1 and on 2 threads, for about half a second each, and the median of the per-round ratios is
reported. The single-game loop does what one env-step of the batch does: apply an action, then
read the next player's observation and legal mask (three calls, one game at a time).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import time
from collections.abc import Callable

import numpy as np

from panda_core import ClimbGame, ClimbSettings, ClimbVectorEnv, HeadGame, HeadVectorEnv

SECONDS = 0.5


def rate(step: Callable[[], int]) -> float:
    """Env-steps per second of repeated `step()` calls (each returns its env-steps)."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < SECONDS:
        done += step()
    return done / elapsed


def single_game(game: str) -> Callable[[], int]:
    seeds = itertools.count()
    settings = None if game == "head" else ClimbSettings(preset=game)

    def new() -> HeadGame | ClimbGame:
        s = next(seeds)
        return HeadGame(4, s) if settings is None else ClimbGame(4, s, settings)

    state = {"game": new()}

    def step() -> int:
        g = state["game"]
        for _ in range(100):
            if g.is_over:
                g = state["game"] = new()
            if isinstance(g, HeadGame):
                g.apply(int(g.legal_action_mask().argmax()))
                if g.current_player is not None:
                    g.observation(g.current_player)
                    g.legal_action_mask()
            else:
                g.apply(int(g.legal_action_mask().argmax()))
                if g.current_player is not None:
                    g.observation(g.current_player)
                    g.legal_action_mask()
        return 100

    return step


def batch(game: str, threads: int) -> Callable[[], int]:
    env: HeadVectorEnv | ClimbVectorEnv
    if game == "head":
        env = HeadVectorEnv(1024, players=4, threads=threads)
    else:
        env = ClimbVectorEnv(1024, players=4, rules=ClimbSettings(preset=game), threads=threads)
    state = {"mask": env.reset(seed=1)[1]}

    def step() -> int:
        state["mask"] = env.step(state["mask"].argmax(axis=1))[1]
        return 1024

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print("| game | single games, steps/s | 1024 envs, 1 thread | 1024 envs, 2 threads |")
    print("|---|---|---|---|")
    for game in ("head", "year", "spin"):
        single, one, two = single_game(game), batch(game, 1), batch(game, 2)
        rates: dict[str, list[float]] = {"single": [], "one": [], "two": []}
        for _ in range(args.rounds):
            rates["single"].append(rate(single))
            rates["one"].append(rate(one))
            rates["two"].append(rate(two))
        ratio1 = statistics.median(np.divide(rates["one"], rates["single"]))
        ratio2 = statistics.median(np.divide(rates["two"], rates["single"]))
        s, o, t = (statistics.median(rates[k]) for k in ("single", "one", "two"))
        print(
            f"| {game} | {s / 1e6:.2f} M | {o / 1e6:.2f} M ({ratio1:.1f}x) | "
            f"{t / 1e6:.2f} M ({ratio2:.1f}x) |",
            flush=True,
        )


if __name__ == "__main__":
    main()
