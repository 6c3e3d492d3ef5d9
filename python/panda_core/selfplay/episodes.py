"""Playing one episode with bots and keeping every decision, as numpy columns.

Everything goes through the one game API (``panda_core.Game``): ``observation(seat)``,
``legal_actions()``, ``legal_moves()``, ``action_index(move)``, and the registry's
``legal_move_features`` for games that have them (when asked for), so one loop serves every
game.

An episode is kept whole until it ends because its outcome (who won, each seat's place and
score) is only known then and is written on every one of its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core._args import cut, shown
from panda_core._builtin_bot import BuiltinBot
from panda_core._core import ArgumentError
from panda_core._registry import MOVE_CLASSES, AnyGame, AnyRules, GameSpec
from panda_core.bot_import import bot_spec_kind, make_bot
from panda_core.bot_move import MoveRefused, ask_move
from panda_core.bots import Bot, bot_name, reset_bots
from panda_core.game import Game
from panda_core.move_timer import MoveTimeout, MoveTimer
from panda_core.protocol.exec_bot import ExecBot, ExecBotError
from panda_core.protocol.messages import bot_seed

__all__ = [
    "NO_ACTION",
    "SEARCH_BOTS",
    "BotFailure",
    "Episode",
    "SeatBots",
    "best_stat",
    "is_search_bot",
    "play_episode",
]

NO_ACTION = -1
"""``action`` of a move that has no abstract action (a climbing play larger than the action
index covers: custom decks only, docs/climb_encodings.md); ``move_index`` still names it."""


class BotFailure(Exception):
    """A bot raised, or answered something that is not a legal move: the episode cannot go on.
    The message names the episode, the step, the seat and the bot."""


@dataclass(frozen=True)
class Episode:
    """The decisions of one finished game, row ``i`` being decision ``i`` (its ``step``)."""

    index: int
    """The episode's number in the dataset."""
    deal: int
    """The seed the game was dealt from (``panda_core.make(game, players, seed=deal)``)."""
    seats: npt.NDArray[np.int8]
    observations: npt.NDArray[np.float32]
    """``(decisions, observation_size)``: what the seat to move saw."""
    legal_actions: npt.NDArray[np.int16]
    """Every decision's ``legal_actions()``, one after the other (``legal_offsets``)."""
    legal_offsets: npt.NDArray[np.int32]
    """``(decisions + 1,)``: decision ``i``'s are ``legal_actions[offsets[i]:offsets[i+1]]``."""
    actions: npt.NDArray[np.int32]
    move_index: npt.NDArray[np.int32]
    """The chosen move's position in ``legal_moves()`` (every game has it; only games with
    move features write it: the climbing games need it to replay the exact move)."""
    move_features: npt.NDArray[np.float32] | None
    """``(legal moves of all decisions, move_features)``; ``None`` unless asked for."""
    move_offsets: npt.NDArray[np.int32] | None
    """``(decisions + 1,)``: decision ``i``'s rows are ``move_offsets[i]:move_offsets[i+1]``."""
    winner: int
    scores: tuple[int, ...]
    places: tuple[int, ...]
    search_visits: npt.NDArray[np.int32] | None = None
    """Every search decision's root visits, one per legal action in ``legal_actions`` order,
    the decisions one after the other (``search_offsets``); ``None`` unless asked for."""
    search_values: npt.NDArray[np.float32] | None = None
    """The same decisions' root mean values on the round scale ``[-1, 1]``, likewise."""
    search_offsets: npt.NDArray[np.int32] | None = None
    """``(decisions + 1,)``: decision ``i``'s are ``search_*[offsets[i]:offsets[i+1]]`` (none
    for a bot that does not search)."""

    @property
    def decisions(self) -> int:
        return int(self.seats.shape[0])


class SeatBots:
    """The bots of one seat each, built from specs where the task runs (a worker process, a
    Ray task): built-in names, import paths ``pkg.mod:Attr``, protocol bots ``exec:COMMAND``
    (one process per worker and command, reused episode after episode), language models
    ``llm:MODEL`` and bot objects.

    A class named by path is instantiated afresh for every episode (as in the arena), so no
    state leaks from one episode into the next and the dataset does not depend on how the
    episodes are split into shards; every bot with ``reset(seed)`` is reset from the deal.
    """

    def __init__(self, specs: Sequence[object]) -> None:
        self.names = tuple(bot_name(s) for s in specs)
        self._specs = tuple(specs)
        for spec in self._specs:
            if isinstance(spec, str) and bot_spec_kind(spec) is None:
                # Not reached through selfplay(), which checks every spec first.
                raise ArgumentError(f"not a bot: {cut(spec)!r}")

    def for_episode(self, deal: int) -> list[Bot[Any]]:
        """One bot per seat for the game dealt from ``deal``, each reset from it (a protocol
        bot, in a process of its own, with a one-way seed: :func:`bot_seed`)."""
        bots = [make_bot(spec) for spec in self._specs]
        reset_bots([None if isinstance(b, ExecBot) else b for b in bots], deal)
        for seat, bot in enumerate(bots):
            if isinstance(bot, ExecBot):
                bot.reset(bot_seed(deal, seat))
        return bots


def _action(game: Game[Any], move: object) -> int:
    try:
        return game.action_index(move)
    except ArgumentError:  # a legal move with no abstract action (see NO_ACTION)
        return NO_ACTION


def _play_answer(game: Game[Any], legal: list[Any], answer: object) -> tuple[int, int]:
    """Apply the bot's ``answer`` to ``game``: ``(row in legal, action id)`` of the move played.

    Action ids and move objects are looked up in the legal moves before anything is applied (no
    copy of the game needed); a notation or a move dict is parsed by the engine, and the move
    it played found by its notation. ``ValueError``/``TypeError`` for anything else."""
    if isinstance(answer, np.integer):
        answer = int(answer)
    move: object = None
    if isinstance(answer, int) and not isinstance(answer, bool):
        move = game.move_for_action(answer)
    elif isinstance(answer, MOVE_CLASSES):
        move = answer
    if move is not None:
        try:
            row = legal.index(move)
        except ValueError:
            raise ValueError(f"{move} is not one of the legal moves") from None
        action = _action(game, legal[row])
        game.apply(legal[row])
        return row, action
    # Before the move is applied, while the position still gives each legal move its action.
    actions = [_action(game, m) for m in legal]
    events = game.apply(answer)  # the engine checks what it is
    played = dict(events[0]).get("move")
    rows = [i for i, m in enumerate(legal) if m.notation == played]
    if not rows:  # every move's first event names it: this would be an engine bug
        raise ValueError(f"cannot tell which legal move {shown(answer)} was")
    return rows[0], actions[rows[0]]


def is_search_bot(bot: object) -> bool:
    """Whether ``bot`` is a built-in search bot (``ismcts``, ``ismcts+neural`` with or without a
    count or policy file): one whose decisions carry root statistics (``game.search_stats``)."""
    return isinstance(bot, BuiltinBot) and bot.name.split(":", 1)[0] in SEARCH_BOTS


SEARCH_BOTS = ("ismcts", "ismcts+neural")
"""The base names of the built-in bots that search."""


def best_stat(stats: Sequence[tuple[Any, int, float]]) -> int:
    """The row of ``game.search_stats``'s result that the search plays (``bot_move``'s move):
    the most visits, ties to the higher value, then the earlier move (the search's own rule;
    moves are listed in its order)."""
    best = 0
    for i, (_, visits, value) in enumerate(stats):
        if (visits, value) > (stats[best][1], stats[best][2]):
            best = i
    return best


def _search_decision(
    game: Game[Any], bot: BuiltinBot, legal: list[Any]
) -> tuple[int, int, npt.NDArray[np.int32], npt.NDArray[np.float32]]:
    """Play ``bot``'s move by one search (``game.search_stats``, with the seed ``bot_move``
    would get: the same move): ``(row in legal, action id)`` of the move played and the
    statistics per legal move, in ``legal_moves()`` order: the rows of ``move_features`` in a
    climbing game (whose action ids name classes of moves: per move is what a move-scoring
    network learns from), the legal actions in Panda Head (each move its own action)."""
    stats = game.search_stats(bot.name, bot.next_seed(), time_limit=bot.time_limit)
    if [m for m, _, _ in stats] != legal:  # the engine lists them so: a bug otherwise
        raise ArgumentError("search_stats did not list the legal moves in legal_moves() order")
    row = best_stat(stats)
    visits = np.asarray([n for _, n, _ in stats], dtype=np.int32)
    values = np.asarray([v for _, _, v in stats], dtype=np.float32)
    action = _action(game, legal[row])
    game.apply(legal[row])
    return row, action, visits, values


def _failure(where: str, refused: MoveRefused, timer: MoveTimer | None) -> BotFailure:
    """The episode's failure for the bot's refused move, saying where and why."""
    cause = refused.cause
    if refused.kind == "timeout":
        return BotFailure(f"{where}: the bot took longer than the move time ({_seconds(timer)})")
    if refused.kind == "exception":
        return BotFailure(f"{where}: the bot raised {type(cause).__name__}: {cause}")
    if isinstance(cause, TypeError | ValueError | OverflowError):
        return BotFailure(f"{where}: illegal move {shown(refused.answer)}: {cause}")
    return BotFailure(
        f"{where}: illegal move {shown(refused.answer)}: {type(cause).__name__}: {cause}"
    )


def _timed(timer: MoveTimer | None) -> AbstractContextManager[None]:
    return nullcontext() if timer is None else timer.move()


def _seconds(timer: MoveTimer | None) -> str:
    return "?" if timer is None else f"{timer.seconds:g} s"


def _where(index: int, deal: int, step: int, seat: int, name: str) -> str:
    return f"episode {index} (deal {deal}), step {step}, seat {seat} ({cut(name)})"


def play_episode(
    game_spec: GameSpec,
    players: int,
    rules: AnyRules,
    bots: SeatBots,
    index: int,
    deal: int,
    move_features: bool = False,
    timer: MoveTimer | None = None,
    search_stats: bool = False,
) -> Episode:
    """Play the game dealt from ``deal`` to its end and return every decision (with every
    legal move's features if ``move_features``, for a game that has them; with the root
    statistics of every search bot's decision if ``search_stats``: the move it plays is the
    best of them, one search per decision).

    A built-in bot is asked on the game itself (it reads only what its seat may know); any
    other bot is shown a clone, as ``play_game`` does, so nothing it does reaches the game.
    With ``timer``, each Python bot's move (and the setting up of the bots) is bounded by its
    ``seconds``: an overrun is the bot's failure, like an exception (``MoveTimer``)."""
    game = game_spec.new_game(players, deal, rules)
    try:
        with _timed(timer):
            seats_bots = bots.for_episode(deal)
    except MoveTimeout:
        raise BotFailure(
            f"episode {index} (deal {deal}): setting up the bots took longer than the move time "
            f"({_seconds(timer)})"
        ) from None
    except Exception as err:  # a bot class that cannot be created, a reset() that raises
        raise BotFailure(
            f"episode {index} (deal {deal}): the bots could not be set up: "
            f"{type(err).__name__}: {err}"
        ) from err
    try:
        _start_protocol_bots(seats_bots, timer, f"episode {index} (deal {deal})")
        return _play(
            game_spec, game, seats_bots, bots, index, deal, move_features, timer, search_stats
        )
    finally:
        for bot in seats_bots:  # a protocol bot hears the end; its process goes back to the pool
            if isinstance(bot, ExecBot):
                bot.game_over(game)


def _start_protocol_bots(seats_bots: Sequence[object], timer: MoveTimer | None, where: str) -> None:
    """The protocol bots' processes started and greeted before the episode, outside the move
    time (each bounded by its own start time); their moves bounded by the move time."""
    for bot in seats_bots:
        if isinstance(bot, ExecBot):
            if timer is not None:
                bot.move_time = timer.seconds
            try:
                bot.start()
            except ExecBotError as err:
                raise BotFailure(f"{where}: the bot could not start: {err}") from None


def _play(
    game_spec: GameSpec,
    game: AnyGame,
    seats_bots: list[Bot[Any]],
    bots: SeatBots,
    index: int,
    deal: int,
    move_features: bool,
    timer: MoveTimer | None,
    search_stats: bool = False,
) -> Episode:
    features = move_features and game_spec.move_features > 0
    seats: list[int] = []
    observations: list[npt.NDArray[np.float32]] = []
    legal_ids: list[int] = []
    legal_counts: list[int] = []
    actions: list[int] = []
    chosen: list[int] = []
    move_rows: list[npt.NDArray[np.float32]] = []
    search_visits: list[npt.NDArray[np.int32]] = []
    search_values: list[npt.NDArray[np.float32]] = []
    while True:
        seat = game.current_player
        if seat is None:
            break
        observations.append(game.observation(seat))
        ids = game.legal_actions()
        legal_ids.extend(ids)
        legal_counts.append(len(ids))
        legal = game.legal_moves()
        if features:
            move_rows.append(game_spec.legal_move_features(game))
        bot = seats_bots[seat]
        if search_stats and is_search_bot(bot):
            assert isinstance(bot, BuiltinBot)
            try:
                row, action, visits, values = _search_decision(game, bot, legal)
            except ArgumentError as err:
                where = _where(index, deal, len(seats), seat, bots.names[seat])
                raise BotFailure(f"{where}: {err}") from err
            search_visits.append(visits)
            search_values.append(values)
            seats.append(seat)
            actions.append(action)
            chosen.append(row)
            continue
        if search_stats:  # a bot that does not search: no statistics
            search_visits.append(np.zeros(0, dtype=np.int32))
            search_values.append(np.zeros(0, dtype=np.float32))
        try:
            row, action = ask_move(
                seats_bots[seat],
                game,
                seat,
                take=partial(_play_answer, game, legal),
                bound=timer,
                failures=(Exception,),  # as before: sys.exit() in a bot ends the run
            )
        except MoveRefused as refused:
            where = _where(index, deal, len(seats), seat, bots.names[seat])
            raise _failure(where, refused, timer) from refused.cause
        seats.append(seat)
        actions.append(action)
        chosen.append(row)
    winner = game.winner
    assert winner is not None, "the loop ends only when the game is over"
    scores = tuple(game.scores)
    n = len(seats)
    legal_offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(legal_counts, out=legal_offsets[1:])
    offsets = None
    flat = None
    if features:
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum([len(r) for r in move_rows], out=offsets[1:])
        flat = (
            np.concatenate(move_rows)
            if move_rows
            else np.zeros((0, game_spec.move_features), dtype=np.float32)
        )
    search_offsets = None
    if search_stats:
        search_offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum([len(v) for v in search_visits], out=search_offsets[1:])
    return Episode(
        index=index,
        deal=deal,
        seats=np.asarray(seats, dtype=np.int8),
        observations=np.stack(observations).astype(np.float32, copy=False)
        if n
        else np.zeros((0, game_spec.observation_size), dtype=np.float32),
        legal_actions=np.asarray(legal_ids, dtype=np.int16),
        legal_offsets=legal_offsets,
        actions=np.asarray(actions, dtype=np.int32),
        move_index=np.asarray(chosen, dtype=np.int32),
        move_features=flat,
        move_offsets=offsets,
        winner=winner,
        scores=scores,
        places=game_spec.placements(winner, scores, game_spec.left_of(game)),
        search_visits=_joined(search_visits, np.int32) if search_stats else None,
        search_values=_joined(search_values, np.float32) if search_stats else None,
        search_offsets=search_offsets,
    )


def _joined(parts: list[npt.NDArray[Any]], dtype: Any) -> npt.NDArray[Any]:
    return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)
