"""Rich renderables of what a seat sees: a play screen (a ``SeatState``), a replay frame, the
summaries, help and the hot-seat screen. Every screen fits 80 columns and 24 lines.

Each screen is built as a list of one-line :class:`~rich.text.Text` objects (truncated, never
wrapped) plus one seat table of fixed height, so its height is known before it is drawn and the
move list gets exactly the lines that are left. Cards are always drawn in brackets,
``[Ea8:Q+panda]``: a card on the screen is easy to tell from a number, for people and for the
no-hidden-card tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from panda_core._registry import spec
from panda_core.tui.moves import MovePicker

State = dict[str, Any]
Card = dict[str, Any]

WIDTH = 80
FACE_STYLES = {"blue": "bold bright_blue", "element": "magenta", "white": "bright_white"}
MOVE_COLUMNS = 2
MAX_EVENT_LINES = 4
MAX_HAND_LINES = 3


def card_text(card: Card, faces: bool = True) -> Text:
    """``[token]``, or ``[token:face]`` when the card shows a face (the climbing games)."""
    token = str(card.get("token", "?"))
    label = card.get("face_label")
    body = f"{token}:{label}" if faces and label and card.get("face") else token
    if not faces and card.get("face") == "blue":
        body += "*"  # the compact form marks a blue face (legend in the replay header)
    return Text(f"[{body}]", style=FACE_STYLES.get(str(card.get("face")), ""))


def cards_lines(
    cards: Sequence[Card], width: int, max_lines: int, lead: str = "", faces: bool = True
) -> list[Text]:
    """Cards laid out left to right over at most ``max_lines`` lines of ``width`` cells; the
    first line starts with ``lead``. Cards that do not fit are counted, not dropped silently."""
    lines = [Text(lead)]
    indent = " " * len(lead)
    for k, card in enumerate(cards):
        piece = card_text(card, faces)
        line = lines[-1]
        if line.cell_len > len(indent) and line.cell_len + 1 + piece.cell_len > width:
            if len(lines) == max_lines:
                line.append(f" +{len(cards) - k}")
                break
            lines.append(Text(indent))
            line = lines[-1]
        if line.cell_len > len(indent):
            line.append(" ")
        line.append_text(piece)
    if not cards:
        lines[0].append("(none)", style="dim")
    return [_fit(t, width) for t in lines]


def _fit(text: Text, width: int = WIDTH) -> Text:
    text = text.copy()
    text.no_wrap = True
    text.overflow = "ellipsis"
    text.truncate(width, overflow="ellipsis")
    return text


def seat_name(state: State, seat: int) -> str:
    """``Seat 2 (heuristic)``; just ``Seat 2`` when the name says no more (a replay's)."""
    name = str(state["seats"][seat]["name"])
    return f"Seat {seat}" if name == f"seat {seat}" else f"Seat {seat} ({name})"


def _column_name(state: State, seat: int) -> str:
    name = str(state["seats"][seat]["name"])
    return f"seat {seat}" if name == f"seat {seat}" else f"{seat} {name}"


def round_word(state: State) -> str:
    """ "hand" or "round": what the game's registry entry calls one deal."""
    return spec(state["game"]).round_name.removesuffix("s")


def game_title(state: State) -> str:
    return spec(state["game"]).title


def header(state: State, title: str, extra: str = "", you: bool = True) -> Text:
    line = Text(title, style="bold")
    line.append(f"  {round_word(state)} {int(state.get('round', 0)) + 1}")
    line.append(f"  draw pile {state.get('draw_pile_size', 0)}")
    if state.get("is_over"):
        line.append("  game over", style="bold red")
    elif state.get("to_move") is not None:
        mover = int(state["to_move"])
        mine = you and mover == state.get("seat")
        whose = "your turn" if mine else f"{seat_name(state, mover)} to move"
        line.append(f"  {whose}", style="bold yellow")
    if extra:
        line.append(f"  {extra}", style="dim")
    return _fit(line)


def seats_table(state: State) -> Table:
    """One column per seat: name (``>`` marks the seat to move), score and hand size; 3 lines."""
    grid = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), expand=False)
    width = max(8, (WIDTH - 8) // max(1, int(state["players"])) - 1)
    grid.add_column("", no_wrap=True, style="dim")
    for seat in range(len(state["seats"])):
        mark = ">" if seat == state.get("to_move") else " "
        style = "bold green" if seat == state.get("seat") else ""
        grid.add_column(
            f"{mark}{_column_name(state, seat)}",
            no_wrap=True,
            overflow="ellipsis",
            max_width=width,
            header_style=style or "bold",
            justify="left",
        )
    grid.add_row("score", *(str(s) for s in state["scores"]))
    grid.add_row("cards", *(str(n) for n in state["hand_sizes"]))
    return grid


def table_lines(state: State) -> list[Text]:
    """What lies on the table: its title and the plays (the newest kept when too many); 3 lines."""
    table = state.get("table") or {}
    title = Text(str(table.get("title") or "Table"), style="bold")
    if table.get("to_beat"):
        title.append(f"  to beat: {table['to_beat']}")
    for note in table.get("notes") or []:
        title.append(f"  {note}", style="dim")
    plays = [_play_text(state, p) for p in table.get("plays") or []]
    body: list[Text] = []
    line = Text("  ")
    for piece in reversed(plays):  # newest first, so truncation drops the oldest
        if line.cell_len > 2 and line.cell_len + 3 + piece.cell_len > WIDTH:
            body.append(line)
            if len(body) == 2:
                break
            line = Text("  ")
        if line.cell_len > 2:
            line = Text("  ") + piece + Text(" | ") + line[2:]
        else:
            line = Text("  ") + piece
    else:
        body.append(line)
    body.reverse()
    if not plays:
        body = [Text("  (nothing played yet)", style="dim")]
    body = body[-2:]
    while len(body) < 2:
        body.append(Text(""))
    return [_fit(title), *(_fit(t) for t in body)]


def _play_text(state: State, play: dict[str, Any]) -> Text:
    text = Text(str(play.get("text", "")))
    for card in play.get("cards") or []:
        text.append(" ")
        text.append_text(card_text(card, faces=False))
    return text


def event_lines(events: Sequence[dict[str, Any]], rows: int, heading: str) -> list[Text]:
    """The heading and the last ``rows`` event texts (how many earlier ones are left out)."""
    shown = list(events)[-rows:] if rows > 0 else []
    head = Text(heading, style="bold")
    if len(events) > len(shown):
        head.append(f" (last {len(shown)} of {len(events)})", style="dim")
    lines = [_fit(head)]
    lines += [_fit(Text(f"  {e.get('text', e.get('type', ''))}")) for e in shown]
    if not events:
        lines.append(Text("  (nothing)", style="dim"))
    return lines


def move_lines(picker: MovePicker, rows: int) -> list[Text]:
    """A header and ``rows`` lines of numbered moves in columns (the picker's current page)."""
    picker.per_page = max(1, rows * MOVE_COLUMNS)
    shown = picker.shown()
    total = len(picker.matching())
    head = Text("Your moves", style="bold")
    if picker.filter:
        head.append(f" matching {picker.filter!r}")
    if shown:
        first, last = picker.page * picker.per_page + 1, picker.page * picker.per_page + len(shown)
        head.append(f"  {first}-{last} of {total}")
    if picker.pages > 1:
        head.append(f"  page {picker.page + 1}/{picker.pages}  n/p: pages", style="dim")
    head.append("  /text: filter  ?: help  q: quit", style="dim")
    col = WIDTH // MOVE_COLUMNS
    cells = []
    for number, move in shown:
        cell = Text(f"{number:>3}) ", style="bold cyan")
        cell.append(str(move.get("notation", "")))
        text = str(move.get("text") or "")
        if text and text != move.get("notation"):
            cell.append(f"  {text}", style="dim")
        cells.append(_fit(cell, col - 1))
    lines = [_fit(head)]
    per_column = -(-len(cells) // MOVE_COLUMNS) if cells else 0
    for r in range(per_column):
        line = Text()
        for c in range(MOVE_COLUMNS):
            k = c * per_column + r
            if k < len(cells):
                line.append_text(cells[k])
                line.append(" " * (col - cells[k].cell_len))
        line.rstrip()
        lines.append(_fit(line))
    return lines


def play_screen(
    state: State, picker: MovePicker | None, message: str = "", height: int = 24
) -> RenderableType:
    """The screen of one turn for ``state['seat']`` (``picker`` is ``None`` when not its turn).

    Line budget: header 1, seats 3, table 3, event heading 1, hand ≤3, moves heading 1,
    message 1 and the prompt line the caller prints; the lines left go first to up to
    ``MAX_EVENT_LINES`` events, then to the moves, then to more events.
    """
    hand = cards_lines(state.get("hand") or [], WIDTH, MAX_HAND_LINES, lead="Your hand: ")
    since = int(state.get("since_last_turn") or 0)
    events = [e for e in (state.get("events") or [])[since:] if e.get("text")]
    rows = height - 1 - (1 + 3 + 3 + 1 + len(hand) + 1) - (1 if picker is not None else 0)
    events_wanted = max(1, len(events))
    event_rows = min(events_wanted, MAX_EVENT_LINES)
    move_rows = 0
    if picker is not None:
        moves_wanted = -(-len(picker.matching()) // MOVE_COLUMNS)
        move_rows = max(1, min(moves_wanted, rows - event_rows))
    event_rows = max(1, min(events_wanted, rows - move_rows))
    parts: list[RenderableType] = [
        header(state, _title(state)),
        seats_table(state),
        *table_lines(state),
        *event_lines(events, event_rows, "Since your last turn"),
        *hand,
    ]
    if picker is not None:
        parts += move_lines(picker, move_rows)
    parts.append(Text(message, style="bold red") if message else Text(""))
    return Group(*parts)


def _title(state: State) -> str:
    return f"{game_title(state)}  seat {state['seat']}"


def frame_screen(frame: State, view: str, message: str = "", height: int = 24) -> RenderableType:
    """A replay frame: like a play screen, with every hand (full information) or the seat's own,
    and the latest events instead of the move list."""
    k, n = int(frame.get("frame", 0)), int(frame.get("frames", 1))
    title = f"{game_title(frame)}  view: {view}  move {k}/{n - 1}"
    hands = frame.get("hands")
    if hands is not None:
        hand: list[Text] = []
        for seat, cards in enumerate(hands):
            hand += cards_lines(cards, WIDTH, 1, lead=f"{seat}: ", faces=False)
    else:
        hand = cards_lines(frame.get("hand") or [], WIDTH, MAX_HAND_LINES, lead="Hand: ")
    keys = Text(
        "Replay: Enter/n next  p back  g K move  r N round  s S|all seat  ? help  q quit",
        style="dim",
    )
    rows = height - 1 - 3 - 3 - len(hand) - 1 - 1 - 1 - 1
    legend = "* = blue face" if hands is not None else ""
    parts: list[RenderableType] = [
        header(frame, title, legend, you=False),
        seats_table(frame),
        *table_lines(frame),
        *hand,
        *event_lines(frame.get("events") or [], max(1, rows), "Latest events"),
        _fit(keys),
        Text(message, style="bold red") if message else Text(""),
    ]
    return Group(*parts)


def round_summary(state: State, result: dict[str, Any], number: int) -> RenderableType:
    """The end of hand/round ``number`` (0-based): the model's text and the scores."""
    word = round_word(state).capitalize()
    body = Text(str(result.get("text") or ""))
    return Group(
        Panel(body, title=f"{word} {number + 1} is over", width=WIDTH),
        scores_table(state, result.get("scores") or state["scores"]),
    )


def scores_table(state: State, scores: Iterable[int]) -> Table:
    grid = Table(box=None, show_edge=False, padding=(0, 2))
    grid.add_column("seat")
    grid.add_column("player", no_wrap=True, overflow="ellipsis", max_width=30)
    grid.add_column("score", justify="right")
    for seat, score in enumerate(scores):
        style = "bold yellow" if seat == state.get("winner") else ""
        grid.add_row(str(seat), str(state["seats"][seat]["name"]), str(score), style=style)
    return grid


def game_summary(state: State, saved: str) -> RenderableType:
    winner = state.get("winner")
    line = f"{seat_name(state, int(winner))} wins" if winner is not None else "No winner"
    rounds = len(state.get("round_results") or [])
    plural = "" if rounds == 1 else "s"
    return Group(
        Panel(
            Text(f"Game over: {line} after {rounds} {round_word(state)}{plural}.", style="bold"),
            width=WIDTH,
        ),
        Text("Final scores", style="bold"),
        scores_table(state, state["scores"]),
        Text(f"Record saved to {saved}"),
        Text(f"Replay it with: panda-core replay {saved}", style="dim"),
    )


def help_screen(text: str, page: int, height: int = 24) -> tuple[RenderableType, int]:
    """A page of the help text (wrapped to 80 columns) and the number of pages."""
    lines: list[str] = []
    for raw in text.splitlines() or [""]:
        while len(raw) > WIDTH - 4:
            cut = raw.rfind(" ", 0, WIDTH - 4)
            cut = cut if cut > 0 else WIDTH - 4
            lines.append(raw[:cut])
            raw = raw[cut:].lstrip()
        lines.append(raw)
    per = height - 4  # panel border 2, prompt 1, a spare line
    pages = max(1, -(-len(lines) // per))
    page = min(max(page, 0), pages - 1)
    body = Text("\n".join(lines[page * per : (page + 1) * per]))
    title = f"Help  {page + 1}/{pages}" if pages > 1 else "Help"
    return Panel(body, title=title, width=WIDTH), pages


def pass_screen(state: State, seat: int) -> RenderableType:
    """The hot-seat screen between two people's turns: nothing of anyone's hand."""
    return Panel(
        Text(f"Pass to {seat_name(state, seat)}", style="bold", justify="center"),
        width=WIDTH,
    )
