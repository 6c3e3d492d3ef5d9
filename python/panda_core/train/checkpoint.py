"""``train_state``: what a run needs to go on where it stopped — the parameters, the Adam state
and the counters — in flax's msgpack serialization.

Self-play restarts from fresh deals at every checkpoint (``actor_seeds(seed, decisions)``), so
the games in progress are not part of the state: a run that stops at a checkpoint and resumes
computes exactly what a run that never stopped computes.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from flax import serialization

from panda_core.train.errors import TrainError
from panda_core.train.network import Params

__all__ = ["Counters", "load_state", "save_state"]


@dataclass(frozen=True)
class Counters:
    """How far a run got."""

    decisions: int = 0
    """Self-play decisions played (and learned from, but for the games cut at checkpoints)."""
    seconds: float = 0.0
    """Training wall time so far, over every session (evaluations excluded)."""
    steps: int = 0
    """Gradient steps taken."""
    loss_sum: float = 0.0
    loss_count: int = 0
    """Sum and count of the losses since the last curve row (its ``loss`` column)."""
    at_segment_end: bool = False
    """The state is the end of a segment (which gets a curve row), not an interruption."""


def save_state(
    path: str | os.PathLike[str], params: Params, opt_state: Any, counters: Counters
) -> None:
    """Write the state atomically (a Ctrl-C or a crash leaves the previous one)."""
    state = {"params": params, "opt_state": opt_state, "counters": asdict(counters)}
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_bytes(serialization.to_bytes(state))
    os.replace(temporary, target)


def load_state(
    path: str | os.PathLike[str], params: Params, opt_state: Any
) -> tuple[Params, Any, Counters]:
    """The state at ``path``, shaped like the templates ``params`` and ``opt_state`` (a fresh
    network and optimizer of the run's settings); ``TrainError`` if it does not fit them."""
    template = {"params": params, "opt_state": opt_state, "counters": asdict(Counters())}
    try:
        state = serialization.from_bytes(template, Path(path).read_bytes())
        saved = state["counters"]
        counters = Counters(
            decisions=int(saved["decisions"]),
            seconds=float(saved["seconds"]),
            steps=int(saved["steps"]),
            loss_sum=float(saved["loss_sum"]),
            loss_count=int(saved["loss_count"]),
            at_segment_end=bool(saved["at_segment_end"]),
        )
    except (ValueError, KeyError, TypeError) as err:
        raise TrainError(f"{path}: not a train_state of this run's settings ({err})") from None
    return state["params"], state["opt_state"], counters
