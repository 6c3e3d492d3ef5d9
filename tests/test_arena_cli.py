"""``panda-core arena`` end to end, in subprocesses: the guide's example bot rated with a plot,
the results folder, resuming after Ctrl-C and after the process is killed, and the usage errors.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
EXAMPLES = ROOT / "examples"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    extra = [str(TESTS)]
    env["PYTHONPATH"] = os.pathsep.join([*extra, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _arena(*args: str, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "panda_core.cli", "arena", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_the_guide_rates_its_example_bot_with_intervals_and_a_plot(tmp_path: Path) -> None:
    """docs/rate_your_bot.md: ./mybot.py is found from the current directory."""
    (tmp_path / "mybot.py").write_text((EXAMPLES / "mybot.py").read_text())
    out = tmp_path / "results"
    done = _arena(
        "-e", "mybot:Wobbly,heuristic,random", "--deals", "6", "--workers", "2",
        "--out", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for label in ("Wobbly", "heuristic", "random"):
        assert label in done.stdout
    assert ("%" in done.stdout and "±" in done.stdout) or "[" in done.stdout
    for name in ("results.json", "standings.csv", "head_to_head.csv", "ratings.png", "arena.json"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "ratings.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((out / "results.json").read_text())
    assert results["played"] == results["scheduled"] == 18
    assert len((out / "games.jsonl").read_text().splitlines()) == 18


@pytest.mark.parametrize("game", ["head", "year", "spin"])
@pytest.mark.slow
def test_json_output_and_the_default_folder_that_resumes(tmp_path: Path, game: str) -> None:
    args = ("-e", "arena_bots:first_legal,heuristic", "--game", game, "--deals", "3", "--json")
    first = _arena(*args, "--workers", "1", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    folders = list((tmp_path / "arena-results").iterdir())
    assert len(folders) == 1 and folders[0].name.startswith(f"{game}-4p-")
    again = _arena(*args, "--workers", "2", cwd=tmp_path)  # read back: nothing left to play
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert len(list((tmp_path / "arena-results").iterdir())) == 1


def _wait_for_games(log: Path, n: int, proc: subprocess.Popen[str], limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_text().splitlines()) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"no {n} games in {log} after {limit} s")


def _no_process_left(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


RESUMED_ARENA = [
    "-e",
    "arena_bots:Slow,heuristic,arena_bots:first_legal",
    *("--deals", "24", "--workers", "2", "--json", "-q"),
]
"""The arena the interruption tests cut and resume."""


@pytest.fixture(scope="module")
def whole_arena(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The results of :data:`RESUMED_ARENA` played without a cut (once for both tests)."""
    where = tmp_path_factory.mktemp("whole")
    whole = _arena(*RESUMED_ARENA, "--out", str(where / "out"), cwd=where)
    assert whole.returncode == 0, whole.stderr
    result: dict[str, Any] = json.loads(whole.stdout)
    return result


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
@pytest.mark.slow
def test_an_interrupted_or_killed_arena_resumes_and_loses_nothing(
    tmp_path: Path, how: str, whole_arena: dict[str, Any]
) -> None:
    args = RESUMED_ARENA
    out = tmp_path / "cut"
    proc = subprocess.Popen(
        [sys.executable, "-m", "panda_core.cli", "arena", *args, "--out", str(out)],
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: its workers can be found afterwards
    )
    try:
        _wait_for_games(out / "games.jsonl", 10, proc)
        kept_before = (out / "games.jsonl").read_text().splitlines()
        if how == "ctrl-c":
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=10)
            assert proc.returncode == 130, stderr
            partial = json.loads(stdout)
            assert 10 <= partial["played"] < partial["scheduled"]
        else:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)
        deadline = time.monotonic() + 10
        while not _no_process_left(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _no_process_left(proc.pid), "a worker outlived the arena"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    kept = (out / "games.jsonl").read_text().splitlines()
    assert kept[: len(kept_before)] == kept_before, "nothing finished is lost"
    resumed = _arena(*args, "--out", str(out), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == whole_arena


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["-e", "heuristic"], "2 to 64 entrants"),
        (["-e", "heuristic,nobody"], "unknown entrant 'nobody'"),
        (["-e", "heuristic,no_such_module_xyz:Bot"], "cannot import the bot module"),
        (["-e", "heuristic,random", "--address", "127.0.0.1:6379"], "--backend ray"),
        (["-e", "heuristic,random", "--game", "year", "--bust-threshold", "15"], "--game head"),
        (["-e", "heuristic,random", "--players", "7"], "players"),
        (["-e", "heuristic,random", "--move-time", "0"], "move_time"),
    ],
)
def test_usage_errors_exit_2_with_a_message(tmp_path: Path, args: list[str], says: str) -> None:
    done = _arena(*args, cwd=tmp_path, timeout=60)
    assert done.returncode == 2
    assert "panda-core: error:" in done.stderr and says in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "arena-results").exists()


@pytest.mark.slow
def test_the_ray_backend_gives_the_results_of_a_local_run(tmp_path: Path, ray_address: str) -> None:
    """On a real Ray instance (2 CPUs, started by the session fixture), with bots that raise and
    that kill their worker (in-process: contained, they would kill only their own process): the
    same results.json, byte for byte, as the local process pool."""
    common = [
        "-e", "arena_bots:first_legal,heuristic,bad=arena_bots:Raises,dies=arena_bots:Exits",
        "--game", "year", "--players", "3", "--deals", "4", "--json", "-q", "--in-process",
    ]  # fmt: skip
    local = _arena(*common, "--workers", "2", "--out", str(tmp_path / "local"), cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    on_ray = _arena(
        *common, "--backend", "ray", "--address", ray_address, "--out", str(tmp_path / "ray"),
        cwd=tmp_path,
    )  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr
    assert on_ray.stdout == local.stdout
    results = json.loads(local.stdout)
    kinds = {f["kind"] for f in results["forfeits"]}
    assert kinds == {"exception", "dead_worker"}, kinds
    assert (tmp_path / "ray" / "results.json").read_bytes() == (
        tmp_path / "local" / "results.json"
    ).read_bytes()
