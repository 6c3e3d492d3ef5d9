"""Containment in the arena: a Python bot given by import path plays, by default, in a process of
its own that holds only its seat's messages (the protocol's adapter), and every result says
whether each entrant was contained and whether any seat had full information."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from panda_core.arena import arena
from panda_core.arena.errors import ArenaError
from panda_core.arena.run import arena_settings
from panda_core.protocol import exec_bot

BOTS = '''
import gc, json, os, random, sys

LOG = os.environ["PANDA_TEST_SNOOP_LOG"]
GAME_TYPES = ("HeadGame", "ClimbGame", "HeadSeat", "ClimbSeat")


def _engine_objects(everything):
    """Every engine game or seat object this process can reach: through the frames above the
    bot's call (an arena bot once found the real game in sys._getframe(1).f_locals) and, with
    ``everything``, through the garbage collector's list of every tracked object."""
    found = []
    frame = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if type(value).__name__ in GAME_TYPES:
                found.append(value)
        frame = frame.f_back
    for value in gc.get_objects() if everything else ():
        if type(value).__name__ in GAME_TYPES:
            found.append(value)
        elif isinstance(value, dict):
            found += [v for v in list(value.values()) if type(v).__name__ in GAME_TYPES]
    return found


class Snoop:
    """Plays the lowest legal id, and looks for a game holding the other seats' cards (in every
    frame at each decision, among all objects at its first)."""

    def __init__(self):
        self.decisions = 0

    def __call__(self, seat, player):
        self.decisions += 1
        reached = _engine_objects(everything=self.decisions == 1)
        games = [o for o in reached if type(o).__name__ in ("HeadGame", "ClimbGame")]
        with open(LOG, "a") as out:
            out.write(json.dumps({"pid": os.getpid(), "games": len(games),
                                  "handed": type(seat).__name__}) + "\\n")
        return sorted(seat.legal_actions())[0]


class Seeded:
    """A bot whose moves depend on its reset seed, its asks and its own randomness: the same in
    any process."""

    def reset(self, seed):
        self.rng = random.Random(seed)

    def __call__(self, seat, player):
        legal = seat.legal_actions()
        pick = self.rng.random()
        if pick < 0.2:
            return seat.bot_move("heuristic", self.rng.randrange(2**32))
        if pick < 0.3:
            sample = seat.determinize(self.rng.randrange(2**32))
            if sample.current_player != player:
                return legal[0]
            return sorted(sample.legal_actions())[0]
        if pick < 0.4:
            obs = seat.observation()
            return legal[int(abs(float(obs.sum())) * 1000) % len(legal)]
        return self.rng.choice(legal)


M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
BOT_STREAM = 0xB0B5_B0B5_B0B5_B0B5


def _unshift(y, k):
    x = y
    for _ in range(64 // k + 1):
        x = y ^ (x >> k)
    return x & M64


def deal_from_seed(seed, seat):
    """Undo ``nth_output(deal ^ BOT_STREAM, seat)`` (SplitMix64 can be inverted): the deal's seed,
    if the bot's seed was made that way."""
    z = _unshift(seed, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & M64
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & M64
    z = _unshift(z, 30)
    return ((z - (seat + 1) * GAMMA) & M64) ^ BOT_STREAM


class SeedInverter:
    """Tries to work the deal out from its own seed, and so every hand (Panda Head)."""

    def reset(self, seed):
        self.seed = seed

    def __call__(self, seat, player):
        from panda_core import HeadGame

        deal = deal_from_seed(self.seed, player)
        guess = HeadGame(seat.players, deal, seat.rules)
        found = guess.view(player)["hand"] == seat.view()["hand"]
        with open(LOG, "a") as out:
            out.write(json.dumps({"pid": os.getpid(), "recovered": found}) + "\\n")
        return sorted(seat.legal_actions())[0]


def whole_game(seat, player):
    """Plays only when handed the whole game (the research opt-in)."""
    if type(seat).__name__ not in ("HeadGame", "ClimbGame"):
        raise RuntimeError(f"handed a {type(seat).__name__}, not the game")
    return seat.legal_actions()[0]
'''


@pytest.fixture
def bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """The name of a module of test bots (importable here and in the bots' own processes) and
    the log its snooping bot writes."""
    name = f"contained_bots_{tmp_path.name}".replace("-", "_")
    (tmp_path / f"{name}.py").write_text(BOTS)
    log = tmp_path / "snoop.jsonl"
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PANDA_TEST_SNOOP_LOG", str(log))
    yield name, log
    sys.modules.pop(name, None)
    exec_bot.close_pool()


def _snoops(log: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in log.read_text().splitlines()]


def test_a_python_bot_is_contained_by_default(bots: tuple[str, Path], tmp_path: Path) -> None:
    name, log = bots
    out = tmp_path / "results"
    report = arena([f"{name}:Snoop", "heuristic"], players=2, deals=2, workers=0, out=out)
    data = report.to_json()
    assert data["contained"] is True and data["full_information"] is False
    assert [s["contained"] for s in data["standings"]] == [True, True]
    assert [e["contained"] for e in data["settings"]["entrants"]] == [True, True]
    assert "contained: every entrant sees only its seat" in report.table()
    header = json.loads((out / "arena.json").read_text())
    assert [e["contained"] for e in header["arena"]["entrants"]] == [True, True]
    assert header["arena"]["full_information"] is False
    snoops = _snoops(log)
    assert snoops and all(s["pid"] != os.getpid() for s in snoops)
    # In its own process the bot finds no game at all: nothing there holds a hidden card.
    assert all(s["games"] == 0 for s in snoops), snoops
    assert all(s["handed"].startswith("Remote") for s in snoops)
    assert not report.forfeits


def test_in_process_the_same_snooping_bot_finds_the_real_game(bots: tuple[str, Path]) -> None:
    """The control: the snoop works (in the arena's process it reaches the real game), so its
    finding nothing when contained means something."""
    name, log = bots
    report = arena([f"{name}:Snoop", "heuristic"], players=2, deals=1, workers=0, contained=False)
    data = report.to_json()
    assert data["contained"] is False
    assert [s["contained"] for s in data["standings"]] == [False, True]
    assert "NOT contained (in-process, can reach the real game): Snoop" in report.table()
    snoops = _snoops(log)
    assert snoops and all(s["pid"] == os.getpid() for s in snoops)
    assert all(s["games"] >= 1 for s in snoops)
    assert all(s["handed"] == "HeadSeat" for s in snoops)


@pytest.mark.parametrize(("game", "players"), [("head", 3), ("year", 3), ("spin", 2)])
def test_contained_and_in_process_results_are_identical(
    bots: tuple[str, Path], game: str, players: int
) -> None:
    """A bot that uses its seed, its randomness and every ask plays the same games contained as
    in-process: the same results, field for field."""
    name, _ = bots
    entrants = [f"{name}:Seeded", "heuristic", "random"][:players]
    runs = [
        arena(entrants, game=game, players=players, deals=2, workers=0, seed=3, contained=c)
        for c in (True, False)
    ]
    contained, in_process = ([r.to_json() for r in run.results] for run in runs)
    assert contained == in_process
    assert not runs[0].forfeits


def test_a_bot_object_cannot_be_contained_and_says_so() -> None:
    def lowest(seat: Any, player: int) -> int:
        return int(sorted(seat.legal_actions())[0])

    report = arena({"mine": lowest, "h": "heuristic"}, players=2, deals=1, workers=0)
    data = report.to_json()
    assert data["contained"] is False
    assert [s["contained"] for s in data["standings"]] == [False, True]


def test_full_information_is_explicit_and_recorded(bots: tuple[str, Path]) -> None:
    name, _ = bots
    with pytest.raises(ArenaError, match="full_information hands the whole game"):
        arena_settings([f"{name}:whole_game", "heuristic"], full_information=True)
    report = arena(
        [f"{name}:whole_game", "heuristic"],
        players=2,
        deals=1,
        workers=0,
        contained=False,
        full_information=True,
    )
    data = report.to_json()
    assert data["full_information"] is True and data["settings"]["full_information"] is True
    assert "FULL INFORMATION" in report.table()
    assert not report.forfeits  # the bot was handed the game, as it asked
    seat_only = arena(
        [f"{name}:whole_game", "heuristic"], players=2, deals=1, workers=0, contained=False
    )
    assert len(seat_only.forfeits) == 2  # without the opt-in: a seat, never the game


def _cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(cwd), *sys.path])
    return subprocess.run(
        [sys.executable, "-m", "panda_core.cli", "arena", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_the_command_line_contains_and_in_process_opts_out(
    bots: tuple[str, Path], tmp_path: Path
) -> None:
    name, _ = bots
    common = ["-e", f"{name}:Snoop,heuristic", "--players", "2", "--deals", "1", "-q"]
    contained = _cli(tmp_path, *common, "--workers", "0", "--json", "--out", "c")
    assert contained.returncode == 0, contained.stderr
    assert json.loads(contained.stdout)["contained"] is True
    loose = _cli(tmp_path, *common, "--workers", "0", "--in-process", "--out", "l")
    assert loose.returncode == 0, loose.stderr
    assert "NOT contained" in loose.stdout
    # A folder holds one arena: the same entrants in-process are another arena.
    mixed = _cli(tmp_path, *common, "--workers", "0", "--in-process", "--out", "c")
    assert mixed.returncode == 2 and "differs in entrants" in mixed.stderr
    refused = _cli(tmp_path, *common, "--full-information", "--out", "f")
    assert refused.returncode == 2 and "full_information" in refused.stderr


@pytest.mark.slow
def test_contained_bots_in_worker_processes(bots: tuple[str, Path], tmp_path: Path) -> None:
    """Two worker processes, each with its own bot process, reused game after game."""
    name, log = bots
    report = arena([f"{name}:Snoop", "heuristic"], players=2, deals=20, workers=2)
    assert not report.forfeits and report.to_json()["contained"] is True
    snoops = _snoops(log)
    assert all(s["games"] == 0 for s in snoops)
    assert len({s["pid"] for s in snoops}) <= 2  # one bot process per worker, not per game


def test_a_bot_cannot_work_the_deal_out_from_its_seed(bots: tuple[str, Path]) -> None:
    """A bot's seed is one-way (``bot_seed``): inverting it as a SplitMix64 output, the way that
    finds the deal from ``nth_output(deal ^ stream, seat)``, gives nothing, contained or not."""
    import importlib

    from panda_core._core import nth_output

    name, log = bots
    module = importlib.import_module(name)
    deal, seat = 123456789, 2
    assert module.deal_from_seed(nth_output(deal ^ module.BOT_STREAM, seat), seat) == deal
    for contained in (True, False):
        arena([f"{name}:SeedInverter", "heuristic"], players=2, deals=2, workers=0,
              contained=contained)  # fmt: skip
    found = _snoops(log)
    assert found and not any(s["recovered"] for s in found)


def test_an_exec_bot_object_is_contained_and_plays_every_seat_it_is_given(tmp_path: Path) -> None:
    """An ``ExecBot`` handed over from Python is contained (its process holds its seat only);
    with fewer entrants than seats it sits at two seats of a game, a process each."""
    import pickle

    from panda_core.protocol.exec_bot import ExecBot

    script = tmp_path / "lowest.py"
    script.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'protocol': 1}), flush=True)\n"
        "    elif m['type'] == 'decision':\n"
        "        ids = sorted(x['id'] for x in m['legal'])\n"
        "        print(json.dumps({'type': 'move', 'game_id': m['game_id'], 'id': ids[0]}),\n"
        "              flush=True)\n"
    )
    bot = ExecBot([sys.executable, str(script)])
    assert pickle.loads(pickle.dumps(bot)).command == bot.command
    report = arena({"lowest": bot, "h": "heuristic"}, players=4, deals=1, workers=0)
    assert report.to_json()["contained"] is True
    assert not report.forfeits and len(report.results) == 2
    assert all(r.lineup.count(0) == 2 for r in report.results)
