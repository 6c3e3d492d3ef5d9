"""Reading a self-play dataset back: as a ``pyarrow.dataset.Dataset`` (filter, project, hand to
pandas, polars, DuckDB …) or as batches of numpy arrays shaped for training.

The files hold each observation as its non-zero entries (``observation_index``,
``observation_value``) and each decision's legal actions as a list of ids (``legal_actions``);
the dense ``(n, observation_size)`` float32 ``observation`` and ``(n, num_actions)`` bool
``legal_mask`` that training wants are rebuilt here, in one numpy scatter per batch
(:func:`scatter`).
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

__all__ = ["BATCH_SIZE", "DENSE", "iter_batches", "load", "scatter", "to_numpy"]

BATCH_SIZE = 65_536
"""Default decisions per batch of :func:`iter_batches`."""
DENSE: dict[str, tuple[str, str | None, str]] = {
    "observation": ("observation_index", "observation_value", "observation_size"),
    "legal_mask": ("legal_actions", None, "num_actions"),
}
"""The arrays :func:`iter_batches` rebuilds (they are not columns of the files): name ->
(the positions' column, the values' column or ``None`` for ``True``, the setting that gives the
width)."""


def scatter(
    index: np.ndarray[Any, Any],
    offsets: np.ndarray[Any, Any],
    width: int,
    values: np.ndarray[Any, Any] | None = None,
) -> np.ndarray[Any, Any]:
    """The dense ``(len(offsets) - 1, width)`` array whose row ``i`` holds ``values[j]`` (float32;
    ``True`` without ``values``: a bool mask) at position ``index[j]`` for ``j`` in
    ``offsets[i]:offsets[i + 1]``, zero elsewhere. One vectorised numpy assignment."""
    n = len(offsets) - 1
    dense: np.ndarray[Any, Any] = np.zeros(
        (n, width), dtype=np.bool_ if values is None else np.float32
    )
    rows = np.repeat(np.arange(n, dtype=np.intp), np.diff(offsets))
    part = slice(int(offsets[0]), int(offsets[-1]))
    dense[rows, index[part]] = True if values is None else values[part]
    return dense


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
    elif pa.types.is_list(kind):  # the values of a batch's rows, and where each row starts
        offsets = column.offsets.to_numpy()
        out[name] = column.flatten().to_numpy(zero_copy_only=False)
        out[f"{name}_offsets"] = (offsets - offsets[0]).astype(np.int64)
    elif pa.types.is_dictionary(kind):
        out[name] = column.dictionary_decode().to_numpy(zero_copy_only=False)
    else:
        out[name] = column.to_numpy(zero_copy_only=False)


def to_numpy(
    batch: pa.RecordBatch | pa.Table, settings: dict[str, Any] | None = None
) -> dict[str, np.ndarray[Any, Any]]:
    """One batch (or table) of decisions as numpy arrays: the scalar columns 1-D; each list
    column (``observation_index``, ``observation_value``, ``legal_actions``) as every row's
    values one after the other, with ``<name>_offsets`` ``(n + 1,)``: row ``i``'s are
    ``values[offsets[i]:offsets[i + 1]]``; ``move_features`` (when written) as every legal
    move's row, ``(rows, move_features)``, with ``move_features_offsets`` likewise. With the
    dataset's ``settings`` (``load(path).schema`` metadata; :func:`iter_batches` passes them),
    also the dense ``observation`` (2-D float32 ``(n, observation_size)``) and ``legal_mask``
    (2-D bool ``(n, num_actions)``) from the columns they are rebuilt from, when present."""
    if isinstance(batch, pa.Table):
        batch = batch.combine_chunks().to_batches()[0] if batch.num_rows else None
        if batch is None:
            return {}
    out: dict[str, np.ndarray[Any, Any]] = {}
    for name, column in zip(batch.schema.names, batch.columns, strict=True):
        _column(name, column, out)
    for name, (index, values, width) in DENSE.items() if settings else ():
        if index in out and (values is None or values in out):
            assert settings is not None
            out[name] = scatter(
                out[index],
                out[f"{index}_offsets"],
                int(settings[width]),
                None if values is None else out[values],
            )
    return out


def iter_batches(
    path: str | os.PathLike[str],
    columns: Sequence[str] | None = None,
    batch_size: int = BATCH_SIZE,
) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    """The dataset at ``path`` in batches of at most ``batch_size`` decisions, in file order,
    each as :func:`to_numpy` gives it. ``columns`` picks what to give: columns of the files
    and the dense arrays rebuilt from them, ``observation`` and ``legal_mask`` (their columns
    are then read, but given only if asked for too). Default: the scalar columns, the dense
    ``observation`` and ``legal_mask``, and ``move_features`` when the dataset has them; the
    sparse columns only if named. Memory holds one batch at a time."""
    dataset = load(path)
    names = list(dataset.schema.names)
    sparse = {c for index, values, _ in DENSE.values() for c in (index, values) if c}
    if columns is None:
        wanted = {c for c in names if c not in sparse} | set(DENSE)
    else:
        if isinstance(columns, str) or not all(isinstance(c, str) for c in columns):
            raise TypeError(f"columns must be a list of column names, got {shown(columns)}")
        unknown = sorted(set(columns) - set(names) - set(DENSE))
        if unknown:
            hint = (
                " (this dataset was written without move features: "
                "selfplay(..., move_features=True) or --move-features writes them)"
                if "move_features" in unknown
                else ""
            )
            raise ArgumentError(
                f"unknown columns {unknown}; the columns are {names + list(DENSE)}{hint}"
            )
        wanted = set(columns)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ArgumentError(f"batch_size must be an int >= 1, got {shown(batch_size)}")
    needed = set(wanted)
    for name, (index, values, _) in DENSE.items():
        if name in wanted:
            needed |= {c for c in (index, values) if c}
    read = [c for c in names if c in needed]
    settings = settings_of(dataset.schema) or {}
    for batch in dataset.to_batches(columns=read, batch_size=batch_size):
        if batch.num_rows:
            out = to_numpy(batch, settings)
            for extra in sorted(needed - wanted):
                del out[extra], out[f"{extra}_offsets"]
            for name in set(DENSE) - wanted:
                out.pop(name, None)
            yield out
