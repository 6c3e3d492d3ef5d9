"""Batch simulation: built-in bots run entirely in Rust with the GIL released; a table with a
Python bot (:class:`panda_core.bots.Bot`), a protocol bot (``exec:COMMAND``) or a language model
(``llm:MODEL``) at any seat runs game by game in a Python loop."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core._args import players_arg
from panda_core._core import (
    MAX_BATCH_GAMES,
    ArgumentError,
    RulesError,
    check_bot,
    check_seed,
    check_threads,
    nth_output,
)
from panda_core._registry import DEFAULT_GAME, GAMES, AnyRules, GameSpec, spec
from panda_core.bot_import import bot_spec_kind, make_bot
from panda_core.bots import Bot, bot_name, names_builtin, play_game

_Columns = tuple[
    npt.NDArray[np.int8], npt.NDArray[np.uint32], npt.NDArray[np.uint32], npt.NDArray[np.uint32]
]
"""``(winner, rounds, decisions, scores)``: what a simulation keeps of each game."""

__all__ = [
    "CHUNK_SECONDS",
    "DEFAULT_CHUNK",
    "GAMES",
    "MAX_GAMES",
    "SimulationResult",
    "pooled_win_rates",
    "simulate",
    "simulate_chunks",
]


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
    first_game: int = 0
    """Index of the first game (a chunk of :func:`simulate_chunks` starts there)."""

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
        return pooled_win_rates(self.bots, self.win_rates())


def pooled_win_rates(bots: Sequence[str], per_seat: npt.NDArray[np.float64]) -> dict[str, float]:
    """Seat win rates pooled per bot name: a bot at several seats gets their mean."""
    out: dict[str, float] = {}
    for name in dict.fromkeys(bots):
        seats = [s for s, b in enumerate(bots) if b == name]
        out[name] = float(sum(per_seat[s] for s in seats) / len(seats))
    return out


MAX_GAMES = 2**40
"""Most games one :func:`simulate` or :func:`simulate_chunks` call plays (about 12 days of play
at a million games per second: a bound on mistakes, not on real runs)."""

DEFAULT_CHUNK = 2**20
"""Most games per batch call without ``chunk``: about a second of random play on two cores,
25–30 MB of per-game results."""

CHUNK_SECONDS = 0.25
"""Without ``chunk``, :func:`simulate_chunks` (and :func:`simulate` with ``progress``) sizes each
chunk to take about this long, from the speed of the chunks before it: a progress bar moves
smoothly and an interrupted run has finished chunks to show, whatever the bots cost."""


def simulate(
    games: int,
    *,
    game: str = DEFAULT_GAME,
    players: int = 4,
    bots: Sequence[str | Bot[Any]] | str | None = None,
    seed: int = 0,
    rules: AnyRules | None = None,
    threads: int | None = None,
    chunk: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimulationResult:
    """Play ``games`` complete games of ``game`` (``"head"``, ``"year"`` or ``"spin"``), one bot
    per seat (default all ``"random"``; a single bot name, such as ``bots="heuristic"``, sits at
    every seat).

    A seat is a built-in bot name (``BOT_NAMES``, or ``"ismcts:N"``), a Python bot (a
    :class:`panda_core.bots.Bot`: ``bot(seat, player) -> move``, optionally with ``reset(seed)``,
    or its import path ``"package.module:attr"``, run in this process), a protocol bot
    ``"exec:COMMAND"`` (a subprocess, started once and reused for every game; see
    docs/bot_protocol.md) or a language model ``"llm:MODEL"``. When every seat is a built-in
    name the whole batch runs in Rust over ``threads`` threads; otherwise the games run one by one
    through :func:`panda_core.bots.play_game` (the built-in seats then ask the engine move by
    move; ``threads`` is ignored). Either way the result has the same type and fields, and
    ``bots`` holds each seat's name (the spec as given, :func:`~panda_core.bots.bot_name` for a
    bot object).

    ``rules`` are the game's rules object (``HeadRules`` / ``ClimbSettings``; a climbing game's
    preset is set from ``game``), as for :func:`panda_core.make`.

    Game ``k`` is dealt from the k-th output of SplitMix64(``seed``) on both paths, so a Python bot
    sees the same deals as a built-in bot at its seat would. Results are the same for any
    ``threads`` and any ``chunk``. With ``progress``, the batch runs in chunks (of about
    :data:`CHUNK_SECONDS` each unless ``chunk`` is given) and ``progress(done, total)`` is called
    after each.

    The result holds every game's row: about 10 + 4 × ``players`` bytes a game (2.5 GB for 10^8
    four-player games), allocated before any game is played, so a request too large for memory
    fails at once with :class:`~panda_core.ArgumentError`. For longer runs iterate
    :func:`simulate_chunks` and keep what you need (``panda-core simulate`` does). Ctrl-C stops the
    run within a game per thread (``KeyboardInterrupt``).
    """
    request = _Request.check(games, game, players, bots, seed, threads, chunk, progress)
    winner, rounds, decisions, scores = _allocate(request.games, request.players)
    start = time.perf_counter()
    for part in _chunks(request, rules):
        lo, hi = part.first_game, part.first_game + part.games
        winner[lo:hi] = part.winner
        rounds[lo:hi] = part.rounds
        decisions[lo:hi] = part.decisions
        scores[lo:hi] = part.scores
        if progress is not None:
            progress(hi, request.games)
    return SimulationResult(
        game=game,
        players=request.players,
        bots=request.names,
        seed=seed,
        winner=winner,
        rounds=rounds,
        decisions=decisions,
        scores=scores,
        seconds=time.perf_counter() - start,
    )


def simulate_chunks(
    games: int,
    *,
    game: str = DEFAULT_GAME,
    players: int = 4,
    bots: Sequence[str | Bot[Any]] | str | None = None,
    seed: int = 0,
    rules: AnyRules | None = None,
    threads: int | None = None,
    chunk: int | None = None,
) -> Iterator[SimulationResult]:
    """The games of :func:`simulate` (same arguments, same games), as consecutive chunks: each a
    :class:`SimulationResult` whose ``first_game`` says where it starts and whose ``seconds`` is
    its own time. Chunks hold ``chunk`` games, or without ``chunk`` as many as take about
    :data:`CHUNK_SECONDS` (at most :data:`DEFAULT_CHUNK`). Memory stays bounded by one chunk
    whatever ``games`` is; stopping the iteration (or Ctrl-C) stops the run.
    """
    request = _Request.check(games, game, players, bots, seed, threads, chunk, True)
    yield from _chunks(request, rules)


@dataclass(frozen=True)
class _Request:
    """The checked arguments of a simulation."""

    games: int
    game: str
    players: int
    seats: tuple[str | Bot[Any], ...]
    names: tuple[str, ...]
    seed: int
    threads: int | None
    chunk: int
    """Games per chunk; 0: sized to take about CHUNK_SECONDS."""

    @staticmethod
    def check(
        games: object,
        game: str,
        players: object,
        bots: Sequence[str | Bot[Any]] | str | None,
        seed: int,
        threads: int | None,
        chunk: object,
        progress: object,
    ) -> _Request:
        spec(game)  # an unknown game: the registry's RulesError naming the games
        n_games = _count("games", games, 0, MAX_GAMES)
        n_players = players_arg(players)
        seats = _seats(bots, n_players)
        if chunk is None:
            size = 0 if progress else DEFAULT_CHUNK
        else:
            size = _count("chunk", chunk, 1, MAX_BATCH_GAMES)
        if any(not _names_builtin(s) for s in seats):
            _check_python_request(n_players, seats, seed, threads)
        return _Request(
            games=n_games,
            game=game,
            players=n_players,
            seats=seats,
            names=tuple(bot_name(b) for b in seats),
            seed=seed,
            threads=threads,
            chunk=size,
        )


def _count(what: str, value: object, lo: int, hi: int) -> int:
    """An int argument (numpy integers too, never a bool) in ``lo..=hi``."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{what} must be an int, got {type(value).__name__} {value!r:.60}")
    number = int(value)
    if not lo <= number <= hi:
        shown = str(number) if abs(number) < 10**30 else f"an integer of {len(str(number))} digits"
        raise ArgumentError(f"{what} must be in {lo}..={hi}, got {shown}")
    return number


def _seats(bots: Sequence[str | Bot[Any]] | str | None, players: int) -> tuple[str | Bot[Any], ...]:
    """One bot per seat: a sequence as given; a single name (a ``str`` is a sequence of letters,
    not of bots) or no bots fill every seat."""
    if bots is None:
        bots = "random"
    seats: tuple[str | Bot[Any], ...] = (bots,) * players if isinstance(bots, str) else tuple(bots)
    for bot in seats:
        if isinstance(bot, str):
            if names_builtin(bot) or bot_spec_kind(bot) is None:
                check_bot(bot)  # the engine's message for a name it does not know
        elif not callable(bot):
            raise RulesError(
                f"a bot is a built-in bot name or a callable bot(game, player), got {bot!r:.60}"
            )
    return seats


def _allocate(games: int, players: int) -> _Columns:
    """Result columns for every game, or an ArgumentError when they cannot fit in memory."""
    try:
        return (
            np.empty(games, dtype=np.int8),
            np.empty(games, dtype=np.uint32),
            np.empty(games, dtype=np.uint32),
            np.empty((games, players), dtype=np.uint32),
        )
    except MemoryError:
        size = games * (9 + 4 * players) / 1e9
        raise ArgumentError(
            f"not enough memory for the per-game results of {games} games (about {size:,.1f} "
            "GB); use simulate_chunks() to stream them"
        ) from None


def _chunks(request: _Request, rules: AnyRules | None) -> Iterator[SimulationResult]:
    """The games of ``request`` in chunks of ``request.chunk`` games (0: timed chunks)."""
    game = spec(request.game)
    rules_of_game = game.rules(rules)
    python_loop = any(not _names_builtin(s) for s in request.seats)
    builtin = [s for s in request.seats if isinstance(s, str)]
    made: list[Any] = []
    seats = request.seats
    if python_loop:  # the bots of the specs, made once for every game (a protocol bot's
        seats = tuple(_seat_bot(s, made) for s in request.seats)  # process plays them all)
    try:
        yield from _chunks_of(request, game, rules_of_game, seats, python_loop, builtin)
    finally:
        for bot in made:
            close = getattr(bot, "close", None)
            if callable(close):
                close()


def _names_builtin(seat: object) -> bool:
    return isinstance(seat, str) and names_builtin(seat)


def _seat_bot(seat: str | Bot[Any], made: list[Any]) -> str | Bot[Any]:
    """A seat as the Python loop takes it: a built-in name or a bot object (made from its spec,
    and noted in ``made`` to be closed at the end)."""
    if not isinstance(seat, str) or names_builtin(seat):
        return seat
    bot = make_bot(seat)
    made.append(bot)
    return bot


def _chunks_of(
    request: _Request,
    game: GameSpec,
    rules_of_game: AnyRules,
    seats: tuple[str | Bot[Any], ...],
    python_loop: bool,
    builtin: list[str],
) -> Iterator[SimulationResult]:
    done = 0
    step = request.chunk or 64
    while done < request.games or (done == 0 and request.games == 0):
        size = min(step, request.games - done)
        start = time.perf_counter()
        if python_loop:
            cols = _play_python(
                request.game,
                request.players,
                seats,
                request.seed,
                rules_of_game,
                done,
                size,
            )
        else:
            cols = game.simulate_batch(
                size, request.players, builtin, request.seed, rules_of_game, request.threads, done
            )[:4]
        seconds = time.perf_counter() - start
        yield SimulationResult(
            game=request.game,
            players=request.players,
            bots=request.names,
            seed=request.seed,
            winner=cols[0],
            rounds=cols[1],
            decisions=cols[2],
            scores=cols[3].reshape(size, request.players),
            seconds=seconds,
            first_game=done,
        )
        done += size
        if not request.chunk:
            step = _next_chunk(size, seconds)
        if request.games == 0:
            break


def _next_chunk(size: int, seconds: float) -> int:
    """The size of a chunk that takes about CHUNK_SECONDS, from the last one (``size`` games in
    ``seconds``); growing at most 8-fold at a time, so one fast chunk cannot make a huge one."""
    wanted = size * CHUNK_SECONDS / max(seconds, 1e-6)
    return max(1, min(int(wanted), 8 * size, DEFAULT_CHUNK))


def _check_python_request(
    players: int, seats: Sequence[object], seed: object, threads: int | None
) -> None:
    """The checks the Rust batch makes, for the Python-loop path: the engine's own."""
    if len(seats) != players:
        raise RulesError(f"need one bot per player: {players} players, {len(seats)} bots")
    check_seed(seed)
    check_threads(threads)


def _play_python(
    game: str,
    players: int,
    seats: Sequence[str | Bot[Any]],
    seed: int,
    rules: AnyRules,
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
        )
        winner[i] = result.winner
        rounds[i] = result.rounds
        decisions[i] = result.decisions
        scores[i] = result.scores
    return winner, rounds, decisions, scores.reshape(-1)
