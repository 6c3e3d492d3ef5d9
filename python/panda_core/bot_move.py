"""Asking a bot for its move: the one place a game loop calls a bot.

Every loop that plays move by move (:func:`panda_core.bots.play_game`, the table, the arena,
self-play, the contained bot's worker process) asks through :func:`ask_move`, which decides what
the bot is shown and bounds and classifies what it does; the loop passes in its own policy:

* ``take`` — what the loop does with the answer, under the same bound as the call (the bot's
  answer is the bot's code too: its ``__index__`` or ``__eq__`` run while it is read): read it
  into a plain value (:func:`panda_core.bot_answer.plain_move`), or look it up and play it;
* ``bound`` — how long the bot may take: a :class:`~panda_core.move_timer.MoveTimer` (a signal in
  the main thread), a :class:`~panda_core.move_timer.ThreadBound` (a worker thread the caller
  stops waiting for), or none;
* ``failures`` — which exceptions are the bot's failure (a loop that owns Ctrl-C leaves
  ``KeyboardInterrupt`` alone);
* ``describe`` — the loop's words for a failure, found under the same bound (reading the bot's
  exception runs its ``__str__``, the bot's code too);

and what to do when the bot fails (:class:`MoveRefused`): raise, forfeit the game, or play a
fallback move.

A built-in bot (:class:`~panda_core.bots.BuiltinBot`) is the engine's: it is asked on the game
itself (it reads only what its seat may know, and the engine bounds its time) and its errors are
the engine's, raised as they are. Any other bot is handed the seat object,
``game.seat(seat)`` (:mod:`panda_core.seat`): that seat's information and nothing else, so
nothing it does reaches the game and no card it may not know reaches it. ``full_information``
(a research opt-in for perfect-information baselines, which every loop that offers it records in
its results) hands it a clone of the whole game instead.

At the end of a game, :func:`tell_game_over` tells every bot that wants to know (a bot in
another process, which is sent the end of its game).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, TypeVar

from panda_core._builtin_bot import BuiltinBot
from panda_core._registry import AnyGame
from panda_core.move_timer import MoveTimeout

__all__ = [
    "BOT_FAILURES",
    "Bound",
    "FailureKind",
    "MoveRefused",
    "ask_move",
    "shown_to_bot",
    "tell_game_over",
]

T = TypeVar("T")

FailureKind = Literal["exception", "illegal", "timeout"]
"""Why a bot's move was refused: it raised, its answer could not be taken, or it overran."""

BOT_FAILURES: tuple[type[BaseException], ...] = (Exception, SystemExit)
"""What a bot may raise that is its failure (``sys.exit()`` too), in a loop that leaves Ctrl-C
(``KeyboardInterrupt``) to stop the loop itself."""


class Bound(Protocol):
    """How long a bot may take: ``run(call)`` returns ``call()`` or raises
    :class:`~panda_core.move_timer.MoveTimeout` when it overran."""

    def run(self, call: Callable[[], T]) -> T: ...


class MoveRefused(Exception):
    """The bot gave no move its loop could take."""

    def __init__(
        self, kind: FailureKind, cause: BaseException | None = None, answer: object = None
    ) -> None:
        super().__init__(kind)
        self.kind: FailureKind = kind
        self.cause = cause
        """What the bot raised (``"exception"``) or what taking its answer raised
        (``"illegal"``); ``None`` for a timeout."""
        self.answer = answer
        """The bot's answer, as it gave it (``"illegal"`` only)."""
        self.reason = ""
        """The loop's words for the failure (``describe``; ``""`` without it, and for a
        timeout)."""


def _as_is(answer: object) -> Any:
    return answer


def shown_to_bot(game: AnyGame, seat: int, full_information: bool = False) -> Any:
    """What a Python bot playing ``seat`` is handed: the seat object, or a clone of the whole
    game with ``full_information``."""
    return game.clone() if full_information else game.seat(seat)


def ask_move(
    bot: Any,
    game: AnyGame,
    seat: int,
    *,
    take: Callable[[object], T] = _as_is,
    bound: Bound | None = None,
    failures: tuple[type[BaseException], ...] = BOT_FAILURES,
    describe: Callable[[MoveRefused], str] | None = None,
    full_information: bool = False,
) -> T:
    """``take(answer)`` of ``bot``'s answer for ``seat``, the seat to move in ``game``;
    :class:`MoveRefused` saying why not (the game is unchanged unless ``take`` plays it).
    The bot is handed ``game.seat(seat)`` (a clone with ``full_information``)."""
    if isinstance(bot, BuiltinBot):
        return take(bot(game, seat))

    def refused(kind: FailureKind, cause: BaseException, answer: object = None) -> MoveRefused:
        out = MoveRefused(kind, cause, answer)
        if describe is not None:
            out.reason = describe(out)
        return out

    def call() -> T:
        try:
            answer = bot(shown_to_bot(game, seat, full_information), seat)
        except MoveTimeout:
            raise
        except failures as err:
            raise refused("exception", err) from err
        try:
            return take(answer)
        except MoveTimeout:
            raise
        except failures as err:
            raise refused("illegal", err, answer) from err

    try:
        return call() if bound is None else bound.run(call)
    except MoveTimeout:
        raise MoveRefused("timeout") from None


def tell_game_over(
    bots: Sequence[object], game: AnyGame, failures: tuple[type[BaseException], ...] = BOT_FAILURES
) -> list[BaseException | None]:
    """Call ``game_over(seat)`` on every bot that has one, with its own seat object of the ended
    ``game`` (a bot in another process sends it the end of its game). What a bot raises there is
    returned in its place, never raised: the game is over and its result stands."""
    out: list[BaseException | None] = []
    for seat, bot in enumerate(bots):
        hook = getattr(bot, "game_over", None)
        if not callable(hook):
            out.append(None)
            continue
        try:
            hook(game.seat(seat))
        except failures as err:
            out.append(err)
        else:
            out.append(None)
    return out
