"""Hostile input for the table model and the terminal (issue 19): records built to exhaust memory,
records that are not files, bots that break their answer or their process.

Memory is measured in a child process (its peak RSS, ``VmHWM``), which also runs under an
address-space limit so that a regression fails the test instead of exhausting the machine.
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import panda_core
from panda_core import HeadRules, PandaCoreError
from panda_core._registry import spec_of_record
from panda_core.table import MAX_RECORD_MOVES, Replay, TableError
from panda_core.table.cards import CardBook
from panda_core.table.names import SeatNames
from panda_core.table.seat_state import SeatStateBuilder

GAMES = ("head", "year", "spin")
CHILD_TIMEOUT = 120
"""Seconds a child may take before the test fails (it takes about a second)."""
CHILD_ADDRESS_SPACE = 3 * 1024**3
"""The child's address-space limit (bytes): the unfixed replay needed ~4 GB for the 18 KB record."""


def long_head_record(
    *, moves: int | None = None, chars: int | None = None, players: int = 4
) -> str:
    """A Panda Head record with ``bust_threshold=1000000`` and random moves (the issue's repro):
    ``moves`` moves, or as many as make a record of ``chars`` characters."""
    game = panda_core.make("head", players=players, seed=5, rules=HeadRules(bust_threshold=10**6))
    k = 0
    while not game.is_over:
        if moves is not None and k >= moves:
            break
        if chars is not None and k % 100 == 0 and len(game.to_json()) >= chars:
            break
        game.apply(game.bot_move("random", k))
        k += 1
    return game.to_json()


def run_child(code: str, *args: str, timeout: float = CHILD_TIMEOUT) -> dict[str, Any]:
    """Run ``code`` in a fresh Python (this tree's package) under the address-space limit; its
    last stdout line is JSON, returned with ``"peak_mb"`` (its peak RSS) added."""
    prelude = textwrap.dedent(
        f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({CHILD_ADDRESS_SPACE}, {CHILD_ADDRESS_SPACE}))

        def peak_mb():
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


REPLAY_IN_CHILD = """
    from panda_core.table import Replay
    replay = Replay(open(sys.argv[1]).read())
    last = replay.frame(len(replay) - 1)
    middle = replay.for_seat(1).frame(len(replay) // 2)
    back = replay.frame(len(replay) // 2 - 1)
    print(json.dumps({"frames": len(replay), "events": len(last["events"]),
                      "peak_mb": peak_mb()}))
"""


# ---- item 1: a replay costs memory linear in the moves ---------------------------------------


def test_the_18_kb_record_of_the_issue_replays_in_little_memory(tmp_path: Path) -> None:
    """The issue's repro: 18 KB of record took ~4 GB and 21 s (a clone with the whole history
    after every move). Now: every frame is there, in tens of MB above the interpreter."""
    record = long_head_record(chars=18_000)
    assert len(record) >= 18_000
    path = tmp_path / "long.json"
    path.write_text(record)
    baseline = run_child("import panda_core.table\nprint(json.dumps({'peak_mb': peak_mb()}))")
    seen = run_child(REPLAY_IN_CHILD, str(path))
    assert seen["frames"] == len(json.loads(record)["actions"]) + 1 > 5_000
    assert seen["peak_mb"] - baseline["peak_mb"] < 100, seen


def test_the_largest_allowed_record_is_bounded_in_memory(tmp_path: Path) -> None:
    record = long_head_record(moves=MAX_RECORD_MOVES, players=5)
    path = tmp_path / "largest.json"
    path.write_text(record)
    seen = run_child(REPLAY_IN_CHILD, str(path))
    assert seen["frames"] == MAX_RECORD_MOVES + 1
    assert seen["peak_mb"] < 300, seen


@pytest.mark.parametrize("game", GAMES)
def test_a_record_over_the_move_cap_is_refused_before_any_move_is_applied(game: str) -> None:
    """Moves that are not even legal: had any been applied, the error would name move 0."""
    record = json.loads(panda_core.make(game, players=2, seed=1).to_json())
    key = spec_of_record(record).record_moves
    junk: Any = 999 if game == "head" else "not a move"
    record[key] = [junk] * (MAX_RECORD_MOVES + 1)
    with pytest.raises(TableError, match=f"at most {MAX_RECORD_MOVES} moves"):
        Replay(json.dumps(record))
    record[key] = [junk] * MAX_RECORD_MOVES  # at the cap: replayed, so the first move fails
    with pytest.raises(PandaCoreError, match="move 0 of the record"):
        Replay(json.dumps(record))


class CloneReplay:
    """The replay as it was first written: a clone after every move (memory in the square of
    the moves: only for small games), to compare the positions and frames with."""

    def __init__(self, record: str, seat: int | None) -> None:
        parsed = json.loads(record)
        self.spec = spec_of_record(parsed)
        start, moves = self.spec.replay_start(parsed)
        self.positions = [start]
        game = start.clone()
        for move in moves:
            game.apply(move)
            self.positions.append(game.clone())
        names = [f"seat {p}" for p in range(start.players)]
        self.names, self.seat = names, seat
        self.builder = SeatStateBuilder(self.spec, CardBook(start), names)

    def frame(self, i: int) -> dict[str, Any]:
        state = self.builder.build(
            self.positions[i],
            self.seat,
            seat_kinds=[{"kind": "replay", "name": n} for n in self.names],
            seed=None,
            notes=(),
            since=len(self.positions[i - 1].history) if i else 0,
        )
        state.update(your_turn=False, legal=[], frame=i, frames=len(self.positions))
        state["move_index"] = i - 1 if i > 0 else None
        return state

    def log(self) -> list[str]:
        names = SeatNames(self.names, self.seat)
        return [
            self.builder.presenter.describe(e, self.builder.book, names)
            for e in self.positions[-1].events(self.seat)
        ]

    def round_starts(self) -> list[int]:
        p = self.positions
        return [0] + [
            i
            for i in range(1, len(p))
            if len(p[i].round_results) != len(p[i - 1].round_results) and not p[i].is_over
        ]


def _played(game: str, players: int, seed: int, bot: str) -> str:
    g = panda_core.make(game, players=players, seed=seed)
    while not g.is_over:
        g.apply(g.bot_move(bot, seed))
    return g.to_json()


@pytest.mark.parametrize(
    ("game", "players", "seed", "bot"),
    [
        ("head", 3, 4, "heuristic"),
        ("head", 5, 9, "random"),
        ("year", 3, 2, "random"),
        ("year", 2, 8, "heuristic"),
        ("spin", 4, 6, "random"),
    ],
)
def test_frames_are_those_of_a_clone_after_every_move(
    game: str, players: int, seed: int, bot: str
) -> None:
    """Every frame, in a random order (checkpoints, recent positions and re-plays all used),
    for every view, equals the frame built from a clone kept after every move."""
    record = _played(game, players, seed, bot)
    replay = Replay(record)
    rng = random.Random(seed)
    for seat in [None, *range(players)]:
        reference = CloneReplay(record, seat)
        mine = replay.for_seat(seat)
        assert len(mine) == len(reference.positions) > 50
        order = list(range(len(mine)))
        if seat is None:  # every frame, shuffled; sequential runs both ways for the others
            rng.shuffle(order)
        else:
            order = order[seat::7] + order[::-9][:30]
        for k in order:
            assert mine.frame(k) == reference.frame(k), (seat, k)
        assert mine.round_starts() == reference.round_starts()
        assert mine.log() == reference.log()
    for k in (0, len(replay) // 3, len(replay) - 1):
        assert replay.position(k).to_json() == reference.positions[k].to_json()
    assert replay.record() == record


# ---- item 10: a record is a regular file of bounded size; no key twice -----------------------


def _replay_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "panda_core.cli", "replay", *args],
        capture_output=True,
        text=True,
        timeout=timeout,  # a FIFO or /dev/zero read would hang or run out of memory
        check=False,
    )


@pytest.fixture
def odd_files(tmp_path: Path) -> dict[str, Path]:
    """Paths that are no regular file: a FIFO nobody writes, /dev/zero, a directory, a socket."""
    import os
    import socket

    fifo = tmp_path / "record.fifo"
    os.mkfifo(fifo)
    sock_path = tmp_path / "record.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    return {
        "FIFO": fifo,
        "character device": Path("/dev/zero"),
        "directory": tmp_path,
        "socket": sock_path,
    }


@pytest.mark.parametrize("kind", ["FIFO", "character device", "directory", "socket"])
def test_a_record_that_is_no_regular_file_is_refused_without_reading(
    kind: str, odd_files: dict[str, Path]
) -> None:
    path = odd_files[kind]
    with pytest.raises(TableError) as err:
        Replay.from_file(path)
    assert str(path) in str(err.value)
    assert "regular file" in str(err.value) or "cannot read" in str(err.value)
    done = _replay_cli(str(path), "--log")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("panda-core replay: error:") and str(path) in done.stderr


def test_a_record_file_over_the_size_cap_or_not_utf8_is_refused(tmp_path: Path) -> None:
    from panda_core.table import MAX_RECORD_BYTES

    big = tmp_path / "big.json"
    with big.open("wb") as out:
        out.truncate(MAX_RECORD_BYTES + 1)  # sparse: no disk, no memory
    with pytest.raises(TableError, match=f"{MAX_RECORD_BYTES + 1} bytes.*at most"):
        Replay.from_file(big)
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"format": "caf\xe9"}')
    with pytest.raises(TableError, match=r"not UTF-8 text \(byte 15 is 0xe9\)"):
        Replay.from_file(latin)
    with pytest.raises(TableError, match="cannot read the record"):
        Replay.from_file(tmp_path / "missing.json")
    with pytest.raises(TypeError):
        Replay.from_file(3)  # type: ignore[arg-type]


def test_a_refused_record_file_is_named_in_the_message(tmp_path: Path) -> None:
    record = json.loads(panda_core.make("head", players=2, seed=3).to_json())
    record["actions"] = [23]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(PandaCoreError, match="^" + re.escape(f"{path}: move 0 of the record")):
        Replay.from_file(path)


@pytest.mark.parametrize("game", GAMES)
def test_a_key_given_twice_is_refused_as_from_json_refuses_it(game: str) -> None:
    text = panda_core.make(game, players=3, seed=2).to_json()
    doubled = text.replace('"players":3', '"players":3,"players":4', 1)
    assert doubled != text
    with pytest.raises(PandaCoreError, match="duplicate key"):
        panda_core.make(game).from_json(doubled)
    with pytest.raises(TableError, match="'players' is given twice"):
        Replay(doubled)
    nested = text.replace('"players":3,', '"players":3,"x":{"a":1,"a":2},', 1)
    with pytest.raises(TableError, match="'a' is given twice"):
        Replay(nested)


# ---- item 12: a record relabelled as another game -----------------------------------------------


def test_a_record_relabelled_as_another_game_says_what_it_claims_and_holds() -> None:
    head = json.loads(panda_core.make("head", players=3, seed=1).to_json())
    spin = json.loads(panda_core.make("spin", players=3, seed=1).to_json())
    cases = [
        ({**head, "format": "panda-core/climb"}, "settings.preset is None; it lists its moves in "),
        (
            {**head, "format": "panda-core/climb", "settings": {"preset": "year"}},
            "claims to be Year of the Panda .* lists its moves in 'actions', as a record of Panda "
            "Head does",
        ),
        ({**head, "game": "year"}, "not by a 'game' field: this one's format 'panda-core/head'"),
        ({**spin, "format": "panda-core/head"}, "claims to be Panda Head .* in 'moves'"),
    ]
    for record, message in cases:
        with pytest.raises(PandaCoreError, match=message):
            Replay(json.dumps(record))
