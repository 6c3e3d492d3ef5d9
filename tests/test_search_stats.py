"""``game.search_stats(bot, seed, time_limit)``: the root statistics of a search bot's decision,
one ``(move, visits, value)`` per legal move, from the very search ``bot_move`` runs."""

from __future__ import annotations

import math
from typing import Any

import pytest

import panda_core
from panda_core import ArgumentError, GameOverError, PandaCoreError, make
from panda_core.game import Game
from panda_core.selfplay.episodes import best_stat

GAMES = ("head", "year", "spin")


def positions(game_name: str, seed: int, every: int = 1) -> list[Any]:
    """Positions of a heuristic game (every ``every``-th decision), each a copy."""
    game = make(game_name, players=3, seed=seed)
    out = []
    step = 0
    while not game.is_over:
        if step % every == 0:
            out.append(game.clone())
        game.apply(game.bot_move("heuristic"))
        step += 1
    return out


def check_stats(game: Any, stats: list[tuple[Any, int, float]], iterations: int) -> None:
    assert [m for m, _, _ in stats] == game.legal_moves()
    for _, visits, value in stats:
        assert isinstance(visits, int) and isinstance(value, float)
        assert visits >= 0 and math.isfinite(value) and -1.0 <= value <= 1.0
        if visits == 0:
            assert value == 0.0
    total = sum(v for _, v, _ in stats)
    if len(stats) == 1:
        assert total == 0  # a forced move is not searched
    else:
        assert total == iterations  # every iteration goes through one root move


@pytest.mark.parametrize("game_name", GAMES)
def test_the_best_of_the_stats_is_the_bots_move_at_every_position(game_name: str) -> None:
    bot = "ismcts:16"
    checked = 0
    for seed in (1, 2):
        for k, game in enumerate(positions(game_name, seed, every=2 if game_name == "head" else 1)):
            stats = game.search_stats(bot, seed=k)
            check_stats(game, stats, 16)
            assert stats[best_stat(stats)][0] == game.bot_move(bot, seed=k), (seed, k)
            checked += len(stats) > 1
    assert checked > 40


@pytest.mark.parametrize("game_name", GAMES)
def test_the_same_seed_gives_the_same_stats(game_name: str) -> None:
    game = next(g for g in positions(game_name, 3) if len(g.legal_moves()) > 2)
    first = game.search_stats("ismcts:60", seed=9)
    assert game.search_stats("ismcts:60", seed=9) == first
    assert game.search_stats(bot="ismcts:60", seed=9, time_limit=600) == first
    assert any(game.search_stats("ismcts:60", seed=s) != first for s in range(10, 14))
    check_stats(game, first, 60)


def test_the_default_bot_is_ismcts_200_and_the_seed_zero() -> None:
    game = next(g for g in positions("head", 4) if len(g.legal_moves()) > 1)
    assert game.search_stats() == game.search_stats("ismcts:200", seed=0)
    check_stats(game, game.search_stats(), 200)


def test_values_are_on_the_round_scale() -> None:
    """The search values in [0, 1]; the stats give ``2 v - 1`` (the vector env's round values,
    ``--target round``; pinned exactly against them in src/bots/decide.rs). On the search's own
    scale no value could be negative, and the played moves' values would centre on 0.5."""
    values = []
    for seed in range(3):
        for game in positions("head", seed, every=3):
            for _, visits, value in game.search_stats("ismcts:30", seed=seed):
                if visits:
                    values.append(value)
    assert min(values) < -0.2 and max(values) > 0.2
    assert -0.5 < sum(values) / len(values) < 0.5


@pytest.mark.parametrize("game_name", ["year", "spin"])
def test_a_move_that_ends_the_game_is_worth_its_result(game_name: str) -> None:
    """The search values a won game 1 and a lost one 0: +1 and -1 on the round scale, the
    vector env's reward for the game's last step."""
    found = 0
    for seed in range(4):
        game = make(game_name, players=2, seed=seed)
        while not game.is_over:
            stats = game.search_stats("ismcts:40", seed=1) if len(game.legal_moves()) > 1 else []
            for move, visits, value in stats:
                trial = game.clone()
                trial.apply(move)
                if visits and trial.is_over:
                    assert value == (1.0 if trial.winner == game.current_player else -1.0)
                    found += 1
            game.apply(game.bot_move("heuristic"))
    assert found > 0


def test_the_guided_search_has_stats_too() -> None:
    for game in positions("head", 5, every=7)[:6]:
        stats = game.search_stats("ismcts+neural:12", seed=2)
        assert [m for m, _, _ in stats] == game.legal_moves()
        assert stats[best_stat(stats)][0] == game.bot_move("ismcts+neural:12", seed=2)
        if len(stats) > 1:
            assert 0 < sum(v for _, v, _ in stats) <= 12
        assert all(-1.0 <= v <= 1.0 and (n or v == 0.0) for _, n, v in stats)


@pytest.mark.parametrize("bot", ["heuristic", "random", "neural"])
def test_a_bot_that_does_not_search_is_refused(bot: str) -> None:
    game = make("head", players=3, seed=1)
    with pytest.raises(ArgumentError, match=r"search_stats needs a search bot.*ismcts:N"):
        game.search_stats(bot)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (("ismcts:0",), PandaCoreError),
        (("nobot",), PandaCoreError),
        (("ismcts:10", -1), PandaCoreError),
        (("ismcts:10", 2**64), PandaCoreError),
        (("ismcts:10", "1"), PandaCoreError),
        (("ismcts:10", 0, 0), PandaCoreError),
        (("ismcts:10", 0, float("nan")), PandaCoreError),
        ((7,), TypeError),
    ],
)
def test_bad_arguments_are_refused_as_bot_move_refuses_them(
    args: tuple[Any, ...], error: type[Exception]
) -> None:
    game = make("spin", players=3, seed=1)
    with pytest.raises(error):
        game.search_stats(*args)
    with pytest.raises(error):
        game.bot_move(*args)


def test_a_finished_game_is_game_over() -> None:
    game = make("head", players=2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    with pytest.raises(GameOverError):
        game.search_stats("ismcts:5")


def test_a_time_limit_ends_the_search_with_what_it_has() -> None:
    game = next(g for g in positions("year", 2) if len(g.legal_moves()) > 3)
    stats = game.search_stats("ismcts:1000000", seed=1, time_limit=0.05)
    total = sum(v for _, v, _ in stats)
    assert 0 < total < 1_000_000
    assert [m for m, _, _ in stats] == game.legal_moves()


def test_every_game_class_and_the_protocol_have_it() -> None:
    for name in GAMES:
        game = make(name, players=3)
        assert isinstance(game, Game)
        assert callable(game.search_stats)
    assert "search_stats" in dir(panda_core.HeadGame)
    assert "search_stats" in dir(panda_core.ClimbGame)
