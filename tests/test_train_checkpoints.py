"""Every curve row's policy is kept (``checkpoints/``), so that the shipped policy can be the
best checkpoint on held-out deals rather than the last one (issue 23, item 2)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

from panda_core.train import TrainSettings, checkpoint_policies, read_policy, train
from panda_core.train.curve import read_curve

ROOT = Path(__file__).resolve().parent.parent
TINY: dict[str, Any] = {
    "game": "head",
    "decisions": 30_000,
    "num_envs": 32,
    "eval_every": 10_000,
    "hidden": (32,),
    "batch_size": 256,
    "lr": 1e-3,
    "eval_games": 40,
    "threads": 1,
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kept")
    train(TrainSettings(**TINY), folder)
    return folder


def test_every_curve_row_keeps_its_policy(run: Path) -> None:
    kept = checkpoint_policies(run)
    rows = read_curve(run / "curve.csv")
    assert list(kept) == [r.decisions for r in rows]
    assert len(kept) == 4  # 0, 10k, 20k, 30k (the last step may pass a row by a few decisions)
    files = [p.read_bytes() for p in kept.values()]
    assert len(set(files)) == len(files)  # each row its own weights
    assert files[-1] == (run / "policy.safetensors").read_bytes()
    for decisions, path in kept.items():
        assert int(read_policy(path).metadata["decisions"]) == decisions


def test_other_files_in_the_folder_are_not_checkpoints(run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    (folder / "000000000000010.safetensors").write_bytes(b"x")
    (folder / "10.safetensors").write_bytes(b"x")  # not a row's name
    (folder / "00000000000001a.safetensors").write_bytes(b"x")
    (folder / "000000000000020.partial").write_bytes(b"x")  # an interrupted copy
    (folder / "000000000000030.safetensors").mkdir()  # not a file
    assert list(checkpoint_policies(tmp_path)) == [10]
    assert checkpoint_policies(tmp_path / "missing") == {}


def test_a_resumed_run_keeps_the_same_checkpoints(run: Path, tmp_path: Path) -> None:
    train(TrainSettings(**{**TINY, "decisions": 20_000}), tmp_path)
    train(TrainSettings(**TINY), tmp_path)  # extended to the full budget
    ours, theirs = checkpoint_policies(tmp_path), checkpoint_policies(run)
    assert list(ours) == list(theirs)
    for decisions in ours:
        assert ours[decisions].read_bytes() == theirs[decisions].read_bytes(), decisions


@pytest.mark.slow
def test_make_policies_ships_the_best_checkpoint_on_held_out_deals(run: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "make_policies", ROOT / "policies" / "make_policies.py"
    )
    assert spec is not None and spec.loader is not None
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    make.HELD_OUT_GAMES = 200
    chosen, path, rows = make.choose("head", TrainSettings(**TINY), run)
    rates = {int(r.split(",")[0]): float(r.split(",")[2]) for r in rows[1:]}
    assert list(rates) == list(checkpoint_policies(run))
    best = max(rates.values())
    assert rates[chosen] == best and chosen == min(d for d, r in rates.items() if r == best)
    assert path == checkpoint_policies(run)[chosen]
    # The rates are cached: a second choice reads them back, the same.
    assert make.choose("head", TrainSettings(**TINY), run) == (chosen, path, rows)
    # A damaged cache row is played again, not trusted.
    cache = run / "held_out.csv"
    lines = cache.read_text().splitlines()
    cache.write_text("\n".join([*lines[:2], "x,y", "5,200,9.5,0,1", *lines[2:]]) + "\n")
    assert make.choose("head", TrainSettings(**TINY), run) == (chosen, path, rows)
