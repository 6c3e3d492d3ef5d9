"""The columns of a self-play dataset and its format version (docs/selfplay.md, "Columns").

One row is one decision: the seat to move, what it saw (``observation``, ``legal_actions`` and,
when asked for, one feature row per legal move), what it did (``action``, ``move_index``) and how
its game ended for it (``reward``, ``outcome``, ``final_score``, ``place``). The game's settings
go in each file's key-value metadata (:data:`METADATA_KEY`).

The observation and the legal actions are stored sparse: the observation as the positions and
values of its non-zero entries (``observation_index``, ``observation_value``: about 70 of a
climbing observation's 952 floats, 25 of Panda Head's 96), the legal actions as the list of
their ids (a handful per decision), not as the dense mask (24 or 1,284 bools). Parquet encodes
every value of a list column at a cost of its own (its repetition and definition levels, about
10 ns each): dense, a climbing decision's observation alone took as long to write as the
decision took to play. Sparse, they hold exactly the same information, and the reader rebuilds
the dense ``observation`` and ``legal_mask`` arrays in numpy (``reader.scatter``).

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
    "ACTION_TYPE",
    "FORMAT",
    "FORMAT_VERSION",
    "METADATA_KEY",
    "SEARCH_COLUMNS",
    "action_lists",
    "float_lists",
    "float_rows",
    "index_lists",
    "schema",
    "schema_json",
    "settings_of",
    "visit_lists",
]

FORMAT = "panda-core/selfplay"
"""What a file says it is (``format`` in its metadata and in ``_dataset.json``)."""
FORMAT_VERSION = 3
"""Bumped whenever a column changes meaning, type or shape (a reader checks it). Version 3:
``place`` in Panda Head follows the order the seats were Pooped in (version 2 tied every loser
second); ``search_visits``/``search_values`` opt-in. Version 2: ``legal_actions`` (ids) instead
of the dense ``legal_mask``, the observation's non-zero entries (``observation_index``,
``observation_value``) instead of the dense ``observation``, ``move_features`` opt-in."""
METADATA_KEY = b"panda_core.selfplay"
"""The Parquet key-value metadata entry holding the settings (JSON) of a file."""


def float_rows(size: int) -> pa.DataType:
    """A fixed-size list of ``size`` float32 (one observation, one move's features)."""
    return pa.list_(pa.field("item", pa.float32(), nullable=False), size)


ACTION_TYPE = pa.int16()
"""The type of a legal action id: every game's ``num_actions`` is below 2**15 (checked by
:func:`schema`)."""


def action_lists() -> pa.DataType:
    """A list of action ids (one decision's legal actions, in ``game.legal_actions()`` order)."""
    return pa.list_(pa.field("item", ACTION_TYPE, nullable=False))


def index_lists() -> pa.DataType:
    """A list of positions in an observation (its non-zero entries, ascending)."""
    return pa.list_(pa.field("item", pa.int16(), nullable=False))


def float_lists() -> pa.DataType:
    """A list of float32 (the values of an observation's non-zero entries)."""
    return pa.list_(pa.field("item", pa.float32(), nullable=False))


def visit_lists() -> pa.DataType:
    """A list of int32 (a search decision's root visits, one per legal action)."""
    return pa.list_(pa.field("item", pa.int32(), nullable=False))


SEARCH_COLUMNS = ("search_visits", "search_values")
"""The columns of a dataset written with ``search_stats``: each row's search statistics, one
entry per legal action in ``legal_actions`` order (both empty for a bot that does not search)."""


def _field(name: str, kind: pa.DataType) -> pa.Field:
    return pa.field(name, kind, nullable=False)


def schema(
    game: GameSpec,
    settings: Mapping[str, Any] | None = None,
    move_features: bool = False,
    search_stats: bool = False,
) -> pa.Schema:
    """The columns of ``game``'s datasets, with ``settings`` (JSON-ready) as file metadata.

    ``move_index`` (one int per decision: the exact move, which an action id of the climbing
    games does not name) exists for every game with move features (``GameSpec.move_features``
    > 0); the ``move_features`` column itself (one row of floats per legal move, the bulk of a
    climbing decision) only when ``move_features`` is asked for, which such a game needs.
    ``search_visits`` and ``search_values`` (:data:`SEARCH_COLUMNS`) only with
    ``search_stats``, last.
    """
    if max(game.num_actions, game.observation_size) >= 2**15:  # pragma: no cover
        raise ValueError(f"{game.name}: its actions or observation do not fit int16 indices")
    if move_features and not game.move_features:
        raise ValueError(f"{game.name} has no move features")
    fields = [
        _field("game", pa.dictionary(pa.int8(), pa.string())),
        _field("episode", pa.int64()),
        _field("deal", pa.uint64()),
        _field("step", pa.int32()),
        _field("seat", pa.int8()),
        _field("observation_index", index_lists()),
        _field("observation_value", float_lists()),
        _field("legal_actions", action_lists()),
        _field("action", pa.int32()),
        _field("reward", pa.float32()),
        _field("outcome", pa.float32()),
        _field("final_score", pa.int32()),
        _field("place", pa.int8()),
    ]
    if game.move_features:
        fields.append(_field("move_index", pa.int32()))
    if move_features:
        rows = pa.field("item", float_rows(game.move_features), nullable=False)
        fields.append(_field("move_features", pa.list_(rows)))
    if search_stats:
        fields.append(_field("search_visits", visit_lists()))
        fields.append(_field("search_values", float_lists()))
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
