"""The built-in bots as Python bot objects (public in :mod:`panda_core.bots`).

A module of its own so that :mod:`panda_core.bot_move`, which asks every bot for its move and
trusts only these, and :mod:`panda_core.bots`, whose game loop asks through it, both build on it.
"""

from __future__ import annotations

from panda_core._args import seed_arg
from panda_core._core import BOT_NAMES, ArgumentError, RulesError, check_bot, mix64, nth_output
from panda_core._registry import AnyGame, AnyMove

__all__ = ["BuiltinBot", "is_builtin_bot", "names_builtin", "names_policy_file"]

GUIDED_PREFIX = "ismcts+neural:"
"""The neural-guided search with a count (``ismcts+neural:N``) or a policy file too
(``ismcts+neural:N:PATH``)."""


def names_builtin(name: str) -> bool:
    """True for text in the built-in bots' grammar, valid or not: one of ``BOT_NAMES``, or
    ``"ismcts:…"`` / ``"neural:…"`` / ``"ismcts+neural:…"``. Such text is never a Python
    import path: a spec that names a built-in bot badly gets the engine's error
    (``check_bot``), not an import error."""
    return name in BOT_NAMES or name.startswith(("ismcts:", "neural:", GUIDED_PREFIX))


def names_policy_file(name: str) -> bool:
    """True for a built-in bot name that names a policy file (``"neural:PATH"``,
    ``"ismcts+neural:N:PATH"``): what a server, or a bot's ask, must never have the engine open."""
    return name.startswith("neural:") or (
        name.startswith(GUIDED_PREFIX) and ":" in name[len(GUIDED_PREFIX) :]
    )


def is_builtin_bot(name: object) -> bool:
    """True for the name of a built-in bot: one of ``BOT_NAMES``, ``"ismcts:N"`` with N in
    the engine's range, or ``"neural:PATH"`` naming a policy file that plays (a file is read
    and checked once). The engine's own parser decides (one grammar for every entry point)."""
    if not isinstance(name, str):
        return False
    try:
        check_bot(name)
    except RulesError:
        return False
    return True


def _check_builtin(name: str) -> str:
    """``name`` if it is a built-in bot, else the engine's ``RulesError`` (it names the built-in
    bots and the iteration range of ``ismcts:N``)."""
    check_bot(name)
    return name


class BuiltinBot:
    """A built-in bot (``"random"``, ``"heuristic"``, ``"ismcts"``, ``"ismcts:N"``,
    ``"neural"``, ``"neural:PATH"``, ``"ismcts+neural"``, ``"ismcts+neural:N"``,
    ``"ismcts+neural:N:PATH"``) as a :class:`~panda_core.bots.Bot`, for any game.

    Each call asks the engine (``game.bot_move``) with a fresh seed
    from the bot's own stream; :meth:`reset` restarts that stream from ``(seed, reset seed)``, so a
    game is reproducible. The engine bots see only what the seat to move may know.
    """

    def __init__(
        self, name: str = "heuristic", seed: int = 0, time_limit: float | None = None
    ) -> None:
        self.name: str = _check_builtin(name)
        self.seed: int = seed_arg(seed)
        self.time_limit = time_limit
        """Seconds a decision may take (``game.bot_move``'s ``time_limit``); ``None``: no bound."""
        self._stream = self.seed
        self._calls = 0

    def reset(self, seed: int) -> None:
        """Restart the bot's random stream for a new game."""
        self._stream = mix64(self.seed ^ seed_arg(seed))
        self._calls = 0

    def next_seed(self) -> int:
        """The seed of the next decision (and advance the stream)."""
        value = nth_output(self._stream, self._calls)
        self._calls += 1
        return value

    def __call__(self, game: AnyGame, player: int, /) -> AnyMove:
        if game.current_player != player:
            raise ArgumentError(
                f"{self.name} was asked to move for seat {player}, but seat "
                f"{game.current_player} is to move"
            )
        return game.bot_move(self.name, self.next_seed(), time_limit=self.time_limit)

    def __repr__(self) -> str:
        return f"BuiltinBot({self.name!r}, seed={self.seed})"
