"""Reading a self-play dataset back: as a ``pyarrow.dataset.Dataset`` (filter, project, hand to
pandas, polars, DuckDB …) or as batches of numpy arrays shaped for training.

The files hold each observation as its non-zero entries (``observation_index``,
``observation_value``) and each decision's legal actions as a list of ids (``legal_actions``);
the dense ``(n, observation_size)`` float32 ``observation`` and ``(n, num_actions)`` bool
``legal_mask`` that training wants are rebuilt here, in one numpy scatter per batch
(:func:`scatter`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.dataset as pads  # type: ignore[import-untyped]
import pyarrow.fs as pafs  # type: ignore[import-untyped]

from panda_core._args import players_arg, shown
from panda_core._core import MAX_ISMCTS_ITERATIONS, ArgumentError, PandaCoreError
from panda_core._registry import spec
from panda_core.selfplay.integrity import (
    SHARD_FILE,
    DatasetError,
    identity,
    open_input,
    parquet_file,
    read_checksum,
    read_json,
    verify_shard,
)
from panda_core.selfplay.run import MANIFEST, filesystem
from panda_core.selfplay.schema import (
    FORMAT,
    FORMAT_VERSION,
    SEARCH_COLUMNS,
    schema,
    settings_of,
)

__all__ = ["BATCH_SIZE", "DENSE", "DatasetError", "iter_batches", "load", "scatter", "to_numpy"]

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
    ``offsets[i]:offsets[i + 1]``, zero elsewhere. One vectorised numpy assignment.

    ``ArgumentError`` (naming the first bad row) if the offsets do not rise within ``index``,
    ``values`` is shorter, or a position is outside ``0 .. width - 1`` (numpy would wrap a
    negative one around silently)."""
    n = len(offsets) - 1
    if n < 0 or (n and (np.any(np.diff(offsets) < 0) or offsets[0] < 0)):
        raise ArgumentError("scatter: offsets must be a non-decreasing array of at least 1 entry")
    part = slice(int(offsets[0]), int(offsets[-1])) if n else slice(0, 0)
    if part.stop > len(index) or (values is not None and part.stop > len(values)):
        raise ArgumentError(
            f"scatter: the offsets reach entry {part.stop}, past the {len(index)} positions"
            + ("" if values is None else f" or the {len(values)} values")
        )
    where = index[part]
    bad = np.flatnonzero((where < 0) | (where >= width))
    if bad.size:
        row = int(np.searchsorted(offsets, part.start + bad[0], side="right")) - 1
        raise ArgumentError(f"row {row}: position {int(where[bad[0]])} is outside 0..{width - 1}")
    dense: np.ndarray[Any, Any] = np.zeros(
        (n, width), dtype=np.bool_ if values is None else np.float32
    )
    rows = np.repeat(np.arange(n, dtype=np.intp), np.diff(offsets))
    dense[rows, where] = True if values is None else values[part]
    return dense


def _shards(fs: pafs.FileSystem, folder: str) -> tuple[list[str], dict[str, Any] | None]:
    """The shards of ``folder`` (their names) and the manifest, when there is one (a finished
    run: its shards, checked to be shard names); else every complete ``part-*.parquet`` (an
    unfinished run; temporary files skipped)."""
    manifest = f"{folder}/{MANIFEST}"
    if fs.get_file_info(manifest).type != pafs.FileType.NotFound:
        document = read_json(fs, manifest, "self-play manifest")
        shards = document.get("shards") if isinstance(document, dict) else None
        if not isinstance(shards, list) or not all(
            isinstance(s, dict)
            and isinstance(s.get("file"), str)
            and SHARD_FILE.fullmatch(s["file"])
            and re.fullmatch(r"[0-9a-f]{64}", str(s.get("sha256")))
            and isinstance(s.get("bytes"), int)
            for s in shards
        ):
            raise DatasetError(
                f"{manifest}: damaged manifest (its shards must be a list of "
                '{"file": "part-NNNNN.parquet", "bytes": …, "sha256": …})'
            )
        if not isinstance(document.get("settings_sha256"), str):
            raise DatasetError(f"{manifest}: damaged manifest (no settings_sha256)")
        return [s["file"] for s in shards], document
    found = fs.get_file_info(pafs.FileSelector(folder))
    return sorted(
        i.base_name
        for i in found
        if i.base_name.startswith("part-") and i.base_name.endswith(".parquet")
    ), None


class _Shard:
    """One shard open for reading, checked: its sha256 (unless not asked), a bounded footer,
    the self-play format and version. ``settings`` are those in its metadata."""

    def __init__(
        self, fs: pafs.FileSystem, folder: str, name: str, manifest: dict[str, Any] | None,
        verify: bool,
    ) -> None:  # fmt: skip
        self.path = f"{folder}/{name}"
        self.handle, size = open_input(fs, self.path, None, "self-play shard")
        try:
            if verify:
                recorded = read_checksum(fs, folder, name)
                listed = next(
                    (s for s in (manifest or {}).get("shards", ()) if s["file"] == name), None
                )
                if listed is not None and (listed["sha256"], listed["bytes"]) != (
                    recorded["sha256"],
                    recorded["bytes"],
                ):
                    raise DatasetError(
                        f"{self.path}: its checksum file and the manifest {MANIFEST} record "
                        "different contents (one of them was edited or replaced)"
                    )
                verify_shard(self.handle, size, self.path, recorded)
            self.file = parquet_file(self.handle, size, self.path)
            self.schema = self.file.schema_arrow
            settings = settings_of(self.schema)
            if settings is None or settings.get("format") != FORMAT:
                raise DatasetError(f"{self.path} is not a self-play shard (no {FORMAT} metadata)")
            if settings.get("format_version") != FORMAT_VERSION:
                raise DatasetError(
                    f"{self.path} has self-play format version "
                    f"{str(settings.get('format_version'))[:20]}; this panda-core reads version "
                    f"{FORMAT_VERSION}"
                )
            self.settings = settings
            self.identity = identity(settings)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.handle.close()


def _expected_schema(shard: _Shard) -> pa.Schema:
    """The columns the settings of ``shard`` give (``DatasetError`` if they name no game)."""
    settings = shard.settings
    try:
        game = spec(settings.get("game"))
        move_features = settings.get("move_features")
        if not isinstance(move_features, bool):
            raise DatasetError("move_features is not true or false")
        search_stats = settings.get("search_stats", False)
        if not isinstance(search_stats, bool):
            raise DatasetError("search_stats is not true or false")
        expected = schema(game, None, move_features, search_stats)
        for key, value in (
            ("observation_size", game.observation_size),
            ("num_actions", game.num_actions),
            ("move_feature_size", game.move_features),
        ):
            if settings.get(key) != value:
                raise DatasetError(f"its {key} is {settings.get(key)!r}; {game.name} has {value}")
        if not isinstance(settings.get("players"), int):
            raise DatasetError("players is not an int")
        players_arg(settings["players"])
    except (PandaCoreError, TypeError, ValueError) as err:
        raise DatasetError(f"{shard.path}: damaged self-play settings ({err})") from None
    return expected


def _same_dataset(first: _Shard, other: _Shard, manifest: dict[str, Any] | None) -> None:
    """``DatasetError`` naming ``other`` unless it belongs to ``first``'s dataset (and to the
    manifest's, if there is one) and has its columns."""
    if manifest is not None and other.identity != manifest["settings_sha256"]:
        raise DatasetError(
            f"{other.path} belongs to another dataset than its folder's manifest {MANIFEST} "
            f"says ({_differences(manifest, other.settings)}): it is not mixed in"
        )
    if other.identity != first.identity:
        raise DatasetError(
            f"{other.path} belongs to another dataset than {first.path} "
            f"({_differences(first.settings, other.settings)}): they are not mixed"
        )
    if not other.schema.remove_metadata().equals(_expected_schema(first)):
        raise DatasetError(f"{other.path}: its columns are not those of a self-play shard")


def _differences(mine: dict[str, Any], theirs: dict[str, Any]) -> str:
    keys = sorted(
        k
        for k in set(mine) | set(theirs)
        if k not in ("shard", "episodes", "shards", "decisions", "bytes", "schema")
        and k != "settings_sha256"
        and mine.get(k) != theirs.get(k)
    )
    shown_keys = ", ".join(
        f"{k}: {str(mine.get(k))[:30]} / {str(theirs.get(k))[:30]}" for k in keys[:3]
    )
    return shown_keys or "other settings"


def _where(path: str | os.PathLike[str]) -> tuple[pafs.FileSystem, str, list[str], Any]:
    """The filesystem, folder and shard names at ``path`` (a folder, a URI or one shard file)
    and the folder's manifest (``None`` without one, or for one file)."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"path must be a folder path or a URI, got {shown(path)}")
    fs, where = filesystem(os.fspath(path))
    kind = fs.get_file_info(where).type
    if kind == pafs.FileType.NotFound:
        raise ArgumentError(f"no self-play dataset at {os.fspath(path)!r}: nothing there")
    if kind == pafs.FileType.Directory:
        names, manifest = _shards(fs, where)
        if not names:
            raise ArgumentError(f"no self-play shards (part-*.parquet) in {os.fspath(path)!r}")
        return fs, where, names, manifest
    folder, _, name = where.rpartition("/")
    return fs, folder, [name], None


def load(path: str | os.PathLike[str], verify: bool = True) -> pads.Dataset:
    """The dataset in ``path`` (a folder or a URI ``selfplay`` wrote; or one shard file) as a
    ``pyarrow.dataset.Dataset``: ``load(p).to_table(columns=[...])``, ``.to_batches()``,
    ``.to_table().to_pandas()``.

    Every shard is checked first: its sha256 against its checksum file (and the manifest's,
    which must agree) unless ``verify=False`` (checking reads the whole dataset once more); its
    format; and that all belong to one dataset with the same columns. ``DatasetError`` (an
    ``ArgumentError``) naming the file otherwise; ``ArgumentError`` if ``path`` holds no
    self-play shards."""
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be True or False, got {shown(verify)}")
    fs, folder, names, manifest = _where(path)
    first: _Shard | None = None
    for name in names:
        shard = _Shard(fs, folder, name, manifest, verify)
        shard.close()
        if first is None:
            first = shard
            _expected_schema(first)
        _same_dataset(first, shard, manifest)
    try:
        return pads.dataset([f"{folder}/{n}" for n in names], filesystem=fs, format="parquet")
    except (OSError, pa.ArrowException) as err:
        raise DatasetError(f"{folder}: the shards cannot be read as one dataset ({err})") from None


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
    move's row, ``(rows, move_features)``, with ``move_features_offsets`` likewise;
    ``search_visits`` and ``search_values`` (when written) as the other list columns, with their
    offsets (a row's lists are empty, or as long as its ``legal_actions``). With the
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
    verify: bool = True,
) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    """The dataset at ``path`` in batches of at most ``batch_size`` decisions, in file order,
    each as :func:`to_numpy` gives it. ``columns`` picks what to give: columns of the files
    and the dense arrays rebuilt from them, ``observation`` and ``legal_mask`` (their columns
    are then read, but given only if asked for too). Default: the scalar columns, the dense
    ``observation`` and ``legal_mask``, and ``move_features`` and the search statistics when
    the dataset has them; the sparse columns only if named. Memory holds one batch at a time.

    Each shard is checked as :func:`load` checks it, just before it is read (from the file it
    was checked on), and every batch's positions and ids are checked to be in range: a
    ``DatasetError`` names the file, the row group and the row."""
    if not isinstance(verify, bool):
        raise TypeError(f"verify must be True or False, got {shown(verify)}")
    fs, folder, names, manifest = _where(path)
    first = _Shard(fs, folder, names[0], manifest, verify)
    try:
        expected = _expected_schema(first)
        _same_dataset(first, first, manifest)
    finally:
        first.close()
    read, wanted, needed = _columns(list(expected.names), columns)
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ArgumentError(f"batch_size must be an int >= 1, got {shown(batch_size)}")
    settings = first.settings
    for name in names:
        shard = _Shard(fs, folder, name, manifest, verify)
        try:
            _same_dataset(first, shard, manifest)
            yield from _shard_batches(shard, read, batch_size, settings, wanted, needed)
        finally:
            shard.close()


def _columns(
    names: list[str], columns: Sequence[str] | None
) -> tuple[list[str], set[str], set[str]]:
    """What to read, what to give and what is needed to give it (the columns checked)."""
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
    needed = set(wanted)
    for name, (index, values, _) in DENSE.items():
        if name in wanted:
            needed |= {c for c in (index, values) if c}
    if needed & set(SEARCH_COLUMNS):  # checked against each other and the legal moves
        needed |= {*SEARCH_COLUMNS, "legal_actions"}
        if "move_features" in names:  # a climbing game's: one row per legal move
            needed.add("move_features")
    return [c for c in names if c in needed], wanted, needed


def _shard_batches(
    shard: _Shard,
    read: list[str],
    batch_size: int,
    settings: dict[str, Any],
    wanted: set[str],
    needed: set[str],
) -> Iterator[dict[str, np.ndarray[Any, Any]]]:
    """The batches of one checked shard, row group by row group, each checked."""
    row = 0
    for group in range(shard.file.num_row_groups):
        where = f"{shard.path}, row group {group}"
        batches = shard.file.iter_batches(batch_size=batch_size, row_groups=[group], columns=read)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            except (OSError, pa.ArrowException, ValueError) as err:
                raise DatasetError(f"{where}: cannot be read ({err})") from None
            if not batch.num_rows:
                continue
            try:
                _check_ids(batch, settings)
                out = to_numpy(batch, settings)
            except (ArgumentError, pa.ArrowException, ValueError) as err:
                raise DatasetError(f"{where}, from row {row}: damaged values ({err})") from None
            row += batch.num_rows
            for extra in sorted(needed - wanted):
                del out[extra], out[f"{extra}_offsets"]
            for name in set(DENSE) - wanted:
                out.pop(name, None)
            yield out


def _check_ids(batch: pa.RecordBatch, settings: dict[str, Any]) -> None:
    """The ids read as positions elsewhere are in range: seats, actions, the chosen move."""
    names = batch.schema.names
    for column, high, low in (
        ("seat", settings["players"], 0),
        ("action", settings["num_actions"], -1),
        ("legal_actions", settings["num_actions"], 0),
    ):
        if column in names:
            values = batch.column(column)
            if pa.types.is_list(values.type):
                values = values.flatten()
            array = values.to_numpy(zero_copy_only=False)
            if array.size and (array.min() < low or array.max() >= high):
                raise ArgumentError(f"{column} holds values outside {low}..{high - 1}")
    if "search_visits" in names:
        _check_search(batch)


def _check_search(batch: pa.RecordBatch) -> None:
    """Each row's search statistics: one visit count and one value per legal move (the rows of
    ``move_features`` in a climbing game, whose action ids name classes of moves; the legal
    actions in Panda Head, where each move is its own action), or none (a bot that does not
    search); counts in ``0 .. MAX_ISMCTS_ITERATIONS``, values finite in ``[-1, 1]``."""
    names = batch.schema.names
    legal = batch.column("move_features" if "move_features" in names else "legal_actions")
    visits = batch.column("search_visits")
    values = batch.column("search_values")
    sizes = np.diff(legal.offsets.to_numpy())
    counts = np.diff(visits.offsets.to_numpy())
    if not np.array_equal(counts, np.diff(values.offsets.to_numpy())):
        row = int(np.flatnonzero(counts != np.diff(values.offsets.to_numpy()))[0])
        raise ArgumentError(f"row {row}: search_visits and search_values differ in length")
    bad = np.flatnonzero((counts != 0) & (counts != sizes))
    if bad.size:
        row = int(bad[0])
        raise ArgumentError(
            f"row {row}: {int(counts[row])} search statistics for {int(sizes[row])} legal "
            "moves (one per legal move, or none)"
        )
    n = visits.flatten().to_numpy(zero_copy_only=False)
    if n.size and (n.min() < 0 or n.max() > MAX_ISMCTS_ITERATIONS):
        raise ArgumentError(f"search_visits holds values outside 0..{MAX_ISMCTS_ITERATIONS}")
    v = values.flatten().to_numpy(zero_copy_only=False)
    if v.size and not (np.all(np.isfinite(v)) and v.min() >= -1.0 and v.max() <= 1.0):
        raise ArgumentError("search_values holds values that are not finite numbers in [-1, 1]")
