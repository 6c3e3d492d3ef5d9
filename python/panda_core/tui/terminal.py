"""The console and the keyboard: one place that knows whether we draw in colour or plain text.

Input is read a line at a time from ``sys.stdin`` (never through ``readline``, which can write
escape codes of its own), so the same commands work on a terminal and through a pipe.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console, RenderableType
from rich.text import Text

MAX_INPUT = 200
"""Longest line accepted (a move's notation is far shorter); longer lines are refused."""


class InputRefused(Exception):
    """A line that is no command at all (too long, control characters): the message says why."""


def make_console(plain: bool, file: TextIO | None = None) -> Console:
    """Colours on a terminal; plain text, without a single escape code, with ``plain`` or when
    the output is not a terminal (rich decides that from the stream)."""
    out = file or sys.stdout
    if plain or not out.isatty():
        return Console(
            file=out,
            force_terminal=False,
            no_color=True,
            color_system=None,
            highlight=False,
            emoji=False,
            width=80,
            soft_wrap=False,
        )
    return Console(file=out, highlight=False, emoji=False)


@dataclass
class Terminal:
    """The console to draw on and the stream to read lines from."""

    console: Console
    stdin: TextIO

    @property
    def interactive(self) -> bool:
        """Whether screens are redrawn in place (a terminal) rather than printed one by one."""
        return self.console.is_terminal

    @property
    def height(self) -> int:
        return self.console.size.height if self.interactive else 24

    def show(self, screen: RenderableType) -> None:
        """Draw a whole screen: on a terminal the previous one is cleared first."""
        if self.interactive:
            self.console.clear()
        else:
            self.console.print()
        self.console.print(screen)

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style, overflow="ellipsis", no_wrap=True))

    def read(self, prompt: str = "> ") -> str | None:
        """One line without its newline, or ``None`` at end of input (Ctrl-D, a closed pipe).

        Raises :class:`InputRefused` for a line no command can be (too long, control
        characters); ``KeyboardInterrupt`` passes through (the caller saves and quits).
        """
        self.console.print(Text(prompt), end="")
        self.console.file.flush()
        line = self.stdin.readline(MAX_INPUT * 20)
        if line == "":
            return None
        if not line.endswith("\n") and len(line) >= MAX_INPUT * 20:
            # Throw away the rest of an overlong line so it is not read as the next command.
            while not line.endswith("\n"):
                line = self.stdin.readline(MAX_INPUT * 20)
                if line == "":
                    break
            raise InputRefused(f"input too long (at most {MAX_INPUT} characters)")
        line = line.rstrip("\r\n")
        if len(line) > MAX_INPUT:
            raise InputRefused(f"input too long (at most {MAX_INPUT} characters)")
        if any(ord(c) < 32 or ord(c) == 127 for c in line):
            raise InputRefused("control characters (arrow keys, escapes) are not commands")
        return line.strip()

    def wait_enter(self, prompt: str = "press Enter to continue") -> bool:
        """Wait for Enter; ``False`` at end of input. Whatever else is typed is ignored."""
        while True:
            try:
                return self.read(f"{prompt} ") is not None
            except InputRefused:
                continue
