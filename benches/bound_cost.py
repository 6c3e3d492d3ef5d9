"""What the move bound costs the climbing search, in instructions (issue 24).

Every climbing move generation stops at ``MAX_LEGAL_MOVES`` moves and ``MAX_SEARCH_NODES``
search nodes (contract §5.3), so no position can take unbounded memory or time. The checks run
at every search node and every move found. This script measures their price: it builds the
``ismcts_eval`` example twice, from the committed ``HEAD`` and from ``HEAD`` with
``benches/unbounded.patch`` applied (every check of the fast generation path and of the panda
expansion compiled out; the general path, which the shipped deck never takes, is left as it is),
runs both under callgrind on the same ISMCTS games, and prints the extra instructions as a share
of the bounded build's. Instruction counts do not depend on the machine's load, so one run of
each is enough.

    python benches/bound_cost.py [--games 4] [--bot ismcts:200] [--json bound.json]

``benches/report.py --bound bound.json`` prints the share beside the other issue-24 targets.

Needs ``valgrind`` (Debian package) and a Rust toolchain; takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATCH = ROOT / "benches" / "unbounded.patch"
EXAMPLE = Path("release") / "examples" / "ismcts_eval"


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, check=True, text=True, capture_output=True)


def build(tree: Path, target: Path) -> Path:
    cmd = ["cargo", "build", "--release", "--example", "ismcts_eval", "--target-dir", str(target)]
    run(cmd, tree)
    return target / EXAMPLE


def instructions(binary: Path, game: str, games: int, bot: str, work: Path) -> int:
    """Instructions callgrind counts for ``games`` games of ``bot`` against three heuristics."""
    out = work / f"callgrind.{binary.parents[2].name}.{game}"
    args = [str(binary), game, str(games), "1", bot, "heuristic", "heuristic", "heuristic"]
    done = run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *args], work)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"callgrind printed no instruction count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4, help="games per climbing preset")
    parser.add_argument("--bot", default="ismcts:200", help="the search bot in seat 0")
    parser.add_argument("--json", type=Path, help="write the counts here (for benches/report.py)")
    args = parser.parse_args()
    commit = run(["git", "rev-parse", "HEAD"], ROOT).stdout.strip()
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="panda-bound-") as tmp:
        work = Path(tmp)
        trees = {name: work / name for name in ("bounded", "unbounded")}
        for tree in trees.values():
            run(["git", "worktree", "add", "--detach", str(tree), "HEAD"], ROOT)
        try:
            run(["git", "apply", str(PATCH)], trees["unbounded"])
            print("building HEAD and HEAD without the bound's checks ...", flush=True)
            bounded = build(trees["bounded"], work / "bounded-target")
            unbounded = build(trees["unbounded"], work / "unbounded-target")
            print("| game | bounded | unbounded | bound's share |")
            print("|---|---|---|---|")
            for game in ("year", "spin"):
                with_bound = instructions(bounded, game, args.games, args.bot, work)
                without = instructions(unbounded, game, args.games, args.bot, work)
                counts[game] = {"bounded": with_bound, "unbounded": without}
                share = (with_bound - without) / with_bound
                print(f"| {game} | {with_bound:,} | {without:,} | {share:.2%} |", flush=True)
        finally:
            for tree in trees.values():
                run(["git", "worktree", "remove", "--force", str(tree)], ROOT)
    if args.json is not None:
        doc = {"commit": commit, "bot": args.bot, "games_per_preset": args.games, "games": counts}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
