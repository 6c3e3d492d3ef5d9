"""The Gymnasium single-agent environment: check_env, episodes, masks, seeding, registration."""

from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from panda_core import GameOverError, HeadGame, HeadRules, IllegalMoveError, RulesError
from panda_core.rl import ENV_IDS, PandaEnv

GAMES = ["head", "year", "spin"]


def play_episode(env: gym.Env[Any, Any], seed: int) -> tuple[list[int], float, int]:
    """Random legal actions until the end: (actions, final reward, steps)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        action = int(rng.choice(np.flatnonzero(mask)))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs in env.observation_space and not truncated
        if terminated:
            return actions, float(reward), len(actions)
        assert reward == 0.0


@pytest.mark.parametrize("game", GAMES)
def test_check_env_passes(game: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(PandaEnv(game, players=3), skip_render_check=True)
        # through the registry: with a spec, every render mode is checked too
        check_env(gym.make(ENV_IDS[game], players=4).unwrapped)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 4])
def test_episodes_end_with_plus_or_minus_one(game: str, players: int) -> None:
    env = PandaEnv(game, players=players, opponents="random")
    rewards = set()
    for seed in range(4):
        _, reward, steps = play_episode(env, seed)
        assert reward in (1.0, -1.0) and steps > 0
        rewards.add(reward)
        assert not env.action_masks().any()
        with pytest.raises(GameOverError):
            env.step(0)


@pytest.mark.parametrize("game", GAMES)
def test_mask_in_info_matches_the_game(game: str) -> None:
    env = PandaEnv(game, players=3, seat=1, opponents=["heuristic", "random"])
    obs, info = env.reset(seed=4)
    for _ in range(30):
        real = env.table.game
        assert real.current_player == 1
        mask = info["action_mask"].astype(bool)
        assert (mask == env.action_masks()).all()
        assert np.flatnonzero(mask).tolist() == real.legal_actions()
        assert (mask == real.legal_action_mask()).all()
        np.testing.assert_array_equal(obs, real.observation(1))
        obs, _, terminated, _, info = env.step(int(np.flatnonzero(mask)[0]))
        if terminated:
            break


@pytest.mark.parametrize("game", GAMES)
def test_deterministic_under_the_same_seed(game: str) -> None:
    a, b = PandaEnv(game, players=4), PandaEnv(game, players=4)
    assert play_episode(a, 17) == play_episode(b, 17)
    first_a, _ = a.reset(seed=17)
    first_b, _ = b.reset(seed=18)
    assert not np.array_equal(first_a, first_b)
    # the deal is the engine's deal for that seed
    env = PandaEnv(game, players=2, seat=0)
    env.reset(seed=99)
    twin = HeadGame(2, 99) if game == "head" else None
    if twin is not None:
        assert env.table.game.hand(0) == twin.hand(0)  # type: ignore[union-attr]


def test_illegal_actions_lose_or_raise() -> None:
    env = PandaEnv("head", players=2)
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info["illegal_action"] and info["illegal_reason"]
    strict = PandaEnv("head", players=2, illegal_action="raise")
    obs, info = strict.reset(seed=1)
    with pytest.raises(IllegalMoveError):
        strict.step(illegal)
    obs_after = strict.table.observation(strict.seat)
    np.testing.assert_array_equal(obs, obs_after)  # nothing changed: play on
    legal = int(np.flatnonzero(info["action_mask"])[0])
    strict.step(legal)
    for bad in (24, -1):
        with pytest.raises(ValueError, match="actions are"):
            strict.step(bad)


def test_options_and_errors() -> None:
    env = gym.make(
        "panda_core/Head-v0",
        players=5,
        opponents="heuristic",
        seat=None,
        rules=HeadRules(bust_threshold=10),
    )
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert len(seats) > 1  # seat=None draws the agent's seat
    with pytest.raises(RulesError, match="opponent"):
        PandaEnv("head", players=3, opponents=["random"])
    with pytest.raises(RulesError, match="unknown bot"):
        PandaEnv("head", players=2, opponents="genius")
    with pytest.raises(RulesError, match="unknown game"):
        PandaEnv("chess")
    with pytest.raises(RulesError, match="seat"):
        PandaEnv("head", players=2, seat=2)


def test_render_ansi() -> None:
    env = PandaEnv("spin", players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "spin" in text and "to move" in text
