"""Hostile paths and settings (issue 19, items 10 and 12): a file a user names is checked to be a
regular file of bounded size before it is read, and a settings object never holds what a game
refuses.

Every path below once hung (a FIFO waits for a writer forever) or read until memory ran out
(`/dev/zero`); each case runs under a timeout, so a regression fails instead of hanging the run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import panda_core
from panda_core import (
    ClimbGame,
    ClimbSettings,
    HeadGame,
    HeadRules,
    InvalidStateError,
    PolicyError,
    RulesError,
    make,
)

# A hostile file takes at most this long to refuse; a hang is a failure, not a stuck run.
REFUSE_WITHIN_S = 20


def refused(call: Callable[[], object]) -> BaseException:
    """The error ``call`` raises, in a daemon thread given :data:`REFUSE_WITHIN_S`: a call that
    blocks (on a FIFO) fails the test instead of hanging the run."""
    box: dict[str, BaseException] = {}

    def run() -> None:
        try:
            call()
        except BaseException as err:
            box["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(REFUSE_WITHIN_S)
    assert not worker.is_alive(), f"still reading after {REFUSE_WITHIN_S} s"
    assert "error" in box, "the hostile path was accepted"
    return box["error"]


def script() -> list[str]:
    found = shutil.which("panda-core", path=str(Path(sys.executable).parent))
    assert found is not None, "the panda-core console script is not installed"
    return [found]


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "deck.toml"  # a name that looks like a deck
    os.mkfifo(path)
    yield path


@pytest.fixture
def huge_deck(tmp_path: Path) -> Path:
    """A TOML file of 2 MB: comment lines, which a parser would happily read to the end."""
    path = tmp_path / "huge.toml"
    path.write_text(("# " + "x" * 98 + "\n") * 20_000)
    return path


def hostile_paths(fifo: Path, huge: Path, tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Each hostile path and a word its refusal names."""
    return {
        "fifo": (fifo, "FIFO"),
        "dev_zero": (Path("/dev/zero"), "character device"),
        "directory": (tmp_path, "directory"),
        "huge": (huge, "at most"),
    }


KINDS = ["fifo", "dev_zero", "directory", "huge"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_deck_that_is_no_regular_file_is_refused_before_it_is_read(
    kind: str, fifo: Path, huge_deck: Path, tmp_path: Path
) -> None:
    path, word = hostile_paths(fifo, huge_deck, tmp_path)[kind]
    for call in (lambda: ClimbSettings(deck=path), lambda: make("year", deck=str(path))):
        err = refused(call)
        assert isinstance(err, InvalidStateError) and word in str(err), err
        assert str(path) in str(err)  # the message names the file


@pytest.mark.parametrize("kind", KINDS)
def test_a_snapshot_deck_that_is_no_regular_file_is_refused(
    kind: str, fifo: Path, huge_deck: Path, tmp_path: Path
) -> None:
    path, word = hostile_paths(fifo, huge_deck, tmp_path)[kind]
    snapshot = make("spin").snapshot()
    err = refused(lambda: ClimbGame.from_snapshot(snapshot, deck=path))
    assert isinstance(err, InvalidStateError) and word in str(err), err


@pytest.mark.parametrize("kind", KINDS)
def test_a_policy_file_that_is_no_regular_file_is_refused(
    kind: str, fifo: Path, huge_deck: Path, tmp_path: Path
) -> None:
    path, _ = hostile_paths(fifo, huge_deck, tmp_path)[kind]
    assert isinstance(refused(lambda: panda_core.NeuralPolicy.load(path)), PolicyError)
    err = refused(lambda: make("head").bot_move(f"neural:{path}", 1))
    assert isinstance(err, RulesError) and "policy file" in str(err), err


@pytest.mark.parametrize(
    "command",
    [
        ["simulate", "--game", "year", "-n", "5", "--deck", "{path}"],
        ["play", "--game", "spin", "--players", "2", "--rule", "deck={path}"],
    ],
    ids=["simulate", "play"],
)
@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_the_command_line_refuses_a_hostile_deck_at_once(
    command: list[str], kind: str, fifo: Path, huge_deck: Path, tmp_path: Path
) -> None:
    path, word = hostile_paths(fifo, huge_deck, tmp_path)[kind]
    done = subprocess.run(
        [*script(), *(a.format(path=path) for a in command)],
        capture_output=True,
        text=True,
        timeout=REFUSE_WITHIN_S,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2, (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert word in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("threshold", [1_000_001, 10**9, 2**31, 2**32 - 1])
def test_head_rules_refuse_a_bust_threshold_that_a_game_would_refuse(threshold: int) -> None:
    """Item 12: HeadRules accepted thresholds up to 2**32 that make() then refused, with other
    words; now both refuse with one message."""
    with pytest.raises(RulesError) as from_rules:
        HeadRules(bust_threshold=threshold)
    with pytest.raises(RulesError) as from_make:
        make("head", bust_threshold=threshold)
    assert str(from_rules.value) == str(from_make.value)
    assert "up to 1000000" in str(from_rules.value)


def test_the_largest_bust_threshold_plays() -> None:
    rules = HeadRules(bust_threshold=1_000_000)
    game = make("head", rules=rules)
    game.apply(game.bot_move("random", 1))
    assert game.rules.bust_threshold == 1_000_000


@pytest.mark.parametrize("name", ["ismcts:+5", "ismcts:05", "ismcts:5 ", "ismcts:٥", "ismcts:-0"])
def test_an_ismcts_count_has_one_spelling(name: str) -> None:
    """Item 12: `ismcts:+5` was accepted as `ismcts:5`, so one bot had two names (two
    entrants in a results folder)."""
    with pytest.raises(RulesError, match="without a sign or a leading zero"):
        make("head").bot_move(name, 1)
    assert not panda_core.bots.is_builtin_bot(name)


def test_the_canonical_ismcts_count_plays() -> None:
    game = make("head")
    assert game.bot_move("ismcts:5", 1) in game.legal_moves()


def _record(name: str) -> dict[str, object]:
    game = make(name)
    for _ in range(3):
        game.apply(game.bot_move("random", 2))
    parsed: dict[str, object] = json.loads(game.to_json())
    return parsed


def test_a_head_record_relabelled_as_climbing_says_what_is_wrong() -> None:
    """Item 12: the message was "format 'panda-core/climb' (with its preset) is none of
    ['panda-core/climb', 'panda-core/head'] (year/spin)"."""
    from panda_core._registry import spec_of_record

    record = _record("head")
    record["format"] = _record("spin")["format"]
    with pytest.raises(InvalidStateError) as err:
        spec_of_record(record)
    text = str(err.value)
    assert "settings.preset" in text and "'spin'" in text and "'year'" in text, text
    assert "is none of" not in text


def test_an_unknown_record_format_names_the_formats() -> None:
    from panda_core._registry import spec_of_record

    record = _record("year")
    record["format"] = "chess/pgn"
    with pytest.raises(InvalidStateError, match="'chess/pgn'") as err:
        spec_of_record(record)
    assert "panda-core/head" in str(err.value)


def test_a_relabelled_record_is_refused_by_the_engine_too() -> None:
    record = _record("head")
    record["format"] = _record("year")["format"]
    with pytest.raises(InvalidStateError):
        ClimbGame.from_json(json.dumps(record))
    with pytest.raises(InvalidStateError):
        HeadGame.from_json(json.dumps(_record("spin")))
