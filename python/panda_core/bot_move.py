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
the engine's, raised as they are. Any other bot is shown a clone, so nothing it does to the
object it is given reaches the game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol, TypeVar

from panda_core._builtin_bot import BuiltinBot
from panda_core._registry import AnyGame
from panda_core.move_timer import MoveTimeout

__all__ = ["BOT_FAILURES", "Bound", "FailureKind", "MoveRefused", "ask_move"]

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


def ask_move(
    bot: Any,
    game: AnyGame,
    seat: int,
    *,
    take: Callable[[object], T] = _as_is,
    bound: Bound | None = None,
    failures: tuple[type[BaseException], ...] = BOT_FAILURES,
    describe: Callable[[MoveRefused], str] | None = None,
) -> T:
    """``take(answer)`` of ``bot``'s answer for ``seat``, the seat to move in ``game``;
    :class:`MoveRefused` saying why not (the game is unchanged unless ``take`` plays it)."""
    if isinstance(bot, BuiltinBot):
        return take(bot(game, seat))

    def refused(kind: FailureKind, cause: BaseException, answer: object = None) -> MoveRefused:
        out = MoveRefused(kind, cause, answer)
        if describe is not None:
            out.reason = describe(out)
        return out

    def call() -> T:
        try:
            answer = bot(game.clone(), seat)
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
