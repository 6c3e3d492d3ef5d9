"""``panda-core selfplay``: write a self-play dataset from the command line (docs/selfplay.md).

This module imports only argparse and the shared CLI pieces at load time; pyarrow and the
dataset code are imported when the command runs, so ``panda-core simulate`` does not pay for
them (and works without the ``dataset`` extra).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from panda_core._cli_common import (
    INTERRUPTED,
    Default,
    UsageError,
    add_backend_options,
    add_game_options,
    add_quiet_option,
    add_rule_options,
    check_backend_options,
    check_rule_options,
    int_in,
    keep_default,
    progress_bar,
    seat_bots,
)
from panda_core._registry import GAMES, spec
from panda_core.selfplay.limits import (  # plain constants: no pyarrow
    GAME_TIME,
    MAX_EPISODES,
    MAX_SECONDS,
    MAX_SHARDS,
    MOVE_TIME,
)

__all__ = ["FAILED", "register"]

FAILED = 1
"""Exit status when some shards could not be written (a bot failed; the rest are written)."""


def register(sub: Any, default: Default = keep_default) -> None:
    """Add ``selfplay`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    cmd = sub.add_parser(
        "selfplay",
        help="write a dataset of bot games, one row per decision (Parquet)",
        description="Play games with bots and write every decision (observation, legal actions, "
        "action, reward, outcome, ...) to Parquet shards in --out (docs/selfplay.md). A rerun "
        "of the same command skips the shards already written; Ctrl-C keeps the finished "
        "shards (exit status 130); a bot that fails fails its shard only (exit status 1).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_game_options(cmd, default)
    cmd.add_argument(
        "--bots",
        default=default("heuristic"),
        help="comma-separated bots, at most one per seat, repeated to fill the seats: "
        "random, heuristic, ismcts:N, neural, neural:PATH, a protocol bot exec:COMMAND (a "
        "command without commas, split like a shell would), a language model llm:MODEL, or a "
        "Python bot package.module:Name",
    )
    cmd.add_argument(
        "--episodes",
        "-n",
        type=int_in(0, MAX_EPISODES),
        default=default(1000),
        help=f"games (at most {MAX_EPISODES:,}, in at most {MAX_SHARDS:,} shards)",
    )
    cmd.add_argument(
        "--seed", type=int_in(0, 2**64 - 1), default=default(0), help="seed (0..2**64-1)"
    )
    cmd.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="output folder, or a URI pyarrow can write (s3://bucket/dir for a Ray cluster)",
    )
    cmd.add_argument(
        "--shard-episodes",
        type=int_in(1, 2**63 - 1),
        default=default(100),
        help="episodes per file",
    )
    cmd.add_argument(
        "--move-time",
        type=seconds_in(MAX_SECONDS),
        default=default(MOVE_TIME),
        metavar="S",
        help="seconds a Python bot's move may take (an overrun fails its shard)",
    )
    cmd.add_argument(
        "--game-time",
        type=seconds_in(MAX_SECONDS),
        default=default(GAME_TIME),
        metavar="S",
        help="seconds per episode after which a shard's worker is stopped",
    )
    add_backend_options(cmd, default, "shards")
    cmd.add_argument(
        "--move-features",
        action="store_true",
        default=default(False),
        help="also write every legal move's features (games "
        f"{', '.join(g for g in GAMES if spec(g).move_features)}; about 2.6 times the bytes "
        "and a third of the writing speed)",
    )
    cmd.add_argument(
        "--search-stats",
        action="store_true",
        default=default(False),
        help="write each search bot's (ismcts:N, ismcts+neural:N) root visits and values per "
        "legal action (search_visits, search_values): the same moves, one search each",
    )
    add_quiet_option(cmd, default)
    add_rule_options(cmd, default)
    cmd.set_defaults(func=_cmd_selfplay)


def seconds_in(most: float) -> Any:
    """An argparse type: a number of seconds in (0, ``most``]."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected seconds, got {text[:40]!r}") from None
        if not 0 < value <= most:  # NaN fails too
            raise argparse.ArgumentTypeError(f"must be more than 0 and at most {most:g}")
        return value

    return parse


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    raise AssertionError("unreachable")


def _cmd_selfplay(args: argparse.Namespace, given: set[str]) -> int:
    check_rule_options(args, given)
    check_backend_options(args)
    if args.backend == "ray" and "workers" in given:
        raise UsageError("--workers does not apply to --backend ray (Ray runs a task per CPU)")
    try:
        from panda_core.selfplay.run import SelfPlayError, selfplay
    except ImportError as err:  # the dataset extra is not installed
        raise UsageError(
            f"panda-core selfplay needs pyarrow: pip install 'panda-core[dataset]' ({err})"
        ) from None
    bots = seat_bots(args.bots, args.players)
    rules = spec(args.game).cli_rules(args)
    bar = progress_bar(args.episodes, args.quiet, "episodes")
    state = {"done": 0}

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(done - state["done"])
        state["done"] = done

    start = time.perf_counter()
    try:
        info = selfplay(
            args.out,
            game=args.game,
            players=args.players,
            bots=bots,
            episodes=args.episodes,
            seed=args.seed,
            rules=rules,
            shard_episodes=args.shard_episodes,
            workers=args.workers,
            backend=args.backend,
            address=args.address,
            progress=progress,
            move_features=args.move_features,
            move_time=args.move_time,
            game_time=args.game_time,
            search_stats=args.search_stats,
        )
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(
            f"interrupted after {state['done']} of {args.episodes} episodes; the finished "
            f"shards are kept in {args.out}: run the same command again to resume",
            file=sys.stderr,
        )
        return INTERRUPTED
    except SelfPlayError as err:
        if bar is not None:
            bar.close()
        print(f"panda-core: error: {err}", file=sys.stderr)
        return FAILED
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - start
    kept = f" ({info.skipped} already there)" if info.skipped else ""
    print(
        f"panda-core selfplay: game={args.game} players={args.players} bots={','.join(bots)} "
        f"seed={args.seed}\n"
        f"episodes: {info.episodes}\n"
        f"decisions: {info.decisions}\n"
        f"files: {len(info.shards)}{kept} in {info.path}\n"
        f"bytes: {info.bytes} ({_size(info.bytes)})\n"
        f"seconds: {seconds:.2f} ({info.decisions / max(seconds, 1e-9):,.0f} decisions/s)"
    )
    return 0
