"""The learner: Adam on the mean squared error between the network's value of the move played
(its output column) and the final reward of the seat that played it (Deep Monte-Carlo)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from panda_core.train.network import Params, forward
from panda_core.train.samples import Samples

__all__ = ["Learner"]


def _loss(params: Params, inputs: jax.Array, columns: jax.Array, targets: jax.Array) -> jax.Array:
    values = forward(params, inputs)
    chosen = jnp.take_along_axis(values, columns[:, None], axis=1)[:, 0]
    return jnp.mean((chosen - targets) ** 2)


class Learner:
    """Gradient steps on batches of :class:`Samples` (one jit-compiled program: every batch has
    the same shape)."""

    def __init__(self, lr: float) -> None:
        self.optimizer = optax.adam(lr)
        optimizer = self.optimizer

        def update(
            params: Params, state: Any, inputs: jax.Array, columns: jax.Array, targets: jax.Array
        ) -> tuple[Params, Any, jax.Array]:
            loss, grads = jax.value_and_grad(_loss)(params, inputs, columns, targets)
            updates, state = optimizer.update(grads, state, params)
            return optax.apply_updates(params, updates), state, loss

        self._update: Callable[..., Any] = jax.jit(update)

    def init(self, params: Params) -> Any:
        """A fresh optimizer state for ``params``."""
        return self.optimizer.init(params)

    def step(self, params: Params, state: Any, batch: Samples) -> tuple[Params, Any, float]:
        """One Adam step on ``batch``; the new parameters and state, and the batch's loss
        (before the step)."""
        params, state, loss = self._update(
            params,
            state,
            jnp.asarray(batch.inputs),
            jnp.asarray(batch.columns),
            jnp.asarray(batch.targets),
        )
        return params, state, float(np.asarray(loss))
