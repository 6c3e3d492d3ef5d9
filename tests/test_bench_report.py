"""benches/report.py's issue-24 target lines from small fixture files: the figures, MET and
MISSED, and "not measured (run: ...)" for every missing input, never a made-up number."""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

PATH = Path(__file__).resolve().parent.parent / "benches" / "report.py"
spec = importlib.util.spec_from_file_location("bench_report", PATH)
assert spec is not None and spec.loader is not None
report = importlib.util.module_from_spec(spec)
sys.modules["bench_report"] = report  # dataclasses look their module up there
spec.loader.exec_module(report)


def bench(name: str, median: float, decisions: float) -> dict[str, Any]:
    return {
        "name": name,
        "stats": {"median": median},
        "extra_info": {"decisions_per_call": decisions},
    }


# decisions/s: year 6 M, spin 4 M, dou_dizhu 1 M; neural year 10 us per decision.
BENCH: dict[str, Any] = {
    "benchmarks": [
        bench("test_climb_batch_one_thread[year]", 0.5, 3e6),
        bench("test_climb_batch_one_thread[spin]", 0.5, 2e6),
        bench("test_dou_dizhu_evaluate_bots_cpp", 1.0, 1e6),
        bench("test_decision[neural-year]", 0.01, 1000),
    ]
}


def case(unit: str, head: float, base: float | None, ratios: list[float | None]) -> dict[str, Any]:
    rounds = [
        {
            "round": i + 1,
            "ratio": r,
            "head": {"rate": head},
            "base": {"rate": base} if base else {"na": "RulesError: unknown bot 'neural'"},
        }
        for i, r in enumerate(ratios)
    ]
    return {
        "unit": unit,
        "rounds": rounds,
        "median_ratio": sorted(x for x in ratios if x is not None)[len(ratios) // 2]
        if base
        else None,
        "head_median_rate": head,
        "base_median_rate": base,
    }


AB: dict[str, Any] = {
    "base": {"revision": "97a3c3f", "commit": "97a3c3f41f0ae40880a0c5b0baaa28f5a36f9472"},
    "head": {"revision": "working tree", "commit": "f" * 40},
    "cases": {
        "head_batch": case("decisions", 22e6, 20e6, [1.05, 1.12, 1.2]),
        "head_python_loop": case("decisions", 1.3e6, 1.4e6, [0.9, 0.93, 1.01]),
        "vector_head": case("steps", 8e6, 8e6, [1.0]),
        "vector_head_bound": case("steps", 32e6, 32e6, [1.0]),  # 125 ns / 31 ns = 4x
        "vector_year": case("steps", 1e6, 1e6, [1.0]),
        "vector_year_bound": case("steps", 2.5e6, 2.5e6, [1.0]),  # 1000 ns / 400 ns = 2.5x
        "neural_year": case("decisions", 125e3, None, [None, None, None]),  # 8 us
        "neural_spin": case("decisions", 50e3, None, [None, None, None]),  # 20 us
    },
}


def lines(
    benches: dict[str, Any] | None, ab: dict[str, Any] | None, bound: dict[str, Any] | None = None
) -> dict[str, Any]:
    loaded = None if benches is None else {b["name"]: b for b in benches["benchmarks"]}
    return {t.label: t for t in report.targets(loaded, ab, bound)}


BOUND: dict[str, Any] = {
    "commit": "f" * 40,
    "bot": "ismcts:200",
    "games_per_preset": 4,
    "games": {
        "year": {"bounded": 4_000_000_000, "unbounded": 3_980_000_000},  # 0.5%
        "spin": {"bounded": 5_000_000_000, "unbounded": 4_900_000_000},  # 2%
    },
}


def test_each_target_is_measured_over_its_peer_or_bound_with_a_verdict() -> None:
    got = lines(BENCH, AB)
    assert len(got) == 11
    head = got["head batch vs 97a3c3f (A/B)"]
    assert head.met is True
    assert head.line == (
        "22 M decisions/s / 20 M decisions/s = 1.12x (median of 3 rounds' ratios; target >= 1.1x)"
    )
    loop = got["Python-driven head loop vs 97a3c3f (A/B)"]
    assert loop.met is False
    assert loop.line.startswith("1.3 M decisions/s / 1.4 M decisions/s = 0.93x")
    year = got["year batch vs OpenSpiel dou_dizhu (C++)"]
    assert (year.met, year.line) == (
        True,
        "6 M decisions/s / 1 M decisions/s = 6.00x (target >= 5x; bench.json)",
    )
    spin = got["spin batch vs OpenSpiel dou_dizhu (C++)"]
    assert spin.met is False and "= 4.00x" in spin.line
    vh = got["head vector env (1,024 envs, 1 thr) / write bound"]
    assert (vh.met, vh.line) == (False, "125 ns / 31 ns per env-step = 4.0x (target <= 3x)")
    vy = got["year vector env (1,024 envs, 1 thr) / write bound"]
    assert (vy.met, vy.line) == (True, "1000 ns / 400 ns per env-step = 2.5x (target <= 3x)")
    ny = got["year `neural` decision"]  # the ab file wins over bench.json's 10 us
    assert ny.met is True and ny.line.startswith("8.0 us / 8 us = 1.00x") and "; ab)" in ny.line
    assert got["spin `neural` decision"].met is False
    assert str(head).endswith("MET") and str(loop).endswith("MISSED")


def test_missing_inputs_are_not_measured_with_the_command_to_run() -> None:
    got = lines(None, None)
    assert all(t.met is None for t in got.values())
    for t in got.values():
        assert t.line.startswith("not measured (run: "), t
        assert not any(ch.isdigit() for ch in t.line.replace("97a3c3f", "")), t
    assert "python benches/ab.py 97a3c3f --json ab.json" in got["head batch vs 97a3c3f (A/B)"].line
    peer = got["year batch vs OpenSpiel dou_dizhu (C++)"].line
    assert peer.startswith("not measured (run: pip install open_spiel && python -m pytest benches")
    assert not str(got["spin `neural` decision"]).endswith(("MET", "MISSED"))


def test_without_open_spiel_the_peer_lines_say_how_to_install_it() -> None:
    no_peer = {"benchmarks": [b for b in BENCH["benchmarks"] if "dou_dizhu" not in b["name"]]}
    t = lines(no_peer, AB)["year batch vs OpenSpiel dou_dizhu (C++)"]
    assert t.met is None
    assert t.line.startswith("not measured (run: pip install open_spiel && python -m pytest")


def test_the_peer_comes_from_the_ab_run_when_it_measured_both() -> None:
    ab = copy.deepcopy(AB)
    ab["cases"]["climb_batch_year"] = case("decisions", 3e6, 3e6, [1.0])
    ab["cases"]["dou_dizhu_cpp"] = case("decisions", 1.2e6, 1.2e6, [1.0])
    t = lines(BENCH, ab)["year batch vs OpenSpiel dou_dizhu (C++)"]
    assert (t.met, t.line) == (
        False,
        "3 M decisions/s / 1.2 M decisions/s = 2.50x (target >= 5x; ab)",
    )
    ab["cases"]["dou_dizhu_cpp"] = case("decisions", 0, 0, [None])  # n/a: no open_spiel
    ab["cases"]["dou_dizhu_cpp"]["head_median_rate"] = None
    assert "; bench.json)" in lines(BENCH, ab)["year batch vs OpenSpiel dou_dizhu (C++)"].line


def test_the_win_back_needs_an_ab_run_against_97a3c3f() -> None:
    other = copy.deepcopy(AB)
    other["base"] = {"revision": "main~3", "commit": "a" * 40}
    t = lines(BENCH, other)["head batch vs 97a3c3f (A/B)"]
    assert t.met is None and "base is main~3, not 97a3c3f" in t.line


def test_neural_falls_back_to_bench_json_and_an_na_head_says_why() -> None:
    ab = copy.deepcopy(AB)
    ab["cases"]["neural_year"]["head_median_rate"] = None
    ab["cases"]["neural_year"]["rounds"][0]["head"] = {"na": "RulesError: unknown bot"}
    t = lines(BENCH, ab)["year `neural` decision"]
    assert t.met is False and t.line.startswith("10.0 us / 8 us = 1.25x") and "bench.json" in t.line
    t = lines(None, ab)["year `neural` decision"]
    assert t.met is None and "n/a on HEAD: RulesError: unknown bot" in t.line


def test_main_prints_the_old_ratios_then_the_targets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bench.json").write_text(json.dumps(BENCH))
    (tmp_path / "ab.json").write_text(json.dumps(AB))
    assert report.main([str(tmp_path / "bench.json"), "--ab", str(tmp_path / "ab.json")]) == 0
    out = capsys.readouterr().out
    assert "decisions/s: year batch (Rust) / dou_dizhu evaluate_bots (C++)" in out
    assert "issue 24 targets" in out
    verdicts = [line.split()[-1] for line in out.split("issue 24 targets")[1].splitlines()[1:]]
    assert sorted(verdicts).count("MET") == 4 and verdicts.count("MISSED") == 4
    assert len(verdicts) == 11  # spin's vector line and the bound's: not measured
    assert report.main([str(tmp_path / "none.json")]) == 0
    out = capsys.readouterr().out
    assert "none.json: no such file" in out and "not measured (run:" in out


def test_the_bound_share_comes_from_a_bound_cost_run() -> None:
    got = lines(BENCH, AB, BOUND)
    year = got["year search: move bound's share of instructions"]
    assert (year.met, year.line) == (
        True,
        "20 M instr / 4 G instr = 0.50% (target <= 1%; ismcts:200, 4 games)",
    )
    assert got["spin search: move bound's share of instructions"].met is False
    missing = lines(BENCH, AB)["year search: move bound's share of instructions"]
    assert missing.met is None
    assert "python benches/bound_cost.py --json bound.json" in missing.line
    partial = copy.deepcopy(BOUND)
    del partial["games"]["spin"]
    spin = lines(BENCH, AB, partial)["spin search: move bound's share of instructions"]
    assert spin.met is None and "no spin counts" in spin.line
