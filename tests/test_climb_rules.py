"""The climbing-game rule tests, run against the Rust engine.

``test_oracle_climb.py`` holds the rule tests by S-ID, written against the oracle's API on
hand-built positions with hand-computed expectations. This module runs every one of them that
plays a game again with the oracle class swapped for the Rust engine behind a thin adapter, so
each S-rule scenario checks both implementations. (Classification and beating are compared
directly in ``test_climb_combos.py``.)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

import test_oracle_climb as scenarios
from panda_core import ClimbGame, ClimbSettings
from panda_core.oracle.climb import ClimbSettings as OracleSettings
from panda_core.oracle.climb import Move


class RustClimbGame:
    """The Rust ``ClimbGame`` behind the oracle's interface (docs/climb_interface.md §9)."""

    def __init__(self, game: ClimbGame) -> None:
        self.game = game

    @classmethod
    def new(cls, players: int, seed: int, settings: OracleSettings | None = None) -> RustClimbGame:
        s = settings if settings is not None else OracleSettings()
        if isinstance(players, bool) or isinstance(s.first_player, bool):
            raise ValueError("players and first_player are ints, not bools")
        rust_settings = ClimbSettings(
            preset=s.preset,  # type: ignore[arg-type]
            panda_mood=s.panda_mood,  # type: ignore[arg-type]
            first_player=s.first_player,
            deck=None if s.deck is None else str(s.deck),
        )
        return cls(ClimbGame(players, seed, rust_settings))

    @classmethod
    def from_snapshot(cls, snap: dict[str, Any], deck: object = None) -> RustClimbGame:
        assert deck is None, "the adapter rebuilds positions with the shipped deck"
        return cls(ClimbGame.from_snapshot(snap))

    @property
    def current_player(self) -> int | None:
        return self.game.current_player

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def winner(self) -> int | None:
        return self.game.winner

    def legal_moves(self) -> list[Move]:
        return [Move.from_json(m.to_json()) for m in self.game.legal_moves()]

    def apply(self, move: Move) -> None:
        self.game.apply(move.to_json())  # type: ignore[arg-type]

    def snapshot(self) -> dict[str, Any]:
        return self.game.snapshot()


def _plays_games(test: Callable[..., Any]) -> bool:
    source = inspect.getsource(test)
    return "OracleClimbGame" in source or "position(" in source


#: Scenarios that read the oracle's internals; their Rust counterparts are in
#: test_climb_combos.py (test_s2_4_custom_deck_changes_play_rust).
ORACLE_INTERNALS = {"test_s2_4_custom_deck_changes_play"}

GAME_TESTS = sorted(
    name
    for name, obj in vars(scenarios).items()
    if name.startswith("test_")
    and callable(obj)
    and _plays_games(obj)
    and name not in ORACLE_INTERNALS
)


def _params(name: str) -> list[Any]:
    marks = getattr(getattr(scenarios, name), "pytestmark", [])
    for mark in marks:
        if mark.name == "parametrize":
            argnames, values = mark.args[0], mark.args[1]
            names = (
                [a.strip() for a in argnames.split(",")]
                if isinstance(argnames, str)
                else list(argnames)
            )
            return [
                pytest.param(
                    name,
                    dict(zip(names, v if len(names) > 1 else (v,), strict=True)),
                    id=f"{name}-{v}",
                )
                for v in values
            ]
    return [pytest.param(name, {}, id=name)]


@pytest.mark.parametrize(("name", "kwargs"), [p for n in GAME_TESTS for p in _params(n)])
def test_s_rule_scenario_on_rust_engine(
    name: str, kwargs: dict[str, Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """Every S-rule scenario of test_oracle_climb.py, played by the Rust engine."""
    monkeypatch.setattr(scenarios, "OracleClimbGame", RustClimbGame)
    test = getattr(scenarios, name)
    if "tmp_path" in inspect.signature(test).parameters:
        kwargs = {**kwargs, "tmp_path": tmp_path}
    test(**kwargs)


def test_the_adapter_covers_the_game_scenarios() -> None:
    assert len(GAME_TESTS) >= 30
