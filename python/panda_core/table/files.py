"""Reading a file a user named, bounded before the read starts.

A path a user gives may name a FIFO (``open`` waits for a writer forever), ``/dev/zero`` (a read
never ends), a directory or a socket. :func:`read_user_file` opens without blocking, checks the
*open descriptor* (so the file checked is the file read, whatever the path is renamed to
meanwhile) is a regular file no larger than the cap, and then reads at most the cap and one byte,
so a file that grows after the check is refused too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from panda_core._args import shown
from panda_core._core import ArgumentError

__all__ = ["read_user_file"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_user_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    what: str = "file",
    error: Callable[[str], Exception] = ArgumentError,
) -> str:
    """The UTF-8 text of the regular file ``path``, at most ``max_bytes`` bytes.

    Anything else is refused before more than ``max_bytes + 1`` bytes are read, with
    ``error(message)`` (an ``ArgumentError`` unless the caller names its own class); the message
    names the path and says what ``what`` (e.g. ``"record"``) must be. A path that is not a
    ``str`` / ``os.PathLike`` is a ``TypeError``.
    """
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"a {what} path is a str or os.PathLike, got {shown(path)}")
    name = os.fspath(path)
    try:
        # O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting.
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (OSError, ValueError) as err:  # ValueError: a NUL byte in the path
        raise error(f"cannot read the {what} {name}: {_reason(err)}") from err
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{name} is {_kind(info.st_mode)}; a {what} is a regular file")
        if info.st_size > max_bytes:
            raise error(f"{name} is {info.st_size} bytes; a {what} is at most {max_bytes} bytes")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(max_bytes + 1)
    except OSError as err:
        raise error(f"cannot read the {what} {name}: {_reason(err)}") from err
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew after the check
        raise error(f"{name} is more than {max_bytes} bytes; a {what} is at most {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise error(
            f"{name} is not UTF-8 text (byte {err.start} is {data[err.start]:#04x}); a {what} "
            "is UTF-8 JSON"
        ) from err


def _reason(err: Exception) -> str:
    return (err.strerror or str(err)) if isinstance(err, OSError) else str(err)
