"""The engine's answers to a bot's asks (panda_core.protocol.asks), the same for every transport
and every game: from the asking seat only, and never a bot the engine would run from a path."""

from __future__ import annotations

import pytest

from panda_core import make
from panda_core._registry import GAMES, spec
from panda_core.protocol.asks import AskRefused, answer_value


@pytest.mark.parametrize("name", GAMES)
def test_every_ask_is_answered_from_the_seat(name: str) -> None:
    game = make(name, players=3, seed=6)
    seat = game.seat(game.current_player)
    observation = answer_value(seat, {"ask": "observation"}, 1.0)
    assert observation == [float(x) for x in seat.observation()]
    snapshot = answer_value(seat, {"ask": "determinize", "seed": 4}, 1.0)
    assert snapshot == seat.determinize(4).snapshot()
    rebuilt = spec(name).from_snapshot(snapshot, seat.rules)
    assert rebuilt.view(seat.player) == game.view(seat.player)
    move = answer_value(seat, {"ask": "bot_move", "bot": "ismcts:10", "seed": 3}, 1.0)
    assert move["notation"] == seat.bot_move("ismcts:10", 3).notation
    assert {"id": move["id"], "notation": move["notation"]} in seat.legal_list()


@pytest.mark.parametrize(
    "bot", ["neural:/etc/passwd", "neural:./policy.safetensors", "genius", "ismcts:0", ""]
)
def test_a_bot_the_engine_does_not_run_by_name_is_refused(bot: str) -> None:
    seat = make("head", players=3, seed=1).seat(1)
    with pytest.raises(AskRefused, match=r"refused|built-in bot"):
        answer_value(seat, {"ask": "bot_move", "bot": bot, "seed": 1}, 1.0)


def test_an_ask_out_of_turn_is_refused() -> None:
    game = make("spin", players=3, seed=1)
    other = game.seat((game.current_player + 1) % 3)
    with pytest.raises(AskRefused, match="for the seat to move"):
        answer_value(other, {"ask": "bot_move", "bot": "heuristic", "seed": 1}, 1.0)
