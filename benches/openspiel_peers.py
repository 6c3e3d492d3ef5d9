"""OpenSpiel games driven the way our Python-driven benchmarks drive panda-core."""

from __future__ import annotations

import random
from typing import Any


def python_driven_game(pyspiel: Any, name: str, seed: int) -> int:
    """One random game of OpenSpiel's ``name`` driven from Python (legal actions, pick, apply);
    chance nodes are sampled and not counted. Returns the number of player decisions."""
    state = pyspiel.load_game(name).new_initial_state()
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def mean_decisions(pyspiel: Any, name: str, games: int = 20) -> float:
    return sum(python_driven_game(pyspiel, name, s) for s in range(games)) / games
