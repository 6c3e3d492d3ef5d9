"""``train``: a training run in a folder, resumable, reproducible, interruptible.

The folder (``out``) holds

* ``settings.json`` — the run's :class:`TrainSettings` (a rerun with other settings is refused);
* ``policy.safetensors`` — the latest policy (format 1: ``neural:PATH`` plays it);
* ``train_state`` — parameters, optimizer state and counters (``checkpoint.py``);
* ``curve.csv`` and ``curve.png`` — the learning curve (``curve.py``).

Training runs in segments of ``eval_every`` decisions. Each segment starts self-play from fresh
deals seeded by (seed, decisions so far), plays and learns, then ends with a checkpoint and an
evaluation (a curve row). Every step of that is a function of the settings, so the same settings
give the same policy files, byte for byte; a rerun on the folder resumes from the last
checkpoint. Ctrl-C (``KeyboardInterrupt``) saves a checkpoint at the current step and is raised
again; resuming from it starts self-play from fresh deals there (reproducible from that
checkpoint, though not the same numbers as a run that was never interrupted).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np

from panda_core._args import shown
from panda_core._registry import spec
from panda_core.train._game import game_info
from panda_core.train.actor import Actor
from panda_core.train.checkpoint import Counters, load_state, save_state
from panda_core.train.curve import CurveRow, draw_curve, read_curve, write_curve
from panda_core.train.errors import TrainError
from panda_core.train.evaluate import WinRate, evaluate
from panda_core.train.learner import Learner
from panda_core.train.network import Params, init_params
from panda_core.train.policy_file import write_policy
from panda_core.train.samples import Samples
from panda_core.train.settings import TrainSettings

__all__ = [
    "CURVE_CSV",
    "CURVE_PNG",
    "POLICY",
    "SETTINGS",
    "STATE",
    "Progress",
    "TrainResult",
    "train",
]

SETTINGS = "settings.json"
POLICY = "policy.safetensors"
STATE = "train_state"
CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"
SHUFFLE_BATCHES = 4
"""Finished decisions are learned from once at least this many batches of them are ready, in a
shuffled order: consecutive decisions of one game are strongly correlated."""

Progress = Callable[[int, CurveRow | None], None]
"""``progress(decisions so far, the new curve row or None)``, called as training goes on."""


@dataclass(frozen=True)
class TrainResult:
    """Where a run stands: its folder, settings, counters and curve."""

    out: Path
    settings: TrainSettings
    decisions: int
    seconds: float
    curve: list[CurveRow]

    @property
    def policy(self) -> Path:
        """The latest policy file."""
        return self.out / POLICY


def train(
    settings: TrainSettings,
    out: str | os.PathLike[str],
    progress: Progress | None = None,
) -> TrainResult:
    """Train (or resume training) ``settings``'s run in the folder ``out`` up to
    ``settings.decisions`` decisions (module docstring)."""
    if not isinstance(settings, TrainSettings):
        raise TypeError(f"settings must be a TrainSettings, got {shown(settings)}")
    folder = _prepare(Path(out), settings)
    return _Run(settings, folder, progress).run()


def _prepare(folder: Path, settings: TrainSettings) -> Path:
    """The run folder, created, or checked to hold this run (``TrainError`` otherwise)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise TrainError(f"cannot create the run folder {folder}: {err}") from None
    saved = folder / SETTINGS
    if saved.exists():
        try:
            theirs = TrainSettings.from_json(json.loads(saved.read_text()))
        except (ValueError, TypeError) as err:
            raise TrainError(f"{saved}: not the settings of a training run ({err})") from None
        differences = settings.differences(theirs)
        if differences:
            raise TrainError(
                f"{folder} holds a run with other settings ({'; '.join(differences)}): resume "
                "it with the same settings (only decisions and threads may change), or train "
                "into another folder"
            )
    elif any(folder.iterdir()):
        raise TrainError(f"{folder} is not empty and holds no training run ({SETTINGS})")
    saved.write_text(json.dumps(settings.to_json(), indent=2) + "\n")
    return folder


class _Run:
    """One session of a run: load or start its state, play and learn segment by segment."""

    def __init__(self, settings: TrainSettings, folder: Path, progress: Progress | None) -> None:
        self.settings = settings
        self.folder = folder
        self.progress = progress
        self.info = game_info(settings.game)
        layers = [self.info.input_size, *settings.hidden, self.info.output_size]
        self.learner = Learner(settings.lr)
        self.params: Params = init_params(settings.seed, layers)
        self.opt_state: Any = self.learner.init(self.params)
        self.counters = Counters()
        if (folder / STATE).exists():
            self.params, self.opt_state, self.counters = load_state(
                folder / STATE, self.params, self.opt_state
            )
        self.curve = read_curve(folder / CURVE_CSV)
        self.eval_seed = int(np.random.SeedSequence([settings.seed, 1]).generate_state(1)[0])

    def run(self) -> TrainResult:
        settings = self.settings
        counters = self.counters
        missing = counters.at_segment_end and self.curve[-1:] and (
            self.curve[-1].decisions < counters.decisions
        )
        if not self.curve or missing:
            # The untrained network's row, or the row of a segment whose evaluation was
            # interrupted.
            self._checkpoint(evaluate_now=True)
        while self.counters.decisions < settings.decisions:
            every = settings.eval_every
            end = min(settings.decisions, (self.counters.decisions // every + 1) * every)
            try:
                self._segment(end)
            except KeyboardInterrupt:
                self._checkpoint(evaluate_now=False)
                raise
            self._checkpoint(evaluate_now=True)
        return TrainResult(
            self.folder, settings, self.counters.decisions, self.counters.seconds, self.curve
        )

    def _segment(self, end: int) -> None:
        """Self-play and learning from the current decisions up to ``end``."""
        settings = self.settings
        start = time.perf_counter()
        actor = Actor(
            self.info,
            settings.num_envs,
            settings.players,
            settings.threads,
            settings.seed,
            self.counters.decisions,
        )
        batch = settings.batch_size
        leftover: Samples | None = None
        losses: list[Any] = []
        decisions = self.counters.decisions
        steps = 0
        try:
            while decisions < end:
                actor.step(self.params, settings.epsilon)
                decisions += settings.num_envs
                if actor.buffer.ready + (len(leftover) if leftover else 0) < SHUFFLE_BATCHES * batch:
                    continue
                ready = actor.take()
                if leftover is not None:
                    ready = Samples.concat([leftover, ready])
                ready = ready[actor.shuffle_rng.permutation(len(ready))]
                full = len(ready) // batch
                for k in range(full):
                    self.params, self.opt_state, loss = self.learner.step(
                        self.params, self.opt_state, ready[k * batch : (k + 1) * batch]
                    )
                    losses.append(loss)
                    steps += 1
                leftover = ready[full * batch :]
        finally:
            # Whether the segment ended or was interrupted, count what it did.
            total = float(jnp.sum(jnp.asarray(losses))) if losses else 0.0
            self.counters = replace(
                self.counters,
                decisions=decisions,
                seconds=self.counters.seconds + time.perf_counter() - start,
                steps=self.counters.steps + steps,
                loss_sum=self.counters.loss_sum + total,
                loss_count=self.counters.loss_count + len(losses),
            )
            if self.progress is not None:
                self.progress(decisions, None)

    def _checkpoint(self, evaluate_now: bool) -> None:
        """Write the policy and the train state; with ``evaluate_now``, also a curve row."""
        settings = self.settings
        self.counters = replace(self.counters, at_segment_end=evaluate_now)
        write_policy(self.params, settings, self.folder / POLICY, self.counters.decisions)
        save_state(self.folder / STATE, self.params, self.opt_state, self.counters)
        if not evaluate_now:
            return
        if settings.eval_games:
            rates = evaluate(
                self.folder / POLICY,
                settings.game,
                settings.players,
                settings.eval_games,
                self.eval_seed,
                settings.threads,
            )
        else:
            rates = {"heuristic": WinRate(0, 0), "random": WinRate(0, 0)}
        counters = self.counters
        loss = counters.loss_sum / counters.loss_count if counters.loss_count else float("nan")
        row = CurveRow(counters.decisions, counters.seconds, loss, rates["heuristic"], rates["random"])
        self.curve.append(row)
        write_curve(self.curve, self.folder / CURVE_CSV)
        draw_curve(
            self.curve,
            self.folder / CURVE_PNG,
            f"panda-core train: {spec(settings.game).title}, {settings.players} players, "
            f"seed {settings.seed}",
            1 / settings.players,
        )
        self.counters = replace(counters, loss_sum=0.0, loss_count=0)
        save_state(self.folder / STATE, self.params, self.opt_state, self.counters)
        if self.progress is not None:
            self.progress(counters.decisions, row)
