"""Starting a run from a policy file's weights (``panda-core train --init POLICY``): fine-tuning.

A run normally starts from fresh random weights (``init_params``). With ``init_policy`` it
starts from the weights of a policy file (format 1, ``policy_file.py``) instead: a checkpoint
of another run, or the game's shipped policy (``init_policy="shipped"``: the bytes the engine
embeds, which a pip install has as no file). Only the weights are taken: Adam's state, the
counters, the deals and the exploration start afresh from the run's own seed, so a fine-tune is
a run like any other (resumable, reproducible, its own curve from a row at 0 decisions that is
the file's policy itself).

The file is read with a size bound before anything is parsed, and checked to fit the run before
any work: the policy format, the tensors' sha256, the game, the policy kind, the observation and
move-features layouts the engine writes today, and the layer sizes (the run's ``hidden`` must be
the file's). Its identity is the sha256 of its tensors (``init_policy_sha256`` in the settings):
a resumed run must be given a file with the same weights (the path may change, as the warm start
dataset's may).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import jax.numpy as jnp

from panda_core.train._game import GameInfo
from panda_core.train.errors import TrainError
from panda_core.train.network import Params
from panda_core.train.policy_file import PolicyFile, max_policy_bytes, parse_policy, read_policy
from panda_core.train.settings import TrainSettings

__all__ = ["SHIPPED", "InitPolicy", "InitPolicyError", "open_init_policy"]

SHIPPED = "shipped"
"""The ``init_policy`` that names the game's shipped policy (what the built-in ``neural`` bot
plays, embedded in the engine), not a file: a file of that name is given as ``./shipped``."""


class InitPolicyError(TrainError):
    """The policy file a run is to start from cannot be used: the message names the file, what
    is wrong and what is allowed."""


@dataclass(frozen=True)
class InitPolicy:
    """A checked policy file to start a run from: its weights and their sha256."""

    path: str
    sha256: str
    params: Params

    def identify(self, settings: TrainSettings) -> TrainSettings:
        """``settings`` with ``init_policy_sha256`` this file's; ``InitPolicyError`` if they
        name other weights already (the run was started from another policy)."""
        known = settings.init_policy_sha256
        if known is not None and known != self.sha256:
            raise InitPolicyError(
                f"init policy {self.path!r} is not the policy the run was started from (its "
                f"tensors have sha256 {self.sha256[:12]}…, the run's {known[:12]}…): give that "
                "policy file"
            )
        return replace(settings, init_policy_sha256=self.sha256)


def open_init_policy(settings: TrainSettings, info: GameInfo) -> InitPolicy:
    """The policy file of ``settings.init_policy``, read (bounded) and checked to fit the run
    ``settings`` and ``info`` describe (module docstring)."""
    path = settings.init_policy
    assert path is not None
    layers = [info.input_size, *settings.hidden, info.output_size]
    where = f"init policy {path!r}"
    try:
        if path == SHIPPED:
            from panda_core._core import NeuralPolicy

            policy = parse_policy(NeuralPolicy.shipped(settings.game).to_bytes(), SHIPPED)
        else:
            policy = read_policy(path, max_bytes=max_policy_bytes(layers))
    except TrainError as err:
        raise InitPolicyError(f"{where}: {err}") from None
    wanted = {
        "game": info.name,
        "kind": info.kind,
        "observation_layout": info.observation_layout,
    }
    if info.move_features_layout is not None:
        wanted["move_features_layout"] = info.move_features_layout
    for key, value in wanted.items():
        theirs = policy.metadata.get(key)
        if theirs != value:
            raise InitPolicyError(
                f"{where}: its {key} is {theirs!r}; a {settings.game} run needs {value!r} (a "
                f"policy of this game, written by a panda-core with the same layouts)"
            )
    if policy.sizes != layers:
        raise InitPolicyError(
            f"{where}: its layers are {policy.sizes}; this run's are {layers} (give the run "
            f"the file's hidden widths, --hidden {','.join(str(n) for n in policy.sizes[1:-1])})"
        )
    return InitPolicy(path, policy.metadata["sha256"], _params_of(policy))


def _params_of(policy: PolicyFile) -> Params:
    """The flax parameters of a policy file's layers (the file's weights are ``[out, in]``,
    flax's kernels ``[in, out]``)."""
    inner = {
        f"Dense_{i}": {"kernel": jnp.asarray(weight.T), "bias": jnp.asarray(bias)}
        for i, (weight, bias) in enumerate(policy.layers)
    }
    return {"params": inner}
