"""RemoteSeat (the seat a contained bot is handed, built from the protocol's messages only)
answers every seat verb as the real game does for that seat, at every decision of complete games
of all three games; the asks are answered from the real game, through JSON as on the wire."""

from __future__ import annotations

import json
import pickle
from typing import Any

import numpy as np
import pytest

import panda_core
from panda_core import ArgumentError, ClimbGame, HeadGame, IllegalMoveError, InvalidStateError
from panda_core._registry import GAMES, spec
from panda_core.protocol import messages
from panda_core.protocol.remote_seat import (
    LegalMove,
    RemoteClimbSeat,
    RemoteHeadSeat,
    RemoteSeat,
    open_seat,
)


def wire(value: Any) -> Any:
    """``value`` as the other side of a connection reads it."""
    return json.loads(json.dumps(value))


class GameSeat:
    """The verbs the message builders read, from a whole game for one seat (a stand-in for
    ``game.seat(player)`` that works before and after the seat object exists)."""

    def __init__(self, game: Any, player: int) -> None:
        self.game = game
        self.player = player

    @property
    def current_player(self) -> int | None:
        return self.game.current_player  # type: ignore[no-any-return]

    @property
    def scores(self) -> list[int]:
        return list(self.game.scores)

    @property
    def winner(self) -> int | None:
        return self.game.winner  # type: ignore[no-any-return]

    def view(self, player: int) -> Any:
        return self.game.view(player)

    def legal_moves(self) -> list[Any]:
        """The legal moves with their ``action_id`` (a ``ClimbMove`` has none of its own)."""
        if self.current_player != self.player:
            return []
        return [LegalMove(self.game.action_index(m), m.notation) for m in self.game.legal_moves()]

    def result(self) -> Any:
        return self.game.result()


def answer_from(game: Any, player: int, log: list[dict[str, Any]]) -> Any:
    """An ask function answering from ``game`` for ``player`` as the engine does."""

    def ask(message: dict[str, Any]) -> Any:
        message = messages.read_bot_message(json.dumps(message))  # type: ignore[assignment]
        log.append(dict(message))
        kind = message["ask"]
        if kind == "observation":
            value: Any = game.observation(player).tolist()
        elif kind == "determinize":
            value = game.determinize(player, message["seed"]).snapshot()
        else:
            move = game.bot_move(message["bot"], message["seed"])
            value = {"id": game.action_index(move), "notation": move.notation}
        return wire(value)

    return ask


def start_for(game_name: str, game: Any, player: int, game_id: str = "g-1") -> dict[str, Any]:
    start: dict[str, Any] = wire(
        messages.start_message(
            game_id=game_id,
            game=game_name,
            rules=spec(game_name).rules_dict(game.rules),
            players=game.players,
            seat=player,
            seed=messages.bot_seed(7, player),
            move_time_ms=1000,
        )
    )
    return start


def check_seat(remote: RemoteSeat, game: Any, player: int, deep: bool) -> None:
    """Every verb of ``remote`` equals the real game's for ``player`` (the seat to move)."""
    others = [p for p in range(game.players) if p != player]
    assert remote.player == player
    assert remote.players == game.players
    assert remote.rules == game.rules
    assert remote.num_actions == game.num_actions
    assert remote.current_player == game.current_player == player
    assert remote.is_over is game.is_over is False
    assert remote.winner == game.winner
    assert remote.scores == list(game.scores)
    assert remote.view() == remote.view(player) == wire(game.view(player))
    assert remote.events() == remote.history == wire(game.events(player))
    assert remote.round_results == wire(game.round_results)
    assert remote.result() == wire(game.result())
    for other in others:
        with pytest.raises(ArgumentError):
            remote.view(other)
        with pytest.raises(ArgumentError):
            remote.events(other)
        with pytest.raises(ArgumentError):
            remote.observation(other)
    real_moves = game.legal_moves()
    moves = remote.legal_moves()
    if isinstance(game, HeadGame):
        assert isinstance(remote, RemoteHeadSeat)
        assert [(m.action_id, m.notation) for m in moves] == [
            (m.action_id, m.notation) for m in real_moves
        ]
        assert all(type(m) is LegalMove for m in moves)
        assert remote.hand() == remote.hand(player) == game.hand(player)
        with pytest.raises(ArgumentError):
            remote.hand(others[0])
    else:
        assert isinstance(remote, RemoteClimbSeat)
        assert moves == real_moves
        assert remote.round == game.round
    assert remote.legal_actions() == game.legal_actions()
    assert np.array_equal(remote.legal_action_mask(), game.legal_action_mask())
    for action in game.legal_actions():
        assert remote.move_for_action(action).notation == game.move_for_action(action).notation
    for move, real in zip(moves, real_moves, strict=True):
        assert remote.action_index(move) == game.action_index(real)
        assert remote.action_index(real.notation) == game.action_index(real.notation)
    illegal = next(a for a in range(game.num_actions) if a not in game.legal_actions())
    with pytest.raises(IllegalMoveError):
        remote.move_for_action(illegal)
    assert np.array_equal(remote.observation(), game.observation(player))
    if deep:
        for seed in (0, 5):
            sampled = remote.determinize(seed)
            assert type(sampled) is type(game)
            assert wire(sampled.snapshot()) == wire(game.determinize(player, seed).snapshot())
        assert wire(remote.determinize(player, 3).snapshot()) == wire(
            game.determinize(player, 3).snapshot()
        )
        with pytest.raises(ArgumentError):
            remote.determinize(others[0], 3)
        for bot in ("heuristic", "random"):
            assert remote.bot_move(bot, 11).notation == game.bot_move(bot, 11).notation
        assert remote.cards() == game.cards()
        if isinstance(game, ClimbGame):
            assert isinstance(remote, RemoteClimbSeat)
            for move in moves[:3]:
                assert remote.move_info(move) == game.move_info(move)
            assert np.array_equal(remote.legal_move_features(), game.legal_move_features())
    assert f"seat={player}" in repr(remote)


def play(game_name: str, players: int, seed: int, deep_every: int) -> int:
    """A complete game: every seat a RemoteSeat fed by the builders; returns decisions."""
    game = spec(game_name).new_game(players, seed)
    log: list[dict[str, Any]] = []
    seats = [
        open_seat(start_for(game_name, game, p), answer_from(game, p, log)) for p in range(players)
    ]
    seen = [0] * players
    decision = 0
    while (player := game.current_player) is not None:
        events = game.events(player)
        message = messages.decision_message(
            game_id="g-1",
            decision=decision,
            seat=GameSeat(game, player),
            events=events[seen[player] :],
            time_left_ms=1000,
        )
        seen[player] = len(events)
        seats[player]._decide(wire(message))
        check_seat(seats[player], game, player, deep=decision % deep_every == 0)
        game.apply(game.bot_move("random", seed + decision).notation)
        decision += 1
    for player, remote in enumerate(seats):
        events = game.events(player)
        end = messages.end_message(
            game_id="g-1", seat=GameSeat(game, player), events=events[seen[player] :], forfeit=None
        )
        remote._finish(wire(end))
        assert remote.is_over and remote.winner == game.winner
        assert remote.current_player is None
        assert remote.scores == list(game.scores)
        assert remote.events() == wire(game.events(player))
        assert remote.round_results == wire(game.round_results)
        assert remote.result() == wire(game.result())
        assert remote.legal_moves() == [] and remote.legal_actions() == []
        assert not remote.legal_action_mask().any()
        with pytest.raises(InvalidStateError):
            remote.view()
        with pytest.raises(InvalidStateError):
            remote.observation()
        assert json.loads(remote.to_json())["over"] is True
    assert log, "the asks went through the ask function"
    return decision


@pytest.mark.parametrize("game_name", GAMES)
def test_remote_seat_equals_the_game_at_every_decision(game_name: str) -> None:
    assert play(game_name, 3, 2, deep_every=10) > 0


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 3), (5, 4)])
def test_remote_seat_equals_the_game_every_player_count(
    game_name: str, players: int, seed: int
) -> None:
    assert play(game_name, players, seed, deep_every=3) > 0


def test_remote_seat_refuses_pickling_and_copies() -> None:
    game = panda_core.make("head", players=3, seed=1)
    seat = open_seat(start_for("head", game, 0), lambda message: None)
    import copy

    for attempt in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError):
            attempt(seat)


def test_remote_seat_limits_the_asks_per_decision() -> None:
    game = panda_core.make("year", players=3, seed=1)
    player = game.current_player
    assert player is not None
    log: list[dict[str, Any]] = []
    seat = open_seat(start_for("year", game, player), answer_from(game, player, log))
    message = messages.decision_message(
        game_id="g-1",
        decision=0,
        seat=GameSeat(game, player),
        events=game.events(player),
        time_left_ms=1000,
    )
    seat._decide(wire(message))
    for _ in range(messages.MAX_ASKS):
        seat.observation()
    with pytest.raises(ArgumentError, match="at most 64 asks"):
        seat.observation()
    seat._decide(wire(message))  # the next decision counts afresh
    seat.observation()


def test_remote_seat_refuses_what_the_engine_would() -> None:
    game = panda_core.make("head", players=3, seed=1)
    player = game.current_player
    assert player is not None
    seat = open_seat(start_for("head", game, player), answer_from(game, player, []))
    with pytest.raises(InvalidStateError):
        seat.view()  # before any decision
    with pytest.raises(InvalidStateError):
        seat.observation()
    message = wire(
        messages.decision_message(
            game_id="g-1", decision=0, seat=GameSeat(game, player), events=[], time_left_ms=5
        )
    )
    seat._decide(message)
    with pytest.raises(panda_core.RulesError):
        seat.bot_move("no-such-bot")
    with pytest.raises(ArgumentError):
        seat.bot_move("heuristic", 1, time_limit=0)
    with pytest.raises((ValueError, OverflowError, TypeError)):
        seat.determinize(-1)
    with pytest.raises(IllegalMoveError):
        seat.action_index("zz")
    with pytest.raises(messages.ProtocolError):
        seat._decide({**message, "game_id": "g-2"})
    with pytest.raises(messages.ProtocolError):
        seat._decide({**message, "legal": [{"id": "3", "notation": "4"}]})
    with pytest.raises(messages.ProtocolError):
        open_seat({**start_for("head", game, 0), "seat": 3}, lambda m: None)
    with pytest.raises(panda_core.RulesError):
        open_seat({**start_for("head", game, 0), "game": "chess"}, lambda m: None)
