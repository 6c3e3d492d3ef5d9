"""Bot specs: how the table, the arena, self-play and ``simulate`` (and their worker processes)
turn the text a user typed into a bot. One parser for every entry point:

* a built-in bot's name (``"heuristic"``, ``"ismcts:200"``, ``"neural:PATH"``), checked by the
  engine's own parser;
* ``"exec:COMMAND"`` — a bot in any language, run as a subprocess speaking the bot protocol
  (:class:`panda_core.protocol.exec_bot.ExecBot`; docs/bot_protocol.md). ``COMMAND`` is split as
  a POSIX shell would (``shlex.split``): ``"exec:python3 my_bot.py"``,
  ``'exec:node "my bot.js" --fast'``;
* ``"llm:MODEL"`` — a language model behind an OpenAI-compatible endpoint
  (:mod:`panda_core.llm.agent`; docs/llm_agents.md);
* ``"package.module:attr"`` — a Python bot by import path: a callable bot ``bot(seat, player)``
  or a class whose instances are bots (instantiated with no arguments). Importing runs the user's
  code, so any failure there is reported as the bot's (:class:`BotImportError`), never as a
  crash. :func:`contained_bot` runs one in a process of its own, through the protocol's Python
  adapter (``python -m panda_core.protocol.adapter package.module:attr``).

The prefixes ``exec:`` and ``llm:`` are the protocol's: a Python module named ``exec`` or
``llm`` cannot be named by path.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from typing import TYPE_CHECKING, Any, Literal

from panda_core._args import cut, shown
from panda_core._core import ArgumentError, check_bot
from panda_core.bots import Bot, BuiltinBot, is_builtin_bot, names_builtin

if TYPE_CHECKING:
    from panda_core.protocol.exec_bot import ExecBot

__all__ = [
    "ADAPTER_MODULE",
    "EXEC_PREFIX",
    "LLM_PREFIX",
    "REST_OF_TEXT",
    "BotImportError",
    "BotSpecKind",
    "adapter_command",
    "bot_spec_kind",
    "contained_bot",
    "exec_command",
    "import_bot",
    "instantiate_bot",
    "is_bot_path",
    "load_bot",
    "make_bot",
    "takes_rest",
]

EXEC_PREFIX = "exec:"
"""A protocol bot run as a subprocess: ``exec:COMMAND``."""
LLM_PREFIX = "llm:"
"""A language model: ``llm:MODEL``."""
REST_OF_TEXT = ("neural:", EXEC_PREFIX)
"""Specs that take the rest of a comma-separated list (a path, a command: commas included), in
every list of bots a command line takes (``-e`` of the arena, ``--bots``); with
``ismcts+neural:N:PATH`` (:func:`takes_rest`)."""
_GUIDED_PATH = re.compile(r"ismcts\+neural:\d+:")
"""The guided search with a policy file: the path after the count is the rest of the text."""


def takes_rest(spec: str) -> bool:
    """Whether ``spec`` (stripped) names a path or a command, so it takes the rest of a
    comma-separated list of bots, commas included."""
    return spec.startswith(REST_OF_TEXT) or _GUIDED_PATH.match(spec) is not None


ADAPTER_MODULE = "panda_core.protocol.adapter"
"""The protocol bot that plays a Python bot in a process of its own."""

BotSpecKind = Literal["builtin", "python", "exec", "llm"]


class BotImportError(ArgumentError):
    """A Python bot's import path names no bot: a missing module or attribute, an import that
    failed, a class that could not be created, or something that is not callable."""


def is_bot_path(text: str) -> bool:
    """True for text shaped like ``"package.module:attr"`` (not checked for existence)."""
    if text.startswith((EXEC_PREFIX, LLM_PREFIX)):
        return False
    module_name, sep, attr = text.partition(":")
    return bool(sep and module_name and attr) and not names_builtin(text)


def exec_command(text: str) -> tuple[str, ...] | None:
    """The command of an ``exec:COMMAND`` spec, split (``ArgumentError`` for one that does not
    split, is empty or names no program that exists); ``None`` for any other text."""
    if not text.startswith(EXEC_PREFIX):
        return None
    from panda_core.protocol.exec_bot import check_command

    return check_command(text[len(EXEC_PREFIX) :])


def _search_path() -> list[str]:
    """This process's import path, as a child's ``PYTHONPATH`` (the current folder by name)."""
    out = []
    for entry in sys.path:
        if isinstance(entry, str):
            out.append(entry or os.getcwd())
    return out


def adapter_command(path: str) -> tuple[str, ...]:
    """The command that plays the Python bot at import path ``path`` over the protocol."""
    return (sys.executable, "-m", ADAPTER_MODULE, path)


def contained_bot(path: str, **options: Any) -> ExecBot:
    """The Python bot at import path ``path`` in a process of its own that holds only its seat's
    messages (the protocol's adapter; it imports the bot as this process would). ``options``
    are :class:`~panda_core.protocol.exec_bot.ExecBot`'s."""
    from panda_core.protocol.exec_bot import ExecBot

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(_search_path())
    options.setdefault("name", path)
    return ExecBot(adapter_command(path), env=env, **options)


def import_bot(path: str) -> Any:
    """The object at ``"package.module:attr"`` (``attr`` may be dotted): a bot class or a callable
    bot, not yet instantiated."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise BotImportError(f"a Python bot is 'package.module:attr', got {cut(path)!r}")
    try:
        module = importlib.import_module(module_name)
    except Exception as err:  # an import runs user code: any failure is the bot's
        raise BotImportError(f"cannot import the bot module {cut(module_name)!r}: {err}") from err
    target: Any = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError as err:
            raise BotImportError(f"{cut(module_name)!r} has no attribute {cut(attr)!r}") from err
    if not callable(target):
        raise BotImportError(f"{cut(path)!r} is not a bot: a bot is callable as bot(game, player)")
    return target


def instantiate_bot(target: Any, path: str) -> Bot[Any]:
    """A bot from what :func:`import_bot` found: an instance of a class, the callable itself."""
    if isinstance(target, type):
        try:
            target = target()
        except Exception as err:
            raise BotImportError(f"cannot create the bot {cut(path)!r}: {err}") from err
        if not callable(target):
            raise BotImportError(
                f"{cut(path)!r} makes objects that are not bots: a bot is callable as "
                "bot(game, player)"
            )
    return target  # type: ignore[no-any-return]


def load_bot(path: str) -> Bot[Any]:
    """The Python bot at ``"package.module:attr"``: an instance if it names a class, else the
    callable itself. :class:`BotImportError` says what is wrong otherwise."""
    return instantiate_bot(import_bot(path), path)


def bot_spec_kind(text: str) -> BotSpecKind | None:
    """What a bot spec names: ``"builtin"`` for a name the engine's bot parser accepts (text in
    its grammar that it refuses, such as ``"ismcts:0"`` or a ``"neural:PATH"`` whose file does
    not play, raises its ``RulesError`` / ``PolicyError``), ``"exec"`` for ``exec:COMMAND``
    (split and its program found now: ``ArgumentError`` otherwise), ``"llm"`` for
    ``llm:MODEL`` (its options checked now), ``"python"`` for an import path (imported now, so a
    missing module is a :class:`BotImportError` at once rather than in every game), ``None``
    for none of them."""
    if text.startswith(EXEC_PREFIX):
        exec_command(text)
        return "exec"
    if text.startswith(LLM_PREFIX):
        from panda_core.llm.agent import check_llm_spec

        check_llm_spec(text)
        return "llm"
    if names_builtin(text):
        check_bot(text)
        return "builtin"
    if is_bot_path(text):
        import_bot(text)
        return "python"
    return None


def make_bot(spec: object) -> Bot[Any]:
    """A bot for one game from a seat's spec: a built-in name gives a fresh
    :class:`~panda_core.bots.BuiltinBot`, ``exec:COMMAND`` an
    :class:`~panda_core.protocol.exec_bot.ExecBot` (its process comes from the pool of this
    process: started once, reused game after game), ``llm:MODEL`` the language model's bot, an
    import path :func:`load_bot` (in this process; a class is instantiated afresh, so no state
    leaks from one game into the next; the module is imported once per process), a bot object
    is itself."""
    if isinstance(spec, str):
        if spec.startswith(EXEC_PREFIX):
            from panda_core.protocol.exec_bot import ExecBot

            command = exec_command(spec)
            assert command is not None
            return ExecBot(command, name=spec)
        if spec.startswith(LLM_PREFIX):
            from panda_core.llm.agent import llm_bot_from_spec

            return llm_bot_from_spec(spec)
        return BuiltinBot(spec) if is_builtin_bot(spec) else load_bot(spec)
    if not callable(spec):
        raise TypeError(f"a bot is a bot spec or a callable bot(game, player), got {shown(spec)}")
    return spec
