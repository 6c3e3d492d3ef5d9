"""Python bots: the Bot protocol, play_game, and simulate() with Python bots."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from panda_core import (
    BOT_NAMES,
    Bot,
    BuiltinBot,
    ClimbGame,
    ClimbMove,
    HeadGame,
    HeadSeat,
    IllegalBotMoveError,
    IllegalMoveError,
    RulesError,
    play_game,
    simulate,
)
from panda_core.bots import Game, bot_name, is_builtin_bot, nth_output
from panda_core.oracle.rng import SplitMix64


def lowest_head(game: HeadGame, player: int) -> int:
    """A plain-function Panda Head bot."""
    return game.legal_actions()[0]


class RandomBot:
    """A user-written class bot for every game, with the optional reset hook."""

    name = "py-random"

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.resets: list[int] = []
        self.calls = 0

    def reset(self, seed: int) -> None:
        self.resets.append(seed)
        self.rng = random.Random(seed)

    def __call__(self, game: Game, player: int) -> int | ClimbMove:
        assert game.current_player == player
        self.calls += 1
        if isinstance(game, HeadGame):
            return self.rng.choice(game.legal_actions())
        return self.rng.choice(game.legal_moves())


class Cheater:
    """Answers with a move that is not legal (Panda Head: an action id not in the legal list;
    climbing: a made-up play), after playing on a determinization of its seat."""

    def __init__(self) -> None:
        self.shown: list[str] = []

    def __call__(self, seat: Any, player: int) -> int | str:
        self.shown.append(seat.to_json())
        assert not hasattr(seat, "apply"), "a bot is handed a seat, which cannot play"
        sample = seat.determinize(1)
        sample.apply(sample.legal_actions()[0])  # playing on a sample must not matter
        if isinstance(seat, HeadSeat):
            return next(a for a in range(24) if a not in seat.legal_actions())
        return "single Fi3 steal 9+9"


def test_protocol_is_runtime_checkable() -> None:
    assert isinstance(RandomBot(), Bot)
    assert isinstance(lowest_head, Bot)
    assert isinstance(BuiltinBot("random"), Bot)
    assert not isinstance("heuristic", Bot)
    assert bot_name(lowest_head) == "lowest_head" and bot_name(RandomBot()) == "py-random"
    assert bot_name(BuiltinBot("heuristic", seed=3)) == "heuristic"
    assert is_builtin_bot("random") and not is_builtin_bot("genius")


def test_nth_output_is_splitmix64() -> None:
    gen = SplitMix64(42)
    assert [nth_output(42, k) for k in range(5)] == [gen.next() for _ in range(5)]


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_play_game_with_python_and_builtin_bots(game: str) -> None:
    bot = RandomBot()
    result = play_game(game, [bot, "heuristic", "random"], seed=11)
    assert result.winner in range(3) and result.players == 3
    assert result.bots == ("py-random", "heuristic", "random")
    assert result.decisions > 0 and result.rounds >= 1
    assert result.state.is_over and result.state.winner == result.winner
    assert list(result.scores) == result.state.scores
    assert len(bot.resets) == 1 and bot.calls > 0
    # Same seed, same game (the bots are seeded through reset).
    again = play_game(game, [RandomBot(), "heuristic", "random"], seed=11)
    assert again.state.history == result.state.history
    assert play_game(game, [RandomBot(), "heuristic", "random"], seed=12).state.history != (
        result.state.history
    )


def test_play_game_deals_from_the_seed() -> None:
    result = play_game("head", [lowest_head, lowest_head], seed=5)
    replay = HeadGame(2, 5)
    while (seat := replay.current_player) is not None:
        replay.apply(lowest_head(replay, seat))
    assert replay.history == result.state.history


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_illegal_move_names_seat_and_bot_and_leaves_game_unchanged(game: str) -> None:
    cheater = Cheater()
    with pytest.raises(IllegalBotMoveError) as info:
        play_game(game, ["random", cheater, "random"], seed=2)
    err = info.value
    assert isinstance(err, IllegalMoveError)
    assert err.seat == 1 and err.bot == "Cheater" and "seat 1 (Cheater)" in str(err)
    assert err.legal and err.reason and err.move
    # The real game is as it was shown to the bot: neither the bot's own move on its sample
    # nor the refused move reached it, and play can go on from there.
    assert err.game.seat(1).to_json() == cheater.shown[-1]
    assert err.game.current_player == 1
    if isinstance(err.game, HeadGame):
        err.game.apply(err.game.legal_actions()[0])
    else:
        err.game.apply(err.game.legal_moves()[0])


def test_answers_that_are_not_moves() -> None:
    def nothing(game: Game, player: int) -> str:
        return None  # type: ignore[return-value]

    with pytest.raises(IllegalBotMoveError, match=r"seat 1 \(nothing\)"):
        play_game("spin", ["random", nothing], seed=1)
    with pytest.raises(IllegalBotMoveError, match=r"seat \d \(nothing\)"):
        play_game("head", [nothing, nothing], seed=1)


def test_numpy_action_ids_are_accepted() -> None:
    def numpy_bot(game: HeadGame, player: int) -> int:
        return np.int64(game.legal_actions()[-1])  # type: ignore[return-value]

    assert play_game("head", [numpy_bot, "random"], seed=3).decisions > 0


def test_bad_requests() -> None:
    with pytest.raises(RulesError, match="one bot per player"):
        play_game("head", ["random"] * 3, players=4)
    with pytest.raises(RulesError, match="unknown game"):
        play_game("chess", ["random"] * 2)
    with pytest.raises(RulesError, match="unknown bot"):
        play_game("head", ["random", "genius"])
    with pytest.raises(RulesError, match="seed"):
        play_game("head", ["random"] * 2, seed=-1)
    with pytest.raises(TypeError, match="callable"):
        play_game("head", ["random", 3])  # type: ignore[list-item]


@pytest.mark.parametrize("game", ["head", "year"])
def test_simulate_with_python_bots(game: str) -> None:
    bot = RandomBot()
    result = simulate(
        12,
        game=game,
        players=3,
        bots=[bot, "heuristic", lowest_head if game == "head" else "random"],
        seed=3,
    )
    assert result.bots[0] == "py-random" and result.bots[1] == "heuristic"
    assert result.winner.dtype == np.int8 and result.winner.shape == (12,)
    assert result.scores.shape == (12, 3) and result.scores.dtype == np.uint32
    assert result.rounds.dtype == np.uint32 and (result.decisions > 0).all()
    assert np.isclose(result.win_rates().sum(), 1.0)
    assert len(bot.resets) == 12  # once per game
    again = simulate(
        12,
        game=game,
        players=3,
        bots=[RandomBot(), "heuristic", lowest_head if game == "head" else "random"],
        seed=3,
        chunk=5,
    )
    assert (again.winner == result.winner).all() and (again.scores == result.scores).all()


def test_simulate_python_path_deals_game_k_from_the_kth_seed() -> None:
    hands: list[list[int]] = []

    class FirstHand:
        def __init__(self) -> None:
            self.first = True

        def reset(self, seed: int) -> None:
            self.first = True

        def __call__(self, game: HeadGame, player: int) -> int:
            if self.first:
                hands.append(game.hand(player))
                self.first = False
            return game.legal_actions()[0]

    bot = FirstHand()
    simulate(3, players=2, bots=[bot, "random"], seed=42)
    gen = SplitMix64(42)
    for k in range(3):
        deal = HeadGame(2, gen.next())
        assert hands[k] == deal.hand(0)


def test_simulate_checks_python_requests() -> None:
    with pytest.raises(RulesError, match="one bot per player"):
        simulate(2, players=3, bots=[lowest_head, "random"])
    with pytest.raises(RulesError, match="2 to 5"):
        simulate(2, players=6, bots=[lowest_head] * 6)
    with pytest.raises(RulesError, match="seed"):
        simulate(2, players=2, bots=[lowest_head, "random"], seed=-1)
    with pytest.raises(RulesError, match="unknown bot"):
        simulate(2, players=2, bots=[lowest_head, "genius"])


def test_climb_bot_sees_a_clone() -> None:
    played: list[ClimbGame] = []

    def first(game: ClimbGame, player: int) -> ClimbMove:
        played.append(game)
        return game.legal_moves()[0]

    result = play_game("spin", [first, "heuristic"], seed=3)
    assert all(g is not result.state for g in played)


@pytest.mark.parametrize("game", ["head", "year"])
def test_ismcts_names_are_builtin_bots(game: str) -> None:
    assert "ismcts" in BOT_NAMES
    assert is_builtin_bot("ismcts") and is_builtin_bot("ismcts:8")
    assert not is_builtin_bot("ismcts:0") and not is_builtin_bot("ismcts:x")
    result = play_game(game, [BuiltinBot("ismcts:8", seed=1), "random"], seed=4)
    again = play_game(game, [BuiltinBot("ismcts:8", seed=1), "random"], seed=4)
    assert result.bots[0] == "ismcts:8" and result.state.history == again.state.history
    assert (
        simulate(
            2, game=game, players=2, bots=["ismcts:8", lowest_head if game == "head" else "random"]
        ).games
        == 2
    )
