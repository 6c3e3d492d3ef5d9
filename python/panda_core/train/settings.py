"""``TrainSettings``: everything that decides what a training run computes, checked up front.

A run folder stores its settings (``settings.json``); re-running on the folder resumes only with
the same settings, except those that do not change what is learned up to a point: ``decisions``
(a larger budget extends the run), ``threads`` (the engine's results do not depend on it),
``warm_start``, the warm start dataset's path (the dataset may move; what it holds is
``warm_start_sha256``, which may not change) and ``init_policy``, the path of the policy file the
run started from (its weights are ``init_policy_sha256``, which may not change).

The recipe's options (:data:`RECIPE_DEFAULTS`: ``target``, ``skip_forced``, ``replay_window``,
``lr_schedule``, ``warmup``, ``clip_grad``, ``ema``, ``epsilon_end``, ``opponents``,
``past_every``, ``warm_start`` and its ``warm_start_*`` settings, ``init_policy`` and its
``init_policy_sha256``) are off by default, and a
setting at its default is left out of ``settings.json`` and of the settings hash: a run with none
of them computes, writes and resumes exactly what a run of the trainer before them did, and its
folders resume under either.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
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
    "OPPONENT_KINDS",
    "PAST_SELVES",
    "RECIPE_DEFAULTS",
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
RESUMABLE = frozenset({"decisions", "threads", "warm_start", "init_policy"})
"""Settings a resumed run may change (see the module docstring)."""
MAX_REPLAY_FLOATS = 2**28
"""``replay_window`` times ``batch_size`` times the input width at most (1 GB of decisions
waiting to be shuffled)."""
LR_SCHEDULES = ("constant", "cosine", "linear")
RECIPE_DEFAULTS: dict[str, Any] = {
    "target": "game",
    "skip_forced": False,
    "replay_window": 4,
    "lr_schedule": "constant",
    "warmup": 0,
    "clip_grad": None,
    "ema": None,
    "epsilon_end": None,
    "opponents": "self",
    "past_every": 1_000_000,
    "warm_start": None,
    "warm_start_sha256": None,
    "warm_start_epochs": 2,
    "warm_start_min_visits": 1,
    "init_policy": None,
    "init_policy_sha256": None,
}
"""The recipe's settings and their defaults (today's trainer): left out of ``settings.json`` and
of :meth:`TrainSettings.identity` at these values (module docstring)."""
PAST_SELVES = 4
MAX_WARM_START_EPOCHS = 1000
MAX_PATH_CHARS = 4096
_SHA256 = re.compile(r"[0-9a-f]{64}")
"""Past selves kept (``opponents`` kind ``past``): the last this many snapshots of the weights."""
OPPONENT_KINDS = (
    "random, heuristic, neural (the shipped policy), ismcts, ismcts:N, ismcts+neural, "
    "ismcts+neural:N (the searches are slow), past (a past self)"
)
"""What a KIND of ``opponents`` may be, for the error messages."""
MAX_OPPONENTS_CHARS = 200
MAX_OPPONENT_PARTS = 8
# The built-in bots an opponent env may play: those whose name opens no file (``neural:PATH``,
# ``ismcts+neural:N:PATH`` would have the trainer open a path taken from the settings). The
# names are matched here before the engine sees them; the engine then checks N's range.
_BOT_KIND = re.compile(r"random|heuristic|neural|(?:ismcts|ismcts\+neural)(?::[0-9]{1,7})?")
_SEARCHES = ("ismcts:", "ismcts+neural:")
_FRACTION = re.compile(r"[0-9]{1,6}(?:\.[0-9]{0,12})?|\.[0-9]{1,12}")


@dataclass(frozen=True)
class TrainSettings:
    """One training run of self-play Deep Monte-Carlo (DouZero) on one game."""

    game: GameName = DEFAULT_GAME
    players: int = 4
    """Seats at every self-play table (the network plays them all)."""
    seed: int = 0
    """Decides the initial network, the deals, the exploration and the evaluation deals."""
    decisions: int = 1_000_000
    """Training budget: self-play decisions (moves of any seat) to learn from. With
    ``opponents``, every env step counts, the opponents' moves too (a budget takes about the
    same time), though only the learner's are learned from."""
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
    # ---- the recipe's options (RECIPE_DEFAULTS: off by default) ----
    target: str = "game"
    """What a decision learns: ``"game"`` the acting seat's final result (+1 winner, −1
    others); ``"round"`` the value of the round (Panda Head: the hand) the decision was made in,
    in [-1, 1], as the vector env reports it (``VecEnv.round_results``: the value ISMCTS gives a
    round's end, rescaled); ``"mix:ALPHA"`` ``ALPHA * round + (1 - ALPHA) * game``."""
    skip_forced: bool = False
    """Decisions with a single legal move are not learned from (they still count as
    decisions)."""
    replay_window: int = 4
    """Finished decisions are learned from once this many batches of them are ready, shuffled
    together (each is learned from once)."""
    lr_schedule: str = "constant"
    """``constant``, ``cosine`` (to 0 at the end of the budget) or ``linear`` (to 0), after
    ``warmup``; of the self-play decisions so far over ``decisions``."""
    warmup: int = 0
    """Decisions over which the learning rate rises linearly from 0 (0: none)."""
    clip_grad: float | None = None
    """Clip each gradient to this global norm (None: no clipping)."""
    ema: float | None = None
    """Keep an exponential moving average of the weights with this decay (in (0, 1)); it is the
    policy written and evaluated, while self-play plays the raw weights (None: no average)."""
    epsilon_end: float | None = None
    """Exploration falls linearly from ``epsilon`` to this over the budget (None: constant)."""
    opponents: str = "self"
    """Who the learner plays against: ``"self"`` (every seat of every env), or a comma list of
    ``KIND:FRACTION`` (:data:`OPPONENT_KINDS`; fractions summing to at most 1, the rest
    self-play): that fraction of the envs (:meth:`opponent_envs`) seats the learner in one seat
    per game and ``KIND`` in the others, and only the learner's decisions are learned from."""
    past_every: int = 1_000_000
    """Decisions between two snapshots of the weights kept as past selves (the opponent kind
    ``past``; the last :data:`PAST_SELVES` are kept, the initial weights before the first)."""
    warm_start: str | None = None
    """A self-play dataset written with search stats (``panda-core selfplay --search-stats``):
    before the first self-play decision the network is fitted to the search's move values over
    it (``warm_start.py``; None: no warm start). Its path only: a resumed run may give it
    elsewhere (:data:`RESUMABLE`), the dataset itself is ``warm_start_sha256``."""
    warm_start_sha256: str | None = None
    """The sha256 of the warm start dataset's ``_dataset.json`` (its identity: the manifest
    lists every shard's sha256). Left None, :func:`~panda_core.train.run.train` fills it in from
    the dataset; given (a run folder's settings), the dataset must still be that one."""
    warm_start_epochs: int = 2
    """Passes over the warm start dataset."""
    warm_start_min_visits: int = 1
    """A search's move is learned from only if the search visited it at least this often (a
    move's mean value over a few visits is mostly noise)."""
    init_policy: str | None = None
    """A policy file (format 1) whose weights the run starts from instead of fresh random ones:
    fine-tuning a shipped policy or another run's checkpoint (``init_policy.py``; None: random
    weights). Its path only, like ``warm_start``'s; the weights are ``init_policy_sha256``."""
    init_policy_sha256: str | None = None
    """The sha256 of the init policy's tensors (its metadata's ``sha256``, checked against the
    tensors when read). Left None, :func:`~panda_core.train.run.train` fills it in from the
    file; given (a run folder's settings), the file must still hold those weights."""

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
        self.target_weight()  # checks the target
        if not isinstance(self.skip_forced, bool):
            raise TypeError(f"skip_forced must be a bool, got {shown(self.skip_forced)}")
        _int_in(self.replay_window, "replay_window", 1, 4096)
        if self.lr_schedule not in LR_SCHEDULES:
            raise TrainError(
                f"lr_schedule must be one of {', '.join(LR_SCHEDULES)}, got "
                f"{shown(self.lr_schedule)}"
            )
        _int_in(self.warmup, "warmup", 0, MAX_DECISIONS)
        if self.clip_grad is not None:
            _float_in(self.clip_grad, "clip_grad", 0.0, 1e9, low_open=True)
        if self.ema is not None:
            _float_in(self.ema, "ema", 0.0, 1.0, low_open=True)
            if float(self.ema) >= 1.0:
                raise TrainError(f"ema must be in (0.0, 1.0), got {self.ema!r}")
        if self.epsilon_end is not None:
            _float_in(self.epsilon_end, "epsilon_end", 0.0, 1.0)
        _int_in(self.past_every, "past_every", 1, MAX_DECISIONS)
        self.opponent_envs()  # checks the opponents
        self._check_warm_start()
        _check_source(self.init_policy, self.init_policy_sha256, "init_policy", "policy file")
        self._check_sizes()

    def _check_warm_start(self) -> None:
        _check_source(
            self.warm_start,
            self.warm_start_sha256,
            "warm_start",
            "self-play dataset with search stats",
        )
        _int_in(self.warm_start_epochs, "warm_start_epochs", 1, MAX_WARM_START_EPOCHS)
        _int_in(self.warm_start_min_visits, "warm_start_min_visits", 1, 2**31 - 1)

    def target_weight(self) -> float:
        """The weight of the round's value in a decision's target: 0 for ``"game"``, 1 for
        ``"round"``, ``ALPHA`` for ``"mix:ALPHA"`` (checked)."""
        target = self.target
        if target == "game":
            return 0.0
        if target == "round":
            return 1.0
        alpha: float | None = None
        if isinstance(target, str) and target.startswith("mix:"):
            try:
                alpha = float(target[4:])
            except ValueError:
                alpha = None
        if alpha is None or not (math.isfinite(alpha) and 0.0 <= alpha <= 1.0):
            raise TrainError(
                f"target must be game, round or mix:ALPHA with ALPHA in [0, 1], got {shown(target)}"
            )
        return alpha

    def opponent_parts(self) -> tuple[tuple[str, Fraction], ...]:
        """The ``(KIND, FRACTION)`` parts of ``opponents`` in their order, checked (none for
        ``"self"``). The fractions are read exactly (decimal text), so that which env plays
        what never depends on float rounding."""
        text = self.opponents
        if text == "self":
            return ()
        problem = _opponents_problem(text)
        if isinstance(problem, str):
            raise TrainError(
                f"opponents must be self or a comma list of KIND:FRACTION with fractions in "
                f"(0, 1] summing to at most 1 (the rest self-play), e.g. heuristic:0.5 or "
                f"heuristic:0.25,past:0.25; KIND is one of {OPPONENT_KINDS}; a policy file "
                f"(neural:PATH) is not allowed. Got {shown(text)}: {problem}"
            )
        return problem

    def opponent_envs(self) -> tuple[str, ...]:
        """Each env's opponent kind for the whole run (``"self"``: self-play). The parts take
        consecutive envs from env 0 in their order: part ``k`` the envs from
        ``round(S(k-1) * num_envs)`` to ``round(S(k) * num_envs)``, ``S(k)`` the sum of the
        first ``k`` fractions and ``round`` to the nearest integer, halves up; the rest are
        self-play. A part that gets no env is refused."""
        kinds: list[str] = []
        total = Fraction(0)
        for kind, fraction in self.opponent_parts():
            total += fraction
            end = math.floor(total * self.num_envs + Fraction(1, 2))
            if end == len(kinds):
                raise TrainError(
                    f"opponents {kind}:{float(fraction):g} of {self.num_envs} envs is no env "
                    f"(envs are split by index, rounding to the nearest): raise its fraction "
                    f"or num_envs"
                )
            kinds += [kind] * (end - len(kinds))
        return (*kinds, *["self"] * (self.num_envs - len(kinds)))

    def epsilon_at(self, decisions: int) -> float:
        """The exploration rate after ``decisions`` self-play decisions."""
        if self.epsilon_end is None:
            return self.epsilon
        done = min(1.0, decisions / self.decisions)
        return self.epsilon + (self.epsilon_end - self.epsilon) * done

    def lr_factor(self, decisions: int) -> float:
        """The learning rate's factor (of ``lr``) after ``decisions`` self-play decisions: the
        warm-up's ramp times the schedule's decay."""
        factor = 1.0
        if self.warmup:
            factor = min(1.0, decisions / self.warmup)
        done = min(1.0, decisions / self.decisions)
        if self.lr_schedule == "cosine":
            factor *= 0.5 * (1.0 + math.cos(math.pi * done))
        elif self.lr_schedule == "linear":
            factor *= 1.0 - done
        return factor

    @property
    def plain_lr(self) -> bool:
        """The learning rate is ``lr`` at every step (no schedule, no warm-up)."""
        return self.lr_schedule == "constant" and not self.warmup

    def _check_sizes(self) -> None:
        """The memory the network and a batch take, bounded before anything is allocated."""
        from panda_core.train._game import game_info  # the registry only: no JAX

        info = game_info(self.game)
        layers = [info.input_size, *self.hidden, info.output_size]
        parameters = parameter_count(layers)
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
        if floats * self.replay_window > MAX_REPLAY_FLOATS:
            most = MAX_REPLAY_FLOATS // floats
            raise TrainError(
                f"replay_window {self.replay_window} of batches of {floats:,} floats is more "
                f"than {MAX_REPLAY_FLOATS:,} floats waiting: at most {most} with this batch_size"
            )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``hidden`` as a list; the recipe's settings at their defaults left
        out, as a run of the trainer before them wrote it)."""
        out = asdict(self)
        out["hidden"] = list(self.hidden)
        for name, default in RECIPE_DEFAULTS.items():
            if out[name] == default and type(out[name]) is type(default):
                del out[name]
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


def parameter_count(layers: Sequence[int]) -> int:
    """Weights and biases of a network of these layer sizes (input first)."""
    return sum(a * b + b for a, b in itertools.pairwise(layers))


def _check_source(path: object, sha: object, name: str, what: str) -> None:
    """A file the run reads (``warm_start``, ``init_policy``): its path and its identity."""
    if path is not None and not (isinstance(path, str) and 0 < len(path) <= MAX_PATH_CHARS):
        raise TrainError(
            f"{name} must be the path of a {what} (a str of 1 to {MAX_PATH_CHARS} characters) "
            f"or None, got {shown(path)}"
        )
    if sha is not None:
        if not (isinstance(sha, str) and _SHA256.fullmatch(sha)):
            raise TrainError(
                f"{name}_sha256 must be 64 lowercase hex digits (a sha256) or None, got "
                f"{shown(sha)}"
            )
        if path is None:
            raise TrainError(
                f"{name}_sha256 is the identity of the {name} {what}: it is given with "
                f"{name}, never alone"
            )


def _opponents_problem(text: object) -> tuple[tuple[str, Fraction], ...] | str:
    """``opponents``' parts, or what is wrong with it."""
    if not isinstance(text, str):
        return f"not a str but a {type(text).__name__}"
    if not text or len(text) > MAX_OPPONENTS_CHARS:
        return f"{len(text)} characters (1 to {MAX_OPPONENTS_CHARS})"
    pieces = text.split(",")
    if len(pieces) > MAX_OPPONENT_PARTS:
        return f"{len(pieces)} parts (at most {MAX_OPPONENT_PARTS})"
    parts: list[tuple[str, Fraction]] = []
    for piece in pieces:
        kind, colon, number = piece.rpartition(":")
        if not piece or not colon or not kind:
            return f"the part {shown(piece)} is not KIND:FRACTION"
        if kind != "past" and not _BOT_KIND.fullmatch(kind):
            return f"unknown or refused KIND {shown(kind)}"
        if kind.startswith(_SEARCHES) or kind in ("ismcts", "ismcts+neural"):
            from panda_core._core import RulesError, check_bot

            try:
                check_bot(kind)  # the engine's parser: N's range (no file: neural:PATH is out)
            except RulesError as err:
                return str(err)
        if not _FRACTION.fullmatch(number):
            return f"the fraction {shown(number)} is not a decimal number"
        fraction = Fraction(number)
        if not 0 < fraction <= 1:
            return f"the fraction {number} of {kind} is not in (0, 1]"
        if kind in (k for k, _ in parts):
            return f"{kind} is given twice"
        parts.append((kind, fraction))
    if sum(f for _, f in parts) > 1:
        return "the fractions sum to more than 1"
    return tuple(parts)


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
