"""The state one seat is shown: built only from what the engine says that seat may see.

(A replay's full-information frame, ``seat=None``, is the one exception: it shows every hand and
the whole log, and is only ever built from a finished record by :class:`Replay`. A spectator's
state, ``public=True``, is the other way round: no hand at all, and the log every seat was shown,
``game.public_events()``.)

Every field comes from ``game.view(seat)`` (the engine's per-seat view), ``game.events(seat)``
(the event log filtered for the seat) and, when the seat is to move, ``game.legal_moves()``; the
presenter adds words. Nothing here reads another seat's hand, the draw pile or a snapshot, which
is what keeps hidden cards off every screen (``tests/test_table.py`` checks it card by card).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core._registry import AnyGame, GameSpec
from panda_core.table.cards import CardBook
from panda_core.table.event_text import Group, GroupFold
from panda_core.table.names import SeatNames

__all__ = ["SeatStateBuilder"]

Note = tuple[int, dict[str, Any]]


def merge_notes(events: list[dict[str, Any]], notes: Sequence[Note]) -> list[dict[str, Any]]:
    """The game's events with the table's own notes (bot fallbacks) at the point they were
    made."""
    if not notes:
        return events
    out: list[dict[str, Any]] = []
    pending = sorted(notes, key=lambda n: n[0])
    i = 0
    for at, event in enumerate(events):
        while i < len(pending) and pending[i][0] <= at:
            out.append(dict(pending[i][1]))
            i += 1
        out.append(event)
    out.extend(dict(n[1]) for n in pending[i:])
    return out


class SeatStateBuilder:
    """Builds :meth:`Table.state` (and replay frames) for one game's table."""

    def __init__(self, game_spec: GameSpec, book: CardBook, seat_names: Sequence[str]) -> None:
        self.spec = game_spec
        self.book = book
        self.seat_names = list(seat_names)
        self.presenter = game_spec.presenter()
        self._texts: dict[tuple[int | None, bool], list[tuple[dict[str, Any], str]]] = {}
        """Per viewer (seat, spectator or not): the events described so far with their text.
        A log only grows, so a later state (or any frame of a replay) finds most of its events
        here and describes only the new ones (describing every event again made each state,
        and a replay file of every frame, cost in the square of the moves)."""
        self._folds: dict[tuple[int | None, bool], tuple[GroupFold, object]] = {}
        """Per viewer: the fold that grouped its last log, and that log's last event (the
        object itself). A log given again with that very object at the same place continues it,
        and only its new events are grouped (:meth:`build` with ``events``)."""

    def _describe(self, key: tuple[int | None, bool], i: int, event: dict[str, Any]) -> str:
        """The text of ``event``, the ``i``-th of what viewer ``key`` saw."""
        known = self._texts.setdefault(key, [])
        if i < len(known) and known[i][0] == event:
            return known[i][1]
        names = SeatNames(self.seat_names, key[0])
        text = str(self.presenter.describe(event, self.book, names))
        del known[i:]  # another log from here on (a replay's full log after a seat's)
        known.append((dict(event), text))
        return text

    def events(
        self, game: AnyGame, seat: int | None, notes: Sequence[Note], *, public: bool = False
    ) -> list[dict[str, Any]]:
        """The events ``seat`` saw (``None``: every event, full information; ``public``: the
        events every seat was shown, a spectator's), with text. A table note reaches the seat
        it is about, and every seat and spectator when it says ``"public": True``."""
        source = game.public_events() if public else game.events(seat)
        raw = [dict(e) for e in source]
        shown = [
            n
            for n in notes
            if n[1].get("public") or (not public and (seat is None or n[1].get("player") == seat))
        ]
        listed = merge_notes(raw, shown)
        key = (seat, public)
        for i, event in enumerate(listed):
            text = self._describe(key, i, event)
            event["seq"] = i
            event["text"] = text
        return listed

    def _groups(self, key: tuple[int | None, bool], events: list[dict[str, Any]]) -> list[Group]:
        """The groups of ``events`` (``presenter.log_fold()`` fed with them), grouping only the
        events new since the last log of this viewer when ``events`` continues it (the same event
        objects: a replay's frames)."""
        known = self._folds.get(key)
        fold = None
        if known is not None:
            fold, last = known
            if not (0 < fold.fed <= len(events) and events[fold.fed - 1] is last):
                fold = None
        if fold is None:
            fold = self.presenter.log_fold()
        groups = fold.feed(events)
        if events:
            self._folds[key] = (fold, events[-1])
        return groups

    def build(
        self,
        game: AnyGame,
        seat: int | None,
        *,
        seat_kinds: Sequence[Mapping[str, str]],
        seed: int | None,
        notes: Sequence[Note],
        since: int,
        public: bool = False,
        events: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """The state ``seat`` is shown (``None``: full information, every hand). ``public``: a
        spectator's state instead, whatever ``seat`` is: no hand, no hands, no legal moves, the
        events every seat was shown (``game.public_events()``), ``seat`` None and
        ``"spectator": True``. ``events``: what :meth:`events` gives for this game, seat and
        notes, when the caller has it already (a replay's frames are prefixes of one log)."""
        if public:
            seat = None
        names = SeatNames(self.seat_names, seat)
        viewer = 0 if seat is None else seat
        view = dict(game.view(viewer))
        hands = None
        if seat is None:  # nobody's view: the public part of seat 0's
            view = _without_hand(view)
            if not public:  # full information (a replay's "all" seat): every hand
                hands = [self.presenter.hand(game.view(p), self.book) for p in range(game.players)]
        to_move = game.current_player
        your_turn = seat is not None and to_move == seat
        legal = []
        if your_turn:
            moves: list[Any] = list(game.legal_moves())
            for i, move in enumerate(moves):
                shown = self.presenter.move(move, self.book, view, game, names)
                legal.append({"index": i, "notation": move.notation, **shown})
        if events is None:
            events = self.events(game, seat, notes, public=public)
        results = [
            {**dict(r), "text": self.presenter.round_text(r, names)} for r in game.round_results
        ]
        # The round being played, 0-based, the same way for every game: rounds finished so far
        # (the last one, once the game is over).
        round_now = len(results) - 1 if game.is_over and results else len(results)
        last = next((e for e in reversed(events) if e["type"] == "move"), None)
        groups = self._groups((seat, public), events)
        places = None
        if game.is_over and game.winner is not None:
            scores = list(game.scores)
            placements = self.spec.placements(game.winner, scores, self.spec.left_of(game))
            places = self.presenter.places(placements, scores, events, names)
        return {
            "game": self.spec.name,
            "title": self.spec.title,
            "players": game.players,
            "seat": seat,
            "spectator": public,
            "seed": seed,
            "seats": [dict(k) for k in seat_kinds],
            "to_move": to_move,
            "your_turn": your_turn,
            "is_over": game.is_over,
            "winner": game.winner,
            "round": round_now,
            "round_word": self.presenter.round_word,
            "scores": list(game.scores),
            "hand_sizes": list(view["hand_sizes"]),
            "draw_pile_size": view["draw_pile_size"],
            "hand": [] if seat is None else self.presenter.hand(view, self.book),
            "hands": hands,
            "table": self.presenter.table_area(view, self.book, names, events),
            "view": view,
            "legal": legal,
            "events": events,
            "since_last_turn": min(since, len(events)),
            "round_results": results,
            "last_move": None
            if last is None
            else {"player": last.get("player"), "text": last["text"]},
            "seat_status": self.presenter.seat_status(view, self.book, names),
            "log": [g.as_dict(events, i == len(groups) - 1) for i, g in enumerate(groups)],
            "last_trick": self.presenter.last_trick(events, self.book, names, groups),
            "places": places,
            "consequences": [] if seat is None else consequences(events, seat),
        }


def consequences(events: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The events caused by ``seat``'s last move: those after its last ``move`` event, up to the
    next move (what it drew, the card turned up, its cards coming back, the trick it won)."""
    at = next(
        (
            i
            for i in range(len(events) - 1, -1, -1)
            if events[i]["type"] == "move" and events[i].get("player") == seat
        ),
        None,
    )
    if at is None:
        return []
    out = []
    for event in events[at + 1 :]:
        if event["type"] == "move":
            break
        out.append(event)
    return out


_HAND_FIELDS = ("hand", "hand_faces", "legal_moves", "legal_action_ids")


def _without_hand(view: dict[str, Any]) -> dict[str, Any]:
    out = dict(view)
    for key in _HAND_FIELDS:
        if key in out:
            out[key] = []
    out["player"] = None
    return out
