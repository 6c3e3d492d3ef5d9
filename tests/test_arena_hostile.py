"""The arena against a hostile results folder, hostile bots and a hostile shell (issue 19).

* The results folder is checked on read (panda_core.arena.store, panda_core.arena.checks): a
  matrix of corruptions, each refused with an ArenaError naming the file and the line, leaving
  the folder as it was (or, for a torn last line, repaired and said so).
* Bots that print do not corrupt ``--json``; bots whose answers, constructors or resets
  misbehave are bounded by the move time and forfeit; a worker's answer is checked before it
  counts.
* The command line: a reader that goes away (``| head``), policy paths with ``=`` and ``,``,
  Ctrl-C within a second, and ``--deals 1000000000`` starting at once in bounded memory.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from arena_support import StopAfter
from panda_core import NeuralPolicy
from panda_core._registry import spec
from panda_core.arena.checks import BadResult, checked_result
from panda_core.arena.entrants import split_entrants
from panda_core.arena.errors import ArenaError, ArenaWarning
from panda_core.arena.model import ArenaSettings, MatchResult
from panda_core.arena.run import _checked, arena_settings, play_arena, scheduled_games
from panda_core.arena.runner import ChunkTask, dead_worker_result, play_chunk
from panda_core.arena.schedule import match_at, matches
from panda_core.arena.store import MAX_LINE_BYTES
from panda_core.parallel import TaskFailure

TESTS = Path(__file__).resolve().parent


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "panda_core.cli", "arena", *args]


# ---- the results folder: a corruption matrix -------------------------------------------------

# Two small arenas, played once per module: finished games (built-in bots, Panda Head, 2 seats,
# 3 deals: 6 games) and forfeited ones (a bot that raises in every game).
FINISHED = {"entrants": ["heuristic", "random"], "players": 2, "deals": 3}
FORFEITED = {"entrants": ["bad=arena_bots:Raises", "heuristic"], "players": 2, "deals": 2}


def _settings(kind: dict[str, object], **changes: object) -> ArenaSettings:
    options = {**kind, **changes}
    entrants = options.pop("entrants")
    return arena_settings(entrants, **options)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("arenas")
    made = {
        "finished": (_settings(FINISHED), root / "finished"),
        "forfeited": (_settings(FORFEITED), root / "forfeited"),
        "same-elsewhere": (_settings(FINISHED), root / "same-elsewhere"),
        "other-seed": (_settings(FINISHED, seed=5), root / "other-seed"),
        "other-entrants": (
            _settings(FINISHED, entrants=["heuristic", "ismcts:5"]),
            root / "other-entrants",
        ),
    }
    for settings, folder in made.values():
        play_arena(settings, workers=0, out=folder)
    return {name: folder for name, (_, folder) in made.items()}


def _copy(folders: dict[str, Path], name: str, to: Path) -> Path:
    shutil.copytree(folders[name], to / name)
    return to / name


def _write_lines(folder: Path, lines: list[str]) -> None:
    (folder / "games.jsonl").write_text("".join(x + "\n" for x in lines))


def _edit_line(number: int, edit: Callable[[dict[str, object]], object]) -> Callable[[Path], None]:
    """A corruption: line ``number`` (1-based) of games.jsonl parsed, edited, written back."""

    def corrupt(folder: Path) -> None:
        raw = (folder / "games.jsonl").read_text().splitlines()
        data = json.loads(raw[number - 1])
        edited = edit(data)
        raw[number - 1] = json.dumps(data if edited is None else edited)
        _write_lines(folder, raw)

    return corrupt


def _raw_line(number: int, text: str) -> Callable[[Path], None]:
    def corrupt(folder: Path) -> None:
        raw = (folder / "games.jsonl").read_text().splitlines()
        raw[number - 1] = text
        _write_lines(folder, raw)

    return corrupt


def _set(key: str, value: object) -> Callable[[dict[str, object]], None]:
    def edit(data: dict[str, object]) -> None:
        data[key] = value

    return edit


def _header(edit: Callable[[dict[str, object]], None]) -> Callable[[Path], None]:
    def corrupt(folder: Path) -> None:
        header = json.loads((folder / "arena.json").read_text())
        edit(header)
        (folder / "arena.json").write_text(json.dumps(header))

    return corrupt


def _other_winner(data: dict[str, object]) -> None:
    data["winner"] = 1 - int(data["winner"])  # type: ignore[call-overload]


def _winner_left(data: dict[str, object]) -> None:
    left = list(data["left"])  # type: ignore[call-overload]
    left[int(data["winner"])] = 1  # type: ignore[call-overload]
    data["left"] = left


def _more_score(data: dict[str, object]) -> None:
    scores = list(data["scores"])  # type: ignore[call-overload]
    scores[0] += 1
    data["scores"] = scores


def _swap_lineup(data: dict[str, object]) -> None:
    data["lineup"] = list(reversed(data["lineup"]))  # type: ignore[call-overload]


def _edit_forfeit(key: str, value: object) -> Callable[[dict[str, object]], None]:
    def edit(data: dict[str, object]) -> None:
        data["forfeit"][key] = value  # type: ignore[index]

    return edit


def _duplicate_line(folder: Path) -> None:
    raw = (folder / "games.jsonl").read_text().splitlines()
    raw[2] = raw[1]
    _write_lines(folder, raw)


def _append(text: str) -> Callable[[Path], None]:
    def corrupt(folder: Path) -> None:
        with (folder / "games.jsonl").open("a") as f:
            f.write(text)

    return corrupt


def _binary(folder: Path) -> None:
    (folder / "games.jsonl").write_bytes(bytes(range(128, 256)) * 8 + b"\n")


def _sparse_giant(folder: Path) -> None:
    with (folder / "games.jsonl").open("r+b") as f:
        f.truncate(6 * MAX_LINE_BYTES + 10)  # holes: no disk used, nothing written


def _fifo(name: str) -> Callable[[Path], None]:
    def corrupt(folder: Path) -> None:
        (folder / name).unlink()
        os.mkfifo(folder / name)

    return corrupt


def _dev_zero(folder: Path) -> None:
    (folder / "games.jsonl").unlink()
    (folder / "games.jsonl").symlink_to("/dev/zero")


def _line_from(name: str, number: int) -> Callable[[Path], None]:
    """Line ``number`` replaced by the same line of another folder (``folders[name]``)."""

    def corrupt(folder: Path) -> None:
        other = (folder.parent.parent / "source" / name / "games.jsonl").read_text().splitlines()
        raw = (folder / "games.jsonl").read_text().splitlines()
        raw[number - 1] = other[number - 1]
        _write_lines(folder, raw)

    return corrupt


def _header_from(name: str) -> Callable[[Path], None]:
    def corrupt(folder: Path) -> None:
        source = folder.parent.parent / "source" / name / "arena.json"
        shutil.copy(source, folder / "arena.json")

    return corrupt


def _arena_edit(what: str) -> Callable[[dict[str, object]], None]:
    def edit(header: dict[str, object]) -> None:
        arena = header["arena"]
        assert isinstance(arena, dict)
        if what == "seed":
            arena["seed"] = 9
        else:
            arena["entrants"].reverse()

    return edit


def _deep(folder: Path) -> None:
    _raw_line(2, "[" * 200_000 + "]" * 200_000)(folder)


# (case, folder, corruption, where the message points, what it says). The arena read back is
# the one that wrote the folder unless the case names another ("as": the settings it runs).
CASES: list[tuple[str, str, Callable[[Path], None], str, str]] = [
    ("arena.json deleted", "finished", lambda f: (f / "arena.json").unlink(), "", "no arena.json"),
    ("arena.json edited (seed)", "finished", _header(_arena_edit("seed")), "", "another arena"),
    ("arena.json edited (labels)", "finished", _header(_arena_edit("entrants")), "", "in entrants"),
    (
        "arena.json of an older format",
        "finished",
        _header(lambda h: h.update(version=1)),
        "arena.json",
        "results format 1",
    ),
    (
        "arena.json with fewer deals",
        "finished",
        _header(lambda h: h.update(deals=1)),
        "line 3",
        "one line more",
    ),
    (
        "arena.json with another folder key",
        "finished",
        _header(lambda h: h.update(folder="0" * 32)),
        "line 1",
        "checksum",
    ),
    (
        "arena.json with an extra key",
        "finished",
        _header(lambda h: h.update(x=1)),
        "arena.json",
        "damaged",
    ),
    (
        "arena.json not JSON",
        "finished",
        lambda f: (f / "arena.json").write_bytes(b"\x00\xff{"),
        "arena.json",
        "not an arena's header",
    ),
    ("arena.json a FIFO", "finished", _fifo("arena.json"), "arena.json", "not a regular file"),
    ("games.jsonl a FIFO", "finished", _fifo("games.jsonl"), "games.jsonl", "not a regular file"),
    ("games.jsonl is /dev/zero", "finished", _dev_zero, "games.jsonl", "not a regular file"),
    (
        "score edited",
        "finished",
        _edit_line(2, _more_score),
        "line 2",
        "does not match its checksum",
    ),
    (
        # Panda Head: the other seat was Pooped, so it cannot be the winner.
        "winner edited",
        "finished",
        _edit_line(2, _other_winner),
        "line 2",
        "left the game",
    ),
    ("ranks edited", "finished", _edit_line(3, _set("ranks", [1, 1])), "line 3", "do not follow"),
    ("the winner left", "finished", _edit_line(3, _winner_left), "line 3", "left the game"),
    (
        "left after the last round",
        "finished",
        _edit_line(3, _set("left", [10**6, 10**6])),
        "line 3",
        "left[0] must be in",
    ),
    ("left of one seat", "finished", _edit_line(3, _set("left", [0])), "line 3", "one entry per"),
    ("left: text", "finished", _edit_line(3, _set("left", "0,1")), "line 3", "left is a list"),
    ("no left", "finished", _edit_line(4, lambda d: d.pop("left") and None), "line 4", "no left"),
    (
        "winner: 99",
        "finished",
        _edit_line(2, _set("winner", 99)),
        "line 2",
        "winner must be in 0..1",
    ),
    (
        "winner: true",
        "finished",
        _edit_line(2, _set("winner", True)),
        "line 2",
        "winner is an integer",
    ),
    (
        "line-up of the wrong length",
        "finished",
        _edit_line(1, _set("lineup", [0, 1, 0])),
        "line 1",
        "one entry per seat",
    ),
    (
        "line-up not the schedule's",
        "finished",
        _edit_line(1, _swap_lineup),
        "line 1",
        "in the schedule",
    ),
    (
        "entrant index out of range",
        "finished",
        _edit_line(1, _set("lineup", [0, 7])),
        "line 1",
        "lineup[1] must be in 0..1",
    ),
    ('"game": -1', "finished", _edit_line(4, _set("game", -1)), "line 4", "game must be in 0.."),
    (
        "game beyond the schedule",
        "finished",
        _edit_line(4, _set("game", 10**6)),
        "line 4",
        "beyond the arena's schedule",
    ),
    ("deal edited", "finished", _edit_line(4, _set("deal", 0)), "line 4", "in the schedule"),
    (
        "score a float",
        "finished",
        _edit_line(2, _set("scores", [1.5, 3])),
        "line 2",
        "scores[0] is an integer",
    ),
    (
        "a key missing",
        "finished",
        _edit_line(5, lambda d: d.pop("rounds") and None),
        "line 5",
        "no rounds",
    ),
    ("an unknown key", "finished", _edit_line(5, _set("bonus", 1)), "line 5", "unknown bonus"),
    ("a key twice", "finished", _raw_line(2, '{"game": 1, "game": 1}'), "line 2", "given twice"),
    (
        "checksum removed",
        "finished",
        _edit_line(3, lambda d: d.pop("check") and None),
        "line 3",
        "has no checksum",
    ),
    (
        "checksum not text",
        "finished",
        _edit_line(3, _set("check", "é" * 64)),
        "line 3",
        "does not match",
    ),
    ("duplicate game", "finished", _duplicate_line, "line 3", "again"),
    ("[]", "finished", _raw_line(2, "[]"), "line 2", "JSON array, not an object"),
    ("null", "finished", _raw_line(2, "null"), "line 2", "JSON null"),
    ("not JSON", "finished", _raw_line(2, "{not json"), "line 2", "not JSON"),
    ("an empty line", "finished", _raw_line(2, ""), "line 2", "not JSON"),
    (
        "a number of 5000 digits",
        "finished",
        _raw_line(2, '{"game": ' + "1" * 5000 + "}"),
        "line 2",
        "not JSON",
    ),
    ("nested 200000 deep", "finished", _deep, "line 2", "nested too deeply"),
    ("a huge line", "finished", _raw_line(2, "x" * (MAX_LINE_BYTES + 10)), "line 2", "longer than"),
    ("more lines than the schedule", "finished", _append("{}\n"), "line 7", "one line more"),
    ("larger than the schedule", "finished", _sparse_giant, "games.jsonl", "larger than"),
    ("binary file", "finished", _binary, "line 1", "not UTF-8"),
    (
        "no end, and not a torn line",
        "finished",
        _append("garbage"),
        "line 7",
        "does not start as one",
    ),
    (
        "a line from another folder",
        "finished",
        _line_from("same-elsewhere", 2),
        "line 2",
        "another folder",
    ),
    (
        "a line from another arena",
        "finished",
        _line_from("other-seed", 2),
        "line 2",
        "in the schedule",
    ),
    (
        "another arena's arena.json",
        "finished",
        _header_from("other-entrants"),
        "line 1",
        "checksum",
    ),
    (
        "forfeit by another entrant",
        "forfeited",
        _edit_line(1, _edit_forfeit("entrant", 1)),
        "line 1",
        "forfeit.entrant",
    ),
    (
        "forfeit of another kind",
        "forfeited",
        _edit_line(1, _edit_forfeit("kind", "cheated")),
        "line 1",
        "forfeit.kind",
    ),
    (
        "forfeit removed",
        "forfeited",
        _edit_line(2, _set("forfeit", None)),
        "line 2",
        "has a winner",
    ),
    (
        "forfeit given a winner",
        "forfeited",
        _edit_line(2, _set("winner", 0)),
        "line 2",
        "no winner",
    ),
]


RUNS_AS = {"another arena's arena.json": {"entrants": ["heuristic", "ismcts:5"]}}
"""The cases that run another arena than the folder's (the settings changed)."""


@pytest.mark.parametrize(
    ("case", "folder", "corrupt", "where", "says"), CASES, ids=[case[0] for case in CASES]
)
@pytest.mark.slow
def test_a_corrupted_results_folder_is_refused_and_left_as_it_was(
    folders: dict[str, Path],
    tmp_path: Path,
    case: str,
    folder: str,
    corrupt: Callable[[Path], None],
    where: str,
    says: str,
) -> None:
    shutil.copytree(folders[folder].parent, tmp_path / "source")
    target = _copy(folders, folder, tmp_path / "run")
    corrupt(target)
    before = {p.name: _snapshot(p) for p in target.iterdir()}
    runs = _settings(FORFEITED if folder == "forfeited" else FINISHED, **RUNS_AS.get(case, {}))
    with pytest.raises(ArenaError) as refused:
        play_arena(runs, workers=0, out=target)
    message = str(refused.value)
    assert says in message
    assert where in message
    assert str(target) in message, "the message names the folder or file"
    assert "\n" not in message
    if "line" in where:
        assert "--out" in message and "delete" in message, "the way out is offered"
    after = {p.name: _snapshot(p) for p in target.iterdir()}
    assert after == before, "a refused folder is left as it was"


def _snapshot(path: Path) -> object:
    if path.is_symlink() or not path.is_file():
        return ("special", path.is_symlink())
    if path.is_dir():
        return sorted(p.name for p in path.iterdir())
    return path.read_bytes()


def test_the_matrix_covers_twenty_kinds_of_damage() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize("torn", ["half a line", "the start of a line", "zeros"])
def test_a_torn_last_line_is_dropped_said_and_played_again(
    folders: dict[str, Path], tmp_path: Path, torn: str
) -> None:
    target = _copy(folders, "finished", tmp_path)
    log = target / "games.jsonl"
    whole = log.read_bytes()
    lines = whole.splitlines(keepends=True)
    tail = {"half a line": lines[-1][:-30], "the start of a line": b'{"ga', "zeros": b"\0" * 512}
    log.write_bytes(b"".join(lines[:-1]) + tail[torn])
    with pytest.warns(ArenaWarning, match=r"games.jsonl: the last line was cut short"):
        again = play_arena(_settings(FINISHED), workers=0, out=target)
    assert again == play_arena(_settings(FINISHED), workers=0)
    assert log.read_bytes() == whole, "the game is played again and written as it was"


def test_a_refused_folder_is_one_line_from_the_command(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    target = _copy(folders, "finished", tmp_path)
    _edit_line(2, _other_winner)(target)
    done = subprocess.run(
        _cli("-e", "heuristic,random", "--players", "2", "--deals", "3", "--out", str(target)),
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("panda-core: error: ") and done.stderr.count("\n") == 1
    assert "games.jsonl, line 2," in done.stderr and "Traceback" not in done.stderr


def test_a_folder_of_games_without_arena_json_is_never_relabelled(
    folders: dict[str, Path], tmp_path: Path
) -> None:
    """The issue's case: arena.json deleted, another arena run into the folder. The games of
    'heuristic vs random' are not reported as those of 'random vs heuristic'."""
    target = _copy(folders, "finished", tmp_path)
    (target / "arena.json").unlink()
    swapped = _settings(FINISHED, entrants=["random", "heuristic"])
    with pytest.raises(ArenaError, match=r"no arena\.json"):
        play_arena(swapped, workers=0, out=target)
    assert not (target / "arena.json").exists()


# ---- the schedule, unbounded ----------------------------------------------------------------


def test_the_schedule_is_computed_per_game_not_held() -> None:
    settings = _settings(FINISHED, deals=10**9, permutations="all")
    first = next(matches(settings))
    assert first == match_at(settings, 0)
    late = match_at(settings, 2 * 10**9 - 1)
    assert (late.index, late.deal) == (2 * 10**9 - 1, 10**9 - 1)
    assert scheduled_games(settings) == 2 * 10**9
    some = [m for _, m in zip(range(50), matches(settings), strict=False)]
    assert some == [match_at(settings, i) for i in range(50)]


@pytest.mark.slow
def test_a_billion_deals_start_at_once(tmp_path: Path) -> None:
    """In this process: the first games come back at once (the old schedule was a list of every
    game: minutes of work and hundreds of GB before the first)."""
    from panda_core.arena.run import _Interrupted

    for entrants in (["heuristic", "random"], ["arena_bots:first_legal", "heuristic"]):
        settings = _settings(FINISHED, entrants=entrants, deals=10**9)
        with pytest.raises(_Interrupted) as stopped:
            play_arena(settings, workers=0, progress=StopAfter(1))
        assert 1 <= len(stopped.value.results) <= 2048


@pytest.mark.slow
def test_a_billion_deals_from_the_command_in_bounded_memory(tmp_path: Path) -> None:
    """The command with --deals 1000000000: games are on disk within a generous bound, its peak
    memory (VmHWM) stays far from what a schedule held as a list would take, and Ctrl-C stops
    it with the report of the games played."""
    out = tmp_path / "big"
    proc = subprocess.Popen(
        _cli(*["-e", "heuristic,random", "--players", "2", "--deals", "1000000000"], "-q", "--json",
             "--out", str(out)),
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        _wait_for_lines(out / "games.jsonl", 1, proc, limit=60)
        peak_kb = _peak_kb(proc.pid)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    report = json.loads(stdout)
    assert report["scheduled"] == 2 * 10**9 and report["played"] >= 1
    print(f"peak RSS with --deals 1000000000: {peak_kb / 1024:.0f} MB")
    assert peak_kb < 400 * 1024, f"peak RSS {peak_kb} kB"


def _peak_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def _wait_for_lines(log: Path, n: int, proc: subprocess.Popen[str], limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if log.exists() and len(log.read_bytes().splitlines()) >= n:
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"no {n} games in {log} after {limit} s")


# ---- bots that print ------------------------------------------------------------------------


@pytest.mark.parametrize("workers", ["0", "1"])
@pytest.mark.slow
def test_a_printing_bot_does_not_corrupt_json(tmp_path: Path, workers: str) -> None:
    args = ["-e", "arena_bots:Prints,heuristic", "--players", "2", "--deals", "1", "--json"]
    done = subprocess.run(
        _cli(*args, "-q", "--workers", workers, "--out", str(tmp_path / "out")),
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # stdout is the report alone
    assert report["played"] == 2 and not report["forfeits"]
    assert "PRINTED-BY-BOT" in done.stderr and "WRITTEN-TO-FD-1" in done.stderr


def test_a_printing_bot_in_worker_processes_leaves_the_callers_stdout_alone(
    capfd: pytest.CaptureFixture[str],
) -> None:
    settings = _settings(FINISHED, entrants=["arena_bots:Prints", "heuristic"], deals=1)
    assert len(play_arena(settings, workers=1)) == 2
    captured = capfd.readouterr()
    assert "PRINTED-BY-BOT" not in captured.out and "WRITTEN-TO-FD-1" not in captured.out
    assert "PRINTED-BY-BOT" in captured.err and "WRITTEN-TO-FD-1" in captured.err


def test_a_printing_bot_in_this_process_prints_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    settings = _settings(FINISHED, entrants=["arena_bots:Prints", "heuristic"], deals=1)
    assert len(play_arena(settings, workers=0)) == 2
    captured = capsys.readouterr()
    assert "PRINTED-BY-BOT" not in captured.out and "PRINTED-BY-BOT" in captured.err


# ---- bots whose every call is bounded -------------------------------------------------------

_BOUNDED = """
import json, sys
from panda_core.arena.run import arena_settings, play_arena
out = {}
for bot in sys.argv[1:]:
    settings = arena_settings([f"bad=arena_bots:{bot}", "heuristic"], players=2, deals=1,
                              move_time=0.3, contained=False)
    results = play_arena(settings, workers=0)
    out[bot] = [(r.forfeit.kind, r.forfeit.entrant, r.forfeit.message) if r.forfeit else None
                for r in results]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_every_call_into_a_bot_in_this_process_is_bounded_and_forfeits() -> None:
    """In this process (workers=0): an answer whose __index__ raises, exits or sleeps, a reset or
    a constructor that sleeps, an exception that cannot be printed: each forfeits its games
    (before, the first stopped the arena with a traceback or hung it). In a subprocess with a
    timeout, so a regression fails instead of hanging the suite."""
    bots = [
        "IndexRaises",
        "IndexExits",
        "IndexSleeps",
        "SleepsInReset",
        "SleepsInConstructor",
        "RaisesUnprintable",
    ]
    done = subprocess.run(
        [sys.executable, "-c", _BOUNDED, *bots],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    expected = {
        "IndexRaises": ("illegal", "RuntimeError: no index today"),
        "IndexExits": ("illegal", "SystemExit"),
        "IndexSleeps": ("timeout", "move time"),
        "SleepsInReset": ("timeout", "reset"),
        "SleepsInConstructor": ("timeout", "creating the bot"),
        "RaisesUnprintable": ("exception", "_Unprintable"),
    }
    for bot, (kind, says) in expected.items():
        assert len(found[bot]) == 2
        for forfeit in found[bot]:
            assert forfeit is not None, bot
            assert forfeit[0] == kind and forfeit[1] == 0 and says in forfeit[2], (bot, forfeit)


@pytest.mark.slow
def test_a_bot_that_swallows_the_move_timer_is_stopped_by_the_game_time() -> None:
    """A bot that catches the move timer's interruption and sleeps on, in a worker: the game
    time stops it (its worker is killed) and it forfeits; the arena goes on."""
    settings = arena_settings(
        ["bad=arena_bots:Unstoppable", "heuristic"],
        players=2,
        deals=1,
        move_time=0.2,
        game_time=1.0,
    )
    results = play_arena(settings, workers=1)
    assert [(r.forfeit.kind, r.forfeit.entrant) for r in results if r.forfeit] == [
        ("timeout", 0),
        ("timeout", 0),
    ]


def test_a_workers_answer_counts_only_once_checked() -> None:
    """What a task sends back comes from a process where bots ran: a result that is not its
    game's (another game, a winner out of range, the wrong type) fails the task, which is then
    played again game by game, instead of being stored."""
    settings = _settings(FINISHED)
    chunk = tuple(matches(settings))[:2]
    real = play_arena(settings, workers=0)[:2]
    assert _checked(settings, chunk, real) == real
    forged = [
        real[::-1],
        [real[0], MatchResult(**{**real[1].__dict__, "winner": 99})],
        [real[0], MatchResult(**{**real[1].__dict__, "ranks": (0, 0)})],
        [real[0], "a result"],
        "not a list",
        real[:1],
    ]
    for answer in forged:
        outcome = _checked(settings, chunk, answer)
        assert isinstance(outcome, TaskFailure) and outcome.kind == "error", answer
    with pytest.raises(BadResult, match=r"winner must be in 0\.\.1"):
        checked_result(settings, chunk[1], MatchResult(**{**real[1].__dict__, "winner": 99}))


@pytest.mark.parametrize(
    "note",
    [b"{not json", b'{"seat": 99, "record": "{}"}', b'{"seat": 0, "record": "nope"}', b"\xff" * 9],
)
def test_a_damaged_journal_note_is_no_note(tmp_path: Path, note: bytes) -> None:
    """The notes of a replayed game are written in the worker, where the bots run: a note that
    is not one the arena wrote is ignored (the one Python entrant forfeits, with the deal as the
    record), never a traceback in the parent."""
    settings = _settings(FINISHED, entrants=["arena_bots:Exits", "heuristic"])
    match = match_at(settings, 0)
    (tmp_path / f"game-{match.index}.json").write_bytes(note)
    result = dead_worker_result(settings, match, "dead_worker", "died", str(tmp_path))
    assert result.forfeit is not None
    assert result.forfeit.entrant == 0 and result.decisions == 0


# ---- the command line: pipes, paths, Ctrl-C -------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path, as_json: bool) -> None:
    """``panda-core arena ... | head``: the reader has gone before the report is printed. The
    command exits with the broken pipe's status (141), no traceback; the folder has the report."""
    args = ["-e", "heuristic,random", "--players", "2", "--deals", "2", "-q"]
    proc = subprocess.Popen(
        _cli(*args, *(["--json"] if as_json else []), "--out", str(tmp_path / "out")),
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone: every write to stdout is EPIPE
    try:
        stderr = proc.stderr.read().decode()
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 141, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr, stderr
    assert (tmp_path / "out" / "results.json").exists()


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("a=heuristic,b=random", [("a", "heuristic"), ("b", "random")]),
        ("heuristic, random", [(None, "heuristic"), (None, "random")]),
        ("mine=neural:./a,b=c.safetensors", [("mine", "neural:./a,b=c.safetensors")]),
        ("heuristic,neural:./x=y,z", [(None, "heuristic"), (None, "neural:./x=y,z")]),
        ("neural:p=1", [(None, "neural:p=1")]),
        ("neural,heuristic", [(None, "neural"), (None, "heuristic")]),
        ("h=heuristic,n=neural:a,b", [("h", "heuristic"), ("n", "neural:a,b")]),
        # the guided search's policy path is the rest too; without a path it is one name
        ("g=ismcts+neural:50:./a,b", [("g", "ismcts+neural:50:./a,b")]),
        ("ismcts+neural:50,heuristic", [(None, "ismcts+neural:50"), (None, "heuristic")]),
        ("ismcts+neural,random", [(None, "ismcts+neural"), (None, "random")]),
    ],
)
def test_the_entrants_text_rule(text: str, pairs: list[tuple[str | None, str]]) -> None:
    assert split_entrants(text) == pairs


def test_a_policy_path_with_equals_and_commas_can_be_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from panda_core.cli import main

    policy = NeuralPolicy.shipped("head")
    folder = tmp_path / "runs,v=2"
    folder.mkdir()
    path = folder / "p=1,2.safetensors"
    path.write_bytes(policy.to_bytes())
    argv = ["arena", "-e", f"mine=neural:{path}", "-e", f"heuristic,neural:{path}"]
    argv += ["--players", "2", "--deals", "1", "--json", "-q", "--out", str(tmp_path / "a")]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["entrant"] for s in report["standings"]] == ["mine", "heuristic", f"neural:{path}"]
    policies = [e.get("policy") for e in report["settings"]["entrants"]]
    assert policies == [policy.sha256, None, policy.sha256]


@pytest.mark.slow
def test_ctrl_c_stops_the_arena_within_a_second(tmp_path: Path) -> None:
    """SIGINT while Python bots play in two workers: the command is gone, with its report and
    status 130, within a second (measured 0.1-0.15 s on 2 cores; it was 1.1 s, most of it loading
    matplotlib to draw the plot of an interrupted run)."""
    out = tmp_path / "cut"
    args = ["-e", "arena_bots:Slow,heuristic,arena_bots:first_legal", "--deals", "400"]
    proc = subprocess.Popen(
        _cli(*args, "--workers", "2", "--json", "-q", "--out", str(out)),
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_lines(out / "games.jsonl", 10, proc, limit=120)
        start = time.monotonic()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert json.loads(stdout)["played"] >= 10
    print(f"Ctrl-C to exit: {took:.3f} s")
    assert took <= 1.0, f"Ctrl-C took {took:.2f} s"
    assert not (out / "ratings.png").exists(), "an interrupted run leaves no stale plot"


@pytest.mark.slow
def test_a_forfeit_record_too_long_to_store_is_replaced_by_the_deal() -> None:
    """A forfeit's record grows with the game (a Panda Head game with bust_threshold=10**6 has
    one of 5 MB): one longer than a stored line may hold is replaced by the deal's start, said in
    the message, so every forfeit can be written and read back; the check refuses a longer one
    (from a worker or a file) rather than storing a line no later run could read."""
    from panda_core.arena.checks import MAX_RECORD_CHARS
    from panda_core.arena.model import Forfeit
    from panda_core.arena.runner import _kept

    settings = _settings(FORFEITED)
    match = match_at(settings, 0)
    huge = Forfeit(0, match.lineup[0], "exception", "boom", '"' * (MAX_RECORD_CHARS // 2 + 1))
    kept = _kept(settings, match, huge)
    assert kept.message.startswith("boom") and "too long to keep" in kept.message
    start = spec(settings.game).new_game(settings.players, match.seed, settings.rules)
    assert kept.record == start.to_json()
    result = play_arena(settings, workers=0)[0]
    forged = MatchResult(**{**result.__dict__, "forfeit": huge})
    with pytest.raises(BadResult, match="longer than"):
        checked_result(settings, match, forged)


# ---- telemetry in a results line ------------------------------------------------------------


@pytest.mark.parametrize(
    ("telemetry", "why"),
    [
        ([1, 2], "not an object of seats"),
        ({"7": {}}, "maps seats"),
        ({"0": 5}, "maps seats"),
        ({"x": {"a": 1}}, "maps seats"),
        ({"0": {"notes": "x" * (2 * 64 * 1024 + 10)}}, "at most"),
    ],
)
def test_a_results_lines_telemetry_is_checked(telemetry: object, why: str) -> None:
    """An LLM entrant's telemetry rides in its game's line: a stored line whose telemetry is
    not seats mapped to bounded objects is refused like any damaged line."""
    from panda_core.arena.checks import BadResult, result_from_json

    settings = _settings(FINISHED)
    line = play_chunk(ChunkTask(settings, (match_at(settings, 0),)))[0].to_json()
    assert "telemetry" not in line  # no LLM entrant: no telemetry key at all
    assert result_from_json({**line, "telemetry": {"1": {"requests": 3}}}, settings, 3).telemetry
    with pytest.raises(BadResult, match=why):
        result_from_json({**line, "telemetry": telemetry}, settings, 3)
