"""The seat a contained Python bot is handed: built only from the protocol's messages.

The adapter (:mod:`panda_core.protocol.adapter`) runs a Python bot in a process of its own. That
process holds nothing but what the engine sent to this seat: the ``start`` of a game, one
``decision`` per move of the seat and the ``end``. :class:`RemoteSeat` answers the seat verbs of
``game.seat(player)`` (docs/bot_protocol.md) from those messages alone:

* the state (``player``, ``players``, ``rules``, ``current_player``, ``scores``, ``view()``,
  ``events()``, ``round_results``, ``result()``, the legal moves) comes from the last decision;
* ``observation()``, ``determinize(seed)`` and ``bot_move(bot, seed)`` are *asks*: the seat sends
  an ``ask`` line and waits for the engine's ``answer`` (at most :data:`MAX_ASKS` per decision).

``round_results`` and ``result()`` are rebuilt from the events (the round-end events carry every
field); ``result()`` after the end is the end message's own. ``cards()``, and the climbing games'
``move_info`` and ``legal_move_features``, are computed on a game sampled by one ``determinize``
ask (seed 0, once per decision): such a game holds exactly what this seat knows, so they answer as
the real seat does.

What differs from the seat object: Panda Head's legal moves are :class:`LegalMove` objects (a
decision lists a move's id and notation, not its cards); after the end there is no view (the end
message carries none); ``bot_move``'s ``time_limit`` is checked but not sent (the engine bounds
the search by the decision's time left); what the seat shows is plain JSON made into Python, so
a view's tuples arrive as lists. Like the seat object it is not pickled, and a copy is a copy of
what it knows. tests/test_protocol_adapter_seat.py compares it with ``game.seat(player)`` verb
by verb at every decision of complete games.
"""

from __future__ import annotations

import importlib
import json
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn, SupportsIndex, TypeVar

import numpy as np
import numpy.typing as npt

from panda_core._args import cut, shown
from panda_core._core import (
    ArgumentError,
    IllegalMoveError,
    InvalidStateError,
    check_bot,
    check_seed,
)
from panda_core._registry import AnyGame, GameSpec, spec, spec_of
from panda_core.protocol.messages import MAX_ASKS, ProtocolError

__all__ = ["Asker", "LegalMove", "RemoteSeat", "open_seat"]

Asker = Callable[[dict[str, Any]], Any]
"""What sends an ``ask`` message to the engine and returns its answer's ``value``."""

_MAX_TIME_LIMIT = 3600.0
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LegalMove:
    """A legal move of Panda Head as the protocol names it: its action id and notation.

    (The engine's ``HeadMove`` also lists the cards; a decision message carries only the id and
    the notation, which are what a bot answers with.)"""

    action_id: int | None
    """Its action id (``None`` for a move no action id reaches: answer its notation)."""
    notation: str

    def __repr__(self) -> str:
        return f"LegalMove({self.notation!r})"


def _plain(value: T) -> T:
    """A copy of plain JSON data (faster than ``copy.deepcopy``)."""
    return json.loads(json.dumps(value))  # type: ignore[no-any-return]


def _check_start(start: Mapping[str, Any]) -> None:
    if start.get("type") != "start":
        raise ProtocolError(f"a seat starts from a 'start' message, got {shown(start.get('type'))}")
    for key, kind in (("game_id", str), ("players", int), ("seat", int), ("rules", dict)):
        if type(start.get(key)) is not kind:
            raise ProtocolError(f"the start message's {key!r} is {shown(start.get(key))}")
    if not 0 <= start["seat"] < start["players"]:
        raise ProtocolError(f"seat {start['seat']} of a game of {start['players']} players")


def _rules_of(game: GameSpec, rules: Mapping[str, Any]) -> Any:
    """The rules object a start message's ``rules`` dict stands for (``spec.rules_dict`` back;
    a preset it names must be the game's own)."""
    options = dict(rules)
    preset = options.pop("preset", game.name)
    if preset != game.name:
        raise ProtocolError(f"the rules of {game.name!r} name the preset {shown(preset)}")
    return game.rules(None, **options)


class RemoteSeat:
    """One seat of one game, known only from the protocol's messages (see the module).

    Built by :func:`open_seat` from a ``start`` message; the adapter feeds it each ``decision``
    and the ``end``. ``ask`` sends an ask message and returns its answer's value."""

    __slots__ = (
        "_ask",
        "_asks",
        "_decision",
        "_end",
        "_events",
        "_events_text",
        "_game",
        "_game_id",
        "_legal",
        "_local",
        "_moves",
        "_player",
        "_players",
        "_rules",
        "_rules_dict",
    )

    def __init__(self, start: Mapping[str, Any], ask: Asker) -> None:
        _check_start(start)
        self._game = spec(start.get("game"))
        self._game_id: str = start["game_id"]
        self._player: int = start["seat"]
        self._players: int = start["players"]
        self._rules_dict: dict[str, Any] = _plain(dict(start["rules"]))
        self._rules: Any = None
        self._ask = ask
        self._asks = 0
        self._decision: dict[str, Any] | None = None
        self._end: dict[str, Any] | None = None
        self._events: list[Any] = []
        self._events_text = "[]"
        """The events as JSON text: each call of events() reads a fresh copy from it."""
        self._legal: list[tuple[int | None, str]] = []
        self._moves: list[Any] | None = None
        self._local: AnyGame | None = None

    # ---- fed by the adapter --------------------------------------------------------------

    @property
    def game_id(self) -> str:
        """The game's id (from its ``start``)."""
        return self._game_id

    def _decide(self, decision: Mapping[str, Any]) -> None:
        """Take this seat's next ``decision`` message (checked against the start)."""
        if decision.get("game_id") != self._game_id or decision.get("seat") != self._player:
            raise ProtocolError(
                f"a decision of game {shown(decision.get('game_id'))} seat "
                f"{shown(decision.get('seat'))} for the seat {self._player} of {self._game_id!r}"
            )
        if self._end is not None:
            raise ProtocolError(f"a decision after the end of {self._game_id!r}")
        legal = decision.get("legal")
        events = decision.get("events")
        if type(legal) is not list or type(events) is not list:
            raise ProtocolError("a decision lists its 'legal' moves and its 'events'")
        if type(decision.get("view")) is not dict or type(decision.get("scores")) is not list:
            raise ProtocolError("a decision carries the seat's 'view' and the 'scores'")
        pairs: list[tuple[int | None, str]] = []
        for item in legal:
            if (
                type(item) is not dict
                or (item.get("id") is not None and type(item.get("id")) is not int)
                or type(item.get("notation")) is not str
            ):
                raise ProtocolError(f"a legal move is {{'id', 'notation'}}, got {shown(item)}")
            pairs.append((item.get("id"), item["notation"]))
        self._decision = dict(decision)  # its parts are handed out as copies only
        self._add_events(events)
        self._legal = pairs
        self._moves = None
        self._local = None
        self._asks = 0

    def _finish(self, end: Mapping[str, Any]) -> None:
        """Take the game's ``end`` message: its result, scores and the events not seen yet."""
        if end.get("game_id") != self._game_id:
            raise ProtocolError(f"the end of {shown(end.get('game_id'))} for {self._game_id!r}")
        events = end.get("events")
        if type(events) is not list or type(end.get("scores")) is not list:
            raise ProtocolError("an end message carries the 'scores' and the unseen 'events'")
        self._end = _plain(dict(end))
        self._add_events(events)
        self._legal = []
        self._moves = None
        self._local = None

    def _add_events(self, events: list[Any]) -> None:
        if not events:
            return
        text = json.dumps(events)
        self._events.extend(json.loads(text))
        before = self._events_text[:-1]
        self._events_text = before + ("," if len(before) > 1 else "") + text[1:]

    # ---- the state -----------------------------------------------------------------------

    @property
    def player(self) -> int:
        """This seat."""
        return self._player

    @property
    def players(self) -> int:
        return self._players

    @property
    def rules(self) -> Any:
        """The game's rules object, rebuilt from the start message's rules."""
        if self._rules is None:
            self._rules = _rules_of(self._game, self._rules_dict)
        return self._rules

    @property
    def num_actions(self) -> int:
        return self._game.num_actions

    @property
    def current_player(self) -> int | None:
        """The seat to move at this seat's last decision (``None`` once the game is over)."""
        if self._end is not None:
            return None if self.is_over else self._last("to_move")
        return self._last("to_move") if self._decision is not None else None

    @property
    def is_over(self) -> bool:
        if self._end is None:
            return False
        result = self._end.get("result")
        over = result.get("is_over") if isinstance(result, dict) else None
        return bool(over) if isinstance(over, bool) else self._end.get("winner") is not None

    @property
    def winner(self) -> int | None:
        if self._end is not None:
            winner = self._end.get("winner")
            return winner if type(winner) is int else None
        return None

    @property
    def scores(self) -> list[int]:
        if self._end is not None:
            return list(self._end["scores"])
        if self._decision is None:
            return [0] * self._players
        return list(self._decision["scores"])

    def _last(self, key: str) -> Any:
        assert self._decision is not None
        return self._decision.get(key)

    def _check_self(self, player: SupportsIndex | None, what: str) -> None:
        if player is None:
            return
        seat = operator.index(player)
        if seat != self._player:
            raise ArgumentError(
                f"this is seat {self._player}'s seat: it shows no {what} of seat {seat}"
            )

    def _current_view(self) -> dict[str, Any]:
        if self._end is not None:
            raise InvalidStateError(
                "the game is over: its end carries no view (use result(), scores, events())"
            )
        if self._decision is None:
            raise InvalidStateError("no decision yet: the view comes with this seat's decision")
        view = self._decision["view"]
        assert isinstance(view, dict)
        return view

    def view(self, player: SupportsIndex | None = None) -> dict[str, Any]:
        """This seat's view at its decision (another seat's: ``ArgumentError``)."""
        self._check_self(player, "view")
        return _plain(self._current_view())

    def events(self, player: SupportsIndex | None = None) -> list[Any]:
        """The events this seat has seen, in order (another seat's: ``ArgumentError``)."""
        self._check_self(player, "events")
        return json.loads(self._events_text)  # type: ignore[no-any-return]

    @property
    def history(self) -> list[Any]:
        """The events this seat has seen (the public history and its own cards)."""
        return self.events()

    @property
    def round_results(self) -> list[dict[str, Any]]:
        """The finished rounds (hands), rebuilt from the round-end events."""
        raise NotImplementedError  # each game's subclass

    def result(self) -> dict[str, Any]:
        """The game's result so far (the end message's once the game is over)."""
        if self._end is not None and isinstance(self._end.get("result"), dict):
            return _plain(self._end["result"])
        rounds = len(self.round_results)
        return {
            "is_over": self.is_over,
            "winner": self.winner,
            "scores": self.scores,
            "rounds_played": rounds,
            **self._result_extra(rounds),
        }

    def _result_extra(self, rounds: int) -> dict[str, Any]:
        return {}

    # ---- the legal moves -----------------------------------------------------------------

    def _make_move(self, action: int | None, notation: str) -> Any:
        raise NotImplementedError

    def legal_moves(self) -> list[Any]:
        """The legal moves, in the engine's order (empty once the game is over)."""
        if self._moves is None:
            self._moves = [self._make_move(a, n) for a, n in self._legal]
        return list(self._moves)

    def legal_list(self) -> list[dict[str, Any]]:
        """The legal moves as the decision listed them: ``{"id", "notation"}`` in the engine's
        order (``id`` is ``None`` for a move no action id reaches; in the climbing games
        several moves may share an id)."""
        return [{"id": a, "notation": n} for a, n in self._legal]

    def legal_actions(self) -> list[int]:
        """The legal action ids, ascending, each once."""
        return sorted({a for a, _ in self._legal if a is not None})

    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(self.num_actions, dtype=np.bool_)
        for action in self.legal_actions():
            if 0 <= action < self.num_actions:
                mask[action] = True
        return mask

    def _to_move(self, verb: str) -> None:
        """``ArgumentError`` unless this seat is to move (as the seat object says it)."""
        if self._legal:
            return
        if self._end is not None and self.is_over:
            now = "the game is over"
        elif self._end is not None:
            now = "the game has ended"
        else:
            now = "no decision yet"
        raise ArgumentError(f"{verb} is for the seat to move: {now}, not seat {self._player}")

    def _illegal(self, move: str, reason: str) -> NoReturn:
        legal = [n for _, n in self._legal]
        shown_legal = ", ".join(legal[:40]) + (
            f", … {len(legal) - 40} more" if len(legal) > 40 else ""
        )
        err = IllegalMoveError(
            f'illegal move "{cut(move)}": {reason}; legal moves: [{shown_legal}]'
        )
        err.move = move
        err.reason = reason
        err.legal = legal
        raise err

    def move_for_action(self, action: SupportsIndex) -> Any:
        """The legal move an action id stands for (``IllegalMoveError`` if none)."""
        value = operator.index(action)
        self._to_move("move_for_action")
        moves = [m for (a, _), m in zip(self._legal, self.legal_moves(), strict=True) if a == value]
        if not moves:
            self._illegal(f"action id {value}", "it names no legal move of this seat")
        return self._resolve(moves)

    def _resolve(self, moves: list[Any]) -> Any:
        return moves[0]

    def action_index(self, move: Any) -> int:
        """The action id of a legal move (a move object, its notation or an id)."""
        raise NotImplementedError

    def _id_of_notation(self, notation: str, shown_as: str) -> int:
        for action, text in self._legal:
            if text == notation:
                if action is None:
                    self._illegal(shown_as, "no action id reaches this move (play its notation)")
                return action
        self._illegal(shown_as, "not a legal move of this seat")

    def _legal_id(self, action: SupportsIndex) -> int:
        value = operator.index(action)
        if any(a == value for a, _ in self._legal):
            return value
        self._illegal(f"action id {value}", "it names no legal move of this seat")

    # ---- the asks ------------------------------------------------------------------------

    def _send_ask(self, ask: str, **fields: Any) -> Any:
        if self._end is not None or self._decision is None:
            raise InvalidStateError(
                f"{ask} is asked of the engine during this seat's decision, not "
                + ("after the game's end" if self._end is not None else "before it")
            )
        if self._asks >= MAX_ASKS:
            raise ArgumentError(
                f"at most {MAX_ASKS} asks per decision (observation, determinize, bot_move)"
            )
        self._asks += 1
        return self._ask({"type": "ask", "game_id": self._game_id, "ask": ask, **fields})

    def observation(self, player: SupportsIndex | None = None) -> npt.NDArray[np.float32]:
        """This seat's observation (an ask; another seat's: ``ArgumentError``)."""
        self._check_self(player, "observation")
        value = self._send_ask("observation")
        if type(value) is not list or not all(type(v) in (int, float) for v in value):
            raise ProtocolError("the engine's observation is not a list of numbers")
        out = np.asarray(value, dtype=np.float32)
        if out.shape != (self._game.observation_size,):
            raise ProtocolError(
                f"an observation of {len(value)} floats; {self._game.title} has "
                f"{self._game.observation_size}"
            )
        return out

    def determinize(self, *args: SupportsIndex | None, seed: SupportsIndex | None = None) -> Any:
        """A complete game sampled from this seat's information (an ask): ``determinize(seed)``,
        or ``determinize(player, seed)`` as on a game (``player`` must be this seat)."""
        if len(args) > 2 or (len(args) == 2 and seed is not None):
            raise TypeError("determinize(seed=None) or determinize(player, seed=None)")
        if len(args) == 2 or (len(args) == 1 and seed is not None):
            player = args[0]
            if player is None:
                raise TypeError("determinize(player, seed): the player is this seat's number")
            self._check_self(player, "determinization")
            if len(args) == 2:
                seed = args[1]
        elif len(args) == 1:
            seed = args[0]
        chosen = 0 if seed is None else check_seed(seed)
        snapshot = self._send_ask("determinize", seed=chosen)
        return self._rebuild(snapshot)

    def _rebuild(self, snapshot: Any) -> AnyGame:
        if type(snapshot) is not dict:
            raise ProtocolError(f"the engine's determinize answer is {shown(snapshot)}")
        return spec_of(self).from_snapshot(snapshot, self.rules)

    def bot_move(
        self,
        bot: str = "heuristic",
        seed: SupportsIndex | None = None,
        time_limit: float | None = None,
    ) -> Any:
        """A built-in bot's move for this seat, decided by the engine from this seat's
        information (an ask). ``time_limit`` is checked but not sent: over the protocol the
        engine bounds the search by the decision's time left."""
        name = check_bot(bot) if isinstance(bot, str) else check_bot(str(bot))
        chosen = 0 if seed is None else check_seed(seed)
        if time_limit is not None:
            limit = float(time_limit)
            if not (math.isfinite(limit) and 0 < limit <= _MAX_TIME_LIMIT):
                raise ArgumentError(
                    f"time_limit is more than 0 and at most {_MAX_TIME_LIMIT:g} seconds, "
                    f"got {shown(time_limit)}"
                )
        self._to_move("bot_move")
        answer = self._send_ask("bot_move", bot=name, seed=chosen)
        if type(answer) is not dict or type(answer.get("notation")) is not str:
            raise ProtocolError(f"the engine's bot_move answer is {shown(answer)}")
        for (_, notation), move in zip(self._legal, self.legal_moves(), strict=True):
            if notation == answer["notation"]:  # the notation is the move exactly
                return move
        raise ProtocolError(f"the engine's bot_move {shown(answer)} is no legal move")

    def _sampled(self) -> AnyGame:
        """A game sampled from this seat's information (one ask per decision, seed 0)."""
        if self._local is None:
            self._local = self.determinize(0)
        return self._local

    def cards(self) -> list[Any]:
        """The deck (public): every card's id, token, label, kind, suit, value and faces."""
        return self._sampled().cards()

    def to_json(self) -> str:
        """This seat's information as JSON text (the seat object's ``to_json``)."""
        view = self._decision["view"] if self._decision is not None and self._end is None else None
        return json.dumps(
            {
                "seat": self._player,
                "players": self._players,
                "to_move": self.current_player,
                "over": self.is_over,
                "winner": self.winner,
                "scores": self.scores,
                "view": view,
                "events": self._events,
                "round_results": self.round_results,
                "legal": [{"id": a, "notation": n} for a, n in self._legal],
            }
        )

    def __repr__(self) -> str:
        if self.is_over:
            turn = "game over"
        elif self.current_player is None:
            turn = "no decision yet" if self._end is None else "game ended"
        else:
            turn = f"seat {self.current_player} to move"
        return f"{type(self).__name__}(player={self._player}, {turn})"

    def __reduce_ex__(self, protocol: SupportsIndex) -> NoReturn:
        raise TypeError(
            f"a {type(self).__name__} is not pickled: it is one seat's window on a live game; "
            "send its to_json() (what the seat knows) instead"
        )

    def __copy__(self) -> RemoteSeat:
        """A copy of what this seat knows now (its asks still reach the engine, during this
        seat's decision only)."""
        out = object.__new__(type(self))
        for name in RemoteSeat.__slots__:
            setattr(out, name, getattr(self, name))
        out._decision = _plain(self._decision)
        out._end = _plain(self._end)
        out._events = _plain(self._events)
        out._legal = list(self._legal)
        out._moves = None
        return out

    def __deepcopy__(self, memo: object) -> RemoteSeat:
        return self.__copy__()


def open_seat(start: Mapping[str, Any], ask: Asker) -> RemoteSeat:
    """The seat of a ``start`` message, of its game's class (the registry's ``remote_seat``:
    ``RemoteHeadSeat``, ``RemoteClimbSeat``)."""
    game = spec(start.get("game"))
    module, _, name = game.remote_seat.partition(":")
    kind: type[RemoteSeat] = getattr(importlib.import_module(module), name)
    return kind(start, ask)
