"""Batched environments: N games stepped in one call, in Rust, with the GIL released.

>>> import numpy as np
>>> from panda_core.vector import HeadVectorEnv
>>> env = HeadVectorEnv(num_envs=64, players=4, threads=2)
>>> obs, mask, player = env.reset(seed=1)
>>> obs.shape, mask.shape
((64, 96), (64, 24))
>>> rng = np.random.default_rng(0)
>>> for _ in range(100):
...     actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
...     obs, mask, rewards, terminated, player = env.step(actions)

Every call returns fresh numpy arrays, one row per env:

* ``reset(seed) -> (observations, masks, current_player)``
* ``step(actions) -> (observations, masks, rewards, terminated, current_player)``

``observations[i]`` (float32) and ``masks[i]`` (bool) are for ``current_player[i]``, the seat to
move in env ``i``, in seats relative to that player (one network serves every seat).
``rewards`` has one column per seat (absolute seats): zero, except on the step that ends a game,
where the winner gets +1 and every other seat −1. A finished game restarts in the same step
(``terminated[i]`` is true and ``observations[i]`` is already the first position of the next game).

:class:`ClimbVectorEnv` (``year`` or ``spin``, from ``rules``) steps the abstract actions of
``docs/climb_encodings.md`` §3 (``NUM_CLIMB_ACTIONS``; each unmasked one stands for exactly one
legal move). Agents that score every legal move instead (DouZero-style) call
``legal_move_features() -> (rows, offsets)`` — env ``i``'s moves are ``rows[offsets[i]:offsets[i +
1]]``, ``CLIMB_MOVE_FEATURES`` floats each — and step with ``step_moves(indices)``, one index into
each env's legal-move list.

Built-in bots play in the envs too: ``bot_moves(bot, seed) -> indices`` is the move the bot
(``"heuristic"``, ``"neural"``, ``"ismcts:N"``, any built-in name) picks for the player to move
in every env, as ``step_moves(indices)`` takes it: an index into that env's legal-move list
(Panda Head: its legal action ids in increasing order), computed in Rust over the env's
threads. Mix them with an agent's moves to give it opponents (``np.where(current_player ==
agent_seat, agent_moves, bot_moves)``). A search sees the position, not the moves before it (an
env keeps no history).

Env ``i`` draws the seeds of its episodes from its own SplitMix64 stream started at the ``i``-th
output of ``SplitMix64(seed)``, so a run is the same for any ``threads``. A refused action (not
legal for its env, or out of range) raises :class:`~panda_core.IllegalMoveError` naming the env
(``.env``) and the actions it accepts (``.legal``), and leaves every env unchanged. Actions are
a 1-D array of any integer dtype (strided views too) or a sequence of ints; floats, bools and
strings are a ``TypeError``.

Limits and safety (docs/agents.md, "Vector environment"): ``num_envs`` up to ``MAX_ENVS`` (and
2**27 observation floats a step), ``threads`` up to ``MAX_THREADS``, pools shared between envs;
Ctrl-C stops a large step (an env interrupted mid-step asks for ``reset()``); an env may be shared
by threads (calls run one at a time); envs pickle and copy exactly.
"""

from __future__ import annotations

from panda_core._core import ClimbVectorEnv, HeadVectorEnv

__all__ = ["ClimbVectorEnv", "HeadVectorEnv"]
