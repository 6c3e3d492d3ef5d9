"""The trainer's error: a :class:`panda_core.ArgumentError` (so a ``PandaCoreError`` and a
``ValueError``), raised for bad settings, a run folder that holds another run, and a policy file
that cannot be read."""

from __future__ import annotations

from panda_core._core import ArgumentError

__all__ = ["TrainError"]


class TrainError(ArgumentError):
    """Training cannot go on as asked; the message says what was wrong and what is allowed."""
