"""Engine calls off the event loop: a call into a game runs in a worker thread, and a cancelled
caller still waits for it (the engine must never be left inside a game whose lock was let go)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

__all__ = ["in_thread"]

T = TypeVar("T")


async def in_thread(call: Callable[..., T], *args: Any, pool: Executor | None = None) -> T:
    """``call(*args)`` in a worker thread (of ``pool``; default: the event loop's). If the caller
    is cancelled meanwhile, this still waits for the call to end before it lets the cancellation
    through: the caller holds a table's lock, and the lock must not be released while the engine
    is still inside the game."""
    loop = asyncio.get_running_loop()
    work = loop.run_in_executor(pool, functools.partial(call, *args))
    try:
        return await asyncio.shield(work)
    except asyncio.CancelledError:
        while not work.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.shield(work)
        raise
