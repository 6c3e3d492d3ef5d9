"""Playing the arena's games: the task a backend runs, in a worker process, a Ray task or this
process.

A task is a chunk of :class:`~panda_core.arena.model.Match` es. Games whose seats are all
built-in bots are played by the engine's batch path (Rust, no Python per move); the others move
by move through the one game API, with each Python bot shown a clone, its moves timed, and every
misbehaviour turned into a :class:`~panda_core.arena.model.Forfeit` that ends that game only.

A game's result depends only on its match (the deal's seed, the line-up) and the settings: each
Python bot is created afresh for the game (a class) and reset from the deal's seed, and the
built-in bots are seeded the same way, so the results are identical whichever worker plays them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from panda_core._registry import AnyGame, GameSpec, spec, spec_of
from panda_core.arena.model import ArenaSettings, Forfeit, ForfeitKind, Match, MatchResult
from panda_core.arena.move_timer import MoveTimeout, MoveTimer
from panda_core.arena.stats import worst_place
from panda_core.bot_import import make_bot
from panda_core.bots import Bot, BuiltinBot, reset_bots

__all__ = ["ChunkTask", "dead_worker_result", "play_chunk"]

_MESSAGE_CHARS = 500
"""Longest message kept from a bot's exception (the record says the rest)."""


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
        with MoveTimer(settings.move_time) as timer:
            for match in python:
                note = None if task.journal is None else _note_path(task.journal, match)
                out[match.index] = _play_python(settings, game, match, timer, note)
    return [out[m.index] for m in task.matches]


def _play_batch(
    settings: ArenaSettings, game: GameSpec, match: Match, threads: int | None
) -> MatchResult:
    """One game of built-in bots by the engine's batch path: the batch deals its game 0 from
    ``nth_output(seed, first_game)``, the deal's seed."""
    bots = [settings.entrants[i].spec for i in match.lineup]
    winner, rounds, decisions, scores = game.simulate_batch(
        1, settings.players, bots, settings.seed, settings.rules, threads, match.deal
    )
    seat_scores = tuple(int(v) for v in np.asarray(scores).reshape(-1)[: settings.players])
    won = int(winner[0])
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=won,
        scores=seat_scores,
        ranks=game.placements(won, seat_scores),
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
    try:
        bots = []
        for seat, entrant in enumerate(match.lineup):
            try:
                e = settings.entrants[entrant]
                bots.append(make_bot(e.bot if e.bot is not None else e.spec))
            except Exception as err:
                raise _Forfeited(seat, "exception", f"cannot create the bot: {err}") from err
        try:
            reset_bots(bots, match.seed)
        except Exception as err:
            raise _Forfeited(_failing_reset(bots, match.seed), "exception", _text(err)) from err
        while (to_move := state.current_player) is not None:
            if note is not None and not isinstance(bots[to_move], BuiltinBot):
                _write_note(note, to_move, state)
            _move(state, to_move, bots[to_move], timer)
            decisions += 1
    except _Forfeited as stop:
        return _forfeit_result(settings, match, state, stop, decisions)
    winner = state.winner
    assert winner is not None, "the loop ends only when the game is over"
    scores = tuple(state.scores)
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=winner,
        scores=scores,
        ranks=game.placements(winner, scores),
        rounds=len(state.round_results),
        decisions=decisions,
    )


def _move(state: AnyGame, seat: int, bot: Bot[Any], timer: MoveTimer) -> None:
    """Ask ``bot`` for seat ``seat``'s move and apply it, or raise :class:`_Forfeited`."""
    if isinstance(bot, BuiltinBot):
        state.apply(bot(state, seat))  # type: ignore[arg-type]  # the engine's own move
        return
    try:
        with timer.move():
            move = bot(state.clone(), seat)
    except MoveTimeout:
        raise _Forfeited(
            seat, "timeout", f"took longer than the move time ({timer.seconds:g} s)"
        ) from None
    except (Exception, SystemExit) as err:  # anything the bot raises (sys.exit too) is its own
        raise _Forfeited(seat, "exception", _text(err)) from err
    if isinstance(move, np.integer):
        move = int(move)
    try:
        state.apply(move)  # type: ignore[arg-type]  # checked by the engine
    except (TypeError, ValueError) as err:
        raise _Forfeited(seat, "illegal", str(err)) from err


def _failing_reset(bots: Sequence[object], seed: int) -> int:
    """The seat whose ``reset`` raises (reset again one by one to find it)."""
    for seat, bot in enumerate(bots):
        try:
            reset_bots([None] * seat + [bot], seed)
        except Exception:
            return seat
    return 0


def _text(err: BaseException) -> str:
    text = f"{type(err).__name__}: {err}"
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
    return _forfeited(settings, match, state, forfeit, decisions)


def _forfeited(
    settings: ArenaSettings, match: Match, state: AnyGame, forfeit: Forfeit, decisions: int
) -> MatchResult:
    """A forfeited game: every seat of the forfeiting entrant at the worst place a game can give
    (a forfeit weighs like the worst loss, no more), the others tied first."""
    last = worst_place(settings)
    ranks = tuple(
        last if forfeit.entrant is not None and e == forfeit.entrant else 0 for e in match.lineup
    )
    return MatchResult(
        index=match.index,
        deal=match.deal,
        seed=match.seed,
        lineup=match.lineup,
        winner=None,
        scores=tuple(state.scores),
        ranks=ranks,
        rounds=len(state.round_results),
        decisions=decisions,
        forfeit=forfeit,
    )


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
    note = None if journal is None else _note_path(journal, match)
    if note is not None and note.exists():
        data = json.loads(note.read_text(encoding="utf-8"))
        seat = int(data["seat"])
        state = game.game_class.from_json(data["record"])
    else:
        suspects = sorted({e for e in match.lineup if not settings.entrants[e].builtin})
        if len(suspects) == 1:
            seat = match.lineup.index(suspects[0])
    entrant = None if seat is None else match.lineup[seat]
    forfeit = Forfeit(
        seat=seat, entrant=entrant, kind=kind, message=message, record=state.to_json()
    )
    return _forfeited(settings, match, state, forfeit, _moves_in(state))


def _moves_in(state: AnyGame) -> int:
    """Moves made so far in ``state`` (its record's move list)."""
    moves = json.loads(state.to_json()).get(spec_of(state).record_moves, [])
    return len(moves) if isinstance(moves, list) else 0
