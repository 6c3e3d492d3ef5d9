"""panda-core: fast, exact engines for the panda card games, for bots and RL agents.

* :func:`panda_core.make` — any game by name (``"head"``, ``"year"``, ``"spin"``); every game
  object has the same verbs (:class:`panda_core.Game`, docs/game_api.md)
* :mod:`panda_core.head` — Panda Head (docs/rules/head.md)
* :mod:`panda_core.climb` — Year of the Panda and Panda Spin (docs/rules/year.md, spin.md)
* :func:`panda_core.simulate` — batch simulation with built-in bots, in Rust (Python bots too)
* :class:`HeadVectorEnv`, :class:`ClimbVectorEnv` — N games stepped in one call, in Rust, for
  RL training (docs/agents.md, "Vector environment")
* :mod:`panda_core.bots` — the :class:`Bot` protocol, :func:`play_game`
* :mod:`panda_core.seat` — the seat object a bot is handed (``game.seat(player)``): one seat's
  information, nothing else
* :mod:`panda_core.arena` — many games between bots, with ratings (:func:`~panda_core.arena.arena`)
* :mod:`panda_core.rl` — PettingZoo and Gymnasium environments (extra ``[rl]``)
* :mod:`panda_core.oracle` — an independent pure-Python reading of the rules (the test reference)

Every error is a :class:`PandaCoreError` (a ``ValueError``), or a ``TypeError`` for a value of
the wrong type; illegal moves raise :class:`IllegalMoveError`, whose ``legal`` attribute lists the
legal moves. The contract and the thread-safety rules: ``docs/errors.md``.
"""

import collections.abc as _abc

from panda_core import bots, climb, head
from panda_core._core import (
    BOT_NAMES,
    ArgumentError,
    ClimbGame,
    ClimbMove,
    ClimbSeat,
    ClimbSettings,
    ClimbVectorEnv,
    ConcurrentUseError,
    EngineInvariantError,
    GameOverError,
    HeadGame,
    HeadMove,
    HeadRules,
    HeadSeat,
    HeadVectorEnv,
    IllegalMoveError,
    InvalidStateError,
    MoveEvents,
    NeuralPolicy,
    PandaCoreError,
    PolicyError,
    RulesError,
    __version__,
)
from panda_core._registry import GAMES
from panda_core._types import Event, GameEndEvent, MoveEvent, RoundEndEvent
from panda_core.bots import (
    Bot,
    BuiltinBot,
    GameResult,
    IllegalBotMoveError,
    play_game,
)
from panda_core.game import Game, make
from panda_core.seat import Seat
from panda_core.simulate import SimulationResult, simulate

# `apply()` returns a MoveEvents: a read-only sequence like any other.
_abc.Sequence.register(MoveEvents)

__all__ = [
    "BOT_NAMES",
    "GAMES",
    "ArgumentError",
    "Bot",
    "BuiltinBot",
    "ClimbGame",
    "ClimbMove",
    "ClimbSeat",
    "ClimbSettings",
    "ClimbVectorEnv",
    "ConcurrentUseError",
    "EngineInvariantError",
    "Event",
    "Game",
    "GameEndEvent",
    "GameOverError",
    "GameResult",
    "HeadGame",
    "HeadMove",
    "HeadRules",
    "HeadSeat",
    "HeadVectorEnv",
    "IllegalBotMoveError",
    "IllegalMoveError",
    "InvalidStateError",
    "MoveEvent",
    "MoveEvents",
    "NeuralPolicy",
    "PandaCoreError",
    "PolicyError",
    "RoundEndEvent",
    "RulesError",
    "Seat",
    "SimulationResult",
    "__version__",
    "bots",
    "climb",
    "head",
    "make",
    "play_game",
    "simulate",
]
