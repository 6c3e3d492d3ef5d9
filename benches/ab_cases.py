"""The measurements of ``benches/ab.py``: one workload each, timed against the panda_core on
``sys.path`` (ab.py runs every case in a fresh process with ``PYTHONPATH`` set to one build).

A case is a module-level function listed in ``CASES``: it runs one fixed workload (the same
games, seeds and sizes for every build, so both builds do the same work) for about 0.3-1 s of CPU on
the project's VM and returns ``(units, seconds)``; the unit is in ``UNITS``. Only API present
both at 97a3c3f (the issue-24 reference) and today is used; where a name changed, the case
looks up whichever exists. A case the build cannot run (a bot or function it does not have)
raises, and ab.py reports "n/a" for that build.

    python benches/ab_cases.py CASE     # one warm-up call, then one timed call: a JSON line
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np

# panda_core is imported inside the cases, not here: ab.py imports this module for the case
# names without a build on its path, and a build is chosen by the subprocess's PYTHONPATH.

Result = tuple[float, float]
Preset = Literal["year", "spin"]
Game = Literal["head", "year", "spin"]

clock = time.process_time
"""The cases' clock: this process's CPU time, not the wall clock. Every case runs on one
thread, and on a machine shared with other jobs the wall clock also counts the time the
process waited for a core (2x swings between runs here); CPU time counts only the work."""

HEAD_BOTS = ["heuristic", "random", "heuristic", "random"]


def head_batch() -> Result:
    """Panda Head batch, 4 players (heuristic/random bots), 1 thread: decisions/s."""
    from panda_core._core import simulate_head_batch

    started = clock()
    batch = simulate_head_batch(30_000, 4, HEAD_BOTS, 5, None, 1)
    seconds = clock() - started
    return float(np.sum(batch["decisions"])), seconds


def head_hands() -> Result:
    """Panda Head random hands in Rust (simulate_head_hands), 4 players: hands/s."""
    from panda_core._core import simulate_head_hands

    started = clock()
    simulate_head_hands(250_000, 4, 7)
    return 250_000.0, clock() - started


def head_python_loop() -> Result:
    """Panda Head driven from Python: legal actions, pick, apply(), 4 players: decisions/s."""
    from panda_core import HeadGame

    # 97a3c3f calls it legal_action_ids; today legal_actions (the same list of ints).
    name = "legal_actions" if hasattr(HeadGame, "legal_actions") else "legal_action_ids"
    legal: Callable[[HeadGame], list[int]] = getattr(HeadGame, name)
    decisions = 0
    started = clock()
    for seed in range(2_500):
        game = HeadGame(4, seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(legal(game)))
            decisions += 1
    return float(decisions), clock() - started


def _climb_batch(preset: Preset, games: int) -> Result:
    from panda_core import ClimbSettings
    from panda_core._core import simulate_climb_batch

    settings = ClimbSettings(preset=preset)
    started = clock()
    batch = simulate_climb_batch(games, 4, ["random"] * 4, 3, settings, 1)
    seconds = clock() - started
    return float(np.sum(batch["decisions"])), seconds


def climb_batch_year() -> Result:
    """`year` batch, 4 random bots, 1 thread: decisions/s."""
    return _climb_batch("year", 3_000)


def climb_batch_spin() -> Result:
    """`spin` batch, 4 random bots, 1 thread: decisions/s."""
    return _climb_batch("spin", 1_800)


def year_python_loop() -> Result:
    """`year` driven from Python: legal_moves, pick, apply(), 4 players: decisions/s."""
    from panda_core import ClimbGame, ClimbSettings

    settings = ClimbSettings(preset="year")
    decisions = 0
    started = clock()
    for seed in range(600):
        game = ClimbGame(4, seed, settings)
        rng = random.Random(seed)
        while not game.is_over:
            legal = game.legal_moves()
            game.apply(legal[rng.randrange(len(legal))])
            decisions += 1
    return float(decisions), clock() - started


VECTOR_ENVS = 1_024


def _vector_env(game: Game) -> Any:
    from panda_core import ClimbSettings
    from panda_core._core import ClimbVectorEnv, HeadVectorEnv

    # Positional: the settings' keyword was `settings` at 97a3c3f and is `rules` today.
    if game == "head":
        return HeadVectorEnv(VECTOR_ENVS, 4, None, 1)
    return ClimbVectorEnv(VECTOR_ENVS, 4, ClimbSettings(preset=game), 1)


def _vector(game: Game, steps: int) -> Result:
    env = _vector_env(game)
    mask = env.reset(seed=1)[1]
    started = clock()
    for _ in range(steps):
        mask = env.step(mask.argmax(axis=1))[1]
    return float(steps * VECTOR_ENVS), clock() - started


def _vector_bound(game: Game, steps: int) -> Result:
    """What writing one step's output costs: numpy fills preallocated arrays of exactly the
    shapes and types a step returns (observations, masks, rewards, dones, players). The env
    must write at least these bytes; allocation is left out (an env need not allocate)."""
    env = _vector_env(game)
    mask = env.reset(seed=1)[1]
    outputs = [np.empty_like(a) for a in env.step(mask.argmax(axis=1))]
    started = clock()
    for i in range(steps):
        for a in outputs:
            a.fill(i & 1)
    return float(steps * VECTOR_ENVS), clock() - started


def vector_head() -> Result:
    """HeadVectorEnv, 1,024 envs, 1 thread, first legal action: env-steps/s."""
    return _vector("head", 3_000)


def vector_year() -> Result:
    """ClimbVectorEnv `year`, 1,024 envs, 1 thread, first legal action: env-steps/s."""
    return _vector("year", 320)


def vector_spin() -> Result:
    """ClimbVectorEnv `spin`, 1,024 envs, 1 thread, first legal action: env-steps/s."""
    return _vector("spin", 260)


def vector_head_bound() -> Result:
    """The output-write bound of vector_head (numpy fills of its step's outputs): steps/s."""
    return _vector_bound("head", 26_000)


def vector_year_bound() -> Result:
    """The output-write bound of vector_year (numpy fills of its step's outputs): steps/s."""
    return _vector_bound("year", 1_800)


def vector_spin_bound() -> Result:
    """The output-write bound of vector_spin (numpy fills of its step's outputs): steps/s."""
    return _vector_bound("spin", 1_800)


def _neural(game: Game, games: int) -> Result:
    from panda_core import ClimbSettings
    from panda_core._core import simulate_climb_batch, simulate_head_batch

    started = clock()
    if game == "head":
        decisions = simulate_head_batch(games, 4, ["neural"] * 4, 99, None, 1)["decisions"]
    else:
        settings = ClimbSettings(preset=game)
        decisions = simulate_climb_batch(games, 4, ["neural"] * 4, 99, settings, 1)["decisions"]
    seconds = clock() - started
    return float(np.sum(decisions)), seconds


def neural_head() -> Result:
    """The shipped `neural` bot in every seat of Panda Head, 1 thread: decisions/s."""
    return _neural("head", 400)


def neural_year() -> Result:
    """The shipped `neural` bot in every seat of `year`, 1 thread: decisions/s."""
    return _neural("year", 90)


def neural_spin() -> Result:
    """The shipped `neural` bot in every seat of `spin`, 1 thread: decisions/s."""
    return _neural("spin", 70)


def dou_dizhu_cpp() -> Result:
    """OpenSpiel's C++ `dou_dizhu`, 3 uniform random bots (evaluate_bots): decisions/s.
    The peer of the climbing batches, the same on both builds; n/a without open_spiel."""
    import pyspiel  # type: ignore[import-not-found]

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from openspiel_peers import mean_decisions

    games = 6_000
    # evaluate_bots does not count decisions: the mean of 200 Python-driven random games
    # (fixed seeds), as bench_climb.py does, outside the timed part.
    per_game = mean_decisions(pyspiel, "dou_dizhu", games=200)
    game = pyspiel.load_game("dou_dizhu")
    bots = [pyspiel.make_uniform_random_bot(p, 99 + p) for p in range(3)]
    started = clock()
    for seed in range(games):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
    return games * per_game, clock() - started


CASES: dict[str, Callable[[], Result]] = {
    f.__name__: f
    for f in (
        head_batch,
        head_hands,
        head_python_loop,
        climb_batch_year,
        climb_batch_spin,
        year_python_loop,
        vector_head,
        vector_year,
        vector_spin,
        vector_head_bound,
        vector_year_bound,
        vector_spin_bound,
        neural_head,
        neural_year,
        neural_spin,
        dou_dizhu_cpp,
    )
}
UNITS: dict[str, str] = {
    name: "hands"
    if name == "head_hands"
    else "steps"
    if name.startswith("vector_")
    else "decisions"
    for name in CASES
}


def describe(name: str) -> str:
    return (CASES[name].__doc__ or "").strip().splitlines()[0]


def run(name: str) -> dict[str, Any]:
    """One warm-up call (not counted), then the timed one; failures become ``n/a``."""
    import panda_core

    out: dict[str, Any] = {"case": name, "panda_core": panda_core.__file__}
    try:
        CASES[name]()
        units, seconds = CASES[name]()
    except Exception as exc:
        out["na"] = f"{type(exc).__name__}: {exc}"
        return out
    out.update(units=units, seconds=seconds, rate=units / seconds if seconds > 0 else None)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in CASES:
        print(f"usage: ab_cases.py CASE; cases: {', '.join(CASES)}", file=sys.stderr)
        return 2
    print(json.dumps(run(argv[0])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
