"""Plain-data shapes returned by the engine (``TypedDict``s), importable at run time."""

from __future__ import annotations

from typing import Literal, TypedDict

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


class HandResult(TypedDict):
    hand: int
    dealer: int
    last_pile_winner: int
    deltas: list[int]
    scores: list[int]
    new_drowsy: list[int]
    new_pooped: list[int]


class FinalResult(TypedDict):
    is_over: bool
    winner: int | None
    scores: list[int]
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


# ---- climbing games (year, spin) ----------------------------------------------------------------

ClimbPreset = Literal["year", "spin"]

PandaMood = Literal["hungry", "flip"]

ClimbMoveKind = Literal[
    "pass", "discard_element", "element", "single", "set", "run", "formation", "bomb"
]

ClimbComboKind = Literal["single", "set", "run", "formation", "bomb"]


class ClimbSettingsDict(TypedDict):
    preset: ClimbPreset
    panda_mood: PandaMood
    first_player: int
    deck: str | None


class ClimbMoveJson(TypedDict):
    """The move record of docs/climb_interface.md §5.1."""

    kind: ClimbMoveKind
    cards: list[int]
    named: list[int]
    flip: list[int]
    steal: list[int]


class ClimbCombo(TypedDict):
    """A classified play (docs/climb_interface.md §6.1)."""

    kind: ClimbComboKind
    rank: int
    units: int
    length: int
    copies: int
    cards: list[int]
    named: list[int]
    has_blue: bool


class ClimbToBeat(TypedDict):
    player: int
    kind: ClimbComboKind
    cards: list[int]
    named: list[int]
    rank: int
    units: int
    length: int
    copies: int
    has_blue: bool


class ClimbTrick(TypedDict):
    leader: int | None
    to_beat: ClimbToBeat | None
    holder: int | None
    passed: list[int]
    played: list[list[int]]


class ClimbRoundResult(TypedDict):
    round: int
    starter: int
    shown_out: list[int]
    hand_sizes: list[int]
    scores: list[int]


class ClimbSnapshot(TypedDict):
    """The complete state (docs/climb_interface.md §7)."""

    preset: ClimbPreset
    panda_mood: PandaMood
    players: int
    first_player: int
    seed: int
    deck: str
    suits_in_play: list[int]
    round: int
    starter: int
    scores: list[int]
    hands: list[list[int]]
    blue: list[int]
    draw_pile: list[int]
    discard: list[int]
    out: list[int]
    trick: ClimbTrick
    current_player: int | None
    shown_out: list[int]
    game_over: bool
    winner: int | None
    rng_state: int
    round_results: list[ClimbRoundResult]


class ClimbView(TypedDict):
    """What one player may see (RULES.md S-11)."""

    player: int
    preset: ClimbPreset
    panda_mood: PandaMood
    players: int
    deck: str
    suits_in_play: list[int]
    round: int
    starter: int
    scores: list[int]
    hand: list[int]
    hand_faces: list[Literal["white", "blue", "element"]]
    hand_sizes: list[int]
    blue: list[int]
    draw_pile_size: int
    discard: list[int]
    out: list[int]
    trick: ClimbTrick
    current_player: int | None
    shown_out: list[int]
    game_over: bool
    winner: int | None
    round_results: list[ClimbRoundResult]
    legal_moves: list[str]


class ClimbBatch(TypedDict):
    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.uint32]
    decisions: npt.NDArray[np.uint32]
    scores: npt.NDArray[np.uint32]
