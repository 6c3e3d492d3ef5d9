"""A Python bot named by import path, contained in a worker process.

The bot's code runs only in the child (:mod:`panda_core.table.bot_child`): importing it, creating
it, ``reset`` and every move. For each decision the table sends the game's record and the seat;
the child rebuilds the game with the engine's ``from_json``, asks the bot and sends back a plain
move (an action id or a notation). The parent waits at most the table's time bound, reads at most
:data:`MAX_ANSWER_BYTES`, and on a timeout, a crash, an ``os._exit`` or an answer that is not a
JSON move kills the child, starts a fresh one at once (so it is ready for the bot's next turn)
and reports why, for the table to play its fallback. A bot that fails to start, or whose child
had to be replaced :data:`MAX_RESTARTS` times, is played by the fallback for the rest of the game.

Children die with their parent (see :mod:`~panda_core.table.bot_child`) and are killed by
:meth:`ContainedBot.close`, when the object is collected, and at interpreter exit. This contains
the bot's *failures*; it is not an information boundary: the child holds the same game (with every
hand) that the in-process bot's clone held.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import threading
import time
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from panda_core._args import cut
from panda_core._registry import AnyGame, spec_of
from panda_core.bot_answer import MAX_NOTATION, PlainMove
from panda_core.table.errors import TableError

__all__ = ["MAX_ANSWER_BYTES", "MAX_RESTARTS", "START_TIME", "ContainedBot"]

START_TIME = 30.0
"""Seconds a fresh child may take to import and create its bot (a loaded machine is slow)."""
MAX_ANSWER_BYTES = 4096
"""The longest answer line read from a child (a move is a few dozen bytes)."""
MAX_RESTARTS = 10
"""Children replaced in one game before the seat is left to the fallback."""

_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from panda_core.table.bot_child import main; main(int(sys.argv[2]))"
)

# prctl(PR_SET_PDEATHSIG) fires when the *thread* that started the child ends, so children are
# started from one thread that lives as long as the process, whichever thread asked.
_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="panda-core bot launcher")


REASON_CHARS = 300
"""The longest reason taken from a child (it words the bot's failure; the parent shows it)."""


def _clip(text: str) -> str:
    return text if len(text) <= REASON_CHARS else f"{text[:REASON_CHARS]}…"


class _Failed(Exception):
    """The child failed this request; the message is the reason the table reports."""


def _popen() -> subprocess.Popen[bytes]:
    path = [p for p in sys.path if isinstance(p, str)]  # the bot imports as this process would
    args = [sys.executable, "-c", _BOOT, json.dumps(path), str(os.getpid())]

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C at the terminal is the person's, not the bot's
        )

    try:
        return _LAUNCHER.submit(start).result()
    except RuntimeError:  # the launcher is gone (interpreter shutdown): start it from here
        return start()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        try:
            proc.kill()
        except OSError:
            pass
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # unkillable (a stopped debugger?): leave it to init
        pass


class _Child:
    """One worker process and the bytes it sent that were not read yet."""

    def __init__(self, path: str, reset: int | None) -> None:
        self.proc = _popen()
        self.buffer = b""
        self.ready = False
        self.started = time.monotonic()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin_fd = self.proc.stdin.fileno()
        self.stdout_fd = self.proc.stdout.fileno()
        os.set_blocking(self.stdin_fd, False)
        os.set_blocking(self.stdout_fd, False)
        self.finalizer = weakref.finalize(self, _kill, self.proc)
        try:
            self.send({"path": path, "reset": reset}, time.monotonic() + START_TIME)
        except (_Failed, TimeoutError):
            pass  # it died at once: the first receive() says how

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ended(self) -> str:
        """Why the process is gone, in words."""
        code = self.proc.poll()
        if code is None:
            return "the bot's process stopped answering"
        if code < 0:
            return f"the bot's process was killed by signal {-code}"
        return f"the bot's process ended (exit status {code})"

    def send(self, message: dict[str, Any], deadline: float) -> None:
        data = (json.dumps(message) + "\n").encode()
        poller = select.poll()
        poller.register(self.stdin_fd, select.POLLOUT)
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not poller.poll(left * 1000):
                continue
            try:
                data = data[os.write(self.stdin_fd, data) :]
            except BlockingIOError:
                continue
            except OSError as err:  # BrokenPipeError: it died
                raise _Failed(self.ended()) from err

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next answer line; ``TimeoutError`` at ``deadline``, :class:`_Failed` for an
        ended process or a line that is no JSON object of at most MAX_ANSWER_BYTES."""
        poller = select.poll()
        poller.register(self.stdout_fd, select.POLLIN)
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_ANSWER_BYTES:
                raise _Failed(f"answered more than {MAX_ANSWER_BYTES} bytes: not a move")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            if not poller.poll(left * 1000):
                continue
            try:
                chunk = os.read(self.stdout_fd, MAX_ANSWER_BYTES + 1)
            except BlockingIOError:
                continue
            if not chunk:
                self.proc.wait(timeout=5)  # EOF: it is gone (or closed its end)
                raise _Failed(self.ended())
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > MAX_ANSWER_BYTES:
            raise _Failed(f"answered more than {MAX_ANSWER_BYTES} bytes: not a move")
        try:
            message = json.loads(line)
        except ValueError as err:
            raise _Failed(f"answered junk, not a move: {cut(repr(line[:60]))}") from err
        if not isinstance(message, dict):
            raise _Failed(f"answered junk, not a move: {cut(repr(line[:60]))}")
        return message

    def close(self) -> None:
        self.finalizer()


class ContainedBot:
    """The bot at import path ``path`` in a worker process (see the module docs)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._reset: int | None = None
        self._child: _Child | None = None
        self._lock = threading.Lock()  # one decision at a time
        self._given_up: str | None = None
        self.restarts = 0
        """Children replaced (after a failure) in this game."""

    def __repr__(self) -> str:
        return f"ContainedBot({self.path!r})"

    @property
    def pid(self) -> int | None:
        """The worker's process id (``None`` when none is running)."""
        child = self._child
        return None if child is None else child.pid

    def reset(self, seed: int) -> None:
        """A new game: a fresh child whose bot is reset with ``seed`` (as ``reset_bots`` does)."""
        with self._lock:
            self._reset = seed
            self._given_up = None
            self.restarts = 0
            try:
                self._replace()  # it imports while the other seats are set up
            except _Failed:
                pass  # check_started() or the first ask() tries again and says why

    def check_started(self, timeout: float = START_TIME) -> None:
        """Wait until the child has imported and created the bot; ``TableError`` with its
        message (a missing module, a class that cannot be created) if it could not."""
        with self._lock:
            try:
                child = self._child if self._child is not None else self._replace()
                self._ready(child, time.monotonic() + timeout)
            except TimeoutError:
                self._stop()
                raise TableError(
                    f"the bot {cut(self.path)!r} did not start within {timeout:g} s"
                ) from None
            except _Failed as err:
                self._stop()
                raise TableError(f"the bot {cut(self.path)!r} cannot play: {err}") from None

    def ask(self, game: AnyGame, seat: int, time_limit: float) -> tuple[PlainMove | None, str]:
        """The bot's plain move for ``seat`` and ``""``, or ``None`` and why not (the child
        is then replaced). Not checked for legality here: the table does that on a copy."""
        with self._lock:
            if self._given_up is not None:
                return None, self._given_up
            try:
                child = self._child if self._child is not None else self._replace()
                if not child.ready:  # a fresh child: it may take START_TIME to import
                    self._ready(child, max(child.started + START_TIME, time.monotonic()))
            except TimeoutError:
                return None, self._failed(f"the bot did not start within {START_TIME:g} s")
            except _Failed as err:
                return None, self._failed(f"the bot could not start: {err}")
            try:
                deadline = time.monotonic() + time_limit
                request = {"game": spec_of(game).name, "record": game.to_json(), "seat": seat}
                child.send(request, deadline)
                answer = child.receive(deadline)
            except TimeoutError:
                return None, self._failed(f"no answer within {time_limit:g} s")
            except _Failed as err:
                return None, self._failed(str(err))
            except BaseException:  # Ctrl-C mid-request: its answer must never be read later
                self._stop()
                raise
            return self._read(answer)

    def _read(self, answer: dict[str, Any]) -> tuple[PlainMove | None, str]:
        if set(answer) == {"error"} and isinstance(answer["error"], str):
            return None, _clip(answer["error"])  # the bot raised: its child is still fine
        move = answer.get("move")
        if set(answer) != {"move"} or type(move) not in (int, str):
            return None, self._failed(f"answered junk, not a move: {cut(repr(answer))}")
        if type(move) is str and len(move) > MAX_NOTATION:
            return None, self._failed(f"answered a notation longer than {MAX_NOTATION}")
        return move, ""

    def _ready(self, child: _Child, deadline: float) -> None:
        if child.ready:
            return
        message = child.receive(deadline)
        if message != {"ready": True}:
            said = message.get("error")
            raise _Failed(_clip(said) if isinstance(said, str) else "it did not start")
        child.ready = True

    def _failed(self, reason: str) -> str:
        """Replace the child after ``reason`` (or give up on it); the reason to report."""
        self.restarts += 1
        if self.restarts < MAX_RESTARTS:
            try:
                self._replace()
                return reason
            except _Failed as err:
                reason = f"{reason}; {err}"
        self._stop()
        self._given_up = (
            f"{reason}; after {self.restarts} failures the fallback plays this seat for the rest "
            "of the game"
        )
        return self._given_up

    def _replace(self) -> _Child:
        self._stop()
        try:
            self._child = _Child(self.path, self._reset)
        except OSError as err:  # no process could be started (a process or file limit)
            raise _Failed(f"could not start the bot's process: {err}") from err
        return self._child

    def _stop(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None

    def close(self) -> None:
        """Kill the child (the table's game is over); a later :meth:`ask` starts a new one."""
        with self._lock:
            self._stop()
