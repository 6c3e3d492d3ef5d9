"""The network: a plain MLP (dense layers, ReLU between them, the last one linear).

It is exactly what the Rust bot computes from a policy file (``policy_file.py``): the same
layers, the same activation, f32. ``forward`` is the reference forward pass the agreement test
compares the Rust one with.

For move scoring the first layer is applied in two parts, ``obs @ W_obs + move @ W_move``: the
observation part once per env and the move part once per legal move, instead of the whole
concatenated row per move (a climbing observation is 952 floats, a move 326, and there are about
4 legal moves a decision: roughly 3x fewer multiply-adds in the first layer). It is the same sum
as the concatenated row's, up to float rounding order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["MLP", "Params", "forward", "init_params", "layer_arrays", "score_moves"]

Params = Any
"""flax parameters: ``{"params": {"Dense_0": {"kernel": [in, out], "bias": [out]}, ...}}``."""


class MLP(nn.Module):
    """Dense layers of widths ``features`` (the last one is the output), ReLU between them."""

    features: Sequence[int]

    @nn.compact
    def __call__(self, x: jax.Array) -> jax.Array:
        for i, width in enumerate(self.features):
            x = nn.Dense(width)(x)
            if i < len(self.features) - 1:
                x = nn.relu(x)
        return x


def init_params(seed: int, layers: Sequence[int]) -> Params:
    """Fresh parameters for the sizes ``layers`` (input first), from ``seed`` (any 64-bit seed:
    jax keys take 32 bits, so the seed is mixed down by numpy's SeedSequence first)."""
    key_seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    model = MLP(tuple(layers[1:]))
    return model.init(jax.random.PRNGKey(key_seed), jnp.zeros((1, layers[0]), jnp.float32))


def layer_arrays(params: Params) -> list[tuple[jax.Array, jax.Array]]:
    """``(kernel [in, out], bias [out])`` of each layer, first layer first."""
    inner = params["params"]
    return [(inner[f"Dense_{i}"]["kernel"], inner[f"Dense_{i}"]["bias"]) for i in range(len(inner))]


def forward(params: Params, x: jax.Array) -> jax.Array:
    """The network on rows ``x`` ``[B, in]`` -> ``[B, out]``."""
    layers = layer_arrays(params)
    for i, (kernel, bias) in enumerate(layers):
        x = x @ kernel + bias
        if i < len(layers) - 1:
            x = jax.nn.relu(x)
    return x


def score_moves(params: Params, obs: jax.Array, moves: jax.Array, move_env: jax.Array) -> jax.Array:
    """Move scores ``[M]``: row ``m`` scores the move ``moves[m]`` ``[M, F]`` in the position
    ``obs[move_env[m]]`` (``obs`` ``[N, O]``), i.e. ``forward(concat(obs[move_env], moves))``
    with the first layer split (module docstring)."""
    layers = layer_arrays(params)
    kernel, bias = layers[0]
    observed = obs.shape[1]
    x = (obs @ kernel[:observed])[move_env] + moves @ kernel[observed:] + bias
    for kernel, bias in layers[1:]:
        x = jax.nn.relu(x) @ kernel + bias
    return x[:, 0]
