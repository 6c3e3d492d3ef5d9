"""Self-play decisions as chat examples for fine-tuning (docs/llm_agents.md, "The chat export").

Each decision of a self-play dataset (docs/selfplay.md) becomes one JSON line::

    {"messages": [{"role": "system", "content": "<the rules, the format>"},
                  {"role": "user", "content": "<the seat's state and legal moves>"},
                  {"role": "assistant", "content": "MOVE: <the notation played>"}]}

the prompt an ``llm:`` seat would have been shown at that decision and the move the bot chose.
A row holds no seat state (only its observation's numbers), so each episode is replayed move by
move with the engine from its deal, and the prompt is built from the seat to move at each step
(``game.seat(player)``) by :func:`panda_core.llm.prompt.decision`: no prompt holds a card that
seat could not know. The dataset is read through :mod:`panda_core.selfplay.reader`, which checks
every shard (nothing is unpickled), and every row is checked to replay: its seat is the seat to
move and its action is legal.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panda_core._args import shown
from panda_core._registry import AnyGame, GameSpec, spec
from panda_core.llm.errors import LlmError
from panda_core.llm.prompt import decision

__all__ = ["ANSWER_PREFIX", "ExportInfo", "chat_example", "export_chat"]

ANSWER_PREFIX = "MOVE: "
"""What the assistant's message says before the move's notation."""


@dataclass(frozen=True)
class ExportInfo:
    """What :func:`export_chat` wrote."""

    path: str
    game: str
    decisions: int
    """Lines written (one per decision)."""
    episodes: int
    """Episodes the lines come from (the last may be cut short by ``limit``)."""


def chat_example(seat: Any, player: int, notation: str) -> dict[str, Any]:
    """The chat example of one decision: ``seat``'s prompt and ``notation`` as the answer."""
    prompt = decision(seat, player)
    if notation not in prompt.notations:
        raise LlmError(f"{notation!r} is not a legal move of seat {player} here")
    return {
        "messages": [
            *prompt.messages(),
            {"role": "assistant", "content": f"{ANSWER_PREFIX}{notation}"},
        ]
    }


def _seat(game: AnyGame, player: int) -> Any:
    """The seat object of ``player`` (the game itself, asked for ``player``, before seats)."""
    make = getattr(game, "seat", None)
    return make(player) if callable(make) else game


def _rules(game: GameSpec, settings: dict[str, Any]) -> Any:
    options = dict(settings.get("rules") or {})
    options.pop("preset", None)  # the game's name says it
    return game.rules(**options)


def _settings(path: str | os.PathLike[str]) -> dict[str, Any]:
    from panda_core.selfplay.reader import load
    from panda_core.selfplay.schema import settings_of

    settings = settings_of(load(path).schema)
    if not settings or not isinstance(settings.get("game"), str):
        raise LlmError(f"{os.fspath(path)}: the shards hold no self-play settings")
    return settings


def _rows(path: str | os.PathLike[str], columns: list[str]) -> Iterator[dict[str, int]]:
    from panda_core.selfplay.reader import iter_batches

    for batch in iter_batches(path, columns=columns):
        arrays = [batch[c].tolist() for c in columns]
        for values in zip(*arrays, strict=True):
            yield dict(zip(columns, (int(v) for v in values), strict=True))


def _chosen(game: AnyGame, row: dict[str, int], where: str) -> Any:
    """The move a row records, among the legal moves now (``LlmError`` if it is none)."""
    moves: list[Any] = list(game.legal_moves())
    if "move_index" in row:
        k = row["move_index"]
        if not 0 <= k < len(moves):
            raise LlmError(f"{where}: move_index {k} is not one of the {len(moves)} legal moves")
        return moves[k]
    found = [m for m in moves if game.action_index(m) == row["action"]]
    if len(found) != 1:
        raise LlmError(f"{where}: action {row['action']} is not a legal move here")
    return found[0]


def export_chat(
    selfplay_dir: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    limit: int | None = None,
) -> ExportInfo:
    """Write the decisions of the self-play dataset in ``selfplay_dir`` to ``out`` as chat JSON
    lines (see the module docs), at most ``limit`` of them (``None``: all), in the dataset's
    order. ``out`` is written whole or not at all (a temporary file renamed at the end).

    ``DatasetError`` (from the reader) for a dataset that does not check, :class:`LlmError` for
    a row that does not replay."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise TypeError(f"limit is an int >= 0 or None, got {shown(limit)}")
    if not isinstance(out, str | os.PathLike):
        raise TypeError(f"out is a file path, got {shown(out)}")
    settings = _settings(selfplay_dir)
    game = spec(settings["game"])
    rules = _rules(game, settings)
    players = int(settings["players"])
    columns = ["episode", "deal", "step", "seat", "action"]
    if game.move_features:
        columns.append("move_index")
    target = Path(out)
    # A name of our own (not mkstemp's), so the file gets the usual permissions (the umask's);
    # unique per process and call.
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    written = episodes = 0
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as sink:
            current: AnyGame | None = None
            episode = step = -1
            for row in _rows(selfplay_dir, columns) if limit != 0 else ():
                where = f"episode {row['episode']}, step {row['step']}"
                if row["episode"] != episode:
                    episode, step = row["episode"], 0
                    current = game.new_game(players, row["deal"], rules)
                    episodes += 1
                assert current is not None
                player = row["seat"]
                if row["step"] != step or current.current_player != player:
                    raise LlmError(
                        f"{where}: the dataset does not replay (seat {player} is recorded to "
                        f"move, the game has seat {current.current_player} to move)"
                    )
                move = _chosen(current, row, where)
                example = chat_example(_seat(current, player), player, str(move.notation))
                sink.write(json.dumps(example, ensure_ascii=False) + "\n")
                current.apply(move)
                step += 1
                written += 1
                if limit is not None and written >= limit:
                    break
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return ExportInfo(os.fspath(target), game.name, written, episodes)
