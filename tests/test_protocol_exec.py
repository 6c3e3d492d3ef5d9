"""The engine's side of the bot protocol over a subprocess (``exec:COMMAND``,
``panda_core.protocol.exec_bot``): hostile bots forfeit the game they spoil, with its reason, and
the next game is played by a fresh process; nothing they send crashes or hangs the engine.

The bots are tiny standard-library scripts written to the test's folder. Each misbehaves once, in
the first process started (a marker file says it already did), so the arena's second game shows
that a fresh process plays on.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from panda_core._core import ArgumentError
from panda_core.arena import arena
from panda_core.bot_import import bot_spec_kind, make_bot
from panda_core.bots import play_game
from panda_core.protocol import exec_bot
from panda_core.protocol.exec_bot import ExecBot, ExecBotError, parse_command

# A protocol bot: the lowest legal id. ``misbehave(kind, message)`` runs in the first process
# only, at its first decision (``kind == "decision"``) or at its hello (``"hello"``).
BOT = """
import json, os, sys, time

MARKER = {marker!r}
first = not os.path.exists(MARKER)
if first:
    open(MARKER, "w").close()

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

def misbehave(kind, message):
{misbehave}

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if first and kind in ("hello", "decision"):
        if misbehave(kind, message) == "done":
            continue
    if kind == "hello":
        send({{"type": "hello", "protocol": 1, "name": "lowest"}})
    elif kind == "decision":
        ids = sorted(m["id"] for m in message["legal"])
        send({{"type": "move", "game_id": message["game_id"], "id": ids[0]}})
    elif kind == "bye":
        break
"""


def write_bot(tmp_path: Path, misbehave: str = "return None", name: str = "bot") -> str:
    """The ``exec:`` spec of a bot that runs ``misbehave`` (the body of a function of
    ``kind, message``) in its first process."""
    path = tmp_path / f"{name}.py"
    body = textwrap.indent(textwrap.dedent(misbehave).strip(), "    ")
    path.write_text(BOT.format(marker=str(tmp_path / f"{name}.misbehaved"), misbehave=body))
    return f"exec:{sys.executable} {path}"


def two_games(spec: str, **options: Any) -> list[dict[str, Any]]:
    """The results of an arena of two games (one deal, two seatings) of the bot against
    ``random``, in this process."""
    options.setdefault("move_time", 2.0)
    report = arena([f"bot={spec}", "random"], game="head", players=2, deals=1, workers=0, **options)
    return [r.to_json() for r in report.results]


def forfeit_of(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The first game's forfeit, and the second game finished normally by a fresh process."""
    first, second = results
    assert first["forfeit"] is not None, first
    assert first["forfeit"]["entrant"] == 0
    assert second["forfeit"] is None and second["winner"] is not None, second
    return first["forfeit"]  # type: ignore[no-any-return]


# ---- hostile bots, each in a decision of the arena's first game ---------------------------------


@pytest.mark.parametrize(
    ("misbehave", "kind", "says"),
    [
        pytest.param("if kind == 'decision':\n    os._exit(3)", "exception",
                     "the bot's process ended (exit status 3)", id="exits"),
        pytest.param("if kind == 'decision':\n    time.sleep(60)", "timeout",
                     "took longer than the move time (0.5 s)", id="hangs"),
        pytest.param("if kind == 'decision':\n    sys.stdout.write('junk {{{\\n')\n"
                     "    sys.stdout.flush()\n    return 'done'", "exception",
                     "the protocol refuses: not JSON", id="junk"),
        pytest.param("if kind == 'decision':\n    sys.stdout.write('x' * 10_000_000)\n"
                     "    sys.stdout.flush()\n    time.sleep(60)", "exception",
                     "a line of more than 65536 bytes", id="ten_megabytes_without_newline"),
        pytest.param("if kind == 'decision':\n    for _ in range(100_000):\n"
                     "        send({'type': 'pong'})\n    return 'done'", "exception",
                     "sent a 'pong' message in a decision", id="floods_lines"),
        pytest.param("if kind == 'decision':\n    send({'type': 'move', 'game_id': 'g-999', "
                     "'id': 0})\n    return 'done'", "exception", "for the game 'g-999'",
                     id="wrong_game_id"),
        pytest.param("if kind == 'decision':\n    for _ in range(1000):\n"
                     "        send({'type': 'ask', 'game_id': message['game_id'], "
                     "'ask': 'observation'})\n        sys.stdin.readline()\n    return 'done'",
                     "exception", "asked more than 64 times in one decision", id="asks_1000"),
        pytest.param("if kind == 'decision':\n    time.sleep(0.8)", "timeout",
                     "took longer than the move time", id="sleeps_past_deadline"),
        pytest.param("if kind == 'decision':\n    os.close(1)\n    time.sleep(60)", "exception",
                     "closed its output", id="closes_stdout"),
        pytest.param("if kind == 'decision':\n    send({'type': 'move', 'game_id': "
                     "message['game_id'], 'id': 10**6})\n    return 'done'", "illegal",
                     "", id="illegal_move"),
        pytest.param("if kind == 'decision':\n    send({'type': 'move', 'game_id': "
                     "message['game_id'], 'notation': 'not a move'})\n    return 'done'",
                     "illegal", "", id="illegal_notation"),
        pytest.param("if kind == 'decision':\n    send({'type': 'ask', 'game_id': "
                     "message['game_id'], 'ask': 'bot_move', 'bot': 'neural:/etc/passwd', "
                     "'seed': 1})\n    return 'done'", "exception",
                     "a bot_move ask names a built-in bot", id="asks_for_a_file"),
        pytest.param("if kind == 'decision':\n    send({'type': 'hello', 'protocol': 1})\n"
                     "    return 'done'", "exception", "sent a 'hello' message in a decision",
                     id="hello_again"),
    ],
)  # fmt: skip
def test_a_hostile_bot_forfeits_that_game_and_the_next_is_played(
    tmp_path: Path, misbehave: str, kind: str, says: str
) -> None:
    started = time.monotonic()
    forfeit = forfeit_of(two_games(write_bot(tmp_path, misbehave), move_time=0.5))
    assert forfeit["kind"] == kind, forfeit
    assert says in forfeit["message"], forfeit
    assert time.monotonic() - started < 20  # every wait is bounded


def test_a_bot_that_sends_a_line_nobody_asked_for_forfeits(tmp_path: Path) -> None:
    """Two moves for one decision (in one write): the second is found before the next decision
    is sent. (A line that comes later than the check cannot be told from an answer: it answers
    a decision it was not sent, and is refused as such, an illegal move most likely.)"""
    misbehave = """
    if kind == 'decision':
        ids = sorted(m['id'] for m in message['legal'])
        move = json.dumps({'type': 'move', 'game_id': message['game_id'], 'id': ids[0]})
        sys.stdout.write(move + "\\n" + move + "\\n")
        sys.stdout.flush()
        return 'done'
    """
    forfeit = forfeit_of(two_games(write_bot(tmp_path, misbehave)))
    assert forfeit["kind"] == "exception"
    assert "sent a line before it was asked anything" in forfeit["message"]


@pytest.mark.parametrize(
    ("misbehave", "says"),
    [
        ("if kind == 'hello':\n    os._exit(0)", "the bot's process ended (exit status 0)"),
        ("if kind == 'hello':\n    send({'type': 'hello', 'protocol': 2, 'name': 'x'})\n"
         "    return 'done'", "speaks protocol 2; this engine speaks 1"),
        ("if kind == 'hello':\n    send({'type': 'move', 'game_id': 'g', 'id': 1})\n"
         "    return 'done'", "answered the engine's hello with a 'move' message"),
        ("if kind == 'hello':\n    sys.stderr.write('cannot load my weights\\n')\n"
         "    sys.exit(2)", "its last words on stderr: cannot load my weights"),
    ],
)  # fmt: skip
def test_a_bot_without_a_good_hello_forfeits_at_the_start(
    tmp_path: Path, misbehave: str, says: str
) -> None:
    forfeit = forfeit_of(two_games(write_bot(tmp_path, misbehave)))
    assert forfeit["kind"] == "exception"
    assert forfeit["message"].startswith("cannot start the bot: ")
    assert says in forfeit["message"], forfeit


def test_a_bot_silent_at_hello_is_refused_after_the_start_time(tmp_path: Path) -> None:
    bot = ExecBot(
        write_bot(tmp_path, "if kind == 'hello':\n    time.sleep(60)").removeprefix("exec:"),
        start_time=0.5,
        pooled=False,
    )
    started = time.monotonic()
    with pytest.raises(ExecBotError, match=r"did not say hello within 0\.5 s"):
        bot.start()
    assert time.monotonic() - started < 5
    assert bot.pid is None


def test_a_bot_that_ignores_sigterm_and_bye_is_killed_on_close(tmp_path: Path) -> None:
    script = tmp_path / "stubborn.py"
    script.write_text(
        "import json, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "sys.stdin.readline()\n"
        "print(json.dumps({'type': 'hello', 'protocol': 1}), flush=True)\n"
        "while True:\n    time.sleep(1)\n"
    )
    bot = ExecBot([sys.executable, str(script)], pooled=False)
    bot.start()
    pid = bot.pid
    assert pid is not None and _alive(pid)
    started = time.monotonic()
    bot.close()
    assert time.monotonic() - started < 3
    assert not _alive(pid)


def test_a_missing_program_is_refused_where_the_entrant_is_given(tmp_path: Path) -> None:
    with pytest.raises(ArgumentError, match="cannot find the program 'no-such-bot-xyz'"):
        bot_spec_kind("exec:no-such-bot-xyz --fast")
    with pytest.raises(ArgumentError, match="No closing quotation"):
        bot_spec_kind('exec:python3 "my bot.py')
    with pytest.raises(ArgumentError, match="needs a command"):
        bot_spec_kind("exec:   ")


def test_quoting_follows_the_shell() -> None:
    assert parse_command('node "my bot.js" --depth=2,3') == ("node", "my bot.js", "--depth=2,3")
    assert parse_command(["a b", "c"]) == ("a b", "c")


# ---- what the bot is sent -----------------------------------------------------------------------

RECORDER = """
import json, sys
log = open({log!r}, "a")
for line in sys.stdin:
    log.write(line)
    log.flush()
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print(json.dumps({{"type": "hello", "protocol": 1, "name": "recorder"}}), flush=True)
    elif kind == "decision":
        gid = message["game_id"]
        for ask in ({{"ask": "observation"}}, {{"ask": "determinize", "seed": 7}},
                    {{"ask": "bot_move", "bot": "heuristic", "seed": 3}}):
            print(json.dumps({{"type": "ask", "game_id": gid, **ask}}), flush=True)
            log.write(sys.stdin.readline())
            log.flush()
        ids = sorted(m["id"] for m in message["legal"])
        print(json.dumps({{"type": "move", "game_id": gid, "id": ids[0]}}), flush=True)
"""


def lowest(game: Any, player: int) -> int:
    return int(sorted(game.legal_actions())[0])


@pytest.mark.parametrize(("game", "players"), [("head", 3), ("year", 4), ("spin", 3)])
def test_a_bot_is_sent_only_its_seat_and_plays_as_in_process(
    tmp_path: Path, game: str, players: int
) -> None:
    """A game of every kind: the same moves as the in-process twin; every message holds this
    seat's information only (its view, its events, answers from its seat), the events of a
    game are sent once each, and the game has a start and an end."""
    log = tmp_path / "log.jsonl"
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER.format(log=str(log)))
    bot = ExecBot([sys.executable, str(script)])
    try:
        seats: list[Any] = [bot, "heuristic", "random", "random"][:players]
        played = play_game(game, seats, seed=11)
        bot.game_over(played.state)
    finally:
        bot.close()
        exec_bot.close_pool()
    twin_seats: list[Any] = [lowest, "heuristic", "random", "random"][:players]
    twin = play_game(game, twin_seats, seed=11)
    assert played.state.to_json() == twin.state.to_json()
    messages = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = [m["type"] for m in messages]
    assert kinds[:2] == ["hello", "start"] and kinds[-2:] == ["end", "bye"]
    start = messages[1]
    assert start["seat"] == 0 and start["game"] == game and start["players"] == players
    assert "deal_seed" not in start and start["seed"] != 11
    final = played.state
    sent_events: list[Any] = []
    for m in messages:
        if m["type"] in ("decision", "end"):
            sent_events += m["events"]
        if m["type"] == "decision":
            assert m["seat"] == 0 and m["to_move"] == 0
            seen = final.events(0)[: len(sent_events)]
            assert sent_events == seen  # exactly the seat's own events, each once, in order
            assert m["legal"] and all(set(x) == {"id", "notation"} for x in m["legal"])
        if m["type"] == "answer":
            assert m["ask"] in ("observation", "determinize", "bot_move")
    assert sent_events == played.state.events(0)
    _no_hidden_hand_in(messages, played.state, game)


def _no_hidden_hand_in(messages: list[dict[str, Any]], state: Any, game: str) -> None:
    """No decision's view names another seat's hand (Panda Head shows hands as lists of card
    ids: the other seats' are ``null`` or sizes only)."""
    for m in messages:
        if m["type"] != "decision":
            continue
        view = m["view"]
        assert view.get("player", 0) == 0
        if game == "head":
            assert "hands" not in view


def test_the_process_is_reused_game_after_game(tmp_path: Path) -> None:
    spec = write_bot(tmp_path)
    forfeit_of_none = two_games(spec)
    assert all(r["forfeit"] is None for r in forfeit_of_none)
    bot = make_bot(spec)
    assert isinstance(bot, ExecBot)
    bot.start()
    first = bot.pid
    bot.close()  # back to the pool
    again = make_bot(spec)
    assert isinstance(again, ExecBot)
    again.start()
    assert again.pid == first
    again.close()
    exec_bot.close_pool()
    assert exec_bot.pool_size() == 0 and first is not None and not _alive(first)


def test_stderr_is_passed_on_bounded(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    misbehave = """
    if kind == 'decision':
        sys.stderr.write('e' * 1_000_000)
        sys.stderr.flush()
    """
    results = two_games(write_bot(tmp_path, misbehave))
    assert all(r["forfeit"] is None for r in results)
    err = capfd.readouterr().err
    # The first process wrote a megabyte at each of its decisions, in both games: 64 kB of it
    # was passed on per game.
    assert err.count("the bot's stderr is cut after 65536 bytes this game") == 2
    assert err.count("e") < 2 * 65536 + 1000


def test_the_bot_seed_and_moves_do_not_depend_on_the_process(tmp_path: Path) -> None:
    """The same arena twice (a pooled process, then fresh ones): identical results."""
    spec = write_bot(tmp_path)
    first = two_games(spec)
    exec_bot.close_pool()
    assert two_games(spec) == first


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status


def test_exec_in_simulate_with_a_python_loop(tmp_path: Path) -> None:
    from panda_core.simulate import simulate

    spec = write_bot(tmp_path)
    result = simulate(4, game="year", players=2, bots=[spec, "random"], seed=5)
    twin = simulate(4, game="year", players=2, bots=[lowest, "random"], seed=5)
    assert result.bots[0] == spec
    assert list(result.winner) == list(twin.winner)
    assert list(result.scores.reshape(-1)) == list(twin.scores.reshape(-1))


def test_exec_at_a_table(tmp_path: Path) -> None:
    from panda_core.table import Table

    spec = write_bot(tmp_path)
    table = Table("head", seats=[spec, "random"], seed=3, bot_time=5.0)
    pid = table._bots[0].pid  # type: ignore[union-attr]
    assert pid is not None
    table.advance()
    assert table.is_over
    assert not [e for e in table.state(0)["events"] if e["type"] == "bot_fallback"]
    assert not _alive(pid)  # stopped when its game ended


def test_exec_in_self_play(tmp_path: Path) -> None:
    from panda_core.selfplay import selfplay

    spec = write_bot(tmp_path)
    out = tmp_path / "data"
    selfplay(out, game="head", players=2, episodes=3, bots=[spec, "random"], workers=0)
    assert any(out.rglob("*.parquet"))


def test_a_bot_dies_with_its_parent(tmp_path: Path) -> None:
    """SIGKILL the process that started a protocol bot: the bot goes too."""
    import signal
    import subprocess

    spec = write_bot(tmp_path)
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from panda_core.protocol.exec_bot import ExecBot\n"
            "bot = ExecBot(sys.argv[1]); bot.start(); print(bot.pid, flush=True)\n"
            "time.sleep(120)\n",
            spec.removeprefix("exec:"),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert _alive(child)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        parent.kill()
        parent.wait()


def test_another_seats_forfeit_reaches_a_bot_without_its_reason(tmp_path: Path) -> None:
    """An illegal move's reason lists the legal moves of the seat that made it (its cards): the
    other seats' bots are told the forfeit's kind only."""
    log = tmp_path / "log.jsonl"
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER.format(log=str(log)))
    bad = tmp_path / "bad.py"  # an illegal move at its second decision of every game
    bad.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'protocol': 1}), flush=True)\n"
        "    elif m['type'] == 'decision':\n"
        "        i = sorted(x['id'] for x in m['legal'])[0] if m['decision'] < 2 else 10**6\n"
        "        move = {'type': 'move', 'game_id': m['game_id'], 'id': i}\n"
        "        print(json.dumps(move), flush=True)\n"
    )
    report = arena(
        [f"rec=exec:{sys.executable} {script}", f"bad=exec:{sys.executable} {bad}"],
        game="head", players=2, deals=1, workers=0, move_time=5,
    )  # fmt: skip
    assert report.forfeits
    ends = [json.loads(x) for x in log.read_text().splitlines()]
    ends = [
        m for m in ends if m["type"] == "end" and m["forfeit"] and m["forfeit"]["seat"] is not None
    ]
    assert ends
    for end in ends:
        assert end["forfeit"]["kind"] == "illegal"
        assert end["forfeit"]["reason"].endswith("forfeited")
        assert "legal moves" not in json.dumps(end)
