"""The seat object (``game.seat(player)``): a bot sees only its seat.

Proved at every decision of complete games of all three games:

* nothing a seat shows (its ``to_json()``, ``repr``, view, events, legal moves) names a card the
  seat may not know (another seat's hand, the draw pile);
* a seat of the real game and a seat of a game sampled from its information
  (``determinize``: the hidden cards dealt anew) answer the same — so nothing a seat shows
  depends on the hidden cards;
* every built-in bot decides from the seat's information alone: two games that look the same to
  the seat but differ in hidden cards get the same move for the same seed.
"""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from panda_core import ArgumentError, make
from panda_core._registry import AnyGame
from panda_core.bots import play_game

GAMES = ("head", "year", "spin")
CARD_KEYS = {"hand", "hands", "cards", "card", "discard", "played", "flip", "steal"}
"""The fields of views and events that hold card ids (a climbing combination's ``named`` is the
rank a wild card stands for, not a card)."""
SAMPLES = 4
"""Determinizations per check: a card in the same hidden place in all of them is known."""


def card_ids(value: Any, key: str | None = None) -> set[int]:
    """Every card id in a view or event (the ints under a card field)."""
    if isinstance(value, dict):
        return set().union(*(card_ids(v, k) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(card_ids(v, key) for v in value))
    if isinstance(value, int) and not isinstance(value, bool) and key in CARD_KEYS:
        return {value}
    return set()


def places(game: AnyGame, seat: int) -> dict[int, str]:
    """Where each card hidden from ``seat`` is: another seat's hand or the draw pile."""
    snap = game.snapshot()
    out = {c: f"hand {s}" for s, hand in enumerate(snap["hands"]) if s != seat for c in hand}
    out.update({c: "draw pile" for c in snap["draw_pile"]})
    return out


def hidden_from(game: AnyGame, seat: int) -> set[int]:
    """The cards ``seat`` may not know: those in another hand or the draw pile, less the ones
    every sample of its information keeps in place (it saw where they went)."""
    real = places(game, seat)
    samples = [places(game.determinize(seat, k), seat) for k in range(SAMPLES)]
    return {c for c, where in real.items() if any(s.get(c) != where for s in samples)}


def decisions(name: str, seed: int) -> Iterator[AnyGame]:
    """Every position of one complete game (seats played by a mix of built-in bots)."""
    game = make(name, players=3, seed=seed)
    bots = ["heuristic", "random", "heuristic"]
    k = 0
    while not game.is_over:
        yield game
        seat = game.current_player
        assert seat is not None
        game.apply(game.bot_move(bots[seat], k))
        k += 1
    yield game


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.slow
def test_no_seat_shows_a_hidden_card_at_any_decision(name: str) -> None:
    checked = 0
    seen: list[int] = [0, 0, 0]
    for game in decisions(name, seed=11):
        # Cards every seat was shown (a play, a won pile) are public wherever they went.
        public = set.intersection(*(card_ids(game.events(q)) for q in range(game.players)))
        for p in range(game.players):
            seat = game.seat(p)
            hidden = hidden_from(game, p) - public
            info = json.loads(seat.to_json())
            assert info["seat"] == p and info["view"] == json.loads(json.dumps(seat.view()))
            # What arrived since the seat last looked, and what it sees now.
            events = seat.events()
            new = events[seen[p] :]
            seen[p] = len(events)
            leaked = (card_ids(info["view"]) | card_ids(new)) & hidden
            assert not leaked, f"seat {p} is shown hidden cards {sorted(leaked)}"
            assert not card_ids(seat.view()["hand"]) - set(game.view(p)["hand"])
            # Only the seat to move has legal moves (another's would show its hand).
            if game.current_player != p:
                assert seat.legal_list() == [] and seat.legal_moves() == []
                assert not seat.legal_action_mask().any()
            text = repr(seat)
            assert "hand" not in text and len(text) < 60
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_answers_the_same_in_any_game_its_information_allows(name: str) -> None:
    for k, game in enumerate(decisions(name, seed=5)):
        if game.is_over:
            break
        for p in range(game.players):
            real = game.seat(p)
            other = game.determinize(p, 1000 + k).seat(p)
            assert other.view() == real.view()
            assert other.legal_list() == real.legal_list()
            assert other.scores == real.scores and other.current_player == real.current_player
            np.testing.assert_array_equal(other.observation(), real.observation())
            np.testing.assert_array_equal(other.legal_action_mask(), real.legal_action_mask())


SEARCH = "ismcts:24"
GUIDED = "ismcts+neural:12"


@pytest.mark.parametrize("name", GAMES)
def test_every_builtin_bot_decides_from_the_seat_alone(name: str) -> None:
    """Same seat information, other hidden cards, same seed: the same move. The bots that read
    the position compare the real game with a sample; the search, which also reads the history
    it watched, compares two samples (a sample starts with no history)."""
    compared = 0
    for k, game in enumerate(decisions(name, seed=8)):
        if game.is_over:
            break
        if k % 3:
            continue
        p = game.current_player
        assert p is not None
        seat = game.seat(p)
        one = game.determinize(p, 2 * k + 1)
        two = game.determinize(p, 2 * k + 2)
        assert one.snapshot() != two.snapshot() or game.players == 0  # the hidden cards differ
        for bot in ("random", "heuristic", "neural"):
            move = seat.bot_move(bot, k)
            assert move == game.bot_move(bot, k)
            assert one.seat(p).bot_move(bot, k) == move, (bot, k)
        for search in (SEARCH, GUIDED):
            assert one.seat(p).bot_move(search, k) == two.seat(p).bot_move(search, k), search
        compared += 1
    assert compared > 5


@pytest.mark.parametrize("name", GAMES)
def test_another_seats_information_is_refused(name: str) -> None:
    game = make(name, players=3, seed=2)
    seat = game.seat(0)
    for verb in (seat.view, seat.observation, seat.events, lambda p: seat.determinize(p, 5)):
        with pytest.raises(ArgumentError, match="seat 0 cannot see seat 1's"):
            verb(1)
    assert seat.view(0) == seat.view() == game.view(0)
    assert seat.events(0) == seat.history == game.events(0)
    np.testing.assert_array_equal(seat.observation(0), game.observation(0))
    with pytest.raises(ArgumentError, match=r"out of range|seat"):
        seat.view(7)
    other = game.seat(1 if game.current_player != 1 else 2)
    with pytest.raises(ArgumentError, match="for the seat to move"):
        other.bot_move("heuristic", 1)
    with pytest.raises(ArgumentError, match="for the seat to move"):
        other.move_for_action(0)


@pytest.mark.parametrize("name", GAMES)
def test_a_seat_cannot_be_pickled_and_has_no_way_to_the_game(name: str) -> None:
    game = make(name, players=3, seed=2)
    seat = game.seat(1)
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(seat)
    assert copy.deepcopy(seat).to_json() == seat.to_json()
    for attr in ("apply", "clone", "snapshot", "to_record", "hands", "draw_pile", "game"):
        assert not hasattr(seat, attr), attr
    public = [a for a in dir(seat) if not a.startswith("__")]
    assert "snapshot" not in public and "apply" not in public


@pytest.mark.parametrize("name", GAMES)
def test_a_sample_does_not_carry_the_deals_seed(name: str) -> None:
    """A determinization's snapshot holds no seed that would deal the real hands again."""
    game = make(name, players=3, seed=123456)
    for _ in range(4):
        game.apply(game.legal_actions()[0])
    real = game.snapshot()
    sample = game.seat(game.current_player).determinize(9).snapshot()
    assert sample.get("seed") != 123456 or "seed" not in real
    assert sample["rng_state"] != real["rng_state"]


@pytest.mark.parametrize("name", GAMES)
def test_determinize_takes_a_seed_or_the_games_player_and_seed(name: str) -> None:
    game = make(name, players=3, seed=4)
    seat = game.seat(2)
    a = seat.determinize(5).snapshot()
    assert seat.determinize(2, 5).snapshot() == a == seat.determinize(seed=5).snapshot()
    assert a == game.determinize(2, 5).snapshot()
    with pytest.raises(TypeError):
        seat.determinize(1, 2, 3)


def test_python_bots_in_play_game_are_handed_their_seat() -> None:
    handed: list[tuple[str, int, int]] = []

    def bot(seat: Any, player: int) -> int:
        handed.append((type(seat).__name__, seat.player, player))
        return int(seat.legal_actions()[0])

    for name in GAMES:
        play_game(name, [bot, "heuristic", bot], seed=3)
    assert handed and all(kind.endswith("Seat") and s == p for kind, s, p in handed)


@pytest.mark.parametrize("name", GAMES)
def test_public_events_show_only_cards_every_seat_was_shown(name: str) -> None:
    """A spectator's log (``game.public_events()``) holds no card some seat was not shown, and
    it is the same log as each seat's, event for event (only the private cards are missing)."""
    checked = 0
    for k, game in enumerate(decisions(name, seed=5)):
        if k % 25 and not game.is_over:
            continue
        seen = [game.events(q) for q in range(game.players)]
        public = game.public_events()
        shared = set.intersection(*(card_ids(events) for events in seen))
        assert card_ids(public) <= shared
        assert [e["type"] for e in public] == [e["type"] for e in seen[0]]
        checked += 1
    hands = [e for e in game.public_events() if e["type"] == "deal"]
    assert hands and not card_ids(hands)  # the deals show nobody's cards
    assert checked > 3
