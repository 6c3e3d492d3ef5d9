"""The places a finished game gives (the registry's ``placements`` and ``left_of``): Panda Head
by elimination order (H-6.2, H-6.3), the climbing games by score."""

from __future__ import annotations

import pytest

import panda_core
from panda_core._registry import spec


def test_h6_3_the_winner_first_then_the_later_pooped_the_better() -> None:
    # Seat 2 won; seat 3 was Pooped at the end of hand 5, seat 0 of hand 3, seat 1 of hand 1.
    assert spec("head").placements(2, [30, 22, 10, 25], [3, 1, 0, 5]) == (2, 3, 0, 1)


def test_h6_2_seats_pooped_in_the_same_hand_tie_whatever_their_scores() -> None:
    assert spec("head").placements(2, [30, 22, 10, 25], [2, 2, 0, 1]) == (1, 1, 0, 3)


def test_a_seat_pooped_before_the_known_history_is_below_everyone_pooped_later() -> None:
    # A position set up with seat 0 already Pooped: its round results do not say when (0).
    assert spec("head").placements(1, [40, 5, 23], [0, 0, 4]) == (2, 0, 1)


@pytest.mark.parametrize("game", ["year", "spin"])
def test_the_climbing_games_place_by_score_and_nobody_leaves(game: str) -> None:
    assert spec(game).placements(1, [5, 9, 7, 7], [0, 0, 0, 0]) == (3, 0, 1, 1)
    g = panda_core.make(game, players=3, seed=5)
    assert isinstance(g, panda_core.ClimbGame)
    while not g.is_over:
        g.apply(g.bot_move("random", seed=1))
    assert spec(game).left_of(g) == (0, 0, 0)


@pytest.mark.parametrize("seed", range(6))
def test_left_of_a_played_head_game_is_the_hand_of_each_pooped_event(seed: int) -> None:
    g = panda_core.make("head", players=4, seed=seed)
    assert isinstance(g, panda_core.HeadGame)
    pooped: dict[int, int] = {}
    while not g.is_over:
        for event in g.apply(g.bot_move("heuristic", seed=seed)):
            if event["type"] == "pooped":
                pooped[event["player"]] = len(g.round_results)
    left = spec("head").left_of(g)
    assert left == tuple(pooped.get(s, 0) for s in range(4))
    assert g.winner is not None
    assert left[g.winner] == 0 and sorted(left)[1:] == sorted(pooped.values())
    places = spec("head").placements(g.winner, g.scores, left)
    assert sorted(places) == [0, 1, 2, 3]  # one seat Pooped per hand (H-5.1): no ties
