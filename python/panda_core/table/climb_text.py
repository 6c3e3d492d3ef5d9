"""The climbing games (``year``, ``spin``; docs/rules/year.md, spin.md) as a table shows them.

Every play is said as what it is ("pair of 3s", "run 4-5-6", "bomb: four 2s", "single 8 (Earth,
blue)") from the engine's classification (``game.move_info(move)["combo"]``, the ``combo`` of a
move event, the view's play to beat) with the rank names of the deck's catalogue
(``CardBook.rank``); what the preset calls its special cards, its panda's effect and its numbers
(show-out cap, game end) come from the rules object (``ClimbSettings``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from panda_core.table.cards import CardBook, CardDict
from panda_core.table.event_text import (
    EventLine,
    Group,
    GroupFold,
    Writer,
    count,
    last_finished,
    places_list,
    scores_text,
    write_event,
)
from panda_core.table.names import SeatNames

__all__ = ["PRESENTER", "ClimbPresenter", "describe_play"]

_RULES = {
    "pass": "S-6.1 pass: you are out of this trick; S-6.3 your white cards come back blue",
    "discard_element": "S-6.5 discard {an} {special} card; your turn goes on",
    "element": "S-5.3 / S-8 {an} {special} card whose condition holds for the play to beat",
    "single": "S-4.1 a single unit; S-5.1 beats a single of lower rank",
    "set": "S-4.2 units of one rank; S-5.1 beats a set of as many units, lower rank",
    "run": "S-4.3 2–5 consecutive ranks; S-5.1 beats a run of the same length, lower top",
    "formation": "S-4.4 copies of one run; S-5.1 same length and copies, lower top",
    "bomb": "S-4.5 four or more units of one rank (following only); S-5.2 beats any non-bomb",
}
_PASS_REASON = {
    "chosen": ("are out of this trick", "is out of this trick"),  # the move said "pass"
    "empty_hand": ("pass (empty hand)", "passes (empty hand)"),
    "forced": ("must pass", "must pass"),
}
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

CONDITIONS = {
    "run_or_formation_3_ranks": "a run or formation with 3 or more distinct ranks",
    "single": "a single",
    "set": "a set (2 or more units of one rank) that is not a bomb",
    "three_or_more_cards": "any play of 3 or more cards",
    "contains_blue": "any play with a card that showed its blue face",
}
"""The element / wind cards' play conditions (S-2.3), by the deck file's names."""

KIND_WORDS = ("pass", "single", "pair", "run", "formation", "bomb:", "play", "discard")
"""The first word of every move's description (a set of 3 or more starts with its number)."""


def number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _plural(rank: str) -> str:
    return f"{rank}s"


def describe_play(
    kind: str,
    combo: Mapping[str, Any] | None,
    cards: Sequence[int],
    faces: Sequence[str | None],
    book: CardBook,
) -> str:
    """What a play is, in words, from the engine's classification ``combo`` (``rank``,
    ``units``, ``length``, ``copies``, ``named``) of ``cards`` showing ``faces``: "pair of 3s",
    "three Qs", "run 4-5-6", "formation 4-4-5-5", "bomb: four 2s", "single 8 (Earth, blue)";
    wild units say the rank they were named ("run 7-8-9 (wild as 7)")."""
    if kind == "pass":
        return "pass"
    if kind in ("element", "discard_element"):
        label = " and ".join(f"the {book.label(c)} card" for c in cards) or "a card"
        return f"{'play' if kind == 'element' else 'discard'} {label}"
    if combo is None:
        return f"{kind} {book.tokens(cards)}".strip()
    rank = int(combo.get("rank", 0))
    units = int(combo.get("units", 1))
    length = max(1, int(combo.get("length", 1)))
    copies = max(1, int(combo.get("copies", 1)))
    name = book.rank(rank)
    if kind == "single":
        text = f"single {name}"
        if len(cards) == 1:
            suit = str(book.info(cards[0]).get("suit") or "").capitalize()
            face = faces[0] if faces else None
            text += f" ({suit}, {face})" if suit and face else f" ({suit or face})"
    elif kind == "set":
        text = f"pair of {_plural(name)}" if units == 2 else f"{number(units)} {_plural(name)}"
    elif kind == "bomb":
        text = f"bomb: {number(units)} {_plural(name)}"
    elif kind == "run":
        text = "run " + "-".join(book.rank(r) for r in range(rank - length + 1, rank + 1))
    elif kind == "formation":
        ranks = [book.rank(r) for r in range(rank - length + 1, rank + 1)]
        text = "formation " + "-".join(r for r in ranks for _ in range(copies))
    else:
        text = f"{kind} {name}"
    named = [book.rank(int(r)) for r in combo.get("named") or []]
    if named:
        text += f" ({'wild' if len(named) == 1 else 'wilds'} as {', '.join(named)})"
    return text


def with_article(phrase: str) -> str:
    """``"a pair of 3s"``, ``"three 3s"``, ``"the fire element card"``."""
    first = phrase.split(" ", 1)[0]
    return f"a {phrase}" if first in ("single", "pair", "run", "formation", "bomb:") else phrase


def _faces(cards: Sequence[int], blue: Sequence[int], book: CardBook) -> list[str | None]:
    shown = set(blue)
    return [book.face_of(c, shown) for c in cards]


def describe_event(event: Mapping[str, Any], book: CardBook) -> str:
    """What the move of a ``move`` event played (its ``kind``, ``cards``, ``blue``, ``combo``)."""
    cards = list(event.get("cards") or [])
    combo = event.get("combo")
    kind = str(event.get("kind") or "")
    if kind in ("element", "discard_element"):
        return describe_play(kind, None, cards, [], book)
    return describe_play(kind, combo, cards, _faces(cards, event.get("blue") or [], book), book)


def _move(e: EventLine) -> str:
    kind = e["kind"]
    if kind == "pass":
        return e.act("pass", "passes")
    what = describe_event(e.event, e.book)
    if kind in ("element", "discard_element"):
        verb, rest = what.split(" ", 1)
        return f"{e.act(verb, verb + 's')} {rest} ({e.cards()})"
    return f"{e.act('play', 'plays')} {with_article(what)}: {e.cards()}"


def _drawn(e: EventLine) -> str:
    drawn = f": {e.cards()}" if e["cards"] else ""
    return f"{e.act('draw', 'draws')} {count(e['count'], 'card')}{drawn}"


def _dealt(e: EventLine) -> str:
    dealt = f": {e.cards()}" if e["cards"] else ""
    return f"{e.act('get', 'gets')} {count(e['count'], 'card')}{dealt}"


def _returned(e: EventLine) -> str:
    cards = e["cards"] or []
    verb = "goes" if len(cards) == 1 else "go"
    return f"{e.cards()} {verb} back to {e.who}, {e['face']}"


def _trick_end(e: EventLine) -> str:
    if e["winner"] is None:
        return "the trick ends with no winner"
    return f"trick to {e.seat('winner')}"


EVENTS: dict[str, Writer] = {
    "move": _move,
    "pass": lambda e: e.act(*_PASS_REASON.get(e["reason"] or "", ("pass", "passes"))),
    "bamboo": lambda e: f"{e.who}: bamboo +{e['points']} (score {e['score']})",
    "steal": lambda e: (
        f"{e.act('take', 'takes')} {count(e['points'], 'point')} from {e.seat('victim')}"
    ),
    "flip": lambda e: f"{e.act('turn', 'turns')} {e.cards()} blue",
    "draw": _drawn,
    "trick_held": lambda e: f"{e.act('hold', 'holds')} the trick",
    "return": _returned,
    "discard": lambda e: f"discarded from {e.who}: {e.cards()}",
    "trick_end": _trick_end,
    "show_out": lambda e: f"{e.act('show', 'shows')} out: +{e['points']} (score {e['score']})",
    "round_end": lambda e: f"round {e.round()} over; {scores_text(e['scores'], e.names)}",
    "round_start": lambda e: (
        f"round {e.round()}: {e.act('start', 'starts', 'starter')}; draw pile {e['draw_pile_size']}"
    ),
    "deal": _dealt,
}
"""The line of each climbing-game event (docs/game_api.md, "Events")."""


def _special(rules: Any) -> str:
    """``"element"`` (``year``) or ``"wind"`` (``spin``): what cards 65–69 are called."""
    return str(getattr(rules, "special_cards", "element"))


def _cap(rules: Any) -> str:
    """`` (never above 19)`` when the preset caps what a symbol can bring a score to."""
    cap = getattr(rules, "symbol_cap", None)
    return f" (never above {cap})" if cap is not None else ""


def _panda_effect(rules: Any) -> str:
    effect = str(getattr(rules, "panda_effect", "hungry"))
    if effect == "flip":
        return "you may turn one white card of your hand blue, S-7.3"
    if effect == "steal":
        return f"you steal 1 point from an opponent you choose{_cap(rules)}, S-7.4"
    return "you take 1 point from the player whose play you beat, S-7.2"


def _symbol_effect(symbol: str, rules: Any) -> str:
    if symbol == "wild":
        return "wild: a unit of the rank you name, S-4.6"
    if symbol == "drop":
        return "drop: two units of one rank, never a bomb, S-4.5"
    if symbol == "bamboo":
        return f"bamboo: +1 point{_cap(rules)}, S-7.1"
    if symbol == "panda":
        return f"panda: {_panda_effect(rules)}"
    return symbol


def _face_words(info: Mapping[str, Any], face: str, rules: Any) -> str:
    text = str((info.get("faces") or {}).get(face, ""))
    symbols = list(dict.fromkeys((info.get("symbols") or {}).get(face) or []))
    effects = "; ".join(_symbol_effect(s, rules) for s in symbols)
    return text + (f" ({effects})" if effects else "")


def card_help(info: Mapping[str, Any], face: str | None, rules: Any) -> str:
    """The help line of a climbing card showing ``face``: the card, its face now and its other
    face with their symbols' effects (S-1.4, S-1.6, S-7), or an element / wind card's play
    condition and effect (S-2.3, S-5.3, S-8)."""
    label = str(info.get("label") or info.get("token"))
    if info.get("kind") == "element":
        special = _special(rules)
        condition = CONDITIONS.get(str(info.get("condition")), "its condition (S-2.3)")
        if special == "wind":
            effect = "you draw 2 cards and hold the trick; the play to beat stays (S-8.2)"
        else:
            effect = "it wins the trick at once and you draw 2 cards (S-8.1)"
        number_note = f" (number {info['value']}, S-3.2)" if special == "element" else ""
        return (
            f"{label} card{number_note}: may be played on a play that is {condition} "
            f"(S-2.3, S-5.3); {effect}. Never on a bomb or an empty table (S-8.3); you may "
            "discard it on your turn (S-6.5)."
        )
    now = face if face in ("white", "blue") else "white"
    other = "blue" if now == "white" else "white"
    return (
        f"{label}: shows its {now} face, {_face_words(info, now, rules)}. "
        f"Its {other} face: {_face_words(info, other, rules)}."
    )


_PANDA_SUMMARY = {
    "hungry": "takes a point from the player whose play it beats",
    "flip": "lets you turn a white card of your hand blue",
    "steal": "steals a point from an opponent you choose",
}


def _summary(rules: Any) -> str:
    special = _special(rules)
    if rules is None:
        cap = "capped in year, not in spin"
        end = "The game ends at its target score: at a trick end (year), by showing out (spin)"
        panda = "takes a point (year, mood hungry), turns a card blue (flip) or steals (spin)"
        special = "element / wind"
        effect = "win (year) or hold (spin)"
    else:
        show_cap = getattr(rules, "show_out_cap", None)
        cap = "no cap" if show_cap is None else f"at most {show_cap}"
        target = getattr(rules, "game_end_score", None)
        end = (
            f"The game ends when someone reaches {target} at a trick end"
            if special == "element"
            else f"A player reaching {target} by showing out wins"
        )
        panda = _PANDA_SUMMARY.get(str(getattr(rules, "panda_effect", "")), "takes a point")
        effect = "win" if special == "element" else "hold"
    return "\n".join(
        [
            "Climbing game (year: docs/rules/year.md, spin: docs/rules/spin.md). "
            "Get rid of your cards.",
            "S-1/S-2 Cards have a white face and a stronger blue face; "
            f"{special} cards are played on plays.",
            "S-4  Plays: single, set (one rank), run (2–5 ranks), formation (copies of a run), "
            "bomb (4+).",
            "S-5  Beat the play with the same kind and shape and a higher rank; a bomb beats "
            "anything else.",
            "S-6  Beat or pass; a pass is final for the trick. Passed white cards come back to "
            "you blue.",
            f"S-7  Symbols: bamboo scores a point, the panda {panda}, fire is wild.",
            f"S-8  {'An' if special[0] in 'aeiou' else 'A'} {special} card whose condition "
            f"holds for the play to beat: draw 2, {effect} the trick.",
            f"S-9  Emptying your hand shows you out: you score the largest hand held ({cap}).",
            f"S-10 {end}.",
        ]
    )


SUMMARY = _summary(None)
"""The rules in brief without a game's rules object (both presets' numbers)."""


def _group(kind: str, combo: Mapping[str, Any] | None, rules: Any) -> dict[str, Any]:
    """A legal move's group: one order for both presets (passes, singles, sets by size, runs by
    length, formations, bombs, element / wind cards, discards)."""
    units = int((combo or {}).get("units", 1))
    length = int((combo or {}).get("length", 1))
    copies = int((combo or {}).get("copies", 1))
    special = _special(rules)
    if kind == "pass":
        return {"order": 0, "label": "pass"}
    if kind == "single":
        return {"order": 100, "label": "singles"}
    if kind == "set":
        return {"order": 200 + units, "label": "pairs" if units == 2 else f"sets of {units}"}
    if kind == "run":
        return {"order": 300 + length, "label": f"runs of {length}"}
    if kind == "formation":
        return {
            "order": 400 + 10 * copies + length,
            "label": f"formations: {number(copies)} runs of {length}",
        }
    if kind == "bomb":
        return {"order": 500 + units, "label": f"bombs of {units}"}
    if kind == "element":
        return {"order": 600, "label": f"{special} cards"}
    return {"order": 700, "label": f"discard {special} cards"}


def _describe_to_beat(to_beat: Mapping[str, Any], book: CardBook) -> str:
    """The view's play to beat in words (its ``has_blue`` is the face of a single's card)."""
    cards = list(to_beat.get("cards", []))
    faces: list[str | None] = (
        ["blue" if to_beat.get("has_blue") else "white"] if len(cards) == 1 else []
    )
    return describe_play(str(to_beat.get("kind", "")), to_beat, cards, faces, book)


def _trick_plays(events: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The move events of the trick being played (since the last trick end or round start):
    found from the end, so a long log costs no more than a short one."""
    start = 0
    for i in range(len(events) - 1, -1, -1):
        if events[i].get("type") in ("trick_end", "round_start"):
            start = i + 1
            break
    return [e for e in events[start:] if e.get("type") == "move" and e.get("kind") != "pass"]


def _deal_title(event: Mapping[str, Any]) -> str | None:
    """A round's start opens its deal group (the seats' ``deal`` events join it)."""
    if event.get("type") == "round_start":
        return f"round {int(event.get('round', 0)) + 1}"
    return None


def _trick_title(_event: Mapping[str, Any], n: int) -> str:
    return f"trick {n}"


_CLOSES = frozenset({"trick_end"})


def groups(events: Sequence[Mapping[str, Any]]) -> list[Group]:
    """The events by trick: a round's deal, then ``trick 1``, ``trick 2`` … (a trick ends with
    its ``trick_end``, S-6.4; its show-outs and the round's end stay with it)."""
    return GroupFold(_trick_title, _CLOSES, _deal_title).feed(events)


class ClimbPresenter:
    round_word = "round"

    def log_fold(self) -> GroupFold:
        return GroupFold(_trick_title, _CLOSES, _deal_title)

    def last_trick(
        self,
        events: Sequence[Mapping[str, Any]],
        book: CardBook,
        names: SeatNames,
        grouped: Sequence[Group] | None = None,
    ) -> dict[str, Any] | None:
        """The last finished trick: its plays (passes left out) and its winner (S-6.4)."""
        listed = events if isinstance(events, list) else list(events)
        last = last_finished(groups(listed) if grouped is None else grouped)
        if last is None:
            return None
        moves = [
            e
            for e in listed[last.first : last.last + 1]
            if e.get("type") == "move" and e.get("kind") != "pass"
        ]
        plays = [
            {
                "player": e.get("player"),
                "text": f"{names(e.get('player'))}:",
                "cards": book.cards(e.get("cards") or [], e.get("blue") or []),
                "describe": describe_event(e, book),
            }
            for e in moves
        ]
        winner = last.end.get("winner") if last.end is not None else None
        text = (
            f"{last.title} to {names(winner)}" if winner is not None else f"{last.title}: no winner"
        )
        return {"title": last.title, "plays": plays, "winner": winner, "text": text}

    def places(
        self,
        placements: Sequence[int],
        scores: Sequence[int],
        events: Sequence[Mapping[str, Any]],
        names: SeatNames,
    ) -> list[dict[str, Any]]:
        """Game over by place: the winner (S-10, ties already broken by the engine) first, then
        the highest scores; equal scores tie (the registry's placements)."""
        ranked = sorted(range(len(scores)), key=lambda s: (placements[s], s))
        return places_list(ranked, lambda s: placements[s], scores, names)

    def seat_status(
        self, view: Mapping[str, Any], book: CardBook, names: SeatNames
    ) -> list[list[dict[str, str]]]:
        """Per seat: shown out (S-9.1), passed this trick (S-6.1), holds the trick (S-6)."""
        trick = view["trick"]
        shown = set(view.get("shown_out") or [])
        passed = set(trick.get("passed") or [])
        holder = trick.get("holder") if trick.get("to_beat") else None
        out: list[list[dict[str, str]]] = []
        for seat in range(len(view["hand_sizes"])):
            status = []
            if seat in shown:
                status.append(
                    {"word": "shown out", "text": "shown out: no cards left this round (S-9.1)"}
                )
            elif seat in passed:
                status.append({"word": "passed", "text": "passed: out of this trick (S-6.1)"})
            if seat == holder:
                status.append(
                    {
                        "word": "holds the trick",
                        "text": "holds the trick: everyone else must "
                        "beat the play to beat or pass (S-6.4)",
                    }
                )
            out.append(status)
        return out

    def describe(self, event: Mapping[str, Any], book: CardBook, names: SeatNames) -> str:
        return write_event(EVENTS, event, book, names)

    def describe_move_event(self, event: Mapping[str, Any], book: CardBook) -> str:
        """What a move event played, without the player: "pair of 3s", "pass"."""
        return describe_event(event, book)

    def hand(self, view: Mapping[str, Any], book: CardBook) -> list[CardDict]:
        return [book.card(c, f) for c, f in zip(view["hand"], view["hand_faces"], strict=True)]

    def card_help(self, info: Mapping[str, Any], face: str | None, rules: Any) -> str:
        return card_help(info, face, rules)

    def table_area(
        self,
        view: Mapping[str, Any],
        book: CardBook,
        names: SeatNames,
        events: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        trick = view["trick"]
        blue = view["blue"]
        to_beat = trick.get("to_beat")
        moves = _trick_plays(events)
        plays = []
        for seat, cards in enumerate(trick["played"]):
            if not cards:
                continue
            on_table = set(cards)
            said = [
                describe_event(e, book)
                for e in moves
                if e.get("player") == seat and e.get("cards") and set(e["cards"]) <= on_table
            ]
            if not said and to_beat and to_beat.get("player") == seat:
                said = [_describe_to_beat(to_beat, book)]  # a position without its log
            plays.append(
                {
                    "player": seat,
                    "text": f"{names(seat)}:",
                    "cards": book.cards(cards, blue),
                    "describe": ", then ".join(said) or book.tokens(cards),
                }
            )
        beat_text = None
        if to_beat:
            cards = list(to_beat.get("cards", []))
            what = _describe_to_beat(to_beat, book)
            player = to_beat.get("player")
            beat_text = what if player is None else f"{what} by {names(player)}"
            beat_text += f": {book.tokens(cards)}"
            holder = trick.get("holder")
            if holder is not None and holder != player:
                beat_text += f"; {names.act(holder, 'hold', 'holds')} the trick"
        notes = [f"leader: {names(trick['leader'])}"]
        if trick["passed"]:
            notes.append(f"passed: {names.list(trick['passed'])}")
        if view.get("shown_out"):
            notes.append(f"shown out: {names.list(view['shown_out'])}")
        if getattr(book.rules, "panda_effect", "hungry") in ("hungry", "flip"):
            notes.append(f"panda mood: {view['panda_mood']}")  # spin ignores the mood (S-7.6)
        return {"title": "trick", "plays": plays, "to_beat": beat_text, "notes": notes}

    def move(
        self,
        move: Any,
        book: CardBook,
        view: Mapping[str, Any],
        game: Any = None,
        names: SeatNames | None = None,
    ) -> dict[str, Any]:
        faces = dict(zip(view["hand"], view["hand_faces"], strict=True))
        kind = str(move.kind)
        combo = None
        if game is not None and kind not in ("pass", "element", "discard_element"):
            combo = game.move_info(move)["combo"]
        cards = list(move.cards)
        text = describe_play(kind, combo, cards, [faces.get(c) for c in cards], book)
        if move.flip:
            text += f", turn {book.tokens(move.flip)} blue"
        if move.steal:
            who = names or SeatNames([f"seat {s}" for s in range(len(view["hand_sizes"]))])
            text += f", steal from {who.list(list(move.steal))}"
        return {
            "text": text,
            "cards": [book.card(c, faces.get(c)) for c in cards],
            "group": _group(kind, combo, book.rules),
            "rule": self.rule_of(move, book.rules),
        }

    def rule_of(self, move: Any, rules: Any = None) -> str:
        """The rule that allows ``move``; with the game's ``rules``, its special cards in their
        preset's word (element / wind)."""
        special = _special(rules) if rules is not None else "element or wind"
        an = "an" if special[0] in "aeiou" else "a"
        return _RULES.get(move.kind, "S-6").format(an=an, special=special)

    def round_text(self, result: Mapping[str, Any], names: SeatNames) -> str:
        out = names.list(result.get("shown_out", []))
        return f"round {result['round']}: shown out: {out}; {scores_text(result['scores'], names)}"

    def notation_legend(self, cards: Sequence[Mapping[str, Any]]) -> str:
        """The climbing games' cards and moves in words: what an LLM agent's prompt explains."""
        suits: dict[str, str] = {}
        for c in cards:
            if c.get("suit") and c["kind"] != "element":
                suits.setdefault(str(c["token"])[:2], str(c["suit"]))
        names = ", ".join(f"{k} {v}" for k, v in suits.items())
        special = next((c for c in cards if c["kind"] == "element"), None)
        example = ""
        if special is not None:
            shown = next(iter((special.get("faces") or {}).values()), "")
            example = f" [{special['token']}:{shown}] is the {special['label']} card."
        return (
            "Cards are written in brackets as suit and rank, then the face the card shows after a "
            "colon: [Ea8:8] is earth 8 showing its white face, [Ea8:Q + panda, blue] the same "
            "card showing its blue face (rank Q, a panda symbol). "
            f"Suits: {names}.{example} "
            "A move's notation is its kind and its cards joined by +, such as 'single Ea6', "
            "'set Ea6+Wo6', 'run Wo9+Wo10', or 'pass'."
        )

    def summary(self, rules: Any = None) -> str:
        """The rules in brief with their IDs; with the game's ``rules``, its own numbers."""
        return _summary(rules)


PRESENTER = ClimbPresenter()
