"""The climbing games' Python API: settings, moves and notation, errors that leave the state
unchanged, clone, JSON and pickle round trips, hostile records, per-player views (S-11)."""

from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

from panda_core import (
    ClimbGame,
    ClimbMove,
    ClimbSettings,
    IllegalMoveError,
    InvalidStateError,
    RulesError,
    climb,
)


def play_random(game: ClimbGame, moves: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            return
        legal = game.legal_moves()
        game.apply(legal[rng.randrange(len(legal))])


def test_s12_settings_defaults_and_validation() -> None:
    s = ClimbSettings()
    assert (s.preset, s.panda_mood, s.first_player, s.deck) == ("year", "hungry", 0, None)
    assert s == ClimbSettings(preset="year") and s != ClimbSettings(preset="spin")
    assert s.deck_name == "reconstructed"
    with pytest.raises(RulesError, match="preset"):
        ClimbSettings(preset="autumn")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="panda_mood"):
        ClimbSettings(panda_mood="sleepy")  # type: ignore[arg-type]
    with pytest.raises(InvalidStateError, match="deck"):
        ClimbSettings(deck="/no/such/deck.toml")


@pytest.mark.parametrize("players", [0, 1, 6])
def test_s12_player_count_refused(players: int) -> None:
    with pytest.raises(RulesError, match="2 to 5"):
        ClimbGame(players, 0)


@pytest.mark.parametrize("seed", [-1, 2**64, "1", None])
def test_r2_seed_refused(seed: object) -> None:
    with pytest.raises(RulesError, match="seed"):
        ClimbGame(3, seed)  # type: ignore[arg-type]


def test_s7_6_spin_validates_and_ignores_mood() -> None:
    a = ClimbGame(3, 5, ClimbSettings(preset="spin", panda_mood="flip"))
    b = ClimbGame(3, 5, ClimbSettings(preset="spin", panda_mood="hungry"))
    play_random(a, 200, seed=2)
    play_random(b, 200, seed=2)
    assert a.history == b.history and a.scores == b.scores


def test_moves_notation_json_round_trip() -> None:
    game = ClimbGame(4, 11, ClimbSettings(preset="spin"))
    seen = 0
    for _ in range(150):
        if game.is_over:
            break
        for move in game.legal_moves():
            assert ClimbMove.parse(move.notation) == move == climb.parse_move(str(move))
            assert ClimbMove.from_json(move.to_json()) == move
            assert hash(ClimbMove.parse(move.notation)) == hash(move)
            seen += 1
        play_random(game, 1, seed=seen)
    assert seen > 100
    for bad in ["", "play Fi3", "single Fi3 as", "single Zz3", "set Fi3+Fi3"]:
        with pytest.raises(ValueError):
            ClimbMove.parse(bad)


def test_illegal_move_is_refused_and_changes_nothing() -> None:
    game = ClimbGame(3, 4)
    before, dealt = game.snapshot(), game.history  # the first round's start and deal
    legal = [m.notation for m in game.legal_moves()]
    with pytest.raises(IllegalMoveError) as err:
        game.apply("pass")  # the leader may not pass (S-6.1)
    assert err.value.legal == legal and err.value.move == "pass"
    with pytest.raises(IllegalMoveError):
        game.apply("single Fi3 flip Ea4")
    with pytest.raises(IllegalMoveError):
        game.apply({"kind": "single", "cards": [99], "named": [], "flip": [], "steal": []})
    with pytest.raises(TypeError):
        game.apply(3.0)  # type: ignore[arg-type]
    assert game.snapshot() == before and game.history == dealt


def test_the_winner_has_the_highest_score() -> None:
    game = ClimbGame(2, 8)
    play_random(game, 100_000)
    assert game.is_over and game.round == len(game.round_results)
    assert game.winner is not None and game.scores[game.winner] == max(game.scores)


def test_apply_by_abstract_action_plays_the_move_it_stands_for() -> None:
    game = ClimbGame(3, 6, ClimbSettings(preset="spin"))
    play_random(game, 20)
    for action in game.legal_actions():
        twin = game.clone()
        move = game.move_for_action(action)
        assert twin.apply(action)[0]["move"] == move.notation
        assert game.action_index(move) == action


@pytest.mark.parametrize(
    ("preset", "mood"), [("year", "hungry"), ("year", "flip"), ("spin", "hungry")]
)
def test_clone_json_and_pickle_round_trip(preset: str, mood: str) -> None:
    game = ClimbGame(4, 21, ClimbSettings(preset=preset, panda_mood=mood))  # type: ignore[arg-type]
    play_random(game, 120, seed=5)
    for other in (game.clone(), copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert other.snapshot() == game.snapshot()
    text = game.to_json()
    again = climb.from_json(text)
    assert again.snapshot() == game.snapshot() and again.history == game.history
    assert again.to_json() == text
    twin = game.clone()
    play_random(twin, 10, seed=9)
    assert twin.snapshot() != game.snapshot()


def hostile_documents() -> list[str]:
    game = ClimbGame(3, 2)
    play_random(game, 40)
    good = json.loads(game.to_json())
    docs = ["", "[]", "{", "null", "[" * 3000 + "]" * 3000]
    for key in list(good):
        docs.append(json.dumps({k: v for k, v in good.items() if k != key}))
        docs.append(json.dumps({**good, key: [1, {"x": None}]}))
    docs.append(json.dumps({**good, "extra": 1}))
    return docs


@pytest.mark.parametrize("text", hostile_documents())
def test_hostile_records_refused_clearly(text: str) -> None:
    with pytest.raises(InvalidStateError) as err:
        ClimbGame.from_json(text)
    assert str(err.value)


def test_from_snapshot_round_trip_and_refusal() -> None:
    game = ClimbGame(4, 3, ClimbSettings(preset="year", panda_mood="flip"))
    play_random(game, 30)
    snap = game.snapshot()
    rebuilt = ClimbGame.from_snapshot(snap)
    assert rebuilt.snapshot() == snap
    assert [m.notation for m in rebuilt.legal_moves()] == [m.notation for m in game.legal_moves()]
    broken = copy.deepcopy(snap)
    broken["hands"][0].append(broken["draw_pile"][0])  # a card in two places
    with pytest.raises(InvalidStateError):
        ClimbGame.from_snapshot(broken)
    with pytest.raises(InvalidStateError):
        ClimbGame.from_snapshot({**snap, "surprise": 1})


def test_s11_1_s11_2_view_hides_other_hands_and_the_draw_pile() -> None:
    game = ClimbGame(3, 12, ClimbSettings(preset="spin"))
    play_random(game, 25)
    snap = game.snapshot()
    for seat in range(3):
        view = game.view(seat)
        assert view["hand"] == snap["hands"][seat]
        assert not {"hands", "draw_pile", "rng_state"} & set(view)
        assert view["draw_pile_size"] == len(snap["draw_pile"])
        assert view["hand_sizes"] == [len(h) for h in snap["hands"]]
        for other in range(3):
            if other != seat:
                hidden = set(snap["hands"][other]) - set(snap["blue"])
                assert not hidden & set(view["hand"])
        assert "seed" not in view  # the seed determines every deal: it is hidden information
    with pytest.raises(ValueError):
        game.view(3)
