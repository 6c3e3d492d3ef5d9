"""The trainer (``panda_core.train``, ``panda-core train``): tiny runs of every game that learn
and whose policy plays in the engine, resume and reproducibility, Ctrl-C, bad settings, the policy
file format (written here, read by safetensors and by the Rust bot), and the agreement of the
Rust forward pass with the trainer's.

The Rust side is the engine's ``NeuralPolicy`` and its bots ``neural`` / ``neural:PATH``.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax", reason="the train extra (jax, flax, optax) is not installed")

import jax.numpy as jnp

import panda_core
from panda_core import NeuralPolicy
from panda_core._core import ArgumentError, PandaCoreError, RulesError
from panda_core._registry import GAMES, spec
from panda_core.cli import main
from panda_core.simulate import simulate
from panda_core.train import (
    TrainError,
    TrainSettings,
    read_policy,
    train,
    write_policy,
)
from panda_core.train._game import game_info
from panda_core.train.actor import Actor
from panda_core.train.buffer import EpisodeBuffer
from panda_core.train.curve import read_curve
from panda_core.train.evaluate import PolicyBot, WinRate, evaluate, policy_seat
from panda_core.train.network import forward, init_params, score_moves
from panda_core.train.policy_file import policy_bytes

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "python"
POLICIES = ROOT / "policies"

# Tiny runs: small networks and batches, so that jit compiles quickly and a run takes seconds.
TINY = {"hidden": (32,), "batch_size": 256, "lr": 1e-3}
# Decisions and envs of a tiny run: Panda Head runs ~10x faster than the climbing games, whose
# games are about 2x longer (~450 decisions): few envs, so that games end early in the run.
TINY_DECISIONS = {"head": 60_000, "year": 16_000, "spin": 16_000}
TINY_ENVS = {"head": 32, "year": 8, "spin": 8}


def _tiny(game: str, **changes: Any) -> TrainSettings:
    decisions = TINY_DECISIONS[game]
    values: dict[str, Any] = {
        "game": game,
        "decisions": decisions,
        "num_envs": TINY_ENVS[game],
        "eval_every": decisions // 4,
        "eval_games": 0,
        "threads": 1,
        **TINY,
    }
    return TrainSettings(**{**values, **changes})


def _env() -> dict[str, str]:
    """A child process importing the panda_core under test (the source tree only when that is
    the one under test, not an installed wheel)."""
    paths = [os.environ.get("PYTHONPATH", "")]
    if Path(panda_core.__file__).resolve().is_relative_to(SOURCE.resolve()):
        paths.insert(0, str(SOURCE))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A tiny finished run of each game (shared by the tests that read a run's files)."""
    out = {}
    for game in GAMES:
        folder = tmp_path_factory.mktemp(f"run-{game}")
        train(_tiny(game), folder)
        out[game] = folder
    return out


# ---- learning ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_tiny_run_learns_and_writes_its_folder(runs: dict[str, Path], game: str) -> None:
    folder = runs[game]
    assert sorted(p.name for p in folder.iterdir()) == [
        "checkpoints",  # every curve row's policy (tests/test_train_checkpoints.py)
        "curve.csv",
        "curve.png",
        "policy.safetensors",
        "settings.json",
        "train_state.safetensors",
    ]
    curve = read_curve(folder / "curve.csv")
    assert [r.decisions for r in curve][:1] == [0]  # the untrained network's row comes first
    assert len(curve) == 5
    losses = [r.loss for r in curve[1:] if r.loss == r.loss]  # NaN: no game had ended yet
    assert len(losses) >= 3, curve
    # The targets are +-1 (a winner for players - 1 losers): a network that predicts 0 has a
    # loss near 1, one that learned the mean outcome about 0.75 and learning moves below that.
    assert losses[-1] < losses[0], losses
    assert losses[-1] < 0.9, losses
    assert curve[-1].decisions >= TINY_DECISIONS[game]
    assert all(r.seconds >= 0 for r in curve) and curve[-1].seconds > 0
    assert (folder / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_head_learns_to_beat_random_players(tmp_path: Path) -> None:
    """A run some ten times longer than the tiny one (10 s): the policy beats three random
    players much more often than chance (25%) and than the untrained network. It wins about 60%
    after these 3,700 games' worth of decisions; the bounds leave room for seeds and versions."""
    settings = TrainSettings(
        game="head",
        decisions=800_000,
        num_envs=256,
        eval_every=800_000,
        eval_games=400,
        lr=1e-3,
        threads=1,
    )
    result = train(settings, tmp_path)
    first, last = result.curve[0], result.curve[-1]
    assert last.random.rate > 0.45, result.curve
    assert last.random.rate > first.random.rate + 0.1, result.curve


def test_targets_are_the_acting_seats_final_rewards() -> None:
    """Every decision's target is the final reward (+1 winner, -1 others) of the seat that made
    it, checked against games replayed from the env's own records."""
    info = game_info("head")
    params = init_params(0, [info.input_size, 8, info.output_size])
    actor = Actor(info, num_envs=1, players=3, threads=1, seed=5)
    acting: list[int] = []
    while actor.buffer.ready == 0:
        acting.append(int(actor.player[0]))
        actor.step(params, epsilon=0.5)
    samples = actor.take()  # the first game's decisions, in order
    assert len(samples) == len(acting)
    winner_rows = samples.targets == 1
    assert set(np.unique(samples.targets)) <= {-1.0, 1.0}
    winners = {seat for seat, won in zip(acting, winner_rows, strict=True) if won}
    assert len(winners) == 1, "one seat wins: all its decisions have target +1"
    losers = {seat for seat, won in zip(acting, winner_rows, strict=True) if not won}
    assert winners.isdisjoint(losers)


def test_the_episode_buffer_hands_over_finished_games_only_in_order() -> None:
    buffer = EpisodeBuffer(input_size=2, players=2, capacity=2)
    for step in range(3):
        rows = np.array([[step, 0], [step, 1]], dtype=np.float32)
        buffer.add(rows, np.array([step, step]), np.array([0, 1]), np.array([10, 11]))
    buffer.finish(np.array([11]), np.array([[1.0, -1.0]], dtype=np.float32), 3)
    assert buffer.ready == 3
    taken = buffer.take()
    assert taken.inputs.tolist() == [[0, 1], [1, 1], [2, 1]]
    assert taken.columns.tolist() == [0, 1, 2]
    assert taken.targets.tolist() == [-1, -1, -1]  # seat 1 lost game 11
    assert buffer.ready == 0
    buffer.finish(np.array([10]), np.array([[1.0, -1.0]], dtype=np.float32), 3)
    assert buffer.take().targets.tolist() == [1, 1, 1]  # seat 0 won game 10
    assert len(buffer.take()) == 0


# ---- the policy file ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_policy_file_follows_format_1(runs: dict[str, Path], game: str) -> None:
    from safetensors import safe_open

    path = runs[game] / "policy.safetensors"
    info = game_info(game)
    with safe_open(str(path), framework="numpy") as handle:
        metadata = handle.metadata()
        names = sorted(handle.keys())
        tensors = {name: handle.get_tensor(name) for name in names}
    assert names == ["layers.0.bias", "layers.0.weight", "layers.1.bias", "layers.1.weight"]
    assert tensors["layers.0.weight"].shape == (32, info.input_size)  # [out, in]
    assert tensors["layers.1.weight"].shape == (info.output_size, 32)
    assert all(t.dtype == np.float32 for t in tensors.values())
    expected = {
        "format": "panda-core-policy",
        "format_version": "1",
        "game": game,
        "kind": "action-values" if game == "head" else "move-scores",
        "layers": f"{info.input_size},32,{info.output_size}",
        "activation": "relu",
        "players": "4",
        "seed": "0",
    }
    assert {k: metadata[k] for k in expected} == expected
    if game == "head":
        assert metadata["observation_layout"] == "head-observation/1"
        assert "move_features_layout" not in metadata
    else:
        assert metadata["observation_layout"] == "climb-observation/1"
        assert metadata["move_features_layout"] == "climb-move-features/1"
    digest = hashlib.sha256()
    for i in range(2):
        digest.update(tensors[f"layers.{i}.weight"].tobytes())
        digest.update(tensors[f"layers.{i}.bias"].tobytes())
    assert metadata["sha256"] == digest.hexdigest()
    assert "created" not in metadata and int(metadata["decisions"]) >= TINY_DECISIONS[game]
    assert (info.input_size, info.output_size) == ((96, 24) if game == "head" else (952 + 326, 1))


@pytest.mark.slow
def test_the_policy_file_is_byte_reproducible_and_reads_back() -> None:
    settings = _tiny("year")
    info = game_info("year")
    params = init_params(3, [info.input_size, 16, 1])
    blob = policy_bytes(params, settings, 7)
    assert blob == policy_bytes(init_params(3, [info.input_size, 16, 1]), settings, 7)
    assert blob != policy_bytes(init_params(4, [info.input_size, 16, 1]), settings, 7)
    (header,) = struct.unpack("<Q", blob[:8])
    assert (8 + header) % 8 == 0, "tensor data starts 8-byte aligned"


def test_write_policy_refuses_parameters_of_another_game(tmp_path: Path) -> None:
    params = init_params(0, [96, 8, 24])
    with pytest.raises(TrainError, match="maps 1278 inputs to 1 outputs"):
        write_policy(params, _tiny("spin"), tmp_path / "p.safetensors")
    assert not list(tmp_path.iterdir())


def _corrupt(source: Path, tmp_path: Path) -> dict[str, Path]:
    """Damaged copies of a policy file: a changed weight, another game, cut short."""
    blob = source.read_bytes()
    (size,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + size])
    bad_sha = bytearray(blob)
    bad_sha[-1] ^= 0x40  # the last byte of the last bias: the tensors no longer hash to sha256
    other = dict(header)
    other["__metadata__"] = {**header["__metadata__"], "game": "spin"}
    text = json.dumps(other, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    files = {
        "bad sha": bytes(bad_sha),
        "wrong game": struct.pack("<Q", len(text)) + text + blob[8 + size :],
        "truncated": blob[: len(blob) // 2],
        "empty": b"",
    }
    out = {}
    for name, data in files.items():
        out[name] = tmp_path / f"{name.replace(' ', '-')}.safetensors"
        out[name].write_bytes(data)
    return out


@pytest.mark.slow
def test_read_policy_refuses_damaged_files(runs: dict[str, Path], tmp_path: Path) -> None:
    damaged = _corrupt(runs["head"] / "policy.safetensors", tmp_path)
    with pytest.raises(TrainError, match="sha256"):
        read_policy(damaged["bad sha"])
    with pytest.raises(TrainError, match="truncated or damaged"):
        read_policy(damaged["truncated"])
    with pytest.raises(TrainError, match="not a policy file"):
        read_policy(damaged["empty"])
    # Another game's name is read (Python does not know which game a caller wants), and the
    # Rust loader refuses it for the game it plays.
    assert read_policy(damaged["wrong game"]).metadata["game"] == "spin"


@pytest.mark.slow
def test_the_rust_loader_refuses_damaged_files(runs: dict[str, Path], tmp_path: Path) -> None:
    damaged = _corrupt(runs["head"] / "policy.safetensors", tmp_path)
    for name, path in damaged.items():
        if name != "wrong game":  # (next test)
            with pytest.raises(PandaCoreError):
                NeuralPolicy.load(str(path))
        with pytest.raises(PandaCoreError, match="policy"):
            simulate(2, game="head", players=2, bots=[f"neural:{path}", "heuristic"], seed=1)
    with pytest.raises(PandaCoreError, match="SHA-256"):
        NeuralPolicy.load(str(damaged["bad sha"]))
    with pytest.raises(PandaCoreError, match="head"):  # a head policy does not play year
        simulate(2, game="year", bots=f"neural:{runs['head'] / 'policy.safetensors'}")


@pytest.mark.slow
def test_the_rust_loader_refuses_a_policy_whose_game_and_kind_disagree(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    """A head policy with only its ``game`` changed to spin: a spin policy scores moves (kind
    move-scores, 1278 inputs, 1 output), so the file contradicts itself."""
    damaged = _corrupt(runs["head"] / "policy.safetensors", tmp_path)
    with pytest.raises(PandaCoreError, match=r"kind|move-scores"):
        NeuralPolicy.load(str(damaged["wrong game"]))


# ---- the trainer's forward pass, and the Rust one ---------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_file_flax_and_split_forward_passes_agree(runs: dict[str, Path], game: str) -> None:
    """The numpy forward of the file (what the Rust bot computes) and the trainer's jax one on
    the same rows, random and real; for move scores also the split first layer self-play uses."""
    policy = read_policy(runs[game] / "policy.safetensors")
    params = {
        "params": {
            f"Dense_{i}": {"kernel": jnp.asarray(w.T), "bias": jnp.asarray(b)}
            for i, (w, b) in enumerate(policy.layers)
        }
    }
    rows = _inputs(game, policy.sizes[0])
    expected = np.asarray(forward(params, jnp.asarray(rows)))
    np.testing.assert_allclose(policy.forward(rows), expected, atol=1e-5, rtol=1e-5)
    if game != "head":
        obs, moves = rows[:, :952], rows[:, 952:]
        split = score_moves(params, jnp.asarray(obs), jnp.asarray(moves), jnp.arange(len(rows)))
        np.testing.assert_allclose(np.asarray(split), expected[:, 0], atol=1e-5, rtol=1e-5)


def _inputs(game: str, width: int) -> np.ndarray:
    """Random rows and rows of real positions (an observation and, for move scores, each legal
    move's features), as float32 ``[B, width]``."""
    rng = np.random.default_rng(1)
    rows = [rng.normal(0, 2, size=(16, width)).astype(np.float32)]
    for seed in range(3):
        g = spec(game).new_game(4, seed)
        for _ in range(5 * seed):  # a few moves in, so not every row is a first position
            if not g.is_over:
                g.apply(g.bot_move("heuristic", seed=seed))
        obs = g.observation(g.current_player)
        if game == "head":
            rows.append(obs[None, :])
        else:
            moves = g.legal_move_features()
            rows.append(np.concatenate([np.broadcast_to(obs, (len(moves), 952)), moves], 1))
    return np.concatenate(rows).astype(np.float32)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_rust_forward_pass_agrees_with_the_trainers(runs: dict[str, Path], game: str) -> None:
    path = runs[game] / "policy.safetensors"
    loaded = NeuralPolicy.load(str(path))
    policy = read_policy(path)
    assert (loaded.game, loaded.layers, loaded.sha256) == (
        game,
        policy.sizes,
        policy.metadata["sha256"],
    )
    assert loaded.kind == policy.metadata["kind"]
    params = {
        "params": {
            f"Dense_{i}": {"kernel": jnp.asarray(w.T), "bias": jnp.asarray(b)}
            for i, (w, b) in enumerate(policy.layers)
        }
    }
    rows = _inputs(game, policy.sizes[0])
    rust = np.asarray(loaded.evaluate(rows))
    np.testing.assert_allclose(rust, np.asarray(forward(params, jnp.asarray(rows))), atol=1e-5)


# ---- the policy plays ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_policy_plays_complete_games_with_other_bots(runs: dict[str, Path], game: str) -> None:
    path = runs[game] / "policy.safetensors"
    seat = policy_seat(path)
    assert seat == f"neural:{path}"
    for players in (2, 3, 5):
        bots = [seat, "heuristic", "random", "ismcts:20", seat][:players]
        result = simulate(4, game=game, players=players, bots=bots, seed=players)
        assert result.games == 4 and np.all(result.decisions > 0)
    g = spec(game).new_game(4, 11)
    bot = PolicyBot(read_policy(path))
    while not g.is_over:
        player = g.current_player
        move = bot(g, player) if player == 0 else g.bot_move("heuristic", seed=1)
        g.apply(move)
    assert g.is_over


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_the_rust_bot_plays_as_the_python_policy(runs: dict[str, Path], game: str) -> None:
    """``neural:PATH`` chooses the move the trainer's rules choose, position after position."""
    path = runs[game] / "policy.safetensors"
    bot = PolicyBot(read_policy(path))
    g = spec(game).new_game(4, 3)
    moves = 0
    while not g.is_over and moves < 200:
        expected = bot(g, g.current_player)
        played = g.bot_move(f"neural:{path}")
        if game == "head":
            assert played.action_id == expected
        else:
            assert played == expected
        g.apply(played)
        moves += 1


@pytest.mark.slow
def test_evaluation_rotates_seats_over_the_same_deals(runs: dict[str, Path]) -> None:
    rates = evaluate(runs["head"] / "policy.safetensors", "head", 4, games=10, seed=3)
    assert set(rates) == {"heuristic", "random"}
    assert all(r.games == 12 for r in rates.values())  # 3 deals x 4 seats
    again = evaluate(runs["head"] / "policy.safetensors", "head", 4, games=10, seed=3)
    assert rates == again


def test_win_rate_intervals() -> None:
    assert WinRate(0, 0).rate != WinRate(0, 0).rate  # NaN
    low, high = WinRate(50, 100).interval
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = WinRate(0, 100).interval
    assert low == pytest.approx(0, abs=1e-12) and 0 < high < 0.04


# ---- resume, reproducibility, Ctrl-C ------------------------------------------------------------


@pytest.mark.slow
def test_the_same_settings_give_the_same_files(runs: dict[str, Path], tmp_path: Path) -> None:
    train(_tiny("spin"), tmp_path / "again")
    first, second = runs["spin"], tmp_path / "again"
    for name in ("policy.safetensors", "settings.json"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name

    def rows(folder: Path) -> list[list[str]]:  # every column but the wall time
        return [[c for k, c in enumerate(r.to_csv()) if k != 1] for r in read_curve(folder)]

    assert rows(first / "curve.csv") == rows(second / "curve.csv")


@pytest.mark.slow
def test_another_seed_gives_another_policy(runs: dict[str, Path], tmp_path: Path) -> None:
    train(_tiny("head", seed=1), tmp_path / "seed1")
    assert (tmp_path / "seed1" / "policy.safetensors").read_bytes() != (
        runs["head"] / "policy.safetensors"
    ).read_bytes()


@pytest.mark.slow
def test_a_longer_budget_resumes_to_the_same_policy(runs: dict[str, Path], tmp_path: Path) -> None:
    """Half the budget, then the rest in a second session: the same files as one session."""
    full = _tiny("head")
    half = _tiny("head", decisions=full.decisions // 2)
    folder = tmp_path / "resumed"
    first = train(half, folder)
    assert first.decisions < full.decisions
    second = train(full, folder)
    assert second.decisions == read_curve(runs["head"] / "curve.csv")[-1].decisions
    assert (folder / "policy.safetensors").read_bytes() == (
        runs["head"] / "policy.safetensors"
    ).read_bytes()
    assert [r.decisions for r in second.curve] == [
        r.decisions for r in read_curve(runs["head"] / "curve.csv")
    ]
    # A finished run does nothing more.
    third = train(full, folder)
    assert third.decisions == second.decisions and len(third.curve) == len(second.curve)


@pytest.mark.slow
def test_a_resumed_run_may_use_other_threads(runs: dict[str, Path], tmp_path: Path) -> None:
    """The engine's results do not depend on its thread count, so a run resumed with other
    ``threads`` (its envs re-made mid-game) still ends with the same policy."""
    full = _tiny("head")
    folder = tmp_path / "threads"
    train(_tiny("head", decisions=full.decisions // 2), folder)
    train(_tiny("head", threads=2), folder)
    assert (folder / "policy.safetensors").read_bytes() == (
        runs["head"] / "policy.safetensors"
    ).read_bytes()
    assert json.loads((folder / "settings.json").read_text())["threads"] == 2


@pytest.mark.parametrize(("game", "players"), [("head", 2), ("year", 5), ("spin", 3)])
@pytest.mark.slow
def test_other_table_sizes_train_and_play(game: str, players: int, tmp_path: Path) -> None:
    result = train(_tiny(game, players=players, eval_games=2 * players), tmp_path)
    assert read_policy(result.policy).metadata["players"] == str(players)
    assert all(r.heuristic.games == 2 * players for r in result.curve)
    played = simulate(3, game=game, players=players, bots=f"neural:{result.policy}", seed=2)
    assert np.all(played.decisions > 0)


def test_the_run_folder_must_be_a_folder(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(TrainError, match="not empty and holds no training run"):
        train(_tiny("head"), tmp_path / "file")
    with pytest.raises(TypeError, match="settings must be a TrainSettings"):
        train({"game": "head"}, tmp_path / "new")  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_folder_with_another_run_is_refused(runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(TrainError, match=r"other settings \(lr: 0.001 in the folder, 0.002 now"):
        train(_tiny("head", lr=2e-3), runs["head"])
    with pytest.raises(TrainError, match="game: 'head' in the folder, 'year' now"):
        train(_tiny("year"), runs["head"])
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(TrainError, match="not empty and holds no training run"):
        train(_tiny("head"), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_the_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "panda_core.cli", "train", "--game", "head", "--decisions",
           "100000000", "--eval-every", "20000", "--eval-games", "0", "--hidden", "16",
           "--threads", "1", "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(
        cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # wait for a trained row, so that jit has compiled
            if line.startswith("decisions") and " 20,0" in line:
                break
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - sent
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert "interrupted at" in err and "Traceback" not in err
    assert stopped < 5, f"{stopped:.1f} s from Ctrl-C to exit"
    state = json.loads((out / "settings.json").read_text())
    assert state["decisions"] == 100_000_000
    saved = read_policy(out / "policy.safetensors").metadata["decisions"]
    assert 20_000 < int(saved) < 100_000_000, "the checkpoint is where the run stopped"
    # The same command with a budget just past the checkpoint finishes the run from there.
    budget = int(saved) + 2_000
    argv = [*cmd[3:-2], "--decisions", str(budget)]  # the last --decisions wins
    assert main([*argv, "--out", str(out)]) == 0
    assert int(read_policy(out / "policy.safetensors").metadata["decisions"]) >= budget
    # ... exactly as a run that was never interrupted: the checkpoint held the games in
    # progress, the waiting decisions and the generators.
    assert main([*argv, "--out", str(tmp_path / "straight")]) == 0
    resumed, straight = (
        read_curve(out / "curve.csv"),
        read_curve(tmp_path / "straight" / "curve.csv"),
    )
    assert [(r.decisions, str(r.loss)) for r in resumed] == [
        (r.decisions, str(r.loss)) for r in straight
    ]
    assert (out / "policy.safetensors").read_bytes() == (
        tmp_path / "straight" / "policy.safetensors"
    ).read_bytes()


# ---- settings and the command line -------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        ({"game": "chess"}, RulesError, "unknown game 'chess'"),
        ({"players": 7}, RulesError, "players"),
        ({"decisions": 0}, TrainError, r"decisions must be in 1\.\."),
        ({"num_envs": 0}, TrainError, "num_envs must be in"),
        ({"hidden": ()}, TrainError, "hidden must be a tuple of 1 to 7"),
        ({"hidden": [64]}, TrainError, "hidden must be a tuple"),
        ({"hidden": (64, 5000)}, TrainError, r"each hidden width must be in 1\.\.=4096"),
        ({"lr": 0.0}, TrainError, r"lr must be in \(0\.0, 1\.0\]"),
        ({"lr": float("nan")}, TrainError, "lr must be in"),
        ({"epsilon": 1.5}, TrainError, r"epsilon must be in \[0\.0, 1\.0\]"),
        ({"eval_every": 0}, TrainError, "eval_every"),
        ({"eval_games": -1}, TrainError, "eval_games"),
        ({"threads": 0}, TrainError, "threads"),
        ({"seed": -1}, RulesError, "seed"),
        ({"lr": "0.1"}, TypeError, "lr must be a number"),
        ({"decisions": 1.5}, TypeError, "decisions must be an int"),
        ({"batch_size": True}, TypeError, "batch_size must be an int"),
    ],
)
def test_bad_settings_are_refused(changes: dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        TrainSettings(**changes)


def test_train_errors_are_panda_core_errors() -> None:
    assert issubclass(TrainError, ArgumentError) and issubclass(TrainError, PandaCoreError)
    with pytest.raises(TrainError, match="unknown settings"):
        TrainSettings.from_json({"game": "head", "gamma": 0.9})
    assert TrainSettings.from_json(_tiny("year").to_json()) == _tiny("year")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "head", "--players", "9"], "players"),
        (["--game", "head", "--lr", "-1"], "lr must be in"),
        (["--game", "head", "--hidden", "0"], "each hidden width"),
    ],
)
def test_the_command_line_refuses_bad_options(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["train", *argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error:") and message in err
    assert not (tmp_path / "r").exists(), "nothing is written for a refused command"


def test_the_command_line_refuses_unparsable_values(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["train", "--hidden", "a,b", "--out", "x"])
    assert exit_.value.code == 2
    assert "expected comma-separated widths" in capsys.readouterr().err


@pytest.mark.slow
def test_the_command_line_trains_and_prints_the_curve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["train", "--game", "head", "--decisions", "20000", "--eval-every", "10000",
            "--eval-games", "8", "--hidden", "16", "--threads", "1"]  # fmt: skip
    argv += ["--out", str(tmp_path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\ndecisions ") == 3 and "vs heuristic" in out and "vs random" in out
    assert f"bot neural:{tmp_path / 'policy.safetensors'}" in out
    assert main(argv) == 0, "the same command on a finished run"
    assert "trained 20,0" in capsys.readouterr().out


# ---- the shipped policies ----------------------------------------------------------------------


def test_the_manifest_describes_the_shipped_files() -> None:
    manifest = json.loads((POLICIES / "MANIFEST.json").read_text())
    assert sorted(p["game"] for p in manifest["policies"]) == sorted(GAMES)
    for entry in manifest["policies"]:
        path = POLICIES / entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["file_sha256"]
        policy = read_policy(path)
        info = game_info(entry["game"])
        assert policy.metadata["game"] == entry["game"]
        assert policy.metadata["kind"] == entry["kind"] == info.kind
        assert policy.metadata["observation_layout"] == entry["observation_layout"]
        assert policy.metadata.get("move_features_layout") == entry["move_features_layout"]
        assert policy.metadata["layers"] == ",".join(map(str, entry["layers"]))
        assert policy.metadata["sha256"] == entry["tensors_sha256"]
        assert NeuralPolicy.shipped(entry["game"]).sha256 == entry["tensors_sha256"]
        if "base" in entry:  # a fine-tune: it started from the first run's shipped checkpoint
            base = entry["base"]
            assert entry["settings"]["init_policy_sha256"] == base["tensors_sha256"]
            assert base["game"] == entry["game"] and base["layers"] == entry["layers"]
            assert (
                entry["held_out_vs_3_heuristic"]["rate"] >= base["held_out_vs_3_heuristic"]["rate"]
            )
