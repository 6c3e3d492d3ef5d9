"""Issue 8, core side, as Python sees it: items 2 (move-count explosion), 3 (panics in the core)
and 9 (lenient acceptance). Each test failed on the code before the fix: a process abort, a
PanicException, or a bad document silently accepted."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from panda_core import (
    ClimbGame,
    ClimbMove,
    ClimbSettings,
    HeadGame,
    HeadRules,
    InvalidStateError,
    PandaCoreError,
    RulesError,
    climb,
)

SHIPPED = Path(__file__).parent.parent / "python/panda_core/data/decks/reconstructed.toml"
WILD_WILD = {"units": ["wild", "wild"], "symbols": ["fire", "fire"]}


def shipped_deck_json() -> dict[str, Any]:
    """The shipped deck as a JSON document (the same structure as the TOML file)."""
    import tomllib

    return tomllib.loads(SHIPPED.read_text())


def write_deck(tmp_path: Path, doc: dict[str, Any], name: str = "deck.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


# ---- item 2: no deck and no position can exhaust memory or time ------------------------------


def test_s4_6_deck_of_two_wild_blue_faces_is_refused(tmp_path: Path) -> None:
    """Every blue face two wild units: 22 M moves for 6 blue cards, then an 8 GB abort. Deck
    schema rule 6 refuses it at load time, naming the card and the field."""
    doc = shipped_deck_json()
    for card in doc["cards"]:
        card["blue"] = dict(WILD_WILD)
    with pytest.raises(InvalidStateError, match=r"blue\.units.*rule 6"):
        ClimbSettings(deck=write_deck(tmp_path, doc))


def test_s4_6_deck_at_the_wild_bound_still_loads(tmp_path: Path) -> None:
    doc = shipped_deck_json()
    by_id = {c["id"]: c for c in doc["cards"]}
    by_id[13]["blue"] = dict(WILD_WILD)  # 2, plus 5 blue Fire cards per window, plus 1 below
    by_id[14]["blue"] = {"units": ["wild"], "symbols": ["fire"]}
    game = ClimbGame(4, 1, ClimbSettings(deck=write_deck(tmp_path, doc)))
    assert game.legal_moves()


def test_contract_5_3_huge_hand_built_position_is_refused_quickly() -> None:
    """One seat holding every animal card: more than 262,144 legal moves. The snapshot is refused
    where it enters, in well under a second, instead of building millions of moves."""
    game = ClimbGame(2, 3)
    snap = game.snapshot()
    held = [c for hand in snap["hands"] for c in hand] + snap["draw_pile"]
    animals = sorted(range(65))
    snap["suits_in_play"] = [0, 1, 2, 3, 4]
    snap["out"] = []
    snap["hands"] = [animals, []]
    snap["draw_pile"] = []
    snap["blue"] = []
    snap["discard"] = sorted(set(range(65, 70)))
    snap["trick"] = {"leader": 0, "to_beat": None, "holder": None, "passed": [], "played": [[], []]}
    snap["current_player"] = 0
    snap["starter"] = 0
    assert held  # the original deal had cards in play
    start = time.perf_counter()
    with pytest.raises(InvalidStateError, match="more than 262144 legal moves"):
        ClimbGame.from_snapshot(snap)
    assert time.perf_counter() - start < 5.0


# ---- item 3: no panic from the core -------------------------------------------------------


@pytest.mark.parametrize("text", ["single Me!", "single Fi!", "set Fi!+Wa!", "bomb Wo!"])
def test_s4_element_cards_in_a_combination_have_no_combo(text: str) -> None:
    """`move_info` of an element card in a combination panicked (index out of bounds)."""
    game = ClimbGame(4, 1)
    before = game.snapshot()
    info = game.move_info(climb.parse_move(text))
    assert info["combo"] is None
    assert "element" in info["faces"]
    with pytest.raises(PandaCoreError):
        game.apply(text)
    assert game.snapshot() == before


# ---- item 9: lenient acceptance refused -----------------------------------------------------


@pytest.mark.parametrize(
    "record",
    [
        {"kind": "pass"},
        {"kind": "pass", "cards": [], "named": [], "flip": []},
        {"kind": "single", "cards": [5], "named": [], "steal": []},
        {"cards": [], "named": [], "flip": [], "steal": []},
    ],
)
def test_contract_5_1_move_records_need_all_five_keys(record: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="missing"):
        ClimbMove.from_json(record)  # type: ignore[arg-type]
    game = ClimbGame(3, 2)
    before = game.snapshot()
    with pytest.raises(ValueError, match="missing"):
        game.apply(record)  # type: ignore[arg-type]
    assert game.snapshot() == before


def test_s2_4_json_deck_with_a_repeated_key_is_refused(tmp_path: Path) -> None:
    text = json.dumps(shipped_deck_json())
    for dup in [
        text.replace('"version": 1', '"version": 1, "version": 1', 1),
        text.replace('"symbols": ["fire"]', '"symbols": ["fire"], "symbols": ["fire"]', 1),
    ]:
        assert dup != text
        path = tmp_path / "dup.json"
        path.write_text(dup)
        with pytest.raises(InvalidStateError, match="duplicate key"):
            ClimbSettings(deck=str(path))
    # The same text without the repeat loads.
    path = tmp_path / "ok.json"
    path.write_text(text)
    assert ClimbSettings(deck=str(path)).deck_name == "reconstructed"


@pytest.mark.parametrize("suffix", ["json", "toml"])
def test_s2_4_deeply_nested_deck_text_is_refused(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"deep.{suffix}"
    if suffix == "json":
        path.write_text('{"cards": ' + "[" * 100_000 + "]" * 100_000 + "}")
    else:
        path.write_text("cards = " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidStateError):
        ClimbSettings(deck=str(path))


def year_position_with_a_play() -> dict[str, Any]:
    game = ClimbGame(3, 2)
    while game.snapshot()["trick"]["to_beat"] is None:
        game.apply(game.legal_moves()[0])
    return game.snapshot()


def test_s5_snapshot_with_an_impossible_to_beat_is_refused() -> None:
    snap = year_position_with_a_play()
    ClimbGame.from_snapshot(snap)  # as taken: fine
    wrong_rank = json.loads(json.dumps(snap))
    wrong_rank["trick"]["to_beat"]["rank"] = (snap["trick"]["to_beat"]["rank"] + 1) % 12
    wrong_maker = json.loads(json.dumps(snap))
    wrong_maker["trick"]["to_beat"]["player"] = (snap["trick"]["to_beat"]["player"] + 1) % 3
    for bad in (wrong_rank, wrong_maker):
        with pytest.raises(InvalidStateError, match="to_beat"):
            ClimbGame.from_snapshot(bad)


@pytest.mark.parametrize(("preset", "score"), [("year", 16), ("spin", 20), ("year", 2**31)])
def test_s10_snapshot_scores_past_the_end_are_refused(preset: str, score: int) -> None:
    snap = ClimbGame(3, 4, ClimbSettings(preset=preset)).snapshot()  # type: ignore[arg-type]
    snap["scores"] = [0, score, 0]
    with pytest.raises(InvalidStateError, match="scores"):
        ClimbGame.from_snapshot(snap)


def test_climb_record_must_state_every_setting() -> None:
    game = ClimbGame(3, 5)
    game.apply(game.legal_moves()[0])
    doc = json.loads(game.to_json())
    assert climb.from_json(json.dumps(doc)).snapshot() == game.snapshot()
    for settings in ({}, {k: v for k, v in doc["settings"].items() if k != "deck"}):
        bad = dict(doc, settings=settings)
        with pytest.raises(InvalidStateError, match="settings"):
            climb.from_json(json.dumps(bad))
    text = game.to_json().replace('"moves":', '"players": 3, "moves":', 1)
    with pytest.raises(InvalidStateError, match="duplicate"):
        climb.from_json(text)


def test_head_record_must_state_every_rule() -> None:
    game = HeadGame(3, 5)
    game.apply(game.legal_moves()[0])
    doc = json.loads(game.to_json())
    assert HeadGame.from_json(json.dumps(doc)).snapshot() == game.snapshot()
    for rules in ({}, {k: v for k, v in doc["rules"].items() if k != "poor_panda"}):
        bad = dict(doc, rules=rules)
        with pytest.raises(InvalidStateError, match="rules"):
            HeadGame.from_json(json.dumps(bad))


def test_h6_head_scores_near_2_to_the_32_are_refused() -> None:
    hands = [list(range(s * 7, s * 7 + 7)) for s in range(3)]
    pile = list(range(21, 63))
    with pytest.raises(RulesError, match="bust_threshold"):
        HeadGame.from_deal(hands, pile, rules=HeadRules(bust_threshold=2**32 - 1))
    high = HeadRules(bust_threshold=1_000_000)
    with pytest.raises(InvalidStateError, match="largest score"):
        HeadGame.from_deal(hands, pile, scores=[2**32 - 2, 0, 0], rules=high)
    # At the largest score the game plays on without wrapping.
    game = HeadGame.from_deal(hands, pile, scores=[1_000_000] * 3, rules=high)
    while not game.is_over:
        game.apply(game.legal_moves()[0])
    assert min(game.scores) >= 1_000_000
