"""One chat completion from an OpenAI-compatible server: ``POST {base_url}/chat/completions``.

Bounded everywhere (docs/llm_agents.md, "Timeouts, concurrency and Ctrl-C"):

* a request waits for one of the endpoint's ``concurrency`` slots (:mod:`panda_core.llm.slots`)
  at most ``timeout`` seconds;
* it connects within ``min(timeout, 10)`` seconds, and each read waits at most ``timeout``; the
  whole answer must have arrived ``timeout`` seconds after it was sent (checked as its bytes
  arrive, so a server that trickles one byte a second is cut off too);
* the answer's body is at most :data:`MAX_RESPONSE_BYTES` once decompressed (read in pieces and
  refused as soon as it is larger, never held whole);
* the request runs in the calling thread, so Ctrl-C (``KeyboardInterrupt``) and the arena's move
  timer (``MoveTimeout``) reach it wherever it waits: both are raised as they are, never turned
  into a failure of the model.

Whatever goes wrong is a :class:`ChatFailure` with a kind and a message written here (the
server's own words are cut to a few hundred characters; nothing shows the key).
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from panda_core._args import cut
from panda_core._strict_json import strict_loads
from panda_core.llm.options import LlmOptions
from panda_core.llm.slots import SlotTimeout, slot

__all__ = [
    "MAX_RESPONSE_BYTES",
    "ChatFailure",
    "FailureKind",
    "Reply",
    "chat",
    "close_clients",
]

MAX_RESPONSE_BYTES = 1 << 20
"""Largest answer body taken from a server (1 MiB; a chat answer is a few kB)."""
MAX_CONNECT = 10.0
"""Longest wait to connect (seconds), when the timeout is longer."""
MAX_RETRY_AFTER = 30.0
"""Longest ``Retry-After`` honoured (seconds)."""
_ERROR_CHARS = 300
_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})

FailureKind = Literal["timeout", "connection", "http", "bad_response", "too_large"]


@dataclass(frozen=True)
class Reply:
    """A server's answer: the model's text and what the request cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    usage: bool
    """Whether the answer said its token counts (``usage``); without it both counts are 0."""
    seconds: float
    """From sending the request to the last byte of the answer."""
    waited: float
    """Seconds spent waiting for a concurrency slot before sending."""


class ChatFailure(Exception):
    """A request that gave no answer to read: ``kind`` says what happened."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        seconds: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.seconds = seconds

    @property
    def retryable(self) -> bool:
        """Whether asking again may help (a timeout, a dropped connection, a garbled or huge
        answer, HTTP 408/409/425/429 and 5xx); a refusal (401, 403, 404, 400 …) will not."""
        if self.kind != "http":
            return True
        return self.status is not None and (self.status in _RETRYABLE_STATUS or self.status >= 500)


_clients: dict[tuple[int, float], httpx.Client] = {}
_clients_lock = threading.Lock()


def _client(timeout: float) -> httpx.Client:
    """This process's client for requests of ``timeout`` seconds (kept: its connections are
    reused from one decision to the next). Keyed by the process too: a client is not carried
    across a fork."""
    key = (os.getpid(), timeout)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = httpx.Client(
                timeout=httpx.Timeout(timeout, connect=min(timeout, MAX_CONNECT)),
                follow_redirects=False,
            )
            _clients[key] = client
        return client


def close_clients() -> None:
    """Close this process's clients (their connections); the next request opens new ones."""
    with _clients_lock:
        mine = [k for k in _clients if k[0] == os.getpid()]
        clients = [_clients.pop(k) for k in mine]
    for client in clients:
        client.close()


def _request_body(options: LlmOptions, messages: list[dict[str, str]]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": options.model, "messages": messages}
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.max_tokens is not None:
        body["max_tokens"] = options.max_tokens
    return body


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        return None
    if math.isnan(seconds) or seconds < 0:
        return None
    return min(seconds, MAX_RETRY_AFTER)


def _server_words(body: bytes) -> str:
    """What an error body says, briefly: its ``error.message`` if it is OpenAI's JSON, else the
    start of the text."""
    try:
        data = strict_loads(body)
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            message = data["error"].get("message")
            if isinstance(message, str):
                return cut(message)
    except ValueError:
        pass
    text = body[:_ERROR_CHARS].decode("utf-8", "replace")
    return cut(" ".join(text.split()))


_MAX_TOKENS_COUNT = 1 << 40
"""Largest token count taken from an answer's ``usage`` (far above any context)."""


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key, 0)
    if type(value) is not int or not 0 <= value <= _MAX_TOKENS_COUNT:
        raise ChatFailure("bad_response", f"usage.{key} is not a count")
    return value


def _reply(body: bytes, seconds: float, waited: float) -> Reply:
    """The model's text from a completion's JSON body (:class:`ChatFailure` if it is none)."""
    try:
        data = strict_loads(body)
    except ValueError as err:
        raise ChatFailure("bad_response", f"the answer is not JSON ({err})") from None
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatFailure("bad_response", "the answer has no choices[0]")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if content is None:  # a refusal, or an answer of tool calls only: no text to read
        content = ""
    if not isinstance(content, str):
        raise ChatFailure("bad_response", "choices[0].message.content is not text")
    usage = data.get("usage")
    if isinstance(usage, dict):
        prompt, completion = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
        return Reply(content, prompt, completion, True, seconds, waited)
    return Reply(content, 0, 0, False, seconds, waited)


def chat(options: LlmOptions, messages: list[dict[str, str]]) -> Reply:
    """The model's answer to ``messages`` (see the module docs for every bound);
    :class:`ChatFailure` when there is none. ``KeyboardInterrupt`` and other ``BaseException``
    s pass through untouched."""
    try:
        return _chat(options, messages)
    except ChatFailure as failure:
        failure.message = options.hide(failure.message)
        failure.args = (failure.message,)
        raise


def _chat(options: LlmOptions, messages: list[dict[str, str]]) -> Reply:
    headers = {"Accept": "application/json"}
    if options.api_key is not None:
        headers["Authorization"] = f"Bearer {options.api_key.reveal()}"
    url = f"{options.base_url}/chat/completions"
    timeout = options.timeout
    sent = time.monotonic()
    try:
        with slot(options.endpoint, options.concurrency, timeout) as waited:
            sent = time.monotonic()
            with _client(timeout).stream(
                "POST", url, json=_request_body(options, messages), headers=headers
            ) as response:
                body = _read(response, sent, timeout)
                seconds = time.monotonic() - sent
                if not 200 <= response.status_code < 300:
                    raise ChatFailure(
                        "http",
                        f"HTTP {response.status_code} from the server: {_server_words(body)}",
                        status=response.status_code,
                        retry_after=_retry_after(response),
                        seconds=seconds,
                    )
            return _reply(body, seconds, waited)
    except SlotTimeout as err:
        raise ChatFailure("timeout", f"{err} (concurrency {options.concurrency})") from None
    except httpx.TimeoutException:
        raise ChatFailure(
            "timeout",
            f"no answer within the timeout ({timeout:g} s)",
            seconds=time.monotonic() - sent,
        ) from None
    except httpx.TransportError as err:
        raise ChatFailure(
            "connection",
            f"the connection failed ({type(err).__name__}: {cut(str(err))})",
            seconds=time.monotonic() - sent,
        ) from None
    except httpx.HTTPError as err:  # a body that cannot be decoded, and the like
        raise ChatFailure(
            "bad_response",
            f"the answer cannot be read ({type(err).__name__}: {cut(str(err))})",
            seconds=time.monotonic() - sent,
        ) from None


def _read(response: httpx.Response, sent: float, timeout: float) -> bytes:
    """The body, bounded in size and in time (see the module docs)."""
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > MAX_RESPONSE_BYTES:
        raise ChatFailure(
            "too_large",
            f"the answer is {int(declared):,} bytes; at most {MAX_RESPONSE_BYTES:,} are read",
        )
    pieces: list[bytes] = []
    size = 0
    for piece in response.iter_bytes():
        size += len(piece)
        if size > MAX_RESPONSE_BYTES:
            raise ChatFailure(
                "too_large", f"the answer is over {MAX_RESPONSE_BYTES:,} bytes; it was cut off"
            )
        pieces.append(piece)
        if time.monotonic() - sent > timeout:
            raise ChatFailure(
                "timeout",
                f"the answer was still arriving after the timeout ({timeout:g} s)",
                seconds=time.monotonic() - sent,
            )
    return b"".join(pieces)
