"""Shared test configuration: hypothesis profiles and the size of the differential runs.

``PANDA_PROFILE`` picks the profile (like pydantic-core's ``HYPOTHESIS_PROFILE``):

* ``ci`` (default): what ``.ci/run`` runs; bounded so the whole suite stays well under its budget;
* ``slow``: the long runs a change must pass before an issue is resolved (20,000+ Panda Head games);
* ``dev``: a quick local loop;
* ``fuzz``: ``slow`` plus long runs of the binding fuzz harness (``tests/test_fuzz_bindings.py``).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

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
settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile(
    "fuzz", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(PROFILE if PROFILE in ("ci", "slow", "dev", "fuzz") else "ci")

# Full seeded Panda Head games compared move by move with the oracle.
HEAD_DIFFERENTIAL_GAMES = {"ci": 2_000, "slow": 20_000, "dev": 200}.get(PROFILE, 2_000)

# Full seeded climbing games per edition (year/hungry, year/flip, spin) compared with the oracle.
CLIMB_DIFFERENTIAL_GAMES = {"ci": 300, "slow": 3_400, "dev": 30}.get(PROFILE, 300)

# Mutated documents per binding entry point in the fuzz harness (tests/test_fuzz_bindings.py).
# PANDA_FUZZ_EXAMPLES overrides it for one long run.
FUZZ_EXAMPLES = int(
    os.environ.get(
        "PANDA_FUZZ_EXAMPLES",
        {"ci": 80, "slow": 2_000, "dev": 20, "fuzz": 10_000}.get(PROFILE, 80),
    )
)

# The session's Ray instance (tests/ray_support.py), for every test file that asks for it.
from ray_support import ray_address  # noqa: E402, F401
