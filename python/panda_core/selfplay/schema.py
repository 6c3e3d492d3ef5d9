"""The columns of a self-play dataset and its format version (docs/selfplay.md, "Columns").

One row is one decision: the seat to move, what it saw (``observation``, ``legal_mask`` and, for
games with move features, one feature row per legal move), what it did (``action``,
``move_index``) and how its game ended for it (``reward``, ``outcome``, ``final_score``,
``place``). The game's settings go in each file's key-value metadata (:data:`METADATA_KEY`).

Every field and every list item is declared non-nullable: nothing is ever missing, and Parquet
then writes no definition levels for them, which makes the wide list columns (thousands of
values per row in the climbing games) markedly cheaper to write.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pyarrow as pa  # type: ignore[import-untyped]

from panda_core._registry import GameSpec

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "METADATA_KEY",
    "bool_rows",
    "float_rows",
    "schema",
    "schema_json",
    "settings_of",
]

FORMAT = "panda-core/selfplay"
"""What a file says it is (``format`` in its metadata and in ``_dataset.json``)."""
FORMAT_VERSION = 1
"""Bumped whenever a column changes meaning, type or shape (a reader checks it)."""
METADATA_KEY = b"panda_core.selfplay"
"""The Parquet key-value metadata entry holding the settings (JSON) of a file."""


def float_rows(size: int) -> pa.DataType:
    """A fixed-size list of ``size`` float32 (one observation, one move's features)."""
    return pa.list_(pa.field("item", pa.float32(), nullable=False), size)


def bool_rows(size: int) -> pa.DataType:
    """A fixed-size list of ``size`` bools (one legal-action mask)."""
    return pa.list_(pa.field("item", pa.bool_(), nullable=False), size)


def _field(name: str, kind: pa.DataType) -> pa.Field:
    return pa.field(name, kind, nullable=False)


def schema(game: GameSpec, settings: Mapping[str, Any] | None = None) -> pa.Schema:
    """The columns of ``game``'s datasets, with ``settings`` (JSON-ready) as file metadata.

    The ``move_features`` and ``move_index`` columns exist only for games with move features
    (``GameSpec.move_features`` > 0): a game without them would hold empty lists.
    """
    fields = [
        _field("game", pa.dictionary(pa.int8(), pa.string())),
        _field("episode", pa.int64()),
        _field("deal", pa.uint64()),
        _field("step", pa.int32()),
        _field("seat", pa.int8()),
        _field("observation", float_rows(game.observation_size)),
        _field("legal_mask", bool_rows(game.num_actions)),
        _field("action", pa.int32()),
        _field("reward", pa.float32()),
        _field("outcome", pa.float32()),
        _field("final_score", pa.int32()),
        _field("place", pa.int8()),
    ]
    if game.move_features:
        rows = pa.field("item", float_rows(game.move_features), nullable=False)
        fields += [_field("move_features", pa.list_(rows)), _field("move_index", pa.int32())]
    metadata = None if settings is None else {METADATA_KEY: json.dumps(dict(settings))}
    return pa.schema(fields, metadata=metadata)


def settings_of(table_schema: pa.Schema) -> dict[str, Any] | None:
    """The settings a file's schema carries, or ``None`` if it is no self-play file."""
    raw = (table_schema.metadata or {}).get(METADATA_KEY)
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def schema_json(table_schema: pa.Schema) -> list[dict[str, str]]:
    """The columns as ``[{"name", "type"}]`` for ``_dataset.json`` (readable without pyarrow)."""
    return [{"name": f.name, "type": str(f.type)} for f in table_schema]
