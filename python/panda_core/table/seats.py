"""Who sits at a table: people and bots, from the text a user types or a bot object.

A seat is given as

* ``"human"`` or ``"human:NAME"`` — a person, answered through :meth:`Table.play`;
* a built-in bot name (``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ismcts:N"``, ``"neural"``,
  ``"neural:PATH"``, ``"ismcts+neural:N"``), checked by the
  engine's own parser, so every entry point accepts exactly the same names;
* ``"package.module:attr"`` — a Python bot imported by path: a class (instantiated with no
  arguments) or a callable ``bot(seat, player)``. A table imports and runs it in a process of its
  own, through the bot protocol's adapter (:mod:`panda_core.table.bot_process`), never in its
  own process: :func:`parse_seat` only checks that the top-level module can be found, without
  running any of its code;
* ``"exec:COMMAND"`` — a protocol bot in any language (docs/bot_protocol.md), run as a
  subprocess; ``COMMAND`` is split as a POSIX shell would (``shlex.split``), and its program must
  exist;
* ``"llm:MODEL"`` — a language model (docs/llm_agents.md), asked in a thread of the table's
  process (the model is sent the seat's prompt only);
* a bot object (anything callable as ``bot(seat, player)``), run in a thread of the table's
  process.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from typing import Any, Literal

from panda_core._args import cut, int_arg, shown
from panda_core._core import ArgumentError, check_bot
from panda_core.bot_import import (
    EXEC_PREFIX,
    LLM_PREFIX,
    BotImportError,
    exec_command,
    is_bot_path,
    make_bot,
)
from panda_core.bot_import import load_bot as _load_bot
from panda_core.bots import Bot, bot_name, names_builtin
from panda_core.table.errors import TableError

__all__ = ["SeatSpec", "check_seat", "load_bot", "parse_seat"]

SeatKind = Literal["human", "bot"]

_HUMAN = "human"


@dataclass(frozen=True)
class SeatSpec:
    """One seat: a person or a bot, and the name shown to the other players."""

    kind: SeatKind
    name: str
    builtin: str | None = None
    """The built-in bot's name (``"ismcts:200"``), or ``None`` for a person or a Python bot."""
    bot: Bot[Any] | None = field(default=None, compare=False, repr=False)
    """A Python bot object handed to the table; ``None`` otherwise."""
    import_path: str | None = None
    """A Python bot's import path (``"package.module:attr"``), run in a process of its own."""
    command: tuple[str, ...] | None = None
    """A protocol bot's command (``exec:COMMAND``, split), run as a subprocess."""

    @property
    def is_human(self) -> bool:
        return self.kind == "human"

    def public(self) -> dict[str, str]:
        """What every seat may know about this one."""
        return {"kind": self.kind, "name": self.name}


def load_bot(path: str) -> Bot[Any]:
    """The Python bot at ``"package.module:attr"`` (:func:`panda_core.bot_import.load_bot`),
    with a failure reported as a :class:`TableError`."""
    try:
        return _load_bot(path)
    except BotImportError as err:
        raise TableError(str(err)) from err


def parse_seat(seat: object) -> SeatSpec:
    """A :class:`SeatSpec` from what a user gives for a seat (see the module docs)."""
    if isinstance(seat, SeatSpec):
        return seat
    if isinstance(seat, str):
        if seat == _HUMAN:
            return SeatSpec("human", "you")
        if seat.startswith(_HUMAN + ":"):
            name = seat[len(_HUMAN) + 1 :].strip()
            if not name or len(name) > 40 or not name.isprintable():
                raise TableError(
                    f"a person's name is 1 to 40 printable characters, got {cut(seat)!r}"
                )
            return SeatSpec("human", name)
        if seat.startswith(EXEC_PREFIX):
            try:
                command = exec_command(seat)
            except ArgumentError as err:
                raise TableError(str(err)) from None
            return SeatSpec("bot", seat, command=command)
        if seat.startswith(LLM_PREFIX):  # the model's bot runs here (it sends a prompt only)
            try:
                return SeatSpec("bot", seat, bot=make_bot(seat))
            except ArgumentError as err:
                raise TableError(str(err)) from None
        if names_builtin(seat):
            check_bot(seat)  # the engine's message for 'ismcts:0' or a policy file that fails
            return SeatSpec("bot", seat, builtin=seat)
        if is_bot_path(seat):
            _check_findable(seat)
            return SeatSpec("bot", seat, import_path=seat)
        raise TableError(
            f"unknown seat {cut(seat)!r}: a seat is 'human', 'human:NAME', a built-in bot "
            "('random', 'heuristic', 'ismcts', 'ismcts:N', 'neural', 'neural:PATH', "
            "'ismcts+neural:N'), a protocol "
            "bot 'exec:COMMAND' or a Python bot 'package.module:attr'"
        )
    if callable(seat):
        return SeatSpec("bot", bot_name(seat), bot=seat)
    raise TypeError(f"a seat is a string or a bot callable as bot(game, player), got {shown(seat)}")


def _check_findable(path: str) -> None:
    """Refuse an import path whose top-level module does not exist, without importing it (an
    import runs the module's code, which only the bot's worker process may run)."""
    top = path.partition(":")[0].split(".")[0]
    try:
        found = importlib.util.find_spec(top)
    except (ImportError, ValueError) as err:
        raise TableError(f"cannot import the bot module {cut(top)!r}: {err}") from err
    if found is None:
        raise TableError(
            f"cannot import the bot module {cut(top)!r}: no module named {cut(top)!r} "
            "(a Python bot is 'package.module:attr', importable from the current directory)"
        )


def check_seat(seat: object, players: int) -> int:
    """``seat`` as a seat of a ``players``-seat table (``TypeError`` / ``TableError``)."""
    s = int_arg(seat, "seat")
    if not 0 <= s < players:
        raise TableError(f"seats are 0..{players - 1}, got {s}")
    return s
