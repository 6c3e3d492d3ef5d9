"""Bugs the fuzzers found (fuzz/RESULTS.md), each proved fixed from Python."""

from __future__ import annotations

import json
import pathlib

import pytest

from panda_core import InvalidStateError, PandaCoreError, head

REGRESSIONS = pathlib.Path(__file__).parent.parent / "fuzz" / "regressions"


def _deal(hand_number: int) -> head.HeadGame:
    return head.from_deal(
        [list(range(7)), list(range(7, 14))], list(range(14, 63)), hand_number=hand_number
    )


@pytest.mark.parametrize("hand_number", [2**31, 2**32 - 1])
def test_deal_hand_number_near_the_top_is_refused(hand_number: int) -> None:
    # Fuzzing finding (the head_record check): the count overflowed (a panic in debug builds, a
    # silent wrap to hand 0 in release) when the hand of such a deal ended.
    with pytest.raises(InvalidStateError, match=r"hand_number must be 0\.\.="):
        _deal(hand_number)


def test_deal_at_the_largest_hand_number_plays_on() -> None:
    game = _deal(2**31 - 1)
    while game.hand_number == 2**31 - 1 and not game.is_over:
        game.apply(game.legal_moves()[0])
    assert game.is_over or game.hand_number == 2**31


def test_saved_head_record_reproducer_is_refused() -> None:
    text = (REGRESSIONS / "head_record" / "deal_hand_number_max.json").read_text()
    assert json.loads(text)["start"]["deal"]["hand_number"] == 2**32 - 1
    with pytest.raises(InvalidStateError, match="hand_number"):
        head.from_json(text)


def test_score_near_u32_max_never_wraps() -> None:
    """H-5: a hand-built score near 2**32 used to wrap at pile-7 scoring (4294967294 + 5 became
    3). Such rules and deals are refused now; at the largest allowed score, scores only grow."""
    with pytest.raises(PandaCoreError, match="bust_threshold"):
        head.HeadGame(2, 1, rules=head.HeadRules(bust_threshold=2**32 - 1))
    with pytest.raises(PandaCoreError, match="score"):
        head.from_deal(
            [list(range(7)), list(range(7, 14))], list(range(14, 63)), scores=[2**32 - 2, 0]
        )
    top = 1_000_000  # the documented largest score and bust threshold
    game = head.from_deal(
        [list(range(7)), list(range(7, 14))],
        list(range(14, 63)),
        scores=[top - 1, top - 1],
        rules=head.HeadRules(bust_threshold=top),
    )
    while game.hand_number == 0 and not game.is_over:
        game.apply(game.legal_moves()[0])
    scores = game.round_results[0]["scores"]
    assert all(score >= top - 1 for score in scores), scores
