"""The web server of ``panda-core serve`` (``panda_core.web``): its JSON and websocket protocol,
complete games of every kind through it, every refusal (4xx with a message, never a 500), the
upload limit, replays, idle tables, many tables at once, reloads, a real uvicorn server, and the
no-hidden-card property over everything sent to a page."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.requests import Request
from starlette.websockets import WebSocketDisconnect

import panda_core
from panda_core.cli import build_parser
from panda_core.web.bodies import read_body
from panda_core.web.errors import TooLarge
from panda_core.web.limits import MAX_SEAT_SOCKETS
from web_support import (
    DEADLINE,
    Knowledge,
    card_ids,
    first_legal,
    free_port,
    game_part,
    moves_seen,
    new_table,
    play_http,
    play_socket,
    query,
    served,
    states_sent,
    wait_for_turn,
)

GAMES = ("head", "year", "spin")


def by_notation(state: dict[str, Any]) -> int | str:
    """Answer with the notation of the first legal move every other turn (both forms work)."""
    legal = state["legal"]
    if moves_seen(state) % 2:
        notation: str = legal[0]["notation"]
        return notation
    return first_legal(state)


def assert_error(answer: httpx.Response, status: int, *words: str) -> str:
    assert answer.status_code == status, (answer.status_code, answer.text)
    body = answer.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    for word in words:
        assert word in body["error"], body["error"]
    message: str = body["error"]
    return message


# ---- the catalogue ----------------------------------------------------------------------------


def test_games_lists_every_game_its_players_rules_and_bots() -> None:
    with served() as (client, _):
        body = client.get("/api/games").json()
    assert [g["name"] for g in body["games"]] == list(GAMES)
    head = body["games"][0]
    assert head["title"] == "Panda Head" and head["players"] == [2, 3, 4, 5]
    assert head["rules"]["bust_threshold"] == 21 and head["rules"]["poor_panda"] is True
    assert body["games"][1]["rules"] == {"panda_mood": "hungry", "first_player": 0}
    assert "panda_mood" not in body["games"][2]["rules"]  # spin has no panda mood (S-7.6)
    assert all("deck" not in g["rules"] for g in body["games"])  # a path: never from a page
    assert body["bots"] == [
        "random",
        "heuristic",
        "neural",
        "ismcts:50",
        "ismcts:200",
        "ismcts+neural:50",
    ]


# ---- complete games ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_complete_game_through_the_websocket(game: str) -> None:
    with served() as (client, _):
        created = new_table(client, game, bots=["heuristic"], seed=11)
        states = play_socket(client, created, by_notation)
        final = states[-1]
        assert final["is_over"] and final["winner"] in (0, 1) and final["seed"] == 11
        assert final["legal"] == [] and not final["your_turn"]
        assert sum(1 for s in states if s["your_turn"]) >= 3
        record = client.get(f"/api/tables/{created['table']}/record?{query(created)}")
        assert record.status_code == 200
        assert "attachment" in record.headers["content-disposition"]
        loaded = type(panda_core.make(game, 2, 0)).from_json(record.text)
        assert loaded.is_over and loaded.winner == final["winner"]
        assert loaded.scores == final["scores"]


@pytest.mark.parametrize("game", GAMES)
def test_a_complete_game_over_http(game: str) -> None:
    with served() as (client, _):
        created = new_table(client, game, seat=1, bots=["random"], seed=5)
        final = play_http(client, created)
        assert final["is_over"] and final["seat"] == 1
        after = client.post(
            f"/api/tables/{created['table']}/moves",
            json={"seat": 1, "token": created["token"], "move": 0},
        )
        assert_error(after, 409)


# ---- no hidden card ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_no_page_ever_receives_a_card_its_seat_may_not_know(game: str) -> None:
    with served() as (client, traffic):
        created = new_table(client, game, players=3, bots=["heuristic", "random"], seed=23)
        other = new_table(client, game, players=3, bots=["random", "random"], seed=24)
        seat = created["seat"]
        wait_for_turn(client, created)  # one HTTP state before the socket: both are checked
        play_socket(client, created, by_notation)
        play_http(client, other)
        record = client.get(f"/api/tables/{created['table']}/record?{query(created)}").text

    knowledge = Knowledge(game, 3, 23, record)
    # The check can fail: at the deal, the other hands are secret, and a state showing one of
    # their cards is caught.
    secret = knowledge.secrets_for(seat, 0)
    assert secret
    leaked = {"events": [], "hand": [{"id": min(secret), "token": "x", "label": "x"}]}
    assert card_ids(leaked) & secret

    states = states_sent(traffic, created["table"])
    assert len(states) > 10
    for state in states:
        assert state["seat"] == seat
        moment = moves_seen(state)
        assert {c["id"] for c in state["hand"]} == knowledge.hands[moment][seat]
        shown = card_ids(state)
        assert not shown & knowledge.secrets_for(seat, moment), (moment, state)
    # Another table's token never reaches this table's pages (nor its own, past its creation).
    for kind, path, body in traffic:
        text = body.decode() if isinstance(body, bytes) else body
        if path == "/api/tables":
            continue
        assert created["token"] not in text and other["token"] not in text, (kind, path)


# ---- refusals ---------------------------------------------------------------------------------

BAD_TABLES: list[tuple[Any, int, str]] = [
    ([], 400, "JSON object"),
    ({"game": "head"}, 400, "players"),
    ({"game": 7, "players": 2, "bots": ["random"]}, 400, "game"),
    ({"game": "head", "players": 2, "bots": ["neural:/etc/passwd"]}, 422, "opens no path"),
    ({"game": "chess", "players": 2, "bots": ["random"]}, 422, "unknown game"),
    ({"game": "head", "players": "2", "bots": ["random"]}, 400, "players"),
    ({"game": "head", "players": True, "bots": ["random"]}, 400, "players"),
    ({"game": "head", "players": 9, "bots": ["random"] * 8}, 422, "2 to 5"),
    ({"game": "head", "players": 2, "bots": ["random"], "seat": 2}, 422, "seat"),
    ({"game": "head", "players": 2, "bots": ["random"], "seat": -1}, 422, "seat"),
    ({"game": "head", "players": 2, "bots": ["random"], "seat": "0"}, 400, "seat"),
    ({"game": "head", "players": 3, "bots": ["random"]}, 422, "2 bots"),
    ({"game": "head", "players": 2, "bots": "random"}, 400, "bots"),
    ({"game": "head", "players": 2, "bots": [3]}, 400, "bots"),
    ({"game": "head", "players": 2, "bots": ["grandmaster"]}, 422, "unknown bot"),
    ({"game": "head", "players": 2, "bots": ["os:system"]}, 422, "unknown bot"),
    ({"game": "head", "players": 2, "bots": ["human"]}, 422, "unknown bot"),
    ({"game": "head", "players": 2, "bots": ["ismcts:0"]}, 422, "ismcts"),
    ({"game": "head", "players": 2, "bots": ["random"], "seed": 2**64}, 422, "seed"),
    ({"game": "head", "players": 2, "bots": ["random"], "seed": 1.5}, 400, "seed"),
    ({"game": "head", "players": 2, "bots": ["random"], "rules": []}, 400, "rules"),
    ({"game": "head", "players": 2, "bots": ["random"], "colour": "red"}, 400, "colour"),
    ({"game": "head", "players": 2, "bots": ["random"], "rules": {"x": 1}}, 422, "options"),
    (
        {"game": "head", "players": 2, "bots": ["random"], "rules": {"bust_threshold": "x"}},
        422,
        "bust_threshold",
    ),
    (
        {"game": "head", "players": 2, "bots": ["random"], "rules": {"last_pile_scoring": "no"}},
        422,
        "last_pile_scoring",
    ),
    (
        {"game": "year", "players": 2, "bots": ["random"], "rules": {"deck": "/etc/passwd"}},
        422,
        "options",
    ),
    ({"game": "year", "players": 2, "bots": ["random"], "rules": {"preset": "spin"}}, 422, ""),
    (
        {"game": "year", "players": 2, "bots": ["random"], "rules": {"panda_mood": "angry"}},
        422,
        "angry",
    ),
    ({"game": "spin", "players": 2, "bots": ["random"], "rules": {"panda_mood": "flip"}}, 422, ""),
]


@pytest.mark.parametrize(("body", "status", "word"), BAD_TABLES)
def test_a_bad_table_request_is_refused_with_a_message(body: Any, status: int, word: str) -> None:
    with served() as (client, _):
        assert_error(client.post("/api/tables", json=body), status, word)
        assert client.app.state.registry.tables == {}  # type: ignore[attr-defined]


def test_malformed_bodies_are_400_oversized_ones_413_and_non_json_ones_415() -> None:
    with served() as (client, _):
        headers = {"content-type": "application/json"}
        assert_error(client.post("/api/tables", content=b"{nope", headers=headers), 400, "JSON")
        assert_error(client.post("/api/tables", content=b"\xff\xfe", headers=headers), 400)
        nested = b"[" * 100_000 + b"]" * 100_000
        assert_error(client.post("/api/tables", content=nested, headers={**headers}), 413)
        nested = b"[" * 30_000 + b"]" * 30_000
        assert_error(client.post("/api/tables", content=nested, headers=headers), 400, "JSON")
        plain = {"content-type": "text/plain"}
        assert_error(client.post("/api/tables", content=b"{}", headers=plain), 415, "Content-Type")
        assert_error(client.post("/api/tables", content=b"{}"), 415, "Content-Type")
        assert_error(client.get("/api/nowhere"), 404)
        assert_error(client.delete("/api/games"), 405)


def test_state_requests_need_the_right_seat_and_token() -> None:
    with served() as (client, _):
        created = new_table(client, "head")
        url = f"/api/tables/{created['table']}"
        assert client.get(f"{url}?{query(created)}").status_code == 200
        assert_error(client.get(url), 400, "seat")
        assert_error(client.get(f"{url}?seat=x&token={created['token']}"), 400, "seat")
        assert_error(client.get(f"{url}?seat=0"), 400, "token")
        assert_error(client.get(f"{url}?seat=0&token=wrong"), 403)
        assert_error(client.get(f"{url}?seat=0&token=a%20b"), 400, "token")
        assert_error(client.get(f"{url}?seat=1&token={created['token']}"), 403)
        assert_error(client.get(f"/api/tables/nosuch?{query(created)}"), 404, "no table")
        who = {"seat": 0, "token": created["token"]}
        assert_error(client.post("/api/tables/nosuch/moves", json={**who, "move": 0}), 404)
        assert_error(client.post("/api/tables/nosuch/replay", json=who), 404)
        assert_error(client.post(f"{url}/replay", json={**who, "token": "bad"}), 403)
        assert_error(client.post(f"{url}/replay", json={**who, "move": 0}), 400, "move")
        assert_error(client.get(f"/api/tables/nosuch/record?{query(created)}"), 404)
        assert_error(client.get(f"{url}/record?seat=0&token=bad"), 403)


def test_refused_moves_leave_the_game_as_it_was() -> None:
    with served() as (client, _):
        created = new_table(client, "year", seed=3)
        state = wait_for_turn(client, created)
        url = f"/api/tables/{created['table']}/moves"
        who = {"seat": 0, "token": created["token"]}
        assert_error(client.post(url, json={**who, "move": 999}), 422)
        assert_error(client.post(url, json={**who, "move": "single Zz9"}), 422)
        assert_error(client.post(url, json={**who, "move": "x" * 300}), 422, "200")
        assert_error(client.post(url, json={**who, "move": 1.5}), 400, "move")
        assert_error(client.post(url, json={**who, "move": True}), 400, "move")
        assert_error(client.post(url, json={**who, "move": [0]}), 400, "move")
        assert_error(client.post(url, json=who), 400, "move")
        assert_error(client.post(url, json={"seat": 0, "move": 0}), 400, "token")
        assert_error(client.post(url, json={**who, "token": "bad", "move": 0}), 403)
        assert_error(client.post(url, json={**who, "move": 0, "extra": 1}), 400, "extra")
        again = client.get(f"/api/tables/{created['table']}?{query(created)}").json()
        assert again == state


def test_a_move_out_of_turn_is_409() -> None:
    # Panda Head's first dealer is seat 0, so seat 1 (a bot, held back by a long delay) leads.
    with served(bot_delay=30) as (client, _):
        created = new_table(client, "head", seed=2)
        state = client.get(f"/api/tables/{created['table']}?{query(created)}").json()
        assert state["to_move"] == 1 and not state["your_turn"]
        move = {"seat": 0, "token": created["token"], "move": 0}
        assert_error(client.post(f"/api/tables/{created['table']}/moves", json=move), 409)
        record = client.get(f"/api/tables/{created['table']}/record?{query(created)}")
        assert_error(record, 409, "not over")
        replay = client.post(
            f"/api/tables/{created['table']}/replay", json={"seat": 0, "token": created["token"]}
        )
        assert_error(replay, 409, "not over")


def test_the_websocket_refuses_strangers_and_survives_bad_messages() -> None:
    with served(bot_delay=30) as (client, _):
        created = new_table(client, "head", seed=2)
        for url in (
            f"/ws/tables/{created['table']}?seat=0&token=wrong",
            f"/ws/tables/{created['table']}?seat=1&token={created['token']}",
            f"/ws/tables/nosuch?{query(created)}",
            f"/ws/tables/{created['table']}?seat=zero&token={created['token']}",
        ):
            with client.websocket_connect(url) as ws:
                message = ws.receive_json()
                assert message["type"] == "error" and message["message"]
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 1008
        with client.websocket_connect(f"/ws/tables/{created['table']}?{query(created)}") as ws:
            first = ws.receive_json()
            assert first["type"] == "state"
            for bad in ("not json", "[]", '{"type": "dance"}', '{"type": "move"}',
                        '{"type": "move", "move": [1]}', '{"type": "move", "move": 0}',
                        "x" * 20_000):  # fmt: skip
                ws.send_text(bad)
                answer = ws.receive_json()
                assert answer["type"] == "error" and answer["message"], bad
            ws.send_bytes(b"\x00")
            assert ws.receive_json()["type"] == "error"
            ws.send_json({"type": "state"})  # still usable: the same state again
            assert ws.receive_json() == first


def test_a_seat_takes_a_bounded_number_of_pages() -> None:
    with served(bot_delay=30) as (client, _):
        created = new_table(client, "head", seed=2)
        url = f"/ws/tables/{created['table']}?{query(created)}"
        with contextlib.ExitStack() as pages:
            for _ in range(MAX_SEAT_SOCKETS):
                page = pages.enter_context(client.websocket_connect(url))
                assert page.receive_json()["type"] == "state"
            with client.websocket_connect(url) as one_more:
                assert f"at most {MAX_SEAT_SOCKETS}" in one_more.receive_json()["message"]
                with pytest.raises(WebSocketDisconnect):
                    one_more.receive_json()


# ---- replays and uploads ----------------------------------------------------------------------


def finished_record(client: Any, game: str = "spin") -> tuple[dict[str, Any], str]:
    created = new_table(client, game, seed=8)  # 2 players
    play_socket(client, created)
    return created, client.get(f"/api/tables/{created['table']}/record?{query(created)}").text


def test_replay_frames_for_a_seat_and_for_all() -> None:
    with served() as (client, _):
        created, record = finished_record(client)
        answer = client.post(
            f"/api/tables/{created['table']}/replay", json={"seat": 0, "token": created["token"]}
        )
        assert answer.status_code == 201
        replay = answer.json()
        moves = sum(
            1 for e in panda_core.ClimbGame.from_json(record).history if e["type"] == "move"
        )
        assert replay["frames"] == moves + 1
        assert replay["game"] == "spin" and replay["players"] == 2
        url = f"/api/replays/{replay['replay']}/frames"
        last = replay["frames"] - 1
        knowledge = Knowledge("spin", 2, 8, record)
        for k in range(replay["frames"]):  # a seat's frames show only what it knew then
            for seat in (0, 1):
                frame = client.get(f"{url}/{k}?seat={seat}").json()
                assert frame["frame"] == k and frame["frames"] == replay["frames"]
                assert frame["seat"] == seat and not frame.get("hands")
                assert {c["id"] for c in frame["hand"]} == knowledge.hands[k][seat]
                assert not card_ids(frame) & knowledge.secrets_for(seat, k), (k, seat)
        for k in (0, last // 2, last):  # full information: every hand
            frame = client.get(f"{url}/{k}?seat=all").json()
            assert frame["frame"] == k and frame["seat"] is None
            hands = [{c["id"] for c in hand} for hand in frame["hands"]]
            assert hands == knowledge.hands[k]
        assert client.get(f"{url}/0").json()["frame"] == 0  # no seat: full information
        assert_error(client.get(f"{url}/{last + 1}?seat=0"), 404, "frame")
        assert_error(client.get(f"{url}/-1?seat=0"), 400, "frame")
        assert_error(client.get(f"{url}/x?seat=0"), 400, "frame")
        assert_error(client.get(f"{url}/0?seat=2"), 422, "seat")
        assert_error(client.get(f"{url}/0?seat=me"), 400, "seat")
        assert_error(client.get("/api/replays/nosuch/frames/0?seat=all"), 404, "no replay")
        who = {"seat": 0, "token": "bad"}
        assert_error(client.post(f"/api/tables/{created['table']}/replay", json=who), 403)


def test_uploaded_records_are_checked_and_limited() -> None:
    with served(max_upload=20_000) as (client, _):
        _, record = finished_record(client, "head")
        assert len(record) < 20_000
        as_json = client.post("/api/replays", content=record.encode(), headers=_JSON)
        assert as_json.status_code == 201 and as_json.json()["game"] == "head"
        # Only a JSON body: a form, multipart or plain text (which any site's page can send
        # without asking) is refused, whatever it holds.
        files = {"record": ("game.json", record.encode(), "application/json")}
        assert_error(client.post("/api/replays", files=files), 415, "application/json")
        as_field = client.post("/api/replays", files={"record": (None, record.encode())})
        assert_error(as_field, 415)
        plain = {"content-type": "text/plain"}
        assert_error(client.post("/api/replays", content=record.encode(), headers=plain), 415)
        form = client.post("/api/replays", data={"record": record})
        assert_error(form, 415)
        assert_error(client.post("/api/replays", content=record.encode()), 415)
        again = client.post("/api/replays", content=record.encode(), headers=_JSON)
        assert again.status_code == 201 and again.json()["frames"] == as_json.json()["frames"]

        broken = record.replace('"actions":[', '"actions":[23,23,')
        assert_error(client.post("/api/replays", content=broken.encode(), headers=_JSON), 422)
        for bad in (b"", b"{}", b"[]", b"null", b'{"format": "panda-core/head"}', b"\xff",
                    b"[" * 5000 + b"]" * 5000):  # fmt: skip
            assert_error(client.post("/api/replays", content=bad, headers=_JSON), 422)

        big = b" " * 20_001
        assert_error(client.post("/api/replays", content=big, headers=_JSON), 413, "limit")

        def chunked() -> Iterator[bytes]:  # no Content-Length: counted while read
            for _ in range(100):
                yield b" " * 1000

        assert_error(client.post("/api/replays", content=chunked(), headers=_JSON), 413)
        assert len(client.app.state.registry.replays) == 2  # type: ignore[attr-defined]


_JSON = {"content-type": "application/json"}


def test_a_body_is_refused_as_soon_as_it_passes_the_limit() -> None:
    """``read_body`` stops reading an endless body right after the limit."""
    sent = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        sent += 1
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}

    async def read() -> None:
        request = Request({"type": "http", "method": "POST", "headers": []}, receive)
        await read_body(request, 10_000)

    with pytest.raises(TooLarge):
        asyncio.run(read())
    assert sent == 11


# ---- idle tables, many tables, reloads --------------------------------------------------------


def test_an_idle_table_is_closed_by_the_reaper() -> None:
    with served(idle_timeout=0.3, bot_delay=30) as (client, _):
        created = new_table(client, "head", seed=2)
        registry = client.app.state.registry  # type: ignore[attr-defined]
        with client.websocket_connect(f"/ws/tables/{created['table']}?{query(created)}") as ws:
            assert ws.receive_json()["type"] == "state"
            closing = ws.receive_json()  # no request, no message: the reaper closes the table
            assert closing["type"] == "error" and "idle" in closing["message"]
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
        assert registry.tables == {}
        assert_error(client.get(f"/api/tables/{created['table']}?{query(created)}"), 404)


def test_a_table_in_use_stays_open_and_an_idle_one_closes() -> None:
    with served(idle_timeout=100) as (client, _):
        registry = client.app.state.registry  # type: ignore[attr-defined]
        now = [1000.0]
        registry.clock = lambda: now[0]
        used, idle = new_table(client, "head"), new_table(client, "year")
        for _ in range(5):
            now[0] += 60
            assert client.get(f"/api/tables/{used['table']}?{query(used)}").status_code == 200
        assert_error(client.get(f"/api/tables/{idle['table']}?{query(idle)}"), 404, "idle")
        assert set(registry.tables) == {used["table"]}


def test_at_most_max_tables_are_open() -> None:
    with served(max_tables=3, bot_delay=30) as (client, _):
        for _ in range(3):
            new_table(client, "head")
        body = {"game": "head", "players": 2, "bots": ["random"]}
        assert_error(client.post("/api/tables", json=body), 503, "at most 3")


@pytest.mark.slow
def test_many_tables_at_once() -> None:
    with served() as (client, _):
        tables = [
            new_table(
                client, game, seed=seed, players=2 + seed % 3, bots=["random"] * (1 + seed % 3)
            )
            for seed in range(9)
            for game in (GAMES[seed % 3],)
        ]
        assert len({t["table"] for t in tables}) == 9 and len({t["token"] for t in tables}) == 9
        states = {t["table"]: wait_for_turn(client, t) for t in tables}
        while any(not s["is_over"] for s in states.values()):
            for t in tables:  # one move at each table in turn
                if states[t["table"]]["is_over"]:
                    continue
                move = {"seat": 0, "token": t["token"], "move": 0}
                assert client.post(f"/api/tables/{t['table']}/moves", json=move).status_code == 200
                states[t["table"]] = wait_for_turn(client, t)
        assert {s["game"] for s in states.values()} == set(GAMES)
        assert all(s["winner"] is not None for s in states.values())


def test_a_reload_finds_the_same_game() -> None:
    with served() as (client, _):
        created = new_table(client, "head", seed=4)
        state = wait_for_turn(client, created)
        url = f"/api/tables/{created['table']}?{query(created)}"
        assert client.get(url).json() == state  # a reload: the same state
        socket_url = f"/ws/tables/{created['table']}?{query(created)}"
        with (
            client.websocket_connect(socket_url) as one,
            client.websocket_connect(socket_url) as two,
        ):
            first, second = one.receive_json()["state"], two.receive_json()["state"]
            assert game_part(first) == game_part(state) == game_part(second)
            if second["presence"][0]["pages"] == 1:  # the first page was sent its state early
                assert one.receive_json()["state"]["presence"][0]["pages"] == 2
            one.send_json({"type": "move", "move": 0})
            after_one, after_two = one.receive_json(), two.receive_json()
            assert (
                after_one == after_two and moves_seen(after_one["state"]) == moves_seen(state) + 1
            )
        resumed = wait_for_turn(client, created)  # the page closed; the game went on
        assert moves_seen(resumed) > moves_seen(state)
        with client.websocket_connect(socket_url) as again:
            assert game_part(again.receive_json()["state"]) == game_part(resumed)


def test_the_page_and_static_files_come_from_the_package_only() -> None:
    with served() as (client, _):
        page = client.get("/")
        assert page.status_code in (200, 404)
        if page.status_code == 200:
            assert "html" in page.headers["content-type"]
        for path in ("/static/../cli.py", "/static/%2e%2e/cli.py", "/static/..%2fapp.py",
                     "/static//etc/passwd", "/%2e%2e/%2e%2e/etc/passwd"):  # fmt: skip
            answer = client.get(path)
            assert answer.status_code == 404, path
            assert b"import" not in answer.content and b"root:" not in answer.content


# ---- the command and a real server ------------------------------------------------------------


def test_serve_listens_on_localhost_by_default() -> None:
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.idle_timeout, args.bot_delay) == (
        "127.0.0.1",
        8000,
        1800,
        0.35,
    )
    args = build_parser().parse_args(["serve", "--port", "0", "--bot-delay", "0"])
    assert args.port == 0 and args.bot_delay == 0
    for bad in (["--port", "http"], ["--idle-timeout", "0"], ["--bot-delay", "-1"]):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", *bad])


def test_serve_bounds_each_bot_move() -> None:
    """``--bot-time`` reaches every table: the table model refuses a bound out of its range, so
    a server made with one refuses to create tables and says why."""
    args = build_parser().parse_args(["serve", "--bot-time", "0.5"])
    assert args.bot_time == 0.5
    assert build_parser().parse_args(["serve"]).bot_time == 2.0
    for bad in ("0", "61", "soon"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--bot-time", bad])
    with served(bot_time=120.0) as (client, _):
        body = {"game": "head", "players": 2, "bots": ["random"], "seed": 1}
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 422 and "bot_time" in answer.json()["error"]


@contextlib.contextmanager
def uvicorn_server(**options: Any) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 in a thread; its base URL. Stopped at the end."""
    import uvicorn

    from panda_core.web import create_app

    port = free_port()
    config = uvicorn.Config(
        create_app(**options), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + DEADLINE
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=DEADLINE)
        assert not thread.is_alive(), "uvicorn did not stop"


def test_a_thinking_bot_does_not_block_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a bot's move is being computed (held here until released), the server answers."""
    from panda_core.table import Table

    thinking, release = threading.Event(), threading.Event()
    step_bot = Table.step_bot

    def slow_step_bot(self: Any) -> Any:
        thinking.set()
        assert release.wait(DEADLINE)
        return step_bot(self)

    monkeypatch.setattr(Table, "step_bot", slow_step_bot)
    with (
        uvicorn_server(bot_delay=0) as address,
        httpx.Client(base_url=f"http://{address}", timeout=DEADLINE / 4) as http,
    ):
        # Panda Head's seat 1 leads the first hand: the bot moves first.
        answer = http.post("/api/tables", json={"game": "head", "players": 2, "bots": ["random"]})
        created = answer.json()
        assert thinking.wait(DEADLINE)
        for _ in range(3):
            assert http.get("/api/games").status_code == 200
        other = http.post("/api/tables", json={"game": "year", "players": 2, "bots": ["random"]})
        assert other.status_code == 201
        release.set()
        state = http.get(f"/api/tables/{created['table']}?{query(created)}").json()
        assert state["game"] == "head"


def test_a_real_server_plays_a_game_over_http_and_a_websocket() -> None:
    from websockets.sync.client import connect

    with (
        uvicorn_server(bot_delay=0) as address,
        httpx.Client(base_url=f"http://{address}", timeout=DEADLINE) as http,
    ):
        assert http.get("/api/games").status_code == 200
        answer = http.post(
            "/api/tables", json={"game": "year", "players": 2, "bots": ["heuristic"], "seed": 9}
        )
        assert answer.status_code == 201
        created = answer.json()
        url = f"ws://{address}/ws/tables/{created['table']}?{query(created)}"
        with connect(url, open_timeout=DEADLINE, close_timeout=5) as ws:
            ws.send("not json")
            while True:
                message = json.loads(ws.recv(timeout=DEADLINE))
                if message["type"] == "error":
                    continue
                state = message["state"]
                if state["is_over"]:
                    break
                if state["your_turn"]:
                    ws.send(json.dumps({"type": "move", "move": state["legal"][0]["notation"]}))
        record = http.get(f"/api/tables/{created['table']}/record?{query(created)}")
        assert record.status_code == 200
        uploaded = http.post("/api/replays", content=record.content, headers=_JSON)
        assert uploaded.status_code == 201
        frame = http.get(f"/api/replays/{uploaded.json()['replay']}/frames/0?seat=1")
        assert frame.status_code == 200 and frame.json()["frame"] == 0


@pytest.mark.slow
def test_panda_core_serve_prints_its_address_and_stops_on_ctrl_c() -> None:
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "panda_core.cli", "serve", "--port", "0", "--bot-delay", "0"]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(child.stdout.readline()))  # type: ignore[union-attr]
        reader.start()
        reader.join(DEADLINE)
        assert lines and "http://127.0.0.1:" in lines[0], lines
        address = lines[0].split("http://")[1].split("/")[0]
        with httpx.Client(base_url=f"http://{address}", timeout=DEADLINE) as http:
            assert http.get("/api/games").json()["games"][0]["name"] == "head"
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=DEADLINE)
        assert child.returncode == 0, err
        assert "stopped" in out
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate(timeout=DEADLINE)
