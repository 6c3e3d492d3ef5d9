"""Where the arena's (and self-play's) tasks run: the contract every backend fulfils.

A task is a picklable argument for a module-level function; a backend runs ``fn(task)`` for
each task somewhere (this process, worker processes, Ray tasks) and yields each outcome as it
finishes, in any order, tagged with the task's position. A task that cannot finish (its worker
died, it ran past its time, it raised) is yielded as a :class:`TaskFailure`, never raised, and
never stops the other tasks: the caller decides what a failure means (the arena splits the
task and retries its games one by one, to pin the failure on one game).

Results must not depend on the backend: every task is a pure function of its argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias, TypeVar

__all__ = ["Backend", "FailureKind", "SerialBackend", "TaskFailure"]

T = TypeVar("T")
R = TypeVar("R")

FailureKind: TypeAlias = Literal["dead_worker", "timeout", "error"]


@dataclass(frozen=True)
class TaskFailure:
    """Why a task gave no result: its worker process died (``dead_worker``, with the exit code
    in ``message``), it ran past its ``timeout`` (the worker was stopped), or ``fn`` raised
    (``error``: a bug, since the arena's task functions catch what bots do)."""

    kind: FailureKind
    message: str


class Backend(Protocol):
    """Runs tasks; see the module docs. A backend is a context manager: leaving it stops every
    worker (on Ctrl-C too, within half a second)."""

    @property
    def workers(self) -> int:
        """How many tasks run at once."""
        ...

    def run(
        self,
        fn: Callable[[T], R],
        tasks: Sequence[T],
        timeouts: Sequence[float | None] | None = None,
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        """``(k, fn(tasks[k]))`` for every task, as each finishes (in any order); a failure is a
        :class:`TaskFailure` in place of the result. ``timeouts[k]`` (seconds, ``None``: no
        bound) bounds task ``k``. Stopping the iteration early (or Ctrl-C) cancels the tasks not
        yet finished."""
        ...

    def close(self) -> None:
        """Stop every worker."""
        ...

    def __enter__(self) -> Backend: ...
    def __exit__(self, *exc: object) -> None: ...


class SerialBackend:
    """Every task in this process, one after the other, in order (``workers=0`` in the arena: no
    processes, for bot objects that do not pickle and for debugging with breakpoints). A timeout
    is not enforced (nothing here can stop a running task) and a crashing task takes the process
    with it."""

    workers = 1

    def run(
        self,
        fn: Callable[[T], R],
        tasks: Sequence[T],
        timeouts: Sequence[float | None] | None = None,
    ) -> Iterator[tuple[int, R | TaskFailure]]:
        for k, task in enumerate(tasks):
            try:
                result: R | TaskFailure = fn(task)
            except Exception as err:
                result = TaskFailure("error", f"{type(err).__name__}: {err}")
            yield k, result

    def close(self) -> None:
        pass

    def __enter__(self) -> SerialBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
