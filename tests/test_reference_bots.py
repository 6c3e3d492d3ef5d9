"""The reference protocol bots (examples/protocol_bot.py, standard library only, and
examples/protocol_bot.js, Node.js with no packages) play complete games of all three games,
give the same moves for the same messages, and move as their in-process twin
(``protocol_bot.SameBot``, the same policy over the seat) does on the real game."""

from __future__ import annotations

import ast
import importlib.util
import json
import shlex
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from panda_core._registry import GAMES, spec
from panda_core.protocol import messages
from test_protocol_adapter import Conversation, play

ROOT = Path(__file__).resolve().parents[1]
PY_BOT = ROOT / "examples" / "protocol_bot.py"
JS_BOT = ROOT / "examples" / "protocol_bot.js"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


def reference_module() -> ModuleType:
    """examples/protocol_bot.py imported as a module (for its policy and its twin)."""
    loaded = importlib.util.spec_from_file_location("protocol_bot", PY_BOT)
    assert loaded is not None and loaded.loader is not None
    module = importlib.util.module_from_spec(loaded)
    loaded.loader.exec_module(module)
    return module


def commands() -> list[list[str]]:
    out = [[sys.executable, str(PY_BOT)]]
    if NODE is not None:
        out.append([NODE, str(JS_BOT)])
    return out


def in_process(game_name: str, players: int, seed: int, seat: int) -> list[Any]:
    """The twin's moves at ``seat`` of the game :func:`play` plays (the others random)."""
    twin = reference_module().SameBot()
    twin.reset(messages.bot_seed(seed, seat))
    game = spec(game_name).new_game(players, seed)
    moves = []
    decision = 0
    while (to_move := game.current_player) is not None:
        if to_move == seat:
            move = twin(game.seat(seat), seat)
            moves.append(move)
            game.apply(move)
        else:
            game.apply(game.bot_move("random", seed + decision).notation)
        decision += 1
    return moves


def test_the_python_bot_imports_only_the_standard_library() -> None:
    tree = ast.parse(PY_BOT.read_text(encoding="utf-8"))
    names = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    names |= {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
    }
    assert names <= set(sys.stdlib_module_names), names - set(sys.stdlib_module_names)


@needs_node
def test_the_javascript_bot_uses_no_package() -> None:
    text = JS_BOT.read_text(encoding="utf-8")
    assert text.count("require(") == 1 and 'require("node:readline")' in text
    assert "import " not in text


def test_the_policies_agree_on_the_generator() -> None:
    """The JavaScript SplitMix64 and choice equal the Python ones (64-bit BigInts)."""
    if NODE is None:
        pytest.skip("Node.js is not installed")
    import subprocess

    bot = reference_module()
    seeds = [0, 1, 2**53 + 1, 2**63, 2**64 - 1]
    script = (
        f"const b = require({json.dumps(str(JS_BOT))});"
        "const out = [];"
        f"for (const s of [{','.join(f'{s}n' for s in seeds)}]) {{"
        "  let state = s; const row = [];"
        "  for (let i = 0; i < 20; i++) {"
        "    const [id, next] = b.choose([9, 3, 3, 40, 7, 12, 1], state);"
        "    row.push(id); state = next; }"
        "  out.push(row); }"
        "process.stdout.write(JSON.stringify(out));"
    )
    got = json.loads(subprocess.run([NODE, "-e", script], capture_output=True, check=True).stdout)
    expected = []
    for seed in seeds:
        state, row = seed, []
        for _ in range(20):
            action, state = bot.choose([9, 3, 3, 40, 7, 12, 1], state)
            row.append(action)
        expected.append(row)
    assert got == expected


@pytest.mark.parametrize("command", commands(), ids=lambda c: Path(c[-1]).name)
@pytest.mark.slow
def test_a_reference_bot_plays_complete_games_as_its_twin(command: list[str]) -> None:
    conversation = Conversation(command)
    try:
        hello = conversation.hello()
        assert hello["name"] == Path(command[-1]).name
        conversation.send({"type": "ping"})
        assert conversation.read() == {"type": "pong"}
        for index, game_name in enumerate(GAMES):
            for players, seat in ((3, 1), (5, 4)):
                seed = 100 + index * 10 + players
                game, moves, resigned = play(
                    conversation,
                    game_name,
                    players=players,
                    seed=seed,
                    seat=seat,
                    game_id=f"{game_name}-{players}",
                )
                assert resigned is None and game.is_over
                assert moves == in_process(game_name, players, seed, seat)
        conversation.send({"type": "bye"})
        assert conversation.close() == 0
    finally:
        conversation.kill()


@pytest.mark.parametrize("command", commands(), ids=lambda c: Path(c[-1]).name)
def test_a_reference_bot_refuses_another_protocol(command: list[str]) -> None:
    conversation = Conversation(command)
    try:
        conversation.send({"type": "hello", "protocol": 2, "engine": "future"})
        assert conversation.read() is None
        assert conversation.close() == 2
    finally:
        conversation.kill()


# ---- full arenas ----------------------------------------------------------------------------


def arena_lines(game_name: str, bot: str, monkeypatch: Any, tmp_path: Path, **options: Any) -> Any:
    """The games of an arena of ``bot`` against the heuristic and random on 3 deals (every
    rotation, 3 players), each line without its folder's checksum; and the arena's entrants."""
    from panda_core.arena.run import arena

    monkeypatch.syspath_prepend(str(ROOT / "examples"))  # protocol_bot:SameBot, for the twin
    out = tmp_path / f"{game_name}-{len(list(tmp_path.iterdir()))}"
    report = arena(
        {"bot": bot, "heuristic": "heuristic", "random": "random"},
        game=game_name,
        players=3,
        deals=3,
        seed=21,
        workers=options.pop("workers", 0),
        out=out,
        move_time=20,
        **options,
    )
    assert not report.forfeits, report.forfeits
    lines = []
    for line in (out / "games.jsonl").read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        del data["check"]
        lines.append(json.dumps(data, sort_keys=True))
    entrants = json.loads((out / "arena.json").read_text(encoding="utf-8"))["arena"]["entrants"]
    return lines, entrants


def exec_spec(command: list[str]) -> str:
    return "exec:" + shlex.join(command)


@pytest.mark.slow
@pytest.mark.parametrize("game_name", GAMES)
def test_arenas_give_the_same_games_in_process_and_over_the_protocol(
    game_name: str, monkeypatch: Any, tmp_path: Path
) -> None:
    """The same bot four ways — its in-process twin, the twin contained by the adapter, the
    Python reference bot and the JavaScript one over ``exec:`` — plays the same arena: the same
    game lines, byte for byte."""
    twin, twin_entrants = arena_lines(
        game_name, "protocol_bot:SameBot", monkeypatch, tmp_path, contained=False
    )
    assert twin_entrants[0]["contained"] is False
    assert len(twin) == 9
    contained, contained_entrants = arena_lines(
        game_name, "protocol_bot:SameBot", monkeypatch, tmp_path
    )
    assert contained_entrants[0]["contained"] is True
    assert contained == twin
    for command in commands():
        lines, entrants = arena_lines(game_name, exec_spec(command), monkeypatch, tmp_path)
        assert entrants[0]["spec"] == exec_spec(command)
        assert lines == twin, command


@pytest.mark.slow
def test_a_reference_bot_keeps_its_games_with_worker_processes(
    monkeypatch: Any, tmp_path: Path
) -> None:
    """Worker processes (each starts the bot once and plays many games with it) change
    nothing."""
    one, _ = arena_lines("spin", exec_spec(commands()[-1]), monkeypatch, tmp_path)
    two, _ = arena_lines("spin", exec_spec(commands()[-1]), monkeypatch, tmp_path, workers=2)
    assert sorted(one) == sorted(two)  # workers finish games in their own order
