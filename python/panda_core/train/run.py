"""``train``: a training run in a folder, resumable, reproducible, interruptible.

The folder (``out``) holds

* ``settings.json`` — the run's :class:`TrainSettings` (a rerun with other settings is refused);
* ``policy.safetensors`` — the latest policy (format 1: the bot ``neural:PATH`` plays it);
* ``train_state.safetensors`` — everything needed to go on exactly where it stopped
  (``checkpoint.py``: a format that cannot run code, checked when read);
* ``curve.csv`` and ``curve.png`` — the learning curve (``curve.py``);
* ``checkpoints/{decisions}.safetensors`` — the policy of every curve row (a copy of
  ``policy.safetensors`` when the row was evaluated), so that the best one can be chosen on other
  deals afterwards (``checkpoint_policies``; ``policies/make_policies.py`` ships the best).

With ``warm_start`` (a self-play dataset with search stats), the network is first fitted to the
search's move values (``warm_start.py``), once per run: the first checkpoint and curve row (at 0
self-play decisions) are those of the warm-started network, and a resumed run, which has a train
state, never does it again. Ctrl-C during the warm start stops it between two steps and keeps
nothing of it (the run folder holds only its settings; the same command does it again, exactly).

With ``init_policy`` (a policy file), the run starts from that file's weights instead of fresh
random ones (``init_policy.py``): the first curve row, at 0 decisions, is the file's policy.
The file is read and checked on every start, a resumed run's too (its weights must still be
the run's), before any work.

Every ``eval_every`` decisions (and at the end) the run writes a checkpoint, evaluates the policy
and adds a curve row. Everything it computes is a function of the settings, so the same settings
give the same policy files byte for byte, and a run that stops (at a checkpoint, on Ctrl-C) and
is resumed computes exactly what a run that never stopped computes. Ctrl-C finishes the current
step, saves a checkpoint and raises ``KeyboardInterrupt``; during an evaluation it stops the
evaluation (the checkpoint is already written; the resumed run evaluates again).
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
from panda_core._files import read_regular
from panda_core._registry import spec
from panda_core.train._game import game_info
from panda_core.train.actor import Actor
from panda_core.train.checkpoint import Counters, TrainState, load_state, save_state
from panda_core.train.curve import CurveRow, draw_curve, read_curve, write_curve
from panda_core.train.errors import TrainError
from panda_core.train.evaluate import WinRate, evaluate
from panda_core.train.interrupt import StopOnInterrupt
from panda_core.train.learner import Learner
from panda_core.train.network import init_params
from panda_core.train.opponents import Opponents
from panda_core.train.policy_file import write_policy
from panda_core.train.samples import Samples
from panda_core.train.settings import TrainSettings

__all__ = [
    "CHECKPOINTS",
    "CURVE_CSV",
    "CURVE_PNG",
    "OLD_STATE",
    "POLICY",
    "SETTINGS",
    "STATE",
    "Progress",
    "TrainResult",
    "checkpoint_policies",
    "eval_seed",
    "train",
]

SETTINGS = "settings.json"
POLICY = "policy.safetensors"
STATE = "train_state.safetensors"
OLD_STATE = "train_state"
"""The pickled train state of panda-core before format 2: recognised and refused, never read."""
MAX_SETTINGS_BYTES = 64 << 10
CURVE_CSV = "curve.csv"
CURVE_PNG = "curve.png"
CHECKPOINTS = "checkpoints"
"""The folder of the curve rows' policies (``{decisions:015d}.safetensors``)."""
SHUFFLE_BATCHES = 4
"""Finished decisions are learned from once at least this many batches of them are ready, in a
shuffled order: consecutive decisions of one game are strongly correlated. (The default of
``TrainSettings.replay_window``, which sets it per run.)"""
PROGRESS_STEPS = 64
"""Steps between two progress calls (a call per step would cost more than the bar shows)."""

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
    where = Path(out)
    warm = None
    initial = None
    if settings.init_policy is not None:
        from panda_core.train.init_policy import open_init_policy

        initial = open_init_policy(settings, game_info(settings.game))
        settings = initial.identify(settings)  # its weights' sha256 is part of the settings
    if settings.warm_start is not None:
        from panda_core.train.warm_start import open_dataset

        warm = open_dataset(settings, game_info(settings.game))
        settings = warm.identify(settings)  # its sha256 is part of the run's settings
        if not _present(where / STATE):
            warm.check()  # the warm start is still to do: every check before any work
    folder = _prepare(where, settings)
    start = None if initial is None else initial.params
    session = _Run(settings, folder, progress, warm, start)  # reads and checks the train state
    _write_settings(folder, settings)  # only once the state was found good: nothing else changes
    return session.run()


def eval_seed(seed: int) -> int:
    """The seed of the deals a run of ``seed`` evaluates its curve rows on."""
    return int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])


def checkpoint_policies(out: str | os.PathLike[str]) -> dict[int, Path]:
    """The policy file of each curve row a run folder kept, by decisions (files whose names are
    not a row's are left out; the files themselves are checked when they are read)."""
    folder = Path(out) / CHECKPOINTS
    found: dict[int, Path] = {}
    if not folder.is_dir():
        return found
    for path in folder.iterdir():
        stem, suffix = path.stem, path.suffix
        if suffix == ".safetensors" and len(stem) == 15 and stem.isdigit() and path.is_file():
            found[int(stem)] = path
    return dict(sorted(found.items()))


def _prepare(folder: Path, settings: TrainSettings) -> Path:
    """The run folder, created, or checked to hold this run (``TrainError`` otherwise)."""
    saved = folder / SETTINGS
    if saved.exists() or saved.is_symlink():
        text = read_regular(saved, MAX_SETTINGS_BYTES, TrainError, "run settings file")
        try:
            theirs = TrainSettings.from_json(json.loads(text))
        except (ValueError, TypeError) as err:
            raise TrainError(f"{saved}: not the settings of a training run ({err})") from None
        differences = settings.differences(theirs)
        if differences:
            raise TrainError(
                f"{folder} holds a run with other settings ({'; '.join(differences)}): resume "
                "it with the same settings (only decisions and threads may change), or train "
                "into another folder"
            )
        _check_resumable(folder)
    elif folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise TrainError(f"{folder} is not empty and holds no training run ({SETTINGS})")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise TrainError(f"cannot create the run folder {folder}: {err}") from None
    return folder


def _write_settings(folder: Path, settings: TrainSettings) -> None:
    try:
        (folder / SETTINGS).write_text(json.dumps(settings.to_json(), indent=2) + "\n")
    except OSError as err:
        raise TrainError(f"cannot write the run folder {folder}: {err}") from None


def _present(path: Path) -> bool:
    """Something is at ``path`` (a file, a folder, a FIFO, a dangling link)."""
    return path.exists() or path.is_symlink()


def _check_resumable(folder: Path) -> None:
    """Refuse a folder whose run cannot go on from its train state: an old pickled one (never
    unpickled), or none beside the policy or curve of a run that got somewhere (starting from 0
    would overwrite them)."""
    if _present(folder / OLD_STATE):
        raise TrainError(
            f"{folder / OLD_STATE} is the train state of an older panda-core, a pickle: it is "
            "not read, since unpickling can run any code. Resume the run with the panda-core "
            f"that wrote it, or start afresh: remove {OLD_STATE}, {POLICY}, {CURVE_CSV} and "
            f"{CURVE_PNG} from the folder (or train into a new folder)"
        )
    if not _present(folder / STATE):
        done = [name for name in (POLICY, CURVE_CSV) if _present(folder / name)]
        if done:
            raise TrainError(
                f"{folder} holds {' and '.join(done)} of a run but no {STATE}: the run cannot "
                "resume, and starting from 0 would overwrite them. To start afresh, remove "
                f"{POLICY}, {CURVE_CSV} and {CURVE_PNG} from the folder (or train into a new "
                "folder)"
            )


class _Run:
    """One session of a run: load or start its state, then play, learn and evaluate."""

    def __init__(
        self,
        settings: TrainSettings,
        folder: Path,
        progress: Progress | None,
        warm: Any = None,
        start: Any = None,
    ) -> None:
        self.settings = settings
        self.warm = warm
        """The warm start dataset (``WarmStartData``), or None."""
        self.folder = folder
        self.progress = progress
        self.info = game_info(settings.game)
        layers = [self.info.input_size, *settings.hidden, self.info.output_size]
        self.learner = Learner(settings.lr, settings.clip_grad, scaled=not settings.plain_lr)
        # The initial weights: fresh random ones, or the init policy's (``start``). They are
        # also the template the train state's weights are read into.
        params = init_params(settings.seed, layers) if start is None else start
        fresh = self.learner.init(params)
        if _present(folder / STATE):
            self.state = load_state(folder / STATE, settings, self.info, params, fresh)
            self.warm = None  # a train state is written only once the warm start is done
        else:
            average = params if settings.ema is not None else None
            self.state = TrainState(params, fresh, Counters(), actor=None, ema=average)
        self.curve = read_curve(folder / CURVE_CSV)
        self.eval_seed = eval_seed(settings.seed)

    def run(self) -> TrainResult:
        settings, state = self.settings, self.state
        if self.warm is not None:
            self._warm_start()
        if state.counters.row_due:
            # The untrained (or warm-started) network's row, or one whose evaluation was
            # interrupted.
            self._checkpoint()
            self._evaluate()
        while state.counters.decisions < settings.decisions:
            every = settings.eval_every
            end = min(settings.decisions, (state.counters.decisions // every + 1) * every)
            self._play_until(end)
            self._checkpoint()
            self._evaluate()
        counters = state.counters
        return TrainResult(self.folder, settings, counters.decisions, counters.seconds, self.curve)

    def _warm_start(self) -> None:
        """Fit the network to the warm start dataset (``warm_start.py``): the self-play phase
        starts from its weights with a fresh Adam state (the moments of another loss would skew
        its first steps), and the first curve row's loss is the warm start's."""
        state, settings = self.state, self.settings
        with StopOnInterrupt() as stop:
            params, result = self.warm.fit(self.learner, state.params, settings, stop)
        state.params = params
        state.opt_state = self.learner.init(params)
        if settings.ema is not None:
            state.ema = params
        counters = state.counters
        state.counters = replace(
            counters,
            seconds=counters.seconds + result.seconds,
            loss_sum=counters.loss_sum + result.loss_sum,
            loss_count=counters.loss_count + result.steps,
        )
        state.warm_start = result.record()
        self.warm = None

    def _play_until(self, end: int) -> None:
        """Self-play and learning up to ``end`` decisions; on Ctrl-C, a checkpoint at the
        current step, then ``KeyboardInterrupt``."""
        settings, state = self.settings, self.state
        if state.actor is None:
            opponents = None
            if settings.opponents != "self":
                # No step yet: the parameters are the initial weights (the first past self).
                kinds = settings.opponent_envs()
                opponents = Opponents.start(kinds, settings.seed, state.params)
            state.actor = Actor(
                self.info,
                settings.num_envs,
                settings.players,
                settings.threads,
                settings.seed,
                skip_forced=settings.skip_forced,
                rounds=settings.target != "game",
                opponents=opponents,
            )
        actor: Actor = state.actor
        actor.set_threads(settings.threads)
        past = actor.opponents is not None and bool(actor.opponents.is_past.any())
        batch = settings.batch_size
        window = settings.replay_window * batch
        round_weight = settings.target_weight()
        losses: list[Any] = []
        decisions, steps, start = state.counters.decisions, 0, time.perf_counter()
        with StopOnInterrupt() as stop:
            while decisions < end and not stop.requested:
                actor.step(state.params, settings.epsilon_at(decisions))
                decisions += settings.num_envs
                every = settings.past_every
                if past and decisions // every > (decisions - settings.num_envs) // every:
                    # A past self every past_every decisions (a step that crosses several
                    # boundaries takes one), of the weights that played the step.
                    assert actor.opponents is not None
                    actor.opponents.snapshot(state.params)
                if steps % PROGRESS_STEPS == 0 and self.progress is not None:
                    self.progress(decisions, None)
                steps += 1
                pending = len(state.pending) if state.pending is not None else 0
                if actor.buffer.ready + pending < window:
                    continue
                ready = actor.take(round_weight)
                if state.pending is not None:
                    ready = Samples.concat([state.pending, ready])
                ready = ready[actor.shuffle_rng.permutation(len(ready))]
                full = len(ready) // batch
                factor = settings.lr_factor(decisions)
                for k in range(full):
                    state.params, state.opt_state, loss = self.learner.step(
                        state.params, state.opt_state, ready[k * batch : (k + 1) * batch], factor
                    )
                    if settings.ema is not None:
                        done = state.counters.steps + len(losses)
                        state.ema = self.learner.average(
                            state.ema, state.params, settings.ema, done
                        )
                    losses.append(loss)
                state.pending = ready[full * batch :]
            total = float(jnp.sum(jnp.stack(losses))) if losses else 0.0
            counters = state.counters
            state.counters = replace(
                counters,
                decisions=decisions,
                seconds=counters.seconds + time.perf_counter() - start,
                steps=counters.steps + len(losses),
                loss_sum=counters.loss_sum + total,
                loss_count=counters.loss_count + len(losses),
                row_due=decisions >= end,
            )
            if self.progress is not None:
                self.progress(decisions, None)
            if stop.requested:
                self._checkpoint()
                raise KeyboardInterrupt

    def _checkpoint(self) -> None:
        """Write the policy (the moving average of the weights, with ``ema``) and the train
        state."""
        state = self.state
        played = state.ema if self.settings.ema is not None else state.params
        write_policy(played, self.settings, self.folder / POLICY, state.counters.decisions)
        save_state(self.folder / STATE, state, self.settings)

    def _keep_policy(self, decisions: int) -> None:
        """A copy of the row's policy in ``checkpoints/`` (written whole, then renamed)."""
        folder = self.folder / CHECKPOINTS
        folder.mkdir(exist_ok=True)
        target = folder / f"{decisions:015d}.safetensors"
        partial = target.with_suffix(".partial")
        partial.write_bytes((self.folder / POLICY).read_bytes())
        os.replace(partial, target)

    def _evaluate(self) -> None:
        """A curve row for the current state (the checkpoint is written first: an interrupted
        evaluation is redone on resume)."""
        settings, state = self.settings, self.state
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
        counters = state.counters
        loss = counters.loss_sum / counters.loss_count if counters.loss_count else float("nan")
        row = CurveRow(
            counters.decisions, counters.seconds, loss, rates["heuristic"], rates["random"]
        )
        self.curve = [r for r in self.curve if r.decisions < row.decisions] + [row]
        self._keep_policy(counters.decisions)
        write_curve(self.curve, self.folder / CURVE_CSV)
        draw_curve(
            self.curve,
            self.folder / CURVE_PNG,
            f"panda-core train: {spec(settings.game).title}, {settings.players} players, "
            f"seed {settings.seed}",
            1 / settings.players,
        )
        state.counters = replace(counters, loss_sum=0.0, loss_count=0, row_due=False)
        save_state(self.folder / STATE, state, self.settings)
        if self.progress is not None:
            self.progress(counters.decisions, row)
