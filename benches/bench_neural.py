"""How strong the shipped policies are, and what a decision costs (issue 12, item 4).

Strength, in the arena on duplicate deals with the seats rotated (every line-up plays each deal
once per rotation, so each bot meets the same cards from every seat), per game at 4 players:

* ``neural`` against 3 ``heuristic``, and ``ismcts:200`` against 3 ``heuristic`` on the same
  deals: the target is neural's win rate >= ismcts:200's, in the same run;
* ``neural`` against ``ismcts:200`` head to head (two seats each, alternating round the table);
* ``neural`` against ``heuristic`` at 2, 3 and 5 players (the policies are trained at 4; chance
  is 1/players), with ``--other-sizes``.

Win rates come with the arena's 95% intervals (Wilson, deals as clusters). Cost: seconds per
decision of each bot playing every seat of ``simulate`` on one thread (the engine's batch path:
no Python between moves), measured in the same run; the target is ismcts:200 / neural >= 50.

    python benches/bench_neural.py [--games-per-lineup 1000] [--games head,year,spin]
        [--other-sizes] [--json results.json] [--out bench-results/neural] [--baselines-only]

Each line-up plays at least 1,000 games: whole deals, each once per rotation of its line-up.
Each arena keeps its results folder under ``--out`` and a rerun resumes it, so the
``ismcts:200`` baselines (the slow part: several minutes a game on two cores) can be played
ahead with ``--baselines-only`` and are reused: ISMCTS at a fixed iteration count is
deterministic given the seed, so the figures are the same. A neural entrant's folder holds the
hash of its policy, so a folder of another policy is refused (use another ``--out``), never
mixed.

With pytest-benchmark, the per-decision cost alone:
``python -m pytest benches/bench_neural.py --benchmark-only``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from panda_core import simulate
from panda_core.arena.run import arena
from panda_core.arena.schedule import games_per_deal

GAMES = ("head", "year", "spin")
SEARCH = "ismcts:200"


def per_decision(game: str, bot: str, games: int, players: int = 4) -> float:
    """Seconds per decision of ``bot`` in every seat of ``games`` games, one thread."""
    started = time.perf_counter()
    result = simulate(games, game=game, players=players, bots=bot, seed=99, threads=1)
    seconds = time.perf_counter() - started
    return seconds / int(result.decisions.sum())


def win_rate(
    game: str, entrants: list[str], games: int, players: int, seed: int, out: Path | None
) -> dict[str, Any]:
    """The first entrant's standing (and the head-to-head of the first two) in an arena of at
    least ``games`` games (whole deals, each played once per rotation of its line-up)."""
    folder = None if out is None else out / f"{game}-{players}p-{'-'.join(entrants)}"
    deals = -(-games // games_per_deal(len(entrants), players, "rotations"))
    report = arena(entrants, game=game, players=players, deals=deals, seed=seed, out=folder)
    first = report.standings[0]
    interval = first.win_interval
    row: dict[str, Any] = {
        "lineup": entrants,
        "games": len(report.results),
        "win_rate": first.win_rate,
        "interval": None if interval is None else [interval.low, interval.high],
        "mean_place": first.mean_place,
    }
    pair = report.head_to_head.get(0, 1)
    if pair is not None:
        row["head_to_head"] = {
            "games": pair.games,
            "wins": pair.wins,
            "ties": pair.ties,
            "losses": pair.losses,
            "score": pair.score,
        }
    return row


def shown(row: dict[str, Any]) -> str:
    low, high = row["interval"] or (float("nan"), float("nan"))
    return f"{row['win_rate']:.3f} [{low:.3f}, {high:.3f}] over {row['games']} games"


def measure(
    game: str, games: int, seed: int, other_sizes: bool, folder: Path | None
) -> dict[str, Any]:
    out: dict[str, Any] = {"game": game}
    heuristics = ["heuristic"] * 3
    out["ismcts_vs_3_heuristic"] = win_rate(game, [SEARCH, *heuristics], games, 4, seed, folder)
    out["neural_vs_3_heuristic"] = win_rate(game, ["neural", *heuristics], games, 4, seed, folder)
    out["neural_vs_ismcts"] = win_rate(game, ["neural", SEARCH], games, 4, seed, folder)
    print(f"{game}: neural vs 3 heuristic   {shown(out['neural_vs_3_heuristic'])}", flush=True)
    print(f"{game}: {SEARCH} vs 3 heuristic {shown(out['ismcts_vs_3_heuristic'])}", flush=True)
    h2h = out["neural_vs_ismcts"]["head_to_head"]
    print(
        f"{game}: neural vs {SEARCH} (2 seats each): neural wins {shown(out['neural_vs_ismcts'])}"
        f"; head to head {h2h['wins']}-{h2h['ties']}-{h2h['losses']} (score {h2h['score']:.3f})",
        flush=True,
    )
    search_games = {"head": 8, "year": 3, "spin": 3}[game]
    neural = per_decision(game, "neural", 200)
    search = per_decision(game, SEARCH, search_games)
    heuristic = per_decision(game, "heuristic", 200)
    out["seconds_per_decision"] = {"neural": neural, SEARCH: search, "heuristic": heuristic}
    out["search_over_neural"] = search / neural
    print(
        f"{game}: per decision neural {neural * 1e6:.1f} µs, {SEARCH} {search * 1e6:.0f} µs, "
        f"heuristic {heuristic * 1e6:.1f} µs: {SEARCH} / neural = {search / neural:.0f}x",
        flush=True,
    )
    if other_sizes:
        for players in (2, 3, 5):
            key = f"neural_vs_heuristic_{players}p"
            lineup = ["neural"] + ["heuristic"] * (players - 1)
            out[key] = win_rate(game, lineup, games, players, seed, folder)
            print(
                f"{game}: {players} players, neural vs heuristic {shown(out[key])} "
                f"(chance {1 / players:.3f})",
                flush=True,
            )
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-lineup", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--other-sizes", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--out", type=Path, help="a folder for the arenas' results (resumable)")
    parser.add_argument(
        "--baselines-only", action="store_true", help="play the ismcts:200 line-ups only"
    )
    args = parser.parse_args(argv)
    if args.baselines_only:
        for g in args.games.split(","):
            lineup = [SEARCH, *["heuristic"] * 3]
            row = win_rate(g, lineup, args.games_per_lineup, 4, args.seed, args.out)
            print(f"{g}: {SEARCH} vs 3 heuristic {shown(row)}", flush=True)
        return 0
    results = [
        measure(g, args.games_per_lineup, args.seed, args.other_sizes, args.out)
        for g in args.games.split(",")
    ]
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=2)
    return 0


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bot", ["neural", "heuristic"])
def test_decision(benchmark: Any, game: str, bot: str) -> None:
    """Seconds per call of 20 games of ``bot`` in every seat (``extra_info``: per decision)."""
    result = benchmark(simulate, 20, game=game, bots=bot, seed=5, threads=1)
    benchmark.extra_info["decisions_per_call"] = int(result.decisions.sum())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
