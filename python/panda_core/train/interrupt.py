"""Ctrl-C during training: finish the current step, save a checkpoint, then stop.

A ``KeyboardInterrupt`` raised at an arbitrary point of a step could leave the self-play state
half-updated (a decision recorded but the env not stepped), and the checkpoint then saved would
not be the state of any step. So while training runs, SIGINT only sets a flag that the training
loop reads between steps (a step takes milliseconds); the loop saves and raises
``KeyboardInterrupt`` itself.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType
from typing import Any

__all__ = ["StopOnInterrupt"]


class StopOnInterrupt:
    """A context in which SIGINT sets :attr:`requested` instead of raising (in the main thread
    only: Python runs signal handlers there; elsewhere Ctrl-C is not this thread's anyway)."""

    def __init__(self) -> None:
        self.requested = False
        self._previous: Any = None
        self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.requested = True

    def __enter__(self) -> StopOnInterrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False
