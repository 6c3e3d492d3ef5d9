"""Print the ratios the issues ask for from a ``--benchmark-json`` file.

python -m pytest benches --benchmark-only --benchmark-json=bench.json
python benches/report.py bench.json
"""

from __future__ import annotations

import json
import sys
from typing import Any


def per_unit(bench: dict[str, Any], unit: str) -> float:
    """Median seconds per unit (hand, game or decision) of one benchmark."""
    median: float = bench["stats"]["median"]
    count = float(bench.get("extra_info", {}).get(f"{unit}_per_call", 1))
    return median / count


def main(path: str) -> None:
    with open(path) as f:
        benches = {b["name"]: b for b in json.load(f)["benchmarks"]}

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


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
