"""A test fails when it forks the test process (registered for every test file by ``conftest.py``).

A forked child of a threaded process runs Python before it execs, and may wait forever on a lock
that a thread of the parent held at the fork: the test process has threads (the engine's batch
pool; JAX's, once a trainer test ran, JAX warning "os.fork() was called" at every fork). So no
test process forks: children are started with ``subprocess`` (which execs at once and runs no
Python in between), the terminal tests' pseudo-terminals too (``tui_support.PtyChild``), and
worker pools spawn. ``os.register_at_fork`` sees every fork that runs Python in the child
(``os.fork``, ``pty.fork``, ``multiprocessing``'s fork start method, ``subprocess`` with a
``preexec_fn``), and the test that made one fails with where it forked.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Generator

import pytest

FORKS: list[str] = []
"""Where each fork of this process happened (a stack), in order."""


def _note_fork() -> None:
    FORKS.append("".join(traceback.format_stack()[:-1]))


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(before=_note_fork)


def _no_new_fork(seen: int, phase: str) -> None:
    if len(FORKS) > seen:
        forks = FORKS[seen:]
        del FORKS[seen:]
        pytest.fail(
            f"the test process forked during {phase} ({len(forks)} time(s)); start children "
            f"with subprocess or a spawn context instead (tests/fork_guard.py). First fork:\n"
            f"{forks[0]}",
            pytrace=False,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    seen = len(FORKS)
    yield
    _no_new_fork(seen, "setup")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    seen = len(FORKS)
    yield
    _no_new_fork(seen, "the test")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    seen = len(FORKS)
    yield
    _no_new_fork(seen, "teardown")
