"""Bots written in Python, the built-in bots as Python objects, single games and tournaments.

A **bot** is anything callable as ``bot(game, player) -> move`` (the :class:`Bot` protocol): a
plain function or an object with ``__call__``. It is asked for a move only when ``player`` is the
seat to move, and answers with

* any game: an action id (``int``, one of ``game.legal_actions()``), a move object (one of
  ``game.legal_moves()``) or a notation (``"7+B"``, ``"single Ea8"``);
* ``year`` / ``spin`` also: a move dict.

An object bot may also define ``reset(seed: int) -> None``; :func:`play_game` calls it at the
start of every game with a seed derived from the game's seed, so a randomised bot can be
reproducible.

Fair play: a bot receives a **clone** of the game (cloning is a copy of a small fixed-size state,
about a tenth of a microsecond), so nothing it does to that object reaches the real game. The clone
still holds the hidden information (other hands, the draw pile); a bot must use only what the
seat may know: ``game.view(player)``, ``game.observation(player)``, the legal moves and the public
history. The built-in bots and ``game.determinize(player, seed)`` follow that rule.

>>> from panda_core.bots import play_game, tournament
>>> def lowest(game, player):                # any game: the lowest legal action id
...     return game.legal_actions()[0]
>>> result = play_game("head", [lowest, "heuristic", "random"], seed=7)
>>> result.winner in range(3)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, TypeVar, runtime_checkable

import numpy as np

from panda_core._args import count_arg, cut, players_arg, seed_arg, shown
from panda_core._core import (
    BOT_NAMES,
    ArgumentError,
    ClimbMove,
    ClimbSettings,
    HeadMove,
    IllegalMoveError,
    RulesError,
    check_bot,
    mix64,
    nth_output,
)
from panda_core._registry import GAMES, AnyGame, AnyRules, GameName, one_rules, spec
from panda_core._types import ClimbMoveDict

__all__ = [
    "GAMES",
    "Bot",
    "BotStanding",
    "BuiltinBot",
    "Game",
    "GameName",
    "GameResult",
    "IllegalBotMoveError",
    "Move",
    "TournamentResult",
    "bot_name",
    "climb_settings",
    "is_builtin_bot",
    "names_builtin",
    "new_game",
    "nth_output",
    "play_game",
    "reset_bots",
    "tournament",
]

Game: TypeAlias = AnyGame
"""A game object a bot is shown (any game; the verbs every game has: ``panda_core.Game``)."""
Move: TypeAlias = HeadMove | ClimbMove | ClimbMoveDict | int | str
"""What a bot may answer: an action id, a move object, a notation or a climbing move dict."""

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

_BOT_STREAM = 0xB0B5_B0B5_B0B5_B0B5
"""Separates the bots' seeds from the deals' (Python-driven games only). The stream functions
(SplitMix64's ``nth_output`` and ``mix64``, R-1, docs/rules/README.md) are the engine's."""


# ---- games ------------------------------------------------------------------------------------


def climb_settings(game: str, settings: ClimbSettings | None) -> ClimbSettings:
    """``settings`` (default ``ClimbSettings()``) with the preset of ``game`` (year or spin)."""
    rules = spec(game).rules(settings)
    if not isinstance(rules, ClimbSettings):
        raise RulesError("Panda Head takes HeadRules, not ClimbSettings")
    return rules


def new_game(
    game: str,
    players: int,
    seed: int,
    *,
    rules: AnyRules | None = None,
    settings: ClimbSettings | None = None,
) -> Game:
    """A new game of ``game`` (``"head"``, ``"year"`` or ``"spin"``) dealt from ``seed``.

    ``rules`` are the game's rules object; ``settings`` is the climbing games' older name for
    it (give one of them). Passing another game's kind is an error. See also
    :func:`panda_core.make`.
    """
    return spec(game).new_game(players, seed, one_rules(rules, settings))


# ---- built-in bots ----------------------------------------------------------------------------


def names_builtin(name: str) -> bool:
    """True for text in the built-in bots' grammar, valid or not: one of ``BOT_NAMES``, or
    ``"ismcts:…"`` / ``"neural:…"``. Such text is never a Python import path: a spec that
    names a built-in bot badly gets the engine's error (``check_bot``), not an import error."""
    return name in BOT_NAMES or name.startswith(("ismcts:", "neural:"))


def is_builtin_bot(name: object) -> bool:
    """True for the name of a built-in bot: one of ``BOT_NAMES``, ``"ismcts:N"`` with N in
    the engine's range, or ``"neural:PATH"`` naming a policy file that plays (a file is read
    and checked once). The engine's own parser decides (one grammar for every entry point)."""
    if not isinstance(name, str):
        return False
    try:
        check_bot(name)
    except RulesError:
        return False
    return True


def _check_builtin(name: str) -> str:
    """``name`` if it is a built-in bot, else the engine's ``RulesError`` (it names the built-in
    bots and the iteration range of ``ismcts:N``)."""
    check_bot(name)
    return name


class BuiltinBot:
    """A built-in bot (``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ismcts:N"``,
    ``"neural"``, ``"neural:PATH"``) as a :class:`Bot`, for any game.

    Each call asks the engine (``game.bot_move``) with a fresh seed
    from the bot's own stream; :meth:`reset` restarts that stream from ``(seed, reset seed)``, so a
    game is reproducible. The engine bots see only what the seat to move may know.
    """

    def __init__(
        self, name: str = "heuristic", seed: int = 0, time_limit: float | None = None
    ) -> None:
        self.name: str = _check_builtin(name)
        self.seed: int = seed_arg(seed)
        self.time_limit = time_limit
        """Seconds a decision may take (``game.bot_move``'s ``time_limit``); ``None``: no bound."""
        self._stream = self.seed
        self._calls = 0

    def reset(self, seed: int) -> None:
        """Restart the bot's random stream for a new game."""
        self._stream = mix64(self.seed ^ seed_arg(seed))
        self._calls = 0

    def next_seed(self) -> int:
        """The seed of the next decision (and advance the stream)."""
        value = nth_output(self._stream, self._calls)
        self._calls += 1
        return value

    def __call__(self, game: Game, player: int, /) -> HeadMove | ClimbMove:
        if game.current_player != player:
            raise ArgumentError(
                f"{self.name} was asked to move for seat {player}, but seat "
                f"{game.current_player} is to move"
            )
        return game.bot_move(self.name, self.next_seed(), time_limit=self.time_limit)

    def __repr__(self) -> str:
        return f"BuiltinBot({self.name!r}, seed={self.seed})"


def reset_bots(bots: Sequence[object], seed: int) -> None:
    """Call ``reset`` on every bot that has one, with a seed derived from the game's ``seed``
    and the bot's seat (one stream per seat, apart from the deal's)."""
    for seat, bot in enumerate(bots):
        reset = getattr(bot, "reset", None)
        if callable(reset):
            reset(nth_output(seed ^ _BOT_STREAM, seat))


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
    settings: ClimbSettings | None = None,
) -> GameResult:
    """Play one game of ``game`` (``"head"``, ``"year"``, ``"spin"``) dealt from ``seed``, one bot
    per seat (a :class:`Bot` or a built-in bot name), in a Python loop.

    ``players`` defaults to ``len(bots)``. At the start, each bot with a ``reset`` method is reset
    with a seed derived from ``(seed, seat)``. Each bot is shown a clone of the game; a built-in
    seat is asked on the game itself (it reads nothing hidden). A move is checked by the engine: an
    illegal move, or an answer that is not a move, raises :class:`IllegalBotMoveError` (an
    :class:`IllegalMoveError`) naming the seat and the bot (``seat``, ``bot``, ``move``, ``reason``,
    ``legal``, and ``game``: the game as it was before that move, unchanged).
    """
    name = spec(game).name
    n = len(bots) if players is None else players_arg(players)
    if len(bots) != n:
        raise RulesError(f"need one bot per player: {n} players, {len(bots)} bots")
    seed = seed_arg(seed)
    state = new_game(name, n, seed, rules=rules, settings=settings)
    seats = [_as_bot(b) for b in bots]
    names = tuple(bot_name(b) for b in bots)
    reset_bots(seats, seed)
    decisions = 0
    while True:
        seat_or_none = state.current_player
        if seat_or_none is None:
            break
        seat = seat_or_none
        bot = seats[seat]
        shown = state if isinstance(bot, BuiltinBot) else state.clone()
        move = _normalise(bot(shown, seat))
        try:
            state.apply(move)  # type: ignore[arg-type]  # checked by the engine
        except (TypeError, ValueError) as err:
            raise _illegal(seat, names[seat], move, err, state) from err
        decisions += 1
    winner = state.winner
    assert winner is not None, "the loop ends only when the game is over"
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
    )


# ---- tournaments ------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotStanding:
    """One bot's record in a tournament."""

    name: str
    games: int
    """Games it took part in."""
    seats: int
    """Seat-games it played (a bot filling two seats of a game counts twice)."""
    wins: int
    """Seat-games it won."""
    seat_counts: tuple[int, ...]
    """Games played at each seat."""

    @property
    def win_rate(self) -> float:
        """Fraction of its seat-games won (a fair share is ``1 / players``)."""
        return self.wins / self.seats if self.seats else 0.0


@dataclass(frozen=True)
class TournamentResult:
    """The result of :func:`tournament`: per-bot standings and every game."""

    game: GameName
    players: int
    seed: int
    standings: dict[str, BotStanding]
    results: tuple[GameResult, ...] = field(repr=False)

    @property
    def games(self) -> int:
        return len(self.results)

    def win_rates(self) -> dict[str, float]:
        """Win rate per bot (see :attr:`BotStanding.win_rate`)."""
        return {name: s.win_rate for name, s in self.standings.items()}

    def table(self) -> str:
        """A results table, best win rate first."""
        width = max([len("bot"), *(len(n) for n in self.standings)])
        lines = [
            f"{self.game}, {self.players} players, {self.games} games, seed {self.seed}",
            f"{'bot':<{width}}  {'games':>6}  {'seats':>6}  {'wins':>6}  {'win rate':>8}",
        ]
        ranked = sorted(self.standings.values(), key=lambda s: (-s.win_rate, s.name))
        for s in ranked:
            lines.append(
                f"{s.name:<{width}}  {s.games:>6}  {s.seats:>6}  {s.wins:>6}  {s.win_rate:>8.3f}"
            )
        return "\n".join(lines)


def tournament(
    game: str,
    bots: Mapping[str, Bot[Any] | str],
    games: int,
    players: int | None = None,
    seed: int = 0,
    *,
    rules: AnyRules | None = None,
    settings: ClimbSettings | None = None,
    rotate: bool = True,
) -> TournamentResult:
    """Play ``games`` games of ``game`` between named ``bots`` (a :class:`Bot` or a built-in name
    each); ``players`` defaults to the number of bots.

    Seats rotate: with ``k`` bots in order, rotation ``r`` puts bot ``(s + r) % k`` at seat ``s``.
    Over ``k`` consecutive games every bot sits at every seat equally often (with more seats than
    bots a bot fills several seats of a game; with more bots than seats each game has ``players``
    of them). The ``k`` games of one rotation share one deal (duplicate format: luck of the deal
    cancels out), dealt from the ``b``-th output of SplitMix64(``seed``) for the ``b``-th rotation.
    With ``rotate=True``, ``games`` must be a multiple of ``k``; ``rotate=False`` keeps the order
    given and deals every game afresh.
    """
    name = spec(game).name
    if not isinstance(bots, Mapping):
        raise TypeError(f"bots must be a mapping of names to bots, got {shown(bots)}")
    if not bots:
        raise RulesError("a tournament needs at least one bot")
    labels = list(bots)
    entries = [_as_bot(bots[label]) for label in labels]
    k = len(labels)
    # Every size is checked before anything is sized by it (a seat order of 2**64 seats).
    n = players_arg(k if players is None else players)
    seed = seed_arg(seed)
    games = count_arg(games, "games")
    if rotate and games % k:
        raise RulesError(
            f"with seat rotation, games must be a multiple of the number of bots ({k}) so that "
            f"every bot sits at every seat equally; got {games} (try {games - games % k} or "
            f"{games + k - games % k})"
        )
    if not rotate and k != n:
        raise RulesError(f"without rotation, need one bot per player: {n} players, {k} bots")
    results: list[GameResult] = []
    for g in range(games):
        block, r = divmod(g, k) if rotate else (g, 0)
        order = [(s + r) % k for s in range(n)]
        deal = nth_output(seed, block)
        result = play_game(
            name,
            [entries[i] for i in order],
            players=n,
            seed=deal,
            rules=rules,
            settings=settings,
        )
        results.append(
            GameResult(
                game=result.game,
                players=n,
                bots=tuple(labels[i] for i in order),
                seed=deal,
                winner=result.winner,
                scores=result.scores,
                rounds=result.rounds,
                decisions=result.decisions,
                state=result.state,
            )
        )
    standings = {}
    for label in labels:
        seat_counts = [sum(1 for res in results if res.bots[s] == label) for s in range(n)]
        standings[label] = BotStanding(
            name=label,
            games=sum(1 for res in results if label in res.bots),
            seats=sum(seat_counts),
            wins=sum(1 for res in results if res.bots[res.winner] == label),
            seat_counts=tuple(seat_counts),
        )
    return TournamentResult(
        game=name, players=n, seed=seed, standings=standings, results=tuple(results)
    )
