"""Reading a file a user named without trusting what is at the path.

A path may name a FIFO (opening it waits for a writer forever), ``/dev/zero`` (a read never
ends), a directory, a socket, or a file far larger than anything valid. So a file is opened
without blocking (``O_NONBLOCK``: a FIFO opens at once), checked with ``fstat`` on the open
descriptor (the file read is the file checked, whatever the path names a moment later) to be a
regular file of at most ``cap`` bytes, and read for at most ``cap + 1`` bytes, so a file that
grows after the check is refused too. Nothing is read before the checks.

Every reader of a user-named file in the package goes through here: records (``Replay``),
self-play manifests, checksums and shards, the trainer's settings, curve and train state. Deck
and policy files are read by the engine the same way (``src/user_file.rs``). Only the standard
library: importing it costs nothing.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from typing import BinaryIO

from panda_core._args import shown

__all__ = ["open_regular", "read_regular", "read_regular_text"]

ErrorType = Callable[[str], Exception]
"""The caller's error class (or factory), given the whole message."""

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _reason(err: Exception) -> str:
    return (err.strerror or str(err)) if isinstance(err, OSError) else str(err)


def open_regular(
    path: str | os.PathLike[str], cap: int | None, error: ErrorType, what: str = "file"
) -> tuple[BinaryIO, int]:
    """``path`` opened for reading (binary, blocking reads) and its size, once it is known to be
    a regular file of at most ``cap`` bytes (``None``: no size bound); ``error(message)`` is
    raised otherwise, the message naming the path and what was found there. A path that is not
    a ``str`` / ``os.PathLike`` is a ``TypeError``."""
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"a {what} path is a str or os.PathLike, got {shown(path)}")
    name = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags)
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
        raise error(f"{name}: cannot read the {what} ({_reason(err)})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name}: not a regular file ({_kind(info.st_mode)}), so not a {what}")
        if cap is not None and info.st_size > cap:
            raise error(
                f"{name}: {info.st_size} bytes, more than a {what} can be ({cap} bytes at most)"
            )
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
            raise error(f"{os.fspath(path)}: cannot read the {what} ({_reason(err)})") from None
    if len(data) > cap:
        raise error(
            f"{os.fspath(path)}: more than {cap} bytes, more than a {what} can be "
            f"({cap} bytes at most)"
        )
    return data


def read_regular_text(
    path: str | os.PathLike[str], cap: int, error: ErrorType, what: str = "file"
) -> str:
    """The UTF-8 text of ``path``, a regular file of at most ``cap`` bytes
    (:func:`read_regular`); text that is not UTF-8 is ``error`` naming the first bad byte."""
    data = read_regular(path, cap, error, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"{os.fspath(path)}: not UTF-8 text (byte {err.start} is {data[err.start]:#04x}); "
            f"a {what} is UTF-8 text"
        ) from None
