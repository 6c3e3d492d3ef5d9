"""LlmBot against the scripted OpenAI-compatible server (tests/llm_server.py): legal answers,
illegal then legal, unparsable, slow beyond the timeout, HTTP 500/429/401, huge bodies, bodies
that are not JSON, usage counts; the retries' words, the forfeit and the fallback ends, the
concurrency limit and the telemetry of each."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

import panda_core
from llm_server import Answer, Huge, Raw, Received, Slow, Status, Trickle, legal_moves_of, serve
from panda_core._core import nth_output
from panda_core.llm import LlmBot, LlmError, LlmForfeit, telemetry_of
from panda_core.llm.client import MAX_RESPONSE_BYTES

KEY = "sk-test-SECRET-0123456789abcdef"


def position(game: str = "year", moves: int = 7, seed: int = 3) -> Any:
    """A game some heuristic moves in, with several legal moves for the seat to move."""
    g = panda_core.make(game, 3, seed=seed)
    for _ in range(moves):
        g.apply(g.bot_move("heuristic", seed=seed))
    while len(g.legal_moves()) < 2:
        g.apply(g.bot_move("heuristic", seed=seed))
    return g


def seat_of(game: Any) -> Any:
    """What a loop hands a bot: the seat object, or a clone before seats exist."""
    make = getattr(game, "seat", None)
    return make(game.current_player) if callable(make) else game.clone()


def bot_for(server: Any, **options: Any) -> LlmBot:
    options.setdefault("timeout", 2.0)
    options.setdefault("backoff", 0.0)
    bot = LlmBot("scripted-model", base_url=server.base_url, api_key=KEY, **options)
    bot.reset(11)
    return bot


def ask(bot: LlmBot, game: Any) -> str:
    return bot(seat_of(game), game.current_player)


def legal(game: Any) -> list[str]:
    return [m.notation for m in game.legal_moves()]


def test_a_legal_answer_is_the_move_and_the_request_is_openais() -> None:
    game = position()
    with serve([Answer("Thinking…\nMOVE: " + legal(game)[1], usage=(321, 7))]) as server:
        bot = bot_for(server, temperature=0.2, max_tokens=50)
        assert ask(bot, game) == legal(game)[1]
    (request,) = server.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "scripted-model"
    assert request.body["temperature"] == 0.2 and request.body["max_tokens"] == 50
    roles = [m["role"] for m in request.messages]
    assert roles == ["system", "user"]
    assert legal_moves_of(request.prompt) == legal(game)
    t = bot.telemetry()
    assert (t["decisions"], t["requests"], t["retries"]) == (1, 1, 0)
    assert (t["prompt_tokens"], t["completion_tokens"], t["total_tokens"]) == (321, 7, 328)
    assert (t["illegal"], t["unparsable"], t["errors"], t["timeouts"], t["fallbacks"]) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert t["latency_s"] > 0 and t["latency_max_s"] <= t["latency_s"] + 1e-9
    assert t["forfeit"] is None and telemetry_of(bot) == t
    json.dumps(t)  # JSON-ready


def test_options_not_given_are_not_sent_and_no_key_no_header() -> None:
    game = position()
    with serve() as server:
        bot = LlmBot("m", base_url=server.base_url, api_key="")
        ask(bot, game)
    (request,) = server.requests
    assert "temperature" not in request.body and "max_tokens" not in request.body
    assert "authorization" not in request.headers


def test_illegal_then_legal_names_the_move_and_lists_the_legal_moves_again() -> None:
    game = position()
    with serve([Answer("MOVE: single Xx99")]) as server:
        bot = bot_for(server)
        assert ask(bot, game) == legal(game)[0]
    first, second = server.requests
    assert [m["role"] for m in second.messages] == ["system", "user", "assistant", "user"]
    assert second.messages[2]["content"] == "MOVE: single Xx99"
    retry = second.messages[3]["content"]
    assert "'single Xx99' is not one of your legal moves" in retry
    assert legal_moves_of(retry) == legal(game)
    assert second.messages[:2] == first.messages
    t = bot.telemetry()
    assert (t["requests"], t["retries"], t["illegal"], t["unparsable"]) == (2, 1, 1, 0)
    assert t["failures"] == [{"decision": 0, "kind": "illegal", "detail": "'single Xx99'"}]


def test_a_number_out_of_the_list_is_illegal_too() -> None:
    game = position()
    with serve([Answer("MOVE: #999")]) as server:
        bot = bot_for(server)
        ask(bot, game)
    assert "#999 (the list has #1 to" in server.requests[1].messages[3]["content"]
    assert bot.telemetry()["illegal"] == 1


def test_unparsable_then_legal_restates_the_format() -> None:
    game = position()
    with serve([Answer("I would play my lowest single.")]) as server:
        bot = bot_for(server)
        assert ask(bot, game) == legal(game)[0]
    retry = server.requests[1].messages[3]["content"]
    assert "could not be read: it has no line starting with 'MOVE:'" in retry
    assert "MOVE: <notation>" in retry
    t = bot.telemetry()
    assert (t["requests"], t["retries"], t["illegal"], t["unparsable"]) == (2, 1, 0, 1)


def test_a_slow_answer_beyond_the_timeout_is_a_timeout_then_retried() -> None:
    game = position()
    with serve([Slow(3.0)]) as server:
        bot = bot_for(server, timeout=0.5)
        start = time.monotonic()
        assert ask(bot, game) == legal(game)[0]
        took = time.monotonic() - start
    assert 0.5 <= took < 2.0
    t = bot.telemetry()
    assert (t["requests"], t["timeouts"], t["errors"], t["retries"]) == (2, 1, 0, 1)
    assert t["failures"][0]["kind"] == "timeout"
    assert "no answer within the timeout (0.5 s)" in t["failures"][0]["detail"]


def test_a_trickling_answer_is_cut_off_at_the_timeout() -> None:
    game = position()
    with serve([Trickle(every=0.1, count=100)]) as server:
        bot = bot_for(server, timeout=0.6)
        start = time.monotonic()
        assert ask(bot, game) == legal(game)[0]
        took = time.monotonic() - start
    assert took < 2.0
    t = bot.telemetry()
    assert t["timeouts"] == 1
    assert "still arriving after the timeout" in t["failures"][0]["detail"]


@pytest.mark.parametrize("status", [500, 502, 503, 429, 408])
def test_server_errors_are_retried(status: int) -> None:
    game = position()
    with serve([Status(status)]) as server:
        bot = bot_for(server)
        assert ask(bot, game) == legal(game)[0]
    t = bot.telemetry()
    assert (t["requests"], t["errors"], t["http_status"]) == (2, 1, {str(status): 1})
    assert f"HTTP {status} from the server: scripted failure" == t["failures"][0]["detail"]


@pytest.mark.slow
def test_retry_after_is_waited_for_and_the_backoff_doubles() -> None:
    game = position()
    script = [Status(429, headers=(("Retry-After", "0.4"),)), Status(503), Status(503)]
    with serve(script) as server:
        bot = bot_for(server, backoff=0.1, max_retries=3)
        start = time.monotonic()
        ask(bot, game)
        took = time.monotonic() - start
    # 0.4 (Retry-After), then 0.1 * 2 and 0.1 * 4 (the 2nd and 3rd failures)
    assert 1.0 <= took < 2.5
    assert bot.telemetry()["http_status"] == {"429": 1, "503": 2}


@pytest.mark.parametrize("status", [400, 401, 403, 404, 302])
def test_a_refusal_is_not_retried_and_forfeits(status: int) -> None:
    game = position()
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {KEY}"}})
    with serve([Status(status, body)]) as server:
        bot = bot_for(server)
        with pytest.raises(LlmForfeit) as caught:
            ask(bot, game)
    assert len(server.requests) == 1
    message = str(caught.value)
    assert f"HTTP {status}" in message and caught.value.kind == "error"
    assert KEY not in message and KEY[:8] not in message  # the server echoed it: redacted
    t = bot.telemetry()
    assert t["forfeit"] is not None and t["forfeit"]["kind"] == "error"
    assert KEY not in json.dumps(t) and KEY[:8] not in json.dumps(t)


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "chunked"])
def test_a_huge_body_is_refused_without_reading_it_all(length: bool) -> None:
    game = position()
    with serve([Huge(8 * MAX_RESPONSE_BYTES, length=length)]) as server:
        bot = bot_for(server)
        assert ask(bot, game) == legal(game)[0]
    t = bot.telemetry()
    assert t["errors"] == 1 and t["failures"][0]["kind"] == "too_large"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"<html>oops</html>", "not JSON"),
        (b"\xff\xfe", "not JSON"),
        (b"[]", "no choices[0]"),
        (b'{"choices": []}', "no choices[0]"),
        (b'{"choices": [{"message": {"content": 5}}]}', "not text"),
        (
            b'{"choices": [{"message": {"content": "MOVE: x"}}], "usage": {"prompt_tokens": -1}}',
            "usage.prompt_tokens",
        ),
        (
            b'{"choices": [{"message": {"content": "x"}}], "usage": {"prompt_tokens": 1e3}}',
            "usage.prompt_tokens",
        ),
        (
            b'{"choices": [{"message": {"content": "x"}}], "usage": {"completion_tokens": '
            + b"9" * 30
            + b"}}",
            "usage.completion_tokens",
        ),
        (b'{"choices": [], "choices": []}', "given twice"),
        (b"[" * 100_000, "not JSON"),
    ],
)
def test_a_body_that_is_not_a_completion_is_an_error(body: bytes, words: str) -> None:
    game = position()
    with serve([Raw(body)]) as server:
        bot = bot_for(server)
        assert ask(bot, game) == legal(game)[0]
    t = bot.telemetry()
    assert t["errors"] == 1 and t["failures"][0]["kind"] == "bad_response"
    assert words in t["failures"][0]["detail"]


def test_an_empty_content_is_unparsable_not_an_error() -> None:
    game = position()
    raw = b'{"choices": [{"message": {"role": "assistant", "content": null}}]}'
    with serve([Raw(raw)]) as server:
        bot = bot_for(server)
        ask(bot, game)
    t = bot.telemetry()
    assert (t["unparsable"], t["errors"], t["usage_missing"]) == (1, 0, 1)


def test_usage_counts_add_up_and_missing_usage_is_counted() -> None:
    game = position()
    script = [Answer("no move", usage=(10, 2)), Answer("MOVE: nope", usage=None)]
    with serve(script) as server:
        bot = bot_for(server)
        ask(bot, game)
    t = bot.telemetry()
    assert (t["prompt_tokens"], t["completion_tokens"]) == (10 + 100, 2 + 5)
    assert t["usage_missing"] == 1 and t["requests"] == 3


def test_a_refused_connection_is_an_error_and_the_seat_forfeits() -> None:
    with serve() as server:
        url = server.base_url
    game = position()
    bot = LlmBot("m", base_url=url, max_retries=1, backoff=0.0, timeout=1.0)
    with pytest.raises(LlmForfeit, match="the connection failed") as caught:
        ask(bot, game)
    assert caught.value.kind == "error"
    assert bot.telemetry()["errors"] == 2


def test_every_retry_illegal_forfeits_naming_the_last_answer() -> None:
    game = position()
    with serve([Answer("MOVE: a"), Answer("MOVE: b"), Answer("MOVE: c")]) as server:
        bot = bot_for(server, max_retries=2)
        with pytest.raises(LlmForfeit) as caught:
            ask(bot, game)
    assert len(server.requests) == 3
    assert caught.value.kind == "illegal"
    assert "llm:scripted-model gave no legal move for its decision 0 (illegal)" in str(caught.value)
    assert "'c'" in str(caught.value)
    t = bot.telemetry()
    assert (t["illegal"], t["retries"], t["fallbacks"]) == (3, 2, 0)
    assert t["forfeit"] == {"decision": 0, "kind": "illegal", "reason": str(caught.value)}


def test_max_retries_zero_sends_one_request() -> None:
    game = position()
    with serve([Answer("nothing")]) as server:
        bot = bot_for(server, max_retries=0)
        with pytest.raises(LlmForfeit, match="unparsable"):
            ask(bot, game)
    assert len(server.requests) == 1


def test_the_fallback_bot_moves_counted_and_listed() -> None:
    game = position()
    with serve([Answer("MOVE: a"), Answer("MOVE: b")]) as server:
        bot = bot_for(server, max_retries=1, on_failure="fallback:heuristic")
        got = ask(bot, game)
    expected = game.bot_move("heuristic", seed=nth_output(11, 0)).notation
    assert got == expected
    t = bot.telemetry()
    assert t["fallbacks"] == 1 and t["forfeit"] is None and t["illegal"] == 2
    assert t["fallback_moves"] == [
        {
            "decision": 0,
            "move": expected,
            "why": "illegal: the answer named 'b', which is not a legal move",
        }
    ]


def test_a_seat_not_to_move_is_refused() -> None:
    game = position()
    with serve() as server:
        bot = bot_for(server)
        other = (game.current_player + 1) % game.players
        with pytest.raises(LlmError, match="not to move"):
            bot(game.clone(), other)
    assert server.requests == []


def test_telemetry_is_per_game() -> None:
    game = position()
    with serve() as server:
        bot = bot_for(server)
        ask(bot, game)
        ask(bot, game)
        assert bot.telemetry()["decisions"] == 2
        bot.game_over(None)
        assert bot.telemetry()["decisions"] == 2  # readable once the game is over
        ask(bot, game)  # a loop that does not reset: a new game all the same
        assert bot.telemetry()["decisions"] == 1
        bot.reset(5)
        assert bot.telemetry()["decisions"] == 0


def test_telemetry_of_other_bots_is_none() -> None:
    assert telemetry_of("heuristic") is None
    assert telemetry_of(lambda game, player: 0) is None


@pytest.mark.slow
def test_the_concurrency_limit_holds_across_threads() -> None:
    game = position()
    with serve([Slow(0.3)] * 6) as server:
        bot = bot_for(server, concurrency=2, timeout=5.0)
        errors: list[BaseException] = []

        def play() -> None:
            try:
                bot(game.clone(), game.current_player)
            except BaseException as err:
                errors.append(err)

        threads = [threading.Thread(target=play) for _ in range(6)]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        took = time.monotonic() - start
    assert not errors
    assert server.most_in_flight == 2
    assert took >= 0.85  # three rounds of two


def test_waiting_for_a_slot_past_the_timeout_is_a_timeout() -> None:
    from panda_core.llm.slots import slot

    game = position()
    with serve() as server:
        bot = bot_for(server, concurrency=1, timeout=0.4, max_retries=0)
        with slot(bot.options.endpoint, 1, 1.0), pytest.raises(LlmForfeit) as caught:
            ask(bot, game)
    assert server.requests == []
    assert caught.value.kind == "timeout"
    assert "no request slot came free" in str(caught.value)


def test_received_requests_hold_only_json_messages() -> None:
    """What is sent is a plain chat request: every message a role and a text."""
    game = position("head")
    with serve([Answer("MOVE: ?")]) as server:
        bot = bot_for(server)
        ask(bot, game)
    for received in server.requests:
        assert isinstance(received, Received)
        for m in received.messages:
            assert set(m) == {"role", "content"} and isinstance(m["content"], str)
