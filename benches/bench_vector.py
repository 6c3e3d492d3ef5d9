"""Vector environments against driving single games one call at a time (issue 4, item 7).

Unit: env-steps (one decision of one game, with the observation and the legal mask of the next
player to move). ``extra_info["steps_per_call"]`` records how many one benchmarked call makes.

* ``test_vector_step[game-N-T]``: one ``step`` of N envs on T threads (``threads`` of the env),
  the policy being "first legal action" (``mask.argmax(axis=1)``), timed with the step;
* ``test_single_game_steps[game]``: the same work one game at a time from Python: apply, then
  the next player's observation and mask (``HeadGame`` / ``ClimbGame``);
* ``test_single_game_steps_oracle[game]``: the pure-Python oracle driven the same way (it has no
  observation, so it does less work per step);
* ``test_openspiel_single_steps[hearts|dou_dizhu]``: OpenSpiel driven the same way (apply,
  ``legal_actions_mask``, ``observation_tensor``, or ``information_state_tensor`` for hearts,
  which has no observation tensor), skipped when open-spiel is absent.

``python benches/report.py bench.json`` prints the ratios.
"""

from __future__ import annotations

import importlib.util
import itertools
from typing import Any

import numpy as np
import pytest

from panda_core import ClimbGame, ClimbSettings, ClimbVectorEnv, HeadGame, HeadVectorEnv
from panda_core.oracle.climb import ClimbSettings as OracleClimbSettings
from panda_core.oracle.climb import OracleClimbGame
from panda_core.oracle.head import HeadRules as OracleRules
from panda_core.oracle.head import OracleHeadGame

GAMES = ("head", "year", "spin")
SINGLE_STEPS = 2_000


def make_env(game: str, envs: int, threads: int) -> HeadVectorEnv | ClimbVectorEnv:
    if game == "head":
        return HeadVectorEnv(envs, players=4, threads=threads)
    return ClimbVectorEnv(envs, players=4, rules=ClimbSettings(preset=game), threads=threads)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("envs", [1, 64, 1024])
@pytest.mark.parametrize("threads", [1, 2])
def test_vector_step(benchmark: Any, game: str, envs: int, threads: int) -> None:
    env = make_env(game, envs, threads)
    state = {"mask": env.reset(seed=1)[1]}

    def step() -> None:
        state["mask"] = env.step(state["mask"].argmax(axis=1))[1]

    benchmark.group = f"vector env: {game}"
    benchmark.extra_info["steps_per_call"] = envs
    benchmark(step)


def head_single_steps(seeds: itertools.count[int]) -> None:
    game = HeadGame(4, next(seeds))
    for _ in range(SINGLE_STEPS):
        if game.is_over:
            game = HeadGame(4, next(seeds))
        game.apply(int(game.legal_action_mask().argmax()))
        player = game.current_player
        if player is not None:
            game.observation(player)
            game.legal_action_mask()


def climb_single_steps(preset: str, seeds: itertools.count[int]) -> None:
    settings = ClimbSettings(preset=preset)
    game = ClimbGame(4, next(seeds), settings)
    for _ in range(SINGLE_STEPS):
        if game.is_over:
            game = ClimbGame(4, next(seeds), settings)
        game.apply(int(game.legal_action_mask().argmax()))
        player = game.current_player
        if player is not None:
            game.observation(player)
            game.legal_action_mask()


@pytest.mark.parametrize("game", GAMES)
def test_single_game_steps(benchmark: Any, game: str) -> None:
    seeds = itertools.count()
    benchmark.group = f"vector env: {game}"
    benchmark.extra_info["steps_per_call"] = SINGLE_STEPS
    if game == "head":
        benchmark(head_single_steps, seeds)
    else:
        benchmark(climb_single_steps, game, seeds)


ORACLE_STEPS = 300


@pytest.mark.parametrize("game", GAMES)
def test_single_game_steps_oracle(benchmark: Any, game: str) -> None:
    seeds = itertools.count()

    def head() -> None:
        g = OracleHeadGame.new(4, next(seeds), OracleRules())
        for _ in range(ORACLE_STEPS):
            if g.is_over:
                g = OracleHeadGame.new(4, next(seeds), OracleRules())
            g.apply(g.legal_actions()[0])

    def climb() -> None:
        settings = OracleClimbSettings(preset=game)
        g = OracleClimbGame.new(4, next(seeds), settings)
        for _ in range(ORACLE_STEPS):
            if g.is_over:
                g = OracleClimbGame.new(4, next(seeds), settings)
            g.apply(g.legal_moves()[0])

    benchmark.group = f"vector env: {game}"
    benchmark.extra_info["steps_per_call"] = ORACLE_STEPS
    benchmark.pedantic(head if game == "head" else climb, rounds=5, iterations=1)


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None, reason="open-spiel is absent")
@pytest.mark.parametrize("name", ["hearts", "dou_dizhu"])
def test_openspiel_single_steps(benchmark: Any, name: str) -> None:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    # hearts has no observation tensor, only the (larger) information-state tensor.
    observe = (
        "observation_tensor"
        if game.get_type().provides_observation_tensor
        else "information_state_tensor"
    )

    def run() -> None:
        state = game.new_initial_state()
        steps = 0
        while steps < SINGLE_STEPS:
            if state.is_terminal():
                state = game.new_initial_state()
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=np.array(probs))))
                continue
            state.apply_action(int(np.argmax(state.legal_actions_mask())))
            steps += 1
            if not state.is_terminal() and not state.is_chance_node():
                getattr(state, observe)()
                state.legal_actions_mask()

    benchmark.group = "vector env: OpenSpiel peers"
    benchmark.extra_info["steps_per_call"] = SINGLE_STEPS
    benchmark(run)
