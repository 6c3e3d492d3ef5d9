"""What a connected bot is sent about its seat, and the answers to its asks: built from the seat
object only (``game.seat(player)``, docs/bot_protocol.md), never from the game.

Every function here calls the engine: run them in a worker thread (the drivers do, under the
table's lock for a table). Until every game class has ``seat()``, :func:`seat_of` hands out
:class:`GameSeat`, a read-only wrapper of the game that answers the seat's verbs for one player
and nothing else (it stays in the server: a connected bot only ever receives messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from panda_core._args import cut
from panda_core._core import check_bot
from panda_core._registry import AnyGame, spec_of
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
    "GameSeat",
    "answer_ask",
    "decision",
    "end",
    "seat_of",
    "start",
]


class AskRefused(Exception):
    """An ask the engine cannot answer (an unknown built-in bot, a path): the game is forfeited."""


@dataclass(frozen=True)
class _Legal:
    action_id: int
    notation: str


class GameSeat:
    """Seat ``player`` of ``game``: the seat object's verbs that the messages and the asks use,
    answered for that player only."""

    def __init__(self, game: AnyGame, player: int) -> None:
        self._game = game
        self.player = player

    @property
    def current_player(self) -> int | None:
        return self._game.current_player

    @property
    def scores(self) -> list[int]:
        return list(self._game.scores)

    @property
    def winner(self) -> int | None:
        return self._game.winner

    def view(self, player: int | None = None) -> Any:
        return self._game.view(self._own(player))

    def events(self, player: int | None = None) -> list[Any]:
        return list(self._game.events(self._own(player)))

    def observation(self, player: int | None = None) -> Any:
        return self._game.observation(self._own(player))

    def legal_moves(self) -> list[_Legal]:
        """The legal moves when this seat is to move, each with its action id (in the climbing
        games several moves may share one: the shape, not the cards) and notation."""
        if self._game.current_player != self.player:
            return []
        game: Any = self._game  # each game's own move type goes back to it
        return [_Legal(game.action_index(m), m.notation) for m in game.legal_moves()]

    def legal_list(self) -> list[dict[str, Any]]:
        return [{"id": m.action_id, "notation": m.notation} for m in self.legal_moves()]

    def result(self) -> Any:
        return self._game.result()

    def determinize(self, player: int | None = None, seed: int | None = None) -> AnyGame:
        return self._game.determinize(self._own(player), seed)

    def bot_move(
        self, bot: str = "heuristic", seed: int | None = None, time_limit: float | None = None
    ) -> Any:
        if self._game.current_player != self.player:
            raise AskRefused(f"seat {self.player} is not to move")
        return self._game.bot_move(bot, seed, time_limit=time_limit)

    def _own(self, player: int | None) -> int:
        if player is not None and player != self.player:
            raise AskRefused(f"this is seat {self.player}'s information, not seat {player}'s")
        return self.player


def seat_of(game: AnyGame, player: int) -> Any:
    """The seat object of ``player`` (``game.seat(player)``; :class:`GameSeat` until the game
    classes have it)."""
    make = getattr(game, "seat", None)
    if callable(make):
        return make(player)
    return GameSeat(game, player)


def start(game: AnyGame, *, game_id: str, seat: int, deal_seed: int, move_time: float) -> str:
    """The ``start`` message of seat ``seat`` of ``game`` (dealt from ``deal_seed``), as text."""
    game_spec = spec_of(game)
    message = start_message(
        game_id=game_id,
        game=game_spec.name,
        rules=game_spec.rules_dict(game.rules),
        players=game.players,
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
        names none: an id or notation of no legal move, or an id several legal moves share (in
        the climbing games an id is a move's shape: answer those by notation)."""
        if "id" in answer:
            found = [k for k, (action, _) in enumerate(self.legal) if action == answer["id"]]
            if len(found) == 1:
                return found[0]
            if found:
                return (
                    f"answered id {answer['id']}, which {len(found)} legal moves share: "
                    "answer by notation"
                )
            return f"answered id {answer['id']}, not one of its legal moves"
        notation = answer.get("notation")
        for k, (_, legal) in enumerate(self.legal):
            if legal == notation:
                return k
        return f"answered {cut(repr(notation))}, not one of its legal moves"


def decision(game: AnyGame, *, game_id: str, player: int, number: int) -> Decision:
    """Seat ``player``'s decision number ``number`` (it is to move), from its seat object."""
    seat = seat_of(game, player)
    base = decision_message(
        game_id=game_id, decision=number, seat=seat, events=seat.events(player), time_left_ms=None
    )
    return Decision(base=base, legal=tuple((m["id"], m["notation"]) for m in base["legal"]))


def end(
    game: AnyGame,
    *,
    game_id: str,
    player: int,
    since: int,
    forfeit: dict[str, Any] | None,
) -> str:
    """The ``end`` message of seat ``player``: the result, the events after the ``since``
    first ones, the forfeit if the game (or this seat's part in it) ended by one."""
    seat = seat_of(game, player)
    events = seat.events(player)[since:]
    return _text(end_message(game_id=game_id, seat=seat, events=events, forfeit=forfeit))


def answer_ask(game: AnyGame, player: int, ask: Ask, time_left: float) -> str:
    """The ``answer`` message to ``ask`` of seat ``player`` (it is to move), from its seat
    object only; :class:`AskRefused` if the engine cannot answer it."""
    seat = seat_of(game, player)
    kind = ask["ask"]
    value: Any
    try:
        if kind == "observation":
            value = [float(x) for x in seat.observation(player)]
        elif kind == "determinize":
            value = seat.determinize(player, ask["seed"]).snapshot()
        else:
            bot = ask["bot"]
            if bot.startswith("neural:"):
                raise AskRefused("ask bot_move of 'neural', never 'neural:PATH' (no path opens)")
            check_bot(bot)
            move = seat.bot_move(bot, ask["seed"], time_limit=max(0.001, time_left))
            value = {"id": move.action_id, "notation": move.notation}
    except AskRefused:
        raise
    except Exception as err:  # the engine's refusal of the ask's values
        raise AskRefused(f"the engine refused the ask {kind!r}: {err}") from None
    return _text({"type": "answer", "game_id": ask["game_id"], "ask": kind, "value": value})


def _text(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))
