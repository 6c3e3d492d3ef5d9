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


def play_seat(client: Any, created: dict[str, Any], seat: int) -> State:
    """Play ``seat`` through a websocket (its first legal move each time) to the end; the final
    state. Notices and refusals (a move sent twice) are read past."""
    url = f"/ws/tables/{created['table']}?{seat_query(created, seat)}"
    with client.websocket_connect(url) as ws:
        while True:
            message = ws.receive_json()
            if message.get("type") != "state":
                continue
            state: State = message["state"]
            if state["is_over"]:
                return state
            if state["your_turn"]:
                ws.send_json({"type": "move", "move": 0})


def presence_of(state: State, seat: int) -> str:
    entry = next(p for p in state["presence"] if p["seat"] == seat)
    status: str = entry["status"]
    return status


# ---- what the pages were sent ----------------------------------------------------------------


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


# ---- two real browsers at one table (the slow tests) ---------------------------------------------


SHORT_DEALS = {"head": 3, "year": 16, "spin": 41}
"""Per game, a deal whose game took the fewest moves of 40–60 deals tried, with two seats
choosing at random and the heuristic bot at the third (the browser games' time)."""


class SharedTable:
    """A table made from the lobby of ``ada`` (a :class:`browser_support.Page`) for Ada at seat
    0, her friend Bob at seat 1 and the heuristic bot at seat 2; ``bob`` is Bob's page. What the
    table is doing is read through the spectators' link (a spectator's request changes nothing
    about anyone's presence)."""

    def __init__(self, ada: Any, bob: Any, game: str, hold: float) -> None:
        self.ada, self.bob, self.game = ada, bob, game
        self.server = ada.server
        self.clicks = 0
        self.rng = __import__("random").Random(game)
        self._create(hold)

    def _create(self, hold: float) -> None:
        from selenium.webdriver.support.ui import Select

        page = self.ada
        page.open()
        Select(page.find("lobby-game")).select_by_value(self.game)
        Select(page.find("lobby-players")).select_by_value("3")
        Select(page.find("lobby-seat")).select_by_value("0")
        page.find("lobby-name").send_keys("Ada")
        page.find("lobby-person-1").click()
        page.find("lobby-name-1").send_keys("Bob")
        Select(page.find("lobby-bot-2")).select_by_value("heuristic")
        page.find("lobby-hold").send_keys(f"{hold:g}")
        # Deals whose games are short when two people click at random beside the heuristic bot
        # (the suite's time: a spin game's length varies 2x from deal to deal).
        page.find("lobby-seed").send_keys(str(SHORT_DEALS[self.game]))
        if self.game == "head":
            box = page.find("lobby-rule-bust_threshold")
            box.clear()
            box.send_keys("12")
        page.screenshot(f"people-{self.game}-1-lobby")
        page.find("lobby-start").click()
        page.find("invites")
        self.bob_link = page.find("invite-link-1").get_attribute("value")
        self.spectator_link = page.find("invite-link-spectator").get_attribute("value")
        assert self.bob_link.startswith(self.server.url + "/#table=")
        params = dict(p.split("=", 1) for p in self.spectator_link.split("#", 1)[1].split("&"))
        self.table, self.spectator_token = params["table"], params["spectator"]
        page.screenshot(f"people-{self.game}-2-invites")
        page.find("invite-take-seat").click()
        page.find("table-view")
        self.bob.driver.get(self.bob_link)
        self.bob.find("table-view")

    def watched(self) -> State:
        """The table's public state now (as its spectators see it)."""
        state: State = self.server.get(f"/api/tables/{self.table}?spectator={self.spectator_token}")
        return state

    def moves(self) -> int:
        return sum(1 for e in self.watched()["events"] if e["type"] == "move")

    def presence(self, seat: int) -> str:
        return presence_of(self.watched(), seat)

    def _turn(self, page: Any) -> str | None:
        found = page.js(
            """
            if (document.querySelector('[data-testid=game-over]')) return 'over';
            const status = document.querySelector('[data-testid=status]');
            const moves = document.querySelectorAll('[data-testid=move]');
            if (status && status.dataset.yourTurn === 'true' && moves.length) return 'turn';
            return null;
            """
        )
        return str(found) if found else None

    def play(self, pages: list[Any], *, moves: int | None = None) -> None:
        """Click legal moves on ``pages`` whenever one is to move, until the game is over on
        every page (or ``moves`` more moves were played)."""
        from selenium.common.exceptions import (
            ElementClickInterceptedException,
            StaleElementReferenceException,
        )
        from selenium.webdriver.common.by import By

        target = None if moves is None else self.moves() + moves
        deadline = time.monotonic() + 600
        last: dict[int, int] = {}
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            turns = [self._turn(p) for p in pages]
            if all(t == "over" for t in turns):
                return
            if "turn" not in turns:  # nobody to click for: no need to ask the server
                time.sleep(0.02)
                continue
            count = self.moves()  # one look at the table per round of both pages
            if target is not None and count >= target:
                return
            for k, (page, turn) in enumerate(zip(pages, turns, strict=True)):
                if turn != "turn":
                    continue
                if last.get(k) == count:  # its move is on its way
                    continue
                buttons = page.driver.find_elements(By.CSS_SELECTOR, '[data-testid="move"]')
                if not buttons:
                    continue
                button = self.rng.choice(buttons)
                try:
                    page.js("arguments[0].scrollIntoView({block: 'center'})", button)
                    button.click()
                except StaleElementReferenceException:  # redrawn between lookup and click
                    continue
                except ElementClickInterceptedException:  # under the sticky group titles
                    try:
                        page.js("arguments[0].click()", button)
                    except StaleElementReferenceException:
                        continue
                last[k] = count
                self.clicks += 1
            time.sleep(0.02)  # polling two pages for a turn, not synchronising with one

    def message(self, page: Any) -> str:
        text: str = page.js(
            "const m = document.querySelector('[data-testid=message]');"
            "return m && !m.hidden ? m.textContent : ''"
        )
        return text
