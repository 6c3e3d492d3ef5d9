"""Hostile input for the table model and the terminal (issue 19): records built to exhaust memory,
records that are not files, bots that break their answer or their process.

Memory is measured in a child process (its peak RSS, ``VmHWM``), which also runs under an
address-space limit so that a regression fails the test instead of exhausting the machine.
"""

from __future__ import annotations

import json
import random
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
