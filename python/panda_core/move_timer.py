"""A bound on the time of one Python bot's move, where the process can enforce one.

In the main thread of a process (every worker process and Ray task runs its task there) the
bound is a real-time interval timer: ``SIGALRM`` raises :class:`MoveTimeout` inside the bot when
its time is up, so a bot that loops forever is stopped and forfeits. ``MoveTimeout`` is a
``BaseException``, so a bot's own ``except Exception`` cannot swallow it (a bot that catches
``BaseException`` can). Elsewhere (another thread, a platform without ``setitimer``) the move is
timed and an overrun forfeits once the bot answers.

What the timer cannot stop (a bot stuck in C code, one that swallows ``MoveTimeout``, one that
never answers outside the main thread) is stopped by the game's bound, in a worker process: the
backend kills the worker. In the arena's own process (``workers=0``) nothing can stop it.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

__all__ = ["MoveTimeout", "MoveTimer", "ThreadBound"]

T = TypeVar("T")


class MoveTimeout(BaseException):
    """Raised inside a bot whose move ran past its time."""


def _expire(signum: int, frame: FrameType | None) -> None:
    raise MoveTimeout


class MoveTimer:
    """Times Python bots' moves for the length of a ``with`` block (see the module docs)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._signals = hasattr(signal, "setitimer") and (
            threading.current_thread() is threading.main_thread()
        )
        self._previous: object = None

    def __enter__(self) -> MoveTimer:
        if self._signals:
            self._previous = signal.signal(signal.SIGALRM, _expire)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._signals:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)  # type: ignore[arg-type]

    @contextmanager
    def move(self) -> Iterator[None]:
        """One bot move: raises :class:`MoveTimeout` if it takes longer than ``seconds``."""
        start = time.monotonic()
        if self._signals:
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
        try:
            yield
        finally:
            if self._signals:
                signal.setitimer(signal.ITIMER_REAL, 0)
        if time.monotonic() - start > self.seconds:
            raise MoveTimeout

    def run(self, call: Callable[[], T]) -> T:
        """``call()`` as one bot move (:meth:`move`)."""
        with self.move():
            return call()


class ThreadBound:
    """A bound on one call where no signal can interrupt it (a thread of a server): the call runs
    in a daemon thread and the caller stops waiting after ``seconds``. A thread cannot be killed,
    so a call that never returns keeps its thread; whatever the call raises (``KeyboardInterrupt``
    too: in a worker thread it is the call's own) is raised to the caller."""

    def __init__(self, seconds: float, name: str = "panda-core bot") -> None:
        self.seconds = seconds
        self.name = name

    def run(self, call: Callable[[], T]) -> T:
        """``call()``, or :class:`MoveTimeout` if it has not returned within ``seconds``."""
        box: dict[str, Any] = {}

        def target() -> None:
            try:
                box["value"] = call()
            except BaseException as err:  # handed to the caller's thread
                box["error"] = err

        worker = threading.Thread(target=target, name=self.name, daemon=True)
        worker.start()
        worker.join(self.seconds)
        if worker.is_alive():
            raise MoveTimeout
        if "error" in box:
            raise box["error"]
        return box["value"]  # type: ignore[no-any-return]
