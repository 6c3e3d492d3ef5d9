"""Ctrl-C stops an LLM seat within half a second wherever it waits: inside a slow request, while a
trickling answer arrives, waiting for a concurrency slot, waiting to retry after a 503, and in an
arena. Each case runs the bot in a child interpreter (started with ``subprocess``: the test
process never forks) against the scripted server in this process, sends the child a real SIGINT
once the server has its request (or the slot is held), and measures the time to the child's
``KeyboardInterrupt`` handler; the child then makes one more decision, so the interpreter is shown
usable afterwards.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from llm_server import ScriptedServer, Slow, Status, Trickle, first_legal, serve

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")

BOUND = 0.5
"""Seconds from SIGINT to KeyboardInterrupt (the issue's bound)."""
CHILD_DEADLINE = 60.0

SETUP = """
import sys
import panda_core
from panda_core.llm import LlmBot
game = panda_core.make("year", 3, seed=1)
bot = LlmBot("m", base_url=sys.argv[1], timeout=60, max_retries=OPTIONS_RETRIES,
             concurrency=1, backoff=30)
"""

ONE_MORE = """
bot2 = LlmBot("m", base_url=sys.argv[1], timeout=10, max_retries=0)
print("after", bot2(game.clone(), game.current_player), flush=True)
"""


@contextmanager
def child(body: str, base_url: str, retries: int = 0) -> Iterator[subprocess.Popen[str]]:
    script = "\n".join(
        [
            textwrap.dedent(SETUP).replace("OPTIONS_RETRIES", str(retries)).strip(),
            "print('started', flush=True)",
            "try:",
            textwrap.indent(textwrap.dedent(body).strip(), "    "),
            "except KeyboardInterrupt:",
            "    print('interrupted', flush=True)",
            "else:",
            "    print('finished', flush=True)",
            textwrap.dedent(ONE_MORE).strip(),
        ]
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script, base_url],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(CHILD_DEADLINE, process.kill)
    watchdog.start()
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "started"
        yield process
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
        process.wait(10)


def interrupt(process: subprocess.Popen[str], server: ScriptedServer) -> tuple[float, str]:
    """SIGINT the child now; (latency to its handler, the rest of what it printed)."""
    assert process.stdout is not None and process.stderr is not None
    sent = time.perf_counter()
    process.send_signal(signal.SIGINT)
    first = process.stdout.readline().strip()
    latency = time.perf_counter() - sent
    rest = process.stdout.read()
    err = process.stderr.read()
    process.wait(30)
    assert first == "interrupted", (first, err[-2000:])
    assert process.returncode == 0, err[-2000:]
    assert "after " in rest, (rest, err[-2000:])
    return latency, rest


def wait_for_request(server: ScriptedServer) -> None:
    assert server.arrived.wait(30), "the child never sent its request"
    time.sleep(0.3)  # deep in its wait for the answer


DECIDE = "bot(game.clone(), game.current_player)"


@pytest.mark.parametrize(
    "step",
    [Slow(30.0), Trickle(every=0.05, count=10_000)],
    ids=["slow-answer", "trickle"],
)
@pytest.mark.slow
def test_ctrl_c_stops_a_request(step: object) -> None:
    with serve([step]) as server, child(DECIDE, server.base_url) as process:
        wait_for_request(server)
        latency, _ = interrupt(process, server)
    assert latency < BOUND


def test_ctrl_c_stops_the_wait_before_a_retry() -> None:
    script = [Status(503, headers=(("Retry-After", "30"),))]
    with serve(script) as server, child(DECIDE, server.base_url, retries=1) as process:
        wait_for_request(server)
        latency, _ = interrupt(process, server)
    assert latency < BOUND
    assert len(server.requests) == 2  # the 503, then the one more decision


@pytest.mark.slow
def test_ctrl_c_stops_the_wait_for_a_slot() -> None:
    from panda_core.llm.options import make_options
    from panda_core.llm.slots import slot

    with serve() as server:
        endpoint = make_options("m", base_url=server.base_url).endpoint
        held = slot(endpoint, 1, 1.0)
        held.__enter__()  # this process holds the endpoint's only slot
        released = False
        try:
            with child(DECIDE, server.base_url) as process:
                assert process.stdout is not None
                time.sleep(0.5)
                assert server.requests == [], "the child waits for the slot"
                sent = time.perf_counter()
                process.send_signal(signal.SIGINT)
                first = process.stdout.readline().strip()
                latency = time.perf_counter() - sent
                held.__exit__(None, None, None)  # the child's one more decision needs it
                released = True
                rest = process.stdout.read()
                process.wait(30)
        finally:
            if not released:
                held.__exit__(None, None, None)
    assert first == "interrupted"
    assert "after " in rest
    assert latency < BOUND


ARENA = """
from panda_core.arena import arena, ArenaInterrupted
try:
    arena([bot, "heuristic"], game="spin", players=2, deals=1, workers=0)
except ArenaInterrupted as stop:
    print("games finished:", len(stop.report.results), flush=True)
    raise KeyboardInterrupt from None
"""


@pytest.mark.slow
def test_ctrl_c_stops_an_arena_with_an_llm_entrant() -> None:
    with serve([*([first_legal] * 5), Slow(30.0)]) as server:
        with child(ARENA, server.base_url) as process:
            assert process.stdout is not None
            while len(server.requests) < 6:
                time.sleep(0.02)
                assert process.poll() is None
            time.sleep(0.3)
            sent = time.perf_counter()
            process.send_signal(signal.SIGINT)
            first = process.stdout.readline().strip()
            latency = time.perf_counter() - sent
            rest = process.stdout.read()
            process.wait(30)
    assert first == "games finished: 0", rest
    assert rest.startswith("interrupted")
    assert latency < BOUND
