"""``panda-core selfplay`` (placeholder: the command is registered here)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    """Add ``selfplay`` to the ``panda-core`` subcommands (``sub``: argparse subparsers)."""
    del sub
    _ = argparse
