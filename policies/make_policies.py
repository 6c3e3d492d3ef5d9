"""Train the policies shipped in panda-core (``policies/{game}.safetensors``) and write
``policies/MANIFEST.json``: the committed command behind the built-in ``neural`` bot.

    python policies/make_policies.py                 # all three games (about an hour)
    python policies/make_policies.py --games head    # one game

Each game is one ``panda_core.train`` run with a fixed seed and decision budget (``RUNS``), in
``--work`` (default ``policies/runs/``, not committed): rerunning the command resumes unfinished
runs and leaves finished ones alone, so the files are the same whenever and however often it is
run (the policy files byte for byte; the manifest's wall times are the runs' own).

The policy shipped is the run's best checkpoint on held-out deals: every curve row's policy
(the run keeps them in ``checkpoints/``) plays ``HELD_OUT_GAMES`` games against three heuristic
bots on deals of its own seed (not the curve's, not the strength benchmark's), and the best wins
(ties: the earlier). Those rates go to ``policies/checkpoints_{game}.csv``. The learning curves,
with ``ismcts:200``'s win rate on the curve's own deals as a line, are drawn to
``docs/img/train_{game}.png`` (docs/train_your_agent.md shows them).

A game may have a second run, a fine-tune (``FINE_TUNES``): it starts from the first run's shipped
checkpoint (``--init``), plays on with its own settings, and its best checkpoint on the same
held-out deals is shipped instead. Its first curve row is the first run's checkpoint itself, so
the held-out choice never ships worse than the first run on those deals. Its files are
``policies/curve_{game}_tune.csv``, ``policies/checkpoints_{game}_tune.csv`` and
``docs/img/train_{game}_tune.png``; the manifest entry describes the shipped file and keeps the
first run's under ``base``. The fine-tune's settings pin the first run's checkpoint by the
sha256 of its tensors, so ``--base FILE`` may give that checkpoint when the first run's folder is
gone (the file is checked against the manifest's ``base``): the fine-tune is then the same run.

After replacing the files, rebuild the extension (it embeds them): ``maturin develop --release``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from panda_core._registry import GAMES, spec
from panda_core.train import TrainSettings, read_policy, train
from panda_core.train.curve import CurveRow, draw_curve
from panda_core.train.evaluate import evaluate, win_rates  # the module shadows the name
from panda_core.train.run import checkpoint_policies, eval_seed

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MANIFEST = HERE / "MANIFEST.json"

SEED = 12
"""The seed of every shipped run (issue 12)."""
HELD_OUT_SEED = 2
"""The held-out deals the best checkpoint is chosen on: ``SeedSequence([SEED, 2])``."""
HELD_OUT_GAMES = 2000
SEARCH = "ismcts:200"
"""The search bot drawn beside each curve, on the curve's deals."""
RUNS: dict[str, TrainSettings] = {
    "head": TrainSettings(
        game="head", seed=SEED, decisions=30_000_000, num_envs=256, eval_every=3_000_000,
        eval_games=1000, target="round",
    ),
    "year": TrainSettings(
        game="year", seed=SEED, decisions=40_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000, target="round",
    ),
    "spin": TrainSettings(
        game="spin", seed=SEED, decisions=40_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000, target="round",
    ),
}  # fmt: skip
"""The shipped runs: 4 players, the trainer's default network and learning settings, and the
recipe options that won their A/B runs (docs/train_your_agent.md#what-each-option-gained)."""
TUNE_SEED = 13
"""The fine-tunes' seed: self-play and curve deals other than the first runs'."""
FINE_TUNES: dict[str, TrainSettings] = {
    "year": TrainSettings(
        game="year", seed=TUNE_SEED, decisions=15_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000, target="round", lr=1e-4, opponents="heuristic:0.75",
    ),
    "spin": TrainSettings(
        game="spin", seed=TUNE_SEED, decisions=15_000_000, num_envs=64, eval_every=1_500_000,
        eval_games=1000, target="round", lr=1e-4, opponents="heuristic:0.75",
    ),
}  # fmt: skip
"""Second runs from the first run's shipped checkpoint (``init_policy`` is filled in): the one
that won its A/B run against the first run's recipe continued (docs/train_your_agent.md)."""


def held_out_seed() -> int:
    import numpy as np

    return int(np.random.SeedSequence([SEED, HELD_OUT_SEED]).generate_state(1)[0])


def choose(game: str, settings: TrainSettings, out: Path) -> tuple[int, Path, list[str]]:
    """The best checkpoint of the run in ``out`` on the held-out deals: its decisions, its file
    and the CSV rows of every checkpoint's rate (cached in ``out/held_out.csv``)."""
    cache = out / "held_out.csv"
    known: dict[int, str] = {}
    if cache.exists():
        for line in cache.read_text().splitlines()[1:]:
            fields = line.split(",")
            try:  # a damaged row is played again, never trusted
                decisions, games, rate = int(fields[0]), int(fields[1]), float(fields[2])
            except (ValueError, IndexError):
                continue
            if len(fields) == 5 and games == HELD_OUT_GAMES and 0.0 <= rate <= 1.0:
                known[decisions] = line
    seed = held_out_seed()
    best: tuple[float, int, Path] | None = None
    for decisions, path in checkpoint_policies(out).items():
        if decisions not in known:
            rate = evaluate(path, settings.game, settings.players, HELD_OUT_GAMES, seed)
            won = rate["heuristic"]
            low, high = won.interval
            known[decisions] = f"{decisions},{won.games},{won.rate:.4f},{low:.4f},{high:.4f}"
            header = "decisions,games,win_vs_heuristic,low,high\n"
            cache.write_text(header + "\n".join(known[d] for d in sorted(known)) + "\n")
            print(f"{game}: checkpoint {decisions:,}: held out vs 3 heuristic {won.rate:.1%}")
        rate_now = float(known[decisions].split(",")[2])
        if best is None or rate_now > best[0]:
            best = (rate_now, decisions, path)
    if best is None:
        raise SystemExit(f"{game}: the run in {out} kept no checkpoints")
    rows = ["decisions,games,win_vs_heuristic,low,high"] + [known[d] for d in sorted(known)]
    return best[1], best[2], rows


def search_line(game: str, settings: TrainSettings, out: Path) -> float:
    """``ismcts:200``'s win rate against three heuristic bots on the curve's deals (cached in
    ``out/search_line.json``: a fixed-iteration search is deterministic given the seed)."""
    cache = out / "search_line.json"
    key = {"bot": SEARCH, "games": settings.eval_games, "seed": settings.seed}
    if cache.exists():
        saved = json.loads(cache.read_text())
        if saved.get("key") == key:
            return float(saved["rate"])
    rate = win_rates(
        SEARCH, settings.game, settings.players, settings.eval_games, eval_seed(settings.seed),
        opponents=("heuristic",),
    )["heuristic"].rate  # fmt: skip
    cache.write_text(json.dumps({"key": key, "rate": rate}) + "\n")
    return rate


def _row(row: CurveRow | None) -> str:
    if row is None:
        return ""
    loss = "-" if row.loss != row.loss else f"{row.loss:.4f}"  # NaN before the first step
    return (
        f"  {row.decisions:>12,} decisions {row.seconds:>7.0f} s  loss {loss}  "
        f"vs heuristic {row.heuristic.rate:.1%}  vs random {row.random.rate:.1%}"
    )


def make(game: str, work: Path, base: Path | None = None) -> dict[str, Any]:
    """Train (or resume) ``game``'s run and its fine-tune, if any; copy the shipped policy and
    the curves into place; the game's manifest entry. ``base``: the first run's chosen
    checkpoint, given instead of training the first run (a fine-tuned game only)."""
    started = time.perf_counter()
    if base is None:
        best, entry = run_stage(game, RUNS[game], work / game, "")
    else:
        best, entry = given_base(game, base)
    tune = FINE_TUNES.get(game)
    if tune is not None:
        base_sha = read_policy(best).metadata["sha256"]  # the run's settings pin it
        tune = replace(tune, init_policy=str(best), init_policy_sha256=base_sha)
        best, tuned = run_stage(game, tune, work / f"{game}-tune", "_tune")
        entry = {**tuned, "base": {k: v for k, v in entry.items() if k != "base"}}
    target = HERE / f"{game}.safetensors"
    shutil.copyfile(best, target)
    entry = {
        "file": target.name,
        "file_sha256": hashlib.sha256(target.read_bytes()).hexdigest(),
        **entry,
    }
    print(f"{game}: done in {time.perf_counter() - started:.0f} s this session", flush=True)
    return entry


def given_base(game: str, base: Path) -> tuple[Path, dict[str, Any]]:
    """The first run's checkpoint given as a file (``--base``), checked to be the one the
    manifest's ``game`` entry records, and that entry's description of the first run."""
    if game not in FINE_TUNES:
        raise SystemExit(f"--base is for a game with a fine-tune ({sorted(FINE_TUNES)})")
    entries = {e["game"]: e for e in json.loads(MANIFEST.read_text())["policies"]}
    recorded = entries[game].get("base", entries[game])
    found = read_policy(base).metadata["sha256"]
    if found != recorded["tensors_sha256"]:
        raise SystemExit(
            f"{base}: its tensors' sha256 is {found[:12]}…, the manifest's first {game} run "
            f"shipped {recorded['tensors_sha256'][:12]}…: not that checkpoint"
        )
    return base, {k: v for k, v in recorded.items() if k not in ("file", "file_sha256")}


def run_stage(
    game: str, settings: TrainSettings, out: Path, suffix: str
) -> tuple[Path, dict[str, Any]]:
    """Train (or resume) one run in ``out``, choose its best checkpoint on the held-out deals,
    write its curve and held-out rates (``{name}{suffix}``); the checkpoint and its entry."""

    def progress(decisions: int, row: CurveRow | None) -> None:
        if row is not None:
            print(f"{game}{suffix}:{_row(row)}", flush=True)

    result = train(settings, out, progress)
    chosen, best, held_out = choose(game, settings, result.out)
    (HERE / f"checkpoints_{game}{suffix}.csv").write_text("\n".join(held_out) + "\n")
    search = search_line(game, settings, result.out)
    draw_curve(
        result.curve,
        ROOT / "docs" / "img" / f"train_{game}{suffix}.png",
        f"panda-core train: {spec(settings.game).title}, {settings.players} players, "
        f"seed {settings.seed}{' (fine-tune)' if suffix else ''} "
        f"(shipped: {chosen:,} decisions)",
        1 / settings.players,
        {f"{SEARCH} vs 3 heuristic": search},
    )
    shutil.copyfile(result.out / "curve.csv", HERE / f"curve_{game}{suffix}.csv")
    policy = read_policy(best)
    meta = policy.metadata
    last = next(r for r in result.curve if r.decisions == chosen)
    held = next(line for line in held_out[1:] if int(line.split(",")[0]) == chosen).split(",")
    return best, {
        "game": game,
        "kind": meta["kind"],
        "observation_layout": meta["observation_layout"],
        "move_features_layout": meta.get("move_features_layout"),
        "layers": policy.sizes,
        "tensors_sha256": meta["sha256"],
        "players": settings.players,
        "seed": settings.seed,
        "decisions": result.decisions,
        "checkpoint": chosen,
        "held_out_vs_3_heuristic": {
            "rate": float(held[2]),
            "games": int(held[1]),
            "seed": [SEED, HELD_OUT_SEED],
        },
        "search_line": {"bot": SEARCH, "vs_3_heuristic": round(search, 4)},
        "train_seconds": round(result.seconds, 1),
        "settings": _shown_settings(settings),
        "checkpoint_win_rate": {
            "vs_3_heuristic": round(last.heuristic.rate, 4),
            "vs_3_random": round(last.random.rate, 4),
            "games": last.heuristic.games,
        },
    }


def _shown_settings(settings: TrainSettings) -> dict[str, Any]:
    """The run's settings for the manifest: a fine-tune's ``init_policy`` is a path on the
    machine that ran it, so it reads ``base`` (the first run's checkpoint, which
    ``init_policy_sha256`` identifies)."""
    shown = settings.to_json()
    if "init_policy" in shown:
        shown["init_policy"] = "base"
    return shown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--work", type=Path, default=HERE / "runs", help="the runs' folders")
    parser.add_argument(
        "--base",
        type=Path,
        help="the first run's shipped checkpoint of a fine-tuned game (one game), instead of "
        "training the first run again (checked against the manifest)",
    )
    args = parser.parse_args(argv)
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in RUNS]
    if unknown:
        parser.error(f"unknown games {unknown}; the games are {list(RUNS)}")
    if args.base is not None and len(games) != 1:
        parser.error("--base gives one game's first-run checkpoint: name that game in --games")
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / ".gitignore").write_text("*\n")  # the runs are big and not shipped
    for game in games:
        entry = make(game, args.work, args.base)
        # Read the manifest again only now: another game's run may have finished meanwhile.
        entries = {}
        if MANIFEST.exists():
            entries = {e["game"]: e for e in json.loads(MANIFEST.read_text())["policies"]}
        entries[game] = entry
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
