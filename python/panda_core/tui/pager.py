"""Long texts (help, a card's or a move's help, the whole log) one screen at a time."""

from __future__ import annotations

from panda_core.tui import render
from panda_core.tui.terminal import InputRefused, Terminal


def page_through(term: Terminal, text: str, title: str, back: str, newest: bool = False) -> None:
    """Show ``text`` a page at a time. Help reads forwards (Enter: the next page, the last one
    goes ``back``); a log (``newest``) opens on its newest page, ``p`` older, ``n`` newer, and
    anything else goes back."""
    _, pages = render.help_screen(text, 0, term.height, title)
    if not newest:
        for page in range(pages):
            screen, _ = render.help_screen(text, page, term.height, title)
            term.show(screen)
            if not term.wait_enter("Enter: more" if page + 1 < pages else f"Enter: {back}"):
                return
        return
    page = pages - 1
    while True:
        screen, _ = render.help_screen(text, page, term.height, title)
        term.show(screen)
        keys = "p: older  n: newer  " if pages > 1 else ""
        try:
            line = term.read(f"{keys}Enter: {back} ")
        except InputRefused:
            continue
        if line is None or line.lower() not in ("p", "n"):
            return
        page = max(0, page - 1) if line.lower() == "p" else min(pages - 1, page + 1)
