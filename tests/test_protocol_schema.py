"""docs/bot_protocol.schema.json describes the protocol as spoken: every message the engine
builds (panda_core.protocol.messages, at every decision of complete games of all three games)
and every line the adapter and the reference bots send validate against it, and the engine's
reader of a bot's lines (read_bot_message) refuses every line the schema refuses."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from panda_core._registry import GAMES, spec
from panda_core.protocol import messages
from test_protocol_adapter import Conversation, adapter_command, play
from test_protocol_adapter_seat import wire

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = json.loads((ROOT / "docs" / "bot_protocol.schema.json").read_text(encoding="utf-8"))


def validator(name: str) -> jsonschema.Draft202012Validator:
    """A validator of ``$defs/name`` (with the whole schema's definitions)."""
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{name}", "$defs": SCHEMA["$defs"]})


ENGINE = validator("engine_message")
BOT = validator("bot_message")


def test_the_schema_is_a_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    whole = jsonschema.Draft202012Validator(SCHEMA)
    for name, definition in SCHEMA["$defs"].items():
        for example in definition.get("examples", []):
            validator(name).validate(example)
            whole.validate(example)


def engine_messages(
    game_name: str, players: int, seed: int, asks_every: int
) -> list[dict[str, Any]]:
    """Every message the engine builds for every seat of a complete game (through JSON): the
    start, every decision and end; the answers to the asks at every ``asks_every``-th
    decision (a determinize at every fifth of those)."""
    game = spec(game_name).new_game(players, seed)
    out: list[dict[str, Any]] = [messages.hello_message("panda-core test"), {"type": "bye"}]
    out.append({"type": "ping"})
    for seat in range(players):
        out.append(
            messages.start_message(
                game_id=f"g-{seat}",
                game=game_name,
                rules=spec(game_name).rules_dict(game.rules),
                players=players,
                seat=seat,
                seed=messages.bot_seed(seed, seat),
                move_time_ms=None if seat else 1000,
            )
        )
    seen = [0] * players
    decision = 0
    while (player := game.current_player) is not None:
        events = game.events(player)
        out.append(
            messages.decision_message(
                game_id=f"g-{player}",
                decision=decision,
                seat=game.seat(player),
                events=events[seen[player] :],
                time_left_ms=decision % 2 * 500 or None,
            )
        )
        seen[player] = len(events)
        answers: list[tuple[str, Any]] = []
        own = game.seat(player)
        if decision % asks_every == 0:
            move = own.bot_move("heuristic", decision)
            answers.append(("observation", own.observation().tolist()))
            answers.append(
                ("bot_move", {"id": own.action_index(move.notation), "notation": move.notation})
            )
        if decision % (5 * asks_every) == 0:
            answers.append(("determinize", own.determinize(decision).snapshot()))
        for ask, value in answers:
            out.append({"type": "answer", "game_id": f"g-{player}", "ask": ask, "value": value})
        game.apply(game.bot_move("random", seed + decision).notation)
        decision += 1
    for seat in range(players):
        for forfeit in (None, {"seat": seat, "kind": "timeout", "reason": "overran"}):
            out.append(
                messages.end_message(
                    game_id=f"g-{seat}",
                    seat=game.seat(seat),
                    events=game.events(seat)[seen[seat] :],
                    forfeit=forfeit,
                )
            )
    return [wire(m) for m in out]


def check_engine_messages(game_name: str, players: int, seed: int, asks_every: int) -> None:
    kinds = set()
    for message in engine_messages(game_name, players, seed, asks_every):
        ENGINE.validate(message)
        kinds.add(message["type"])
        assert not BOT.is_valid(message) or message["type"] == "hello"
    assert kinds == {"hello", "start", "decision", "answer", "end", "bye", "ping"}


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.slow
def test_every_engine_message_of_a_complete_game_validates(game_name: str) -> None:
    check_engine_messages(game_name, 3, 5, asks_every=7)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_every_engine_message_validates_for_every_player_count(
    game_name: str, players: int
) -> None:
    check_engine_messages(game_name, players, 6 + players, asks_every=1)


SENDERS = {
    "adapter-asking": adapter_command("test_protocol_adapter:Asking"),
    "adapter-raising": adapter_command("test_protocol_adapter:Raising"),
    "adapter-notation": adapter_command("test_protocol_adapter:by_notation"),
    "protocol_bot.py": [sys.executable, str(ROOT / "examples" / "protocol_bot.py")],
}


@pytest.mark.parametrize("sender", SENDERS)
@pytest.mark.slow
def test_the_lines_bots_send_validate(sender: str) -> None:
    """The adapter's and the reference bot's lines, as they wrote them, in complete games."""
    conversation = Conversation(SENDERS[sender])
    try:
        conversation.hello()
        conversation.send({"type": "ping"})
        conversation.read()
        for game_name in GAMES:
            play(conversation, game_name, game_id=f"s-{game_name}")
        conversation.send({"type": "bye"})
        assert conversation.close() == 0
    finally:
        conversation.kill()
    kinds = set()
    for line in conversation.output:
        message = json.loads(line)
        BOT.validate(message)
        kinds.add((message["type"], message.get("ask")))
    assert {("hello", None), ("pong", None)} <= kinds
    expected_by_sender: dict[str, set[tuple[str, Any]]] = {
        "adapter-asking": {
            ("move", None),
            ("ask", "observation"),
            ("ask", "determinize"),
            ("ask", "bot_move"),
        },
        "adapter-raising": {("resign", None)},
    }
    expected = expected_by_sender.get(sender, {("move", None)})
    assert expected <= kinds


GOOD = [
    '{"type": "hello", "protocol": 1, "name": "my-bot"}',
    '{"type": "hello", "protocol": 1}',
    '{"type": "hello", "protocol": 1, "name": "", "extra": [1, 2]}',
    '{"type": "pong"}',
    '{"type": "move", "game_id": "g-1", "id": 0}',
    '{"type": "move", "game_id": "g-1", "id": 4294967295}',
    '{"type": "move", "game_id": "g-1", "notation": "7+B"}',
    '{"type": "move", "game_id": "", "notation": ""}',
    '{"type": "move", "game_id": "' + "g" * 100 + '", "notation": "' + "x" * 200 + '"}',
    '{"type": "ask", "game_id": "g-1", "ask": "observation"}',
    '{"type": "ask", "game_id": "g-1", "ask": "observation", "seed": "ignored"}',
    '{"type": "ask", "game_id": "g-1", "ask": "determinize", "seed": 18446744073709551615}',
    '{"type": "ask", "game_id": "g-1", "ask": "bot_move", "bot": "ismcts:200", "seed": 0}',
    '{"type": "resign", "game_id": "g-1", "reason": "raised ValueError: no"}',
    '{"type": "resign", "game_id": "g-1", "kind": "illegal", "reason": ""}',
    '{"type": "resign", "game_id": "g-1", "reason": "' + "r" * 1000 + '"}',
]

HOSTILE = [
    "",
    "not json",
    "[]",
    "null",
    '"hello"',
    "{}",
    '{"type": 1}',
    '{"type": "bye"}',
    '{"type": "start"}',
    '{"type": "answer", "game_id": "g", "ask": "observation", "value": []}',
    '{"type": "hello"}',
    '{"type": "hello", "protocol": 2}',
    '{"type": "hello", "protocol": "1"}',
    '{"type": "hello", "protocol": true}',
    '{"type": "hello", "protocol": 1, "name": 7}',
    '{"type": "hello", "protocol": 1, "name": "' + "n" * 101 + '"}',
    '{"type": "move", "id": 3}',
    '{"type": "move", "game_id": 5, "id": 3}',
    '{"type": "move", "game_id": "' + "g" * 101 + '", "id": 3}',
    '{"type": "move", "game_id": "g"}',
    '{"type": "move", "game_id": "g", "id": 3, "notation": "4"}',
    '{"type": "move", "game_id": "g", "id": -1}',
    '{"type": "move", "game_id": "g", "id": 4294967296}',
    '{"type": "move", "game_id": "g", "id": "3"}',
    '{"type": "move", "game_id": "g", "id": true}',
    '{"type": "move", "game_id": "g", "id": null}',
    '{"type": "move", "game_id": "g", "id": 1.5}',
    '{"type": "move", "game_id": "g", "notation": 4}',
    '{"type": "move", "game_id": "g", "notation": null}',
    '{"type": "move", "game_id": "g", "notation": "' + "x" * 201 + '"}',
    '{"type": "ask", "game_id": "g"}',
    '{"type": "ask", "game_id": "g", "ask": "snapshot"}',
    '{"type": "ask", "game_id": "g", "ask": "determinize"}',
    '{"type": "ask", "game_id": "g", "ask": "determinize", "seed": -1}',
    '{"type": "ask", "game_id": "g", "ask": "determinize", "seed": 18446744073709551616}',
    '{"type": "ask", "game_id": "g", "ask": "determinize", "seed": "5"}',
    '{"type": "ask", "game_id": "g", "ask": "bot_move", "seed": 5}',
    '{"type": "ask", "game_id": "g", "ask": "bot_move", "bot": 5, "seed": 5}',
    '{"type": "ask", "game_id": "g", "ask": "bot_move", "bot": "' + "b" * 101 + '", "seed": 5}',
    '{"type": "ask", "ask": "observation"}',
    '{"type": "resign", "game_id": "g"}',
    '{"type": "resign", "reason": "x"}',
    '{"type": "resign", "game_id": "g", "reason": 5}',
    '{"type": "resign", "game_id": "g", "reason": "x", "kind": "timeout"}',
    '{"type": "resign", "game_id": "g", "reason": "' + "r" * 1001 + '"}',
]

READER_STRICTER = [
    # what JSON Schema cannot say: a line's size, a key given twice, 1.0 as an integer
    '{"type": "move", "game_id": "g", "id": 3, "id": 4}',
    '{"type": "move", "game_id": "g", "id": 3.0}',
    '{"type": "hello", "protocol": 1.0}',
    '{"type": "pong", "pad": "' + "p" * messages.MAX_ANSWER_BYTES + '"}',
    b'{"type": "move", "game_id": "g", "notation": "\xff"}',
]


def schema_accepts(line: str | bytes) -> bool:
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return bool(BOT.is_valid(message))


def reader_accepts(line: str | bytes) -> bool:
    try:
        messages.read_bot_message(line)
    except messages.ProtocolError:
        return False
    return True


@pytest.mark.parametrize("line", GOOD)
def test_good_lines_pass_both(line: str) -> None:
    assert schema_accepts(line) and reader_accepts(line)


@pytest.mark.parametrize("line", HOSTILE)
def test_what_the_schema_refuses_the_reader_refuses(line: str) -> None:
    assert not schema_accepts(line)
    assert not reader_accepts(line)


@pytest.mark.parametrize("line", READER_STRICTER)
def test_the_reader_refuses_more_than_the_schema_can_say(line: str | bytes) -> None:
    assert not reader_accepts(line)
    if isinstance(line, str):  # Python's json keeps the last of two keys; 1.0 == 1 in a schema
        assert schema_accepts(line)
