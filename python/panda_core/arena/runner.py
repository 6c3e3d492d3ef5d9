"""Playing the arena's games: the task a backend runs, in a worker process, a Ray task or this
process.

A task is a chunk of :class:`~panda_core.arena.model.Match` es. Games whose seats are all
built-in bots are played by the engine's batch path (Rust, no Python per move); the others move
by move through the one game API, with each Python bot shown a clone, its moves timed, and every
misbehaviour turned into a :class:`~panda_core.arena.model.Forfeit` that ends that game only.

A game's result depends only on its match (the deal's seed, the line-up) and the settings: each
Python bot is created afresh for the game (a class) and reset from the deal's seed, and the
built-in bots are seeded the same way, so the results are identical whichever worker plays them.

Every call into a Python bot (creating it, ``reset``, each move, and turning its answer into a
move) is bounded by the move time (:mod:`~panda_core.move_timer`). Whatever a bot prints
goes to stderr, never to stdout, which holds the arena's report (``--json``): in a worker
process both ``sys.stdout`` and file descriptor 1 are pointed at stderr for good, in this process
``sys.stdout`` is redirected while the bots play.

Contained entrants (the default for a Python bot by import path, and every ``exec:`` bot) play
through :class:`~panda_core.protocol.exec_bot.ExecBot`: a process of their own, started once per
worker and command and greeted before the game (outside the move time), which is sent only its
seat's messages; a contained Python bot runs in the protocol's adapter. An in-process Python bot
(``contained=False``, or a bot object) runs in the same process as the game it plays, and can
reach the real game (and this module's frames) if it wants to. See docs/rate_your_bot.md.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import operator
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from panda_core._files import read_regular
from panda_core._registry import AnyGame, GameSpec, plain_engine_move, spec, spec_of
from panda_core._strict_json import strict_loads
from panda_core.arena.checks import MAX_RECORD_CHARS
from panda_core.arena.model import ArenaSettings, Entrant, Forfeit, ForfeitKind, Match, MatchResult
from panda_core.arena.stats import worst_place
from panda_core.bot_import import contained_bot, is_bot_path, make_bot
from panda_core.bot_move import MoveRefused, ask_move, tell_game_over
from panda_core.bots import Bot, BuiltinBot, reset_bots
from panda_core.move_timer import MoveTimeout, MoveTimer
from panda_core.protocol.exec_bot import BotResigned, ExecBot, ExecBotError
from panda_core.protocol.messages import bot_seed

__all__ = [
    "ChunkTask",
    "dead_worker_result",
    "finished_result",
    "forfeited_result",
    "play_chunk",
]

_MESSAGE_CHARS = 500
"""Longest message kept from a bot's exception (the record says the rest)."""

_MOVE_DEPTH = 4
"""Deepest nesting of a move given as a dict (a climbing move's dict form is two levels)."""

_stdout_moved = False
"""Whether this worker process already sent its stdout to stderr (done once per process)."""

_ASK_FULL_INFORMATION = "full_information" in inspect.signature(ask_move).parameters
"""Whether :func:`ask_move` takes the research opt-in (it hands a bot the whole game)."""


@dataclass(frozen=True)
class ChunkTask:
    """What a backend runs: some games of an arena. ``threads`` is the batch path's thread count
    (1 in a worker process: the workers are the parallelism)."""

    settings: ArenaSettings
    matches: tuple[Match, ...]
    threads: int | None = 1
    journal: str | None = None
    """A folder where each game notes the seat to move and the record before every Python bot's
    move (set when a failed task's games are replayed one by one): if the bot then kills its
    worker, the note says who did it and how far the game got."""
    parent: int = field(default_factory=os.getpid)
    """The process that made the task: run in any other, the task owns its process's stdout."""


def play_chunk(task: ChunkTask) -> list[MatchResult]:
    """The results of ``task``'s games, in its order."""
    settings = task.settings
    game = spec(settings.game)
    out: dict[int, MatchResult] = {}
    python = []
    for match in task.matches:
        if all(settings.entrants[i].builtin for i in match.lineup):
            out[match.index] = _play_batch(settings, game, match, task.threads)
        else:
            python.append(match)
    if python:
        with _bots_print_to_stderr(task.parent), MoveTimer(settings.move_time) as timer:
            for match in python:
                note = None if task.journal is None else _note_path(task.journal, match)
                out[match.index] = _play_python(settings, game, match, timer, note)
    return [out[m.index] for m in task.matches]


@contextlib.contextmanager
def _bots_print_to_stderr(parent: int) -> Iterator[None]:
    """What the bots print goes to stderr. In a worker process (not ``parent``) for good, at both
    levels: ``sys.stdout`` and file descriptor 1 (``os.write(1, ...)``, C code); the worker's
    stdout is its parent's, whose report must stay readable. In the parent, only ``sys.stdout``
    for the duration (descriptor 1 is the caller's to keep; the command line moves it too)."""
    global _stdout_moved
    if os.getpid() == parent:
        with contextlib.redirect_stdout(sys.stderr):
            yield
        return
    if not _stdout_moved:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stdout.flush()
        with contextlib.suppress(OSError):  # no stderr to point at: leave descriptor 1 alone
            os.dup2(2, 1)
        sys.stdout = sys.stderr
        _stdout_moved = True
    yield


def _play_batch(
    settings: ArenaSettings, game: GameSpec, match: Match, threads: int | None
) -> MatchResult:
    """One game of built-in bots by the engine's batch path: the batch deals its game 0 from
    ``nth_output(seed, first_game)``, the deal's seed."""
    bots = [settings.entrants[i].spec for i in match.lineup]
    winner, rounds, decisions, scores, left = game.simulate_batch(
        1, settings.players, bots, settings.seed, settings.rules, threads, match.deal
    )
    seat_scores = tuple(int(v) for v in np.asarray(scores).reshape(-1)[: settings.players])
    seat_left = tuple(int(v) for v in np.asarray(left).reshape(-1)[: settings.players])
    won = int(winner[0])
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=won,
        scores=seat_scores,
        ranks=game.placements(won, seat_scores, seat_left),
        left=seat_left,
        rounds=int(rounds[0]),
        decisions=int(decisions[0]),
    )


class _Forfeited(Exception):
    """A game ended by a seat's misbehaviour (internal to this module)."""

    def __init__(self, seat: int, kind: ForfeitKind, message: str) -> None:
        super().__init__(message)
        self.seat = seat
        self.kind = kind
        self.message = message


def _play_python(
    settings: ArenaSettings, game: GameSpec, match: Match, timer: MoveTimer, note: Path | None
) -> MatchResult:
    """One game move by move; a misbehaving bot forfeits it (see :class:`_Forfeited`)."""
    state = game.new_game(settings.players, match.seed, settings.rules)
    decisions = 0
    bots: list[Bot[Any]] = []
    try:
        for seat, e in enumerate(match.lineup):
            bots.append(_created(settings, e, seat, timer))
            _started(bots[seat], seat)
        for seat in range(len(bots)):
            _reset(bots, seat, match.seed, timer)
        while (to_move := state.current_player) is not None:
            if note is not None and not isinstance(bots[to_move], BuiltinBot):
                _write_note(note, to_move, state)
            _move(state, to_move, bots[to_move], timer, settings.full_information)
            decisions += 1
    except _Forfeited as stop:
        _game_over(bots, state, stop, timer)
        result = _forfeit_result(settings, match, state, stop, decisions)
        return replace(result, telemetry=_telemetry(bots))
    except BaseException:  # Ctrl-C: the protocol bots hear the game was stopped
        _game_over(bots, state, None, timer)
        raise
    _game_over(bots, state, None, timer)
    return replace(finished_result(match, state, decisions), telemetry=_telemetry(bots))


def finished_result(match: Match, state: AnyGame, decisions: int) -> MatchResult:
    """A game played to its end: its winner, scores and the places they give with the order the
    seats left in (the registry's ``placements`` and ``left_of``). The arena's loop and the
    server's challenges record finished games so."""
    winner = state.winner
    assert winner is not None, "a finished game has a winner"
    scores = tuple(state.scores)
    game = spec_of(state)
    left = game.left_of(state)
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=winner,
        scores=scores,
        ranks=game.placements(winner, scores, left),
        left=left,
        rounds=len(state.round_results),
        decisions=decisions,
    )


def _telemetry(bots: Sequence[object]) -> dict[str, Any] | None:
    """The game's telemetry of each LLM entrant (``panda_core.llm``), by seat; ``None`` without
    one. Read after the game's end and before the next game's ``reset`` clears it."""
    out: dict[str, Any] = {}
    for seat, bot in enumerate(bots):
        if not type(bot).__module__.startswith("panda_core.llm."):
            continue  # only an LLM bot has telemetry (and only then is its module imported)
        from panda_core.llm.telemetry import telemetry_of

        data = telemetry_of(bot)
        if data is not None:
            out[str(seat)] = data
    return out or None


def _created(settings: ArenaSettings, entrant: int, seat: int, timer: MoveTimer) -> Bot[Any]:
    """A fresh bot of ``entrant`` for ``seat`` (creating it runs its code: timed like a move)."""
    e = settings.entrants[entrant]
    try:
        with timer.move():
            bot = _entrant_bot(e)
    except MoveTimeout:
        raise _Forfeited(seat, "timeout", _overrun(timer, "creating the bot")) from None
    except (Exception, SystemExit) as err:
        raise _Forfeited(seat, "exception", f"cannot create the bot: {_text(err)}") from err
    if isinstance(bot, ExecBot):
        bot.move_time = settings.move_time
    return bot


def _entrant_bot(e: Entrant) -> Bot[Any]:
    """The bot of one game of entrant ``e``: a contained Python bot plays through the protocol's
    adapter, in a process of its own (from this worker's pool)."""
    if type(e.bot) is ExecBot:  # one per seat (its options; the process from the pool)
        return copy.copy(e.bot)
    if e.bot is not None:
        return make_bot(e.bot)
    if e.contained and not e.builtin and is_bot_path(e.spec):
        return contained_bot(e.spec)
    return make_bot(e.spec)


def _started(bot: object, seat: int) -> None:
    """A protocol bot's process, started and greeted before the game, outside the move time
    (bounded by its own start time)."""
    if isinstance(bot, ExecBot):
        try:
            bot.start()
        except ExecBotError as err:
            raise _Forfeited(seat, "exception", f"cannot start the bot: {err}") from None


def _game_over(
    bots: Sequence[object], state: AnyGame, stop: _Forfeited | None, timer: MoveTimer
) -> None:
    """Tell the bots the game ended. A protocol bot is sent its ``end`` (with the forfeit that
    ended it, or ``stopped`` when the arena itself stopped), bounded by its own time, and its
    process goes back to the pool (or is replaced, if it misbehaved). The other Python bots of a
    finished game hear it through their ``game_over(seat)`` (``tell_game_over``), timed like a
    move; what they raise or an overrun changes nothing: the result stands."""
    for seat, bot in enumerate(bots):
        if isinstance(bot, ExecBot):
            with contextlib.suppress(Exception):  # an end that fails is no game's failure
                bot.game_over(state, _forfeit_for(stop, seat))
    others = [None if isinstance(b, ExecBot | BuiltinBot) else b for b in bots]
    if state.is_over and any(b is not None for b in others):
        with contextlib.suppress(MoveTimeout), timer.move():
            tell_game_over(others, state)


def _reset(bots: Sequence[object], seat: int, seed: int, timer: MoveTimer) -> None:
    """``reset`` seat ``seat``'s bot, timed like a move: a built-in bot as :func:`reset_bots`
    does (as the batch path seeds it), any other bot with :func:`bot_seed` of the deal's seed
    and the seat (one-way: a bot cannot work the deal out from its seed; the same seed
    in-process and contained, so both play the same games)."""
    bot = bots[seat]
    try:
        with timer.move():
            if isinstance(bot, BuiltinBot):
                reset_bots([None] * seat + [bot], seed)
            elif callable(reset := getattr(bot, "reset", None)):
                reset(bot_seed(seed, seat))
    except MoveTimeout:
        raise _Forfeited(seat, "timeout", _overrun(timer, "reset")) from None
    except (Exception, SystemExit) as err:
        raise _Forfeited(seat, "exception", _text(err)) from err


def _overrun(timer: MoveTimer, what: str = "one move") -> str:
    return f"took longer than the move time ({timer.seconds:g} s) for {what}"


def _forfeit_for(stop: _Forfeited | None, seat: int) -> dict[str, Any] | None:
    """The forfeit as the bot at ``seat`` is told it: its own with the reason; another seat's
    with its kind only (the reason may hold that seat's legal moves, and so its cards)."""
    if stop is None:
        return None
    if stop.seat == seat:
        return {"seat": seat, "kind": stop.kind, "reason": _cut(stop.message)}
    return {"seat": stop.seat, "kind": stop.kind, "reason": f"seat {stop.seat} forfeited"}


def _move(
    state: AnyGame, seat: int, bot: Bot[Any], timer: MoveTimer, full_information: bool = False
) -> None:
    """Ask ``bot`` for seat ``seat``'s move and apply it, or raise :class:`_Forfeited`."""
    options: dict[str, Any] = {}
    if full_information and _ASK_FULL_INFORMATION:
        options["full_information"] = True
    try:
        # The answer's own methods (__index__, a dict's items) are the bot's code too: they run
        # under the timer, and the engine is handed plain values only.
        move = ask_move(bot, state, seat, take=_plain_answer, bound=timer, describe=_why, **options)
    except MoveRefused as refused:
        if refused.kind == "timeout":
            raise _Forfeited(seat, "timeout", _overrun(timer)) from None
        if isinstance(refused.cause, BotResigned):  # a contained bot's own code failed
            raise _Forfeited(seat, refused.cause.kind, str(refused.cause)) from None  # type: ignore[arg-type]
        raise _Forfeited(seat, refused.kind, refused.reason) from refused.cause
    try:
        state.apply(move)  # type: ignore[arg-type]  # checked by the engine
    except (TypeError, ValueError) as err:
        raise _Forfeited(seat, "illegal", str(err)) from err


def _plain_answer(answer: object) -> object:
    return _plain_move(answer, _MOVE_DEPTH)


def _why(refused: MoveRefused) -> str:
    """A forfeit's message (its exception's ``__str__`` is the bot's code: run under the timer)."""
    if isinstance(refused.cause, ExecBotError):  # the engine's own words on a protocol bot
        return _cut(str(refused.cause))
    why = _text(refused.cause) if refused.cause is not None else "no answer"
    return f"the answer is not a move: {why}" if refused.kind == "illegal" else why


def _plain_move(answer: object, depth: int) -> object:
    """``answer`` made of the engine's move types and plain Python values only (an ``int`` or
    ``str`` subclass becomes its plain value, a numpy integer an ``int``, a mapping a ``dict``);
    ``TypeError`` for anything else."""
    if plain_engine_move(answer) is not None or type(answer) in (bool, float) or answer is None:
        return answer
    if isinstance(answer, str):
        return str.__str__(answer)
    if isinstance(answer, int):
        return int.__index__(answer)
    if depth > 0 and isinstance(answer, dict):
        return {_plain_move(k, 0): _plain_move(v, depth - 1) for k, v in dict.items(answer)}
    if depth > 0 and isinstance(answer, list | tuple):
        return [_plain_move(v, depth - 1) for v in answer]
    if depth == _MOVE_DEPTH:  # a move object of the bot's own: its __index__, if it has one
        return int.__index__(operator.index(answer))  # type: ignore[arg-type]  # or TypeError
    raise TypeError(f"a {type(answer).__name__} inside a move")


def _text(err: BaseException) -> str:
    try:
        text = f"{type(err).__name__}: {err}"
    except Exception:  # an exception whose __str__ raises is still the bot's exception
        text = f"{type(err).__name__} (its message cannot be shown)"
    return _cut(text)


def _cut(text: str) -> str:
    return text if len(text) <= _MESSAGE_CHARS else text[:_MESSAGE_CHARS] + "…"


def _forfeit_result(
    settings: ArenaSettings, match: Match, state: AnyGame, stop: _Forfeited, decisions: int
) -> MatchResult:
    entrant = match.lineup[stop.seat]
    forfeit = Forfeit(
        seat=stop.seat,
        entrant=entrant,
        kind=stop.kind,
        message=stop.message,
        record=state.to_json(),
    )
    return forfeited_result(settings, match, state, forfeit, decisions)


def forfeited_result(
    settings: ArenaSettings, match: Match, state: AnyGame, forfeit: Forfeit, decisions: int
) -> MatchResult:
    """A forfeited game: every seat of the forfeiting entrant at the worst place a game can give
    (a forfeit weighs like the worst loss, no more), the others tied first; the forfeit as the
    results folder keeps it. The arena's loop and the server's challenges record forfeits so."""
    last = worst_place(settings)
    ranks = tuple(
        last if forfeit.entrant is not None and e == forfeit.entrant else 0 for e in match.lineup
    )
    forfeit = _kept(settings, match, forfeit)
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=None,
        scores=tuple(state.scores),
        ranks=ranks,
        left=spec_of(state).left_of(state),
        rounds=len(state.round_results),
        decisions=decisions,
        forfeit=forfeit,
    )


def _kept(settings: ArenaSettings, match: Match, forfeit: Forfeit) -> Forfeit:
    """``forfeit`` as the results folder can keep it: its message cut to a few hundred
    characters, and a record longer than ``MAX_RECORD_CHARS`` (as JSON text, a very long game)
    replaced by the deal's start (playing the deal again with the same bots reproduces it)."""
    message = _cut(forfeit.message)
    record = forfeit.record
    if len(json.dumps(record)) > MAX_RECORD_CHARS:
        start = spec(settings.game).new_game(settings.players, match.seed, settings.rules)
        message = _cut(message) + f" (the record, {len(record)} characters, was too long to keep)"
        record = start.to_json()
    return Forfeit(forfeit.seat, forfeit.entrant, forfeit.kind, message, record)


def _note_path(journal: str, match: Match) -> Path:
    return Path(journal) / f"game-{match.index}.json"


def _write_note(note: Path, seat: int, state: AnyGame) -> None:
    tmp = note.with_name(note.name + ".tmp")
    tmp.write_text(json.dumps({"seat": seat, "record": state.to_json()}), encoding="utf-8")
    os.replace(tmp, note)


def dead_worker_result(
    settings: ArenaSettings,
    match: Match,
    kind: ForfeitKind,
    message: str,
    journal: str | None = None,
) -> MatchResult:
    """The result of a game whose worker died or hung past the game's time, found by playing it
    alone. The journal's note (when the worker could write one where this process reads it)
    names the seat that was moving and holds the record up to that move. Without it, the one
    Python entrant of the line-up forfeits, with the deal as the record (replaying it with the
    same bots reproduces the failure); with several Python entrants nothing says which one did
    it, and the game is void (``seat=None``)."""
    game = spec(settings.game)
    state = game.new_game(settings.players, match.seed, settings.rules)
    seat: int | None = None
    note = None if journal is None else _read_note(_note_path(journal, match), settings, game)
    if note is not None:
        seat, state = note
    else:
        suspects = sorted({e for e in match.lineup if not settings.entrants[e].builtin})
        if len(suspects) == 1:
            seat = match.lineup.index(suspects[0])
    entrant = None if seat is None else match.lineup[seat]
    forfeit = Forfeit(
        seat=seat, entrant=entrant, kind=kind, message=message, record=state.to_json()
    )
    return forfeited_result(settings, match, state, forfeit, _moves_in(state))


def _read_note(path: Path, settings: ArenaSettings, game: GameSpec) -> tuple[int, AnyGame] | None:
    """The seat and game a journal note holds, or ``None`` if there is no usable note. The note
    was written in the worker, where the bots run: it is read as data that may be anything (a
    regular file, bounded, valid JSON, a seat in range, a record the engine loads and whose seat
    to move is that seat), and anything else is no note."""
    try:
        raw = read_regular(path, MAX_RECORD_CHARS + 2**10, ValueError, "journal note")
        data = strict_loads(raw)
        seat, record = data["seat"], data["record"]
        if type(seat) is not int or not 0 <= seat < settings.players or type(record) is not str:
            return None
        state = game.game_class.from_json(record)
        if state.current_player != seat:
            return None
    except Exception:  # no note, or not one this module wrote
        return None
    return seat, state


def _moves_in(state: AnyGame) -> int:
    """Moves made so far in ``state`` (its record's move list)."""
    moves = json.loads(state.to_json()).get(spec_of(state).record_moves, [])
    return len(moves) if isinstance(moves, list) else 0
