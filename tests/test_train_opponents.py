"""Opponent mixes (issue 23): ``TrainSettings.opponents`` / ``--opponents`` seats the learner in
one seat per game of a fraction of the envs, against a built-in bot or a past self in the
others, and learns from the learner's decisions only. Off by default (``"self"``: the trainer's
self-play, the same settings hash); a run with opponents is reproducible and resumes exactly,
its past selves kept in the train state and checked there like every other tensor.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

from panda_core.cli import main
from panda_core.train import TrainError, TrainSettings, train
from panda_core.train._game import game_info
from panda_core.train.actor import Actor
from panda_core.train.curve import read_curve
from panda_core.train.network import init_params
from panda_core.train.opponents import NO_DRAW, Opponents
from panda_core.train.settings import PAST_SELVES, RECIPE_DEFAULTS

# The settings hash of TrainSettings() before the recipe's options (tests/test_train_recipe.py).
OLD_DEFAULT_IDENTITY = "961745830f43321b1628f36f8887ccc378a085fa482395617d744ecbdc3f4285"

TINY: dict[str, Any] = {"hidden": (32,), "batch_size": 256, "lr": 1e-3, "eval_games": 0}
DECISIONS = {"head": 30_000, "year": 8_000, "spin": 8_000}
ENVS = {"head": 32, "year": 8, "spin": 8}


def _tiny(game: str = "head", **changes: Any) -> TrainSettings:
    decisions = DECISIONS[game]
    values = {"game": game, "decisions": decisions, "num_envs": ENVS[game], "threads": 1,
              "eval_every": decisions // 2, "past_every": decisions // 10}  # fmt: skip
    return TrainSettings(**{**values, **TINY, **changes})


# ---- settings ----------------------------------------------------------------------------------


def test_self_play_is_the_default_and_leaves_the_settings_as_they_were() -> None:
    assert TrainSettings().identity() == OLD_DEFAULT_IDENTITY
    explicit = TrainSettings(opponents="self", past_every=1_000_000)
    assert explicit == TrainSettings() and explicit.identity() == OLD_DEFAULT_IDENTITY
    assert {"opponents", "past_every"} <= set(RECIPE_DEFAULTS)
    assert not {"opponents", "past_every"} & set(TrainSettings().to_json())
    assert TrainSettings().opponent_parts() == () and set(TrainSettings().opponent_envs()) == {
        "self"
    }


@pytest.mark.parametrize("changes", [{"opponents": "heuristic:0.5"}, {"past_every": 5000}])
def test_the_options_are_settings_of_their_own(changes: dict[str, Any]) -> None:
    settings = TrainSettings(**changes)
    assert settings.identity() != TrainSettings().identity()
    assert set(settings.to_json()) - set(TrainSettings().to_json()) == set(changes)
    assert TrainSettings.from_json(json.loads(json.dumps(settings.to_json()))) == settings
    assert settings.differences(TrainSettings())


@pytest.mark.parametrize(
    ("spec", "envs", "kinds"),
    [
        ("heuristic:0.5", 8, ["heuristic"] * 4 + ["self"] * 4),
        ("heuristic:1", 4, ["heuristic"] * 4),
        ("heuristic:0.25,past:0.25", 10, ["heuristic"] * 3 + ["past"] * 2 + ["self"] * 5),
        ("random:0.1,heuristic:0.4", 10, ["random"] + ["heuristic"] * 4 + ["self"] * 5),
        ("past:.5,neural:0.5", 3, ["past"] * 2 + ["neural"]),
        ("ismcts:20:0.5", 2, ["ismcts:20", "self"]),
        ("ismcts+neural:3:0.5,ismcts:0.5", 2, ["ismcts+neural:3", "ismcts"]),
        ("random:0.1,heuristic:0.2,past:0.7", 10, ["random"] + ["heuristic"] * 2 + ["past"] * 7),
    ],
)
def test_good_specs_split_the_envs_by_index(spec: str, envs: int, kinds: list[str]) -> None:
    """Consecutive envs from env 0, at the rounded sums of the fractions (exact decimals:
    0.1 + 0.2 + 0.7 is 1)."""
    assert list(TrainSettings(opponents=spec, num_envs=envs).opponent_envs()) == kinds


HOSTILE = [
    "heuristic:0.6,past:0.5",  # more than 1
    "heuristic:-0.1",
    "heuristic:nan",
    "heuristic:inf",
    "heuristic:1e-1",
    "heuristic: 0.5",
    "heuristic:0",
    "heuristic:1.5",
    "heuristic:0.5,",
    ",heuristic:0.5",
    "heuristic",
    ":0.5",
    "",
    "self:1",
    "greedy:0.5",
    "Heuristic:0.5",
    "neural:/etc/passwd",
    "neural:/etc/passwd:0.5",
    "neural:policy.safetensors:0.5",
    "neural:5:0.5",
    "ismcts+neural:5:/tmp/x.safetensors:0.5",
    "ismcts:0:0.5",
    "ismcts:01:0.5",
    "ismcts:99999999:0.5",
    "heuristic:0.2,heuristic:0.2",
    "heuristic:0.5" + ",random:0.01" * 30,
    "x" * 100_000,
    "heuristic:0." + "1" * 10_000,
]


@pytest.mark.parametrize("spec", HOSTILE)
def test_hostile_specs_are_refused_saying_what_is_allowed(spec: str) -> None:
    with pytest.raises(TrainError) as error:
        TrainSettings(opponents=spec)
    message = str(error.value)
    assert "KIND:FRACTION" in message and "heuristic" in message and "past" in message
    assert "neural:PATH) is not allowed" in message
    assert len(message) < 1200


@pytest.mark.parametrize("value", [None, 0.5, ("heuristic", 0.5)])
def test_an_opponents_value_that_is_no_str_is_refused(value: Any) -> None:
    with pytest.raises(TrainError, match="not a str"):
        TrainSettings(opponents=value)


def test_a_part_with_no_env_and_a_bad_past_every_are_refused() -> None:
    with pytest.raises(TrainError, match=r"random:0\.01 of 8 envs is no env"):
        TrainSettings(opponents="random:0.01,heuristic:0.5", num_envs=8)
    with pytest.raises(TrainError, match="past_every must be in"):
        TrainSettings(past_every=0)
    with pytest.raises(TypeError, match="past_every"):
        TrainSettings(past_every=1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "spec", ["neural:/etc/passwd:0.5", "heuristic:2", "greedy:0.5", "heuristic:0.5,"]
)
def test_the_command_line_refuses_bad_specs(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", "--opponents", spec, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error: opponents must be") and "Traceback" not in err
    assert not (tmp_path / "r").exists(), "nothing is written for a refused command"


def test_the_command_line_reads_the_options() -> None:
    from panda_core.cli import build_parser

    args = build_parser().parse_args(["train", "--out", "x"])
    assert (args.opponents, args.past_every) == ("self", 1_000_000)
    argv = ["train", "--out", "x", "--opponents", "heuristic:0.25,past:0.25", "--past-every", "5"]
    args = build_parser().parse_args(argv)
    assert (args.opponents, args.past_every) == ("heuristic:0.25,past:0.25", 5)


# ---- the actor ---------------------------------------------------------------------------------


class _CountingEnv:
    """A vector env that records its bot_moves calls and what each step was given."""

    def __init__(self, env: Any) -> None:
        self._env = env
        self.bot_calls: list[tuple[str, Any]] = []
        self.stepped: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def bot_moves(self, bot: str, seed: int) -> Any:
        moves = self._env.bot_moves(bot, seed)
        self.bot_calls.append((bot, moves))
        return moves

    def step(self, actions: Any) -> Any:
        self.stepped.append(np.array(actions))
        return self._env.step(actions)

    def step_moves(self, indices: Any) -> Any:
        self.stepped.append(np.array(indices))
        return self._env.step_moves(indices)


def _actor(game: str, spec: str, envs: int, seed: int = 3) -> tuple[Actor, Any]:
    info = game_info(game)
    params = init_params(seed, [info.input_size, 16, info.output_size])
    kinds = TrainSettings(game=game, opponents=spec, num_envs=envs).opponent_envs()
    opponents = Opponents.start(kinds, seed, params)
    return Actor(info, envs, 4, 1, seed, opponents=opponents), params


@pytest.mark.parametrize(("game", "steps"), [("head", 400), ("year", 300)])
def test_only_the_learner_seat_is_recorded_and_it_rotates(game: str, steps: int) -> None:
    """With heuristic:0.5, the opponent envs record only the learner's seat (its game id mod
    the players), which takes every seat; the self-play envs record every seat's decisions."""
    actor, params = _actor(game, "heuristic:0.5", 8)
    added: list[tuple[Any, Any]] = []
    add = actor.buffer.add

    def spy(rows: Any, columns: Any, seats: Any, games: Any, rounds: Any = None) -> None:
        added.append((np.array(seats), np.array(games)))
        add(rows, columns, seats, games, rounds)

    actor.buffer.add = spy  # type: ignore[method-assign]
    env_of: dict[int, int] = {}
    for _ in range(steps):
        env_of.update({int(g): i for i, g in enumerate(actor._games)})
        actor.step(params, 0.1)
    seats = np.concatenate([s for s, _ in added])
    games = np.concatenate([g for _, g in added])
    opponent = np.array([env_of[int(g)] < 4 for g in games])
    assert (seats[opponent] == games[opponent] % 4).all(), "only the learner's seat"
    assert set(seats[opponent].tolist()) == {0, 1, 2, 3}, "the learner seat rotates"
    mixed = [g for g in set(games[~opponent].tolist()) if len(set(seats[games == g])) > 1]
    assert mixed, "a self-play env records every seat"
    assert 0 < opponent.sum() < (~opponent).sum()


@pytest.mark.parametrize("game", ["head", "spin"])
def test_the_opponents_play_the_bots_moves(game: str) -> None:
    """In a heuristic:1 env every non-learner move is the one bot_moves gave (Panda Head: its
    move index turned into the action id), and bot_moves is called only when an opponent is to
    move."""
    actor, params = _actor(game, "heuristic:1", 4)
    env = _CountingEnv(actor.env)
    actor.env = env
    due = 0
    for _ in range(120):
        player, games, mask = actor.player.copy(), actor._games.copy(), actor.mask.copy()
        theirs = player != games % 4
        calls = len(env.bot_calls)
        actor.step(params, 0.5)
        due += bool(theirs.any())
        assert len(env.bot_calls) == calls + bool(theirs.any())
        if theirs.any():
            bot, indices = env.bot_calls[-1]
            stepped = env.stepped[-1]
            assert bot == "heuristic"
            if game == "head":
                ranks = np.cumsum(mask, axis=1)[np.arange(4), stepped] - 1
                assert mask[np.arange(4), stepped].all()
                assert (ranks[theirs] == indices[theirs]).all()
            else:
                assert (stepped[theirs] == indices[theirs]).all()
    assert due > 30


def test_past_selves_are_drawn_per_game_and_kept_while_played() -> None:
    info = game_info("head")
    initial = init_params(1, [info.input_size, 8, info.output_size])
    kinds = ("past", "past", "heuristic", "self")
    opponents = Opponents.start(kinds, 1, initial)
    assert list(opponents.past) == [0] and opponents.draws.tolist() == [0, 0, NO_DRAW, NO_DRAW]
    mine = opponents.learner_to_move(np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7]), 4)
    assert mine.tolist() == [True, True, True, True]
    mine = opponents.learner_to_move(np.array([1, 1, 1, 1]), np.array([4, 5, 6, 7]), 4)
    assert mine.tolist() == [False, True, False, True]
    for generation in range(1, 7):
        opponents.snapshot(initial)
        assert opponents.next_generation == generation + 1
    # Env 0 and 1 still play generation 0: it stays beside the last four.
    assert sorted(opponents.past) == [0, 3, 4, 5, 6]
    opponents.start_games(np.array([0, 1, 2, 3]))
    assert set(opponents.draws[:2].tolist()) <= {3, 4, 5, 6}
    assert opponents.draws[2:].tolist() == [NO_DRAW, NO_DRAW]
    opponents.snapshot(initial)
    assert len(opponents.past) <= PAST_SELVES + 2 and 0 not in opponents.past


# ---- runs --------------------------------------------------------------------------------------


def _sha(folder: Path) -> str:
    return hashlib.sha256((folder / "policy.safetensors").read_bytes()).hexdigest()


class _Stop(Exception):
    pass


def _stop_after_first_row(decisions: int, row: Any) -> None:
    if row is not None and row.decisions > 0:
        raise _Stop


@pytest.fixture(scope="module")
def plain_runs(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The policy sha256 of the self-play run of ``_tiny(game)``, trained once per game."""
    shas: dict[str, str] = {}

    def sha(game: str) -> str:
        if game not in shas:
            folder = tmp_path_factory.mktemp(f"plain-{game}")
            train(_tiny(game), folder)
            shas[game] = _sha(folder)
        return shas[game]

    return sha


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "game"),
    # Every game once and each kind of opponent in both kinds of game (the opponents are one
    # code path over the shared contract; the suite's time is the limit): bots in Panda Head
    # are also in the mixed run below.
    [("past:0.5", "head"), ("heuristic:0.5", "year"), ("past:0.5", "spin")],
)
def test_a_run_with_opponents_is_reproducible_and_resumes_exactly(
    game: str, spec: str, plain_runs: Any, tmp_path: Path
) -> None:
    """Two runs of the settings, one of them stopped after its first checkpoint and resumed,
    write the same policy (the bots' seeds, the past selves and their draws are in the state;
    past_every is a tenth of the budget, so snapshots come before and after the stop and push
    the initial weights out of the last four)."""
    settings = _tiny(game, opponents=spec)
    train(settings, tmp_path / "straight")
    with pytest.raises(_Stop):
        train(settings, tmp_path / "resumed", _stop_after_first_row)
    assert len(read_curve(tmp_path / "resumed" / "curve.csv")) == 2
    train(settings, tmp_path / "resumed")
    assert _sha(tmp_path / "straight") == _sha(tmp_path / "resumed")
    one, two = (read_curve(tmp_path / f / "curve.csv") for f in ("straight", "resumed"))
    assert [(r.decisions, str(r.loss)) for r in one] == [(r.decisions, str(r.loss)) for r in two]
    assert plain_runs(game) != _sha(tmp_path / "straight"), "the opponents change the run"


@pytest.mark.slow
def test_opponents_with_the_other_options_resume_exactly(tmp_path: Path) -> None:
    """A mix of bots and past selves, with skip_forced and a round target: the kept decisions
    are the learner's with more than one move, and the run resumes to the same files."""
    settings = _tiny("head", opponents="random:0.25,past:0.25", skip_forced=True,
                     target="mix:0.5")  # fmt: skip
    train(settings, tmp_path / "straight")
    with pytest.raises(_Stop):
        train(settings, tmp_path / "resumed", _stop_after_first_row)
    train(settings, tmp_path / "resumed")
    assert _sha(tmp_path / "straight") == _sha(tmp_path / "resumed")


@pytest.mark.slow
def test_a_damaged_past_self_is_refused(tmp_path: Path) -> None:
    """The past selves in the train state are checked like every tensor: each of the right
    shape and dtype, none missing or extra, the draws naming kept ones, the document's list
    sound; an intact state resumes."""
    from safetensors import safe_open
    from safetensors.numpy import save

    from panda_core.train.checkpoint import _digest

    settings = _tiny("head", opponents="past:0.5,heuristic:0.25", decisions=8_000,
                     eval_every=8_000, past_every=2_000)  # fmt: skip
    train(settings, tmp_path / "run")
    path = tmp_path / "run" / "train_state.safetensors"
    original = path.read_bytes()
    with safe_open(str(path), framework="numpy") as handle:
        names = [name for name in handle.keys() if name.startswith("past.")]
        state = json.loads(handle.metadata()["state"])
    generations = state["actor"]["opponents"]["generations"]
    # The four snapshots, and the initial weights if a game in progress still plays them.
    assert generations[-PAST_SELVES:] == [1, 2, 3, 4] and set(generations) <= {0, 1, 2, 3, 4}
    kernel = f"past.{generations[0]}['params']['Dense_0']['kernel']"
    assert kernel in names

    def rewrite(tensors: Any = None, document: Any = None) -> None:
        path.write_bytes(original)
        with safe_open(str(path), framework="numpy") as handle:
            metadata = dict(handle.metadata())
            arrays = {name: handle.get_tensor(name) for name in handle.keys()}
        state = json.loads(metadata["state"])
        if tensors is not None:
            tensors(arrays)
        if document is not None:
            document(state["actor"]["opponents"])
        metadata["state"] = json.dumps(state, sort_keys=True, separators=(",", ":"))
        metadata["sha256"] = _digest(metadata["state"], arrays)
        path.write_bytes(save(arrays, metadata=metadata))

    def change(name: str, value: Any) -> Any:
        return lambda arrays: arrays.__setitem__(name, value(arrays[name]))

    more = _tiny("head", opponents="past:0.5,heuristic:0.25", decisions=16_000,
                 eval_every=8_000, past_every=2_000)  # fmt: skip
    cases = [
        (change(kernel, lambda a: a[:-1]), None, rf"tensor past\.{generations[0]}.* has shape"),
        (change(kernel, lambda a: a.astype(np.float64)), None, "has dtype 'F64', not F32"),
        (lambda arrays: arrays.pop(kernel), None, r"tensors missing: past\."),
        (None, lambda d: d["generations"].pop(), r"unexpected tensors: past\."),
        (None, lambda d: d["generations"].reverse(), "damaged opponents state"),
        (None, lambda d: d.__setitem__("generations", []), "damaged opponents state"),
        (None, lambda d: d.__setitem__("next_generation", 1), "damaged opponents state"),
        (None, lambda d: d.pop("rng"), r"damaged opponents state \(fields\)"),
        (change("actor.opponents.draws", lambda a: a + 100), None, "opponents.draws names"),
        (change("actor.opponents.draws", lambda a: a[:-1]), None, "opponents.draws has shape"),
        (lambda arrays: arrays.pop("actor.opponents.draws"), None, "tensors missing"),
    ]
    for tensors, document, message in cases:
        rewrite(tensors, document)
        with pytest.raises(TrainError, match=message):
            train(more, tmp_path / "run")
    rewrite()
    assert train(more, tmp_path / "run").decisions >= 16_000
