"""The ``play`` and ``replay`` subcommands: :func:`register` adds them to ``panda-core``.

This module imports only ``argparse`` and the registry at load time (rich and the table model
are loaded when a command runs), so ``panda-core simulate`` does not pay for them.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from panda_core._registry import DEFAULT_GAME, GAMES

EXIT_USAGE = 2


class TuiUsageError(Exception):
    """A command line that cannot be played (exit status 2, message on stderr)."""


def register(subparsers: Any) -> None:
    """Add ``play`` and ``replay`` to the ``panda-core`` subcommands."""
    play = subparsers.add_parser(
        "play",
        help="play a game against the bots in the terminal",
        description="Play Panda Head, year or spin against the bots in the terminal "
        "(docs/play_terminal.md). Type a move's number or its notation; ? for help, q saves "
        "the record and quits.",
    )
    play.add_argument(
        "--game",
        choices=GAMES,
        default=DEFAULT_GAME,
        help=" or ".join([", ".join(GAMES[:-1]), GAMES[-1]]),
    )
    play.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    who = play.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    who.add_argument(
        "--hot-seat",
        metavar="SEATS",
        help="several people at one terminal: their seats, comma-separated (e.g. 0,2)",
    )
    play.add_argument(
        "--bots",
        default="heuristic",
        help="comma-separated bots for the other seats in seat order, repeated to fill them "
        "(random, heuristic, ismcts:N, neural, neural:PATH, ismcts+neural:N, module:attr); "
        "default heuristic",
    )
    play.add_argument("--seed", type=_seed, default=None, help="deal seed (default: random)")
    play.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule setting (make()'s keyword arguments), e.g. bust_threshold=15; repeatable",
    )
    play.add_argument(
        "--bot-time", type=float, default=2.0, metavar="S", help="seconds per bot move (2)"
    )
    play.add_argument("--save", metavar="FILE", help="where to save the record (default: auto)")
    play.add_argument("--plain", action="store_true", help="plain text, no colours")
    play.set_defaults(func=cmd_play)

    replay = subparsers.add_parser(
        "replay",
        help="step through a recorded game, as everyone or as one seat",
        description="Step through a game record (docs/play_terminal.md): Enter/n next, p back, "
        "g K move K, r N hand/round N, s S seat S's view, s all, q quit.",
    )
    replay.add_argument("file", metavar="FILE", help="a game record (JSON)")
    replay.add_argument("--seat", type=int, default=None, help="show only what this seat knew")
    replay.add_argument("--log", action="store_true", help="print the text log and exit")
    replay.add_argument("--plain", action="store_true", help="plain text, no colours")
    replay.set_defaults(func=cmd_replay)


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError("must be in 0..=2**64-1")
    return value


def parse_rules(items: list[str]) -> dict[str, Any]:
    """``--rule key=value`` as keyword arguments: integers, true/false, none, else text."""
    rules: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise TuiUsageError(f"--rule takes KEY=VALUE (e.g. bust_threshold=15), got {item!r}")
        low = text.strip().lower()
        value: Any = text.strip()
        if low in ("true", "yes", "on"):
            value = True
        elif low in ("false", "no", "off"):
            value = False
        elif low == "none":
            value = None
        elif low.lstrip("-").isdigit():
            value = int(low)
        rules[key] = value
    return rules


def seat_specs(players: int, humans: list[int], bots: str) -> list[str]:
    """The seat list for the table: people at ``humans``, ``bots`` (repeated) elsewhere."""
    if not 2 <= players <= 5:
        raise TuiUsageError(f"--players must be 2 to 5, got {players}")
    for seat in humans:
        if not 0 <= seat < players:
            raise TuiUsageError(f"seat {seat} does not exist: seats are 0-{players - 1}")
    if len(set(humans)) != len(humans):
        raise TuiUsageError("--hot-seat names a seat twice")
    names = [b.strip() for b in bots.split(",") if b.strip()]
    others = players - len(humans)
    if others and not names:
        raise TuiUsageError("--bots needs at least one bot name")
    if len(names) > max(others, 1):
        raise TuiUsageError(f"--bots names {len(names)} bots for {others} bot seats")
    seats, k = [], 0
    for seat in range(players):
        if seat in humans:
            seats.append("human:you" if len(humans) == 1 else f"human:player {seat}")
        else:
            seats.append(names[k % len(names)])
            k += 1
    return seats


def _humans(args: argparse.Namespace) -> list[int]:
    if args.hot_seat is None:
        return [args.seat]
    try:
        return [int(s) for s in args.hot_seat.split(",") if s.strip()]
    except ValueError:
        shown = args.hot_seat[:40]
        raise TuiUsageError(f"--hot-seat takes seat numbers like 0,1, got {shown!r}") from None


def _error(command: str, message: object) -> int:
    print(f"panda-core {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def cmd_play(args: argparse.Namespace, given: set[str] | None = None) -> int:
    from panda_core._core import PandaCoreError
    from panda_core.table import Table
    from panda_core.tui.play import PlaySession
    from panda_core.tui.terminal import Terminal, make_console

    try:
        seats = seat_specs(args.players, _humans(args), args.bots)
        table = Table(
            args.game,
            players=args.players,
            seats=seats,
            seed=args.seed,
            bot_time=args.bot_time,
            **parse_rules(args.rule),
        )
    except (TuiUsageError, PandaCoreError, TypeError, ValueError) as err:
        return _error("play", err)
    term = Terminal(make_console(args.plain), sys.stdin)
    save = Path(args.save) if args.save else None
    try:
        return PlaySession(table, term, save).run()
    except OSError as err:  # the record could not be written
        return _error("play", f"cannot save the record: {err}")
    finally:
        table.close()  # the bots' worker processes


def cmd_replay(args: argparse.Namespace, given: set[str] | None = None) -> int:
    from panda_core._core import PandaCoreError
    from panda_core.table import Replay
    from panda_core.tui.replay import ReplayViewer
    from panda_core.tui.terminal import Terminal, make_console

    try:
        replay = Replay.from_file(args.file)  # reads, size-checks and replays every move
        if args.log:
            return _print_log(replay.for_seat(args.seat).log())
        term = Terminal(make_console(args.plain), sys.stdin)
        viewer = ReplayViewer(replay, term, args.seat)
    except (PandaCoreError, TypeError, ValueError, KeyError, RecursionError) as err:
        said = str(err)
        return _error("replay", said if args.file in said else f"{args.file}: {said}")
    return viewer.run()


def _print_log(lines: list[str]) -> int:
    """``--log``: one line per event; a reader that stops early (``| head``) is no error."""
    try:
        for line in lines:
            sys.stdout.write(f"{line}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
