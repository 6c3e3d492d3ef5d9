"""Plain-data shapes returned by the engine (``TypedDict``s), importable at run time."""

from __future__ import annotations

from typing import Literal, NotRequired, Required, TypedDict


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


# ---- cards (docs/game_api.md, "Cards") ---------------------------------------------------------

CardKind = Literal["panda", "big_panda", "bamboo", "animal", "element"]
"""Panda Head: ``panda`` (a regular value), ``big_panda``, ``bamboo``; the climbing games:
``animal`` (two faces) or ``element`` (a wind card)."""


class LegalEntry(TypedDict):
    """One legal move of a seat, as ``seat.legal_list()`` and the bot protocol list it."""

    id: int | None
    """Its action id; ``None`` for a move no action id reaches. In the climbing games several
    moves may share an id (an abstract action: the shape, not the cards)."""
    notation: str
    """The move exactly, as ``apply`` takes it."""


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
    """Climbing animal card: ``{"white": "7", "blue": "A + bamboo"}``; element card: what it
    shows in the preset, ``{"element": "1"}`` (``year``: its number) or ``{"element": "south"}``
    (``spin``: its wind); ``None`` in Panda Head."""
    in_play: bool
    """Whether the card is dealt in this game (a climbing game leaves suits out; always true in
    Panda Head, whose ``cards()`` lists only the ids in play)."""
    rank: int | None
    """A climbing animal card's white rank index (0 is the "3", 12 the "2", S-1.2): with
    ``value`` it names the ranks a move's classification reports; ``None`` otherwise."""
    symbols: dict[str, list[str]] | None
    """A climbing animal card's symbols per face, one name per occurrence (``"wild"``,
    ``"drop"``, ``"panda"``, ``"bamboo"``): ``{"white": [], "blue": ["panda"]}``; ``None``
    otherwise."""
    condition: str | None
    """An element / wind card's play condition, as deck files name it (``"single"``,
    ``"contains_blue"`` …, S-2.3); ``None`` otherwise."""


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
