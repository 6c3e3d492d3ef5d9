"""Python bots named by import path, ``"package.module:attr"``: how the table, the arena and
self-play (and their worker processes) turn the text a user typed into a bot.

The attribute is a callable bot ``bot(game, player)`` or a class whose instances are bots; a class
is instantiated with no arguments. Importing runs the user's code, so any failure there is
reported as the bot's (:class:`BotImportError`), never as a crash.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from panda_core._args import cut, shown
from panda_core._core import ArgumentError, check_bot
from panda_core.bots import Bot, BuiltinBot, is_builtin_bot, names_builtin

__all__ = [
    "BotImportError",
    "bot_spec_kind",
    "import_bot",
    "instantiate_bot",
    "is_bot_path",
    "load_bot",
    "make_bot",
]


class BotImportError(ArgumentError):
    """A Python bot's import path names no bot: a missing module or attribute, an import that
    failed, a class that could not be created, or something that is not callable."""


def is_bot_path(text: str) -> bool:
    """True for text shaped like ``"package.module:attr"`` (not checked for existence)."""
    module_name, sep, attr = text.partition(":")
    return bool(sep and module_name and attr) and not names_builtin(text)


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


def bot_spec_kind(text: str) -> Literal["builtin", "python"] | None:
    """What a bot spec names: ``"builtin"`` for a name the engine's bot parser accepts (text in
    its grammar that it refuses, such as ``"ismcts:0"`` or a ``"neural:PATH"`` whose file does
    not play, raises its ``RulesError`` / ``PolicyError``), ``"python"`` for an import path
    (imported now, so a missing module is a :class:`BotImportError` at once rather than in every
    game), ``None`` for neither."""
    if names_builtin(text):
        check_bot(text)
        return "builtin"
    if is_bot_path(text):
        import_bot(text)
        return "python"
    return None


def make_bot(spec: object) -> Bot[Any]:
    """A bot for one game from a seat's spec: a built-in name gives a fresh
    :class:`~panda_core.bots.BuiltinBot`, an import path :func:`load_bot` (a class is
    instantiated afresh, so no state leaks from one game into the next; the module is imported
    once per process), a bot object is itself."""
    if isinstance(spec, str):
        return BuiltinBot(spec) if is_builtin_bot(spec) else load_bot(spec)
    if not callable(spec):
        raise TypeError(f"a bot is a bot spec or a callable bot(game, player), got {shown(spec)}")
    return spec
