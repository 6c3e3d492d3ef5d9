"""Independent pure-Python oracles for panda-core, written from the rules alone (docs/rules/).

Only the standard library is used; nothing here imports the compiled engine (``panda_core._core``).

* :mod:`panda_core.oracle.rng`  - SplitMix64 (R-1) and the shuffle (R-3).
* :mod:`panda_core.oracle.head` - Panda Head (Part H).
"""

from .head import HeadRules, OracleHeadGame
from .rng import SplitMix64, shuffle

__all__ = ["HeadRules", "OracleHeadGame", "SplitMix64", "shuffle"]
