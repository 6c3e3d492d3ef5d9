"""Issue 8, item 1: deeply nested (or cyclic) Python data is refused, never a segfault.

Converting move dicts and snapshots into Rust recursed without bound: a 20000-deep list crashed
the interpreter (exit 139). Now every entry point refuses data nested deeper than 128 levels (the
JSON text parser's own limit) with ``InvalidStateError``, and a structure containing itself is
refused the same way. The crash cases run in a subprocess, so a regression fails the test instead
of killing the test run.
"""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest

from panda_core import ClimbGame, ClimbMove, IllegalMoveError, InvalidStateError

LIMIT = 128


def nested(depth: int, leaf: object = 1) -> Any:
    """`[[[...leaf...]]]`, `depth` lists deep."""
    return functools.reduce(lambda inner, _: [inner], range(depth), leaf)


def nested_dicts(depth: int) -> Any:
    return functools.reduce(lambda inner, _: {"a": inner}, range(depth), 1)


def move_with(cards: object) -> dict[str, Any]:
    return {"kind": "pass", "cards": cards, "named": [], "flip": [], "steal": []}


def entry_points() -> list[tuple[str, Callable[[Any], object]]]:
    """Every call that converts user data recursively, fed `data` somewhere inside."""
    game = ClimbGame(4, 1)
    return [
        ("ClimbMove.from_json", lambda data: ClimbMove.from_json(move_with(data))),
        ("ClimbGame.apply(dict)", lambda data: ClimbGame(4, 1).apply(move_with(data))),
        ("ClimbGame.move_info", lambda data: game.move_info(move_with(data))),
        (
            "ClimbGame.from_snapshot",
            lambda data: ClimbGame.from_snapshot({**game.snapshot(), "scores": data}),
        ),
        ("from_snapshot(top level)", lambda data: ClimbGame.from_snapshot(data)),
    ]


CALLS = entry_points()
IDS = [name for name, _ in CALLS]


CRASH_SCRIPT = textwrap.dedent(
    """
    import functools, sys
    from panda_core import ClimbGame, ClimbMove, InvalidStateError
    deep = functools.reduce(lambda a, _: [a], range(20000), 1)
    deep_dict = functools.reduce(lambda a, _: {"a": a}, range(20000), 1)
    game = ClimbGame(4, 1)
    calls = [
        lambda: ClimbMove.from_json({"kind": "pass", "cards": deep}),
        lambda: ClimbMove.from_json(deep_dict),
        lambda: game.apply({"kind": "pass", "cards": deep}),
        lambda: game.move_info({"kind": "pass", "cards": deep}),
        lambda: ClimbGame.from_snapshot({**game.snapshot(), "hands": deep}),
        lambda: ClimbGame.from_snapshot(deep_dict),
    ]
    for call in calls:
        try:
            call()
        except InvalidStateError as err:
            assert "128" in str(err), err
        else:
            sys.exit("accepted")
    print("refused", len(calls))
    """
)


def test_the_issue_example_is_refused_not_a_segfault() -> None:
    """The issue's one-liner exited 139; it must raise InvalidStateError naming the limit."""
    done = subprocess.run(
        [sys.executable, "-c", CRASH_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.strip() == "refused 6"


@pytest.mark.parametrize("call", [c for _, c in CALLS], ids=IDS)
def test_too_deep_is_an_invalid_state_error_naming_the_limit(call: Callable[[Any], object]) -> None:
    for data in (nested(LIMIT + 1), nested(5000), nested_dicts(LIMIT + 1)):
        with pytest.raises(InvalidStateError, match=str(LIMIT)):
            call(data)


@pytest.mark.parametrize("call", [c for _, c in CALLS], ids=IDS)
def test_cycles_are_refused(call: Callable[[Any], object]) -> None:
    loop: list[Any] = []
    loop.append(loop)
    knot: dict[str, Any] = {}
    knot["kind"] = knot
    for data in (loop, knot, [1, [2, loop]]):
        with pytest.raises(InvalidStateError, match=str(LIMIT)):
            call(data)


@pytest.mark.parametrize("call", [c for _, c in CALLS], ids=IDS)
def test_depth_below_the_limit_reaches_the_real_check(call: Callable[[Any], object]) -> None:
    """Just inside the limit, the data is converted and refused for what it is, not its depth."""
    with pytest.raises((InvalidStateError, IllegalMoveError)) as info:
        call(nested(LIMIT - 10))
    assert "nested deeper" not in str(info.value)


def test_huge_but_flat_inputs_are_refused_quickly() -> None:
    """A million-element list is converted (not deep) and refused by the real check."""
    flat = list(range(1_000_000))
    game = ClimbGame(4, 1)
    before = game.snapshot()
    with pytest.raises(InvalidStateError):
        ClimbMove.from_json(move_with(flat))
    with pytest.raises(IllegalMoveError):
        game.apply(move_with(flat))
    with pytest.raises(InvalidStateError):
        ClimbGame.from_snapshot({**before, "scores": flat})
    wide = {f"k{i}": i for i in range(100_000)}
    with pytest.raises(InvalidStateError):
        ClimbMove.from_json(wide)
    assert game.snapshot() == before


def test_real_data_still_round_trips() -> None:
    game = ClimbGame(4, 3)
    for _ in range(30):
        if game.is_over:
            break
        move = game.legal_moves()[-1]
        assert ClimbMove.from_json(move.to_json()) == move
        game.apply(move.to_json())
    assert ClimbGame.from_snapshot(game.snapshot()).snapshot() == game.snapshot()
