"""Self-play datasets: every decision of games played by bots, in Parquet files
(docs/selfplay.md).

>>> from panda_core.selfplay import selfplay, iter_batches
>>> info = selfplay("data/head", game="head", episodes=200, workers=0)   # doctest: +SKIP
>>> for batch in iter_batches("data/head", columns=["observation", "legal_mask"]):  # doctest: +SKIP
...     x, mask = batch["observation"], batch["legal_mask"]

Needs the ``dataset`` extra (``pip install panda-core[dataset]``: pyarrow).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from panda_core.selfplay.integrity import DatasetError
    from panda_core.selfplay.reader import iter_batches, load, scatter, to_numpy
    from panda_core.selfplay.run import (
        MANIFEST,
        MAX_EPISODES,
        MAX_SHARDS,
        SHARD_EPISODES,
        DatasetInfo,
        SelfPlayError,
        ShardFailure,
        ShardInfo,
        selfplay,
    )
    from panda_core.selfplay.schema import FORMAT, FORMAT_VERSION

# Imported on first use, not with the package: pyarrow is an extra, and the command line imports
# ``panda_core.selfplay.cli`` (so this package) for every subcommand.
_HOMES = {
    name: module
    for module, names in {
        "integrity": "DatasetError",
        "reader": "iter_batches load scatter to_numpy",
        "run": "MANIFEST MAX_EPISODES MAX_SHARDS SHARD_EPISODES DatasetInfo SelfPlayError "
        "ShardFailure ShardInfo selfplay",
        "schema": "FORMAT FORMAT_VERSION",
    }.items()
    for name in names.split()
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'panda_core.selfplay' has no attribute {name!r}")
    return getattr(importlib.import_module(f"panda_core.selfplay.{home}"), name)


__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "MAX_EPISODES",
    "MAX_SHARDS",
    "SHARD_EPISODES",
    "DatasetError",
    "DatasetInfo",
    "SelfPlayError",
    "ShardFailure",
    "ShardInfo",
    "iter_batches",
    "load",
    "scatter",
    "selfplay",
    "to_numpy",
]
