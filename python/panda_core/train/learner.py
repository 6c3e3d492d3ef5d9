"""The learner: Adam on the mean squared error between the network's value of the move played
(its output column) and the decision's target (Deep Monte-Carlo: the final reward of the seat
that played it, or with ``TrainSettings.target`` its round's value).

The recipe's options act here: ``clip_grad`` clips each gradient to a global norm before Adam;
a learning-rate schedule or warm-up scales Adam's update by a factor given per step (Adam's step
is proportional to its learning rate, so this is Adam with that rate); ``ema`` keeps an
exponential moving average of the weights (:meth:`Learner.average`). Without them the program is
the one the trainer always compiled.

The warm start (``warm_start.py``) fits the same network with the same optimizer settings to a
search's move values: :meth:`Learner.fit_step`, a step on the *weighted* mean squared error (each
row weighs its move's share of the search's visits; padding rows weigh 0).
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


def _weighted_loss(
    params: Params,
    inputs: jax.Array,
    columns: jax.Array,
    targets: jax.Array,
    weights: jax.Array,
) -> jax.Array:
    values = forward(params, inputs)
    chosen = jnp.take_along_axis(values, columns[:, None], axis=1)[:, 0]
    # The weighted mean; a batch of padding only (no weight) has loss 0 and no gradient.
    return jnp.sum(weights * (chosen - targets) ** 2) / jnp.maximum(jnp.sum(weights), 1e-12)


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

        def fit(
            params: Params,
            state: Any,
            inputs: jax.Array,
            columns: jax.Array,
            targets: jax.Array,
            weights: jax.Array,
        ) -> tuple[Params, Any, jax.Array]:
            loss, grads = jax.value_and_grad(_weighted_loss)(
                params, inputs, columns, targets, weights
            )
            if clip is not None:
                grads, _ = clip.update(grads, optax.EmptyState())
            updates, state = optimizer.update(grads, state, params)
            return optax.apply_updates(params, updates), state, loss

        self._fit: Callable[..., Any] = jax.jit(fit)

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

    def fit_step(
        self, params: Params, state: Any, batch: Samples, weights: Any
    ) -> tuple[Params, Any, jax.Array]:
        """One Adam step (at ``lr``) on ``batch``'s mean squared error weighted by ``weights``
        (the warm start); the new parameters and state, and the batch's loss before the step
        (a device scalar: reading it would wait for the step)."""
        result: tuple[Params, Any, jax.Array] = self._fit(
            params,
            state,
            jnp.asarray(batch.inputs),
            jnp.asarray(batch.columns),
            jnp.asarray(batch.targets),
            jnp.asarray(weights, dtype=jnp.float32),
        )
        return result

    @staticmethod
    def average(average: Params, params: Params, decay: float, steps: int) -> Params:
        """The moving average after a step: ``d * average + (1 - d) * params``, ``d`` the decay
        after ``steps`` earlier steps (:data:`EMA_WARMUP`)."""
        d = min(decay, (1 + steps) / (EMA_WARMUP + steps))
        return _AVERAGE(average, params, jnp.float32(d))
