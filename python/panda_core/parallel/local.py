"""Tasks on every core of this machine: worker processes of a ``pebble.ProcessPool``.

pebble rather than ``concurrent.futures``: a task that runs past its time is stopped (its worker
is killed and replaced) and a worker that dies (a bot calling ``os._exit``, a segfault, the OOM
killer) fails its one task, where the standard pool breaks for good.

Workers are *spawned*, never forked: the parent holds Rust threads (the engine's batch pool), and
a forked child of a threaded process may inherit a lock held by a thread that does not exist in
the child. Spawning means each worker imports its task's module afresh: task functions must be
module-level and tasks picklable (see ``backend.py``).
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, NoReturn, TypeVar

from panda_core._args import int_arg
from panda_core._core import ArgumentError
from panda_core._worker import die_with_parent
from panda_core.parallel.backend import TaskFailure

if TYPE_CHECKING:
    from concurrent.futures import Future

    from pebble import ProcessPool

__all__ = [
    "POLL_SECONDS",
    "ProcessBackend",
    "available_cores",
    "check_timeouts",
    "failure_of",
    "timed_out",
]

T = TypeVar("T")
R = TypeVar("R")

POLL_SECONDS = 0.1
"""Longest wait for a result before the main thread looks up again: short enough that Ctrl-C is
seen (and the workers stopped) well within half a second."""

IN_FLIGHT_PER_WORKER = 2
"""Tasks handed out per worker at a time: one running and one queued behind it, so a worker never
waits for the parent between tasks, while memory stays bounded however many tasks there are."""

BROKEN_POOL = (
    "the worker processes died together, most often at their start: a script that runs worker "
    "processes must keep its top-level code under `if __name__ == '__main__':` (each worker is "
    "a fresh interpreter that imports the script); otherwise see the workers' errors above"
)


def check_timeouts(
    tasks: Sequence[object], timeouts: Sequence[float | None] | None
) -> list[float | None]:
    """One timeout per task (``None``: no bound), each a number > 0; ``ArgumentError`` if not."""
    if timeouts is None:
        return [None] * len(tasks)
    if len(timeouts) != len(tasks):
        raise ArgumentError(
            f"need one timeout per task: {len(tasks)} tasks, {len(timeouts)} timeouts"
        )
    checked: list[float | None] = []
    for t in timeouts:
        if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or t <= 0):
            raise ArgumentError(f"a timeout must be a number of seconds > 0 or None, got {t!r}")
        checked.append(None if t is None else float(t))
    return checked


def failure_of(err: BaseException) -> TaskFailure:
    """The ``error`` failure of a task that raised ``err``: its type and message, as the
    serial backend reports it."""
    return TaskFailure("error", f"{type(err).__name__}: {err}")


def timed_out(bound: float | None) -> TaskFailure:
    """The ``timeout`` failure of a task stopped after ``bound`` seconds."""
    return TaskFailure("timeout", f"the task ran past its {bound:g} s and its worker was stopped")


EXIT_IN_TASK = 70
"""The exit code a worker reports when a task ends it with ``os._exit(0)``."""


def _setup_worker() -> None:
    """Worker initializer.

    * SIGINT is ignored: Ctrl-C in a terminal reaches the whole process group, but stopping is
      the parent's decision (it stops the pool); a worker that died of the signal would be
      reported as a dead worker instead. pebble's workers ignore SIGINT too; saying it here
      keeps the guarantee independent of that detail.
    * ``os._exit(0)`` from a task exits with :data:`EXIT_IN_TASK`: pebble takes a worker that
      exits with 0 for one that ended normally, and its task would wait for its timeout. pebble
      itself calls ``os._exit`` only with a non-zero code, which passes unchanged.
    * The worker dies with its parent (:func:`panda_core._worker.die_with_parent`): a worker
      busy in a bot's move would otherwise outlive a parent killed with ``kill -9``.
    """
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    real_exit = os._exit

    def exit_as_a_failure(status: int) -> NoReturn:
        real_exit(status or EXIT_IN_TASK)

    os._exit = exit_as_a_failure


def available_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system has one (a
    container's or ``taskset``'s limit, which ``os.cpu_count()`` ignores), at least 1."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _workers_arg(workers: object) -> int:
    if workers is None:
        return available_cores()
    count = int_arg(workers, "workers")
    if count < 1:
        raise ArgumentError(
            f"workers must be an int >= 1 (or None: every core, {available_cores()}), got {count}"
        )
    return count


def _outcome(future: Future[R], timeout: float | None) -> R | TaskFailure:
    """A finished future as a result or a :class:`TaskFailure` (a broken pool raises: see
    below). ``exception()`` rather than ``result()``: a task that raised ``SystemExit`` or
    ``KeyboardInterrupt`` is one failed task, not something to re-raise in the parent."""
    from pebble import ProcessExpired

    err = future.exception()
    if err is None:
        return future.result()
    if isinstance(err, BrokenProcessPool):
        # Every worker died at once (most often at their start): pebble has given the pool up
        # and failed every task with this. Failing them one by one would forfeit every game of
        # an arena for a setup error, so the run stops here.
        raise RuntimeError(BROKEN_POOL) from err
    if isinstance(err, ProcessExpired):
        return TaskFailure("dead_worker", f"the worker process died (exit code {err.exitcode})")
    # pebble's own timeout has no cause; a TimeoutError the task raised carries its remote
    # traceback as its cause, and is an error like any other.
    if isinstance(err, TimeoutError) and err.__cause__ is None:
        return timed_out(timeout)
    return failure_of(err)


class ProcessBackend:
    """Tasks in ``workers`` worker processes (default: one per core this process may use).

    The pool starts at the first :meth:`run` and stays up across runs (the arena runs again to
    retry failed tasks one game at a time) until :meth:`close`. A run stopped early (the caller
    breaks off, an exception, Ctrl-C) stops the pool: tasks in flight cannot be recalled from a
    worker, only killed with it; the next run starts a fresh pool.
    """

    def __init__(self, workers: int | None = None) -> None:
        self._workers = _workers_arg(workers)
        self._pool: ProcessPool | None = None

    @property
    def workers(self) -> int:
        return self._workers

    def run(
        self,
        fn: Callable[[T], R],
        tasks: Sequence[T],
        timeouts: Sequence[float | None] | None = None,
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        # Checked now, not at the first next(): a bad argument is the caller's error at the call.
        bounds = check_timeouts(tasks, timeouts)
        return self._results(fn, tasks, bounds)

    def _results(
        self, fn: Callable[[T], R], tasks: Sequence[T], bounds: list[float | None]
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        pool = self._started_pool()
        pending: dict[Future[R], int] = {}
        scheduled = 0
        finished = False
        try:
            while scheduled < len(tasks) or pending:
                while scheduled < len(tasks) and len(pending) < IN_FLIGHT_PER_WORKER * (
                    self._workers
                ):
                    k = scheduled
                    try:
                        submitted = pool.schedule(fn, args=(tasks[k],), timeout=bounds[k])
                    except RuntimeError as err:  # pebble's pool is broken: its workers died
                        raise RuntimeError(BROKEN_POOL) from err
                    pending[submitted] = k
                    scheduled += 1
                done, _ = concurrent.futures.wait(
                    pending, timeout=POLL_SECONDS, return_when=concurrent.futures.FIRST_COMPLETED
                )
                for future in sorted(done, key=pending.__getitem__):
                    k = pending.pop(future)
                    outcome: R | TaskFailure = _outcome(future, bounds[k])
                    yield k, outcome
            finished = True
        finally:
            if not finished:  # broken off, raised or interrupted: kill what is in flight
                self.close()

    def _started_pool(self) -> ProcessPool:
        if self._pool is None:
            try:
                from pebble import ProcessPool
            except ImportError as err:
                raise ArgumentError(
                    "the local process pool needs the extra: pip install 'panda-core[arena]'"
                ) from err
            self._pool = ProcessPool(
                max_workers=self._workers,
                initializer=_setup_worker,
                context=multiprocessing.get_context("spawn"),
            )
        return self._pool

    def close(self) -> None:
        """Stop every worker now (a task still running is killed with its worker)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()  # type: ignore[no-untyped-call]  # pebble leaves it unannotated
            pool.join()

    def __enter__(self) -> ProcessBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ProcessBackend(workers={self._workers})"
