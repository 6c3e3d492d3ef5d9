"""Self-play datasets (``panda_core.selfplay``, ``panda-core selfplay``): the columns, every row
against a replay of its episode through the engine, the same dataset for any shard size, worker
count and backend, resuming, bounded row groups, failing bots, bad arguments, the CLI and the
loader example. Every game is tested."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import panda_core
from panda_core._core import ArgumentError, HeadRules, PandaCoreError, RulesError, nth_output
from panda_core._registry import GAMES, spec
from panda_core.bot_import import BotImportError
from panda_core.bots import reset_bots
from panda_core.cli import main
from panda_core.selfplay import (
    FORMAT_VERSION,
    MANIFEST,
    SelfPlayError,
    iter_batches,
    load,
    selfplay,
)

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "python"

BOTS = ["heuristic", "random", "heuristic"]


def _env() -> dict[str, str]:
    """A child process that imports the panda_core under test and this file's bots: the
    source tree's only when that is the one under test (not an installed wheel's)."""
    paths = [str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")]
    if Path(panda_core.__file__).resolve().is_relative_to(SOURCE.resolve()):
        paths.insert(0, str(SOURCE))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}


def _resign(shard: Path) -> None:
    """Record ``shard``'s current size and sha256 in its checksum file (as if written so)."""
    checksum = shard.parent / f"_{shard.stem}.json"
    document = json.loads(checksum.read_text())
    document["bytes"] = shard.stat().st_size
    document["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    checksum.write_text(json.dumps(document))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("part-*.parquet"))}


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small dataset of each game: 3 players, mixed bots, 5 episodes in shards of 2; the
    climbing games also with move features (``"year+features"``)."""
    out = {}
    for game in GAMES:
        for features in (False, True) if spec(game).move_features else (False,):
            name = f"{game}+features" if features else game
            folder = tmp_path_factory.mktemp(f"selfplay-{name}")
            selfplay(
                folder, game=game, players=3, bots=BOTS, episodes=5, seed=11, shard_episodes=2,
                workers=0, move_features=features,
            )  # fmt: skip
            out[name] = folder
    return out


CASES = [g for g in GAMES] + [f"{g}+features" for g in GAMES if spec(g).move_features]
"""Every game's dataset, and those with move features."""


# ---- what is written --------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_the_columns_and_their_types(datasets: dict[str, Path], case: str) -> None:
    game, features = case.split("+")[0], case.endswith("+features")
    g = spec(game)
    table = load(datasets[case]).to_table()
    types = {f.name: f.type for f in table.schema}
    assert types["game"] == pa.dictionary(pa.int8(), pa.string())
    assert types["episode"] == pa.int64() and types["step"] == pa.int32()
    assert types["deal"] == pa.uint64() and types["seat"] == pa.int8()
    assert types["observation_index"].value_type == pa.int16()
    assert types["observation_value"].value_type == pa.float32()
    assert types["legal_actions"].value_type == pa.int16()
    assert "observation" not in types and "legal_mask" not in types, "stored sparse"
    assert types["action"] == pa.int32() and types["final_score"] == pa.int32()
    assert types["reward"] == pa.float32() and types["outcome"] == pa.float32()
    assert types["place"] == pa.int8()
    if g.move_features:
        assert types["move_index"] == pa.int32()
    else:
        assert "move_index" not in types
    if features:
        assert types["move_features"].value_type.list_size == g.move_features
    else:
        assert "move_features" not in types
    assert set(table.column("game").to_pylist()) == {game}
    assert sorted(set(table.column("episode").to_pylist())) == [0, 1, 2, 3, 4]

    batch = next(iter_batches(datasets[case], batch_size=50))
    assert ("move_features" in batch) == features
    assert "legal_actions" not in batch and "observation_index" not in batch, "only if named"
    assert batch["observation"].shape == (50, g.observation_size)
    assert batch["observation"].dtype == np.float32
    assert batch["legal_mask"].shape == (50, g.num_actions)
    assert batch["legal_mask"].dtype == np.bool_
    assert batch["action"].shape == (50,) and batch["seat"].dtype == np.int8
    if features:
        offsets = batch["move_features_offsets"]
        assert offsets.shape == (51,) and offsets[0] == 0
        assert batch["move_features"].shape == (offsets[-1], g.move_features)


@pytest.mark.parametrize("game", GAMES)
def test_the_settings_are_in_every_file_and_in_the_manifest(
    datasets: dict[str, Path], game: str
) -> None:
    manifest = json.loads((datasets[game] / MANIFEST).read_text())
    assert manifest["format_version"] == FORMAT_VERSION
    assert manifest["game"] == game and manifest["players"] == 3 and manifest["seed"] == 11
    assert manifest["bots"] == BOTS
    assert manifest["rules"] == spec(game).rules_dict(None)
    assert manifest["panda_core_version"] == panda_core.__version__
    assert [s["episodes"] for s in manifest["shards"]] == [[0, 2], [2, 4], [4, 5]]
    assert manifest["decisions"] == load(datasets[game]).count_rows()
    assert [c["name"] for c in manifest["schema"]] == load(datasets[game]).schema.names
    for shard in manifest["shards"]:
        meta = pq.read_schema(datasets[game] / shard["file"]).metadata
        settings = json.loads(meta[b"panda_core.selfplay"])
        assert settings["episodes"] == shard["episodes"]
        assert settings["num_actions"] == spec(game).num_actions
        assert settings["move_features"] is False


def test_any_parquet_reader_takes_the_folder(datasets: dict[str, Path]) -> None:
    """Nothing but the shards looks like data: the manifest's name starts with "_"."""
    import pyarrow.dataset as pads

    plain = pads.dataset(datasets["spin"], format="parquet").to_table()
    assert plain.equals(load(datasets["spin"]).to_table())


@pytest.mark.parametrize("case", CASES)
def test_every_row_matches_a_replay_of_its_episode(datasets: dict[str, Path], case: str) -> None:
    game, features = case.split("+")[0], case.endswith("+features")
    g = spec(game)
    rows = load(datasets[case]).to_table().to_pylist()
    # The dense arrays as the reader rebuilds them, row for row.
    dense = list(iter_batches(datasets[case], columns=["observation", "legal_mask"]))
    for i, (obs, mask) in enumerate(
        zip(
            np.concatenate([b["observation"] for b in dense]),
            np.concatenate([b["legal_mask"] for b in dense]),
            strict=True,
        )
    ):
        rows[i]["observation"], rows[i]["legal_mask"] = obs, mask
    by_episode: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_episode.setdefault(row["episode"], []).append(row)
    assert sorted(by_episode) == [0, 1, 2, 3, 4]
    for episode, steps in by_episode.items():
        assert [r["step"] for r in steps] == list(range(len(steps)))
        deal = nth_output(11, episode)
        replay = panda_core.make(game, players=3, seed=deal)
        for r in steps:
            assert r["deal"] == deal
            seat = replay.current_player
            assert r["seat"] == seat
            assert np.array_equal(
                np.asarray(r["observation"], np.float32), replay.observation(seat)
            )
            assert r["observation"].dtype == np.float32
            assert r["legal_actions"] == list(replay.legal_actions()), "in the game's order"
            mask = r["legal_mask"]
            assert mask.dtype == np.bool_
            assert np.array_equal(mask, replay.legal_action_mask())
            assert mask[r["action"]], "the action is legal under the mask"
            if features:
                rows_of_moves = np.asarray(r["move_features"], np.float32)
                assert np.array_equal(rows_of_moves, g.legal_move_features(replay))
            if g.move_features:
                move = replay.legal_moves()[r["move_index"]]
                assert replay.action_index(move) == r["action"]
                replay.apply(move)  # the exact move: an action id names a class of moves
            else:
                replay.apply(r["action"])
        assert replay.is_over, "the episode's rows reach the end of the game"
        winner = replay.winner
        assert winner is not None
        places = g.placements(winner, replay.scores, g.left_of(replay))
        for r in steps:
            assert r["final_score"] == replay.scores[r["seat"]]
            assert r["outcome"] == (1.0 if r["seat"] == winner else -1.0)
            assert r["place"] == places[r["seat"]]
        assert [r["reward"] for r in steps[:-1]] == [0.0] * (len(steps) - 1)
        assert steps[-1]["reward"] == steps[-1]["outcome"]


# ---- the same dataset however it is made -------------------------------------------------------


def test_the_dataset_does_not_depend_on_the_shard_size(tmp_path: Path) -> None:
    bots = ["test_selfplay:FirstLegal", "heuristic", "random", "heuristic"]
    kwargs: dict[str, Any] = dict(game="year", players=4, bots=bots, episodes=5, seed=3, workers=0)
    selfplay(tmp_path / "a", shard_episodes=1, **kwargs)
    selfplay(tmp_path / "b", shard_episodes=3, **kwargs)
    selfplay(tmp_path / "c", shard_episodes=100, **kwargs)
    a, b, c = (load(tmp_path / x).to_table() for x in "abc")
    assert a.num_rows > 0
    assert a.equals(b) and a.equals(c)


class FirstLegal:
    """A Python bot class (named by import path: a new one for every episode)."""

    def __init__(self) -> None:
        self.moves = 0

    def __call__(self, game: Any, player: int) -> int:
        self.moves += 1  # state that must not leak into the next episode
        return int(game.legal_actions()[self.moves % len(game.legal_actions())])


@pytest.mark.slow
def test_the_files_do_not_depend_on_the_worker_count(tmp_path: Path) -> None:
    bots = ["test_selfplay:FirstLegal", "heuristic", FailingBot(bad=10**6)]  # never fails
    kwargs: dict[str, Any] = dict(
        game="head", players=3, bots=bots, episodes=6, seed=5, shard_episodes=2
    )
    infos = [selfplay(tmp_path / f"w{w}", workers=w, **kwargs) for w in (0, 1, 2)]
    files = [_files(tmp_path / f"w{w}") for w in (0, 1, 2)]
    assert len(files[0]) == 3
    assert files[0] == files[1] == files[2]
    assert len({i.decisions for i in infos}) == 1


@pytest.mark.slow
def test_on_ray_the_files_are_those_of_a_local_run(tmp_path: Path, ray_address: str) -> None:
    kwargs: dict[str, Any] = dict(game="spin", players=3, episodes=4, seed=9, shard_episodes=2)
    selfplay(tmp_path / "here", workers=0, **kwargs)
    selfplay(tmp_path / "ray", backend="ray", address=ray_address, **kwargs)
    assert _files(tmp_path / "here") == _files(tmp_path / "ray")


# ---- resuming, bounded memory ------------------------------------------------------------------


def test_a_rerun_writes_only_the_missing_shards(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = dict(game="head", players=4, episodes=5, seed=1, shard_episodes=2)
    selfplay(tmp_path, workers=0, **kwargs)
    before = _files(tmp_path)
    stamps = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("part-*")}
    (tmp_path / "part-00001.parquet").unlink()
    (tmp_path / MANIFEST).unlink()
    (tmp_path / ".part-00002.parquet.tmp").write_bytes(b"left by an interrupted run")
    written: list[tuple[int, int]] = []
    info = selfplay(tmp_path, workers=0, progress=lambda d, t: written.append((d, t)), **kwargs)
    assert info.skipped == 2 and len(info.shards) == 3
    assert written == [(3, 5), (5, 5)], "the kept shards count as done from the start"
    assert _files(tmp_path) == before
    for name in ("part-00000.parquet", "part-00002.parquet"):
        assert (tmp_path / name).stat().st_mtime_ns == stamps[name], f"{name} was rewritten"
    assert (tmp_path / MANIFEST).exists()
    assert not list(tmp_path.glob(".*")), "what an interrupted run left is cleared"


def test_a_longer_run_reuses_the_shards_of_a_shorter_one(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = dict(game="head", players=2, seed=4, shard_episodes=2, workers=0)
    selfplay(tmp_path / "short", episodes=3, **kwargs)
    info = selfplay(tmp_path / "short", episodes=6, **kwargs)
    assert info.skipped == 1, "shard 1 held episodes 2-2 only: written again as 2-3"
    selfplay(tmp_path / "long", episodes=6, **kwargs)
    assert load(tmp_path / "short").to_table().equals(load(tmp_path / "long").to_table())


def test_another_dataset_in_the_folder_is_refused(tmp_path: Path) -> None:
    selfplay(tmp_path, game="head", episodes=2, workers=0)
    with pytest.raises(ArgumentError, match="another dataset"):
        selfplay(tmp_path, game="head", episodes=2, seed=1, workers=0)


def test_resuming_with_another_move_features_choice_is_refused(tmp_path: Path) -> None:
    kwargs: dict[str, Any] = dict(game="spin", players=2, episodes=2, workers=0)
    selfplay(tmp_path, **kwargs)
    with pytest.raises(ArgumentError, match="written without move features"):
        selfplay(tmp_path, move_features=True, **kwargs)
    selfplay(tmp_path / "f", move_features=True, **kwargs)
    with pytest.raises(ArgumentError, match=r"with move features: .*move_features=True"):
        selfplay(tmp_path / "f", **kwargs)


def test_resuming_a_folder_of_another_format_version_is_refused(tmp_path: Path) -> None:
    selfplay(tmp_path, game="head", players=2, episodes=1, workers=0)
    shard = tmp_path / "part-00000.parquet"
    table = pq.read_table(shard)
    settings = json.loads(table.schema.metadata[b"panda_core.selfplay"])
    settings["format_version"] = FORMAT_VERSION - 1
    pq.write_table(
        table.replace_schema_metadata({b"panda_core.selfplay": json.dumps(settings)}), shard
    )
    _resign(shard)  # a consistent shard of that version, not a damaged one
    with pytest.raises(ArgumentError, match=f"format version {FORMAT_VERSION - 1}"):
        selfplay(tmp_path, game="head", players=2, episodes=1, workers=0)


def test_move_features_are_for_games_that_have_them(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="head has no move features"):
        selfplay(tmp_path, game="head", episodes=1, workers=0, move_features=True)
    with pytest.raises(TypeError, match="move_features"):
        selfplay(tmp_path, game="year", episodes=1, workers=0, move_features="yes")


def test_row_groups_hold_at_most_the_configured_decisions(tmp_path: Path) -> None:
    info = selfplay(
        tmp_path, game="year", players=3, episodes=4, shard_episodes=4, row_group_decisions=100,
        workers=0,
    )  # fmt: skip
    meta = pq.read_metadata(tmp_path / "part-00000.parquet")
    sizes = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert sum(sizes) == info.decisions > 300
    assert sizes[:-1] == [100] * (len(sizes) - 1) and 0 < sizes[-1] <= 100


def test_the_writer_buffers_at_most_a_row_group_and_an_episode(tmp_path: Path) -> None:
    import pyarrow.fs as pafs

    from panda_core.selfplay.episodes import SeatBots, play_episode
    from panda_core.selfplay.schema import schema
    from panda_core.selfplay.writer import ShardWriter

    g = spec("spin")
    table_schema = schema(g, {"format": "test"})
    writer = ShardWriter(pafs.LocalFileSystem(), str(tmp_path), 0, table_schema, 64)
    bots = SeatBots(["random"] * 3)
    added = 0
    for e in range(3):
        ep = play_episode(g, 3, g.rules(), bots, e, nth_output(0, e))
        writer.add_episode("spin", ep)
        added += ep.decisions
        assert 0 <= added - writer.decisions < 64, "whole row groups are written as they fill"
    assert writer.close() > 0 and writer.decisions == added
    assert pq.read_metadata(tmp_path / "part-00000.parquet").num_rows == added


# ---- bots that fail ----------------------------------------------------------------------------


class SeedProbe:
    seed = -1

    def reset(self, seed: int) -> None:
        self.seed = seed


def reset_seed(deal: int) -> int:
    """The seed seat 0's bot is reset with in the game dealt from ``deal``."""
    probe = SeedProbe()
    reset_bots([probe], deal)
    return probe.seed


class FailingBot:
    """Plays the lowest legal action, and raises a few moves into episode ``bad`` (seed 0)."""

    name = "failing"

    def __init__(self, bad: int) -> None:
        self.bad_seed = reset_seed(nth_output(0, bad))
        self.seed = -1

    def reset(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, game: Any, player: int) -> int:
        if self.seed == self.bad_seed and len(game.history) > 3:
            raise RuntimeError("the bot broke down")
        return int(game.legal_actions()[0])


class DyingBot(FailingBot):
    """Kills its worker process in episode ``bad`` instead of raising."""

    name = "dying"

    def __call__(self, game: Any, player: int) -> int:
        if self.seed == self.bad_seed:
            os._exit(3)
        return int(game.legal_actions()[0])


class BrokenInit:
    def __init__(self) -> None:
        raise OSError("no model file")


def illegal_bot(game: Any, player: int) -> str:
    return "not a move"


@pytest.mark.parametrize("workers", [0, pytest.param(2, marks=pytest.mark.slow)])
def test_a_failing_bot_fails_its_shard_only(tmp_path: Path, workers: int) -> None:
    bot = FailingBot(bad=3)
    with pytest.raises(SelfPlayError) as caught:
        selfplay(
            tmp_path, game="spin", players=2, bots=[bot, "heuristic"], episodes=6,
            shard_episodes=2, workers=workers,
        )  # fmt: skip
    message = str(caught.value)
    assert "1 of 3 shards failed" in message
    assert "shard 1 (episodes 2-3)" in message
    assert "episode 3" in message and "seat 0 (failing)" in message
    assert "RuntimeError: the bot broke down" in message
    assert [f.shard for f in caught.value.failures] == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "_part-00000.json",
        "_part-00002.json",
        "part-00000.parquet",
        "part-00002.parquet",
    ], "the other shards are written (each with its checksum), no temporary file, no manifest"


def test_a_bot_that_cannot_be_created_fails_the_shards(tmp_path: Path) -> None:
    with pytest.raises(SelfPlayError, match="2 of 2 shards failed") as caught:
        selfplay(tmp_path, bots="test_selfplay:BrokenInit", episodes=2, shard_episodes=1,
                 workers=0)  # fmt: skip
    assert "episode 1 (deal" in str(caught.value)
    assert "the bots could not be set up" in str(caught.value)
    assert "no model file" in str(caught.value)


@pytest.mark.slow
def test_a_dead_worker_fails_its_shard_only(tmp_path: Path) -> None:
    with pytest.raises(SelfPlayError) as caught:
        selfplay(
            tmp_path, game="head", players=2, bots=[DyingBot(bad=0), "random"], episodes=4,
            shard_episodes=2, workers=2,
        )  # fmt: skip
    assert "1 of 2 shards failed" in str(caught.value)
    assert "shard 0 (episodes 0-1): dead worker" in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_part-00001.json", "part-00001.parquet"]


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_move_fails_its_shard_with_the_move(tmp_path: Path, game: str) -> None:
    with pytest.raises(SelfPlayError, match=r"illegal move 'not a move'") as caught:
        selfplay(tmp_path, game=game, players=2, bots=[illegal_bot, "random"], episodes=1,
                 workers=0)  # fmt: skip
    assert "seat 0 (illegal_bot)" in str(caught.value)


def test_bots_answer_with_action_ids_moves_or_notations(tmp_path: Path) -> None:
    """Every kind of answer is recorded as the move it stands for."""

    def by_notation(game: Any, player: int) -> str:
        return str(game.legal_moves()[-1].notation)

    def by_object(game: Any, player: int) -> Any:
        return game.legal_moves()[-1]

    def by_id(game: Any, player: int) -> np.int64:
        return np.int64(game.legal_actions()[-1])

    tables = []
    for answer in (by_notation, by_object):
        selfplay(tmp_path / answer.__name__, game="year", players=2, bots=answer, episodes=1,
                 workers=0)  # fmt: skip
        tables.append(load(tmp_path / answer.__name__).to_table())
    assert tables[0].equals(tables[1])
    selfplay(tmp_path / "id", game="head", players=2, bots=by_id, episodes=1, workers=0)
    head = load(tmp_path / "id").to_table()
    assert head.num_rows > 0


# ---- bad arguments -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"game": "chess"}, RulesError, "unknown game"),
        ({"players": 7}, PandaCoreError, "7"),
        ({"players": "4"}, TypeError, "players"),
        ({"bots": ["heuristic", "random"]}, ArgumentError, "one per seat"),
        ({"bots": 42}, TypeError, "bot"),
        ({"bots": "grandmaster"}, ArgumentError, "unknown bot 'grandmaster'"),
        ({"bots": "no_such_module_xyz:Bot"}, BotImportError, "no_such_module_xyz"),
        ({"episodes": -1}, ArgumentError, "episodes must be >= 0"),
        ({"episodes": 2.5}, TypeError, "episodes"),
        ({"seed": -1}, PandaCoreError, "seed"),
        ({"shard_episodes": 0}, ArgumentError, "shard_episodes must be >= 1"),
        ({"row_group_decisions": 0}, ArgumentError, "row_group_decisions"),
        ({"rules": HeadRules(), "game": "year"}, RulesError, "ClimbSettings"),
        ({"rules": {"bust_threshold": -3}}, PandaCoreError, "bust_threshold"),
        ({"backend": "cloud"}, ArgumentError, "unknown backend"),
        ({"progress": 3}, TypeError, "progress"),
    ],
)
def test_bad_arguments_are_refused_with_a_message(
    tmp_path: Path, kwargs: dict[str, Any], error: type[Exception], words: str
) -> None:
    args: dict[str, Any] = {"episodes": 1, "workers": 0, **kwargs}
    if kwargs.get("backend"):
        args.pop("workers")
    with pytest.raises(error, match=words):
        selfplay(tmp_path / "out", **args)
    assert not list((tmp_path).glob("out/part-*")), "nothing is written"


def test_out_must_be_a_path(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="out must be a folder path"):
        selfplay(3, episodes=1)  # type: ignore[arg-type]


def test_a_bot_that_does_not_pickle_needs_workers_0(tmp_path: Path) -> None:
    def local_bot(game: Any, player: int) -> int:  # a closure: no pickle
        return int(game.legal_actions()[0])

    with pytest.raises(TypeError, match=r"does not pickle.*workers=0"):
        selfplay(tmp_path, bots=local_bot, episodes=1, workers=2)
    info = selfplay(tmp_path, bots=local_bot, players=2, episodes=1, workers=0)
    assert info.decisions > 0


def test_the_loader_refuses_what_is_no_dataset(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="nothing there"):
        load(tmp_path / "missing")
    with pytest.raises(ArgumentError, match="no self-play shards"):
        load(tmp_path)
    pq.write_table(pa.table({"x": [1]}), tmp_path / "part-00000.parquet")
    with pytest.raises(ArgumentError, match=r"has no checksum file _part-00000\.json"):
        load(tmp_path)
    with pytest.raises(ArgumentError, match="not a self-play shard"):
        load(tmp_path, verify=False)
    with pytest.raises(TypeError):
        load(5)  # type: ignore[arg-type]


def test_iter_batches_checks_its_arguments(datasets: dict[str, Path]) -> None:
    with pytest.raises(ArgumentError, match="unknown columns"):
        next(iter_batches(datasets["head"], columns=["observation", "nope"]))
    with pytest.raises(TypeError, match="columns"):
        next(iter_batches(datasets["head"], columns="observation"))
    with pytest.raises(ArgumentError, match="batch_size"):
        next(iter_batches(datasets["head"], batch_size=0))
    picked = next(iter_batches(datasets["head"], columns=["action", "outcome"]))
    assert sorted(picked) == ["action", "outcome"]
    with pytest.raises(ArgumentError, match="written without move features"):
        next(iter_batches(datasets["year"], columns=["move_features"]))


def test_iter_batches_gives_every_row_once(datasets: dict[str, Path]) -> None:
    folder = datasets["year+features"]
    whole = load(folder).to_table()
    batches = list(iter_batches(folder, batch_size=97))
    actions = np.concatenate([b["action"] for b in batches])
    assert np.array_equal(actions, whole.column("action").to_numpy())
    # The dense arrays of each batch are rebuilt from that batch's rows (batches slice files).
    observations = np.concatenate([b["observation"] for b in batches])
    assert observations.shape == (len(actions), spec("year").observation_size)
    index, values = whole.column("observation_index"), whole.column("observation_value")
    for i, (where, what) in enumerate(zip(index.to_pylist(), values.to_pylist(), strict=True)):
        assert np.flatnonzero(observations[i]).tolist() == where
        assert observations[i][where].tolist() == what
    masks = np.concatenate([b["legal_mask"] for b in batches])
    legal = whole.column("legal_actions").to_pylist()
    assert [np.flatnonzero(m).tolist() for m in masks] == [sorted(a) for a in legal]
    raw = list(iter_batches(folder, columns=["legal_actions"], batch_size=97))
    assert sorted(raw[0]) == ["legal_actions", "legal_actions_offsets"]
    ids = np.concatenate([b["legal_actions"] for b in raw])
    assert ids.dtype == np.int16 and ids.tolist() == [a for row in legal for a in row]
    # The move-feature rows of a batch are those of its decisions (batches slice the files).
    rows = np.concatenate([b["move_features"] for b in batches])
    counts = np.concatenate([np.diff(b["move_features_offsets"]) for b in batches])
    assert rows.shape[0] == counts.sum()
    assert counts.tolist() == [len(r) for r in whole.column("move_features").to_pylist()]


# ---- the command line --------------------------------------------------------------------------


def test_the_cli_writes_a_dataset_and_prints_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--game", "year", "--players", "3", "--bots", "heuristic,random",
            "--episodes", "3", "--shard-episodes", "2", "--seed", "7", "--workers", "0",
            "--panda-mood", "flip", "--out", str(tmp_path)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "episodes: 3" in out and "files: 2" in out and "bytes:" in out and "seconds:" in out
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert manifest["bots"] == ["heuristic", "random", "heuristic"]
    assert manifest["rules"]["panda_mood"] == "flip"
    assert f"decisions: {manifest['decisions']}" in out
    assert main(argv) == 0
    assert "(2 already there)" in capsys.readouterr().out
    assert manifest["move_features"] is False
    assert main([*argv[:-1], str(tmp_path / "f"), "--move-features"]) == 0
    assert "move_features" in load(tmp_path / "f").schema.names


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--game", "head", "--panda-mood", "flip"], "--panda-mood applies to --game year"),
        (["--players", "9"], "players"),
        (["--bots", "heuristic,random,random,random,random"], "at most one per seat"),
        (["--bots", "grandmaster"], "unknown bot"),
        (["--address", "1.2.3.4:6379"], "--address applies to --backend ray"),
        (["--backend", "ray", "--workers", "2"], "--workers does not apply"),
        (["--game", "head", "--move-features"], "head has no move features"),
    ],
)
def test_the_cli_refuses_bad_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    assert main(["selfplay", "--episodes", "1", "--out", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error: ") and words in err


def test_the_cli_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["selfplay", "--episodes", "many", "--out", str(tmp_path)])
    assert caught.value.code == 2
    with pytest.raises(SystemExit):
        main(["selfplay", "--episodes", "1"])  # no --out
    assert "--out" in capsys.readouterr().err


def test_the_cli_reports_a_failing_shard_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["selfplay", "--game", "head", "--players", "2", "--episodes", "2", "--workers", "0",
            "--bots", "test_selfplay:illegal_bot,random", "--out", str(tmp_path / "d")]  # fmt: skip
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        assert main(argv) == 1
    finally:
        sys.path.remove(str(Path(__file__).parent))
    err = capsys.readouterr().err
    assert err.startswith("panda-core: error: 1 of 1 shards failed")
    assert "illegal move" in err


@pytest.mark.parametrize("workers", ["0", pytest.param("2", marks=pytest.mark.slow)])
def test_ctrl_c_keeps_the_finished_shards_and_exits_130(tmp_path: Path, workers: str) -> None:
    out = tmp_path / "d"
    cmd = [sys.executable, "-m", "panda_core.cli", "selfplay", "--game", "head", "--episodes",
           "400000", "--shard-episodes", "5", "--workers", workers, "--out", str(out)]  # fmt: skip
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("part-00001.parquet")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 130, err
    assert b"interrupted after" in err and b"Traceback" not in err
    assert not list(out.glob(".*.tmp")), "the shards being written are dropped"
    kept = sorted(out.glob("part-*.parquet"))
    assert len(kept) >= 2
    for path in kept:
        assert pq.read_metadata(path).num_rows > 0, "every kept shard is complete"


# ---- the example -------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_loader_example_runs(tmp_path: Path) -> None:
    example = ROOT / "examples" / "load_selfplay.py"
    done = subprocess.run(
        [sys.executable, str(example), str(tmp_path / "data")],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"choice: ([\d.]+)% \(random: ([\d.]+)%\)", done.stdout)
    assert found, done.stdout
    accuracy, chance = float(found[1]), float(found[2])
    assert accuracy > chance + 20, done.stdout  # the heuristic bot is learnable


def test_out_may_be_a_uri(tmp_path: Path) -> None:
    """What pyarrow's filesystems understand (``file://`` here; ``s3://`` on a cluster)."""
    uri = (tmp_path / "d").as_uri()
    info = selfplay(uri, game="spin", players=2, episodes=3, shard_episodes=2, workers=0)
    assert info.files == [f"{uri}/part-00000.parquet", f"{uri}/part-00001.parquet"]
    assert load(uri).count_rows() == info.decisions == load(tmp_path / "d").count_rows()
    assert selfplay(uri, game="spin", players=2, episodes=3, shard_episodes=2).skipped == 2
