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
from panda_core.tui import log as tui_log
from panda_core.tui.moves import MovePicker

State = dict[str, Any]
Card = dict[str, Any]

WIDTH = 80
FACE_STYLES = {"blue": "bold bright_blue", "element": "magenta", "white": "bright_white"}
MOVE_COLUMNS = 2
MAX_HAND_LINES = 3
MAX_TABLE_LINES = 3
"""Lines for the plays on the table (the newest kept); one when one is enough."""


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
    statuses = seat_statuses(state)
    if any(statuses):
        grid.add_row("status", *(Text(w, style="bold magenta") for w in statuses))
    return grid


def seat_statuses(state: State) -> list[str]:
    """Each seat's status words (``state["seat_status"]``: Drowsy, Pooped, shown out…), joined;
    ``""`` for a seat with none."""
    found = state.get("seat_status") or []
    out = []
    for seat in range(len(state["seats"])):
        items = found[seat] if seat < len(found) else []
        out.append(", ".join(str(i.get("word", "")) for i in items or [] if i.get("word")))
    return out


def seats_height(state: State) -> int:
    """The lines :func:`seats_table` takes: header, score, cards, and status if any seat has
    one."""
    return 4 if any(seat_statuses(state)) else 3


def table_lines(state: State) -> list[Text]:
    """What lies on the table: its title and the plays (the newest kept when too many); 2 to 4
    lines."""
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
            if len(body) == MAX_TABLE_LINES:
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
    body = [t for t in body[-MAX_TABLE_LINES:] if t.plain.strip()] or [Text("")]
    return [_fit(title), *(_fit(t) for t in body)]


def _play_text(state: State, play: dict[str, Any]) -> Text:
    """``seat 2 (heuristic): pair of 3s [Wo8*] [Me3]``: who, what the play is, its cards."""
    text = Text(str(play.get("text", "")))
    if play.get("describe"):
        text.append(f" {play['describe']}", style="bold")
    for card in play.get("cards") or []:
        text.append(" ")
        text.append_text(card_text(card, faces=False))
    return text


def move_lines(picker: MovePicker, rows: int) -> list[Text]:
    """A header and ``rows`` lines of numbered moves in columns (the picker's current page)."""
    picker.per_page = max(1, rows * MOVE_COLUMNS)
    shown = picker.shown()
    total = len(picker.matching())
    head = Text("Your moves", style="bold")
    if picker.filter:
        head.append(f' matching "{picker.filter}"')
    if shown:
        first, last = picker.page * picker.per_page + 1, picker.page * picker.per_page + len(shown)
        head.append(f"  {first}-{last} of {total}")
    if picker.pages > 1:
        head.append(f"  page {picker.page + 1}/{picker.pages} n/p", style="dim")
    labels: list[str] = []  # the kinds of move on this page, in the table model's words
    for _n, move in shown:
        label = str((move.get("group") or {}).get("label") or "")
        if label and label not in labels:
            labels.append(label)
    if labels:
        head.append(f"  {', '.join(labels)}")
    head.append("  /text: filter  ?: help  q: quit", style="dim")
    col = WIDTH // MOVE_COLUMNS
    cells = []
    for number, move in shown:
        cell = Text(f"{number:>3}) ", style="bold cyan")
        notation = str(move.get("notation", ""))
        text = str(move.get("text") or "") or notation
        cell.append(text)  # what the move is, in the table model's words
        said = f" {text} "
        inside = notation == text or f" {notation} " in said  # "Panda 7": 7 is in the words
        if not inside and cell.cell_len + 2 + len(notation) <= col - 1:
            cell.append(f"  {notation}", style="dim")  # what can be typed instead of the number
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


def consequence_texts(state: State) -> list[str]:
    """What the seat's own last move caused (cards drawn or turned up, cards back blue): the
    texts of ``state["consequences"]``, the table model's."""
    return [str(e["text"]) for e in state.get("consequences") or [] if e.get("text")]


def after_lines(
    texts: Sequence[str], max_lines: int = 2, lead: str = "After your move: "
) -> list[Text]:
    """``After your move: …`` on at most ``max_lines`` lines (the texts joined by ``;``)."""
    if not texts:
        return []
    lines = [Text(lead, style="bold yellow")]
    indent = " " * len(lead)
    for k, text in enumerate(texts):
        piece = text + (";" if k + 1 < len(texts) else "")
        line = lines[-1]
        more = f" (+{len(texts) - k} more: l)"
        room = WIDTH - (len(more) if len(lines) == max_lines and k + 1 < len(texts) else 0)
        if line.cell_len > len(indent) and line.cell_len + 1 + len(piece) > room:
            if len(lines) == max_lines:
                line.append(more, style="dim")
                break
            lines.append(Text(indent))
            line = lines[-1]
        if line.cell_len > len(indent):
            line.append(" ")
        line.append(piece)
    return [_fit(t) for t in lines]


def log_heading(state: State, title: str, since: int | None) -> Text:
    head = Text(title, style="bold")
    events = state.get("events") or []
    if since is not None and events:
        new = sum(1 for e in events[since:] if e.get("text"))
        head.append(f"  {new} new since your last move" if new else "  nothing new")
    head.append("  l: whole log  t: last trick", style="dim")
    return _fit(head)


MIN_MOVE_ROWS = 3
"""Rows the move list keeps however long the current log group is (more moves: n / p)."""


def play_screen(
    state: State,
    picker: MovePicker | None,
    message: str = "",
    height: int = 24,
    moved_in: int | None = None,
) -> RenderableType:
    """The screen of one turn for ``state['seat']`` (``picker`` is ``None`` when not its turn).

    Line budget: header 1, seats 3 (4 with a status row), table 2-4, ``After your move`` 0-2, log
    heading 1, hand ≤3, moves heading 1, message 1 and the prompt line the caller prints. The
    lines left go first to the current log group (whole, leaving the moves at least
    ``MIN_MOVE_ROWS``), then to the moves, then to older log groups, whole. ``moved_in``: the
    hands/rounds finished when the seat last moved (its last move's consequences then say which
    hand they are from once a new one has begun).
    """
    hand = cards_lines(state.get("hand") or [], WIDTH, MAX_HAND_LINES, lead="Your hand: ")
    since = int(state.get("since_last_turn") or 0)
    lead = "After your move: "
    if moved_in is not None and moved_in != len(state.get("round_results") or []):
        lead = f"After your last move ({round_word(state)} {moved_in + 1}): "
    consequences = after_lines(consequence_texts(state), lead=lead)
    log = tui_log.groups(state)
    on_table = table_lines(state)
    fixed = 1 + seats_height(state) + len(on_table) + len(consequences) + 1 + len(hand) + 1 + 1
    rows = height - fixed - (1 if picker is not None else 0)
    current = len(log[-1].lines) if log else 0
    moves_wanted = 0
    if picker is not None:
        moves_wanted = max(1, -(-len(picker.matching()) // MOVE_COLUMNS))
    keep = min(moves_wanted, MIN_MOVE_ROWS)
    log_rows = max(1, min(current, rows - keep))
    move_rows = max(1, min(moves_wanted, rows - log_rows)) if picker is not None else 0
    log_lines = tui_log.lines_for(log, rows - move_rows, WIDTH, since)
    if picker is not None:
        move_rows = max(1, min(moves_wanted, rows - max(1, len(log_lines))))
    if not log_lines:
        log_lines = [Text("  (nothing yet)", style="dim")]
    parts: list[RenderableType] = [
        header(state, _title(state)),
        seats_table(state),
        *on_table,
        *consequences,
        log_heading(state, "Log", since),
        *log_lines,
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
    and the log (the last move's lines bright) instead of the move list."""
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
    on_table = table_lines(frame)
    rows = height - 1 - seats_height(frame) - len(on_table) - len(hand) - 1 - 1 - 1 - 1
    legend = "* = blue face" if hands is not None else ""
    since = int(frame.get("since_last_turn") or 0)
    head = Text("Latest events", style="bold")
    head.append("  (bright: the last move's)", style="dim")
    log_lines = tui_log.lines_for(tui_log.groups(frame), max(1, rows), WIDTH, since)
    parts: list[RenderableType] = [
        header(frame, title, legend, you=False),
        seats_table(frame),
        *on_table,
        *hand,
        _fit(head),
        *(log_lines or [Text("  (nothing yet)", style="dim")]),
        _fit(keys),
        Text(message, style="bold red") if message else Text(""),
    ]
    return Group(*parts)


def round_end_texts(state: State, number: int) -> list[str]:
    """The lines that end hand/round ``number`` (0-based): the events after its last move up to
    its ``round_end``, then those right after it that are not the next deal's (a Drowsy or
    Pooped announcement), without the round's and the game's end lines."""
    events = list(state.get("events") or [])
    ends = [i for i, e in enumerate(events) if e.get("type") == "round_end"]
    if number >= len(ends):
        return []
    end = ends[number]
    start = end
    while start > 0 and events[start - 1].get("type") != "move":
        start -= 1
    stop = end + 1
    while stop < len(events) and events[stop].get("type") not in ("move", "deal", "round_start"):
        stop += 1
    # The round's and the game's own end lines say what the summary below says again.
    said = [e for e in events[start:stop] if e.get("type") not in ("round_end", "game_end")]
    return [str(e["text"]) for e in said if e.get("text")]


def round_summary(state: State, result: dict[str, Any], number: int) -> RenderableType:
    """The end of hand/round ``number`` (0-based): how it ended (the events, a Drowsy or Pooped
    seat's fate included), the model's summary and the scores with each seat's status."""
    word = round_word(state).capitalize()
    lines = [*round_end_texts(state, number), str(result.get("text") or "")]
    body = Text("\n".join(line for line in lines if line))
    return Group(
        Panel(body, title=f"{word} {number + 1} is over", width=WIDTH),
        scores_table(state, result.get("scores") or state["scores"]),
    )


def scores_table(state: State, scores: Iterable[int]) -> Table:
    grid = Table(box=None, show_edge=False, padding=(0, 2))
    grid.add_column("seat")
    grid.add_column("player", no_wrap=True, overflow="ellipsis", max_width=30)
    grid.add_column("score", justify="right")
    statuses = seat_statuses(state)
    if any(statuses):
        grid.add_column("status", no_wrap=True, overflow="ellipsis", max_width=30)
    for seat, score in enumerate(scores):
        style = "bold yellow" if seat == state.get("winner") else ""
        row = [str(seat), str(state["seats"][seat]["name"]), str(score)]
        if any(statuses):
            row.append(statuses[seat])
        grid.add_row(*row, style=style)
    return grid


def places_table(state: State) -> Table | None:
    """Game over by place (``state["places"]``, the game's own ranking): one row per seat,
    ordered by place; ``None`` when the state has no places."""
    places = state.get("places")
    if not places:
        return None
    grid = Table(box=None, show_edge=False, padding=(0, 2))
    grid.add_column("place")
    grid.add_column("seat")
    grid.add_column("player", no_wrap=True, overflow="ellipsis", max_width=24)
    grid.add_column("score", justify="right")
    for place in places:
        seats = list(place.get("seats") or [])
        scores = list(place.get("scores") or [state["scores"][s] for s in seats])
        for seat, score in zip(seats, scores, strict=False):
            style = "bold yellow" if place.get("place") == 1 else ""
            name = str(state["seats"][int(seat)]["name"])
            grid.add_row(str(place.get("place")), str(seat), name, str(score), style=style)
    return grid


def game_summary(state: State, saved: str) -> RenderableType:
    winner = state.get("winner")
    line = f"{seat_name(state, int(winner))} wins" if winner is not None else "No winner"
    rounds = len(state.get("round_results") or [])
    plural = "" if rounds == 1 else "s"
    by_place = places_table(state)
    return Group(
        Panel(
            Text(f"Game over: {line} after {rounds} {round_word(state)}{plural}.", style="bold"),
            width=WIDTH,
        ),
        Text("Final places" if by_place is not None else "Final scores", style="bold"),
        by_place if by_place is not None else scores_table(state, state["scores"]),
        Text(f"Record saved to {saved}"),
        Text(f"Replay it with: panda-core replay {saved}", style="dim"),
    )


def help_screen(
    text: str, page: int, height: int = 24, title: str = "Help"
) -> tuple[RenderableType, int]:
    """A page of the help text (wrapped to 80 columns) and the number of pages."""
    lines: list[str] = []
    for raw in text.splitlines() or [""]:
        indent = len(raw) - len(raw.lstrip(" "))
        while len(raw) > WIDTH - 4:
            cut = raw.rfind(" ", indent + 1, WIDTH - 4)
            cut = cut if cut > indent else WIDTH - 4
            lines.append(raw[:cut])
            raw = " " * (indent + 2) + raw[cut:].lstrip()
        lines.append(raw)
    per = height - 4  # panel border 2, prompt 1, a spare line
    pages = max(1, -(-len(lines) // per))
    page = min(max(page, 0), pages - 1)
    body = Text("\n".join(lines[page * per : (page + 1) * per]))
    shown = f"{title}  {page + 1}/{pages}" if pages > 1 else title
    return Panel(body, title=shown, width=WIDTH), pages


def card_help_text(card: Card) -> str:
    """A card's help line (``card["help"]``, the table model's words), after its bracket."""
    said = card.get("help")
    if not said:  # a card without help words: what the card dict itself says
        face = f", {card['face']} face: {card.get('face_label')}" if card.get("face") else ""
        said = f"{card.get('label', card.get('token'))}{face}"
    return f"{card_text(card).plain} {said}"


def move_help_text(number: int, move: dict[str, Any]) -> str:
    """What ``? 12`` says about move 12: what it is, its rule and each of its cards."""
    lines = [f"Move {number}: {move.get('text') or move.get('notation')}"]
    if move.get("notation") and move.get("notation") != move.get("text"):
        lines.append(f"  typed as: {move['notation']}")
    group = move.get("group") or {}
    if group.get("label"):
        lines.append(f"  kind: {group['label']}")
    if move.get("rule"):
        lines.append(f"  rule: {move['rule']}")
    cards = move.get("cards") or []
    if cards:
        lines.append("  cards:")
        lines.extend(f"    {card_help_text(c)}" for c in cards)
    return "\n".join(lines)


def visible_cards(state: State) -> list[Card]:
    """Every card the screen shows the seat: its hand (every hand in a replay's full view), the
    table, the last trick, its moves."""
    found: list[Card] = list(state.get("hand") or [])
    for hand in state.get("hands") or []:
        found += hand
    for play in (state.get("table") or {}).get("plays") or []:
        found += play.get("cards") or []
    for play in (state.get("last_trick") or {}).get("plays") or []:
        found += play.get("cards") or []
    for move in state.get("legal") or []:
        found += move.get("cards") or []
    return found


def find_card(state: State, token: str) -> Card | None:
    """The card with ``token`` (any case) among :func:`visible_cards`; the hand's copy first."""
    want = token.strip().strip("[]").split(":")[0].lower()
    for card in visible_cards(state):
        if str(card.get("token", "")).lower() == want:
            return card
    return None


def last_trick_text(state: State) -> str:
    """The previous finished trick or pile (``state["last_trick"]``), as lines of text."""
    last = state.get("last_trick")
    if not last:
        return f"No {_trick_word(state)} has finished yet in this {round_word(state)}."
    lines = [str(last.get("title") or "last trick")]
    for play in last.get("plays") or []:
        cards = " ".join(card_text(c, faces=False).plain for c in play.get("cards") or [])
        said = play.get("describe") or ""
        lines.append(f"  {play.get('text', '')} {said} {cards}".rstrip())
    if last.get("text"):
        lines.append(str(last["text"]))
    return "\n".join(lines)


def _trick_word(state: State) -> str:
    title = str((state.get("table") or {}).get("title") or "trick")
    return title.split()[0] if title else "trick"


def pass_screen(state: State, seat: int) -> RenderableType:
    """The hot-seat screen between two people's turns: nothing of anyone's hand."""
    return Panel(
        Text(f"Pass to {seat_name(state, seat)}", style="bold", justify="center"),
        width=WIDTH,
    )
