"""What a person reads in the terminal, per game (issue 22): the words of the plays, what their
own move caused, a log that keeps the group it is in whole on 80×24, ``?`` on a move or a card,
the seats' status, the last trick and game over by place.

Most tests build a state with the table model and lay it out with the render functions the
commands use (fast); the ones through the pseudo-terminal replay a seeded game there, so the
screen they read is the one a person sees.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pexpect
import pytest
from rich.console import Console

from panda_core.table import Replay, Table
from panda_core.tui import log as tui_log
from panda_core.tui import render
from panda_core.tui.moves import MovePicker, parse_line
from tui_support import (
    ENTER,
    REPR,
    TURN_PROMPT,
    Pty,
    card_tokens,
    check_no_hidden_token,
    move_cells,
    plain,
    screens,
)

GAMES = ("head", "year", "spin")
RULES: dict[str, dict[str, Any]] = {"head": {"bust_threshold": 6}, "year": {}, "spin": {}}
RULE_ARGS = {"head": ["--rule", "bust_threshold=6"], "year": [], "spin": []}


def draw(renderable: Any, height: int = 24) -> list[str]:
    """The lines ``renderable`` takes on an 80-column terminal, as text."""
    console = Console(
        file=io.StringIO(), width=80, height=height, color_system=None, force_terminal=False
    )
    with console.capture() as captured:
        console.print(renderable)
    return captured.get().rstrip("\n").split("\n")


def table_at(name: str, seed: int = 1, turns: int = 0) -> Table:
    """A two-seat table (a person at seat 0, ``random`` at seat 1) after ``turns`` of the
    person's turns, each playing its first legal move."""
    table = Table(name, players=2, seats=["human", "random"], seed=seed, **RULES[name])
    table.advance()
    for _ in range(turns):
        if table.is_over:
            break
        table.play(0, 0)
        table.advance()
    return table


def caused(table: Table, index: int) -> list[str]:
    """Play legal move ``index`` for seat 0; what the screen must say it caused (the table
    model's ``consequences``)."""
    table.play(0, index)
    return render.consequence_texts(table.state(0))


def number_of(state: dict[str, Any], index: int) -> int:
    """The number the screen gives the table model's legal move ``index``."""
    picker = MovePicker(state["legal"])
    return next(k + 1 for k, m in enumerate(picker.legal) if m["index"] == index)


def consequential_turns(name: str, seed: int) -> tuple[list[int], list[str]]:
    """Move numbers for seat 0 (1-based, as typed) until one of its moves caused something it
    must be told (a card drawn or turned up, cards back in its hand), and what that was."""
    table = Table(name, players=2, seats=["human", "random"], seed=seed, **RULES[name])
    table.advance()
    picks: list[int] = []
    for _ in range(60):
        state = table.state(0)
        mine = any(p["player"] == 0 for p in state["table"].get("plays") or [])
        index = 0
        for move in state["legal"]:
            if "+B" in move["notation"] or (move["notation"] == "pass" and mine):
                index = move["index"]
                break
        picks.append(number_of(state, index))
        texts = caused(table, index)
        if any(re.search(r"draw|turned up|go back to you|come back", t) for t in texts):
            return picks, texts
        table.advance()
        assert not table.is_over
    raise AssertionError("no consequential move found")


# ---- the log: groups, the current one whole -------------------------------------------------


def groups_of(*sizes: int) -> list[tui_log.Group]:
    seq = 0
    out = []
    for k, size in enumerate(sizes):
        lines = tuple((seq + i, f"event {seq + i}") for i in range(size))
        seq += size
        out.append(tui_log.Group(f"trick {k + 1}", lines, k == len(sizes) - 1))
    return out


def test_log_shows_whole_groups_newest_first() -> None:
    log = groups_of(3, 4, 2)
    text = [line.plain for line in tui_log.lines_for(log, 7, 80)]
    # trick 3 (2 lines) and trick 2 (4 lines) fit in 7; trick 1 (3 more) does not: left out
    # whole, never a part of it
    assert len(text) == 6
    assert text[0].startswith("trick 2") and text[4].startswith("trick 3")
    assert not any("event 2" in t or "event 0" in t for t in text)
    assert [t.split("│ ")[1] for t in text] == [f"event {k}" for k in range(3, 9)]


def test_log_too_long_current_group_keeps_its_newest_lines_and_says_so() -> None:
    log = groups_of(3, 12)
    text = [line.plain for line in tui_log.lines_for(log, 5, 80)]
    assert len(text) == 5
    assert "8 earlier lines of this group: l shows the whole log" in text[0]
    assert [t.split("│ ")[1] for t in text[1:]] == [f"event {k}" for k in range(11, 15)]


def test_log_groups_come_from_the_state() -> None:
    state = {
        "events": [{"seq": i, "type": "move", "text": f"line {i}"} for i in range(6)],
        "log": [
            {"title": "trick 1", "seqs": [0, 2], "current": False},
            {"title": "trick 2", "seqs": [3, 5], "current": True},
        ],
    }
    found = tui_log.groups(state)
    assert [g.title for g in found] == ["trick 1", "trick 2"]
    assert [len(g.lines) for g in found] == [3, 3] and found[-1].current
    whole = tui_log.whole_log_text(found)
    assert "── trick 2 (now)" in whole and "line 5" in whole


@pytest.mark.parametrize("name", GAMES)
def test_play_screen_keeps_the_current_group_whole_at_80x24(name: str) -> None:
    """At many turns of a game (3 seats) the screen is 23 lines (the prompt is the 24th) and its
    log is the newest groups, each one whole: the current one (or its newest lines under the
    note that says how many earlier lines ``l`` shows), then older ones, never part of one. So
    a line that explains a later one of its trick ("draws 2 cards" and the element card) is
    never on the screen without it."""
    table = Table(name, players=3, seats=["human", "random", "heuristic"], seed=2, **RULES[name])
    table.advance()
    for turn in range(40):
        if table.is_over:
            break
        state = table.state(0)
        lines = draw(render.play_screen(state, MovePicker(state["legal"]), height=24))
        assert len(lines) <= 23 and max(map(len, lines)) <= 80, "\n".join(lines)
        blocks: list[tuple[str, list[str]]] = []
        for line in lines:
            if "│ " not in line:
                continue
            gutter, text = line.split("│ ", 1)
            if gutter.strip() or not blocks:
                blocks.append((gutter.strip(), []))
            blocks[-1][1].append(text)
        log = tui_log.groups(state)
        shown = log[-len(blocks) :] if blocks else []
        assert [b[0] for b in blocks] == [g.title[: tui_log.GUTTER_MAX] for g in shown]
        for k, ((_title, texts), group) in enumerate(zip(blocks, shown, strict=True)):
            wanted = [t for _seq, t in group.lines]
            if texts and "earlier lines of this group" in texts[0]:
                assert k == len(blocks) - 1  # only the current group is ever cut, from the top
                texts, wanted = texts[1:], wanted[len(wanted) - len(texts) + 1 :]
            assert len(texts) == len(wanted), ("\n".join(lines), wanted)
            for drawn, text in zip(texts, wanted, strict=True):
                assert text.startswith(drawn.rstrip().rstrip("…")), (drawn, text)
        table.play(0, state["legal"][(7 * turn) % len(state["legal"])]["index"])
        table.advance()


# ---- the words on the screen ----------------------------------------------------------------


@pytest.mark.parametrize("name", GAMES)
def test_moves_and_plays_show_the_table_models_words(name: str) -> None:
    """Each move on the screen says what it is in the table model's words, beside its notation;
    a play on the table is drawn with its description and its cards."""
    table = table_at(name, turns=2)
    state = table.state(0)
    picker = MovePicker(state["legal"])
    lines = draw(render.play_screen(state, picker, height=60))
    text = "\n".join(lines)
    cells = move_cells(lines)
    for number, move in picker.shown():
        words = str(move.get("text") or move["notation"])
        assert cells[number][0].rstrip("…") == words[: len(cells[number][0].rstrip("…"))]
        if len(cells[number]) == 2:  # the notation beside the words when there is room
            assert cells[number][1] == move["notation"]
    for play in state["table"].get("plays") or []:
        assert str(play.get("describe") or play["text"])[:10] in text
    assert not REPR.search(text), text


@pytest.mark.parametrize("name", GAMES)
def test_after_your_move_is_shown(name: str) -> None:
    picks, texts = consequential_turns(name, 1)
    table = Table(name, players=2, seats=["human", "random"], seed=1, **RULES[name])
    table.advance()
    for number in picks:
        state = table.state(0)
        table.play(0, int(MovePicker(state["legal"]).index_of(number) or 0))
        table.advance()
    state = table.state(0)
    assert render.consequence_texts(state) == texts  # still there at the next turn
    lines = draw(render.play_screen(state, MovePicker(state["legal"])))
    start = next(k for k, line in enumerate(lines) if line.startswith("After your move: "))
    end = next(k for k, line in enumerate(lines) if line.startswith("Log"))
    block = " ".join(line.strip() for line in lines[start:end])
    assert texts[0] in block, (texts, lines)


def test_after_your_move_lines() -> None:
    state = {"consequences": [{"text": "you draw 2 cards: Wo5 Fi3"}, {"text": ""}]}
    assert render.consequence_texts(state) == ["you draw 2 cards: Wo5 Fi3"]
    assert render.consequence_texts({}) == []
    lines = render.after_lines([f"a longish consequence number {k}" for k in range(9)])
    assert len(lines) == 2 and "more: l" in lines[-1].plain
    shown = render.after_lines(["x"], lead="After your last move (round 1): ")
    assert [line.plain for line in shown] == ["After your last move (round 1): x"]
    assert max(line.cell_len for line in lines) <= 80


def test_seat_status_row_and_places() -> None:
    state = table_at("head").state(0)
    state["seat_status"] = [[{"word": "Drowsy", "text": "score back to 0"}], []]
    lines = draw(render.seats_table(state))
    assert len(lines) == render.seats_height(state) == 4
    assert lines[3].split()[:2] == ["status", "Drowsy"]
    state["places"] = [
        {"place": 1, "seats": [1], "scores": [3], "text": "seat 1 wins: the last one in"},
        {"place": 2, "seats": [0], "scores": [7], "text": "you are Pooped"},
    ]
    state["winner"] = 1
    text = "\n".join(draw(render.game_summary(state, "g.json")))
    assert "Final places" in text
    rows = [line.split() for line in text.splitlines() if re.match(r"\s*[12]\s+[01]\s", line)]
    assert [r[:2] for r in rows] == [["1", "1"], ["2", "0"]]


def test_moves_are_numbered_in_group_order() -> None:
    legal = [
        {"index": 0, "notation": "run", "group": {"order": 5, "label": "runs of 3"}},
        {"index": 1, "notation": "pass", "group": {"order": 0, "label": "pass"}},
        {"index": 2, "notation": "single", "group": {"order": 1, "label": "singles"}},
    ]
    picker = MovePicker(legal)
    assert [m["notation"] for _n, m in picker.shown()] == ["pass", "single", "run"]
    assert picker.index_of(1) == 1 and picker.index_of(3) == 0
    picker.set_filter("runs of")
    assert [n for n, _m in picker.matching()] == [3]


def test_explain_commands_parse() -> None:
    assert parse_line("?") .kind == "help"  # fmt: skip
    assert (parse_line("? 12").kind, parse_line("? 12").text) == ("explain", "12")
    assert (parse_line("?Ea8").kind, parse_line("?Ea8").text) == ("explain", "Ea8")
    assert parse_line("l").kind == "log" and parse_line("t").kind == "last"


@pytest.mark.parametrize("name", GAMES)
def test_card_and_move_help_texts(name: str) -> None:
    state = table_at(name, turns=1).state(0)
    card = state["hand"][0]
    said = render.card_help_text(card)
    assert said.startswith(render.card_text(card).plain)
    if card.get("help"):
        assert card["help"] in said
    assert render.find_card(state, str(card["token"]).lower()) is not None
    assert render.find_card(state, "Zz99") is None
    move = MovePicker(state["legal"]).legal[0]
    about = render.move_help_text(1, move)
    assert about.startswith(f"Move 1: {move.get('text') or move['notation']}")
    for c in move.get("cards") or []:
        assert render.card_help_text(c) in about
    if move.get("rule"):
        assert move["rule"] in about


@pytest.mark.parametrize("name", GAMES)
def test_last_trick_text(name: str) -> None:
    table = table_at(name)
    state = table.state(0)
    state["last_trick"] = None
    assert render.last_trick_text(state).startswith("No ")
    state["last_trick"] = {
        "title": "trick 3",
        "plays": [{"player": 1, "text": "seat 1:", "describe": "pair of 3s", "cards": []}],
        "winner": 1,
        "text": "seat 1 wins the trick",
    }
    text = render.last_trick_text(state)
    assert text.splitlines()[0] == "trick 3" and "pair of 3s" in text and "wins" in text


# ---- through the pseudo-terminal ------------------------------------------------------------


def play_args(name: str, seed: int) -> list[str]:
    return ["play", "--game", name, "--players", "2", "--bots", "random", "--seed", str(seed),
            "--save", "game.json", *RULE_ARGS[name]]  # fmt: skip


# Panda Head in the inner loop (pytest -m "not slow"), every game in CI.
@pytest.mark.parametrize(
    "name", [GAMES[0], *(pytest.param(g, marks=pytest.mark.slow) for g in GAMES[1:])]
)
def test_pty_after_your_move_and_help(name: str, tmp_path: Path) -> None:
    """Through the pty: ``? 1`` explains move 1, ``? TOKEN`` a card of the hand, and after a
    move that drew, turned up or brought back cards the next screen says so."""
    picks, texts = consequential_turns(name, 1)
    pty = Pty(play_args(name, 1), tmp_path)
    try:
        pty.expect(TURN_PROMPT)
        state = table_at(name).state(0)
        pty.send("? 1")
        pty.expect("Enter: ")
        move = MovePicker(state["legal"]).legal[0]
        assert f"Move 1: {move.get('text') or move['notation']}"[:60] in pty.text()
        pty.send("")
        pty.expect(TURN_PROMPT)
        card = state["hand"][-1]
        pty.send(f"? ={card['token']}")
        pty.expect("Enter: ")
        assert render.card_help_text(card)[:60] in pty.text(), pty.text()
        pty.send("")
        for number in picks:
            pty.expect(TURN_PROMPT)
            pty.send(str(number))
        while pty.expect([TURN_PROMPT, ENTER]) == 1:
            pty.send("")
        shown = " ".join(line.strip() for line in pty.display())
        assert re.search(r"After your (last )?move( \((hand|round) \d+\))?: ", shown), shown
        assert texts[0][:40] in shown, (texts, pty.text())
        pages = []
        for key in ("l", "t"):  # the whole log, the last trick: nothing hidden on them either
            pty.send(key)
            pty.expect("Enter: back to the game")
            pages.append(pty.text())
            pty.send("")
            pty.expect(TURN_PROMPT)
        assert "The whole log" in pages[0] and "Last trick" in pages[1]
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        pty.close()
    if name != "head":  # tokens are unique in the climbing games (see check_hides)
        record = (tmp_path / "game.json").read_text()
        full, mine = Replay(record), Replay(record, seat=0)
        now = len(full) - 1
        for page in pages:
            assert not REPR.search(page), page
            check_no_hidden_token(full.frame(now), mine.frame(now), page)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_pty_whole_game_words_status_places(name: str, tmp_path: Path) -> None:
    """A whole game through the pty (always move 1): no Python repr on any screen, "card(s)"
    nowhere, every hand summary with its ending events (Drowsy, Pooped), the seats' status when
    the table model gives one, and game over by place."""
    pty = Pty(play_args(name, 4), tmp_path)
    summaries = 0
    try:
        while True:
            which = pty.expect([TURN_PROMPT, ENTER, pexpect.EOF])
            if which == 2:
                break
            if which == 1:
                summaries += 1
                assert re.search(rf"(Hand|Round) {summaries} is over", pty.text())
                assert not card_tokens(pty.text())
                pty.send("")
                continue
            pty.send("1")
    finally:
        status = pty.close()
    assert status == 0
    out = plain(pty.transcript)
    for screen in screens(pty.transcript):
        assert not REPR.search(screen), screen
    assert "card(s)" not in out
    record = (tmp_path / "game.json").read_text()
    final = Replay(record, seat=0).frame(len(Replay(record)) - 1)
    for event in final["events"]:
        if event["type"] in ("drowsy", "pooped"):
            assert event["text"][:50] in out, event
    if final.get("places"):
        assert "Final places" in out
        first = final["places"][0]
        assert re.search(rf"\n\s*1\s+{first['seats'][0]}\s", out), out[-2000:]
    if any(final.get("seat_status") or []):
        assert "status" in out


def test_replay_log_and_last_trick_screens() -> None:
    """``l`` in the replay shows the log up to the frame by group; ``t`` the last trick."""
    from panda_core.table import Replay
    from panda_core.tui.replay import ReplayViewer
    from panda_core.tui.terminal import Terminal, make_console

    table = Table("year", players=2, seats=["random", "random"], seed=3)
    table.advance()
    replay = Replay(table.record())
    card = replay.frame(30)["hands"][1][0]
    out = io.StringIO()
    keys = f"g 30\nl\n\nt\n\n? {card['token']}\n\n?zz\nq\n"
    term = Terminal(make_console(True, out), io.StringIO(keys))
    assert ReplayViewer(replay, term, None).run() == 0
    text = out.getvalue()
    assert "The log up to here" in text and "── " in text
    assert "Last trick" in text
    assert render.card_help_text(card)[:60] in text
    assert 'no card "zz" on the screen' in text
    assert not REPR.search(text.split("The log up to here")[1])


def test_hot_seat_summaries_come_from_the_spectators_state() -> None:
    """At a hot seat everyone sees the hand summaries: they are drawn from the state a spectator
    is shown (no hand, no private card in the closing events), not from one person's."""
    from panda_core.tui.play import PlaySession
    from panda_core.tui.terminal import Terminal, make_console

    table = Table("year", players=3, seats=["human", "human", "random"], seed=2)
    term = Terminal(make_console(True, io.StringIO()), io.StringIO(""))
    public = PlaySession(table, term)._public()
    assert public["seat"] is None and public.get("spectator") is True and not public["hand"]
    alone = Table("year", players=2, seats=["human", "random"], seed=2)
    assert PlaySession(alone, term)._public()["seat"] == 0


@pytest.mark.parametrize("name", GAMES)
def test_replay_log_says_what_the_table_said(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game played by ``play`` (its loop, in-process) and saved; ``replay --log --seat 0``
    prints exactly the lines the table showed that seat, seat names included."""
    from panda_core.cli import main
    from panda_core.tui.play import PlaySession
    from panda_core.tui.terminal import Terminal, make_console

    table = Table(name, players=2, seats=["human:you", "random"], seed=6, **RULES[name])
    term = Terminal(make_console(True, io.StringIO()), io.StringIO("1\n" * 3000))
    path = tmp_path / "game.json"
    assert PlaySession(table, term, path).run() == 0 and table.is_over
    shown = [str(e["text"]) for e in table.state(0)["events"]]
    assert main(["replay", str(path), "--log", "--seat", "0"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == shown
    assert any("(random)" in line for line in printed)
    assert not any(REPR.search(line) or "card(s)" in line for line in printed)
