"""The PettingZoo AEC environments: API conformance, masks, rewards, seeding."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test  # type: ignore[import-untyped, unused-ignore]
from pettingzoo.utils.wrappers import (  # type: ignore[import-untyped, unused-ignore]
    TerminateIllegalWrapper,
)

from panda_core import ClimbGame, ClimbSettings, HeadGame, HeadRules, IllegalMoveError
from panda_core._registry import GAMES
from panda_core.rl import PandaAECEnv

ENVS: dict[str, Callable[..., PandaAECEnv]] = {game: partial(PandaAECEnv, game) for game in GAMES}

# api_test's generic advice for envs whose observation is not a bare array; PettingZoo's own
# action-mask envs (chess, connect four) are exempted from it by name.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
]


@pytest.mark.parametrize("game", list(ENVS))
@pytest.mark.parametrize("players", [2, 4])
def test_api_test_passes(game: str, players: int) -> None:
    api_test(ENVS[game](players=players), num_cycles=200, verbose_progress=False)


@pytest.mark.parametrize("game", list(ENVS))
def test_seed_test_passes(game: str) -> None:
    seed_test(lambda: ENVS[game](players=3), num_cycles=100)


def real_game(game: str, players: int, seed: int) -> HeadGame | ClimbGame:
    if game == "head":
        return HeadGame(players, seed)
    return ClimbGame(players, seed, ClimbSettings(preset=game))  # type: ignore[arg-type]


@pytest.mark.parametrize("game", list(ENVS))
def test_spaces_masks_and_a_full_game(game: str) -> None:
    env = ENVS[game](players=3)
    env.reset(seed=8)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    space = env.observation_space("player_0")
    size = space["observation"].shape
    actions = int(env.action_space("player_1").n)
    assert space["action_mask"].shape == (actions,)
    assert actions == (24 if game == "head" else env.table.num_actions)
    twin = real_game(game, 3, 8)  # the env deals what the engine deals from that seed
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert obs is not None and obs["observation"].shape == size
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        if terminated or truncated:
            assert twin.is_over
            assert reward == (1.0 if agent == f"player_{twin.winner}" else -1.0)
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == twin.current_player and reward == 0
        mask = obs["action_mask"].astype(bool)
        assert mask.any()
        assert (mask == twin.legal_action_mask()).all()
        assert np.flatnonzero(mask).tolist() == twin.legal_actions()
        # every legal move realises a legal action, and every legal action one move
        legal = {twin.action_index(m) for m in twin.legal_moves()}  # type: ignore[arg-type]
        assert legal == set(np.flatnonzero(mask).tolist())
        np.testing.assert_array_equal(obs["observation"], twin.observation(seat))
        # the others see no legal action
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        twin.apply(action)
        steps += 1
    assert env.agents == [] and steps > 0 and twin.is_over


def test_rewards_at_the_end_are_plus_one_and_minus_one() -> None:
    env = PandaAECEnv("head", players=4)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if not (terminated or truncated):
            assert reward == 0
        env.step(
            None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        )
    assert sorted(totals.values()) == [-1.0, -1.0, -1.0, 1.0]
    assert env.table.winner is not None and totals[f"player_{env.table.winner}"] == 1.0


@pytest.mark.parametrize("game", list(ENVS))
def test_reset_with_a_seed_is_deterministic(game: str) -> None:
    a, b = ENVS[game](players=4), ENVS[game](players=4)
    a.reset(seed=123)
    b.reset(seed=123)
    assert a.agent_selection == b.agent_selection
    first_a, first_b = a.observe(a.agent_selection), b.observe(b.agent_selection)
    np.testing.assert_array_equal(first_a["observation"], first_b["observation"])
    np.testing.assert_array_equal(first_a["action_mask"], first_b["action_mask"])
    b.reset(seed=124)
    other = b.observe(b.agent_selection)
    assert not np.array_equal(first_a["observation"], other["observation"]) or not (
        np.array_equal(first_a["action_mask"], other["action_mask"])
    )
    # unseeded resets continue from the last seed: the same sequence of deals
    a.reset(seed=5)
    b.reset(seed=5)
    a.reset()
    b.reset()
    np.testing.assert_array_equal(
        a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"]
    )


def test_illegal_action_raises_and_changes_nothing() -> None:
    env = PandaAECEnv("head", players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError):
        env.step(illegal)
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["observation"], obs["observation"])
    # PettingZoo's wrapper turns an illegal action into a lost game instead
    wrapped = TerminateIllegalWrapper(PandaAECEnv("head", players=2), illegal_reward=-1)
    wrapped.reset(seed=1)
    wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1


def test_rules_settings_and_render() -> None:
    env = PandaAECEnv("head", players=3, rules=HeadRules(bust_threshold=5), render_mode="ansi")
    env.reset(seed=2)
    assert env.table.game.rules.bust_threshold == 5  # type: ignore[union-attr]
    text = env.render()
    assert isinstance(text, str) and "Panda Head" in text and "to move" in text
    year = PandaAECEnv("year", players=2, rules=ClimbSettings(preset="spin", panda_mood="flip"))
    year.reset(seed=2)
    assert isinstance(year.table.game, ClimbGame)
    assert year.table.game.view(0)["preset"] == "year"
    assert year.table.game.view(0)["panda_mood"] == "flip"
    assert str(year.unwrapped) == "panda_year_v0"
    spin = PandaAECEnv("spin", players=5, render_mode="ansi")
    spin.reset(seed=0)
    out = spin.render()
    assert isinstance(out, str) and "spin" in out
    with pytest.raises(ValueError, match="render_mode"):
        PandaAECEnv("head", render_mode="rgb_array")
