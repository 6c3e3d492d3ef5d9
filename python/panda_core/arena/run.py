"""Running an arena: :func:`arena` (the Python entry point) and :func:`play_arena` (its games).

The games are independent tasks (:mod:`panda_core.arena.runner`) run by a backend
(:mod:`panda_core.parallel`): worker processes on every core, Ray tasks on a cluster, or this
process. Results arrive in any order, are kept by game index and written to the results folder as
they come, so neither the backend, the worker count nor an interruption changes what the arena
finds: the report is a function of the finished games alone.

A task that fails as a whole (its worker died, or it ran past its time) is played again one game
at a time, in fresh workers, so that the failure is pinned on one game, which is forfeited; every
other game of the task gets its real result.
"""

from __future__ import annotations

import itertools
import math
import os
import pickle
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from panda_core._args import int_arg, players_arg, seed_arg, shown
from panda_core._registry import DEFAULT_GAME, AnyRules, GameName, spec
from panda_core.arena.checks import BadResult, checked_result
from panda_core.arena.entrants import contain, parse_entrants, with_policies
from panda_core.arena.errors import ArenaError, ArenaWarning
from panda_core.arena.model import ArenaSettings, Match, MatchResult, Permutations
from panda_core.arena.runner import ChunkTask, dead_worker_result, play_chunk
from panda_core.arena.schedule import MAX_DEALS, games_per_deal, matches
from panda_core.arena.store import ResultsStore
from panda_core.parallel import Backend, SerialBackend, TaskFailure
from panda_core.protocol.exec_bot import close_pool

if TYPE_CHECKING:
    from panda_core.arena.report import ArenaReport

__all__ = [
    "MAX_DEALS",
    "ArenaInterrupted",
    "arena",
    "arena_settings",
    "play_arena",
    "scheduled_games",
]

MAX_SECONDS = 10**6
"""Longest move or game time accepted (about 11 days)."""

_PYTHON_CHUNK = 64
"""Most games per task with a Python bot: each task is a few tenths of a second (Ctrl-C and the
progress bar stay lively; a failed task replays few games one by one)."""
_BUILTIN_CHUNK = 2048
"""Most games per task of built-in bots only (tens of microseconds each in the batch path)."""
_TASKS_PER_WORKER = 8
"""Tasks per worker at least, when there are enough games: the last tasks of a run are short,
so no worker idles long at the end."""
_WINDOW_TASKS_PER_WORKER = 256
"""Tasks handed to the backend at a time, per worker: memory is one window whatever the deals,
and a worker idles at most one task's time at the end of a window (well under 1%)."""


class ArenaInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the arena. ``report`` holds the games finished before (all of them are in
    the results folder too, and a rerun with the same folder resumes)."""

    def __init__(self, report: ArenaReport) -> None:
        super().__init__("arena interrupted")
        self.report = report


def arena(
    entrants: Sequence[Any] | Mapping[str, Any] | str,
    *,
    game: GameName | str = DEFAULT_GAME,
    players: int = 4,
    deals: int = 100,
    seed: int = 0,
    permutations: Permutations = "rotations",
    rules: AnyRules | None = None,
    workers: int | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
    out: str | os.PathLike[str] | None = None,
    move_time: float = 10.0,
    game_time: float = 600.0,
    progress: Callable[[int, int], None] | None = None,
    contained: bool = True,
    full_information: bool = False,
    **options: Any,
) -> ArenaReport:
    """Rate ``entrants`` against each other on ``deals`` duplicate deals of ``game``.

    ``entrants``: bot specs — built-in names (``"heuristic"``, ``"ismcts:200"``) or Python bots
    by import path (``"mybots:Greedy"``, a class or a callable), optionally labelled
    (``"mine=mybots:Greedy"``) — or a mapping of labels to specs or bot objects. Each deal is
    played once per seating of its line-up (``permutations``: ``"rotations"`` or ``"all"``;
    :mod:`panda_core.arena.schedule`), dealt from ``nth_output(seed, deal)``.

    Python bots run in ``workers`` processes (default every core; ``0``: in this process) or, with
    ``backend="ray"``, as Ray tasks on the cluster at ``address``. A Python bot's move is bound
    by ``move_time`` seconds and a game by ``game_time``; a bot that raises, answers an illegal
    move, overruns or kills its worker forfeits that game (recorded with its reason and record)
    and the arena goes on. With ``workers=0`` the game time is not enforced (nothing in a
    process can stop a bot stuck in C code), and a bot that ends the process (``os._exit``)
    ends the arena: what it finished is kept in ``out``. With ``out``, results are written to
    that folder as they come and a rerun resumes (:mod:`panda_core.arena.store`); the report's
    files are written there at the end. Ctrl-C raises :class:`ArenaInterrupted` (a
    ``KeyboardInterrupt``) holding the report of the games finished (its files are written too,
    all but the plot). ``options`` are the game's rule options, as for ``panda_core.make``.

    Entrants may also be protocol bots in any language, ``"exec:COMMAND"`` (a process of their
    own, started once per worker and reused; docs/bot_protocol.md), and language models,
    ``"llm:MODEL"`` (docs/llm_agents.md).

    ``contained`` (default ``True``): each Python bot given by import path plays in a process of
    its own that holds nothing but its seat's messages (the protocol's Python adapter), so it
    cannot reach the real game or the other seats' cards, whatever it does. ``False`` runs them
    in the arena's processes (faster to start, but a dishonest bot can find the real game
    there). A bot *object* cannot be contained (but an
    :class:`~panda_core.protocol.exec_bot.ExecBot`): it runs in the arena's processes either way.
    ``full_information=True`` (research: perfect-information baselines) hands the in-process
    Python bots the whole game instead of their seat. The report, ``results.json`` and the
    results folder's ``arena.json`` say for every entrant whether it was contained, and whether
    any seat had full information (docs/rate_your_bot.md).
    """
    from panda_core.arena.report import ArenaReport

    settings = arena_settings(
        entrants,
        game=game,
        players=players,
        deals=deals,
        seed=seed,
        permutations=permutations,
        rules=rules,
        move_time=move_time,
        game_time=game_time,
        contained=contained,
        full_information=full_information,
        **options,
    )
    try:
        results = play_arena(
            settings, workers=workers, backend=backend, address=address, out=out, progress=progress
        )
    except _Interrupted as stop:
        report = ArenaReport.from_results(settings, stop.results, scheduled_games(settings))
        if out is not None:
            report.write(out, plot=False)  # stopping is prompt: the plot waits for a full run
        raise ArenaInterrupted(report) from None
    report = ArenaReport.from_results(settings, results, scheduled_games(settings))
    if out is not None:
        report.write(out)
    return report


def arena_settings(
    entrants: object,
    *,
    game: object = DEFAULT_GAME,
    players: object = 4,
    deals: object = 100,
    seed: object = 0,
    permutations: object = "rotations",
    rules: object = None,
    move_time: object = 10.0,
    game_time: object = 600.0,
    contained: object = True,
    full_information: object = False,
    **options: Any,
) -> ArenaSettings:
    """The checked settings of an arena (the arguments of :func:`arena`)."""
    game_spec = spec(game)
    n = players_arg(players)
    count = int_arg(deals, "deals")
    if not 1 <= count <= MAX_DEALS:
        raise ArenaError(f"deals must be in 1..={MAX_DEALS}, got {count}")
    if permutations not in ("rotations", "all"):
        raise ArenaError(f"permutations is 'rotations' or 'all', got {shown(permutations)}")
    parsed = contain(parse_entrants(entrants), _flag(contained, "contained"))
    full = _flag(full_information, "full_information")
    if full and all(e.contained for e in parsed):
        raise ArenaError(
            "full_information hands the whole game to the Python bots that run in the arena's "
            "processes, and this arena has none: run the Python bots in-process "
            "(contained=False, --in-process), or leave full information out"
        )
    chosen = game_spec.rules(rules, **options)
    # A neural entrant's policy must play this game: refused now, not as a failed batch later.
    game_spec.check_builtin_bots(n, [e.spec for e in parsed if e.builtin], chosen)
    parsed = with_policies(parsed, game_spec.name)
    return ArenaSettings(
        game=game_spec.name,
        players=n,
        entrants=parsed,
        deals=count,
        seed=seed_arg(seed),
        permutations=permutations,
        rules=chosen,
        move_time=_seconds(move_time, "move_time"),
        game_time=_seconds(game_time, "game_time"),
        full_information=full,
    )


def _flag(value: object, what: str) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{what} is True or False, got {shown(value)}")
    return value


def scheduled_games(settings: ArenaSettings) -> int:
    """How many games the arena plays in all."""
    per_deal = games_per_deal(len(settings.entrants), settings.players, settings.permutations)
    return settings.deals * per_deal


def _seconds(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} is a number of seconds, got {shown(value)}")
    seconds = float(value)
    if not (0 < seconds <= MAX_SECONDS) or math.isnan(seconds):
        raise ArenaError(
            f"{what} must be more than 0 and at most {MAX_SECONDS} seconds, got {value}"
        )
    return seconds


class _Interrupted(Exception):
    """Ctrl-C inside :func:`play_arena`, with the results finished before it."""

    def __init__(self, results: list[MatchResult]) -> None:
        super().__init__("interrupted")
        self.results = results


def play_arena(
    settings: ArenaSettings,
    *,
    workers: int | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[MatchResult]:
    """Every game of the arena, played (or read back from ``out``), in game order.

    A results folder that was repaired on opening (a torn last line dropped) is reported with an
    :class:`ArenaWarning`."""
    runner, threads = _backend(settings, workers, backend, address)
    try:
        store = ResultsStore.open(out, settings) if out is not None else None
    except BaseException:
        runner.close()
        raise
    if store is not None and store.repaired is not None:
        warnings.warn(store.repaired, ArenaWarning, stacklevel=2)
    total = scheduled_games(settings)
    found: dict[int, MatchResult] = {}
    if store is not None:
        found = {i: r for i, r in store.results.items() if i < total}
    # The games left, made one at a time as the backend asks for them (never a list of the
    # schedule: a billion deals cost no more memory to start than ten).
    todo = (m for m in matches(settings) if m.index not in found)
    try:
        if progress is not None:
            progress(len(found), total)
        with runner:
            for batch in _results(runner, settings, todo, total - len(found), threads):
                # Counted first: a Ctrl-C while the batch is written (its fsync) still reports
                # its games; a line it tore is dropped and its game replayed on resuming.
                found.update((r.index, r) for r in batch)
                if store is not None:
                    store.append(batch)
                if progress is not None:
                    progress(len(found), total)
    except KeyboardInterrupt:
        raise _Interrupted([found[i] for i in sorted(found)]) from None
    finally:
        if store is not None:
            store.close()
        if isinstance(runner, SerialBackend):  # the protocol bots this process started
            close_pool()
    return [found[i] for i in sorted(found)]


def _backend(
    settings: ArenaSettings, workers: object, backend: str | Backend, address: str | None
) -> tuple[Backend, int | None]:
    """The backend to run the games, and the batch path's thread count inside each task."""
    count = None if workers is None else int_arg(workers, "workers")
    if count is not None and count < 0:
        raise ArenaError(f"workers must be >= 0 (0: in this process), got {count}")
    builtin_only = all(e.builtin for e in settings.entrants)
    if backend == "local" and (count == 0 or builtin_only):
        # Asked for no processes, or nothing to isolate: built-in bots cannot crash the process,
        # and their games (tens of microseconds each in the batch path) are faster here than
        # shipped to workers and back (measured: 18,000 against 15,000 games/s on 2 cores).
        return SerialBackend(), 1
    from panda_core.parallel.factory import make_backend

    made = make_backend(backend, workers=count if backend == "local" else None, address=address)
    if not isinstance(made, SerialBackend):
        _check_pickles(settings)
    return made, 1


def _check_pickles(settings: ArenaSettings) -> None:
    """Bot objects cross to worker processes by pickle: say so now rather than per game."""
    for e in settings.entrants:
        if e.bot is None:
            continue
        try:
            pickle.dumps(e.bot)
        except Exception as err:
            raise ArenaError(
                f"the bot object of entrant {e.label!r} cannot be sent to a worker process "
                f"({type(err).__name__}: {err}); give it as an import path 'package.module:attr', "
                "or run with workers=0"
            ) from None


def _results(
    backend: Backend,
    settings: ArenaSettings,
    todo: Iterator[Match],
    count: int,
    threads: int | None,
) -> Iterator[list[MatchResult]]:
    """The results of the ``count`` games of ``todo``, a task's worth at a time, in the order
    they finish. The tasks go to the backend a window at a time, so what is held is one window
    of tasks whatever the number of games."""
    chunks = _chunks(todo, _chunk_size(settings, count, backend.workers))
    window = _WINDOW_TASKS_PER_WORKER * max(1, backend.workers)
    while tasks := list(itertools.islice(chunks, window)):
        failed: list[Match] = []
        for chunk, outcome in _run(backend, settings, tasks, threads):
            if isinstance(outcome, TaskFailure):
                failed.extend(chunk)
            else:
                yield outcome
        if failed:
            yield from _one_by_one(backend, settings, failed, threads)


def _one_by_one(
    backend: Backend, settings: ArenaSettings, failed: list[Match], threads: int | None
) -> Iterator[list[MatchResult]]:
    """Each game of a failed task again, alone, to find the one that failed it, with notes of
    who is moving (too slow for every game, cheap for these few): they name the bot that killed
    its worker, and its record up to that move."""
    singles = [(m,) for m in sorted(failed, key=lambda m: m.index)]
    with tempfile.TemporaryDirectory(prefix="panda-arena-") as journal:
        for chunk, outcome in _run(backend, settings, singles, threads, journal):
            if isinstance(outcome, TaskFailure):
                yield [_failed_game(settings, chunk[0], outcome, journal)]
            else:
                yield outcome


def _run(
    backend: Backend,
    settings: ArenaSettings,
    chunks: Sequence[tuple[Match, ...]],
    threads: int | None,
    journal: str | None = None,
) -> Iterator[tuple[tuple[Match, ...], list[MatchResult] | TaskFailure]]:
    if not chunks:
        return
    tasks = [ChunkTask(settings, chunk, threads, journal) for chunk in chunks]
    timeouts = [settings.game_time * len(chunk) for chunk in chunks]
    trusted = all(e.builtin for e in settings.entrants)  # no bot code runs anywhere
    for k, outcome in backend.run(play_chunk, tasks, timeouts):
        if trusted or isinstance(outcome, TaskFailure):
            yield chunks[k], outcome
        else:
            yield chunks[k], _checked(settings, chunks[k], outcome)


def _checked(
    settings: ArenaSettings, chunk: tuple[Match, ...], outcome: object
) -> list[MatchResult] | TaskFailure:
    """A task's answer, if it is its games' results (:mod:`panda_core.arena.checks`): it comes
    from a process where bots ran, so it counts only once checked like a stored line."""
    try:
        if not isinstance(outcome, list) or len(outcome) != len(chunk):
            raise BadResult(f"a task of {len(chunk)} games answered {type(outcome).__name__}")
        return [checked_result(settings, m, r) for m, r in zip(chunk, outcome, strict=True)]
    except BadResult as err:
        return TaskFailure("error", f"the task's answer is not its games' results: {err}")


def _failed_game(
    settings: ArenaSettings, match: Match, failure: TaskFailure, journal: str | None
) -> MatchResult:
    """The forfeit of a game that failed alone. Its message is the arena's own, not the
    backend's, so that a forfeit reads the same whichever backend saw it."""
    if failure.kind == "timeout":
        message = (
            f"the game took longer than the game time ({settings.game_time:g} s), where the "
            "move timer could not stop the bot; its worker was stopped"
        )
        return dead_worker_result(settings, match, "timeout", message, journal)
    if failure.kind == "dead_worker":
        message = "the worker process died during the bot's move (it crashed or exited)"
        return dead_worker_result(settings, match, "dead_worker", message, journal)
    return dead_worker_result(settings, match, "exception", failure.message, journal)


def _chunk_size(settings: ArenaSettings, count: int, workers: int) -> int:
    """Games per task for ``count`` games (see the sizes above)."""
    most = _BUILTIN_CHUNK if all(e.builtin for e in settings.entrants) else _PYTHON_CHUNK
    return max(1, min(most, count // max(1, workers * _TASKS_PER_WORKER)))


def _chunks(todo: Iterator[Match], size: int) -> Iterator[tuple[Match, ...]]:
    """``todo`` in tasks of ``size`` consecutive games (the last may be shorter)."""
    while chunk := tuple(itertools.islice(todo, size)):
        yield chunk
