"""A Gymnasium single-agent environment: one seat against built-in bots.

>>> import gymnasium as gym
>>> import panda_core.rl  # registers the ids
>>> env = gym.make("panda_core/Head-v0", players=4, opponents="heuristic")
>>> obs, info = env.reset(seed=1)
>>> done = False
>>> while not done:
...     action = env.action_space.sample(mask=info["action_mask"])
...     obs, reward, terminated, truncated, info = env.step(action)
...     done = terminated or truncated

* Observation: the game's float32 encoding for the agent's seat (``Box``, seats relative to the
  agent).
* Action: ``Discrete(24)`` action ids (Panda Head) or ``Discrete(NUM_CLIMB_ACTIONS)`` abstract
  actions (``year``, ``spin``). The legal actions are ``info["action_mask"]`` (int8, ready for
  ``action_space.sample(mask=...)``) and ``env.action_masks()`` (bool, the method MaskablePPO
  looks for).
* Opponents: built-in bots (``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ismcts:N"``,
  ``"neural"``, ``"neural:PATH"``), one name
  for every other seat or one per other seat; they move inside :meth:`PandaEnv.step` (and in
  :meth:`PandaEnv.reset` when they move before the agent), with seeds derived from the deal.
* Reward: 0 until the game ends, then +1 if the agent's seat won, -1 otherwise. One game is one
  episode (``terminated``); nothing truncates.
* Illegal actions (in the action space but not legal now): with ``illegal_action="lose"`` (the
  default) the episode ends at once with ``illegal_reward`` (-1), ``info["illegal_action"]`` true
  and the engine's reason in ``info["illegal_reason"]`` — PettingZoo's ``TerminateIllegalWrapper``
  convention, and what lets Gymnasium's ``check_env`` (which steps unmasked random actions) run.
  With ``illegal_action="raise"`` the step raises :class:`~panda_core.IllegalMoveError` and
  nothing changes. An action outside the action space always raises
  :class:`~panda_core.ArgumentError` (a ``ValueError``); one that is not an integer (a bool, a
  float, a string) a ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from panda_core._args import int_arg, seed_arg, shown
from panda_core._core import (
    ArgumentError,
    GameOverError,
    IllegalMoveError,
    RulesError,
    check_bot,
)
from panda_core._registry import DEFAULT_GAME, AnyRules, spec
from panda_core.rl._game import Table, observation_bounds

__all__ = ["PandaEnv"]

Obs = npt.NDArray[np.float32]
_OPPONENT_STREAM = 0x0990_0990_0990_0990


class PandaEnv(gym.Env[Obs, np.int64]):
    """One seat of ``game`` (``"head"``, ``"year"``, ``"spin"``) for ``players`` against built-in
    ``opponents``; ``seat`` is the agent's seat (``None``: a seat drawn at each reset)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        game: str = DEFAULT_GAME,
        players: int = 4,
        opponents: str | Sequence[str] = "heuristic",
        seat: int | None = 0,
        rules: AnyRules | None = None,
        illegal_action: Literal["lose", "raise"] = "lose",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        name = spec(game).name
        self.table = Table(name, players, rules)
        others = players - 1
        names = [opponents] * others if isinstance(opponents, str) else list(opponents)
        if len(names) != others:
            raise RulesError(f"need one opponent per other seat: {others}, got {len(names)}")
        for bot in names:
            if not isinstance(bot, str):
                raise RulesError(f"unknown bot {shown(bot)}; opponents are built-in bots")
            check_bot(bot)  # the engine's message: the bots it has, or why a policy file fails
        self.opponents: tuple[str, ...] = tuple(names)
        if seat is not None:
            seat = int_arg(seat, "seat")
            if not 0 <= seat < self.table.players:
                raise RulesError(f"seat must be in 0..{self.table.players - 1} or None, got {seat}")
        self.fixed_seat = seat
        self.seat = seat if seat is not None else 0
        if illegal_action not in ("lose", "raise"):
            raise RulesError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        self.illegal_action = illegal_action
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise TypeError(f"illegal_reward must be a number, got {shown(illegal_reward)}")
        self.illegal_reward = float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise RulesError(f"render_mode must be one of {self.metadata['render_modes']} or None")
        self.render_mode = render_mode
        low, high, size = observation_bounds(name)
        self.observation_space = spaces.Box(low, high, (size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.table.num_actions)
        self._decisions: dict[int, int] = {}
        self._done = True

    # ---- the seats ----

    def _opponent_of(self, seat: int) -> str:
        """Opponents fill the other seats in order, starting left of the agent."""
        n = self.table.players
        return self.opponents[(seat - self.seat - 1) % n]

    def _play_opponents(self) -> None:
        """Let the built-in bots move until it is the agent's turn or the game is over."""
        while True:
            seat = self.table.current_player
            if seat is None or seat == self.seat:
                return
            k = self._decisions.get(seat, 0)
            self._decisions[seat] = k + 1
            seed = self.table.bot_seed(_OPPONENT_STREAM, seat, k)
            self.table.play_builtin(self._opponent_of(seat), seed)

    def _result(self) -> float:
        winner = self.table.winner
        if winner is None:
            return 0.0
        return 1.0 if winner == self.seat else -1.0

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks().astype(np.int8),
            "seat": self.seat,
            "current_player": self.table.current_player,
        }

    # ---- the Gymnasium API ----

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Deal a new game: from ``seed`` when given (the deal ``make(game, players, seed)``
        would give), otherwise from the env's generator."""
        if seed is not None:
            seed = seed_arg(seed)  # before Gymnasium sees it: one error for every bad seed
        super().reset(seed=seed)
        deal = seed if seed is not None else int(self.np_random.integers(0, 2**63))
        self.table.deal(deal)
        if self.fixed_seat is None:
            self.seat = int(self.np_random.integers(0, self.table.players))
        self._decisions = {}
        self._done = False
        self._play_opponents()
        if self.table.is_over:  # cannot happen: the agent plays in every round
            raise RulesError("the game ended before the agent's first move")
        if self.render_mode == "human":
            self.render()
        return self.table.observation(self.seat), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play ``action`` for the agent, then the opponents until the agent's next turn."""
        if self._done:
            raise GameOverError("the episode is over: call reset()")
        index = self.table.action_arg(action)
        if not 0 <= index < self.table.num_actions:
            raise ArgumentError(f"actions are 0..{self.table.num_actions - 1}, got {shown(index)}")
        try:
            self.table.play(index)
        except IllegalMoveError as err:
            if self.illegal_action == "raise" or isinstance(err, GameOverError):
                raise
            self._done = True
            info = self._info()
            info["action_mask"] = np.zeros(self.table.num_actions, dtype=np.int8)
            info["illegal_action"] = True
            info["illegal_reason"] = str(getattr(err, "reason", err))
            return self.table.observation(self.seat), self.illegal_reward, True, False, info
        self._play_opponents()
        terminated = self.table.is_over
        self._done = terminated
        if self.render_mode == "human":
            self.render()
        return self.table.observation(self.seat), self._result(), terminated, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The agent's legal actions now (bool; all false once the episode is over)."""
        if self._done or self.table.current_player != self.seat:
            return np.zeros(self.table.num_actions, dtype=np.bool_)
        return self.table.legal_mask()

    def render(self) -> str | None:
        """``"ansi"``: the text state; ``"human"``: print it."""
        return self.table.render_as(self.render_mode)
