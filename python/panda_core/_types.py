"""Plain-data shapes returned by the engine (``TypedDict``s), importable at run time."""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict

import numpy as np
import numpy.typing as npt

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


class RoundResult(TypedDict):
    """What every game's ``round_results`` entries share: the scores after the round."""

    scores: list[int]


class GameOutcome(TypedDict):
    """The keys of ``result()`` every game has."""

    is_over: bool
    winner: int | None
    scores: list[int]
    rounds_played: int
    """Rounds played (hands, in Panda Head), the one in progress at the end included."""


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


class ClimbMoveInfo(TypedDict):
    """:meth:`ClimbGame.move_info`: the faces a move's cards show and its classification."""

    faces: list[Literal["white", "blue", "element"]]
    combo: ClimbCombo | None


ClimbFinalResult = GameOutcome
"""The climbing games' ``result()``: the shared keys only."""


# ---- cards (docs/game_api.md, "Cards") ---------------------------------------------------------

CardKind = Literal["panda", "big_panda", "bamboo", "animal", "element"]
"""Panda Head: ``panda`` (a regular value), ``big_panda``, ``bamboo``; the climbing games:
``animal`` (two faces) or ``element`` (a wind card)."""


class CardInfo(TypedDict):
    """One card of a game's deck, as ``game.cards()`` describes it (computed by the engine from
    its card rules and, in the climbing games, from the deck file in play)."""

    id: int
    token: str
    """Short display text, the notation token: ``"7"``, ``"BP"``, ``"B"``; ``"Fi7"``, ``"Wo!"``."""
    label: str
    """Long display text: ``"Panda 7"``, ``"Big Panda"``; ``"fire 7"``, ``"wood element"``."""
    kind: CardKind
    suit: str | None
    """The suit name (``"fire"`` … ``"metal"``) in the climbing games, ``None`` in Panda Head."""
    value: int | str | None
    """A regular Panda's value (1–11); an animal card's white rank name (``"7"``, ``"J"``); an
    element card's printed number; ``None`` for Big Panda and Bamboo."""
    faces: dict[str, str] | None
    """Climbing animal card: ``{"white": "7", "blue": "A + bamboo"}``; element card:
    ``{"element": "1 south"}`` (number and wind); ``None`` in Panda Head."""
    in_play: bool
    """Whether the card is dealt in this game (a climbing game leaves suits out; always true in
    Panda Head, whose ``cards()`` lists only the ids in play)."""


# ---- events (docs/game_api.md) ----------------------------------------------------------------


class Event(TypedDict, total=False):
    """One event of a game's log, as ``apply()`` returns and ``history`` records it: a ``type``
    and the fields of that type (which vary by game; see docs/game_api.md). Seats are 0-based."""

    type: Required[str]
    player: int
    move: str
    round: int
    scores: list[int]
    deltas: list[int]
    winner: int | None


class MoveEvent(TypedDict):
    """The first event of every move: who played what (the move's notation). A game may add
    fields (the value a play took, ...)."""

    type: Literal["move"]
    player: int
    move: str


class RoundEndEvent(TypedDict):
    """A round (a hand, in Panda Head) ended: the scores after it and what it added."""

    type: Literal["round_end"]
    round: int
    scores: list[int]
    deltas: NotRequired[list[int]]


class GameEndEvent(TypedDict):
    """The last event of a game."""

    type: Literal["game_end"]
    winner: int
    scores: list[int]
