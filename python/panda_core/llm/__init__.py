"""LLM agents as entrants: ``llm:MODEL`` plays through an OpenAI-compatible chat-completions
endpoint (docs/llm_agents.md).

>>> from panda_core.llm import LlmBot
>>> bot = LlmBot("gpt-4o-mini", base_url="http://127.0.0.1:8000/v1", api_key="sk-…")
>>> bot                                       # the key is shown nowhere
LlmBot('gpt-4o-mini', endpoint='http://127.0.0.1:8000/v1', on_failure='forfeit')

Needs the ``llm`` extra (``pip install 'panda-core[llm]'``: httpx) to play; the spec parser
(:func:`check_llm_spec`) and the prompt do not.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from panda_core.llm.agent import LlmBot, check_llm_spec, llm_bot_from_spec
    from panda_core.llm.errors import LlmError, LlmForfeit, LlmSpecError
    from panda_core.llm.export import ExportInfo, export_chat
    from panda_core.llm.options import LlmOptions, parse_spec
    from panda_core.llm.prompt import decision
    from panda_core.llm.telemetry import telemetry_of

# Imported on first use: httpx (the client) is an extra, and the command line imports
# ``panda_core.llm.cli`` (so this package) for every subcommand.
_HOMES = {
    name: module
    for module, names in {
        "agent": "LlmBot check_llm_spec llm_bot_from_spec",
        "errors": "LlmError LlmForfeit LlmSpecError",
        "export": "ExportInfo export_chat",
        "options": "LlmOptions parse_spec",
        "prompt": "decision",
        "telemetry": "telemetry_of",
    }.items()
    for name in names.split()
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'panda_core.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"panda_core.llm.{home}"), name)


__all__ = [
    "ExportInfo",
    "LlmBot",
    "LlmError",
    "LlmForfeit",
    "LlmOptions",
    "LlmSpecError",
    "check_llm_spec",
    "decision",
    "export_chat",
    "llm_bot_from_spec",
    "parse_spec",
    "telemetry_of",
]
