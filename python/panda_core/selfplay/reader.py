"""Reading a self-play dataset back: as a ``pyarrow.dataset.Dataset`` (filter, project, hand to
pandas, polars, DuckDB …) or as batches of numpy arrays shaped for training.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.dataset as pads  # type: ignore[import-untyped]
import pyarrow.fs as pafs  # type: ignore[import-untyped]

from panda_core._args import shown
from panda_core._core import ArgumentError
from panda_core.selfplay.run import MANIFEST, filesystem
from panda_core.selfplay.schema import FORMAT, FORMAT_VERSION, settings_of

__all__ = ["BATCH_SIZE", "iter_batches", "load", "to_numpy"]

BATCH_SIZE = 65_536
"""Default decisions per batch of :func:`iter_batches`."""


def _files(fs: pafs.FileSystem, folder: str) -> list[str]:
    """The shards of ``folder``: those ``_dataset.json`` lists when it is there (a finished
    run), else every complete ``part-*.parquet`` (an unfinished one; temporary files skipped)."""
    manifest = f"{folder}/{MANIFEST}"
    if fs.get_file_info(manifest).type == pafs.FileType.File:
        with fs.open_input_stream(manifest) as f:
            document = json.loads(f.read())
        return [f"{folder}/{s['file']}" for s in document["shards"]]
    found = fs.get_file_info(pafs.FileSelector(folder))
    return sorted(
        i.path
        for i in found
        if i.type == pafs.FileType.File
        and i.base_name.startswith("part-")
        and i.base_name.endswith(".parquet")
    )


def load(path: str | os.PathLike[str]) -> pads.Dataset:
    """The dataset in ``path`` (a folder or a URI ``selfplay`` wrote; or one shard file) as a
    ``pyarrow.dataset.Dataset``: ``load(p).to_table(columns=[...])``, ``.to_batches()``,
    ``.to_table().to_pandas()``. ``ArgumentError`` if it holds no self-play shards."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a folder path or a URI, got {shown(path)}")
    fs, where = filesystem(os.fspath(path))
    kind = fs.get_file_info(where).type
    if kind == pafs.FileType.File:
        files = [where]
    elif kind == pafs.FileType.Directory:
        files = _files(fs, where)
    else:
        raise ArgumentError(f"no self-play dataset at {os.fspath(path)!r}: nothing there")
    if not files:
        raise ArgumentError(f"no self-play shards (part-*.parquet) in {os.fspath(path)!r}")
    dataset = pads.dataset(files, filesystem=fs, format="parquet")
    settings = settings_of(dataset.schema) or {}
    if settings.get("format") != FORMAT:
        raise ArgumentError(f"{files[0]} is not a self-play shard (no {FORMAT} metadata)")
    if settings.get("format_version") != FORMAT_VERSION:
        raise ArgumentError(
            f"{files[0]} has self-play format version {settings.get('format_version')}; this "
            f"panda-core reads version {FORMAT_VERSION}"
        )
    return dataset


def _column(name: str, column: pa.Array, out: dict[str, np.ndarray[Any, Any]]) -> None:
    kind = column.type
    if pa.types.is_fixed_size_list(kind):
        # flatten() honours the batch's offset into the shared child array; float rows come out
        # without a copy (bools are bit-packed in Arrow, so masks are unpacked once).
        flat = column.flatten().to_numpy(zero_copy_only=False)
        out[name] = flat.reshape(len(column), kind.list_size)
    elif pa.types.is_list(kind) and pa.types.is_fixed_size_list(kind.value_type):
        offsets = column.offsets.to_numpy()
        rows = column.flatten()  # the rows of this batch only
        out[name] = (
            rows.flatten()
            .to_numpy(zero_copy_only=False)
            .reshape(len(rows), kind.value_type.list_size)
        )
        out[f"{name}_offsets"] = (offsets - offsets[0]).astype(np.int64)
    elif pa.types.is_dictionary(kind):
        out[name] = column.dictionary_decode().to_numpy(zero_copy_only=False)
    else:
        out[name] = column.to_numpy(zero_copy_only=False)


def to_numpy(batch: pa.RecordBatch | pa.Table) -> dict[str, np.ndarray[Any, Any]]:
    """One batch (or table) of decisions as numpy arrays: ``observation`` 2-D float32
    ``(n, observation_size)``, ``legal_mask`` 2-D bool ``(n, num_actions)``, the scalar columns
    1-D, and ``move_features`` as every legal move's row, ``(rows, move_features)``, with
    ``move_features_offsets`` ``(n + 1,)``: decision ``i``'s rows are
    ``move_features[offsets[i]:offsets[i + 1]]``."""
    if isinstance(batch, pa.Table):
        batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else None
        if batch is None:
            return {}
    out: dict[str, np.ndarray[Any, Any]] = {}
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        _column(name, column, out)
    return out


def iter_batches(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
    batch_size: int = BATCH_SIZE,
) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    """The dataset at ``path`` in batches of at most ``batch_size`` decisions, in file order,
    each as :func:`to_numpy` gives it; ``columns`` picks the columns (default: all). Memory
    holds one batch at a time."""
    dataset = load(path)
    if columns is not None:
        if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
            raise TypeError(f"columns must be a list of column names, got {shown(columns)}")
        unknown = sorted(set(columns) - set(dataset.schema.names))
        if unknown:
            raise ArgumentError(
                f"unknown columns {unknown}; the columns are {dataset.schema.names}"
            )
        columns = list(columns)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ArgumentError(f"batch_size must be an int >= 1, got {shown(batch_size)}")
    for batch in dataset.to_batches(columns=columns, batch_size=batch_size):
        if batch.num_rows:
            yield to_numpy(batch)
