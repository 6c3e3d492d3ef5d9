"""Batch simulation: built-in bots run entirely in Rust with the GIL released; a table with a
Python bot (:class:`panda_core.bots.Bot`) at any seat runs game by game in a Python loop."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core._core import (
    BOT_NAMES,
    ClimbSettings,
    HeadRules,
    RulesError,
    simulate_climb_batch,
    simulate_head_batch,
)
from panda_core.bots import Bot, bot_name, climb_settings, is_builtin_bot, nth_output, play_game

_Columns = tuple[
    npt.NDArray[np.int8], npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]
]

GAMES = ("head", "year", "spin")
"""Games the batch simulator plays: Panda Head and the two climbing presets."""


@dataclass(frozen=True)
class SimulationResult:
    """Per-game results of a batch, as numpy arrays indexed by game."""

    game: str
    players: int
    bots: tuple[str, ...]
    seed: int
    winner: npt.NDArray[np.int8]
    """Winning seat of each game."""
    rounds: npt.NDArray[np.uint32]
    """Rounds each game lasted (hands, in Panda Head)."""
    decisions: npt.NDArray[np.uint32]
    """Moves made in each game."""
    scores: npt.NDArray[np.uint32]
    """Final scores, shape ``(games, players)``."""
    seconds: float
    """Wall-clock time of the simulation."""

    @property
    def hands(self) -> npt.NDArray[np.uint32]:
        """Panda Head's name for :attr:`rounds`."""
        return self.rounds

    @property
    def games(self) -> int:
        return int(self.winner.shape[0])

    def win_rates(self) -> npt.NDArray[np.float64]:
        """Fraction of games won by each seat."""
        counts = np.bincount(self.winner.astype(np.int64), minlength=self.players)
        return counts / max(self.games, 1)

    def win_rates_by_bot(self) -> dict[str, float]:
        """Fraction of seats-games won, per bot name (a bot at several seats is pooled)."""
        per_seat = self.win_rates()
        out: dict[str, float] = {}
        for name in dict.fromkeys(self.bots):
            seats = [s for s, b in enumerate(self.bots) if b == name]
            out[name] = float(sum(per_seat[s] for s in seats) / len(seats))
        return out


def simulate(
    games: int,
    *,
    game: str = "head",
    players: int = 4,
    bots: Sequence[str | Bot[Any]] | None = None,
    seed: int = 0,
    rules: HeadRules | None = None,
    settings: ClimbSettings | None = None,
    threads: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Play ``games`` complete games of ``game`` (``"head"``, ``"year"`` or ``"spin"``), one bot
    per seat (default all ``"random"``).

    A seat is a built-in bot name (``BOT_NAMES``, or ``"ismcts:N"``) or a Python bot (a
    :class:`panda_core.bots.Bot`: ``bot(game, player) -> move``, optionally with ``reset(seed)``).
    When every seat is a built-in name the whole batch runs in Rust over ``threads`` threads; with a
    Python bot at any seat the games run one by one through :func:`panda_core.bots.play_game` (the
    built-in seats then ask the engine move by move; ``threads`` is ignored). Either way the result
    has the same type and fields, and ``bots`` holds each seat's name (:func:`~panda_core.bots.
    bot_name` for a Python bot).

    ``rules`` are Panda Head's variants; ``settings`` the climbing games' (its preset is set
    from ``game``).

    Game ``k`` is dealt from the k-th output of SplitMix64(``seed``) on both paths, so a Python bot
    sees the same deals as a built-in bot at its seat would. Results are the same for any
    ``threads`` and any ``chunk``. With ``progress``, the batch runs in chunks and
    ``progress(done, total)`` is called after each.
    """
    if game not in GAMES:
        raise RulesError(f"unknown game {game!r}; the batch simulator plays {list(GAMES)}")
    seats = tuple(bots) if bots is not None else ("random",) * players
    for bot in seats:
        if isinstance(bot, str):
            if not is_builtin_bot(bot):
                raise RulesError(f"unknown bot {bot!r}; built-in bots are {BOT_NAMES}")
        elif not callable(bot):
            raise RulesError(
                f"a bot is a built-in bot name or a callable bot(game, player), got {bot!r}"
            )
    if games < 0:
        raise RulesError(f"games must be >= 0, got {games}")
    step = chunk or (max(1, games // 100) if progress else max(games, 1))
    climb = None if game == "head" else climb_settings(game, settings)
    names = tuple(bot_name(b) for b in seats)
    builtin = [b for b in seats if isinstance(b, str)]
    python_loop = len(builtin) != len(seats)
    if python_loop:
        _check_python_request(players, seats, seed, threads)
    parts: list[_Columns] = []
    start = time.perf_counter()
    done = 0
    while done < games or not parts:
        size = min(step, games - done)
        if python_loop:
            parts.append(_play_python(game, players, seats, seed, rules, climb, done, size))
        elif climb is None:
            h = simulate_head_batch(size, players, builtin, seed, rules, threads, done)
            parts.append((h["winner"], h["hands"], h["decisions"], h["scores"]))
        else:
            c = simulate_climb_batch(size, players, builtin, seed, climb, threads, done)
            parts.append((c["winner"], c["rounds"], c["decisions"], c["scores"]))
        done += size
        if progress is not None:
            progress(done, games)
        if games == 0:
            break
    seconds = time.perf_counter() - start
    return SimulationResult(
        game=game,
        players=players,
        bots=names,
        seed=seed,
        winner=np.concatenate([p[0] for p in parts]),
        rounds=np.concatenate([p[1] for p in parts]),
        decisions=np.concatenate([p[2] for p in parts]),
        scores=np.concatenate([p[3] for p in parts]).reshape(games, players),
        seconds=seconds,
    )


def _check_python_request(
    players: int, seats: Sequence[object], seed: object, threads: int | None
) -> None:
    """The checks the Rust batch makes, for the Python-loop path (same messages)."""
    if not 2 <= players <= 5:
        raise RulesError(f"the games are for 2 to 5 players, got {players}")
    if len(seats) != players:
        raise RulesError(f"need one bot per player: {players} players, {len(seats)} bots")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise RulesError(f"seed must be an int in 0 .. 2**64 - 1, got {seed!r}")
    if threads is not None and threads < 1:
        raise RulesError(f"threads must be >= 1, got {threads}")


def _play_python(
    game: str,
    players: int,
    seats: Sequence[str | Bot[Any]],
    seed: int,
    rules: HeadRules | None,
    settings: ClimbSettings | None,
    first: int,
    size: int,
) -> _Columns:
    """Games ``first .. first + size`` of the batch, played by :func:`play_game`."""
    winner = np.zeros(size, dtype=np.int8)
    rounds = np.zeros(size, dtype=np.uint32)
    decisions = np.zeros(size, dtype=np.uint32)
    scores = np.zeros((size, players), dtype=np.uint32)
    for i in range(size):
        result = play_game(
            game,
            seats,
            players=players,
            seed=nth_output(seed, first + i),
            rules=rules,
            settings=settings,
        )
        winner[i] = result.winner
        rounds[i] = result.rounds
        decisions[i] = result.decisions
        scores[i] = result.scores
    return winner, rounds, decisions, scores.reshape(-1)
