"""Bots that connect to ``panda-core serve`` over a websocket (``/bots/ws``, docs/bot_server.md).

Every test runs a real uvicorn on 127.0.0.1 (``web_support.running_server``) and scripted bots
speaking protocol v1 with the ``websockets`` client: whole table games of each game, the token
checks, the frame and rate limits, heartbeats, reconnects within and after the grace time,
illegal moves, junk, a doubled connection, asks, and challenges (arena games the server
schedules).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from panda_core.protocol.messages import MAX_ASKS
from panda_core.web.bot_hub import BotSettings
from panda_core.web.bot_tokens import BotTokenError, BotTokens
from web_support import Knowledge, card_ids, child_server, running_server

TOKEN = "alice-token-0123456789abcdef"
TOKEN_B = "bob-token-0123456789abcdefgh"
DEADLINE = 30.0
"""Seconds any wait of a test may take before it fails (never reached unless it hangs)."""

Message = dict[str, Any]
Answer = Callable[[Message], Message | None]


def settings(**times: float) -> BotSettings:
    """Alice and Bob may connect; the protocol's times short for tests."""
    tokens = BotTokens.of([("alice", TOKEN), ("bob", TOKEN_B)])
    times.setdefault("ping_interval", 0.2)
    times.setdefault("pong_timeout", 10.0)  # a scripted bot pongs only while it reads
    times.setdefault("reconnect_grace", 3.0)
    times.setdefault("hello_timeout", 2.0)
    return BotSettings(tokens, **times)


@contextlib.contextmanager
def server(**options: Any) -> Iterator[str]:
    """A real server taking alice and bob (``bots=`` overrides), its address."""
    options.setdefault("bots", settings())
    options.setdefault("bot_time", 5.0)
    with running_server(**options) as (address, _):
        yield address


def first_legal(decision: Message) -> Message:
    return {
        "type": "move",
        "game_id": decision["game_id"],
        "notation": decision["legal"][0]["notation"],
    }


def by_id_where_unique(decision: Message) -> Message:
    """The last legal move, by id when no other legal move shares it, else by notation."""
    legal = decision["legal"]
    move = legal[-1]
    ids = [m["id"] for m in legal]
    if ids.count(move["id"]) == 1:
        return {"type": "move", "game_id": decision["game_id"], "id": move["id"]}
    return {"type": "move", "game_id": decision["game_id"], "notation": move["notation"]}


class Bot:
    """A scripted bot: connects, says hello, pongs, answers each decision with ``answer``
    (``None``: no answer), and records every message it gets."""

    def __init__(
        self,
        address: str,
        token: str | None = TOKEN,
        *,
        in_hello: bool = False,
        name: str = "alice",
        answer: Answer = first_legal,
        pong: bool = True,
    ) -> None:
        self.address = address
        self.token = token
        self.in_hello = in_hello
        self.name = name
        self.answer = answer
        self.pong = pong
        self.got: list[Message] = []
        self.ws: ClientConnection | None = None

    async def connect(self) -> Bot:
        headers = {}
        if self.token is not None and not self.in_hello:
            headers["Authorization"] = f"Bearer {self.token}"
        self.ws = await connect(f"ws://{self.address}/bots/ws", additional_headers=headers)
        hello: Message = {"type": "hello", "protocol": 1, "name": self.name}
        if self.in_hello and self.token is not None:
            hello["token"] = self.token
        with contextlib.suppress(ConnectionClosed):  # a refusal may come first
            await self.ws.send(json.dumps(hello))
        return self

    async def next(self, timeout: float = DEADLINE) -> Message:
        """The next message (pings answered on the way when ``pong``); ``TimeoutError`` after
        ``timeout`` seconds without one."""
        assert self.ws is not None
        deadline = time.monotonic() + timeout
        while True:
            text = await asyncio.wait_for(self.ws.recv(), max(0.0, deadline - time.monotonic()))
            message: Message = json.loads(text)
            self.got.append(message)
            if message["type"] == "ping":
                if self.pong:
                    await self.ws.send('{"type": "pong"}')
                continue
            if message["type"] == "hello":
                continue
            return message

    async def until(self, kind: str) -> Message:
        """Play on (answering decisions) until a message of ``kind``."""
        while True:
            message = await self.next()
            if message["type"] == kind:
                return message
            if message["type"] == "decision":
                await self.reply(message)

    async def listen(self, seconds: float) -> None:
        """Read (and pong) for ``seconds``; the connection must stay open meanwhile."""
        pings = len(self.of_type("ping"))
        deadline = time.monotonic() + seconds
        with contextlib.suppress(TimeoutError):
            while True:
                await self.next(deadline - time.monotonic())
        assert self.ws is not None and self.ws.close_code is None, "the server closed it"
        assert len(self.of_type("ping")) > pings, "no ping came"

    async def reply(self, decision: Message) -> None:
        assert self.ws is not None
        move = self.answer(decision)
        if move is not None:
            await self.ws.send(json.dumps(move))

    async def send(self, message: Message | str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def closed(self) -> tuple[int, str]:
        """Wait for the server to close the socket: its code and reason."""
        assert self.ws is not None
        with contextlib.suppress(ConnectionClosed, TimeoutError):
            while True:
                self.got.append(json.loads(await asyncio.wait_for(self.ws.recv(), DEADLINE)))
        assert self.ws.close_code is not None, "the server did not close the socket"
        return self.ws.close_code, self.ws.close_reason or ""

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def of_type(self, kind: str) -> list[Message]:
        return [m for m in self.got if m["type"] == kind]


@contextlib.asynccontextmanager
async def bot(address: str, *args: Any, **options: Any) -> AsyncIterator[Bot]:
    connected = await Bot(address, *args, **options).connect()
    try:
        yield connected
    finally:
        await connected.close()


async def connected(address: str, name: str) -> None:
    """Wait until ``name`` shows as connected."""
    async with httpx.AsyncClient() as client:
        deadline = time.monotonic() + DEADLINE
        while name not in (await client.get(f"http://{address}/bots")).json()["connected"]:
            assert time.monotonic() < deadline, f"{name} never connected"
            await asyncio.sleep(0.01)


async def gone(address: str, name: str) -> None:
    async with httpx.AsyncClient() as client:
        deadline = time.monotonic() + DEADLINE
        while name in (await client.get(f"http://{address}/bots")).json()["connected"]:
            assert time.monotonic() < deadline, f"{name} never left"
            await asyncio.sleep(0.01)


async def new_table(address: str, game: str = "spin", **fields: Any) -> dict[str, Any]:
    body = {"game": game, "players": 2, "seat": 0, "bots": ["bot:alice"], "seed": 5, **fields}
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"http://{address}/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    created: dict[str, Any] = answer.json()
    return created


async def person(address: str, created: dict[str, Any]) -> list[Message]:
    """The person at the table plays its first legal move each turn through the table's
    websocket, to the end; every state it got."""
    url = f"ws://{address}/ws/tables/{created['table']}?seat={created['seat']}&token={created['token']}"
    states: list[Message] = []
    async with connect(url) as ws:
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), DEADLINE))
            if message["type"] != "state":
                continue
            state = message["state"]
            states.append(state)
            if state["is_over"]:
                return states
            if state["your_turn"]:
                await ws.send(json.dumps({"type": "move", "move": 0}))


async def state_of(address: str, created: dict[str, Any]) -> Message:
    url = f"http://{address}/api/tables/{created['table']}"
    async with httpx.AsyncClient() as client:
        answer = await client.get(url, params={"seat": created["seat"], "token": created["token"]})
    assert answer.status_code == 200, answer.text
    state: Message = answer.json()
    return state


async def record_of(address: str, created: dict[str, Any]) -> str:
    url = f"http://{address}/api/tables/{created['table']}/record"
    async with httpx.AsyncClient() as client:
        answer = await client.get(url, params={"seat": created["seat"], "token": created["token"]})
    assert answer.status_code == 200, answer.text
    return answer.text


def run(scenario: Any) -> Any:
    return asyncio.run(asyncio.wait_for(scenario, 3 * DEADLINE))


# ---- whole games -------------------------------------------------------------------------------


def _play_a_table_game(game: str, answer: Answer) -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address, answer=answer) as alice:
                await connected(address, "alice")
                created = await new_table(address, game, seed=11)
                playing = asyncio.create_task(alice.until("end"))
                states = await person(address, created)
                end = await playing
                record = await record_of(address, created)
            start = alice.of_type("start")
            decisions = alice.of_type("decision")
            assert len(start) == 1 and start[0]["game"] == game and start[0]["seat"] == 1
            assert start[0]["game_id"] == end["game_id"] == f"table-{created['table']}-1"
            assert decisions and all(d["to_move"] == 1 == d["seat"] for d in decisions)
            assert [d["decision"] for d in decisions] == list(range(len(decisions)))
            assert end["forfeit"] is None and end["winner"] == states[-1]["winner"]
            # The person saw the bot's moves as any bot's; no forfeit was listed.
            moves = [e for e in states[-1]["events"] if e["type"] == "move"]
            assert any(e["player"] == 1 for e in moves)
            assert "bot_forfeits" not in states[-1]
            # The bot's events, put together, are every event its seat saw, once each.
            events = [e for m in (*decisions, end) for e in m["events"]]
            assert len([e for e in events if e["type"] == "move"]) == len(moves)
            # No message held a card of the other seat's hand that the bot may not know.
            knowledge = Knowledge(game, 2, 11, record)
            seen = 0
            for message in (*start, *decisions):
                seen += sum(1 for e in message.get("events", []) if e["type"] == "move")
                leaked = card_ids(message) & knowledge.secrets_for(1, seen)
                assert not leaked, (message["type"], leaked)

        run(scenario())


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_a_bot_plays_a_whole_table_game_of_each_game(game: str) -> None:
    _play_a_table_game(game, by_id_where_unique)


@pytest.mark.slow
def test_two_bots_at_one_table_one_forfeits_and_the_other_plays_on() -> None:
    def illegal(decision: Message) -> Message:
        return {"type": "move", "game_id": decision["game_id"], "id": 99999}

    with server() as address:

        async def scenario() -> None:
            async with (
                bot(address) as alice,
                bot(address, TOKEN_B, name="bob", answer=illegal) as bob,
            ):
                await connected(address, "alice")
                await connected(address, "bob")
                created = await new_table(address, "year", players=3, bots=["bot:alice", "bot:bob"])
                plays = [asyncio.create_task(b.until("end")) for b in (alice, bob)]
                states = await person(address, created)
                alice_end, bob_end = await asyncio.gather(*plays)
            assert alice_end["forfeit"] is None and alice_end["game_id"].endswith("-1")
            assert bob_end["forfeit"]["kind"] == "illegal" and bob_end["forfeit"]["seat"] == 2
            assert [f["bot"] for f in states[-1]["bot_forfeits"]] == ["bob"]
            seats = [s["name"] for s in states[-1]["seats"]]
            assert seats[1:] == ["bot:alice", "bot:bob"]
            decisions = alice.of_type("decision")
            assert [d["decision"] for d in decisions] == list(range(len(decisions)))

        run(scenario())


def test_the_token_may_come_in_the_hello_and_asks_are_answered_from_the_seat() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address, in_hello=True) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head")
                people = asyncio.create_task(person(address, created))
                decision = await alice.until("decision")
                game_id = decision["game_id"]
                asks: list[Message] = [
                    {"type": "ask", "game_id": game_id, "ask": "observation"},
                    {"type": "ask", "game_id": game_id, "ask": "determinize", "seed": 5},
                    {
                        "type": "ask",
                        "game_id": game_id,
                        "ask": "bot_move",
                        "bot": "heuristic",
                        "seed": 5,
                    },
                ]
                answers = []
                for ask in asks:
                    await alice.send(ask)
                    answers.append(await alice.until("answer"))
                await alice.reply(decision)
                end = await alice.until("end")
                await people
            assert [a["ask"] for a in answers] == ["observation", "determinize", "bot_move"]
            assert all(a["game_id"] == game_id for a in answers)
            assert answers[0]["value"] and all(isinstance(x, float) for x in answers[0]["value"])
            assert answers[1]["value"]["players"] == 2  # the snapshot of a sampled game
            assert answers[2]["value"] in decision["legal"]
            assert end["forfeit"] is None

        run(scenario())


# ---- tokens ------------------------------------------------------------------------------------


def test_a_bad_token_is_refused_and_compared_in_constant_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)  # the module bot_tokens calls
    with server() as address:

        async def scenario() -> None:
            for in_hello in (False, True):
                async with bot(address, TOKEN[:-1] + "X", in_hello=in_hello) as wrong:
                    code, reason = await wrong.closed()
                assert code == 1008 and "not a bot token" in reason
                assert wrong.of_type("error") and TOKEN not in json.dumps(wrong.got)
            await gone(address, "alice")

        run(scenario())
    # Every bot's digest was compared (alice's and bob's), whichever matched: 2 per attempt.
    assert len(calls) >= 4 and all(len(a) == len(b) == 32 for a, b in calls)


def test_no_token_a_foreign_origin_and_a_server_without_bots_are_refused() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address, None) as nobody:
                code, reason = await nobody.closed()
            assert code == 1008 and "no bot token" in reason
            headers = {"Authorization": "Basic abc"}
            async with connect(f"ws://{address}/bots/ws", additional_headers=headers) as ws:
                await ws.wait_closed()
                assert ws.close_code == 1008 and "Bearer" in (ws.close_reason or "")
            with pytest.raises(InvalidStatus):
                await connect(f"ws://{address}/bots/ws", origin="http://evil.example")  # type: ignore[arg-type]

        run(scenario())
    with server(bots=None) as address:

        async def refused() -> None:
            async with bot(address) as alice:
                code, reason = await alice.closed()
            assert code == 1008 and "takes no bots" in reason

        run(refused())


def test_two_connections_with_one_token_the_second_is_refused() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address) as first:
                await connected(address, "alice")
                async with bot(address) as second:
                    code, reason = await second.closed()
                assert code == 1008 and "connected already" in reason
                created = await new_table(address)  # the first still plays
                playing = asyncio.create_task(first.until("end"))
                await person(address, created)
                assert (await playing)["forfeit"] is None

        run(scenario())


def test_bot_tokens_from_options_and_files(tmp_path: Any) -> None:
    tokens_file = tmp_path / "bots.txt"
    tokens_file.write_text(f"# bots\n\nbob {TOKEN_B}\n", encoding="utf-8")
    tokens = BotTokens.parse([f"alice={TOKEN}"], [tokens_file])
    assert tokens.names == ("alice", "bob")
    assert tokens.name_of(TOKEN) == "alice" and tokens.name_of(TOKEN_B) == "bob"
    assert tokens.name_of(TOKEN + "x") is None and tokens.name_of("") is None
    assert tokens.check("bob", TOKEN_B) and not tokens.check("alice", TOKEN_B)
    assert TOKEN not in repr(tokens)
    for bad in (["alice"], ["alice=short"], [f"al ice={TOKEN}"], [f"a={TOKEN}", f"a={TOKEN_B}"]):
        with pytest.raises(BotTokenError) as err:
            BotTokens.parse(bad)
        assert TOKEN not in str(err.value)
    with pytest.raises(BotTokenError, match="own token"):
        BotTokens.parse([f"a={TOKEN}", f"b={TOKEN}"])
    tokens_file.write_text("bob\n", encoding="utf-8")
    with pytest.raises(BotTokenError, match="line 1"):
        BotTokens.parse([], [tokens_file])


@pytest.mark.slow
def test_serve_takes_bots_from_a_token_file(tmp_path: Any) -> None:
    tokens_file = tmp_path / "bots.txt"
    tokens_file.write_text(f"alice {TOKEN}\n", encoding="utf-8")
    with child_server("--bot-tokens", str(tokens_file)) as child:
        assert child.process.stdout is not None
        line = child.process.stdout.readline()
        assert "bots alice may connect to ws://" in line and TOKEN not in line

        async def scenario() -> None:
            async with bot(child.address, in_hello=True) as alice:
                await connected(child.address, "alice")
                assert alice.ws is not None and alice.ws.close_code is None

        run(scenario())


def test_the_minimal_bot_of_the_docs_plays_a_table(tmp_path: Any) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "bot_server.md").read_text(encoding="utf-8")
    example = doc.split("```python\n")[-1].split("```")[0]
    script = tmp_path / "first_legal_bot.py"
    script.write_text(example, encoding="utf-8")
    with server() as address:
        env = {**os.environ, "PANDA_BOT_TOKEN": TOKEN, "PYTHONUNBUFFERED": "1"}
        env["PANDA_BOTS_URL"] = f"ws://{address}/bots/ws"
        child = subprocess.Popen(
            [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True
        )
        try:

            async def scenario() -> list[Message]:
                await connected(address, "alice")
                return await person(address, await new_table(address, "head"))

            states = run(scenario())
            # The bot prints the result once its game-over message arrives, which may be after
            # the person's: read its output until then (bounded), and only then stop it.
            lines = _lines_until(child, "forfeit", time.monotonic() + DEADLINE)
        finally:
            child.terminate()
            rest, _ = child.communicate(timeout=DEADLINE)
    out = "".join(lines) + rest
    assert states[-1]["is_over"] and "bot_forfeits" not in states[-1]
    assert f"winner {states[-1]['winner']} forfeit None" in out


def _lines_until(child: subprocess.Popen[str], text: str, deadline: float) -> list[str]:
    """The child's output lines up to the first holding ``text`` (or its end, or the
    deadline)."""
    assert child.stdout is not None
    lines: list[str] = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([child.stdout], [], [], 0.1)
        if not ready:
            continue
        line = child.stdout.readline()
        lines.append(line)
        if not line or text in line:
            break
    return lines


def test_serve_refuses_a_bad_token_option_without_printing_it() -> None:
    secret = "short-secret"
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "panda_core.cli",
            "serve",
            "--port",
            "0",
            "--bot-token",
            f"a={secret}",
        ],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert child.returncode == 2
    assert "16 to 200" in child.stderr and secret not in child.stderr + child.stdout


# ---- limits ------------------------------------------------------------------------------------


def test_an_oversized_frame_closes_the_socket_and_the_server_stays_up() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address) as alice:
                await connected(address, "alice")
                await alice.send("x" * (65 << 10))
                code, _ = await alice.closed()
            assert code == 1009
            await gone(address, "alice")
            async with bot(address) as again:
                await connected(address, "alice")
                await again.send({"type": "move", "game_id": "g" * 101, "id": 1})
                code, reason = await again.closed()
            assert code == 1008 and "'game_id'" in reason

        run(scenario())


def test_a_flooding_bot_is_closed_and_forfeits_its_game() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address) as alice:
                await connected(address, "alice")
                created = await new_table(address)
                await alice.until("start")
                for _ in range(400):
                    await alice.send('{"type": "pong"}')
                code, reason = await alice.closed()
            assert code == 1008 and "messages at once" in reason
            states = await person(address, created)
            forfeits = states[-1]["bot_forfeits"]
            assert (
                forfeits[0]["kind"] == "exception" and "messages at once" in forfeits[0]["reason"]
            )

        run(scenario())


def test_a_silent_bot_is_gone_after_the_pong_timeout() -> None:
    with server(bots=settings(ping_interval=0.1, pong_timeout=0.5)) as address:

        async def scenario() -> None:
            began = time.monotonic()
            async with bot(address, pong=False) as alice:
                code, reason = await alice.closed()
                waited = time.monotonic() - began
            assert code == 1008 and "no pong within 0.5 s" in reason
            assert 0.5 <= waited < DEADLINE
            assert len(alice.of_type("ping")) >= 2
            await gone(address, "alice")

        run(scenario())


def test_a_hello_that_never_comes_closes_the_socket() -> None:
    with server(bots=settings(hello_timeout=0.3)) as address:

        async def scenario() -> None:
            headers = {"Authorization": f"Bearer {TOKEN}"}
            async with connect(f"ws://{address}/bots/ws", additional_headers=headers) as ws:
                hello = json.loads(await ws.recv())
                assert hello["type"] == "hello" and hello["protocol"] == 1
                await ws.wait_closed()
            assert ws.close_code == 1008 and "no hello" in (ws.close_reason or "")

        run(scenario())


# ---- reconnects --------------------------------------------------------------------------------


def test_a_bot_that_reconnects_within_the_grace_time_goes_on_with_its_game() -> None:
    with server(bots=settings(reconnect_grace=5.0)) as address:

        async def scenario() -> None:
            first = await Bot(address).connect()
            await connected(address, "alice")
            created = await new_table(address, "head")
            people = asyncio.create_task(person(address, created))
            decision = await first.until("decision")
            await first.close()  # mid-game, with a decision pending
            await gone(address, "alice")
            async with bot(address) as again:
                start = await again.next()
                resent = await again.next()
                assert start["type"] == "start" and start["game_id"] == decision["game_id"]
                assert resent["type"] == "decision" and resent["decision"] == decision["decision"]
                assert resent["legal"] == decision["legal"]
                assert len(resent["events"]) >= len(decision["events"])  # all of them again
                assert resent["time_left_ms"] <= decision["time_left_ms"]
                await again.reply(resent)
                end = await again.until("end")
                states = await people
            assert end["forfeit"] is None
            assert "bot_forfeits" not in states[-1]

        run(scenario())


@pytest.mark.slow
def test_a_bot_that_comes_back_after_the_grace_time_has_forfeited() -> None:
    with server(bots=settings(reconnect_grace=0.5)) as address:

        async def scenario() -> None:
            first = await Bot(address).connect()
            await connected(address, "alice")
            created = await new_table(address, "head")
            people = asyncio.create_task(person(address, created))
            await first.until("decision")
            await first.close()
            await asyncio.sleep(1.2)
            async with bot(address) as again:
                await connected(address, "alice")
                states = await people  # the heuristic played the seat to the end
                await again.listen(0.3)
            assert not again.of_type("start") and not again.of_type("decision")
            forfeit = states[-1]["bot_forfeits"][0]
            assert forfeit["seat"] == 1 and forfeit["bot"] == "alice"
            assert (
                forfeit["kind"] == "exception"
                and "did not come back within 0.5 s" in forfeit["reason"]
            )

        run(scenario())


# ---- bad answers -------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_illegal_move_forfeits_the_game_and_keeps_the_connection() -> None:
    def illegal(decision: Message) -> Message:
        return {"type": "move", "game_id": decision["game_id"], "id": 99999}

    with server() as address:

        async def scenario() -> None:
            async with bot(address, answer=illegal) as alice:
                await connected(address, "alice")
                created = await new_table(address)
                playing = asyncio.create_task(alice.until("end"))
                states = await person(address, created)
                end = await playing
                assert end["forfeit"]["kind"] == "illegal" and "99999" in end["forfeit"]["reason"]
                assert end["forfeit"]["seat"] == 1
                # A late move for the ended game: told, and still connected.
                await alice.send(
                    first_legal({"game_id": end["game_id"], "legal": [{"notation": "x"}]})
                )
                error = await alice.until("error")
                assert "is over" in error["message"]
                await alice.listen(0.5)
                await connected(address, "alice")
            assert states[-1]["bot_forfeits"][0]["kind"] == "illegal"

        run(scenario())


def test_a_move_of_another_game_or_out_of_turn_forfeits_that_game_only() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head", seed=3)
                decision = await alice.until("decision")  # seat 1 leads in a two-seat head
                await alice.send({"type": "move", "game_id": "no-such-game", "id": 1})
                error = await alice.until("error")
                assert "plays no game" in error["message"]
                await alice.reply(decision)
                while not (await state_of(address, created))["your_turn"]:
                    await asyncio.sleep(0.01)
                # The person is to move, the bot moves anyway.
                await alice.send(first_legal(decision))
                end = await alice.until("end")
                assert end["forfeit"]["kind"] == "illegal"
                assert end["forfeit"]["reason"] == "sent a move while no decision was asked of it"
                await alice.listen(0.5)
                await connected(address, "alice")

        run(scenario())


JUNK: list[str | bytes] = [
    '{"type": "move", "game_id": ',
    "[1, 2]",
    '"move"',
    "NaN",
    '{"type": "dance"}',
    '{"type": "move", "game_id": "g", "id": true}',
    '{"type": "move", "game_id": "g", "id": -1}',
    '{"type": "move", "game_id": "g", "id": 1e3}',
    '{"type": "move", "game_id": "g", "id": 1, "notation": "2"}',
    '{"type": "move", "game_id": "g"}',
    '{"type": "move", "game_id": 7, "id": 1}',
    '{"type": "ask", "game_id": "g", "ask": "snapshot"}',
    '{"type": "ask", "game_id": "g", "ask": "bot_move", "seed": 1}',
    '{"type": "move", "type": "pong"}',
    '{"type": "hello", "protocol": 1, "name": "again"}',
    "[" * 30_000 + "]" * 30_000,
    b"\x00\x01",
]
"""Messages the protocol does not allow: each closes the connection (1008, "protocol error")."""


def test_junk_closes_the_connection_and_forfeits_its_games() -> None:
    with server() as address:

        async def scenario() -> None:
            for junk in JUNK:
                async with bot(address) as alice:
                    await alice.send(junk)  # right after the hello
                    code, reason = await alice.closed()
                assert code == 1008 and "protocol error" in reason, (str(junk)[:60], reason)
            await gone(address, "alice")
            # With a game: it is forfeited at once, and the heuristic plays the seat.
            async with bot(address) as alice:
                await connected(address, "alice")
                created = await new_table(address)
                await alice.until("start")
                await alice.send('{"type": "move", "game_id": ')
                code, reason = await alice.closed()
            assert code == 1008 and "not JSON" in reason
            states = await person(address, created)
            forfeit = states[-1]["bot_forfeits"][0]
            assert forfeit["kind"] == "exception" and "protocol error" in forfeit["reason"]
            async with bot(address) as again:  # the server is up, the bot may come back
                await connected(address, "alice")
                await again.listen(0.3)

        run(scenario())


@pytest.mark.slow
def test_a_bot_that_does_not_answer_in_time_forfeits() -> None:
    with server(bot_time=0.4) as address:

        async def scenario() -> None:
            async with bot(address, answer=lambda d: None) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head")
                playing = asyncio.create_task(alice.until("end"))
                states = await person(address, created)
                end = await playing
            assert end["forfeit"] == {
                "seat": 1,
                "kind": "timeout",
                "reason": "no move within 0.4 s",
            }
            assert states[-1]["bot_forfeits"][0]["kind"] == "timeout"
            assert states[-1]["is_over"]

        run(scenario())


def test_a_bot_thinking_holds_up_no_page_and_no_other_table() -> None:
    with server(bot_time=20.0) as address:

        async def scenario() -> None:
            async with bot(address) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head", seed=2)  # seat 1 leads
                decision = await alice.until("decision")
                # While the bot thinks, its table's page reads the state and another table is
                # played to its end.
                assert (await state_of(address, created))["to_move"] == 1
                other = await new_table(address, "spin", bots=["heuristic"])
                assert (await person(address, other))[-1]["is_over"]
                state = await state_of(address, created)
                assert state["to_move"] == 1 and "bot_forfeits" not in state
                await alice.reply(decision)  # the answer then comes, and is played
                while (await state_of(address, created))["to_move"] == 1:
                    await asyncio.sleep(0.01)

        run(scenario())


@pytest.mark.slow
def test_too_many_asks_forfeit() -> None:
    def asks(decision: Message) -> Message:
        return {"type": "ask", "game_id": decision["game_id"], "ask": "observation"}

    with server() as address:

        async def scenario() -> None:
            async with bot(address, answer=asks) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head")
                people = asyncio.create_task(person(address, created))
                decision = await alice.until("decision")
                for _ in range(MAX_ASKS + 1):
                    await alice.reply(decision)
                end = await alice.until("end")
                await people
            assert end["forfeit"]["kind"] == "exception" and "asks" in end["forfeit"]["reason"]
            assert len(alice.of_type("answer")) <= MAX_ASKS

        run(scenario())


# ---- seats at tables ---------------------------------------------------------------------------


def test_a_table_seat_for_a_bot_not_connected_or_twice_is_refused() -> None:
    with server() as address:

        async def scenario() -> None:
            async with httpx.AsyncClient() as client:
                url = f"http://{address}/api/tables"
                body = {"game": "spin", "players": 2, "bots": ["bot:alice"]}
                answer = await client.post(url, json=body)
                assert answer.status_code == 422 and "not connected" in answer.text
                async with bot(address):
                    await connected(address, "alice")
                    body = {"game": "spin", "players": 3, "bots": ["bot:alice", "bot:alice"]}
                    answer = await client.post(url, json=body)
                    assert answer.status_code == 422 and "one seat" in answer.text
                    body = {"game": "spin", "players": 2, "bots": ["bot:no body"]}
                    answer = await client.post(url, json=body)
                    assert answer.status_code == 422

        run(scenario())


@pytest.mark.slow
def test_a_table_closed_before_its_end_ends_the_bots_game() -> None:
    with server(idle_timeout=0.5) as address:

        async def scenario() -> None:
            async with bot(address) as alice:
                await connected(address, "alice")
                created = await new_table(address, "head")
                end = await alice.until("end")  # the person never moves: the table idles
                assert end["game_id"] == f"table-{created['table']}-1"
                assert end["forfeit"]["seat"] is None and end["forfeit"]["kind"] == "closed"
                assert "idle" in end["forfeit"]["reason"] and end["winner"] is None
                await alice.listen(0.3)

        run(scenario())


def test_on_stop_a_bot_gets_bye() -> None:
    async def scenario(address: str) -> Bot:
        alice = await Bot(address).connect()
        await connected(address, "alice")
        return alice

    with running_server(bots=settings(), bot_delay=0) as (address, srv):
        loop = asyncio.new_event_loop()
        try:
            alice = loop.run_until_complete(scenario(address))
            srv.should_exit = True
            code, reason = loop.run_until_complete(alice.closed())
        finally:
            loop.close()
    assert code == 1001 and "shutting down" in reason
    assert alice.got[-1] == {"type": "bye"}


# ---- challenges --------------------------------------------------------------------------------


async def challenge(address: str, **body: Any) -> Message:
    """POST a challenge and wait for its end: its final summary."""
    async with httpx.AsyncClient() as client:
        answer = await client.post(f"http://{address}/bots/challenge", json=body)
        assert answer.status_code == 201, answer.text
        started = answer.json()
        assert started["status"] == "running"
        deadline = time.monotonic() + DEADLINE
        while True:
            summary: Message = (
                await client.get(f"http://{address}/bots/challenge/{started['challenge']}")
            ).json()
            if summary["status"] != "running":
                return summary
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)


def test_a_challenge_plays_the_arena_schedule_with_connected_bots() -> None:
    with server() as address:

        async def scenario() -> None:
            async with bot(address) as alice, bot(address, TOKEN_B, name="bob") as bob:
                await connected(address, "alice")
                await connected(address, "bob")
                plays = [asyncio.create_task(b.until("never")) for b in (alice, bob)]
                summary = await challenge(
                    address,
                    game="spin",
                    players=3,
                    entrants=["bot:alice", "bot:bob", "heuristic"],
                    deals=1,
                    seed=4,
                )
                for task in plays:
                    task.cancel()
            assert summary["status"] == "done", summary
            assert summary["played"] == summary["scheduled"] == 3
            report = summary["report"]
            assert [s["entrant"] for s in report["standings"]] == [
                "bot:alice",
                "bot:bob",
                "heuristic",
            ]
            assert report["forfeits"] == []
            games = summary["games"]
            assert [g["game"] for g in games] == [0, 1, 2]
            assert all(g["forfeit"] is None and g["winner"] is not None for g in games)
            assert len(alice.of_type("start")) == len(alice.of_type("end")) == 3
            assert all(e["forfeit"] is None for e in alice.of_type("end"))

        run(scenario())


def test_a_challenge_records_a_forfeit_as_the_arena_does() -> None:
    def illegal(decision: Message) -> Message:
        return {"type": "move", "game_id": decision["game_id"], "notation": "nonsense"}

    with server() as address:

        async def scenario() -> None:
            async with bot(address, answer=illegal) as alice:
                await connected(address, "alice")
                play = asyncio.create_task(alice.until("never"))
                summary = await challenge(
                    address, game="head", players=2, entrants=["bot:alice", "random"], seed=1
                )
                play.cancel()
            assert summary["status"] == "done" and summary["played"] == 2
            forfeits = [g["forfeit"] for g in summary["games"]]
            assert all(f is not None and f["kind"] == "illegal" for f in forfeits)
            assert all(f["entrant"] == 0 and "'nonsense'" in f["message"] for f in forfeits)
            assert all(json.loads(f["record"]) for f in forfeits)
            standing = summary["report"]["standings"][0]
            assert standing["entrant"] == "bot:alice" and standing["forfeits"] == 2
            ends = alice.of_type("end")
            assert len(ends) == 2 and all(e["forfeit"]["kind"] == "illegal" for e in ends)

        run(scenario())


def test_a_challenge_is_refused_for_bad_entrants() -> None:
    with server() as address:

        async def scenario() -> None:
            url = f"http://{address}/bots/challenge"
            async with httpx.AsyncClient() as client:
                body: Message = {
                    "game": "spin",
                    "players": 2,
                    "entrants": ["bot:alice", "heuristic"],
                }
                answer = await client.post(url, json=body)
                assert answer.status_code == 422 and "not connected" in answer.text
                async with bot(address):
                    await connected(address, "alice")
                    for entrants, says in (
                        (["bot:alice"], "2 to"),
                        (["bot:alice", "bot:alice"], "twice"),
                        (["bot:alice", "neural:/etc/passwd"], "PATH"),
                        (["bot:alice", "nobot"], "bad entrant"),
                    ):
                        body["entrants"] = entrants
                        answer = await client.post(url, json=body)
                        assert answer.status_code == 422 and says in answer.text, answer.text
                    body = {"game": "spin", "players": 3, "entrants": ["bot:alice", "random"]}
                    answer = await client.post(url, json=body)
                    assert answer.status_code == 422 and "twice" in answer.text
                    body = {
                        "game": "spin",
                        "players": 2,
                        "entrants": ["bot:alice", "random"],
                        "deals": 10**6,
                    }
                    answer = await client.post(url, json=body)
                    assert answer.status_code == 422 and "at most" in answer.text
                answer = await client.get(f"http://{address}/bots/challenge/nope")
                assert answer.status_code == 404

        run(scenario())


@pytest.mark.parametrize("name", ["year", "spin"])
def test_a_shared_climbing_id_plays_the_engines_pick_as_over_a_subprocess(name: str) -> None:
    """In the climbing games an id is a move's shape, which several legal moves can share: a
    connected bot's answer by such an id plays the move the engine picks for it, as ``apply(id)``
    and the subprocess transport do."""
    from panda_core import make
    from panda_core.web import bot_seat

    for seed in range(40):
        game = make(name, players=3, seed=seed)
        player = game.current_player
        decision = bot_seat.decision(game.seat(player), game_id="g", number=0)
        ids = [a for a, _ in decision.legal if a is not None]
        shared = {a for a in ids if ids.count(a) > 1}
        if not shared:
            continue
        for action in shared:
            index = decision.index_of({"type": "move", "game_id": "g", "id": action})
            assert isinstance(index, int)
            assert decision.legal[index][1] == game.move_for_action(action).notation
        return
    pytest.fail("no deal with a shared id in its first position")
