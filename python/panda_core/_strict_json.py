"""JSON read strictly, as the engine reads it: a key given twice in one object is an error.

``json.loads`` keeps the last of two equal keys silently, so a record or a results line could
say one thing to a reader that takes the first and another to one that takes the last. Game
records (``Replay``, as the engine's ``from_json``) and the arena's results folder are read
through :func:`strict_loads`. The other stored JSON (self-play checksum files and manifests,
train-state and policy-file headers) is read with ``json.loads`` and checked field by field
against what it must hold.
"""

from __future__ import annotations

import json
from typing import Any

from panda_core._args import cut

__all__ = ["strict_loads"]


def _without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"the key {cut(key)!r} is given twice in one object")
        out[key] = value
    return out


def strict_loads(text: str | bytes) -> Any:
    """The value of the JSON ``text`` (bytes are UTF-8); ``ValueError`` saying what is wrong for
    text that is not JSON, not UTF-8, nested too deeply for the parser, or that gives a key twice
    in one object."""
    try:
        source = text.decode("utf-8") if isinstance(text, bytes) else text
        return json.loads(source, object_pairs_hook=_without_duplicates)
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
    except RecursionError:
        raise ValueError("it is nested too deeply") from None
