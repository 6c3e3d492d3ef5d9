"""The arena (panda_core.arena): its schedule of duplicate deals, the games it plays, forfeits,
the results folder and resuming, worker-count independence, and its argument checks.

The statistics and the report have their own tests (test_arena_stats.py, test_arena_report.py);
the backends theirs (test_parallel.py); the command line is in test_arena_cli.py.
"""

from __future__ import annotations

import collections
import json
import math
from pathlib import Path

import pytest

from arena_support import StopAfter, result_lines
from panda_core import ArgumentError, ClimbGame, HeadGame, PandaCoreError, make
from panda_core._registry import spec
from panda_core.arena.errors import ArenaError, ArenaWarning
from panda_core.arena.model import MatchResult
from panda_core.arena.run import arena_settings, play_arena, scheduled_games
from panda_core.arena.schedule import games_per_deal, matches, seatings
from panda_core.bot_import import BotImportError
from panda_core.bots import nth_output

GAMES = ("head", "year", "spin")


# ---- the schedule ---------------------------------------------------------------------------


@pytest.mark.parametrize("entrants", [2, 3, 4, 5, 7])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("permutations", ["rotations", "all"])
def test_every_entrant_of_a_deal_sits_in_every_seat_equally(
    entrants: int, players: int, permutations: str
) -> None:
    if permutations == "all" and players == 5 and entrants >= 5:
        deals = 2  # 120 seatings a deal
    else:
        deals = 6
    for deal in range(deals):
        games = seatings(entrants, players, permutations, 11, deal)  # type: ignore[arg-type]
        assert len(games) == games_per_deal(entrants, players, permutations)  # type: ignore[arg-type]
        assert len(set(games)) == len(games), "no seating twice"
        in_deal = {e for g in games for e in g}
        assert len(in_deal) == min(entrants, players)
        for seat in range(players):
            counts = collections.Counter(g[seat] for g in games)
            assert set(counts) == in_deal, f"seat {seat}: every entrant of the deal sits there"
            assert len(set(counts.values())) == 1, f"seat {seat}: equally often, got {counts}"
        seats_each = collections.Counter(e for g in games for e in g)
        assert len(set(seats_each.values())) == 1, "every entrant plays as many seat-games"


def test_rotations_and_all_sizes() -> None:
    assert games_per_deal(4, 4, "rotations") == 4
    assert games_per_deal(2, 4, "rotations") == 2
    assert games_per_deal(6, 4, "rotations") == 4
    assert games_per_deal(4, 4, "all") == 24
    assert games_per_deal(5, 5, "all") == 120
    assert games_per_deal(2, 3, "all") == 6  # 3 arrangements of {A, A, B} and 3 of {A, B, B}


def test_line_ups_change_from_deal_to_deal_and_cover_every_entrant() -> None:
    """A seeded shuffle decides who sits after whom on each deal; with more entrants than seats
    it also decides who plays the deal, and over many deals everybody plays about as often."""
    firsts = {seatings(4, 4, "rotations", 3, d)[0] for d in range(40)}
    assert len(firsts) > 10
    plays = collections.Counter(e for d in range(600) for e in seatings(6, 4, "rotations", 3, d)[0])
    assert set(plays) == set(range(6))
    assert max(plays.values()) < 1.25 * min(plays.values())


def test_schedule_is_seeded_and_its_first_games_do_not_depend_on_the_deals() -> None:
    few = arena_settings(["heuristic", "random", "ismcts:5"], deals=3, seed=9)
    more = arena_settings(["heuristic", "random", "ismcts:5"], deals=8, seed=9)
    other = arena_settings(["heuristic", "random", "ismcts:5"], deals=3, seed=10)
    assert list(matches(few)) == list(matches(more))[: scheduled_games(few)]
    assert list(matches(few)) != list(matches(other))
    assert [m.index for m in matches(more)] == list(range(scheduled_games(more)))


@pytest.mark.parametrize("game", GAMES)
def test_every_game_of_a_deal_is_dealt_the_same_cards(game: str) -> None:
    settings = arena_settings(["heuristic", "random", "ismcts:5"], game=game, deals=3, seed=4)
    by_deal = collections.defaultdict(list)
    for m in matches(settings):
        by_deal[m.deal].append(m)
    for deal, games in by_deal.items():
        assert {m.seed for m in games} == {nth_output(4, deal)}
        assert len(games) == 3
    # The same seed is the same deal: every seat's cards at the start.
    start = [make(game, 4, nth_output(4, 0)).snapshot() for _ in range(2)]
    assert start[0] == start[1]


# ---- playing --------------------------------------------------------------------------------


def _check_result(result: MatchResult, game: str, players: int) -> None:
    assert len(result.scores) == len(result.ranks) == len(result.lineup) == players
    if result.forfeit is None:
        assert result.winner is not None
        assert result.ranks == spec(game).placements(result.winner, result.scores, result.left)
        assert result.ranks[result.winner] == 0 and result.left[result.winner] == 0
        if game == "head":  # H-6.2: one seat Pooped per hand, the last in the last hand
            assert sorted(result.ranks) == list(range(players))
            assert max(result.left) == result.rounds
        assert result.decisions > 0 and result.rounds > 0


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [2, 3, 5])
@pytest.mark.slow
def test_python_and_builtin_line_ups_play_complete_games(game: str, players: int) -> None:
    settings = arena_settings(
        ["arena_bots:first_legal", "heuristic", "random"], game=game, players=players, deals=3
    )
    results = play_arena(settings, workers=0)
    assert [r.index for r in results] == list(range(scheduled_games(settings)))
    for r in results:
        _check_result(r, game, players)
        assert r.forfeit is None
    # A Python bot that is the heuristic plays the heuristic's games: its seat wins as often.
    assert len({r.winner for r in results}) > 1


@pytest.mark.parametrize("game", GAMES)
def test_a_python_game_replays_from_its_deal(game: str) -> None:
    """A game with a Python seat is the game the engine plays from that deal with those bots:
    replaying it move by move with fresh bots gives the same winner and scores."""
    import arena_bots
    from panda_core.bots import play_game

    settings = arena_settings(["arena_bots:first_legal", "heuristic"], game=game, deals=2)
    for r in play_arena(settings, workers=0):
        seats = [arena_bots.first_legal if e == 0 else "heuristic" for e in r.lineup]
        again = play_game(game, seats, players=4, seed=r.seed)
        assert (again.winner, again.scores, again.decisions) == (r.winner, r.scores, r.decisions)


@pytest.mark.parametrize("game", GAMES)
def test_the_batch_and_the_games_record_agree_on_who_left_when(game: str) -> None:
    """Built-in line-ups play by the engine's batch (its ``left`` column); the same games' records
    loaded back give the same ``left`` from their round results, and so the same places: in
    Panda Head every loser has a place of its own, by the hand it was Pooped in (H-6.2)."""
    import panda_core

    g = spec(game)
    settings = arena_settings(["heuristic", "random"], game=game, players=4, deals=3)
    for r in play_arena(settings, workers=0):
        bots = [settings.entrants[e].spec for e in r.lineup]
        (record,) = g.batch_records(1, 4, bots, settings.seed, settings.rules, 1, r.deal)
        loaded = panda_core.make(game).from_json(record)
        left = g.left_of(loaded)
        assert (loaded.winner, tuple(loaded.scores), left) == (r.winner, r.scores, r.left)
        assert r.winner is not None and r.ranks == g.placements(r.winner, r.scores, left)
        if game == "head":
            later_first = sorted(range(4), key=lambda s: -(10**9) if s == r.winner else -left[s])
            assert [r.ranks[s] for s in later_first] == [0, 1, 2, 3]
        else:
            assert left == (0, 0, 0, 0)


@pytest.mark.parametrize(
    ("bot", "kind", "says"),
    [
        ("Raises", "exception", "RuntimeError: the bot broke"),
        ("SysExit", "exception", "SystemExit"),
        ("Illegal", "illegal", "1000000"),
        ("NotAMove", "illegal", "move"),
        ("Sleeps", "timeout", "move time"),
        ("CatchesEverything", "timeout", "move time"),
    ],
)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_a_misbehaving_bot_forfeits_and_the_arena_goes_on(
    game: str, bot: str, kind: str, says: str
) -> None:
    settings = arena_settings(
        [f"bad=arena_bots:{bot}", "heuristic", "arena_bots:first_legal"],
        game=game,
        players=3,
        deals=2,
        move_time=0.2,
    )
    results = play_arena(settings, workers=0)
    assert len(results) == scheduled_games(settings) == 6
    for r in results:
        _check_result(r, game, 3)
        f = r.forfeit
        assert f is not None, "the bad bot misbehaves after 3 moves, in every game"
        assert (f.entrant, f.kind, r.winner) == (0, kind, None)
        assert f.seat is not None and r.lineup[f.seat] == 0
        assert says in f.message
        # Its seat is last (the worst place of a finished game: players - 1 in every game, by
        # elimination order in Panda Head, by score in the climbing games), the others tied first.
        last = 2
        assert r.ranks == tuple(last if e == 0 else 0 for e in r.lineup)
        # The record is the game up to the refused move, loadable by the engine.
        loaded = spec(game).game_class.from_json(f.record)
        assert isinstance(loaded, HeadGame | ClimbGame)
        assert loaded.current_player == f.seat
        assert not loaded.is_over


def test_a_bot_that_cannot_be_created_forfeits() -> None:
    """A module that imports in the parent but whose bot fails in the worker (here: a class
    whose constructor raises) forfeits each game it sits in."""
    settings = arena_settings(["arena_bots:BrokenConstructor", "heuristic"], deals=1)
    results = play_arena(settings, workers=0)
    assert len(results) == 2
    for r in results:
        assert r.forfeit is not None and r.forfeit.kind == "exception"
        assert "cannot create the bot" in r.forfeit.message


# ---- every core, any backend: the same results ---------------------------------------------

ALL_KINDS = [
    "arena_bots:first_legal",
    "heuristic",
    "bad=arena_bots:Raises",
    "arena_bots:Heuristic",
    "random",
]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_results_are_the_same_for_any_worker_count(game: str) -> None:
    settings = arena_settings(ALL_KINDS, game=game, deals=5, move_time=1.0)
    serial = play_arena(settings, workers=0)
    assert play_arena(settings, workers=1) == serial
    assert play_arena(settings, workers=2) == serial
    assert any(r.forfeit for r in serial) and any(not r.forfeit for r in serial)


@pytest.mark.slow
def test_built_in_line_ups_give_the_same_results_in_processes_and_in_this_process() -> None:
    """Built-in line-ups play in this process by default (nothing to isolate); in worker
    processes (a backend given as an object) they give the same results."""
    from panda_core.parallel.local import ProcessBackend

    settings = arena_settings(["heuristic", "random", "ismcts:10"], game="year", deals=20)
    assert play_arena(settings, backend=ProcessBackend(2)) == play_arena(settings, workers=2)


@pytest.mark.parametrize(
    ("bot", "kind"),
    [("Exits", "dead_worker"), ("ExitsCleanly", "dead_worker"), ("HangsInC", "timeout")],
)
@pytest.mark.slow
def test_a_bot_that_kills_or_hangs_its_worker_forfeits_only_its_games(bot: str, kind: str) -> None:
    """In-process, the worker dies (os._exit) or hangs where the move timer cannot reach it
    (inside the regex engine): its task fails, is replayed game by game, and only the games that
    fail again are forfeited; every other game of the task keeps its real result."""
    entrants = [f"bad=arena_bots:{bot}", "heuristic", "arena_bots:first_legal"]
    settings = arena_settings(
        entrants, players=3, deals=2, move_time=0.5, game_time=2.0, contained=False
    )
    good = arena_settings(
        ["arena_bots:first_legal", "heuristic", "arena_bots:first_legal"], players=3, deals=2
    )
    results = play_arena(settings, workers=2)
    assert len(results) == 6
    for r in results:
        f = r.forfeit
        assert f is not None, "the bad bot misbehaves in every game"
        assert (f.kind, f.entrant, r.lineup[f.seat]) == (kind, 0, 0)  # type: ignore[index]
        # The record goes up to the move that killed the worker: the bad bot's 4th move.
        loaded = spec("head").game_class.from_json(f.record)
        assert loaded.current_player == f.seat
        assert r.decisions == len(json.loads(f.record)["actions"]) > 3
    assert all(r.forfeit is None for r in play_arena(good, workers=2))


# ---- the results folder ---------------------------------------------------------------------


@pytest.mark.slow
def test_an_interrupted_arena_resumes_and_finds_what_an_uninterrupted_one_finds(
    tmp_path: Path,
) -> None:
    from panda_core.arena.run import _Interrupted

    settings = arena_settings(["arena_bots:first_legal", "heuristic", "random"], deals=6)
    whole = play_arena(settings, workers=0)
    folder = tmp_path / "run"
    with pytest.raises(_Interrupted) as stopped:
        play_arena(settings, workers=0, out=folder, progress=StopAfter(5))
    kept = stopped.value.results
    assert 5 <= len(kept) < len(whole)
    assert sorted(int(x["game"]) for x in result_lines(folder)) == [r.index for r in kept]  # type: ignore[call-overload]
    counted: list[int] = []
    resumed = play_arena(
        settings, workers=0, out=folder, progress=lambda done, total: counted.append(done)
    )
    assert counted[0] == len(kept), "the finished games are read back, not played again"
    assert resumed == whole
    assert len(result_lines(folder)) == len(whole)


def test_a_torn_last_line_is_dropped_and_its_game_played_again(tmp_path: Path) -> None:
    settings = arena_settings(["heuristic", "random"], deals=4)
    whole = play_arena(settings, workers=0, out=tmp_path)
    log = tmp_path / "games.jsonl"
    text = log.read_text()
    log.write_text(text[: len(text) - 25])  # the machine died while writing the last line
    with pytest.warns(ArenaWarning, match="line was cut short"):
        again = play_arena(settings, workers=0, out=tmp_path)
    assert again == whole
    assert log.read_text().endswith("\n")
    assert len(result_lines(tmp_path)) == len(whole)


def test_a_damaged_line_in_the_middle_is_refused(tmp_path: Path) -> None:
    settings = arena_settings(["heuristic", "random"], deals=4)
    play_arena(settings, workers=0, out=tmp_path)
    log = tmp_path / "games.jsonl"
    lines = log.read_text().splitlines()
    lines[2] = "{not json"
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(ArenaError, match="line 3"):
        play_arena(settings, workers=0, out=tmp_path)


def test_more_deals_extend_a_finished_arena(tmp_path: Path) -> None:
    few = arena_settings(["heuristic", "random"], game="spin", deals=3)
    more = arena_settings(["heuristic", "random"], game="spin", deals=5)
    play_arena(few, workers=0, out=tmp_path)
    counted: list[int] = []
    extended = play_arena(more, workers=0, out=tmp_path, progress=lambda d, t: counted.append(d))
    assert counted[0] == scheduled_games(few)
    assert extended == play_arena(more, workers=0)


def test_fewer_deals_keep_the_games_beyond_them_for_a_later_run(tmp_path: Path) -> None:
    """arena.json keeps the most deals scheduled in the folder, so a run with fewer deals does
    not make the games beyond them unreadable to the next run with more."""
    three = arena_settings(["heuristic", "random"], players=2, deals=3)
    two = arena_settings(["heuristic", "random"], players=2, deals=2)
    whole = play_arena(three, workers=0, out=tmp_path)
    assert play_arena(two, workers=0, out=tmp_path) == whole[:4]
    assert json.loads((tmp_path / "arena.json").read_text())["deals"] == 3
    counted: list[int] = []
    again = play_arena(three, workers=0, out=tmp_path, progress=lambda d, t: counted.append(d))
    assert again == whole and counted == [6], "nothing is played again"


def test_a_folder_holding_another_arena_is_refused(tmp_path: Path) -> None:
    play_arena(arena_settings(["heuristic", "random"], deals=2), workers=0, out=tmp_path)
    with pytest.raises(ArenaError, match=r"another arena.*entrants"):
        play_arena(arena_settings(["heuristic", "ismcts:5"], deals=2), workers=0, out=tmp_path)
    with pytest.raises(ArenaError, match="seed"):
        play_arena(
            arena_settings(["heuristic", "random"], seed=1, deals=2), workers=0, out=tmp_path
        )


# ---- arguments ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entrants", "error", "says"),
    [
        (["heuristic"], ArenaError, "2 to 64 entrants"),
        ([], ArenaError, "2 to 64 entrants"),
        (["heuristic", "nobody"], ArenaError, "unknown entrant 'nobody'"),
        (["heuristic", "ismcts:0"], ArenaError, "bad entrant 'ismcts:0'"),
        (["heuristic", "neural:no/such/file"], ArenaError, "cannot read policy file"),
        (["heuristic", "no_such_module_xyz:Bot"], BotImportError, "cannot import"),
        (["heuristic", "arena_bots:NoSuchBot"], BotImportError, "no attribute"),
        (["heuristic", "=random"], ArenaError, "label"),
        (["heuristic", 42], TypeError, "bot spec"),
        (42, TypeError, "entrants are"),
        ({"a": "heuristic", 3: "random"}, TypeError, "label"),
    ],
)
def test_bad_entrants_are_refused(entrants: object, error: type[Exception], says: str) -> None:
    with pytest.raises(error, match=says):
        arena_settings(entrants)


def test_labels_repeat_with_a_number_and_name_python_bots() -> None:
    s = arena_settings(["heuristic", "heuristic", "me=arena_bots:Heuristic", "arena_bots:Raises"])
    assert s.labels == ("heuristic", "heuristic#2", "me", "Raises")
    assert [e.builtin for e in s.entrants] == [True, True, False, False]
    s = arena_settings("random, ismcts:20")
    assert s.labels == ("random", "ismcts:20")
    s = arena_settings({"mine": "arena_bots:first_legal", "base": "heuristic"})
    assert s.labels == ("mine", "base")


@pytest.mark.parametrize(
    ("options", "error", "says"),
    [
        ({"deals": 0}, ArenaError, "deals"),
        ({"deals": 2.5}, TypeError, "deals"),
        ({"players": 6}, PandaCoreError, "players"),
        ({"game": "chess"}, PandaCoreError, "unknown game"),
        ({"permutations": "some"}, ArenaError, "rotations"),
        ({"move_time": 0}, ArenaError, "move_time"),
        ({"move_time": math.nan}, ArenaError, "move_time"),
        ({"move_time": True}, TypeError, "move_time"),
        ({"game_time": -1.0}, ArenaError, "game_time"),
        ({"seed": -1}, PandaCoreError, "seed"),
        ({"bust_threshold": 0}, PandaCoreError, "bust_threshold"),
        ({"game": "year", "bust_threshold": 15}, TypeError, "bust_threshold"),
    ],
)
def test_bad_settings_are_refused(
    options: dict[str, object], error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        arena_settings(["heuristic", "random"], **options)


def test_bad_worker_counts_are_refused() -> None:
    settings = arena_settings(["heuristic", "random"], deals=1)
    with pytest.raises(ArenaError, match="workers"):
        play_arena(settings, workers=-1)
    with pytest.raises(TypeError, match="workers"):
        play_arena(settings, workers="2")  # type: ignore[arg-type]


def test_a_bot_object_that_does_not_pickle_needs_workers_0() -> None:
    settings = arena_settings(
        {"lambda": lambda g, p: g.legal_actions()[0], "h": "heuristic"}, deals=1
    )
    with pytest.raises(ArenaError, match="workers=0"):
        play_arena(settings, workers=1)
    assert len(play_arena(settings, workers=0)) == 2


def test_errors_are_panda_core_errors() -> None:
    assert issubclass(ArenaError, ArgumentError)
    assert issubclass(BotImportError, ArgumentError)


def test_the_package_example_runs() -> None:
    import doctest

    import panda_core.arena

    outcome = doctest.testmod(panda_core.arena)
    assert outcome.attempted >= 3 and outcome.failed == 0
