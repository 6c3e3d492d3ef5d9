"""Issue 8, item 12 (and the CLI side of items 6/7): the ``panda-core`` console script.

Every test runs the installed console script in a child process, as a user would: options that
do not apply are errors (exit 2, a message, no traceback), ``--version`` and the defaults in
``--help`` exist, the tqdm progress bar is drawn only on a terminal, and ``--deck``,
``--first-player``, ``--first-dealer`` and ``--save-records`` do what they say.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import panda_core
from panda_core import ClimbGame, HeadGame

DECK = Path(panda_core.__file__).parent / "data" / "decks" / "reconstructed.toml"


def script() -> list[str]:
    """The console script installed with the package (next to this interpreter)."""
    found = shutil.which("panda-core", path=str(Path(sys.executable).parent))
    assert found is not None, "the panda-core console script is not installed"
    return [found]


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*script(), *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def usage_error(*args: str) -> str:
    """Run, expect exit status 2 with a one-line-ish message and no traceback; the stderr."""
    done = run(*args)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    return done.stderr


def summary(*args: str) -> dict[str, object]:
    done = run("simulate", "-q", "--json", *args)
    assert done.returncode == 0, done.stderr
    doc: dict[str, object] = json.loads(done.stdout)
    return doc


def test_version() -> None:
    done = run("--version")
    assert done.returncode == 0
    assert done.stdout.strip() == f"panda-core {panda_core.__version__}"


def test_help_shows_defaults() -> None:
    done = run("simulate", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for shown in ["(default: 10000)", "(default: head)", "(default: random)", "(default: 21)"]:
        assert shown in text, shown
    for option in ["--deck", "--first-player", "--first-dealer", "--save-records", "--version"]:
        assert option in text or option == "--version"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--game", "year", "--bust-threshold", "30"], "--bust-threshold"),
        (["--game", "spin", "--no-poor-panda"], "--no-poor-panda"),
        (["--game", "year", "--first-dealer", "1"], "--first-dealer"),
        (["--game", "year", "--last-pile-scoring", "own_card"], "--last-pile-scoring"),
        (["--panda-mood", "flip"], "--panda-mood"),
        (["--game", "spin", "--panda-mood", "flip"], "--panda-mood"),
        (["--deck", str(DECK)], "--deck"),
        (["--first-player", "1"], "--first-player"),
    ],
)
def test_options_of_another_game_are_errors(args: list[str], named: str) -> None:
    err = usage_error("simulate", "-n", "5", *args)
    assert named in err and "applies to" in err


def test_more_bots_than_players_is_an_error() -> None:
    err = usage_error("simulate", "-n", "5", "--players", "2", "--bots", "random,heuristic,random")
    assert "3 bots" in err and "2 players" in err


@pytest.mark.parametrize(
    "args",
    [
        ["--games", str(10**30)],
        ["--games", "-1"],
        ["--games", "lots"],
        ["--bust-threshold", str(2**70)],
        ["--seed", str(2**64)],
        ["--threads", "300"],
        ["--threads", "0"],
        ["--players", str(10**20)],
        ["--bots", "ismcts:0"],
        ["--bots", "genius"],
    ],
)
def test_out_of_range_values_are_usage_errors(args: list[str]) -> None:
    games = [] if "--games" in args else ["-n", "5"]
    assert "error" in usage_error("simulate", *games, *args)


def test_bot_errors_name_what_is_allowed() -> None:
    assert "1 to 1000000" in usage_error("simulate", "-n", "5", "--bots", "ismcts:0")


@pytest.mark.slow
def test_no_progress_bar_in_a_pipe() -> None:
    done = run("simulate", "-n", "300000")
    assert done.returncode == 0
    assert done.stderr == ""


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
@pytest.mark.slow
def test_progress_bar_on_a_terminal() -> None:
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [*script(), "simulate", "-n", "300000", "--threads", "1"],
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            timeout=120,
            check=False,
        )
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    text = drawn.decode(errors="replace")
    # tqdm's bar: a percentage, the games counter and a rate or ETA.
    assert "100%" in text and "games" in text, text[-500:]
    assert "win rate" in done.stdout


def test_deck_path_is_the_same_deck() -> None:
    default = summary("--game", "year", "-n", "200", "--seed", "4")
    from_file = summary("--game", "year", "-n", "200", "--seed", "4", "--deck", str(DECK))
    assert default["win_rate_by_seat"] == from_file["win_rate_by_seat"]


def test_a_missing_deck_is_a_clean_error() -> None:
    err = usage_error("simulate", "--game", "spin", "-n", "5", "--deck", "/no/such/deck.toml")
    assert "deck" in err


@pytest.mark.slow
def test_first_player_and_first_dealer_are_used() -> None:
    base = summary("--game", "spin", "-n", "400", "--seed", "2")
    moved = summary("--game", "spin", "-n", "400", "--seed", "2", "--first-player", "2")
    assert base["win_rate_by_seat"] != moved["win_rate_by_seat"]
    base = summary("-n", "400", "--seed", "2")
    moved = summary("-n", "400", "--seed", "2", "--first-dealer", "3")
    assert base["win_rate_by_seat"] != moved["win_rate_by_seat"]
    assert "first_dealer" in usage_error(
        "simulate", "-n", "5", "--players", "3", "--first-dealer", "4"
    )


@pytest.mark.parametrize("game", ["head", "year", "spin"])
def test_save_records_writes_the_games_played(game: str, tmp_path: Path) -> None:
    folder = tmp_path / "records"
    doc = summary(
        "--game", game, "-n", "25", "--players", "3", "--bots", "heuristic,random",
        "--seed", "9", "--save-records", str(folder),
    )  # fmt: skip
    files = sorted(folder.iterdir())
    assert [f.name for f in files] == [f"{game}-{k:02d}.json" for k in range(25)]
    load = HeadGame.from_json if game == "head" else ClimbGame.from_json
    wins = [0, 0, 0]
    for f in files:
        played = load(f.read_text())
        assert played.is_over and played.winner is not None
        wins[played.winner] += 1
    rates = doc["win_rate_by_seat"]
    assert isinstance(rates, list)
    assert [round(r * 25) for r in rates] == wins


@pytest.mark.slow
def test_readme_quick_start_runs() -> None:
    done = run("simulate", "--games", "100000", "--players", "4", "--bots", "heuristic,random")
    assert done.returncode == 0, done.stderr
    assert "win rate" in done.stdout and "heuristic" in done.stdout


@pytest.mark.parametrize(
    ("spec", "seats"),
    [
        ("heuristic,random", ["heuristic", "random", "heuristic", "random"]),
        ("random,neural:./p,q.safetensors", ["random", "neural:./p,q.safetensors"] * 2),
        ("random,ismcts+neural:9:./p,q", ["random", "ismcts+neural:9:./p,q"] * 2),
        ("ismcts+neural:9,random", ["ismcts+neural:9", "random"] * 2),
    ],
)
def test_bots_lists_keep_a_path_whole(spec: str, seats: list[str]) -> None:
    """``--bots``: a policy path (``neural:PATH``, ``ismcts+neural:N:PATH``) is the rest of the
    list, commas included; the guided search without a path is one name among others."""
    from panda_core._cli_common import seat_bots

    assert seat_bots(spec, 4) == seats
