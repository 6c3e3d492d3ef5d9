"""Helpers for the web server's tests: an app in a TestClient, playing a table through its
websocket or over HTTP, and the check that no message reached a seat with a card it may not know.

The knowledge check does not trust the table model: it replays the game with the engine alone
(the same seed and moves) and, for every state a page received, compares the card ids in it with
the other seats' hands at that moment (``game.view(seat)["hand"]``), minus what the seat may know:
its own hand, every card played so far (plays are public), the blue cards (public in the climbing
games) and the cards of the events the engine lets that seat see.
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import panda_core

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette suggests httpx2 over httpx; both work
    from starlette.testclient import TestClient

from panda_core.web import create_app

Traffic = list[tuple[str, str, Any]]
State = dict[str, Any]
Chooser = Callable[[State], int | str]

BASE_URL = "http://127.0.0.1:8000"
"""Where the test client says the app is (its Host header, and its Origin for pages)."""
DEADLINE = 60.0
"""Seconds a helper waits for bots before failing (never reached unless something hangs)."""

CARD_KEYS = frozenset(
    {"cards", "card", "discarded", "blue", "hand", "hands", "played", "discard", "out", "flip"}
)
"""Keys whose values are card ids (or card dicts) in states, events and views."""


class LocalClient(TestClient):
    """A test client that names the server 127.0.0.1:8000 for websockets too (starlette's own
    joins a relative websocket address to ``ws://testserver``, a name the server refuses)."""

    def websocket_connect(self, url: str, *args: Any, **kwargs: Any) -> Any:
        if url.startswith("/"):
            url = "ws://" + BASE_URL.split("://", 1)[1] + url
        return super().websocket_connect(url, *args, **kwargs)


@contextlib.contextmanager
def served(**options: Any) -> Iterator[tuple[LocalClient, Traffic]]:
    """An app (``bot_delay=0`` unless given) in a running TestClient, and its traffic list."""
    traffic: Traffic = []
    options.setdefault("bot_delay", 0)
    app = create_app(traffic=traffic, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        # The server answers only to its own names (the Host check): the test client names it
        # 127.0.0.1, as a browser on this machine does.
        with LocalClient(app, base_url=BASE_URL) as client:
            yield client, traffic


def new_table(client: TestClient, game: str, **fields: Any) -> dict[str, Any]:
    body = {"game": game, "players": 2, "bots": ["random"], "seed": 1, **fields}
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


def query(created: dict[str, Any]) -> str:
    return f"seat={created['seat']}&token={created['token']}"


PRESENCE = ("presence", "spectators")
"""The parts of a table's state that change without a move (who has a page open)."""


def game_part(state: State) -> State:
    """A state without its presence (:data:`PRESENCE`), to compare the game shown."""
    return {k: v for k, v in state.items() if k not in PRESENCE}


def first_legal(state: State) -> int:
    index: int = state["legal"][0]["index"]
    return index


def play_socket(
    client: TestClient, created: dict[str, Any], choose: Chooser = first_legal
) -> list[State]:
    """Play the table to its end through one websocket; every state received, in order."""
    states: list[State] = []
    url = f"/ws/tables/{created['table']}?{query(created)}"
    with client.websocket_connect(url) as ws:
        while True:
            message = ws.receive_json()
            assert message["type"] == "state", message
            state = message["state"]
            states.append(state)
            if state["is_over"]:
                return states
            if state["your_turn"]:
                ws.send_json({"type": "move", "move": choose(state)})


def wait_for_turn(client: TestClient, created: dict[str, Any]) -> State:
    """Poll the state until it is the person's turn or the game is over."""
    deadline = time.monotonic() + DEADLINE
    url = f"/api/tables/{created['table']}?{query(created)}"
    while True:
        answer = client.get(url)
        assert answer.status_code == 200, answer.text
        state: State = answer.json()
        if state["your_turn"] or state["is_over"]:
            return state
        assert time.monotonic() < deadline, "the bots did not move"
        time.sleep(0.005)


def play_http(client: TestClient, created: dict[str, Any], choose: Chooser = first_legal) -> State:
    """Play the table to its end with POSTed moves; the final state."""
    url = f"/api/tables/{created['table']}/moves"
    state = wait_for_turn(client, created)
    while not state["is_over"]:
        body = {"seat": created["seat"], "token": created["token"], "move": choose(state)}
        answer = client.post(url, json=body)
        assert answer.status_code == 200, answer.text
        state = wait_for_turn(client, created)
    return state


# ---- what a seat may know ---------------------------------------------------------------------


def card_ids(value: Any, under_card_key: bool = False) -> set[int]:
    """Every card id in ``value``: the ints in lists under :data:`CARD_KEYS` and under ``card``,
    and the ``id`` of card dicts (a bare int under another key, such as a round result's
    ``hand`` number, is no card)."""
    found: set[int] = set()
    if isinstance(value, dict):
        if "id" in value and (under_card_key or "token" in value or "label" in value):
            if isinstance(value["id"], int):
                found.add(value["id"])
        for key, item in value.items():
            if key == "card" and isinstance(item, int):
                found.add(item)
            elif isinstance(item, dict | list):
                found |= card_ids(item, key in CARD_KEYS or (under_card_key and key != "id"))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, int) and not isinstance(item, bool):
                if under_card_key:
                    found.add(item)
            else:
                found |= card_ids(item, under_card_key)
    return found


class Knowledge:
    """The hands and what each seat may know after each move of a finished game, rebuilt with
    the engine from its seed and moves."""

    def __init__(self, game: str, players: int, seed: int, record: str) -> None:
        final = panda_core.make(game, players, seed)
        final_history = type(final).from_json(record).history
        moves = [e["move"] for e in final_history if e["type"] == "move"]
        replayed = panda_core.make(game, players, seed)
        self.players = players
        self.hands: list[list[set[int]]] = []  # [moment][seat]
        self.known: list[list[set[int]]] = []  # [moment][seat]
        played: set[int] = set()
        for k in range(len(moves) + 1):
            hands = [set(replayed.view(s)["hand"]) for s in range(players)]
            for event in replayed.history:
                if event["type"] == "move":
                    played |= set(event.get("cards", []))
            known = []
            for s in range(players):
                view = replayed.view(s)
                seen = card_ids(replayed.events(s)) | card_ids(view)
                known.append(hands[s] | played | set(view.get("blue", [])) | seen)
            self.hands.append(hands)
            self.known.append(known)
            if k < len(moves):
                replayed.apply(moves[k])
        assert replayed.to_json() == record, "the replay does not end as the record"

    def secrets_for(self, seat: int, moment: int) -> set[int]:
        """Cards in another seat's hand that ``seat`` may not know after ``moment`` moves."""
        others: set[int] = set()
        for s in range(self.players):
            if s != seat:
                others |= self.hands[moment][s]
        return others - self.known[moment][seat]


def moves_seen(state: State) -> int:
    return sum(1 for e in state["events"] if e["type"] == "move")


def states_sent(traffic: Traffic, table_id: str) -> list[State]:
    """Every state the server sent to the pages of ``table_id`` (HTTP answers and websocket
    messages), parsed."""
    states: list[State] = []
    for kind, path, body in traffic:
        if table_id not in path:
            continue
        data = json.loads(body)
        if kind == "ws" and data.get("type") == "state":
            states.append(data["state"])
        elif kind == "http" and isinstance(data, dict) and "events" in data:
            states.append(data)
    return states


# ---- real servers -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server(**options: Any) -> Iterator[tuple[str, Any]]:
    """The app under the server of ``panda-core serve`` (``panda_core.web.server``) on
    127.0.0.1 and a free port, in a thread: its address (``127.0.0.1:PORT``) and the server.
    ``options`` go to ``create_app`` (``bot_delay=0`` unless given). Stopped at the end."""
    from panda_core.web.server import make_server

    options.setdefault("bot_delay", 0)
    port = free_port()
    server = make_server(create_app(**options), host="127.0.0.1", port=port)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + DEADLINE
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"127.0.0.1:{port}", server
    finally:
        server.should_exit = True
        thread.join(timeout=DEADLINE)
        assert not thread.is_alive(), "uvicorn did not stop"


@dataclass
class ChildServer:
    """``panda-core serve`` in a child process: its address, its process, what it printed."""

    address: str
    process: subprocess.Popen[str]
    first_lines: list[str]

    def peak_rss_kib(self) -> int:
        """The child's peak resident memory so far (``VmHWM``), in KiB."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1])


@contextlib.contextmanager
def child_server(*args: str) -> Iterator[ChildServer]:
    """``panda-core serve --port 0 ARGS`` in a child process, stopped with Ctrl-C (SIGINT) at
    the end (and killed if it does not stop)."""
    command = [sys.executable, "-m", "panda_core.cli", "serve", "--port", "0", *args]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[str] = []

        def read_address() -> None:
            assert child.stdout is not None
            lines.append(child.stdout.readline())

        reader = threading.Thread(target=read_address, daemon=True)
        reader.start()
        reader.join(DEADLINE)
        assert lines and "http://" in lines[0], (lines, child.poll())
        address = lines[0].split("http://")[1].split("/")[0]
        yield ChildServer(address, child, lines)
    finally:
        if child.poll() is None:
            child.send_signal(signal.SIGINT)
            try:
                child.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(timeout=DEADLINE)
