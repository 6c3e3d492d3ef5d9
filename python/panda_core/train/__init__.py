"""``panda_core.train``: self-play Deep Monte-Carlo (DouZero) for every game, on CPU with JAX
(extra ``[train]``; docs/train_your_agent.md).

>>> from panda_core.train import TrainSettings, train
>>> result = train(TrainSettings(game="head", decisions=2_000_000), "runs/head")  # doctest: +SKIP
>>> result.policy  # play it: panda-core simulate --bots neural:runs/head/policy.safetensors
... # doctest: +SKIP

One trainer serves the three games: what differs is the policy kind of the game (its values per
action id in Panda Head, a score per legal move in the climbing games), looked up in ``_game.py``.

The names below are imported on first use (PEP 562), so that ``panda-core``'s command line can
register ``train`` without importing JAX, and works without the extra.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from panda_core.train.errors import TrainError
    from panda_core.train.evaluate import WinRate, evaluate, win_rates
    from panda_core.train.policy_file import PolicyFile, read_policy, write_policy
    from panda_core.train.run import TrainResult, checkpoint_policies, eval_seed, train
    from panda_core.train.settings import TrainSettings

__all__ = [
    "PolicyFile",
    "TrainError",
    "TrainResult",
    "TrainSettings",
    "WinRate",
    "checkpoint_policies",
    "eval_seed",
    "evaluate",
    "read_policy",
    "train",
    "win_rates",
    "write_policy",
]

_HOMES = {
    "TrainError": "errors",
    "WinRate": "evaluate",
    "evaluate": "evaluate",
    "win_rates": "evaluate",
    "checkpoint_policies": "run",
    "eval_seed": "run",
    "PolicyFile": "policy_file",
    "read_policy": "policy_file",
    "write_policy": "policy_file",
    "TrainResult": "run",
    "train": "run",
    "TrainSettings": "settings",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'panda_core.train' has no attribute {name!r}")
    return getattr(importlib.import_module(f"panda_core.train.{home}"), name)
