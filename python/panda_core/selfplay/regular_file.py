"""Reading a file the user names without trusting what is at the path.

A path may name a FIFO (opening it blocks until a writer comes; reading it never ends),
``/dev/zero`` (endless), a directory or a file far larger than anything this package writes.
So a file is opened without blocking (``O_NONBLOCK``: a FIFO opens at once), checked with
``fstat`` on the open descriptor (not on the path, which could be swapped in between) to be a
regular file of at most ``cap`` bytes, and read for at most ``cap + 1`` bytes: a file that grew
in between is refused too. Nothing is read before the checks.

Used by self-play (manifests, shard checksums, shards) and the trainer (settings, curve,
checkpoints). Only stdlib: importing it costs nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import BinaryIO

__all__ = ["open_regular", "read_regular"]

ErrorType = Callable[[str], Exception]


def open_regular(
    path: str | os.PathLike[str], cap: int | None, error: ErrorType, what: str = "file"
) -> tuple[BinaryIO, int]:
    """``path`` opened for reading (binary, blocking reads) and its size, once it is known to be
    a regular file of at most ``cap`` bytes (``None``: no size bound); ``error(message)`` is
    raised otherwise, the message naming the path and what was found there."""
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except FileNotFoundError:
        raise error(f"{name}: no such {what}") from None
    except OSError as err:
        raise error(f"{name}: cannot open the {what} ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: not a regular file ({_kind(info.st_mode)}), so not a {what}")
        if cap is not None and info.st_size > cap:
            raise error(
                f"{name}: {info.st_size} bytes, more than a {what} can be ({cap} bytes at most)"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return handle, info.st_size


def read_regular(
    path: str | os.PathLike[str], cap: int, error: ErrorType, what: str = "file"
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``cap`` bytes (see :func:`open_regular`);
    at most ``cap + 1`` bytes are read, so a file that grows while it is read is refused."""
    handle, _ = open_regular(path, cap, error, what)
    with handle:
        try:
            data = handle.read(cap + 1)
        except OSError as err:
            raise error(f"{os.fspath(path)}: cannot read the {what} ({err})") from None
    if len(data) > cap:
        raise error(f"{os.fspath(path)}: more than {cap} bytes, more than a {what} can be")
    return data


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"
