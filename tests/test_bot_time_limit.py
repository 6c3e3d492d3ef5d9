"""``game.bot_move(bot, seed, time_limit)``: a search stops at its deadline with a legal move;
bad limits are refused with the state unchanged; the instant bots ignore the limit
(docs/game_api.md, "Bot moves within a time limit").

No assertion here is on speed: a timed search is run on a thread joined with a generous timeout,
so a search that ignored its deadline (a million iterations) fails by not returning in time
rather than by a measured duration.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import panda_core
from panda_core import ArgumentError

GAMES = ["head", "year", "spin"]
JOIN = 20.0
"""Seconds a timed search may take before the test gives up on it: about 70 times its 0.3 s
limit, yet less than the full million iterations a search that ignored its limit would run in a
climbing game (about 30 s on the development VM, more on a slower machine)."""
CHILD = 120.0
"""Seconds the Ctrl-C child may take in all (it fails by printing ``finished``, not by time)."""


def position(name: str, seed: int = 5) -> Any:
    """A game a few moves in, with the seat to move having a real choice (no forced move)."""
    game: Any = panda_core.make(name, players=3, seed=seed)
    moves = 0
    while moves < 4 or len(game.legal_moves()) < 2:
        game.apply(game.bot_move("heuristic", seed=moves))
        moves += 1
    assert not game.is_over
    return game


def run_with_timeout(call: Any) -> Any:
    """``call()`` on a daemon thread; its result, or a test failure if it has not returned."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = call()
        except BaseException as e:  # reported on the test thread
            out["error"] = e

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(JOIN)
    assert not worker.is_alive(), f"the call did not return within {JOIN} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.mark.parametrize("name", GAMES)
def test_a_search_returns_a_legal_move_at_its_deadline(name: str) -> None:
    game = position(name)
    before = game.to_json()
    move = run_with_timeout(lambda: game.bot_move("ismcts:1000000", seed=1, time_limit=0.3))
    assert move in game.legal_moves()
    assert game.to_json() == before
    game.apply(move)


@pytest.mark.parametrize("limit", [1, 0.05, np.float64(0.05), np.float32(0.05), Fraction(1, 20)])
@pytest.mark.slow
def test_any_real_number_is_a_limit(limit: Any) -> None:
    game = position("head")
    move = run_with_timeout(lambda: game.bot_move("ismcts:1000000", seed=2, time_limit=limit))
    assert move in game.legal_moves()


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_the_instant_bots_ignore_the_limit(name: str, bot: str) -> None:
    game = position(name)
    for seed in range(8):
        plain = game.bot_move(bot, seed=seed)
        assert game.bot_move(bot, seed=seed, time_limit=0.001) == plain
        assert game.bot_move(bot, seed=seed, time_limit=3600) == plain


def test_a_forced_move_or_a_short_search_is_unaffected() -> None:
    # Within a generous limit a small search finishes its iterations: the seed decides the move.
    game = position("year")
    plain = game.bot_move("ismcts:20", seed=4)
    assert game.bot_move("ismcts:20", seed=4, time_limit=3600) == plain


@pytest.mark.parametrize(
    "limit",
    [0, 0.0, -1, -0.5, 3600.001, 3601, 10**6, 2**200, float("nan"), float("inf"), -float("inf")],
)
@pytest.mark.parametrize("name", GAMES)
def test_a_limit_out_of_range_is_refused_with_the_range(name: str, limit: Any) -> None:
    game = position(name)
    before = game.to_json()
    for bot in ["random", "heuristic", "ismcts:50"]:
        with pytest.raises(ArgumentError, match=r"time_limit must be more than 0 and at most 3600"):
            game.bot_move(bot, seed=1, time_limit=limit)
    assert game.to_json() == before


@pytest.mark.parametrize("limit", [True, False, "1", b"1", [1], {"s": 1}, object()])
def test_a_limit_that_is_no_number_is_a_type_error(limit: Any) -> None:
    game = position("spin")
    before = game.to_json()
    with pytest.raises(TypeError, match="time_limit is a number of seconds"):
        game.bot_move("ismcts:50", seed=1, time_limit=limit)
    assert game.to_json() == before


def test_a_finished_game_is_still_game_over() -> None:
    game = panda_core.make("head", players=2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    with pytest.raises(panda_core.GameOverError):
        game.bot_move("ismcts:100", time_limit=0.5)


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")
@pytest.mark.slow
def test_ctrl_c_stops_a_timed_search() -> None:
    """A search with an hour's limit still stops on SIGINT: the child prints ``interrupted``
    (it would print ``finished`` after a full search of a million iterations otherwise)."""
    script = textwrap.dedent(
        """
        import panda_core
        game = panda_core.make("year", players=4, seed=2)
        print("started", flush=True)
        try:
            game.bot_move("ismcts:1000000", seed=1, time_limit=3600)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
        else:
            print("finished", flush=True)
        print(game.bot_move("heuristic") in game.legal_moves(), flush=True)
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "started"
        # Let the call get deep into the search before the signal.
        threading.Event().wait(1.0)
        child.send_signal(signal.SIGINT)
        child.wait(timeout=CHILD)
        # Read after the exit (the output is a few lines): communicate() would miss what the
        # readline above buffered.
        assert child.stderr is not None
        out, err = child.stdout.read(), child.stderr.read()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert out.split() == ["interrupted", "True"], err[-2000:]
    assert "PanicException" not in err
