"""Issue 8, items 3, 6 and 7: one error contract (docs/errors.md).

Every error is a ``PandaCoreError`` subclass or a ``TypeError`` for a wrong type: no
``OverflowError``, plain ``ValueError``, ``RuntimeError`` or ``PanicException``; messages name the
allowed range and quote the true value, cut to a sane length; a refused call changes nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import panda_core
from panda_core import (
    ArgumentError,
    ClimbGame,
    ClimbMove,
    ClimbSettings,
    ConcurrentUseError,
    EngineInvariantError,
    HeadGame,
    HeadRules,
    IllegalMoveError,
    InvalidStateError,
    PandaCoreError,
    RulesError,
    climb,
    head,
)
from panda_core._core import climb_classify
from panda_core.bots import BuiltinBot, play_game

HUGE = [2**63, 2**64, 2**200, -(2**63) - 1, -(2**200)]
"""Integers outside every machine type the bindings use."""


def head_game() -> HeadGame:
    return HeadGame(4, 1)


def climb_game() -> ClimbGame:
    return ClimbGame(4, 1)


def refused(call: Callable[[], object]) -> BaseException:
    """The exception `call` raises; fails if it returns."""
    with pytest.raises(BaseException) as info:
        call()
    return info.value


def in_contract(err: BaseException) -> bool:
    return isinstance(err, PandaCoreError | TypeError)


# ---- every integer parameter, every huge value ---------------------------------------------------

HEAD_INT_CALLS: list[tuple[str, Callable[[int], object], type[PandaCoreError]]] = [
    ("HeadGame(players)", lambda v: HeadGame(v, 1), RulesError),
    ("HeadGame(seed)", lambda v: HeadGame(4, v), RulesError),
    ("hand", lambda v: head_game().hand(v), ArgumentError),
    ("view", lambda v: head_game().view(v), ArgumentError),
    ("observation", lambda v: head_game().observation(v), ArgumentError),
    ("determinize(player)", lambda v: head_game().determinize(v), ArgumentError),
    ("determinize(seed)", lambda v: head_game().determinize(0, v), RulesError),
    ("bot_move(seed)", lambda v: head_game().bot_move("random", v), RulesError),
    ("apply", lambda v: head_game().apply(v), IllegalMoveError),
    ("HeadRules(bust_threshold)", lambda v: HeadRules(bust_threshold=v), RulesError),
    ("HeadRules(first_dealer)", lambda v: HeadRules(first_dealer=v), RulesError),
    ("from_deal(dealer)", lambda v: HeadGame.from_deal([[]] * 4, [], dealer=v), InvalidStateError),
    (
        "from_deal(hand_number)",
        lambda v: HeadGame.from_deal([[]] * 4, [], hand_number=v),
        InvalidStateError,
    ),
    ("from_deal(cards)", lambda v: HeadGame.from_deal([[v]] * 4, []), InvalidStateError),
    ("from_deal(draw_pile)", lambda v: HeadGame.from_deal([[]] * 4, [v]), InvalidStateError),
    (
        "from_deal(scores)",
        lambda v: HeadGame.from_deal([[]] * 4, [], scores=[v] * 4),
        InvalidStateError,
    ),
    ("from_deal(rng_state)", lambda v: HeadGame.from_deal([[]] * 4, [], rng_state=v), RulesError),
]

CLIMB_INT_CALLS: list[tuple[str, Callable[[int], object], type[PandaCoreError]]] = [
    ("ClimbGame(players)", lambda v: ClimbGame(v, 1), RulesError),
    ("ClimbGame(seed)", lambda v: ClimbGame(4, v), RulesError),
    ("view", lambda v: climb_game().view(v), ArgumentError),
    ("observation", lambda v: climb_game().observation(v), ArgumentError),
    ("determinize(player)", lambda v: climb_game().determinize(v), ArgumentError),
    ("determinize(seed)", lambda v: climb_game().determinize(0, v), RulesError),
    ("bot_move(seed)", lambda v: climb_game().bot_move("random", v), RulesError),
    ("apply", lambda v: climb_game().apply(v), IllegalMoveError),
    ("move_for_action", lambda v: climb_game().move_for_action(v), IllegalMoveError),
    ("ClimbSettings(first_player)", lambda v: ClimbSettings(first_player=v), RulesError),
    ("climb_classify(cards)", lambda v: climb_classify([v], ["white"], []), ArgumentError),
    ("climb_classify(named)", lambda v: climb_classify([0], ["white"], [v]), ArgumentError),
]

INT_CALLS = HEAD_INT_CALLS + CLIMB_INT_CALLS


def huge_cases() -> list[Any]:
    """(call, expected class, value) for every call and huge value; 2**63 is a valid seed."""
    return [
        pytest.param(call, expected, value, id=f"{name}-{value:#x}")
        for name, call, expected in INT_CALLS
        for value in HUGE
        if not ("seed" in name or "rng_state" in name) or not 0 <= value < 2**64
    ]


@pytest.mark.parametrize(("call", "expected", "value"), huge_cases())
def test_huge_integers_raise_the_documented_class(
    call: Callable[[int], object], expected: type[PandaCoreError], value: int
) -> None:
    """`HeadGame(2**64, 1)`, `g.view(2**63)`, `apply(2**63)` raised OverflowError."""
    err = refused(lambda: call(value))
    assert isinstance(err, expected), (type(err), err)


@pytest.mark.parametrize(
    ("call", "expected"), [(c, e) for _, c, e in INT_CALLS], ids=[n for n, _, _ in INT_CALLS]
)
def test_negative_one_raises_the_documented_class(
    call: Callable[[int], object], expected: type[PandaCoreError]
) -> None:
    err = refused(lambda: call(-1))
    assert isinstance(err, expected), (type(err), err)


def test_seats_are_argument_errors_naming_the_range() -> None:
    """Seats raised a plain ValueError."""
    for game in (head_game(), climb_game()):
        err = refused(lambda game=game: game.view(4))  # type: ignore[misc]
        assert isinstance(err, ArgumentError)
        assert "0..=3" in str(err) and "got 4" in str(err)


def test_huge_action_ids_are_reported_with_their_true_value() -> None:
    """`apply(2**64)` said "action id 9223372036854775807"."""
    g = head_game()
    with pytest.raises(IllegalMoveError) as info:
        g.apply(2**64)
    assert info.value.move == f"action id {2**64}"
    assert "0..=23" in info.value.reason
    assert info.value.legal == [m.notation for m in g.legal_moves()]
    with pytest.raises(IllegalMoveError) as info:
        g.apply(-(2**64))
    assert info.value.move == f"action id {-(2**64)}"
    c = climb_game()
    with pytest.raises(IllegalMoveError) as info:
        c.apply(2**64)
    assert info.value.move == str(2**64) and str(2**64) in info.value.reason
    with pytest.raises(IllegalMoveError) as info:
        c.apply(2**300)
    assert "2**127" in info.value.move  # beyond any range: said, not a wrapped number


def test_parse_errors_are_invalid_state_errors() -> None:
    """`parse_move` and `ClimbMove.from_json` raised a plain ValueError."""
    for call in (
        lambda: climb.parse_move("single Zz9"),
        lambda: ClimbMove.parse(""),
        lambda: ClimbMove.from_json({"kind": "jump", "cards": [], "named": [], "flip": []}),
        lambda: ClimbMove.from_json(
            {"kind": "single", "cards": [200], "named": [], "flip": [], "steal": []}
        ),
        lambda: ClimbMove.from_json({"kind": "pass", "cards": [2**70]}),
    ):
        err = refused(call)
        assert type(err) is InvalidStateError, (type(err), err)


def test_engine_invariant_error_is_in_the_family() -> None:
    """EngineInvariantError was a RuntimeError outside PandaCoreError."""
    assert issubclass(EngineInvariantError, PandaCoreError)
    assert issubclass(ConcurrentUseError, PandaCoreError)
    assert "report" in (EngineInvariantError.__doc__ or "")
    for name in panda_core.__all__:
        obj = getattr(panda_core, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, PandaCoreError), name


def test_move_info_of_element_cards_does_not_panic() -> None:
    """`move_info(parse_move("single Me!"))` raised PanicException (index out of bounds)."""
    c = ClimbGame(4, 1)
    before = c.snapshot()
    for text in ("single Me!", "set Fi!+Ea!", "run Fi3+Ea4+Wo5+Wa!+Me!", "bomb Fi!+Ea!+Wa!+Me!"):
        info = c.move_info(climb.parse_move(text))
        assert info["combo"] is None
        assert "element" in info["faces"]
    info = c.move_info({"kind": "single", "cards": [69], "named": [], "flip": [], "steal": []})
    assert info == {"faces": ["element"], "combo": None}
    assert c.snapshot() == before


# ---- messages are cut ----------------------------------------------------------------------------

BIG_TEXT = "x" * 10_000_000
MAX_MESSAGE = 3_000


def message_calls() -> list[tuple[str, Callable[[], object]]]:
    big = BIG_TEXT
    return [
        ("ClimbMove.parse", lambda: ClimbMove.parse(big)),
        ("parse_move", lambda: climb.parse_move("single " + big)),
        ("ClimbGame.apply(str)", lambda: climb_game().apply(big)),
        ("ClimbGame.apply(dict)", lambda: climb_game().apply({"kind": big})),
        ("ClimbGame.action_index", lambda: climb_game().action_index(big)),
        ("HeadGame.apply(str)", lambda: head_game().apply(big)),
        ("HeadGame.from_json", lambda: HeadGame.from_json(big)),
        ("ClimbGame.from_json", lambda: ClimbGame.from_json(big)),
        ("ClimbMove.from_json", lambda: ClimbMove.from_json({"kind": big})),
        ("HeadRules", lambda: HeadRules(last_pile_scoring=big)),
        ("ClimbSettings(preset)", lambda: ClimbSettings(preset=big)),
        ("ClimbSettings(panda_mood)", lambda: ClimbSettings(panda_mood=big)),
        ("ClimbSettings(deck)", lambda: ClimbSettings(deck="/no/such/" + "d" * 100_000)),
        ("HeadGame.bot_move", lambda: head_game().bot_move(big)),
        ("bot_move", lambda: climb_game().bot_move(big)),
        ("HeadGame(seed)", lambda: HeadGame(4, big)),  # type: ignore[arg-type]
        ("view(str)", lambda: head_game().view(big)),  # type: ignore[arg-type]
        ("climb_classify(faces)", lambda: climb_classify([0], [big], [])),  # type: ignore[list-item]
        ("play_game(bot)", lambda: play_game("head", [big, "random"])),
        ("play_game(game)", lambda: play_game(big, ["random", "random"])),
        ("play_game(move)", lambda: play_game("head", [lambda g, p: big, "random"])),
    ]


@pytest.mark.parametrize(
    "call", [c for _, c in message_calls()], ids=[n for n, _ in message_calls()]
)
def test_a_ten_megabyte_value_gives_a_short_message(call: Callable[[], object]) -> None:
    """A 10 MB notation string gave a 20 MB message."""
    err = refused(call)
    assert in_contract(err), (type(err), str(err)[:200])
    assert len(str(err)) < MAX_MESSAGE, (type(err), str(err)[:200])
    for attr in ("move", "reason"):
        assert len(str(getattr(err, attr, ""))) < MAX_MESSAGE
    if "10000000" in str(err):  # a cut value says how long it was
        assert "characters" in str(err)


def test_cut_messages_keep_the_explanation() -> None:
    err = refused(lambda: head_game().apply(BIG_TEXT))
    assert isinstance(err, IllegalMoveError)
    assert err.move.startswith("x" * 50) and "10000000 characters" in err.move
    assert "legal moves" in str(err)  # the end of the message survives the cut


# ---- the Python facade ---------------------------------------------------------------------------


def test_play_game_checks_players() -> None:
    with pytest.raises(RulesError, match="2 to 5"):
        play_game("head", ["random"] * 2, players=2**64)
    with pytest.raises(TypeError):
        play_game("head", ["random"] * 2, players=True)


def test_builtin_bot_asked_for_the_wrong_seat_is_an_argument_error() -> None:
    """BuiltinBot raised a plain ValueError."""
    g = head_game()
    with pytest.raises(ArgumentError):
        BuiltinBot("random")(g, (g.current_player or 0) + 1)


def test_head_helpers_are_in_the_contract() -> None:
    with pytest.raises(ArgumentError):
        head.action_notation(24)
    with pytest.raises(ArgumentError):
        head.card_name(63)
    with pytest.raises(TypeError):
        head.action_notation(True)
    with pytest.raises(TypeError):
        head.card_name(1.0)  # type: ignore[arg-type]
    assert head.action_notation(22) == "BP"


# ---- refused calls change nothing ----------------------------------------------------------------


BAD_HEAD_CALLS: list[Callable[[HeadGame], object]] = [
    lambda g: g.apply(2**64),
    lambda g: g.apply(float("nan")),  # type: ignore[arg-type]
    lambda g: g.apply(True),
    lambda g: g.apply("x" * 1000),
    lambda g: g.view(2**63),
    lambda g: g.hand(-1),
]

BAD_CLIMB_CALLS: list[Callable[[ClimbGame], object]] = [
    lambda g: g.apply(2**63),
    lambda g: g.apply(False),
    lambda g: g.apply(float("nan")),  # type: ignore[arg-type]
    lambda g: g.apply({"kind": 1}),  # type: ignore[typeddict-item]
    lambda g: g.apply({"kind": "pass", "cards": [[[[1]]]], "named": [], "flip": [], "steal": []}),
    lambda g: g.apply([]),  # type: ignore[arg-type]
    lambda g: g.move_info({"kind": "single", "cards": [[1]], "named": [], "flip": [], "steal": []}),  # type: ignore[list-item]
]


@pytest.mark.parametrize("call", BAD_HEAD_CALLS)
def test_refused_head_calls_change_nothing(call: Callable[[HeadGame], Any]) -> None:
    g = head_game()
    before = g.snapshot()
    err = refused(lambda: call(g))
    assert in_contract(err), (type(err), err)
    assert g.snapshot() == before


@pytest.mark.parametrize("call", BAD_CLIMB_CALLS)
def test_refused_climb_calls_change_nothing(call: Callable[[ClimbGame], Any]) -> None:
    g = climb_game()
    before = g.snapshot()
    err = refused(lambda: call(g))
    assert in_contract(err), (type(err), err)
    assert g.snapshot() == before


# ---- text that is not UTF-8 ----------------------------------------------------------------------

SURROGATE = "single \ud800"
"""A Python str with a lone surrogate: legal in Python, impossible in UTF-8."""


def surrogate_calls() -> list[tuple[str, Callable[[], object], type[PandaCoreError]]]:
    s = SURROGATE
    return [
        ("HeadGame.apply", lambda: head_game().apply(s), IllegalMoveError),
        ("ClimbGame.apply", lambda: climb_game().apply(s), IllegalMoveError),
        ("ClimbGame.action_index", lambda: climb_game().action_index(s), IllegalMoveError),
        ("ClimbMove.parse", lambda: ClimbMove.parse(s), InvalidStateError),
        ("ClimbMove.from_json(value)", lambda: ClimbMove.from_json({"kind": s}), InvalidStateError),
        ("ClimbMove.from_json(key)", lambda: ClimbMove.from_json({s: 1}), InvalidStateError),  # type: ignore[misc]
        ("HeadRules", lambda: HeadRules(last_pile_scoring=s), RulesError),  # type: ignore[arg-type]
        ("ClimbSettings(preset)", lambda: ClimbSettings(preset=s), RulesError),  # type: ignore[arg-type]
        ("ClimbSettings(deck)", lambda: ClimbSettings(deck=s), InvalidStateError),
        ("HeadGame.bot_move", lambda: head_game().bot_move(s), RulesError),
        ("bot_move", lambda: climb_game().bot_move(s), RulesError),
        ("HeadGame.from_json", lambda: HeadGame.from_json(s), InvalidStateError),
        ("ClimbGame.from_json", lambda: ClimbGame.from_json(s), InvalidStateError),
        ("climb_classify", lambda: climb_classify([0], [s], []), ArgumentError),  # type: ignore[list-item]
    ]


@pytest.mark.parametrize(
    ("call", "expected"),
    [(c, e) for _, c, e in surrogate_calls()],
    ids=[n for n, _, _ in surrogate_calls()],
)
def test_lone_surrogates_are_refused_by_the_real_check(
    call: Callable[[], object], expected: type[PandaCoreError]
) -> None:
    """Every str parameter raised UnicodeEncodeError (outside the contract) for "\\ud800"."""
    err = refused(call)
    assert isinstance(err, expected), (type(err), err)


# ---- a sweep: every method, odd values ---------------------------------------------------------

ODD_VALUES: list[object] = [
    None,
    [],
    {},
    object(),
    -1,
    2**64,
    -(2**70),
    "x",
    "",
    1.5,
    float("nan"),
    True,
    np.int64(1),
    b"x",
    "\ud800",
    [[[]]],
    {"kind": None},
    10**6,
]


def sweep_targets() -> list[tuple[str, Callable[..., object]]]:
    h, c = HeadGame(3, 1), ClimbGame(3, 1)
    owners: list[object] = [
        h,
        c,
        h.legal_moves()[0],
        c.legal_moves()[0],
        HeadRules(),
        ClimbSettings(),
    ]
    targets: list[tuple[str, Callable[..., object]]] = []
    for owner in owners:
        for attr in dir(owner):
            if attr.startswith("__") and attr not in ("__reduce__", "__deepcopy__"):
                continue
            method = getattr(owner, attr)
            if callable(method):
                targets.append((f"{type(owner).__name__}.{attr}", method))
    targets += [
        ("HeadGame", HeadGame),
        ("ClimbGame", ClimbGame),
        ("climb_classify", climb_classify),
    ]
    for name in ("last_pile_scoring", "bust_threshold", "first_dealer", "poor_panda"):
        targets.append((f"HeadRules({name})", lambda v, name=name: HeadRules(**{name: v})))
    for name in ("preset", "panda_mood", "first_player", "deck"):
        targets.append((f"ClimbSettings({name})", lambda v, name=name: ClimbSettings(**{name: v})))
    return targets


@pytest.mark.parametrize(
    "call", [c for _, c in sweep_targets()], ids=[n for n, _ in sweep_targets()]
)
def test_every_method_with_odd_values_stays_in_the_contract(call: Callable[..., object]) -> None:
    """One, two and three odd positional values into every method: nothing outside the contract
    (this found the `UnicodeEncodeError` of lone surrogates)."""
    outside = []
    for n in (1, 2, 3):
        for args in (
            itertools.product(ODD_VALUES, repeat=n) if n < 3 else [(v,) * 3 for v in ODD_VALUES]
        ):
            try:
                call(*args)
            except (PandaCoreError, TypeError):
                pass
            except BaseException as err:
                outside.append((args, type(err).__name__, str(err)[:100]))
    assert outside == []


def facade_targets() -> list[tuple[str, Callable[..., object]]]:
    from panda_core import bots
    from panda_core.rl import PandaAECEnv, PandaEnv

    return [
        ("play_game", bots.play_game),
        ("BuiltinBot", bots.BuiltinBot),
        ("head.action_notation", head.action_notation),
        ("head.card_name", head.card_name),
        ("climb.parse_move", climb.parse_move),
        ("PandaEnv", PandaEnv),
        ("PandaAECEnv", PandaAECEnv),
    ]


FACADE_VALUES: list[object] = [*ODD_VALUES[:14], "head", "random", 2]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(
    "call", [c for _, c in facade_targets()], ids=[n for n, _ in facade_targets()]
)
def test_the_python_facade_with_odd_values_stays_in_the_contract(
    call: Callable[..., object],
) -> None:
    """`tournament("head", b"x")` raised IndexError, `year_env(2, object())` AttributeError."""
    outside = []
    for n in (1, 2):
        for args in itertools.product(FACADE_VALUES, repeat=n):
            try:
                call(*args)
            except (PandaCoreError, TypeError):
                pass
            except BaseException as err:
                outside.append((args, type(err).__name__, str(err)[:100]))
    for args in [("head", v, None) for v in FACADE_VALUES] + [
        ("year", 2, v) for v in FACADE_VALUES
    ]:
        try:
            call(*args)
        except (PandaCoreError, TypeError):
            pass
        except BaseException as err:
            outside.append((args, type(err).__name__, str(err)[:100]))
    assert outside == []
