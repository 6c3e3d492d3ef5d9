"""``panda-core arena``: rate bots against each other on duplicate deals, from the shell.

The results folder (``--out``, by default one named after the arena under ``arena-results/``)
keeps every finished game, so running the same command again resumes an interrupted arena, and
running it with more ``--deals`` extends a finished one.

Stdout holds the report alone (the table, or ``--json``): while the arena runs, both
``sys.stdout`` and file descriptor 1 point at stderr, so nothing a bot prints (in this process,
in a worker process, from C code) lands in it. A reader that goes away (``| head``) ends the
command quietly with the status of a broken pipe (141), never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

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
from panda_core.arena.schedule import MAX_DEALS

__all__ = ["default_folder", "register"]

RESULTS_ROOT = Path("arena-results")

BROKEN_PIPE = 141
"""Exit status when stdout's reader went away (128 + SIGPIPE, what a shell reports for a command
the broken pipe stopped)."""


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
        "ismcts:N, neural, neural:PATH, ismcts+neural:N[:PATH]), protocol bots in any "
        "language 'exec:COMMAND' "
        "(COMMAND split like a shell would: 'exec:node \"my bot.js\" --fast'), language models "
        "'llm:MODEL', or Python bots 'package.module:attr' (a class or a callable), each "
        "optionally 'label=spec'. A neural:PATH or exec:COMMAND takes the rest of its -e as its "
        "path or command (commas and = included): give the entrants after it their own -e",
    )
    add_game_options(p, default)
    p.add_argument(
        "--deals", "-n", type=int_in(1, MAX_DEALS), default=default(100), help="deals to play"
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
        "--in-process",
        action="store_true",
        default=default(False),
        help="run the Python bots given by import path in the arena's processes, next to the "
        "real game, instead of each in a process of its own that holds only its seat's "
        "messages (faster to start; the results say the bots were not contained)",
    )
    p.add_argument(
        "--full-information",
        action="store_true",
        default=default(False),
        help="research: hand the in-process Python bots the whole game (every hand, the draw "
        "pile) instead of their seat; needs --in-process, and the results say so",
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
    from panda_core.arena.store import identity_sha256

    return RESULTS_ROOT / f"{settings.game}-{settings.players}p-{identity_sha256(settings)[:10]}"


def _cmd_arena(args: argparse.Namespace, given: set[str]) -> int:
    from panda_core.arena.entrants import split_entrants
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
        "contained": not args.in_process,
        "full_information": args.full_information,
    }
    # -e a,b -e c: the entrants a, b and c; each -e is split by itself (a path ends its own).
    entrants = [
        spec_ if label is None else f"{label}={spec_}"
        for text in args.entrants
        for label, spec_ in split_entrants(text)
    ]
    settings = arena_settings(entrants, **common)
    out = Path(args.out) if args.out is not None else default_folder(settings)
    bar = progress_bar(scheduled_games(settings), args.quiet, "games")

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.n = done
            bar.refresh()

    report_stream = sys.stdout
    interrupted = False
    try:
        with _stdout_to_stderr(), _notes_to_stderr():
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
    except KeyboardInterrupt:  # before the first game (reading a results folder): nothing to show
        print("panda-core: interrupted before the arena started", file=sys.stderr)
        return INTERRUPTED
    finally:
        if bar is not None:
            bar.close()
    try:
        _print_report(report_stream, report, out, args.json, interrupted)
    except BrokenPipeError:
        _quiet_stdout(report_stream)
        return BROKEN_PIPE
    if interrupted:
        return INTERRUPTED
    return 0


def _print_report(stream: TextIO, report: Any, out: Path, as_json: bool, interrupted: bool) -> None:
    if as_json:
        print(json.dumps(report.to_json(), indent=2), file=stream)
    else:
        if interrupted:
            print(
                f"interrupted after {len(report.results)} of {report.scheduled} games; the same "
                "command resumes\n",
                file=stream,
            )
        print(report.table(), file=stream)
        files = "results.json, standings.csv, head_to_head.csv" + (
            "" if interrupted else ", ratings.png"
        )
        print(f"\nresults: {out}/ ({files})", file=stream)
    stream.flush()  # a broken pipe shows here, not at the interpreter's exit


def _quiet_stdout(stream: TextIO) -> None:
    """After a broken pipe: point stdout at the null device, so the interpreter's last flush of
    what is still buffered goes nowhere instead of raising again (the Python docs' recipe for
    SIGPIPE)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """While the arena runs, whatever else prints (a bot in this process or in a worker, C code
    writing to descriptor 1, Ray's notices) goes to stderr: ``sys.stdout`` is redirected, and
    descriptor 1 itself points at stderr, which the worker processes started meanwhile inherit.
    Stdout is the report's alone, so ``--json`` can be piped."""
    saved = None
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        if saved is not None:
            # Whatever was written to the real stdout object meanwhile goes to stderr with the
            # rest, not into the report.
            for stream in (sys.__stdout__, sys.stdout):
                with contextlib.suppress(OSError, ValueError, AttributeError):
                    if stream is not None:
                        stream.flush()
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def _notes_to_stderr() -> Iterator[None]:
    """The arena's warnings (a repaired results folder) as one line each on stderr."""
    from panda_core.arena.errors import ArenaWarning

    shown = warnings.showwarning

    def note(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if issubclass(category, ArenaWarning):
            print(f"panda-core: note: {message}", file=sys.stderr)
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", ArenaWarning)
        warnings.showwarning = note
        yield
