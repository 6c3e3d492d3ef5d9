"""``train_state``: everything a run needs to go on exactly where it stopped — the parameters,
the Adam state, the counters and the self-play state (the envs mid-game, the decisions waiting
for their games to end, the random generators).

It is a pickle because the engine's vector envs save themselves only that way (they pickle
exactly); a run folder is the user's own data, read only by the trainer that wrote it. The file
is replaced atomically, so a crash leaves the previous checkpoint.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jax
import numpy as np

from panda_core.train.errors import TrainError
from panda_core.train.network import Params

__all__ = ["STATE_FORMAT", "Counters", "TrainState", "load_state", "save_state"]

STATE_FORMAT = "panda-core-train-state/1"


@dataclass(frozen=True)
class Counters:
    """How far a run got."""

    decisions: int = 0
    """Self-play decisions played."""
    seconds: float = 0.0
    """Training wall time so far, over every session (evaluations excluded)."""
    steps: int = 0
    """Gradient steps taken."""
    loss_sum: float = 0.0
    loss_count: int = 0
    """Sum and count of the losses since the last curve row (its ``loss`` column)."""
    row_due: bool = True
    """This state is a point of the curve (the start, every ``eval_every`` decisions, the end)
    whose row is not written yet: true from the checkpoint before an evaluation until the row is
    written, so a resumed run evaluates an interrupted row again."""


@dataclass
class TrainState:
    """A run's state between two steps."""

    params: Params
    opt_state: Any
    counters: Counters
    actor: Any
    """The self-play :class:`~panda_core.train.actor.Actor` (None before the first step)."""
    pending: Any = None
    """Finished decisions not learned from yet (fewer than a shuffle's worth), or None."""


def save_state(path: str | os.PathLike[str], state: TrainState) -> None:
    """Write ``state`` to ``path`` atomically."""
    body = {
        "format": STATE_FORMAT,
        "params": jax.device_get(state.params),
        "opt_state": jax.device_get(state.opt_state),
        "counters": state.counters,
        "actor": state.actor,
        "pending": state.pending,
    }
    target = Path(path)
    temporary = target.with_name(target.name + ".tmp")
    with temporary.open("wb") as out:
        pickle.dump(body, out, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, target)


def load_state(path: str | os.PathLike[str], params: Params) -> TrainState:
    """The state at ``path``; ``params`` (a fresh network of the run's settings) is the shape
    its parameters must have (``TrainError`` otherwise, or if the file is not a train state)."""
    try:
        with Path(path).open("rb") as data:
            body = pickle.load(data)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as err:
        raise TrainError(f"{path}: not a train state ({err})") from None
    if not isinstance(body, dict) or body.get("format") != STATE_FORMAT:
        raise TrainError(f"{path}: not a train state of format {STATE_FORMAT!r}")
    shapes = jax.tree.map(np.shape, body["params"])
    if shapes != jax.tree.map(np.shape, params):
        raise TrainError(f"{path}: its network has other layer sizes than the settings say")
    return TrainState(
        params=jax.tree.map(jax.numpy.asarray, body["params"]),
        opt_state=jax.tree.map(jax.numpy.asarray, body["opt_state"]),
        counters=body["counters"],
        actor=body["actor"],
        pending=body["pending"],
    )
