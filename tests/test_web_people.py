"""Several people at one table, spectators, and the stand-in bot (``panda-core serve``, issue 22).

The API part runs the app in a test client: the per-seat form and its refusals (bad seat lists,
too many people, junk names, bad stand-ins and holds), one token per person and one for the
spectators (never usable for each other), the limits on pages per seat, per table and for
spectators, a flooding page, the hold running out (the stand-in plays, every log says so, every
page is told) and the person coming back (the seat is theirs again from its next decision),
reconnect races, the records and replays that keep the seats' names, and the no-hidden-card
check on everything a seat's or a spectator's page was sent.

The same in two real browsers, whole games: ``tests/test_web_people_browser.py``.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

import panda_core
from panda_core.table import Replay, Table, TableError
from panda_core.web.limits import (
    FRAMES_BURST,
    MAX_SEAT_SOCKETS,
    MAX_SOCKETS,
    MAX_SPECTATOR_SOCKETS,
)
from people_support import (
    bot,
    check_table_traffic,
    made,
    person,
    play_seat,
    poll,
    presence_of,
    seat_query,
    spectator_query,
    until,
)
from web_support import served

GAMES = ("head", "year", "spin")


def assert_error(answer: Any, status: int, *words: str) -> str:
    assert answer.status_code == status, (answer.status_code, answer.text)
    message: str = answer.json()["error"]
    for word in words:
        assert word in message, message
    return message


def is_state(message: Any) -> bool:
    return bool(message.get("type") == "state")


# ---- the per-seat form ---------------------------------------------------------------------------


def test_the_per_seat_form_hands_one_invite_per_person_and_a_spectator_link() -> None:
    with served(bot_delay=30) as (client, _):
        created = made(client, "year", [person("Ada"), bot(), person("Bob")], hold=5)
        assert [i["seat"] for i in created["invites"]] == [0, 2]
        assert [i["name"] for i in created["invites"]] == ["Ada", "Bob"]
        tokens = [i["token"] for i in created["invites"]] + [created["spectator"]["token"]]
        assert len(set(tokens)) == 3
        table = created["table"]
        for invite in created["invites"]:
            assert invite["link"] == f"#table={table}&seat={invite['seat']}&token={invite['token']}"
        assert created["spectator"]["link"] == f"#table={table}&{spectator_query(created)}"
        assert (created["seat"], created["token"]) == (0, created["invites"][0]["token"])
        assert created["stand_in"] == "heuristic" and created["hold"] == 5
        # Each token is its own seat's: it sees that seat and no other.
        ada = client.get(f"/api/tables/{table}?{seat_query(created, 0)}").json()
        bob = client.get(f"/api/tables/{table}?{seat_query(created, 2)}").json()
        assert (ada["seat"], bob["seat"]) == (0, 2)
        assert ada["hand"] != bob["hand"]
        assert [s["name"] for s in ada["seats"]] == ["Ada", "heuristic", "Bob"]
        # A request is no page: Ada's seat is held from it, and shown away until a page opens.
        assert [p["status"] for p in ada["presence"]] == ["away", "bot", "invited"]
        ada_token = created["invites"][0]["token"]
        assert_error(client.get(f"/api/tables/{table}?seat=2&token={ada_token}"), 403)
        assert_error(client.get(f"/api/tables/{table}?seat=1&token={ada_token}"), 403)


def test_the_one_person_form_still_works_and_has_no_stand_in() -> None:
    with served(bot_delay=30) as (client, _):
        answer = client.post(
            "/api/tables", json={"game": "head", "players": 2, "bots": ["random"], "seed": 1}
        )
        assert answer.status_code == 201
        created = answer.json()
        assert created["stand_in"] is None and len(created["invites"]) == 1
        state = client.get(f"/api/tables/{created['table']}?{seat_query(created, 0)}").json()
        assert state["presence"][0]["name"] == "person"


BAD_SEATS: list[tuple[dict[str, Any], int, tuple[str, ...]]] = [
    ({"seats": []}, 422, ("2 to 5",)),
    ({"seats": [person("A")]}, 422, ("2 to 5",)),
    ({"seats": [person(f"p{i}") for i in range(6)]}, 422, ("2 to 5",)),
    ({"seats": [person(f"p{i}") for i in range(17)]}, 422, ("at most 16",)),
    ({"seats": [bot(), bot()]}, 422, ("at least one person",)),
    ({"seats": [person("A"), person("A")]}, 422, ("share the name",)),
    ({"seats": [person("A"), person(" A ")]}, 422, ("share the name",)),
    ({"seats": [person("A"), person("x" * 41)]}, 422, ("1 to 40",)),
    ({"seats": [person("A"), person("x" * 201)]}, 422, ("200 characters",)),
    ({"seats": [person("A"), person("   ")]}, 422, ("printable",)),
    ({"seats": [person("A"), person("B\x00b")]}, 422, ("printable",)),
    ({"seats": [person("A"), person("B\u202eb")]}, 422, ("printable",)),
    ({"seats": [person("A"), person("line\nbreak")]}, 422, ("printable",)),
    ({"seats": [person("A"), person("bot:sneaky")]}, 422, ("may not be named",)),
    ({"seats": [person("A"), person("you")]}, 422, ("may not be named",)),
    ({"seats": [person("A"), {"kind": "person", "name": 7}]}, 400, ("seats[1]", "string")),
    ({"seats": [person("A"), {"kind": "alien"}]}, 400, ("kind",)),
    ({"seats": [person("A"), {"kind": "bot"}]}, 400, ("bot",)),
    ({"seats": [person("A"), {"kind": "bot", "bot": "heuristic", "x": 1}]}, 400, ("seats[1]",)),
    ({"seats": [person("A"), bot("nosuch")]}, 422, ("nosuch",)),
    ({"seats": [person("A"), bot("neural:/etc/passwd")]}, 422, ("opens no path",)),
    ({"seats": [person("A"), bot("bot:ghost")]}, 422, ("connected bots",)),
    ({"seats": [person("A"), bot()], "players": 3}, 422, ("players is 3",)),
    ({"seats": [person("A"), bot()], "bots": ["random"]}, 400, ("not both",)),
    ({"seats": [person("A"), bot()], "seat": 1}, 400, ("not both",)),
    ({"seats": "A,B"}, 400, ("seats",)),
    ({"seats": [person("A"), bot()], "stand_in": "nosuch"}, 422, ("stand_in",)),
    ({"seats": [person("A"), bot()], "stand_in": "neural:/etc/passwd"}, 422, ("stand_in",)),
    ({"seats": [person("A"), bot()], "stand_in": "bot:ghost"}, 422, ("stand_in",)),
    ({"seats": [person("A"), bot()], "stand_in": "exec:sh -c ls"}, 422, ("stand_in",)),
    ({"seats": [person("A"), bot()], "stand_in": "llm:gpt"}, 422, ("stand_in",)),
    ({"seats": [person("A"), bot()], "stand_in": 5}, 400, ("stand_in",)),
    ({"seats": [person("A"), bot()], "hold": -1}, 422, ("hold",)),
    ({"seats": [person("A"), bot()], "hold": 1e9}, 422, ("hold",)),
    ({"seats": [person("A"), bot()], "hold": "5"}, 400, ("hold",)),
    ({"seats": [person("A"), bot()], "hold": True}, 400, ("hold",)),
    ({"seats": [person("A"), bot()], "hold": None, "rules": {"nope": 1}}, 422, ("nope",)),
]


@pytest.mark.parametrize(("fields", "status", "words"), BAD_SEATS)
def test_a_bad_seat_list_is_refused_with_a_message(
    fields: dict[str, Any], status: int, words: tuple[str, ...]
) -> None:
    with served(bot_delay=30) as (client, _):
        answer = client.post("/api/tables", json={"game": "head", "seed": 1, **fields})
        message = assert_error(answer, status, *words)
        assert len(message) < 800
        assert client.app.state.registry.tables == {}  # type: ignore[attr-defined]


def test_five_people_may_share_a_table_and_the_names_reach_every_seat() -> None:
    with served(bot_delay=30) as (client, _):
        names = ["Ada", "Bo", "Chloé", "Dai 戴", "Eve-2"]
        created = made(client, "spin", [person(n) for n in names], stand_in=None)
        assert created["stand_in"] is None
        for seat in range(5):
            state = client.get(f"/api/tables/{created['table']}?{seat_query(created, seat)}")
            assert [s["name"] for s in state.json()["seats"]] == names


# ---- spectators ----------------------------------------------------------------------------------


def test_a_spectator_sees_the_public_state_and_cannot_move() -> None:
    with served(bot_delay=0) as (client, _):
        created = made(client, "year", [person("Ada"), bot(), bot("random")])
        table = created["table"]
        watched = client.get(f"/api/tables/{table}?{spectator_query(created)}")
        assert watched.status_code == 200
        state = watched.json()
        assert state["seat"] is None and state["spectator"] is True
        assert state["hand"] == [] and not state["hands"] and state["legal"] == []
        assert not state["your_turn"]
        with client.websocket_connect(f"/ws/tables/{table}?{spectator_query(created)}") as ws:
            first = ws.receive_json()
            assert first["type"] == "state" and first["state"]["spectator"] is True
            ws.send_json({"type": "move", "move": 0})
            refused = until(ws.receive_json, lambda m: m["type"] == "error", "refusal")[-1]
            assert "spectator" in refused["message"]
            ws.send_json({"type": "state"})
            assert until(ws.receive_json, is_state, "state")[-1]["state"]["seat"] is None
        moved = client.post(
            f"/api/tables/{table}/moves",
            json={"seat": 0, "token": created["spectator"]["token"], "move": 0},
        )
        assert_error(moved, 403)


def test_a_spectator_gets_no_record_or_replay_before_the_end() -> None:
    with served(bot_delay=30) as (client, _):
        created = made(client, "spin", [person("Ada"), bot()])
        table = created["table"]
        spectator = {"spectator": created["spectator"]["token"]}
        assert_error(client.post(f"/api/tables/{table}/replay", json=spectator), 409, "not over")
        record = client.get(f"/api/tables/{table}/record?{spectator_query(created)}")
        assert_error(record, 409, "not over")


def test_tokens_never_stand_for_each_other() -> None:
    with served(bot_delay=30) as (client, _):
        created = made(client, "head", [person("Ada"), person("Bob")])
        other = made(client, "head", [person("Cy"), bot()])
        table = created["table"]
        seat_token = created["invites"][1]["token"]
        spectator_token = created["spectator"]["token"]
        url = f"/api/tables/{table}"
        assert_error(client.get(f"{url}?seat=0&token={spectator_token}"), 403)
        assert_error(client.get(f"{url}?seat=1&token={spectator_token}"), 403)
        assert_error(client.get(f"{url}?spectator={seat_token}"), 403, "spectator")
        assert_error(client.get(f"{url}?spectator={other['spectator']['token']}"), 403)
        assert_error(
            client.get(f"{url}?seat=1&token={seat_token}&spectator={spectator_token}"), 400
        )
        assert_error(client.get(f"{url}?seat=1"), 400, "token")
        assert_error(client.get(url), 400, "spectator")
        assert_error(client.get(f"{url}?spectator=../../x"), 400)
        for bad in (f"seat=0&token={spectator_token}", f"spectator={seat_token}"):
            with client.websocket_connect(f"/ws/tables/{table}?{bad}") as ws:
                assert ws.receive_json()["type"] == "error"
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 1008


# ---- limits --------------------------------------------------------------------------------------


def test_pages_are_bounded_per_seat_per_table_and_for_spectators() -> None:
    with served(bot_delay=30) as (client, _):
        created = made(client, "spin", [person(n) for n in "ABCDE"], stand_in=None)
        table = created["table"]

        def refused(query: str, words: str) -> None:
            with client.websocket_connect(f"/ws/tables/{table}?{query}") as ws:
                message = ws.receive_json()
                assert message["type"] == "error" and words in message["message"], message
                with pytest.raises(WebSocketDisconnect) as closed:
                    ws.receive_json()
                assert closed.value.code == 1008

        with contextlib.ExitStack() as pages:

            def open_page(query: str) -> Any:
                ws = pages.enter_context(client.websocket_connect(f"/ws/tables/{table}?{query}"))
                assert until(ws.receive_json, is_state, "state")
                return ws

            for _ in range(MAX_SEAT_SOCKETS):
                open_page(seat_query(created, 0))
            refused(seat_query(created, 0), f"at most {MAX_SEAT_SOCKETS}")
            for _ in range(MAX_SPECTATOR_SOCKETS):
                open_page(spectator_query(created))
            refused(spectator_query(created), f"at most {MAX_SPECTATOR_SOCKETS}")
            left = MAX_SOCKETS - MAX_SEAT_SOCKETS - MAX_SPECTATOR_SOCKETS
            for k in range(left):
                open_page(seat_query(created, 1 + k % 4))
            refused(seat_query(created, 4), f"at most {MAX_SOCKETS}")  # the 17th
        # All closed: the slots are free again.
        with client.websocket_connect(f"/ws/tables/{table}?{seat_query(created, 0)}") as ws:
            assert until(ws.receive_json, is_state, "state")


def test_a_flooding_spectator_is_closed_and_the_players_go_on() -> None:
    with served(bot_delay=30) as (client, _):
        created = made(client, "head", [person("Ada"), bot()])
        table = created["table"]
        with client.websocket_connect(f"/ws/tables/{table}?{spectator_query(created)}") as ws:
            for _ in range(FRAMES_BURST + 5):
                ws.send_json({"type": "state"})
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    ws.receive_json()
            assert closed.value.code == 1008
        assert client.get(f"/api/tables/{table}?{seat_query(created, 0)}").status_code == 200


# ---- away, the stand-in, and back ----------------------------------------------------------------


def test_an_absent_person_is_played_by_the_stand_in_and_gets_the_seat_back() -> None:
    """Bob never opens his link: after the hold the stand-in plays his seat, every log says so,
    Ada's page is told; Bob's page connects: the seat is his from its next decision."""
    with served(bot_delay=0) as (client, _):
        created = made(client, "head", [person("Ada"), person("Bob")], hold=0.2)
        table = created["table"]
        registry = client.app.state.registry  # type: ignore[attr-defined]
        live = registry.tables[table]
        with client.websocket_connect(f"/ws/tables/{table}?{seat_query(created, 0)}") as ada:
            seen = until(
                ada.receive_json,
                lambda m: m["type"] == "notice" and "Bob is away" in m["message"],
                "the stand-in notice",
            )
            assert "heuristic bot plays for Bob" in seen[-1]["message"]
            # Ada plays on; Bob's moves are the stand-in's, noted in her log.
            state: dict[str, Any] = {}
            for _ in range(3):
                state = until(
                    ada.receive_json,
                    lambda m: is_state(m) and (m["state"]["your_turn"] or m["state"]["is_over"]),
                    "Ada's turn",
                )[-1]["state"]
                if state["is_over"]:
                    break
                ada.send_json({"type": "move", "move": 0})
            lines = [e["text"] for e in state["events"] if e["type"] == "stand_in"]
            assert lines and all(
                line.endswith("plays for seat 1 (Bob) while away") for line in lines
            )
            assert presence_of(state, 1) == "stand_in"
            with client.websocket_connect(f"/ws/tables/{table}?{seat_query(created, 1)}") as bob:
                back = until(
                    ada.receive_json,
                    lambda m: m["type"] == "notice" and "Bob" in m["message"],
                    "Bob is back",
                )[-1]
                assert "back" in back["message"]
                assert 1 not in live.standing_in
                mine = until(
                    bob.receive_json,
                    lambda m: is_state(m) and presence_of(m["state"], 1) == "here",
                    "Bob's seat his again",
                )[-1]["state"]
                own = [e["text"] for e in mine["events"] if e["type"] == "stand_in"]
                assert own and all(line.endswith("plays for you while away") for line in own)

                # From now on nobody plays for Bob: the table waits for him at his turn.
                def stood_in() -> int:
                    bobs = client.get(f"/api/tables/{table}?{seat_query(created, 1)}").json()
                    return sum(1 for e in bobs["events"] if e["type"] == "stand_in")

                before = stood_in()
                for _ in range(20):
                    poll(lambda: live.bots is None, "the table waiting for a person")
                    if live.table.is_over or live.table.waiting_for == 1:
                        break
                    url = f"/api/tables/{table}/moves"
                    token = created["invites"][0]["token"]
                    client.post(url, json={"seat": 0, "token": token, "move": 0})
                time.sleep(0.3)  # longer than the hold: Bob's page is open, so nobody stands in
                assert stood_in() == before and live.table.waiting_for in (1, None)
            # Bob left again: Ada is told, and the hold starts over.
            left = until(
                ada.receive_json,
                lambda m: m["type"] == "notice" and "left" in m["message"],
                "Bob left",
            )[-1]
            assert "Bob left the table" in left["message"] and "0.2 s" in left["message"]


def test_a_request_of_the_seat_counts_as_presence() -> None:
    with served(bot_delay=0) as (client, _):
        created = made(client, "year", [person("Ada"), person("Bob"), bot()], hold=0.1)
        table = created["table"]
        live = client.app.state.registry.tables[table]  # type: ignore[attr-defined]
        poll(lambda: {0, 1} <= live.standing_in or live.table.is_over, "the stand-ins")
        if live.table.is_over:
            return
        state = client.get(f"/api/tables/{table}?{seat_query(created, 1)}").json()
        assert presence_of(state, 1) == "away" and 1 not in live.standing_in  # given back
        assert presence_of(state, 0) == "stand_in"


def test_with_nobody_at_the_table_the_stand_in_waits() -> None:
    """Nobody has a page open (Ada is still sending the links): the seats are stood in for, but
    nobody plays them until a person is at the table."""
    with served(bot_delay=0) as (client, _):
        created = made(client, "head", [person("Ada"), person("Bob")], hold=0)
        live = client.app.state.registry.tables[created["table"]]  # type: ignore[attr-defined]
        poll(lambda: live.standing_in == {0, 1}, "the stand-ins")
        time.sleep(0.1)
        assert live.version == 0 and live.bots is None  # no move
        table = created["table"]
        with client.websocket_connect(f"/ws/tables/{table}?{seat_query(created, 0)}") as ada:
            until(ada.receive_json, lambda m: is_state(m) and m["state"]["your_turn"], "a turn")
            assert live.version > 0 or live.table.to_move == 0


def test_the_one_person_form_waits_for_its_person() -> None:
    with served(bot_delay=0, seat_hold=0) as (client, _):
        answer = client.post(
            "/api/tables", json={"game": "head", "players": 2, "bots": ["random"], "seed": 1}
        )
        created = answer.json()
        live = client.app.state.registry.tables[created["table"]]  # type: ignore[attr-defined]
        time.sleep(0.2)
        assert not live.standing_in and live.table.waiting_for == 0 and not live.watchers


def test_reconnect_races_leave_the_seat_with_its_person() -> None:
    """Bob's pages open and close in quick turns while the hold is 0 (the stand-in takes the
    seat at every gap): with a page of his open at the end, nobody stands in for him, and the
    game is whole."""
    with served(bot_delay=0) as (client, _):
        created = made(client, "spin", [person("Ada"), person("Bob")], hold=0)
        table = created["table"]
        live = client.app.state.registry.tables[table]  # type: ignore[attr-defined]
        url = f"/ws/tables/{table}?{seat_query(created, 1)}"
        for _ in range(15):
            with client.websocket_connect(url) as ws:
                assert until(ws.receive_json, is_state, "state")
        with client.websocket_connect(url) as ws, client.websocket_connect(url) as again:
            assert until(ws.receive_json, is_state, "state")
            assert until(again.receive_json, is_state, "state")
            assert 1 not in live.standing_in
            time.sleep(0.05)
            assert 1 not in live.standing_in
        record_check = panda_core.ClimbGame.from_json(live.table.record())
        assert len(record_check.history) >= 1


# ---- records and replays with names --------------------------------------------------------------


def _finished_table(client: Any, game: str = "year") -> dict[str, Any]:
    """A table of Ada and Bob played to its end: Ada through her page, Bob (who never comes) by
    the stand-in from the start (hold 0)."""
    created = made(client, game, [person("Ada"), bot(), person("Bob")], hold=0)
    assert play_seat(client, created, 0)["is_over"]
    return created


def test_a_tables_replay_and_record_keep_the_names() -> None:
    with served(bot_delay=0) as (client, _):
        created = _finished_table(client)
        table = created["table"]
        who = {"seat": 2, "token": created["invites"][1]["token"]}
        replay = client.post(f"/api/tables/{table}/replay", json=who).json()
        frame = client.get(f"/api/replays/{replay['replay']}/frames/0?seat=2").json()
        assert [s["name"] for s in frame["seats"]] == ["Ada", "heuristic", "Bob"]
        plain = client.get(f"/api/tables/{table}/record?{seat_query(created, 0)}").text
        panda_core.ClimbGame.from_json(plain)  # the engine's record, as before
        named = client.get(f"/api/tables/{table}/record?{seat_query(created, 0)}&names=true")
        wrapper = json.loads(named.text)
        assert wrapper["panda_table"] == 1 and wrapper["names"] == ["Ada", "heuristic", "Bob"]
        assert panda_core.ClimbGame.from_json(json.dumps(wrapper["record"])).to_json() == plain
        assert Replay(named.text).names == ["Ada", "heuristic", "Bob"]
        watched = client.get(f"/api/tables/{table}/record?{spectator_query(created)}")
        assert watched.status_code == 200  # over: the record is no secret any more
        spectator = {"spectator": created["spectator"]["token"]}
        again = client.post(f"/api/tables/{table}/replay", json=spectator)
        assert again.status_code == 201 and again.json()["replay"] == replay["replay"]
        mixed = {**spectator, "seat": 0, "token": created["invites"][0]["token"]}
        assert_error(client.post(f"/api/tables/{table}/replay", json=mixed), 400, "not both")
        uploaded = client.post(
            "/api/replays", content=named.content, headers={"content-type": "application/json"}
        )
        assert uploaded.status_code == 201, uploaded.text
        frame = client.get(f"/api/replays/{uploaded.json()['replay']}/frames/1?seat=0").json()
        assert frame["seats"][2]["name"] == "Bob"


def test_table_save_and_replay_files_keep_the_names(tmp_path: Any) -> None:
    table = Table("head", seats=["human:Ada", "heuristic"], seed=4)
    while not table.is_over:
        table.advance()
        if not table.is_over:
            table.play_for(0, "random")
    plain = table.save(tmp_path / "plain.json")
    named = table.save(tmp_path / "named.json", names=True)
    assert Replay.from_file(plain).names == ["seat 0", "seat 1"]
    assert Replay.from_file(named).names == ["Ada", "heuristic"]
    given = Replay(table.record(), 0, names=["Ada", "heuristic"])
    assert Replay.from_file(named, 0).log() == given.log()
    assert any(
        e["type"] == "stand_in" and e["text"] == "the random bot plays for you while away"
        for e in table.state(0)["events"]
    )


def _named(text: str, **changes: Any) -> str:
    wrapper: dict[str, Any] = {"panda_table": 1, "names": ["A", "B"], "record": json.loads(text)}
    wrapper.update(changes)
    return json.dumps({k: v for k, v in wrapper.items() if v is not ...})


@pytest.fixture(scope="module")
def head_record() -> str:
    game = panda_core.make("head", 2, 5)
    while not game.is_over:
        game.apply(game.bot_move("random"))
    return game.to_json()


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"panda_table": 2}, "version 1"),
        ({"panda_table": True}, "version 1"),
        ({"panda_table": "1"}, "version 1"),
        ({"names": ["A"]}, "2 seat names"),
        ({"names": ["A", "B", "C"]}, "2 seat names"),
        ({"names": "A,B"}, "one seat name per player"),
        ({"names": []}, "one seat name per player"),
        ({"names": ["A", 7]}, "text"),
        ({"names": ["A", ""]}, "text"),
        ({"names": ["A", "x" * 41]}, "printable"),
        ({"names": ["A", "B\x1b[2J"]}, "printable"),
        ({"names": ["A"] * 10_000}, "one seat name per player"),
        ({"record": "not an object"}, "game record"),
        ({"record": [1, 2]}, "game record"),
        ({"record": {"format": "chess"}}, "format"),
        ({"extra": 1}, "exactly the fields"),
        ({"names": ...}, "exactly the fields"),
    ],
)
def test_a_damaged_record_with_names_is_refused(
    head_record: str, changes: dict[str, Any], words: str
) -> None:
    with pytest.raises((TableError, panda_core.PandaCoreError)) as refused:
        Replay(_named(head_record, **changes))
    assert words in str(refused.value)


def test_a_record_with_names_nested_or_repeated_is_refused(head_record: str) -> None:
    inner = json.loads(_named(head_record))
    nested = json.dumps({"panda_table": 1, "names": ["A", "B"], "record": inner})
    with pytest.raises(panda_core.PandaCoreError):
        Replay(nested)
    twice = _named(head_record)[:-1] + ', "names": ["C", "D"]}'
    with pytest.raises(TableError, match="given twice"):
        Replay(twice)
    with served(bot_delay=30) as (client, _):
        headers = {"content-type": "application/json"}
        answer = client.post("/api/replays", content=nested.encode(), headers=headers)
        assert_error(answer, 422, "record")


# ---- no card crosses seats or reaches a spectator (the API) --------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_no_page_of_a_shared_table_is_sent_a_card_it_may_not_know(game: str) -> None:
    """Ada plays through her websocket, Bob is away (the stand-in plays him) and a spectator
    watches; every state sent to anyone is checked against the engine's positions."""
    with served(bot_delay=0) as (client, traffic):
        rules = {"rules": {"bust_threshold": 8}} if game == "head" else {}
        created = made(client, game, [person("Ada"), person("Bob"), bot("random")], hold=0, **rules)
        table = created["table"]
        live = client.app.state.registry.tables[table]  # type: ignore[attr-defined]
        with (
            client.websocket_connect(f"/ws/tables/{table}?{seat_query(created, 0)}") as ada,
            client.websocket_connect(f"/ws/tables/{table}?{spectator_query(created)}") as watcher,
        ):
            stop = threading.Event()

            def watch() -> None:
                with contextlib.suppress(Exception):
                    while not stop.is_set():
                        watcher.receive_json()

            reader = threading.Thread(target=watch, daemon=True)
            reader.start()
            while True:
                message = ada.receive_json()
                if not is_state(message):
                    continue
                state = message["state"]
                if state["is_over"]:
                    break
                if state["your_turn"]:
                    ada.send_json({"type": "move", "move": len(state["legal"]) - 1})
            stop.set()
        record = live.table.record()
        seen = check_table_traffic(traffic, table, record)
        assert seen.get("0", 0) > 5 and seen.get("spectator", 0) > 5, seen


# ---- the command line ----------------------------------------------------------------------------


def test_serve_takes_a_bounded_seat_hold() -> None:
    from panda_core.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["serve"]).seat_hold == 60.0
    assert parser.parse_args(["serve", "--seat-hold", "0"]).seat_hold == 0.0
    assert parser.parse_args(["serve", "--seat-hold", "2.5"]).seat_hold == 2.5
    for bad in ("-1", "3601", "inf", "nan", "soon"):
        with pytest.raises(SystemExit):
            parser.parse_args(["serve", "--seat-hold", bad])


def test_closing_a_table_stops_its_holds() -> None:
    with served(bot_delay=0, idle_timeout=0.1) as (client, _):
        created = made(client, "head", [person("Ada"), person("Bob")], hold=30)
        live = client.app.state.registry.tables[created["table"]]  # type: ignore[attr-defined]
        watchers = list(live.watchers.values())
        assert len(watchers) == 2
        poll(lambda: live.closed, "the idle table closed")
        poll(lambda: all(w.done() for w in watchers), "the holds stopped")
        assert not live.watchers


def test_concurrent_reconnects_of_a_stood_in_seat_take_exactly_the_seats_slots() -> None:
    """Twenty pages of Bob's connect at once while his seat is stood in for: four are let in (the
    seat's limit, counted and taken in one step), the others refused."""
    import asyncio

    import httpx
    from websockets.asyncio.client import connect as async_connect

    from web_support import running_server

    async def connect_all(url: str) -> list[str]:
        sockets = await asyncio.gather(*(async_connect(url, open_timeout=15) for _ in range(20)))

        async def first(ws: Any) -> str:
            async with ws:
                while True:
                    kind: str = json.loads(await asyncio.wait_for(ws.recv(), 15))["type"]
                    if kind != "notice":
                        return kind

        return list(await asyncio.gather(*(first(ws) for ws in sockets)))

    with (
        running_server(bot_delay=0.05) as (address, server),
        httpx.Client(base_url=f"http://{address}", timeout=15) as http,
    ):
        created = made(http, "year", [person("Ada"), person("Bob"), bot()], hold=0)
        table = created["table"]
        live = server.config.app.state.registry.tables[table]
        poll(lambda: 1 in live.standing_in, "the stand-in")
        kinds = asyncio.run(
            connect_all(f"ws://{address}/ws/tables/{table}?{seat_query(created, 1)}")
        )
        assert kinds.count("state") == MAX_SEAT_SOCKETS
        assert kinds.count("error") == 20 - MAX_SEAT_SOCKETS
