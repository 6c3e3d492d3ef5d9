"""A fuzz harness over the Python binding entry points (issue 8, "Fuzzing").

Every entry point that reads user data is fed documents the engine wrote itself (game records,
snapshots, moves, decks), mutated by hypothesis: a field replaced by any JSON-like value, deleted,
nested one level deeper, an integer nudged to a boundary, a string edited. The property is the
error contract of docs/errors.md: every call either succeeds or raises a ``PandaCoreError``
subclass or a ``TypeError``; never another exception, never a crash; a refused ``apply`` leaves
``snapshot()`` unchanged; what is accepted round-trips.

Size: ``FUZZ_EXAMPLES`` per entry point from ``conftest.py`` (small in CI; ``PANDA_PROFILE=fuzz``
or ``PANDA_FUZZ_EXAMPLES=N`` for the long runs recorded in ``fuzz/RESULTS.md``).
"""

from __future__ import annotations

import copy
import json
import math
import os
import pathlib
import random
import subprocess
import sys
import tomllib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import panda_core
from conftest import FUZZ_EXAMPLES
from panda_core import ClimbGame, ClimbMove, ClimbSettings, HeadGame, PandaCoreError, climb, head

# What docs/errors.md promises a caller can see from panda-core.
ALLOWED = (PandaCoreError, TypeError)
# Exploratory long runs only: PANDA_FUZZ_TOLERATE=ValueError,PanicException looks past bug classes
# already reported (and marked xfail below), so a run can find the next class. Names are matched
# against the exception's class and bases (PanicException is created lazily by pyo3). CI never
# sets it.
TOLERATED = {name for name in os.environ.get("PANDA_FUZZ_TOLERATE", "").split(",") if name}

fuzz_settings = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def contract_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; return its value or the allowed exception it raised. Anything else (another
    exception, a ``PanicException``, which derives from ``BaseException``) fails the test with
    the call named."""
    try:
        return fn(*args, **kwargs)
    except ALLOWED as e:
        return e
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # the point is to catch everything else
        if TOLERATED & {c.__name__ for c in type(e).__mro__}:
            return e
        shown = ", ".join(repr(a)[:200] for a in args)
        raise AssertionError(
            f"{getattr(fn, '__qualname__', fn)}({shown}) raised {type(e).__module__}."
            f"{type(e).__qualname__}: {str(e)[:300]}"
        ) from e


# ---- real documents the engine wrote -----------------------------------------------------------


def _head_games() -> list[HeadGame]:
    games = []
    for players, seed, moves, rules in [
        (2, 1, 6, None),
        (3, 2, 40, head.HeadRules(last_pile_scoring="own_card")),
        (4, 3, 10_000, None),
        (5, 4, 25, head.HeadRules(special_cards=False, lowest_only_when_cannot_follow=True)),
    ]:
        g = HeadGame(players, seed, rules)
        rng = random.Random(seed)
        for _ in range(moves):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_moves()))
        games.append(g)
    return games


def _climb_games() -> list[ClimbGame]:
    games = []
    for players, seed, moves, s in [
        (3, 1, 4, ClimbSettings()),
        (4, 2, 60, ClimbSettings(panda_mood="flip")),
        (5, 3, 80, ClimbSettings(preset="spin")),
        (2, 4, 10_000, ClimbSettings(preset="spin", first_player=1)),
    ]:
        g = ClimbGame(players, seed, s)
        rng = random.Random(seed)
        for _ in range(moves):
            if g.is_over:
                break
            g.apply(rng.choice(g.legal_moves()))
        games.append(g)
    return games


HEAD_GAMES = _head_games()
CLIMB_GAMES = _climb_games()
HEAD_RECORDS = [json.loads(g.to_json()) for g in HEAD_GAMES]
CLIMB_RECORDS = [json.loads(g.to_json()) for g in CLIMB_GAMES]
SNAPSHOTS = [g.snapshot() for g in CLIMB_GAMES]
# A move record per legal move of some positions, and the moves' notations.
REAL_MOVES = [m for g in CLIMB_GAMES if not g.is_over for m in g.legal_moves()[:40]]
MOVE_DOCS = [dict(m.to_json()) for m in REAL_MOVES]
NOTATIONS = sorted(
    {m.notation for m in REAL_MOVES}
    | {e["move"] for g in CLIMB_GAMES for e in g.history if e["type"] == "move"}
)
DECK_FILE = pathlib.Path(panda_core.__file__).parent / "data" / "decks" / "reconstructed.toml"
DECK_TEXT = DECK_FILE.read_text(encoding="utf-8")
DECK_DOC = tomllib.loads(DECK_TEXT)


# ---- mutation strategies -----------------------------------------------------------------------

BOUNDARY_INTS = [
    0,
    1,
    -1,
    2,
    4,
    5,
    6,
    7,
    12,
    13,
    64,
    65,
    69,
    70,
    255,
    256,
    2**31,
    2**32 - 1,
    2**32,
    2**63 - 1,
    2**63,
    2**64 - 1,
    2**64,
    -(2**63),
    10**30,
]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(BOUNDARY_INTS),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(
        [
            "pass",
            "single",
            "set",
            "year",
            "spin",
            "hungry",
            "flip",
            "wild",
            "fire",
            "panda-core/head",
            "panda-core/climb",
            "reconstructed",
            "Fi3",
            "Wa!",
        ]
    ),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=12,
)
# Python values that are not JSON at all: the binding must refuse them as a TypeError or accept
# them as data, never fail otherwise.
odd_value = st.one_of(
    st.tuples(st.integers(), st.integers()),
    st.binary(max_size=8),
    st.sets(st.integers(0, 9), max_size=3),
    st.builds(object),
    st.sampled_from(
        [
            np.int64(3),
            np.uint8(7),
            np.float64("nan"),
            np.bool_(True),
            1 + 2j,
            float("inf"),
            math.pi,
            b"pass",
            bytearray(b"x"),
            range(3),
            Ellipsis,
        ]
    ),
    st.dictionaries(st.integers(), json_leaf, min_size=1, max_size=2),
)


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``doc`` (the root is ``()``)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _paths(v, (*prefix, i))
    return out


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        doc = doc[k]
    return doc


def _tweak(data: st.DataObject, value: Any, pool: list[str]) -> Any:
    """A small, type-preserving edit: the kind of corruption a real bug or a hostile user makes."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return data.draw(
            st.one_of(
                st.sampled_from([value + 1, value - 1, -value, value * 2**32]),
                st.sampled_from(BOUNDARY_INTS),
            )
        )
    if isinstance(value, str):
        edit = data.draw(st.sampled_from(["pool", "cut", "insert", "double"]))
        if edit == "pool" and pool:
            return data.draw(st.sampled_from(pool))
        if edit == "cut" and value:
            at = data.draw(st.integers(0, len(value) - 1))
            return value[:at] + value[at + 1 :]
        if edit == "double":
            return value + value
        at = data.draw(st.integers(0, len(value)))
        return (
            value[:at]
            + data.draw(st.sampled_from([" ", "+", "!", "1", "é", "\x00", "as"]))
            + value[at:]
        )
    if isinstance(value, list):
        edit = data.draw(st.sampled_from(["reverse", "duplicate", "drop", "sort"]))
        if not value:
            return [data.draw(json_leaf)]
        if edit == "reverse":
            return value[::-1]
        if edit == "duplicate":
            return [*value, value[-1]]
        if edit == "sort":
            try:
                return sorted(value, reverse=True)
            except TypeError:
                return value
        return value[:-1]
    if isinstance(value, dict):
        return {**value, data.draw(st.text(max_size=6)): data.draw(json_leaf)}
    return data.draw(json_leaf)


def mutate(data: st.DataObject, doc: Any, pool: list[str] = NOTATIONS, max_edits: int = 3) -> Any:
    """``doc`` with 1..``max_edits`` edits at random places: replace, delete, nest or tweak."""
    doc = copy.deepcopy(doc)
    for _ in range(data.draw(st.integers(1, max_edits), label="edits")):
        path = data.draw(st.sampled_from(_paths(doc)), label="path")
        old = _get(doc, path)
        op = data.draw(st.sampled_from(["replace", "delete", "nest", "tweak", "tweak", "odd"]))
        if op == "delete" and path:
            parent = _get(doc, path[:-1])
            del parent[path[-1]]
            continue
        if op == "replace":
            new = data.draw(json_value)
        elif op == "nest":
            key = str(path[-1]) if path else ""
            new = data.draw(st.sampled_from([[old], {"x": old}, {key: old}]))
        elif op == "odd":
            new = data.draw(odd_value)
        else:
            new = _tweak(data, old, pool)
        if not path:
            doc = new
        else:
            _get(doc, path[:-1])[path[-1]] = new
    return doc


def as_text(data: st.DataObject, doc: Any) -> str:
    """A mutated document as JSON text, sometimes cut short or with a character edited."""
    text = json.dumps(doc, default=repr)
    how = data.draw(st.sampled_from(["whole", "whole", "whole", "cut", "char"]))
    if how == "cut" and text:
        return text[: data.draw(st.integers(0, len(text) - 1))]
    if how == "char" and text:
        at = data.draw(st.integers(0, len(text) - 1))
        return text[:at] + data.draw(st.sampled_from(list('{}[],:"0-9e .\\'))) + text[at + 1 :]
    return text


# ---- records -------------------------------------------------------------------------------------


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(HEAD_RECORDS))))
def test_head_from_json_mutated_records(data: st.DataObject, which: int) -> None:
    text = as_text(data, mutate(data, HEAD_RECORDS[which], pool=["7", "BP", "B", "pile_sum"]))
    game = contract_call(head.from_json, text)
    if isinstance(game, HeadGame):
        again = head.from_json(game.to_json())
        assert again.to_json() == game.to_json()
        assert again.snapshot() == game.snapshot()
        _play_head(game, data.draw(st.integers(0, 2**32)), 20)


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(CLIMB_RECORDS))))
def test_climb_from_json_mutated_records(data: st.DataObject, which: int) -> None:
    text = as_text(data, mutate(data, CLIMB_RECORDS[which]))
    game = contract_call(climb.from_json, text)
    if isinstance(game, ClimbGame):
        again = climb.from_json(game.to_json())
        assert again.to_json() == game.to_json()
        assert again.snapshot() == game.snapshot()
        _play_climb(game, data.draw(st.integers(0, 2**32)), 20)


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(SNAPSHOTS))))
def test_from_snapshot_mutated_snapshots(data: st.DataObject, which: int) -> None:
    snap = mutate(data, SNAPSHOTS[which])
    game = contract_call(ClimbGame.from_snapshot, snap)
    if isinstance(game, ClimbGame):
        assert ClimbGame.from_snapshot(game.snapshot()).snapshot() == game.snapshot()
        _play_climb(game, data.draw(st.integers(0, 2**32)), 20)


# ---- moves ---------------------------------------------------------------------------------------


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(MOVE_DOCS))))
def test_climb_move_from_json_mutated(data: st.DataObject, which: int) -> None:
    doc = mutate(data, MOVE_DOCS[which])
    m = contract_call(ClimbMove.from_json, doc)
    if isinstance(m, ClimbMove):
        assert ClimbMove.from_json(m.to_json()) == m
        assert climb.parse_move(m.notation) == m


@fuzz_settings
@given(data=st.data())
def test_parse_move_mutated_notation(data: st.DataObject) -> None:
    source = data.draw(st.sampled_from(["real", "tweaked", "text"]))
    if source == "text":
        text = data.draw(st.text(max_size=40))
    else:
        text = data.draw(st.sampled_from(NOTATIONS))
        if source == "tweaked":
            text = _tweak(data, text, NOTATIONS)
    m = contract_call(climb.parse_move, text)
    if isinstance(m, ClimbMove):
        assert m.notation == text, "parse_move accepts only canonical notation"
        assert ClimbMove.from_json(m.to_json()) == m


# Well-formed move records of any kind with any card ids (element cards included): what no
# legal move list holds, so mutating real moves rarely reaches it.
KINDS = ["pass", "discard_element", "element", "single", "set", "run", "formation", "bomb"]
any_move_doc = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(KINDS),
        "cards": st.lists(st.integers(0, 69), max_size=6, unique=True).map(sorted),
        "named": st.lists(st.integers(0, 12), max_size=3),
        "flip": st.lists(st.integers(0, 69), max_size=2, unique=True).map(sorted),
        "steal": st.lists(st.integers(0, 4), max_size=2).map(sorted),
    }
)


def _move_or_doc(doc: dict[str, Any]) -> Any:
    """The ClimbMove of a record, or the record itself when it is not a move."""
    try:
        return ClimbMove.from_json(doc)  # type: ignore[arg-type]
    except ValueError:
        return doc


def _move_like(data: st.DataObject) -> Any:
    """Anything a user might pass as a move: real, mutated, well-formed of any kind, or junk."""
    source = data.draw(st.sampled_from(["real", "mutated", "tweaked", "any"]), label="source")
    if source == "mutated":
        return mutate(data, data.draw(st.sampled_from(MOVE_DOCS)), max_edits=2)
    if source == "tweaked":
        return _tweak(data, data.draw(st.sampled_from(NOTATIONS)), NOTATIONS)
    strategy = (
        st.one_of(
            st.sampled_from(REAL_MOVES),
            st.sampled_from(NOTATIONS),
            st.sampled_from(MOVE_DOCS).map(dict),
        )
        if source == "real"
        else st.one_of(any_move_doc, any_move_doc.map(_move_or_doc), json_value, odd_value)
    )
    return data.draw(strategy, label="move")


def _head_move_like(data: st.DataObject) -> Any:
    moves = [m for g in HEAD_GAMES if not g.is_over for m in g.legal_moves()]
    return data.draw(
        st.one_of(
            st.integers(-3, 30),
            st.sampled_from(BOUNDARY_INTS),
            st.sampled_from(moves),
            st.sampled_from(["7", "7+B", "BP", "B", "8+B", "12", "", " 7", "b", "7+b"]),
            st.text(max_size=6),
            json_value,
            odd_value,
        ),
        label="move",
    )


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(HEAD_GAMES))))
def test_head_apply_anything(data: st.DataObject, which: int) -> None:
    game = HEAD_GAMES[which].clone()
    for _ in range(data.draw(st.integers(1, 5))):
        before = game.snapshot()
        result = contract_call(game.apply, _head_move_like(data))
        if isinstance(result, BaseException):
            assert game.snapshot() == before, "a refused apply changed the state"


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(CLIMB_GAMES))))
def test_climb_apply_anything(data: st.DataObject, which: int) -> None:
    game = CLIMB_GAMES[which].clone()
    for _ in range(data.draw(st.integers(1, 5))):
        before = game.snapshot()
        result = contract_call(game.apply, _move_like(data))
        if isinstance(result, BaseException):
            assert game.snapshot() == before, "a refused apply changed the state"


@fuzz_settings
@given(data=st.data(), which=st.sampled_from(range(len(CLIMB_GAMES))))
def test_move_info_anything(data: st.DataObject, which: int) -> None:
    game = CLIMB_GAMES[which]
    before = game.snapshot()
    info = contract_call(game.move_info, _move_like(data))
    if isinstance(info, dict):
        assert set(info) == {"faces", "combo"}
    assert game.snapshot() == before


# ---- decks ---------------------------------------------------------------------------------------


@fuzz_settings
@given(data=st.data(), suffix=st.sampled_from([".json", ".toml"]))
def test_climb_settings_mutated_deck(
    data: st.DataObject, suffix: str, tmp_path_factory: Any
) -> None:
    # At most two edits: a deck that passes validation yet makes move generation explode needs
    # many wild multi-unit faces (issue 8 item 2), which this harness leaves to the Rust fuzzer.
    doc = mutate(
        data, DECK_DOC, pool=["wild", "fire", "panda", "bamboo", "drop", "Q", "2"], max_edits=2
    )
    path = tmp_path_factory.mktemp("deck") / f"deck{suffix}"
    if suffix == ".json":
        path.write_text(as_text(data, doc), encoding="utf-8")
    else:
        path.write_text(_toml_of(doc), encoding="utf-8")
    s = contract_call(ClimbSettings, deck=str(path))
    if isinstance(s, ClimbSettings):
        for preset in ("year", "spin"):
            game = contract_call(ClimbGame, 3, 1, ClimbSettings(preset=preset, deck=str(path)))
            if isinstance(game, ClimbGame):
                _play_climb(game, 1, 30)
                assert climb.from_json(game.to_json()).snapshot() == game.snapshot()


def _toml_of(doc: Any) -> str:
    """A small TOML writer for deck-shaped documents (tables of scalars and arrays); what it cannot
    write becomes a string, which the loader must refuse cleanly."""

    def scalar(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return (
                "nan"
                if math.isnan(v)
                else ("inf" if v > 0 else "-inf")
                if math.isinf(v)
                else repr(v)
            )
        if isinstance(v, list):
            return "[" + ", ".join(scalar(x) for x in v) + "]"
        if isinstance(v, dict):
            return (
                "{" + ", ".join(f"{json.dumps(str(k))} = {scalar(x)}" for k, x in v.items()) + "}"
            )
        return json.dumps(str(v))

    if not isinstance(doc, dict):
        return scalar(doc)
    lines = [
        f"{json.dumps(str(k))} = {scalar(v)}"
        for k, v in doc.items()
        if not (isinstance(v, list) and v and all(isinstance(x, dict) for x in v))
    ]
    for k, v in doc.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                lines.append(f"[[{json.dumps(str(k))}]]")
                lines += [f"{json.dumps(str(a))} = {scalar(b)}" for a, b in item.items()]
    return "\n".join(lines) + "\n"


def test_toml_writer_round_trips_the_shipped_deck() -> None:
    assert tomllib.loads(_toml_of(DECK_DOC)) == DECK_DOC


# ---- helpers -------------------------------------------------------------------------------------


def _play_head(game: HeadGame, seed: int, moves: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            return
        game.apply(rng.choice(game.legal_moves()))


def _play_climb(game: ClimbGame, seed: int, moves: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            return
        m = rng.choice(game.legal_moves())
        assert set(game.move_info(m)) == {"faces", "combo"}
        game.apply(m)


# ---- crash classes that a harness inside the interpreter cannot survive ------------------------


def _run_isolated(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


DEEP = "functools.reduce(lambda a, _: [a], range(20000), 1)"
CHILD = """import functools
from panda_core import ClimbGame, ClimbMove, PandaCoreError, climb
try:
    {call}
except (PandaCoreError, TypeError) as e:
    print("refused", type(e).__name__)
"""


@pytest.mark.parametrize(
    "call",
    [
        f'ClimbMove.from_json({{"kind": "pass", "cards": {DEEP}, "named": [], "flip": [], '
        '"steal": []})',
        f"ClimbGame.from_snapshot({DEEP})",
        f'ClimbGame(3, 1).apply({{"kind": "pass", "cards": {DEEP}}})',
        f'ClimbGame(3, 1).move_info({{"kind": "pass", "cards": {DEEP}}})',
    ],
)
def test_deeply_nested_data_is_refused_in_a_child_process(call: str) -> None:
    """The harness's "nest" edit, taken deep: a deep enough nesting segfaults the interpreter, so
    each call runs in a child process that must exit cleanly with an allowed error."""
    done = _run_isolated(CHILD.format(call=call))
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    assert done.stdout.startswith("refused"), done.stdout


REGRESSIONS = pathlib.Path(__file__).parent.parent / "fuzz" / "regressions"
BOUNDED_CHILD = """import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from panda_core import ClimbGame, PandaCoreError
snap = json.load(open(sys.argv[1]))
try:
    game = ClimbGame.from_snapshot(snap)
    print("legal", len(game.legal_moves()))
except (PandaCoreError, TypeError) as e:
    print("refused", type(e).__name__)
"""


def test_flip_expansion_of_a_hand_built_position_is_bounded() -> None:
    """Issue 8 item 2 with the shipped deck: this hand-built year/flip position aborted on an 8 GB
    allocation (every run expanded into all flip subsets) before the bound on legal moves per
    position; now it is refused or its moves are bounded, under a 3 GB address-space limit."""
    path = REGRESSIONS / "climb_snapshot" / "year_flip_5p_blue_earth_hand.json"
    done = subprocess.run(
        [sys.executable, "-c", BOUNDED_CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-300:])
    assert done.stdout.startswith(("legal", "refused")), done.stdout
