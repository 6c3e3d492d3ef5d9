"""Climbing games: the Rust engine's deck loading, classification and legal-move generation
against the oracle on random inputs (hypothesis), and deck files (S-2.4)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import test_oracle_climb as scenarios
from panda_core import ClimbGame, ClimbSettings, InvalidStateError
from panda_core._core import climb_classify
from panda_core.oracle.climb import classify
from panda_core.oracle.climb_deck import default_deck

DECK = default_deck()


@st.composite
def plays(draw: st.DrawFn) -> tuple[list[int], list[str], list[int], bool]:
    cards = sorted(draw(st.sets(st.integers(0, 64), min_size=1, max_size=8)))
    faces = [draw(st.sampled_from(["white", "blue"])) for _ in cards]
    named: list[int] = []
    for card, face in zip(cards, faces, strict=True):
        if face == "blue":
            named += [draw(st.integers(0, 12)) for _ in range(_wild_units(card))]
    return cards, faces, named, draw(st.booleans())


def _wild_units(card: int) -> int:
    """Wild (fire) units on the blue face of ``card``; white faces have none (S-2.1)."""
    return DECK.animals[card].blue.wilds


@given(plays())
def test_s4_s5_classification_matches_oracle(
    play: tuple[list[int], list[str], list[int], bool],
) -> None:
    """S-4.1 … S-4.6 on random card sets with random faces and named wild ranks."""
    cards, faces, named, leading = play
    expected = classify(cards, faces, named, DECK, leading=leading)
    got = climb_classify(cards, faces, named, leading)
    if expected is None:
        assert got is None
    else:
        assert got is not None
        assert got == {k: v for k, v in expected.to_json().items() if k in got}
        assert set(got) >= {"kind", "rank", "units", "length", "copies", "cards", "named"}


@pytest.mark.parametrize(
    ("cards", "faces", "named", "message"),
    [
        ([65], ["white"], [], "element"),
        ([3, 3], ["white", "white"], [], "twice"),
        ([70], ["white"], [], "card id"),
        ([0], ["blue"], [], "wild"),
        ([0], ["blue"], [13], "rank"),
        ([0], ["green"], [], "face"),
    ],
)
def test_s4_6_classify_refuses_malformed_input(
    cards: list[int], faces: list[str], named: list[int], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        climb_classify(cards, faces, named)  # type: ignore[arg-type]


def test_s2_4_custom_deck_changes_play_rust(tmp_path: Path) -> None:
    """A deck file replaces S-2.2: blue Metal 3 becomes a pair of 5s (drop)."""
    data = scenarios._deck_data()
    scenarios._card_entry(data, 52)["blue"].update(units=["5", "5"], symbols=["drop"])
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    got = climb_classify([52], ["blue"], [], deck=str(path))
    assert got is not None and (got["kind"], got["rank"], got["units"]) == ("set", 2, 2)
    assert climb_classify([52], ["blue"], [])["kind"] == "single"  # type: ignore[index]
    settings = ClimbSettings(deck=str(path))
    game = ClimbGame(2, 1, settings)
    assert settings.deck == str(path) and game.snapshot()["deck"] == data["name"]


DECK_MUTATIONS = scenarios.test_s2_4_malformed_deck_names_card_and_field.pytestmark[0].args[1]


@pytest.mark.parametrize(("mutate", "needle"), DECK_MUTATIONS)
def test_s2_4_malformed_deck_refused_naming_card_and_field_rust(
    mutate: Any, needle: str, tmp_path: Path
) -> None:
    data = copy.deepcopy(scenarios._deck_data())
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InvalidStateError) as info:
        ClimbSettings(deck=str(path))
    assert needle.split(": ")[0] in str(info.value)
    assert needle.split("field ")[-1] in str(info.value)


def test_s1_1_s1_2_s1_6_s7_5_card_ids_ranks_faces_and_symbols() -> None:
    """Suits Fire..Metal and ranks 3..2 fix the ids (S-1.1, S-1.2, S-1.3); a blue face's
    symbols change its units (S-1.6): fire is a wild unit, drop doubles the unit (S-7.5)."""
    from panda_core import ClimbMove

    assert ClimbMove.parse("single Fi3").cards == [0]
    assert ClimbMove.parse("single Ea3").cards == [13]
    assert ClimbMove.parse("single Me2").cards == [64]
    assert ClimbMove.parse("element Wa!").cards == [68]
    # S-1.2: the 2 is the highest rank: a single 2 outranks a single A.
    two = climb_classify([12], ["white"], [])
    ace = climb_classify([11], ["white"], [])
    assert two is not None and ace is not None and two["rank"] == 12 > ace["rank"] == 11
    # S-1.6/S-7.5 drop: blue Water 4 shows two Qs, a set of two from one card.
    water = climb_classify([40], ["blue"], [])
    assert water is not None and (water["kind"], water["units"], water["rank"]) == ("set", 2, 9)
    # fire: blue Fire 3 is a 10 plus a wild unit, named here as J: a run 10-J.
    fire = climb_classify([0], ["blue"], [8])
    assert fire is not None and (fire["kind"], fire["rank"], fire["length"]) == ("run", 8, 2)
    assert fire["named"] == [8]
    # The white face of the same card is a plain single 3.
    assert climb_classify([0], ["white"], []) == {
        **(climb_classify([0], ["white"], []) or {}),
        "kind": "single",
        "rank": 0,
        "units": 1,
    }
