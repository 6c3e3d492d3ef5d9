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
from dataclasses import dataclass
from typing import Any

import numpy as np

from panda_core._args import cut, shown
from panda_core._core import PandaCoreError, mix64, nth_output
from panda_core._registry import AnyGame
from panda_core.table.seats import SeatSpec

__all__ = ["BotAnswer", "Fallback", "ask_bot"]

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


def decision_seed(table_seed: int, seat: int, decision: int) -> int:
    """The seed of a bot's ``decision``-th decision at ``seat``: one stream per seat, derived
    from the table's seed, so a table with the same seed and seats plays the same game."""
    return nth_output(mix64(table_seed ^ (0xB0B5 + seat)), decision)


def _builtin(game: AnyGame, name: str, seed: int, time_limit: float) -> Any:
    return game.bot_move(name, seed, time_limit=time_limit)


def _python_bot(spec: SeatSpec, game: AnyGame, seat: int, time_limit: float) -> tuple[Any, str]:
    """The move the Python bot chose (checked on a clone) and ``""``, or ``None`` and the reason
    it is not played."""
    assert spec.bot is not None
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["move"] = spec.bot(game.clone(), seat)  # type: ignore[misc]
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


def ask_bot(spec: SeatSpec, game: AnyGame, seat: int, seed: int, time_limit: float) -> BotAnswer:
    """The move of the bot at ``seat`` (the seat to move) within ``time_limit`` seconds."""
    if spec.builtin is not None:
        return BotAnswer(_builtin(game, spec.builtin, seed, time_limit))
    move, reason = _python_bot(spec, game, seat, time_limit)
    if not reason:
        return BotAnswer(move)
    return BotAnswer(
        _builtin(game, FALLBACK_BOT, seed, time_limit), Fallback(seat, spec.name, reason)
    )
