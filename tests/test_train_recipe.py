"""The training recipe's options (issue 23): ``target`` (the round's / hand's value, as the
vector env reports it), ``skip_forced``, ``replay_window``, ``lr_schedule`` and ``warmup``,
``clip_grad``, ``ema`` and the ``epsilon`` schedule. Each is off by default, and a run without
them is the trainer's run of before (the same settings hash and ``settings.json``; the exact
tests of ``tests/test_train.py`` keep its files); each changes what it should, and a run with
them resumes exactly.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

from panda_core import ClimbVectorEnv, HeadVectorEnv
from panda_core.cli import build_parser
from panda_core.train import TrainError, TrainSettings, read_policy, train
from panda_core.train._game import game_info
from panda_core.train.actor import Actor
from panda_core.train.buffer import EpisodeBuffer
from panda_core.train.curve import read_curve
from panda_core.train.learner import Learner
from panda_core.train.network import init_params
from panda_core.train.settings import RECIPE_DEFAULTS

# The identity (settings hash) of TrainSettings() and of a tiny Panda Head run, as the trainer
# before the recipe's options computed them: their folders must still resume.
OLD_DEFAULT_IDENTITY = "961745830f43321b1628f36f8887ccc378a085fa482395617d744ecbdc3f4285"
OLD_TINY_IDENTITY = "b6900edda7777d749c56959c9570dc3053360b587e70f071a1d2331c689a2ea8"

TINY: dict[str, Any] = {
    "hidden": (32,),
    "batch_size": 256,
    "lr": 1e-3,
    "eval_games": 0,
    "threads": 1,
}


def _tiny(game: str = "head", **changes: Any) -> TrainSettings:
    decisions = {"head": 30_000, "year": 8_000, "spin": 8_000}[game]
    envs = {"head": 32, "year": 8, "spin": 8}[game]
    values = {"game": game, "decisions": decisions, "num_envs": envs, "eval_every": decisions // 2}
    return TrainSettings(**{**values, **TINY, **changes})


# ---- settings ----------------------------------------------------------------------------------


def test_the_defaults_are_todays_settings() -> None:
    """Options at their defaults are left out of settings.json and of the settings hash, so the
    folders of runs made before them still resume."""
    assert TrainSettings().identity() == OLD_DEFAULT_IDENTITY
    tiny = TrainSettings(game="head", decisions=60_000, num_envs=32, eval_every=15_000, **TINY)
    assert tiny.identity() == OLD_TINY_IDENTITY
    assert not set(RECIPE_DEFAULTS) & set(TrainSettings().to_json())
    explicit = TrainSettings(**RECIPE_DEFAULTS)
    assert explicit == TrainSettings() and explicit.identity() == OLD_DEFAULT_IDENTITY
    old_json = {k: v for k, v in TrainSettings().to_json().items()}
    assert TrainSettings.from_json(old_json) == TrainSettings()


@pytest.mark.parametrize(
    "changes",
    [
        {"target": "round"},
        {"target": "mix:0.5"},
        {"skip_forced": True},
        {"replay_window": 8},
        {"lr_schedule": "cosine"},
        {"warmup": 1000},
        {"clip_grad": 1.0},
        {"ema": 0.99},
        {"epsilon_end": 0.0},
    ],
)
def test_an_option_is_a_setting_of_its_own(changes: dict[str, Any]) -> None:
    settings = TrainSettings(**changes)
    assert settings.identity() != TrainSettings().identity()
    assert set(settings.to_json()) - set(TrainSettings().to_json()) == set(changes)
    assert TrainSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings
    assert settings.differences(TrainSettings())


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"target": "hand"}, TrainError, "target must be game, round or mix:ALPHA"),
        ({"target": "mix:1.5"}, TrainError, "target must be"),
        ({"target": "mix:nan"}, TrainError, "target must be"),
        ({"target": "mix:"}, TrainError, "target must be"),
        ({"skip_forced": 1}, TypeError, "skip_forced must be a bool"),
        ({"replay_window": 0}, TrainError, "replay_window must be in"),
        ({"replay_window": 4096, "batch_size": 65_536}, TrainError, "replay_window 4096"),
        ({"lr_schedule": "exponential"}, TrainError, "lr_schedule must be one of"),
        ({"warmup": -1}, TrainError, "warmup must be in"),
        ({"clip_grad": 0.0}, TrainError, "clip_grad must be in"),
        ({"ema": 1.0}, TrainError, r"ema must be in \(0\.0, 1\.0\)"),
        ({"ema": 0.0}, TrainError, "ema must be in"),
        ({"epsilon_end": 1.5}, TrainError, "epsilon_end must be in"),
        ({"epsilon_end": "0"}, TypeError, "epsilon_end must be a number"),
    ],
)
def test_bad_options_are_refused(changes: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        TrainSettings(**changes)


def test_the_schedules() -> None:
    plain = TrainSettings(decisions=1000)
    assert plain.plain_lr and plain.lr_factor(500) == 1.0 and plain.epsilon_at(900) == 0.05
    cosine = TrainSettings(decisions=1000, lr_schedule="cosine", warmup=100)
    assert not cosine.plain_lr
    assert cosine.lr_factor(0) == 0.0 and cosine.lr_factor(50) == pytest.approx(0.5 * 0.9938, 1e-3)
    assert cosine.lr_factor(500) == pytest.approx(0.5) and cosine.lr_factor(1000) == 0.0
    linear = TrainSettings(decisions=1000, lr_schedule="linear")
    assert linear.lr_factor(250) == pytest.approx(0.75) and linear.lr_factor(2000) == 0.0
    epsilon = TrainSettings(decisions=1000, epsilon=0.2, epsilon_end=0.0)
    assert epsilon.epsilon_at(0) == 0.2 and epsilon.epsilon_at(500) == pytest.approx(0.1)
    assert epsilon.epsilon_at(5000) == 0.0
    assert TrainSettings(target="mix:0.25").target_weight() == 0.25
    assert TrainSettings(target="round").target_weight() == 1.0


def test_the_command_line_reads_the_options() -> None:
    args = build_parser().parse_args(["train", "--out", "x"])
    assert args.epsilon == (0.05, None) and args.target == "game" and not args.skip_forced
    assert (args.replay_window, args.lr_schedule, args.warmup) == (4, "constant", 0)
    assert (args.clip_grad, args.ema) == (None, None)
    argv = ["train", "--out", "x", "--epsilon", "0.2:0.01", "--target", "mix:0.5",
            "--skip-forced", "--replay-window", "16", "--lr-schedule", "cosine", "--warmup",
            "5000", "--clip-grad", "1", "--ema", "0.999"]  # fmt: skip
    args = build_parser().parse_args(argv)
    assert args.epsilon == (0.2, 0.01) and args.target == "mix:0.5" and args.skip_forced
    assert (args.replay_window, args.lr_schedule, args.warmup) == (16, "cosine", 5000)
    assert (args.clip_grad, args.ema) == (1.0, 0.999)


# ---- the vector env's round results ------------------------------------------------------------


def _clamp(v: float) -> float:
    return min(1.0, max(-1.0, v))


def test_head_hand_values_are_the_hands_points() -> None:
    """Each hand's value per seat is 2 v - 1 of ISMCTS's hand value: -delta / 30 (fewer
    penalty points are better), a further -0.3 for a fresh Drowsy Panda, -1 for a Pooped one,
    and the game's result at its end."""
    env = HeadVectorEnv(1, players=3, threads=1)
    _, mask, _ = env.reset(11)
    ended, values = env.round_results()
    assert not ended.any() and values.shape == (1, 3) and values.dtype == np.float32
    rng = np.random.default_rng(0)
    hands = games = 0
    while games < 3:
        game = env.game(0)
        action = int(rng.choice(np.flatnonzero(mask[0])))
        game.apply(action)
        _, mask, rewards, terminated, _ = env.step([action])
        ended, values = env.round_results()
        assert ended[0] == bool(game.round_results), "a round ends when the copy's hand ends"
        if terminated[0]:
            games += 1
            assert values[0].tolist() == rewards[0].tolist()
        elif ended[0]:
            hands += 1
            result = game.round_results[-1]
            for seat in range(3):
                expected = (
                    -1.0
                    if seat in result["new_pooped"]
                    else _clamp(-result["deltas"][seat] / 30 - 0.3 * (seat in result["new_drowsy"]))
                )
                assert values[0, seat] == pytest.approx(expected, abs=1e-6), (seat, result)
        else:
            assert not values.any()
    assert hands > 5


@pytest.mark.parametrize("game_name", ["year", "spin"])
def test_climbing_round_values_are_the_points_gained(game_name: str) -> None:
    """Each round's value per seat is 2 v - 1 of ISMCTS's round value: (gain - the others'
    mean gain) / 10, clamped, the gain being the points scored in the round; the game's result
    at its end."""
    env = game_info(game_name).new_vector_env(1, 4, 1)  # type: ignore[arg-type]
    assert isinstance(env, ClimbVectorEnv)
    env.reset(5)
    start = [0] * 4
    rng = np.random.default_rng(1)
    rounds = 0
    for _ in range(4000):
        game = env.game(0)
        moves = env.legal_moves(0)
        index = int(rng.integers(len(moves)))
        game.apply(moves[index])
        _, _, rewards, terminated, _ = env.step_moves([index])
        ended, values = env.round_results()
        if terminated[0]:
            assert ended[0] and values[0].tolist() == rewards[0].tolist()
            start = [0] * 4
            continue
        assert ended[0] == bool(game.round_results), "a round ends when the copy's round ends"
        if not ended[0]:
            assert not values.any()
            continue
        rounds += 1
        gains = [now - then for now, then in zip(game.scores, start, strict=True)]
        for seat in range(4):
            others = (sum(gains) - gains[seat]) / 3
            expected = _clamp((gains[seat] - others) / 10)
            assert values[0, seat] == pytest.approx(expected, abs=1e-6), (seat, gains)
        start = list(game.scores)
    assert rounds > 3


def test_a_reloaded_env_values_the_round_in_progress_the_same() -> None:
    """A climbing game's save form does not keep the scores its round began with: an env whose
    round results were read saves them (``round_root``), one whose were not saves what it
    always did."""
    env = game_info("year").new_vector_env(2, 4, 1)
    env.reset(9)
    rng = np.random.default_rng(2)
    plain = json.loads(env.__reduce__()[1][0])
    assert all("round_root" not in slot for slot in plain["envs"])
    copy = None
    ended_once = np.zeros(2, bool)
    for _ in range(3000):
        counts = np.diff(env.legal_move_features()[1])
        moves = rng.integers(counts)
        env.step_moves(moves)
        ended, values = env.round_results()
        if copy is not None:
            copy.step_moves(moves)
            again, others = copy.round_results()
            assert np.array_equal(ended, again) and np.array_equal(values, others)
        ended_once |= ended
        if copy is None and ended_once.all() and not ended.any():  # mid-round, not round 1
            copy = pickle.loads(pickle.dumps(env))
            saved = json.loads(env.__reduce__()[1][0])
            assert all("round_root" in slot for slot in saved["envs"])
    assert copy is not None


# ---- the episode buffer and the actor ----------------------------------------------------------


def test_round_targets_weigh_the_round_and_the_game() -> None:
    buffer = EpisodeBuffer(input_size=1, players=2, rounds=True)

    def add(row: float, seats: list[int], games: list[int], rounds: list[int]) -> None:
        n = len(seats)
        buffer.add(
            np.full((n, 1), row, np.float32),
            np.zeros(n, np.int32),
            np.array(seats),
            np.array(games, np.int64),
            np.array(rounds, np.int64),
        )

    # Game 0: round 0 (seats 0 and 1), then round 3 (seat 0); game 1 (round 1) still going.
    add(0, [0, 1], [0, 1], [0, 1])
    add(1, [1], [0], [0])
    buffer.finish_rounds(np.array([0]), np.array([[0.5, -0.5]], np.float32))
    add(2, [0], [0], [3])
    buffer.finish_rounds(np.array([3]), np.array([[1.0, -1.0]], np.float32))
    buffer.finish(np.array([0]), np.array([[1.0, -1.0]], np.float32), 3)
    taken = buffer.take(0.25, open_round=1)
    # seat 0 in round 0, seat 1 in round 0, seat 0 in round 3
    assert taken.targets.tolist() == pytest.approx([0.25 * 0.5 + 0.75, 0.25 * -0.5 - 0.75, 1.0])
    assert buffer.round_base == 1, "round 0 is forgotten: no decision of it is waiting"
    buffer.finish_rounds(np.array([1]), np.array([[0.0, 0.2]], np.float32))
    buffer.finish(np.array([1]), np.array([[-1.0, 1.0]], np.float32), 1)
    assert buffer.take(1.0, open_round=4).targets.tolist() == pytest.approx([0.2])
    assert buffer.round_base == 4


@pytest.mark.slow
@pytest.mark.parametrize("game", ["head", "year"])
def test_skip_forced_learns_from_no_single_move_decision(game: str) -> None:
    """The same games as without the option (the same draws), and each step keeps exactly the
    decisions with more than one legal move."""
    info = game_info(game)  # type: ignore[arg-type]
    params = init_params(0, [info.input_size, 8, info.output_size])
    plain = Actor(info, num_envs=4, players=4, threads=1, seed=3)
    skip = Actor(info, num_envs=4, players=4, threads=1, seed=3, skip_forced=True)
    kept = forced = 0
    for _ in range(300):
        if info.kind == "action-values":
            choices = skip.mask.sum(axis=1)
        else:
            choices = np.diff(skip.env.legal_move_features()[1])
        before = skip.buffer._size
        plain.step(params, 0.3)
        skip.step(params, 0.3)
        added = skip.buffer._size - before
        if added >= 0:  # (a take() in between would shrink it; none is called here)
            assert added == int((choices > 1).sum())
        kept += added
        forced += int((choices == 1).sum())
        assert np.array_equal(plain.obs, skip.obs) and np.array_equal(plain.player, skip.player)
    assert forced > 0 and kept > 0
    samples, everything = skip.take(), plain.take()
    assert len(samples) < len(everything)


def test_round_targets_follow_the_hands_of_a_game() -> None:
    """With target round, a Panda Head decision's target is its hand's value for its seat (the
    env's round results), and the last hand's is the game's result; mix weighs the two."""
    info = game_info("head")
    params = init_params(0, [info.input_size, 8, info.output_size])
    actors = {
        weight: Actor(info, num_envs=1, players=3, threads=1, seed=5, rounds=True)
        for weight in (1.0, 0.5)
    }
    plain = Actor(info, num_envs=1, players=3, threads=1, seed=5)
    expected: list[float] = []
    hand: list[int] = []
    while plain.buffer.ready == 0:
        hand.append(int(plain.player[0]))
        for actor in (*actors.values(), plain):
            actor.step(params, epsilon=0.5)
        ended, values = actors[1.0].env.round_results()
        if ended[0]:
            expected += [float(values[0, seat]) for seat in hand]
            hand = []
    game = plain.take().targets
    for weight, actor in actors.items():
        targets = actor.take(weight).targets
        mixed = weight * np.array(expected, np.float32) + (1 - weight) * game
        assert targets.tolist() == pytest.approx(mixed.tolist(), abs=1e-6)
    assert len(set(expected)) > 2, "hand values are not only the game's +-1"


@pytest.mark.slow
def test_the_learner_scales_clips_and_averages() -> None:
    info = game_info("head")
    params = init_params(0, [info.input_size, 8, info.output_size])
    rng = np.random.default_rng(0)
    from panda_core.train.samples import Samples

    batch = Samples(
        rng.normal(size=(64, info.input_size)).astype(np.float32),
        rng.integers(0, info.output_size, 64).astype(np.int32),
        rng.choice([-1.0, 1.0], 64).astype(np.float32),
    )
    plain = Learner(1e-3)
    state = plain.init(params)
    one, _, loss = plain.step(params, state, batch)
    scaled = Learner(1e-3, scaled=True)
    two, _, loss2 = scaled.step(params, state, batch, 0.5)
    assert loss == loss2
    flat = [np.asarray(x) for x in _leaves(one)]
    half = [np.asarray(x) for x in _leaves(two)]
    start = [np.asarray(x) for x in _leaves(params)]
    for a, b, p in zip(flat, half, start, strict=True):
        assert np.allclose(b - p, 0.5 * (a - p), atol=1e-7)
    clipped, _, _ = Learner(1e-3, clip_grad=1e-6).step(params, state, batch)
    assert any(not np.array_equal(a, c) for a, c in zip(flat, _leaves(clipped), strict=True))
    average = Learner.average(params, one, 0.999, steps=0)  # the warm-up: 1/10 of the way
    for a, p, o in zip(_leaves(average), start, flat, strict=True):
        assert np.allclose(np.asarray(a), 0.1 * p + 0.9 * o, atol=1e-6)


def _leaves(tree: Any) -> list[Any]:
    import jax

    return list(jax.tree_util.tree_leaves(tree))


# ---- runs --------------------------------------------------------------------------------------


def _policy(folder: Path) -> bytes:
    return (folder / "policy.safetensors").read_bytes()


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plain")
    train(_tiny(), folder)
    return folder


@pytest.mark.slow
def test_explicit_defaults_give_the_plain_run(plain_run: Path, tmp_path: Path) -> None:
    train(TrainSettings(**{**_tiny().to_json(), "hidden": (32,), **RECIPE_DEFAULTS}), tmp_path)
    assert _policy(tmp_path) == _policy(plain_run)
    for name in ("settings.json", "policy.safetensors"):
        assert (tmp_path / name).read_bytes() == (plain_run / name).read_bytes(), name


@pytest.mark.slow
@pytest.mark.parametrize(
    "changes",
    [
        {"target": "round"},
        {"target": "mix:0.5"},
        {"skip_forced": True},
        {"replay_window": 8},
        {"lr_schedule": "cosine", "warmup": 5_000},
        {"clip_grad": 0.05},
        {"ema": 0.9},
        {"epsilon": 0.3, "epsilon_end": 0.0},
    ],
)
def test_each_option_changes_the_run(
    changes: dict[str, Any], plain_run: Path, tmp_path: Path
) -> None:
    train(_tiny(**changes), tmp_path)
    assert _policy(tmp_path) != _policy(plain_run)
    saved = json.loads((tmp_path / "settings.json").read_text())
    assert {k: saved[k] for k in changes} == changes


@pytest.mark.slow
def test_the_ema_policy_is_the_average_not_the_raw_weights(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    train(_tiny(ema=0.95), tmp_path)
    state = load_file(str(tmp_path / "train_state.safetensors"))
    policy = read_policy(tmp_path / "policy.safetensors")
    raw = state["params['params']['Dense_0']['kernel']"]
    average = state["ema['params']['Dense_0']['kernel']"]
    kernel = np.asarray(policy.layers[0][0]).T  # the file holds [out, in]
    assert np.array_equal(kernel, average) and not np.array_equal(kernel, raw)


class _Stop(Exception):
    pass


def _stop_after_first_row(decisions: int, row: Any) -> None:
    if row is not None and row.decisions > 0:
        raise _Stop  # after the checkpoint and the row at eval_every: the run stops there


OPTIONS: dict[str, Any] = {"target": "mix:0.7", "skip_forced": True, "replay_window": 6,
                           "clip_grad": 0.5, "ema": 0.9}  # fmt: skip
SCHEDULES: dict[str, Any] = {"lr_schedule": "linear", "warmup": 2_000, "epsilon": 0.2,
                             "epsilon_end": 0.02}  # fmt: skip


def _same_run(first: Path, second: Path) -> None:
    assert _policy(first) == _policy(second)
    one, two = read_curve(first / "curve.csv"), read_curve(second / "curve.csv")
    assert [(r.decisions, str(r.loss)) for r in one] == [(r.decisions, str(r.loss)) for r in two]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["head", "year"])
def test_a_run_with_every_option_resumes_exactly(game: str, tmp_path: Path) -> None:
    """Stopped after its first checkpoint and resumed: the files of a run that never stopped
    (the round tables, the moving average, the schedules' positions are all in the state)."""
    full = _tiny(game, **OPTIONS, **SCHEDULES)
    train(full, tmp_path / "straight")
    with pytest.raises(_Stop):
        train(full, tmp_path / "resumed", _stop_after_first_row)
    assert len(read_curve(tmp_path / "resumed" / "curve.csv")) == 2
    train(full, tmp_path / "resumed")
    _same_run(tmp_path / "straight", tmp_path / "resumed")


@pytest.mark.slow
def test_a_run_with_the_options_extends_exactly(tmp_path: Path) -> None:
    """Without schedules (which run over the budget), a larger budget extends a run with the
    options to the files of a run of that budget from the start."""
    full = _tiny("head", **OPTIONS)
    train(full, tmp_path / "straight")
    train(_tiny("head", **OPTIONS, decisions=full.decisions // 2), tmp_path / "extended")
    train(full, tmp_path / "extended")
    _same_run(tmp_path / "straight", tmp_path / "extended")


@pytest.mark.slow
def test_a_damaged_round_table_is_refused(tmp_path: Path) -> None:
    """The round tables of a round-target train state are checked like the rest: ids in range,
    the document's round counters present."""
    from safetensors import safe_open
    from safetensors.numpy import save

    from panda_core.train.checkpoint import _digest

    settings = _tiny(target="round", decisions=8_000, eval_every=8_000)
    train(settings, tmp_path / "run")
    path = tmp_path / "run" / "train_state.safetensors"
    original = path.read_bytes()

    def rewrite(tensors: Any = None, document: Any = None) -> None:
        path.write_bytes(original)
        with safe_open(str(path), framework="numpy") as handle:
            metadata = dict(handle.metadata())
            arrays = {name: handle.get_tensor(name) for name in handle.keys()}
        state = json.loads(metadata["state"])
        if tensors is not None:
            tensors(arrays)
        if document is not None:
            document(state)
        metadata["state"] = json.dumps(state, sort_keys=True, separators=(",", ":"))
        metadata["sha256"] = _digest(metadata["state"], arrays)
        path.write_bytes(save(arrays, metadata=metadata))

    def shift(arrays: dict[str, Any]) -> None:
        arrays["actor.buffer.round_ids"] = arrays["actor.buffer.round_ids"] + 10**9

    more = _tiny(target="round", decisions=16_000, eval_every=8_000)
    rewrite(tensors=shift)
    with pytest.raises(TrainError, match=r"actor\.buffer\.round_ids holds values outside"):
        train(more, tmp_path / "run")
    rewrite(document=lambda d: d["actor"].pop("next_round"))
    with pytest.raises(TrainError, match=r"damaged self-play state \(fields\)"):
        train(more, tmp_path / "run")
    rewrite()
    assert train(more, tmp_path / "run").decisions >= 16_000
