"""Cards as a table shows them: the engine's card catalogue (``game.cards()``) with the face a
card shows at one moment.

A card dict sent to a seat is ``{"id", "token", "label", "kind", "suit", "face", "face_label"}``:
``face`` is ``None`` in Panda Head and ``"white"``, ``"blue"`` or ``"element"`` in the climbing
games (double-sided cards show their current face, S-1, S-2), ``face_label`` is what that face
shows (``"A + bamboo"``). Nothing here knows a rule: every text comes from the engine's deck.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from panda_core._registry import AnyGame

__all__ = ["CardBook"]

CardDict = dict[str, Any]


class CardBook:
    """The cards of one game's deck, by id."""

    def __init__(self, game: AnyGame) -> None:
        self._cards: dict[int, Mapping[str, Any]] = {int(c["id"]): c for c in game.cards()}

    def info(self, card: int) -> Mapping[str, Any]:
        """The engine's description of card ``card``."""
        return self._cards[card]

    def token(self, card: int) -> str:
        return str(self._cards[card]["token"])

    def card(self, card: int, face: str | None = None) -> CardDict:
        """The card as shown with ``face`` up (``None``: the card's only or default face)."""
        info = self._cards[card]
        faces = info.get("faces") or {}
        if face is None and faces:
            face = "element" if "element" in faces else "white"
        label = faces.get(face, info["token"]) if face is not None else info["token"]
        return {
            "id": card,
            "token": info["token"],
            "label": info["label"],
            "kind": info["kind"],
            "suit": info.get("suit"),
            "face": face,
            "face_label": str(label),
        }

    def cards(self, ids: Iterable[int], blue: Iterable[int] = ()) -> list[CardDict]:
        """Cards in order, those in ``blue`` showing their blue face."""
        blue_set = set(blue)
        out = []
        for card in ids:
            faces = self._cards[card].get("faces") or {}
            face = None
            if faces:
                face = "element" if "element" in faces else "blue" if card in blue_set else "white"
            out.append(self.card(card, face))
        return out

    def tokens(self, ids: Iterable[int]) -> str:
        """``"7 7 BP"``: the cards' tokens, for a line of text."""
        return " ".join(self.token(c) for c in ids)
