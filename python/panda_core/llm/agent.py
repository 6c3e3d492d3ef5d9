"""An LLM as a bot: :class:`LlmBot`, the entrant ``llm:MODEL`` (docs/llm_agents.md).

A decision is one conversation with the model (:mod:`panda_core.llm.prompt`): the seat's state
and its legal moves, the model's answer read strictly (:mod:`panda_core.llm.answer`), and, when
the answer names no legal move or the request fails, a retry that says what was wrong, at most
``max_retries`` times. A seat that still has no move ends the documented way: it forfeits the
game (:class:`~panda_core.llm.errors.LlmForfeit`, the default) or, with
``on_failure="fallback:BOT"``, the built-in bot ``BOT`` moves for it, and every such move is
counted and listed in the telemetry. No move is ever made for the model silently.
"""

from __future__ import annotations

import importlib.util
import time
from typing import TYPE_CHECKING, Any

from panda_core._core import nth_output
from panda_core.llm.answer import read_answer
from panda_core.llm.errors import LlmError, LlmForfeit, LlmSpecError
from panda_core.llm.options import DEFAULTS, PREFIX, LlmOptions, make_options, parse_spec
from panda_core.llm.prompt import decision, illegal_retry, unparsable_retry
from panda_core.llm.telemetry import MAX_NOTES, Telemetry

if TYPE_CHECKING:
    from panda_core.llm.client import Reply

__all__ = ["MAX_BACKOFF_WAIT", "LlmBot", "check_llm_spec", "llm_bot_from_spec"]

MAX_BACKOFF_WAIT = 30.0
"""Longest wait before asking again after a failed request (seconds)."""
_KEPT_ANSWER_CHARS = 4000
"""How much of a refused answer goes back to the model in a retry (the conversation stays
bounded)."""
_SLEEP_STEP = 0.25


def _sleep(seconds: float) -> None:
    """A wait in short steps (Ctrl-C is seen within one)."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(_SLEEP_STEP, left))


class LlmBot:
    """A bot that asks ``model`` at an OpenAI-compatible endpoint for every move.

    ``base_url`` (default ``OPENAI_BASE_URL``, else OpenAI's) and ``api_key`` (default
    ``OPENAI_API_KEY``; none is sent without one) say where; ``timeout`` bounds each request in
    seconds, ``max_retries`` the requests after a decision's first, ``concurrency`` the requests
    to the endpoint at once from all processes on this machine; ``temperature`` and
    ``max_tokens`` are sent when given; ``on_failure`` is ``"forfeit"`` or ``"fallback:BOT"``;
    ``backoff`` is the first wait before asking again after a failed request (doubled each time,
    or the server's ``Retry-After``). The key is shown nowhere (``repr``, telemetry, messages).

    Call it as a bot: ``bot(seat, player)`` returns the chosen move's notation. ``reset(seed)``
    starts a game's telemetry, ``game_over(seat)`` ends it, :meth:`telemetry` gives it.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = DEFAULTS["timeout"],
        max_retries: int = DEFAULTS["max_retries"],
        concurrency: int = DEFAULTS["concurrency"],
        temperature: float | None = DEFAULTS["temperature"],
        max_tokens: int | None = DEFAULTS["max_tokens"],
        on_failure: str = DEFAULTS["on_failure"],
        backoff: float = DEFAULTS["backoff"],
    ) -> None:
        options = make_options(
            model,
            base_url=base_url,
            api_key=api_key,
            timeout=timeout,
            max_retries=max_retries,
            concurrency=concurrency,
            temperature=temperature,
            max_tokens=max_tokens,
            on_failure=on_failure,
            backoff=backoff,
        )
        self._setup(options)

    @classmethod
    def from_options(cls, options: LlmOptions) -> LlmBot:
        bot = cls.__new__(cls)
        bot._setup(options)
        return bot

    def _setup(self, options: LlmOptions) -> None:
        self.options = options
        self.name = f"{PREFIX}{options.model}"
        self._seed = 0
        self._decision = 0
        self._over = False
        self._telemetry = self._fresh()

    def _fresh(self) -> Telemetry:
        o = self.options
        return Telemetry(model=o.model, endpoint=o.endpoint, on_failure=o.on_failure)

    def __repr__(self) -> str:
        o = self.options
        return f"LlmBot({o.model!r}, endpoint={o.endpoint!r}, on_failure={o.on_failure!r})"

    # ---- the bot protocol --------------------------------------------------------------------

    def reset(self, seed: int) -> None:
        """A new game: its telemetry starts from zero; ``seed`` seeds the fallback bot."""
        self._seed = int(seed) % 2**64
        self._decision = 0
        self._over = False
        self._telemetry = self._fresh()

    def game_over(self, seat: Any = None) -> None:
        """The game ended: its telemetry stays readable until the next game starts."""
        self._over = True

    def close(self) -> None:
        """Nothing to release: the connections are the process's (``client.close_clients``)."""

    def telemetry(self) -> dict[str, Any]:
        """This game's telemetry (the last game's, once it is over): a JSON-ready dict."""
        return self._telemetry.as_dict()

    def __call__(self, seat: Any, player: int | None = None) -> str:
        """The notation of the move the model chose for ``seat`` (the seat to move)."""
        if self._over:  # a loop that does not reset: a new game's telemetry all the same
            self.reset(self._seed)
        who = int(seat.player if player is None else player)
        if seat.current_player != who:
            raise LlmError(f"{self.name} was asked to move for seat {who}, which is not to move")
        number = self._decision
        self._decision += 1
        self._telemetry.decisions += 1
        return self._decide(seat, who, number)

    # ---- one decision ------------------------------------------------------------------------

    def _decide(self, seat: Any, who: int, number: int) -> str:
        from panda_core.llm.client import ChatFailure, chat  # httpx: the llm extra

        t = self._telemetry
        o = self.options
        prompt = decision(seat, who)
        messages = prompt.messages()
        last_kind, last_detail = "error", "no request was made"
        failed_requests = 0
        for attempt in range(1 + o.max_retries):
            if attempt:
                t.retries += 1
            t.requests += 1
            try:
                reply: Reply = chat(o, messages)
            except ChatFailure as failure:
                t.latency_s += failure.seconds
                t.latency_max_s = max(t.latency_max_s, failure.seconds)
                last_kind = "timeout" if failure.kind == "timeout" else "error"
                last_detail = failure.message
                if last_kind == "timeout":
                    t.timeouts += 1
                else:
                    t.errors += 1
                if failure.status is not None:
                    key = str(failure.status)
                    t.http_status[key] = t.http_status.get(key, 0) + 1
                t.note(number, failure.kind, failure.message)
                if not failure.retryable:
                    break
                if attempt < o.max_retries:
                    wait = o.backoff * 2**failed_requests
                    if failure.retry_after is not None:
                        wait = failure.retry_after
                    failed_requests += 1
                    _sleep(min(wait, MAX_BACKOFF_WAIT))
                continue
            t.latency_s += reply.seconds
            t.latency_max_s = max(t.latency_max_s, reply.seconds)
            t.slot_wait_s += reply.waited
            t.prompt_tokens += reply.prompt_tokens
            t.completion_tokens += reply.completion_tokens
            if not reply.usage:
                t.usage_missing += 1
            answer = read_answer(reply.text, prompt.notations)
            if answer.kind == "move":
                assert answer.index is not None
                return prompt.notations[answer.index]
            messages = [
                *messages,
                {"role": "assistant", "content": reply.text[:_KEPT_ANSWER_CHARS]},
            ]
            if answer.kind == "illegal":
                t.illegal += 1
                last_kind = "illegal"
                last_detail = f"the answer named {answer.detail}, which is not a legal move"
                retry = illegal_retry(answer.detail, prompt.listing)
                messages.append({"role": "user", "content": retry})
            else:
                t.unparsable += 1
                last_kind = "unparsable"
                last_detail = f"the answer could not be read: {answer.detail}"
                messages.append({"role": "user", "content": unparsable_retry(answer.detail)})
            t.note(number, answer.kind, answer.detail)
        return self._failed(seat, number, last_kind, o.hide(last_detail))

    def _failed(self, seat: Any, number: int, kind: str, detail: str) -> str:
        """The end of a decision without a move from the model: a forfeit, or the fallback
        bot's move (counted and listed)."""
        t = self._telemetry
        why = f"{kind}: {detail}"
        fallback = self.options.fallback
        if fallback is None:
            reason = f"{self.name} gave no legal move for its decision {number} ({kind}): {detail}"
            t.forfeit = {"decision": number, "kind": kind, "reason": reason}
            raise LlmForfeit(reason, kind)
        move = seat.bot_move(fallback, seed=nth_output(self._seed, number))
        notation = str(move.notation)
        t.fallbacks += 1
        if len(t.fallback_moves) < MAX_NOTES:
            t.fallback_moves.append({"decision": number, "move": notation, "why": why})
        return notation


def llm_bot_from_spec(text: str) -> LlmBot:
    """The bot of an ``llm:MODEL[?options]`` spec (:mod:`panda_core.llm.options`)."""
    return LlmBot.from_options(parse_spec(text))


def check_llm_spec(text: str) -> None:
    """Check an ``llm:`` spec without making a request: :class:`~panda_core.llm.errors.LlmSpecError`
    (a ``PandaCoreError``) naming what is wrong (an option, or the ``llm`` extra not installed),
    ``TypeError`` for text that is no str."""
    parse_spec(text)
    if importlib.util.find_spec("httpx") is None:
        raise LlmSpecError(
            "an llm: entrant needs httpx, the llm extra: pip install 'panda-core[llm]'"
        )
