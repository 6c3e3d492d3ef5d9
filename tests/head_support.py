"""Helpers shared by the Panda Head tests: rule grids, invariants and state comparison."""

from __future__ import annotations

import itertools
from typing import Any

from panda_core import HeadGame, HeadRules
from panda_core.oracle import head as oracle

FULL_DECK = list(range(63))
REGULAR_DECK = list(range(55))
BIG_PANDAS = [55, 56, 57, 58]
BAMBOOS = [59, 60, 61, 62]


def card(value: int, copy: int = 0) -> int:
    """The id of copy ``copy`` (0..4) of regular value ``value`` (H-1.3)."""
    return (value - 1) * 5 + copy


def all_rule_combinations() -> list[dict[str, Any]]:
    """Every combination of the H-7 switches, with two bust thresholds (21 and a low one)."""
    combos = []
    for scoring, poor, lowest_only, special, threshold in itertools.product(
        ("pile_sum", "own_card"), (True, False), (False, True), (True, False), (21, 9)
    ):
        combos.append(
            {
                "last_pile_scoring": scoring,
                "poor_panda": poor,
                "lowest_only_when_cannot_follow": lowest_only,
                "special_cards": special,
                "bust_threshold": threshold,
            }
        )
    return combos


def both_rules(players: int, rules: dict[str, Any]) -> tuple[HeadRules, oracle.HeadRules]:
    first_dealer = rules.get("first_dealer", 0) % players
    kw = {**rules, "first_dealer": first_dealer}
    return HeadRules(**kw), oracle.HeadRules(**kw)


def normalized(snapshot: Any) -> dict[str, Any]:
    """A snapshot with tuples turned into lists so both implementations compare equal."""
    out = dict(snapshot)
    out["pile_plays"] = [list(p) for p in snapshot["pile_plays"]]
    out["hand_results"] = [dict(r) for r in snapshot["hand_results"]]
    return out


def check_invariants(game: HeadGame, snap: Any = None) -> None:
    """Every card in exactly one place; 7 - piles played cards per hand; scores >= 0."""
    snap = snap if snap is not None else game.snapshot()
    deck_size = 63 if game.rules.special_cards else 55
    places: list[int] = []
    for hand in snap["hands"]:
        places += hand
    places += snap["draw_pile"] + snap["discard"]
    for play in snap["pile_plays"]:
        places += play[3]
    assert sorted(places) == list(range(deck_size)), "a card is missing or in two places"
    played_now = {play[0] for play in snap["pile_plays"]}
    for seat, hand in enumerate(snap["hands"]):
        if snap["pooped"][seat]:
            assert hand == [], f"Pooped seat {seat} holds cards"
        elif not snap["is_over"]:
            expected = 7 - snap["pile_number"] - (1 if seat in played_now else 0)
            assert len(hand) == expected, f"seat {seat} holds {len(hand)} cards, not {expected}"
    assert all(s >= 0 for s in snap["scores"])
    assert all(
        s <= game.rules.bust_threshold or p
        for s, p in zip(snap["scores"], snap["pooped"], strict=True)
    )
