"""No test forks its own process (tests/fork_guard.py): a fork fails the test that made it, and
the terminal tests' pseudo-terminal starts without one, JAX running or not."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pexpect
import pytest

import fork_guard
from tui_support import Pty

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


@pytest.mark.slow
def test_a_test_that_forks_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a pytest of its own (a fresh process with no threads, so this fork is harmless)."""
    pytester.makepyfile(
        test_forks=textwrap.dedent(
            """
            import os

            def test_forks():
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)

            def test_does_not_fork():
                pass
            """
        )
    )
    paths = [str(TESTS), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    result = pytester.runpytest_subprocess("-p", "fork_guard", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*the test process forked during the test (1 time(s))*"])
    result.stdout.fnmatch_lines(["*os.fork()*"])  # where it forked


def test_the_terminal_starts_without_a_fork_while_jax_runs(tmp_path: Path) -> None:
    """JAX warns at (and may deadlock in) any fork once its backend has started; the terminal
    tests run in the same processes as the trainer's."""
    jnp = pytest.importorskip("jax.numpy", reason="the train extra is not installed")
    jnp.zeros(3).block_until_ready()  # starts JAX's backend and its threads
    forks = len(fork_guard.FORKS)
    pty = Pty(["--version"], tmp_path)
    try:
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 0, pty.transcript
    assert pty.transcript.startswith("panda-core "), pty.transcript
    assert len(fork_guard.FORKS) == forks
    assert sys.modules.get("jax") is not None
