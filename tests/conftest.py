"""Shared test configuration: which tests run where, the hypothesis profiles and the size of the
differential runs.

Which tests: ``python -m pytest -m "not slow"`` is the inner loop (two minutes on two cores);
the tests marked ``slow`` are the long end-to-end runs (the differential runs past their first
shard, the browser's and the terminal's whole games, the arena's command line, the trainer's
runs, Ray, the long hostile runs), and ``python -m pytest`` (CI) runs everything. A run that
names no files runs on every core (``pytest_cmdline_main`` below).

How large: ``PANDA_PROFILE`` picks the profile (like pydantic-core's ``HYPOTHESIS_PROFILE``):

* ``ci`` (default): what ``.ci/run`` runs; bounded so the whole suite stays well under its budget;
* ``slow``: the long runs a change must pass before an issue is resolved (20,000+ Panda Head games);
* ``fuzz``: ``slow`` plus long runs of the binding fuzz harness (``tests/test_fuzz_bindings.py``).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# The Ctrl-C tests send SIGINT to their children, which inherit an ignored SIGINT from a test run
# started in the background (nohup, `cmd &` in a script: how CI runners often start jobs) and then
# never see it: the child runs on and the test hangs or fails. A Python handler is reset to the
# default at exec, so every child gets a working Ctrl-C again.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

PROFILE = os.environ.get("PANDA_PROFILE", "ci")

settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.register_profile(
    "slow", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(PROFILE if PROFILE in ("ci", "slow", "fuzz") else "ci")

# Full seeded Panda Head games compared move by move with the oracle.
HEAD_DIFFERENTIAL_GAMES = {"ci": 2_000, "slow": 20_000}.get(PROFILE, 2_000)

# Full seeded climbing games per edition (year/hungry, year/flip, spin) compared with the oracle.
CLIMB_DIFFERENTIAL_GAMES = {"ci": 300, "slow": 3_400}.get(PROFILE, 300)

# Mutated documents per binding entry point in the fuzz harness (tests/test_fuzz_bindings.py).
# PANDA_FUZZ_EXAMPLES overrides it for one long run.
FUZZ_EXAMPLES = int(
    os.environ.get(
        "PANDA_FUZZ_EXAMPLES",
        {"ci": 80, "slow": 2_000, "fuzz": 10_000}.get(PROFILE, 80),
    )
)

# Fixtures and hooks of the support modules, for every test file: the session's Ray instance
# (tests/ray_support.py), and a test that forks the test process fails (tests/fork_guard.py).
from fork_guard import (  # noqa: E402, F401
    pytest_runtest_call,
    pytest_runtest_setup,
    pytest_runtest_teardown,
)
from ray_support import ray_address  # noqa: E402, F401


@pytest.hookimpl(tryfirst=True)  # before xdist's, which turns ``auto`` into a worker count
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Run on every core (pytest-xdist, one worker per test file) when a run names no files.

    ``python -m pytest -m "not slow"`` (the inner loop) and the whole suite are parallel; a run
    of named files or tests (``pytest tests/test_x.py -x``) stays serial, where starting workers
    costs more than it saves. ``-n 0`` runs serially, ``-n N`` on N workers; without xdist,
    ``-p no:xdist`` or ``--pdb`` nothing changes."""
    option = config.option
    if (
        getattr(option, "numprocesses", 0) is not None  # given (-n), or xdist is not loaded
        or hasattr(config, "workerinput")  # an xdist worker
        or option.usepdb
        or option.collectonly
        or any(Path(arg.split("::")[0]).is_file() for arg in config.args)
    ):
        return
    option.numprocesses = "auto"
    if option.dist == "no":
        option.dist = "loadfile"  # a file's module fixtures (a browser, a trained run) once
