"""A scripted OpenAI-compatible chat-completions server for the LLM entrants' tests.

:class:`ScriptedServer` listens on 127.0.0.1 (a free port) in a thread of the test process and
answers ``POST /v1/chat/completions`` as its script says, one step per request: a model's text
(with ``usage`` counts), an HTTP error, a slow answer, a huge body, a body that is not JSON, a
trickle. When the script runs out (or for ``script=None``) it answers like a model that plays:
``MOVE: <the first legal move>`` read from the prompt's numbered list (``#1: <notation>``), so full
games and arenas can be played against it. Every request it received is kept (``requests``: the
JSON body and the headers), with the ``usage`` it answered, so a test can check what the bot was
shown and what its telemetry must say.

Worker processes of an arena reach it over the loopback like any server.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Answer",
    "Huge",
    "Raw",
    "Received",
    "ScriptedServer",
    "Slow",
    "Status",
    "Trickle",
    "first_legal",
    "legal_moves_of",
    "serve",
]

_LISTED = re.compile(r"^  #([0-9]+): (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Answer:
    """200 with a completion saying ``text``; ``usage=None`` leaves the usage out."""

    text: str
    usage: tuple[int, int] | None = (100, 5)


@dataclass(frozen=True)
class Status:
    """An HTTP error: ``status`` with ``body`` (and ``headers``, such as ``Retry-After``)."""

    status: int
    body: str = '{"error": {"message": "scripted failure"}}'
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Slow:
    """Wait ``seconds`` (in steps, so closing the server ends it), then answer ``then``."""

    seconds: float
    then: Any = None


@dataclass(frozen=True)
class Huge:
    """200 with a body of ``size`` bytes of JSON-looking text; ``length``: whether the
    Content-Length header says its size (otherwise the body is sent chunked)."""

    size: int
    length: bool = True


@dataclass(frozen=True)
class Raw:
    """200 with exactly ``body`` (text that is not a completion, or not JSON at all)."""

    body: bytes
    content_type: str = "application/json"


@dataclass(frozen=True)
class Trickle:
    """200, chunked, one byte every ``every`` seconds, ``count`` bytes in all (a server that
    never quite stops answering)."""

    every: float = 0.2
    count: int = 1000


@dataclass
class Received:
    """One request as the server saw it, and the usage it answered with (``None``: none)."""

    body: dict[str, Any]
    headers: dict[str, str]
    usage: tuple[int, int] | None = None
    answer: str | None = None
    finished: bool = False

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body.get("messages", []))

    @property
    def prompt(self) -> str:
        """The decision's prompt: the first user message."""
        return next(m["content"] for m in self.messages if m["role"] == "user")


def legal_moves_of(prompt: str) -> list[str]:
    """The notations of a prompt's numbered list, in order."""
    return [m.group(2) for m in _LISTED.finditer(prompt)]


def first_legal(received: Received) -> Answer:
    """The answer of a model that plays the first legal move listed."""
    moves = legal_moves_of(received.prompt)
    return Answer(f"I will play the first one.\nMOVE: {moves[0]}" if moves else "MOVE: ?")


Step = Answer | Status | Slow | Huge | Raw | Trickle | Callable[[Received], Any]


@dataclass
class ScriptedServer:
    """See the module docs. ``script``: the steps, one per request, then ``default``."""

    script: Sequence[Step] = ()
    default: Callable[[Received], Any] = first_legal
    requests: list[Received] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closing: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Event = field(default_factory=threading.Event)
    """Set when a request arrives (tests that wait for the bot to be inside a request)."""
    in_flight: int = 0
    most_in_flight: int = 0
    """The most requests being answered at once."""

    def __post_init__(self) -> None:
        self._steps = list(self.script)
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                server._handle(self)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def push(self, *steps: Step) -> None:
        """More steps, after those left."""
        with self._lock:
            self._steps.extend(steps)

    # ---- answering ---------------------------------------------------------------------------

    def _next(self, received: Received) -> Any:
        with self._lock:
            step: Any = self._steps.pop(0) if self._steps else self.default
        while callable(step) and not isinstance(step, type):
            step = step(received)
        return step

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = {"unreadable": raw.decode("utf-8", "replace")}
        if handler.path != "/v1/chat/completions":
            self._send(handler, 404, b'{"error": {"message": "no such path"}}')
            return
        received = Received(body=body, headers={k.lower(): v for k, v in handler.headers.items()})
        with self._lock:
            self.requests.append(received)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        self.arrived.set()
        try:
            step = self._next(received)
            self._answer(handler, received, step)
        finally:
            self._finish(received)

    def _finish(self, received: Received) -> None:
        """The request is answered (called before the answer's bytes are written, so the next
        request of a client that waited for this one never overlaps it here)."""
        with self._lock:
            if not received.finished:
                received.finished = True
                self.in_flight -= 1

    def _answer(self, handler: BaseHTTPRequestHandler, received: Received, step: Any) -> None:
        if isinstance(step, Slow):
            end = time.monotonic() + step.seconds
            while time.monotonic() < end and not self._closing.is_set():
                time.sleep(0.02)
            if self._closing.is_set():
                return
            then = step.then if step.then is not None else self.default
            while callable(then) and not isinstance(then, type):
                then = then(received)
            self._answer(handler, received, then)
        elif isinstance(step, Answer):
            received.usage = step.usage
            received.answer = step.text
            self._finish(received)
            self._send(handler, 200, json.dumps(_completion(step)).encode())
        elif isinstance(step, Status):
            self._finish(received)
            self._send(handler, step.status, step.body.encode(), step.headers)
        elif isinstance(step, Raw):
            self._finish(received)
            self._send(handler, 200, step.body, content_type=step.content_type)
        elif isinstance(step, Huge):
            self._huge(handler, step)
        elif isinstance(step, Trickle):
            self._trickle(handler, step)
        else:
            raise TypeError(f"not a step: {step!r}")

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        headers: Sequence[tuple[str, str]] = (),
        content_type: str = "application/json",
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            for key, value in headers:
                handler.send_header(key, value)
            handler.end_headers()
            handler.wfile.write(body)
        except OSError:  # the client gave up (a timeout test): nothing to tell it
            pass

    def _huge(self, handler: BaseHTTPRequestHandler, step: Huge) -> None:
        piece = b'{"padding": "' + b"x" * 65536
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            if step.length:
                handler.send_header("Content-Length", str(step.size))
            else:
                handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            sent = 0
            while sent < step.size and not self._closing.is_set():
                chunk = piece[: step.size - sent]
                if step.length:
                    handler.wfile.write(chunk)
                else:
                    handler.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                sent += len(chunk)
            if not step.length:
                handler.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client stopped reading: what a bounded reader does
            pass

    def _trickle(self, handler: BaseHTTPRequestHandler, step: Trickle) -> None:
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            for _ in range(step.count):
                if self._closing.is_set():
                    return
                handler.wfile.write(b"1\r\n \r\n")
                handler.wfile.flush()
                time.sleep(step.every)
            handler.wfile.write(b"0\r\n\r\n")
        except OSError:
            pass


def _completion(step: Answer) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": step.text},
                "finish_reason": "stop",
            }
        ],
    }
    if step.usage is not None:
        prompt, completion = step.usage
        out["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
    return out


@contextmanager
def serve(script: Sequence[Step] = (), **kwargs: Any) -> Iterator[ScriptedServer]:
    """A started :class:`ScriptedServer`, closed at the end of the block."""
    server = ScriptedServer(script, **kwargs).start()
    try:
        yield server
    finally:
        server.close()
