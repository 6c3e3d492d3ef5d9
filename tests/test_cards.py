"""``game.cards()``: the deck as a game plays it, computed by the engine (docs/game_api.md,
"Cards"). Rule IDs: H-1.3 and H-2.3 (Panda Head ids and the deck without special cards), S-1.3
(climbing ids), S-2.1/S-2.2 (white and blue faces), S-2.3 (element cards), S-2.4 (deck files),
S-3.1 (suits in play)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

import panda_core
from panda_core import ClimbMove, ClimbSettings
from panda_core._types import CardInfo
from panda_core.head import action_notation

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_DECK = ROOT / "python" / "panda_core" / "data" / "decks" / "reconstructed.toml"
SUITS = ["fire", "earth", "wood", "water", "metal"]
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
WINDS = ["south", "centre", "east", "north", "west"]


def cards_of(name: str, players: int = 4, seed: int = 3, **rules: Any) -> list[CardInfo]:
    return panda_core.make(name, players=players, seed=seed, **rules).cards()


@pytest.mark.parametrize("name", ["head", "year", "spin"])
def test_every_card_once_in_id_order_with_every_key(name: str) -> None:
    cards = cards_of(name)
    expected = 63 if name == "head" else 70
    assert [c["id"] for c in cards] == list(range(expected))
    for card in cards:
        assert set(card) == set(CardInfo.__annotations__), card
        assert card["token"] and card["label"]
    # A fresh list each call: a caller may change it freely.
    cards[0]["token"] = "changed"
    assert cards_of(name)[0]["token"] != "changed"


def test_h1_3_head_cards() -> None:
    cards = cards_of("head")
    for card in cards[:55]:
        value = card["id"] // 5 + 1
        assert card["kind"] == "panda"
        assert card["value"] == value
        assert card["token"] == str(value)
        assert card["label"] == f"Panda {value}"
    assert {(c["kind"], c["token"], c["label"]) for c in cards[55:59]} == {
        ("big_panda", "BP", "Big Panda")
    }
    assert {(c["kind"], c["token"], c["label"]) for c in cards[59:]} == {("bamboo", "B", "Bamboo")}
    for card in cards:
        assert card["suit"] is None and card["faces"] is None and card["in_play"] is True
        if card["kind"] != "panda":
            assert card["value"] is None


def test_head_tokens_are_the_notation_of_the_card_played_alone() -> None:
    notations = {action_notation(a) for a in range(panda_core.head.NUM_ACTIONS)}
    for card in cards_of("head"):
        assert card["token"] in notations
        if card["kind"] == "panda":
            assert isinstance(card["value"], int)
            assert action_notation(card["value"] - 1) == card["token"]


def test_h2_3_without_special_cards_the_deck_stops_at_54() -> None:
    cards = cards_of("head", special_cards=False)
    assert [c["id"] for c in cards] == list(range(55))
    assert {c["kind"] for c in cards} == {"panda"}


@pytest.mark.parametrize("name", ["year", "spin"])
def test_s1_3_climbing_cards_and_their_tokens(name: str) -> None:
    for card in cards_of(name):
        i = card["id"]
        faces = card["faces"]
        assert faces is not None
        if i < 65:
            suit, rank = SUITS[i // 13], RANKS[i % 13]
            assert (card["kind"], card["suit"], card["value"]) == ("animal", suit, rank)
            assert card["label"] == f"{suit} {rank}"
            assert faces["white"] == rank  # S-2.1
            assert ClimbMove.parse(f"single {card['token']}").cards == [i]
        else:
            suit = SUITS[i - 65]
            wind = WINDS[i - 65]
            assert (card["kind"], card["suit"]) == ("element", suit)
            # S-12: year's element cards show their number, spin's wind cards their wind
            assert card["label"] == (f"{suit} element" if name == "year" else f"{wind} wind")
            assert card["token"].endswith("!")
            assert isinstance(card["value"], int)
            assert ClimbMove.parse(f"element {card['token']}").cards == [i]
            assert faces == {"element": str(card["value"]) if name == "year" else wind}


def blue_table() -> dict[int, str]:
    """The full table of S-2.2 in docs/rules/year.md: card id -> blue face."""
    text = (ROOT / "docs" / "rules" / "year.md").read_text(encoding="utf-8")
    header = text.index("| white | Fire (0–12)")
    table: dict[int, str] = {}
    # The table sits inside a list item: its lines are indented.
    for line in (raw.strip() for raw in text[header:].splitlines()[2:]):
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rank = RANKS.index(cells[0])
        for suit, face in enumerate(cells[1:]):
            table[suit * 13 + rank] = face
    return table


def test_s2_2_blue_faces_of_the_shipped_deck_are_the_rules_table() -> None:
    table = blue_table()
    assert len(table) == 65
    cards = cards_of("year")
    for card_id, face in table.items():
        faces = cards[card_id]["faces"]
        assert faces is not None
        assert faces["blue"] == face, (card_id, cards[card_id]["label"])
    # The seed cards S-2.2 names.
    assert cards[0]["faces"] == {"white": "3", "blue": "10 + wild"}
    assert cards[29]["faces"] == {"white": "6", "blue": "A + bamboo"}


def test_s2_3_element_cards_show_their_number_and_wind_cards_their_wind() -> None:
    deck = tomllib.loads(SHIPPED_DECK.read_text(encoding="utf-8"))
    year, spin = cards_of("year"), cards_of("spin")
    for element in deck["elements"]:
        card, wind = year[element["id"]], spin[element["id"]]
        assert card["value"] == wind["value"] == element["number"]
        assert card["faces"] == {"element": str(element["number"])}
        assert wind["faces"] == {"element": element["wind"]}
        assert card["condition"] == wind["condition"] == element["condition"]
    assert year[65]["faces"] == {"element": "1"} and year[65]["label"] == "fire element"
    assert spin[65]["faces"] == {"element": "south"} and spin[65]["label"] == "south wind"


@pytest.mark.parametrize(("players", "suits"), [(2, 3), (3, 3), (4, 4), (5, 5)])
def test_s3_1_in_play_marks_the_suits_dealt(players: int, suits: int) -> None:
    game = panda_core.make("year", players=players, seed=11)
    cards = game.cards()
    in_play = {c["id"] for c in cards if c["in_play"]}
    assert len(in_play) == 14 * suits
    assert len({c["suit"] for c in cards if c["in_play"]}) == suits
    snap = game.snapshot()
    dealt = {card for hand in snap["hands"] for card in hand} | set(snap["draw_pile"])
    assert dealt <= in_play
    assert len(dealt) == len(in_play)


def test_s2_4_a_custom_deck_describes_itself(tmp_path: Path) -> None:
    deck = tomllib.loads(SHIPPED_DECK.read_text(encoding="utf-8"))
    card = next(c for c in deck["cards"] if c["id"] == 2)  # fire 5
    card["blue"] = {"units": ["5", "wild", "wild"], "symbols": ["fire", "fire", "panda", "panda"]}
    water = next(c for c in deck["cards"] if c["id"] == 40)  # water 4
    water["blue"] = {"units": ["8"], "symbols": ["bamboo"]}
    element = next(e for e in deck["elements"] if e["id"] == 67)
    element["wind"] = "sirocco"
    element["number"] = 30
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(deck), encoding="utf-8")
    game = panda_core.make("year", players=3, seed=1, rules=ClimbSettings(deck=path))
    cards = game.cards()
    assert cards[2]["faces"] == {"white": "5", "blue": "5 + wild + wild + panda + panda"}
    assert cards[40]["faces"] == {"white": "4", "blue": "8 + bamboo"}
    assert cards[67]["value"] == 30
    assert cards[67]["faces"] == {"element": "30"}
    spin = panda_core.make("spin", players=3, seed=1, rules=ClimbSettings(deck=path)).cards()
    assert (spin[67]["faces"], spin[67]["label"]) == ({"element": "sirocco"}, "sirocco wind")
    # A game rebuilt from its record (which embeds the deck) describes the same deck.
    assert type(game).from_json(game.to_json()).cards() == cards


def test_faces_use_only_rank_names_and_symbols() -> None:
    words = set(RANKS) | {"+", "wild", "panda", "bamboo"}
    for card in cards_of("year"):
        faces = card["faces"]
        assert faces is not None
        if card["kind"] == "animal":
            assert set(faces) == {"white", "blue"}
            assert set(faces["blue"].split()) <= words, faces
            assert re.fullmatch(r"[^+]+( \+ [a-z]+)*", faces["blue"]), faces
