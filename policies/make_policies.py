"""Train the policies shipped in panda-core (``policies/{game}.safetensors``) and write
``policies/MANIFEST.json``: the committed command behind the built-in ``neural`` bot.

    python policies/make_policies.py                 # all three games (about an hour)
    python policies/make_policies.py --games head    # one game

Each game is one ``panda_core.train`` run with a fixed seed and decision budget (``RUNS``), in
``--work`` (default ``policies/runs/``, not committed): rerunning the command resumes unfinished
runs and leaves finished ones alone, so the files are the same whenever and however often it is
run (the policy files byte for byte; the manifest's wall times are the runs' own). The learning
curves are copied to ``docs/img/train_{game}.png`` (docs/train_your_agent.md shows them).

After replacing the files, rebuild the extension (it embeds them): ``maturin develop --release``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

from panda_core._registry import GAMES
from panda_core.train import TrainSettings, read_policy, train
from panda_core.train.curve import CurveRow

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MANIFEST = HERE / "MANIFEST.json"

SEED = 12
"""The seed of every shipped run (issue 12)."""
RUNS: dict[str, TrainSettings] = {
    "head": TrainSettings(
        game="head", seed=SEED, decisions=100_000_000, num_envs=256, eval_every=10_000_000,
        eval_games=1000,
    ),
    "year": TrainSettings(
        game="year", seed=SEED, decisions=15_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000,
    ),
    "spin": TrainSettings(
        game="spin", seed=SEED, decisions=15_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000,
    ),
}  # fmt: skip
"""The shipped runs: 4 players, the trainer's default network and learning settings; budgets of
about twenty minutes each on a 2-core laptop CPU."""


def _row(row: CurveRow | None) -> str:
    if row is None:
        return ""
    loss = "-" if row.loss != row.loss else f"{row.loss:.4f}"  # NaN before the first step
    return (
        f"  {row.decisions:>12,} decisions {row.seconds:>7.0f} s  loss {loss}  "
        f"vs heuristic {row.heuristic.rate:.1%}  vs random {row.random.rate:.1%}"
    )


def make(game: str, work: Path) -> dict[str, Any]:
    """Train (or resume) ``game``'s run, copy its policy and curve into place; its manifest
    entry."""
    settings = RUNS[game]
    started = time.perf_counter()

    def progress(decisions: int, row: CurveRow | None) -> None:
        if row is not None:
            print(f"{game}:{_row(row)}", flush=True)

    result = train(settings, work / game, progress)
    target = HERE / f"{game}.safetensors"
    shutil.copyfile(result.policy, target)
    shutil.copyfile(result.out / "curve.png", ROOT / "docs" / "img" / f"train_{game}.png")
    shutil.copyfile(result.out / "curve.csv", HERE / f"curve_{game}.csv")
    policy = read_policy(target)
    meta = policy.metadata
    last = result.curve[-1]
    print(f"{game}: done in {time.perf_counter() - started:.0f} s this session", flush=True)
    return {
        "file": target.name,
        "game": game,
        "kind": meta["kind"],
        "observation_layout": meta["observation_layout"],
        "move_features_layout": meta.get("move_features_layout"),
        "layers": policy.sizes,
        "file_sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
        "tensors_sha256": meta["sha256"],
        "players": settings.players,
        "seed": settings.seed,
        "decisions": result.decisions,
        "train_seconds": round(result.seconds, 1),
        "settings": settings.to_json(),
        "final_win_rate": {
            "vs_3_heuristic": round(last.heuristic.rate, 4),
            "vs_3_random": round(last.random.rate, 4),
            "games": last.heuristic.games,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--work", type=Path, default=HERE / "runs", help="the runs' folders")
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in RUNS]
    if unknown:
        parser.error(f"unknown games {unknown}; the games are {list(RUNS)}")
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / ".gitignore").write_text("*\n")  # the runs are big and not shipped
    entries = {}
    if MANIFEST.exists():
        entries = {e["game"]: e for e in json.loads(MANIFEST.read_text())["policies"]}
    for game in games:
        entries[game] = make(game, args.work)
        manifest = {
            "format": "panda-core-policies",
            "format_version": 1,
            "command": "python policies/make_policies.py",
            "policies": [entries[g] for g in GAMES if g in entries],
        }
        MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
