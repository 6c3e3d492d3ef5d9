"""``panda-core selfplay`` (placeholder: the command is registered here)."""

from __future__ import annotations

from typing import Any

from panda_core._cli_common import Default, keep_default


def register(sub: Any, default: Default = keep_default) -> None:
    """Add ``selfplay`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    del sub, default
