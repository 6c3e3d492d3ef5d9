"""Hostile self-play folders and bots (issue 19, items 7 and 10): shards that are truncated,
bit-flipped, of another game or run, without or with a damaged checksum, FIFOs and folders in
their place, crafted footers and out-of-range ids; damaged manifests; bots that never answer (in
this process and in workers, interruptible or not), answers that raise; a parent killed with
SIGKILL (its workers die too); sizes that would exhaust memory. Each is refused with a
``PandaCoreError`` naming the file (the loader's ``DatasetError``) or fails its shard only."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import panda_core
from panda_core._core import ArgumentError, PandaCoreError
from panda_core.cli import main
from panda_core.selfplay import (
    MANIFEST,
    MAX_EPISODES,
    MAX_SHARDS,
    DatasetError,
    SelfPlayError,
    iter_batches,
    load,
    scatter,
    selfplay,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "python"
RUN: dict[str, Any] = {"game": "head", "players": 2, "episodes": 4, "shard_episodes": 2}


def _env() -> dict[str, str]:
    paths = [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
    if Path(panda_core.__file__).resolve().is_relative_to(SOURCE.resolve()):
        paths.insert(0, str(SOURCE))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A finished dataset of Panda Head (2 shards and the manifest), one of ``year``, and one
    of Panda Head with another seed."""
    out = {}
    for name, changes in (("head", {}), ("year", {"game": "year"}), ("seed", {"seed": 9})):
        folder = tmp_path_factory.mktemp(name)
        selfplay(folder, workers=0, **{**RUN, **changes})
        out[name] = folder
    return out


@pytest.fixture
def data(written: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the Panda Head dataset to damage."""
    shutil.copytree(written["head"], tmp_path / "d")
    return tmp_path / "d"


def _resign(shard: Path, manifest: bool = True) -> None:
    """Record ``shard``'s size and sha256 as if it had been written so (a well-formed file of
    what was changed, rather than a damaged one)."""
    digest = hashlib.sha256(shard.read_bytes()).hexdigest()
    checksum = shard.parent / f"_{shard.stem}.json"
    document = json.loads(checksum.read_text())
    document.update(bytes=shard.stat().st_size, sha256=digest)
    checksum.write_text(json.dumps(document))
    if manifest and (shard.parent / MANIFEST).exists():
        found = json.loads((shard.parent / MANIFEST).read_text())
        for entry in found["shards"]:
            if entry["file"] == shard.name:
                entry.update(bytes=shard.stat().st_size, sha256=digest)
        (shard.parent / MANIFEST).write_text(json.dumps(found))


def _rewrite_column(shard: Path, name: str, change: Callable[[Any], Any]) -> None:
    table = pq.read_table(shard)
    i = table.schema.get_field_index(name)
    column = table.column(name).combine_chunks()
    if pa.types.is_list(column.type):
        values = pa.array(change(column.flatten().to_numpy()), type=column.type.value_type)
        column = pa.ListArray.from_arrays(column.offsets, values, type=column.type)
    else:
        column = pa.array(change(column.to_numpy()), type=column.type)
    pq.write_table(table.set_column(i, table.schema.field(i), column), shard)
    _resign(shard)


def _flip_middle(path: Path) -> None:
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0x01
    path.write_bytes(bytes(blob))


def _other(written: dict[str, Path], which: str) -> Callable[[Path], None]:
    """Put shard 1 of another dataset (with its own, valid checksum file) in place of ours."""

    def damage(folder: Path) -> None:
        for name in ("part-00001.parquet", "_part-00001.json"):
            shutil.copy(written[which] / name, folder / name)
        (folder / MANIFEST).unlink()

    return damage


def _footer(folder: Path) -> None:
    shard = folder / "part-00001.parquet"
    blob = shard.read_bytes()
    shard.write_bytes(blob[:-8] + struct.pack("<I", 2**31) + b"PAR1")
    _resign(shard)


def _manifest_entry(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        found = json.loads((folder / MANIFEST).read_text())
        change(found)
        (folder / MANIFEST).write_text(json.dumps(found))

    return damage


def _fifo(name: str) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        (folder / name).unlink()
        os.mkfifo(folder / name)

    return damage


SHARD1 = "part-00001.parquet"
CORRUPTIONS: dict[str, tuple[Callable[[Path], None], str, str]] = {
    # name: (damage, the file named, what the message says)
    "truncated shard": (
        lambda f: (f / SHARD1).write_bytes((f / SHARD1).read_bytes()[:-100]),
        SHARD1,
        "bytes, but .* were written",
    ),
    "bit-flipped shard": (lambda f: _flip_middle(f / SHARD1), SHARD1, "do not match the sha256"),
    "garbage shard with a matching checksum": (
        lambda f: ((f / SHARD1).write_bytes(b"not parquet at all"), _resign(f / SHARD1)),
        SHARD1,
        "not a Parquet file",
    ),
    "huge Parquet footer": (_footer, SHARD1, "a Parquet footer of 2147483648 bytes"),
    "shard of another game": (None, SHARD1, "another dataset than .*game: head / year"),  # type: ignore[dict-item]
    "shard of another seed": (None, SHARD1, "another dataset than .*seed: 0 / 9"),  # type: ignore[dict-item]
    "deleted checksum": (
        lambda f: (f / "_part-00001.json").unlink(),
        SHARD1,
        "has no checksum file _part-00001.json",
    ),
    "damaged checksum": (
        lambda f: (f / "_part-00001.json").write_text('{\n"format": \n'),
        "_part-00001.json",
        "line 3: damaged shard checksum file",
    ),
    "checksum of another shard": (
        lambda f: shutil.copy(f / "_part-00000.json", f / "_part-00001.json"),
        "_part-00001.json",
        "not the checksum file of part-00001.parquet",
    ),
    "FIFO as a shard": (_fifo(SHARD1), SHARD1, "a FIFO"),
    "folder as a shard": (
        lambda f: ((f / SHARD1).unlink(), (f / SHARD1).mkdir()),
        SHARD1,
        "not a regular file",
    ),
    "damaged manifest": (
        lambda f: (f / MANIFEST).write_text('{"shards": [\n\n'),
        MANIFEST,
        "line 3: damaged self-play manifest",
    ),
    "FIFO as the manifest": (_fifo(MANIFEST), MANIFEST, "a FIFO"),
    "manifest naming a path outside the folder": (
        _manifest_entry(lambda m: m["shards"][0].update(file="../../etc/passwd")),
        MANIFEST,
        "damaged manifest",
    ),
    "manifest of another dataset": (
        _manifest_entry(lambda m: m.update(settings_sha256="0" * 64)),
        "part-00000.parquet",
        "another dataset than its folder's manifest",
    ),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_a_damaged_dataset_is_refused_by_the_loader(
    written: dict[str, Path], data: Path, case: str
) -> None:
    damage, named, match = CORRUPTIONS[case]
    if damage is None:
        damage = _other(written, "year" if "game" in case else "seed")
    damage(data)
    for read in (load, lambda p: list(iter_batches(p))):
        err = _bounded(lambda read=read: read(data))
        assert isinstance(err, DatasetError), f"{case}: {err!r}"
        assert named in str(err) and re.search(match, str(err)), str(err)


def _bounded(call: Callable[[], Any]) -> BaseException | None:
    """What ``call`` raised (None if nothing), run in a thread given a generous 60 s: a FIFO
    must be refused, not waited on."""
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as err:
            outcome.append(err)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert outcome, "it hung"
    return outcome[0]


RESUMED = ["truncated shard", "bit-flipped shard", "shard of another game", "deleted checksum",
           "FIFO as a shard", "huge Parquet footer"]  # fmt: skip


@pytest.mark.parametrize("case", RESUMED)
def test_a_resume_refuses_a_damaged_shard_and_keeps_it(
    written: dict[str, Path], data: Path, case: str
) -> None:
    damage, named, _ = CORRUPTIONS[case]
    if damage is None:
        damage = _other(written, "year")
    damage(data)
    before = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file() and p.name != SHARD1}
    with pytest.raises(DatasetError, match=named):
        selfplay(data, workers=0, **RUN)
    after = {p.name: p.read_bytes() for p in data.iterdir() if p.is_file() and p.name != SHARD1}
    assert after == before, "nothing was overwritten"


def test_a_resume_after_removing_the_damaged_shard_plays_it_again(data: Path) -> None:
    good = (data / SHARD1).read_bytes()
    _flip_middle(data / SHARD1)
    with pytest.raises(DatasetError):
        selfplay(data, workers=0, **RUN)
    (data / SHARD1).unlink()  # what the message says to do
    info = selfplay(data, workers=0, **RUN)
    assert info.skipped == 1 and (data / SHARD1).read_bytes() == good


@pytest.mark.parametrize(
    ("column", "change", "match"),
    [
        ("legal_actions", lambda a: a + 30_000, "legal_actions holds values outside 0..23"),
        ("seat", lambda a: a + 7, "seat holds values outside 0..1"),
        ("observation_index", lambda a: -a - 1, r"row 0: position -\d+ is outside 0\.\.95"),
    ],
)
def test_ids_out_of_range_are_refused_naming_the_row_group(
    data: Path, column: str, change: Any, match: str
) -> None:
    """A well-formed shard (its checksum matches) whose ids would index out of the dense
    arrays (numpy would raise, or silently wrap a negative position around)."""
    _rewrite_column(data / SHARD1, column, change)
    with pytest.raises(DatasetError, match=f"{SHARD1}, row group 0, from row 0: .*{match}"):
        list(iter_batches(data))


def test_scatter_refuses_positions_out_of_range() -> None:
    offsets = np.array([0, 1, 2])
    with pytest.raises(ArgumentError, match=r"row 1: position 5 is outside 0\.\.4"):
        scatter(np.array([0, 5]), offsets, 5)
    with pytest.raises(ArgumentError, match="past the 1 positions"):
        scatter(np.array([0]), offsets, 5)
    assert scatter(np.array([0, 4]), offsets, 5).sum() == 2


def test_an_unchecked_read_is_asked_for_explicitly(
    written: dict[str, Path], tmp_path: Path
) -> None:
    single = tmp_path / "alone.parquet"
    shutil.copy(written["head"] / "part-00000.parquet", single)
    with pytest.raises(DatasetError, match=r"has no checksum file _alone\.json"):
        load(single)
    assert load(single, verify=False).count_rows() > 0
    with pytest.raises(TypeError, match="verify"):
        load(single, verify="no")  # type: ignore[arg-type]


# ---- bots that never answer ---------------------------------------------------------------------


class Sleeper:
    """Never answers (an interruptible wait)."""

    def __call__(self, game: Any, player: int) -> int:
        time.sleep(3600)
        return 0


class Deaf:
    """Never answers, with SIGALRM blocked: ``move_time`` cannot interrupt it."""

    def __call__(self, game: Any, player: int) -> int:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        time.sleep(3600)
        return 0


class BadIndex:
    def __index__(self) -> int:
        raise RuntimeError("no index for you")


def bad_answer(game: Any, player: int) -> Any:
    return BadIndex()


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.slow
def test_a_bot_that_never_answers_fails_its_shard_in_move_time(
    tmp_path: Path, workers: int
) -> None:
    start = time.monotonic()
    with pytest.raises(SelfPlayError) as caught:
        selfplay(
            tmp_path, game="head", players=2, bots=[Sleeper(), "random"], episodes=1,
            workers=workers, move_time=0.5,
        )  # fmt: skip
    assert time.monotonic() - start < 60, "generous: the move is stopped after 0.5 s"
    assert "the bot took longer than the move time (0.5 s)" in str(caught.value)
    assert "seat 0 (Sleeper)" in str(caught.value)


@pytest.mark.slow
def test_a_bot_that_cannot_be_interrupted_loses_its_worker(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(SelfPlayError) as caught:
        selfplay(
            tmp_path, game="head", players=2, bots=[Deaf(), "random"], episodes=1, workers=1,
            move_time=0.5, game_time=1,
        )  # fmt: skip
    assert time.monotonic() - start < 60
    assert "timeout: its worker was stopped after 1 s (1 episodes of game_time 1 s)" in str(
        caught.value
    )
    assert not list(tmp_path.glob("*.parquet*")), "no shard, no temporary file"


def test_an_answer_that_raises_is_an_illegal_move(tmp_path: Path) -> None:
    with pytest.raises(SelfPlayError, match=r"illegal move .*RuntimeError: no index for you"):
        selfplay(tmp_path, game="head", players=2, bots=[bad_answer, "random"], episodes=1,
                 workers=0)  # fmt: skip


def test_the_cli_takes_the_time_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selfplay", "--bots", "test_selfplay_hostile:Sleeper,random", "--players", "2",
            "--episodes", "1", "--workers", "0", "--move-time", "0.3"]  # fmt: skip
    argv += ["--out", str(tmp_path)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "took longer than the move time (0.3 s)" in err and "Traceback" not in err
    with pytest.raises(SystemExit):
        main([*argv[:-4], "--move-time", "nan", "--out", str(tmp_path)])


# ---- the parent killed --------------------------------------------------------------------------


PIDS_BOT = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path

    class Tell:
        def __init__(self, folder):
            self.folder = folder

        def __call__(self, game, player):
            Path(self.folder, str(os.getpid())).write_text("")
            time.sleep(3600)
            return 0
    """
)


@pytest.mark.slow
def test_workers_die_with_their_parent(tmp_path: Path) -> None:
    (tmp_path / "pidsbot.py").write_text(PIDS_BOT)
    pids = tmp_path / "pids"
    pids.mkdir()
    script = (
        "from panda_core.selfplay import selfplay\n"
        "from pidsbot import Tell\n"
        "if __name__ == '__main__':\n"
        f"    selfplay({str(tmp_path / 'out')!r}, game='head', players=2, "
        f"bots=[Tell({str(pids)!r}), 'random'], episodes=4, shard_episodes=1, workers=2, "
        "move_time=3600)\n"
    )
    (tmp_path / "run.py").write_text(script)
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    parent = subprocess.Popen([sys.executable, str(tmp_path / "run.py")], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(list(pids.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = [int(p.name) for p in pids.iterdir()]
        assert len(workers) == 2, "the workers did not start"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "a worker outlived its parent"
    finally:
        parent.kill()
        for pid in [int(p.name) for p in pids.iterdir()]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    """A running process (a zombie waiting for a reaper has died)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "\nState:\tZ" not in status


# ---- sizes ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"episodes": 10**11}, f"episodes must be <= {MAX_EPISODES:,}"),
        ({"episodes": MAX_SHARDS * 100 + 1}, f"more than {MAX_SHARDS:,}: use shard_episodes >= "),
        ({"move_time": 0}, "move_time must be more than 0"),
        ({"game_time": float("inf")}, "game_time must be more than 0"),
        ({"move_time": "1"}, "move_time must be a number"),
    ],
)
def test_sizes_and_bounds_are_refused_before_anything_is_played(
    tmp_path: Path, kwargs: dict[str, Any], match: str
) -> None:
    start = time.monotonic()
    with pytest.raises((PandaCoreError, TypeError), match=match):
        selfplay(tmp_path / "out", workers=0, **kwargs)
    assert time.monotonic() - start < 30, "refused at once (generous)"
    assert not (tmp_path / "out").exists()


def test_the_cli_refuses_huge_sizes_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--episodes", str(MAX_SHARDS * 100 + 1), "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error:") and "shards" in err and "Traceback" not in err


def test_a_plan_of_many_shards_is_made_on_demand() -> None:
    """A dataset of the largest size: its shard tasks are computed when asked for, not built
    as a list of every episode range (peak memory of the plan is measured in a child)."""
    code = textwrap.dedent(
        f"""
        import resource
        from panda_core.selfplay.run import _ShardTasks, _Task
        from panda_core._registry import spec
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        template = _Task(out="x", shard=0, first=0, episodes=0, game="head", players=2,
                         rules=spec("head").rules(None), bots=("random",), seed=0, settings={{}})
        tasks = _ShardTasks(template, {MAX_EPISODES}, {MAX_EPISODES // MAX_SHARDS}, set())
        last = tasks[len(tasks) - 1]
        assert len(tasks) == {MAX_SHARDS} and last.first + last.episodes == {MAX_EPISODES}
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    grown_kb = int(done.stdout.strip())
    assert grown_kb < 50_000, f"the plan took {grown_kb} kB"
