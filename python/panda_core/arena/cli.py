"""``panda-core arena``: rate bots against each other on duplicate deals, from the shell.

The results folder (``--out``, by default one named after the arena under ``arena-results/``)
keeps every finished game, so running the same command again resumes an interrupted arena, and
running it with more ``--deals`` extends a finished one. This module imports only argparse-level
code at load time; the arena and its libraries load when the command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from panda_core._cli_common import (
    INTERRUPTED,
    Default,
    add_backend_options,
    add_game_options,
    add_quiet_option,
    add_rule_options,
    check_backend_options,
    check_rule_options,
    int_in,
    keep_default,
    progress_bar,
)
from panda_core._registry import spec

__all__ = ["default_folder", "register"]

RESULTS_ROOT = Path("arena-results")


def register(sub: Any, default: Default = keep_default) -> None:
    """Add ``arena`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    p = sub.add_parser(
        "arena",
        help="rate bots against each other on duplicate deals",
        description="Rate bots against each other on duplicate deals: every deal is played "
        "once per seating, so that each entrant holds every seat's cards. Prints win rates "
        "with 95% intervals, Plackett-Luce ratings and a head-to-head table; writes them as "
        "JSON, CSV and a PNG plot to the results folder, which also makes the arena "
        "resumable (docs/rate_your_bot.md). Ctrl-C stops it (exit status 130); the same "
        "command resumes it.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--entrants",
        "-e",
        required=True,
        action="append",
        help="bots, comma-separated or one per -e: built-in (random, heuristic, ismcts, "
        "ismcts:N, neural, neural:PATH) or Python bots 'package.module:attr' (a class or a "
        "callable), each optionally 'label=spec'",
    )
    add_game_options(p, default)
    p.add_argument(
        "--deals", "-n", type=int_in(1, 10**9), default=default(100), help="deals to play"
    )
    p.add_argument("--seed", type=int_in(0, 2**64 - 1), default=default(0), help="the arena's seed")
    p.add_argument(
        "--permutations",
        choices=("rotations", "all"),
        default=default("rotations"),
        help="seatings per deal: each entrant in each seat once (rotations), or every order",
    )
    add_backend_options(p, default, "games with a Python bot")
    p.add_argument(
        "--out",
        metavar="DIR",
        default=default(None),
        help=f"results folder (default: {RESULTS_ROOT}/<game>-<players>p-<id of the arena>)",
    )
    p.add_argument(
        "--move-time",
        type=float,
        default=default(10.0),
        metavar="S",
        help="seconds a Python bot may take for one move before it forfeits the game",
    )
    p.add_argument(
        "--game-time",
        type=float,
        default=default(600.0),
        metavar="S",
        help="seconds one game may take before its worker is stopped (a forfeit)",
    )
    p.add_argument(
        "--json", action="store_true", default=default(False), help="print results.json instead"
    )
    add_quiet_option(p, default)
    add_rule_options(p, default)
    p.set_defaults(func=_cmd_arena)


def default_folder(settings: Any) -> Path:
    """The results folder named after the arena: the same settings (but the deals) give the same
    folder, so the same command resumes, and another arena never lands in it."""
    identity = json.dumps(settings.identity(), sort_keys=True)
    digest = hashlib.sha256(identity.encode()).hexdigest()[:10]
    return RESULTS_ROOT / f"{settings.game}-{settings.players}p-{digest}"


def _cmd_arena(args: argparse.Namespace, given: set[str]) -> int:
    from panda_core.arena.run import ArenaInterrupted, arena, arena_settings, scheduled_games

    check_rule_options(args, given)
    check_backend_options(args)
    rules = spec(args.game).cli_rules(args)
    common: dict[str, Any] = {
        "game": args.game,
        "players": args.players,
        "deals": args.deals,
        "seed": args.seed,
        "permutations": args.permutations,
        "rules": rules,
        "move_time": args.move_time,
        "game_time": args.game_time,
    }
    entrants = ",".join(args.entrants)  # -e a,b -e c: the entrants a, b and c
    settings = arena_settings(entrants, **common)
    out = Path(args.out) if args.out is not None else default_folder(settings)
    bar = progress_bar(scheduled_games(settings), args.quiet, "games")

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.n = done
            bar.refresh()

    interrupted = False
    try:
        # While the arena runs, whatever else prints (a bot in this process, Ray's notices about
        # dead workers) goes to stderr: stdout holds the report alone, so --json can be piped.
        with contextlib.redirect_stdout(sys.stderr):
            report = arena(
                entrants,
                workers=args.workers,
                backend=args.backend,
                address=args.address,
                out=out,
                progress=progress,
                **common,
            )
    except ArenaInterrupted as stop:
        report = stop.report
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        if interrupted:
            print(
                f"interrupted after {len(report.results)} of {report.scheduled} games; the same "
                "command resumes\n"
            )
        print(report.table())
        print(f"\nresults: {out}/ (results.json, standings.csv, head_to_head.csv, ratings.png)")
    if interrupted:
        return INTERRUPTED
    return 0
