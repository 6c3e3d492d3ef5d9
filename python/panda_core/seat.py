"""The seat object: the only thing a Python bot is handed.

``game.seat(player)`` is one seat's window on a game (a :class:`~panda_core.HeadSeat` or
:class:`~panda_core.ClimbSeat`, built by the engine): the game's verbs, each answering only what
that seat may know. Every loop that asks a Python bot for its move (``play_game``, the arena,
tables, ``serve``, self-play, the Gymnasium opponents) hands it a seat, through
:func:`panda_core.bot_move.ask_move`; over the bot protocol a contained bot gets a
:class:`~panda_core.protocol.remote_seat.RemoteSeat` with the same verbs, built from the
protocol's messages.

What a seat holds cannot be reached from Python: no attribute, ``repr``, pickle or ``to_json``
shows a card the seat may not know. Another seat's ``view`` / ``observation`` / ``events`` is
refused (:class:`~panda_core.ArgumentError`); the legal moves exist only while the seat is to move
(another seat's legal moves would show its hand). A search plays on complete games sampled from
the seat's information, ``seat.determinize(seed)``; a built-in bot decides for the seat with
``seat.bot_move(name, seed)``. docs/game_api.md, "Seats".

>>> import panda_core
>>> game = panda_core.make("head", players=3, seed=7)
>>> seat = game.seat(game.current_player)
>>> seat.legal_actions() == game.legal_actions()
True
>>> game.seat(0).view(1)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
panda_core.ArgumentError: seat 0 cannot see seat 1's view: ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, SupportsIndex, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from panda_core._registry import AnyGame, AnyRules, AnySeat
from panda_core._types import CardInfo, Event, GameOutcome, LegalEntry, RoundResult

__all__ = ["AnySeat", "Seat"]

M = TypeVar("M", covariant=True)


@runtime_checkable
class Seat(Protocol[M]):
    """What every seat object offers (``Seat[HeadMove]`` is a ``HeadSeat``, ``Seat[ClimbMove]``
    a ``ClimbSeat``); the verbs a bot may use. ``isinstance(x, Seat)`` checks they exist."""

    @property
    def player(self) -> int: ...
    @property
    def players(self) -> int: ...
    @property
    def current_player(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def scores(self) -> list[int]: ...
    @property
    def rules(self) -> AnyRules: ...
    @property
    def num_actions(self) -> int: ...
    def legal_moves(self) -> Sequence[M]: ...
    def legal_actions(self) -> list[int]: ...
    def legal_action_mask(self) -> npt.NDArray[np.bool_]: ...
    def legal_list(self) -> list[LegalEntry]: ...
    @property
    def history(self) -> list[Event]: ...
    def events(self, player: SupportsIndex | None = None) -> list[Event]: ...
    @property
    def round_results(self) -> Sequence[RoundResult]: ...
    def result(self) -> GameOutcome: ...
    def view(self, player: SupportsIndex | None = None) -> Mapping[str, Any]: ...
    def observation(self, player: SupportsIndex | None = None) -> npt.NDArray[np.float32]: ...
    def to_json(self) -> str: ...
    def bot_move(
        self,
        bot: str = "heuristic",
        seed: SupportsIndex | None = None,
        time_limit: float | None = None,
    ) -> M: ...
    def cards(self) -> list[CardInfo]: ...
    def determinize(self, seed: SupportsIndex | None = None, /) -> AnyGame: ...
