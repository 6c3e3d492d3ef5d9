"""What handing a bot its seat costs, against the clone bots were handed before, in the same run.

* ``seat``: ``game.seat(player)`` (a private copy of the game and the seat) against
  ``game.clone()``: what every Python bot's decision pays before the bot runs;
* ``seat_json``: ``seat.to_json()``, what the bot protocol sends a contained bot at a decision
  (its view, every event it has seen, its legal moves), against ``view(player)`` alone.

Ratios: ``python benches/report.py bench.json``.
"""

from __future__ import annotations

from typing import Any

import pytest

import panda_core
from panda_core._registry import AnyGame

GAMES = ("head", "year", "spin")


def mid_game(game: str) -> AnyGame:
    """A 4-player game 30 moves in (or at its end, if shorter)."""
    state = panda_core.make(game, players=4, seed=3)
    for k in range(30):
        if state.is_over:
            break
        state.apply(state.bot_move("heuristic", k))
    return state


@pytest.mark.parametrize("game", GAMES)
def test_seat(benchmark: Any, game: str) -> None:
    state = mid_game(game)
    player = state.current_player or 0
    seat = benchmark(state.seat, player)
    assert seat.player == player


@pytest.mark.parametrize("game", GAMES)
def test_clone(benchmark: Any, game: str) -> None:
    state = mid_game(game)
    assert benchmark(state.clone).to_json() == state.to_json()


@pytest.mark.parametrize("game", GAMES)
def test_seat_json(benchmark: Any, game: str) -> None:
    seat = mid_game(game).seat(0)
    assert benchmark(seat.to_json).startswith("{")


@pytest.mark.parametrize("game", GAMES)
def test_view(benchmark: Any, game: str) -> None:
    state = mid_game(game)
    assert benchmark(state.view, 0)["player"] == 0
