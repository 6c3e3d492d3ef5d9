"""What a connected bot is sent about its seat, and the answers to its asks: built from the seat
object only (``game.seat(player)``, ``Table.seat(player)``, docs/bot_protocol.md), never from the
game: every function here takes the seat object.

Every function here calls the engine: run them in a worker thread (the drivers do, under the
table's lock for a table).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from panda_core._args import cut
from panda_core._registry import AnyGame, AnySeat, spec_of
from panda_core.protocol.asks import AskRefused, answer_value
from panda_core.protocol.messages import (
    Ask,
    bot_seed,
    decision_message,
    end_message,
    start_message,
)

__all__ = [
    "AskRefused",
    "Decision",
    "answer_ask",
    "decision",
    "end",
    "seat_of",
    "start",
]


def seat_of(game: AnyGame, player: int) -> Any:
    """The seat object of ``player``: what that seat may know, and nothing else."""
    return game.seat(player)


def start(info: AnySeat, *, game_id: str, deal_seed: int, move_time: float) -> str:
    """The ``start`` message of the seat ``info`` (its game dealt from ``deal_seed``), as
    text."""
    game_spec = spec_of(info)
    seat = info.player
    message = start_message(
        game_id=game_id,
        game=game_spec.name,
        rules=game_spec.rules_dict(info.rules),
        players=info.players,
        seat=seat,
        seed=bot_seed(deal_seed, seat),
        move_time_ms=round(move_time * 1000),
    )
    return _text(message)


@dataclass(frozen=True)
class Decision:
    """A decision of one seat: its message as the protocol's builder made it (every event the
    seat saw so far, no time yet) and its legal moves, to check the bot's answer against."""

    base: Mapping[str, Any]
    legal: tuple[tuple[int, str], ...]
    """``(action id, notation)`` of each legal move, in the engine's order (a move's index in
    it is the move's index in ``legal_moves()``)."""
    by_id: Mapping[int, int]
    """The index of the move each legal id plays: in the climbing games several moves share an
    id, and the engine's ``move_for_action`` picks one of them, as it does for every transport."""

    @property
    def events(self) -> int:
        """How many events the seat saw so far."""
        return len(self.base["events"])

    def message(self, since: int, time_left: float) -> str:
        """The message as sent now: the events after the ``since`` first, the time left."""
        return _text(
            {
                **self.base,
                "events": self.base["events"][since:],
                "time_left_ms": max(0, round(time_left * 1000)),
            }
        )

    def index_of(self, answer: Mapping[str, Any]) -> int | str:
        """The index of the legal move ``answer`` (a checked ``move`` message) names, or why it
        names none (an id or notation of no legal move). An id several legal moves share (in the
        climbing games an id is a move's shape) plays the one the engine picks for it."""
        if "id" in answer:
            found = self.by_id.get(answer["id"])
            if found is not None:
                return found
            return f"answered id {answer['id']}, not one of its legal moves"
        notation = answer.get("notation")
        for k, (_, legal) in enumerate(self.legal):
            if legal == notation:
                return k
        return f"answered {cut(repr(notation))}, not one of its legal moves"


def decision(seat: AnySeat, *, game_id: str, number: int) -> Decision:
    """The seat's decision number ``number`` (it is to move), from its seat object."""
    base = decision_message(
        game_id=game_id,
        decision=number,
        seat=seat,
        events=seat.events(seat.player),
        time_left_ms=None,
    )
    legal = tuple((m["id"], m["notation"]) for m in base["legal"])
    index = {notation: k for k, (_, notation) in enumerate(legal)}
    by_id = {
        action: index[seat.move_for_action(action).notation]
        for action in dict.fromkeys(a for a, _ in legal if a is not None)
    }
    return Decision(base=base, legal=legal, by_id=by_id)


def end(
    seat: AnySeat,
    *,
    game_id: str,
    since: int,
    forfeit: dict[str, Any] | None,
) -> str:
    """The ``end`` message of the seat: the result, the events after the ``since`` first
    ones, the forfeit if the game (or this seat's part in it) ended by one."""
    events = seat.events(seat.player)[since:]
    return _text(end_message(game_id=game_id, seat=seat, events=events, forfeit=forfeit))


def answer_ask(seat: AnySeat, ask: Ask, time_left: float) -> str:
    """The ``answer`` message to ``ask`` of the seat (it is to move), from its seat object only
    (:func:`panda_core.protocol.asks.answer_value`); :class:`AskRefused` if the engine does not
    answer it."""
    value = answer_value(seat, ask, time_left)
    return _text({"type": "answer", "game_id": ask["game_id"], "ask": ask["ask"], "value": value})


def _text(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))
