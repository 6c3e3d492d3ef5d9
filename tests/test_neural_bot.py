"""The built-in ``neural`` bot (a trained policy evaluated in Rust) wherever a built-in bot sits,
and ``NeuralPolicy``, the policy files as Python sees them.

The policy's decision is checked against its own network: ``bot_move`` must be the legal action
(or legal move row) that ``NeuralPolicy.evaluate`` values highest, so the engine's split forward
pass, its legal-move loop and its tie rule are tested against the plain forward pass. That
forward pass is checked against an independent numpy one read straight from the file's bytes.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import panda_core
from panda_core import GAMES, NeuralPolicy, PolicyError, RulesError, make, simulate
from panda_core._core import ArgumentError, nth_output
from panda_core._registry import spec
from panda_core.arena.errors import ArenaError
from panda_core.arena.run import arena, arena_settings
from panda_core.bots import play_game
from panda_core.table.table import Table

SHIPPED = {g: NeuralPolicy.shipped(g) for g in GAMES}


def numpy_forward(data: bytes, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The network of a policy file, from its safetensors bytes with numpy alone."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    meta = header.pop("__metadata__")
    body = data[8 + n :]

    def tensor(name: str) -> npt.NDArray[np.float32]:
        info = header[name]
        lo, hi = info["data_offsets"]
        return np.frombuffer(body[lo:hi], "<f4").reshape(info["shape"])

    layers = len(meta["layers"].split(",")) - 1
    h = x.astype(np.float64)
    for i in range(layers):
        h = h @ tensor(f"layers.{i}.weight").T.astype(np.float64) + tensor(f"layers.{i}.bias")
        if i < layers - 1:
            h = np.maximum(h, 0.0)
    return h.astype(np.float32)


def with_manifest(data: bytes, **entries: str) -> bytes:
    """A policy file's bytes with manifest entries replaced (the weights, and their hash, kept)."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    header["__metadata__"].update(entries)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data[8 + n :]


def sha256_of_weights(data: bytes) -> str:
    """The manifest's ``sha256`` of a policy file: its tensors' bytes in layer order."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    layers = len(header["__metadata__"]["layers"].split(",")) - 1
    body = data[8 + n :]
    digest = hashlib.sha256()
    for i in range(layers):
        for part in ("weight", "bias"):
            lo, hi = header[f"layers.{i}.{part}"]["data_offsets"]
            digest.update(body[lo:hi])
    return digest.hexdigest()


# ---- the shipped policies ---------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_each_shipped_policy_is_its_games(game: str) -> None:
    policy = SHIPPED[game]
    s = spec(game)
    assert policy.game == game
    assert policy.kind == s.policy_kind
    assert policy.metadata["observation_layout"] == s.observation_layout
    assert policy.metadata.get("move_features_layout") == s.move_features_layout
    width = s.observation_size + s.move_features
    assert policy.layers[0] == width
    assert policy.layers[-1] == (1 if s.move_features else s.num_actions)
    assert policy.metadata["format"] == "panda-core-policy"
    assert len(policy.sha256) == 64


@pytest.mark.parametrize("game", GAMES)
def test_evaluate_is_the_files_network(game: str) -> None:
    policy = SHIPPED[game]
    rng = np.random.default_rng(3)
    x = (rng.random((16, policy.layers[0])) < 0.1).astype(np.float32)
    x[:, :5] = rng.standard_normal((16, 5))
    got = policy.evaluate(x)
    assert got.shape == (16, policy.layers[-1]) and got.dtype == np.float32
    np.testing.assert_allclose(got, numpy_forward(policy.to_bytes(), x), rtol=1e-5, atol=1e-5)


def legal_rows(game: Any) -> npt.NDArray[np.float32]:
    """Each legal move's network input: the observation, then the move's features."""
    obs = game.observation(game.current_player)
    feats = game.legal_move_features()
    return np.hstack([np.repeat(obs[None, :], len(feats), 0), feats]).astype(np.float32)


@pytest.mark.parametrize("game_name", GAMES)
def test_the_bots_move_is_the_networks_best(game_name: str) -> None:
    policy = SHIPPED[game_name]
    checked = 0
    for seed in range(3):
        game = make(game_name, players=4, seed=seed)
        while not game.is_over and checked < 150 * (seed + 1):
            move = game.bot_move("neural")
            if policy.kind == "action-values":
                values = policy.evaluate(game.observation(game.current_player)[None, :])[0]
                legal = game.legal_actions()
                best = max(legal, key=lambda a: (values[a], -a))
                assert game.legal_actions()[game.legal_moves().index(move)] == best
            else:
                scores = policy.evaluate(legal_rows(game))[:, 0]
                best_index = int(np.argmax(scores))  # the first of equal scores
                assert game.legal_moves()[best_index] == move
            game.apply(move)
            checked += 1
    assert checked >= 150


# ---- everywhere a built-in bot sits -----------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_neural_plays_complete_batches_at_every_table_size(game: str, players: int) -> None:
    bots = ["neural"] + ["heuristic"] * (players - 1)
    one = simulate(12, game=game, players=players, bots=bots, seed=4, threads=1)
    two = simulate(12, game=game, players=players, bots=bots, seed=4, threads=2)
    assert (one.winner == two.winner).all() and (one.scores == two.scores).all()
    assert int(one.decisions.min()) > 0


@pytest.mark.parametrize("game", GAMES)
def test_neural_in_python_games_tables_and_the_arena(game: str) -> None:
    result = play_game(game, ["neural", "heuristic", "random"], seed=8)
    assert result.winner in range(3)
    # The Python path (a Python bot at a seat) asks the engine move by move: same bot.
    mixed = simulate(
        3, game=game, players=3, bots=["neural", "heuristic", lambda g, p: g.legal_moves()[0]]
    )
    assert len(mixed.winner) == 3
    table = Table(game, seats=["neural", "neural", "heuristic"], seed=2)
    table.advance()
    assert table.is_over
    report = arena(["neural", "heuristic"], game=game, players=3, deals=2, seed=1)
    assert report.complete and len(report.results) == 2 * 2  # 2 rotations of 2 entrants


def test_neural_opponents_in_gymnasium() -> None:
    import gymnasium as gym

    import panda_core.rl  # noqa: F401  (registers the envs)

    env = gym.make("panda_core/Year-v0", players=3, opponents="neural")
    _, info = env.reset(seed=3)
    done = False
    while not done:
        mask = info["action_mask"]
        _, reward, done, _, info = env.step(int(np.flatnonzero(mask)[0]))
    assert reward in (-1.0, 1.0)


# ---- refusals ---------------------------------------------------------------------------------


@pytest.fixture
def year_file(tmp_path: Path) -> Path:
    path = tmp_path / "year.safetensors"
    path.write_bytes(SHIPPED["year"].to_bytes())
    return path


def test_a_policy_plays_only_its_own_game(year_file: Path) -> None:
    bot = f"neural:{year_file}"
    assert len(simulate(2, game="year", players=4, bots=bot).winner) == 2
    for game in ("spin", "head"):
        with pytest.raises(PolicyError, match=f'not "{game}"'):
            simulate(2, game=game, players=4, bots=bot)
        with pytest.raises(PolicyError, match='plays "year"'):
            make(game, players=4, seed=1).bot_move(bot)
        with pytest.raises(PolicyError, match='plays "year"'):
            arena_settings([bot, "heuristic"], game=game)
    assert issubclass(PolicyError, RulesError)


def test_damaged_and_foreign_files_are_refused(tmp_path: Path, year_file: Path) -> None:
    data = bytearray(year_file.read_bytes())
    data[-1] ^= 0x10
    damaged = tmp_path / "damaged.safetensors"
    damaged.write_bytes(bytes(data))
    for path, says in [
        (damaged, "SHA-256"),
        (tmp_path / "missing.safetensors", "cannot read"),
        (tmp_path, "not a regular file"),
    ]:
        with pytest.raises(PolicyError, match=says):
            simulate(1, game="year", bots=f"neural:{path}")
        with pytest.raises(PolicyError, match=says):
            NeuralPolicy.load(path)
    text = tmp_path / "text.safetensors"
    text.write_text("not a policy")
    with pytest.raises(PolicyError, match="not a safetensors file"):
        NeuralPolicy.load(text)
    with pytest.raises(PolicyError, match="not a safetensors file"):
        NeuralPolicy.from_bytes(b"\x00" * 3)
    with pytest.raises(RulesError, match="neural:PATH"):
        simulate(1, bots="neural:")


def test_a_file_must_fit_the_game_it_names() -> None:
    head = SHIPPED["head"].to_bytes()
    assert NeuralPolicy.from_bytes(with_manifest(head, seed="3")).metadata["seed"] == "3"
    with pytest.raises(PolicyError, match='action-values policy cannot play "spin"'):
        NeuralPolicy.from_bytes(with_manifest(head, game="spin"))
    with pytest.raises(PolicyError, match="the games are"):
        NeuralPolicy.from_bytes(with_manifest(head, game="chess"))
    with pytest.raises(PolicyError, match="observation layout"):
        NeuralPolicy.from_bytes(with_manifest(head, observation_layout="head-observation/0"))


def test_a_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "p.safetensors"
    path.write_bytes(SHIPPED["head"].to_bytes())
    assert NeuralPolicy.load(path).game == "head"
    path.write_bytes(SHIPPED["spin"].to_bytes())  # another size: a new stamp
    assert NeuralPolicy.load(path).game == "spin"
    with pytest.raises(PolicyError, match='not "head"'):
        simulate(1, game="head", bots=f"neural:{path}")


def test_evaluate_checks_its_inputs() -> None:
    policy = SHIPPED["head"]
    with pytest.raises(TypeError, match="2-D float32"):
        policy.evaluate(np.zeros((2, 96)))  # float64
    with pytest.raises(TypeError, match="2-D float32"):
        policy.evaluate(np.zeros(96, np.float32))
    with pytest.raises(TypeError, match="2-D float32"):
        policy.evaluate([[0.0] * 96])  # type: ignore[arg-type]
    with pytest.raises(ArgumentError, match="96"):
        policy.evaluate(np.zeros((2, 95), np.float32))
    assert policy.evaluate(np.zeros((0, 96), np.float32)).shape == (0, 24)


def test_a_policy_pickles_and_shows_itself() -> None:
    for policy in SHIPPED.values():
        back = pickle.loads(pickle.dumps(policy))
        assert back.sha256 == policy.sha256 and back.metadata == policy.metadata
    assert 'NeuralPolicy(game="head"' in repr(SHIPPED["head"])
    with pytest.raises(PolicyError, match="no policy ships"):
        NeuralPolicy.shipped("chess")
    assert "neural" in panda_core.BOT_NAMES


# ---- the vector env -------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_bot_moves_in_every_env_are_the_bots_decisions(game: str) -> None:
    env = spec(game).new_vector_env(24, players=3, threads=2)
    _, _, player = env.reset(seed=5)
    for _ in range(30):
        neural = env.bot_moves("neural")
        random = env.bot_moves("random", seed=9)
        for i in (0, 7, 23):
            copy = env.game(i)
            legal = copy.legal_moves()
            assert legal[int(neural[i])] == copy.bot_move("neural")
            assert legal[int(random[i])] == copy.bot_move("random", seed=nth_output(9, i))
        # Half the envs by the policy, half at random: one step, every env moved.
        mixed = np.where(player % 2 == 0, neural, random)
        _, _, _, _, player = env.step_moves(mixed)
    search = env.bot_moves("ismcts:5", seed=1)
    assert all(0 <= int(m) < len(env.game(i).legal_moves()) for i, m in enumerate(search))


def test_bot_moves_refuse_what_cannot_play(year_file: Path) -> None:
    env = spec("spin").new_vector_env(4)
    env.reset(seed=1)
    with pytest.raises(PolicyError, match='not "spin"'):
        env.bot_moves(f"neural:{year_file}")
    with pytest.raises(RulesError, match="unknown bot"):
        env.bot_moves("nobody")
    with pytest.raises(TypeError):
        env.bot_moves(3)  # type: ignore[arg-type]


def test_an_arena_folder_knows_which_policy_it_rated(tmp_path: Path) -> None:
    path = tmp_path / "mine.safetensors"
    path.write_bytes(SHIPPED["head"].to_bytes())
    out = tmp_path / "arena"
    first = arena([f"neural:{path}", "heuristic"], game="head", players=2, deals=2, out=out)
    assert first.complete
    entrant = first.settings.entrants[0]
    assert entrant.policy == SHIPPED["head"].sha256
    assert arena([f"neural:{path}", "heuristic"], game="head", players=2, deals=2, out=out).complete
    # Another policy under the same name is another arena: the folder refuses it.
    head = SHIPPED["head"].to_bytes()
    retrained = bytearray(head)
    retrained[-4:] = struct.pack("<f", 0.125)  # another last bias: other weights, a new hash
    path.write_bytes(with_manifest(bytes(retrained), sha256=sha256_of_weights(bytes(retrained))))
    with pytest.raises(ArenaError, match="entrants"):
        arena([f"neural:{path}", "heuristic"], game="head", players=2, deals=2, out=out)


def test_the_arena_command_takes_entrants_one_per_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from panda_core.cli import main

    policy = tmp_path / "mine.safetensors"
    policy.write_bytes(SHIPPED["year"].to_bytes())
    argv = ["arena", "--game", "year", "-e", f"mine=neural:{policy}", "-e", "neural"]
    argv += ["-e", "heuristic,random", "--deals", "1", "--json", "-q", "--out", str(tmp_path / "a")]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    labels = [row["entrant"] for row in report["standings"]]
    assert sorted(labels) == ["heuristic", "mine", "neural", "random"]
