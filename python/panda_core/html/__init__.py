"""Notebook and file views: a game, a seat or a replay drawn as the web page draws them.

- ``game._repr_html_()`` / ``seat._repr_html_()`` (what Jupyter shows for a game or seat object
  at the end of a cell) call :func:`repr_html`: the board with every hand for a game (it is the
  caller's own object), the seat's own state for a seat object (``game.seat(p)``).
- ``Replay(record).to_html(path, seat=S)`` calls :func:`write_replay`: one self-contained file
  (no server, no network) that steps through the game as seat ``S`` saw it;
  :func:`replay_view` is the same in a notebook output.

Every view is drawn by the page's own modules (``web/static/cards.js``, ``util.js``,
``board.js``), bundled into one classic script at call time (:mod:`panda_core.html.bundle`), with
the page's style scoped to the view's element, and carries a plain-text fallback for viewers that
run no script. See docs/notebooks.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from panda_core.html.bundle import SCOPE, HtmlError, scoped_css, script
from panda_core.html.page import fragment, plain_text
from panda_core.html.replay_file import (
    MAX_HTML_BYTES,
    MAX_HTML_FRAMES,
    replay_fragment,
    write_replay_file,
)
from panda_core.html.states import game_state, is_seat, seat_state

__all__ = [
    "MAX_HTML_BYTES",
    "MAX_HTML_FRAMES",
    "SCOPE",
    "HtmlError",
    "HtmlView",
    "game_state",
    "plain_text",
    "replay_view",
    "repr_html",
    "scoped_css",
    "script",
    "seat_state",
    "state_html",
    "write_replay",
]


class HtmlView:
    """HTML text that a notebook shows as itself (``_repr_html_``); ``str()`` is the text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"HtmlView({len(self.text)} characters of HTML)"


def state_html(state: dict[str, Any], *, moves: bool = False, kind: str = "state") -> str:
    """A seat state (``Table.state(seat)``, a replay frame, :func:`seat_state`) as a notebook
    element; ``moves`` lists its legal moves (for reading: a picture plays nothing)."""
    if not isinstance(state, dict):
        raise TypeError(f"a state is a dict (Table.state(seat)), got {type(state).__name__}")
    return fragment({"state": state, "moves": moves}, "show", plain_text(state), kind=kind)


def repr_html(obj: object, names: Sequence[str] | None = None) -> str:
    """The notebook view of a game object (every hand) or a seat object (its own state)."""
    if is_seat(obj):
        return state_html(seat_state(obj, names), moves=True, kind="seat")
    return state_html(game_state(obj, names), kind="game")


def _seat_arg(replay: Any, seat: object) -> int | None:
    if seat is SAME_SEAT:
        return replay.seat  # type: ignore[no-any-return]
    if seat is None:
        return None
    return replay.for_seat(seat).seat  # type: ignore[no-any-return]


SAME_SEAT: Any = object()
"""``seat`` left out: the replay's own seat."""


def replay_view(replay: Any, seat: object = SAME_SEAT, *, autoplay: bool = False) -> HtmlView:
    """A replay (:class:`panda_core.table.Replay`) in a notebook output, as ``seat`` saw it (left
    out: the replay's own seat; ``None``: every hand). Its keys work while it has the focus."""
    body, _ = replay_fragment(replay, _seat_arg(replay, seat), autoplay=autoplay)
    return HtmlView(body)


def write_replay(
    replay: Any,
    path: str | os.PathLike[str],
    seat: object = SAME_SEAT,
    *,
    autoplay: bool = False,
) -> Path:
    """Write ``replay`` as one self-contained HTML file at ``path``, as ``seat`` saw the game
    (left out: the replay's own seat; ``None``: every hand). Returns the path."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path is a file name, got {type(path).__name__}")
    return write_replay_file(replay, path, _seat_arg(replay, seat), autoplay=autoplay)
