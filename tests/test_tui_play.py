"""``panda-core play`` through a real pseudo-terminal (pexpect, 80×24, TERM=xterm-256color).

A person (this test) plays complete games of all three kinds against fast bots, picking moves
by number and sometimes by notation, types bad keystrokes, asks for help, quits with ``q``, with
end of input and with Ctrl-C, and plays hot seat. What the terminal shows is read through a pyte
screen: every screen fits 80×24, the final summary matches the saved record replayed by
``from_json``, and no card of another seat's hand is ever shown unless it is public.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from panda_core import ClimbGame, HeadGame
from panda_core.table import Replay
from tui_support import (
    ENTER,
    PLAY_EVENTS,
    READY,
    TURN_PROMPT,
    Pty,
    card_tokens,
    check_hides,
    move_cells,
    moves_on_screen,
    plain,
    screens,
)

GAMES = ("head", "year", "spin")
TITLES = {"head": "Panda Head", "year": "Year of the Panda", "spin": "Panda Spin"}
# Short games: 2 players, fast bots; Panda Head with a low bust threshold.
QUICK = {"head": ["--rule", "bust_threshold=6"], "year": [], "spin": []}
PROMPTS = [TURN_PROMPT, ENTER, READY, pexpect.EOF]


def load(name: str, text: str) -> HeadGame | ClimbGame:
    """The game of a record ``play`` saved: the engine's record inside the one with names."""
    names = json.loads(text)
    assert set(names) == {"panda_table", "names", "record"}
    record = json.dumps(names["record"])
    return HeadGame.from_json(record) if name == "head" else ClimbGame.from_json(record)


def play_args(name: str, seed: int, *extra: str) -> list[str]:
    return [
        "play",
        "--game",
        name,
        "--players",
        "2",
        "--bots",
        "random",
        "--seed",
        str(seed),
        "--save",
        "game.json",
        *QUICK[name],
        *extra,
    ]


def pick(pty: Pty, rng: random.Random, turn: int) -> str:
    """A move from the screen: its number, or every fifth turn its notation (when the screen
    shows it whole beside the move's words, or the words are the notation)."""
    cells = move_cells(pty.display())
    assert cells, pty.text()
    number = rng.choice(sorted(cells))
    notation = cells[number][-1]
    typed = len(cells[number]) == 2 or notation in ("pass", "BP", "B")
    if turn % 5 == 4 and "…" not in notation and typed:
        return f"={notation}" if notation.isdigit() else notation
    return str(number)


def check_fits(transcript: str) -> None:
    """Every screen drawn is at most 24 lines of at most 80 columns (the prompt line holds
    what the person typed, echoed by the terminal: it counts as a line, not for the width)."""
    for screen in screens(transcript):
        lines = screen.rstrip("\n ").split("\n")
        assert len(lines) <= 24, screen
        drawn = [line for line in lines if not line.startswith("> ")]
        assert max(map(len, drawn), default=0) <= 80, screen


def drive(pty: Pty, name: str, rng: random.Random, seat: int = 0) -> list[list[str]]:
    """Play until the game ends; the screen at the start of each of ``seat``'s turns."""
    turns: list[list[str]] = []
    fresh = True
    summaries = 0
    while True:
        which = pty.expect(PROMPTS)
        if which == 0:
            display = pty.display()
            assert display[0].startswith(TITLES[name]), pty.text()  # nothing scrolled away
            if fresh:
                turns.append(display)
            pty.send(pick(pty, rng, len(turns)))
            fresh = True
        elif which in (1, 2):
            assert not card_tokens(pty.text()), pty.text()  # summaries show no hand
            if which == 1:
                summaries += 1
                assert re.search(rf"(Hand|Round) {summaries} is over", pty.text()), pty.text()
            pty.send("")
        else:
            return turns


def final_summary(display: list[str]) -> tuple[int, list[int]]:
    """The winner and the scores by seat, read from the game-over screen (seats by place)."""
    text = "\n".join(display)
    won = re.search(r"Game over: Seat (\d) \(.*?\) wins", text)
    assert won, text
    start = next(k for k, line in enumerate(display) if line.startswith("Final places"))
    by_seat = {}
    for line in display[start + 1 :]:
        m = re.match(r"\s*(\d)\s+(\d)\s+.*?\s(\d+)$", line)
        if m:
            by_seat[int(m.group(2))] = int(m.group(3))
    first = re.match(r"\s*1\s+(\d)\s", display[start + 2])  # the place-1 row, under the heads
    assert first and int(first.group(1)) == int(won.group(1)), text
    return int(won.group(1)), [by_seat[k] for k in sorted(by_seat)]


def check_no_hidden_cards(name: str, record: str, seat: int, turns: list[list[str]]) -> None:
    """At each of ``seat``'s turns (the frames of the record where it is to move, in order) the
    screen shows no card another seat holds unseen."""
    full, mine = Replay(record), Replay(record, seat=seat)
    moments = [k for k in range(len(full)) if full.frame(k)["to_move"] == seat]
    assert len(moments) == len(turns)
    for k, display in zip(moments, turns, strict=True):
        check_hides(name, full.frame(k), mine.frame(k), display, PLAY_EVENTS)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.slow
def test_full_game_against_bots(name: str, tmp_path: Path) -> None:
    rng = random.Random(name)
    pty = Pty(play_args(name, 11), tmp_path)
    try:
        turns = drive(pty, name, rng)
        winner, scores = final_summary(pty.display())
    finally:
        status = pty.close()
    assert status == 0
    record = (tmp_path / "game.json").read_text()
    game = load(name, record)
    assert game.is_over
    assert (winner, scores) == (game.winner, game.scores)
    rounds = len(game.round_results)
    assert re.search(rf"wins after {rounds} (hand|round)s?\.", pty.text()), pty.text()
    assert "Record saved to game.json" in plain(pty.transcript)
    check_fits(pty.transcript)
    check_no_hidden_cards(name, record, 0, turns)


@pytest.mark.parametrize(
    "name", [GAMES[0], *(pytest.param(g, marks=pytest.mark.slow) for g in GAMES[1:])]
)
def test_bad_keystrokes_then_q_saves(name: str, tmp_path: Path) -> None:
    pty = Pty(play_args(name, 5), tmp_path)
    try:
        pty.expect(TURN_PROMPT)
        first = pty.display()
        for line, message in [
            ("", "type a move number"),
            ("0", "no move 0"),
            ("99999", "no move 99999"),
            ("12345678901234567890", "no move"),
            ("hello", "not a legal move"),
            ("single Zz99", "not a legal move"),
            ("=", "type the notation after '='"),
            ("x" * 500, "input too long"),
            ("\x1b[A", "control characters"),
            ("? 0", "no move 0"),
            ("? 123456789012", "no move 123456789"),
            ("? zz", 'no card "zz" on your screen'),
            ("?=", 'no card "" on your screen'),
            ("?" + "Ea8" * 60, "no card"),
            ("? [", "no card"),
            ("n" if len(moves_on_screen(first)) < 10 else "p", "moves"),
        ]:
            pty.send(line)
            pty.expect(TURN_PROMPT)
            text = pty.text()
            assert message in text, (line, text)
            assert pty.display()[0] == first[0]  # still the same turn, the screen redrawn whole
            assert card_tokens(text) == card_tokens("\n".join(first))
        pty.send("?")
        pty.expect("Enter: ")
        assert "Help" in pty.text()
        while True:
            pty.send("")
            if pty.expect([TURN_PROMPT, "Enter: "]) == 0:
                break
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 0
    out = plain(pty.transcript)
    assert "Record saved to game.json" in out
    game = load(name, (tmp_path / "game.json").read_text())
    assert not game.is_over
    check_fits(pty.transcript)


def test_end_of_input_saves_and_quits(tmp_path: Path) -> None:
    pty = Pty(play_args("year", 3), tmp_path)
    try:
        pty.expect(TURN_PROMPT)
        pty.send("1")
        pty.expect(TURN_PROMPT)
        pty.child.sendeof()
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 0
    game = load("year", (tmp_path / "game.json").read_text())
    assert len(game.to_json()) > 0


def test_ctrl_c_saves_and_quits(tmp_path: Path) -> None:
    pty = Pty(play_args("head", 3), tmp_path, timeout=10)
    try:
        pty.expect(TURN_PROMPT)
        pty.child.sendintr()
        pty.expect("Interrupted: record saved to game.json")
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 130
    load("head", (tmp_path / "game.json").read_text())


def test_auto_save_name(tmp_path: Path) -> None:
    args = ["play", "--game", "spin", "--players", "2", "--seed", "42", "--plain"]
    run = subprocess.run(
        [sys.executable, "-m", "panda_core.cli", *args],
        input="q\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "panda-spin-42.json").exists()
    assert "Record saved to " in run.stdout
    load("spin", (tmp_path / "panda-spin-42.json").read_text())


def test_hot_seat_hides_the_previous_hand(tmp_path: Path) -> None:
    args = [
        "play",
        "--game",
        "head",
        "--players",
        "2",
        "--hot-seat",
        "0,1",
        "--seed",
        "8",
        "--save",
        "game.json",
    ]
    pty = Pty(args, tmp_path)
    passes = 0
    try:
        last_hand: set[str] = set()
        last_seat = None
        for _ in range(10):
            which = pty.expect([TURN_PROMPT, READY, ENTER])
            text = pty.text()
            if which == 1:
                seat = int(re.search(r"Pass to Seat (\d)", text).group(1))  # type: ignore[union-attr]
                assert seat != last_seat
                assert not card_tokens(text), text  # nobody's hand on the screen
                assert "Your hand" not in text
                passes += 1
                pty.send("")
                continue
            if which == 2:
                pty.send("")
                continue
            seat = int(re.search(r"seat (\d)", pty.display()[0]).group(1))  # type: ignore[union-attr]
            hand_line = next(line for line in pty.display() if line.startswith("Your hand"))
            last_hand, last_seat = card_tokens(hand_line), seat
            assert last_hand
            pty.send("1")
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        pty.close()
    assert passes >= 4


def test_piped_run_has_no_escape_codes(tmp_path: Path) -> None:
    args = [
        "play",
        "--game",
        "head",
        "--players",
        "2",
        "--seed",
        "4",
        "--bots",
        "random",
        "--save",
        "game.json",
        "--rule",
        "bust_threshold=6",
    ]
    run = subprocess.run(
        [sys.executable, "-m", "panda_core.cli", *args],
        input="1\n" * 3000,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert "Game over" in run.stdout
    game = load("head", (tmp_path / "game.json").read_text())
    assert game.is_over


def test_plain_on_a_terminal_has_no_escape_codes(tmp_path: Path) -> None:
    pty = Pty(play_args("year", 9, "--plain"), tmp_path)
    try:
        pty.expect(TURN_PROMPT)
        pty.send("1")
        pty.expect(TURN_PROMPT)
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        pty.close()
    assert "\x1b" not in pty.transcript
    assert "Your hand" in pty.transcript


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "bust_threshold=abc"], "bust_threshold"),
        (["--rule", "no_such_rule=1"], "no_such_rule"),
        (["--rule", "oops"], "KEY=VALUE"),
        (["--players", "9"], "players"),
        (["--seat", "4", "--players", "3"], "seat 4"),
        (["--bots", "nobody"], "nobody"),
    ],
)
def test_bad_command_lines_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "panda_core.cli", "play", *args],
        input="",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 2
    assert message in run.stderr
    assert "Traceback" not in run.stderr
    assert not list(tmp_path.iterdir())


def test_ctrl_c_stops_a_thinking_bot(tmp_path: Path) -> None:
    """Ctrl-C while a search bot thinks (it may take 30 s) quits long before the bot is done."""
    args = [
        "play",
        "--game",
        "head",
        "--players",
        "2",
        "--bots",
        "ismcts:1000000",
        "--bot-time",
        "30",
        "--rule",
        "first_dealer=1",
        "--seed",
        "2",
        "--save",
        "game.json",
    ]
    pty = Pty(args, tmp_path, timeout=10)
    try:
        pty.expect(TURN_PROMPT)  # seat 0 leads: the person moves first
        pty.send("1")
        pty.child.expect("\n")  # the move is read; the bot starts thinking
        time.sleep(0.5)
        pty.child.sendintr()
        pty.expect("Interrupted: record saved to game.json")
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 130
    assert load("head", (tmp_path / "game.json").read_text()).current_player == 1


def test_many_moves_are_paged_and_filtered(tmp_path: Path) -> None:
    """A climbing lead with dozens of legal moves: pages of numbered moves, a filter, and every
    number still meaning the same move."""
    pty = Pty(
        ["play", "--game", "year", "--players", "2", "--seed", "3", "--save", "g.json"], tmp_path
    )
    try:
        pty.expect(TURN_PROMPT)
        header = next(line for line in pty.display() if line.startswith("Your moves"))
        total = int(re.search(r"of (\d+)", header).group(1))  # type: ignore[union-attr]
        first = moves_on_screen(pty.display())
        assert total > len(first) >= 6
        assert re.search(r"page 1/\d+", header)
        pty.send("n")
        pty.expect(TURN_PROMPT)
        second = moves_on_screen(pty.display())
        assert min(second) == max(first) + 1
        assert "page 2/" in pty.text()
        pty.send("/run")
        pty.expect(TURN_PROMPT)
        runs = moves_on_screen(pty.display())
        assert runs and all(n.startswith("run") for n in runs.values())
        assert all(first.get(k, runs[k]) == runs[k] for k in runs)  # same numbers, same moves
        pty.send("/zzz")
        pty.expect(TURN_PROMPT)
        assert 'no legal move contains "zzz"' in pty.text()
        assert moves_on_screen(pty.display()) == first
        pty.send("p")
        pty.expect(TURN_PROMPT)
        assert "no more moves that way" in pty.text()
        number = max(second)
        pty.send("n")
        pty.expect(TURN_PROMPT)
        cells = move_cells(pty.display())
        said = cells[number][0]
        pty.send(str(number))  # a move from page 2, picked by its number
        pty.expect(TURN_PROMPT)
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        pty.close()
    game = load("year", (tmp_path / "g.json").read_text())
    chosen = Replay(game.to_json(), seat=0).frame(1)["events"][3]  # round_start, 2 deals, ours
    assert chosen["type"] == "move" and said.rstrip("…") in chosen["text"]
