"""The worker process of a contained Python bot (:mod:`panda_core.table.bot_process`).

It imports the bot named by an import path and answers one JSON line per request on a private
copy of its original stdout: ``{"move": id_or_notation}`` or ``{"error": reason}``. The bot's own
stdout goes to stderr and its stdin is ``/dev/null``, so nothing the bot prints or reads touches
the conversation. The process dies with its parent (:func:`panda_core._worker.die_with_parent`).

Requests (one JSON object a line): first ``{"path", "reset"}``, answered ``{"ready": true}`` or
``{"error": …}``; then ``{"game", "record", "seat"}`` — the game is rebuilt from its record by
the engine's ``from_json`` and the bot gets that game (the same information a clone gave it).
"""

from __future__ import annotations

import json
import os
from typing import IO, Any

from panda_core._worker import die_with_parent


def _send(out: int, message: dict[str, Any]) -> None:
    data = (json.dumps(message) + "\n").encode()
    while data:
        data = data[os.write(out, data) :]


def _answer(bot: Any, request: dict[str, Any]) -> dict[str, Any]:
    from panda_core._registry import spec
    from panda_core.bot_answer import plain_move, refusal_reason
    from panda_core.bot_move import MoveRefused, ask_move

    game = spec(request["game"]).game_class.from_json(request["record"])
    try:
        # sys.exit() and KeyboardInterrupt too are the bot's failure: this process is its own.
        move = ask_move(
            bot,
            game,
            request["seat"],
            take=plain_move,
            failures=(BaseException,),
            describe=refusal_reason,
        )
    except MoveRefused as refused:
        return {"error": refused.reason}
    return {"move": move}


def _start(hello: dict[str, Any]) -> Any:
    from panda_core.bot_import import load_bot

    bot = load_bot(hello["path"])
    reset = getattr(bot, "reset", None)
    if hello.get("reset") is not None and callable(reset):
        reset(hello["reset"])
    return bot


def main(parent: int) -> None:
    """Serve the parent (pid ``parent``) until it closes the requests or dies."""
    die_with_parent(parent)
    requests: IO[bytes] = os.fdopen(os.dup(0), "rb")
    out = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the bot reads nothing of the conversation
    os.dup2(2, 1)  # and what it prints goes to stderr
    from panda_core.bot_answer import describe_failure

    line = requests.readline()
    if not line:
        return
    try:
        bot = _start(json.loads(line))
    except BaseException as err:
        text = str(err) if isinstance(err, Exception) else describe_failure(err)
        _send(out, {"error": text})
        return
    _send(out, {"ready": True})
    for line in requests:
        _send(out, _answer(bot, json.loads(line)))
