"""Helpers for the tests of tables with several people and spectators (tests/test_web_people.py):
making a table with the per-seat form, the queries of its invites, waiting for a state that says
something, and the no-hidden-card check of everything a table's pages were sent, for seats and
for spectators.

The card check does not trust the table model: every state is matched with the position it
shows (its number of moves, ``Replay(record).position(k)``, the engine's game after ``k`` moves)
and checked with ``tests/hidden_cards.py``: a seat's state shows no card of
``secret_cards(game, seat)`` now and its log no other seat's private cards; a spectator's state
shows no card that any seat holds privately or the draw pile hides, and its log no private card
at all.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from hidden_cards import card_ids_in, hidden_cards_shown, private_events_leak, secret_cards
from panda_core.table import Replay

State = dict[str, Any]

DEADLINE = 60.0
"""Seconds a wait for the table may take before the test fails (never reached unless broken)."""


def person(name: str | None = None) -> dict[str, Any]:
    return {"kind": "person"} if name is None else {"kind": "person", "name": name}


def bot(name: str = "heuristic") -> dict[str, Any]:
    return {"kind": "bot", "bot": name}


def together(client: Any, game: str, seats: list[dict[str, Any]], **fields: Any) -> Any:
    """``POST /api/tables`` with the per-seat form; the answer (a response)."""
    return client.post("/api/tables", json={"game": game, "seats": seats, "seed": 3, **fields})


def made(client: Any, game: str, seats: list[dict[str, Any]], **fields: Any) -> dict[str, Any]:
    answer = together(client, game, seats, **fields)
    assert answer.status_code == 201, answer.text
    body: dict[str, Any] = answer.json()
    return body


def seat_query(created: dict[str, Any], seat: int) -> str:
    invite = next(i for i in created["invites"] if i["seat"] == seat)
    return f"seat={seat}&token={invite['token']}"


def spectator_query(created: dict[str, Any]) -> str:
    return f"spectator={created['spectator']['token']}"


def until(
    receive: Callable[[], Any], wanted: Callable[[Any], bool], what: str, limit: int = 5000
) -> list[Any]:
    """Messages from ``receive()`` until one is ``wanted``; all of them (the last is it)."""
    seen = []
    for _ in range(limit):
        message = receive()
        seen.append(message)
        if wanted(message):
            return seen
    raise AssertionError(f"no {what} in {limit} messages (last: {str(seen[-1])[:300]})")


def poll(check: Callable[[], Any], what: str, timeout: float = DEADLINE) -> Any:
    """``check()`` until it is true (a background task of the server's must act)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout:g} s"
        time.sleep(0.01)  # polling the server's state, not synchronising with a page


def presence_of(state: State, seat: int) -> str:
    entry = next(p for p in state["presence"] if p["seat"] == seat)
    status: str = entry["status"]
    return status


# ---- what the pages were sent ---------------------------------------------------------------------


def spectator_secret(game: Any) -> set[int]:
    """Every card a spectator may not know now: in any hand or the draw pile, and not public."""
    hidden: set[int] = set()
    for seat in range(game.players):
        hidden |= secret_cards(game, seat)
    return hidden


def states_of(traffic: list[tuple[str, str, Any]], table_id: str) -> list[State]:
    """Every live state the server sent for ``table_id`` (websocket messages, HTTP answers)."""
    out: list[State] = []
    for channel, path, body in list(traffic):
        if f"/{table_id}" not in path or "/record" in path:
            continue
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        try:
            value = json.loads(text)
        except ValueError:
            continue
        state = value.get("state") if channel == "ws" and isinstance(value, dict) else value
        if isinstance(state, dict) and "events" in state and "frame" not in state:
            out.append(state)
    return out


def check_table_traffic(
    traffic: list[tuple[str, str, Any]], table_id: str, record: str
) -> dict[str, int]:
    """No state of ``table_id`` showed a seat or a spectator a card it may not know; how many
    states were checked, per viewer (``"0"``, ``"1"``, ..., ``"spectator"``)."""
    replay = Replay(record)
    checked: dict[str, int] = {}
    for state in states_of(traffic, table_id):
        moves = sum(1 for e in state["events"] if e["type"] == "move")
        game = replay.position(moves)
        seat = state["seat"]
        if seat is None:
            assert state.get("spectator") is True, "a live state for nobody that is no spectator's"
            assert not state["hand"] and not state["hands"] and not state["legal"]
            shown = card_ids_in(
                {k: state.get(k) for k in ("hand", "hands", "table", "legal", "view")}
            )
            leaked = shown & spectator_secret(game)
            assert not leaked, f"a spectator was sent hidden cards {leaked} after {moves} moves"
            private = [
                e for e in state["events"] if e["type"] in ("deal", "draw") and card_ids_in(e)
            ]
            assert not private, f"a spectator's log holds private cards: {private[:2]}"
            key = "spectator"
        else:
            leaked = hidden_cards_shown(state, game, seat)
            assert not leaked, f"seat {seat} was sent hidden cards {leaked} after {moves} moves"
            assert not private_events_leak(state["events"], seat), f"seat {seat}: private event"
            key = str(seat)
        checked[key] = checked.get(key, 0) + 1
    return checked
