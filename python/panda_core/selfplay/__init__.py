"""Self-play datasets: every decision of games played by bots, in Parquet files
(docs/selfplay.md).

>>> from panda_core.selfplay import selfplay, iter_batches
>>> info = selfplay("data/head", game="head", episodes=200, workers=0)   # doctest: +SKIP
>>> for batch in iter_batches("data/head", columns=["observation", "legal_mask"]):  # doctest: +SKIP
...     x, mask = batch["observation"], batch["legal_mask"]

Needs the ``dataset`` extra (``pip install panda-core[dataset]``: pyarrow).
"""

from panda_core.selfplay.reader import iter_batches, load, scatter, to_numpy
from panda_core.selfplay.run import (
    MANIFEST,
    SHARD_EPISODES,
    DatasetInfo,
    SelfPlayError,
    ShardFailure,
    ShardInfo,
    selfplay,
)
from panda_core.selfplay.schema import FORMAT, FORMAT_VERSION

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MANIFEST",
    "SHARD_EPISODES",
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
