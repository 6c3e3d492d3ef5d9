"""A/B runs: the same benchmark cases against two builds, interleaved, in one run (issue 24).

    python benches/ab.py BASE [HEAD] [--cases a,b,...] [--rounds N] [--json OUT] [--list]

BASE and HEAD are git revisions. HEAD defaults to this checkout's working tree as it is: the
package and the extension already built in ``python/panda_core`` (nothing is rebuilt, so
rebuild it after changing Rust). A revision is built once, as a release wheel, and cached by
its full commit id (below). Every case (``benches/ab_cases.py``, ``--list``) runs in a fresh
process per build with ``PYTHONPATH`` set to that build, one warm-up call not counted; a round
runs every case once per build, BASE first in odd rounds and HEAD first in even ones, so slow
drift of a shared machine falls on both. The table shows, per case, each round's HEAD/BASE
speed ratio (above 1: HEAD is faster), their median and range, and both builds' median rates.

Cache: a build is ``<cache>/<full commit id>/`` holding the wheel's ``panda_core/`` package and a
marker file written last (``COMPLETE``): an entry without it (a build interrupted while
unpacking, a disk that filled up) is removed and built again, never imported. The entry is
assembled in a temporary sibling directory and renamed into place, so a reader sees either no
entry or a whole one. The cache is ``$PANDA_CORE_AB_CACHE`` or ``~/.cache/panda-core/ab``;
cargo's target directory for these builds is ``<cache>/target``, shared by every revision so
that a second revision compiles only what changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ab_cases import CASES, UNITS, describe

MARKER = "COMPLETE"
BENCHES = Path(__file__).resolve().parent
REPO = BENCHES.parent
CASE_TIMEOUT = 300.0
"""Seconds one case's process may take (warm-up and timed call) before it counts as n/a."""


class AbError(Exception):
    """What ab.py refuses (an unknown revision, a failed build): printed, exit status 2."""


def cache_root() -> Path:
    env = os.environ.get("PANDA_CORE_AB_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "panda-core" / "ab"


def git(*args: str, repo: Path = REPO) -> str:
    out = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise AbError(f"git {' '.join(args)} failed: {out.stderr.strip() or out.stdout.strip()}")
    return out.stdout.strip()


def resolve(revision: str, repo: Path = REPO) -> str:
    """The full commit id of ``revision`` (a commit, branch, tag, ``HEAD~2``...)."""
    if not revision or revision.startswith("-"):
        raise AbError(f"{revision!r} is not a git revision (a commit id, branch or tag)")
    out = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0 or not out.stdout.strip():
        raise AbError(
            f"unknown revision {revision!r}: not a commit of {repo} "
            "(give a commit id, branch or tag that `git rev-parse` knows; fetch it first)"
        )
    return out.stdout.strip()


def loadable(extension: Path) -> bool:
    """Whether this interpreter can import the compiled module: an abi3 one (today's builds)
    or one built for exactly this Python (97a3c3f's builds were not abi3)."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return extension.name.endswith((".abi3.so", suffix))


def is_complete(entry: Path) -> bool:
    """An entry is usable only with its marker (written last), its package, and an extension
    this interpreter loads (a cache shared by two Pythons rebuilds a non-abi3 build)."""
    so = list((entry / "panda_core").glob("_core*.so"))
    return (
        (entry / MARKER).is_file()
        and (entry / "panda_core" / "__init__.py").is_file()
        and any(loadable(x) for x in so)
    )


def build_wheel(commit: str, out_dir: Path, log: Callable[[str], None]) -> Path:
    """Build ``commit``'s release wheel into ``out_dir`` from a temporary detached worktree;
    returns the wheel's path. The worktree is removed whatever happens."""
    with tempfile.TemporaryDirectory(prefix="panda-ab-src-") as tmp:
        src = Path(tmp) / "src"
        git("worktree", "add", "--detach", "--quiet", str(src), commit)
        try:
            env = dict(os.environ, CARGO_TARGET_DIR=str(cache_root() / "target"))
            cmd = [sys.executable, "-m", "maturin", "build", "--release", "-q"]
            cmd += ["-i", sys.executable, "-o", str(out_dir)]
            log(f"building {commit[:12]} (release; a cold build takes minutes) ...")
            started = time.monotonic()
            done = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True)
            if done.returncode != 0:
                tail = "\n".join((done.stderr or done.stdout).splitlines()[-30:])
                raise AbError(f"maturin build of {commit[:12]} failed:\n{tail}")
            log(f"built {commit[:12]} in {time.monotonic() - started:.0f} s")
        finally:
            try:
                git("worktree", "remove", "--force", str(src))
            except AbError:
                git("worktree", "prune")  # the directory goes with the temporary one
    wheels = sorted(out_dir.glob("panda_core-*.whl"))
    if len(wheels) != 1:
        raise AbError(f"expected one panda_core wheel in {out_dir}, found {len(wheels)}")
    return wheels[0]


def unpack_package(wheel: Path, dest: Path) -> None:
    """Extract only the wheel's ``panda_core/`` package (code, extension, data files)."""
    with zipfile.ZipFile(wheel) as zf:
        members = [n for n in zf.namelist() if n.startswith("panda_core/")]
        if not any(n.startswith("panda_core/_core") for n in members):
            raise AbError(f"{wheel.name} has no compiled panda_core._core")
        zf.extractall(dest, members)


Builder = Callable[[str, Path, Callable[[str], None]], Path]


def ensure_build(
    commit: str,
    *,
    root: Path | None = None,
    builder: Builder = build_wheel,
    log: Callable[[str], None] = print,
) -> Path:
    """The cache entry of ``commit`` (the directory to put on PYTHONPATH), built if absent or
    incomplete. ``builder`` makes the wheel (tests stub it)."""
    root = cache_root() if root is None else root
    entry = root / commit
    if is_complete(entry):
        return entry
    if entry.exists():
        log(f"cache entry {entry} is incomplete (an interrupted build?): building it again")
        shutil.rmtree(entry)
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{commit[:12]}-", dir=root))
    try:
        wheel = builder(commit, staging / "wheel", log)
        unpack_package(wheel, staging)
        shutil.rmtree(staging / "wheel", ignore_errors=True)
        info = {"commit": commit, "wheel": wheel.name, "built": time.time()}
        (staging / MARKER).write_text(json.dumps(info) + "\n")  # last: the entry is whole
        try:
            staging.rename(entry)
        except OSError:
            if not is_complete(entry):  # not another ab.py that finished the same build first
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return entry


# ---- the builds under test ---------------------------------------------------------------


@dataclass(frozen=True)
class Build:
    label: str  # "base" or "head"
    revision: str  # as given, or "working tree"
    commit: str  # full id (the working tree: its HEAD commit)
    path: Path  # the directory put on PYTHONPATH
    dirty: bool = False  # the working tree differs from its commit

    @property
    def extension(self) -> str:
        """The first 12 hex digits of the compiled extension's SHA-256: which binary ran
        (the working tree's is not tracked by git, so its commit does not say)."""
        so = sorted((self.path / "panda_core").glob("_core*.so"))
        return hashlib.sha256(so[0].read_bytes()).hexdigest()[:12] if so else "none"


def working_tree() -> Build:
    """This checkout's ``python/`` as it is (the extension already built in it)."""
    path = REPO / "python"
    if not any((path / "panda_core").glob("_core*.so")):
        raise AbError(
            f"no built extension in {path / 'panda_core'}: build it (docs/architecture.md) "
            "or give HEAD as a revision to build"
        )
    commit = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return Build("head", "working tree", commit, path, dirty)


def revision_build(label: str, revision: str, log: Callable[[str], None]) -> Build:
    commit = resolve(revision)
    return Build(label, revision, commit, ensure_build(commit, log=log))


# ---- rounds --------------------------------------------------------------------------------


def schedule(rounds: int, cases: Sequence[str]) -> list[tuple[int, str, str]]:
    """(round, case, build) in run order: in round 1 every case runs BASE then HEAD, in round
    2 HEAD then BASE, and so on (rounds are numbered from 1)."""
    order = []
    for r in range(1, rounds + 1):
        builds = ("base", "head") if r % 2 == 1 else ("head", "base")
        order += [(r, case, b) for case in cases for b in builds]
    return order


Runner = Callable[[str, Build], dict[str, Any]]


def run_case(case: str, build: Build) -> dict[str, Any]:
    """One case in a fresh process on ``build``: its JSON line, or ``{"na": why}``. Ctrl-C
    kills the process at once (a Rust call would otherwise finish first)."""
    env = dict(os.environ)
    # The build first; what the caller had on PYTHONPATH after it (open_spiel installed with
    # --target, say). A panda_core found later is never imported: the check below holds.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(build.path), env.get("PYTHONPATH")) if p)
    cmd = [sys.executable, str(BENCHES / "ab_cases.py"), case]
    proc = subprocess.Popen(
        cmd, env=env, cwd=BENCHES, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    started = time.monotonic()
    try:
        while proc.poll() is None:
            if time.monotonic() - started > CASE_TIMEOUT:
                proc.kill()
                proc.wait()
                return {"na": f"timed out after {CASE_TIMEOUT:g} s"}
            time.sleep(0.05)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    out, err = proc.communicate()
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return {"na": f"exit status {proc.returncode}: {tail}"}
    result: dict[str, Any] = json.loads(lines[-1])
    where = Path(result.get("panda_core", "")).resolve()
    if not where.is_relative_to(build.path.resolve()):
        raise AbError(f"case {case} imported panda_core from {where}, not from {build.path}")
    return result


def ratio(head: dict[str, Any], base: dict[str, Any]) -> float | None:
    """HEAD's speed over BASE's (rates are units per second): None when either is n/a."""
    if head.get("rate") and base.get("rate"):
        return float(head["rate"]) / float(base["rate"])
    return None


def different_work(r: dict[str, Any]) -> bool:
    """Whether a round's two builds counted different units for the same workload: a case
    plays the same seeds on both, so a build that plays other games (changed results) shows."""
    head, base = r["head"].get("units"), r["base"].get("units")
    return head is not None and base is not None and head != base


def summarize(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The median, min and max of a case's per-round ratios, and each build's median rate,
    over the rounds where they were measured (None when there are none)."""
    ratios = [r["ratio"] for r in rounds if r["ratio"] is not None]

    def median_rate(label: str) -> float | None:
        rates = [r[label]["rate"] for r in rounds if r[label].get("rate")]
        return statistics.median(rates) if rates else None

    return {
        "median_ratio": statistics.median(ratios) if ratios else None,
        "min_ratio": min(ratios) if ratios else None,
        "max_ratio": max(ratios) if ratios else None,
        "head_median_rate": median_rate("head"),
        "base_median_rate": median_rate("base"),
    }


def measure(
    cases: Sequence[str],
    builds: dict[str, Build],
    rounds: int,
    runner: Runner = run_case,
    log: Callable[[str], None] = print,
) -> dict[str, dict[str, Any]]:
    """Every case's rounds and summary, run in ``schedule`` order."""
    got: dict[tuple[int, str], dict[str, dict[str, Any]]] = {}
    for r, case, label in schedule(rounds, cases):
        result = runner(case, builds[label])
        got.setdefault((r, case), {})[label] = result
        shown = f"{result['rate']:,.0f} {UNITS[case]}/s" if result.get("rate") else "n/a"
        log(f"  round {r}/{rounds} {case:<20} {label}: {shown}")
    out: dict[str, dict[str, Any]] = {}
    for case in cases:
        per_round = []
        for r in range(1, rounds + 1):
            pair = got[(r, case)]
            first = "base" if r % 2 == 1 else "head"
            per_round.append(
                {
                    "round": r,
                    "first": first,
                    "base": pair["base"],
                    "head": pair["head"],
                    "ratio": ratio(pair["head"], pair["base"]),
                }
            )
        out[case] = {"unit": UNITS[case], "rounds": per_round, **summarize(per_round)}
    return out


# ---- output --------------------------------------------------------------------------------


def fmt_ratio(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def fmt_rate(x: float | None) -> str:
    if x is None:
        return "n/a"
    for scale, suffix in ((1e6, " M"), (1e3, " k")):
        if x >= scale:
            return f"{x / scale:.3g}{suffix}"
    return f"{x:.3g}"


def table(results: dict[str, dict[str, Any]], rounds: int) -> str:
    """The results as a Markdown table (HEAD/BASE speed ratios)."""
    head = ["case", "unit"] + [f"r{r}" for r in range(1, rounds + 1)]
    head += ["median", "min..max", "HEAD /s", "BASE /s"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for case, res in results.items():
        cells = [case, res["unit"]] + [fmt_ratio(r["ratio"]) for r in res["rounds"]]
        span = (
            "n/a"
            if res["min_ratio"] is None
            else f"{fmt_ratio(res['min_ratio'])}..{fmt_ratio(res['max_ratio'])}"
        )
        cells += [fmt_ratio(res["median_ratio"]), span]
        cells += [fmt_rate(res["head_median_rate"]), fmt_rate(res["base_median_rate"])]
        rows.append("| " + " | ".join(cells) + " |")
        for label in ("head", "base"):
            why = next((r[label]["na"] for r in res["rounds"] if "na" in r[label]), None)
            if why:
                notes.append(f"{case}: n/a on {label.upper()}: {why}")
        differ = next((r for r in res["rounds"] if different_work(r)), None)
        if differ:
            notes.append(
                f"{case}: the builds did different work ({differ['head']['units']:g} vs "
                f"{differ['base']['units']:g} {res['unit']} in round {differ['round']}): "
                "other games from the same seeds, so the rates compare different workloads"
            )
    return "\n".join(rows + notes)


def host_info() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "loadavg": list(load) if load else None,
    }


def describe_build(b: Build) -> dict[str, Any]:
    return {
        "revision": b.revision,
        "commit": b.commit,
        "path": str(b.path),
        "dirty": b.dirty,
        "extension_sha256": b.extension,
    }


# ---- command line --------------------------------------------------------------------------


def parse_cases(text: str | None) -> list[str]:
    if not text:
        return list(CASES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in CASES]
    if unknown or not names:
        raise AbError(f"unknown case(s) {unknown or text!r}; the cases are {', '.join(CASES)}")
    return list(dict.fromkeys(names))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="benches/ab.py",
        description="Benchmark cases on two builds in interleaved rounds; HEAD/BASE ratios.",
        epilog="A revision is built once (release wheel) and cached by commit in "
        "$PANDA_CORE_AB_CACHE or ~/.cache/panda-core/ab.",
    )
    p.add_argument("base", nargs="?", help="git revision of the base build (e.g. 97a3c3f)")
    p.add_argument(
        "head",
        nargs="?",
        help="git revision of the build under test; default: this checkout's working tree as "
        "it is (python/panda_core and the extension built there, not rebuilt)",
    )
    p.add_argument("--cases", help="comma-separated cases (default: all; see --list)")
    p.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    p.add_argument("--json", metavar="OUT", help="write every round, rate and the host here")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    return p


def main(argv: Sequence[str] | None = None, runner: Runner = run_case) -> int:
    args = parser().parse_args(argv)
    if args.list:
        for name in CASES:
            print(f"{name:<20} {describe(name)}")
        return 0
    try:
        if args.base is None:
            raise AbError("give BASE, a git revision (e.g. python benches/ab.py 97a3c3f)")
        if args.rounds < 1:
            raise AbError(f"--rounds must be at least 1, got {args.rounds}")
        cases = parse_cases(args.cases)
        log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
        base = revision_build("base", args.base, log)
        head = working_tree() if args.head is None else revision_build("head", args.head, log)
        started = time.time()
        host = host_info()
        results = measure(cases, {"base": base, "head": head}, args.rounds, runner, log)
    except AbError as exc:
        print(f"ab.py: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ab.py: interrupted", file=sys.stderr)
        return 130
    dirty = " with uncommitted changes" if head.dirty else ""
    print(
        f"HEAD = {head.revision} ({head.commit[:12]}{dirty}, extension {head.extension}), "
        f"BASE = {base.revision} ({base.commit[:12]}, extension {base.extension}); "
        f"{args.rounds} interleaved rounds; ratio = HEAD/BASE speed"
    )
    print(table(results, args.rounds))
    if args.json:
        record = {
            "base": describe_build(base),
            "head": describe_build(head),
            "rounds": args.rounds,
            "started": started,
            "finished": time.time(),
            "host": host,
            "loadavg_after": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "cases": results,
        }
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(record, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
