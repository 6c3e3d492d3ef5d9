"""Bots for the arena tests, imported by path (``arena_bots:first_legal``) in worker processes
and Ray tasks: this directory is on their ``PYTHONPATH``."""

from __future__ import annotations

import os
import re
import time
from typing import Any

from panda_core import bots


def first_legal(game: Any, player: int) -> int:
    """A weak, fast, deterministic bot: the lowest legal action id."""
    return int(game.legal_actions()[0])


class Heuristic:
    """The built-in heuristic, as a Python bot (a class: one instance per game)."""

    def __init__(self) -> None:
        self.inner = bots.BuiltinBot("heuristic")

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def __call__(self, game: Any, player: int) -> Any:
        return self.inner(game, player)


class _Misbehaves:
    """Plays like ``first_legal`` until its ``after``-th move, then misbehaves."""

    after = 3

    def __init__(self) -> None:
        self.moves = 0

    def __call__(self, game: Any, player: int) -> Any:
        self.moves += 1
        if self.moves > self.after:
            return self.misbehave(game)
        return first_legal(game, player)

    def misbehave(self, game: Any) -> Any:
        raise NotImplementedError


class Raises(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        raise RuntimeError("the bot broke")


class Illegal(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        return 10**6  # no game has that action


class NotAMove(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        return object()


class Sleeps(_Misbehaves):
    """Sleeps far past any move time (the move timer interrupts it)."""

    def misbehave(self, game: Any) -> Any:
        time.sleep(3600)


class Exits(_Misbehaves):
    """Kills its worker process."""

    def misbehave(self, game: Any) -> Any:
        os._exit(7)


class ExitsCleanly(_Misbehaves):
    """Ends its worker process as if all were well (exit code 0)."""

    def misbehave(self, game: Any) -> Any:
        os._exit(0)


class HangsInC(_Misbehaves):
    """Loops inside the regex engine, where no signal handler runs (only killing stops it)."""

    def misbehave(self, game: Any) -> Any:
        re.match(r"(a+)+$", "a" * 64 + "b")


class CatchesEverything(_Misbehaves):
    """Sleeps past its time and tries to swallow the interruption."""

    def misbehave(self, game: Any) -> Any:
        try:
            time.sleep(3600)
        except Exception:
            pass
        return first_legal(game, 0)


class SysExit(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        raise SystemExit(3)


class BrokenConstructor:
    def __init__(self) -> None:
        raise ValueError("no model file")

    def __call__(self, game: Any, player: int) -> Any:
        return first_legal(game, player)


class Slow:
    """Thinks for a while on every move (an arena that takes long enough to interrupt)."""

    def __call__(self, game: Any, player: int) -> Any:
        time.sleep(0.002)
        return first_legal(game, player)


# ---- hostile bots (tests/test_arena_hostile.py) -------------------------------------------------


class Prints:
    """Plays ``first_legal``, printing on every move: through ``sys.stdout`` and straight to file
    descriptor 1 (as C code would), where the arena's report goes."""

    def __call__(self, game: Any, player: int) -> Any:
        print("PRINTED-BY-BOT")
        os.write(1, b"WRITTEN-TO-FD-1\n")
        return first_legal(game, player)


class _Answer:
    """A move whose ``__index__`` misbehaves (the engine would call it to read the move)."""

    def __init__(self, action: int, how: str) -> None:
        self.action = action
        self.how = how

    def __index__(self) -> int:
        if self.how == "raises":
            raise RuntimeError("no index today")
        if self.how == "exits":
            raise SystemExit(4)
        time.sleep(3600)
        return self.action


class IndexRaises(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        return _Answer(first_legal(game, 0), "raises")


class IndexExits(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        return _Answer(first_legal(game, 0), "exits")


class IndexSleeps(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        return _Answer(first_legal(game, 0), "sleeps")


class SleepsInReset:
    def reset(self, seed: int) -> None:
        time.sleep(3600)

    def __call__(self, game: Any, player: int) -> Any:
        return first_legal(game, player)


class SleepsInConstructor:
    def __init__(self) -> None:
        time.sleep(3600)

    def __call__(self, game: Any, player: int) -> Any:
        return first_legal(game, player)


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no message either")


class RaisesUnprintable(_Misbehaves):
    def misbehave(self, game: Any) -> Any:
        raise _Unprintable


class Unstoppable(_Misbehaves):
    """Swallows every interruption, the move timer's too, and keeps sleeping."""

    def misbehave(self, game: Any) -> Any:
        while True:
            try:
                time.sleep(3600)
            except BaseException:
                pass
