"""The one helper that asks a bot for its move (``panda_core.bot_move.ask_move``): what the bot
is shown, how its failures are told apart, and that the loop's own policy (how to take the
answer, the bound, which exceptions are the bot's, the words) is what decides."""

from __future__ import annotations

import time
from typing import Any

import pytest

from panda_core import BuiltinBot, HeadGame, HeadSeat, make
from panda_core.bot_answer import NotAMoveError, plain_move, refusal_reason
from panda_core.bot_move import MoveRefused, ask_move
from panda_core.move_timer import MoveTimer, ThreadBound


def first_legal(game: Any, seat: int) -> int:
    return int(game.legal_actions()[0])


def test_a_python_bot_is_handed_its_seat_and_a_builtin_the_game() -> None:
    game = make("head", players=3, seed=4)
    shown: list[object] = []

    def looks(g: Any, seat: int) -> int:
        shown.append(g)
        sample = g.determinize(seat, 1)
        sample.apply(sample.legal_actions()[0])  # playing on a sample changes nothing
        return 0

    before = game.snapshot()
    seat = game.current_player
    assert ask_move(looks, game, seat) == 0
    assert isinstance(shown[0], HeadSeat) and shown[0].player == seat
    assert game.snapshot() == before
    # The research opt-in hands a clone of the whole game instead.
    assert ask_move(looks, game, seat, full_information=True) == 0
    assert isinstance(shown[1], HeadGame) and shown[1] is not game
    assert shown[1].snapshot() == before and game.snapshot() == before

    class Builtin(BuiltinBot):
        def __call__(self, g: Any, seat: int, /) -> Any:
            shown.append(g)
            return super().__call__(g, seat)

    move = ask_move(Builtin("random"), game, game.current_player)
    assert shown[-1] is game and move in game.legal_moves()


def test_the_answer_is_taken_by_the_loops_own_reader() -> None:
    game = make("year", players=3, seed=2)
    seat = game.current_player
    assert ask_move(first_legal, game, seat, take=plain_move) == game.legal_actions()[0]
    moves = game.legal_moves()
    assert ask_move(lambda g, s: g.legal_moves()[0], game, seat, take=plain_move) == (
        moves[0].notation
    )


def test_failures_are_told_apart() -> None:
    game = make("head", players=2, seed=1)
    seat = game.current_player

    def raises(g: Any, s: int) -> int:
        raise ZeroDivisionError("boom")

    with pytest.raises(MoveRefused) as refused:
        ask_move(raises, game, seat)
    assert refused.value.kind == "exception" and isinstance(refused.value.cause, ZeroDivisionError)
    with pytest.raises(MoveRefused) as refused:
        ask_move(lambda g, s: 1.5, game, seat, take=plain_move)
    assert refused.value.kind == "illegal" and refused.value.answer == 1.5
    assert isinstance(refused.value.cause, NotAMoveError)
    with pytest.raises(MoveRefused) as refused:
        ask_move(lambda g, s: time.sleep(5), game, seat, bound=ThreadBound(0.05))
    assert refused.value.kind == "timeout" and refused.value.cause is None
    with MoveTimer(0.05) as timer, pytest.raises(MoveRefused) as refused:
        ask_move(lambda g, s: time.sleep(5), game, seat, bound=timer)
    assert refused.value.kind == "timeout"


def test_which_exceptions_are_the_bots_is_the_loops_choice() -> None:
    game = make("spin", players=2, seed=3)
    seat = game.current_player

    def exits(g: Any, s: int) -> int:
        raise SystemExit(4)

    def interrupts(g: Any, s: int) -> int:
        raise KeyboardInterrupt

    with pytest.raises(MoveRefused):
        ask_move(exits, game, seat)  # sys.exit() in a bot is its failure
    with pytest.raises(KeyboardInterrupt):
        ask_move(interrupts, game, seat)  # Ctrl-C stops the loop
    with pytest.raises(MoveRefused):
        ask_move(interrupts, game, seat, failures=(BaseException,))
    with pytest.raises(ZeroDivisionError):  # failures=(): raised as the bot raised it
        ask_move(lambda g, s: 1 // 0, game, seat, failures=())


def test_the_words_for_a_failure_are_found_under_the_bound() -> None:
    """A bot's exception whose ``__str__`` never returns: wording it is the bot's code too, so a
    loop whose bound is a thread is not held by it."""

    class Stuck(Exception):
        def __str__(self) -> str:
            time.sleep(30)
            return "never"

    def raises_stuck(g: Any, s: int) -> int:
        raise Stuck

    game = make("head", players=2, seed=5)
    with pytest.raises(MoveRefused) as refused:
        ask_move(
            raises_stuck,
            game,
            game.current_player,
            bound=ThreadBound(0.2),
            failures=(BaseException,),
            describe=refusal_reason,
        )
    # Worded outside the thread, the bot's failure would be an "exception" (after 30 s).
    assert refused.value.kind == "timeout"

    with pytest.raises(MoveRefused) as refused:
        ask_move(lambda g, s: 1 // 0, game, game.current_player, describe=refusal_reason)
    assert refused.value.reason == "raised ZeroDivisionError: integer division or modulo by zero"
