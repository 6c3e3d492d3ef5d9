"""The prompt an LLM seat is shown: built from the seat's own words (docs/llm_agents.md, "The
prompt").

Everything comes from what the seat may know, written by the game's table presenter
(``panda_core.table.head_text`` / ``climb_text``, as the terminal table writes a seat's state in
``panda_core.table.seat_state``): the seat's ``view``, its own ``events``, the public round
results and, when it is to move, its legal moves. It is handed the seat object (or, before a
game loop hands out seats, a game with the seat named: both answer the same verbs) and asks it
for nothing else: no other seat's view, no snapshot.

A decision is one conversation: the system message (the game, its rules in brief, how cards are
written and the answer's format), then one user message with the seat's state and its legal
moves, numbered. A retry adds the model's answer and a user message saying what was wrong
(:func:`illegal_retry`, :func:`unparsable_retry`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core._registry import GameSpec, spec, spec_of
from panda_core.table.cards import CardBook
from panda_core.table.names import SeatNames

__all__ = [
    "ANSWER_FORMAT",
    "MAX_EVENT_LINES",
    "MAX_ROUND_LINES",
    "Decision",
    "decision",
    "game_name_of",
    "illegal_retry",
    "unparsable_retry",
]

ANSWER_FORMAT = "MOVE: <notation>"
"""The answer's one line (``MOVE: #<number>`` names a move by its number in the list)."""
MAX_EVENT_LINES = 80
"""Most lines of "what happened this round" (the latest are kept; how many were left out is
said)."""
MAX_ROUND_LINES = 10
"""Most lines of finished rounds (the latest are kept)."""


def game_name_of(seat: Any) -> str:
    """The name of the game a seat (or a game object) plays, from the registry."""
    return spec_of(seat).name


def _card(card: Mapping[str, Any]) -> str:
    """``[7]`` (Panda Head); a climbing card and what its face shows: ``[Ea8:8]`` (white),
    ``[Ea8:Q + panda, blue]``, ``[Ea!:2 centre]`` (an element card)."""
    token = str(card.get("token", "?"))
    label = card.get("face_label")
    face = card.get("face")
    if not face or not label:
        return f"[{token}]"
    return f"[{token}:{label}, blue]" if face == "blue" else f"[{token}:{label}]"


def _cards(cards: Sequence[Mapping[str, Any]]) -> str:
    return " ".join(_card(c) for c in cards) or "(none)"


def _legend(game: GameSpec, book_cards: Sequence[Mapping[str, Any]]) -> str:
    """How cards are written, from the deck's own catalogue (the game's presenter says it)."""
    return str(game.presenter().notation_legend(book_cards))


def _system(
    game: GameSpec, book_cards: Sequence[Mapping[str, Any]], round_word: str, rules: Any
) -> str:
    summary = game.presenter().summary(rules)
    return "\n".join(
        [
            f"You play one seat of {game.title}, a card game for 2 to 5 players.",
            "",
            "The rules in brief (rule IDs in brackets refer to the full rules):",
            summary,
            "",
            "Each turn you are shown what your seat knows and nothing more: the scores, how many "
            f"cards each seat holds, your hand, the table, what happened this {round_word}, and "
            "your legal moves, numbered.",
            _legend(game, book_cards),
            "",
            "Choose one of your legal moves. Answer with exactly one line of this form:",
            ANSWER_FORMAT,
            "where <notation> is the move's notation exactly as listed (or #<number>, its number "
            "in the list). You may reason first; write the MOVE line once, and nothing after it.",
        ]
    )


class Decision:
    """The prompt of one decision and the legal moves it lists (see the module docs)."""

    def __init__(self, system: str, user: str, notations: list[str], listing: str) -> None:
        self.system = system
        self.user = user
        self.notations = notations
        """The legal moves' notations, in the order listed (``#1`` is ``notations[0]``)."""
        self.listing = listing
        """The numbered list of the legal moves, as the prompt shows it."""

    def messages(self) -> list[dict[str, str]]:
        """The conversation's first two messages (system, user)."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


def _round_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events of the round being played: from its last start (a deal in Panda Head, a
    ``round_start`` in the climbing games)."""
    start = 0
    for i, event in enumerate(events):
        if event["type"] == "round_start" or (event["type"] == "deal" and "hands" in event):
            start = i
    return events[start:]


def _latest(lines: list[str], most: int, what: str) -> list[str]:
    if len(lines) <= most:
        return lines
    return [f"  ({len(lines) - most} earlier {what} left out)", *lines[-most:]]


def _deck(seat: Any, game: GameSpec) -> tuple[CardBook, str]:
    """The deck's cards and the system message (kept per game, player count and rules: they are
    the same at every decision of a game)."""
    key = (game.name, int(seat.players), repr(seat.rules))
    found = _DECKS.get(key)
    if found is None:
        if len(_DECKS) >= 64:
            _DECKS.clear()
        cards = seat.cards()
        system = _system(game, cards, str(game.presenter().round_word), seat.rules)
        found = _DECKS[key] = (CardBook(seat), system)
    return found


_DECKS: dict[tuple[str, int, str], tuple[CardBook, str]] = {}


def decision(seat: Any, player: int | None = None) -> Decision:
    """The prompt for ``seat`` (a seat object, or a game with ``player`` named), which must be
    the seat to move.

    It is written as the table writes a seat's state (``SeatStateBuilder``: the same presenter
    calls on the same verbs), with only the round being played described event by event."""
    who = int(seat.player if player is None else player)
    game = spec(game_name_of(seat))
    presenter = game.presenter()
    book, system = _deck(seat, game)
    names = SeatNames([f"seat {s}" for s in range(seat.players)], who)
    view = seat.view(who)
    word = str(presenter.round_word)

    def seat_label(s: int) -> str:
        return f"seat {s} (you)" if s == who else f"seat {s}"

    # The round being played, counted from 1, as the seat's view says it (a sampled game of
    # ``determinize`` starts without the history, so the finished rounds cannot be counted).
    number = int(view["hand_number"]) + 1 if "hand_number" in view else int(view["round"])
    hand = presenter.hand(view, book)
    lines = [
        f"{game.title}, {seat.players} players. You are seat {who}. "
        f"{word.capitalize()} {number}. It is your turn.",
        "Scores: " + ", ".join(f"{seat_label(s)} {v}" for s, v in enumerate(seat.scores)),
        "Cards held: "
        + ", ".join(f"{seat_label(s)} {v}" for s, v in enumerate(view["hand_sizes"]))
        + f"; draw pile {view['draw_pile_size']}",
        f"Your hand ({len(hand)}): {_cards(hand)}",
    ]
    seen = [dict(e) for e in seat.events(who)]
    table = presenter.table_area(view, book, names, seen)
    head = f"Table: {table['title']}"
    if table.get("to_beat"):
        head += f"; to beat: {table['to_beat']}"
    lines.append(head)
    plays = table.get("plays") or []
    lines += [f"  {p['text']} {_cards(p['cards'])}" for p in plays] or ["  (nothing played yet)"]
    if table.get("notes"):
        lines.append("  " + "; ".join(str(n) for n in table["notes"]))
    results = [f"  {presenter.round_text(r, names)}" for r in seat.round_results]
    if results:
        lines.append(f"Finished {word}s:")
        lines += _latest(results, MAX_ROUND_LINES, f"{word}s")
    events = _round_events(seen)
    happened = [f"  {presenter.describe(e, book, names)}" for e in events]
    lines.append(f"What happened this {word} ({len(happened)} events, oldest first):")
    lines += _latest(happened, MAX_EVENT_LINES, "events") or ["  (nothing yet)"]
    # The notation is all the list says of a move: the system message explains it, and a seat
    # rebuilt from the protocol's messages (a contained bot's) knows a move by its notation and
    # id only, so the prompt is the same in every process.
    notations = [str(m.notation) for m in seat.legal_moves()] if seat.current_player == who else []
    listing = _listing(notations)
    lines.append(f"Your legal moves ({len(notations)}):")
    lines.append(listing)
    lines.append(f"Answer with one line: {ANSWER_FORMAT}")
    return Decision(system, "\n".join(lines), notations, listing)


def _listing(notations: Sequence[str]) -> str:
    """``  #1: 7`` per move."""
    return "\n".join(f"  #{k}: {n}" for k, n in enumerate(notations, start=1)) or "  (none)"


def illegal_retry(named: str, listing: str) -> str:
    """The user message after an answer that named a move that is not legal."""
    return (
        f"{named} is not one of your legal moves. Your legal moves are:\n{listing}\n"
        f"Answer with one line: {ANSWER_FORMAT} (the notation exactly as listed, or #<number>)."
    )


def unparsable_retry(why: str) -> str:
    """The user message after an answer that could not be read."""
    return (
        f"Your answer could not be read: {why}. Answer with exactly one line of the form\n"
        f"{ANSWER_FORMAT}\n"
        "where <notation> is one of your legal moves exactly as listed (or #<number>, its "
        "number in the list), and write that line once."
    )
