"""``panda-core serve`` against a hostile user, a hostile web page and a hostile client: every
case runs against a real uvicorn on 127.0.0.1 (in a thread, or ``panda-core serve`` in a child
process where memory is measured) with httpx, websockets and raw sockets.

Each case is one of issue 19's attacks: uploads a foreign page can send (text/plain, forms,
multipart), foreign ``Origin``/``Host`` (DNS rebinding) over HTTP and websockets, an endless body,
a slow replay build, a websocket flood on a long table, 40 concurrent connects while a bot holds
the table, 64 short finished games, the security headers, invalid frames in the log, the goodbye
on shutdown and the warning for a public ``--host``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import re
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect as async_connect
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

import panda_core
from panda_core import HeadRules
from panda_core.web.guard import HostPolicy, _split_host
from panda_core.web.limits import FRAMES_BURST, MAX_SEAT_SOCKETS, REPLAY_QUEUE
from web_support import (
    DEADLINE,
    child_server,
    game_part,
    new_table,
    play_socket,
    query,
    running_server,
    served,
    wait_for_turn,
)

TIMEOUT = 15.0
"""Seconds a request to a server under attack may take before the test calls it frozen (a
generous bound: the point is "answers", not "answers fast")."""
_JSON = {"content-type": "application/json"}
HEAD = {"game": "head", "players": 2, "bots": ["random"]}


def assert_refused(answer: httpx.Response, status: int, *words: str) -> None:
    assert answer.status_code == status, (answer.status_code, answer.text)
    message = answer.json()["error"]
    for word in words:
        assert word in message, message


def a_record() -> str:
    game = panda_core.make("head", 2, 5)
    while not game.is_over:
        game.apply(game.bot_move("random"))
    return game.to_json()


def hostile_record(moves: int, seed: int = 0) -> str:
    """Issue 19's upload: a Panda Head record that never busts (``bust_threshold=1000000``)
    with ``moves`` random moves (the table model's ``Replay`` once cost memory in the square of
    the moves for it)."""
    game = panda_core.make("head", 2, seed, rules=HeadRules(bust_threshold=1_000_000))
    rng = random.Random(seed)
    for _ in range(moves):
        game.apply(rng.choice(list(game.legal_actions())))
    return game.to_json()


# ---- uploads and CSRF ---------------------------------------------------------------------------


def test_uploads_a_foreign_page_could_send_are_refused() -> None:
    """text/plain, a form and multipart need no CORS preflight, so any page could send them:
    all are 415, and the server grants no preflight for the JSON it takes."""
    record = a_record()
    with (
        running_server() as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        registry = server.config.app.state.registry
        plain = {"content-type": "text/plain"}
        assert_refused(http.post("/api/replays", content=record, headers=plain), 415, "JSON")
        files = {"record": ("game.json", record.encode(), "application/json")}
        assert_refused(http.post("/api/replays", files=files), 415, "multipart")
        assert_refused(http.post("/api/replays", data={"record": record}), 415)
        form = {"content-type": "application/x-www-form-urlencoded"}
        assert_refused(http.post("/api/tables", content="game=head", headers=form), 415)
        assert_refused(http.post("/api/tables", content=json.dumps(HEAD), headers=plain), 415)
        assert registry.replays == {} and registry.tables == {}
        # A preflight for a JSON POST from another site gets no CORS grant.
        preflight = http.options(
            "/api/replays",
            headers={
                "origin": "http://evil.example",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        assert preflight.status_code == 403
        assert not any(k.startswith("access-control-") for k in preflight.headers)
        same = http.options("/api/replays", headers={"access-control-request-method": "POST"})
        assert not any(k.startswith("access-control-") for k in same.headers)
        assert http.post("/api/replays", content=record, headers=_JSON).status_code == 201


# ---- Origin and Host ----------------------------------------------------------------------------


def test_a_foreign_origin_or_host_is_refused_over_http() -> None:
    with (
        running_server() as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        registry = server.config.app.state.registry
        port = int(address.rsplit(":", 1)[1])
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1:{port + 1}",
                     f"localhost.evil.example:{port}", f"127.0.0.1:{port}@evil", ""):  # fmt: skip
            answer = http.post("/api/tables", json=HEAD, headers={"host": host})
            assert_refused(answer, 421)
            assert answer.headers["x-frame-options"] == "DENY"
            assert_refused(http.get("/", headers={"host": host}), 421)
        for origin in ("http://evil.example", f"http://evil.example:{port}", "null",
                       f"http://127.0.0.1:{port + 1}", f"ftp://127.0.0.1:{port}",
                       "http://[::1", f"https://127.0.0.1:{port}x"):  # fmt: skip
            answer = http.post("/api/tables", json=HEAD, headers={"origin": origin})
            assert_refused(answer, 403, "another site")
            assert_refused(http.get("/api/games", headers={"origin": origin}), 403)
        assert registry.tables == {}
        for name in ("127.0.0.1", "localhost", "[::1]"):
            own = {"host": f"{name}:{port}", "origin": f"http://{name}:{port}"}
            assert http.post("/api/tables", json=HEAD, headers=own).status_code == 201
        assert http.get("/api/games").status_code == 200  # no Origin: a script, not a page
        assert len(registry.tables) == 3


def _raw_request(address: str, head: str, host: str | None = None) -> str:
    """Send a request head as it is (``Host`` added unless ``host`` is given); the status line
    of the answer, with a space at each end."""
    name, port = address.rsplit(":", 1)
    head = f"{head}\r\nHost: {address if host is None else host}\r\n\r\n"
    with socket.create_connection((name, int(port)), timeout=TIMEOUT) as sock:
        sock.sendall(head.encode())
        return " " + sock.recv(4096).decode("latin-1").split("\r\n")[0] + " "


def _ws_upgrade(address: str, path: str, headers: dict[str, str]) -> str:
    """A raw websocket handshake with exactly these headers; the server's status line."""
    lines = [
        f"GET {path} HTTP/1.1",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 13",
    ]
    lines += [f"{k}: {v}" for k, v in headers.items() if k != "Host"]
    return _raw_request(address, "\r\n".join(lines), headers.get("Host"))


def test_a_foreign_origin_or_host_is_refused_on_the_websocket() -> None:
    """A page of another site (its Origin) or a rebound name (its Host) never gets a socket:
    the handshake is refused before it is accepted, and the table sees no connection."""
    with (
        running_server(bot_delay=30) as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        registry = server.config.app.state.registry
        created = http.post("/api/tables", json=HEAD).json()
        path = f"/ws/tables/{created['table']}?{query(created)}"
        port = address.rsplit(":", 1)[1]
        with pytest.raises(InvalidStatus) as refused:
            connect(f"ws://{address}{path}", origin="http://evil.example", open_timeout=TIMEOUT)
        assert refused.value.response.status_code == 403
        # DNS rebinding: evil.example resolves to 127.0.0.1, the browser sends its own name.
        rebound = socket.create_connection(("127.0.0.1", int(port)), timeout=TIMEOUT)
        with pytest.raises(InvalidStatus) as misdirected:
            connect(f"ws://evil.example:{port}{path}", sock=rebound, open_timeout=TIMEOUT)
        assert misdirected.value.response.status_code == 403
        for headers in ({"Host": f"evil.example:{port}"}, {"Host": address, "Origin": "null"},
                        {"Host": address, "Origin": f"http://{address}.evil.example"}):  # fmt: skip
            assert " 403 " in _ws_upgrade(address, path, headers), headers
        live = registry.tables[created["table"]]
        assert live.connections == set()
        own = {"Host": address, "Origin": f"http://{address}"}
        assert " 101 " in _ws_upgrade(address, path, own)
        with connect(f"ws://{address}{path}", origin=f"http://{address}") as ws:
            assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "state"


def test_host_names_and_the_policy_of_a_public_host() -> None:
    assert _split_host("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert _split_host("[::1]:80") == ("::1", 80) and _split_host("[::1]") == ("::1", None)
    assert _split_host("LocalHost") == ("localhost", None)
    for bad in ("::1", "[::1", "[::1]x", "a:b", "a:99999999", "a:1:2", "a: 1"):
        assert _split_host(bad) is None, bad
    loopback = HostPolicy()
    assert loopback.allows("localhost") and loopback.allows("::1")
    assert not loopback.allows("10.0.0.5") and not loopback.allows("evil.example")
    public = HostPolicy.listening_on("0.0.0.0", ["games.lan"])
    assert public.allows("10.0.0.5") and public.allows("games.lan") and public.allows("::1")
    assert not public.allows("evil.example")  # a name can be rebound; an address cannot
    one = HostPolicy.listening_on("192.168.1.7")
    assert one.allows("192.168.1.7") and not one.allows("10.0.0.5")
    assert HostPolicy.listening_on("[::1]").names == HostPolicy().names


# ---- bodies and replay builds -------------------------------------------------------------------


def _send_endless_body(address: str, path: str, limit: int) -> tuple[str, int]:
    """POST a chunked body of up to ``limit`` bytes in 64 KiB chunks until the server answers;
    its status line and the bytes sent by then."""
    host, port = address.rsplit(":", 1)
    chunk = b" " * 65536
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    sent = 0
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as sock:
        head = (f"POST {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\n\r\n")  # fmt: skip
        sock.sendall(head.encode())
        while sent < limit:
            readable, _, _ = select.select([sock], [], [], 0)
            if readable:
                break
            try:
                sock.sendall(frame)
            except OSError:  # the server answered and closed: read the answer
                break
            sent += len(chunk)
        sock.settimeout(TIMEOUT)
        return sock.recv(4096).decode("latin-1").split("\r\n")[0], sent


@pytest.mark.slow
def test_an_endless_upload_is_cut_off_at_the_limit_and_memory_stays_bounded() -> None:
    """200 MB sent without a length to a server whose limit is 1 MB: refused (413) once the
    limit is passed, long before the body ends, and the server's peak memory barely moves."""
    with child_server("--bot-delay", "0") as child:
        with httpx.Client(base_url=f"http://{child.address}", timeout=TIMEOUT) as http:
            assert http.get("/api/games").status_code == 200
            before = child.peak_rss_kib()
            status, sent = _send_endless_body(child.address, "/api/replays", 200 * 2**20)
            assert " 413 " in status + " ", status
            assert sent < 32 * 2**20, sent  # the limit plus what the sockets' buffers held
            declared = _raw_request(
                child.address,
                "POST /api/replays HTTP/1.1\r\nContent-Type: application/json\r\n"
                "Content-Length: 999999999999",
            )
            assert " 413 " in declared, declared  # refused on its declared length, unread
            after = child.peak_rss_kib()
            assert http.get("/api/games").status_code == 200
        assert after - before < 48 * 1024, (before, after)


def test_a_slow_replay_build_leaves_the_other_tables_served(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a replay is being built (held here until released) the other tables answer; one
    build runs at a time, a few wait their turn, and the next is refused at once (503)."""
    import panda_core.web.tables as tables

    building, release = threading.Event(), threading.Event()
    builds: list[float] = []
    real_replay = tables.Replay

    def slow_replay(record: str, names: Any = None) -> Any:
        builds.append(time.monotonic())
        building.set()
        assert release.wait(DEADLINE)
        return real_replay(record, names=names)

    monkeypatch.setattr(tables, "Replay", slow_replay)
    record = a_record()
    with (
        running_server() as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        registry = server.config.app.state.registry
        other = http.post("/api/tables", json={**HEAD, "game": "year", "seed": 3}).json()
        answers: list[httpx.Response] = []

        def upload() -> None:
            with httpx.Client(base_url=f"http://{address}", timeout=DEADLINE) as own:
                answers.append(own.post("/api/replays", content=record, headers=_JSON))

        uploads = [threading.Thread(target=upload) for _ in range(1 + REPLAY_QUEUE)]
        try:
            uploads[0].start()
            assert building.wait(TIMEOUT)
            for thread in uploads[1:]:
                thread.start()
            deadline = time.monotonic() + TIMEOUT
            while registry._replay_waiting < REPLAY_QUEUE:
                assert time.monotonic() < deadline, "the uploads did not queue"
                time.sleep(0.01)
            assert len(builds) == 1  # one build at a time
            busy = http.post("/api/replays", content=record, headers=_JSON)
            assert_refused(busy, 503, "try again")
            assert int(busy.headers["retry-after"]) >= 1
            # Meanwhile every other table is served.
            state = http.get(f"/api/tables/{other['table']}?{query(other)}")
            assert state.status_code == 200 and state.json()["game"] == "year"
            assert http.get("/api/games").status_code == 200
            assert http.post("/api/tables", json=HEAD).status_code == 201
        finally:
            release.set()
            for thread in uploads:
                if thread.is_alive() or thread.ident is not None:
                    thread.join(DEADLINE)
        assert [a.status_code for a in answers] == [201] * (1 + REPLAY_QUEUE)
        assert len(registry.replays) == 1 + REPLAY_QUEUE


@pytest.mark.slow
def test_a_hostile_record_upload_leaves_the_server_up() -> None:
    """Issue 19's upload, at its size: a never-busting Panda Head record of 8,100 random moves
    (18 KB; it once took ~4 GB and aborted ``panda-core serve``). The server replays it in
    little memory (peak RSS of the server process: about 10 MiB more, measured), serves another
    table while it is built, and is still up after it."""
    record = hostile_record(8100)
    assert len(record) >= 18_000
    with child_server("--bot-delay", "0") as child:
        with httpx.Client(base_url=f"http://{child.address}", timeout=DEADLINE) as http:
            other = http.post("/api/tables", json=HEAD).json()
            before = child.peak_rss_kib()
            answers: list[httpx.Response] = []
            upload = threading.Thread(
                target=lambda: answers.append(
                    http.post("/api/replays", content=record, headers=_JSON)
                )
            )
            upload.start()
            state = http.get(f"/api/tables/{other['table']}?{query(other)}", timeout=TIMEOUT)
            assert state.status_code == 200
            upload.join(DEADLINE)
            assert answers and answers[0].status_code == 201, answers
            assert http.get("/api/games").status_code == 200
            assert child.process.poll() is None
            grown_mib = (child.peak_rss_kib() - before) / 1024
            assert grown_mib < 200, f"the replay cost {grown_mib:.0f} MiB"


# ---- websockets ---------------------------------------------------------------------------------


def _long_table(http: httpx.Client, moves: int) -> dict[str, Any]:
    """A Panda Head table that never busts, ``moves`` person moves into the game (its state,
    which holds the whole log, is then large)."""
    body = {**HEAD, "seed": 7, "rules": {"bust_threshold": 1_000_000}}
    created: dict[str, Any] = http.post("/api/tables", json=body).json()
    url = f"/api/tables/{created['table']}"
    who = {"seat": created["seat"], "token": created["token"]}
    rng = random.Random(1)
    state = http.get(f"{url}?{query(created)}").json()
    played = 0
    deadline = time.monotonic() + DEADLINE
    while played < moves:
        assert time.monotonic() < deadline and not state["is_over"]
        if not state["your_turn"]:
            time.sleep(0.002)
            state = http.get(f"{url}?{query(created)}").json()
            continue
        move = rng.randrange(len(state["legal"]))
        answer = http.post(f"{url}/moves", json={**who, "move": move})
        assert answer.status_code == 200, answer.text
        state = answer.json()
        played += 1
    return created


def _flood(address: str, path: str, frames: int) -> tuple[int, int | None, str]:
    """Send ``frames`` state requests without reading; how many went out, the close code and
    reason the server ended with."""
    sent = 0
    with connect(f"ws://{address}{path}", open_timeout=TIMEOUT, close_timeout=1) as ws:
        try:
            for sent in range(1, frames + 1):  # noqa: B007 (the count is the result)
                ws.send('{"type": "state"}')
        except ConnectionClosed:
            pass
        try:
            while True:
                ws.recv(timeout=TIMEOUT)
        except ConnectionClosed as closed:
            received = closed.rcvd
        return sent, (received.code if received else None), (received.reason if received else "")


@pytest.mark.slow
def test_a_websocket_flood_on_a_long_table_is_closed_and_leaves_the_server_responsive() -> None:
    """10,000 ``{"type": "state"}`` frames, never read, on a table whose state is ~200 KB: the
    socket is closed with 1008 and a reason after its burst, another table answers meanwhile,
    and the server's peak memory grows by less than 48 MiB (it once queued 2,000 states)."""
    with child_server("--bot-delay", "0") as child:
        with httpx.Client(base_url=f"http://{child.address}", timeout=TIMEOUT) as http:
            long = _long_table(http, 300)
            other = http.post("/api/tables", json={**HEAD, "game": "spin"}).json()
            size = len(http.get(f"/api/tables/{long['table']}?{query(long)}").content)
            assert size > 150_000, size
            before = child.peak_rss_kib()
            flood: list[tuple[int, int | None, str]] = []
            path = f"/ws/tables/{long['table']}?{query(long)}"
            flooder = threading.Thread(
                target=lambda: flood.append(_flood(child.address, path, 10_000))
            )
            flooder.start()
            answered = 0
            while flooder.is_alive():
                state = http.get(f"/api/tables/{other['table']}?{query(other)}")
                assert state.status_code == 200  # within TIMEOUT, while the flood goes on
                answered += 1
                time.sleep(0.02)
            flooder.join()
            after = child.peak_rss_kib()
            assert http.get(f"/api/tables/{long['table']}?{query(long)}").status_code == 200
        (sent, code, reason) = flood[0]
        assert code == 1008 and "messages" in reason, (sent, code, reason)
        assert sent > FRAMES_BURST
        assert answered >= 1
        assert after - before < 48 * 1024, (before, after)


def test_forty_concurrent_connects_while_a_bot_holds_the_table_get_exactly_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from panda_core.table import Table

    thinking, release = threading.Event(), threading.Event()
    step_bot = Table.step_bot

    def held_step_bot(self: Any) -> Any:
        thinking.set()
        assert release.wait(DEADLINE)
        return step_bot(self)

    monkeypatch.setattr(Table, "step_bot", held_step_bot)

    async def connect_all(url: str) -> list[str]:
        sockets = await asyncio.gather(
            *(async_connect(url, open_timeout=TIMEOUT, close_timeout=1) for _ in range(40))
        )
        release.set()  # every connect was decided while the bot held the table

        async def first(ws: Any) -> str:
            async with ws:
                kind: str = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"]
                return kind

        return list(await asyncio.gather(*(first(ws) for ws in sockets)))

    with (
        running_server(bot_delay=0) as (address, _),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        # Panda Head's seat 1 leads the first hand: the bot moves first, holding the table.
        created = http.post("/api/tables", json={**HEAD, "seed": 2}).json()
        assert thinking.wait(TIMEOUT)
        try:
            url = f"ws://{address}/ws/tables/{created['table']}?{query(created)}"
            kinds = asyncio.run(connect_all(url))
        finally:
            release.set()
    assert kinds.count("state") == MAX_SEAT_SOCKETS  # all on one seat: its limit binds
    assert kinds.count("error") == 40 - MAX_SEAT_SOCKETS


def test_a_state_built_slowly_holds_up_only_its_own_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``GET /api/tables/{id}`` builds the state in a worker thread: while one table's state is
    being built (held here), other tables and the catalogue answer."""
    from panda_core.table import Table

    building, release = threading.Event(), threading.Event()
    state = Table.state
    slow_tables: set[int] = set()

    def slow_state(self: Any, seat: object) -> Any:
        if id(self) in slow_tables:
            building.set()
            assert release.wait(DEADLINE)
        return state(self, seat)

    monkeypatch.setattr(Table, "state", slow_state)
    with (
        running_server(bot_delay=30) as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        registry = server.config.app.state.registry
        slow = http.post("/api/tables", json=HEAD).json()
        other = http.post("/api/tables", json={**HEAD, "game": "year", "seed": 3}).json()
        slow_tables.add(id(registry.tables[slow["table"]].table))
        answers: list[httpx.Response] = []
        reader = threading.Thread(
            target=lambda: answers.append(
                httpx.get(f"http://{address}/api/tables/{slow['table']}?{query(slow)}")
            )
        )
        reader.start()
        try:
            assert building.wait(TIMEOUT)
            assert http.get("/api/games").status_code == 200
            assert http.get(f"/api/tables/{other['table']}?{query(other)}").status_code == 200
            move = {"seat": 0, "token": other["token"], "move": 0}
            assert http.post(f"/api/tables/{other['table']}/moves", json=move).status_code == 200
        finally:
            release.set()
            reader.join(DEADLINE)
        assert answers[0].status_code == 200


def test_invalid_frames_give_an_error_and_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    """A malformed message is answered with an error message and logged in one line; text that
    is not UTF-8 (which uvicorn closes with 1007 and once logged with a traceback) is one
    warning line too; nothing is logged with a traceback."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    uvicorn_log = logging.getLogger("uvicorn.error")
    keep = Keep()
    caplog.set_level(logging.INFO, logger="panda_core.web")
    with (
        running_server(bot_delay=30) as (address, _),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        uvicorn_log.addHandler(keep)  # after uvicorn configured its logging
        try:
            created = http.post("/api/tables", json=HEAD).json()
            url = f"ws://{address}/ws/tables/{created['table']}?{query(created)}"
            with connect(url, open_timeout=TIMEOUT) as ws:
                assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "state"
                for bad in ("not json", "[]", '{"type": "dance"}', b"\x00\x01"):
                    ws.send(bad)
                    answer = json.loads(ws.recv(timeout=TIMEOUT))
                    assert answer["type"] == "error" and answer["message"], bad
            with connect(url, open_timeout=TIMEOUT) as ws:  # text that is not UTF-8
                ws.recv(timeout=TIMEOUT)
                ws.protocol.send_text(b"\xff\xfe not utf-8")
                ws.socket.sendall(b"".join(ws.protocol.data_to_send()))
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=TIMEOUT)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1007
        finally:
            uvicorn_log.removeHandler(keep)
    refused = [r for r in caplog.records if "refused a message" in r.getMessage()]
    assert len(refused) == 4 and all(r.exc_info is None for r in refused)
    assert all("\n" not in r.getMessage() for r in refused)
    utf8 = [r for r in records if "UTF-8" in r.getMessage()]
    assert len(utf8) == 1 and utf8[0].exc_info is None and "\n" not in utf8[0].getMessage()
    assert not [r for r in records + caplog.records if r.exc_info]


def test_on_stop_every_page_gets_the_documented_goodbye() -> None:
    """docs/web_api.md: when the server stops, its pages get an error message and the code 1001
    (uvicorn alone closes them with 1012 and no message)."""
    with running_server(bot_delay=30) as (address, server):
        with httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http:
            tables = [http.post("/api/tables", json=HEAD).json() for _ in range(2)]
        with contextlib.ExitStack() as stack:
            sockets = [
                stack.enter_context(
                    connect(
                        f"ws://{address}/ws/tables/{t['table']}?{query(t)}", open_timeout=TIMEOUT
                    )
                )
                for t in tables
            ]
            for ws in sockets:
                assert json.loads(ws.recv(timeout=TIMEOUT))["type"] == "state"
            server.should_exit = True
            for ws in sockets:
                goodbye = json.loads(ws.recv(timeout=TIMEOUT))
                assert goodbye == {"type": "error", "message": "the server is shutting down"}
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=TIMEOUT)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1001
                assert closed.value.rcvd.reason == "the server is shutting down"


# ---- request models: every field, unknown keys, nested junk, huge arrays ------------------------

_DEEP = "[" * 20_000 + "]" * 20_000
"""Nesting far past what a decoder recurses into, well within the body limit."""
BAD_FIELDS: list[tuple[dict[str, Any], int, tuple[str, ...]]] = [
    ({"game": ["head"]}, 400, ("game", "string")),
    ({"players": 2.0}, 400, ("players", "integer")),
    ({"players": None}, 400, ("players", "integer")),
    ({"seat": True}, 400, ("seat", "integer")),
    ({"seat": 0.0}, 400, ("seat", "integer")),
    ({"bots": {"random": 1}}, 400, ("bots", "list")),
    ({"bots": [None]}, 400, ("bots[0]", "string")),
    ({"bots": ["random", ["random"]]}, 400, ("bots[1]", "string")),
    ({"seed": "1"}, 400, ("seed", "integer")),
    ({"seed": [1]}, 400, ("seed", "integer")),
    ({"rules": "bust_threshold=5"}, 400, ("rules", "dictionary")),
    ({"Game": "head"}, 400, ("'Game'", "the fields are")),
    ({"a": 1, "b": 2, "c": 3, "d": 4}, 400, ("'a'", "'c'", "1 more")),
    ({"game": 1, "players": "2", "seed": 1.5, "colour": 1}, 400, ("game", "players", "seed")),
    ({"rules": {"bust_threshold": {"a": [[[1]]]}}}, 422, ("bust_threshold",)),
    ({"rules": {"bust_threshold": 2**80}}, 422, ("bust_threshold",)),
    ({"players": 2**70, "bots": ["random"]}, 422, ("players",)),
    ({"seat": 2**70}, 422, ("seat",)),
]


@pytest.mark.parametrize(("fields", "status", "words"), BAD_FIELDS)
def test_a_table_request_of_wrong_types_unknown_keys_or_junk_is_refused_naming_each_field(
    fields: dict[str, Any], status: int, words: tuple[str, ...]
) -> None:
    """Each field of ``POST /api/tables`` with a value of the wrong type, unknown keys and
    nested junk: 400 naming the field and what it allows (422 for what the engine refuses), no
    table made."""
    with served() as (client, _):
        answer = client.post("/api/tables", json={**HEAD, **fields})
        assert_refused(answer, status, *words)
        assert len(answer.json()["error"]) < 600
        assert client.app.state.registry.tables == {}  # type: ignore[attr-defined]


def test_a_move_or_replay_request_of_wrong_types_or_junk_changes_nothing() -> None:
    with served(bot_delay=30) as (client, _):
        created = new_table(client, "year", seed=3)
        state = wait_for_turn(client, created)
        url = f"/api/tables/{created['table']}"
        who = {"seat": 0, "token": created["token"]}
        for body, status, words in (
            ({**who, "seat": "0", "move": 0}, 400, ("seat", "integer")),
            ({**who, "token": 5, "move": 0}, 400, ("token", "string")),
            ({**who, "token": "a b", "move": 0}, 400, ("token", "pattern")),
            ({**who, "token": "x" * 101, "move": 0}, 400, ("token",)),
            ({**who, "move": {"index": 0}}, 400, ("move", "integer", "string")),
            ({**who, "move": None}, 400, ("move",)),
            ({**who, "move": 2**70}, 422, ("move", "legal")),
            ({**who, "move": -1}, 422, ("move", "legal")),
            ({**who, "move": "\x00"}, 422, ("move",)),
            ({"move": 0}, 400, ("seat", "token")),
        ):
            assert_refused(client.post(f"{url}/moves", json=body), status, *words)
        headers = {"content-type": "application/json"}
        deep = f'{{"seat": 0, "token": "{created["token"]}", "move": {_DEEP}}}'
        assert_refused(client.post(f"{url}/moves", content=deep, headers=headers), 400, "JSON")
        lone = f'{{"seat": 0, "token": "{created["token"]}", "move": "\\ud800"}}'  # no text
        assert_refused(client.post(f"{url}/moves", content=lone, headers=headers), 400, "move")
        assert_refused(client.post(f"{url}/replay", json={**who, "seat": None}), 400, "seat")
        assert client.get(f"{url}?{query(created)}").json() == state


def test_a_huge_array_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A body over the limit never reaches the JSON decoder (413 on its declared length or while
    it is read); one within the limit holding thousands of wrong values or unknown keys is
    parsed once and answered with a short message."""
    from starlette.requests import Request

    parsed: list[int] = []
    real_json = Request.json

    async def counted_json(self: Request) -> Any:
        parsed.append(1)
        return await real_json(self)

    monkeypatch.setattr(Request, "json", counted_json)
    headers = {"content-type": "application/json"}
    with served() as (client, _):
        huge = json.dumps({**HEAD, "bots": ["random"] * 1_000_000}).encode()
        assert_refused(client.post("/api/tables", content=huge, headers=headers), 413, "limit")

        def chunked() -> Iterator[bytes]:  # no Content-Length: counted while read
            yield b'{"game": "head", "players": 2, "bots": ['
            for _ in range(100_000):
                yield b'"random", ' * 10

        assert_refused(client.post("/api/tables", content=chunked(), headers=headers), 413)
        assert parsed == []
        many = json.dumps({**HEAD, "bots": [0] * 20_000}).encode()
        assert len(many) < 64 * 1024
        answer = client.post("/api/tables", content=many, headers=headers)
        assert_refused(answer, 400, "bots[0]", "19997 more")
        assert len(answer.json()["error"]) < 600
        keys = json.dumps({**HEAD, **{f"k{i}": 0 for i in range(5000)}}).encode()
        assert len(keys) < 64 * 1024
        answer = client.post("/api/tables", content=keys, headers=headers)
        assert_refused(answer, 400, "'k0'", "4997 more", "the fields are")
        assert len(answer.json()["error"]) < 600
        assert parsed == [1, 1]
        assert client.app.state.registry.tables == {}  # type: ignore[attr-defined]


def test_bad_websocket_messages_of_every_kind_are_answered_and_change_nothing() -> None:
    with served(bot_delay=30) as (client, _):
        created = new_table(client, "year", seed=3)
        state = wait_for_turn(client, created)
        with client.websocket_connect(f"/ws/tables/{created['table']}?{query(created)}") as ws:
            assert game_part(ws.receive_json()["state"]) == game_part(state)
            for bad, word in (
                ('{"type": 5}', "type"),
                ('{"type": "Move", "move": 0}', "'move' or 'state'"),
                ('{"move": 0}', "type"),
                ('{"type": "move", "move": {"a": [1]}}', "move"),
                ('{"type": "move", "move": null}', "needs move"),
                ('{"type": "move", "move": true}', "integer"),
                ('{"type": "move", "move": 1.0}', "integer"),
                ('{"type": "move", "move": 0, "seat": 1}', "'seat'"),
                ('{"type": "state", "again": true}', "'again'"),
                ('{"type": "move", "move": "' + "x" * 300 + '"}', "200"),
                ('{"type": "move", "move": 99999999999999999999999}', "legal"),
                ("[" * 10_000, "JSON"),
                ('"move"', "object"),
                ('{"type": "move", "move": "\\ud800"}', "JSON"),  # a lone surrogate: no text
            ):
                ws.send_text(bad)
                answer = ws.receive_json()
                assert answer["type"] == "error" and word in answer["message"], (bad, answer)
            ws.send_json({"type": "state"})
            assert game_part(ws.receive_json()["state"]) == game_part(state)


# ---- tables: finished ones, the creation rate ---------------------------------------------------


@pytest.mark.slow
def test_sixty_four_finished_games_do_not_lock_table_creation() -> None:
    """64 short games played to the end (the default limit of games being played) leave the
    server open for more: a finished table no longer counts, and finished tables are kept only
    up to the limit (the oldest go first) and for a grace time."""
    with served(creation_rate=1000.0) as (client, _):
        registry = client.app.state.registry  # type: ignore[attr-defined]
        assert registry.max_tables == 64
        finished = []
        for seed in range(64):
            created = new_table(client, "head", seed=seed, rules={"bust_threshold": 1})
            assert play_socket(client, created)[-1]["is_over"]
            finished.append(created)
        assert registry.playing() == 0 and len(registry.tables) == 64
        fresh = new_table(client, "head")  # the 65th: still room
        record = client.get(f"/api/tables/{finished[-1]['table']}/record?{query(finished[-1])}")
        assert record.status_code == 200  # the end is still there for the player
        who = {"seat": finished[-1]["seat"], "token": finished[-1]["token"]}
        replays = [
            client.post(f"/api/tables/{finished[-1]['table']}/replay", json=who).json()
            for _ in range(3)
        ]
        assert len({r["replay"] for r in replays}) == 1  # asked thrice, built once
        assert len(registry.replays) == 1
        last = new_table(client, "spin", seed=99)
        assert play_socket(client, last)[-1]["is_over"]
        assert len(registry.tables) == 64 + 1  # 64 finished kept, and the fresh one playing
        assert finished[0]["table"] not in registry.tables  # the oldest finished made room
        assert fresh["table"] in registry.tables
        # After the grace, a finished table is closed.
        now = [time.monotonic() + registry.finished_grace + 1]
        registry.clock = lambda: now[0]
        registry.reap()
        assert set(registry.tables) == {fresh["table"]}


def test_table_creation_is_rate_limited() -> None:
    with served(creation_rate=0.5, max_tables=4, bot_delay=30) as (client, _):
        registry = client.app.state.registry  # type: ignore[attr-defined]
        for _ in range(4):  # the burst: max_tables at once
            new_table(client, "head")
        registry.tables.clear()  # make room: only the rate is left to refuse
        answer = client.post("/api/tables", json=HEAD)
        assert_refused(answer, 429, "a second")
        assert int(answer.headers["retry-after"]) >= 1
        replay = client.post("/api/replays", content=a_record(), headers=_JSON)
        assert_refused(replay, 429)


# ---- headers and the page -----------------------------------------------------------------------

PAGE = Path(panda_core.__file__).parent / "web" / "static"


def test_every_answer_carries_the_security_headers() -> None:
    with (
        running_server() as (address, _),
        httpx.Client(base_url=f"http://{address}", timeout=TIMEOUT) as http,
    ):
        answers = [
            http.get("/"),
            http.get("/static/app.js"),
            http.get("/static/style.css"),
            http.get("/api/games"),
            http.get("/api/nowhere"),
            http.post("/api/tables", content=b"{}"),
            http.post("/api/replays", content=b" " * 2_000_000, headers=_JSON),
            http.get("/api/games", headers={"host": "evil.example"}),
            http.get("/api/games", headers={"origin": "http://evil.example"}),
        ]
        assert [a.status_code for a in answers] == [200, 200, 200, 200, 404, 415, 413, 421, 403]
        for answer in answers:
            headers = answer.headers
            assert headers["x-frame-options"] == "DENY"
            assert headers["x-content-type-options"] == "nosniff"
            assert headers["referrer-policy"] == "no-referrer"
            csp = headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
            assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert answers[3].headers["cache-control"] == "no-store"
        assert f"ws://{address}" in answers[0].headers["content-security-policy"]


def test_the_page_needs_no_inline_script_or_style() -> None:
    """The CSP allows the page's own files only: the page has no inline script, style or
    handler (the browser tests play whole games under that policy)."""
    page = (PAGE / "index.html").read_text()
    assert "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+\s*=", page)  # no onclick= and the like
    for script in page.split("<script")[1:]:
        assert 'src="/static/' in script.split(">")[0] and script.split(">", 1)[1].startswith(
            "</script"
        )
    scripts = sorted(PAGE.glob("*.js"))
    assert {"app.js", "cards.js", "board.js"} <= {s.name for s in scripts}
    for script_file in scripts:
        code = script_file.read_text()
        assert ".style." not in code and "innerHTML" not in code and "eval(" not in code


# ---- the command --------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_public_host_prints_a_warning() -> None:
    with child_server("--host", "0.0.0.0", "--allow-host", "games.lan") as child:
        assert child.process.stderr is not None
        port = child.address.rsplit(":", 1)[1]
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=TIMEOUT) as http:
            assert http.get("/api/games").status_code == 200
            ip = http.get("/api/games", headers={"host": f"10.11.12.13:{port}"})
            assert ip.status_code == 200  # a machine's address: any, when listening on all
            named = http.get("/api/games", headers={"host": f"games.lan:{port}"})
            assert named.status_code == 200  # --allow-host
            assert http.get("/api/games", headers={"host": f"evil.example:{port}"}).status_code == (
                421
            )
        # The line after the address, read through the same buffered reader (communicate()
        # reads the pipe itself and would miss what that reader already buffered).
        friends: list[str] = []
        stdout = child.process.stdout
        assert stdout is not None
        reader = threading.Thread(target=lambda: friends.append(stdout.readline()), daemon=True)
        reader.start()
        reader.join(DEADLINE)
        child.process.send_signal(signal.SIGINT)
        out, err = child.process.communicate(timeout=DEADLINE)
        out = "".join(friends) + out
    assert "WARNING" in err and "anyone" in err and "0.0.0.0" in err
    # What is exposed: tables, the links' seats, and everything in the clear.
    assert "no login" in err and "not encrypted" in err and "seat tokens" in err
    assert "friends on the network open http://" in out


@pytest.mark.slow
def test_the_loopback_host_prints_no_warning() -> None:
    with child_server() as child:
        child.process.send_signal(signal.SIGINT)
        _, err = child.process.communicate(timeout=DEADLINE)
    assert "WARNING" not in err
