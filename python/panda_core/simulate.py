"""Batch simulation with built-in bots, run entirely in Rust with the GIL released."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    bots: Sequence[str] | None = None,
    seed: int = 0,
    rules: HeadRules | None = None,
    settings: ClimbSettings | None = None,
    threads: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Play ``games`` complete games of ``game`` (``"head"``, ``"year"`` or ``"spin"``) with
    built-in bots (names in ``BOT_NAMES``, one per seat; default all ``"random"``).

    ``rules`` are Panda Head's variants; ``settings`` the climbing games' (its preset is set
    from ``game``).

    Game ``k`` is dealt from the k-th output of SplitMix64(``seed``), so results are the same
    for any ``threads`` and any ``chunk``. With ``progress``, the batch runs in chunks and
    ``progress(done, total)`` is called after each.
    """
    if game not in GAMES:
        raise RulesError(f"unknown game {game!r}; the batch simulator plays {list(GAMES)}")
    seats = tuple(bots) if bots is not None else ("random",) * players
    for name in seats:
        if name not in BOT_NAMES:
            raise RulesError(f"unknown bot {name!r}; built-in bots are {BOT_NAMES}")
    if games < 0:
        raise RulesError(f"games must be >= 0, got {games}")
    step = chunk or (max(1, games // 100) if progress else max(games, 1))
    climb = None
    if game != "head":
        base = settings or ClimbSettings()
        climb = ClimbSettings(
            preset=game,  # type: ignore[arg-type]  # checked against GAMES above
            panda_mood=base.panda_mood,
            first_player=base.first_player,
            deck=base.deck,
        )
    parts: list[_Columns] = []
    start = time.perf_counter()
    done = 0
    while done < games or not parts:
        size = min(step, games - done)
        if climb is None:
            h = simulate_head_batch(size, players, list(seats), seed, rules, threads, done)
            parts.append((h["winner"], h["hands"], h["decisions"], h["scores"]))
        else:
            c = simulate_climb_batch(size, players, list(seats), seed, climb, threads, done)
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
        bots=seats,
        seed=seed,
        winner=np.concatenate([p[0] for p in parts]),
        rounds=np.concatenate([p[1] for p in parts]),
        decisions=np.concatenate([p[2] for p in parts]),
        scores=np.concatenate([p[3] for p in parts]).reshape(games, players),
        seconds=seconds,
    )
