"""The replay viewer of ``panda-core replay``: step through a record's frames with line commands.

A frame is what the table model's :class:`~panda_core.table.Replay` gives for one moment: full
information, or with a seat exactly what that seat knew then. Commands are whole lines, so the
viewer works the same on a terminal and through a pipe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from panda_core._core import PandaCoreError
from panda_core.tui import log as tui_log
from panda_core.tui import render
from panda_core.tui.pager import page_through
from panda_core.tui.terminal import InputRefused, Terminal

if TYPE_CHECKING:
    from panda_core.table import Replay

KEYS = """Replay commands (type one and press Enter):
  Enter or n   next move            p or b   previous move
  g K          go to move K         r N      go to the start of hand/round N
  s S          see what seat S saw  s all    full information (every hand)
  l            the log up to here   t        the last trick / pile that finished
  ? Ea8        a card on the screen: its faces, its effect, when it may be played
  ?            this help            q        quit"""


class ReplayViewer:
    """Frames of one record, seen with full information (``seat=None``) or as one seat."""

    def __init__(self, replay: Replay, term: Terminal, seat: int | None) -> None:
        self._full = replay  # a panda_core.table.Replay: its for_seat() shares the positions
        self.term = term
        self.seat = seat
        self._replays: dict[int | None, Replay] = {}
        self.frame = 0
        self.replay()  # a seat that does not exist fails here, before anything is drawn

    def replay(self) -> Replay:
        if self.seat not in self._replays:
            self._replays[self.seat] = self._full.for_seat(self.seat)
        return self._replays[self.seat]

    @property
    def view(self) -> str:
        return "all" if self.seat is None else f"seat {self.seat}"

    def run(self) -> int:
        message = ""
        try:
            while True:
                frame = self.replay().frame(self.frame)
                self.term.show(render.frame_screen(frame, self.view, message, self.term.height))
                try:
                    line = self.term.read()
                except InputRefused as err:
                    message = str(err)
                    continue
                if line is None:
                    return 0
                message = self.command(line)
                if message == "quit":
                    return 0
        except KeyboardInterrupt:
            self.term.console.print()
            return 130

    def command(self, line: str) -> str:
        """Carry out one command line; the message to show (``"quit"`` to stop)."""
        words = line.lower().split()
        verb, arg = (words[0], words[1] if len(words) > 1 else "") if words else ("n", "")
        frames = len(self.replay())
        if verb in ("q", "quit", "exit"):
            return "quit"
        if verb.startswith("?") and (arg or len(verb) > 1):
            token = (verb[1:] or arg).strip()
            token = token[1:] if token.startswith("=") else token
            card = render.find_card(self.replay().frame(self.frame), token)
            if card is None:
                return f'no card "{token[:20]}" on the screen'
            self._show(render.card_help_text(card), "Card")
            return ""
        if verb in ("?", "h", "help"):
            screen, _ = render.help_screen(KEYS, 0, self.term.height)
            self.term.show(screen)
            self.term.wait_enter("Enter: back to the replay")
            return ""
        if verb in ("l", "log"):
            frame = self.replay().frame(self.frame)
            text = tui_log.whole_log_text(tui_log.groups(frame))
            self._show(text, "The log up to here", last_page=True)
            return ""
        if verb in ("t", "last"):
            self._show(render.last_trick_text(self.replay().frame(self.frame)), "Last trick")
            return ""
        if verb in ("n", "next", "f"):
            if self.frame + 1 >= frames:
                return "this is the last move (p: back, g 0: start, q: quit)"
            self.frame += 1
            return ""
        if verb in ("p", "b", "back", "prev"):
            if self.frame == 0:
                return "this is the start of the game"
            self.frame -= 1
            return ""
        if verb == "g":
            number = _number(arg)
            if number is None or not 0 <= number < frames:
                return f"g K: K is a move number 0-{frames - 1}"
            self.frame = number
            return ""
        if verb == "r":
            starts = self.replay().round_starts()
            number = _number(arg)
            if number is None or not 1 <= number <= len(starts):
                return f"r N: N is a hand/round number 1-{len(starts)}"
            self.frame = int(starts[number - 1])
            return ""
        if verb == "s":
            return self._switch(arg)
        return f'unknown command "{line[:20]}" (? for help)'

    def _show(self, text: str, title: str, last_page: bool = False) -> None:
        page_through(self.term, text, title, "back to the replay", newest=last_page)

    def _switch(self, arg: str) -> str:
        before = self.seat
        if arg == "all":
            self.seat = None
        else:
            number = _number(arg)
            players = int(self._full.players)
            if number is None or not 0 <= number < players:
                return f"s S: S is a seat 0-{players - 1}, or s all"
            self.seat = number
        try:
            self.replay()
        except PandaCoreError as err:
            self.seat = before
            return str(err)
        return ""


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 10 else None
