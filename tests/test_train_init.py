"""Starting a run from a policy's weights (``panda-core train --init POLICY``, issue 23's
fine-tuning of the shipped policies): the run's first row is the file's policy, byte for byte in
its tensors; the run learns from there, reproducibly, and resumes only from the same weights;
``shipped`` names the engine's embedded policy in every game; and every file that does not fit
the run (another game, other layers, damaged, huge, not a regular file) is refused with an
``InitPolicyError`` naming it, before the run folder is touched."""

from __future__ import annotations

import json
import os
import struct
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

from panda_core import NeuralPolicy
from panda_core.cli import main
from panda_core.train import TrainError, TrainSettings, read_policy, train
from panda_core.train.init_policy import SHIPPED, InitPolicyError
from panda_core.train.policy_file import MAX_HEADER_BYTES, max_policy_bytes, parse_policy
from panda_core.train.run import CHECKPOINTS, SETTINGS

ENVS = {"head": 16, "year": 4, "spin": 4}
TINY: dict[str, Any] = {
    "hidden": (8,),
    "batch_size": 16,
    "replay_window": 1,
    "target": "round",
    "lr": 1e-2,
    "eval_games": 0,
    "threads": 1,
    "eval_every": 1_000_000,
}


def _settings(game: str = "head", **changes: Any) -> TrainSettings:
    values: dict[str, Any] = {
        "game": game,
        "decisions": 200 * ENVS[game],
        "num_envs": ENVS[game],
        **TINY,
    }
    return TrainSettings(**{**values, **changes})


def _tensors(path: Path) -> list[np.ndarray]:
    return [t for layer in read_policy(path).layers for t in layer]


def _checkpoint(out: Path, decisions: int) -> Path:
    return out / CHECKPOINTS / f"{decisions:015d}.safetensors"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The policy file of a tiny Panda Head run (hidden 8): what the tests start from."""
    out = tmp_path_factory.mktemp("base")
    train(_settings(), out)
    return out / "policy.safetensors"


def test_a_run_starts_from_the_policys_weights_and_learns_from_there(
    base: Path, tmp_path: Path
) -> None:
    result = train(_settings(init_policy=str(base), seed=5), tmp_path / "tuned")
    start, end = _checkpoint(result.out, 0), _checkpoint(result.out, result.decisions)
    wanted = _tensors(base)
    assert all(np.array_equal(a, b) for a, b in zip(_tensors(start), wanted, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(_tensors(end), wanted, strict=True))
    saved = json.loads((result.out / SETTINGS).read_text())
    assert saved["init_policy"] == str(base)
    assert saved["init_policy_sha256"] == read_policy(base).metadata["sha256"]
    # Fresh weights of the same seed are not the file's: the start really came from it.
    fresh = train(_settings(seed=5), tmp_path / "fresh")
    assert not np.array_equal(_tensors(_checkpoint(fresh.out, 0))[0], wanted[0])


@pytest.mark.slow
def test_a_fine_tune_is_reproducible_and_resumes_exactly(base: Path, tmp_path: Path) -> None:
    settings = _settings(init_policy=str(base), eval_every=100 * ENVS["head"])
    whole = train(settings, tmp_path / "whole")
    train(replace(settings, decisions=100 * ENVS["head"]), tmp_path / "cut")
    moved = tmp_path / "moved.safetensors"
    moved.write_bytes(base.read_bytes())  # the path may change on resume, the weights may not
    resumed = train(replace(settings, init_policy=str(moved)), tmp_path / "cut")
    assert resumed.decisions == whole.decisions
    assert (whole.out / "policy.safetensors").read_bytes() == (
        resumed.out / "policy.safetensors"
    ).read_bytes()


@pytest.mark.slow
def test_a_run_resumes_only_from_the_weights_it_started_from(base: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    train(_settings(init_policy=str(base)), out)
    other = tmp_path / "other"
    train(_settings(seed=9), other)
    longer = 400 * ENVS["head"]
    with pytest.raises(TrainError, match="init_policy_sha256"):  # the folder's, and the file's
        train(_settings(init_policy=str(other / "policy.safetensors"), decisions=longer), out)
    known = json.loads((out / SETTINGS).read_text())["init_policy_sha256"]
    with pytest.raises(InitPolicyError, match="not the policy the run was started from"):
        theirs = _settings(init_policy=str(other / "policy.safetensors"), decisions=longer)
        train(replace(theirs, init_policy_sha256=known), out)  # settings read from the folder
    with pytest.raises(TrainError, match="init_policy_sha256"):
        train(_settings(decisions=longer), out)  # without --init: the folder's run is another
    assert not _checkpoint(out, longer).exists()


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_shipped_names_the_engines_policy_in_every_game(game: str, tmp_path: Path) -> None:
    shipped = NeuralPolicy.shipped(game)
    hidden = tuple(shipped.layers[1:-1])
    settings = _settings(game, init_policy=SHIPPED, hidden=hidden, decisions=ENVS[game])
    result = train(settings, tmp_path / game)
    start = _checkpoint(result.out, 0)
    wanted = parse_policy(shipped.to_bytes())
    assert read_policy(start).metadata["sha256"] == shipped.sha256 == wanted.metadata["sha256"]
    assert all(
        np.array_equal(a, b)
        for a, b in zip(_tensors(start), [t for layer in wanted.layers for t in layer], strict=True)
    )


def _header_of(blob: bytes) -> tuple[dict[str, Any], bytes]:
    (size,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8 : 8 + size]), blob[8 + size :]


def _with_header(header: dict[str, Any], data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def _damaged(base: Path) -> dict[str, tuple[bytes, str]]:
    """Policy files that must be refused, each with what the message says."""
    blob = base.read_bytes()
    header, data = _header_of(blob)
    cases: dict[str, tuple[bytes, str]] = {
        "empty": (b"", "not a policy file"),
        "truncated": (blob[: len(blob) - 5], "truncated or damaged"),
        "bit flip": (blob[:-1] + bytes([blob[-1] ^ 1]), "sha256"),
        "not JSON": (struct.pack("<Q", 4) + b"{{{{" + data, "not JSON"),
        "huge header length": (struct.pack("<Q", 2**62) + blob[8:], "header of"),
    }
    meta = dict(header["__metadata__"])
    cases["another format"] = (
        _with_header({**header, "__metadata__": {**meta, "format": "x"}}, data),
        "metadata format",
    )
    cases["another format version"] = (
        _with_header({**header, "__metadata__": {**meta, "format_version": "9"}}, data),
        "format_version",
    )
    cases["another game"] = (
        _with_header({**header, "__metadata__": {**meta, "game": "spin"}}, data),
        "its game is 'spin'",
    )
    cases["another layout"] = (
        _with_header({**header, "__metadata__": {**meta, "observation_layout": "head-v0"}}, data),
        "its observation_layout",
    )
    swapped = dict(header)
    swapped["layers.0.bias"], swapped["layers.1.bias"] = (
        header["layers.1.bias"],
        header["layers.0.bias"],
    )
    cases["tensors that do not chain"] = (_with_header(swapped, data), "do not chain")
    many = dict(header)
    for i in range(2, 12):
        many[f"layers.{i}.weight"] = header["layers.1.weight"]
        many[f"layers.{i}.bias"] = header["layers.1.bias"]
    cases["too many tensors"] = (_with_header(many, data), "at most 8 layers")
    return cases


def test_every_damaged_policy_is_refused_before_the_folder_is_touched(
    base: Path, tmp_path: Path
) -> None:
    for name, (blob, match) in _damaged(base).items():
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(blob)
        out = tmp_path / f"run-{name}"
        with pytest.raises(InitPolicyError, match=match) as err:
            train(_settings(init_policy=str(path)), out)
        assert str(path) in str(err.value), name
        assert not out.exists(), name


def test_a_policy_of_other_layers_is_refused_with_the_hidden_it_needs(
    base: Path, tmp_path: Path
) -> None:
    with pytest.raises(InitPolicyError, match=r"--hidden 8\)"):
        train(_settings(init_policy=str(base), hidden=(16,)), tmp_path / "run")
    with pytest.raises(InitPolicyError, match="layers"):
        train(_settings("year", init_policy=SHIPPED), tmp_path / "run")  # shipped is 256,128
    assert not (tmp_path / "run").exists()


def test_huge_missing_and_special_files_are_refused_unread(base: Path, tmp_path: Path) -> None:
    huge = tmp_path / "huge.safetensors"
    with huge.open("wb") as handle:  # sparse: its size is refused before a byte is read
        handle.truncate(max_policy_bytes([base.stat().st_size, 8, 1]) * 100)
    cases = {
        str(huge): "more than a policy file can be",
        str(tmp_path / "missing"): "cannot read the policy file",
        str(tmp_path): "not a regular file",
        "/dev/zero": "not a regular file",
    }
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases[str(fifo)] = "FIFO"
    for path, match in cases.items():
        done: list[BaseException] = []

        def attempt(path: str = path, done: list[BaseException] = done) -> None:
            try:
                train(_settings(init_policy=path), tmp_path / "run")
            except BaseException as err:  # handed to the main thread
                done.append(err)

        worker = threading.Thread(target=attempt, daemon=True)
        worker.start()
        worker.join(30)
        assert done, f"{path}: still reading after 30 s"
        assert isinstance(done[0], InitPolicyError) and match in str(done[0]), (path, done[0])
    assert not (tmp_path / "run").exists()


def test_the_policy_reader_bounds_its_header_and_size(base: Path, tmp_path: Path) -> None:
    header, data = _header_of(base.read_bytes())
    header["__metadata__"] = {**header["__metadata__"], "pad": "x" * MAX_HEADER_BYTES}
    big = tmp_path / "big.safetensors"
    big.write_bytes(_with_header(header, data))
    with pytest.raises(TrainError, match="a header is at most"):
        read_policy(big)
    with pytest.raises(TrainError, match="more than a policy file can be"):
        read_policy(base, max_bytes=base.stat().st_size - 1)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"init_policy": ""}, "init_policy must be the path of a policy file"),
        ({"init_policy": 3}, "init_policy must be the path of a policy file"),
        ({"init_policy": "p", "init_policy_sha256": "abc"}, "64 lowercase hex digits"),
        ({"init_policy_sha256": "a" * 64}, "given with init_policy, never alone"),
    ],
)
def test_bad_init_settings_are_refused(changes: dict[str, Any], match: str) -> None:
    with pytest.raises(TrainError, match=match):
        _settings(**changes)


def test_the_command_line_takes_init_and_refuses_a_bad_file_in_one_line(
    base: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tiny = ["--hidden", "8", "--batch-size", "16", "--eval-games", "0", "--threads", "1"]
    argv = ["train", "--init", str(base), "-n", "32", "--num-envs", "16", "--quiet", *tiny]
    assert main([*argv, "--out", str(tmp_path / "ok")]) == 0
    assert "init=" in capsys.readouterr().out
    saved = json.loads((tmp_path / "ok" / SETTINGS).read_text())
    assert saved["init_policy"] == str(base)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"not a policy")
    assert main(["train", "--init", str(bad), *tiny, "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error:") and str(bad) in err and "Traceback" not in err
    assert not (tmp_path / "bad").exists()
