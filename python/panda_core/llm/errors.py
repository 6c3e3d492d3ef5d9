"""The errors of the LLM entrants (docs/llm_agents.md).

Every message is written here or by the modules of this package from values they checked; none
quotes an API key (the options hold it in a :class:`~panda_core.llm.options.Secret`, and every
message that could carry text from elsewhere goes through
:meth:`~panda_core.llm.options.LlmOptions.hide`).
"""

from __future__ import annotations

from panda_core._core import ArgumentError, PandaCoreError

__all__ = ["LlmError", "LlmForfeit", "LlmSpecError"]


class LlmSpecError(ArgumentError):
    """An ``llm:MODEL`` spec or an :class:`~panda_core.llm.agent.LlmBot` option is wrong: the
    message names the option and what it takes."""


class LlmError(PandaCoreError):
    """An LLM entrant could not do what was asked (the export of a dataset that does not replay,
    a seat that gave no legal move)."""


class LlmForfeit(LlmError):
    """The model gave no legal move for a decision after every retry, and the bot's end is
    ``on_failure="forfeit"``: the game loop records the forfeit with this message."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind
        """What the last attempt was: ``"illegal"``, ``"unparsable"``, ``"timeout"`` or
        ``"error"``."""
