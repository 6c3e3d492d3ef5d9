"""``panda-core arena`` (placeholder: the command is registered here)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add ``arena`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    del sub
