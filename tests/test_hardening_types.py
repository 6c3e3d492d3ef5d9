"""Issue 8, item 8: argument types (docs/errors.md, "Argument types").

numpy integers are accepted wherever ints are; bools are refused where a number is meant; floats,
strings and NaN are refused as actions (a ``TypeError``, never a truncated or parsed move);
``pathlib.Path`` works for decks.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from panda_core import (
    ClimbGame,
    ClimbSettings,
    HeadGame,
    HeadRules,
    IllegalMoveError,
    PandaCoreError,
)
from panda_core._core import climb_classify
from panda_core.bots import play_game
from panda_core.rl import PandaAECEnv, PandaEnv

DECK = Path(__file__).parents[1] / "python" / "panda_core" / "data" / "decks" / "reconstructed.toml"

NUMPY_INTS = [np.int64, np.int32, np.uint8, np.int8, np.uint64]


@pytest.mark.parametrize("kind", NUMPY_INTS)
def test_numpy_integers_are_action_ids(kind: Callable[[int], Any]) -> None:
    """`HeadGame.apply(np.int64(3))` was a TypeError."""
    g, ref = HeadGame(4, 1), HeadGame(4, 1)
    action = g.legal_actions()[0]
    g.apply(kind(action))
    ref.apply(action)
    assert g.snapshot() == ref.snapshot()
    c, cref = ClimbGame(4, 1), ClimbGame(4, 1)
    top = np.iinfo(kind).max  # type: ignore[type-var]
    abstract = max(a for a in np.flatnonzero(c.legal_action_mask()).tolist() if a <= top)
    c.apply(kind(abstract))
    cref.apply(abstract)
    assert c.snapshot() == cref.snapshot()


def test_numpy_integers_everywhere() -> None:
    i = np.int64
    g = HeadGame(i(4), i(7), HeadRules(bust_threshold=i(30), first_dealer=i(2)))
    assert g.players == 4 and g.rules.bust_threshold == 30 and g.dealer == 2
    assert g.hand(i(1)) == g.hand(1) and g.view(i(2)) == g.view(2)
    np.testing.assert_array_equal(g.observation(i(3)), g.observation(3))
    assert g.bot_move("random", i(5)).action_id == g.bot_move("random", 5).action_id
    assert g.determinize(i(0), i(9)).snapshot() == g.determinize(0, 9).snapshot()
    deal = HeadGame(4, 7)
    hands = [[i(c) for c in deal.hand(s)] for s in range(4)]
    again = HeadGame.from_deal(hands, [i(c) for c in deal.draw_pile], scores=[i(0)] * 4)
    assert again.hand(0) == deal.hand(0)
    c = ClimbGame(i(3), i(2), ClimbSettings(first_player=i(1)))
    assert c.players == 3 and c.view(i(1)) == c.view(1)
    assert c.determinize(i(1), i(4)).snapshot() == c.determinize(1, 4).snapshot()
    combo = climb_classify([i(0), i(13)], ["white", "white"], [])
    assert combo == climb_classify([0, 13], ["white", "white"], [])
    # numpy integers inside move dicts and snapshots are plain ints too
    mv = c.legal_moves()[-1].to_json()
    with_numpy = {**mv, "cards": [i(x) for x in mv["cards"]]}
    assert c.move_info(with_numpy) == c.move_info(mv)  # type: ignore[arg-type]
    snap = c.snapshot()
    snap["scores"] = [i(s) for s in snap["scores"]]
    assert ClimbGame.from_snapshot(snap).snapshot() == c.snapshot()


BOOL_CALLS: list[tuple[str, Callable[[bool], object]]] = [
    ("HeadGame(players)", lambda b: HeadGame(b, 1)),
    ("HeadGame(seed)", lambda b: HeadGame(4, b)),
    ("HeadGame.apply", lambda b: HeadGame(4, 1).apply(b)),
    ("hand", lambda b: HeadGame(4, 1).hand(b)),
    ("view", lambda b: HeadGame(4, 1).view(b)),
    ("observation", lambda b: HeadGame(4, 1).observation(b)),
    ("bust_threshold", lambda b: HeadRules(bust_threshold=b)),
    ("first_dealer", lambda b: HeadRules(first_dealer=b)),
    ("from_deal(dealer)", lambda b: HeadGame.from_deal([[]] * 2, [], dealer=b)),
    ("from_deal(card)", lambda b: HeadGame.from_deal([[b]] * 2, [])),
    ("ClimbGame(players)", lambda b: ClimbGame(b, 1)),
    ("climb apply", lambda b: ClimbGame(4, 1).apply(b)),
    ("move_for_action", lambda b: ClimbGame(4, 1).move_for_action(b)),
    ("climb view", lambda b: ClimbGame(4, 1).view(b)),
    ("first_player", lambda b: ClimbSettings(first_player=b)),
    ("climb_classify", lambda b: climb_classify([b], ["white"], [])),
]


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
@pytest.mark.parametrize("call", [c for _, c in BOOL_CALLS], ids=[n for n, _ in BOOL_CALLS])
def test_bools_are_refused_where_a_number_is_meant(
    call: Callable[[object], object], value: object
) -> None:
    """`apply(False)` played action 0, `bust_threshold=True` was 1, seat `True` was 1."""
    with pytest.raises((TypeError, PandaCoreError)) as info:
        call(value)
    if isinstance(value, bool):
        assert isinstance(info.value, TypeError) or "seed" in str(info.value)


NOT_ACTIONS = [0.0, 3.0, 0.7, float("nan"), float("inf"), "3", b"3", None, [3], np.float64(3.0)]


@pytest.mark.parametrize("action", NOT_ACTIONS, ids=repr)
def test_non_integers_are_not_actions(action: object) -> None:
    """NaN was reported as -9223372036854775808; floats were truncated elsewhere."""
    c = ClimbGame(4, 1)
    before = c.snapshot()
    # A str is a notation for `apply`: only `move_for_action` takes nothing but an action id.
    for call in (c.move_for_action,) if isinstance(action, str) else (c.apply, c.move_for_action):
        with pytest.raises(TypeError):
            call(action)  # type: ignore[arg-type]
    assert c.snapshot() == before
    g = HeadGame(4, 1)
    if not isinstance(action, str):  # a str is a notation for HeadGame.apply
        with pytest.raises(TypeError):
            g.apply(action)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", ["3", 0.7, 3.0, float("nan"), True, np.float32(1.0), b"1"])
@pytest.mark.parametrize("game", ["head", "year"])
def test_pettingzoo_refuses_non_integer_actions(action: object, game: str) -> None:
    """PettingZoo `step("3")` and `step(0.7)` were played as actions 3 and 0."""
    env = PandaAECEnv(game, players=2)
    env.reset(seed=1)
    agent = env.agent_selection
    before = env.observe(agent)["observation"].copy()
    with pytest.raises(TypeError):
        env.step(action)
    assert env.agent_selection == agent
    np.testing.assert_array_equal(env.observe(agent)["observation"], before)
    legal = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    env.step(np.int64(legal))  # numpy integers are actions
    env.step(np.array(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])))


@pytest.mark.parametrize("action", ["3", 0.7, 3.0, True, np.bool_(False)])
def test_gymnasium_refuses_non_integer_actions(action: object) -> None:
    env = PandaEnv("head", players=2, illegal_action="raise")
    env.reset(seed=1)
    with pytest.raises(TypeError):
        env.step(action)  # type: ignore[arg-type]


def test_rl_constructors_check_types() -> None:
    with pytest.raises(TypeError):
        PandaEnv("head", players=2, seat=True)
    with pytest.raises(TypeError):
        PandaEnv("head", players=2, seat=0.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PandaEnv("head", players=2, illegal_reward="-1")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        PandaAECEnv("head", players=True)
    env = PandaAECEnv("head", players=2)
    with pytest.raises(PandaCoreError):
        env.reset(seed=-1)  # numpy raised its own ValueError
    with pytest.raises(PandaCoreError):
        PandaEnv("head", players=2).reset(seed=2**64)
    env.reset(seed=np.int64(3))
    assert env.agents


def test_bots_answering_numpy_integers_or_floats() -> None:
    def numpy_bot(game: HeadGame, player: int) -> Any:
        return np.int64(game.legal_actions()[0])

    def float_bot(game: HeadGame, player: int) -> Any:
        return float(game.legal_actions()[0])

    assert play_game("head", [numpy_bot, "random"], seed=3).winner in (0, 1)
    with pytest.raises(IllegalMoveError):  # a float is no action: refused, not truncated
        play_game("head", [float_bot, "random"], seed=3)


def test_pathlib_paths_are_decks(tmp_path: Path) -> None:
    """`ClimbSettings(deck=pathlib.Path(...))` was a TypeError."""
    copy = tmp_path / "my deck.toml"
    shutil.copy(DECK, copy)
    by_path = ClimbSettings(deck=copy)
    by_str = ClimbSettings(deck=str(copy))
    assert by_path == by_str and by_path.deck == str(copy)
    assert ClimbGame(3, 1, by_path).snapshot() == ClimbGame(3, 1, by_str).snapshot()
    g = ClimbGame(3, 1, by_path)
    assert ClimbGame.from_snapshot(g.snapshot(), deck=copy).snapshot() == g.snapshot()
    assert climb_classify([0], ["white"], [], deck=copy) == climb_classify([0], ["white"], [])
    with pytest.raises(TypeError):
        ClimbSettings(deck=3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ClimbSettings(deck=str(copy).encode())  # type: ignore[arg-type]


def test_pettingzoo_unknown_agents_are_argument_errors() -> None:
    """`observe("nobody")` raised a plain ValueError, the space getters a KeyError."""
    from panda_core import ArgumentError

    env = PandaAECEnv("head", players=2)
    env.reset(seed=1)
    for call in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(ArgumentError, match="player_0"):
            call("nobody")
        with pytest.raises(ArgumentError):
            call(0)  # type: ignore[arg-type]
    assert (
        env.observe("player_1")["observation"].shape
        == env.observation_space("player_1")["observation"].shape
    )
