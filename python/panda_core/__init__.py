"""panda-core: fast, exact engines for the panda card games, for bots and RL agents.

* :mod:`panda_core.head` — Panda Head (RULES.md Part H)
* :mod:`panda_core.climb` — Year of the Panda and Panda Spin (RULES.md Part S)
* :func:`panda_core.simulate` — batch simulation with built-in bots, in Rust
* :mod:`panda_core.oracle` — an independent pure-Python reading of the rules (the test reference)

Every error is a :class:`PandaCoreError` (a ``ValueError``); illegal moves raise
:class:`IllegalMoveError`, whose ``legal`` attribute lists the legal moves.
"""

from panda_core import climb, head
from panda_core._core import (
    BOT_NAMES,
    ClimbGame,
    ClimbMove,
    ClimbSettings,
    EngineInvariantError,
    GameOverError,
    HeadGame,
    HeadMove,
    HeadRules,
    IllegalMoveError,
    InvalidStateError,
    PandaCoreError,
    RulesError,
    __version__,
)
from panda_core.simulate import SimulationResult, simulate

__all__ = [
    "BOT_NAMES",
    "ClimbGame",
    "ClimbMove",
    "ClimbSettings",
    "EngineInvariantError",
    "GameOverError",
    "HeadGame",
    "HeadMove",
    "HeadRules",
    "IllegalMoveError",
    "InvalidStateError",
    "PandaCoreError",
    "RulesError",
    "SimulationResult",
    "__version__",
    "climb",
    "head",
    "simulate",
]
