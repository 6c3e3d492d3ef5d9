"""Self-play datasets with the search bots' root statistics (``selfplay(..., search_stats=True)``,
``panda-core selfplay --search-stats``): the two columns, aligned with ``legal_actions``, from
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
from panda_core._registry import GAMES
from panda_core.bots import BuiltinBot, reset_bots
from panda_core.cli import main
from panda_core.selfplay import DatasetError, iter_batches, load, selfplay
from panda_core.selfplay.episodes import best_stat, per_action

# Seat 1 does not search: its rows carry no statistics.
BOTS = ["ismcts:12", "heuristic", "ismcts:12"]


def _make(folder: Path, game: str, search_stats: bool, **kw: Any) -> None:
    selfplay(
        folder, game=game, players=3, bots=kw.pop("bots", BOTS), episodes=kw.pop("episodes", 2),
        seed=5, shard_episodes=kw.pop("shard_episodes", 1), workers=0,
        search_stats=search_stats, **kw,
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
        assert len(visits) == len(vals) == len(legal)
        assert all(v >= 0 for v in visits) and all(-1 <= v <= 1 for v in vals)
        if len(legal) > 1:
            searched += 1
            assert sum(visits) == 12
            if game == "head":  # one move per action: the move played is the most visited
                assert visits[legal.index(row["action"])] == max(visits)
        else:  # a forced move (not searched), or one action class of several moves
            assert visits in ([0], [12])
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
    ``search_stats`` of that position, in ``legal_actions`` order, and its action their best."""
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
        # Per action: its moves' visits summed, their values' visit-weighted mean.
        visits: dict[int, int] = {}
        sums: dict[int, float] = {}
        for m, n, v in stats:
            a = g.action_index(m)
            visits[a] = visits.get(a, 0) + n
            sums[a] = sums.get(a, 0.0) + n * v
        assert row["search_visits"] == [visits[a] for a in row["legal_actions"]]
        expected = [sums[a] / visits[a] if visits[a] else 0.0 for a in row["legal_actions"]]
        assert np.allclose(row["search_values"], expected, atol=1e-6)
        best = stats[best_stat(stats)][0]
        assert g.action_index(best) == row["action"]
        if "move_index" in row:
            assert g.legal_moves()[row["move_index"]] == best
        g.apply(best)
    assert g.is_over


def test_moves_of_one_action_class_are_summed() -> None:
    stats = [("a", 3, 0.5), ("b", 1, -0.5), ("c", 0, 0.0), ("d", 2, 1.0), ("e", 4, 0.25)]
    visits, values = per_action(stats, [7, 7, 2, -1, 9], [2, 7, 9])
    assert visits.tolist() == [0, 4, 4]  # "d" has no action id (NO_ACTION): no entry
    assert values.tolist() == pytest.approx([0.0, 0.25, 0.25])
    with pytest.raises(ArgumentError, match="not in legal_actions"):
        per_action(stats, [7, 7, 2, 5, 9], [2, 7, 9])


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
