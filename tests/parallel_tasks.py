"""Task functions for tests/test_parallel.py.

Module-level, in a module of their own: worker processes (spawned) and Ray workers import them by
name, so they must not live in a test module (importing one would collect nothing useful and
drag pytest into every worker).
"""

from __future__ import annotations

import os
import time


def square(x: int) -> int:
    return x * x


def raise_on_three(x: int) -> int:
    if x == 3:
        raise ValueError(f"three is refused ({x})")
    return x


def exit_on_three(x: int) -> int:
    """Task 3 kills its worker process with exit code 3 (as a bot calling ``os._exit`` would)."""
    if x == 3:
        os._exit(3)
    return x


def exit_zero_on_three(x: int) -> int:
    """Task 3 ends its worker with ``os._exit(0)``, as if all were well."""
    if x == 3:
        os._exit(0)
    return x


def sleep_for(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def system_exit(x: int) -> int:
    """``SystemExit`` in a task is one failed task, not the end of the parent."""
    raise SystemExit(x)


def own_timeout(x: int) -> int:
    """A ``TimeoutError`` the task raises is an error, not a timeout of the backend."""
    raise TimeoutError(f"my own timeout {x}")


def worker_pid(x: int) -> int:
    time.sleep(0.05)
    return os.getpid()
