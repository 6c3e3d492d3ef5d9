"""Worker processes that die with their parent.

A self-play worker busy in a bot's move never looks at its pipe to the parent, so when the
parent is killed (``kill -9``, the OOM killer) pebble's usual way out (the pipe closes, the
worker exits) never comes, and the worker would go on playing for nobody. So the first task a
worker runs arms a death signal: on Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``, by which the
kernel kills the worker when its parent goes; elsewhere (or if ``prctl`` fails) a daemon thread
polls ``os.getppid()`` twice a second and kills the worker once its parent is gone.

Only processes started by ``multiprocessing`` (the local backend's workers) are armed: in the
user's own process (``workers=0``) or a Ray worker (whose lifetime is Ray's), nothing is done.
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


def die_with_parent() -> None:
    """Arm this worker process to die with its parent (once per process; see the module)."""
    global _armed
    if _armed:
        return
    parent = multiprocessing.parent_process()
    if parent is None or parent.pid is None:
        return
    _armed = True
    if _prctl_death_signal():
        if os.getppid() != parent.pid:  # the parent died before the signal was armed
            _kill_self()
        return
    threading.Thread(target=_watch, args=(parent.pid,), name="die-with-parent", daemon=True).start()
