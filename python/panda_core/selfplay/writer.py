"""Writing one shard: episodes in, one Parquet file out, with bounded memory.

Episodes are buffered as they come (numpy arrays) until a row group is full
(:attr:`ShardWriter.row_group_decisions` decisions, or :data:`ROW_GROUP_BYTES` of buffered
columns, whichever comes first), then turned into Arrow columns in one go
(:func:`episodes_batch`: a few numpy operations and Arrow arrays per row group, not per
episode) and written: memory holds at most one row group and one episode, however many
episodes a run has. The file is written under a temporary name and
renamed when complete, so a shard either exists whole or not at all (how a rerun knows what to
skip).

Row groups are encoded in the task's own thread: a background encoder would overlap encoding
with play only on a machine with idle cores (self-play runs a task per core), and an encoder
thread interrupted by Ctrl-C in the middle of a row group is hard to stop cleanly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.fs as pafs  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from panda_core.selfplay.episodes import Episode
from panda_core.selfplay.integrity import (
    CHECKSUM_FORMAT,
    checksum_name,
    file_sha256,
    identity,
    write_json,
)
from panda_core.selfplay.schema import (
    action_lists,
    float_lists,
    index_lists,
    settings_of,
    visit_lists,
)

__all__ = [
    "COMPRESSION",
    "ROW_GROUP_BYTES",
    "ROW_GROUP_DECISIONS",
    "ShardWriter",
    "episode_batch",
    "episodes_batch",
    "shard_name",
    "temp_name",
]

ROW_GROUP_DECISIONS = 8192
"""Default decisions per row group (the unit a reader loads at once)."""
ROW_GROUP_BYTES = 64 << 20
"""A row group is also written once its columns reach this size: a climbing game's decision
with move features carries ~10 kB of them, without ~4 kB; a Panda Head one ~0.5 kB."""
COMPRESSION = "zstd"
"""zstd shrinks the mostly-zero observations and features 30-80x at about the cost of snappy."""


def shard_name(shard: int) -> str:
    return f"part-{shard:05d}.parquet"


def temp_name(shard: int) -> str:
    """Where shard ``shard`` is written before it is complete (a dot file: readers that list
    the folder skip it)."""
    return f".{shard_name(shard)}.tmp"


def _fixed_rows(values: np.ndarray[Any, Any], kind: pa.DataType) -> pa.Array:
    """A 2-D array as a fixed-size list column, without copying the floats."""
    return pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), type=kind)


def _sparse_rows(
    rows: np.ndarray[Any, Any],
) -> tuple[pa.Array, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """A 2-D float array's non-zero entries: (offsets, positions int16, values), row ``i``'s
    being ``offsets[i]:offsets[i + 1]`` (vectorised: no Python loop per row).

    Found in the flat array through a bool mask: numpy's ``nonzero`` of a 2-D float array is
    several times slower, and was most of the cost of writing a climbing decision."""
    n, size = rows.shape
    flat = rows.reshape(-1)
    where = np.flatnonzero(flat != 0)
    offsets = np.zeros(n + 1, dtype=np.int32)
    offsets[1:] = np.searchsorted(where, np.arange(1, n + 1) * size)
    return pa.array(offsets), (where % size).astype(np.int16), flat[where]


def _joined_offsets(parts: Sequence[np.ndarray[Any, Any]]) -> pa.Array:
    """The offsets of lists joined end to end, from each part's own (each starting at 0)."""
    counts = np.concatenate([np.diff(p) for p in parts])
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    return pa.array(offsets)


def _per_row(eps: Sequence[Episode], values: Sequence[Any], dtype: Any) -> np.ndarray[Any, Any]:
    """One value per episode, repeated over its rows."""
    counts = [ep.decisions for ep in eps]
    return np.repeat(np.asarray(values, dtype=dtype), counts)


def _per_seat(eps: Sequence[Episode], name: str, dtype: Any) -> np.ndarray[Any, Any]:
    """Each row's acting seat's entry of its episode's per-seat tuple ``name``."""
    return np.concatenate(
        [np.asarray(getattr(ep, name), dtype=dtype)[ep.seats.astype(np.intp)] for ep in eps]
    )


def episodes_batch(schema: pa.Schema, game: str, eps: Sequence[Episode]) -> pa.RecordBatch:
    """Episodes' rows, one after the other, as one record batch of ``schema``
    (:func:`schema.schema`). Built column by column from numpy arrays joined over all of them:
    a handful of Arrow arrays per row group rather than per episode."""
    n = sum(ep.decisions for ep in eps)
    seats = np.concatenate([ep.seats for ep in eps])
    won = seats == _per_row(eps, [ep.winner for ep in eps], np.int8)
    last = np.zeros(n, dtype=np.bool_)  # the vector environments' reward: on the last step only
    last[np.cumsum([ep.decisions for ep in eps])[[ep.decisions > 0 for ep in eps]] - 1] = True
    outcome = np.where(won, 1.0, -1.0).astype(np.float32)
    obs_offsets, obs_index, obs_value = _sparse_rows(
        np.concatenate([ep.observations for ep in eps])
    )
    columns: dict[str, pa.Array] = {
        "game": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, dtype=np.int8)), pa.array([game], pa.string())
        ),
        "episode": pa.array(_per_row(eps, [ep.index for ep in eps], np.int64)),
        "deal": pa.array(_per_row(eps, [ep.deal for ep in eps], np.uint64)),
        "step": pa.array(np.concatenate([np.arange(ep.decisions, dtype=np.int32) for ep in eps])),
        "seat": pa.array(seats),
        "observation_index": pa.ListArray.from_arrays(
            obs_offsets, pa.array(obs_index), type=index_lists()
        ),
        "observation_value": pa.ListArray.from_arrays(
            obs_offsets, pa.array(obs_value), type=float_lists()
        ),
        "legal_actions": pa.ListArray.from_arrays(
            _joined_offsets([ep.legal_offsets for ep in eps]),
            pa.array(np.concatenate([ep.legal_actions for ep in eps])),
            type=action_lists(),
        ),
        "action": pa.array(np.concatenate([ep.actions for ep in eps])),
        "reward": pa.array(np.where(last, outcome, 0.0).astype(np.float32)),
        "outcome": pa.array(outcome),
        "final_score": pa.array(_per_seat(eps, "scores", np.int32)),
        "place": pa.array(_per_seat(eps, "places", np.int8)),
    }
    if "move_index" in schema.names:
        columns["move_index"] = pa.array(np.concatenate([ep.move_index for ep in eps]))
    if "move_features" in schema.names:
        features = [ep.move_features for ep in eps if ep.move_features is not None]
        move_offsets = [ep.move_offsets for ep in eps if ep.move_offsets is not None]
        assert len(features) == len(move_offsets) == len(eps), "played with move features"
        kind = schema.field("move_features").type
        rows = _fixed_rows(np.concatenate(features), kind.value_type)
        offsets = _joined_offsets(move_offsets)
        columns["move_features"] = pa.ListArray.from_arrays(offsets, rows, type=kind)
    if "search_visits" in schema.names:
        offsets = _joined_offsets([_played(ep.search_offsets) for ep in eps])
        visits = np.concatenate([_played(ep.search_visits) for ep in eps])
        values = np.concatenate([_played(ep.search_values) for ep in eps])
        columns["search_visits"] = pa.ListArray.from_arrays(
            offsets, pa.array(visits), type=visit_lists()
        )
        columns["search_values"] = pa.ListArray.from_arrays(
            offsets, pa.array(values), type=float_lists()
        )
    return pa.RecordBatch.from_arrays([columns[name] for name in schema.names], schema=schema)


def _played(values: np.ndarray[Any, Any] | None) -> np.ndarray[Any, Any]:
    assert values is not None, "played with search statistics"
    return values


def episode_batch(schema: pa.Schema, game: str, ep: Episode) -> pa.RecordBatch:
    """One episode's rows as a record batch of ``schema``."""
    return episodes_batch(schema, game, [ep])


class ShardWriter:
    """Writes one shard file in ``folder`` of ``filesystem`` (a pyarrow filesystem)."""

    def __init__(
        self,
        filesystem: pafs.FileSystem,
        folder: str,
        shard: int,
        schema: pa.Schema,
        row_group_decisions: int = ROW_GROUP_DECISIONS,
    ) -> None:
        self.filesystem = filesystem
        self.folder = folder
        self.final = f"{folder}/{shard_name(shard)}"
        self.sha256 = ""
        self.temp = f"{folder}/{temp_name(shard)}"
        self.schema = schema
        self.row_group_decisions = row_group_decisions
        self.decisions = 0
        self.row_groups = 0
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self._pending_bytes = 0
        self._episodes: list[Episode] = []
        self._episode_rows = 0
        self._episode_bytes = 0
        self._game = ""
        self._closed = False
        self._writer = pq.ParquetWriter(
            self.temp,
            schema,
            filesystem=filesystem,
            compression=COMPRESSION,
            # Dictionaries and statistics of float rows cost more to compute than they save:
            # only the game's name (a dictionary column already) keeps one.
            use_dictionary=["game"],
            write_statistics=["episode", "deal", "step", "seat"],
        )

    def add_episode(self, game: str, ep: Episode) -> None:
        """Buffer episode ``ep`` of ``game`` as it is (numpy), and once the buffered rows fill a
        row group, turn them into Arrow columns in one go (:func:`episodes_batch`) and write it.
        Memory holds at most a row group and an episode, as with :meth:`add`."""
        self._game = game
        self._episodes.append(ep)
        self._episode_rows += ep.decisions
        self._episode_bytes += ep.observations.nbytes + (
            0 if ep.move_features is None else ep.move_features.nbytes
        )
        if (
            self._pending_rows + self._episode_rows >= self.row_group_decisions
            or self._pending_bytes + self._episode_bytes >= ROW_GROUP_BYTES
        ):
            self._convert()

    def _convert(self) -> None:
        """Hand the buffered episodes to :meth:`add` as one record batch."""
        if self._episodes:
            batch = episodes_batch(self.schema, self._game, self._episodes)
            self._episodes, self._episode_rows, self._episode_bytes = [], 0, 0
            self.add(batch)

    def add(self, batch: pa.RecordBatch) -> None:
        """Buffer ``batch`` (one episode, or several), writing every row group it completes."""
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        self._pending_bytes += batch.nbytes
        while self._pending_rows >= self.row_group_decisions:
            self._flush(self.row_group_decisions)
        if self._pending_bytes >= ROW_GROUP_BYTES:
            self._flush(self._pending_rows)

    def _flush(self, rows: int) -> None:
        """Write the first ``rows`` buffered rows as one row group."""
        if rows == 0:
            return
        table = pa.Table.from_batches(self._pending, schema=self.schema)
        self._writer.write_table(table.slice(0, rows), row_group_size=rows)
        self.row_groups += 1
        self.decisions += rows
        rest = table.slice(rows)
        self._pending = rest.to_batches()
        self._pending_rows = rest.num_rows
        self._pending_bytes = rest.nbytes if rest.num_rows else 0

    def close(self) -> int:
        """Write what is buffered, close the file, write its checksum file
        (:mod:`~panda_core.selfplay.integrity`) and then give the shard its final name (so a
        shard under its final name always has its checksum); its size. If this raises (Ctrl-C
        while the last row group is encoded), :meth:`abort` still applies."""
        self._convert()
        self._flush(self._pending_rows)
        self._writer.close()
        self._closed = True
        size: int = self.filesystem.get_file_info(self.temp).size
        with self.filesystem.open_input_stream(self.temp) as written:
            self.sha256 = file_sha256(written, self.temp)
        settings = settings_of(self.schema) or {}
        name = self.final.rsplit("/", 1)[-1]
        checksum = {
            "format": CHECKSUM_FORMAT,
            "file": name,
            "bytes": size,
            "sha256": self.sha256,
            "settings_sha256": identity(settings),
            "episodes": settings.get("episodes"),
            "decisions": self.decisions,
        }
        write_json(self.filesystem, f"{self.folder}/{checksum_name(name)}", checksum)
        self.filesystem.move(self.temp, self.final)
        return size

    def abort(self) -> None:
        """Close and delete the unfinished file (after a failure)."""
        try:
            if not self._closed:
                self._writer.close()
        finally:
            try:
                self.filesystem.delete_file(self.temp)
            except OSError:
                pass
