"""Determinization (HeadGame/ClimbGame.determinize): a sampled full state keeps everything the
player has seen — exactly (their observation and view are unchanged, every card is in exactly one
place, every opponent play of the hand stays legal) and statistically (hidden cards are spread
uniformly over the hidden places when nothing says otherwise)."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import numpy as np
import pytest

from panda_core import ClimbGame, ClimbSettings, HeadGame, HeadRules, InvalidStateError


def head_positions(count: int, rules: HeadRules | None = None) -> list[HeadGame]:
    """Random 3- and 4-player games stopped at a random decision of a hand."""
    rng = random.Random(5)
    out = []
    for seed in range(count):
        game = HeadGame(3 + seed % 2, seed, rules)
        for _ in range(rng.randrange(1, 60)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        if not game.is_over:
            out.append(game)
    return out


def all_cards(game: HeadGame) -> Counter[int]:
    snap = game.snapshot()
    cards = Counter(c for hand in snap["hands"] for c in hand)
    cards.update(snap["draw_pile"])
    cards.update(snap["discard"])
    for play in snap["pile_plays"]:
        cards.update(play[3])  # (seat, action, value, cards)
    return cards


@pytest.mark.parametrize("lowest_only", [False, True])
def test_head_sample_keeps_what_the_player_saw(lowest_only: bool) -> None:
    rules = HeadRules(lowest_only_when_cannot_follow=lowest_only)
    for game in head_positions(120, rules):
        for player in range(game.players):
            sample = game.determinize(player, seed=player + 1)
            np.testing.assert_array_equal(sample.observation(player), game.observation(player))
            assert sample.view(player) == game.view(player)
            assert all_cards(sample) == all_cards(game)
            assert sample.hand(player) == game.hand(player)
            assert sample.current_player == game.current_player
            assert sample.legal_actions() == game.legal_actions() or (
                sample.current_player != player
            )


def test_head_sample_is_seeded_and_varies() -> None:
    game = head_positions(1)[0]
    a, b = game.determinize(0, seed=1), game.determinize(0, seed=1)
    assert a.snapshot() == b.snapshot()
    others = {tuple(game.determinize(0, seed=s).snapshot()["hands"][1]) for s in range(20)}
    assert len(others) > 1


def test_head_sample_respects_option_b_inference() -> None:
    """A play below the highest value was option B: the player held no lower regular Panda (and
    drew nothing since, in this position), so no sample gives them one. The same position before
    that play does give them low cards: the check can fail."""
    hands = [
        [50, 51, 52, 53, 54, 45, 46],  # seat 0 leads: 11s and 10s
        [10, 15, 20, 25, 30, 35, 40],  # seat 1: one each of 3 .. 9
        [36, 37, 38, 39, 41, 42, 43],  # seat 2, the observer: 8s and 9s
    ]
    used = {c for h in hands for c in h}
    pile = [c for c in range(63) if c not in used]  # the 1s and 2s are hidden

    def lowest_values(answer: int | None) -> set[int]:
        game = HeadGame.from_deal(hands=hands, draw_pile=pile, dealer=2)
        game.apply(10)  # seat 0: an 11
        if answer is not None:
            game.apply(answer)  # seat 1
        return {
            min(c // 5 + 1 for c in game.determinize(2, seed=seed).hand(1) if c < 55)
            for seed in range(200)
        }

    assert min(lowest_values(2)) >= 3  # a 3 under an 11: option B, seat 1's lowest
    assert min(lowest_values(None)) < 3  # before that play, seat 1 may hold anything


def test_head_hidden_cards_are_uniform_over_hidden_places() -> None:
    """At the start of a hand nothing is known about the others: a given hidden card lands in
    each opponent's hand in proportion to its size (7 each) and in the draw pile otherwise."""
    game = HeadGame(3, 11)
    player = 0
    mine = set(game.hand(player))
    card = next(c for c in range(63) if c not in mine)
    counts: Counter[str] = Counter()
    trials = 3000
    for seed in range(trials):
        snap = game.determinize(player, seed=seed).snapshot()
        place = next(
            (f"seat {s}" for s in (1, 2) if card in snap["hands"][s]),
            "pile",
        )
        counts[place] += 1
    hidden = 63 - 7
    expected = {"seat 1": 7 / hidden, "seat 2": 7 / hidden, "pile": 42 / hidden}
    chi2 = sum((counts[k] - trials * p) ** 2 / (trials * p) for k, p in expected.items())
    assert chi2 < 13.8, (counts, chi2)  # p = 0.001 with 2 degrees of freedom


def test_head_sample_plays_on_but_has_no_record() -> None:
    game = head_positions(3)[0]
    sample = game.determinize(1, seed=3)
    twin = sample.clone()
    while not sample.is_over:
        sample.apply(sample.bot_move("heuristic", seed=1).action_id)
    assert twin.snapshot() != sample.snapshot()
    with pytest.raises(InvalidStateError, match="no record"):
        sample.to_json()
    with pytest.raises(ValueError):
        game.determinize(7, seed=1)


def climb_positions(preset: str, count: int) -> list[ClimbGame]:
    rng = random.Random(9)
    out = []
    settings = ClimbSettings(preset=preset, panda_mood="flip" if count % 2 else "hungry")
    for seed in range(count):
        game = ClimbGame(2 + seed % 4, seed, settings)
        for _ in range(rng.randrange(1, 120)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_moves()))
        if not game.is_over:
            out.append(game)
    return out


def hidden_places(snap: dict[str, Any]) -> Counter[int]:
    cards = Counter(c for h in snap["hands"] for c in h)
    cards.update(snap["draw_pile"])
    cards.update(snap["out"])
    return cards


@pytest.mark.parametrize("preset", ["year", "spin"])
def test_climb_sample_keeps_what_the_player_saw(preset: str) -> None:
    for game in climb_positions(preset, 60):
        snap = game.snapshot()
        for player in range(game.players):
            sample = game.determinize(player, seed=player)
            np.testing.assert_array_equal(sample.observation(player), game.observation(player))
            assert sample.view(player) == game.view(player)
            s = sample.snapshot()
            # Same cards in the same number of places; blue (public) cards never move.
            # (in `spin` an unseen wind may move between a hand and the out-of-round cards)
            assert hidden_places(s) == hidden_places(snap)
            assert [len(h) for h in s["hands"]] == [len(h) for h in snap["hands"]]
            blue = set(snap["blue"])
            for seat in range(game.players):
                assert {c for c in s["hands"][seat] if c in blue} == {
                    c for c in snap["hands"][seat] if c in blue
                }
            if preset == "spin":
                for seat in range(game.players):
                    winds = [c for c in s["hands"][seat] if c >= 65]
                    real = [c for c in snap["hands"][seat] if c >= 65]
                    assert len(winds) == len(real), "each seat keeps its wind count"


def test_climb_hidden_cards_are_uniform() -> None:
    game = ClimbGame(3, 4, ClimbSettings(preset="year"))
    snap = game.snapshot()
    mine = set(snap["hands"][0])
    card = next(c for h in snap["hands"][1:] for c in h if c not in mine)
    hidden = {1: len(snap["hands"][1]), 2: len(snap["hands"][2]), 3: len(snap["draw_pile"])}
    total = sum(hidden.values())
    counts: Counter[int] = Counter()
    trials = 3000
    for seed in range(trials):
        s = game.determinize(0, seed=seed).snapshot()
        counts[1 if card in s["hands"][1] else 2 if card in s["hands"][2] else 3] += 1
    chi2 = sum(
        (counts[k] - trials * n / total) ** 2 / (trials * n / total) for k, n in hidden.items()
    )
    assert chi2 < 13.8, (counts, chi2)
