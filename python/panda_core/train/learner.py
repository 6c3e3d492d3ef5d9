"""The learner: Adam on the mean squared error between the network's value of the move played
(its output column) and the decision's target (Deep Monte-Carlo: the final reward of the seat
that played it, or with ``TrainSettings.target`` its round's value).

The recipe's options act here: ``clip_grad`` clips each gradient to a global norm before Adam;
a learning-rate schedule or warm-up scales Adam's update by a factor given per step (Adam's step
is proportional to its learning rate, so this is Adam with that rate); ``ema`` keeps an
exponential moving average of the weights (:meth:`Learner.average`). Without them the program is
the one the trainer always compiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from panda_core.train.network import Params, forward
from panda_core.train.samples import Samples

__all__ = ["EMA_WARMUP", "Learner"]

EMA_WARMUP = 10
"""The average's decay after ``t`` gradient steps is ``min(ema, (1 + t) / (EMA_WARMUP + t))``, so
that the first steps are not averaged with the untrained network for thousands of steps."""


def _loss(params: Params, inputs: jax.Array, columns: jax.Array, targets: jax.Array) -> jax.Array:
    values = forward(params, inputs)
    chosen = jnp.take_along_axis(values, columns[:, None], axis=1)[:, 0]
    return jnp.mean((chosen - targets) ** 2)


def _average(average: Params, params: Params, decay: jax.Array) -> Params:
    return jax.tree_util.tree_map(lambda a, p: decay * a + (1.0 - decay) * p, average, params)


_AVERAGE: Callable[..., Any] = jax.jit(_average)


class Learner:
    """Gradient steps on batches of :class:`Samples` (one jit-compiled program: every batch has
    the same shape)."""

    def __init__(self, lr: float, clip_grad: float | None = None, scaled: bool = False) -> None:
        self.optimizer = optax.adam(lr)
        self.scaled = scaled
        optimizer = self.optimizer
        clip = optax.clip_by_global_norm(clip_grad) if clip_grad is not None else None

        def update(
            params: Params,
            state: Any,
            inputs: jax.Array,
            columns: jax.Array,
            targets: jax.Array,
            *scale: jax.Array,
        ) -> tuple[Params, Any, jax.Array]:
            loss, grads = jax.value_and_grad(_loss)(params, inputs, columns, targets)
            if clip is not None:
                grads, _ = clip.update(grads, optax.EmptyState())
            updates, state = optimizer.update(grads, state, params)
            if scale:
                updates = jax.tree_util.tree_map(lambda u: u * scale[0], updates)
            return optax.apply_updates(params, updates), state, loss

        self._update: Callable[..., Any] = jax.jit(update)

    def init(self, params: Params) -> Any:
        """A fresh optimizer state for ``params``."""
        return self.optimizer.init(params)

    def step(
        self, params: Params, state: Any, batch: Samples, lr_factor: float = 1.0
    ) -> tuple[Params, Any, float]:
        """One Adam step on ``batch`` (its update times ``lr_factor`` if the learner is
        ``scaled``); the new parameters and state, and the batch's loss (before the step)."""
        scale = (jnp.float32(lr_factor),) if self.scaled else ()
        params, state, loss = self._update(
            params,
            state,
            jnp.asarray(batch.inputs),
            jnp.asarray(batch.columns),
            jnp.asarray(batch.targets),
            *scale,
        )
        return params, state, float(np.asarray(loss))

    @staticmethod
    def average(average: Params, params: Params, decay: float, steps: int) -> Params:
        """The moving average after a step: ``d * average + (1 - d) * params``, ``d`` the decay
        after ``steps`` earlier steps (:data:`EMA_WARMUP`)."""
        d = min(decay, (1 + steps) / (EMA_WARMUP + steps))
        return _AVERAGE(average, params, jnp.float32(d))
