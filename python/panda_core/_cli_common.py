"""Command-line pieces shared by the ``panda-core`` subcommands that play many games
(``simulate``, ``arena``, ``selfplay``): the rule options of every game, their check against
``--game``, integer arguments, the progress bar and the exit statuses."""

from __future__ import annotations

import argparse
import shutil
import sys
from typing import Any

from panda_core._cli_args import Default, int_in, keep_default
from panda_core._core import MAX_THREADS, PandaCoreError, check_players
from panda_core._registry import DEFAULT_GAME, GAMES, SPECS, spec
from panda_core.bot_import import takes_rest

__all__ = [
    "INTERRUPTED",
    "Default",
    "UsageError",
    "add_backend_options",
    "add_game_options",
    "add_rule_options",
    "check_backend_options",
    "check_rule_options",
    "int_in",
    "keep_default",
    "progress_bar",
    "seat_bots",
]

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


class UsageError(Exception):
    """A command line that asks for something that does not apply (exit status 2)."""


def add_rule_options(parser: argparse.ArgumentParser, default: Default) -> None:
    """Every game's rule options (the registry's), in one group per game family."""
    for title, add in dict.fromkeys(g.cli_group for g in SPECS.values()):
        add(parser.add_argument_group(title), default)


def add_game_options(parser: argparse.ArgumentParser, default: Default) -> None:
    """``--game`` and ``--players``."""
    parser.add_argument(
        "--game",
        choices=GAMES,
        default=default(DEFAULT_GAME),
        help="head (Panda Head), year (Year of the Panda) or spin (Panda Spin)",
    )
    parser.add_argument("--players", type=int, default=default(4), help="2 to 5")


def seat_bots(spec: str, players: int) -> list[str]:
    """``--bots``: comma-separated names repeated to fill the seats; more names than seats is a
    mistake, not something to drop silently. A ``neural:PATH``, ``ismcts+neural:N:PATH`` or
    ``exec:COMMAND`` takes the rest of the list, commas included (as in the arena's ``-e``)."""
    names: list[str] = []
    rest = spec
    while rest.strip():
        if takes_rest(rest.strip()):
            names.append(rest.strip())
            break
        name, _, rest = rest.partition(",")
        if name.strip():
            names.append(name.strip())
    if not names:
        raise UsageError("--bots needs at least one bot name")
    if len(names) > players:
        raise UsageError(
            f"--bots names {len(names)} bots ({', '.join(names)}) for {players} players; "
            "give at most one per seat (names repeat to fill the seats)"
        )
    return [names[s % len(names)] for s in range(players)]


def add_backend_options(parser: argparse.ArgumentParser, default: Default, what: str) -> None:
    """``--workers``, ``--backend`` and ``--address``: where ``what`` (games, shards) run
    (``panda_core.parallel``; docs/cluster.md)."""
    parser.add_argument(
        "--workers",
        type=int_in(0, 4096),
        default=default(None),
        help=f"worker processes for the {what} (default None: one per core; 0: this process)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default=default("local"),
        help="local worker processes, or Ray tasks (extra [ray]; docs/cluster.md)",
    )
    parser.add_argument(
        "--address",
        default=default(None),
        help="the Ray cluster's address (--backend ray; default: RAY_ADDRESS, or a local Ray)",
    )


def add_threads_option(parser: argparse.ArgumentParser, default: Default, what: str) -> None:
    """``--threads``: the engine's threads for ``what``."""
    parser.add_argument(
        "--threads",
        type=int_in(1, MAX_THREADS),
        default=default(None),
        help=f"{what} (default None: every core)",
    )


def add_quiet_option(parser: argparse.ArgumentParser, default: Default) -> None:
    """``--quiet``/``-q``: no progress bar."""
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=default(False),
        help="no progress bar (it is only drawn on a terminal anyway)",
    )


def check_backend_options(args: argparse.Namespace) -> None:
    """Refuse ``--address`` without ``--backend ray`` (it would be ignored silently)."""
    if args.address is not None and args.backend != "ray":
        raise UsageError("--address applies to --backend ray only")


def check_rule_options(args: argparse.Namespace, given: set[str]) -> None:
    """Refuse options that do not apply to ``--game`` (they would be ignored silently)."""
    mine = spec(args.game).cli_options
    for dest in sorted(given):
        owners = [g.name for g in SPECS.values() if dest in g.cli_options]
        if owners and dest not in mine:
            flag = next(g.cli_options[dest] for g in SPECS.values() if dest in g.cli_options)
            raise UsageError(
                f"{flag} applies to --game {' or '.join(owners)} only, not --game {args.game}"
            )
    try:
        check_players(args.players)  # the engine's rule, not restated here
    except PandaCoreError as err:
        raise UsageError(str(err)) from None


def progress_bar(total: int, quiet: bool, unit: str) -> Any:
    """A tqdm bar on stderr when it is a terminal (never in pipes, logs or CI), else ``None``."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # type: ignore[import-untyped]

    # A terminal that reports no size (a fresh pty, some IDE consoles) makes tqdm hide the bar
    # (zero width, zero rows): fall back to 80 x 24.
    size = shutil.get_terminal_size((80, 24))
    return tqdm(
        total=total,
        unit=unit,
        unit_scale=True,
        delay=0.5,
        ncols=size.columns,
        nrows=size.lines,
        file=sys.stderr,
    )
