"""``panda-core llm``: the LLM entrants' commands (docs/llm_agents.md).

``panda-core llm export-chat SELFPLAY_DIR OUT.jsonl [--limit N]`` writes a self-play dataset's
decisions as chat examples for fine-tuning (:func:`panda_core.llm.export.export_chat`). Only
argparse and the shared CLI pieces are imported at load time; pyarrow is imported when the
command runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from panda_core._cli_common import INTERRUPTED, Default, UsageError, int_in, keep_default

__all__ = ["register"]


def register(sub: Any, default: Default = keep_default) -> None:
    """Add ``llm`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    cmd = sub.add_parser(
        "llm",
        help="LLM agents: export self-play decisions as chat examples",
        description="Commands for LLM entrants (llm:MODEL in the arena; docs/llm_agents.md).",
    )
    commands = cmd.add_subparsers(dest="llm_command", required=True)
    export = commands.add_parser(
        "export-chat",
        help="write a self-play dataset's decisions as chat JSON lines",
        description="Replay every episode of a self-play dataset (panda-core selfplay --out DIR) "
        "and write one JSON line per decision: the prompt an llm: seat is shown there (system "
        "and user messages) and the move played as the assistant's answer, 'MOVE: <notation>'. "
        "The file is written whole or not at all.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    export.add_argument("selfplay_dir", metavar="SELFPLAY_DIR", help="a self-play dataset folder")
    export.add_argument("out", metavar="OUT.jsonl", help="the JSON lines file to write")
    export.add_argument(
        "--limit",
        type=int_in(0, 2**63 - 1),
        default=default(None),
        metavar="N",
        help="write at most N decisions (default: all)",
    )
    export.set_defaults(func=_cmd_export)


def _cmd_export(args: argparse.Namespace, given: set[str]) -> int:
    if importlib.util.find_spec("pyarrow") is None:  # pragma: no cover - no dataset extra
        raise UsageError(
            "panda-core llm export-chat needs pyarrow: pip install 'panda-core[dataset]'"
        )
    from panda_core.llm.export import export_chat

    try:
        info = export_chat(args.selfplay_dir, args.out, limit=args.limit)
    except KeyboardInterrupt:
        print("interrupted: nothing was written", file=sys.stderr)
        return INTERRUPTED
    except OSError as err:
        raise UsageError(f"cannot write {args.out}: {err.strerror or err}") from None
    print(
        f"panda-core llm export-chat: game={info.game} decisions={info.decisions} "
        f"episodes={info.episodes} -> {info.path}"
    )
    return 0
