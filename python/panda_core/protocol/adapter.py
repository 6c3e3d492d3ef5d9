"""A Python bot as a protocol bot: ``python -m panda_core.protocol.adapter pkg.mod:attr``.

The adapter runs one Python bot (an import path, as the arena takes it) in a process that holds
nothing but what the engine sends to its seat (docs/bot_protocol.md). It speaks the protocol on
its stdin and stdout:

* it answers the engine's ``hello`` with its own;
* at each ``start`` it creates the bot afresh (a class is instantiated per game, as
  :func:`panda_core.bot_import.make_bot` does) and calls its ``reset(seed)`` with the start's seed;
* at each ``decision`` it hands the bot a :class:`~panda_core.protocol.remote_seat.RemoteSeat`
  built from the messages only, reads the bot's answer into a plain id or notation
  (:func:`panda_core.bot_answer.plain_move`, never trusting the bot's objects) and sends the
  ``move``; the seat's ``observation``, ``determinize`` and ``bot_move`` are ``ask`` lines;
* a bot that raises or answers something that is no move gives the game up: the adapter sends
  ``{"type": "resign", "game_id", "kind", "reason"}`` (kind ``exception`` or ``illegal``) and
  the engine records the forfeit with that reason;
* at the ``end`` it calls the bot's ``game_over(seat)`` if it has one.

The bot cannot disturb the conversation: the protocol runs on copies of the original stdin and
stdout, the process's stdout is moved to stderr (so the bot's ``print`` lands there) and its
stdin is ``/dev/null``. A bot that never returns is the engine's to stop (its deadline forfeits
the game); the adapter keeps reading meanwhile and exits at ``bye`` or when its stdin closes,
even while the bot is still running. Exit status: 0 after ``bye`` or end of input, 2 for a bot
that cannot be imported or an engine of another protocol, 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import queue
import sys
import threading
from collections.abc import Callable, Sequence
from typing import IO, Any

from panda_core._args import cut
from panda_core._core import ArgumentError
from panda_core.bot_answer import MAX_NOTATION, NotAMoveError, plain_move, refusal_reason
from panda_core.bot_import import BotImportError, import_bot, instantiate_bot
from panda_core.bot_move import BOT_FAILURES, MoveRefused
from panda_core.protocol.messages import MAX_LINE_BYTES, PROTOCOL, ProtocolError
from panda_core.protocol.remote_seat import LegalMove, RemoteSeat, open_seat

__all__ = ["Adapter", "main"]

_EXIT_POLL = 0.1
"""Seconds between the reader thread's looks, after ``bye`` or the end of input, at whether the
main thread is still inside a bot's decision (then it ends the process: a bot that never
returns does not keep it alive; a ``game_over`` still running is left to finish)."""
_REASON_CHARS = 1000
_NAME_CHARS = 100
_ID_RANGE = (0, 1 << 32)
_EOF: dict[str, Any] = {"type": "<end of input>"}


class _GameEnded(BaseException):
    """Raised into the bot by an ask when the engine ended the game meanwhile (it overran)."""


class _Shutdown(BaseException):
    """Raised into the bot by an ask when the engine said ``bye`` or closed the input."""


def _log(text: str) -> None:
    try:
        print(f"panda-core adapter: {text}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


class _Inbox:
    """The engine's messages, read by a thread of their own: the main thread may be inside the
    bot for as long as the bot likes, and a ``bye`` or the end of input still ends the
    process."""

    def __init__(
        self, stream: IO[bytes], stopped: threading.Event, deciding: Callable[[], bool]
    ) -> None:
        self._stream = stream
        self._stopped = stopped
        self._deciding = deciding
        self._queue: queue.Queue[dict[str, Any]] = queue.Queue()
        self._pending: collections.deque[dict[str, Any]] = collections.deque()
        self._thread = threading.Thread(target=self._read, name="protocol-reader", daemon=True)
        self._thread.start()

    def _line(self) -> bytes | None:
        """One line (without its end); ``None`` at the end of input. A line longer than the
        engine ever sends is skipped whole."""
        line = self._stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return None
        if line.endswith(b"\n"):
            return line
        if len(line) <= MAX_LINE_BYTES:
            return line  # the last line, without its end
        while line and not line.endswith(b"\n"):
            line = self._stream.readline(MAX_LINE_BYTES + 1)
        _log(f"skipped a line of the engine's longer than {MAX_LINE_BYTES} bytes")
        return b""

    def _read(self) -> None:
        try:
            while (line := self._line()) is not None:
                if not line.strip():
                    continue
                try:
                    message = json.loads(line)
                except ValueError as err:
                    _log(f"skipped a line of the engine's that is not JSON: {cut(str(err))}")
                    continue
                if type(message) is not dict or type(message.get("type")) is not str:
                    _log("skipped a line of the engine's that is not a message object")
                    continue
                self._queue.put(message)
                if message["type"] == "bye":
                    break
        except (OSError, ValueError) as err:
            _log(f"the engine's input failed: {err}")
        finally:
            self._queue.put(_EOF)
        while not self._stopped.wait(_EXIT_POLL):
            if self._deciding():
                _log("the bot is still deciding at the end of input: stopping it")
                try:
                    sys.stderr.flush()
                finally:
                    os._exit(0)

    def get(self) -> dict[str, Any]:
        """The next message (waits); :data:`_EOF` once the input has ended."""
        if self._pending:
            return self._pending.popleft()
        return self._queue.get()

    def unget(self, message: dict[str, Any]) -> None:
        """Put ``message`` back: the next :meth:`get` returns it."""
        self._pending.appendleft(message)

    def ended(self, game_id: str) -> bool:
        """Whether the engine has already sent the end of ``game_id`` (or closed the input):
        read without waiting, kept for :meth:`get`."""
        while True:
            try:
                self._pending.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return any(
            m is _EOF or m["type"] == "bye" or (m["type"] == "end" and m.get("game_id") == game_id)
            for m in self._pending
        )


class _Game:
    """The game being played: its seat and the bot created for it."""

    def __init__(self, game_id: str, seat: RemoteSeat | None, bot: Any, failure: str) -> None:
        self.game_id = game_id
        self.seat = seat
        self.bot = bot
        self.failure = failure
        """Why the bot could not play this game ("" if it can): resigned at its decision."""


class Adapter:
    """The protocol loop over a Python bot (``target``, what ``path`` imports) on binary
    streams ``wire_in`` / ``wire_out`` (the engine's messages and the bot's)."""

    def __init__(
        self, target: Any, path: str, name: str, wire_in: IO[bytes], wire_out: IO[bytes]
    ) -> None:
        self._target = target
        self._path = path
        self._name = name[:_NAME_CHARS]
        self._out = wire_out
        self._write_lock = threading.Lock()
        self._ask_lock = threading.Lock()
        self._stopped = threading.Event()
        self._inbox = _Inbox(wire_in, self._stopped, lambda: self._deciding is not None)
        self._game: _Game | None = None
        self._deciding: _Game | None = None
        self._shutdown = False

    # ---- the wire ------------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        with self._write_lock:
            try:
                self._out.write(line.encode() + b"\n")
                self._out.flush()
            except (BrokenPipeError, ConnectionResetError):
                raise _Shutdown from None

    def _resign(self, game_id: str, kind: str, reason: str) -> None:
        _log(f"the bot gives up game {game_id}: {reason}")
        text = reason if len(reason) <= _REASON_CHARS else reason[: _REASON_CHARS - 1] + "…"
        self._send({"type": "resign", "game_id": game_id, "kind": kind, "reason": text})

    # ---- the loop ------------------------------------------------------------------------

    def run(self) -> int:
        """Speak the protocol until ``bye`` or the end of input; the exit status."""
        try:
            return self._run()
        except _Shutdown:
            return 0
        except KeyboardInterrupt:
            return 130
        finally:
            self._stopped.set()

    def _run(self) -> int:
        hello = self._inbox.get()
        if hello is _EOF:
            return 0
        if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
            _log(
                f"the engine's first message is {cut(json.dumps(hello))}; this adapter speaks "
                f"protocol {PROTOCOL} and starts with the engine's hello"
            )
            return 2
        self._send({"type": "hello", "protocol": PROTOCOL, "name": self._name})
        while True:
            message = self._inbox.get()
            kind = message["type"]
            if message is _EOF or kind == "bye":
                return 0
            if kind == "start":
                self._start(message)
            elif kind == "decision":
                self._decide(message)
            elif kind == "end":
                self._end(message)
            elif kind == "ping":
                self._send({"type": "pong"})
            else:
                _log(f"ignored a {cut(kind)!r} message")
            if self._shutdown:
                return 0

    def _start(self, start: dict[str, Any]) -> None:
        game_id = start.get("game_id")
        if type(game_id) is not str:
            _log(f"ignored a start without a game id: {cut(json.dumps(start))}")
            return
        try:
            seat = open_seat(start, self._ask)
        except (ProtocolError, ValueError) as err:
            self._game = _Game(game_id, None, None, f"the adapter cannot read the start: {err}")
            return
        try:
            bot = instantiate_bot(self._target, self._path)
        except BotImportError as err:
            self._game = _Game(game_id, seat, None, str(err))
            return
        failure = ""
        try:
            reset = getattr(bot, "reset", None)
            if callable(reset):
                reset(start.get("seed"))
        except BOT_FAILURES as err:
            failure = f"reset {refusal_reason(MoveRefused('exception', err))}"
        self._game = _Game(game_id, seat, bot, failure)

    def _decide(self, decision: dict[str, Any]) -> None:
        game_id = decision.get("game_id")
        game = self._game
        if game is None or game_id != game.game_id:
            if type(game_id) is str and len(game_id) <= _NAME_CHARS:
                self._resign(game_id, "exception", "a decision of a game that was never started")
            else:
                _log("ignored a decision without a game id")
            return
        if game.failure:
            self._resign(game.game_id, "exception", game.failure)
            return
        assert game.seat is not None
        try:
            game.seat._decide(decision)
        except ProtocolError as err:
            self._resign(game.game_id, "exception", f"the adapter cannot read the decision: {err}")
            return
        move = self._ask_bot(game, game.seat)
        if move is None or self._shutdown or self._inbox.ended(game.game_id):
            return  # resigned, or the engine ended the game meanwhile (the bot overran)
        if isinstance(move, int):
            self._send({"type": "move", "game_id": game.game_id, "id": move})
        else:
            self._send({"type": "move", "game_id": game.game_id, "notation": move})

    def _ask_bot(self, game: _Game, seat: RemoteSeat) -> int | str | None:
        """The bot's move as a plain id or notation, or ``None`` after resigning (or when the
        game ended or the input closed while the bot was deciding)."""
        self._deciding = game
        try:
            answer = game.bot(seat, seat.player)
        except _GameEnded:
            return None
        except _Shutdown:
            self._shutdown = True
            return None
        except BOT_FAILURES as err:
            if not (self._shutdown or self._inbox.ended(game.game_id)):
                reason = refusal_reason(MoveRefused("exception", err))
                self._resign(game.game_id, "exception", reason)
            return None
        finally:
            self._deciding = None
        if self._shutdown or self._inbox.ended(game.game_id):
            return None
        try:
            if type(answer) is LegalMove:  # the seat's own move object: read plainly
                action = object.__getattribute__(answer, "action_id")
                answer = object.__getattribute__(answer, "notation") if action is None else action
            move = plain_move(answer)
            _check_wire_move(move)
        except BOT_FAILURES as err:
            refused = MoveRefused("illegal", err, answer)
            self._resign(game.game_id, "illegal", refusal_reason(refused))
            return None
        return move

    def _ask(self, message: dict[str, Any]) -> Any:
        """Send an ask of the seat's and wait for its answer (the seat's ``Asker``)."""
        with self._ask_lock:
            game = self._deciding
            if game is None or message.get("game_id") != game.game_id:
                raise ArgumentError("the seat asks the engine only while its bot is deciding")
            if self._shutdown:
                raise _Shutdown
            if self._inbox.ended(game.game_id):
                raise _GameEnded
            self._send(message)
            while True:
                reply = self._inbox.get()
                kind = reply["type"]
                if reply is _EOF or kind == "bye":
                    self._shutdown = True
                    raise _Shutdown
                if kind == "answer" and reply.get("game_id") == game.game_id:
                    if reply.get("ask") != message["ask"]:
                        raise ProtocolError(
                            f"asked {message['ask']!r}, the engine answered {reply.get('ask')!r}"
                        )
                    return reply.get("value")
                if kind == "end" and reply.get("game_id") == game.game_id:
                    self._inbox.unget(reply)  # the main loop ends the game once the bot is out
                    raise _GameEnded
                if kind == "ping":
                    self._send({"type": "pong"})
                    continue
                _log(f"ignored a {cut(kind)!r} message while waiting for an answer")

    def _end(self, end: dict[str, Any]) -> None:
        game = self._game
        if game is None or end.get("game_id") != game.game_id:
            return
        self._game = None
        if game.seat is None or game.bot is None:
            return
        try:
            game.seat._finish(end)
        except ProtocolError as err:
            _log(f"cannot read the end of game {game.game_id}: {err}")
            return
        try:
            over = getattr(game.bot, "game_over", None)
            if callable(over):
                over(game.seat)
        except BOT_FAILURES as err:
            _log(f"the bot's game_over {refusal_reason(MoveRefused('exception', err))}")


def _check_wire_move(move: int | str) -> None:
    """A plain move the protocol can carry (an id of the protocol's range, a notation in
    UTF-8); :class:`NotAMoveError` otherwise, so the game is resigned as ``illegal`` rather than
    sent as a message the engine must refuse."""
    if isinstance(move, int):
        if not _ID_RANGE[0] <= move < _ID_RANGE[1]:
            raise NotAMoveError(f"answered the action id {cut(str(move))}: no legal move has it")
        return
    try:
        move.encode()
    except UnicodeEncodeError:
        raise NotAMoveError("answered a notation that is not valid text (UTF-8)") from None
    if not move or len(move) > MAX_NOTATION:
        raise NotAMoveError("answered an empty notation: not a move")


def _claim_stdio() -> tuple[IO[bytes], IO[bytes]]:
    """The protocol's streams: copies of the original stdin and stdout. Then the process's
    stdout is its stderr (a bot's ``print`` cannot corrupt the conversation) and its stdin is
    ``/dev/null``. The copies are not inherited by the bot's own subprocesses."""
    sys.stdout.flush()
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    return os.fdopen(wire_in, "rb"), os.fdopen(wire_out, "wb")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m panda_core.protocol.adapter",
        description=(
            "Play a Python bot over the bot protocol (docs/bot_protocol.md) on stdin/stdout, "
            "in a process that knows only its seat's messages."
        ),
    )
    parser.add_argument("bot", help="the bot's import path, package.module:attr")
    parser.add_argument("--name", help="the name sent in the hello (default: the import path)")
    args = parser.parse_args(argv)
    wire_in, wire_out = _claim_stdio()
    try:
        target = import_bot(args.bot)
    except BotImportError as err:
        _log(str(err))
        return 2
    adapter = Adapter(target, args.bot, args.name or args.bot, wire_in, wire_out)
    return adapter.run()


def _exit(status: int) -> None:
    """Exit with ``status``, even while threads the bot started still run."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if any(t.is_alive() and not t.daemon for t in others):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    _exit(main())
