"""Issue 8, items 5-8, 10, 11 for the vector envs and the batch simulator: bounded and shared
thread pools, sizes checked before anything is allocated, one error contract (ArgumentError /
TypeError, never OverflowError, IndexError or a truncated float), numpy integers and strided
arrays read right, ``.legal`` on a refused step, concurrent use from threads, pickling."""

from __future__ import annotations

import copy
import os
import pickle
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from panda_core import (
    ArgumentError,
    ClimbSettings,
    ClimbVectorEnv,
    HeadVectorEnv,
    IllegalMoveError,
    RulesError,
    simulate,
)
from panda_core._core import MAX_THREADS, simulate_climb_batch, simulate_head_batch
from panda_core.simulate import simulate_chunks

Env = HeadVectorEnv | ClimbVectorEnv

MAKERS: dict[str, Callable[..., Env]] = {
    "head": lambda n=6, **kw: HeadVectorEnv(n, **kw),
    "year": lambda n=6, **kw: ClimbVectorEnv(n, rules=ClimbSettings(preset="year"), **kw),
    "spin": lambda n=6, **kw: ClimbVectorEnv(n, rules=ClimbSettings(preset="spin"), **kw),
}


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def first_legal(mask: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.asarray(mask.argmax(axis=1), dtype=np.int64)


def fast(call: Callable[[], object], error: type[BaseException], match: str | None = None) -> None:
    """``call`` raises ``error`` at once (before allocating or starting anything)."""
    start = time.perf_counter()
    with pytest.raises(error, match=match):
        call()
    assert time.perf_counter() - start < 1.0


# ---- item 5: threads -----------------------------------------------------------------------------


@pytest.mark.parametrize("threads", [0, -1, MAX_THREADS + 1, 10**6, 2**64])
def test_thread_counts_are_bounded(threads: int) -> None:
    fast(lambda: HeadVectorEnv(2, threads=threads), ArgumentError, f"1..={MAX_THREADS}")
    fast(lambda: ClimbVectorEnv(2, threads=threads), ArgumentError, f"1..={MAX_THREADS}")
    fast(lambda: simulate(10, threads=threads), ArgumentError, "threads")
    fast(lambda: simulate_climb_batch(1, 3, ["random"] * 3, threads=threads), ArgumentError)
    python_bot = [lambda game, player: game.legal_moves()[0], "random"]
    fast(lambda: simulate(2, players=2, bots=python_bot, threads=threads), ArgumentError)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts Linux threads")
def test_pools_are_shared_not_rebuilt() -> None:
    # Warm the 7-thread pool once, then many envs and chunked simulations reuse it.
    HeadVectorEnv(2, threads=7)
    before = os_threads()
    envs = [HeadVectorEnv(600, threads=7) for _ in range(20)]
    for env in envs:
        env.reset(seed=1)
    simulate(2000, threads=7, chunk=50)
    assert os_threads() <= before + 2
    assert all(env.threads == 7 for env in envs)


# ---- item 6: sizes before allocating -------------------------------------------------------------


def test_sizes_are_checked_before_allocating() -> None:
    fast(lambda: simulate(10**30), ArgumentError, "games")
    fast(lambda: simulate(2**41, game="year"), ArgumentError, "games")
    fast(lambda: HeadVectorEnv(10**12), ArgumentError, "num_envs")
    fast(lambda: HeadVectorEnv(2**21), ArgumentError, "num_envs")
    fast(lambda: ClimbVectorEnv(2**18), ArgumentError, "num_envs")
    fast(lambda: simulate_head_batch(2**40, 4, ["random"] * 4), ArgumentError, "games")
    fast(lambda: simulate_head_batch(-1, 4, ["random"] * 4), ArgumentError, "games")
    fast(lambda: simulate_head_batch(2, 4, ["random"] * 4, first_game=2**64 - 1), ArgumentError)
    fast(lambda: simulate_head_batch(2, 4, ["random"] * 4, first_game=-1), ArgumentError)
    fast(lambda: simulate(5, players=2**64), RulesError, "2 to 5")
    fast(lambda: simulate(5, chunk=0), ArgumentError, "chunk")


@pytest.mark.slow
def test_legal_move_features_are_bounded_before_allocating() -> None:
    # 2**17 envs of a few dozen moves each: ~10**6 rows of 326 floats, above 2**27 floats.
    env = ClimbVectorEnv(2**17, rules=ClimbSettings(preset="year"))
    env.reset(seed=1)
    with pytest.raises(ArgumentError, match="fewer envs"):
        env.legal_move_features()
    small = ClimbVectorEnv(4)
    small.reset(seed=1)
    rows, offsets = small.legal_move_features()
    assert rows.shape == (offsets[-1], small.move_features)


def test_game_counts_are_ints() -> None:
    for bad in [True, 2.0, "10", None]:
        with pytest.raises(TypeError):
            simulate(bad)  # type: ignore[arg-type]
    assert simulate(np.int64(7)).games == 7
    assert simulate_head_batch(np.uint16(3), np.int8(2), ["random"] * 2)["winner"].shape == (3,)


def test_chunks_stream_the_same_games() -> None:
    whole = simulate(130, game="spin", players=3, seed=5)
    parts = list(simulate_chunks(130, game="spin", players=3, seed=5, chunk=40))
    assert [p.first_game for p in parts] == [0, 40, 80, 120]
    np.testing.assert_array_equal(np.concatenate([p.winner for p in parts]), whole.winner)
    np.testing.assert_array_equal(np.concatenate([p.scores for p in parts]), whole.scores)


# ---- item 7: bot names ---------------------------------------------------------------------------


def test_a_bare_bot_name_fills_every_seat() -> None:
    one = simulate(60, bots="heuristic", seed=3)
    four = simulate(60, bots=["heuristic"] * 4, seed=3)
    assert one.bots == ("heuristic",) * 4
    np.testing.assert_array_equal(one.winner, four.winner)
    with pytest.raises(RulesError, match='unknown bot "randm"'):
        simulate(5, bots="randm")


@pytest.mark.parametrize("name", ["ismcts:0", "ismcts:-1", "ismcts:1000001", "ismcts:x"])
def test_ismcts_names_say_the_iteration_range(name: str) -> None:
    with pytest.raises(RulesError, match=r"1 to 1000000"):
        simulate(2, bots=[name, "random", "random", "random"])
    with pytest.raises(RulesError, match=r"1 to 1000000"):
        simulate_head_batch(2, 2, [name, "random"])


# ---- items 7/8: indices and actions --------------------------------------------------------------


@pytest.mark.parametrize("game", ["head", "year"])
def test_env_indices_are_argument_errors(game: str) -> None:
    env = MAKERS[game](3)
    env.reset(seed=1)
    for bad in [-1, 3, 2**63, 2**64, -(2**70)]:
        with pytest.raises(ArgumentError, match=r"0\.\.=2"):
            env.game(bad)
        with pytest.raises(ArgumentError, match=r"0\.\.=2"):
            env.episodes(bad)
    for bad_type in [True, 1.0, "1"]:
        with pytest.raises(TypeError):
            env.game(bad_type)  # type: ignore[arg-type]
    assert env.game(np.int64(2)).current_player is not None
    if isinstance(env, ClimbVectorEnv):
        with pytest.raises(ArgumentError):
            env.legal_moves(-1)


def legal_step(game: str, n: int = 8) -> tuple[Env, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    env = MAKERS[game](n)
    _, mask, _ = env.reset(seed=4)
    return env, mask, first_legal(mask)


@pytest.mark.parametrize("game", ["head", "year"])
@pytest.mark.parametrize(
    "dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32, np.uint64, np.intp]
)
def test_every_integer_dtype_is_read(game: str, dtype: type[np.integer[Any]]) -> None:
    env, _, actions = legal_step(game)
    twin, _, _ = legal_step(game)
    for x, y in zip(env.step(actions.astype(dtype)), twin.step(actions), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("game", ["head", "year"])
def test_strided_and_non_contiguous_actions_are_read(game: str) -> None:
    env, _, actions = legal_step(game)
    twin, _, _ = legal_step(game)
    column = np.stack([actions, np.full_like(actions, 99)], axis=1)[:, 0]
    assert not column.flags.c_contiguous
    for x, y in zip(env.step(column), twin.step(actions), strict=True):
        np.testing.assert_array_equal(x, y)
    _, mask, _ = env.reset(seed=9)
    twin.reset(seed=9)
    backwards = first_legal(mask)[::-1].copy()[::-1]
    assert backwards.strides[0] < 0
    for x, y in zip(env.step(backwards), twin.step(first_legal(mask)), strict=True):
        np.testing.assert_array_equal(x, y)
    assert env.step(list(first_legal(env.reset(seed=3)[1])))[0].shape[0] == 8


@pytest.mark.parametrize("game", ["head", "year"])
def test_floats_bools_and_strings_are_refused_not_truncated(game: str) -> None:
    env, _, actions = legal_step(game)
    before = env.game(0).to_json() if game == "year" else None
    bad: list[object] = [
        actions.astype(np.float64),
        actions.astype(np.float64) + 0.7,
        np.full(8, np.nan),
        actions.astype(bool),
        [float(a) for a in actions],
        [True] * 8,
        [str(a) for a in actions],
        "01234567",
        actions.astype(str),
        3,
    ]
    for value in bad:
        with pytest.raises(TypeError):
            env.step(value)  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="1-D"):
        env.step(actions.reshape(2, 4))
    if before is not None:
        assert env.game(0).to_json() == before
    env.step(actions)  # untouched: the legal step still applies


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_a_refused_step_carries_legal(game: str) -> None:
    env, mask, actions = legal_step(game)
    actions[5] = 2**62
    with pytest.raises(IllegalMoveError) as info:
        env.step(actions)
    err = info.value
    assert err.env == 5  # type: ignore[attr-defined]
    assert err.legal == list(np.flatnonzero(mask[5]))  # type: ignore[attr-defined]
    huge = actions.astype(np.uint64)
    huge[5] = np.uint64(2**64 - 1)
    with pytest.raises(IllegalMoveError):
        env.step(huge)
    if isinstance(env, ClimbVectorEnv):
        _, offsets = env.legal_move_features()
        indices = np.zeros(8, dtype=np.int64)
        indices[2] = 10_000
        with pytest.raises(IllegalMoveError) as info:
            env.step_moves(indices)
        assert info.value.legal == list(range(offsets[3] - offsets[2]))  # type: ignore[attr-defined]


# ---- item 10: threads sharing one env ------------------------------------------------------------


@pytest.mark.parametrize("game", ["head", "year"])
def test_one_env_shared_by_threads_serialises_calls(game: str) -> None:
    env = MAKERS[game](4096 if game == "head" else 512, threads=2)
    expected = {s: [a.copy() for a in MAKERS[game](env.num_envs).reset(seed=s)] for s in (1, 2)}
    errors: list[BaseException] = []

    def worker(seed: int) -> None:
        try:
            for _ in range(15):
                obs, _, _ = env.reset(seed=seed)
                np.testing.assert_array_equal(obs, expected[seed][0])
                env.game(0)
                env.num_envs  # noqa: B018
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---- item 11: pickling ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["head", "year", "spin"])
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_vector_envs_round_trip_exactly(game: str, how: str) -> None:
    env = MAKERS[game](5, threads=2)
    _, mask, _ = env.reset(seed=12)
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        _, mask, *_ = env.step(actions)
    clone: Env
    if how == "pickle":
        clone = pickle.loads(pickle.dumps(env))
    elif how == "deepcopy":
        clone = copy.deepcopy(env)
    else:
        clone = copy.copy(env)
    assert type(clone) is type(env) and clone is not env
    assert (clone.num_envs, clone.players, clone.threads) == (env.num_envs, env.players, 2)
    assert [clone.episodes(i) for i in range(5)] == [env.episodes(i) for i in range(5)]
    for _ in range(80):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        a = env.step(actions)
        b = clone.step(actions)
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
        mask = a[1]
