"""Running many independent tasks at once: in this process, in worker processes on every core,
or as Ray tasks on a cluster. The arena and self-play are written once over :class:`Backend`.

``RayBackend`` is imported from ``panda_core.parallel.ray_backend`` (or made by
``make_backend("ray")``): importing this package never imports Ray, an optional extra.
"""

from panda_core.parallel.backend import Backend, FailureKind, SerialBackend, TaskFailure
from panda_core.parallel.factory import BACKENDS, BackendName, make_backend
from panda_core.parallel.local import ProcessBackend

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendName",
    "FailureKind",
    "ProcessBackend",
    "SerialBackend",
    "TaskFailure",
    "make_backend",
]
