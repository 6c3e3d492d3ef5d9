"""The concurrency limit: at most ``concurrency`` requests to one endpoint at a time, across every
thread and process of this user on this machine (an arena's worker processes share it).

On POSIX a request holds one of ``concurrency`` slot files, locked with ``flock`` (a lock held by
a process that dies is released by the kernel, so a killed worker never keeps a slot). The files
live in a folder of this user's own under the temporary folder, named by a hash of the endpoint.
Where that is not possible (no ``fcntl``, a folder that is not this user's) the limit is a
semaphore of this process. Waiting for a slot never blocks: every check is non-blocking and the
waits between them are short sleeps (Ctrl-C stops a waiting request at once).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

__all__ = ["POLL", "SlotTimeout", "slot"]

POLL = 0.05
"""Seconds between two looks for a free slot."""


class SlotTimeout(Exception):
    """No slot came free within the wait allowed."""


_semaphores: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_semaphores_lock = threading.Lock()


def _folder() -> Path | None:
    """This user's slot folder (made private), or ``None`` if it cannot be trusted."""
    if fcntl is None or not hasattr(os, "getuid"):
        return None
    folder = Path(tempfile.gettempdir()) / f"panda-core-llm-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def _try_lock(path: Path) -> int | None:
    """A descriptor of ``path`` locked for this holder, or ``None`` if another holds it."""
    assert fcntl is not None
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def _file_slot(folder: Path, endpoint: str, count: int, wait: float) -> Iterator[float]:
    name = hashlib.sha256(endpoint.encode()).hexdigest()[:16]
    paths = [folder / f"{name}.{k}.lock" for k in range(count)]
    start = time.monotonic()
    fd = None
    while fd is None:
        for path in paths:
            fd = _try_lock(path)
            if fd is not None:
                break
        else:
            waited = time.monotonic() - start
            if waited >= wait:
                raise SlotTimeout(f"no request slot came free in {waited:.1f} s")
            time.sleep(min(POLL, max(0.0, wait - waited)))
    try:
        yield time.monotonic() - start
    finally:
        os.close(fd)  # closing the descriptor releases the lock


@contextlib.contextmanager
def _process_slot(endpoint: str, count: int, wait: float) -> Iterator[float]:
    with _semaphores_lock:
        semaphore = _semaphores.setdefault((endpoint, count), threading.BoundedSemaphore(count))
    start = time.monotonic()
    while not semaphore.acquire(timeout=POLL):
        waited = time.monotonic() - start
        if waited >= wait:
            raise SlotTimeout(f"no request slot came free in {waited:.1f} s")
    try:
        yield time.monotonic() - start
    finally:
        semaphore.release()


def slot(endpoint: str, count: int, wait: float) -> contextlib.AbstractContextManager[float]:
    """Hold one of ``count`` slots of ``endpoint`` for a ``with`` block (its value: the seconds
    waited); :class:`SlotTimeout` after ``wait`` seconds without one."""
    folder = _folder()
    if folder is None:
        return _process_slot(endpoint, count, wait)
    return _file_slot(folder, endpoint, count, wait)
