"""Argument types of the command line that the registry's per-game rule options use too (so they
sit below both :mod:`panda_core._registry` and :mod:`panda_core._cli_common`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["Default", "int_in", "keep_default"]

Default = Callable[[object], object]
"""How a subcommand sets an option's default: ``build_parser(defaults=False)`` leaves unset
options out of the namespace (``argparse.SUPPRESS``), which is how ``main`` tells an option given
on the command line from its default."""


def keep_default(value: object) -> object:
    """The :data:`Default` of a parser built with its defaults."""
    return value


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``lo..=hi`` (a clean usage error, never a traceback)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text[:40]!r}") from None
        if not lo <= value <= hi:
            shown = text if len(text) <= 40 else f"an integer of {len(text)} digits"
            raise argparse.ArgumentTypeError(f"must be in {lo}..={hi}, got {shown}")
        return value

    return parse
