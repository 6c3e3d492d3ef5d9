"""Panda Head (docs/rules/head.md): a trick-taking game for 2–5 players where points are bad.

Everything here runs in the Rust engine; this module names the public pieces and documents them.

>>> import panda_core
>>> game = panda_core.make("head", players=4, seed=7)     # or HeadGame(4, 7, rules)
>>> while not game.is_over:
...     events = game.apply(game.legal_moves()[0])
>>> game.result()["winner"] in range(4)
True

Action ids (``NUM_ACTIONS`` = 24, a fixed space for masks and RL agents):

* ``0 .. 10``  a regular Panda of value ``id + 1`` (notation ``"7"``);
* ``11 .. 21`` a regular Panda of value ``id - 10`` with one Bamboo, worth value + 2 (``"7+B"``);
* ``22``       a Big Panda (``"BP"``);
* ``23``       a Bamboo alone, only from a hand of nothing but Bamboo (``"B"``).

Card ids follow H-1.3: ``0 .. 54`` regular Pandas of value ``id // 5 + 1``, ``55 .. 58`` Big Pandas,
``59 .. 62`` Bamboo.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from panda_core._args import int_arg
from panda_core._core import (
    HEAD_BAMBOO_ACTION,
    HEAD_BIG_PANDA_ACTION,
    HEAD_OBSERVATION_SIZE,
    NUM_HEAD_ACTIONS,
    ArgumentError,
    HeadGame,
    HeadMove,
    HeadRules,
)
from panda_core._types import GameOutcome

# ---- the shapes of this game's plain data (dicts the engine returns) ----------------------------

LastPileScoring = Literal["pile_sum", "own_card"]

HeadMoveKind = Literal["panda", "panda_bamboo", "big_panda", "bamboo"]

PilePlay = tuple[int, int, int, list[int]]
"""(seat, action_id, effective value, card ids consumed)."""


class HeadRulesDict(TypedDict):
    last_pile_scoring: LastPileScoring
    poor_panda: bool
    lowest_only_when_cannot_follow: bool
    bust_threshold: int
    special_cards: bool
    first_dealer: int


class HandResult(TypedDict):
    """A Panda Head hand's result (a hand is a round)."""

    hand: int
    dealer: int
    last_pile_winner: int
    deltas: list[int]
    scores: list[int]
    new_drowsy: list[int]
    new_pooped: list[int]


class FinalResult(GameOutcome):
    """Panda Head's ``result()``."""

    drowsy: list[bool]
    pooped: list[bool]
    hands_played: int


class HeadView(TypedDict):
    player: int
    hand: list[int]
    hand_sizes: list[int]
    draw_pile_size: int
    legal_action_ids: list[int]
    hand_number: int
    dealer: int
    scores: list[int]
    drowsy: list[bool]
    pooped: list[bool]
    discard: list[int]
    pile_number: int
    pile_plays: list[PilePlay]
    leader: int
    current_player: int | None
    is_over: bool
    winner: int | None


class HeadSnapshot(TypedDict):
    players: int
    hand_number: int
    dealer: int
    scores: list[int]
    drowsy: list[bool]
    pooped: list[bool]
    hands: list[list[int]]
    draw_pile: list[int]
    discard: list[int]
    pile_number: int
    pile_plays: list[PilePlay]
    leader: int
    current_player: int | None
    is_over: bool
    winner: int | None
    rng_state: int
    hand_results: list[HandResult]


class HeadBatch(TypedDict):
    winner: npt.NDArray[np.int8]
    hands: npt.NDArray[np.uint32]
    decisions: npt.NDArray[np.uint32]
    scores: npt.NDArray[np.uint32]
    left: npt.NDArray[np.uint32]
    """Games × players: the round (from 1) at whose end each seat left the game (Panda Head's
    Pooped Pandas, H-6.2), 0 for a seat that stayed (every seat of a climbing game)."""


NUM_ACTIONS: int = NUM_HEAD_ACTIONS
"""Number of distinct Panda Head action ids."""
OBSERVATION_SIZE: int = HEAD_OBSERVATION_SIZE
"""Length of :meth:`HeadGame.observation` (float32; layout in ``src/head/observation.rs``)."""
BIG_PANDA_ACTION: int = HEAD_BIG_PANDA_ACTION
BAMBOO_ACTION: int = HEAD_BAMBOO_ACTION

__all__ = [
    "BAMBOO_ACTION",
    "BIG_PANDA_ACTION",
    "NUM_ACTIONS",
    "OBSERVATION_SIZE",
    "FinalResult",
    "HandResult",
    "HeadGame",
    "HeadMove",
    "HeadRules",
    "HeadSnapshot",
    "HeadView",
    "action_notation",
    "card_name",
    "from_deal",
    "from_json",
    "render_text",
]


def from_deal(
    hands: list[list[int]],
    draw_pile: list[int],
    *,
    dealer: int = 0,
    scores: list[int] | None = None,
    drowsy: list[bool] | None = None,
    pooped: list[bool] | None = None,
    rng_state: int | None = None,
    hand_number: int = 0,
    rules: HeadRules | None = None,
) -> HeadGame:
    """A game from an explicit position at the start of a hand.

    ``hands`` has one list of card ids per seat (7 cards, none for a Pooped seat); ``draw_pile``
    is top card first; together they must hold every card of the deck exactly once.
    ``rng_state`` seeds the shuffles of later hands; ``hand_number`` (the 0-based index of this
    hand) is 0 … 2**31 − 1, so later hands can still be counted. Raises ``InvalidStateError``
    with the reason when the position is not valid.
    """
    return HeadGame.from_deal(
        hands,
        draw_pile,
        dealer=dealer,
        scores=scores,
        drowsy=drowsy,
        pooped=pooped,
        rng_state=rng_state,
        hand_number=hand_number,
        rules=rules,
    )


def from_json(text: str) -> HeadGame:
    """Rebuild a game from :meth:`HeadGame.to_json`, replaying and checking every action."""
    return HeadGame.from_json(text)


def _rules_from_dict(values: HeadRulesDict) -> HeadRules:
    """Rebuild rules from :meth:`HeadRules.to_dict` (used by pickle)."""
    return HeadRules(**values)


def action_notation(action_id: int) -> str:
    """The notation of an action id: ``"7"``, ``"7+B"``, ``"BP"`` or ``"B"``."""
    action_id = int_arg(action_id, "action_id")
    if not 0 <= action_id < NUM_ACTIONS:
        raise ArgumentError(f"action ids are 0..{NUM_ACTIONS - 1}, got {action_id}")
    if action_id <= 10:
        return str(action_id + 1)
    if action_id <= 21:
        return f"{action_id - 10}+B"
    return "BP" if action_id == BIG_PANDA_ACTION else "B"


def card_name(card_id: int) -> str:
    """A readable name for a card id: ``"7"`` for a regular Panda, ``"BP"``, ``"Bamboo"``."""
    card_id = int_arg(card_id, "card_id")
    if not 0 <= card_id <= 62:
        raise ArgumentError(f"Panda Head card ids are 0..62, got {card_id}")
    if card_id < 55:
        return str(card_id // 5 + 1)
    return "BP" if card_id < 59 else "Bamboo"


def render_text(game: HeadGame) -> str:
    """A few lines of text: the hand, pile and scores, the pile's plays, and what the seat to
    move holds (the RL environments' ``render()``)."""
    seat = game.current_player
    lines = [f"Panda Head, hand {game.hand_number}, pile {game.pile_number}; scores {game.scores}"]
    view = game.view(seat if seat is not None else 0)
    plays = ", ".join(f"seat {p[0]}: {action_notation(p[1])}" for p in view["pile_plays"])
    lines.append(f"pile: {plays or '(empty)'}")
    if seat is not None:
        lines.append(f"seat {seat} to move, holds {' '.join(card_name(c) for c in view['hand'])}")
    if game.is_over:
        lines.append(f"game over: seat {game.winner} wins")
    return "\n".join(lines)
