"""The backends (panda_core.parallel): every task's outcome comes back once, under its index, on
every backend; a failing task (raised, killed its worker, overran its time) is a
:class:`TaskFailure` of its own and the others are unaffected; breaking off, an exception or
Ctrl-C stops every worker; the factory's choices and refusals.

The Ray cases run on a real Ray instance of this machine (2 CPUs, ``tests/ray_support.py``),
started once for the session; without Ray they fail (CI installs it). The arena on Ray giving
the same results as in this process is checked at the end.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

import parallel_tasks as tasks
import ray_support
from panda_core import ArgumentError, PandaCoreError
from panda_core.parallel import (
    Backend,
    ProcessBackend,
    SerialBackend,
    TaskFailure,
    make_backend,
)
from panda_core.parallel.local import IN_FLIGHT_PER_WORKER, available_cores

TESTS = Path(__file__).resolve().parent
BOUND = 2.0
"""Seconds from Ctrl-C to the end of the process tolerated (the target is 0.5 s; a loaded
two-core machine must not make the test flaky)."""

RAY = pytest.param("ray", marks=pytest.mark.slow)  # the session's Ray instance: seconds to start
GENERIC = ["serial", "local-1", "local-2", RAY]
PROCESSES = ["local-1", "local-2", RAY]


@pytest.fixture(scope="module")
def ray_backend(ray_address: str) -> Iterator[Backend]:
    """One connection to the session's Ray instance for this file's Ray cases."""
    from panda_core.parallel.ray_backend import RayBackend

    with RayBackend(ray_address) as backend:
        yield backend


@pytest.fixture(scope="module")
def pools() -> Iterator[dict[int, ProcessBackend]]:
    """Process pools shared by this file's cases (a pool costs a second to spawn)."""
    made = {1: ProcessBackend(1), 2: ProcessBackend(2)}
    try:
        yield made
    finally:
        for pool in made.values():
            pool.close()


@pytest.fixture
def backend(request: pytest.FixtureRequest, pools: dict[int, ProcessBackend]) -> Backend:
    name: str = request.param
    if name == "serial":
        return SerialBackend()
    if name == "ray":
        ray_backend: Backend = request.getfixturevalue("ray_backend")
        return ray_backend
    return pools[int(name.split("-")[1])]


def outcomes(backend: Backend, fn: Any, args: Sequence[Any], **kw: Any) -> dict[int, Any]:
    """``{k: outcome}``, checking that each index comes back exactly once."""
    seen = list(backend.run(fn, args, **kw))
    indices = [k for k, _ in seen]
    assert sorted(indices) == list(range(len(args))), "every task once, under its index"
    return dict(seen)


def new_children(before: set[int], wait: float = 5.0) -> list[int]:
    """Child processes started since ``before`` that are still alive after up to ``wait`` s (a
    stopped worker takes a moment to be reaped)."""
    deadline = time.monotonic() + wait
    while True:
        alive = [p.pid for p in multiprocessing.active_children() if p.pid not in before]
        if not alive or time.monotonic() > deadline:
            return [pid for pid in alive if pid is not None]
        time.sleep(0.05)


def children() -> set[int]:
    return {p.pid for p in multiprocessing.active_children() if p.pid is not None}


# ---- every backend -------------------------------------------------------------------------


@pytest.mark.parametrize("backend", GENERIC, indirect=True)
def test_every_result_comes_back_under_its_index(backend: Backend) -> None:
    assert outcomes(backend, tasks.square, list(range(40))) == {k: k * k for k in range(40)}
    assert outcomes(backend, tasks.square, []) == {}


class CountedTasks(Sequence[int]):
    """Tasks that count how far the backend has read them."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.read = 0

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k: Any) -> Any:
        assert isinstance(k, int), "a backend reads tasks one at a time"
        self.read = max(self.read, k + 1)
        return k


@pytest.mark.parametrize(
    ("backend", "n"),
    [("local-2", 3000), pytest.param("ray", 300, marks=pytest.mark.slow)],
    indirect=["backend"],
)
def test_many_small_tasks_with_a_bounded_number_in_flight(backend: Backend, n: int) -> None:
    """Memory stays bounded for any number of tasks: a task is read (and sent) only when fewer
    than about two per worker are out."""
    counted = CountedTasks(n)
    got = 0
    for k, result in backend.run(tasks.square, counted):
        assert result == k * k
        got += 1
        assert counted.read - got <= IN_FLIGHT_PER_WORKER * backend.workers
    assert got == n


@pytest.mark.parametrize("backend", GENERIC, indirect=True)
def test_a_raising_task_is_an_error_and_the_others_are_unaffected(backend: Backend) -> None:
    got = outcomes(backend, tasks.raise_on_three, list(range(8)))
    assert got.pop(3) == TaskFailure("error", "ValueError: three is refused (3)")
    assert got == {k: k for k in range(8) if k != 3}


@pytest.mark.parametrize("backend", PROCESSES, indirect=True)
def test_a_dead_worker_fails_its_task_only_and_the_pool_goes_on(backend: Backend) -> None:
    got = outcomes(backend, tasks.exit_on_three, list(range(8)))
    failure = got.pop(3)
    assert isinstance(failure, TaskFailure) and failure.kind == "dead_worker"
    if isinstance(backend, ProcessBackend):  # Ray does not report the exit code
        assert "exit code 3" in failure.message
    assert got == {k: k for k in range(8) if k != 3}
    assert outcomes(backend, tasks.square, list(range(6))) == {k: k * k for k in range(6)}


def test_a_task_ending_its_worker_with_exit_code_0_is_a_dead_worker_at_once() -> None:
    """pebble takes a worker exiting with 0 for one that ended normally; the workers turn a
    task's ``os._exit(0)`` into a failing exit code, so it is reported now, not at its timeout
    (the 60 s bound here only keeps a regression from hanging the test)."""
    with ProcessBackend(2) as backend:
        got = dict(backend.run(tasks.exit_zero_on_three, list(range(6)), [60.0] * 6))
    failure = got.pop(3)
    assert isinstance(failure, TaskFailure) and failure.kind == "dead_worker", failure
    assert "exit code 70" in failure.message
    assert got == {k: k for k in range(6) if k != 3}


@pytest.mark.parametrize("backend", PROCESSES, indirect=True)
@pytest.mark.slow
def test_a_task_past_its_timeout_is_stopped_and_the_others_finish(backend: Backend) -> None:
    started = time.monotonic()
    got = outcomes(
        backend, tasks.sleep_for, [0.05, 60.0, 0.05, 0.1, 0.05], timeouts=[30, 1, 30, None, 30]
    )
    assert time.monotonic() - started < 30, "the sleeping task was not left to finish"
    failure = got.pop(1)
    assert isinstance(failure, TaskFailure) and failure.kind == "timeout"
    assert "1 s" in failure.message
    assert got == {0: 0.05, 2: 0.05, 3: 0.1, 4: 0.05}


@pytest.mark.parametrize("backend", ["local-2"], indirect=True)
def test_what_a_task_raises_is_an_error_even_system_exit_or_timeout_error(
    backend: Backend,
) -> None:
    assert outcomes(backend, tasks.system_exit, [4]) == {0: TaskFailure("error", "SystemExit: 4")}
    assert outcomes(backend, tasks.own_timeout, [5]) == {
        0: TaskFailure("error", "TimeoutError: my own timeout 5")
    }


@pytest.mark.parametrize("backend", PROCESSES, indirect=True)
def test_timeouts_are_checked(backend: Backend) -> None:
    with pytest.raises(ArgumentError, match="one timeout per task"):
        backend.run(tasks.square, [1, 2], timeouts=[1.0])
    for bad in (0, -1.0, "1", True):
        with pytest.raises(ArgumentError, match="timeout must be a number of seconds > 0"):
            backend.run(tasks.square, [1], timeouts=[bad])  # type: ignore[list-item]


# ---- stopping -------------------------------------------------------------------------------


@pytest.mark.slow
def test_breaking_off_or_raising_stops_every_worker_and_the_backend_starts_again() -> None:
    before = children()
    with ProcessBackend(2) as backend:
        run = backend.run(tasks.sleep_for, [0.01] + [60.0] * 5)
        assert next(run) == (0, 0.01)
        assert new_children(before, wait=0), "the workers are up"
        run.close()  # the caller breaks off
        assert new_children(before) == []
        with pytest.raises(RuntimeError, match="the caller's own"):
            for _ in backend.run(tasks.sleep_for, [0.01] + [60.0] * 5):
                raise RuntimeError("the caller's own error")
        assert new_children(before) == []
        assert outcomes(backend, tasks.square, [1, 2, 3]) == {0: 1, 1: 4, 2: 9}
    assert new_children(before) == []


@pytest.mark.slow
def test_the_pool_stays_up_across_runs_until_closed() -> None:
    before = children()
    backend = ProcessBackend(2)
    first = set(outcomes(backend, tasks.worker_pid, list(range(8))).values())
    second = set(outcomes(backend, tasks.worker_pid, list(range(8))).values())
    assert first | second <= set(new_children(before, wait=0)), "the same workers serve both"
    backend.close()
    assert new_children(before) == []


INTERRUPTED = """
import multiprocessing, sys
sys.path[:0] = {paths!r}
import parallel_tasks as tasks
from panda_core.parallel import make_backend
backend = make_backend({backend!r}, address={address!r})
pids = sorted(set(r for _, r in backend.run(tasks.worker_pid, list(range(8)))))
print("workers", *pids, flush=True)
try:
    for k, r in backend.run(tasks.sleep_for, [0.01] + [60.0] * 8):
        print("running", flush=True)
except KeyboardInterrupt:
    print("interrupted", *[p.pid for p in multiprocessing.active_children()], flush=True)
    backend.close()
    raise
print("finished", flush=True)
"""


def interrupt(backend: str, address: str | None = None) -> tuple[float, int, list[str]]:
    """Run a long ``run`` in a child, Ctrl-C it (SIGINT to its whole process group, as a
    terminal does); (seconds from the signal to its end, its exit code, its output lines)."""
    script = INTERRUPTED.format(paths=[str(TESTS), *sys.path], backend=backend, address=address)
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        lines = []
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line.strip())
            if line.startswith("running"):
                break
        assert lines and lines[-1] == "running", f"{lines} {child.stderr.read()}"  # type: ignore[union-attr]
        time.sleep(0.3)  # the long tasks are running
        sent = time.monotonic()
        os.killpg(child.pid, signal.SIGINT)
        out, err = child.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    assert "KeyboardInterrupt" in err and "Error" not in err.replace("KeyboardInterrupt", "")
    return took, child.returncode, lines + out.split("\n")


def gone(pid: int, wait: float = 5.0) -> bool:
    deadline = time.monotonic() + wait
    while Path(f"/proc/{pid}").exists() if Path("/proc").exists() else _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")
@pytest.mark.slow
def test_ctrl_c_stops_the_process_pool_and_leaves_no_worker() -> None:
    took, code, lines = interrupt("local")
    assert took < BOUND, f"{took:.2f} s from Ctrl-C to the end"
    assert code in (-signal.SIGINT, 130, 1), code  # died of the KeyboardInterrupt
    workers = [int(p) for p in lines[0].split()[1:]]
    assert workers and all(gone(pid) for pid in workers), "no orphan worker"
    stopped = next(line for line in lines if line.startswith("interrupted"))
    assert stopped == "interrupted", "the pool was already stopped when the interrupt surfaced"


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")
@pytest.mark.slow
def test_ctrl_c_cancels_the_ray_tasks_in_flight(ray_address: str, ray_backend: Backend) -> None:
    took, code, _ = interrupt("ray", ray_address)
    assert took < BOUND + 3, f"{took:.2f} s from Ctrl-C to the end"  # + Ray's disconnect
    assert code in (-signal.SIGINT, 130, 1), code
    # Had the 60 s tasks been left running, both CPUs of the instance would still be taken.
    started = time.monotonic()
    assert outcomes(ray_backend, tasks.square, [1, 2], timeouts=[20, 20]) == {0: 1, 1: 4}
    assert time.monotonic() - started < 20


@pytest.mark.slow
def test_breaking_off_a_ray_run_cancels_its_tasks(ray_backend: Backend) -> None:
    run = ray_backend.run(tasks.sleep_for, [0.01] + [60.0] * 4)
    assert next(run) == (0, 0.01)
    run.close()
    started = time.monotonic()
    assert outcomes(ray_backend, tasks.square, [1, 2], timeouts=[20, 20]) == {0: 1, 1: 4}
    assert time.monotonic() - started < 20, "the CPUs were freed"


def test_a_script_without_a_main_guard_gets_a_clear_error(tmp_path: Path) -> None:
    """Spawned workers import the main script: unguarded, each would start a pool of its own.
    The pool breaks; the user is told why, and nothing hangs."""
    script = tmp_path / "unguarded.py"
    script.write_text(
        f"import sys\nsys.path[:0] = {[str(TESTS), *sys.path]!r}\n"
        "import parallel_tasks\nfrom panda_core.parallel import ProcessBackend\n"
        "print(list(ProcessBackend(1).run(parallel_tasks.square, [1, 2])))\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "if __name__ == '__main__':" in done.stderr.splitlines()[-1]


# ---- the factory and the argument checks -------------------------------------------------------


def test_make_backend_by_name() -> None:
    with make_backend() as local:
        assert isinstance(local, ProcessBackend) and local.workers == available_cores() >= 1
    with make_backend("local", workers=3) as three:
        assert isinstance(three, ProcessBackend) and three.workers == 3
    assert isinstance(make_backend("serial"), SerialBackend)
    assert isinstance(make_backend("local", workers=0), SerialBackend)
    mine = SerialBackend()
    assert make_backend(mine) is mine


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"backend": "threads"}, ArgumentError, "unknown backend 'threads'; choose one of local"),
        ({"backend": "local", "address": "h:1"}, ArgumentError, "address is for the ray backend"),
        ({"backend": "ray", "workers": 2}, ArgumentError, "Ray runs one task per CPU"),
        ({"workers": -1}, ArgumentError, r"workers must be >= 0"),
        ({"workers": "2"}, TypeError, "workers must be an int"),
        ({"workers": 1.5}, TypeError, "workers must be an int"),
        ({"backend": 3}, TypeError, "backend must be one of local, serial, ray"),
        ({"backend": SerialBackend(), "workers": 2}, ArgumentError, "do not apply to a Backend"),
        ({"backend": "serial", "workers": 4}, ArgumentError, "one task at a time"),
        ({"backend": "ray", "address": 6379}, TypeError, "address must be a str"),
    ],
)
def test_make_backend_refuses(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        make_backend(**kwargs)


def test_process_backend_argument_checks() -> None:
    for bad in (0, -2):
        with pytest.raises(ArgumentError, match=r"workers must be an int >= 1 \(or None"):
            ProcessBackend(bad)
    for wrong in ("2", 2.0, True):
        with pytest.raises(TypeError, match="workers must be an int"):
            ProcessBackend(wrong)  # type: ignore[arg-type]
    assert issubclass(ArgumentError, PandaCoreError)


def test_importing_the_package_does_not_import_ray() -> None:
    code = "import sys, panda_core.parallel; print('ray' in sys.modules, 'pebble' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["False", "False"]


def test_a_missing_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    from panda_core.parallel.ray_backend import RayBackend

    for make in (RayBackend, lambda: make_backend("ray")):
        with pytest.raises(ArgumentError, match=r"pip install 'panda-core\[ray\]'"):
            make()


def test_a_ray_address_where_nothing_answers_is_refused_at_once() -> None:
    """Ray retries such an address for minutes; the backend checks it first."""
    from panda_core.parallel.ray_backend import check_reachable

    with pytest.raises(ArgumentError, match=r"no Ray cluster answers at 127\.0\.0\.1:\d+"):
        check_reachable(f"127.0.0.1:{ray_support.free_port()}")
    for bad in ("justahost", ":6379", "host:port"):
        with pytest.raises(ArgumentError, match="a Ray address is host:port"):
            check_reachable(bad)
    check_reachable("auto")  # left to Ray


@pytest.mark.slow
def test_a_ray_backend_reuses_a_connection_it_did_not_make(
    ray_address: str, ray_backend: Backend
) -> None:
    import ray

    with make_backend("ray", address=ray_address) as again:
        assert again.workers == ray_support.RAY_CPUS
    assert ray.is_initialized(), "closing it left the file's own connection open"


# ---- the arena on Ray ----------------------------------------------------------------------------


@pytest.mark.slow
def test_the_arena_on_ray_gives_the_same_results_as_in_this_process(
    ray_address: str, ray_backend: Backend
) -> None:
    from panda_core.arena.run import arena_settings, play_arena

    settings = arena_settings(
        ["arena_bots:first_legal", "heuristic", "bad=arena_bots:Raises"],
        game="year",
        players=2,
        deals=4,
        move_time=2.0,
    )
    serial = play_arena(settings, workers=0)
    assert play_arena(settings, backend="ray", address=ray_address) == serial
    assert any(r.forfeit for r in serial) and any(not r.forfeit for r in serial)
