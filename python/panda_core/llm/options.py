"""The options of an LLM entrant: the ``llm:MODEL`` spec text and :class:`LlmBot`'s keyword
arguments, checked into one :class:`LlmOptions` (docs/llm_agents.md, "The spec and its options").

Spec text is ``llm:MODEL`` with options after ``?`` as ``key=value`` pairs joined by ``&``
(values percent-encoded where they hold ``&``, ``=``, ``%`` or ``,``)::

    llm:gpt-4o-mini
    llm:qwen2.5:7b?base_url=http://127.0.0.1:11434/v1&timeout=30&max_retries=1
    llm:my-model?api_key_env=MY_KEY&on_failure=fallback:heuristic

The base URL comes from ``base_url=``, else ``OPENAI_BASE_URL``, else OpenAI's. The key comes
from ``OPENAI_API_KEY``, or from the variable that ``api_key_env=`` names; spec text never holds
a key (the spec is written into every result), and ``api_key=`` in it is refused without quoting
it. The key lives in a :class:`Secret`, which no ``repr``, ``str``, message or result shows.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from panda_core._args import cut, shown
from panda_core._core import RulesError, check_bot
from panda_core.llm.errors import LlmSpecError

__all__ = [
    "DEFAULTS",
    "DEFAULT_BASE_URL",
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "PREFIX",
    "LlmOptions",
    "Secret",
    "make_options",
    "parse_spec",
    "redact",
]

PREFIX = "llm:"
"""What every LLM entrant's spec starts with."""
ENV_BASE_URL = "OPENAI_BASE_URL"
ENV_API_KEY = "OPENAI_API_KEY"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""The base URL when neither ``base_url=`` nor ``OPENAI_BASE_URL`` gives one (as OpenAI's own
client does)."""

DEFAULTS: dict[str, Any] = {
    "timeout": 60.0,
    "max_retries": 2,
    "concurrency": 4,
    "temperature": None,
    "max_tokens": None,
    "on_failure": "forfeit",
    "backoff": 0.5,
}
"""Each option's default (``None``: not sent to the server, which uses its own)."""

MAX_TIMEOUT = 600.0
"""Longest request time accepted (seconds)."""
MAX_RETRIES = 10
MAX_CONCURRENCY = 64
MAX_TOKENS = 1 << 20
MAX_BACKOFF = 60.0
MAX_MODEL_CHARS = 200
MAX_SPEC_CHARS = 2000

_SPEC_OPTIONS = (
    "base_url",
    "api_key_env",
    "timeout",
    "max_retries",
    "concurrency",
    "temperature",
    "max_tokens",
    "on_failure",
    "backoff",
)
"""The options spec text may give (``api_key`` is not one of them)."""
_KEY_OPTIONS = frozenset({"api_key", "key", "apikey", "token"})
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_MODEL = re.compile(rf"[^\s?&#]{{1,{MAX_MODEL_CHARS}}}")


class Secret:
    """A value that is never shown: ``repr`` and ``str`` give ``'***'``; :meth:`reveal` gives it
    to the one place that sends it (the request's ``Authorization`` header)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(("Secret", self._value))

    def __reduce__(self) -> tuple[Any, ...]:  # a worker process gets the key as it was given
        return (Secret, (self._value,))


def redact(text: str, secret: Secret | None) -> str:
    """``text`` with every occurrence of ``secret`` (and of its first 8 characters, the part a
    message most often quotes) replaced by ``***``."""
    if secret is None:
        return text
    value = secret.reveal()
    if value:
        text = text.replace(value, "***")
        if len(value) >= 8:
            text = text.replace(value[:8], "***")
    return text


@dataclass(frozen=True)
class LlmOptions:
    """An LLM entrant's checked options (see the module docs; ``repr`` shows no key)."""

    model: str
    base_url: str = field(repr=False)
    """Without a trailing ``/``; the request goes to ``{base_url}/chat/completions``. It may hold
    a user name and password, so it is shown as :attr:`endpoint`."""
    api_key: Secret | None = field(repr=False)
    timeout: float
    max_retries: int
    concurrency: int
    temperature: float | None
    max_tokens: int | None
    on_failure: str
    """``"forfeit"`` or ``"fallback:BOT"`` with ``BOT`` a built-in bot."""
    backoff: float

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.public().items())
        return f"LlmOptions({shown})"

    @property
    def endpoint(self) -> str:
        """The base URL as results show it: no user name, password, query or fragment."""
        return public_url(self.base_url)

    @property
    def fallback(self) -> str | None:
        """The built-in bot that moves when the model does not (``None``: forfeit)."""
        return self.on_failure.removeprefix("fallback:") if self.on_failure != "forfeit" else None

    def hide(self, text: str) -> str:
        """``text`` with the key, and the base URL's password if it has one, replaced by
        ``***`` (every message that may carry words from elsewhere goes through this)."""
        text = redact(text, self.api_key)
        password = urlsplit(self.base_url).password
        return redact(text, Secret(password)) if password else text

    def public(self) -> dict[str, Any]:
        """The options as results and logs show them (JSON-ready, no key: only whether one is
        set)."""
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "api_key": "set" if self.api_key is not None else "none",
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "concurrency": self.concurrency,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "on_failure": self.on_failure,
            "backoff": self.backoff,
        }


def public_url(url: str) -> str:
    """``url`` without user information, query or fragment."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _base_url(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"base_url is a URL (str), got {type(value).__name__}")
    url = value.strip().rstrip("/")
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018  # raises ValueError for a port out of range
    except ValueError:
        raise LlmSpecError("base_url has a port that is not a number in 0..65535") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise LlmSpecError(
            "base_url is an http:// or https:// URL with a host, such as "
            f"http://127.0.0.1:8000/v1; got {cut(public_url(url))!r}"
        )
    if parts.query or parts.fragment:
        raise LlmSpecError("base_url takes no query or fragment (…/v1, not …/v1?x=y)")
    if len(url) > MAX_SPEC_CHARS:
        raise LlmSpecError(f"base_url is at most {MAX_SPEC_CHARS} characters")
    return url


def _number(name: str, value: object, low: float, high: float, *, low_open: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} is a number, got {shown(value)}")
    number = float(value)
    below = number <= low if low_open else number < low
    if math.isnan(number) or below or number > high:
        side = "more than" if low_open else "at least"
        raise LlmSpecError(f"{name} is {side} {low:g} and at most {high:g}, got {value!r}")
    return number


def _count(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} is an int, got {shown(value)}")
    if not low <= value <= high:
        raise LlmSpecError(f"{name} is in {low}..={high}, got {value}")
    return int(value)


def _on_failure(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"on_failure is 'forfeit' or 'fallback:BOT', got {shown(value)}")
    if value == "forfeit":
        return value
    bot = value.removeprefix("fallback:")
    if bot == value or not bot:
        raise LlmSpecError(
            "on_failure is 'forfeit' (the default: the seat forfeits the game) or "
            "'fallback:BOT' with BOT a built-in bot such as 'fallback:heuristic'; "
            f"got {cut(value)!r}"
        )
    try:
        check_bot(bot)
    except RulesError as err:
        raise LlmSpecError(f"on_failure={cut(value)!r}: {err}") from None
    return value


def _model(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"the model is a name (str), got {shown(value)}")
    if not _MODEL.fullmatch(value) or not value.isprintable():
        raise LlmSpecError(
            f"the model is a name of 1 to {MAX_MODEL_CHARS} printable characters without "
            f"spaces, '?', '&' or '#', such as 'gpt-4o-mini' or 'qwen2.5:7b'; got {shown(value)}"
        )
    return value


def make_options(
    model: object,
    *,
    base_url: object = None,
    api_key: object = None,
    timeout: object = DEFAULTS["timeout"],
    max_retries: object = DEFAULTS["max_retries"],
    concurrency: object = DEFAULTS["concurrency"],
    temperature: object = DEFAULTS["temperature"],
    max_tokens: object = DEFAULTS["max_tokens"],
    on_failure: object = DEFAULTS["on_failure"],
    backoff: object = DEFAULTS["backoff"],
    env: Mapping[str, str] | None = None,
) -> LlmOptions:
    """The checked options (``env``: where ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` are read,
    default ``os.environ``). ``TypeError`` for a value of the wrong type, :class:`LlmSpecError`
    naming the option for one out of range; neither quotes the key."""
    environ = os.environ if env is None else env
    if base_url is None:
        base_url = environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    if api_key is None:
        api_key = environ.get(ENV_API_KEY) or None
    if isinstance(api_key, str):
        if not api_key.isprintable() or len(api_key) > 4096:
            raise LlmSpecError("the API key is at most 4096 printable characters")
        api_key = Secret(api_key) if api_key else None
    if api_key is not None and not isinstance(api_key, Secret):
        raise TypeError(f"api_key is a str, got {type(api_key).__name__}")
    return LlmOptions(
        model=_model(model),
        base_url=_base_url(base_url),
        api_key=api_key,
        timeout=_number("timeout", timeout, 0.0, MAX_TIMEOUT, low_open=True),
        max_retries=_count("max_retries", max_retries, 0, MAX_RETRIES),
        concurrency=_count("concurrency", concurrency, 1, MAX_CONCURRENCY),
        temperature=None
        if temperature is None
        else _number("temperature", temperature, 0.0, 2.0, low_open=False),
        max_tokens=None if max_tokens is None else _count("max_tokens", max_tokens, 1, MAX_TOKENS),
        on_failure=_on_failure(on_failure),
        backoff=_number("backoff", backoff, 0.0, MAX_BACKOFF, low_open=False),
    )


def _spec_value(name: str, text: str) -> Any:
    """An option's value as spec text gives it, typed."""
    if name in ("timeout", "temperature", "backoff"):
        try:
            return float(text)
        except ValueError:
            raise LlmSpecError(f"{name} is a number, got {cut(text)!r}") from None
    if name in ("max_retries", "concurrency", "max_tokens"):
        if not re.fullmatch(r"[0-9]{1,9}", text):
            raise LlmSpecError(f"{name} is a whole number, got {cut(text)!r}")
        return int(text)
    return text


def parse_spec(text: object, env: Mapping[str, str] | None = None) -> LlmOptions:
    """The options of ``llm:MODEL[?key=value&...]`` (see the module docs); :class:`LlmSpecError`
    naming what is wrong (never quoting a key)."""
    if not isinstance(text, str):
        raise TypeError(f"an LLM entrant is the text 'llm:MODEL', got {shown(text)}")
    if not text.startswith(PREFIX):
        raise LlmSpecError(f"an LLM entrant starts with {PREFIX!r}: 'llm:MODEL'")
    if len(text) > MAX_SPEC_CHARS:
        raise LlmSpecError(f"an LLM entrant's spec is at most {MAX_SPEC_CHARS} characters")
    model, _, query = text[len(PREFIX) :].partition("?")
    if not model:
        raise LlmSpecError("'llm:' needs a model name: 'llm:MODEL', such as 'llm:gpt-4o-mini'")
    given: dict[str, Any] = {}
    if query:
        try:
            pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
        except ValueError:
            raise LlmSpecError(
                "the options after '?' are key=value pairs joined by '&' "
                "(llm:MODEL?timeout=30&max_retries=1)"
            ) from None
        for key, value in pairs:
            if key.lower() in _KEY_OPTIONS:
                raise LlmSpecError(
                    f"the spec cannot hold a key ({cut(key)}=… is refused and not shown): the "
                    "spec is written into every result; set OPENAI_API_KEY, or name the "
                    "variable that holds the key with api_key_env=NAME"
                )
            if key not in _SPEC_OPTIONS:
                raise LlmSpecError(
                    f"unknown option {cut(key)!r} in an LLM entrant; the options are "
                    f"{', '.join(_SPEC_OPTIONS)}"
                )
            if key in given:
                raise LlmSpecError(f"the option {key!r} is given twice")
            given[key] = _spec_value(key, value)
    environ = os.environ if env is None else env
    key_env = given.pop("api_key_env", None)
    api_key: str | None = None
    if key_env is not None:
        if not _ENV_NAME.fullmatch(key_env):
            raise LlmSpecError(
                f"api_key_env is the name of an environment variable, got {cut(key_env)!r}"
            )
        api_key = environ.get(key_env)
        if not api_key:
            raise LlmSpecError(f"api_key_env={key_env}: that environment variable is not set")
    return make_options(model, api_key=api_key, env=environ, **given)
