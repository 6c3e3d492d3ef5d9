"""Panda Head's seat rebuilt from the bot protocol's messages
(:mod:`panda_core.protocol.remote_seat`): its moves, its hand and its round results."""

from __future__ import annotations

from typing import Any, SupportsIndex

from panda_core._core import HeadMove
from panda_core.protocol.remote_seat import LegalMove, RemoteSeat, _plain

__all__ = ["RemoteHeadSeat"]


class RemoteHeadSeat(RemoteSeat):
    """A seat of Panda Head (its moves are :class:`LegalMove` objects)."""

    __slots__ = ()

    def _make_move(self, action: int | None, notation: str) -> LegalMove:
        return LegalMove(action, notation)

    def hand(self, player: SupportsIndex | None = None) -> list[int]:
        """This seat's hand (another seat's: ``ArgumentError``)."""
        self._check_self(player, "hand")
        return list(self._current_view()["hand"])

    @property
    def round_results(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        drowsy: list[int] = []
        pooped: list[int] = []
        for event in self._events:
            kind = event.get("type") if isinstance(event, dict) else None
            if kind == "drowsy":
                drowsy.append(event["player"])
            elif kind == "pooped":
                pooped.append(event["player"])
            elif kind == "round_end":
                out.append(
                    {
                        "hand": event["round"],
                        "dealer": event["dealer"],
                        "last_pile_winner": event["last_pile_winner"],
                        "deltas": list(event["deltas"]),
                        "scores": list(event["scores"]),
                        "new_drowsy": drowsy,
                        "new_pooped": pooped,
                    }
                )
                drowsy, pooped = [], []
        return out

    def _result_extra(self, rounds: int) -> dict[str, Any]:
        view = self._decision["view"] if self._decision is not None else {}
        none = [False] * self._players
        return {
            "drowsy": list(view.get("drowsy", none)),
            "pooped": list(view.get("pooped", none)),
            "hands_played": rounds,
        }

    def action_index(self, move: Any) -> int:
        self._to_move("action_index")
        if type(move) is LegalMove or type(move) is HeadMove:
            action = move.action_id
            if action is not None and any(a == action for a, _ in self._legal):
                return int(action)
            self._illegal(str(move.notation), "not a legal move of this seat")
        if isinstance(move, str):
            return self._id_of_notation(str.__str__(move), str.__str__(move))
        return self._legal_id(move)

    def _view_field(self, key: str) -> Any:
        return _plain(self._current_view()[key])

    @property
    def dealer(self) -> int:
        """The dealer of the hand being played."""
        return int(self._view_field("dealer"))

    @property
    def leader(self) -> int:
        """The seat that leads the pile being played."""
        return int(self._view_field("leader"))

    @property
    def hand_number(self) -> int:
        """The hand being played, from 0."""
        return int(self._view_field("hand_number"))

    @property
    def pile_number(self) -> int:
        """The pile being played in this hand, from 0."""
        return int(self._view_field("pile_number"))

    @property
    def drowsy(self) -> list[bool]:
        """Which seats are Drowsy."""
        return list(self._view_field("drowsy"))

    @property
    def pooped(self) -> list[bool]:
        """Which seats are Pooped (out of the game)."""
        return list(self._view_field("pooped"))
