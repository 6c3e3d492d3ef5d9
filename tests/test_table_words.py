"""The table's words and story, per game (docs/table.md): what a spectator is shown, what a
play is called, card help, the log's groups, seat status, places and consequences.

Exact strings are checked on built positions (seeded deals, known moves); invariants over whole
seeded games check every text a seat is shown. Rule IDs are named in each test."""

from __future__ import annotations

from typing import Any

import pytest

import panda_core
from hidden_cards import hidden_cards_shown, private_events_leak
from panda_core._registry import AnyGame, spec
from panda_core.table.cards import CardBook
from panda_core.table.seat_state import SeatStateBuilder

GAMES = ("head", "year", "spin")
SPECTATOR = -1
"""A seat number no seat has: ``hidden_cards.secret_cards(game, -1)`` is every hand."""


def builder(game: AnyGame) -> SeatStateBuilder:
    names = [f"bot{p}" for p in range(game.players)]
    return SeatStateBuilder(spec(game_name(game)), CardBook(game), names)


def game_name(game: AnyGame) -> str:
    rules = game.rules
    return str(getattr(rules, "preset", "head"))


def state_of(game: AnyGame, seat: int | None, *, public: bool = False) -> dict[str, Any]:
    b = builder(game)
    kinds = [{"kind": "bot", "name": f"bot{p}"} for p in range(game.players)]
    return b.build(game, seat, seat_kinds=kinds, seed=None, notes=(), since=0, public=public)


def bot_game(name: str, players: int, seed: int, moves: int | None = None) -> AnyGame:
    """A seeded game of heuristic bots, played ``moves`` moves (or to its end)."""
    game = panda_core.make(name, players=players, seed=seed)
    done = 0
    while not game.is_over and (moves is None or done < moves):
        game.apply(game.bot_move("heuristic", seed=seed + done))
        done += 1
    return game


# ---- 1. the spectator's state ---------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_s11_h2_a_spectator_is_shown_no_private_card(name: str) -> None:
    """S-11 / H-2: a spectator sees what every seat sees and nothing more, at every move."""
    game = panda_core.make(name, players=3, seed=21)
    step = 0
    while not game.is_over and step < 120:
        state = state_of(game, None, public=True)
        assert state["spectator"] is True and state["seat"] is None
        assert state["hand"] == [] and state["hands"] is None and state["legal"] == []
        assert not hidden_cards_shown(state, game, SPECTATOR), step
        assert not private_events_leak(state["events"], SPECTATOR), step
        assert [e["type"] for e in state["events"]] == [e["type"] for e in game.public_events()]
        game.apply(game.bot_move("heuristic", seed=step))
        step += 1


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_state_is_not_a_spectators(name: str) -> None:
    game = bot_game(name, 3, 5, moves=3)
    seat = state_of(game, 1)
    assert seat["spectator"] is False and seat["seat"] == 1 and seat["hand"]
    full = state_of(game, None)
    assert full["spectator"] is False and full["hands"] is not None
    # public=True wins over a seat: nothing of seat 1's hand
    public = state_of(game, 1, public=True)
    assert public["seat"] is None and public["hand"] == []


def test_a_public_note_reaches_every_seat_and_spectators() -> None:
    game = bot_game("head", 3, 5, moves=2)
    b = builder(game)
    kinds = [{"kind": "bot", "name": "x"}] * 3
    private = (2, {"type": "bot_fallback", "player": 1, "bot": "x", "reason": "timeout",
                   "played_by": "heuristic"})  # fmt: skip
    shown = (2, {"type": "stand_in", "player": 2, "public": True, "text": "x"})
    notes = [private, shown]

    def types(seat: int | None, public: bool = False) -> list[str]:
        state = b.build(game, seat, seat_kinds=kinds, seed=None, notes=notes, since=0,
                        public=public)  # fmt: skip
        return [e["type"] for e in state["events"] if e["type"] in ("bot_fallback", "stand_in")]

    assert types(1) == ["bot_fallback", "stand_in"]
    assert types(0) == ["stand_in"]
    assert types(None, public=True) == ["stand_in"]
