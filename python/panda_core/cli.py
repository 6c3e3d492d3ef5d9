"""The ``panda-core`` command line: ``panda-core simulate`` plays many games with built-in bots."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TextIO

from panda_core._core import BOT_NAMES, ClimbSettings, HeadRules, PandaCoreError
from panda_core.simulate import GAMES, SimulationResult, simulate


class ProgressBar:
    """A one-line progress bar on a terminal stream, shown only once a run takes a moment."""

    def __init__(self, stream: TextIO, delay: float = 0.5, width: int = 30) -> None:
        self.stream = stream
        self.start = time.perf_counter()
        self.delay = delay
        self.width = width
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        elapsed = time.perf_counter() - self.start
        if elapsed < self.delay and not self.shown:
            return
        self.shown = True
        frac = done / total if total else 1.0
        filled = int(frac * self.width)
        rate = done / elapsed if elapsed > 0 else 0.0
        bar = "#" * filled + "-" * (self.width - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} games {rate:,.0f} games/s")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


def _seat_bots(spec: str, players: int) -> list[str]:
    names = [b.strip() for b in spec.split(",") if b.strip()]
    if not names:
        raise PandaCoreError("--bots needs at least one bot name")
    return [names[s % len(names)] for s in range(players)]


def format_table(result: SimulationResult) -> str:
    """The human-readable results table printed by ``panda-core simulate``."""
    rates = result.win_rates()
    games = result.games
    lines = [
        f"panda-core simulate: game={result.game} players={result.players} games={games} "
        f"seed={result.seed}",
        "",
        f"{'seat':>4}  {'bot':<10} {'wins':>8}  {'win rate':>8}",
    ]
    for seat, bot in enumerate(result.bots):
        wins = round(rates[seat] * games)
        lines.append(f"{seat:>4}  {bot:<10} {wins:>8}  {rates[seat]:>8.1%}")
    if len(set(result.bots)) > 1:
        lines += ["", f"{'bot':<10} {'win rate per seat':>18}"]
        for bot, rate in result.win_rates_by_bot().items():
            lines.append(f"{bot:<10} {rate:>18.1%}")
    mean_rounds = float(result.rounds.mean()) if games else 0.0
    unit = "hands" if result.game == "head" else "rounds"
    mean_decisions = float(result.decisions.mean()) if games else 0.0
    speed = games / result.seconds if result.seconds > 0 else float("inf")
    lines += [
        "",
        f"mean {unit} per game:{' ' * (10 - len(unit))}{mean_rounds:.2f}",
        f"mean decisions per game: {mean_decisions:.1f}",
        f"time: {result.seconds:.3f} s   {speed:,.0f} games/s   "
        f"{result.rounds.sum() / max(result.seconds, 1e-9):,.0f} {unit}/s",
    ]
    return "\n".join(lines)


def _cmd_simulate(args: argparse.Namespace) -> int:
    bots = _seat_bots(args.bots, args.players)
    rules = HeadRules(
        last_pile_scoring=args.last_pile_scoring,
        poor_panda=not args.no_poor_panda,
        lowest_only_when_cannot_follow=args.lowest_only_when_cannot_follow,
        bust_threshold=args.bust_threshold,
        special_cards=not args.no_special_cards,
    )
    settings = ClimbSettings(panda_mood=args.panda_mood) if args.game != "head" else None
    bar = ProgressBar(sys.stderr) if not args.quiet else None
    try:
        result = simulate(
            args.games,
            game=args.game,
            players=args.players,
            bots=bots,
            seed=args.seed,
            rules=rules,
            settings=settings,
            threads=args.threads,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(
            json.dumps(
                {
                    "game": result.game,
                    "players": result.players,
                    "games": result.games,
                    "seed": result.seed,
                    "bots": list(result.bots),
                    "win_rate_by_seat": [float(r) for r in result.win_rates()],
                    "win_rate_by_bot": result.win_rates_by_bot(),
                    "mean_rounds": float(result.rounds.mean()) if result.games else 0.0,
                    "seconds": result.seconds,
                }
            )
        )
    else:
        print(format_table(result))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="panda-core", description="Fast engines for the panda card games."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sim = sub.add_parser("simulate", help="play many games with built-in bots and print results")
    sim.add_argument(
        "--game",
        choices=GAMES,
        default="head",
        help="head (Panda Head), year (Year of the Panda) or spin (Panda Spin); default head",
    )
    sim.add_argument("--players", type=int, default=4, help="2 to 5 (default 4)")
    sim.add_argument("--games", "-n", type=int, default=10_000, help="games to play")
    sim.add_argument(
        "--bots",
        default="random",
        help=(
            "comma-separated bots, repeated to fill the seats; built-in: "
            f"{', '.join(BOT_NAMES)} (ismcts:N sets its iterations)"
        ),
    )
    sim.add_argument("--seed", type=int, default=0, help="batch seed (0..2**64-1)")
    sim.add_argument("--threads", type=int, default=None, help="worker threads (default: all)")
    sim.add_argument("--json", action="store_true", help="print a JSON summary instead")
    sim.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    head = sim.add_argument_group("Panda Head rules (RULES.md H-7)")
    head.add_argument("--last-pile-scoring", choices=("pile_sum", "own_card"), default="pile_sum")
    head.add_argument("--no-poor-panda", action="store_true")
    head.add_argument("--lowest-only-when-cannot-follow", action="store_true")
    head.add_argument("--bust-threshold", type=int, default=21)
    head.add_argument("--no-special-cards", action="store_true")
    climb = sim.add_argument_group("climbing games (RULES.md S-12)")
    climb.add_argument(
        "--panda-mood", choices=("hungry", "flip"), default="hungry", help="year: panda side"
    )
    sim.set_defaults(func=_cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except PandaCoreError as err:
        print(f"panda-core: error: {err}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
