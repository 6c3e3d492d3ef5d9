"""``panda-core replay`` through a pseudo-terminal and through pipes: stepping forward, back and
to a move or a hand/round, switching seats, ``--log``, and bad files (exit status 2, a message,
no traceback). With ``--seat S`` no frame ever shows a card another seat holds unseen.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from panda_core.table import Replay, Table
from tui_support import (
    REPLAY_EVENTS,
    REPR,
    TURN_PROMPT,
    Pty,
    card_tokens,
    check_hides,
    plain,
    screens,
)

GAMES = ("head", "year", "spin")


def recorded(name: str, seed: int = 21, players: int = 2) -> str:
    """The record of a whole game played by bots."""
    table = Table(name, players=players, seats=["random"] * players, seed=seed)
    table.advance()
    assert table.is_over
    return str(table.record())


# The first game in the inner loop (pytest -m "not slow"), every game in CI.
@pytest.fixture(params=[GAMES[0], *(pytest.param(g, marks=pytest.mark.slow) for g in GAMES[1:])])
def record_file(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    path = tmp_path / f"{request.param}.json"
    path.write_text(recorded(request.param))
    return request.param, path


def run_cli(
    *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "panda_core.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def move_on_screen(pty: Pty) -> int:
    m = re.search(r"move (\d+)/(\d+)", pty.display()[0])
    assert m, pty.text()
    return int(m.group(1))


def test_log_prints_every_event_once(record_file: tuple[str, Path]) -> None:
    _, path = record_file
    text = path.read_text()
    run = run_cli("replay", str(path), "--log")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines == Replay(text).log()
    assert len(lines) >= len(Replay(text)) - 1  # at least one line per move
    assert "\x1b" not in run.stdout
    assert not REPR.search(run.stdout) and "card(s)" not in run.stdout
    seat_lines = run_cli("replay", str(path), "--log", "--seat", "1").stdout.splitlines()
    assert seat_lines == Replay(text, seat=1).log()


def test_stepping_through_a_pty(record_file: tuple[str, Path], tmp_path: Path) -> None:
    _, path = record_file
    replay = Replay(path.read_text())
    frames, starts = len(replay), replay.round_starts()
    pty = Pty(["replay", str(path)], tmp_path)
    try:
        pty.expect(TURN_PROMPT)
        assert move_on_screen(pty) == 0
        assert "view: all " in pty.display()[0]

        def step(line: str, expected: int | None = None, message: str = "") -> None:
            pty.send(line)
            pty.expect(TURN_PROMPT)
            if expected is not None:
                assert move_on_screen(pty) == expected, (line, pty.text())
            if message:
                assert message in pty.text(), (line, pty.text())

        step("n", 1)
        step("", 2)
        step("p", 1)
        step("b", 0)
        step("p", 0, "this is the start of the game")
        step("g 5", 5)
        step(f"g {frames - 1}", frames - 1)
        step("n", frames - 1, "this is the last move")
        step("g 99999", frames - 1, "g K: K is a move number")
        if len(starts) > 1:
            step("r 2", starts[1])
        step("r 1", starts[0])
        step("r 0", starts[0], "r N: N is a hand/round number")
        step("s 1", starts[0])
        assert "view: seat 1" in pty.display()[0]
        assert any(line.startswith("Hand: ") for line in pty.display())
        step("s 9", None, "s S: S is a seat")
        step("s all")
        assert "view: all " in pty.display()[0]
        assert any(line.startswith("1: ") for line in pty.display())
        step("zz", None, "unknown command")
        step("\x1b[B", None, "control characters")
        pty.send("?")
        pty.expect("Enter: back to the replay")
        assert "go to move K" in pty.text()
        step("", starts[0])
        pty.send("q")
        pty.expect(pexpect.EOF)
    finally:
        status = pty.close()
    assert status == 0
    for screen in screens(pty.transcript):
        lines = screen.rstrip("\n ").split("\n")
        assert len(lines) <= 24, screen
        assert max(len(line) for line in lines if not line.startswith("> ")) <= 80


@pytest.mark.parametrize("seat", [0, 1])
def test_seat_view_never_shows_hidden_cards(record_file: tuple[str, Path], seat: int) -> None:
    name, path = record_file
    text = path.read_text()
    full, mine = Replay(text), Replay(text, seat=seat)
    run = run_cli("replay", str(path), "--seat", str(seat), stdin="n\n" * len(full) + "q\n")
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stdout
    assert not REPR.search(run.stdout), REPR.search(run.stdout)
    shown = {}
    for page in re.split(r"\n(?=\S.*  view: seat \d  move \d+/)", run.stdout)[1:]:
        display = page.split("\n")[:23]
        k = int(re.search(r"move (\d+)/", display[0]).group(1))  # type: ignore[union-attr]
        shown[k] = display
    assert sorted(shown) == list(range(len(full)))
    for k, display in shown.items():
        assert f"view: seat {seat}" in display[0]
        check_hides(name, full.frame(k), mine.frame(k), display, REPLAY_EVENTS)


def test_full_view_shows_every_hand(tmp_path: Path) -> None:
    text = recorded("year")
    path = tmp_path / "r.json"
    path.write_text(text)
    run = run_cli("replay", str(path), "--plain", stdin="q\n")
    first = run.stdout.split("\n")
    hands = Replay(text).frame(0)["hands"]
    for seat, hand in enumerate(hands):
        line = next(x for x in first if x.startswith(f"{seat}: "))
        assert card_tokens(line) == {c["token"] for c in hand}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        (b"{", "not JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text"),
        (b"[1, 2, 3]", "bad.json: "),
        (b'{"format": "panda-core/head"}', "bad.json: "),
        (b'{"format": "panda-core/climb", "moves": "x"}', "bad.json: "),
    ],
)
def test_bad_files_exit_2(content: bytes | None, message: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_bytes(content)
    for extra in ([], ["--log"]):
        run = run_cli("replay", str(path), *extra)
        assert run.returncode == 2, run.stdout
        assert message in run.stderr
        assert "Traceback" not in run.stderr


def test_tampered_record_exit_2(tmp_path: Path) -> None:
    data = json.loads(recorded("head"))
    data["actions"][3] = 23  # a Bamboo alone: not legal at that point
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    run = run_cli("replay", str(path))
    assert run.returncode == 2
    assert "move 3 of the record" in run.stderr and "Traceback" not in run.stderr
    assert plain(run.stdout) == ""
