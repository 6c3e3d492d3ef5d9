"""A bot in any language, run as a subprocess speaking the bot protocol on its stdin and stdout
(``exec:COMMAND``; the protocol: docs/bot_protocol.md).

:class:`ExecBot` is a Python bot (``bot(seat, player)`` with ``reset(seed)``, ``game_over(seat)``
and ``close()``) that every loop asks like any other: the arena, tables, ``play_game`` and
``simulate``, self-play. For each decision it sends the bot the seat's view, the events the seat
saw since its last decision and the legal moves, answers the bot's asks (``observation``,
``determinize``, ``bot_move``: at most :data:`~panda_core.protocol.messages.MAX_ASKS` a decision)
from the seat object it was handed, and returns the bot's move as a plain action id or notation.
Every message is built from that seat with its own player, so the process holds nothing but its
seat's information.

One process per command plays many games: processes are kept in a pool per worker process,
keyed by the command, and handed to one game at a time (two seats of one game with the same
command get a process each). A process is started, greeted (``hello`` both ways, within
:data:`START_TIME`) and then reused; it is killed at exit and dies with its parent
(:mod:`panda_core.protocol.process`).

A bot that fails gives no move: its process is killed (a fresh one plays its next game) and the
call raises, so that :func:`panda_core.bot_move.ask_move` records a forfeit with the reason:

* ``timeout`` — no move before the time left (the smaller of :attr:`ExecBot.move_time` and the
  loop's own move timer): :class:`~panda_core.move_timer.MoveTimeout`;
* ``exception`` — it ended, closed its output, sent a line that is not a message of the
  protocol or one over the size limit, a message of another game, a line no one asked for, too
  many asks, or an ask it may not make: :class:`ExecBotError` saying which;
* ``illegal`` — a well-formed move that is not legal: returned as it came, for the loop to
  refuse (then the process is replaced at the end of the game).
"""

from __future__ import annotations

import contextlib
import json
import shlex
import shutil
import signal
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panda_core._args import cut, seed_arg, shown
from panda_core._core import (
    ArgumentError,
    __version__,
)
from panda_core._registry import spec_of
from panda_core.move_timer import MoveTimeout
from panda_core.protocol.asks import AskRefused, answer_value
from panda_core.protocol.messages import (
    MAX_ANSWER_BYTES,
    MAX_ASKS,
    MAX_LINE_BYTES,
    ProtocolError,
    decision_message,
    end_message,
    hello_message,
    read_bot_message,
    start_message,
)
from panda_core.protocol.process import BadLine, LineProcess, ProcessGone

__all__ = [
    "DEFAULT_MOVE_TIME",
    "ENGINE",
    "START_TIME",
    "BotResigned",
    "ExecBot",
    "ExecBotError",
    "check_command",
    "close_pool",
    "parse_command",
]

DEFAULT_MOVE_TIME = 10.0
"""Seconds a move may take when neither the bot nor the loop says less."""
START_TIME = 30.0
"""Seconds a fresh process may take to answer the engine's ``hello``."""
ENGINE = f"panda-core {__version__}"
"""How the engine names itself in its ``hello``."""
_END_SECONDS = 2.0
"""The longest the engine waits to hand a bot its ``end`` (a bot that does not read it is
replaced)."""
_REASON_CHARS = 300


class ExecBotError(Exception):
    """A protocol bot gave no move it may give (the message says why, in words)."""


class BotResigned(ExecBotError):
    """The bot gave the game up itself (a ``resign`` message: the Python adapter sends one for a
    bot that raised, ``kind="exception"``, or answered no move, ``kind="illegal"``); the message
    is the bot's reason. The protocol held, so its process plays on."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(_reason(reason) or "the bot resigned")
        self.kind = kind if kind in ("exception", "illegal") else "exception"


# ---- the command ----------------------------------------------------------------------------


def parse_command(command: str | Sequence[str]) -> tuple[str, ...]:
    """``command`` as the program and its arguments: a string is split as a POSIX shell would
    (``shlex.split``: ``'node "my bot.js" --fast'``), a sequence is taken as it is.
    ``ArgumentError`` for an empty command or one that does not split."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as err:  # an unclosed quote
            raise ArgumentError(f"cannot split the command {cut(command)!r}: {err}") from None
    elif isinstance(command, Sequence) and all(isinstance(a, str) for a in command):
        argv = list(command)
    else:
        raise TypeError(f"a command is a str or a list of str, got {shown(command)}")
    if not argv or not argv[0]:
        raise ArgumentError("an exec: bot needs a command, as in 'exec:python3 my_bot.py'")
    if any("\0" in a for a in argv):
        raise ArgumentError("a command's arguments cannot hold a NUL character")
    return tuple(argv)


def check_command(command: str | Sequence[str]) -> tuple[str, ...]:
    """:func:`parse_command`, and the program must exist (on ``PATH``, or as a path)."""
    argv = parse_command(command)
    program = argv[0]
    if ("/" in program and Path(program).is_file()) or shutil.which(program) is not None:
        return argv
    raise ArgumentError(
        f"cannot find the program {cut(program)!r} of the exec: bot (not a file, not on PATH)"
    )


# ---- the seat, as the messages read it ----------------------------------------------------------


def _as_seat(obj: Any, player: int) -> Any:
    """The seat object the messages are built from: the one the loop handed in, or the seat of a
    game (a loop that hands the whole game: the research opt-in), so that every message holds
    ``player``'s information only."""
    return obj if type(getattr(obj, "player", None)) is int else obj.seat(player)


# ---- processes --------------------------------------------------------------------------------


def _line(message: Mapping[str, Any]) -> bytes:
    data = (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode()
    if len(data) > MAX_LINE_BYTES:  # the engine's own message: never one a bot may refuse
        raise ExecBotError(f"the engine's {message.get('type')} message is {len(data)} bytes")
    return data


@contextlib.contextmanager
def _no_alarm() -> Iterator[None]:
    """Hold off the move timer's signal (main thread) while a failed process is cleaned up: it
    comes once the cleanup is done."""
    blocked = threading.current_thread() is threading.main_thread() and hasattr(
        signal, "pthread_sigmask"
    )
    if blocked:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


PoolKey = tuple[tuple[str, ...], str | None, tuple[tuple[str, str], ...] | None]


@dataclass
class _Session:
    """One process of a command: greeted or not, and the game it was left in."""

    key: PoolKey
    proc: LineProcess
    ready: bool = False
    name: str = ""
    games: int = 0
    unfinished: tuple[str, list[int]] | None = None
    """A game started in this process and never ended (its id and last scores): ended with a
    ``stopped`` forfeit before the next one starts."""

    def send(self, message: Mapping[str, Any], deadline: float) -> None:
        self.proc.write(_line(message), deadline)

    def hello(self, deadline: float) -> None:
        """Take the bot's hello (the engine's was sent when the process started)."""
        if self.ready:
            return
        try:
            message = read_bot_message(self.proc.read_line(deadline, MAX_ANSWER_BYTES))
        except ProtocolError as err:
            raise ExecBotError(f"its hello is not the protocol's: {err}") from None
        if message["type"] != "hello":
            raise ExecBotError(
                f"answered the engine's hello with a {message['type']!r} message, not a hello"
            )
        self.name = str(message.get("name", ""))
        self.ready = True

    def close_unfinished(self, deadline: float) -> None:
        if self.unfinished is None:
            return
        game_id, scores = self.unfinished
        self.unfinished = None
        self.send(_stopped_end(game_id, scores), deadline)

    def kill(self) -> None:
        with _no_alarm():
            self.proc.kill()


def _stopped_end(game_id: str, scores: list[int]) -> dict[str, Any]:
    """The end of a game the engine stopped before it was over, seen from a seat whose game
    state the engine no longer holds."""
    return {
        "type": "end",
        "game_id": game_id,
        "winner": None,
        "scores": scores,
        "events": [],
        "result": None,
        "forfeit": {"seat": None, "kind": "stopped", "reason": "the engine stopped the game"},
    }


_pool_lock = threading.Lock()
_idle: dict[PoolKey, list[_Session]] = {}


def _spawn(key: PoolKey) -> _Session:
    argv, cwd, env = key
    try:
        proc = LineProcess(argv, cwd=cwd, env=None if env is None else dict(env))
    except OSError as err:
        raise ExecBotError(f"cannot start the bot {cut(shlex.join(argv))!r}: {err}") from None
    session = _Session(key, proc)
    with contextlib.suppress(OSError, TimeoutError, ProcessGone):
        # Into an empty pipe: it does not wait. A process that is gone already says so at hello.
        session.send(hello_message(ENGINE), time.monotonic() + 1.0)
    return session


def _checkout(key: PoolKey) -> _Session:
    """An idle process of ``key`` that is still running, or a new one."""
    with _pool_lock:
        idle = _idle.get(key, [])
        while idle:
            session = idle.pop()
            if session.proc.alive:
                return session
            session.kill()
    return _spawn(key)


def _checkin(session: _Session) -> None:
    if not session.proc.alive or not session.ready:
        session.kill()
        return
    with _pool_lock:
        _idle.setdefault(session.key, []).append(session)


def close_pool() -> None:
    """Kill every idle process of the pool (they are killed at exit anyway)."""
    with _pool_lock:
        sessions = [s for found in _idle.values() for s in found]
        _idle.clear()
    for session in sessions:
        session.proc.stop(_line({"type": "bye"}))


def pool_size() -> int:
    """How many idle processes the pool holds (tests and benchmarks)."""
    with _pool_lock:
        return sum(len(found) for found in _idle.values())


# ---- the bot ------------------------------------------------------------------------------------


@dataclass
class _Game:
    """The game this bot plays, as far as its process knows it."""

    player: int
    game_id: str = ""
    started: bool = False
    sent: int = 0
    """Events of the seat sent so far."""
    decisions: int = 0
    scores: list[int] = field(default_factory=list)


class ExecBot:
    """A protocol bot run as ``command`` (see the module docs).

    ``command`` is a string split like a POSIX shell would (``shlex.split``) or a list of
    arguments. ``move_time``: the most a move may take, in seconds (the loop's own move timer
    may cut it shorter: the bot is told the time it has in each decision). ``pooled``: share
    the process with the other bots of this command in this process (one game at a time); a
    bot with ``pooled=False`` has a process of its own, stopped by :meth:`close`. ``env`` and
    ``cwd`` are the process's (default: this process's)."""

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        move_time: float = DEFAULT_MOVE_TIME,
        start_time: float = START_TIME,
        pooled: bool = True,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        name: str | None = None,
    ) -> None:
        self.command = parse_command(command)
        self.move_time = float(move_time)
        self.start_time = float(start_time)
        self.pooled = pooled
        self.name = name if name is not None else f"exec:{shlex.join(self.command)}"
        env_key = None if env is None else tuple(sorted(env.items()))
        self._key: PoolKey = (self.command, cwd, env_key)
        self._session: _Session | None = None
        self._game: _Game | None = None
        self._seed = 0
        self._dirty = False
        self._lock = threading.RLock()
        self.failures = 0
        """Decisions this bot failed (its process was replaced after each)."""

    def __repr__(self) -> str:
        return f"ExecBot({cut(shlex.join(self.command))!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its command and options (a worker process starts its own process)."""
        argv, cwd, env = self._key
        options = {
            "move_time": self.move_time,
            "start_time": self.start_time,
            "pooled": self.pooled,
            "env": None if env is None else dict(env),
            "cwd": cwd,
            "name": self.name,
        }
        return (_rebuilt, (argv, options))

    @property
    def pid(self) -> int | None:
        """The process id of the bot's process (``None`` when it holds none)."""
        session = self._session
        return None if session is None or not session.proc.alive else session.proc.pid

    @property
    def bot_name(self) -> str:
        """The name the bot gave in its hello (``""`` before it)."""
        session = self._session
        return "" if session is None else session.name

    # ---- lifecycle ----

    def reset(self, seed: int) -> None:
        """A new game, whose bot seed (the ``start`` message's) is ``seed``."""
        with self._lock:
            self._leave_game()
            if self._dirty:  # it gave an illegal move last game: a fresh process for this one
                self._release(keep=False)
            self._seed = seed_arg(seed)
            self._dirty = False

    def start(self, timeout: float | None = None) -> None:
        """Have a greeted process ready (start one and take its hello, within ``timeout``
        seconds, default :attr:`start_time`): the loops call it before the game, outside the
        move time. :class:`ExecBotError` saying why not; the process is then killed."""
        with self._lock:
            deadline = time.monotonic() + (self.start_time if timeout is None else timeout)
            self._ready(deadline)

    def spawn(self) -> None:
        """Start a process now if the bot holds none, without waiting for its hello (it gets
        ready while the game goes on)."""
        with self._lock:
            if self._session is None:
                self._session = _checkout(self._key) if self.pooled else _spawn(self._key)

    def close(self) -> None:
        """Done with this bot: its process goes back to the pool (``pooled``) or is stopped."""
        with self._lock:
            self._leave_game()
            self._release(keep=self.pooled)

    def _ready(self, deadline: float) -> _Session:
        self.spawn()
        session = self._session
        assert session is not None
        try:
            session.hello(deadline)
        except TimeoutError:
            self._drop()
            raise ExecBotError(
                f"the bot did not say hello within {self.start_time:g} s of its start"
            ) from None
        except (ProcessGone, BadLine) as err:
            self._drop()
            raise ExecBotError(f"the bot could not start: {err}") from None
        except ExecBotError:
            self._drop()
            raise
        except BaseException:
            self._drop()
            raise
        return session

    def _drop(self) -> None:
        """Kill the bot's process (it failed); a fresh one plays from the next call."""
        session, self._session = self._session, None
        if session is not None:
            session.kill()
        if self._game is not None:
            self._game.started = False

    def _release(self, keep: bool) -> None:
        session, self._session = self._session, None
        if session is None:
            return
        if keep and not self._dirty:
            _checkin(session)
        elif session.proc.alive:
            with _no_alarm():
                session.proc.stop(_line({"type": "bye"}))

    def _leave_game(self) -> None:
        """The game is left before its end: its process ends it (``stopped``) before its next."""
        game, self._game = self._game, None
        if game is not None and game.started and self._session is not None:
            self._session.unfinished = (game.game_id, game.scores)

    # ---- a decision ----

    def _time_left(self) -> float:
        left = self.move_time
        if threading.current_thread() is threading.main_thread() and hasattr(signal, "getitimer"):
            remaining = signal.getitimer(signal.ITIMER_REAL)[0]
            if remaining > 0:  # the loop's move timer is running: its bound is the bot's
                left = min(left, remaining)
        return max(left, 0.0)

    def __call__(self, seat: Any, player: int, /) -> int | str:
        """The bot's move for ``player``, the seat to move: an action id or a notation."""
        with self._lock:
            view = _as_seat(seat, player)
            me = view.player
            if view.current_player != me:
                raise ExecBotError(
                    f"asked to move for seat {me}, but seat {view.current_player} is to move"
                )
            game = self._game
            if game is None or game.player != me:
                if game is not None:  # another seat: a new game for this bot
                    self._leave_game()
                game = self._game = _Game(me)
            session = self._ready(time.monotonic() + self.start_time)
            left = self._time_left()
            deadline = time.monotonic() + left
            try:
                return self._decide(session, game, view, left, deadline)
            except TimeoutError:
                self._fail()
                raise MoveTimeout from None
            except BotResigned:
                self.failures += 1
                raise
            except ProtocolError as err:
                self._fail()
                raise ExecBotError(_reason(f"sent a line the protocol refuses: {err}")) from None
            except (ProcessGone, BadLine, ExecBotError) as err:
                self._fail()
                raise ExecBotError(_reason(str(err))) from None
            except BaseException:  # the move timer, Ctrl-C: the conversation is cut mid-way
                self._fail()
                raise

    def _fail(self) -> None:
        self.failures += 1
        with _no_alarm():
            self._drop()

    def _begin(self, session: _Session, game: _Game, view: Any, deadline: float) -> None:
        session.close_unfinished(deadline)
        session.games += 1
        session.proc.new_game()
        game.game_id = f"g-{session.games}"
        start = start_message(
            game_id=game.game_id,
            game=spec_of(view).name,
            rules=spec_of(view).rules_dict(view.rules),
            players=view.players,
            seat=game.player,
            seed=self._seed,
            move_time_ms=int(self.move_time * 1000),
        )
        session.send(start, deadline)
        game.started = True
        game.sent = 0

    def _decide(
        self, session: _Session, game: _Game, view: Any, left: float, deadline: float
    ) -> int | str:
        if not game.started:
            self._begin(session, game, view, deadline)
        if session.proc.has_unread():
            raise ExecBotError("sent a line before it was asked anything (one answer a message)")
        events = list(view.events())
        game.decisions += 1
        game.scores = list(view.scores)
        message = decision_message(
            game_id=game.game_id,
            decision=game.decisions,
            seat=view,
            events=events[game.sent :],
            time_left_ms=int(left * 1000),
        )
        session.send(message, deadline)
        game.sent = len(events)
        legal = message["legal"]
        asks = 0
        while True:
            answer: Mapping[str, Any] = read_bot_message(
                session.proc.read_line(deadline, MAX_ANSWER_BYTES)
            )
            kind = answer["type"]
            if kind in ("move", "ask", "resign"):
                said = answer.get("game_id")
                if said != game.game_id:
                    raise ExecBotError(
                        f"sent a {kind} for the game {cut(str(said))!r}; this game is "
                        f"{game.game_id!r}"
                    )
            if kind == "move":
                return self._move(answer, legal)
            if kind == "ask":
                asks += 1
                if asks > MAX_ASKS:
                    raise ExecBotError(f"asked more than {MAX_ASKS} times in one decision")
                value = self._ask(view, answer, deadline)
                reply = {"type": "answer", "game_id": game.game_id, "ask": answer["ask"]}
                reply["value"] = value
                session.send(reply, deadline)
                continue
            if kind == "resign":
                raise BotResigned(str(answer.get("kind", "exception")), str(answer["reason"]))
            raise ExecBotError(
                f"sent a {kind!r} message in a decision, where it answers a move (or asks)"
            )

    def _move(self, answer: Mapping[str, Any], legal: list[dict[str, Any]]) -> int | str:
        if "id" in answer:
            action = int(answer["id"])
            if all(m["id"] != action for m in legal):
                self._dirty = True  # an illegal move: the loop refuses it; a fresh process next
            return action
        return str(answer["notation"])

    def _ask(self, view: Any, ask: Mapping[str, Any], deadline: float) -> Any:
        try:
            return answer_value(view, ask, deadline - time.monotonic())
        except AskRefused as err:
            raise ExecBotError(str(err)) from None

    # ---- the end ----

    def game_over(self, seat: Any, forfeit: Mapping[str, Any] | None = None) -> None:
        """The game ended (``seat``: this bot's seat object, or the game): the bot is sent the
        result and the events it had not seen, and its process goes back to the pool.
        ``forfeit`` (``{"seat", "kind", "reason"}``) when a seat's failure ended the game; one of
        this bot's seat, or any end of a bot that had given an illegal move, replaces its
        process."""
        with self._lock:
            game, self._game = self._game, None
            session = self._session
            if game is None or session is None or not session.ready:
                self._release(keep=self.pooled)
                return
            view = _as_seat(seat, game.player)
            ours = forfeit is not None and forfeit.get("seat") == game.player
            if ours:
                self._dirty = True
            stop = dict(forfeit) if forfeit is not None else None
            if stop is None and not view.is_over:
                stop = {"seat": None, "kind": "stopped", "reason": "the engine stopped the game"}
            deadline = time.monotonic() + min(self.move_time, _END_SECONDS)
            try:
                if not game.started:
                    self._begin(session, game, view, deadline)
                events = list(view.events())
                message = end_message(
                    game_id=game.game_id, seat=view, events=events[game.sent :], forfeit=stop
                )
                session.send(message, deadline)
            except (OSError, TimeoutError, ProcessGone, ExecBotError):
                self._dirty = True
            self._release(keep=self.pooled)


def _rebuilt(argv: tuple[str, ...], options: dict[str, Any]) -> ExecBot:
    return ExecBot(argv, **options)


def _reason(text: str) -> str:
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS] + "…"
