"""The table model's cost: what a front-end pays per screen, against the engine calls it is
built from, measured in the same run.

* ``state``: ``Table.state(seat)`` — the per-seat view, the seat's whole event log with a line of
  text per event, the legal moves with texts and cards — against ``view(seat)`` +
  ``events(seat)`` + ``legal_moves()`` alone (the engine's part of it);
* ``replay``: loading a record into a ``Replay`` (every position kept) against ``from_json``.

Ratios: ``python benches/report.py bench.json``. A screen is drawn once per move a person sees,
so what matters is that one state stays far below a frame of human time (milliseconds).
"""

from __future__ import annotations

from typing import Any

import pytest

import panda_core
from panda_core.table import Replay, Table

GAMES = ("head", "year", "spin")


def mid_game(game: str) -> Table:
    """A 4-player table halfway through its first round, seat 0 (a person) to move."""
    table = Table(game, seats=["human", "heuristic", "heuristic", "heuristic"], seed=3)
    for _ in range(6):
        table.advance()
        if table.waiting_for is None:
            break
        table.play(0, 0)
    table.advance()
    return table


@pytest.mark.parametrize("game", GAMES)
def test_table_state(benchmark: Any, game: str) -> None:
    table = mid_game(game)
    state = benchmark(table.state, 0)
    assert state["seat"] == 0 and state["events"]


@pytest.mark.parametrize("game", GAMES)
def test_engine_parts_of_a_state(benchmark: Any, game: str) -> None:
    engine = mid_game(game)._game

    def parts() -> Any:
        return engine.view(0), engine.events(0), engine.legal_moves()

    view, events, _ = benchmark(parts)
    assert view["hand"] and events


def finished_record(game: str) -> str:
    g = panda_core.make(game, players=4, seed=5)
    while not g.is_over:
        g.apply(g.bot_move("heuristic", 0))
    return g.to_json()


@pytest.mark.parametrize("game", GAMES)
def test_replay_load(benchmark: Any, game: str) -> None:
    record = finished_record(game)
    replay = benchmark(Replay, record)
    assert len(replay) > 1


@pytest.mark.parametrize("game", GAMES)
def test_from_json(benchmark: Any, game: str) -> None:
    record = finished_record(game)
    loaded = benchmark(panda_core.make(game).from_json, record)
    assert loaded.is_over
