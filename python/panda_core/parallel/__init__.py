"""Running many independent tasks at once: in this process, in worker processes on every core,
or as Ray tasks on a cluster. The arena and self-play are written once over :class:`Backend`.
"""

from panda_core.parallel.backend import Backend, FailureKind, SerialBackend, TaskFailure

__all__ = ["Backend", "FailureKind", "SerialBackend", "TaskFailure"]
