"""The play loop of ``panda-core play``: bots move, people are asked, summaries are shown.

The table model (:class:`panda_core.table.Table`) decides everything about the game; this loop
only asks it whose turn it is, draws that seat's state and passes the typed move on. The record
is saved whenever the session ends: at the end of the game, on ``q``, at end of input and on
Ctrl-C.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.text import Text

from panda_core._core import PandaCoreError
from panda_core.tui import log as tui_log
from panda_core.tui import render
from panda_core.tui.moves import MovePicker, parse_line
from panda_core.tui.pager import page_through
from panda_core.tui.terminal import InputRefused, Terminal

if TYPE_CHECKING:
    from panda_core.table import Table

INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT)."""


KEYS = """Keys (type one and press Enter):
  12                 play move number 12
  7+B  single Ea8    play the move with that notation (as listed)
  =7                 play the notation 7 (a plain number is a move number)
  n  p               next / previous page of moves
  /text  /           only the moves containing text / all of them again
  ? 12   ? Ea8       what move 12 is, or what card Ea8 is (its faces, effect, when it
                     may be played); ? =7 is the card 7 (a plain number is a move)
  l                  the whole log of this game, by trick / pile
  t                  the last trick / pile that finished
  ?                  this help
  q                  save the record and quit (Ctrl-D too; Ctrl-C at once)"""


class Turn(Enum):
    PLAYED = "played"
    QUIT = "quit"


def one_line(message: str, width: int = render.WIDTH - 2) -> str:
    """An error message on one line of the screen (the engine's first line, shortened)."""
    first = (message.strip().splitlines() or [""])[0]
    return first if len(first) <= width else first[: width - 3] + "..."


def free_path(path: Path) -> Path:
    """``path`` (the table's ``panda-GAME-SEED.json``), or ``…-2.json``, ``…-3.json`` if taken:
    an older record is never overwritten."""
    found, k = path, 2
    while found.exists():
        found, k = path.with_name(f"{path.stem}-{k}{path.suffix}"), k + 1
    return found


class PlaySession:
    """One game at one terminal: ``table`` with its human seats, drawn on ``term``."""

    def __init__(self, table: Table, term: Terminal, save_to: Path | None = None) -> None:
        self.table = table
        self.term = term
        self.save_to = save_to
        self.hot_seat = len(table.humans) > 1
        self._saved: Path | None = None
        self._moved_in: dict[int, int] = {}  # seat -> hands/rounds finished at its last move

    def run(self) -> int:
        """Play to the end (or until the person quits); the exit status."""
        try:
            return self._loop()
        except KeyboardInterrupt:
            path = self.save()
            self.term.console.print()
            self.term.say(f"Interrupted: record saved to {path}")
            return INTERRUPTED

    def save(self) -> Path:
        if self._saved is None:
            self._saved = self.save_to or free_path(Path(self.table.default_record_name()))
        self.table.save(self._saved, names=True)  # replay and --log then name the seats
        return self._saved

    def _quit(self) -> int:
        path = self.save()
        self.term.show(
            Group(
                Text(f"Record saved to {path}"),
                Text(f"Replay it with: panda-core replay {path}", style="dim"),
            )
        )
        return 0

    def _loop(self) -> int:
        rounds_seen = 0
        last_person: int | None = None
        while True:
            self.table.advance()
            public = self._public()
            results = public.get("round_results") or []
            for number, result in enumerate(results[rounds_seen:], start=rounds_seen):
                self.term.show(render.round_summary(public, result, number))
                if not self.term.wait_enter():
                    return self._quit()
            rounds_seen = len(results)
            if self.table.is_over:
                path = self.save()
                self.term.show(render.game_summary(self._public(), str(path)))
                return 0
            seat = self.table.waiting_for
            if seat is None:  # the model always stops at a person or at the end; never spin
                raise PandaCoreError("the table stopped with no seat to ask")
            if self.hot_seat and seat != last_person:
                self.term.show(render.pass_screen(public, seat))
                if not self.term.wait_enter(f"Seat {seat}: press Enter when ready"):
                    return self._quit()
            last_person = seat
            if self._turn(seat) is Turn.QUIT:
                return self._quit()

    def _public(self) -> dict[str, Any]:
        """The state the summaries and the hot-seat screen are drawn from: the person's own (it
        says "you"), or at a hot seat the spectators' (no hand, no private card in its log: the
        summary's closing events are shown to everyone at the terminal)."""
        if self.hot_seat:
            return dict(self.table.spectator_state())
        return dict(self.table.state(self.table.humans[0]))

    def _turn(self, seat: int) -> Turn:
        state = self.table.state(seat)
        picker = MovePicker(list(state.get("legal") or []))
        message, redraw = "", True
        while True:
            if redraw or self.term.interactive:
                moved_in = self._moved_in.get(seat)
                screen = render.play_screen(state, picker, message, self.term.height, moved_in)
                self.term.show(screen)
            elif message:
                self.term.say(message, style="bold red")
            redraw = False
            try:
                line = self.term.read()
            except InputRefused as err:
                message = str(err)
                continue
            if line is None:
                return Turn.QUIT
            command = parse_line(line)
            move: int | str | None = None
            message = ""
            if command.kind == "empty":
                message = f"type a move number (1-{len(picker.legal)}), a notation, ? or q"
            elif command.kind == "help":
                self._help(seat)
                redraw = True
            elif command.kind == "explain":
                message = self._explain(state, picker, command.text)
                redraw = True
            elif command.kind == "log":
                log = tui_log.whole_log_text(tui_log.groups(state))
                self._log_pages(log)
                redraw = True
            elif command.kind == "last":
                self._pages(render.last_trick_text(state), "Last trick")
                redraw = True
            elif command.kind == "quit":
                return Turn.QUIT
            elif command.kind in ("next", "prev"):
                message = picker.turn_page(1 if command.kind == "next" else -1)
                redraw = not message
            elif command.kind == "filter":
                message = picker.set_filter(command.text)
                redraw = True
            elif command.kind == "pick":
                move = picker.index_of(command.number)
                if move is None:
                    message = f"no move {command.number}: choose 1-{len(picker.legal)}"
            elif not command.text:
                message = "type the notation after '='"
            else:
                move = command.text
            if move is None:
                continue
            try:
                self.table.play(seat, move)
            except PandaCoreError as err:  # an illegal move or notation: state unchanged
                message = one_line(f"not a legal move: {err}")
                continue
            self._moved_in[seat] = len(state.get("round_results") or [])
            return Turn.PLAYED

    def _explain(self, state: dict[str, Any], picker: MovePicker, what: str) -> str:
        """``? 12`` (move 12), ``? Ea8`` / ``? =7`` (a card on the screen): its help, or the
        message to show when there is no such move or card."""
        if not what:
            return "? 12 explains move 12, ? Ea8 a card; ? alone is the help"
        if what.isdigit():
            number = int(what[:9])
            if not 1 <= number <= len(picker.legal):
                return f"no move {number}: choose 1-{len(picker.legal)}"
            self._pages(render.move_help_text(number, picker.legal[number - 1]), "Move")
            return ""
        token = what[1:].strip() if what.startswith("=") else what
        card = render.find_card(state, token)
        if card is None:
            return f'no card "{token[:20]}" on your screen (your hand, the table, your moves)'
        self._pages(render.card_help_text(card), "Card")
        return ""

    def _help(self, seat: int) -> None:
        self._pages(f"{KEYS}\n\n{self.table.help(seat)}", "Help")

    def _log_pages(self, text: str) -> None:
        page_through(self.term, text, "The whole log", "back to the game", newest=True)

    def _pages(self, text: str, title: str) -> None:
        page_through(self.term, text, title, "back to the game")
