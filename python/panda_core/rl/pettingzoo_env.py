"""PettingZoo AEC environments (turn-based, one agent per seat) for every game.

>>> from panda_core.rl import PandaAECEnv
>>> env = PandaAECEnv("head", players=4)
>>> env.reset(seed=42)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     if terminated or truncated:
...         action = None
...     else:
...         action = env.action_space(agent).sample(obs["action_mask"])
...     env.step(action)

* Agents: ``"player_0"`` … ``"player_{n-1}"``, seat ``i`` is ``player_i``.
* Observation: ``{"observation": float32 (OBS,), "action_mask": int8 (A,)}`` (PettingZoo's
  action-mask convention). The observation is the game's own encoding for that seat
  (``game.observation(seat)``, seats relative to the observer); the
  mask is the legal actions of that agent when it is to move, all zeros otherwise.
* Actions: ``Discrete(24)`` action ids in Panda Head, ``Discrete(NUM_CLIMB_ACTIONS)`` abstract
  actions in ``year`` and ``spin`` (``game.apply(action)``).
* Rewards: zero until the game ends; then +1 for the winner and -1 for every other seat. The
  whole game is one episode; there is no truncation.
* An illegal action raises :class:`~panda_core.IllegalMoveError` (the state is unchanged); wrap
  the env in ``pettingzoo.utils.wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)`` to end
  the game with a penalty instead.
* ``reset(seed=s)`` deals the game ``make(game, players, s)`` would;
  ``reset()`` without a seed draws the next deal from the env's generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped, unused-ignore]

from panda_core._args import seed_arg, shown
from panda_core._core import ArgumentError, RulesError
from panda_core._registry import AnyRules, GameName
from panda_core.rl._game import Table, agent_name, final_rewards, observation_bounds

__all__ = ["PandaAECEnv"]

ObsDict = dict[str, npt.NDArray[Any]]
RENDER_MODES = ("ansi", "human")


class PandaAECEnv(AECEnv):  # type: ignore[misc, unused-ignore]
    """The AEC environment of one game (``"head"``, ``"year"`` or ``"spin"``) for ``players``
    (2–5), with ``rules`` (the game's rules object, as for ``panda_core.make``; a climbing game's
    preset is its name)."""

    metadata: dict[str, Any] = {  # noqa: RUF012  # replaced per instance in __init__
        "render_modes": list(RENDER_MODES),
        "name": "panda_core_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: GameName,
        players: int = 4,
        rules: AnyRules | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise RulesError(f"render_mode must be one of {list(RENDER_MODES)} or None")
        self.render_mode = render_mode
        self.table = Table(game, players, rules)
        self.metadata = {**self.metadata, "name": f"panda_{game}_v0"}
        self.possible_agents: list[str] = [agent_name(s) for s in range(players)]
        low, high, size = observation_bounds(game)
        self._observation_spaces: dict[str, spaces.Dict] = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, (size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (self.table.num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces: dict[str, spaces.Discrete] = {
            agent: spaces.Discrete(self.table.num_actions) for agent in self.possible_agents
        }
        self._rng: np.random.Generator | None = None
        self.agents: list[str] = []
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection: str = self.possible_agents[0]

    # ---- spaces ----

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        """`agent` if it is one of this env's agents, else an ArgumentError naming them."""
        if agent not in self._action_spaces:
            raise ArgumentError(
                f"unknown agent {shown(agent)}; the agents are {self.possible_agents}"
            )
        return agent

    # ---- episode ----

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: from ``seed`` when given (and reseed the env's generator with it),
        otherwise from the env's generator."""
        if seed is not None:
            deal = seed_arg(seed)  # before numpy sees it: one error for every bad seed
            self._rng = np.random.default_rng(deal)
        else:
            if self._rng is None:
                self._rng = np.random.default_rng()
            deal = int(self._rng.integers(0, 2**63))
        self.table.deal(deal)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        current = self.table.current_player
        assert current is not None, "a new game has a seat to move"
        self.agent_selection = agent_name(current)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> ObsDict:
        seat = self.possible_agents.index(self._known(agent))
        if self.table.current_player == seat:
            mask = self.table.legal_mask().astype(np.int8)
        else:
            mask = np.zeros(self.table.num_actions, dtype=np.int8)
        return {"observation": self.table.observation(seat), "action_mask": mask}

    def step(self, action: int | np.integer[Any] | None) -> None:
        """Play ``action`` for :attr:`agent_selection` (``None`` once that agent's game is over)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise RulesError(f"{agent} is to move: an action is needed, not None")
        # TypeError for a float or a string; IllegalMoveError, state unchanged, when not legal.
        self.table.play(self.table.action_arg(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.table.is_over:
            for a, reward in zip(
                self.possible_agents,
                final_rewards(self.table.winner, self.table.players),
                strict=True,
            ):
                self.rewards[a] = reward
                self.terminations[a] = True
        else:
            current = self.table.current_player
            assert current is not None
            self.agent_selection = agent_name(current)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---- rendering ----

    def render(self) -> str | None:
        """``"ansi"``: the text state; ``"human"``: print it. Without a render mode: warn."""
        return self.table.render_as(self.render_mode)

    def close(self) -> None:
        """Nothing to release."""
