"""The table model (``panda_core.table``): seats, moves, what each seat is shown, records and
replays, for every game through the one game API."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import panda_core
from hidden_cards import card_ids_in, hidden_cards_shown, private_events_leak, secret_cards
from panda_core import IllegalMoveError, PandaCoreError
from panda_core.table import NotYourTurnError, Replay, Table, TableError, load_bot, parse_seat

GAMES = ("head", "year", "spin")

STATE_KEYS = {
    "game", "title", "players", "seat", "spectator", "seed", "seats", "to_move", "your_turn",
    "is_over", "winner", "round", "round_word", "scores", "hand_sizes", "draw_pile_size", "hand",
    "hands", "table", "view", "legal", "events", "since_last_turn", "round_results", "last_move",
    "seat_status", "log", "last_trick", "places", "consequences",
}  # fmt: skip


def play_out(table: Table, pick: Any = 0, check: Any = None) -> int:
    """Play ``table`` to the end, every person answering legal move ``pick``; returns the
    number of moves people made."""
    moves = 0
    while not table.is_over:
        table.advance()
        seat = table.waiting_for
        if seat is not None:
            if check is not None:
                check(table, seat)
            table.play(seat, pick)
            moves += 1
    return moves


# ---- seats ------------------------------------------------------------------------------------


def test_seat_specs_name_what_is_allowed() -> None:
    assert parse_seat("human").is_human
    assert parse_seat("human:Ada").name == "Ada"
    assert parse_seat("ismcts:50").builtin == "ismcts:50"
    assert parse_seat("heuristic").kind == "bot"
    for bad in ("robot", "human:", "ismcts:0", "nomodule_xyz:bot", "human:" + "x" * 41):
        with pytest.raises(PandaCoreError) as err:
            parse_seat(bad)
        assert "human" in str(err.value) or "ismcts" in str(err.value) or "import" in str(err.value)
    with pytest.raises(TypeError):
        parse_seat(3)


def test_python_bots_join_by_import_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_bots.py").write_text(
        textwrap.dedent(
            """
            class Lowest:
                def __call__(self, game, player):
                    return game.legal_moves()[0]

            def highest(game, player):
                return game.legal_moves()[-1]

            NOT_A_BOT = 3
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert callable(load_bot("my_bots:Lowest"))
    assert load_bot("my_bots:highest").__name__ == "highest"
    with pytest.raises(TableError, match="not a bot"):
        load_bot("my_bots:NOT_A_BOT")
    with pytest.raises(TableError, match="no attribute"):
        load_bot("my_bots:missing")
    table = Table("year", seats=["my_bots:Lowest", "my_bots:highest"], seed=5)
    assert play_out(table) == 0  # nobody human: one advance plays the game
    assert table.is_over and table.winner in (0, 1)
    sys.modules.pop("my_bots", None)


@pytest.mark.parametrize("game", GAMES)
def test_failing_python_bots_never_stop_the_table(game: str) -> None:
    def raises(g: Any, p: int) -> Any:
        raise RuntimeError("boom")

    def illegal(g: Any, p: int) -> Any:
        return "not a move"

    table = Table(game, seats=[raises, illegal, "random"], seed=11)
    table.advance()
    assert table.is_over
    notes = [e for e in table.state(0)["events"] if e["type"] == "bot_fallback"]
    assert notes and all(e["player"] == 0 for e in notes)
    assert "RuntimeError: boom" in notes[0]["reason"]
    other = [e for e in table.state(1)["events"] if e["type"] == "bot_fallback"]
    assert other and "not a legal move" in other[0]["reason"]


def test_a_bot_that_overruns_its_time_is_replaced() -> None:
    import threading

    release = threading.Event()

    def slow(g: Any, p: int) -> Any:
        release.wait(5)
        return g.legal_moves()[0]

    table = Table("head", seats=[slow, "random"], seed=2, bot_time=0.05)
    try:
        table.advance(max_moves=3)
        reasons = [e["reason"] for e in table.state(0)["events"] if e["type"] == "bot_fallback"]
        assert reasons and "no answer within 0.05 s" in reasons[0]
    finally:
        release.set()


def test_bad_table_arguments() -> None:
    with pytest.raises(TableError, match="one seat per player"):
        Table("head", players=3, seats=["human", "random"])
    with pytest.raises(PandaCoreError, match="unknown game"):
        Table("chess", seats=["human", "random"])
    with pytest.raises(PandaCoreError):
        Table("head", seats=["human"])  # one player
    with pytest.raises(TableError, match="bot_time"):
        Table("head", seats=["human", "random"], bot_time=0)
    with pytest.raises(TypeError):
        Table("head", seats="human,random")
    with pytest.raises(PandaCoreError):
        Table("head", seats=["human", "random"], bust_threshold=-1)


# ---- moving -----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_people_move_by_index_or_notation_and_bad_moves_change_nothing(game: str) -> None:
    table = Table(game, seats=["human", "heuristic", "human"], seed=4)
    table.advance()
    seat = table.waiting_for
    assert seat is not None and table.to_move == seat
    other = 2 if seat == 0 else 0
    before = table.record()
    state = table.state(seat)
    with pytest.raises(NotYourTurnError):
        table.play(other, 0)
    with pytest.raises(TableError, match="legal moves"):
        table.play(seat, len(state["legal"]))
    with pytest.raises(IllegalMoveError):
        table.play(seat, "no such move")
    with pytest.raises(TypeError):
        table.play(seat, 1.5)
    with pytest.raises(TableError):
        table.state(7)
    assert table.record() == before
    notation = state["legal"][-1]["notation"]
    events = table.play(seat, notation)
    assert events[0]["type"] == "move" and events[0]["player"] == seat
    assert events[0]["move"] == notation


@pytest.mark.parametrize("game", GAMES)
def test_a_table_records_a_game_from_json_and_replay_load(game: str, tmp_path: Path) -> None:
    table = Table(game, seats=["human", "random", "heuristic"], seed=21)
    moves = play_out(table, pick=0)
    assert moves > 0
    record = table.record()
    loaded = panda_core.make(game).from_json(record)
    assert loaded.winner == table.winner and loaded.scores == table.state(0)["scores"]
    path = table.save(tmp_path / table.default_record_name())
    assert path.read_text() == record
    replay = Replay.from_file(path)
    final = replay.frame(len(replay) - 1)
    assert final["is_over"] and final["winner"] == table.winner
    with pytest.raises(GameOverErrorOrTurn):
        table.play(0, 0)


GameOverErrorOrTurn = IllegalMoveError  # GameOverError is an IllegalMoveError


@pytest.mark.parametrize("game", GAMES)
def test_the_same_seed_and_seats_play_the_same_game(game: str) -> None:
    a = Table(game, seats=["heuristic", "random", "ismcts:20"], seed=9)
    b = Table(game, seats=["heuristic", "random", "ismcts:20"], seed=9)
    a.advance()
    b.advance()
    assert a.record() == b.record()


# ---- what a seat is shown ---------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_seat_is_never_shown_a_hidden_card(game: str) -> None:
    """At every decision of every person, nothing in ``state(seat)`` is a card that seat may
    not know (``tests/hidden_cards.py`` computes those from the full game)."""
    table = Table(game, seats=["human", "human", "human"], seed=33)
    checked = 0

    def check(t: Table, seat: int) -> None:
        nonlocal checked
        hidden_game = t._game  # the test's own access to the full game
        for viewer in range(t.players):
            state = json.loads(json.dumps(t.state(viewer)))
            assert set(state) == STATE_KEYS  # a new field must be added to the checks
            leaked = hidden_cards_shown(state, hidden_game, viewer)
            assert not leaked, f"seat {viewer} was shown hidden cards {sorted(leaked)}"
            assert not private_events_leak(state["events"], viewer)
            assert not private_events_leak(state["consequences"], viewer)
            # the last trick and the consequences show only cards the seat's log showed it
            told = card_ids_in(state["events"]) | card_ids_in(state["hand"])
            assert card_ids_in([state["last_trick"], state["consequences"]]) <= told
            engine_log = json.loads(json.dumps(hidden_game.events(viewer)))
            shown_log = [
                {k: v for k, v in e.items() if k not in ("seq", "text")}
                for e in state["events"]
                if e["type"] != "bot_fallback"
            ]
            assert shown_log == engine_log  # the table adds nothing to the engine's filter
        checked += 1

    play_out(table, pick=0, check=check)
    assert checked > 20


def test_the_card_scan_finds_a_planted_card() -> None:
    """The hidden-card checks can fail: another seat's card planted in a state is found, and so
    is another seat's deal shown in full."""
    table = Table("head", seats=["human", "human"], seed=1)
    state = table.state(0)
    secret = secret_cards(table._game, 0)
    assert secret and not hidden_cards_shown(state, table._game, 0)
    planted = {**state, "table": {**state["table"], "plays": [{"cards": [{"id": min(secret)}]}]}}
    assert hidden_cards_shown(planted, table._game, 0) == {min(secret)}
    full_deal = table._game.history[0]
    assert private_events_leak([full_deal], 0) == [full_deal]
    assert not private_events_leak(state["events"], 0)


@pytest.mark.parametrize("game", GAMES)
def test_legal_moves_only_for_the_seat_to_move(game: str) -> None:
    table = Table(game, seats=["human", "human"], seed=3)
    seat = table.waiting_for
    assert seat is not None
    state = table.state(seat)
    assert state["your_turn"] and state["legal"]
    assert [m["index"] for m in state["legal"]] == list(range(len(state["legal"])))
    assert all(m["text"] and m["notation"] for m in state["legal"])
    waiting = table.state(1 - seat)
    assert not waiting["your_turn"] and waiting["legal"] == []
    assert len(state["hand"]) == state["hand_sizes"][seat]
    assert all(c["face_label"] and c["label"] for c in state["hand"])
    assert state["events"] and all(e["text"] for e in state["events"])


@pytest.mark.parametrize("game", GAMES)
def test_events_since_the_last_turn(game: str) -> None:
    table = Table(game, seats=["human", "heuristic", "random"], seed=8)
    table.advance()
    seat = table.waiting_for
    assert seat == 0
    bots_moved: list[Any] = []
    while not bots_moved and table.waiting_for == 0:  # a discard keeps the turn (S-6.5)
        table.play(0, 0)
        bots_moved = table.advance()
    if table.is_over:
        return
    state = table.state(0)
    new = state["events"][state["since_last_turn"] :]
    assert new, "the bots' moves since seat 0 moved"
    assert all(e["seq"] >= state["since_last_turn"] for e in new)
    assert any(e["type"] == "move" and e["player"] != 0 for e in new)


@pytest.mark.parametrize("game", GAMES)
def test_help_names_the_rules_of_the_moves_now_legal(game: str) -> None:
    table = Table(game, seats=["human", "random"], seed=6)
    table.advance()
    text = table.help(0)
    assert "Your moves now:" in text
    assert ("H-3" in text) if game == "head" else ("S-6" in text or "S-4" in text)


# ---- replays ----------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_a_replay_shows_each_seat_what_it_knew(game: str) -> None:
    source = panda_core.make(game, players=3, seed=17)
    while not source.is_over:
        source.apply(source.bot_move("heuristic", 1))
    record = source.to_json()
    full = Replay(record)
    assert len(full) == len(json.loads(record)["actions" if game == "head" else "moves"]) + 1
    starts = full.round_starts()
    assert starts[0] == 0 and starts == sorted(starts) and len(starts) == len(source.round_results)
    assert [full.frame(k)["round"] for k in starts[1:]] == list(range(1, len(starts)))
    assert all(full.frame(k - 1)["round"] == r for r, k in enumerate(starts[1:]))
    for seat in range(3):
        replay = full.for_seat(seat)
        for k in range(0, len(replay), max(1, len(replay) // 25)):
            frame = replay.frame(k)
            game_k = replay.position(k)
            assert frame["frame"] == k and frame["frames"] == len(replay)
            assert [c["id"] for c in frame["hand"]] == game_k.view(seat)["hand"]
            assert not hidden_cards_shown(frame, game_k, seat)
            assert not private_events_leak(frame["events"], seat)
            assert frame["legal"] == [] and frame["hands"] is None
    everything = full.frame(len(full) // 2)
    assert everything["seat"] is None and len(everything["hands"]) == 3
    log = full.log()
    assert len(log) == len(source.history) and all(isinstance(line, str) for line in log)


@pytest.mark.parametrize("game", GAMES)
def test_frames_in_order_are_the_frames_one_by_one(game: str) -> None:
    """``Replay.frames()`` (linear: one log described once, grouped as it grows) gives exactly
    ``frame(k)`` for every k, for every seat and with every hand, a log's groups and last trick
    included; stepping back afterwards still gives the frame itself."""
    source = panda_core.make(game, players=4, seed=23)
    while not source.is_over:
        source.apply(source.bot_move("heuristic", 2))
    full = Replay(source.to_json())
    for seat in (None, 0, 3):
        replay = full.for_seat(seat)
        fresh = Replay(source.to_json(), seat)  # its own builder: no cache shared with frames()
        frames = list(replay.frames())
        assert len(frames) == len(fresh)
        for k in range(len(fresh)):
            assert frames[k] == fresh.frame(k), (seat, k)
        assert sum(f["last_trick"] is not None for f in frames) > len(frames) // 2
        assert replay.frame(len(replay) // 2) == frames[len(replay) // 2]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        "{}",
        '{"format": "panda-core/head"}',
        '{"format": "chess"}',
        "[" * 100_000,
        '{"format": "panda-core/climb", "settings": {"preset": "year"}, "moves": 3}',
    ],
)
def test_bad_records_are_refused_with_a_message(text: str) -> None:
    with pytest.raises(PandaCoreError) as err:
        Replay(text)
    assert str(err.value)


def test_a_record_with_an_illegal_move_names_it() -> None:
    source = panda_core.make("head", players=2, seed=3)
    record = json.loads(source.to_json())
    record["actions"] = [23, 23]
    with pytest.raises(PandaCoreError, match="move 0"):
        Replay(json.dumps(record))
    with pytest.raises(TableError, match="frames are"):
        Replay(source.to_json()).frame(5)


@pytest.mark.parametrize("game", GAMES)
def test_records_of_the_batch_simulator_replay(game: str) -> None:
    """``panda-core simulate --save-records`` writes the same format: its records replay."""
    from panda_core._registry import spec

    records = spec(game).batch_records(3, 3, ["heuristic", "random", "random"], 7, None, 1, 0)
    for record in records:
        replay = Replay(record)
        final = replay.frame(len(replay) - 1)
        loaded = panda_core.make(game).from_json(record)
        assert final["is_over"] and final["winner"] == loaded.winner
        assert final["scores"] == loaded.scores


def _records() -> list[str]:
    out = []
    for game in GAMES:
        g = panda_core.make(game, players=3, seed=4)
        for _ in range(12):
            g.apply(g.bot_move("random", 1))
        out.append(g.to_json())
    return out


RECORDS = _records()
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)


@given(
    which=st.integers(0, len(RECORDS) - 1),
    path_seed=st.integers(0, 2**32),
    value=JSON_VALUES,
)
def test_a_mutated_record_replays_or_is_refused_with_an_engine_error(
    which: int, path_seed: int, value: Any
) -> None:
    """Any record a user can hand to a replay (a value replaced anywhere in a real record)
    either replays or raises a ``PandaCoreError``: never another exception, never a crash."""
    import random

    record = json.loads(RECORDS[which])
    rng = random.Random(path_seed)
    node: Any = record
    while True:  # walk to a random place and replace what is there
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        key = rng.choice(keys)
        child = node[key]
        if not isinstance(child, dict | list) or not child or rng.random() < 0.4:
            node[key] = value
            break
        node = child
    try:
        replay = Replay(json.dumps(record))
    except PandaCoreError:
        return
    frame = replay.frame(len(replay) - 1)
    assert frame["frames"] == len(replay)


@given(
    game=st.sampled_from(GAMES),
    move=st.none()
    | st.integers(-(2**70), 2**70)
    | st.text(max_size=30)
    | st.floats()
    | st.lists(st.integers(), max_size=3),
    seat=st.integers(-3, 6),
)
def test_whatever_a_person_sends_is_played_or_refused_unchanged(
    game: str, move: Any, seat: int
) -> None:
    table = Table(game, seats=["human", "human"], seed=12)
    before = table.record()
    try:
        table.play(seat, move)
    except (PandaCoreError, TypeError):
        assert table.record() == before
    else:
        assert table.record() != before


def test_bots_are_reset_as_play_game_resets_them() -> None:
    """A Python bot with ``reset(seed)`` gets the seed ``play_game`` would give it at that seat."""
    from panda_core.bots import play_game

    class Recorder:
        def __init__(self) -> None:
            self.seeds: list[int] = []

        def reset(self, seed: int) -> None:
            self.seeds.append(seed)

        def __call__(self, game: Any, player: int) -> Any:
            return game.legal_moves()[0]

    at_table, in_play_game = Recorder(), Recorder()
    Table("head", seats=["random", at_table], seed=77)
    play_game("head", ["random", in_play_game], seed=77)
    assert at_table.seeds == in_play_game.seeds and len(at_table.seeds) == 1
