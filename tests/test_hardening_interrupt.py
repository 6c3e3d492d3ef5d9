"""Issue 8, item 4: Ctrl-C stops every long Rust call.

Each case runs the long call in a child interpreter, sends it a real SIGINT once the call has
been running for a while, and measures the time from the signal to the child's
``KeyboardInterrupt`` handler. The issue asks for 0.5 s; the bound asserted here is 2 s so that a
loaded two-core machine cannot make the test flaky (measured on the dev VM: 20-60 ms). The child
then makes a second call, so the interpreter is shown usable afterwards, and its stderr must not
mention a ``PanicException`` (the numpy-capsule panic of old).

Every call below ran on for tens of seconds after SIGINT before the fix.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")

BOUND = 2.0
"""Seconds from SIGINT to KeyboardInterrupt tolerated (the issue's target is 0.5 s)."""
RUNNING = 1.0
"""Seconds the call runs before the signal (long enough to be deep inside Rust)."""
CHILD_DEADLINE = 120.0
"""Seconds a child of :func:`interrupt` may live in all: far past any Ctrl-C latency, short of
hanging a run."""


def interrupt(
    body: str, after: str = "", running: float = RUNNING, setup: str = ""
) -> tuple[float, str]:
    """Run ``body`` in a child, SIGINT it after ``running`` s; (latency, the child's output).

    ``setup`` runs first; ``body`` must print nothing; the harness prints ``started`` before it
    and ``interrupted`` in its ``except KeyboardInterrupt``; ``after`` runs once the interrupt
    was caught.
    """
    script = "\n".join(
        [
            "import sys",
            textwrap.dedent(setup).strip(),
            "print('started', flush=True)",
            "try:",
            textwrap.indent(textwrap.dedent(body).strip(), "    "),
            "except KeyboardInterrupt:",
            "    print('interrupted', flush=True)",
            "else:",
            "    print('finished', flush=True)",
            textwrap.dedent(after).strip(),
            "print('done', flush=True)",
        ]
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # A child that never starts or ignores the SIGINT must fail the test, not hang the run: the
    # watchdog kills it, its pipes close and the reads below return what it printed.
    watchdog = threading.Timer(CHILD_DEADLINE, child.kill)
    watchdog.start()
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        time.sleep(running)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        first = child.stdout.readline().strip()
        latency = time.perf_counter() - sent
        # Not communicate(): it reads the pipes' file descriptors and would miss what the
        # readline above already buffered.
        rest = child.stdout.read()
        assert child.stderr is not None
        err = child.stderr.read()
        child.wait(timeout=60)
    finally:
        watchdog.cancel()
        if child.poll() is None:
            child.kill()
    assert first == "interrupted", (first, err[-2000:])
    assert "PanicException" not in err and "panicked" not in err, err[-2000:]
    assert child.returncode == 0, err[-2000:]
    assert rest.strip().endswith("done"), (rest, err[-2000:])
    return latency, rest


@pytest.mark.slow
def test_simulate_head_batch_stops_and_the_interpreter_stays_usable() -> None:
    latency, rest = interrupt(
        """
        from panda_core._core import simulate_head_batch
        simulate_head_batch(10**8, 4, ["random"] * 4)
        """,
        after="""
        from panda_core._core import simulate_head_batch
        print(simulate_head_batch(7, 4, ["random"] * 4)["winner"].shape)
        """,
    )
    assert latency < BOUND
    assert "(7,)" in rest


@pytest.mark.slow
def test_simulate_climb_batch_stops() -> None:
    latency, _ = interrupt(
        """
        from panda_core._core import simulate_climb_batch
        simulate_climb_batch(10**8, 4, ["heuristic"] * 4, threads=2)
        """
    )
    assert latency < BOUND


@pytest.mark.slow
def test_simulate_with_progress_raises_keyboard_interrupt_not_a_panic() -> None:
    # The old PanicException: the first numpy array built after a pending SIGINT.
    latency, rest = interrupt(
        """
        import panda_core
        panda_core.simulate(10**8, progress=lambda done, total: None)
        """,
        after="""
        import panda_core
        print(panda_core.simulate(5, game="year").games)
        """,
    )
    assert latency < BOUND
    assert "5" in rest.split()


@pytest.mark.slow
def test_a_search_bot_in_a_batch_stops_inside_its_decision() -> None:
    # One ISMCTS decision with 10**6 iterations takes seconds: the search itself must stop.
    latency, _ = interrupt(
        """
        import panda_core
        panda_core.simulate(4, game="year", bots=["ismcts:1000000", "random", "random"],
                            players=3, threads=1)
        """
    )
    assert latency < BOUND


@pytest.mark.parametrize("game", ["head", "year"])
@pytest.mark.slow
def test_large_vector_env_steps_stop_and_the_env_resets(game: str) -> None:
    make = (
        "HeadVectorEnv(2**20, threads=2)"
        if game == "head"
        else "ClimbVectorEnv(2**17, rules=ClimbSettings(preset='year'), threads=2)"
    )
    setup = f"""
        from panda_core import ClimbSettings
        from panda_core import ClimbVectorEnv, HeadVectorEnv
        env = {make}
        obs, mask, player = env.reset(seed=1)
    """
    latency, rest = interrupt(
        """
        while True:
            obs, mask, rewards, terminated, player = env.step(mask.argmax(axis=1))
        """,
        setup=setup,
        after="""
        from panda_core import IllegalMoveError, InvalidStateError
        try:
            env.step(mask.argmax(axis=1))
            print("stepped")
        except InvalidStateError as err:
            print("torn" if "reset" in str(err) else "other")
        except IllegalMoveError:
            # Interrupted after a step returned but before its mask was stored (a loaded
            # machine makes this likelier): the env is one step ahead and refuses the old moves.
            print("stale")
        obs, mask, player = env.reset(seed=2)
        env.step(mask.argmax(axis=1))
        print("reset ok")
        """,
        running=2.0,
    )
    assert latency < BOUND
    # Interrupted between two steps the env is whole (and refuses a stale mask's moves); inside
    # one it says so, never silently.
    assert ("stepped" in rest or "torn" in rest or "stale" in rest) and "reset ok" in rest


@pytest.mark.slow
def test_cli_prints_the_partial_table_and_exits_130(tmp_path: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "panda_core.cli", "simulate", "--games", "100000000", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.5)
    sent = time.perf_counter()
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    latency = time.perf_counter() - sent
    assert child.returncode == 130, err[-2000:]
    assert latency < BOUND
    assert "Traceback" not in err
    first = out.splitlines()[0]
    assert first.startswith("interrupted after ") and first.endswith(" of 100000000 games")
    assert "win rate" in out and "seat" in out
