"""The strict reader of a model's answer (panda_core.llm.answer): one MOVE line naming a listed
move, or a number of the list; never a guess, never another move."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panda_core.llm.answer import MAX_ANSWER_CHARS, Answer, read_answer

HEAD = ["2", "4", "9", "11", "7+B", "BP"]
CLIMB = ["pass", "single Ea6", "set Ea6+Wo6", "run Wo9+Wo10"]


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("MOVE: 4", 1),
        ("MOVE:4", 1),
        ("move: 9", 2),
        ("Move: 11", 3),
        ("  MOVE: 7+B  ", 4),
        ("I think the big one.\nMOVE: BP", 5),
        ("**MOVE:** 2", 0),
        ("**MOVE: 2**", 0),
        ("__MOVE__: 2", 0),
        ("MOVE: `7+B`", 4),
        ("MOVE: **`BP`**.", 5),
        ('MOVE: "4"', 1),
        ("MOVE: #1", 0),
        ("MOVE: #6", 5),
        ("<think>MOVE: 2 maybe?\nno</think>\nMOVE: 9", 2),
        ("<THINK>MOVE: 2</THINK>\nMOVE: 4", 1),
    ],
)
def test_a_listed_move_is_read(text: str, index: int) -> None:
    assert read_answer(text, HEAD) == Answer("move", index)


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("MOVE: single Ea6", 1),
        ("MOVE: single   Ea6", 1),  # runs of spaces count as one
        ("MOVE: pass", 0),
        ("MOVE: pass.", 0),
        ("MOVE: run Wo9+Wo10", 3),
        ("MOVE: #3", 2),
    ],
)
def test_climbing_notations_are_read(text: str, index: int) -> None:
    assert read_answer(text, CLIMB) == Answer("move", index)


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("MOVE: 5", "'5'"),
        ("MOVE: 7", "'7'"),  # not 7+B: no closest match
        ("MOVE: bp", "'bp'"),  # notations are matched exactly, case too
        ("MOVE: #0", "#0 (the list has #1 to #6)"),
        ("MOVE: #7", "#7 (the list has #1 to #6)"),
        ("MOVE: 4 or 9", "'4 or 9'"),
        ("MOVE: the highest", "'the highest'"),
    ],
)
def test_a_move_that_is_not_listed_is_illegal(text: str, detail: str) -> None:
    assert read_answer(text, HEAD) == Answer("illegal", None, detail)


def test_a_climbing_move_that_is_not_legal_is_illegal_not_corrected() -> None:
    assert read_answer("MOVE: single Ea7", CLIMB).kind == "illegal"
    assert read_answer("MOVE: Ea6", CLIMB).kind == "illegal"  # the kind is part of the notation
    assert read_answer("MOVE: Single Ea6", CLIMB).kind == "illegal"


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("", "no line starting with 'MOVE:'"),
        ("4", "no line starting with 'MOVE:'"),
        ("I play 4.", "no line starting with 'MOVE:'"),
        ("The MOVE: 4", "no line starting with 'MOVE:'"),
        ("<think>MOVE: 4</think>", "no line starting with 'MOVE:'"),
        ("<think>MOVE: 4", "no line starting with 'MOVE:'"),  # an unclosed note hides the rest
        ("MOVE: 4\nMOVE: 4", "2 lines starting with 'MOVE:'"),
        ("MOVE: 4\nMOVE: 9", "2 lines starting with 'MOVE:'"),
        ("MOVE:", "names no move"),
        ("MOVE: ``", "names no move"),
    ],
)
def test_an_answer_without_one_move_line_is_unparsable(text: str, detail: str) -> None:
    got = read_answer(text, HEAD)
    assert got.kind == "unparsable" and detail in got.detail


def test_a_huge_answer_is_unparsable_without_being_searched() -> None:
    got = read_answer("MOVE: 4\n" + "x" * MAX_ANSWER_CHARS, HEAD)
    assert got.kind == "unparsable" and "over" in got.detail


@given(st.text(max_size=300))
def test_any_text_gives_a_listed_move_or_says_why_not(text: str) -> None:
    got = read_answer(text, HEAD)
    if got.kind == "move":
        assert got.index is not None and 0 <= got.index < len(HEAD)
        # a move is read only from a MOVE line whose value is that move or its number
        assert "move" in text.lower()
    else:
        assert got.index is None and got.detail


@given(st.sampled_from(HEAD), st.sampled_from(["", "**", "`", '"']))
def test_every_listed_notation_reads_as_itself(notation: str, wrap: str) -> None:
    got = read_answer(f"reasoning\nMOVE: {wrap}{notation}{wrap}\n", HEAD)
    assert got == Answer("move", HEAD.index(notation))
