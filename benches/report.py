"""Print the ratios the issues ask for from a ``--benchmark-json`` file, then every issue-24
target against its peer or bound, from that file, a ``benches/ab.py --json`` file and a
``benches/bound_cost.py --json`` file.

python -m pytest benches --benchmark-only --benchmark-json=bench.json
python benches/ab.py 97a3c3f --json ab.json
python benches/bound_cost.py --json bound.json
python benches/report.py bench.json --ab ab.json --bound bound.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


def per_unit(bench: dict[str, Any], unit: str) -> float:
    """Median seconds per unit (hand, game or decision) of one benchmark."""
    median: float = bench["stats"]["median"]
    count = float(bench.get("extra_info", {}).get(f"{unit}_per_call", 1))
    return median / count


def load_benches(path: str) -> dict[str, Any]:
    with open(path) as f:
        return {b["name"]: b for b in json.load(f)["benchmarks"]}


def print_ratios(benches: dict[str, Any]) -> None:
    """The ratios within one pytest-benchmark run (what this script printed before issue 24)."""

    def ratio(label: str, slow: str, fast: str, unit: str) -> None:
        if slow in benches and fast in benches:
            a, b = per_unit(benches[slow], unit), per_unit(benches[fast], unit)
            print(
                f"{label:<58} {a / b:>10.1f}x   ({a * 1e6:.2f} us vs {b * 1e6:.3f} us per {unit})"
            )

    ratio(
        "head legal moves: oracle / rust (Python call)",
        "test_legal_moves_oracle",
        "test_legal_moves_rust",
        "x",
    )
    ratio("head one 4-player hand: oracle / rust", "test_hand_oracle", "test_hand_rust", "hands")
    ratio(
        "head one game: oracle / rust (batch, 1 thread)",
        "test_game_oracle",
        "test_game_rust",
        "games",
    )
    ratio(
        "head one game: oracle / rust (Python-driven)",
        "test_game_oracle",
        "test_game_rust_python_driven",
        "games",
    )
    if "test_batch_throughput_one_thread" in benches:
        hands_s = 1 / per_unit(benches["test_batch_throughput_one_thread"], "hands")
        print(f"{'head batch, 4-player hands per second, one thread':<58} {hands_s:>12,.0f}")
    ratio(
        "decisions/s: head batch (Rust) / hearts evaluate_bots (C++)",
        "test_hearts_evaluate_bots_cpp",
        "test_head_batch_rust_one_thread",
        "decisions",
    )
    ratio(
        "decisions/s: head Python-driven / hearts Python-driven",
        "test_hearts_python_driven",
        "test_head_python_driven",
        "decisions",
    )
    for mode in ("lead", "follow"):
        ratio(
            f"climb legal moves ({mode}): oracle / rust (Python call)",
            f"test_climb_movegen_oracle[{mode}]",
            f"test_climb_movegen_rust[{mode}]",
            "x",
        )
    ratio(
        "climb classification: oracle / rust (Python call)",
        "test_climb_classify_oracle",
        "test_climb_classify_rust",
        "x",
    )
    ratio(
        "climb one 4-player year round: oracle / rust (Python-driven)",
        "test_climb_round_oracle",
        "test_climb_round_rust_python_driven",
        "x",
    )
    ratio(
        "climb one 4-player year round: oracle / rust (batch, per round)",
        "test_climb_round_oracle",
        "test_climb_batch_one_thread[year]",
        "rounds",
    )
    for preset in ("year", "spin"):
        ratio(
            f"decisions/s: {preset} batch (Rust) / dou_dizhu evaluate_bots (C++)",
            "test_dou_dizhu_evaluate_bots_cpp",
            f"test_climb_batch_one_thread[{preset}]",
            "decisions",
        )
    ratio(
        "decisions/s: year Python-driven / dou_dizhu Python-driven",
        "test_dou_dizhu_python_driven",
        "test_year_python_driven",
        "decisions",
    )
    # Vector environments (bench_vector.py): env-steps per second.
    peers = {"head": "hearts", "year": "dou_dizhu", "spin": "dou_dizhu"}
    for game in ("head", "year", "spin"):
        single = f"test_single_game_steps[{game}]"
        for envs in (1, 64, 1024):
            for threads in (1, 2):
                ratio(
                    f"steps/s: {game} vector {envs} envs {threads} thr / single games",
                    single,
                    f"test_vector_step[{threads}-{envs}-{game}]",
                    "steps",
                )
        ratio(
            f"steps/s: {game} single games / oracle single games",
            f"test_single_game_steps_oracle[{game}]",
            single,
            "steps",
        )
        ratio(
            f"steps/s: {game} single games / OpenSpiel {peers[game]} single games",
            f"test_openspiel_single_steps[{peers[game]}]",
            single,
            "steps",
        )
        ratio(
            f"steps/s: {game} vector 1024 envs 2 thr / OpenSpiel {peers[game]}",
            f"test_openspiel_single_steps[{peers[game]}]",
            f"test_vector_step[2-1024-{game}]",
            "steps",
        )
    ratio(
        "time of one Python-driven head decision / one in the Rust batch",
        "test_head_python_driven",
        "test_head_batch_rust_one_thread",
        "decisions",
    )
    for name in sorted(n for n in benches if "vector_step" in n or "single_game_steps" in n):
        print(f"  {name:<56} {1 / per_unit(benches[name], 'steps'):>12,.0f} steps/s")
    for name in (
        "test_hearts_evaluate_bots_cpp",
        "test_head_batch_rust_one_thread",
        "test_hearts_python_driven",
        "test_head_python_driven",
        "test_dou_dizhu_evaluate_bots_cpp",
        "test_climb_batch_one_thread[year]",
        "test_climb_batch_one_thread[spin]",
        "test_dou_dizhu_python_driven",
        "test_year_python_driven",
    ):
        if name in benches:
            print(f"  {name:<56} {1 / per_unit(benches[name], 'decisions'):>12,.0f} decisions/s")

    for game in ("head", "year", "spin"):
        ratio(
            f"{game} Table.state(seat) / its engine calls (view, events, moves)",
            f"test_table_state[{game}]",
            f"test_engine_parts_of_a_state[{game}]",
            "x",
        )
        ratio(
            f"{game} Replay(record) / from_json(record)",
            f"test_replay_load[{game}]",
            f"test_from_json[{game}]",
            "x",
        )


# ---- issue 24's targets ------------------------------------------------------------------

REFERENCE = "97a3c3f"
"""The build issue 24 measures the Panda Head win-back against."""
BENCH_RUN = "python -m pytest benches --benchmark-only --benchmark-json=bench.json"
AB_RUN = f"python benches/ab.py {REFERENCE} --json ab.json"
PEER_RUN = f"pip install open_spiel && {BENCH_RUN}"
NEURAL_BOUND_US = 8.0


@dataclass(frozen=True)
class Target:
    """One line: ``measured / peer-or-bound = ratio (target)``, MET or MISSED; or why not."""

    label: str
    line: str  # the figures, or "not measured (run: ...)"
    met: bool | None  # None: not measured

    def __str__(self) -> str:
        verdict = {True: "MET", False: "MISSED", None: ""}[self.met]
        return f"{self.label:<50} {self.line}  {verdict}".rstrip()


def not_measured(label: str, run: str, why: str = "") -> Target:
    return Target(label, f"not measured (run: {run}){f': {why}' if why else ''}", None)


def si(x: float, unit: str) -> str:
    for scale, prefix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if x >= scale:
            return f"{x / scale:.3g}{prefix} {unit}"
    return f"{x:.3g} {unit}"


def ab_case(ab: dict[str, Any] | None, case: str) -> tuple[dict[str, Any] | None, str]:
    """``ab``'s results for ``case``, or why there are none usable."""
    if ab is None:
        return None, "no --ab file"
    res = ab.get("cases", {}).get(case)
    if res is None:
        return None, f"the --ab file has no {case} case"
    if res.get("head_median_rate") is None:
        why = next((r["head"]["na"] for r in res["rounds"] if "na" in r["head"]), "no rate")
        return None, f"{case} was n/a on HEAD: {why}"
    return res, ""


def win_back(ab: dict[str, Any] | None, label: str, case: str, goal: float) -> Target:
    """HEAD against the 97a3c3f build: the median of the per-round speed ratios."""
    res, why = ab_case(ab, case)
    if ab is not None and not str(ab.get("base", {}).get("commit", "")).startswith(REFERENCE):
        why = f"the --ab file's base is {ab.get('base', {}).get('revision')}, not {REFERENCE}"
        res = None
    if res is None or res.get("median_ratio") is None:
        return not_measured(label, AB_RUN, why or f"{case} was n/a on the base build")
    unit = f"{res['unit']}/s"
    rounds = sum(r["ratio"] is not None for r in res["rounds"])
    ratio = res["median_ratio"]
    line = (
        f"{si(res['head_median_rate'], unit)} / {si(res['base_median_rate'], unit)} = "
        f"{ratio:.2f}x (median of {rounds} rounds' ratios; target >= {goal:g}x)"
    )
    return Target(label, line, ratio >= goal)


def against_peer(benches: dict[str, Any] | None, ab: dict[str, Any] | None, preset: str) -> Target:
    """A climbing batch against OpenSpiel's C++ dou_dizhu, decisions/s, in the same run: the A/B
    run's HEAD (CPU time, interleaved) when it has both cases, else the benchmark run."""
    label = f"{preset} batch vs OpenSpiel dou_dizhu (C++)"
    mine, _ = ab_case(ab, f"climb_batch_{preset}")
    theirs, _ = ab_case(ab, "dou_dizhu_cpp")
    ours, peer = f"test_climb_batch_one_thread[{preset}]", "test_dou_dizhu_evaluate_bots_cpp"
    if mine is not None and theirs is not None:
        a, b, source = mine["head_median_rate"], theirs["head_median_rate"], "ab"
    elif benches is None or ours not in benches:
        return not_measured(label, PEER_RUN, "no bench.json" if benches is None else "")
    elif peer not in benches:
        return not_measured(label, PEER_RUN, "open_spiel is not installed")
    else:
        a = 1 / per_unit(benches[ours], "decisions")
        b = 1 / per_unit(benches[peer], "decisions")
        source = "bench.json"
    line = (
        f"{si(a, 'decisions/s')} / {si(b, 'decisions/s')} = {a / b:.2f}x (target >= 5x; {source})"
    )
    return Target(label, line, a / b >= 5)


def vector_bound(ab: dict[str, Any] | None, game: str) -> Target:
    """An env-step's time over the time numpy takes to write that step's output, both HEAD's
    medians in the same ab run (case vector_GAME and vector_GAME_bound)."""
    label = f"{game} vector env (1,024 envs, 1 thr) / write bound"
    env, why = ab_case(ab, f"vector_{game}")
    bound, why_bound = ab_case(ab, f"vector_{game}_bound")
    if env is None or bound is None:
        return not_measured(label, AB_RUN, why or why_bound)
    step_ns = 1e9 / env["head_median_rate"]
    bound_ns = 1e9 / bound["head_median_rate"]
    ratio = step_ns / bound_ns
    line = f"{step_ns:.0f} ns / {bound_ns:.0f} ns per env-step = {ratio:.1f}x (target <= 3x)"
    return Target(label, line, ratio <= 3)


def neural_cost(ab: dict[str, Any] | None, benches: dict[str, Any] | None, game: str) -> Target:
    """µs per `neural` decision: HEAD's median in the ab run, else bench_neural.py's
    pytest-benchmark figure."""
    label = f"{game} `neural` decision"
    res, why = ab_case(ab, f"neural_{game}")
    name = f"test_decision[neural-{game}]"
    if res is not None:
        us, source = 1e6 / res["head_median_rate"], "ab"
    elif benches is not None and name in benches:
        us, source = per_unit(benches[name], "decisions") * 1e6, "bench.json"
    else:
        return not_measured(label, AB_RUN, why)
    ratio = us / NEURAL_BOUND_US
    line = (
        f"{us:.1f} us / {NEURAL_BOUND_US:g} us = {ratio:.2f}x "
        f"(target <= 1x, i.e. <= {NEURAL_BOUND_US:g} us; {source})"
    )
    return Target(label, line, ratio <= 1)


BOUND_RUN = "python benches/bound_cost.py --json bound.json"


def bound_cost(bound: dict[str, Any] | None, game: str) -> Target:
    """The climbing search's instructions spent on the move bound's checks: the bounded build's
    count over the count with the checks compiled out (benches/bound_cost.py, one run)."""
    label = f"{game} search: move bound's share of instructions"
    counts = None if bound is None else bound.get("games", {}).get(game)
    if counts is None:
        why = "no --bound file" if bound is None else f"the --bound file has no {game} counts"
        return not_measured(label, BOUND_RUN, why)
    bounded, unbounded = int(counts["bounded"]), int(counts["unbounded"])
    share = (bounded - unbounded) / bounded
    line = (
        f"{si(bounded - unbounded, 'instr')} / {si(bounded, 'instr')} = {share:.2%} "
        f"(target <= 1%; {bound.get('bot')}, {bound.get('games_per_preset')} games)"
    )
    return Target(label, line, share <= 0.01)


def targets(
    benches: dict[str, Any] | None,
    ab: dict[str, Any] | None,
    bound: dict[str, Any] | None = None,
) -> list[Target]:
    return [
        win_back(ab, f"head batch vs {REFERENCE} (A/B)", "head_batch", 1.1),
        win_back(ab, f"Python-driven head loop vs {REFERENCE} (A/B)", "head_python_loop", 1.0),
        against_peer(benches, ab, "year"),
        against_peer(benches, ab, "spin"),
        *(vector_bound(ab, g) for g in ("head", "year", "spin")),
        *(neural_cost(ab, benches, g) for g in ("year", "spin")),
        *(bound_cost(bound, g) for g in ("year", "spin")),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("bench", nargs="?", default="bench.json", help="pytest-benchmark json")
    p.add_argument("--ab", help="benches/ab.py --json output (base 97a3c3f for the win-back)")
    p.add_argument("--bound", help="benches/bound_cost.py --json output")
    args = p.parse_args(argv)
    benches = load_benches(args.bench) if os.path.exists(args.bench) else None
    if benches is None:
        print(f"{args.bench}: no such file (run: {BENCH_RUN})")
    else:
        print_ratios(benches)
    ab = None
    if args.ab:
        with open(args.ab, encoding="utf-8") as f:
            ab = json.load(f)
    bound = None
    if args.bound:
        with open(args.bound, encoding="utf-8") as f:
            bound = json.load(f)
    print()
    print("issue 24 targets: measured / peer or bound = ratio (target)")
    for t in targets(benches, ab, bound):
        print(f"  {t}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
