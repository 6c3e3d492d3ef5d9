"""One game behind the interface the environments need: sizes, observations, masks, actions.

Every game has a fixed action space (``game.num_actions``: Panda Head's 24 action ids, the
climbing games' abstract actions, docs/rl_interface.md §2), stepped with ``game.apply(id)``.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import numpy.typing as npt

from panda_core._args import players_arg, shown
from panda_core._core import nth_output
from panda_core._registry import AnyGame, AnyRules, GameName, spec, spec_of

_BIG = float(np.finfo(np.float32).max)
"""Observation upper bound: every entry is a 0/1 flag or a non-negative count or fraction scaled
to about 0–1, but not clipped (a score over the threshold, a hand over its usual size), so the
boxes are [0, the largest finite float32]."""


def observation_size(game: GameName) -> int:
    return spec(game).observation_size


def num_actions(game: GameName) -> int:
    return spec(game).num_actions


def observation_bounds(game: GameName) -> tuple[float, float, int]:
    """``(low, high, size)`` of the observation box of ``game``."""
    return 0.0, _BIG, observation_size(game)


def agent_name(seat: int) -> str:
    return f"player_{seat}"


class Table:
    """A game of ``game`` for ``players`` that can be re-dealt, observed and stepped by action."""

    def __init__(
        self,
        game: GameName,
        players: int,
        rules: AnyRules | None = None,
    ) -> None:
        self.spec = spec(game)
        self.name: GameName = self.spec.name
        self.players = players_arg(players)
        self.rules = self.spec.rules(rules)
        self.observation_size = self.spec.observation_size
        self.num_actions = self.spec.num_actions
        self.seed = 0
        self.game: AnyGame = self.spec.new_game(self.players, 0, self.rules)

    def deal(self, seed: int) -> None:
        """Start a new game dealt from ``seed``."""
        self.seed = seed
        self.game = self.spec.new_game(self.players, seed, self.rules)

    @property
    def current_player(self) -> int | None:
        return self.game.current_player

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def winner(self) -> int | None:
        return self.game.winner

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        return np.asarray(self.game.observation(seat), dtype=np.float32)

    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the seat to move (all false once the game is over)."""
        return np.asarray(self.game.legal_action_mask(), dtype=np.bool_)

    def action_arg(self, action: object) -> int:
        """An action as an ``int``: an int, a numpy integer or a 0-d integer array. Bools, floats
        (NaN too) and strings are a ``TypeError``: truncating ``0.7`` or parsing ``"3"`` would
        play a move nobody chose."""
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
            raise TypeError(
                f"an action is an int in 0..{self.num_actions - 1}, got "
                f"{type(action).__name__} {shown(action)}"
            )
        return int(action)

    def play(self, action: int) -> None:
        """Play ``action`` for the seat to move; :class:`IllegalMoveError` (state unchanged) when
        it is not legal."""
        self.game.apply(action)

    def play_builtin(self, bot: str, seed: int) -> None:
        """Let built-in ``bot`` move for the seat to move, with ``seed``."""
        self.game.apply(self.game.bot_move(bot, seed))  # type: ignore[arg-type]

    def bot_seed(self, stream: int, seat: int, decision: int) -> int:
        """The seed of a built-in opponent's ``decision``-th move at ``seat`` in this deal."""
        return nth_output(nth_output(self.seed ^ stream, seat), decision)

    def render(self) -> str:
        """A few lines of text: scores, the seat to move and what it holds, the table."""
        return render_text(self.game)

    def render_as(self, mode: str | None) -> str | None:
        """Both environments' ``render()``: ``"ansi"`` returns the text, ``"human"`` prints it;
        without a render mode, warn (the Gymnasium and PettingZoo convention)."""
        if mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        text = self.render()
        if mode == "human":
            print(text)
            return None
        return text


def render_text(game: AnyGame) -> str:
    """A short text picture of ``game`` from the point of view of the seat to move."""
    return spec_of(game).render(game)


def final_rewards(winner: int | None, players: int) -> list[float]:
    """+1 for the winner, -1 for every other seat (all zero while the game goes on)."""
    if winner is None:
        return [0.0] * players
    return [1.0 if seat == winner else -1.0 for seat in range(players)]


__all__ = [
    "Table",
    "agent_name",
    "final_rewards",
    "num_actions",
    "observation_bounds",
    "observation_size",
    "render_text",
]
