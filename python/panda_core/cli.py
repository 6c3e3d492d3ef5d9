"""The ``panda-core`` command line: ``panda-core simulate`` plays many games with built-in bots.

The run streams: games are played in chunks (:func:`panda_core.simulate.simulate_chunks`) and
only per-seat totals are kept, so ``--games 100000000`` needs no more memory than ``--games
1000``. Ctrl-C stops it within a game per thread; the table of the games finished so far is
printed under "interrupted after N of M games" and the exit status is 130.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt

from panda_core._cli_common import (
    INTERRUPTED,
    UsageError,
    add_game_options,
    add_quiet_option,
    add_rule_options,
    add_threads_option,
    check_rule_options,
    int_in,
    progress_bar,
    seat_bots,
)
from panda_core._core import BOT_NAMES, PandaCoreError, __version__
from panda_core._registry import AnyRules, spec
from panda_core.arena.cli import register as register_arena
from panda_core.llm.cli import register as register_llm
from panda_core.selfplay.cli import register as register_selfplay
from panda_core.simulate import MAX_GAMES, SimulationResult, pooled_win_rates, simulate_chunks
from panda_core.train.cli import register as register_train
from panda_core.tui.cli import register as register_tui
from panda_core.web.cli import register as register_web

__all__ = [
    "INTERRUPTED",
    "Summary",
    "UsageError",
    "build_parser",
    "format_table",
    "main",
]


@dataclass
class Summary:
    """Per-seat totals of a run, added chunk by chunk (what the table and ``--json`` print)."""

    game: str
    players: int
    bots: tuple[str, ...]
    seed: int
    requested: int
    games: int = 0
    wins: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rounds: int = 0
    decisions: int = 0
    seconds: float = 0.0
    interrupted: bool = False

    def __post_init__(self) -> None:
        if self.wins.shape[0] != self.players:
            self.wins = np.zeros(self.players, dtype=np.int64)

    @classmethod
    def of(cls, result: SimulationResult) -> Summary:
        summary = cls(result.game, result.players, result.bots, result.seed, result.games)
        summary.add(result)
        return summary

    def add(self, part: SimulationResult) -> None:
        self.games += part.games
        self.wins += np.bincount(part.winner.astype(np.int64), minlength=self.players)
        self.rounds += int(part.rounds.sum(dtype=np.uint64))
        self.decisions += int(part.decisions.sum(dtype=np.uint64))
        self.seconds += part.seconds

    def win_rates(self) -> npt.NDArray[np.float64]:
        return self.wins / max(self.games, 1)

    def win_rates_by_bot(self) -> dict[str, float]:
        """Fraction of seat-games won, per bot name (a bot at several seats is pooled)."""
        return pooled_win_rates(self.bots, self.win_rates())


def format_table(result: SimulationResult | Summary) -> str:
    """The human-readable results table printed by ``panda-core simulate``."""
    summary = result if isinstance(result, Summary) else Summary.of(result)
    rates = summary.win_rates()
    games = summary.games
    lines = []
    if summary.interrupted:
        lines += [f"interrupted after {games} of {summary.requested} games", ""]
    lines += [
        f"panda-core simulate: game={summary.game} players={summary.players} games={games} "
        f"seed={summary.seed}",
        "",
        f"{'seat':>4}  {'bot':<10} {'wins':>8}  {'win rate':>8}",
    ]
    for seat, bot in enumerate(summary.bots):
        lines.append(f"{seat:>4}  {bot:<10} {summary.wins[seat]:>8}  {rates[seat]:>8.1%}")
    if len(set(summary.bots)) > 1:
        lines += ["", f"{'bot':<10} {'win rate per seat':>18}"]
        for bot, rate in summary.win_rates_by_bot().items():
            lines.append(f"{bot:<10} {rate:>18.1%}")
    unit = spec(summary.game).round_name
    mean_rounds = summary.rounds / games if games else 0.0
    mean_decisions = summary.decisions / games if games else 0.0
    seconds = summary.seconds
    speed = games / seconds if seconds > 0 else float("inf")
    lines += [
        "",
        f"mean {unit} per game:{' ' * (10 - len(unit))}{mean_rounds:.2f}",
        f"mean decisions per game: {mean_decisions:.1f}",
        f"time: {seconds:.3f} s   {speed:,.0f} games/s   "
        f"{summary.rounds / max(seconds, 1e-9):,.0f} {unit}/s",
    ]
    return "\n".join(lines)


def _json(summary: Summary) -> str:
    return json.dumps(
        {
            "game": summary.game,
            "players": summary.players,
            "games": summary.games,
            "games_requested": summary.requested,
            "interrupted": summary.interrupted,
            "seed": summary.seed,
            "bots": list(summary.bots),
            "win_rate_by_seat": [float(r) for r in summary.win_rates()],
            "win_rate_by_bot": summary.win_rates_by_bot(),
            "mean_rounds": summary.rounds / summary.games if summary.games else 0.0,
            "seconds": summary.seconds,
        }
    )


def _records_writer(
    args: argparse.Namespace, bots: list[str], rules: AnyRules
) -> Callable[[SimulationResult], None] | None:
    """``--save-records DIR``: a function writing the JSON record of every game of a chunk.

    The batch keeps no history, so each chunk is played a second time with records kept (the
    same games, move for move: same deals, same bot seeds) and every record written: 4–6 times
    slower than without, one file of a few kB per game (docs/simulate.md; measured in
    docs/benchmarks.md).
    """
    if args.save_records is None:
        return None
    folder = Path(args.save_records)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--save-records: cannot create {folder}: {err}") from None
    width = len(str(max(args.games - 1, 0)))

    def write(part: SimulationResult) -> None:
        records = spec(args.game).batch_records(
            part.games, args.players, bots, args.seed, rules, args.threads, part.first_game
        )
        for k, record in enumerate(records, start=part.first_game):
            (folder / f"{args.game}-{k:0{width}d}.json").write_text(record + "\n")

    return write


def _cmd_simulate(args: argparse.Namespace, given: set[str]) -> int:
    check_rule_options(args, given)
    bots = seat_bots(args.bots, args.players)
    rules = spec(args.game).cli_rules(args)
    save = _records_writer(args, bots, rules)
    summary = Summary(args.game, args.players, tuple(bots), args.seed, args.games)
    bar = progress_bar(args.games, args.quiet, "games")
    try:
        for part in simulate_chunks(
            args.games,
            game=args.game,
            players=args.players,
            bots=bots,
            seed=args.seed,
            rules=rules,
            threads=args.threads,
        ):
            if save is not None:
                save(part)
            summary.add(part)
            if bar is not None:
                bar.update(part.games)
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if bar is not None:
            bar.close()
    print(_json(summary) if args.json else format_table(summary))
    return INTERRUPTED if summary.interrupted else 0


def build_parser(defaults: bool = True) -> argparse.ArgumentParser:
    """The ``panda-core`` parser; ``defaults=False`` leaves unset options out of the namespace
    (how :func:`main` tells an option given on the command line from its default)."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    parser = argparse.ArgumentParser(
        prog="panda-core", description="Fast engines for the panda card games."
    )
    parser.add_argument("--version", action="version", version=f"panda-core {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser(
        "simulate",
        help="play many games with built-in bots and print results",
        description="Play many games with built-in bots and print the results table. Ctrl-C "
        "stops the run and prints the games finished so far (exit status 130).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_game_options(sim, default)
    sim.add_argument(
        "--games", "-n", type=int_in(0, MAX_GAMES), default=default(10_000), help="games to play"
    )
    sim.add_argument(
        "--bots",
        default=default("random"),
        help=(
            "comma-separated bots, at most one per seat, repeated to fill the seats; built-in: "
            f"{', '.join(BOT_NAMES)} (ismcts:N sets its iterations, neural:PATH plays a "
            "policy file, ismcts+neural:N[:PATH] both)"
        ),
    )
    sim.add_argument(
        "--seed", type=int_in(0, 2**64 - 1), default=default(0), help="batch seed (0..2**64-1)"
    )
    add_threads_option(sim, default, "worker threads")
    sim.add_argument(
        "--json", action="store_true", default=default(False), help="print a JSON summary"
    )
    add_quiet_option(sim, default)
    sim.add_argument(
        "--save-records",
        metavar="DIR",
        default=default(None),
        help="write the JSON record of every game to DIR/<game>-<k>.json (plays each game a "
        "second time to record it: 4-6x slower, one file of a few kB per game)",
    )
    add_rule_options(sim, default)
    sim.set_defaults(func=_cmd_simulate)
    register_tui(sub)  # play, replay: panda_core/tui
    register_web(sub)  # serve: panda_core/web
    register_arena(sub, default)  # arena: panda_core/arena
    register_selfplay(sub, default)  # selfplay: panda_core/selfplay
    register_train(sub, default)  # train: panda_core/train
    register_llm(sub, default)  # llm export-chat: panda_core/llm
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Like `python -m` and uvicorn, the current directory is importable: `-e mybot:Greedy` finds
    # ./mybot.py (a console script's sys.path does not hold it otherwise).
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    parser = build_parser()
    args = parser.parse_args(argv)
    given = set(vars(build_parser(defaults=False).parse_args(argv)))
    try:
        code: int = args.func(args, given)
    except (PandaCoreError, UsageError) as err:
        print(f"panda-core: error: {err}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
