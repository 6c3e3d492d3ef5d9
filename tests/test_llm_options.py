"""The ``llm:MODEL`` spec and LlmBot's options (panda_core.llm.options): what is taken, what is
refused and how, and that the key is never shown (repr, str, messages, pickles aside)."""

from __future__ import annotations

import pickle

import pytest

from panda_core import PandaCoreError
from panda_core.llm import LlmBot, LlmSpecError, check_llm_spec, llm_bot_from_spec
from panda_core.llm.options import DEFAULT_BASE_URL, Secret, make_options, parse_spec, redact

KEY = "sk-test-SECRET-0123456789abcdef"


def test_a_bare_spec_takes_the_environment() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9999/v1/", "OPENAI_API_KEY": KEY}
    o = parse_spec("llm:gpt-4o-mini", env=env)
    assert o.model == "gpt-4o-mini"
    assert o.base_url == "http://127.0.0.1:9999/v1"  # the trailing / goes
    assert o.api_key == Secret(KEY)
    assert (o.timeout, o.max_retries, o.concurrency, o.on_failure) == (60.0, 2, 4, "forfeit")
    assert o.temperature is None and o.max_tokens is None


def test_without_environment_the_base_url_is_openais_and_no_key_is_sent() -> None:
    o = parse_spec("llm:gpt-4o", env={})
    assert o.base_url == DEFAULT_BASE_URL
    assert o.api_key is None
    assert o.public()["api_key"] == "none"


def test_options_after_the_question_mark() -> None:
    o = parse_spec(
        "llm:qwen2.5:7b?base_url=http://127.0.0.1:11434/v1&timeout=2.5&max_retries=0"
        "&concurrency=2&temperature=0&max_tokens=64&on_failure=fallback:heuristic&backoff=0",
        env={},
    )
    assert o.model == "qwen2.5:7b"  # a model name may hold ':'
    assert o.base_url == "http://127.0.0.1:11434/v1"
    assert (o.timeout, o.max_retries, o.concurrency) == (2.5, 0, 2)
    assert (o.temperature, o.max_tokens, o.backoff) == (0.0, 64, 0.0)
    assert o.on_failure == "fallback:heuristic" and o.fallback == "heuristic"


def test_percent_encoded_values_are_read() -> None:
    o = parse_spec("llm:m?base_url=http%3A%2F%2F127.0.0.1%3A8000%2Fv1", env={})
    assert o.base_url == "http://127.0.0.1:8000/v1"


def test_the_key_comes_from_the_variable_api_key_env_names() -> None:
    o = parse_spec("llm:m?api_key_env=MY_KEY", env={"MY_KEY": KEY, "OPENAI_API_KEY": "other"})
    assert o.api_key == Secret(KEY)
    with pytest.raises(LlmSpecError, match="MY_KEY: that environment variable is not set"):
        parse_spec("llm:m?api_key_env=MY_KEY", env={})
    with pytest.raises(LlmSpecError, match="name of an environment variable"):
        parse_spec("llm:m?api_key_env=1BAD", env={})


@pytest.mark.parametrize("name", ["api_key", "key", "API_KEY", "token"])
def test_a_key_in_the_spec_is_refused_and_not_quoted(name: str) -> None:
    with pytest.raises(LlmSpecError) as caught:
        parse_spec(f"llm:m?{name}={KEY}", env={})
    assert KEY not in str(caught.value) and KEY[:8] not in str(caught.value)
    assert "OPENAI_API_KEY" in str(caught.value)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("llm:", "needs a model name"),
        ("heuristic", "starts with 'llm:'"),
        ("llm:a b", "without spaces"),
        ("llm:m?nope=1", "unknown option 'nope'"),
        ("llm:m?timeout=1&timeout=2", "given twice"),
        ("llm:m?timeout", "key=value pairs"),
        ("llm:m?timeout=fast", "timeout is a number"),
        ("llm:m?timeout=0", "timeout is more than 0"),
        ("llm:m?timeout=nan", "timeout is more than 0"),
        ("llm:m?timeout=601", "at most 600"),
        ("llm:m?max_retries=-1", "whole number"),
        ("llm:m?max_retries=11", "max_retries is in 0..=10"),
        ("llm:m?concurrency=0", "concurrency is in 1..=64"),
        ("llm:m?temperature=3", "temperature is at least 0 and at most 2"),
        ("llm:m?max_tokens=0", "max_tokens is in 1"),
        ("llm:m?on_failure=give_up", "'forfeit'"),
        ("llm:m?on_failure=fallback:", "'forfeit'"),
        ("llm:m?on_failure=fallback:nosuchbot", "on_failure='fallback:nosuchbot'"),
        ("llm:m?on_failure=fallback:ismcts:0", "on_failure='fallback:ismcts:0'"),
        ("llm:m?base_url=ftp://x/v1", "http:// or https://"),
        ("llm:m?base_url=http:///v1", "with a host"),
        ("llm:m?base_url=http://h:99999/v1", "port"),
        ("llm:m?base_url=http%3A%2F%2Fh%2Fv1%3Fx%3D1", "no query"),
        ("llm:" + "m" * 201, "1 to 200"),
        ("llm:m?" + "x" * 2000, "at most 2000"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(LlmSpecError, match=words.replace("(", r"\(").replace("?", r"\?")):
        parse_spec(spec, env={})


def test_spec_errors_are_panda_core_errors_and_wrong_types_type_errors() -> None:
    assert issubclass(LlmSpecError, PandaCoreError)
    with pytest.raises(TypeError):
        parse_spec(7)
    with pytest.raises(TypeError):
        make_options("m", timeout="1")
    with pytest.raises(TypeError):
        make_options("m", max_retries=True)
    with pytest.raises(TypeError):
        make_options("m", api_key=b"bytes")


def test_a_base_url_with_a_password_is_never_shown_with_it() -> None:
    o = make_options("m", base_url=f"https://user:{KEY}@example.com:8443/v1", env={})
    assert o.endpoint == "https://example.com:8443/v1"
    assert KEY not in repr(o) and KEY not in str(o.public())
    with pytest.raises(LlmSpecError) as caught:
        make_options("m", base_url=f"ftp://user:{KEY}@example.com/v1", env={})
    assert KEY not in str(caught.value)


def test_the_key_is_in_no_repr_str_or_public_view() -> None:
    bot = LlmBot("m", base_url="http://127.0.0.1:1/v1", api_key=KEY)
    for text in (
        repr(bot),
        str(bot),
        repr(bot.options),
        str(bot.options.public()),
        str(bot.telemetry()),
        repr(Secret(KEY)),
        str(Secret(KEY)),
    ):
        assert KEY not in text and KEY[:8] not in text
    assert repr(bot) == "LlmBot('m', endpoint='http://127.0.0.1:1/v1', on_failure='forfeit')"
    assert bot.name == "llm:m"


def test_a_bot_pickles_with_its_key_for_a_worker_process() -> None:
    bot = LlmBot("m", base_url="http://127.0.0.1:1/v1", api_key=KEY, timeout=3)
    back = pickle.loads(pickle.dumps(bot))
    assert back.options == bot.options and back.options.api_key == Secret(KEY)


def test_hide_replaces_the_key_and_the_urls_password() -> None:
    o = make_options("m", base_url="https://me:hunter2-pass@example.com/v1", api_key=KEY, env={})
    assert o.hide(f"{KEY} and https://me:hunter2-pass@example.com") == (
        "*** and https://me:***@example.com"
    )


def test_redact_replaces_the_key_and_its_start() -> None:
    secret = Secret(KEY)
    assert redact(f"bad key {KEY}!", secret) == "bad key ***!"
    assert redact(f"bad key {KEY[:8]}…", secret) == "bad key ***…"
    assert redact("nothing", None) == "nothing"


def test_llm_bot_from_spec_and_check_llm_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:5/v1")
    bot = llm_bot_from_spec("llm:m?timeout=5")
    assert bot.options.timeout == 5.0 and bot.options.api_key == Secret(KEY)
    assert check_llm_spec("llm:m?timeout=5") is None
    with pytest.raises(LlmSpecError):
        check_llm_spec("llm:m?timeout=-5")
