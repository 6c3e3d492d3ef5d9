"""What one game of an LLM seat cost and how it went (docs/llm_agents.md, "Telemetry").

:meth:`Telemetry.as_dict` is what ``bot.telemetry()`` and :func:`telemetry_of` give: a plain,
JSON-ready dict of counts, sums and the fallback bot's moves, with the model and the endpoint
(never the key).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FIELDS", "MAX_NOTES", "MAX_TELEMETRY_CHARS", "Telemetry", "telemetry_of"]

MAX_NOTES = 20
"""Most failures kept word for word per game (the counts hold them all)."""
MAX_TELEMETRY_CHARS = 64 << 10
"""Longest telemetry :func:`telemetry_of` gives, as JSON text (a game's is a few kB)."""

FIELDS = (
    "decisions",
    "requests",
    "retries",
    "illegal",
    "unparsable",
    "errors",
    "timeouts",
    "fallbacks",
    "prompt_tokens",
    "completion_tokens",
    "usage_missing",
)
"""The counts of a game, each an int from 0."""


@dataclass
class Telemetry:
    """One game's counts (see :data:`FIELDS`), latencies and notes."""

    model: str
    endpoint: str
    on_failure: str
    decisions: int = 0
    """Decisions the seat was asked for."""
    requests: int = 0
    """Requests sent to the server (every retry is one more)."""
    retries: int = 0
    """Requests after a decision's first."""
    illegal: int = 0
    """Answers that named a move that is not legal."""
    unparsable: int = 0
    """Answers without exactly one readable ``MOVE:`` line."""
    errors: int = 0
    """Requests that failed other than by a timeout: HTTP errors, dropped connections, bodies
    that are not a completion or too large."""
    timeouts: int = 0
    """Requests that ran past the timeout (or found no free concurrency slot in it)."""
    fallbacks: int = 0
    """Decisions the fallback bot made (``on_failure="fallback:BOT"``)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_missing: int = 0
    """Answers that did not say their token counts."""
    latency_s: float = 0.0
    """Seconds of every request, from sending to the last byte of the answer, summed."""
    latency_max_s: float = 0.0
    slot_wait_s: float = 0.0
    """Seconds spent waiting for a concurrency slot, summed."""
    http_status: dict[str, int] = field(default_factory=dict)
    """Failed requests by HTTP status (``{"429": 2}``)."""
    fallback_moves: list[dict[str, Any]] = field(default_factory=list)
    """Each fallback decision: ``{"decision", "move", "why"}`` (the first :data:`MAX_NOTES`)."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    """Each failed request or answer: ``{"decision", "kind", "detail"}`` (the first
    :data:`MAX_NOTES`)."""
    forfeit: dict[str, Any] | None = None
    """``{"decision", "kind", "reason"}`` when the seat forfeited the game, else ``None``."""

    def note(self, decision: int, kind: str, detail: str) -> None:
        if len(self.failures) < MAX_NOTES:
            self.failures.append({"decision": decision, "kind": kind, "detail": detail})

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "model": self.model,
            "endpoint": self.endpoint,
            "on_failure": self.on_failure,
        }
        out.update({name: getattr(self, name) for name in FIELDS})
        out["total_tokens"] = self.prompt_tokens + self.completion_tokens
        out["latency_s"] = round(self.latency_s, 6)
        out["latency_max_s"] = round(self.latency_max_s, 6)
        out["latency_mean_s"] = round(self.latency_s / self.requests, 6) if self.requests else 0.0
        out["slot_wait_s"] = round(self.slot_wait_s, 6)
        out["http_status"] = dict(self.http_status)
        out["fallback_moves"] = [dict(m) for m in self.fallback_moves]
        out["failures"] = [dict(f) for f in self.failures]
        out["forfeit"] = None if self.forfeit is None else dict(self.forfeit)
        return out


def telemetry_of(bot: object) -> dict[str, Any] | None:
    """The current (or last) game's telemetry of an LLM bot, as a plain JSON-ready dict;
    ``None`` for any other bot. Nothing of a bot that is not an
    :class:`~panda_core.llm.agent.LlmBot` (or a subclass) is called; what a subclass's
    ``telemetry()`` gives is copied through JSON (at most :data:`MAX_TELEMETRY_CHARS`
    characters) and is ``None`` if it is not a JSON object."""
    from panda_core.llm.agent import LlmBot

    if not isinstance(bot, LlmBot):
        return None
    try:
        text = json.dumps(bot.telemetry(), allow_nan=False)
    except (TypeError, ValueError):
        return None
    if len(text) > MAX_TELEMETRY_CHARS:
        return None
    data = json.loads(text)
    return data if isinstance(data, dict) else None
