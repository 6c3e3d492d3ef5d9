"""The adapter (``python -m panda_core.protocol.adapter pkg.mod:attr``) as a protocol bot,
driven through a transcript: the test plays the engine, writes the engine's messages to the
adapter's stdin and reads every line it answers with the engine's strict reader.

Well-behaved bots play complete games of all three games (with asks) and move as the same bot
does in-process; hostile bots (raise, answer junk, print to stdout, read stdin, exit, loop, fail
to be created, swallow the adapter's own exceptions) never break the conversation: the game is
resigned with the reason, or the engine's deadline ends it and the adapter still exits at the
end of its input. The bots are this module's classes (the adapter imports them by path)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import panda_core
from panda_core._registry import GAMES, spec
from panda_core.protocol import messages

HERE = Path(__file__).resolve().parent
MODULE = Path(__file__).stem

# ---- the bots (imported by the adapter from this module) ------------------------------------


class Asking:
    """A deterministic bot that uses the asks: the heuristic's move for a seed of its own, after
    looking at its observation (and a sampled game now and then)."""

    def reset(self, seed: int) -> None:
        self.seed = seed
        self.decisions = 0

    def __call__(self, seat: Any, player: int) -> Any:
        self.decisions += 1
        assert len(seat.observation()) > 0
        if self.decisions % 5 == 1:
            sampled = seat.determinize(self.decisions)
            assert sampled.current_player == player
        return seat.bot_move("heuristic", seed=(self.seed + self.decisions) % 2**64)

    def game_over(self, seat: Any) -> None:
        print(f"GAME OVER seat {seat.player} winner {seat.winner} after {self.decisions}")


class FirstLegal:
    """The first legal move, as an object of the seat's (LegalMove / ClimbMove)."""

    def __call__(self, seat: Any, player: int) -> Any:
        return seat.legal_moves()[0]


def by_notation(seat: Any, player: int) -> Any:
    """A function bot answering the last legal move's notation."""
    return seat.legal_moves()[-1].notation


class Raising:
    def __call__(self, seat: Any, player: int) -> Any:
        raise ValueError("boom")


class Junk:
    """Answers something that is no move: the kind comes from the reset seed's parity."""

    def reset(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, seat: Any, player: int) -> Any:
        return [object(), 2**40, -3, "", 1.5, None, True][self.seed % 7]


class EvilInt(int):
    def __index__(self) -> int:
        raise RuntimeError("evil index")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("evil eq")

    __hash__ = int.__hash__


class EvilAnswer:
    """An int subclass whose methods raise: read through int's own slot, so it plays."""

    def __call__(self, seat: Any, player: int) -> Any:
        return EvilInt(seat.legal_actions()[0])


class Printing:
    """Prints to stdout (Python's and the file descriptor), reads stdin, then plays."""

    def __call__(self, seat: Any, player: int) -> Any:
        print('{"type": "move", "game_id": "forged", "id": 0}')
        sys.stdout.flush()
        os.write(1, b"raw bytes on fd 1\n")
        assert sys.stdin.read() == ""
        assert os.read(0, 100) == b""
        return seat.legal_actions()[0]


class Exiting:
    def __call__(self, seat: Any, player: int) -> Any:
        sys.exit(3)


class Looping:
    def __call__(self, seat: Any, player: int) -> Any:
        while True:
            time.sleep(0.01)


class Spinning:
    """Loops forever without sleeping (holding the interpreter as much as it can)."""

    def __call__(self, seat: Any, player: int) -> Any:
        while True:
            pass


class Lingering:
    """Starts a thread that never ends (not a daemon): the adapter still exits at bye."""

    def reset(self, seed: int) -> None:
        threading.Thread(target=lambda: time.sleep(3600), daemon=False).start()

    def __call__(self, seat: Any, player: int) -> Any:
        return seat.legal_actions()[0]


class Swallowing:
    """Asks forever and swallows everything, even the adapter's own BaseExceptions."""

    def __call__(self, seat: Any, player: int) -> Any:
        for _ in range(100):
            try:
                seat.observation()
            except BaseException:
                pass
        return seat.legal_actions()[0]


class Unmakeable:
    def __init__(self) -> None:
        raise RuntimeError("no bot today")

    def __call__(self, seat: Any, player: int) -> Any:
        raise AssertionError("never created")


class BadReset:
    def reset(self, seed: int) -> None:
        raise KeyError(seed)

    def __call__(self, seat: Any, player: int) -> Any:
        return seat.legal_actions()[0]


class Cheating:
    """Looks for the game in its caller's frames: the adapter holds none."""

    def __call__(self, seat: Any, player: int) -> Any:
        frame = sys._getframe(1)
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, panda_core.HeadGame | panda_core.ClimbGame):
                    raise AssertionError("found a game object in the adapter")
            frame = frame.f_back  # type: ignore[assignment]
        for name in ("snapshot", "clone", "apply"):
            assert not hasattr(seat, name), name
        return seat.legal_actions()[0]


_M64 = (1 << 64) - 1


def _unshift(z: int, s: int) -> int:
    x = z
    for _ in range(64 // s + 1):
        x = z ^ (x >> s)
    return x & _M64


def _unmix(z: int) -> int:
    """The inverse of SplitMix64's output function."""
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _M64
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _M64
    return _unshift(z, 30)


class SeedReader:
    """Tries to work the deal out from its own seed, as if it had been
    ``nth_output(deal_seed ^ stream, seat)`` (SplitMix64 inverts); raises if that gives the deal
    (the game is then forfeited)."""

    def reset(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, seat: Any, player: int) -> Any:
        from panda_core._registry import GAMES as names

        for stream in (0, 0xB0B5_B0B5_B0B5_B0B5):
            guess = ((_unmix(self.seed) - 0x9E3779B97F4A7C15 * (player + 1)) & _M64) ^ stream
            for name in names:
                try:
                    game = spec(name).new_game(seat.players, guess, seat.rules)
                except (ValueError, TypeError):
                    continue
                if game.events(player)[:3] == seat.events()[:3]:
                    raise AssertionError(f"the seed {self.seed} gives the deal {guess} away")
        return seat.legal_actions()[0]


# ---- the transcript driver --------------------------------------------------------------------


def adapter_command(bot: str, *options: str) -> list[str]:
    return [sys.executable, "-m", "panda_core.protocol.adapter", bot, *options]


class Conversation:
    """A protocol bot in a subprocess (``command``, run in the repository's root with this
    panda_core and the tests importable); the test writes its stdin and reads its stdout."""

    def __init__(self, command: list[str]) -> None:
        path = os.pathsep.join(
            [str(Path(panda_core.__file__).resolve().parents[1]), str(HERE)]
            + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
        )
        self.process = subprocess.Popen(
            command,
            cwd=HERE.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path},
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.output: list[bytes] = []
        """Every line the bot wrote, as it wrote it."""
        self.errors: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.errors.append(line)

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def read(self, timeout: float = 20) -> Any:
        """The adapter's next message, read as the engine reads it (``None`` at its end)."""
        line = self.lines.get(timeout=timeout)
        if line is None:
            return None
        return messages.read_bot_message(line)

    def silent(self, seconds: float) -> bool:
        """Nothing comes for ``seconds``."""
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return True
        self.lines.put(line)
        return False

    def hello(self) -> dict[str, Any]:
        self.send(messages.hello_message("panda-core test"))
        answer = self.read()
        assert answer is not None and answer["type"] == "hello"
        return dict(answer)

    def close(self, timeout: float = 20) -> int:
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        return self.process.wait(timeout=timeout)

    def stderr(self) -> str:
        return b"".join(self.errors).decode(errors="replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def talk() -> Any:
    opened: list[Conversation] = []

    def start(bot: str, *options: str) -> Conversation:
        path = f"{MODULE}:{bot}" if ":" not in bot else bot
        conversation = Conversation(adapter_command(path, *options))
        opened.append(conversation)
        return conversation

    yield start
    for conversation in opened:
        conversation.kill()


def answer(game: Any, player: int, ask: dict[str, Any]) -> dict[str, Any]:
    """The engine's answer to an ask: from the seat's information."""
    seat = game.seat(player)
    kind = ask["ask"]
    if kind == "observation":
        value: Any = seat.observation().tolist()
    elif kind == "determinize":
        value = seat.determinize(ask["seed"]).snapshot()
    else:
        move = seat.bot_move(ask["bot"], ask["seed"])
        value = {"id": seat.action_index(move), "notation": move.notation}
    return {"type": "answer", "game_id": ask["game_id"], "ask": kind, "value": value}


def play(
    talk: Conversation,
    game_name: str,
    *,
    players: int = 3,
    seed: int = 1,
    seat: int = 0,
    game_id: str = "g-1",
    others: str = "random",
) -> tuple[Any, list[Any], dict[str, Any] | None]:
    """A complete game with the adapter at ``seat``; the game, the adapter's moves as played
    (plain ids or notations) and its resign message if it gave the game up."""
    game = spec(game_name).new_game(players, seed)
    talk.send(
        messages.start_message(
            game_id=game_id,
            game=game_name,
            rules=spec(game_name).rules_dict(game.rules),
            players=players,
            seat=seat,
            seed=messages.bot_seed(seed, seat),
            move_time_ms=5000,
        )
    )
    seen = 0
    decision = 0
    moves: list[Any] = []
    resigned: dict[str, Any] | None = None
    while (to_move := game.current_player) is not None:
        if to_move != seat:
            game.apply(game.bot_move(others, seed + decision).notation)
            decision += 1
            continue
        events = game.events(seat)
        talk.send(
            messages.decision_message(
                game_id=game_id,
                decision=decision,
                seat=game.seat(seat),
                events=events[seen:],
                time_left_ms=5000,
            )
        )
        seen = len(events)
        while True:
            reply = talk.read()
            assert reply is not None, talk.stderr()
            assert reply["game_id"] == game_id
            if reply["type"] == "ask":
                talk.send(answer(game, seat, dict(reply)))
                continue
            break
        if reply["type"] == "resign":
            resigned = dict(reply)
            break
        assert reply["type"] == "move"
        move = reply["id"] if "id" in reply else reply["notation"]
        game.apply(move)
        moves.append(move)
        decision += 1
    forfeit = None if resigned is None else {"seat": seat, "kind": resigned["kind"], "reason": ""}
    talk.send(
        messages.end_message(
            game_id=game_id,
            seat=game.seat(seat),
            events=game.events(seat)[seen:],
            forfeit=forfeit,
        )
    )
    return game, moves, resigned


# ---- well-behaved bots --------------------------------------------------------------------------


@pytest.mark.parametrize("game_name", GAMES)
def test_a_bot_with_asks_plays_complete_games_as_in_process(talk: Any, game_name: str) -> None:
    conversation = talk("Asking", "--name", "asking bot")
    assert conversation.hello() == {"type": "hello", "protocol": 1, "name": "asking bot"}
    for index, (players, seat) in enumerate(((3, 0), (4, 2))):
        game, moves, resigned = play(
            conversation,
            game_name,
            players=players,
            seed=10 + index,
            seat=seat,
            game_id=f"g-{index}",
        )
        assert resigned is None and game.is_over and moves
        # the same bot in-process, on the real game: the same moves
        replay = spec(game_name).new_game(players, 10 + index)
        bot = Asking()
        bot.reset(messages.bot_seed(10 + index, seat))
        expected = []
        decision = 0
        while (to_move := replay.current_player) is not None:
            if to_move == seat:
                move = bot(replay.seat(seat), seat)
                expected.append(replay.action_index(move) if game_name == "head" else move.notation)
                replay.apply(move)
            else:
                replay.apply(replay.bot_move("random", 10 + index + decision).notation)
            decision += 1
        assert moves == expected
    conversation.send({"type": "bye"})
    assert conversation.close() == 0
    assert conversation.stderr().count("GAME OVER") == 2  # game_over(seat), printed to stderr


@pytest.mark.parametrize("bot", ["FirstLegal", "by_notation", "EvilAnswer", "Cheating"])
def test_answers_of_every_form_play(talk: Any, bot: str) -> None:
    conversation = talk(bot)
    assert conversation.hello()["name"] == f"{MODULE}:{bot}"
    for game_name in GAMES:
        game, _moves, resigned = play(conversation, game_name, game_id=f"{bot}-{game_name}")
        assert resigned is None and game.is_over, resigned
    assert conversation.close() == 0  # the end of input, without a bye


def test_prints_and_stdin_reads_never_reach_the_conversation(talk: Any) -> None:
    conversation = talk("Printing")
    conversation.hello()
    game, _moves, resigned = play(conversation, "head")
    assert resigned is None and game.is_over
    assert conversation.close() == 0
    assert '"game_id": "forged"' in conversation.stderr()
    assert "raw bytes on fd 1" in conversation.stderr()


def test_pings_are_answered(talk: Any) -> None:
    conversation = talk("FirstLegal")
    conversation.hello()
    conversation.send({"type": "ping"})
    assert conversation.read() == {"type": "pong"}


# ---- hostile bots ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bot", "kind", "reason"),
    [
        ("Raising", "exception", "raised ValueError: boom"),
        ("Exiting", "exception", "raised SystemExit: 3"),
        ("Unmakeable", "exception", "cannot create the bot"),
        ("BadReset", "exception", "reset raised KeyError"),
    ],
)
def test_a_failing_bot_resigns_with_its_reason(talk: Any, bot: str, kind: str, reason: str) -> None:
    conversation = talk(bot)
    conversation.hello()
    for game_name in GAMES:  # every game, in the same process
        _game, moves, resigned = play(conversation, game_name, game_id=f"r-{game_name}")
        assert resigned is not None and resigned["kind"] == kind
        assert reason in resigned["reason"]
        assert not moves
    conversation.send({"type": "bye"})
    assert conversation.close() == 0


def test_junk_answers_resign_as_illegal(talk: Any) -> None:
    conversation = talk("Junk")
    conversation.hello()
    reasons: dict[int, str] = {}
    for seed in range(60):
        answer_kind = messages.bot_seed(seed, 0) % 7  # which junk the bot answers
        if answer_kind in reasons:
            continue
        _, _moves, resigned = play(conversation, "year", seed=seed, game_id=f"j-{seed}")
        assert resigned is not None and resigned["kind"] == "illegal", resigned
        reasons[answer_kind] = resigned["reason"]
    assert len(reasons) == 7, reasons
    assert "no legal move has it" in reasons[1] and "empty notation" in reasons[3]
    assert conversation.close() == 0


def first_decision(conversation: Any, name: str, game_id: str, seed: int) -> tuple[Any, int]:
    """Start a 3-player game of ``name`` for the seat to move and send its first decision (200
    ms each); the game and the seat."""
    game = panda_core.make(name, players=3, seed=seed)
    seat = game.current_player
    assert seat is not None
    conversation.send(
        messages.start_message(
            game_id=game_id,
            game=name,
            rules=spec(name).rules_dict(game.rules),
            players=3,
            seat=seat,
            seed=1,
            move_time_ms=200,
        )
    )
    conversation.send(
        messages.decision_message(
            game_id=game_id,
            decision=0,
            seat=game.seat(seat),
            events=game.events(seat),
            time_left_ms=200,
        )
    )
    return game, seat


@pytest.mark.slow
def test_a_looping_bot_leaves_the_adapter_able_to_exit(talk: Any) -> None:
    for bot in ("Looping", "Spinning"):
        conversation = talk(bot)
        conversation.hello()
        game, seat = first_decision(conversation, "head", "loop", seed=1)
        assert conversation.silent(0.5)  # the engine's deadline passes: it ends the game
        conversation.send(
            messages.end_message(
                game_id="loop",
                seat=game.seat(seat),
                events=[],
                forfeit={"seat": seat, "kind": "timeout", "reason": "overran"},
            )
        )
        conversation.send({"type": "bye"})
        began = time.monotonic()
        assert conversation.close() == 0
        assert time.monotonic() - began < 10
        assert conversation.read() is None  # nothing more came: the end of its output


def test_a_thread_the_bot_leaves_running_does_not_keep_the_adapter_alive(talk: Any) -> None:
    conversation = talk("Lingering")
    conversation.hello()
    game, _moves, resigned = play(conversation, "spin")
    assert resigned is None and game.is_over
    conversation.send({"type": "bye"})
    assert conversation.close(timeout=10) == 0


@pytest.mark.slow
def test_the_end_during_an_ask_stops_the_bot_and_the_next_game_plays(talk: Any) -> None:
    conversation = talk("Swallowing")
    conversation.hello()
    game, seat = first_decision(conversation, "spin", "cut", seed=2)
    ask = conversation.read()
    assert ask is not None and ask["type"] == "ask"
    conversation.send(  # no answer: the engine ends the game (the bot overran)
        messages.end_message(
            game_id="cut",
            seat=game.seat(seat),
            events=[],
            forfeit={"seat": seat, "kind": "timeout", "reason": "overran"},
        )
    )
    # the bot swallowed the adapter's exceptions and returned a move: it is not sent, and no
    # ask goes out for the ended game
    assert conversation.silent(1.0)
    # the next game asks and plays as usual
    conversation.send(
        messages.start_message(
            game_id="next",
            game="spin",
            rules=spec("spin").rules_dict(game.rules),
            players=3,
            seat=seat,
            seed=1,
            move_time_ms=200,
        )
    )
    conversation.send(
        messages.decision_message(
            game_id="next",
            decision=0,
            seat=game.seat(seat),
            events=game.events(seat),
            time_left_ms=200,
        )
    )
    replies = []
    while True:
        reply = conversation.read()
        assert reply is not None
        replies.append(reply)
        if reply["type"] == "ask":
            conversation.send(answer(game, seat, dict(reply)))
            continue
        break
    assert [r["type"] for r in replies].count("ask") == messages.MAX_ASKS
    assert replies[-1]["type"] == "move" and replies[-1]["game_id"] == "next"
    assert conversation.close() == 0


def test_hostile_engine_lines_are_skipped(talk: Any) -> None:
    conversation = talk("FirstLegal")
    conversation.hello()
    conversation.send(b"not json\n")
    conversation.send(b"[1, 2]\n")
    conversation.send(b'{"no": "type"}\n')
    conversation.send(b'{"type": "' + b"x" * (messages.MAX_LINE_BYTES + 10) + b'"}\n')
    conversation.send({"type": "surprise"})
    conversation.send({"type": "decision", "game_id": "never-started"})
    reply = conversation.read()
    assert reply == {
        "type": "resign",
        "game_id": "never-started",
        "kind": "exception",
        "reason": "a decision of a game that was never started",
    }
    game, _moves, resigned = play(conversation, "head")
    assert resigned is None and game.is_over
    assert conversation.close() == 0
    assert "not JSON" in conversation.stderr()


def test_an_engine_of_another_protocol_is_refused(talk: Any) -> None:
    conversation = talk("FirstLegal")
    conversation.send({"type": "hello", "protocol": 2, "engine": "future"})
    assert conversation.read() is None
    assert conversation.close() == 2
    assert "protocol 1" in conversation.stderr()


def test_a_bot_that_cannot_be_imported_says_why(talk: Any) -> None:
    conversation = talk("no_such_module_here:Bot")
    assert conversation.read() is None
    assert conversation.close() == 2
    assert "no_such_module_here" in conversation.stderr()


def test_a_contained_bots_seed_does_not_give_the_deal_away() -> None:
    from panda_core.arena.run import arena

    report = arena(
        {"reader": f"{MODULE}:SeedReader", "random": "random"},
        game="head",
        players=2,
        deals=2,
        seed=5,
        workers=0,
        move_time=20,
    )
    assert report.settings.entrants[0].contained
    assert not report.forfeits, report.forfeits[0].forfeit.message  # type: ignore[union-attr]
