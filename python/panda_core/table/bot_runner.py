"""Asking a seat's bot for a move within a time bound, and never letting a bot break the table.

Built-in bots run in the engine with the deadline passed down (ISMCTS returns its best move when
time is up). A Python bot runs in a worker thread on a clone of the game; if it raises, answers
with something that is not a legal move, or does not answer within the bound, the table plays the
built-in heuristic's move for that decision instead and says so (a :class:`Fallback`), so a
person is never left waiting on a broken bot. A thread cannot be killed: a Python bot that never
returns keeps its thread, but the table has moved on without it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from panda_core._args import cut, shown
from panda_core._core import PandaCoreError
from panda_core._registry import AnyGame
from panda_core.bots import Bot, BuiltinBot, reset_bots
from panda_core.table.seats import SeatSpec

__all__ = ["BotAnswer", "Fallback", "ask_bot", "seat_bots"]

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


def seat_bots(seats: Sequence[SeatSpec], seed: int, time_limit: float) -> list[Bot[Any] | None]:
    """Each seat's bot (``None`` for a person): built-in bots as :class:`BuiltinBot` bounded by
    ``time_limit``, Python bots as given; every bot reset for the game dealt from ``seed`` the
    way :func:`panda_core.bots.play_game` resets them."""
    bots: list[Bot[Any] | None] = []
    for spec in seats:
        if spec.builtin is not None:
            bots.append(BuiltinBot(spec.builtin, time_limit=time_limit))
        else:
            bots.append(spec.bot)
    reset_bots(bots, seed)
    return bots


def _python_bot(bot: Bot[Any], game: AnyGame, seat: int, time_limit: float) -> tuple[Any, str]:
    """The move the Python bot chose (checked on a clone) and ``""``, or ``None`` and the reason
    it is not played."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["move"] = bot(game.clone(), seat)
        except BaseException as err:  # the bot's failure is reported, never raised at the table
            box["error"] = err

    worker = threading.Thread(target=run, name=f"panda-core bot seat {seat}", daemon=True)
    worker.start()
    worker.join(time_limit)
    if worker.is_alive():
        return None, f"no answer within {time_limit:g} s"
    if "error" in box:
        err = box["error"]
        return None, f"raised {type(err).__name__}: {cut(str(err))}"
    move = box.get("move")
    if isinstance(move, np.integer):  # numpy integers are action ids
        move = int(move)
    try:
        game.clone().apply(move)  # type: ignore[arg-type]  # the engine decides, on a copy
    except (PandaCoreError, TypeError) as err:
        return None, f"answered {shown(move)}, not a legal move: {cut(str(err))}"
    return move, ""


def ask_bot(
    bot: Bot[Any], name: str, game: AnyGame, seat: int, time_limit: float, fallback: BuiltinBot
) -> BotAnswer:
    """The move of ``bot`` (called ``name``), the bot of ``seat``, the seat to move, within
    ``time_limit`` seconds. A built-in bot is asked on the game itself (it reads nothing hidden,
    and the engine bounds its time); a Python bot that fails is replaced by ``fallback`` for
    this decision."""
    if isinstance(bot, BuiltinBot):
        return BotAnswer(bot(game, seat))
    move, reason = _python_bot(bot, game, seat, time_limit)
    if not reason:
        return BotAnswer(move)
    return BotAnswer(fallback(game, seat), Fallback(seat, name, reason))
