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


@pytest.mark.xfail(
    strict=True,
    reason="issue 8 item 9: with bust_threshold near 2**32 a hand-built score near 2**32 wraps "
    "when pile 7 is scored (src/head/state.rs end_hand: scores[winner] += gain); 4294967294 + 5 "
    "becomes 3. Flip when such deals are refused or scoring saturates",
)
def test_score_near_u32_max_never_wraps() -> None:
    top = 2**32 - 2
    try:
        game = head.from_deal(
            [list(range(7)), list(range(7, 14))],
            list(range(14, 63)),
            scores=[top, top],
            rules=head.HeadRules(bust_threshold=2**32 - 1),
        )
    except PandaCoreError:
        return  # refusing the rules or the deal is a fix too
    while game.hand_number == 0 and not game.is_over:
        game.apply(game.legal_moves()[0])
    winner = game.hand_results[0]["last_pile_winner"]
    assert game.hand_results[0]["scores"][winner] >= top, game.hand_results[0]
