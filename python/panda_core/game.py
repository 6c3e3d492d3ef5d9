"""One API for every game: :func:`make` builds a game by name, :class:`Game` describes the verbs
every game object has (``HeadGame``, ``ClimbGame``), with the same meaning and return types.

>>> import panda_core
>>> for name in ("head", "year", "spin"):
...     game = panda_core.make(name, players=3, seed=7)
...     while not game.is_over:
...         events = game.apply(game.legal_actions()[0])
...     assert game.result()["winner"] == game.winner

Seats, hands/rounds and piles are numbered from 0 (a climbing round result's ``round`` counts
from 1, as its snapshot format does). The verbs, their types and the event format:
``docs/game_api.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, Self, SupportsIndex, TypeVar, runtime_checkable

import numpy as np
import numpy.typing as npt

from panda_core._registry import AnyGame, AnyRules, GameName, spec
from panda_core._types import CardInfo, Event, GameOutcome, RoundResult

__all__ = ["CardInfo", "Game", "make"]

M = TypeVar("M")


@runtime_checkable
class Game(Protocol[M]):
    """What every game object offers; ``M`` is its move class (``Game[HeadMove]`` is a
    ``HeadGame``, ``Game[ClimbMove]`` a ``ClimbGame``, ``Game[Any]`` any game).

    ``isinstance(x, Game)`` checks that the verbs exist (not their types).
    """

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
    def legal_moves(self) -> list[M]: ...
    def legal_actions(self) -> list[int]: ...
    def legal_action_mask(self) -> npt.NDArray[np.bool_]: ...
    def move_for_action(self, action: SupportsIndex) -> M: ...
    def action_index(self, move: M) -> int: ...
    def apply(self, move: M | SupportsIndex | str) -> Sequence[Event]: ...
    def clone(self) -> Self: ...
    @property
    def history(self) -> list[Event]: ...
    def events(self, player: SupportsIndex | None = None) -> list[Event]: ...
    def public_events(self) -> list[Event]: ...
    @property
    def round_results(self) -> Sequence[RoundResult]: ...
    def result(self) -> GameOutcome: ...
    def view(self, player: SupportsIndex) -> Mapping[str, Any]: ...
    def observation(self, player: SupportsIndex) -> npt.NDArray[np.float32]: ...
    def snapshot(self) -> Mapping[str, Any]: ...
    def to_json(self) -> str: ...
    def bot_move(
        self,
        bot: str = "heuristic",
        seed: SupportsIndex | None = None,
        time_limit: float | None = None,
    ) -> M: ...
    def search_stats(
        self,
        bot: str = "ismcts:200",
        seed: SupportsIndex | None = None,
        time_limit: float | None = None,
    ) -> list[tuple[M, int, float]]: ...
    def cards(self) -> list[CardInfo]: ...
    def determinize(self, player: SupportsIndex, seed: SupportsIndex | None = None) -> Self: ...
    def seat(self, player: SupportsIndex) -> Any: ...


def make(
    game: GameName | str, players: int = 4, seed: int = 0, rules: object = None, **options: Any
) -> AnyGame:
    """A new game of ``game`` (``"head"``, ``"year"`` or ``"spin"``) for ``players`` (2–5), dealt
    from ``seed`` (0 … 2**64 − 1).

    The rules are ``rules`` (a ``HeadRules`` / ``ClimbSettings``), or built from ``options``, the
    rules class's keyword arguments (``make("head", bust_threshold=15)``,
    ``make("year", panda_mood="flip")``); a climbing game's preset is its name. Unknown games and
    invalid rules are a ``RulesError``.
    """
    return spec(game).new_game(players, seed, rules, **options)
