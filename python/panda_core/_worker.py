"""Worker processes that die with their parent.

A worker busy in a bot's move never looks at its pipe to the parent, so when the parent is
killed (``kill -9``, the OOM killer) the usual way out (the pipe closes, the worker exits) never
comes, and the worker would go on playing for nobody. So every worker arms a death signal when
it starts: on Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, by which the kernel kills the worker
when its parent goes, and in any case a daemon thread that polls ``os.getppid()`` twice a second
and kills the worker once its parent is gone (``PR_SET_PDEATHSIG`` fires when the parent's
*thread* that started the worker ends, which the starters here keep alive; the thread covers
the other systems).

Armed by the local process backend's worker initializer (the arena's and self-play's workers)
and by the bot protocol's subprocesses (``panda_core.protocol.process``). In the user's own
process or a Ray worker (whose lifetime is Ray's) nothing is done.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time

__all__ = ["POLL_SECONDS", "die_with_parent"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_SECONDS = 0.5
"""How often the fallback thread looks for its parent."""
_armed = False


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:  # re-parented: the parent is gone
            _kill_self()
        time.sleep(POLL_SECONDS)


def _prctl_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def die_with_parent(parent: int | None = None) -> None:
    """Arm this worker process to die with its parent, the process ``parent`` (``None``: the
    ``multiprocessing`` parent, if this process has one); once per process (see the module)."""
    global _armed
    if _armed:
        return
    if parent is None:
        started_by = multiprocessing.parent_process()
        if started_by is None or started_by.pid is None:
            return
        parent = started_by.pid
    _armed = True
    _prctl_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed
        _kill_self()
    threading.Thread(target=_watch, args=(parent,), name="die-with-parent", daemon=True).start()
