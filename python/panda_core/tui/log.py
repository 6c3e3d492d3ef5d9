"""The log as a screen shows it: the seat's events in the table model's groups (a trick, a pile,
a hand: ``state["log"]``), cut only between groups, never inside one.

A screen with little room shows the current group whole and then as many older groups, whole, as
fit; a current group too long for the room keeps its newest lines and says how many earlier ones
the whole-log screen (``l``) shows. Lines from before the seat's last move are drawn dim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text

State = dict[str, Any]

GUTTER_MAX = 12
"""The widest group title kept in the log's left column ("pile 3 of 7" fits)."""


@dataclass(frozen=True)
class Group:
    """One group of the log: its title, its events' texts (with their seq), and whether it is
    the group being played now."""

    title: str
    lines: tuple[tuple[int, str], ...]
    current: bool


def groups(state: State) -> list[Group]:
    """The log of ``state`` as groups, oldest first (the current one last)."""
    events = [e for e in state.get("events") or [] if isinstance(e, dict)]
    by_seq = {int(e.get("seq", i)): e for i, e in enumerate(events)}
    spans = state.get("log")
    if spans is None:  # a state without groups: its events as one group
        spans = [{"title": "log", "seqs": [0, len(events) - 1], "current": True}] if events else []
    out = []
    for span in spans:
        first, last = (int(x) for x in span["seqs"])
        lines = tuple(
            (seq, str(by_seq[seq].get("text")))
            for seq in range(first, last + 1)
            if seq in by_seq and by_seq[seq].get("text")
        )
        out.append(Group(str(span.get("title") or ""), lines, bool(span.get("current"))))
    return [g for g in out if g.lines or g.current]


# ---- laying the log out ----------------------------------------------------------------------


def lines_for(log: Sequence[Group], rows: int, width: int, since: int | None = None) -> list[Text]:
    """At most ``rows`` lines of the log: the last group whole (or its newest lines and a note
    when it is longer than ``rows``), then older groups whole, newest nearest the bottom."""
    if rows <= 0 or not log:
        return []
    chosen: list[Group] = []
    used = 0
    for group in reversed(log):
        if chosen and used + len(group.lines) > rows:
            break
        chosen.append(group)
        used += len(group.lines)
    chosen.reverse()
    gutter = min(GUTTER_MAX, max(len(g.title) for g in chosen))
    out: list[Text] = []
    for group in chosen:
        lines = list(group.lines)
        title = group.title
        if len(lines) > rows:  # only the newest group can be longer than the room
            hidden = len(lines) - (rows - 1)
            lines = lines[hidden:]
            note = Text(f"{title[:gutter]:<{gutter}} │ ", style="bold")
            note.append(f"… {hidden} earlier lines of this group: l shows the whole log", "dim")
            out.append(_fit(note, width))
            title = ""
        for k, (seq, text) in enumerate(lines):
            head = title if k == 0 else ""
            line = Text(f"{head[:gutter]:<{gutter}}", style="bold" if group.current else "")
            line.append(" │ ", style="dim")
            old = since is not None and seq < since
            line.append(text, style="dim" if old else "")
            out.append(_fit(line, width))
    return out


def whole_log_text(log: Sequence[Group]) -> str:
    """Every group with its title, for the whole-log screen (paged by the caller)."""
    parts = []
    for group in log:
        mark = " (now)" if group.current else ""
        parts.append(f"── {group.title}{mark}")
        parts.extend(f"   {text}" for _seq, text in group.lines)
    return "\n".join(parts) if parts else "(nothing yet)"


def _fit(text: Text, width: int) -> Text:
    text.no_wrap = True
    text.overflow = "ellipsis"
    text.truncate(width, overflow="ellipsis")
    return text
