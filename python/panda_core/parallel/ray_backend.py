"""Tasks as Ray tasks: on an existing Ray cluster, or on a Ray instance of this machine.

Ray is an optional extra (``pip install 'panda-core[ray]'``): it is imported when a
:class:`RayBackend` is made, never by ``import panda_core.parallel``. The ``ray`` module is held
as ``Any``: its API is dynamic (``ray.remote`` builds classes at run time) and a typed facade of
the five calls used here would be a guess at Ray's internals.

The task function is shipped by reference (its module and name), so every node must be able to
import it: panda-core and the bots' modules installed on each node, or a ``runtime_env``
(``py_modules``, ``working_dir``; docs/cluster.md).
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, TypeVar

from panda_core._args import shown
from panda_core._core import ArgumentError
from panda_core.parallel.backend import TaskFailure
from panda_core.parallel.local import (
    IN_FLIGHT_PER_WORKER,
    POLL_SECONDS,
    check_timeouts,
    failure_of,
    timed_out,
)

__all__ = ["RayBackend", "import_ray"]

T = TypeVar("T")
R = TypeVar("R")

MISSING_RAY = "the ray backend needs the extra: pip install 'panda-core[ray]'"
CONNECT_SECONDS = 5.0
"""How long the head may take to accept a connection before the address is refused."""


def import_ray() -> Any:
    """The ``ray`` module, or an :class:`ArgumentError` saying how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError as err:
        raise ArgumentError(MISSING_RAY) from err


def check_reachable(address: str) -> None:
    """An :class:`ArgumentError` unless something listens at ``host:port``. Ray itself retries
    an address where nothing answers for minutes; a mistyped address must not hang the arena.
    ``auto`` and ``scheme://`` addresses are left to Ray."""
    if address == "auto" or "://" in address:
        return
    host, colon, port = address.rpartition(":")
    if not colon or not host or not port.isdigit():
        raise ArgumentError(
            f"a Ray address is host:port (or auto, or ray://host:port), got {shown(address)}"
        )
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as err:
        raise ArgumentError(
            f"no Ray cluster answers at {address} ({err.strerror or err}); start one with "
            "ray start --head, or check the address"
        ) from err


def _outcome(ray: Any, ref: Any) -> Any:
    """A finished task's result, or the :class:`TaskFailure` its exception stands for."""
    errors = ray.exceptions
    try:
        return ray.get(ref)
    except errors.RayTaskError as err:
        # The task raised: report the original exception, as the other backends do, not Ray's
        # wrapper (whose text is a whole remote traceback).
        cause = err.cause if isinstance(err.cause, BaseException) else err
        return failure_of(cause)
    except (errors.RuntimeEnvSetupError, errors.TaskUnschedulableError) as err:
        # The task never ran (a broken runtime_env, no node can hold it): a setup error of the
        # cluster, not a worker death; retrying it game by game would fail the same way.
        return failure_of(err)
    except errors.RayError as err:
        # A worker or node died under the task, its result was lost, the node ran out of
        # memory: Ray's system errors. Ray does not report a worker's exit code.
        return TaskFailure("dead_worker", f"the Ray worker died ({type(err).__name__}: {err})")


class RayBackend:
    """Tasks on Ray: one CPU each, at most about twice the cluster's CPUs in flight.

    ``address`` (or the ``RAY_ADDRESS`` variable) connects to a running cluster
    (``"host:6379"``, ``"auto"``, ``"ray://host:10001"``); with neither, Ray starts an instance
    on this machine for as long as the backend lives. ``runtime_env`` is Ray's (``py_modules``,
    ``working_dir``, ``pip``, ``env_vars``) for the whole job. If this process is already
    connected to Ray (``ray.init`` called by the user), that connection is used as it is and
    left open.

    A task is never retried (``max_retries=0``): a task that failed is reported, and the arena
    decides what a failure means. :meth:`close` disconnects; it stops only an instance this
    backend started itself, never a cluster it connected to.
    """

    def __init__(
        self, address: str | None = None, *, runtime_env: Mapping[str, Any] | None = None
    ) -> None:
        if address is not None and not isinstance(address, str):
            raise TypeError(f"address must be a str or None, got {type(address).__name__}")
        if runtime_env is not None and not isinstance(runtime_env, Mapping):
            raise TypeError(f"runtime_env must be a dict or None, got {type(runtime_env).__name__}")
        self._ray = ray = import_ray()
        self._connected_here = not ray.is_initialized()
        if self._connected_here:
            target = address or os.environ.get("RAY_ADDRESS")
            if target:
                check_reachable(target)
            # No usage reports sent from a user's machine, no dashboard to serve: this is a
            # library call, not a cluster launch.
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            try:
                ray.init(
                    address=address,
                    runtime_env=None if runtime_env is None else dict(runtime_env),
                    include_dashboard=False,
                    logging_level=logging.WARNING,
                    # Workers' output and Ray's own notices ("a worker died") stay in Ray's logs
                    # (/tmp/ray/session_latest/logs): the driver's stdout is the arena's report.
                    log_to_driver=False,
                )
            except (ConnectionError, ValueError, RuntimeError) as err:
                where = address or os.environ.get("RAY_ADDRESS") or "a new local instance"
                raise ArgumentError(f"cannot start Ray on {where}: {err}") from err
        self._workers = max(1, int(ray.cluster_resources().get("CPU", 1)))

    @property
    def workers(self) -> int:
        """The cluster's CPUs when the backend connected (one task per CPU)."""
        return self._workers

    def run(
        self,
        fn: Callable[[T], R],
        tasks: Sequence[T],
        timeouts: Sequence[float | None] | None = None,
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        bounds = check_timeouts(tasks, timeouts)
        return self._results(fn, tasks, bounds)

    def _results(
        self, fn: Callable[[T], R], tasks: Sequence[T], bounds: list[float | None]
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=0)(fn)
        limit = IN_FLIGHT_PER_WORKER * self._workers
        pending: dict[Any, int] = {}  # ref -> task, in submission order
        started: dict[Any, float] = {}
        scheduled = 0
        finished = False
        try:
            while scheduled < len(tasks) or pending:
                while scheduled < len(tasks) and len(pending) < limit:
                    k = scheduled
                    scheduled += 1
                    try:
                        pending[remote.remote(tasks[k])] = k
                    except Exception as err:  # a task that does not pickle
                        yield k, failure_of(err)
                if not pending:
                    continue  # every task left failed to go out: the loop ends
                # Ray does not say when a task starts; the oldest ``workers`` tasks are taken to
                # be running (Ray schedules in submission order), so a queued task's clock does
                # not run while it waits behind the others.
                now = time.monotonic()
                for ref in islice(pending, self._workers):
                    started.setdefault(ref, now)
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=POLL_SECONDS)
                if ready:
                    ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0)
                for ref in ready:
                    k = pending.pop(ref)
                    started.pop(ref, None)
                    yield k, _outcome(ray, ref)
                now = time.monotonic()
                for ref, k in list(pending.items()):
                    bound, since = bounds[k], started.get(ref)
                    if bound is not None and since is not None and now - since > bound:
                        ray.cancel(ref, force=True)  # kills the worker running it
                        del pending[ref], started[ref]
                        yield k, timed_out(bound)
            finished = True
        finally:
            if not finished:  # broken off, raised or interrupted: kill what is in flight
                for ref in pending:
                    try:
                        ray.cancel(ref, force=True)
                    except Exception:  # finished meanwhile, or Ray is going away
                        pass

    def close(self) -> None:
        """Disconnect from Ray (stopping the local instance if this backend started one)."""
        if self._connected_here and self._ray.is_initialized():
            self._ray.shutdown()
        self._connected_here = False

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RayBackend(workers={self._workers})"
