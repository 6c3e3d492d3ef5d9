"""Deck schema rules 6 (wild units per window) and strict JSON, on both implementations: the Rust
loader and the oracle's refuse and accept the same decks (docs/deck_schema.md)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from panda_core import ClimbSettings, InvalidStateError
from panda_core.oracle import climb_deck

SHIPPED = Path(__file__).parent.parent / "python/panda_core/data/decks/reconstructed.toml"
WILD_WILD = {"units": ["wild", "wild"], "symbols": ["fire", "fire"]}


def shipped() -> dict[str, Any]:
    return tomllib.loads(SHIPPED.read_text())


def both_load(path: Path) -> tuple[bool, bool]:
    """Whether the engine and the oracle accept the deck file."""
    try:
        ClimbSettings(deck=str(path))
        engine = True
    except InvalidStateError:
        engine = False
    try:
        climb_deck.load_deck(path)
        oracle = True
    except ValueError:
        oracle = False
    return engine, oracle


def write(tmp_path: Path, doc: dict[str, Any]) -> Path:
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(doc))
    return path


def test_shipped_deck_passes_rule_6_in_both() -> None:
    assert both_load(SHIPPED) == (True, True)


@pytest.mark.parametrize("wild_cards", [0, 1, 2, 5, 13, 65])
def test_rule_6_both_refuse_the_same_wild_decks(tmp_path: Path, wild_cards: int) -> None:
    """Blue faces of two wild units on the first ``wild_cards`` cards: the shipped deck has 5 wild
    units per window already, so two such cards (5 + 4 = 9 > 8) are the first refused."""
    doc = shipped()
    for card in doc["cards"][:wild_cards]:
        card["blue"] = dict(WILD_WILD)
    engine, oracle = both_load(write(tmp_path, doc))
    assert engine == oracle
    assert engine == (wild_cards < 2)


def test_rule_6_message_names_the_card_and_window(tmp_path: Path) -> None:
    doc = shipped()
    for card in doc["cards"]:
        card["blue"] = dict(WILD_WILD)
    with pytest.raises(ValueError, match=r"blue\.units.*ranks 3 to 7"):
        climb_deck.load_deck(write(tmp_path, doc))


@pytest.mark.parametrize("where", ["top", "card"])
def test_json_deck_with_a_duplicate_key_is_refused_by_both(tmp_path: Path, where: str) -> None:
    text = json.dumps(shipped())
    if where == "top":
        text = text.replace('"name": ', '"name": "twice", "name": ', 1)
    else:
        text = text.replace('"units": ', '"units": ["3"], "units": ', 1)
    path = tmp_path / "deck.json"
    path.write_text(text)
    assert both_load(path) == (False, False)
