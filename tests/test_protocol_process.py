"""The line process under a bot that runs in its own process (``panda_core.protocol.process``):
what it writes to stderr is passed on as it comes, not only when a wait happens to find stderr
ready alone."""

from __future__ import annotations

import sys
import time

import pytest

from panda_core.protocol.process import LineProcess

# Writes its log and its answer together, then waits for the next line (as a bot does).
_LOGS_THEN_ANSWERS = """
import sys
for n, line in enumerate(sys.stdin):
    sys.stderr.write(f"LOG-{n}\\n"); sys.stderr.flush()
    sys.stdout.write(f"ANSWER-{n}\\n"); sys.stdout.flush()
"""


def test_stderr_written_with_an_answer_is_passed_on_by_the_read_of_that_answer(
    capfd: pytest.CaptureFixture[str],
) -> None:
    child = LineProcess([sys.executable, "-c", _LOGS_THEN_ANSWERS])
    try:
        for n in range(3):
            deadline = time.monotonic() + 10
            child.write(b"go\n", deadline)
            time.sleep(0.2)  # both pipes are ready by the time we wait: the race made certain
            assert child.read_line(deadline, 100) == f"ANSWER-{n}".encode()
            # Before the fix the log stayed in the pipe: the wait saw stdout ready and returned.
            assert f"LOG-{n}" in capfd.readouterr().err
    finally:
        child.kill()


def test_a_child_that_only_logs_is_drained_while_we_wait(capfd: pytest.CaptureFixture[str]) -> None:
    chatty = "import sys, time\nsys.stderr.write('x' * 200_000); sys.stderr.flush()\ntime.sleep(30)"
    child = LineProcess([sys.executable, "-c", chatty], stderr_bytes=1000)
    try:
        with pytest.raises(TimeoutError):
            child.read_line(time.monotonic() + 1.0, 100)
        err = capfd.readouterr().err
        assert err.count("x") == 1000  # the allowance, then one note
        assert "the bot's stderr is cut after 1000 bytes this game" in err
        assert child.last_words().startswith("x")
    finally:
        child.kill()
