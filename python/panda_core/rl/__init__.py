"""Reinforcement-learning environments (install the extra: ``pip install 'panda-core[rl]'``).

* PettingZoo AEC environments, every seat an agent: :class:`PandaAECEnv`
  (``PandaAECEnv("year", players=4)``).
* A Gymnasium single-agent environment against built-in bots: :class:`PandaEnv`, registered as
  ``panda_core/Head-v0``, ``panda_core/Year-v0`` and ``panda_core/Spin-v0``
  (``gymnasium.make("panda_core/Head-v0", players=4, opponents="heuristic")``).

Rewards everywhere: 0 until the game ends, then +1 for the winner and -1 for every other seat
(the same convention as the vector environments, ``HeadVectorEnv`` and ``ClimbVectorEnv``). The
user guide is ``docs/agents.md``.
"""

from __future__ import annotations

import gymnasium

from panda_core._registry import GAMES
from panda_core.rl.gymnasium_env import PandaEnv
from panda_core.rl.pettingzoo_env import PandaAECEnv

__all__ = ["ENV_IDS", "PandaAECEnv", "PandaEnv"]

ENV_IDS: dict[str, str] = {game: f"panda_core/{game.capitalize()}-v0" for game in GAMES}
"""The Gymnasium ids of :class:`PandaEnv`, per game (``panda_core/Head-v0``, ...)."""


def _register() -> None:
    for game, env_id in ENV_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="panda_core.rl.gymnasium_env:PandaEnv",
                kwargs={"game": game},
            )


_register()
