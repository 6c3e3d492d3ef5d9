"""The base install (``pip install panda-core``, no extras) runs the command line and the engine:
every optional dependency is imported only by the feature that needs it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

EXTRAS = [
    "pyarrow", "openskill", "pebble", "matplotlib", "ray", "fastapi", "uvicorn", "jax", "flax",
    "optax", "safetensors", "gymnasium", "pettingzoo", "textual",
]  # fmt: skip

SCRIPT = textwrap.dedent(
    f"""
    import importlib.abc, sys

    class NoExtras(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.split(".")[0] in {EXTRAS!r}:
                raise ImportError(f"{{name}} is an extra (blocked by the test)")

    sys.meta_path.insert(0, NoExtras())
    from panda_core.cli import main
    code = main(sys.argv[1:])
    sys.exit(code or 0)
    """
)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_the_command_line_runs_without_any_extra() -> None:
    for game in ("head", "year", "spin"):
        done = run("simulate", "--game", game, "--games", "20", "--bots", "neural,heuristic")
        assert done.returncode == 0, done.stderr
        assert "neural" in done.stdout and "win rate" in done.stdout
    assert run("--help").returncode == 0


def test_the_self_play_package_names_what_it_imports_late() -> None:
    import panda_core.selfplay as selfplay

    assert sorted(selfplay._HOMES) == sorted(selfplay.__all__)
    for name in selfplay.__all__:
        assert getattr(selfplay, name) is not None
