"""Hostile run folders for the trainer (issue 19, item 6 and the trainer's sizes of item 10): a
train state that is truncated, bit-flipped, of another dtype or shape, missing or with an extra
tensor, of another run or game, a pickle (never unpickled), a folder or a FIFO, with a huge
header; a run folder whose train state was deleted; damaged settings and curve files; sizes that
would exhaust memory. Each is refused with a ``TrainError`` naming the file, before anything is
written, and leaves the folder as it was."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

from safetensors import safe_open
from safetensors.numpy import save

from panda_core.cli import main
from panda_core.train import TrainError, TrainSettings, train
from panda_core.train.checkpoint import MAX_HEADER_BYTES, _digest, _header
from panda_core.train.run import CURVE_CSV, OLD_STATE, POLICY, SETTINGS, STATE
from panda_core.train.settings import MAX_NUM_ENVS

TINY: dict[str, Any] = {
    "game": "head",
    "decisions": 6_000,
    "num_envs": 16,
    "eval_every": 3_000,
    "eval_games": 0,
    "threads": 1,
    "hidden": (8,),
    "batch_size": 64,
    "lr": 1e-3,
}


def _settings(**changes: Any) -> TrainSettings:
    return TrainSettings(**{**TINY, **changes})


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny finished run (with self-play games in progress and decisions waiting)."""
    folder = tmp_path_factory.mktemp("run")
    train(_settings(), folder)
    return folder


@pytest.fixture
def run(finished: Path, tmp_path: Path) -> Path:
    """A copy of the finished run to damage."""
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    return folder


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _refused(folder: Path, match: str) -> None:
    """Resuming (with a larger budget) is refused with ``match`` and the file's name, and leaves
    every file of the folder as it was."""
    before = _snapshot(folder)
    with pytest.raises(TrainError, match=match) as caught:
        train(_settings(decisions=9_000), folder)
    assert str(folder) in str(caught.value), "the message names the file or folder"
    assert _snapshot(folder) == before, "nothing was written"


def _read(path: Path) -> tuple[dict[str, np.ndarray[Any, Any]], dict[str, str]]:
    with safe_open(str(path), framework="numpy") as handle:
        metadata = dict(handle.metadata())
        tensors = {name: handle.get_tensor(name) for name in handle.keys()}
    return tensors, metadata


def _rewrite(
    path: Path,
    tensors: Callable[[dict[str, Any]], None] | None = None,
    document: Callable[[dict[str, Any]], None] | None = None,
    resign: bool = True,
) -> None:
    """Rewrite the train state with ``tensors`` / ``document`` changes; ``resign``: with a
    sha256 that matches (a well-formed file of what was changed, not a damaged one)."""
    arrays, metadata = _read(path)
    state = json.loads(metadata["state"])
    if tensors is not None:
        tensors(arrays)
    if document is not None:
        document(state)
    metadata["state"] = json.dumps(state, sort_keys=True, separators=(",", ":"))
    if resign:
        metadata["sha256"] = _digest(metadata["state"], arrays)
    path.write_bytes(save(arrays, metadata=metadata))


class _Marker:
    """Unpickling it creates a file: proof that a pickle was (not) loaded."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.path,))


def _flip(offset_from_end: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        blob = bytearray(path.read_bytes())
        blob[-offset_from_end] ^= 0x10
        path.write_bytes(bytes(blob))

    return damage


def _edit_steps(path: Path) -> None:
    """Change the first digit of the recorded gradient steps (the same length: a valid file)."""
    blob = bytearray(path.read_bytes())
    at = blob.index(b'steps\\":') + len(b'steps\\":')
    blob[at] = ord("1") if blob[at] != ord("1") else ord("2")
    path.write_bytes(bytes(blob))


def _param(name: str, change: Callable[[Any], Any]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        _rewrite(path, tensors=lambda t: t.update({name: change(t[name])}))

    return damage


KERNEL = "params['params']['Dense_0']['kernel']"

CORRUPTIONS: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated to half": (
        lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
        "truncated or damaged",
    ),
    "truncated to 5 bytes": (lambda p: p.write_bytes(p.read_bytes()[:5]), "truncated"),
    "empty": (lambda p: p.write_bytes(b""), "truncated"),
    "bit flipped in a tensor": (_flip(3), "sha256 of its contents does not match"),
    "a digit changed in the state document": (
        lambda p: _edit_steps(p),
        "sha256 of its contents does not match",
    ),
    "damaged header": (
        lambda p: p.write_bytes(p.read_bytes()[:8] + b"\xff" + p.read_bytes()[9:]),
        "damaged header",
    ),
    "wrong dtype": (_param(KERNEL, lambda a: a.astype(np.float64)), "dtype 'F64', not F32"),
    "wrong shape": (_param(KERNEL, lambda a: a[:, :4].copy()), "has shape"),
    "missing tensor": (
        lambda p: _rewrite(p, tensors=lambda t: t.pop("opt_state[0].count")),
        r"tensors missing: opt_state\[0\]\.count",
    ),
    "extra tensor": (
        lambda p: _rewrite(p, tensors=lambda t: t.update({"evil": np.zeros(3, np.float32)})),
        "unexpected tensors: evil",
    ),
    "another run's settings": (
        lambda p: _rewrite(
            p, document=lambda d: d.update(settings_sha256=_settings(lr=0.5).identity())
        ),
        "other settings",
    ),
    "another game's checkpoint": (
        lambda p: _rewrite(p, document=lambda d: d.update(game="year")),
        "a train state of a 'year' run",
    ),
    "another format version": (
        lambda p: p.write_bytes(
            p.read_bytes().replace(b'"format_version":"2"', b'"format_version":"9"', 1)
        ),
        "train state version '9'",
    ),
    "huge header": (
        lambda p: p.write_bytes(struct.pack("<Q", 2**40) + p.read_bytes()[8:]),
        f"header of {2**40} bytes .*at most {MAX_HEADER_BYTES}",
    ),
    "an index out of range": (
        _param("actor.buffer.games", lambda a: a + 10**9),
        r"actor\.buffer\.games holds values outside",
    ),
    "a seat out of range": (
        _param("actor.player", lambda a: a - 5),
        r"actor\.player holds values outside 0\.\.3",
    ),
    "damaged envs": (
        lambda p: _rewrite(p, document=lambda d: d["actor"].update(env='{"format": 1}')),
        "damaged self-play envs",
    ),
    "damaged generator": (
        lambda p: _rewrite(p, document=lambda d: d["actor"].update(rng={"bit_generator": "MT"})),
        "damaged random generator state",
    ),
    "damaged counters": (
        lambda p: _rewrite(p, document=lambda d: d["counters"].update(decisions=-4)),
        r"damaged counters \(decisions = -4\)",
    ),
    "a directory in its place": (
        lambda p: (p.unlink(), p.mkdir()),
        "not a regular file .a directory.",
    ),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
@pytest.mark.slow
def test_a_damaged_train_state_is_refused_naming_it(run: Path, case: str) -> None:
    damage, match = CORRUPTIONS[case]
    damage(run / STATE)
    _refused(run, match)


def test_a_fifo_in_place_of_the_train_state_does_not_hang(run: Path) -> None:
    (run / STATE).unlink()
    os.mkfifo(run / STATE)
    outcome: list[BaseException | None] = []

    def resume() -> None:
        try:
            train(_settings(decisions=9_000), run)
            outcome.append(None)
        except BaseException as err:
            outcome.append(err)

    worker = threading.Thread(target=resume, daemon=True)
    worker.start()
    worker.join(timeout=60)  # generous: refused at once, without reading
    assert outcome, "resuming on a FIFO hung"
    assert isinstance(outcome[0], TrainError) and "a FIFO" in str(outcome[0])


def test_a_pickle_named_as_the_train_state_is_never_unpickled(run: Path) -> None:
    marker = run.parent / "unpickled"
    (run / STATE).write_bytes(pickle.dumps({"format": "x", "evil": _Marker(marker)}))
    _refused(run, "a pickle .* it is not read, since unpickling can run any code")
    assert not marker.exists(), "the pickle was loaded"


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_a_safetensors_header_whose_length_starts_like_a_pickle_is_read(protocol: int) -> None:
    """A header length whose low byte is the pickle opcode 0x80 (followed by a protocol byte) is
    still a safetensors file, and a real pickle of each protocol is still refused unread (a run
    interrupted where its header came to 1,152 bytes was refused as a pickle)."""
    data = save({"w": np.zeros(3, dtype=np.float32)}, metadata={"format": "x"})
    (length,) = struct.unpack("<Q", data[:8])
    header = data[8 : 8 + length]
    padded = 256 * protocol + 0x80  # bytes 80, protocol, 0, ...
    assert padded > length
    raw = header + b" " * (padded - length)  # safetensors pads its header with spaces
    doc = struct.pack("<Q", padded) + raw + data[8 + length :]
    assert doc[:1] == b"\x80" and doc[1] == protocol
    _, parsed = _header("f", io.BytesIO(doc), len(doc))
    assert parsed == json.loads(header)
    pickled = pickle.dumps({"format": "x", "w": [0.0] * 3}, protocol=protocol)
    with pytest.raises(TrainError, match=r"a pickle .* it is not read"):
        _header("f", io.BytesIO(pickled), len(pickled))


def test_the_pickled_state_of_an_older_version_is_refused_unread(run: Path) -> None:
    marker = run.parent / "unpickled"
    (run / STATE).unlink()
    (run / OLD_STATE).write_bytes(pickle.dumps(_Marker(marker)))
    _refused(run, f"{OLD_STATE} is the train state of an older panda-core, a pickle")
    assert not marker.exists(), "the pickle was loaded"


@pytest.mark.slow
def test_a_deleted_train_state_does_not_restart_over_the_policy(run: Path) -> None:
    (run / STATE).unlink()
    _refused(run, f"holds {POLICY} and {CURVE_CSV} of a run but no {STATE}")
    # The documented way to start afresh: remove the run's results (or use a new folder).
    for name in (POLICY, CURVE_CSV, "curve.png"):
        (run / name).unlink()
    result = train(_settings(decisions=3_000), run)
    assert result.decisions >= 3_000 and (run / STATE).exists()


def test_a_damaged_train_state_is_blamed_on_itself_not_on_the_policy(run: Path) -> None:
    (run / STATE).write_bytes(b"\x00" * 64)
    with pytest.raises(TrainError) as caught:
        train(_settings(decisions=9_000), run)
    assert STATE in str(caught.value) and POLICY not in str(caught.value)


@pytest.mark.parametrize(
    ("damage", "match"),
    [
        (lambda p: (p.unlink(), os.mkfifo(p)), "a FIFO"),
        (lambda p: p.write_bytes(b" " * (1 << 20)), "more than a run settings file can be"),
        (lambda p: p.write_bytes(b"[1, 2"), "not the settings of a training run"),
    ],
)
def test_a_damaged_settings_file_is_refused(run: Path, damage: Any, match: str) -> None:
    damage(run / SETTINGS)
    with pytest.raises(TrainError, match=match):
        train(_settings(decisions=9_000), run)


def test_a_damaged_curve_is_refused_naming_the_line(run: Path) -> None:
    lines = (run / CURVE_CSV).read_text().splitlines()
    lines[2] = lines[2].replace(lines[2].split(",")[0], "many", 1)
    (run / CURVE_CSV).write_text("\n".join(lines) + "\n")
    with pytest.raises(TrainError, match=f"{CURVE_CSV}, line 3: not a curve row"):
        train(_settings(decisions=9_000), run)


@pytest.mark.slow
def test_an_intact_copy_still_resumes(run: Path, finished: Path) -> None:
    """The checks refuse only what is wrong: the undamaged copy resumes to the same policy as a
    run that never stopped (the byte-identical resume itself is in test_train.py)."""
    result = train(_settings(decisions=9_000), run)
    assert result.decisions >= 9_000
    assert (run / POLICY).read_bytes() != (finished / POLICY).read_bytes()


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"num_envs": MAX_NUM_ENVS + 1}, f"num_envs must be in 1..={MAX_NUM_ENVS}"),
        ({"hidden": (4096,) * 7}, "parameters for head; at most"),
        ({"game": "year", "batch_size": 65_536}, "floats a batch, more than"),
        ({"decisions": 10**30}, "decisions must be in"),
    ],
)
def test_sizes_that_would_exhaust_memory_are_refused_up_front(
    changes: dict[str, Any], match: str
) -> None:
    with pytest.raises(TrainError, match=match):
        _settings(**changes)


def test_the_command_line_refuses_a_huge_network_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["train", "--hidden", ",".join(["4096"] * 7), "--out", str(tmp_path / "r")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error:") and "parameters" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()
