"""One place that turns the user's choice (``--backend``, ``--workers``, ``--address``; the
``backend=`` argument of the arena and self-play) into a :class:`Backend`."""

from __future__ import annotations

from typing import Literal, TypeAlias

from panda_core._args import int_arg, shown
from panda_core._core import ArgumentError
from panda_core.parallel.backend import Backend, SerialBackend
from panda_core.parallel.local import ProcessBackend

__all__ = ["BACKENDS", "BackendName", "make_backend"]

BackendName: TypeAlias = Literal["local", "serial", "ray"]

BACKENDS: tuple[BackendName, ...] = ("local", "serial", "ray")
"""The backends by name: worker processes on this machine, this process alone, a Ray cluster."""


def make_backend(
    backend: str | Backend = "local",
    *,
    workers: int | None = None,
    address: str | None = None,
) -> Backend:
    """The backend to run tasks on.

    * ``"local"``: worker processes on this machine, ``workers`` of them (``None``: one per
      core; ``0``: none, every task in this process, as ``"serial"``);
    * ``"serial"``: every task in this process, in order;
    * ``"ray"``: Ray tasks on the cluster at ``address`` (or ``RAY_ADDRESS``; neither: a Ray
      instance on this machine). Ray decides how many tasks run at once (the cluster's CPUs), so
      ``workers`` is refused with it;
    * a :class:`Backend` object is used as it is (``workers`` and ``address`` must be left out).
    """
    if workers is not None:
        workers = int_arg(workers, "workers")
        if workers < 0:
            raise ArgumentError(
                f"workers must be >= 0 (0: in this process; None: every core), got {workers}"
            )
    if address is not None and not isinstance(address, str):
        raise TypeError(f"address must be a str or None, got {type(address).__name__}")
    if not isinstance(backend, str):
        if not callable(getattr(backend, "run", None)):
            raise TypeError(
                f"backend must be one of {', '.join(BACKENDS)} or a Backend object, "
                f"got {type(backend).__name__} {shown(backend)}"
            )
        if workers is not None or address is not None:
            raise ArgumentError("workers and address do not apply to a Backend object")
        return backend
    if backend not in BACKENDS:
        raise ArgumentError(
            f"unknown backend {shown(backend)}; choose one of {', '.join(BACKENDS)}"
        )
    if address is not None and backend != "ray":
        raise ArgumentError(f"an address is for the ray backend only, not {backend!r}")
    if backend == "ray":
        if workers is not None:
            raise ArgumentError(
                "workers does not apply to the ray backend: Ray runs one task per CPU of the "
                "cluster (start the nodes with ray start --num-cpus N to change it)"
            )
        from panda_core.parallel.ray_backend import RayBackend  # ray is an optional extra

        return RayBackend(address)
    if backend == "serial" or workers == 0:
        if backend == "serial" and workers not in (None, 0, 1):
            raise ArgumentError(f"the serial backend runs one task at a time, not {workers}")
        return SerialBackend()
    return ProcessBackend(workers)
