"""Writing one shard: episodes in, one Parquet file out, with bounded memory.

Episodes are turned into Arrow columns (:func:`episode_batch`) and buffered until a row group
is full (:attr:`ShardWriter.row_group_decisions` decisions, or :data:`ROW_GROUP_BYTES` of
buffered columns, whichever comes first), then written: memory holds at most one row group and
one episode, however many episodes a run has. The file is written under a temporary name and
renamed when complete, so a shard either exists whole or not at all (how a rerun knows what to
skip).

Row groups are encoded in the task's own thread: a background encoder would overlap encoding
with play only on a machine with idle cores (self-play runs a task per core), and an encoder
thread interrupted by Ctrl-C in the middle of a row group is hard to stop cleanly.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.fs as pafs  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from panda_core.selfplay.episodes import Episode
from panda_core.selfplay.schema import action_lists, float_lists, index_lists

__all__ = [
    "COMPRESSION",
    "ROW_GROUP_BYTES",
    "ROW_GROUP_DECISIONS",
    "ShardWriter",
    "episode_batch",
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
    being ``offsets[i]:offsets[i + 1]`` (vectorised: no Python loop per row)."""
    row, column = np.nonzero(rows)
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int32)
    np.cumsum(np.count_nonzero(rows, axis=1), out=offsets[1:])
    return pa.array(offsets), column.astype(np.int16), rows[row, column]


def episode_batch(schema: pa.Schema, game: str, ep: Episode) -> pa.RecordBatch:
    """One episode's rows as a record batch of ``schema`` (:func:`schema.schema`)."""
    n = ep.decisions
    winner = ep.seats == ep.winner
    reward = np.zeros(n, dtype=np.float32)
    if n:  # the vector environments' reward: the game's result, on its last step only
        reward[-1] = 1.0 if winner[-1] else -1.0
    seats = ep.seats.astype(np.intp)
    obs_offsets, obs_index, obs_value = _sparse_rows(ep.observations)
    columns: dict[str, pa.Array] = {
        "game": pa.DictionaryArray.from_arrays(
            pa.array(np.zeros(n, dtype=np.int8)), pa.array([game], pa.string())
        ),
        "episode": pa.array(np.full(n, ep.index, dtype=np.int64)),
        "deal": pa.array(np.full(n, ep.deal, dtype=np.uint64)),
        "step": pa.array(np.arange(n, dtype=np.int32)),
        "seat": pa.array(ep.seats),
        "observation_index": pa.ListArray.from_arrays(
            obs_offsets, pa.array(obs_index), type=index_lists()
        ),
        "observation_value": pa.ListArray.from_arrays(
            obs_offsets, pa.array(obs_value), type=float_lists()
        ),
        "legal_actions": pa.ListArray.from_arrays(
            pa.array(ep.legal_offsets), pa.array(ep.legal_actions), type=action_lists()
        ),
        "action": pa.array(ep.actions),
        "reward": pa.array(reward),
        "outcome": pa.array(np.where(winner, 1.0, -1.0).astype(np.float32)),
        "final_score": pa.array(np.asarray(ep.scores, dtype=np.int32)[seats]),
        "place": pa.array(np.asarray(ep.places, dtype=np.int8)[seats]),
    }
    if "move_index" in schema.names:
        columns["move_index"] = pa.array(ep.move_index)
    if "move_features" in schema.names:
        assert ep.move_features is not None and ep.move_offsets is not None
        kind = schema.field("move_features").type
        rows = _fixed_rows(ep.move_features, kind.value_type)
        columns["move_features"] = pa.ListArray.from_arrays(
            pa.array(ep.move_offsets), rows, type=kind
        )
    return pa.RecordBatch.from_arrays([columns[name] for name in schema.names], schema=schema)


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
        self.final = f"{folder}/{shard_name(shard)}"
        self.temp = f"{folder}/{temp_name(shard)}"
        self.schema = schema
        self.row_group_decisions = row_group_decisions
        self.decisions = 0
        self.row_groups = 0
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self._pending_bytes = 0
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

    def add(self, batch: pa.RecordBatch) -> None:
        """Buffer ``batch`` (one episode), writing every row group it completes."""
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
        """Write what is buffered, close the file and give it its final name; its size. If
        this raises (Ctrl-C while the last row group is encoded), :meth:`abort` still applies."""
        self._flush(self._pending_rows)
        self._writer.close()
        self._closed = True
        self.filesystem.move(self.temp, self.final)
        size: int = self.filesystem.get_file_info(self.final).size
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
