"""How strong the learned bots are, and what a decision costs (issues 12 and 23).

Strength, in the arena on duplicate deals with the seats rotated (every line-up plays each deal
once per rotation, so each bot meets the same cards from every seat), per game at 4 players.
The line-ups (``--lines``, all by default):

* ``neural``: the learned bot against 3 ``heuristic``; ``search``: ``ismcts:200`` against 3
  ``heuristic`` on the same deals (target: neural's win rate >= ismcts:200's);
* ``h2h``: ``neural`` against ``ismcts:200`` head to head (two seats each, alternating round the
  table; target: neural finishes ahead in at least half the games);
* ``guided``: ``ismcts+neural:200`` against 3 ``heuristic``, and ``strong``: ``ismcts:1000``
  against 3 ``heuristic`` (target: guided's win rate > ismcts:1000's);
* ``sizes``: ``neural`` against ``heuristic`` at 2, 3 and 5 players (the policies are trained at
  4; chance is 1/players); also turned on by ``--other-sizes``.

``--neural BOT`` and ``--guided BOT`` name the learned bots (default: the shipped policy;
``neural:PATH`` and ``ismcts+neural:200:PATH`` evaluate a policy file before it is shipped). The
``--seed`` (default 99) picks deals not used for choosing checkpoints: training evaluates on the
deals of its own seed (12 for the shipped runs).

Win rates come with the arena's 95% intervals (Wilson, deals as clusters). Cost: seconds per
decision of each bot playing every seat of ``simulate`` on one thread (the engine's batch path:
no Python between moves), measured in the same run; the targets are ismcts:200 / neural >= 50
and ismcts+neural:200 / ismcts:200 <= 2.

    python benches/bench_neural.py [--games-per-lineup 4000] [--games head,year,spin]
        [--lines neural,search,h2h,guided,strong,sizes] [--neural BOT] [--guided BOT]
        [--json results.json] [--out bench-results/neural] [--threads N]

Each line-up plays at least ``--games-per-lineup`` games: whole deals, each once per rotation of
its line-up. Each arena keeps its results folder under ``--out`` and a rerun resumes it, so the
search baselines (the slow part) are played once and reused: ISMCTS at a fixed iteration count
is deterministic given the seed, so the figures are the same. A learned entrant's folder holds
the hash of its policy, so a folder of another policy is refused (use another ``--out``), never
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
STRONG = "ismcts:1000"
LINES = ("neural", "search", "h2h", "guided", "strong", "sizes")
SEARCH_GAMES = {"head": 8, "year": 3, "spin": 3}
"""Games of every seat searching for the per-decision cost of ``ismcts:200`` (a few seconds)."""


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
    name = "-".join(e.replace("/", "_").replace(":", "_") for e in entrants)
    folder = None if out is None else out / f"{game}-{players}p-{name}"
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


def verdict(met: bool, by: str) -> str:
    return f"target met ({by})" if met else f"target missed ({by})"


def measure(
    game: str,
    games: int,
    seed: int,
    lines: set[str],
    learned: str,
    guided: str,
    folder: Path | None,
) -> dict[str, Any]:
    """The chosen line-ups and costs of one game, printed as they finish."""
    out: dict[str, Any] = {"game": game, "neural": learned, "guided": guided}
    heuristics = ["heuristic"] * 3

    def line(key: str, entrants: list[str], players: int = 4) -> dict[str, Any]:
        out[key] = win_rate(game, entrants, games, players, seed, folder)
        print(f"{game}: {entrants[0]} vs {entrants[1:]}  {shown(out[key])}", flush=True)
        return out[key]

    def gap(name: str, key: str, other: str, other_key: str, ties_win: bool) -> None:
        """The target ``name`` beats ``other`` (or ties, if ``ties_win``), once both played."""
        if key in out and other_key in out:
            points = out[key]["win_rate"] - out[other_key]["win_rate"]
            met = points >= 0 if ties_win else points > 0
            print(f"{game}: {name} - {other}: {points * 100:+.1f} points: {verdict(met, 'gap')}")

    if "search" in lines:
        line("ismcts_vs_3_heuristic", [SEARCH, *heuristics])
    if "neural" in lines:
        line("neural_vs_3_heuristic", [learned, *heuristics])
    gap("neural", "neural_vs_3_heuristic", SEARCH, "ismcts_vs_3_heuristic", ties_win=True)
    if "h2h" in lines:
        h2h = line("neural_vs_ismcts", [learned, SEARCH])["head_to_head"]
        ahead = h2h["score"]
        print(
            f"{game}: neural vs {SEARCH} (2 seats each): head to head "
            f"{h2h['wins']}-{h2h['ties']}-{h2h['losses']} (score {ahead:.3f}): "
            f"{verdict(ahead >= 0.5, 'score')}",
            flush=True,
        )
    if "strong" in lines:
        line("strong_vs_3_heuristic", [STRONG, *heuristics])
    if "guided" in lines:
        line("guided_vs_3_heuristic", [guided, *heuristics])
    gap("guided", "guided_vs_3_heuristic", STRONG, "strong_vs_3_heuristic", ties_win=False)
    costs = {
        "neural": per_decision(game, learned, 200),
        SEARCH: per_decision(game, SEARCH, SEARCH_GAMES[game]),
        "heuristic": per_decision(game, "heuristic", 200),
    }
    if "guided" in lines:
        costs["guided"] = per_decision(game, guided, SEARCH_GAMES[game])
    out["seconds_per_decision"] = costs
    out["search_over_neural"] = costs[SEARCH] / costs["neural"]
    print(
        f"{game}: per decision neural {costs['neural'] * 1e6:.1f} µs, {SEARCH} "
        f"{costs[SEARCH] * 1e6:.0f} µs, heuristic {costs['heuristic'] * 1e6:.1f} µs: {SEARCH} / "
        f"neural = {out['search_over_neural']:.0f}x: "
        f"{verdict(out['search_over_neural'] >= 50, 'ratio')}",
        flush=True,
    )
    if "guided" in costs:
        out["guided_over_search"] = costs["guided"] / costs[SEARCH]
        print(
            f"{game}: per decision guided {costs['guided'] * 1e6:.0f} µs: guided / {SEARCH} = "
            f"{out['guided_over_search']:.2f}x: {verdict(out['guided_over_search'] <= 2, 'ratio')}",
            flush=True,
        )
    if "sizes" in lines:
        for players in (2, 3, 5):
            row = line(
                f"neural_vs_heuristic_{players}p",
                [learned] + ["heuristic"] * (players - 1),
                players,
            )
            chance = 1 / players
            print(f"{game}: {players} players: {verdict(row['win_rate'] >= chance, 'vs chance')}")
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games-per-lineup", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--lines", default=",".join(LINES), help="line-ups to play")
    parser.add_argument("--neural", default="neural", help="the learned bot (neural:PATH)")
    parser.add_argument("--guided", default="ismcts+neural:200", help="the guided search")
    parser.add_argument("--other-sizes", action="store_true", help="the same as the sizes line")
    parser.add_argument("--json")
    parser.add_argument("--out", type=Path, help="a folder for the arenas' results (resumable)")
    args = parser.parse_args(argv)
    lines = set(args.lines.split(","))
    if args.other_sizes:
        lines.add("sizes")
    unknown = lines - set(LINES)
    if unknown:
        parser.error(f"unknown --lines {sorted(unknown)}; choose from {', '.join(LINES)}")
    results = [
        measure(g, args.games_per_lineup, args.seed, lines, args.neural, args.guided, args.out)
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
