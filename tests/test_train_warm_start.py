"""The trainer's warm start from search (``panda-core train --warm-start DATASET``,
``panda_core/train/warm_start.py``): it learns the search's preferred moves, it is refused
clearly (before any work) for every dataset that does not fit the run, it is byte-reproducible,
done once per run (a resumed run does not redo it, and resumes exactly), and Ctrl-C stops it
within half a second.

The datasets are made by ``warm_start_support.py``: real self-play datasets with the search
columns of the contract added with pyarrow (the writer's ``--search-stats`` is another branch's).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")
pytest.importorskip("pyarrow", reason="the dataset extra (pyarrow) is not installed")

import pyarrow.parquet as pq

import warm_start_support as support
from panda_core._core import PandaCoreError
from panda_core.cli import main
from panda_core.selfplay.reader import scatter
from panda_core.train import TrainError, TrainSettings, read_policy, train
from panda_core.train.curve import read_curve
from panda_core.train.learner import Learner
from panda_core.train.warm_start import WarmStartData, WarmStartError

TINY: dict[str, Any] = {
    "hidden": (32,),
    "batch_size": 256,
    "lr": 1e-3,
    "eval_games": 0,
    "threads": 1,
    "eval_every": 1_000_000,
}
ENVS = {"head": 16, "year": 4, "spin": 4}


def _settings(game: str, data: Path | None, **changes: Any) -> TrainSettings:
    values: dict[str, Any] = {
        "game": game,
        "decisions": ENVS[game],  # one self-play step: the warm start is what is tested
        "num_envs": ENVS[game],
        "warm_start": None if data is None else str(data),
        **TINY,
    }
    return TrainSettings(**{**values, **changes})


@pytest.fixture(scope="module")
def head_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.search_dataset(tmp_path_factory.mktemp("warm") / "head")


@pytest.fixture(scope="module")
def year_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return support.search_dataset(
        tmp_path_factory.mktemp("warm") / "year",
        game="year",
        episodes=2,
        shard_episodes=1,
    )


def _copy(data: Path, tmp_path: Path, name: str = "copy") -> Path:
    target = tmp_path / name
    shutil.copytree(data, target)
    return target


# ---- it learns ----------------------------------------------------------------------------------


def _agreement(policy: Path, data: Path, game: str) -> float:
    """The share of the search decisions (with a choice) whose move of largest network value is
    the one the search favoured, computed from the files alone: the dataset read with pyarrow,
    the policy file's own forward pass (what the Rust bot computes)."""
    net = read_policy(policy)
    hits = total = 0
    for shard in sorted(data.glob("part-*.parquet")):
        table = pq.read_table(shard)
        offsets = table.column("observation_index").combine_chunks().offsets.to_numpy()
        index = table.column("observation_index").combine_chunks().flatten().to_numpy()
        values = table.column("observation_value").combine_chunks().flatten().to_numpy()
        observations = scatter(index, offsets, net.layers[0][0].shape[1] - _features(game), values)
        visits = table.column("search_visits").to_pylist()
        legal = table.column("legal_actions").to_pylist()
        features = table.column("move_features").to_pylist() if game != "head" else None
        for row, counts in enumerate(visits):
            if len(counts) < 2:
                continue
            if features is None:
                scores = net.forward(observations[row : row + 1])[0][legal[row]]
            else:
                moves = np.asarray(features[row], dtype=np.float32)
                obs = np.repeat(observations[row : row + 1], len(moves), axis=0)
                scores = net.forward(np.concatenate([obs, moves], axis=1))[:, 0]
            hits += int(np.argmax(scores) == int(np.argmax(counts)))
            total += 1
    assert total > 20
    return hits / total


def _features(game: str) -> int:
    from panda_core._registry import spec

    return spec(game).move_features


@pytest.mark.slow
@pytest.mark.parametrize("game", ["head", "year"])
def test_the_warm_start_learns_the_searchs_preferred_moves(
    game: str, head_data: Path, year_data: Path, tmp_path: Path
) -> None:
    data = head_data if game == "head" else year_data
    cold = train(_settings(game, None), tmp_path / "cold")
    warm = train(_settings(game, data, warm_start_epochs=80), tmp_path / "warm")
    # The first row's policy (0 self-play decisions): the initial network, the warm-started one.
    first = "checkpoints/000000000000000.safetensors"
    before = _agreement(cold.out / first, data, game)
    after = _agreement(warm.out / first, data, game)
    assert after > before + 0.25, (before, after)
    assert after > 0.7, (before, after)


# ---- the run: its first row, reproducibility, resuming -----------------------------------------


@pytest.mark.slow
def test_the_first_curve_row_is_the_warm_starts(head_data: Path, tmp_path: Path) -> None:
    result = train(_settings("head", head_data, decisions=64), tmp_path / "run")
    curve = read_curve(result.out / "curve.csv")
    assert curve[0].decisions == 0
    assert np.isfinite(curve[0].loss), "row 0's loss is the warm start's"
    assert curve[0].seconds > 0, "row 0's time is the warm start's"
    saved = json.loads((result.out / "settings.json").read_text())
    assert saved["warm_start"] == str(head_data)
    assert saved["warm_start_sha256"] == result.settings.warm_start_sha256
    assert len(saved["warm_start_sha256"]) == 64


@pytest.mark.slow
def test_the_same_seed_and_dataset_give_the_same_policy(head_data: Path, tmp_path: Path) -> None:
    api = train(_settings("head", head_data, decisions=64), tmp_path / "api")
    # The same dataset elsewhere (its path is not part of what is computed), by the CLI.
    moved = _copy(head_data, tmp_path)
    argv = ["train", "--game", "head", "--decisions", "64", "--num-envs", "16", "--hidden", "32",
            "--batch-size", "256", "--lr", "0.001", "--eval-games", "0", "--threads", "1",
            "--eval-every", "1000000", "--warm-start", str(moved), "--quiet",
            "--out", str(tmp_path / "cli")]  # fmt: skip
    assert main(argv) == 0
    for name in ("policy.safetensors", "checkpoints/000000000000000.safetensors"):
        assert (api.out / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    other = train(_settings("head", head_data, decisions=64, seed=1), tmp_path / "seed1")
    assert (other.out / "policy.safetensors").read_bytes() != (
        api.out / "policy.safetensors"
    ).read_bytes()


@pytest.mark.slow
def test_a_resumed_run_does_not_redo_the_warm_start_and_resumes_exactly(
    head_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    straight = train(_settings("head", head_data, decisions=128, eval_every=64), tmp_path / "a")
    train(_settings("head", head_data, decisions=64, eval_every=64), tmp_path / "b")

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the warm start ran again")

    monkeypatch.setattr(WarmStartData, "fit", refuse)
    monkeypatch.setattr(WarmStartData, "check", refuse)  # nor is the dataset read again
    resumed = train(_settings("head", head_data, decisions=128, eval_every=64), tmp_path / "b")
    assert (resumed.out / "policy.safetensors").read_bytes() == (
        straight.out / "policy.safetensors"
    ).read_bytes()
    assert [r.decisions for r in resumed.curve] == [0, 64, 128]
    # The train state records it.
    from safetensors import safe_open

    with safe_open(str(resumed.out / "train_state.safetensors"), "np") as state:
        document = json.loads(state.metadata()["state"])
    record = document["warm_start"]
    assert record["dataset_sha256"] == resumed.settings.warm_start_sha256
    assert record["epochs"] == 2 and record["steps"] > 0 and record["rows"] > 0


@pytest.mark.slow
def test_resuming_with_another_dataset_or_none_is_refused(head_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    train(_settings("head", head_data), out)
    other = support.search_dataset(tmp_path / "other", seed=5)
    with pytest.raises(TrainError, match=r"holds a run with other settings.*warm_start_sha256"):
        train(_settings("head", other, decisions=64), out)
    with pytest.raises(TrainError, match=r"holds a run with other settings.*warm_start_sha256"):
        train(_settings("head", None, decisions=64), out)
    # A run folder's own settings name its dataset: another one under that name is refused.
    pinned = _settings("head", other, warm_start_sha256="0" * 64)
    with pytest.raises(WarmStartError, match="not the dataset the run was started with"):
        train(pinned, tmp_path / "pinned")


@pytest.mark.slow
def test_ctrl_c_stops_the_warm_start_within_half_a_second(
    head_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = threading.Event()
    original = Learner.fit_step
    calls = [0]

    def step(self: Learner, *args: Any) -> Any:
        result = original(self, *args)
        calls[0] += 1
        if calls[0] == 3:  # compiled (a jit compile is not interruptible: about 1 s, once)
            started.set()
        return result

    monkeypatch.setattr(Learner, "fit_step", step)
    sent: list[float] = []

    def interrupt() -> None:
        assert started.wait(120)
        time.sleep(0.3)  # well into the warm start
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    killer = threading.Thread(target=interrupt)
    killer.start()
    out = tmp_path / "run"
    try:
        with pytest.raises(KeyboardInterrupt):
            train(_settings("head", head_data, warm_start_epochs=1000), out)
        stopped = time.monotonic() - sent[0]
    finally:
        killer.join()
    assert stopped < 0.5, f"{stopped:.2f} s from Ctrl-C to the stop"
    # Nothing of it was kept: the folder holds the settings only and resumes (from scratch).
    assert sorted(p.name for p in out.iterdir()) == ["settings.json"]


# ---- refused before any work --------------------------------------------------------------------


def _refused(settings: TrainSettings, tmp_path: Path, message: str) -> None:
    out = tmp_path / "run"
    with pytest.raises(WarmStartError, match=message) as caught:
        train(settings, out)
    assert isinstance(caught.value, TrainError) and isinstance(caught.value, PandaCoreError)
    assert not out.exists(), "refused before any work"


def test_a_path_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    _refused(_settings("head", tmp_path / "nowhere"), tmp_path, "nothing there")


def test_a_file_or_a_folder_that_is_no_dataset_is_refused(head_data: Path, tmp_path: Path) -> None:
    _refused(_settings("head", head_data / "part-00000.parquet"), tmp_path, "is not a folder")
    empty = tmp_path / "empty"
    empty.mkdir()
    _refused(_settings("head", empty), tmp_path, "no _dataset.json: not a finished self-play")
    (empty / "_dataset.json").write_text('{"format": "something else"}')
    _refused(_settings("head", empty), tmp_path, "not a self-play dataset")
    (empty / "_dataset.json").write_text("{not json")
    _refused(_settings("head", empty), tmp_path, "_dataset.json")


def test_a_dataset_without_search_stats_is_refused(tmp_path: Path) -> None:
    from panda_core.selfplay.run import selfplay

    selfplay(tmp_path / "plain", game="head", episodes=1, workers=0)
    _refused(_settings("head", tmp_path / "plain"), tmp_path, "without search stats.*ismcts")


def test_a_dataset_of_another_game_players_or_layout_is_refused(
    head_data: Path, year_data: Path, tmp_path: Path
) -> None:
    _refused(_settings("year", head_data), tmp_path, "game 'head'; this run has 'year'")
    _refused(_settings("head", head_data, players=3), tmp_path, "players 4.*has 3")
    layout = _copy(head_data, tmp_path, "layout")
    support.rewrite_manifest(layout, observation_size=97)
    _refused(_settings("head", layout), tmp_path, "observation_size 97.*has 96")
    named = _copy(head_data, tmp_path, "named")
    support.rewrite_manifest(named, observation_layout="head-obs-v0")
    _refused(_settings("head", named), tmp_path, "observation_layout 'head-obs-v0'")
    spin = _copy(year_data, tmp_path, "spin")
    _refused(_settings("spin", spin), tmp_path, "game 'year'; this run has 'spin'")


def test_climbing_search_lists_in_another_order_are_refused(tmp_path: Path) -> None:
    """In the climbing games the lists follow legal_moves() (the move_features rows, what the
    network scores), not legal_actions: lists in another order are caught by the move played."""
    data = support.search_dataset(
        tmp_path / "order",
        game="year",
        episodes=1,
        shard_episodes=1,
        rule=lambda seat, legal, n, p: support.favour_played(seat, legal, n, n - 1 - p),
    )
    _refused(_settings("year", data), tmp_path, r"its move_index\) is not the one the search")


def test_a_climbing_dataset_without_move_features_is_refused(tmp_path: Path) -> None:
    data = support.search_dataset(
        tmp_path / "bare", game="year", episodes=1, shard_episodes=1, move_features=False
    )
    _refused(_settings("year", data), tmp_path, "without move features.*--move-features")


def test_a_dataset_without_search_decisions_is_refused(tmp_path: Path) -> None:
    data = support.search_dataset(tmp_path / "none", episodes=1, rule=lambda *_: None)
    _refused(_settings("head", data), tmp_path, "no decision of a search bot")


def test_too_few_visits_are_refused(head_data: Path, tmp_path: Path) -> None:
    _refused(
        _settings("head", head_data, warm_start_min_visits=11),
        tmp_path,
        "visited 11 times or more.*lower it",
    )


def test_a_damaged_shard_is_refused(head_data: Path, tmp_path: Path) -> None:
    data = _copy(head_data, tmp_path, "damaged")
    shard = data / "part-00001.parquet"
    blob = bytearray(shard.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    shard.write_bytes(bytes(blob))
    _refused(_settings("head", data), tmp_path, "part-00001.parquet: its contents do not match")
    (data / "_part-00001.json").unlink()
    _refused(_settings("head", data), tmp_path, "has no checksum file")


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (lambda seat, legal, n, p: ([1] * (n + 1), [0.0] * (n + 1)), "search entries for"),
        (lambda seat, legal, n, p: ([1] * n, [0.0] * max(n - 1, 0)), "differ in length"),
        (lambda seat, legal, n, p: ([-1] * n, [0.0] * n), "negative count"),
        (lambda seat, legal, n, p: ([1] * n, [1.5] * n), r"outside \[-1, 1\]"),
        (lambda seat, legal, n, p: ([1] * n, [float("nan")] * n), r"outside \[-1, 1\]"),
        (
            lambda seat, legal, n, p: ([int(i != p) for i in range(n)], [0.0] * n),
            r"row \d+: the move played \(its action\) is not the one the search visited most",
        ),
    ],
)
def test_damaged_search_columns_are_refused(rule: Any, message: str, tmp_path: Path) -> None:
    data = support.search_dataset(tmp_path / "bad", episodes=1, rule=rule)
    _refused(_settings("head", data), tmp_path, message)


def test_a_shard_without_the_search_columns_is_refused(head_data: Path, tmp_path: Path) -> None:
    data = _copy(head_data, tmp_path, "mixed")
    manifest = json.loads((data / "_dataset.json").read_text())
    entry = manifest["shards"][0]
    table = pq.read_table(data / entry["file"])
    settings = json.loads(table.schema.metadata[support.METADATA_KEY])
    table = table.drop_columns(["search_values"])
    support.write_shard(data, entry, table, settings, 64)
    (data / "_dataset.json").write_text(json.dumps(manifest))
    _refused(_settings("head", data), tmp_path, "no search_values column")


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"warm_start": ""}, TrainError, "warm_start must be the path"),
        ({"warm_start": 3}, TrainError, "warm_start must be the path"),
        ({"warm_start_sha256": "0" * 64}, TrainError, "given with warm_start, never alone"),
        ({"warm_start": "d", "warm_start_sha256": "xyz"}, TrainError, "64 lowercase hex"),
        ({"warm_start_epochs": 0}, TrainError, r"warm_start_epochs must be in 1\.\.=1000"),
        ({"warm_start_epochs": 1.0}, TypeError, "warm_start_epochs must be an int"),
        ({"warm_start_min_visits": 0}, TrainError, "warm_start_min_visits must be in"),
    ],
)
def test_bad_warm_start_settings_are_refused(
    changes: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        TrainSettings(**changes)


def test_a_run_without_a_warm_start_keeps_its_settings_file() -> None:
    """The warm start's settings at their defaults are left out of settings.json and of the
    settings hash: old run folders resume as before."""
    plain = TrainSettings()
    assert not any(k.startswith("warm_start") for k in plain.to_json())
    chosen = TrainSettings(warm_start="data", warm_start_sha256="a" * 64)
    assert chosen.to_json()["warm_start_sha256"] == "a" * 64
    moved = TrainSettings(warm_start="elsewhere", warm_start_sha256="a" * 64)
    assert moved.identity() == chosen.identity() and not moved.differences(chosen)


def test_the_dataset_is_read_a_bounded_number_of_decisions_at_a_time(
    head_data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from panda_core.train import warm_start
    from panda_core.train._game import game_info

    monkeypatch.setattr(warm_start, "READ_DECISIONS", 7)
    data = warm_start.open_dataset(_settings("head", head_data), game_info("head"))
    shard = data._open(data.names[0])
    try:
        sizes = [len(r.observation) for g in range(2) for r in data._reads(shard, g)]
    finally:
        shard.close()
    assert max(sizes) == 7 and sum(sizes) == 128, sizes  # two row groups of 64 decisions
    monkeypatch.setattr(warm_start, "MAX_ROW_GROUP_BYTES", 1000)
    with pytest.raises(WarmStartError, match=r"row group 0: .* bytes uncompressed, more than"):
        data.check()


@pytest.mark.slow
def test_the_command_line_stops_on_ctrl_c_in_the_warm_start(
    head_data: Path, tmp_path: Path
) -> None:
    import subprocess
    import sys

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "panda_core.cli", "train", "--game", "head", "--decisions", "16",
           "--num-envs", "16", "--hidden", "32", "--eval-games", "0", "--threads", "1",
           "--warm-start", str(head_data), "--warm-start-epochs", "1000",
           "--out", str(out)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert "warm-start=" in proc.stdout.readline()
        time.sleep(5)  # the imports, the check, the compile: in the warm start's steps by then
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted before the first checkpoint" in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == ["settings.json"]


def test_rows_are_learned_in_whole_batches_the_last_one_padded() -> None:
    from panda_core.train.samples import Samples
    from panda_core.train.warm_start import _Batcher

    batcher = _Batcher(4)
    seen: list[float] = []
    for n in (3, 2, 6, 1):  # reads of a few rows each: 12 rows in all
        targets = np.arange(n, dtype=np.float32) + 100 * n
        rows = Samples(np.zeros((n, 2), np.float32), np.zeros(n, np.int32), targets)
        batcher.add(rows, np.ones(n, np.float32))
        while (full := batcher.take()) is not None:
            batch, weights = full
            assert len(batch) == 4 and weights.tolist() == [1.0] * 4
            seen += batch.targets.tolist()
    assert len(seen) == 12 and batcher.rest() is None
    batcher.add(
        Samples(np.ones((1, 2), np.float32), np.ones(1, np.int32), np.ones(1, np.float32)),
        np.ones(1, np.float32),
    )
    last = batcher.rest()
    assert last is not None
    assert len(last[0]) == 4 and last[1].tolist() == [1.0, 0.0, 0.0, 0.0]


def test_ids_out_of_range_are_refused_by_the_readers_checks(
    head_data: Path, tmp_path: Path
) -> None:
    import pyarrow as pa

    data = _copy(head_data, tmp_path, "ids")
    manifest = json.loads((data / "_dataset.json").read_text())
    entry = manifest["shards"][0]
    table = pq.read_table(data / entry["file"])
    settings = json.loads(table.schema.metadata[support.METADATA_KEY])
    legal = table.column("legal_actions").to_pylist()
    legal[3] = [99, *legal[3][1:]]  # Panda Head has 24 action ids
    index = table.schema.get_field_index("legal_actions")
    field = table.schema.field(index)
    table = table.set_column(index, field, pa.array(legal, field.type))
    support.write_shard(data, entry, table, settings, 64)
    (data / "_dataset.json").write_text(json.dumps(manifest))
    _refused(
        _settings("head", data),
        tmp_path,
        r"row group 0, from row 0: damaged values \(legal_actions holds values outside 0\.\.23\)",
    )


# ---- the real writer's datasets -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("game", ["head", "spin"])
def test_a_dataset_of_the_search_stats_writer_warm_starts_a_run(game: str, tmp_path: Path) -> None:
    """What ``panda-core selfplay --bots ismcts:N --search-stats`` writes (with move features in
    a climbing game) is what the warm start reads: the lists line up with the moves the network
    values, checked by the move played being the most visited, and the fit learns from them."""
    from panda_core.selfplay import selfplay

    data = tmp_path / "data"
    selfplay(
        data, game=game, players=4, bots=["ismcts:16", "heuristic"] * 2, episodes=2, seed=3,
        workers=0, search_stats=True, move_features=game != "head",
    )  # fmt: skip
    result = train(_settings(game, data, warm_start_epochs=4), tmp_path / "run")
    state = json.loads((result.out / "settings.json").read_text())
    assert state["warm_start_sha256"] == result.settings.warm_start_sha256
    curve = read_curve(result.out / "curve.csv")
    assert curve[0].decisions == 0 and np.isfinite(curve[0].loss)
    from panda_core.train._game import game_info
    from panda_core.train.warm_start import open_dataset

    searched, rows = open_dataset(result.settings, game_info(game)).check()
    assert searched > 10 and rows > searched  # several moves of each searched decision
