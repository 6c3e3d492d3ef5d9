"""The Panda Head Python API: errors that explain, unchanged state on bad input, clone, JSON,
views, moves and masks. Rule behaviour itself is in test_head_rules.py and the differential tests.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

import panda_core
from head_support import card
from panda_core import (
    HeadGame,
    HeadRules,
    IllegalMoveError,
    InvalidStateError,
    PandaCoreError,
    RulesError,
    head,
)


def play_random(game: HeadGame, moves: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            return
        game.apply(rng.choice(game.legal_actions()))


def finished_game(seed: int = 3, players: int = 3) -> HeadGame:
    game = HeadGame(players, seed)
    play_random(game, 100_000, seed)
    assert game.is_over
    return game


# ---- rules and construction -----------------------------------------------------------------


def test_h7_rules_defaults_and_dict() -> None:
    rules = HeadRules()
    assert rules.to_dict() == {
        "last_pile_scoring": "pile_sum",
        "poor_panda": True,
        "lowest_only_when_cannot_follow": False,
        "bust_threshold": 21,
        "special_cards": True,
        "first_dealer": 0,
    }
    assert rules == HeadRules(**rules.to_dict())
    assert hash(rules) == hash(HeadRules())
    assert "pile_sum" in repr(rules)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"last_pile_scoring": "sum"}, "pile_sum"),
        ({"bust_threshold": 0}, "positive"),
        ({"bust_threshold": -5}, "positive"),
        ({"first_dealer": 7}, "first_dealer"),
    ],
)
def test_h7_invalid_rules_say_what_is_allowed(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        HeadRules(**kwargs)  # type: ignore[arg-type]


def test_h7_rules_are_keyword_only_and_typed() -> None:
    with pytest.raises(TypeError):
        HeadRules("pile_sum")  # type: ignore[misc]
    with pytest.raises(TypeError):
        HeadRules(poor_panda="yes")  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [0, 1, 6, -2])
def test_h2_1_player_count_refused(players: int) -> None:
    with pytest.raises(RulesError, match="2 to 5 players"):
        HeadGame(players, 0)


def test_h2_2_first_dealer_must_be_a_seat() -> None:
    with pytest.raises(RulesError, match="first_dealer"):
        HeadGame(3, 0, HeadRules(first_dealer=3))


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, "7", True, None])
def test_r2_seed_outside_u64_refused(seed: object) -> None:
    with pytest.raises(RulesError, match="seed"):
        HeadGame(4, seed)  # type: ignore[arg-type]


def test_r2_largest_seed_accepted() -> None:
    game = HeadGame(4, 2**64 - 1)
    assert game.snapshot()["rng_state"] != 2**64 - 1  # the deal drew from the generator


def valid_deal() -> dict[str, list[list[int]] | list[int]]:
    hands = [list(range(s * 7, s * 7 + 7)) for s in range(3)]
    return {"hands": hands, "draw_pile": list(range(21, 63))}


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["hands"][0].__setitem__(0, 30), "more than once"),
        (lambda d: d["draw_pile"].pop(), "missing"),
        (lambda d: d["hands"][1].append(d["draw_pile"].pop()), "must hold 7 cards"),
        (lambda d: d["draw_pile"].append(63), "not a card"),
        (lambda d: d["hands"][2].__setitem__(0, -1), "not a card"),
    ],
)
def test_from_deal_refuses_invalid_decks(mutate: object, message: str) -> None:
    deal = valid_deal()
    mutate(deal)  # type: ignore[operator]
    with pytest.raises(InvalidStateError, match=message):
        HeadGame.from_deal(deal["hands"], deal["draw_pile"])  # type: ignore[arg-type]


def test_from_deal_refuses_inconsistent_flags() -> None:
    deal = valid_deal()
    with pytest.raises(InvalidStateError, match="one entry per player"):
        HeadGame.from_deal(deal["hands"], deal["draw_pile"], scores=[0, 0])  # type: ignore[arg-type]
    with pytest.raises(InvalidStateError, match="above bust_threshold"):
        HeadGame.from_deal(deal["hands"], deal["draw_pile"], scores=[0, 22, 0])  # type: ignore[arg-type]
    with pytest.raises(InvalidStateError, match="dealer"):
        HeadGame.from_deal(deal["hands"], deal["draw_pile"], dealer=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidStateError, match="scores"):
        HeadGame.from_deal(deal["hands"], deal["draw_pile"], scores=[0, -1, 0])  # type: ignore[arg-type]


def test_from_deal_with_regular_deck_only() -> None:
    hands = [list(range(0, 7)), list(range(7, 14))]
    game = HeadGame.from_deal(hands, list(range(14, 55)), rules=HeadRules(special_cards=False))
    assert game.hand(0) == list(range(7))
    with pytest.raises(InvalidStateError, match="not a card of this deck"):
        HeadGame.from_deal(hands, list(range(14, 56)), rules=HeadRules(special_cards=False))


# ---- moves, masks, errors -------------------------------------------------------------------


def test_action_space_constant_and_notation() -> None:
    assert head.NUM_ACTIONS == panda_core._core.NUM_HEAD_ACTIONS == 24
    names = [head.action_notation(i) for i in range(head.NUM_ACTIONS)]
    assert names[:3] == ["1", "2", "3"]
    assert names[10:13] == ["11", "1+B", "2+B"]
    assert names[21:] == ["11+B", "BP", "B"]
    assert len(set(names)) == 24
    with pytest.raises(ValueError):
        head.action_notation(24)


def test_legal_moves_objects_and_mask_agree() -> None:
    game = HeadGame(4, 11)
    moves = game.legal_moves()
    mask = game.legal_action_mask()
    assert mask.dtype == np.bool_ and mask.shape == (head.NUM_ACTIONS,)
    assert [m.action_id for m in moves] == game.legal_actions() == list(np.flatnonzero(mask))
    hand = game.hand(game.current_player or 0)
    for m in moves:
        assert m.notation == head.action_notation(m.action_id)
        assert set(m.cards) <= set(hand)
        if m.kind == "panda":
            # H-1.4: the lowest copy of the value leaves the hand.
            assert m.cards == [min(c for c in hand if c < 55 and c // 5 + 1 == m.value)]
            assert m.effective_value == m.value
        if m.kind == "panda_bamboo":
            assert m.effective_value == (m.value or 0) + 2
        if m.kind == "big_panda":
            assert m.effective_value is None  # led: decided by a hidden card (H-4.1)
    assert str(moves[0]) == moves[0].notation
    assert repr(moves[0]).startswith("HeadMove(")


def test_illegal_move_names_move_reason_and_legal_moves_and_changes_nothing() -> None:
    hands = [[card(2), card(5), card(9), card(11), 55, 59, card(1)], list(range(41, 48))]
    pile = [c for c in range(63) if c not in hands[0] + hands[1]]
    game = HeadGame.from_deal(hands, pile, dealer=1)
    before = game.snapshot()
    with pytest.raises(IllegalMoveError) as err:
        game.apply("3")
    assert err.value.move == "3"
    assert err.value.reason == "seat 0 holds no Panda of value 3"
    assert err.value.legal == [m.notation for m in game.legal_moves()]
    assert "legal moves" in str(err.value)
    assert isinstance(err.value, ValueError) and isinstance(err.value, PandaCoreError)
    for bad in (24, -1, 10**30, "12", "BB", "7+"):
        with pytest.raises(IllegalMoveError):
            game.apply(bad)
    for wrong_type in (None, 1.0, [1], True):
        with pytest.raises(TypeError):
            game.apply(wrong_type)  # type: ignore[arg-type]
    assert game.snapshot() == before
    assert [e["type"] for e in game.history] == ["deal"]  # the opening deal, no move


def test_illegal_follow_explains_option_a_and_b() -> None:
    hands = [[card(8), *range(40, 46)], [card(v) for v in range(1, 8)]]
    pile = [c for c in range(63) if c not in hands[0] + hands[1]]
    game = HeadGame.from_deal(hands, pile, dealer=1)
    game.apply("8")
    with pytest.raises(IllegalMoveError, match="option A") as err:
        game.apply("3")
    assert err.value.legal == ["1"]


# ---- clone, history, results ----------------------------------------------------------------


def test_copy_and_deepcopy_are_clones() -> None:
    game = HeadGame(4, 21)
    play_random(game, 10)
    for other in (copy.copy(game), copy.deepcopy(game)):
        assert other.snapshot() == game.snapshot()
        play_random(other, 30, seed=1)
        assert other.snapshot() != game.snapshot()
    assert sum(e["type"] == "move" for e in game.history) == 10


def test_history_moves_and_hand_results() -> None:
    game = finished_game(seed=8, players=4)
    deal, first = game.history[:2]
    assert deal["type"] == "deal" and deal["round"] == 0
    assert first["type"] == "move" and first["player"] in range(4)
    assert first["move"] in [head.action_notation(a) for a in range(head.NUM_ACTIONS)]
    results = game.round_results
    assert [r["hand"] for r in results] == list(range(len(results)))
    assert results[-1]["scores"] == game.scores
    final = game.result()
    assert final["is_over"] and final["winner"] == game.winner
    assert final["hands_played"] == final["rounds_played"] == len(results)
    assert sum(not p for p in final["pooped"]) == 1
    assert not final["pooped"][final["winner"]]  # type: ignore[index]


# ---- JSON -----------------------------------------------------------------------------------


@pytest.mark.parametrize("moves", [0, 1, 40, 100_000])
def test_json_round_trip_is_exact(moves: int) -> None:
    game = HeadGame(3, 77, HeadRules(last_pile_scoring="own_card", bust_threshold=15))
    play_random(game, moves, seed=moves)
    text = game.to_json()
    again = HeadGame.from_json(text)
    assert again.snapshot() == game.snapshot()
    assert again.history == game.history
    assert again.rules == game.rules
    assert again.to_json() == text
    doc = json.loads(text)
    assert doc["format"] == "panda-core/head" and doc["start"] == {"seed": 77}


def test_json_round_trip_from_deal() -> None:
    deal = valid_deal()
    game = HeadGame.from_deal(
        deal["hands"],  # type: ignore[arg-type]
        deal["draw_pile"],  # type: ignore[arg-type]
        dealer=2,
        scores=[3, 4, 5],
        rng_state=99,
        hand_number=4,
    )
    play_random(game, 50)
    again = head.from_json(game.to_json())
    assert again.snapshot() == game.snapshot()
    assert json.loads(game.to_json())["start"]["deal"]["dealer"] == 2


def hostile_documents() -> list[str]:
    good = json.loads(finished_game(seed=4, players=2).to_json())
    docs = ["", "null", "[]", "{", '"x"', "1e999", "{}" * 100, "[" * 5000 + "]" * 5000]
    for key, value in [
        ("format", "chess"),
        ("version", 99),
        ("players", 9),
        ("players", -1),
        ("rules", {"bust_threshold": 0}),
        ("rules", {"no_such_rule": True}),
        ("start", {"seed": -1}),
        ("start", {"seed": 2**64}),
        ("start", {"deal": {"hands": [[1]], "draw_pile": []}}),
        ("actions", [99]),
        ("actions", [-1]),
        ("actions", good["actions"] + [0]),
        ("actions", list(reversed(good["actions"]))),
        ("actions", "0,1,2"),
        ("extra", 1),
    ]:
        docs.append(json.dumps({**good, key: value}))
    return docs


@pytest.mark.parametrize("text", hostile_documents())
def test_json_hostile_documents_refused_clearly(text: str) -> None:
    with pytest.raises(InvalidStateError) as err:
        HeadGame.from_json(text)
    assert str(err.value)


# ---- views ----------------------------------------------------------------------------------


def test_view_shows_own_hand_and_public_information_only() -> None:
    game = HeadGame(4, 9)
    play_random(game, 6)
    for seat in range(4):
        view = game.view(seat)
        assert view["player"] == seat
        assert view["hand"] == game.hand(seat)
        assert "hands" not in view and "draw_pile" not in view and "rng_state" not in view
        assert view["draw_pile_size"] == len(game.draw_pile)
        assert view["hand_sizes"] == [len(game.hand(s)) for s in range(4)]
        others = {c for s in range(4) if s != seat for c in game.hand(s)}
        assert not others & set(view["hand"])
    with pytest.raises(ValueError):
        game.view(4)


def test_view_is_unchanged_by_hidden_information() -> None:
    """Two deals differing only in seat 1's hand and the draw pile look the same to seat 0."""
    hands = [list(range(0, 7)), list(range(7, 14))]
    pile = list(range(14, 63))
    swapped = [list(range(0, 7)), list(range(14, 21))]
    pile2 = list(range(7, 14)) + list(range(21, 63))
    a = HeadGame.from_deal(hands, pile, dealer=1)
    b = HeadGame.from_deal(swapped, pile2, dealer=1)
    assert a.view(0) == b.view(0)
    assert a.view(1) != b.view(1)


def test_pickle_round_trip() -> None:
    import pickle

    rules = HeadRules(poor_panda=False, bust_threshold=30, first_dealer=2)
    game = HeadGame(3, 123, rules)
    play_random(game, 25)
    again = pickle.loads(pickle.dumps(game))
    assert again.snapshot() == game.snapshot() and again.history == game.history
    assert pickle.loads(pickle.dumps(rules)) == rules


def test_observation_shape_and_hidden_information() -> None:
    hands = [list(range(0, 7)), list(range(7, 14)), list(range(14, 21))]
    swapped = [list(range(0, 7)), list(range(30, 37)), list(range(14, 21))]
    pile = list(range(21, 63))
    pile2 = [c for c in range(7, 63) if c not in swapped[1] and c not in range(14, 21)]
    a = HeadGame.from_deal(hands, pile, dealer=2)
    b = HeadGame.from_deal(swapped, pile2, dealer=2)
    obs = a.observation(0)
    assert obs.dtype == np.float32 and obs.shape == (head.OBSERVATION_SIZE,)
    assert (a.observation(0) == b.observation(0)).all()
    assert (a.observation(2) == b.observation(2)).all()
    assert not (a.observation(1) == b.observation(1)).all()
    a.apply(a.legal_actions()[0])
    assert not (a.observation(0) == obs).all()  # the play is public
