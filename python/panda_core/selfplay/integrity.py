"""What makes a stored shard trustworthy: its checksum file, its dataset's identity, and reads
that are bounded and fail cleanly (docs/selfplay.md, "What is checked").

Each shard ``part-NNNNN.parquet`` has a checksum file ``_part-NNNNN.json`` written before the
shard gets its final name (so a shard under its final name always has one): the shard's size and
sha256, the episodes it holds and the identity of its dataset (:func:`identity`: the sha256 of
the dataset's settings). A resume and the loader recompute the sha256 before trusting a shard;
the identity in each shard's own metadata keeps shards of different datasets (another game,
rules, bots, seed, layout) from being mixed.

Every file is opened as :mod:`panda_core._files` does (locally: a regular file,
checked on the open descriptor; elsewhere: the filesystem says it is a file) with a size bound
for the small JSON files, and a Parquet footer is bounded before pyarrow reads it. Whatever goes
wrong is a :class:`DatasetError` naming the file (and the row group where it is known).
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Mapping
from typing import Any, BinaryIO

import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.fs as pafs  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from panda_core._core import ArgumentError
from panda_core._files import open_regular

__all__ = [
    "CHECKSUM_FORMAT",
    "MAX_FOOTER_BYTES",
    "MAX_JSON_BYTES",
    "SHARD_FILE",
    "DatasetError",
    "checksum_name",
    "file_sha256",
    "identity",
    "open_input",
    "parquet_file",
    "read_checksum",
    "read_json",
    "verify_shard",
    "write_json",
]

CHECKSUM_FORMAT = "panda-core/selfplay-shard"
"""What a shard's checksum file says it is."""
MAX_JSON_BYTES = 64 << 20
"""Largest ``_dataset.json`` or checksum file read (a manifest of 100,000 shards is ~20 MB)."""
MAX_FOOTER_BYTES = 64 << 20
"""Largest Parquet footer (the file's metadata) handed to pyarrow; a shard's is some kB."""
SHARD_FILE = re.compile(r"part-(\d{5})\.parquet")
"""The name of a shard: the only files a manifest may name (no paths, no ``..``)."""
_CHUNK = 1 << 20
_PER_SHARD = ("shard", "episodes")
"""Settings of one shard rather than of its dataset."""


class DatasetError(ArgumentError):
    """A stored dataset cannot be trusted or read: a damaged or edited shard, a shard of another
    dataset, a missing or damaged checksum or manifest. The message names the file (and the row
    group or row where it is known) and says what to do."""


def identity(settings: Mapping[str, Any]) -> str:
    """The sha256 of a dataset's settings (canonical JSON, without the per-shard ones)."""
    chosen = {k: v for k, v in settings.items() if k not in _PER_SHARD}
    return hashlib.sha256(
        json.dumps(chosen, sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def checksum_name(shard_file: str) -> str:
    """``part-00003.parquet`` -> ``_part-00003.json`` (a leading ``_``: Parquet readers given
    the folder skip it)."""
    return "_" + shard_file.removesuffix(".parquet") + ".json"


def open_input(fs: pafs.FileSystem, path: str, cap: int | None, what: str) -> tuple[Any, int]:
    """``path`` open for reading and its size, once known to be a regular file of at most
    ``cap`` bytes (``DatasetError`` otherwise)."""
    if isinstance(fs, pafs.LocalFileSystem):
        return open_regular(path, cap, DatasetError, what)
    info = fs.get_file_info(path)
    if info.type != pafs.FileType.File:
        raise DatasetError(f"{path}: no such {what} (or not a file)")
    if cap is not None and info.size > cap:
        raise DatasetError(f"{path}: {info.size} bytes, more than a {what} can be ({cap})")
    try:
        return fs.open_input_file(path), info.size
    except (OSError, pa.ArrowException) as err:
        raise DatasetError(f"{path}: cannot open the {what} ({err})") from None


def read_json(fs: pafs.FileSystem, path: str, what: str, cap: int = MAX_JSON_BYTES) -> Any:
    """The JSON document in ``path`` (bounded), or ``DatasetError`` naming the file and line."""
    handle, _ = open_input(fs, path, cap, what)
    with handle:
        try:
            data = handle.read(cap + 1)
        except (OSError, pa.ArrowException) as err:
            raise DatasetError(f"{path}: cannot read the {what} ({err})") from None
    if len(data) > cap:
        raise DatasetError(f"{path}: more than {cap} bytes, more than a {what} can be")
    try:
        return json.loads(data)
    except json.JSONDecodeError as err:
        raise DatasetError(f"{path}, line {err.lineno}: damaged {what} ({err.msg})") from None
    except (UnicodeDecodeError, ValueError) as err:
        raise DatasetError(f"{path}: damaged {what} ({err})") from None


def write_json(fs: pafs.FileSystem, path: str, document: Any) -> None:
    """Write ``document`` to ``path`` whole: under a temporary name, then renamed."""
    temporary = f"{path}.tmp"
    with fs.open_output_stream(temporary) as out:
        out.write((json.dumps(document, indent=1) + "\n").encode())
    fs.move(temporary, path)


def file_sha256(handle: BinaryIO, path: str) -> str:
    """The sha256 of everything from where ``handle`` is to its end (left at the end)."""
    digest = hashlib.sha256()
    try:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    except (OSError, pa.ArrowException) as err:
        raise DatasetError(f"{path}: cannot read the shard ({err})") from None
    return digest.hexdigest()


def read_checksum(fs: pafs.FileSystem, folder: str, shard_file: str) -> dict[str, Any]:
    """The checksum file of ``shard_file``, checked to be one (``DatasetError`` otherwise)."""
    path = f"{folder}/{checksum_name(shard_file)}"
    if fs.get_file_info(path).type == pafs.FileType.NotFound:
        raise DatasetError(
            f"{folder}/{shard_file} has no checksum file {checksum_name(shard_file)} (written "
            "by an older panda-core, or the file was removed): it cannot be checked, so it is "
            "not trusted; remove the shard to have it played again"
        )
    document = read_json(fs, path, "shard checksum file")
    if not (
        isinstance(document, dict)
        and document.get("format") == CHECKSUM_FORMAT
        and document.get("file") == shard_file
        and isinstance(document.get("bytes"), int)
        and re.fullmatch(r"[0-9a-f]{64}", str(document.get("sha256")))
        and re.fullmatch(r"[0-9a-f]{64}", str(document.get("settings_sha256")))
    ):
        raise DatasetError(f"{path}: not the checksum file of {shard_file} (damaged or edited)")
    return document


def verify_shard(handle: BinaryIO, size: int, path: str, recorded: Mapping[str, Any]) -> None:
    """``DatasetError`` unless the open shard ``handle`` (of ``size`` bytes) has the size and
    sha256 its checksum file ``recorded``; ``handle`` is left at its start."""
    again = "remove it and its _part-*.json to have it played again"
    if size != recorded["bytes"]:
        raise DatasetError(
            f"{path}: {size} bytes, but {recorded['bytes']} were written (truncated or "
            f"replaced); {again}"
        )
    handle.seek(0)
    if file_sha256(handle, path) != recorded["sha256"]:
        raise DatasetError(
            f"{path}: its contents do not match the sha256 recorded when it was written (the "
            f"file is damaged or was edited); {again}"
        )
    handle.seek(0)


def parquet_file(handle: Any, size: int, path: str) -> pq.ParquetFile:
    """The Parquet file open on ``handle``, its footer bounded before pyarrow reads it."""
    try:
        handle.seek(max(size - 8, 0))
        tail = handle.read(8)
        handle.seek(0)
    except (OSError, pa.ArrowException) as err:
        raise DatasetError(f"{path}: cannot read the shard ({err})") from None
    if size < 12 or len(tail) != 8 or tail[4:] != b"PAR1":
        raise DatasetError(f"{path}: not a Parquet file (truncated or damaged)")
    (footer,) = struct.unpack("<I", tail[:4])
    if footer > min(size - 12, MAX_FOOTER_BYTES):
        raise DatasetError(
            f"{path}: a Parquet footer of {footer} bytes in a file of {size} (at most "
            f"{MAX_FOOTER_BYTES}): damaged"
        )
    try:
        return pq.ParquetFile(handle)
    except (OSError, pa.ArrowException, ValueError) as err:
        raise DatasetError(f"{path}: not a readable Parquet file ({err})") from None
