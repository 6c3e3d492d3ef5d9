"""Cards as a table shows them: the engine's card catalogue (``game.cards()``) with the face a
card shows at one moment.

A card dict sent to a seat is ``{"id", "token", "label", "kind", "suit", "face", "face_label",
"help"}``: ``face`` is ``None`` in Panda Head and ``"white"``, ``"blue"`` or ``"element"`` in the
climbing games (double-sided cards show their current face, S-1, S-2), ``face_label`` is what that
face shows (``"A + bamboo"``), and ``help`` is one line a person reads on hover or ``?`` (the
card, its face now, its other face, its symbols' effects and an element card's play condition,
with rule IDs), written by the game's presenter from the catalogue and the game's rules. Nothing
here knows a rule: every fact comes from the engine's deck.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from panda_core._registry import AnyGame, spec_of

__all__ = ["CardBook"]

CardDict = dict[str, Any]
HelpWriter = Callable[[Mapping[str, Any], "str | None", Any], str]


class CardBook:
    """The cards of one game's deck, by id, and the game's rules (what the words depend on)."""

    def __init__(self, game: AnyGame | Any) -> None:
        self._cards: dict[int, Mapping[str, Any]] = {int(c["id"]): c for c in game.cards()}
        self.rules: Any = game.rules
        """The game's rules object (``HeadRules``, ``ClimbSettings``): the presenter reads the
        numbers and effects its words name from it."""
        ranks: dict[int, str] = {}
        for info in self._cards.values():
            rank = info.get("rank")
            if isinstance(rank, int) and info.get("value") is not None:
                ranks.setdefault(rank, str(info["value"]))
        self._ranks = ranks
        self._help_writer: HelpWriter | None = getattr(spec_of(game).presenter(), "card_help", None)
        self._help: dict[tuple[int, str | None], str] = {}

    def info(self, card: int) -> Mapping[str, Any]:
        """The engine's description of card ``card``."""
        return self._cards[card]

    def token(self, card: int) -> str:
        return str(self._cards[card]["token"])

    def label(self, card: int) -> str:
        return str(self._cards[card]["label"])

    def rank(self, index: int) -> str:
        """The name of rank ``index`` (``"3"`` … ``"2"`` in the climbing games), as the deck's
        cards name their white ranks (``cards()``'s ``rank`` and ``value``)."""
        return self._ranks.get(index, f"rank {index}")

    def help(self, card: int, face: str | None) -> str:
        """The help line of ``card`` showing ``face`` (the presenter's words; cached)."""
        key = (card, face)
        found = self._help.get(key)
        if found is None:
            writer = self._help_writer
            found = self._help[key] = (
                self.label(card) if writer is None else writer(self._cards[card], face, self.rules)
            )
        return found

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
            "help": self.help(card, face),
        }

    def face_of(self, card: int, blue: Iterable[int] | set[int] = ()) -> str | None:
        """The face ``card`` shows when the cards in ``blue`` show their blue face."""
        faces = self._cards[card].get("faces") or {}
        if not faces:
            return None
        if "element" in faces:
            return "element"
        return "blue" if card in blue else "white"

    def cards(self, ids: Iterable[int], blue: Iterable[int] = ()) -> list[CardDict]:
        """Cards in order, those in ``blue`` showing their blue face."""
        blue_set = set(blue)
        return [self.card(card, self.face_of(card, blue_set)) for card in ids]

    def tokens(self, ids: Iterable[int]) -> str:
        """``"7 7 BP"``: the cards' tokens, for a line of text."""
        return " ".join(self.token(c) for c in ids)
