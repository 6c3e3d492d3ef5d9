"""Bots written in Python, the built-in bots as Python objects, and single games between them
(many games, with ratings: :func:`panda_core.arena.arena`).

A **bot** is anything callable as ``bot(game, player) -> move`` (the :class:`Bot` protocol): a
plain function or an object with ``__call__``. It is asked for a move only when ``player`` is the
seat to move, and answers with

* any game: an action id (``int``, one of ``game.legal_actions()``), a move object (one of
  ``game.legal_moves()``) or a notation (``"7+B"``, ``"single Ea8"``);
* ``year`` / ``spin`` also: a move dict.

An object bot may also define ``reset(seed: int) -> None``; :func:`play_game` calls it at the
start of every game with a seed derived one-way from the game's seed and the seat, so a
randomised bot can be reproducible (and cannot work the deal out from its seed). It may define
``game_over(seat) -> None`` too, called with its seat once the game has ended.

What a bot is handed is its **seat** (``game.seat(player)``, :mod:`panda_core.seat`), not the
game: that seat's view, observation, filtered events, its legal moves while it is to move,
``determinize(seed)`` (complete games sampled from what it knows, for a search) and
``bot_move(name, seed)`` (a built-in bot's move for it). Nothing reachable from the seat shows a
card the seat may not know, and nothing a bot does to it reaches the game. Every loop that plays
move by move (this one, the table, the arena, self-play) asks its bots through
:func:`panda_core.bot_move.ask_move`. A bot written for the old clone keeps working if it uses
only those verbs (``game.view(player)`` with its own seat works the same).

>>> from panda_core.bots import play_game
>>> def lowest(game, player):                # any game: the lowest legal action id
...     return game.legal_actions()[0]
>>> result = play_game("head", [lowest, "heuristic", "random"], seed=7)
>>> result.winner in range(3)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

import numpy as np

from panda_core._args import cut, players_arg, seed_arg, shown
from panda_core._builtin_bot import BuiltinBot, is_builtin_bot, names_builtin
from panda_core._core import IllegalMoveError, RulesError, nth_output
from panda_core._registry import GAMES, AnyGame, AnyMove, AnyRules, GameName, MoveDict, spec
from panda_core.bot_move import ask_move, tell_game_over
from panda_core.protocol.messages import bot_seed

__all__ = [
    "GAMES",
    "Bot",
    "BuiltinBot",
    "Game",
    "GameName",
    "GameResult",
    "IllegalBotMoveError",
    "Move",
    "bot_name",
    "is_builtin_bot",
    "names_builtin",
    "nth_output",
    "play_game",
    "reset_bots",
]

Game: TypeAlias = AnyGame
"""A game object a bot is shown (any game; the verbs every game has: ``panda_core.Game``)."""
Move: TypeAlias = AnyMove | MoveDict | int | str
"""What a bot may answer: an action id, a move object, a notation or a move dict."""

G_contra = TypeVar("G_contra", bound=AnyGame, contravariant=True)


@runtime_checkable
class Bot(Protocol[G_contra]):
    """A player: ``bot(game, player)`` returns the move of ``player``, the seat to move.

    Parametrised by the game it plays: ``Bot[HeadGame]``, ``Bot[ClimbGame]``, or ``Bot[Game]``
    for a bot that plays every game (``Bot[Any]`` where any bot will do). An implementation may
    also define ``reset(self, seed: int) -> None``, called at the start of each game (the protocol
    does not require it, so plain functions are bots too).
    """

    def __call__(self, game: G_contra, player: int, /) -> Move: ...


# ---- seeds ----------------------------------------------------------------------------------


def reset_bots(bots: Sequence[object], seed: int) -> None:
    """Call ``reset`` on every bot that has one, with a seed derived from the game's ``seed``
    and the bot's seat (:func:`panda_core.protocol.messages.bot_seed`: one-way, so a bot cannot
    work the deal out from its seed; one stream per seat, apart from the deal's)."""
    for seat, bot in enumerate(bots):
        reset = getattr(bot, "reset", None)
        if callable(reset):
            reset(bot_seed(seed, seat))


def bot_name(bot: object) -> str:
    """A readable name for a bot: a built-in name, a ``name`` attribute, a function's name, or the
    class name."""
    if isinstance(bot, str):
        return bot
    name = getattr(bot, "name", None)
    if isinstance(name, str):
        return name
    name = getattr(bot, "__name__", None)
    if isinstance(name, str):
        return name
    return type(bot).__name__


def _as_bot(bot: Bot[Any] | str) -> Bot[Any]:
    if isinstance(bot, str):
        return BuiltinBot(bot)
    if not callable(bot):
        raise TypeError(
            f"a bot is a built-in bot name or a callable bot(game, player), got {shown(bot)}"
        )
    return bot


# ---- one game ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game played by :func:`play_game`."""

    game: GameName
    players: int
    bots: tuple[str, ...]
    """Bot name per seat."""
    seed: int
    """The deal's seed."""
    winner: int
    scores: tuple[int, ...]
    rounds: int
    """Rounds played (hands, in Panda Head)."""
    decisions: int
    """Moves made."""
    state: Game = field(repr=False, compare=False)
    """The finished game (``state.to_json()`` records it)."""
    full_information: bool = False
    """Whether the Python bots were handed the whole game (the research opt-in) instead of
    their seats."""


def _normalise(move: object) -> object:
    """numpy integers are action ids too."""
    if isinstance(move, np.integer):
        return int(move)
    return move


class IllegalBotMoveError(IllegalMoveError):
    """A bot answered with an illegal move (or something that is not a move); an
    :class:`IllegalMoveError` that also names the seat and the bot. The game is unchanged."""

    seat: int
    """The seat the bot played."""
    bot: str
    """The bot's name."""
    game: Game
    """The game as it stands, unchanged by the refused move (for a post-mortem)."""


def _illegal(seat: int, name: str, move: object, err: Exception, game: Game) -> IllegalBotMoveError:
    # The engine's message and `err.move` are already cut; the bot's answer may be anything.
    exc = IllegalBotMoveError(
        f"seat {seat} ({cut(name)}) played an illegal move {shown(move)}: {err}"
    )
    exc.seat = seat
    exc.bot = name
    exc.game = game
    exc.move = str(getattr(err, "move", None) or shown(move))
    exc.reason = str(getattr(err, "reason", None) or err)
    exc.legal = list(getattr(err, "legal", None) or [])
    return exc


def play_game(
    game: str,
    bots: Sequence[Bot[Any] | str],
    players: int | None = None,
    seed: int = 0,
    rules: AnyRules | None = None,
    *,
    full_information: bool = False,
) -> GameResult:
    """Play one game of ``game`` (``"head"``, ``"year"``, ``"spin"``) dealt from ``seed``, one bot
    per seat (a :class:`Bot` or a built-in bot name), in a Python loop.

    ``players`` defaults to ``len(bots)``. At the start, each bot with a ``reset`` method is reset
    with a seed derived from ``(seed, seat)``. Each bot is handed its seat (``game.seat(seat)``),
    or with ``full_information=True`` (a research opt-in for perfect-information baselines,
    recorded in the result) a clone of the whole game; a built-in seat is asked on the game
    itself (it reads nothing hidden). At the end each bot with a ``game_over`` method is called
    with its seat. A move is checked by the engine: an
    illegal move, or an answer that is not a move, raises :class:`IllegalBotMoveError` (an
    :class:`IllegalMoveError`) naming the seat and the bot (``seat``, ``bot``, ``move``, ``reason``,
    ``legal``, and ``game``: the game as it was before that move, unchanged).
    """
    game_spec = spec(game)
    name = game_spec.name
    n = len(bots) if players is None else players_arg(players)
    if len(bots) != n:
        raise RulesError(f"need one bot per player: {n} players, {len(bots)} bots")
    seed = seed_arg(seed)
    state = game_spec.new_game(n, seed, rules)
    seats = [_as_bot(b) for b in bots]
    names = tuple(bot_name(b) for b in bots)
    reset_bots(seats, seed)
    decisions = 0
    while True:
        seat_or_none = state.current_player
        if seat_or_none is None:
            break
        seat = seat_or_none
        # Nothing is the bot's failure here (failures=()): what it raises reaches the caller as
        # it raised it.
        move = ask_move(
            seats[seat],
            state,
            seat,
            take=_normalise,
            failures=(),
            full_information=full_information,
        )
        try:
            state.apply(move)  # type: ignore[arg-type]  # checked by the engine
        except (TypeError, ValueError) as err:
            raise _illegal(seat, names[seat], move, err, state) from err
        decisions += 1
    winner = state.winner
    assert winner is not None, "the loop ends only when the game is over"
    tell_game_over(seats, state, failures=())
    rounds = len(state.round_results)
    return GameResult(
        game=name,
        players=n,
        bots=names,
        seed=seed,
        winner=winner,
        scores=tuple(state.scores),
        rounds=rounds,
        decisions=decisions,
        state=state,
        full_information=full_information,
    )
