"""The batched environments (HeadVectorEnv, ClimbVectorEnv): every env replays exactly the single
game dealt from its seed, auto-reset and rewards, determinism over thread counts, refused actions
that move nothing, and the climbing games' abstract actions and move-index steps."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panda_core import (
    ArgumentError,
    ClimbGame,
    ClimbSettings,
    ClimbVectorEnv,
    HeadGame,
    HeadRules,
    HeadVectorEnv,
    IllegalMoveError,
    RulesError,
)
from panda_core._core import (
    CLIMB_MOVE_FEATURES,
    CLIMB_OBSERVATION_SIZE,
    HEAD_OBSERVATION_SIZE,
    NUM_CLIMB_ACTIONS,
    NUM_HEAD_ACTIONS,
)
from panda_core.oracle.rng import SplitMix64

Env = HeadVectorEnv | ClimbVectorEnv


def episode_seed(seed: int, env: int, episode: int) -> int:
    """The seed of env `env`'s `episode`-th game (0-based), as docs/agents.md documents it."""
    stream = SplitMix64(seed)
    for _ in range(env):
        stream.next()
    per_env = SplitMix64(stream.next())
    for _ in range(episode):
        per_env.next()
    return per_env.next()


def random_actions(mask: npt.NDArray[np.bool_], rng: np.random.Generator) -> npt.NDArray[np.int64]:
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)


def run(env: Env, steps: int, seed: int = 1) -> list[tuple[npt.NDArray[np.generic], ...]]:
    obs, mask, player = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace: list[tuple[npt.NDArray[np.generic], ...]] = [(obs, mask, player)]
    for _ in range(steps):
        out = env.step(random_actions(mask, rng))
        obs, mask = out[0], out[1]
        trace.append(out)
    return trace


def test_shapes_and_dtypes() -> None:
    env = HeadVectorEnv(8, players=3, threads=1)
    obs, mask, player = env.reset(seed=0)
    assert obs.shape == (8, HEAD_OBSERVATION_SIZE) and obs.dtype == np.float32
    assert mask.shape == (8, NUM_HEAD_ACTIONS) and mask.dtype == np.bool_
    assert player.shape == (8,) and player.dtype == np.int64
    obs, mask, rewards, terminated, player = env.step(mask.argmax(axis=1))
    assert rewards.shape == (8, 3) and rewards.dtype == np.float32
    assert terminated.shape == (8,) and terminated.dtype == np.bool_
    cenv = ClimbVectorEnv(4, players=5, rules=ClimbSettings(preset="spin"))
    obs, mask, player = cenv.reset(seed=0)
    assert obs.shape == (4, CLIMB_OBSERVATION_SIZE) and mask.shape == (4, NUM_CLIMB_ACTIONS)
    assert cenv.observation_size == CLIMB_OBSERVATION_SIZE
    assert cenv.num_actions == NUM_CLIMB_ACTIONS


def test_each_env_replays_the_single_game_of_its_seed() -> None:
    """Env i's episodes are the HeadGames dealt from the documented seeds, move by move."""
    n, seed = 6, 42
    env = HeadVectorEnv(n, players=4, threads=2)
    obs, mask, player = env.reset(seed=seed)
    games = [HeadGame(4, episode_seed(seed, i, 0)) for i in range(n)]
    episodes = [0] * n
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(1500):
        for i, g in enumerate(games):
            assert player[i] == g.current_player
            np.testing.assert_array_equal(obs[i], g.observation(player[i]))
            np.testing.assert_array_equal(mask[i], g.legal_action_mask())
        actions = random_actions(mask, rng)
        obs, mask, rewards, terminated, player = env.step(actions)
        for i, g in enumerate(games):
            g.apply(int(actions[i]))
            assert terminated[i] == g.is_over
            if g.is_over:
                expected = [1.0 if s == g.winner else -1.0 for s in range(4)]
                assert rewards[i].tolist() == expected
                episodes[i] += 1
                finished += 1
                games[i] = HeadGame(4, episode_seed(seed, i, episodes[i]))
            else:
                assert not rewards[i].any()
    assert finished >= 3
    assert [env.episodes(i) for i in range(n)] == [e + 1 for e in episodes]


def test_climb_env_replays_the_single_game_of_its_seed() -> None:
    n, seed = 4, 5
    settings = ClimbSettings(preset="year", panda_mood="flip")
    env = ClimbVectorEnv(n, players=3, rules=settings)
    obs, mask, player = env.reset(seed=seed)
    games = [ClimbGame(3, episode_seed(seed, i, 0), settings) for i in range(n)]
    episodes = [0] * n
    rng = np.random.default_rng(1)
    for _ in range(400):
        for i, g in enumerate(games):
            assert player[i] == g.current_player
            np.testing.assert_array_equal(obs[i], g.observation(int(player[i])))
            np.testing.assert_array_equal(mask[i], g.legal_action_mask())
        actions = random_actions(mask, rng)
        obs, mask, _rewards, terminated, player = env.step(actions)
        for i, g in enumerate(games):
            g.apply(int(actions[i]))
            assert terminated[i] == g.is_over
            if g.is_over:
                episodes[i] += 1
                games[i] = ClimbGame(3, episode_seed(seed, i, episodes[i]), settings)
    assert sum(episodes) >= 1


@pytest.mark.parametrize(
    "make",
    [
        # above the sizes that run on one thread whatever `threads` says
        lambda t: HeadVectorEnv(600, players=4, threads=t),
        lambda t: ClimbVectorEnv(70, players=4, rules=ClimbSettings(preset="spin"), threads=t),
    ],
)
@pytest.mark.slow
def test_deterministic_whatever_the_thread_count(make: object) -> None:
    build = make  # type: ignore[assignment]
    one = run(build(1), 120)  # type: ignore[operator]
    two = run(build(2), 120)  # type: ignore[operator]
    for a, b in zip(one, two, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)


def test_rewards_only_at_the_end_and_zero_sum_shape() -> None:
    env = HeadVectorEnv(64, players=4, threads=2)
    ended = 0
    for _, _, rewards, terminated, _ in run(env, 600)[1:]:  # type: ignore[misc]
        assert not rewards[~terminated].any()
        for row in rewards[terminated]:
            assert sorted(row.tolist()) == [-1.0, -1.0, -1.0, 1.0]
            ended += 1
    assert ended > 0


def test_a_refused_action_names_the_env_and_moves_nothing() -> None:
    env = HeadVectorEnv(50, players=4, threads=2)
    _obs, mask, _player = env.reset(seed=3)
    twin = HeadVectorEnv(50, players=4, threads=1)
    twin.reset(seed=3)
    actions = mask.argmax(axis=1)
    bad = actions.copy()
    bad[17] = int(np.flatnonzero(~mask[17])[0])
    with pytest.raises(IllegalMoveError) as info:
        env.step(bad)
    assert info.value.env == 17  # type: ignore[attr-defined]
    assert "legal:" in str(info.value)
    for wrong in (np.full(50, 99), np.full(50, -1), actions[:3]):
        with pytest.raises((IllegalMoveError, RulesError)):
            env.step(wrong)
    # Nothing moved: the next legal step gives what an untouched twin gives.
    for x, y in zip(env.step(actions), twin.step(actions), strict=True):
        np.testing.assert_array_equal(x, y)


def test_bad_constructor_arguments() -> None:
    # Sizes and thread counts out of range are ArgumentErrors (issue 8); rules are RulesErrors.
    with pytest.raises(ArgumentError):
        HeadVectorEnv(0)
    with pytest.raises(RulesError):
        HeadVectorEnv(4, players=6)
    with pytest.raises(ArgumentError):
        HeadVectorEnv(4, threads=0)
    with pytest.raises(RulesError):
        HeadVectorEnv(4, players=2, rules=HeadRules(first_dealer=3))
    with pytest.raises(RulesError):
        ClimbVectorEnv(4, players=1)


def test_climb_move_index_steps_reach_every_move() -> None:
    env = ClimbVectorEnv(3, players=4, rules=ClimbSettings(preset="spin"))
    env.reset(seed=8)
    rng = np.random.default_rng(2)
    for _ in range(200):
        rows, offsets = env.legal_move_features()
        assert offsets.shape == (4,) and offsets[0] == 0
        assert rows.shape == (offsets[-1], CLIMB_MOVE_FEATURES)
        picks = []
        for i in range(3):
            moves = env.legal_moves(i)
            assert len(moves) == offsets[i + 1] - offsets[i]
            picks.append(int(rng.integers(len(moves))))
        env.step_moves(np.array(picks))
    with pytest.raises(IllegalMoveError) as info:
        env.step_moves(np.array([0, 10_000, 0]))
    assert info.value.env == 1  # type: ignore[attr-defined]


def test_climb_game_abstract_actions() -> None:
    game = ClimbGame(4, 11)
    rng = np.random.default_rng(3)
    while not game.is_over:
        mask = game.legal_action_mask()
        legal = game.legal_moves()
        assert mask.sum() >= 1
        classes = {game.action_index(m) for m in legal}
        assert set(np.flatnonzero(mask).tolist()) == classes
        a = int(rng.choice(np.flatnonzero(mask)))
        chosen = game.move_for_action(a)
        assert chosen in legal and game.action_index(chosen) == a
        features = game.legal_move_features()
        assert features.shape == (len(legal), CLIMB_MOVE_FEATURES)
        masked_out = int(np.flatnonzero(~mask)[0])
        before = game.snapshot()
        with pytest.raises(IllegalMoveError):
            game.apply(masked_out)
        assert game.snapshot() == before
        game.apply(a)
    assert not game.legal_action_mask().any()


@settings(max_examples=40)
@given(
    game=st.sampled_from(["head", "year", "spin"]),
    players=st.integers(2, 5),
    num_envs=st.integers(1, 6),
    seed=st.integers(0, 2**64 - 1),
    plan=st.lists(st.tuples(st.integers(0, 10**6), st.booleans()), min_size=1, max_size=60),
)
def test_vector_env_matches_single_games_through_refused_steps(
    game: str, players: int, num_envs: int, seed: int, plan: list[tuple[int, bool]]
) -> None:
    """Odd corners: any table size, any seed, legal steps mixed with refused ones (one env given a
    masked-out action). A refused step changes nothing; every legal step does to each env exactly
    what the same action does to a single game dealt from that env's seed."""
    settings_ = None if game == "head" else ClimbSettings(preset=game)
    env: Env = (
        HeadVectorEnv(num_envs, players=players)
        if settings_ is None
        else ClimbVectorEnv(num_envs, players=players, rules=settings_)
    )

    def single(i: int, episode: int) -> HeadGame | ClimbGame:
        s = episode_seed(seed, i, episode)
        return HeadGame(players, s) if settings_ is None else ClimbGame(players, s, settings_)

    obs, mask, player = env.reset(seed=seed)
    games = [single(i, 0) for i in range(num_envs)]
    episodes = [0] * num_envs
    for pick, refuse in plan:
        actions = np.array(
            [np.flatnonzero(row)[(pick + i) % row.sum()] for i, row in enumerate(mask)],
            dtype=np.int64,
        )
        if refuse:
            bad = actions.copy()
            victim = pick % num_envs
            bad[victim] = int(np.flatnonzero(~mask[victim])[pick % (~mask[victim]).sum()])
            with pytest.raises(IllegalMoveError) as info:
                env.step(bad)
            assert info.value.env == victim  # type: ignore[attr-defined]
        obs, mask, rewards, terminated, player = env.step(actions)
        for i in range(num_envs):
            g = games[i]
            if isinstance(g, HeadGame):
                g.apply(int(actions[i]))
            else:
                g.apply(int(actions[i]))
            assert terminated[i] == g.is_over
            if g.is_over:
                assert rewards[i].tolist() == [
                    1.0 if s == g.winner else -1.0 for s in range(players)
                ]
                episodes[i] += 1
                games[i] = single(i, episodes[i])
            g = games[i]
            assert player[i] == g.current_player
            np.testing.assert_array_equal(obs[i], g.observation(int(player[i])))
            np.testing.assert_array_equal(mask[i], g.legal_action_mask())


def test_game_copies_show_the_env_position_and_do_not_move_it() -> None:
    head_env = HeadVectorEnv(3, players=4)
    obs, mask, player = head_env.reset(seed=4)
    climb_env = ClimbVectorEnv(3, players=3, rules=ClimbSettings(preset="spin"))
    cobs, cmask, cplayer = climb_env.reset(seed=4)
    for _ in range(30):
        obs, mask, _, _, player = head_env.step(mask.argmax(axis=1))
        cobs, cmask, _, _, cplayer = climb_env.step(cmask.argmax(axis=1))
    for i in range(3):
        g = head_env.game(i)
        assert g.current_player == player[i]
        np.testing.assert_array_equal(g.observation(int(player[i])), obs[i])
        np.testing.assert_array_equal(g.legal_action_mask(), mask[i])
        g.apply(g.bot_move("heuristic").action_id)  # plays the copy only
        c = climb_env.game(i)
        assert c.current_player == cplayer[i]
        np.testing.assert_array_equal(c.observation(int(cplayer[i])), cobs[i])
        np.testing.assert_array_equal(c.legal_action_mask(), cmask[i])
        assert [m.notation for m in c.legal_moves()] == [
            m.notation for m in climb_env.legal_moves(i)
        ]
    again = head_env.game(0)
    np.testing.assert_array_equal(again.observation(int(player[0])), obs[0])
    with pytest.raises(ArgumentError, match=r"0\.\.=2"):  # issue 8: one error contract
        head_env.game(3)
