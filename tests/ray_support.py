"""A real Ray instance for the tests: ``ray start --head`` on this machine with 2 CPUs, once per
test session (Ray takes seconds to start), stopped at the end of the session.

Use the ``ray_address`` fixture (registered for every test file by ``conftest.py``); it yields
the ``host:port`` to pass as ``address=``. Without Ray installed the fixture *fails* the test:
CI installs the extra, so a missing Ray is a broken setup, never a reason to skip.

The instance runs the venv's own interpreter (``python -m ray.scripts.scripts``, the ``ray``
command), in a session of its own, with its own temporary folder and free ports, so that it never
meets another Ray instance of the same machine. It is stopped by signalling its process group,
never with ``ray stop`` (which stops every Ray process of the machine, other users' included).

Ray workers import the tests' task modules (``tests/parallel_tasks.py``, ``tests/arena_bots.py``)
by name: the instance gets ``tests/`` on its ``PYTHONPATH``, and ``python/`` too when panda-core
runs from the source tree rather than from an installed wheel.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import panda_core

__all__ = ["RAY_CPUS", "local_ray", "ray_address", "ray_env"]

RAY_CPUS = 2
START_TIMEOUT = 90.0
"""Seconds ``ray start`` may take before the session gives up (about 5 s on the dev VM)."""
TERM_GRACE = 3.0
"""Seconds Ray's processes get to stop after SIGTERM before they are killed."""
STOP_TIMEOUT = 15.0
READY = "Ray runtime started"

TESTS = Path(__file__).resolve().parent
SOURCE = TESTS.parent / "python"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def ray_env() -> dict[str, str]:
    """The environment of the Ray instance (and so of its workers)."""
    paths = [str(TESTS)]
    if Path(panda_core.__file__).resolve().is_relative_to(SOURCE):
        paths.append(str(SOURCE))  # a source checkout (PYTHONPATH=python), not a wheel
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(paths),
        "RAY_USAGE_STATS_ENABLED": "0",
        # ``ray start`` turns token authentication on when ``~/.ray/auth_token`` exists (any
        # earlier ``ray.init`` writes one), while a driver given an address leaves it off and is
        # refused: the test instance says off, whatever the machine holds. It lives for one test
        # session on 127.0.0.1.
        "RAY_AUTH_MODE": "disabled",
    }


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the instance's process group (``ray start``, GCS, raylet, agents, workers: Ray
    keeps its processes in the group of ``ray start --block``), SIGKILL to what is left after a
    grace period (``ray start`` itself does not leave its wait loop on SIGTERM)."""
    for sig, grace in ((signal.SIGTERM, TERM_GRACE), (signal.SIGKILL, STOP_TIMEOUT)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            process.poll()  # reap the leader, so that its group can empty
            if not _group_alive(process.pid):
                return
            time.sleep(0.1)
    process.wait(STOP_TIMEOUT)


@contextmanager
def local_ray(cpus: int = RAY_CPUS) -> Iterator[str]:
    """A Ray head on this machine with ``cpus`` CPUs while the block runs; yields its address."""
    if importlib.util.find_spec("ray") is None:
        pytest.fail("Ray is not installed; the Ray tests need it: pip install 'panda-core[ray]'")
    # Short: Ray's unix sockets live under it, and a socket path has ~100 characters at most.
    temp = Path(tempfile.mkdtemp(prefix="ray", dir="/tmp" if os.name == "posix" else None))
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "ray.scripts.scripts",
        "start",
        "--head",
        "--block",
        f"--num-cpus={cpus}",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        f"--dashboard-agent-listen-port={free_port()}",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp}",
    ]
    log_path = temp / "ray_start.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command, env=ray_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while READY not in log_path.read_text(errors="replace"):
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"ray start did not start within {START_TIMEOUT:g} s "
                    f"(exit code {process.poll()}):\n{log_path.read_text(errors='replace')}"
                )
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        _stop(process)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """The address of the session's Ray instance (2 CPUs), started at its first use."""
    with local_ray() as address:
        yield address
