"""What the trainer needs to know about a game, read from the registry in ONE place.

The trainer is written once over the game contract; the only thing that differs between the
games is the policy *kind* (docs/train_your_agent.md, "What the network sees"):

* ``"action-values"`` (Panda Head): the network reads the observation and outputs one value per
  fixed action id; the bot plays the legal action of largest value.
* ``"move-scores"`` (``year``, ``spin``): the network reads one (observation, legal-move
  features) row per legal move and outputs one score; the bot plays the move of largest score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from panda_core._registry import GameName, spec

__all__ = ["GameInfo", "PolicyKind", "game_info"]

PolicyKind: TypeAlias = Literal["action-values", "move-scores"]


@dataclass(frozen=True)
class GameInfo:
    """One game as the trainer sees it."""

    name: GameName
    kind: PolicyKind
    observation_size: int
    move_features: int
    """Floats per legal-move row (0 for an action-values game)."""
    num_actions: int
    observation_layout: str
    move_features_layout: str | None
    """``None`` for an action-values game (it reads no move features)."""

    @property
    def input_size(self) -> int:
        """Width of the network's input: the observation, plus one move's features when the
        network scores moves."""
        return self.observation_size + self.move_features

    @property
    def output_size(self) -> int:
        """One value per action id, or one score per move row."""
        return self.num_actions if self.kind == "action-values" else 1

    def new_vector_env(self, num_envs: int, players: int, threads: int | None) -> Any:
        """The game's vector env (``HeadVectorEnv`` or ``ClimbVectorEnv``) with default rules."""
        return spec(self.name).new_vector_env(num_envs, players, threads=threads)


def game_info(name: GameName) -> GameInfo:
    """The trainer's view of the game called ``name`` (checked by the registry)."""
    game = spec(name)
    return GameInfo(
        name=game.name,
        kind=game.policy_kind,
        observation_size=game.observation_size,
        move_features=game.move_features,
        num_actions=game.num_actions,
        observation_layout=game.observation_layout,
        move_features_layout=game.move_features_layout,
    )
