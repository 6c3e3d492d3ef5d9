"""Driving the terminal front-end through a real pseudo-terminal (pexpect) and reading what a
person would see on an 80×24 screen (pyte, a VT100 emulator).

Everything the child writes goes both into a pyte screen (the current 24 lines) and into a
transcript (all of it, escape codes included), so a test can check the screen at a prompt and
everything that was ever printed.
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import subprocess
import sys
import termios
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pyte
from pexpect.fdpexpect import fdspawn

ROWS, COLUMNS = 24, 80
TIMEOUT = 30
"""Seconds any single wait may take: a hung child fails the test instead of hanging CI."""

CARD = re.compile(r"\[([^\[\]\s:*]+)(?::[^\]]*)?\*?\]")
"""A card as the front-end draws it: ``[token]``, ``[token:face]`` or ``[token*]``."""
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78cM])")
TURN_PROMPT = r"\r\n> $"
REPR = re.compile(r"\[\d+, \d+|\{'|\(\d+, \d+\)|None\b")
"""Python's own spelling of a list, dict, tuple or None: never on a screen (issue 22)."""

# What the prompts of the front-end look like (tests wait for them).
ENTER = "press Enter to continue "
READY = r"Seat \d+: press Enter when ready "


class Tap:
    """pexpect's ``logfile_read``: feeds the pyte screen and keeps the transcript."""

    def __init__(self, screen: pyte.Screen) -> None:
        self.stream = pyte.Stream(screen)
        self.parts: list[str] = []

    def write(self, data: str) -> None:
        self.parts.append(data)
        self.stream.feed(data)

    def flush(self) -> None:
        pass


# The child's first act: take the pseudo-terminal (its stdin) as its controlling terminal, as
# pexpect's child does between fork and exec, so that Ctrl-C and window sizes reach it; then
# become the front-end. It runs after exec, in a fresh interpreter.
_TAKE_TERMINAL = (
    "import fcntl, os, sys, termios; fcntl.ioctl(0, termios.TIOCSCTTY, 0); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


class PtyChild(fdspawn):  # type: ignore[misc]
    """pexpect over the master side of a pseudo-terminal whose child ``subprocess`` started.

    Not ``pexpect.spawn``: that forks the test process (``pty.fork``) and runs Python in the
    child before exec, which can deadlock in a process with threads (the engine's pool, JAX's
    once a trainer test ran: JAX warns at every fork). ``subprocess`` execs at once, so no test
    process ever forks (``conftest.py`` fails a test that does)."""

    def __init__(self, argv: Sequence[str], cwd: Path, env: dict[str, str], **kw: Any) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _TAKE_TERMINAL, *argv],
                cwd=cwd,
                env=env,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                start_new_session=True,  # a session of its own, so the terminal can be its own
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)  # the child's copies only: its exit then reads as EOF here
        super().__init__(master, **kw)
        self.pid = self.proc.pid  # the front-end's: the shim above exec'd into it
        self.exitstatus: int | None = None
        self.signalstatus: int | None = None

    def _control(self, which: int) -> None:
        """Type the terminal's control character ``which`` (``termios.VINTR``, ``VEOF``)."""
        char = termios.tcgetattr(self.child_fd)[6][which]
        self.send(char.decode() if isinstance(char, bytes) else chr(char))

    def sendintr(self) -> None:
        self._control(termios.VINTR)

    def sendeof(self) -> None:
        self._control(termios.VEOF)

    def isalive(self) -> bool:
        return self.proc.poll() is None

    def terminate(self, force: bool = False) -> bool:
        self.proc.kill() if force else self.proc.terminate()
        return True

    def close(self, force: bool = True) -> None:
        """Close the terminal (the child gets SIGHUP) and reap the child, killed if it lingers."""
        super().close()
        try:
            code = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.exitstatus, self.signalstatus = (code, None) if code >= 0 else (None, -code)


class Pty:
    """``python -m panda_core.cli ARGS`` in an 80×24 pseudo-terminal."""

    def __init__(self, args: Sequence[str], cwd: Path, timeout: float = TIMEOUT) -> None:
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
        env.pop("NO_COLOR", None)
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.tap = Tap(self.screen)
        self.child = PtyChild(
            ["-m", "panda_core.cli", *args],
            cwd,
            env,
            encoding="utf-8",
            codec_errors="replace",
            timeout=timeout,
        )
        self.child.logfile_read = self.tap

    def expect(self, patterns: Any) -> int:
        return int(self.child.expect(patterns))

    def send(self, line: str) -> None:
        self.child.sendline(line)

    def display(self) -> list[str]:
        return [row.rstrip() for row in self.screen.display]

    def text(self) -> str:
        return "\n".join(self.display())

    @property
    def transcript(self) -> str:
        return "".join(self.tap.parts)

    def close(self) -> int | None:
        """Wait briefly for the child to exit (killing it if it does not); its exit status."""
        if self.child.isalive():
            try:
                self.child.expect(pexpect.EOF, timeout=5)
            except pexpect.TIMEOUT:
                self.child.terminate(force=True)
        self.child.close()
        return (
            self.child.exitstatus if self.child.exitstatus is not None else self.child.signalstatus
        )


def plain(text: str) -> str:
    """The transcript without escape codes and carriage returns."""
    return ANSI.sub("", text).replace("\r", "")


def screens(transcript: str) -> list[str]:
    """The transcript cut at every clear-screen: one string per screen drawn."""
    return [plain(part) for part in transcript.split("\x1b[2J")]


def card_tokens(text: str) -> set[str]:
    return {m.group(1) for m in CARD.finditer(text)}


def moves_on_screen(lines: Iterable[str]) -> dict[int, str]:
    """The numbered moves on a play screen: number -> notation (columns are 40 wide; a cell is
    ``12) what the move is  notation``, or just the notation when the words are the same)."""
    return {n: cell[-1] for n, cell in move_cells(lines).items()}


def move_cells(lines: Iterable[str]) -> dict[int, list[str]]:
    """The numbered moves on a play screen: number -> the cell's pieces (its words, then its
    notation when that differs), as drawn (a cut cell ends in …)."""
    found: dict[int, list[str]] = {}
    for line in lines:
        for cell in (line[:40], line[40:]):
            m = re.match(r"\s*(\d+)\) (.+)$", cell.rstrip())
            if m:
                found[int(m.group(1))] = [p.strip() for p in m.group(2).split("  ") if p.strip()]
    return found


def tokens_of(cards: Iterable[dict[str, Any]]) -> set[str]:
    return {str(c["token"]) for c in cards}


PLAY_EVENTS = (("After your", "Log"), "Your hand")
REPLAY_EVENTS = ("Latest events", "Replay: Enter/n next")


def check_hides(
    name: str,
    full: dict[str, Any],
    known: dict[str, Any],
    display: list[str],
    events: tuple[str | tuple[str, ...], str],
) -> None:
    """The screen ``display`` of one moment shows no card another seat holds unseen.

    ``full`` is the full-information frame of that moment, ``known`` the seat's own. A card of
    another hand is hidden when it does not show its blue face and the seat's own view (hand,
    table, event texts) never names it. Cards are drawn in brackets: outside the event lines
    (the model's texts) every bracketed card must be in the seat's hand or on the table. The
    climbing games' tokens (``Ea8``) are unique, so there a hidden card's token must not appear
    anywhere on the screen, event lines included. (Panda Head's tokens are values, shared by
    five cards and by every number on the screen: the bracket check is the one that applies.)
    """
    text = "\n".join(display)
    visible = tokens_of(known["hand"])
    for play in (known.get("table") or {}).get("plays") or []:
        visible |= tokens_of(play.get("cards") or [])
    start = next(k for k, line in enumerate(display) if line.startswith(events[0]))
    end = next(k for k, line in enumerate(display) if line.startswith(events[1]))
    shown = card_tokens("\n".join(display[:start] + display[end:]))
    assert shown <= visible, (shown - visible, text)
    if name == "head":
        return
    check_no_hidden_token(full, known, text)


def check_no_hidden_token(full: dict[str, Any], known: dict[str, Any], text: str) -> None:
    """``text`` (any screen of a climbing game) names no card of another hand that the seat
    does not know: not blue, not in its own view (hand, table, event texts)."""
    seat = known["seat"]
    visible = tokens_of(known["hand"])
    for play in (known.get("table") or {}).get("plays") or []:
        visible |= tokens_of(play.get("cards") or [])
    said = " ".join(str(e.get("text", "")) for e in known["events"])
    for other, hand in enumerate(full["hands"]):
        if other == seat:
            continue
        for card in hand:
            token = str(card["token"])
            if card.get("face") == "blue" or token in said or token in visible:
                continue
            pattern = rf"(?<![A-Za-z0-9]){re.escape(token)}(?![0-9])"
            assert not re.search(pattern, text), (token, text)
