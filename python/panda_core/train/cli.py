"""``panda-core train``: train a policy by self-play from the command line
(docs/train_your_agent.md).

Only argparse and the shared CLI pieces are imported at load time; JAX and the trainer are
imported when the command runs, so the other subcommands neither pay for them nor need the
``train`` extra.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from panda_core._cli_common import (
    INTERRUPTED,
    Default,
    UsageError,
    add_game_options,
    add_quiet_option,
    add_threads_option,
    int_in,
    keep_default,
    progress_bar,
)
from panda_core._core import PandaCoreError, check_players

__all__ = ["register"]


def _widths(text: str) -> tuple[int, ...]:
    """``--hidden 256,128``: comma-separated layer widths."""
    try:
        widths = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated widths such as 256,128, got {text[:40]!r}"
        ) from None
    return widths


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text[:40]!r}") from None


def _epsilon(text: str) -> tuple[float, float | None]:
    """``--epsilon START[:END]``: a constant rate, or a linear schedule over the budget."""
    start, sep, end = text.partition(":")
    return _number(start), (_number(end) if sep else None)


def _target(text: str) -> str:
    """``--target game|round|mix:ALPHA`` (checked with the settings)."""
    return text


def register(sub: Any, default: Default = keep_default) -> None:
    """Add ``train`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    from panda_core.train.settings import MAX_NUM_ENVS, TrainSettings  # no JAX: a dataclass

    base = TrainSettings()
    cmd = sub.add_parser(
        "train",
        help="train a policy by self-play (Deep Monte-Carlo; extra [train])",
        description="Train a network by self-play Deep Monte-Carlo (DouZero) and write the run "
        "to --out: policy.safetensors (play it as the bot neural:OUT/policy.safetensors), "
        "train_state, curve.csv and curve.png. The same command again resumes the run (a "
        "larger --decisions extends it); Ctrl-C saves a checkpoint and stops (exit status 130).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_game_options(cmd, default)
    cmd.add_argument("--out", required=True, metavar="DIR", help="the run folder")
    cmd.add_argument(
        "--decisions",
        "-n",
        type=int_in(1, 2**53),
        default=default(base.decisions),
        help="self-play decisions to train on (the budget of the whole run)",
    )
    cmd.add_argument("--seed", type=int_in(0, 2**64 - 1), default=default(base.seed), help="seed")
    cmd.add_argument(
        "--num-envs",
        type=int_in(1, MAX_NUM_ENVS),
        default=default(base.num_envs),
        help="games played side by side",
    )
    cmd.add_argument(
        "--hidden",
        type=_widths,
        default=default(base.hidden),
        metavar="W,W,...",
        help="hidden layer widths",
    )
    cmd.add_argument("--lr", type=_number, default=default(base.lr), help="Adam learning rate")
    cmd.add_argument(
        "--batch-size", type=int_in(1, 65_536), default=default(base.batch_size), help="batch"
    )
    cmd.add_argument(
        "--epsilon",
        type=_epsilon,
        default=default(str(base.epsilon)),  # argparse parses a str default
        metavar="START[:END]",
        help="probability of a random legal move in self-play; START:END falls linearly from "
        "START to END over the budget",
    )
    recipe = cmd.add_argument_group("the recipe's options (each off by default)")
    recipe.add_argument(
        "--target",
        type=_target,
        default=default(base.target),
        metavar="game|round|mix:ALPHA",
        help="what a decision learns: the game's result, its round's (hand's) value, or "
        "ALPHA * round + (1 - ALPHA) * game",
    )
    recipe.add_argument(
        "--skip-forced",
        action="store_true",
        default=default(base.skip_forced),
        help="do not learn from decisions with a single legal move",
    )
    recipe.add_argument(
        "--replay-window",
        type=int_in(1, 4096),
        default=default(base.replay_window),
        metavar="BATCHES",
        help="learn once this many batches of finished decisions are ready, shuffled together",
    )
    recipe.add_argument(
        "--lr-schedule",
        choices=("constant", "cosine", "linear"),
        default=default(base.lr_schedule),
        help="the learning rate over the budget (cosine, linear: down to 0 at the end)",
    )
    recipe.add_argument(
        "--warmup",
        type=int_in(0, 2**53),
        default=default(base.warmup),
        metavar="DECISIONS",
        help="decisions over which the learning rate rises from 0",
    )
    recipe.add_argument(
        "--clip-grad",
        type=_number,
        default=default(base.clip_grad),
        metavar="NORM",
        help="clip each gradient to this global norm",
    )
    recipe.add_argument(
        "--ema",
        type=_number,
        default=default(base.ema),
        metavar="DECAY",
        help="write and evaluate a moving average of the weights with this decay (e.g. 0.999)",
    )
    recipe.add_argument(
        "--opponents",
        default=default(base.opponents),
        metavar="SPEC",
        help="self (self-play everywhere), or KIND:FRACTION,... : that fraction of the envs "
        "seats the learner in one seat per game (rotating) and KIND in the others (random, "
        "heuristic, neural, ismcts[:N], ismcts+neural[:N], or past: a past self); the rest "
        "self-play. E.g. heuristic:0.25,past:0.25",
    )
    recipe.add_argument(
        "--past-every",
        type=int_in(1, 2**53),
        default=default(base.past_every),
        metavar="DECISIONS",
        help="decisions between two snapshots of the weights kept as past selves (the last 4)",
    )
    start = cmd.add_argument_group("where the weights start (docs/train_your_agent.md)")
    start.add_argument(
        "--init",
        dest="init_policy",
        default=default(base.init_policy),
        metavar="POLICY",
        help="start from this policy file's weights instead of random ones (fine-tuning: a "
        "shipped policy or another run's checkpoint; the run's --hidden must be the file's)",
    )
    warm = cmd.add_argument_group("warm start from search (docs/train_your_agent.md)")
    warm.add_argument(
        "--warm-start",
        default=default(base.warm_start),
        metavar="DATASET",
        help="before self-play, fit the network to the search's move values in this self-play "
        "dataset (written with panda-core selfplay --bots ismcts:400 --search-stats "
        "--move-features)",
    )
    warm.add_argument(
        "--warm-start-epochs",
        type=int_in(1, 1000),
        default=default(base.warm_start_epochs),
        metavar="N",
        help="passes over the warm start dataset",
    )
    warm.add_argument(
        "--warm-start-min-visits",
        type=int_in(1, 2**31 - 1),
        default=default(base.warm_start_min_visits),
        metavar="N",
        help="learn only the moves the search visited at least this often",
    )
    cmd.add_argument(
        "--eval-every",
        type=int_in(1, 2**53),
        default=default(base.eval_every),
        help="decisions between evaluations (a checkpoint and a curve row each)",
    )
    cmd.add_argument(
        "--eval-games",
        type=int_in(0, 1_000_000),
        default=default(base.eval_games),
        help="games per evaluation line-up (vs 3 heuristic, vs 3 random); 0: none",
    )
    add_threads_option(cmd, default, "engine threads (self-play envs and evaluation games)")
    add_quiet_option(cmd, default)
    cmd.set_defaults(func=_cmd_train)


def _row_text(row: Any) -> str:
    def rate(win: Any) -> str:
        if not win.games:
            return "-"
        low, high = win.interval
        return f"{win.rate:.1%} [{low:.1%}, {high:.1%}]"

    loss = "-" if row.loss != row.loss else f"{row.loss:.4f}"  # NaN before the first step
    return (
        f"decisions {row.decisions:>12,}  {row.seconds:>8.1f} s  loss {loss}  "
        f"vs heuristic {rate(row.heuristic)}  vs random {rate(row.random)}"
    )


def _cmd_train(args: argparse.Namespace, given: set[str]) -> int:
    try:
        check_players(args.players)
    except PandaCoreError as err:
        raise UsageError(str(err)) from None
    try:
        from panda_core.train.run import train
        from panda_core.train.settings import TrainSettings
    except ImportError as err:  # the train extra is not installed
        raise UsageError(
            f"panda-core train needs JAX: pip install 'panda-core[train]' ({err})"
        ) from None
    settings = TrainSettings(
        game=args.game,
        players=args.players,
        seed=args.seed,
        decisions=args.decisions,
        num_envs=args.num_envs,
        hidden=args.hidden,
        lr=args.lr,
        batch_size=args.batch_size,
        epsilon=args.epsilon[0],
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        threads=args.threads,
        target=args.target,
        skip_forced=args.skip_forced,
        replay_window=args.replay_window,
        lr_schedule=args.lr_schedule,
        warmup=args.warmup,
        clip_grad=args.clip_grad,
        ema=args.ema,
        epsilon_end=args.epsilon[1],
        opponents=args.opponents,
        past_every=args.past_every,
        warm_start=args.warm_start,
        warm_start_epochs=args.warm_start_epochs,
        warm_start_min_visits=args.warm_start_min_visits,
        init_policy=args.init_policy,
    )
    bar = progress_bar(settings.decisions, args.quiet, "decisions")
    shown = {"done": 0}

    def progress(decisions: int, row: Any) -> None:
        if bar is not None:
            bar.update(max(0, min(decisions, settings.decisions) - shown["done"]))
        shown["done"] = max(shown["done"], min(decisions, settings.decisions))
        if row is not None:
            text = _row_text(row)
            if bar is not None:
                bar.write(text)
            else:
                print(text, flush=True)

    print(
        f"panda-core train: game={settings.game} players={settings.players} "
        f"seed={settings.seed} decisions={settings.decisions:,} out={args.out}"
        + (f" warm-start={settings.warm_start}" if settings.warm_start is not None else "")
        + (f" init={settings.init_policy}" if settings.init_policy is not None else ""),
        flush=True,
    )
    try:
        result = train(settings, args.out, progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        from pathlib import Path

        if (Path(args.out) / "train_state.safetensors").exists():
            text = (
                f"interrupted at {shown['done']:,} decisions; the checkpoint is in {args.out}: "
                "run the same command again to resume"
            )
        else:  # stopped before the first checkpoint (in the warm start): nothing was kept
            text = (
                f"interrupted before the first checkpoint (nothing of it is kept in {args.out}): "
                "run the same command again to start the run again"
            )
        print(text, file=sys.stderr)
        return INTERRUPTED
    if bar is not None:
        bar.close()
    print(
        f"trained {result.decisions:,} decisions in {result.seconds:.1f} s "
        f"({result.decisions / max(result.seconds, 1e-9):,.0f} decisions/s)\n"
        f"policy: {result.policy} (bot neural:{result.policy})\n"
        f"curve: {result.out / 'curve.csv'}, {result.out / 'curve.png'}"
    )
    return 0
