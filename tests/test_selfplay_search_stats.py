"""Self-play datasets with the search bots' root statistics (``selfplay(..., search_stats=True)``,
``panda-core selfplay --search-stats``): the two columns, one entry per legal move (the
``move_features`` rows in the climbing games, ``legal_actions`` in Panda Head), from
the one search that made each decision (the same moves as without), the settings that record
them, and the reader's checks of damaged files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from panda_core import make
from panda_core._core import ArgumentError, nth_output
from panda_core._registry import GAMES, spec
from panda_core.bots import BuiltinBot, reset_bots
from panda_core.cli import main
from panda_core.selfplay import DatasetError, iter_batches, load, selfplay
from panda_core.selfplay.episodes import best_stat

# Seat 1 does not search: its rows carry no statistics.
BOTS = ["ismcts:12", "heuristic", "ismcts:12"]


def _make(folder: Path, game: str, search_stats: bool, **kw: Any) -> None:
    selfplay(
        folder, game=game, players=3, bots=kw.pop("bots", BOTS), episodes=kw.pop("episodes", 2),
        seed=5, shard_episodes=kw.pop("shard_episodes", 1), workers=0,
        search_stats=search_stats, move_features=kw.pop("move_features", _features(game)), **kw,
    )  # fmt: skip


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Path]:
    out = {}
    for game in GAMES:
        for flag in (False, True):
            folder = tmp_path_factory.mktemp(f"search-{game}-{flag}")
            _make(folder, game, flag)
            out[game, flag] = folder
    return out


def _features(game: str) -> bool:
    """Move features where the game has them: a climbing game's search statistics need them."""
    return bool(spec(game).move_features)


def _moves(row: dict[str, Any]) -> int:
    """The legal moves of a row: its move-feature rows, or its legal actions (Panda Head)."""
    return len(row["move_features"] if "move_features" in row else row["legal_actions"])


def _table(folder: Path) -> pa.Table:
    return load(folder).to_table()


@pytest.mark.parametrize("game", GAMES)
def test_the_columns_hold_each_search_decisions_stats(
    datasets: dict[tuple[str, bool], Path], game: str
) -> None:
    table = _table(datasets[game, True])
    field = table.schema.field("search_visits")
    assert field.type == pa.list_(pa.field("item", pa.int32(), nullable=False))
    assert not field.nullable
    values = table.schema.field("search_values")
    assert values.type == pa.list_(pa.field("item", pa.float32(), nullable=False))
    assert not values.nullable
    rows = table.to_pylist()
    searched = 0
    for row in rows:
        legal, visits, vals = row["legal_actions"], row["search_visits"], row["search_values"]
        if row["seat"] == 1:
            assert visits == [] and vals == []
            continue
        assert len(visits) == len(vals) == _moves(row)
        assert all(v >= 0 for v in visits) and all(-1 <= v <= 1 for v in vals)
        played = row["move_index"] if "move_features" in row else legal.index(row["action"])
        if _moves(row) > 1:
            searched += 1
            assert sum(visits) == 12
            assert visits[played] == max(visits)  # the move played is the most visited
        else:  # a forced move: not searched
            assert visits == [0] and vals == [0.0]
    assert searched > 10


@pytest.mark.parametrize("game", GAMES)
def test_the_moves_are_those_played_without_the_flag(
    datasets: dict[tuple[str, bool], Path], game: str
) -> None:
    plain = _table(datasets[game, False])
    stats = _table(datasets[game, True])
    assert "search_visits" not in plain.schema.names
    for name in plain.schema.names:
        assert stats.column(name).equals(plain.column(name)), name


@pytest.mark.parametrize("game", GAMES)
def test_every_row_is_the_search_a_replay_gives(
    datasets: dict[tuple[str, bool], Path], game: str
) -> None:
    """Replaying episode 0 with the bots' own seeds: each search row's statistics are
    ``search_stats`` of that position, in ``legal_moves()`` order, and its move their best."""
    rows = [r for r in _table(datasets[game, True]).to_pylist() if r["episode"] == 0]
    deal = nth_output(5, 0)
    bots = [BuiltinBot(name) for name in BOTS]
    reset_bots(bots, deal)
    g = make(game, players=3, seed=deal)
    for row in rows:
        seat = g.current_player
        assert row["seat"] == seat and row["legal_actions"] == g.legal_actions()
        if seat == 1:
            g.apply(bots[1](g, seat))
            continue
        stats = g.search_stats(BOTS[seat], bots[seat].next_seed())
        assert [m for m, _, _ in stats] == g.legal_moves()
        assert row["search_visits"] == [n for _, n, _ in stats]
        assert np.allclose(row["search_values"], [v for _, _, v in stats], atol=1e-6)
        best = stats[best_stat(stats)][0]
        assert g.action_index(best) == row["action"]
        if "move_index" in row:
            assert g.legal_moves()[row["move_index"]] == best
        g.apply(best)
    assert g.is_over


@pytest.mark.parametrize("game", [g for g in GAMES if spec(g).move_features])
def test_a_climbing_game_needs_move_features_for_its_statistics(tmp_path: Path, game: str) -> None:
    # One statistic per legal move, and the move features are what say which move each is.
    with pytest.raises(ArgumentError, match="needs move_features=True"):
        _make(tmp_path / "x", game, True, move_features=False)
    assert not (tmp_path / "x" / "_dataset.json").exists()


def test_the_settings_record_the_flag(datasets: dict[tuple[str, bool], Path]) -> None:
    for game in GAMES:
        manifest = json.loads((datasets[game, True] / "_dataset.json").read_text())
        assert manifest["search_stats"] is True
        assert [c["name"] for c in manifest["schema"]][-2:] == ["search_visits", "search_values"]
        meta = pq.read_schema(datasets[game, True] / "part-00000.parquet").metadata
        assert json.loads(meta[b"panda_core.selfplay"])["search_stats"] is True
        plain = json.loads((datasets[game, False] / "_dataset.json").read_text())
        assert "search_stats" not in plain  # files without the flag are as they were


def test_iter_batches_gives_the_columns_with_offsets(
    datasets: dict[tuple[str, bool], Path],
) -> None:
    batch = next(iter_batches(datasets["year", True]))
    assert batch["search_visits"].dtype == np.int32
    assert batch["search_values"].dtype == np.float32
    sizes = np.diff(batch["search_visits_offsets"])
    legal = np.diff(batch["legal_actions_offsets"]) if "legal_actions_offsets" in batch else None
    assert legal is None  # the sparse legal list is not given by default
    assert np.array_equal(sizes == 0, batch["seat"] == 1)
    only = next(iter_batches(datasets["year", True], columns=["search_values"]))
    assert set(only) == {"search_values", "search_values_offsets"}


def test_a_rerun_with_the_other_choice_is_refused(
    tmp_path: Path, datasets: dict[tuple[str, bool], Path]
) -> None:
    folder = tmp_path / "d"
    _make(folder, "head", True)
    with pytest.raises(DatasetError, match="with search statistics: resume it with"):
        _make(folder, "head", False)
    other = tmp_path / "e"
    _make(other, "head", False)
    with pytest.raises(DatasetError, match="without search statistics"):
        _make(other, "head", True)
    _make(folder, "head", True)  # the same choice resumes


def test_the_flag_must_be_a_bool(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="search_stats must be True or False"):
        _make(tmp_path / "x", "head", 1)  # type: ignore[arg-type]


def test_bots_that_never_search_write_empty_lists(tmp_path: Path) -> None:
    _make(tmp_path, "spin", True, bots=["heuristic", "random", "heuristic"], episodes=1)
    table = _table(tmp_path)
    assert all(v == [] for v in table.column("search_visits").to_pylist())
    assert all(v == [] for v in table.column("search_values").to_pylist())


def test_the_cli_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cli"
    code = main(
        ["selfplay", "--game", "head", "--players", "3", "--bots", "ismcts:8", "--episodes",
         "1", "--seed", "2", "--workers", "0", "--quiet", "--search-stats", "--out", str(out)]
    )  # fmt: skip
    assert code == 0, capsys.readouterr()
    table = _table(out)
    assert "search_visits" in table.schema.names
    assert any(sum(v) == 8 for v in table.column("search_visits").to_pylist())


# ---- damaged files: the reader refuses them -------------------------------------------------


def _rewrite(shard: Path, column: str, change: Any) -> None:
    """Rewrite ``column`` of ``shard`` as ``change(list of rows)`` gives it (same types, same
    metadata) and re-sign the shard, so only the reader's value checks can catch it."""
    table = pq.read_table(shard)
    rows = change(table.column(column).to_pylist())
    kind = table.schema.field(column).type
    table = table.set_column(
        table.schema.get_field_index(column), table.schema.field(column), pa.array(rows, kind)
    )
    pq.write_table(table, shard)
    checksum = shard.parent / f"_{shard.stem}.json"
    document = json.loads(checksum.read_text())
    document["bytes"] = shard.stat().st_size
    document["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    checksum.write_text(json.dumps(document))
    (shard.parent / "_dataset.json").unlink(missing_ok=True)  # its shard list is stale


def _first_searched(rows: list[list[Any]]) -> int:
    return next(i for i, r in enumerate(rows) if len(r) > 1)


def _set(i_of: Any, value: Any) -> Any:
    def change(rows: list[list[Any]]) -> list[list[Any]]:
        i = i_of(rows)
        rows[i] = value(rows[i])
        return rows

    return change


DAMAGE = {
    "short visits": ("search_visits", _set(_first_searched, lambda r: r[:-1])),
    "long values": ("search_values", _set(_first_searched, lambda r: [*r, 0.0])),
    "both short": (
        "search_visits",
        _set(_first_searched, lambda r: r[:-1]),
    ),
    "negative visits": ("search_visits", _set(_first_searched, lambda r: [-1, *r[1:]])),
    "huge visits": ("search_visits", _set(_first_searched, lambda r: [2**31 - 1, *r[1:]])),
    "nan value": ("search_values", _set(_first_searched, lambda r: [float("nan"), *r[1:]])),
    "huge value": ("search_values", _set(_first_searched, lambda r: [1e30, *r[1:]])),
    "infinite value": ("search_values", _set(_first_searched, lambda r: [float("-inf"), *r[1:]])),
    "value past 1": ("search_values", _set(_first_searched, lambda r: [1.5, *r[1:]])),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_statistics_are_refused(tmp_path: Path, case: str) -> None:
    _make(tmp_path, "head", True, episodes=1)
    column, change = DAMAGE[case]
    _rewrite(tmp_path / "part-00000.parquet", column, change)
    if case == "both short":  # both lists cut: same length, but not the legal actions'
        _rewrite(
            tmp_path / "part-00000.parquet", "search_values",
            _set(_first_searched, lambda r: r[:-1]),
        )  # fmt: skip
    with pytest.raises(DatasetError, match="damaged values"):
        for _ in iter_batches(tmp_path):
            pass
    with pytest.raises(DatasetError, match="damaged values"):  # asked for alone, still checked
        for _ in iter_batches(tmp_path, columns=["search_values"]):
            pass


def test_a_file_claiming_stats_without_the_columns_is_refused(tmp_path: Path) -> None:
    _make(tmp_path, "head", True, episodes=1)
    shard = tmp_path / "part-00000.parquet"
    table = pq.read_table(shard)
    meta = table.schema.metadata
    table = table.drop_columns(["search_visits", "search_values"]).replace_schema_metadata(meta)
    pq.write_table(table, shard)
    _rewrite_checksum(shard)
    with pytest.raises(DatasetError, match="columns are not those"):
        for _ in iter_batches(tmp_path):
            pass


def test_a_bad_search_stats_setting_is_refused(tmp_path: Path) -> None:
    _make(tmp_path, "head", True, episodes=1)
    shard = tmp_path / "part-00000.parquet"
    table = pq.read_table(shard)
    settings = json.loads(table.schema.metadata[b"panda_core.selfplay"])
    settings["search_stats"] = "yes"
    table = table.replace_schema_metadata({b"panda_core.selfplay": json.dumps(settings)})
    pq.write_table(table, shard)
    _rewrite_checksum(shard)
    with pytest.raises(DatasetError, match="search_stats is not true or false"):
        load(tmp_path)


def _rewrite_checksum(shard: Path) -> None:
    checksum = shard.parent / f"_{shard.stem}.json"
    document = json.loads(checksum.read_text())
    document["bytes"] = shard.stat().st_size
    document["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    checksum.write_text(json.dumps(document))
    manifest = shard.parent / "_dataset.json"
    if manifest.exists():
        manifest.unlink()


def test_the_guided_search_writes_its_stats_with_the_same_moves(tmp_path: Path) -> None:
    bots = ["ismcts+neural:8", "heuristic", "ismcts:8"]
    _make(tmp_path / "plain", "head", False, bots=bots, episodes=1)
    _make(tmp_path / "stats", "head", True, bots=bots, episodes=1)
    plain, stats = _table(tmp_path / "plain"), _table(tmp_path / "stats")
    assert stats.column("action").equals(plain.column("action"))
    rows = stats.to_pylist()
    guided = [r for r in rows if r["seat"] == 0 and len(r["legal_actions"]) > 1]
    assert guided and all(0 < sum(r["search_visits"]) <= 8 for r in guided)
    assert all(len(r["search_values"]) == len(r["legal_actions"]) for r in guided)


def test_statistics_per_action_class_instead_of_per_move_are_refused(tmp_path: Path) -> None:
    """A climbing row whose lists have one entry per legal action id (a class of moves) where
    it has more legal moves: not this format (one per move), refused."""
    _make(tmp_path, "year", True, episodes=1)
    shard = tmp_path / "part-00000.parquet"
    table = pq.read_table(shard).to_pylist()
    row = next(
        i for i, r in enumerate(table)
        if r["search_visits"] and len(r["move_features"]) > len(r["legal_actions"])
    )  # fmt: skip
    width = len(table[row]["legal_actions"])
    _rewrite(shard, "search_visits", _set(lambda _: row, lambda r: r[:width]))
    _rewrite(shard, "search_values", _set(lambda _: row, lambda r: r[:width]))
    with pytest.raises(DatasetError, match=r"search statistics for \d+ legal moves"):
        for _ in iter_batches(tmp_path, columns=["search_visits"]):
            pass
