"""The neural-guided search bot, ``ismcts+neural`` (docs/agents.md, "The neural-guided search"):
its names, legal and deterministic moves in every game at every table size, its time limit, its
policy files, and complete games. No assertion is on strength or speed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from panda_core import BOT_NAMES, PolicyError, RulesError, make, simulate
from panda_core.bots import BuiltinBot, is_builtin_bot, names_builtin, play_game
from panda_core.protocol.asks import AskRefused, answer_value

GAMES = ["head", "year", "spin"]
POLICIES = Path(__file__).resolve().parent.parent / "policies"
JOIN = 20.0
"""Seconds a timed search may take before the test gives up on it (its limit is 0.3 s)."""


def position(name: str, players: int, seed: int) -> Any:
    """A game a few moves in, the seat to move having a real choice."""
    game: Any = make(name, players=players, seed=seed)
    moves = 0
    while moves < 3 or len(game.legal_moves()) < 2:
        game.apply(game.bot_move("heuristic", seed=moves))
        moves += 1
    assert not game.is_over
    return game


def test_the_names() -> None:
    assert "ismcts+neural" in BOT_NAMES
    for name in ("ismcts+neural", "ismcts+neural:1", "ismcts+neural:50", "ismcts+neural:100000"):
        assert is_builtin_bot(name), name
    for bad in (
        "ismcts+neural:0",
        "ismcts+neural:x",
        "ismcts+neural:",
        "ismcts+neural:05",
        "ismcts+neural:+5",
        "ismcts+neural:100001",
        "ismcts+neural:5:",
        "ismcts+neural5",
        "neural+ismcts",
    ):
        assert not is_builtin_bot(bad), bad
        with pytest.raises(RulesError):
            make("head", players=3, seed=1).bot_move(bad)
    assert names_builtin("ismcts+neural:x")  # the engine's error, not an import error
    with pytest.raises(RulesError, match="iteration count"):
        make("year", players=3, seed=1).bot_move("ismcts+neural:0")


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_moves_are_legal_and_deterministic(name: str, players: int) -> None:
    game = position(name, players, seed=players)
    before = game.to_json()
    for seed in (1, 2):
        move = game.bot_move("ismcts+neural:16", seed=seed)
        assert move in game.legal_moves()
        assert game.bot_move("ismcts+neural:16", seed=seed) == move
    assert game.to_json() == before


@pytest.mark.parametrize("name", GAMES)
def test_a_search_returns_a_legal_move_at_its_deadline(name: str) -> None:
    game = position(name, 3, seed=5)
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["move"] = game.bot_move("ismcts+neural:100000", seed=1, time_limit=0.3)
        except BaseException as e:  # reported on the test thread
            out["error"] = e

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(JOIN)
    assert not worker.is_alive(), f"the search did not return within {JOIN} s"
    if "error" in out:
        raise out["error"]
    assert out["move"] in game.legal_moves()
    # Within a generous limit a small search finishes: the seed decides the move.
    plain = game.bot_move("ismcts+neural:10", seed=4)
    assert game.bot_move("ismcts+neural:10", seed=4, time_limit=3600) == plain


@pytest.mark.parametrize("name", ["year", "spin"])
def test_a_policy_file_plays_its_own_game_only(name: str) -> None:
    path = POLICIES / f"{name}.safetensors"
    game = position(name, 4, seed=9)
    # The shipped policy's own file: the same network, the same moves.
    own = f"ismcts+neural:12:{path}"
    assert is_builtin_bot(own)
    assert game.bot_move(own, seed=2) == game.bot_move("ismcts+neural:12", seed=2)
    other = "spin" if name == "year" else "year"
    with pytest.raises(PolicyError, match=f'plays "{name}"'):
        make(other, players=4, seed=1).bot_move(own)
    with pytest.raises(PolicyError, match=f'not "{other}"'):
        simulate(1, game=other, players=4, bots=[own, "heuristic", "heuristic", "heuristic"])
    with pytest.raises(PolicyError, match="cannot read"):
        game.bot_move("ismcts+neural:12:/no/such/policy.safetensors")
    head_file = f"ismcts+neural:12:{POLICIES / 'head.safetensors'}"
    with pytest.raises(PolicyError, match="cannot play"):
        game.bot_move(head_file)


@pytest.mark.parametrize("name", GAMES)
def test_plays_complete_games(name: str) -> None:
    bots = ["ismcts+neural:8", "heuristic", "random"]
    one = simulate(2, game=name, players=3, bots=bots, seed=3)
    assert one.games == 2
    again = simulate(2, game=name, players=3, bots=bots, seed=3)
    assert list(one.winner) == list(again.winner)
    result = play_game(name, [BuiltinBot("ismcts+neural:4", seed=1), "heuristic"], seed=2)
    assert result.state.is_over and result.bots[0] == "ismcts+neural:4"


def test_a_bot_may_ask_for_the_search_but_not_a_file() -> None:
    game = position("head", 3, seed=2)
    seat = game.seat(game.current_player)
    answer = answer_value(seat, {"ask": "bot_move", "bot": "ismcts+neural:8", "seed": 1}, 5.0)
    assert answer["notation"] in [e["notation"] for e in seat.legal_list()]
    path = POLICIES / "head.safetensors"
    with pytest.raises(AskRefused, match="names a built-in bot"):
        answer_value(seat, {"ask": "bot_move", "bot": f"ismcts+neural:8:{path}", "seed": 1}, 5.0)
