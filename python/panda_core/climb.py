"""The climbing games (docs/rules/year.md, spin.md): Year of the Panda (preset ``year``) and Panda
Spin (preset ``spin``), one engine with two presets.

>>> import panda_core
>>> game = panda_core.make("year", players=4, seed=7)    # or ClimbGame(4, 7, ClimbSettings(...))
>>> while not game.is_over:
...     events = game.apply(game.legal_moves()[-1])
>>> game.winner in range(4)
True

Moves are objects with a readable notation that parses back (``parse_move``)::

    pass
    single Ea8
    set Fi3+Ea10 as 10          # a wild (fire) unit named 10
    single Ea8 flip Fi4+Wo5     # year, mood "flip": the panda turns two cards blue
    single Ea8 steal 1+1        # spin: the panda steals two points from seat 1
    element Fi!                 # an element (wind) card played on the table
    discard_element Wa!         # an element card discarded (S-6.5)

The card table is data (``data/decks/reconstructed.toml``, schema in docs/deck_schema.md); pass
``ClimbSettings(deck="my_deck.toml")`` to play with another one.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from panda_core._core import ClimbGame, ClimbMove, ClimbSettings
from panda_core._types import GameOutcome

# ---- the shapes of this game's plain data (dicts the engine returns) ----------------------------

ClimbPreset = Literal["year", "spin"]
PandaMood = Literal["hungry", "flip"]
ClimbMoveKind = Literal[
    "pass", "discard_element", "element", "single", "set", "run", "formation", "bomb"
]


class ClimbMoveDict(TypedDict):
    """A climbing move's JSON record (docs/climb_interface.md §5.1)."""

    kind: ClimbMoveKind
    cards: list[int]
    named: list[int]
    flip: list[int]
    steal: list[int]


class ClimbCombo(TypedDict):
    """A classified play (docs/climb_interface.md §6.1)."""

    kind: str
    cards: list[int]
    named: list[int]
    rank: int
    units: int
    length: int
    copies: int
    has_blue: bool


class ClimbRoundResult(TypedDict):
    """A climbing round's result (``round`` counts from 1, as the snapshot format does)."""

    round: int
    starter: int
    shown_out: list[int]
    hand_sizes: list[int]
    scores: list[int]


class ClimbBatch(TypedDict):
    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.uint32]
    decisions: npt.NDArray[np.uint32]
    scores: npt.NDArray[np.uint32]
    left: npt.NDArray[np.uint32]
    """Games × players: the round (from 1) at whose end each seat left the game (Panda Head's
    Pooped Pandas, H-6.2), 0 for a seat that stayed (every seat of a climbing game)."""


class ClimbMoveInfo(TypedDict):
    """:meth:`ClimbGame.move_info`: the faces a move's cards show and its classification."""

    faces: list[Literal["white", "blue", "element"]]
    combo: ClimbCombo | None


ClimbFinalResult = GameOutcome
"""The climbing games' ``result()``: the shared keys only."""


__all__ = [
    "ClimbBatch",
    "ClimbCombo",
    "ClimbFinalResult",
    "ClimbGame",
    "ClimbMove",
    "ClimbMoveDict",
    "ClimbMoveInfo",
    "ClimbMoveKind",
    "ClimbPreset",
    "ClimbRoundResult",
    "ClimbSettings",
    "PandaMood",
    "from_json",
    "parse_move",
    "render_text",
]


def parse_move(text: str) -> ClimbMove:
    """Parse a move's notation (``"set Fi3+Ea10 as 10"``); raises ``InvalidStateError`` if
    malformed."""
    return ClimbMove.parse(text)


def from_json(text: str) -> ClimbGame:
    """Rebuild a game from :meth:`ClimbGame.to_json`, replaying and checking every move."""
    return ClimbGame.from_json(text)


def render_text(game: ClimbGame) -> str:
    """A few lines of text: the round, scores and hand sizes, the combination to beat, and the
    seat to move (the RL environments' ``render()``)."""
    seat = game.current_player
    view = game.view(seat if seat is not None else 0)
    lines = [
        f"{view['preset']}, round {game.round}; scores {game.scores}; "
        f"hand sizes {view['hand_sizes']}",
        f"to beat: {view['trick'].get('to_beat') or '(lead)'}",
    ]
    if seat is not None:
        lines.append(f"seat {seat} to move, {len(view['legal_moves'])} legal moves")
    if game.is_over:
        lines.append(f"game over: seat {game.winner} wins")
    return "\n".join(lines)
