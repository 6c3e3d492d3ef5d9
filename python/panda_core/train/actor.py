"""Self-play: every seat of ``num_envs`` games played by the current network, epsilon-greedy,
one network call per step for all the games.

Deep Monte-Carlo (DouZero) learns ``Q(position, move)`` by regression on the final result of the
game: each decision's target is the acting seat's reward when its game ends (+1 for the winner,
−1 for every other seat, from the env's ``rewards``). So a decision is kept until its game ends,
then handed over as :class:`Samples` (``buffer.py``).

The two policy kinds differ only in what a decision's input row is and how the move is chosen:

* action-values (Panda Head): the row is the observation; the network outputs a value per
  action id; the move is the legal id of largest value (ties: the lowest id); the sample
  remembers the id (its output column).
* move-scores (``year``, ``spin``): one row per legal move, ``concat(observation, move
  features)``; the move is the row of largest score (ties: the first); the sample is the chosen
  row (output column 0).

These are exactly the rules the Rust ``neural`` bot plays by, so the evaluation plays the policy
that self-play trained.

Two of the recipe's options act here: ``skip_forced`` keeps only the decisions with more than one
legal move, and ``rounds`` tags each decision with its round (a hand in Panda Head) and records
the round's values the env reports when it ends (``round_results``), for targets that include
them (``buffer.py``).

With ``opponents`` (``TrainSettings.opponents``, ``opponents.py``), some envs seat the network in
one seat per game (the learner's) and a built-in bot or a past self in the others: their moves
replace the network's where they are to move, exploration applies to the learner's moves only,
and only the learner's decisions are kept (the opponents' are not learned from).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from panda_core.train._game import GameInfo
from panda_core.train.buffer import EpisodeBuffer
from panda_core.train.network import Params, forward, score_moves
from panda_core.train.opponents import Opponents
from panda_core.train.samples import Samples

__all__ = ["Actor", "actor_seeds"]

MIN_ROWS = 64
"""Smallest padded move-row count. The climbing games' legal moves (about 4.5 a decision, some
thousands at a deal) are padded to a size class so that jit compiles one program per class, not
one per step; classes grow by about 1/8 (so about 1/8 padding at most; 58 classes up to
100,000 rows, of which a run meets some twenty)."""


def padded_rows(rows: int) -> int:
    """The size class of ``rows`` move rows: the smallest ``MIN_ROWS * (9/8)**k`` (rounded up
    to a multiple of 16) that holds them."""
    size = MIN_ROWS
    while size < rows:
        size = -(-size * 9 // 8 // 16) * 16
    return size


# Module-level, so that every Actor (one per training session; many in the tests) reuses the
# compiled programs.
_FORWARD: Callable[..., Any] = jax.jit(forward)
_SCORE: Callable[..., Any] = jax.jit(score_moves)


def actor_seeds(seed: int) -> tuple[int, np.random.Generator, np.random.Generator]:
    """The env seed, the exploration generator and the shuffling generator of the self-play of
    a run with ``seed`` (independent streams of numpy's SeedSequence)."""
    sequence = np.random.SeedSequence([seed, 0])
    env_seed, explore, shuffle = (int(s) for s in sequence.generate_state(3, np.uint64))
    return env_seed, np.random.default_rng(explore), np.random.default_rng(shuffle)


def _random_legal(mask: npt.NDArray[np.bool_], draws: npt.NDArray[np.float64]) -> Any:
    """For each row of ``mask``, the legal column picked by the uniform ``draws`` in [0, 1)."""
    counts = mask.sum(axis=1)
    picks = np.minimum((draws * counts).astype(np.int64), counts - 1)
    return _nth_legal(mask, picks)


def _nth_legal(mask: npt.NDArray[np.bool_], picks: npt.NDArray[np.int64]) -> Any:
    """For each row of ``mask``, the column of its ``picks[i]``-th legal id (0-based, in
    increasing order: a move index of ``step_moves``, as ``bot_moves`` gives it, to an id)."""
    return np.argmax(np.cumsum(mask, axis=1) > picks[:, None], axis=1)


class Actor:
    """``num_envs`` self-play games of one game, dealt from ``seed``. :meth:`snapshot` gives its
    whole state as data (the envs mid-game as the engine's JSON document, the generators' states,
    the waiting decisions as arrays) and :meth:`restore` takes it back exactly: a checkpoint
    holds it (``checkpoint.py``)."""

    def __init__(
        self,
        info: GameInfo,
        num_envs: int,
        players: int,
        threads: int | None,
        seed: int,
        skip_forced: bool = False,
        rounds: bool = False,
        opponents: Opponents | None = None,
    ) -> None:
        self.info = info
        self.skip_forced = skip_forced
        self.rounds = rounds
        self.opponents = opponents
        self.env = info.new_vector_env(num_envs, players, threads)
        env_seed, self.rng, self.shuffle_rng = actor_seeds(seed)
        self.obs, self.mask, self.player = self.env.reset(env_seed)
        self.num_envs = num_envs
        self.buffer = EpisodeBuffer(info.input_size, players, rounds=rounds)
        # The id of each env's game in progress (ids are never reused) and its decisions so far.
        self._games = np.arange(num_envs, dtype=np.int64)
        self._next_game = num_envs
        self._lengths = np.zeros(num_envs, dtype=np.int64)
        # With rounds: the id of each env's round in progress (never reused either).
        self._rounds = np.arange(num_envs, dtype=np.int64)
        self._next_round = num_envs

    def step(self, params: Params, epsilon: float) -> None:
        """One decision in every env, kept in :attr:`buffer` until its game ends."""
        explore = self.rng.random(self.num_envs) < epsilon
        draws = self.rng.random(self.num_envs)
        mine = None
        if self.opponents is not None:
            mine = self.opponents.learner_to_move(self.player, self._games, self.env.players)
        if self.info.kind == "action-values":
            rows, columns, result, choices = self._step_actions(params, explore, draws, mine)
        else:
            rows, columns, result, choices = self._step_moves(params, explore, draws, mine)
        rounds = self._rounds if self.rounds else None
        if self.skip_forced or mine is not None:
            keep: npt.NDArray[np.bool_] = np.ones(self.num_envs, dtype=np.bool_)
            if self.skip_forced:
                keep = choices > 1
            if mine is not None:
                keep = keep & mine
            kept = None if rounds is None else rounds[keep]
            self.buffer.add(rows[keep], columns[keep], self.player[keep], self._games[keep], kept)
            self._lengths += keep
        else:
            self.buffer.add(rows, columns, self.player, self._games, rounds)
            self._lengths += 1
        self.obs, self.mask, rewards, terminated, self.player = result
        if self.rounds:
            ended_rounds, values = self.env.round_results()
            if ended_rounds.any():
                done = np.flatnonzero(ended_rounds)
                self.buffer.finish_rounds(self._rounds[done], values[done])
                self._rounds[done] = self._next_round + np.arange(done.size)
                self._next_round += done.size
        if terminated.any():
            ended = np.flatnonzero(terminated)
            self.buffer.finish(self._games[ended], rewards[ended], int(self._lengths[ended].sum()))
            self._games[ended] = self._next_game + np.arange(ended.size)
            self._next_game += ended.size
            self._lengths[ended] = 0
            if self.opponents is not None:
                self.opponents.start_games(ended)

    def set_threads(self, threads: int | None) -> None:
        """Use ``threads`` engine threads from now on (a resumed run may change them; results
        do not depend on them)."""
        count = self.info.new_vector_env(1, self.env.players, threads).threads  # None: cores
        if count == self.env.threads:
            return
        # The env's saved state (its pickle: a versioned JSON document) with another thread
        # count: the same games, stepped by more or fewer threads.
        rebuild, (text,) = self.env.__reduce__()
        state = json.loads(text)
        state["threads"] = count
        self.env = rebuild(json.dumps(state))

    def snapshot(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        """The state as JSON-ready values and named arrays (:meth:`restore` inverts it)."""
        _, (env_state,) = self.env.__reduce__()  # the engine's saved env: a JSON document
        values = {
            "env": env_state,
            "rng": self.rng.bit_generator.state,
            "shuffle_rng": self.shuffle_rng.bit_generator.state,
            "next_game": self._next_game,
            "ready": self.buffer.ready,
        }
        arrays = {
            "obs": self.obs,
            "mask": self.mask,
            "player": self.player,
            "games": self._games,
            "lengths": self._lengths,
            **{f"buffer.{name}": array for name, array in self.buffer.arrays().items()},
        }
        if self.rounds:
            values["next_round"] = self._next_round
            values["round_base"] = self.buffer.round_base
            arrays["rounds"] = self._rounds
        if self.opponents is not None:
            # The past selves' weights are trees: the checkpoint writes them (``past.G…``).
            values["opponents"] = {
                "rng": self.opponents.rng.bit_generator.state,
                "generations": sorted(self.opponents.past),
                "next_generation": self.opponents.next_generation,
            }
            arrays["opponents.draws"] = self.opponents.draws
        return values, arrays

    @classmethod
    def restore(
        cls,
        info: GameInfo,
        env: Any,
        generators: tuple[np.random.Generator, np.random.Generator],
        next_game: int,
        buffer: EpisodeBuffer,
        arrays: dict[str, npt.NDArray[Any]],
        skip_forced: bool = False,
        next_round: int | None = None,
        opponents: Opponents | None = None,
    ) -> Actor:
        """The actor a :meth:`snapshot` described, from its parts once the checkpoint reader has
        checked them (the env rebuilt by the engine, the generators, the buffer, the arrays; with
        rounds, ``next_round``; with opponents, theirs)."""
        actor = cls.__new__(cls)
        actor.info = info
        actor.skip_forced = skip_forced
        actor.opponents = opponents
        actor.rounds = next_round is not None
        actor.env = env
        actor.rng, actor.shuffle_rng = generators
        actor.obs = np.array(arrays["obs"], dtype=np.float32)
        actor.mask = np.array(arrays["mask"], dtype=np.bool_)
        actor.player = np.array(arrays["player"], dtype=np.int64)
        actor.num_envs = int(env.num_envs)
        actor.buffer = buffer
        actor._games = np.array(arrays["games"], dtype=np.int64)
        actor._next_game = next_game
        actor._lengths = np.array(arrays["lengths"], dtype=np.int64)
        if next_round is None:
            actor._rounds = np.arange(actor.num_envs, dtype=np.int64)
            actor._next_round = actor.num_envs
        else:
            actor._rounds = np.array(arrays["rounds"], dtype=np.int64)
            actor._next_round = next_round
        return actor

    def take(self, round_weight: float = 0.0) -> Samples:
        """The decisions of every game finished since the last call, in play order (with
        rounds, their targets weigh the round's value by ``round_weight``)."""
        if not self.rounds:
            return self.buffer.take()
        return self.buffer.take(round_weight, int(self._rounds.min()))

    def _step_actions(
        self,
        params: Params,
        explore: npt.NDArray[np.bool_],
        draws: npt.NDArray[np.float64],
        mine: npt.NDArray[np.bool_] | None,
    ) -> tuple[Any, Any, Any, Any]:
        def greedy_of(weights: Params) -> Any:
            values = np.asarray(_FORWARD(weights, jnp.asarray(self.obs)))
            return np.argmax(np.where(self.mask, values, -np.inf), axis=1)  # ties: the lowest id

        greedy = greedy_of(params)
        actions = np.where(explore, _random_legal(self.mask, draws), greedy)
        if mine is not None and not mine.all():
            assert self.opponents is not None
            to_ids = partial(_nth_legal, self.mask)  # bot_moves gives move indices
            actions = self.opponents.moves(self.env, ~mine, greedy_of, actions, to_ids)
        rows = self.obs
        choices = self.mask.sum(axis=1) if self.skip_forced else None
        return rows, actions, self.env.step(actions), choices

    def _step_moves(
        self,
        params: Params,
        explore: npt.NDArray[np.bool_],
        draws: npt.NDArray[np.float64],
        mine: npt.NDArray[np.bool_] | None,
    ) -> tuple[Any, Any, Any, Any]:
        features, offsets = self.env.legal_move_features()
        starts, counts = offsets[:-1], np.diff(offsets)
        total = features.shape[0]
        padded = padded_rows(total)
        move_env = np.zeros(padded, dtype=np.int32)
        move_env[:total] = np.repeat(np.arange(self.num_envs, dtype=np.int32), counts)
        moves = np.zeros((padded, features.shape[1]), dtype=np.float32)
        moves[:total] = features

        def greedy_of(weights: Params) -> Any:
            scores = np.asarray(_SCORE(weights, self.obs, moves, move_env))[:total]
            best = np.maximum.reduceat(scores, starts)
            # The first row of each env reaching its best score: ties to the lowest move index.
            first = np.minimum.reduceat(
                np.where(scores == best[move_env[:total]], np.arange(total), total), starts
            )
            return first - starts

        greedy = greedy_of(params)
        random = np.minimum((draws * counts).astype(np.int64), counts - 1)
        indices = np.where(explore, random, greedy)
        if mine is not None and not mine.all():
            assert self.opponents is not None
            indices = self.opponents.moves(self.env, ~mine, greedy_of, indices)
        rows = np.concatenate([self.obs, features[starts + indices]], axis=1)
        columns = np.zeros(self.num_envs, dtype=np.int32)
        return rows, columns, self.env.step_moves(indices), counts
