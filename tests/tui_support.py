"""Driving the terminal front-end through a real pseudo-terminal (pexpect) and reading what a
person would see on an 80×24 screen (pyte, a VT100 emulator).

Everything the child writes goes both into a pyte screen (the current 24 lines) and into a
transcript (all of it, escape codes included), so a test can check the screen at a prompt and
everything that was ever printed.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pyte

ROWS, COLUMNS = 24, 80
TIMEOUT = 30
"""Seconds any single wait may take: a hung child fails the test instead of hanging CI."""

CARD = re.compile(r"\[([^\[\]\s:*]+)(?::[^\]]*)?\*?\]")
"""A card as the front-end draws it: ``[token]``, ``[token:face]`` or ``[token*]``."""
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[()][0-9A-Za-z]|[=>78cM])")
TURN_PROMPT = r"\r\n> $"

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


class Pty:
    """``python -m panda_core.cli ARGS`` in an 80×24 pseudo-terminal."""

    def __init__(self, args: Sequence[str], cwd: Path, timeout: float = TIMEOUT) -> None:
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
        env.pop("NO_COLOR", None)
        self.screen = pyte.Screen(COLUMNS, ROWS)
        self.tap = Tap(self.screen)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "panda_core.cli", *args],
            cwd=str(cwd),
            env=env,
            dimensions=(ROWS, COLUMNS),
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
    """The numbered moves on a play screen: number -> notation (columns are 40 wide)."""
    found: dict[int, str] = {}
    for line in lines:
        for cell in (line[:40], line[40:]):
            m = re.match(r"\s*(\d+)\) (.+?)(?:  |…|$)", cell)
            if m:
                found[int(m.group(1))] = m.group(2).strip()
    return found


def tokens_of(cards: Iterable[dict[str, Any]]) -> set[str]:
    return {str(c["token"]) for c in cards}


def seen_tokens(frame: dict[str, Any]) -> set[str]:
    """Every card token a seat's frame mentions anywhere (its hand, the table, its events)."""
    seen = tokens_of(frame.get("hand") or [])
    for play in (frame.get("table") or {}).get("plays") or []:
        seen |= tokens_of(play.get("cards") or [])
    return seen
