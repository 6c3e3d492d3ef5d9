"""Asking a seat's bot for a move within a time bound, and never letting a bot break the table.

Built-in bots run in the engine with the deadline passed down (ISMCTS returns its best move when
time is up). A Python bot named by an import path, and a protocol bot (``exec:COMMAND``), run in
a process of their own that is sent only their seat's messages
(:class:`~panda_core.table.bot_process.ContainedBot`): a crash, ``os._exit`` or a bot that never
returns costs that process, which is killed and replaced. A Python bot *object* handed to the
table runs in a worker thread of the table's process; a thread cannot be killed, so one that never
returns keeps its thread (the table moves on without it), and one that ends the process
(``os._exit``) ends the table: give bots by import path to contain them.

Either way the answer is read once into a plain action id or notation
(:func:`~panda_core.bot_answer.plain_move`), checked on a copy of the game, and only that
plain value is played. If the bot raises, answers something that is not a legal move, or does not
answer within the bound, the table plays the built-in heuristic's move for that decision instead
and says so (a :class:`Fallback`), so a person is never left waiting on a broken bot.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from panda_core._args import cut, shown
from panda_core._registry import AnyGame
from panda_core.bot_answer import PlainMove, plain_move, refusal_reason
from panda_core.bot_move import MoveRefused, ask_move
from panda_core.bots import Bot, BuiltinBot, reset_bots
from panda_core.move_timer import ThreadBound
from panda_core.protocol.messages import bot_seed
from panda_core.table.bot_process import ContainedBot
from panda_core.table.seats import SeatSpec

__all__ = ["BotAnswer", "Fallback", "ask_bot", "close_bots", "seat_bots"]

FALLBACK_BOT = "heuristic"
"""The bot that answers when a Python bot fails (instant, sees only what the seat may know)."""


@dataclass(frozen=True)
class Fallback:
    """Why a Python bot's answer was not played."""

    seat: int
    bot: str
    reason: str

    def as_event(self) -> dict[str, Any]:
        return {
            "type": "bot_fallback",
            "player": self.seat,
            "bot": self.bot,
            "reason": self.reason,
            "played_by": FALLBACK_BOT,
        }


@dataclass(frozen=True)
class BotAnswer:
    """A bot's move (a legal move of the game it was asked on) and, if the bot failed, why."""

    move: Any
    fallback: Fallback | None = None


SeatBot = Bot[Any] | ContainedBot
"""A seat's bot as the table asks it."""


def seat_bots(seats: Sequence[SeatSpec], seed: int, time_limit: float) -> list[SeatBot | None]:
    """Each seat's bot (``None`` for a person): built-in bots as :class:`BuiltinBot` bounded by
    ``time_limit``, import paths and ``exec:`` commands as :class:`ContainedBot` (started, so
    one that cannot start is a ``TableError`` now), Python bot objects as given; every bot reset
    for the game dealt from ``seed`` the way :func:`panda_core.bots.play_game` resets them."""
    bots: list[SeatBot | None] = []
    for spec in seats:
        if spec.builtin is not None:
            bots.append(BuiltinBot(spec.builtin, time_limit=time_limit))
        elif spec.import_path is not None:
            bots.append(ContainedBot(spec.import_path))
        elif spec.command is not None:
            bots.append(ContainedBot(spec.name, command=spec.command))
        else:
            bots.append(spec.bot)
    contained = [b for b in bots if isinstance(b, ContainedBot)]
    try:
        # A contained bot starts its process here. Its seed is one-way (bot_seed): from the
        # seed reset_bots gives, a bot could work out the deal's, and so every hand.
        reset_bots([None if isinstance(b, ContainedBot) else b for b in bots], seed)
        for s, bot in enumerate(bots):
            if isinstance(bot, ContainedBot):
                bot.reset(bot_seed(seed, s))
        for bot in contained:
            bot.check_started()
    except BaseException:
        for bot in contained:
            bot.close()
        raise
    return bots


def close_bots(bots: Sequence[object]) -> None:
    """Stop the worker processes of the contained bots among ``bots``."""
    for bot in bots:
        if isinstance(bot, ContainedBot):
            bot.close()


def _python_bot(
    bot: Bot[Any], game: AnyGame, seat: int, time_limit: float
) -> tuple[PlainMove | None, str]:
    """The plain move the Python bot object chose and ``""``, or ``None`` and the reason.

    Everything that touches the bot's objects (the call, reading its answer, wording its
    exception) runs in a worker thread, so a hostile ``__index__`` or ``__str__`` is bounded
    by the same time limit and caught there; in a worker thread anything the bot raises is its
    failure."""
    bound = ThreadBound(time_limit, name=f"panda-core bot seat {seat}")
    try:
        move = ask_move(
            bot,
            game,
            seat,
            take=plain_move,
            bound=bound,
            failures=(BaseException,),
            describe=refusal_reason,
        )
    except MoveRefused as refused:
        if refused.kind == "timeout":
            return None, f"no answer within {time_limit:g} s"
        return None, refused.reason
    return move, ""


def _legal_on_copy(game: AnyGame, move: PlainMove) -> str:
    """``""`` if the plain ``move`` is legal in ``game`` (tried on a copy), else why not."""
    try:
        game.clone().apply(move)
    except Exception as err:  # a plain int/str: only the engine's own errors come back
        return f"answered {shown(move)}, not a legal move: {cut(str(err))}"
    return ""


def ask_bot(
    bot: SeatBot, name: str, game: AnyGame, seat: int, time_limit: float, fallback: BuiltinBot
) -> BotAnswer:
    """The move of ``bot`` (called ``name``), the bot of ``seat``, the seat to move, within
    ``time_limit`` seconds. A built-in bot is asked on the game itself (it reads nothing hidden,
    and the engine bounds its time); a Python bot that fails is replaced by ``fallback`` for
    this decision. The move is a plain action id or notation for a Python bot."""
    if isinstance(bot, BuiltinBot):
        return BotAnswer(ask_move(bot, game, seat))
    if isinstance(bot, ContainedBot):
        move, reason = bot.ask(game, seat, time_limit)
    else:
        move, reason = _python_bot(bot, game, seat, time_limit)
    if move is not None and not reason:
        reason = _legal_on_copy(game, move)
    if not reason:
        return BotAnswer(move)
    return BotAnswer(fallback(game, seat), Fallback(seat, name, reason))
