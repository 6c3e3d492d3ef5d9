"""Hypothesis: explicit Panda Head deals that reach the corners, played out by both engines.

Strategies build positions at the start of a hand: several specials stacked on top of the draw
pile under a Big Panda lead (H-4.1), a hand holding every Bamboo (H-4.4, H-4.5), values shared by
every seat (H-3.3, H-5.3 Poor Panda ties), scores at the edge of the threshold with Drowsy players
(H-6.1, H-6.2), and the last two survivors (H-6.3). From there both implementations play the same
random legal moves to the end of the game and must agree on every decision and every state, with
the invariants checked at each step.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from head_support import BAMBOOS, BIG_PANDAS, check_invariants, normalized
from panda_core import HeadGame, HeadRules
from panda_core.oracle.head import HeadRules as OracleRules
from panda_core.oracle.head import OracleHeadGame

CORNERS = ("plain", "stacked_specials", "all_bamboo", "shared_values", "edge_scores", "survivors")


@st.composite
def positions(draw: st.DrawFn) -> dict[str, Any]:
    corner = draw(st.sampled_from(CORNERS))
    players = draw(st.integers(2, 5))
    special = corner in ("stacked_specials", "all_bamboo") or draw(st.booleans())
    threshold = draw(st.sampled_from([21, 21, 8, 13, 40]))
    rules = {
        "last_pile_scoring": draw(st.sampled_from(["pile_sum", "own_card"])),
        "poor_panda": draw(st.booleans()),
        "lowest_only_when_cannot_follow": draw(st.booleans()),
        "bust_threshold": threshold,
        "special_cards": special,
    }
    seats = list(range(players))
    n_pooped = players - 2 if corner == "survivors" else draw(st.integers(0, players - 2))
    pooped_seats = set(draw(st.permutations(seats))[:n_pooped])
    active = [s for s in seats if s not in pooped_seats]
    dealer = draw(st.sampled_from(active))
    leader = next(s for k in range(1, players + 1) if (s := (dealer + k) % players) in active)

    pool = list(draw(st.permutations(range(63 if special else 55))))
    hands: dict[int, list[int]] = {s: [] for s in active}
    top: list[int] = []

    def give(seat: int, cards: list[int]) -> None:
        for c in cards:
            pool.remove(c)
            hands[seat].append(c)

    if corner == "stacked_specials":
        # The leader holds a Big Panda and the draw pile starts with k specials (H-4.1).
        give(leader, [55])
        k = draw(st.integers(1, 7))
        top = draw(st.permutations(BIG_PANDAS[1:] + BAMBOOS))[:k]
        for c in top:
            pool.remove(c)
    elif corner == "all_bamboo":
        seat = draw(st.sampled_from(active))
        give(seat, BAMBOOS + draw(st.permutations(BIG_PANDAS))[: draw(st.integers(0, 3))])
    elif corner == "shared_values":
        # Every seat holds copies of the same two values: ties on piles, Poor Panda on pile 7.
        v, w = draw(st.sampled_from([(1, 2), (3, 4), (5, 6), (10, 11)]))
        for i, seat in enumerate(active):
            give(seat, [(v - 1) * 5 + i, (w - 1) * 5 + i])
    for seat in active:
        need = 7 - len(hands[seat])
        hands[seat] += pool[:need]
        del pool[:need]
    draw_pile = top + pool

    scores, drowsy = [], []
    for s in seats:
        if s in pooped_seats:
            scores.append(threshold + draw(st.integers(1, 20)))
            drowsy.append(True)
        elif corner == "edge_scores":
            scores.append(draw(st.integers(max(0, threshold - 4), threshold)))
            drowsy.append(draw(st.booleans()))
        else:
            scores.append(draw(st.integers(0, threshold)))
            drowsy.append(draw(st.booleans()))
    return {
        "corner": corner,
        "players": players,
        "rules": rules,
        "hands": [sorted(hands.get(s, [])) for s in seats],
        "draw_pile": draw_pile,
        "dealer": dealer,
        "leader": leader,
        "top": top,
        "scores": scores,
        "drowsy": drowsy,
        "pooped": [s in pooped_seats for s in seats],
        "rng_state": draw(st.integers(0, 2**64 - 1)),
        "choices": draw(st.integers(0, 2**32)),
    }


def build(p: dict[str, Any]) -> tuple[HeadGame, OracleHeadGame]:
    rust = HeadGame.from_deal(
        p["hands"],
        p["draw_pile"],
        dealer=p["dealer"],
        scores=p["scores"],
        drowsy=p["drowsy"],
        pooped=p["pooped"],
        rng_state=p["rng_state"],
        rules=HeadRules(**p["rules"]),
    )
    orc = OracleHeadGame.from_deal(
        p["players"],
        p["hands"],
        p["draw_pile"],
        p["dealer"],
        p["scores"],
        p["drowsy"],
        p["pooped"],
        p["rng_state"],
        OracleRules(**p["rules"]),
    )
    return rust, orc


@pytest.mark.slow  # a long differential run: random positions against the oracle
@given(positions())
def test_h4_h5_h6_corner_positions_agree_to_the_end(p: dict[str, Any]) -> None:
    event(p["corner"])
    rust, orc = build(p)
    assert normalized(rust.snapshot()) == orc.snapshot()
    chooser = random.Random(p["choices"])
    if p["corner"] == "stacked_specials":
        # H-4.1: led, the Big Panda turns up the stacked specials until a regular Panda appears.
        assert rust.current_player == p["leader"] and 22 in rust.legal_actions()
        rust.apply(22)
        orc.apply(22)
        first = next(i for i, c in enumerate(p["draw_pile"]) if c < 55)
        regular = p["draw_pile"][first]
        turned = p["draw_pile"][: first + 1]
        assert set(p["top"]) <= set(turned)
        seat, action, value, cards = rust.snapshot()["pile_plays"][0]
        assert (seat, action, value) == (p["leader"], 22, regular // 5 + 1)
        assert sorted(cards) == sorted([55, *turned])
    steps = 0
    while not rust.is_over:
        legal = rust.legal_actions()
        assert rust.current_player == orc.current_player and legal == orc.legal_actions()
        action = chooser.choice(legal)
        if action == 23:
            event("bamboo alone played")
        rust.apply(action)
        orc.apply(action)
        snap = rust.snapshot()
        check_invariants(rust, snap)
        assert normalized(snap) == orc.snapshot()
        steps += 1
        assert steps < 100_000
    assert rust.winner == orc.winner
    results = rust.round_results
    if any(r["new_drowsy"] for r in results):
        event("drowsy reset")
    if any(d < 0 for r in results for d in r["deltas"]):
        event("poor panda loss")


@given(positions().filter(lambda p: p["corner"] == "survivors"))
@pytest.mark.slow
def test_h6_3_last_two_survivors_game_ends_with_one_awake(p: dict[str, Any]) -> None:
    rust, _ = build(p)
    awake = [s for s in range(p["players"]) if not p["pooped"][s]]
    assert len(awake) == 2
    chooser = random.Random(p["choices"])
    while not rust.is_over:
        # Only the two survivors ever move.
        assert rust.current_player in awake
        rust.apply(chooser.choice(rust.legal_actions()))
    assert rust.winner in awake
    assert rust.pooped.count(False) == 1
