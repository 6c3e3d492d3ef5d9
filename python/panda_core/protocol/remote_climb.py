"""The climbing games' seat rebuilt from the bot protocol's messages
(:mod:`panda_core.protocol.remote_seat`): their moves are the engine's ``ClimbMove``."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import numpy.typing as npt

from panda_core._args import shown
from panda_core._core import ClimbMove
from panda_core.protocol.remote_seat import RemoteSeat

__all__ = ["RemoteClimbSeat"]


class RemoteClimbSeat(RemoteSeat):
    """A seat of a climbing game (``year``, ``spin``): its moves are the engine's ``ClimbMove``."""

    __slots__ = ()

    def _make_move(self, action: int | None, notation: str) -> ClimbMove:
        return ClimbMove.parse(notation)

    @property
    def round(self) -> int:
        """The round being played, from 1."""
        if self._end is not None or self._decision is None:
            results = self.round_results
            return len(results) if self._end is not None else 1
        return int(self._current_view()["round"])

    @property
    def round_results(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        starter: Any = None
        for event in self._events:
            kind = event.get("type") if isinstance(event, dict) else None
            if kind == "round_start":
                starter = event["starter"]
            elif kind == "round_end":
                out.append(
                    {
                        "round": event["round"] + 1,
                        "starter": starter,
                        "shown_out": list(event["shown_out"]),
                        "hand_sizes": list(event["hand_sizes"]),
                        "scores": list(event["scores"]),
                    }
                )
        return out

    def _resolve(self, moves: list[Any]) -> Any:
        """The engine's choice among legal moves of one action class (docs/climb_encodings.md
        §3): the fewest cards, then the fewest showing the blue face, then the first."""
        view = self._current_view()
        faces = dict(zip(view.get("hand", []), view.get("hand_faces", []), strict=False))
        return min(
            moves, key=lambda m: (len(m.cards), sum(faces.get(c) == "blue" for c in m.cards))
        )

    def action_index(self, move: Any) -> int:
        self._to_move("action_index")
        if type(move) is ClimbMove:
            notation = str(move.notation)
            return self._id_of_notation(notation, notation)
        if isinstance(move, str):
            text = str.__str__(move)
            try:
                notation = str(ClimbMove.parse(text).notation)
            except (ValueError, TypeError) as err:
                self._illegal(text, f"not a move: {err}")
            return self._id_of_notation(notation, text)
        if type(move) is dict:
            parsed = ClimbMove.from_json(json.loads(json.dumps(move)))
            return self._id_of_notation(str(parsed.notation), str(parsed.notation))
        if hasattr(type(move), "__index__"):
            return self._legal_id(move)
        raise TypeError(f"action_index takes a ClimbMove, its notation or an id, got {shown(move)}")

    def move_info(self, move: Any) -> Any:
        """What a legal move plays: its faces and classification (on a sampled game)."""
        return self._sampled().move_info(move)  # type: ignore[union-attr]

    def legal_move_features(self) -> npt.NDArray[np.float32]:
        """One feature row per legal move (on a sampled game; docs/climb_encodings.md §2)."""
        return self._sampled().legal_move_features()  # type: ignore[union-attr]
