"""The engine's answers to a bot's asks (protocol v1, docs/bot_protocol.md, "Asks"), from the
bot's seat object only: the one implementation every transport (a subprocess, a websocket of
``panda-core serve``) answers with.

* ``observation``: the seat's observation, as a list of floats;
* ``determinize``: the snapshot of a complete game sampled from the seat's information;
* ``bot_move``: a built-in bot's move for the seat, ``{"id", "notation"}``, within the time the
  decision has left. Only the built-in bots by name (``ismcts:N``, ``ismcts+neural:N``
  included): never ``neural:PATH`` or ``ismcts+neural:N:PATH``, which would have the engine open
  a file the bot names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from panda_core._args import cut
from panda_core._builtin_bot import GUIDED_PREFIX, names_policy_file
from panda_core._core import BOT_NAMES, check_bot

__all__ = ["AskRefused", "answer_value"]


class AskRefused(Exception):
    """An ask the engine does not answer (a bot it does not run, values it refuses): the bot's
    game is forfeited with this message."""


def answer_value(seat: Any, ask: Mapping[str, Any], time_left: float) -> Any:
    """The ``value`` of the ``answer`` to ``ask`` (read by ``messages.read_bot_message``) from
    ``seat``, the asking bot's seat; :class:`AskRefused` saying why not."""
    kind = ask["ask"]
    if kind == "bot_move":
        bot = str(ask["bot"])
        named = bot in BOT_NAMES or bot.startswith(("ismcts:", GUIDED_PREFIX))
        if not named or names_policy_file(bot):
            raise AskRefused(
                f"asked for the bot {cut(bot)!r}: a bot_move ask names a built-in bot "
                f"({', '.join(BOT_NAMES)}, ismcts:N or ismcts+neural:N)"
            )
    try:
        if kind == "observation":
            return [float(x) for x in seat.observation().tolist()]
        if kind == "determinize":
            return seat.determinize(int(ask["seed"])).snapshot()
        check_bot(bot)
        move = seat.bot_move(bot, int(ask["seed"]), time_limit=max(0.001, time_left))
    except Exception as err:  # the engine's refusal of the ask's values
        raise AskRefused(f"the engine refused the ask {kind!r}: {err}") from None
    ids = [e["id"] for e in seat.legal_list() if e["notation"] == move.notation]
    return {"id": ids[0] if ids else None, "notation": move.notation}
