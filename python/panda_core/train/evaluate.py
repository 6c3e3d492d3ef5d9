"""How strong a policy file is: its win rate against three heuristic bots and against three
random bots, the policy taking each seat in turn on the same deals.

The policy plays as the engine's built-in bot ``neural:PATH`` (the Rust forward pass, the whole
batch in Rust), which is also the proof that the file the trainer wrote loads and plays.
:class:`PolicyBot` is the same policy as a Python bot, from the file, by the trainer's rules: the
reference the tests hold the Rust bot to, move for move.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from panda_core._core import check_bot
from panda_core._registry import GameName, spec
from panda_core.simulate import simulate
from panda_core.train.policy_file import PolicyFile

__all__ = ["OPPONENTS", "PolicyBot", "WinRate", "evaluate", "policy_seat", "win_rates"]

OPPONENTS = ("heuristic", "random")
"""The line-ups of an evaluation: the policy against three (players - 1) of each."""
Z95 = 1.959964
"""Two-sided 95% quantile of the normal distribution."""


@dataclass(frozen=True)
class WinRate:
    """Games won out of games played, with a 95% Wilson interval."""

    wins: int
    games: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else math.nan

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson score interval (sound near 0 and 1, unlike rate ± 1.96·se)."""
        if not self.games:
            return (math.nan, math.nan)
        n, p = self.games, self.rate
        centre = (p + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        half = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
        return (centre - half, centre + half)


class PolicyBot:
    """A policy file as a Python bot (``bot(game, player) -> move``): the legal action of
    largest value, or the legal move of largest score; ties to the lowest id / first move, as
    the Rust bot plays."""

    def __init__(self, policy: PolicyFile) -> None:
        self.policy = policy
        self.kind = policy.metadata["kind"]

    def __call__(self, game: Any, player: int) -> Any:
        obs = game.observation(player)
        if self.kind == "action-values":
            values = self.policy.forward(obs[None, :])[0]
            return int(np.argmax(np.where(game.legal_action_mask(), values, -np.inf)))
        moves = game.legal_move_features()
        rows = np.concatenate([np.broadcast_to(obs, (moves.shape[0], obs.shape[0])), moves], 1)
        return game.legal_moves()[int(np.argmax(self.policy.forward(rows)[:, 0]))]


def policy_seat(path: str | os.PathLike[str]) -> str:
    """The built-in bot that plays the policy file at ``path``, checked by the engine (a bad
    file is a ``PolicyError`` saying why)."""
    return check_bot(f"neural:{Path(path)}")


def evaluate(
    path: str | os.PathLike[str],
    game: GameName,
    players: int,
    games: int,
    seed: int,
    threads: int | None = None,
) -> dict[str, WinRate]:
    """Win rates of the policy at ``path`` against ``players - 1`` bots of each of
    :data:`OPPONENTS`, over about ``games`` games each: ``ceil(games / players)`` deals from
    ``seed``, each played once with the policy in every seat."""
    spec(game)
    return win_rates(policy_seat(path), game, players, games, seed, threads)


def win_rates(
    bot: str,
    game: GameName,
    players: int,
    games: int,
    seed: int,
    threads: int | None = None,
    opponents: tuple[str, ...] = OPPONENTS,
) -> dict[str, WinRate]:
    """Win rates of the built-in ``bot`` on the deals :func:`evaluate` plays (so a search bot's
    line can be drawn beside a policy's curve, on the same deals)."""
    deals = -(-games // players)
    out = {}
    for opponent in opponents:
        wins = 0
        for position in range(players):
            bots: list[Any] = [opponent] * players
            bots[position] = bot
            result = simulate(
                deals, game=game, players=players, bots=bots, seed=seed, threads=threads
            )
            wins += int(np.count_nonzero(result.winner == position))
        out[opponent] = WinRate(wins, deals * players)
    return out
