"""The bounds of a self-play run, checked before anything is played (docs/selfplay.md).

Plain constants, so that the command line can use them without importing pyarrow.
"""

from __future__ import annotations

__all__ = ["GAME_TIME", "MAX_EPISODES", "MAX_SECONDS", "MAX_SHARDS", "MOVE_TIME"]

MAX_EPISODES = 10**10
"""Episodes of one dataset at most (checked before anything is played or written)."""
MAX_SHARDS = 100_000
"""Shards of one dataset at most: their names have five digits (``part-NNNNN.parquet``), and a
resume checks each one. More episodes need larger shards (``shard_episodes``)."""
MOVE_TIME = 10.0
"""Default bound on a Python bot's move, in seconds (as the arena's)."""
GAME_TIME = 600.0
"""Default bound on an episode, in seconds: a shard's worker is stopped after its episodes
times this (what stops a bot that ``move_time`` cannot interrupt)."""
MAX_SECONDS = 86_400.0
"""Longest ``move_time`` or ``game_time``."""
