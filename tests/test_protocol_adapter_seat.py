"""RemoteSeat (the seat a contained bot is handed, built from the protocol's messages only)
answers every seat verb as the real game does for that seat, at every decision of complete games
of all three games; the asks are answered from the real game, through JSON as on the wire."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import numpy as np
import pytest

import panda_core
from panda_core import ArgumentError, ClimbGame, HeadGame, IllegalMoveError, InvalidStateError
from panda_core._registry import GAMES, spec
from panda_core.protocol import messages
from panda_core.protocol.remote_climb import RemoteClimbSeat
from panda_core.protocol.remote_head import RemoteHeadSeat
from panda_core.protocol.remote_seat import LegalMove, RemoteSeat, open_seat


def wire(value: Any) -> Any:
    """``value`` as the other side of a connection reads it."""
    return json.loads(json.dumps(value))


def answer_from(game: Any, player: int, log: list[dict[str, Any]]) -> Any:
    """An ask function answering as the engine does: from ``game.seat(player)``."""

    def ask(message: dict[str, Any]) -> Any:
        message = messages.read_bot_message(json.dumps(message))  # type: ignore[assignment]
        log.append(dict(message))
        seat = game.seat(player)
        kind = message["ask"]
        if kind == "observation":
            value: Any = seat.observation().tolist()
        elif kind == "determinize":
            value = seat.determinize(message["seed"]).snapshot()
        else:
            move = seat.bot_move(message["bot"], message["seed"])
            value = {"id": seat.action_index(move), "notation": move.notation}
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
    """Every verb of ``remote`` equals the real seat's (``game.seat(player)``, to move)."""
    real = game.seat(player)
    others = [p for p in range(game.players) if p != player]
    assert remote.player == real.player == player
    assert remote.players == real.players
    assert remote.rules == real.rules
    assert remote.num_actions == real.num_actions
    assert remote.current_player == real.current_player == player
    assert remote.is_over is real.is_over is False
    assert remote.winner == real.winner
    assert remote.scores == real.scores
    assert remote.view() == remote.view(player) == wire(real.view())
    assert remote.events() == wire(real.events())
    assert remote.round_results == wire(real.round_results)
    assert remote.result() == wire(real.result())
    if deep:  # the long ones (the whole log again) now and then
        assert remote.events(player) == remote.history == wire(real.history)
        assert json.loads(remote.to_json()) == json.loads(real.to_json())
    assert repr(remote) == repr(real).replace(type(real).__name__, type(remote).__name__)
    for other in others:
        for verb in (remote.view, remote.events, remote.observation):
            with pytest.raises(ArgumentError):
                verb(other)
            with pytest.raises(ArgumentError):
                getattr(real, verb.__name__)(other)
    real_moves = real.legal_moves()
    moves = remote.legal_moves()
    assert remote.legal_list() == wire(real.legal_list())
    if isinstance(game, HeadGame):
        assert isinstance(remote, RemoteHeadSeat)
        assert [(m.action_id, m.notation) for m in moves] == [
            (m.action_id, m.notation) for m in real_moves
        ]
        assert all(type(m) is LegalMove for m in moves)
        assert remote.hand() == remote.hand(player) == real.hand()
        with pytest.raises(ArgumentError):
            remote.hand(others[0])
        for name in ("dealer", "leader", "hand_number", "pile_number", "drowsy", "pooped"):
            assert getattr(remote, name) == getattr(real, name), name
    else:
        assert isinstance(remote, RemoteClimbSeat)
        assert moves == real_moves
        assert remote.round == real.round
    assert remote.legal_actions() == real.legal_actions()
    assert np.array_equal(remote.legal_action_mask(), real.legal_action_mask())
    for action in real.legal_actions():
        assert remote.move_for_action(action).notation == real.move_for_action(action).notation
    for move, real_move in zip(moves, real_moves, strict=True):
        assert remote.action_index(move) == real.action_index(real_move)
        assert remote.action_index(real_move.notation) == real.action_index(real_move.notation)
    illegal = next(a for a in range(game.num_actions) if a not in real.legal_actions())
    for seat in (remote, real):
        with pytest.raises(IllegalMoveError):
            seat.move_for_action(illegal)
    assert np.array_equal(remote.observation(), real.observation())
    if deep:
        for seed in (0, 5):
            sampled = remote.determinize(seed)
            assert type(sampled) is type(game)
            assert wire(sampled.snapshot()) == wire(real.determinize(seed).snapshot())
        assert wire(remote.determinize(player, 3).snapshot()) == wire(
            real.determinize(player, 3).snapshot()
        )
        assert wire(remote.determinize(seed=4).snapshot()) == wire(
            real.determinize(seed=4).snapshot()
        )
        with pytest.raises(ArgumentError):
            remote.determinize(others[0], 3)
        for bot in ("heuristic", "random"):
            assert remote.bot_move(bot, 11).notation == real.bot_move(bot, 11).notation
        assert remote.cards() == real.cards()
        if isinstance(game, ClimbGame):
            assert isinstance(remote, RemoteClimbSeat)
            for move in moves[:3]:
                assert remote.move_info(move) == real.move_info(move)
            assert np.array_equal(remote.legal_move_features(), real.legal_move_features())


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
            seat=game.seat(player),
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
            game_id="g-1", seat=game.seat(player), events=events[seen[player] :], forfeit=None
        )
        remote._finish(wire(end))
        real = game.seat(player)
        assert remote.is_over is real.is_over is True
        assert remote.winner == real.winner == game.winner
        assert remote.current_player is real.current_player is None
        assert remote.scores == real.scores
        assert remote.events() == wire(real.events())
        assert remote.round_results == wire(real.round_results)
        assert remote.result() == wire(real.result())
        assert remote.legal_moves() == real.legal_moves() == []
        assert remote.legal_actions() == real.legal_actions() == []
        assert remote.legal_list() == real.legal_list() == []
        assert not remote.legal_action_mask().any()
        assert repr(remote) == repr(real).replace(type(real).__name__, type(remote).__name__)
        for seat in (remote, real):
            with pytest.raises(ArgumentError, match="the game is over"):
                seat.move_for_action(0)
            with pytest.raises(ArgumentError, match="the game is over"):
                seat.bot_move("random", 1)
        # what the end message does not carry: the final view (the real seat still has it)
        with pytest.raises(InvalidStateError):
            remote.view()
        with pytest.raises(InvalidStateError):
            remote.observation()
        told = json.loads(remote.to_json())
        assert told == {**json.loads(real.to_json()), "view": None}
    assert log, "the asks went through the ask function"
    return decision


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.slow
def test_remote_seat_equals_the_game_at_every_decision(game_name: str) -> None:
    assert play(game_name, 3, 2, deep_every=10) > 0


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 3), (5, 4)])
def test_remote_seat_equals_the_game_every_player_count(
    game_name: str, players: int, seed: int
) -> None:
    assert play(game_name, players, seed, deep_every=8) > 0


def test_remote_seat_is_not_pickled_but_copies_as_the_seat_does() -> None:
    game = panda_core.make("year", players=3, seed=1)
    player = game.current_player
    assert player is not None
    seat = open_seat(start_for("year", game, player), answer_from(game, player, []))
    real = game.seat(player)
    for one in (seat, real):
        with pytest.raises(TypeError, match="not pickled"):
            pickle.dumps(one)
    seat._decide(
        wire(
            messages.decision_message(
                game_id="g-1", decision=0, seat=real, events=real.events(), time_left_ms=1
            )
        )
    )
    for copied in (copy.copy(seat), copy.deepcopy(seat)):
        assert type(copied) is type(seat)
        assert copied.to_json() == seat.to_json()
        assert copied.legal_moves() == seat.legal_moves()
        copied._events.clear()  # a copy's state is its own
        assert seat.events() == wire(real.events())
    assert type(copy.copy(real)) is type(real)


def test_remote_seat_limits_the_asks_per_decision() -> None:
    game = panda_core.make("year", players=3, seed=1)
    player = game.current_player
    assert player is not None
    log: list[dict[str, Any]] = []
    seat = open_seat(start_for("year", game, player), answer_from(game, player, log))
    message = messages.decision_message(
        game_id="g-1",
        decision=0,
        seat=game.seat(player),
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
            game_id="g-1", decision=0, seat=game.seat(player), events=[], time_left_ms=5
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
