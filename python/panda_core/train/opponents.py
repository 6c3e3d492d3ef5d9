"""Opponent envs (``TrainSettings.opponents``): envs where the learner plays one seat per game
against a built-in bot or a past self in the others, and only the learner's decisions are
learned from.

Each env's kind is fixed for the whole run (:meth:`TrainSettings.opponent_envs`). In an opponent
env the learner's seat is the game's id modulo the players: game ids are handed out in order as
games end, so the learner sits in every seat about equally often, and the seat is a function of
state the checkpoint already holds.

* A built-in bot's moves come from the env (``bot_moves``, in Rust over the env's threads), once
  per step and bot only when one of its envs has it to move; its seed is drawn from this
  object's generator (``SeedSequence([seed, 2])``, saved in the checkpoint), so a run is
  reproducible and resumes exactly.
* A past self is the network's parameters at a snapshot (:meth:`Opponents.snapshot`, every
  ``past_every`` decisions; the initial weights before the first). Each game of a ``past`` env
  draws one of the last :data:`PAST_SELVES` snapshots when it starts and plays it greedily (no
  exploration) to its end: a snapshot stays while a game in progress plays it, even once newer
  ones pushed it out of the last ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core.train.network import Params
from panda_core.train.settings import PAST_SELVES

__all__ = ["PAST", "SELF", "Opponents", "opponent_rng"]

SELF = "self"
PAST = "past"
NO_DRAW = -1
"""The draw of an env that plays no past self."""


def opponent_rng(seed: int) -> np.random.Generator:
    """The generator of a run's opponents (bots' seeds, past selves' draws): a stream of its
    own, so that a self-play run draws what it always drew."""
    state = np.random.SeedSequence([seed, 2]).generate_state(1, np.uint64)
    return np.random.default_rng(int(state[0]))


class Opponents:
    """Who plays the non-learner seats of each env, and the past selves."""

    def __init__(
        self,
        kinds: tuple[str, ...],
        rng: np.random.Generator,
        past: dict[int, Params],
        next_generation: int,
        draws: npt.NDArray[np.int64],
    ) -> None:
        self.kinds = kinds
        """Each env's kind: ``"self"``, ``"past"`` or a built-in bot's name."""
        self.bots = sorted({k for k in kinds if k not in (SELF, PAST)})
        self.rng = rng
        self.past = past
        """The snapshots kept, by generation (0: the initial weights)."""
        self.next_generation = next_generation
        self.draws = draws
        """Each env's game's snapshot (a generation of :attr:`past`; :data:`NO_DRAW` if the env
        plays no past self)."""
        array = np.array(kinds, dtype=object)
        self.opponent = array != SELF
        self.is_past = array == PAST
        self.of_bot = {bot: array == bot for bot in self.bots}

    @classmethod
    def start(cls, kinds: tuple[str, ...], seed: int, initial: Params) -> Opponents:
        """The opponents at the start of a run (the past selves: the initial weights)."""
        draws = np.full(len(kinds), NO_DRAW, dtype=np.int64)
        opponents = cls(kinds, opponent_rng(seed), {0: initial}, 1, draws)
        if not opponents.is_past.any():
            opponents.past, opponents.next_generation = {}, 0
        opponents.start_games(np.arange(len(kinds)))
        return opponents

    def learner_to_move(
        self, player: npt.NDArray[np.int64], games: npt.NDArray[np.int64], players: int
    ) -> npt.NDArray[np.bool_]:
        """Per env: the seat to move is the learner's (every seat of a self-play env is)."""
        mine: npt.NDArray[np.bool_] = ~self.opponent | (player == games % players)
        return mine

    def start_games(self, envs: npt.NDArray[np.int64]) -> None:
        """New games started in ``envs``: each past env among them draws a past self."""
        starting = envs[self.is_past[envs]]
        if starting.size:
            newest = np.array(sorted(self.past)[-PAST_SELVES:], dtype=np.int64)
            self.draws[starting] = newest[self.rng.integers(newest.size, size=starting.size)]

    def snapshot(self, params: Params) -> None:
        """Keep ``params`` as the newest past self; forget the snapshots that are neither among
        the last :data:`PAST_SELVES` nor played by a game in progress."""
        self.past[self.next_generation] = params  # jax arrays are immutable: no copy needed
        self.next_generation += 1
        keep = set(sorted(self.past)[-PAST_SELVES:]) | set(self.draws[self.is_past].tolist())
        self.past = {g: p for g, p in self.past.items() if g in keep}

    def moves(
        self,
        env: Any,
        theirs: npt.NDArray[np.bool_],
        greedy: Callable[[Params], Any],
        moves: npt.NDArray[np.integer],
        from_index: Callable[[npt.NDArray[np.int64]], Any] | None = None,
    ) -> npt.NDArray[np.int64]:
        """``moves`` (one per env, as the actor steps the env: action ids or move indices) with
        the opponents' in the envs ``theirs`` (those whose seat to move is an opponent's): a
        built-in bot's from ``bot_moves`` (move indices; ``from_index`` turns them into the
        actor's moves), called only when one of its envs needs a move, its result used only
        there; a past self's from ``greedy(params)`` (every env's greedy move under
        ``params``)."""
        chosen_moves = np.array(moves, dtype=np.int64)
        for bot in self.bots:
            chosen = theirs & self.of_bot[bot]
            if chosen.any():
                seed = int(self.rng.integers(2**64, dtype=np.uint64))
                picked = env.bot_moves(bot, seed)
                if from_index is not None:
                    picked = from_index(picked)
                chosen_moves[chosen] = picked[chosen]
        past = theirs & self.is_past
        if past.any():
            for generation in np.unique(self.draws[past]).tolist():
                chosen = past & (self.draws == generation)
                chosen_moves[chosen] = greedy(self.past[generation])[chosen]
        return chosen_moves
