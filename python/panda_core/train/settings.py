"""``TrainSettings``: everything that decides what a training run computes, checked up front.

A run folder stores its settings (``settings.json``); re-running on the folder resumes only with
the same settings, except the two that do not change what is learned up to a point: ``decisions``
(a larger budget extends the run) and ``threads`` (the engine's results do not depend on it).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from panda_core._args import int_arg, players_arg, seed_arg, shown
from panda_core._core import MAX_THREADS
from panda_core._registry import DEFAULT_GAME, GameName, spec
from panda_core.train.errors import TrainError

__all__ = [
    "MAX_BATCH_FLOATS",
    "MAX_HIDDEN_LAYERS",
    "MAX_NUM_ENVS",
    "MAX_PARAMETERS",
    "MAX_WIDTH",
    "RESUMABLE",
    "TrainSettings",
]

MAX_HIDDEN_LAYERS = 7
"""Hidden layers at most: the Rust bot reads policies of up to 8 dense layers."""
MAX_WIDTH = 4096
"""Widest hidden layer the Rust bot reads."""
MAX_DECISIONS = 2**53
"""Decisions budget at most (the counters are written as JSON numbers)."""
MAX_NUM_ENVS = 16_384
"""Self-play games at most: a step holds every game's observation and (climbing games) its legal
moves' rows, about 20 MB per 1,000 climbing games; the engine's own limit is far higher."""
MAX_PARAMETERS = 2**25
"""Network parameters at most (weights and biases; 128 MB as f32, about four times that with
Adam's state and the gradients): checked before anything is allocated."""
MAX_BATCH_FLOATS = 2**24
"""``batch_size`` times the network's input width at most (64 MB a batch; up to four batches
wait to be shuffled): 65,536 decisions of Panda Head, 13,127 of a climbing game."""
RESUMABLE = frozenset({"decisions", "threads"})
"""Settings a resumed run may change (see the module docstring)."""


@dataclass(frozen=True)
class TrainSettings:
    """One training run of self-play Deep Monte-Carlo (DouZero) on one game."""

    game: GameName = DEFAULT_GAME
    players: int = 4
    """Seats at every self-play table (the network plays them all)."""
    seed: int = 0
    """Decides the initial network, the deals, the exploration and the evaluation deals."""
    decisions: int = 1_000_000
    """Training budget: self-play decisions (moves of any seat) to learn from."""
    num_envs: int = 64
    """Games played side by side; the network is asked once per step for all of them."""
    hidden: tuple[int, ...] = (256, 128)
    """Hidden layer widths (ReLU after each)."""
    lr: float = 3e-4
    """Adam learning rate."""
    batch_size: int = 1024
    """Decisions per gradient step."""
    epsilon: float = 0.05
    """Probability of a uniformly random legal move at each self-play decision."""
    eval_every: int = 250_000
    """Decisions between evaluations (a curve row and a checkpoint each)."""
    eval_games: int = 400
    """Games per evaluation line-up (against 3 heuristic, against 3 random), seats rotated;
    0: no evaluation (the curve has loss only)."""
    threads: int | None = None
    """Engine threads for the self-play envs and the evaluation games (None: every core)."""

    def __post_init__(self) -> None:
        spec(self.game)  # an unknown game is a RulesError naming the games
        players_arg(self.players)
        seed_arg(self.seed)
        _int_in(self.decisions, "decisions", 1, MAX_DECISIONS)
        _int_in(self.num_envs, "num_envs", 1, MAX_NUM_ENVS)
        if not isinstance(self.hidden, tuple) or not 1 <= len(self.hidden) <= MAX_HIDDEN_LAYERS:
            raise TrainError(
                f"hidden must be a tuple of 1 to {MAX_HIDDEN_LAYERS} layer widths, got "
                f"{shown(self.hidden)}"
            )
        for width in self.hidden:
            _int_in(width, "each hidden width", 1, MAX_WIDTH)
        _float_in(self.lr, "lr", 0.0, 1.0, low_open=True)
        _int_in(self.batch_size, "batch_size", 1, 65_536)
        _float_in(self.epsilon, "epsilon", 0.0, 1.0)
        _int_in(self.eval_every, "eval_every", 1, MAX_DECISIONS)
        _int_in(self.eval_games, "eval_games", 0, 1_000_000)
        if self.threads is not None:
            _int_in(self.threads, "threads", 1, MAX_THREADS)
        self._check_sizes()

    def _check_sizes(self) -> None:
        """The memory the network and a batch take, bounded before anything is allocated."""
        from panda_core.train._game import game_info  # the registry only: no JAX

        info = game_info(self.game)
        layers = [info.input_size, *self.hidden, info.output_size]
        parameters = sum(a * b + b for a, b in itertools.pairwise(layers))
        if parameters > MAX_PARAMETERS:
            raise TrainError(
                f"hidden {list(self.hidden)} gives a network of {parameters:,} parameters for "
                f"{self.game}; at most {MAX_PARAMETERS:,}: use fewer or narrower layers"
            )
        floats = self.batch_size * info.input_size
        if floats > MAX_BATCH_FLOATS:
            most = MAX_BATCH_FLOATS // info.input_size
            raise TrainError(
                f"batch_size {self.batch_size} of {info.input_size}-float inputs is {floats:,} "
                f"floats a batch, more than {MAX_BATCH_FLOATS:,}: at most {most} for {self.game}"
            )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``hidden`` as a list)."""
        out = asdict(self)
        out["hidden"] = list(self.hidden)
        return out

    @classmethod
    def from_json(cls, data: object) -> TrainSettings:
        """Settings from :meth:`to_json`'s dict (a run folder's ``settings.json``)."""
        if not isinstance(data, dict):
            raise TrainError(f"settings must be a JSON object, got {shown(data)}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise TrainError(f"unknown settings {unknown}; the settings are {sorted(names)}")
        values = dict(data)
        if isinstance(values.get("hidden"), list):
            values["hidden"] = tuple(values["hidden"])
        return cls(**values)

    def identity(self) -> str:
        """The sha256 of the settings that decide what the run computes (all but
        :data:`RESUMABLE`), as canonical JSON: what a checkpoint records to say whose it is."""
        chosen = {k: v for k, v in self.to_json().items() if k not in RESUMABLE}
        text = json.dumps(chosen, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def differences(self, other: TrainSettings) -> list[str]:
        """The settings (other than :data:`RESUMABLE`) that differ from ``other``'s, as
        ``"name: mine != theirs"``."""
        return [
            f"{f.name}: {getattr(other, f.name)!r} in the folder, {getattr(self, f.name)!r} now"
            for f in fields(self)
            if f.name not in RESUMABLE and getattr(self, f.name) != getattr(other, f.name)
        ]


def _int_in(value: object, what: str, lo: int, hi: int) -> int:
    number = int_arg(value, what)  # a float or bool is a TypeError, as everywhere in the package
    if not lo <= number <= hi:
        raise TrainError(f"{what} must be in {lo}..={hi}, got {number}")
    return number


def _float_in(value: object, what: str, lo: float, hi: float, low_open: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{what} must be a number, got {type(value).__name__} {shown(value)}")
    number = float(value)
    low_ok = number > lo if low_open else number >= lo
    if not (math.isfinite(number) and low_ok and number <= hi):
        interval = f"{'(' if low_open else '['}{lo}, {hi}]"
        raise TrainError(f"{what} must be in {interval}, got {value!r}")
