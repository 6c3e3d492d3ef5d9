"""A child process that speaks one line per message on its stdin and stdout, bounded in bytes and
in time: the transport of a protocol bot run as a subprocess (``exec:COMMAND``,
:mod:`panda_core.protocol.exec_bot`), and of the table's contained Python bot.

Nothing the child does can block the engine past a deadline or make it hold more than a line's
bytes: every read and write is non-blocking under ``poll`` with a deadline, a line longer than
the caller's limit is refused as soon as its bytes pass the limit, and what the child writes to
its stderr is passed on to this process's ``sys.stderr`` up to :data:`STDERR_BYTES` per game
(:meth:`LineProcess.new_game`), the rest dropped (its last line is kept to say why a process
ended). stderr is read whenever the engine waits on the child, so a child that writes much of it
never stalls on a full pipe while it thinks.

The child dies with this process: it is started from one long-lived thread (``prctl``'s death
signal fires when the *thread* that started a child ends), arms ``PR_SET_PDEATHSIG`` with
``SIGKILL`` on Linux in a few lines of Python that then exec the command (the signal survives
the exec; about 15 ms, once per process), and runs in a session of its own (a Ctrl-C at the
terminal is the person's, not the bot's). It is killed with its whole process group
(``SIGKILL``: a bot that ignores ``SIGTERM`` goes too) by :meth:`LineProcess.kill`, when the
object is collected and at exit.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

__all__ = ["STDERR_BYTES", "BadLine", "LineProcess", "ProcessGone", "launch"]

STDERR_BYTES = 64 << 10
"""What is passed on of a child's stderr per game; the rest is dropped, with one note."""
_TAIL_BYTES = 2000
"""The end of a child's stderr kept to say why it ended."""
_CHUNK = 64 << 10
_REAP_SECONDS = 5.0


class ProcessGone(Exception):
    """The child ended, or closed its stdout or stdin; the message says how, in words."""


class BadLine(Exception):
    """The child sent a line longer than allowed (the message says how long)."""


# ---- starting a child ---------------------------------------------------------------------------

# The child arms its death signal itself, then becomes the bot: a tiny Python program that calls
# prctl and execs the command (the signal survives the exec). Nothing runs between fork and exec
# in this process (no preexec_fn: a forked child of a threaded process may wait forever on a
# lock a thread held at the fork).
_BOOT = """\
import os, sys
parent, argv = int(sys.argv[1]), sys.argv[2:]
if sys.platform.startswith("linux"):
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass
if os.getppid() != parent:  # the parent died before the signal was armed
    os._exit(1)
try:
    os.execvp(argv[0], argv)
except OSError as err:
    sys.stderr.write(f"panda-core: cannot start the bot {argv[0]!r}: {err.strerror}\\n")
    os._exit(127)
"""

_launchers: dict[int, ThreadPoolExecutor] = {}
_launchers_lock = threading.Lock()


def _launcher() -> ThreadPoolExecutor:
    """This process's one launching thread (a new one in a forked child: threads do not cross a
    fork)."""
    pid = os.getpid()
    with _launchers_lock:
        found = _launchers.get(pid)
        if found is None:
            _launchers.clear()
            found = ThreadPoolExecutor(max_workers=1, thread_name_prefix="panda-core launcher")
            _launchers[pid] = found
        return found


def launch(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with its three standard streams piped, in a session of its own, dying with
    this process (see the module docs). A program that does not exist ends at once (exit
    status 127, saying so on its stderr); ``OSError`` if no process can be started at all."""
    args = [sys.executable, "-I", "-S", "-c", _BOOT, str(os.getpid()), *argv]

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=None if env is None else dict(env),
            cwd=cwd,
            start_new_session=True,
        )

    try:
        future = _launcher().submit(start)
    except RuntimeError:  # the launcher is gone (interpreter shutdown): start it from here
        return start()
    return future.result()


def _kill(proc: subprocess.Popen[bytes], fds: Sequence[int]) -> None:
    """Kill ``proc``'s process group, close our ends of its pipes and reap it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            with contextlib.suppress(OSError):
                proc.kill()
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=_REAP_SECONDS)  # unkillable (a stopped debugger?): left to init


# ---- the line process ---------------------------------------------------------------------------


class LineProcess:
    """A running child and the bytes it sent that were not taken yet (see the module docs)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stderr_bytes: int = STDERR_BYTES,
    ) -> None:
        self.argv = tuple(argv)
        self.proc = launch(argv, env=env, cwd=cwd)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        # Our ends are used as bare descriptors: the file objects would buffer.
        self.stdin_fd = os.dup(self.proc.stdin.fileno())
        self.stdout_fd = os.dup(self.proc.stdout.fileno())
        self.stderr_fd: int | None = os.dup(self.proc.stderr.fileno())
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            stream.close()
        for fd in (self.stdin_fd, self.stdout_fd, self.stderr_fd):
            os.set_blocking(fd, False)
        self.buffer = b""
        self.output_closed = False
        self._stderr_bytes = stderr_bytes
        self._stderr_left = stderr_bytes
        self._stderr_tail = b""
        self._finalizer = weakref.finalize(
            self, _kill, self.proc, (self.stdin_fd, self.stdout_fd, self.stderr_fd)
        )

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def alive(self) -> bool:
        return self._finalizer.alive and self.proc.poll() is None

    def new_game(self) -> None:
        """A new game: the stderr allowance starts again."""
        self._stderr_left = self._stderr_bytes

    # ---- stderr ----

    def _drain_stderr(self) -> None:
        """Take what the child wrote to stderr (without waiting): pass it on within the
        allowance, keep its tail."""
        fd = self.stderr_fd if self._finalizer.alive else None
        while fd is not None:
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:  # the child closed its stderr (or ended); closed by kill()
                self.stderr_fd = fd = None
                return
            self._stderr_tail = (self._stderr_tail + chunk)[-_TAIL_BYTES:]
            self._pass_on(chunk)

    def _pass_on(self, chunk: bytes) -> None:
        if self._stderr_left <= 0:
            return
        shown = chunk[: self._stderr_left]
        self._stderr_left -= len(chunk)
        text = shown.decode("utf-8", "replace")
        if self._stderr_left <= 0:
            text += (
                f"\n[panda-core: the bot's stderr is cut after {self._stderr_bytes} bytes "
                "this game]\n"
            )
        with contextlib.suppress(Exception):  # a closed or broken stderr of ours: nothing shown
            sys.stderr.write(text)
            sys.stderr.flush()

    def last_words(self) -> str:
        """The last line the child wrote to stderr (cut), or ``""``."""
        self._drain_stderr()
        lines = [x for x in self._stderr_tail.decode("utf-8", "replace").splitlines() if x.strip()]
        if not lines:
            return ""
        last = lines[-1].strip()
        return last if len(last) <= 200 else last[:200] + "…"

    # ---- waiting ----

    def _wait(self, fd: int, event: int, deadline: float) -> bool:
        """Wait until ``fd`` is ready for ``event`` (draining stderr meanwhile); ``False`` when
        the deadline passed first."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            poller = select.poll()
            poller.register(fd, event)
            if self.stderr_fd is not None:
                poller.register(self.stderr_fd, select.POLLIN)
            ready = [got for got, _ in poller.poll(max(1, min(left * 1000, 1 << 30)))]
            # stderr first, even when ``fd`` is ready too: a child writes its log before its
            # answer, and the two are usually ready together. Returning without draining would
            # leave the log in the pipe until a wait found stderr ready alone, or lose it with
            # a pooled process killed at exit.
            if self.stderr_fd is not None and self.stderr_fd in ready:
                self._drain_stderr()
            if fd in ready:
                return True

    def ended(self) -> str:
        """How the child is gone (or why it stopped answering), in words, with its last line on
        stderr when it wrote one."""
        code = self.proc.poll()
        if code is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(timeout=0.1)  # it is usually on its way out
        if code is None:
            said = (
                "the bot's process closed its output"
                if self.output_closed
                else ("the bot's process stopped answering")
            )
        elif code < 0:
            name = _signal_name(-code)
            said = f"the bot's process was killed by signal {-code}{name}"
        else:
            said = f"the bot's process ended (exit status {code})"
        words = self.last_words()
        return f"{said}; its last words on stderr: {words}" if words else said

    # ---- lines ----

    def _check_open(self) -> None:
        if not self._finalizer.alive:
            raise ProcessGone("the bot's process was stopped")

    def write(self, data: bytes, deadline: float) -> None:
        """Send ``data`` whole before ``deadline`` (``TimeoutError``); :class:`ProcessGone` if the
        child closed its stdin or ended."""
        self._check_open()
        view = memoryview(data)
        while view:
            if not self._wait(self.stdin_fd, select.POLLOUT, deadline):
                raise TimeoutError
            try:
                view = view[os.write(self.stdin_fd, view) :]
            except BlockingIOError:
                continue
            except OSError as err:  # BrokenPipeError: it closed its stdin or died
                raise ProcessGone(self.ended()) from err

    def has_unread(self) -> bool:
        """Whether the child sent anything not taken yet (checked without waiting)."""
        if self.buffer:
            return True
        self._check_open()
        poller = select.poll()
        poller.register(self.stdout_fd, select.POLLIN)
        return any(mask & select.POLLIN for _, mask in poller.poll(0))

    def read_line(self, deadline: float, limit: int) -> bytes:
        """The next line, without its ``\\n``, before ``deadline`` (``TimeoutError``);
        :class:`BadLine` for a line over ``limit`` bytes (refused as soon as that many bytes came
        without a newline); :class:`ProcessGone` when the child closed its stdout."""
        while b"\n" not in self.buffer:
            if len(self.buffer) > limit:
                raise BadLine(f"sent a line of more than {limit} bytes")
            if not self._wait(self.stdout_fd, select.POLLIN, deadline):
                raise TimeoutError
            try:
                chunk = os.read(self.stdout_fd, min(_CHUNK, limit + 2))
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.output_closed = True
                raise ProcessGone(self.ended())
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(line) > limit:
            raise BadLine(f"sent a line of {len(line)} bytes; at most {limit}")
        return line

    def kill(self) -> None:
        """Kill the child and its process group (see the module docs); idempotent."""
        if self._finalizer.alive:
            self._drain_stderr()
        self._finalizer()
        self.stderr_fd = None

    def stop(self, goodbye: bytes | None = None, grace: float = 0.1) -> None:
        """Send ``goodbye`` (best effort), give the child ``grace`` seconds to end by itself,
        then :meth:`kill` it."""
        if goodbye is not None and self.alive:
            with contextlib.suppress(OSError, TimeoutError, ProcessGone):
                self.write(goodbye, time.monotonic() + grace)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        self.kill()


def _signal_name(number: int) -> str:
    try:
        return f" ({signal.Signals(number).name})"
    except ValueError:
        return ""
