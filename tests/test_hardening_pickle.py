"""Issue 8, item 11: games, moves, rules and settings pickle and copy (docs/errors.md, "Pickling").

The round trip is exact (equal snapshot, history, notation, settings) with every pickle protocol,
through ``copy.copy``/``copy.deepcopy``, and into a ``multiprocessing`` worker (spawn context: a
fresh interpreter, as on macOS and Windows). A game pickled mid-game continues identically.
"""

from __future__ import annotations

import copy
import json
import multiprocessing
import pickle
import shutil
from pathlib import Path
from typing import Any

import pytest

from panda_core import (
    ClimbGame,
    ClimbMove,
    ClimbSettings,
    HeadGame,
    HeadMove,
    HeadRules,
    InvalidStateError,
)

PROTOCOLS = list(range(pickle.HIGHEST_PROTOCOL + 1))
DECK = Path(__file__).parents[1] / "python" / "panda_core" / "data" / "decks" / "reconstructed.toml"


def round_trip(obj: Any, protocol: int) -> Any:
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


def copies(obj: Any) -> list[Any]:
    """`obj` through every protocol and both copy functions."""
    return [round_trip(obj, p) for p in PROTOCOLS] + [copy.copy(obj), copy.deepcopy(obj)]


def head_midgame(moves: int = 25, seed: int = 5) -> HeadGame:
    g = HeadGame(4, seed, HeadRules(bust_threshold=30, poor_panda=False))
    for k in range(moves):
        ids = g.legal_actions()
        g.apply(ids[k % len(ids)])
    return g


def climb_midgame(settings: ClimbSettings | None = None, moves: int = 25) -> ClimbGame:
    g = ClimbGame(4, 5, settings or ClimbSettings(preset="spin", panda_mood="hungry"))
    for k in range(moves):
        legal = g.legal_moves()
        g.apply(legal[k % len(legal)])
    return g


def play_out_head(g: HeadGame) -> list[Any]:
    trace = []
    while not g.is_over:
        ids = g.legal_actions()
        g.apply(ids[len(trace) % len(ids)])
        trace.append(g.snapshot())
    return trace


def play_out_climb(g: ClimbGame) -> list[Any]:
    trace = []
    while not g.is_over:
        legal = g.legal_moves()
        g.apply(legal[len(trace) % len(legal)])
        trace.append(g.snapshot())
    return trace


def test_rules_and_settings() -> None:
    rules = HeadRules(last_pile_scoring="pile_sum", bust_threshold=17, first_dealer=3)
    for back in copies(rules):
        assert back == rules and repr(back) == repr(rules)
    for settings in (
        ClimbSettings(),
        ClimbSettings(preset="spin", first_player=2),
        ClimbSettings(preset="year", panda_mood="flip", deck=str(DECK)),
    ):
        for back in copies(settings):
            assert back == settings and repr(back) == repr(settings)
            assert back.deck == settings.deck and back.deck_name == settings.deck_name


def test_settings_carry_their_deck_not_just_the_path(tmp_path: Path) -> None:
    """Unpickled where the deck file is gone (another machine, a temp dir), settings still load
    the same deck."""
    path = tmp_path / "mine.toml"
    text = DECK.read_text(encoding="utf-8").replace('name = "reconstructed"', 'name = "mine"', 1)
    path.write_text(text, encoding="utf-8")
    settings = ClimbSettings(preset="year", deck=path)
    assert settings.deck_name == "mine"
    blob = pickle.dumps(settings)
    path.unlink()
    back = pickle.loads(blob)
    assert back == settings and back.deck_name == "mine" and back.deck == str(path)
    assert ClimbGame(3, 1, back).snapshot() == ClimbGame(3, 1, settings).snapshot()


def test_restore_checks_its_fields() -> None:
    with pytest.raises(InvalidStateError):
        HeadMove._restore(24, [], None)  # type: ignore[attr-defined]
    with pytest.raises(InvalidStateError):
        HeadMove._restore(0, [63], None)  # type: ignore[attr-defined]
    with pytest.raises(InvalidStateError):
        ClimbSettings._restore("year", "hungry", 0, "x.json", "{}")  # type: ignore[attr-defined]


def test_moves() -> None:
    g = head_midgame(7)
    for move in g.legal_moves():
        for back in copies(move):
            assert back == move and hash(back) == hash(move)
            assert (back.action_id, back.cards, back.effective_value, back.kind) == (
                move.action_id,
                move.cards,
                move.effective_value,
                move.kind,
            )
    c = climb_midgame(moves=3)
    for move in [*c.legal_moves(), ClimbMove.parse("single Fi3 steal 1+2")]:
        for back in copies(move):
            assert back == move and back.notation == move.notation
            assert back.to_json() == move.to_json()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_head_game_mid_game_continues_identically(protocol: int) -> None:
    g = head_midgame()
    back = round_trip(g, protocol)
    assert back.snapshot() == g.snapshot() and back.history == g.history
    assert back.rules == g.rules and back.to_json() == g.to_json()
    assert play_out_head(back) == play_out_head(g)
    assert back.result() == g.result()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_climb_game_mid_game_continues_identically(protocol: int) -> None:
    g = climb_midgame()
    back = round_trip(g, protocol)
    assert back.snapshot() == g.snapshot() and back.history == g.history
    assert [m.notation for m in back.legal_moves()] == [m.notation for m in g.legal_moves()]
    assert play_out_climb(back) == play_out_climb(g)


@pytest.mark.slow
def test_climb_game_with_a_custom_deck_and_from_a_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "copy.toml"
    shutil.copy(DECK, path)
    g = climb_midgame(ClimbSettings(preset="year", panda_mood="flip", deck=path), moves=10)
    restarted = ClimbGame.from_snapshot(g.snapshot(), deck=path)
    for game in (g, restarted):
        for back in copies(game):
            assert back.snapshot() == game.snapshot()
            assert play_out_climb(back) == play_out_climb(game.clone())


def test_copies_are_independent() -> None:
    g = head_midgame(3)
    for back in (copy.copy(g), copy.deepcopy(g), round_trip(g, 5)):
        back.apply(back.legal_actions()[0])
        assert back.snapshot() != g.snapshot()
    assert copy.deepcopy([g, g])[0] is not g


def test_head_samples_without_a_record_say_so() -> None:
    sample = head_midgame().determinize(0, 1)
    with pytest.raises(InvalidStateError, match="record"):
        pickle.dumps(sample)
    assert copy.deepcopy(sample).snapshot() == sample.snapshot()


def _worker(blob: bytes) -> bytes:
    """In a fresh interpreter: unpickle, play on, send back."""
    head, climb, move, settings = pickle.loads(blob)
    head.apply(head.legal_actions()[0])
    climb.apply(climb.legal_moves()[0])
    return pickle.dumps((head, climb, move, settings, head.snapshot(), climb.snapshot()))


def test_through_a_spawned_worker_process() -> None:
    head, climb = head_midgame(), climb_midgame()
    move = climb.legal_moves()[0]
    settings = ClimbSettings(preset="spin", first_player=1)
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        blob = pool.apply(_worker, (pickle.dumps((head, climb, move, settings)),))
    h2, c2, m2, s2, hsnap, csnap = pickle.loads(blob)
    head.apply(head.legal_actions()[0])
    climb.apply(climb.legal_moves()[0])
    assert hsnap == head.snapshot() == h2.snapshot()
    assert csnap == climb.snapshot() == c2.snapshot()
    assert m2 == move and s2 == settings
    assert json.loads(h2.to_json()) == json.loads(head.to_json())
