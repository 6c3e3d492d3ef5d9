"""Self-play datasets with search stats for the warm start's tests, made without the
``--search-stats`` writer: a real dataset of ``panda_core.selfplay`` (heuristic bots, fast), to
which the two columns of the contract (docs/selfplay.md, "Columns") are added with pyarrow, with
each shard's checksum file and the manifest rewritten so that the reader's checks pass.

``favoured(legal_ids, move_index_count)`` picks the move the "search" prefers in a decision:
it gets the most visits and a high value, every other legal move few visits and a low value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from panda_core.selfplay.integrity import checksum_name, identity
from panda_core.selfplay.run import selfplay
from panda_core.selfplay.schema import METADATA_KEY

Rule = Callable[[int, list[int], int, int], tuple[list[int], list[float]] | None]
"""``rule(seat, legal_ids, moves, played)``: the row's visits and values (one per legal move:
per legal id in Panda Head, per ``move_features`` row, ``moves`` of them, in the climbing games;
``played`` is the move played's position among them), or None for a decision of a bot that does
not search (empty lists)."""


def favour_played(
    seat: int, legal: list[int], moves: int, played: int
) -> tuple[list[int], list[float]] | None:
    """Seat 0 searches; it favours the move it played (a search bot plays its most visited
    move): 10 visits and value 0.8, the others 2 visits and value -0.6."""
    if seat != 0:
        return None
    return [10 if i == played else 2 for i in range(moves)], [
        0.8 if i == played else -0.6 for i in range(moves)
    ]


def search_dataset(
    out: Path,
    game: str = "head",
    episodes: int = 4,
    players: int = 4,
    rule: Rule = favour_played,
    move_features: bool | None = None,
    row_group: int = 64,
    shard_episodes: int = 2,
    seed: int = 0,
) -> Path:
    """A dataset at ``out`` of ``episodes`` heuristic games of ``game`` with the search columns
    ``rule`` gives (``move_features``: default for the climbing games)."""
    if move_features is None:
        move_features = game != "head"
    selfplay(
        out, game=game, players=players, episodes=episodes, workers=0, seed=seed,
        shard_episodes=shard_episodes, move_features=move_features,
    )  # fmt: skip
    add_search_columns(out, rule, row_group)
    return out


def add_search_columns(out: Path, rule: Rule, row_group: int = 64) -> None:
    """Add ``search_visits`` / ``search_values`` to every shard of the dataset at ``out`` (and
    ``search_stats: true`` to its settings), rewriting the checksums and the manifest."""
    manifest_path = out / "_dataset.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["shards"]:
        path = out / entry["file"]
        table = pq.read_table(path)
        settings = json.loads(table.schema.metadata[METADATA_KEY])
        settings["search_stats"] = True
        visits: list[list[int]] = []
        values: list[list[float]] = []
        ids = table.column("legal_actions").to_pylist()
        if "move_features" in table.column_names:
            moves = [len(rows) for rows in table.column("move_features").to_pylist()]
            played = table.column("move_index").to_pylist()
        else:
            moves = [len(legal) for legal in ids]
            played = [
                legal.index(a)
                for legal, a in zip(ids, table.column("action").to_pylist(), strict=True)
            ]
        seats = table.column("seat").to_pylist()
        for seat, legal, n, chosen in zip(seats, ids, moves, played, strict=True):
            got = rule(seat, legal, n, chosen)
            visits.append(got[0] if got else [])
            values.append(got[1] if got else [])
        table = with_columns(table, visits, values, settings)
        write_shard(out, entry, table, settings, row_group)
    manifest["search_stats"] = True
    settings = {
        k: v
        for k, v in manifest.items()
        if k not in ("settings_sha256", "episodes", "decisions", "bytes", "shards", "schema")
    }
    manifest["settings_sha256"] = identity(settings)
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")


def with_columns(
    table: pa.Table, visits: list[list[int]], values: list[list[float]], settings: dict[str, Any]
) -> pa.Table:
    """``table`` with the two search columns (replaced if there) and ``settings`` as metadata."""
    for name in ("search_visits", "search_values"):
        if name in table.column_names:
            table = table.drop_columns([name])
    kinds = {"search_visits": pa.int32(), "search_values": pa.float32()}
    for name, rows in (("search_visits", visits), ("search_values", values)):
        kind = pa.list_(pa.field("item", kinds[name], nullable=False))
        table = table.append_column(pa.field(name, kind, nullable=False), pa.array(rows, kind))
    return table.replace_schema_metadata({METADATA_KEY: json.dumps(settings)})


def write_shard(
    out: Path, entry: dict[str, Any], table: pa.Table, settings: dict[str, Any], row_group: int
) -> None:
    """Write ``table`` as the shard ``entry`` names, with its checksum file (and ``entry``)
    updated to match."""
    path = out / entry["file"]
    pq.write_table(table, path, row_group_size=row_group)
    blob = path.read_bytes()
    entry["bytes"] = len(blob)
    entry["sha256"] = hashlib.sha256(blob).hexdigest()
    checksum_path = out / checksum_name(entry["file"])
    checksum = json.loads(checksum_path.read_text())
    checksum.update(bytes=len(blob), sha256=entry["sha256"], settings_sha256=identity(settings))
    checksum_path.write_text(json.dumps(checksum, indent=1) + "\n")


def rewrite_manifest(out: Path, **changes: Any) -> None:
    """Change fields of the manifest only (not the shards)."""
    path = out / "_dataset.json"
    manifest = json.loads(path.read_text())
    manifest.update(changes)
    path.write_text(json.dumps(manifest, indent=1) + "\n")
